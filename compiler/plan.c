#include "compiler/plan.h"

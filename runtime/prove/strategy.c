/* strategy — names of the proving strategies (strategy.h). */
#include "config.h"

#include "runtime/prove/strategy.h"

#include <string.h>

static const char *const names[EZ_STRATEGY_COUNT] = {"einsum", "deepprove", "per-head"};

const char *ez_strategy_name(ez_strategy s)
{
    return (unsigned)s < EZ_STRATEGY_COUNT ? names[s] : NULL;
}

ez_status ez_strategy_parse(const char *name, ez_strategy *out)
{
    for (unsigned s = 0; name && s < EZ_STRATEGY_COUNT; s++)
        if (strcmp(name, names[s]) == 0) {
            *out = (ez_strategy)s;
            return EZ_OK;
        }
    return EZ_ERR_INPUT;
}

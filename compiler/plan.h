#ifndef EZ_COMPILER_PLAN_H
#define EZ_COMPILER_PLAN_H
#endif

/* strategy_perhead — placeholder */
#include "config.h"

#include "runtime/prove/strategies.h"

ez_status ez_strategy_perhead_reduce(ez_pctx *c, size_t op, const ez_claim *out)
{
    return ez_strategy_plain_reduce(c, op, out, true);
}

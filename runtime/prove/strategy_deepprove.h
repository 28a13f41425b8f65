/* strategy_deepprove — the parts of the deepprove strategy split over two files
 * (strategy_deepprove.c: dispatch and the stacked-heads contractions;
 * strategy_deepprove_pad.c: the projections and their padding matrices). Internal to
 * the strategy; the entry point is ez_strategy_deepprove_reduce (strategies.h). */
#ifndef EZ_RUNTIME_PROVE_STRATEGY_DEEPPROVE_H
#define EZ_RUNTIME_PROVE_STRATEGY_DEEPPROVE_H

#include "runtime/prove/heads.h"
#include "runtime/prove/strategies.h"

/* The output projection (PROJ_OUT, heads h, view v) with a flat axis that is not the split
 * one: rescale, the flat matmul, the unpadding sumcheck. Same contract as the reductions
 * of strategies.h. */
ez_status ez_deepprove_proj_out(ez_pctx *c, size_t op, ez_opview *v, const ez_heads *h, const ez_claim *out);

/* Q/K/V: the group of PROJ_IN ops op closes (runtime/prove/heads.h ez_heads_group; op is
 * its last member and out its merged claim; the other members' claim lists are merged and
 * consumed here): rescales, padding sumchecks, the aggregated QKV sumcheck, the weights'
 * unpadding. */
ez_status ez_deepprove_proj_in(ez_pctx *c, size_t op, const ez_claim *out);

#endif

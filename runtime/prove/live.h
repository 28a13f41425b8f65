/* live — an EINSUM with a rescale proven on the causal support of the softmax that reads
 * its output (the plan's live mark, compiler/plan.h ez_eq_schedule.live; protocol and
 * soundness in docs/protocol-einsum.md "On the causal support").
 *
 * The tensor the claim flow proves is then T = I . a, the scores a = floor(acc / 2^k)
 * restricted to the softmax's live support (I its indicator: the causal triangle's dyadic
 * blocks, runtime/ops/rowaxis.h), zero elsewhere; the remainder R and the range check of
 * a live on that support only. Given the merged claim T~(r) = v:
 *   1. the prover sends rho = (I . R)~(r) (a claim on the committed R);
 *   2. one sumcheck  2^k v + rho = sum_x eq(r, x) I(x) acc(x)  (degree 3) ends at a point
 *      p with I~(p) (the verifier's, O(pieces log)) and acc~(p), which the op's strategy
 *      then reduces as a claim on the accumulator itself (no rescale left). */
#ifndef EZ_RUNTIME_PROVE_LIVE_H
#define EZ_RUNTIME_PROVE_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/pctx.h"

/* Layout, both sides: for op `op` with a live mark, add the live support of its output
 * (the reading softmax's, ez_rowaxis_live_support) to L and mark it live for that tensor,
 * so its remainder and range check land on it (ez_advice_support_tensor). Nothing is
 * added when the op has no mark or the support would be the whole cube. EZ_OK or
 * EZ_ERR_NOMEM. */
ez_status ez_live_layout(ez_advice_layout *L, const ez_plan *p, size_t op);

/* The live support of op `op`'s output in L, or -1 (no mark, or none was needed). */
long ez_live_support_of(const ez_advice_layout *L, const ez_plan *p, size_t op);

/* Steps 1 and 2 above on either side: the claim `out` on T becomes *acc (owns its point),
 * a claim on the accumulator; the remainder's claim is added. EZ_OK, EZ_ERR_REJECT
 * (verifier; reason in c->d), EZ_ERR_INVALID, EZ_ERR_NOMEM. */
ez_status ez_live_reduce(ez_pctx *c, size_t op, const ez_adv_support *s, const ez_claim *out, ez_claim *acc);

/* Proof bytes of steps 1 and 2 for op `op` (a live support in L), and the work the prover
 * counts for them (ez_work: one sumcheck, the tables' entries and its reads). */
uint64_t ez_live_bytes(const ez_plan *p, size_t op);
void ez_live_work(const ez_plan *p, size_t op, uint64_t *sumchecks, uint64_t *touched);

#endif

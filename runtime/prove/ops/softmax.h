/* prove_softmax — the proof of a SOFTMAX op, with or without the causal mask, exactly
 * as the integer semantics define it (DESIGN.md §3 "Softmax, exactly"; docs/semantics.md
 * "Softmax"). The protocol, the list of committed polynomials and the soundness argument
 * are in docs/protocol-softmax.md; this header is the per-op entry (runtime/prove.h) plus
 * the structured MLE of the live-entry selector, exposed for tests.
 *
 * Summary. Over the input's padded cube (variables of x in its axis order), with S the
 * public live selector (real entries not causally masked), the op commits per element
 * l, e_lo, w, z, e and the limbs of h, d_r (only when in_scale > 12), rem, g = sigma-1-rem,
 * p; per row the max m and the limbs of count-1; and the exp table's multiplicities.
 * It proves (a) (l, e_lo) in the exp table (one LogUp-GKR of its own), (b) the limbs in
 * their ranges (the framework's range lookups), (c) one batched zero-check of eight
 * pointwise relations and (d) one zero-check z * d = 0, plus a row identity
 * count-1 + [row real] = sum_t z at a random row point; the claim on p becomes a claim
 * on the committed p. Everything ends in claims on x (claim flow) and on advice. */
#ifndef EZ_RUNTIME_PROVE_SOFTMAX_H
#define EZ_RUNTIME_PROVE_SOFTMAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/util.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/claim.h"
#include "runtime/exec/exec.h"
#include "runtime/prove/prove.h"

/* The per-op entry (runtime/prove.h "PER-OP INTERFACE").
 * layout — registers the op-owned polys (fixed order, docs/protocol-softmax.md §2) and
 *          their range columns; EZ_ERR_UNSUPPORTED with a message for a shape or width
 *          the protocol does not cover (d names the reason).
 * fill   — prover: computes the op-owned polys from the trace (x, the output p and the
 *          aux arrays row_max, exp, div_rem); EZ_ERR_NUMERIC (checked mode) when a value
 *          is outside its proven range (a trace the semantics cannot produce), naming it.
 * prove / verify — the reduction of the merged claim on p (one function for both
 *          sides); the verifier returns EZ_ERR_REJECT with a reason in c->d. */
ez_status ez_op_softmax_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
ez_status ez_op_softmax_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                             bool unchecked, ez_fe **polys, ez_diag *d);
ez_status ez_op_softmax_prove(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_softmax_verify(ez_pctx *c, size_t op, const ez_claim *out);

/* The MLE of the live set of a causally masked row/column pair,
 *     F(i, j) = [i < Ni] [j < Nj] [j <= i],
 * over ni + nj variables (i's block, j's block; MSB first in each), at (ri, rj), in
 * O(max(ni, nj)) extension multiplies: a 12-state comparison automaton read from the most
 * significant bit, each variable weighted by eq(r_b, bit) once, so the sum over accepting
 * runs is multilinear and equals the table's MLE. 1 <= Ni <= 2^ni, 1 <= Nj <= 2^nj. */
ez_fe2 ez_softmax_live_mle(const ez_fe2 *ri, unsigned ni, uint64_t Ni, const ez_fe2 *rj, unsigned nj, uint64_t Nj);

#endif

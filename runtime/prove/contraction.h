/* prove_einsum — the proof of one EINSUM op: reduce the claim on its output to one
 * claim per operand and one on the rescale remainder (docs/protocol.md; the step-by-step protocol and its soundness
 * argument are in docs/protocol-einsum.md).
 *
 * Statement. For the op C = floor(mul * sum_{idx not in C} prod_k in_k[...] / 2^shift)
 * with remainder R = acc - 2^shift C in [0, 2^shift) (committed advice when shift > 0):
 *     given C~(r) = v, prove acc~(r) = 2^shift v + R~(r)
 * and leave the claims in_k~(point_k) = value_k and R~(r) = rho. The claims are NOT
 * checked here against any data: they are discharged downstream (the producer's proof,
 * a PCS opening, a public evaluation), and R and C are range-checked by separate
 * lookups (not part of this op's proof).
 *
 * Index classes are computed from in_axes / out_axes (docs/plan.md index-class table); the sumcheck
 * binds the batch and contracted indices in op->sched.bind_order when the plan filled it
 * (nbind > 0; it must then list exactly those indices), else in operand A's axis order
 * (the rule of compiler/schedule.c). Either way prover and verifier derive the same order
 * from the op alone.
 *
 * Proof bytes (all field elements 16-byte canonical F_{p^2}):
 *     [rho]             if shift > 0
 *     [sumcheck proof]  if the op has 2 operands: nvars rounds of degree values
 *                       (degree 3 with a batch index, else 2), then A''(p), B''(p)
 * A one-operand einsum has no sumcheck (its claim is a linear map). */
#ifndef EZ_RUNTIME_PROVE_EINSUM_H
#define EZ_RUNTIME_PROVE_EINSUM_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/transcript.h"
#include "lib/util.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/strategy.h"

/* Prover.
 * In:  t — transcript (advanced identically to ez_einsum_verify); op — an EZ_OP_EINSUM
 *      with 1 or 2 operands, mul != 0, shift <= 62, no index repeated inside one
 *      tensor, every index in some tensor, axis extents equal to idx_size, every
 *      idx_size in [1, 2^40], at most 48 batch + contracted variables;
 *      tensors — the plan's tensor array (op->in[k], op->out index it);
 *      operand_data[k] — operand k's values, row-major over its real extents;
 *      rem — R (same shape as the output), NULL iff shift == 0;
 *      out_claim — the claim C~(r) = v, nvars = the output's variable count (it is not
 *      checked: a false claim yields a proof the verifier rejects, or false input
 *      claims for one-operand ops).
 * Out: proof — bytes appended; in_claims[0..nin-1] — one claim per operand (must not own
 *      points; caller clears them); rem_claim — R~(r) = rho when shift > 0 (may be NULL
 *      iff shift == 0; not touched when shift == 0). All outputs are zeroed on failure.
 * Cost: folding the free and summed axes costs about one extension multiply per REAL
 *      operand entry; the sumcheck tables hold the real extents of the batch and
 *      contracted indices only (compact) and every round reads only entries that can be
 *      non-zero (lib/sumcheck_box.h) — padding costs nothing, and the proof is the one
 *      the zero-padded tables give. Scratch: the folded operands (16 B per real table
 *      entry, one 8 B copy of a folded operand) plus the sumcheck's own.
 * Returns EZ_OK, EZ_ERR_INVALID (bad op or arguments), EZ_ERR_NOMEM, or EZ_ERR_REJECT
 *      when a broadcast factor vanishes at r (probability <= nv/2^127; the verifier
 *      would reject too). */
ez_status ez_einsum_prove(ez_transcript *t, const ez_plan_op *op, const ez_plan_tensor *tensors,
                          const int64_t *const *operand_data, const int64_t *rem, const ez_claim *out_claim,
                          ez_writer *proof, ez_claim *in_claims, ez_claim *rem_claim);

/* Options of ez_einsum_prove_ex. */
typedef struct {
    bool dense;     /* fold the operands padded to powers of two per axis and run the
                       sumcheck over the zero-padded tables (the way provers that pad their
                       tensors work: the deepprove and per-head strategies); same proof */
    ez_work *work;  /* += one sumcheck, the entries read and the real entries (may be NULL) */
} ez_einsum_opts;

/* ez_einsum_prove with options (opts may be NULL: compact, not counted). */
ez_status ez_einsum_prove_ex(ez_transcript *t, const ez_plan_op *op, const ez_plan_tensor *tensors,
                             const int64_t *const *operand_data, const int64_t *rem, const ez_claim *out_claim,
                             const ez_einsum_opts *opts, ez_writer *proof, ez_claim *in_claims, ez_claim *rem_claim);

/* The real work of the op's reduction (ez_work.real, runtime/prove/strategy.h): its
 * operands' real entries plus the non-zero support of its sumcheck tables over the
 * rounds — what the compact prover reads. 0 for a one-operand op or an invalid one. */
uint64_t ez_einsum_real_work(const ez_plan_op *op, const ez_plan_tensor *tensors);

/* The work ez_einsum_prove_ex adds for the op (dense or compact), from the op alone. */
ez_work ez_einsum_work(const ez_plan_op *op, const ez_plan_tensor *tensors, bool dense);

/* Verifier: uses the op, the tensor shapes, the claim and the proof bytes only.
 * In:  t, op, tensors, out_claim as for the prover; proof — untrusted bytes (the reader
 *      is left after this op's part; the caller checks the end of the whole proof).
 * Out: in_claims[0..nin-1] and rem_claim (shift > 0) — the claims the caller must
 *      discharge; on any failure they are zeroed.
 * Cost: O(nvars * degree + sum of operand variables) extension operations plus
 *      transcript hashing; no allocation beyond the output points.
 * Returns EZ_OK, EZ_ERR_REJECT (a round or final check fails, a broadcast factor is
 *      zero, truncated or non-canonical bytes), EZ_ERR_INVALID (bad op or arguments),
 *      EZ_ERR_NOMEM. */
ez_status ez_einsum_verify(ez_transcript *t, const ez_plan_op *op, const ez_plan_tensor *tensors,
                           const ez_claim *out_claim, ez_reader *proof, ez_claim *in_claims,
                           ez_claim *rem_claim);

/* The exact number of proof bytes ez_einsum_prove appends for this op, or 0 with
 * EZ_ERR_INVALID in *st for an op the prover rejects (st may be NULL). O(nidx). */
size_t ez_einsum_proof_size(const ez_plan_op *op, const ez_plan_tensor *tensors, ez_status *st);

#endif

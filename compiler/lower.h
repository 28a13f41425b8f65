/* lower — the checked program (compiler/sema.h) to the op graph (compiler/plan.h),
 * docs/architecture.md data flow.
 *
 * Every non-REF node of every statement becomes one op writing one tensor: the root
 * writes the statement's tensor version (unique names "x", "x'1", ... come from sema),
 * inner nodes write temporaries named "<defined name>.<k>" ('.' cannot occur in a
 * source identifier, so they never collide). Ops are emitted children first, so the
 * op list is in topological order. The lowering also:
 *   - fuses softmax[t](causal[s, t](e)) into ONE EZ_OP_SOFTMAX with masked = true;
 *   - turns table[tok[s], d] into EZ_OP_GATHER (a contraction with the public one-hot
 *     matrix; the vocabulary becomes index "#<tokens>" of the op);
 *   - keeps fused rescale shifts, constant multipliers and the exact scale-aligning ADD
 *     coefficients from sema;
 *   - maps fixed axes (a layer slice `wq[2, d, h, e]` after unrolling) to
 *     ez_plan_op.in_fixed / in_pos;
 *   - splits any product of three or more factors into pairwise contractions in the
 *     cheapest order (ez_lower_contraction_order). sema already splits them, so this is
 *     the back end's guarantee, not its usual path.
 * The proving fields are left zero: run ez_plan_schedule next. */
#ifndef EZ_COMPILER_LOWER_H
#define EZ_COMPILER_LOWER_H

#include <stdint.h>

#include "compiler/plan.h"
#include "compiler/sema.h"
#include "lib/util.h"

/* Lower prog into *out (initialised here; ez_plan_clear frees it, also on failure).
 * In:  prog — a program returned by ez_compile_front with EZ_OK (its guarantees hold).
 *      fallback_model — the model name to use when the source has no `model` line
 *      (truncated to EZ_MAX_NAME - 1 bytes); may be NULL ("model").
 * Out: *out — tensors (the program's tensors in order, then temporaries) and ops.
 * Returns EZ_OK; EZ_ERR_NUMERIC with d set when a split intermediate would exceed the
 *      field's safe range; EZ_ERR_INVALID with d set when the result breaks a plan
 *      limit (too many indices in one op, a name too long); EZ_ERR_NOMEM.
 * Cost: linear in the number of nodes (plus 3^k for a product of k > 2 factors). */
ez_status ez_lower(ez_plan *out, const ez_program *prog, const char *fallback_model, ez_diag *d);

/* ---- contraction order ------------------------------------------------------------- */

#define EZ_LOWER_MAX_FACTORS 16
/* Products of at most this many factors are ordered exactly (subset DP, O(3^n)). */
#define EZ_LOWER_EXACT_FACTORS 10

typedef struct {
    unsigned nsteps; /* n - 1 */
    /* step k contracts slots step[k][0] and step[k][1]; slots 0..n-1 are the factors,
     * slot n + k is the result of step k; the last step yields the product. */
    unsigned step[EZ_LOWER_MAX_FACTORS - 1][2];
    /* index set (bit i = index i) of each step's result */
    uint32_t keep[EZ_LOWER_MAX_FACTORS - 1];
    uint64_t cost; /* sum over steps of the product of the sizes of all indices involved
                      in the step (both operands' indices); saturating */
} ez_contraction_order;

/* The cheapest pairwise order for a product of n factors.
 * In:  factor_idx[0..n-1] — the index set of each factor (bit i = index i, i < nidx);
 *      out_idx — the indices of the product's result; idx_size[0..nidx-1] sizes >= 1;
 *      2 <= n <= EZ_LOWER_MAX_FACTORS, nidx <= 32.
 * Out: *order. A step's result keeps the indices still needed (in out_idx or in a factor
 *      not yet contracted); the rest are summed in that step. Exact minimum for
 *      n <= EZ_LOWER_EXACT_FACTORS (ties: the first split in subset order), greedy
 *      (cheapest next pair) beyond.
 * Returns EZ_OK or EZ_ERR_INVALID (bad n or nidx). */
ez_status ez_lower_contraction_order(ez_contraction_order *order, const uint32_t *factor_idx, unsigned n,
                                     uint32_t out_idx, const uint64_t *idx_size, unsigned nidx);

#endif

/* strategy_util — pieces the deepprove and per-head strategies share
 * (runtime/prove/strategies.h): the fused rescale step, the per-head operand tables of a
 * MIX contraction, operand points assembled per index, and one sumcheck run on either
 * side through the proof context. Each strategy file keeps only its own protocol. */
#ifndef EZ_RUNTIME_PROVE_STRATEGY_UTIL_H
#define EZ_RUNTIME_PROVE_STRATEGY_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/sumcheck.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/heads.h"
#include "runtime/prove/pctx.h"

/* The view of op `op` on c's side (the prover's with its operands' data) and its head
 * structure (ez_heads_classify; h->role EZ_HEAD_NONE unless the op has two operands).
 * EZ_OK or the view's error; ez_opview_clear v in either case. */
ez_status ez_su_heads_view(ez_pctx *c, size_t op, ez_opview *v, ez_heads *h);

/* Step 1 of docs/protocol-einsum.md under a strategy's own labels: given the claim
 * out~(r) = v of op `op` (view v), the prover sends rho = R~(r) (label `label`) when the
 * op rescales; *acc = 2^shift v + rho, the claim on the accumulator. The remainder's
 * claim R~(r) = rho goes to its limbs (ez_rc_value_claim). shift 0, or on_acc (`out` is
 * already on the accumulator: runtime/prove/live.h): *acc = v, no bytes. */
ez_status ez_su_rescale(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc, const char *label, ez_fe2 *acc);

/* Per index id, the coordinates of its block in some point (NULL: not set). */
typedef struct {
    const ez_fe2 *at[EZ_MAX_IDX];
} ez_su_blocks;

/* Point of operand k (view op): per axis, the block of its index from b (every index of
 * the operand must be set). dst has room for the operand's variables; *nv gets them. */
ez_status ez_su_operand_point(const ez_plan_op *op, const ez_plan_tensor *tensors, unsigned k,
                              const ez_su_blocks *b, ez_fe2 *dst, unsigned *nv);

/* The per-head tables of operand k of a MIX op (heads h, view op/tensors, data its
 * values): the operand zero padded per axis, folded over its row (A) or column (B) at the
 * blocks of out_point (a point on the output), laid out as T[i 2^con_vars + x] with i over
 * the padded head cube (head indices in h->head order, MSB first) and x over the padded
 * contracted cube (h->con order). A head index the operand lacks replicates it over that
 * index's real extent (zero on its padding), as DeepProve v1 replicates K/V heads.
 * Allocates *table (caller frees); *reads += the padded operand entries read. */
ez_status ez_su_head_tables(const ez_plan_op *op, const ez_plan_tensor *tensors, const ez_heads *h, unsigned k,
                            const int64_t *data, const ez_fe2 *out_point, ez_fe2 **table, uint64_t *reads);

/* Head i of the padded head cube as per-head-index coordinates (bits of each head index,
 * in h->head order); true iff every coordinate is inside its index's real extent. */
bool ez_su_head_coords(const ez_plan_op *op, const ez_heads *h, uint64_t i, uint64_t *coord);

/* One sumcheck on either side (lib/sumcheck.h): the prover proves with `factors` and
 * writes the proof to c->w, the verifier reads it from c->r and checks it (EZ_ERR_REJECT,
 * reason `what` in c->d). Out: pt (by variable) and ev (the factors' final values). The
 * prover adds one sumcheck and (2^(nvars+1) - 2) table reads to c->work. */
ez_status ez_su_sumcheck(ez_pctx *c, const char *what, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                         const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim, ez_fe2 *pt,
                         ez_fe2 *ev);

/* A sumcheck shape of nterms terms over nfactors factors (up to 8; the caller sets the
 * terms), no eq factor, variables bound in order (lib/sumcheck.h). */
void ez_su_desc(ez_sumcheck_desc *d, unsigned nvars, unsigned nfactors, unsigned nterms);

/* Entries of the padded operand k of op (view): prod_a 2^ceil(log2 d_a). */
uint64_t ez_su_padded_numel(const ez_plan_tensor *t);

#endif

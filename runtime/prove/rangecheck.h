/* rangecheck — range checks by 16-bit limbs and the "atoms" mechanism that ties lookup
 * claims back to advice polynomials and plan tensors (docs/protocol.md §4 "Lookups", the
 * rescale paragraph of "Einsum"; docs/protocol.md §4).
 *
 * A range check of a quantity X (X + offset in [0, 2^bits)) is registered in the advice
 * layout (runtime/advice.h) as:
 *   - one lookup column per 16-bit limb, checked in the range table's region of its width
 *     (16, or w for a top limb of w bits: the table has one region per width, rows
 *     (v, w) — lib/logup.h EZ_TABLE_RANGES), so every limb is exact and X + offset =
 *     sum 2^(16 i) limb_i is in [0, 2^bits) as an integer — hence X is the unique integer
 *     of its width;
 *   - if X is a plan tensor of at most 16 bits: the column IS the tensor (atom = the
 *     tensor, cst = offset): nothing is committed, the lookup claims join the tensor's
 *     claim list and are proven by its producer like any other claim;
 *   - if X is a wider plan tensor: only its high part H = (X + offset) >> 16 is
 *     committed (in limbs, each looked up), and the low 16 bits are a VIRTUAL column
 *     X + offset - 2^16 H (atom X, extra atoms H's limbs): at its lookup points the prover
 *     sends H's limbs and the verifier derives X's value, a claim that ties the tensor
 *     the claim flow proves to the range-checked H;
 *   - a committed value that is not a tensor (a rescale remainder R) is DEFINED as the
 *     combination of its limbs; a claim on it (from the op's reduction) becomes limb
 *     claims with ez_rc_value_claim.
 * All limbs cover the whole padded layout, padding included, so padding entries are
 * range-checked too (this is what forces a remainder's padding to be 0; docs/protocol.md).
 */
#ifndef EZ_RUNTIME_RANGECHECK_H
#define EZ_RUNTIME_RANGECHECK_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/prove/lookup.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/pctx.h"

/* Number of 16-bit limbs of a `bits`-bit quantity (>= 1). */
unsigned ez_rc_nlimbs(unsigned bits);

/* Register a committed value (advice limbs + their lookup columns) in L.
 * In:  v — src, op, tensor, aux, offset, bits (1..64); nlimbs and first_poly are set here.
 * Out: *idx — the value's index in L->values.
 * Returns EZ_OK, EZ_ERR_UNSUPPORTED (sizes beyond limits; d says which) or EZ_ERR_NOMEM. */
ez_status ez_rc_commit_value(ez_advice_layout *L, const ez_plan *p, const ez_adv_value *v, size_t *idx,
                             ez_diag *d);

/* Register a range check of plan tensor `tensor` (produced by op `op`):
 * tensor + offset in [0, 2^bits) on every entry of its padded layout (padding = 0): the
 * tensor as the column (bits <= 16), or its committed high part and a virtual low column. */
ez_status ez_rc_check_tensor(ez_advice_layout *L, const ez_plan *p, unsigned op, unsigned tensor, int64_t offset,
                             unsigned bits, ez_diag *d);

/* The fused rescale of op `op` by 2^shift (shift >= 1): commit its remainder (the op's
 * aux REM array, shaped like the output) in [0, 2^shift) and range-check the output
 * (the quotient) to its signed width: out + 2^(bits-1) in [0, 2^bits) — BOTH, so the
 * floor division is unique (docs/protocol.md). Sets L->op_rem[op]. */
ez_status ez_rc_rescale(ez_advice_layout *L, const ez_plan *p, size_t op, unsigned shift, ez_diag *d);

/* The result of op `op` range-checked to its signed width: out + 2^(bits-1) in
 * [0, 2^bits) (a residual stream's sum, and the quotient of every rescale). Nothing is
 * registered when the result is an output of the model and the op is width-checked
 * (compiler/plan.h ez_plan_op_width_checked): the verifier checks the statement's values
 * (runtime/formats/proofio.h ez_statement_check). */
ez_status ez_rc_check_width(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);

/* The prover's concrete column arrays for the columns of table `table` (in layout
 * order): cols[j] points into advice (borrowed; owned[j] = NULL) or into a new array
 * (owned[j], caller frees). ncols_out gets the count; idx[j] the layout column index.
 * Arrays cols/owned/idx must have L->ncols entries. The columns are built in parallel;
 * on failure owned[0 .. *ncols_out) holds those that were (NULL for the others). */
ez_status ez_rc_columns(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, ez_fe *const *advice,
                        unsigned table, const ez_fe **cols, ez_fe **owned, size_t *idx, size_t *ncols_out,
                        ez_diag *d);

/* Both sides, right after the logup of table `table` returned its claims lc (columns in
 * the order of ez_rc_columns, idx[] their layout indices; a split column has one claim
 * per piece): turn each column claim into its atoms' claims (advice -> c->aclaims,
 * tensor -> c->tclaims; for a virtual column the prover sends the extra atoms' values),
 * and the multiplicity claim into an advice claim (everything sent is absorbed).
 * Returns EZ_OK, EZ_ERR_REJECT (verifier: short or non-canonical bytes), EZ_ERR_NOMEM. */
ez_status ez_rc_resolve(ez_pctx *c, unsigned table, const size_t *idx, size_t ncols, const ez_lookup_claims *lc);

/* Range columns of an op-owned value committed in nl limb polys first_poly .. (e.g. an
 * element-wise remainder): limb l in the range table's region of its width (16, the top
 * limb bits - 16 (nl - 1)), every entry of len checked. Together with the value being
 * DEFINED as sum 2^(16 l) limb_l, it lies in [0, 2^bits). EZ_OK, EZ_ERR_NOMEM. */
ez_status ez_rc_limb_cols(ez_advice_layout *L, unsigned op, size_t first_poly, unsigned nl, unsigned bits,
                          uint64_t len);

/* Prover: entry i of the limbs of a `bits`-bit value v (canonical field element, nl =
 * ez_rc_nlimbs(bits) limbs). Returns whether v < 2^bits; if not (a tampered witness in
 * unchecked mode) the low limbs take v's low bits and the top limb the field quotient,
 * so sum 2^(16 l) limb_l = v still holds in F and only the range lookups fail. */
bool ez_rc_split(ez_fe v, unsigned bits, unsigned nl, ez_fe *const *limbs, uint64_t i);

/* Function tables: the prover's concrete arrays of the tuples of table `table`, in layout
 * order: cols[2 j + w] is column w of the j-th such tuple (advice borrowed, tensors in
 * their padded layout and virtual input columns in owned[2 j + w]; caller frees), idx[j]
 * its layout index. Arrays of 2 L->ntuples (cols, owned) and L->ntuples (idx) entries. */
ez_status ez_rc_tuple_columns(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, ez_fe *const *advice,
                              unsigned table, const ez_fe **cols, ez_fe **owned, size_t *idx, size_t *ntuples);

/* Both sides, after the LogUp of function table `table` returned lc (tuples in the order
 * of ez_rc_tuple_columns, idx[j] their layout indices): the claim on column w of tuple j
 * becomes a claim on its atom w — for a virtual input column, the prover sends its extra
 * atoms' values (message `tuple/atoms`), each becomes a claim and atom 0's follows —, the
 * multiplicity claim a claim on the table's poly. */
ez_status ez_rc_resolve_tuples(ez_pctx *c, unsigned table, const size_t *idx, size_t ntuples,
                               const ez_lookup_claims *lc);

/* Both sides: a claim V~(point) = claim->value on committed value `value` (e.g. a rescale
 * remainder from ez_einsum_prove) becomes claims on its limbs: the prover sends limbs
 * 1..n-1 at the point, limb 0 is derived from V + offset * sel = sum 2^(16 i) limb_i. */
ez_status ez_rc_value_claim(ez_pctx *c, size_t value, const ez_claim *claim);

#endif

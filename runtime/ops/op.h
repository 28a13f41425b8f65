/* op — the runtime's side of an operator: ONE file per op in runtime/ops/ holding its
 * exec, float reference, shape, advice layout, fill, prove and verify (prove and verify
 * side by side, usually one function for both through ez_pctx_msg, so they cannot drift),
 * and ONE row in the table of runtime/ops/ops.c (op kinds proven alike share one
 * definition: max and argmax, the two norms). The compiler's side is one row of
 * compiler/builtins.c. Checklist: docs/architecture.md "Adding an operator".
 *
 * The proving hooks are called through ez_op_layout ... ez_op_relations below, which
 * build the op's shape (what both sides derive from the plan, once, before the hook) and
 * free it after, so no hook builds or clears one itself. Who calls them:
 *   exec        runtime/exec/dispatch.c, once per op in plan order (docs/semantics.md);
 *   floatref    runtime/exec/dispatch.c (`einzk run --compare-float`);
 *   layout      runtime/prove/layout.c: prover, verifier and `einzk info` build the same
 *               advice layout from the plan alone;
 *   fill        the prover, after the framework filled the layout's limb values: the
 *               op-owned polys (ez_advice_add_poly) from the trace;
 *   prove/verify the backward walk (runtime/prove/prove.c, verify.c): reduce the ONE
 *               merged claim on the op's output to claims on operands and advice;
 *   walk_bytes  `einzk info` and the prover's self-check: the exact bytes prove appends;
 *   claims      how many claims prove leaves on operand k (the fan-out census: the merge
 *               of a tensor's claims costs bytes that info reports too);
 *   relations   every integer relation the op's proof checks in the field, with the ranges
 *               of its terms (runtime/prove/margins.h): the compiler and the verifier
 *               refuse a plan where one could wrap modulo p.
 * A NULL layout means "not provable yet": setup and prove refuse the model by op name. */
#ifndef EZ_RUNTIME_OPS_OP_H
#define EZ_RUNTIME_OPS_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/sumcheck.h"
#include "lib/util.h"
#include "runtime/exec/exec_op.h"
#include "runtime/exec/floatref.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/pctx.h"

/* An op's shape: what prover and verifier derive from the plan about one op (the
 * prover's view also holds the operands' values). Each op file's shape struct starts with
 * this as its member `base`; the framework allocates the op's shape_size bytes zeroed,
 * fills this part, then the op's shape_init fills the rest (and refuses a shape the op
 * cannot prove with EZ_ERR_UNSUPPORTED and a message). */
typedef struct ez_op_shape {
    ez_opview v;                   /* the op over its operand slices (prover: with their data) */
    const ez_plan_op *o;           /* the op in the plan */
    const ez_plan_tensor *ti, *to; /* operand 0's slice (v.tensors[0]) and the output */
} ez_op_shape;

/* The hooks of an op kind. s: the op's shape (NULL when shape_size is 0). */
typedef struct ez_op_def {
    ez_status (*exec)(ez_exec_ctx *c);
    ez_status (*floatref)(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d);
    size_t shape_size;                   /* sizeof the op's shape struct; 0: no shape */
    ez_status (*shape_init)(ez_op_shape *s, const ez_plan *p, size_t op, ez_diag *d); /* NULL: the base only */
    ez_status (*layout)(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *s, ez_diag *d);
    ez_status (*fill)(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                      const ez_op_shape *s, bool unchecked, ez_fe **polys, ez_diag *d);
    ez_status (*prove)(ez_pctx *c, size_t op, const ez_op_shape *s, const ez_claim *out);
    ez_status (*verify)(ez_pctx *c, size_t op, const ez_op_shape *s, const ez_claim *out);
    uint64_t (*walk_bytes)(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *s);
    unsigned (*claims)(const ez_plan *p, size_t op, const ez_op_shape *s, unsigned operand);
    void (*relations)(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *s);
} ez_op_def;

/* The definition of an op kind, or NULL for a kind this build does not know. */
const ez_op_def *ez_op_def_of(ez_op_kind kind);

/* The ops (defined in their files): ez_op_maxarg serves MAX and ARGMAX, ez_op_norm
 * LAYERNORM and RMSNORM. */
extern const ez_op_def ez_op_einsum, ez_op_add, ez_op_causal, ez_op_gather, ez_op_softmax, ez_op_maxarg,
    ez_op_norm, ez_op_func, ez_op_relu, ez_op_rsqrt, ez_op_rope;

/* The hooks of op `op`'s kind, each on the op's shape built for the call (the prover's
 * with the operands' values: fill's tr, prove's c->tr) and freed after it. A shape the op
 * refuses makes layout, fill, prove and verify return the op's status (message in d or
 * c->d), walk_bytes 0, claims 1 and relations add nothing (the layout refuses the op).
 * The hook must exist (ez_op_def_of(kind)->layout etc. non-NULL); relations and fill may
 * be NULL (nothing to do). */
ez_status ez_op_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
ez_status ez_op_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op, bool unchecked,
                     ez_fe **polys, ez_diag *d);
ez_status ez_op_prove(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_verify(ez_pctx *c, size_t op, const ez_claim *out);
uint64_t ez_op_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op);
unsigned ez_op_claims(const ez_plan *p, size_t op, unsigned operand);
void ez_op_relations(ez_margins *m, const ez_plan *p, size_t op);

/* Op `op`'s shape (tr non-NULL: the prover's, with the operands' values) into *s, NULL for
 * a kind without one; free it with ez_op_shape_free (also after a failure). For an op's
 * prover that takes more than the prove hook (maxarg's forged prover, a test's). */
ez_status ez_op_shape_new(ez_op_shape **s, const ez_plan *p, size_t op, const ez_trace *tr, ez_diag *d);
void ez_op_shape_free(ez_op_shape *s);

/* Shared by op files: one claim on every operand (the common case of `claims`). */
unsigned ez_op_one_claim(const ez_plan *p, size_t op, const ez_op_shape *s, unsigned operand);

/* Shared by op files: the global index of op `op`'s first op-owned poly (an op's polys are
 * contiguous, in its local order), or SIZE_MAX when it owns none. */
size_t ez_op_first_poly(const ez_advice_layout *L, size_t op);

/* Shared by op files' fills and provers: *first = ez_op_first_poly(L, op), and EZ_OK when
 * the op owns none (SIZE_MAX) or L holds all n of its polys from there; EZ_ERR_INTERNAL
 * when L ends before the n-th. */
ez_status ez_op_polys_at(const ez_advice_layout *L, size_t op, unsigned n, size_t *first);

/* Shared by op provers with committed polys: the start of `reduce` on either side.
 * *first = the op's first poly (ez_op_polys_at); EZ_ERR_INVALID (nothing absorbed) when
 * c's layout does not hold its npolys polys or the output claim out is not over nvars
 * variables; else out absorbed under label ("<op>/out") and EZ_OK. */
ez_status ez_op_reduce_begin(ez_pctx *c, size_t op, unsigned npolys, unsigned nvars, const ez_claim *out,
                             const char *label, size_t *first);

/* Shared by op files' layouts: append n polys of `len` entries owned by op `op` (an op's
 * polys are contiguous: EZ_ERR_INTERNAL if another owner's poly came between). */
ez_status ez_op_add_polys(ez_advice_layout *L, size_t op, unsigned n, uint64_t len);

/* Shared by op files of one operand: where each output axis stands among the operand's.
 * ax: the operand's axes (the view's in_axes[0]), ti its slice; o's output axes are those
 * of to. An input axis in the bit set `skip` (max's reduced axis) is no output axis.
 * Out: pos[b], the input axis (< ti->rank) of output axis b. Returns, for the first output
 * axis that fails: EZ_OP_AXES_OTHER (not an input axis outside skip, or one already
 * taken), EZ_OP_AXES_EXTENT (its extent is not its input axis'); else EZ_OP_AXES_OK. */
typedef enum { EZ_OP_AXES_OK, EZ_OP_AXES_OTHER, EZ_OP_AXES_EXTENT } ez_op_axes;
ez_op_axes ez_op_axes_pos(unsigned *pos, const ez_plan_op *o, const unsigned *ax, const ez_plan_tensor *ti,
                          const ez_plan_tensor *to, unsigned skip);

/* Shared by op files: whether no index stands twice among ax[0..rank) (an operand's
 * axes), and the position among them of index x (rank when it is none). */
bool ez_op_axes_distinct(const unsigned *ax, unsigned rank);
unsigned ez_op_axis_pos(const unsigned *ax, unsigned rank, unsigned x);

/* Shared by op files: off[a], the first variable of axis a's block in a point of t's cube
 * (the claim convention of runtime/prove/claim.h: axis order, ceil(log2 dims[a])
 * variables each). Returns the cube's variables. */
unsigned ez_op_axis_offsets(unsigned *off, const ez_plan_tensor *t);

/* Shared by op files with a fused rescale: rho = R~(pt), the MLE at output point pt of the
 * remainders op `op`'s executor kept (the trace's EZ_AUX_REM; to: the output), evaluated
 * by the prover and exchanged under label by both sides. EZ_ERR_INVALID (and a message in
 * c->d) when the prover's trace has no remainders. */
ez_status ez_op_rem_msg(ez_pctx *c, size_t op, const ez_plan_tensor *to, const ez_fe2 *pt, const char *label,
                        ez_fe2 *rho);

/* Shared by op files: *value, the claim value before a rescale by 2^sh of the claim `out`
 * on op `op`'s output (to): sh > 0, 2^sh out->value + rho with rho = ez_op_rem_msg(...,
 * label); sh <= 0, out->value / 2^-sh and rho = 0, nothing exchanged. */
ez_status ez_op_unrescale(ez_pctx *c, size_t op, const ez_plan_tensor *to, const ez_claim *out, int sh,
                          const char *label, ez_fe2 *value, ez_fe2 *rho);

/* Shared by op files with a fused rescale: the claim "op `op`'s committed remainder at
 * out's point = rho" (ez_rc_value_claim on its range-checked value, advice op_rem). */
ez_status ez_op_rem_claim(ez_pctx *c, size_t op, const ez_claim *out, ez_fe2 rho);

/* Shared by op files: "op 'label' (what): why" into d; EZ_ERR_UNSUPPORTED. */
ez_status ez_op_unsupported(ez_diag *d, const ez_plan_op *o, const char *what, const char *why);

/* Shared by op files: a verifier's rejection, `why` into c's diagnostics; EZ_ERR_REJECT. */
ez_status ez_op_reject(ez_pctx *c, const char *why);

/* Shared by op files' verifiers, at the end of a sumcheck: its final evaluations ev[0..n)
 * must equal want, what the verifier derived from the claimed committed values. EZ_OK, or
 * EZ_ERR_REJECT with the printf-style message in c's diagnostics. */
ez_status ez_op_final_evals(ez_pctx *c, const ez_fe2 *want, const ez_fe2 *ev, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Shared by op files: sum_l 2^(16 l) limbs[l] (a limbed value from its limbs' values). */
ez_fe2 ez_op_limbs_combine(const ez_fe2 *limbs, unsigned nl);

/* Shared by op files' provers: entry i of a limbed value from its limb polys,
 * sum_l 2^(16 l) limbs[l][i] (the base-field twin of ez_op_limbs_combine). */
static inline ez_fe ez_op_limbs_at(ez_fe *const *limbs, unsigned nl, uint64_t i)
{
    ez_fe v = 0;
    for (unsigned l = nl; l-- > 0;)
        v = ez_fe_add(ez_fe_mul(v, 1u << EZ_ADV_LIMB_BITS), limbs[l][i]);
    return v;
}

/* Shared by op files: one atom message at pt. The prover evaluates op-owned polys
 * first + qs[j] (j < nq) at pt into vals; both sides exchange vals under label and add the
 * claim "poly first + qs[j] at pt = vals[j]" each. pt has the polys' variable count. */
ez_status ez_op_atoms_msg(ez_pctx *c, size_t first, const char *label, const unsigned *qs, size_t nq,
                          const ez_fe2 *pt, ez_fe2 *vals);

/* Shared by op files: one sumcheck on either side. The prover proves `claim` and writes
 * the proof; the verifier reads and checks it. Out: point (nvars coordinates), evals
 * (nfactors). Verifier failures become EZ_ERR_REJECT. eqp is ignored when the desc has no
 * eq factor; f is read by the prover only. */
ez_status ez_op_sumcheck(ez_pctx *c, const ez_sumcheck_desc *desc, const ez_fe2 *coeffs, const ez_fe2 *eqp,
                         const ez_sumcheck_factor *f, ez_fe2 claim, ez_fe2 *point, ez_fe2 *evals);

/* Bytes of n extension-field elements in a proof. */
#define EZ_OP_FE2_BYTES 16u

#endif

/* EINSUM — out = floor(mul * sum_{summed} prod_k in_k / 2^shift), one or two operands
 * (DESIGN.md §3 "Einsum: one contraction sumcheck with an EqSchedule").
 *
 * exec/float  the contraction engine (runtime/exec/contract.h);
 * layout      a rescale (shift > 0) commits the remainder R in [0, 2^shift) and
 *             range-checks the quotient to its width — BOTH, so the floor division has
 *             one solution (runtime/prove/rangecheck.h ez_rc_rescale);
 * prove       the claim out~(r) = v becomes acc~(r) = 2^shift v + R~(r), then ONE
 *             sumcheck over the batch + contracted variables with an eq factor on the
 *             batch ones, leaving one claim per operand (runtime/prove/contraction.h;
 *             protocol and soundness in docs/protocol-einsum.md). */
#include "config.h"

#include "runtime/exec/contract.h"
#include "runtime/ops/op.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/rangecheck.h"

static ez_status einsum_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    const ez_plan_op *o = &p->ops[op];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, op, NULL);
    if (st != EZ_OK)
        return st;
    /* the kernel's own preconditions, checked on the view (no data) */
    ez_status sz = EZ_OK;
    (void)ez_einsum_proof_size(&v.op, v.tensors, &sz);
    ez_opview_clear(&v);
    if (sz != EZ_OK) {
        ez_diag_set(d, "op '%s' (einsum): this contraction's shape is not provable", o->label);
        return EZ_ERR_UNSUPPORTED;
    }
    return o->shift > 0 ? ez_rc_rescale(L, p, op, o->shift, d) : EZ_OK;
}

/* One function for both sides: the kernel prover or verifier, then the operand claims
 * (lifted from layer slices) and the remainder's claim on its limbs. */
static ez_status einsum_reduce(ez_pctx *c, size_t op, const ez_claim *out)
{
    const ez_plan_op *o = &c->plan->ops[op];
    ez_claim inc[2] = {{0}}, remc = {0};
    ez_opview v;
    ez_status st = ez_opview_init(&v, c->plan, op, c->prover ? c->tr : NULL);
    if (st != EZ_OK)
        return st;
    if (c->prover) {
        const int64_t *rem = NULL;
        if (o->shift > 0 && (rem = ez_trace_aux(c->tr, op, EZ_AUX_REM, NULL)) == NULL) {
            ez_diag_set(c->d, "op '%s': the trace has no remainder", o->label);
            st = EZ_ERR_INVALID;
            goto out;
        }
        st = ez_einsum_prove(c->t, &v.op, v.tensors, v.data, rem, out, c->w, inc, o->shift > 0 ? &remc : NULL);
    } else {
        st = ez_einsum_verify(c->t, &v.op, v.tensors, out, c->r, inc, o->shift > 0 ? &remc : NULL);
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the contraction sumcheck failed");
    }
    for (unsigned k = 0; k < o->nin && st == EZ_OK; k++)
        st = ez_opview_claim(c, &v, op, k, &inc[k]);
    if (st == EZ_OK && o->shift > 0)
        st = ez_rc_value_claim(c, (size_t)c->adv->op_rem[op], &remc);
out:
    ez_claim_clear(&inc[0]);
    ez_claim_clear(&inc[1]);
    ez_claim_clear(&remc);
    ez_opview_clear(&v);
    return st;
}

static uint64_t einsum_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op)
{
    ez_opview v;
    (void)L;
    if (ez_opview_init(&v, p, op, NULL) != EZ_OK)
        return 0;
    uint64_t b = ez_einsum_proof_size(&v.op, v.tensors, NULL);
    ez_opview_clear(&v);
    /* the remainder's limbs beyond the first are sent at the claim point */
    if (p->ops[op].shift > 0)
        b += (uint64_t)(ez_rc_nlimbs(p->ops[op].shift) - 1) * EZ_OP_FE2_BYTES;
    return b;
}

/* The fused rescale: acc = 2^shift q + r (the accumulator within its bound, q in the
 * output's width, r in [0, 2^shift)). */
static void einsum_relations(ez_margins *m, const ez_plan *p, size_t op)
{
    if (p->ops[op].shift > 0)
        ez_rel_rescale(m, p, op, p->ops[op].shift);
}

const ez_op_def ez_op_einsum = {
    .kind = EZ_OP_EINSUM,
    .exec = ez_exec_contract,
    .floatref = ez_floatref_contract,
    .layout = einsum_layout,
    .prove = einsum_reduce,
    .verify = einsum_reduce,
    .walk_bytes = einsum_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = einsum_relations,
};

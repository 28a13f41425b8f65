/* strategy_einsum — the einsum strategy (runtime/prove/strategies.h): the claim on the
 * output becomes acc~(r) = 2^shift v + R~(r), then ONE sumcheck over the batch +
 * contracted variables with an eq factor on the batch ones leaves one claim per operand
 * (runtime/prove/contraction.h; protocol and soundness in docs/protocol-einsum.md). The
 * prover reads only real entries: the folds run over real extents and the sumcheck
 * skips padded regions in every round (lib/sumcheck_box.h). */
#include "config.h"

#include "runtime/prove/contraction.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/prove/strategies.h"

ez_status ez_strategy_plain_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool dense, bool on_acc)
{
    const ez_plan_op *o = &c->plan->ops[op];
    ez_claim inc[2] = {{0}}, remc = {0};
    ez_opview v;
    ez_status st = ez_opview_init(&v, c->plan, op, c->prover ? c->tr : NULL);
    if (st != EZ_OK)
        return st;
    if (on_acc)
        v.op.shift = 0; /* the claim is on the accumulator */
    const unsigned shift = v.op.shift;
    if (c->prover) {
        const int64_t *rem = NULL;
        if (shift > 0 && (rem = ez_trace_aux(c->tr, op, EZ_AUX_REM, NULL)) == NULL) {
            ez_diag_set(c->d, "op '%s': the trace has no remainder", o->label);
            st = EZ_ERR_INVALID;
            goto out;
        }
        ez_einsum_opts eo = {.dense = dense, .work = c->work};
        st = ez_einsum_prove_ex(c->t, &v.op, v.tensors, v.data, rem, out, &eo, c->w, inc, shift > 0 ? &remc : NULL);
    } else {
        st = ez_einsum_verify(c->t, &v.op, v.tensors, out, c->r, inc, shift > 0 ? &remc : NULL);
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the contraction sumcheck failed");
    }
    for (unsigned k = 0; k < o->nin && st == EZ_OK; k++)
        st = ez_opview_claim(c, &v, op, k, &inc[k]);
    if (st == EZ_OK && shift > 0)
        st = ez_rc_value_claim(c, (size_t)c->adv->op_rem[op], &remc);
out:
    ez_claim_clear(&inc[0]);
    ez_claim_clear(&inc[1]);
    ez_claim_clear(&remc);
    ez_opview_clear(&v);
    return st;
}

ez_status ez_strategy_einsum_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc)
{
    return ez_strategy_plain_reduce(c, op, out, false, on_acc);
}

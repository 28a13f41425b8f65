/* prove_add — the ADD reduction (runtime/prove.h per-op interface; docs/protocol.md §5.2).
 *
 *     out = floor(sum_k coef_k in_k[proj_k] / 2^shift),  R = acc - 2^shift out in [0, 2^shift)
 *
 * Given out~(r) = v the prover sends rho = R~(r) (when shift > 0) and e_k = in_k~(r_k) for
 * every term, r_k = r restricted to term k's indices (in its axis order). Since acc is
 * the sum of the terms, each broadcast over the output indices it lacks and zero on the
 * output's padding,
 *     2^shift v + rho = sum_k coef_k beta_k e_k,   beta_k = prod_{i not in term k} sum_{j < size_i} eq(r_i, j)
 * is an identity of the true values; the verifier checks it and hands out the claims
 * in_k~(r_k) = e_k and R~(r) = rho. No randomness is needed: every sent value becomes a
 * claim that is checked where its tensor's claims end, and with a false v at least one of
 * them is false. One implementation serves both sides (ez_pctx_msg). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/rangecheck.h"

ez_status ez_op_add_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    const ez_plan_op *o = &p->ops[op];
    const ez_plan_tensor *to = &p->tensors[o->out];
    for (unsigned k = 0; k < o->nin; k++) {
        const ez_plan_tensor *t = &p->tensors[o->in[k]];
        for (unsigned a = 0; a < t->rank; a++) {
            if ((o->in_fixed[k] >> a) & 1)
                continue;
            bool in_out = false;
            for (unsigned b = 0; b < to->rank; b++)
                in_out |= o->out_axes[b] == o->in_axes[k][a];
            if (!in_out) {
                ez_diag_set(d, "op '%s' (add): term %u sums over index '%s', which is not provable as an add",
                            o->label, k, o->idx_name[o->in_axes[k][a]]);
                return EZ_ERR_UNSUPPORTED;
            }
        }
        if (o->coef[k] == 0) {
            ez_diag_set(d, "op '%s' (add): a zero coefficient", o->label);
            return EZ_ERR_UNSUPPORTED;
        }
    }
    return o->shift > 0 ? ez_rc_rescale(L, p, op, o->shift, d) : EZ_OK;
}

static ez_status add_reduce(ez_pctx *c, size_t i, const ez_claim *out)
{
    const ez_plan *p = c->plan;
    const ez_plan_op *o = &p->ops[i];
    const ez_plan_tensor *to = &p->tensors[o->out];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, i, c->prover ? c->tr : NULL);
    if (st != EZ_OK)
        return st;
    ez_claim kc = {0};
    /* the output point's block per index */
    unsigned off[EZ_MAX_IDX] = {0}, nv[EZ_MAX_IDX] = {0}, o_nv = 0;
    bool in_out[EZ_MAX_IDX] = {false};
    for (unsigned a = 0; a < to->rank; a++) {
        unsigned x = o->out_axes[a];
        in_out[x] = true;
        off[x] = o_nv;
        nv[x] = ez_log2_ceil(o->idx_size[x]);
        o_nv += nv[x];
    }
    if (o_nv != out->nvars) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    ez_claim_absorb(c->t, "add/out", out);
    ez_fe2 rho = ez_fe2_zero();
    if (o->shift > 0) {
        if (c->prover) {
            const int64_t *rem = ez_trace_aux(c->tr, i, EZ_AUX_REM, NULL);
            if (rem == NULL) {
                st = EZ_ERR_INVALID;
                goto out;
            }
            if ((st = ez_advice_tensor_eval(&rho, rem, to, out->point)) != EZ_OK)
                goto out;
        }
        if ((st = ez_pctx_msg(c, "add/rem", &rho, 1)) != EZ_OK)
            goto out;
    }
    ez_fe2 e[EZ_MAX_OPERANDS], beta[EZ_MAX_OPERANDS];
    ez_fe2 pts[EZ_MAX_OPERANDS][EZ_PROVE_MAX_VARS];
    unsigned pnv[EZ_MAX_OPERANDS];
    for (unsigned k = 0; k < o->nin; k++) {
        const ez_plan_tensor *t = &v.tensors[k];
        bool has[EZ_MAX_IDX] = {false};
        pnv[k] = 0;
        for (unsigned a = 0; a < t->rank; a++) {
            unsigned x = v.op.in_axes[k][a];
            has[x] = true;
            memcpy(pts[k] + pnv[k], out->point + off[x], nv[x] * sizeof(ez_fe2));
            pnv[k] += nv[x];
        }
        beta[k] = ez_fe2_one();
        for (unsigned x = 0; x < o->nidx; x++)
            if (in_out[x] && !has[x])
                beta[k] = ez_fe2_mul(beta[k], ez_mle_prefix(out->point + off[x], nv[x], o->idx_size[x]));
        if (c->prover && (st = ez_advice_tensor_eval(&e[k], v.data[k], t, pts[k])) != EZ_OK)
            goto out;
    }
    if ((st = ez_pctx_msg(c, "add/terms", e, o->nin)) != EZ_OK)
        goto out;
    ez_fe2 lhs = ez_fe2_add(ez_fe2_mul_fe(out->value, ez_fe_pow(2, o->shift)), rho), rhs = ez_fe2_zero();
    for (unsigned k = 0; k < o->nin; k++)
        rhs = ez_fe2_add(rhs, ez_fe2_mul_fe(ez_fe2_mul(beta[k], e[k]), ez_fe_from_i64(o->coef[k])));
    if (!c->prover && !ez_fe2_eq(lhs, rhs)) {
        ez_diag_set(c->d, "the sum of the terms does not match the output claim");
        st = EZ_ERR_REJECT;
        goto out;
    }
    for (unsigned k = 0; k < o->nin; k++) {
        if ((st = ez_claim_set(&kc, pts[k], pnv[k], e[k])) != EZ_OK)
            goto out;
        st = ez_opview_claim(c, &v, i, k, &kc);
        ez_claim_clear(&kc);
        if (st != EZ_OK)
            goto out;
    }
    if (o->shift > 0) {
        if ((st = ez_claim_set(&kc, out->point, out->nvars, rho)) != EZ_OK)
            goto out;
        st = ez_rc_value_claim(c, (size_t)c->adv->op_rem[i], &kc);
    }
out:
    ez_claim_clear(&kc);
    ez_opview_clear(&v);
    return st;
}

ez_status ez_op_add_prove(ez_pctx *c, size_t op, const ez_claim *out)
{
    return add_reduce(c, op, out);
}

ez_status ez_op_add_verify(ez_pctx *c, size_t op, const ez_claim *out)
{
    return add_reduce(c, op, out);
}

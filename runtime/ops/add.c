/* ADD — out = floor(sum_k coef_k in_k[proj_k] / 2^shift): `+`/`-` with broadcasting by
 * index name, coefficients +-2^d aligning scales exactly (docs/semantics.md "ADD").
 *
 * layout  with a shift, the remainder R = acc - 2^shift out in [0, 2^shift) and the
 *         quotient in its width (ez_rc_rescale); without one but with a bound beyond the
 *         width (a residual stream, op->checked), the result range-checked to its width.
 * prove   (docs/protocol.md §5.2) given out~(r) = v the prover sends rho = R~(r) (when
 *         shift > 0) and e_k = in_k~(r_k) for every term, r_k = r restricted to term k's
 *         indices (in its axis order). Since acc is the sum of the terms, each broadcast
 *         over the output indices it lacks and zero on the output's padding,
 *             2^shift v + rho = sum_k coef_k beta_k e_k,
 *             beta_k = prod_{i not in term k} sum_{j < size_i} eq(r_i, j)
 *         is an identity of the true values; the verifier checks it and hands out the
 *         claims in_k~(r_k) = e_k and R~(r) = rho. No randomness is needed: every sent
 *         value becomes a claim checked where its tensor's claims end, and with a false v
 *         at least one of them is false. One function serves both sides. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/ops/op.h"
#include "runtime/prove/rangecheck.h"

typedef unsigned __int128 ez_u128;

static ez_status add_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off[EZ_MAX_OPERANDS] = {NULL};
    const int64_t *src[EZ_MAX_OPERANDS];
    int64_t *out = c->tr->t[op->out], *rem = NULL;
    ez_status st = EZ_OK;
    ez_u128 worst = 0;
    for (unsigned k = 0; k < op->nin; k++) {
        st = ez_exec_elem_offsets(&off[k], p, op, k, c->d);
        if (st != EZ_OK)
            goto out;
        src[k] = c->tr->t[op->in[k]];
        int64_t cf = op->coef[k];
        uint64_t acf = cf < 0 ? -(uint64_t)cf : (uint64_t)cf;
        worst += (ez_u128)acf * ez_exec_maxabs(src[k], ez_plan_tensor_numel(&p->tensors[op->in[k]]));
    }
    if (worst >= ((ez_u128)1 << 62)) {
        ez_diag_set(c->d, "sum '%s' (line %u) could leave the safe range 2^62", op->label, op->line);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    if (op->shift > 0 && (rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const unsigned nin = op->nin, shift = op->shift;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++) {
        int64_t acc = 0, r = 0;
        for (unsigned k = 0; k < nin; k++)
            acc += op->coef[k] * src[k][off[k][i]];
        out[i] = shift ? ez_exec_floor_shift(acc, shift, &r) : acc;
        if (rem)
            rem[i] = r;
    }
out:
    for (unsigned k = 0; k < op->nin; k++)
        free(off[k]);
    return st;
}

static ez_status add_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    int64_t *off[EZ_MAX_OPERANDS] = {NULL};
    double cf[EZ_MAX_OPERANDS];
    ez_status st = EZ_OK;
    for (unsigned k = 0; k < op->nin; k++) {
        if ((st = ez_exec_elem_offsets(&off[k], p, op, k, d)) != EZ_OK)
            goto out;
        cf[k] = ldexp((double)op->coef[k], (int)p->tensors[op->in[k]].scale - (int)op->shift - (int)to->scale);
    }
    for (uint64_t e = 0; e < n; e++) {
        double s = 0;
        for (unsigned k = 0; k < op->nin; k++)
            s += cf[k] * ft->t[op->in[k]][off[k][e]];
        ft->t[op->out][e] = s;
    }
out:
    for (unsigned k = 0; k < op->nin; k++)
        free(off[k]);
    return st;
}

static ez_status add_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    (void)sh;
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
    if (o->shift > 0)
        return ez_rc_rescale(L, p, op, o->shift, d);
    /* a sum whose bound exceeds its width (a residual stream): range-checked to the
     * width, so its bound resets there (compiler/builtins.c bound_add) */
    if (o->checked)
        return ez_rc_check_width(L, p, op, d);
    return EZ_OK;
}

static ez_status add_reduce(ez_pctx *c, size_t i, const ez_op_shape *sh, const ez_claim *out)
{
    const ez_plan_op *o = sh->o;
    const ez_plan_tensor *to = sh->to;
    const ez_opview *v = &sh->v;
    ez_status st = EZ_OK;
    ez_claim kc = {0};
    ez_point_blocks ob; /* the output point's block per index */
    ez_plan_point_blocks(&ob, o, o->out_axes, to->rank);
    if (ob.nvars != out->nvars) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    ez_claim_absorb(c->t, "add/out", out);
    ez_fe2 rho = ez_fe2_zero();
    if (o->shift > 0 && (st = ez_op_rem_msg(c, i, to, out->point, "add/rem", &rho)) != EZ_OK)
        goto out;
    ez_fe2 e[EZ_MAX_OPERANDS], beta[EZ_MAX_OPERANDS];
    ez_fe2 pts[EZ_MAX_OPERANDS][EZ_PROVE_MAX_VARS];
    unsigned pnv[EZ_MAX_OPERANDS];
    for (unsigned k = 0; k < o->nin; k++) {
        const ez_plan_tensor *t = &v->tensors[k];
        bool has[EZ_MAX_IDX] = {false};
        pnv[k] = 0;
        for (unsigned a = 0; a < t->rank; a++) {
            unsigned x = v->op.in_axes[k][a];
            has[x] = true;
            memcpy(pts[k] + pnv[k], out->point + ob.off[x], ob.nv[x] * sizeof(ez_fe2));
            pnv[k] += ob.nv[x];
        }
        beta[k] = ez_fe2_one();
        for (unsigned x = 0; x < o->nidx; x++)
            if (ob.has[x] && !has[x])
                beta[k] = ez_fe2_mul(beta[k], ez_mle_prefix(out->point + ob.off[x], ob.nv[x], o->idx_size[x]));
        if (c->prover && (st = ez_advice_tensor_eval(&e[k], v->data[k], t, pts[k])) != EZ_OK)
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
        st = ez_opview_claim(c, v, i, k, &kc);
        ez_claim_clear(&kc);
        if (st != EZ_OK)
            goto out;
    }
    if (o->shift > 0)
        st = ez_op_rem_claim(c, i, out, rho);
out:
    ez_claim_clear(&kc);
    return st;
}

static uint64_t add_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    const ez_plan_op *o = &p->ops[op];
    (void)L;
    /* rho (and the remainder's limbs 1.. at the point), then one value per term */
    uint64_t n = o->nin;
    if (o->shift > 0)
        n += ez_rc_nlimbs(o->shift);
    return n * EZ_OP_FE2_BYTES;
}

/* The rescale as for EINSUM; a checked sum without a shift is the framework's range check
 * of its result (runtime/prove/margins.c). */
static void add_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    if (p->ops[op].shift > 0)
        ez_rel_rescale(m, p, op, p->ops[op].shift);
}

const ez_op_def ez_op_add = {
    .exec = add_exec,
    .floatref = add_floatref,
    .shape_size = sizeof(ez_op_shape),
    .layout = add_layout,
    .prove = add_reduce,
    .verify = add_reduce,
    .walk_bytes = add_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = add_relations,
};

/* prove_causal — the CAUSAL reduction and the causal mask's structured MLE
 * (runtime/prove.h; docs/protocol.md §5.3).
 *
 *     out[.., i, .., j, ..] = move_scale(in[...]) if j <= i else 0
 *
 * With M(x) = [j(x) <= i(x)] (public) and acc = M * in elementwise over the input's padded
 * cube (zero on padding because in is), the output is acc (same scale), acc * 2^u (the
 * scale grows by u) or floor(acc / 2^k) with remainder R (shrinks by k; R is committed and
 * range-checked like a rescale, and so is the output). Given out~(r) = v:
 *     acc~(r) = sum_x eq(r', x) M(x) in(x)
 * (r' = r's blocks in the input's axis order) is ONE sumcheck over the input's variables,
 * eq factor on all of them, factors M and in, degree 3 (Thaler §4.6 with an eq factor).
 * At its end the verifier evaluates M~ at the final point itself in O(log S)
 * (ez_mle_causal) and rejects unless it equals the prover's M evaluation; the input's
 * evaluation becomes the claim on `in`. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/rangecheck.h"

ez_fe2 ez_mle_causal(const ez_fe2 *ri, unsigned ni, const ez_fe2 *rj, unsigned nj)
{
    /* [j > i] = sum_b (prod_{c < b} eq(i_c, j_c)) j_b (1 - i_b) over aligned bits, MSB
     * first; every variable occurs once per term, so this is the multilinear extension. */
    unsigned m = ni > nj ? ni : nj;
    ez_fe2 one = ez_fe2_one(), e = one, gt = ez_fe2_zero();
    for (unsigned b = 0; b < m; b++) {
        ez_fe2 ib = b >= m - ni ? ri[b - (m - ni)] : ez_fe2_zero();
        ez_fe2 jb = b >= m - nj ? rj[b - (m - nj)] : ez_fe2_zero();
        gt = ez_fe2_add(gt, ez_fe2_mul(e, ez_fe2_mul(jb, ez_fe2_sub(one, ib))));
        ez_fe2 eqb = ez_fe2_add(ez_fe2_mul(ib, jb), ez_fe2_mul(ez_fe2_sub(one, ib), ez_fe2_sub(one, jb)));
        e = ez_fe2_mul(e, eqb);
    }
    return ez_fe2_sub(one, gt);
}

ez_status ez_op_causal_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    const ez_plan_op *o = &p->ops[op];
    if (o->nin != 1 || o->mask_row == o->mask_col || o->mask_row >= o->nidx || o->mask_col >= o->nidx ||
        (o->out_scale > o->in_scale && o->out_scale - o->in_scale > 62) ||
        (o->in_scale > o->out_scale && o->in_scale - o->out_scale > 62)) {
        ez_diag_set(d, "op '%s' (causal): this mask is not provable", o->label);
        return EZ_ERR_UNSUPPORTED;
    }
    return o->in_scale > o->out_scale ? ez_rc_rescale(L, p, op, o->in_scale - o->out_scale, d) : EZ_OK;
}

/* Shape of the sumcheck: the input's (slice) axes in order. */
typedef struct {
    unsigned n;                 /* variables */
    unsigned off_i, ni, off_j, nj;
    ez_fe2 eqp[EZ_PROVE_MAX_VARS]; /* r in the input's axis order */
} causal_shape;

static ez_status causal_shape_build(causal_shape *s, const ez_opview *v, const ez_plan_tensor *to,
                                    const ez_plan_op *o, const ez_claim *out)
{
    unsigned off[EZ_MAX_IDX] = {0}, nv[EZ_MAX_IDX] = {0}, o_nv = 0;
    bool in_out[EZ_MAX_IDX] = {false};
    for (unsigned a = 0; a < to->rank; a++) {
        unsigned x = o->out_axes[a];
        in_out[x] = true;
        off[x] = o_nv;
        nv[x] = ez_log2_ceil(o->idx_size[x]);
        o_nv += nv[x];
    }
    if (o_nv != out->nvars)
        return EZ_ERR_INVALID;
    const ez_plan_tensor *ti = &v->tensors[0];
    s->n = 0;
    bool seen_i = false, seen_j = false;
    for (unsigned a = 0; a < ti->rank; a++) {
        unsigned x = v->op.in_axes[0][a];
        if (!in_out[x])
            return EZ_ERR_INVALID;
        if (x == o->mask_row)
            s->off_i = s->n, s->ni = nv[x], seen_i = true;
        if (x == o->mask_col)
            s->off_j = s->n, s->nj = nv[x], seen_j = true;
        memcpy(s->eqp + s->n, out->point + off[x], nv[x] * sizeof(ez_fe2));
        s->n += nv[x];
    }
    return s->n == o_nv && seen_i && seen_j ? EZ_OK : EZ_ERR_INVALID;
}

static void causal_desc(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 2);
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* The sumcheck's claim acc~(r) from v (and rho for a shrinking scale). */
static ez_fe2 causal_claim(const ez_plan_op *o, ez_fe2 v, ez_fe2 rho)
{
    if (o->in_scale > o->out_scale)
        return ez_fe2_add(ez_fe2_mul_fe(v, ez_fe_pow(2, o->in_scale - o->out_scale)), rho);
    if (o->out_scale > o->in_scale)
        return ez_fe2_mul_fe(v, ez_fe_inv(ez_fe_pow(2, o->out_scale - o->in_scale)));
    return v;
}

static ez_status causal_reduce(ez_pctx *c, size_t i, const ez_claim *out)
{
    const ez_plan *p = c->plan;
    const ez_plan_op *o = &p->ops[i];
    const ez_plan_tensor *to = &p->tensors[o->out];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, i, c->prover ? c->tr : NULL);
    if (st != EZ_OK)
        return st;
    causal_shape s;
    ez_fe *mask = NULL, *in = NULL;
    ez_sumcheck_proof proof;
    ez_claim kc = {0};
    memset(&proof, 0, sizeof proof);
    if ((st = causal_shape_build(&s, &v, to, o, out)) != EZ_OK)
        goto out;
    ez_claim_absorb(c->t, "causal/out", out);
    bool shrink = o->in_scale > o->out_scale;
    ez_fe2 rho = ez_fe2_zero();
    if (shrink) {
        if (c->prover) {
            const int64_t *rem = ez_trace_aux(c->tr, i, EZ_AUX_REM, NULL);
            if (rem == NULL) {
                st = EZ_ERR_INVALID;
                goto out;
            }
            if ((st = ez_advice_tensor_eval(&rho, rem, to, out->point)) != EZ_OK)
                goto out;
        }
        if ((st = ez_pctx_msg(c, "causal/rem", &rho, 1)) != EZ_OK)
            goto out;
    }
    ez_fe2 claim = causal_claim(o, out->value, rho);
    ez_sumcheck_desc desc;
    causal_desc(&desc, s.n);
    ez_fe2 point[EZ_PROVE_MAX_VARS], evals[2];
    if (c->prover) {
        size_t N = (size_t)1 << s.n;
        mask = ez_alloc_aligned(N, sizeof *mask);
        in = ez_alloc_aligned(N, sizeof *in);
        if (mask == NULL || in == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        uint64_t padlen = ez_advice_padlen(&v.tensors[0]);
        ez_advice_pad_i64(in, v.data[0], &v.tensors[0], 0);
        memset(in + padlen, 0, (N - padlen) * sizeof *in);
        unsigned shi = s.n - s.off_i - s.ni, shj = s.n - s.off_j - s.nj;
        uint64_t mi = (UINT64_C(1) << s.ni) - 1, mj = (UINT64_C(1) << s.nj) - 1;
#pragma omp parallel for schedule(static) if (N > 65536)
        for (size_t x = 0; x < N; x++)
            mask[x] = ((x >> shj) & mj) <= ((x >> shi) & mi);
        ez_sumcheck_factor f[2] = {{mask, NULL}, {in, NULL}};
        if ((st = ez_sumcheck_prove(c->t, &desc, NULL, s.n ? s.eqp : NULL, f, claim, &proof, point, evals)) !=
            EZ_OK)
            goto out;
        ez_sumcheck_proof_write(c->w, &proof);
    } else {
        st = ez_sumcheck_proof_read(c->r, &desc, &proof);
        if (st == EZ_OK)
            st = ez_sumcheck_verify(c->t, &desc, NULL, s.n ? s.eqp : NULL, claim, &proof, point, evals);
        if (st == EZ_OK && !ez_fe2_eq(evals[0], ez_mle_causal(point + s.off_i, s.ni, point + s.off_j, s.nj)))
            st = EZ_ERR_REJECT;
        if (st != EZ_OK) {
            ez_diag_set(c->d, "the masking sumcheck failed");
            st = st == EZ_ERR_NOMEM ? st : EZ_ERR_REJECT;
            goto out;
        }
    }
    if ((st = ez_claim_set(&kc, point, s.n, evals[1])) != EZ_OK)
        goto out;
    if ((st = ez_opview_claim(c, &v, i, 0, &kc)) != EZ_OK)
        goto out;
    ez_claim_clear(&kc);
    if (shrink) {
        if ((st = ez_claim_set(&kc, out->point, out->nvars, rho)) != EZ_OK)
            goto out;
        st = ez_rc_value_claim(c, (size_t)c->adv->op_rem[i], &kc);
    }
out:
    ez_claim_clear(&kc);
    ez_sumcheck_proof_clear(&proof);
    free(mask);
    free(in);
    ez_opview_clear(&v);
    return st;
}

ez_status ez_op_causal_prove(ez_pctx *c, size_t op, const ez_claim *out)
{
    return causal_reduce(c, op, out);
}

ez_status ez_op_causal_verify(ez_pctx *c, size_t op, const ez_claim *out)
{
    return causal_reduce(c, op, out);
}

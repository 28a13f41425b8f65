/* CAUSAL — the causal mask as an op (docs/semantics.md "CAUSAL"; docs/protocol.md §5.3).
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
#include "runtime/ops/op.h"
#include "runtime/prove/masks.h"
#include "runtime/prove/rangecheck.h"

static ez_status causal_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    (void)sh;
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
    ez_point_blocks ob; /* the output point's block per index */
    ez_plan_point_blocks(&ob, o, o->out_axes, to->rank);
    if (ob.nvars != out->nvars)
        return EZ_ERR_INVALID;
    const ez_plan_tensor *ti = &v->tensors[0];
    s->n = 0;
    bool seen_i = false, seen_j = false;
    for (unsigned a = 0; a < ti->rank; a++) {
        unsigned x = v->op.in_axes[0][a];
        if (!ob.has[x])
            return EZ_ERR_INVALID;
        if (x == o->mask_row)
            s->off_i = s->n, s->ni = ob.nv[x], seen_i = true;
        if (x == o->mask_col)
            s->off_j = s->n, s->nj = ob.nv[x], seen_j = true;
        memcpy(s->eqp + s->n, out->point + ob.off[x], ob.nv[x] * sizeof(ez_fe2));
        s->n += ob.nv[x];
    }
    return s->n == ob.nvars && seen_i && seen_j ? EZ_OK : EZ_ERR_INVALID;
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

static ez_status causal_reduce(ez_pctx *c, size_t i, const ez_op_shape *sh, const ez_claim *out)
{
    const ez_plan_op *o = sh->o;
    const ez_plan_tensor *to = sh->to;
    const ez_opview *v = &sh->v;
    ez_status st = EZ_OK;
    causal_shape s;
    ez_fe *mask = NULL, *in = NULL;
    ez_sumcheck_proof proof;
    ez_claim kc = {0};
    memset(&proof, 0, sizeof proof);
    if ((st = causal_shape_build(&s, v, to, o, out)) != EZ_OK)
        goto out;
    ez_claim_absorb(c->t, "causal/out", out);
    bool shrink = o->in_scale > o->out_scale;
    ez_fe2 rho = ez_fe2_zero();
    if (shrink && (st = ez_op_rem_msg(c, i, to, out->point, "causal/rem", &rho)) != EZ_OK)
        goto out;
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
        uint64_t padlen = ez_advice_padlen(&v->tensors[0]);
        ez_advice_pad_i64(in, v->data[0], &v->tensors[0], 0);
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
    if ((st = ez_opview_claim(c, v, i, 0, &kc)) != EZ_OK)
        goto out;
    ez_claim_clear(&kc);
    if (shrink)
        st = ez_op_rem_claim(c, i, out, rho);
out:
    ez_claim_clear(&kc);
    ez_sumcheck_proof_clear(&proof);
    free(mask);
    free(in);
    return st;
}

static ez_status causal_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    int64_t *off, *rem;
    ez_status st = ez_exec_move_scale_prepare(c, n, &off, &rem);
    if (st != EZ_OK)
        return st;
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    /* coordinates of i and j per element come from unit strides on those indices */
    int64_t si[EZ_MAX_IDX] = {0}, sj[EZ_MAX_IDX] = {0};
    unsigned grp[EZ_MAX_RANK] = {0};
    for (unsigned a = 0; a < to->rank; a++)
        grp[a] = op->out_axes[a];
    si[op->mask_row] = 1;
    sj[op->mask_col] = 1;
    int64_t *ci = NULL, *cj = NULL;
    if (ez_exec_group_offsets(&ci, op->idx_size, grp, to->rank, si) != EZ_OK ||
        ez_exec_group_offsets(&cj, op->idx_size, grp, to->rank, sj) != EZ_OK) {
        ez_diag_set(c->d, "out of memory in '%s'", op->label);
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const unsigned from = op->in_scale, toscale = op->out_scale;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        int64_t r = 0;
        out[e] = cj[e] > ci[e] ? 0 : ez_exec_move_scale(in[off[e]], from, toscale, &r);
        if (rem)
            rem[e] = r;
    }
out:
    free(off);
    free(ci);
    free(cj);
    return st;
}

static double causal_f64(const ez_plan *p, const ez_plan_op *op, uint64_t e, double x)
{
    uint64_t coord[EZ_MAX_IDX];
    ez_exec_out_coords(p, op, e, coord);
    return coord[op->mask_col] > coord[op->mask_row] ? 0.0 : x;
}

static ez_status causal_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_elementwise(p, op, ft, causal_f64, d);
}

static uint64_t causal_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    const ez_plan_op *o = &p->ops[op];
    const ez_plan_tensor *ti = &p->tensors[o->in[0]];
    (void)L;
    unsigned nv = 0;
    for (unsigned a = 0; a < ti->rank; a++)
        if (!((o->in_fixed[0] >> a) & 1))
            nv += ez_log2_ceil(ti->dims[a]);
    /* rho with its limbs when the scale shrinks, then a degree-3 sumcheck over the input's
     * variables and its two final evaluations (mask, input) */
    uint64_t n = (uint64_t)3 * nv + 2;
    if (o->in_scale > o->out_scale)
        n += ez_rc_nlimbs(o->in_scale - o->out_scale);
    return n * EZ_OP_FE2_BYTES;
}

/* A scale moving down is a rescale of the masked values (bounded by the input's). */
static void causal_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    const ez_plan_op *o = &p->ops[op];
    if (o->in_scale > o->out_scale)
        ez_rel_rescale(m, p, op, o->in_scale - o->out_scale);
}

const ez_op_def ez_op_causal = {
    .exec = causal_exec,
    .floatref = causal_floatref,
    .shape_size = sizeof(ez_op_shape),
    .layout = causal_layout,
    .prove = causal_reduce,
    .verify = causal_reduce,
    .walk_bytes = causal_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = causal_relations,
};

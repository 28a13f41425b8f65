/* RELU — relu(e) = max(e, 0), exactly (docs/semantics.md "relu"; the protocol and its
 * soundness argument: docs/protocol-elementwise.md §6). No table: over the output's padded
 * cube the op commits y and d = y - x in limbs, each limb range-checked, so
 *     y >= 0,  d >= 0,  y - d = x  (checked at a random point: the claim on x),
 *     y d = 0                       (one zero-check)
 * and y is max(x, 0): y d = 0 with y, d integers below p leaves y = 0 (then x = -d <= 0)
 * or d = 0 (then y = x >= 0). The claim on y is a claim on the committed y. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/ops/op.h"
#include "runtime/prove/rangecheck.h"

typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    unsigned rank, n;
    unsigned in_pos[EZ_MAX_RANK], off[EZ_MAX_RANK], ioff[EZ_MAX_RANK];
    uint64_t len;
    unsigned by, bd, ny, nd; /* widths and limbs of y and d */
    unsigned pY, pD, npolys;
} rl_shape;

static ez_status rl_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    rl_shape *s = (rl_shape *)base;
    const ez_plan_op *o = base->o;
    if (o->kind != EZ_OP_RELU || o->nin != 1)
        return ez_op_unsupported(d, o, "relu", "not a one-operand relu");
    if (o->in_scale != o->out_scale)
        return ez_op_unsupported(d, o, "relu", "the result's scale differs from the operand's");
    s->rank = s->base.to->rank;
    if (s->base.ti->rank != s->rank)
        return ez_op_unsupported(d, o, "relu", "the output's axes differ from the input's");
    if (ez_op_axes_pos(s->in_pos, o, s->base.v.op.in_axes[0], s->base.ti, s->base.to, 0) != EZ_OP_AXES_OK)
        return ez_op_unsupported(d, o, "relu", "the output's axes differ from the input's");
    s->n = ez_op_axis_offsets(s->off, s->base.to);
    ez_op_axis_offsets(s->ioff, s->base.ti);
    s->len = ez_advice_padlen(s->base.to);
    if (s->n > EZ_SC_MAX_VARS || s->len > EZ_ADV_MAX_PADLEN)
        return ez_op_unsupported(d, o, "relu", "the tensor is too large for one zero-check");
    uint64_t by = p->tensors[o->out].bound, bx = p->tensors[o->in[0]].bound;
    s->by = by ? ez_bitlen(by) : 1;
    s->bd = bx ? ez_bitlen(bx) : 1;
    if (s->by > 62 || s->bd > 62)
        return ez_op_unsupported(d, o, "relu", "values of 62 bits or more");
    s->ny = ez_rc_nlimbs(s->by);
    s->nd = ez_rc_nlimbs(s->bd);
    s->pY = 0;
    s->pD = s->ny;
    s->npolys = s->ny + s->nd;
    return EZ_OK;
}

static ez_status relu_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    const rl_shape *s = (const rl_shape *)sh;
    size_t first = L->npolys;
    ez_status st = ez_op_add_polys(L, op, s->npolys, s->len);
    if (st == EZ_OK)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pY, s->ny, s->by, s->len);
    if (st == EZ_OK)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pD, s->nd, s->bd, s->len);
    return st;
}

/* y from the trace, d = y - x; in checked mode a y that is not max(x, 0) is refused. */
static ez_status relu_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                           const ez_op_shape *sh, bool unchecked, ez_fe **polys, ez_diag *d)
{
    const rl_shape *s = (const rl_shape *)sh;
    ez_status st = EZ_OK;
    int64_t *off = NULL;
    ez_fe *yv = NULL, *dv = NULL;
    size_t first;
    if ((st = ez_op_polys_at(L, op, s->npolys, &first)) != EZ_OK || first == SIZE_MAX)
        goto out; /* SIZE_MAX: a layout without this op's polys */
    if ((st = ez_exec_elem_offsets(&off, p, s->base.o, 0, d)) != EZ_OK)
        goto out;
    for (unsigned q = 0; q < s->npolys; q++)
        if ((polys[first + q] = ez_alloc_aligned(s->len, sizeof(ez_fe))) == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    yv = ez_alloc_array(s->len, sizeof *yv);
    dv = ez_alloc_array(s->len, sizeof *dv);
    if (!yv || !dv) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    uint64_t numel = ez_plan_tensor_numel(s->base.to), stride[EZ_MAX_RANK], bad = UINT64_MAX;
    ez_advice_strides(s->base.to, stride);
    const int64_t *x = tr->t[s->base.o->in[0]], *y = tr->t[s->base.o->out];
#pragma omp parallel for schedule(static) if (numel > 65536)
    for (uint64_t e = 0; e < numel; e++) {
        uint64_t rest = e, i = 0;
        for (unsigned b = s->rank; b-- > 0;) {
            i += (rest % s->base.to->dims[b]) * stride[b];
            rest /= s->base.to->dims[b];
        }
        int64_t xe = x[off[e]];
        yv[i] = ez_fe_from_i64(y[e]);
        dv[i] = ez_fe_sub(yv[i], ez_fe_from_i64(xe));
        if (y[e] != (xe > 0 ? xe : 0)) {
#pragma omp critical(ez_relu_bad)
            if (e < bad)
                bad = e;
        }
    }
    if (bad != UINT64_MAX && !unchecked) {
        char where[256];
        ez_exec_format_elem(where, sizeof where, s->base.to, bad);
        ez_diag_set(d, "op '%s': %s = %lld is not max(x, 0) (the trace is inconsistent)", s->base.o->label, where,
                    (long long)y[bad]);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    ez_fe *const *P = polys + first;
    const struct {
        const ez_fe *v;
        unsigned q, nl, bits;
    } vals[] = {{yv, s->pY, s->ny, s->by}, {dv, s->pD, s->nd, s->bd}};
    for (size_t k = 0; k < 2; k++) {
        ez_fe *limbs[EZ_ADV_MAX_LIMBS];
        for (unsigned l = 0; l < vals[k].nl; l++)
            limbs[l] = P[vals[k].q + l];
        for (uint64_t i = 0; i < s->len; i++)
            ez_rc_split(vals[k].v[i], vals[k].bits, vals[k].nl, limbs, i);
    }
out:
    free(off);
    free(yv);
    free(dv);
    return st;
}

static void rl_desc(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 2);
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* Limbs 1.. of the value at local polys q.. (nl limbs) are sent at pt, limb 0 follows from
 * the value v; all become advice claims. */
static ez_status rl_value_claims(ez_pctx *c, const rl_shape *s, size_t first, const char *label, unsigned q,
                                 unsigned nl, const ez_fe2 *pt, ez_fe2 v)
{
    ez_fe2 limbs[EZ_ADV_MAX_LIMBS];
    ez_status st;
    if (c->prover)
        for (unsigned l = 1; l < nl; l++)
            limbs[l] = ez_mle_eval_fe(c->advice[first + q + l], (size_t)s->len, pt, s->n);
    if ((st = ez_pctx_msg(c, label, limbs + 1, nl - 1)) != EZ_OK)
        return st;
    limbs[0] = ez_fe2_zero();
    limbs[0] = ez_fe2_sub(v, ez_op_limbs_combine(limbs, nl));
    for (unsigned l = 0; l < nl && st == EZ_OK; l++)
        st = ez_pctx_claim_advice(c, first + q + l, pt, s->n, limbs[l]);
    return st;
}

/* Prover: a limbed value over the whole cube. */
static ez_fe *rl_table(const ez_pctx *c, const rl_shape *s, size_t first, unsigned q, unsigned nl)
{
    uint64_t N = UINT64_C(1) << s->n;
    ez_fe *t = ez_alloc_aligned(N, sizeof *t);
    if (t == NULL)
        return NULL;
#pragma omp parallel for schedule(static) if (N > 65536)
    for (uint64_t i = 0; i < N; i++)
        t[i] = i < s->len ? ez_op_limbs_at(c->advice + first + q, nl, i) : 0;
    return t;
}

static ez_status relu_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    const rl_shape *s = (const rl_shape *)sh;
    ez_status st = EZ_OK;
    ez_fe *Y = NULL, *D = NULL;
    ez_claim kc = {0};
    size_t first;
    if ((st = ez_op_reduce_begin(c, op, s->npolys, s->n, out, "relu/out", &first)) != EZ_OK)
        goto out;
    /* 1. the claim on y is a claim on the committed y */
    if ((st = rl_value_claims(c, s, first, "relu/y-limbs", s->pY, s->ny, out->point, out->value)) != EZ_OK)
        goto out;
    /* 2. y d = 0 on the whole cube: one zero-check at a random point */
    ez_fe2 rho[EZ_PROVE_MAX_VARS], pt[EZ_PROVE_MAX_VARS], ev[2];
    ez_transcript_challenges_fe2(c->t, "relu/rho", rho, s->n);
    ez_sumcheck_desc desc;
    rl_desc(&desc, s->n);
    if (c->prover &&
        ((Y = rl_table(c, s, first, s->pY, s->ny)) == NULL || (D = rl_table(c, s, first, s->pD, s->nd)) == NULL)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    ez_sumcheck_factor f[2] = {{Y, NULL}, {D, NULL}};
    if ((st = ez_op_sumcheck(c, &desc, NULL, rho, f, ez_fe2_zero(), pt, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the zero-check y (y - x) = 0 failed");
        goto out;
    }
    /* 3. y and d at its point become limb claims; x = y - d there is the operand's claim */
    if ((st = rl_value_claims(c, s, first, "relu/y-at", s->pY, s->ny, pt, ev[0])) != EZ_OK ||
        (st = rl_value_claims(c, s, first, "relu/d-at", s->pD, s->nd, pt, ev[1])) != EZ_OK)
        goto out;
    {
        ez_fe2 pin[EZ_PROVE_MAX_VARS];
        for (unsigned b = 0; b < s->rank; b++)
            memcpy(pin + s->ioff[s->in_pos[b]], pt + s->off[b], ez_log2_ceil(s->base.to->dims[b]) * sizeof *pin);
        if ((st = ez_claim_set(&kc, pin, s->n, ez_fe2_sub(ev[0], ev[1]))) == EZ_OK)
            st = ez_opview_claim(c, &s->base.v, op, 0, &kc);
    }
out:
    ez_claim_clear(&kc);
    free(Y);
    free(D);
    return st;
}

static ez_status relu_exec(ez_exec_ctx *c)
{
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&c->p->tensors[op->out]);
    int64_t *off, *rem;
    ez_status st = ez_exec_move_scale_prepare(c, n, &off, &rem);
    if (st == EZ_OK) {
        const int64_t *in = c->tr->t[op->in[0]];
        int64_t *out = c->tr->t[op->out];
        const unsigned from = op->in_scale, to = op->out_scale;
#pragma omp parallel for schedule(static) if (n > 65536)
        for (uint64_t e = 0; e < n; e++) {
            int64_t x = in[off[e]], r = 0;
            out[e] = x > 0 ? ez_exec_move_scale(x, from, to, &r) : 0;
            if (rem)
                rem[e] = r;
        }
    }
    free(off);
    return st;
}

/* The float reference of an elementwise function: f on every element. */
static double relu_f64(const ez_plan *p, const ez_plan_op *op, uint64_t e, double x)
{
    (void)p, (void)op, (void)e;
    return x > 0 ? x : 0.0;
}

static ez_status relu_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_elementwise(p, op, ft, relu_f64, d);
}

/* (ny - 1) limbs at r, the zero-check, (ny - 1) + (nd - 1) limbs at its point. */
static uint64_t relu_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const rl_shape *s = (const rl_shape *)sh;
    (void)L;
    ez_sumcheck_desc desc;
    rl_desc(&desc, s->n);
    uint64_t b = ez_sumcheck_proof_bytes(&desc) + (uint64_t)(2 * (s->ny - 1) + (s->nd - 1)) * EZ_OP_FE2_BYTES;
    return b;
}

/* docs/protocol-elementwise.md §6: y - d = x with y, d in their ranges; y d = 0 needs only
 * y, d < p (a product of two integers in [0, p) is 0 mod p iff a factor is 0). */
static void relu_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    const rl_shape *s = (const rl_shape *)sh;
    ez_i128 B = (ez_i128)p->tensors[s->base.o->in[0]].bound, lo, hi;
    ez_rel_begin(m, op, "y - d = x");
    ez_rel_unsigned(s->by, &lo, &hi);
    ez_rel_term(m, "y", 1, 0, lo, hi);
    ez_rel_unsigned(s->bd, &lo, &hi);
    ez_rel_term(m, "d", -1, 0, lo, hi);
    ez_rel_term(m, "x", -1, 0, -B, B);
    ez_rel_end(m);
    ez_rel_limbs(m, op, "y = the sum of its limbs", s->by, s->ny);
    ez_rel_limbs(m, op, "d = the sum of its limbs", s->bd, s->nd);
}

const ez_op_def ez_op_relu = {
    .exec = relu_exec,
    .floatref = relu_floatref,
    .shape_size = sizeof(rl_shape),
    .shape_init = rl_shape_init,
    .layout = relu_layout,
    .fill = relu_fill,
    .prove = relu_reduce,
    .verify = relu_reduce,
    .walk_bytes = relu_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = relu_relations,
};

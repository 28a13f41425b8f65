/* ROPE — rope[s, e](x): the rotary position embedding of Llama (the "rotate-half" pairing,
 * base 10000) with its cos/sin as PUBLIC constants of the plan, never committed
 * (docs/semantics.md "RoPE"; the protocol: docs/protocol-elementwise.md §7).
 *
 * With E the rotary extent, H = E/2, i = e mod H, theta_i = 10000^(-2i/E) and the
 * coefficients C[p, i] = round(cos(p theta_i) 2^16), S[p, i] = round(sin(p theta_i) 2^16)
 * at position p (the coordinate of s):
 *     acc[.., e] = x[.., e] C - x[.., e + H] S    (e <  H)
 *     acc[.., e] = x[.., e] C + x[.., e - H] S    (e >= H)
 *     out = floor(acc / 2^shift),  shift = in_scale + 16 - out_scale
 * — a linear map of x with public coefficients followed by the fused rescale of EINSUM
 * (remainder committed and range-checked, the output range-checked to its width).
 *
 * prove   given out~(r) = v the prover sends rho = R~(r); acc~(r) = 2^shift v + rho is
 *         proven by ONE sumcheck over the position and rotary variables (s, e'):
 *             acc~(r) = sum_{s, e'} eq(r_s, s) K(s, e') Xb(s, e'),
 *             K(s, e') = sum_e eq(r_e, e) M_s[e, e']   (the rotation's MLE in e at r_e)
 *             Xb(s, e') = x folded over its other axes at their blocks of r
 *         (eq factor on the s variables, degree 3). At its end the verifier evaluates
 *         K~(ps, pe) itself from the coefficients in O(S H) and rejects unless it equals the
 *         prover's K evaluation; Xb's becomes the claim on x. One function for both sides. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/ops/op.h"
#include "runtime/prove/rangecheck.h"

/* ---- the coefficients ------------------------------------------------------------------- */

/* C[p H + i] and S[p H + i] for positions p < P and pairs i < H (rotary extent 2H):
 * round(cos / sin(p 10000^(-2i / 2H)) 2^16), half away from zero. The one definition of
 * RoPE's constants: exec, prover and verifier all call it. NULL on allocation failure. */
static int64_t *rope_coeffs(uint64_t P, uint64_t H)
{
    uint64_t n = 2 * P * H;
    int64_t *c = ez_alloc_array(n ? n : 1, sizeof *c);
    if (c == NULL)
        return NULL;
    const double one = ldexp(1.0, EZ_ROPE_SCALE);
    for (uint64_t i = 0; i < H; i++) {
        double theta = pow(EZ_ROPE_BASE, -2.0 * (double)i / (double)(2 * H));
        for (uint64_t p = 0; p < P; p++) {
            double a = (double)p * theta;
            c[p * H + i] = (int64_t)round(cos(a) * one);
            c[P * H + p * H + i] = (int64_t)round(sin(a) * one);
        }
    }
    return c;
}

/* ---- shape ---------------------------------------------------------------------------------- */

typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    unsigned rank;
    unsigned as, ae;               /* input axes of the position and the rotary index */
    unsigned in_pos[EZ_MAX_RANK];  /* output axis b is input axis in_pos[b] */
    unsigned off[EZ_MAX_RANK];     /* output axis b's block in the output point */
    unsigned ioff[EZ_MAX_RANK];    /* input axis a's block in the input point */
    unsigned n, ns, ne;            /* output variables; the sumcheck's s and e variables */
    uint64_t P, E, H;              /* positions, rotary extent, pairs */
    unsigned shift;
} rp_shape;

static ez_status rp_unsupported(ez_diag *d, const ez_plan_op *o, const char *why)
{
    ez_diag_set(d, "op '%s' (rope): %s", o->label, why);
    return EZ_ERR_UNSUPPORTED;
}

static ez_status rp_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    rp_shape *s = (rp_shape *)base;
    const ez_plan_op *o = base->o;
    if (o->kind != EZ_OP_ROPE || o->nin != 1 || o->shift == 0 || o->shift > 62)
        return rp_unsupported(d, o, "not a one-operand rope with a rescale");
    s->rank = s->base.to->rank;
    if (s->base.ti->rank != s->rank)
        return rp_unsupported(d, o, "the output's axes differ from the input's");
    const unsigned *ax = s->base.v.op.in_axes[0];
    bool have_s = false, have_e = false;
    if (ez_op_axes_pos(s->in_pos, o, ax, s->base.ti, s->base.to, 0) != EZ_OP_AXES_OK)
        return rp_unsupported(d, o, "the output's axes differ from the input's");
    for (unsigned a = 0; a < s->rank; a++) {
        if (ax[a] == o->mask_row)
            s->as = a, have_s = true;
        if (ax[a] == o->mask_col)
            s->ae = a, have_e = true;
    }
    if (!have_s || !have_e || s->as == s->ae)
        return rp_unsupported(d, o, "the position and rotary indices are not two input axes");
    s->n = ez_op_axis_offsets(s->off, s->base.to);
    ez_op_axis_offsets(s->ioff, s->base.ti);
    s->P = s->base.ti->dims[s->as];
    s->E = s->base.ti->dims[s->ae];
    s->H = s->E / 2;
    s->ns = ez_log2_ceil(s->P);
    s->ne = ez_log2_ceil(s->E);
    s->shift = o->shift;
    if (s->E % 2 != 0 || s->E == 0 || o->shift != o->in_scale + EZ_ROPE_SCALE - o->out_scale)
        return rp_unsupported(d, o, "an odd rotary extent or an inconsistent shift");
    if (s->P * s->H > (UINT64_C(1) << 32) || s->n > EZ_SC_MAX_VARS)
        return rp_unsupported(d, o, "too many positions times pairs for the public coefficients");
    return EZ_OK;
}

/* ---- layout: the fused rescale -------------------------------------------------------------- */

static ez_status rope_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    return ez_rc_rescale(L, p, op, ((const rp_shape *)sh)->shift, d);
}

/* ---- the reduction (both sides) ------------------------------------------------------------- */

static void rp_desc(ez_sumcheck_desc *d, const rp_shape *s)
{
    ez_sumcheck_desc_init(d, s->ns + s->ne, 2);
    d->eq_vars = s->ns == 0 ? 0 : (UINT64_C(1) << s->ns) - 1; /* the position variables come first */
}

/* K~(ps, pe) over the real positions and rotary coordinates, given eq tables of pe and r_e
 * (2^ne entries each) and of ps (2^ns): O(P H). */
static ez_fe2 rp_k_eval(const rp_shape *s, const int64_t *cf, const ez_fe2 *eps, const ez_fe2 *epe,
                        const ez_fe2 *ere)
{
    ez_fe2 acc = ez_fe2_zero();
    const uint64_t P = s->P, H = s->H;
    for (uint64_t p = 0; p < P; p++) {
        ez_fe2 row = ez_fe2_zero();
        for (uint64_t i = 0; i < H; i++) {
            ez_fe c = ez_fe_from_i64(cf[p * H + i]), sn = ez_fe_from_i64(cf[P * H + p * H + i]);
            /* column i: eq(r_e, i) C + eq(r_e, i + H) S; column i + H: eq(r_e, i + H) C - eq(r_e, i) S */
            ez_fe2 k0 = ez_fe2_add(ez_fe2_mul_fe(ere[i], c), ez_fe2_mul_fe(ere[i + H], sn));
            ez_fe2 k1 = ez_fe2_sub(ez_fe2_mul_fe(ere[i + H], c), ez_fe2_mul_fe(ere[i], sn));
            row = ez_fe2_add(row, ez_fe2_add(ez_fe2_mul(epe[i], k0), ez_fe2_mul(epe[i + H], k1)));
        }
        acc = ez_fe2_add(acc, ez_fe2_mul(eps[p], row));
    }
    return acc;
}

/* Prover: the factor tables K and Xb over (s, e') (s most significant). */
static ez_status rp_tables(const rp_shape *s, const int64_t *cf, const ez_fe2 *ere, const ez_fe2 *r, ez_fe2 **K,
                           ez_fe2 **X)
{
    const uint64_t N = UINT64_C(1) << (s->ns + s->ne), E = s->E, H = s->H, P = s->P;
    uint64_t numel = ez_plan_tensor_numel(s->base.ti);
    ez_fe *xin = ez_alloc_aligned(numel ? numel : 1, sizeof *xin);
    ez_fe2 *fold = ez_alloc_aligned(P * E, sizeof *fold);
    *K = ez_alloc_array(N, sizeof **K);
    *X = ez_alloc_array(N, sizeof **X);
    ez_status st = EZ_ERR_NOMEM;
    if (!xin || !fold || !*K || !*X)
        goto out;
#pragma omp parallel for schedule(static) if (numel > 65536)
    for (uint64_t e = 0; e < numel; e++)
        xin[e] = ez_fe_from_i64(s->base.v.data[0][e]);
    /* fold every axis but s and e at its block of r */
    size_t dims[EZ_MAX_RANK];
    const ez_fe2 *pts[EZ_MAX_RANK];
    for (unsigned a = 0; a < s->rank; a++) {
        dims[a] = (size_t)s->base.ti->dims[a];
        pts[a] = NULL;
    }
    for (unsigned b = 0; b < s->rank; b++) {
        unsigned a = s->in_pos[b];
        if (a != s->as && a != s->ae)
            pts[a] = r + s->off[b];
    }
    if ((st = ez_mle_fold_fe(fold, xin, dims, s->rank, pts)) != EZ_OK)
        goto out;
    bool s_first = s->as < s->ae;
    for (uint64_t p = 0; p < P; p++)
        for (uint64_t e = 0; e < E; e++) {
            uint64_t i = (p << s->ne) | e;
            (*X)[i] = fold[s_first ? p * E + e : e * P + p];
            uint64_t q = e % H;
            ez_fe c = ez_fe_from_i64(cf[p * H + q]), sn = ez_fe_from_i64(cf[P * H + p * H + q]);
            (*K)[i] = e < H ? ez_fe2_add(ez_fe2_mul_fe(ere[e], c), ez_fe2_mul_fe(ere[e + H], sn))
                            : ez_fe2_sub(ez_fe2_mul_fe(ere[e], c), ez_fe2_mul_fe(ere[q], sn));
        }
    st = EZ_OK;
out:
    free(xin);
    free(fold);
    if (st != EZ_OK) {
        free(*K);
        free(*X);
        *K = *X = NULL;
    }
    return st;
}

static ez_status rope_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    const rp_shape *s = (const rp_shape *)sh;
    ez_status st = EZ_OK;
    int64_t *cf = NULL;
    ez_fe2 *ere = NULL, *eps = NULL, *epe = NULL, *K = NULL, *X = NULL;
    ez_sumcheck_proof proof;
    ez_claim kc = {0};
    memset(&proof, 0, sizeof proof);
    if (out->nvars != s->n) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    ez_claim_absorb(c->t, "rope/out", out);
    /* rho = R~(r): acc~(r) = 2^shift v + rho */
    ez_fe2 rho;
    if ((st = ez_op_rem_msg(c, op, s->base.to, out->point, "rope/rem", &rho)) != EZ_OK)
        goto out;
    ez_fe2 claim = ez_fe2_add(ez_fe2_mul_fe(out->value, ez_fe_pow(2, s->shift)), rho);
    /* the output point's position and rotary blocks */
    const ez_fe2 *rs = NULL, *re = NULL;
    for (unsigned b = 0; b < s->rank; b++) {
        if (s->in_pos[b] == s->as)
            rs = out->point + s->off[b];
        if (s->in_pos[b] == s->ae)
            re = out->point + s->off[b];
    }
    cf = rope_coeffs(s->P, s->H);
    ere = ez_alloc_aligned((size_t)1 << s->ne, sizeof *ere);
    if (cf == NULL || ere == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    ez_eq_table(ere, re, s->ne);
    ez_sumcheck_desc desc;
    rp_desc(&desc, s);
    ez_fe2 pt[EZ_PROVE_MAX_VARS], ev[2];
    const ez_fe2 *eqp = s->ns ? rs : NULL;
    if (c->prover) {
        if ((st = rp_tables(s, cf, ere, out->point, &K, &X)) != EZ_OK)
            goto out;
        ez_sumcheck_factor f[2] = {{NULL, K}, {NULL, X}};
        const ez_sumcheck_factor *g = c->sumcheck_hook ? c->sumcheck_hook(c->sumcheck_hook_ctx, &desc, NULL, eqp, f) : NULL;
        if ((st = ez_sumcheck_prove(c->t, &desc, NULL, eqp, g ? g : f, claim, &proof, pt, ev)) != EZ_OK)
            goto out;
        ez_sumcheck_proof_write(c->w, &proof);
    } else {
        st = ez_sumcheck_proof_read(c->r, &desc, &proof);
        if (st == EZ_OK)
            st = ez_sumcheck_verify(c->t, &desc, NULL, eqp, claim, &proof, pt, ev);
        if (st == EZ_OK) {
            /* the rotation's MLE at the final point, from the public coefficients */
            eps = ez_alloc_aligned((size_t)1 << s->ns, sizeof *eps);
            epe = ez_alloc_aligned((size_t)1 << s->ne, sizeof *epe);
            if (eps == NULL || epe == NULL) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            ez_eq_table(eps, pt, s->ns);
            ez_eq_table(epe, pt + s->ns, s->ne);
            if (!ez_fe2_eq(rp_k_eval(s, cf, eps, epe, ere), ev[0]))
                st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK) {
            if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
                ez_diag_set(c->d, "the rotation's sumcheck failed");
                st = EZ_ERR_REJECT;
            }
            goto out;
        }
    }
    /* the claim on x: (ps, pe) at its position and rotary blocks, r elsewhere */
    {
        ez_fe2 pin[EZ_PROVE_MAX_VARS];
        for (unsigned b = 0; b < s->rank; b++) {
            unsigned a = s->in_pos[b], nv = ez_log2_ceil(s->base.to->dims[b]);
            const ez_fe2 *src = a == s->as ? pt : a == s->ae ? pt + s->ns : out->point + s->off[b];
            memcpy(pin + s->ioff[a], src, nv * sizeof *pin);
        }
        if ((st = ez_claim_set(&kc, pin, s->n, ev[1])) != EZ_OK || (st = ez_opview_claim(c, &s->base.v, op, 0, &kc)) != EZ_OK)
            goto out;
        ez_claim_clear(&kc);
    }
    st = ez_op_rem_claim(c, op, out, rho);
out:
    ez_claim_clear(&kc);
    ez_sumcheck_proof_clear(&proof);
    free(cf);
    free(ere);
    free(eps);
    free(epe);
    free(K);
    free(X);
    return st;
}

/* ---- execution and the float reference ----------------------------------------------- */

/* Per output element: the input offset of x[.., e], of its partner, the position and the
 * rotary coordinate. */
typedef struct {
    int64_t *off, *pos, *rot, estride;
} rp_index;

static void rp_index_clear(rp_index *x)
{
    free(x->off);
    free(x->pos);
    free(x->rot);
    memset(x, 0, sizeof *x);
}

static ez_status rp_index_init(rp_index *x, const ez_plan *p, const ez_plan_op *op, ez_diag *d)
{
    memset(x, 0, sizeof *x);
    const ez_plan_tensor *to = &p->tensors[op->out];
    int64_t stride[EZ_MAX_IDX], base, ss[EZ_MAX_IDX] = {0}, se[EZ_MAX_IDX] = {0};
    unsigned grp[EZ_MAX_RANK] = {0};
    ez_status st = ez_exec_elem_offsets(&x->off, p, op, 0, d);
    if (st != EZ_OK)
        return st;
    ez_exec_strides(p, op, 0, stride, NULL, &base);
    x->estride = stride[op->mask_col];
    for (unsigned a = 0; a < to->rank; a++)
        grp[a] = op->out_axes[a];
    ss[op->mask_row] = 1;
    se[op->mask_col] = 1;
    if (ez_exec_group_offsets(&x->pos, op->idx_size, grp, to->rank, ss) != EZ_OK ||
        ez_exec_group_offsets(&x->rot, op->idx_size, grp, to->rank, se) != EZ_OK) {
        rp_index_clear(x);
        ez_diag_set(d, "out of memory in '%s'", op->label);
        return EZ_ERR_NOMEM;
    }
    return EZ_OK;
}

static bool rp_exec_ok(const ez_plan *p, const ez_plan_op *op, ez_diag *d)
{
    uint64_t E = op->idx_size[op->mask_col];
    if (op->nin != 1 || E % 2 != 0 || op->shift == 0 || op->shift > 62 ||
        op->shift != op->in_scale + EZ_ROPE_SCALE - op->out_scale || op->mask_row >= op->nidx ||
        op->mask_col >= op->nidx || p->tensors[op->out].bits > 63) {
        ez_diag_set(d, "op '%s' (rope): an odd rotary extent or an inconsistent shift", op->label);
        return false;
    }
    return true;
}

static ez_status rope_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    if (!rp_exec_ok(p, op, c->d))
        return EZ_ERR_INVALID;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    const uint64_t P = op->idx_size[op->mask_row], H = op->idx_size[op->mask_col] / 2;
    rp_index ix;
    int64_t *cf = NULL, *rem = NULL;
    ez_status st = rp_index_init(&ix, p, op, c->d);
    if (st != EZ_OK)
        return st;
    /* |acc| <= max|x| (2^16 sqrt 2 + 2) < 2^62 (the compiler's bound_rope; checked on the
     * actual values too, so a plan with a wrong bound cannot overflow here) */
    uint64_t mx = ez_exec_maxabs(c->tr->t[op->in[0]], ez_plan_tensor_numel(&p->tensors[op->in[0]]));
    if (mx >= (UINT64_C(1) << 62) / 92683) {
        ez_diag_set(c->d, "rope '%s' (line %u) could leave the safe range 2^62", op->label, op->line);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    if ((cf = rope_coeffs(P, H)) == NULL || (rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *y = c->tr->t[op->out];
    const unsigned sh = op->shift;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        uint64_t pp = (uint64_t)ix.pos[e], r = (uint64_t)ix.rot[e], i = r % H;
        int64_t cc = cf[pp * H + i], sn = cf[P * H + pp * H + i];
        int64_t xa = in[ix.off[e]];
        int64_t acc = r < H ? xa * cc - in[ix.off[e] + (int64_t)H * ix.estride] * sn
                            : xa * cc + in[ix.off[e] - (int64_t)H * ix.estride] * sn;
        int64_t q = acc >> sh;
        y[e] = q;
        rem[e] = acc - (int64_t)((uint64_t)q << sh);
    }
out:
    free(cf);
    rp_index_clear(&ix);
    return st;
}

static ez_status rope_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    if (!rp_exec_ok(p, op, d))
        return EZ_ERR_INVALID;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    const uint64_t H = op->idx_size[op->mask_col] / 2;
    rp_index ix;
    ez_status st = rp_index_init(&ix, p, op, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    for (uint64_t e = 0; e < n; e++) {
        uint64_t r = (uint64_t)ix.rot[e], i = r % H;
        double a = (double)ix.pos[e] * pow(EZ_ROPE_BASE, -2.0 * (double)i / (double)(2 * H));
        double xa = in[ix.off[e]];
        ft->t[op->out][e] = r < H ? xa * cos(a) - in[ix.off[e] + (int64_t)H * ix.estride] * sin(a)
                                  : xa * cos(a) + in[ix.off[e] - (int64_t)H * ix.estride] * sin(a);
    }
    rp_index_clear(&ix);
    return EZ_OK;
}

/* rho with its limbs 1.., the sumcheck over (s, e') and its two final values. */
static uint64_t rope_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const rp_shape *s = (const rp_shape *)sh;
    (void)p, (void)L, (void)op;
    ez_sumcheck_desc desc;
    rp_desc(&desc, s);
    return ez_sumcheck_proof_bytes(&desc) + (uint64_t)ez_rc_nlimbs(s->shift) * EZ_OP_FE2_BYTES;
}

/* The fused rescale acc = 2^shift q + r, acc within the bound rule's accumulator. */
static void rope_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    if (p->ops[op].shift > 0)
        ez_rel_rescale(m, p, op, p->ops[op].shift);
}

const ez_op_def ez_op_rope = {
    .exec = rope_exec,
    .floatref = rope_floatref,
    .shape_size = sizeof(rp_shape),
    .shape_init = rp_shape_init,
    .layout = rope_layout,
    .prove = rope_reduce,
    .verify = rope_reduce,
    .walk_bytes = rope_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = rope_relations,
};

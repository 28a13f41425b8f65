/* RSQRT — rsqrt(e) = 1/sqrt(e), 0 for e <= 0 (docs/semantics.md "rsqrt"), and the
 * reciprocal-square-root block it shares with the norms (rsqrt.h). The protocol and its
 * soundness argument are docs/protocol-norms.md, cited as "§n".
 *
 * RSQRT (§5): over the output's padded cube (n variables) the op commits per element
 * the sign bit z = [x > 0], u = x - 1 (z = 1) or -x (z = 0) in limbs of bx = bitlen(bound_x)
 * bits, xp = z x = max(x, 0), and the block of rsqrt.h on V = xp 2^(se - s); the output is
 * y = floor(RG / 2^sh), sh = 23 +
 * kmax - o - se/2, its remainder committed and range-checked with the output (the
 * framework's rescale, ez_rc_rescale). The reduction of the claim y~(r) = v:
 *   1. the prover sends rho = R'~(r); then RG~(r) = 2^sh v + rho (sh <= 0: v / 2^-sh) is a
 *      claim on the committed RG — no sumcheck, the rescale is linear;
 *   2. one zero-check (degree 4) of the block's relations plus z^2 = z, u = 2 z x - z - x
 *      and xp = z x, at a random point zeta; at its end the prover sends x and every poly
 *      of the op, the verifier recomputes the seven factors;
 *   3. rho becomes limb claims on the remainder. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"
#include "runtime/ops/rsqrt.h"
#include "runtime/prove/rangecheck.h"

#define RQ_LIMB EZ_ADV_LIMB_BITS
#define RQ_MAX_POLYS 48 /* z, u's limbs, xp and the block: at most 2 + 4 + 24 */

/* ---- the shared block (rsqrt.h) ---------------------------------------------------------- */

ez_status ez_rsq_cols_get(ez_exec_ctx *c, uint64_t n, ez_rsq_cols *a)
{
    a->k = ez_exec_aux(c, EZ_AUX_NORM_EXP, n);
    a->m = ez_exec_aux(c, EZ_AUX_MANTISSA, n);
    a->mrem = ez_exec_aux(c, EZ_AUX_MANT_REM, n);
    a->r = ez_exec_aux(c, EZ_AUX_RSQRT, n);
    return a->k && a->m && a->mrem && a->r ? EZ_OK : EZ_ERR_NOMEM;
}

int64_t ez_rsq_cols_set(const ez_rsq_cols *a, const ez_table *t, uint64_t i, int64_t V, unsigned *k)
{
    int64_t m, mrem;
    ez_rsqrt_split(V, &m, k, &mrem);
    const int64_t r = t->out[m];
    a->k[i] = *k, a->m[i] = m, a->mrem[i] = mrem, a->r[i] = r;
    return r;
}

unsigned ez_rsq_kmax(uint64_t vmax)
{
    int64_t m, rem;
    unsigned k;
    ez_rsqrt_split(vmax > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)vmax, &m, &k, &rem);
    return k;
}

ez_status ez_rsq_init(ez_rsq *b, uint64_t vmax, unsigned first)
{
    memset(b, 0, sizeof *b);
    if (vmax >= (UINT64_C(1) << 62))
        return EZ_ERR_UNSUPPORTED;
    b->vmax = vmax;
    b->kmax = ez_rsq_kmax(vmax);
    b->bg = b->kmax + 1;
    b->bm = b->kmax ? 2 * b->kmax : 1;
    b->bw = ez_bitlen(4 * vmax) ? ez_bitlen(4 * vmax) : 1;
    b->ng = ez_rc_nlimbs(b->bg);
    b->nm = ez_rc_nlimbs(b->bm);
    b->nw = ez_rc_nlimbs(b->bw);
    unsigned q = first;
    b->first = first;
    b->pM = q++;
    b->pR = q++;
    b->pG = q, q += b->ng;
    b->pg = q, q += b->ng;
    b->pMR = q, q += b->nm;
    b->pMG = q, q += b->nm;
    b->pW = q, q += b->nw;
    b->pZ = q++;
    b->pRG = q++;
    b->npolys = q - first;
    return EZ_OK;
}

ez_status ez_rsq_range_cols(ez_advice_layout *L, unsigned op, size_t first, unsigned nl, unsigned bits,
                            uint64_t len, uint64_t cst)
{
    ez_status st = EZ_OK;
    if (cst != 0 && nl != 1)
        return EZ_ERR_INTERNAL;
    for (unsigned l = 0; l <= nl && st == EZ_OK; l++) {
        if (l == nl && cst == 0)
            break;
        unsigned w = l + 1 < nl ? RQ_LIMB : l == nl ? bits : bits - RQ_LIMB * l, table;
        if ((st = ez_advice_range_table(L, w, &table)) != EZ_OK)
            break;
        ez_lookup_col c = {.table = table,
                           .op = op,
                           .len = len,
                           .atom = {false, first + (l == nl ? 0 : l)},
                           .coef = 1,
                           .cst = l == nl ? (ez_fe)cst : 0,
                           .bits = w};
        st = ez_advice_add_col(L, &c, NULL);
    }
    return st;
}

ez_status ez_rsq_layout(ez_advice_layout *L, unsigned op, const ez_rsq *b, size_t gfirst, uint64_t len)
{
    const struct {
        unsigned first, nl, bits;
    } v[] = {{b->pG, b->ng, b->bg}, {b->pg, b->ng, b->bg}, {b->pMR, b->nm, b->bm}, {b->pMG, b->nm, b->bm},
             {b->pW, b->nw, b->bw}};
    ez_status st = EZ_OK;
    for (size_t i = 0; i < sizeof v / sizeof v[0] && st == EZ_OK; i++)
        st = ez_rsq_range_cols(L, op, gfirst + v[i].first, v[i].nl, v[i].bits, len, 0);
    /* (M, R) in the model's ONE rsqrt table (§3): every op of the model shares it */
    unsigned tb;
    if (st == EZ_OK)
        st = ez_advice_func_table(L, EZ_TABLE_RSQRT, EZ_FN_RSQRT, 0, 0, &tb);
    if (st == EZ_OK) {
        ez_lookup_tuple u = {
            .table = tb, .op = op, .len = len, .atom = {{false, gfirst + b->pM}, {false, gfirst + b->pR}}};
        st = ez_advice_add_tuple(L, &u, NULL);
    }
    return st;
}

/* 2^e in the field for any integer e (a negative e only in a tampered trace). */
static ez_fe pow2s(int64_t e)
{
    return e >= 0 ? ez_fe_pow(2, (uint64_t)e) : ez_fe_inv(ez_fe_pow(2, (uint64_t)-e));
}

const char *ez_rsq_fill(const ez_rsq *b, ez_fe *const *P, uint64_t i, int64_t V, int64_t k, int64_t M, int64_t mrem,
                        int64_t r)
{
    ez_fe G = pow2s(k), g = pow2s((int64_t)b->kmax - k);
    ez_fe P4 = ez_fe_mul(G, G), v4 = ez_fe_mul(ez_fe_from_i64(V), 4);
    ez_fe MR = ez_fe_from_i64(mrem), MG = ez_fe_sub(ez_fe_sub(P4, 1), MR);
    /* k > 0: W = 4 V - 65535 4^k - 4 >= 0 is the minimality of k; k = 0: W = 4 V */
    ez_fe W = k != 0 ? ez_fe_sub(ez_fe_sub(v4, ez_fe_mul(P4, 65535)), 4) : v4;
    ez_fe Z = k == 0, Mv = ez_fe_from_i64(M), Rv = ez_fe_from_i64(r), RG = ez_fe_mul(Rv, g);
    P[b->pM][i] = Mv;
    P[b->pR][i] = Rv;
    P[b->pZ][i] = Z;
    P[b->pRG][i] = RG;
    const char *bad = NULL;
    if (!ez_rc_split(G, b->bg, b->ng, P + b->pG, i))
        bad = "the exponent's 2^k (k above kmax)";
    if (!ez_rc_split(g, b->bg, b->ng, P + b->pg, i) && !bad)
        bad = "the exponent's 2^(kmax - k) (k negative)";
    if (!ez_rc_split(MR, b->bm, b->nm, P + b->pMR, i) && !bad)
        bad = "the mantissa's remainder";
    if (!ez_rc_split(MG, b->bm, b->nm, P + b->pMG, i) && !bad)
        bad = "4^k - 1 - the mantissa's remainder";
    if (!ez_rc_split(W, b->bw, b->nw, P + b->pW, i) && !bad)
        bad = "the exponent's minimality witness";
    return bad;
}

void ez_rsq_atoms_of(const ez_rsq *b, const ez_fe2 *vals, ez_rsq_atoms *a)
{
    const ez_fe2 *v = vals - b->first; /* indexed by local id */
    a->M = v[b->pM];
    a->R = v[b->pR];
    a->G = ez_op_limbs_combine(v + b->pG, b->ng);
    a->g = ez_op_limbs_combine(v + b->pg, b->ng);
    a->MR = ez_op_limbs_combine(v + b->pMR, b->nm);
    a->MG = ez_op_limbs_combine(v + b->pMG, b->nm);
    a->W = ez_op_limbs_combine(v + b->pW, b->nw);
    a->Z = v[b->pZ];
    a->RG = v[b->pRG];
}

void ez_rsq_atoms_at(const ez_rsq *b, ez_fe *const *P, uint64_t i, ez_rsq_atoms *a)
{
    a->M = ez_fe2_from_fe(P[b->pM][i]);
    a->R = ez_fe2_from_fe(P[b->pR][i]);
    a->G = ez_fe2_from_fe(ez_op_limbs_at(P + b->pG, b->ng, i));
    a->g = ez_fe2_from_fe(ez_op_limbs_at(P + b->pg, b->ng, i));
    a->MR = ez_fe2_from_fe(ez_op_limbs_at(P + b->pMR, b->nm, i));
    a->MG = ez_fe2_from_fe(ez_op_limbs_at(P + b->pMG, b->nm, i));
    a->W = ez_fe2_from_fe(ez_op_limbs_at(P + b->pW, b->nw, i));
    a->Z = ez_fe2_from_fe(P[b->pZ][i]);
    a->RG = ez_fe2_from_fe(P[b->pRG][i]);
}

void ez_rsq_lin(const ez_rsq *b, const ez_fe2 *beta, const ez_rsq_atoms *a, ez_fe2 V, ez_fe2 S, ez_fe2 out[3])
{
    const ez_fe2 *B = beta;
    ez_fe2 t;
    /* Lin0 = b1 (V + MR) + b4 (MG + S + MR) + b5 (W - 4V + 4S - 65539 Z) - b6 Z - b3 2^kmax S + b7 RG */
    ez_fe2 l0 = ez_fe2_mul(B[EZ_RSQ_B1], ez_fe2_add(V, a->MR));
    l0 = ez_fe2_add(l0, ez_fe2_mul(B[EZ_RSQ_B4], ez_fe2_add(ez_fe2_add(a->MG, S), a->MR)));
    t = ez_fe2_sub(a->W, ez_fe2_mul_fe(V, 4));
    t = ez_fe2_add(t, ez_fe2_mul_fe(S, 4));
    t = ez_fe2_sub(t, ez_fe2_mul_fe(a->Z, 65539));
    l0 = ez_fe2_add(l0, ez_fe2_mul(B[EZ_RSQ_B5], t));
    l0 = ez_fe2_sub(l0, ez_fe2_mul(B[EZ_RSQ_B6], a->Z));
    l0 = ez_fe2_sub(l0, ez_fe2_mul(B[EZ_RSQ_B3], ez_fe2_mul_fe(S, ez_fe_pow(2, b->kmax))));
    l0 = ez_fe2_add(l0, ez_fe2_mul(B[EZ_RSQ_B7], a->RG));
    /* LinB = -b1 M - b4 + 65535 b5 + b6 Z (times G^2) */
    ez_fe2 lb = ez_fe2_neg(ez_fe2_mul(B[EZ_RSQ_B1], a->M));
    lb = ez_fe2_sub(lb, B[EZ_RSQ_B4]);
    lb = ez_fe2_add(lb, ez_fe2_mul_fe(B[EZ_RSQ_B5], 65535));
    lb = ez_fe2_add(lb, ez_fe2_mul(B[EZ_RSQ_B6], a->Z));
    /* LinD = b3 G - b7 R (times g) */
    ez_fe2 ld = ez_fe2_sub(ez_fe2_mul(B[EZ_RSQ_B3], a->G), ez_fe2_mul(B[EZ_RSQ_B7], a->R));
    out[0] = l0;
    out[1] = lb;
    out[2] = ld;
}

void ez_rsq_desc(ez_sumcheck_desc *d, unsigned nv, bool extra)
{
    ez_sumcheck_desc_init(d, nv, 1);
    d->nfactors = extra ? 7 : 5;
    d->nterms = extra ? 4 : 3;
    d->term[0].nf = 1, d->term[0].f[0] = 0;
    d->term[1].nf = 3, d->term[1].f[0] = 1, d->term[1].f[1] = 1, d->term[1].f[2] = 2;
    d->term[2].nf = 2, d->term[2].f[0] = 3, d->term[2].f[1] = 4;
    d->term[3].nf = 2, d->term[3].f[0] = 5, d->term[3].f[1] = 6;
    d->eq_vars = nv == 0 ? 0 : nv >= 64 ? UINT64_MAX : (UINT64_C(1) << nv) - 1;
}

void ez_rsq_relations(ez_margins *m, size_t op, const ez_rsq *b, const char *vdesc, ez_i128 vhi)
{
    ez_i128 lo, hi, four_k = (ez_i128)1 << (2 * b->kmax), two_k = (ez_i128)1 << b->kmax;
    char what[96];
    /* L3 first: with G, g in [0, 2^bg), G g = 2^kmax over Z makes G = 2^k, k <= kmax (§4) */
    ez_rel_begin(m, op, "G g = 2^kmax");
    ez_rel_unsigned(b->bg, &lo, &hi);
    ez_rel_term(m, "G g", 1, 0, 0, hi * hi);
    ez_rel_term(m, "2^kmax", -1, b->kmax, 1, 1);
    ez_rel_end(m);
    /* L1: V = M 4^k - mrem, M < 2^16 (the table's rows), 4^k <= 4^kmax */
    snprintf(what, sizeof what, "%s = M 4^k - mrem", vdesc);
    ez_rel_begin(m, op, what);
    ez_rel_term(m, "V", 1, 0, 0, vhi);
    ez_rel_term(m, "M 4^k", -1, 0, 0, (((ez_i128)1 << EZ_TABLE_BITS) - 1) * four_k);
    ez_rel_unsigned(b->bm, &lo, &hi);
    ez_rel_term(m, "mrem", 1, 0, lo, hi);
    ez_rel_end(m);
    /* L4: mg + 1 + mrem = 4^k */
    ez_rel_begin(m, op, "mg + 1 + mrem = 4^k");
    ez_rel_term(m, "mg", 1, 0, lo, hi);
    ez_rel_term(m, "1", 1, 0, 1, 1);
    ez_rel_term(m, "mrem", 1, 0, lo, hi);
    ez_rel_term(m, "4^k", -1, 0, 1, four_k);
    ez_rel_end(m);
    /* L5 where k > 0 (L6 makes Z = 0 there): w = 4 V - 65535 4^k - 4 */
    ez_rel_begin(m, op, "k > 0: w = 4 V - 65535 4^k - 4");
    ez_rel_unsigned(b->bw, &lo, &hi);
    ez_rel_term(m, "w", 1, 0, lo, hi);
    ez_rel_term(m, "V", -1, 2, 0, vhi);
    ez_rel_term(m, "65535 4^k", 65535, 0, 4, four_k);
    ez_rel_term(m, "4", 1, 0, 4, 4);
    ez_rel_end(m);
    /* L7: rg = R g, R in [0, 2^23] (the table's entries), g <= 2^kmax: rg is this integer */
    ez_rel_begin(m, op, "rg = R g");
    ez_rel_term(m, "rg", 1, 0, 0, ((ez_i128)1 << EZ_RSQRT_TABLE_SCALE) * two_k);
    ez_rel_term(m, "R g", -1, 0, 0, ((ez_i128)1 << EZ_RSQRT_TABLE_SCALE) * two_k);
    ez_rel_end(m);
}

/* ---- RSQRT: shape ------------------------------------------------------------------------ */

typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    unsigned rank, n;
    unsigned in_of[EZ_MAX_RANK];                  /* output axis b is input axis in_of[b] */
    unsigned nv[EZ_MAX_RANK], off[EZ_MAX_RANK];   /* per output axis */
    unsigned ioff[EZ_MAX_RANK];                   /* per input axis: its block in the input's point */
    uint64_t lenE;
    unsigned e;      /* se - s: 0 or 1 */
    unsigned bx, nx; /* width and limbs of u */
    int sh;          /* y = floor(RG / 2^sh) (sh <= 0: RG 2^-sh) */
    ez_rsq blk;
    unsigned pZ, pU, pXP, npolys; /* local ids: z, u's limbs, xp, then the block */
} rq_shape;

/* The largest V: the input's bound moved to the even scale se. */
static uint64_t rq_vmax(const ez_plan *p, const ez_plan_op *o)
{
    uint64_t B = p->tensors[o->in[0]].bound;
    unsigned e = o->in_scale & 1;
    return B >= (UINT64_C(1) << 62) ? UINT64_MAX : B << e;
}

/* sh = 23 + kmax - out_scale - se/2 (§5). */
static int rq_shift(const ez_plan_op *o, unsigned kmax)
{
    unsigned se = o->in_scale + (o->in_scale & 1);
    return EZ_RSQRT_TABLE_SCALE + (int)kmax - (int)o->out_scale - (int)(se / 2);
}

static ez_status rq_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    rq_shape *s = (rq_shape *)base;
    const ez_plan_op *o = base->o;
    if (o->kind != EZ_OP_RSQRT || o->nin != 1)
        return ez_op_unsupported(d, o, "rsqrt", "not a one-operand rsqrt");
    s->rank = s->base.to->rank;
    if (s->base.ti->rank != s->rank)
        return ez_op_unsupported(d, o, "rsqrt", "the input's axes differ from the output's (broadcast)");
    if (ez_op_axes_pos(s->in_of, o, s->base.v.op.in_axes[0], s->base.ti, s->base.to, 0) != EZ_OP_AXES_OK)
        return ez_op_unsupported(d, o, "rsqrt", "the input's axes differ from the output's");
    for (unsigned b = 0; b < s->rank; b++)
        s->nv[b] = ez_log2_ceil(s->base.to->dims[b]);
    s->n = ez_op_axis_offsets(s->off, s->base.to);
    ez_op_axis_offsets(s->ioff, s->base.ti);
    s->lenE = ez_advice_padlen(s->base.to);
    if (s->n > EZ_SC_MAX_VARS || s->lenE > EZ_ADV_MAX_PADLEN)
        return ez_op_unsupported(d, o, "rsqrt", "the tensor is too large for one zero-check");
    uint64_t B = p->tensors[o->in[0]].bound, vmax = rq_vmax(p, o);
    if (o->in_scale > 31 || B >= (UINT64_C(1) << 61) || vmax >= (UINT64_C(1) << 62))
        return ez_op_unsupported(d, o, "rsqrt", "the input's bound or scale is beyond 2^61 or 31");
    s->e = o->in_scale & 1;
    s->bx = B ? ez_bitlen(B) : 1;
    s->nx = ez_rc_nlimbs(s->bx);
    s->pZ = 0;
    s->pU = 1;
    s->pXP = 1 + s->nx;
    if (ez_rsq_init(&s->blk, vmax, 2 + s->nx) != EZ_OK)
        return ez_op_unsupported(d, o, "rsqrt", "the input is too wide for the split");
    s->npolys = 2 + s->nx + s->blk.npolys;
    if (s->npolys > RQ_MAX_POLYS)
        return ez_op_unsupported(d, o, "rsqrt", "too many committed polys");
    s->sh = rq_shift(o, s->blk.kmax);
    if (s->sh > 62)
        return ez_op_unsupported(d, o, "rsqrt", "the output rescale exceeds 2^62");
    if (s->sh < 0 && (unsigned)-s->sh > 62)
        return ez_op_unsupported(d, o, "rsqrt", "the output scale is too large");
    return EZ_OK;
}

static ez_status rsqrt_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    const rq_shape *s = (const rq_shape *)sh;
    size_t first = L->npolys;
    ez_status st = ez_op_add_polys(L, op, s->npolys, s->lenE);
    if (st == EZ_OK)
        st = ez_rsq_range_cols(L, (unsigned)op, first + s->pU, s->nx, s->bx, s->lenE, 0);
    if (st == EZ_OK)
        st = ez_rsq_layout(L, (unsigned)op, &s->blk, first, s->lenE);
    /* y = floor(RG / 2^sh): the remainder and the output's width (§5) */
    if (st == EZ_OK && s->sh > 0)
        st = ez_rc_rescale(L, p, op, (unsigned)s->sh, d);
    return st;
}

/* Where output element f (row-major) lives: its padded cube index and the input view's
 * flat index. */
static void rq_locate(const rq_shape *s, const uint64_t *pstride, const uint64_t *xstride, uint64_t f, uint64_t *pe,
                      uint64_t *xi)
{
    uint64_t rest = f;
    *pe = *xi = 0;
    for (unsigned b = s->rank; b-- > 0;) {
        uint64_t c = rest % s->base.to->dims[b];
        rest /= s->base.to->dims[b];
        *pe += c * pstride[b];
        *xi += c * xstride[s->in_of[b]];
    }
}

static void rq_strides(const rq_shape *s, uint64_t *pstride, uint64_t *xstride)
{
    ez_advice_strides(s->base.to, pstride);
    uint64_t m = 1;
    for (unsigned a = s->rank; a-- > 0;) {
        xstride[a] = m;
        m *= s->base.ti->dims[a];
    }
}

static ez_status rsqrt_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                            const ez_op_shape *sh, bool unchecked, ez_fe **polys, ez_diag *d)
{
    const rq_shape *s = (const rq_shape *)sh;
    ez_status st = EZ_OK;
    size_t first;
    if ((st = ez_op_polys_at(L, op, s->npolys, &first)) != EZ_OK || first == SIZE_MAX)
        goto out; /* SIZE_MAX: a layout without this op's polys (the weight range proof's) */
    const uint64_t numel = ez_plan_tensor_numel(s->base.to);
    uint64_t na[4];
    const int64_t *ak = ez_trace_aux(tr, op, EZ_AUX_NORM_EXP, &na[0]);
    const int64_t *am = ez_trace_aux(tr, op, EZ_AUX_MANTISSA, &na[1]);
    const int64_t *amr = ez_trace_aux(tr, op, EZ_AUX_MANT_REM, &na[2]);
    const int64_t *ar = ez_trace_aux(tr, op, EZ_AUX_RSQRT, &na[3]);
    if (!ak || !am || !amr || !ar || na[0] != numel || na[1] != numel || na[2] != numel || na[3] != numel ||
        !s->base.v.data[0]) {
        ez_diag_set(d, "op '%s': the trace lacks the rsqrt aux arrays", s->base.o->label);
        st = EZ_ERR_INVALID;
        goto out;
    }
    for (unsigned q = 0; q < s->npolys; q++) {
        polys[first + q] = ez_alloc_array(s->lenE, sizeof(ez_fe)); /* z = u = xp = 0 off the tensor */
        if (polys[first + q] == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    }
    ez_fe *const *P = polys + first;
    /* padding entries: the split of V = 0 (k = 0, M = 0), as rsqrt.h requires */
    for (uint64_t i = 0; i < s->lenE; i++)
        ez_rsq_fill(&s->blk, P, i, 0, 0, 0, 0, 0);
    uint64_t pstride[EZ_MAX_RANK], xstride[EZ_MAX_RANK], bad = UINT64_MAX;
    const char *bad_what = NULL;
    rq_strides(s, pstride, xstride);
    const int64_t *x = s->base.v.data[0];
#pragma omp parallel for schedule(static) if (numel > 16384)
    for (uint64_t f = 0; f < numel; f++) {
        uint64_t pe, xi;
        rq_locate(s, pstride, xstride, f, &pe, &xi);
        int64_t xv = x[xi], xp = xv > 0 ? xv : 0;
        P[s->pZ][pe] = xv > 0;
        P[s->pXP][pe] = ez_fe_from_i64(xp);
        const char *what = ez_rsq_fill(&s->blk, P, pe, xp << s->e, ak[f], am[f], amr[f], ar[f]);
        if (!ez_rc_split(ez_fe_from_i64(xv > 0 ? xv - 1 : -xv), s->bx, s->nx, P + s->pU, pe))
            what = "the input's magnitude";
        if (what) {
#pragma omp critical(ez_rsqrt_bad)
            if (f < bad)
                bad = f, bad_what = what;
        }
    }
    if (bad != UINT64_MAX && !unchecked) {
        char where[256];
        ez_exec_format_elem(where, sizeof where, s->base.to, bad);
        ez_diag_set(d, "op '%s': %s of %s is outside its range (the trace is inconsistent)", s->base.o->label, bad_what,
                    where);
        st = EZ_ERR_NUMERIC;
    }
out:
    return st;
}

/* ---- RSQRT: the reduction (both sides) ----------------------------------------------------- */

/* The extra coefficients of RSQRT's zero-check (§5): z^2 - z = 0, u - 2 z x + z + x = 0,
 * xp - z x = 0. */
enum { RQ_BZ = EZ_RSQ_NB, RQ_BU, RQ_BXP, RQ_NB };

/* Local poly q at pt: the prover evaluates, both add the claim. */
static ez_status rq_claim(ez_pctx *c, size_t first, const rq_shape *s, unsigned q, const ez_fe2 *pt, ez_fe2 v)
{
    return ez_pctx_claim_advice(c, first + q, pt, ez_log2_ceil(s->lenE), v);
}

/* The factors of the zero-check at one point (§5): Lin0 (the block's, plus the linear
 * parts of the sign relations), G, LinB, g, LinD, z, LinE, where
 *     bZ (z^2 - z) + bU (u - 2 z x + z + x) + bXP (xp - z x)
 *       = z LinE + [-bZ z + bU (u + z + x) + bXP xp],   LinE = bZ z - (2 bU + bXP) x. */
static void rq_factors(const rq_shape *s, const ez_fe2 *beta, const ez_rsq_atoms *a, ez_fe2 x, ez_fe2 z, ez_fe2 u,
                       ez_fe2 xp, ez_fe2 S, ez_fe2 f[7])
{
    ez_fe2 lin[3], V = ez_fe2_mul_fe(xp, 1u << s->e);
    ez_rsq_lin(&s->blk, beta, a, V, S, lin);
    ez_fe2 l0 = ez_fe2_sub(lin[0], ez_fe2_mul(beta[RQ_BZ], z));
    l0 = ez_fe2_add(l0, ez_fe2_mul(beta[RQ_BU], ez_fe2_add(ez_fe2_add(u, z), x)));
    l0 = ez_fe2_add(l0, ez_fe2_mul(beta[RQ_BXP], xp));
    ez_fe2 le = ez_fe2_mul(beta[RQ_BZ], z);
    le = ez_fe2_sub(le, ez_fe2_mul(ez_fe2_add(ez_fe2_add(beta[RQ_BU], beta[RQ_BU]), beta[RQ_BXP]), x));
    f[0] = l0;
    f[1] = a->G;
    f[2] = lin[1];
    f[3] = a->g;
    f[4] = lin[2];
    f[5] = z;
    f[6] = le;
}

static ez_status rq_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    const rq_shape *s = (const rq_shape *)sh;
    ez_status st = EZ_OK;
    ez_fe *tabs[3] = {NULL}; /* G, g, z */
    ez_fe2 *lins[4] = {NULL}; /* Lin0, LinB, LinD, LinE */
    ez_fe *X = NULL;
    ez_claim kc = {0};
    size_t first;
    if ((st = ez_op_reduce_begin(c, op, s->npolys, s->n, out, "rsqrt/out", &first)) != EZ_OK)
        goto out;
    const unsigned n = s->n;

    /* 1. the rescale (§5): rho = R'~(r), then RG~(r) = 2^sh v + rho is a claim */
    ez_fe2 rg, rho;
    if ((st = ez_op_unrescale(c, op, s->base.to, out, s->sh, "rsqrt/rem", &rg, &rho)) != EZ_OK)
        goto out;
    if ((st = rq_claim(c, first, s, s->blk.pRG, out->point, rg)) != EZ_OK)
        goto out;

    /* 2. the zero-check of the split's relations (§5) */
    ez_fe2 zeta[EZ_PROVE_MAX_VARS], beta[RQ_NB];
    ez_transcript_challenges_fe2(c->t, "rsqrt/zeta", zeta, n);
    ez_transcript_challenges_fe2(c->t, "rsqrt/beta", beta, RQ_NB);
    ez_sumcheck_desc desc;
    ez_rsq_desc(&desc, n, true);
    ez_sumcheck_factor fac[7];
    if (c->prover) {
        const uint64_t N = UINT64_C(1) << n, lenE = s->lenE;
        ez_fe *const *P = c->advice + first;
        X = ez_alloc_array(N, sizeof *X);
        for (int j = 0; j < 3; j++)
            tabs[j] = ez_alloc_aligned(N, sizeof(ez_fe));
        for (int j = 0; j < 4; j++)
            lins[j] = ez_alloc_aligned(N, sizeof(ez_fe2));
        if (!X || !tabs[0] || !tabs[1] || !tabs[2] || !lins[0] || !lins[1] || !lins[2] || !lins[3]) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        uint64_t pstride[EZ_MAX_RANK], xstride[EZ_MAX_RANK];
        rq_strides(s, pstride, xstride);
        const uint64_t numel = ez_plan_tensor_numel(s->base.to);
        for (uint64_t f = 0; f < numel; f++) {
            uint64_t pe, xi;
            rq_locate(s, pstride, xstride, f, &pe, &xi);
            X[pe] = ez_fe_from_i64(s->base.v.data[0][xi]);
        }
#pragma omp parallel for schedule(static) if (N >= 4096) /* dozens of field operations per entry */
        for (uint64_t i = 0; i < N; i++) {
            ez_rsq_atoms a;
            ez_fe z = 0, u = 0, xp = 0;
            if (i < lenE) {
                ez_rsq_atoms_at(&s->blk, P, i, &a);
                z = P[s->pZ][i];
                u = ez_op_limbs_at(P + s->pU, s->nx, i);
                xp = P[s->pXP][i];
            } else {
                memset(&a, 0, sizeof a);
            }
            ez_fe2 f[7];
            rq_factors(s, beta, &a, ez_fe2_from_fe(X[i]), ez_fe2_from_fe(z), ez_fe2_from_fe(u), ez_fe2_from_fe(xp),
                       ez_fe2_from_fe(i < lenE), f);
            lins[0][i] = f[0];
            lins[1][i] = f[2];
            lins[2][i] = f[4];
            lins[3][i] = f[6];
            tabs[0][i] = f[1].c0; /* G, g, z are base-field entries */
            tabs[1][i] = f[3].c0;
            tabs[2][i] = z;
        }
        fac[0] = (ez_sumcheck_factor){NULL, lins[0]};
        fac[1] = (ez_sumcheck_factor){tabs[0], NULL};
        fac[2] = (ez_sumcheck_factor){NULL, lins[1]};
        fac[3] = (ez_sumcheck_factor){tabs[1], NULL};
        fac[4] = (ez_sumcheck_factor){NULL, lins[2]};
        fac[5] = (ez_sumcheck_factor){tabs[2], NULL};
        fac[6] = (ez_sumcheck_factor){NULL, lins[3]};
    }
    ez_fe2 pt[EZ_PROVE_MAX_VARS], ev[7];
    if ((st = ez_op_sumcheck(c, &desc, NULL, zeta, fac, ez_fe2_zero(), pt, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the rsqrt zero-check failed");
        goto out;
    }
    {
        /* x at pt (the input's axis order), then every poly of the op at pt */
        ez_fe2 pin[EZ_PROVE_MAX_VARS], vals[1 + RQ_MAX_POLYS];
        for (unsigned b = 0; b < s->rank; b++)
            memcpy(pin + s->ioff[s->in_of[b]], pt + s->off[b], s->nv[b] * sizeof *pin);
        if (c->prover) {
            if ((st = ez_advice_tensor_eval(&vals[0], s->base.v.data[0], s->base.ti, pin)) != EZ_OK)
                goto out;
            for (unsigned q = 0; q < s->npolys; q++)
                vals[1 + q] = ez_mle_eval_fe(c->advice[first + q], (size_t)s->lenE, pt, n);
        }
        if ((st = ez_pctx_msg(c, "rsqrt/atoms", vals, 1 + s->npolys)) != EZ_OK)
            goto out;
        if ((st = ez_claim_set(&kc, pin, n, vals[0])) != EZ_OK || (st = ez_opview_claim(c, &s->base.v, op, 0, &kc)) != EZ_OK)
            goto out;
        ez_claim_clear(&kc);
        for (unsigned q = 0; q < s->npolys; q++)
            if ((st = rq_claim(c, first, s, q, pt, vals[1 + q])) != EZ_OK)
                goto out;
        if (!c->prover) {
            ez_rsq_atoms a;
            ez_rsq_atoms_of(&s->blk, vals + 1 + s->blk.first, &a);
            ez_fe2 f[7];
            rq_factors(s, beta, &a, vals[0], vals[1 + s->pZ], ez_op_limbs_combine(vals + 1 + s->pU, s->nx), vals[1 + s->pXP],
                       ez_mle_prefix(pt, n, s->lenE), f);
            if ((st = ez_op_final_evals(c, f, ev, 7,
                                        "the rsqrt zero-check's final evaluations do not match the committed values")) !=
                EZ_OK)
                goto out;
        }
    }

    /* 3. the remainder's limbs (§5) */
    if (s->sh > 0)
        st = ez_op_rem_claim(c, op, out, rho);
out:
    ez_claim_clear(&kc);
    free(X);
    for (int j = 0; j < 3; j++)
        free(tabs[j]);
    for (int j = 0; j < 4; j++)
        free(lins[j]);
    return st;
}

static uint64_t rsqrt_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const rq_shape *s = (const rq_shape *)sh;
    (void)L;
    ez_sumcheck_desc desc;
    ez_rsq_desc(&desc, s->n, true);
    /* rho and the remainder's limbs 1.., the zero-check, x and the op's polys at its point */
    uint64_t nfe = (s->sh > 0 ? ez_rc_nlimbs((unsigned)s->sh) : 0) + 1 + s->npolys;
    uint64_t b = ez_sumcheck_proof_bytes(&desc) + nfe * EZ_OP_FE2_BYTES;
    return b;
}

/* The relations of docs/protocol-norms.md §5 with their terms' ranges (B the input's
 * bound, kmax of B 2^(se - s)). */
static void rsqrt_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    const rq_shape *s = (const rq_shape *)sh;
    ez_i128 lo, hi, B = (ez_i128)p->tensors[p->ops[op].in[0]].bound;
    /* z^2 = z makes z a bit (in any field); then u = 2 z x - z - x is x - 1 (z = 1) or -x
     * (z = 0), and u in [0, 2^bx) is the sign of x: z = [x > 0] */
    ez_rel_unsigned(s->bx, &lo, &hi);
    ez_rel_begin(m, op, "u = 2 z x - z - x");
    ez_rel_term(m, "u", 1, 0, lo, hi);
    ez_rel_term(m, "z x", -2, 0, -B, B);
    ez_rel_term(m, "z", 1, 0, 0, 1);
    ez_rel_term(m, "x", 1, 0, -B, B);
    ez_rel_end(m);
    /* the split on V = xp 2^e <= B 2^e (xp = z x = max(x, 0) <= B: an integer) */
    ez_rsq_relations(m, op, &s->blk, "xp 2^e", B << s->e);
    /* the output: RG = 2^sh y + R' (sh > 0) with RG <= 2^(23 + kmax) */
    if (s->sh > 0) {
        const ez_plan_tensor *to = &p->tensors[p->ops[op].out];
        ez_rel_begin(m, op, "rg = 2^sh y + r");
        ez_rel_term(m, "rg", 1, 0, 0, (ez_i128)1 << (EZ_RSQRT_TABLE_SCALE + s->blk.kmax));
        ez_rel_signed(to->bits, &lo, &hi);
        ez_rel_term(m, "y", -1, (unsigned)s->sh, lo, hi);
        ez_rel_unsigned((unsigned)s->sh, &lo, &hi);
        ez_rel_term(m, "r", -1, 0, lo, hi);
        ez_rel_end(m);
    }
}

/* ---- execution and the float reference ----------------------------------------------------- */

/* Elementwise rsqrt (docs/semantics.md "rsqrt"): with s_e = in_scale rounded up to even
 * and x_e = x * 2^(s_e - in_scale), y = floor(T[M] * 2^(out + s_e/2 - 23 - k)) where
 * x_e = M * 4^k - mrem; y = 0 for x <= 0. aux rem: the remainder of the proof's one
 * public shift, T[M] 2^(kmax - k) - y 2^sh (0 when sh <= 0), kmax and sh from the plan. */
static ez_status unary_rsqrt(ez_exec_ctx *c, const int64_t *off, uint64_t n)
{
    const ez_plan_op *op = c->op;
    const ez_table *t;
    ez_status st = ez_exec_table(c, &t, EZ_TABLE_RSQRT, EZ_FN_RSQRT, op->in_scale, op->out_scale);
    if (st != EZ_OK)
        return st;
    ez_rsq_cols rc;
    int64_t *rem = ez_exec_aux(c, EZ_AUX_REM, n);
    if (ez_rsq_cols_get(c, n, &rc) != EZ_OK || !rem)
        return EZ_ERR_NOMEM;
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const unsigned se = op->in_scale + (op->in_scale & 1);
    const int base = (int)op->out_scale + (int)(se / 2) - EZ_RSQRT_TABLE_SCALE;
    const unsigned kmax = ez_rsq_kmax(rq_vmax(c->p, op));
    const int sh = rq_shift(op, kmax);
    uint64_t bad = UINT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        int64_t x = in[off[e]];
        int64_t xe = x > 0 ? x << (se - op->in_scale) : 0;
        unsigned k;
        const int64_t r = ez_rsq_cols_set(&rc, t, e, xe, &k);
        int ex = base - (int)k;
        int64_t y, yr = 0;
        if (ex >= 0) {
            if (ex >= 62 ? r != 0 : (r >> (62 - ex)) != 0) {
                bad = e < bad ? e : bad;
                y = 0;
            } else {
                y = r << ex;
            }
        } else {
            y = ez_exec_floor_shift(r, (unsigned)-ex, &yr);
        }
        /* the proof's remainder: RG = r 2^(kmax - k) = 2^sh y + rem (k <= kmax when x is
         * within its bound; otherwise the trace breaks the plan and the prover refuses) */
        if (sh > 0 && k <= kmax && kmax - k < 40)
            yr = (int64_t)((__int128)r * ((__int128)1 << (kmax - k)) - (__int128)y * ((__int128)1 << sh));
        else
            yr = 0;
        out[e] = y;
        rem[e] = yr;
    }
    if (bad != UINT64_MAX) {
        ez_diag_set(c->d, "rsqrt '%s': result too large for the output scale %u", op->label, op->out_scale);
        return EZ_ERR_NUMERIC;
    }
    return EZ_OK;
}

static ez_status rsqrt_exec(ez_exec_ctx *c)
{
    const uint64_t n = ez_plan_tensor_numel(&c->p->tensors[c->op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, c->p, c->op, 0, c->d);
    if (st == EZ_OK)
        st = unary_rsqrt(c, off, n);
    free(off);
    return st;
}

/* The float reference of an elementwise function: f on every element. */
static double rsqrt_f64(const ez_plan *p, const ez_plan_op *op, uint64_t e, double x)
{
    (void)p, (void)op, (void)e;
    return x > 0 ? 1.0 / sqrt(x) : 0.0;
}

static ez_status rsqrt_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_elementwise(p, op, ft, rsqrt_f64, d);
}

const ez_op_def ez_op_rsqrt = {
    .exec = rsqrt_exec,
    .floatref = rsqrt_floatref,
    .shape_size = sizeof(rq_shape),
    .shape_init = rq_shape_init,
    .layout = rsqrt_layout,
    .fill = rsqrt_fill,
    .prove = rq_reduce,
    .verify = rq_reduce,
    .walk_bytes = rsqrt_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = rsqrt_relations,
};

/* SOFTMAX — softmax[t](e), with or without the causal mask, exactly as the integer
 * semantics define it (docs/protocol-softmax.md; docs/semantics.md "Softmax").
 * The protocol and its soundness argument are docs/protocol-softmax.md, cited below as
 * "§n". Summary: over the input's padded cube the op commits per element l, e_lo, w, z,
 * e and the limbs of h, d_r (only when in_scale > 12), q, p; per row the max m, the limbs
 * of count-1, of the reciprocal r and of its remainder rr and g = sigma-1-rr; and the exp
 * table's multiplicities. It proves (a) (l, e_lo) in the exp table (one LogUp-GKR), (b)
 * the limbs in their ranges (the framework's range lookups), (c) one batched zero-check
 * of six pointwise relations, (d) one zero-check z * d = 0, plus three row identities at
 * a random row point (count-1 + [row real] = sum_t z; rr + 2^16 sum_t p + sum_t q =
 * 2^(s+16) [row real]; rr + g + [row real] = sum_t e); the claim on p becomes a claim on
 * the committed p.
 *
 * Notation (per row of the input x over the softmax axis t; S = the public live selector,
 * 1 on real entries that the mask keeps, 0 elsewhere on the padded cube):
 *     d = m - x = d_r + 2^k (l + 2^16 h)      d_r in [0, 2^k), l in [0, 2^16), h in [0, 2^hb)
 *     e = e_lo (1 - h w),  (l, e_lo) in the exp table
 *     sigma = sum_t e,  2^(s+16) = r sigma + rr,  rr in [0, sigma)   (the row reciprocal)
 *     e r = 2^16 p + q,  q in [0, 2^16),  p in [0, 2^(s+1))          (one power-of-two division)
 * The per-element polys live on the op's live support (ez_rowaxis_live_support: the real
 * entries the mask keeps, in dyadic blocks; zero by construction elsewhere, §2
 * "Supports"), the per-row ones in the padded layout of the row shape; the exp
 * multiplicities have 2^16 entries. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/logup.h"
#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"
#include "runtime/ops/rowaxis.h"
#include "runtime/prove/masks.h"
#include "runtime/prove/rangecheck.h"

#define SM_LIMB EZ_ADV_LIMB_BITS
/* B of docs/semantics.md "Softmax": p = floor(e r / 2^B), r = floor(2^(s+B) / sigma).
 * With e <= 2^16, B = 16 keeps p within one unit below floor(e 2^s / sigma) and its
 * remainder q in one 16-bit limb (§4.6). */
#define SM_RECIP_B EZ_SOFTMAX_RECIP_BITS
#define SM_TABLE_ROWS (UINT64_C(1) << EZ_TABLE_BITS)

/* ---- shape ------------------------------------------------------------------------------- */

/* Everything both sides derive from the plan (§2). */
typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    ez_rowaxis g;                 /* the input's element and row cubes */
    unsigned ai;                 /* the mask row i's input axis (masked only) */
    bool masked;
    unsigned out_pos[EZ_MAX_RANK]; /* output axis b is input axis out_pos[b] */
    uint64_t T;                  /* extent of t */
    unsigned k, hb, bsig, bp, bc; /* in_shift and the widths of h, rr/g, p and r, count-1 */
    unsigned nh, ndr, nq, np, nc, nr, nrr; /* limbs of h, d_r (0 when k = 0), q, p, count-1, r, rr/g */
    /* local poly ids (§2): element polys, then row polys */
    unsigned pL, pEL, pW, pZ, pE, pH, pDR, pQ, pP, nelem, pM, pC, pR, pRR, pG, npolys;
} sm_shape;

/* The shape of op `op` past its base (op.h: ops.c fills the base first). */
static ez_status sm_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    sm_shape *s = (sm_shape *)base;
    const ez_plan_op *o = base->o;
    if (o->kind != EZ_OP_SOFTMAX || o->nin != 1)
        return ez_op_unsupported(d, o, "softmax", "not a one-operand softmax");
    s->g.rank = s->base.ti->rank;
    s->masked = o->masked;
    const unsigned *ax = s->base.v.op.in_axes[0];
    if (s->g.rank == 0 || s->base.to->rank != s->g.rank)
        return ez_op_unsupported(d, o, "softmax", "the output's axes differ from the input's");
    if (!ez_op_axes_distinct(ax, s->g.rank))
        return ez_op_unsupported(d, o, "softmax", "an index repeats inside the input");
    s->g.at = ez_op_axis_pos(ax, s->g.rank, o->axis);
    s->ai = s->masked ? ez_op_axis_pos(ax, s->g.rank, o->mask_row) : 0;
    bool have_t = s->g.at < s->g.rank, have_i = s->masked && s->ai < s->g.rank;
    ez_op_axes axes = ez_op_axes_pos(s->out_pos, o, ax, s->base.ti, s->base.to, 0);
    if (axes == EZ_OP_AXES_OTHER)
        return ez_op_unsupported(d, o, "softmax", "the output's axes differ from the input's");
    if (axes == EZ_OP_AXES_EXTENT)
        return ez_op_unsupported(d, o, "softmax", "the output's extents differ from the input's");
    if (!have_t)
        return ez_op_unsupported(d, o, "softmax", "the softmax index is not an axis of the input");
    if (s->masked && (!have_i || o->mask_col != o->axis || s->ai == s->g.at))
        return ez_op_unsupported(d, o, "softmax", "the mask must keep entries with t <= i for another input axis i");
    /* variables and offsets, input axis order (the claim convention of runtime/claim.h) */
    ez_rowaxis_init(&s->g, s->base.ti, s->g.at);
    s->T = s->base.ti->dims[s->g.at];
    if (s->g.n > EZ_SC_MAX_VARS || s->g.lenE > EZ_ADV_MAX_PADLEN || s->T == 0)
        return ez_op_unsupported(d, o, "softmax", "the input is too large for one zero-check");
    /* widths (§2): d < 2^(k + 16 + hb) from the input's bound; sigma <= T 2^16 */
    if (o->in_scale > 62 || o->out_scale > 44)
        return ez_op_unsupported(d, o, "softmax", "scales above 62 (input) or 44 (output)");
    s->k = o->in_scale > EZ_TABLE_RES_SCALE ? o->in_scale - EZ_TABLE_RES_SCALE : 0;
    uint64_t bound = p->tensors[o->in[0]].bound;
    if (bound >= UINT64_C(1) << 62)
        return ez_op_unsupported(d, o, "softmax", "the input's bound is 2^62 or more");
    unsigned bits_d = ez_bitlen(2 * bound);
    s->hb = bits_d > s->k + SM_LIMB ? bits_d - s->k - SM_LIMB : 1;
    if (s->k + SM_LIMB + s->hb > 62)
        return ez_op_unsupported(d, o, "softmax", "the distances to the row max exceed 62 bits");
    if (s->T > (UINT64_C(1) << 40))
        return ez_op_unsupported(d, o, "softmax", "the softmax axis is too long");
    s->bsig = ez_bitlen((s->T << SM_LIMB) - 1);
    s->bp = o->out_scale + 1; /* p <= 2^s and r <= 2^(s+16) / 2^16 = 2^s */
    s->bc = s->T > 1 ? ez_bitlen(s->T - 1) : 1;
    /* 2^(s+16) = r sigma + rr must hold over the integers: (2^bp - 1) 2^bsig + 2^bsig < p;
     * e r = 2^16 p + q needs 2^16 2^bp < p, implied (s <= 44) */
    if (s->bp + s->bsig > 62)
        return ez_op_unsupported(d, o, "softmax", "output scale and row length too large for an exact division");
    s->nh = ez_rc_nlimbs(s->hb);
    s->ndr = s->k ? ez_rc_nlimbs(s->k) : 0;
    s->nq = ez_rc_nlimbs(SM_RECIP_B);
    s->np = ez_rc_nlimbs(s->bp);
    s->nc = ez_rc_nlimbs(s->bc);
    s->nr = s->np;
    s->nrr = ez_rc_nlimbs(s->bsig);
    unsigned q = 0;
    s->pL = q++;
    s->pEL = q++;
    s->pW = q++;
    s->pZ = q++;
    s->pE = q++;
    s->pH = q, q += s->nh;
    s->pDR = q, q += s->ndr;
    s->pQ = q, q += s->nq;
    s->pP = q, q += s->np;
    s->nelem = q;
    s->pM = q++;
    s->pC = q, q += s->nc;
    s->pR = q, q += s->nr;
    s->pRR = q, q += s->nrr;
    s->pG = q, q += s->nrr;
    s->npolys = q;
    return EZ_OK;
}

/* S(x): x is a real entry the mask keeps. */
static inline bool sm_live(const sm_shape *s, uint64_t x)
{
    for (unsigned a = 0; a < s->g.rank; a++)
        if (ez_rowaxis_coord(&s->g, x, a) >= s->base.ti->dims[a])
            return false;
    return !s->masked || ez_rowaxis_coord(&s->g, x, s->g.at) <= ez_rowaxis_coord(&s->g, x, s->ai);
}

/* S~(pt) over the input's variables (closed form, O(n)). */
static ez_fe2 sm_live_eval(const sm_shape *s, const ez_fe2 *pt)
{
    ez_fe2 r = ez_fe2_one();
    for (unsigned a = 0; a < s->g.rank; a++) {
        if (s->masked && (a == s->g.at || a == s->ai))
            continue;
        r = ez_fe2_mul(r, ez_mle_prefix(pt + s->g.off[a], s->g.nv[a], s->base.ti->dims[a]));
    }
    if (s->masked)
        r = ez_fe2_mul(r, ez_softmax_live_mle(pt + s->g.off[s->ai], s->g.nv[s->ai], s->base.ti->dims[s->ai],
                                              pt + s->g.off[s->g.at], s->g.nt, s->T));
    return r;
}

/* ---- layout -------------------------------------------------------------------------------- */

static ez_status softmax_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    const sm_shape *s = (const sm_shape *)sh;
    ez_status st = EZ_OK;
    size_t first = L->npolys;
    /* the element polys live on the live support: no padding, and of a causal op's
     * masked triangle only the entries of its diagonal blocks (§2, "Supports") */
    long sup = -1;
    st = ez_rowaxis_live_support(L, &s->g, s->masked, s->ai, &sup);
    if (st == EZ_OK)
        st = ez_op_add_polys(L, op, s->nelem, sup >= 0 ? ez_advice_support_len(&L->supports[sup]) : s->g.lenE);
    for (unsigned q = 0; q < s->nelem && st == EZ_OK; q++)
        L->polys[first + q].support = sup;
    if (st == EZ_OK)
        st = ez_op_add_polys(L, op, s->npolys - s->nelem, s->g.lenR);
    const struct {
        unsigned first, nl, bits;
        bool row;
    } v[] = {{s->pH, s->nh, s->hb, false}, {s->pDR, s->ndr, s->k, false},   {s->pQ, s->nq, SM_RECIP_B, false},
             {s->pP, s->np, s->bp, false}, {s->pC, s->nc, s->bc, true},     {s->pR, s->nr, s->bp, true},
             {s->pRR, s->nrr, s->bsig, true}, {s->pG, s->nrr, s->bsig, true}};
    for (size_t i = 0; i < sizeof v / sizeof v[0] && st == EZ_OK; i++)
        if (v[i].nl > 0)
            st = ez_rc_limb_cols(L, (unsigned)op, first + v[i].first, v[i].nl, v[i].bits, v[i].row ? s->g.lenR : s->g.lenE);
    /* (l, e_lo) in the model's shared exp table of this input scale (§3.1) */
    unsigned tb;
    if (st == EZ_OK)
        st = ez_advice_func_table(L, EZ_TABLE_SOFTMAX_EXP, EZ_FN_EXP, p->ops[op].in_scale, 0, &tb);
    if (st == EZ_OK && sup < 0) {
        ez_lookup_tuple u = {.table = tb, .op = (unsigned)op, .len = s->g.lenE,
                             .atom = {{false, first + s->pL}, {false, first + s->pEL}}};
        st = ez_advice_add_tuple(L, &u, NULL);
    }
    for (size_t j = 0; sup >= 0 && j < L->supports[sup].npieces && st == EZ_OK; j++) {
        ez_lookup_tuple u = {.table = tb, .op = (unsigned)op, .len = UINT64_C(1) << L->supports[sup].bits[j],
                             .sup = (size_t)sup + 1, .piece = j,
                             .atom = {{false, first + s->pL}, {false, first + s->pEL}}};
        st = ez_advice_add_tuple(L, &u, NULL);
    }
    return st;
}

/* ---- fill (prover) ------------------------------------------------------------------------- */

/* The exp table's columns (l, T[l]) as field elements; checks 0 <= T[l] <= 2^16 (the
 * bound e <= 2^16 the division argument uses, §4). */
static ez_status sm_exp_table(ez_fe **c0, ez_fe **c1, unsigned in_scale, ez_diag *d)
{
    ez_table t;
    memset(&t, 0, sizeof t);
    *c0 = *c1 = NULL;
    ez_status st = ez_table_build_softmax_exp(&t, in_scale, d);
    if (st != EZ_OK)
        return st;
    if (t.n != SM_TABLE_ROWS) {
        ez_table_clear(&t);
        ez_diag_set(d, "softmax: the exp table has %u rows, not 2^16", t.n);
        return EZ_ERR_INTERNAL;
    }
    *c0 = ez_alloc_aligned(SM_TABLE_ROWS, sizeof(ez_fe));
    *c1 = ez_alloc_aligned(SM_TABLE_ROWS, sizeof(ez_fe));
    if (*c0 == NULL || *c1 == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (uint64_t j = 0; j < SM_TABLE_ROWS; j++) {
        if (t.out[j] < 0 || t.out[j] > (INT64_C(1) << EZ_SOFTMAX_EXP_SCALE)) {
            ez_diag_set(d, "softmax: exp table row %llu = %lld is outside [0, 2^16]", (unsigned long long)j,
                        (long long)t.out[j]);
            st = EZ_ERR_INTERNAL;
            goto out;
        }
        (*c0)[j] = j;
        (*c1)[j] = (ez_fe)t.out[j];
    }
out:
    ez_table_clear(&t);
    if (st != EZ_OK) {
        free(*c0);
        free(*c1);
        *c0 = *c1 = NULL;
    }
    return st;
}

/* Where output element f (row-major over the output) lives. */
typedef struct {
    uint64_t pe, xi, pr, rr; /* element cube index, input view flat index, row cube index, exec row */
    uint64_t ct;             /* coordinate along t */
    bool live;
} sm_where;

static void sm_locate(const sm_shape *s, const uint64_t *pstride, const uint64_t *xstride, const uint64_t *rstride,
                      const uint64_t *estride, uint64_t f, sm_where *w)
{
    uint64_t rest = f, ct = 0, ci = 0;
    w->pe = w->xi = w->pr = w->rr = 0;
    for (unsigned b = s->g.rank; b-- > 0;) {
        uint64_t c = rest % s->base.to->dims[b];
        rest /= s->base.to->dims[b];
        unsigned a = s->out_pos[b];
        w->pe += c * pstride[a];
        w->xi += c * xstride[a];
        if (a != s->g.at) {
            w->pr += c * rstride[a];
            w->rr += c * estride[b];
        } else {
            ct = c;
        }
        if (s->masked && a == s->ai)
            ci = c;
    }
    w->ct = ct;
    w->live = !s->masked || ct <= ci;
}

static ez_status softmax_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                             const ez_op_shape *sh, bool unchecked, ez_fe **polys, ez_diag *d)
{
    const sm_shape *s = (const sm_shape *)sh;
    ez_status st = EZ_OK;
    ez_fe *c0 = NULL, *c1 = NULL, *hv = NULL, *dv = NULL, *qv = NULL, *pv = NULL, *cv = NULL, *rcv = NULL;
    ez_fe *rrv = NULL, *gv = NULL, *sig = NULL, *cnt = NULL;
    uint64_t *pos = NULL;
    uint8_t *realrow = NULL;
    const ez_plan_op *o = s->base.o;
    size_t first;
    if ((st = ez_op_polys_at(L, op, s->npolys, &first)) != EZ_OK || first == SIZE_MAX)
        goto out; /* SIZE_MAX: a layout without this op's polys (e.g. the weight range proof's) */
    uint64_t numel = ez_plan_tensor_numel(s->base.to), nrows = numel / s->T, na[4];
    const int64_t *aexp = ez_trace_aux(tr, op, EZ_AUX_EXP, &na[0]);
    const int64_t *arem = ez_trace_aux(tr, op, EZ_AUX_DIV_REM, &na[1]);
    const int64_t *amax = ez_trace_aux(tr, op, EZ_AUX_ROW_MAX, &na[2]);
    const int64_t *arec = ez_trace_aux(tr, op, EZ_AUX_ROW_RECIP, &na[3]);
    const int64_t *px = s->base.v.data[0], *pout = tr->t[o->out];
    if (!aexp || !arem || !amax || !arec || na[0] != numel || na[1] != numel || na[2] != nrows || na[3] != nrows ||
        !px || !pout) {
        ez_diag_set(d, "op '%s': the trace lacks the softmax aux arrays", o->label);
        st = EZ_ERR_INVALID;
        goto out;
    }
    if ((st = sm_exp_table(&c0, &c1, o->in_scale, d)) != EZ_OK)
        goto out;
    /* element polys on the live support: entry j = pos[i] holds cube index i (none
     * outside the support); without one the padded layout, pos[i] = i */
    const long sup = L->polys[first + s->pL].support;
    const uint64_t lenC = L->polys[first + s->pL].len; /* committed entries per element poly */
    for (unsigned q = 0; q < s->npolys; q++) {
        polys[first + q] = ez_alloc_aligned(L->polys[first + q].len, sizeof(ez_fe));
        if (polys[first + q] == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    }
    if (sup >= 0 && (pos = ez_advice_support_pos(&L->supports[sup], s->g.lenE)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
#define SM_AT(i) (pos ? pos[i] : (i))
    ez_fe *const *P = polys + first;
    hv = ez_alloc_aligned(lenC, sizeof *hv);
    dv = ez_alloc_aligned(lenC, sizeof *dv);
    qv = ez_alloc_aligned(lenC, sizeof *qv);
    pv = ez_alloc_aligned(lenC, sizeof *pv);
    cv = ez_alloc_aligned(s->g.lenR, sizeof *cv);
    rcv = ez_alloc_aligned(s->g.lenR, sizeof *rcv);
    rrv = ez_alloc_aligned(s->g.lenR, sizeof *rrv);
    gv = ez_alloc_aligned(s->g.lenR, sizeof *gv);
    /* row sums over the whole row cube: with t the first axis, interior padding of the
     * next axis gives rows beyond the row layout (their sums are 0) */
    uint64_t NR = UINT64_C(1) << s->g.nR;
    sig = ez_alloc_array(NR, sizeof *sig);
    cnt = ez_alloc_array(NR, sizeof *cnt);
    realrow = ez_alloc_array(NR, 1);
    if (!hv || !dv || !qv || !pv || !cv || !rcv || !rrv || !gv || !sig || !cnt || !realrow) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* defaults: every entry that is not live (padding, masked) holds l = 0, e_lo = T[0],
     * h = w = 1 (so 1 - h w = 0 and e = 0), everything else 0 (§2) */
#pragma omp parallel for schedule(static) if (lenC > 65536)
    for (uint64_t i = 0; i < lenC; i++) {
        P[s->pL][i] = 0;
        P[s->pEL][i] = c1[0];
        P[s->pW][i] = 1;
        P[s->pZ][i] = 0;
        P[s->pE][i] = 0;
        hv[i] = 1;
        dv[i] = qv[i] = pv[i] = 0;
    }
    for (uint64_t i = 0; i < s->g.lenR; i++)
        P[s->pM][i] = cv[i] = rcv[i] = rrv[i] = gv[i] = 0;
    uint64_t pstride[EZ_MAX_RANK], rstride_t[EZ_MAX_RANK], rstride[EZ_MAX_RANK], xstride[EZ_MAX_RANK],
        estride[EZ_MAX_RANK];
    ez_advice_strides(s->base.ti, pstride);
    ez_advice_strides(&s->g.rows, rstride_t);
    for (unsigned a = 0, r = 0; a < s->g.rank; a++)
        rstride[a] = a == s->g.at ? 0 : rstride_t[r++];
    uint64_t mx = 1, me = 1;
    for (unsigned a = s->g.rank; a-- > 0;) {
        xstride[a] = mx;
        mx *= s->base.ti->dims[a];
    }
    for (unsigned b = s->g.rank; b-- > 0;) {
        estride[b] = me;
        if (s->out_pos[b] != s->g.at)
            me *= s->base.to->dims[b];
    }
    const uint64_t dlim = UINT64_C(1) << (s->k + SM_LIMB + s->hb);
    const ez_fe inv_hi = ez_fe_inv(ez_fe_pow(2, s->k + SM_LIMB));
    uint64_t bad_d = UINT64_MAX;
#pragma omp parallel for schedule(static) if (numel > 16384)
    for (uint64_t f = 0; f < numel; f++) {
        sm_where w;
        sm_locate(s, pstride, xstride, rstride, estride, f, &w);
        uint64_t i = SM_AT(w.pe);
        ez_fe m = ez_fe_from_i64(amax[w.rr]);
        if (w.ct == 0) { /* one writer per row: t = 0 is live in every row */
            realrow[w.pr] = 1;
            P[s->pM][w.pr] = m;
            rcv[w.pr] = ez_fe_from_i64(arec[w.rr]);
        }
        if (i == EZ_ADV_NOT_COMMITTED)
            continue; /* masked, outside the support: 0 by construction */
        P[s->pE][i] = ez_fe_from_i64(aexp[f]);
        qv[i] = ez_fe_from_i64(arem[f]);
        pv[i] = ez_fe_from_i64(pout[f]);
        if (!w.live)
            continue;
        ez_fe dd = ez_fe_sub(m, ez_fe_from_i64(px[w.xi]));
        ez_fe dr = dd & ((UINT64_C(1) << s->k) - 1), l = (dd >> s->k) & 0xffff, h;
        if (dd < dlim) {
            h = dd >> (s->k + SM_LIMB);
        } else { /* only a tampered row max: x above m */
#pragma omp critical(ez_softmax_bad)
            if (f < bad_d)
                bad_d = f;
            h = ez_fe_mul(ez_fe_sub(ez_fe_sub(dd, dr), l << s->k), inv_hi);
        }
        P[s->pL][i] = l;
        P[s->pEL][i] = c1[l];
        hv[i] = h;
        dv[i] = dr;
        P[s->pZ][i] = dd == 0;
    }
    if (bad_d != UINT64_MAX && !unchecked) {
        char where[256];
        ez_exec_format_elem(where, sizeof where, s->base.to, bad_d);
        ez_diag_set(d, "op '%s': %s lies above its row's max (the trace is inconsistent)", o->label, where);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    /* w = 1/h where h != 0, else 0 (non-live entries: h = w = 1) */
    if (!ez_fe_batch_inv(P[s->pW], hv, lenC, NULL)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* per row: sigma = sum_t e, count = sum_t z (over the whole padded cube) */
    for (uint64_t i = 0; i < s->g.lenE; i++) {
        uint64_t r = ez_rowaxis_row_of(&s->g, i), j = SM_AT(i);
        if (j == EZ_ADV_NOT_COMMITTED)
            continue;
        sig[r] = ez_fe_add(sig[r], P[s->pE][j]);
        cnt[r] = ez_fe_add(cnt[r], P[s->pZ][j]);
    }
    /* per real row: count - 1, and the reciprocal's remainder rr = 2^(s+16) - r sigma
     * and g = sigma - 1 - rr (§2); 0 on the other rows */
    const ez_fe two_sb = ez_fe_pow(2, o->out_scale + SM_RECIP_B);
    for (uint64_t r = 0; r < s->g.lenR; r++) {
        if (!realrow[r])
            continue;
        cv[r] = ez_fe_sub(cnt[r], 1);
        rrv[r] = ez_fe_sub(two_sb, ez_fe_mul(rcv[r], sig[r]));
        gv[r] = ez_fe_sub(ez_fe_sub(sig[r], 1), rrv[r]);
    }
    /* limbs, with the range of every value checked (§2) */
    const struct {
        const ez_fe *v;
        unsigned first, nl, bits;
        bool row;
        const char *what;
    } vals[] = {{hv, s->pH, s->nh, s->hb, false, "the high part of a distance to the row max"},
                {dv, s->pDR, s->ndr, s->k, false, "the low part of a distance to the row max"},
                {qv, s->pQ, s->nq, SM_RECIP_B, false, "a remainder of e r / 2^16"},
                {pv, s->pP, s->np, s->bp, false, "an output"},
                {cv, s->pC, s->nc, s->bc, true, "the count of row maxima minus one"},
                {rcv, s->pR, s->nr, s->bp, true, "a row reciprocal"},
                {rrv, s->pRR, s->nrr, s->bsig, true, "a row reciprocal's remainder"},
                {gv, s->pG, s->nrr, s->bsig, true, "sigma - 1 - a row reciprocal's remainder"}};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        if (vals[k].nl == 0)
            continue;
        uint64_t len = vals[k].row ? s->g.lenR : lenC, bad = UINT64_MAX;
        ez_fe *limbs[EZ_ADV_MAX_LIMBS];
        for (unsigned l = 0; l < vals[k].nl; l++)
            limbs[l] = P[vals[k].first + l];
        for (uint64_t i = 0; i < len; i++)
            if (!ez_rc_split(vals[k].v[i], vals[k].bits, vals[k].nl, limbs, i) && bad == UINT64_MAX)
                bad = i;
        if (bad != UINT64_MAX && !unchecked) {
            ez_diag_set(d, "op '%s': %s (committed entry %llu, value %lld) is outside [0, 2^%u)", o->label,
                        vals[k].what, (unsigned long long)bad, (long long)ez_fe_to_i64(vals[k].v[bad]), vals[k].bits);
            st = EZ_ERR_NUMERIC;
            goto out;
        }
    }
#undef SM_AT
out:
    free(pos);
    free(c0);
    free(c1);
    free(hv);
    free(dv);
    free(qv);
    free(pv);
    free(cv);
    free(rcv);
    free(rrv);
    free(gv);
    free(sig);
    free(cnt);
    free(realrow);
    return st;
}

/* ---- the reduction (both sides) ------------------------------------------------------------ */

/* The batching coefficients of the zero-check (§3). */
enum { B_A, B_B, B_C, B_CS, B_D1, B_E, B_N };

/* Values of one point's atoms (§3): recombined limb values included (rb: the row
 * reciprocal at the point's row part). */
typedef struct {
    ez_fe2 x, m, rb, e, el, l, w, z, h, dr, q, p;
} sm_atoms;

/* The factor values of the big zero-check from atoms (verifier's check, prover's tables). */
static void sm_factors(const sm_shape *s, const ez_fe2 *beta, const sm_atoms *a, ez_fe2 sv, ez_fe2 f[8])
{
    ez_fe2 dval = ez_fe2_add(a->dr, ez_fe2_mul_fe(ez_fe2_add(a->l, ez_fe2_mul_fe(a->h, 1u << SM_LIMB)),
                                                  ez_fe_pow(2, s->k)));
    /* Lin1 = bA (M - X - D) - bD1 Z - bCs E */
    ez_fe2 l1 = ez_fe2_mul(beta[B_A], ez_fe2_sub(ez_fe2_sub(a->m, a->x), dval));
    l1 = ez_fe2_sub(l1, ez_fe2_mul(beta[B_D1], a->z));
    l1 = ez_fe2_sub(l1, ez_fe2_mul(beta[B_CS], a->e));
    /* Lin2 = bB H + bC (E - EL) + bD1 Z + bCs E - bE (2^16 P + Q) */
    ez_fe2 l2 = ez_fe2_mul(beta[B_B], a->h);
    l2 = ez_fe2_add(l2, ez_fe2_mul(beta[B_C], ez_fe2_sub(a->e, a->el)));
    l2 = ez_fe2_add(l2, ez_fe2_mul(beta[B_D1], a->z));
    l2 = ez_fe2_add(l2, ez_fe2_mul(beta[B_CS], a->e));
    l2 = ez_fe2_sub(l2, ez_fe2_mul(beta[B_E], ez_fe2_add(ez_fe2_mul_fe(a->p, 1u << SM_RECIP_B), a->q)));
    /* Lin4 = bC EL - bB H */
    ez_fe2 l4 = ez_fe2_sub(ez_fe2_mul(beta[B_C], a->el), ez_fe2_mul(beta[B_B], a->h));
    f[0] = sv;
    f[1] = l1;
    f[2] = l2;
    f[3] = a->h;
    f[4] = a->w;
    f[5] = l4;
    f[6] = a->e;
    f[7] = a->rb;
}

/* The big zero-check's shape: factors S, Lin1, Lin2, H, W, Lin4, E, Rb; terms
 * S Lin1 + Lin2 + H W Lin4 + bE E Rb, eq on every variable (§3). */
static void sm_desc_a(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 1);
    d->nfactors = 8;
    d->nterms = 4;
    d->term[0].nf = 2, d->term[0].f[0] = 0, d->term[0].f[1] = 1;
    d->term[1].nf = 1, d->term[1].f[0] = 2;
    d->term[2].nf = 3, d->term[2].f[0] = 3, d->term[2].f[1] = 4, d->term[2].f[2] = 5;
    d->term[3].nf = 2, d->term[3].f[0] = 6, d->term[3].f[1] = 7;
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* The attainment zero-check: Z D, eq on every variable (§3). */
static void sm_desc_b(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 2);
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}


/* Add the claim "local poly q at pt = v". */
static ez_status sm_claim(ez_pctx *c, size_t first, const sm_shape *s, unsigned q, const ez_fe2 *pt, ez_fe2 v)
{
    (void)s;
    return ez_pctx_claim_advice(c, first + q, pt, ez_advice_poly_nvars(c->adv, first + q), v);
}

#define SM_NONE EZ_ADV_NOT_COMMITTED

/* Value of local limbed poly group at committed entry i (SM_NONE: not committed, 0). */
static inline ez_fe sm_val(ez_fe *const *P, unsigned firstq, unsigned nl, uint64_t i)
{
    return i == SM_NONE ? 0 : ez_op_limbs_at(P + firstq, nl, i);
}

/* Prover: the factor tables of both zero-checks over the whole cube. */
typedef struct {
    ez_fe *S, *H, *W, *E, *Rb, *Z, *D;
    ez_fe2 *l1, *l2, *l4;
} sm_tables;

static void sm_tables_clear(sm_tables *t)
{
    EZ_FREE_ALL(t->S, t->H, t->W, t->E, t->Rb, t->Z, t->D, t->l1, t->l2, t->l4);
    memset(t, 0, sizeof *t);
}

/* The prover's input values: the trace's x, or, when x's producer is proven on a live
 * support (runtime/prove/live.h: an einsum whose only reader is this softmax), x
 * restricted to it — the tensor its claims are about. Relation A reads x only where S = 1,
 * inside that support, so the zero-check is the same; X(pt) is then a claim on the
 * restricted tensor (docs/protocol-softmax.md §3.3). *owned: a copy to free, or NULL. */
static ez_status sm_input(const ez_pctx *c, const sm_shape *s, const int64_t **x, int64_t **owned)
{
    long ls = ez_advice_live_support(c->adv, s->base.o->in[0]);
    *owned = NULL;
    *x = s->base.v.data[0];
    if (ls < 0)
        return EZ_OK;
    if ((*owned = ez_advice_restrict_i64(*x, s->base.ti, &c->adv->supports[ls])) == NULL)
        return EZ_ERR_NOMEM;
    *x = *owned;
    return EZ_OK;
}

static ez_status sm_tables_build(sm_tables *t, const ez_pctx *c, size_t first, const sm_shape *s, const ez_fe2 *beta,
                                 const int64_t *xin)
{
    memset(t, 0, sizeof *t);
    uint64_t N = UINT64_C(1) << s->g.n;
    ez_fe *const *P = c->advice + first;
    ez_fe *X = ez_alloc_aligned(N, sizeof *X);
    uint64_t *pos = NULL;
    t->S = ez_alloc_aligned(N, sizeof(ez_fe));
    t->H = ez_alloc_aligned(N, sizeof(ez_fe));
    t->W = ez_alloc_aligned(N, sizeof(ez_fe));
    t->E = ez_alloc_aligned(N, sizeof(ez_fe));
    t->Rb = ez_alloc_aligned(N, sizeof(ez_fe));
    t->Z = ez_alloc_aligned(N, sizeof(ez_fe));
    t->D = ez_alloc_aligned(N, sizeof(ez_fe));
    t->l1 = ez_alloc_aligned(N, sizeof(ez_fe2));
    t->l2 = ez_alloc_aligned(N, sizeof(ez_fe2));
    t->l4 = ez_alloc_aligned(N, sizeof(ez_fe2));
    if (!X || !t->S || !t->H || !t->W || !t->E || !t->Rb || !t->Z || !t->D || !t->l1 || !t->l2 || !t->l4) {
        free(X);
        sm_tables_clear(t);
        return EZ_ERR_NOMEM;
    }
    ez_advice_pad_i64(X, xin, s->base.ti, 0);
    memset(X + s->g.lenE, 0, (N - s->g.lenE) * sizeof *X);
    /* pos[i]: the committed entry of element cube index i (the element polys' support),
     * SM_NONE outside it — the entries the commitment fixes to 0 */
    const long sup = c->adv->polys[first + s->pL].support;
    if (sup >= 0 && (pos = ez_advice_support_pos(&c->adv->supports[sup], s->g.lenE)) == NULL) {
        free(X);
        sm_tables_clear(t);
        return EZ_ERR_NOMEM;
    }
    const uint64_t lenE = s->g.lenE, lenR = s->g.lenR;
    const ez_fe two_k = ez_fe_pow(2, s->k);
#pragma omp parallel for schedule(static) if (N >= 4096) /* dozens of field operations per entry */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t r = ez_rowaxis_row_of(&s->g, i), j = i < lenE ? (pos ? pos[i] : i) : SM_NONE;
        bool in = j != SM_NONE;
        ez_fe S = sm_live(s, i), m = r < lenR ? P[s->pM][r] : 0;
        ez_fe rb = r < lenR ? ez_op_limbs_at(P + s->pR, s->nr, r) : 0;
        ez_fe e = in ? P[s->pE][j] : 0, el = in ? P[s->pEL][j] : 0, l = in ? P[s->pL][j] : 0;
        ez_fe z = in ? P[s->pZ][j] : 0, w = in ? P[s->pW][j] : 0;
        ez_fe h = sm_val(P, s->pH, s->nh, j), dr = s->ndr ? sm_val(P, s->pDR, s->ndr, j) : 0;
        ez_fe q = sm_val(P, s->pQ, s->nq, j), p = sm_val(P, s->pP, s->np, j);
        ez_fe dval = ez_fe_add(dr, ez_fe_mul(ez_fe_add(l, ez_fe_mul(h, 1u << SM_LIMB)), two_k));
        t->S[i] = S;
        t->H[i] = h;
        t->W[i] = w;
        t->E[i] = e;
        t->Rb[i] = rb;
        t->Z[i] = z;
        t->D[i] = dval;
        /* the same linear forms as sm_factors, on base-field entries */
        ez_fe a1 = ez_fe_sub(ez_fe_sub(m, X[i]), dval);
        ez_fe2 l1 = ez_fe2_mul_fe(beta[B_A], a1);
        l1 = ez_fe2_sub(l1, ez_fe2_mul_fe(beta[B_D1], z));
        t->l1[i] = ez_fe2_sub(l1, ez_fe2_mul_fe(beta[B_CS], e));
        ez_fe2 l2 = ez_fe2_mul_fe(beta[B_B], h);
        l2 = ez_fe2_add(l2, ez_fe2_mul_fe(beta[B_C], ez_fe_sub(e, el)));
        l2 = ez_fe2_add(l2, ez_fe2_mul_fe(beta[B_D1], z));
        l2 = ez_fe2_add(l2, ez_fe2_mul_fe(beta[B_CS], e));
        t->l2[i] = ez_fe2_sub(l2, ez_fe2_mul_fe(beta[B_E], ez_fe_add(ez_fe_mul(p, 1u << SM_RECIP_B), q)));
        t->l4[i] = ez_fe2_sub(ez_fe2_mul_fe(beta[B_C], el), ez_fe2_mul_fe(beta[B_B], h));
    }
    free(X);
    free(pos);
    return EZ_OK;
}

static ez_status sm_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    const sm_shape *s = (const sm_shape *)sh;
    ez_status st = EZ_OK;
    sm_tables tb;
    ez_claim kc = {0};
    const int64_t *xin = NULL;
    int64_t *xown = NULL;
    memset(&tb, 0, sizeof tb);
    size_t first;
    if ((st = ez_op_reduce_begin(c, op, s->npolys, s->g.n, out, "softmax/out", &first)) != EZ_OK)
        goto out;
    const unsigned n = s->g.n, nR = s->g.nR;
    ez_fe2 half = ez_fe2_from_fe(ez_fe_inv(2));

    /* 1. (l, e_lo) in the exp table: the framework's LogUp over the model's shared exp
     * table (§3.1) left its claims on l and e_lo before the walk. */
    /* 2. the claim on p is a claim on the committed p (§3.2): blocks into input order */
    ez_fe2 rp[EZ_PROVE_MAX_VARS];
    {
        unsigned o_ = 0;
        for (unsigned b = 0; b < s->g.rank; b++) {
            unsigned a = s->out_pos[b];
            memcpy(rp + s->g.off[a], out->point + o_, s->g.nv[a] * sizeof *rp);
            o_ += s->g.nv[a];
        }
    }
    {
        ez_fe2 pl[EZ_ADV_MAX_LIMBS];
        unsigned qs[EZ_ADV_MAX_LIMBS];
        for (unsigned l = 1; l < s->np; l++)
            qs[l - 1] = s->pP + l;
        if ((st = ez_op_atoms_msg(c, first, "softmax/p-limbs", qs, s->np - 1, rp, pl + 1)) != EZ_OK)
            goto out;
        /* limb 0 = v - sum_{l >= 1} 2^(16 l) limb_l */
        pl[0] = ez_fe2_zero();
        ez_fe2 rest = ez_op_limbs_combine(pl, s->np);
        if ((st = sm_claim(c, first, s, s->pP, rp, ez_fe2_sub(out->value, rest))) != EZ_OK)
            goto out;
    }

    /* 3. challenges: the zero-check point and the batching coefficients (§3.3) */
    ez_fe2 rho[EZ_PROVE_MAX_VARS], beta[B_N];
    ez_transcript_challenges_fe2(c->t, "softmax/rho", rho, n);
    ez_transcript_challenges_fe2(c->t, "softmax/beta", beta, B_N);

    /* 4. the big zero-check */
    ez_sumcheck_desc da, db;
    sm_desc_a(&da, n);
    sm_desc_b(&db, n);
    ez_fe2 coeffs[4] = {ez_fe2_one(), ez_fe2_one(), ez_fe2_one(), beta[B_E]};
    ez_fe2 pt[EZ_PROVE_MAX_VARS], ptr[EZ_PROVE_MAX_VARS], ev[8];
    ez_sumcheck_factor fa[8], fb[2];
    if (c->prover) {
        if ((st = sm_input(c, s, &xin, &xown)) != EZ_OK || (st = sm_tables_build(&tb, c, first, s, beta, xin)) != EZ_OK)
            goto out;
        fa[0] = (ez_sumcheck_factor){tb.S, NULL};
        fa[1] = (ez_sumcheck_factor){NULL, tb.l1};
        fa[2] = (ez_sumcheck_factor){NULL, tb.l2};
        fa[3] = (ez_sumcheck_factor){tb.H, NULL};
        fa[4] = (ez_sumcheck_factor){tb.W, NULL};
        fa[5] = (ez_sumcheck_factor){NULL, tb.l4};
        fa[6] = (ez_sumcheck_factor){tb.E, NULL};
        fa[7] = (ez_sumcheck_factor){tb.Rb, NULL};
        fb[0] = (ez_sumcheck_factor){tb.Z, NULL};
        fb[1] = (ez_sumcheck_factor){tb.D, NULL};
    }
    if ((st = ez_op_sumcheck(c, &da, coeffs, rho, fa, ez_fe2_zero(), pt, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            st = ez_op_reject(c, "the softmax zero-check failed");
        goto out;
    }
    ez_rowaxis_point_row(&s->g, ptr, pt);
    {
        /* atoms at pt (§3.3): x, then m and r's limbs at the row point, then the element
         * polys */
        sm_atoms a;
        ez_fe2 xv;
        if (c->prover && (st = ez_advice_tensor_eval(&xv, xin, s->base.ti, pt)) != EZ_OK)
            goto out;
        if ((st = ez_pctx_msg(c, "softmax/x", &xv, 1)) != EZ_OK)
            goto out;
        if ((st = ez_claim_set(&kc, pt, n, xv)) != EZ_OK || (st = ez_opview_claim(c, &s->base.v, op, 0, &kc)) != EZ_OK)
            goto out;
        ez_claim_clear(&kc);
        unsigned qs[EZ_SC_MAX_FACTORS + 5 * EZ_ADV_MAX_LIMBS];
        ez_fe2 vals[EZ_SC_MAX_FACTORS + 5 * EZ_ADV_MAX_LIMBS];
        size_t nq = 0;
        qs[nq++] = s->pM;
        for (unsigned l = 0; l < s->nr; l++)
            qs[nq++] = s->pR + l;
        if ((st = ez_op_atoms_msg(c, first, "softmax/atoms-row", qs, nq, ptr, vals)) != EZ_OK)
            goto out;
        a.x = xv, a.m = vals[0], a.rb = ez_op_limbs_combine(vals + 1, s->nr);
        nq = 0;
        qs[nq++] = s->pE, qs[nq++] = s->pEL, qs[nq++] = s->pL, qs[nq++] = s->pW, qs[nq++] = s->pZ;
        for (unsigned q = s->pH; q < s->nelem; q++) /* H, DR, Q, P limbs (contiguous) */
            qs[nq++] = q;
        if ((st = ez_op_atoms_msg(c, first, "softmax/atoms-a", qs, nq, pt, vals)) != EZ_OK)
            goto out;
        a.e = vals[0], a.el = vals[1], a.l = vals[2], a.w = vals[3], a.z = vals[4];
        const ez_fe2 *lv = vals + 5;
        a.h = ez_op_limbs_combine(lv + (s->pH - s->pH), s->nh);
        a.dr = s->ndr ? ez_op_limbs_combine(lv + (s->pDR - s->pH), s->ndr) : ez_fe2_zero();
        a.q = ez_op_limbs_combine(lv + (s->pQ - s->pH), s->nq);
        a.p = ez_op_limbs_combine(lv + (s->pP - s->pH), s->np);
        if (!c->prover) {
            ez_fe2 f[8];
            sm_factors(s, beta, &a, sm_live_eval(s, pt), f);
            if ((st = ez_op_final_evals(c, f, ev, 8,
                                        "the zero-check's final evaluations do not match the committed values")) != EZ_OK)
                goto out;
        }
    }

    /* 5. attainment: z d = 0 (§3.4) */
    if ((st = ez_op_sumcheck(c, &db, NULL, rho, fb, ez_fe2_zero(), pt, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            st = ez_op_reject(c, "the attainment zero-check failed");
        goto out;
    }
    {
        unsigned qs[1 + 2 * EZ_ADV_MAX_LIMBS];
        ez_fe2 vals[1 + 2 * EZ_ADV_MAX_LIMBS];
        size_t nq = 0;
        qs[nq++] = s->pL;
        for (unsigned q = s->pH; q < s->pQ; q++) /* H, DR limbs */
            qs[nq++] = q;
        if ((st = ez_op_atoms_msg(c, first, "softmax/atoms-b", qs, nq, pt, vals)) != EZ_OK)
            goto out;
        if ((st = sm_claim(c, first, s, s->pZ, pt, ev[0])) != EZ_OK)
            goto out;
        ez_fe2 h = ez_op_limbs_combine(vals + 1, s->nh), dr = s->ndr ? ez_op_limbs_combine(vals + 1 + s->nh, s->ndr) : ez_fe2_zero();
        ez_fe2 dval = ez_fe2_add(dr, ez_fe2_mul_fe(ez_fe2_add(vals[0], ez_fe2_mul_fe(h, 1u << SM_LIMB)),
                                                   ez_fe_pow(2, s->k)));
        if (!c->prover && !ez_fe2_eq(dval, ev[1])) {
            st = ez_op_reject(c, "the attainment zero-check's distance does not match its limbs");
            goto out;
        }
    }

    /* 6. rows, at a random row point zeta (§3.5): count - 1 + R = sum_t z (attainment),
     * rr + 2^16 sum_t p + sum_t q = 2^(s+16) R (the reciprocal: with e r = 2^16 p + q on
     * every entry, sum_t p and q are r sigma / 2^16's), rr + g + R = sum_t e (rr < sigma) */
    {
        ez_fe2 zeta[EZ_PROVE_MAX_VARS], zt[EZ_PROVE_MAX_VARS];
        ez_transcript_challenges_fe2(c->t, "softmax/zeta", zeta, nR);
        ez_rowaxis_point_join(&s->g, zt, zeta, half);
        unsigned qs[1 + 4 * EZ_ADV_MAX_LIMBS];
        ez_fe2 vals[1 + 4 * EZ_ADV_MAX_LIMBS], sums[1 + 2 * EZ_ADV_MAX_LIMBS + 1];
        size_t nq = 0;
        for (unsigned q = s->pC; q < s->npolys; q++) /* C, R (unused here), RR, G limbs */
            if (q < s->pR || q >= s->pRR)
                qs[nq++] = q;
        if ((st = ez_op_atoms_msg(c, first, "softmax/rows", qs, nq, zeta, vals)) != EZ_OK)
            goto out;
        size_t ns = 0;
        qs[ns++] = s->pZ, qs[ns++] = s->pE;
        for (unsigned q = s->pQ; q < s->nelem; q++) /* Q, P limbs */
            qs[ns++] = q;
        if ((st = ez_op_atoms_msg(c, first, "softmax/row-sums", qs, ns, zt, sums)) != EZ_OK)
            goto out;
        const ez_fe two_t = ez_fe_pow(2, s->g.nt);
        ez_fe2 real = ez_rowaxis_rowreal_eval(&s->g, zeta);
        ez_fe2 cnt = ez_op_limbs_combine(vals, s->nc), rr = ez_op_limbs_combine(vals + s->nc, s->nrr),
               g = ez_op_limbs_combine(vals + s->nc + s->nrr, s->nrr);
        ez_fe2 zsum = ez_fe2_mul_fe(sums[0], two_t), esum = ez_fe2_mul_fe(sums[1], two_t);
        ez_fe2 qsum = ez_fe2_mul_fe(ez_op_limbs_combine(sums + 2, s->nq), two_t);
        ez_fe2 psum = ez_fe2_mul_fe(ez_op_limbs_combine(sums + 2 + s->nq, s->np), two_t);
        ez_fe2 rsum = ez_fe2_add(ez_fe2_add(rr, ez_fe2_mul_fe(psum, 1u << SM_RECIP_B)), qsum);
        ez_fe2 rwant = ez_fe2_mul_fe(real, ez_fe_pow(2, s->base.o->out_scale + SM_RECIP_B));
        if (!c->prover && !ez_fe2_eq(ez_fe2_add(cnt, real), zsum)) {
            st = ez_op_reject(c, "a row's maximum is not attained");
            goto out;
        }
        if (!c->prover && !ez_fe2_eq(rsum, rwant)) {
            st = ez_op_reject(c, "a row's reciprocal times its sum plus its remainder is not 2^(s+16)");
            goto out;
        }
        if (!c->prover && !ez_fe2_eq(ez_fe2_add(ez_fe2_add(rr, g), real), esum)) {
            st = ez_op_reject(c, "a row reciprocal's remainder is not below the row's sum");
            goto out;
        }
    }
out:
    ez_claim_clear(&kc);
    sm_tables_clear(&tb);
    free(xown);
    return st;
}

/* ---- execution and the float reference ----------------------------------------------- */

static ez_status softmax_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, op->masked, c->d);
    if (st != EZ_OK)
        return st;
    const ez_table *t;
    st = ez_exec_table(c, &t, EZ_TABLE_SOFTMAX_EXP, EZ_FN_EXP, op->in_scale, EZ_SOFTMAX_EXP_SCALE);
    if (st != EZ_OK)
        goto out;
    int64_t *amax = ez_exec_aux(c, EZ_AUX_ROW_MAX, rows.nrows);
    int64_t *asum = ez_exec_aux(c, EZ_AUX_ROW_SUM, rows.nrows);
    int64_t *aexp = ez_exec_aux(c, EZ_AUX_EXP, n);
    int64_t *arem = ez_exec_aux(c, EZ_AUX_DIV_REM, n);
    int64_t *arec = ez_exec_aux(c, EZ_AUX_ROW_RECIP, rows.nrows);
    if (!amax || !asum || !aexp || !arem || !arec) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const bool masked = op->masked;
    const unsigned s_out = op->out_scale;
#pragma omp parallel for schedule(static) if (rows.nrows * rows.len > 16384)
    for (uint64_t r = 0; r < rows.nrows; r++) {
        const int64_t *x = in + rows.in_off[r];
        const int64_t xs = rows.in_step, os = rows.out_step;
        int64_t *y = out + rows.out_off[r], *ye = aexp + rows.out_off[r];
        int64_t *yr = arem + rows.out_off[r];
        /* m = max over the live entries (masked entries take no part at all) */
        bool any = false;
        int64_t m = 0;
        for (uint64_t j = 0; j < rows.len; j++) {
            if (masked && ez_exec_rows_masked(&rows, r, (int64_t)j))
                continue;
            int64_t v = x[(int64_t)j * xs];
            if (!any || v > m)
                m = v;
            any = true;
        }
        /* e = E(m - x) and sigma = sum e; the max entry has e = 2^16, so sigma > 0 */
        int64_t sigma = 0;
        for (uint64_t j = 0; j < rows.len; j++) {
            int64_t e = 0;
            if (!(masked && ez_exec_rows_masked(&rows, r, (int64_t)j)))
                e = ez_table_softmax_exp(t, (int64_t)((uint64_t)m - (uint64_t)x[(int64_t)j * xs]));
            ye[(int64_t)j * os] = e;
            sigma += e;
        }
        amax[r] = any ? m : 0;
        asum[r] = sigma;
        /* r = floor(2^(s_out+B) / sigma): one integer division per row; then per entry
         * p = floor(e r / 2^B), q = e r mod 2^B (e r <= 2^16 2^s_out <= 2^60) */
        const int64_t rc = sigma ? (int64_t)((UINT64_C(1) << (s_out + SM_RECIP_B)) / (uint64_t)sigma) : 0;
        arec[r] = rc;
        for (uint64_t j = 0; j < rows.len; j++) {
            int64_t prod = ye[(int64_t)j * os] * rc;
            y[(int64_t)j * os] = prod >> SM_RECIP_B;
            yr[(int64_t)j * os] = prod & ((INT64_C(1) << SM_RECIP_B) - 1);
        }
    }
out:
    ez_exec_rows_clear(&rows);
    return st;
}

static void softmax_row_f64(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x, double *y)
{
    const int64_t N = (int64_t)rows->len, xs = rows->in_step, ys = rows->out_step;
    const bool mask = op->masked;
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < N; j++)
        if (!(mask && ez_exec_rows_masked(rows, r, j)) && x[j * xs] > m)
            m = x[j * xs];
    for (int64_t j = 0; j < N; j++) {
        double e = mask && ez_exec_rows_masked(rows, r, j) ? 0.0 : exp(x[j * xs] - m);
        y[j * ys] = e;
        s += e;
    }
    for (int64_t j = 0; j < N; j++)
        y[j * ys] = s > 0 ? y[j * ys] / s : 0.0;
}

static ez_status softmax_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_rows(p, op, ft, op->masked, softmax_row_f64, d);
}

/* The bytes sm_reduce appends, message by message. */
static uint64_t softmax_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const sm_shape *s = (const sm_shape *)sh;
    (void)L;
    ez_sumcheck_desc da, db;
    sm_desc_a(&da, s->g.n);
    sm_desc_b(&db, s->g.n);
    uint64_t nfe = (s->np - 1) + 1 + (1 + s->nr) + 5 + (s->nelem - s->pH) + (1 + s->nh + s->ndr) +
                   (s->nc + 2 * s->nrr) + (2 + s->nq + s->np);
    uint64_t b = ez_sumcheck_proof_bytes(&da) + ez_sumcheck_proof_bytes(&db) + nfe * EZ_OP_FE2_BYTES;
    return b;
}

/* The integer relations of docs/protocol-softmax.md §4, with the ranges the proof gives
 * their terms (B the input's bound; T the row length). */
static void softmax_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    const sm_shape *s = (const sm_shape *)sh;
    ez_i128 B = (ez_i128)p->tensors[p->ops[op].in[0]].bound, T = (ez_i128)s->T, lo, hi;
    const ez_i128 e_max = (ez_i128)1 << EZ_SOFTMAX_EXP_SCALE, sig_max = T * e_max;
    /* A: m - x = d_r + 2^k (l + 2^16 h) on live entries (m equals some x: §4.2) */
    ez_rel_begin(m, op, "m - x = d_r + 2^k (l + 2^16 h)");
    ez_rel_term(m, "m - x", 1, 0, -2 * B, 2 * B);
    ez_rel_unsigned(s->k, &lo, &hi);
    ez_rel_term(m, "d_r", -1, 0, lo, hi);
    ez_rel_unsigned(SM_LIMB, &lo, &hi);
    ez_rel_term(m, "l", -1, s->k, lo, hi);
    ez_rel_unsigned(s->hb, &lo, &hi);
    ez_rel_term(m, "h", -1, s->k + SM_LIMB, lo, hi);
    ez_rel_end(m);
    /* the row sum: sigma = sum_t e with every e in [0, 2^16] */
    ez_rel_begin(m, op, "sigma = sum_t e");
    ez_rel_term(m, "sum_t e", 1, 0, 0, sig_max);
    ez_rel_term(m, "sigma", -1, 0, 0, sig_max);
    ez_rel_end(m);
    /* the row reciprocal: 2^(s+16) = r sigma + rr, r of bp bits (§4.6) */
    const unsigned sb = p->ops[op].out_scale + SM_RECIP_B;
    ez_i128 rlo, rhi, glo, ghi;
    ez_rel_unsigned(s->bp, &rlo, &rhi);
    ez_rel_unsigned(s->bsig, &glo, &ghi);
    ez_rel_begin(m, op, "2^(s+16) = r sigma + rr");
    ez_rel_term(m, "2^(s+16)", 1, sb, 1, 1);
    ez_rel_term(m, "r sigma", -1, 0, 0, rhi * sig_max);
    ez_rel_term(m, "rr", -1, 0, glo, ghi);
    ez_rel_end(m);
    /* summed over t, the element relation below: rr + 2^16 sum_t p + sum_t q = 2^(s+16) */
    ez_rel_begin(m, op, "rr + 2^16 sum_t p + sum_t q = 2^(s+16)");
    ez_rel_term(m, "rr", 1, 0, glo, ghi);
    ez_rel_term(m, "sum_t p", 1, SM_RECIP_B, 0, rhi * T);
    ez_rel_term(m, "sum_t q", 1, 0, 0, (((ez_i128)1 << SM_RECIP_B) - 1) * T);
    ez_rel_term(m, "2^(s+16)", -1, sb, 1, 1);
    ez_rel_end(m);
    /* rr <= sigma - 1: sigma - 1 = rr + g */
    ez_rel_begin(m, op, "sigma - 1 = rr + g");
    ez_rel_term(m, "sigma", 1, 0, 0, sig_max);
    ez_rel_term(m, "rr", -1, 0, glo, ghi);
    ez_rel_term(m, "g", -1, 0, glo, ghi);
    ez_rel_term(m, "1", -1, 0, 1, 1);
    ez_rel_end(m);
    /* the division by 2^16: e r = 2^16 p + q */
    ez_rel_begin(m, op, "e r = 2^16 p + q");
    ez_rel_term(m, "e r", 1, 0, 0, e_max * rhi);
    ez_rel_term(m, "p", -1, SM_RECIP_B, rlo, rhi);
    ez_rel_unsigned(SM_RECIP_B, &lo, &hi);
    ez_rel_term(m, "q", -1, 0, lo, hi);
    ez_rel_end(m);
    /* the row identity: count - 1 + [row real] = sum_t z, count - 1 of bc bits */
    ez_rel_begin(m, op, "count - 1 + 1 = sum_t z");
    ez_rel_unsigned(s->bc, &lo, &hi);
    ez_rel_term(m, "count - 1", 1, 0, lo, hi);
    ez_rel_term(m, "1", 1, 0, 1, 1);
    ez_rel_term(m, "sum_t z", -1, 0, 0, T);
    ez_rel_end(m);
}

const ez_op_def ez_op_softmax = {
    .exec = softmax_exec,
    .floatref = softmax_floatref,
    .shape_size = sizeof(sm_shape),
    .shape_init = sm_shape_init,
    .layout = softmax_layout,
    .fill = softmax_fill,
    .prove = sm_reduce,
    .verify = sm_reduce,
    .walk_bytes = softmax_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = softmax_relations,
};

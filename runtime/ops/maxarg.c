/* maxarg — the row-max argument of MAX and ARGMAX (maxarg.h). The protocol and its
 * soundness argument are docs/protocol-argmax.md, cited below as "§n".
 *
 * Notation (per row y of the input x over the reduced axis t, T its extent, nt = its
 * variables; S the public live selector — 1 on real entries, 0 on padding — and R the
 * real-row selector; B the input's bound):
 *     MAX     D = M - X                          D in [0, 2^bd),        bd = bitlen(2B)
 *     ARGMAX  D = 2^k (M - X) + t - A            D in [0, 2^(bd + k)),  A in [0, 2^k),
 *             k = max(nt, 1)                     M + 2^(wm-1) in [0, 2^wm) (per row)
 *     both    Z (D + 1 - S) = 0 on the cube,  sum_t Z = R per row.
 * The committed polys: per element (the input's padded layout) D's limbs and Z; per row
 * (the padded layout of the row shape, the input's axes without t, in the input's
 * order) M (MAX), or A's limbs and the limbs of M + 2^(wm-1) (ARGMAX). An ARGMAX whose
 * result is a public output (the statement's next tokens) commits neither Z nor A: the
 * verifier reads A from the statement, checks it in [0, T) and evaluates Z = one-hot(A)
 * itself (§3.6); M is then plain (pinned by attainment, not range-checked). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/ops/maxarg.h"
#include "runtime/ops/rowaxis.h"
#include "runtime/prove/rangecheck.h"

/* ---- shape ------------------------------------------------------------------------------- */

/* Everything both sides derive from the plan (§2). */
typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    ez_rowaxis g;                 /* the input's element and row cubes */
    bool arg;                      /* ARGMAX */
    bool pub;                      /* ARGMAX with a public result: A from the statement (§3.6) */
    unsigned out_pos[EZ_MAX_RANK]; /* output axis b is input axis out_pos[b] */
    uint64_t T;                    /* extent of t */
    uint64_t B;                    /* the input's bound */
    unsigned bd, ta, wm;           /* widths of D, A = the key shift k (argmax), M + 2^(wm-1) */
    unsigned nd, na, nm;           /* their limbs (na = 0, nm = 1: a plain M, for MAX and public) */
    bool rowpad;                   /* the row layout has interior padding (§3.5) */
    /* local poly ids (§2): element polys D limbs, Z (not pub); then the row polys: MAX M,
     * ARGMAX A limbs then M's limbs, public ARGMAX M */
    unsigned pD, pZ, nelem, pM, pA, npolys;
} mx_shape;

/* The shape of op `op` past its base (op.h: ops.c fills the base first). */
static ez_status mx_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    mx_shape *s = (mx_shape *)base;
    const ez_plan_op *o = base->o;
    if ((o->kind != EZ_OP_MAX && o->kind != EZ_OP_ARGMAX) || o->nin != 1)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "not a one-operand max or argmax");
    s->arg = o->kind == EZ_OP_ARGMAX;
    s->pub = s->arg && p->tensors[o->out].is_output;
    s->g.rank = s->base.ti->rank;
    const unsigned *ax = s->base.v.op.in_axes[0];
    if (s->g.rank == 0 || s->base.to->rank + 1 != s->g.rank)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the output's axes must be the input's without the reduced one");
    if (!ez_op_axes_distinct(ax, s->g.rank))
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "an index repeats inside the input");
    if ((s->g.at = ez_op_axis_pos(ax, s->g.rank, o->axis)) == s->g.rank)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the reduced index is not an axis of the input");
    ez_op_axes axes = ez_op_axes_pos(s->out_pos, o, ax, s->base.ti, s->base.to, 1u << s->g.at);
    if (axes == EZ_OP_AXES_OTHER)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the output's axes must be the input's without the reduced one");
    if (axes == EZ_OP_AXES_EXTENT)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the output's extents differ from the input's");
    if (s->arg ? o->out_scale != 0 : o->out_scale != o->in_scale)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), s->arg ? "an argmax result must have scale 0" : "a max that changes the scale");
    /* variables and offsets, input axis order (the claim convention of runtime/claim.h) */
    ez_rowaxis_init(&s->g, s->base.ti, s->g.at);
    s->T = s->base.ti->dims[s->g.at];
    s->rowpad = ez_advice_interior_padding(&s->g.rows);
    if (s->T == 0 || s->g.n > EZ_SC_MAX_VARS || s->g.lenE > EZ_ADV_MAX_PADLEN)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the input is too large for one zero-check");
    /* widths (§2): 0 <= m - x <= 2B */
    s->B = p->tensors[o->in[0]].bound;
    if (s->B >= UINT64_C(1) << 61)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the input's bound is 2^61 or more");
    unsigned bdm = s->B ? ez_bitlen(2 * s->B) : 1;
    if (s->arg) {
        /* the key's shift k = max(nt, 1): A in [0, 2^k) and t < T <= 2^k (with k = 0 a
         * one-entry row could claim A = 1 with M = x + 1, §4.2) */
        s->ta = s->g.nt ? s->g.nt : 1;
        s->wm = ez_bitlen(s->B) + 1;
    }
    s->bd = bdm + s->ta;
    if (s->bd > 62)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), s->arg ? "the input's width plus the row length's bits exceed 62"
                                        : "the distances to the row max exceed 62 bits");
    s->nd = ez_rc_nlimbs(s->bd);
    s->na = s->arg && !s->pub ? ez_rc_nlimbs(s->ta) : 0;
    s->nm = s->arg && !s->pub ? ez_rc_nlimbs(s->wm) : 1;
    unsigned q = 0;
    s->pD = q, q += s->nd;
    s->pZ = s->pub ? UINT_MAX : q++;
    s->nelem = q;
    s->pA = q, q += s->na;
    s->pM = q, q += s->nm;
    s->npolys = q;
    return EZ_OK;
}

static uint64_t mx_poly_len(const mx_shape *s, unsigned q)
{
    return q < s->nelem ? s->g.lenE : s->g.lenR;
}

/* ---- layout -------------------------------------------------------------------------------- */

static ez_status maxarg_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    const mx_shape *s = (const mx_shape *)sh;
    size_t first = L->npolys;
    ez_status st = ez_op_add_polys(L, op, s->nelem, s->g.lenE);
    if (st == EZ_OK)
        st = ez_op_add_polys(L, op, s->npolys - s->nelem, s->g.lenR);
    /* D >= 0 on every entry of the input's layout; A and M + 2^(wm-1) on every row */
    if (st == EZ_OK)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pD, s->nd, s->bd, s->g.lenE);
    if (st == EZ_OK && s->arg && !s->pub)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pA, s->na, s->ta, s->g.lenR);
    if (st == EZ_OK && s->arg && !s->pub)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pM, s->nm, s->wm, s->g.lenR);
    return st;
}

/* ---- fill (prover) ------------------------------------------------------------------------- */

/* Where row r of the output (row-major over the output) lives: its entry t = 0 in the
 * element layout and in the input (slice) data, and its row layout index. */
typedef struct {
    uint64_t pstride[EZ_MAX_RANK], xstride[EZ_MAX_RANK], rstride[EZ_MAX_RANK];
} mx_strides;

static void mx_strides_init(const mx_shape *s, mx_strides *z)
{
    uint64_t rs[EZ_MAX_RANK], mx = 1;
    ez_advice_strides(s->base.ti, z->pstride);
    ez_advice_strides(&s->g.rows, rs);
    for (unsigned a = 0, r = 0; a < s->g.rank; a++)
        z->rstride[a] = a == s->g.at ? 0 : rs[r++];
    for (unsigned a = s->g.rank; a-- > 0;) {
        z->xstride[a] = mx;
        mx *= s->base.ti->dims[a];
    }
}

static void mx_locate(const mx_shape *s, const mx_strides *z, uint64_t r, uint64_t *pe, uint64_t *xi, uint64_t *pr)
{
    uint64_t rest = r;
    *pe = *xi = *pr = 0;
    for (unsigned b = s->base.to->rank; b-- > 0;) {
        uint64_t c = rest % s->base.to->dims[b];
        rest /= s->base.to->dims[b];
        unsigned a = s->out_pos[b];
        *pe += c * z->pstride[a];
        *xi += c * z->xstride[a];
        *pr += c * z->rstride[a];
    }
}

static ez_status maxarg_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                             const ez_op_shape *sh, bool unchecked, ez_fe **polys, ez_diag *d)
{
    const mx_shape *s = (const mx_shape *)sh;
    ez_status st = EZ_OK;
    ez_fe *dv = NULL, *av = NULL, *mv = NULL;
    const ez_plan_op *o = s->base.o;
    size_t first;
    if ((st = ez_op_polys_at(L, op, s->npolys, &first)) != EZ_OK || first == SIZE_MAX)
        goto out; /* SIZE_MAX: a layout without this op's polys (e.g. the weight range proof's) */
    uint64_t nrows = ez_plan_tensor_numel(s->base.to), naux = 0;
    const int64_t *aux = ez_trace_aux(tr, op, s->arg ? EZ_AUX_ROW_MAX : EZ_AUX_ROW_ARG, &naux);
    const int64_t *px = s->base.v.data[0], *pout = tr->t[o->out];
    if (!aux || naux != nrows || !px || !pout) {
        ez_diag_set(d, "op '%s': the trace lacks the %s aux array", o->label, s->arg ? "row max" : "row argmax");
        st = EZ_ERR_INVALID;
        goto out;
    }
    for (unsigned q = 0; q < s->npolys; q++)
        if ((polys[first + q] = ez_alloc_aligned(mx_poly_len(s, q), sizeof(ez_fe))) == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    ez_fe *const *P = polys + first;
    dv = ez_alloc_aligned(s->g.lenE, sizeof *dv);
    mv = ez_alloc_aligned(s->g.lenR, sizeof *mv);
    av = ez_alloc_aligned(s->g.lenR, sizeof *av);
    if (!dv || !mv || !av) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* padding entries and rows: D = Z = 0; M = A = 0 (ARGMAX: M's offset encoding) */
    const bool limbed = s->arg && !s->pub;
    const ez_fe moff = limbed ? ez_fe_pow(2, s->wm - 1) : 0;
    ez_fe *zp = s->pub ? NULL : P[s->pZ];
#pragma omp parallel for schedule(static) if (s->g.lenE > 65536)
    for (uint64_t i = 0; i < s->g.lenE; i++) {
        dv[i] = 0;
        if (zp)
            zp[i] = 0;
    }
    for (uint64_t i = 0; i < s->g.lenR; i++)
        mv[i] = moff, av[i] = 0;
    mx_strides z;
    mx_strides_init(s, &z);
    const uint64_t T = s->T, ps = z.pstride[s->g.at], xs = z.xstride[s->g.at];
    const ez_fe two_k = ez_fe_pow(2, s->ta);
    const bool arg = s->arg;
    /* per row the first inconsistency a checked prover reports (UINT64_MAX: none) */
    uint64_t bad_arg = UINT64_MAX, bad_att = UINT64_MAX;
#pragma omp parallel for schedule(dynamic, 1) if (nrows * T > 65536)
    for (uint64_t r = 0; r < nrows; r++) {
        uint64_t pe, xi, pr;
        mx_locate(s, &z, r, &pe, &xi, &pr);
        int64_t m = arg ? aux[r] : pout[r], a = arg ? pout[r] : aux[r];
        ez_fe mf = ez_fe_from_i64(m), af = ez_fe_from_i64(a);
        mv[pr] = ez_fe_add(mf, moff);
        av[pr] = af;
        for (uint64_t t = 0; t < T; t++) {
            ez_fe x = ez_fe_from_i64(px[xi + t * xs]);
            /* MAX: m - x; ARGMAX: 2^k (m - x) + t - a (§2) */
            ez_fe dd = ez_fe_sub(mf, x);
            if (arg)
                dd = ez_fe_sub(ez_fe_add(ez_fe_mul(dd, two_k), t), af);
            dv[pe + t * ps] = dd;
        }
        /* the attainment mark: one entry, at the (claimed) argmax */
        if (a >= 0 && (uint64_t)a < T) {
            if (zp)
                zp[pe + (uint64_t)a * ps] = 1;
            if (dv[pe + (uint64_t)a * ps] != 0) {
#pragma omp critical(ez_maxarg_bad)
                if (r < bad_att)
                    bad_att = r;
            }
        } else {
#pragma omp critical(ez_maxarg_bad)
            if (r < bad_arg)
                bad_arg = r;
        }
    }
    if (!unchecked && (bad_arg != UINT64_MAX || bad_att != UINT64_MAX)) {
        char where[256];
        uint64_t r = bad_arg != UINT64_MAX ? bad_arg : bad_att;
        ez_exec_format_elem(where, sizeof where, s->base.to, r);
        ez_diag_set(d, "op '%s': %s of %s (the trace is inconsistent)", o->label,
                    bad_arg != UINT64_MAX ? "the argmax lies outside the row" : "the max is not attained at the argmax",
                    where);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    if (!limbed)
        memcpy(P[s->pM], mv, s->g.lenR * sizeof *mv);
    /* limbs, with the range of every value checked (§2) */
    const struct {
        const ez_fe *v;
        unsigned first, nl, bits;
        uint64_t len;
        const char *what;
    } vals[] = {{dv, s->pD, s->nd, s->bd, s->g.lenE,
                 arg ? "a distance to the row's (max, argmax): an entry above the max, or tying it before the argmax"
                     : "a distance to the row max: an entry above the max"},
                {av, s->pA, s->na, s->ta, s->g.lenR, "an argmax"},
                {mv, s->pM, s->nm, s->wm, s->g.lenR, "a row max plus its offset"}};
    for (size_t k = 0; k < (limbed ? 3u : 1u) && st == EZ_OK; k++) {
        uint64_t bad = UINT64_MAX;
        ez_fe *limbs[EZ_ADV_MAX_LIMBS];
        const ez_fe *v = vals[k].v;
        const unsigned bits = vals[k].bits, nl = vals[k].nl;
        for (unsigned l = 0; l < nl; l++)
            limbs[l] = P[vals[k].first + l];
#pragma omp parallel for schedule(static) reduction(min : bad) if (vals[k].len > 65536)
        for (uint64_t i = 0; i < vals[k].len; i++)
            if (!ez_rc_split(v[i], bits, nl, limbs, i) && i < bad)
                bad = i;
        if (bad != UINT64_MAX && !unchecked) {
            ez_diag_set(d, "op '%s': %s (entry %llu of the padded layout, value %lld) is outside [0, 2^%u)", o->label,
                        vals[k].what, (unsigned long long)bad, (long long)ez_fe_to_i64(vals[k].v[bad]), vals[k].bits);
            st = EZ_ERR_NUMERIC;
        }
    }
out:
    free(dv);
    free(mv);
    free(av);
    return st;
}

/* ---- the reduction (both sides) ------------------------------------------------------------ */

/* Add the claim "local poly q at pt = v". */
static ez_status mx_claim(ez_pctx *c, size_t first, const mx_shape *s, unsigned q, const ez_fe2 *pt, ez_fe2 v)
{
    return ez_pctx_claim_advice(c, first + q, pt, ez_log2_ceil(mx_poly_len(s, q)), v);
}

/* The claim "limbed value at polys q0 .. q0+nl at pt = v": the prover sends limbs 1.., limb
 * 0 = v - sum_{l >= 1} 2^(16 l) limb_l; one claim per limb. */
static ez_status mx_limbs_claim(ez_pctx *c, size_t first, const mx_shape *s, const char *label, unsigned q0,
                                unsigned nl, const ez_fe2 *pt, ez_fe2 v)
{
    ez_fe2 vals[EZ_ADV_MAX_LIMBS];
    unsigned qs[EZ_ADV_MAX_LIMBS];
    ez_status st;
    for (unsigned l = 1; l < nl; l++)
        qs[l - 1] = q0 + l;
    if ((st = ez_op_atoms_msg(c, first, label, qs, nl - 1, pt, vals + 1)) != EZ_OK)
        return st;
    vals[0] = ez_fe2_zero();
    return mx_claim(c, first, s, q0, pt, ez_fe2_sub(v, ez_op_limbs_combine(vals, nl)));
}

/* Value of local limbed poly group at index i of a layout of len entries (0 beyond). */
static inline ez_fe mx_val(ez_fe *const *P, unsigned firstq, unsigned nl, uint64_t len, uint64_t i)
{
    return i < len ? ez_op_limbs_at(P + firstq, nl, i) : 0;
}

/* The zero-check's shape (§3.2): factors S, A1, Z, L2; terms S A1 + beta Z L2, eq on
 * every variable; degree 3. */
static void mx_desc(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 4);
    d->nterms = 2;
    d->term[0].nf = 2, d->term[0].f[0] = 0, d->term[0].f[1] = 1;
    d->term[1].nf = 2, d->term[1].f[0] = 2, d->term[1].f[1] = 3;
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* The row padding's zero-check (§3.5): factors 1 - R and W, eq on every row variable. */
static void mx_desc_rows(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 2);
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* The value of the linear factor A1 from its atoms (§3.2): MAX M - X - D; ARGMAX
 * D - 2^k (M - X) - tau + A with M = (M + 2^(wm-1)) - 2^(wm-1) (plain M when public). */
static ez_fe2 mx_a1(const mx_shape *s, ez_fe2 m, ez_fe2 x, ez_fe2 dval, ez_fe2 a, ez_fe2 tau)
{
    if (!s->arg)
        return ez_fe2_sub(ez_fe2_sub(m, x), dval);
    ez_fe2 mm = s->pub ? m : ez_fe2_sub(m, ez_fe2_from_fe(ez_fe_pow(2, s->wm - 1)));
    ez_fe2 v = ez_fe2_sub(dval, ez_fe2_mul_fe(ez_fe2_sub(mm, x), ez_fe_pow(2, s->ta)));
    return ez_fe2_add(ez_fe2_sub(v, tau), a);
}

/* Prover: the factor tables of the zero-check over the whole cube. */
typedef struct {
    ez_fe *S, *A1, *Z, *L2;
} mx_tables;

static void mx_tables_clear(mx_tables *t)
{
    EZ_FREE_ALL(t->S, t->A1, t->Z, t->L2);
    memset(t, 0, sizeof *t);
}

static ez_status mx_tables_build(mx_tables *t, const ez_pctx *c, size_t first, const mx_shape *s)
{
    memset(t, 0, sizeof *t);
    const uint64_t N = UINT64_C(1) << s->g.n, NR = UINT64_C(1) << s->g.nR;
    ez_fe *const *P = c->advice + first;
    ez_fe *X = ez_alloc_aligned(N, sizeof *X), *rowv = ez_alloc_aligned(NR, sizeof *rowv);
    uint8_t *real = ez_alloc_aligned(NR, 1);
    /* public ARGMAX: the argmax per row of the row cube from the trace's result (what the
     * statement holds; -1 on padding rows), Z its one-hot */
    int64_t *arow = s->pub ? ez_alloc_aligned(NR, sizeof *arow) : NULL;
    if (s->pub && arow) {
        const int64_t *res = c->tr->t[s->base.o->out];
        mx_strides z;
        mx_strides_init(s, &z);
        for (uint64_t r = 0; r < NR; r++)
            arow[r] = -1;
        for (uint64_t r = 0, nrows = ez_plan_tensor_numel(s->base.to); r < nrows; r++) {
            uint64_t pe, xi, pr;
            mx_locate(s, &z, r, &pe, &xi, &pr);
            arow[pr] = res[r];
        }
    }
    t->S = ez_alloc_aligned(N, sizeof(ez_fe));
    t->A1 = ez_alloc_aligned(N, sizeof(ez_fe));
    t->Z = ez_alloc_aligned(N, sizeof(ez_fe));
    t->L2 = ez_alloc_aligned(N, sizeof(ez_fe));
    if (!X || !rowv || !real || !t->S || !t->A1 || !t->Z || !t->L2 || (s->pub && !arow)) {
        free(X);
        free(rowv);
        free(real);
        free(arow);
        mx_tables_clear(t);
        return EZ_ERR_NOMEM;
    }
    ez_advice_pad_i64(X, s->base.v.data[0], s->base.ti, 0);
    memset(X + s->g.lenE, 0, (N - s->g.lenE) * sizeof *X);
    const uint64_t lenE = s->g.lenE, lenR = s->g.lenR, T = s->T;
    const bool limbed = s->arg && !s->pub;
    const ez_fe two_k = ez_fe_pow(2, s->ta), moff = limbed ? ez_fe_pow(2, s->wm - 1) : 0;
    /* per row of the row cube: real?, and the row term of A1 (MAX: M; ARGMAX: A - 2^k M) */
    for (uint64_t r = 0; r < NR; r++) {
        bool re = true;
        for (unsigned a = 0; a < s->g.rank; a++)
            if (a != s->g.at && ((r >> (s->g.nR - s->g.roff[a] - s->g.nv[a])) & ((UINT64_C(1) << s->g.nv[a]) - 1)) >=
                                  s->base.ti->dims[a])
                re = false;
        real[r] = re;
        if (s->arg) {
            ez_fe m = ez_fe_sub(mx_val(P, s->pM, s->nm, lenR, r), moff);
            ez_fe a = s->pub ? (arow[r] < 0 ? 0 : ez_fe_from_i64(arow[r])) : mx_val(P, s->pA, s->na, lenR, r);
            rowv[r] = ez_fe_sub(a, ez_fe_mul(m, two_k));
        } else {
            rowv[r] = r < lenR ? P[s->pM][r] : 0;
        }
    }
    const unsigned lo = s->g.n - s->g.off[s->g.at] - s->g.nt;
    const uint64_t tmask = (UINT64_C(1) << s->g.nt) - 1;
    const bool arg = s->arg;
#pragma omp parallel for schedule(static) if (N >= 4096) /* dozens of field operations per entry */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t r = ez_rowaxis_row_of(&s->g, i), tt = (i >> lo) & tmask;
        ez_fe S = real[r] && tt < T;
        ez_fe z = arow ? real[r] && arow[r] >= 0 && (uint64_t)arow[r] == tt : i < lenE ? P[s->pZ][i] : 0;
        ez_fe dval = mx_val(P, s->pD, s->nd, lenE, i);
        /* MAX: M - X - D; ARGMAX: D - 2^k (M - X) - t + A = D + 2^k X - t + (A - 2^k M) */
        ez_fe a1 = arg ? ez_fe_add(ez_fe_sub(ez_fe_add(dval, ez_fe_mul(X[i], two_k)), tt), rowv[r])
                       : ez_fe_sub(ez_fe_sub(rowv[r], X[i]), dval);
        t->S[i] = S;
        t->A1[i] = a1;
        t->Z[i] = z;
        t->L2[i] = ez_fe_sub(ez_fe_add(dval, 1), S);
    }
    free(X);
    free(rowv);
    free(real);
    free(arow);
    return EZ_OK;
}

/* Verifier, public ARGMAX (§3.6): the statement's result (decoded into *tmp when the
 * statement holds bytes; the caller frees it), every value checked in [0, T). */
static ez_status mx_pub_values(ez_pctx *c, const mx_shape *s, const int64_t **vals, int64_t **tmp)
{
    const ez_stmt_tensor *x = c->stmt ? ez_statement_find(c->stmt, s->base.o->out) : NULL;
    uint64_t nrows = ez_plan_tensor_numel(s->base.to);
    if (x == NULL || x->n != nrows)
        return ez_op_reject(c, "the argmax's public result is missing from the statement");
    const int64_t *v = ez_stmt_values(x, tmp);
    if (v == NULL)
        return EZ_ERR_NOMEM;
    for (uint64_t r = 0; r < nrows; r++)
        if (v[r] < 0 || (uint64_t)v[r] >= s->T)
            return ez_op_reject(c, "a public argmax lies outside its row");
    *vals = v;
    return EZ_OK;
}

/* Verifier, public ARGMAX: A~(ptr) and Z~(pt) for A = the statement's result and
 * Z = [row real] [t = A(row)], O(rows * n): Z~(pt) = sum_rows eq(ptr, row) eq(pt_t, A). */
static void mx_pub_evals(const mx_shape *s, const int64_t *vals, const ez_fe2 *ptr, const ez_fe2 *pt, ez_fe2 *aval,
                         ez_fe2 *zval)
{
    mx_strides z;
    mx_strides_init(s, &z);
    const ez_fe2 *pt_t = pt + s->g.off[s->g.at];
    ez_fe2 av = ez_fe2_zero(), zv = ez_fe2_zero(), one = ez_fe2_one();
    for (uint64_t r = 0, nrows = ez_plan_tensor_numel(s->base.to); r < nrows; r++) {
        uint64_t pe, xi, pr;
        mx_locate(s, &z, r, &pe, &xi, &pr);
        ez_fe2 w = one, e = one;
        for (unsigned j = 0; j < s->g.nR; j++)
            w = ez_fe2_mul(w, (pr >> (s->g.nR - 1 - j)) & 1 ? ptr[j] : ez_fe2_sub(one, ptr[j]));
        for (unsigned j = 0; j < s->g.nt; j++)
            e = ez_fe2_mul(e, ((uint64_t)vals[r] >> (s->g.nt - 1 - j)) & 1 ? pt_t[j] : ez_fe2_sub(one, pt_t[j]));
        av = ez_fe2_add(av, ez_fe2_mul_fe(w, ez_fe_from_i64(vals[r])));
        zv = ez_fe2_add(zv, ez_fe2_mul(w, e));
    }
    *aval = av;
    *zval = zv;
}

static ez_status mx_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out, ez_maxarg_forge forge,
                           void *fctx)
{
    const mx_shape *s = (const mx_shape *)sh;
    ez_status st = EZ_OK;
    mx_tables tb;
    ez_claim kc = {0};
    ez_fe *rt = NULL, *wt = NULL;
    memset(&tb, 0, sizeof tb);
    size_t first;
    if ((st = ez_op_reduce_begin(c, op, s->npolys, s->g.nR, out, s->arg ? "argmax/out" : "max/out", &first)) != EZ_OK)
        goto out;
    const unsigned n = s->g.n, nR = s->g.nR;

    /* 1. the claim on the output is a claim on the committed M (MAX) or A (ARGMAX) at the
     * point with its blocks in the row layout's (input) axis order (§3.1) */
    ez_fe2 rp[EZ_PROVE_MAX_VARS];
    for (unsigned b = 0, o_ = 0; b < s->base.to->rank; b++) {
        unsigned a = s->out_pos[b];
        if (s->g.nv[a]) /* an axis of extent 1 has no variables (and a point may be NULL) */
            memcpy(rp + s->g.roff[a], out->point + o_, s->g.nv[a] * sizeof *rp);
        o_ += s->g.nv[a];
    }
    const int64_t *pubv = NULL;
    int64_t *pubtmp = NULL;
    if (s->pub) {
        /* public: the verifier evaluates the statement's result itself (§3.6) */
        if (!c->prover) {
            ez_fe2 v;
            if ((st = mx_pub_values(c, s, &pubv, &pubtmp)) != EZ_OK ||
                (st = ez_advice_tensor_eval(&v, pubv, s->base.to, out->point)) != EZ_OK)
                goto out;
            if (!ez_fe2_eq(v, out->value)) {
                st = ez_op_reject(c, "the claim on the argmax is not the statement's");
                goto out;
            }
        }
    } else if (s->arg) {
        st = mx_limbs_claim(c, first, s, "argmax/out-limbs", s->pA, s->na, rp, out->value);
    } else {
        st = mx_claim(c, first, s, s->pM, rp, out->value);
    }
    if (st != EZ_OK)
        goto out;

    /* 2. the zero-check (§3.2): sum_x eq(rho, x) (S A1 + beta Z L2) = 0 */
    ez_fe2 rho[EZ_PROVE_MAX_VARS], beta;
    ez_transcript_challenges_fe2(c->t, "max/rho", rho, n);
    ez_transcript_challenges_fe2(c->t, "max/beta", &beta, 1);
    ez_sumcheck_desc desc;
    mx_desc(&desc, n);
    ez_fe2 coeffs[2] = {ez_fe2_one(), beta};
    ez_fe2 pt[EZ_PROVE_MAX_VARS], ptr[EZ_PROVE_MAX_VARS], ev[4];
    ez_sumcheck_factor f[4];
    if (c->prover) {
        if ((st = mx_tables_build(&tb, c, first, s)) != EZ_OK)
            goto out;
        f[0] = (ez_sumcheck_factor){tb.S, NULL};
        f[1] = (ez_sumcheck_factor){tb.A1, NULL};
        f[2] = (ez_sumcheck_factor){tb.Z, NULL};
        f[3] = (ez_sumcheck_factor){tb.L2, NULL};
        if (forge) {
            ez_fe *const ts[4] = {tb.S, tb.A1, tb.Z, tb.L2};
            forge(fctx, 0, ts, 4, UINT64_C(1) << n);
        }
    }
    st = ez_op_sumcheck(c, &desc, coeffs, rho, f, ez_fe2_zero(), pt, ev);
    mx_tables_clear(&tb);
    if (st != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            st = ez_op_reject(c, "the zero-check of the row maxima failed");
        goto out;
    }
    ez_rowaxis_point_row(&s->g, ptr, pt);
    {
        /* atoms (§3.3): X at pt, the row polys at the row part, D's limbs at pt */
        ez_fe2 xv, vals[3 * EZ_ADV_MAX_LIMBS];
        unsigned qs[3 * EZ_ADV_MAX_LIMBS];
        if (c->prover && (st = ez_advice_tensor_eval(&xv, s->base.v.data[0], s->base.ti, pt)) != EZ_OK)
            goto out;
        if ((st = ez_pctx_msg(c, s->arg ? "argmax/x" : "max/x", &xv, 1)) != EZ_OK)
            goto out;
        if ((st = ez_claim_set(&kc, pt, n, xv)) != EZ_OK || (st = ez_opview_claim(c, &s->base.v, op, 0, &kc)) != EZ_OK)
            goto out;
        ez_claim_clear(&kc);
        size_t nq = 0;
        for (unsigned q = s->nelem; q < s->npolys; q++) /* M, or A's limbs then M's */
            qs[nq++] = q;
        if ((st = ez_op_atoms_msg(c, first, s->arg ? "argmax/rows" : "max/rows", qs, nq, ptr, vals)) != EZ_OK)
            goto out;
        ez_fe2 mval = ez_op_limbs_combine(vals + s->na, s->nm), aval = ez_op_limbs_combine(vals, s->na), zval = ez_fe2_zero();
        if (s->pub && !c->prover)
            mx_pub_evals(s, pubv, ptr, pt, &aval, &zval);
        for (unsigned l = 0; l < s->nd; l++)
            qs[l] = s->pD + l;
        if ((st = ez_op_atoms_msg(c, first, s->arg ? "argmax/d" : "max/d", qs, s->nd, pt, vals)) != EZ_OK)
            goto out;
        ez_fe2 dval = ez_op_limbs_combine(vals, s->nd);
        if (!s->pub && (st = mx_claim(c, first, s, s->pZ, pt, ev[2])) != EZ_OK)
            goto out;
        if (s->pub && !c->prover && !ez_fe2_eq(ev[2], zval)) {
            st = ez_op_reject(c, "the zero-check's mark is not the one-hot of the public argmax");
            goto out;
        }
        if (!c->prover) {
            ez_fe2 sv = ez_rowaxis_real_eval(&s->g, pt);
            ez_fe2 a1 = mx_a1(s, mval, xv, dval, aval, ez_rowaxis_tau_eval(&s->g, pt));
            ez_fe2 l2 = ez_fe2_sub(ez_fe2_add(dval, ez_fe2_one()), sv);
            if (!ez_fe2_eq(ev[0], sv) || !ez_fe2_eq(ev[1], a1) || !ez_fe2_eq(ev[3], l2)) {
                st = ez_op_reject(c, "the zero-check's final evaluations do not match the committed values");
                goto out;
            }
        }
    }

    /* 3. the row identity sum_t Z = R at a random row point (§3.4; a public argmax's Z is
     * a one-hot by construction) */
    if (!s->pub) {
        ez_fe2 zeta[EZ_PROVE_MAX_VARS], zt[EZ_PROVE_MAX_VARS], zs;
        ez_transcript_challenges_fe2(c->t, "max/zeta", zeta, nR);
        ez_rowaxis_point_join(&s->g, zt, zeta, ez_fe2_from_fe(ez_fe_inv(2)));
        unsigned qz = s->pZ;
        if ((st = ez_op_atoms_msg(c, first, "max/zsum", &qz, 1, zt, &zs)) != EZ_OK)
            goto out;
        if (!c->prover && !ez_fe2_eq(ez_fe2_mul_fe(zs, ez_fe_pow(2, s->g.nt)), ez_rowaxis_rowreal_eval(&s->g, zeta))) {
            st = ez_op_reject(c, "a row's attainment marks do not sum to one (its maximum is not attained)");
            goto out;
        }
    }

    /* 4. padding rows inside the row layout hold 0 in the output poly (§3.5; a public
     * argmax commits no output poly) */
    if (s->rowpad && !s->pub) {
        ez_fe2 rhoR[EZ_PROVE_MAX_VARS], pr[EZ_PROVE_MAX_VARS], er[2];
        ez_transcript_challenges_fe2(c->t, "max/rho-rows", rhoR, nR);
        ez_sumcheck_desc dr;
        mx_desc_rows(&dr, nR);
        ez_sumcheck_factor fr[2] = {{NULL, NULL}, {NULL, NULL}};
        if (c->prover) {
            uint64_t NR = UINT64_C(1) << nR;
            rt = ez_alloc_aligned(NR, sizeof *rt);
            wt = ez_alloc_aligned(NR, sizeof *wt);
            if (!rt || !wt) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            ez_fe *const *P = c->advice + first;
            for (uint64_t y = 0; y < NR; y++) {
                bool real = true;
                for (unsigned a = 0; a < s->g.rank; a++)
                    if (a != s->g.at && ((y >> (nR - s->g.roff[a] - s->g.nv[a])) & ((UINT64_C(1) << s->g.nv[a]) - 1)) >=
                                         s->base.ti->dims[a])
                        real = false;
                rt[y] = !real;
                wt[y] = s->arg ? mx_val(P, s->pA, s->na, s->g.lenR, y) : y < s->g.lenR ? P[s->pM][y] : 0;
            }
            fr[0] = (ez_sumcheck_factor){rt, NULL};
            fr[1] = (ez_sumcheck_factor){wt, NULL};
            if (forge) {
                ez_fe *const ts[2] = {rt, wt};
                forge(fctx, 1, ts, 2, NR);
            }
        }
        if ((st = ez_op_sumcheck(c, &dr, NULL, rhoR, fr, ez_fe2_zero(), pr, er)) != EZ_OK) {
            if (st == EZ_ERR_REJECT)
                st = ez_op_reject(c, "the padding rows' zero-check failed");
            goto out;
        }
        if (!c->prover && !ez_fe2_eq(er[0], ez_fe2_sub(ez_fe2_one(), ez_rowaxis_rowreal_eval(&s->g, pr)))) {
            st = ez_op_reject(c, "the padding rows' selector does not match");
            goto out;
        }
        if (s->arg)
            st = mx_limbs_claim(c, first, s, "argmax/pad-limbs", s->pA, s->na, pr, er[1]);
        else
            st = mx_claim(c, first, s, s->pM, pr, er[1]);
    }
out:
    free(pubtmp);
    free(rt);
    free(wt);
    ez_claim_clear(&kc);
    mx_tables_clear(&tb);
    return st;
}

static ez_status maxarg_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    return mx_reduce(c, op, sh, out, NULL, NULL);
}

ez_status ez_maxarg_prove_forged(ez_pctx *c, size_t op, const ez_claim *out, ez_maxarg_forge forge, void *ctx)
{
    if (!c->prover)
        return EZ_ERR_INVALID;
    ez_op_shape *s;
    ez_status st = ez_op_shape_new(&s, c->plan, op, c->tr, c->d);
    if (st == EZ_OK)
        st = mx_reduce(c, op, s, out, forge, ctx);
    ez_op_shape_free(s);
    return st;
}

/* The bytes maxarg_reduce appends, message by message. */
static uint64_t maxarg_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const mx_shape *s = (const mx_shape *)sh;
    (void)L;
    ez_sumcheck_desc desc;
    mx_desc(&desc, s->g.n);
    /* out limbs 1.., X, the row polys, D's limbs, the Z sum (none of A or Z when public) */
    const unsigned alimbs = s->na ? s->na - 1 : 0;
    uint64_t nfe = alimbs + 1 + (s->npolys - s->nelem) + s->nd + (s->pub ? 0 : 1);
    uint64_t b = ez_sumcheck_proof_bytes(&desc);
    if (s->rowpad && !s->pub) {
        ez_sumcheck_desc dr;
        mx_desc_rows(&dr, s->g.nR);
        b += ez_sumcheck_proof_bytes(&dr);
        nfe += alimbs;
    }
    return b + nfe * EZ_OP_FE2_BYTES;
}

/* The integer relations of docs/protocol-argmax.md §4, with the ranges the proof gives
 * their terms. */
static void maxarg_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    const mx_shape *s = (const mx_shape *)sh;
    ez_i128 B = (ez_i128)s->B, lo, hi, dlo, dhi;
    ez_rel_unsigned(s->bd, &dlo, &dhi);
    if (!s->arg) {
        /* on live entries m - x = D, with m = some x (attainment, §4) */
        ez_rel_begin(m, op, "m - x = D");
        ez_rel_term(m, "m", 1, 0, -B, B);
        ez_rel_term(m, "x", -1, 0, -B, B);
        ez_rel_term(m, "D", -1, 0, dlo, dhi);
        ez_rel_end(m);
    } else {
        /* on live entries D = 2^k (M - x) + t - A: M and A range-checked per row, or a
         * public A checked in [0, T) by the verifier and M = the x at A */
        ez_rel_begin(m, op, "D = 2^k (M - x) + t - A");
        ez_rel_term(m, "D", 1, 0, dlo, dhi);
        if (s->pub) /* M = the x at A (attainment), A the statement's, checked in [0, T) */
            lo = -B, hi = B;
        else
            ez_rel_signed(s->wm, &lo, &hi);
        ez_rel_term(m, "M", -1, s->ta, lo, hi);
        ez_rel_term(m, "x", 1, s->ta, -B, B);
        ez_rel_term(m, "t", -1, 0, 0, (ez_i128)s->T - 1);
        if (s->pub)
            lo = 0, hi = (ez_i128)s->T - 1;
        else
            ez_rel_unsigned(s->ta, &lo, &hi);
        ez_rel_term(m, "A", 1, 0, lo, hi);
        ez_rel_end(m);
    }
    if (s->arg && !s->pub) {
        /* the limbs of M + 2^(wm-1) */
        ez_rel_begin(m, op, "M + 2^(wm-1) = sum_l 2^(16 l) limb_l");
        ez_rel_signed(s->wm, &lo, &hi);
        ez_rel_term(m, "M", 1, 0, lo, hi);
        ez_rel_term(m, "2^(wm-1)", 1, s->wm - 1, 1, 1);
        ez_rel_unsigned(s->wm, &lo, &hi);
        ez_rel_term(m, "limbs", -1, 0, lo, hi);
        ez_rel_end(m);
    }
    /* the attainment mark's factor: D + 1 - S is 0 only for D = 0, S = 1 (§4) */
    ez_rel_begin(m, op, "D + 1 - S");
    ez_rel_term(m, "D", 1, 0, dlo, dhi);
    ez_rel_term(m, "1", 1, 0, 1, 1);
    ez_rel_term(m, "S", -1, 0, 0, 1);
    ez_rel_end(m);
}

/* The float reference of a row: its maximum (MAX) or the lowest index of it (ARGMAX). */
static void maxarg_row_f64(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x, double *y)
{
    (void)r;
    double m = x[0];
    int64_t arg = 0;
    for (int64_t j = 1; j < (int64_t)rows->len; j++)
        if (x[j * rows->in_step] > m)
            m = x[j * rows->in_step], arg = j;
    y[0] = op->kind == EZ_OP_ARGMAX ? (double)arg : m;
}

static ez_status maxarg_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_rows(p, op, ft, false, maxarg_row_f64, d);
}

const ez_op_def ez_op_maxarg = {
    .exec = ez_exec_maxarg,
    .floatref = maxarg_floatref,
    .shape_size = sizeof(mx_shape),
    .shape_init = mx_shape_init,
    .layout = maxarg_layout,
    .fill = maxarg_fill,
    .prove = maxarg_reduce,
    .verify = maxarg_reduce,
    .walk_bytes = maxarg_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = maxarg_relations,
};

/* sumcheck_kernels — the prover's round kernels (contracts in sumcheck_internal.h):
 * for one round, the sums over all pairs (i0, i1) of the round polynomial's values at
 * 0..D-1 and its X^D coefficient, with a pending bind of the previous challenge fused
 * into the same pass over memory (sumcheck.c describes the data flow). Specialised
 * instances for the shapes that dominate; the generic ones serve every shape and are
 * the reference the tests compare against. */
#include "config.h"

#include "lib/sumcheck_internal.h"

#include "lib/fe2_vec.h"

#include <string.h>

#define SC_ALWAYS_INLINE static inline __attribute__((always_inline))
/* Rounds with less work than this run on one thread (work: pairs times round_cost, so
 * 1024 pairs of one product f g; waking the second thread costs more below that: at
 * 2048 the walk's main thread did 7 % more, at 512 no less, docs/performance.md). */
#define SC_PAR_WORK (1024 * 12)

/* ---- arithmetic with delayed reduction ---------------------------------------------
 * Round sums are accumulated as unreduced 128-bit products in 192-bit accumulators and
 * reduced once per block: 2^128 = 2^32 * 2^96 = -2^32 (mod p), so an accumulator
 * lo + hi 2^128 is reduce128(lo) - hi 2^32 (hi counts carries: < 2^31 for any block). */
typedef unsigned __int128 sc_u128;
typedef struct {
    sc_u128 lo;
    uint64_t hi;
} sc_acc;

static inline void acc_add(sc_acc *a, sc_u128 v)
{
    sc_u128 s = a->lo + v;
    a->hi += s < v;
    a->lo = s;
}

/* lo + mid 2^64 + hi 2^128 with 2^64 = 2^32 - 1, 2^96 = -1, 2^128 = -2^32 (mod p):
 * = lo + mid_lo (2^32 - 1) - (mid_hi + hi 2^32), and mid_hi + hi 2^32 is the single word
 * (hi << 32) | mid_hi — the same work as a plain 128-bit reduction. That word must
 * stay <= p for the single borrow correction to be exact: hi < 2^32 - 1 (carry counts
 * here are below 2^31). */
static inline ez_fe acc_reduce(const sc_acc *a)
{
    uint64_t lo = (uint64_t)a->lo, mid = (uint64_t)(a->lo >> 64);
    uint64_t sub = (a->hi << 32) | (mid >> 32);
    uint64_t t0;
    uint64_t borrow = __builtin_sub_overflow(lo, sub, &t0);
    t0 -= (0 - borrow) & EZ_EPSILON;
    uint64_t t1 = (mid & EZ_EPSILON) * EZ_EPSILON, t2;
    uint64_t carry = __builtin_add_overflow(t0, t1, &t2);
    t2 += (0 - carry) & EZ_EPSILON;
    return t2 >= EZ_P ? t2 - EZ_P : t2;
}

/* An extension sum: c0 = x00 + 7 x11, c1 = x01. */
typedef struct {
    sc_acc x00, x11, x01;
} sc_acc2;

static inline void acc2_zero(sc_acc2 *a)
{
    memset(a, 0, sizeof *a);
}

static inline void acc2_mul(sc_acc2 *a, ez_fe2 x, ez_fe2 y)
{
    acc_add(&a->x00, (sc_u128)x.c0 * y.c0);
    acc_add(&a->x11, (sc_u128)x.c1 * y.c1);
    acc_add(&a->x01, (sc_u128)x.c0 * y.c1);
    acc_add(&a->x01, (sc_u128)x.c1 * y.c0);
}

static inline void acc2_mul_fe(sc_acc2 *a, ez_fe2 x, ez_fe y)
{
    acc_add(&a->x00, (sc_u128)x.c0 * y);
    acc_add(&a->x01, (sc_u128)x.c1 * y);
}

/* x * E for an E_lo entry with ew = 7 E.c1: c0 into x00 alone, so x11 stays zero. */
static inline void acc2_mul_e(sc_acc2 *a, ez_fe2 e, ez_fe ew, ez_fe2 x)
{
    acc_add(&a->x00, (sc_u128)x.c0 * e.c0);
    acc_add(&a->x00, (sc_u128)x.c1 * ew);
    acc_add(&a->x01, (sc_u128)x.c0 * e.c1);
    acc_add(&a->x01, (sc_u128)x.c1 * e.c0);
}

static inline void acc2_add(sc_acc2 *a, ez_fe2 x)
{
    acc_add(&a->x00, x.c0);
    acc_add(&a->x01, x.c1);
}

static inline ez_fe2 acc2_reduce(const sc_acc2 *a)
{
    return ez_fe2_make(ez_fe_add(acc_reduce(&a->x00), ez_fe_mul_w(acc_reduce(&a->x11))), acc_reduce(&a->x01));
}

/* s = x + y for 128-bit products, reduced: the carry is worth 2^128 = -2^32. */
static inline ez_fe red_sum2(sc_u128 x, sc_u128 y)
{
    sc_acc a = {x, 0};
    acc_add(&a, y);
    return acc_reduce(&a);
}

/* x * y in the extension with two reductions instead of four: both coefficients are
 * formed as exact 192-bit sums (7 x1 y1 split into 64-bit halves) and reduced once. */
static inline ez_fe2 fe2_mulr(ez_fe2 x, ez_fe2 y)
{
    sc_u128 p00 = (sc_u128)x.c0 * y.c0, p11 = (sc_u128)x.c1 * y.c1;
    sc_u128 lo7 = (sc_u128)(uint64_t)p11 * EZ_FE2_W, hi7 = (sc_u128)(uint64_t)(p11 >> 64) * EZ_FE2_W;
    sc_u128 s0 = p00 + lo7;
    uint64_t t0 = s0 < lo7;
    sc_u128 h = hi7 << 64;
    s0 += h;
    t0 += (s0 < h) + (uint64_t)(hi7 >> 64); /* <= 8 */
    sc_acc c0 = {s0, t0};
    return ez_fe2_make(acc_reduce(&c0),
                       red_sum2((sc_u128)x.c0 * y.c1, (sc_u128)x.c1 * y.c0));
}

/* a b + c d: 8 products, 3 reductions (the sum is formed unreduced). */
static inline ez_fe2 fe2_dot2(ez_fe2 a, ez_fe2 b, ez_fe2 c, ez_fe2 d)
{
    sc_acc2 s;
    acc2_zero(&s);
    acc2_mul(&s, a, b);
    acc2_mul(&s, c, d);
    return acc2_reduce(&s);
}

/* x * r for a fixed r with rw = 7 r.c1 precomputed: 4 products, 2 reductions. */
static inline ez_fe2 fe2_mul_pre(ez_fe2 x, ez_fe2 r, ez_fe rw)
{
    return ez_fe2_make(red_sum2((sc_u128)x.c0 * r.c0, (sc_u128)x.c1 * rw),
                       red_sum2((sc_u128)x.c0 * r.c1, (sc_u128)x.c1 * r.c0));
}

/* Round 0 with every factor in the base field: products in F_p, lifted only when
 * multiplied by an extension weight. SIMPLE: one term = product of factors 0..NF-1
 * (its coefficient is applied by the caller after the sum). */
SC_ALWAYS_INLINE void block_base(const ez_sc_round *R, size_t yh, ez_fe2 *acc, unsigned NF, unsigned D,
                                 bool SIMPLE, bool ELO)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw;
    const bool need1 = R->need1, ext_q = !SIMPLE && !R->coef_one;
    if (D >= EZ_SC_NPTS_MAX || NF > EZ_SC_MAX_FACTORS)
        __builtin_unreachable();
    sc_acc ab[EZ_SC_NPTS_MAX];
    sc_acc2 ae[EZ_SC_NPTS_MAX];
    #pragma GCC unroll 8
    for (unsigned k = 0; k <= D; k++) {
        ab[k].lo = 0;
        ab[k].hi = 0;
        acc2_zero(&ae[k]);
    }
    for (size_t yl = 0; yl < nlo; yl++) {
        size_t i0 = ez_sc_spread((yh << R->L) | yl, R->lw), i1 = i0 + w;
        ez_fe v[EZ_SC_MAX_FACTORS][EZ_SC_NPTS_MAX];
        #pragma GCC unroll 8
        for (unsigned j = 0; j < NF; j++) {
            ez_fe a = R->sb[j][i0], b = R->sb[j][i1], df = ez_fe_sub(b, a);
            v[j][0] = a;
            v[j][1] = b;
            #pragma GCC unroll 8
            for (unsigned k = 2; k < D; k++)
                v[j][k] = ez_fe_add(v[j][k - 1], df);
            if (D >= 2)
                v[j][D] = df; /* the point at infinity: leading coefficient */
        }
        #pragma GCC unroll 8
        for (unsigned k = 0; k <= D; k++) {
            if (k == 1 && !need1)
                continue;
            if (SIMPLE && !ELO) {
                /* The last multiply goes unreduced into the accumulator. */
                ez_fe p = v[0][k];
                if (NF == 1) {
                    acc_add(&ab[k], p);
                } else {
                    #pragma GCC unroll 8
                    for (unsigned j = 1; j + 1 < NF; j++)
                        p = ez_fe_mul(p, v[j][k]);
                    acc_add(&ab[k], (sc_u128)p * v[NF - 1][k]);
                }
                continue;
            }
            ez_fe qb = 0;
            ez_fe2 qe = ez_fe2_zero();
            if (SIMPLE) {
                qb = v[0][k];
                #pragma GCC unroll 8
                for (unsigned j = 1; j < NF; j++)
                    qb = ez_fe_mul(qb, v[j][k]);
            } else {
                #pragma GCC unroll 8
                for (unsigned t = 0; t < R->nt; t++) {
                    if (k == D && D >= 2 && R->tnf[t] < D)
                        continue; /* no X^D coefficient */
                    ez_fe p = v[R->tf[t][0]][k];
                    #pragma GCC unroll 8
                    for (unsigned i = 1; i < R->tnf[t]; i++)
                        p = ez_fe_mul(p, v[R->tf[t][i]][k]);
                    if (ext_q)
                        qe = ez_fe2_add(qe, ez_fe2_mul_fe(R->coef[t], p));
                    else
                        qb = ez_fe_add(qb, p);
                }
            }
            if (ext_q) {
                if (ELO)
                    acc2_mul_e(&ae[k], R->elo[yl], R->elow[yl], qe);
                else
                    acc2_add(&ae[k], qe);
            } else if (ELO) {
                acc2_mul_fe(&ae[k], R->elo[yl], qb);
            } else {
                acc_add(&ab[k], qb);
            }
        }
    }
    #pragma GCC unroll 8
    for (unsigned k = 0; k <= D; k++) {
        ez_fe2 b = ez_fe2_add(acc2_reduce(&ae[k]), ez_fe2_from_fe(acc_reduce(&ab[k])));
        acc[k] = ez_fe2_add(acc[k], R->ehi_on ? ez_fe2_mul(R->ehi[yh], b) : b);
    }
}

/* Round 1 for one term f*g of two base inputs, without binding round 0's challenge r
 * into tables first (the small-value optimisation of Bagad, Domb and Thaler, "Speeding
 * Up Sum-Check Proving", ePrint 2025/1117): with w_0 = 1 - r, w_1 = r,
 *   f(r, X, y) g(r, X, y) = sum_{b, b'} w_b w_b' f(b, X, y) g(b', X, y),
 * so the round needs four base-field product sums per point and no table is written;
 * round 2 then binds both challenges at once (EZ_SC_SRC_BIND2_BASE). */
SC_ALWAYS_INLINE void block_sv2(const ez_sc_round *R, size_t yh, ez_fe2 *acc, bool ELO)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw, wp = (size_t)1 << R->lwp;
    /* spread(i0 + w) = spread(i0) + spread(w): the pair's partner in the old table */
    const size_t wo = ez_sc_spread(w, R->lwp);
    const ez_fe *F = R->sb[0], *G = R->sb[1];
    const bool need1 = R->need1;
    sc_acc sb[3][4];
    sc_acc2 se[3][4];
    memset(sb, 0, sizeof sb);
    memset(se, 0, sizeof se);
    for (size_t yl = 0; yl < nlo; yl++) {
        size_t o0 = ez_sc_spread(ez_sc_spread((yh << R->L) | yl, R->lw), R->lwp), o1 = o0 + wo;
        ez_fe f[2][3], g[2][3];
        #pragma GCC unroll 8
        for (unsigned b = 0; b < 2; b++) {
            f[b][0] = F[o0 + b * wp];
            f[b][1] = F[o1 + b * wp];
            f[b][2] = ez_fe_sub(f[b][1], f[b][0]); /* infinity */
            g[b][0] = G[o0 + b * wp];
            g[b][1] = G[o1 + b * wp];
            g[b][2] = ez_fe_sub(g[b][1], g[b][0]);
        }
        #pragma GCC unroll 8
        for (unsigned k = 0; k < 3; k++) {
            if (k == 1 && !need1)
                continue;
            #pragma GCC unroll 8
            for (unsigned c = 0; c < 4; c++) {
                ez_fe x = f[c & 1][k], y = g[c >> 1][k];
                if (ELO)
                    acc2_mul_fe(&se[k][c], R->elo[yl], ez_fe_mul(x, y));
                else
                    acc_add(&sb[k][c], (sc_u128)x * y);
            }
        }
    }
    #pragma GCC unroll 8
    for (unsigned k = 0; k < 3; k++) {
        ez_fe2 q = ez_fe2_zero();
        #pragma GCC unroll 8
        for (unsigned c = 0; c < 4; c++)
            q = ez_fe2_add(q, ELO ? ez_fe2_mul(R->ww[c], acc2_reduce(&se[k][c]))
                                  : ez_fe2_mul_fe(R->ww[c], acc_reduce(&sb[k][c])));
        acc[k] = ez_fe2_add(acc[k], R->ehi_on ? ez_fe2_mul(R->ehi[yh], q) : q);
    }
}

/* ---- fused bind: phase 1 of a pending round ----------------------------------------
 * The pairs of one block cover one contiguous range of current-table indices (when the
 * bound variable sits below the block bits, lw < L) or two ranges of 2^L (lw >= L).
 * Each range is bound in a tight loop, then the evaluation reads the fresh entries from
 * cache: one pass over main memory per round, and few live registers per loop. */

/* IDENT: the old index equals the current one (the pending variable was the top one,
 * as in MSB-first binding), so no index arithmetic per entry. Only the two-challenge
 * bind runs here: the one-challenge binds go to bind_run's lane kernels. */
SC_ALWAYS_INLINE void bind2_range_k(const ez_sc_round *R, unsigned j, size_t start, size_t len, bool IDENT)
{
    /* EZ_SC_SRC_BIND2_BASE: sum_c w4[c] f_c = f_0 + sum_{c>0} w4[c] (f_c - f_0) */
    ez_fe2 *dst = R->dst[j];
    const ez_fe *F = R->sb[j];
    const size_t d1 = R->d1, d2 = R->d2;
    const ez_fe2 w1 = R->w4[1], w2 = R->w4[2], w3 = R->w4[3];
    for (size_t i = start; i < start + len; i++) {
        size_t o = IDENT ? i : ez_sc_spread(ez_sc_spread(i, R->lw2), R->lw1);
        ez_fe f0 = F[o], a = ez_fe_sub(F[o + d1], f0), b = ez_fe_sub(F[o + d2], f0), c = ez_fe_sub(F[o + d1 + d2], f0);
        sc_acc x0 = {(sc_u128)w1.c0 * a, 0}, x1 = {(sc_u128)w1.c1 * a, 0};
        acc_add(&x0, (sc_u128)w2.c0 * b);
        acc_add(&x1, (sc_u128)w2.c1 * b);
        acc_add(&x0, (sc_u128)w3.c0 * c);
        acc_add(&x1, (sc_u128)w3.c1 * c);
        acc_add(&x0, f0);
        dst[i] = ez_fe2_make(acc_reduce(&x0), acc_reduce(&x1));
    }
}

/* One challenge: current entries [start, start + len) from the old pairs (o, o + 2^lwp),
 * o = spread(i, lwp), which run contiguously within each 2^lwp-aligned stretch of i: one
 * lane-kernel call per stretch (lib/fe2_vec.h; a stretch of i is a stretch of o). */
static void bind_run(const ez_sc_round *R, unsigned j, size_t start, size_t len)
{
    const size_t wp = (size_t)1 << R->lwp;
    if (wp < 8) { /* stretches shorter than a lane step: entry by entry */
        for (size_t i = start; i < start + len; i++) {
            size_t o = ez_sc_spread(i, R->lwp);
            R->dst[j][i] = R->fkind[j] == EZ_SC_SRC_BIND_BASE ? ez_fe2_bind1_base(R->sb[j][o], R->sb[j][o + wp], R->rp)
                                                               : ez_fe2_bind1(R->se[j][o], R->se[j][o + wp], R->rp, R->rpw);
        }
        return;
    }
    for (size_t i = start, end = start + len; i < end;) {
        size_t seg = wp - (i & (wp - 1));
        if (seg > end - i)
            seg = end - i;
        size_t o = ez_sc_spread(i, R->lwp);
        if (R->fkind[j] == EZ_SC_SRC_BIND_BASE)
            ez_fe2_bind_base(R->dst[j] + i, R->sb[j] + o, R->sb[j] + o + wp, seg, R->rp);
        else
            ez_fe2_bind(R->dst[j] + i, R->se[j] + o, R->se[j] + o + wp, seg, R->rp);
        i += seg;
    }
}

static void bind_range(const ez_sc_round *R, unsigned j, size_t start, size_t len)
{
    if (R->fkind[j] != EZ_SC_SRC_BIND2_BASE) {
        bind_run(R, j, start, len);
        return;
    }
    /* spread(i, lw) == i for i < 2^lw */
    unsigned lim = R->lw1 < R->lw2 ? R->lw1 : R->lw2;
    if (start + len <= ((size_t)1 << lim))
        bind2_range_k(R, j, start, len, true);
    else
        bind2_range_k(R, j, start, len, false);
}

static void bind_block(const ez_sc_round *R, size_t yh)
{
    for (unsigned j = 0; j < R->nf; j++) {
        if (R->lw < R->L) {
            size_t n2 = (size_t)2 << R->L;
            bind_range(R, j, yh * n2, n2);
        } else {
            size_t b = ez_sc_spread(yh << R->L, R->lw), nl = (size_t)1 << R->L;
            bind_range(R, j, b, nl);
            bind_range(R, j, b + ((size_t)1 << R->lw), nl);
        }
    }
}

/* ---- evaluation over extension (or mixed) current tables -----------------------------
 * One pass over the block per evaluation point keeps a single accumulator live.
 * Current tables: ce[j] (extension) or, in round 0 with mixed inputs, cb[j] (base). */
SC_ALWAYS_INLINE ez_fe2 cur_val(const ez_sc_round *R, unsigned j, size_t i, bool MIXED)
{
    if (MIXED && R->cb[j])
        return ez_fe2_from_fe(R->cb[j][i]);
    return R->ce[j][i];
}

SC_ALWAYS_INLINE void eval_ext(const ez_sc_round *R, size_t yh, ez_fe2 *acc, unsigned NF, unsigned D, bool SIMPLE,
                               bool ELO, bool MIXED)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw;
    if (D >= EZ_SC_NPTS_MAX || NF > EZ_SC_MAX_FACTORS)
        __builtin_unreachable();
#pragma GCC unroll 8
    for (unsigned k = 0; k <= D; k++) {
        if (k == 1 && !R->need1)
            continue;
        sc_acc2 ae;
        acc2_zero(&ae);
        /* i0 = spread(y, lw), stepped: when y's low lw bits wrap, skip bit lw. */
        size_t i0 = ez_sc_spread(yh << R->L, R->lw);
        for (size_t yl = 0; yl < nlo; yl++, i0 += 1 + ((((i0 + 1) & (w - 1)) == 0) ? w : 0)) {
            size_t i1 = i0 + w;
            ez_fe2 v[EZ_SC_MAX_FACTORS];
#pragma GCC unroll 8
            for (unsigned j = 0; j < NF; j++) {
                if (k == 0) {
                    v[j] = cur_val(R, j, i0, MIXED);
                } else if (k == 1) {
                    v[j] = cur_val(R, j, i1, MIXED);
                } else {
                    ez_fe2 a = cur_val(R, j, i0, MIXED), b = cur_val(R, j, i1, MIXED), df = ez_fe2_sub(b, a);
                    if (k == D) {
                        v[j] = df; /* the point at infinity: leading coefficient */
                    } else {
#pragma GCC unroll 8
                        for (unsigned kk = 2; kk <= k; kk++)
                            b = ez_fe2_add(b, df);
                        v[j] = b;
                    }
                }
            }
            if (SIMPLE) {
                /* All but the last multiply reduced; the last one accumulates. */
                ez_fe2 p = v[0];
                unsigned last = ELO ? NF : NF - 1;
#pragma GCC unroll 8
                for (unsigned j = 1; j < last; j++)
                    p = fe2_mulr(p, v[j]);
                if (ELO)
                    acc2_mul_e(&ae, R->elo[yl], R->elow[yl], p);
                else if (NF == 1)
                    acc2_add(&ae, p);
                else
                    acc2_mul(&ae, p, v[NF - 1]);
                continue;
            }
            ez_fe2 q = ez_fe2_zero();
            for (unsigned t = 0; t < R->nt; t++) {
                if (k == D && D >= 2 && R->tnf[t] < D)
                    continue; /* no X^D coefficient */
                /* Round 0 (MIXED): a base factor's value has c1 = 0, so a product with
                 * it takes base multiplies (one, while the product is still base). */
                unsigned j0 = R->tf[t][0];
                ez_fe2 p = v[j0];
                bool pb = MIXED && R->cb[j0];
                for (unsigned i = 1; i < R->tnf[t]; i++) {
                    unsigned j = R->tf[t][i];
                    if (MIXED && R->cb[j])
                        p = pb ? ez_fe2_from_fe(ez_fe_mul(p.c0, v[j].c0)) : ez_fe2_mul_fe(p, v[j].c0);
                    else if (pb)
                        p = ez_fe2_mul_fe(v[j], p.c0), pb = false;
                    else
                        p = fe2_mulr(p, v[j]);
                }
                q = ez_fe2_add(q, R->cone[t] ? p : fe2_mulr(R->coef[t], p));
            }
            if (ELO)
                acc2_mul_e(&ae, R->elo[yl], R->elow[yl], q);
            else
                acc2_add(&ae, q);
        }
        ez_fe2 b = acc2_reduce(&ae);
        acc[k] = ez_fe2_add(acc[k], R->ehi_on ? ez_fe2_mul(R->ehi[yh], b) : b);
    }
}

/* The next pair's i0 = spread(y + 1, lw) from i0 = spread(y, lw) (w = 2^lw): when y's
 * low lw bits wrap, skip bit lw. */
static inline size_t next_i0(size_t i0, size_t w)
{
    return i0 + 1 + ((((i0 + 1) & (w - 1)) == 0) ? w : 0);
}

/* Round 0 for one term f*g with f in the base field and g in the extension (the PCS
 * batching sumcheck, the claim merge): each product is base x extension, two base
 * multiplies accumulated unreduced, and nothing is lifted. q has degree 2: points 0,
 * (1,) and infinity. */
SC_ALWAYS_INLINE void block_mixed2(const ez_sc_round *R, size_t yh, ez_fe2 *acc, bool ELO)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw;
    const ez_fe *F = R->cb[R->mb];
    const ez_fe2 *G = R->ce[R->me];
#pragma GCC unroll 3
    for (unsigned k = 0; k <= 2; k++) {
        if (k == 1 && !R->need1)
            continue;
        sc_acc2 ae;
        acc2_zero(&ae);
        size_t i0 = ez_sc_spread(yh << R->L, R->lw);
        for (size_t yl = 0; yl < nlo; yl++, i0 = next_i0(i0, w)) {
            size_t i1 = i0 + w;
            ez_fe f;
            ez_fe2 g;
            if (k == 0) {
                f = F[i0];
                g = G[i0];
            } else if (k == 1) {
                f = F[i1];
                g = G[i1];
            } else {
                f = ez_fe_sub(F[i1], F[i0]);
                g = ez_fe2_sub(G[i1], G[i0]);
            }
            if (ELO)
                acc2_mul_e(&ae, R->elo[yl], R->elow[yl], ez_fe2_make(ez_fe_mul(f, g.c0), ez_fe_mul(f, g.c1)));
            else
                acc2_mul_fe(&ae, g, f);
        }
        ez_fe2 b = acc2_reduce(&ae);
        acc[k] = ez_fe2_add(acc[k], R->ehi_on ? ez_fe2_mul(R->ehi[yh], b) : b);
    }
}

/* A factor's value at an evaluation point of the pair (i0, i1) for degree-2 q: k = 0,
 * 1 or 2 (= infinity, the difference). MIXED: round 0, the table may be base (b). */
SC_ALWAYS_INLINE ez_fe2 tab_val(const ez_fe *b, const ez_fe2 *e, size_t i, bool MIXED)
{
    if (MIXED && b)
        return ez_fe2_from_fe(b[i]);
    return e[i];
}

SC_ALWAYS_INLINE ez_fe2 pt_val2(const ez_fe *b, const ez_fe2 *e, size_t i0, size_t i1, unsigned k, bool MIXED)
{
    if (k == 0)
        return tab_val(b, e, i0, MIXED);
    if (k == 1)
        return tab_val(b, e, i1, MIXED);
    return ez_fe2_sub(tab_val(b, e, i1, MIXED), tab_val(b, e, i0, MIXED));
}

/* Two terms of two factors each, q = sum_y E(y) (a b + c21 c d)(y); the caller applies
 * coef[0]. The LogUp-GKR layer shape (lib/gkr.c: eq (A qR + pR qL)). Extension
 * tables (after a fused bind if one is pending), or in round 0 (MIXED) base or
 * extension inputs, base ones lifted on the fly. Without an E_lo weight the products
 * go unreduced into the accumulator. */
SC_ALWAYS_INLINE void eval_2t(const ez_sc_round *R, size_t yh, ez_fe2 *acc, bool ELO, bool MIXED)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw;
    const unsigned ja = R->tf[0][0], jb = R->tf[0][1], jc = R->tf[1][0], jd = R->tf[1][1];
    const ez_fe2 *A = R->ce[ja], *B = R->ce[jb], *C = R->ce[jc], *Dt = R->ce[jd];
    const ez_fe *Ab = MIXED ? R->cb[ja] : NULL, *Bb = MIXED ? R->cb[jb] : NULL, *Cb = MIXED ? R->cb[jc] : NULL,
                *Db = MIXED ? R->cb[jd] : NULL;
    const bool one = R->c21_one;
    const ez_fe2 c21 = R->c21;
    const ez_fe c21w = R->c21w;
#pragma GCC unroll 3
    for (unsigned k = 0; k <= 2; k++) {
        if (k == 1 && !R->need1)
            continue;
        sc_acc2 ae;
        acc2_zero(&ae);
        size_t i0 = ez_sc_spread(yh << R->L, R->lw);
        for (size_t yl = 0; yl < nlo; yl++, i0 = next_i0(i0, w)) {
            size_t i1 = i0 + w;
            ez_fe2 va = pt_val2(Ab, A, i0, i1, k, MIXED), vb = pt_val2(Bb, B, i0, i1, k, MIXED);
            ez_fe2 vc = pt_val2(Cb, C, i0, i1, k, MIXED), vd = pt_val2(Db, Dt, i0, i1, k, MIXED);
            if (!one)
                vc = fe2_mul_pre(vc, c21, c21w);
            if (ELO) {
                acc2_mul_e(&ae, R->elo[yl], R->elow[yl], fe2_dot2(va, vb, vc, vd));
            } else {
                acc2_mul(&ae, va, vb);
                acc2_mul(&ae, vc, vd);
            }
        }
        ez_fe2 b = acc2_reduce(&ae);
        acc[k] = ez_fe2_add(acc[k], R->ehi_on ? ez_fe2_mul(R->ehi[yh], b) : b);
    }
}

/* Specialised instances for the shapes that dominate (one term of 2 or 3 distinct
 * factors); everything else runs the same code with run-time shape. A pending bind
 * (R->pending) runs phase 1 first. */
#define SC_BASE_FN(name, NF, ELO)                                                                            \
    static void name(const ez_sc_round *R, size_t yh, ez_fe2 *acc) { block_base(R, yh, acc, NF, NF, true, ELO); }
#define SC_EXT_FN(name, NF, ELO)                                                                             \
    static void name(const ez_sc_round *R, size_t yh, ez_fe2 *acc)                                              \
    {                                                                                                        \
        if (R->pending)                                                                                      \
            bind_block(R, yh);                                                                               \
        eval_ext(R, yh, acc, NF, NF, true, ELO, false);                                                      \
    }
SC_BASE_FN(sc_base2, 2, false)
SC_BASE_FN(sc_base2e, 2, true)
SC_BASE_FN(sc_base3, 3, false)
SC_BASE_FN(sc_base3e, 3, true)
SC_EXT_FN(sc_ext2, 2, false)
SC_EXT_FN(sc_ext2e, 2, true)
SC_EXT_FN(sc_ext3, 3, false)
SC_EXT_FN(sc_ext3e, 3, true)
#undef SC_BASE_FN
#undef SC_EXT_FN

static void sc_mixed2(const ez_sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_mixed2(R, yh, acc, false);
}

static void sc_mixed2e(const ez_sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_mixed2(R, yh, acc, true);
}

#define SC_2T_FN(name, ELO, MIXED)                                                                           \
    static void name(const ez_sc_round *R, size_t yh, ez_fe2 *acc)                                              \
    {                                                                                                        \
        if (R->pending)                                                                                      \
            bind_block(R, yh);                                                                               \
        eval_2t(R, yh, acc, ELO, MIXED);                                                                     \
    }
SC_2T_FN(sc_2t, false, false)
SC_2T_FN(sc_2te, true, false)
SC_2T_FN(sc_2tm, false, true)
SC_2T_FN(sc_2tme, true, true)
#undef SC_2T_FN

static void sc_sv2(const ez_sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_sv2(R, yh, acc, false);
}

static void sc_sv2e(const ez_sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_sv2(R, yh, acc, true);
}

static void sc_base_generic(const ez_sc_round *R, size_t yh, ez_fe2 *acc)
{
    if (R->elo_on)
        block_base(R, yh, acc, R->nf, R->D, false, true);
    else
        block_base(R, yh, acc, R->nf, R->D, false, false);
}

static void sc_ext_generic(const ez_sc_round *R, size_t yh, ez_fe2 *acc)
{
    if (R->pending)
        bind_block(R, yh);
    if (R->elo_on)
        eval_ext(R, yh, acc, R->nf, R->D, false, true, true);
    else
        eval_ext(R, yh, acc, R->nf, R->D, false, false, true);
}

ez_sc_block_fn ez_sc_pick_kernel(const ez_sc_round *R, int shape, bool round0, bool base, bool ext, bool reference)
{
    const bool e = R->elo_on;
    if (reference)
        return round0 && base ? sc_base_generic : sc_ext_generic;
    if (shape == EZ_SC_SHAPE_SIMPLE && (R->nf == 2 || R->nf == 3) && (!round0 || base || ext)) {
        bool two = R->nf == 2;
        if (round0 && base)
            return two ? (e ? sc_base2e : sc_base2) : (e ? sc_base3e : sc_base3);
        return two ? (e ? sc_ext2e : sc_ext2) : (e ? sc_ext3e : sc_ext3);
    }
    if (shape == EZ_SC_SHAPE_SIMPLE && R->nf == 2 && round0)
        return e ? sc_mixed2e : sc_mixed2;
    if (shape == EZ_SC_SHAPE_TWO && !(round0 && base)) {
        if (round0 && !ext)
            return e ? sc_2tme : sc_2tm;
        return e ? sc_2te : sc_2t;
    }
    return round0 && base ? sc_base_generic : sc_ext_generic;
}

ez_sc_block_fn ez_sc_sv2_kernel(const ez_sc_round *R)
{
    return R->elo_on ? sc_sv2e : sc_sv2;
}

bool ez_sc_kernel_is_generic(ez_sc_block_fn fn)
{
    return fn == sc_base_generic || fn == sc_ext_generic;
}

/* A pair's cost in rough units: each factor's value and each term factor's product at
 * every evaluation point (12 for one product f g of degree 2). */
static size_t round_cost(const ez_sc_round *R)
{
    size_t prods = 0;
    for (unsigned t = 0; t < R->nt; t++)
        prods += R->tnf[t];
    return (size_t)(R->D + 1) * (R->nf + prods);
}

void ez_sc_run_round(const ez_sc_round *R, ez_sc_block_fn fn, ez_fe2 *q)
{
    for (unsigned k = 0; k <= R->D; k++)
        q[k] = ez_fe2_zero();
    size_t npairs = R->nhi << R->L;
    if (npairs * round_cost(R) < SC_PAR_WORK || R->nhi == 1) {
        /* not through an inactive parallel region: entering one costs about half a
         * microsecond, and most rounds (the small ones) are here */
        for (size_t yh = 0; yh < R->nhi; yh++)
            fn(R, yh, q);
        return;
    }
    /* Per-thread partial sums on the stack, combined once: no allocation, and the
     * result does not depend on the schedule (field addition is exact). */
#pragma omp parallel
    {
        ez_fe2 part[EZ_SC_NPTS_MAX];
        for (unsigned k = 0; k <= R->D; k++)
            part[k] = ez_fe2_zero();
        /* Dynamic: on a shared machine one thread may run at half speed; blocks are
         * large (2^L pairs), so the scheduling cost is negligible. */
#pragma omp for schedule(dynamic, 1) nowait
        for (size_t yh = 0; yh < R->nhi; yh++)
            fn(R, yh, part);
#pragma omp critical(ez_sumcheck_round)
        for (unsigned k = 0; k <= R->D; k++)
            q[k] = ez_fe2_add(q[k], part[k]);
    }
}

/* sumcheck — see sumcheck.h. Protocol: Thaler, "Proofs, Arguments, and Zero-Knowledge"
 * §4.1 (sum-check), with the eq-factor optimisations of Gruen, "Some Improvements for
 * the PIOP for ZeroCheck" (ePrint 2024/108, §3): the eq factor of the bound variable is
 * split off the round polynomial as a known linear factor, and the eq weights of the
 * remaining variables are a product of two small tables (split eq) instead of one
 * table as large as the data. Round format and soundness: docs/protocol-kernel-sumcheck.md.
 *
 * Prover data flow. Factor tables are never lifted to the extension up front: round 0
 * reads the caller's tables (base-field arithmetic when every factor is base), and each
 * later round FUSES the binding of the previous challenge with the evaluation of the
 * current round: it reads the old table, writes the bound entries it needs into a
 * scratch buffer and evaluates the round polynomial from them, one pass over memory per
 * round. One scratch table per factor (2^(n-1) entries), bound in place when the bound
 * variable is the table's top one, else ping-ponging with a second of half the size.
 * For one term f*g of two base inputs, round 1 is computed from base products without
 * any table (small-value round, block_sv2) and round 2 binds two challenges at once,
 * which halves the scratch.
 *
 * Kernels: dedicated ones for the shapes that dominate — one term of 2 or 3 distinct
 * factors (base round 0, extension rounds), one term f*g with a base and an extension
 * factor (round 0 of the PCS batching and claim-merge sumchecks), two terms of two
 * factors (LogUp-GKR layers) — and a generic one for every shape. The generic kernels
 * alone (ez_sumcheck_prove_reference) produce the same bytes: the tests compare them.
 *
 * Round j binds variable v = order[j]. In the current table (2^m entries over the m
 * unbound variables, original order) v has bit weight w = 2^lw; pair y in [0, 2^(m-1))
 * is (i0, i1 = i0 + w) with i0 = spread(y, lw). With s = prod of eq1(r_u, rho_u) over
 * the eq variables bound so far, the round polynomial is
 *     g(X) = s * e(X) * q(X),  e(X) = eq1(r_v, X) if v in B else 1,
 *     q(X) = sum_y E(y) * sum_t c_t prod_{f in T_t} f(i0 + X (i1 - i0)),
 * with E(y) = eq over the remaining eq variables = E_hi[y_hi] * E_lo[y_lo]. The prover
 * evaluates q at 0, 2, ..., D-1 and its X^D coefficient (the "point at infinity",
 * sum of products of differences; D = largest term), derives q(1) from the running
 * claim, since claim = s * ((1 - r_v) q(0) + r_v q(1)) (or s * (q(0) + q(1))), and
 * recovers q(D) by finite differences. It keeps c' = claim / s implicitly (c' becomes
 * q(rho)), so it never inverts s.
 *
 * Sums are accumulated unreduced (sc_acc) and reduced once per block of pairs. */
#include "config.h"

#include "lib/sumcheck.h"
#include "lib/sumcheck_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"

#define SC_ALWAYS_INLINE static inline __attribute__((always_inline))
/* q is evaluated at 0..D with D <= 4; g has degree <= 5. */
#define SC_NPTS_MAX (EZ_SC_MAX_TERM_FACTORS + 1)
#define SC_GPTS_MAX (EZ_SC_MAX_TERM_FACTORS + 2)
/* Rounds with fewer pairs run on one thread. */
#define SC_PAR_MIN 8192

/* ---- description ------------------------------------------------------------------ */

static unsigned max_term(const ez_sumcheck_desc *d)
{
    unsigned m = 0;
    for (unsigned t = 0; t < d->nterms && t < EZ_SC_MAX_TERMS; t++)
        if (d->term[t].nf > m)
            m = d->term[t].nf;
    return m;
}

unsigned ez_sumcheck_degree(const ez_sumcheck_desc *d)
{
    return max_term(d) + (d->eq_vars != 0 ? 1u : 0u);
}

ez_status ez_sumcheck_desc_check(const ez_sumcheck_desc *d)
{
    if (!d || d->nvars > EZ_SC_MAX_VARS || d->nfactors < 1 || d->nfactors > EZ_SC_MAX_FACTORS ||
        d->nterms < 1 || d->nterms > EZ_SC_MAX_TERMS)
        return EZ_ERR_INVALID;
    for (unsigned t = 0; t < d->nterms; t++) {
        if (d->term[t].nf < 1 || d->term[t].nf > EZ_SC_MAX_TERM_FACTORS)
            return EZ_ERR_INVALID;
        for (unsigned i = 0; i < d->term[t].nf; i++)
            if (d->term[t].f[i] >= d->nfactors)
                return EZ_ERR_INVALID;
    }
    if (d->nvars < 64 && (d->eq_vars >> d->nvars) != 0)
        return EZ_ERR_INVALID;
    uint64_t seen = 0;
    for (unsigned j = 0; j < d->nvars; j++) {
        unsigned v = d->order[j];
        if (v >= d->nvars || ((seen >> v) & 1))
            return EZ_ERR_INVALID;
        seen |= UINT64_C(1) << v;
    }
    return EZ_OK;
}

void ez_sumcheck_desc_init(ez_sumcheck_desc *d, unsigned nvars, unsigned nfactors)
{
    EZ_VERIFY_CHECK(nfactors >= 1 && nfactors <= EZ_SC_MAX_TERM_FACTORS && nvars <= EZ_SC_MAX_VARS);
    memset(d, 0, sizeof *d);
    d->nvars = nvars;
    d->nfactors = nfactors;
    d->nterms = 1;
    d->term[0].nf = nfactors <= EZ_SC_MAX_TERM_FACTORS ? nfactors : EZ_SC_MAX_TERM_FACTORS;
    for (unsigned i = 0; i < d->term[0].nf; i++)
        d->term[0].f[i] = i;
    for (unsigned j = 0; j < nvars && j < EZ_SC_MAX_VARS; j++)
        d->order[j] = j;
}

/* ---- proof container ---------------------------------------------------------------- */

void ez_sumcheck_proof_clear(ez_sumcheck_proof *p)
{
    if (!p)
        return;
    free(p->rounds);
    free(p->evals);
    memset(p, 0, sizeof *p);
}

uint64_t ez_sumcheck_proof_bytes(const ez_sumcheck_desc *d)
{
    return ((uint64_t)d->nvars * ez_sumcheck_degree(d) + d->nfactors) * 16;
}

void ez_sumcheck_proof_write(ez_writer *w, const ez_sumcheck_proof *p)
{
    uint8_t buf[16];
    size_t nr = (size_t)p->nvars * p->degree;
    for (size_t i = 0; i < nr; i++) {
        ez_fe2_encode(buf, p->rounds[i]);
        ez_writer_bytes(w, buf, 16);
    }
    for (unsigned i = 0; i < p->nfactors; i++) {
        ez_fe2_encode(buf, p->evals[i]);
        ez_writer_bytes(w, buf, 16);
    }
}

static ez_status proof_alloc(ez_sumcheck_proof *p, unsigned nvars, unsigned degree, unsigned nfactors)
{
    memset(p, 0, sizeof *p);
    size_t nr = (size_t)nvars * degree;
    p->rounds = ez_alloc_array(nr ? nr : 1, sizeof(ez_fe2));
    p->evals = ez_alloc_array(nfactors, sizeof(ez_fe2));
    if (!p->rounds || !p->evals) {
        ez_sumcheck_proof_clear(p);
        return EZ_ERR_NOMEM;
    }
    p->nvars = nvars;
    p->degree = degree;
    p->nfactors = nfactors;
    return EZ_OK;
}

ez_status ez_sumcheck_proof_read(ez_reader *r, const ez_sumcheck_desc *d, ez_sumcheck_proof *p)
{
    memset(p, 0, sizeof *p);
    if (ez_sumcheck_desc_check(d) != EZ_OK)
        return EZ_ERR_INVALID;
    unsigned deg = ez_sumcheck_degree(d);
    size_t nr = (size_t)d->nvars * deg, total = nr + d->nfactors;
    /* The shape is bounded (<= 48 * 5 + 8 values): check the length before allocating. */
    if (r->failed || ez_reader_remaining(r) < total * 16) {
        r->failed = true;
        return EZ_ERR_REJECT;
    }
    ez_status st = proof_alloc(p, d->nvars, deg, d->nfactors);
    if (st != EZ_OK)
        return st;
    for (size_t i = 0; i < total; i++) {
        const uint8_t *b = ez_reader_view(r, 16);
        ez_fe2 *dst = i < nr ? &p->rounds[i] : &p->evals[i - nr];
        if (!b || !ez_fe2_decode(dst, b)) {
            r->failed = true;
            ez_sumcheck_proof_clear(p);
            return EZ_ERR_REJECT;
        }
    }
    return EZ_OK;
}

/* ---- small polynomial helpers ------------------------------------------------------- */

/* 1 - a - b + 2ab = ab + (1-a)(1-b). */
static ez_fe2 eq1(ez_fe2 a, ez_fe2 b)
{
    ez_fe2 ab = ez_fe2_mul(a, b);
    return ez_fe2_add(ez_fe2_sub(ez_fe2_add(ab, ab), ez_fe2_add(a, b)), ez_fe2_one());
}

/* The polynomial of degree <= D through (k, v[k]), k = 0..D, at x (Lagrange):
 *   p(x) = (1/D!) sum_k v[k] (-1)^(D-k) binom(D, k) prod_{m != k} (x - m).
 * inv_dfact = 1/D!. Exact for x equal to a node (the other products vanish). */
static ez_fe2 interp(const ez_fe2 *v, unsigned D, ez_fe2 x, ez_fe inv_dfact)
{
    ez_fe2 pre[SC_GPTS_MAX], suf[SC_GPTS_MAX];
    pre[0] = ez_fe2_one();
    for (unsigned k = 1; k <= D; k++)
        pre[k] = ez_fe2_mul(pre[k - 1], ez_fe2_sub(x, ez_fe2_from_fe(k - 1)));
    suf[D] = ez_fe2_one();
    for (unsigned k = D; k-- > 0;)
        suf[k] = ez_fe2_mul(suf[k + 1], ez_fe2_sub(x, ez_fe2_from_fe(k + 1)));
    ez_fe2 acc = ez_fe2_zero();
    uint64_t binom = 1; /* binom(D, k), exact for D <= 5 */
    for (unsigned k = 0; k <= D; k++) {
        ez_fe c = (ez_fe)binom;
        if ((D - k) & 1)
            c = ez_fe_neg(c);
        acc = ez_fe2_add(acc, ez_fe2_mul_fe(ez_fe2_mul(v[k], ez_fe2_mul(pre[k], suf[k])), c));
        binom = binom * (D - k) / (k + 1);
    }
    return ez_fe2_mul_fe(acc, inv_dfact);
}

static ez_fe inv_factorial(unsigned D)
{
    ez_fe f = 1;
    for (unsigned k = 2; k <= D; k++)
        f = ez_fe_mul(f, k);
    return ez_fe_inv(f);
}

/* ---- transcript header (identical on both sides) ----------------------------------- */

static void absorb_header(ez_transcript *t, const ez_sumcheck_desc *d, unsigned deg, const ez_fe2 *coeffs,
                          const ez_fe2 *eq_point, ez_fe2 claim)
{
    /* The whole statement shape, as u64 LE words: nvars, nfactors, nterms, degree,
     * eq_vars, then per term nf and its factor indices, then the binding order. */
    uint8_t buf[8 * (5 + EZ_SC_MAX_TERMS * (1 + EZ_SC_MAX_TERM_FACTORS) + EZ_SC_MAX_VARS)];
    size_t n = 0;
#define PUT(x)                                                                                               \
    do {                                                                                                     \
        uint64_t v_ = (uint64_t)(x);                                                                         \
        for (int b_ = 0; b_ < 8; b_++)                                                                       \
            buf[n++] = (uint8_t)(v_ >> (8 * b_));                                                            \
    } while (0)
    PUT(d->nvars);
    PUT(d->nfactors);
    PUT(d->nterms);
    PUT(deg);
    PUT(d->eq_vars);
    for (unsigned i = 0; i < d->nterms; i++) {
        PUT(d->term[i].nf);
        for (unsigned k = 0; k < d->term[i].nf; k++)
            PUT(d->term[i].f[k]);
    }
    for (unsigned j = 0; j < d->nvars; j++)
        PUT(d->order[j]);
#undef PUT
    ez_transcript_absorb_bytes(t, "sumcheck/desc", buf, n);
    ez_fe2 c[EZ_SC_MAX_TERMS];
    for (unsigned i = 0; i < d->nterms; i++)
        c[i] = coeffs ? coeffs[i] : ez_fe2_one();
    ez_transcript_absorb_fe2(t, "sumcheck/coeffs", c, d->nterms);
    ez_transcript_absorb_fe2(t, "sumcheck/eq_point", eq_point, (size_t)__builtin_popcountll(d->eq_vars));
    ez_transcript_absorb_fe2(t, "sumcheck/claim", &claim, 1);
}

/* r_B by variable (entries outside B unused). */
static void spread_eq_point(ez_fe2 *rb, const ez_sumcheck_desc *d, const ez_fe2 *eq_point)
{
    unsigned k = 0;
    for (unsigned v = 0; v < d->nvars; v++)
        rb[v] = (d->eq_vars >> v) & 1 ? eq_point[k++] : ez_fe2_zero();
}

/* sum_t c_t prod_{f in T_t} vals[f] */
static ez_fe2 combine_terms(const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *vals)
{
    ez_fe2 acc = ez_fe2_zero();
    for (unsigned t = 0; t < d->nterms; t++) {
        ez_fe2 p = coeffs ? coeffs[t] : ez_fe2_one();
        for (unsigned i = 0; i < d->term[t].nf; i++)
            p = ez_fe2_mul(p, vals[d->term[t].f[i]]);
        acc = ez_fe2_add(acc, p);
    }
    return acc;
}

/* ---- prover round kernels ------------------------------------------------------------ */

/* How a factor's value at a current-table index is obtained. */
enum {
    SC_BASE,       /* no pending bind, base table (lifted on the fly in extension kernels) */
    SC_EXT,        /* no pending bind, extension table */
    SC_BIND_BASE,  /* bind the old base table with the pending challenge, store, use */
    SC_BIND_EXT,   /* the same from an old extension table */
    SC_BIND2_BASE, /* bind the base input with the two pending challenges, store, use */
    SC_MIXED       /* per factor, read from fkind[] */
};

typedef struct {
    unsigned nf, D; /* factors; q is evaluated at 0..D */
    bool need1;     /* evaluate q(1) too (it cannot be derived: r_v = 0) */
    int fkind[EZ_SC_MAX_FACTORS];
    const ez_fe *sb[EZ_SC_MAX_FACTORS]; /* source tables (old tables if a bind is pending) */
    const ez_fe2 *se[EZ_SC_MAX_FACTORS];
    ez_fe2 *dst[EZ_SC_MAX_FACTORS]; /* bound current tables written by a pending bind */
    bool pending;                   /* bind into dst before evaluating */
    const ez_fe *cb[EZ_SC_MAX_FACTORS]; /* current tables read by the evaluation */
    const ez_fe2 *ce[EZ_SC_MAX_FACTORS];
    /* One pending challenge rp (rpw = 7 rp.c1) at log2 weight lwp of the old table. */
    ez_fe2 rp;
    ez_fe rpw;
    unsigned lwp;
    /* Two pending challenges over base inputs: w4[b1 + 2 b2] = eq((r1, r2), (b1, b2)),
     * old index of a current index i = spread(spread(i, lw2), lw1) + b1 d1 + b2 d2. */
    ez_fe2 w4[4];
    unsigned lw1, lw2;
    size_t d1, d2;
    /* Small-value round: ww[b + 2 b'] = w_b w_b' with w_0 = 1 - rp, w_1 = rp. */
    ez_fe2 ww[4];
    unsigned lw; /* log2 weight of the variable bound now (current table) */
    unsigned L;  /* pair index y = (y_hi << L) | y_lo */
    size_t nhi;
    const ez_fe2 *elo, *ehi;
    const ez_fe *elow; /* 7 * elo[i].c1, so an E_lo-weighted c0 needs one accumulator */
    bool elo_on, ehi_on;
    /* terms (generic path) */
    unsigned nt, tnf[EZ_SC_MAX_TERMS], tf[EZ_SC_MAX_TERMS][EZ_SC_MAX_TERM_FACTORS];
    ez_fe2 coef[EZ_SC_MAX_TERMS];
    bool coef_one;
    /* one term f*g with mixed inputs: mb = the base factor, me = the extension one */
    unsigned mb, me;
    /* two terms of two factors: c21 = coef[1] / coef[0] (c21w = 7 c21.c1), c21_one iff 1 */
    ez_fe2 c21;
    ez_fe c21w;
    bool c21_one;
} sc_round;

/* Insert a zero bit at position lw: the index in a table one variable larger. */
static inline size_t spread(size_t y, unsigned lw)
{
    size_t lo = y & (((size_t)1 << lw) - 1);
    return ((y ^ lo) << 1) | lo;
}

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
SC_ALWAYS_INLINE void block_base(const sc_round *R, size_t yh, ez_fe2 *acc, unsigned NF, unsigned D,
                                 bool SIMPLE, bool ELO)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw;
    const bool need1 = R->need1, ext_q = !SIMPLE && !R->coef_one;
    if (D >= SC_NPTS_MAX || NF > EZ_SC_MAX_FACTORS)
        __builtin_unreachable();
    sc_acc ab[SC_NPTS_MAX];
    sc_acc2 ae[SC_NPTS_MAX];
    #pragma GCC unroll 8
    for (unsigned k = 0; k <= D; k++) {
        ab[k].lo = 0;
        ab[k].hi = 0;
        acc2_zero(&ae[k]);
    }
    for (size_t yl = 0; yl < nlo; yl++) {
        size_t i0 = spread((yh << R->L) | yl, R->lw), i1 = i0 + w;
        ez_fe v[EZ_SC_MAX_FACTORS][SC_NPTS_MAX];
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
 * round 2 then binds both challenges at once (SC_BIND2_BASE). */
SC_ALWAYS_INLINE void block_sv2(const sc_round *R, size_t yh, ez_fe2 *acc, bool ELO)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw, wp = (size_t)1 << R->lwp;
    /* spread(i0 + w) = spread(i0) + spread(w): the pair's partner in the old table */
    const size_t wo = spread(w, R->lwp);
    const ez_fe *F = R->sb[0], *G = R->sb[1];
    const bool need1 = R->need1;
    sc_acc sb[3][4];
    sc_acc2 se[3][4];
    memset(sb, 0, sizeof sb);
    memset(se, 0, sizeof se);
    for (size_t yl = 0; yl < nlo; yl++) {
        size_t o0 = spread(spread((yh << R->L) | yl, R->lw), R->lwp), o1 = o0 + wo;
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
 * as in MSB-first binding), so no index arithmetic per entry. */
SC_ALWAYS_INLINE void bind_range_k(const sc_round *R, unsigned j, size_t start, size_t len, bool IDENT)
{
    ez_fe2 *dst = R->dst[j];
    const size_t wp = (size_t)1 << R->lwp;
    switch (R->fkind[j]) {
    case SC_BIND_BASE: {
        const ez_fe *F = R->sb[j];
        const ez_fe2 r = R->rp;
        for (size_t i = start; i < start + len; i++) {
            size_t o = IDENT ? i : spread(i, R->lwp);
            ez_fe a = F[o], df = ez_fe_sub(F[o + wp], a);
            sc_acc x0 = {(sc_u128)r.c0 * df, 0};
            acc_add(&x0, a);
            dst[i] = ez_fe2_make(acc_reduce(&x0), ez_fe_mul(r.c1, df));
        }
        break;
    }
    case SC_BIND_EXT: {
        const ez_fe2 *F = R->se[j];
        const ez_fe2 r = R->rp;
        const ez_fe rw = R->rpw;
        for (size_t i = start; i < start + len; i++) {
            size_t o = IDENT ? i : spread(i, R->lwp);
            /* a + r (b - a): both coefficients as one unreduced sum each */
            ez_fe2 a = F[o], df = ez_fe2_sub(F[o + wp], a);
            sc_acc x0 = {(sc_u128)df.c0 * r.c0, 0}, x1 = {(sc_u128)df.c0 * r.c1, 0};
            acc_add(&x0, (sc_u128)df.c1 * rw);
            acc_add(&x1, (sc_u128)df.c1 * r.c0);
            acc_add(&x0, a.c0);
            acc_add(&x1, a.c1);
            dst[i] = ez_fe2_make(acc_reduce(&x0), acc_reduce(&x1));
        }
        break;
    }
    default: { /* SC_BIND2_BASE: sum_c w4[c] f_c = f_0 + sum_{c>0} w4[c] (f_c - f_0) */
        const ez_fe *F = R->sb[j];
        const size_t d1 = R->d1, d2 = R->d2;
        const ez_fe2 w1 = R->w4[1], w2 = R->w4[2], w3 = R->w4[3];
        for (size_t i = start; i < start + len; i++) {
            size_t o = IDENT ? i : spread(spread(i, R->lw2), R->lw1);
            ez_fe f0 = F[o], a = ez_fe_sub(F[o + d1], f0), b = ez_fe_sub(F[o + d2], f0),
                  c = ez_fe_sub(F[o + d1 + d2], f0);
            sc_acc x0 = {(sc_u128)w1.c0 * a, 0}, x1 = {(sc_u128)w1.c1 * a, 0};
            acc_add(&x0, (sc_u128)w2.c0 * b);
            acc_add(&x1, (sc_u128)w2.c1 * b);
            acc_add(&x0, (sc_u128)w3.c0 * c);
            acc_add(&x1, (sc_u128)w3.c1 * c);
            acc_add(&x0, f0);
            dst[i] = ez_fe2_make(acc_reduce(&x0), acc_reduce(&x1));
        }
        break;
    }
    }
}

static void bind_range(const sc_round *R, unsigned j, size_t start, size_t len)
{
    /* spread(i, lw) == i for i < 2^lw */
    unsigned lim = R->fkind[j] == SC_BIND2_BASE ? (R->lw1 < R->lw2 ? R->lw1 : R->lw2) : R->lwp;
    if (start + len <= ((size_t)1 << lim))
        bind_range_k(R, j, start, len, true);
    else
        bind_range_k(R, j, start, len, false);
}

static void bind_block(const sc_round *R, size_t yh)
{
    for (unsigned j = 0; j < R->nf; j++) {
        if (R->lw < R->L) {
            size_t n2 = (size_t)2 << R->L;
            bind_range(R, j, yh * n2, n2);
        } else {
            size_t b = spread(yh << R->L, R->lw), nl = (size_t)1 << R->L;
            bind_range(R, j, b, nl);
            bind_range(R, j, b + ((size_t)1 << R->lw), nl);
        }
    }
}

/* ---- evaluation over extension (or mixed) current tables -----------------------------
 * One pass over the block per evaluation point keeps a single accumulator live.
 * Current tables: ce[j] (extension) or, in round 0 with mixed inputs, cb[j] (base). */
SC_ALWAYS_INLINE ez_fe2 cur_val(const sc_round *R, unsigned j, size_t i, bool MIXED)
{
    if (MIXED && R->cb[j])
        return ez_fe2_from_fe(R->cb[j][i]);
    return R->ce[j][i];
}

SC_ALWAYS_INLINE void eval_ext(const sc_round *R, size_t yh, ez_fe2 *acc, unsigned NF, unsigned D, bool SIMPLE,
                               bool ELO, bool MIXED)
{
    const size_t nlo = (size_t)1 << R->L, w = (size_t)1 << R->lw;
    if (D >= SC_NPTS_MAX || NF > EZ_SC_MAX_FACTORS)
        __builtin_unreachable();
#pragma GCC unroll 8
    for (unsigned k = 0; k <= D; k++) {
        if (k == 1 && !R->need1)
            continue;
        sc_acc2 ae;
        acc2_zero(&ae);
        /* i0 = spread(y, lw), stepped: when y's low lw bits wrap, skip bit lw. */
        size_t i0 = spread(yh << R->L, R->lw);
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
                ez_fe2 p = v[R->tf[t][0]];
                for (unsigned i = 1; i < R->tnf[t]; i++)
                    p = fe2_mulr(p, v[R->tf[t][i]]);
                q = ez_fe2_add(q, R->coef_one ? p : fe2_mulr(R->coef[t], p));
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
SC_ALWAYS_INLINE void block_mixed2(const sc_round *R, size_t yh, ez_fe2 *acc, bool ELO)
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
        size_t i0 = spread(yh << R->L, R->lw);
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
SC_ALWAYS_INLINE void eval_2t(const sc_round *R, size_t yh, ez_fe2 *acc, bool ELO, bool MIXED)
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
        size_t i0 = spread(yh << R->L, R->lw);
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

typedef void (*sc_block_fn)(const sc_round *R, size_t yh, ez_fe2 *acc);

/* Specialised instances for the shapes that dominate (one term of 2 or 3 distinct
 * factors); everything else runs the same code with run-time shape. A pending bind
 * (R->pending) runs phase 1 first. */
#define SC_BASE_FN(name, NF, ELO)                                                                            \
    static void name(const sc_round *R, size_t yh, ez_fe2 *acc) { block_base(R, yh, acc, NF, NF, true, ELO); }
#define SC_EXT_FN(name, NF, ELO)                                                                             \
    static void name(const sc_round *R, size_t yh, ez_fe2 *acc)                                              \
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

static void sc_mixed2(const sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_mixed2(R, yh, acc, false);
}

static void sc_mixed2e(const sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_mixed2(R, yh, acc, true);
}

#define SC_2T_FN(name, ELO, MIXED)                                                                           \
    static void name(const sc_round *R, size_t yh, ez_fe2 *acc)                                              \
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

static void sc_sv2(const sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_sv2(R, yh, acc, false);
}

static void sc_sv2e(const sc_round *R, size_t yh, ez_fe2 *acc)
{
    block_sv2(R, yh, acc, true);
}

static void sc_base_generic(const sc_round *R, size_t yh, ez_fe2 *acc)
{
    if (R->elo_on)
        block_base(R, yh, acc, R->nf, R->D, false, true);
    else
        block_base(R, yh, acc, R->nf, R->D, false, false);
}

static void sc_ext_generic(const sc_round *R, size_t yh, ez_fe2 *acc)
{
    if (R->pending)
        bind_block(R, yh);
    if (R->elo_on)
        eval_ext(R, yh, acc, R->nf, R->D, false, true, true);
    else
        eval_ext(R, yh, acc, R->nf, R->D, false, false, true);
}

/* The statement shapes with dedicated kernels. */
enum {
    SC_SHAPE_GENERIC,
    SC_SHAPE_SIMPLE, /* one term in which every factor appears exactly once */
    SC_SHAPE_TWO     /* two terms of two factors each, coef[0] != 0 */
};

/* Pick the kernel of a round. round0: no bind pending, the sources are the inputs
 * (all base, all extension, or mixed); otherwise a bind is pending (R->pending).
 * reference: the generic kernels only. Only the generic kernels apply term
 * coefficients; the others leave coef[0] to the caller. */
static sc_block_fn pick_kernel(const sc_round *R, int shape, bool round0, bool base, bool ext, bool reference)
{
    const bool e = R->elo_on;
    if (reference)
        return round0 && base ? sc_base_generic : sc_ext_generic;
    if (shape == SC_SHAPE_SIMPLE && (R->nf == 2 || R->nf == 3) && (!round0 || base || ext)) {
        bool two = R->nf == 2;
        if (round0 && base)
            return two ? (e ? sc_base2e : sc_base2) : (e ? sc_base3e : sc_base3);
        return two ? (e ? sc_ext2e : sc_ext2) : (e ? sc_ext3e : sc_ext3);
    }
    if (shape == SC_SHAPE_SIMPLE && R->nf == 2 && round0)
        return e ? sc_mixed2e : sc_mixed2;
    if (shape == SC_SHAPE_TWO && !(round0 && base)) {
        if (round0 && !ext)
            return e ? sc_2tme : sc_2tm;
        return e ? sc_2te : sc_2t;
    }
    return round0 && base ? sc_base_generic : sc_ext_generic;
}

/* q[k] for k = 0..D (q[1] only if need1), summed over all pairs. */
static void run_round(const sc_round *R, sc_block_fn fn, ez_fe2 *q)
{
    for (unsigned k = 0; k <= R->D; k++)
        q[k] = ez_fe2_zero();
    size_t npairs = R->nhi << R->L;
    /* Per-thread partial sums on the stack, combined once: no allocation, and the
     * result does not depend on the schedule (field addition is exact). */
#pragma omp parallel if (npairs >= SC_PAR_MIN)
    {
        ez_fe2 part[SC_NPTS_MAX];
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

/* Table over `cnt` pair-index bits whose variables are vars[0..cnt-1] (most significant
 * first): entry = prod over the eq variables among them of eq1(r_v, bit); other
 * variables contribute 1. Returns whether any eq variable occurs. */
static bool build_eq_part(ez_fe2 *out, const unsigned *vars, unsigned cnt, uint64_t eq_vars, const ez_fe2 *rb)
{
    bool on = false;
    out[0] = ez_fe2_one();
    /* As in ez_eq_table: the next more significant bit doubles the table at the top. */
    for (unsigned b = 0; b < cnt; b++) {
        unsigned v = vars[cnt - 1 - b];
        size_t h = (size_t)1 << b;
        if ((eq_vars >> v) & 1) {
            on = true;
            for (size_t i = 0; i < h; i++) {
                ez_fe2 hi = ez_fe2_mul(out[i], rb[v]);
                out[h + i] = hi;
                out[i] = ez_fe2_sub(out[i], hi);
            }
        } else {
            memcpy(out + h, out, h * sizeof *out);
        }
    }
    return on;
}

/* The pair-index variables of a round binding rem[pos] (yv: the others, in order) and
 * the split point L of the pair index: blocks of 2^L pairs share one E_hi weight;
 * balance the two tables, but keep small rounds in one block. */
static unsigned round_split(const unsigned *rem, unsigned m, unsigned pos, unsigned *yv)
{
    unsigned ny = 0;
    for (unsigned i = 0; i < m; i++)
        if (i != pos)
            yv[ny++] = rem[i];
    return ny < 8 ? ny : (ny + 1) / 2;
}

static void *sc_alloc(size_t n)
{
    return ez_alloc_aligned(n ? n : 1, sizeof(ez_fe2));
}

/* The prover; reference: generic kernels only (ez_sumcheck_prove_reference). */
static ez_status prove(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *eq_point,
                       const ez_sumcheck_factor *factors, ez_fe2 claim, ez_sumcheck_proof *proof, ez_fe2 *point,
                       ez_fe2 *evals, bool reference)
{
    ez_status st = EZ_OK;
    ez_fe2 *bufs[EZ_SC_MAX_FACTORS][2] = {{NULL}};
    ez_fe2 *elo = NULL, *ehi = NULL;
    ez_fe *elow = NULL;
    if (!t || !proof || ez_sumcheck_desc_check(d) != EZ_OK || !factors || (d->eq_vars && !eq_point))
        return EZ_ERR_INVALID;
    const unsigned n = d->nvars, nf = d->nfactors, D = max_term(d), deg = ez_sumcheck_degree(d);
    for (unsigned j = 0; j < nf; j++)
        if (!factors[j].base == !factors[j].ext)
            return EZ_ERR_INVALID;
    st = proof_alloc(proof, n, deg, nf);
    if (st != EZ_OK)
        return st;

    absorb_header(t, d, deg, coeffs, eq_point, claim);
    ez_fe2 rb[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS];
    spread_eq_point(rb, d, eq_point);

    if (n == 0) {
        for (unsigned j = 0; j < nf; j++)
            proof->evals[j] = factors[j].base ? ez_fe2_from_fe(factors[j].base[0]) : factors[j].ext[0];
        goto finish;
    }

    /* The round-independent part of the kernel arguments. */
    sc_round R;
    memset(&R, 0, sizeof R);
    R.nf = nf;
    R.D = D;
    R.nt = d->nterms;
    R.coef_one = true;
    for (unsigned i = 0; i < d->nterms; i++) {
        R.tnf[i] = d->term[i].nf;
        memcpy(R.tf[i], d->term[i].f, sizeof R.tf[i]);
        R.coef[i] = coeffs ? coeffs[i] : ez_fe2_one();
        if (!ez_fe2_eq(R.coef[i], ez_fe2_one()))
            R.coef_one = false;
    }
    /* simple: one term in which every factor appears exactly once. */
    bool simple = d->nterms == 1 && d->term[0].nf == nf;
    for (unsigned i = 0; simple && i < nf; i++)
        for (unsigned k = 0; k < i; k++)
            if (d->term[0].f[i] == d->term[0].f[k])
                simple = false;
    int shape = simple ? SC_SHAPE_SIMPLE : SC_SHAPE_GENERIC;
    if (d->nterms == 2 && d->term[0].nf == 2 && d->term[1].nf == 2 && !ez_fe2_is_zero(R.coef[0])) {
        /* a b + c21 c d, times coef[0] after the sum */
        shape = SC_SHAPE_TWO;
        R.c21_one = ez_fe2_eq(R.coef[1], R.coef[0]);
        R.c21 = R.c21_one ? ez_fe2_one() : ez_fe2_mul(R.coef[1], ez_fe2_inv(R.coef[0]));
        R.c21w = ez_fe_mul_w(R.c21.c1);
    }
    bool all_base = true, all_ext = true;
    for (unsigned j = 0; j < nf; j++) {
        all_base = all_base && factors[j].base;
        all_ext = all_ext && factors[j].ext;
    }
    R.mb = factors[0].base ? 0 : 1;
    R.me = 1 - R.mb;
    /* Small-value round 1 (block_sv2) for f*g over base inputs: no table is written
     * until round 2, which halves the scratch memory. */
    const bool sv = all_base && simple && nf == 2 && n >= 2 && !reference;

    /* Scratch: the first written table has 2^(n-1) entries (2^(n-2) with sv); later
     * ones halve each round. A bind of the old table's top variable (the usual
     * most-significant-first order) is done in place: bound entry i depends only on
     * old entries i and i + 2^m, and each i is bound once, by one block. Other binds
     * ping-pong into a second buffer of half the size, allocated when first needed.
     * Huge-page advice: first touch of fresh pages is a large part of the cost. */
    unsigned lfirst = n - 1 - (sv ? 1u : 0u);
    for (unsigned j = 0; j < nf; j++) {
        if (!(bufs[j][0] = ez_alloc_huge((size_t)1 << lfirst, sizeof(ez_fe2)))) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    }
    /* Split-eq tables (see the choice of L below): E_lo has 2^L <= 2^max(n/2, 7)
     * entries, E_hi 2^(bits - L) <= 2^(n/2). */
    elo = sc_alloc((size_t)1 << (n / 2 > 7 ? n / 2 : 7));
    elow = ez_alloc_aligned((size_t)1 << (n / 2 > 7 ? n / 2 : 7), sizeof(ez_fe));
    ehi = sc_alloc((size_t)1 << (n / 2));
    if (!elo || !elow || !ehi) {
        st = EZ_ERR_NOMEM;
        goto out;
    }

    unsigned rem[EZ_SC_MAX_VARS], yv[EZ_SC_MAX_VARS]; /* unbound variables, original order */
    for (unsigned v = 0; v < n; v++)
        rem[v] = v;
    unsigned m = n;
    ez_fe2 scale = ez_fe2_one(); /* s: product of eq1(r_u, rho_u) over bound eq variables */
    ez_fe2 cprime = claim;       /* claim / s */
    ez_fe inv_dq = inv_factorial(D), dfact = 1;
    for (unsigned k = 2; k <= D; k++)
        dfact *= k; /* D! <= 24 */
    /* The source tables: the inputs until a bound table has been written. */
    const ez_fe *curb[EZ_SC_MAX_FACTORS];
    const ez_fe2 *cure[EZ_SC_MAX_FACTORS];
    for (unsigned j = 0; j < nf; j++) {
        curb[j] = factors[j].base;
        cure[j] = factors[j].ext;
    }
    unsigned npend = 0; /* challenges not yet bound into the sources */
    int held = -1;      /* the scratch buffer holding the sources; -1: the inputs */

    for (unsigned round = 0; round < n; round++) {
        unsigned v = d->order[round], pos = 0;
        while (rem[pos] != v)
            pos++;
        bool inb = (d->eq_vars >> v) & 1;
        ez_fe2 rv = rb[v];

        R.lw = m - 1 - pos;
        R.need1 = inb && ez_fe2_is_zero(rv);
        unsigned bits = m - 1;
        R.L = round_split(rem, m, pos, yv);
        R.nhi = (size_t)1 << (bits - R.L);
        R.elo_on = build_eq_part(elo, yv + (bits - R.L), R.L, d->eq_vars, rb);
        R.ehi_on = build_eq_part(ehi, yv, bits - R.L, d->eq_vars, rb);
        if (R.elo_on)
            for (size_t i = 0; i < ((size_t)1 << R.L); i++)
                elow[i] = ez_fe_mul_w(elo[i].c1);
        R.elo = elo;
        R.elow = elow;
        R.ehi = ehi;

        bool writes = npend > 0 && !(sv && round == 1);
        /* In place iff the pending variable was the old table's top one (lwp == m). */
        int wbuf = held >= 0 && npend == 1 && R.lwp == m ? held : held == 0 ? 1 : 0;
        sc_block_fn fn;
        for (unsigned j = 0; j < nf; j++) {
            if (writes && !bufs[j][wbuf] &&
                !(bufs[j][wbuf] = ez_alloc_huge(lfirst ? (size_t)1 << (lfirst - 1) : 1, sizeof(ez_fe2)))) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            R.sb[j] = curb[j];
            R.se[j] = cure[j];
            R.dst[j] = bufs[j][wbuf];
            R.cb[j] = curb[j];
            R.ce[j] = cure[j];
        }
        R.pending = false;
        if (npend == 0) {
            fn = pick_kernel(&R, shape, true, all_base, all_ext, reference);
        } else if (npend == 1 && sv && round == 1) {
            for (unsigned c = 0; c < 4; c++) {
                ez_fe2 wf = c & 1 ? R.rp : ez_fe2_sub(ez_fe2_one(), R.rp);
                ez_fe2 wg = c >> 1 ? R.rp : ez_fe2_sub(ez_fe2_one(), R.rp);
                R.ww[c] = ez_fe2_mul(wf, wg);
            }
            fn = R.elo_on ? sc_sv2e : sc_sv2;
        } else {
            /* Fused: bind the pending challenge(s) block by block, then evaluate. */
            R.pending = true;
            for (unsigned j = 0; j < nf; j++) {
                R.fkind[j] = npend == 2 ? SC_BIND2_BASE : curb[j] ? SC_BIND_BASE : SC_BIND_EXT;
                R.cb[j] = NULL;
                R.ce[j] = R.dst[j];
            }
            fn = pick_kernel(&R, shape, false, false, true, reference);
        }
        ez_fe2 q[SC_GPTS_MAX];
        run_round(&R, fn, q);
        /* The specialised kernels leave the single term's coefficient out: apply it once. */
        if (fn != sc_base_generic && fn != sc_ext_generic && !R.coef_one)
            for (unsigned k = 0; k <= D; k++)
                q[k] = ez_fe2_mul(q[k], R.coef[0]);

        /* q(1) from the running claim (Gruen §3): c' = e(0) q(0) + e(1) q(1). */
        if (!inb)
            q[1] = ez_fe2_sub(cprime, q[0]);
        else if (!R.need1)
            q[1] = ez_fe2_mul(ez_fe2_sub(cprime, ez_fe2_mul(ez_fe2_sub(ez_fe2_one(), rv), q[0])),
                              ez_fe2_inv(rv));
        /* The kernels return q's X^D coefficient c in slot D (D >= 2): the D-th finite
         * difference of q is D! c, which gives q(D) from q(0..D-1). */
        if (D >= 2) {
            ez_fe2 qd = ez_fe2_mul_fe(q[D], dfact);
            uint64_t binom = 1; /* binom(D, i) */
            for (unsigned i = 0; i < D; i++) {
                ez_fe2 term = ez_fe2_mul_fe(q[i], (ez_fe)binom);
                qd = (D - i) & 1 ? ez_fe2_add(qd, term) : ez_fe2_sub(qd, term);
                binom = binom * (D - i) / (i + 1);
            }
            q[D] = qd;
        }
        if (deg > D) /* q has degree D; g = s e q needs one more point of q */
            q[deg] = interp(q, D, ez_fe2_from_fe(deg), inv_dq);

        ez_fe2 *msg = proof->rounds + (size_t)round * deg;
        for (unsigned k = 0; k <= deg; k++) {
            if (k == 1)
                continue;
            ez_fe2 g = ez_fe2_mul(scale, q[k]);
            if (inb)
                g = ez_fe2_mul(g, eq1(rv, ez_fe2_from_fe(k)));
            msg[k == 0 ? 0 : k - 1] = g;
        }
        ez_transcript_absorb_fe2(t, "sumcheck/round", msg, deg);
        ez_fe2 rho = ez_transcript_challenge_fe2(t, "sumcheck/r");
        pt[v] = rho;

        cprime = interp(q, D, rho, inv_dq);
        if (inb)
            scale = ez_fe2_mul(scale, eq1(rv, rho));

        if (writes) {
            /* This round's bound tables are the next round's sources. */
            for (unsigned j = 0; j < nf; j++) {
                curb[j] = NULL;
                cure[j] = R.dst[j];
            }
            held = wbuf;
        }
        if (writes || npend == 0) {
            npend = 1;
            R.rp = rho;
            R.rpw = ez_fe_mul_w(rho.c1);
            R.lwp = R.lw;
        } else {
            /* After the small-value round: two challenges pending on the inputs. */
            npend = 2;
            R.lw1 = R.lwp;
            R.lw2 = R.lw;
            R.d1 = (size_t)1 << R.lw1;
            R.d2 = spread((size_t)1 << R.lw2, R.lw1);
            for (unsigned c = 0; c < 4; c++) {
                ez_fe2 w1 = c & 1 ? R.rp : ez_fe2_sub(ez_fe2_one(), R.rp);
                ez_fe2 w2 = c >> 1 ? rho : ez_fe2_sub(ez_fe2_one(), rho);
                R.w4[c] = ez_fe2_mul(w1, w2);
            }
        }
        for (unsigned i = pos; i + 1 < m; i++)
            rem[i] = rem[i + 1];
        m--;
    }
    /* The pending binds of the last round(s): one value per factor is left. */
    for (unsigned j = 0; j < nf; j++) {
        if (npend == 2) {
            const ez_fe *F = curb[j];
            ez_fe2 acc = ez_fe2_zero();
            for (unsigned c = 0; c < 4; c++)
                acc = ez_fe2_add(acc, ez_fe2_mul_fe(R.w4[c], F[(c & 1) * R.d1 + (c >> 1) * R.d2]));
            proof->evals[j] = acc;
        } else if (curb[j]) {
            ez_fe df = ez_fe_sub(curb[j][1], curb[j][0]);
            proof->evals[j] = ez_fe2_add(ez_fe2_from_fe(curb[j][0]), ez_fe2_mul_fe(R.rp, df));
        } else {
            proof->evals[j] = ez_fe2_add(cure[j][0], ez_fe2_mul(R.rp, ez_fe2_sub(cure[j][1], cure[j][0])));
        }
    }
finish:
    ez_transcript_absorb_fe2(t, "sumcheck/evals", proof->evals, nf);
    if (point)
        memcpy(point, pt, n * sizeof *pt);
    if (evals)
        memcpy(evals, proof->evals, nf * sizeof *evals);
out:
    for (unsigned j = 0; j < EZ_SC_MAX_FACTORS; j++) {
        free(bufs[j][0]);
        free(bufs[j][1]);
    }
    free(elo);
    free(elow);
    free(ehi);
    if (st != EZ_OK)
        ez_sumcheck_proof_clear(proof);
    return st;
}

ez_status ez_sumcheck_prove(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                            const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim,
                            ez_sumcheck_proof *proof, ez_fe2 *point, ez_fe2 *evals)
{
    return prove(t, d, coeffs, eq_point, factors, claim, proof, point, evals, false);
}

ez_status ez_sumcheck_prove_reference(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                      const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim,
                                      ez_sumcheck_proof *proof, ez_fe2 *point, ez_fe2 *evals)
{
    return prove(t, d, coeffs, eq_point, factors, claim, proof, point, evals, true);
}

ez_status ez_sumcheck_verify(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                             const ez_fe2 *eq_point, ez_fe2 claim, const ez_sumcheck_proof *proof,
                             ez_fe2 *point, ez_fe2 *evals)
{
    if (!t || ez_sumcheck_desc_check(d) != EZ_OK || (d->eq_vars && !eq_point))
        return EZ_ERR_INVALID;
    const unsigned n = d->nvars, nf = d->nfactors, deg = ez_sumcheck_degree(d);
    /* The proof's shape must be the one the statement fixes. */
    if (!proof || proof->nvars != n || proof->degree != deg || proof->nfactors != nf || !proof->evals ||
        (n > 0 && !proof->rounds))
        return EZ_ERR_REJECT;
    absorb_header(t, d, deg, coeffs, eq_point, claim);
    ez_fe2 rb[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS];
    spread_eq_point(rb, d, eq_point);
    ez_fe inv_dg = inv_factorial(deg);
    for (unsigned round = 0; round < n; round++) {
        /* Thaler §4.1 round check: g(0) + g(1) = claim holds by construction of g(1);
         * the message fixes g of degree <= deg, evaluated at the fresh challenge. */
        const ez_fe2 *msg = proof->rounds + (size_t)round * deg;
        ez_fe2 g[SC_GPTS_MAX];
        g[0] = msg[0];
        g[1] = ez_fe2_sub(claim, msg[0]);
        for (unsigned k = 2; k <= deg; k++)
            g[k] = msg[k - 1];
        ez_transcript_absorb_fe2(t, "sumcheck/round", msg, deg);
        ez_fe2 rho = ez_transcript_challenge_fe2(t, "sumcheck/r");
        pt[d->order[round]] = rho;
        claim = interp(g, deg, rho, inv_dg);
    }
    ez_transcript_absorb_fe2(t, "sumcheck/evals", proof->evals, nf);
    /* Final check: the last claim against the oracle values the caller discharges. */
    ez_fe2 e = ez_fe2_one();
    for (unsigned v = 0; v < n; v++)
        if ((d->eq_vars >> v) & 1)
            e = ez_fe2_mul(e, eq1(rb[v], pt[v]));
    ez_fe2 expect = ez_fe2_mul(e, combine_terms(d, coeffs, proof->evals));
    if (!ez_fe2_eq(expect, claim))
        return EZ_ERR_REJECT;
    if (point)
        memcpy(point, pt, n * sizeof *pt);
    if (evals)
        memcpy(evals, proof->evals, nf * sizeof *evals);
    return EZ_OK;
}

/* ---- shared with lib/sumcheck_box.c (lib/sumcheck_internal.h) ---------------------------- */

void ez_sumcheck_absorb_header(ez_transcript *t, const ez_sumcheck_desc *d, unsigned deg, const ez_fe2 *coeffs,
                               const ez_fe2 *eq_point, ez_fe2 claim)
{
    absorb_header(t, d, deg, coeffs, eq_point, claim);
}

ez_fe2 ez_sumcheck_interp(const ez_fe2 *v, unsigned D, ez_fe2 x, ez_fe inv_dfact)
{
    return interp(v, D, x, inv_dfact);
}

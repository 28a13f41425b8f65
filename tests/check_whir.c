/* Tests for lib/whir.{h,c}, lib/whir_prove.c, lib/whir_verify.c and the WHIR backend of
 * lib/pcs.h (EZ_PCS_SCHEME_WHIR) and lib/fe2_dot.c (round 0's lane kernel); protocol in
 * docs/protocol-kernel-pcs.md §8-11.
 *
 * The centre piece is ref_open: an independent, deliberately naive prover written from
 * the documented protocol (dense weight tables, each oracle evaluated point by point by
 * Horner's rule, no sparse terms, no codeword look-ups). Honest, it must produce the
 * library's proof byte for byte (a differential test of every fast path); with a
 * `cheat` it deviates at exactly one step and otherwise stays consistent with the
 * transcript, so each malicious test exercises one verifier check. */
#include <check.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fe2_dot.h"
#include "lib/merkle.h"
#include "lib/mle.h"
#include "lib/ntt.h"
#include "lib/pcs.h"
#include "lib/pcs_internal.h"
#include "lib/whir.h"
#include "lib/whir_internal.h"
#include "tests/testutil.h"

static bool sanitized(void)
{
    return getenv("EZ_SANITIZERS") != NULL;
}

/* ---- naive helpers ------------------------------------------------------------------- */

static uint64_t brev(uint64_t x, unsigned bits)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        if ((x >> i) & 1)
            r |= (uint64_t)1 << (bits - 1 - i);
    return r;
}

/* docs §9: position q = a n + j of an oracle with 2^logn messages and blowup 2^c holds
 * the point w_N^(a + 2^c brev(j)). */
static ez_fe point_of(unsigned logn, unsigned c, uint64_t q)
{
    uint64_t n = (uint64_t)1 << logn, e = (q / n) + (brev(q % n, logn) << c);
    return ez_fe_pow(ez_fe_root_of_unity(logn + c), e);
}

static ez_fe2 eq1(ez_fe2 a, ez_fe2 b)
{
    ez_fe2 one = ez_fe2_one();
    return ez_fe2_add(ez_fe2_mul(a, b), ez_fe2_mul(ez_fe2_sub(one, a), ez_fe2_sub(one, b)));
}

/* eq(pow(y), x) over n bits, one product per call. */
static ez_fe2 eq_pow_x(ez_fe2 y, uint64_t x, unsigned n)
{
    ez_fe2 acc = ez_fe2_one();
    for (unsigned b = 0; b < n; b++, y = ez_fe2_mul(y, y))
        acc = ez_fe2_mul(acc, eq1(y, ez_fe2_from_fe((x >> b) & 1)));
    return acc;
}

/* Multilinear evaluations over n bits -> coefficients (naive Möbius). */
static void mobius2(ez_fe2 *a, unsigned n)
{
    for (unsigned b = 0; b < n; b++)
        for (uint64_t x = 0; x < ((uint64_t)1 << n); x++)
            if ((x >> b) & 1)
                a[x] = ez_fe2_sub(a[x], a[x ^ ((uint64_t)1 << b)]);
}

static ez_fe2 horner2(const ez_fe2 *c, size_t n, ez_fe2 y)
{
    ez_fe2 acc = ez_fe2_zero();
    for (size_t u = n; u-- > 0;)
        acc = ez_fe2_add(ez_fe2_mul(acc, y), c[u]);
    return acc;
}

/* ---- the reference prover -------------------------------------------------------------- */

enum {
    CH_NONE,
    CH_ROUND,  /* add 1 to g(0) of global sumcheck round `at` */
    CH_OOD,    /* add 1 to the out-of-domain answer of oracle `at` */
    CH_FOLD,   /* commit oracle `at` (>= 1) to the fold plus 1 at entry 0 */
    CH_FINAL,  /* add 1 to entry 0 of the final polynomial */
    CH_LEAF,   /* add 1 to the first opened leaf entry of oracle `at` */
    CH_MERKLE, /* flip a bit of the first Merkle sibling of oracle `at`'s opening */
    CH_FINAL_SUM, /* a final polynomial other than the fold, changed at entries 0 and 1 by
                     W[1] and -W[0]: the final sumcheck over it (sum f W) still holds */
    CH_FINAL_NONCANON, /* entry 0 of the final polynomial written and absorbed as c0 + p
                          (the instance must make it 0: then p encodes the same value) */
};

typedef struct {
    int what;
    unsigned at;
} cheat;

/* A naive oracle: leaves[q * width + ...] and its tree. */
typedef struct {
    unsigned logn, c, k;
    size_t width;
    ez_fe *leaves;
    ez_merkle *tree;
} ref_oracle;

/* Encode table f (2^mv extension entries; base = only c0 is used and stored) as rows
 * t = x mod 2^k, each row's univariate polynomial evaluated at every point. */
static void ref_encode(ref_oracle *o, const ez_fe2 *f, unsigned mv, unsigned k, unsigned c, bool base)
{
    unsigned logn = mv - k;
    size_t n = (size_t)1 << logn, R = (size_t)1 << k, N = n << c;
    o->logn = logn;
    o->c = c;
    o->k = k;
    o->width = base ? R : 2 * R;
    o->leaves = malloc(N * o->width * sizeof(ez_fe));
    ez_fe2 *row = malloc(n * sizeof *row), *ev = malloc(N * sizeof *ev);
    ez_fe *c0 = malloc(n * sizeof *c0), *c1 = malloc(n * sizeof *c1);
    ez_ntt *ntt = NULL;
    ck_assert_int_eq(ez_ntt_new(&ntt, logn), EZ_OK);
    for (size_t t = 0; t < R; t++) {
        for (size_t u = 0; u < n; u++)
            row[u] = f[t + R * u];
        mobius2(row, logn);
        if (n <= 64) {
            /* point by point */
            for (size_t q = 0; q < N; q++)
                ev[q] = horner2(row, n, ez_fe2_from_fe(point_of(logn, c, q)));
        } else {
            /* each coset by lib/ntt.h's natural-order coset transform (not the WHIR
             * encoder): position a n + j is the coset's point of index brev(j) */
            for (size_t a = 0; a < ((size_t)1 << c); a++) {
                for (size_t u = 0; u < n; u++) {
                    c0[u] = row[u].c0;
                    c1[u] = row[u].c1;
                }
                ez_fe sh = ez_fe_pow(ez_fe_root_of_unity(logn + c), a);
                ez_ntt_coset_forward(ntt, c0, logn, sh);
                ez_ntt_coset_forward(ntt, c1, logn, sh);
                for (size_t j = 0; j < n; j++) {
                    size_t jj = (size_t)brev(j, logn);
                    ev[a * n + j] = ez_fe2_make(c0[jj], c1[jj]);
                }
            }
        }
        for (size_t q = 0; q < N; q++) {
            ez_fe2 v = ev[q];
            if (base) {
                ck_assert_uint_eq(v.c1, 0);
                o->leaves[q * o->width + t] = v.c0;
            } else {
                o->leaves[q * o->width + 2 * t] = v.c0;
                o->leaves[q * o->width + 2 * t + 1] = v.c1;
            }
        }
    }
    free(row);
    free(ev);
    free(c0);
    free(c1);
    ez_ntt_free(ntt);
    ez_digest *lh = malloc(N * sizeof *lh);
    for (size_t q = 0; q < N; q++)
        ez_merkle_hash_leaf(&lh[q], o->leaves + q * o->width, o->width);
    ck_assert_int_eq(ez_merkle_new(&o->tree, lh, logn + c), EZ_OK);
    free(lh);
}

static void ref_oracle_free(ref_oracle *o)
{
    free(o->leaves);
    ez_merkle_free(o->tree);
    memset(o, 0, sizeof *o);
}

typedef struct {
    const ez_whir_params *par;
    ez_transcript *t;
    ez_writer *w;
    cheat ch;
    unsigned round;     /* global sumcheck round counter */
    bool applied;       /* the cheat took effect */
    ez_fe2 *f, *W;      /* dense tables */
    unsigned len;       /* log2 of their current length */
    ez_fe2 r[64];       /* challenges, by bit */
} ref_state;

static void ref_sumcheck_round(ref_state *s)
{
    size_t half = (size_t)1 << (s->len - 1);
    ez_fe2 g0 = ez_fe2_zero(), g2 = ez_fe2_zero();
    for (size_t i = 0; i < half; i++) {
        ez_fe2 f0 = s->f[2 * i], f1 = s->f[2 * i + 1], w0 = s->W[2 * i], w1 = s->W[2 * i + 1];
        g0 = ez_fe2_add(g0, ez_fe2_mul(f0, w0));
        g2 = ez_fe2_add(g2, ez_fe2_mul(ez_fe2_sub(ez_fe2_add(f1, f1), f0), ez_fe2_sub(ez_fe2_add(w1, w1), w0)));
    }
    if (s->ch.what == CH_ROUND && s->ch.at == s->round) {
        g0 = ez_fe2_add(g0, ez_fe2_one());
        s->applied = true;
    }
    ez_fe2 g[2] = {g0, g2};
    ez_writer_bytes(s->w, g, sizeof g);
    ez_transcript_absorb_fe2(s->t, "whir/sumcheck", g, 2);
    ez_fe2 a = ez_transcript_challenge_fe2(s->t, "whir/fold");
    for (size_t i = 0; i < half; i++) {
        s->f[i] = ez_fe2_add(s->f[2 * i], ez_fe2_mul(a, ez_fe2_sub(s->f[2 * i + 1], s->f[2 * i])));
        s->W[i] = ez_fe2_add(s->W[2 * i], ez_fe2_mul(a, ez_fe2_sub(s->W[2 * i + 1], s->W[2 * i])));
    }
    s->r[s->round++] = a;
    s->len--;
}

/* Queries to oracle o (index oi): draw, write the distinct leaves and the siblings. The
 * drawn points go to y[] (draw order). */
static void ref_queries(ref_state *s, const ref_oracle *o, unsigned oi, ez_fe2 *y)
{
    unsigned nq = s->par->t[oi], logN = o->logn + o->c;
    uint64_t q[256], d[256];
    size_t nd = 0;
    for (unsigned j = 0; j < nq; j++) {
        q[j] = ez_transcript_challenge_index(s->t, "whir/query", (uint64_t)1 << logN);
        y[j] = ez_fe2_from_fe(point_of(o->logn, o->c, q[j]));
        size_t at = 0;
        while (at < nd && d[at] < q[j])
            at++;
        if (at < nd && d[at] == q[j])
            continue;
        memmove(d + at + 1, d + at, (nd - at) * sizeof *d);
        d[at] = q[j];
        nd++;
    }
    for (size_t j = 0; j < nd; j++) {
        ez_fe lv[512];
        memcpy(lv, o->leaves + d[j] * o->width, o->width * sizeof *lv);
        if (s->ch.what == CH_LEAF && s->ch.at == oi && j == 0) {
            lv[0] = ez_fe_add(lv[0], 1);
            s->applied = true;
        }
        ez_writer_bytes(s->w, lv, o->width * sizeof *lv);
    }
    size_t nmp = ez_merkle_batch_count(logN, d, nd);
    ez_digest *mp = malloc((nmp + 1) * sizeof *mp);
    ck_assert_int_eq(ez_merkle_batch_open(o->tree, d, nd, mp), EZ_OK);
    if (s->ch.what == CH_MERKLE && s->ch.at == oi && nmp > 0) {
        mp[0].h[5] ^= 0x08;
        s->applied = true;
    }
    ez_merkle_digests_write(s->w, mp, nmp);
    free(mp);
}

/* The documented opening, naively. s_ has 2^m entries. */
static bool ref_open(const ez_whir_params *par, const ez_fe *s_, const ez_whir_term *terms, size_t nt, ez_fe2 sigma,
                     ez_transcript *t, ez_writer *w, cheat ch, uint8_t root0[32])
{
    unsigned m = par->m;
    size_t n = (size_t)1 << m;
    ref_state s = {.par = par, .t = t, .w = w, .ch = ch, .len = m};
    s.f = malloc(n * sizeof *s.f);
    s.W = calloc(n, sizeof *s.W);
    for (size_t x = 0; x < n; x++)
        s.f[x] = ez_fe2_from_fe(s_[x]);
    /* W = sum of the terms, entry by entry */
    for (size_t j = 0; j < nt; j++)
        for (uint64_t x = terms[j].off; x < terms[j].off + ((uint64_t)1 << terms[j].b); x++) {
            ez_fe2 v = terms[j].coef;
            for (unsigned b = 0; b < terms[j].b; b++)
                v = ez_fe2_mul(v, eq1(terms[j].z[b], ez_fe2_from_fe((x >> b) & 1)));
            s.W[x] = ez_fe2_add(s.W[x], v);
        }
    ref_oracle prev;
    ref_encode(&prev, s.f, m, par->k[0], par->c[0], true);
    memcpy(root0, ez_merkle_root(prev.tree)->h, 32);

    uint8_t pb[8 * (2 + 2 * EZ_WHIR_MAX_ORACLES)];
    size_t np = 0;
    uint64_t pv[2 + 2 * EZ_WHIR_MAX_ORACLES];
    pv[np++] = par->m;
    pv[np++] = par->noracles;
    for (unsigned i = 0; i < par->noracles; i++) {
        pv[np++] = par->k[i];
        pv[np++] = par->c[i];
    }
    for (size_t i = 0; i < 8 * np; i++)
        pb[i] = (uint8_t)(pv[i / 8] >> (8 * (i % 8)));
    ez_transcript_absorb_bytes(t, "whir/params", pb, 8 * np);
    ez_transcript_absorb_fe2(t, "whir/sum", &sigma, 1);
    for (unsigned r = 0; r < par->k[0]; r++)
        ref_sumcheck_round(&s);
    for (unsigned i = 1; i < par->noracles; i++) {
        unsigned mv = par->mv[i];
        if (ch.what == CH_FOLD && ch.at == i) {
            s.f[0] = ez_fe2_add(s.f[0], ez_fe2_one());
            s.applied = true;
        }
        ref_oracle cur;
        ref_encode(&cur, s.f, mv, par->k[i], par->c[i], false);
        ez_writer_bytes(w, ez_merkle_root(cur.tree)->h, 32);
        ez_transcript_absorb_bytes(t, "whir/root", ez_merkle_root(cur.tree)->h, 32);
        ez_fe2 z = ez_transcript_challenge_fe2(t, "whir/ood-point"), ans = ez_fe2_zero();
        for (size_t x = 0; x < ((size_t)1 << mv); x++)
            ans = ez_fe2_add(ans, ez_fe2_mul(s.f[x], eq_pow_x(z, x, mv)));
        if (ch.what == CH_OOD && ch.at == i) {
            ans = ez_fe2_add(ans, ez_fe2_one());
            s.applied = true;
        }
        ez_writer_bytes(w, &ans, sizeof ans);
        ez_transcript_absorb_fe2(t, "whir/ood", &ans, 1);
        ez_fe2 y[256];
        ref_queries(&s, &prev, i - 1, y);
        ez_fe2 g = ez_transcript_challenge_fe2(t, "whir/combine"), gp = ez_fe2_mul(g, g);
        for (size_t x = 0; x < ((size_t)1 << mv); x++)
            s.W[x] = ez_fe2_add(s.W[x], ez_fe2_mul(g, eq_pow_x(z, x, mv)));
        for (unsigned j = 0; j < par->t[i - 1]; j++, gp = ez_fe2_mul(gp, g))
            for (size_t x = 0; x < ((size_t)1 << mv); x++)
                s.W[x] = ez_fe2_add(s.W[x], ez_fe2_mul(gp, eq_pow_x(y[j], x, mv)));
        ref_oracle_free(&prev);
        prev = cur;
        for (unsigned r = 0; r < par->k[i]; r++)
            ref_sumcheck_round(&s);
    }
    size_t lf = (size_t)1 << par->mfinal;
    if (ch.what == CH_FINAL) {
        s.f[0] = ez_fe2_add(s.f[0], ez_fe2_one());
        s.applied = true;
    }
    if (ch.what == CH_FINAL_SUM) {
        ck_assert_uint_ge(lf, 2);
        ez_fe2 w0 = s.W[0], w1 = s.W[1];
        s.f[0] = ez_fe2_add(s.f[0], w1);
        s.f[1] = ez_fe2_sub(s.f[1], w0);
        s.applied = !ez_fe2_is_zero(w0) || !ez_fe2_is_zero(w1);
    }
    if (ch.what == CH_FINAL_NONCANON) {
        ck_assert(ez_fe2_is_zero(s.f[0]));
        s.f[0].c0 = EZ_P;
        s.applied = true;
    }
    ez_writer_bytes(w, s.f, lf * sizeof *s.f);
    ez_transcript_absorb_fe2(t, "whir/final", s.f, lf);
    if (ch.what == CH_FINAL_NONCANON)
        s.f[0].c0 = 0; /* the prover goes on with the value it encodes */
    ez_fe2 y[256];
    ref_queries(&s, &prev, par->noracles - 1, y);
    for (unsigned r = 0; r < par->mfinal; r++)
        ref_sumcheck_round(&s);
    ref_oracle_free(&prev);
    free(s.f);
    free(s.W);
    return s.applied;
}

/* ---- shared test fixtures ------------------------------------------------------------ */

/* A random WHIR instance: s (2^m entries, real length len), a few terms (one over the
 * whole vector, one on a block, one on a tiny block, one on a single entry) with their
 * true sum. zbuf holds the terms' coordinates. */
typedef struct {
    ez_whir_params par;
    ez_fe *s;
    uint64_t len;
    ez_whir_term terms[6];
    size_t nt;
    ez_fe2 zbuf[6][32];
    ez_fe2 sigma;
} instance;

static ez_fe2 true_sum(const instance *in)
{
    ez_fe2 acc = ez_fe2_zero();
    for (size_t j = 0; j < in->nt; j++) {
        const ez_whir_term *w = &in->terms[j];
        for (uint64_t x = w->off; x < w->off + ((uint64_t)1 << w->b); x++) {
            ez_fe2 v = ez_fe2_mul_fe(w->coef, in->s[x]);
            for (unsigned b = 0; b < w->b; b++)
                v = ez_fe2_mul(v, eq1(w->z[b], ez_fe2_from_fe((x >> b) & 1)));
            acc = ez_fe2_add(acc, v);
        }
    }
    return acc;
}

static void instance_make(instance *in, ez_rng *r, const ez_whir_params *par, uint64_t len)
{
    memset(in, 0, sizeof *in);
    in->par = *par;
    unsigned m = par->m;
    size_t n = (size_t)1 << m;
    in->s = calloc(n, sizeof *in->s);
    in->len = len;
    for (uint64_t x = 0; x < len; x++)
        in->s[x] = ez_rng_fe(r);
    unsigned bs[6] = {m, m > 2 ? m - 2 : 0, m > 3 ? 2 : 0, 0, m > 1 ? m - 1 : 0, par->k[0]};
    for (size_t j = 0; j < 6; j++) {
        unsigned b = bs[j];
        uint64_t nblk = (uint64_t)1 << (m - b);
        in->terms[j].b = b;
        in->terms[j].off = (ez_rng_next(r) % nblk) << b;
        in->terms[j].coef = ez_rng_fe2(r);
        for (unsigned q = 0; q < b; q++)
            in->zbuf[j][q] = ez_rng_fe2(r);
        in->terms[j].z = in->zbuf[j];
    }
    in->nt = 6;
    in->sigma = true_sum(in);
}

static void instance_free(instance *in)
{
    free(in->s);
}

/* n instances and their committing provers */
static void instances_free(ez_whir_prover **p, instance *in, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        ez_whir_prover_free(p[j]);
        instance_free(&in[j]);
    }
}

/* A batched instance's terms must lie in its live entries [0, L 2^k0) (§9a): redraw
 * every term inside them (smaller where it does not fit), with the true sum. */
static void instance_live_terms(instance *in, ez_rng *r)
{
    unsigned k0 = in->par.k[0];
    uint64_t lim = ((in->len + ((uint64_t)1 << k0) - 1) >> k0) << k0;
    for (size_t j = 0; j < in->nt; j++) {
        ez_whir_term *w = &in->terms[j];
        while (w->b > 0 && ((uint64_t)1 << w->b) > lim)
            w->b--;
        w->off = (ez_rng_next(r) % (lim >> w->b)) << w->b;
    }
    in->sigma = true_sum(in);
}

/* The reference prover's opening of in (ref_open) for the claimed sum sigma, cheating as
 * ch, into a new writer w from a fresh transcript. Returns ref_open's verdict. */
static bool ref_proof(const ez_whir_params *par, const instance *in, ez_fe2 sigma, cheat ch, ez_writer *w,
                      uint8_t root[32])
{
    ez_transcript t;
    ez_transcript_init(&t, "check_whir");
    ez_writer_init(w);
    return ref_open(par, in->s, in->terms, in->nt, sigma, &t, w, ch, root);
}

/* The library prover's opening of in for the claimed sum sigma into a new writer w from a
 * fresh transcript. */
static void lib_proof(ez_whir_prover *pr, const instance *in, ez_fe2 sigma, ez_writer *w)
{
    ez_transcript t;
    ez_transcript_init(&t, "check_whir");
    ez_writer_init(w);
    ck_assert_int_eq(ez_whir_open(pr, &t, in->terms, in->nt, sigma, w), EZ_OK);
}

static ez_status lib_verify(const instance *in, const uint8_t root[32], ez_fe2 sigma, const uint8_t *data, size_t len,
                            bool *done)
{
    ez_transcript t;
    ez_transcript_init(&t, "check_whir");
    ez_reader r;
    ez_reader_init(&r, data, len);
    ez_status st = ez_whir_verify(&in->par, root, &t, in->terms, in->nt, sigma, &r);
    if (done)
        *done = ez_reader_done(&r);
    return st;
}

/* Custom parameter sets that exercise 1, 2 and 3 oracles at small sizes. */
static void small_params(ez_whir_params *p, int which)
{
    static const unsigned k[4][3] = {{3, 0, 0}, {3, 2, 0}, {2, 2, 2}, {4, 3, 2}};
    static const unsigned c[4][3] = {{2, 0, 0}, {2, 2, 0}, {2, 3, 3}, {2, 3, 4}};
    static const unsigned m[4] = {7, 8, 9, 11}, n[4] = {1, 2, 3, 3};
    ck_assert_int_eq(ez_whir_params_make(p, m[which], n[which], k[which], c[which]), EZ_OK);
}

/* ---- tests: parameters, points, building blocks ------------------------------------- */

START_TEST(test_whir_queries_exact)
{
    /* t(c) is the least t with (2^c + 1)^t * 2^100 <= 2^((c+1) t), checked with GMP */
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    for (unsigned c = 1; c <= 8; c++) {
        unsigned t = ez_whir_queries(c);
        for (unsigned tt = t - 1; tt <= t; tt++) {
            mpz_ui_pow_ui(a, (1ul << c) + 1, tt);
            mpz_mul_2exp(a, a, 100);
            mpz_set_ui(b, 1);
            mpz_mul_2exp(b, b, (c + 1) * tt);
            ck_assert_int_eq(mpz_cmp(a, b) <= 0, tt == t);
        }
    }
    mpz_clears(a, b, NULL);
    ck_assert_uint_eq(ez_whir_queries(0), 0);
    ck_assert_uint_eq(ez_whir_queries(2), 148);
}
END_TEST

START_TEST(test_whir_params)
{
    for (unsigned m = 1; m <= EZ_WHIR_MAX_VARS; m++) {
        ez_whir_params p;
        ck_assert_int_eq(ez_whir_params_default(&p, m), EZ_OK);
        ck_assert_uint_eq(p.m, m);
        ck_assert_uint_eq(p.c[0], 2);
        unsigned left = m;
        for (unsigned i = 0; i < p.noracles; i++) {
            ck_assert_uint_eq(p.mv[i], left);
            ck_assert_uint_ge(p.k[i], 1);
            ck_assert(i == 0 || p.c[i] >= p.c[i - 1]);
            ck_assert_uint_eq(p.t[i], ez_whir_queries(p.c[i]));
            ck_assert_uint_le(ez_whir_log_len(&p, i), EZ_NTT_MAX_LOG);
            /* the folding error (3 + |L_i| / 2) / p^2 stays below 2^-100.9 (§10) */
            ck_assert_uint_le(p.mv[i] + p.c[i] - 1, 27); /* (2^27 + 3) / p^2 < 2^-100.9 */
            left -= p.k[i];
        }
        ck_assert_uint_eq(p.mfinal, left);
        ck_assert_uint_le(p.mfinal, 12);
    }
    ez_whir_params p;
    ck_assert_int_eq(ez_whir_params_default(&p, 0), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_params_default(&p, EZ_WHIR_MAX_VARS + 1), EZ_ERR_INVALID);
    unsigned k[3] = {3, 2, 2}, c[3] = {2, 3, 3};
    ck_assert_int_eq(ez_whir_params_make(&p, 9, 3, k, c), EZ_OK);
    ck_assert_uint_eq(p.mfinal, 2);
    unsigned cbad[3] = {3, 3, 3}, cdec[3] = {2, 3, 2}, kbig[3] = {5, 5, 5}, k0[3] = {0, 2, 2};
    ck_assert_int_eq(ez_whir_params_make(&p, 9, 3, k, cbad), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_params_make(&p, 9, 3, k, cdec), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_params_make(&p, 9, 3, kbig, c), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_params_make(&p, 9, 3, k0, c), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_params_make(&p, 9, 0, k, c), EZ_ERR_INVALID);
    /* the default rule's proof-size choice at 2^22 (docs §9) */
    ck_assert_int_eq(ez_whir_params_default(&p, 22), EZ_OK);
    ck_assert_uint_eq(p.noracles, 3);
    ck_assert_uint_eq(p.k[0], 5);
    ck_assert_uint_eq(p.mfinal, 10);
}
END_TEST

START_TEST(test_whir_points)
{
    for (unsigned logn = 0; logn <= 6; logn++)
        for (unsigned c = 1; c <= 4; c++) {
            uint64_t N = (uint64_t)1 << (logn + c);
            for (uint64_t q = 0; q < N; q++) {
                uint64_t e = ez_whir_point_exp(logn, c, q);
                ck_assert_uint_lt(e, N);
                ck_assert_uint_eq(ez_whir_point_pos(logn, c, e), q);
                ck_assert_uint_eq(ez_whir_root_pow(logn + c, e), point_of(logn, c, q));
            }
        }
}
END_TEST

START_TEST(test_whir_ntt_blocks)
{
    ez_rng r = ez_rng_for("whir_ntt_blocks");
    /* coefficient-form coset encoder against Horner, every size up to 2^9 and blowups */
    for (unsigned logn = 0; logn <= 9; logn++)
        for (unsigned lb = 1; lb <= 4; lb++) {
            ez_ntt_rs *rs = NULL;
            ck_assert_int_eq(ez_ntt_rs_new(&rs, logn, lb), EZ_OK);
            size_t n = (size_t)1 << logn;
            ez_fe *a = malloc(n * sizeof *a), *o = malloc(n * sizeof *o);
            ez_fe2 *a2 = malloc(n * sizeof *a2);
            for (size_t u = 0; u < n; u++) {
                a[u] = ez_rng_fe(&r);
                a2[u] = ez_fe2_from_fe(a[u]);
            }
            for (unsigned k = 0; k < (1u << lb); k++) {
                ez_ntt_rs_coset(rs, o, a, k);
                for (size_t j = 0; j < n; j++) {
                    ez_fe y = point_of(logn, lb, k * n + j);
                    ck_assert_uint_eq(o[j], horner2(a2, n, ez_fe2_from_fe(y)).c0);
                }
            }
            free(a);
            free(o);
            free(a2);
            ez_ntt_rs_free(rs);
        }
    ez_ntt_rs *rs = NULL;
    ck_assert_int_eq(ez_ntt_rs_new(&rs, 4, 0), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_ntt_rs_new(&rs, 4, 5), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_ntt_rs_new(&rs, EZ_NTT_MAX_LOG, 1), EZ_ERR_INVALID);
    /* Möbius over a range of bits against the naive transform, rows independent; and
     * the coefficients reproduce the multilinear extension at pow(y) */
    for (unsigned lo = 0; lo <= 3; lo++)
        for (unsigned nb = 0; nb <= 16; nb += (nb < 4 ? 1 : 6)) {
            size_t n = (size_t)1 << (lo + nb);
            ez_fe *a = malloc(n * sizeof *a);
            ez_fe2 *b = malloc(((size_t)1 << nb) * sizeof *b);
            for (size_t x = 0; x < n; x++)
                a[x] = ez_rng_fe(&r);
            size_t row = (size_t)(ez_rng_next(&r) % ((uint64_t)1 << lo));
            for (size_t u = 0; u < ((size_t)1 << nb); u++)
                b[u] = ez_fe2_from_fe(a[row + (u << lo)]);
            ez_fe2 y = ez_rng_fe2(&r), mle = ez_fe2_zero();
            if (nb <= 10)
                for (size_t u = 0; u < ((size_t)1 << nb); u++)
                    mle = ez_fe2_add(mle, ez_fe2_mul(b[u], eq_pow_x(y, u, nb)));
            ez_ntt_mobius(a, lo, nb);
            if (nb <= 10) {
                mobius2(b, nb);
                for (size_t u = 0; u < ((size_t)1 << nb); u++)
                    ck_assert_uint_eq(a[row + (u << lo)], b[u].c0);
                for (size_t u = 0; u < ((size_t)1 << nb); u++)
                    b[u] = ez_fe2_from_fe(a[row + (u << lo)]);
                ck_assert(ez_fe2_eq(horner2(b, (size_t)1 << nb, y), mle));
            }
            free(a);
            free(b);
        }
}
END_TEST

/* The opening's leaves of oracle 0 without the codeword (ez_whir_prover_leaves0) are
 * the codeword's leaves, for every size around the slice split (2^6) and a few larger
 * ones, random and edge positions, a short vector (zero rows) and duplicates. */
START_TEST(test_whir_leaves0)
{
    ez_rng r = ez_rng_for("whir_leaves0");
    unsigned ms[] = {1, 2, 3, 5, 7, 8, 9, 10, 11, 12, 14, 16, 18};
    for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
        ez_whir_params par;
        ck_assert_int_eq(ez_whir_params_default(&par, ms[mi]), EZ_OK);
        size_t n = (size_t)1 << par.m;
        uint64_t len = mi % 3 == 2 ? n / 2 + 1 : n;
        ez_fe *s = malloc(n * sizeof *s);
        for (size_t x = 0; x < n; x++)
            s[x] = x < len ? ez_rng_fe(&r) : 0;
        ez_whir_prover *p = NULL;
        uint8_t root[32];
        ck_assert_int_eq(ez_whir_commit(&p, root, &par, s, len), EZ_OK);
        ez_fe *enc = NULL;
        ck_assert_int_eq(ez_whir_prover_encode0(p, &enc), EZ_OK);
        unsigned logN = ez_whir_log_len(&par, 0);
        size_t N = (size_t)1 << logN, R = (size_t)1 << par.k[0], np = 40;
        uint64_t pos[40];
        for (size_t j = 0; j < np; j++)
            pos[j] = j == 0 ? 0 : j == 1 ? N - 1 : j == 2 ? pos[1] : ez_rng_next(&r) % N;
        ez_fe *out = malloc(np * R * sizeof *out);
        ck_assert_int_eq(ez_whir_prover_leaves0(p, pos, np, out), EZ_OK);
        for (size_t j = 0; j < np; j++)
            for (size_t t = 0; t < R; t++)
                ck_assert_msg(out[j * R + t] == enc[pos[j] * R + t], "m %u leaf %llu row %zu", par.m,
                              (unsigned long long)pos[j], t);
        pos[0] = N;
        ck_assert_int_eq(ez_whir_prover_leaves0(p, pos, 1, out), EZ_ERR_INVALID);
        ck_assert_int_eq(ez_whir_prover_leaves0(p, pos, 0, out), EZ_OK);
        free(out);
        free(enc);
        free(s);
        ez_whir_prover_free(p);
    }
}
END_TEST

START_TEST(test_whir_merkle_batch_hash)
{
    /* the sixteen- and two-lane hashers give exactly ez_merkle_hash_leaf's digests, every
     * length class (tail in one or two padding blocks, multiple full blocks), counts
     * with and without a remainder */
    ez_rng r = ez_rng_for("whir_merkle_batch_hash");
    const size_t counts[] = {0, 3, 6, 16, 19, 37};
    ez_fe *data = malloc(80 * 37 * sizeof *data);
    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < 80 * 37; i++)
        data[i] = ez_rng_fe(&r);
    for (size_t m = 0; m <= 70; m++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
            size_t n = counts[c];
            ez_digest a[37], b;
            ez_merkle_hash_leaves(a, data, m, 80, n);
            for (size_t i = 0; i < n; i++) {
                ez_merkle_hash_leaf(&b, data + 80 * i, m);
                ck_assert_mem_eq(a[i].h, b.h, 32);
            }
        }
    /* a tree built level by level (sixteen and two nodes at a time) against single node
     * hashes */
    ez_digest lv[64];
    for (size_t i = 0; i < 64; i++)
        ez_merkle_hash_leaf(&lv[i], data + i, 3);
    ez_merkle *tr = NULL;
    ck_assert_int_eq(ez_merkle_new(&tr, lv, 6), EZ_OK);
    for (unsigned w = 32; w >= 1; w /= 2)
        for (unsigned k = 0; k < w; k++)
            ez_merkle_hash_node(&lv[k], &lv[2 * k], &lv[2 * k + 1]);
    ck_assert_mem_eq(lv[0].h, ez_merkle_root(tr)->h, 32);
    ez_merkle_free(tr);
    free(data);
}
END_TEST

/* The fold of an oracle-0 leaf is the multilinear extension of s at (alpha, pow(y)),
 * computed directly with lib/mle.h; every leaf is the rows' univariate polynomials at
 * its point (ref_encode, which evaluates point by point). */
START_TEST(test_whir_fold_differential)
{
    ez_rng r = ez_rng_for("whir_fold_differential");
    for (int which = 0; which < 4; which++) {
        ez_whir_params par;
        small_params(&par, which);
        unsigned m = par.m, k = par.k[0];
        size_t n = (size_t)1 << m;
        ez_fe *s = malloc(n * sizeof *s);
        uint64_t len = n - (ez_rng_next(&r) % (n / 2));
        for (size_t x = 0; x < n; x++)
            s[x] = x < len ? ez_rng_fe(&r) : 0;
        ez_whir_prover *pr = NULL;
        uint8_t root[32];
        ck_assert_int_eq(ez_whir_commit(&pr, root, &par, s, len), EZ_OK);
        /* the same root from the naive encoder */
        ez_fe2 *s2 = malloc(n * sizeof *s2);
        for (size_t x = 0; x < n; x++)
            s2[x] = ez_fe2_from_fe(s[x]);
        ref_oracle ro;
        ref_encode(&ro, s2, m, k, par.c[0], true);
        ck_assert_mem_eq(root, ez_merkle_root(ro.tree)->h, 32);
        ez_fe2 alpha[8];
        for (unsigned b = 0; b < k; b++)
            alpha[b] = ez_rng_fe2(&r);
        ez_fe2 eqa[256];
        ez_whir_eq_bits(eqa, alpha, k);
        for (int rep = 0; rep < 8; rep++) {
            uint64_t q = ez_rng_next(&r) % ((uint64_t)1 << ez_whir_log_len(&par, 0));
            ez_fe y = point_of(ro.logn, ro.c, q);
            ez_fe2 fold = ez_fe2_dot_base(eqa, ro.leaves + q * ro.width, (size_t)1 << k);
            /* lib/mle.h order: variable v is bit m-1-v */
            ez_fe2 pt[32], yy = ez_fe2_from_fe(y);
            for (unsigned b = 0; b < m; b++) {
                if (b < k) {
                    pt[m - 1 - b] = alpha[b];
                } else {
                    pt[m - 1 - b] = yy;
                    yy = ez_fe2_sqr(yy);
                }
            }
            ck_assert(ez_fe2_eq(fold, ez_mle_eval_fe(s, n, pt, m)));
        }
        /* the weight evaluation against the dense weight's multilinear extension */
        instance in;
        instance_make(&in, &r, &par, len);
        ez_fe2 rb[32], rm[32];
        for (unsigned b = 0; b < m; b++) {
            rb[b] = ez_rng_fe2(&r);
            rm[m - 1 - b] = rb[b];
        }
        ez_fe2 *W = calloc(n, sizeof *W);
        for (size_t j = 0; j < in.nt; j++)
            for (uint64_t x = in.terms[j].off; x < in.terms[j].off + ((uint64_t)1 << in.terms[j].b); x++) {
                ez_fe2 v = in.terms[j].coef;
                for (unsigned b = 0; b < in.terms[j].b; b++)
                    v = ez_fe2_mul(v, eq1(in.terms[j].z[b], ez_fe2_from_fe((x >> b) & 1)));
                W[x] = ez_fe2_add(W[x], v);
            }
        ck_assert(ez_fe2_eq(ez_whir_terms_eval(in.terms, in.nt, rb, m), ez_mle_eval_fe2(W, n, rm, m)));
        free(W);
        instance_free(&in);
        ref_oracle_free(&ro);
        free(s2);
        free(s);
        ez_whir_prover_free(pr);
    }
}
END_TEST

/* ---- tests: openings ------------------------------------------------------------------ */

/* Library proof == reference proof (byte for byte), accepted, exactly consumed. */
START_TEST(test_whir_honest_matches_reference)
{
    ez_rng r = ez_rng_for("whir_honest_matches_reference");
    for (int which = 0; which < 4; which++) {
        ez_whir_params par;
        small_params(&par, which);
        size_t n = (size_t)1 << par.m;
        instance in;
        instance_make(&in, &r, &par, which == 2 ? n - 37 : n);
        ez_whir_prover *pr = NULL;
        uint8_t root[32], rroot[32];
        ck_assert_int_eq(ez_whir_commit(&pr, root, &par, in.s, in.len), EZ_OK);
        ez_writer w1, w2;
        lib_proof(pr, &in, in.sigma, &w1);
        ref_proof(&par, &in, in.sigma, (cheat){CH_NONE, 0}, &w2, rroot);
        ck_assert_mem_eq(root, rroot, 32);
        ck_assert_uint_eq(w1.len, w2.len);
        ck_assert_mem_eq(w1.data, w2.data, w1.len);
        bool done = false;
        ck_assert_int_eq(lib_verify(&in, root, in.sigma, w1.data, w1.len, &done), EZ_OK);
        ck_assert(done);
        /* the committing prover kept oracle 0's codeword (EZ_WHIR_KEEP_LOG); one read
         * from its prover data has none and encodes the queried leaves: same proof; read
         * with EZ_SPILL_DIR, its vector and tree on disk from the start: same proof */
        ez_writer pd;
        ez_writer_init(&pd);
        ez_whir_prover_write(&pd, pr);
        char dir[] = "/tmp/ez-whir-read.XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(dir));
        for (int spill = 0; spill < 2; spill++) {
            if (spill)
                ck_assert_int_eq(setenv("EZ_SPILL_DIR", dir, 1), 0);
            ez_reader rd;
            ez_reader_init(&rd, pd.data, pd.len);
            ez_whir_prover *p2 = NULL;
            ez_writer w3;
            /* the vector is the caller's to rebuild: here a copy of the committed one */
            ez_fe *v = spill ? ez_spill_alloc(n * sizeof *v) : ez_alloc_huge(n, sizeof *v);
            ck_assert_ptr_nonnull(v);
            memcpy(v, in.s, in.len * sizeof *v);
            memset(v + in.len, 0, (n - in.len) * sizeof *v);
            ck_assert_int_eq(ez_whir_prover_read(&rd, &par, root, v, in.len, spill, &p2), EZ_OK);
            ck_assert_int_eq(p2->s_spilled, spill);
            ck_assert_mem_eq(p2->s, in.s, in.len * sizeof *in.s);
            for (size_t x = in.len; x < n; x++) /* the padding reads zero */
                ck_assert_uint_eq(p2->s[x], 0);
            lib_proof(p2, &in, in.sigma, &w3);
            ck_assert_uint_eq(w3.len, w2.len);
            ck_assert_mem_eq(w3.data, w2.data, w3.len);
            ez_writer_clear(&w3);
            ez_whir_prover_free(p2);
        }
        ck_assert_int_eq(unsetenv("EZ_SPILL_DIR"), 0);
        ck_assert_int_eq(rmdir(dir), 0); /* every spill file unlinked at once */
        ez_writer_clear(&pd);
        ez_writer_clear(&w1);
        ez_writer_clear(&w2);
        ez_whir_prover_free(pr);
        instance_free(&in);
    }
}
END_TEST

/* Each malicious prover deviates at one step and stays transcript-consistent. */
START_TEST(test_whir_malicious)
{
    ez_rng r = ez_rng_for("whir_malicious");
    for (int which = 0; which < 4; which++) {
        ez_whir_params par;
        small_params(&par, which);
        instance in;
        instance_make(&in, &r, &par, (size_t)1 << par.m);
        uint8_t root[32];
        ez_writer w;
        unsigned nrounds = par.m;
        cheat cases[64];
        size_t nc = 0;
        for (unsigned rd = 0; rd < nrounds; rd++)
            cases[nc++] = (cheat){CH_ROUND, rd}; /* a wrong sumcheck round, each round */
        for (unsigned i = 1; i < par.noracles; i++) {
            cases[nc++] = (cheat){CH_OOD, i};  /* a wrong out-of-domain answer */
            cases[nc++] = (cheat){CH_FOLD, i}; /* an oracle that is not the fold */
        }
        for (unsigned i = 0; i < par.noracles; i++) {
            cases[nc++] = (cheat){CH_LEAF, i};   /* a wrong opened leaf */
            cases[nc++] = (cheat){CH_MERKLE, i}; /* a wrong Merkle path */
        }
        cases[nc++] = (cheat){CH_FINAL, 0}; /* a wrong final polynomial */
        unsigned merkle = 0;
        for (size_t cs = 0; cs < nc; cs++) {
            if (!ref_proof(&par, &in, in.sigma, cases[cs], &w, root)) {
                /* only a Merkle cheat can be void: every leaf of a small oracle opened */
                ck_assert_int_eq(cases[cs].what, CH_MERKLE);
                ez_writer_clear(&w);
                continue;
            }
            merkle += cases[cs].what == CH_MERKLE;
            ck_assert_msg(lib_verify(&in, root, in.sigma, w.data, w.len, NULL) == EZ_ERR_REJECT,
                          "params %d cheat %d at %u accepted", which, cases[cs].what, cases[cs].at);
            ez_writer_clear(&w);
        }
        ck_assert_uint_ge(merkle, 1);
        /* a wrong claimed sum, claimed consistently by the prover */
        ez_fe2 bad = ez_fe2_add(in.sigma, ez_fe2_make(0, 1));
        ref_proof(&par, &in, bad, (cheat){CH_NONE, 0}, &w, root);
        ck_assert_int_eq(lib_verify(&in, root, bad, w.data, w.len, NULL), EZ_ERR_REJECT);
        ck_assert_int_eq(lib_verify(&in, root, in.sigma, w.data, w.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w);
        /* the library prover with a wrong sum: rejected too */
        ez_whir_prover *pr = NULL;
        ck_assert_int_eq(ez_whir_commit(&pr, root, &par, in.s, in.len), EZ_OK);
        lib_proof(pr, &in, bad, &w);
        ck_assert_int_eq(lib_verify(&in, root, bad, w.data, w.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w);
        ez_whir_prover_free(pr);
        instance_free(&in);
    }
}
END_TEST

/* WH-final-fold, WH-read-fe2, WH-read-fe: the last checks of an opening and the readers.
 * A final polynomial that is not the last oracle's fold but keeps the final sumcheck (its
 * sum against W unchanged): only the comparison of the folds at the queries with the final
 * polynomial catches it. On the zero vector (every message 0) a final entry sent and
 * absorbed as p — the same value, non-canonically — by a consistent prover: only the
 * reader's canonical check catches it. The leaf reader refuses p itself. (The WHIR
 * verifier reports a rejection by its status alone.) */
START_TEST(test_whir_final_fold_and_encodings)
{
    ez_rng r = ez_rng_for("whir_final_fold");
    for (int which = 0; which < 2; which++) {
        ez_whir_params par;
        small_params(&par, which);
        instance in;
        instance_make(&in, &r, &par, (size_t)1 << par.m);
        uint8_t root[32];
        ez_writer w;
        for (int zero = 0; zero < 2; zero++) {
            if (zero) {
                memset(in.s, 0, ((size_t)1 << par.m) * sizeof *in.s);
                in.sigma = true_sum(&in);
                ck_assert(ez_fe2_is_zero(in.sigma));
            }
            /* the honest reference proof verifies */
            ref_proof(&par, &in, in.sigma, (cheat){CH_NONE, 0}, &w, root);
            ck_assert_int_eq(lib_verify(&in, root, in.sigma, w.data, w.len, NULL), EZ_OK);
            ez_writer_clear(&w);
            ck_assert(ref_proof(&par, &in, in.sigma, (cheat){zero ? CH_FINAL_NONCANON : CH_FINAL_SUM, 0}, &w, root));
            ck_assert_msg(lib_verify(&in, root, in.sigma, w.data, w.len, NULL) == EZ_ERR_REJECT, "params %d, %s accepted",
                          which, zero ? "a non-canonical final entry" : "a final polynomial off the fold");
            ez_writer_clear(&w);
        }
        instance_free(&in);
    }
}
END_TEST

/* Truncated, extended and bit-flipped proofs: rejected (extended: the proof's own bytes
 * verify and the rest is left unread), never a crash. */
START_TEST(test_whir_proof_mutations)
{
    ez_rng r = ez_rng_for("whir_proof_mutations");
    for (int which = 1; which < 4; which += 2) {
        ez_whir_params par;
        small_params(&par, which);
        instance in;
        instance_make(&in, &r, &par, ((size_t)1 << par.m) - 5);
        ez_whir_prover *pr = NULL;
        uint8_t root[32];
        ck_assert_int_eq(ez_whir_commit(&pr, root, &par, in.s, in.len), EZ_OK);
        ez_writer w;
        lib_proof(pr, &in, in.sigma, &w);
        size_t len = w.len;
        uint8_t *buf = malloc(len + 64);
        for (size_t cut = 0; cut < len; cut += 1 + (size_t)(ez_rng_next(&r) % 97))
            ck_assert_int_eq(lib_verify(&in, root, in.sigma, w.data, cut, NULL), EZ_ERR_REJECT);
        ck_assert_int_eq(lib_verify(&in, root, in.sigma, w.data, len - 1, NULL), EZ_ERR_REJECT);
        memcpy(buf, w.data, len);
        memset(buf + len, 0xA5, 64);
        bool done = true;
        ck_assert_int_eq(lib_verify(&in, root, in.sigma, buf, len + 64, &done), EZ_OK);
        ck_assert(!done);
        int flips = sanitized() ? 60 : 400;
        for (int f = 0; f < flips; f++) {
            memcpy(buf, w.data, len);
            size_t at = (size_t)(ez_rng_next(&r) % len);
            buf[at] ^= (uint8_t)(1u << (ez_rng_next(&r) % 8));
            ck_assert_int_eq(lib_verify(&in, root, in.sigma, buf, len, NULL), EZ_ERR_REJECT);
        }
        /* every sumcheck value, OOD answer and final entry replaced by p (non-canonical) */
        for (size_t at = 0; at + 8 <= 32 * par.k[0]; at += 8) {
            memcpy(buf, w.data, len);
            uint64_t pv = EZ_P;
            memcpy(buf + at, &pv, 8);
            ck_assert_int_eq(lib_verify(&in, root, in.sigma, buf, len, NULL), EZ_ERR_REJECT);
        }
        uint8_t r2[32];
        memcpy(r2, root, 32);
        r2[3] ^= 1;
        ck_assert_int_eq(lib_verify(&in, r2, in.sigma, w.data, len, NULL), EZ_ERR_REJECT);
        free(buf);
        ez_writer_clear(&w);
        ez_whir_prover_free(pr);
        instance_free(&in);
    }
}
END_TEST

START_TEST(test_whir_invalid_args)
{
    ez_rng r = ez_rng_for("whir_invalid_args");
    ez_whir_params par;
    small_params(&par, 1);
    instance in;
    instance_make(&in, &r, &par, 100);
    ez_whir_prover *pr = NULL;
    uint8_t root[32];
    ck_assert_int_eq(ez_whir_commit(&pr, root, &par, in.s, ((uint64_t)1 << par.m) + 1), EZ_ERR_INVALID);
    ck_assert_ptr_null(pr);
    ez_whir_params bad = par;
    bad.t[0]--;
    ck_assert_int_eq(ez_whir_commit(&pr, root, &bad, in.s, in.len), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_commit(&pr, root, &par, in.s, in.len), EZ_OK);
    ez_transcript t;
    ez_writer w;
    ez_writer_init(&w);
    ez_whir_term tb = in.terms[1];
    tb.off += 1; /* misaligned block */
    ez_transcript_init(&t, "x");
    ck_assert_int_eq(ez_whir_open(pr, &t, &tb, 1, in.sigma, &w), EZ_ERR_INVALID);
    ez_reader rd;
    ez_reader_init(&rd, NULL, 0);
    ck_assert_int_eq(ez_whir_verify(&par, root, &t, &tb, 1, in.sigma, &rd), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_verify(&bad, root, &t, in.terms, in.nt, in.sigma, &rd), EZ_ERR_INVALID);
    /* no terms: proves a zero sum */
    ez_transcript_init(&t, "x");
    ck_assert_int_eq(ez_whir_open(pr, &t, NULL, 0, ez_fe2_zero(), &w), EZ_OK);
    ez_transcript_init(&t, "x");
    ez_reader_init(&rd, w.data, w.len);
    ck_assert_int_eq(ez_whir_verify(&par, root, &t, NULL, 0, ez_fe2_zero(), &rd), EZ_OK);
    ez_writer_clear(&w);
    ez_whir_prover_free(pr);
    instance_free(&in);
}
END_TEST

/* ---- tests: the lib/pcs.h backend ------------------------------------------------------ */

static ez_status pcs_verify(const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n, unsigned flags,
                            const uint8_t *data, size_t len, bool *done)
{
    return ez_test_pcs_verify("check_whir_pcs", com, cl, n, flags, data, len, done);
}

static void pcs_open(ez_pcs_prover *p, const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n, unsigned flags,
                     ez_writer *w)
{
    ez_transcript t;
    ez_transcript_init(&t, "check_whir_pcs");
    ez_pcs_commitment_absorb(&t, com);
    ez_writer_init(w);
    ck_assert_int_eq(ez_pcs_open_ex(p, &t, cl, n, flags, w), EZ_OK);
    ck_assert(!w->failed);
}

/* Commit, open the claims, verify; the claims moved or changed are rejected. */
static void pcs_roundtrip(ez_rng *r, const uint64_t *lens, size_t np, const size_t *which, size_t nc)
{
    ez_test_committed cm;
    ez_test_commit(&cm, r, lens, np, EZ_PCS_SCHEME_WHIR);
    ck_assert_uint_eq(cm.com.scheme, EZ_PCS_SCHEME_WHIR);
    ez_pcs_claim cl[64];
    static ez_fe2 pts[64][EZ_TEST_MAXVARS];
    ez_test_pcs_claims(cl, pts, r, &cm.ps, which, nc);
    for (unsigned flags = 0; flags <= EZ_PCS_OPEN_NO_PROXIMITY; flags++) {
        ez_writer w;
        pcs_open(cm.p, &cm.com, cl, nc, flags, &w);
        bool done = false;
        ck_assert_int_eq(pcs_verify(&cm.com, cl, nc, flags, w.data, w.len, &done), EZ_OK);
        ck_assert(done);
        /* the mode is part of the transcript */
        ck_assert_int_eq(pcs_verify(&cm.com, cl, nc, flags ^ 1, w.data, w.len, NULL), EZ_ERR_REJECT);
        ez_pcs_claim bad[64];
        memcpy(bad, cl, nc * sizeof *cl);
        size_t k = (size_t)(ez_rng_next(r) % nc);
        bad[k].value = ez_fe2_add(bad[k].value, ez_fe2_one());
        ck_assert_int_eq(pcs_verify(&cm.com, bad, nc, flags, w.data, w.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w);
    }
    ez_test_committed_free(&cm);
}

START_TEST(test_whir_pcs_sizes)
{
    ez_rng r = ez_rng_for("whir_pcs_sizes");
    unsigned top = sanitized() ? 14 : 18;
    for (unsigned lg = 0; lg <= top; lg += (lg < 8 ? 1 : 3)) {
        uint64_t len[1] = {(uint64_t)1 << lg};
        size_t which[2] = {0, 0};
        pcs_roundtrip(&r, len, 1, which, 2);
    }
    /* non-power-of-two stacks */
    uint64_t l1[5] = {1000, 4096, 37, 1, 3000};
    size_t w1[7] = {0, 1, 2, 3, 4, 4, 0};
    pcs_roundtrip(&r, l1, 5, w1, 7);
    uint64_t l2[3] = {196608, 5, 70000};
    size_t w2[3] = {0, 1, 2};
    pcs_roundtrip(&r, l2, sanitized() ? 2 : 3, w2, sanitized() ? 2 : 3);
}
END_TEST

START_TEST(test_whir_pcs_many)
{
    ez_rng r = ez_rng_for("whir_pcs_many");
    uint64_t lens[40];
    size_t which[64];
    for (size_t i = 0; i < 40; i++)
        lens[i] = 1 + ez_rng_next(&r) % (i % 7 == 0 ? 20000 : 700);
    for (size_t k = 0; k < 64; k++)
        which[k] = (size_t)(ez_rng_next(&r) % 40);
    pcs_roundtrip(&r, lens, 40, which, 64);
}
END_TEST

/* The bench shape at 2^18 with every default oracle: the library's proof equals the
 * reference prover's (differential test at a size the defaults run 2 oracles on). */
START_TEST(test_whir_pcs_matches_reference)
{
    ez_rng r = ez_rng_for("whir_pcs_matches_reference");
    unsigned lg = sanitized() ? 13 : 16;
    uint64_t lens[2] = {((uint64_t)1 << lg) - 300, 300};
    ez_test_committed cm;
    ez_test_commit(&cm, &r, lens, 2, EZ_PCS_SCHEME_WHIR);
    ez_whir_params par;
    ck_assert_int_eq(ez_whir_params_default(&par, cm.com.nvars_total), EZ_OK);
    /* the stacked vector: the pieces of both polynomials at their offsets */
    size_t n = (size_t)1 << par.m;
    ez_fe *s = calloc(n, sizeof *s);
    for (size_t i = 0; i < 2; i++)
        for (uint64_t j = cm.com.pfirst[i]; j < cm.com.pfirst[i + 1]; j++)
            memcpy(s + cm.com.poff[j], cm.ps.polys[i] + cm.com.pstart[j], ((size_t)1 << cm.com.pbits[j]) * sizeof *s);
    ez_pcs_claim cl[3];
    static ez_fe2 pts[64][EZ_TEST_MAXVARS];
    size_t which[3] = {0, 1, 0};
    ez_test_pcs_claims(cl, pts, &r, &cm.ps, which, 3);
    ez_writer w;
    pcs_open(cm.p, &cm.com, cl, 3, 0, &w);
    /* replay the pcs layer: claims, rho, terms (one per claim and piece) */
    ez_transcript t;
    ez_transcript_init(&t, "check_whir_pcs");
    ez_pcs_commitment_absorb(&t, &cm.com);
    ez_transcript_absorb_u64(&t, "pcs/nclaims", 3);
    for (size_t k = 0; k < 3; k++) {
        ez_transcript_absorb_u64(&t, "pcs/claim-poly", cl[k].poly);
        ez_transcript_absorb_fe2(&t, "pcs/claim-point", cl[k].point, cm.com.nvars[cl[k].poly]);
        ez_transcript_absorb_fe2(&t, "pcs/claim-value", &cl[k].value, 1);
    }
    ez_fe2 rho = ez_transcript_challenge_fe2(&t, "pcs/rho"), pw = ez_fe2_one(), sigma = ez_fe2_zero();
    ez_whir_term terms[64];
    ez_fe2 rev[3][32];
    size_t nt = 0;
    for (size_t k = 0; k < 3; k++, pw = ez_fe2_mul(pw, rho)) {
        sigma = ez_fe2_add(sigma, ez_fe2_mul(pw, cl[k].value));
        unsigned nv = cm.com.nvars[cl[k].poly];
        for (unsigned b = 0; b < nv; b++)
            rev[k][b] = cl[k].point[nv - 1 - b];
        for (uint64_t j = cm.com.pfirst[cl[k].poly]; j < cm.com.pfirst[cl[k].poly + 1]; j++) {
            unsigned b = cm.com.pbits[j], top = nv - b;
            ez_fe2 coef = pw;
            for (unsigned v = 0; v < top; v++) {
                ez_fe bit = ((cm.com.pstart[j] >> b) >> (top - 1 - v)) & 1;
                coef = ez_fe2_mul(coef, eq1(cl[k].point[v], ez_fe2_from_fe(bit)));
            }
            terms[nt++] = (ez_whir_term){.coef = coef, .off = cm.com.poff[j], .b = b, .z = rev[k]};
        }
    }
    ez_writer w2;
    ez_writer_init(&w2);
    uint8_t root[32];
    ref_open(&par, s, terms, nt, sigma, &t, &w2, (cheat){CH_NONE, 0}, root);
    ck_assert_mem_eq(root, cm.com.root, 32);
    ck_assert_uint_eq(w.len, w2.len);
    ck_assert_mem_eq(w.data, w2.data, w.len);
    ez_writer_clear(&w);
    ez_writer_clear(&w2);
    free(s);
    ez_test_committed_free(&cm);
}
END_TEST

/* Commitment and prover data I/O: round trips, and seeded mutation loops (truncation,
 * bit flips) that never crash and never yield an accepted wrong opening. */
START_TEST(test_whir_pcs_io)
{
    ez_rng r = ez_rng_for("whir_pcs_io");
    uint64_t lens[3] = {5000, 77, 1024};
    ez_test_committed cm;
    ez_test_commit(&cm, &r, lens, 3, EZ_PCS_SCHEME_WHIR);
    ez_pcs_claim cl[3];
    static ez_fe2 pts[64][EZ_TEST_MAXVARS];
    size_t which[3] = {0, 1, 2};
    ez_test_pcs_claims(cl, pts, &r, &cm.ps, which, 3);
    ez_writer w;
    pcs_open(cm.p, &cm.com, cl, 3, 0, &w);

    /* commitment: round trip, then mutations */
    ez_writer cw;
    ez_writer_init(&cw);
    ez_pcs_commitment_write(&cw, &cm.com);
    ck_assert_uint_eq(cw.data[0], EZ_PCS_SCHEME_WHIR);
    ez_reader rd;
    ez_pcs_commitment c2;
    ez_reader_init(&rd, cw.data, cw.len);
    ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_OK);
    ck_assert(ez_reader_done(&rd));
    ck_assert_uint_eq(c2.log_cols, cm.com.log_cols);
    ck_assert_int_eq(pcs_verify(&c2, cl, 3, 0, w.data, w.len, NULL), EZ_OK);
    ez_pcs_commitment_clear(&c2);
    uint8_t *buf = malloc(cw.len + 8);
    for (size_t cut = 0; cut < cw.len; cut++) {
        ez_reader_init(&rd, cw.data, cut);
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_ERR_FORMAT);
    }
    for (int f = 0; f < 300; f++) {
        memcpy(buf, cw.data, cw.len);
        size_t at = (size_t)(ez_rng_next(&r) % cw.len);
        buf[at] ^= (uint8_t)(1u << (ez_rng_next(&r) % 8));
        ez_reader_init(&rd, buf, cw.len);
        if (ez_pcs_commitment_read(&rd, &c2) != EZ_OK)
            continue;
        /* a commitment that parses differently must not accept the proof */
        ez_status st = pcs_verify(&c2, cl, 3, 0, w.data, w.len, NULL);
        ck_assert(st == EZ_ERR_REJECT || st == EZ_ERR_INVALID);
        ez_pcs_commitment_clear(&c2);
    }
    free(buf);
    ez_writer_clear(&cw);

    /* prover data: round trip gives identical proofs; mutations rejected or harmless */
    ez_writer pk;
    ez_writer_init(&pk);
    ez_pcs_prover_write(&pk, cm.p);
    ez_pcs_polys_src src = ez_test_polys_src(&cm.ps);
    ez_pcs_prover *p2 = NULL;
    ez_reader_init(&rd, pk.data, pk.len);
    ck_assert_int_eq(ez_pcs_prover_read(&rd, &p2, &src), EZ_OK);
    ck_assert(ez_reader_done(&rd));
    ez_writer w2;
    pcs_open(p2, ez_pcs_prover_commitment(p2), cl, 3, 0, &w2);
    ck_assert_uint_eq(w.len, w2.len);
    ck_assert_mem_eq(w.data, w2.data, w.len);
    ez_writer_clear(&w2);
    ez_pcs_prover_free(p2);
    buf = malloc(pk.len);
    for (int cut = 0; cut < 40; cut++) {
        size_t at = (size_t)(ez_rng_next(&r) % pk.len);
        ez_reader_init(&rd, pk.data, at);
        ck_assert_int_eq(ez_pcs_prover_read(&rd, &p2, &src), EZ_ERR_FORMAT);
        ck_assert_ptr_null(p2);
    }
    int flips = sanitized() ? 20 : 80;
    for (int f = 0; f < flips; f++) {
        memcpy(buf, pk.data, pk.len);
        size_t at = (size_t)(ez_rng_next(&r) % pk.len);
        buf[at] ^= (uint8_t)(1u << (ez_rng_next(&r) % 8));
        ez_reader_init(&rd, buf, pk.len);
        ez_status st = ez_pcs_prover_read(&rd, &p2, &src);
        if (st != EZ_OK || !ez_reader_done(&rd)) {
            ez_pcs_prover_free(p2);
            continue;
        }
        ez_writer a, b;
        ez_writer_init(&a);
        ez_writer_init(&b);
        ez_pcs_commitment_write(&a, &cm.com);
        ez_pcs_commitment_write(&b, ez_pcs_prover_commitment(p2));
        bool same = a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
        ez_writer_clear(&a);
        ez_writer_clear(&b);
        ck_assert(same); /* the root is checked, and the layout against the data length */
        /* accepted (a flipped stacked entry: the leaves are not rehashed): its openings
         * against the real commitment are rejected */
        ez_writer w3;
        pcs_open(p2, &cm.com, cl, 3, 0, &w3);
        ck_assert_int_eq(pcs_verify(&cm.com, cl, 3, 0, w3.data, w3.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w3);
        ez_pcs_prover_free(p2);
    }
    free(buf);
    ez_writer_clear(&pk);
    ez_writer_clear(&w);
    ez_test_committed_free(&cm);
}
END_TEST

/* ---- parts: a stack committed as several WHIR instances (lib/pcs_whir.c) ------------- */

/* The reference of a multi-part opening, written from docs/protocol-kernel-pcs.md §8:
 * the pcs layer's claims and rho, then the parts' roots, every touched part's sigma_j
 * computed densely (shifted by +delta on the first touched part and -delta on the last:
 * the sum stays right), and the touched parts opened in one batched WHIR run by the
 * library's part provers (§9a). */
static void ref_parts_open(const ez_pcs_prover *p, const ez_test_polys *ps, const ez_pcs_claim *cl, size_t n, ez_fe2 delta,
                           bool noncanon, ez_writer *w)
{
    const ez_pcs_commitment *com = &p->com;
    ez_transcript t;
    ez_transcript_init(&t, "check_whir_pcs");
    ez_pcs_commitment_absorb(&t, com);
    ez_writer_init(w);
    ez_transcript_absorb_u64(&t, "pcs/nclaims", n);
    for (size_t k = 0; k < n; k++) {
        ez_transcript_absorb_u64(&t, "pcs/claim-poly", cl[k].poly);
        ez_transcript_absorb_fe2(&t, "pcs/claim-point", cl[k].point, com->nvars[cl[k].poly]);
        ez_transcript_absorb_fe2(&t, "pcs/claim-value", &cl[k].value, 1);
    }
    ez_fe2 rho = ez_transcript_challenge_fe2(&t, "pcs/rho");
    unsigned P = com->part_log;
    size_t np = p->nwhir;
    /* the dense weight over S: W(x) = sum_k rho^k eq(z_k, position of x in poly_k) */
    uint64_t T = 0;
    for (uint64_t j = 0; j < com->npieces; j++)
        T += (uint64_t)1 << com->pbits[j];
    ez_fe2 *W = calloc(T, sizeof *W), pw = ez_fe2_one();
    for (size_t k = 0; k < n; k++, pw = ez_fe2_mul(pw, rho)) {
        size_t i = cl[k].poly;
        unsigned nv = com->nvars[i];
        for (uint64_t q = com->pfirst[i]; q < com->pfirst[i + 1]; q++)
            for (uint64_t u = 0; u < ((uint64_t)1 << com->pbits[q]); u++) {
                uint64_t pos = com->pstart[q] + u;
                ez_fe2 e = pw;
                for (unsigned v = 0; v < nv; v++)
                    e = ez_fe2_mul(e, eq1(cl[k].point[v], ez_fe2_from_fe((pos >> (nv - 1 - v)) & 1)));
                W[com->poff[q] + u] = ez_fe2_add(W[com->poff[q] + u], e);
            }
    }
    /* S itself */
    ez_fe *S = calloc(T, sizeof *S);
    for (size_t i = 0; i < ps->n; i++)
        for (uint64_t q = com->pfirst[i]; q < com->pfirst[i + 1]; q++)
            memcpy(S + com->poff[q], ps->polys[i] + com->pstart[q], ((size_t)1 << com->pbits[q]) * sizeof *S);
    /* the touched parts: those holding a piece of a claimed poly */
    bool touched[64] = {false};
    ck_assert_uint_le(np, 64);
    for (size_t k = 0; k < n; k++)
        for (uint64_t q = com->pfirst[cl[k].poly]; q < com->pfirst[cl[k].poly + 1]; q++)
            for (uint64_t x = com->poff[q] >> P; x <= (com->poff[q] + ((uint64_t)1 << com->pbits[q]) - 1) >> P; x++)
                touched[x] = true;
    /* joined parts (§9c): every part is an instance (an untouched one with no terms and
     * sum 0, not sent), no part root is sent */
    bool joined = p->wjoin != NULL;
    ez_fe2 sig[64], sent[64];
    size_t nsent = 0, ninst = 0, part_of[64], first = SIZE_MAX, last = 0;
    for (size_t j = 0; j < np; j++) {
        if (!touched[j] && !joined)
            continue;
        ez_fe2 sj = ez_fe2_zero();
        for (uint64_t x = (uint64_t)j << P; touched[j] && x < T && x < ((uint64_t)(j + 1) << P); x++)
            sj = ez_fe2_add(sj, ez_fe2_mul_fe(W[x], S[x]));
        if (touched[j]) {
            first = first == SIZE_MAX ? ninst : first;
            last = ninst;
            nsent++;
        }
        part_of[ninst] = j;
        sig[ninst++] = sj;
    }
    ck_assert_uint_ge(nsent, 2);
    sig[first] = ez_fe2_add(sig[first], delta);
    sig[last] = ez_fe2_sub(sig[last], delta);
    if (noncanon) { /* c0 + p: another encoding of the same value (c0 < 2^64 - p, a zero vector's) */
        ck_assert_uint_lt(sig[first].c0, 0 - EZ_P);
        sig[first].c0 += EZ_P;
    }
    for (size_t s_ = 0, x = 0; s_ < ninst; s_++)
        if (touched[part_of[s_]])
            sent[x++] = sig[s_];
    if (!joined) {
        ez_writer_bytes(w, p->wroots, 32 * np);
        ez_transcript_absorb_bytes(&t, "pcs/whir-part-roots", (const uint8_t *)p->wroots, 32 * np);
    }
    ez_writer_bytes(w, sent, nsent * sizeof *sent);
    ez_transcript_absorb_fe2(&t, "pcs/whir-part-sums", sent, nsent);
    /* each touched part: the terms of its blocks (docs §8: one per claim and piece, a
     * piece over several parts cut into part-sized blocks with eq over the bits above
     * P in the coefficient), offsets local to the part */
    ez_whir_term(*terms)[512] = malloc(ninst * sizeof *terms);
    ez_fe2(*revs)[8][32] = malloc(ninst * sizeof *revs);
    ez_whir_claimset cs[64];
    const ez_whir_prover *wp[64];
    uint8_t jn[64];
    const ez_merkle *tr[64] = {0};
    for (size_t s_ = 0; s_ < ninst; s_++) {
        size_t j = part_of[s_];
        size_t nt = 0, nrev = 0;
        pw = ez_fe2_one();
        for (size_t k = 0; k < n; k++, pw = ez_fe2_mul(pw, rho)) {
            size_t i = cl[k].poly;
            unsigned nv = com->nvars[i];
            ck_assert_uint_lt(nrev, 8);
            ez_fe2 *zr = revs[s_][nrev++];
            for (unsigned b = 0; b < nv; b++)
                zr[b] = cl[k].point[nv - 1 - b];
            for (uint64_t q = com->pfirst[i]; q < com->pfirst[i + 1]; q++) {
                unsigned b = com->pbits[q], top = nv - b;
                ez_fe2 coef = pw;
                for (unsigned v = 0; v < top; v++)
                    coef = ez_fe2_mul(coef, eq1(cl[k].point[v], ez_fe2_from_fe(((com->pstart[q] >> b) >> (top - 1 - v)) & 1)));
                for (uint64_t x = com->poff[q]; x < com->poff[q] + ((uint64_t)1 << b); x += (uint64_t)1 << (b < P ? b : P)) {
                    if ((x >> P) != j)
                        continue;
                    ez_fe2 cu = coef;
                    for (unsigned bit = P; bit < b; bit++)
                        cu = ez_fe2_mul(cu, eq1(zr[bit], ez_fe2_from_fe(((x - com->poff[q]) >> bit) & 1)));
                    ck_assert_uint_lt(nt, 512);
                    terms[s_][nt++] = (ez_whir_term){.coef = cu, .off = x & (((uint64_t)1 << P) - 1),
                                                     .b = b < P ? b : P, .z = zr};
                }
            }
        }
        wp[s_] = p->whir[j];
        jn[s_] = joined && s_ > 0;
        cs[s_] = (ez_whir_claimset){.terms = terms[s_], .nterms = nt, .sigma = sig[s_]};
    }
    tr[0] = p->wjoin;
    /* the parts in ONE batched WHIR run (§9a) */
    ck_assert_int_eq(ez_whir_open_joined(wp, cs, ninst, joined ? jn : NULL, tr, &t, w), EZ_OK);
    free(terms);
    free(revs);
    free(W);
    free(S);
}

START_TEST(test_whir_pcs_parts)
{
    ez_rng r = ez_rng_for("whir_pcs_parts");
    /* 1000 = 512 + 256 + 128 + 64 + 32 + 8: pieces over several parts of 2^6 */
    uint64_t lens[5] = {1000, 70, 5, 129, 300};
    ez_test_polys ps;
    ez_test_polys_make(&ps, &r, lens, 5);
    for (unsigned P = 6; P <= 9; P += 3) {
        ez_pcs_prover *p = NULL;
        ez_pcs_commitment com;
        ck_assert_int_eq(ez_pcs_commit_parts(&p, &com, (const ez_fe *const *)ps.polys, ps.lens, 5, EZ_PCS_SCHEME_WHIR, P),
                         EZ_OK);
        ck_assert_uint_eq(com.part_log, P);
        ck_assert_uint_eq(p->nwhir, (1504 + ((size_t)1 << P) - 1) >> P);
        /* P = 9: three parts of 2^9 variables, joined (§9c); P = 6: the last part has 32
         * entries (5 variables), not joined */
        ck_assert_int_eq(p->wjoin != NULL, P == 9);
        ez_pcs_claim cl[6];
        static ez_fe2 pts[64][EZ_TEST_MAXVARS];
        size_t which[6] = {0, 1, 0, 3, 4, 2};
        ez_test_pcs_claims(cl, pts, &r, &ps, which, 6);
        ez_writer w;
        pcs_open(p, &com, cl, 6, 0, &w);
        bool done = false;
        ck_assert_int_eq(pcs_verify(&com, cl, 6, 0, w.data, w.len, &done), EZ_OK);
        ck_assert(done);
        /* the reference's honest proof is the library's, byte for byte */
        ez_writer w2;
        ref_parts_open(p, &ps, cl, 6, ez_fe2_zero(), false, &w2);
        ck_assert_uint_eq(w.len, w2.len);
        ck_assert_mem_eq(w.data, w2.data, w.len);
        ez_writer_clear(&w2);
        /* a shifted split of the sums (their total still right): the parts' openings of
         * the shifted sums fail */
        ref_parts_open(p, &ps, cl, 6, ez_fe2_one(), false, &w2);
        ck_assert_int_eq(pcs_verify(&com, cl, 6, 0, w2.data, w2.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w2);
        /* a wrong claim; a wrong part root (its hash is not the commitment's root) */
        ez_pcs_claim bad[6];
        memcpy(bad, cl, sizeof bad);
        bad[3].value = ez_fe2_add(bad[3].value, ez_fe2_one());
        ck_assert_int_eq(pcs_verify(&com, bad, 6, 0, w.data, w.len, NULL), EZ_ERR_REJECT);
        /* the wrong claim opened by a consistent prover: every part's sum is true (each
         * part's opening holds), so only their total against the combined claim rejects
         * (PW-sigma-sum) */
        ref_parts_open(p, &ps, bad, 6, ez_fe2_zero(), false, &w2);
        ck_assert_int_eq(pcs_verify(&com, bad, 6, 0, w2.data, w2.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w2);
        uint8_t *buf = malloc(w.len);
        memcpy(buf, w.data, w.len);
        buf[40] ^= 1;
        ck_assert_int_eq(pcs_verify(&com, cl, 6, 0, buf, w.len, NULL), EZ_ERR_REJECT);
        free(buf);
        if (P == 6) {
            /* not joined: the part roots are sent and must hash to the commitment's root.
             * A prover opens other vectors of the same layout (their own part roots, true
             * claims, a consistent transcript on com): only that hash check rejects
             * (PW-roots) */
            ez_rng r2 = ez_rng_for("whir_pcs_parts_other");
            ez_test_polys ps2;
            ez_test_polys_make(&ps2, &r2, lens, 5);
            ez_pcs_prover *po = NULL;
            ez_pcs_commitment co;
            ck_assert_int_eq(ez_pcs_commit_parts(&po, &co, (const ez_fe *const *)ps2.polys, ps2.lens, 5,
                                                 EZ_PCS_SCHEME_WHIR, P),
                             EZ_OK);
            ck_assert(memcmp(co.root, com.root, 32) != 0);
            ez_pcs_claim cl2[6];
            static ez_fe2 pts2[64][EZ_TEST_MAXVARS];
            ez_test_pcs_claims(cl2, pts2, &r2, &ps2, which, 6);
            pcs_open(po, &com, cl2, 6, 0, &w2);
            ck_assert_int_eq(pcs_verify(&co, cl2, 6, 0, w2.data, w2.len, NULL), EZ_ERR_REJECT); /* com absorbed */
            ck_assert_int_eq(pcs_verify(&com, cl2, 6, 0, w2.data, w2.len, NULL), EZ_ERR_REJECT);
            ez_writer_clear(&w2);
            pcs_open(po, &co, cl2, 6, 0, &w2);
            ck_assert_int_eq(pcs_verify(&co, cl2, 6, 0, w2.data, w2.len, NULL), EZ_OK);
            ez_writer_clear(&w2);
            ez_pcs_commitment_clear(&co);
            ez_pcs_prover_free(po);
            /* zero vectors: every part's sum is 0, which a consistent prover sends (and
             * absorbs, here and in its part's opening) as c0 = p; only the sums' canonical
             * check rejects (PW-sigma-canon) */
            for (size_t i = 0; i < ps2.n; i++)
                memset(ps2.polys[i], 0, ps2.lens[i] * sizeof *ps2.polys[i]);
            ck_assert_int_eq(ez_pcs_commit_parts(&po, &co, (const ez_fe *const *)ps2.polys, ps2.lens, 5,
                                                 EZ_PCS_SCHEME_WHIR, P),
                             EZ_OK);
            for (size_t k = 0; k < 6; k++)
                cl2[k].value = ez_fe2_zero();
            ref_parts_open(po, &ps2, cl2, 6, ez_fe2_zero(), false, &w2);
            ck_assert_int_eq(pcs_verify(&co, cl2, 6, 0, w2.data, w2.len, NULL), EZ_OK);
            ez_writer_clear(&w2);
            ref_parts_open(po, &ps2, cl2, 6, ez_fe2_zero(), true, &w2);
            ck_assert_int_eq(pcs_verify(&co, cl2, 6, 0, w2.data, w2.len, NULL), EZ_ERR_REJECT);
            ez_writer_clear(&w2);
            ez_pcs_commitment_clear(&co);
            ez_pcs_prover_free(po);
            ez_test_polys_free(&ps2);
        }
        if (P == 9) { /* joined: claims on one part only still open every part */
            ez_pcs_claim one[2];
            static ez_fe2 pts1[64][EZ_TEST_MAXVARS];
            size_t w1[2] = {1, 1};
            ez_test_pcs_claims(one, pts1, &r, &ps, w1, 2);
            pcs_open(p, &com, one, 2, 0, &w2);
            ck_assert_int_eq(pcs_verify(&com, one, 2, 0, w2.data, w2.len, &done), EZ_OK);
            ck_assert(done);
            one[1].value = ez_fe2_add(one[1].value, ez_fe2_one());
            ck_assert_int_eq(pcs_verify(&com, one, 2, 0, w2.data, w2.len, NULL), EZ_ERR_REJECT);
            ez_writer_clear(&w2);
            /* a wrong root */
            ez_pcs_commitment c3 = com;
            c3.root[5] ^= 1;
            ck_assert_int_eq(pcs_verify(&c3, cl, 6, 0, w.data, w.len, NULL), EZ_ERR_REJECT);
        }
        /* commitment and prover data round trips */
        ez_writer cw, pk;
        ez_writer_init(&cw);
        ez_writer_init(&pk);
        ez_pcs_commitment_write(&cw, &com);
        ez_pcs_prover_write(&pk, p);
        ez_pcs_polys_src src = ez_test_polys_src(&ps);
        ez_reader rd;
        ez_pcs_commitment c2;
        ez_reader_init(&rd, cw.data, cw.len);
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_OK);
        ck_assert_uint_eq(c2.part_log, P);
        ck_assert_int_eq(pcs_verify(&c2, cl, 6, 0, w.data, w.len, NULL), EZ_OK);
        ez_pcs_commitment_clear(&c2);
        ez_pcs_prover *p2 = NULL;
        ez_reader_init(&rd, pk.data, pk.len);
        ck_assert_int_eq(ez_pcs_prover_read(&rd, &p2, &src), EZ_OK);
        ck_assert(ez_reader_done(&rd));
        pcs_open(p2, &com, cl, 6, 0, &w2);
        ck_assert_uint_eq(w.len, w2.len);
        ck_assert_mem_eq(w.data, w2.data, w.len);
        ez_writer_clear(&w2);
        ez_pcs_prover_free(p2);
        /* bit flips in the prover data (joined or not): a clean refusal or a reload whose
         * openings the verifier judges (the reader does not rehash the leaves) */
        for (int it = 0; it < 12; it++) {
            ez_writer pm;
            ez_writer_init(&pm);
            ez_writer_bytes(&pm, pk.data, pk.len);
            size_t at = cw.len + (size_t)(ez_rng_next(&r) % (pk.len - cw.len));
            pm.data[at] ^= (uint8_t)(1u << (ez_rng_next(&r) % 8));
            ez_reader_init(&rd, pm.data, pm.len);
            ez_status st = ez_pcs_prover_read(&rd, &p2, &src);
            ck_assert(st == EZ_OK || st == EZ_ERR_FORMAT);
            if (st == EZ_OK) {
                pcs_open(p2, &com, cl, 6, 0, &w2);
                ez_status v = pcs_verify(&com, cl, 6, 0, w2.data, w2.len, NULL);
                ck_assert(v == EZ_OK || v == EZ_ERR_REJECT);
                ez_writer_clear(&w2);
                ez_pcs_prover_free(p2);
                p2 = NULL;
            }
            ez_writer_clear(&pm);
        }
        /* a part root changed in the prover data: its hash is not the root */
        pk.data[cw.len + 3] ^= 1;
        ez_reader_init(&rd, pk.data, pk.len);
        ck_assert_int_eq(ez_pcs_prover_read(&rd, &p2, &src), EZ_ERR_FORMAT);
        ez_writer_clear(&cw);
        ez_writer_clear(&pk);
        ez_writer_clear(&w);
        ez_pcs_commitment_clear(&com);
        ez_pcs_prover_free(p);
    }
    ez_test_polys_free(&ps);
}
END_TEST

/* ---- batched openings: several instances in one WHIR run (§9a) ----------------------- */

/* Open / verify a batch; with joined[] (and the prover's trees per group head) as joined groups (§9c),
 * without (NULL) through the unjoined entry points. */
static void joined_open(ez_whir_prover *const *p, const instance *in, const ez_fe2 *sig, size_t n,
                        const uint8_t *joined, ez_merkle *const *tree, unsigned dev, ez_writer *w)
{
    ez_whir_claimset cs[4];
    for (size_t j = 0; j < n; j++)
        cs[j] = (ez_whir_claimset){.terms = in[j].terms, .nterms = in[j].nt, .sigma = sig[j]};
    ez_transcript t;
    ez_transcript_init(&t, "check_whir_batch");
    ez_writer_init(w);
    ck_assert_int_eq(ez_whir_open_batch_cheat((const ez_whir_prover *const *)p, cs, n, joined,
                                              (const ez_merkle *const *)tree, &t, w, dev),
                     EZ_OK);
    ck_assert(!w->failed);
}

static ez_status joined_verify(const instance *in, const uint8_t (*roots)[32], const ez_fe2 *sig, size_t n,
                               const uint8_t *joined, const uint8_t *data, size_t len, bool *done)
{
    const ez_whir_params *par[4];
    const uint8_t *rt[4];
    uint64_t lens[4];
    ez_whir_claimset cs[4];
    for (size_t j = 0; j < n; j++) {
        par[j] = &in[j].par;
        lens[j] = in[j].len;
        rt[j] = roots[j];
        cs[j] = (ez_whir_claimset){.terms = in[j].terms, .nterms = in[j].nt, .sigma = sig[j]};
    }
    ez_transcript t;
    ez_transcript_init(&t, "check_whir_batch");
    ez_reader r;
    ez_reader_init(&r, data, len);
    ez_status st = joined ? ez_whir_verify_joined(par, rt, lens, joined, cs, n, &t, &r)
                          : ez_whir_verify_batch(par, rt, lens, cs, n, &t, &r);
    if (done)
        *done = ez_reader_done(&r);
    return st;
}

static void batch_open(ez_whir_prover *const *p, const instance *in, const ez_fe2 *sig, size_t n, unsigned dev,
                       ez_writer *w)
{
    joined_open(p, in, sig, n, NULL, NULL, dev, w);
}

static ez_status batch_verify(const instance *in, const uint8_t (*roots)[32], const ez_fe2 *sig, size_t n,
                              const uint8_t *data, size_t len, bool *done)
{
    return joined_verify(in, roots, sig, n, NULL, data, len, done);
}

START_TEST(test_whir_joined)
{
    ez_rng r = ez_rng_for("whir_joined");
    /* a group of two and a lone instance, with a later oracle; a group of two without one
     * (the final polynomial against oracle 0); a lone instance then a group of three */
    static const unsigned ms[3][4] = {{12, 12, 9}, {8, 8}, {9, 10, 10, 10}};
    static const uint8_t jn[3][4] = {{0, 1, 0}, {0, 1}, {0, 0, 1, 1}};
    static const size_t ns[3] = {3, 2, 4}, heads[3] = {0, 0, 1};
    for (int cfg = 0; cfg < 3; cfg++) {
        size_t n = ns[cfg], h = heads[cfg], ng = cfg == 2 ? 3 : 2;
        instance in[4];
        ez_whir_prover *p[4];
        ez_merkle *tree[4] = {0}, *swapped = NULL;
        uint8_t roots[4][32], jroot[32], sroot[32];
        ez_fe2 sig[4];
        for (size_t j = 0; j < n; j++) {
            ez_whir_params par;
            ck_assert_int_eq(ez_whir_params_default(&par, ms[cfg][j]), EZ_OK);
            instance_make(&in[j], &r, &par, ((uint64_t)1 << par.m) - 5 * j);
            instance_live_terms(&in[j], &r);
            ck_assert_int_eq(ez_whir_commit(&p[j], roots[j], &in[j].par, in[j].s, in[j].len), EZ_OK);
            sig[j] = in[j].sigma;
        }
        ck_assert_int_eq(ez_whir_join(&tree[h], jroot, (const ez_whir_prover *const *)p + h, ng), EZ_OK);
        /* the same parts joined in another order: another root */
        const ez_whir_prover *sw[3] = {p[h + 1], p[h], p[h + ng - 1]};
        ck_assert_int_eq(ez_whir_join(&swapped, sroot, sw, ng), EZ_OK);
        ck_assert(memcmp(sroot, jroot, 32) != 0);
        uint8_t own[4][32]; /* the instances' own roots (the plain batch) */
        memcpy(own, roots, sizeof own);
        memcpy(roots[h], jroot, 32);
        ez_writer w, wb;
        joined_open(p, in, sig, n, jn[cfg], tree, 0, &w);
        bool done = false;
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, jn[cfg], w.data, w.len, &done),
                         EZ_OK);
        ck_assert(done);
        /* one path set for the group: shorter than the plain batch of the same instances */
        joined_open(p, in, sig, n, NULL, tree, 0, &wb);
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])own, sig, n, NULL, wb.data, wb.len, NULL), EZ_OK);
        ck_assert_uint_lt(w.len, wb.len);
        /* the joined proof is not a plain batch proof, nor the reverse */
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])own, sig, n, NULL, w.data, w.len, NULL),
                         EZ_ERR_REJECT);
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, jn[cfg], wb.data, wb.len, NULL),
                         EZ_ERR_REJECT);
        ez_writer_clear(&wb);
        /* a wrong root: flipped, or the parts joined in another order */
        uint8_t r2[4][32];
        memcpy(r2, roots, sizeof r2);
        r2[h][3] ^= 1;
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])r2, sig, n, jn[cfg], w.data, w.len, NULL),
                         EZ_ERR_REJECT);
        memcpy(r2[h], sroot, 32);
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])r2, sig, n, jn[cfg], w.data, w.len, NULL),
                         EZ_ERR_REJECT);
        /* a false claim on one joined instance */
        ez_fe2 bad[4];
        memcpy(bad, sig, sizeof bad);
        bad[h + 1] = ez_fe2_add(bad[h + 1], ez_fe2_one());
        joined_open(p, in, bad, n, jn[cfg], tree, 0, &wb);
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, bad, n, jn[cfg], wb.data, wb.len, NULL),
                         EZ_ERR_REJECT);
        ez_writer_clear(&wb);
        /* a wrong leaf of the group's second instance, a wrong sibling, the group's first
         * two instances' leaves swapped, a stack block that is not its fold */
        static const unsigned devs[] = {EZ_WHIR_CHEAT_LEAF, EZ_WHIR_CHEAT_SIBLING, EZ_WHIR_CHEAT_SWAP,
                                        EZ_WHIR_CHEAT_STACK};
        for (size_t x = 0; x < sizeof devs / sizeof devs[0]; x++) {
            joined_open(p, in, sig, n, jn[cfg], tree, devs[x], &wb);
            ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, jn[cfg], wb.data, wb.len, NULL),
                             EZ_ERR_REJECT);
            ez_writer_clear(&wb);
        }
        /* flips and truncations */
        uint8_t *buf = malloc(w.len);
        for (int it = 0; it < 16; it++) {
            memcpy(buf, w.data, w.len);
            size_t at = (size_t)(ez_rng_next(&r) % w.len);
            buf[at] ^= (uint8_t)(1u << (ez_rng_next(&r) % 8));
            ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, jn[cfg], buf, w.len, NULL),
                             EZ_ERR_REJECT);
            ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, jn[cfg], w.data, at, NULL),
                             EZ_ERR_REJECT);
        }
        free(buf);
        /* malformed groups: joined[0] set, unjoinable neighbours, a group without its tree */
        uint8_t j2[4];
        memcpy(j2, jn[cfg], sizeof j2);
        j2[0] = 1;
        ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, j2, w.data, w.len, NULL),
                         EZ_ERR_INVALID);
        if (cfg != 1) { /* m 9 next to m 12 (or 10) */
            memcpy(j2, jn[cfg], sizeof j2);
            j2[cfg == 0 ? 2 : 1] = 1;
            ck_assert_int_eq(joined_verify(in, (const uint8_t(*)[32])roots, sig, n, j2, w.data, w.len, NULL),
                             EZ_ERR_INVALID);
        }
        ez_whir_claimset cs[4];
        for (size_t j = 0; j < n; j++)
            cs[j] = (ez_whir_claimset){.terms = in[j].terms, .nterms = in[j].nt, .sigma = sig[j]};
        ez_transcript t;
        ez_transcript_init(&t, "check_whir_batch");
        ez_writer_init(&wb);
        ez_merkle *none[4] = {0};
        ck_assert_int_eq(ez_whir_open_joined((const ez_whir_prover *const *)p, cs, n, jn[cfg],
                                             (const ez_merkle *const *)none, &t, &wb),
                         EZ_ERR_INVALID);
        ez_writer_clear(&wb);
        ez_writer_clear(&w);
        ez_merkle_free(swapped);
        ez_merkle_free(tree[h]);
        instances_free(p, in, n);
    }
}
END_TEST

/* Parts built on disk (EZ_SPILL_DIR: ez_spill_alloc, ez_whir_commit_mapped) with no paths
 * of their own (leaf digests and root only) join to the same tree as whole parts in
 * memory, with the same part roots, also when the join runs over their leaves in several
 * blocks, handing each block's pages back (4 blocks of 2^16 leaves here), and their trees
 * and the joined one keep their contents after their pages are handed back. */
START_TEST(test_whir_join_spilled)
{
    ez_rng r = ez_rng_for("whir_join_spilled");
    ez_whir_params par;
    unsigned k[1] = {1}, c[1] = {2};
    ck_assert_int_eq(ez_whir_params_make(&par, 17, 1, k, c), EZ_OK); /* N_0 = 2^18 leaves */
    size_t n = (size_t)1 << par.m, N = (size_t)1 << ez_whir_log_len(&par, 0);
    ez_whir_prover *p[2][3] = {{0}};
    uint8_t roots[2][3][32], jroot[2][32];
    ez_merkle *tree[2] = {0};
    char dir[] = "/tmp/ez-join-spill.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ez_fe *s[3];
    for (int j = 0; j < 3; j++) {
        s[j] = calloc(n, sizeof *s[j]);
        for (size_t x = 0; x + 7 * (size_t)j < n; x++)
            s[j][x] = ez_rng_fe(&r);
    }
    for (int k2 = 0; k2 < 2; k2++) {
        if (k2 == 1)
            ck_assert_int_eq(setenv("EZ_SPILL_DIR", dir, 1), 0);
        for (int j = 0; j < 3; j++) {
            uint64_t len = n - 7 * (size_t)j;
            if (k2 == 0) {
                ck_assert_int_eq(ez_whir_commit(&p[0][j], roots[0][j], &par, s[j], len), EZ_OK);
                continue;
            }
            ez_fe *m = ez_spill_alloc(n * sizeof *m);
            ck_assert_ptr_nonnull(m);
            memcpy(m, s[j], n * sizeof *m);
            /* no paths (a joined part): the leaves and the root only, the same root */
            ck_assert_int_eq(ez_whir_commit_mapped(&p[1][j], roots[1][j], &par, m, len, false), EZ_OK);
            ck_assert(p[1][j]->s_spilled);
            ez_whir_prover_spill(p[1][j]); /* nothing to copy: its pages handed back */
            ck_assert_mem_eq(roots[1][j], roots[0][j], 32);
        }
        ck_assert_int_eq(ez_whir_join(&tree[k2], jroot[k2], (const ez_whir_prover *const *)p[k2], 3), EZ_OK);
        ez_merkle_release(tree[k2]);
    }
    ck_assert_mem_eq(jroot[1], jroot[0], 32);
    ck_assert_mem_eq(ez_merkle_root(tree[1])->h, jroot[0], 32);
    ck_assert_mem_eq(ez_merkle_leaves(tree[1]), ez_merkle_leaves(tree[0]), N * sizeof(ez_digest));
    for (int j = 0; j < 3; j++) {
        ck_assert_mem_eq(ez_merkle_leaves(p[1][j]->o0.tree), ez_merkle_leaves(p[0][j]->o0.tree),
                         N * sizeof(ez_digest));
        ck_assert_mem_eq(ez_merkle_root(p[1][j]->o0.tree)->h, roots[0][j], 32);
        ck_assert_mem_eq(p[1][j]->s, s[j], n * sizeof *s[j]);
        /* a tree of leaves and root has no paths to open; the full one does */
        uint64_t q[2] = {3, 70000};
        ez_digest mp[64];
        ck_assert_int_eq(ez_merkle_batch_open(p[1][j]->o0.tree, q, 2, mp), EZ_ERR_INVALID);
        ck_assert_int_eq(ez_merkle_batch_open(p[0][j]->o0.tree, q, 2, mp), EZ_OK);
    }
    ck_assert_int_eq(unsetenv("EZ_SPILL_DIR"), 0);
    ck_assert_int_eq(rmdir(dir), 0); /* every spill file unlinked at once */
    for (int k2 = 0; k2 < 2; k2++) {
        ez_merkle_free(tree[k2]);
        for (int j = 0; j < 3; j++)
            ez_whir_prover_free(p[k2][j]);
    }
    for (int j = 0; j < 3; j++)
        free(s[j]);
}
END_TEST

START_TEST(test_whir_batch_params)
{
    ez_whir_params a, b, chain;
    const ez_whir_params *par[40];
    uint64_t lens[40];
    ez_whir_block blk[40];
    ck_assert_int_eq(ez_whir_params_default(&a, 16), EZ_OK); /* k0 = 4: a block of 2^12 */
    ck_assert_int_eq(ez_whir_params_default(&b, 12), EZ_OK); /* k0 = 3: 2^9 */
    par[0] = &b;
    par[1] = &a;
    par[2] = &b;
    lens[0] = lens[2] = 4096;
    lens[1] = 65536;
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 3), EZ_OK);
    /* whole blocks: one piece each, by decreasing size, ties by index */
    for (size_t j = 0; j < 3; j++) {
        ck_assert_uint_eq(blk[j].np, 1);
        ck_assert_uint_eq(blk[j].pos[0], 0);
    }
    ck_assert_uint_eq(blk[1].off[0], 0);
    ck_assert_uint_eq(blk[0].off[0], 4096);
    ck_assert_uint_eq(blk[2].off[0], 4096 + 512);
    ck_assert_uint_eq(chain.m - chain.k[0], 13); /* 4096 + 1024 entries: 13 variables */
    ck_assert_uint_eq(chain.noracles, 2);        /* table[18]'s later oracle */
    ck_assert_uint_eq(chain.k[1], 3);
    ck_assert_uint_eq(chain.c[1], 3);
    ck_assert_uint_eq(chain.mfinal, 10);
    /* live entries only: a of 36869 entries folds to 2305 = 2048 + 256 + 1 live entries,
     * b of 3000 to 375 = 256 + 64 + 32 + 16 + 4 + 2 + 1; 2680 in all: 12 variables */
    lens[0] = 36869;
    lens[1] = 3000;
    par[0] = &a;
    par[1] = &b;
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 2), EZ_OK);
    ck_assert_uint_eq(chain.m - chain.k[0], 12);
    ck_assert_uint_eq(blk[0].np, 3);
    ck_assert_uint_eq(blk[1].np, 7);
    static const unsigned ab[3] = {11, 8, 0}, bb[7] = {8, 6, 5, 4, 2, 1, 0};
    /* by decreasing size, ties by instance: a's 2048, a's 256, b's 256, b's 64 .. 2, a's
     * 1, b's 1 */
    static const uint64_t apos[3] = {0, 2048, 2304}, aoff[3] = {0, 2048, 2678};
    static const uint64_t boffs[7] = {2304, 2560, 2624, 2656, 2672, 2676, 2679};
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_uint_eq(blk[0].b[i], ab[i]);
        ck_assert_uint_eq(blk[0].pos[i], apos[i]);
        ck_assert_uint_eq(blk[0].off[i], aoff[i]);
    }
    for (unsigned i = 0; i < 7; i++) {
        ck_assert_uint_eq(blk[1].b[i], bb[i]);
        ck_assert_uint_eq(blk[1].off[i], boffs[i]);
    }
    ck_assert_uint_eq(blk[1].pos[6], 374);
    lens[1] = 0; /* no entry, or more than 2^m: refused */
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 2), EZ_ERR_INVALID);
    lens[1] = 4097;
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 2), EZ_ERR_INVALID);
    /* two parts of 2^26: a chain over 22 variables */
    ck_assert_int_eq(ez_whir_params_default(&a, 26), EZ_OK);
    par[0] = par[1] = &a;
    lens[0] = lens[1] = (uint64_t)1 << 26;
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 2), EZ_OK);
    ck_assert_uint_eq(chain.m - chain.k[0], 22);
    ck_assert_uint_le(chain.mfinal, 12);
    /* more than 2^25 folded entries: no chain (the instances are opened one by one) */
    for (size_t j = 0; j < 40; j++) {
        par[j] = &a;
        lens[j] = (uint64_t)1 << 26;
    }
    /* three and sixteen parts of 2^26 (GPT-2's weights and advice: 2^23 stacked entries;
     * 2^25, the largest chain): one chain, its virtual oracle 0 beyond the NTT's limit
     * (never encoded), every later oracle within it */
    static const size_t nparts[2] = {3, 16};
    static const unsigned mv1s[2] = {23, 25};
    for (unsigned x = 0; x < 2; x++) {
        ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, nparts[x]), EZ_OK);
        ck_assert_uint_eq(chain.m - chain.k[0], mv1s[x]);
        ck_assert_uint_gt(ez_whir_log_len(&chain, 0), EZ_NTT_MAX_LOG);
        for (unsigned i = 1; i < chain.noracles; i++)
            ck_assert_uint_le(ez_whir_log_len(&chain, i), EZ_NTT_MAX_LOG);
        ck_assert_uint_le(chain.mfinal, 12);
    }
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 17), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 1), EZ_ERR_INVALID);
    /* parameters other than the rules derive (one query more), lengths valid: refused */
    ez_whir_params bad = b;
    bad.t[0]++;
    par[0] = &b;
    par[1] = &b;
    lens[0] = lens[1] = 1;
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 2), EZ_OK);
    par[0] = &bad;
    ck_assert_int_eq(ez_whir_batch_params(&chain, blk, par, lens, 2), EZ_ERR_INVALID);
}
END_TEST

START_TEST(test_whir_batch)
{
    ez_rng r = ez_rng_for("whir_batch");
    /* with a later oracle (13 stacked variables) and without (7: the final polynomial
     * against the instances' oracle 0 directly) */
    static const unsigned ms[3][3] = {{16, 12, 9}, {9, 8, 0}, {16, 12, 9}};
    static const size_t ns[3] = {3, 2, 3};
    /* cfg 2: blocks of live entries in several pieces (2561 = 2048 + 512 + 1, 425, 64) */
    static const uint64_t live_lens[3] = {40963, 3396, 509};
    for (int cfg = 0; cfg < 3; cfg++) {
        size_t n = ns[cfg];
        instance in[3];
        ez_whir_prover *p[3];
        uint8_t roots[3][32];
        ez_fe2 sig[3];
        for (size_t j = 0; j < n; j++) {
            ez_whir_params par;
            ck_assert_int_eq(ez_whir_params_default(&par, ms[cfg][j]), EZ_OK);
            instance_make(&in[j], &r, &par, cfg == 2 ? live_lens[j] : ((uint64_t)1 << par.m) - 3 * j);
            if (cfg == 2)
                instance_live_terms(&in[j], &r);
            ck_assert_int_eq(ez_whir_commit(&p[j], roots[j], &in[j].par, in[j].s, in[j].len), EZ_OK);
            sig[j] = in[j].sigma;
        }
        ez_writer w;
        batch_open(p, in, sig, n, 0, &w);
        bool done = false;
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, n, w.data, w.len, &done), EZ_OK);
        ck_assert(done);
        /* a false claim on one instance (claimed consistently by both sides) */
        ez_fe2 bad[3];
        memcpy(bad, sig, sizeof bad);
        bad[n - 1] = ez_fe2_add(bad[n - 1], ez_fe2_one());
        ez_writer wb;
        batch_open(p, in, bad, n, 0, &wb);
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, bad, n, wb.data, wb.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&wb);
        /* the honest proof against a changed claim, or another instance's root */
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, bad, n, w.data, w.len, NULL), EZ_ERR_REJECT);
        uint8_t r2[3][32];
        memcpy(r2, roots, sizeof r2);
        r2[1][0] ^= 1;
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])r2, sig, n, w.data, w.len, NULL), EZ_ERR_REJECT);
        /* a stack whose last block is not that instance's fold (the combined claim still
         * right): caught by the queries to its oracle 0 */
        batch_open(p, in, sig, n, EZ_WHIR_CHEAT_STACK, &wb);
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, n, wb.data, wb.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&wb);
        /* the same deviation on one instance alone */
        batch_open(p, in, sig, 1, EZ_WHIR_CHEAT_STACK, &wb);
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, 1, wb.data, wb.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&wb);
        /* an opened leaf of the first instance's oracle 0 changed; truncations; flips */
        uint8_t *buf = malloc(w.len + 1);
        unsigned k0s = 0;
        for (size_t j = 0; j < n; j++)
            k0s += in[j].par.k[0];
        size_t leaf0 = 32 * k0s + (cfg != 1 ? 48 : 16 * ((size_t)1 << 7));
        memcpy(buf, w.data, w.len);
        buf[leaf0] ^= 2;
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, n, buf, w.len, NULL), EZ_ERR_REJECT);
        for (int it = 0; it < 24; it++) {
            memcpy(buf, w.data, w.len);
            size_t at = (size_t)(ez_rng_next(&r) % w.len);
            buf[at] ^= (uint8_t)(1u << (ez_rng_next(&r) % 8));
            ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, n, buf, w.len, NULL), EZ_ERR_REJECT);
            ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, n, w.data, at, NULL), EZ_ERR_REJECT);
        }
        /* trailing bytes are the caller's: verified, reader not done */
        memcpy(buf, w.data, w.len);
        buf[w.len] = 0;
        ck_assert_int_eq(batch_verify(in, (const uint8_t(*)[32])roots, sig, n, buf, w.len + 1, &done), EZ_OK);
        ck_assert(!done);
        free(buf);
        ez_writer_clear(&w);
        instances_free(p, in, n);
    }
}
END_TEST

/* lib/pcs.h: two commitments (sizes 2^16 + 1000 + 37 and 300 + 5000) opened in one run */
START_TEST(test_whir_pcs_multi)
{
    ez_rng r = ez_rng_for("whir_pcs_multi");
    uint64_t la[3] = {65536, 1000, 37}, lb[2] = {300, 5000};
    ez_test_polys A, B;
    ez_test_polys_make(&A, &r, la, 3);
    ez_test_polys_make(&B, &r, lb, 2);
    /* lig 0: both WHIR; 1: the second one Ligero; 2: both WHIR, the first in parts of 2^12 */
    for (int lig = 0; lig < 3; lig++) {
        ez_pcs_prover *pa = NULL, *pb = NULL;
        ez_pcs_commitment ca, cb;
        ck_assert_int_eq(ez_pcs_commit_parts(&pa, &ca, (const ez_fe *const *)A.polys, A.lens, 3, EZ_PCS_SCHEME_WHIR,
                                             lig == 2 ? 12 : EZ_PCS_WHIR_PART_LOG),
                         EZ_OK);
        ck_assert_uint_eq(pa->nwhir, lig == 2 ? 17 : 1);
        /* the second one Ligero: the openings one after the other */
        ck_assert_int_eq(ez_pcs_commit_scheme(&pb, &cb, (const ez_fe *const *)B.polys, B.lens, 2,
                                              lig == 1 ? EZ_PCS_SCHEME_LIGERO : EZ_PCS_SCHEME_WHIR),
                         EZ_OK);
        ez_pcs_claim cla[3], clb[3];
        static ez_fe2 pa_[64][EZ_TEST_MAXVARS], pb_[64][EZ_TEST_MAXVARS];
        size_t wa[3] = {0, 1, 2}, wb[3] = {1, 0, 1};
        ez_test_pcs_claims(cla, pa_, &r, &A, wa, 3);
        ez_test_pcs_claims(clb, pb_, &r, &B, wb, 3);
        ez_pcs_prover *pp[2] = {pa, pb};
        const ez_pcs_commitment *cc[2] = {&ca, &cb};
        const ez_pcs_claim *cl[2] = {cla, clb};
        size_t nn[2] = {3, 3};
        unsigned fl[2] = {EZ_PCS_OPEN_NO_PROXIMITY, 0};
        ez_transcript t;
        ez_writer w;
        ez_writer_init(&w);
        ez_transcript_init(&t, "check_whir_pcs");
        ck_assert_int_eq(ez_pcs_open_multi(pp, cl, nn, fl, 2, &t, &w), EZ_OK);
        for (int v = 0; v < 3; v++) {
            ez_pcs_claim bad[3];
            memcpy(bad, clb, sizeof bad);
            if (v == 1)
                bad[2].value = ez_fe2_add(bad[2].value, ez_fe2_one());
            const ez_pcs_claim *cv[2] = {cla, bad};
            unsigned fv[2] = {v == 2 ? 0 : EZ_PCS_OPEN_NO_PROXIMITY, 0};
            ez_reader rd;
            ez_reader_init(&rd, w.data, w.len);
            ez_transcript_init(&t, "check_whir_pcs");
            ck_assert_int_eq(ez_pcs_verify_multi(cc, cv, nn, fv, 2, &t, &rd), v == 0 ? EZ_OK : EZ_ERR_REJECT);
            if (v == 0)
                ck_assert(ez_reader_done(&rd));
        }
        /* one commitment without claims: the other's opening alone, as ez_pcs_open_ex */
        size_t n1[2] = {0, 3};
        ez_writer w1, w2;
        ez_writer_init(&w1);
        ez_transcript_init(&t, "check_whir_pcs");
        ck_assert_int_eq(ez_pcs_open_multi(pp, cl, n1, fl, 2, &t, &w1), EZ_OK);
        ez_transcript_init(&t, "check_whir_pcs");
        ez_writer_init(&w2);
        ck_assert_int_eq(ez_pcs_open_ex(pb, &t, clb, 3, 0, &w2), EZ_OK);
        ck_assert_uint_eq(w1.len, w2.len);
        ck_assert_mem_eq(w1.data, w2.data, w1.len);
        ez_writer_clear(&w1);
        ez_writer_clear(&w2);
        ez_writer_clear(&w);
        ez_pcs_commitment_clear(&ca);
        ez_pcs_commitment_clear(&cb);
        ez_pcs_prover_free(pa);
        ez_pcs_prover_free(pb);
    }
    ez_test_polys_free(&A);
    ez_test_polys_free(&B);
}
END_TEST

/* Round 0 with many claim terms (one of the thread-count paths of lib/whir_prove.c):
 * hundreds of small terms, run side by side one per thread, and three of 2^16 entries or
 * more, each read by the whole team; the sparse rounds' terms summed in parallel (2^14
 * entries and more in round 0: above their threshold). The opening
 * must be the same bytes on 1 and 2 threads and verify; a claimed sum off by one must
 * not. */
START_TEST(test_whir_many_terms)
{
    ez_rng r = ez_rng_for("whir_many_terms");
    ez_whir_params par;
    ck_assert_int_eq(ez_whir_params_default(&par, 17), EZ_OK);
    size_t n = (size_t)1 << par.m, nsmall = (((size_t)1 << 14) >> par.k[0]) + 320, nt = nsmall + 3;
    ez_fe *s = ez_alloc_array(n, sizeof *s);
    ez_whir_term *terms = ez_alloc_array(nt, sizeof *terms);
    ez_fe2 *z = ez_alloc_array(nt * 17, sizeof *z), *eq = ez_alloc_array(n, sizeof *eq);
    ck_assert(s && terms && z && eq);
    for (size_t x = 0; x < n; x++)
        s[x] = ez_rng_fe(&r);
    static const unsigned small_b[8] = {0, 1, 3, 5, 6, 8, 12, 15}, large_b[3] = {16, 17, 16};
    ez_fe2 sigma = ez_fe2_zero();
    for (size_t j = 0; j < nt; j++) {
        unsigned b = j < nsmall ? small_b[j % 8] : large_b[j - nsmall];
        terms[j] = (ez_whir_term){.coef = ez_rng_fe2(&r), .off = (ez_rng_next(&r) % (n >> b)) << b, .b = b,
                                  .z = z + 17 * j};
        for (unsigned q = 0; q < b; q++)
            z[17 * j + q] = ez_rng_fe2(&r);
        /* the true sum: coef * sum_x eq(z, x) s[off + x] (ez_whir_eq_bits: z[q] for bit q) */
        ez_whir_eq_bits(eq, terms[j].z, b);
        ez_fe2 v = ez_fe2_zero();
        for (size_t x = 0; x < ((size_t)1 << b); x++)
            v = ez_fe2_add(v, ez_fe2_mul_fe(eq[x], s[terms[j].off + x]));
        sigma = ez_fe2_add(sigma, ez_fe2_mul(terms[j].coef, v));
    }
    ez_whir_prover *pr = NULL;
    uint8_t root[32];
    ck_assert_int_eq(ez_whir_commit(&pr, root, &par, s, n), EZ_OK);
    ez_writer w[2];
    int old = ez_test_set_threads(1);
    for (int k = 0; k < 2; k++) {
        ez_test_set_threads(k + 1);
        ez_transcript t;
        ez_transcript_init(&t, "check_whir");
        ez_writer_init(&w[k]);
        ck_assert_int_eq(ez_whir_open(pr, &t, terms, nt, sigma, &w[k]), EZ_OK);
    }
    ez_test_set_threads(old);
    ck_assert_uint_eq(w[0].len, w[1].len);
    ck_assert_mem_eq(w[0].data, w[1].data, w[0].len);
    for (int bad = 0; bad < 2; bad++) {
        ez_transcript t;
        ez_transcript_init(&t, "check_whir");
        ez_reader rd;
        ez_reader_init(&rd, w[1].data, w[1].len);
        ez_fe2 claimed = bad ? ez_fe2_add(sigma, ez_fe2_one()) : sigma;
        ez_status st = ez_whir_verify(&par, root, &t, terms, nt, claimed, &rd);
        if (bad)
            ck_assert_int_ne(st, EZ_OK);
        else
            ck_assert(st == EZ_OK && ez_reader_done(&rd));
    }
    ez_writer_clear(&w[0]);
    ez_writer_clear(&w[1]);
    ez_whir_prover_free(pr);
    free(s);
    free(terms);
    free(z);
    free(eq);
}
END_TEST

/* lib/fe2_dot.c's lane kernel against its scalar loop: edge and random values, the
 * lengths around a step (1, 7, 8, 9, ...), the accumulator's most steps with the largest
 * limbs (p - 2: every limb of x and half of e all ones, the lanes' sums closest to 2^64),
 * and one step more refused with the output untouched. */
START_TEST(test_whir_acc8)
{
    ez_rng r = ez_rng_for("whir_acc8");
    const size_t maxn = EZ_FE2_ACC8_MAX + 1, nx = maxn * 13 + 8;
    ez_fe *x = ez_alloc_array(nx, sizeof *x);
    ez_fe2 *e = ez_alloc_array(maxn, sizeof *e);
    ck_assert(x != NULL && e != NULL);
    size_t lens[32], nl = 0;
    ck_assert(ez_test_vec_nlen + 2 <= 32);
    for (size_t i = 0; i < ez_test_vec_nlen; i++)
        lens[nl++] = ez_test_vec_len[i];
    lens[nl++] = 0;
    lens[nl++] = EZ_FE2_ACC8_MAX;
    for (size_t stride = 8; stride <= 13; stride += 5) /* contiguous groups (the callers'), apart */
        for (int big = 0; big < 2; big++)
            for (size_t li = 0; li < nl; li++) {
                size_t n = lens[li];
                for (size_t i = 0; i < nx; i++)
                    x[i] = big ? EZ_P - 2 : ez_rng_fe_edgy(&r);
                for (size_t u = 0; u < maxn; u++)
                    e[u] = big ? ez_fe2_make(EZ_P - 2, EZ_P - 2) : ez_rng_fe2_edgy(&r);
                ez_fe2 out[8], ref[8];
                for (size_t l = 0; l < 8; l++)
                    out[l] = ref[l] = ez_rng_fe2_edgy(&r);
                ck_assert(ez_fe2_acc8_base(out, e, x, stride, n));
                ck_assert(ez_fe2_acc8_base_ref(ref, e, x, stride, n));
                ck_assert_mem_eq(out, ref, sizeof out);
            }
    /* one step over the headroom: refused, nothing written */
    ez_fe2 out[8], keep[8];
    for (size_t l = 0; l < 8; l++)
        out[l] = keep[l] = ez_rng_fe2(&r);
    ck_assert(!ez_fe2_acc8_base(out, e, x, 8, EZ_FE2_ACC8_MAX + 1));
    ck_assert(!ez_fe2_acc8_base_ref(out, e, x, 8, EZ_FE2_ACC8_MAX + 1));
    ck_assert_mem_eq(out, keep, sizeof out);

    free(x);
    free(e);
}
END_TEST

Suite *ez_suite_whir(void)
{
    Suite *s = suite_create("whir");
    const TTest *blocks[] = {test_whir_queries_exact, test_whir_final_fold_and_encodings, test_whir_params,
        test_whir_points, test_whir_merkle_batch_hash, test_whir_ntt_blocks, test_whir_leaves0,
        test_whir_fold_differential, test_whir_acc8};
    ez_tcase_add(s, "blocks", 120, blocks, sizeof blocks / sizeof blocks[0]);
    const TTest *openings[] = {test_whir_honest_matches_reference, test_whir_malicious, test_whir_proof_mutations,
        test_whir_invalid_args, test_whir_many_terms};
    ez_tcase_add(s, "openings", 300, openings, sizeof openings / sizeof openings[0]);
    const TTest *pcs[] = {test_whir_pcs_sizes, test_whir_pcs_many, test_whir_pcs_matches_reference, test_whir_pcs_io,
        test_whir_pcs_parts, test_whir_batch_params, test_whir_batch, test_whir_joined, test_whir_pcs_multi,
        test_whir_join_spilled};
    ez_tcase_add(s, "pcs", 300, pcs, sizeof pcs / sizeof pcs[0]);
    return s;
}

/* whir — see whir.h: parameters, the oracles (interleaved Reed–Solomon encoding and
 * Merkle commitment, [WHIR] §2 and the commitment phase of §5), the commitment and its prover
 * data, and the small helpers lib/whir_prove.c and lib/whir_verify.c share.
 * Protocol and soundness: docs/protocol-kernel-pcs.md §8-11. */
#include "lib/whir.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/merkle.h"
#include "lib/ntt.h"
#include "lib/whir_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The thread that reports a commitment's progress (ez_progress_report: the installing
 * thread, the team's master) and the team's size. */
#ifdef _OPENMP
#define REPORTER() (omp_get_thread_num() == 0)
#define TEAM() omp_get_num_threads()
#else
#define REPORTER() 1
#define TEAM() 1
#endif

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "whir serialization assumes a little-endian host");
_Static_assert(sizeof(ez_fe2) == 16, "ez_fe2 must be two packed ez_fe");

/* ---- parameters ---------------------------------------------------------------------- */

unsigned ez_whir_queries(unsigned c)
{
    /* t(c) = min { t : ((1 + 2^-c) / 2)^t <= 2^-100 }, computed exactly (rationals) and
     * re-checked with GMP by tests/check_whir.c. */
    static const unsigned tab[9] = {0, 241, 148, 121, 110, 105, 103, 102, 101};
    _Static_assert(EZ_WHIR_SECURITY_BITS == 100, "the query table is for 100 bits");
    return c >= 1 && c <= 8 ? tab[c] : 0;
}

/* The einzk table (docs/protocol-kernel-pcs.md §9): folding factors and log inverse
 * rates per oracle, minimising the estimated proof size under c[0] = 2 (the commitment
 * costs about Ligero's), c <= 3 for later oracles (their encoding is prover time) and
 * at most 12 variables sent in clear; except m = 22, whose oracle 1 is at rate 1/4
 * (c = 2 instead of 3: half its encoding and tree, +8.2 KB of proof). Index: m. */
static const struct {
    unsigned char n, k[4], c[4];
} default_table[EZ_WHIR_MAX_VARS + 1] = {
    [1] = {1, {1}, {2}},
    [2] = {1, {2}, {2}},
    [3] = {1, {3}, {2}},
    [4] = {1, {4}, {2}},
    [5] = {1, {5}, {2}},
    [6] = {1, {5}, {2}},
    [7] = {1, {3}, {2}},
    [8] = {1, {3}, {2}},
    [9] = {1, {3}, {2}},
    [10] = {1, {3}, {2}},
    [11] = {1, {3}, {2}},
    [12] = {1, {3}, {2}},
    [13] = {1, {4}, {2}},
    [14] = {1, {4}, {2}},
    [15] = {1, {5}, {2}},
    [16] = {2, {4, 3}, {2, 3}},
    [17] = {2, {4, 3}, {2, 3}},
    [18] = {2, {5, 3}, {2, 3}},
    [19] = {2, {5, 4}, {2, 3}},
    [20] = {3, {5, 3, 3}, {2, 3, 3}},
    [21] = {3, {5, 4, 3}, {2, 3, 3}},
    [22] = {3, {5, 4, 3}, {2, 2, 3}},
    [23] = {3, {5, 4, 4}, {2, 3, 3}},
    [24] = {4, {5, 4, 3, 3}, {2, 3, 3, 3}},
    [25] = {4, {5, 4, 4, 3}, {2, 3, 3, 3}},
    [26] = {4, {5, 4, 4, 3}, {2, 3, 3, 3}},
};

/* ez_whir_params_make; with virtual0 oracle 0 is a batched chain's virtual one (§9a:
 * its queries go to the instances' own oracles 0, its codeword is never built), so its
 * length is not held to the NTT's limit. */
static ez_status params_build(ez_whir_params *p, unsigned m, unsigned noracles, const unsigned *k,
                              const unsigned *c, bool virtual0)
{
    memset(p, 0, sizeof *p);
    if (m < 1 || m > EZ_WHIR_MAX_VARS || noracles < 1 || noracles > EZ_WHIR_MAX_ORACLES || k == NULL || c == NULL ||
        c[0] != 2)
        return EZ_ERR_INVALID;
    unsigned left = m;
    for (unsigned i = 0; i < noracles; i++) {
        if (k[i] < 1 || k[i] > 8 || k[i] > left || c[i] > 4 || (i > 0 && c[i] < c[i - 1]))
            return EZ_ERR_INVALID;
        p->k[i] = k[i];
        p->c[i] = c[i];
        p->t[i] = ez_whir_queries(c[i]);
        p->mv[i] = left;
        if (left - k[i] + c[i] > EZ_NTT_MAX_LOG && !(virtual0 && i == 0))
            return EZ_ERR_INVALID;
        left -= k[i];
    }
    p->m = m;
    p->noracles = noracles;
    p->mfinal = left;
    return EZ_OK;
}

ez_status ez_whir_params_make(ez_whir_params *p, unsigned m, unsigned noracles, const unsigned *k,
                              const unsigned *c)
{
    return params_build(p, m, noracles, k, c, false);
}

ez_status ez_whir_params_default(ez_whir_params *p, unsigned m)
{
    if (m < 1 || m > EZ_WHIR_MAX_VARS) {
        memset(p, 0, sizeof *p);
        return EZ_ERR_INVALID;
    }
    unsigned k[4], c[4], n = default_table[m].n;
    for (unsigned i = 0; i < n; i++) {
        k[i] = default_table[m].k[i];
        c[i] = default_table[m].c[i];
    }
    return ez_whir_params_make(p, m, n, k, c);
}

ez_status ez_whir_batch_params(ez_whir_params *chain, ez_whir_block *blk, const ez_whir_params *const *par,
                               const uint64_t *lens, size_t n)
{
    memset(chain, 0, sizeof *chain);
    if (n < 2 || par == NULL || lens == NULL || n > ((size_t)1 << 20))
        return EZ_ERR_INVALID;
    /* each block's live entries, in binary pieces; all pieces by decreasing size (ties:
     * instance, then position), each offset a sum of larger powers of two */
    uint64_t total = 0;
    for (size_t j = 0; j < n; j++) {
        ez_whir_params q;
        if (par[j] == NULL || ez_whir_params_make(&q, par[j]->m, par[j]->noracles, par[j]->k, par[j]->c) != EZ_OK ||
            memcmp(&q, par[j], sizeof q) != 0 || lens[j] < 1 || lens[j] > ((uint64_t)1 << par[j]->m))
            return EZ_ERR_INVALID;
        total += ez_whir_block_live(par[j], lens[j]);
    }
    if (blk != NULL) {
        for (size_t j = 0; j < n; j++) {
            uint64_t L = ez_whir_block_live(par[j], lens[j]), pos = 0;
            blk[j].np = 0;
            for (unsigned b = EZ_WHIR_MAX_VARS + 1; b-- > 0;)
                if ((L >> b) & 1) {
                    blk[j].b[blk[j].np] = b;
                    blk[j].pos[blk[j].np++] = pos;
                    pos += (uint64_t)1 << b;
                }
        }
        uint64_t off = 0;
        for (unsigned b = EZ_WHIR_MAX_VARS + 1; b-- > 0;)
            for (size_t j = 0; j < n; j++)
                for (unsigned i = 0; i < blk[j].np; i++)
                    if (blk[j].b[i] == b) {
                        blk[j].off[i] = off;
                        off += (uint64_t)1 << b;
                    }
    }
    unsigned mv1 = 1;
    while (((uint64_t)1 << mv1) < total)
        mv1++;
    if (mv1 + 1 > EZ_WHIR_MAX_VARS)
        return EZ_ERR_INVALID;
    /* the later oracles: k = 4, c = 3 while the table's index would exceed its range, then
     * the default table's oracles after its first for mv + 5 variables */
    unsigned k[EZ_WHIR_MAX_ORACLES] = {1}, c[EZ_WHIR_MAX_ORACLES] = {2}, no = 1, mv = mv1;
    while (mv + 5 > EZ_WHIR_MAX_VARS && no < EZ_WHIR_MAX_ORACLES) {
        k[no] = 4;
        c[no++] = 3;
        mv -= 4;
    }
    unsigned mt = mv + 5;
    if (mt > EZ_WHIR_MAX_VARS)
        return EZ_ERR_INVALID;
    for (unsigned i = 1; i < default_table[mt].n && no < EZ_WHIR_MAX_ORACLES; i++) {
        k[no] = default_table[mt].k[i];
        c[no++] = default_table[mt].c[i];
    }
    return params_build(chain, mv1 + 1, no, k, c, true);
}

uint64_t ez_whir_block_live(const ez_whir_params *p, uint64_t len)
{
    uint64_t R = (uint64_t)1 << p->k[0], L = (len + R - 1) >> p->k[0];
    return L ? L : 1;
}

void ez_whir_block_whole(ez_whir_block *blk, unsigned logn)
{
    memset(blk, 0, sizeof *blk);
    blk->np = 1;
    blk->b[0] = logn;
}

void ez_whir_piece_point(ez_fe2 *pt, const ez_fe2 *r, unsigned b, uint64_t pos, unsigned logn)
{
    memcpy(pt, r, b * sizeof *pt);
    for (unsigned bit = b; bit < logn; bit++)
        pt[bit] = (pos >> bit) & 1 ? ez_fe2_one() : ez_fe2_zero();
}

bool ez_whir_terms_within(const ez_whir_term *terms, size_t n, uint64_t lim)
{
    for (size_t j = 0; j < n; j++)
        if (terms[j].off >= lim || ((uint64_t)1 << terms[j].b) > lim - terms[j].off)
            return false;
    return true;
}

/* Valid as produced by ez_whir_params_make (a caller may hand us anything). */
static bool params_ok(const ez_whir_params *p)
{
    ez_whir_params q;
    return p != NULL && ez_whir_params_make(&q, p->m, p->noracles, p->k, p->c) == EZ_OK &&
           memcmp(&q, p, sizeof q) == 0;
}

void ez_whir_absorb_params(ez_transcript *t, const ez_whir_params *p)
{
    uint64_t v[2 + 2 * EZ_WHIR_MAX_ORACLES];
    size_t n = 0;
    v[n++] = p->m;
    v[n++] = p->noracles;
    for (unsigned i = 0; i < p->noracles; i++) {
        v[n++] = p->k[i];
        v[n++] = p->c[i];
    }
    uint8_t b[8 * (2 + 2 * EZ_WHIR_MAX_ORACLES)];
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            b[8 * i + j] = (uint8_t)(v[i] >> (8 * j));
    ez_transcript_absorb_bytes(t, EZ_WHIR_L_PARAMS, b, 8 * n);
}

/* ---- points, eq, small helpers ------------------------------------------------------- */

uint64_t ez_whir_point_exp(unsigned logn, unsigned c, uint64_t q)
{
    uint64_t n = (uint64_t)1 << logn;
    return (q >> logn) + (ez_whir_brev(q & (n - 1), logn) << c);
}

uint64_t ez_whir_point_pos(unsigned logn, unsigned c, uint64_t e)
{
    uint64_t b = (uint64_t)1 << c;
    return ((e & (b - 1)) << logn) + ez_whir_brev((e >> c) & (((uint64_t)1 << logn) - 1), logn);
}

ez_fe ez_whir_root_pow(unsigned logN, uint64_t e)
{
    return ez_fe_pow(ez_fe_root_of_unity(logN), e);
}

void ez_whir_eq_bits_scaled(ez_fe2 *out, const ez_fe2 *r, unsigned k, ez_fe2 c)
{
    out[0] = c;
    for (unsigned b = 0; b < k; b++) {
        size_t h = (size_t)1 << b;
        /* entries with bit b set come from those without it; a small step stays out of
         * an inactive parallel region (half a microsecond to enter, and the openings
         * build tens of thousands of these tables of a few entries) */
        if (h < (1u << 13)) {
            for (size_t t = 0; t < h; t++) {
                ez_fe2 v = out[t], hi = ez_fe2_mul(v, r[b]);
                out[t + h] = hi;
                out[t] = ez_fe2_sub(v, hi);
            }
            continue;
        }
#pragma omp parallel for schedule(static)
        for (size_t t = 0; t < h; t++) {
            ez_fe2 v = out[t], hi = ez_fe2_mul(v, r[b]);
            out[t + h] = hi;
            out[t] = ez_fe2_sub(v, hi);
        }
    }
}

void ez_whir_eq_bits(ez_fe2 *out, const ez_fe2 *r, unsigned k)
{
    ez_whir_eq_bits_scaled(out, r, k, ez_fe2_one());
}

void ez_whir_eq_bits_base(ez_fe *out, const ez_fe *r, unsigned k)
{
    out[0] = 1;
    for (unsigned b = 0; b < k; b++) {
        size_t h = (size_t)1 << b;
        for (size_t t = 0; t < h; t++) {
            ez_fe v = out[t], hi = ez_fe_mul(v, r[b]);
            out[t + h] = hi;
            out[t] = ez_fe_sub(v, hi);
        }
    }
}

ez_fe2 ez_whir_eq_pow(ez_fe2 y, const ez_fe2 *r, unsigned n)
{
    ez_fe2 acc = ez_fe2_one();
    for (unsigned b = 0; b < n; b++) {
        acc = ez_fe2_mul(acc, ez_whir_eq1(y, r[b]));
        y = ez_fe2_sqr(y);
    }
    return acc;
}

ez_fe2 ez_whir_quad_eval(ez_fe2 g0, ez_fe2 g1, ez_fe2 g2, ez_fe2 x)
{
    /* Newton form: g0 + x (g1 - g0) + x (x - 1) / 2 (g2 - 2 g1 + g0) */
    const ez_fe inv2 = (EZ_P + 1) / 2;
    ez_fe2 d1 = ez_fe2_sub(g1, g0);
    ez_fe2 d2 = ez_fe2_add(ez_fe2_sub(g2, ez_fe2_add(g1, g1)), g0);
    ez_fe2 xx1 = ez_fe2_mul(x, ez_fe2_sub(x, ez_fe2_one()));
    return ez_fe2_add(ez_fe2_add(g0, ez_fe2_mul(x, d1)), ez_fe2_mul_fe(ez_fe2_mul(xx1, d2), inv2));
}

ez_fe2 ez_whir_horner_base(const ez_fe2 *c, size_t n, ez_fe y)
{
    ez_fe2 acc = ez_fe2_zero();
    for (size_t u = n; u-- > 0;)
        acc = ez_fe2_add(ez_fe2_mul_fe(acc, y), c[u]);
    return acc;
}

size_t ez_whir_draw_queries(ez_transcript *t, unsigned logN, unsigned nq, uint64_t *q, uint64_t *d)
{
    for (unsigned j = 0; j < nq; j++)
        q[j] = ez_transcript_challenge_index(t, EZ_WHIR_L_QUERY, (uint64_t)1 << logN);
    memcpy(d, q, nq * sizeof *d); /* q keeps the drawn order */
    return ez_sort_unique_u64(d, nq);
}

ez_fe2 ez_whir_terms_eval(const ez_whir_term *terms, size_t nterms, const ez_fe2 *r, unsigned m)
{
    ez_fe2 acc = ez_fe2_zero();
    for (size_t i = 0; i < nterms; i++) {
        const ez_whir_term *w = &terms[i];
        ez_fe2 v = w->coef;
        for (unsigned j = 0; j < w->b; j++)
            v = ez_fe2_mul(v, ez_whir_eq1(w->z[j], r[j]));
        for (unsigned j = w->b; j < m; j++)
            v = ez_fe2_mul(v, ez_whir_eq1_bit(r[j], (unsigned)((w->off >> j) & 1)));
        acc = ez_fe2_add(acc, v);
    }
    return acc;
}

/* ---- oracles -------------------------------------------------------------------------- */

void ez_whir_oracle_clear(ez_whir_oracle *o)
{
    free(o->enc);
    ez_merkle_free(o->tree);
    memset(o, 0, sizeof *o);
}

/* Rows encoded together (their leaf entries are then written 64 bytes at a time). */
#define EZ_WHIR_ROW_BLOCK 8u

#if defined(__AVX512F__)
#include <immintrin.h>
/* 8x8 transpose of 64-bit lanes: out[c] lane r = in[r] lane c. */
static inline void transpose8(__m512i *x)
{
    const __m512i i0 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i i1 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    __m512i t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm512_unpacklo_epi64(x[k], x[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi64(x[k], x[k + 1]);
    }
    u[0] = _mm512_permutex2var_epi64(t[0], i0, t[2]);
    u[1] = _mm512_permutex2var_epi64(t[0], i1, t[2]);
    u[2] = _mm512_permutex2var_epi64(t[1], i0, t[3]);
    u[3] = _mm512_permutex2var_epi64(t[1], i1, t[3]);
    u[4] = _mm512_permutex2var_epi64(t[4], i0, t[6]);
    u[5] = _mm512_permutex2var_epi64(t[4], i1, t[6]);
    u[6] = _mm512_permutex2var_epi64(t[5], i0, t[7]);
    u[7] = _mm512_permutex2var_epi64(t[5], i1, t[7]);
    x[0] = _mm512_shuffle_i64x2(u[0], u[4], 0x44);
    x[4] = _mm512_shuffle_i64x2(u[0], u[4], 0xEE);
    x[2] = _mm512_shuffle_i64x2(u[1], u[5], 0x44);
    x[6] = _mm512_shuffle_i64x2(u[1], u[5], 0xEE);
    x[1] = _mm512_shuffle_i64x2(u[2], u[6], 0x44);
    x[5] = _mm512_shuffle_i64x2(u[2], u[6], 0xEE);
    x[3] = _mm512_shuffle_i64x2(u[3], u[7], 0x44);
    x[7] = _mm512_shuffle_i64x2(u[3], u[7], 0xEE);
}
#endif

/* dst[rr * n + u] = src[rr + sw * u] for rr < 8, u < n (8 interleaved rows out of a
 * table of width sw, to 8 contiguous rows). */
static void gather8(ez_fe *dst, const ez_fe *src, size_t sw, size_t n)
{
    size_t u = 0;
#if defined(__AVX512F__)
    for (; u + 8 <= n; u += 8) {
        __m512i x[8];
        for (int k = 0; k < 8; k++)
            x[k] = _mm512_loadu_si512((const void *)(src + sw * (u + k)));
        transpose8(x);
        for (int k = 0; k < 8; k++)
            _mm512_storeu_si512((void *)(dst + k * n + u), x[k]);
    }
#endif
    for (; u < n; u++)
        for (size_t rr = 0; rr < 8; rr++)
            dst[rr * n + u] = src[rr + sw * u];
}

/* dst[j * dw + rr] = src[rr * n + j] for rr < 8, j < n (the inverse layout change). */
static void scatter8(ez_fe *dst, size_t dw, const ez_fe *src, size_t n)
{
    size_t j = 0;
#if defined(__AVX512F__)
    /* aligned runs bypass the cache: the codeword is far larger than it and is next
     * read leaf by leaf for hashing */
    bool aligned = ((uintptr_t)dst % 64) == 0 && dw % 8 == 0;
    for (; j + 8 <= n; j += 8) {
        __m512i x[8];
        for (int k = 0; k < 8; k++)
            x[k] = _mm512_loadu_si512((const void *)(src + k * n + j));
        transpose8(x);
        if (aligned)
            for (int k = 0; k < 8; k++)
                _mm512_stream_si512((void *)(dst + dw * (j + k)), x[k]);
        else
            for (int k = 0; k < 8; k++)
                _mm512_storeu_si512((void *)(dst + dw * (j + k)), x[k]);
    }
    _mm_sfence();
#endif
    for (; j < n; j++)
        for (size_t rr = 0; rr < 8; rr++)
            dst[j * dw + rr] = src[rr * n + j];
}

/* An empty oracle of 2^logn rows of 2^lw entries at rate 2^-c folding k variables;
 * EZ_ERR_INVALID past the NTT's or a leaf's size limit. */
static ez_status oracle_shape(ez_whir_oracle *o, unsigned lw, unsigned k, unsigned logn, unsigned c)
{
    memset(o, 0, sizeof *o);
    if (logn + c > EZ_NTT_MAX_LOG || lw > 16)
        return EZ_ERR_INVALID;
    o->logn = logn;
    o->c = c;
    o->k = k;
    o->width = (size_t)1 << lw;
    return EZ_OK;
}

ez_status ez_whir_oracle_encode(ez_whir_oracle *o, const ez_fe *a, unsigned lw, unsigned k, unsigned logn,
                                unsigned c)
{
    ez_ntt_rs *rs = NULL;
    ez_status st = oracle_shape(o, lw, k, logn, c);
    if (st != EZ_OK)
        return st;
    size_t n = (size_t)1 << logn, nb = (size_t)1 << c, w = o->width, N = n << c;
    if ((st = ez_ntt_rs_new(&rs, logn, c)) != EZ_OK)
        return st;
    st = EZ_ERR_NOMEM;
    o->enc = ez_alloc_huge(N * w, sizeof *o->enc);
    if (o->enc == NULL)
        goto out;
    /* Row blocks of up to 8 rows: gather the rows, Möbius-transform each ([WHIR] §2:
     * a row's multilinear coefficients are its univariate coefficients, bit j of u <->
     * X^(2^j)), encode every coset, write the values into their leaves. */
    size_t rb = w < EZ_WHIR_ROW_BLOCK ? w : EZ_WHIR_ROW_BLOCK, nrb = w / rb;
    int failed = 0;
    size_t units_done = 0;
#pragma omp parallel if (N * w >= (1u << 14))
    {
        ez_fe *buf = ez_alloc_aligned(2 * rb * n, sizeof *buf);
        if (buf == NULL) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t blk = 0; blk < nrb; blk++) {
            if (buf == NULL)
                continue;
            size_t r0 = blk * rb;
            ez_fe *coef = buf, *val = buf + rb * n;
            if (rb == 8) {
                gather8(coef, a + r0, w, n);
            } else {
                for (size_t u = 0; u < n; u++)
                    for (size_t rr = 0; rr < rb; rr++)
                        coef[rr * n + u] = a[r0 + rr + w * u];
            }
            for (size_t rr = 0; rr < rb; rr++)
                ez_ntt_mobius(coef + rr * n, 0, logn);
            for (size_t kk = 0; kk < nb; kk++) {
                /* the encoding is 3/4 of a commitment's work (the hashing the rest),
                 * counted in cosets of row blocks across the team */
                size_t d;
#pragma omp atomic capture
                d = ++units_done;
                if (REPORTER())
                    ez_progress_report(0.75 * (double)d / (double)(nrb * nb));
                for (size_t rr = 0; rr < rb; rr++)
                    ez_ntt_rs_coset(rs, val + rr * n, coef + rr * n, (unsigned)kk);
                /* leaf q = kk n + j holds row r at q * w + r */
                ez_fe *dst = o->enc + kk * n * w + r0;
                if (rb == 8) {
                    scatter8(dst, w, val, n);
                } else {
                    for (size_t j = 0; j < n; j++)
                        for (size_t rr = 0; rr < rb; rr++)
                            dst[j * w + rr] = val[rr * n + j];
                }
            }
        }
        free(buf);
    }
    if (failed)
        goto out;
    st = EZ_OK;
out:
    ez_ntt_rs_free(rs);
    if (st != EZ_OK)
        ez_whir_oracle_clear(o);
    return st;
}

/* The tree over oracle o's leaves. */
static ez_status oracle_tree(ez_whir_oracle *o, ez_digest *root)
{
    unsigned depth = o->logn + o->c;
    size_t N = (size_t)1 << depth;
    ez_status st = ez_merkle_alloc(&o->tree, depth);
    if (st != EZ_OK)
        return st;
    ez_digest *lv = ez_merkle_leaves_mut(o->tree);
    const size_t chunk = 256;
    size_t nch = (N + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (N >= 1024)
    for (size_t ch = 0; ch < nch; ch++) {
        size_t q0 = ch * chunk, nq = N - q0 < chunk ? N - q0 : chunk;
        ez_merkle_hash_leaves(lv + q0, o->enc + q0 * o->width, o->width, o->width, nq);
        /* the master's static share is the first nch / threads chunks */
        if (REPORTER() && ch % 64 == 0)
            ez_progress_report(0.75 + 0.25 * (double)ch * TEAM() / (double)nch);
    }
    ez_merkle_build(o->tree);
    *root = *ez_merkle_root(o->tree);
    return EZ_OK;
}

ez_status ez_whir_oracle_commit(ez_whir_oracle *o, ez_digest *root, const ez_fe *a, unsigned lw, unsigned k,
                                unsigned logn, unsigned c)
{
    ez_status st = ez_whir_oracle_encode(o, a, lw, k, logn, c);
    if (st == EZ_OK && (st = oracle_tree(o, root)) != EZ_OK)
        ez_whir_oracle_clear(o);
    return st;
}

/* ---- commitment and prover data ----------------------------------------------------- */

void ez_whir_prover_free(ez_whir_prover *p)
{
    if (p == NULL)
        return;
    if (p->s_spilled)
        ez_spill_free(p->s, ((size_t)1 << p->par.m) * sizeof *p->s);
    else
        free(p->s);
    ez_whir_oracle_clear(&p->o0);
    free(p);
}

void ez_whir_prover_spill(ez_whir_prover *p)
{
    if (p == NULL)
        return;
    ez_merkle_spill(p->o0.tree);
    if (!p->s_spilled) {
        ez_fe *m = ez_spill_copy(p->s, ((size_t)1 << p->par.m) * sizeof *p->s);
        if (m == NULL)
            return;
        free(p->s);
        p->s = m;
        p->s_spilled = true;
    }
    /* memory is short: a kept codeword is only the opening's shortcut */
    free(p->o0.enc);
    p->o0.enc = NULL;
    ez_whir_prover_release(p); /* built in place (ez_whir_commit_mapped): still resident */
}

void ez_whir_prover_release(const ez_whir_prover *p)
{
    if (p == NULL)
        return;
    if (p->s_spilled)
        ez_spill_release(p->s, ((size_t)1 << p->par.m) * sizeof *p->s);
    ez_merkle_release(p->o0.tree);
}

const ez_whir_params *ez_whir_prover_params(const ez_whir_prover *p)
{
    return &p->par;
}

uint64_t ez_whir_prover_len(const ez_whir_prover *p)
{
    return p->len;
}

/* Oracle 0 of s committed one coset at a time: leaves kk n .. (kk + 1) n - 1 are coset kk
 * of every row (ez_whir_point_exp), so the rows' coefficients (2^m entries) and one
 * coset's leaves (2^m) suffice: the same tree as ez_whir_oracle_commit's, without its
 * 4 x 2^m codeword (half the memory of a commitment, and half its fresh pages). Up to
 * EZ_WHIR_KEEP_LOG the cosets are written side by side instead and the codeword is kept
 * (o->enc; the coefficients then sit in the last coset's place, encoded last and in
 * place), else o->enc is NULL. s is already in the leaves' layout (entry u of row r at
 * u 2^k + r), and so is every step (ez_ntt's lanes): no transposition, and each cache
 * block of a coset is hashed as soon as it is encoded. Returns EZ_OK, EZ_ERR_INVALID,
 * EZ_ERR_NOMEM. */
static ez_status commit0_by_coset(ez_whir_oracle *o, ez_digest *root, const ez_fe *a, unsigned k, unsigned logn,
                                  unsigned c, bool spilled, bool paths)
{
    ez_ntt_rs *rs = NULL;
    ez_status st = oracle_shape(o, k, k, logn, c);
    if (st != EZ_OK)
        return st;
    size_t n = (size_t)1 << logn, nb = (size_t)1 << c, w = o->width;
    unsigned B = ez_ntt_lanes_block_log(logn, k);
    size_t nblk = n >> B, ncol = (size_t)1 << B, bw = ncol * w;
    if ((st = ez_ntt_rs_new(&rs, logn, c)) != EZ_OK)
        return st;
    st = EZ_ERR_NOMEM;
    bool keep = logn + c + o->k <= EZ_WHIR_KEEP_LOG;
    /* no paths wanted (a joined part): only the tree's leaf level is written; its inner
     * levels are hashed into a scratch, the coefficients' buffer once the encoding is done
     * with it when it holds the 2^(logn+c) digests (not kept, 2^k >= 4 2^c: every part
     * of GPT-2), else a buffer of their own */
    bool leaves_only = !paths;
    ez_fe *val = ez_alloc_huge((keep ? nb : 1) * n * w, sizeof *val);
    ez_fe *coef = keep ? (val ? val + (nb - 1) * n * w : NULL) : ez_alloc_huge(w * n, sizeof *coef);
    if (coef == NULL || val == NULL)
        goto out;
    if ((leaves_only ? ez_merkle_alloc_leaves(&o->tree, logn + c, spilled)
                     : spilled ? ez_merkle_alloc_spilled(&o->tree, logn + c)
                               : ez_merkle_alloc(&o->tree, logn + c)) != EZ_OK)
        goto out;
    /* written in full below: their pages in one call each */
    ez_populate(val, (keep ? nb : 1) * n * w * sizeof *val);
    if (!keep)
        ez_populate(coef, w * n * sizeof *coef);
    ez_digest *lv = ez_merkle_leaves_mut(o->tree);
    /* kept: every coset's columns in one pass over the coefficients (the coset 0 .. nb-2
     * from them, the last in place), then every coset's blocks; else coset by coset */
    size_t ncos = keep ? nb : 1, npass = keep ? 1 : nb, blocks_done = 0;
#pragma omp parallel if (n * w >= (1u << 14))
    {
        /* the rows' Möbius coefficients ([WHIR] §2: bit j of u <-> X^(2^j)): the bits
         * below B here, the rest with the first pass's columns */
#pragma omp for schedule(static)
        for (size_t blk = 0; blk < nblk; blk++)
            ez_ntt_lanes_mobius_block(coef, a, k, B, blk);
        for (size_t pass = 0; pass < npass; pass++) {
#pragma omp for schedule(static)
            for (size_t q = 0; q < ncol; q++) {
                if (pass == 0)
                    ez_ntt_lanes_mobius_column(coef, k, logn, B, q);
                for (size_t i = 0; i < ncos; i++)
                    ez_ntt_rs_lanes_column(rs, val + i * n * w, coef, (unsigned)(pass + i), k, B, q);
            }
            /* progress: the columns are about 2/5 of a pass (reported once all are done,
             * whoever ran them), the blocks the rest, counted across the team */
            if (REPORTER())
                ez_progress_report(((double)pass + 0.4) / (double)npass);
#pragma omp for schedule(dynamic, 1)
            for (size_t x = 0; x < ncos * nblk; x++) {
                size_t i = x / nblk, blk = x % nblk, kk = pass + i;
                ez_fe *vk = val + i * n * w; /* coset kk's leaves: leaf kk n + j holds row r at vk[j w + r] */
                ez_ntt_rs_lanes_block(rs, vk, k, B, blk);
                ez_merkle_hash_leaves(lv + kk * n + blk * ncol, vk + blk * bw, w, w, ncol);
                size_t d;
#pragma omp atomic capture
                d = ++blocks_done;
                if (REPORTER())
                    ez_progress_report(((double)pass + 0.4 + 0.6 * (double)(d - pass * ncos * nblk) /
                                                             (double)(ncos * nblk)) / (double)npass);
            }
        }
    }
    if (leaves_only) {
        bool reuse = !keep && ((size_t)1 << k) >= ((size_t)4 << c);
        ez_digest *scratch = reuse ? (ez_digest *)coef : ez_alloc_huge((size_t)1 << (logn + c), sizeof *scratch);
        if (scratch == NULL)
            goto out;
        ez_merkle_build_root(o->tree, scratch);
        if (!reuse)
            free(scratch);
    } else {
        ez_merkle_build(o->tree);
    }
    *root = *ez_merkle_root(o->tree);
    if (keep) {
        o->enc = val;
        val = NULL;
    }
    st = EZ_OK;
out:
    if (!keep)
        free(coef);
    free(val);
    ez_ntt_rs_free(rs);
    if (st != EZ_OK)
        ez_whir_oracle_clear(o);
    return st;
}

/* Oracle 0 of p->s: its tree, built from the encoding, or a given one (built from a pk's
 * leaf digests; adopted).
 * The codeword itself is not kept (4 entries per entry of s): the opening computes only
 * the queried leaves (ez_whir_prover_leaves0), so a prover holds s and the tree, 16 bytes
 * per entry. */
static ez_status commit_s(ez_whir_prover *p, ez_digest *root, ez_merkle *tree, bool paths)
{
    const ez_whir_params *par = &p->par;
    unsigned k0 = par->k[0], logn = par->m - k0;
    if (tree == NULL)
        return commit0_by_coset(&p->o0, root, p->s, k0, logn, par->c[0], p->s_spilled, paths);
    p->o0.logn = logn;
    p->o0.c = par->c[0];
    p->o0.k = k0;
    p->o0.width = (size_t)1 << k0;
    p->o0.tree = tree;
    *root = *ez_merkle_root(tree);
    return EZ_OK;
}

ez_status ez_whir_prover_encode0(const ez_whir_prover *p, ez_fe **enc)
{
    const ez_whir_params *par = &p->par;
    unsigned k0 = par->k[0], logn = par->m - k0;
    ez_whir_oracle o;
    ez_status st = ez_whir_oracle_encode(&o, p->s, k0, k0, logn, par->c[0]);
    *enc = st == EZ_OK ? o.enc : NULL;
    return st;
}

/* Slices of at most 2^6 entries: each leaf then costs one multiply-add per 64 entries
 * of its rows, next to the ~15 butterflies per entry of the slices' encodings. */
#define EZ_WHIR_LEAF_SLICE_LOG 6u

ez_status ez_whir_prover_leaves0(const ez_whir_prover *p, const uint64_t *pos, size_t np, ez_fe *out)
{
    const ez_whir_params *par = &p->par;
    unsigned k0 = par->k[0], logn = par->m - k0, c = par->c[0];
    unsigned lb = logn < EZ_WHIR_LEAF_SLICE_LOG ? logn : EZ_WHIR_LEAF_SLICE_LOG, la = logn - lb;
    size_t R = (size_t)1 << k0, na = (size_t)1 << la, nb = (size_t)1 << lb, M = nb << c;
    size_t rb = R < 8 ? R : 8;
    uint64_t N = (uint64_t)1 << (logn + c);
    for (size_t j = 0; j < np; j++)
        if (pos[j] >= N)
            return EZ_ERR_INVALID;
    if (np == 0)
        return EZ_OK;
    ez_status st = EZ_ERR_NOMEM;
    ez_fe *E = ez_alloc_array(na * np, sizeof *E), *tmp = ez_alloc_array(na, sizeof *tmp);
    ez_fe *tw = ez_alloc_array(M, sizeof *tw);
    size_t *zp = ez_alloc_array(np, sizeof *zp);
    uint8_t *need = calloc(M, 1);
    uint16_t *plan = ez_alloc_array(M + 2, sizeof *plan);
    if (E == NULL || tmp == NULL || tw == NULL || zp == NULL || need == NULL || plan == NULL)
        goto out;
    ez_ntt_small_twiddles(tw, lb + c);
    /* E[a np + j] = eq(pow_la(y_j), a); y_j^(2^la) = w_M^(e_j mod M): zp[j] in a slice's
     * natural-order codeword */
    for (size_t j = 0; j < np; j++) {
        uint64_t e = ez_whir_point_exp(logn, c, pos[j]);
        ez_fe r[EZ_WHIR_MAX_VARS], y = ez_whir_root_pow(logn + c, e);
        for (unsigned b = 0; b < la; b++) {
            r[b] = y;
            y = ez_fe_sqr(y);
        }
        ez_whir_eq_bits_base(tmp, r, la);
        for (size_t a = 0; a < na; a++)
            E[a * np + j] = tmp[a];
        zp[j] = (size_t)(e & (M - 1));
        need[zp[j]] = 1;
    }
    /* a slice's codeword is read only at the zp: skip the rest of its last two stages */
    ez_ntt_small_plan(plan, need, lb + c);
    memset(out, 0, np * R * sizeof *out);
    int failed = 0;
#pragma omp parallel if (na * R * nb >= (1u << 16))
    {
        /* per leaf and row, this thread's share of the sum over the slices */
        ez_fe *xs = ez_alloc_aligned(8 * nb, sizeof *xs), *cw = ez_alloc_aligned(8 * M, sizeof *cw);
        ez_fe *acc = calloc(np * R + 8, sizeof *acc);
        if (xs == NULL || cw == NULL || acc == NULL) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (size_t a = 0; a < na; a++) {
            if (acc == NULL || xs == NULL || cw == NULL)
                continue;
            const ez_fe *ea = E + a * np;
            for (size_t r0 = 0; r0 < R; r0 += rb) {
                /* rows r0 .. r0 + rb - 1 of the slice at a, lane-major: entries
                 * r0 + l + R (a + na b), contiguous in l */
                for (size_t b = 0; b < nb; b++) {
                    const ez_fe *src = p->s + r0 + R * (a + na * b);
                    if (rb == 8) {
                        memcpy(xs + 8 * b, src, 8 * sizeof *xs);
                    } else {
                        for (size_t l = 0; l < 8; l++)
                            xs[8 * b + l] = l < rb ? src[l] : 0;
                    }
                }
                ez_ntt_rs_small8(cw, xs, lb, c, tw, plan);
                /* rb < 8 only when R < 8: lanes past R land in the spare entries */
                ez_ntt_mac8(acc + r0, R, cw, zp, ea, np);
            }
        }
#pragma omp critical
        if (acc != NULL)
            for (size_t x = 0; x < np * R; x++)
                out[x] = ez_fe_add(out[x], acc[x]);
        free(xs);
        free(cw);
        free(acc);
    }
    st = failed ? EZ_ERR_NOMEM : EZ_OK;
out:
    free(E);
    free(tmp);
    free(tw);
    free(zp);
    free(need);
    free(plan);
    return st;
}

/* A prover over s (2^m entries, zeros from len on), which it owns: mapped, an
 * ez_spill_alloc mapping, else heap memory. s is freed on failure (when its size is
 * known: params_ok). */
static ez_status prover_adopt(ez_whir_prover **out, const ez_whir_params *par, ez_fe *s, uint64_t len, bool mapped)
{
    *out = NULL;
    ez_status bad = s == NULL || !params_ok(par) || len > ((uint64_t)1 << par->m) ? EZ_ERR_INVALID : EZ_OK;
    ez_whir_prover *p = bad == EZ_OK ? calloc(1, sizeof *p) : NULL;
    if (p == NULL) {
        if (mapped && s != NULL && params_ok(par))
            ez_spill_free(s, ((size_t)1 << par->m) * sizeof *s);
        else if (!mapped)
            free(s);
        return bad != EZ_OK ? bad : EZ_ERR_NOMEM;
    }
    p->par = *par;
    p->len = len;
    p->s = s;
    p->s_spilled = mapped;
    *out = p;
    return EZ_OK;
}

/* ez_whir_commit_take (mapped false) or ez_whir_commit_mapped (true). */
static ez_status commit_owned(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *par, ez_fe *s,
                              uint64_t len, bool mapped, bool paths)
{
    ez_whir_prover *p;
    ez_status st = prover_adopt(&p, par, s, len, mapped);
    if (st != EZ_OK)
        return st;
    ez_digest d;
    if ((st = commit_s(p, &d, NULL, paths)) != EZ_OK) {
        ez_whir_prover_free(p);
        return st;
    }
    memcpy(root, d.h, 32);
    *out = p;
    return EZ_OK;
}

ez_status ez_whir_commit_take(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *par, ez_fe *s,
                              uint64_t len, bool paths)
{
    return commit_owned(out, root, par, s, len, false, paths);
}

ez_status ez_whir_commit_mapped(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *par, ez_fe *s,
                                uint64_t len, bool paths)
{
    return commit_owned(out, root, par, s, len, true, paths);
}

ez_status ez_whir_commit(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *par, const ez_fe *s,
                         uint64_t len)
{
    *out = NULL;
    if (!params_ok(par) || len > ((uint64_t)1 << par->m) || (s == NULL && len > 0))
        return EZ_ERR_INVALID;
    size_t n = (size_t)1 << par->m;
    ez_fe *c = ez_alloc_huge(n, sizeof *c);
    if (c == NULL)
        return EZ_ERR_NOMEM;
    if (len > 0)
        memcpy(c, s, (size_t)len * sizeof *s);
    memset(c + len, 0, (n - (size_t)len) * sizeof *c);
    return ez_whir_commit_take(out, root, par, c, len, true);
}

void ez_whir_prover_write(ez_writer *w, const ez_whir_prover *p)
{
    size_t N = (size_t)1 << ez_whir_log_len(&p->par, 0);
    ez_writer_bytes(w, ez_merkle_leaves(p->o0.tree), N * sizeof(ez_digest));
}

/* The key's 2^depth leaf digests, checked canonical, into a tree built over them (on disk
 * from the start with EZ_SPILL_DIR, as the prover would spill it). */
static ez_status read_tree(ez_reader *r, unsigned depth, ez_merkle **out)
{
    ez_merkle *t;
    ez_status st = ez_merkle_alloc_spilled(&t, depth);
    if (st != EZ_OK)
        return st;
    ez_digest *lv = ez_merkle_leaves_mut(t);
    size_t N = (size_t)1 << depth;
    if (!ez_reader_bytes(r, lv, N * sizeof *lv) || !ez_merkle_digests_canonical(lv, N)) {
        ez_merkle_free(t);
        return EZ_ERR_FORMAT;
    }
    ez_merkle_build(t);
    *out = t;
    return EZ_OK;
}

ez_status ez_whir_prover_read(ez_reader *r, const ez_whir_params *par, const uint8_t root[32], ez_fe *s,
                              uint64_t len, bool mapped, ez_whir_prover **out)
{
    ez_merkle *tree = NULL;
    ez_whir_prover *p;
    ez_status st = prover_adopt(&p, par, s, len, mapped);
    *out = NULL;
    if (st != EZ_OK)
        return st;
    if ((st = read_tree(r, ez_whir_log_len(par, 0), &tree)) != EZ_OK)
        goto out;
    ez_digest d;
    st = commit_s(p, &d, tree, true); /* the tree is p's now */
    tree = NULL;
    if (st != EZ_OK)
        goto out;
    st = EZ_ERR_FORMAT;
    if (memcmp(d.h, root, 32) != 0)
        goto out;
    *out = p;
    p = NULL;
    st = EZ_OK;
out:
    if (st != EZ_OK)
        r->failed = true;
    ez_merkle_free(tree);
    ez_whir_prover_free(p);
    return st;
}

bool ez_whir_joinable(const ez_whir_params *a, const ez_whir_params *b)
{
    return a->m == b->m && a->k[0] == b->k[0] && a->c[0] == b->c[0] && a->t[0] == b->t[0];
}

ez_status ez_whir_join(ez_merkle **out, uint8_t root[32], const ez_whir_prover *const *p, size_t n)
{
    *out = NULL;
    if (n < 2 || n > EZ_WHIR_MAX_JOIN || p == NULL)
        return EZ_ERR_INVALID;
    for (size_t j = 0; j < n; j++)
        if (p[j] == NULL || p[j]->o0.tree == NULL || !ez_whir_joinable(&p[0]->par, &p[j]->par))
            return EZ_ERR_INVALID;
    unsigned logN = ez_whir_log_len(&p[0]->par, 0);
    ez_merkle *t;
    /* spilled parts: the joined tree on disk too, built in place */
    ez_status st = p[0]->s_spilled ? ez_merkle_alloc_spilled(&t, logN) : ez_merkle_alloc(&t, logN);
    if (st != EZ_OK)
        return st;
    ez_digest *lv = ez_merkle_leaves_mut(t);
    size_t N = (size_t)1 << logN;
    /* blocks of leaves, each part's spilled digests of a block handed back after it: the
     * join reads every part's leaf level (11 x 256 MiB for GPT-2's advice at 512 tokens),
     * which would otherwise be resident all at once */
    const size_t blk = (size_t)1 << 16;
    for (size_t q0 = 0; q0 < N; q0 += blk) {
        size_t q1 = N - q0 < blk ? N : q0 + blk;
#pragma omp parallel for schedule(static)
        for (size_t q = q0; q < q1; q++) {
            ez_digest d[EZ_WHIR_MAX_JOIN];
            for (size_t j = 0; j < n; j++)
                d[j] = ez_merkle_leaves(p[j]->o0.tree)[q];
            ez_merkle_hash_digests(&lv[q], d, n);
        }
        for (size_t j = 0; j < n; j++)
            ez_merkle_release_leaves(p[j]->o0.tree, q0, q1 - q0);
    }
    ez_merkle_build(t);
    memcpy(root, ez_merkle_root(t)->h, 32);
    *out = t;
    return EZ_OK;
}

/* ntt: forward/inverse against a naive O(n^2) DFT on small sizes, round trips and
 * Horner spot checks on large sizes, coset evaluation, and the systematic RS
 * low-degree extension (message preserved, codeword of degree < n, coset layout), and
 * the interleaved (lanes) encoding against the per-row one; the eight-lane vector ops
 * (lib/fe_vec.h: AVX-512 or AVX2) against lib/field.h lane by lane. */
#include <stdlib.h>
#include <string.h>

#include "lib/fe_vec.h"
#include "lib/ntt.h"
#include "tests/testutil.h"

/* P(x) = sum_i a[i] x^i by Horner. */
static ez_fe horner(const ez_fe *a, size_t n, ez_fe x)
{
    ez_fe acc = 0;
    for (size_t i = n; i-- > 0;)
        acc = ez_fe_add(ez_fe_mul(acc, x), a[i]);
    return acc;
}

/* out[i] = sum_j a[j] (shift w^i)^j with w the primitive n-th root. */
static void naive_dft(ez_fe *out, const ez_fe *a, unsigned logn, ez_fe shift)
{
    size_t n = (size_t)1 << logn;
    ez_fe w = ez_fe_root_of_unity(logn), x = shift;
    for (size_t i = 0; i < n; i++) {
        out[i] = horner(a, n, x);
        x = ez_fe_mul(x, w);
    }
}

static ez_fe *rand_vec(ez_rng *r, size_t n)
{
    ez_fe *v = malloc(n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < n; i++)
        v[i] = ez_rng_fe(r);
    return v;
}

START_TEST(test_ntt_vs_naive)
{
    ez_rng r = ez_rng_for("ntt_vs_naive");
    ez_ntt *t = NULL;
    ck_assert_int_eq(ez_ntt_new(&t, 10), EZ_OK);
    ck_assert_uint_eq(ez_ntt_max_log(t), 10);
    for (unsigned lg = 0; lg <= 10; lg++) {
        size_t n = (size_t)1 << lg;
        ez_fe *a = rand_vec(&r, n), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        naive_dft(b, a, lg, 1);
        memcpy(c, a, n * sizeof *c);
        ez_ntt_forward(t, c, lg);
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_eq(c[i], b[i]);
        ez_ntt_inverse(t, c, lg);
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_eq(c[i], a[i]);
        free(a);
        free(b);
        free(c);
    }
    /* Known answer: the transform of (1, 1, 0, ...) is 1 + w^i; of e_1 it is w^i. */
    ez_fe v[16] = {0, 1};
    ez_ntt_forward(t, v, 4);
    ez_fe w = ez_fe_root_of_unity(4);
    for (size_t i = 0; i < 16; i++)
        ck_assert_uint_eq(v[i], ez_fe_pow(w, i));
    ez_ntt_free(t);
}
END_TEST

START_TEST(test_ntt_special_values)
{
    /* Edge values (0, 1, p-1) through every butterfly path. */
    ez_ntt *t = NULL;
    ck_assert_int_eq(ez_ntt_new(&t, 6), EZ_OK);
    const ez_fe vals[3] = {0, 1, EZ_P - 1};
    for (int v = 0; v < 3; v++) {
        ez_fe a[64], b[64], c[64];
        for (size_t i = 0; i < 64; i++)
            a[i] = (i % 3 == (size_t)v) ? EZ_P - 1 : vals[v];
        naive_dft(b, a, 6, 1);
        memcpy(c, a, sizeof c);
        ez_ntt_forward(t, c, 6);
        ck_assert_mem_eq(c, b, sizeof c);
        ez_ntt_inverse(t, c, 6);
        ck_assert_mem_eq(c, a, sizeof c);
    }
    ez_ntt_free(t);
}
END_TEST

START_TEST(test_ntt_large_roundtrip)
{
    ez_rng r = ez_rng_for("ntt_large_roundtrip");
    const unsigned lg = 20;
    size_t n = (size_t)1 << lg;
    ez_ntt *t = NULL;
    ck_assert_int_eq(ez_ntt_new(&t, lg), EZ_OK);
    ez_fe *a = rand_vec(&r, n), *c = malloc(n * sizeof *c);
    memcpy(c, a, n * sizeof *c);
    ez_ntt_forward(t, c, lg);
    /* Spot checks against Horner (independent of the transform). */
    ez_fe w = ez_fe_root_of_unity(lg);
    const size_t spots[4] = {0, 1, 12345, n - 1};
    for (int k = 0; k < 4; k++)
        ck_assert_uint_eq(c[spots[k]], horner(a, n, ez_fe_pow(w, spots[k])));
    ez_ntt_inverse(t, c, lg);
    ck_assert_mem_eq(c, a, n * sizeof *c);
    /* Smaller sizes with the same tables (the strided twiddle reuse). */
    for (unsigned l2 = 13; l2 <= 16; l2++) {
        size_t m = (size_t)1 << l2;
        memcpy(c, a, m * sizeof *c);
        ez_ntt_forward(t, c, l2);
        ck_assert_uint_eq(c[3], horner(a, m, ez_fe_pow(ez_fe_root_of_unity(l2), 3)));
        ez_ntt_inverse(t, c, l2);
        ck_assert_mem_eq(c, a, m * sizeof *c);
    }
    free(a);
    free(c);
    ez_ntt_free(t);
}
END_TEST

START_TEST(test_ntt_coset)
{
    ez_rng r = ez_rng_for("ntt_coset");
    ez_ntt *t = NULL;
    ck_assert_int_eq(ez_ntt_new(&t, 9), EZ_OK);
    for (unsigned lg = 0; lg <= 9; lg += 3) {
        size_t n = (size_t)1 << lg;
        ez_fe shift = ez_rng_fe(&r);
        ez_fe *a = rand_vec(&r, n), *b = malloc(n * sizeof *b);
        naive_dft(b, a, lg, shift);
        ez_ntt_coset_forward(t, a, lg, shift);
        ck_assert_mem_eq(a, b, n * sizeof *a);
        free(a);
        free(b);
    }
    ez_ntt_free(t);
}
END_TEST

/* The codeword of a message: coset k position j is P(g^k w^j), P interpolating the
 * message on <w>; checked by Horner on the interpolated coefficients. */
static void check_lde(ez_rng *r, unsigned lg, unsigned lb, bool spot_only)
{
    size_t n = (size_t)1 << lg, B = (size_t)1 << lb;
    ez_ntt_lde *p = NULL;
    ez_ntt *t = NULL;
    ck_assert_int_eq(ez_ntt_lde_new(&p, lg, lb), EZ_OK);
    ck_assert_uint_eq(ez_ntt_lde_logn(p), lg);
    ck_assert_uint_eq(ez_ntt_lde_log_blowup(p), lb);
    ck_assert_int_eq(ez_ntt_new(&t, lg + lb), EZ_OK);
    ez_fe *msg = rand_vec(r, n), *out = malloc(B * n * sizeof *out), *scratch = malloc(n * sizeof *scratch);
    ez_fe *coef = malloc(B * n * sizeof *coef), *inpl = malloc(B * n * sizeof *inpl);
    ez_ntt_lde_apply(p, out, msg, scratch);
    /* systematic */
    ck_assert_mem_eq(out, msg, n * sizeof *out);
    memcpy(coef, msg, n * sizeof *coef);
    ez_ntt_inverse(t, coef, lg);
    ez_fe g = ez_fe_root_of_unity(lg + lb), w = ez_fe_root_of_unity(lg);
    for (size_t k = 0; k < B; k++) {
        for (size_t j = 0; j < n; j += spot_only ? n / 4 + 1 : 1) {
            ez_fe x = ez_fe_mul(ez_fe_pow(g, k), ez_fe_pow(w, j));
            ck_assert_uint_eq(out[k * n + j], horner(coef, n, x));
        }
    }
    /* a codeword: interpolated over the whole domain it has degree < n */
    if (!spot_only) {
        /* The domain in coset order is w_{Bn}^(k + B j); reorder to natural order. */
        for (size_t k = 0; k < B; k++)
            for (size_t j = 0; j < n; j++)
                coef[k + B * j] = out[k * n + j];
        ez_ntt_inverse(t, coef, lg + lb);
        for (size_t i = n; i < B * n; i++)
            ck_assert_uint_eq(coef[i], 0);
    }
    /* in place gives the same */
    memcpy(inpl, msg, n * sizeof *inpl);
    ez_ntt_lde_apply(p, inpl, inpl, scratch);
    ck_assert_mem_eq(inpl, out, B * n * sizeof *out);
    free(msg);
    free(out);
    free(scratch);
    free(coef);
    free(inpl);
    ez_ntt_free(t);
    ez_ntt_lde_free(p);
}

START_TEST(test_ntt_lde)
{
    ez_rng r = ez_rng_for("ntt_lde");
    for (unsigned lg = 1; lg <= 11; lg++)
        check_lde(&r, lg, 2, false);
    check_lde(&r, 5, 1, false);
    check_lde(&r, 5, 3, false);
    /* above the cache block: the multi-pass path */
    check_lde(&r, 15, 2, true);
}
END_TEST

/* ez_ntt_rs_small8 with a plan (only some points needed) gives the needed points of the
 * full encoding, for every slice size up to 2^6 and rates 1/2..1/16, with no point,
 * one, random sets and all of them needed. */
START_TEST(test_ntt_small_plan)
{
    ez_rng r = ez_rng_for("ntt_small_plan");
    for (unsigned lb = 0; lb <= 6; lb++)
        for (unsigned c = 1; c <= 4; c++) {
            size_t n = (size_t)1 << lb, M = n << c;
            ez_fe *tw = malloc(M * sizeof *tw), *x0 = rand_vec(&r, 8 * n), *x = malloc(8 * n * sizeof *x);
            ez_fe *full = malloc(8 * M * sizeof *full), *part = malloc(8 * M * sizeof *part);
            uint8_t *need = malloc(M);
            uint16_t *plan = malloc((M + 2) * sizeof *plan);
            ez_ntt_small_twiddles(tw, lb + c);
            memcpy(x, x0, 8 * n * sizeof *x);
            ez_ntt_rs_small8(full, x, lb, c, tw, NULL);
            for (int k = 0; k < 6; k++) {
                for (size_t v = 0; v < M; v++)
                    need[v] = k == 1 ? v == M - 1 : k == 5 ? 1 : k == 0 ? 0 : ez_rng_next(&r) % (2u + (unsigned)k) == 0;
                size_t len = ez_ntt_small_plan(plan, need, lb + c);
                ck_assert_uint_le(len, M + 2);
                memcpy(x, x0, 8 * n * sizeof *x);
                ez_ntt_rs_small8(part, x, lb, c, tw, plan);
                for (size_t v = 0; v < M; v++)
                    if (need[v])
                        ck_assert_mem_eq(part + 8 * v, full + 8 * v, 8 * sizeof *part);
            }
            free(tw);
            free(x0);
            free(x);
            free(full);
            free(part);
            free(need);
            free(plan);
        }
}
END_TEST

/* The lanes steps (W = 2^lw interleaved polynomials) against ez_ntt_mobius on the same
 * layout and ez_ntt_rs_coset row by row, at the default block size and at smaller
 * ones (more columns), out of place and in place. */
static void check_lanes(ez_rng *r, unsigned logn, unsigned lw, unsigned c, unsigned B)
{
    size_t n = (size_t)1 << logn, W = (size_t)1 << lw, nb = (size_t)1 << c, N = n * W;
    ez_ntt_rs *rs = NULL;
    ck_assert_int_eq(ez_ntt_rs_new(&rs, logn, c), EZ_OK);
    ez_fe *a = rand_vec(r, N), *ref = malloc(N * sizeof *ref), *coef = malloc(N * sizeof *coef);
    ez_fe *out = malloc(N * sizeof *out), *row = malloc(n * sizeof *row), *enc = malloc(n * sizeof *enc);
    memcpy(ref, a, N * sizeof *ref);
    ez_ntt_mobius(ref, lw, logn);
    for (size_t b = 0; b < (n >> B); b++)
        ez_ntt_lanes_mobius_block(coef, a, lw, B, b);
    for (size_t q = 0; q < ((size_t)1 << B); q++)
        ez_ntt_lanes_mobius_column(coef, lw, logn, B, q);
    ck_assert_mem_eq(coef, ref, N * sizeof *ref);
    for (size_t k = 0; k < nb; k++) {
        bool inplace = k == nb - 1; /* the last coset over the coefficients themselves */
        ez_fe *dst = inplace ? coef : out;
        for (size_t q = 0; q < ((size_t)1 << B); q++)
            ez_ntt_rs_lanes_column(rs, dst, coef, (unsigned)k, lw, B, q);
        for (size_t b = 0; b < (n >> B); b++)
            ez_ntt_rs_lanes_block(rs, dst, lw, B, b);
        for (size_t l = 0; l < W; l++) {
            for (size_t u = 0; u < n; u++)
                row[u] = ref[u * W + l];
            ez_ntt_rs_coset(rs, enc, row, (unsigned)k);
            for (size_t j = 0; j < n; j++)
                ck_assert_uint_eq(dst[j * W + l], enc[j]);
        }
    }
    free(a);
    free(ref);
    free(coef);
    free(out);
    free(row);
    free(enc);
    ez_ntt_rs_free(rs);
}

START_TEST(test_ntt_lanes)
{
    ez_rng r = ez_rng_for("ntt_lanes");
    const unsigned lws[] = {0, 1, 3, 5, 8}, logns[] = {0, 1, 2, 3, 6, 9, 12};
    for (size_t i = 0; i < sizeof lws / sizeof *lws; i++)
        for (size_t j = 0; j < sizeof logns / sizeof *logns; j++) {
            unsigned lw = lws[i], logn = logns[j], B = ez_ntt_lanes_block_log(logn, lw);
            if (logn + lw > 15)
                continue;
            ck_assert_uint_le(B, logn);
            check_lanes(&r, logn, lw, 1 + (unsigned)(j % 3), B);
            if (logn >= 3) /* columns of 2^(logn - B) vectors: odd and even stage counts */
                for (unsigned b = 0; b < logn; b += 3)
                    check_lanes(&r, logn, lw, 2, b);
        }
}
END_TEST

#if EZ_FE_VEC
/* Every op of lib/fe_vec.h on eight lanes equals lib/field.h's on each lane: the
 * carries, borrows and the final "- p" of the reductions at their edges (0, 1, 2^32 - 1,
 * 2^32, 2^63, p - 2^32, p - 1 and neighbours), then random values. */
START_TEST(test_fe_vec)
{
    const ez_fe *edge = ez_test_fe_edge;
    const size_t ne = ez_test_fe_nedge;
    ez_rng r = ez_rng_for("fe_vec");
    ez_fe a[8], b[8], out[8];
    for (size_t it = 0; it < 4000; it++) {
        for (size_t l = 0; l < 8; l++) { /* the first rounds: every pair of edge values */
            size_t k = it * 8 + l;
            a[l] = k < ne * ne ? edge[k / ne] : it % 3 == 0 ? edge[ez_rng_next(&r) % ne] : ez_rng_fe(&r);
            b[l] = k < ne * ne ? edge[k % ne] : it % 5 == 0 ? edge[ez_rng_next(&r) % ne] : ez_rng_fe(&r);
        }
        ez_v8 va = v_load(a), vb = v_load(b);
        v_store(out, v_add(va, vb));
        for (size_t l = 0; l < 8; l++)
            ck_assert_uint_eq(out[l], ez_fe_add(a[l], b[l]));
        v_store(out, v_sub(va, vb));
        for (size_t l = 0; l < 8; l++)
            ck_assert_uint_eq(out[l], ez_fe_sub(a[l], b[l]));
        v_store(out, v_mul(va, vb));
        for (size_t l = 0; l < 8; l++)
            ck_assert_uint_eq(out[l], ez_fe_mul(a[l], b[l]));
        v_store(out, v_mul(va, v_set1(b[3])));
        for (size_t l = 0; l < 8; l++)
            ck_assert_uint_eq(out[l], ez_fe_mul(a[l], b[3]));
        for (unsigned e = 0; e < 64; e++) { /* every shift on every input */
            ez_fe pw = ez_fe_pow(2, e);
            v_store(out, v_mul_pow2(va, e, (int)((it + e) & 1)));
            for (size_t l = 0; l < 8; l++) {
                ez_fe want = ez_fe_mul(a[l], pw);
                ck_assert_uint_eq(out[l], (it + e) & 1 ? ez_fe_neg(want) : want);
            }
            if (e >= 1 && e <= 32) {
                v_store(out, v_mul_pow2_small(va, e));
                for (size_t l = 0; l < 8; l++)
                    ck_assert_uint_eq(out[l], ez_fe_mul(a[l], pw));
            }
        }
    }
}
END_TEST
#endif

#if EZ_FE_VEC && !EZ_FE_VEC_AVX512
/* The AVX2 reduction on its own, at the edges of its three corrections: lo (any 64 bits,
 * not only canonical) below hi_hi (the borrow), lo + hi_lo EPS past 2^64 (the carry), a
 * sum in [p, 2^64) (the "- p"), against ez_fe_reduce128. */
START_TEST(test_fe_vec_reduce128)
{
    const ez_fe los[] = {0, 1, 2, UINT64_C(0xFFFFFFFE), UINT64_C(0xFFFFFFFF), UINT64_C(0x100000000),
                         UINT64_C(0x8000000000000000), EZ_P - 2, EZ_P - 1, EZ_P, EZ_P + 1,
                         UINT64_C(0xFFFFFFFFFFFFFFFE), UINT64_C(0xFFFFFFFFFFFFFFFF)};
    const ez_fe his[] = {0, 1, 2, UINT64_C(0xFFFFFFFE), UINT64_C(0xFFFFFFFF), UINT64_C(0x100000000),
                         UINT64_C(0x1FFFFFFFF), UINT64_C(0xFFFFFFFE00000001), UINT64_C(0xFFFFFFFF00000000),
                         EZ_P - 1, EZ_P, UINT64_C(0xFFFFFFFFFFFFFFFF)};
    const size_t nl = sizeof los / sizeof *los, nh = sizeof his / sizeof *his;
    ez_rng r = ez_rng_for("fe_vec_reduce128");
    for (size_t it = 0; it < nl * nh + 4000; it++) {
        ez_fe lo[4], hi[4], out[4];
        for (size_t l = 0; l < 4; l++) {
            size_t k = it * 4 + l; /* first every edge pair, then edges beside random values */
            lo[l] = k < nl * nh ? los[k / nh] : k % 3 == 0 ? los[ez_rng_next(&r) % nl] : ez_rng_next(&r);
            hi[l] = k < nl * nh ? his[k % nh] : k % 5 == 0 ? his[ez_rng_next(&r) % nh] : ez_rng_next(&r);
            /* a lo just below hi_hi: the borrow's edge */
            if (k >= nl * nh && k % 7 == 6)
                lo[l] = (hi[l] >> 32) - (ez_rng_next(&r) & 1);
        }
        __m256i v = v4_reduce128(_mm256_loadu_si256((const __m256i *)lo), _mm256_loadu_si256((const __m256i *)hi));
        _mm256_storeu_si256((__m256i *)out, v);
        for (size_t l = 0; l < 4; l++)
            ck_assert_uint_eq(out[l], ez_fe_reduce128(((unsigned __int128)hi[l] << 64) | lo[l]));
    }
}
END_TEST
#endif

START_TEST(test_ntt_invalid)
{
    ez_ntt *t = (ez_ntt *)1;
    ck_assert_int_eq(ez_ntt_new(&t, EZ_NTT_MAX_LOG + 1), EZ_ERR_INVALID);
    ck_assert_ptr_null(t);
    ez_ntt_lde *p = (ez_ntt_lde *)1;
    ck_assert_int_eq(ez_ntt_lde_new(&p, 0, 2), EZ_ERR_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(ez_ntt_lde_new(&p, 10, 0), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_ntt_lde_new(&p, 23, 2), EZ_ERR_INVALID);
    ez_ntt_free(NULL);
    ez_ntt_lde_free(NULL);
}
END_TEST

Suite *ez_suite_ntt(void)
{
    const TTest *tests[] = {test_ntt_vs_naive, test_ntt_special_values, test_ntt_large_roundtrip, test_ntt_coset,
        test_ntt_lde, test_ntt_small_plan, test_ntt_lanes, test_ntt_invalid,
#if EZ_FE_VEC
        test_fe_vec,
#endif
#if EZ_FE_VEC && !EZ_FE_VEC_AVX512
        test_fe_vec_reduce128,
#endif
    };
    return ez_test_suite("ntt", "core", 60, tests, sizeof tests / sizeof tests[0]);
}

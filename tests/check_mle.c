/* mle: eq tables, evaluation, binding, tensor folds with per-axis padding and the
 * prefix selector, each against a direct brute-force definition. */
#include <stdlib.h>

#include <string.h>

#include "lib/fe2_vec.h"
#include "lib/mle.h"
#include "tests/testutil.h"

/* eq(r, x) for x a hypercube point given by its index (variable 0 = top bit),
 * straight from the definition. */
static ez_fe2 eq_at(const ez_fe2 *r, unsigned n, uint64_t x)
{
    ez_fe2 acc = ez_fe2_one();
    for (unsigned j = 0; j < n; j++) {
        unsigned bit = (x >> (n - 1 - j)) & 1;
        acc = ez_fe2_mul(acc, bit ? r[j] : ez_fe2_sub(ez_fe2_one(), r[j]));
    }
    return acc;
}

/* sum_x eq(r, x) t[x] over x < len, one eq_at per entry: O(n 2^n), independent. */
static ez_fe2 brute_eval(const ez_fe *tb, const ez_fe2 *te, size_t len, const ez_fe2 *r, unsigned n)
{
    ez_fe2 acc = ez_fe2_zero();
    for (size_t x = 0; x < len; x++) {
        ez_fe2 v = tb ? ez_fe2_from_fe(tb[x]) : te[x];
        acc = ez_fe2_add(acc, ez_fe2_mul(eq_at(r, n, x), v));
    }
    return acc;
}

static void bit_point(ez_fe2 *pt, unsigned n, uint64_t x)
{
    for (unsigned j = 0; j < n; j++)
        pt[j] = ez_fe2_from_fe((x >> (n - 1 - j)) & 1);
}

START_TEST(test_log2_ceil)
{
    static const struct {
        uint64_t x;
        unsigned want;
    } cases[] = {{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {12, 4}, {768, 10},
                 {UINT64_C(1) << 40, 40}, {(UINT64_C(1) << 40) + 1, 41}, {UINT64_MAX, 64}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(ez_log2_ceil(cases[i].x) == cases[i].want, "log2_ceil(%llu)", (unsigned long long)cases[i].x);
}
END_TEST

START_TEST(test_eq_table)
{
    ez_rng rng = ez_rng_for("eq_table");
    for (unsigned n = 0; n <= 16; n++) {
        ez_fe2 r[16], x[16];
        for (unsigned j = 0; j < n; j++)
            r[j] = ez_rng_fe2(&rng);
        size_t N = (size_t)1 << n;
        ez_fe2 *t = ez_alloc_array(N, sizeof *t);
        ez_eq_table(t, r, n);
        ez_fe2 sum = ez_fe2_zero();
        for (size_t i = 0; i < N; i++)
            sum = ez_fe2_add(sum, t[i]);
        ck_assert(ez_fe2_eq(sum, ez_fe2_one()));
        /* The scaled table is s times it, entry by entry (s random, then 0). */
        ez_fe2 *ts = ez_alloc_array(N, sizeof *ts);
        ez_fe2 s = ez_rng_fe2(&rng);
        ez_eq_table_scaled(ts, r, n, s);
        for (size_t i = 0; i < N; i++)
            ck_assert(ez_fe2_eq(ts[i], ez_fe2_mul(s, t[i])));
        ez_eq_table_scaled(ts, r, n, ez_fe2_zero());
        for (size_t i = 0; i < N; i++)
            ck_assert(ez_fe2_is_zero(ts[i]));
        free(ts);
        /* Spot-check entries against the definition, and eq_bool, eq1 and eq_eval at bit
         * points. */
        for (int k = 0; k < 20; k++) {
            size_t i = (size_t)(ez_rng_next(&rng) & (N - 1));
            ck_assert(ez_fe2_eq(t[i], eq_at(r, n, i)));
            ck_assert(ez_fe2_eq(ez_eq_bool(r, n, i), t[i]));
            if (n > 0) {
                bit_point(x, n, i);
                ck_assert(ez_fe2_eq(ez_eq1(r[0], x[0]), eq_at(r, 1, i >> (n - 1))));
                ck_assert(ez_fe2_eq(ez_eq_eval(r, x, n), t[i]));
                ck_assert(ez_fe2_eq(ez_eq_eval(x, r, n), t[i]));
            }
        }
        free(t);
    }
    /* eq_eval at two random points is symmetric; eq(x, x) = 1 on the hypercube. */
    ez_fe2 a[9], b[9];
    for (int j = 0; j < 9; j++) {
        a[j] = ez_rng_fe2(&rng);
        b[j] = ez_rng_fe2(&rng);
    }
    ck_assert(ez_fe2_eq(ez_eq_eval(a, b, 9), ez_eq_eval(b, a, 9)));
    bit_point(a, 9, 0x155);
    ck_assert(ez_fe2_eq(ez_eq_eval(a, a, 9), ez_fe2_one()));
    bit_point(b, 9, 0x154);
    ck_assert(ez_fe2_is_zero(ez_eq_eval(a, b, 9)));
}
END_TEST

START_TEST(test_eval_hypercube_and_random)
{
    ez_rng rng = ez_rng_for("eval");
    /* n up to 17 covers the leaf recursion and the parallel split. */
    static const unsigned ns[] = {0, 1, 2, 3, 5, 9, 10, 11, 13, 17};
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        unsigned n = ns[ni];
        size_t N = (size_t)1 << n;
        ez_fe *tb = ez_alloc_array(N, sizeof *tb);
        ez_fe2 *te = ez_alloc_array(N, sizeof *te);
        for (size_t i = 0; i < N; i++) {
            tb[i] = ez_rng_fe(&rng);
            te[i] = ez_rng_fe2(&rng);
        }
        ez_fe2 r[17];
        /* lengths: full, one short, about a third (zero padding beyond len) */
        size_t lens[3] = {N, N > 1 ? N - 1 : N, N / 3 + 1};
        for (int li = 0; li < 3; li++) {
            size_t len = lens[li];
            for (int k = 0; k < 4; k++) {
                size_t i = (size_t)(ez_rng_next(&rng) & (N - 1));
                bit_point(r, n, i);
                ez_fe2 want_b = i < len ? ez_fe2_from_fe(tb[i]) : ez_fe2_zero();
                ez_fe2 want_e = i < len ? te[i] : ez_fe2_zero();
                ck_assert(ez_fe2_eq(ez_mle_eval_fe(tb, len, r, n), want_b));
                ck_assert(ez_fe2_eq(ez_mle_eval_fe2(te, len, r, n), want_e));
            }
            if (n <= 13) {
                for (unsigned j = 0; j < n; j++)
                    r[j] = ez_rng_fe2(&rng);
                ck_assert(ez_fe2_eq(ez_mle_eval_fe(tb, len, r, n), brute_eval(tb, NULL, len, r, n)));
                ck_assert(ez_fe2_eq(ez_mle_eval_fe2(te, len, r, n), brute_eval(NULL, te, len, r, n)));
            } else {
                /* Large: against the eq table (itself checked above). */
                for (unsigned j = 0; j < n; j++)
                    r[j] = ez_rng_fe2(&rng);
                ez_fe2 *eq = ez_alloc_array(N, sizeof *eq);
                ez_eq_table(eq, r, n);
                ez_fe2 sb = ez_fe2_zero(), se = ez_fe2_zero();
                for (size_t i = 0; i < len; i++) {
                    sb = ez_fe2_add(sb, ez_fe2_mul_fe(eq[i], tb[i]));
                    se = ez_fe2_add(se, ez_fe2_mul(eq[i], te[i]));
                }
                ck_assert(ez_fe2_eq(ez_mle_eval_fe(tb, len, r, n), sb));
                ck_assert(ez_fe2_eq(ez_mle_eval_fe2(te, len, r, n), se));
                free(eq);
            }
        }
        ck_assert(ez_fe2_is_zero(ez_mle_eval_fe(tb, 0, r, n)));
        free(tb);
        free(te);
    }
}
END_TEST

START_TEST(test_bind_agrees_with_eval)
{
    ez_rng rng = ez_rng_for("bind");
    static const unsigned ns[] = {1, 2, 4, 7, 15};
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        unsigned n = ns[ni];
        size_t N = (size_t)1 << n;
        ez_fe2 *t = ez_alloc_array(N, sizeof *t), *top = ez_alloc_array(N, sizeof *t),
               *bot = ez_alloc_array(N, sizeof *t);
        for (size_t i = 0; i < N; i++)
            top[i] = bot[i] = t[i] = ez_rng_fe2(&rng);
        ez_fe2 r[15];
        for (unsigned j = 0; j < n; j++)
            r[j] = ez_rng_fe2(&rng);
        ez_fe2 want = ez_mle_eval_fe2(t, N, r, n);
        /* Bind all variables top-down, and all bottom-up: both end at f(r). */
        for (unsigned j = 0; j < n; j++) {
            ez_mle_bind_top(top, N >> (j + 1), &r[j]);
            ez_mle_bind_bottom(bot, N >> (j + 1), &r[n - 1 - j]);
            /* The partially bound tables are the right restrictions. */
            ck_assert(ez_fe2_eq(ez_mle_eval_fe2(top, N >> (j + 1), r + j + 1, n - 1 - j), want));
            ck_assert(ez_fe2_eq(ez_mle_eval_fe2(bot, N >> (j + 1), r, n - 1 - j), want));
        }
        ck_assert(ez_fe2_eq(top[0], want));
        ck_assert(ez_fe2_eq(bot[0], want));
        free(t);
        free(top);
        free(bot);
    }
}
END_TEST

/* Brute-force fold: for each output (kept) index, sum over the folded axes' real
 * indices of prod eq(points[a], i_a) * in[...], with eq from the definition. */
static void brute_fold(ez_fe2 *out, const ez_fe *inb, const ez_fe2 *ine, const size_t *dims, unsigned k,
                       const ez_fe2 *const *points)
{
    size_t size = 1, osize = 1;
    for (unsigned a = 0; a < k; a++) {
        size *= dims[a];
        if (!points[a])
            osize *= dims[a];
    }
    for (size_t o = 0; o < osize; o++)
        out[o] = ez_fe2_zero();
    /* ia: the index idx as coordinates, stepped like an odometer (last axis fastest) */
    size_t ia[4] = {0};
    ck_assert_uint_le(k, 4);
    for (size_t idx = 0; idx < size; idx++) {
        size_t oi = 0;
        ez_fe2 w = ez_fe2_one();
        for (unsigned a = 0; a < k; a++) {
            if (points[a])
                w = ez_fe2_mul(w, eq_at(points[a], ez_log2_ceil(dims[a]), ia[a]));
            else
                oi = oi * dims[a] + ia[a];
        }
        ez_fe2 v = inb ? ez_fe2_from_fe(inb[idx]) : ine[idx];
        out[oi] = ez_fe2_add(out[oi], ez_fe2_mul(w, v));
        for (unsigned a = k; a-- > 0 && ++ia[a] == dims[a];)
            ia[a] = 0;
    }
}

START_TEST(test_fold_vs_brute)
{
    ez_rng rng = ez_rng_for("fold");
    static const size_t extents[] = {1, 2, 3, 4, 5, 6, 7, 8, 12};
    for (int iter = 0; iter < 120; iter++) {
        unsigned k = 1 + (unsigned)(ez_rng_next(&rng) % 4);
        size_t dims[4], size = 1;
        for (unsigned a = 0; a < k; a++) {
            dims[a] = extents[ez_rng_next(&rng) % (sizeof extents / sizeof extents[0])];
            size *= dims[a];
        }
        ez_fe2 pts[4][4];
        const ez_fe2 *points[4];
        unsigned mask = (unsigned)(ez_rng_next(&rng) % (1u << k));
        for (unsigned a = 0; a < k; a++) {
            for (int j = 0; j < 4; j++)
                pts[a][j] = ez_rng_fe2(&rng);
            points[a] = (mask >> a) & 1 ? pts[a] : NULL;
        }
        ez_fe *inb = ez_alloc_array(size, sizeof *inb);
        ez_fe2 *ine = ez_alloc_array(size, sizeof *ine);
        ez_fe2 *out = ez_alloc_array(size, sizeof *out), *want = ez_alloc_array(size, sizeof *want);
        for (size_t i = 0; i < size; i++) {
            inb[i] = ez_rng_fe(&rng);
            ine[i] = ez_rng_fe2(&rng);
        }
        size_t osize = 1;
        for (unsigned a = 0; a < k; a++)
            if (!points[a])
                osize *= dims[a];
        ck_assert_int_eq(ez_mle_fold_fe(out, inb, dims, k, points), EZ_OK);
        brute_fold(want, inb, NULL, dims, k, points);
        for (size_t i = 0; i < osize; i++)
            ck_assert(ez_fe2_eq(out[i], want[i]));
        ck_assert_int_eq(ez_mle_fold_fe2(out, ine, dims, k, points), EZ_OK);
        brute_fold(want, NULL, ine, dims, k, points);
        for (size_t i = 0; i < osize; i++)
            ck_assert(ez_fe2_eq(out[i], want[i]));

        /* Full evaluation = the padded, flattened MLE at the concatenated point. */
        ez_fe2 cat[16];
        unsigned nv = 0;
        size_t padded = 1;
        for (unsigned a = 0; a < k; a++) {
            unsigned b = ez_log2_ceil(dims[a]);
            for (unsigned j = 0; j < b; j++)
                cat[nv + j] = pts[a][j];
            nv += b;
            padded <<= b;
        }
        ez_fe *pad = ez_alloc_array(padded, sizeof *pad);
        for (size_t idx = 0; idx < size; idx++) {
            size_t rest = idx, pidx = 0, pstride = 1;
            for (unsigned a = k; a-- > 0;) {
                pidx += (rest % dims[a]) * pstride;
                rest /= dims[a];
                pstride <<= ez_log2_ceil(dims[a]);
            }
            pad[pidx] = inb[idx];
        }
        ez_fe2 full = ez_mle_eval_fe(pad, padded, cat, nv);
        ck_assert(ez_fe2_eq(ez_mle_eval_tensor_fe(inb, dims, k, cat), full));
        const ez_fe2 *allp[4] = {pts[0], pts[1], pts[2], pts[3]};
        ez_fe2 one;
        ck_assert_int_eq(ez_mle_fold_fe(&one, inb, dims, k, allp), EZ_OK);
        ck_assert(ez_fe2_eq(one, full));
        free(pad);
        free(inb);
        free(ine);
        free(out);
        free(want);
    }
    /* Bad shapes are refused. */
    size_t bad[2] = {3, 0};
    ez_fe in[3] = {1, 2, 3};
    ez_fe2 o[3];
    ck_assert_int_eq(ez_mle_fold_fe(o, in, bad, 2, NULL), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_mle_fold_fe(o, in, bad, 0, NULL), EZ_ERR_INVALID);
    /* No folded axis: a lift. */
    ck_assert_int_eq(ez_mle_fold_fe(o, in, bad, 1, NULL), EZ_OK);
    ck_assert(ez_fe2_eq(o[2], ez_fe2_from_fe(3)));
}
END_TEST

/* A large tensor exercises the parallel paths of the fold and the evaluation. */
START_TEST(test_fold_large)
{
    ez_rng rng = ez_rng_for("fold_large");
    size_t dims[3] = {12, 100, 77}, size = 12 * 100 * 77;
    ez_fe *in = ez_alloc_array(size, sizeof *in);
    for (size_t i = 0; i < size; i++)
        in[i] = ez_rng_fe(&rng);
    ez_fe2 p0[4], p2[7], cat[4 + 7 + 7];
    for (int j = 0; j < 4; j++)
        cat[j] = p0[j] = ez_rng_fe2(&rng);
    for (int j = 0; j < 7; j++)
        cat[4 + j] = ez_rng_fe2(&rng);
    for (int j = 0; j < 7; j++)
        cat[11 + j] = p2[j] = ez_rng_fe2(&rng);
    const ez_fe2 *points[3] = {p0, NULL, p2};
    ez_fe2 out[100];
    ck_assert_int_eq(ez_mle_fold_fe(out, in, dims, 3, points), EZ_OK);
    /* Folding the middle axis of the result at cat[4..10] = evaluating the tensor. */
    ez_fe2 want = ez_mle_eval_tensor_fe(in, dims, 3, cat);
    ck_assert(ez_fe2_eq(ez_mle_eval_fe2(out, 100, cat + 4, 7), want));
    /* And against the brute fold. */
    ez_fe2 bf[100];
    brute_fold(bf, in, NULL, dims, 3, points);
    for (int i = 0; i < 100; i++)
        ck_assert(ez_fe2_eq(bf[i], out[i]));
    /* The integer form (a statement's values): the same MLE as its residues mod p, the
     * extremes of int64 included (residues taken here with plain unsigned arithmetic). */
    int64_t *iv = ez_alloc_array(size, sizeof *iv);
    for (size_t i = 0; i < size; i++) {
        iv[i] = (int64_t)ez_rng_next(&rng) >> (ez_rng_next(&rng) % 64);
        if (i < 4)
            iv[i] = i % 2 ? INT64_MAX : INT64_MIN + (int64_t)i;
        const uint64_t P = UINT64_C(0xffffffff00000001);
        uint64_t mag = iv[i] < 0 ? (uint64_t)0 - (uint64_t)iv[i] : (uint64_t)iv[i];
        in[i] = iv[i] < 0 ? (mag % P ? P - mag % P : 0) : mag % P;
    }
    ck_assert(ez_fe2_eq(ez_mle_eval_tensor_i64(iv, dims, 3, cat), ez_mle_eval_tensor_fe(in, dims, 3, cat)));
    size_t one[1] = {size};
    ck_assert(ez_fe2_eq(ez_mle_eval_tensor_i64(iv, one, 1, cat), ez_mle_eval_tensor_fe(in, one, 1, cat)));
    free(iv);
    free(in);
}
END_TEST

/* ez_unpack_i64 (lib/util.h) is checked here too, through the evaluation: the packed form (a decoded statement's w-byte integers, runtime/prove/statement.h): the
 * MLE of the unpacked integers, at every width, at rows longer than the 4096-value block
 * the dot products unpack (a block boundary inside each row: 2 x 4099, 1 x 9000, the
 * narrow kernel's width 3 at its extremes -2^23 and 2^23 - 1), a row of one value and
 * a single value. */
START_TEST(test_eval_packed)
{
    ez_rng rng = ez_rng_for("eval_packed");
    const size_t shapes[][3] = {{2, 4099, 0}, {1, 9000, 0}, {3, 5, 7}, {5, 1, 0}, {1, 0, 0}};
    const unsigned ranks[] = {2, 2, 3, 2, 1};
    int64_t *iv = ez_alloc_array(9000, sizeof *iv);
    uint8_t *pk = ez_alloc_array(9000 * 8, 1);
    for (size_t sh = 0; sh < sizeof ranks / sizeof ranks[0]; sh++) {
        size_t dims[3], size = 1;
        unsigned nv = 0;
        for (unsigned a = 0; a < ranks[sh]; a++) {
            dims[a] = shapes[sh][a] ? shapes[sh][a] : 1;
            size *= dims[a];
            nv += ez_log2_ceil(dims[a]);
        }
        ez_fe2 pt[64];
        for (unsigned j = 0; j < nv; j++)
            pt[j] = ez_rng_fe2(&rng);
        for (unsigned w = 1; w <= 8; w++) {
            const int64_t lim = w == 8 ? INT64_MAX : (INT64_C(1) << (8 * w - 1)) - 1;
            for (size_t i = 0; i < size; i++) {
                uint64_t r = ez_rng_next(&rng);
                iv[i] = i % 7 == 0 ? lim : i % 7 == 1 ? -lim - 1 : (int64_t)(r % 3) - 1;
                if (i % 7 > 2)
                    iv[i] = w == 8 ? (int64_t)r : (int64_t)(r % (2 * (uint64_t)lim + 2)) - lim - 1;
            }
            for (size_t i = 0; i < size; i++) /* little-endian two's complement, by hand */
                for (unsigned b = 0; b < w; b++)
                    pk[i * w + b] = (uint8_t)((uint64_t)iv[i] >> (8 * b));
            ez_fe2 want = ez_mle_eval_tensor_i64(iv, dims, ranks[sh], pt);
            ck_assert_msg(ez_fe2_eq(ez_mle_eval_tensor_packed(pk, w, dims, ranks[sh], pt), want),
                          "shape %zu, width %u", sh, w);
        }
    }
    free(iv);
    free(pk);
}
END_TEST

START_TEST(test_prefix)
{
    ez_rng rng = ez_rng_for("prefix");
    for (unsigned n = 0; n <= 6; n++) {
        ez_fe2 r[6];
        for (unsigned j = 0; j < n; j++)
            r[j] = ez_rng_fe2(&rng);
        for (uint64_t len = 0; len <= (UINT64_C(1) << n); len++) {
            ez_fe2 want = ez_fe2_zero();
            for (uint64_t x = 0; x < len; x++)
                want = ez_fe2_add(want, eq_at(r, n, x));
            ck_assert(ez_fe2_eq(ez_mle_prefix(r, n, len), want));
        }
    }
    /* Large n, spot check: len = 2^(n-1) selects x_0 = 0, i.e. 1 - r_0. */
    ez_fe2 r[40];
    for (int j = 0; j < 40; j++)
        r[j] = ez_rng_fe2(&rng);
    ck_assert(ez_fe2_eq(ez_mle_prefix(r, 40, UINT64_C(1) << 39), ez_fe2_sub(ez_fe2_one(), r[0])));
    ck_assert(ez_fe2_eq(ez_mle_prefix(r, 40, UINT64_C(1) << 40), ez_fe2_one()));
}
END_TEST

/* ez_mle_prefix_dot against the brute-force sum of eq(r, x) eq(p, x) over x < len, also
 * for a len past the cube (the whole cube's sum). */
START_TEST(test_prefix_dot)
{
    ez_rng rng = ez_rng_for("prefix_dot");
    ez_fe2 rp[2][6];
    for (unsigned j = 0; j < 6; j++)
        rp[0][j] = ez_rng_fe2(&rng), rp[1][j] = ez_rng_fe2(&rng);
    for (unsigned n = 0; n <= 6; n++)
        for (uint64_t len = 0, cube = UINT64_C(1) << n; len <= cube + 1; len++) {
            ez_fe2 want = ez_fe2_zero();
            for (uint64_t x = 0; x < len && x < cube; x++)
                want = ez_fe2_add(want, ez_fe2_mul(eq_at(rp[0], n, x), eq_at(rp[1], n, x)));
            ck_assert(ez_fe2_eq(ez_mle_prefix_dot(rp[0], rp[1], n, len), want));
        }
}
END_TEST

/* The eq table's doubling step on lanes (lib/fe2_vec.c) against its scalar loop and
 * lib/field.h, on edge values and at lengths around the eight-lane step. */
START_TEST(test_fe2_vec_eq_split)
{
    ez_rng r = ez_rng_for("fe2_vec_eq_split");
    for (size_t li = 0; li < ez_test_vec_nlen; li++) {
        const size_t n = ez_test_vec_len[li];
        for (int it = 0; it < 40; it++) {
            ez_fe2 x[EZ_TEST_VEC_MAXLEN], v[EZ_TEST_VEC_MAXLEN], vh[EZ_TEST_VEC_MAXLEN], ref[EZ_TEST_VEC_MAXLEN], rh[EZ_TEST_VEC_MAXLEN];
            ez_fe2 c = it == 0 ? ez_fe2_make(EZ_P - 1, EZ_P - 1) : ez_rng_fe2_edgy(&r);
            for (size_t i = 0; i < n; i++)
                x[i] = ez_rng_fe2_edgy(&r);
            memcpy(v, x, n * sizeof *x);
            memcpy(ref, x, n * sizeof *x);
            ez_fe2_eq_split(v, vh, n, c);
            ez_fe2_eq_split_ref(ref, rh, n, c);
            for (size_t i = 0; i < n; i++) {
                ez_fe2 h = ez_fe2_mul(x[i], c), l = ez_fe2_sub(x[i], h);
                ck_assert_msg(ez_fe2_eq(vh[i], h) && ez_fe2_eq(rh[i], h) && ez_fe2_eq(v[i], l) && ez_fe2_eq(ref[i], l),
                              "eq_split n=%zu i=%zu", n, i);
            }
        }
    }
}
END_TEST

Suite *ez_suite_mle(void)
{
    const TTest *tests[] = {test_log2_ceil, test_eq_table, test_eval_hypercube_and_random, test_bind_agrees_with_eval,
        test_fold_vs_brute, test_fold_large, test_eval_packed, test_prefix, test_prefix_dot, test_fe2_vec_eq_split};
    return ez_test_suite("mle", "mle", 60, tests, sizeof tests / sizeof tests[0]);
}

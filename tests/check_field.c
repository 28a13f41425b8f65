/* field: differential tests against GMP mpz (an independent implementation), edge
 * values, extension-field identities, encodings. */
#include <gmp.h>
#include <stdlib.h>

#include "lib/field.h"
#include "tests/testutil.h"

static const uint64_t edge[] = {
    0, 1, 2, 7, EZ_P - 1, EZ_P - 2, UINT64_C(1) << 32, (UINT64_C(1) << 32) - 1, (UINT64_C(1) << 32) + 1,
    UINT64_C(1) << 63, EZ_P / 2, EZ_P / 2 + 1, UINT64_C(0xFFFFFFFF) * UINT64_C(0xFFFF),
};
#define NEDGE (sizeof edge / sizeof edge[0])

static mpz_t P;

static void mpz_setu(mpz_t z, uint64_t v)
{
    mpz_set_ui(z, (unsigned long)v); /* unsigned long is 64-bit on this platform */
}

static uint64_t mpz_getu(const mpz_t z)
{
    return (uint64_t)mpz_get_ui(z);
}

/* op: 0 add, 1 sub, 2 mul */
static uint64_t ref(int op, uint64_t a, uint64_t b)
{
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    mpz_setu(x, a);
    mpz_setu(y, b);
    if (op == 0)
        mpz_add(x, x, y);
    else if (op == 1)
        mpz_sub(x, x, y);
    else
        mpz_mul(x, x, y);
    mpz_mod(x, x, P);
    uint64_t r = mpz_getu(x);
    mpz_clears(x, y, NULL);
    return r;
}

static void check_pair(uint64_t a, uint64_t b)
{
    ck_assert_uint_eq(ez_fe_add(a, b), ref(0, a, b));
    ck_assert_uint_eq(ez_fe_sub(a, b), ref(1, a, b));
    ck_assert_uint_eq(ez_fe_mul(a, b), ref(2, a, b));
}

START_TEST(test_base_vs_mpz)
{
    mpz_init_set_str(P, "18446744069414584321", 10);
    for (size_t i = 0; i < NEDGE; i++)
        for (size_t j = 0; j < NEDGE; j++)
            check_pair(edge[i], edge[j]);
    ez_rng r = ez_rng_for("base_vs_mpz");
    for (int i = 0; i < 200000; i++)
        check_pair(ez_rng_fe(&r), ez_rng_fe(&r));
    mpz_clear(P);
}
END_TEST

START_TEST(test_reduce128_vs_mpz)
{
    mpz_init_set_str(P, "18446744069414584321", 10);
    ez_rng r = ez_rng_for("reduce128");
    mpz_t x, lo;
    mpz_inits(x, lo, NULL);
    for (int i = 0; i < 100000; i++) {
        uint64_t hi = ez_rng_next(&r), l = ez_rng_next(&r);
        if (i < 4) /* the extremes */
            hi = i & 1 ? UINT64_MAX : 0, l = i & 2 ? UINT64_MAX : 0;
        unsigned __int128 v = ((unsigned __int128)hi << 64) | l;
        mpz_setu(x, hi);
        mpz_mul_2exp(x, x, 64);
        mpz_setu(lo, l);
        mpz_add(x, x, lo);
        mpz_mod(x, x, P);
        ck_assert_uint_eq(ez_fe_reduce128(v), mpz_getu(x));
    }
    mpz_clears(x, lo, P, NULL);
}
END_TEST

START_TEST(test_inverse_pow)
{
    mpz_init_set_str(P, "18446744069414584321", 10);
    ck_assert_uint_eq(ez_fe_inv(0), 0); /* specified: inverse of zero is zero */
    ez_rng r = ez_rng_for("inverse");
    mpz_t x, e;
    mpz_inits(x, e, NULL);
    for (int i = 0; i < 2000; i++) {
        ez_fe a = i < (int)NEDGE ? edge[i] : ez_rng_fe(&r);
        uint64_t ex = ez_rng_next(&r);
        mpz_setu(x, a);
        mpz_setu(e, ex);
        mpz_powm(x, x, e, P);
        ck_assert_uint_eq(ez_fe_pow(a, ex), mpz_getu(x));
        if (a != 0) {
            mpz_setu(x, a);
            ck_assert(mpz_invert(x, x, P));
            ck_assert_uint_eq(ez_fe_inv(a), mpz_getu(x));
        }
    }
    mpz_clears(x, e, P, NULL);
}
END_TEST

START_TEST(test_batch_inv)
{
    ez_rng r = ez_rng_for("batch_inv");
    enum { N = 257 };
    ez_fe a[N], out[N];
    ez_fe2 b[N], out2[N];
    for (int i = 0; i < N; i++) {
        a[i] = i % 17 == 3 ? 0 : ez_rng_fe(&r);
        b[i] = i % 19 == 5 ? ez_fe2_zero() : ez_rng_fe2(&r);
    }
    ck_assert(ez_fe_batch_inv(out, a, N, NULL));
    ck_assert(ez_fe2_batch_inv(out2, b, N, NULL));
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq(out[i], ez_fe_inv(a[i]));
        ck_assert(ez_fe2_eq(out2[i], ez_fe2_inv(b[i])));
    }
    /* in place */
    ck_assert(ez_fe_batch_inv(a, a, N, NULL));
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(a[i], out[i]);
}
END_TEST

START_TEST(test_roots_of_unity)
{
    for (unsigned k = 0; k <= 32; k++) {
        ez_fe w = ez_fe_root_of_unity(k);
        ck_assert_uint_eq(ez_fe_pow(w, UINT64_C(1) << k), 1);
        if (k > 0)
            ck_assert_uint_eq(ez_fe_pow(w, UINT64_C(1) << (k - 1)), EZ_P - 1);
    }
}
END_TEST

/* The extension against a direct mpz evaluation of (a0 + a1 X)(b0 + b1 X) mod X^2 - 7. */
START_TEST(test_ext_vs_mpz)
{
    mpz_init_set_str(P, "18446744069414584321", 10);
    ez_rng r = ez_rng_for("ext_vs_mpz");
    mpz_t t, u, c0, c1;
    mpz_inits(t, u, c0, c1, NULL);
    for (int i = 0; i < 50000; i++) {
        ez_fe2 a = ez_rng_fe2(&r), b = ez_rng_fe2(&r);
        if (i < (int)(NEDGE * NEDGE)) {
            a = ez_fe2_make(edge[i % NEDGE], edge[(i / NEDGE) % NEDGE]);
            b = ez_fe2_make(edge[(i / NEDGE) % NEDGE], edge[i % NEDGE]);
        }
        ez_fe2 m = ez_fe2_mul(a, b);
        mpz_setu(t, a.c0); mpz_setu(u, b.c0); mpz_mul(c0, t, u);
        mpz_setu(t, a.c1); mpz_setu(u, b.c1); mpz_mul(t, t, u); mpz_mul_ui(t, t, 7); mpz_add(c0, c0, t);
        mpz_mod(c0, c0, P);
        mpz_setu(t, a.c0); mpz_setu(u, b.c1); mpz_mul(c1, t, u);
        mpz_setu(t, a.c1); mpz_setu(u, b.c0); mpz_mul(t, t, u); mpz_add(c1, c1, t);
        mpz_mod(c1, c1, P);
        ck_assert_uint_eq(m.c0, mpz_getu(c0));
        ck_assert_uint_eq(m.c1, mpz_getu(c1));
    }
    mpz_clears(t, u, c0, c1, P, NULL);
}
END_TEST

START_TEST(test_ext_identities)
{
    ez_rng r = ez_rng_for("ext_identities");
    /* 7 is a non-residue: 7^((p-1)/2) = -1, so X^2 - 7 is irreducible. */
    ck_assert_uint_eq(ez_fe_pow(7, (EZ_P - 1) / 2), EZ_P - 1);
    ez_fe2 X = ez_fe2_make(0, 1);
    ck_assert(ez_fe2_eq(ez_fe2_sqr(X), ez_fe2_from_fe(7)));
    ck_assert(ez_fe2_is_zero(ez_fe2_inv(ez_fe2_zero())));
    for (int i = 0; i < 5000; i++) {
        ez_fe2 a = ez_rng_fe2(&r), b = ez_rng_fe2(&r), c = ez_rng_fe2(&r);
        ez_fe s = ez_rng_fe(&r);
        ck_assert(ez_fe2_eq(ez_fe2_mul(a, b), ez_fe2_mul(b, a)));
        ck_assert(ez_fe2_eq(ez_fe2_mul(ez_fe2_mul(a, b), c), ez_fe2_mul(a, ez_fe2_mul(b, c))));
        ck_assert(ez_fe2_eq(ez_fe2_mul(a, ez_fe2_add(b, c)), ez_fe2_add(ez_fe2_mul(a, b), ez_fe2_mul(a, c))));
        ck_assert(ez_fe2_eq(ez_fe2_sub(ez_fe2_add(a, b), b), a));
        ck_assert(ez_fe2_eq(ez_fe2_mul_fe(a, s), ez_fe2_mul(a, ez_fe2_from_fe(s))));
        if (!ez_fe2_is_zero(a))
            ck_assert(ez_fe2_eq(ez_fe2_mul(a, ez_fe2_inv(a)), ez_fe2_one()));
        /* Frobenius: a^p = conj(a) (X^p = X * 7^((p-1)/2) = -X). */
        ez_fe2 fa = ez_fe2_pow(a, EZ_P);
        ck_assert(ez_fe2_eq(fa, ez_fe2_make(a.c0, ez_fe_neg(a.c1))));
    }
}
END_TEST

START_TEST(test_encoding)
{
    uint8_t buf[16];
    ez_fe v;
    ez_fe2 w;
    for (size_t i = 0; i < NEDGE; i++) {
        ez_fe_encode(buf, edge[i]);
        ck_assert(ez_fe_decode(&v, buf));
        ck_assert_uint_eq(v, edge[i]);
    }
    /* non-canonical encodings are rejected */
    const uint64_t bad[] = {EZ_P, EZ_P + 1, UINT64_MAX};
    for (size_t i = 0; i < 3; i++) {
        for (int k = 0; k < 8; k++)
            buf[k] = (uint8_t)(bad[i] >> (8 * k));
        ck_assert(!ez_fe_decode(&v, buf));
    }
    ez_fe2_encode(buf, ez_fe2_make(5, EZ_P - 1));
    ck_assert(ez_fe2_decode(&w, buf));
    ck_assert(ez_fe2_eq(w, ez_fe2_make(5, EZ_P - 1)));
    for (int k = 8; k < 16; k++)
        buf[k] = 0xFF;
    ck_assert(!ez_fe2_decode(&w, buf));
}
END_TEST

/* The proof readers of base and extension arrays (the PCS openings' columns, WHIR's
 * leaves and messages): canonical elements read back; a short read or one entry at p
 * or above fails the read and marks the reader failed. */
START_TEST(test_reader_arrays)
{
    const uint64_t v[4] = {1, EZ_P - 1, 7, EZ_P};
    ez_fe out[4];
    ez_fe2 out2[2];
    ez_reader rd;
    ez_reader_init(&rd, v, 24);
    ck_assert(ez_reader_fe(&rd, out, 3) && !rd.failed && ez_reader_done(&rd));
    ck_assert(out[0] == 1 && out[1] == EZ_P - 1 && out[2] == 7);
    ez_reader_init(&rd, v, 32);
    ck_assert(!ez_reader_fe(&rd, out, 4) && rd.failed);
    ez_reader_init(&rd, v, 24);
    ck_assert(!ez_reader_fe(&rd, out, 4) && rd.failed);
    ez_reader_init(&rd, v, 32);
    ck_assert(ez_reader_fe(&rd, out, 0) && !rd.failed);
    ck_assert(!ez_reader_fe(&rd, out, SIZE_MAX / 4) && rd.failed);
    ez_reader_init(&rd, v, 16);
    ck_assert(ez_reader_fe2(&rd, out2, 1) && ez_fe2_eq(out2[0], ez_fe2_make(1, EZ_P - 1)));
    ez_reader_init(&rd, v, 32);
    ck_assert(!ez_reader_fe2(&rd, out2, 2) && rd.failed);
}
END_TEST

START_TEST(test_signed)
{
    ck_assert_uint_eq(ez_fe_from_i64(-1), EZ_P - 1);
    ck_assert_int_eq(ez_fe_to_i64(ez_fe_from_i64(-123456789)), -123456789);
    ck_assert_int_eq(ez_fe_to_i64(ez_fe_from_i64(INT64_C(1) << 62)), INT64_C(1) << 62);
    ck_assert_int_eq(ez_fe_to_i64(ez_fe_from_i64(-(INT64_C(1) << 62))), -(INT64_C(1) << 62));
    ck_assert_uint_eq(ez_fe_from_i64(INT64_MIN), ez_fe_neg(ez_fe_from_u64(UINT64_C(1) << 63)));
}
END_TEST

/* ez_fe2_dot_i24 against the plain sum of extension-times-base products: lengths around
 * its 512-value lane flush (0 .. 1025, 3001), random values and the worst case for the
 * lanes (every e coordinate p - 1, every x at 2^23 - 1 or -2^23, a whole flush of them). */
START_TEST(test_dot_i24)
{
    ez_rng r = ez_rng_for("dot_i24");
    const size_t lens[] = {0, 1, 2, 3, 511, 512, 513, 1024, 1025, 3001};
    ez_fe2 *e = ez_alloc_array(3001, sizeof *e);
    int64_t *x = ez_alloc_array(3001, sizeof *x);
    const int64_t lo = -(INT64_C(1) << 23), hi = (INT64_C(1) << 23) - 1;
    for (int pass = 0; pass < 3; pass++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            size_t n = lens[k];
            ez_fe2 want = ez_fe2_zero();
            for (size_t i = 0; i < n; i++) {
                e[i] = pass == 0 ? ez_rng_fe2(&r) : ez_fe2_make(EZ_P - 1, EZ_P - 1);
                x[i] = pass == 0 ? (int64_t)(ez_rng_next(&r) % (UINT64_C(1) << 24)) + lo : pass == 1 ? hi : lo;
                if (pass == 0 && i % 5 == 0)
                    x[i] = i % 2 ? hi : lo;
                want = ez_fe2_add(want, ez_fe2_mul_fe(e[i], ez_fe_from_i64(x[i])));
            }
            ck_assert_msg(ez_fe2_eq(ez_fe2_dot_i24(e, x, n), want), "pass %d, n = %zu", pass, n);
            ck_assert(ez_fe2_eq(ez_fe2_dot_i24(e, x, n), ez_fe2_dot_i64(e, x, n)));
        }
    free(e);
    free(x);
}
END_TEST

Suite *ez_suite_field(void)
{
    const TTest *tests[] = {test_base_vs_mpz, test_reduce128_vs_mpz, test_inverse_pow, test_batch_inv,
        test_roots_of_unity, test_ext_vs_mpz, test_ext_identities, test_encoding, test_reader_arrays, test_signed,
        test_dot_i24};
    return ez_test_suite("field", "goldilocks", 60, tests, sizeof tests / sizeof tests[0]);
}

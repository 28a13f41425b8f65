/* bounds: exact worst-case bounds (compiler/bounds.c) against values computed by hand
 * with mpz, the rescale rule min(2^(bits-1), ceil(B / 2^shift)), function bounds, and
 * the overflow diagnostic. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/bounds.h"
#include "compiler/sema.h"
#include "tests/testutil.h"

static ez_program *compile(const char *src, ez_diag_list *d, ez_status *st)
{
    ez_program *p = NULL;
    *st = ez_compile_front("b.ein", src, strlen(src), NULL, 0, d, &p);
    return p;
}

static ez_program *compile_ok(const char *src, ez_diag_list *d)
{
    ez_status st;
    ez_program *p = compile(src, d, &st);
    if (st != EZ_OK) {
        char *txt = NULL;
        ez_diag_render(d, &txt);
        ck_abort_msg("compile failed:\n%s", txt ? txt : "");
    }
    return p;
}

/* Assert mpz value == expected given as a decimal string. */
static void expect_mpz(const mpz_t v, const char *want)
{
    mpz_t w;
    mpz_init_set_str(w, want, 10);
    if (mpz_cmp(v, w) != 0) {
        char *got = mpz_get_str(NULL, 10, v);
        ck_abort_msg("bound %s, expected %s", got, want);
    }
    mpz_clear(w);
}

static void expect_pow2(const mpz_t v, unsigned e)
{
    mpz_t w;
    mpz_init(w);
    mpz_setbit(w, e);
    ck_assert_msg(mpz_cmp(v, w) == 0, "bound is not 2^%u", e);
    mpz_clear(w);
}

START_TEST(test_contraction)
{
    ez_diag_list d;
    ez_program *p = compile_ok("param S = 4, D = 256\ninput x[S, D]\nweight w[D, D]\n"
                               "y[s, n] = x[s, d] * w[d, n]\noutput y\n", &d);
    const ez_node *r = p->stmts[0].root;
    /* 2^23 * 2^23 * 256 = 2^54 before the rescale by 12 bits */
    expect_pow2(r->raw_bound, 54);
    /* ceil(2^54 / 2^12) = 2^42 exceeds the 24-bit width: the range check caps it */
    expect_pow2(r->bound, 23);
    ck_assert(r->range_checked);
    expect_pow2(p->tensors[p->stmts[0].def].bound, 23);
    expect_pow2(p->tensors[0].bound, 23);
    ez_program_free(p);
    ez_diag_list_clear(&d);
}
END_TEST

START_TEST(test_rescale_rounds_up)
{
    /* |x| <= 2, |w| <= 2, 3 terms: |acc| <= 12; shift 1 + 2 - 0 = 3; floor division of
     * -12 by 8 is -2, so the bound is ceil(12 / 8) = 2 (not 1) */
    ez_diag_list d;
    ez_program *p = compile_ok("param K = 3\ninput x[K] @scale(1) @bits(2)\nweight w[K] @scale(2) @bits(2)\n"
                               "y[] @scale(0) = x[k] * w[k]\noutput y\n", &d);
    const ez_node *r = p->stmts[0].root;
    expect_mpz(r->raw_bound, "12");
    ck_assert_uint_eq(r->shift, 3);
    expect_mpz(r->bound, "2");
    ez_program_free(p);
    ez_diag_list_clear(&d);
}
END_TEST

START_TEST(test_sums_and_multipliers)
{
    ez_diag_list d;
    ez_program *p = compile_ok("param S = 5, D = 7\ninput x[S, D] @bits(10), y[S, D] @bits(12) @scale(10)\n"
                               "a[s, d] = x[s, d] + y[s, d]\n"         /* 2^9 + 4 * 2^11 */
                               "b[s] = x[s, d] * 3\n"                  /* 3 * 7 * 2^9, no rescale */
                               "c[s, d] = x[s, d] - x[s, d] - y[s, d]\n"
                               "output a, b, c\n",
                               &d);
    expect_mpz(p->stmts[0].root->bound, "8704");
    ck_assert(!p->stmts[0].root->range_checked);
    expect_mpz(p->stmts[1].root->bound, "10752");
    expect_mpz(p->stmts[2].root->bound, "9216");
    ez_program_free(p);
    ez_diag_list_clear(&d);
}
END_TEST

START_TEST(test_functions)
{
    ez_diag_list d;
    ez_program *p = compile_ok("param S = 10, T = 96\ninput a[S, T] @bits(16)\n"
                               "p[s, t] = softmax[t](a[s, t])\n"
                               "m[s] = argmax[t](a[s, t])\n"
                               "n[s, t] = layernorm[t](a[s, t])\n"
                               "r[s, t] = relu(a[s, t])\n"
                               "g[s, t] @scale(8) = gelu(a[s, t])\n"
                               "e[s, t] = exp(a[s, t])\n"
                               "h[s, t] = tanh(a[s, t])\n"
                               "output p, m, n, r, g, e, h\n",
                               &d);
    expect_pow2(p->stmts[0].root->bound, 12);           /* probabilities in [0, 2^12] */
    /* inside: e * 2^12 with e <= 2^16 (2^28) dominates the row sum 96 * 2^16 */
    expect_pow2(p->stmts[0].root->raw_bound, 28);
    /* layernorm's sum of squares: 96 * (2^30 + 1) */
    mpz_t w;
    mpz_init_set_ui(w, 0);
    mpz_setbit(w, 30);
    mpz_add_ui(w, w, 1);
    mpz_mul_ui(w, w, 96);
    ck_assert(mpz_cmp(p->stmts[2].root->raw_bound, w) == 0);
    expect_mpz(p->stmts[1].root->bound, "95");           /* a position in [0, 96) */
    /* floor(sqrt(96) * 2^12) + 2 = 40132 + 2 */
    expect_mpz(p->stmts[2].root->bound, "40134");
    expect_pow2(p->stmts[3].root->bound, 15);           /* relu keeps the operand's bound */
    expect_mpz(p->stmts[4].root->bound, "2049");         /* 2^15 moved from scale 12 to 8, +1 */
    expect_pow2(p->stmts[5].root->bound, 23);           /* exp(8) * 2^12 > 2^23: the width caps it */
    expect_pow2(p->stmts[6].root->bound, 12);
    mpz_clear(w);
    ez_program_free(p);
    ez_diag_list_clear(&d);
}
END_TEST

START_TEST(test_overflow_error)
{
    ez_diag_list d;
    ez_status st;
    ez_program *p = compile("param S = 8, D = 4096\ninput x[S, D] @bits(32)\nweight w[D, D] @bits(32)\n"
                            "y[s, n] = x[s, d] * w[d, n]\noutput y\n",
                            &d, &st);
    ck_assert_int_eq(st, EZ_ERR_SOURCE);
    ck_assert_ptr_null(p);
    ck_assert_uint_eq(d.nerrors, 1);
    /* 2^31 * 2^31 * 2^12 = 2^74 */
    ck_assert_str_eq(d.items[0].msg, "values in the definition of 'y' can reach 2^74 before the rescale, beyond "
                                     "the field's safe range 2^62");
    ck_assert_ptr_nonnull(strstr(d.items[0].help, "remove at least 13 bits"));
    ez_diag_list_clear(&d);
    /* just below the limit is fine: 2^30 * 2^30 * 2^1 = 2^61 */
    p = compile("param D = 2\ninput x[D] @bits(31)\nweight w[D] @bits(31)\ny[] = x[d] * w[d]\noutput y\n", &d,
                &st);
    ck_assert_int_eq(st, EZ_OK);
    expect_pow2(p->stmts[0].root->raw_bound, 61);
    ez_program_free(p);
    ez_diag_list_clear(&d);
    /* exactly 2^62 is out */
    p = compile("param D = 4\ninput x[D] @bits(31)\nweight w[D] @bits(31)\ny[] = x[d] * w[d]\noutput y\n", &d,
                &st);
    ck_assert_int_eq(st, EZ_ERR_SOURCE);
    ez_diag_list_clear(&d);
}
END_TEST

/* Random contractions x[i, k] * w[k, j] with random widths, scales and sizes; the raw
 * bound equals the product computed here with mpz, and the stored bound follows the
 * rescale rule. */
START_TEST(test_random_contractions)
{
    ez_rng r = ez_rng_for("bounds_random");
    for (int iter = 0; iter < 200; iter++) {
        unsigned bx = 2 + (unsigned)(ez_rng_next(&r) % 16), bw = 2 + (unsigned)(ez_rng_next(&r) % 16);
        unsigned sx = (unsigned)(ez_rng_next(&r) % 13), sw = (unsigned)(ez_rng_next(&r) % 13);
        unsigned so = (unsigned)(ez_rng_next(&r) % 13), bo = 2 + (unsigned)(ez_rng_next(&r) % 30);
        unsigned K = 1 + (unsigned)(ez_rng_next(&r) % 1000);
        char src[512];
        snprintf(src, sizeof src,
                 "param I = 3, K = %u, J = 2\ninput x[I, K] @scale(%u) @bits(%u)\nweight w[K, J] @scale(%u) @bits(%u)\n"
                 "y[i, j] @scale(%u) @bits(%u) = x[i, k] * w[k, j]\noutput y\n",
                 K, sx, bx, sw, bw, so, bo);
        ez_diag_list d;
        ez_status st;
        ez_program *p = compile(src, &d, &st);
        ck_assert_int_eq(st, EZ_OK);
        mpz_t raw, b, cap;
        mpz_inits(raw, b, cap, NULL);
        mpz_setbit(raw, bx - 1);
        mpz_mul_2exp(raw, raw, bw - 1);
        mpz_mul_ui(raw, raw, K);
        const ez_node *n = p->stmts[0].root;
        long shift = (long)sx + (long)sw - (long)so;
        if (shift > 0) {
            ck_assert_uint_eq(n->shift, (unsigned)shift);
            ck_assert_int_eq(n->mul, 1);
            mpz_cdiv_q_2exp(b, raw, (unsigned long)shift);
            mpz_setbit(cap, bo - 1);
            if (mpz_cmp(b, cap) > 0)
                mpz_set(b, cap);
        } else {
            /* a product below the target scale is multiplied up exactly */
            ck_assert_uint_eq(n->shift, 0);
            ck_assert_int_eq(n->mul, (int64_t)1 << -shift);
            mpz_mul_2exp(raw, raw, (unsigned long)-shift);
            mpz_set(b, raw);
        }
        ck_assert(mpz_cmp(n->raw_bound, raw) == 0);
        ck_assert(mpz_cmp(n->bound, b) == 0);
        mpz_clears(raw, b, cap, NULL);
        ez_program_free(p);
        ez_diag_list_clear(&d);
    }
}
END_TEST

START_TEST(test_log2)
{
    mpz_t v;
    mpz_init_set_ui(v, 1);
    ck_assert(ez_bound_log2(v) == 0);
    mpz_set_ui(v, 1024);
    ck_assert(ez_bound_log2(v) == 10);
    mpz_set_ui(v, 3);
    ck_assert(ez_bound_log2(v) > 1.58 && ez_bound_log2(v) < 1.59);
    mpz_set_ui(v, 0);
    mpz_setbit(v, 100);
    ck_assert(ez_bound_log2(v) == 100);
    mpz_clear(v);
}
END_TEST

Suite *ez_suite_bounds(void)
{
    const TTest *tests[] = {test_contraction, test_rescale_rounds_up, test_sums_and_multipliers, test_functions,
        test_overflow_error, test_random_contractions, test_log2};
    return ez_test_suite("bounds", "core", 0, tests, sizeof tests / sizeof tests[0]);
}

/* Suite "margins": field margins of the protocol's integer relations and the re-derived
 * plan (runtime/prove/margins.h, compiler/recheck.h), at the boundary widths.
 *
 * The forgery an audit found: a rescale acc = 2^k q + r checked in F_p with q of w bits
 * and r of k bits has (q + delta, r + 1), delta = (p - 1) / 2^k, as a second solution
 * once k + w >= 65 — both still in range, so a different output verifies. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/einc.h"
#include "compiler/recheck.h"
#include "compiler/schedule.h"
#include "lib/field.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* y = x * w with 16-bit operands at scale k (a rescale by 2^k) and a w-bit result. */
static void wide_src(char *buf, size_t cap, unsigned k, unsigned w)
{
    snprintf(buf, cap,
             "model wide\nparam S = 8, D = 32, N = 16\nbits %u\nscale %u\n"
             "input x[S, D] @bits(16)\nweight wt[D, N] @bits(16)\ny[s, n] = x[s, d] * wt[d, n]\noutput y\n",
             w, k);
}

static ez_status soundness_of(unsigned k, unsigned w, unsigned *widest)
{
    char src[512];
    ez_pfx f;
    ez_diag d = {{0}};
    size_t bad = 0;
    wide_src(src, sizeof src, k, w);
    ez_pfx_compile(&f, src);
    ez_status st = ez_plan_soundness(&f.plan, &bad, &d);
    if (widest)
        *widest = st == EZ_ERR_NUMERIC && bad < f.plan.nops ? ez_margins_widest_width(&f.plan, bad) : 0;
    ez_plan_clear(&f.plan);
    return st;
}

/* The accumulator is at most 2^15 * 2^15 * 32 = 2^35, so acc - 2^k q - r stays inside
 * (-p, p) exactly when 2^35 + 2^(k + w - 1) < p = 2^64 - 2^32 + 1, i.e. k + w <= 64: the
 * widest sound width is 64 - k, and the forgery needs k + w >= 65. */
START_TEST(test_rescale_boundary_widths)
{
    const unsigned ks[] = {8, 12, 16, 24, 31};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        unsigned k = ks[i], wmax = 64 - k, widest = 0;
        ck_assert_msg(soundness_of(k, wmax, NULL) == EZ_OK, "k=%u w=%u refused", k, wmax);
        ck_assert_msg(soundness_of(k, wmax + 1, &widest) == EZ_ERR_NUMERIC, "k=%u w=%u accepted", k, wmax + 1);
        ck_assert_uint_eq(widest, wmax);
    }
}
END_TEST

/* The plan at `bits` from the widest sound source: the output made wider by hand (the
 * vk a malicious party would hand out), bounds re-derived so only the margin is wrong. */
static void widen(ez_pfx *f, unsigned bits)
{
    ez_diag d = {{0}};
    ez_plan_tensor *y = &f->plan.tensors[f->plan.ops[0].out];
    y->bits = bits;
    ck_assert_msg(ez_plan_rederive(&f->plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_int_eq(ez_plan_compute_digest(&f->plan, &d), EZ_OK);
}

/* (q + delta, r + 1) on one output element of the trace: the same congruence. */
static void forge(ez_pfx *f, unsigned k)
{
    int64_t *y = f->tr.t[f->plan.ops[0].out];
    int64_t *rem = f->tr.ops[0].aux[EZ_AUX_REM];
    ck_assert_ptr_nonnull(rem);
    const int64_t delta = (int64_t)((EZ_P - 1) >> k);
    /* an element whose remainder can grow by one */
    size_t e = 0;
    while (rem[e] == (INT64_C(1) << k) - 1)
        e++;
    ez_fe before = ez_fe_add(ez_fe_mul(ez_fe_from_i64(y[e]), ez_fe_pow(2, k)), ez_fe_from_i64(rem[e]));
    y[e] += delta;
    rem[e] += 1;
    ez_fe after = ez_fe_add(ez_fe_mul(ez_fe_from_i64(y[e]), ez_fe_pow(2, k)), ez_fe_from_i64(rem[e]));
    ck_assert(before == after); /* the forgery is a solution modulo p */
}

/* The audit's model at 50 bits (k = 16): the forged proof passes every range check and
 * the contraction sumcheck, and the verifier rejects it for the plan alone. */
START_TEST(test_wrap_forgery_rejected)
{
    char src[512];
    ez_pfx f;
    wide_src(src, sizeof src, 16, 48);
    ez_pfx_compile(&f, src);
    ez_pfx_run(&f, "wrap_forgery", 1 << 12);
    widen(&f, 50);
    ez_pfx_commit(&f);
    forge(&f, 16);
    ez_proof pf;
    ez_pfx_prove(&f, false, &pf); /* in range: the prover itself finds nothing wrong */
    ez_pfx_expect_rejected(&f, &pf, "not sound");
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

/* At the widest sound width (48 with k = 16) the model proves, and the same forgery leaves
 * the quotient's range: the range lookups reject it. */
START_TEST(test_widest_width_proves_forgery_fails)
{
    char src[512];
    ez_pfx f;
    ez_diag why = {{0}}, d = {{0}};
    wide_src(src, sizeof src, 16, 48);
    ez_pfx_compile(&f, src);
    ck_assert_msg(ez_plan_soundness(&f.plan, NULL, &d) == EZ_OK, "%s", d.msg);
    ez_pfx_run(&f, "widest", 1 << 12);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s", why.msg);
    forge(&f, 16);
    ck_assert(!ez_pfx_prove_verify(&f, true, &why));
    ez_pfx_free(&f);
}
END_TEST

/* A vk whose plan stores a larger bound, a missing residual range check, or a wider
 * width than the margins allow is rejected before any proof byte is read. */
START_TEST(test_edited_plan_rejected)
{
    ez_pfx f;
    ez_diag why = {{0}};
    ez_pfx_compile(&f, "model res\nparam S = 4, D = 8\nbits 16\ninput x[S, D]\nweight w[D, D]\n"
                       "h[s, e] = x[s, d] * w[d, e]\ny[s, e] = h[s, e] + x[s, e]\noutput y\n");
    ez_pfx_run(&f, "edited", 1 << 10);
    ez_proof pf;
    ez_pfx_prove(&f, false, &pf);
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
    /* the residual sum exceeds 16 bits: the compiler marked it range-checked */
    ck_assert(f.plan.ops[1].checked);
    f.plan.tensors[f.plan.ops[0].out].bound *= 2;
    ez_pfx_expect_rejected(&f, &pf, "stored bound");
    f.plan.tensors[f.plan.ops[0].out].bound /= 2;
    f.plan.ops[1].checked = false;
    ez_pfx_expect_rejected(&f, &pf, "range-checked");
    f.plan.ops[1].checked = true;
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
    f.plan.tensors[f.plan.ops[0].out].bits = 63;
    ez_pfx_expect_rejected(&f, &pf, "not sound");
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

/* RE-declared, RE-limit: a declared tensor's stored bound other than its width's (the
 * op's bound, derived from it, stored consistently); a declared width so wide that the
 * product leaves the field's safe range 2^62 (every stored bound consistent). */
START_TEST(test_recheck_declared_and_limit)
{
    ez_pfx f;
    ez_diag d = {{0}};
    ez_pfx_compile(&f, "model rc\nparam S = 2, D = 4\nbits 16\nscale 0\ninput x[S, D] @bits(8)\n"
                       "weight w[D, D] @bits(8)\ny[s, e] = x[s, d] * w[d, e]\noutput y\n");
    ck_assert_msg(ez_plan_recheck(&f.plan, &d) == EZ_OK, "%s", d.msg);
    ez_plan_tensor *x = &f.plan.tensors[ez_plan_find_tensor(&f.plan, "x")];
    ez_plan_tensor *y = &f.plan.tensors[f.plan.ops[0].out];
    ck_assert_uint_eq(x->bound, 128);
    ck_assert_uint_eq(y->bound, 4 * 128 * 128);
    x->bound = 64; /* and y's bound as the op's rule gives it from 64 */
    y->bound = 4 * 64 * 128;
    ck_assert_int_eq(ez_plan_recheck(&f.plan, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "tensor 'x': stored bound 64, but its declaration gives 128");
    /* x of 61 bits: 4 * 2^60 * 2^7 = 2^69 */
    x->bits = 61;
    x->bound = UINT64_C(1) << 60;
    y->bound = 0;
    ck_assert_int_eq(ez_plan_recheck(&f.plan, &d), EZ_ERR_FORMAT);
    ck_assert_msg(strstr(d.msg, "op 'y' (line 7): its values can reach 2^69.0, beyond the field's safe range 2^62") !=
                      NULL,
                  "%s", d.msg);
    ez_pfx_free(&f);
}
END_TEST

/* MG-values, MG-columns, MG-min, MG-lookups: the framework's relations of a real layout,
 * one edited at a time so that only that relation can wrap: a committed value of 64 bits
 * (2^64 - 1 >= p); a looked-up column of 63 bits beside a tensor of bound 2^63 (reaches
 * 2^64 upwards); the same column shifted down by 2^63 (its largest value stays below p,
 * its smallest reaches -2^64: only the lower end catches it); a table with 2^64 rows. */
START_TEST(test_margins_framework_relations)
{
    ez_pfx f;
    ez_diag d = {{0}};
    ez_advice_layout L;
    ez_pfx_compile(&f, "model fw\nparam S = 4, D = 8\nbits 16\nscale 4\ninput x[S, D] @bits(8)\n"
                       "weight w[D, D] @bits(8)\nh[s, e] = x[s, d] * w[d, e]\ny[s, e] = h[s, e] + h[s, e]\noutput y\n");
    ck_assert_msg(ez_advice_layout_build(&L, &f.plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_margins_check(&f.plan, &L, NULL, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(L.nvalues > 0, "values %zu cols %zu tables %zu", L.nvalues, L.ncols, L.ntables);
    ck_assert_uint_gt(L.ntables, 0);
    size_t c = SIZE_MAX;
    for (size_t j = 0; j < L.ncols && c == SIZE_MAX; j++)
        if (L.cols[j].atom.is_tensor && L.cols[j].coef == 1 && L.cols[j].nx == 0)
            c = j;
    ck_assert_msg(c != SIZE_MAX, "no plain tensor column among %zu", L.ncols);
    ez_lookup_col *col = &L.cols[c];
    ez_plan_tensor *t = &f.plan.tensors[col->atom.id];
    const ez_lookup_col keepc = *col;
    const uint64_t keepb = t->bound;
    /* a value: its limbs reach 2^64 - 1 */
    const unsigned vb = L.values[0].bits;
    L.values[0].bits = 64;
    L.values[0].nlimbs = 4;
    ck_assert_int_eq(ez_margins_check(&f.plan, &L, NULL, &d), EZ_ERR_NUMERIC);
    ck_assert_msg(strstr(d.msg, "the relation a value = the sum of its 16-bit limbs can reach 2^64.0") != NULL, "%s",
                  d.msg);
    L.values[0].bits = vb;
    L.values[0].nlimbs = (vb + 15) / 16;
    ck_assert_msg(ez_margins_check(&f.plan, &L, NULL, &d) == EZ_OK, "%s", d.msg);
    /* a column: tensor in [-2^63, 2^63] minus [0, 2^63): max 2^63 + 2^63 = 2^64 */
    t->bound = UINT64_C(1) << 63;
    col->bits = 63;
    ck_assert_int_eq(ez_margins_check(&f.plan, &L, NULL, &d), EZ_ERR_NUMERIC);
    ck_assert_msg(strstr(d.msg, "in [0, 2^63) can reach 2^64.0") != NULL, "%s", d.msg);
    /* shifted down by (p - 1) / 2 = 2^63 - 2^31, the most negative field constant, tensor
     * bound 1: max = 1 - (2^63 - 2^31) < p, min = -1 - (2^63 - 2^31) - (2^63 - 1) =
     * -2^64 + 2^31 < -p = -2^64 + 2^32 - 1 */
    t->bound = 1;
    col->cst = ez_fe_from_i64(-(int64_t)((EZ_P - 1) / 2));
    ck_assert_int_eq(ez_margins_check(&f.plan, &L, NULL, &d), EZ_ERR_NUMERIC);
    ck_assert_msg(strstr(d.msg, "+ -9223372034707292160 in [0, 2^63) can reach 2^64.0") != NULL, "%s", d.msg);
    *col = keepc;
    t->bound = keepb;
    ck_assert_msg(ez_margins_check(&f.plan, &L, NULL, &d) == EZ_OK, "%s", d.msg);
    /* a table: the looked-up rows reach 2^64 (a column's length; nothing reads it here) */
    col->len = UINT64_MAX;
    ck_assert_int_eq(ez_margins_check(&f.plan, &L, NULL, &d), EZ_ERR_NUMERIC);
    ck_assert_msg(strstr(d.msg, "the relation a table's multiplicities = its looked-up rows can reach 2^64.0") != NULL,
                  "%s", d.msg);
    *col = keepc;
    ez_advice_layout_clear(&L);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_margins(void)
{
    const TTest *tests[] = {test_rescale_boundary_widths, test_wrap_forgery_rejected,
        test_widest_width_proves_forgery_fails, test_edited_plan_rejected, test_recheck_declared_and_limit,
        test_margins_framework_relations};
    return ez_test_suite("margins", "core", 120, tests, sizeof tests / sizeof tests[0]);
}

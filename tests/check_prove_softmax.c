/* Suite "prove_softmax": the SOFTMAX prover and verifier (runtime/prove_softmax.h,
 * docs/protocol-softmax.md) inside the whole-plan prover on small models whose softmax
 * input is the public input (so every rejection below is the softmax's):
 *   - the live selector's closed-form MLE equals its brute-force MLE;
 *   - honest proofs verify: masked and unmasked rows, row lengths that are not powers
 *     of two, rows with one live entry, very negative scores (the clamp), ties at the
 *     max, the softmax axis first, an input scale above 12 (d's low limb), other output
 *     scales;
 *   - malicious provers are rejected: a max below some entry, a max that is attained
 *     nowhere (everything else recomputed consistently from it), a wrong exp value, p off
 *     by one with the compensating remainder q -/+ 2^16, a row reciprocal off by one with
 *     p and q recomputed from it (rows of the smallest and largest sigma), one
 *     reciprocal, q or p changed alone, a changed round message, a changed claimed output;
 *   - boundary widths: the widest row sums (every live score equal), the output scale at
 *     the division's limit (accepted) and one above it (refused by the layout);
 *   - the checked prover refuses inconsistent traces with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/diag.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "lib/mle.h"
#include "runtime/prove/advice.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/prove.h"
#include "runtime/ops/op.h"
#include "runtime/ops/rowaxis.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/weights.h"
#include "runtime/prove/masks.h"
#include "runtime/exec/tables.h"
#include "runtime/prove/verify.h"
#include "runtime/prove/weights.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

typedef struct {
    ez_pfx f;  /* no weights: nothing committed, an empty weight range proof */
    size_t op; /* the softmax */
    int64_t rr, g; /* the row values a tamper of the reciprocal's remainder writes */
} smx;

static void smx_compile(smx *f, const char *src)
{
    ez_pfx_compile(&f->f, src);
    f->op = ez_pfx_last_op(&f->f.plan, EZ_OP_SOFTMAX);
}

/* Kinds of score rows. */
enum { ROW_RANDOM, ROW_TIES, ROW_NEGATIVE, ROW_MIXED };

/* Set the input x (the softmax operand) and run. `lim` bounds the random scores; rows
 * cycle through the kinds: random, ties at the max, very negative (the clamp: distances
 * beyond 2^16 to the max), and a mix of huge and tiny scores. */
typedef struct {
    int64_t lim;
    const ez_plan_tensor *x; /* the softmax operand: the models' one input, and no weights */
} row_cases;

static int64_t row_case_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    const row_cases *c = ctx;
    int64_t lim = c->lim, big = (int64_t)t->bound - 1;
    ck_assert_ptr_eq(t, c->x);
    int64_t x = (int64_t)(r % (uint64_t)(2 * lim + 1)) - lim;
    switch (e / t->dims[t->rank - 1] % 4) {
    case ROW_TIES: return (r & 3) ? lim / 2 : x;                         /* most entries tie at the max */
    case ROW_NEGATIVE: return -big + (int64_t)(r % 3);                   /* the whole row near -bound */
    case ROW_MIXED: return (r & 1) ? big - (int64_t)(r % 5) : -big + (int64_t)(r % 7);
    default: return x;
    }
}

static void smx_run(smx *f, const char *seed, int64_t lim)
{
    ez_diag d = {{0}};
    row_cases c = {lim, &f->f.plan.tensors[f->f.plan.ops[f->op].in[0]]};
    ez_pfx_fill_run(&f->f.plan, &f->f.tr, seed, row_case_value, &c);
    ez_writer_init(&f->f.wrange);
    ck_assert_msg(ez_prove_weight_range(&f->f.plan, &f->f.tr, NULL, false, &f->f.wrange, &d) == EZ_OK, "%s", d.msg);
}


#define SRC_MASKED(S, T)                                                                                               \
    "model sm\nparam H = 2, S = " #S ", T = " #T "\nscale 12\ninput x[H, S, T]\n"                                      \
    "p[h, s, t] = softmax[t](causal[s, t](x[h, s, t]))\noutput p\n"
#define SRC_PLAIN(R, T)                                                                                                \
    "model sm\nparam R = " #R ", T = " #T "\nscale 12\ninput x[R, T]\np[r, t] = softmax[t](x[r, t])\noutput p\n"

/* The checked fixture of the "masked" and "plain" cases: SRC_MASKED(5, 5) or
 * SRC_PLAIN(4, 6) run (scores up to 2^12) before each test, which may change its trace;
 * freed after it. */
static smx fx;

static void masked_setup(void)
{
    smx_compile(&fx, SRC_MASKED(5, 5));
    smx_run(&fx, "masked55", 1 << 12);
}

static void plain_setup(void)
{
    smx_compile(&fx, SRC_PLAIN(4, 6));
    smx_run(&fx, "plain46", 1 << 12);
}

static void smx_teardown(void)
{
    ez_pfx_free(&fx.f);
}

/* ---- the live selector's MLE ------------------------------------------------------------- */

START_TEST(test_live_mle_bruteforce)
{
    ez_rng rng = ez_rng_for("live_mle");
    const uint64_t shapes[][2] = {{1, 1}, {2, 2}, {3, 3}, {5, 5}, {8, 8}, {3, 6}, {6, 3}, {1, 7}, {7, 1}, {4, 16},
                                  {13, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint64_t Ni = shapes[s][0], Nj = shapes[s][1];
        unsigned ni = ez_log2_ceil(Ni), nj = ez_log2_ceil(Nj), n = ni + nj;
        size_t N = (size_t)1 << n;
        ez_fe *m = malloc(N * sizeof *m);
        for (size_t x = 0; x < N; x++) {
            uint64_t i = x >> nj, j = x & ((UINT64_C(1) << nj) - 1);
            m[x] = i < Ni && j < Nj && j <= i;
        }
        for (int rep = 0; rep < 4; rep++) {
            ez_fe2 r[16];
            for (unsigned v = 0; v < n; v++)
                r[v] = ez_rng_fe2(&rng);
            ez_fe2 want = ez_mle_eval_fe(m, N, r, n);
            ez_fe2 got = ez_softmax_live_mle(r, ni, Ni, r + ni, nj, Nj);
            ck_assert_msg(ez_fe2_eq(want, got), "live MLE differs at Ni=%llu Nj=%llu", (unsigned long long)Ni,
                          (unsigned long long)Nj);
            /* with full extents it is the causal mask of CAUSAL */
            if (Ni == (UINT64_C(1) << ni) && Nj == (UINT64_C(1) << nj))
                ck_assert(ez_fe2_eq(got, ez_mle_causal(r, ni, r + ni, nj)));
        }
        free(m);
    }
}
END_TEST

/* ---- honest provers ---------------------------------------------------------------------- */

static void honest(const char *src, const char *seed, int64_t lim)
{
    smx f;
    ez_diag why = {{0}};
    smx_compile(&f, src);
    smx_run(&f, seed, lim);
    ck_assert_msg(ez_pfx_prove_verify(&f.f, false, &why), "%s: rejected: %s", seed, why.msg);
    ez_pfx_free(&f.f);
}

START_TEST(test_honest_masked)
{
    honest(SRC_MASKED(5, 5), "masked_5x5", 1 << 14);   /* not powers of two; row 0: one live entry */
    honest(SRC_MASKED(4, 8), "masked_4x8", 1 << 18);   /* more columns than rows */
    honest(SRC_MASKED(6, 3), "masked_6x3", 1 << 10);   /* fewer columns than rows */
    honest(SRC_MASKED(1, 1), "masked_1x1", 1 << 12);   /* one entry: no variables at all */
}
END_TEST

START_TEST(test_honest_plain)
{
    honest(SRC_PLAIN(8, 7), "plain_8x7", 1 << 16);
    honest(SRC_PLAIN(4, 16), "plain_4x16", 1 << 20);
    honest(SRC_PLAIN(5, 1), "plain_5x1", 1 << 12); /* single-entry rows: p = 2^s */
}
END_TEST

/* The softmax axis first (rows in the low bits), masked and not; an output whose axes are
 * a permutation of the input's. */
START_TEST(test_honest_axis_first)
{
    honest("model sm\nparam S = 6, T = 5\nscale 12\ninput x[T, S]\n"
           "p[t, s] = softmax[t](causal[s, t](x[t, s]))\noutput p\n",
           "axis_first_masked", 1 << 15);
    honest("model sm\nparam S = 3, T = 6\nscale 12\ninput x[T, S]\np[t, s] = softmax[t](x[t, s])\noutput p\n",
           "axis_first_plain", 1 << 15);
    /* the output's axes in another order than the input's */
    honest("model sm\nparam S = 3, T = 5\nscale 12\ninput x[T, S]\np[s, t] = softmax[t](x[t, s])\noutput p\n",
           "permuted_plain", 1 << 15);
    honest("model sm\nparam S = 7, T = 5\nscale 12\ninput x[T, S]\n"
           "p[s, t] = softmax[t](causal[s, t](x[t, s]))\noutput p\n",
           "permuted_masked", 1 << 15);
}
END_TEST

/* Input scale 14: d' = floor(d / 4), so d has a committed 2-bit low part; output scales
 * 8 and 20. */
START_TEST(test_honest_scales)
{
    honest("model sm\nparam S = 5\nscale 12\ninput x[S, S] @scale(14)\n"
           "p[s, t] = softmax[t](causal[s, t](x[s, t]))\noutput p\n",
           "scale14", 1 << 17);
    honest("model sm\nparam S = 5\nscale 8\ninput x[S, S] @scale(12)\n"
           "p[s, t] = softmax[t](causal[s, t](x[s, t]))\noutput p\n",
           "out8", 1 << 13);
    honest("model sm\nparam S = 5\nscale 20\nbits 32\ninput x[S, S] @scale(12) @bits(24)\n"
           "p[s, t] = softmax[t](x[s, t])\noutput p\n",
           "out20", 1 << 13);
    /* all scores equal on the random rows: the widest row sums (sigma = T 2^16) */
    honest(SRC_MASKED(5, 5), "widest_sigma", 0);
    honest(SRC_PLAIN(3, 6), "widest_sigma_plain", 0);
    /* the output scale at its limit for the row length: bitlen(T 2^16 - 1) + s + 1 = 62
     * (T = 5: 19 + 42 + 1; T = 2: 17 + 44 + 1, the largest output scale) */
    honest("model sm\nparam S = 5\nscale 42\nbits 62\ninput x[S, S] @scale(12) @bits(24)\n"
           "p[s, t] = softmax[t](causal[s, t](x[s, t]))\noutput p\n",
           "out42", 1 << 13);
    honest("model sm\nparam S = 2\nscale 44\nbits 62\ninput x[S, S] @scale(12) @bits(24)\n"
           "p[s, t] = softmax[t](x[s, t])\noutput p\n",
           "out44", 1 << 13);
    /* one above the limit (T = 5, s = 43: 19 + 44 = 63 bits): refused by the layout */
    smx f;
    ez_diag d = {{0}};
    smx_compile(&f, "model sm\nparam S = 5\nscale 43\nbits 62\ninput x[S, S] @scale(12) @bits(24)\n"
                    "p[s, t] = softmax[t](x[s, t])\noutput p\n");
    smx_run(&f, "out43", 1 << 13);
    ez_proof pf;
    ck_assert_int_eq(ez_pfx_prove_status(&f.f, false, &pf, &d), EZ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(d.msg, "too large for an exact division") != NULL, "%s", d.msg);
    ez_proof_clear(&pf);
    ez_pfx_free(&f.f);
}
END_TEST

/* ---- malicious provers ------------------------------------------------------------------- */

/* The division of row r (axis last, T entries) by a chosen reciprocal rc, from its exp
 * values: p = floor(e rc / 2^16) and its remainder q, as the semantics do. */
static void divide_row(smx *f, uint64_t r, uint64_t T, int64_t rc)
{
    const ez_plan_op *o = &f->f.plan.ops[f->op];
    const int64_t *e = f->f.tr.ops[f->op].aux[EZ_AUX_EXP] + r * T;
    int64_t *q = f->f.tr.ops[f->op].aux[EZ_AUX_DIV_REM] + r * T, *p = f->f.tr.t[o->out] + r * T;
    for (uint64_t j = 0; j < T; j++) {
        p[j] = (e[j] * rc) >> EZ_SOFTMAX_RECIP_BITS;
        q[j] = e[j] * rc - (p[j] << EZ_SOFTMAX_RECIP_BITS);
    }
    f->f.tr.ops[f->op].aux[EZ_AUX_ROW_RECIP][r] = rc;
}

/* The honest reciprocal of a row sum. */
static int64_t recip_of(const smx *f, int64_t sigma)
{
    return (INT64_C(1) << (f->f.plan.ops[f->op].out_scale + EZ_SOFTMAX_RECIP_BITS)) / sigma;
}

/* Recompute one row of the softmax (axis last, row r) from a chosen max m, exactly as the
 * semantics do, so the only false statement is about m. */
static void recompute_row(smx *f, uint64_t r, int64_t m)
{
    const ez_plan_op *o = &f->f.plan.ops[f->op];
    const ez_plan_tensor *to = &f->f.plan.tensors[o->out];
    uint64_t T = to->dims[to->rank - 1], S = to->rank >= 2 ? to->dims[to->rank - 2] : 1;
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build_softmax_exp(&t, o->in_scale, &d), EZ_OK);
    const int64_t *x = f->f.tr.t[o->in[0]] + r * T;
    int64_t *e = f->f.tr.ops[f->op].aux[EZ_AUX_EXP] + r * T;
    uint64_t i = r % S; /* the mask row coordinate (masked models: s is the axis before t) */
    int64_t sigma = 0;
    for (uint64_t j = 0; j < T; j++) {
        bool live = !o->masked || j <= i;
        e[j] = live ? ez_table_softmax_exp(&t, m - x[j]) : 0;
        sigma += e[j];
    }
    divide_row(f, r, T, recip_of(f, sigma));
    f->f.tr.ops[f->op].aux[EZ_AUX_ROW_MAX][r] = m;
    f->f.tr.ops[f->op].aux[EZ_AUX_ROW_SUM][r] = sigma;
    ez_table_clear(&t);
}

/* Row r of the fixture recomputed from its max plus dm: the checked prover refuses it
 * (`refusal` in its message), the unchecked one's proof is rejected (the reason in why). */
static void max_changed_refused(uint64_t r, int64_t dm, const char *refusal, ez_diag *why)
{
    ez_diag d = {{0}};
    recompute_row(&fx, r, fx.f.tr.ops[fx.op].aux[EZ_AUX_ROW_MAX][r] + dm);
    ez_proof pf;
    ck_assert_int_eq(ez_pfx_prove_status(&fx.f, false, &pf, &d), EZ_ERR_NUMERIC); /* checked: refused */
    ck_assert_msg(strstr(d.msg, refusal) != NULL, "%s", d.msg);
    ez_proof_clear(&pf);
    ck_assert(!ez_pfx_prove_verify(&fx.f, true, why));
}

/* A row max below one live entry (x > m): the distance is negative, its limbs are not
 * in range. */
START_TEST(test_max_below_an_entry)
{
    ez_diag why = {{0}};
    max_changed_refused(4, -3, "above its row's max", &why); /* h = 0, s = 4: five live entries */
}
END_TEST

/* A row max above every entry: every d >= 0 holds, only attainment fails. */
START_TEST(test_max_not_attained)
{
    ez_diag why = {{0}};
    max_changed_refused(3, 1, "count of row maxima", &why);
    ck_assert_msg(strstr(why.msg, "lookups") != NULL || strstr(why.msg, "softmax") != NULL, "%s", why.msg);
    /* same with the max raised by more than one table step and unmasked rows */
    smx g;
    smx_compile(&g, SRC_PLAIN(4, 6));
    smx_run(&g, "max_not_attained2", 1 << 12);
    recompute_row(&g, 0, g.f.tr.ops[g.op].aux[EZ_AUX_ROW_MAX][0] + 100);
    ck_assert(!ez_pfx_prove_verify(&g.f, true, &why));
    ez_pfx_free(&g.f);
}
END_TEST

/* One exp value changed (and the row sum, reciprocal, p and remainders kept). */
START_TEST(test_wrong_exp)
{
    ez_diag why = {{0}};
    fx.f.tr.ops[fx.op].aux[EZ_AUX_EXP][4 * 5 + 2] += 1;
    ez_pfx_expect_prove_rejected(&fx.f, false, "softmax");
    /* and a wrong exp value carried consistently into sigma, r, p and the remainders */
    smx g;
    smx_compile(&g, SRC_PLAIN(3, 5));
    smx_run(&g, "wrong_exp2", 1 << 12);
    {
        int64_t *e = g.f.tr.ops[g.op].aux[EZ_AUX_EXP], sigma = 0;
        e[1] -= 5;
        for (int j = 0; j < 5; j++)
            sigma += e[j];
        g.f.tr.ops[g.op].aux[EZ_AUX_ROW_SUM][0] = sigma;
        divide_row(&g, 0, 5, recip_of(&g, sigma));
    }
    ck_assert(!ez_pfx_prove_verify(&g.f, false, &why));
    ez_pfx_free(&g.f);
}
END_TEST

/* p - 1 with q + 2^16 (q >= 2^16), and p + 1 with q - 2^16 (q < 0): e r = 2^16 p + q
 * still holds in the field; q's range check refuses it. */
START_TEST(test_division_off_by_one)
{
    for (int dir = -1; dir <= 1; dir += 2) {
        smx f;
        ez_diag why = {{0}}, d = {{0}};
        smx_compile(&f, SRC_MASKED(5, 5));
        smx_run(&f, dir < 0 ? "div_minus" : "div_plus", 1 << 12);
        const ez_plan_op *o = &f.f.plan.ops[f.op];
        uint64_t r = 4, j = 1;
        int64_t *p = f.f.tr.t[o->out] + r * 5, *q = f.f.tr.ops[f.op].aux[EZ_AUX_DIV_REM] + r * 5;
        if (dir < 0 && p[j] == 0)
            j = 0; /* the row max's entry has p > 0 */
        p[j] += dir;
        q[j] -= dir * (INT64_C(1) << EZ_SOFTMAX_RECIP_BITS);
        ez_proof pf;
        ck_assert_int_eq(ez_pfx_prove_status(&f.f, false, &pf, &d), EZ_ERR_NUMERIC);
        ck_assert_msg(strstr(d.msg, "remainder of e r") != NULL, "%s", d.msg);
        ez_proof_clear(&pf);
        ck_assert(!ez_pfx_prove_verify(&f.f, true, &why));
        ez_pfx_free(&f.f);
    }
}
END_TEST

/* A row's reciprocal off by one (r + 1: its remainder 2^(s+16) - r sigma < 0; r - 1: the
 * remainder >= sigma), p and q recomputed from it so that e r = 2^16 p + q holds on every
 * entry: the row's remainder range (rr, or g = sigma - 1 - rr) refuses it. Scores 0 on
 * the random rows, so row (0, 4) is the widest row sum (sigma = 5 2^16, five live entries
 * tied), row (0, 0) the narrowest (sigma = 2^16, one live entry); row (1, 2) mixes huge
 * and tiny scores. */
START_TEST(test_recip_off_by_one)
{
    const uint64_t rows[] = {4, 0, 7};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        for (int dir = -1; dir <= 1; dir += 2) {
            smx f;
            ez_diag why = {{0}}, d = {{0}};
            smx_compile(&f, SRC_MASKED(5, 5));
            smx_run(&f, "recip_off", 0);
            uint64_t r = rows[k];
            int64_t rc = f.f.tr.ops[f.op].aux[EZ_AUX_ROW_RECIP][r];
            ck_assert_int_eq(rc, recip_of(&f, f.f.tr.ops[f.op].aux[EZ_AUX_ROW_SUM][r]));
            if (k == 0)
                ck_assert_int_eq(f.f.tr.ops[f.op].aux[EZ_AUX_ROW_SUM][r], 5 << 16);
            divide_row(&f, r, 5, rc + dir);
            ez_proof pf;
            ck_assert_int_eq(ez_pfx_prove_status(&f.f, false, &pf, &d), EZ_ERR_NUMERIC);
            ck_assert_msg(strstr(d.msg, "row reciprocal's remainder") != NULL, "%s", d.msg);
            ez_proof_clear(&pf);
            ck_assert_msg(!ez_pfx_prove_verify(&f.f, true, &why), "row %llu, r %+d accepted", (unsigned long long)r,
                          dir);
            ez_pfx_free(&f.f);
        }
}
END_TEST

/* One value changed alone, its remainders kept: a reciprocal (r + 1), an element's
 * remainder q (+1, still in range), an output p (+1) — each rejected by the unchecked
 * prover's verifier. */
START_TEST(test_one_value_changed)
{
    for (int k = 0; k < 3; k++) {
        smx f;
        ez_diag why = {{0}};
        smx_compile(&f, SRC_MASKED(5, 5));
        smx_run(&f, "one_value", 1 << 12);
        const ez_plan_op *o = &f.f.plan.ops[f.op];
        int64_t *q = f.f.tr.ops[f.op].aux[EZ_AUX_DIV_REM];
        if (k == 0)
            f.f.tr.ops[f.op].aux[EZ_AUX_ROW_RECIP][3] += 1;
        else if (k == 1)
            q[3 * 5 + 1] = q[3 * 5 + 1] < 65535 ? q[3 * 5 + 1] + 1 : q[3 * 5 + 1] - 1;
        else
            f.f.tr.t[o->out][3 * 5 + 1] += 1;
        ck_assert_msg(!ez_pfx_prove_verify(&f.f, true, &why), "change %d accepted", k);
        ez_pfx_free(&f.f);
    }
}
END_TEST

/* The proof of an honest trace, then one walk byte or the claimed output changed. Every
 * other field element of the tail (the zero-checks, their evaluations, the row identity)
 * and a sample of the lookups section (the range table's and the shared exp table's
 * LogUp) are flipped one at a time. */
START_TEST(test_changed_round_message_and_output)
{
    ez_diag why = {{0}}, d = {{0}};
    ez_proof pf;
    ck_assert_int_eq(ez_pfx_prove_status(&fx.f, false, &pf, &d), EZ_OK);
    ck_assert(ez_pfx_verify(&fx.f, &pf, &why));
    /* the walk section is the softmax's alone */
    ck_assert_uint_gt(pf.sec[EZ_PF_SEC_WALK].len, 1024);
    ck_assert_uint_gt(ez_pfx_flip_section(&fx.f, &pf, EZ_PF_SEC_WALK, 3, 16), 64);
    ez_pfx_flip_section(&fx.f, &pf, EZ_PF_SEC_LOOKUPS, 5, pf.sec[EZ_PF_SEC_LOOKUPS].len / 40 + 1);
    /* the claimed output in the statement: p[0, 2, 1] + 1 */
    ez_pfx_changed_stmt(&fx.f, &pf, ez_pfx_stmt_tensor(&pf, fx.f.plan.ops[fx.op].out), 2 * 5 + 1);
    ez_proof_clear(&pf);
}
END_TEST

/* A prover that claims a different output value (the statement and its committed p
 * agree, nothing else changed): the division relation fails. */
START_TEST(test_changed_output_value)
{
    ez_diag why = {{0}};
    fx.f.tr.t[fx.f.plan.ops[fx.op].out][7] += 1;
    ck_assert(!ez_pfx_prove_verify(&fx.f, true, &why));
    ck_assert_msg(strstr(why.msg, "softmax") != NULL || strstr(why.msg, "lookups") != NULL, "%s", why.msg);
}
END_TEST

/* Row r (masked model, axis last) recomputed as if the mask kept every entry: a prover
 * that gives the masked entries weight, its trace consistent with that. */
static void unmask_row(smx *f, uint64_t r)
{
    const ez_plan_op *o = &f->f.plan.ops[f->op];
    uint64_t T = f->f.plan.tensors[o->out].dims[f->f.plan.tensors[o->out].rank - 1];
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build_softmax_exp(&t, o->in_scale, &d), EZ_OK);
    const int64_t *x = f->f.tr.t[o->in[0]] + r * T;
    int64_t *e = f->f.tr.ops[f->op].aux[EZ_AUX_EXP] + r * T, m = x[0], sigma = 0;
    for (uint64_t j = 1; j < T; j++)
        m = x[j] > m ? x[j] : m;
    for (uint64_t j = 0; j < T; j++)
        sigma += e[j] = ez_table_softmax_exp(&t, m - x[j]);
    divide_row(f, r, T, recip_of(f, sigma));
    f->f.tr.ops[f->op].aux[EZ_AUX_ROW_MAX][r] = m;
    f->f.tr.ops[f->op].aux[EZ_AUX_ROW_SUM][r] = sigma;
    ez_table_clear(&t);
}

/* The masked entries are not committed (the element polys live on the causal support):
 * at S = T = 7 (not powers of two), a public output with a nonzero masked entry, one with
 * a changed live entry, and a prover that runs one row without the mask (its trace
 * consistent) are rejected — on the exact triangle and with 4 x 4 diagonal blocks (masked
 * entries committed there, fixed by the relations C*, E'). */
START_TEST(test_masked_support_tampered)
{
    const unsigned blocks[] = {0, 4};
    /* under the sanitizers (EZ_SANITIZERS) the exact triangle only: six proofs are slow */
    const size_t nb = getenv("EZ_SANITIZERS") ? 1 : 2;
    for (size_t b = 0; b < nb; b++)
        for (int k = 0; k < 3; k++) {
            smx f;
            ez_diag why = {{0}};
            ez_rowaxis_testing_causal_block(blocks[b]);
            smx_compile(&f, SRC_MASKED(7, 7));
            smx_run(&f, "masked_support", 1 << 12);
            int64_t *p = f.f.tr.t[f.f.plan.ops[f.op].out];
            if (k == 0)
                p[7 * 7 + 2 * 7 + 5] = 1; /* (h, s, t) = (1, 2, 5): masked */
            else if (k == 1)
                p[4 * 7 + 2] += 1; /* (0, 4, 2): live */
            else
                unmask_row(&f, 7 + 3); /* row (1, 3): weight on t = 4, 5, 6 */
            ck_assert_msg(!ez_pfx_prove_verify(&f.f, true, &why), "block %u, tamper %d accepted", blocks[b], k);
            ez_pfx_free(&f.f);
        }
    ez_rowaxis_testing_causal_block(0);
}
END_TEST

/* ---- the op alone, with an ideal commitment: tampering committed polys ----------------
 * The softmax's own prove/verify on a prover and a verifier context sharing the bytes;
 * the range lookups are checked by membership, the claims the verifier leaves on advice
 * and on x by evaluating the true data (an ideal commitment and claim flow). A tamper
 * callback edits the committed polys between the fill and the proof. */
typedef void (*smx_tamper)(smx *f, const ez_advice_layout *L, size_t first, ez_fe **polys);

/* Returns the verdict; *claims_ok / *ranges_ok report the ideal checks. */
static bool smx_op_alone(smx *f, smx_tamper tamper, bool *claims_ok, bool *ranges_ok, ez_diag *why)
{
    ez_advice_layout L;
    ez_fe **polys = ez_pfx_advice(&L, &f->f.plan, &f->f.tr, f->op);
    size_t first = ez_pfx_first_op_poly(&L, f->op);
    if (tamper)
        tamper(f, &L, first, polys);
    /* ideal lookups: every range column entry in [0, 2^bits), every (l, e_lo) row in the
     * model's exp table */
    ck_assert_uint_ge(L.ntuples, 1);
    *ranges_ok = ez_pfx_lookups_hold(&L, polys, &f->f.plan, &f->f.tr, f->op);
    /* the output claim at a random point: the public output's MLE */
    const ez_plan_op *o = &f->f.plan.ops[f->op];
    const ez_plan_tensor *to = &f->f.plan.tensors[o->out];
    ez_rng rng = ez_rng_for("op_alone");
    ez_claim out;
    ez_pfx_random_claim(&out, to, f->f.tr.t[o->out], &rng);
    ez_pfx_alone alone = {.label = "softmax-test"};
    bool ok = ez_pfx_op_alone(&f->f.plan, &f->f.tr, &L, polys, f->op, &out, &alone, claims_ok, NULL, why);
    ez_claim_clear(&out);
    ez_pfx_advice_free(&L, polys);
    return ok;
}

/* The committed entry of poly q at element cube index x: x itself for a plain poly, its
 * place on the support otherwise; NULL outside the support (the commitment fixes it to 0). */
static ez_fe *smx_at(const ez_advice_layout *L, ez_fe **P, size_t q, uint64_t x)
{
    long sup = L->polys[q].support;
    if (sup < 0)
        return &P[q][x];
    const ez_adv_support *su = &L->supports[sup];
    for (size_t j = 0; j < su->npieces; j++) {
        if ((x & su->pieces[j].mask) != su->pieces[j].val)
            continue;
        uint64_t k = 0, free = ~su->pieces[j].mask & ((UINT64_C(1) << su->nv) - 1);
        for (unsigned b = 0, o = 0; b < su->nv; b++)
            if ((free >> b) & 1)
                k |= ((x >> b) & 1) << o++;
        return &P[q][su->off[j] + k];
    }
    return NULL;
}

static ez_fe *smx_at_live(const ez_advice_layout *L, ez_fe **P, size_t q, uint64_t x)
{
    ez_fe *e = smx_at(L, P, q, x);
    ck_assert_msg(e != NULL, "entry %llu of poly %zu is outside its support", (unsigned long long)x, q);
    return e;
}
#define AT(q, x) (*smx_at_live(L, P, first + (q), (x)))

/* The local poly order of docs/protocol-softmax.md §2 for the model SRC_MASKED(5, 5):
 * l, e_lo, w, z, e, h (1 limb), q (1), p (1), then per row m, count-1 (1), r (1), rr (2),
 * g (2). */
enum { Q_L, Q_EL, Q_W, Q_Z, Q_E, Q_H, Q_Q, Q_P, Q_M, Q_C, Q_R, Q_RR0, Q_RR1, Q_G0, Q_G1 };

/* Element (h, s, t) of x[2, 5, 5] in the padded layout [2, 8, 8]; row (h, s) in [2, 8]. */
#define PE(h, s, t) ((uint64_t)(h) * 64 + (uint64_t)(s) * 8 + (uint64_t)(t))
#define PR(h, s) ((uint64_t)(h) * 8 + (uint64_t)(s))

START_TEST(test_op_alone_honest)
{
    smx f;
    ez_diag why = {{0}};
    bool claims_ok, ranges_ok;
    /* the exact triangle (default), 4 x 4 diagonal blocks (masked entries committed), the
     * whole cube (the plain padded layout) */
    const unsigned blocks[] = {0, 4, 6};
    for (size_t b = 0; b < 3; b++) {
        ez_rowaxis_testing_causal_block(blocks[b]);
        smx_compile(&f, SRC_MASKED(5, 5));
        smx_run(&f, "op_alone_honest", 1 << 12);
        ck_assert_msg(smx_op_alone(&f, NULL, &claims_ok, &ranges_ok, &why), "block %u: %s", blocks[b], why.msg);
        ck_assert(claims_ok);
        ck_assert(ranges_ok);
        ez_pfx_free(&f.f);
    }
    ez_rowaxis_testing_causal_block(0);
}
END_TEST

/* Row (0, 3) with its max raised by one and everything recomputed (not attained), then
 * the attainment witness forged in three ways. */
static void raise_max(smx *f)
{
    recompute_row(f, 3, f->f.tr.ops[f->op].aux[EZ_AUX_ROW_MAX][3] + 1);
}

/* z = 1 at the entry of smallest distance (d = 1 there), count - 1 = 0. */
static void forge_z(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)f, (void)L;
    for (unsigned t = 0; t <= 3; t++)
        if (AT(Q_L, PE(0, 3, t)) == 1 && AT(Q_H, PE(0, 3, t)) == 0)
            AT(Q_Z, PE(0, 3, t)) = 1;
    P[first + Q_C][PR(0, 3)] = 0;
}

/* count - 1 = 0 with no z at all. */
static void forge_count(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)f, (void)L;
    P[first + Q_C][PR(0, 3)] = 0;
}

/* z = 1 at a masked entry of the row (t = 4 > s = 3) whose distance limbs are zeroed. */
static void forge_z_masked(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)f, (void)L;
    uint64_t i = PE(0, 3, 4);
    AT(Q_Z, i) = 1;
    AT(Q_L, i) = 0;
    AT(Q_H, i) = 0;
    P[first + Q_C][PR(0, 3)] = 0;
}

START_TEST(test_op_alone_attainment_forged)
{
    const smx_tamper tampers[] = {forge_z, forge_count, forge_z_masked};
    for (size_t k = 0; k < 3; k++) {
        smx f;
        ez_diag why = {{0}};
        bool claims_ok, ranges_ok;
        /* the masked entry (0, 3, 4) is committed only when the whole cube is */
        ez_rowaxis_testing_causal_block(k == 2 ? 6 : 0);
        smx_compile(&f, SRC_MASKED(5, 5));
        smx_run(&f, "op_alone_attain", 1 << 12);
        raise_max(&f);
        bool ok = smx_op_alone(&f, tampers[k], &claims_ok, &ranges_ok, &why);
        ck_assert_msg(ranges_ok, "tamper %zu: the forgery should pass the range checks", k);
        ck_assert_msg(!ok || !claims_ok, "tamper %zu accepted", k);
        ez_pfx_free(&f.f);
    }
    ez_rowaxis_testing_causal_block(0);
}
END_TEST

/* Find a live entry of row (0, 4) with h != 0 (a clamped exp), or with h == 0. */
static uint64_t find_entry(const ez_advice_layout *L, ez_fe **P, size_t first, bool clamped)
{
    for (unsigned t = 0; t <= 4; t++)
        if ((AT(Q_H, PE(0, 4, t)) != 0) == clamped)
            return PE(0, 4, t);
    ck_abort_msg("no suitable entry");
    return 0;
}

/* e_lo and e one above the table (h = 0): the exp lookup fails. */
static void forge_elo(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)f, (void)L;
    uint64_t i = find_entry(L, P, first, false);
    AT(Q_EL, i) += 1;
    AT(Q_E, i) += 1;
}

/* The clamp bypassed: w = 0 at a clamped entry, e = e_lo there. */
static void forge_clamp(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)f, (void)L;
    uint64_t i = find_entry(L, P, first, true);
    AT(Q_W, i) = 0;
    AT(Q_E, i) = AT(Q_EL, i);
}

/* A masked entry given weight: e = e_lo, h = 0 at (0, 1, 3). */
static void forge_masked_weight(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)f, (void)L;
    uint64_t i = PE(0, 1, 3);
    AT(Q_H, i) = 0;
    AT(Q_E, i) = AT(Q_EL, i);
}

/* Row (0, 0)'s remainder rr and g = sigma - 1 - rr set to f->rr, f->g (both in range). */
static void set_row_rem(smx *f, const ez_advice_layout *L, size_t first, ez_fe **P)
{
    (void)L;
    P[first + Q_RR0][PR(0, 0)] = (ez_fe)(f->rr & 0xffff);
    P[first + Q_RR1][PR(0, 0)] = (ez_fe)(f->rr >> 16);
    P[first + Q_G0][PR(0, 0)] = (ez_fe)(f->g & 0xffff);
    P[first + Q_G1][PR(0, 0)] = (ez_fe)(f->g >> 16);
}

/* The reciprocal's two row identities, each alone: row (0, 0) (one live entry, sigma =
 * 2^16, r = 2^12) with r + 1 and p, q recomputed (e r = 2^16 p + q everywhere), its rr and
 * g kept honest (rr + g + 1 = sigma holds, rr + r sigma = 2^28 + sigma does not); then r -
 * 1, rr = 2^16 (= 2^28 - r sigma, in range) and g = 0 (rr + r sigma = 2^28 holds, rr + g + 1
 * = sigma + 1 does not). Every range holds; only the row identities reject. */
START_TEST(test_op_alone_recip_forged)
{
    for (int dir = 1; dir >= -1; dir -= 2) {
        smx f;
        ez_diag why = {{0}};
        bool claims_ok, ranges_ok;
        smx_compile(&f, SRC_MASKED(5, 5));
        smx_run(&f, "op_alone_recip", 1 << 12);
        ck_assert_int_eq(f.f.tr.ops[f.op].aux[EZ_AUX_ROW_SUM][0], 1 << 16);
        int64_t rc = f.f.tr.ops[f.op].aux[EZ_AUX_ROW_RECIP][0];
        ck_assert_int_eq(rc, 1 << 12);
        divide_row(&f, 0, 5, rc + dir);
        f.rr = dir > 0 ? 0 : 1 << 16;
        f.g = dir > 0 ? (1 << 16) - 1 : 0;
        bool ok = smx_op_alone(&f, set_row_rem, &claims_ok, &ranges_ok, &why);
        ck_assert_msg(ranges_ok && claims_ok, "r %+d: the forgery should pass the ranges and the claims", dir);
        ck_assert_msg(!ok, "r %+d accepted", dir);
        ck_assert_msg(strstr(why.msg, dir > 0 ? "2^(s+16)" : "below the row's sum") != NULL, "%s", why.msg);
        ez_pfx_free(&f.f);
    }
}
END_TEST

START_TEST(test_op_alone_exp_forged)
{
    const smx_tamper tampers[] = {forge_elo, forge_clamp, forge_masked_weight};
    for (size_t k = 0; k < 3; k++) {
        smx f;
        ez_diag why = {{0}};
        bool claims_ok, ranges_ok;
        /* 4 x 4 diagonal blocks: the masked entry (0, 1, 3) is committed */
        ez_rowaxis_testing_causal_block(4);
        smx_compile(&f, SRC_MASKED(5, 5));
        /* row 0 of head 0 is random; rows with clamped entries need a wide spread */
        smx_run(&f, "op_alone_exp", 1 << 22);
        bool ok = smx_op_alone(&f, tampers[k], &claims_ok, &ranges_ok, &why);
        ck_assert_msg(!ok || !claims_ok || !ranges_ok, "tamper %zu accepted", k);
        ez_pfx_free(&f.f);
    }
    ez_rowaxis_testing_causal_block(0);
}
END_TEST

/* SM-zero, SM-dist, SM-z-claim: a prover whose sumcheck runs over another factor, changed
 * at two entries so that the sum and every round still hold (prove_fixture.h
 * ez_pfx_prove_forged): l1 of the big zero-check (only the verifier's own final values
 * tell); the attainment zero-check's distance d (only its limbs tell) and its marks z
 * (only the claim on the committed z tells). */
START_TEST(test_forged_factors)
{
    ez_diag why = {{0}};
    ck_assert(!ez_pfx_prove_forged(&fx.f, NULL, 0, 8, 1, &why));
    ck_assert_msg(strstr(why.msg, "the zero-check's final evaluations do not match the committed values") != NULL, "%s",
                  why.msg);
    ck_assert(!ez_pfx_prove_forged(&fx.f, NULL, 1, 2, 1, &why));
    ck_assert_msg(strstr(why.msg, "the attainment zero-check's distance does not match its limbs") != NULL, "%s",
                  why.msg);
    ck_assert(!ez_pfx_prove_forged(&fx.f, NULL, 1, 2, 0, &why));
    ck_assert_str_eq(why.msg, "advice opening: the commitment does not open to the claimed values");
}
END_TEST

Suite *ez_suite_prove_softmax(void)
{
    const TTest *tests[] = {test_live_mle_bruteforce, test_honest_masked, test_honest_plain, test_honest_axis_first,
        test_honest_scales, test_division_off_by_one, test_recip_off_by_one, test_one_value_changed,
        test_masked_support_tampered, test_op_alone_honest, test_op_alone_attainment_forged, test_op_alone_exp_forged,
        test_op_alone_recip_forged};
    Suite *s = ez_test_suite("prove_softmax", "core", 60, tests, sizeof tests / sizeof tests[0]);
    const TTest *masked[] = {test_max_below_an_entry, test_max_not_attained, test_wrong_exp,
        test_changed_round_message_and_output};
    ez_tcase_add_fixture(s, "masked", 60, masked_setup, smx_teardown, masked, sizeof masked / sizeof masked[0]);
    const TTest *plain[] = {test_forged_factors, test_changed_output_value};
    ez_tcase_add_fixture(s, "plain", 60, plain_setup, smx_teardown, plain, sizeof plain / sizeof plain[0]);
    return s;
}

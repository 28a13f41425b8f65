/* Suite "ops_max": the MAX and ARGMAX provers and verifiers (runtime/ops/maxarg.c,
 * docs/protocol-argmax.md) inside the whole-plan prover, on small models whose operand
 * is the public input (so every rejection below is the op's own):
 *   - honest proofs verify: row lengths that are not powers of two, one row, many rows,
 *     single-entry rows, ties at the max, all-equal rows, negative values, values at the
 *     width's ends, the reduced axis first, a permuted output, rows with interior padding
 *     (the padding rows' zero-check), a layer slice, an argmax feeding a later op;
 *   - malicious provers keeping the transcript consistent are rejected, each by ONE
 *     check: a max one above the true max with everything recomputed (attainment), a
 *     max below an entry (range of D), an argmax at a later tied index (range of D: the
 *     tie-break), an argmax at a non-maximal entry (attainment; or, with the max
 *     recomputed from it, the range of D), a one-hot with two ones (row identity), a
 *     mark moved to padding (zero-check), junk in the padding rows of the output (the
 *     rows' zero-check), a changed round message, a changed claimed output;
 *   - the checked prover refuses inconsistent traces with a message;
 *   - the boundary widths: the widest input width each op proves, one more refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/ops/maxarg.h"
#include "runtime/ops/op.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/prove.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

typedef struct {
    ez_pfx f;
    size_t op;         /* the (last) max or argmax */
    int64_t claim_add; /* op-alone harness: added to the output claim's value (a false claim) */
} mxt;

static void mxt_compile(mxt *m, const char *src, ez_op_kind kind)
{
    m->claim_add = 0;
    ez_pfx_compile(&m->f, src);
    m->op = ez_pfx_last_op(&m->f.plan, kind);
}

/* Kinds of rows (a row: a run of the input's last axis). */
enum { ROW_RANDOM, ROW_TIES, ROW_CONST, ROW_LOW, ROW_HIGH, ROW_LAST, ROW_KINDS };

/* Values of every input: `small` draws from {-2..2} (ties everywhere); otherwise rows cycle
 * through the kinds: random in [-lim, lim]; the max lim at entries 1 and T-2 (a tie; the
 * first at 1); all equal; at the bottom of the width (-B, -B+1, -B+2: negative and tied);
 * at its top (B-1 .. B-5); a unique max lim at the last entry with the runner-up lim-1 at
 * entry 0. Weights random. */
typedef struct {
    int64_t lim;
    bool small;
} row_cases;

static int64_t row_case_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    const row_cases *c = ctx;
    uint64_t T = t->rank ? t->dims[t->rank - 1] : 1, row = e / T, j = e % T;
    int64_t B = (int64_t)t->bound, l = c->lim > B - 1 ? B - 1 : c->lim;
    int64_t x = (int64_t)(r % (uint64_t)(2 * l + 1)) - l;
    if (t->kind == EZ_TENSOR_INPUT && c->small)
        return (int64_t)(r % 5) - 2;
    if (t->kind != EZ_TENSOR_INPUT)
        return x;
    switch (row % ROW_KINDS) {
    case ROW_TIES: return (j == 1 || j + 2 == T) ? l : (int64_t)(r % (uint64_t)(2 * l)) - l;
    case ROW_CONST: return l / 3;
    case ROW_LOW: return -B + (int64_t)(r % 3);
    case ROW_HIGH: return B - 1 - (int64_t)(r % 5);
    case ROW_LAST: return j + 1 == T ? l : j == 0 ? l - 1 : (int64_t)(r % (uint64_t)(2 * l - 1)) - l;
    default: return x;
    }
}

static void mxt_run(mxt *m, const char *seed, int64_t lim, bool small)
{
    row_cases c = {lim, small};
    ez_pfx_run_values(&m->f, seed, row_case_value, &c);
}

static void mxt_free(mxt *m)
{
    ez_pfx_free(&m->f);
}

#define SRC(OP, R, T, BITS)                                                                                            \
    "model mx\nparam R = " #R ", T = " #T "\nbits " #BITS "\ninput x[R, T]\ny[r] = " OP "[t](x[r, t])\noutput y\n"
/* An argmax whose result is not public: it feeds an einsum (ARGMAX then commits its
 * result and the mark, docs/protocol-argmax.md §2). */
#define SRC_HID(R, T, BITS)                                                                                            \
    "model mx\nparam R = " #R ", T = " #T ", D = 3\nbits " #BITS "\ninput x[R, T]\nweight w[D]\n"                    \
    "a[r] = argmax[t](x[r, t])\nz[r, d] = a[r] * w[d]\noutput z\n"

/* After a test changed the op's result or aux: the later ops recomputed from it, so the
 * trace stays consistent everywhere else. */
static void mxt_rerun_after(mxt *m)
{
    ez_diag d = {{0}};
    for (size_t i = m->op + 1; i < m->f.plan.nops; i++)
        ck_assert_msg(ez_exec_op(&m->f.plan, i, &m->f.tr, &d) == EZ_OK, "%s", d.msg);
}

/* ---- honest provers ---------------------------------------------------------------------- */

static void honest(const char *src, ez_op_kind kind, const char *seed, int64_t lim, bool small)
{
    mxt m;
    ez_diag why = {{0}};
    mxt_compile(&m, src, kind);
    mxt_run(&m, seed, lim, small);
    ck_assert_msg(ez_pfx_prove_verify(&m.f, false, &why), "%s: rejected: %s", seed, why.msg);
    mxt_free(&m);
}

/* Both ops on the row kinds, and with `small` also on ties everywhere. */
static void honest_both(const char *src_max, const char *src_arg, const char *seed, int64_t lim, bool small)
{
    char s[96];
    snprintf(s, sizeof s, "%s/max", seed);
    honest(src_max, EZ_OP_MAX, s, lim, false);
    snprintf(s, sizeof s, "%s/argmax", seed);
    honest(src_arg, EZ_OP_ARGMAX, s, lim, false);
    if (!small)
        return;
    snprintf(s, sizeof s, "%s/max-small", seed);
    honest(src_max, EZ_OP_MAX, s, lim, true);
    snprintf(s, sizeof s, "%s/argmax-small", seed);
    honest(src_arg, EZ_OP_ARGMAX, s, lim, true);
}

/* Row lengths that are not powers of two, one row, many rows, single-entry rows; every
 * row kind (ties, all equal, negative, the width's ends) and ties everywhere. */
START_TEST(test_honest_shapes)
{
    honest_both(SRC("max", 12, 7, 24), SRC("argmax", 12, 7, 24), "12x7", 1 << 20, true);
    honest_both(SRC("max", 1, 9, 24), SRC("argmax", 1, 9, 24), "1x9", 1 << 12, false);
    honest_both(SRC("max", 37, 6, 16), SRC("argmax", 37, 6, 16), "37x6", 1 << 10, true);
    honest_both(SRC("max", 6, 1, 24), SRC("argmax", 6, 1, 24), "6x1", 1 << 12, false);
    honest_both(SRC("max", 1, 1, 24), SRC("argmax", 1, 1, 24), "1x1", 1 << 12, false);
    honest_both(SRC("max", 6, 16, 12), SRC("argmax", 6, 16, 12), "6x16", 1 << 8, false);
    honest_both(SRC("max", 3, 300, 32), SRC("argmax", 3, 300, 32), "3x300", INT64_C(1) << 30, false);
}
END_TEST

/* Private argmax results (committed, with the mark and the row identity). */
START_TEST(test_honest_shapes_private)
{
    honest(SRC_HID(12, 7, 24), EZ_OP_ARGMAX, "hid_12x7", 1 << 20, false);
    honest(SRC_HID(12, 7, 24), EZ_OP_ARGMAX, "hid_12x7_small", 1 << 20, true);
    honest(SRC_HID(1, 9, 24), EZ_OP_ARGMAX, "hid_1x9", 1 << 12, false);
    honest(SRC_HID(6, 1, 24), EZ_OP_ARGMAX, "hid_6x1", 1 << 12, false);
    honest(SRC_HID(1, 1, 24), EZ_OP_ARGMAX, "hid_1x1", 1 << 12, false);
    honest(SRC_HID(3, 300, 32), EZ_OP_ARGMAX, "hid_3x300", INT64_C(1) << 30, false);
}
END_TEST

/* The reduced axis first, an output with its axes permuted, rows with interior padding
 * (the row shape [2, 5] is laid out as [2, 8]), a layer slice, and argmax feeding an
 * einsum and both results as outputs. */
START_TEST(test_honest_layouts)
{
    honest_both("model mx\nparam S = 5, T = 6\ninput x[T, S]\ny[s] = max[t](x[t, s])\noutput y\n",
                "model mx\nparam S = 5, T = 6\ninput x[T, S]\ny[s] = argmax[t](x[t, s])\noutput y\n", "axis_first",
                1 << 14, false);
    honest_both("model mx\nparam B = 3, S = 5, T = 7\ninput x[S, B, T]\ny[b, s] = max[t](x[s, b, t])\noutput y\n",
                "model mx\nparam B = 3, S = 5, T = 7\ninput x[S, B, T]\ny[b, s] = argmax[t](x[s, b, t])\noutput y\n",
                "permuted", 1 << 14, false);
    honest_both("model mx\nparam B = 2, S = 5, T = 6\ninput x[B, S, T]\ny[b, s] = max[t](x[b, s, t])\noutput y\n",
                "model mx\nparam B = 2, S = 5, T = 6\ninput x[B, S, T]\ny[b, s] = argmax[t](x[b, s, t])\noutput y\n",
                "rowpad", 1 << 14, true);
    honest_both("model mx\nparam B = 3, S = 5, T = 6\ninput x[B, T, S]\ny[b, s] = max[t](x[b, t, s])\noutput y\n",
                "model mx\nparam B = 3, S = 5, T = 6\ninput x[B, T, S]\ny[b, s] = argmax[t](x[b, t, s])\noutput y\n",
                "middle_axis", 1 << 14, false);
    honest_both("model mx\nparam L = 3, S = 5, T = 6\ninput x[L, S, T]\ny[s] = max[t](x[1, s, t])\noutput y\n",
                "model mx\nparam L = 3, S = 5, T = 6\ninput x[L, S, T]\ny[s] = argmax[t](x[1, s, t])\noutput y\n",
                "slice", 1 << 14, false);
    honest("model mx\nparam S = 5, V = 11, D = 4\ninput x[S, V]\nweight w[D]\n"
           "a[s] = argmax[v](x[s, v])\nm[s] = max[v](x[s, v])\nz[s, d] = a[s] * w[d]\noutput z, a, m\n",
           EZ_OP_ARGMAX, "feeds_einsum", 1 << 10, false);
}
END_TEST

/* Private argmax results in the same layouts. */
START_TEST(test_honest_layouts_private)
{
    const char *hid[] = {
        "model mx\nparam S = 5, T = 6, D = 2\ninput x[T, S]\nweight w[D]\ny[s] = argmax[t](x[t, s])\n"
        "z[s, d] = y[s] * w[d]\noutput z\n",
        "model mx\nparam B = 3, S = 5, T = 7, D = 2\ninput x[S, B, T]\nweight w[D]\ny[b, s] = argmax[t](x[s, b, t])\n"
        "z[b, s, d] = y[b, s] * w[d]\noutput z\n",
        "model mx\nparam B = 2, S = 5, T = 6, D = 2\ninput x[B, S, T]\nweight w[D]\ny[b, s] = argmax[t](x[b, s, t])\n"
        "z[b, s, d] = y[b, s] * w[d]\noutput z\n",
        "model mx\nparam B = 3, S = 5, T = 6, D = 2\ninput x[B, T, S]\nweight w[D]\ny[b, s] = argmax[t](x[b, t, s])\n"
        "z[b, s, d] = y[b, s] * w[d]\noutput z\n",
        "model mx\nparam L = 3, S = 5, T = 6, D = 2\ninput x[L, S, T]\nweight w[D]\ny[s] = argmax[t](x[1, s, t])\n"
        "z[s, d] = y[s] * w[d]\noutput z\n",
    };
    for (size_t k = 0; k < sizeof hid / sizeof hid[0]; k++)
        honest(hid[k], EZ_OP_ARGMAX, "hid_layout", 1 << 14, k == 2);
}
END_TEST

/* ---- malicious provers through the whole pipeline --------------------------------------- */

/* Prove tr with the checked prover (refused, message contains want_checked) and with the
 * unchecked one (the proof is rejected, the reason contains want_reason). */
static void refused_and_rejected(mxt *m, const char *want_checked, const char *want_reason)
{
    mxt_rerun_after(m);
    ez_pfx_expect_refused(&m->f, want_checked, want_reason);
}

/* A max one above the true max of a row, everything else recomputed from it (the claimed
 * output is the raised value, the argmax aux kept): every d >= 1 is in range, only
 * attainment fails. */
START_TEST(test_max_not_attained)
{
    mxt m;
    mxt_compile(&m, SRC("max", 6, 7, 24), EZ_OP_MAX);
    mxt_run(&m, "max_not_attained", 1 << 12, false);
    m.f.tr.t[m.f.plan.ops[m.op].out][ROW_RANDOM] += 1;
    refused_and_rejected(&m, "not attained", "zero-check");
    mxt_free(&m);
}
END_TEST

/* A max one below the true max of a row (the runner-up's value, so the mark moved to it
 * attains it): only the distance at the max entry, -1, fails its range. */
START_TEST(test_max_below_an_entry)
{
    mxt m;
    mxt_compile(&m, SRC("max", 6, 7, 24), EZ_OP_MAX);
    mxt_run(&m, "max_below", 1 << 12, false);
    m.f.tr.t[m.f.plan.ops[m.op].out][ROW_LAST] -= 1;
    ck_assert_int_eq(m.f.tr.ops[m.op].aux[EZ_AUX_ROW_ARG][ROW_LAST], 6);
    m.f.tr.ops[m.op].aux[EZ_AUX_ROW_ARG][ROW_LAST] = 0;
    refused_and_rejected(&m, "outside [0, 2^", "lookups");
    mxt_free(&m);
}
END_TEST

/* The argmax of a row with a tie at the max (entries 1 and T-2) moved to the later one:
 * the key of entry 1 is 2^nt * 0 + 1 - (T-2) < 0. */
START_TEST(test_argmax_later_tie)
{
    const char *srcs[] = {SRC("argmax", 6, 7, 24), SRC_HID(6, 7, 24)}; /* public result, committed result */
    for (int k = 0; k < 2; k++) {
        mxt m;
        mxt_compile(&m, srcs[k], EZ_OP_ARGMAX);
        mxt_run(&m, "argmax_later_tie", 1 << 12, false);
        int64_t *a = m.f.tr.t[m.f.plan.ops[m.op].out];
        ck_assert_int_eq(a[ROW_TIES], 1);
        a[ROW_TIES] = 7 - 2;
        refused_and_rejected(&m, "outside [0, 2^", "lookups");
        /* and at the far end: ties everywhere (an all-equal row), the last index claimed */
        mxt_free(&m);
        mxt_compile(&m, srcs[k], EZ_OP_ARGMAX);
        mxt_run(&m, "argmax_later_tie2", 1 << 12, false);
        a = m.f.tr.t[m.f.plan.ops[m.op].out];
        ck_assert_int_eq(a[ROW_CONST], 0);
        a[ROW_CONST] = 6;
        refused_and_rejected(&m, "outside [0, 2^", "lookups");
        mxt_free(&m);
    }
}
END_TEST

/* The argmax moved to a non-maximal entry before the max (the max kept): every key stays
 * >= 0, the mark sits on a nonzero key — attainment fails. With the max recomputed from
 * the claimed entry instead, the key of the true max goes negative. */
START_TEST(test_argmax_non_maximal)
{
    const char *srcs[] = {SRC("argmax", 6, 7, 24), SRC_HID(6, 7, 24)};
    for (int k = 0; k < 2; k++) {
        mxt m;
        mxt_compile(&m, srcs[k], EZ_OP_ARGMAX);
        mxt_run(&m, "argmax_non_max", 1 << 12, false);
        int64_t *a = m.f.tr.t[m.f.plan.ops[m.op].out];
        ck_assert_int_eq(a[ROW_LAST], 6);
        a[ROW_LAST] = 2;
        refused_and_rejected(&m, "not attained", "zero-check");
        mxt_free(&m);
        mxt_compile(&m, srcs[k], EZ_OP_ARGMAX);
        mxt_run(&m, "argmax_non_max2", 1 << 12, false);
        const ez_plan_op *o = &m.f.plan.ops[m.op];
        a = m.f.tr.t[o->out];
        a[ROW_LAST] = 2;
        m.f.tr.ops[m.op].aux[EZ_AUX_ROW_MAX][ROW_LAST] = m.f.tr.t[o->in[0]][ROW_LAST * 7 + 2];
        refused_and_rejected(&m, "outside [0, 2^", "lookups");
        mxt_free(&m);
    }
}
END_TEST

/* A result outside the row (ARGMAX = T): the mark has nowhere to go, and the key of the
 * row's maximum, t* - T, is negative (the range lookups reject first; a public result is
 * also checked in [0, T) by the verifier). */
START_TEST(test_argmax_outside_row)
{
    const char *srcs[] = {SRC("argmax", 6, 7, 24), SRC_HID(6, 7, 24)};
    const char *why[] = {"statement: output", "lookups"}; /* a public result: its bound */
    for (int k = 0; k < 2; k++) {
        mxt m;
        mxt_compile(&m, srcs[k], EZ_OP_ARGMAX);
        mxt_run(&m, "argmax_outside", 1 << 12, false);
        m.f.tr.t[m.f.plan.ops[m.op].out][ROW_RANDOM] = 7;
        refused_and_rejected(&m, "outside the row", why[k]);
        mxt_free(&m);
    }
}
END_TEST

/* The proof of an honest trace, then every walk field element and a sample of the
 * lookups flipped one at a time, then the claimed output changed. */
static void changed_messages(const char *src, ez_op_kind kind)
{
    mxt m;
    ez_diag why = {{0}}, d = {{0}};
    mxt_compile(&m, src, kind);
    mxt_run(&m, "changed_msg", 1 << 12, false);
    ez_proof pf;
    ck_assert_msg(ez_pfx_prove_status(&m.f, false, &pf, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_pfx_verify(&m.f, &pf, &why), "%s", why.msg);
    /* the walk is the op's alone */
    ck_assert_uint_gt(ez_pfx_flip_section(&m.f, &pf, EZ_PF_SEC_WALK, 3, 16), 20);
    ez_pfx_flip_section(&m.f, &pf, EZ_PF_SEC_LOOKUPS, 5, pf.sec[EZ_PF_SEC_LOOKUPS].len / 30 + 1);
    ez_stmt_tensor *st = ez_pfx_stmt_tensor(&pf, m.f.plan.ops[m.op].out); /* the op's result, or the model's output */
    for (size_t i = 0; st == NULL && i < pf.stmt.n; i++)
        if (m.f.plan.tensors[pf.stmt.t[i].tensor].is_output)
            st = &pf.stmt.t[i];
    ck_assert_ptr_nonnull(st);
    for (uint64_t e = 0; e < st->n; e++)
        ez_pfx_changed_stmt(&m.f, &pf, st, e);
    ez_proof_clear(&pf);
    mxt_free(&m);
}

START_TEST(test_changed_round_message_and_output)
{
    changed_messages(SRC("max", 6, 7, 24), EZ_OP_MAX);
    changed_messages(SRC("argmax", 6, 7, 24), EZ_OP_ARGMAX);
    changed_messages(SRC_HID(6, 7, 24), EZ_OP_ARGMAX);
    /* with the padding rows' zero-check */
    changed_messages("model mx\nparam B = 2, S = 3, T = 6\ninput x[B, S, T]\ny[b, s] = max[t](x[b, s, t])\noutput y\n",
                     EZ_OP_MAX);
    changed_messages("model mx\nparam B = 2, S = 3, T = 6, D = 2\ninput x[B, S, T]\nweight w[D]\n"
                     "a[b, s] = argmax[t](x[b, s, t])\nz[b, s, d] = a[b, s] * w[d]\noutput z\n",
                     EZ_OP_ARGMAX);
}
END_TEST

/* ---- the op alone, with an ideal commitment: tampering committed polys ----------------
 * The op's own prove/verify on a prover and a verifier context sharing the bytes; range
 * lookups checked by membership, the claims the verifier leaves on advice and on x by
 * evaluating the committed polys and the true x (an ideal commitment and claim flow). A
 * tamper callback edits the committed polys between the fill and the proof. */
typedef void (*mxt_tamper)(mxt *m, size_t first, ez_fe **polys);

/* The op-alone models: bits 12 (D, A and M one limb each: local polys MAX D, Z, M and
 * ARGMAX D, Z, A, M; a public ARGMAX D, M), T = 6 padded to 8: element (r, t) at 8 r + t.
 * The ARGMAX models keep the result private (a dead op beside a max: the harness proves
 * it directly), except SRC_ALONE("argmax"), whose result is public. */
#define SRC_ALONE(OP) SRC(OP, 6, 6, 12)
#define SRC_ALONE_ARG                                                                                                  \
    "model mx\nparam R = 6, T = 6\nbits 12\ninput x[R, T]\na[r] = argmax[t](x[r, t])\ny[r] = max[t](x[r, t])\n"      \
    "output y\n"
#define SRC_ALONE_PAD(OP)                                                                                              \
    "model mx\nparam B = 2, S = 5, T = 6\nbits 12\ninput x[B, S, T]\na[b, s] = " OP "[t](x[b, s, t])\n"             \
    "y[b, s] = max[t](x[b, s, t])\noutput y\n"
enum { Q_D, Q_Z, Q_ROW, Q_PUB_M = 1 };
#define PE(r, t) ((uint64_t)(r) * 8 + (uint64_t)(t))

/* The forging prover; ctx points to the forgery. */
static ez_status prove_forged(ez_pctx *c, size_t op, const ez_claim *out, void *ctx)
{
    return ez_maxarg_prove_forged(c, op, out, *(const ez_maxarg_forge *)ctx, NULL);
}

/* Returns the verdict; *claims_ok / *ranges_ok report the ideal checks. With
 * claim_from_poly the output claim's value is the committed output poly's MLE (what an
 * upstream forgery would need) instead of the true output's. */
static bool mxt_op_alone(mxt *m, mxt_tamper tamper, ez_maxarg_forge forge, bool claim_from_poly, bool *claims_ok,
                         bool *ranges_ok, ez_diag *why)
{
    ez_pfx *f = &m->f;
    ez_advice_layout L;
    ez_fe **polys = ez_pfx_advice(&L, &f->plan, &f->tr, m->op);
    size_t first = ez_pfx_first_op_poly(&L, m->op);
    if (tamper)
        tamper(m, first, polys);
    *ranges_ok = ez_pfx_lookups_hold(&L, polys, &f->plan, &f->tr, m->op);
    /* the output claim at a random point (the output's axes are the rows' in order) */
    const ez_plan_op *o = &f->plan.ops[m->op];
    const ez_plan_tensor *to = &f->plan.tensors[o->out];
    ez_rng rng = ez_rng_for("op_alone");
    ez_claim out;
    ez_pfx_random_claim(&out, to, NULL, &rng);
    bool pub = o->kind == EZ_OP_ARGMAX && to->is_output;
    if (claim_from_poly && !pub) {
        size_t q = first + Q_ROW; /* M (MAX: D, Z, M) / A (ARGMAX: D, Z, A, M) */
        out.value = ez_mle_eval_fe(polys[q], (size_t)L.polys[q].len, out.point, out.nvars);
    } else {
        ck_assert_int_eq(ez_advice_tensor_eval(&out.value, f->tr.t[o->out], to, out.point), EZ_OK);
    }
    out.value = ez_fe2_add(out.value, ez_fe2_from_fe(ez_fe_from_i64(m->claim_add)));
    ez_statement stmt; /* a public argmax's result is read from it */
    memset(&stmt, 0, sizeof stmt);
    ck_assert_int_eq(ez_statement_from_trace(&stmt, &f->plan, f->tr.t), EZ_OK);
    ez_pfx_alone alone = {.label = "max-test", .stmt = &stmt, .prove = forge ? prove_forged : NULL, .ctx = &forge};
    size_t walk;
    bool ok = ez_pfx_op_alone(&f->plan, &f->tr, &L, polys, m->op, &out, &alone, claims_ok, &walk, why);
    ck_assert_uint_eq(walk, ez_op_walk_bytes(&f->plan, &L, m->op));
    ez_statement_clear(&stmt);
    ez_claim_clear(&out);
    ez_pfx_advice_free(&L, polys);
    return ok;
}


static void expect_rejected_forged(const char *src, ez_op_kind kind, const char *seed, mxt_tamper tamper,
                                   ez_maxarg_forge forge, bool claim_from_poly, const char *reason)
{
    mxt m;
    ez_diag why = {{0}};
    bool claims_ok, ranges_ok;
    mxt_compile(&m, src, kind);
    mxt_run(&m, seed, 1 << 8, false);
    bool ok = mxt_op_alone(&m, tamper, forge, claim_from_poly, &claims_ok, &ranges_ok, &why);
    ck_assert_msg(ranges_ok, "%s: the forgery should pass the range checks", seed);
    ck_assert_msg(!ok, "%s: accepted (claims %s)", seed, claims_ok ? "true" : "false");
    ck_assert_msg(strstr(why.msg, reason) != NULL, "%s: %s", seed, why.msg);
    mxt_free(&m);
}

static void expect_rejected(const char *src, ez_op_kind kind, const char *seed, mxt_tamper tamper,
                            bool claim_from_poly, const char *reason)
{
    expect_rejected_forged(src, kind, seed, tamper, NULL, claim_from_poly, reason);
}

START_TEST(test_op_alone_honest)
{
    const char *srcs[] = {SRC_ALONE("max"), SRC_ALONE_ARG, SRC_ALONE_PAD("max"), SRC_ALONE_PAD("argmax"),
                          SRC_ALONE("argmax")};
    const ez_op_kind kinds[] = {EZ_OP_MAX, EZ_OP_ARGMAX, EZ_OP_MAX, EZ_OP_ARGMAX, EZ_OP_ARGMAX};
    for (size_t k = 0; k < 5; k++) {
        mxt m;
        ez_diag why = {{0}};
        bool claims_ok, ranges_ok;
        mxt_compile(&m, srcs[k], kinds[k]);
        mxt_run(&m, "op_alone_honest", 1 << 8, false);
        ck_assert_msg(mxt_op_alone(&m, NULL, NULL, false, &claims_ok, &ranges_ok, &why), "%zu: %s", k, why.msg);
        ck_assert(claims_ok);
        ck_assert(ranges_ok);
        mxt_free(&m);
    }
}
END_TEST

/* MAX: a second mark at the tied entry of the row with a tie (entries 1 and 4): every
 * pointwise relation holds (both distances are 0), the row sums to 2. */
static void two_ones_tie(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    ck_assert_uint_eq(P[first + Q_Z][PE(ROW_TIES, 1)], 1);
    ck_assert_uint_eq(P[first + Q_D][PE(ROW_TIES, 4)], 0);
    P[first + Q_Z][PE(ROW_TIES, 4)] = 1;
}

/* ARGMAX: a second mark anywhere else (here the tied entry, whose key is 4 - 1 = 3). */
static void two_ones_arg(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    ck_assert_uint_eq(P[first + Q_Z][PE(ROW_TIES, 1)], 1);
    P[first + Q_Z][PE(ROW_TIES, 4)] = 1;
}

/* The mark of a row removed: no entry attains the max. */
static void no_mark(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    for (unsigned t = 0; t < 8; t++)
        P[first + Q_Z][PE(ROW_RANDOM, t)] = 0;
}

/* The mark of a row moved to a padding entry t = 7 whose distance is 0. */
static void mark_on_padding(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    for (unsigned t = 0; t < 8; t++)
        P[first + Q_Z][PE(ROW_RANDOM, t)] = 0;
    ck_assert_uint_eq(P[first + Q_D][PE(ROW_RANDOM, 7)], 0);
    P[first + Q_Z][PE(ROW_RANDOM, 7)] = 1;
}

/* The row max raised by one (every distance + 1, in range) with the mark moved to a
 * padding entry of distance 0: attainment by a padding entry. */
static void raised_max_mark_on_padding(mxt *m, size_t first, ez_fe **P)
{
    for (unsigned t = 0; t < 6; t++)
        P[first + Q_D][PE(ROW_RANDOM, t)] += 1;
    P[first + Q_ROW][ROW_RANDOM] += 1;
    mark_on_padding(m, first, P);
}

/* Junk in a padding row of the output poly (row (0, 6) of the row layout [2, 8]); the
 * output claim is taken from the committed poly, as an upstream forgery would need. */
static void padding_row_junk(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    ck_assert_uint_eq(P[first + Q_ROW][6], 0);
    P[first + Q_ROW][6] = 3;
}

/* ARGMAX over one-entry rows claiming position 1 with the max raised by one: with a key
 * shift of 2^nt = 1 the key (m + 1 - x) + 0 - 1 would stay 0 and pass; with 2^max(nt, 1)
 * the key relation fails. */
static void one_entry_shifted(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    ck_assert_uint_eq(P[first + Q_ROW][ROW_RANDOM], 0);
    P[first + Q_ROW][ROW_RANDOM] = 1;
    P[first + Q_ROW + 1][ROW_RANDOM] += 1;
}

START_TEST(test_op_alone_one_entry_rows)
{
    expect_rejected("model mx\nparam R = 6, T = 1\nbits 12\ninput x[R, T]\na[r] = argmax[t](x[r, t])\n"
                    "y[r] = max[t](x[r, t])\noutput y\n",
                    EZ_OP_ARGMAX, "one_entry", one_entry_shifted, true, "zero-check");
}
END_TEST

/* ---- provers that lie in one factor of a zero-check ------------------------------------
 * The witness breaks one relation; the prover edits the matching factor table so that
 * the sumcheck's sum is 0 and the transcript stays consistent: only the verifier's check
 * of that factor's final evaluation (against the committed atoms or its own selector)
 * rejects. */

/* The row max (MAX: M; ARGMAX: M + 2^(wm-1)) raised by one, nothing else: A1 != 0. */
static void raise_m(mxt *m, size_t first, ez_fe **P)
{
    const ez_plan_op *o = &m->f.plan.ops[m->op];
    bool arg = o->kind == EZ_OP_ARGMAX, pub = arg && m->f.plan.tensors[o->out].is_output;
    P[first + (pub ? Q_PUB_M : arg ? Q_ROW + 1 : Q_ROW)][ROW_RANDOM] += 1;
}

/* ARGMAX: the row's max raised by one with every key + 2^k (k = 3) and the mark moved to
 * a padding entry of key 0: A1 = 0, only the mark's factor D + 1 - S is nonzero. */
static void raised_arg_mark_on_padding(mxt *m, size_t first, ez_fe **P)
{
    for (unsigned t = 0; t < 6; t++)
        P[first + Q_D][PE(ROW_RANDOM, t)] += 8;
    P[first + Q_ROW + 1][ROW_RANDOM] += 1;
    mark_on_padding(m, first, P);
}

static void forge_a1_zero(void *ctx, unsigned which, ez_fe *const *tb, unsigned nt, uint64_t len)
{
    (void)ctx, (void)nt;
    if (which == 0)
        memset(tb[1], 0, len * sizeof(ez_fe));
}

static void forge_s_zero(void *ctx, unsigned which, ez_fe *const *tb, unsigned nt, uint64_t len)
{
    (void)ctx, (void)nt;
    if (which == 0)
        memset(tb[0], 0, len * sizeof(ez_fe));
}

static void forge_l2_at_marks(void *ctx, unsigned which, ez_fe *const *tb, unsigned nt, uint64_t len)
{
    (void)ctx, (void)nt;
    if (which == 0)
        for (uint64_t i = 0; i < len; i++)
            if (tb[2][i] != 0)
                tb[3][i] = 0;
}

static void forge_rows_selector_zero(void *ctx, unsigned which, ez_fe *const *tb, unsigned nt, uint64_t len)
{
    (void)ctx, (void)nt;
    if (which == 1)
        memset(tb[0], 0, len * sizeof(ez_fe));
}

/* MAX: the row max and every distance of the row raised by one (the mark stays, now at
 * distance 1), the prover's Z table zeroed: the op's own checks pass and the claim it
 * leaves on the committed Z is false (the opening rejects it). */
static void raise_m_and_d(mxt *m, size_t first, ez_fe **P)
{
    (void)m;
    for (unsigned t = 0; t < 6; t++)
        P[first + Q_D][PE(ROW_RANDOM, t)] += 1;
    P[first + Q_ROW][ROW_RANDOM] += 1;
}

static void forge_z_zero(void *ctx, unsigned which, ez_fe *const *tb, unsigned nt, uint64_t len)
{
    (void)ctx, (void)nt;
    if (which == 0)
        memset(tb[2], 0, len * sizeof(ez_fe));
}

START_TEST(test_op_alone_forged_mark)
{
    mxt m;
    ez_diag why = {{0}};
    bool claims_ok, ranges_ok;
    mxt_compile(&m, SRC_ALONE("max"), EZ_OP_MAX);
    mxt_run(&m, "forge_z", 1 << 8, false);
    bool ok = mxt_op_alone(&m, raise_m_and_d, forge_z_zero, true, &claims_ok, &ranges_ok, &why);
    ck_assert(ranges_ok);
    ck_assert_msg(ok, "%s", why.msg);
    ck_assert(!claims_ok);
    mxt_free(&m);
}
END_TEST

/* Public ARGMAX: the result of a row moved to a non-maximal entry (the statement says so,
 * the distances are recomputed from it, all >= 0) with the prover's mark table zeroed,
 * or its L2 zeroed under the mark: the sum is 0 and only the verifier's own one-hot of
 * the statement, or its recomputation of L2, rejects. */
static void pub_forged(ez_maxarg_forge forge, const char *reason)
{
    mxt m;
    ez_diag why = {{0}};
    bool claims_ok, ranges_ok;
    mxt_compile(&m, SRC_ALONE("argmax"), EZ_OP_ARGMAX);
    mxt_run(&m, "pub_forged", 1 << 8, false);
    int64_t *a = m.f.tr.t[m.f.plan.ops[m.op].out];
    ck_assert_int_eq(a[ROW_LAST], 5);
    a[ROW_LAST] = 2;
    bool ok = mxt_op_alone(&m, NULL, forge, false, &claims_ok, &ranges_ok, &why);
    ck_assert(ranges_ok);
    ck_assert_msg(!ok, "accepted");
    ck_assert_msg(strstr(why.msg, reason) != NULL, "%s", why.msg);
    mxt_free(&m);
}

/* The mark of the row ROW_LAST put back at its true argmax 5 (the prover's tables found no
 * entry 13 to mark). */
static void forge_mark_true_arg(void *ctx, unsigned which, ez_fe *const *tb, unsigned nt, uint64_t len)
{
    (void)ctx, (void)nt, (void)len;
    if (which == 0)
        tb[2][PE(ROW_LAST, 5)] = 1;
}

/* Public ARGMAX claiming 5 + 2^nt = 13 for a row whose argmax is 5, with its max raised
 * by one: every key 2^k (m + 1 - x) + t - 13 equals the honest one and the one-hot of 13's
 * low bits marks entry 5 — only the verifier's check that the statement's result lies in
 * [0, T) rejects (M is not range-checked when the result is public). */
static void pub_aliased(mxt *m)
{
    const ez_plan_op *o = &m->f.plan.ops[m->op];
    int64_t *a = m->f.tr.t[o->out];
    ck_assert_int_eq(a[ROW_LAST], 5);
    a[ROW_LAST] = 5 + 8;
    m->f.tr.ops[m->op].aux[EZ_AUX_ROW_MAX][ROW_LAST] += 1;
}

START_TEST(test_op_alone_public_argmax_forged)
{
    {
        mxt m;
        ez_diag why = {{0}};
        bool claims_ok, ranges_ok;
        mxt_compile(&m, SRC_ALONE("argmax"), EZ_OP_ARGMAX);
        mxt_run(&m, "pub_aliased", 1 << 8, false);
        pub_aliased(&m);
        bool ok = mxt_op_alone(&m, NULL, forge_mark_true_arg, false, &claims_ok, &ranges_ok, &why);
        ck_assert(ranges_ok);
        ck_assert_msg(!ok, "accepted");
        ck_assert_msg(strstr(why.msg, "outside its row") != NULL, "%s", why.msg);
        mxt_free(&m);
    }
    pub_forged(forge_z_zero, "not the one-hot of the public argmax");
    pub_forged(forge_l2_at_marks, "final evaluations do not match");
    expect_rejected_forged(SRC_ALONE("argmax"), EZ_OP_ARGMAX, "pub_forge_a1", raise_m, forge_a1_zero, false,
                           "final evaluations do not match");
    expect_rejected_forged(SRC_ALONE("argmax"), EZ_OP_ARGMAX, "pub_forge_s", raise_m, forge_s_zero, false,
                           "final evaluations do not match");
}
END_TEST

/* A false claim on the result (its value + 1), everything else honest: MAX and a private
 * ARGMAX leave a false claim on the committed result (the opening rejects it); a public
 * ARGMAX has nothing committed and checks the claim against the statement itself — the
 * only check when the claim comes from a consumer (a fan-out merge), not the statement. */
START_TEST(test_op_alone_false_claim)
{
    const char *srcs[] = {SRC_ALONE("max"), SRC_ALONE_ARG, SRC_ALONE("argmax")};
    const ez_op_kind kinds[] = {EZ_OP_MAX, EZ_OP_ARGMAX, EZ_OP_ARGMAX};
    for (size_t k = 0; k < 3; k++) {
        mxt m;
        ez_diag why = {{0}};
        bool claims_ok, ranges_ok;
        mxt_compile(&m, srcs[k], kinds[k]);
        mxt_run(&m, "false_claim", 1 << 8, false);
        m.claim_add = 1;
        bool ok = mxt_op_alone(&m, NULL, NULL, false, &claims_ok, &ranges_ok, &why);
        if (k < 2) {
            ck_assert_msg(ok, "%zu: %s", k, why.msg);
            ck_assert(!claims_ok);
        } else {
            ck_assert(!ok);
            ck_assert_msg(strstr(why.msg, "not the statement's") != NULL, "%s", why.msg);
        }
        mxt_free(&m);
    }
}
END_TEST

START_TEST(test_op_alone_forged_factors)
{
    const char *why = "final evaluations do not match";
    for (int k = 0; k < 2; k++) {
        ez_op_kind kind = k ? EZ_OP_ARGMAX : EZ_OP_MAX;
        const char *src = k ? SRC_ALONE_ARG : SRC_ALONE("max");
        const char *pad = k ? SRC_ALONE_PAD("argmax") : SRC_ALONE_PAD("max");
        expect_rejected_forged(src, kind, "forge_a1", raise_m, forge_a1_zero, true, why);
        expect_rejected_forged(src, kind, "forge_s", raise_m, forge_s_zero, true, why);
        expect_rejected_forged(src, kind, "forge_l2", k ? raised_arg_mark_on_padding : raised_max_mark_on_padding,
                               forge_l2_at_marks, true, why);
        expect_rejected_forged(pad, kind, "forge_rows", padding_row_junk, forge_rows_selector_zero, true,
                               "padding rows' selector");
    }
}
END_TEST

START_TEST(test_op_alone_one_hot_two_ones)
{
    expect_rejected(SRC_ALONE("max"), EZ_OP_MAX, "two_ones_max", two_ones_tie, false, "attainment marks do not sum to one");
    expect_rejected(SRC_ALONE_ARG, EZ_OP_ARGMAX, "two_ones_arg", two_ones_arg, false, "zero-check");
}
END_TEST

START_TEST(test_op_alone_mark_forged)
{
    expect_rejected(SRC_ALONE("max"), EZ_OP_MAX, "no_mark_max", no_mark, false, "attainment marks do not sum to one");
    expect_rejected(SRC_ALONE_ARG, EZ_OP_ARGMAX, "no_mark_arg", no_mark, false, "attainment marks do not sum to one");
    expect_rejected(SRC_ALONE("max"), EZ_OP_MAX, "pad_mark_max", mark_on_padding, false, "zero-check");
    expect_rejected(SRC_ALONE_ARG, EZ_OP_ARGMAX, "pad_mark_arg", mark_on_padding, false, "zero-check");
    expect_rejected(SRC_ALONE("max"), EZ_OP_MAX, "raised_pad_max", raised_max_mark_on_padding, true, "zero-check");
}
END_TEST

START_TEST(test_op_alone_padding_rows)
{
    expect_rejected(SRC_ALONE_PAD("max"), EZ_OP_MAX, "pad_rows_max", padding_row_junk, true, "padding rows");
    expect_rejected(SRC_ALONE_PAD("argmax"), EZ_OP_ARGMAX, "pad_rows_arg", padding_row_junk, true, "padding rows");
}
END_TEST

/* ---- boundary widths ----------------------------------------------------------------------
 * MAX: D = m - x needs bitlen(2B) <= 62 bits, B = 2^(w-1): widest input width 61.
 * ARGMAX: D = 2^nt (m - x) + t - a needs bitlen(2B) + nt <= 62: with T = 7 (nt = 3) the
 * widest width is 58. At the widest width the plan is sound and values at both ends of
 * the width prove (the top limbs full); one bit more is refused by the layout, naming
 * the op. */
static void boundary(ez_op_kind kind, unsigned wmax)
{
    char src[256];
    const char *op = kind == EZ_OP_MAX ? "max" : "argmax";
    for (unsigned w = wmax; w <= wmax + 1; w++) {
        mxt m;
        ez_diag d = {{0}}, why = {{0}};
        snprintf(src, sizeof src,
                 "model mx\nparam R = 12, T = 7\nbits %u\ninput x[R, T]\ny[r] = %s[t](x[r, t])\noutput y\n",
                 w, op);
        mxt_compile(&m, src, kind);
        ck_assert_msg(ez_plan_soundness(&m.f.plan, NULL, &d) == EZ_OK, "w=%u: %s", w, d.msg);
        mxt_run(&m, "boundary", INT64_C(1) << (w - 2), false);
        ez_proof pf;
        ez_status st = ez_pfx_prove_status(&m.f, false, &pf, &d);
        if (w == wmax) {
            ck_assert_msg(st == EZ_OK, "w=%u: %s", w, d.msg);
            ck_assert_msg(ez_pfx_verify(&m.f, &pf, &why), "w=%u: %s", w, why.msg);
            ez_proof_clear(&pf);
        } else {
            ck_assert_int_eq(st, EZ_ERR_UNSUPPORTED);
            ck_assert_msg(strstr(d.msg, "op 'y'") != NULL && strstr(d.msg, op) != NULL, "%s", d.msg);
        }
        mxt_free(&m);
    }
}

START_TEST(test_boundary_widths)
{
    boundary(EZ_OP_MAX, 61);
    boundary(EZ_OP_ARGMAX, 58);
}
END_TEST

/* MX-rowpad-claim: the padding rows' zero-check run over another output poly, nonzero on
 * two padding rows with the sum kept (prove_fixture.h ez_pfx_prove_forged): only the
 * claim on the committed output poly ties its final value to the commitment. */
START_TEST(test_op_rowpad_forged_output)
{
    mxt m;
    ez_diag why = {{0}};
    mxt_compile(&m, SRC_ALONE_PAD("max"), EZ_OP_MAX);
    mxt_run(&m, "rowpad_forged", 1 << 8, false);
    ck_assert(!ez_pfx_prove_forged(&m.f, NULL, 1, 2, 1, &why));
    ck_assert_str_eq(why.msg, "advice opening: the commitment does not open to the claimed values");
    mxt_free(&m);
}
END_TEST

Suite *ez_suite_ops_max(void)
{
    const TTest *tests[] = {test_op_rowpad_forged_output, test_honest_shapes, test_honest_shapes_private,
        test_honest_layouts, test_honest_layouts_private, test_max_not_attained, test_max_below_an_entry,
        test_argmax_later_tie, test_argmax_non_maximal, test_argmax_outside_row, test_changed_round_message_and_output,
        test_op_alone_honest, test_op_alone_one_hot_two_ones, test_op_alone_mark_forged, test_op_alone_padding_rows,
        test_op_alone_one_entry_rows, test_op_alone_forged_factors, test_op_alone_forged_mark,
        test_op_alone_public_argmax_forged, test_op_alone_false_claim, test_boundary_widths};
    return ez_test_suite("ops_max", "core", 120, tests, sizeof tests / sizeof tests[0]);
}

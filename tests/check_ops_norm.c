/* Suite "ops_norm": LAYERNORM, RMSNORM and RSQRT proven (runtime/ops/norm.c, rsqrt.c,
 * rsqrt.h; docs/protocol-norms.md) inside the whole-plan prover, on models whose norm input
 * is the public input (so every rejection below is the op's):
 *   - honest proofs verify: row lengths that are not powers of two, one row, rows of one
 *     entry, a normalised axis that is not the last, permuted output axes, a layer slice,
 *     input scales 12, 14 and 8, other output scales (a shift <= 0 included), rows of tiny,
 *     zero and large variance (k = 0 and k > 0), rsqrt elementwise (odd and even scales,
 *     positive, zero and negative inputs);
 *   - malicious provers, each keeping the transcript consistent and breaking ONE check: a
 *     mean off by one with the compensating remainder outside [0, N) (below 2^bN, so only
 *     the upper bound catches it) or negative, the same for the variance, a mantissa rounded
 *     down (negative remainder) or up twice (remainder >= 4^k), an exponent one too large
 *     (minimality witness negative) or too small (mantissa >= 2^16, not in the table), a
 *     wrong table value, a mantissa inconsistent with V, a wrong mean or variance remainder
 *     inside its range (the row identities), an output off by one with the compensating
 *     remainder, changed round messages, a changed claimed output; with an ideal commitment
 *     (the op alone): g doubled (G g = 2^kmax), the exponent's minimality bypassed through
 *     Z (Z (G^2 - 1) = 0) or through w (its defining relation), mg and rg off by one,
 *     rsqrt's sign bit forged (z^2 = z), a nonzero rsqrt output on a padding entry;
 *   - the boundary widths: the widest input the field margins allow proves, one bit more is
 *     refused by ez_plan_soundness. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/plan.h"
#include "lib/mle.h"
#include "runtime/exec/exec_op.h"
#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"
#include "runtime/ops/rsqrt.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/rangecheck.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

typedef __int128 i128;

/* ---- fixture ------------------------------------------------------------------------------ */

/* Row kinds of the inputs (rows along the last axis). */
enum { ROW_RANDOM, ROW_TINY, ROW_CONST, ROW_WIDE, ROW_KINDS };

/* Inputs row by row, cycling through the kinds: random in [-lim, lim]; tiny (|x| <= 40: V <
 * 2^16, so k = 0); constant (variance 0: V = E); wide (near +-bound: the largest k); weights
 * random in [-lim, lim]. Then run, commit the weights, prove their range. */
typedef struct {
    int64_t lim;
    int64_t c; /* the value at the start of the current row (ROW_CONST repeats it) */
} row_cases;

static int64_t row_case_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    row_cases *c = ctx;
    uint64_t T = t->rank ? t->dims[t->rank - 1] : 1, row = e / T;
    int64_t big = (int64_t)t->bound - 1, l = c->lim > big ? big : c->lim;
    int64_t x = (int64_t)(r % (uint64_t)(2 * l + 1)) - l;
    if (e % T == 0)
        c->c = x;
    if (t->kind != EZ_TENSOR_INPUT)
        return x;
    switch (row % ROW_KINDS) {
    case ROW_TINY: return (int64_t)(r % 81) - 40;
    case ROW_CONST: return c->c;
    case ROW_WIDE: return (r & 1) ? big - (int64_t)(r % 7) : -big + (int64_t)(r % 5);
    default: return x;
    }
}

static void nx_run(ez_pfx *f, const char *seed, int64_t lim)
{
    row_cases c = {lim, 0};
    ez_pfx_run_values(f, seed, row_case_value, &c);
}

/* Compile, check the plan is sound, run, prove (checked) and verify. */
static void honest(const char *src, const char *seed, int64_t lim)
{
    row_cases c = {lim, 0};
    ez_pfx_honest(src, seed, row_case_value, &c);
}


#define SRC_NORM(KIND, R, N)                                                                                           \
    "model nm\nparam R = " #R ", N = " #N "\nscale 12\ninput x[R, N]\nn[s, d] = " KIND "[d](x[s, d])\noutput n\n"

/* kmax and sh of the plan's norm (rsqrt.h, docs/protocol-norms.md §2.1). */
static void nx_consts(const ez_pfx *f, size_t op, unsigned *kmax, int *sh, int64_t *E)
{
    const ez_plan_op *o = &f->plan.ops[op];
    uint64_t B = f->plan.tensors[o->in[0]].bound;
    *E = ez_exec_norm_eps(o->in_scale);
    *kmax = ez_rsq_kmax(B * B + (o->kind == EZ_OP_LAYERNORM) + (uint64_t)*E);
    *sh = EZ_RSQRT_TABLE_SCALE + (int)*kmax - (int)o->out_scale;
}

/* ---- honest provers ---------------------------------------------------------------------- */

START_TEST(test_honest_shapes)
{
    const char *kinds[] = {"layernorm", "rmsnorm"};
    for (int k = 0; k < 2; k++) {
        char src[512], seed[64];
        const unsigned shapes[][2] = {{5, 12}, {8, 7}, {1, 16}, {6, 1}, {3, 33}};
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            snprintf(src, sizeof src,
                     "model nm\nparam R = %u, N = %u\nscale 12\ninput x[R, N]\nn[s, d] = %s[d](x[s, d])\noutput n\n",
                     shapes[i][0], shapes[i][1], kinds[k]);
            snprintf(seed, sizeof seed, "%s_%ux%u", kinds[k], shapes[i][0], shapes[i][1]);
            honest(src, seed, 1 << 14);
        }
        /* the normalised axis in the middle, and first; permuted output axes */
        snprintf(src, sizeof src,
                 "model nm\nparam H = 2, S = 5, D = 6\nscale 12\ninput x[H, S, D]\nn[h, s, d] = %s[s](x[h, s, d])\n"
                 "output n\n",
                 kinds[k]);
        honest(src, "middle_axis", 1 << 13);
        snprintf(src, sizeof src,
                 "model nm\nparam S = 3, D = 10\nscale 12\ninput x[D, S]\nn[d, s] = %s[d](x[d, s])\noutput n\n",
                 kinds[k]);
        honest(src, "first_axis", 1 << 13);
        snprintf(src, sizeof src,
                 "model nm\nparam S = 5, D = 12\nscale 12\ninput x[S, D]\nn[d, s] = %s[d](x[s, d])\noutput n\n",
                 kinds[k]);
        honest(src, "permuted", 1 << 13);
        /* a layer slice of a wider input */
        snprintf(src, sizeof src,
                 "model nm\nparam L = 3, S = 5, D = 12\nscale 12\ninput x[L, S, D]\nn[s, d] = %s[d](x[1, s, d])\n"
                 "output n\n",
                 kinds[k]);
        honest(src, "slice", 1 << 13);
    }
}
END_TEST

/* Input scales 14 and 8 (E = round(1e-5 4^s) = 2684 and 1), output scales 8 and 20 (a
 * shift of 11 + kmax and 3 + kmax), and an output scale 24 above 23 + kmax: y = c RG 2, no
 * remainder at all. */
START_TEST(test_honest_scales)
{
    honest("model nm\nparam R = 5, N = 12\nscale 12\ninput x[R, N] @scale(14)\nn[s, d] = layernorm[d](x[s, d])\n"
           "output n\n",
           "in14", 1 << 14);
    honest("model nm\nparam R = 5, N = 12\nscale 12\ninput x[R, N] @scale(8)\nn[s, d] = layernorm[d](x[s, d])\n"
           "output n\n",
           "in8", 1 << 10);
    honest("model nm\nparam R = 5, N = 12\nscale 12\ninput x[R, N] @scale(8)\nn[s, d] = rmsnorm[d](x[s, d])\n"
           "output n\n",
           "rms_in8", 1 << 10);
    honest("model nm\nparam R = 5, N = 12\nscale 8\ninput x[R, N] @scale(12)\nn[s, d] = layernorm[d](x[s, d])\n"
           "output n\n",
           "out8", 1 << 12);
    honest("model nm\nparam R = 5, N = 12\nscale 20\nbits 28\ninput x[R, N] @scale(12) @bits(16)\n"
           "n[s, d] = rmsnorm[d](x[s, d])\noutput n\n",
           "out20", 1 << 12);
    /* 8-bit input at scale 4: vmax = 2^14 + 2 < 2^16, kmax = 0, sh = 23 - 24 = -1 */
    ez_pfx f;
    ez_diag why = {{0}};
    ez_pfx_compile(&f, "model nm\nparam R = 5, N = 12\nscale 24\nbits 32\ninput x[R, N] @scale(4) @bits(8)\n"
                       "n[s, d] = layernorm[d](x[s, d])\noutput n\n");
    nx_run(&f, "sh_negative", 100);
    unsigned kmax;
    int sh;
    int64_t E;
    nx_consts(&f, 0, &kmax, &sh, &E);
    ck_assert_int_eq(sh, -1);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
    ez_pfx_free(&f);
}
END_TEST

/* Rows of tiny, zero, random and near-bound variance in one model: both k = 0 and k > 0
 * occur (and k = kmax on the widest rows). */
START_TEST(test_honest_variance)
{
    const char *srcs[] = {SRC_NORM("layernorm", 8, 12), SRC_NORM("rmsnorm", 8, 12)};
    for (int i = 0; i < 2; i++) {
        ez_pfx f;
        ez_diag why = {{0}};
        ez_pfx_compile(&f, srcs[i]);
        nx_run(&f, i ? "variance_rms" : "variance_ln", 1 << 12);
        const int64_t *k = ez_trace_aux(&f.tr, 0, EZ_AUX_NORM_EXP, NULL);
        ck_assert_int_eq(k[ROW_TINY], 0);
        if (i == 0)
            ck_assert_int_eq(k[ROW_CONST], 0); /* layernorm of a constant row: variance 0, V = E */
        ck_assert_int_gt(k[ROW_RANDOM], 0);
        ck_assert_int_gt(k[ROW_WIDE], k[ROW_RANDOM]);
        ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
        ez_pfx_free(&f);
    }
}
END_TEST

START_TEST(test_honest_rsqrt)
{
    /* even and odd input scales (s_e = 12, 14), output 12; inputs positive, zero, negative
     * and near the bound (k up to kmax) */
    honest("model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n", "rsqrt12",
           1 << 14);
    honest("model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N] @scale(13) @bits(24)\ny[s, d] = rsqrt(x[s, d])\n"
           "output y\n",
           "rsqrt13", 1 << 20);
    /* a small output scale (large shift), permuted axes, a slice */
    honest("model rs\nparam R = 4, N = 7\nscale 6\ninput x[R, N] @scale(12)\ny[d, s] = rsqrt(x[s, d])\noutput y\n",
           "rsqrt_perm", 1 << 14);
    honest("model rs\nparam L = 2, R = 3, N = 5\nscale 12\ninput x[L, R, N]\ny[s, d] = rsqrt(x[1, s, d])\n"
           "output y\n",
           "rsqrt_slice", 1 << 14);
    /* a hand-written rmsnorm: the mean square by an einsum, its rsqrt, the product */
    honest("model rs\nparam R = 4, N = 16\nscale 12\ninput x[R, N] @bits(12)\n"
           "m[s] = x[s, d] * x[s, d] / 16\nr[s] = rsqrt(m[s])\ny[s, d] = x[s, d] * r[s]\noutput y\n",
           "rsqrt_rms", 1 << 10);
}
END_TEST

/* ---- malicious provers: the trace edited row by row --------------------------------------- */

/* One row of a norm recomputed from chosen deviations, exactly as the semantics do
 * otherwise: the only false statement is the one the deviation makes. The model is
 * SRC_NORM (input and output [R, N], rows contiguous). */
typedef struct {
    int64_t dmu;   /* mu + dmu, a = S - N mu compensates */
    int64_t dv;    /* v + dv, b = Q - N v compensates */
    int dk;        /* k + dk with M = ceil(V / 4^k) re-derived */
    int64_t dM;    /* M + dM, mrem + dM 4^k compensates */
    int64_t dMv;   /* M + dMv, mrem unchanged (V = M 4^k - mrem broken) */
    int64_t dr;    /* r = T[M] + dr */
    int64_t da, db; /* a + da, b + db alone (the row identities broken) */
} nx_edit;

static void nx_recompute(ez_pfx *f, size_t op, uint64_t row, const nx_edit *e)
{
    const ez_plan_op *o = &f->plan.ops[op];
    const bool layer = o->kind == EZ_OP_LAYERNORM;
    const int64_t N = (int64_t)f->plan.tensors[o->in[0]].dims[1];
    unsigned kmax;
    int sh;
    int64_t E;
    nx_consts(f, op, &kmax, &sh, &E);
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build_rsqrt(&t, &d), EZ_OK);
    const int64_t *x = f->tr.t[o->in[0]] + row * N;
    int64_t *y = f->tr.t[o->out] + row * N, **aux = f->tr.ops[op].aux;
    i128 S = 0, Q = 0;
    for (int64_t j = 0; j < N; j++)
        S += x[j];
    int64_t mu = 0, a = 0;
    if (layer) {
        mu = (int64_t)(S / N) - (S % N < 0) + e->dmu;
        a = (int64_t)(S - (i128)N * mu) + e->da;
        aux[EZ_AUX_ROW_SUM][row] = (int64_t)S;
        aux[EZ_AUX_MEAN][row] = mu;
        aux[EZ_AUX_MEAN_REM][row] = a;
    }
    for (int64_t j = 0; j < N; j++)
        Q += (i128)(x[j] - mu) * (x[j] - mu);
    int64_t v = (int64_t)(Q / N) + e->dv, b = (int64_t)(Q - (i128)N * v) + e->db, V = v + E;
    int64_t M, mrem;
    unsigned k0;
    ez_rsqrt_split(V, &M, &k0, &mrem);
    int64_t k = (int64_t)k0 + e->dk;
    ck_assert_int_ge(k, 0);
    if (e->dk) {
        i128 p4 = (i128)1 << (2 * k);
        M = (int64_t)((V + p4 - 1) / p4);
        mrem = (int64_t)(M * p4 - V);
    }
    M += e->dM;
    mrem += e->dM * ((int64_t)1 << (2 * k));
    M += e->dMv;
    int64_t r = (M >= 0 && M < (int64_t)t.n ? t.out[M] : 0) + e->dr;
    aux[EZ_AUX_SUMSQ][row] = (int64_t)Q;
    aux[EZ_AUX_VAR][row] = v;
    aux[EZ_AUX_VAR_REM][row] = b;
    aux[EZ_AUX_NORM_EXP][row] = k;
    aux[EZ_AUX_MANTISSA][row] = M;
    aux[EZ_AUX_MANT_REM][row] = mrem;
    aux[EZ_AUX_RSQRT][row] = r;
    /* y = floor(c r 2^(kmax - k) / 2^sh), the remainder of the one public shift */
    for (int64_t j = 0; j < N; j++) {
        i128 crg = (i128)(x[j] - mu) * r * ((i128)1 << (kmax - k)), q;
        if (sh > 0) {
            q = crg >> sh;
            aux[EZ_AUX_REM][row * N + j] = (int64_t)(crg - q * ((i128)1 << sh));
        } else {
            q = crg * ((i128)1 << -sh);
        }
        y[j] = (int64_t)q;
    }
    ez_table_clear(&t);
}

/* The helper with no deviation reproduces the executor's row exactly. */
START_TEST(test_recompute_is_exact)
{
    const char *srcs[] = {SRC_NORM("layernorm", 8, 12), SRC_NORM("rmsnorm", 8, 12)};
    for (int i = 0; i < 2; i++) {
        ez_pfx f;
        ez_pfx_compile(&f, srcs[i]);
        nx_run(&f, "recompute", 1 << 13);
        size_t n = 8 * 12;
        int64_t *y = malloc(n * sizeof *y), *rem = malloc(n * sizeof *rem);
        memcpy(y, f.tr.t[f.plan.ops[0].out], n * sizeof *y);
        memcpy(rem, f.tr.ops[0].aux[EZ_AUX_REM], n * sizeof *rem);
        nx_edit e = {0};
        for (uint64_t r = 0; r < 8; r++)
            nx_recompute(&f, 0, r, &e);
        ck_assert(memcmp(y, f.tr.t[f.plan.ops[0].out], n * sizeof *y) == 0);
        ck_assert(memcmp(rem, f.tr.ops[0].aux[EZ_AUX_REM], n * sizeof *rem) == 0);
        free(y);
        free(rem);
        ez_pfx_free(&f);
    }
}
END_TEST

/* N = 12 (bN = 4): a + 12 < 16 needs a < 4. Find a row whose mean remainder is below 4
 * (and not a constant row, so the deviation matters). */
static uint64_t row_with_small(ez_pfx *f, ez_aux_kind kind, int64_t below, uint64_t nrows)
{
    for (uint64_t r = 0; r < nrows; r++)
        if (r % ROW_KINDS != ROW_CONST && f->tr.ops[0].aux[kind][r] < below)
            return r;
    return UINT64_MAX;
}

/* Run f on seeded data until some row has its `kind` remainder below `below` (each try
 * misses with probability about (1 - below/N)^rows: < 1 % for the tests' shapes). */
static uint64_t run_until_small(ez_pfx *f, const char *seed, ez_aux_kind kind, int64_t below, uint64_t nrows)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        char s[64];
        snprintf(s, sizeof s, "%s/%d", seed, attempt);
        if (attempt > 0) {
            ez_trace_clear(&f->tr);
            memset(&f->tr, 0, sizeof f->tr);
        }
        nx_run(f, s, 1 << 12);
        uint64_t r = row_with_small(f, kind, below, nrows);
        if (r != UINT64_MAX)
            return r;
    }
    ck_abort_msg("no row with a small remainder in 16 seeded runs");
    return 0;
}

/* mu - 1 with a + N in [N, 2^bN): the lower column a in [0, 2^bN) holds, only the upper
 * column a + 2^bN - N in [0, 2^bN) fails. mu + 1 with a - N < 0: the lower column fails. */
START_TEST(test_mean_remainder)
{
    for (int dir = -1; dir <= 1; dir += 2) {
        ez_pfx f;
        ez_pfx_compile(&f, SRC_NORM("layernorm", 16, 12));
        uint64_t r = run_until_small(&f, dir < 0 ? "mean_minus" : "mean_plus", EZ_AUX_MEAN_REM, 4, 16);
        nx_edit e = {.dmu = dir};
        nx_recompute(&f, 0, r, &e);
        int64_t a = f.tr.ops[0].aux[EZ_AUX_MEAN_REM][r];
        ck_assert(dir < 0 ? (a >= 12 && a < 16) : a < 0);
        ez_pfx_expect_refused(&f, "the mean's remainder", "lookups: the range-check argument failed");
        ez_pfx_free(&f);
    }
}
END_TEST

START_TEST(test_variance_remainder)
{
    const char *srcs[] = {SRC_NORM("layernorm", 16, 12), SRC_NORM("rmsnorm", 16, 12)};
    for (int i = 0; i < 2; i++)
        for (int dir = -1; dir <= 1; dir += 2) {
            ez_pfx f;
            ez_pfx_compile(&f, srcs[i]);
            uint64_t r = run_until_small(&f, dir < 0 ? "var_minus" : "var_plus", EZ_AUX_VAR_REM, 4, 16);
            nx_edit e = {.dv = dir};
            nx_recompute(&f, 0, r, &e);
            int64_t b = f.tr.ops[0].aux[EZ_AUX_VAR_REM][r];
            ck_assert(dir < 0 ? (b >= 12 && b < 16) : b < 0);
            ez_pfx_expect_refused(&f, "the variance's remainder", "lookups: the range-check argument failed");
            ez_pfx_free(&f);
        }
}
END_TEST

/* M - 1 with mrem - 4^k < 0 (rounded down); M + 1 with mrem + 4^k >= 4^k (rounded up twice:
 * mrem itself stays inside its 2 kmax bits, so only 4^k - 1 - mrem >= 0 catches it). */
START_TEST(test_mantissa_rounding)
{
    for (int dir = -1; dir <= 1; dir += 2) {
        ez_pfx f;
        ez_pfx_compile(&f, SRC_NORM("layernorm", 8, 12));
        nx_run(&f, dir < 0 ? "mant_down" : "mant_up", 1 << 12);
        uint64_t r = ROW_RANDOM; /* 0 < k < kmax */
        unsigned kmax;
        int sh;
        int64_t E;
        nx_consts(&f, 0, &kmax, &sh, &E);
        ck_assert_int_lt(f.tr.ops[0].aux[EZ_AUX_NORM_EXP][r], kmax);
        nx_edit e = {.dM = dir};
        nx_recompute(&f, 0, r, &e);
        ez_pfx_expect_refused(&f, dir < 0 ? "the mantissa's remainder" : "4^k - 1 - the mantissa's remainder",
                 "lookups: the range-check argument failed");
        ez_pfx_free(&f);
    }
}
END_TEST

/* k + 1 with M re-derived (everything else consistent): 4 V >= 65535 4^k + 4 fails, the
 * minimality witness is negative. k - 1: M = ceil(V / 4^(k-1)) >= 2^16 is no table row. */
START_TEST(test_wrong_exponent)
{
    ez_pfx f;
    ez_pfx_compile(&f, SRC_NORM("rmsnorm", 8, 12));
    nx_run(&f, "exp_plus", 1 << 12);
    ck_assert_int_eq(f.tr.ops[0].aux[EZ_AUX_NORM_EXP][ROW_TINY], 0);
    nx_edit e = {.dk = 1};
    nx_recompute(&f, 0, ROW_TINY, &e);
    ez_pfx_expect_refused(&f, "the exponent's minimality witness", "lookups: the range-check argument failed");
    ez_pfx_free(&f);

    ez_pfx_compile(&f, SRC_NORM("layernorm", 8, 12));
    nx_run(&f, "exp_minus", 1 << 12);
    ck_assert_int_gt(f.tr.ops[0].aux[EZ_AUX_NORM_EXP][ROW_RANDOM], 0);
    e = (nx_edit){.dk = -1};
    nx_recompute(&f, 0, ROW_RANDOM, &e);
    ck_assert_int_ge(f.tr.ops[0].aux[EZ_AUX_MANTISSA][ROW_RANDOM], 1 << 16);
    ez_pfx_expect_refused(&f, "not in its table", "lookups: the rsqrt table lookup failed");
    ez_pfx_free(&f);
}
END_TEST

/* r = T[M] + 1, the outputs recomputed from it. */
START_TEST(test_wrong_table_value)
{
    ez_pfx f;
    ez_pfx_compile(&f, SRC_NORM("layernorm", 8, 12));
    nx_run(&f, "table", 1 << 12);
    nx_edit e = {.dr = 1};
    nx_recompute(&f, 0, ROW_RANDOM, &e);
    ez_pfx_expect_refused(&f, "not in its table", "lookups: the rsqrt table lookup failed");
    ez_pfx_free(&f);
}
END_TEST

/* M + 1 and r = T[M + 1] with mrem unchanged: every range and the table hold, only
 * V = M 4^k - mrem (the block's zero-check) fails. */
START_TEST(test_mantissa_inconsistent)
{
    ez_pfx f;
    ez_pfx_compile(&f, SRC_NORM("layernorm", 8, 12));
    nx_run(&f, "mant_inconsistent", 1 << 12);
    nx_edit e = {.dMv = 1};
    nx_recompute(&f, 0, ROW_RANDOM, &e);
    ez_pfx_expect_refused(&f, NULL, "the layernorm rsqrt zero-check failed");
    ez_pfx_free(&f);
}
END_TEST

/* a + 1 (or b + 1) alone, inside [0, N): the row sum (or the sum of squares) no longer adds
 * up: the main sumcheck fails. */
START_TEST(test_row_identities)
{
    for (int which = 0; which < 2; which++) {
        ez_pfx f;
        ez_pfx_compile(&f, SRC_NORM("layernorm", 16, 12));
        nx_run(&f, which ? "row_b" : "row_a", 1 << 12);
        uint64_t r = row_with_small(&f, which ? EZ_AUX_VAR_REM : EZ_AUX_MEAN_REM, 11, 16);
        nx_edit e = {.da = which == 0, .db = which == 1};
        nx_recompute(&f, 0, r, &e);
        ez_pfx_expect_refused(&f, NULL, "the layernorm sumcheck (output, row sums) failed");
        ez_pfx_free(&f);
    }
}
END_TEST

/* y + 1 with rem - 2^sh (negative) and y - 1 with rem + 2^sh (>= 2^sh). */
START_TEST(test_output_off_by_one)
{
    const char *srcs[] = {SRC_NORM("layernorm", 8, 12), SRC_NORM("rmsnorm", 8, 12),
                          "model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n"};
    for (int i = 0; i < 3; i++)
        for (int dir = -1; dir <= 1; dir += 2) {
            ez_pfx f;
            ez_pfx_compile(&f, srcs[i]);
            nx_run(&f, dir < 0 ? "out_minus" : "out_plus", 1 << 12);
            unsigned kmax;
            int sh;
            int64_t E;
            if (i < 2) {
                nx_consts(&f, 0, &kmax, &sh, &E);
            } else {
                kmax = ez_rsq_kmax(f.plan.tensors[f.plan.ops[0].in[0]].bound);
                sh = EZ_RSQRT_TABLE_SCALE + (int)kmax - 12 - 6;
            }
            ck_assert_int_gt(sh, 0);
            int64_t *y = f.tr.t[f.plan.ops[0].out], *rem = f.tr.ops[0].aux[EZ_AUX_REM];
            size_t j = 5;
            y[j] += dir;
            rem[j] -= dir * ((int64_t)1 << sh);
            ez_pfx_expect_refused(&f, "outside", "lookups: the range-check argument failed");
            ez_pfx_free(&f);
        }
}
END_TEST

/* An honest proof, then every 16th byte of the walk (the norm's alone: rho, the messages,
 * both sumchecks) flipped one at a time, and the claimed output changed. */
START_TEST(test_changed_messages_and_output)
{
    const char *srcs[] = {SRC_NORM("layernorm", 5, 12),
                          "model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n"};
    for (int i = 0; i < 2; i++) {
        ez_pfx f;
        ez_diag why = {{0}};
        ez_pfx_compile(&f, srcs[i]);
        nx_run(&f, "changed", 1 << 12);
        ez_proof pf;
        ez_pfx_prove(&f, false, &pf);
        ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
        size_t len = pf.sec[EZ_PF_SEC_WALK].len;
        ck_assert_uint_gt(len, 512);
        ck_assert_uint_eq(ez_pfx_flip_section(&f, &pf, EZ_PF_SEC_WALK, 3, 16), (len - 3 + 15) / 16);
        ez_pfx_changed_stmt(&f, &pf, ez_pfx_stmt_tensor(&pf, f.plan.ops[0].out), 7);
        ez_proof_clear(&pf);
        ez_pfx_free(&f);
    }
}
END_TEST

/* ---- the op alone, with an ideal commitment: tampering committed polys ----------------
 * The op's own prove/verify on a prover and a verifier context sharing the bytes; the
 * lookups are checked by membership and the claims the verifier leaves (on advice and on
 * x) by evaluating the true data. A tamper edits the committed polys after the fill. */
typedef void (*nx_tamper)(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx);

/* An output claimed with one nonzero PADDING entry (padded index idx, value val): the
 * harness adds val eq(r, idx) to the claimed value (the trace has no padding). */
static struct {
    bool on;
    uint64_t idx;
    int64_t val;
} nx_pad_out;

static bool nx_op_alone(ez_pfx *f, nx_tamper tamper, void *ctx, bool *claims_ok, bool *ranges_ok, ez_diag *why)
{
    const size_t op = 0;
    const ez_plan_op *o = &f->plan.ops[op];
    ez_advice_layout L;
    ez_fe **polys = ez_pfx_advice(&L, &f->plan, &f->tr, op);
    if (tamper)
        tamper(f, &L, polys + ez_pfx_first_op_poly(&L, op), ctx);
    /* ideal lookups: every range column in [0, 2^bits), every tuple a row of its table */
    *ranges_ok = ez_pfx_lookups_hold(&L, polys, &f->plan, &f->tr, op);
    /* the output claim at a random point: the (possibly edited) output's MLE */
    const ez_plan_tensor *to = &f->plan.tensors[o->out];
    ez_rng rng = ez_rng_for("op_alone");
    ez_claim out;
    ez_pfx_random_claim(&out, to, f->tr.t[o->out], &rng);
    if (nx_pad_out.on) {
        ez_fe2 e = ez_fe2_from_fe(ez_fe_from_i64(nx_pad_out.val));
        for (unsigned v = 0; v < out.nvars; v++)
            e = ez_fe2_mul(e, (nx_pad_out.idx >> (out.nvars - 1 - v)) & 1 ? out.point[v]
                                                                           : ez_fe2_sub(ez_fe2_one(), out.point[v]));
        out.value = ez_fe2_add(out.value, e);
    }
    ez_pfx_alone alone = {.label = "norm-test"};
    bool ok = ez_pfx_op_alone(&f->plan, &f->tr, &L, polys, op, &out, &alone, claims_ok, NULL, why);
    ez_claim_clear(&out);
    ez_pfx_advice_free(&L, polys);
    return ok;
}

/* The model of the op-alone tests: rows of 12 (one limb for a and b), 8 rows (8 row polys
 * entries, no padding), the block's local ids as norm.c lays them out (rsqrt.h). */
#define SRC_ALONE SRC_NORM("layernorm", 8, 12)

static ez_rsq alone_block(const ez_pfx *f)
{
    /* local ids (norm.c): U = mu + 2^(bmu-1) limbs, a, v limbs, b, then the block */
    ez_rsq b;
    unsigned kmax;
    int sh;
    int64_t E;
    nx_consts(f, 0, &kmax, &sh, &E);
    uint64_t B = f->plan.tensors[f->plan.ops[0].in[0]].bound;
    unsigned first = ez_rc_nlimbs(ez_bitlen(B) + 1) + 1 + ez_rc_nlimbs(ez_bitlen(B * B + 1)) + 1;
    ck_assert_int_eq(ez_rsq_init(&b, B * B + 1 + (uint64_t)E, first), EZ_OK);
    ck_assert_uint_eq(b.kmax, kmax);
    return b;
}

/* Write a value's limbs at entry i. */
static void put(ez_fe **P, unsigned first, unsigned nl, unsigned bits, uint64_t i, ez_fe v)
{
    ck_assert(ez_rc_split(v, bits, nl, P + first, i));
}

/* The op alone with a forgery that passes the lookups: only the rsqrt zero-check may
 * reject it. what names the forgery in failure messages. */
static void expect_zero_check_rejects(ez_pfx *f, nx_tamper tamper, void *ctx, const char *what)
{
    ez_diag why = {{0}};
    bool claims_ok, ranges_ok;
    bool ok = nx_op_alone(f, tamper, ctx, &claims_ok, &ranges_ok, &why);
    ck_assert_msg(ranges_ok, "%s: the forgery should pass the lookups", what);
    ck_assert_msg(!ok, "%s: accepted", what);
    ck_assert_msg(strstr(why.msg, "rsqrt zero-check failed") != NULL, "%s: %s", what, why.msg);
}

/* SRC_ALONE run with k + 1 on row ROW_TINY, its outputs recomputed, and tamper's forgery
 * on top: the rsqrt zero-check rejects it. */
static void k_plus_one_rejected(nx_tamper tamper, const char *seed)
{
    ez_pfx f;
    ez_pfx_compile(&f, SRC_ALONE);
    nx_run(&f, seed, 1 << 11);
    nx_edit e = {.dk = 1};
    nx_recompute(&f, 0, ROW_TINY, &e);
    expect_zero_check_rejects(&f, tamper, NULL, seed);
    ez_pfx_free(&f);
}

START_TEST(test_op_alone_honest)
{
    ez_pfx f;
    ez_diag why = {{0}};
    bool claims_ok, ranges_ok;
    ez_pfx_compile(&f, SRC_ALONE);
    nx_run(&f, "op_alone_honest", 1 << 12);
    ck_assert_msg(nx_op_alone(&f, NULL, NULL, &claims_ok, &ranges_ok, &why), "%s", why.msg);
    ck_assert(claims_ok && ranges_ok);
    ez_pfx_free(&f);
}
END_TEST

/* g doubled on row ROW_RANDOM (k >= 1, so 2^(kmax - k + 1) fits g's kmax + 1 bits) and rg =
 * r g with it, the outputs recomputed from the doubled factor: every range, the table and
 * the main sumcheck hold; only G g = 2^kmax fails. */
static void tamper_double_g(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)L, (void)ctx;
    ez_rsq b = alone_block(f);
    uint64_t r = ROW_RANDOM;
    ez_fe g = ez_op_limbs_at(P + b.pg, b.ng, r), g2 = ez_fe_add(g, g);
    put(P, b.pg, b.ng, b.bg, r, g2);
    P[b.pRG][r] = ez_fe_mul(P[b.pR][r], g2);
}

/* Row r's outputs and remainders recomputed from rg in place of the honest r g:
 * (x - mu) rg = 2^sh out + rem. */
static void outputs_from_rg(ez_pfx *f, int64_t r, i128 rg)
{
    unsigned kmax;
    int sh;
    int64_t E;
    nx_consts(f, 0, &kmax, &sh, &E);
    const int64_t N = 12, *x = f->tr.t[f->plan.ops[0].in[0]] + r * N;
    const int64_t mu = f->tr.ops[0].aux[EZ_AUX_MEAN][r];
    for (int64_t j = 0; j < N; j++) {
        i128 crg = (i128)(x[j] - mu) * rg, q = crg >> sh;
        f->tr.t[f->plan.ops[0].out][r * N + j] = (int64_t)q;
        f->tr.ops[0].aux[EZ_AUX_REM][r * N + j] = (int64_t)(crg - q * ((i128)1 << sh));
    }
}

/* Row r's honest r g (g = 2^(kmax - k)); its k in *k. */
static i128 honest_rg(const ez_pfx *f, int64_t r, int64_t *k)
{
    unsigned kmax;
    int sh;
    int64_t E;
    nx_consts(f, 0, &kmax, &sh, &E);
    *k = f->tr.ops[0].aux[EZ_AUX_NORM_EXP][r];
    return (i128)f->tr.ops[0].aux[EZ_AUX_RSQRT][r] << (kmax - *k);
}

START_TEST(test_op_alone_double_g)
{
    ez_pfx f;
    ez_pfx_compile(&f, SRC_ALONE);
    nx_run(&f, "op_alone_g", 1 << 11);
    int64_t k;
    i128 rg = honest_rg(&f, ROW_RANDOM, &k);
    ck_assert_int_ge(k, 1);
    outputs_from_rg(&f, ROW_RANDOM, 2 * rg); /* the outputs of g doubled */
    expect_zero_check_rejects(&f, tamper_double_g, NULL, "g doubled");
    ez_pfx_free(&f);
}
END_TEST

/* k + 1 on row ROW_TINY (k = 0) with M, mrem, r re-derived and the outputs recomputed; the
 * minimality witness w = 0 and Z = (w - 4V + 65535 4^k + 4) / 65539 in the field, so
 * W - 4V + 65535 G^2 + 4 - 65539 Z = 0 holds: only Z (G^2 - 1) = 0 catches it. */
static void tamper_forge_z(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)L, (void)ctx;
    ez_rsq b = alone_block(f);
    uint64_t r = ROW_TINY;
    ez_fe G = ez_op_limbs_at(P + b.pG, b.ng, r);
    ck_assert_uint_eq(G, 2);
    int64_t E = ez_exec_norm_eps(12), V = f->tr.ops[0].aux[EZ_AUX_VAR][r] + E;
    ez_fe num = ez_fe_add(ez_fe_sub(ez_fe_mul(65535, ez_fe_mul(G, G)), ez_fe_from_i64(4 * V)), 4);
    put(P, b.pW, b.nw, b.bw, r, 0);
    P[b.pZ][r] = ez_fe_mul(num, ez_fe_inv(65539));
}

START_TEST(test_op_alone_forged_minimality)
{
    k_plus_one_rejected(tamper_forge_z, "op_alone_z");
}
END_TEST

/* k + 1 on row ROW_TINY as above, but the minimality witness simply set to 0 (in range)
 * with Z = 0: only W - 4V + 65535 G^2 + 4 - 65539 Z = 0 catches it. */
static void tamper_w(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)L, (void)ctx;
    ez_rsq b = alone_block(f);
    put(P, b.pW, b.nw, b.bw, ROW_TINY, 0);
    ck_assert_uint_eq(P[b.pZ][ROW_TINY], 0);
}

START_TEST(test_op_alone_forged_witness)
{
    k_plus_one_rejected(tamper_w, "op_alone_w");
}
END_TEST

/* mg + 1 (still in range): mg + 1 + mrem = 4^k fails. rg + 1 with the outputs recomputed:
 * rg = r g fails. */
static void tamper_mg(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)L, (void)ctx;
    ez_rsq b = alone_block(f);
    uint64_t r = ROW_RANDOM;
    put(P, b.pMG, b.nm, b.bm, r, ez_fe_add(ez_op_limbs_at(P + b.pMG, b.nm, r), 1));
}

static void tamper_rg(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)L, (void)ctx;
    ez_rsq b = alone_block(f);
    P[b.pRG][ROW_RANDOM] = ez_fe_add(P[b.pRG][ROW_RANDOM], 1);
}

START_TEST(test_op_alone_mg_rg)
{
    for (int which = 0; which < 2; which++) {
        ez_pfx f;
        ez_pfx_compile(&f, SRC_ALONE);
        nx_run(&f, "op_alone_mg_rg", 1 << 11);
        int64_t k;
        if (which) /* the outputs of rg + 1 */
            outputs_from_rg(&f, ROW_RANDOM, honest_rg(&f, ROW_RANDOM, &k) + 1);
        expect_zero_check_rejects(&f, which ? tamper_rg : tamper_mg, NULL, which ? "rg + 1" : "mg + 1");
        ez_pfx_free(&f);
    }
}
END_TEST

/* RSQRT: the sign bit forged on a negative input x. z = -1 makes u = 2 z x - z - x = 1 - 3x
 * (in range) and xp = z x = |x|: the op would prove rsqrt(|x|) for a negative x. The
 * block and the output are recomputed for V = |x|; every range, the table and the other
 * relations hold: only z^2 = z catches it. */
static void rsqrt_sign_trace(ez_pfx *f, uint64_t j, ez_rsq *b)
{
    const ez_plan_op *o = &f->plan.ops[0];
    uint64_t B = f->plan.tensors[o->in[0]].bound;
    ck_assert_int_eq(ez_rsq_init(b, B, 2 + ez_rc_nlimbs(ez_bitlen(B))), EZ_OK); /* z, u's limbs, xp, the block */
    int sh = EZ_RSQRT_TABLE_SCALE + (int)b->kmax - 12 - 6;
    ck_assert_int_gt(sh, 0);
    int64_t V = -f->tr.t[o->in[0]][j], M, mrem;
    unsigned k;
    ez_rsqrt_split(V, &M, &k, &mrem);
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build_rsqrt(&t, &d), EZ_OK);
    int64_t **aux = f->tr.ops[0].aux;
    aux[EZ_AUX_NORM_EXP][j] = k, aux[EZ_AUX_MANTISSA][j] = M, aux[EZ_AUX_MANT_REM][j] = mrem;
    aux[EZ_AUX_RSQRT][j] = t.out[M];
    i128 rg = (i128)t.out[M] << (b->kmax - k), q = rg >> sh;
    f->tr.t[o->out][j] = (int64_t)q;
    aux[EZ_AUX_REM][j] = (int64_t)(rg - q * ((i128)1 << sh));
    ez_table_clear(&t);
}

static void tamper_sign(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)L;
    const uint64_t j = *(const uint64_t *)ctx;
    const ez_plan_op *o = &f->plan.ops[0];
    int64_t x = f->tr.t[o->in[0]][j];
    uint64_t B = f->plan.tensors[o->in[0]].bound;
    unsigned bx = ez_bitlen(B), nx = ez_rc_nlimbs(bx);
    ez_rsq b;
    ck_assert_int_eq(ez_rsq_init(&b, B, 2 + nx), EZ_OK);
    P[0][j] = ez_fe_neg(1);
    put(P, 1, nx, bx, j, (ez_fe)(1 - 3 * x));
    P[1 + nx][j] = (ez_fe)-x;
    const int64_t *const *aux = (const int64_t *const *)f->tr.ops[0].aux;
    ck_assert(ez_rsq_fill(&b, P, j, -x, aux[EZ_AUX_NORM_EXP][j], aux[EZ_AUX_MANTISSA][j],
                          aux[EZ_AUX_MANT_REM][j], aux[EZ_AUX_RSQRT][j]) == NULL);
}

/* row_case_value, with the input's last entry of row 0 made negative (so row 0 always has
 * one, whatever the seed) */
static int64_t neg_in_row0(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    int64_t x = row_case_value(ctx, t, e, r);
    if (t->kind == EZ_TENSOR_INPUT && e == t->dims[t->rank - 1] - 1 && x >= 0)
        x = -x - 1;
    return x;
}

START_TEST(test_op_alone_rsqrt_sign)
{
    ez_pfx f;
    ez_pfx_compile(&f, "model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n");
    row_cases c = {1 << 12, 0};
    ez_pfx_run_values(&f, "rsqrt_sign", neg_in_row0, &c);
    /* the first negative input of row 0 (output [4, 7], padded [4, 8]: entry j either way) */
    uint64_t j = 0;
    while (j < 7 && f.tr.t[f.plan.ops[0].in[0]][j] >= 0)
        j++;
    ck_assert_uint_lt(j, 7);
    ez_rsq b;
    rsqrt_sign_trace(&f, j, &b);
    ck_assert_int_gt(f.tr.t[f.plan.ops[0].out][j], 0); /* a positive rsqrt of a negative input */
    expect_zero_check_rejects(&f, tamper_sign, &j, "the forged sign");
    ez_pfx_free(&f);
}
END_TEST

/* RSQRT: a nonzero output on a PADDING entry (row 0, column 7 of [4, 7] padded to [4, 8]):
 * G = 0, g = 2^kmax, M = 1, R = T[1] = 2^23, RG = 2^(23 + kmax), the remainder RG mod 2^sh
 * and the claimed output y = RG >> sh there. With the live selector in G g = 2^kmax S every
 * relation would hold (G g = 0 off the live set); with the layout selector G g = 2^kmax on
 * every layout entry, so G >= 1, M 4^k = mrem < 4^k gives M = 0 and RG = T[0] g = 0. */
static void tamper_padding(ez_pfx *f, const ez_advice_layout *L, ez_fe **P, void *ctx)
{
    (void)ctx;
    const ez_plan_op *o = &f->plan.ops[0];
    uint64_t B = f->plan.tensors[o->in[0]].bound;
    unsigned nx = ez_rc_nlimbs(ez_bitlen(B));
    ez_rsq b;
    ck_assert_int_eq(ez_rsq_init(&b, B, 2 + nx), EZ_OK);
    const uint64_t i = 7;
    int sh = EZ_RSQRT_TABLE_SCALE + (int)b.kmax - 12 - 6;
    ez_fe rg = (ez_fe)1 << (EZ_RSQRT_TABLE_SCALE + b.kmax);
    put(P, b.pG, b.ng, b.bg, i, 0);
    put(P, b.pg, b.ng, b.bg, i, (ez_fe)1 << b.kmax);
    P[b.pM][i] = 1;
    P[b.pR][i] = (ez_fe)1 << EZ_RSQRT_TABLE_SCALE;
    put(P, b.pMR, b.nm, b.bm, i, 0);
    put(P, b.pMG, b.nm, b.bm, i, 0);
    put(P, b.pW, b.nw, b.bw, i, 0);
    P[b.pZ][i] = 0;
    P[b.pRG][i] = rg;
    /* the framework's remainder limbs (op_rem) at the padding entry: the value lives on
     * its tensor's support (no padding committed, zero there), which is the remainder */
    const ez_adv_value *rv = &L->values[L->op_rem[0]];
    ck_assert_int_ge(L->polys[rv->first_poly].support, 0);
    ck_assert_uint_eq(rg & (((ez_fe)1 << sh) - 1), 0);
    nx_pad_out.on = true;
    nx_pad_out.idx = i;
    nx_pad_out.val = (int64_t)(rg >> sh);
}

START_TEST(test_op_alone_rsqrt_padding)
{
    ez_pfx f;
    ez_pfx_compile(&f, "model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n");
    nx_run(&f, "rsqrt_padding", 1 << 12);
    expect_zero_check_rejects(&f, tamper_padding, NULL, "a nonzero padding output");
    nx_pad_out.on = false;
    ez_pfx_free(&f);
}
END_TEST

/* ---- boundary widths ------------------------------------------------------------------- */

/* The widest input of a layernorm / rmsnorm over rows of 12 with a 32-bit output: sh = 23 +
 * kmax - 12 grows with the input's width, and c rg = 2^sh y + r (y of 32 bits) reaches p at
 * 30 input bits: 29 proves, 30 is refused by ez_plan_soundness (the compiler's sum of
 * squares, N B^2 < 2^62, would allow 30). RSQRT at an odd input scale (V = 2 x): the
 * minimality witness w = 4 V - 65535 4^k - 4 next to 4 V and 65535 4^k reaches p at 61
 * bits: 60 proves, 61 is refused. */
static void boundary(const char *fmt, unsigned wmax, const char *relation)
{
    char src[512];
    ez_pfx f;
    ez_diag d = {{0}}, why = {{0}};
    size_t bad = 0;
    snprintf(src, sizeof src, fmt, wmax);
    ez_pfx_compile(&f, src);
    ck_assert_msg(ez_plan_soundness(&f.plan, &bad, &d) == EZ_OK, "%u bits: %s", wmax, d.msg);
    nx_run(&f, "boundary", INT64_C(1) << 40);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%u bits: rejected: %s", wmax, why.msg);
    ez_pfx_free(&f);
    snprintf(src, sizeof src, fmt, wmax + 1);
    ez_pfx_compile(&f, src);
    ck_assert_int_eq(ez_plan_soundness(&f.plan, &bad, &d), EZ_ERR_NUMERIC);
    ck_assert_uint_eq(bad, 0);
    ck_assert_msg(strstr(d.msg, relation) != NULL, "%s", d.msg);
    ez_plan_clear(&f.plan);
}

START_TEST(test_boundary_widths)
{
    boundary("model nm\nparam R = 4, N = 12\nscale 12\nbits 32\ninput x[R, N] @bits(%u)\n"
             "n[s, d] = layernorm[d](x[s, d])\noutput n\n",
             29, "c rg = 2^sh y + r");
    boundary("model nm\nparam R = 4, N = 12\nscale 12\nbits 32\ninput x[R, N] @bits(%u)\n"
             "n[s, d] = rmsnorm[d](x[s, d])\noutput n\n",
             29, "c rg = 2^sh y + r");
    boundary("model rs\nparam R = 4, N = 5\nscale 12\nbits 24\ninput x[R, N] @bits(%u) @scale(13)\n"
             "n[s, d] = rsqrt(x[s, d])\noutput n\n",
             60, "w = 4 V - 65535 4^k - 4");
}
END_TEST

/* NM-main, NM-zero, RQ-zero, RQ-rg: a prover whose sumcheck runs over another first factor
 * (eq(r, .) in the norm's main sumcheck, Lin0 in both zero-checks), changed at two entries
 * so that the sum and every round still hold (prove_fixture.h ez_pfx_prove_forged): only
 * the verifier's own final values tell. And an rsqrt output that is not its committed
 * RG's (y + 1, in range; RG honest): only the output claim on RG ties them. */
START_TEST(test_forged_final_factors)
{
    static const char *rs = "model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n";
    ez_pfx f;
    ez_diag why = {{0}};
    ez_pfx_compile(&f, SRC_NORM("layernorm", 4, 6));
    nx_run(&f, "forged_final", 1 << 12);
    ck_assert(!ez_pfx_prove_forged(&f, NULL, 0, 4, 0, &why));
    ck_assert_msg(strstr(why.msg, "the layernorm sumcheck's final evaluations do not match the committed values") != NULL, "%s", why.msg);
    ck_assert(!ez_pfx_prove_forged(&f, NULL, 1, 5, 0, &why));
    ck_assert_msg(strstr(why.msg, "the layernorm rsqrt zero-check's final evaluations do not match the committed values") != NULL, "%s", why.msg);
    ez_pfx_free(&f);
    ez_pfx_compile(&f, rs);
    nx_run(&f, "forged_final_rsqrt", 1 << 12);
    ck_assert(!ez_pfx_prove_forged(&f, NULL, 0, 7, 0, &why));
    ck_assert_msg(strstr(why.msg, "the rsqrt zero-check's final evaluations do not match the committed values") != NULL, "%s", why.msg);
    /* y + 1 at one entry in the whole trace (its range check holds), RG and the remainder
     * honest: rg = 2^sh y + rho is no longer RG */
    ez_proof pf;
    f.tr.t[f.plan.ops[0].out][5] += 1;
    ez_pfx_prove(&f, false, &pf);
    ck_assert(!ez_pfx_verify(&f, &pf, &why));
    ck_assert_str_eq(why.msg, "advice opening: the commitment does not open to the claimed values");
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_ops_norm(void)
{
    const TTest *tests[] = {test_forged_final_factors, test_honest_shapes, test_honest_scales, test_honest_variance,
        test_honest_rsqrt, test_recompute_is_exact, test_mean_remainder, test_variance_remainder,
        test_mantissa_rounding, test_wrong_exponent, test_wrong_table_value, test_mantissa_inconsistent,
        test_row_identities, test_output_off_by_one, test_changed_messages_and_output, test_op_alone_honest,
        test_op_alone_double_g, test_op_alone_forged_minimality, test_op_alone_forged_witness, test_op_alone_mg_rg,
        test_op_alone_rsqrt_sign, test_op_alone_rsqrt_padding, test_boundary_widths};
    return ez_test_suite("ops_norm", "core", 240, tests, sizeof tests / sizeof tests[0]);
}

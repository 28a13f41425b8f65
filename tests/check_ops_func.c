/* Suite "ops_func": the elementwise ops FUNC and RELU (runtime/ops/func.c, relu.c;
 * docs/protocol-elementwise.md) inside the whole-plan prover, on models whose operand is
 * the public input (so every rejection is the op's) and on SwiGLU:
 *   - honest proofs verify for every function at input scales 12, 16 (k = 4) and 8, with
 *     inputs on both tails, inside the rows and at the rows' edges; the lookup-only shape
 *     (x' always inside the rows) with x itself as the lookup's column, with a committed
 *     x' (k > 0), permuted outputs and layer slices; relu; SwiGLU end to end;
 *   - malicious provers that keep the transcript consistent (the prover runs unchanged on a
 *     tampered trace; its witness explains the trace's y) each targeting one check: a
 *     function value off by one (the lookup), a tail value for an input inside the rows and
 *     a row for an input outside them (the is-zero relations in the sumcheck), a wrong
 *     shift remainder with the compensating x' (the remainder's range), an identity tail
 *     off by one (its remainder's range), relu returning x for a negative x (y's range),
 *     0 for a positive x (d's range) and x + 5 for a positive x (the zero-check y d = 0),
 *     a changed round message, a changed claimed output; an input stated one unit off
 *     (the claim each shape derives on x: the virtual column's, the link's, the
 *     sumcheck's), the sent atoms shifted with x unchanged, C at one entry the other root
 *     of its quadratic term (only the claim on C);
 *     the checked prover refuses each tampered trace with a message;
 *   - RoPE (runtime/ops/rope.c): honest proofs with permuted axes, extents that are not
 *     powers of two, a layer slice, and a Llama-style block (rotary attention, SwiGLU);
 *     a rotation with other constants, a value off by one (with and without the
 *     compensating remainder), changed round messages and output — each rejected;
 *   - boundary widths: the identity tail's relation x = 2^j y + R2 and RoPE's rescale —
 *     the widest output width proves, one bit more is refused by ez_plan_soundness. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/recheck.h"
#include "runtime/exec/tables.h"
#include "runtime/formats/proofio.h"
#include "runtime/ops/op.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/prove.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* ---- fixture: chosen inputs --------------------------------------------------------------- */

/* Inputs cycling through the cases of an input to a table of shift k: inside the rows,
 * below and above them, and the four edges x' = -2^15 - 1, -2^15, 2^15 - 1, 2^15, then the
 * extremes; every value clamped to [-lim, hi] (hi < lim for exp, whose upper rows outgrow
 * any width at small scales). Weights random in [-2^9, 2^9]. */
typedef struct {
    unsigned k; /* the table's shift */
    int64_t hi; /* the inputs' upper clamp */
} table_cases;

static int64_t table_case_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    const table_cases *c = ctx;
    int64_t lim = (int64_t)t->bound - 1, e15 = INT64_C(1) << (15 + c->k);
    int64_t top = c->hi < lim ? c->hi : lim, x;
    switch (t->kind == EZ_TENSOR_WEIGHT ? 9 : e % 9) {
    case 0: /* inside the rows (element 0: a negative one away from the edges) */
        x = e == 0 ? -e15 / 3 : (int64_t)(r % (uint64_t)(2 * e15)) - e15;
        break;
    case 1: x = -e15 - 1 - (int64_t)(r % (uint64_t)lim); break;   /* below */
    case 2: x = e15 + (int64_t)(r % (uint64_t)lim); break;        /* above */
    case 3: x = -e15 - 1; break;                                  /* x' = -2^15 - 1 */
    case 4: x = -e15; break;                                      /* x' = -2^15 */
    case 5: x = e15 - 1; break;                                   /* x' = 2^15 - 1 */
    case 6: x = e15; break;                                       /* x' = 2^15 */
    case 7: x = (r & 1) ? lim : -lim; break;                      /* the extremes */
    case 8: x = (int64_t)(r % 4001) - 2000; break;                 /* near 0 */
    default: x = (int64_t)(r % 1025) - 512; break;                /* a weight */
    }
    return x < -lim ? -lim : x > top ? top : x;
}

static void run_inputs(ez_pfx *f, const char *seed, unsigned k, int64_t hi)
{
    table_cases c = {k, hi};
    ez_pfx_run_values(f, seed, table_case_value, &c);
}

/* The number of polys the op commits (its own, the layout's op-owned ones). */
static unsigned op_polys(const ez_plan *p, size_t op)
{
    ez_advice_layout L;
    ez_diag d = {{0}};
    ck_assert_msg(ez_advice_layout_build(&L, p, &d) == EZ_OK, "%s", d.msg);
    unsigned n = 0;
    for (size_t q = 0; q < L.npolys; q++)
        n += L.polys[q].value == EZ_ADV_POLY_OP && L.polys[q].op == op;
    ez_advice_layout_clear(&L);
    return n;
}

static char *func_src(char *buf, size_t cap, const char *fn, unsigned in_scale, unsigned in_bits, const char *lhs,
                      const char *arg)
{
    snprintf(buf, cap,
             "model f\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @scale(%u) @bits(%u)\n%s = %s(%s)\noutput y\n",
             in_scale, in_bits, lhs, fn, arg);
    return buf;
}

static void honest_src(const char *src, const char *seed, unsigned k, int64_t hi)
{
    table_cases c = {k, hi};
    ez_pfx_honest(src, seed, table_case_value, &c);
}

/* ---- honest provers ------------------------------------------------------------------------ */

static const char *const fns[] = {"gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "exp"};

/* Every function at input scales 12 (k = 0), 16 (k = 4, the identity tail divides by 2^4)
 * and 8 (the identity tail multiplies by 2^4), 24- and 20-bit inputs reaching both tails;
 * the output has interior padding (D = 7), so y = 0 there although T[0] != 0 for sigmoid
 * and exp. */
START_TEST(test_honest_functions)
{
    const struct {
        unsigned scale, bits, k;
    } cfg[] = {{12, 24, 0}, {16, 24, 4}, {8, 20, 0}};
    for (size_t c = 0; c < 3; c++)
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
            char src[512], seed[64];
            snprintf(seed, sizeof seed, "%s_%u", fns[i], cfg[c].scale);
            func_src(src, sizeof src, fns[i], cfg[c].scale, cfg[c].bits, "y[s, d]", "x[s, d]");
            /* exp's rows above ~7.6 exceed 24 bits at scale 12: keep its inputs below */
            int64_t hi = strcmp(fns[i], "exp") == 0 ? (INT64_C(15) << (cfg[c].scale - 1)) : INT64_MAX;
            honest_src(src, seed, cfg[c].k, hi);
            /* both tails are reached: the sumcheck shape, TV, H, C (A virtual: x is in the
             * output's layout) and R's, R2's limbs */
            ez_pfx f;
            ez_pfx_compile(&f, src);
            bool ident = i < 3; /* gelu, gelu_tanh, silu: the identity tail, dividing at k = 4 */
            ck_assert_uint_eq(op_polys(&f.plan, 0), 3u + (cfg[c].k ? 1u : 0u) + (ident && cfg[c].k ? 1u : 0u));
            ez_plan_clear(&f.plan);
        }
    /* exp's upper tail (the clamp to the last row) at an output scale where that row fits */
    honest_src("model f\nparam S = 5, D = 7\nscale 4\ninput x[S, D] @scale(12) @bits(24)\ny[s, d] = exp(x[s, d])\n"
               "output y\n",
               "exp_clamp", 0, INT64_MAX);
    honest_src("model f\nparam S = 5, D = 7\nscale 4\ninput x[S, D] @scale(16) @bits(24)\ny[s, d] = exp(x[s, d])\n"
               "output y\n",
               "exp_clamp16", 4, INT64_MAX);
}
END_TEST

/* Inputs whose x' never leaves the rows: the lookup is the proof. At scale 12 with 16 bits
 * the lookup's input column is x itself and only TV is committed; at scale 16 with 20 bits
 * x' = floor(x / 16) is the virtual column 2^-4 (x - R) beside the committed remainder; a
 * permuted output commits x'. */
START_TEST(test_honest_lookup_only)
{
    char src[512];
    ez_pfx f;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        char seed[64];
        snprintf(seed, sizeof seed, "lookup_%s", fns[i]);
        int64_t hi = strcmp(fns[i], "exp") == 0 ? INT64_C(15) << 11 : INT64_MAX;
        func_src(src, sizeof src, fns[i], 12, 16, "y[s, d]", "x[s, d]");
        honest_src(src, seed, 0, hi);
        ez_pfx_compile(&f, src);
        ck_assert_uint_eq(op_polys(&f.plan, 0), 1); /* TV alone */
        ez_plan_clear(&f.plan);
    }
    func_src(src, sizeof src, "gelu", 16, 20, "y[s, d]", "x[s, d]");
    honest_src(src, "lookup_k4", 4, INT64_MAX);
    ez_pfx_compile(&f, src);
    ck_assert_uint_eq(op_polys(&f.plan, 0), 2); /* TV, R (A virtual: 2^-4 (x - R)) */
    ez_plan_clear(&f.plan);
    func_src(src, sizeof src, "sigmoid", 12, 16, "y[d, s]", "x[s, d]");
    honest_src(src, "lookup_permuted", 0, INT64_MAX);
    ez_pfx_compile(&f, src);
    ck_assert_uint_eq(op_polys(&f.plan, 0), 2); /* A, TV */
    ez_plan_clear(&f.plan);
}
END_TEST

/* Permuted outputs and layer slices in the sumcheck shape; an input that is itself a
 * rescaled (width-checked) activation; a scalar. */
START_TEST(test_honest_shapes)
{
    char src[512];
    func_src(src, sizeof src, "gelu", 16, 24, "y[d, s]", "x[s, d]");
    honest_src(src, "permuted_general", 4, INT64_MAX);
    ez_pfx f;
    ez_pfx_compile(&f, src);
    ck_assert_uint_eq(op_polys(&f.plan, 0), 6); /* A committed (x permuted), TV, H, C, R, R2 */
    ez_plan_clear(&f.plan);
    honest_src("model f\nparam L = 3, S = 5, D = 6\nscale 12\ninput x[L, S, D] @bits(24)\n"
               "y[d, s] = tanh(x[1, s, d])\nz[s, d] = silu(x[2, s, d])\noutput y, z\n",
               "slices", 0, INT64_MAX);
    honest_src("model f\nparam S = 4, D = 8, F = 12\nscale 12\nbits 16\ninput x[S, D]\nweight w[D, F]\n"
               "y[s, f] = gelu(x[s, d] * w[d, f])\noutput y\n",
               "rescaled_input", 0, INT64_MAX);
    honest_src("model f\nscale 12\ninput x[] @bits(24)\ny[] = silu(x[])\noutput y\n", "scalar", 0, INT64_MAX);
}
END_TEST

START_TEST(test_honest_relu)
{
    honest_src("model r\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @bits(16)\ny[s, d] = relu(x[s, d])\noutput y\n",
               "relu16", 0, INT64_MAX);
    honest_src("model r\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @bits(40)\ny[d, s] = relu(x[s, d])\noutput y\n",
               "relu40_permuted", 0, INT64_MAX);
    honest_src("model r\nparam S = 4, D = 8, F = 12\nscale 12\nbits 16\ninput x[S, D]\nweight w1[D, F], w2[F, D]\n"
               "h[s, f] = relu(x[s, d] * w1[d, f])\ny[s, e] = h[s, f] * w2[f, e]\noutput y\n",
               "relu_mlp", 0, INT64_MAX);
}
END_TEST

/* SwiGLU: silu(x W_g) * (x W_u), then W_d (the product is an elementwise einsum with a
 * rescale). */
START_TEST(test_honest_swiglu)
{
    const char *src = "model swiglu\nparam S = 6, D = 16, F = 24\nscale 12\nbits 16\n"
                      "input x[S, D]\nweight wg[D, F], wu[D, F], wd[F, D]\n"
                      "a[s, f] = x[s, d] * wg[d, f]\nb[s, f] = x[s, d] * wu[d, f]\n"
                      "h[s, f] = silu(a[s, f]) * b[s, f]\ny[s, n] = h[s, f] * wd[f, n]\noutput y\n";
    int64_t lim = 1 << 9;
    ez_pfx_honest(src, "swiglu", NULL, &lim);
}
END_TEST

/* ---- malicious provers ------------------------------------------------------------------- */

/* gelu at input scale 16 (k = 4) with 24 bits, output scale 12: both tails, a committed
 * remainder R and the identity tail's R2. */
#define SRC_GELU16                                                                                                     \
    "model f\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @scale(16) @bits(24)\ny[s, d] = gelu(x[s, d])\noutput y\n"

/* An element whose x' = floor(x / 2^k) is inside the rows (not at their lower edge, x
 * below -1000), or above them. */
static uint64_t pick_k(const ez_pfx *f, size_t op, bool above, unsigned k)
{
    const ez_plan_op *o = &f->plan.ops[op];
    const int64_t *x = f->tr.t[o->in[0]];
    uint64_t n = ez_plan_tensor_numel(&f->plan.tensors[o->out]);
    for (uint64_t e = 0; e < n; e++) {
        int64_t q = x[e] >> k;
        if (above ? q >= (1 << 15) : (q > -(1 << 15) + 1 && q < (1 << 15) && x[e] < -1000))
            return e;
    }
    ck_abort_msg("no suitable element");
    return 0;
}

/* The same for SRC_GELU16 (k = 4). */
static uint64_t pick(const ez_pfx *f, size_t op, bool above)
{
    return pick_k(f, op, above, 4);
}

/* SRC_GELU16 run on seeded inputs over both tails and the rows. */
static void gelu16_run(ez_pfx *f, const char *seed)
{
    ez_pfx_compile(f, SRC_GELU16);
    run_inputs(f, seed, 4, INT64_MAX);
}

/* gelu's table output from scale `in` to `out` on the row of x' = q (-2^15 <= q < 2^15). */
static int64_t gelu_row(int64_t q, unsigned in, unsigned out)
{
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build(&t, EZ_FN_GELU, in, out, &d), EZ_OK);
    int64_t y = t.out[q + (1 << 15)];
    ez_table_clear(&t);
    return y;
}

/* SRC_GELU16's row of x' = q. */
static int64_t gelu16_row(int64_t q)
{
    return gelu_row(q, 16, 12);
}

/* The checked fixture of the "gelu16" and "rope" cases: SRC_GELU16 (gelu16_run) or
 * SRC_ROPE run before each test, its op's input values x and output values y, which the
 * test edits; freed after it. */
static struct {
    ez_pfx f;
    const int64_t *x;
    int64_t *y;
} fx;

static void gelu16_setup(void)
{
    gelu16_run(&fx.f, "gelu16");
    fx.x = fx.f.tr.t[fx.f.plan.ops[0].in[0]];
    fx.y = fx.f.tr.t[fx.f.plan.ops[0].out];
}

static void fx_teardown(void)
{
    ez_pfx_free(&fx.f);
}

/* A value off by one inside the rows: (A, TV) is no row of the table. */
START_TEST(test_value_off_by_one)
{
    fx.y[pick(&fx.f, 0, false)] += 1;
    ez_pfx_expect_refused(&fx.f, "not the table's row", "gelu table lookup failed");
    /* the same in the lookup-only shape (x itself is the lookup's input column) */
    ez_pfx f;
    char src[512];
    ez_pfx_compile(&f, func_src(src, sizeof src, "silu", 12, 16, "y[s, d]", "x[s, d]"));
    run_inputs(&f, "off_by_one_lookup", 0, INT64_MAX);
    f.tr.t[f.plan.ops[0].out][3] -= 1;
    ez_pfx_expect_refused(&f, "not the table's row", "silu table lookup failed");
    ez_pfx_free(&f);
}
END_TEST

/* A tail value for an input inside the rows: C = 1 with H = 0 (the function table's lookup,
 * E5 and the ranges hold; (H, C) is no row of the sign table). */
static void tail_for_row(ez_pfx *f, unsigned k, unsigned j)
{
    uint64_t e = pick_k(f, 0, false, k);
    int64_t *y = f->tr.t[f->plan.ops[0].out];
    const int64_t *x = f->tr.t[f->plan.ops[0].in[0]];
    int64_t tail = x[e] >> j; /* the identity tail, dividing by 2^j */
    ck_assert_int_ne(y[e], tail);
    y[e] = tail;
    ez_pfx_expect_refused(f, "a tail value is given", "sign table lookup failed");
}

START_TEST(test_tail_for_row)
{
    tail_for_row(&fx.f, 4, 4);
}
END_TEST

/* A table row (of x' mod 2^16) for an input above the rows: C = 0 with H != 0 (the function
 * table's lookup and E5 hold; (H, C) is no row of the sign table). */
static void row_for_tail(ez_pfx *f, unsigned k, unsigned in, unsigned out)
{
    uint64_t e = pick_k(f, 0, true, k);
    int64_t *y = f->tr.t[f->plan.ops[0].out];
    const int64_t *x = f->tr.t[f->plan.ops[0].in[0]];
    int64_t q = x[e] >> k, h = (q + (1 << 15)) >> 16, a = q - h * 65536;
    ck_assert_int_ne(h, 0);
    ck_assert_int_ne(y[e], gelu_row(a, in, out));
    y[e] = gelu_row(a, in, out);
    ez_pfx_expect_refused(f, "a table row is given", "sign table lookup failed");
}

START_TEST(test_row_for_tail)
{
    row_for_tail(&fx.f, 4, 16, 12);
}
END_TEST

/* The committed entry of element e (row-major) of tensor t in poly q of L: its padded
 * position, moved to the support when q lives on one. */
static uint64_t committed_entry(const ez_advice_layout *L, size_t q, const ez_plan_tensor *t, uint64_t e)
{
    uint64_t stride[EZ_MAX_RANK], pos = 0, rest = e;
    ez_advice_strides(t, stride);
    for (unsigned b = t->rank; b-- > 0;) {
        pos += (rest % t->dims[b]) * stride[b];
        rest /= t->dims[b];
    }
    if (L->polys[q].support < 0)
        return pos;
    uint64_t *spos = ez_advice_support_pos(&L->supports[L->polys[q].support], pos + 1);
    ck_assert_ptr_nonnull(spos);
    uint64_t i = spos[pos];
    free(spos);
    return i;
}

/* Prove f's trace with the options o (a cheating hook, another statement) and expect the
 * verifier to reject with a message containing needle. */
static void prove_expect_rejected(ez_pfx *f, const ez_prove_opts *o, const char *needle)
{
    ez_diag why = {{0}};
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_msg(ez_prove(&f->plan, &f->tr, f->w, o, &pf, NULL, &why) == EZ_OK, "prove: %s", why.msg);
    ez_pfx_expect_rejected(f, &pf, needle);
    ez_proof_clear(&pf);
}

/* A virtual A (§2.2) is bound by the function table's lookup alone. An input inside the
 * rows given the upper tail's value: the fill commits H = 0, C = 1, no row of the sign
 * table; a prover that also commits H = 1 makes (H, C) = (1, 1) a row of it, and the walk,
 * which reads neither A nor H, holds with y the tail — but A = x' - 2^16 H is then x' -
 * 2^16, outside the function table's rows. The op alone (tests/prove_fixture.h): the walk
 * accepts and every claim it leaves holds; the range and sign lookups hold; only the
 * function table's does not. */
START_TEST(test_virtual_a_forged_case)
{
    const size_t op = 0;
    ez_pfx *f = &fx.f;
    const ez_plan_op *o = &f->plan.ops[op];
    uint64_t e = pick(f, op, false);
    fx.y[e] = fx.x[e] >> 4; /* the identity tail */
    ez_advice_layout L;
    ez_fe **polys = ez_pfx_advice(&L, &f->plan, &f->tr, op);
    size_t first = ez_pfx_first_op_poly(&L, op);
    ck_assert_uint_eq(op_polys(&f->plan, op), 5); /* TV, H, C, R, R2: no A */
    const size_t pH = first + 1, pC = first + 2;
    uint64_t i = committed_entry(&L, pH, &f->plan.tensors[o->out], e);
    ck_assert_uint_eq(polys[pH][i], 0);
    ck_assert_uint_eq(polys[pC][i], 1);
    ck_assert(!ez_pfx_lookups_hold(&L, polys, &f->plan, &f->tr, op)); /* (0, 1): no sign row */
    polys[pH][i] = 1;
    ck_assert(!ez_pfx_lookups_hold(&L, polys, &f->plan, &f->tr, op));
    /* every lookup but the function table's holds */
    unsigned tb = UINT32_MAX;
    for (size_t t = 0; t < L.ntables; t++)
        if (L.tables[t].kind == EZ_LOOKUP_FUNC && L.tables[t].fkind == EZ_TABLE_FUNC)
            tb = (unsigned)t;
    ck_assert_uint_ne(tb, UINT32_MAX);
    for (size_t j = 0; j < L.ntuples; j++)
        if (L.tuples[j].table == tb)
            L.tuples[j].op = UINT32_MAX;
    ck_assert(ez_pfx_lookups_hold(&L, polys, &f->plan, &f->tr, op));
    for (size_t j = 0; j < L.ntuples; j++)
        if (L.tuples[j].table == tb)
            L.tuples[j].op = (unsigned)op;
    /* the walk alone accepts, and the claims it leaves are true */
    ez_rng rng = ez_rng_for("virtual_a");
    ez_claim out;
    ez_pfx_random_claim(&out, &f->plan.tensors[o->out], f->tr.t[o->out], &rng);
    ez_pfx_alone alone = {.label = "func-test"};
    bool claims_ok = false;
    ez_diag why = {{0}};
    ck_assert_msg(ez_pfx_op_alone(&f->plan, &f->tr, &L, polys, op, &out, &alone, &claims_ok, NULL, &why), "%s", why.msg);
    ck_assert(claims_ok);
    ez_claim_clear(&out);
    ez_pfx_advice_free(&L, polys);
}
END_TEST

/* A virtual column's extra atoms are claimed at the values the prover sends
 * (runtime/prove/rangecheck.c ez_rc_resolve_tuples): SRC_GELU16's A = 2^-4 (x - R) -
 * 2^16 H. A prover sends H + 1 and R - 2^20 at the lookup point, so the derived claim on
 * x is unchanged and its transcript consistent (ez_prove_opts.msg_hook); only the
 * openings of H and R reject. */
static void shift_tuple_atoms(void *ctx, const char *label, ez_fe2 *v, size_t n)
{
    int *done = ctx;
    if (*done || n != 2 || strcmp(label, "tuple/atoms") != 0)
        return;
    v[0] = ez_fe2_add(v[0], ez_fe2_one());
    v[1] = ez_fe2_sub(v[1], ez_fe2_from_fe(UINT64_C(1) << 20));
    *done = 1;
}

START_TEST(test_tuple_atoms_sent_false)
{
    int done = 0;
    ez_prove_opts o = {.msg_hook = shift_tuple_atoms, .msg_hook_ctx = &done};
    prove_expect_rejected(&fx.f, &o, "advice opening");
    ck_assert(done);
}
END_TEST

/* x' one below with the compensating remainder R + 2^k (x = 2^k x' + R still holds, y the
 * row of x' - 1): only R's range fails. */
START_TEST(test_wrong_remainder)
{
    uint64_t e = pick(&fx.f, 0, false);
    int64_t *rem = fx.f.tr.ops[0].aux[EZ_AUX_REM];
    ck_assert_ptr_nonnull(rem);
    rem[e] += 16;
    fx.y[e] = gelu16_row((fx.x[e] >> 4) - 1);
    ez_pfx_expect_refused(&fx.f, "its remainder is not x mod 2^k", "range-check argument failed");
}
END_TEST

/* The identity tail one too high: x = 2^j y + R2 forces R2 = x mod 2^j - 2^j < 0. */
START_TEST(test_identity_tail_off_by_one)
{
    fx.y[pick(&fx.f, 0, true)] += 1;
    ez_pfx_expect_refused(&fx.f, "not the function's tail", "range-check argument failed");
}
END_TEST

/* relu(x) = x for a negative x (y < 0: y's range), 0 for a positive x (d = -x < 0), and
 * x + 5 for a positive x (y and d = 5 both in range: only y d = 0 fails). */
START_TEST(test_relu_forged)
{
    for (int pos = 0; pos < 3; pos++) {
        ez_pfx f;
        ez_pfx_compile(&f, "model r\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @bits(16)\n"
                           "y[s, d] = relu(x[s, d])\noutput y\n");
        run_inputs(&f, pos == 2 ? "relu_plus5" : pos ? "relu_pos" : "relu_neg", 0, INT64_C(1) << 14);
        const int64_t *x = f.tr.t[f.plan.ops[0].in[0]];
        int64_t *y = f.tr.t[f.plan.ops[0].out];
        uint64_t e = 0;
        while (pos ? x[e] <= 0 : x[e] >= 0)
            e++;
        y[e] = pos == 2 ? x[e] + 5 : pos ? 0 : x[e];
        ez_pfx_expect_refused(&f, "is not max(x, 0)", pos == 2 ? "zero-check y (y - x) = 0 failed" : "range-check argument failed");
        ez_pfx_free(&f);
    }
}
END_TEST

/* Every walk byte of the op flipped in turn (its sumcheck's rounds and final values, the
 * atoms), then the claimed output changed: each rejected. */
START_TEST(test_changed_message_and_output)
{
    const char *srcs[] = {SRC_GELU16,
                          "model r\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @bits(24)\n"
                          "y[s, d] = relu(x[s, d])\noutput y\n"};
    for (size_t k = 0; k < 2; k++) {
        ez_pfx f;
        ez_diag why = {{0}}, d = {{0}};
        ez_pfx_compile(&f, srcs[k]);
        run_inputs(&f, k ? "msg_relu" : "msg_gelu", k ? 0 : 4, INT64_MAX);
        ez_proof pf;
        ck_assert_int_eq(ez_pfx_prove_status(&f, false, &pf, &d), EZ_OK);
        ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
        ck_assert_uint_gt(pf.sec[EZ_PF_SEC_WALK].len, 256);
        ez_pfx_flip_section(&f, &pf, EZ_PF_SEC_WALK, 5, 16);
        ez_pfx_changed_stmt(&f, &pf, ez_pfx_stmt_tensor(&pf, f.plan.ops[0].out), 8);
        ez_proof_clear(&pf);
        ez_pfx_free(&f);
    }
}
END_TEST

/* ---- RoPE ------------------------------------------------------------------------------------ */

/* Positions and rotary extents that are not powers of two, permuted axes, a scale change,
 * a layer slice. */
START_TEST(test_honest_rope)
{
    honest_src("model r\nparam S = 9, H = 3, E = 12\nscale 12\ninput q[H, E, S] @bits(20)\n"
               "y[s, h, e] @scale(14) = rope[s, e](q[h, e, s])\noutput y\n",
               "rope_permuted", 0, INT64_MAX);
    honest_src("model r\nparam L = 2, S = 16, E = 8\nscale 12\ninput q[L, S, E] @bits(20)\n"
               "y[s, e] = rope[s, e](q[1, s, e])\noutput y\n",
               "rope_slice", 0, INT64_MAX);
    honest_src("model r\nparam E = 6\nscale 10\ninput q[E] @scale(12) @bits(12)\ny[e] = rope[e, e2](q[e] * q[e2])\noutput y\n",
               "rope_outer", 0, INT64_MAX);
}
END_TEST

/* A Llama-style block without its norms (RMSNorm is another op): rotary queries and keys,
 * causal attention, a residual, a SwiGLU MLP with its residual — proven end to end, the
 * rotation's cos/sin never committed. */
#define SRC_LLAMA                                                                                                      \
    "model llama\nparam S = 12, D = 32, H = 2, E = D / H, F = 40\nscale 12\nbits 16\ninput x[S, D]\n"                  \
    "weight wq[D, H, E], wk[D, H, E], wv[D, H, E], wo[H, E, D], wg[D, F], wu[D, F], wd[F, D]\n"                        \
    "q[s, h, e] = rope[s, e](x[s, d] * wq[d, h, e])\nk[t, h, e] = rope[t, e](x[t, d] * wk[d, h, e])\n"                 \
    "v[t, h, e] = x[t, d] * wv[d, h, e]\na[h, s, t] = q[s, h, e] * k[t, h, e] / 4\n"                                   \
    "p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\nc[s, h, e] = p[h, s, t] * v[t, h, e]\n"                        \
    "r[s, d] = x[s, d] + c[s, h, e] * wo[h, e, d]\nu[s, f] = silu(r[s, d] * wg[d, f]) * (r[s, k] * wu[k, f])\n"        \
    "y[s, d] = r[s, d] + u[s, f] * wd[f, d]\noutput y\n"

START_TEST(test_honest_llama_block)
{
    int64_t lim = 1 << 9;
    ez_pfx_honest(SRC_LLAMA, "llama", NULL, &lim);
}
END_TEST

#define SRC_ROPE "model r\nparam S = 6, H = 2, E = 8\nscale 12\ninput q[S, H, E] @bits(20)\ny[s, h, e] = rope[s, e](q[s, h, e])\noutput y\n"

static void rope_setup(void)
{
    ez_pfx_compile(&fx.f, SRC_ROPE);
    run_inputs(&fx.f, "rope", 0, INT64_C(1) << 13);
    fx.x = fx.f.tr.t[fx.f.plan.ops[0].in[0]];
    fx.y = fx.f.tr.t[fx.f.plan.ops[0].out];
}

/* The rotation computed with other constants (base 500000, Llama 3's), remainders in range
 * and outputs in width: only the rotation's sumcheck (the public coefficients) fails. */
START_TEST(test_rope_other_constants)
{
    const int64_t *q = fx.x;
    int64_t *y = fx.y, *rem = fx.f.tr.ops[0].aux[EZ_AUX_REM];
    for (int s = 0; s < 6; s++)
        for (int h = 0; h < 2; h++)
            for (int e = 0; e < 8; e++) {
                int i = e % 4, base = (s * 2 + h) * 8;
                double a = s * pow(500000.0, -2.0 * i / 8.0);
                int64_t cc = (int64_t)round(cos(a) * 65536), sn = (int64_t)round(sin(a) * 65536);
                int64_t acc = e < 4 ? q[base + e] * cc - q[base + e + 4] * sn : q[base + e] * cc + q[base + e - 4] * sn;
                y[base + e] = acc >> 16;
                rem[base + e] = acc - y[base + e] * 65536;
            }
    ez_pfx_expect_prove_rejected(&fx.f, false, "rotation's sumcheck failed");
}
END_TEST

/* One rotated value off by one: the rotation's sumcheck rejects. */
START_TEST(test_rope_value_off_by_one)
{
    ez_diag why = {{0}};
    fx.y[17] += 1;
    ck_assert(!ez_pfx_prove_verify(&fx.f, true, &why));
    ck_assert_msg(strstr(why.msg, "rotation's sumcheck failed") != NULL, "%s", why.msg);
}
END_TEST

/* The same with the compensating remainder (r - 2^16 < 0): the range lookup rejects. */
START_TEST(test_rope_value_off_by_one_compensated)
{
    ez_diag why = {{0}};
    fx.y[17] += 1;
    fx.f.tr.ops[0].aux[EZ_AUX_REM][17] -= 65536;
    ck_assert(!ez_pfx_prove_verify(&fx.f, true, &why));
    ck_assert_msg(strstr(why.msg, "range-check argument failed") != NULL, "%s", why.msg);
}
END_TEST

/* Every walk byte of the rotation flipped in turn, then the claimed output changed. */
START_TEST(test_rope_changed_message_and_output)
{
    ez_diag why = {{0}}, d = {{0}};
    ez_proof pf;
    ck_assert_int_eq(ez_pfx_prove_status(&fx.f, false, &pf, &d), EZ_OK);
    ck_assert_msg(ez_pfx_verify(&fx.f, &pf, &why), "%s", why.msg);
    ez_pfx_flip_section(&fx.f, &pf, EZ_PF_SEC_WALK, 3, 16);
    ez_pfx_changed_stmt(&fx.f, &pf, &pf.stmt.t[pf.stmt.n - 1], 5);
    ez_proof_clear(&pf);
}
END_TEST

/* The rescale acc = 2^16 y + R over a 46-bit input (the widest whose accumulator stays
 * below 2^62): acc reaches 92683 * 2^45 ~ 2^61.5, so the relation stays inside (-p, p) up
 * to a 48-bit output and leaves it at 49 bits. */
START_TEST(test_rope_boundary_width)
{
    char src[512];
    ez_pfx f;
    ez_diag d = {{0}}, why = {{0}};
    size_t bad = 0;
    for (unsigned w = 48; w <= 49; w++) {
        snprintf(src, sizeof src,
                 "model r\nparam S = 4, E = 6\nscale 12\ninput q[S, E] @bits(46)\ny[s, e] @bits(%u) = rope[s, e](q[s, e])\n"
                 "output y\n",
                 w);
        ez_pfx_compile(&f, src);
        if (w == 48) {
            ck_assert_msg(ez_plan_soundness(&f.plan, &bad, &d) == EZ_OK, "%s", d.msg);
            run_inputs(&f, "rope_boundary", 0, INT64_MAX);
            ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
            ez_pfx_free(&f);
        } else {
            ck_assert_int_eq(ez_plan_soundness(&f.plan, &bad, &d), EZ_ERR_NUMERIC);
            ck_assert_uint_eq(ez_margins_widest_width(&f.plan, bad), 48);
            ez_plan_clear(&f.plan);
        }
    }
}
END_TEST

/* ---- the output's width without a range check (§2.3) -------------------------------------- */

/* Whether the layout range-checks op 0's output (a column on it, or a value of it). */
static bool output_checked(const ez_plan *p)
{
    ez_advice_layout L;
    ez_diag d = {{0}};
    ck_assert_msg(ez_advice_layout_build(&L, p, &d) == EZ_OK, "%s", d.msg);
    bool any = false;
    for (size_t j = 0; j < L.ncols; j++)
        any |= L.cols[j].atom.is_tensor && L.cols[j].atom.id == p->ops[0].out;
    for (size_t v = 0; v < L.nvalues; v++)
        any |= L.values[v].src == EZ_ADV_SRC_TENSOR && L.values[v].tensor == p->ops[0].out;
    ez_advice_layout_clear(&L);
    return any;
}

/* gelu, gelu_tanh, silu of a full-width 24-bit input at scale 12: the clamped bound says
 * 2^23, but no value reaches the width (rows <= x', the identity tail = x, rows of z < 0
 * above -2^11), so nothing range-checks the output; the extremes x = +-(2^23 - 1) prove.
 * From scale 8 the tail multiplies by 2^4 and leaves the width: the check stays. An upper
 * tail off by one (y = x + 1, within the width) is caught by the function's relations. */
START_TEST(test_full_width_unchecked_output)
{
    const char *three[] = {"gelu", "gelu_tanh", "silu"};
    char src[512];
    for (int i = 0; i < 3; i++) {
        ez_pfx f;
        ez_pfx_compile(&f, func_src(src, sizeof src, three[i], 12, 24, "y[s, d]", "x[s, d]"));
        ck_assert_msg(!output_checked(&f.plan), "%s: output range-checked", three[i]);
        ez_plan_clear(&f.plan);
        ez_pfx_compile(&f, func_src(src, sizeof src, three[i], 8, 24, "y[s, d]", "x[s, d]"));
        ck_assert_msg(output_checked(&f.plan), "%s from scale 8: output not range-checked", three[i]);
        ez_plan_clear(&f.plan);
        honest_src(func_src(src, sizeof src, three[i], 12, 24, "y[s, d]", "x[s, d]"), three[i], 0, INT64_MAX);
    }
    ez_pfx f;
    ez_pfx_compile(&f, func_src(src, sizeof src, "gelu", 12, 24, "y[s, d]", "x[s, d]"));
    run_inputs(&f, "full_width_tail", 0, INT64_MAX);
    const int64_t *x = f.tr.t[f.plan.ops[0].in[0]];
    int64_t *y = f.tr.t[f.plan.ops[0].out];
    uint64_t e = 0;
    while (x[e] < (INT64_C(1) << 15) || x[e] > (INT64_C(1) << 22))
        e++;
    y[e] += 1;
    ez_pfx_expect_refused(&f, "not the function's tail", "function's sumcheck failed");
    ez_pfx_free(&f);
}
END_TEST

/* ---- boundary widths ------------------------------------------------------------------------ */

/* gelu from scale 40 (k = 28) to scale 8: the identity tail divides by 2^j, j = 32, and its
 * relation x - 2^32 y - R2 over a 59-bit x and a w-bit y reaches 2^58 + 2^(31 + w): inside
 * (-p, p) up to w = 32, beyond it at w = 33. The 59-bit input keeps every other relation
 * inside, e.g. x = 2^k (A + 2^16 H) + R at about 2^60; it is the widest the sumcheck shape
 * takes at k = 28: x' = floor(x / 2^28) has 31 bits, so H = floor((x' + 2^15) / 2^16) is
 * inside the sign table's rows [-2^15, 2^15), and a 60-bit x would reach H = 2^15. */
static void boundary_src(char *buf, size_t cap, unsigned xbits, unsigned w)
{
    snprintf(buf, cap,
             "model b\nparam S = 3, D = 5\nscale 8\ninput x[S, D] @scale(40) @bits(%u)\n"
             "y[s, d] @bits(%u) = gelu(x[s, d])\noutput y\n",
             xbits, w);
}

START_TEST(test_boundary_width)
{
    char src[512];
    ez_pfx f;
    ez_diag d = {{0}}, why = {{0}};
    size_t bad = 0;
    boundary_src(src, sizeof src, 59, 32);
    ez_pfx_compile(&f, src);
    ck_assert_msg(ez_plan_soundness(&f.plan, &bad, &d) == EZ_OK, "%s", d.msg);
    run_inputs(&f, "boundary", 28, INT64_MAX);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
    ez_pfx_free(&f);
    /* the case forgeries at this width (A virtual over x, H and R's two limbs) */
    ez_pfx_compile(&f, src);
    run_inputs(&f, "boundary_tail_for_row", 28, INT64_MAX);
    tail_for_row(&f, 28, 32);
    ez_pfx_free(&f);
    ez_pfx_compile(&f, src);
    run_inputs(&f, "boundary_row_for_tail", 28, INT64_MAX);
    row_for_tail(&f, 28, 40, 8);
    ez_pfx_free(&f);
    boundary_src(src, sizeof src, 59, 33);
    ez_pfx_compile(&f, src);
    ck_assert_int_eq(ez_plan_soundness(&f.plan, &bad, &d), EZ_ERR_NUMERIC);
    ck_assert_uint_eq(bad, 0);
    ck_assert_msg(strstr(d.msg, "identity tail") != NULL, "%s", d.msg);
    ck_assert_uint_eq(ez_margins_widest_width(&f.plan, bad), 32);
    ez_plan_clear(&f.plan);
    /* one bit more of x: H leaves the sign table's rows, the layout refuses the op */
    boundary_src(src, sizeof src, 60, 32);
    ez_pfx_compile(&f, src);
    ez_advice_layout L;
    ck_assert_int_eq(ez_advice_layout_build(&L, &f.plan, &d), EZ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(d.msg, "reaches 2^31") != NULL, "%s", d.msg);
    ez_plan_clear(&f.plan);
}
END_TEST

/* FN-tv, FN-g2, FN-g1: a prover whose sumcheck runs over another linear factor TVm, G2 or
 * G1 (factors 0, 2, 3), changed at two entries so that the sum — and every round — still
 * holds (tests/prove_fixture.h ez_pfx_prove_forged): only the verifier's own value of that
 * factor from the committed atoms tells. */
START_TEST(test_forged_linear_factors)
{
    static const unsigned factor[] = {0, 2, 3};
    ez_pfx f;
    gelu16_run(&f, "forged_linear");
    for (size_t k = 0; k < 3; k++) {
        ez_diag why = {{0}};
        ck_assert(!ez_pfx_prove_forged(&f, NULL, 0, 4, factor[k], &why));
        ck_assert_msg(strstr(why.msg, "the function's sumcheck does not end in the committed values") != NULL,
                      "factor %u: %s", factor[k], why.msg);
    }
    ez_pfx_free(&f);
}
END_TEST

/* FN-c: C enters the sumcheck squared (TVm + C C G2 + C G1), so the forged factor's
 * two-entry shift does not apply; instead C at one entry x0 (with G2 != 0) becomes the
 * other root of C^2 G2 + C G1 = c0 (C' = -C - G1/G2): every term's sum, so every round,
 * is unchanged, and C's value at the final point is no longer the committed C's. The
 * linear factors stay honest; only the claim on the committed C rejects. */
typedef struct {
    bool done;
    ez_fe *c;
    ez_sumcheck_factor f[4];
} c_other_root;

static const ez_sumcheck_factor *c_other_root_hook(void *ctx, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                                   const ez_fe2 *eqp, const ez_sumcheck_factor *f)
{
    c_other_root *g = ctx;
    (void)coeffs, (void)eqp;
    if (g->done || d->nfactors != 4)
        return NULL;
    const size_t n = (size_t)1 << d->nvars;
    ck_assert(f[1].base && f[2].base && f[3].base);
    g->c = malloc(n * sizeof *g->c);
    memcpy(g->c, f[1].base, n * sizeof *g->c);
    for (size_t x = 0; x < n && !g->done; x++) {
        if (f[2].base[x] == 0)
            continue;
        ez_fe c2 = ez_fe_neg(ez_fe_add(g->c[x], ez_fe_mul(f[3].base[x], ez_fe_inv(f[2].base[x]))));
        if (c2 != g->c[x])
            g->c[x] = c2, g->done = true;
    }
    ck_assert(g->done);
    memcpy(g->f, f, sizeof g->f);
    g->f[1].base = g->c;
    return g->f;
}

START_TEST(test_forged_case_factor)
{
    ez_pfx f;
    gelu16_run(&f, "forged_case");
    c_other_root g = {0};
    ez_prove_opts o = {.sumcheck_hook = c_other_root_hook, .sumcheck_hook_ctx = &g};
    prove_expect_rejected(&f, &o, "advice opening");
    ck_assert(g.done);
    free(g.c);
    ez_pfx_free(&f);
}
END_TEST

/* RP-k: ROPE's sumcheck run over another rotation factor K (the public cos/sin MLE),
 * changed at two entries so that the sum and every round still hold (prove_fixture.h
 * ez_pfx_prove_forged): only the verifier's own K at the final point tells. */
START_TEST(test_rope_forged_rotation)
{
    ez_diag why = {{0}};
    ck_assert(!ez_pfx_prove_forged(&fx.f, NULL, 0, 2, 0, &why));
    ck_assert_msg(strstr(why.msg, "the rotation's sumcheck failed") != NULL, "%s", why.msg);
}
END_TEST

/* A stated input the trace does not have. In the lookup-only shape the function table's
 * lookup is the only relation on x — through the virtual input column 2^-k (x - R) (A
 * virtual, §2.2: x in the output's layout), or through the claim x = 2^k A + R at the
 * output point (A committed: a permuted output). A prover proves the true trace and
 * states x one unit off at one element (absorbing what it states: every challenge is the
 * verifier's); the claim derived on x (runtime/prove/rangecheck.c's tuple claims, or
 * func.c's link) is the trace's MLE, not the statement's, and only the public input's
 * check rejects. At the shape's boundary width (x' = x / 2^4 fills the rows: 20 bits at
 * scale 16), at k = 2, and at k = 0 (x' = x, A committed alone); then the same in the
 * sumcheck shape with A committed (24 bits: both tails), where the claim on x is the
 * sumcheck's (FN-x). */
START_TEST(test_stated_input)
{
    const struct {
        unsigned scale, bits, k, polys;
        const char *lhs;
    } cfg[] = {{16, 20, 4, 2, "y[s, d]"}, {14, 18, 2, 2, "y[s, d]"}, {16, 20, 4, 3, "y[d, s]"}, {12, 16, 0, 2, "y[d, s]"},
               {16, 24, 4, 6, "y[d, s]"}};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        char src[512], seed[64];
        ez_pfx f;
        snprintf(seed, sizeof seed, "stated_input_%zu", c);
        ez_pfx_compile(&f, func_src(src, sizeof src, "gelu", cfg[c].scale, cfg[c].bits, cfg[c].lhs, "x[s, d]"));
        /* TV and R (A virtual), or A, TV and R's limbs; the last: the sumcheck shape (A,
         * TV, H, C, R, R2), x tied to the committed A only by the claim x = 2^k (A + 2^16 H)
         * + R at the sumcheck's point */
        ck_assert_uint_eq(op_polys(&f.plan, 0), cfg[c].polys);
        run_inputs(&f, seed, cfg[c].k, INT64_MAX);
        const size_t x = f.plan.ops[0].in[0];
        const uint64_t n = ez_plan_tensor_numel(&f.plan.tensors[x]);
        int64_t *v = malloc(n * sizeof *v), **from = malloc(f.plan.ntensors * sizeof *from);
        memcpy(v, f.tr.t[x], n * sizeof *v);
        v[3] = v[3] > 0 ? v[3] - 1 : v[3] + 1;
        for (size_t i = 0; i < f.plan.ntensors; i++)
            from[i] = i == x ? v : f.tr.t[i];
        ez_prove_opts o = {.stmt_from = from};
        prove_expect_rejected(&f, &o, "a claim on the public input 'x' is false");
        free(from);
        free(v);
        ez_pfx_free(&f);
    }
}
END_TEST

/* FN-atoms: the sumcheck shape with A committed (a permuted output) ends in the atoms TV,
 * A, H, R's and R2's limbs, which are claims on their polys. A prover sends A + 2^16 and
 * H - 1 at the final point (ez_prove_opts.msg_hook): x = 2^k (A + 2^16 H) + R, every linear
 * factor and the claim on x are unchanged, the transcript consistent; only the openings of
 * A and H reject. */
static void shift_func_atoms(void *ctx, const char *label, ez_fe2 *v, size_t n)
{
    int *done = ctx;
    if (*done || n < 3 || strcmp(label, "func/atoms") != 0)
        return;
    v[1] = ez_fe2_add(v[1], ez_fe2_from_fe(UINT64_C(1) << 16));
    v[2] = ez_fe2_sub(v[2], ez_fe2_one());
    *done = 1;
}

START_TEST(test_func_atoms_sent_false)
{
    char src[512];
    ez_pfx f;
    ez_pfx_compile(&f, func_src(src, sizeof src, "gelu", 16, 24, "y[d, s]", "x[s, d]"));
    ck_assert_uint_eq(op_polys(&f.plan, 0), 6); /* A, TV, H, C, R, R2 */
    run_inputs(&f, "func_atoms", 4, INT64_MAX);
    int done = 0;
    ez_prove_opts o = {.msg_hook = shift_func_atoms, .msg_hook_ctx = &done};
    prove_expect_rejected(&f, &o, "advice opening");
    ck_assert(done);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_ops_func(void)
{
    const TTest *tests[] = {test_honest_functions, test_honest_lookup_only, test_honest_shapes, test_honest_relu,
        test_honest_swiglu, test_forged_linear_factors, test_relu_forged, test_changed_message_and_output,
        test_boundary_width, test_full_width_unchecked_output, test_honest_rope, test_honest_llama_block,
        test_rope_boundary_width, test_stated_input, test_forged_case_factor,
        test_func_atoms_sent_false};
    Suite *s = ez_test_suite("ops_func", "core", 300, tests, sizeof tests / sizeof tests[0]);
    const TTest *gelu16[] = {test_value_off_by_one, test_tail_for_row, test_row_for_tail, test_wrong_remainder,
        test_identity_tail_off_by_one, test_virtual_a_forged_case, test_tuple_atoms_sent_false};
    ez_tcase_add_fixture(s, "gelu16", 300, gelu16_setup, fx_teardown, gelu16, sizeof gelu16 / sizeof gelu16[0]);
    const TTest *rope[] = {test_rope_other_constants, test_rope_value_off_by_one, test_rope_value_off_by_one_compensated,
        test_rope_changed_message_and_output, test_rope_forged_rotation};
    ez_tcase_add_fixture(s, "rope", 300, rope_setup, fx_teardown, rope, sizeof rope / sizeof rope[0]);
    return s;
}

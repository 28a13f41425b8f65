/* Suite "prove": the whole-plan prover and verifier (runtime/prove.h, runtime/verify.h)
 * on small plans compiled from .ein sources or built by hand: honest proofs verify;
 * malicious provers — a changed activation, a remainder out of range, a quotient outside
 * its width paired with the remainder that satisfies the field equation, a residual sum
 * outside its width, a changed round message, a changed claimed output or public input —
 * are rejected; unsupported ops are refused by name; the causal mask's structured MLE
 * equals its brute-force MLE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/diag.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/recheck.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "lib/logup.h"
#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/formats/sections.h"
#include "runtime/formats/version.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/lookup.h"
#include "runtime/prove/masks.h"
#include "runtime/prove/pctx.h"
#include "runtime/ops/op.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/public.h"
#include "runtime/prove/session.h"
#include "runtime/prove/weights.h"
#include "runtime/prove/verify.h"
#include "tests/plan_fixture.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* The fixture of tests/prove_fixture.h, with this suite's inputs and weights: uniform in
 * [-2^9, 2^9] clamped to each tensor's bound (tokens uniform). */
typedef ez_pfx fx;

static int64_t fx_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    (void)ctx, (void)e;
    int64_t lim = INT64_C(1) << 9;
    if (lim > (int64_t)t->bound)
        lim = (int64_t)t->bound;
    return t->kind == EZ_TENSOR_TOKENS ? (int64_t)(r % (uint64_t)t->token_limit)
                                       : (int64_t)(r % (uint64_t)(2 * lim + 1)) - lim;
}

/* Random inputs and weights (small, so no op leaves its range), then run and commit. */
static void fx_run(fx *f, const char *seed)
{
    ez_pfx_run_values(f, seed, fx_value, NULL);
}

/* compile, then run with inputs and weights drawn from seed. */
static void fx_setup(fx *f, const char *src, const char *seed)
{
    ez_pfx_compile(f, src);
    fx_run(f, seed);
}

/* pf must be rejected with a reason containing needle; pf is cleared. */
static void fx_expect_rejected(fx *f, ez_proof *pf, const char *needle)
{
    ez_pfx_expect_rejected(f, pf, needle);
    ez_proof_clear(pf);
}

/* The index of f's tensor `name` (asserted present). */
static int fx_tensor(const fx *f, const char *name)
{
    int t = ez_plan_find_tensor(&f->plan, name);
    ck_assert_msg(t >= 0, "no tensor %s", name);
    return t;
}

/* Run again every op after the one computing tensor t (the test changed t's values): the
 * trace is consistent except for t's producer. */
static void fx_rerun_after(fx *f, int t)
{
    ez_diag d = {{0}};
    for (size_t i = (size_t)f->plan.tensors[t].producer + 1; i < f->plan.nops; i++)
        ck_assert_msg(ez_exec_op(&f->plan, i, &f->tr, &d) == EZ_OK, "%s", d.msg);
}

/* An honest proof into *pf, which must verify (the baseline of a malicious prover). */
static void fx_prove_honest(fx *f, ez_proof *pf, ez_diag *why)
{
    ez_pfx_prove(f, false, pf);
    ck_assert_msg(ez_pfx_verify(f, pf, why), "honest proof rejected: %s", why->msg);
}

static const char *linear_src = "model linear\n"
                                "param S = 8, D = 32, F = 64\n"
                                "scale 12\n"
                                "input x[S, D]\n"
                                "weight w1[D, F], b1[F]\n"
                                "weight w2[F, D], b2[D]\n"
                                "h[s, f] = x[s, d] * w1[d, f] + b1[f]\n"
                                "y[s, n] = h[s, f] * w2[f, n] + b2[n]\n"
                                "y[s, n] = y[s, n] + x[s, n]\n"
                                "output y\n";

/* E = 12: padded layouts with interior padding (zero padding proven in the vk). */
static const char *masked_src = "model masked\n"
                                "param S = 6, D = 16, E = 12\n"
                                "scale 12\n"
                                "input x[S, D]\n"
                                "weight wq[D, E], wk[D, E], wv[D, E]\n"
                                "q[s, e] = x[s, d] * wq[d, e]\n"
                                "k[t, e] = x[t, d] * wk[d, e]\n"
                                "v[t, e] = x[t, d] * wv[d, e]\n"
                                "a[s, t] = q[s, e] * k[t, e] / 4\n"
                                "m[s, t] = causal[s, t](a[s, t])\n"
                                "y[s, e] = m[s, t] * v[t, e]\n"
                                "output y\n";

/* A rescaled contraction last: its output is public, so advice tampering stays local. */
static const char *proj_src = "model proj\n"
                              "param S = 4, D = 24, N = 8\n"
                              "scale 12\n"
                              "input x[S, D]\n"
                              "weight w[D, N]\n"
                              "y[s, n] = x[s, d] * w[d, n]\n"
                              "output y\n";

static const char *proj16_src = "model proj16\n"
                                "param S = 4, D = 24, N = 8\n"
                                "scale 12\n"
                                "bits 16\n"
                                "input x[S, D]\n"
                                "weight w[D, N]\n"
                                "y[s, n] = x[s, d] * w[d, n]\n"
                                "output y\n";

static const char *gather_src = "model emb\n"
                                "param V = 20, S = 5, D = 8, N = 4\n"
                                "scale 12\n"
                                "input tok[S] : token\n"
                                "weight wte[V, D], wpe[S, D], w[D, N]\n"
                                "x[s, d] = wte[tok[s], d] + wpe[s, d]\n"
                                "y[s, n] = x[s, d] * w[d, n]\n"
                                "output y\n";

/* One small model per op kind that reads an input and produces the output y. */
static const char *last_op_srcs[] = {
    "model f\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @scale(12) @bits(16)\ny[s, d] = tanh(x[s, d])\noutput y\n",
    "model f\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @scale(16) @bits(24)\ny[s, d] = gelu(x[s, d])\noutput y\n",
    "model r\nparam S = 5, D = 7\nscale 12\ninput x[S, D] @bits(16)\ny[s, d] = relu(x[s, d])\noutput y\n",
    "model r\nparam S = 6, H = 2, E = 8\nscale 12\ninput q[S, H, E] @bits(20)\ny[s, h, e] = rope[s, e](q[s, h, e])\n"
    "output y\n",
    "model nm\nparam R = 5, N = 12\nscale 12\ninput x[R, N]\ny[s, d] = rmsnorm[d](x[s, d])\noutput y\n",
    "model nm\nparam R = 5, N = 12\nscale 12\ninput x[R, N]\ny[s, d] = layernorm[d](x[s, d])\noutput y\n",
    "model rs\nparam R = 4, N = 7\nscale 12\ninput x[R, N]\ny[s, d] = rsqrt(x[s, d])\noutput y\n",
    "model sm\nparam R = 4, T = 6\nscale 12\ninput x[R, T]\ny[r, t] = softmax[t](x[r, t])\noutput y\n",
    "model mx\nparam R = 5, T = 6\nbits 12\ninput x[R, T]\ny[r] = max[t](x[r, t])\noutput y\n",
    "model mx\nparam R = 5, T = 6\nbits 12\ninput x[R, T]\ny[r] = argmax[t](x[r, t])\noutput y\n",
};

static const char *layers_src = "model layers\n"
                                "param L = 3, S = 4, D = 8\n"
                                "scale 12\n"
                                "input x[S, D]\n"
                                "weight w[L, D, D], b[L, D]\n"
                                "for l in 0..L {\n"
                                "  x[s, e] = x[s, d] * w[l, d, e] + b[l, e] + x[s, e]\n"
                                "}\n"
                                "output x\n";

/* ---- the model fixture ------------------------------------------------------------------ */

/* The checked fixture of the "masked", "linear", "gather" and "proj" cases: that model compiled and
 * run (fx_setup) before each test, which may change its trace; freed after it. */
static fx mf;

static void masked_setup(void)
{
    fx_setup(&mf, masked_src, "masked");
}

static void linear_setup(void)
{
    fx_setup(&mf, linear_src, "linear");
}

static void gather_setup(void)
{
    fx_setup(&mf, gather_src, "gather");
}

static void proj_setup(void)
{
    fx_setup(&mf, proj_src, "proj");
}

static void mf_teardown(void)
{
    ez_pfx_free(&mf);
}

/* ---- structured MLE ------------------------------------------------------------------- */

START_TEST(test_mle_causal_bruteforce)
{
    ez_rng rng = ez_rng_for("mle_causal");
    const unsigned shapes[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {3, 1}, {1, 3}, {4, 2}, {0, 3}, {2, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        unsigned ni = shapes[s][0], nj = shapes[s][1], n = ni + nj;
        size_t N = (size_t)1 << n;
        ez_fe *m = malloc(N * sizeof *m);
        for (size_t x = 0; x < N; x++) {
            uint64_t i = x >> nj, j = x & ((UINT64_C(1) << nj) - 1);
            m[x] = j <= i;
        }
        for (int rep = 0; rep < 4; rep++) {
            ez_fe2 r[16];
            for (unsigned v = 0; v < n; v++)
                r[v] = ez_rng_fe2(&rng);
            ez_fe2 want = ez_mle_eval_fe(m, N, r, n);
            ez_fe2 got = ez_mle_causal(r, ni, r + ni, nj);
            ck_assert_msg(ez_fe2_eq(want, got), "causal MLE differs at ni=%u nj=%u", ni, nj);
        }
        /* on the cube it is the mask itself */
        for (size_t x = 0; x < N; x++) {
            ez_fe2 b[16];
            for (unsigned v = 0; v < n; v++)
                b[v] = ez_fe2_from_fe((x >> (n - 1 - v)) & 1);
            ck_assert(ez_fe2_eq(ez_mle_causal(b, ni, b + ni, nj), ez_fe2_from_fe(m[x])));
        }
        free(m);
    }
}
END_TEST

/* ---- honest provers ---------------------------------------------------------------------- */

static void honest(const char *src, const char *seed)
{
    ez_pfx_honest(src, seed, fx_value, NULL);
}

START_TEST(test_honest_linear)
{
    honest(linear_src, "honest_linear");
}
END_TEST

START_TEST(test_honest_masked)
{
    honest(masked_src, "honest_masked");
}
END_TEST

START_TEST(test_honest_gather)
{
    honest(gather_src, "honest_gather");
}
END_TEST

/* A prover claiming another public token than the one its embedding used: the verifier's
 * own one-hot evaluation rejects. */
START_TEST(test_gather_token)
{
    int tok = ez_plan_find_tensor(&mf.plan, "tok");
    mf.tr.t[tok][2] = (mf.tr.t[tok][2] + 1) % mf.plan.tensors[tok].token_limit;
    ez_pfx_expect_prove_rejected(&mf, true, "(gather)");
}
END_TEST

/* A masked entry (t > s) given a value, everything downstream recomputed from it: the
 * causal reduction rejects. */
START_TEST(test_changed_masked_entry)
{
    int m = fx_tensor(&mf, "m");
    uint64_t S = mf.plan.tensors[m].dims[1];
    ck_assert_int_eq(mf.tr.t[m][0 * S + 3], 0); /* row s = 0, column t = 3: masked */
    mf.tr.t[m][0 * S + 3] = 77;
    fx_rerun_after(&mf, m);
    ez_pfx_expect_prove_rejected(&mf, true, "op 'm' (causal)");
}
END_TEST

START_TEST(test_honest_layer_slices)
{
    honest(layers_src, "honest_layers");
}
END_TEST

START_TEST(test_honest_proj16)
{
    honest(proj16_src, "honest_proj16");
}
END_TEST

/* A hand-made plan (plan_fixture.h) made provable: scheduled, its bounds derived as a
 * compiler derives them, its digest; then run. */
static void fx_hand_finish(fx *f, const char *seed)
{
    ez_diag d = {{0}};
    ck_assert_msg(ez_plan_schedule(&f->plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_plan_rederive(&f->plan, &d) == EZ_OK, "%s", d.msg); /* bounds as a compiler derives them */
    ck_assert_int_eq(ez_plan_compute_digest(&f->plan, &d), EZ_OK);
    fx_run(f, seed);
}

/* A new hand-made plan whose first op is the output y = (x - 2 b + 4 c) / 2^3, its
 * indices of the given sizes; returns the op's index. */
static unsigned fx_hand_add_op(fx *f, const char *sizes)
{
    memset(f, 0, sizeof *f);
    ez_plan_init(&f->plan);
    snprintf(f->plan.model, sizeof f->plan.model, "hand");
    unsigned a = ez_fx_op(&f->plan, EZ_OP_ADD, "y[s,n] = x[s,n] + b[n] + c[s]", sizes);
    f->plan.ops[a].coef[1] = -2;
    f->plan.ops[a].coef[2] = 4;
    f->plan.ops[a].shift = 3;
    f->plan.tensors[f->plan.ops[a].out].is_output = true;
    return a;
}

/* That ADD alone (s = 5, n = 6), provable and run. */
static size_t fx_hand_add(fx *f, const char *seed)
{
    unsigned a = fx_hand_add_op(f, "s=5 n=6");
    fx_hand_finish(f, seed);
    return a;
}

/* ADD with broadcasting, negative and power-of-two coefficients and a shift; CAUSAL —
 * built by hand. */
START_TEST(test_honest_add_shift_hand)
{
    fx f;
    const char *sz = "s=5 t=5 n=6";
    fx_hand_add_op(&f, sz);
    unsigned c = ez_fx_op(&f.plan, EZ_OP_CAUSAL, "z[s,t] = g[s,t]", sz);
    f.plan.ops[c].mask_row = ez_fx_idx(&f.plan.ops[c], "s");
    f.plan.ops[c].mask_col = ez_fx_idx(&f.plan.ops[c], "t");
    f.plan.tensors[f.plan.ops[c].out].is_output = true;
    fx_hand_finish(&f, "add_shift_hand");
    ez_diag why = {{0}};
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
    ez_pfx_free(&f);
}
END_TEST

/* An op message (ez_pctx_msg) is a canonical field element: the ADD's remainder message,
 * 0 when every sum is a multiple of 2^3 (the input chosen so), written as p instead is
 * rejected — a second encoding of the same proof. */
START_TEST(test_message_non_canonical)
{
    fx f;
    ez_diag d = {{0}};
    size_t a = fx_hand_add(&f, "message_non_canonical");
    const ez_plan_op *op = &f.plan.ops[a];
    int64_t *x = f.tr.t[op->in[0]];
    const int64_t *b = f.tr.t[op->in[1]], *c = f.tr.t[op->in[2]];
    for (unsigned s_ = 0; s_ < 5; s_++)
        for (unsigned n = 0; n < 6; n++)
            x[s_ * 6 + n] = 2 * b[n] - 4 * c[s_] + 8 * (int64_t)((s_ + n) % 3);
    ck_assert_msg(ez_exec_run(&f.plan, &f.tr, &d) == EZ_OK, "%s", d.msg);
    ez_proof pf;
    ez_diag why = {{0}};
    fx_prove_honest(&f, &pf, &why);
    /* add/rem (after the merge of y's output and lookup claims) is the walk's one zero */
    const uint8_t zero[16] = {0};
    size_t at = 0;
    while (at + 16 <= pf.sec[EZ_PF_SEC_WALK].len && memcmp(pf.sec[EZ_PF_SEC_WALK].data + at, zero, 16) != 0)
        at += 16;
    ck_assert_uint_le(at + 16, pf.sec[EZ_PF_SEC_WALK].len);
    uint64_t pv = EZ_P;
    memcpy(pf.sec[EZ_PF_SEC_WALK].data + at, &pv, 8);
    fx_expect_rejected(&f, &pf, "non-canonical");
    ez_pfx_free(&f);
}
END_TEST

/* ---- one op alone: its verifier on a prover's bytes ---------------------------------------
 * The output claim is given; the prover side runs with its own trace and statement (or a
 * test's own prover), the verifier side with the true statement; both start from the same
 * transcript (ez_pfx_op_alone, no advice values). Returns the verifier's verdict (OK and
 * its bytes read exactly). */
static bool op_alone(fx *f, size_t op, const ez_claim *out, const ez_trace *trp, const ez_statement *sp,
                     const ez_statement *sv, ez_status (*prover)(ez_pctx *c, size_t op, const ez_claim *out, void *ctx),
                     void *ctx, ez_diag *why)
{
    ez_diag d = {{0}};
    ez_advice_layout L;
    ck_assert_int_eq(ez_advice_layout_build(&L, &f->plan, &d), EZ_OK);
    ez_pfx_alone a = {.label = "op-alone", .stmt = sp, .vstmt = sv, .prove = prover, .ctx = ctx};
    bool ok = ez_pfx_op_alone(&f->plan, trp, &L, NULL, op, out, &a, NULL, NULL, why);
    ez_advice_layout_clear(&L);
    return ok;
}

static size_t fx_find_op(const fx *f, ez_op_kind kind)
{
    for (size_t i = 0; i < f->plan.nops; i++)
        if (f->plan.ops[i].kind == kind)
            return i;
    ck_abort_msg("no such op");
    return 0;
}

/* A random claim on op's output with the value of `vals` there. */
static void claim_on(fx *f, size_t op, const int64_t *vals, ez_rng *rng, ez_claim *out)
{
    ez_pfx_random_claim(out, &f->plan.tensors[f->plan.ops[op].out], vals, rng);
}

/* GATHER's one-hot factor (runtime/ops/gather.c): the prover builds its one-hot H from
 * other tokens t' (and claims the output gathered with them), the verifier evaluates H
 * from the statement's tokens t. The sumcheck holds for H', the claim it leaves on the
 * table is true; only the verifier's own H~(pt) rejects. */
START_TEST(test_gather_other_tokens)
{
    ez_diag why = {{0}};
    size_t op = fx_find_op(&mf, EZ_OP_GATHER);
    int tok = ez_plan_find_tensor(&mf.plan, "tok");
    ez_trace t2;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_trace_init(&t2, &mf.plan, &d), EZ_OK);
    for (size_t i = 0; i < mf.plan.ntensors; i++) {
        const ez_plan_tensor *t = &mf.plan.tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        uint64_t n = ez_plan_tensor_numel(t);
        int64_t *v = malloc(n * sizeof *v);
        memcpy(v, mf.tr.t[i], n * sizeof *v);
        if ((int)i == tok)
            v[2] = (v[2] + 1) % t->token_limit;
        ck_assert_int_eq(ez_trace_set(&t2, i, v, n, &d), EZ_OK);
        free(v);
    }
    ck_assert_int_eq(ez_exec_run(&mf.plan, &t2, &d), EZ_OK);
    ez_statement sp, sv;
    ck_assert_int_eq(ez_statement_from_trace(&sp, &mf.plan, t2.t), EZ_OK);
    ck_assert_int_eq(ez_statement_from_trace(&sv, &mf.plan, mf.tr.t), EZ_OK);
    ez_rng rng = ez_rng_for("gather_other_tokens");
    ez_claim out;
    claim_on(&mf, op, t2.t[mf.plan.ops[op].out], &rng, &out);
    ck_assert(op_alone(&mf, op, &out, &t2, &sp, &sp, NULL, NULL, &why)); /* consistent */
    ck_assert(!op_alone(&mf, op, &out, &t2, &sp, &sv, NULL, NULL, &why));
    ck_assert_msg(strstr(why.msg, "one-hot") != NULL, "%s", why.msg);
    ez_claim_clear(&out);
    ez_statement_clear(&sp);
    ez_statement_clear(&sv);
    ez_trace_clear(&t2);
}
END_TEST

/* A CAUSAL prover that runs its sumcheck with the mask 1 everywhere: it proves the
 * unmasked input's value as the output's. */
static ez_status causal_unmasked(ez_pctx *c, size_t op, const ez_claim *out, void *ctx)
{
    (void)ctx;
    const ez_plan_op *o = &c->plan->ops[op];
    const ez_plan_tensor *ti = &c->plan->tensors[o->in[0]];
    unsigned n = out->nvars;
    size_t N = (size_t)1 << n;
    ez_claim_absorb(c->t, "causal/out", out);
    ez_fe *ones = malloc(N * sizeof *ones), *in = calloc(N, sizeof *in);
    for (size_t x = 0; x < N; x++)
        ones[x] = 1;
    ez_advice_pad_i64(in, c->tr->t[o->in[0]], ti, 0);
    ez_sumcheck_desc desc;
    ez_sumcheck_desc_init(&desc, n, 2);
    desc.eq_vars = (UINT64_C(1) << n) - 1;
    ez_sumcheck_factor fac[2] = {{ones, NULL}, {in, NULL}};
    ez_sumcheck_proof sp;
    ez_fe2 pt[64], ev[2];
    ez_status st = ez_sumcheck_prove(c->t, &desc, NULL, out->point, fac, out->value, &sp, pt, ev);
    if (st == EZ_OK)
        ez_sumcheck_proof_write(c->w, &sp);
    ez_sumcheck_proof_clear(&sp);
    free(ones);
    free(in);
    return st;
}

/* CAUSAL's mask factor (runtime/ops/causal.c): the claim z~(r) = g~(r), the UNMASKED
 * input's value, proven by a sumcheck with the mask 1 — every round checks, the claim
 * on g is true; only the verifier's own causal-mask MLE at the end rejects. */
START_TEST(test_causal_unmasked)
{
    fx f;
    memset(&f, 0, sizeof f);
    ez_plan_init(&f.plan);
    snprintf(f.plan.model, sizeof f.plan.model, "hand");
    unsigned c = ez_fx_op(&f.plan, EZ_OP_CAUSAL, "z[s,t] = g[s,t]", "s=5 t=5");
    f.plan.ops[c].mask_row = ez_fx_idx(&f.plan.ops[c], "s");
    f.plan.ops[c].mask_col = ez_fx_idx(&f.plan.ops[c], "t");
    f.plan.tensors[f.plan.ops[c].out].is_output = true;
    ez_diag d = {{0}}, why = {{0}};
    ck_assert_msg(ez_plan_schedule(&f.plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_plan_rederive(&f.plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_int_eq(ez_plan_compute_digest(&f.plan, &d), EZ_OK);
    fx_run(&f, "causal_unmasked");
    ez_statement sv;
    ck_assert_int_eq(ez_statement_from_trace(&sv, &f.plan, f.tr.t), EZ_OK);
    ez_rng rng = ez_rng_for("causal_unmasked");
    ez_claim out;
    claim_on(&f, c, f.tr.t[f.plan.ops[c].in[0]], &rng, &out); /* g's values: unmasked */
    ck_assert(!op_alone(&f, c, &out, &f.tr, &sv, &sv, causal_unmasked, NULL, &why));
    ck_assert_msg(strstr(why.msg, "masking sumcheck") != NULL, "%s", why.msg);
    ez_claim_clear(&out);
    ez_statement_clear(&sv);
    ez_pfx_free(&f);
}
END_TEST


/* The output claim is tied to what the last op commits (relu's y, a function's table
 * value, rope's and the norms' rescale, softmax's p, max's M, a public argmax's
 * one-hot): a prover states an output one unit off at one element while proving the
 * true trace — it absorbs what it states, so every challenge is the verifier's; every
 * reduction holds for the witness; only the claim linking the stated output to the
 * committed (or, for a public argmax, the verifier's own one-hot) rejects. */
START_TEST(test_stated_output_not_proven)
{
    for (size_t k = 0; k < sizeof last_op_srcs / sizeof last_op_srcs[0]; k++) {
        fx f;
        ez_diag why = {{0}};
        fx_setup(&f, last_op_srcs[k], "stated_output");
        int y = fx_tensor(&f, "y");
        const ez_plan_tensor *ty = &f.plan.tensors[y];
        uint64_t n = ez_plan_tensor_numel(ty);
        int64_t *v = malloc(n * sizeof *v);
        memcpy(v, f.tr.t[y], n * sizeof *v);
        int64_t hi = f.plan.ops[f.plan.nops - 1].kind == EZ_OP_ARGMAX ? 5 : (INT64_C(1) << (ty->bits - 1)) - 1;
        v[1] = v[1] < hi ? v[1] + 1 : v[1] - 1;
        int64_t **from = malloc(f.plan.ntensors * sizeof *from);
        for (size_t i = 0; i < f.plan.ntensors; i++)
            from[i] = (int)i == y ? v : f.tr.t[i];
        ez_prove_opts o = {.stmt_from = from};
        ez_proof pf;
        ez_proof_init(&pf);
        ck_assert_msg(ez_prove(&f.plan, &f.tr, f.w, &o, &pf, NULL, &why) == EZ_OK, "%zu: prove: %s", k, why.msg);
        ck_assert_msg(!ez_pfx_verify(&f, &pf, &why), "%zu: a stated output the trace does not have was accepted", k);
        ez_proof_clear(&pf);
        free(from);
        free(v);
        ez_pfx_free(&f);
    }
}
END_TEST

/* ---- unsupported ops ----------------------------------------------------------------------- */

/* ---- malicious provers ------------------------------------------------------------------- */

/* One activation changed, everything downstream recomputed from it: only the producer's
 * relation is violated. */
START_TEST(test_changed_activation)
{
    int h = fx_tensor(&mf, "h");
    mf.tr.t[h][5] += 1;
    fx_rerun_after(&mf, h);
    ez_pfx_expect_prove_rejected(&mf, true, "op 'h' (add)");
}
END_TEST

/* The einsum's output value changed in the trace without recomputing anything. */
START_TEST(test_changed_einsum_output)
{
    ez_diag why = {{0}};
    int q = fx_tensor(&mf, "q");
    mf.tr.t[q][3] -= 7;
    ck_assert(!ez_pfx_prove_verify(&mf, true, &why));
}
END_TEST

/* Find an element whose remainder satisfies pred; returns its index. */
static uint64_t find_rem(const fx *f, size_t op, int64_t lo, int64_t hi)
{
    uint64_t n = 0;
    const int64_t *rem = ez_trace_aux(&f->tr, op, EZ_AUX_REM, &n);
    ck_assert_ptr_nonnull(rem);
    for (uint64_t e = 0; e < n; e++)
        if (rem[e] >= lo && rem[e] <= hi)
            return e;
    ck_abort_msg("no suitable remainder");
    return 0;
}

/* R' = R + 2^k (out of range) with C' = C - 1: acc = 2^k C' + R' still holds. */
static void remainder_out_of_range(const char *src, const char *seed)
{
    fx f;
    fx_setup(&f, src, seed);
    size_t op = f.plan.nops - 1;
    unsigned k = f.plan.ops[op].shift;
    ck_assert_uint_gt(k, 0);
    uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << k) - 1);
    int64_t *rem = (int64_t *)ez_trace_aux(&f.tr, op, EZ_AUX_REM, NULL);
    rem[e] += INT64_C(1) << k;
    f.tr.t[f.plan.ops[op].out][e] -= 1;
    ez_pfx_expect_prove_rejected(&f, true, "lookups");
    ez_pfx_free(&f);
}

START_TEST(test_remainder_out_of_range)
{
    remainder_out_of_range(proj_src, "rem_out_of_range");
    remainder_out_of_range(proj16_src, "rem_out_of_range16");
}
END_TEST

/* R' = R + 1 (in range) and C' = (acc - R') / 2^k in the field: the quotient is no
 * integer of its width — only the quotient's range check can catch it. The quotient here
 * is an output of the model, so that check is the verifier's width check of the
 * statement (rangecheck.h ez_rc_check_width: nothing is looked up for it). */
static void quotient_out_of_width(const char *src, const char *seed)
{
    fx f;
    fx_setup(&f, src, seed);
    size_t op = f.plan.nops - 1;
    unsigned k = f.plan.ops[op].shift;
    uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << k) - 2);
    int64_t *rem = (int64_t *)ez_trace_aux(&f.tr, op, EZ_AUX_REM, NULL);
    rem[e] += 1;
    int64_t *out = f.tr.t[f.plan.ops[op].out];
    ez_fe c = ez_fe_sub(ez_fe_from_i64(out[e]), ez_fe_inv(ez_fe_pow(2, k)));
    out[e] = ez_fe_to_i64(c);
    ez_pfx_expect_prove_rejected(&f, true, "statement: output");
    ez_pfx_free(&f);
}

START_TEST(test_quotient_out_of_width)
{
    quotient_out_of_width(proj_src, "quot_out_of_width");
    quotient_out_of_width(proj16_src, "quot_out_of_width16");
}
END_TEST

/* ---- a prover whose commitments are not its walk's witness ------------------------------
 * The advice and the looked-up columns come from one trace, the output claims and the
 * backward walk from another (ez_prove_opts.walk_tr), the statement from the walk's: each
 * check that ties a walk claim to a commitment or a lookup is then the only thing standing
 * between the verifier and a false statement. */
typedef void (*fx_edit)(fx *f, ez_trace *t, size_t op, uint64_t e);

/* Prove with the witness edited by wit and the walk by walk (op's element e), verify. */
static bool fx_split_witness(fx *f, size_t op, uint64_t e, fx_edit wit, fx_edit walk, ez_diag *why)
{
    ez_trace tw, tk;
    ez_pfx_copy_trace(f, &tw);
    ez_pfx_copy_trace(f, &tk);
    wit(f, &tw, op, e);
    walk(f, &tk, op, e);
    bool ok = ez_pfx_prove_split(f, &tw, &tk, why);
    ez_trace_clear(&tw);
    ez_trace_clear(&tk);
    return ok;
}

static int64_t *fx_rem(ez_trace *t, size_t op)
{
    return t->ops[op].aux[EZ_AUX_REM];
}

/* The rescale's k: the width of the op's committed remainder (ez_rc_rescale), 0 when
 * the op has none */
static unsigned fx_rescale_bits(const fx *f, size_t op)
{
    ez_advice_layout L;
    ez_diag d = {{0}};
    ck_assert_msg(ez_advice_layout_build(&L, &f->plan, &d) == EZ_OK, "%s", d.msg);
    unsigned k = L.op_rem[op] >= 0 ? L.values[L.op_rem[op]].bits : 0;
    ez_advice_layout_clear(&L);
    return k;
}

/* C' = C + 1, R' = R - 2^k: acc = 2^k C' + R' holds, R' is negative */
static void edit_out_up_rem_down(fx *f, ez_trace *t, size_t op, uint64_t e)
{
    t->t[f->plan.ops[op].out][e] += 1;
    fx_rem(t, op)[e] -= INT64_C(1) << fx_rescale_bits(f, op);
}

/* C' = C + 1 only (the committed remainder stays the true, in-range one) */
static void edit_out_up(fx *f, ez_trace *t, size_t op, uint64_t e)
{
    t->t[f->plan.ops[op].out][e] += 1;
}

/* R' = R + 1, C' = (acc - R') / 2^k in the field: no integer of its width */
static void edit_quotient_out_of_width(fx *f, ez_trace *t, size_t op, uint64_t e)
{
    fx_rem(t, op)[e] += 1;
    int64_t *out = t->t[f->plan.ops[op].out];
    out[e] = ez_fe_to_i64(ez_fe_sub(ez_fe_from_i64(out[e]), ez_fe_inv(ez_fe_pow(2, f->plan.ops[op].shift))));
}

/* R' = R + 1 only (the looked-up quotient stays the true one) */
static void edit_rem_up(fx *f, ez_trace *t, size_t op, uint64_t e)
{
    (void)f;
    fx_rem(t, op)[e] += 1;
}

/* The remainder's limb claims (runtime/prove/rangecheck.c ez_rc_value_claim): the
 * rescale's output C' = C + 1 with R' = R - 2^k in the walk, the true (in-range) R
 * committed and looked up. Every range check holds (C' is in its width); only the claims
 * tying the walk's R'~(r) to the committed limbs reject. Without them any in-range output
 * would prove. */

START_TEST(test_remainder_not_committed)
{
    /* an einsum at two widths, ADD, ROPE, RMSNORM, RSQRT */
    const char *srcs[] = {proj16_src, proj_src, NULL, last_op_srcs[3], last_op_srcs[4], last_op_srcs[6]};
    for (size_t k = 0; k < sizeof srcs / sizeof srcs[0]; k++) {
        fx f;
        ez_diag why = {{0}};
        size_t op;
        if (srcs[k] == NULL) {
            op = fx_hand_add(&f, "remainder_not_committed_add");
        } else {
            fx_setup(&f, srcs[k], "remainder_not_committed");
            op = f.plan.nops - 1;
        }
        ck_assert_uint_gt(fx_rescale_bits(&f, op), 0);
        const int64_t *out = f.tr.t[f.plan.ops[op].out];
        uint64_t e = 0, n = 0;
        ez_trace_aux(&f.tr, op, EZ_AUX_REM, &n);
        while (e < n && out[e] >= 100) /* C + 1 inside the width */
            e++;
        ck_assert_uint_lt(e, n);
        ck_assert(!fx_split_witness(&f, op, e, edit_out_up, edit_out_up_rem_down, &why));
        ck_assert_msg(strstr(why.msg, "advice opening") != NULL, "%zu: %s", k, why.msg);
        ez_pfx_free(&f);
    }
}
END_TEST

/* A model output's quotient out of its width in the walk (with the field-consistent
 * remainder, test_quotient_out_of_width) while the lookups hold the TRUE quotient. Outputs
 * are public and no longer looked up: the verifier checks each output's width on the
 * statement, so that check rejects. (The claim from a looked-up column to its tensor
 * atom has its own test, test_lookup_column_not_the_tensor below.) */
START_TEST(test_output_quotient_out_of_width)
{
    const char *srcs[] = {proj16_src, proj_src};
    for (size_t k = 0; k < 2; k++) {
        fx f;
        ez_diag why = {{0}};
        fx_setup(&f, srcs[k], "output_quotient_out_of_width");
        size_t op = f.plan.nops - 1;
        uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << f.plan.ops[op].shift) - 2);
        ck_assert(!fx_split_witness(&f, op, e, edit_rem_up, edit_quotient_out_of_width, &why));
        ck_assert_msg(strstr(why.msg, "statement: output y[") && strstr(why.msg, "is outside its range"), "%zu: %s", k,
                      why.msg);
        ez_pfx_free(&f);
    }
}
END_TEST

/* RC-atom: a range-checked sum (h = x + x2 at 16 bits, marked checked: its bound 2^16
 * exceeds its width) whose walk value is out of its width, 2^15 = 2^14 + 2^14, exactly the
 * sum (the ADD holds) and exactly half the statement's 24-bit y = h + h = 2^16; the
 * looked-up column is the true, in-range h of another trace. The lookup holds; only the
 * column's claim turned into a claim on tensor h, merged with the walk's claims on h,
 * rejects. */
static const char *sum_src = "model sum\nparam S = 4, N = 8\nbits 16\nscale 0\ninput x[S, N], x2[S, N]\n"
                             "h[s, n] = x[s, n] + x2[s, n]\ny[s, n] @bits(24) = h[s, n] + h[s, n]\noutput y\n";

static void edit_nothing(fx *f, ez_trace *t, size_t op, uint64_t e)
{
    (void)f, (void)t, (void)op, (void)e;
}

static void edit_sum_over_width(fx *f, ez_trace *t, size_t op, uint64_t e)
{
    const ez_plan_op *o = &f->plan.ops[op];
    t->t[o->in[0]][e] = INT64_C(1) << 14;
    t->t[o->in[1]][e] = INT64_C(1) << 14;
    t->t[o->out][e] = INT64_C(1) << 15;
    t->t[f->plan.ops[op + 1].out][e] = INT64_C(1) << 16;
}

START_TEST(test_lookup_column_not_the_tensor)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, sum_src, "lookup_column_not_the_tensor");
    ck_assert_uint_eq(f.plan.nops, 2);
    ck_assert(f.plan.ops[0].checked);
    ck_assert(!f.plan.ops[1].checked);
    ck_assert(fx_split_witness(&f, 0, 3, edit_nothing, edit_nothing, &why));
    ck_assert(!fx_split_witness(&f, 0, 3, edit_nothing, edit_sum_over_width, &why));
    ck_assert_str_eq(why.msg, "op 'h' (add): the fan-out merge failed");
    ez_pfx_free(&f);
}
END_TEST

/* ---- a prover assembled from the session's phases (runtime/prove/session.h), as ez_prove
 * does, with a test's hands between them: before the advice commitment (the session's
 * polys and lens), the scheme it is committed under, and after it (the polys the lookups
 * read, with the transcript as the lookups will start from it). The commitment keeps
 * what was committed. */
typedef struct {
    void *ctx;
    void (*before_commit)(void *ctx, ez_psess *s);
    unsigned scheme; /* 0: the weights' family (ez_advice_scheme) */
    void (*before_lookups)(void *ctx, ez_psess *s, const ez_transcript *t);
} fx_cheat;

static void fx_prove_cheat(fx *f, const ez_trace *tr, const fx_cheat *ch, ez_proof *pf)
{
    ez_diag d = {{0}};
    const ez_plan *p = &f->plan;
    ez_psess s;
    ez_pctx c;
    ez_transcript t;
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    ez_proof_init(pf);
    ck_assert_int_eq(ez_advice_layout_build(&s.L, p, &d), EZ_OK);
    ck_assert_int_eq(ez_statement_from_trace(&pf->stmt, p, tr->t), EZ_OK);
    s.keep_cols = true; /* the hooks may read and replace the columns between the phases */
    ck_assert_msg(ez_psess_witness(&s, p, tr, true, &d) == EZ_OK, "%s", d.msg);
    const ez_pcs_commitment *wcom = f->w ? ez_pcs_prover_commitment(f->w) : NULL; /* as ez_prove */
    ez_proof_bind(&pf->bind, p, wcom);
    ez_proof_transcript_start(&t, p, wcom, &pf->stmt, EZ_STRATEGY_EINSUM);
    if (ch->before_commit)
        ch->before_commit(ch->ctx, &s);
    unsigned scheme = ch->scheme ? ch->scheme : ez_advice_scheme(wcom);
    ck_assert_int_eq(ez_psess_commit(&s, &t, &pf->sec[EZ_PF_SEC_ADVICE], scheme), EZ_OK);
    c.prover = true, c.plan = p, c.adv = &s.L, c.t = &t, c.tr = tr, c.stmt = &pf->stmt, c.advice = s.polys;
    c.strategy = EZ_STRATEGY_EINSUM, c.d = &d;
    ck_assert_int_eq(ez_pctx_alloc(&c, p, &s.L), EZ_OK);
    if (ch->before_lookups)
        ch->before_lookups(ch->ctx, &s, &t);
    c.w = &pf->sec[EZ_PF_SEC_LOOKUPS];
    ck_assert_msg(ez_psess_lookups(&s, &c) == EZ_OK, "%s", d.msg);
    c.w = &pf->sec[EZ_PF_SEC_WALK];
    ck_assert_int_eq(ez_proof_output_claims(&c, &pf->stmt), EZ_OK);
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        ez_claim_list *l = &c.tclaims[op->out];
        if (l->n == 0)
            continue;
        const ez_plan_tensor *to = &p->tensors[op->out];
        ez_claim m = {0};
        ez_status st = l->n == 1 ? ez_claim_copy(&m, &l->items[0])
                                 : ez_claim_merge_prove(&t, tr->t[op->out], to->dims, to->rank, l->items, l->n, c.w, &m);
        ez_claim_list_clear(l);
        ck_assert_int_eq(st, EZ_OK);
        ck_assert_msg(ez_op_prove(&c, i, &m) == EZ_OK, "%s", d.msg);
        ez_claim_clear(&m);
    }
    ck_assert_int_eq(ez_psess_openings(&s, &c, f->w, EZ_PCS_OPEN_NO_PROXIMITY, &pf->sec[EZ_PF_SEC_OPEN_W],
                                       &pf->sec[EZ_PF_SEC_OPEN_A]),
                     EZ_OK);
    ez_pctx_free(&c);
    ez_psess_clear(&s);
}

/* The range table's LogUp challenges alpha, gamma as ez_logup_prove will draw them from
 * t (lib/logup.c: the statement, then alpha, gamma). */
static void range_lookup_challenges(const ez_psess *s, size_t tb, const ez_transcript *t, ez_fe2 *alpha,
                                    ez_fe2 *gamma)
{
    const ez_lookup_table_desc *td = &s->L.tables[tb];
    const ez_sess_cols *tc = &s->tcs[tb];
    ez_transcript u = *t;
    uint64_t size = ez_advice_table_rows(td);
    ez_transcript_absorb_u64(&u, "logup/kind", EZ_TABLE_RANGES);
    ez_transcript_absorb_u64(&u, "logup/table_size", size);
    ez_transcript_absorb_u64(&u, "logup/width", 1);
    ez_transcript_absorb_u64(&u, "logup/ncolumns", tc->nc);
    for (size_t i = 0; i < tc->nc; i++)
        ez_transcript_absorb_u64(&u, "logup/len", tc->lens[i]);
    ez_transcript_absorb_u64(&u, "logup/nranges", td->nranges);
    for (unsigned k = 0; k < td->nranges; k++)
        ez_transcript_absorb_u64(&u, "logup/rbits", td->rbits[k]);
    for (size_t i = 0; i < tc->nc; i++)
        ez_transcript_absorb_u64(&u, "logup/tag", tc->tags[i]);
    if (td->pairs != 0)
        ez_transcript_absorb_u64(&u, "logup/pairs", td->pairs);
    *alpha = ez_transcript_challenge_fe2(&u, "logup/alpha");
    *gamma = ez_transcript_challenge_fe2(&u, "logup/gamma");
}

/* Multiplicities chosen after alpha: the looked-up value outside its range, F = v +
 * gamma b, is "explained" by two table rows T_0, T_1 (values 0, 1 of the first region):
 * m_0 += a, m_1 += b with a / (alpha - T_0) + b / (alpha - T_1) = 1 / (alpha - F), a, b
 * in F (two equations, the coordinates of K). The LogUp identity then holds. */
static void mult_after_alpha(void *ctx, ez_psess *s, const ez_transcript *t)
{
    int *done = ctx;
    for (size_t tb = 0; tb < s->L.ntables; tb++) {
        if (s->L.tables[tb].kind != EZ_LOOKUP_RANGES)
            continue;
        ez_fe2 alpha, gamma, F = ez_fe2_zero();
        range_lookup_challenges(s, tb, t, &alpha, &gamma);
        const ez_sess_cols *tc = &s->tcs[tb];
        bool found = false;
        for (size_t j = 0; j < tc->nc && !found; j++)
            for (uint64_t i = 0; i < tc->lens[j] && !found; i++)
                if (tc->cols[j][i] >> tc->tags[j]) {
                    F = ez_fe2_add(ez_fe2_from_fe(tc->cols[j][i]), ez_fe2_mul_fe(gamma, tc->tags[j]));
                    found = true;
                }
        ck_assert(found);
        unsigned b0 = s->L.tables[tb].rbits[0];
        ez_fe2 A0 = ez_fe2_inv(ez_fe2_sub(alpha, ez_fe2_mul_fe(gamma, b0)));
        ez_fe2 A1 = ez_fe2_inv(ez_fe2_sub(alpha, ez_fe2_add(ez_fe2_one(), ez_fe2_mul_fe(gamma, b0))));
        ez_fe2 B = ez_fe2_inv(ez_fe2_sub(alpha, F));
        ez_fe det = ez_fe_sub(ez_fe_mul(A0.c0, A1.c1), ez_fe_mul(A1.c0, A0.c1)), idet = ez_fe_inv(det);
        ez_fe a = ez_fe_mul(ez_fe_sub(ez_fe_mul(B.c0, A1.c1), ez_fe_mul(A1.c0, B.c1)), idet);
        ez_fe b = ez_fe_mul(ez_fe_sub(ez_fe_mul(A0.c0, B.c1), ez_fe_mul(B.c0, A0.c1)), idet);
        ez_fe *m = s->polys[ez_advice_table_poly(&s->L, (unsigned)tb)];
        m[0] = ez_fe_add(m[0], a);
        m[1] = ez_fe_add(m[1], b);
        *done = 1;
    }
}

/* The range table's multiplicity claim (runtime/prove/rangecheck.c ez_rc_resolve): a
 * remainder outside its range (R' = R + 2^k, C' = C - 1: the false output C'), its
 * multiplicities chosen after alpha so that the LogUp identity holds; the committed
 * multiplicities are the true counts. Every lookup check passes; only the multiplicity
 * claim, opened against the commitment, rejects — LogUp's soundness needs m fixed before
 * alpha. */
START_TEST(test_multiplicities_after_alpha)
{
    fx f;
    fx_setup(&f, proj16_src, "multiplicities_after_alpha");
    size_t op = f.plan.nops - 1;
    unsigned k = f.plan.ops[op].shift;
    uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << k) - 1);
    fx_rem(&f.tr, op)[e] += INT64_C(1) << k;
    f.tr.t[f.plan.ops[op].out][e] -= 1;
    int done = 0;
    fx_cheat ch = {.ctx = &done, .before_lookups = mult_after_alpha};
    ez_proof pf;
    fx_prove_cheat(&f, &f.tr, &ch, &pf);
    ck_assert(done);
    fx_expect_rejected(&f, &pf, "advice opening");
    ez_pfx_free(&f);
}
END_TEST

/* A function table's looked-up tuples are claims on their atoms (runtime/prove/rangecheck.c
 * ez_rc_resolve_tuples): the committed witness has tanh's output one unit off at one
 * element (y' = f(x) + 1, the statement's), but the LogUp runs on the honest witness's
 * columns, and the committed multiplicities are the honest ones. The lookup holds, the
 * walk and every opening hold for y'; only the claims tying the looked-up columns to the
 * committed atoms reject. */
typedef struct {
    ez_psess honest;
} honest_tuples;

static void honest_mult(void *ctx, ez_psess *s)
{
    honest_tuples *h = ctx;
    for (size_t tb = 0; tb < s->L.ntables; tb++)
        if (s->L.tables[tb].kind != EZ_LOOKUP_RANGES) {
            size_t q = ez_advice_table_poly(&s->L, (unsigned)tb);
            memcpy(s->polys[q], h->honest.polys[q], s->alens[q] * sizeof(ez_fe));
        }
}

static void honest_columns(void *ctx, ez_psess *s, const ez_transcript *t)
{
    honest_tuples *h = ctx;
    (void)t;
    for (size_t tb = 0; tb < s->L.ntables; tb++)
        if (s->L.tables[tb].kind != EZ_LOOKUP_RANGES)
            for (size_t j = 0; j < EZ_LOOKUP_FUNC_WIDTH * s->tcs[tb].nc; j++)
                s->tcs[tb].cols[j] = h->honest.tcs[tb].cols[j];
}

START_TEST(test_tuple_columns_not_committed)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, last_op_srcs[0], "tuple_columns_not_committed");
    honest_tuples h;
    memset(&h, 0, sizeof h);
    ck_assert_int_eq(ez_advice_layout_build(&h.honest.L, &f.plan, &why), EZ_OK);
    h.honest.keep_cols = true; /* its columns are handed to the cheating prover */
    ck_assert_msg(ez_psess_witness(&h.honest, &f.plan, &f.tr, false, &why) == EZ_OK, "%s", why.msg);
    ez_trace t2;
    ez_pfx_copy_trace(&f, &t2);
    int y = ez_plan_find_tensor(&f.plan, "y");
    t2.t[y][1] += 1;
    fx_cheat ch = {.ctx = &h, .before_commit = honest_mult, .before_lookups = honest_columns};
    ez_proof pf;
    fx_prove_cheat(&f, &t2, &ch, &pf);
    fx_expect_rejected(&f, &pf, "advice opening");
    ez_trace_clear(&t2);
    ez_psess_clear(&h.honest);
    ez_pfx_free(&f);
}
END_TEST

/* A function table's multiplicities are opened (runtime/prove/rangecheck.c
 * ez_rc_resolve_tuples): committed with one count off, the LogUp run on the true counts.
 * Every lookup check and every other claim holds; only the multiplicity claim, opened
 * against the commitment, rejects — without it m could be chosen after alpha. */
static void func_mult_bump(void *ctx, ez_psess *s, int by)
{
    (void)ctx;
    for (size_t tb = 0; tb < s->L.ntables; tb++)
        if (s->L.tables[tb].kind != EZ_LOOKUP_RANGES) {
            ez_fe *m = s->polys[ez_advice_table_poly(&s->L, (unsigned)tb)];
            m[0] = by > 0 ? ez_fe_add(m[0], 1) : ez_fe_sub(m[0], 1);
        }
}

static void func_mult_up(void *ctx, ez_psess *s)
{
    func_mult_bump(ctx, s, 1);
}

static void func_mult_down(void *ctx, ez_psess *s, const ez_transcript *t)
{
    (void)t;
    func_mult_bump(ctx, s, -1);
}

START_TEST(test_func_multiplicities_not_committed)
{
    fx f;
    fx_setup(&f, last_op_srcs[0], "func_multiplicities_not_committed");
    fx_cheat ch = {.before_commit = func_mult_up, .before_lookups = func_mult_down};
    ez_proof pf;
    fx_prove_cheat(&f, &f.tr, &ch, &pf);
    fx_expect_rejected(&f, &pf, "advice opening");
    ez_pfx_free(&f);
}
END_TEST

/* A virtual column's extra atoms are claimed at the values the prover sends
 * (runtime/prove/rangecheck.c ez_rc_resolve): a 40-bit quotient's high part H has two
 * 16-bit limbs, the low 16 bits are virtual, x - 2^16 H0 - 2^32 H1. A prover sends
 * H0 + 2^16 and H1 - 1 at the lookup point (the derived claim on x is unchanged, its
 * transcript consistent: ez_prove_opts.msg_hook); only the claims on the limbs reject. */
static void shift_limbs(void *ctx, const char *label, ez_fe2 *v, size_t n)
{
    int *done = ctx;
    if (*done || n != 2 || strcmp(label, "col/atoms") != 0)
        return;
    v[0] = ez_fe2_add(v[0], ez_fe2_from_fe(UINT64_C(1) << 16));
    v[1] = ez_fe2_sub(v[1], ez_fe2_one());
    *done = 1;
}

START_TEST(test_extra_atoms_sent_false)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f,
             "model wide\nparam S = 4, D = 8, N = 4\nbits 40\nscale 12\ninput x[S, D] @bits(16)\n"
             "weight w[D, N] @bits(16)\ny[s, n] = x[s, d] * w[d, n]\nz[s, n] = relu(y[s, n])\noutput z\n",
             "extra_atoms_sent_false"); /* y not an output: its 40-bit quotient is committed */
    int done = 0;
    ez_prove_opts o = {.msg_hook = shift_limbs, .msg_hook_ctx = &done};
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_msg(ez_prove(&f.plan, &f.tr, f.w, &o, &pf, NULL, &why) == EZ_OK, "prove: %s", why.msg);
    ck_assert(done);
    fx_expect_rejected(&f, &pf, "advice opening");
    ez_pfx_free(&f);
}
END_TEST

/* One advice poly committed one entry longer (a zero: every claim keeps its value); the
 * lookups and the walk read the original again (the columns point into it). */
typedef struct {
    size_t q;
    ez_fe *orig, *longer;
} longer_poly;

static void longer_advice_poly(void *ctx, ez_psess *s)
{
    longer_poly *lp = ctx;
    for (size_t q = 0; q < s->L.npolys && !lp->longer; q++) {
        uint64_t n = s->alens[q];
        if ((n & (n - 1)) == 0 || s->L.polys[q].support >= 0)
            continue; /* keep the variable count; a plain vector (a support fixes its length) */
        lp->longer = ez_alloc_aligned(n + 1, sizeof(ez_fe));
        memcpy(lp->longer, s->polys[q], n * sizeof(ez_fe));
        lp->longer[n] = 0;
        lp->q = q;
        lp->orig = s->polys[q];
        s->polys[q] = lp->longer;
        s->alens[q] = n + 1;
    }
}

static void restore_advice_poly(void *ctx, ez_psess *s, const ez_transcript *t)
{
    longer_poly *lp = ctx;
    (void)t;
    s->polys[lp->q] = lp->orig;
    s->alens[lp->q]--;
    free(lp->longer);
}

/* The advice commitment is the layout's, under the vk's scheme family (docs/protocol.md
 * §6.3): a proof whose advice is committed with another layout (one poly an entry longer,
 * zero there, so every claim holds) or under the other scheme is rejected, though every
 * opening of it is consistent. */
START_TEST(test_advice_commitment_shape)
{
    fx f;
    ez_diag why = {{0}};
    /* h [6, 16] has no interior padding: its rescale's polys are plain vectors of 96 */
    fx_setup(&f,
             "model chain\nparam S = 6, D = 16\nscale 12\ninput x[S, D]\nweight w[D, D], u[D, D]\n"
             "h[s, n] = x[s, d] * w[d, n]\ny[s, m] = h[s, n] * u[n, m]\noutput y\n",
             "advice_commitment_shape");
    longer_poly lp = {0, NULL, NULL};
    fx_cheat longer = {.ctx = &lp, .before_commit = longer_advice_poly, .before_lookups = restore_advice_poly};
    ez_proof pf;
    fx_prove_cheat(&f, &f.tr, &longer, &pf);
    ck_assert(lp.longer != NULL);
    fx_expect_rejected(&f, &pf, "its layout is not the model's");
    const ez_pcs_commitment *wcom = ez_pcs_prover_commitment(f.w);
    fx_cheat other = {.scheme = ez_advice_scheme(wcom) == EZ_PCS_SCHEME_WHIR ? EZ_PCS_SCHEME_LIGERO : EZ_PCS_SCHEME_WHIR};
    fx_prove_cheat(&f, &f.tr, &other, &pf);
    fx_expect_rejected(&f, &pf, "the verifying key's weights call for");
    fx_cheat none = {0};
    fx_prove_cheat(&f, &f.tr, &none, &pf);
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg); /* the assembled prover is right */
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

/* ---- public ops (runtime/prove/public.h) ------------------------------------------------- */

/* A language-model head: logits and next are outputs, so the argmax and the max are
 * public (executed by the verifier), and so is nothing else; m feeds an einsum, whose
 * claim on it is checked against the statement. */
static const char *head_src = "model head\n"
                              "param S = 4, D = 16, V = 20\n"
                              "scale 12\n"
                              "input x[S, D]\n"
                              "weight w[V, D], g[S]\n"
                              "logits[s, v] = x[s, d] * w[v, d]\n"
                              "next[s] = argmax[v](logits[s, v])\n"
                              "m[s] = max[v](logits[s, v])\n"
                              "y[s] = m[s] * g[s]\n"
                              "output logits, next, m, y\n";

/* The statement entry of tensor `name` in pf. */
static ez_stmt_tensor *stmt_of(fx *f, ez_proof *pf, const char *name)
{
    for (size_t i = 0; i < pf->stmt.n; i++)
        if (strcmp(f->plan.tensors[pf->stmt.t[i].tensor].name, name) == 0)
            return &pf->stmt.t[i];
    ck_abort_msg("no statement entry %s", name);
    return NULL;
}

START_TEST(test_public_ops)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, head_src, "public_ops");
    /* the plan: argmax and max public, the einsums not; nothing committed for them, and
     * the logits (an output) get no quotient range check: only their remainder */
    ez_layout_sizes sz;
    ck_assert_int_eq(ez_layout_sizes_compute(&sz, &f.plan, &why), EZ_OK);
    ck_assert(sz.provable);
    for (size_t i = 0; i < f.plan.nops; i++) {
        const ez_plan_op *op = &f.plan.ops[i];
        bool pub = op->kind == EZ_OP_ARGMAX || op->kind == EZ_OP_MAX;
        ck_assert_int_eq(ez_op_is_public(&f.plan, i), pub);
        if (pub) {
            ck_assert_uint_eq(sz.ops[i].advice_elems, 0);
            ck_assert_uint_eq(sz.ops[i].lookup_rows, 0);
            ck_assert_uint_eq(sz.ops[i].walk_bytes, 0);
        }
        if (strcmp(f.plan.tensors[op->out].name, "logits") == 0) /* [4, 20]: the support, no padding */
            ck_assert_uint_eq(sz.ops[i].advice_elems, ez_plan_tensor_numel(&f.plan.tensors[op->out]));
    }
    ez_layout_sizes_clear(&sz);
    /* honest */
    ez_proof pf;
    fx_prove_honest(&f, &pf, &why);
    /* a wrong argmax in the statement: the verifier's execution */
    ez_stmt_tensor *nx = stmt_of(&f, &pf, "next");
    nx->v[1] = (nx->v[1] + 1) % 20;
    ez_pfx_expect_rejected(&f, &pf, "public op 'next'");
    nx->v[1] = (nx->v[1] + 19) % 20;
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
    /* a wrong max: the public op's check */
    ez_stmt_tensor *mx = stmt_of(&f, &pf, "m");
    mx->v[2] += 1;
    ez_pfx_expect_rejected(&f, &pf, "public op 'm'");
    mx->v[2] -= 1;
    /* a changed logit with next and m recomputed from the changed logits (the public ops
     * agree): the logits' output claim fails in the walk */
    ez_stmt_tensor *lg = stmt_of(&f, &pf, "logits");
    lg->v[3] += 1;
    for (uint64_t s = 0; s < 4; s++) {
        int64_t best = lg->v[s * 20];
        nx->v[s] = 0;
        for (uint64_t v = 1; v < 20; v++)
            if (lg->v[s * 20 + v] > best)
                best = lg->v[s * 20 + v], nx->v[s] = (int64_t)v;
        mx->v[s] = best;
    }
    ck_assert(!ez_pfx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "public op") == NULL, "%s", why.msg);
    ez_proof_clear(&pf);
    /* a logit outside its width (an out-of-width quotient would need it): the statement */
    ez_pfx_prove(&f, false, &pf);
    lg = stmt_of(&f, &pf, "logits");
    lg->v[0] = INT64_C(1) << 40;
    fx_expect_rejected(&f, &pf, "statement: output logits");
    ez_pfx_free(&f);
}
END_TEST

/* The verifier reads a decoded statement where the file holds it (runtime/prove/
 * statement.h): the head at rows longer than one block of the streamed passes (4096
 * values: V = 5000 and 4099, a block boundary inside every row), at S = 1 and at S = 3 (not
 * a power of two). Honest: accepted from the bytes. One logit past the boundary made its
 * row's maximum, next and m recomputed (the public ops agree): the logits' output claim,
 * evaluated on the bytes, rejects. A byte of that logit changed in the file: rejected. The
 * file cut inside the logits: malformed. A next token changed: the public op, executed on
 * the streamed rows, rejects. */
START_TEST(test_statement_streamed)
{
    static const struct {
        unsigned S, V;
    } sizes[] = {{1, 5000}, {3, 4099}};
    const unsigned S = sizes[_i].S, V = sizes[_i].V;
    char src[512];
    snprintf(src, sizeof src,
             "model head\nparam S = %u, D = 4, V = %u\nscale 12\ninput x[S, D]\nweight w[V, D], g[S]\n"
             "logits[s, v] = x[s, d] * w[v, d]\nnext[s] = argmax[v](logits[s, v])\nm[s] = max[v](logits[s, v])\n"
             "y[s] = m[s] * g[s]\noutput logits, next, m, y\n",
             S, V);
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, src, "statement_streamed");
    ez_proof pf;
    fx_prove_honest(&f, &pf, &why);
    ez_stmt_tensor *lg = stmt_of(&f, &pf, "logits"), *nx = stmt_of(&f, &pf, "next"), *mx = stmt_of(&f, &pf, "m");
    const uint64_t s = S - 1, e = s * V + 4096 + 2; /* the last row, past its first block */
    /* the public op on the streamed rows: a wrong next */
    int64_t keep = nx->v[s];
    nx->v[s] = (keep + 1) % (int64_t)V;
    ez_pfx_expect_rejected(&f, &pf, "public op 'next'");
    nx->v[s] = keep;
    /* the logit made its row's maximum, the public results recomputed: the output claim */
    int64_t old = lg->v[e], oldm = mx->v[s], oldn = nx->v[s];
    lg->v[e] = mx->v[s] + 1;
    mx->v[s] = lg->v[e];
    nx->v[s] = 4096 + 2;
    ck_assert(!ez_pfx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "public op") == NULL && strstr(why.msg, "statement") == NULL, "%s", why.msg);
    lg->v[e] = old, mx->v[s] = oldm, nx->v[s] = oldn;
    /* the file's bytes: the logit's low byte changed, then the file cut inside the logits */
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_proof_encode(&w, &pf, NULL), EZ_OK);
    ez_vk vk = ez_pfx_vk(&f);
    unsigned lw = ez_stmt_width(lg->v, lg->n);
    size_t at = 0; /* the logits' first value byte: after the header, section header, n, inputs' entries */
    for (size_t i = 0, o = 12 + 12 + 8; i < pf.stmt.n; i++) {
        const ez_stmt_tensor *x = &pf.stmt.t[i];
        o += 4 + 8 + 1;
        if (x == lg)
            at = o;
        o += x->n * ez_stmt_width(x->v, x->n);
    }
    ck_assert_uint_gt(at, 0);
    bool ok = true;
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, w.len, &ok, NULL, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    w.data[at + e * lw] ^= 0x01;
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, w.len, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    w.data[at + e * lw] ^= 0x01;
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, at + e * lw, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert_msg(strstr(why.msg, "proof") != NULL, "%s", why.msg);
    ez_writer_clear(&w);
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "restored: %s", why.msg);
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

/* The checked prover refuses such a witness with a numeric error instead. */
START_TEST(test_checked_prover_refuses)
{
    ez_diag d = {{0}};
    size_t op = mf.plan.nops - 1;
    uint64_t e = find_rem(&mf, op, 0, (INT64_C(1) << 12) - 1);
    int64_t *rem = (int64_t *)ez_trace_aux(&mf.tr, op, EZ_AUX_REM, NULL);
    rem[e] += INT64_C(1) << 12;
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_prove(&mf.plan, &mf.tr, mf.w, NULL, &pf, NULL, &d), EZ_ERR_NUMERIC);
    ck_assert_msg(strstr(d.msg, "outside") != NULL, "%s", d.msg);
    ez_proof_clear(&pf);
}
END_TEST

/* A residual stream outside its width: y = a + b and z = y - b are sums whose bounds
 * exceed their 16 bits, so both are range-checked to the width (op->checked). With
 * a = b = 2^15 - 1 (inputs inside their width), y = 2^16 - 2 and z = 2^15 - 1 every field
 * relation holds and the claimed output is in its width: only y's range check catches
 * it. The honest executor refuses such a y; the same trace without the tamper proves. */
START_TEST(test_residual_out_of_width)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, "model res\nparam S = 4, D = 8\nbits 16\ninput a[S, D]\ninput b[S, D]\n"
                 "y[s, d] = a[s, d] + b[s, d]\nz[s, d] = y[s, d] - b[s, d]\noutput z\n",
             "residual_out_of_width");
    ck_assert_uint_eq(f.plan.nops, 2);
    ck_assert(f.plan.ops[0].kind == EZ_OP_ADD && f.plan.ops[0].checked);
    ck_assert(f.plan.ops[1].kind == EZ_OP_ADD && f.plan.ops[1].checked);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
    const int64_t top = (INT64_C(1) << 15) - 1;
    const uint64_t e = 5;
    f.tr.t[f.plan.ops[0].in[0]][e] = top;
    f.tr.t[f.plan.ops[0].in[1]][e] = top;
    f.tr.t[f.plan.ops[0].out][e] = 2 * top;
    f.tr.t[f.plan.ops[1].out][e] = top;
    ez_pfx_expect_prove_rejected(&f, true, "lookups");
    ez_pfx_free(&f);
}
END_TEST

/* Add 1 to one field element of a section (keeping it canonical). */
static void bump(ez_writer *w, size_t off)
{
    ck_assert_uint_ge(w->len, off + 16);
    ez_tamper_fe2(w->data + off);
}

START_TEST(test_changed_round_message)
{
    ez_diag why = {{0}};
    ez_proof pf;
    fx_prove_honest(&mf, &pf, &why);
    /* the last op y is a rescaled contraction: rho (16 B), then its first round value */
    bump(&pf.sec[EZ_PF_SEC_WALK], 16);
    ez_pfx_expect_rejected(&mf, &pf, "op 'y' (einsum)");
    bump(&pf.sec[EZ_PF_SEC_WALK], 16 * 0); /* rho too: still rejected */
    ck_assert(!ez_pfx_verify(&mf, &pf, &why));
    ez_proof_clear(&pf);
    /* a message of every other section */
    const int secs[] = {EZ_PF_SEC_LOOKUPS, EZ_PF_SEC_OPEN_W, EZ_PF_SEC_OPEN_A};
    for (size_t s = 0; s < 3; s++) {
        ez_pfx_prove(&mf, false, &pf);
        if (pf.sec[secs[s]].len == 0) { /* WHIR: the advice opening is batched into the weights' */
            ez_proof_clear(&pf);
            continue;
        }
        size_t off = pf.sec[secs[s]].len / 32 * 16;
        /* field elements are 16-byte aligned in lookups; openings mix hashes and elements,
         * so flip a bit instead there */
        if (secs[s] == EZ_PF_SEC_LOOKUPS)
            bump(&pf.sec[secs[s]], off);
        else
            pf.sec[secs[s]].data[off] ^= 1;
        ck_assert_msg(!ez_pfx_verify(&mf, &pf, &why), "section %d", secs[s]);
        ez_proof_clear(&pf);
    }
}
END_TEST

/* A virtual column (the low 16 bits of a 24-bit quotient, docs/protocol.md §4): the
 * prover sends the committed high part's value at each of its lookup points and the
 * verifier derives the tensor's. A changed value (the last element of the lookups
 * section: the last such message) is caught — by the advice opening or by the walk. */
START_TEST(test_virtual_column_value)
{
    ez_diag why = {{0}};
    ez_advice_layout L;
    ck_assert_int_eq(ez_advice_layout_build(&L, &mf.plan, &why), EZ_OK);
    size_t nvirt = 0;
    for (size_t j = 0; j < L.ncols; j++)
        nvirt += L.cols[j].nx > 0;
    ck_assert_uint_gt(nvirt, 0); /* columns without extra atoms send nothing: the last
                                    message of the section is a virtual column's */
    ez_advice_layout_clear(&L);
    ez_proof pf;
    fx_prove_honest(&mf, &pf, &why);
    bump(&pf.sec[EZ_PF_SEC_LOOKUPS], pf.sec[EZ_PF_SEC_LOOKUPS].len - 16);
    ck_assert(!ez_pfx_verify(&mf, &pf, &why));
    ez_proof_clear(&pf);
}
END_TEST

START_TEST(test_changed_claimed_output)
{
    ez_diag why = {{0}};
    ez_proof pf;
    ez_pfx_prove(&mf, false, &pf);
    ez_stmt_tensor *out = &pf.stmt.t[pf.stmt.n - 1];
    out->v[out->n / 2] += 1;
    ck_assert(!ez_pfx_verify(&mf, &pf, &why));
    out->v[out->n / 2] -= 1;
    ck_assert(ez_pfx_verify(&mf, &pf, &why));
    /* a changed public input */
    pf.stmt.t[0].v[0] ^= 1;
    ck_assert(!ez_pfx_verify(&mf, &pf, &why));
    pf.stmt.t[0].v[0] ^= 1;
    /* an input outside its width is refused by the statement check */
    int64_t keep = pf.stmt.t[0].v[1];
    pf.stmt.t[0].v[1] = INT64_C(1) << 40;
    ez_pfx_expect_rejected(&mf, &pf, "outside its range");
    pf.stmt.t[0].v[1] = keep;
    ez_proof_clear(&pf);
}
END_TEST


/* A trace of the same weights on other inputs: every INPUT changed by `delta` at one
 * element, then run. */
static void fx_rerun_other_input(fx *f, ez_trace *t2, int64_t delta)
{
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_trace_init(t2, &f->plan, &d), EZ_OK);
    for (size_t i = 0; i < f->plan.ntensors; i++) {
        const ez_plan_tensor *t = &f->plan.tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        uint64_t n = ez_plan_tensor_numel(t);
        int64_t *v = malloc((n ? n : 1) * sizeof *v);
        memcpy(v, f->tr.t[i], n * sizeof *v);
        if (t->kind == EZ_TENSOR_INPUT)
            v[n / 3] += v[n / 3] > 0 ? -delta : delta;
        ck_assert_msg(ez_trace_set(t2, i, v, n, &d) == EZ_OK, "%s", d.msg);
        free(v);
    }
    ck_assert_msg(ez_exec_run(&f->plan, t2, &d) == EZ_OK, "%s", d.msg);
}

/* The public-input claim check (issue 8): the walk ends in claims on the INPUT tensors,
 * which the verifier evaluates from the statement itself. A prover runs the model on
 * another input x' but states the true input x with the outputs y' = f(x') (a statement
 * that is false: f(x) != y'). It absorbs the statement it states, so every challenge is
 * the verifier's; every reduction, lookup and opening holds for its witness; only the
 * claims on x, whose values are x'~(r), differ from the statement's x~(r). */
START_TEST(test_public_input_claim)
{
    const size_t nlast = sizeof last_op_srcs / sizeof last_op_srcs[0];
    for (size_t k = 0; k < 2 + nlast; k++) {
        fx f;
        ez_diag why = {{0}};
        fx_setup(&f, k == 0 ? proj_src : k == 1 ? linear_src : last_op_srcs[k - 2], "public_input_claim");
        ez_trace t2;
        fx_rerun_other_input(&f, &t2, 1);
        int64_t **from = malloc(f.plan.ntensors * sizeof *from);
        for (size_t i = 0; i < f.plan.ntensors; i++)
            from[i] = f.plan.tensors[i].kind == EZ_TENSOR_INPUT ? f.tr.t[i] : t2.t[i];
        ez_prove_opts o = {.stmt_from = from};
        ez_proof pf;
        ez_proof_init(&pf);
        ck_assert_msg(ez_prove(&f.plan, &t2, f.w, &o, &pf, NULL, &why) == EZ_OK, "prove: %s", why.msg);
        ck_assert(!ez_pfx_verify(&f, &pf, &why));
        ck_assert_msg(strstr(why.msg, "a claim on the public input") != NULL, "%zu: %s", k, why.msg);
        ez_proof_clear(&pf);
        free(from);
        ez_trace_clear(&t2);
        ez_pfx_free(&f);
    }
}
END_TEST

/* The statement's inputs are inside their declared width (ez_statement_check): a prover
 * runs the model on x[0] = 2^(w-1), one above the width's top (its magnitude still the
 * bound the compiler assumed, so every product and range check holds) and proves that
 * trace honestly. Only the statement check rejects. */
START_TEST(test_input_outside_width)
{
    ez_diag why = {{0}};
    int x = ez_plan_find_tensor(&mf.plan, "x");
    const ez_plan_tensor *tx = &mf.plan.tensors[x];
    ez_trace t2;
    ck_assert_int_eq(ez_trace_init(&t2, &mf.plan, &why), EZ_OK);
    for (size_t i = 0; i < mf.plan.ntensors; i++)
        if (mf.plan.tensors[i].kind != EZ_TENSOR_ACT)
            ck_assert_int_eq(ez_trace_set(&t2, i, mf.tr.t[i], ez_plan_tensor_numel(&mf.plan.tensors[i]), &why), EZ_OK);
    t2.t[x][0] = INT64_C(1) << (tx->bits - 1);
    ck_assert_msg(ez_exec_run(&mf.plan, &t2, &why) == EZ_OK, "%s", why.msg);
    ez_prove_opts o = {.unchecked = true};
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_msg(ez_prove(&mf.plan, &t2, mf.w, &o, &pf, NULL, &why) == EZ_OK, "prove: %s", why.msg);
    fx_expect_rejected(&mf, &pf, "is outside its range");
    ez_trace_clear(&t2);
}
END_TEST

/* The container every binary file shares (runtime/formats/sections.h, docs/protocol.md
 * §9): magic, u16 major, u16 minor, then sections 1..n, each once, in increasing order.
 * Built by hand: each rule broken alone is refused, a well-formed file is read. */
static void sections_file(ez_writer *w, const char *magic, int dmajor, int dminor, const uint32_t *tags, size_t n)
{
    ez_writer_init(w);
    ez_sections_write_header(w, magic);
    w->data[4] = (uint8_t)(w->data[4] + dmajor);
    w->data[6] = (uint8_t)(w->data[6] + dminor);
    for (size_t i = 0; i < n; i++) {
        ez_writer pl;
        ez_writer_init(&pl);
        ez_writer_u8(&pl, (uint8_t)tags[i]);
        ez_sections_write(w, tags[i], &pl);
        ez_writer_clear(&pl);
    }
}

static ez_status sections_parse(const uint32_t *tags, size_t n, int dmajor, int dminor, const char *magic)
{
    ez_writer w;
    ez_section_view sec[4];
    ez_diag d = {{0}};
    sections_file(&w, magic, dmajor, dminor, tags, n);
    ez_status st = ez_sections_read(w.data, w.len, "EZTS", "test file", 3, true, sec, &d);
    ez_writer_clear(&w);
    return st;
}

START_TEST(test_sections_container)
{
    const uint32_t ok[] = {1, 2, 3}, swapped[] = {2, 1, 3}, twice[] = {1, 1, 2, 3}, unknown[] = {1, 2, 3, 4},
                   missing[] = {1, 3};
    ck_assert_int_eq(sections_parse(ok, 3, 0, 0, "EZTS"), EZ_OK);
    ck_assert_int_eq(sections_parse(ok, 3, 0, 0, "EZTX"), EZ_ERR_FORMAT);   /* magic */
    ck_assert_int_eq(sections_parse(ok, 3, 1, 0, "EZTS"), EZ_ERR_FORMAT);   /* major */
    ck_assert_int_eq(sections_parse(ok, 3, 0, 1, "EZTS"), EZ_ERR_FORMAT);   /* newer minor */
    ck_assert_int_eq(sections_parse(swapped, 3, 0, 0, "EZTS"), EZ_ERR_FORMAT);
    ck_assert_int_eq(sections_parse(twice, 4, 0, 0, "EZTS"), EZ_ERR_FORMAT);
    ck_assert_int_eq(sections_parse(unknown, 4, 0, 0, "EZTS"), EZ_ERR_FORMAT);
    ck_assert_int_eq(sections_parse(missing, 2, 0, 0, "EZTS"), EZ_ERR_FORMAT);
}
END_TEST

/* The transcript starts exactly as docs/protocol.md §2 step 1 and §6.4 say: domain, then
 * the version, for a proof its strategy, the plan digest, the weight commitment (present
 * flag first for a proof) and, for a proof, the statement — n, then per tensor its id,
 * its length and its values in chunks of 4096 canonical elements. Every one of them must
 * be bound: a proof for one strategy, plan, version, commitment or statement must not be
 * a proof for another. Independent of
 * the code (the labels and the order of the spec), on a statement longer than a chunk;
 * and each part changed alone changes the state. */
static void spec_proof_start(ez_transcript *t, const uint8_t digest[32], const ez_pcs_commitment *wcom,
                             const ez_statement *s, ez_strategy strategy)
{
    const char *ver = ez_protocol_version();
    ez_transcript_init(t, "einzk/proof");
    ez_transcript_absorb_bytes(t, "version", ver, strlen(ver));
    ez_transcript_absorb_u64(t, "strategy", (uint64_t)strategy);
    ez_transcript_absorb_bytes(t, "plan/digest", digest, 32);
    ez_transcript_absorb_u64(t, "weights/present", wcom != NULL);
    if (wcom)
        ez_pcs_commitment_absorb(t, wcom);
    ez_transcript_absorb_u64(t, "stmt/n", s->n);
    for (size_t i = 0; i < s->n; i++) {
        /* the width: the fewest bytes w with every value in [-2^(8w-1), 2^(8w-1)) */
        unsigned w = 1;
        for (uint64_t j = 0; j < s->t[i].n; j++)
            while (w < 8 && (s->t[i].v[j] < -(INT64_C(1) << (8 * w - 1)) || s->t[i].v[j] >= INT64_C(1) << (8 * w - 1)))
                w++;
        ez_transcript_absorb_u64(t, "stmt/tensor", s->t[i].tensor);
        ez_transcript_absorb_u64(t, "stmt/len", s->t[i].n);
        ez_transcript_absorb_u64(t, "stmt/width", w);
        for (uint64_t o = 0; o < s->t[i].n; o += 4096) {
            size_t m = s->t[i].n - o < 4096 ? (size_t)(s->t[i].n - o) : 4096;
            static uint8_t buf[4096 * 8];
            for (size_t j = 0; j < m; j++)
                for (unsigned b = 0; b < w; b++)
                    buf[j * w + b] = (uint8_t)((uint64_t)s->t[i].v[o + j] >> (8 * b));
            ez_transcript_absorb_bytes(t, "stmt/values", buf, m * w);
        }
    }
}

static bool same_state(const ez_transcript *a, const ez_transcript *b)
{
    return a->nmsg == b->nmsg && memcmp(a->state, b->state, sizeof a->state) == 0;
}

START_TEST(test_transcript_start_documented)
{
    const ez_pcs_commitment *wcom = ez_pcs_prover_commitment(mf.w);
    ez_rng rng = ez_rng_for("transcript_start");
    int64_t v0[3] = {1, -2, 3}, *v1 = malloc(9000 * sizeof *v1);
    for (int i = 0; i < 9000; i++)
        v1[i] = (int64_t)(ez_rng_next(&rng) % 20001) - 10000;
    ez_stmt_tensor st[2] = {{.tensor = 0, .n = 3, .v = v0}, {.tensor = 5, .n = 9000, .v = v1}};
    ez_statement s = {2, st};
    ez_transcript a, b;
    for (unsigned k = 0; k < 2 * EZ_STRATEGY_COUNT; k++) {
        const ez_pcs_commitment *wc = k % 2 ? wcom : NULL;
        const ez_strategy strat = (ez_strategy)(k / 2);
        ez_proof_transcript_start(&a, &mf.plan, wc, &s, strat);
        spec_proof_start(&b, mf.plan.digest, wc, &s, strat);
        ck_assert_msg(same_state(&a, &b), "the proof's transcript start is not the documented one");
    }
    /* each part alone: the strategy, the digest, the commitment, the statement's ids,
     * lengths, values (in the first and in the last chunk) and its size */
    ez_transcript base;
    ez_proof_transcript_start(&base, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
    /* a decoded statement (its values the file's bytes, hashed where they lie) starts the
     * same transcript */
    {
        uint8_t b0[3], b1[9000 * 2];
        ck_assert_uint_eq(ez_stmt_width(v0, 3), 1);
        ck_assert_uint_eq(ez_stmt_width(v1, 9000), 2);
        ez_stmt_put(b0, v0, 3, 1);
        ez_stmt_put(b1, v1, 9000, 2);
        ez_stmt_tensor rt[2] = {{.tensor = 0, .n = 3, .raw = b0, .w = 1}, {.tensor = 5, .n = 9000, .raw = b1, .w = 2}};
        ez_statement rs = {2, rt};
        ez_proof_transcript_start(&a, &mf.plan, wcom, &rs, EZ_STRATEGY_EINSUM);
        ck_assert_msg(same_state(&a, &base), "a decoded statement starts another transcript");
        b1[2 * 8999] ^= 1; /* the last value's low byte */
        ez_proof_transcript_start(&a, &mf.plan, wcom, &rs, EZ_STRATEGY_EINSUM);
        ck_assert(!same_state(&a, &base));
    }
    ez_proof_transcript_start(&a, &mf.plan, wcom, &s, (ez_strategy)1);
    ck_assert(!same_state(&a, &base));
    mf.plan.digest[31] ^= 1;
    ez_proof_transcript_start(&a, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
    ck_assert(!same_state(&a, &base));
    mf.plan.digest[31] ^= 1;
    ez_pcs_commitment wc2;
    ck_assert_int_eq(ez_pcs_commitment_copy(&wc2, wcom), EZ_OK);
    wc2.root[0] ^= 1;
    ez_proof_transcript_start(&a, &mf.plan, &wc2, &s, EZ_STRATEGY_EINSUM);
    ck_assert(!same_state(&a, &base));
    ez_pcs_commitment_clear(&wc2);
    int64_t *cells[] = {&v0[1], &v1[0], &v1[4096], &v1[8999]};
    for (size_t k = 0; k < 4; k++) {
        *cells[k] += 1;
        ez_proof_transcript_start(&a, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
        ck_assert_msg(!same_state(&a, &base), "statement value %zu not bound", k);
        *cells[k] -= 1;
    }
    st[1].tensor = 6;
    ez_proof_transcript_start(&a, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
    ck_assert(!same_state(&a, &base));
    st[1].tensor = 5;
    st[0].n = 2; /* the same values, one fewer in the first entry */
    ez_proof_transcript_start(&a, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
    ck_assert(!same_state(&a, &base));
    st[0].n = 3;
    s.n = 1;
    ez_proof_transcript_start(&a, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
    ck_assert(!same_state(&a, &base));
    s.n = 2;
    ez_proof_transcript_start(&a, &mf.plan, wcom, &s, EZ_STRATEGY_EINSUM);
    ck_assert(same_state(&a, &base));
    /* the vk's weight range proof: domain, version, digest, commitment */
    const char *ver = ez_protocol_version();
    ez_weight_range_transcript_start(&a, &mf.plan, wcom);
    ez_transcript_init(&b, EZ_WRANGE_DOMAIN);
    ez_transcript_absorb_bytes(&b, "version", ver, strlen(ver));
    ez_transcript_absorb_bytes(&b, "plan/digest", mf.plan.digest, 32);
    ez_pcs_commitment_absorb(&b, wcom);
    ck_assert_msg(same_state(&a, &b), "the weight range proof's transcript start is not the documented one");
    free(v1);
}
END_TEST

/* The binding (the plan digest and weight root the prover used) is what verify checks
 * first: a proof whose binding names another model or other weights is rejected saying
 * so with both values, although its transcript is the honest one (without the check it
 * would be accepted). A statement of the wrong shape names the expected shapes. */
START_TEST(test_binding_first)
{
    ez_diag why = {{0}};
    ez_proof pf;
    ez_pfx_prove(&mf, false, &pf);
    ck_assert(ez_pfx_verify(&mf, &pf, &why));
    pf.bind.digest[0] ^= 1;
    ck_assert(!ez_pfx_verify(&mf, &pf, &why));
    ck_assert_msg(strstr(why.msg, "the proof is for another model: its plan digest is ") != NULL, "%s", why.msg);
    char hex[65];
    ez_plan_digest_hex(&mf.plan, hex);
    hex[16] = 0;
    ck_assert_msg(strstr(why.msg, hex) != NULL, "%s lacks %s", why.msg, hex);
    pf.bind.digest[0] ^= 1;
    pf.bind.wroot[31] ^= 1;
    ez_pfx_expect_rejected(&mf, &pf, "the proof was made with other weights: weight commitment ");
    pf.bind.has_weights = false;
    ez_pfx_expect_rejected(&mf, &pf, "weight commitment none, the verifying key's ");
    pf.bind.has_weights = true;
    pf.bind.wroot[31] ^= 1;
    ck_assert(ez_pfx_verify(&mf, &pf, &why));
    /* the statement's shape: one tensor missing, then one value missing */
    pf.stmt.n--;
    ez_pfx_expect_rejected(&mf, &pf, "the proof has 1 tensors, the model's statement has 2: x[8,32], y[8,32]");
    pf.stmt.n++;
    pf.stmt.t[1].n--;
    ez_pfx_expect_rejected(&mf, &pf, "statement: y[8,32] has 256 values, the proof has 255");
    pf.stmt.t[1].n++;
    ez_proof_clear(&pf);
}
END_TEST

/* The proof's bytes do not depend on the thread count: on 2 threads the lookups prove a
 * tree holding more than half the leaves with the whole team first and the rest side by
 * side (runtime/prove/session.c sess_trees_together), on 1 thread all in order. */
START_TEST(test_proof_same_on_threads)
{
    ez_writer w[2];
    int old = ez_test_set_threads(1);
    for (int k = 0; k < 2; k++) {
        ez_test_set_threads(k + 1);
        ez_proof pf;
        ez_pfx_prove(&mf, false, &pf);
        ez_writer_init(&w[k]);
        ck_assert_int_eq(ez_proof_encode(&w[k], &pf, NULL), EZ_OK);
        ez_proof_clear(&pf);
    }
    ez_test_set_threads(old);
    ck_assert_uint_eq(w[0].len, w[1].len);
    ck_assert_mem_eq(w[0].data, w[1].data, w[0].len);
    ez_writer_clear(&w[0]);
    ez_writer_clear(&w[1]);
}
END_TEST

START_TEST(test_truncated_and_trailing)
{
    ez_diag why = {{0}};
    ez_proof pf;
    ez_pfx_prove(&mf, false, &pf);
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_proof_encode(&w, &pf, NULL), EZ_OK);
    ez_vk vk = ez_pfx_vk(&mf);
    bool ok = true;
    for (size_t cut = 0; cut < w.len; cut += w.len / 23 + 1) {
        ck_assert_int_eq(ez_verify_bytes(&vk, w.data, cut, &ok, NULL, &why), EZ_OK);
        ck_assert_msg(!ok, "truncated at %zu accepted", cut);
    }
    ez_writer_u8(&w, 0);
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, w.len, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    /* trailing bytes inside a section: every section must be read exactly (a verifier
     * that skipped a section's rest would accept a second encoding of a proof, and one
     * that stopped early inside an opening could skip checks) */
    static const struct {
        int sec;
        const char *why;
    } trail[] = {{EZ_PF_SEC_ADVICE, "advice commitment"},
                 {EZ_PF_SEC_LOOKUPS, "lookups"},
                 {EZ_PF_SEC_WALK, "walk"},
                 {EZ_PF_SEC_OPEN_W, "weight opening"},
                 {EZ_PF_SEC_OPEN_A, "advice opening"}};
    for (size_t k = 0; k < sizeof trail / sizeof trail[0]; k++) {
        ez_writer_u8(&pf.sec[trail[k].sec], 0);
        ck_assert(!ez_pfx_verify(&mf, &pf, &why));
        ck_assert_msg(strstr(why.msg, trail[k].why) != NULL, "%s: %s", trail[k].why, why.msg);
        pf.sec[trail[k].sec].len--;
        ck_assert_msg(ez_pfx_verify(&mf, &pf, &why), "%s", why.msg);
    }
    /* ... and in the vk's weight range proof: u8 kind, then (u64 length, bytes) chunks: 4
     * for a full range proof (Ligero), 1 for a deferred one (WHIR, the default) */
    ez_writer keep = mf.wrange;
    const int nch = keep.data[0] == EZ_WRANGE_DEFERRED ? 1 : 4;
    ck_assert_uint_eq(keep.data[0], ez_weights_deferred(&mf.plan, &mf.wcom) ? EZ_WRANGE_DEFERRED : EZ_WRANGE_FULL);
    static const char *chunk_why[4] = {"advice commitment", "lookups", "weight opening", "advice opening"};
    for (int k = 0; k <= nch; k++) {
        ez_reader rd;
        ez_reader_init(&rd, keep.data, keep.len);
        ez_writer nw;
        ez_writer_init(&nw);
        ez_writer_u8(&nw, ez_reader_u8(&rd));
        for (int j = 0; j < nch; j++) {
            uint64_t n = ez_reader_u64(&rd);
            const uint8_t *b = ez_reader_view(&rd, (size_t)n);
            ez_writer_u64(&nw, n + (j == k));
            ez_writer_bytes(&nw, b, (size_t)n);
            if (j == k)
                ez_writer_u8(&nw, 0);
        }
        ck_assert(ez_reader_done(&rd));
        if (k == nch)
            ez_writer_u8(&nw, 0); /* after the chunks */
        mf.wrange = nw;
        ck_assert(!ez_pfx_verify(&mf, &pf, &why));
        const char *want = k == nch ? "trailing bytes" : nch == 1 ? "lookups" : chunk_why[k];
        ck_assert_msg(strstr(why.msg, want) != NULL, "chunk %d: %s", k, why.msg);
        ez_writer_clear(&nw);
    }
    mf.wrange = keep;
    ck_assert(ez_pfx_verify(&mf, &pf, &why));
    ez_writer_clear(&w);
    ez_proof_clear(&pf);
}
END_TEST

/* vk and pk formats round-trip; a vk whose commitment does not match the plan is refused. */
START_TEST(test_keys_roundtrip)
{
    ez_diag d = {{0}};
    ez_writer vkw, pkw;
    ez_writer_init(&vkw);
    ez_writer_init(&pkw);
    ck_assert_int_eq(ez_vk_encode(&vkw, &mf.plan, ez_pcs_prover_commitment(mf.w), mf.wrange.data, mf.wrange.len, &d),
                     EZ_OK);
    ck_assert_int_eq(ez_pk_encode(&pkw, &mf.plan, mf.tr.t, mf.w, mf.wrange.data, mf.wrange.len), EZ_OK);
    ez_vk vk;
    ck_assert_msg(ez_vk_decode(&vk, vkw.data, vkw.len, &d) == EZ_OK, "%s", d.msg);
    ck_assert(memcmp(vk.plan.digest, mf.plan.digest, 32) == 0);
    ez_pk pk;
    ck_assert_msg(ez_pk_decode(&pk, &mf.plan, pkw.data, pkw.len, &d) == EZ_OK, "%s", d.msg);
    /* prove with the pk's prover data, verify with the decoded vk */
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_prove(&mf.plan, &mf.tr, pk.pcs, NULL, &pf, NULL, &d), EZ_OK);
    bool ok = false;
    ez_diag why = {{0}};
    ck_assert_int_eq(ez_verify(&vk, &pf, &ok, NULL, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    ez_proof_clear(&pf);
    ez_pk_clear(&pk);
    ez_vk_clear(&vk);
    /* truncations of the vk never decode */
    for (size_t cut = 0; cut < vkw.len; cut += vkw.len / 17 + 1)
        ck_assert_int_ne(ez_vk_decode(&vk, vkw.data, cut, &d), EZ_OK);
    ez_writer_clear(&vkw);
    ez_writer_clear(&pkw);
}
END_TEST

/* Weights outside their declared width (a malicious setup): the vk's weight range proof
 * fails, so every proof against that vk is rejected; the checked setup refuses. Both a
 * 16-bit weight (the tensor itself is looked up) and a 24-bit one (committed limbs). */
static void bad_weight(const char *src, const char *wname, int64_t value, const char *seed)
{
    fx f;
    ez_diag d = {{0}}, why = {{0}};
    fx_setup(&f, src, seed);
    int w = fx_tensor(&f, wname);
    f.tr.t[w][1] = value; /* activations are left stale: only the weights matter here */
    ez_pcs_prover_free(f.w);
    ez_pcs_commitment_clear(&f.wcom);
    ck_assert_int_eq(ez_weights_commit(&f.w, &f.wcom, &f.plan, &f.tr, &d), EZ_OK);
    ez_writer_clear(&f.wrange);
    ez_writer_init(&f.wrange);
    ck_assert_int_eq(ez_prove_weight_range(&f.plan, &f.tr, f.w, false, &f.wrange, &d), EZ_ERR_NUMERIC);
    ez_writer_clear(&f.wrange);
    ez_writer_init(&f.wrange);
    ck_assert_int_eq(ez_prove_weight_range(&f.plan, &f.tr, f.w, true, &f.wrange, &d), EZ_OK);
    ez_vk vk = ez_pfx_vk(&f);
    bool ok = true;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    ez_pfx_expect_prove_rejected(&f, false, "weight range proof failed");
    ez_pfx_free(&f);
}

START_TEST(test_weight_out_of_width)
{
    bad_weight(proj16_src, "w", INT64_C(1) << 20, "weight_width16");
    bad_weight("model w24\nparam S = 4, D = 8\ninput x[S, D]\nweight w[D, D] @bits(24)\n"
               "y[s, e] = x[s, d] * w[d, e]\noutput y\n",
               "w", -(INT64_C(1) << 30), "weight_width24");
}
END_TEST

/* The vk's range proof bytes are strict: truncated or extended, the vk is rejected; a
 * changed final claim (deferred with WHIR) leaves the vk alone valid and fails every
 * proof. */
START_TEST(test_weight_range_strict)
{
    ez_diag why = {{0}};
    ez_vk vk = ez_pfx_vk(&mf);
    bool ok = false;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    for (size_t cut = 0; cut < mf.wrange.len; cut += mf.wrange.len / 13 + 1) {
        vk.wrange_len = cut;
        ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
        ck_assert(!ok);
    }
    /* a vk with weights and no range proof ("absent") proves nothing about them */
    uint8_t absent = 0;
    vk.wrange = &absent;
    vk.wrange_len = 1;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    vk.wrange = mf.wrange.data;
    vk.wrange_len = mf.wrange.len;
    /* WR-present: the kind byte says "full" for a deferred commitment */
    ck_assert_uint_eq(mf.wrange.data[0], EZ_WRANGE_DEFERRED);
    mf.wrange.data[0] = EZ_WRANGE_FULL;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert_str_eq(why.msg, "the verifying key's weight range proof is malformed");
    mf.wrange.data[0] = EZ_WRANGE_DEFERRED;
    mf.wrange.data[mf.wrange.len / 2] ^= 1;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    mf.wrange.data[mf.wrange.len / 2] ^= 1;
    /* the last value of the transcript changed (the top byte of its c0: still canonical):
     * with WHIR a final claim's value, which only an opening can check — the vk alone
     * passes (deferred), every proof against it fails at its opening */
    ck_assert(ez_weights_deferred(&mf.plan, &mf.wcom));
    mf.wrange.data[mf.wrange.len - 9] ^= 1;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    ez_pfx_expect_prove_rejected(&mf, false, "weight and advice opening");
    mf.wrange.data[mf.wrange.len - 9] ^= 1;
    vk = ez_pfx_vk(&mf); /* proving re-set the commitment's supports: borrow it again */
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
}
END_TEST

/* The deferred weight range proof (WHIR, docs/protocol.md §6.4): the vk keeps the range
 * proof's transcript up to its final claims and every proof's opening proves them.
 * Honest: the vk's range bytes are one chunk (no opening), the commitment holds the range
 * advice, the prover's standing claims equal the ones the verifier re-derives from the vk.
 * A prover whose opening omits one of those claims, or alters one value, is rejected at
 * the opening. Ligero (--pcs ligero) keeps the full range proof and proves as before. */
START_TEST(test_weight_range_deferred)
{
    fx f;
    ez_diag d = {{0}}, why = {{0}};
    fx_setup(&f, masked_src, "weight_range_deferred");
    const ez_pcs_commitment *wc = ez_pcs_prover_commitment(f.w);
    ck_assert_uint_eq(wc->scheme, EZ_PCS_SCHEME_WHIR);
    ck_assert_uint_eq(f.wrange.data[0], EZ_WRANGE_DEFERRED);
    ez_wshape W;
    ck_assert_int_eq(ez_wshape_build(&W, &f.plan, EZ_PCS_SCHEME_WHIR, &d), EZ_OK);
    ck_assert_uint_eq(wc->npolys, W.n);
    ck_assert_uint_eq(W.n, W.nw + W.L.npolys);
    ck_assert_uint_gt(W.L.npolys, 0);
    ez_wshape_clear(&W);
    /* the verifier's claims, from the vk alone, are the prover's */
    ez_vk vk = ez_pfx_vk(&f);
    ez_pcs_commitment vc;
    ck_assert_int_eq(ez_pcs_commitment_copy(&vc, &vk.wcom), EZ_OK);
    ck_assert_int_eq(ez_pcs_commitment_set_standing(&vc, NULL, 0), EZ_OK);
    bool ok = false;
    ck_assert_int_eq(ez_weight_range_verify(&f.plan, &vc, f.wrange.data, f.wrange.len, &ok, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    ck_assert_uint_gt(vc.nstanding, 0);
    ck_assert_uint_eq(vc.nstanding, wc->nstanding);
    for (size_t k = 0; k < vc.nstanding; k++) {
        ck_assert_uint_eq(vc.standing[k].poly, wc->standing[k].poly);
        ck_assert(ez_fe2_eq(vc.standing[k].value, wc->standing[k].value));
        for (unsigned v = 0; v < vc.nvars[vc.standing[k].poly]; v++)
            ck_assert(ez_fe2_eq(vc.standing[k].point[v], wc->standing[k].point[v]));
    }
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s", why.msg);
    /* a prover that omits the last claim, or alters one value */
    ez_pcs_commitment keep;
    ck_assert_int_eq(ez_pcs_commitment_copy(&keep, wc), EZ_OK);
    ck_assert_int_eq(ez_pcs_prover_set_standing(f.w, keep.standing, keep.nstanding - 1), EZ_OK);
    ez_pfx_expect_prove_rejected(&f, false, "weight and advice opening");
    ez_pcs_claim *alt = malloc(keep.nstanding * sizeof *alt);
    memcpy(alt, keep.standing, keep.nstanding * sizeof *alt);
    alt[keep.nstanding / 2].value = ez_fe2_add(alt[keep.nstanding / 2].value, ez_fe2_one());
    ck_assert_int_eq(ez_pcs_prover_set_standing(f.w, alt, keep.nstanding), EZ_OK);
    ez_pfx_expect_prove_rejected(&f, false, "weight and advice opening");
    /* none at all: the prover refuses */
    ck_assert_int_eq(ez_pcs_prover_set_standing(f.w, NULL, 0), EZ_OK);
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_prove(&f.plan, &f.tr, f.w, NULL, &pf, NULL, &d), EZ_ERR_INVALID);
    ez_proof_clear(&pf);
    ck_assert_int_eq(ez_pcs_prover_set_standing(f.w, keep.standing, keep.nstanding), EZ_OK);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s", why.msg);
    free(alt);
    ez_pcs_commitment_clear(&keep);
    ez_pcs_commitment_clear(&vc);
    /* Ligero: the full range proof in the vk, no standing claims */
    ez_pcs_prover_free(f.w);
    ez_pcs_commitment_clear(&f.wcom);
    ck_assert_int_eq(ez_weights_commit_scheme(&f.w, &f.wcom, &f.plan, &f.tr, EZ_PCS_SCHEME_LIGERO_P1, &d), EZ_OK);
    ez_writer_clear(&f.wrange);
    ez_writer_init(&f.wrange);
    ck_assert_int_eq(ez_prove_weight_range(&f.plan, &f.tr, f.w, false, &f.wrange, &d), EZ_OK);
    ck_assert_uint_eq(f.wrange.data[0], EZ_WRANGE_FULL);
    ck_assert_uint_eq(ez_pcs_prover_commitment(f.w)->nstanding, 0);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s", why.msg);
    ez_pfx_free(&f);
}
END_TEST

/* A malicious setup whose vk transcript is consistent but whose final claims are false:
 * the range proof is made for a weight (in range) other than the committed one, so its
 * claim on the committed weight is false. The vk alone accepts (its claims are deferred);
 * every proof, whose opening must prove those claims, is rejected — this test fails if
 * the verifier leaves the vk's claims out of the opening. */
START_TEST(test_weight_range_deferred_false_claim)
{
    fx f;
    ez_diag d = {{0}}, why = {{0}};
    fx_setup(&f, proj_src, "weight_range_false_claim");
    int w = fx_tensor(&f, "w");
    const int64_t keep = f.tr.t[w][3];
    f.tr.t[w][3] = keep == 5 ? 6 : 5; /* another value in range */
    ez_writer_clear(&f.wrange);
    ez_writer_init(&f.wrange);
    ck_assert_int_eq(ez_prove_weight_range(&f.plan, &f.tr, f.w, false, &f.wrange, &d), EZ_OK);
    f.tr.t[w][3] = keep;
    ez_vk vk = ez_pfx_vk(&f);
    bool ok = false;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    /* the prover proves the vk's (false) claims: its opening fails */
    ez_pfx_expect_prove_rejected(&f, false, "weight and advice opening");
    /* the prover leaves them out (an honest opening of its own claims only) */
    ck_assert_int_eq(ez_pcs_prover_set_standing(f.w, NULL, 0), EZ_OK);
    ez_proof pf;
    fx_cheat none = {0};
    fx_prove_cheat(&f, &f.tr, &none, &pf);
    fx_expect_rejected(&f, &pf, "weight and advice opening");
    ez_pfx_free(&f);
}
END_TEST

/* The real-entry selector R(x) = prod_a [x_a < d_a] of the weights' padding zero-check
 * has the closed-form MLE ez_weight_real_mle: compare with the brute-force MLE. */
START_TEST(test_weight_real_mle_bruteforce)
{
    ez_rng rng = ez_rng_for("weight_real_mle");
    const uint64_t shapes[][3] = {{3, 5, 0}, {4, 12, 0}, {2, 3, 7}, {5, 1, 6}, {1, 9, 2}, {6, 4, 8}};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        ez_plan_tensor t;
        memset(&t, 0, sizeof t);
        t.rank = shapes[sh][2] ? 3 : 2;
        for (unsigned a = 0; a < t.rank; a++)
            t.dims[a] = shapes[sh][a];
        unsigned nv = ez_claim_tensor_nvars(t.dims, t.rank);
        size_t N = (size_t)1 << nv;
        uint64_t numel = ez_plan_tensor_numel(&t);
        int64_t *ones = malloc(numel * sizeof *ones);
        for (uint64_t e = 0; e < numel; e++)
            ones[e] = 1;
        ez_fe *sel = calloc(N, sizeof *sel);
        ez_advice_pad_i64(sel, ones, &t, 0);
        for (int k = 0; k < 4; k++) {
            ez_fe2 p[16];
            for (unsigned v = 0; v < nv; v++)
                p[v] = ez_rng_fe2(&rng);
            ck_assert_msg(ez_fe2_eq(ez_mle_eval_fe(sel, N, p, nv), ez_weight_real_mle(&t, p)), "shape %zu", sh);
        }
        free(ones);
        free(sel);
    }
}
END_TEST

/* A weight with interior padding (E = 12 of the masked model, cube 16) is committed on
 * its support: its real entries only, the padding zero by construction. A malicious setup
 * (1) commits the padded layout with junk in the padding: the prover's check and the vk's
 * supports refuse its lengths; (2) claims the weight's cube MLE with a junk padding entry
 * (value + junk eq(z, pad)) against the honest commitment: the opening, honest for the
 * committed data, is rejected for that claim and accepted for the true one. */
START_TEST(test_weight_padding_junk)
{
    ez_diag d = {{0}};
    uint64_t *lens = NULL;
    size_t nw = 0, k = 0, ki = SIZE_MAX, wi = 0;
    ck_assert_int_eq(ez_weights_lens(&mf.plan, &lens, &nw), EZ_OK);
    ez_fe **polys = calloc(nw, sizeof *polys);
    uint64_t *plens = calloc(nw, sizeof *plens);
    for (size_t i = 0; i < mf.plan.ntensors; i++) {
        const ez_plan_tensor *t = &mf.plan.tensors[i];
        if (t->kind != EZ_TENSOR_WEIGHT)
            continue;
        plens[k] = ez_advice_padlen(t);
        polys[k] = calloc(plens[k], sizeof(ez_fe));
        ez_advice_pad_i64(polys[k], mf.tr.t[i], t, 0);
        if (ez_advice_interior_padding(t)) {
            ck_assert(ez_advice_tensor_supported(t));
            ck_assert_uint_eq(lens[k], ez_plan_tensor_numel(t)); /* no padding committed */
            polys[k][t->dims[t->rank - 1]] = 5; /* the first entry past the last axis' extent */
            ki = k, wi = i;
        }
        k++;
    }
    ck_assert_uint_ne(ki, SIZE_MAX);
    /* (1) the padded layout with junk */
    ez_pcs_prover *bad = NULL;
    ez_pcs_commitment bcom;
    ck_assert_int_eq(ez_pcs_commit(&bad, &bcom, (const ez_fe *const *)polys, plens, nw), EZ_OK);
    ck_assert_int_eq(ez_weights_check(&mf.plan, bad, &d), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_weights_set_supports(&mf.plan, &bcom, &d), EZ_ERR_INVALID);
    ez_pcs_commitment_clear(&bcom);
    ez_pcs_prover_free(bad);
    /* (2) a claim with the junk entry on the honest commitment */
    const ez_pcs_commitment *com = ez_pcs_prover_commitment(mf.w);
    const ez_plan_tensor *t = &mf.plan.tensors[wi];
    unsigned nv = ez_log2_ceil(plens[ki]);
    ck_assert_uint_eq(com->nvars[ki], nv);
    ez_rng rng = ez_rng_for("weight_padding_junk");
    ez_fe2 z[64];
    for (unsigned v = 0; v < nv; v++)
        z[v] = ez_rng_fe2(&rng);
    ez_pcs_claim cl = {.poly = ki, .point = z};
    ck_assert_int_eq(ez_advice_tensor_eval(&cl.value, mf.tr.t[wi], t, z), EZ_OK);
    ez_pcs_claim junk = cl;
    junk.value = ez_mle_eval_fe(polys[ki], (size_t)plens[ki], z, nv); /* the junk cube's MLE */
    ck_assert(!ez_fe2_eq(junk.value, cl.value));
    ez_transcript tp;
    ez_transcript_init(&tp, "weight_padding_junk");
    ez_pcs_commitment_absorb(&tp, com);
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_pcs_open(mf.w, &tp, &cl, 1, &w), EZ_OK);
    for (int bad_claim = 0; bad_claim < 2; bad_claim++) {
        ez_transcript tv;
        ez_transcript_init(&tv, "weight_padding_junk");
        ez_pcs_commitment_absorb(&tv, com);
        ez_reader r;
        ez_reader_init(&r, w.data, w.len);
        ck_assert_int_eq(ez_pcs_verify(com, &tv, bad_claim ? &junk : &cl, 1, &r), bad_claim ? EZ_ERR_REJECT : EZ_OK);
    }
    ez_writer_clear(&w);
    for (k = 0; k < nw; k++)
        free(polys[k]);
    free(polys);
    free(plens);
    free(lens);
}
END_TEST

/* The padding zero-check's public factor 1 - R (runtime/prove/weights.c): a malicious
 * setup commits junk in a weight's interior padding and proves the range proof for the
 * junk itself — its range columns carry the junk (in range), the multiplicities count
 * it, every claim on the weight is the committed polynomial's — but runs the padding
 * zero-check with the factor 0 in place of 1 - R, so the sum is 0 whatever the padding
 * holds. Every round and the opening of P(pt) check; only the verifier's own 1 - R~(pt)
 * rejects. (test_weight_padding_junk runs the honest zero-check on the junk instead.) */
/* clean: instead, the honest zero-check (1 - R, and the weight's TRUE table, zero on its
 * padding) while the committed weight holds the junk, and the value P(pt) it ends in never
 * opened — every round and 1 - R~(pt) check; only the verifier's own claim of P(pt) on
 * the committed weight rejects (at its opening). */
static void weight_padding_malicious(bool clean, const char *reason)
{
    fx f;
    ez_diag d = {{0}}, why = {{0}};
    ez_advice_testing_max_pieces(1); /* the weights keep their padded layout */
    fx_setup(&f, masked_src, "weight_padding_forged");
    const ez_plan *p = &f.plan;
    uint64_t *lens = NULL;
    size_t nw = 0;
    ck_assert_int_eq(ez_weights_lens(p, &lens, &nw), EZ_OK);
    ez_fe **polys = calloc(nw, sizeof *polys);
    size_t junk_t = SIZE_MAX;
    uint64_t junk_at = 0;
    for (size_t i = 0, k = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind != EZ_TENSOR_WEIGHT)
            continue;
        polys[k] = calloc(lens[k], sizeof(ez_fe));
        ez_advice_pad_i64(polys[k], f.tr.t[i], t, 0);
        if (junk_t == SIZE_MAX && ez_advice_interior_padding(t)) {
            junk_t = i;
            junk_at = t->dims[t->rank - 1]; /* the first entry past the last axis' extent */
            polys[k][junk_at] = 5;
        }
        k++;
    }
    ck_assert_uint_ne(junk_t, SIZE_MAX);
    ez_pcs_prover_free(f.w);
    ez_pcs_commitment_clear(&f.wcom);
    ck_assert_int_eq(ez_pcs_commit(&f.w, &f.wcom, (const ez_fe *const *)polys, lens, nw), EZ_OK);
    const ez_pcs_commitment *wcom = ez_pcs_prover_commitment(f.w);

    /* the range proof of the junk: its columns and multiplicities, committed */
    ez_psess s;
    ez_pctx c;
    ez_transcript t;
    ez_writer sec[4];
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    for (int k = 0; k < 4; k++)
        ez_writer_init(&sec[k]);
    ck_assert_int_eq(ez_advice_layout_build_weights(&s.L, p, &d), EZ_OK);
    s.keep_cols = true; /* the junk's range column is edited between witness and lookups */
    ck_assert_msg(ez_psess_witness(&s, p, &f.tr, true, &d) == EZ_OK, "%s", d.msg);
    bool patched = false;
    for (size_t tb = 0; tb < s.L.ntables; tb++) {
        ez_sess_cols *tc = &s.tcs[tb];
        const ez_lookup_table_desc *td = &s.L.tables[tb];
        if (td->kind != EZ_LOOKUP_RANGES)
            continue;
        for (size_t j = 0; j < tc->nc; j++) {
            const ez_lookup_col *col = &s.L.cols[tc->idx[j]];
            if (col->atom.is_tensor && col->atom.id == junk_t) {
                ck_assert_ptr_nonnull(tc->owned[j]);
                tc->owned[j][junk_at] = ez_fe_add(tc->owned[j][junk_at], ez_fe_mul(col->coef, 5));
                patched = true;
            }
        }
        ck_assert_int_eq(ez_lookup_mult(s.polys[ez_advice_table_poly(&s.L, (unsigned)tb)], td->rbits, td->nranges, td->pairs,
                                        tc->cols, tc->lens, tc->tags, tc->nc, &d),
                         EZ_OK);
    }
    ck_assert(patched);
    ez_weight_range_transcript_start(&t, p, wcom);
    ck_assert_int_eq(ez_psess_commit(&s, &t, &sec[0], ez_advice_scheme(wcom)), EZ_OK);
    c.prover = true, c.plan = p, c.adv = &s.L, c.t = &t, c.tr = &f.tr, c.advice = s.polys, c.d = &d;
    ck_assert_int_eq(ez_pctx_alloc(&c, p, &s.L), EZ_OK);
    c.w = &sec[1];
    ck_assert_msg(ez_psess_lookups(&s, &c) == EZ_OK, "%s", d.msg);
    /* the zero-checks, with 0 for the factor 1 - R and the committed (junk) weight */
    for (size_t i = 0, k = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *tt = &p->tensors[i];
        if (tt->kind != EZ_TENSOR_WEIGHT)
            continue;
        if (ez_advice_interior_padding(tt)) {
            unsigned nv = ez_claim_tensor_nvars(tt->dims, tt->rank);
            size_t N = (size_t)1 << nv;
            ez_fe *zero = calloc(N, sizeof *zero), *val = calloc(N, sizeof *val);
            memcpy(val, polys[k], lens[k] * sizeof *val);
            if (clean) {
                /* 1 - R and the true weight, as ez_prove_weight_range builds them */
                uint64_t padlen = ez_advice_padlen(tt), numel = ez_plan_tensor_numel(tt);
                int64_t *ones = malloc(numel * sizeof *ones);
                for (uint64_t e = 0; e < numel; e++)
                    ones[e] = -1;
                ez_advice_pad_i64(zero, ones, tt, 1);
                for (size_t x = padlen; x < N; x++)
                    zero[x] = 1;
                free(ones);
                memset(val, 0, N * sizeof *val);
                ez_advice_pad_i64(val, f.tr.t[i], tt, 0);
            }
            ez_fe2 rho[64], pt[64], ev[2];
            ez_transcript_challenges_fe2(&t, "wpad/rho", rho, nv);
            ez_sumcheck_desc desc;
            ez_weight_pad_desc(&desc, nv);
            ez_sumcheck_factor fac[2] = {{zero, NULL}, {val, NULL}};
            ez_sumcheck_proof sp;
            ck_assert_int_eq(ez_sumcheck_prove(&t, &desc, NULL, rho, fac, ez_fe2_zero(), &sp, pt, ev), EZ_OK);
            ez_sumcheck_proof_write(c.w, &sp);
            if (!clean) /* clean: P(pt) is never opened (it is not the committed weight's) */
                ck_assert_int_eq(ez_pctx_claim_tensor(&c, i, pt, nv, ev[1]), EZ_OK);
            ez_sumcheck_proof_clear(&sp);
            free(zero);
            free(val);
        }
        k++;
    }
    ck_assert_int_eq(ez_psess_openings(&s, &c, f.w, 0, &sec[2], &sec[3]), EZ_OK);
    ez_writer_clear(&f.wrange);
    ez_writer_init(&f.wrange);
    ez_writer_u8(&f.wrange, 1);
    for (int k = 0; k < 4; k++) {
        ez_writer_u64(&f.wrange, sec[k].len);
        ez_writer_bytes(&f.wrange, sec[k].data, sec[k].len);
        ez_writer_clear(&sec[k]);
    }
    ez_pctx_free(&c);
    ez_psess_clear(&s);
    ez_vk vk = ez_pfx_vk(&f);
    bool ok = true;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert_msg(strstr(why.msg, reason) != NULL, "%s", why.msg);
    for (size_t k = 0; k < nw; k++)
        free(polys[k]);
    free(polys);
    free(lens);
    ez_pfx_free(&f);
    ez_advice_testing_max_pieces(0);
}

START_TEST(test_weight_padding_forged_factor)
{
    weight_padding_malicious(false, "zero padding");
}
END_TEST

/* WR-pad-claim: the zero-check holds for the true weight, the commitment has junk. */
START_TEST(test_weight_padding_claim_not_committed)
{
    weight_padding_malicious(true, "weight opening: the commitment does not open to the claimed values");
}
END_TEST

/* PX-msg-absorb: an op message binds the transcript on both sides — the challenge drawn
 * after it depends on its value, and the verifier, reading the same bytes, draws the same
 * one. (Were it not absorbed, a prover could pick the message after seeing the challenge
 * that should depend on it; honest proofs would still verify.) */
START_TEST(test_pctx_msg_absorbed)
{
    ez_fe2 after[2];
    for (int k = 0; k < 2; k++) {
        ez_transcript t;
        ez_writer w;
        ez_pctx c;
        ez_diag d = {{0}};
        ez_fe2 v[2] = {ez_fe2_make(5, 1), ez_fe2_make(7, (ez_fe)k)};
        memset(&c, 0, sizeof c);
        ez_writer_init(&w);
        ez_transcript_init(&t, "pctx-msg");
        c.prover = true, c.t = &t, c.w = &w, c.d = &d;
        ck_assert_int_eq(ez_pctx_msg(&c, "test/msg", v, 2), EZ_OK);
        after[k] = ez_transcript_challenge_fe2(&t, "test/after");
        /* the verifier's side */
        ez_reader r;
        ez_fe2 got[2];
        ez_reader_init(&r, w.data, w.len);
        ez_transcript_init(&t, "pctx-msg");
        c.prover = false, c.w = NULL, c.r = &r;
        ck_assert_int_eq(ez_pctx_msg(&c, "test/msg", got, 2), EZ_OK);
        ck_assert(ez_fe2_eq(got[1], v[1]));
        ck_assert(ez_fe2_eq(ez_transcript_challenge_fe2(&t, "test/after"), after[k]));
        ez_writer_clear(&w);
    }
    ck_assert_msg(!ez_fe2_eq(after[0], after[1]), "the challenge after a message does not depend on it");
}
END_TEST

Suite *ez_suite_prove(void)
{
    const TTest *tests[] = {test_pctx_msg_absorbed, test_sections_container, test_mle_causal_bruteforce,
        test_honest_linear, test_honest_masked, test_honest_gather, test_honest_layer_slices,
        test_honest_proj16, test_honest_add_shift_hand, test_message_non_canonical, test_causal_unmasked, test_stated_output_not_proven, test_remainder_out_of_range,
        test_quotient_out_of_width, test_public_ops, test_residual_out_of_width, test_public_input_claim,
        test_remainder_not_committed, test_output_quotient_out_of_width, test_lookup_column_not_the_tensor,
        test_multiplicities_after_alpha, test_tuple_columns_not_committed,
        test_func_multiplicities_not_committed, test_extra_atoms_sent_false, test_advice_commitment_shape,
        test_weight_padding_forged_factor, test_weight_padding_claim_not_committed, test_weight_out_of_width,
        test_weight_range_deferred, test_weight_range_deferred_false_claim, test_weight_real_mle_bruteforce};
    Suite *s = ez_test_suite("prove", "prove", 120, tests, sizeof tests / sizeof tests[0]);
    const TTest *masked[] = {test_changed_einsum_output, test_changed_masked_entry, test_changed_round_message,
        test_virtual_column_value, test_keys_roundtrip, test_weight_range_strict, test_weight_padding_junk};
    ez_tcase_add_fixture(s, "masked", 120, masked_setup, mf_teardown, masked, sizeof masked / sizeof masked[0]);
    const TTest *linear[] = {test_changed_activation, test_changed_claimed_output, test_binding_first};
    ez_tcase_add_fixture(s, "linear", 120, linear_setup, mf_teardown, linear, sizeof linear / sizeof linear[0]);
    const TTest *gather[] = {test_gather_token, test_gather_other_tokens};
    ez_tcase_add_fixture(s, "gather", 120, gather_setup, mf_teardown, gather, sizeof gather / sizeof gather[0]);
    const TTest *proj[] = {test_checked_prover_refuses, test_transcript_start_documented,
        test_input_outside_width, test_truncated_and_trailing, test_proof_same_on_threads};
    ez_tcase_add_fixture(s, "proj", 120, proj_setup, mf_teardown, proj, sizeof proj / sizeof proj[0]);
    TCase *tc = tcase_create("statement_streamed");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_statement_streamed, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

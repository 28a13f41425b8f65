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
#include "lib/mle.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/masks.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/public.h"
#include "runtime/prove/weights.h"
#include "runtime/prove/verify.h"
#include "tests/plan_fixture.h"
#include "tests/testutil.h"

typedef struct {
    ez_plan plan;
    ez_trace tr;
    ez_pcs_prover *w;
    ez_pcs_commitment wcom;
    ez_writer wrange; /* the weight range proof of the vk */
} fx;

static void fx_compile(fx *f, const char *src)
{
    memset(f, 0, sizeof *f);
    ez_test_compile_plan(&f->plan, src);
}

/* Random quantized inputs and weights (small, so no op leaves its range), then run. */
static void fx_run(fx *f, const char *seed)
{
    ez_rng rng = ez_rng_for(seed);
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_trace_init(&f->tr, &f->plan, &d), EZ_OK);
    for (size_t i = 0; i < f->plan.ntensors; i++) {
        const ez_plan_tensor *t = &f->plan.tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        uint64_t n = ez_plan_tensor_numel(t);
        int64_t *v = malloc((n ? n : 1) * sizeof *v);
        int64_t lim = INT64_C(1) << 9;
        if (lim > (int64_t)t->bound)
            lim = (int64_t)t->bound;
        for (uint64_t e = 0; e < n; e++) {
            uint64_t r = ez_rng_next(&rng);
            v[e] = t->kind == EZ_TENSOR_TOKENS ? (int64_t)(r % (uint64_t)t->token_limit)
                                               : (int64_t)(r % (uint64_t)(2 * lim + 1)) - lim;
        }
        ck_assert_msg(ez_trace_set(&f->tr, i, v, n, &d) == EZ_OK, "%s", d.msg);
        free(v);
    }
    ck_assert_msg(ez_exec_run(&f->plan, &f->tr, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_weights_commit(&f->w, &f->wcom, &f->plan, &f->tr, &d) == EZ_OK, "%s", d.msg);
    ez_writer_init(&f->wrange);
    ck_assert_msg(ez_prove_weight_range(&f->plan, &f->tr, f->w, false, &f->wrange, &d) == EZ_OK, "%s", d.msg);
}

/* compile, then run with inputs and weights drawn from seed. */
static void fx_setup(fx *f, const char *src, const char *seed)
{
    fx_compile(f, src);
    fx_run(f, seed);
}

/* A vk borrowing f's plan and commitment (not to be cleared). */
static ez_vk fx_vk(fx *f)
{
    ez_vk vk;
    ez_vk_init(&vk);
    vk.plan = f->plan;
    vk.has_weights = f->w != NULL;
    if (f->w)
        vk.wcom = *ez_pcs_prover_commitment(f->w);
    vk.wrange = f->wrange.data;
    vk.wrange_len = f->wrange.len;
    return vk;
}

static void fx_free(fx *f)
{
    ez_trace_clear(&f->tr);
    ez_pcs_prover_free(f->w);
    ez_pcs_commitment_clear(&f->wcom);
    ez_writer_clear(&f->wrange);
    ez_plan_clear(&f->plan);
}

/* Prove (unchecked when asked) into *pf. */
static void fx_prove(fx *f, bool unchecked, ez_proof *pf)
{
    ez_diag d = {{0}};
    ez_prove_opts o = {.unchecked = unchecked};
    ez_proof_init(pf);
    ck_assert_msg(ez_prove(&f->plan, &f->tr, f->w, &o, pf, NULL, &d) == EZ_OK, "prove: %s", d.msg);
}

/* Verify pf through the byte format; returns the verdict, reason in why. */
static bool fx_verify(fx *f, const ez_proof *pf, ez_diag *why)
{
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_proof_encode(&w, pf, NULL), EZ_OK);
    ez_vk vk = fx_vk(f); /* borrowed: not cleared below */
    bool ok = false;
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, w.len, &ok, NULL, why), EZ_OK);
    ez_writer_clear(&w);
    return ok;
}

/* An honest proof into *pf, which must verify (the baseline of a malicious prover). */
static void fx_prove_honest(fx *f, ez_proof *pf, ez_diag *why)
{
    fx_prove(f, false, pf);
    ck_assert_msg(fx_verify(f, pf, why), "honest proof rejected: %s", why->msg);
}

static bool fx_prove_verify(fx *f, bool unchecked, ez_diag *why)
{
    ez_proof pf;
    fx_prove(f, unchecked, &pf);
    bool ok = fx_verify(f, &pf, why);
    ez_proof_clear(&pf);
    return ok;
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

static const char *layers_src = "model layers\n"
                                "param L = 3, S = 4, D = 8\n"
                                "scale 12\n"
                                "input x[S, D]\n"
                                "weight w[L, D, D], b[L, D]\n"
                                "for l in 0..L {\n"
                                "  x[s, e] = x[s, d] * w[l, d, e] + b[l, e] + x[s, e]\n"
                                "}\n"
                                "output x\n";

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
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, src, seed);
    ck_assert_msg(fx_prove_verify(&f, false, &why), "%s: rejected: %s", seed, why.msg);
    fx_free(&f);
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
    /* a prover claiming another public token than the one its embedding used: the
     * verifier's own one-hot evaluation rejects */
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, gather_src, "gather_token");
    int tok = ez_plan_find_tensor(&f.plan, "tok");
    f.tr.t[tok][2] = (f.tr.t[tok][2] + 1) % f.plan.tensors[tok].token_limit;
    ck_assert(!fx_prove_verify(&f, true, &why));
    ck_assert_msg(strstr(why.msg, "(gather)") != NULL, "%s", why.msg);
    fx_free(&f);
}
END_TEST

/* A masked entry (t > s) given a value, everything downstream recomputed from it: the
 * causal reduction rejects. */
START_TEST(test_changed_masked_entry)
{
    fx f;
    ez_diag d = {{0}}, why = {{0}};
    fx_setup(&f, masked_src, "changed_masked");
    int m = ez_plan_find_tensor(&f.plan, "m");
    ck_assert_int_ge(m, 0);
    uint64_t S = f.plan.tensors[m].dims[1];
    ck_assert_int_eq(f.tr.t[m][0 * S + 3], 0); /* row s = 0, column t = 3: masked */
    f.tr.t[m][0 * S + 3] = 77;
    for (size_t i = (size_t)f.plan.tensors[m].producer + 1; i < f.plan.nops; i++)
        ck_assert_msg(ez_exec_op(&f.plan, i, &f.tr, &d) == EZ_OK, "%s", d.msg);
    ck_assert(!fx_prove_verify(&f, true, &why));
    ck_assert_msg(strstr(why.msg, "op 'm' (causal)") != NULL, "%s", why.msg);
    fx_free(&f);
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

/* ADD with broadcasting, negative and power-of-two coefficients and a shift; CAUSAL —
 * built by hand. */
START_TEST(test_honest_add_shift_hand)
{
    fx f;
    memset(&f, 0, sizeof f);
    ez_plan_init(&f.plan);
    snprintf(f.plan.model, sizeof f.plan.model, "hand");
    const char *sz = "s=5 t=5 n=6";
    unsigned a = ez_fx_op(&f.plan, EZ_OP_ADD, "y[s,n] = x[s,n] + b[n] + c[s]", sz);
    f.plan.ops[a].coef[1] = -2;
    f.plan.ops[a].coef[2] = 4;
    f.plan.ops[a].shift = 3;
    unsigned c = ez_fx_op(&f.plan, EZ_OP_CAUSAL, "z[s,t] = g[s,t]", sz);
    f.plan.ops[c].mask_row = ez_fx_idx(&f.plan.ops[c], "s");
    f.plan.ops[c].mask_col = ez_fx_idx(&f.plan.ops[c], "t");
    f.plan.tensors[f.plan.ops[a].out].is_output = true;
    f.plan.tensors[f.plan.ops[c].out].is_output = true;
    ez_diag d = {{0}};
    ck_assert_msg(ez_plan_schedule(&f.plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_plan_rederive(&f.plan, &d) == EZ_OK, "%s", d.msg); /* bounds as a compiler derives them */
    ck_assert_int_eq(ez_plan_compute_digest(&f.plan, &d), EZ_OK);
    fx_run(&f, "add_shift_hand");
    ez_diag why = {{0}};
    ck_assert_msg(fx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
    fx_free(&f);
}
END_TEST

/* ---- unsupported ops ----------------------------------------------------------------------- */

/* ---- malicious provers ------------------------------------------------------------------- */

/* One activation changed, everything downstream recomputed from it: only the producer's
 * relation is violated. */
START_TEST(test_changed_activation)
{
    fx f;
    ez_diag d = {{0}}, why = {{0}};
    fx_setup(&f, linear_src, "changed_activation");
    int h = ez_plan_find_tensor(&f.plan, "h");
    ck_assert_int_ge(h, 0);
    f.tr.t[h][5] += 1;
    for (size_t i = (size_t)f.plan.tensors[h].producer + 1; i < f.plan.nops; i++)
        ck_assert_msg(ez_exec_op(&f.plan, i, &f.tr, &d) == EZ_OK, "%s", d.msg);
    ck_assert(!fx_prove_verify(&f, true, &why));
    ck_assert_msg(strstr(why.msg, "op 'h' (add)") != NULL, "%s", why.msg);
    fx_free(&f);
}
END_TEST

/* The einsum's output value changed in the trace without recomputing anything. */
START_TEST(test_changed_einsum_output)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, masked_src, "changed_einsum_out");
    int q = ez_plan_find_tensor(&f.plan, "q");
    ck_assert_int_ge(q, 0);
    f.tr.t[q][3] -= 7;
    ck_assert(!fx_prove_verify(&f, true, &why));
    fx_free(&f);
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
    ez_diag why = {{0}};
    fx_setup(&f, src, seed);
    size_t op = f.plan.nops - 1;
    unsigned k = f.plan.ops[op].shift;
    ck_assert_uint_gt(k, 0);
    uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << k) - 1);
    int64_t *rem = (int64_t *)ez_trace_aux(&f.tr, op, EZ_AUX_REM, NULL);
    rem[e] += INT64_C(1) << k;
    f.tr.t[f.plan.ops[op].out][e] -= 1;
    ck_assert(!fx_prove_verify(&f, true, &why));
    ck_assert_msg(strstr(why.msg, "lookups") != NULL, "%s", why.msg);
    fx_free(&f);
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
    ez_diag why = {{0}};
    fx_setup(&f, src, seed);
    size_t op = f.plan.nops - 1;
    unsigned k = f.plan.ops[op].shift;
    uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << k) - 2);
    int64_t *rem = (int64_t *)ez_trace_aux(&f.tr, op, EZ_AUX_REM, NULL);
    rem[e] += 1;
    int64_t *out = f.tr.t[f.plan.ops[op].out];
    ez_fe c = ez_fe_sub(ez_fe_from_i64(out[e]), ez_fe_inv(ez_fe_pow(2, k)));
    out[e] = ez_fe_to_i64(c);
    ck_assert(!fx_prove_verify(&f, true, &why));
    ck_assert_msg(strstr(why.msg, "statement: output") != NULL, "%s", why.msg);
    fx_free(&f);
}

START_TEST(test_quotient_out_of_width)
{
    quotient_out_of_width(proj_src, "quot_out_of_width");
    quotient_out_of_width(proj16_src, "quot_out_of_width16");
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
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "public op 'next'") != NULL, "%s", why.msg);
    nx->v[1] = (nx->v[1] + 19) % 20;
    ck_assert_msg(fx_verify(&f, &pf, &why), "%s", why.msg);
    /* a wrong max: the public op's check */
    ez_stmt_tensor *mx = stmt_of(&f, &pf, "m");
    mx->v[2] += 1;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "public op 'm'") != NULL, "%s", why.msg);
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
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "public op") == NULL, "%s", why.msg);
    ez_proof_clear(&pf);
    /* a logit outside its width (an out-of-width quotient would need it): the statement */
    fx_prove(&f, false, &pf);
    lg = stmt_of(&f, &pf, "logits");
    lg->v[0] = INT64_C(1) << 40;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "statement: output logits") != NULL, "%s", why.msg);
    ez_proof_clear(&pf);
    fx_free(&f);
}
END_TEST

/* The checked prover refuses such a witness with a numeric error instead. */
START_TEST(test_checked_prover_refuses)
{
    fx f;
    ez_diag d = {{0}};
    fx_setup(&f, proj_src, "checked_refuses");
    size_t op = f.plan.nops - 1;
    uint64_t e = find_rem(&f, op, 0, (INT64_C(1) << 12) - 1);
    int64_t *rem = (int64_t *)ez_trace_aux(&f.tr, op, EZ_AUX_REM, NULL);
    rem[e] += INT64_C(1) << 12;
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_prove(&f.plan, &f.tr, f.w, NULL, &pf, NULL, &d), EZ_ERR_NUMERIC);
    ck_assert_msg(strstr(d.msg, "outside") != NULL, "%s", d.msg);
    ez_proof_clear(&pf);
    fx_free(&f);
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
    ck_assert_msg(fx_prove_verify(&f, false, &why), "rejected: %s", why.msg);
    const int64_t top = (INT64_C(1) << 15) - 1;
    const uint64_t e = 5;
    f.tr.t[f.plan.ops[0].in[0]][e] = top;
    f.tr.t[f.plan.ops[0].in[1]][e] = top;
    f.tr.t[f.plan.ops[0].out][e] = 2 * top;
    f.tr.t[f.plan.ops[1].out][e] = top;
    ck_assert(!fx_prove_verify(&f, true, &why));
    ck_assert_msg(strstr(why.msg, "lookups") != NULL, "%s", why.msg);
    fx_free(&f);
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
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, masked_src, "changed_round");
    ez_proof pf;
    fx_prove_honest(&f, &pf, &why);
    /* the last op y is a rescaled contraction: rho (16 B), then its first round value */
    bump(&pf.sec[EZ_PF_SEC_WALK], 16);
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "op 'y' (einsum)") != NULL, "%s", why.msg);
    bump(&pf.sec[EZ_PF_SEC_WALK], 16 * 0); /* rho too: still rejected */
    ck_assert(!fx_verify(&f, &pf, &why));
    ez_proof_clear(&pf);
    /* a message of every other section */
    const int secs[] = {EZ_PF_SEC_LOOKUPS, EZ_PF_SEC_OPEN_W, EZ_PF_SEC_OPEN_A};
    for (size_t s = 0; s < 3; s++) {
        fx_prove(&f, false, &pf);
        size_t off = pf.sec[secs[s]].len / 32 * 16;
        /* field elements are 16-byte aligned in lookups; openings mix hashes and elements,
         * so flip a bit instead there */
        if (secs[s] == EZ_PF_SEC_LOOKUPS)
            bump(&pf.sec[secs[s]], off);
        else
            pf.sec[secs[s]].data[off] ^= 1;
        ck_assert_msg(!fx_verify(&f, &pf, &why), "section %d", secs[s]);
        ez_proof_clear(&pf);
    }
    fx_free(&f);
}
END_TEST

/* A virtual column (the low 16 bits of a 24-bit quotient, docs/protocol.md §4): the
 * prover sends the committed high part's value at each of its lookup points and the
 * verifier derives the tensor's. A changed value (the last element of the lookups
 * section: the last such message) is caught — by the advice opening or by the walk. */
START_TEST(test_virtual_column_value)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, masked_src, "virtual_column");
    ez_advice_layout L;
    ck_assert_int_eq(ez_advice_layout_build(&L, &f.plan, &why), EZ_OK);
    size_t nvirt = 0;
    for (size_t j = 0; j < L.ncols; j++)
        nvirt += L.cols[j].nx > 0;
    ck_assert_uint_gt(nvirt, 0); /* columns without extra atoms send nothing: the last
                                    message of the section is a virtual column's */
    ez_advice_layout_clear(&L);
    ez_proof pf;
    fx_prove_honest(&f, &pf, &why);
    bump(&pf.sec[EZ_PF_SEC_LOOKUPS], pf.sec[EZ_PF_SEC_LOOKUPS].len - 16);
    ck_assert(!fx_verify(&f, &pf, &why));
    ez_proof_clear(&pf);
    fx_free(&f);
}
END_TEST

START_TEST(test_changed_claimed_output)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, linear_src, "changed_output");
    ez_proof pf;
    fx_prove(&f, false, &pf);
    ez_stmt_tensor *out = &pf.stmt.t[pf.stmt.n - 1];
    out->v[out->n / 2] += 1;
    ck_assert(!fx_verify(&f, &pf, &why));
    out->v[out->n / 2] -= 1;
    ck_assert(fx_verify(&f, &pf, &why));
    /* a changed public input */
    pf.stmt.t[0].v[0] ^= 1;
    ck_assert(!fx_verify(&f, &pf, &why));
    pf.stmt.t[0].v[0] ^= 1;
    /* an input outside its width is refused by the statement check */
    int64_t keep = pf.stmt.t[0].v[1];
    pf.stmt.t[0].v[1] = INT64_C(1) << 40;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "outside its range") != NULL, "%s", why.msg);
    pf.stmt.t[0].v[1] = keep;
    ez_proof_clear(&pf);
    fx_free(&f);
}
END_TEST

/* The binding (the plan digest and weight root the prover used) is what verify checks
 * first: a proof whose binding names another model or other weights is rejected saying
 * so with both values, although its transcript is the honest one (without the check it
 * would be accepted). A statement of the wrong shape names the expected shapes. */
START_TEST(test_binding_first)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, linear_src, "binding");
    ez_proof pf;
    fx_prove(&f, false, &pf);
    ck_assert(fx_verify(&f, &pf, &why));
    pf.bind.digest[0] ^= 1;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "the proof is for another model: its plan digest is ") != NULL, "%s", why.msg);
    char hex[65];
    ez_plan_digest_hex(&f.plan, hex);
    hex[16] = 0;
    ck_assert_msg(strstr(why.msg, hex) != NULL, "%s lacks %s", why.msg, hex);
    pf.bind.digest[0] ^= 1;
    pf.bind.wroot[31] ^= 1;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "the proof was made with other weights: weight commitment ") != NULL, "%s",
                  why.msg);
    pf.bind.has_weights = false;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "weight commitment none, the verifying key's ") != NULL, "%s", why.msg);
    pf.bind.has_weights = true;
    pf.bind.wroot[31] ^= 1;
    ck_assert(fx_verify(&f, &pf, &why));
    /* the statement's shape: one tensor missing, then one value missing */
    pf.stmt.n--;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "the proof has 1 tensors, the model's statement has 2: x[8,32], y[8,32]") != NULL,
                  "%s", why.msg);
    pf.stmt.n++;
    pf.stmt.t[1].n--;
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "statement: y[8,32] has 256 values, the proof has 255") != NULL, "%s", why.msg);
    pf.stmt.t[1].n++;
    ez_proof_clear(&pf);
    fx_free(&f);
}
END_TEST

START_TEST(test_truncated_and_trailing)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, proj_src, "truncated");
    ez_proof pf;
    fx_prove(&f, false, &pf);
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_proof_encode(&w, &pf, NULL), EZ_OK);
    ez_vk vk = fx_vk(&f);
    bool ok = true;
    for (size_t cut = 0; cut < w.len; cut += w.len / 23 + 1) {
        ck_assert_int_eq(ez_verify_bytes(&vk, w.data, cut, &ok, NULL, &why), EZ_OK);
        ck_assert_msg(!ok, "truncated at %zu accepted", cut);
    }
    ez_writer_u8(&w, 0);
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, w.len, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    /* trailing bytes inside a section */
    ez_writer_u8(&pf.sec[EZ_PF_SEC_WALK], 0);
    ck_assert(!fx_verify(&f, &pf, &why));
    ck_assert_msg(strstr(why.msg, "walk") != NULL, "%s", why.msg);
    ez_writer_clear(&w);
    ez_proof_clear(&pf);
    fx_free(&f);
}
END_TEST

/* vk and pk formats round-trip; a vk whose commitment does not match the plan is refused. */
START_TEST(test_keys_roundtrip)
{
    fx f;
    ez_diag d = {{0}};
    fx_setup(&f, masked_src, "keys");
    ez_writer vkw, pkw;
    ez_writer_init(&vkw);
    ez_writer_init(&pkw);
    ck_assert_int_eq(ez_vk_encode(&vkw, &f.plan, ez_pcs_prover_commitment(f.w), f.wrange.data, f.wrange.len, &d),
                     EZ_OK);
    ck_assert_int_eq(ez_pk_encode(&pkw, &f.plan, f.tr.t, f.w), EZ_OK);
    ez_vk vk;
    ck_assert_msg(ez_vk_decode(&vk, vkw.data, vkw.len, &d) == EZ_OK, "%s", d.msg);
    ck_assert(memcmp(vk.plan.digest, f.plan.digest, 32) == 0);
    ez_pk pk;
    ck_assert_msg(ez_pk_decode(&pk, &f.plan, pkw.data, pkw.len, &d) == EZ_OK, "%s", d.msg);
    /* prove with the pk's prover data, verify with the decoded vk */
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_prove(&f.plan, &f.tr, pk.pcs, NULL, &pf, NULL, &d), EZ_OK);
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
    fx_free(&f);
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
    int w = ez_plan_find_tensor(&f.plan, wname);
    ck_assert_int_ge(w, 0);
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
    ez_vk vk = fx_vk(&f);
    bool ok = true;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert(!fx_prove_verify(&f, false, &why));
    ck_assert_msg(strstr(why.msg, "weight range proof failed") != NULL, "%s", why.msg);
    fx_free(&f);
}

START_TEST(test_weight_out_of_width)
{
    bad_weight(proj16_src, "w", INT64_C(1) << 20, "weight_width16");
    bad_weight("model w24\nparam S = 4, D = 8\ninput x[S, D]\nweight w[D, D] @bits(24)\n"
               "y[s, e] = x[s, d] * w[d, e]\noutput y\n",
               "w", -(INT64_C(1) << 30), "weight_width24");
}
END_TEST

/* The vk's range proof bytes are strict: truncated or extended, the vk is rejected. */
START_TEST(test_weight_range_strict)
{
    fx f;
    ez_diag why = {{0}};
    fx_setup(&f, masked_src, "weight_range_strict");
    ez_vk vk = fx_vk(&f);
    bool ok = false;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert_msg(ok, "%s", why.msg);
    for (size_t cut = 0; cut < f.wrange.len; cut += f.wrange.len / 13 + 1) {
        vk.wrange_len = cut;
        ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
        ck_assert(!ok);
    }
    vk.wrange_len = f.wrange.len;
    f.wrange.data[f.wrange.len / 2] ^= 1;
    ck_assert_int_eq(ez_verify_weight_range(&vk, &ok, &why), EZ_OK);
    ck_assert(!ok);
    fx_free(&f);
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
    fx f;
    ez_diag d = {{0}};
    fx_setup(&f, masked_src, "weight_padding_junk");
    uint64_t *lens = NULL;
    size_t nw = 0, k = 0, ki = SIZE_MAX, wi = 0;
    ck_assert_int_eq(ez_weights_lens(&f.plan, &lens, &nw), EZ_OK);
    ez_fe **polys = calloc(nw, sizeof *polys);
    uint64_t *plens = calloc(nw, sizeof *plens);
    for (size_t i = 0; i < f.plan.ntensors; i++) {
        const ez_plan_tensor *t = &f.plan.tensors[i];
        if (t->kind != EZ_TENSOR_WEIGHT)
            continue;
        plens[k] = ez_advice_padlen(t);
        polys[k] = calloc(plens[k], sizeof(ez_fe));
        ez_advice_pad_i64(polys[k], f.tr.t[i], t, 0);
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
    ck_assert_int_eq(ez_weights_check(&f.plan, bad, &d), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_weights_set_supports(&f.plan, &bcom), EZ_ERR_INVALID);
    ez_pcs_commitment_clear(&bcom);
    ez_pcs_prover_free(bad);
    /* (2) a claim with the junk entry on the honest commitment */
    const ez_pcs_commitment *com = ez_pcs_prover_commitment(f.w);
    const ez_plan_tensor *t = &f.plan.tensors[wi];
    unsigned nv = ez_log2_ceil(plens[ki]);
    ck_assert_uint_eq(com->nvars[ki], nv);
    ez_rng rng = ez_rng_for("weight_padding_junk");
    ez_fe2 z[64];
    for (unsigned v = 0; v < nv; v++)
        z[v] = ez_rng_fe2(&rng);
    ez_pcs_claim cl = {.poly = ki, .point = z};
    ck_assert_int_eq(ez_advice_tensor_eval(&cl.value, f.tr.t[wi], t, z), EZ_OK);
    ez_pcs_claim junk = cl;
    junk.value = ez_mle_eval_fe(polys[ki], (size_t)plens[ki], z, nv); /* the junk cube's MLE */
    ck_assert(!ez_fe2_eq(junk.value, cl.value));
    ez_transcript tp;
    ez_transcript_init(&tp, "weight_padding_junk");
    ez_pcs_commitment_absorb(&tp, com);
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_pcs_open(f.w, &tp, &cl, 1, &w), EZ_OK);
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
    fx_free(&f);
}
END_TEST

Suite *ez_suite_prove(void)
{
    Suite *s = suite_create("prove");
    TCase *tc = tcase_create("prove");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mle_causal_bruteforce);
    tcase_add_test(tc, test_honest_linear);
    tcase_add_test(tc, test_honest_masked);
    tcase_add_test(tc, test_honest_gather);
    tcase_add_test(tc, test_honest_layer_slices);
    tcase_add_test(tc, test_honest_proj16);
    tcase_add_test(tc, test_honest_add_shift_hand);
    tcase_add_test(tc, test_changed_activation);
    tcase_add_test(tc, test_changed_einsum_output);
    tcase_add_test(tc, test_changed_masked_entry);
    tcase_add_test(tc, test_remainder_out_of_range);
    tcase_add_test(tc, test_quotient_out_of_width);
    tcase_add_test(tc, test_public_ops);
    tcase_add_test(tc, test_checked_prover_refuses);
    tcase_add_test(tc, test_residual_out_of_width);
    tcase_add_test(tc, test_changed_round_message);
    tcase_add_test(tc, test_virtual_column_value);
    tcase_add_test(tc, test_changed_claimed_output);
    tcase_add_test(tc, test_binding_first);
    tcase_add_test(tc, test_truncated_and_trailing);
    tcase_add_test(tc, test_keys_roundtrip);
    tcase_add_test(tc, test_weight_out_of_width);
    tcase_add_test(tc, test_weight_range_strict);
    tcase_add_test(tc, test_weight_real_mle_bruteforce);
    tcase_add_test(tc, test_weight_padding_junk);
    suite_add_tcase(s, tc);
    return s;
}

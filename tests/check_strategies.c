/* Suite "strategies": the three proving strategies (runtime/prove/strategy.h) on
 * attention layers at the boundary widths — head width 64, 80 (not a power of two), 96,
 * 12 heads (not a power of two), GQA with 8 query heads over 2 K/V heads, causal softmax:
 * honest proofs of every strategy verify against ONE vk, the proof records its strategy
 * and a proof relabelled with another strategy is rejected; malicious provers that keep
 * the transcript consistent and target one check of each strategy's own protocol — one
 * witness value, one advice value, one round message, one per-head evaluation, one
 * claimed output changed — are rejected; the einsum strategy reads no padding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/strategy.h"
#include "runtime/prove/verify.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* An attention layer: H heads of width E over S positions, model width D, causal. With
 * softmax: our exact softmax under the causal mask; without: the causal mask alone, at a
 * small scale and width (a 4-bit rescale, 14-bit values) so that the proof's tables are
 * small and a malicious-prover test costs a tenth of a second. */
static void attention_src(char *buf, size_t n, unsigned S, unsigned D, unsigned H, unsigned E, bool softmax)
{
    snprintf(buf, n,
             "model att\nparam S = %u, D = %u, H = %u, E = %u\n%sinput x[S, D]\n"
             "weight wq[D, H, E], wk[D, H, E], wv[D, H, E], wo[H, E, D]\n"
             "q[s, h, e] = x[s, d] * wq[d, h, e]\nk[t, h, e] = x[t, d] * wk[d, h, e]\n"
             "v[t, h, e] = x[t, d] * wv[d, h, e]\na[h, s, t] = q[s, h, e] * k[t, h, e] / 8\n"
             "p[h, s, t] = %s(a[h, s, t]))\nc[s, h, e] = p[h, s, t] * v[t, h, e]\n"
             "y[s, n] = c[s, h, e] * wo[h, e, n]\noutput y\n",
             S, D, H, E, softmax ? "" : "scale 4\nbits 12\n", softmax ? "softmax[t](causal[s, t]" : "(causal[s, t]");
}

/* Grouped-query attention: G K/V heads, R query heads each, causal (softmax or the mask
 * alone, as above). */
static void gqa_src(char *buf, size_t n, unsigned S, unsigned D, unsigned G, unsigned R, unsigned E, bool softmax)
{
    snprintf(buf, n,
             "model gqa\nparam S = %u, D = %u, G = %u, R = %u, E = %u\n%sinput x[S, D]\n"
             "weight wq[D, G, R, E], wk[D, G, E], wv[D, G, E], wo[G, R, E, D]\n"
             "q[s, g, r, e] = x[s, d] * wq[d, g, r, e]\nk[t, g, e] = x[t, d] * wk[d, g, e]\n"
             "v[t, g, e] = x[t, d] * wv[d, g, e]\na[g, r, s, t] = q[s, g, r, e] * k[t, g, e] / 8\n"
             "p[g, r, s, t] = %s(a[g, r, s, t]))\n"
             "c[s, g, r, e] = p[g, r, s, t] * v[t, g, e]\ny[s, n] = c[s, g, r, e] * wo[g, r, e, n]\noutput y\n",
             S, D, G, R, E, softmax ? "" : "scale 4\nbits 12\n", softmax ? "softmax[t](causal[s, t]" : "(causal[s, t]");
}

/* The small attention layer most tests attack (5 positions, width 8, H heads of width
 * 80, the causal mask alone) compiled, run on values in [-3, 3] and committed into f. */
static void attention_fx(ez_pfx *f, unsigned H, const char *seed)
{
    char src[1024];
    attention_src(src, sizeof src, 5, 8, H, 80, false);
    ez_pfx_compile(f, src);
    ez_pfx_run(f, seed, 3);
}

static void prove_with(ez_pfx *f, ez_strategy s, bool unchecked, ez_proof *pf, ez_prove_stats *stats)
{
    ez_diag d = {{0}};
    ez_prove_opts o = {.unchecked = unchecked, .strategy = s};
    ez_proof_init(pf);
    ck_assert_msg(ez_prove(&f->plan, &f->tr, f->w, &o, pf, stats, &d) == EZ_OK, "prove (%s): %s",
                  ez_strategy_name(s), d.msg);
    ck_assert_uint_eq(pf->strategy, (unsigned)s);
}

/* Honest proofs of every strategy verify against the one vk, at head widths 64, 80 and
 * 96 and with GQA (8 query heads over 2 K/V heads), with causal softmax or the causal mask
 * alone; and ez_strategy_describe says exactly what the prover did: per op, the walk
 * bytes, the sumchecks, the elements touched and the real elements. */
START_TEST(test_honest_and_described)
{
    char src[1024];
    /* under the sanitizers (EZ_SANITIZERS, Makefile.am) the causal mask stands in for the
     * softmax: the same contractions, tables a tenth the size */
    const bool softmax = getenv("EZ_SANITIZERS") == NULL;
    for (int m = 0; m < 4; m++) {
        if (m == 0)
            attention_src(src, sizeof src, 5, 8, 3, 80, softmax);
        else if (m == 1)
            gqa_src(src, sizeof src, 6, 8, 2, 4, 16, softmax);
        else if (m == 2)
            attention_src(src, sizeof src, 4, 8, 2, 64, false);
        else
            attention_src(src, sizeof src, 5, 8, 2, 96, false);
        ez_pfx f;
        ez_pfx_compile(&f, src);
        ez_pfx_run(&f, "strategies_honest", m < 2 && softmax ? 1 << 6 : 3);
        for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
            const char *sn = ez_strategy_name((ez_strategy)s);
            ez_strategy_plan sp;
            ez_diag d = {{0}}, why = {{0}};
            ck_assert_int_eq(ez_strategy_describe(&sp, &f.plan, (ez_strategy)s, &d), EZ_OK);
            ck_assert(sp.provable);
            ez_proof pf;
            ez_prove_stats S;
            prove_with(&f, (ez_strategy)s, false, &pf, &S);
            ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "model %d %s: %s", m, sn, why.msg);
            uint64_t walk = 0;
            for (size_t i = 0; i < f.plan.nops; i++) {
                const ez_strategy_op *o = &sp.ops[i];
                const char *what = f.plan.ops[i].label;
                ck_assert_msg(S.ops[i].bytes == o->walk_bytes, "model %d %s op %s: prover %llu bytes, describe %llu", m,
                              sn, what, (unsigned long long)S.ops[i].bytes, (unsigned long long)o->walk_bytes);
                ck_assert_msg(S.ops[i].work.sumchecks == o->work.sumchecks, "model %d %s op %s: %llu sumchecks, %llu", m,
                              sn, what, (unsigned long long)S.ops[i].work.sumchecks,
                              (unsigned long long)o->work.sumchecks);
                ck_assert_msg(S.ops[i].work.touched == o->work.touched, "model %d %s op %s: touched %llu, %llu", m, sn,
                              what, (unsigned long long)S.ops[i].work.touched, (unsigned long long)o->work.touched);
                ck_assert_msg(S.ops[i].work.real == o->work.real, "model %d %s op %s: real %llu, %llu", m, sn, what,
                              (unsigned long long)S.ops[i].work.real, (unsigned long long)o->work.real);
                walk += S.ops[i].bytes;
            }
            ck_assert_uint_eq(walk, sp.walk_bytes);
            ck_assert_uint_eq(walk, pf.sec[EZ_PF_SEC_WALK].len);
            ez_prove_stats_clear(&S);
            ez_proof_clear(&pf);
            ez_strategy_plan_clear(&sp);
        }
        ez_pfx_free(&f);
    }
}
END_TEST

/* ---- malicious provers ------------------------------------------------------------------ */

/* Prove (unchecked: a witness outside its range goes through) and verify; the verdict,
 * the reason in why. */
static bool prove_verify(ez_pfx *f, ez_strategy s, ez_diag *why)
{
    ez_proof pf;
    prove_with(f, s, true, &pf, NULL);
    bool ok = ez_pfx_verify(f, &pf, why);
    ez_proof_clear(&pf);
    return ok;
}

/* Re-run every op after `from` on the (changed) trace. */
static void rerun_after(ez_pfx *f, size_t from)
{
    ez_diag d = {{0}};
    for (size_t i = from + 1; i < f->plan.nops; i++)
        ck_assert_msg(ez_exec_op(&f->plan, i, &f->tr, &d) == EZ_OK, "%s", d.msg);
}

static size_t op_index(const ez_pfx *f, const char *tensor)
{
    int t = ez_plan_find_tensor(&f->plan, tensor);
    ck_assert_int_ge(t, 0);
    ck_assert_int_ge(f->plan.tensors[t].producer, 0);
    return (size_t)f->plan.tensors[t].producer;
}

/* The op that proves `tensor`'s producer under s: deepprove proves Q, K and V at V. */
static const char *prover_of(ez_strategy s, const char *tensor)
{
    if (s == EZ_STRATEGY_DEEPPROVE && (!strcmp(tensor, "q") || !strcmp(tensor, "k")))
        return "v";
    return tensor;
}

/* Under every strategy (DeepProve alone when only_deepprove), an unchecked proof of f's
 * changed trace is rejected by the einsum op that proves `tensor`; what: the change, in
 * failure messages ("changed", "remainder of"). */
static void expect_caught(ez_pfx *f, const char *tensor, bool only_deepprove, const char *what)
{
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
        if (only_deepprove && s != EZ_STRATEGY_DEEPPROVE)
            continue;
        ez_diag why = {{0}};
        char want[64];
        ck_assert_msg(!prove_verify(f, (ez_strategy)s, &why), "%s: %s %s accepted", ez_strategy_name((ez_strategy)s),
                      what, tensor);
        snprintf(want, sizeof want, "op '%s' (einsum)", prover_of((ez_strategy)s, tensor));
        ck_assert_msg(strstr(why.msg, want) != NULL, "%s, %s %s: %s", ez_strategy_name((ez_strategy)s), what, tensor,
                      why.msg);
    }
}

/* The "attention" case's checked fixture: attention_fx's layer of 3 heads, run and
 * committed before each test (which may change its trace), freed after it. */
static ez_pfx fx;

static void attention_setup(void)
{
    attention_fx(&fx, 3, "strategies");
}

static void attention_teardown(void)
{
    ez_pfx_free(&fx);
}

/* One activation changed, everything downstream recomputed from it: the proof is
 * consistent except for the producer's relation, which each strategy's own reduction of
 * that op must catch (the per-head split or sumchecks, the stacked heads, the zeroifier,
 * the QKV group). */
START_TEST(test_changed_witness)
{
    const char *targets[] = {"c", "a", "q"};
    for (size_t ti = 0; ti < 3; ti++) {
        int t = ez_plan_find_tensor(&fx.plan, targets[ti]);
        size_t op = op_index(&fx, targets[ti]);
        fx.tr.t[t][7] += 1;
        rerun_after(&fx, op);
        /* the projections differ only under DeepProve */
        expect_caught(&fx, targets[ti], ti == 2, "changed");
        fx.tr.t[t][7] -= 1;
        rerun_after(&fx, op);
    }
    ez_diag why = {{0}};
    ck_assert_msg(prove_verify(&fx, EZ_STRATEGY_DEEPPROVE, &why), "restored: %s", why.msg);
}
END_TEST

/* One rescale remainder (committed advice) changed: the op's rescale step sends R~(r) of
 * the changed R, so the accumulator's claim is false and the strategy's sumcheck rejects. */
START_TEST(test_changed_advice)
{
    const char *targets[] = {"c", "k"};
    for (size_t ti = 0; ti < 2; ti++) {
        size_t op = op_index(&fx, targets[ti]);
        ck_assert_uint_gt(fx.plan.ops[op].shift, 1);
        int64_t *rem = (int64_t *)ez_trace_aux(&fx.tr, op, EZ_AUX_REM, NULL);
        ck_assert_ptr_nonnull(rem);
        rem[3] ^= 1; /* still in range: only the reduction can tell */
        /* k is a member of DeepProve's Q/K/V group */
        expect_caught(&fx, targets[ti], ti == 1, "remainder of");
        rem[3] ^= 1;
    }
}
END_TEST

/* Where op i's bytes start in the walk section (ops are walked last to first). */
static size_t op_offset(const ez_prove_stats *S, size_t nops, size_t i)
{
    size_t o = 0;
    for (size_t j = nops; j-- > i + 1;)
        o += S->ops[j].bytes;
    return o;
}

/* Add 1 to the field element at off of the walk section (kept canonical). */
static void bump(ez_proof *pf, size_t off)
{
    ez_writer *w = &pf->sec[EZ_PF_SEC_WALK];
    ck_assert_uint_ge(w->len, off + 16);
    ez_fe2 v;
    ck_assert(ez_fe2_decode(&v, w->data + off));
    v.c0 = ez_fe_add(v.c0, 1);
    ez_fe2_encode(w->data + off, v);
}

/* The bytes of a rescale step: rho and the remainder's limbs beyond the first. */
static size_t rem_bytes(const ez_plan_op *op)
{
    return op->shift ? 16 * (size_t)ez_rc_nlimbs(op->shift) : 0;
}

/* An honest proof of attention_fx's layer (3 heads) by strategy s with the field element
 * `off` bytes into the strategy's own messages for the op computing `tensor` (after the
 * fan-out merge of its output and its rescale) changed: the verifier rejects it, with
 * `want` in the reason. */
static void bumped_rejected(ez_strategy s, const char *tensor, size_t off, const char *want, const char *what)
{
    ez_pfx f;
    ez_proof pf;
    ez_prove_stats S;
    ez_strategy_plan sp;
    ez_diag d = {{0}}, why = {{0}};
    attention_fx(&f, 3, "strategies_tamper");
    prove_with(&f, s, false, &pf, &S);
    size_t op = op_index(&f, tensor);
    ck_assert_int_eq(ez_strategy_describe(&sp, &f.plan, s, &d), EZ_OK);
    const ez_plan_tensor *to = &f.plan.tensors[f.plan.ops[op].out];
    size_t merge = sp.ops[op].out_claims > 1 ? 16 * (2 * (size_t)ez_claim_tensor_nvars(to->dims, to->rank) + 2) : 0;
    ez_strategy_plan_clear(&sp);
    bump(&pf, op_offset(&S, f.plan.nops, op) + merge + rem_bytes(&f.plan.ops[op]) + off);
    ck_assert_msg(!ez_pfx_verify(&f, &pf, &why), "%s accepted", what);
    ck_assert_msg(strstr(why.msg, want) != NULL, "%s: %s", what, why.msg);
    ez_prove_stats_clear(&S);
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}

/* A malicious prover through ez_prove_opts.msg_hook: it changes chosen messages (by
 * label, occurrence and element) and goes on from what it sent, so its transcript stays
 * consistent and only the check of that message can catch it. */
typedef struct {
    const char *label;
    unsigned occurrence, index;
    bool mul;       /* v *= x, else v += 1 */
    ez_fe2 x;
} forge_edit;

typedef struct {
    forge_edit e[2];
    unsigned ne, seen[2], hits;
} forge;

static void forge_hook(void *ctx, const char *label, ez_fe2 *v, size_t n)
{
    forge *F = ctx;
    for (unsigned k = 0; k < F->ne; k++) {
        if (strcmp(label, F->e[k].label) != 0 || F->seen[k]++ != F->e[k].occurrence)
            continue;
        ck_assert_uint_lt(F->e[k].index, n);
        ez_fe2 *t = &v[F->e[k].index];
        *t = F->e[k].mul ? ez_fe2_mul(*t, F->e[k].x) : ez_fe2_add(*t, ez_fe2_one());
        F->hits++;
    }
}

/* Prove with the forgeries and verify: rejected, the reason containing `want` (or, when
 * `not` is set, NOT containing it: the forgery passes that check and is caught later). */
static void forged(ez_pfx *f, ez_strategy s, forge *F, const char *want, bool not)
{
    ez_diag d = {{0}}, why = {{0}};
    ez_prove_opts o = {.strategy = s, .msg_hook = forge_hook, .msg_hook_ctx = F};
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_msg(ez_prove(&f->plan, &f->tr, f->w, &o, &pf, NULL, &d) == EZ_OK, "%s", d.msg);
    ck_assert_uint_eq(F->hits, F->ne);
    ck_assert_msg(!ez_pfx_verify(f, &pf, &why), "forgery of %s accepted", F->e[0].label);
    ck_assert_msg((strstr(why.msg, want) != NULL) != not, "forgery of %s: %s", F->e[0].label, why.msg);
    ez_proof_clear(&pf);
}

/* Per-head, on the value mixing c = p v (the first per-head split of the walk): a changed
 * head value is caught by the split (sum_h eq(r, h) a_h = the claim); a changed round
 * value by that head's sumcheck. */
START_TEST(test_perhead_messages)
{
    forge F = {.e = {{"perhead/heads", 0, 1, false, {0, 0}}}, .ne = 1};
    forged(&fx, EZ_STRATEGY_PER_HEAD, &F, "op 'c' (einsum): the per-head values do not add up", false);

    const unsigned H = 3; /* head 0, round 1, g(0) */
    bumped_rejected(EZ_STRATEGY_PER_HEAD, "c", 16 * H + 16 * 2, "op 'c' (einsum): a per-head sumcheck failed",
                    "a per-head round value");
}
END_TEST

/* DeepProve, on the value mixing c = p v (the first stacked sumcheck of the walk): a
 * changed round value and a changed per-head value break the stacked sumcheck; A_1 t with
 * B_1 / t keeps its final check and is caught by the recombination at rho (the claims on p
 * or v are false, caught where those are proven); on the masked scores a = q k, a changed
 * zeroified value breaks the zeroifier sumcheck. */
START_TEST(test_deepprove_messages)
{
    forge F1 = {.e = {{"deepprove/round", 0, 0, false, {0, 0}}}, .ne = 1};
    forged(&fx, EZ_STRATEGY_DEEPPROVE, &F1, "op 'c' (einsum): the stacked-heads sumcheck failed", false);
    forge F2 = {.e = {{"deepprove/heads-a", 0, 1, false, {0, 0}}}, .ne = 1};
    forged(&fx, EZ_STRATEGY_DEEPPROVE, &F2, "op 'c' (einsum): the stacked-heads sumcheck failed", false);
    ez_fe2 t = ez_fe2_make(7, 2);
    forge F3 = {.e = {{"deepprove/heads-a", 0, 1, true, t}, {"deepprove/heads-b", 0, 1, true, ez_fe2_inv(t)}},
                .ne = 2};
    forged(&fx, EZ_STRATEGY_DEEPPROVE, &F3, "op 'c'", true);
    forge F4 = {.e = {{"deepprove/zeroified", 0, 0, false, {0, 0}}}, .ne = 1};
    forged(&fx, EZ_STRATEGY_DEEPPROVE, &F4, "op 'a' (einsum): the zeroifier sumcheck failed", false);
}
END_TEST

/* DeepProve's padding matrices (width 80): a changed value of the unpadding matrix U at
 * the sumcheck's point is rejected (U~ is the verifier's). */
START_TEST(test_deepprove_padding)
{
    /* y: [rescale][flat sumcheck: fv rounds of 2, 2 values][unpadding: sv rounds of 2, U, c^, w^] */
    const unsigned fv = 8, sv = 2 + 7; /* 3 x 80 = 240 -> 8 variables; split 2 + 7 */
    bumped_rejected(EZ_STRATEGY_DEEPPROVE, "y", 16 * (2 * fv + 2) + 16 * 2 * sv, "op 'y' (einsum): the unpadding",
                    "U's value");
}
END_TEST

/* A changed claimed output, a proof relabelled with another strategy, an unknown one. */
START_TEST(test_output_and_label)
{
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
        ez_proof pf;
        ez_diag why = {{0}};
        prove_with(&fx, (ez_strategy)s, false, &pf, NULL);
        ez_stmt_tensor *out = &pf.stmt.t[pf.stmt.n - 1];
        out->v[out->n / 2] += 1;
        ck_assert_msg(!ez_pfx_verify(&fx, &pf, &why), "%s: changed output accepted", ez_strategy_name((ez_strategy)s));
        out->v[out->n / 2] -= 1;
        ck_assert_msg(ez_pfx_verify(&fx, &pf, &why), "%s: %s", ez_strategy_name((ez_strategy)s), why.msg);
        pf.strategy = (uint8_t)((s + 1) % EZ_STRATEGY_COUNT);
        ck_assert_msg(!ez_pfx_verify(&fx, &pf, &why), "%s proof relabelled accepted", ez_strategy_name((ez_strategy)s));
        pf.strategy = EZ_STRATEGY_COUNT;
        ez_pfx_expect_rejected(&fx, &pf, "unknown proving strategy");
        ez_proof_clear(&pf);
    }
    /* the default is the einsum strategy */
    ez_proof pf;
    ez_diag d = {{0}};
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_prove(&fx.plan, &fx.tr, fx.w, NULL, &pf, NULL, &d), EZ_OK);
    ck_assert_uint_eq(pf.strategy, EZ_STRATEGY_EINSUM);
    ez_proof_clear(&pf);
}
END_TEST

/* The einsum strategy reads no padding: on 12 heads of width 80 (16 x 128 slots) every
 * contraction touches at most 1.1 x its real elements (exactly them), while the padded
 * strategies read more. */
START_TEST(test_einsum_no_padding)
{
    ez_pfx f;
    attention_fx(&f, 12, "strategies_padding");
    ez_prove_stats S[EZ_STRATEGY_COUNT];
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
        ez_proof pf;
        prove_with(&f, (ez_strategy)s, false, &pf, &S[s]);
        ez_proof_clear(&pf);
    }
    for (size_t i = 0; i < f.plan.nops; i++) {
        if (f.plan.ops[i].kind != EZ_OP_EINSUM)
            continue;
        const ez_work *w = &S[EZ_STRATEGY_EINSUM].ops[i].work;
        ck_assert_uint_gt(w->real, 0);
        ck_assert_msg(w->touched * 10 <= w->real * 11, "op %s: %llu touched, %llu real", f.plan.ops[i].label,
                      (unsigned long long)w->touched, (unsigned long long)w->real);
    }
    /* the padded strategies read more in all (deepprove proves Q, K, V together at V) */
    uint64_t tot[EZ_STRATEGY_COUNT] = {0};
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++)
        for (size_t i = 0; i < f.plan.nops; i++)
            if (f.plan.ops[i].kind == EZ_OP_EINSUM)
                tot[s] += S[s].ops[i].work.touched;
    for (unsigned s = 1; s < EZ_STRATEGY_COUNT; s++)
        ck_assert_uint_gt(tot[s], tot[EZ_STRATEGY_EINSUM]);
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++)
        ez_prove_stats_clear(&S[s]);
    ez_pfx_free(&f);
}
END_TEST

/* DP-zeroifier, DP-unpad, DP-pad, DP-wunpad: DeepProve run over another public matrix —
 * the zeroifier's mask z + mu (1 - z), the unpadding U, the padding P, the weights'
 * unpadding — changed at two entries so that the sum and every round still hold
 * (prove_fixture.h ez_pfx_prove_forged): only the verifier's own value of that matrix at
 * the sumcheck's point tells, and each check names its matrix. */
START_TEST(test_deepprove_forged_matrices)
{
    char src[1024];
    ez_pfx f;
    ez_diag why = {{0}};
    ez_prove_opts o = {.strategy = EZ_STRATEGY_DEEPPROVE};
    attention_src(src, sizeof src, 5, 8, 3, 80, false);
    ez_pfx_compile(&f, src);
    ez_pfx_run(&f, "dp_forged", 8); /* 16 put y past its 12 bits at some seeds; 3 leaves too few nonzero entries to forge */
    /* the proof's strategy sumchecks in order: 0 y's flat projection, 1 y's unpadding
     * (U, c^, w^), 2 a's zeroifier (mask, a), 3 the padding of q, k, v (pairs: value, P),
     * 4 the QKV sumcheck, 5 the weights' unpadding (U, then wq, wk, wv) */
    static const struct {
        unsigned call, nfactors, factor;
        const char *why;
    } T[] = {{1, 3, 0, "the unpadding matrix value is wrong"},
             {2, 2, 0, "the zeroifier's mask value is wrong"},
             {3, 6, 1, "the padding matrix value is wrong"},
             {5, 4, 0, "the weights' unpadding matrix value is wrong"}};
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++) {
        ck_assert(!ez_pfx_prove_forged(&f, &o, T[k].call, T[k].nfactors, T[k].factor, &why));
        ck_assert_msg(strstr(why.msg, T[k].why) != NULL, "%s: %s", T[k].why, why.msg);
    }
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_strategies(void)
{
    const TTest *tests[] = {test_deepprove_forged_matrices, test_honest_and_described, test_deepprove_padding,
        test_einsum_no_padding};
    Suite *s = ez_test_suite("strategies", "core", 120, tests, sizeof tests / sizeof tests[0]);
    const TTest *attention[] = {test_changed_witness, test_changed_advice, test_perhead_messages,
        test_deepprove_messages, test_output_and_label};
    ez_tcase_add_fixture(s, "attention", 120, attention_setup, attention_teardown, attention,
                         sizeof attention / sizeof attention[0]);
    return s;
}

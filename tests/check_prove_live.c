/* The score rescale on the causal support (runtime/prove/live.h, docs/protocol-einsum.md
 * "On the causal support"): an einsum whose output only a causal softmax reads commits its
 * remainder and range-checks its output on the softmax's live support, and proves the
 * claim on its output restricted to that support. Honest proofs at the boundary widths
 * (S not a power of two, S = 1, one head, E not a power of two, masked entries inside the
 * support), and malicious provers: a wrong remainder or a wrong score on a live entry, a
 * changed masked entry inside the support, a changed message of the live step. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/einc.h"
#include "compiler/schedule.h"
#include "runtime/ops/rowaxis.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/live.h"
#include "runtime/prove/prove.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* attention with its scores at scale 12 and E = e (so / 8 is a shift of 12 + 3 when e =
 * 64; here mul and shift follow the source's / 4) */
static void live_src(char *buf, size_t cap, unsigned S, unsigned H, unsigned E)
{
    snprintf(buf, cap,
             "model live\n"
             "param S = %u, D = 16, H = %u, E = %u\n"
             "scale 12\n"
             "input x[S, D]\n"
             "weight wq[D, H, E], wk[D, H, E], wv[D, H, E]\n"
             "q[s, h, e] = x[s, d] * wq[d, h, e]\n"
             "k[t, h, e] = x[t, d] * wk[d, h, e]\n"
             "v[t, h, e] = x[t, d] * wv[d, h, e]\n"
             "a[h, s, t] = q[s, h, e] * k[t, h, e] / 4\n"
             "p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\n"
             "c[s, h, e] = p[h, s, t] * v[t, h, e]\n"
             "output c\n",
             S, H, E);
}

/* The scores' op (the einsum with the live mark) */
static size_t scores_op(const ez_plan *p)
{
    int a = ez_plan_find_tensor(p, "a");
    ck_assert_int_ge(a, 0);
    return (size_t)p->tensors[a].producer;
}

/* Compile at rows S < EZ_PLAN_LIVE_MIN_ROW, where the compiler leaves the scores
 * unmarked (asserted), then mark them as it does at longer rows (the plan's validation
 * accepts either) so that the restricted proof runs at the small widths. */
static void live_compile(ez_pfx *f, unsigned S, unsigned H, unsigned E, const char *seed)
{
    char src[1024];
    live_src(src, sizeof src, S, H, E);
    ez_pfx_compile(f, src);
    ez_plan *p = &f->plan;
    size_t op = scores_op(p);
    ck_assert_uint_lt(S, EZ_PLAN_LIVE_MIN_ROW);
    ck_assert_uint_eq(p->ops[op].sched.live, 0);
    p->ops[op].sched.live = ez_plan_live_eligible(p, op);
    ck_assert_uint_ne(p->ops[op].sched.live, 0);
    ez_diag d = {{0}};
    ck_assert_msg(ez_plan_compute_digest(p, &d) == EZ_OK, "%s", d.msg);
    ez_pfx_run(f, seed, 1 << 10);
}

/* The plan marks the scores, and only them; the layout puts their remainder on the
 * softmax's live support; a wrong mark is refused by the plan's validation, an absent one
 * is allowed (the whole cube). */
START_TEST(test_live_mark_and_layout)
{
    ez_pfx f;
    live_compile(&f, 12, 3, 8, "live_mark");
    const ez_plan *p = &f.plan;
    size_t op = scores_op(p), sm = ez_pfx_last_op(p, EZ_OP_SOFTMAX);
    ck_assert_uint_eq(p->ops[op].sched.live, sm + 1);
    for (size_t i = 0; i < p->nops; i++)
        if (i != op)
            ck_assert_uint_eq(p->ops[i].sched.live, 0);
    ez_advice_layout L;
    ez_diag d = {{0}};
    ck_assert_msg(ez_advice_layout_build(&L, p, &d) == EZ_OK, "%s", d.msg);
    long ls = ez_live_support_of(&L, p, op);
    ck_assert_int_ge(ls, 0);
    const ez_adv_value *r = &L.values[L.op_rem[op]];
    ck_assert_int_eq(L.polys[r->first_poly].support, ls);
    /* 3 heads x the triangle of 12 (78 live entries), in 4-entry diagonal blocks: fewer
     * than the 3 x 12 x 12 of the whole tensor, at least the live ones */
    uint64_t n = ez_advice_support_len(&L.supports[ls]);
    ck_assert_uint_lt(n, 3 * 12 * 12);
    ck_assert_uint_ge(n, 3 * 78);
    ez_advice_layout_clear(&L);
    ez_plan *q = &f.plan;
    q->ops[op].sched.live = (unsigned)op + 1; /* names the einsum itself */
    ck_assert_int_eq(ez_plan_validate(q, &d), EZ_ERR_FORMAT);
    q->ops[op].sched.live = 0;
    ck_assert_msg(ez_plan_validate(q, &d) == EZ_OK, "%s", d.msg);
    q->ops[op].sched.live = (unsigned)sm + 1;
    ez_pfx_free(&f);
    /* at rows of EZ_PLAN_LIVE_MIN_ROW the compiler sets the mark itself (compiled only) */
    char src[1024];
    ez_pfx g;
    live_src(src, sizeof src, EZ_PLAN_LIVE_MIN_ROW, 1, 4);
    ez_pfx_compile(&g, src);
    ck_assert_uint_eq(g.plan.ops[scores_op(&g.plan)].sched.live, ez_pfx_last_op(&g.plan, EZ_OP_SOFTMAX) + 1);
    ez_pfx_free(&g);
}
END_TEST

/* Honest proofs at the boundary widths; `einzk info`'s walk bytes are the proof's. */
START_TEST(test_live_honest_widths)
{
    const unsigned shapes[][3] = {{12, 3, 8}, {16, 2, 8}, {1, 3, 8}, {7, 1, 8}, {9, 2, 5}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        ez_pfx f;
        ez_diag why = {{0}};
        char seed[32];
        snprintf(seed, sizeof seed, "live_honest_%zu", k);
        live_compile(&f, shapes[k][0], shapes[k][1], shapes[k][2], seed);
        ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "S %u H %u E %u: %s", shapes[k][0], shapes[k][1],
                      shapes[k][2], why.msg);
        ez_pfx_free(&f);
    }
}
END_TEST

/* Masked entries inside the support (4-entry diagonal blocks at S = 7): honest proofs
 * under all three strategies. */
START_TEST(test_live_honest_blocks_strategies)
{
    ez_rowaxis_testing_causal_block(2);
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
        ez_pfx f;
        ez_diag why = {{0}};
        live_compile(&f, 7, 2, 8, "live_blocks");
        ez_prove_opts o = {.strategy = (ez_strategy)s};
        ez_proof pf;
        ez_proof_init(&pf);
        ck_assert_msg(ez_prove(&f.plan, &f.tr, f.w, &o, &pf, NULL, &why) == EZ_OK, "%s", why.msg);
        ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "strategy %u: %s", s, why.msg);
        ez_proof_clear(&pf);
        ez_pfx_free(&f);
    }
    ez_rowaxis_testing_causal_block(0);
}
END_TEST

typedef enum { NONE, REM_UP, SCORE_UP, SCORE_UP_REM_DOWN } edit_kind;

static void edit(const ez_plan *p, ez_trace *t, size_t op, uint64_t e, edit_kind k)
{
    unsigned a = p->ops[op].out, sh = p->ops[op].shift;
    if (k == NONE)
        return;
    if (k == REM_UP || k == SCORE_UP_REM_DOWN)
        t->ops[op].aux[EZ_AUX_REM][e] += k == REM_UP ? 1 : -(INT64_C(1) << sh);
    if (k == SCORE_UP || k == SCORE_UP_REM_DOWN)
        t->t[a][e] += 1;
    ez_diag d = {{0}};
    for (size_t j = op + 1; j < p->nops; j++)
        ck_assert_msg(ez_exec_op(p, j, t, &d) == EZ_OK, "%s", d.msg);
}

/* Prove with the committed witness from one run edited by kwit and the walk from another
 * edited by kwalk, at entry e of the scores (or its remainder), everything downstream
 * recomputed; the verdict. */
static bool split_edit2(ez_pfx *f, uint64_t e, edit_kind kwit, edit_kind kwalk, ez_diag *why)
{
    size_t op = scores_op(&f->plan);
    ez_trace tw, tk;
    ez_pfx_copy_trace(f, &tw);
    ez_pfx_copy_trace(f, &tk);
    edit(&f->plan, &tw, op, e, kwit);
    edit(&f->plan, &tk, op, e, kwalk);
    bool ok = ez_pfx_prove_split(f, &tw, &tk, why);
    ez_trace_clear(&tw);
    ez_trace_clear(&tk);
    return ok;
}

/* the same edit in the commitment and the walk (edit_wit) or in the walk only */
static bool split_edit(ez_pfx *f, uint64_t e, edit_kind k, bool edit_wit, ez_diag *why)
{
    return split_edit2(f, e, edit_wit ? k : NONE, k, why);
}

/* element (h, s, t) of a [H, S, S] tensor */
static uint64_t at(unsigned S, unsigned h, unsigned s, unsigned t)
{
    return ((uint64_t)h * S + s) * S + t;
}

/* A live entry (h, s, t) = (1, 5, 2): a wrong remainder (committed and walked: acc no
 * longer splits), a remainder the walk changes but the commitment does not, a wrong score
 * (committed and walked), and R - 2^k with a + 1 (the split holds, R out of range): each
 * rejected. A masked entry (1, 2, 5): changed inside a 4-entry diagonal block (committed
 * and range-checked there) rejected; changed outside the support it is no part of the
 * statement: with R - 2^k and a + 1 there (the accumulator kept) the proof stands. */
START_TEST(test_live_malicious)
{
    const unsigned S = 7, H = 2;
    ez_rowaxis_testing_causal_block(2);
    ez_pfx f;
    live_compile(&f, S, H, 8, "live_malicious");
    ez_diag why = {{0}};
    uint64_t live = at(S, 1, 5, 2);
    ck_assert_msg(!split_edit(&f, live, REM_UP, true, &why), "a wrong remainder on a live entry was accepted");
    ck_assert_msg(!split_edit(&f, live, REM_UP, false, &why), "a walked remainder off its commitment was accepted");
    ck_assert_msg(!split_edit(&f, live, SCORE_UP, true, &why), "a wrong score on a live entry was accepted");
    ck_assert_msg(!split_edit(&f, live, SCORE_UP_REM_DOWN, true, &why), "an out-of-range remainder was accepted");
    /* the walk's a + 1 and R - 2^k (acc kept), the commitment's a + 1 with the true, in-range
     * R: every range check holds; only the live step's remainder claim ties the walk's
     * rho to the committed R */
    ck_assert_msg(!split_edit2(&f, live, SCORE_UP, SCORE_UP_REM_DOWN, &why), "a remainder off its commitment was accepted");
    ck_assert_msg(strstr(why.msg, "advice opening") != NULL, "%s", why.msg);
    /* (1, 2, 3) is masked and inside its diagonal block [2, 4) x [2, 4); (1, 1, 6) is in
     * the dropped block [0, 2) x [4, 8) */
    ez_advice_layout L;
    ck_assert_msg(ez_advice_layout_build(&L, &f.plan, &why) == EZ_OK, "%s", why.msg);
    long ls = ez_live_support_of(&L, &f.plan, scores_op(&f.plan));
    ck_assert_int_ge(ls, 0);
    uint64_t *pos = ez_advice_support_pos(&L.supports[ls], UINT64_C(1) << L.supports[ls].nv);
    ck_assert_ptr_nonnull(pos);
    /* cube index of (h, s, t): h's 1 bit, s's 3, t's 3 */
    ck_assert(pos[(1u << 6) | (2u << 3) | 3u] != EZ_ADV_NOT_COMMITTED);
    ck_assert(pos[(1u << 6) | (1u << 3) | 6u] == EZ_ADV_NOT_COMMITTED);
    free(pos);
    ez_advice_layout_clear(&L);
    ck_assert_msg(!split_edit(&f, at(S, 1, 2, 3), SCORE_UP, false, &why),
                  "a changed masked entry inside the support was accepted");
    /* outside the support: a + 1 with R - 2^k (acc kept, R out of range) is never
     * committed, looked up or claimed */
    ck_assert_msg(split_edit(&f, at(S, 1, 1, 6), SCORE_UP_REM_DOWN, true, &why), "outside the support: %s",
                  why.msg);
    ez_pfx_free(&f);
    ez_rowaxis_testing_causal_block(0);
}
END_TEST

/* The live step's messages: rho, every round message of its sumcheck and its two final
 * values, each changed, rejected; its factors forged (the sum kept): the indicator
 * caught by the verifier's own evaluation, the accumulator by the contraction. */
START_TEST(test_live_messages)
{
    ez_pfx f;
    live_compile(&f, 12, 3, 8, "live_messages");
    ez_proof pf;
    ez_diag why = {{0}};
    ez_pfx_prove(&f, false, &pf);
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
    ck_assert_uint_gt(ez_pfx_flip_section(&f, &pf, EZ_PF_SEC_WALK, 3, 16), 20);
    ez_proof_clear(&pf);
    /* the op sumchecks the hook sees, in proving order: the softmax's two, then the live
     * step's (EZ_FORGE_TRACE=1 lists them) */
    ck_assert(!ez_pfx_prove_forged(&f, NULL, 2, 2, 0, &why));
    ck_assert_msg(strstr(why.msg, "indicator") != NULL, "%s", why.msg);
    ck_assert(!ez_pfx_prove_forged(&f, NULL, 2, 2, 1, &why));
    ck_assert_msg(strstr(why.msg, "contraction") != NULL, "%s", why.msg);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_prove_live(void)
{
    const TTest *tests[] = {test_live_mark_and_layout, test_live_honest_widths, test_live_honest_blocks_strategies,
        test_live_malicious, test_live_messages};
    return ez_test_suite("prove_live", "core", 120, tests, sizeof tests / sizeof tests[0]);
}

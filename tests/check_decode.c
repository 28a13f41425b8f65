/* Suite "decode": greedy generation with the KV cache (runtime/exec/decode.h) gives
 * exactly the tokens and values of running the plan on the whole sequence. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/decode.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* A two-layer char-LM shape: gather + positions, causal softmax attention with 2 heads,
 * a GELU MLP, residuals, a final norm, tied unembedding, argmax. */
static const char *lm_src =
    "model lm\nparam V = 23, S = 12, D = 16, H = 2, E = 8, F = 32, L = 2\ninput tok[S] : token\n"
    "weight wte[V, D], wpe[S, D], g1[L, D], wq[L, D, H, E], wk[L, D, H, E], wv[L, D, H, E], wo[L, H, E, D]\n"
    "weight g2[L, D], w1[L, D, F], w2[L, F, D]\n"
    "x[s, d] = wte[tok[s], d] + wpe[s, d]\n"
    "for l in 0..L {\n"
    "  n[s, d] = layernorm[d](x[s, d]) * g1[l, d]\n"
    "  q[s, h, e] = n[s, d] * wq[l, d, h, e]\n  k[t, h, e] = n[t, d] * wk[l, d, h, e]\n"
    "  v[t, h, e] = n[t, d] * wv[l, d, h, e]\n  a[h, s, t] = q[s, h, e] * k[t, h, e] / 4\n"
    "  p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\n  c[s, h, e] = p[h, s, t] * v[t, h, e]\n"
    "  x[s, d] = x[s, d] + c[s, h, e] * wo[l, h, e, d]\n"
    "  u[s, f] = gelu(rmsnorm[d](x[s, d]) * g2[l, d] * w1[l, d, f])\n"
    "  x[s, d] = x[s, d] + u[s, f] * w2[l, f, d]\n}\n"
    "y[s, w] = layernorm[d](x[s, d]) * wte[w, d]\nnext[s] = argmax[w](y[s, w])\noutput y, next\n";

START_TEST(test_decode_equals_full_run)
{
    ez_pfx f;
    ez_diag d = {{0}};
    ez_pfx_compile(&f, lm_src);
    ez_pfx_run(&f, "decode", 1 << 11); /* weights and a full run on random tokens */
    const ez_plan *p = &f.plan;
    int tok = ez_plan_find_tensor(p, "tok"), nx = -1, y = -1;
    for (size_t t = 0; t < p->ntensors; t++) {
        if (p->tensors[t].is_output && p->tensors[t].rank == 1)
            nx = (int)t;
        else if (p->tensors[t].is_output)
            y = (int)t;
    }
    ck_assert(tok >= 0 && nx >= 0 && y >= 0);
    const uint64_t S = p->tensors[tok].dims[0], V = (uint64_t)p->tensors[tok].token_limit;
    /* greedy generation from a 3-token prompt with the cache, in a trace holding only
     * the weights */
    ez_trace tr;
    ck_assert_int_eq(ez_trace_init(&tr, p, &d), EZ_OK);
    for (size_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            ck_assert_int_eq(ez_trace_set(&tr, t, f.tr.t[t], ez_plan_tensor_numel(&p->tensors[t]), &d), EZ_OK);
    ez_decoder g;
    ck_assert_msg(ez_decoder_init(&g, p, &tr, &d) == EZ_OK, "%s", d.msg);
    int64_t seq[64] = {3, 17, 5};
    size_t P = 3;
    for (size_t s = 0; s < S; s++) {
        int64_t next;
        ck_assert_msg(ez_decoder_step(&g, seq[s], &next, &d) == EZ_OK, "step %zu: %s", s, d.msg);
        ck_assert(next >= 0 && (uint64_t)next < V);
        if (s + 1 >= P && s + 1 < S)
            seq[s + 1] = next;
    }
    /* the same sequence through the whole plan */
    ck_assert_int_eq(ez_trace_set(&f.tr, (size_t)tok, seq, S, &d), EZ_OK);
    ck_assert_msg(ez_exec_run(p, &f.tr, &d) == EZ_OK, "%s", d.msg);
    for (uint64_t s = 0; s < S; s++)
        ck_assert_msg(f.tr.t[nx][s] == tr.t[nx][s], "position %llu: decoded %lld, full run %lld",
                      (unsigned long long)s, (long long)tr.t[nx][s], (long long)f.tr.t[nx][s]);
    /* and every logit, bit for bit */
    ck_assert(memcmp(f.tr.t[y], tr.t[y], ez_plan_tensor_numel(&p->tensors[y]) * sizeof(int64_t)) == 0);
    /* the context is full now */
    int64_t next;
    ck_assert_int_eq(ez_decoder_step(&g, 1, &next, &d), EZ_ERR_INPUT);
    ez_decoder_clear(&g);
    ez_trace_clear(&tr);
    ez_pfx_free(&f);
}
END_TEST

/* DE-fit: a prompt and generated text that do not fit the context are refused by the stop
 * rule's check itself, whatever the stop rule says (a context of 4: 5 prompt tokens; 3
 * prompt + 3 generated, one more than 4 + 1). */
START_TEST(test_generation_fits_context)
{
    int64_t toks[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ez_generation g = {.nprompt = 3, .ngen = 2, .eos = -1, .max_new = 2, .stop = EZ_STOP_MAX_NEW, .tokens = toks};
    ez_diag d = {{0}};
    ck_assert_msg(ez_generation_check_stop(&g, 4, &d) == EZ_OK, "%s", d.msg);
    g.nprompt = 5;
    g.ngen = 1;
    g.max_new = 1;
    ck_assert_int_eq(ez_generation_check_stop(&g, 4, &d), EZ_ERR_REJECT);
    ck_assert_str_eq(d.msg, "5 prompt and 1 generated tokens do not fit a context of 4");
    g.nprompt = 3;
    g.ngen = 3;
    g.max_new = 3;
    ck_assert_int_eq(ez_generation_check_stop(&g, 4, &d), EZ_ERR_REJECT);
    ck_assert_str_eq(d.msg, "3 prompt and 3 generated tokens do not fit a context of 4");
}
END_TEST

/* DE-eos-inside: an EOS among the generated tokens before the last one, under a stop rule
 * that holds otherwise (max-new reached, the last token not EOS): generation should have
 * stopped there. */
START_TEST(test_generation_stops_at_eos)
{
    int64_t toks[5] = {1, 2, 9, 4, 5};
    ez_generation g = {.nprompt = 2, .ngen = 3, .eos = 7, .max_new = 3, .stop = EZ_STOP_MAX_NEW, .tokens = toks};
    ez_diag d = {{0}};
    ck_assert_msg(ez_generation_check_stop(&g, 8, &d) == EZ_OK, "%s", d.msg);
    g.eos = 9;
    ck_assert_int_eq(ez_generation_check_stop(&g, 8, &d), EZ_ERR_REJECT);
    ck_assert_str_eq(d.msg, "generated token 0 is EOS (9), yet generation went on");
    g.eos = 4;
    ck_assert_int_eq(ez_generation_check_stop(&g, 8, &d), EZ_ERR_REJECT);
    ck_assert_str_eq(d.msg, "generated token 1 is EOS (4), yet generation went on");
}
END_TEST

Suite *ez_suite_decode(void)
{
    const TTest *tests[] = {test_generation_fits_context, test_generation_stops_at_eos, test_decode_equals_full_run};
    return ez_test_suite("decode", "core", 60, tests, sizeof tests / sizeof tests[0]);
}

/* Suite "causality": which models are certifiable (compiler/causality.h), and why not. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/causality.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

static ez_status analyze(const char *src, char *why, size_t cap)
{
    ez_pfx f;
    ez_positions ps;
    ez_diag d = {{0}};
    ez_pfx_compile(&f, src);
    ez_status st = ez_positions_analyze(&ps, &f.plan, &d);
    snprintf(why, cap, "%.500s", d.msg);
    ez_positions_clear(&ps);
    ez_plan_clear(&f.plan);
    return st;
}

#define LM_HEAD                                                                                                    \
    "model lm\nparam V = 16, S = 8, D = 8\ninput tok[S] : token\nweight wte[V, D], wpe[S, D], wq[D, D], wk[D, D]\n" \
    "x[s, d] = wte[tok[s], d] + wpe[s, d]\nq[s, e] = x[s, d] * wq[d, e]\nk[t, e] = x[t, d] * wk[d, e]\n"            \
    "a[s, t] = q[s, e] * k[t, e]\n"

START_TEST(test_certifiable)
{
    char why[512];
    ck_assert_msg(analyze(LM_HEAD "p[s, t] = softmax[t](causal[s, t](a[s, t]))\nc[s, e] = p[s, t] * x[t, e]\n"
                                  "y[s, w] = layernorm[e](c[s, e]) * wte[w, e]\nnext[s] = argmax[w](y[s, w])\n"
                                  "output y, next\n",
                          why, sizeof why) == EZ_OK,
                  "%s", why);
    /* a causal op in its own statement, then a plain softmax over the masked entries */
    ck_assert_msg(analyze(LM_HEAD "m[s, t] = causal[s, t](a[s, t])\nc[s, e] = m[s, t] * x[t, e]\n"
                                  "y[s, w] = c[s, e] * wte[w, e]\nnext[s] = argmax[w](y[s, w])\noutput next\n",
                          why, sizeof why) == EZ_OK,
                  "%s", why);
}
END_TEST

/* The bundled language models are certifiable; the encoder and attention layers are not. */
START_TEST(test_examples)
{
    const char *top = getenv("top_srcdir");
    const struct {
        const char *file;
        bool ok;
    } ex[] = {{"tinylm", true}, {"nanogpt", true}, {"vit_layer", false}, {"attention", false}};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char path[1024], why[512];
        snprintf(path, sizeof path, "%s/examples/%s.ein", top ? top : ".", ex[i].file);
        uint8_t *src = NULL;
        size_t len = 0;
        ez_diag d = {{0}};
        ck_assert_msg(ez_file_read(path, &src, &len, &d) == EZ_OK, "%s", d.msg);
        char *text = malloc(len + 1);
        memcpy(text, src, len);
        text[len] = 0;
        ez_status st = analyze(text, why, sizeof why);
        ck_assert_msg((st == EZ_OK) == ex[i].ok, "%s: %s", ex[i].file, why);
        free(text);
        free(src);
    }
}
END_TEST

START_TEST(test_not_certifiable)
{
    char why[512];
    const struct {
        const char *body, *reason;
    } cases[] = {
        {"p[s, t] = softmax[t](a[s, t])\nc[s, e] = p[s, t] * x[t, e]\ny[s, w] = c[s, e] * wte[w, e]\n"
         "next[s] = argmax[w](y[s, w])\noutput next\n",
         "bidirectional"},
        {"m[e] = x[s, e]\ny[s, w] = m[e] * wte[w, e] + x[s, e] * wte[w, e]\nnext[s] = argmax[w](y[s, w])\n"
         "output next\n",
         "sums over sequence positions"},
        {"c[s, e] = a[s, t] * x[t, e]\ny[s, w] = c[s, e] * wte[w, e]\nnext[s] = argmax[w](y[s, w])\noutput next\n",
         "not causally masked"},
        {"y[s, w] = x[s, e] * wte[w, e]\nn[w] = argmax[s](y[s, w])\noutput n\n", "reduces over sequence positions"},
        {"y[s, w] = x[s, e] * wte[w, e]\noutput y\n", "no output is an argmax"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[2048];
        snprintf(src, sizeof src, "%s%s", LM_HEAD, cases[i].body);
        ck_assert_int_eq(analyze(src, why, sizeof why), EZ_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(why, cases[i].reason) != NULL, "case %zu: %s", i, why);
    }
    /* a float input */
    ck_assert_int_eq(analyze("model a\nparam S = 4, D = 4\ninput x[S, D]\nweight w[D, D]\n"
                             "y[s, e] = x[s, d] * w[d, e]\nn[s] = argmax[e](y[s, e])\noutput n\n",
                             why, sizeof why),
                     EZ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(why, "not a token input") != NULL, "%s", why);
}
END_TEST

Suite *ez_suite_causality(void)
{
    const TTest *tests[] = {test_certifiable, test_not_certifiable, test_examples};
    return ez_test_suite("causality", "core", 0, tests, sizeof tests / sizeof tests[0]);
}

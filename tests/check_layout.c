/* Suite "layout": what `einzk info` says a proof holds (runtime/prove/layout.h) against
 * what the prover writes — per op, the walk bytes (fan-out merge + reduction) are equal,
 * and the committed advice is the layout's. Every provable op kind appears in one of the
 * models below; a new op adds a model here. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/prove/layout.h"
#include "runtime/prove/prove.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

static const char *const models[] = {
    /* einsum with every index class, add with broadcasting, a residual range check */
    "model m1\nparam S = 6, D = 12, H = 3, E = 5\nbits 20\ninput x[S, D]\nweight wq[D, H, E], wk[D, H, E], b[H, E]\n"
    "q[s, h, e] = x[s, d] * wq[d, h, e] + b[h, e]\nk[t, h, e] = x[t, d] * wk[d, h, e]\n"
    "a[h, s, t] = q[s, h, e] * k[t, h, e] / 4\nr[s] = x[s, d]\ny[s, d] = x[s, d] + r[s] + x[s, d]\noutput a, y\n",
    /* causal, softmax (masked and not), a fan-out merge, gather */
    "model m2\nparam V = 11, S = 5, D = 8\ninput tok[S] : token\nweight wte[V, D], w[D, D]\n"
    "x[s, d] = wte[tok[s], d]\nq[s, e] = x[s, d] * w[d, e]\na[s, t] = q[s, e] * x[t, e] / 8\n"
    "m[s, t] = causal[s, t](a[s, t])\np[s, t] = softmax[t](causal[s, t](a[s, t]))\n"
    "u[s, t] = softmax[t](a[s, t])\ny[s, e] = p[s, t] * x[t, e] + u[s, t] * q[t, e] + m[s, t] * x[t, e]\n"
    "output y\n",
    /* max and argmax: rows with interior padding (the padding rows' zero-check), a permuted
     * output, the reduced axis first, a layer slice, public and private argmax results, a
     * public one that also feeds einsums (a fan-out merge) */
    "model m3\nparam B = 2, S = 5, V = 13, L = 3, D = 4\ninput x[B, S, V], u[V, S], w[L, S, V]\nweight g[D]\n"
    "m[b, s] = max[v](x[b, s, v])\na[s, b] = argmax[v](x[b, s, v])\nk[s] = argmax[v](u[v, s])\n"
    "n[s] = max[v](w[1, s, v])\nh[b, s] = argmax[v](x[b, s, v])\nz[s, d] = k[s] * g[d] + n[s] * g[d]\n"
    "c[s, d] = k[s] * g[d]\ne[b, s, d] = h[b, s] * g[d]\noutput m, a, z, c, k, e\n",
    /* layernorm (fan-out, a layer slice), rmsnorm, rsqrt, sharing the model's rsqrt table */
    "model m3\nparam L = 2, S = 5, D = 12, E = 6\ninput x[L, S, D]\nweight g[D], w[D, E]\n"
    "n[s, d] = layernorm[d](x[1, s, d]) * g[d]\nh[s, e] = n[s, d] * w[d, e]\nm[s, e] = rmsnorm[e](h[s, e])\n"
    "r[s, e] = rsqrt(h[s, e])\nq[s, d] = layernorm[d](x[0, s, d]) + n[s, d]\ny[s, e] = m[s, e] + r[s, e]\n"
    "output y, q\n",
    /* norm and rsqrt whose one shift is <= 0 (no remainder): 8-bit input at scale 4, output 24 */
    "model m4\nparam S = 3, D = 12\nscale 24\nbits 32\ninput x[S, D] @scale(4) @bits(8)\n"
    "n[s, d] = layernorm[d](x[s, d])\nr[s, d] = rsqrt(x[s, d])\noutput n, r\n",
    /* elementwise functions: the sumcheck shape (24-bit input at scale 16: both tails, the
     * identity tail dividing), permuted, layer-sliced; the lookup-only shapes; relu; a
     * fan-out of x to all of them */
    "model m3\nparam L = 2, S = 5, D = 7\nscale 12\ninput x[S, D] @scale(16) @bits(24), v[L, S, D] @bits(16)\n"
    "g[s, d] = gelu(x[s, d])\nt[d, s] = tanh(x[s, d])\nr[s, d] = relu(x[s, d])\n"
    "e[s, d] = exp(v[1, s, d])\nq[d, s] = sigmoid(v[0, s, d])\nk[s, d] @bits(16) = silu(x[s, d] / 16)\n"
    "output g, t, r, e, q, k\n",
    /* SwiGLU with 16-bit activations: silu on a rescaled product (x itself is the lookup's
     * column), an elementwise einsum, the down projection */
    "model m4\nparam S = 6, D = 16, F = 24\nscale 12\nbits 16\ninput x[S, D]\nweight wg[D, F], wu[D, F], wd[F, D]\n"
    "h[s, f] = silu(x[s, d] * wg[d, f]) * (x[s, k] * wu[k, f])\ny[s, n] = h[s, f] * wd[f, n]\noutput y\n",
    /* RoPE: rotary queries and keys (permuted), attention */
    "model m5\nparam S = 6, D = 16, H = 2, E = 6\nscale 12\nbits 16\ninput x[S, D]\nweight wq[D, H, E], wk[D, E, H]\n"
    "q[h, e, s] = rope[s, e](x[s, d] * wq[d, h, e])\nk[t, h, e] = rope[t, e](x[t, d] * wk[d, e, h])\n"
    "a[h, s, t] = q[h, e, s] * k[t, h, e] / 4\noutput a\n",
};

START_TEST(test_info_bytes_are_the_provers)
{
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        ez_pfx f;
        ez_diag d = {{0}};
        ez_pfx_compile(&f, models[mi]);
        ez_pfx_run(&f, "layout_bytes", 1 << 10);
        ez_layout_sizes z;
        ck_assert_int_eq(ez_layout_sizes_compute(&z, &f.plan, &d), EZ_OK);
        ck_assert_msg(z.provable, "model %zu: not provable", mi);
        ez_proof pf;
        ez_prove_stats S;
        ez_proof_init(&pf);
        ck_assert_msg(ez_prove(&f.plan, &f.tr, f.w, NULL, &pf, &S, &d) == EZ_OK, "%s", d.msg);
        uint64_t walk = 0;
        for (size_t i = 0; i < f.plan.nops; i++) {
            uint64_t want = z.ops[i].merge_bytes + z.ops[i].walk_bytes;
            ck_assert_msg(S.ops[i].bytes == want, "model %zu op '%s' (%s): prove wrote %llu bytes, info says %llu", mi,
                          f.plan.ops[i].label, ez_op_kind_name(f.plan.ops[i].kind),
                          (unsigned long long)S.ops[i].bytes, (unsigned long long)want);
            walk += S.ops[i].bytes;
        }
        ck_assert_uint_eq(walk, pf.sec[EZ_PF_SEC_WALK].len);
        ck_assert_uint_eq(walk, z.walk_bytes);
        ez_prove_stats_clear(&S);
        ez_proof_clear(&pf);
        ez_layout_sizes_clear(&z);
        ez_pfx_free(&f);
    }
}
END_TEST

Suite *ez_suite_layout(void)
{
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_info_bytes_are_the_provers);
    suite_add_tcase(s, tc);
    return s;
}

/* Suite "layout": what `einzk info` says a proof holds (runtime/prove/layout.h) against
 * what the prover writes — per op, the walk bytes (fan-out merge + reduction) are equal,
 * and the committed advice is the layout's. Every provable op kind appears in one of the
 * models below; a new op adds a model here. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/field.h"
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

/* ---- sparse range widths (layout.c prune_ranges, docs/protocol.md §4) ------------------- */

/* h = x w rescaled by 2^12 to 24 bits: a 12-bit remainder and an 8-bit high part per
 * element, S x N of them. h is not an output (an output's width is checked on the
 * statement, with no high part committed): y = h + h is, and commits nothing. */
#define RESCALE_SRC(S, D, N)                                                                                 \
    "model proj\nparam S = " #S ", D = " #D ", N = " #N "\nscale 12\ninput x[S, D]\n"                        \
    "weight w[D, N]\nh[s, n] = x[s, d] * w[d, n]\ny[s, n] = h[s, n] + h[s, n]\noutput y\n"
static const char *const rescale_src = RESCALE_SRC(4, 24, 8);

/* The range table's regions of L, as a bit set of widths. */
static unsigned regions(const ez_advice_layout *L)
{
    unsigned set = 0;
    for (size_t t = 0; t < L->ntables; t++)
        if (L->tables[t].kind == EZ_LOOKUP_RANGES)
            for (unsigned k = 0; k < L->tables[t].nranges; k++)
                set |= 1u << L->tables[t].rbits[k];
    return set;
}

/* Few rows of a width: no region for it; each of its columns is looked up in the 16-bit
 * region, followed by its twin times 2^(16 - w). Enough rows (2^w or more): the region
 * stays and the columns are untouched. The weights' layout (the vk's range proof) too. */
START_TEST(test_sparse_widths_pruned)
{
    ez_plan p;
    ez_diag d = {{0}};
    ez_advice_layout L;
    ez_test_compile_plan(&p, rescale_src);
    ck_assert_int_eq(ez_advice_layout_build(&L, &p, &d), EZ_OK);
    ck_assert_uint_eq(regions(&L), 1u << 16); /* 32 remainders and 32 high parts: both pruned */
    size_t twins = 0;
    for (size_t j = 0; j < L.ncols; j++) {
        const ez_lookup_col *c = &L.cols[j];
        ck_assert_uint_eq(c->bits, 16);
        if (c->coef == 1)
            continue;
        /* a twin follows its column: the same atoms, every coefficient times 2^(16 - w) */
        ck_assert_uint_gt(j, 0);
        const ez_lookup_col *o = &L.cols[j - 1];
        ck_assert(o->coef == 1 && o->atom.is_tensor == c->atom.is_tensor && o->atom.id == c->atom.id);
        ck_assert(c->coef == ez_fe_pow(2, 4) || c->coef == ez_fe_pow(2, 8));
        ck_assert(c->cst == ez_fe_mul(o->cst, c->coef) && c->nx == 0 && o->nx == 0);
        twins++;
    }
    ck_assert_uint_eq(twins, 2);
    ez_advice_layout_clear(&L);
    ck_assert_int_eq(ez_advice_layout_build_weights(&L, &p, &d), EZ_OK);
    ck_assert_uint_eq(regions(&L), 1u << 16);
    ez_advice_layout_clear(&L);
    ez_plan_clear(&p);

    /* 4096 remainders: the 12-bit region pays for itself; 256 x 4096 high parts of 8 bits too */
    ez_test_compile_plan(&p, RESCALE_SRC(64, 8, 64));
    ck_assert_int_eq(ez_advice_layout_build(&L, &p, &d), EZ_OK);
    ck_assert_uint_eq(regions(&L), (1u << 16) | (1u << 12) | (1u << 8));
    for (size_t j = 0; j < L.ncols; j++)
        ck_assert(L.cols[j].coef == 1);
    ez_advice_layout_clear(&L);
    ez_plan_clear(&p);
}
END_TEST

/* R' = R + 2^12 (in [2^12, 2^13): inside the 16-bit region) with y' = y - 1, so that
 * acc = 2^12 y' + R' still holds: only the remainder's range check can catch it — with its
 * width's region pruned, only the twin (2^4 R' >= 2^16). Honest proofs verify; the same
 * tamper is caught where the region is kept. */
START_TEST(test_sparse_width_twin_rejects)
{
    const char *srcs[2] = {rescale_src, RESCALE_SRC(64, 8, 64)};
    for (int i = 0; i < 2; i++) {
        ez_pfx f;
        ez_diag why = {{0}};
        ez_pfx_compile(&f, srcs[i]);
        ez_pfx_run(&f, i ? "twin_kept" : "twin_pruned", 1 << 11);
        ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s", why.msg);
        size_t op = f.plan.nops - 2; /* h's; y = h + h follows */
        ck_assert_uint_eq(f.plan.ops[op].shift, 12);
        uint64_t n = 0;
        int64_t *rem = (int64_t *)ez_trace_aux(&f.tr, op, EZ_AUX_REM, &n);
        ck_assert_ptr_nonnull(rem);
        rem[n / 2] += INT64_C(1) << 12;
        f.tr.t[f.plan.ops[op].out][n / 2] -= 1;
        f.tr.t[f.plan.ops[op + 1].out][n / 2] -= 2;
        ez_pfx_expect_prove_rejected(&f, true, "lookups");
        ez_pfx_free(&f);
    }
}
END_TEST

/* ---- paired narrow widths (layout.c pair_ranges, protocol-kernel-logup.md §2a) --------- */

/* The range table of L and the rows its columns look up per width (after pruning). */
static const ez_lookup_table_desc *range_rows(const ez_advice_layout *L, uint64_t rows[17])
{
    const ez_lookup_table_desc *td = NULL;
    memset(rows, 0, 17 * sizeof *rows);
    for (size_t t = 0; t < L->ntables; t++)
        if (L->tables[t].kind == EZ_LOOKUP_RANGES)
            td = &L->tables[t];
    for (size_t j = 0; j < L->ncols; j++)
        if (td && &L->tables[L->cols[j].table] == td)
            rows[L->cols[j].bits] += L->cols[j].len;
    return td;
}

/* A width w <= 8 is paired iff its columns look up at least 6 * 2^(2w) rows; the
 * multiplicity poly then covers the pair regions too. h's 8-bit high parts (one per
 * element): 512 x 1024 of them are paired (524,288 >= 6 * 2^16 rows), 64 x 64 are not;
 * the layouts only (the LogUp with pairs is proven and attacked in check_logup). */
START_TEST(test_narrow_widths_paired)
{
    const char *srcs[2] = {RESCALE_SRC(512, 8, 1024), RESCALE_SRC(64, 8, 64)};
    for (int i = 0; i < 2; i++) {
        ez_plan p;
        ez_diag d = {{0}};
        ez_advice_layout L;
        ez_test_compile_plan(&p, srcs[i]);
        ck_assert_msg(ez_advice_layout_build(&L, &p, &d) == EZ_OK, "%s", d.msg);
        uint64_t rows[17];
        const ez_lookup_table_desc *td = range_rows(&L, rows);
        ck_assert_ptr_nonnull(td);
        uint64_t want_rows = 0;
        for (unsigned k = 0; k < td->nranges; k++) {
            unsigned w = td->rbits[k];
            bool paired = (td->pairs >> w) & 1;
            ck_assert_msg(paired == (w <= 8 && rows[w] >= (UINT64_C(6) << (2 * w))), "width %u, %llu rows", w,
                          (unsigned long long)rows[w]);
            want_rows += (UINT64_C(1) << w) + (paired ? UINT64_C(1) << (2 * w) : 0);
        }
        ck_assert_uint_eq(td->pairs, i == 0 ? 1u << 8 : 0u);
        ck_assert_uint_eq(ez_advice_table_rows(td), want_rows);
        ez_advice_layout_clear(&L);
        ez_plan_clear(&p);
    }
}
END_TEST

/* ---- function tables: one per (function, scales) per model (advice.c) ------------------- */

/* How many FUNC tables of L compute (fkind, func). */
static unsigned func_tables(const ez_advice_layout *L, ez_fn_table_kind fkind, ez_func func)
{
    unsigned n = 0;
    for (size_t t = 0; t < L->ntables; t++)
        n += L->tables[t].kind == EZ_LOOKUP_FUNC && L->tables[t].fkind == fkind && L->tables[t].func == func;
    return n;
}

/* Two gelu ops at scale 12 share one table, a gelu at scale 10 has its own; two softmax
 * ops at scale 12 share one exp table, distinct from the elementwise exp's. The model
 * proves with them (every op's lookups in the shared table's LogUp). */
START_TEST(test_func_tables_shared)
{
    const char *src = "model share\nparam S = 4, D = 8\nscale 12\ninput x[S, D]\ninput z[S, D] @scale(10)\n"
                      "a[s, d] = gelu(x[s, d])\nb[s, d] = gelu(a[s, d])\nc[s, d] = gelu(z[s, d])\n"
                      "e[s, d] = exp(x[s, d])\np[s, d] = softmax[d](a[s, d])\nq[s, d] = softmax[d](b[s, d])\n"
                      "output c, e, p, q\n";
    ez_pfx f;
    ez_diag d = {{0}}, why = {{0}};
    ez_advice_layout L;
    ez_pfx_compile(&f, src);
    ck_assert_msg(ez_advice_layout_build(&L, &f.plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_uint_eq(func_tables(&L, EZ_TABLE_FUNC, EZ_FN_GELU), 2);
    ck_assert_uint_eq(func_tables(&L, EZ_TABLE_SOFTMAX_EXP, EZ_FN_EXP), 1);
    ck_assert_uint_eq(func_tables(&L, EZ_TABLE_FUNC, EZ_FN_EXP), 1);
    ez_advice_layout_clear(&L);
    ez_pfx_run(&f, "func_tables_shared", 1 << 11);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s", why.msg);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_layout(void)
{
    const TTest *tests[] = {test_info_bytes_are_the_provers, test_sparse_widths_pruned, test_sparse_width_twin_rejects,
                            test_narrow_widths_paired, test_func_tables_shared};
    return ez_test_suite("layout", "core", 120, tests, sizeof tests / sizeof tests[0]);
}

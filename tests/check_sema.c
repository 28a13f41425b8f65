/* sema: names, params and -D, index ranges, the summation rules (including the
 * function-argument scoping of docs/language.md), broadcasting, axis arguments, scales and
 * rescale shifts, shadowing, loop unrolling, gather, and the splitting of longer
 * products — all on the checked program that the back end consumes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/sema.h"
#include "tests/testutil.h"

typedef struct {
    ez_diag_list d;
    ez_program *p;
    ez_status st;
} compiled;

static compiled compile_defs(const char *src, const ez_define *defs, size_t ndefs)
{
    compiled c;
    c.p = NULL;
    c.st = ez_compile_front("t.ein", src, strlen(src), defs, ndefs, &c.d, &c.p);
    return c;
}

static compiled compile_ok(const char *src)
{
    compiled c = compile_defs(src, NULL, 0);
    if (c.st != EZ_OK) {
        char *txt = NULL;
        ez_diag_render(&c.d, &txt);
        ck_abort_msg("compile failed (%d):\n%s", c.st, txt ? txt : "");
    }
    return c;
}

static void done(compiled *c)
{
    ez_program_free(c->p);
    ez_diag_list_clear(&c->d);
}

/* The dump of statement i's tree. */
static char *dump(const compiled *c, size_t i)
{
    ck_assert_uint_lt(i, c->p->nstmts);
    char *s = ez_node_dump(c->p, &c->p->stmts[i], c->p->stmts[i].root);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void expect_dump(const compiled *c, size_t i, const char *want)
{
    char *s = dump(c, i);
    ck_assert_str_eq(s, want);
    free(s);
}

/* Compile src expecting errors; the first message must equal msg. */
static void expect_error_defs(const char *src, const ez_define *defs, size_t ndefs, const char *msg)
{
    compiled c = compile_defs(src, defs, ndefs);
    ck_assert_int_eq(c.st, EZ_ERR_SOURCE);
    ck_assert_ptr_null(c.p);
    ck_assert_uint_ge(c.d.n, 1);
    ck_assert_str_eq(c.d.items[0].msg, msg);
    done(&c);
}

static void expect_error(const char *src, const char *msg)
{
    expect_error_defs(src, NULL, 0, msg);
}

/* c failed with exactly two errors, msg0 then msg1; c is done with. */
static void expect_two_errors(compiled *c, const char *msg0, const char *msg1)
{
    ck_assert_int_eq(c->st, EZ_ERR_SOURCE);
    ck_assert_uint_eq(c->d.nerrors, 2);
    ck_assert_str_eq(c->d.items[0].msg, msg0);
    ck_assert_str_eq(c->d.items[1].msg, msg1);
    done(c);
}

#define HDR "model t\nparam S = 8, D = 16, H = 2, E = 8\n"

START_TEST(test_attention)
{
    compiled c = compile_ok(HDR "input x[S, D]\nweight wq[D, H, E], wk[D, H, E]\n"
                                "q[s, h, e] = x[s, d] * wq[d, h, e]\n"
                                "k[t, h, e] = x[t, d] * wk[d, h, e]\n"
                                "a[h, s, t] = q[s, h, e] * k[t, h, e] / 8\n"
                                "p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\n"
                                "output p\n");
    const ez_program *p = c.p;
    ck_assert_str_eq(p->model, "t");
    ck_assert_uint_eq(p->nstmts, 4);
    ck_assert_uint_eq(p->ntensors, 7);
    expect_dump(&c, 0, "product[s,h,e|d](x[s,d], wq[d,h,e])>>12");
    /* the /8 folds into the rescale: 12 + 12 + 3 - 12 */
    expect_dump(&c, 2, "product[h,s,t|e](q[s,h,e], k[t,h,e])>>15");
    expect_dump(&c, 3, "softmax[h,s,t|t](causal[h,s,t|s,t](a[h,s,t]))");
    const ez_stmt *a = &p->stmts[2];
    ck_assert_uint_eq(a->nidx, 4);
    ck_assert_str_eq(a->idx[a->root->out[0]].name, "h");
    ck_assert_uint_eq(a->idx[a->root->out[0]].size, 2);
    ck_assert_uint_eq(a->idx[a->root->sum[0]].size, 8);
    const ez_tensor *pt = &p->tensors[p->outputs[0]];
    ck_assert_str_eq(pt->name, "p");
    ck_assert(pt->is_output);
    EZ_TEST_DIMS(pt->rank, pt->dims, 2, 8, 8);
    ck_assert_uint_eq(pt->scale, 12);
    ck_assert_int_eq(pt->def_stmt, 3);
    ck_assert_str_eq(p->stmts[2].text, "a[h, s, t] = q[s, h, e] * k[t, h, e] / 8");
    done(&c);
}
END_TEST

START_TEST(test_summation_rules)
{
    /* sum inside a function argument when the index occurs only there */
    compiled c = compile_ok(HDR "input x[S, D]\nweight w[D], b[S]\n"
                                "y[s] = relu(x[s, d] * w[d])\n"
                                /* d also outside the argument: kept inside, summed outside */
                                "z[s] = relu(x[s, d]) * w[d]\n"
                                /* a sum distributes: each term sums what it alone uses */
                                "u[s] = x[s, d] * w[d] + b[s]\n"
                                "v[s] = x[s, d] + b[s]\n"
                                /* transpose, and max removing its axis */
                                "t[d, s] = x[s, d]\n"
                                "m[s] = max[d](x[s, d])\n"
                                "output y, z, u, v, t, m\n");
    expect_dump(&c, 0, "relu[s](product[s|d](x[s,d], w[d])>>12)");
    expect_dump(&c, 1, "product[s|d](relu[s,d](x[s,d]), w[d])>>12");
    expect_dump(&c, 2, "add[s](product[s|d](x[s,d], w[d])>>12, b[s])");
    expect_dump(&c, 3, "add[s](product[s|d](x[s,d]), b[s])");
    expect_dump(&c, 4, "product[d,s|](x[s,d])");
    expect_dump(&c, 5, "max[s|d](x[s,d])");
    done(&c);
    /* SwiGLU with distinct names sums inside silu; an elementwise sum in an argument
     * may share its index with the outside */
    c = compile_ok(HDR "input x[S, D], b[S, D]\nweight wg[D, E], wu[D, E], w[D]\n"
                       "u[s, f] = silu(x[s, d] * wg[d, f]) * (x[s, k] * wu[k, f])\n"
                       "r[s] = relu(x[s, d] + b[s, d]) * w[d]\n"
                       "output u, r\n");
    expect_dump(&c, 0, "product[s,f|](silu[s,f](product[s,f|d](x[s,d], wg[d,f])>>12), "
                       "product~[s,f|k](x[s,k], wu[k,f])>>12)>>12");
    expect_dump(&c, 1, "product[s|d](relu[s,d](add[s,d](x[s,d], b[s,d])), w[d])>>12");
    done(&c);
}
END_TEST

START_TEST(test_broadcast_and_order)
{
    compiled c = compile_ok(HDR "input x[S, D]\nweight g[D], b[D]\n"
                                "y[s, d] = layernorm[d](x[s, d]) * g[d] + b[d]\n"
                                "p[d, s] = softmax[s](x[s, d])\n"
                                "output y, p\n");
    expect_dump(&c, 0, "add[s,d](product[s,d|](layernorm[s,d|d](x[s,d]), g[d])>>12, b[d])");
    /* a function at the root takes the left side's order */
    expect_dump(&c, 1, "softmax[d,s|s](x[s,d])");
    done(&c);
}
END_TEST

START_TEST(test_scales_and_constants)
{
    compiled c = compile_ok(HDR "input x[S] @scale(10), y[S]\n"
                                "a[s] = x[s] * y[s] * 0.5\n"   /* 10 + 12 + 1 - 12 = 11 */
                                "b[s] = x[s] * 3\n"            /* integer multiplier, exact */
                                "c[s] = y[s] / 3\n"            /* 16-bit multiplier at extra scale */
                                "d[s] = x[s] + y[s]\n"         /* coefficients align the scales */
                                "e[s] @scale(8) = y[s] - x[s]\n"
                                "f[s] = -y[s] * 4\n"
                                "output a, b, c, d, e, f\n");
    expect_dump(&c, 0, "product[s|](x[s], y[s])>>11");
    expect_dump(&c, 1, "product[s|](x[s])*12"); /* 3 * 2^(12 - 10) */
    /* 1/3 ~ 43691 / 2^17: mul has 16 significant bits */
    expect_dump(&c, 2, "product[s|](y[s])*43691>>17");
    expect_dump(&c, 3, "add[s](4*x[s], y[s])");
    expect_dump(&c, 4, "add[s](y[s], -4*x[s])>>4");
    expect_dump(&c, 5, "product[s|](y[s])*-4");
    ck_assert_uint_eq(c.p->tensors[c.p->stmts[4].def].scale, 8);
    ck_assert(c.p->stmts[4].root->range_checked);
    /* 4x + y reaches 5 * 2^23, beyond its 24 bits: a sum wider than its width is
     * range-checked to it (a residual stream's reset), so its bound is the width's */
    ck_assert(c.p->stmts[3].root->range_checked);
    ck_assert_uint_eq(mpz_get_ui(c.p->tensors[c.p->stmts[3].def].bound), 1u << 23);
    done(&c);
}
END_TEST

/* A residual stream is a sum without a rescale: its worst case would grow with every
 * layer (a 24-bit, 768-wide, 12-layer stack then overflowed its layernorm's sum of
 * squares at layer 10). A sum whose bound exceeds its width is range-checked to it, so
 * the bound resets to the width at every layer and the stack compiles. */
START_TEST(test_residual_stream_resets)
{
    compiled c = compile_ok("model deepnorm\nparam S = 8, D = 768, L = 12\ninput x[S, D]\nweight w[L, D, D]\n"
                            "for l in 0..L {\n  n[s, d] = layernorm[d](x[s, d])\n"
                            "  x[s, d] = x[s, d] + n[s, k] * w[l, k, d]\n}\noutput x\n");
    unsigned last = 0;
    for (size_t i = 0; i < c.p->nstmts; i++) {
        const ez_stmt *st = &c.p->stmts[i];
        if (strcmp(c.p->tensors[st->def].source_name, "x") != 0)
            continue;
        ck_assert(st->root->range_checked);
        ck_assert_uint_eq(mpz_sizeinbase(c.p->tensors[st->def].bound, 2), 24); /* 2^23 */
        last = st->def;
    }
    ck_assert_uint_eq(c.p->tensors[last].version, 12);
    done(&c);
}
END_TEST

START_TEST(test_shadowing_and_loops)
{
    compiled c = compile_ok("param S = 4, D = 8, L = 3\ninput x[S, D]\nweight w[L, D, D]\n"
                            "h[s, d] = x[s, d]\n"
                            "for l in 0..L {\n  h[s, n] = h[s, n] + h[s, d] * w[l, d, n]\n}\n"
                            "output h\n");
    const ez_program *p = c.p;
    ck_assert_uint_eq(p->nstmts, 4);
    ck_assert_str_eq(p->stmts[2].iter, "l=1");
    expect_dump(&c, 2, "add[s,n](h'1[s,n], product[s,n|d](h'1[s,d], w[1,d,n])>>12)");
    const ez_tensor *out = &p->tensors[p->outputs[0]];
    ck_assert_str_eq(out->name, "h'3");
    ck_assert_str_eq(out->source_name, "h");
    ck_assert_uint_eq(out->version, 3);
    ck_assert_int_eq(ez_program_find(p, "h"), (int)out->id);
    ck_assert_int_eq(ez_program_find(p, "h'1"), (int)p->stmts[1].def);
    ck_assert_str_eq(p->tensors[p->stmts[0].def].name, "h");
    done(&c);
}
END_TEST

START_TEST(test_params_and_defines)
{
    const char *src = "param S = 4, D = 2 * S, E = D / 2\ninput x[S, E]\ny[s, e] = relu(x[s, e])\noutput y\n";
    ez_define defs[] = {{"S", 10, "-D S=10"}};
    compiled c = compile_defs(src, defs, 1);
    ck_assert_int_eq(c.st, EZ_OK);
    ck_assert_uint_eq(c.p->nparams, 3);
    ck_assert(c.p->params[0].overridden);
    ck_assert_int_eq(c.p->params[1].value, 20);
    ck_assert_uint_eq(c.p->tensors[0].dims[1], 10);
    done(&c);
    ez_define bad[] = {{"X", 3, "-D X=3"}};
    expect_error_defs(src, bad, 1, "-D X=3: the model has no param 'X'");
    ez_define zero[] = {{"S", 0, "-D S=0"}};
    expect_error_defs(src, zero, 1, "param 'S' must be between 1 and 2^32, but -D S=0 sets it to 0");
    expect_error("param S = 5, E = S / 2\n", "a param value must be a whole number, but this is 2.5");
    expect_error("param S = 4\nparam S = 5\n", "param 'S' is defined twice");
    expect_error("param H = 2, E = E / H\ninput x[E]\ny[e] = x[e]\noutput y\n",
                 "param 'E' is defined in terms of itself");
}
END_TEST

START_TEST(test_gather)
{
    compiled c = compile_ok("param V = 50, S = 6, D = 8\ninput tok[S] : token\nweight wte[V, D], wpe[S, D]\n"
                            "x[s, d] = wte[tok[s], d] + wpe[s, d]\n"
                            "l[s, v] = x[s, d] * wte[v, d]\n"
                            "n[s] = argmax[v](l[s, v])\n"
                            "output n\n");
    expect_dump(&c, 0, "add[s,d](gather(wte[*,d], tok[s]), wpe[s,d])");
    const ez_node *g = c.p->stmts[0].root->in[0];
    ck_assert_int_eq(g->kind, EZ_NODE_GATHER);
    ck_assert_int_eq(g->in[0]->axes[0].kind, EZ_AXIS_GATHER);
    const ez_tensor *tok = &c.p->tensors[0];
    ck_assert_int_eq(tok->kind, EZ_TENSOR_TOKENS);
    ck_assert_int_eq(tok->token_limit, 50);
    const ez_node *am = c.p->stmts[2].root;
    ck_assert_int_eq(am->op, EZ_OP_ARGMAX);
    ck_assert_uint_eq(am->scale, 0);
    done(&c);
    expect_error("param V = 5, S = 6, D = 8\ninput tok[S] : token, x[S]\nweight wte[V, D]\n"
                 "y[s, d] = wte[tok[s], d] * x[s] * tok[s]\noutput y\n",
                 "'tok' is a token input (integer ids) and cannot be used as a number");
}
END_TEST

START_TEST(test_three_tensor_split)
{
    /* (a b) c costs 2*8*64 + 2*64*64; a (b c) costs 8*64*64 + 2*8*64: a b goes first */
    compiled c = compile_ok("param I = 2, J = 8, K = 64, L = 64\ninput a[I, J]\nweight b[J, K], cm[K, L]\n"
                            "y[i, l] = a[i, j] * b[j, k] * cm[k, l] / 2\noutput y\n");
    expect_dump(&c, 0, "product[i,l|k](product~[i,k|j](a[i,j], b[j,k])>>12, cm[k,l])>>13");
    done(&c);
    /* the other way round when the sizes are mirrored */
    c = compile_ok("param I = 64, J = 64, K = 8, L = 2\ninput a[I, J]\nweight b[J, K], cm[K, L]\n"
                   "y[i, l] = a[i, j] * b[j, k] * cm[k, l]\noutput y\n");
    expect_dump(&c, 0, "product[i,l|j](a[i,j], product~[j,l|k](b[j,k], cm[k,l])>>12)>>12");
    done(&c);
}
END_TEST

START_TEST(test_semantic_errors)
{
    expect_error(HDR "input x[S, D]\nweight w[E, D]\ny[s, n] = x[s, d] * w[d, n]\noutput y\n",
                 "index 'd' ranges over 8 here (axis 1 of 'w', size E = 8), but over 16 where it is first used");
    expect_error(HDR "input x[S, D]\np[s, d] = softmax[t](x[s, d])\noutput p\n",
                 "axis 't' of softmax is not an index of its operand");
    expect_error(HDR "input x[S, D]\ny[s, n] = x[s, d]\noutput y\n",
                 "index 'n' of the left side does not occur on the right side");
    expect_error(HDR "input x[S, D]\ny[s, d] = softmx[d](x[s, d])\noutput y\n", "unknown function 'softmx'");
    expect_error(HDR "input x[S, D]\ny[s, d] = relu(x[s, d])\noutput yy\n", "undefined output 'yy'");
    expect_error(HDR "input x[S, D]\ny[s, d] = x[s, d] / x[s, d]\noutput y\n",
                 "division by a tensor is not supported");
    expect_error(HDR "input x[S, D]\ny[s, d] = x[s, d] + 1\noutput y\n", "a constant cannot be added to a tensor");
    expect_error(HDR "input x[S, D]\nweight w[D, H, E]\ny[s, e] = x[s, d] * w[d, e]\noutput y\n",
                 "'w' has 3 axes but is used with 2 indices");
    expect_error(HDR "input x[S, D]\ny[s, d] = relu(x[s, d])\n", "the model has no output");
    expect_error(HDR "input x[S, D]\nfor l in 0..2 {\n weight w[D]\n}\noutput x\n",
                 "a weight cannot be declared inside a for loop");
    expect_error(HDR "input x[S, D]\ny[s, d] = q[s, d]\nq[s, d] = x[s, d]\noutput y\n",
                 "'q' is used before it is defined");
    expect_error(HDR "input a[S, S]\nm[s, t] = max[t](a[s, t])\noutput m\n",
                 "index 't' of the left side is reduced away on the right side");
    expect_error(HDR "input x[S, D]\ny[s] = x[s, S]\noutput y\n", "'S' is a param, not an index");
    expect_error(HDR "input x[S, D]\nweight w[2, D]\ny[s] = x[s, d] * w[2, d]\noutput y\n",
                 "position 2 is outside axis 1 of 'w' (size 2)");
    expect_error(HDR "input x[S, D]\nweight wg[D, E], wu[D, E]\n"
                     "u[s, f] = silu(x[s, d] * wg[d, f]) * (x[s, d] * wu[d, f])\noutput u\n",
                 "index 'd' is multiplied inside the argument of silu and also used outside it, so silu would "
                 "be applied before the sum over 'd'");
}
END_TEST

START_TEST(test_error_recovery)
{
    /* several independent errors in one run; a failed definition does not cascade */
    compiled c = compile_defs(HDR "input x[S, D]\n"
                                  "a[s, d] = zz[s, d]\n"
                                  "b[s, d] = a[s, d] * 2\n"
                                  "c[s, d] = gelu[d](x[s, d])\n"
                                  "output a, b, c\n",
                              NULL, 0);
    expect_two_errors(&c, "undefined tensor 'zz'", "gelu is elementwise and takes no axis");
}
END_TEST

START_TEST(test_examples)
{
    /* every shipped example checks (top_srcdir is set by make check) */
    static const char *const names[] = {"attention", "gqa", "mlp", "block", "tinylm", "attention80"};
    const char *top = getenv("top_srcdir");
    char path[4096];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/examples/%s.ein", top ? top : ".", names[i]);
        uint8_t *buf = NULL;
        size_t len = 0;
        ez_diag fd;
        if (ez_file_read(path, &buf, &len, &fd) != EZ_OK)
            continue; /* not run from a tree that has the examples */
        compiled c;
        c.p = NULL;
        c.st = ez_compile_front(path, (const char *)buf, len, NULL, 0, &c.d, &c.p);
        ck_assert_msg(c.st == EZ_OK, "%s does not check", path);
        if (strcmp(names[i], "tinylm") == 0)
            ck_assert_uint_eq(c.p->nstmts, 1 + 2 * 11 + 3);
        done(&c);
        free(buf);
    }
}
END_TEST

/* --scale / --bits (ez_front_opts) replace the source's defaults, not @scale/@bits; out of
 * range they are errors without a position. */
START_TEST(test_default_overrides)
{
    const char *src = "model m\nscale 8\nbits 20\ninput x[4]\ninput z[4] @scale(6)\n"
                      "y[i] = x[i] + z[i]\noutput y\n";
    ez_front_opts o = {NULL, 0, 10, 30};
    compiled c;
    c.p = NULL;
    c.st = ez_compile_front_opts("t.ein", src, strlen(src), &o, &c.d, &c.p);
    ck_assert_int_eq(c.st, EZ_OK);
    ck_assert_uint_eq(c.p->default_scale, 10);
    ck_assert_uint_eq(c.p->default_bits, 30);
    int x = ez_program_find(c.p, "x"), z = ez_program_find(c.p, "z"), y = ez_program_find(c.p, "y");
    ck_assert_uint_eq(c.p->tensors[x].scale, 10);
    ck_assert_uint_eq(c.p->tensors[x].bits, 30);
    ck_assert_uint_eq(c.p->tensors[z].scale, 6);
    ck_assert_uint_eq(c.p->tensors[y].scale, 10);
    done(&c);
    /* without overrides: the source's */
    c = compile_ok(src);
    ck_assert_uint_eq(c.p->default_scale, 8);
    ck_assert_uint_eq(c.p->tensors[ez_program_find(c.p, "x")].bits, 20);
    done(&c);
    o.scale = 61;
    o.bits = 1;
    c.st = ez_compile_front_opts("t.ein", src, strlen(src), &o, &c.d, &c.p);
    expect_two_errors(&c, "--scale 61 is out of range", "--bits 1 is out of range");
}
END_TEST

Suite *ez_suite_sema(void)
{
    const TTest *tests[] = {test_attention, test_summation_rules, test_broadcast_and_order, test_scales_and_constants,
        test_residual_stream_resets, test_shadowing_and_loops, test_params_and_defines, test_gather,
        test_three_tensor_split, test_semantic_errors, test_error_recovery, test_examples, test_default_overrides};
    return ez_test_suite("sema", "core", 0, tests, sizeof tests / sizeof tests[0]);
}

/* plan: index classes and EqSchedules (docs/plan.md index-class table), lookups/advice recipes,
 * validation, and the cheapest pairwise order of a 3+-factor product (compiler/lower). */
#include <string.h>

#include "compiler/diag.h"
#include "compiler/lower.h"
#include "compiler/plan.h"
#include "compiler/schedule.h"
#include "tests/plan_fixture.h"
#include "tests/testutil.h"

typedef struct {
    const char *eq;
    const char *sizes;
    const char *classes; /* "h:batch e:contracted ..." */
    const char *bind;    /* "h e" */
    unsigned nvars, eq_vars, degree;
} sched_case;

static const sched_case cases[] = {
    /* multi-head attention scores, 12 heads of width 80: ONE sumcheck over (h, e) */
    {"a[h,s,t] = q[s,h,e] * k[t,h,e]", "h=12 s=16 t=16 e=80",
     "h:batch s:free-A t:free-B e:contracted", "h e", 4 + 7, 4, 3},
    /* grouped-query attention: g batch, r rides along in A */
    {"a[g,r,s,t] = q[s,g,r,e] * k[t,g,e]", "g=4 r=3 s=8 t=8 e=64",
     "g:batch r:free-A s:free-A t:free-B e:contracted", "g e", 2 + 6, 2, 3},
    /* output projection: concat + projection, h and e contracted together */
    {"y[s,n] = c[s,h,e] * wo[h,e,n]", "s=8 h=12 e=80 n=96",
     "s:free-A h:contracted e:contracted n:free-B", "h e", 4 + 7, 0, 2},
    /* plain matmul */
    {"y[s,n] = x[s,d] * w[d,n]", "s=5 d=768 n=64", "s:free-A d:contracted n:free-B", "d", 10, 0, 2},
    /* elementwise product: all batch */
    {"z[i,j] = x[i,j] * y[i,j]", "i=3 j=5", "i:batch j:batch", "i j", 2 + 3, 5, 3},
    /* summed on one side only */
    {"y[i] = x[i,j] * w[i,k]", "i=8 j=6 k=9", "i:batch j:summed-A k:summed-B", "i", 3, 3, 3},
    /* outer product: no sumcheck at all */
    {"z[i,j] = a[i] * b[j]", "i=7 j=9", "i:free-A j:free-B", "", 0, 0, 0},
    /* broadcast output index */
    {"z[i,j] = a[i] * b[i]", "i=4 j=6", "i:batch j:broadcast", "i", 2, 2, 3},
    /* one operand: a reduction is a claim map */
    {"y[i] = x[i,j]", "i=4 j=6", "i:free-A j:summed-A", "", 0, 0, 0},
    /* bind order follows operand A's layout, not B's or the output's */
    {"z[b] = x[k,b] * y[b,k]", "k=32 b=4", "k:contracted b:batch", "k b", 5 + 2, 2, 3},
    /* size-1 index contributes no variable */
    {"y[s,n] = x[s,u,d] * w[u,d,n]", "s=2 u=1 d=16 n=3", "s:free-A u:contracted d:contracted n:free-B", "u d",
     4, 0, 2},
};

static void check_case(const sched_case *c)
{
    ez_plan p;
    ez_diag d = {{0}};
    ez_fx_plan(&p, "t");
    unsigned i = ez_fx_op(&p, EZ_OP_EINSUM, c->eq, c->sizes);
    ez_status st = ez_plan_schedule(&p, &d);
    ck_assert_msg(st == EZ_OK, "%s: %s", c->eq, d.msg);
    const ez_plan_op *op = &p.ops[i];
    ck_assert_msg(op->sched.nvars == c->nvars, "%s: nvars %u", c->eq, op->sched.nvars);
    ck_assert_msg(op->sched.eq_vars == c->eq_vars, "%s: eq_vars %u", c->eq, op->sched.eq_vars);
    ck_assert_msg(op->sched.degree == c->degree, "%s: degree %u", c->eq, op->sched.degree);
    /* classes */
    char buf[256];
    const char *s = c->classes;
    unsigned seen = 0;
    while (*s) {
        int n = 0;
        while (*s == ' ')
            s++;
        while (*s && *s != ' ')
            buf[n++] = *s++;
        buf[n] = 0;
        char *colon = strchr(buf, ':');
        ck_assert_ptr_nonnull(colon);
        *colon = 0;
        unsigned x = ez_fx_idx(op, buf);
        ck_assert_msg(x < op->nidx, "%s: no index %s", c->eq, buf);
        ck_assert_msg(!strcmp(ez_idx_class_name(op->sched.cls[x]), colon + 1), "%s: %s is %s, want %s", c->eq, buf,
                      ez_idx_class_name(op->sched.cls[x]), colon + 1);
        seen++;
    }
    ck_assert_uint_eq(seen, op->nidx);
    /* bind order */
    buf[0] = 0;
    for (unsigned b = 0; b < op->sched.nbind; b++) {
        if (b)
            strcat(buf, " ");
        strcat(buf, op->idx_name[op->sched.bind_order[b]]);
    }
    ck_assert_msg(!strcmp(buf, c->bind), "%s: bind order '%s', want '%s'", c->eq, buf, c->bind);
    ck_assert_int_eq(ez_plan_validate(&p, &d), EZ_OK);
    ez_plan_clear(&p);
}

/* The "schedule" case's checked fixture: an empty plan the test adds its ops to, and a
 * diagnostic; the plan is cleared after each test. */
static struct {
    ez_plan p;
    ez_diag d;
} fx;

static void plan_setup(void)
{
    ez_fx_plan(&fx.p, "t");
}

static void plan_teardown(void)
{
    ez_plan_clear(&fx.p);
}

START_TEST(test_einsum_classes)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
}
END_TEST

/* The acceptance example, spelled out: 12 heads x 80 -> 11 variables, degree 3, eq over
 * the 4 head variables, bound h then e (q's layout [s, h, e]). */
START_TEST(test_attention_12x80)
{
    ez_plan *p = &fx.p;
    ez_diag *d = &fx.d;
    unsigned i = ez_fx_op(p, EZ_OP_EINSUM, "a[h,s,t] = q[s,h,e] * k[t,h,e]", "h=12 s=64 t=64 e=80");
    p->ops[i].shift = 12; /* fused rescale */
    ck_assert_int_eq(ez_plan_schedule(p, d), EZ_OK);
    const ez_plan_op *op = &p->ops[i];
    ck_assert_uint_eq(op->sched.nvars, 11);
    ck_assert_uint_eq(op->sched.degree, 3);
    ck_assert_uint_eq(op->sched.eq_vars, 4);
    ck_assert_uint_eq(op->sched.nbind, 2);
    ck_assert_str_eq(op->idx_name[op->sched.bind_order[0]], "h");
    ck_assert_str_eq(op->idx_name[op->sched.bind_order[1]], "e");
}
END_TEST

START_TEST(test_softmax_and_friends)
{
    ez_plan *p = &fx.p;
    ez_diag *d = &fx.d;
    const char *sz = "h=2 s=8 t=8 n=4";
    unsigned a = ez_fx_op(p, EZ_OP_EINSUM, "a[h,s,t] = q[s,h,n] * k[t,h,n]", sz);
    p->ops[a].shift = 12;
    unsigned sm = ez_fx_masked_softmax(p, "p[h,s,t] = a[h,s,t]", sz);
    ez_plan_op *op = &p->ops[sm];
    op->out_scale = 16;
    p->tensors[op->out].scale = 16;
    unsigned mx = ez_fx_op(p, EZ_OP_MAX, "m[h,s] = p[h,s,t]", sz);
    p->tensors[p->ops[mx].out].scale = p->ops[mx].out_scale = 16; /* max keeps its operand's scale */
    p->ops[mx].axis = ez_fx_idx(&p->ops[mx], "t");
    unsigned cz = ez_fx_op(p, EZ_OP_CAUSAL, "c[h,s,t] = a[h,s,t]", sz);
    p->ops[cz].mask_row = ez_fx_idx(&p->ops[cz], "s");
    p->ops[cz].mask_col = ez_fx_idx(&p->ops[cz], "t");
    unsigned ge = ez_fx_op(p, EZ_OP_FUNC, "g[h,s,t] = a[h,s,t]", sz);
    p->ops[ge].func = EZ_FN_GELU;
    ck_assert_msg(ez_plan_schedule(p, d) == EZ_OK, "%s", d->msg);

    op = &p->ops[sm];
    /* softmax: all 7 variables carry eq, degree 4 (the clamp's is-zero gadget d * d * w) */
    ck_assert_uint_eq(op->sched.nvars, 1 + 3 + 3);
    ck_assert_uint_eq(op->sched.eq_vars, 7);
    ck_assert_uint_eq(op->sched.degree, 4);

    op = &p->ops[mx];
    /* max: eq * (S * A1 + beta Z * L2), degree 3 (docs/protocol-argmax.md §3.2) */
    ck_assert_uint_eq(op->sched.degree, 3);
    ck_assert_uint_eq(op->sched.nvars, 7);
    op = &p->ops[cz];
    ck_assert_uint_eq(op->sched.degree, 3);
    ck_assert_uint_eq(op->sched.eq_vars, 7);
    op = &p->ops[ge];
    /* table function: no sumcheck */
    ck_assert_uint_eq(op->sched.nvars, 0);
    ck_assert_uint_eq(op->sched.degree, 0);
}
END_TEST

START_TEST(test_validate_rejects)
{
    ez_plan *p = &fx.p;
    ez_diag *d = &fx.d;
    ez_fx_op(p, EZ_OP_EINSUM, "y[s,n] = x[s,d] * w[d,n]", "s=4 d=8 n=2");
    ez_fx_op(p, EZ_OP_EINSUM, "z[s] = y[s,n]", "s=4 n=2");
    ck_assert_int_eq(ez_plan_schedule(p, d), EZ_OK);
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_OK);

    ez_plan_op save = p->ops[1];
    p->ops[1].in_axes[0][1] = 7; /* index id out of range */
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_ERR_FORMAT);
    p->ops[1] = save;
    p->ops[0].idx_size[0] = 5; /* size differs from the axis */
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_ERR_FORMAT);
    p->ops[0].idx_size[0] = 4;
    /* consumer before producer */
    ez_plan_op t = p->ops[0];
    p->ops[0] = p->ops[1];
    p->ops[1] = t;
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_ERR_FORMAT);
    t = p->ops[0];
    p->ops[0] = p->ops[1];
    p->ops[1] = t;
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_OK);
    p->ops[0].sched.eq_vars = 1; /* schedule inconsistent with the equation */
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_ERR_FORMAT);
    p->ops[0].sched.eq_vars = 0;
    strcpy(p->tensors[1].name, "y"); /* duplicate name (tensor 1 is x) */
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d->msg, "'y'"));
}
END_TEST

/* The rules an op's built-in row adds to plan validation (compiler/builtins.c: `rescales`,
 * `check`): each broken in a compiled plan is refused with its own message. */
START_TEST(test_validate_row_rules)
{
    ez_plan p;
    ez_diag d = {{0}};
    ez_test_compile_plan(&p, "model v\nparam S = 4, E = 8\nscale 12\ninput q[S, E] @bits(20)\n"
                             "r[s, e] @scale(14) = rope[s, e](q[s, e])\n"
                             "a[s, t] = r[s, e] * r[t, e] / 64\n"
                             "y[s, t] = relu(softmax[t](causal[s, t](a[s, t])))\noutput y\n");
    ck_assert_msg(ez_plan_validate(&p, &d) == EZ_OK, "%s", d.msg);
    size_t rope = SIZE_MAX, smx = SIZE_MAX, relu = SIZE_MAX;
    for (size_t i = 0; i < p.nops; i++) {
        if (p.ops[i].kind == EZ_OP_ROPE)
            rope = i;
        if (p.ops[i].kind == EZ_OP_SOFTMAX)
            smx = i;
        if (p.ops[i].kind == EZ_OP_RELU)
            relu = i;
    }
    ck_assert(rope != SIZE_MAX && smx != SIZE_MAX && relu != SIZE_MAX);
    ck_assert(p.ops[smx].masked);
    p.ops[rope].shift += 1; /* not in + 16 - out */
    ck_assert_int_eq(ez_plan_validate(&p, &d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d.msg, "(rope): an odd rotary extent"));
    p.ops[rope].shift -= 1;
    unsigned col = p.ops[smx].mask_col;
    p.ops[smx].mask_col = p.ops[smx].mask_row, p.ops[smx].mask_row = col; /* the mask transposed */
    ck_assert_int_eq(ez_plan_validate(&p, &d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d.msg, "a masked softmax must reduce over the mask column"));
    p.ops[smx].mask_row = p.ops[smx].mask_col, p.ops[smx].mask_col = col;
    p.ops[relu].shift = 1; /* relu has no rescale */
    ck_assert_int_eq(ez_plan_validate(&p, &d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d.msg, "only a contraction or a sum has a rescale"));
    p.ops[relu].shift = 0;
    ck_assert_msg(ez_plan_validate(&p, &d) == EZ_OK, "%s", d.msg);
    ez_plan_clear(&p);
}
END_TEST

/* Fixed axes (layer slices) take no index and no sumcheck variable. */
START_TEST(test_fixed_axis)
{
    ez_plan *p = &fx.p;
    ez_diag *d = &fx.d;
    unsigned i = ez_fx_op(p, EZ_OP_EINSUM, "y[s,n] = x[s,d] * wq[l,d,n]", "s=4 d=8 n=2 l=3");
    ez_plan_op *op = &p->ops[i];
    unsigned l = ez_fx_idx(op, "l");
    ck_assert_uint_eq(l, op->nidx - 1);
    /* turn axis 0 of the weight into a fixed position and drop index l */
    op->in_fixed[1] = 1;
    op->in_pos[1][0] = 2;
    op->in_axes[1][0] = 0;
    op->nidx--;
    ck_assert_msg(ez_plan_schedule(p, d) == EZ_OK, "%s", d->msg);
    ck_assert_uint_eq(op->sched.nvars, 3);
    ck_assert_uint_eq(op->sched.degree, 2);
    op->in_pos[1][0] = 3; /* outside the layer axis */
    ck_assert_int_eq(ez_plan_validate(p, d), EZ_ERR_FORMAT);
}
END_TEST

/* The classic chain a[i,j] b[j,k] c[k,l], i=10 j=100 k=5 l=50: (ab)c costs
 * 10*100*5 + 10*5*50 = 7500, a(bc) 100*5*50 + 10*100*50 = 75000, (ac)b 250000. */
START_TEST(test_split_order)
{
    enum { I, J, K, L };
    uint64_t size[4] = {10, 100, 5, 50};
    uint32_t f[3] = {1u << I | 1u << J, 1u << J | 1u << K, 1u << K | 1u << L};
    ez_contraction_order o;
    ck_assert_int_eq(ez_lower_contraction_order(&o, f, 3, 1u << I | 1u << L, size, 4), EZ_OK);
    ck_assert_uint_eq(o.nsteps, 2);
    ck_assert_uint_eq(o.cost, 7500);
    ck_assert_uint_eq(o.step[0][0], 0);
    ck_assert_uint_eq(o.step[0][1], 1);
    ck_assert_uint_eq(o.keep[0], 1u << I | 1u << K);
    ck_assert_uint_eq(o.step[1][0], 3);
    ck_assert_uint_eq(o.step[1][1], 2);
    ck_assert_uint_eq(o.keep[1], 1u << I | 1u << L);

    /* make the other end cheap: i=100 l=10 -> a(bc) first */
    size[0] = 100;
    size[3] = 10;
    size[1] = 5;
    size[2] = 100;
    ck_assert_int_eq(ez_lower_contraction_order(&o, f, 3, 1u << I | 1u << L, size, 4), EZ_OK);
    /* (ab)c: 100*5*100 + 100*100*10 = 150000; a(bc): 5*100*10 + 100*5*10 = 10000 */
    ck_assert_uint_eq(o.cost, 10000);
    ck_assert_uint_eq(o.step[0][0], 1);
    ck_assert_uint_eq(o.step[0][1], 2);

    /* a bushy tree beats any left-deep one: (ab)(cd) for a 4-chain with a big middle */
    uint64_t s5[5] = {2, 1000, 2, 1000, 2};
    uint32_t g[4] = {1u << 0 | 1u << 1, 1u << 1 | 1u << 2, 1u << 2 | 1u << 3, 1u << 3 | 1u << 4};
    ck_assert_int_eq(ez_lower_contraction_order(&o, g, 4, 1u << 0 | 1u << 4, s5, 5), EZ_OK);
    /* ab: 2*1000*2=4000, cd: 4000, then (ab)(cd): 2*2*2 = 8 */
    ck_assert_uint_eq(o.cost, 8008);
    ck_assert_uint_eq(o.nsteps, 3);
}
END_TEST

/* Beyond the exact limit the greedy order still yields a valid tree. */
START_TEST(test_split_greedy)
{
    enum { N = 12 };
    uint64_t size[N + 1];
    uint32_t f[N];
    for (unsigned i = 0; i <= N; i++)
        size[i] = 2 + i % 3;
    for (unsigned i = 0; i < N; i++)
        f[i] = 1u << i | 1u << (i + 1); /* a chain */
    ez_contraction_order o;
    ck_assert_int_eq(ez_lower_contraction_order(&o, f, N, 1u << 0 | 1u << N, size, N + 1), EZ_OK);
    ck_assert_uint_eq(o.nsteps, N - 1);
    bool used[2 * N] = {0};
    for (unsigned k = 0; k < o.nsteps; k++)
        for (int j = 0; j < 2; j++) {
            unsigned s = o.step[k][j];
            ck_assert_uint_lt(s, N + k); /* only factors and earlier results */
            ck_assert(!used[s]);
            used[s] = true;
        }
    ck_assert_uint_eq(o.keep[N - 2], 1u << 0 | 1u << N);
    ck_assert_int_eq(ez_lower_contraction_order(&o, f, 1, 0, size, N + 1), EZ_ERR_INVALID);
}
END_TEST

/* Through the front end: source -> checked program -> plan. */
static ez_program *front(const char *src)
{
    ez_diag_list diags;
    ez_program *prog = NULL;
    ez_status st = ez_compile_front("t.ein", src, strlen(src), NULL, 0, &diags, &prog);
    char *text = NULL;
    if (st != EZ_OK)
        ez_diag_render(&diags, &text);
    ck_assert_msg(st == EZ_OK, "front end: %s", text ? text : "?");
    ez_diag_list_clear(&diags);
    return prog;
}

static const char chain_src[] = "model chain\n"
                                "param I = 10, J = 100, K = 5, L = 50\n"
                                "input a[I, J]\n"
                                "weight b[J, K], c[K, L]\n"
                                "y[i, l] = a[i, j] * b[j, k] * c[k, l]\n"
                                "output y\n";

static void check_chain_plan(const ez_plan *p)
{
    /* (ab)c: the first op contracts a with b over j, the second the result with c */
    ck_assert_uint_eq(p->nops, 2);
    int a = ez_plan_find_tensor(p, "a"), b = ez_plan_find_tensor(p, "b"), c = ez_plan_find_tensor(p, "c");
    const ez_plan_op *o0 = &p->ops[0], *o1 = &p->ops[1];
    ck_assert_uint_eq(o0->nin, 2);
    ck_assert((o0->in[0] == (unsigned)a && o0->in[1] == (unsigned)b) ||
              (o0->in[0] == (unsigned)b && o0->in[1] == (unsigned)a));
    ck_assert(o1->in[0] == (unsigned)c || o1->in[1] == (unsigned)c);
    ck_assert_str_eq(p->tensors[o1->out].name, "y");
    ck_assert_uint_eq(p->tensors[o0->out].rank, 2); /* [i, k] in some order */
    ck_assert_uint_eq(ez_plan_tensor_numel(&p->tensors[o0->out]), 10 * 5);
}

START_TEST(test_lower_chain)
{
    ez_program *prog = front(chain_src);
    ez_plan p;
    ez_diag d;
    ck_assert_msg(ez_lower(&p, prog, NULL, &d) == EZ_OK, "%s", d.msg);
    ck_assert_str_eq(p.model, "chain");
    check_chain_plan(&p);
    ez_plan_clear(&p);

    /* the back end's own split: undo the front end's split into one 3-factor node */
    ez_node *root = prog->stmts[0].root;
    ck_assert_int_eq(root->kind, EZ_NODE_PRODUCT);
    ck_assert_uint_eq(root->nin, 2);
    int inner = root->in[0]->kind == EZ_NODE_PRODUCT ? 0 : 1;
    ez_node *tmp = root->in[inner], *other = root->in[1 - inner];
    ck_assert_int_eq(tmp->kind, EZ_NODE_PRODUCT);
    ck_assert_uint_eq(tmp->nin, 2);
    /* put c first so a naive left-to-right split would pick the expensive (ca) pair */
    root->in[0] = other;
    root->in[1] = tmp->in[1];
    root->in[2] = tmp->in[0];
    root->nin = 3;
    ck_assert_msg(ez_lower(&p, prog, NULL, &d) == EZ_OK, "%s", d.msg);
    check_chain_plan(&p);
    ck_assert_int_eq(ez_plan_schedule(&p, &d), EZ_OK);
    ez_plan_clear(&p);
    ez_program_free(prog);
}
END_TEST

static const char lm_src[] = "model lm\n"
                             "param S = 6, D = 8, V = 20, H = 2, E = 4, L = 2\n"
                             "input tok[S] : token\n"
                             "weight wte[V, D], wpe[S, D], wq[L, D, H, E]\n"
                             "x[s, d] = wte[tok[s], d] + wpe[s, d]\n"
                             "for l in 0..L {\n"
                             "  q[s, h, e] = x[s, d] * wq[l, d, h, e]\n"
                             "  a[h, s, t] = q[s, h, e] * q[t, h, e]\n"
                             "  p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\n"
                             "  x[s, d] = x[s, d] + 3 * x[s, d]\n"
                             "}\n"
                             "output p\n";

START_TEST(test_lower_features)
{
    ez_program *prog = front(lm_src);
    ez_plan p;
    ez_diag d;
    ck_assert_msg(ez_lower(&p, prog, NULL, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_plan_schedule(&p, &d) == EZ_OK, "%s", d.msg);
    unsigned ngather = 0, nsoftmax = 0, ncausal = 0, nfixed = 0;
    for (size_t i = 0; i < p.nops; i++) {
        const ez_plan_op *op = &p.ops[i];
        switch (op->kind) {
        case EZ_OP_GATHER:
            ngather++;
            ck_assert_int_eq(p.tensors[op->in[1]].kind, EZ_TENSOR_TOKENS);
            ck_assert_uint_eq(op->idx_size[op->in_axes[0][0]], 20);
            ck_assert_uint_eq(op->sched.nvars, 5); /* log2 20 rounded up */
            ck_assert_uint_eq(op->sched.degree, 2);
            break;
        case EZ_OP_SOFTMAX:
            nsoftmax++;
            ck_assert(op->masked);
            ck_assert_str_eq(op->idx_name[op->mask_row], "s");
            ck_assert_str_eq(op->idx_name[op->mask_col], "t");
            ck_assert_uint_eq(op->axis, op->mask_col);
            break;
        case EZ_OP_CAUSAL: ncausal++; break;
        case EZ_OP_ADD:
            /* x + 3*x: the constant folded into the coefficient, one op */
            ck_assert_uint_eq(op->nin, 2);
            if (op->in[0] == op->in[1])
                ck_assert(op->coef[0] * 3 == op->coef[1] || op->coef[1] * 3 == op->coef[0]);
            break;
        case EZ_OP_EINSUM:
            if (op->in_fixed[1]) {
                ck_assert_uint_eq(op->in_fixed[1], 1);
                ck_assert_uint_eq(op->in_pos[1][0], nfixed); /* layer 0, then 1 */
                nfixed++;
            }
            break;
        default: break;
        }
    }
    ck_assert_uint_eq(ngather, 1);
    ck_assert_uint_eq(nsoftmax, 2);
    ck_assert_uint_eq(ncausal, 0);
    ck_assert_uint_eq(nfixed, 2);
    /* redefinitions got unique names; the output is the last p */
    ck_assert_int_ge(ez_plan_find_tensor(&p, "x'2"), 0);
    int pt = ez_plan_find_tensor(&p, "p'1");
    ck_assert_int_ge(pt, 0);
    ck_assert(p.tensors[pt].is_output);
    ck_assert(!p.tensors[ez_plan_find_tensor(&p, "p")].is_output);
    ck_assert_int_eq(ez_plan_validate(&p, &d), EZ_OK);
    ez_plan_clear(&p);
    ez_program_free(prog);
}
END_TEST

Suite *ez_suite_plan(void)
{
    Suite *s = suite_create("plan");
    const TTest *schedule[] = {test_attention_12x80, test_softmax_and_friends, test_validate_rejects,
        test_fixed_axis};
    ez_tcase_add_fixture(s, "schedule", 0, plan_setup, plan_teardown, schedule, sizeof schedule / sizeof schedule[0]);
    const TTest *compiled[] = {test_einsum_classes, test_validate_row_rules};
    ez_tcase_add(s, "compiled", 0, compiled, sizeof compiled / sizeof compiled[0]);
    const TTest *split[] = {test_split_order, test_split_greedy};
    ez_tcase_add(s, "split", 0, split, sizeof split / sizeof split[0]);
    const TTest *lower[] = {test_lower_chain, test_lower_features};
    ez_tcase_add(s, "lower", 0, lower, sizeof lower / sizeof lower[0]);
    return s;
}

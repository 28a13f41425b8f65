/* exec: the integer executor on hand-built plans, each op kind against a straightforward
 * reference loop written from docs/semantics.md; tables; determinism across thread
 * counts; range errors; the float reference. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "runtime/exec/exec.h"
#include "runtime/exec/floatref.h"
#include "runtime/exec/tables.h"
#include "runtime/prove/lookup.h"
#include "tests/testutil.h"

/* ---- plan builder -------------------------------------------------------------------- */

static unsigned tens(ez_plan *p, const char *name, ez_tensor_kind kind, unsigned rank,
                     const uint64_t *dims, unsigned scale, unsigned bits)
{
    p->tensors = realloc(p->tensors, (p->ntensors + 1) * sizeof *p->tensors);
    ck_assert_ptr_nonnull(p->tensors);
    ez_plan_tensor *t = &p->tensors[p->ntensors];
    memset(t, 0, sizeof *t);
    if (!p->model[0])
        snprintf(p->model, sizeof p->model, "test");
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->source_name, sizeof t->source_name, "%s", name);
    t->kind = kind;
    t->rank = rank;
    for (unsigned a = 0; a < rank; a++)
        t->dims[a] = dims[a];
    t->scale = scale;
    t->bits = bits;
    t->bound = kind == EZ_TENSOR_ACT ? (UINT64_C(1) << 62) - 1 : UINT64_C(1) << (bits - 1);
    t->producer = -1;
    return (unsigned)p->ntensors++;
}

/* An op over the index letters of spec "ab,bc->ac" (operands separated by ',', result
 * after "->"; for GATHER the table's first letter is the gathered axis and ignored).
 * Index sizes are taken from the tensors' extents. */
static ez_plan_op *mkop(ez_plan *p, ez_op_kind kind, const char *spec, const unsigned *in,
                        unsigned nin, unsigned out)
{
    p->ops = realloc(p->ops, (p->nops + 1) * sizeof *p->ops);
    ck_assert_ptr_nonnull(p->ops);
    ez_plan_op *op = &p->ops[p->nops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    snprintf(op->label, sizeof op->label, "%s", p->tensors[out].name);
    snprintf(op->equation, sizeof op->equation, "%s", spec);
    op->out = out;
    op->nin = nin;
    op->mul = 1;
    for (unsigned k = 0; k < nin; k++)
        op->in[k] = in[k], op->coef[k] = 1;
    char letters[EZ_MAX_IDX + 1] = {0};
    unsigned k = 0, a = 0;
    bool in_out = false;
    for (const char *c = spec; *c; c++) {
        if (*c == ',') {
            k++, a = 0;
            continue;
        }
        if (*c == '-' && c[1] == '>') {
            in_out = true, a = 0, c++;
            continue;
        }
        char *f = strchr(letters, *c);
        unsigned id = f ? (unsigned)(f - letters) : op->nidx;
        if (!f) {
            letters[op->nidx++] = *c;
            op->idx_name[id][0] = *c;
        }
        const ez_plan_tensor *t = &p->tensors[in_out ? out : in[k]];
        /* (a GATHER's first table axis is the vocabulary index: the table's rows) */
        op->idx_size[id] = t->dims[a];
        if (in_out)
            op->out_axes[a++] = id;
        else
            op->in_axes[k][a++] = id;
    }
    op->in_scale = p->tensors[in[0]].scale;
    op->out_scale = p->tensors[out].scale;
    p->tensors[out].producer = (int)p->nops;
    p->nops++;
    return op;
}

static unsigned idx_of(const ez_plan_op *op, char c)
{
    for (unsigned i = 0; i < op->nidx; i++)
        if (op->idx_name[i][0] == c)
            return i;
    ck_abort_msg("no index %c", c);
    return 0;
}

static int64_t rnd(ez_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(ez_rng_next(r) % (uint64_t)(hi - lo + 1));
}

static void fill(ez_trace *tr, unsigned t, ez_rng *r, int64_t lo, int64_t hi)
{
    uint64_t n = ez_plan_tensor_numel(&tr->plan->tensors[t]);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    for (uint64_t i = 0; i < n; i++)
        v[i] = rnd(r, lo, hi);
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_trace_set(tr, t, v, n, &d), EZ_OK);
    free(v);
}

/* An empty trace for p (the test fails if it cannot be made). */
static void trace_ok(ez_trace *tr, const ez_plan *p)
{
    ez_diag d = {{0}};
    ck_assert_msg(ez_trace_init(tr, p, &d) == EZ_OK, "trace: %s", d.msg);
}

static void run_ok(const ez_plan *p, ez_trace *tr)
{
    ez_diag d = {{0}};
    ez_status st = ez_exec_run(p, tr, &d);
    ck_assert_msg(st == EZ_OK, "exec failed: %s", d.msg);
}

static int64_t floordiv_pow2(__int128 v, unsigned s, int64_t *rem)
{
    __int128 q = v >> s; /* arithmetic */
    *rem = (int64_t)(v - q * ((__int128)1 << s));
    return (int64_t)q;
}

/* ---- a generic einsum reference: walk every index tuple -------------------------------- */

static void ref_einsum(const ez_plan *p, const ez_plan_op *op, const int64_t *A, const int64_t *B,
                       int64_t *out, int64_t *rem)
{
    const ez_plan_tensor *to = &p->tensors[op->out];
    uint64_t nout = ez_plan_tensor_numel(to);
    __int128 *acc = calloc(nout ? nout : 1, sizeof *acc);
    uint64_t coord[EZ_MAX_IDX] = {0}, total = 1;
    for (unsigned i = 0; i < op->nidx; i++)
        total *= op->idx_size[i];
    for (uint64_t it = 0; it < total; it++) {
        uint64_t x = it;
        for (unsigned i = op->nidx; i-- > 0;)
            coord[i] = x % op->idx_size[i], x /= op->idx_size[i];
        uint64_t oa = 0, ob = 0, oo = 0;
        const ez_plan_tensor *ta = &p->tensors[op->in[0]];
        for (unsigned a = 0; a < ta->rank; a++)
            oa = oa * ta->dims[a] + coord[op->in_axes[0][a]];
        __int128 v = A[oa];
        if (op->nin == 2) {
            const ez_plan_tensor *tb = &p->tensors[op->in[1]];
            for (unsigned a = 0; a < tb->rank; a++)
                ob = ob * tb->dims[a] + coord[op->in_axes[1][a]];
            v *= B[ob];
        }
        /* indices used nowhere but counted in total would over-count: none here */
        for (unsigned a = 0; a < to->rank; a++)
            oo = oo * to->dims[a] + coord[op->out_axes[a]];
        acc[oo] += v;
    }
    for (uint64_t i = 0; i < nout; i++) {
        int64_t r = 0;
        out[i] = floordiv_pow2(acc[i] * op->mul, op->shift, &r);
        if (rem)
            rem[i] = r;
    }
    free(acc);
}

static void check_einsum_op(const ez_plan *p, const ez_trace *tr, size_t oi)
{
    const ez_plan_op *op = &p->ops[oi];
    uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *want = malloc((n ? n : 1) * 8), *wrem = malloc((n ? n : 1) * 8);
    ref_einsum(p, op, tr->t[op->in[0]], op->nin == 2 ? tr->t[op->in[1]] : NULL, want, wrem);
    uint64_t nrem;
    const int64_t *rem = ez_trace_aux(tr, oi, EZ_AUX_REM, &nrem);
    for (uint64_t i = 0; i < n; i++) {
        ck_assert_msg(tr->t[op->out][i] == want[i], "%s [%" PRIu64 "]: %" PRId64 " != %" PRId64,
                      op->equation, i, tr->t[op->out][i], want[i]);
        if (op->shift) {
            ck_assert_uint_eq(nrem, n);
            ck_assert_int_eq(rem[i], wrem[i]);
        }
    }
    if (!op->shift)
        ck_assert_ptr_null(rem);
    free(want);
    free(wrem);
}

/* The "plan" case's checked fixture: an empty plan the test adds tensors and ops to, and
 * the trace it runs (trace_ok), both cleared after each test. */
static struct {
    ez_plan p;
    ez_trace tr;
} fx;

static void plan_setup(void)
{
    ez_plan_init(&fx.p);
    memset(&fx.tr, 0, sizeof fx.tr);
}

static void plan_teardown(void)
{
    ez_trace_clear(&fx.tr);
    ez_plan_clear(&fx.p);
}

/* ---- einsum tests -------------------------------------------------------------------- */

static void matmul_case(ez_rng *r, uint64_t m, uint64_t k, uint64_t n, int64_t lo, int64_t hi,
                        unsigned shift, int64_t mul, bool expect_f64)
{
    ez_plan p;
    ez_plan_init(&p);
    unsigned a = tens(&p, "a", EZ_TENSOR_INPUT, 2, (uint64_t[]){m, k}, 0, 40);
    unsigned b = tens(&p, "b", EZ_TENSOR_WEIGHT, 2, (uint64_t[]){k, n}, 0, 40);
    unsigned c = tens(&p, "c", EZ_TENSOR_ACT, 2, (uint64_t[]){m, n}, 0, 63);
    ez_plan_op *op = mkop(&p, EZ_OP_EINSUM, "ij,jk->ik", (unsigned[]){a, b}, 2, c);
    op->shift = shift;
    op->mul = mul;
    ez_trace tr;
    trace_ok(&tr, &p);
    fill(&tr, a, r, lo, hi);
    fill(&tr, b, r, lo, hi);
    run_ok(&p, &tr);
    check_einsum_op(&p, &tr, 0);
    ck_assert_int_eq(tr.ops[0].exact_f64, expect_f64);
    ck_assert_uint_eq(tr.ops[0].macs, m * n * k);
    ez_trace_clear(&tr);
    ez_plan_clear(&p);
}

START_TEST(test_matmul_packed)
{
    ez_rng r = ez_rng_for("matmul_packed");
    /* exact-double kernel, odd sizes (padding in both panel directions), negatives */
    matmul_case(&r, 37, 61, 53, -1000, 1000, 5, 3, true);
    matmul_case(&r, 8, 300, 24, -(1 << 15), 1 << 15, 0, 1, true); /* K > KC: blocked K */
    /* int64 kernel: max|A| max|B| K above 2^53 */
    matmul_case(&r, 19, 40, 29, -(INT64_C(1) << 26), INT64_C(1) << 26, 11, -7, false);
}
END_TEST

START_TEST(test_rescale_negative_floor)
{
    /* a 1-operand einsum (copy) with shift: floor for negatives, remainder in [0, 2^s) */
    unsigned a = tens(&fx.p, "a", EZ_TENSOR_INPUT, 1, (uint64_t[]){6}, 0, 16);
    unsigned c = tens(&fx.p, "c", EZ_TENSOR_ACT, 1, (uint64_t[]){6}, 0, 16);
    ez_plan_op *op = mkop(&fx.p, EZ_OP_EINSUM, "i->i", (unsigned[]){a}, 1, c);
    op->shift = 2;
    ez_diag d = {{0}};
    trace_ok(&fx.tr, &fx.p);
    int64_t x[6] = {-1, -4, -5, 7, 0, -8};
    int64_t want[6] = {-1, -1, -2, 1, 0, -2}, wrem[6] = {3, 0, 3, 3, 0, 0};
    ck_assert_int_eq(ez_trace_set(&fx.tr, a, x, 6, &d), EZ_OK);
    run_ok(&fx.p, &fx.tr);
    const int64_t *rem = ez_trace_aux(&fx.tr, 0, EZ_AUX_REM, NULL);
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(fx.tr.t[c][i], want[i]);
        ck_assert_int_eq(rem[i], wrem[i]);
    }
}
END_TEST

/* Random equations: every index gets a random class (batch, contracted, free-A, free-B,
 * summed-A, summed-B, broadcast), operand axes are shuffled. */
static void random_einsum(ez_rng *r, bool big)
{
    const char *letters = "abcdefgh";
    unsigned ni = 2 + (unsigned)(ez_rng_next(r) % 5);
    int cls[8];
    uint64_t size[8];
    char sa[9] = {0}, sb[9] = {0}, so[9] = {0};
    unsigned na = 0, nb = 0, no = 0;
    bool two = ez_rng_next(r) % 4 != 0;
    for (unsigned i = 0; i < ni; i++) {
        cls[i] = (int)(ez_rng_next(r) % (two ? 7 : 3));
        size[i] = 1 + ez_rng_next(r) % (big ? 9 : 4);
        if (!two) /* one operand: 0 kept (A and out), 1 summed, 2 broadcast */
            cls[i] = cls[i] == 0 ? 2 : cls[i] == 1 ? 4 : 6;
        bool ia = cls[i] == 0 || cls[i] == 1 || cls[i] == 2 || cls[i] == 4;
        bool ib = cls[i] == 0 || cls[i] == 1 || cls[i] == 3 || cls[i] == 5;
        bool io = cls[i] == 0 || cls[i] == 2 || cls[i] == 3 || cls[i] == 6;
        if (ia)
            sa[na++] = letters[i];
        if (ib && two)
            sb[nb++] = letters[i];
        if (io)
            so[no++] = letters[i];
    }
    if (big) { /* make the packed path likely: big batch-free matmul core */
        size[0] = 12, size[1] = 40;
    }
    /* shuffle axis orders */
    char *lists[3] = {sa, sb, so};
    unsigned lens[3] = {na, nb, no};
    for (int l = 0; l < 3; l++)
        for (unsigned i = lens[l]; i > 1; i--) {
            unsigned j = (unsigned)(ez_rng_next(r) % i);
            char t = lists[l][i - 1];
            lists[l][i - 1] = lists[l][j];
            lists[l][j] = t;
        }
    if (na == 0 || (two && nb == 0))
        return;
    ez_plan p;
    ez_plan_init(&p);
    uint64_t da[8], db[8], dout[8];
    for (unsigned i = 0; i < na; i++)
        da[i] = size[sa[i] - 'a'];
    for (unsigned i = 0; i < nb; i++)
        db[i] = size[sb[i] - 'a'];
    for (unsigned i = 0; i < no; i++)
        dout[i] = size[so[i] - 'a'];
    unsigned ta = tens(&p, "A", EZ_TENSOR_INPUT, na, da, 0, 12);
    unsigned tb = two ? tens(&p, "B", EZ_TENSOR_INPUT, nb, db, 0, 12) : 0;
    unsigned tc = tens(&p, "C", EZ_TENSOR_ACT, no, dout, 0, 63);
    char spec[64];
    if (two)
        snprintf(spec, sizeof spec, "%s,%s->%s", sa, sb, so);
    else
        snprintf(spec, sizeof spec, "%s->%s", sa, so);
    ez_plan_op *op = mkop(&p, EZ_OP_EINSUM, spec, (unsigned[]){ta, tb}, two ? 2 : 1, tc);
    op->shift = (unsigned)(ez_rng_next(r) % 3);
    op->mul = rnd(r, -3, 2);
    op->mul += op->mul >= 0; /* nonzero: the plan's multiplier is never 0 */
    ez_trace tr;
    trace_ok(&tr, &p);
    fill(&tr, ta, r, -50, 50);
    if (two)
        fill(&tr, tb, r, -50, 50);
    run_ok(&p, &tr);
    check_einsum_op(&p, &tr, 0);
    ez_trace_clear(&tr);
    ez_plan_clear(&p);
}

START_TEST(test_einsum_random)
{
    ez_rng r = ez_rng_for("einsum_random");
    for (int i = 0; i < 400; i++)
        random_einsum(&r, false);
    for (int i = 0; i < 60; i++)
        random_einsum(&r, true);
}
END_TEST

START_TEST(test_einsum_batched_attention)
{
    /* a[h,s,t] = q[s,h,e] * k[t,h,e] / 2^3 with head batch; c[s,h,e] = p[h,s,t] v[t,h,e];
     * y[s,n] = c[s,h,e] * wo[h,e,n] (two contracted indices); also a summed-A index and a
     * broadcast index through the packed path. */
    ez_rng r = ez_rng_for("einsum_batched");
    const uint64_t S = 33, H = 3, E = 20, D = 26;
    unsigned q = tens(&fx.p, "q", EZ_TENSOR_INPUT, 3, (uint64_t[]){S, H, E}, 6, 16);
    unsigned k = tens(&fx.p, "k", EZ_TENSOR_INPUT, 3, (uint64_t[]){S, H, E}, 6, 16);
    unsigned wo = tens(&fx.p, "wo", EZ_TENSOR_WEIGHT, 3, (uint64_t[]){H, E, D}, 6, 16);
    unsigned x4 = tens(&fx.p, "x4", EZ_TENSOR_INPUT, 3, (uint64_t[]){S, 5, E}, 0, 16);
    unsigned a = tens(&fx.p, "a", EZ_TENSOR_ACT, 3, (uint64_t[]){H, S, S}, 9, 63);
    unsigned y = tens(&fx.p, "y", EZ_TENSOR_ACT, 2, (uint64_t[]){S, D}, 6, 63);
    unsigned z = tens(&fx.p, "z", EZ_TENSOR_ACT, 3, (uint64_t[]){S, 4, D}, 0, 63);
    mkop(&fx.p, EZ_OP_EINSUM, "she,the->hst", (unsigned[]){q, k}, 2, a)->shift = 3;
    mkop(&fx.p, EZ_OP_EINSUM, "she,hen->sn", (unsigned[]){q, wo}, 2, y)->shift = 6;
    /* z[s,b,n] = sum_{u,e} x4[s,u,e] * w2[e,n]: u summed in A, b broadcast */
    unsigned w2 = tens(&fx.p, "w2", EZ_TENSOR_WEIGHT, 2, (uint64_t[]){E, D}, 0, 16);
    mkop(&fx.p, EZ_OP_EINSUM, "sue,en->sbn", (unsigned[]){x4, w2}, 2, z);
    trace_ok(&fx.tr, &fx.p);
    fill(&fx.tr, q, &r, -3000, 3000);
    fill(&fx.tr, k, &r, -3000, 3000);
    fill(&fx.tr, wo, &r, -3000, 3000);
    fill(&fx.tr, x4, &r, -100, 100);
    fill(&fx.tr, w2, &r, -100, 100);
    run_ok(&fx.p, &fx.tr);
    for (size_t oi = 0; oi < fx.p.nops; oi++) {
        check_einsum_op(&fx.p, &fx.tr, oi);
        ck_assert(fx.tr.ops[oi].exact_f64); /* all went through the packed kernel */
    }
}
END_TEST

START_TEST(test_layer_slice)
{
    /* y[s,n] = x[s,d] * w[l=2, d, n]: axis 0 of w fixed at 2 (an unrolled layer) */
    ez_rng r = ez_rng_for("layer_slice");
    unsigned x = tens(&fx.p, "x", EZ_TENSOR_INPUT, 2, (uint64_t[]){9, 16}, 0, 12);
    unsigned w = tens(&fx.p, "w", EZ_TENSOR_WEIGHT, 2, (uint64_t[]){16, 10}, 0, 12);
    unsigned y = tens(&fx.p, "y", EZ_TENSOR_ACT, 2, (uint64_t[]){9, 10}, 0, 63);
    ez_plan_op *op = mkop(&fx.p, EZ_OP_EINSUM, "sd,dn->sn", (unsigned[]){x, w}, 2, y);
    /* rewrite operand 1 as w[2, d, n] of a [3, 16, 10] weight */
    fx.p.tensors[w].rank = 3;
    fx.p.tensors[w].dims[0] = 3, fx.p.tensors[w].dims[1] = 16, fx.p.tensors[w].dims[2] = 10;
    op->in_axes[1][2] = op->in_axes[1][1];
    op->in_axes[1][1] = op->in_axes[1][0];
    op->in_axes[1][0] = 0;
    op->in_fixed[1] = 1;
    op->in_pos[1][0] = 2;
    ez_diag d = {{0}};
    trace_ok(&fx.tr, &fx.p);
    fill(&fx.tr, x, &r, -100, 100);
    fill(&fx.tr, w, &r, -100, 100);
    run_ok(&fx.p, &fx.tr);
    for (int s = 0; s < 9; s++)
        for (int n = 0; n < 10; n++) {
            int64_t acc = 0;
            for (int k = 0; k < 16; k++)
                acc += fx.tr.t[x][s * 16 + k] * fx.tr.t[w][(2 * 16 + k) * 10 + n];
            ck_assert_int_eq(fx.tr.t[y][s * 10 + n], acc);
        }
    op = &fx.p.ops[0];
    op->in_pos[1][0] = 3; /* outside the axis: refused */
    ck_assert_int_eq(ez_exec_run(&fx.p, &fx.tr, &d), EZ_ERR_INVALID);
}
END_TEST

/* ---- ADD, CAUSAL, GATHER --------------------------------------------------------------- */

START_TEST(test_add_broadcast)
{
    ez_rng r = ez_rng_for("add_broadcast");
    unsigned x = tens(&fx.p, "x", EZ_TENSOR_INPUT, 2, (uint64_t[]){5, 7}, 4, 16);
    unsigned b = tens(&fx.p, "b", EZ_TENSOR_WEIGHT, 1, (uint64_t[]){7}, 2, 16);
    unsigned c = tens(&fx.p, "c", EZ_TENSOR_INPUT, 1, (uint64_t[]){5}, 4, 16);
    unsigned y = tens(&fx.p, "y", EZ_TENSOR_ACT, 2, (uint64_t[]){5, 7}, 3, 63);
    ez_plan_op *op = mkop(&fx.p, EZ_OP_ADD, "ij,j,i->ij", (unsigned[]){x, b, c}, 3, y);
    op->coef[0] = 1, op->coef[1] = 4, op->coef[2] = -1, op->shift = 1;
    trace_ok(&fx.tr, &fx.p);
    fill(&fx.tr, x, &r, -500, 500);
    fill(&fx.tr, b, &r, -500, 500);
    fill(&fx.tr, c, &r, -500, 500);
    run_ok(&fx.p, &fx.tr);
    const int64_t *rem = ez_trace_aux(&fx.tr, 0, EZ_AUX_REM, NULL);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++) {
            int64_t acc = fx.tr.t[x][i * 7 + j] + 4 * fx.tr.t[b][j] - fx.tr.t[c][i], rr;
            ck_assert_int_eq(fx.tr.t[y][i * 7 + j], floordiv_pow2(acc, 1, &rr));
            ck_assert_int_eq(rem[i * 7 + j], rr);
        }
}
END_TEST

START_TEST(test_causal_and_gather)
{
    ez_rng r = ez_rng_for("causal_gather");
    unsigned a = tens(&fx.p, "a", EZ_TENSOR_INPUT, 3, (uint64_t[]){2, 6, 6}, 8, 20);
    unsigned m = tens(&fx.p, "m", EZ_TENSOR_ACT, 3, (uint64_t[]){2, 6, 6}, 8, 20);
    ez_plan_op *op = mkop(&fx.p, EZ_OP_CAUSAL, "hst->hst", (unsigned[]){a}, 1, m);
    op->mask_row = idx_of(op, 's'), op->mask_col = idx_of(op, 't');
    unsigned wte = tens(&fx.p, "wte", EZ_TENSOR_WEIGHT, 2, (uint64_t[]){10, 4}, 8, 16);
    unsigned tok = tens(&fx.p, "tok", EZ_TENSOR_TOKENS, 1, (uint64_t[]){5}, 0, 32);
    fx.p.tensors[tok].token_limit = 10;
    unsigned g = tens(&fx.p, "g", EZ_TENSOR_ACT, 2, (uint64_t[]){5, 4}, 8, 16);
    mkop(&fx.p, EZ_OP_GATHER, "vd,s->sd", (unsigned[]){wte, tok}, 2, g);
    ez_diag d = {{0}};
    trace_ok(&fx.tr, &fx.p);
    fill(&fx.tr, a, &r, -1000, 1000);
    fill(&fx.tr, wte, &r, -1000, 1000);
    fill(&fx.tr, tok, &r, 0, 9);
    run_ok(&fx.p, &fx.tr);
    for (int h = 0; h < 2; h++)
        for (int s = 0; s < 6; s++)
            for (int t = 0; t < 6; t++) {
                int o = (h * 6 + s) * 6 + t;
                ck_assert_int_eq(fx.tr.t[m][o], t > s ? 0 : fx.tr.t[a][o]);
            }
    for (int s = 0; s < 5; s++)
        for (int j = 0; j < 4; j++)
            ck_assert_int_eq(fx.tr.t[g][s * 4 + j], fx.tr.t[wte][fx.tr.t[tok][s] * 4 + j]);
    /* a token outside [0, token_limit) is refused when set */
    int64_t badtok[5] = {0, 1, 10, 2, 3};
    ck_assert_int_eq(ez_trace_set(&fx.tr, tok, badtok, 5, &d), EZ_ERR_NUMERIC);
    ck_assert_ptr_nonnull(strstr(d.msg, "tok[2]"));
}
END_TEST

/* ---- softmax ------------------------------------------------------------------------- */

/* Straight from docs/semantics.md. */
static void ref_softmax_row(const ez_table *t, const int64_t *x, const bool *live, int n,
                            unsigned s_out, int64_t *p, int64_t *e, int64_t *rem, int64_t *m_out,
                            int64_t *sig_out)
{
    bool any = false;
    int64_t m = 0;
    for (int j = 0; j < n; j++)
        if (live[j] && (!any || x[j] > m))
            m = x[j], any = true;
    int64_t sigma = 0;
    for (int j = 0; j < n; j++) {
        e[j] = 0;
        if (live[j]) {
            uint64_t dd = (uint64_t)(m - x[j]) >> t->in_shift;
            e[j] = dd < 65536 ? t->out[dd] : 0;
        }
        sigma += e[j];
    }
    /* the row reciprocal r = floor(2^(s_out+16) / sigma), then p = floor(e r / 2^16) */
    int64_t r = sigma ? (INT64_C(1) << (s_out + 16)) / sigma : 0;
    for (int j = 0; j < n; j++) {
        p[j] = (e[j] * r) >> 16;
        rem[j] = e[j] * r - (p[j] << 16);
        /* within one unit below the exact quotient floor(e 2^s_out / sigma) */
        int64_t exact = sigma ? (e[j] << s_out) / sigma : 0;
        ck_assert(p[j] == exact || p[j] == exact - 1);
    }
    *m_out = any ? m : 0;
    *sig_out = sigma;
}

START_TEST(test_softmax_exact)
{
    ez_rng r = ez_rng_for("softmax_exact");
    const int H = 2, S = 9;
    unsigned a = tens(&fx.p, "a", EZ_TENSOR_INPUT, 3, (uint64_t[]){H, S, S}, 12, 40);
    unsigned y = tens(&fx.p, "p", EZ_TENSOR_ACT, 3, (uint64_t[]){H, S, S}, 12, 24);
    ez_plan_op *op = mkop(&fx.p, EZ_OP_SOFTMAX, "hst->hst", (unsigned[]){a}, 1, y);
    op->axis = idx_of(op, 't');
    op->masked = true;
    op->mask_row = idx_of(op, 's'), op->mask_col = idx_of(op, 't');
    ez_diag d = {{0}};
    trace_ok(&fx.tr, &fx.p);
    int64_t *x = malloc(H * S * S * sizeof *x);
    for (int i = 0; i < H * S * S; i++)
        x[i] = rnd(&r, -40000, 40000);
    /* masked entries hold huge scores: they must not matter at all */
    for (int h = 0; h < H; h++)
        for (int s = 0; s < S; s++)
            for (int t = s + 1; t < S; t++)
                x[(h * S + s) * S + t] = (INT64_C(1) << 38) + t;
    /* row (0, 3): very negative scores; row (0, 4): ties; row (1, 8): one dominant */
    for (int t = 0; t <= 3; t++)
        x[(0 * S + 3) * S + t] = -(INT64_C(1) << 37) + t * 5;
    for (int t = 0; t <= 4; t++)
        x[(0 * S + 4) * S + t] = t % 2 ? 777 : -100000;
    for (int t = 0; t <= 8; t++)
        x[(1 * S + 8) * S + t] = t == 5 ? 200000 : -200000;
    ck_assert_int_eq(ez_trace_set(&fx.tr, a, x, H * S * S, &d), EZ_OK);
    run_ok(&fx.p, &fx.tr);
    const ez_table *t = ez_trace_table(&fx.tr, EZ_TABLE_SOFTMAX_EXP, EZ_FN_EXP, 12, 0);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->out[0], 1 << EZ_SOFTMAX_EXP_SCALE);
    const int64_t *amax = ez_trace_aux(&fx.tr, 0, EZ_AUX_ROW_MAX, NULL);
    const int64_t *asum = ez_trace_aux(&fx.tr, 0, EZ_AUX_ROW_SUM, NULL);
    const int64_t *aexp = ez_trace_aux(&fx.tr, 0, EZ_AUX_EXP, NULL);
    const int64_t *arem = ez_trace_aux(&fx.tr, 0, EZ_AUX_DIV_REM, NULL);
    const int64_t *arec = ez_trace_aux(&fx.tr, 0, EZ_AUX_ROW_RECIP, NULL);
    for (int h = 0; h < H; h++)
        for (int s = 0; s < S; s++) {
            int row = h * S + s;
            bool live[9];
            for (int j = 0; j < S; j++)
                live[j] = j <= s;
            int64_t pp[9], e[9], rem[9], m, sig;
            ref_softmax_row(t, x + row * S, live, S, 12, pp, e, rem, &m, &sig);
            ck_assert_int_eq(amax[row], m);
            ck_assert_int_eq(asum[row], sig);
            ck_assert_int_eq(arec[row], (INT64_C(1) << (12 + 16)) / sig);
            int64_t total = 0;
            for (int j = 0; j < S; j++) {
                ck_assert_int_eq(fx.tr.t[y][row * S + j], pp[j]);
                ck_assert_int_eq(aexp[row * S + j], e[j]);
                ck_assert_int_eq(arem[row * S + j], rem[j]);
                ck_assert(rem[j] >= 0 && rem[j] < 65536);
                if (j > s)
                    ck_assert_int_eq(fx.tr.t[y][row * S + j], 0); /* masked: exactly 0 */
                total += pp[j];
            }
            ck_assert(total <= 4096 && total > 4096 - 2 * S); /* each p at most 2 units low */
        }
    /* all-masked-but-one row: the single live entry gets all the weight */
    ck_assert_int_eq(fx.tr.t[y][0], 4096);
    /* very negative scores still give a proper distribution (no sentinel) */
    ck_assert(fx.tr.t[y][(0 * S + 3) * S + 3] > fx.tr.t[y][(0 * S + 3) * S + 0]);
    /* ties get identical weights */
    ck_assert_int_eq(fx.tr.t[y][(0 * S + 4) * S + 1], fx.tr.t[y][(0 * S + 4) * S + 3]);
    ck_assert_int_eq(fx.tr.t[y][(0 * S + 4) * S + 1], 2048);
    /* one dominant entry */
    ck_assert_int_eq(fx.tr.t[y][(1 * S + 8) * S + 5], 4096);
    free(x);
}
END_TEST

START_TEST(test_softmax_vs_float)
{
    /* unmasked softmax over the first axis (strided rows), input scale 14 (table input
     * shift 2): close to the real softmax */
    ez_rng r = ez_rng_for("softmax_float");
    const int N = 50, R = 7;
    unsigned a = tens(&fx.p, "a", EZ_TENSOR_INPUT, 2, (uint64_t[]){N, R}, 14, 24);
    unsigned y = tens(&fx.p, "p", EZ_TENSOR_ACT, 2, (uint64_t[]){N, R}, 16, 24);
    ez_plan_op *op = mkop(&fx.p, EZ_OP_SOFTMAX, "tr->tr", (unsigned[]){a}, 1, y);
    op->axis = idx_of(op, 't');
    trace_ok(&fx.tr, &fx.p);
    fill(&fx.tr, a, &r, -(3 << 14), 3 << 14);
    run_ok(&fx.p, &fx.tr);
    for (int c = 0; c < R; c++) {
        double m = -1e300, s = 0;
        for (int t = 0; t < N; t++)
            m = fmax(m, ldexp((double)fx.tr.t[a][t * R + c], -14));
        for (int t = 0; t < N; t++)
            s += exp(ldexp((double)fx.tr.t[a][t * R + c], -14) - m);
        for (int t = 0; t < N; t++) {
            double want = exp(ldexp((double)fx.tr.t[a][t * R + c], -14) - m) / s;
            double got = ldexp((double)fx.tr.t[y][t * R + c], -16);
            ck_assert_msg(fabs(got - want) < 2e-4, "softmax %g vs %g", got, want);
        }
    }
}
END_TEST

/* ---- max / argmax ---------------------------------------------------------------------- */

START_TEST(test_max_argmax_ties)
{
    unsigned x = tens(&fx.p, "x", EZ_TENSOR_INPUT, 2, (uint64_t[]){3, 5}, 4, 16);
    unsigned mx = tens(&fx.p, "mx", EZ_TENSOR_ACT, 1, (uint64_t[]){3}, 4, 16);
    unsigned am = tens(&fx.p, "am", EZ_TENSOR_ACT, 1, (uint64_t[]){3}, 0, 16);
    unsigned amc = tens(&fx.p, "amc", EZ_TENSOR_ACT, 1, (uint64_t[]){5}, 0, 16);
    mkop(&fx.p, EZ_OP_MAX, "sv->s", (unsigned[]){x}, 1, mx)->axis = 1;
    mkop(&fx.p, EZ_OP_ARGMAX, "sv->s", (unsigned[]){x}, 1, am)->axis = 1;
    mkop(&fx.p, EZ_OP_ARGMAX, "sv->v", (unsigned[]){x}, 1, amc)->axis = 0;
    ez_diag d = {{0}};
    trace_ok(&fx.tr, &fx.p);
    int64_t v[15] = {3, 9, 9, 1, 9, -5, -5, -5, -5, -5, 0, -1, 7, 7, -9};
    ck_assert_int_eq(ez_trace_set(&fx.tr, x, v, 15, &d), EZ_OK);
    run_ok(&fx.p, &fx.tr);
    ck_assert_int_eq(fx.tr.t[mx][0], 9);
    ck_assert_int_eq(fx.tr.t[mx][1], -5);
    ck_assert_int_eq(fx.tr.t[mx][2], 7);
    ck_assert_int_eq(fx.tr.t[am][0], 1); /* ties -> lowest index */
    ck_assert_int_eq(fx.tr.t[am][1], 0);
    ck_assert_int_eq(fx.tr.t[am][2], 2);
    ck_assert_int_eq(ez_trace_aux(&fx.tr, 0, EZ_AUX_ROW_ARG, NULL)[0], 1);
    ck_assert_int_eq(ez_trace_aux(&fx.tr, 1, EZ_AUX_ROW_MAX, NULL)[2], 7);
    /* column argmax: columns (3,-5,0) (9,-5,-1) (9,-5,7) (1,-5,7) (9,-5,-9) */
    int64_t want[5] = {0, 0, 0, 2, 0};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(fx.tr.t[amc][i], want[i]);
}
END_TEST

/* ---- norms ---------------------------------------------------------------------------- */

static void ref_norm(bool layer, const int64_t *x, int n, unsigned s_in, unsigned s_out,
                     const ez_table *t, int64_t *y)
{
    __int128 s = 0;
    for (int j = 0; j < n; j++)
        s += x[j];
    int64_t mu = 0;
    if (layer) {
        mu = (int64_t)(s / n);
        if (s % n < 0)
            mu -= 1;
    }
    __int128 q = 0;
    for (int j = 0; j < n; j++)
        q += (__int128)(x[j] - mu) * (x[j] - mu);
    int64_t v = (int64_t)(q / n);
    int64_t E = (int64_t)fmax(1.0, round(ldexp(1e-5, 2 * (int)s_in)));
    int64_t V = v + E;
    /* smallest k with ceil(V / 4^k) < 2^16 */
    unsigned k = 0;
    int64_t M;
    for (;; k++) {
        M = (V + (INT64_C(1) << (2 * k)) - 1) >> (2 * k);
        if (M < 65536)
            break;
    }
    int64_t r = t->out[M];
    int ex = (int)s_out - 23 - (int)k;
    for (int j = 0; j < n; j++) {
        __int128 prod = (__int128)(x[j] - mu) * r;
        y[j] = ex >= 0 ? (int64_t)(prod << ex) : (int64_t)(prod >> -ex);
    }
}

static void norm_case(ez_op_kind kind, ez_rng *r, int64_t lo, int64_t hi, bool onehot)
{
    const int R = 4, N = 96;
    ez_plan p;
    ez_plan_init(&p);
    unsigned x = tens(&p, "x", EZ_TENSOR_INPUT, 2, (uint64_t[]){R, N}, 12, 30);
    unsigned y = tens(&p, "y", EZ_TENSOR_ACT, 2, (uint64_t[]){R, N}, 12, 24);
    p.tensors[y].bound = (uint64_t)ceil(sqrt((double)N) * 4096);
    mkop(&p, kind, "sd->sd", (unsigned[]){x}, 1, y)->axis = 1;
    ez_trace tr;
    ez_diag d = {{0}};
    trace_ok(&tr, &p);
    int64_t *v = malloc(R * N * sizeof *v);
    for (int i = 0; i < R * N; i++)
        v[i] = onehot ? (i % N == 7 ? hi : lo) : rnd(r, lo, hi);
    ck_assert_int_eq(ez_trace_set(&tr, x, v, R * N, &d), EZ_OK);
    run_ok(&p, &tr); /* includes the bound check |y| <= ceil(sqrt(N) 2^12) */
    const ez_table *t = ez_trace_table(&tr, EZ_TABLE_RSQRT, EZ_FN_RSQRT, 0, 0);
    for (int row = 0; row < R; row++) {
        int64_t want[96];
        ref_norm(kind == EZ_OP_LAYERNORM, v + row * N, N, 12, 12, t, want);
        double mean = 0, var = 0;
        for (int j = 0; j < N; j++)
            mean += ldexp((double)v[row * N + j], -12);
        mean = kind == EZ_OP_LAYERNORM ? mean / N : 0;
        for (int j = 0; j < N; j++)
            var += pow(ldexp((double)v[row * N + j], -12) - mean, 2);
        var /= N;
        for (int j = 0; j < N; j++) {
            ck_assert_int_eq(tr.t[y][row * N + j], want[j]);
            double fy = (ldexp((double)v[row * N + j], -12) - mean) / sqrt(var + 1e-5);
            ck_assert_msg(fabs(ldexp((double)want[j], -12) - fy) < 2e-3 + 2e-4 * fabs(fy),
                          "norm %g vs %g", ldexp((double)want[j], -12), fy);
        }
    }
    free(v);
    ez_trace_clear(&tr);
    ez_plan_clear(&p);
}

START_TEST(test_norms)
{
    ez_rng r = ez_rng_for("norms");
    norm_case(EZ_OP_LAYERNORM, &r, -20000, 30000, false);
    norm_case(EZ_OP_RMSNORM, &r, -20000, 30000, false);
    norm_case(EZ_OP_LAYERNORM, &r, -(1 << 28), 1 << 28, false); /* wide: k > 0 */
    norm_case(EZ_OP_LAYERNORM, &r, 5, 5, false);                 /* constant rows: var 0 */
    norm_case(EZ_OP_RMSNORM, &r, 0, 1 << 27, true);              /* one-hot: max |y| */
    norm_case(EZ_OP_LAYERNORM, &r, -3, 1 << 27, true);
}
END_TEST

/* ---- unary functions and tables ---------------------------------------------------- */

START_TEST(test_unary_tables)
{
    ez_rng r = ez_rng_for("unary");
    const ez_func fs[] = {EZ_FN_RELU, EZ_FN_GELU, EZ_FN_SILU, EZ_FN_SIGMOID, EZ_FN_TANH, EZ_FN_EXP, EZ_FN_RSQRT};
    for (size_t fi = 0; fi < sizeof fs / sizeof fs[0]; fi++) {
        for (unsigned in_scale = 10; in_scale <= 14; in_scale += 4) {
            ez_plan p;
            ez_plan_init(&p);
            const uint64_t n = 2000;
            unsigned x = tens(&p, "x", EZ_TENSOR_INPUT, 1, (uint64_t[]){n}, in_scale, 24);
            /* relu keeps its operand's scale and width (compiler/builtins.c) */
            bool relu = fs[fi] == EZ_FN_RELU;
            unsigned y = tens(&p, "y", EZ_TENSOR_ACT, 1, (uint64_t[]){n}, relu ? in_scale : 12, relu ? 24 : 40);
            ez_op_kind kind = relu ? EZ_OP_RELU : fs[fi] == EZ_FN_RSQRT ? EZ_OP_RSQRT : EZ_OP_FUNC;
            mkop(&p, kind, "i->i", (unsigned[]){x}, 1, y)->func = kind == EZ_OP_FUNC ? fs[fi] : EZ_FN_NONE;
            ez_trace tr;
            ez_diag d = {{0}};
            trace_ok(&tr, &p);
            int64_t lim = (int64_t)6 << in_scale; /* +-6 real, plus tails below */
            if (fs[fi] == EZ_FN_EXP)
                lim = (int64_t)3 << in_scale;
            int64_t *v = malloc(n * sizeof *v);
            for (uint64_t i = 0; i < n; i++)
                v[i] = rnd(&r, -lim, lim);
            v[0] = (int64_t)40 << in_scale; /* upper tail */
            v[1] = -((int64_t)40 << in_scale); /* lower tail */
            if (fs[fi] == EZ_FN_EXP)
                v[0] = 0;
            if (fs[fi] == EZ_FN_RSQRT)
                for (uint64_t i = 0; i < n; i++)
                    v[i] = i < 2 ? v[i] : 1 + (int64_t)(ez_rng_next(&r) % (UINT64_C(1) << (in_scale + 8)));
            ck_assert_int_eq(ez_trace_set(&tr, x, v, n, &d), EZ_OK);
            run_ok(&p, &tr);
            for (uint64_t i = 0; i < n; i++) {
                double xr = ldexp((double)v[i], -(int)in_scale);
                double want = ez_func_eval_f64(fs[fi], xr);
                double got = ldexp((double)tr.t[y][i], -12);
                if (relu) {
                    ck_assert_int_eq(tr.t[y][i], v[i] > 0 ? v[i] : 0);
                    continue;
                }
                if (fs[fi] == EZ_FN_RSQRT && v[i] <= 0) {
                    ck_assert_int_eq(tr.t[y][i], 0);
                    continue;
                }
                /* table resolution 2^-min(in_scale,12), output rounding 2^-12, slope <= 1.13;
                 * rsqrt: relative 2^-13 from the mantissa */
                double tol = fs[fi] == EZ_FN_RSQRT ? 2.5e-4 * want + 2.5e-4 : 1.2 * ldexp(1.0, -10) + 3e-4;
                if (fs[fi] == EZ_FN_EXP)
                    tol = want * ldexp(1.0, -10) + 3e-4;
                ck_assert_msg(fabs(got - want) <= tol, "%s(%g) = %g, want %g (in_scale %u)",
                              ez_func_name(fs[fi]), xr, got, want, in_scale);
            }
            if (fs[fi] == EZ_FN_GELU || fs[fi] == EZ_FN_SILU) { /* identity / zero tails */
                ck_assert_int_eq(tr.t[y][0], (int64_t)40 << 12);
                ck_assert_int_eq(tr.t[y][1], 0);
            }
            free(v);
            ez_trace_clear(&tr);
            ez_plan_clear(&p);
        }
    }
}
END_TEST

START_TEST(test_rsqrt_table_exact)
{
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build_rsqrt(&t, &d), EZ_OK);
    ck_assert_uint_eq(t.n, 65536);
    ck_assert_int_eq(t.out[0], 0);
    ck_assert_int_eq(t.out[1], 1 << 23);
    ck_assert_int_eq(t.out[4], 1 << 22);
    for (uint32_t m = 1; m < t.n; m++) {
        __int128 r = t.out[m];
        ck_assert(r * r * m <= ((__int128)1 << 46));
        ck_assert((r + 1) * (r + 1) * m > ((__int128)1 << 46));
    }
    ez_table_clear(&t);
    ez_rng r = ez_rng_for("rsqrt_split");
    for (int i = 0; i < 100000; i++) {
        int64_t v = (int64_t)(ez_rng_next(&r) >> (2 + ez_rng_next(&r) % 60));
        int64_t m, mrem;
        unsigned k;
        ez_rsqrt_split(v, &m, &k, &mrem);
        if (v <= 0) {
            ck_assert_int_eq(m, 0);
            continue;
        }
        ck_assert(m < 65536);
        ck_assert(k == 0 || m >= 16384);
        ck_assert(mrem >= 0 && (k == 0 ? mrem == 0 : mrem < (INT64_C(1) << (2 * k))));
        ck_assert((__int128)m * ((__int128)1 << (2 * k)) - mrem == v);
        if (k > 0) /* minimality: with k-1 the mantissa would not fit */
            ck_assert((v + (INT64_C(1) << (2 * (k - 1))) - 1) >> (2 * (k - 1)) >= 65536);
    }
}
END_TEST

/* The sign table (FUNC's tails, docs/protocol-elementwise.md §2.2): row h holds sign(h)
 * for h in [-2^15, 2^15), one table for every scale; the rows the lookups use (input
 * column lo + i, signed) are the same. */
START_TEST(test_sign_table)
{
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build_kind(&t, EZ_TABLE_SIGN, EZ_FN_NONE, 0, 0, &d), EZ_OK);
    ck_assert_uint_eq(t.n, 65536);
    ck_assert_int_eq(t.lo, -32768);
    for (uint32_t i = 0; i < t.n; i++) {
        int64_t h = t.lo + (int64_t)i;
        ck_assert_int_eq(t.out[i], h > 0 ? 1 : h < 0 ? -1 : 0);
    }
    ck_assert(ez_table_is(&t, EZ_TABLE_SIGN, EZ_FN_GELU, 12, 16));
    ck_assert(!ez_table_is(&t, EZ_TABLE_FUNC, EZ_FN_NONE, 0, 0));
    ez_table_clear(&t);
    ez_fe *in = NULL, *out = NULL;
    ck_assert_int_eq(ez_lookup_func_rows(EZ_TABLE_SIGN, EZ_FN_NONE, 0, 0, &in, &out, &d), EZ_OK);
    ck_assert_uint_eq(in[0], ez_fe_from_i64(-32768));
    ck_assert_uint_eq(out[0], ez_fe_from_i64(-1));
    ck_assert_uint_eq(in[32768], 0);
    ck_assert_uint_eq(out[32768], 0);
    ck_assert_uint_eq(in[65535], 32767);
    ck_assert_uint_eq(out[65535], 1);
    free(in);
    free(out);
}
END_TEST

START_TEST(test_table_tails)
{
    ez_table t;
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_table_build(&t, EZ_FN_SIGMOID, 12, 12, &d), EZ_OK);
    ck_assert_int_eq(ez_table_eval(&t, 0), 2048);
    ck_assert_int_eq(ez_table_eval(&t, INT64_C(1) << 40), 4096);
    ck_assert_int_eq(ez_table_eval(&t, -(INT64_C(1) << 40)), 0);
    ck_assert_int_eq(t.out[0], (int64_t)round(4096.0 / (1.0 + exp(8.0))));
    ez_table_clear(&t);
    ck_assert_int_eq(ez_table_build(&t, EZ_FN_TANH, 16, 10, &d), EZ_OK);
    ck_assert_uint_eq(t.in_shift, 4);
    ck_assert_int_eq(ez_table_eval(&t, -(INT64_C(1) << 30)), -1024);
    ck_assert_int_eq(ez_table_eval(&t, 17), ez_table_eval(&t, 16)); /* floor(x / 16) */
    ez_table_clear(&t);
    ck_assert_int_eq(ez_table_build(&t, EZ_FN_RELU, 12, 12, &d), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_table_build_softmax_exp(&t, 8, &d), EZ_OK);
    ck_assert_int_eq(ez_table_softmax_exp(&t, 0), 65536);
    ck_assert_int_eq(ez_table_softmax_exp(&t, 256), (int64_t)round(65536 * exp(-1.0)));
    ck_assert_int_eq(ez_table_softmax_exp(&t, 65536), 0); /* high limb non-zero */
    ez_table_clear(&t);
}
END_TEST

/* ---- a small transformer block: determinism, float reference ---------------------- */

static void build_block(ez_plan *p, unsigned *ids)
{
    enum { S = 24, D = 48, H = 3, E = 16, V = 50 };
    /* the tensors in plan order (ez_plan_init, then tens: a tensor's id is its enum value) */
    enum { tok, wte, wq, wk, wv, wo, x, xn, q, k, v, a, pr, c, y, g, r2, am, NT };
    static const struct {
        const char *name;
        ez_tensor_kind kind;
        unsigned rank;
        uint64_t dims[3];
        unsigned scale, bits;
    } ts[NT] = {
        {"tok", EZ_TENSOR_TOKENS, 1, {S}, 0, 32}, {"wte", EZ_TENSOR_WEIGHT, 2, {V, D}, 12, 16},
        {"wq", EZ_TENSOR_WEIGHT, 3, {D, H, E}, 12, 16}, {"wk", EZ_TENSOR_WEIGHT, 3, {D, H, E}, 12, 16},
        {"wv", EZ_TENSOR_WEIGHT, 3, {D, H, E}, 12, 16}, {"wo", EZ_TENSOR_WEIGHT, 3, {H, E, D}, 12, 16},
        {"x", EZ_TENSOR_ACT, 2, {S, D}, 12, 24}, {"xn", EZ_TENSOR_ACT, 2, {S, D}, 12, 24},
        {"q", EZ_TENSOR_ACT, 3, {S, H, E}, 12, 24}, {"k", EZ_TENSOR_ACT, 3, {S, H, E}, 12, 24},
        {"v", EZ_TENSOR_ACT, 3, {S, H, E}, 12, 24}, {"a", EZ_TENSOR_ACT, 3, {H, S, S}, 12, 24},
        {"p", EZ_TENSOR_ACT, 3, {H, S, S}, 12, 24}, {"c", EZ_TENSOR_ACT, 3, {S, H, E}, 12, 24},
        {"y", EZ_TENSOR_ACT, 2, {S, D}, 12, 24}, {"g", EZ_TENSOR_ACT, 2, {S, D}, 12, 24},
        {"r", EZ_TENSOR_ACT, 2, {S, D}, 12, 24}, {"am", EZ_TENSOR_ACT, 1, {S}, 0, 24},
    };
    ez_plan_init(p);
    for (unsigned i = 0; i < NT; i++)
        ck_assert_uint_eq(tens(p, ts[i].name, ts[i].kind, ts[i].rank, ts[i].dims, ts[i].scale, ts[i].bits), i);
    p->tensors[tok].token_limit = V;
    mkop(p, EZ_OP_GATHER, "vd,s->sd", (unsigned[]){wte, tok}, 2, x);
    mkop(p, EZ_OP_LAYERNORM, "sd->sd", (unsigned[]){x}, 1, xn)->axis = 1;
    mkop(p, EZ_OP_EINSUM, "sd,dhe->she", (unsigned[]){xn, wq}, 2, q)->shift = 12;
    mkop(p, EZ_OP_EINSUM, "sd,dhe->she", (unsigned[]){xn, wk}, 2, k)->shift = 12;
    mkop(p, EZ_OP_EINSUM, "sd,dhe->she", (unsigned[]){xn, wv}, 2, v)->shift = 12;
    mkop(p, EZ_OP_EINSUM, "she,the->hst", (unsigned[]){q, k}, 2, a)->shift = 14;
    ez_plan_op *sm = mkop(p, EZ_OP_SOFTMAX, "hst->hst", (unsigned[]){a}, 1, pr);
    sm->axis = idx_of(sm, 't'), sm->masked = true;
    sm->mask_row = idx_of(sm, 's'), sm->mask_col = idx_of(sm, 't');
    mkop(p, EZ_OP_EINSUM, "hst,the->she", (unsigned[]){pr, v}, 2, c)->shift = 12;
    mkop(p, EZ_OP_EINSUM, "she,hen->sn", (unsigned[]){c, wo}, 2, y)->shift = 12;
    mkop(p, EZ_OP_FUNC, "sd->sd", (unsigned[]){y}, 1, g)->func = EZ_FN_GELU;
    mkop(p, EZ_OP_ADD, "sd,sd->sd", (unsigned[]){x, g}, 2, r2);
    mkop(p, EZ_OP_ARGMAX, "sd->s", (unsigned[]){r2}, 1, am)->axis = 1;
    p->tensors[am].bound = D - 1;
    ids[0] = tok, ids[1] = wte, ids[2] = wq, ids[3] = wk, ids[4] = wv, ids[5] = wo;
}

static double gauss(ez_rng *r)
{
    double u1 = ((double)(ez_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = (double)(ez_rng_next(r) >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The block's plan and its six inputs and weights (tok, wte, wq, wk, wv, wo) as reals. */
typedef struct {
    ez_plan p;
    unsigned ids[6];
    double *real[6];
} block;

static void block_open(block *b)
{
    build_block(&b->p, b->ids);
    ez_rng r = ez_rng_for("block_data");
    for (int i = 0; i < 6; i++) {
        const ez_plan_tensor *t = &b->p.tensors[b->ids[i]];
        uint64_t n = ez_plan_tensor_numel(t);
        b->real[i] = malloc(n * sizeof(double));
        double sd = i == 1 ? 1.0 : 1.0 / sqrt((double)(i == 5 ? 48 : 48));
        for (uint64_t j = 0; j < n; j++)
            b->real[i][j] = i == 0 ? (double)(ez_rng_next(&r) % 50) : fmax(-7.9, fmin(7.9, sd * gauss(&r)));
    }
}

static void block_close(block *b)
{
    for (int i = 0; i < 6; i++)
        free(b->real[i]);
    ez_plan_clear(&b->p);
}

/* The block's inputs and weights quantized into tr. */
static void block_set(ez_trace *tr, const block *b)
{
    for (int i = 0; i < 6; i++) {
        const ez_plan_tensor *t = &b->p.tensors[b->ids[i]];
        uint64_t n = ez_plan_tensor_numel(t);
        int64_t *q = malloc(n * sizeof *q);
        for (uint64_t j = 0; j < n; j++)
            q[j] = (int64_t)llround(ldexp(b->real[i][j], (int)t->scale));
        ez_diag d = {{0}};
        ck_assert_int_eq(ez_trace_set(tr, b->ids[i], q, n, &d), EZ_OK);
        free(q);
    }
}

START_TEST(test_determinism_threads)
{
    block b;
    block_open(&b);
    const ez_plan *p = &b.p;
    ez_trace t1, t2;
    trace_ok(&t1, p);
    trace_ok(&t2, p);
    block_set(&t1, &b);
    block_set(&t2, &b);
#ifdef _OPENMP
    int old = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    run_ok(p, &t1);
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    run_ok(p, &t2);
#ifdef _OPENMP
    omp_set_num_threads(old);
#endif
    for (size_t i = 0; i < p->ntensors; i++) {
        uint64_t n = ez_plan_tensor_numel(&p->tensors[i]);
        ck_assert_msg(!memcmp(t1.t[i], t2.t[i], n * 8), "tensor %s differs", p->tensors[i].name);
    }
    for (size_t o = 0; o < p->nops; o++)
        for (int k = 0; k < EZ_AUX_COUNT; k++) {
            ck_assert_uint_eq(t1.ops[o].naux[k], t2.ops[o].naux[k]);
            if (t1.ops[o].naux[k])
                ck_assert(!memcmp(t1.ops[o].aux[k], t2.ops[o].aux[k], t1.ops[o].naux[k] * 8));
        }
    /* the softmax aux of the block is there for the prover */
    ck_assert_uint_eq(t1.ops[6].naux[EZ_AUX_ROW_MAX], 3 * 24);
    ck_assert_uint_eq(t1.ops[6].naux[EZ_AUX_EXP], 3 * 24 * 24);
    ez_trace_clear(&t1);
    ez_trace_clear(&t2);
    block_close(&b);
}
END_TEST

START_TEST(test_floatref_block)
{
    block b;
    block_open(&b);
    const ez_plan *p = &b.p;
    ez_trace tr;
    ez_ftrace ft;
    ez_diag d = {{0}};
    trace_ok(&tr, p);
    ck_assert_int_eq(ez_ftrace_init(&ft, p, &d), EZ_OK);
    block_set(&tr, &b);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(ez_ftrace_set(&ft, b.ids[i], b.real[i], ez_plan_tensor_numel(&p->tensors[b.ids[i]]), &d), EZ_OK);
    run_ok(p, &tr);
    ck_assert_int_eq(ez_floatref_run(p, &ft, &d), EZ_OK);
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind != EZ_TENSOR_ACT || !strcmp(t->name, "am"))
            continue;
        ez_float_err e;
        ez_floatref_compare(&e, tr.t[i], t->scale, ft.t[i], ez_plan_tensor_numel(t));
        ck_assert_msg(e.rel < 0.01, "%s: rel err %g (abs %g, ref %g)", t->name, e.rel, e.max_abs, e.max_ref);
    }
    ez_trace_clear(&tr);
    ez_ftrace_clear(&ft);
    block_close(&b);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------------- */

START_TEST(test_range_errors)
{
    unsigned a = tens(&fx.p, "a", EZ_TENSOR_INPUT, 2, (uint64_t[]){4, 8}, 8, 16);
    unsigned b = tens(&fx.p, "b", EZ_TENSOR_WEIGHT, 2, (uint64_t[]){8, 4}, 8, 16);
    unsigned c = tens(&fx.p, "c", EZ_TENSOR_ACT, 2, (uint64_t[]){4, 4}, 8, 12);
    mkop(&fx.p, EZ_OP_EINSUM, "ij,jk->ik", (unsigned[]){a, b}, 2, c)->shift = 8;
    ez_diag d = {{0}};
    trace_ok(&fx.tr, &fx.p);
    int64_t big[32];
    for (int i = 0; i < 32; i++)
        big[i] = 32767;
    big[5] = 32768; /* outside 16 bits */
    ck_assert_int_eq(ez_trace_set(&fx.tr, a, big, 32, &d), EZ_ERR_NUMERIC);
    ck_assert_ptr_nonnull(strstr(d.msg, "a[0, 5]"));
    big[5] = 32767;
    ck_assert_int_eq(ez_trace_set(&fx.tr, a, big, 32, &d), EZ_OK);
    ck_assert_int_eq(ez_exec_run(&fx.p, &fx.tr, &d), EZ_ERR_INVALID); /* b not set */
    ck_assert_int_eq(ez_trace_set(&fx.tr, b, big, 32, &d), EZ_OK);
    /* 8 * 32767^2 / 2^8 = 3.4e7 does not fit 12 bits */
    ck_assert_int_eq(ez_exec_run(&fx.p, &fx.tr, &d), EZ_ERR_NUMERIC);
    ck_assert_ptr_nonnull(strstr(d.msg, "c[0, 0]"));
    ck_assert_ptr_nonnull(strstr(d.msg, "12-bit"));
    /* a malformed plan is refused before anything runs */
    fx.p.ops[0].in_axes[0][1] = 7;
    ck_assert_int_eq(ez_exec_run(&fx.p, &fx.tr, &d), EZ_ERR_INVALID);
}
END_TEST

Suite *ez_suite_exec(void)
{
    const TTest *tests[] = {test_matmul_packed, test_einsum_random, test_norms, test_unary_tables,
        test_rsqrt_table_exact, test_sign_table, test_table_tails, test_determinism_threads, test_floatref_block};
    Suite *s = ez_test_suite("exec", "core", 60, tests, sizeof tests / sizeof tests[0]);
    const TTest *plan[] = {test_rescale_negative_floor, test_einsum_batched_attention, test_layer_slice,
        test_add_broadcast, test_causal_and_gather, test_softmax_exact, test_softmax_vs_float, test_max_argmax_ties,
        test_range_errors};
    ez_tcase_add_fixture(s, "plan", 60, plan_setup, plan_teardown, plan, sizeof plan / sizeof plan[0]);
    return s;
}

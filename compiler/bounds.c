/* bounds — exact worst-case bounds with GMP (rules in bounds.h). */
#include "compiler/bounds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double ez_bounds_log2(const mpz_t b)
{
    if (mpz_cmp_ui(b, 1) <= 0)
        return 0;
    long e;
    double d = mpz_get_d_2exp(&e, b); /* b = d * 2^e, d in [0.5, 1) */
    return (double)e + log2(d);
}

/* "2^62" for an exact power of two, else "2^71.3". */
static void fmt_pow2(const mpz_t b, char *buf, size_t cap)
{
    if (mpz_sgn(b) > 0 && mpz_popcount(b) == 1)
        snprintf(buf, cap, "2^%zu", mpz_sizeinbase(b, 2) - 1);
    else
        snprintf(buf, cap, "2^%.1f", ez_bounds_log2(b));
}

/* r = min(r, 2^(bits-1)) */
static void clamp_width(mpz_t r, unsigned bits)
{
    mpz_t w;
    mpz_init(w);
    mpz_setbit(w, bits - 1);
    if (mpz_cmp(r, w) > 0)
        mpz_set(r, w);
    mpz_clear(w);
}

/* r = ceil(b * 2^(to - from)) + 1: a bound moved between scales with one unit of
 * rounding slack. */
static void move_scale(mpz_t r, const mpz_t b, unsigned from, unsigned to)
{
    if (to >= from)
        mpz_mul_2exp(r, b, to - from);
    else
        mpz_cdiv_q_2exp(r, b, from - to);
    mpz_add_ui(r, r, 1);
}

/* r = min(2^(bits-1), ceil(2^x) + 1) for a real exponent x. */
static void pow2_real(mpz_t r, double x, unsigned bits)
{
    if (!(x < (double)bits - 1)) {
        mpz_set_ui(r, 0);
        mpz_setbit(r, bits - 1);
        return;
    }
    if (x < 0)
        x = 0;
    mpz_set_d(r, ceil(exp2(x)));
    mpz_add_ui(r, r, 1);
    clamp_width(r, bits);
}

static void func_bound(const ez_stmt *st, ez_node *n)
{
    const ez_node *in = n->in[0];
    unsigned s = n->scale;
    uint64_t len = n->op == EZ_OP_CAUSAL || n->op == EZ_OP_UNARY ? 1 : st->idx[n->axis].size;
    mpz_set(n->raw_bound, in->bound);
    switch (n->op) {
    case EZ_OP_CAUSAL:
    case EZ_OP_MAX:
        mpz_set(n->bound, in->bound);
        return;
    case EZ_OP_ARGMAX:
        mpz_set_ui(n->bound, len - 1);
        mpz_set(n->raw_bound, in->bound);
        return;
    case EZ_OP_SOFTMAX: {
        /* p in [0, 2^s]. Inside (docs/semantics.md): exponentials e <= 2^16 (the exp
         * table's scale), their row sum <= len * 2^16, and e * 2^s before the division. */
        mpz_set_ui(n->bound, 0);
        mpz_setbit(n->bound, s);
        mpz_set_ui(n->raw_bound, len);
        mpz_mul_2exp(n->raw_bound, n->raw_bound, 16);
        mpz_t es;
        mpz_init(es);
        mpz_setbit(es, 16 + s);
        if (mpz_cmp(es, n->raw_bound) > 0)
            mpz_set(n->raw_bound, es);
        mpz_clear(es);
        return;
    }
    case EZ_OP_LAYERNORM:
    case EZ_OP_RMSNORM:
        /* |y_i| <= sqrt(len) for a normalised row. The largest intermediate is the sum
         * of squares of the (centred) row: at most len * B^2 for rmsnorm, and for
         * layernorm, centred on the floor of the mean, len * (B^2 + 1) (the floor moves
         * the centre by less than 1: sum (x - mu)^2 = sum (x - m)^2 + len (m - mu)^2
         * <= len * B^2 + len). The row sum len * B is smaller. */
        mpz_set_ui(n->bound, len);
        mpz_mul_2exp(n->bound, n->bound, 2 * s);
        mpz_sqrt(n->bound, n->bound);
        mpz_add_ui(n->bound, n->bound, 2);
        clamp_width(n->bound, n->bits);
        mpz_mul(n->raw_bound, in->bound, in->bound);
        if (n->op == EZ_OP_LAYERNORM)
            mpz_add_ui(n->raw_bound, n->raw_bound, 1);
        mpz_mul_ui(n->raw_bound, n->raw_bound, len);
        return;
    default:
        break;
    }
    switch (n->func) {
    case EZ_FN_RELU:
        mpz_set(n->bound, in->bound);
        return;
    case EZ_FN_GELU:
    case EZ_FN_GELU_TANH:
    case EZ_FN_SILU:
        /* |x * Phi(x)| and |x * sigma(x)| are at most |x|. */
        move_scale(n->bound, in->bound, in->scale, s);
        clamp_width(n->bound, n->bits);
        return;
    case EZ_FN_SIGMOID:
    case EZ_FN_TANH:
        mpz_set_ui(n->bound, 0);
        mpz_setbit(n->bound, s);
        clamp_width(n->bound, n->bits);
        return;
    case EZ_FN_EXP: {
        /* exp(X) with X = B / 2^s_in the largest input. */
        double X = exp2(ez_bounds_log2(in->bound) - (double)in->scale);
        pow2_real(n->bound, X * M_LOG2E + (double)s, n->bits);
        return;
    }
    case EZ_FN_RSQRT:
        /* The smallest positive input is 2^-s_in, so 1/sqrt is at most 2^(s_in/2). */
        pow2_real(n->bound, (double)in->scale / 2.0 + (double)s, n->bits);
        return;
    default:
        mpz_set_ui(n->bound, 0);
        mpz_setbit(n->bound, n->bits - 1);
        return;
    }
}

void ez_bounds_node(const ez_program *p, const ez_stmt *st, ez_node *n)
{
    switch (n->kind) {
    case EZ_NODE_REF:
        mpz_set(n->bound, p->tensors[n->tensor].bound);
        mpz_set(n->raw_bound, n->bound);
        return;
    case EZ_NODE_GATHER:
        mpz_set(n->bound, n->in[0]->bound);
        mpz_set(n->raw_bound, n->bound);
        return;
    case EZ_NODE_FUNC:
        func_bound(st, n);
        return;
    case EZ_NODE_PRODUCT:
        mpz_set_si(n->raw_bound, n->mul);
        mpz_abs(n->raw_bound, n->raw_bound);
        for (unsigned k = 0; k < n->nin; k++)
            mpz_mul(n->raw_bound, n->raw_bound, n->in[k]->bound);
        for (unsigned i = 0; i < n->nsum; i++)
            mpz_mul_ui(n->raw_bound, n->raw_bound, st->idx[n->sum[i]].size);
        break;
    case EZ_NODE_ADD:
        mpz_set_ui(n->raw_bound, 0);
        for (unsigned k = 0; k < n->nin; k++) {
            mpz_t t;
            mpz_init_set_si(t, n->coef[k]);
            mpz_abs(t, t);
            mpz_addmul(n->raw_bound, t, n->in[k]->bound);
            mpz_clear(t);
        }
        break;
    }
    if (n->shift > 0) {
        /* floor(v / 2^k) for |v| <= B lies in [-ceil(B / 2^k), floor(B / 2^k)], and the
         * rescaled value is range-checked to its width (DESIGN §3). */
        mpz_cdiv_q_2exp(n->bound, n->raw_bound, n->shift);
        clamp_width(n->bound, n->bits);
    } else {
        mpz_set(n->bound, n->raw_bound);
    }
}

typedef struct {
    const ez_node *worst;
    bool raw;                 /* the overflow is in the accumulator (before a rescale) */
} overflow;

static void walk(const ez_program *p, const ez_stmt *st, ez_node *n, const mpz_t limit, overflow *ov)
{
    for (unsigned k = 0; k < n->nin; k++)
        walk(p, st, n->in[k], limit, ov);
    ez_bounds_node(p, st, n);
    if (ov->worst == NULL && (mpz_cmp(n->raw_bound, limit) >= 0 || mpz_cmp(n->bound, limit) >= 0)) {
        ov->worst = n;
        ov->raw = mpz_cmp(n->raw_bound, limit) >= 0;
    }
    /* Keep going with a clamped value so that one overflow is reported once, not again
     * in every statement that depends on it. */
    if (mpz_cmp(n->bound, limit) >= 0) {
        mpz_sub_ui(n->bound, limit, 1);
    }
}

static void explain(const ez_program *p, const ez_stmt *st, const ez_node *n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    if (n->kind == EZ_NODE_FUNC && (n->op == EZ_OP_LAYERNORM || n->op == EZ_OP_RMSNORM)) {
        char b[32];
        fmt_pow2(n->in[0]->bound, b, sizeof b);
        snprintf(buf, cap, "its operand is up to %s, over rows of %llu (%s); an unchecked sum such as a residual "
                           "stream grows with every layer", b, (unsigned long long)st->idx[n->axis].size,
                 st->idx[n->axis].name);
        return;
    }
    if (n->kind == EZ_NODE_PRODUCT) {
        for (unsigned k = 0; k < n->nin && o < cap; k++) {
            char b[32];
            fmt_pow2(n->in[k]->bound, b, sizeof b);
            const ez_node *in = n->in[k];
            const char *nm = in->kind == EZ_NODE_REF ? p->tensors[in->tensor].source_name : "a subexpression";
            o += (size_t)snprintf(buf + o, cap - o, "%s%s up to %s", k ? ", " : "operands: ", nm, b);
        }
        if (n->nsum && o < cap) {
            o += (size_t)snprintf(buf + o, cap - o, "; summed over");
            for (unsigned i = 0; i < n->nsum && o < cap; i++)
                o += (size_t)snprintf(buf + o, cap - o, " %s (%llu)", st->idx[n->sum[i]].name,
                                      (unsigned long long)st->idx[n->sum[i]].size);
        }
    }
}

ez_status ez_bounds_compute(ez_program *p, ez_diag_list *diags)
{
    mpz_t limit;
    mpz_init(limit);
    mpz_setbit(limit, EZ_BOUND_LIMIT_BITS);
    for (size_t i = 0; i < p->ntensors; i++) {
        ez_tensor *t = &p->tensors[i];
        if (t->kind == EZ_TENSOR_INPUT || t->kind == EZ_TENSOR_WEIGHT) {
            mpz_set_ui(t->bound, 0);
            mpz_setbit(t->bound, t->bits - 1);
        } else if (t->kind == EZ_TENSOR_TOKENS) {
            mpz_set_si(t->bound, t->token_limit > 0 ? t->token_limit - 1 : 0);
        }
    }
    bool bad = false;
    bool *reported = p->nstmts ? calloc(p->nstmts, sizeof *reported) : NULL;
    if (p->nstmts && reported == NULL) {
        mpz_clear(limit);
        return EZ_ERR_NOMEM;
    }
    for (size_t s = 0; s < p->nstmts; s++) {
        ez_stmt *st = &p->stmts[s];
        overflow ov = {NULL, false};
        walk(p, st, st->root, limit, &ov);
        mpz_set(p->tensors[st->def].bound, st->root->bound);
        if (ov.worst == NULL)
            continue;
        bad = true;
        /* A loop body repeats its statements: report each source statement once. */
        bool seen = false;
        for (size_t r = 0; r < s && !seen; r++)
            seen = reported[r] && p->stmts[r].span.first_line == st->span.first_line
                   && p->stmts[r].span.first_column == st->span.first_column;
        if (seen)
            continue;
        reported[s] = true;
        const ez_node *n = ov.worst;
        char b[32], why[512];
        fmt_pow2(ov.raw ? n->raw_bound : n->bound, b, sizeof b);
        explain(p, st, n, why, sizeof why);
        const ez_tensor *t = &p->tensors[st->def];
        ez_diag_item *it;
        if (ov.raw && n->kind == EZ_NODE_FUNC)
            it = ez_diag_error(diags, n->span,
                               "the %s inside %s in the definition of '%s'%s%s can reach %s, beyond the field's "
                               "safe range 2^%d",
                               n->op == EZ_OP_SOFTMAX ? "row sum" : "sum of squares",
                               ez_op_kind_name(n->op), t->source_name, st->iter[0] ? " at " : "", st->iter, b,
                               EZ_BOUND_LIMIT_BITS);
        else if (ov.raw && n->shift > 0)
            it = ez_diag_error(diags, n->span,
                               "values in the definition of '%s'%s%s can reach %s before the rescale, beyond the "
                               "field's safe range 2^%d", t->source_name, st->iter[0] ? " at " : "", st->iter, b,
                               EZ_BOUND_LIMIT_BITS);
        else
            it = ez_diag_error(diags, n->span,
                               "values in the definition of '%s'%s%s can reach %s, beyond the field's safe range 2^%d",
                               t->source_name, st->iter[0] ? " at " : "", st->iter, b, EZ_BOUND_LIMIT_BITS);
        double excess = ceil(ez_bounds_log2(ov.raw ? n->raw_bound : n->bound) - EZ_BOUND_LIMIT_BITS + 1e-9);
        if (excess < 1)
            excess = 1;
        const char *bits_word = excess == 1 ? "bit" : "bits";
        if (n->kind == EZ_NODE_FUNC && (n->op == EZ_OP_LAYERNORM || n->op == EZ_OP_RMSNORM)) {
            double lim = (EZ_BOUND_LIMIT_BITS - log2((double)st->idx[n->axis].size)) / 2;
            ez_diag_help(diags, it, "%s; values entering the norm must stay below about 2^%.1f: lower the default "
                                    "width (e.g. bits 16) or narrow the weights (@bits(16))", why, lim);
        } else if (why[0])
            ez_diag_help(diags, it, "%s; remove at least %.0f %s: narrow the operands' widths (e.g. @bits(16) on a "
                                    "weight), or use a smaller scale (scale 8, or @scale(8))", why, excess, bits_word);
        else
            ez_diag_help(diags, it, "remove at least %.0f %s: narrow the input's width with @bits(N), or use a "
                                    "smaller scale", excess, bits_word);
    }
    mpz_clear(limit);
    free(reported);
    return bad ? EZ_ERR_SOURCE : EZ_OK;
}

/* bounds — exact worst-case bounds with GMP (rules in bounds.h). */
#include "compiler/bounds.h"

#include "compiler/builtins.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* "2^62" for an exact power of two, else "2^71.3". */
static void fmt_pow2(const mpz_t b, char *buf, size_t cap)
{
    if (mpz_sgn(b) > 0 && mpz_popcount(b) == 1)
        snprintf(buf, cap, "2^%zu", mpz_sizeinbase(b, 2) - 1);
    else
        snprintf(buf, cap, "2^%.1f", ez_bound_log2(b));
}

/* The node's operands' bounds and parameters in the form of a bound rule's arguments
 * (compiler/builtins.h): the rule is the same one the verifier re-runs on the plan. */
static void node_args(const ez_program *p, const ez_stmt *st, const ez_node *n, ez_bound_args *a)
{
    memset(a, 0, sizeof *a);
    a->nin = n->nin;
    for (unsigned k = 0; k < n->nin; k++) {
        a->in_bound[k] = n->in[k]->bound;
        a->in_scale[k] = n->in[k]->scale;
        a->coef[k] = n->coef[k];
    }
    a->out_scale = n->scale;
    a->out_bits = n->bits;
    a->func = n->func;
    a->mul = n->mul;
    a->shift = n->shift;
    a->summed = 1;
    for (unsigned i = 0; i < n->nsum; i++)
        a->summed *= st->idx[n->sum[i]].size;
    a->axis_len = 1;
    if (n->kind == EZ_NODE_FUNC && ez_builtin_of(n->op, n->func)->naxes == 1)
        a->axis_len = st->idx[n->axis].size;
    (void)p;
}

void ez_bounds_node(const ez_program *p, const ez_stmt *st, ez_node *n)
{
    ez_op_kind kind;
    ez_func func = EZ_FN_NONE;
    switch (n->kind) {
    case EZ_NODE_REF:
        mpz_set(n->bound, p->tensors[n->tensor].bound);
        mpz_set(n->raw_bound, n->bound);
        return;
    case EZ_NODE_GATHER: kind = EZ_OP_GATHER; break;
    case EZ_NODE_PRODUCT: kind = EZ_OP_EINSUM; break;
    case EZ_NODE_ADD: kind = EZ_OP_ADD; break;
    default: kind = n->op, func = n->func; break;
    }
    ez_bound_args a;
    node_args(p, st, n, &a);
    ez_builtin_of(kind, func)->bound(&a, n->raw_bound, n->bound);
    /* a rescaled value, or a sum beyond its width (a residual stream), is range-checked */
    n->range_checked = n->shift > 0 || (n->kind == EZ_NODE_ADD && ez_bound_exceeds_width(n->raw_bound, n->bits));
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
        double excess = ceil(ez_bound_log2(ov.raw ? n->raw_bound : n->bound) - EZ_BOUND_LIMIT_BITS + 1e-9);
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

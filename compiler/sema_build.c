/* sema_build — step 1 of checking a statement (sema.c): the right-hand side becomes a
 * pre-tree (ez_pn): constants folded, products and sums flattened, every tensor
 * reference resolved to its current version, every index occurrence registered with
 * the size of its axis. Contracts in sema_internal.h. */
#include "compiler/sema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements: building the pre-tree --------------------------------------------- */

static uint32_t pn_raw(const ez_pn *n)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < EZ_MAX_IDX; i++)
        if (n->cnt[i])
            m |= 1u << i;
    return m;
}

static void list_indices(const ez_sema_ctx *c, uint32_t set, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (set & (1u << i)) {
            int w = snprintf(buf + o, cap - o, "%s%s", o ? ", " : "", c->st->idx[i].name);
            if (w < 0 || (size_t)w >= cap - o)
                break;
            o += (size_t)w;
        }
    if (o == 0)
        snprintf(buf, cap, "none");
}

int ez_sema_idx_find(const ez_sema_ctx *c, const char *name)
{
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (strcmp(c->st->idx[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Register one use of index `name` on axis `axis` of tensor `tensor` (size size). */
static int idx_use(ez_sema_ctx *c, const char *name, ez_span sp, unsigned tensor, unsigned axis)
{
    ez_stmt *st = c->st;
    uint64_t size = c->p->tensors[tensor].dims[axis];
    char dd[64];
    ez_sema_dim_desc(c, tensor, axis, dd, sizeof dd);
    int i = ez_sema_idx_find(c, name);
    if (i < 0) {
        if (st->nidx >= EZ_MAX_IDX) {
            ez_diag_item *it =
                ez_sema_err(c, sp, "too many different indices in one statement (at most %d)", EZ_MAX_IDX);
            ez_diag_help(c->d, it, "split the statement in two");
            return -1;
        }
        if (!ez_sema_name_ok(c, name, sp))
            return -1;
        i = (int)st->nidx++;
        snprintf(st->idx[i].name, EZ_MAX_NAME, "%s", name);
        st->idx[i].size = size;
        st->idx[i].span = sp;
        snprintf(c->idx_desc[i], sizeof c->idx_desc[i], "axis %u of '%s' (size %s)", axis + 1,
                 c->p->tensors[tensor].source_name, dd);
        return i;
    }
    if (st->idx[i].size != size) {
        ez_diag_item *it = ez_sema_err(c, sp,
                                       "index '%s' ranges over %llu here (axis %u of '%s', size %s), but over %llu "
                                       "where it is first used",
                                       name, (unsigned long long)size, axis + 1, c->p->tensors[tensor].source_name, dd,
                                       (unsigned long long)st->idx[i].size);
        ez_diag_note(c->d, it, st->idx[i].span, "'%s' is first used here, on %s", name, c->idx_desc[i]);
        ez_diag_help(c->d, it, "an index has one range in a statement: use a different index name for an axis "
                               "of another size, or fix the declared shapes");
        return -1;
    }
    return i;
}

static bool is_plain_index_name(const ez_ast *e)
{
    return e->kind == EZ_AST_NAME;
}

/* One index item of a reference: an index name, a loop variable or constant position
 * (FIXED), or a gather tok[...] (only on axis 0, handled by the caller). */
static bool build_axis(ez_sema_ctx *c, const ez_ast *item, unsigned tensor, unsigned a, ez_axis *ax)
{
    const ez_tensor *t = &c->p->tensors[tensor];
    if (is_plain_index_name(item) && ez_sema_find_loop(c, item->name) < 0 && ez_sema_find_param(c, item->name) < 0) {
        int id = idx_use(c, item->name, item->span, tensor, a);
        if (id < 0)
            return false;
        ax->kind = EZ_AXIS_INDEX;
        ax->idx = (unsigned)id;
        return true;
    }
    if (is_plain_index_name(item) && ez_sema_find_param(c, item->name) >= 0) {
        ez_diag_item *it = ez_sema_err(c, item->span, "'%s' is a param, not an index", item->name);
        ez_diag_help(c->d, it, "use a lower-case index name such as '%c'; to select one position write "
                               "a constant such as %s - 1", (char)(item->name[0] | 0x20), item->name);
        return false;
    }
    if (item->kind == EZ_AST_REF) {
        ez_diag_item *it = ez_sema_err(
            c, item->span, "a token index like '%s[...]' may only be the first index of a table", item->name);
        ez_diag_help(c->d, it, "put the gathered axis first: weight table[V, D] used as table[%s[s], d]", item->name);
        return false;
    }
    if (!ez_sema_is_const_expr(c, item)) {
        ez_diag_item *it =
            ez_sema_err(c, item->span, "an index must be an index name, a loop variable or a constant position");
        ez_diag_help(c->d, it, "compute the value in a separate statement first");
        return false;
    }
    int64_t v;
    if (!ez_sema_const_int(c, item, "a position", &v))
        return false;
    if (v < 0 || (uint64_t)v >= t->dims[a]) {
        char dd[64];
        ez_sema_dim_desc(c, tensor, a, dd, sizeof dd);
        ez_diag_item *it = ez_sema_err(c, item->span, "position %lld is outside axis %u of '%s' (size %s)",
                                       (long long)v, a + 1, t->source_name, dd);
        ez_diag_help(c->d, it, "positions count from 0 to %llu", (unsigned long long)(t->dims[a] - 1));
        return false;
    }
    ax->kind = EZ_AXIS_FIXED;
    ax->pos = (uint64_t)v;
    return true;
}

static void report_undefined_tensor(ez_sema_ctx *c, const char *name, ez_span sp)
{
    if (ez_sema_find_poisoned(c, name) >= 0)
        return;
    const ez_sema_fwd *f = ez_sema_find_fwd(c, name, false);
    if (f && (f->span.first_line > sp.first_line
              || (f->span.first_line == sp.first_line && f->span.first_column > sp.first_column))) {
        ez_diag_item *it = ez_sema_err(c, sp, "'%s' is used before it is defined", name);
        ez_diag_note(c->d, it, f->span, "'%s' is defined here", name);
        ez_diag_help(c->d, it, "statements run in order: define '%s' above its first use", name);
        return;
    }
    if (f && c->cur_lhs && strcmp(c->cur_lhs, name) == 0) {
        ez_diag_item *it = ez_sema_err(c, sp, "'%s' is used in its own first definition", name);
        ez_diag_help(c->d, it, "a name may be redefined from its previous value (a residual update), but its "
                               "first definition cannot read it");
        return;
    }
    ez_diag_item *it = ez_sema_err(c, sp, "undefined tensor '%s'", name);
    const char *s = ez_sema_suggest_name(c, name, true, false);
    if (s)
        ez_diag_help(c->d, it, "did you mean '%s'?", s);
    else
        ez_diag_help(c->d, it, "declare it (input %s[...] or weight %s[...]) or define it before this statement",
                     name, name);
}

static ez_pn *build_ref(ez_sema_ctx *c, const ez_ast *e)
{
    const ez_ast *items = e->kids[0];
    if (ez_sema_find_param(c, e->name) >= 0 || ez_sema_find_loop(c, e->name) >= 0) {
        ez_sema_err(c, e->span, "'%s' is a %s, not a tensor", e->name,
                    ez_sema_find_param(c, e->name) >= 0 ? "param" : "loop variable");
        return NULL;
    }
    int t = ez_sema_find_tensor(c, e->name);
    if (t < 0 || ez_sema_find_poisoned(c, e->name) >= 0) {
        report_undefined_tensor(c, e->name, e->name_span);
        return NULL;
    }
    const ez_tensor *tt = &c->p->tensors[t];
    if (tt->kind == EZ_TENSOR_TOKENS) {
        ez_diag_item *it = ez_sema_err(c, e->span, "'%s' is a token input (integer ids) and cannot be used as a number",
                                       e->name);
        ez_diag_note(c->d, it, tt->span, "'%s' is declared here", e->name);
        ez_diag_help(c->d, it, "a token input can only index the first axis of a table, e.g. wte[%s[s], d]", e->name);
        return NULL;
    }
    if (items->nkids != tt->rank) {
        char shape[160] = "";
        size_t o = 0;
        for (unsigned a = 0; a < tt->rank && o < sizeof shape; a++) {
            char dd[64];
            ez_sema_dim_desc(c, (unsigned)t, a, dd, sizeof dd);
            o += (size_t)snprintf(shape + o, sizeof shape - o, "%s%s", a ? ", " : "",
                                  c->tx[t].dimtxt[a][0] ? c->tx[t].dimtxt[a] : dd);
        }
        ez_diag_item *it = ez_sema_err(c, e->span, "'%s' has %u ax%s but is used with %zu ind%s", e->name, tt->rank,
                                       tt->rank == 1 ? "is" : "es", items->nkids, items->nkids == 1 ? "ex" : "ices");
        ez_diag_note(c->d, it, tt->span, "'%s' is %s here with shape [%s]",
                     e->name, tt->kind == EZ_TENSOR_ACT ? "defined" : "declared", shape);
        ez_diag_help(c->d, it, "write one index per axis, e.g. %s[%s]", e->name,
                     tt->rank == 0 ? "" : tt->rank == 1 ? "i" : tt->rank == 2 ? "i, j" : tt->rank == 3 ? "i, j, k"
                                                                                                      : "i, j, k, ...");
        return NULL;
    }
    ez_pn *n = ez_sema_pn_new(c, EZ_PN_REF, e->span);
    if (n == NULL)
        return NULL;
    n->tensor = (unsigned)t;
    n->rank = tt->rank;
    bool ok = true;
    for (unsigned a = 0; a < tt->rank; a++) {
        const ez_ast *item = items->kids[a];
        if (a == 0 && item->kind == EZ_AST_REF) {
            /* gather: table[tok[...], ...] */
            int k = ez_sema_find_tensor(c, item->name);
            if (k < 0 || ez_sema_find_poisoned(c, item->name) >= 0) {
                report_undefined_tensor(c, item->name, item->name_span);
                ok = false;
                continue;
            }
            const ez_tensor *kt = &c->p->tensors[k];
            if (kt->kind != EZ_TENSOR_TOKENS) {
                ez_diag_item *it = ez_sema_err(
                    c, item->span, "'%s' holds numbers, not token ids, so it cannot index '%s'", item->name, e->name);
                ez_diag_note(c->d, it, kt->span, "'%s' is %s here", item->name,
                              kt->kind == EZ_TENSOR_ACT ? "defined" : "declared");
                ez_diag_help(c->d, it, "gather needs a public integer input: input %s[...] : token", item->name);
                ok = false;
                continue;
            }
            if (item->kids[0]->nkids != kt->rank) {
                ez_sema_err(c, item->span, "'%s' has %u ax%s but is used with %zu ind%s", item->name, kt->rank,
                            kt->rank == 1 ? "is" : "es", item->kids[0]->nkids,
                            item->kids[0]->nkids == 1 ? "ex" : "ices");
                ok = false;
                continue;
            }
            n->kind = EZ_PN_GATHER;
            n->tok = (unsigned)k;
            n->tok_rank = kt->rank;
            for (unsigned b = 0; b < kt->rank; b++) {
                const ez_ast *ti = item->kids[0]->kids[b];
                if (ti->kind == EZ_AST_REF) {
                    ez_sema_err(c, ti->span, "a token index cannot itself be gathered");
                    ok = false;
                    continue;
                }
                if (!build_axis(c, ti, (unsigned)k, b, &n->tok_axes[b]))
                    ok = false;
                else if (n->tok_axes[b].kind == EZ_AXIS_INDEX)
                    n->cnt[n->tok_axes[b].idx]++;
            }
            n->axes[0].kind = EZ_AXIS_GATHER;
            /* The vocabulary is the table's first axis: ids must be below it. */
            ez_tensor *kw = &c->p->tensors[k];
            if (kw->token_limit == 0 || (uint64_t)kw->token_limit > tt->dims[0])
                kw->token_limit = (int64_t)tt->dims[0];
            continue;
        }
        if (!build_axis(c, item, (unsigned)t, a, &n->axes[a])) {
            ok = false;
            continue;
        }
        if (n->axes[a].kind == EZ_AXIS_INDEX) {
            unsigned id = n->axes[a].idx;
            if (n->cnt[id]) {
                ez_diag_item *it = ez_sema_err(c, item->span, "index '%s' appears twice in one reference to '%s'",
                                               item->name, e->name);
                ez_diag_help(c->d, it, "diagonals are not supported; use two index names");
                ok = false;
            }
            n->cnt[id]++;
        }
    }
    return ok ? n : NULL;
}

static ez_pn *build_call(ez_sema_ctx *c, const ez_ast *e)
{
    const ez_builtin *b = ez_builtin_by_name(e->name);
    if (b == NULL) {
        ez_diag_item *it;
        if (strcmp(e->name, "sqrt") == 0) {
            it = ez_sema_err(c, e->name_span, "sqrt applies only to constants");
            ez_diag_help(c->d, it, "for a tensor use rsqrt(x) (1/sqrt), or a norm: layernorm[i](x), rmsnorm[i](x)");
            return NULL;
        }
        if (ez_sema_find_tensor(c, e->name) >= 0) {
            it = ez_sema_err(c, e->name_span, "'%s' is a tensor, not a function", e->name);
            ez_diag_help(c->d, it, "index a tensor with square brackets: %s[i, j]", e->name);
            return NULL;
        }
        it = ez_sema_err(c, e->name_span, "unknown function '%s'", e->name);
        static const struct {
            const char *name, *help;
        } hints[] = {
            {"sum", "summation is implicit: an index on the right that is not on the left is summed, "
                    "e.g. y[s] = x[s, d]"},
            {"mean", "sum by leaving the index out of the left side and divide by its size: y[s] = x[s, d] / D"},
            {"matmul", "write the product with a shared index: y[s, n] = x[s, d] * w[d, n]"},
            {"dot", "write the product with a shared index: y[s, n] = x[s, d] * w[d, n]"},
            {"einsum", "every statement is an einsum: y[s, n] = x[s, d] * w[d, n]"},
            {"transpose", "indices are matched by name, so a transpose is y[n, s] = x[s, n]"},
            {"reshape", "declare weights in split form instead, e.g. weight wq[D, H, E]"},
            {"concat", "declare weights in split form (wq[D, H, E]) and contract over both axes: "
                       "y[s, n] = c[s, h, e] * wo[h, e, n]"},
            {"swish", "swish is silu: silu(x[i])"},
            {"mask", "the causal mask is causal[i, j](e)"},
        };
        for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++)
            if (strcmp(hints[h].name, e->name) == 0) {
                ez_diag_help(c->d, it, "%s", hints[h].help);
                return NULL;
            }
        ez_suggest s;
        ez_suggest_init(&s, e->name);
        size_t nb;
        const ez_builtin *tab = ez_builtin_table(&nb);
        for (size_t i = 0; i < nb; i++)
            if (tab[i].name)
                ez_suggest_try(&s, tab[i].name);
        if (s.best)
            ez_diag_help(c->d, it, "did you mean '%s'?", s.best);
        else
            ez_diag_help(c->d, it, "the functions are %s", ez_builtin_list());
        return NULL;
    }
    const ez_ast *args = e->kids[0];
    const ez_ast *axes = e->nkids > 1 ? e->kids[1] : NULL;
    if (args->nkids != 1) {
        ez_diag_item *it = ez_sema_err(c, e->span, "%s takes one argument, but %zu are given", e->name, args->nkids);
        ez_diag_help(c->d, it, "combine tensors inside the argument, e.g. %s(a[i] + b[i])", e->name);
        return NULL;
    }
    size_t nax = axes ? axes->nkids : 0;
    if (b->naxes == 0 && axes) {
        ez_diag_item *it = ez_sema_err(c, axes->span, "%s is elementwise and takes no axis", e->name);
        ez_diag_help(c->d, it, "write %s(x[i, j])", e->name);
        return NULL;
    }
    if (b->naxes > 0 && nax != b->naxes) {
        ez_diag_item *it = ez_sema_err(c, axes ? axes->span : e->span, "%s needs %s axis argument%s, but %zu %s given",
                                       e->name, b->naxes == 1 ? "one" : "two", b->naxes == 1 ? "" : "s", nax,
                               nax == 1 ? "is" : "are");
        if (b->kind == EZ_OP_ROPE)
            ez_diag_help(c->d, it, "write rope[s, e](x[..., s, ..., e]): positions s rotate the pairs (e, e + E/2)");
        else if (b->naxes == 2)
            ez_diag_help(c->d, it, "write causal[i, j](x[..., i, ..., j]): entries with j > i are masked");
        else
            ez_diag_help(c->d, it, "name the index it works along: %s[t](a[s, t])", e->name);
        return NULL;
    }
    ez_pn *arg = ez_sema_build(c, args->kids[0]);
    if (arg == NULL)
        return NULL;
    if (arg->kind == EZ_PN_CONST) {
        ez_sema_err(c, args->kids[0]->span, "the argument of %s is a constant; it must involve a tensor", e->name);
        return NULL;
    }
    ez_pn *n = ez_sema_pn_new(c, EZ_PN_CALL, e->span);
    if (n == NULL)
        return NULL;
    n->bi = b;
    n->fname = b->name;
    n->nk = 1;
    n->k[0] = arg;
    n->naxes = (unsigned)nax;
    memcpy(n->cnt, arg->cnt, sizeof n->cnt);
    uint32_t raw = pn_raw(arg);
    bool ok = true;
    for (size_t a = 0; a < nax; a++) {
        const ez_ast *ax = axes->kids[a];
        int id = ax->kind == EZ_AST_NAME ? ez_sema_idx_find(c, ax->name) : -1;
        if (ax->kind != EZ_AST_NAME || ez_sema_find_loop(c, ax->name) >= 0 || ez_sema_find_param(c, ax->name) >= 0) {
            ez_diag_item *it = ez_sema_err(c, ax->span, "the axis argument of %s must be an index name", e->name);
            ez_diag_help(c->d, it, "e.g. %s[t](a[s, t]) works along t", e->name);
            ok = false;
            continue;
        }
        if (id < 0 || !(raw & (1u << id))) {
            char have[160];
            list_indices(c, raw, have, sizeof have);
            ez_diag_item *it =
                ez_sema_err(c, ax->span, "axis '%s' of %s is not an index of its operand", ax->name, e->name);
            ez_diag_help(c->d, it, "the operand has indices %s", have);
            ok = false;
            continue;
        }
        if (a == 1 && (unsigned)id == n->axis[0]) {
            ez_diag_item *it = ez_sema_err(c, ax->span, "causal needs two different indices");
            ez_diag_help(c->d, it, "causal[s, t](a[h, s, t]) masks the entries with t > s");
            ok = false;
            continue;
        }
        n->axis[a] = (unsigned)id;
        n->cnt[id]++;
    }
    return ok ? n : NULL;
}

static ez_pn *make_const(ez_sema_ctx *c, double v, ez_span sp)
{
    ez_pn *n = ez_sema_pn_new(c, EZ_PN_CONST, sp);
    if (n)
        n->c = v;
    return n;
}

/* A product node holding x (flattened if x is itself a product). */
static ez_pn *as_prod(ez_sema_ctx *c, ez_pn *x)
{
    if (x->kind == EZ_PN_PROD)
        return x;
    ez_pn *n = ez_sema_pn_new(c, EZ_PN_PROD, x->span);
    if (n == NULL)
        return NULL;
    n->c = 1;
    n->nk = 1;
    n->k[0] = x;
    memcpy(n->cnt, x->cnt, sizeof n->cnt);
    return n;
}

static ez_pn *scale_by(ez_sema_ctx *c, ez_pn *x, double f, ez_span sp)
{
    if (x->kind == EZ_PN_SUM && f == -1) {
        for (unsigned i = 0; i < x->nk; i++)
            x->sign[i] = -x->sign[i];
        x->span = sp;
        return x;
    }
    ez_pn *n = as_prod(c, x);
    if (n == NULL)
        return NULL;
    n->c *= f;
    n->span = sp;
    return n;
}

static void add_cnt(ez_pn *dst, const ez_pn *src)
{
    for (unsigned i = 0; i < EZ_MAX_IDX; i++)
        dst->cnt[i] = (uint16_t)(dst->cnt[i] + src->cnt[i]);
}

ez_pn *ez_sema_build(ez_sema_ctx *c, const ez_ast *e)
{
    if (ez_sema_is_const_expr(c, e)) {
        ez_sema_cval v;
        if (!ez_sema_const_eval(c, e, &v, "a constant"))
            return NULL;
        return make_const(c, v.v, e->span);
    }
    switch (e->kind) {
    case EZ_AST_NAME: {
        int t = ez_sema_find_tensor(c, e->name);
        const ez_tensor *tt = &c->p->tensors[t];
        if (tt->rank != 0) {
            ez_diag_item *it = ez_sema_err(c, e->span, "'%s' has %u ax%s; write its indices", e->name, tt->rank,
                                           tt->rank == 1 ? "is" : "es");
            ez_diag_help(c->d, it, "e.g. %s[%s]", e->name, tt->rank == 1 ? "i" : tt->rank == 2 ? "i, j" : "i, j, k");
            return NULL;
        }
        if (tt->kind == EZ_TENSOR_TOKENS) {
            ez_sema_err(c, e->span, "'%s' is a token input and cannot be used as a number", e->name);
            return NULL;
        }
        ez_pn *n = ez_sema_pn_new(c, EZ_PN_REF, e->span);
        if (n)
            n->tensor = (unsigned)t;
        return n;
    }
    case EZ_AST_REF:
        return build_ref(c, e);
    case EZ_AST_CALL:
        return build_call(c, e);
    case EZ_AST_PAREN: {
        ez_pn *n = ez_sema_build(c, e->kids[0]);
        if (n && n->kind != EZ_PN_PROD)
            n->span = e->span;
        return n;
    }
    case EZ_AST_NEG: {
        ez_pn *x = ez_sema_build(c, e->kids[0]);
        return x ? scale_by(c, x, -1, e->span) : NULL;
    }
    case EZ_AST_BINOP: {
        ez_pn *a = ez_sema_build(c, e->kids[0]);
        ez_pn *b = ez_sema_build(c, e->kids[1]);
        if (a == NULL || b == NULL)
            return NULL;
        if (e->op == '/') {
            if (b->kind != EZ_PN_CONST) {
                ez_diag_item *it = ez_sema_err(c, e->kids[1]->span, "division by a tensor is not supported");
                ez_diag_help(c->d, it, "divide only by a constant (a[i] / 8); to normalise use softmax, layernorm "
                                       "or rmsnorm, or multiply by rsqrt(...)");
                return NULL;
            }
            if (b->c == 0) {
                ez_sema_err(c, e->kids[1]->span, "division by zero");
                return NULL;
            }
            return scale_by(c, a, 1.0 / b->c, e->span);
        }
        if (e->op == '*') {
            if (a->kind == EZ_PN_CONST)
                return scale_by(c, b, a->c, e->span);
            if (b->kind == EZ_PN_CONST)
                return scale_by(c, a, b->c, e->span);
            ez_pn *pa = as_prod(c, a), *pb = as_prod(c, b);
            if (pa == NULL || pb == NULL)
                return NULL;
            if (pa->nk + pb->nk > EZ_MAX_OPERANDS) {
                ez_diag_item *it = ez_sema_err(c, e->span, "a product of more than %d tensors", EZ_MAX_OPERANDS);
                ez_diag_help(c->d, it, "split it over two statements");
                return NULL;
            }
            ez_pn *n = pa;
            for (unsigned i = 0; i < pb->nk; i++)
                n->k[n->nk++] = pb->k[i];
            n->c *= pb->c;
            add_cnt(n, pb);
            n->span = e->span;
            return n;
        }
        /* + and - */
        if (a->kind == EZ_PN_CONST || b->kind == EZ_PN_CONST) {
            ez_diag_item *it = ez_sema_err(c, (a->kind == EZ_PN_CONST ? a : b)->span,
                                           "a constant cannot be added to a tensor");
            ez_diag_help(c->d, it, "definitions have no constant term; add a bias tensor instead (+ b[n]) or "
                                   "fold the constant into a weight");
            return NULL;
        }
        ez_pn *n = a;
        if (a->kind != EZ_PN_SUM) {
            n = ez_sema_pn_new(c, EZ_PN_SUM, e->span);
            if (n == NULL)
                return NULL;
            n->nk = 1;
            n->k[0] = a;
            n->sign[0] = 1;
            memcpy(n->cnt, a->cnt, sizeof n->cnt);
        }
        int sg = e->op == '-' ? -1 : 1;
        ez_pn *terms[EZ_MAX_OPERANDS];
        int signs[EZ_MAX_OPERANDS];
        unsigned nt = 0;
        if (b->kind == EZ_PN_SUM) {
            for (unsigned i = 0; i < b->nk && nt < EZ_MAX_OPERANDS; i++) {
                terms[nt] = b->k[i];
                signs[nt++] = sg * b->sign[i];
            }
        } else {
            terms[nt] = b;
            signs[nt++] = sg;
        }
        if (n->nk + nt > EZ_MAX_OPERANDS) {
            ez_diag_item *it = ez_sema_err(c, e->span, "a sum of more than %d terms", EZ_MAX_OPERANDS);
            ez_diag_help(c->d, it, "split it over two statements");
            return NULL;
        }
        for (unsigned i = 0; i < nt; i++) {
            n->k[n->nk] = terms[i];
            n->sign[n->nk++] = signs[i];
        }
        add_cnt(n, b);
        n->span = e->span;
        return n;
    }
    default:
        ez_sema_err(c, e->span, "this is not an expression");
        return NULL;
    }
}

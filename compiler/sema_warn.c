/* sema_warn — warnings on a program that checked without errors (contract in
 * sema_internal.h): what is legal but almost certainly not meant. Each is reported once
 * per source line, in source order:
 *   - a weight or input no statement reads (setup still commits the weight; the input is
 *     still part of every proof's statement);
 *   - a statement whose every unrolled copy defines a tensor nothing reads and that is
 *     not an output (a copy whose value the next loop iteration reads is used);
 *   - a softmax whose axis is summed right after it, with no other factor carrying that
 *     index: every row of a softmax sums to one, so the result is constant in its operand. */
#include "compiler/sema_internal.h"

#include <stdlib.h>
#include <string.h>

enum { W_UNUSED_DECL, W_DEAD, W_OVERWRITTEN, W_SOFTMAX_SUM };

typedef struct {
    ez_span sp;
    int kind;
    unsigned tensor; /* W_UNUSED_DECL, W_DEAD, W_OVERWRITTEN */
    const ez_stmt *st; /* W_SOFTMAX_SUM: the statement and its softmax node */
    const ez_node *n;
} warn;

typedef struct {
    warn *w;
    size_t n, cap;
    bool nomem;
} warns;

static void add(warns *ws, warn w)
{
    warn *room = ez_array_room(ws->w, ws->n, &ws->cap, sizeof *room, 16);
    if (room == NULL) {
        ws->nomem = true;
        return;
    }
    ws->w = room;
    ws->w[ws->n++] = w;
}

static int span_cmp(ez_span a, ez_span b)
{
    if (a.first_line != b.first_line)
        return a.first_line < b.first_line ? -1 : 1;
    if (a.first_column != b.first_column)
        return a.first_column < b.first_column ? -1 : 1;
    return 0;
}

static int warn_cmp(const void *a, const void *b)
{
    const warn *x = a, *y = b;
    int c = span_cmp(x->sp, y->sp);
    return c ? c : x->kind - y->kind;
}

/* Mark every tensor n's subtree reads; collect softmaxes summed over their own axis. */
static void walk(const ez_stmt *st, const ez_node *n, bool *read, warns *ws)
{
    if (n->kind == EZ_NODE_REF) {
        read[n->tensor] = true;
        return;
    }
    for (unsigned k = 0; k < n->nin; k++)
        walk(st, n->in[k], read, ws);
    if (n->kind != EZ_NODE_PRODUCT)
        return;
    for (unsigned k = 0; k < n->nin; k++) {
        const ez_node *x = n->in[k];
        if (x->kind != EZ_NODE_FUNC || x->op != EZ_OP_SOFTMAX)
            continue;
        bool summed = false, elsewhere = false;
        for (unsigned i = 0; i < n->nsum; i++)
            summed = summed || n->sum[i] == x->axis;
        for (unsigned j = 0; j < n->nin; j++)
            elsewhere = elsewhere || (j != k && (ez_sema_node_outset(n->in[j]) >> x->axis & 1));
        if (summed && !elsewhere)
            add(ws, (warn){x->span, W_SOFTMAX_SUM, 0, st, x});
    }
}

/* A statement by its left side's span (the unrolled copies of one line share it). */
typedef struct {
    ez_span sp;
    size_t stmt;
} def_at;

static int def_cmp(const void *a, const void *b)
{
    const def_at *x = a, *y = b;
    int c = span_cmp(x->sp, y->sp);
    return c ? c : (x->stmt < y->stmt ? -1 : 1);
}

/* A later version of tensor t's name exists (it was overwritten). */
static bool overwritten(const ez_program *p, unsigned t)
{
    for (size_t i = t + 1; i < p->ntensors; i++)
        if (!strcmp(p->tensors[i].source_name, p->tensors[t].source_name))
            return true;
    return false;
}

static void dead_statements(const ez_program *p, const bool *read, warns *ws)
{
    def_at *ord = ez_alloc_array(p->nstmts ? p->nstmts : 1, sizeof *ord);
    if (ord == NULL) {
        ws->nomem = true;
        return;
    }
    for (size_t i = 0; i < p->nstmts; i++)
        ord[i] = (def_at){p->tensors[p->stmts[i].def].span, i};
    qsort(ord, p->nstmts, sizeof *ord, def_cmp);
    for (size_t a = 0, b; a < p->nstmts; a = b) {
        bool live = false;
        for (b = a; b < p->nstmts && !span_cmp(ord[b].sp, ord[a].sp); b++) {
            unsigned t = p->stmts[ord[b].stmt].def;
            live = live || read[t] || p->tensors[t].is_output;
        }
        unsigned t = p->stmts[ord[b - 1].stmt].def; /* the last copy */
        if (!live)
            add(ws, (warn){ord[a].sp, overwritten(p, t) ? W_OVERWRITTEN : W_DEAD, t, NULL, NULL});
    }
    free(ord);
}

static void emit(ez_sema_ctx *c, const warn *w)
{
    const ez_tensor *t = &c->p->tensors[w->tensor];
    ez_diag_item *it;
    switch (w->kind) {
    case W_UNUSED_DECL:
        it = ez_diag_warning(c->d, w->sp, "%s '%s' is never used", t->kind == EZ_TENSOR_WEIGHT ? "weight" : "input",
                             t->source_name);
        ez_diag_help(c->d, it, "remove it, or use it in a statement");
        break;
    case W_DEAD:
        it = ez_diag_warning(c->d, w->sp, "'%s' is computed but never used", t->source_name);
        ez_diag_help(c->d, it, "no later statement reads it and it is not an output; remove it or add 'output %s'",
                     t->source_name);
        break;
    case W_OVERWRITTEN:
        it = ez_diag_warning(c->d, w->sp, "this value of '%s' is never used: a later definition replaces it",
                             t->source_name);
        ez_diag_help(c->d, it, "remove this statement, or read '%s' before defining it again", t->source_name);
        break;
    case W_SOFTMAX_SUM: {
        const char *j = w->st->idx[w->n->axis].name;
        it = ez_diag_warning(c->d, w->sp, "softmax over '%s' is summed over '%s' right away: each row sums to 1",
                             j, j);
        ez_diag_help(c->d, it, "keep '%s' on the left side, or contract it with another tensor: softmax[%s](...) * "
                               "v[%s, d]", j, j, j);
        break;
    }
    }
}

void ez_sema_warnings(ez_sema_ctx *c)
{
    const ez_program *p = c->p;
    warns ws = {0};
    bool *read = calloc(p->ntensors ? p->ntensors : 1, sizeof *read);
    if (read == NULL) {
        c->nomem = true;
        return;
    }
    for (size_t i = 0; i < p->nstmts; i++)
        walk(&p->stmts[i], p->stmts[i].root, read, &ws);
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_tensor *t = &p->tensors[i];
        if (t->kind != EZ_TENSOR_ACT && !read[i])
            add(&ws, (warn){t->span, W_UNUSED_DECL, (unsigned)i, NULL, NULL});
    }
    dead_statements(p, read, &ws);
    /* one warning per line and kind (a loop's softmax is found in every copy) */
    if (ws.n > 0) /* qsort's base may not be NULL, even for no elements */
        qsort(ws.w, ws.n, sizeof *ws.w, warn_cmp);
    for (size_t i = 0; i < ws.n && !ws.nomem; i++)
        if (i == 0 || span_cmp(ws.w[i].sp, ws.w[i - 1].sp) || ws.w[i].kind != ws.w[i - 1].kind)
            emit(c, &ws.w[i]);
    c->nomem = c->nomem || ws.nomem || c->d->nomem;
    free(ws.w);
    free(read);
}

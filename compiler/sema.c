/* sema — the front end's checker: name resolution, params, loop unrolling, index
 * ranges, the summation rules, scales and the construction of the checked program
 * (contract in sema.h; the language in docs/language.md). This file holds the entry
 * points and the node dump; the work is split by job (sema_internal.h lists the files).
 *
 * A statement is checked in three steps:
 *   1. build (sema_build.c): the right-hand side becomes a small pre-tree (`ez_pn`):
 *      constants folded, products and sums flattened, every tensor reference resolved
 *      to its current version, every index occurrence registered with the size of its
 *      axis;
 *   2. reduce (sema_reduce.c): each index not on the left is summed at the smallest
 *      subexpression that contains all of its occurrences (the left side and a
 *      function's axis argument count as occurrences outside the function's operand; a
 *      sum distributes the summation over its terms), which yields docs/language.md's rule for
 *      function arguments; products of three or more factors are split pairwise in the
 *      cheapest order;
 *   3. scales (sema_reduce.c): every node gets its scale, rescale shift and integer
 *      multiplier.
 * Bounds are computed afterwards over the whole program (compiler/bounds.c). */
#include "compiler/sema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/bounds.h"

/* ---- entry points ------------------------------------------------------------------ */

void ez_program_free(ez_program *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nnodes; i++) {
        mpz_clear(p->nodes[i]->bound);
        mpz_clear(p->nodes[i]->raw_bound);
        free(p->nodes[i]);
    }
    free(p->nodes);
    for (size_t i = 0; i < p->ntensors; i++)
        mpz_clear(p->tensors[i].bound);
    free(p->tensors);
    free(p->stmts);
    free(p->params);
    free(p->outputs);
    free(p);
}

ez_status ez_sema_check(const ez_ast *ast, const ez_define *defs, size_t ndefs, ez_diag_list *diags,
                        ez_program **out)
{
    ez_front_opts o = {defs, ndefs, -1, -1};
    return ez_sema_check_opts(ast, &o, diags, out);
}

ez_status ez_sema_check_opts(const ez_ast *ast, const ez_front_opts *o, ez_diag_list *diags, ez_program **out)
{
    ez_status st = EZ_OK;
    ez_sema_ctx c;
    const ez_define *defs = o->defs;
    size_t ndefs = o->ndefs;
    memset(&c, 0, sizeof c);
    *out = NULL;
    c.d = diags;
    c.defs = defs;
    c.ndefs = ndefs;
    c.p = calloc(1, sizeof *c.p);
    c.def_used = ndefs ? calloc(ndefs, sizeof *c.def_used) : NULL;
    if (c.p == NULL || (ndefs && c.def_used == NULL)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    c.p->default_scale = 12;
    c.p->default_bits = 24;
    ez_sema_overrides(&c, o->scale, o->bits);
    ez_sema_prescan(&c, ast);
    ez_sema_block(&c, ast, true);
    if (!c.nomem)
        ez_sema_finish(&c);
    if (c.nomem) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if (ez_diag_any(diags)) {
        st = EZ_ERR_SOURCE;
        goto out;
    }
    st = ez_bounds_compute(c.p, diags);
    if (st != EZ_OK)
        goto out;
    ez_sema_warnings(&c);
    if (c.nomem) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    *out = c.p;
    c.p = NULL;
out:
    ez_program_free(c.p);
    ez_sema_pn_free_all(&c);
    free(c.arena);
    free(c.tx);
    free(c.outs);
    free(c.fwd);
    free(c.poisoned);
    free(c.latest);
    free(c.def_used);
    return st;
}

ez_status ez_compile_front(const char *path, const char *src, size_t len, const ez_define *defs,
                           size_t ndefs, ez_diag_list *diags, ez_program **out)
{
    ez_front_opts o = {defs, ndefs, -1, -1};
    return ez_compile_front_opts(path, src, len, &o, diags, out);
}

ez_status ez_compile_front_opts(const char *path, const char *src, size_t len, const ez_front_opts *o,
                                ez_diag_list *diags, ez_program **out)
{
    ez_ast *ast = NULL;
    *out = NULL;
    ez_diag_list_init(diags, path, src, len);
    ez_status st = ez_parse(&ast, src, len, diags);
    if (st != EZ_OK)
        return st;
    if (ast == NULL || ez_diag_any(diags)) {
        /* Syntax errors: still report -D names and nothing else (names in a partial
         * tree would produce follow-on errors). */
        ez_ast_free(ast);
        return ez_diag_any(diags) ? EZ_ERR_SOURCE : EZ_ERR_INTERNAL;
    }
    st = ez_sema_check_opts(ast, o, diags, out);
    ez_ast_free(ast);
    return st;
}

int ez_program_find(const ez_program *p, const char *name)
{
    for (size_t i = p->ntensors; i-- > 0;)
        if (strcmp(p->tensors[i].source_name, name) == 0 || strcmp(p->tensors[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- dumps ------------------------------------------------------------------------- */

static void dump_idx(ez_writer *b, const ez_stmt *s, const unsigned *ids, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        ez_writer_printf(b, "%s%s", i ? "," : "", s->idx[ids[i]].name);
}

static void dump_node(ez_writer *b, const ez_program *p, const ez_stmt *s, const ez_node *n)
{
    switch (n->kind) {
    case EZ_NODE_REF:
        ez_writer_printf(b, "%s[", p->tensors[n->tensor].name);
        for (unsigned a = 0; a < n->rank; a++) {
            if (a)
                ez_writer_printf(b, ",");
            if (n->axes[a].kind == EZ_AXIS_INDEX)
                ez_writer_printf(b, "%s", s->idx[n->axes[a].idx].name);
            else if (n->axes[a].kind == EZ_AXIS_FIXED)
                ez_writer_printf(b, "%llu", (unsigned long long)n->axes[a].pos);
            else
                ez_writer_printf(b, "*");
        }
        ez_writer_printf(b, "]");
        return;
    case EZ_NODE_GATHER:
        ez_writer_printf(b, "gather(");
        dump_node(b, p, s, n->in[0]);
        ez_writer_printf(b, ", ");
        dump_node(b, p, s, n->in[1]);
        ez_writer_printf(b, ")");
        return;
    case EZ_NODE_PRODUCT:
        ez_writer_printf(b, "%s[", n->split_tmp ? "product~" : "product");
        dump_idx(b, s, n->out, n->nout);
        ez_writer_printf(b, "|");
        dump_idx(b, s, n->sum, n->nsum);
        ez_writer_printf(b, "](");
        break;
    case EZ_NODE_ADD:
        ez_writer_printf(b, "add[");
        dump_idx(b, s, n->out, n->nout);
        ez_writer_printf(b, "](");
        break;
    case EZ_NODE_FUNC: {
        const ez_builtin *bi = ez_builtin_of(n->op, n->func);
        ez_writer_printf(b, "%s[", bi->name);
        dump_idx(b, s, n->out, n->nout);
        if (bi->naxes == 2)
            ez_writer_printf(b, "|%s,%s", s->idx[n->mask_row].name, s->idx[n->mask_col].name);
        else if (bi->naxes == 1)
            ez_writer_printf(b, "|%s", s->idx[n->axis].name);
        ez_writer_printf(b, "](");
        break;
    }
    }
    for (unsigned k = 0; k < n->nin; k++) {
        if (k)
            ez_writer_printf(b, ", ");
        if (n->kind == EZ_NODE_ADD && n->coef[k] != 1)
            ez_writer_printf(b, "%lld*", (long long)n->coef[k]);
        dump_node(b, p, s, n->in[k]);
    }
    ez_writer_printf(b, ")");
    if (n->kind == EZ_NODE_PRODUCT && n->mul != 1)
        ez_writer_printf(b, "*%lld", (long long)n->mul);
    if ((n->kind == EZ_NODE_PRODUCT || n->kind == EZ_NODE_ADD) && n->shift)
        ez_writer_printf(b, ">>%u", n->shift);
}

char *ez_node_dump(const ez_program *p, const ez_stmt *s, const ez_node *n)
{
    ez_writer b;
    ez_writer_init(&b);
    dump_node(&b, p, s, n);
    return ez_writer_take_text(&b);
}

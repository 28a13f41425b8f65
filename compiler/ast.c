/* ast — syntax tree nodes and the builders the grammar actions call (see ast.h). */
#include "compiler/ast.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ez_ast_free(ez_ast *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        ez_ast_free(n->kids[i]);
    free(n->kids);
    free(n->name);
    free(n->text);
    free(n);
}

static ez_ast *alloc_node(ez_parse_ctx *c, ez_ast_kind k, const ez_span *sp)
{
    ez_ast *n = calloc(1, sizeof *n);
    if (n == NULL) {
        c->nomem = true;
        return NULL;
    }
    n->kind = k;
    n->depth = 1;
    if (sp)
        n->span = *sp;
    return n;
}

/* Refuse a kid that would make the tree deeper than EZ_AST_MAX_DEPTH: it is freed and
 * an error reported once, so later passes never recurse deeper than the limit. */
static bool too_deep(ez_parse_ctx *c, ez_ast *kid)
{
    if (kid == NULL || kid->depth < EZ_AST_MAX_DEPTH)
        return false;
    if (!c->too_deep) {
        c->too_deep = true;
        ez_diag_item *it = ez_diag_error(c->diags, kid->span, "this expression nests more than %d levels deep",
                                         EZ_AST_MAX_DEPTH);
        ez_diag_help(c->diags, it, "split it over several statements");
    }
    return true;
}

static bool push_kid(ez_ast *n, ez_ast *kid)
{
    if (kid->depth + 1 > n->depth)
        n->depth = kid->depth + 1;
    ez_ast **room = ez_array_room(n->kids, n->nkids, &n->cap, sizeof *room, 4);
    if (room == NULL)
        return false;
    n->kids = room;
    n->kids[n->nkids++] = kid;
    return true;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* A leaf with its source text copied: a name (kind NAME, into name) or a number as
 * written (NUM, into text). NULL with c->nomem set when memory runs out. */
static ez_ast *leaf(ez_parse_ctx *c, ez_ast_kind k, const char *src, size_t leng, const ez_span *sp)
{
    ez_ast *n = alloc_node(c, k, sp);
    if (n == NULL)
        return NULL;
    char *copy = dup_n(src, leng);
    if (copy == NULL) {
        c->nomem = true;
        ez_ast_free(n);
        return NULL;
    }
    if (k == EZ_AST_NAME)
        n->name = copy;
    else
        n->text = copy;
    return n;
}

ez_ast *ez_ast_ident(ez_parse_ctx *c, const char *text, size_t leng, const ez_span *sp)
{
    ez_ast *n = leaf(c, EZ_AST_NAME, text, leng, sp);
    if (n)
        n->name_span = n->span;
    return n;
}

ez_ast *ez_ast_number(ez_parse_ctx *c, const char *text, size_t leng, const ez_span *sp)
{
    ez_ast *n = leaf(c, EZ_AST_NUM, text, leng, sp);
    if (n == NULL)
        return NULL;
    /* An integer literal is exact (sizes, positions); anything with '.' or an exponent
     * is a real constant. Out-of-range literals are flagged for sema to report. */
    bool integral = strpbrk(n->text, ".eE") == NULL;
    errno = 0;
    n->num = strtod(n->text, NULL);
    if (errno == ERANGE || !isfinite(n->num))
        n->bad = true;
    if (integral) {
        errno = 0;
        char *end;
        long long v = strtoll(n->text, &end, 10);
        if (errno == ERANGE || *end != '\0')
            n->bad = true;
        else {
            n->is_int = true;
            n->ival = v;
        }
    }
    return n;
}

ez_ast *ez_ast_node(ez_parse_ctx *c, ez_ast_kind k, const ez_span *sp, size_t nkids, ez_ast *a,
                    ez_ast *b, ez_ast *d)
{
    ez_ast *kids[3] = {a, b, d};
    bool ok = true;
    for (size_t i = 0; i < nkids && i < 3; i++)
        if (kids[i] == NULL || too_deep(c, kids[i]))
            ok = false;
    ez_ast *n = ok ? alloc_node(c, k, sp) : NULL;
    if (n != NULL) {
        for (size_t i = 0; i < nkids && i < 3; i++) {
            if (!push_kid(n, kids[i])) {
                c->nomem = true;
                ez_ast_free(n);
                for (size_t j = i; j < nkids && j < 3; j++)
                    ez_ast_free(kids[j]);
                return NULL;
            }
        }
        return n;
    }
    for (size_t i = 0; i < nkids && i < 3; i++)
        ez_ast_free(kids[i]);
    return NULL;
}

ez_ast *ez_ast_named(ez_parse_ctx *c, ez_ast_kind k, ez_ast *id, const ez_span *sp, size_t nkids,
                     ez_ast *a, ez_ast *b, ez_ast *d)
{
    if (id == NULL) {
        ez_ast_free(a);
        ez_ast_free(b);
        ez_ast_free(d);
        return NULL;
    }
    ez_ast *n = ez_ast_node(c, k, sp, nkids, a, b, d);
    if (n == NULL) {
        ez_ast_free(id);
        return NULL;
    }
    n->name = id->name;
    n->name_span = id->span;
    id->name = NULL;
    ez_ast_free(id);
    return n;
}

ez_ast *ez_ast_decl(ez_parse_ctx *c, ez_ast *id, ez_ast *dims, ez_ast *attrs, bool token,
                    const ez_span *sp)
{
    ez_ast *n = ez_ast_named(c, EZ_AST_DECL, id, sp, 2, dims, attrs, NULL);
    if (n)
        n->flag = token;
    return n;
}

ez_ast *ez_ast_binop(ez_parse_ctx *c, char op, ez_ast *a, ez_ast *b, const ez_span *sp)
{
    ez_ast *n = ez_ast_node(c, EZ_AST_BINOP, sp, 2, a, b, NULL);
    if (n)
        n->op = op;
    return n;
}

ez_ast *ez_ast_list(ez_parse_ctx *c, ez_ast_kind k, ez_ast *first, const ez_span *sp)
{
    ez_ast *n = alloc_node(c, k, sp);
    if (n == NULL) {
        ez_ast_free(first);
        return NULL;
    }
    if (first != NULL && (too_deep(c, first) || !push_kid(n, first))) {
        c->nomem = true;
        ez_ast_free(first);
        ez_ast_free(n);
        return NULL;
    }
    return n;
}

ez_ast *ez_ast_append(ez_parse_ctx *c, ez_ast *list, ez_ast *item, const ez_span *sp)
{
    if (list == NULL || item == NULL || too_deep(c, item)) {
        ez_ast_free(list);
        ez_ast_free(item);
        return NULL;
    }
    if (!push_kid(list, item)) {
        c->nomem = true;
        ez_ast_free(list);
        ez_ast_free(item);
        return NULL;
    }
    if (sp)
        list->span = ez_span_join(list->span.first_line ? list->span : *sp, *sp);
    return list;
}

ez_ast *ez_ast_set_root(ez_parse_ctx *c, ez_ast *block)
{
    c->root = block;
    return block;
}

const char *ez_ast_kind_name(ez_ast_kind k)
{
    switch (k) {
    case EZ_AST_BLOCK: return "block";
    case EZ_AST_MODEL: return "model";
    case EZ_AST_PARAMS: return "params";
    case EZ_AST_PARAM: return "param";
    case EZ_AST_SCALE: return "scale";
    case EZ_AST_BITS: return "bits";
    case EZ_AST_INPUTS: return "inputs";
    case EZ_AST_WEIGHTS: return "weights";
    case EZ_AST_DECL: return "decl";
    case EZ_AST_OUTPUTS: return "outputs";
    case EZ_AST_ASSIGN: return "assign";
    case EZ_AST_FOR: return "for";
    case EZ_AST_ATTR: return "attr";
    case EZ_AST_LIST: return "list";
    case EZ_AST_NUM: return "num";
    case EZ_AST_NAME: return "name";
    case EZ_AST_REF: return "ref";
    case EZ_AST_CALL: return "call";
    case EZ_AST_BINOP: return "binop";
    case EZ_AST_NEG: return "neg";
    case EZ_AST_PAREN: return "paren";
    }
    return "?";
}

static void dump_rec(ez_writer *b, const ez_ast *n)
{
    if (n == NULL) {
        ez_writer_printf(b, "()");
        return;
    }
    /* Leaves print bare: a name as itself, a number as written. */
    if (n->kind == EZ_AST_NAME) {
        ez_writer_printf(b, "%s", n->name);
        return;
    }
    if (n->kind == EZ_AST_NUM) {
        ez_writer_printf(b, "%s", n->text);
        return;
    }
    ez_writer_printf(b, "(%s", ez_ast_kind_name(n->kind));
    if (n->kind == EZ_AST_BINOP) {
        char op[2] = {n->op, '\0'};
        ez_writer_printf(b, " %s", op);
    }
    if (n->name)
        ez_writer_printf(b, " %s", n->name);
    if (n->kind == EZ_AST_DECL && n->flag)
        ez_writer_printf(b, " :token");
    for (size_t i = 0; i < n->nkids; i++) {
        ez_writer_printf(b, " ");
        dump_rec(b, n->kids[i]);
    }
    ez_writer_printf(b, ")");
}

char *ez_ast_dump(const ez_ast *n)
{
    ez_writer b;
    ez_writer_init(&b);
    dump_rec(&b, n);
    return ez_writer_take_text(&b);
}

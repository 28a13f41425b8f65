/* annotate — see annotate.h. The parser gives every statement's span; edits are
 * collected as (offset, bytes replaced, new text) and applied back to front. */
#include "cli/annotate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/ast.h"
#include "compiler/diag.h"

typedef struct {
    size_t at, del;
    char text[48];
} edit;

typedef struct {
    const char *src;
    size_t len;
    edit *e;
    size_t n, cap;
    bool nomem;
} edits;

/* Byte offset of (line, column), both 1-based; len when past the end. */
static size_t offset(const edits *E, int line, int col)
{
    size_t pos = 0;
    for (int l = 1; l < line && pos < E->len; pos++)
        if (E->src[pos] == '\n')
            l++;
    pos += col > 0 ? (size_t)col - 1 : 0;
    return pos < E->len ? pos : E->len;
}

static void add(edits *E, size_t at, size_t del, const char *fmt, unsigned v)
{
    edit *room = ez_array_room(E->e, E->n, &E->cap, sizeof *room, 16);
    if (room == NULL) {
        E->nomem = true;
        return;
    }
    E->e = room;
    edit *x = &E->e[E->n++];
    x->at = at;
    x->del = del;
    snprintf(x->text, sizeof x->text, fmt, v);
}

/* The span's bytes: [start, end) */
static void span_range(const edits *E, ez_span sp, size_t *start, size_t *end)
{
    *start = offset(E, sp.first_line, sp.first_column);
    *end = offset(E, sp.last_line, sp.last_column) + 1;
    if (*end > E->len)
        *end = E->len;
}

/* Set @bits(v) in the attribute list attrs of something ending at `after` (a span). */
static void set_bits(edits *E, const ez_ast *attrs, ez_span after, unsigned v)
{
    size_t s, e;
    for (size_t i = 0; i < attrs->nkids; i++)
        if (!strcmp(attrs->kids[i]->name, "bits")) {
            span_range(E, attrs->kids[i]->span, &s, &e);
            add(E, s, e - s, "@bits(%u)", v);
            return;
        }
    span_range(E, attrs->nkids ? attrs->kids[attrs->nkids - 1]->span : after, &s, &e);
    add(E, e, 0, " @bits(%u)", v);
}

static void block(edits *E, const ez_ast *b, const ez_cli_widths *w)
{
    for (size_t i = 0; i < b->nkids; i++) {
        const ez_ast *s = b->kids[i];
        if (s->kind == EZ_AST_INPUTS || s->kind == EZ_AST_WEIGHTS) {
            for (size_t j = 0; j < s->kids[0]->nkids; j++) {
                const ez_ast *dcl = s->kids[0]->kids[j];
                for (size_t k = 0; k < w->ndecls && !dcl->flag; k++)
                    if (!strcmp(w->decls[k].name, dcl->name)) {
                        /* without attributes (and not a token input) it ends at its ']' */
                        set_bits(E, dcl->kids[1], dcl->span, w->decls[k].bits);
                        break;
                    }
            }
        } else if (s->kind == EZ_AST_ASSIGN) {
            for (size_t k = 0; k < w->nlines; k++)
                if (w->lines[k].line == s->span.first_line) {
                    set_bits(E, s->kids[1], s->kids[0]->span, w->lines[k].bits);
                    break;
                }
        } else if (s->kind == EZ_AST_FOR) {
            block(E, s->kids[2], w);
        }
    }
}

static int edit_cmp(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

ez_status ez_cli_annotate(const char *src, size_t len, const ez_cli_widths *w, char **out, ez_diag *d)
{
    ez_diag_list diags;
    ez_ast *ast = NULL;
    edits E = {src, len, NULL, 0, 0, false};
    *out = NULL;
    ez_diag_list_init(&diags, "", src, len);
    ez_status st = ez_parse(&ast, src, len, &diags);
    if (st == EZ_OK && (ast == NULL || ez_diag_any(&diags))) {
        ez_diag_set(d, "the source does not parse");
        st = EZ_ERR_SOURCE;
    }
    if (st != EZ_OK)
        goto out;
    /* the defaults: update their lines, or insert them before the first declaration */
    bool have_scale = false, have_bits = false;
    const ez_ast *first = NULL;
    for (size_t i = 0; i < ast->nkids; i++) {
        const ez_ast *s = ast->kids[i];
        size_t a, b;
        if (s->kind == EZ_AST_SCALE || s->kind == EZ_AST_BITS) {
            span_range(&E, s->kids[0]->span, &a, &b);
            add(&E, a, b - a, "%u", s->kind == EZ_AST_SCALE ? w->scale : w->bits);
            have_scale = have_scale || s->kind == EZ_AST_SCALE;
            have_bits = have_bits || s->kind == EZ_AST_BITS;
        } else if (first == NULL && (s->kind == EZ_AST_INPUTS || s->kind == EZ_AST_WEIGHTS ||
                                     s->kind == EZ_AST_ASSIGN || s->kind == EZ_AST_FOR)) {
            first = s;
        }
    }
    size_t at = first ? offset(&E, first->span.first_line, 1) : len;
    if (!have_scale)
        add(&E, at, 0, "scale %u\n", w->scale);
    if (!have_bits)
        add(&E, at, 0, "bits %u\n", w->bits);
    block(&E, ast, w);
    if (E.nomem) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* stable order: insertions at one offset keep the order they were added in */
    for (size_t i = 1; i < E.n; i++)
        for (size_t j = i; j > 0 && edit_cmp(&E.e[j - 1], &E.e[j]) > 0; j--) {
            edit t = E.e[j];
            E.e[j] = E.e[j - 1];
            E.e[j - 1] = t;
        }
    ez_writer o;
    ez_writer_init(&o);
    size_t pos = 0;
    for (size_t i = 0; i < E.n; i++) {
        ez_writer_bytes(&o, src + pos, E.e[i].at - pos);
        ez_writer_bytes(&o, E.e[i].text, strlen(E.e[i].text));
        pos = E.e[i].at + E.e[i].del;
    }
    ez_writer_bytes(&o, src + pos, len - pos);
    if ((*out = ez_writer_take_text(&o)) == NULL)
        st = EZ_ERR_NOMEM;
out:
    free(E.e);
    ez_ast_free(ast);
    ez_diag_list_clear(&diags);
    return st;
}

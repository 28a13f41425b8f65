/* ast — the syntax tree of a .ein file as the parser builds it (docs/language.md), and the
 * builders the grammar actions call (one builder per action, grammar/parser.y).
 *
 * This tree is SYNTAX ONLY: names are unresolved strings, sizes are unevaluated
 * expressions, `for` loops are not unrolled, nothing is checked. compiler/sema.h turns
 * it into the checked program (ez_program) that the back end lowers; the back end never
 * needs this header.
 *
 * Shape of the tree (kids[] order is part of the contract):
 *   EZ_AST_BLOCK    kids = statements in source order (the file, or a `for` body)
 *   EZ_AST_MODEL    name
 *   EZ_AST_PARAMS   kids = EZ_AST_PARAM...              `param S = 64, D = 2 * S`
 *   EZ_AST_PARAM    name, kids = {value expr}
 *   EZ_AST_SCALE    kids = {expr}                        `scale 12`
 *   EZ_AST_BITS     kids = {expr}                        `bits 24`
 *   EZ_AST_INPUTS   kids = EZ_AST_DECL...                `input x[S, D], tok[S] : token`
 *   EZ_AST_WEIGHTS  kids = EZ_AST_DECL...
 *   EZ_AST_DECL     name, flag = is `: token`, kids = {EZ_AST_LIST dims, EZ_AST_LIST attrs}
 *   EZ_AST_OUTPUTS  kids = EZ_AST_NAME...                `output y, z`
 *   EZ_AST_ASSIGN   kids = {EZ_AST_REF lhs, EZ_AST_LIST attrs, rhs expr}
 *   EZ_AST_FOR      name = loop variable, kids = {lo expr, hi expr, EZ_AST_BLOCK body}
 *   EZ_AST_ATTR     name (without '@'), kids = {expr}    `@scale(10)`
 *   EZ_AST_LIST     kids = items (dims, index items, attributes, call arguments)
 *   expressions:
 *   EZ_AST_NUM      text, num (value), is_int/ival when the literal is an integer;
 *                   bad = the literal does not fit (sema reports it)
 *   EZ_AST_NAME     name                                  a bare identifier
 *   EZ_AST_REF      name, kids = {EZ_AST_LIST items}      `x[s, d]`, `wte[tok[s], d]`, `x[]`
 *   EZ_AST_CALL     name, kids = {EZ_AST_LIST args} or {EZ_AST_LIST args, EZ_AST_LIST axes}
 *                   `gelu(e)` (nkids 1), `softmax[t](e)` (nkids 2)
 *   EZ_AST_BINOP    op in "+-* /", kids = {lhs, rhs}
 *   EZ_AST_NEG      kids = {operand}
 *   EZ_AST_PAREN    kids = {inner}   (kept so diagnostics can point at the group)
 *
 * Ownership: every node owns its kids and strings. Builders TAKE OWNERSHIP of every
 * node passed in, even when they fail. On allocation failure a builder frees its
 * arguments, sets ctx->nomem and returns NULL; every builder accepts NULL children (it
 * then returns NULL and frees the rest), so a failure flows up to the root and the
 * parse function reports EZ_ERR_NOMEM once. */
#ifndef EZ_COMPILER_AST_H
#define EZ_COMPILER_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/diag.h"
#include "lib/util.h"

typedef enum {
    EZ_AST_BLOCK = 0,
    EZ_AST_MODEL,
    EZ_AST_PARAMS,
    EZ_AST_PARAM,
    EZ_AST_SCALE,
    EZ_AST_BITS,
    EZ_AST_INPUTS,
    EZ_AST_WEIGHTS,
    EZ_AST_DECL,
    EZ_AST_OUTPUTS,
    EZ_AST_ASSIGN,
    EZ_AST_FOR,
    EZ_AST_ATTR,
    EZ_AST_LIST,
    EZ_AST_NUM,
    EZ_AST_NAME,
    EZ_AST_REF,
    EZ_AST_CALL,
    EZ_AST_BINOP,
    EZ_AST_NEG,
    EZ_AST_PAREN
} ez_ast_kind;

typedef struct ez_ast {
    ez_ast_kind kind;
    ez_span span;
    ez_span name_span;   /* where `name` is written (for NAME: = span) */
    char *name;          /* identifier (MODEL, PARAM, DECL, FOR, ATTR, NAME, REF, CALL) */
    char *text;          /* NUM: the literal as written */
    double num;          /* NUM: value */
    int64_t ival;        /* NUM: value when is_int */
    bool is_int;         /* NUM: written without '.' or exponent and fits int64 */
    bool bad;            /* NUM: out of range */
    bool flag;           /* DECL: `: token` */
    char op;             /* BINOP: '+', '-', '*', '/' */
    unsigned depth;      /* 1 + the deepest kid (leaves: 1) */
    size_t nkids, cap;
    struct ez_ast **kids;
} ez_ast;

/* Deeper trees are refused with a diagnostic (every pass over the tree recurses). */
#define EZ_AST_MAX_DEPTH 1000

/* Parser context: what the builders and the scanner share with the caller. */
typedef struct {
    ez_diag_list *diags; /* syntax errors are recorded here */
    ez_ast *root;        /* set by the start rule (ez_ast_set_root) */
    bool nomem;
    int last_token;      /* kind of the last token the scanner returned (for help lines) */
    int prev_token;      /* and of the one before it */
    int stmt_first;      /* the first token of the current statement */
    int open_paren;      /* scanner: ( and [ opened and not closed in the current statement */
    int open_bracket;
    bool eof_newline;    /* scanner: the final newline before end of input was sent */
    bool too_deep;       /* the nesting-depth error was reported */
    int line, col;       /* scanner: position of the next byte (1-based) */
} ez_parse_ctx;

/* Free a node and everything below it. Accepts NULL. O(nodes). */
void ez_ast_free(ez_ast *n);

/* Parse src[0..len) (need not be NUL-terminated; may contain NUL bytes, which are
 * reported as stray characters). Syntax errors go to diags (all of them, up to the cap;
 * the parser recovers at the end of each statement).
 * Out: *out = the EZ_AST_BLOCK of the file, or NULL.
 * Returns EZ_OK (diags may still hold errors: check ez_diag_any, the tree then contains
 * only the statements that parsed), EZ_ERR_NOMEM. Linear in len. Reentrant. */
ez_status ez_parse(ez_ast **out, const char *src, size_t len, ez_diag_list *diags);

/* ---- builders (called from grammar actions; see ownership rules above) ------------- */
/* A leaf from the scanner: identifier or number literal (text: yytext, leng bytes). */
ez_ast *ez_ast_ident(ez_parse_ctx *c, const char *text, size_t leng, const ez_span *sp);
ez_ast *ez_ast_number(ez_parse_ctx *c, const char *text, size_t leng, const ez_span *sp);
/* A node of kind k with 0..3 kids (NULL kids beyond nkids are ignored). */
ez_ast *ez_ast_node(ez_parse_ctx *c, ez_ast_kind k, const ez_span *sp, size_t nkids, ez_ast *a,
                    ez_ast *b, ez_ast *d);
/* A node of kind k named by the NAME leaf `id` (the leaf is consumed), with kids. */
ez_ast *ez_ast_named(ez_parse_ctx *c, ez_ast_kind k, ez_ast *id, const ez_span *sp, size_t nkids,
                     ez_ast *a, ez_ast *b, ez_ast *d);
/* DECL: name from id, dims list, attrs list, token flag. */
ez_ast *ez_ast_decl(ez_parse_ctx *c, ez_ast *id, ez_ast *dims, ez_ast *attrs, bool token,
                    const ez_span *sp);
/* BINOP a op b. */
ez_ast *ez_ast_binop(ez_parse_ctx *c, char op, ez_ast *a, ez_ast *b, const ez_span *sp);
/* An empty list/block of kind k, or one holding `first`. */
ez_ast *ez_ast_list(ez_parse_ctx *c, ez_ast_kind k, ez_ast *first, const ez_span *sp);
/* Append item to list (item may be NULL only on OOM); the list's span grows to cover
 * sp. Returns list. */
ez_ast *ez_ast_append(ez_parse_ctx *c, ez_ast *list, ez_ast *item, const ez_span *sp);
/* Record the parse result (the start rule's only action). Returns the block. */
ez_ast *ez_ast_set_root(ez_parse_ctx *c, ez_ast *block);

/* Human-readable name of a node kind, for tests and debugging ("assign", "ref", ...). */
const char *ez_ast_kind_name(ez_ast_kind k);
/* A compact S-expression of the tree for tests, e.g.
 * "(block (assign (ref y (list s)) (list) (binop * (ref x (list s d)) (ref w (list d)))))".
 * New string (free()), NULL on OOM. */
char *ez_ast_dump(const ez_ast *n);

#endif

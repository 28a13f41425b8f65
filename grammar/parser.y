/* parser — the grammar of the .ein language (docs/language.md; reference docs/language.md).
 *
 * Syntax only: every action is one call to an AST builder (compiler/ast.h); names,
 * sizes, indices and scales are checked by compiler/sema.c. Pure and reentrant; the
 * parser recovers from a syntax error at the end of the statement, so one run reports
 * every syntax error (up to the diagnostic cap). */
%define api.pure full
%define api.token.prefix {TOK_}
%define api.location.type {ez_span}
%define parse.error detailed
%define parse.lac full
%locations
%expect 0

%param {void *scanner}
%parse-param {ez_parse_ctx *ctx}

%code requires {
#include "compiler/ast.h"
}

%code provides {
int yylex(YYSTYPE *lvalp, YYLTYPE *llocp, void *scanner);
void yyerror(YYLTYPE *loc, void *scanner, ez_parse_ctx *ctx, const char *msg);
}

%code {
#include <string.h>
}

%union {
    ez_ast *node;
}

%token <node> IDENT "name"
%token <node> NUMBER "number"
%token <node> ATTR "attribute"
%token NEWLINE "end of line"
%token DOTDOT "'..'"
%token MODEL "'model'"
%token PARAM "'param'"
%token SCALE "'scale'"
%token BITS "'bits'"
%token INPUT "'input'"
%token WEIGHT "'weight'"
%token OUTPUT "'output'"
%token FOR "'for'"
%token IN "'in'"
%token TOKEN "'token'"

%type <node> block stmt params param_def decls decl outputs attrs attr
%type <node> brackets blist args alist expr term unary primary lhs

%destructor { ez_ast_free($$); } <node>

%%

file:
    block                          { ez_ast_set_root(ctx, $1); }
;

block:
    %empty                         { $$ = ez_ast_list(ctx, EZ_AST_BLOCK, NULL, &@$); }
|   block NEWLINE
|   block stmt NEWLINE             { $$ = ez_ast_append(ctx, $1, $2, &@2); }
|   block error NEWLINE
;

stmt:
    MODEL IDENT                    { $$ = ez_ast_named(ctx, EZ_AST_MODEL, $2, &@$, 0, NULL, NULL, NULL); }
|   params
|   SCALE expr                     { $$ = ez_ast_node(ctx, EZ_AST_SCALE, &@$, 1, $2, NULL, NULL); }
|   BITS expr                      { $$ = ez_ast_node(ctx, EZ_AST_BITS, &@$, 1, $2, NULL, NULL); }
|   INPUT decls                    { $$ = ez_ast_node(ctx, EZ_AST_INPUTS, &@$, 1, $2, NULL, NULL); }
|   WEIGHT decls                   { $$ = ez_ast_node(ctx, EZ_AST_WEIGHTS, &@$, 1, $2, NULL, NULL); }
|   outputs
|   lhs attrs '=' expr             { $$ = ez_ast_node(ctx, EZ_AST_ASSIGN, &@$, 3, $1, $2, $4); }
|   FOR IDENT IN expr DOTDOT expr '{' block '}'
                                   { $$ = ez_ast_named(ctx, EZ_AST_FOR, $2, &@$, 3, $4, $6, $8); }
    /* A broken loop header: keep parsing the body so its errors are reported and its
     * closing brace is not an error of its own. */
|   FOR error '{' block '}'        { $$ = ez_ast_node(ctx, EZ_AST_BLOCK, &@$, 1, $4, NULL, NULL); }
;

params:
    PARAM param_def                { $$ = ez_ast_list(ctx, EZ_AST_PARAMS, $2, &@$); }
|   params ',' param_def           { $$ = ez_ast_append(ctx, $1, $3, &@3); }
;

param_def:
    IDENT '=' expr                 { $$ = ez_ast_named(ctx, EZ_AST_PARAM, $1, &@$, 1, $3, NULL, NULL); }
;

decls:
    decl                           { $$ = ez_ast_list(ctx, EZ_AST_LIST, $1, &@$); }
|   decls ',' decl                 { $$ = ez_ast_append(ctx, $1, $3, &@3); }
;

decl:
    IDENT brackets attrs           { $$ = ez_ast_decl(ctx, $1, $2, $3, false, &@$); }
|   IDENT brackets attrs ':' TOKEN { $$ = ez_ast_decl(ctx, $1, $2, $3, true, &@$); }
;

outputs:
    OUTPUT IDENT                   { $$ = ez_ast_list(ctx, EZ_AST_OUTPUTS, $2, &@$); }
|   outputs ',' IDENT              { $$ = ez_ast_append(ctx, $1, $3, &@3); }
;

lhs:
    IDENT brackets                 { $$ = ez_ast_named(ctx, EZ_AST_REF, $1, &@$, 1, $2, NULL, NULL); }
|   IDENT
;

attrs:
    %empty                         { $$ = ez_ast_list(ctx, EZ_AST_LIST, NULL, &@$); }
|   attrs attr                     { $$ = ez_ast_append(ctx, $1, $2, &@2); }
;

attr:
    ATTR '(' expr ')'              { $$ = ez_ast_named(ctx, EZ_AST_ATTR, $1, &@$, 1, $3, NULL, NULL); }
;

/* [a, b, c] and [] — dims of a declaration, indices of a reference, axes of a call. */
brackets:
    blist ']'
|   '[' ']'                        { $$ = ez_ast_list(ctx, EZ_AST_LIST, NULL, &@$); }
;

blist:
    '[' expr                       { $$ = ez_ast_list(ctx, EZ_AST_LIST, $2, &@2); }
|   blist ',' expr                 { $$ = ez_ast_append(ctx, $1, $3, &@3); }
;

args:
    alist ')'
;

alist:
    '(' expr                       { $$ = ez_ast_list(ctx, EZ_AST_LIST, $2, &@2); }
|   alist ',' expr                 { $$ = ez_ast_append(ctx, $1, $3, &@3); }
;

expr:
    term
|   expr '+' term                  { $$ = ez_ast_binop(ctx, '+', $1, $3, &@$); }
|   expr '-' term                  { $$ = ez_ast_binop(ctx, '-', $1, $3, &@$); }
;

term:
    unary
|   term '*' unary                 { $$ = ez_ast_binop(ctx, '*', $1, $3, &@$); }
|   term '/' unary                 { $$ = ez_ast_binop(ctx, '/', $1, $3, &@$); }
;

unary:
    primary
|   '-' unary                      { $$ = ez_ast_node(ctx, EZ_AST_NEG, &@$, 1, $2, NULL, NULL); }
;

primary:
    NUMBER
|   IDENT
|   IDENT brackets                 { $$ = ez_ast_named(ctx, EZ_AST_REF, $1, &@$, 1, $2, NULL, NULL); }
|   IDENT args                     { $$ = ez_ast_named(ctx, EZ_AST_CALL, $1, &@$, 1, $2, NULL, NULL); }
|   IDENT brackets args            { $$ = ez_ast_named(ctx, EZ_AST_CALL, $1, &@$, 2, $3, $2, NULL); }
|   '(' expr ')'                   { $$ = ez_ast_node(ctx, EZ_AST_PAREN, &@$, 1, $2, NULL, NULL); }
;

%%

static bool is_keyword(int t)
{
    switch (t) {
    case TOK_MODEL: case TOK_PARAM: case TOK_SCALE: case TOK_BITS: case TOK_INPUT:
    case TOK_WEIGHT: case TOK_OUTPUT: case TOK_FOR: case TOK_IN: case TOK_TOKEN:
        return true;
    default:
        return false;
    }
}

static const char reserved_help[] = "model, param, scale, bits, input, weight, output, for, in and "
                                    "token are reserved words; choose another name";

/* Bison's detailed message ("syntax error, unexpected X, expecting Y or Z") plus a help
 * line for the mistakes a new user makes most: a reserved word used as a name, and a
 * statement that ends too early. */
void yyerror(YYLTYPE *loc, void *scanner, ez_parse_ctx *ctx, const char *msg)
{
    (void)scanner;
    const char *rest = msg;
    if (strcmp(msg, "memory exhausted") == 0) {
        /* Bison's stack limit: only absurdly nested input gets here. */
        ez_diag_item *deep = ez_diag_error(ctx->diags, *loc, "the model nests too deeply to parse");
        ez_diag_help(ctx->diags, deep, "split deeply nested expressions over several statements");
        return;
    }
    if (strncmp(rest, "syntax error, ", 14) == 0)
        rest += 14;
    ez_diag_item *it = ez_diag_error(ctx->diags, *loc, "syntax error: %s", rest);
    if (is_keyword(ctx->last_token) && strncmp(rest, "unexpected '", 12) == 0)
        ez_diag_help(ctx->diags, it, "%s", reserved_help);
    else if (is_keyword(ctx->prev_token) && ctx->last_token == '[')
        ez_diag_help(ctx->diags, it, "%s", reserved_help);
    if (it && it->help)
        return;
    if (ctx->last_token == '[' && ctx->prev_token == ']')
        ez_diag_help(ctx->diags, it, "write all indices in one pair of brackets: x[s, d]");
    else if (ctx->stmt_first == TOK_FOR && (ctx->last_token == '{' || ctx->last_token == TOK_NEWLINE))
        ez_diag_help(ctx->diags, it, "a loop is written for l in 0..L { ... }, with '{' on the same line");
    else if (ctx->open_paren > 0 && (ctx->last_token == TOK_NEWLINE || ctx->last_token == '='
                                || ctx->last_token == ']' || ctx->last_token == ','))
        ez_diag_help(ctx->diags, it, "a '(' is not closed");
    else if (ctx->open_bracket > 0 && (ctx->last_token == TOK_NEWLINE || ctx->last_token == '='
                                       || ctx->last_token == ')'))
        ez_diag_help(ctx->diags, it, "a '[' is not closed");
    else if (ctx->open_paren < 0 && ctx->last_token == ')')
        ez_diag_help(ctx->diags, it, "this ')' has no matching '('");
    else if (ctx->open_bracket < 0 && ctx->last_token == ']')
        ez_diag_help(ctx->diags, it, "this ']' has no matching '['");
    else if ((ctx->last_token == TOK_IDENT || ctx->last_token == TOK_NUMBER)
             && (ctx->prev_token == TOK_IDENT || ctx->prev_token == TOK_NUMBER || ctx->prev_token == ')'
                 || ctx->prev_token == ']'))
        ez_diag_help(ctx->diags, it, "two operands in a row: is an operator or a ',' missing?");
    if (it && it->help)
        return;
    switch (ctx->last_token) {
    case TOK_NEWLINE:
        if (strstr(rest, "expecting"))
            ez_diag_help(ctx->diags, it, "the statement ends too early; to continue a statement on "
                                         "the next line, break the line after an operator or a comma");
        break;
    case '=':
        if (strstr(rest, "unexpected '=', expecting name or number"))
            ez_diag_help(ctx->diags, it, "a definition has one '='; constants are folded with * and /, "
                                         "e.g. a[i] = b[i] * 0.5");
        break;
    default:
        break;
    }
}

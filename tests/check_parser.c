/* parser: the lexer and grammar (grammar/lexer.l, grammar/parser.y) on good and bad
 * inputs, the shape of the syntax tree, error recovery and diagnostics rendering. */
#include <stdlib.h>
#include <string.h>

#include "compiler/ast.h"
#include "compiler/diag.h"
#include "tests/testutil.h"

/* Parse src; return the dump of the tree ("" if none) and the number of errors. */
static char *parse_dump(const char *src, size_t *nerr, ez_diag_list *keep)
{
    ez_diag_list dl;
    ez_diag_list *d = keep ? keep : &dl;
    ez_diag_list_init(d, "t.ein", src, strlen(src));
    ez_ast *a = NULL;
    ck_assert_int_eq(ez_parse(&a, src, strlen(src), d), EZ_OK);
    *nerr = d->nerrors;
    char *s = a ? ez_ast_dump(a) : strdup("");
    ck_assert_ptr_nonnull(s);
    ez_ast_free(a);
    if (!keep)
        ez_diag_list_clear(&dl);
    return s;
}

static void expect_tree(const char *src, const char *want)
{
    size_t nerr;
    char *s = parse_dump(src, &nerr, NULL);
    ck_assert_msg(nerr == 0, "unexpected syntax errors in: %s", src);
    ck_assert_str_eq(s, want);
    free(s);
}

START_TEST(test_declarations)
{
    expect_tree("model m\nparam S = 64, D = 2 * S\nscale 12\nbits 20\n",
                "(block (model m) (params (param S 64) (param D (binop * 2 S))) (scale 12) (bits 20))");
    expect_tree("input x[S, D], tok[S] : token\nweight w[D, D] @scale(10) @bits(16)\noutput y, z\n",
                "(block (inputs (list (decl x (list S D) (list)) (decl tok :token (list S) (list)))) "
                "(weights (list (decl w (list D D) (list (attr scale 10) (attr bits 16))))) (outputs y z))");
    expect_tree("", "(block)");
    expect_tree("\n\n# only a comment\n", "(block)");
}
END_TEST

START_TEST(test_expressions)
{
    /* precedence: * binds tighter than +, left associativity, unary minus, parens */
    expect_tree("y[s] = a[s] + b[s] * c[s] - d[s] / 2\n",
                "(block (assign (ref y (list s)) (list) (binop - (binop + (ref a (list s)) "
                "(binop * (ref b (list s)) (ref c (list s)))) (binop / (ref d (list s)) 2))))");
    expect_tree("y[s] = -(a[s] + b[s]) * 0.5e1\n",
                "(block (assign (ref y (list s)) (list) (binop * (neg (paren (binop + (ref a (list s)) "
                "(ref b (list s))))) 0.5e1)))");
    /* calls with and without axis arguments, nested */
    expect_tree("p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\n",
                "(block (assign (ref p (list h s t)) (list) (call softmax (list (call causal "
                "(list (ref a (list h s t))) (list s t))) (list t))))");
    expect_tree("g[i] = gelu(x[i]) * sqrt(E)\n",
                "(block (assign (ref g (list i)) (list) (binop * (call gelu (list (ref x (list i)))) "
                "(call sqrt (list E)))))");
    /* gather, statement attributes, scalar */
    expect_tree("x[s, d] @scale(8) = wte[tok[s], d]\nt[] = x[0, d]\n",
                "(block (assign (ref x (list s d)) (list (attr scale 8)) (ref wte (list (ref tok (list s)) d))) "
                "(assign (ref t (list)) (list) (ref x (list 0 d))))");
}
END_TEST

START_TEST(test_loops_and_lines)
{
    expect_tree("for l in 0..L {\n  x[s] = x[s] * w[l, s]\n}\n",
                "(block (for l 0 L (block (assign (ref x (list s)) (list) (binop * (ref x (list s)) "
                "(ref w (list l s)))))))");
    /* one-line body without a final newline before '}', ';' separators */
    expect_tree("for l in 0..2 { a[i] = b[i]; c[i] = d[i] }",
                "(block (for l 0 2 (block (assign (ref a (list i)) (list) (ref b (list i))) "
                "(assign (ref c (list i)) (list) (ref d (list i))))))");
    /* a line ending in an operator or ',' continues; no final newline needed */
    expect_tree("y[s,\n  n] = a[s, d] *\n  b[d, n]",
                "(block (assign (ref y (list s n)) (list) (binop * (ref a (list s d)) (ref b (list d n)))))");
    /* CRLF line ends */
    expect_tree("model m\r\nparam S = 2\r\n", "(block (model m) (params (param S 2)))");
}
END_TEST

START_TEST(test_spans)
{
    const char *src = "model m\n  y[s] = x[s]  # c\n";
    ez_diag_list d;
    ez_diag_list_init(&d, "t.ein", src, strlen(src));
    ez_ast *a = NULL;
    ck_assert_int_eq(ez_parse(&a, src, strlen(src), &d), EZ_OK);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->nkids, 2);
    const ez_ast *asg = a->kids[1];
    ck_assert_int_eq(asg->kind, EZ_AST_ASSIGN);
    ck_assert_int_eq(asg->span.first_line, 2);
    ck_assert_int_eq(asg->span.first_column, 3);
    ck_assert_int_eq(asg->span.last_column, 13);
    const ez_ast *rhs = asg->kids[2];
    ck_assert_int_eq(rhs->kind, EZ_AST_REF);
    ck_assert_int_eq(rhs->name_span.first_column, 10);
    ck_assert_int_eq(rhs->name_span.last_column, 10);
    ez_ast_free(a);
    ez_diag_list_clear(&d);
}
END_TEST

/* First error message of src, and the error count. */
static void expect_errors(const char *src, size_t nerr_want, const char *first_msg, int line, int col)
{
    ez_diag_list d;
    size_t nerr;
    char *s = parse_dump(src, &nerr, &d);
    ck_assert_msg(nerr == nerr_want, "%zu errors (want %zu) for: %s", nerr, nerr_want, src);
    if (first_msg) {
        ck_assert_str_eq(d.items[0].msg, first_msg);
        ck_assert_int_eq(d.items[0].span.first_line, line);
        ck_assert_int_eq(d.items[0].span.first_column, col);
    }
    free(s);
    ez_diag_list_clear(&d);
}

START_TEST(test_syntax_errors)
{
    expect_errors("param S 3\n", 1, "syntax error: unexpected number, expecting '='", 1, 9);
    expect_errors("y[s] = = x[s]\n", 1, "syntax error: unexpected '=', expecting name or number or '(' or '-'", 1, 8);
    expect_errors("y[s] = x[s] $ 2\n", 1, "unexpected character '$'", 1, 13);
    expect_errors("y[s] = x[s] \xc3\xa9\n", 1, "non-ASCII character in the model", 1, 13);
    /* recovery: one error per broken statement, good statements in between survive */
    expect_errors("a[s] = = b\nc[s] = d[s]\ne[s = 2\nf[s] = )\n", 3, NULL, 0, 0);
    /* an unclosed bracket costs one statement, not the rest of the file */
    expect_errors("input x[S, D\nweight w[D]\ny[s] = x[s, d] * w[d]]\n", 2, NULL, 0, 0);
    /* missing closing brace at end of input */
    expect_errors("for l in 0..2 {\n x[s] = y[s]\n", 1, NULL, 0, 0);
    /* a NUL byte is a stray character, not the end of the input */
    {
        const char src[] = "y[s] = x[s]\0\nz[s] = w[s]\n";
        ez_diag_list d;
        ez_diag_list_init(&d, "t.ein", src, sizeof src - 1);
        ez_ast *a = NULL;
        ck_assert_int_eq(ez_parse(&a, src, sizeof src - 1, &d), EZ_OK);
        ck_assert_uint_eq(d.nerrors, 1);
        ck_assert_str_eq(d.items[0].msg, "unexpected control byte 0x00");
        ez_ast_free(a);
        ez_diag_list_clear(&d);
    }
}
END_TEST

START_TEST(test_help_lines)
{
    ez_diag_list d;
    size_t nerr;
    char *s = parse_dump("weight scale[D]\n", &nerr, &d);
    ck_assert_uint_eq(nerr, 1);
    ck_assert_ptr_nonnull(d.items[0].help);
    ck_assert_ptr_nonnull(strstr(d.items[0].help, "reserved words"));
    free(s);
    ez_diag_list_clear(&d);
    s = parse_dump("z[s] = (x[s]\n", &nerr, &d);
    ck_assert_uint_eq(nerr, 1);
    ck_assert_str_eq(d.items[0].help, "a '(' is not closed");
    free(s);
    ez_diag_list_clear(&d);
    s = parse_dump("param S = 8 D = 16\n", &nerr, &d);
    ck_assert_str_eq(d.items[0].help, "two operands in a row: is an operator or a ',' missing?");
    free(s);
    ez_diag_list_clear(&d);
}
END_TEST

START_TEST(test_render)
{
    const char *src = "model m\n\ty[s] = x[s] $ 2\n";
    ez_diag_list d;
    ez_diag_list_init(&d, "f.ein", src, strlen(src));
    ez_span sp = {2, 3, 2, 6};
    ez_diag_item *it = ez_diag_error(&d, sp, "bad %s", "thing");
    ez_diag_help(&d, it, "fix it");
    ez_span np = {1, 1, 1, 5};
    ez_diag_note(&d, it, np, "see here");
    ez_span none = {0, 0, 0, 0};
    ez_diag_error(&d, none, "no place");
    char *out = NULL;
    ck_assert_int_eq(ez_diag_render(&d, &out), EZ_OK);
    ck_assert_str_eq(out, "f.ein:2:3: error: bad thing\n"
                          "    2 | \ty[s] = x[s] $ 2\n"
                          "      | \t ^~~~\n"
                          "f.ein:1:1: note: see here\n"
                          "    1 | model m\n"
                          "      | ^~~~~\n"
                          "help: fix it\n"
                          "f.ein: error: no place\n"
                          "2 errors\n");
    free(out);
    ez_diag_list_clear(&d);
}
END_TEST

START_TEST(test_error_cap)
{
    ez_diag_list d;
    ez_diag_list_init(&d, "f.ein", "", 0);
    ez_span sp = {1, 1, 1, 1};
    for (int i = 0; i < 25; i++) {
        ez_diag_item *it = ez_diag_error(&d, sp, "e%d", i);
        ck_assert(i < EZ_DIAG_MAX_ERRORS ? it != NULL : it == NULL);
    }
    ck_assert_uint_eq(d.n, EZ_DIAG_MAX_ERRORS);
    ck_assert_uint_eq(d.nerrors, 25);
    char *out = NULL;
    ck_assert_int_eq(ez_diag_render(&d, &out), EZ_OK);
    ck_assert_ptr_nonnull(strstr(out, "too many errors: 5 more not shown (stopped after 20)\n25 errors\n"));
    free(out);
    ez_diag_list_clear(&d);
}
END_TEST

/* Random token soup and random bytes: the parser never fails other than by reporting
 * errors, and every error has a position inside the input. */
START_TEST(test_random_inputs)
{
    static const char *const toks[] = {"x", "[", "]", "(", ")", "{", "}", ",", "=", "+", "-", "*", "/",
                                       "\n", ";", "..", "0", "1.5", "softmax", "model", "param", "input",
                                       "weight", "output", "for", "in", "token", ":", "@scale", "#c\n",
                                       "scale", "bits", "S", "s", "\t", "$", "1e9", "99999999999999999999"};
    ez_rng r = ez_rng_for("parser_random");
    char buf[512];
    for (int iter = 0; iter < 3000; iter++) {
        size_t len = 0;
        int ntok = (int)(ez_rng_next(&r) % 40);
        for (int t = 0; t < ntok; t++) {
            if (iter % 3 == 0) {
                buf[len++] = (char)(ez_rng_next(&r) & 0xff);
            } else {
                const char *tk = toks[ez_rng_next(&r) % (sizeof toks / sizeof toks[0])];
                size_t l = strlen(tk);
                if (len + l + 1 >= sizeof buf)
                    break;
                memcpy(buf + len, tk, l);
                len += l;
                buf[len++] = ' ';
            }
        }
        ez_diag_list d;
        ez_diag_list_init(&d, "r.ein", buf, len);
        ez_ast *a = NULL;
        ck_assert_int_eq(ez_parse(&a, buf, len, &d), EZ_OK);
        ck_assert(a != NULL || d.nerrors > 0);
        for (size_t i = 0; i < d.n; i++)
            ck_assert_int_le(d.items[i].span.first_line, 1 + (int)len);
        ez_ast_free(a);
        ez_diag_list_clear(&d);
    }
}
END_TEST

Suite *ez_suite_parser(void)
{
    const TTest *tests[] = {test_declarations, test_expressions, test_loops_and_lines, test_spans, test_syntax_errors,
        test_help_lines, test_render, test_error_cap, test_random_inputs};
    return ez_test_suite("parser", "core", 0, tests, sizeof tests / sizeof tests[0]);
}

/* fuzz_parser — libFuzzer harness for the whole .ein front end (lexer, parser, sema,
 * bounds, diagnostics).
 *
 * Properties, for ANY bytes:
 *  - ez_compile_front returns EZ_OK, EZ_ERR_SOURCE or EZ_ERR_NOMEM, nothing else;
 *  - EZ_ERR_SOURCE comes with at least one diagnostic, and rendering them succeeds and
 *    only names lines that exist in the input;
 *  - EZ_OK yields a program that keeps the promises of compiler/sema.h: positive
 *    sizes, every node's indices resolved in its statement, every root producing the
 *    defined tensor's axes in order, every bound below 2^62, PRODUCT nodes with at most
 *    two operands, outputs resolved to computed tensors.
 * A violated property aborts (so libFuzzer or the replay script reports a crash).
 *
 * Build with -DEZ_LIBFUZZER and -fsanitize=fuzzer for libFuzzer; otherwise
 * `fuzz_parser FILE...` replays files and prints one line per file:
 * "ok", "source-error" or "nomem". */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/bounds.h"
#include "compiler/sema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (!(x)) {                                                                                \
            fprintf(stderr, "fuzz_parser: property violated: %s (line %d)\n", #x, __LINE__);      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static void check_node(const ez_program *p, const ez_stmt *st, const ez_node *n, const mpz_t limit)
{
    CHECK(n->nout <= EZ_MAX_IDX);
    for (unsigned i = 0; i < n->nout; i++)
        CHECK(n->out[i] < st->nidx);
    CHECK(mpz_sgn(n->bound) >= 0 && mpz_cmp(n->bound, limit) < 0);
    CHECK(mpz_cmp(n->raw_bound, limit) < 0);
    CHECK(n->bits >= 2 && n->bits <= 62);
    for (unsigned k = 0; k < n->nin; k++) {
        CHECK(n->in[k] != NULL);
        check_node(p, st, n->in[k], limit);
    }
    switch (n->kind) {
    case EZ_NODE_REF: {
        CHECK(n->tensor < p->ntensors);
        const ez_tensor *t = &p->tensors[n->tensor];
        CHECK(n->rank == t->rank && n->nin == 0);
        for (unsigned a = 0; a < n->rank; a++) {
            if (n->axes[a].kind == EZ_AXIS_INDEX)
                CHECK(n->axes[a].idx < st->nidx && st->idx[n->axes[a].idx].size == t->dims[a]);
            else if (n->axes[a].kind == EZ_AXIS_FIXED)
                CHECK(n->axes[a].pos < t->dims[a]);
        }
        break;
    }
    case EZ_NODE_GATHER:
        CHECK(n->nin == 2 && p->tensors[n->in[1]->tensor].kind == EZ_TENSOR_TOKENS);
        break;
    case EZ_NODE_PRODUCT:
        CHECK(n->nin == 1 || n->nin == 2);
        CHECK(n->mul != 0);
        break;
    case EZ_NODE_ADD:
        CHECK(n->nin >= 2 && n->nin <= EZ_MAX_OPERANDS);
        break;
    case EZ_NODE_FUNC:
        CHECK(n->nin == 1);
        break;
    }
}

static void check_program(const ez_program *p)
{
    mpz_t limit;
    mpz_init(limit);
    mpz_setbit(limit, EZ_BOUND_LIMIT_BITS);
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_tensor *t = &p->tensors[i];
        CHECK(t->id == i && t->rank <= EZ_MAX_RANK);
        for (unsigned a = 0; a < t->rank; a++)
            CHECK(t->dims[a] >= 1);
        CHECK(mpz_cmp(t->bound, limit) < 0);
        if (t->kind == EZ_TENSOR_TOKENS)
            CHECK(t->token_limit >= 1);
        if (t->kind == EZ_TENSOR_ACT)
            CHECK(t->def_stmt >= 0 && (size_t)t->def_stmt < p->nstmts);
    }
    for (size_t s = 0; s < p->nstmts; s++) {
        const ez_stmt *st = &p->stmts[s];
        const ez_tensor *t = &p->tensors[st->def];
        CHECK(st->root != NULL && st->root->kind != EZ_NODE_REF && st->root->kind != EZ_NODE_GATHER);
        CHECK(st->root->nout == t->rank);
        for (unsigned a = 0; a < t->rank; a++)
            CHECK(st->idx[st->root->out[a]].size == t->dims[a]);
        check_node(p, st, st->root, limit);
    }
    CHECK(p->noutputs >= 1);
    for (size_t i = 0; i < p->noutputs; i++)
        CHECK(p->outputs[i] < p->ntensors && p->tensors[p->outputs[i]].kind == EZ_TENSOR_ACT);
    mpz_clear(limit);
}

/* 0 ok, 1 source error, 2 out of memory. */
static int run_one(const uint8_t *data, size_t size)
{
    ez_diag_list diags;
    ez_program *prog = NULL;
    ez_status st = ez_compile_front("fuzz.ein", (const char *)data, size, NULL, 0, &diags, &prog);
    int r = 2;
    if (st == EZ_OK) {
        CHECK(prog != NULL && !ez_diag_any(&diags));
        check_program(prog);
        r = 0;
    } else if (st == EZ_ERR_SOURCE) {
        CHECK(prog == NULL && ez_diag_any(&diags) && diags.n >= 1);
        size_t lines = 1;
        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        for (size_t i = 0; i < diags.n; i++) {
            CHECK(diags.items[i].msg != NULL);
            CHECK(diags.items[i].span.first_line >= 0 && (size_t)diags.items[i].span.first_line <= lines);
        }
        char *text = NULL;
        if (ez_diag_render(&diags, &text) == EZ_OK)
            CHECK(text != NULL && strstr(text, "error") != NULL);
        free(text);
        r = 1;
    } else {
        CHECK(st == EZ_ERR_NOMEM && prog == NULL);
    }
    ez_program_free(prog);
    ez_diag_list_clear(&diags);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_one(data, size);
    return 0;
}

#ifndef EZ_LIBFUZZER
int main(int argc, char **argv)
{
    static const char *const names[] = {"ok", "source-error", "nomem"};
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        uint8_t *buf = NULL;
        size_t len = 0;
        ez_diag d = {{0}};
        if (ez_file_read(argv[i], &buf, &len, &d) != EZ_OK) {
            fprintf(stderr, "fuzz_parser: %s\n", d.msg);
            rc = 2;
            continue;
        }
        printf("%s %s\n", names[run_one(buf, len)], argv[i]);
        free(buf);
    }
    return rc;
}
#endif

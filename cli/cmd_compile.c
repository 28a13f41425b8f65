/* einzk compile MODEL.ein [-D NAME=VALUE]... -o MODEL.einc
 * .ein source -> checked program (compiler/sema.h) -> plan (compiler/lower.h) ->
 * proving plan (compiler/schedule.h) -> .einc artifact (compiler/einc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "runtime/prove/margins.h"

enum { O_DEFINE, O_OUT, O_N };

static const ez_cli_opt opts[O_N] = {
    [O_DEFINE] = {"-D", "NAME=VALUE", EZ_CLI_REPEAT, "override `param NAME` with a positive integer; each NAME once"},
    [O_OUT] = {"-o", "MODEL.einc", EZ_CLI_REQUIRED, "write the compiled model (the proving plan) to this file"},
};

const ez_cli_cmd ez_cli_cmd_compile = {
    "compile", ez_cmd_compile, "MODEL.ein", "model file",
    "Check a model and write its proving plan (a .einc file).", opts, O_N, NULL,
};

/* The model name when the source has none: the file name without directory and ".ein". */
static void file_stem(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ein"))
        n -= 4;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, base, n);
    out[n] = 0;
}

int ez_cmd_compile(int argc, char **argv)
{
    ez_cli_args args;
    ez_cli_defines defs;
    int rc = ez_cli_parse(&args, &ez_cli_cmd_compile, argc, argv);
    if (rc != EZ_CLI_RUN)
        return rc;
    if (!ez_cli_defines_get(&defs, &args, O_DEFINE))
        return EZ_EXIT_USAGE;
    const char *in = args.operand, *outpath = args.value[O_OUT];

    ez_diag d = {{0}};
    ez_program *prog = NULL;
    ez_plan plan;
    char stem[EZ_MAX_NAME];
    ez_status st = EZ_OK;
    ez_plan_init(&plan);
    if ((rc = ez_cli_front("compile", in, &defs, &prog)) != EZ_CLI_RUN)
        goto out;
    rc = EZ_EXIT_OK;
    file_stem(in, stem, sizeof stem);
    if ((st = ez_lower(&plan, prog, stem, &d)) != EZ_OK || (st = ez_plan_schedule(&plan, &d)) != EZ_OK) {
        /* the model breaks a plan limit (indices per op, sumcheck variables, ...) */
        if (st == EZ_ERR_INVALID) {
            fprintf(stderr, "%s: error: %s\n", in, d.msg);
            rc = EZ_EXIT_SOURCE;
            goto out;
        }
        goto fail;
    }
    /* every relation the proof will check must be unique over the integers (no wrap
     * modulo p): refuse the model otherwise, naming the statement and the widest width
     * that would fit (runtime/prove/margins.h) */
    size_t bad;
    if ((st = ez_plan_soundness(&plan, &bad, &d)) == EZ_ERR_NUMERIC) {
        fprintf(stderr, "%s:%u: error: %s\n", in, bad < plan.nops ? plan.ops[bad].line : 0, d.msg);
        if (bad < plan.nops) {
            const ez_plan_tensor *t = &plan.tensors[plan.ops[bad].out];
            unsigned w = ez_margins_widest_width(&plan, bad);
            if (w > 0)
                fprintf(stderr, "help: '%s' has %u bits; at most %u bits fit (@bits(%u)), or use a smaller scale\n",
                        t->source_name, t->bits, w, w);
            else
                fprintf(stderr, "help: no width of '%s' fits: narrow its operands or use a smaller scale\n",
                        t->source_name);
        }
        rc = EZ_EXIT_SOURCE;
        goto out;
    }
    if (st != EZ_OK)
        goto fail;
    if ((st = ez_einc_write_file(outpath, &plan, &d)) != EZ_OK)
        goto fail;
    char hex[65];
    ez_plan_digest_hex(&plan, hex);
    printf("compiled %s: %zu ops, %zu tensors -> %s (digest %.16s)\n", plan.model, plan.nops, plan.ntensors, outpath,
           hex);
    goto out;
fail:
    ez_cli_error("compile", st, &d);
    rc = ez_exit_for_status(st);
    /* a plan the compiler itself cannot encode is a bug, not a usage error */
    if (st == EZ_ERR_INVALID)
        rc = EZ_EXIT_INTERNAL;
out:
    ez_plan_clear(&plan);
    ez_program_free(prog);
    return rc;
}

/* einzk compile MODEL.ein [-D NAME=VALUE]... -o MODEL.einc
 * .ein source -> checked program (compiler/sema.h) -> plan (compiler/lower.h) ->
 * proving plan (compiler/schedule.h) -> .einc artifact (compiler/einc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "compiler/einc.h"

enum { O_DEFINE, O_OUT, O_N };

static const ez_cli_opt opts[O_N] = {
    [O_DEFINE] = {"-D", "NAME=VALUE", EZ_CLI_REPEAT, "override `param NAME` with a positive integer; each NAME once"},
    [O_OUT] = {"-o", "MODEL.einc", EZ_CLI_REQUIRED, "write the compiled model (the proving plan) to this file"},
};

const ez_cli_cmd ez_cli_cmd_compile = {
    "compile", ez_cmd_compile, "MODEL.ein", "model file",
    "Check a model and write its proving plan (a .einc file).", opts, O_N, NULL,
};

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
    ez_plan plan;
    ez_status st = ez_file_check_writable(outpath, &d);
    if (st != EZ_OK) {
        ez_cli_error("compile", st, &d);
        return ez_exit_for_status(st);
    }
    if ((rc = ez_cli_compile("compile", in, &defs, &plan)) != EZ_CLI_RUN)
        return rc;
    rc = EZ_EXIT_OK;
    if ((st = ez_einc_write_file(outpath, &plan, &d)) != EZ_OK) {
        ez_cli_error("compile", st, &d);
        rc = ez_exit_for_status(st);
    } else {
        char hex[65];
        ez_plan_digest_hex(&plan, hex);
        printf("compiled %s: %zu ops, %zu tensors -> %s (digest %.16s)\n", plan.model, plan.nops, plan.ntensors,
               outpath, hex);
    }
    ez_plan_clear(&plan);
    return rc;
}

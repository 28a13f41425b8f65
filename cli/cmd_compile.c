/* einzk compile MODEL.ein [-D NAME=VALUE]... [--scale N] [--bits N] -o MODEL.einc [--json]
 * .ein source -> checked program (compiler/sema.h) -> plan (compiler/lower.h) ->
 * proving plan (compiler/schedule.h) -> .einc artifact (compiler/einc.h).
 * --json prints {"model", "ops", "tensors", "output", "digest", "warnings"} on stdout. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "compiler/einc.h"

enum { O_DEFINE, O_SCALE, O_BITS, O_OUT, O_JSON, O_N };

const ez_cli_opt ez_cli_opts_compile[O_N + 1] = { /* the last row empty: the end */
    EZ_CLI_OPTS_OVERRIDES(O_DEFINE),
    [O_OUT] = {"-o", "MODEL.einc", EZ_CLI_REQUIRED, "write the compiled model (the proving plan) to this file"},
    [O_JSON] = {"--json", NULL, 0, "print the model, its sizes, digest and warnings (or the error) as JSON"},
};

int ez_cli_run_compile(const ez_cli_args *args)
{
    ez_cli_defines defs;
    int rc = EZ_CLI_RUN;
    if (!ez_cli_overrides_get(&defs, args, O_DEFINE))
        return EZ_EXIT_USAGE;
    const char *in = args->operand, *outpath = args->value[O_OUT];
    ez_diag d = {{0}};
    ez_plan plan;
    ez_status st = ez_file_check_writable(outpath, &d);
    if (st != EZ_OK) {
        return ez_cli_error("compile", st, &d);
    }
    json_t *warnings = json_array();
    if ((rc = ez_cli_compile("compile", in, &defs, warnings, &plan)) != EZ_CLI_RUN) {
        json_decref(warnings);
        return rc;
    }
    rc = EZ_EXIT_OK;
    char hex[65];
    ez_plan_digest_hex(&plan, hex);
    if ((st = ez_einc_write_file(outpath, &plan, &d)) != EZ_OK) {
        rc = ez_cli_error("compile", st, &d);
    } else if (args->n[O_JSON]) {
        json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:s, s:O}", "model", plan.model, "ops", (json_int_t)plan.nops, "tensors",
                              (json_int_t)plan.ntensors, "output", outpath, "digest", hex, "warnings", warnings);
        json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(o);
    } else {
        printf("compiled %s: %zu ops, %zu tensors -> %s (digest %.16s)\n", plan.model, plan.nops, plan.ntensors,
               outpath, hex);
    }
    json_decref(warnings);
    ez_plan_clear(&plan);
    return rc;
}

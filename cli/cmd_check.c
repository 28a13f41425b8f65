/* einzk check MODEL.ein [-D NAME=VALUE]... [--scale N] [--bits N] [--json] — parse and
 * check a model, print nothing on success but its warnings (stderr). Diagnostics go to
 * stderr; exit 3 for errors in the source, 2 for a bad command line, 4 when the file
 * cannot be read or is no source. --json prints {"valid": true, "warnings": [...]} or
 * the error object (cli/report.h) on stdout. */
#include <jansson.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/model.h"

enum { O_DEFINE, O_SCALE, O_BITS, O_JSON, O_N };

const ez_cli_opt ez_cli_opts_check[O_N + 1] = { /* the last row empty: the end */
    EZ_CLI_OPTS_OVERRIDES(O_DEFINE),
    [O_JSON] = {"--json", NULL, 0, "print {\"valid\": true, \"warnings\": [...]} or the error as JSON on stdout"},
};

int ez_cli_run_check(const ez_cli_args *args)
{
    ez_cli_defines defs;
    ez_program *prog = NULL;
    int rc = EZ_CLI_RUN;
    if (!ez_cli_overrides_get(&defs, args, O_DEFINE))
        return EZ_EXIT_USAGE;
    json_t *warnings = json_array();
    rc = ez_cli_front("check", args->operand, &defs, warnings, &prog);
    ez_program_free(prog);
    if (rc == EZ_CLI_RUN && args->n[O_JSON]) {
        json_t *o = json_pack("{s:b, s:O}", "valid", 1, "warnings", warnings);
        json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(o);
    }
    json_decref(warnings);
    return rc == EZ_CLI_RUN ? EZ_EXIT_OK : rc;
}

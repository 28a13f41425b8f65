/* einzk check MODEL.ein [-D NAME=VALUE]... — parse and check a model, print nothing on
 * success (DESIGN.md §4). Diagnostics go to stderr; exit 3 for errors in the source,
 * 2 for a bad command line, 4 when the file cannot be read. */
#include "cli/cli.h"
#include "cli/model.h"

enum { O_DEFINE, O_N };

static const ez_cli_opt opts[O_N] = {
    [O_DEFINE] = {"-D", "NAME=VALUE", EZ_CLI_REPEAT, "override `param NAME` with a positive integer; each NAME once"},
};

const ez_cli_cmd ez_cli_cmd_check = {
    "check", ez_cmd_check, "MODEL.ein", "model file",
    "Parse and check a model; print nothing when it is valid.", opts, O_N, NULL,
};

int ez_cmd_check(int argc, char **argv)
{
    ez_cli_args args;
    ez_cli_defines defs;
    ez_program *prog = NULL;
    int rc = ez_cli_parse(&args, &ez_cli_cmd_check, argc, argv);
    if (rc != EZ_CLI_RUN)
        return rc;
    if (!ez_cli_defines_get(&defs, &args, O_DEFINE))
        return EZ_EXIT_USAGE;
    rc = ez_cli_front("check", args.operand, &defs, &prog);
    ez_program_free(prog);
    return rc == EZ_CLI_RUN ? EZ_EXIT_OK : rc;
}

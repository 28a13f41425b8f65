/* einzk — command dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "config.h"

int ez_exit_for_status(ez_status st)
{
    switch (st) {
    case EZ_OK: return EZ_EXIT_OK;
    case EZ_ERR_REJECT: return EZ_EXIT_REJECT;
    case EZ_ERR_INVALID: return EZ_EXIT_USAGE;
    case EZ_ERR_SOURCE: return EZ_EXIT_SOURCE;
    case EZ_ERR_IO:
    case EZ_ERR_FORMAT:
    case EZ_ERR_INPUT:
    case EZ_ERR_UNSUPPORTED: return EZ_EXIT_INPUT;
    case EZ_ERR_NUMERIC: return EZ_EXIT_NUMERIC;
    case EZ_ERR_NOMEM:
    case EZ_ERR_INTERNAL: return EZ_EXIT_INTERNAL;
    }
    return EZ_EXIT_INTERNAL;
}

void ez_cli_error(const char *cmd, ez_status st, const ez_diag *d)
{
    const char *msg = d && d->msg[0] ? d->msg : ez_status_str(st);
    fprintf(stderr, "einzk %s: error: %s\n", cmd, msg);
}

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} ez_command;

static const ez_command commands[] = {
    {"check", ez_cmd_check, "check   MODEL.ein [-D NAME=VALUE]...              parse and check, no output"},
    {"compile", ez_cmd_compile, "compile MODEL.ein [-D NAME=VALUE]... -o MODEL.einc"},
    {"info", ez_cmd_info, "info    MODEL.einc [--json]                       per-op plan table"},
    {"gen", ez_cmd_gen, "gen     MODEL.einc --seed N --weights W.safetensors --input IN.json"},
    {"run", ez_cmd_run, "run     MODEL.einc --weights W.safetensors --input IN.json [-o OUT.json] [--compare-float]"},
    {"setup", ez_cmd_setup, "setup   MODEL.einc --weights W.safetensors --vk MODEL.vk --pk MODEL.pk"},
    {"prove", ez_cmd_prove, "prove   MODEL.einc (--pk MODEL.pk | --weights W.safetensors) --input IN.json -o PROOF [--json]"},
    {"verify", ez_cmd_verify, "verify  --vk MODEL.vk PROOF [--input IN.json] [-o OUT.json] [--json]"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: einzk <command> [options]\n\n"
               "einzk proves neural-network inference written as Einstein-summation statements.\n\n"
               "commands:\n");
    for (const ez_command *c = commands; c->name; c++)
        fprintf(f, "  %s\n", c->usage);
    fprintf(f, "\n  einzk --version | --help\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EZ_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EZ_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("einzk %s\n", PACKAGE_VERSION);
        return EZ_EXIT_OK;
    }
    for (const ez_command *c = commands; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->run(argc - 1, argv + 1);
    fprintf(stderr, "einzk: unknown command '%s' (see einzk --help)\n", argv[1]);
    return EZ_EXIT_USAGE;
}

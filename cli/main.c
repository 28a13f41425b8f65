/* einzk — command dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/prompt.h"
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

/* Every subcommand, in the order the overview lists them: its name, function, operand,
 * summary, option table (cli/cmd_<name>.c) and notes. Adding one is a file and a row. */
static const ez_cli_cmd commands[] = {
    {"check", ez_cli_run_check, "MODEL.ein", "model file",
     "Parse and check a model; print nothing when it is valid (warnings on stderr).", ez_cli_opts_check, NULL},
    {"compile", ez_cli_run_compile, "MODEL.ein", "model file",
     "Check a model and write its proving plan (a .einc file).", ez_cli_opts_compile, NULL},
    {"info", ez_cli_run_info, "MODEL.einc", "file",
     "Print a compiled model's per-op plan and what a proof of it holds.", ez_cli_opts_info, NULL},
    {"gen", ez_cli_run_gen, "MODEL.einc", "model file",
     "Write deterministic random weights and inputs for a compiled model.", ez_cli_opts_gen, NULL},
    {"run", ez_cli_run_run, "MODEL.einc", "model file",
     "Run a model in exact integer arithmetic; write its outputs as JSON.", ez_cli_opts_run,
     "--weights and --input are required unless --dump-plan is given."},
    {"setup", ez_cli_run_setup, "MODEL.einc", "model file",
     "Commit the weights once; write the verifying and proving keys.", ez_cli_opts_setup, NULL},
    {"prove", ez_cli_run_prove, "MODEL.einc", "model file",
     "Run a model in exact integer arithmetic and prove the run.", ez_cli_opts_prove,
     "Give exactly one of --pk and --weights."},
    {"verify", ez_cli_run_verify, "FILE", "proof or certificate",
     "Verify a proof or a certificate with the verifying key alone (exit 0 accepted, 1 rejected).", ez_cli_opts_verify,
     "FILE is a proof (`einzk prove`) or a certificate (`einzk certify`)."},
    {"generate", ez_cli_run_generate, "MODEL.einc", "model file",
     "Generate text greedily in the integer runtime (KV cache).", ez_cli_opts_generate,
     EZ_CLI_NOTE_GENERATION},
    {"certify", ez_cli_run_certify, "MODEL.einc", "model file",
     "Generate greedily and prove the whole text with one forward pass.", ez_cli_opts_certify,
     EZ_CLI_NOTE_GENERATION},
    {"inspect", ez_cli_run_inspect, "FILE", "file",
     "Show what an .einc, vk, pk, proof or certificate holds.", ez_cli_opts_inspect, NULL},
    {"calibrate", ez_cli_run_calibrate, "MODEL.ein", "model file",
     "Choose scale and widths from sample data; report each scale's fidelity and cost.", ez_cli_opts_calibrate,
     "Widths hold the samples' largest values (one bit of margin for inputs and computed tensors)."},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const ez_cli_cmd *ez_cli_commands(size_t *n)
{
    *n = NCOMMANDS;
    return commands;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: einzk <command> [options]\n\n"
               "einzk proves neural-network inference written as Einstein-summation statements.\n\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n  einzk help COMMAND, einzk COMMAND --help   that command's options\n"
               "  einzk --version | --help\n\n"
               "exit codes: 0 success (proof accepted), 1 proof rejected, 2 bad command line,\n"
               "3 error in the .ein source, 4 input or I/O error, 5 value out of range, 70 a bug\n");
}

static const ez_cli_cmd *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

/* "unknown command" with the closest command name, if one is close. */
static int unknown_command(const char *name)
{
    ez_suggest s;
    ez_suggest_init(&s, name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        ez_suggest_try(&s, commands[i].name);
    ez_suggest_try(&s, "help");
    if (s.best)
        fprintf(stderr, "einzk: unknown command '%s'; did you mean '%s'? (see einzk --help)\n", name, s.best);
    else
        fprintf(stderr, "einzk: unknown command '%s' (see einzk --help)\n", name);
    return EZ_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EZ_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "help") && argc >= 3) {
        const ez_cli_cmd *c = find_command(argv[2]);
        if (c == NULL)
            return unknown_command(argv[2]);
        ez_cli_print_help(stdout, c);
        return EZ_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EZ_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("einzk %s\n", PACKAGE_VERSION);
        return EZ_EXIT_OK;
    }
    /* hidden: what the build (einzk.1) and the bash completion read from the tables */
    if (!strcmp(argv[1], "--man")) {
        ez_cli_print_man(stdout);
        return EZ_EXIT_OK;
    }
    if (!strcmp(argv[1], "--list-commands")) {
        ez_cli_list_commands(stdout);
        return EZ_EXIT_OK;
    }
    if (!strcmp(argv[1], "--list-options"))
        return argc == 3 && ez_cli_list_options(stdout, argv[2]) ? EZ_EXIT_OK : EZ_EXIT_USAGE;
    const ez_cli_cmd *c = find_command(argv[1]);
    if (c == NULL)
        return unknown_command(argv[1]);
    ez_cli_args a;
    int rc = ez_cli_parse(&a, c, argc - 1, argv + 1);
    return rc == EZ_CLI_RUN ? c->run(&a) : rc; /* rc: after --help (0) or a usage error (2) */
}

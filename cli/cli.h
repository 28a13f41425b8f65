/* cli — the only code that prints or exits. One file per subcommand (cli/cmd_<name>.c),
 * exporting its option table `ez_cli_opts_<name>` and its function `ez_cli_run_<name>`;
 * main.c's one table of subcommands (ez_cli_cmd rows, cli/args.h) names them with the
 * subcommand's operand, summary and notes. main.c calls the function on a command line
 * parsed against the options; it returns an exit code. */
#ifndef EZ_CLI_H
#define EZ_CLI_H

#include <stdio.h>

#include "cli/args.h"
#include "lib/util.h"

/* Exit codes (docs/cli.md). */
enum {
    EZ_EXIT_OK = 0,       /* success, proof accepted */
    EZ_EXIT_REJECT = 1,   /* proof rejected, including malformed or truncated proofs */
    EZ_EXIT_USAGE = 2,    /* bad command line */
    EZ_EXIT_SOURCE = 3,   /* error in the .ein source */
    EZ_EXIT_INPUT = 4,    /* input or I/O error */
    EZ_EXIT_NUMERIC = 5,  /* value outside its proven range, quantization overflow */
    EZ_EXIT_INTERNAL = 70 /* a bug */
};

/* The exit code for a library status (EZ_ERR_REJECT -> 1, EZ_ERR_SOURCE -> 3, ...). */
int ez_exit_for_status(ez_status st);

/* Print "einzk <cmd>: error: <msg>" to stderr (msg from diag if set, else the status),
 * and under --json the error object with code ez_exit_for_status(st) (cli/report.h).
 * Returns that exit code, the subcommand's. */
int ez_cli_error(const char *cmd, ez_status st, const ez_diag *d);

/* Every subcommand's row, in the order `einzk --help` lists them (n set). */
const ez_cli_cmd *ez_cli_commands(size_t *n);

/* Generated from the tables (cli/man.c): the manual page (troff), the subcommand names,
 * one per line, and a subcommand's options, "NAME VALUE" per line ("-" for a flag);
 * ez_cli_list_options is false for an unknown subcommand. */
void ez_cli_print_man(FILE *f);
void ez_cli_list_commands(FILE *f);
bool ez_cli_list_options(FILE *f, const char *name);

/* The subcommands, one file each (cli/cmd_<name>.c): the option table (its rows indexed
 * by the file's own enum, one empty row at the end) and the function main.c runs on a
 * command line parsed against it (a->cmd is the subcommand's row). */
#define EZ_CLI_SUBCOMMAND(name)                                                                                        \
    extern const ez_cli_opt ez_cli_opts_##name[];                                                                      \
    int ez_cli_run_##name(const ez_cli_args *a);
EZ_CLI_SUBCOMMAND(check)
EZ_CLI_SUBCOMMAND(compile)
EZ_CLI_SUBCOMMAND(info)
EZ_CLI_SUBCOMMAND(gen)
EZ_CLI_SUBCOMMAND(run)
EZ_CLI_SUBCOMMAND(setup)
EZ_CLI_SUBCOMMAND(prove)
EZ_CLI_SUBCOMMAND(verify)
EZ_CLI_SUBCOMMAND(generate)
EZ_CLI_SUBCOMMAND(certify)
EZ_CLI_SUBCOMMAND(inspect)
EZ_CLI_SUBCOMMAND(calibrate)
#undef EZ_CLI_SUBCOMMAND

#endif

/* cli — the only code that prints or exits. One file per subcommand (cli/cmd_<name>.c),
 * exporting only its command-line table `ez_cli_cmd_<name>` (cli/args.h), which main.c
 * lists; the table's `run` is the subcommand, which main.c calls on a command line parsed
 * against the table and which returns an exit code. */
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

/* Every subcommand's table, in the order `einzk --help` lists them (n set). */
const ez_cli_cmd *const *ez_cli_commands(size_t *n);

/* Generated from the tables (cli/man.c): the manual page (troff), the subcommand names,
 * one per line, and a subcommand's options, "NAME VALUE" per line ("-" for a flag);
 * ez_cli_list_options is false for an unknown subcommand. */
void ez_cli_print_man(FILE *f);
void ez_cli_list_commands(FILE *f);
bool ez_cli_list_options(FILE *f, const char *name);

/* The subcommands, one file each (cli/cmd_<name>.c): their command-line tables (name,
 * the subcommand's function, options, help). */
extern const ez_cli_cmd ez_cli_cmd_check, ez_cli_cmd_compile, ez_cli_cmd_info, ez_cli_cmd_gen, ez_cli_cmd_run,
    ez_cli_cmd_setup, ez_cli_cmd_prove, ez_cli_cmd_verify, ez_cli_cmd_generate, ez_cli_cmd_certify,
    ez_cli_cmd_inspect, ez_cli_cmd_calibrate;

#endif

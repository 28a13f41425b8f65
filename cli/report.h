/* report — how an error reaches the user. Always "einzk CMD: error: MESSAGE" (or the
 * rendered .ein diagnostics) on stderr; and when the command line has --json (a
 * subcommand whose table has that flag), exactly ONE object on stdout and nothing else:
 *
 *     {"error": {"code": EXIT, "message": "...", "file": "...", "line": N, "column": N}}
 *
 * code is the exit code the process returns; file, line and column only when known: a
 * .ein diagnostic's position, or the command-line file a message starts with
 * ("IN.json:3:5: invalid JSON: ..." gives file IN.json, line 3, column 5).
 *
 * The mode is the one piece of process state in cli/: ez_cli_parse sets it from the
 * command line before anything can fail (so a usage error under --json is an object
 * too), and the error printers read it. A second error object is never printed. */
#ifndef EZ_CLI_REPORT_H
#define EZ_CLI_REPORT_H

#include <stdbool.h>

#include "cli/args.h"

/* Start reporting for cmd's command line argv[1..argc): JSON mode iff cmd has a --json
 * row and the word --json occurs before any "--". Called by ez_cli_parse. */
void ez_cli_report_begin(const ez_cli_cmd *cmd, int argc, char **argv);

/* True in JSON mode (after ez_cli_report_begin saw --json). */
bool ez_cli_report_json(void);

/* In JSON mode, print the error object (once per process) on stdout; otherwise nothing.
 * file NULL: derived from msg when it starts with a file named on the command line
 * (then line and column too, from "FILE:LINE:COL:"); line/column 0: unknown. */
void ez_cli_report_json_error(int code, const char *msg, const char *file, int line, int column);

/* Print "einzk CMD: error: MESSAGE" on stderr and, in JSON mode, the object with this
 * exit code; returns code. For errors whose exit code is not a status's. */
int ez_cli_fail(const char *cmd, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

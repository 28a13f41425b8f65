/* args — command-line pieces shared by subcommands: `-D NAME=VALUE` param overrides
 * (used by `einzk check` and `einzk compile`; any command taking a .ein file should
 * use it so the syntax is the same everywhere).
 *
 * Usage in a subcommand's option loop:
 *
 *     ez_args_defines defs;
 *     ez_args_defines_init(&defs);
 *     for (int i = 1; i < argc; i++) {
 *         int r = ez_args_define(&defs, argc, argv, &i, "compile");
 *         if (r < 0) return EZ_EXIT_USAGE;   // message already printed
 *         if (r > 0) continue;               // consumed "-D X=1" or "-DX=1"
 *         ... other options ...
 *     }
 *     ez_compile_front(path, src, len, defs.defs, defs.n, &diags, &prog);
 */
#ifndef EZ_CLI_ARGS_H
#define EZ_CLI_ARGS_H

#include <stddef.h>

#include "compiler/sema.h"

#define EZ_ARGS_MAX_DEFINES 64

typedef struct {
    size_t n;
    ez_define defs[EZ_ARGS_MAX_DEFINES];      /* defs[k].name points into names[k] */
    char names[EZ_ARGS_MAX_DEFINES][EZ_MAX_NAME];
    char texts[EZ_ARGS_MAX_DEFINES][EZ_MAX_NAME + 32]; /* "-D S=128", for messages */
} ez_args_defines;

void ez_args_defines_init(ez_args_defines *d);

/* Try to consume a -D option at argv[*i]: "-D NAME=VALUE" (two arguments) or
 * "-DNAME=VALUE". NAME is an identifier ([A-Za-z_][A-Za-z0-9_]*, < EZ_MAX_NAME bytes),
 * VALUE a decimal integer (optional sign) that fits int64. A later -D for the same
 * NAME replaces the earlier one.
 * Returns 0 when argv[*i] is not a -D option (nothing consumed); 1 when consumed (*i
 * then indexes the last argument used); -1 on a malformed -D, after printing
 * "einzk <cmd>: error: ..." to stderr (the caller exits with EZ_EXIT_USAGE). */
int ez_args_define(ez_args_defines *d, int argc, char **argv, int *i, const char *cmd);

#endif

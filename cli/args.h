/* args — the one command-line parser of every subcommand, driven by a table.
 *
 * Each cli/cmd_<name>.c declares its options as rows of an ez_cli_opt table (name,
 * value placeholder or none, repeatable, required, one-line description); main.c's
 * table of subcommands gives each an ez_cli_cmd row naming it; main.c parses the command
 * line against it (ez_cli_parse) and runs the subcommand on what it found. The same table produces the usage
 * line, `einzk CMD --help` and `einzk help CMD`, so help cannot drift from what the
 * parser accepts; docs/cli.md lists the same rows.
 *
 * Accepted spellings, for every subcommand:
 *   --opt VALUE, --opt=VALUE     a long option with a value
 *   -o VALUE, -oVALUE            a one-letter option with a value (-D NAME=V, -DNAME=V)
 *   --flag                       an option without a value (--flag=x is an error)
 *   -h, --help                   the subcommand's help on stdout, exit 0
 *   --                           everything after it is an operand
 * Usage errors (exit 2, one line on stderr naming the problem, then the usage line):
 * an unknown option (with "did you mean"), a missing value, a value given to a flag, a
 * non-repeatable option given twice, a missing required option or operand, more than
 * one operand.
 *
 * Usage in a subcommand:
 *
 *     enum { O_WEIGHTS, O_JSON, O_N };
 *     const ez_cli_opt ez_cli_opts_x[O_N + 1] = { // the last row empty: the end
 *         [O_WEIGHTS] = {"--weights", "FILE", EZ_CLI_REQUIRED, "the model's weights"},
 *         [O_JSON] = {"--json", NULL, 0, "print JSON"},
 *     };
 *     int ez_cli_run_x(const ez_cli_args *a)  // run by main.c after a valid command line
 *     {
 *         ... a->operand, a->value[O_WEIGHTS], a->n[O_JSON] ...
 *     }
 *
 * and in main.c's table (cli.h declares both names with EZ_CLI_SUBCOMMAND(x)):
 *
 *     {"x", ez_cli_run_x, "MODEL.einc", "model file", "...", ez_cli_opts_x, NULL}, */
#ifndef EZ_CLI_ARGS_H
#define EZ_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler/sema.h"

/* ---- the table --------------------------------------------------------------------- */

enum {
    EZ_CLI_REPEAT = 1u << 0,  /* may be given more than once; every value is kept */
    EZ_CLI_REQUIRED = 1u << 1 /* must be given */
};

typedef struct {
    const char *name;  /* "--weights", or one letter "-o", "-D" */
    const char *value; /* the value's placeholder in help ("FILE", "NAME=VALUE"); NULL: a flag */
    unsigned flags;    /* EZ_CLI_REPEAT | EZ_CLI_REQUIRED */
    const char *help;  /* one line: what the option does */
} ez_cli_opt;

typedef struct ez_cli_args ez_cli_args;

typedef struct {
    const char *name;                   /* "prove" */
    int (*run)(const ez_cli_args *a);   /* the subcommand, on its parsed command line */
    const char *operand;                /* the one operand's placeholder ("MODEL.einc"), required */
    const char *operand_noun;           /* it in messages: "model file" */
    const char *summary;                /* one line: what the subcommand does */
    const ez_cli_opt *opts;             /* the table: rows up to the first with no name (at most EZ_CLI_MAX_OPTS) */
    const char *notes;                  /* lines after the options in --help (rules between options), or NULL */
} ez_cli_cmd;

#define EZ_CLI_MAX_OPTS 16

/* Rows several subcommands share, written once so that their help cannot drift apart
 * (a subcommand whose row says something else, such as verify's --threads, writes its own). */
#define EZ_CLI_OPT_DEFINE {"-D", "NAME=VALUE", EZ_CLI_REPEAT, "override `param NAME` with a positive integer; each NAME once"}
#define EZ_CLI_OPT_SCALE {"--scale", "N", 0, "the default scale (fraction bits, 0 to 60) instead of the source's `scale`"}
#define EZ_CLI_OPT_BITS {"--bits", "N", 0, "the default width (signed bits, 2 to 62) instead of the source's `bits`"}
/* The model overrides as rows first (-D), first + 1 (--scale), first + 2 (--bits) of a
 * command's table, where ez_cli_overrides_get reads them. */
#define EZ_CLI_OPTS_OVERRIDES(first)                                                                              \
    [(first)] = EZ_CLI_OPT_DEFINE, [(first) + 1] = EZ_CLI_OPT_SCALE, [(first) + 2] = EZ_CLI_OPT_BITS
#define EZ_CLI_OPT_WEIGHTS {"--weights", "W.safetensors", EZ_CLI_REQUIRED, "the model's weights (safetensors)"}
#define EZ_CLI_OPT_THREADS {"--threads", "N", 0, "OpenMP threads, 1 to 1024 (default: OpenMP's, OMP_NUM_THREADS)"}
#define EZ_CLI_MAX_VALUES 128 /* option occurrences on one command line */

/* The number of cmd's option rows (those before the empty row that ends its table). */
size_t ez_cli_nopts(const ez_cli_cmd *cmd);

/* ---- parsing ----------------------------------------------------------------------- */

/* What ez_cli_parse found. Strings point into argv. */
struct ez_cli_args {
    const ez_cli_cmd *cmd;
    const char *operand;                /* the operand, or NULL (only after help/errors) */
    unsigned n[EZ_CLI_MAX_OPTS];        /* how many times each option was given */
    const char *value[EZ_CLI_MAX_OPTS]; /* its value (the last one if repeatable); NULL if absent or a flag */
    size_t nvals;                       /* every occurrence of a repeatable option with a value, in order */
    struct {
        unsigned opt;
        const char *value;
    } vals[EZ_CLI_MAX_VALUES];
};

/* ez_cli_parse's return value when the subcommand should go on (not an exit code). */
#define EZ_CLI_RUN (-1)

/* Parse argv[1..argc) (argv[0] is the subcommand's name) against cmd's table into *a.
 * Returns EZ_CLI_RUN when the command line is valid; otherwise the exit code after
 * printing: EZ_EXIT_OK after -h/--help (help on stdout), EZ_EXIT_USAGE after a usage
 * error (stderr). No allocation; O(argc * nopts). */
int ez_cli_parse(ez_cli_args *a, const ez_cli_cmd *cmd, int argc, char **argv);

/* Print "einzk CMD: error: <message>" and cmd's usage line to stderr; returns
 * EZ_EXIT_USAGE, for the rules a table cannot say (e.g. "one of --pk and --weights"). */
int ez_cli_usage_error(const ez_cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cmd's usage line ("usage: einzk CMD OPERAND --req V [--opt V] [--flag] [-D V]..."),
 * wrapped, to f. */
void ez_cli_print_usage(FILE *f, const ez_cli_cmd *cmd);
/* cmd's whole help to f: usage line, summary, one line per option, notes. */
void ez_cli_print_help(FILE *f, const ez_cli_cmd *cmd);

/* ---- values ------------------------------------------------------------------------ */

/* The value of option opt as an integer in [lo, hi] (strtoull in `base`: 10, or 0 for
 * C's decimal/0x hex/0 octal), into *out; untouched when the option is absent.
 * Returns false after printing a usage error naming the option. */
bool ez_cli_uint(const ez_cli_args *a, unsigned opt, int base, uint64_t lo, uint64_t hi, uint64_t *out);

/* What the command line overrides in a source: -D NAME=VALUE params and the --scale /
 * --bits defaults, converted for ez_compile_front_opts. */
#define EZ_CLI_MAX_DEFINES 64

typedef struct {
    int scale, bits;                              /* --scale N, --bits N; -1: the source's */
    size_t n;
    ez_define defs[EZ_CLI_MAX_DEFINES];           /* defs[k].name points into names[k] */
    char names[EZ_CLI_MAX_DEFINES][EZ_MAX_NAME];
    char texts[EZ_CLI_MAX_DEFINES][EZ_MAX_NAME + 32]; /* "-D S=128", for messages */
} ez_cli_defines;

/* Every value of the repeatable option opt into d, in order. Each must be NAME=VALUE:
 * NAME an identifier ([A-Za-z_][A-Za-z0-9_]*, shorter than EZ_MAX_NAME), VALUE a
 * decimal integer (optional sign) that fits int64 (its range as a size is checked by
 * the compiler, which knows the param). Returns false after printing a usage error for
 * a malformed value, a NAME given twice, or more than EZ_CLI_MAX_DEFINES. */
bool ez_cli_defines_get(ez_cli_defines *d, const ez_cli_args *a, unsigned opt);

/* Everything a command line overrides in a source, for the subcommands that compile
 * one, from options first, first + 1, first + 2 (EZ_CLI_OPTS_OVERRIDES' order):
 * ez_cli_defines_get of -D, then --scale N (0 to 60) and --bits N (2 to 62) (-1 when
 * absent). Returns false after printing a usage error. */
bool ez_cli_overrides_get(ez_cli_defines *d, const ez_cli_args *a, unsigned first);

#endif

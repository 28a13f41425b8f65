/* model — what several subcommands do with a model before their own work: check a
 * .ein source (check, compile), read a .einc and check it for its use (gen, run, setup,
 * prove), make the allocator keep freed memory, set the OpenMP thread count. */
#ifndef EZ_CLI_MODEL_H
#define EZ_CLI_MODEL_H

#include <jansson.h>
#include <stdint.h>

#include "cli/args.h"
#include "compiler/plan.h"
#include "compiler/sema.h"
#include "lib/util.h"
#include "runtime/io/tensorio.h"

/* The front end for check and compile: read the .ein file at path and check it with the
 * command line's overrides (ez_compile_front_opts). Returns EZ_CLI_RUN with *prog the
 * checked program (ez_program_free), its warnings rendered to stderr and, when warnings
 * is a JSON array, appended to it (ez_cli_diag_json); otherwise *prog is NULL and the
 * exit code after printing to stderr the rendered diagnostics (EZ_EXIT_SOURCE) or "einzk
 * CMD: error: ..." (an unreadable file or an einzk binary file: EZ_EXIT_INPUT; out of
 * memory: EZ_EXIT_INTERNAL), and under --json the error object (cli/report.h). */
int ez_cli_front(const char *cmd, const char *path, const ez_cli_defines *defs, json_t *warnings, ez_program **prog);

/* A diagnostic as {"message", "file"[, "line", "column"]}. */
json_t *ez_cli_diag_json(const ez_diag_list *l, const ez_diag_item *it);

/* What einzk file kinds are called (runtime/formats/sections.h ez_file_kind). */
#define EZ_KIND_EINC "compiled model (.einc)"
#define EZ_KIND_VK "verifying key"
#define EZ_KIND_PK "proving key"
#define EZ_KIND_PROOF "proof"
#define EZ_KIND_CERT "certificate"

/* Operator errors: data (of the file at path) that is an einzk file of another kind than
 * `kind` (NULL: a file that is no einzk binary at all, e.g. a .ein source, weights or a
 * JSON input) is EZ_ERR_INPUT "PATH is a proving key, not NOUN" (noun: "a verifying
 * key"). EZ_OK otherwise, also for bytes of no known kind (the reader says what is
 * wrong with them). */
ez_status ez_cli_expect_kind(const char *path, const uint8_t *data, size_t len, const char *kind, const char *noun,
                             ez_diag *d);
/* The same on the first bytes of the file at path (EZ_OK when it cannot be opened: the
 * reader reports that). For an expected .einc, a file named *.ein that is no einzk file
 * is said to be a source that needs compiling. */
ez_status ez_cli_expect_kind_file(const char *path, const char *kind, const char *noun, ez_diag *d);
/* ez_cli_expect_kind_file(path, NULL, noun, d) for each non-NULL path of the n given
 * (weights, JSON inputs, vocabularies: no einzk binary file). */
ez_status ez_cli_expect_data(ez_diag *d, size_t n, const char *const *paths, const char *const *nouns);
#define EZ_NOUN_WEIGHTS "a safetensors weights file"
#define EZ_NOUN_INPUT "a JSON input"
#define EZ_NOUN_VOCAB "a JSON vocabulary"

/* The whole compiler for compile and `verify --model`: the front end (ez_cli_front, which
 * also gets warnings), the
 * plan, its EqSchedules, the field margins of every relation (a model whose relation could
 * wrap modulo p is refused naming the statement and the widest width that fits) and the
 * digest. Returns EZ_CLI_RUN with *plan set (ez_plan_clear), else the exit code after
 * printing (EZ_EXIT_SOURCE for the model's errors). */
int ez_cli_compile(const char *cmd, const char *path, const ez_cli_defines *defs, json_t *warnings, ez_plan *plan);

/* The commitment scheme of option opt of a (a --pcs ligero|whir row), or the default
 * (EZ_PCS_DEFAULT_SCHEME: WHIR) when it is absent. Returns false after printing a usage
 * error for another value. */
bool ez_cli_pcs_scheme(const ez_cli_args *a, unsigned opt, unsigned *scheme);

/* How much of a plan to check after reading it. */
typedef enum {
    EZ_CLI_PLAN_READ,  /* read only (gen: it writes data for any plan) */
    EZ_CLI_PLAN_RUN,   /* and the executor can run it (run) */
    EZ_CLI_PLAN_PROVE  /* and the prover can prove every op (setup, prove) */
} ez_cli_plan_use;

/* Read the .einc file at path into *plan (initialised here; clear it with ez_plan_clear,
 * also after a failure) and check it for `use`. Returns EZ_OK; EZ_ERR_IO (unreadable),
 * EZ_ERR_FORMAT (malformed, or a plan the executor cannot run: a bad .einc),
 * EZ_ERR_UNSUPPORTED (an op the prover cannot prove yet, named in d), EZ_ERR_NOMEM.
 * Cost: the file's size plus O(ops * indices) checks (PROVE: the advice layout). */
ez_status ez_cli_plan_load(ez_plan *plan, const char *path, ez_cli_plan_use use, ez_diag *d);

/* Keep freed memory in the heap instead of returning it to the system. The prover
 * allocates and frees many tables of megabytes (sumcheck scratch, eq tables, fraction
 * trees, the PCS's); served from fresh mmaps every one costs a page fault and a zeroed
 * page per 4 KiB (measured: a third of the prover's CPU time on the GPT-2-sized
 * attention layer), while reused heap memory costs nothing. A command-line process
 * gives it all back at exit anyway. Call once, before the first large allocation. */
void ez_cli_tune_malloc(void);

/* EZ_SPILL_DIR (docs/cli.md), when set, must be a writable directory: the WHIR prover
 * data would otherwise silently stay in memory (lib/util.h ez_spill_copy falls back), and
 * a 512-token GPT-2 prove that counted on the spill would run out of memory instead of
 * failing up front. Likewise an EZ_SPILL_BUDGET (ez_cli_spill_auto) that is not a
 * positive number of bytes. Prints "einzk CMD: error: ..." and returns false otherwise. */
bool ez_cli_spill_dir_ok(const char *cmd);

/* Choose EZ_SPILL_DIR for a prover that would not fit in memory (docs/cli.md): when the
 * variable is UNSET (an empty value keeps everything in memory), and the prover's
 * estimated memory — 24 B per committed entry (the advice value, WHIR's stacked copy
 * and its oracle-0 tree; `advice` false for setup, which commits the weights alone) —
 * exceeds the budget (EZ_SPILL_BUDGET bytes, default half the physical memory), set it to
 * $TMPDIR (else /tmp) when that is a writable directory and say so on stderr ("einzk
 * CMD: note: ..."). An EZ_SPILL_BUDGET that is not a positive integer is refused by
 * ez_cli_spill_dir_ok first. Builds p's layout: O(ops) plus the plan's supports. */
void ez_cli_spill_auto(const char *cmd, const ez_plan *p, bool advice);

/* Set the OpenMP thread count from option opt of a (a --threads N row: 1 to 1024), or
 * to dflt when it is absent (0: keep OpenMP's default, OMP_NUM_THREADS). An N above the
 * CPU count is capped to it with a note on stderr. Returns false after printing a usage
 * error for a bad N. Without OpenMP only N is checked. */
bool ez_cli_threads(const ez_cli_args *a, unsigned opt, uint64_t dflt);

/* The model name when the source has none: the file name at path without directory and
 * ".ein", into out (cap bytes, truncated). */
void ez_cli_file_stem(const char *path, char *out, size_t cap);

#endif

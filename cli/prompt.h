/* prompt — the prompt options of `generate`, `certify` and `verify`: token ids
 * (--prompt-tokens 1,2,3) or text (--prompt TEXT, encoded with --vocab V.json), and the
 * generated text's display (ids, and text when a vocabulary is given). */
#ifndef EZ_CLI_PROMPT_H
#define EZ_CLI_PROMPT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/args.h"
#include "lib/util.h"
#include "runtime/exec/decode.h"
#include "runtime/io/vocab.h"

/* Parse "1,2,3" (commas and/or spaces) into a new array. EZ_ERR_INPUT naming the item
 * that is not a non-negative integer, or an empty list; EZ_ERR_NOMEM. */
ez_status ez_cli_parse_tokens(const char *text, int64_t **ids, size_t *n, ez_diag *d);

/* The prompt from the options: tokens (a list) or text (with vocab, which must then be
 * non-NULL). Exactly one of tokens and text is non-NULL. Out: *ids (caller frees), *n. */
ez_status ez_cli_prompt(const char *tokens, const char *text, const ez_vocab *vocab, int64_t **ids, size_t *n,
                        ez_diag *d);

/* A JSON array of ids. */
json_t *ez_cli_tokens_json(const int64_t *ids, size_t n);

/* Print ids to f as "[1, 2, 3]", or as the decoded text in quotes when vocab is given
 * (ids the vocabulary does not cover print as "<id>"). */
void ez_cli_print_tokens(FILE *f, const int64_t *ids, size_t n, const ez_vocab *vocab);

/* The decoded text (new string; NULL without a vocab or on an id it lacks). */
char *ez_cli_tokens_text(const int64_t *ids, size_t n, const ez_vocab *vocab);

/* ---- a generation ------------------------------------------------------------------- */

/* Their rows, in generate's and certify's tables: EZ_CLI_OPTS_GENERATION(first) puts them
 * at first .. first + 4 in this order, where ez_cli_generation_options reads them. */
#define EZ_CLI_OPT_PROMPT_TOKENS {"--prompt-tokens", "IDS", 0, "the prompt as token ids: 1,2,3"}
#define EZ_CLI_OPT_PROMPT {"--prompt", "TEXT", 0, "the prompt as text (needs --vocab)"}
#define EZ_CLI_OPT_VOCAB {"--vocab", "V.json", 0, "the vocabulary: {\"tokens\": [...]} or {\"alphabet\": \"...\"}"}
#define EZ_CLI_OPT_MAX_NEW {"--max-new", "N", EZ_CLI_REQUIRED, "generate at most N tokens"}
#define EZ_CLI_OPT_EOS {"--eos", "ID", 0, "stop after generating this token"}
#define EZ_CLI_OPTS_GENERATION(first)                                                                             \
    [(first)] = EZ_CLI_OPT_PROMPT_TOKENS, [(first) + 1] = EZ_CLI_OPT_PROMPT, [(first) + 2] = EZ_CLI_OPT_VOCAB,     \
    [(first) + 3] = EZ_CLI_OPT_MAX_NEW, [(first) + 4] = EZ_CLI_OPT_EOS
#define EZ_CLI_NOTE_GENERATION "Give exactly one of --prompt-tokens and --prompt; --prompt needs --vocab."

/* The prompt and generation options shared by generate and certify (ids first .. first + 4
 * of the subcommand's table, EZ_CLI_OPTS_GENERATION's order): exactly one of
 * tokens/prompt, prompt needs vocab, max-new >= 1, eos; then the --threads row o_threads
 * (ez_cli_threads, OpenMP's default when absent). Returns EZ_CLI_RUN, or EZ_EXIT_USAGE
 * after printing the usage error. */
int ez_cli_generation_options(const ez_cli_args *a, unsigned first, unsigned o_threads, uint64_t *max_new,
                              int64_t *eos);

/* {"prompt_tokens", "output_tokens", "stop"[, "text"]} (text with a vocab). */
json_t *ez_cli_generation_json(const ez_generation *g, const ez_vocab *vocab);

/* "prompt: ...\ncontinuation: ...\n (n tokens, stopped at RULE)" to f. */
void ez_cli_print_generation(FILE *f, const ez_generation *g, const ez_vocab *vocab);

#endif

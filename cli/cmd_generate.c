/* einzk generate MODEL.einc --weights W (--prompt-tokens 1,2,3 | --prompt TEXT --vocab V.json)
 *                --max-new N [--eos ID] [-o OUT.json] [--json] [--threads N]
 *
 * Greedy generation in the integer runtime with a KV cache (runtime/exec/decode.h): a new
 * token costs one position of every op, not a re-run; the tokens equal a full run's.
 * Prints the prompt and the continuation (as text with --vocab); -o / --json write
 * {"prompt_tokens", "output_tokens", "stop"[, "text"]}. `einzk certify` generates the
 * same tokens and proves them. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "cli/prompt.h"
#include "runtime/exec/decode.h"
#include "runtime/io/model_io.h"

enum { O_WEIGHTS, O_TOKENS, O_PROMPT, O_VOCAB, O_MAXNEW, O_EOS, O_OUT, O_JSON, O_THREADS, O_N };

const ez_cli_opt ez_cli_opts_generate[O_N + 1] = { /* the last row empty: the end */
    [O_WEIGHTS] = EZ_CLI_OPT_WEIGHTS,
    EZ_CLI_OPTS_GENERATION(O_TOKENS),
    [O_OUT] = {"-o", "OUT.json", 0, "write {\"prompt_tokens\", \"output_tokens\", \"stop\"[, \"text\"]} here"},
    [O_JSON] = {"--json", NULL, 0, "print the same object on stdout"},
    [O_THREADS] = EZ_CLI_OPT_THREADS,
};

int ez_cli_run_generate(const ez_cli_args *a)
{
    int rc = EZ_CLI_RUN;
    uint64_t max_new;
    int64_t eos;
    if ((rc = ez_cli_generation_options(a, O_TOKENS, O_THREADS, &max_new, &eos)) != EZ_CLI_RUN)
        return rc;
    ez_diag d = {{0}};
    ez_plan plan;
    ez_trace tr = {0};
    ez_vocab vocab = {0};
    ez_generation g = {0};
    int64_t *prompt = NULL;
    size_t np = 0;
    ez_status st = ez_cli_plan_load(&plan, a->operand, EZ_CLI_PLAN_RUN, &d);
    if (st == EZ_OK && a->value[O_OUT])
        st = ez_file_check_writable(a->value[O_OUT], &d);
    const char *paths[] = {a->value[O_WEIGHTS], a->value[O_VOCAB]}, *nouns[] = {EZ_NOUN_WEIGHTS, EZ_NOUN_VOCAB};
    if (st == EZ_OK)
        st = ez_cli_expect_data(&d, 2, paths, nouns);
    if (st == EZ_OK && a->value[O_VOCAB])
        st = ez_vocab_load(&vocab, a->value[O_VOCAB], &d);
    if (st == EZ_OK)
        st = ez_cli_prompt(a->value[O_TOKENS], a->value[O_PROMPT], &vocab, &prompt, &np, &d);
    if (st == EZ_OK)
        st = ez_trace_init(&tr, &plan, &d);
    if (st == EZ_OK)
        st = ez_exec_load_weights(&tr, NULL, &plan, a->value[O_WEIGHTS], &d);
    double t0 = ez_now();
    if (st == EZ_OK)
        st = ez_generate(&g, &plan, &tr, prompt, np, max_new, eos, &d);
    double seconds = ez_now() - t0;
    if (st == EZ_OK) {
        json_t *o = ez_cli_generation_json(&g, a->value[O_VOCAB] ? &vocab : NULL);
        json_object_set_new(o, "generate_seconds", json_real(seconds));
        if (a->value[O_OUT]) {
            char *s = json_dumps(o, JSON_INDENT(1));
            st = s ? ez_file_write(a->value[O_OUT], s, strlen(s), &d) : EZ_ERR_NOMEM;
            free(s);
        }
        if (st == EZ_OK && a->n[O_JSON]) {
            json_dumpf(o, stdout, JSON_COMPACT);
            fputc('\n', stdout);
        } else if (st == EZ_OK) {
            ez_cli_print_generation(stdout, &g, a->value[O_VOCAB] ? &vocab : NULL);
            printf("              %.3f s, %.2f ms per token\n", seconds, 1e3 * seconds / (double)(np + g.ngen - 1));
        }
        json_decref(o);
    }
    if (st != EZ_OK) {
        rc = ez_cli_error("generate", st, &d);
    } else {
        rc = EZ_EXIT_OK;
    }
    ez_generation_clear(&g);
    free(prompt);
    ez_vocab_clear(&vocab);
    if (tr.plan)
        ez_trace_clear(&tr);
    ez_plan_clear(&plan);
    return rc;
}

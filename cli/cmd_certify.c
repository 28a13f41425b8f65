/* einzk certify MODEL.einc --pk PK (--prompt-tokens 1,2,3 | --prompt TEXT --vocab V.json)
 *               --max-new N [--eos ID] -o CERT [--per-step] [--json] [--threads N]
 *
 * Generates greedily (as `einzk generate`, with the proving key's weights) and proves the
 * whole text with ONE forward pass over prompt + continuation (runtime/prove/certify.h,
 * docs/certify.md); `einzk verify --vk VK CERT` checks it with the vk alone.
 * --per-step: the baseline, one proof per generated token over the prefix it needs.
 * --json prints {"prompt_tokens", "output_tokens", "stop"[, "text"], "passes",
 * "positions", "generate_seconds", "prove_seconds", "prove_cpu_seconds",
 * "certificate_bytes", "peak_rss_bytes"}. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "cli/progress.h"
#include "cli/prompt.h"
#include "runtime/exec/decode.h"
#include "runtime/formats/certificate.h"
#include "runtime/prove/certify.h"
#include "runtime/prove/keys.h"

enum { O_PK, O_TOKENS, O_PROMPT, O_VOCAB, O_MAXNEW, O_EOS, O_OUT, O_PERSTEP, O_JSON, O_THREADS, O_N };

const ez_cli_opt ez_cli_opts_certify[O_N + 1] = { /* the last row empty: the end */
    [O_PK] = {"--pk", "MODEL.pk", EZ_CLI_REQUIRED, "the proving key from `einzk setup`"},
    EZ_CLI_OPTS_GENERATION(O_TOKENS),
    [O_OUT] = {"-o", "CERT", EZ_CLI_REQUIRED, "write the certificate (the text and its proof) here"},
    [O_PERSTEP] = {"--per-step", NULL, 0, "the baseline: one proof per generated token instead of one pass"},
    [O_JSON] = {"--json", NULL, 0, "print the text, sizes and times as one JSON object on stdout"},
    [O_THREADS] = EZ_CLI_OPT_THREADS,
};

int ez_cli_run_certify(const ez_cli_args *a)
{
    int rc = EZ_CLI_RUN;
    uint64_t max_new;
    int64_t eos;
    if ((rc = ez_cli_generation_options(a, O_TOKENS, O_THREADS, &max_new, &eos)) != EZ_CLI_RUN)
        return rc;
    ez_cli_tune_malloc();
    if (!ez_cli_spill_dir_ok("certify"))
        return EZ_EXIT_INPUT;
    const bool json = a->n[O_JSON] > 0;
    ez_cli_progress pg;
    ez_cli_progress_init(&pg, "certify", 0);
    const ez_vocab *vp = NULL;
    ez_diag d = {{0}};
    ez_plan plan;
    ez_trace tr = {0};
    ez_pk pk;
    ez_vocab vocab = {0};
    ez_generation g = {0};
    ez_certificate cert;
    ez_certify_stats cs = {0};
    ez_writer w;
    uint8_t *pkb = NULL;
    size_t pklen = 0, np = 0;
    int64_t *prompt = NULL;
    ez_pk_init(&pk);
    ez_certificate_init(&cert);
    ez_writer_init(&w);
    ez_status st = ez_cli_plan_load(&plan, a->operand, EZ_CLI_PLAN_PROVE, &d);
    if (st == EZ_OK)
        ez_cli_spill_auto("certify", &plan, true);
    if (st == EZ_OK)
        st = ez_file_check_writable(a->value[O_OUT], &d);
    if (st == EZ_OK)
        st = ez_cli_expect_kind_file(a->value[O_PK], EZ_KIND_PK, "a proving key", &d);
    if (st == EZ_OK && a->value[O_VOCAB])
        st = ez_cli_expect_kind_file(a->value[O_VOCAB], NULL, EZ_NOUN_VOCAB, &d);
    if (st == EZ_OK && a->value[O_VOCAB] && (st = ez_vocab_load(&vocab, a->value[O_VOCAB], &d)) == EZ_OK)
        vp = &vocab;
    if (st == EZ_OK)
        st = ez_cli_prompt(a->value[O_TOKENS], a->value[O_PROMPT], &vocab, &prompt, &np, &d);
    if (st == EZ_OK)
        st = ez_file_read(a->value[O_PK], &pkb, &pklen, &d);
    if (st == EZ_OK && (st = ez_pk_decode(&pk, &plan, pkb, pklen, &d)) == EZ_ERR_FORMAT)
        st = EZ_ERR_INPUT;
    free(pkb);
    /* generate with the pk's weights (the cache holds the model at its full context) */
    if (st == EZ_OK)
        st = ez_trace_init(&tr, &plan, &d);
    for (size_t k = 0; k < pk.nweights && st == EZ_OK; k++)
        st = ez_trace_set(&tr, pk.weights[k].tensor, pk.weights[k].v, pk.weights[k].n, &d);
    double t0 = ez_now();
    if (st == EZ_OK)
        st = ez_generate(&g, &plan, &tr, prompt, np, max_new, eos, &d);
    double gen_s = ez_now() - t0;
    if (tr.plan)
        ez_trace_clear(&tr); /* the passes build their own traces */
    if (st == EZ_OK && pg.on)
        fprintf(stderr, "einzk certify: generated %llu tokens in %.2f s; proving\n", (unsigned long long)g.ngen, gen_s);
    ez_certify_opts co = {.per_step = a->n[O_PERSTEP] > 0,
                          .prove = {.progress = pg.on, .progress_fn = ez_cli_progress_fn, .progress_ctx = &pg}};
    if (st == EZ_OK)
        st = ez_certify(&cert, &plan, &pk, &g, &co, &cs, &d);
    if (st == EZ_OK)
        st = ez_certificate_encode(&w, &cert);
    if (st == EZ_OK)
        st = ez_file_write(a->value[O_OUT], w.data, w.len, &d);
    if (st == EZ_OK && json) {
        json_t *o = ez_cli_generation_json(&g, vp);
        json_object_set_new(o, "passes", json_integer((json_int_t)cs.npass));
        json_object_set_new(o, "positions", json_integer((json_int_t)cs.positions));
        json_object_set_new(o, "generate_seconds", json_real(gen_s));
        json_object_set_new(o, "prove_seconds", json_real(cs.seconds));
        json_object_set_new(o, "prove_cpu_seconds", json_real(cs.cpu_seconds));
        json_object_set_new(o, "certificate_bytes", json_integer((json_int_t)w.len));
        json_object_set_new(o, "peak_rss_bytes", json_integer((json_int_t)ez_peak_rss_bytes()));
        json_dumpf(o, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(o);
    } else if (st == EZ_OK) {
        ez_cli_print_generation(stdout, &g, vp);
        printf("certified %s: %s — %zu pass%s over %llu positions, %llu bytes, proved in %.3f s\n", plan.model,
               a->value[O_OUT], cs.npass, cs.npass == 1 ? "" : "es", (unsigned long long)cs.positions,
               (unsigned long long)w.len, cs.seconds);
    }
    if (st != EZ_OK) {
        rc = ez_cli_progress_error(&pg, st, &d);
    } else {
        rc = EZ_EXIT_OK;
    }
    ez_writer_clear(&w);
    ez_certificate_clear(&cert);
    ez_generation_clear(&g);
    free(prompt);
    ez_vocab_clear(&vocab);
    ez_pk_clear(&pk);
    ez_plan_clear(&plan);
    return rc;
}

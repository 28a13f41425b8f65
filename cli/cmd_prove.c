/* einzk prove MODEL.einc (--pk MODEL.pk | --weights W.safetensors) --input IN.json -o PROOF [--json]
 *                        [--threads N]
 *
 * Runs the model in exact integer arithmetic (runtime/exec.h) and proves the run
 * (runtime/prove.h). The proof file carries the public input and the claimed outputs.
 * With --weights the weights are committed here (the same commitment `setup` makes);
 * with --pk they come from the proving key.
 *
 * --json prints one object on stdout:
 *   {"model", "proof_bytes" (the argument), "statement_bytes" (public input and output),
 *    "prove_seconds", "peak_rss_bytes",
 *    "phases": {"witness", "commit", "lookups", "sumchecks", "openings"} (seconds),
 *    "prove_cpu_seconds", "phases_cpu": the same in process CPU seconds (all threads),
 *    "ops": [{"name", "kind", "seconds", "bytes"[, "sumchecks", "touched", "real"]}]}
 * --strategy picks how contractions are reduced (runtime/prove/strategy.h; recorded in
 * the proof, so the same vk verifies any of them).
 * Progress goes to stderr when it is a terminal (cli/progress.h), also with --json. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "cli/progress.h"
#include "runtime/exec/exec.h"
#include "runtime/io/model_io.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/strategy.h"
#include "runtime/prove/weights.h"

enum { O_PK, O_WEIGHTS, O_PCS, O_INPUT, O_OUT, O_STRATEGY, O_JSON, O_THREADS, O_N };

const ez_cli_opt ez_cli_opts_prove[O_N + 1] = { /* the last row empty: the end */
    [O_PK] = {"--pk", "MODEL.pk", 0, "the proving key from `einzk setup` (weights already quantized and committed)"},
    [O_WEIGHTS] = {"--weights", "W.safetensors", 0, "the weights instead of a proving key (committed here)"},
    [O_PCS] = {"--pcs", "SCHEME", 0, "with --weights: the commitment scheme, whir (default) or ligero"},
    [O_INPUT] = {"--input", "IN.json", EZ_CLI_REQUIRED, "the public input (JSON)"},
    [O_OUT] = {"-o", "PROOF", EZ_CLI_REQUIRED, "write the proof (with the input and the claimed outputs) here"},
    [O_JSON] = {"--json", NULL, 0, "print sizes and per-phase and per-op times as one JSON object on stdout"},
    [O_STRATEGY] = {"--strategy", "NAME", 0,
                    "how contractions are reduced: einsum (default), deepprove or per-head (docs/comparison.md)"},
    [O_THREADS] = EZ_CLI_OPT_THREADS,
};

/* {"witness", "commit", "lookups", "sumchecks", "openings"}: seconds per prover phase. */
static json_t *phases_json(double witness, double commit, double lookups, double sumchecks, double openings)
{
    json_t *ph = json_object();
    json_object_set_new(ph, "witness", json_real(witness));
    json_object_set_new(ph, "commit", json_real(commit));
    json_object_set_new(ph, "lookups", json_real(lookups));
    json_object_set_new(ph, "sumchecks", json_real(sumchecks));
    json_object_set_new(ph, "openings", json_real(openings));
    return ph;
}

/* The openings read no trace: freed before them (ez_prove_opts.trace_done). */
static void trace_free(void *ctx)
{
    ez_trace_clear(ctx);
}

static int print_json(const ez_plan *p, const ez_prove_stats *s, double seconds, double cpu_seconds, double exec_s,
                      double exec_cpu, double wcommit_s, double wcommit_cpu)
{
    json_t *o = json_object(), *ops = json_array();
    json_object_set_new(o, "model", json_string(p->model));
    json_object_set_new(o, "proof_bytes", json_integer((json_int_t)s->proof_bytes));
    json_object_set_new(o, "statement_bytes", json_integer((json_int_t)s->statement_bytes));
    json_object_set_new(o, "prove_seconds", json_real(seconds));
    json_object_set_new(o, "peak_rss_bytes", json_integer((json_int_t)ez_peak_rss_bytes()));
    json_object_set_new(o, "phases",
                        phases_json(exec_s + s->witness, wcommit_s + s->commit, s->lookups, s->sumchecks, s->openings));
    json_object_set_new(o, "prove_cpu_seconds", json_real(cpu_seconds));
    json_object_set_new(o, "phases_cpu", phases_json(exec_cpu + s->cpu_witness, wcommit_cpu + s->cpu_commit,
                                                     s->cpu_lookups, s->cpu_sumchecks, s->cpu_openings));
    for (size_t i = 0; i < p->nops; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(p->ops[i].label));
        json_object_set_new(x, "kind", json_string(ez_op_kind_name(p->ops[i].kind)));
        json_object_set_new(x, "seconds", json_real(s->ops[i].seconds));
        json_object_set_new(x, "bytes", json_integer((json_int_t)s->ops[i].bytes));
        if (s->ops[i].work.sumchecks) {
            json_object_set_new(x, "sumchecks", json_integer((json_int_t)s->ops[i].work.sumchecks));
            json_object_set_new(x, "touched", json_integer((json_int_t)s->ops[i].work.touched));
            json_object_set_new(x, "real", json_integer((json_int_t)s->ops[i].work.real));
        }
        json_array_append_new(ops, x);
    }
    json_object_set_new(o, "ops", ops);
    int r = json_dumpf(o, stdout, JSON_COMPACT);
    json_decref(o);
    fputc('\n', stdout);
    return r;
}

int ez_cli_run_prove(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    const char *model = args->operand, *wpath = args->value[O_WEIGHTS], *pkpath = args->value[O_PK];
    const char *ipath = args->value[O_INPUT], *opath = args->value[O_OUT];
    bool json = args->n[O_JSON] > 0;
    if ((wpath == NULL) == (pkpath == NULL))
        return ez_cli_usage_error(args->cmd, "give exactly one of --pk and --weights");
    if (!ez_cli_threads(args, O_THREADS, 0))
        return EZ_EXIT_USAGE;
    unsigned scheme;
    if (!ez_cli_pcs_scheme(args, O_PCS, &scheme))
        return EZ_EXIT_USAGE;
    ez_strategy strategy = EZ_STRATEGY_EINSUM;
    if (args->value[O_STRATEGY] && ez_strategy_parse(args->value[O_STRATEGY], &strategy) != EZ_OK)
        return ez_cli_usage_error(args->cmd, "--strategy must be einsum, deepprove or per-head, not '%s'",
                                  args->value[O_STRATEGY]);
    if (args->value[O_PCS] && pkpath)
        return ez_cli_usage_error(args->cmd, "--pcs goes with --weights (a proving key fixes its scheme)");
    ez_cli_tune_malloc();
    if (!ez_cli_spill_dir_ok("prove"))
        return EZ_EXIT_INPUT;
    ez_cli_progress pg;
    ez_cli_progress_init(&pg, "prove", 0);
    ez_diag d = {{0}};
    ez_plan plan;
    ez_trace tr = {0};
    ez_pk pk;
    ez_proof proof;
    ez_prove_stats stats = {0};
    ez_pcs_prover *own = NULL;
    ez_pcs_commitment com = {0};
    ez_writer out;
    ez_file_view pkfile = {0};
    ez_pk_init(&pk);
    ez_proof_init(&proof);
    ez_writer_init(&out);
    rc = EZ_EXIT_OK;
    double wcommit_s = 0, exec_s = 0, wcommit_cpu = 0, exec_cpu = 0;
    ez_status st = ez_cli_plan_load(&plan, model, EZ_CLI_PLAN_PROVE, &d);
    if (st == EZ_OK)
        ez_cli_spill_auto("prove", &plan, true);
    if (st == EZ_OK)
        st = ez_file_check_writable(opath, &d);
    if (st == EZ_OK && pkpath)
        st = ez_cli_expect_kind_file(pkpath, EZ_KIND_PK, "a proving key", &d);
    const char *paths[] = {wpath, ipath}, *nouns[] = {EZ_NOUN_WEIGHTS, EZ_NOUN_INPUT};
    if (st == EZ_OK)
        st = ez_cli_expect_data(&d, 2, paths, nouns);
    if (st != EZ_OK)
        goto fail;
    if ((st = ez_trace_init(&tr, &plan, &d)) != EZ_OK)
        goto fail;
    ez_pcs_prover *weights = NULL;
    if (pkpath) {
        if ((st = ez_file_map(&pkfile, pkpath, &d)) != EZ_OK)
            goto fail;
        if ((st = ez_pk_decode(&pk, &plan, pkfile.data, pkfile.len, &d)) != EZ_OK) {
            st = st == EZ_ERR_FORMAT ? EZ_ERR_INPUT : st;
            goto fail;
        }
        ez_file_view_clear(&pkfile); /* the decoded key owns copies: keep peak memory down */
        for (size_t k = 0; k < pk.nweights; k++) {
            if ((st = ez_trace_set(&tr, pk.weights[k].tensor, pk.weights[k].v, pk.weights[k].n, &d)) != EZ_OK)
                goto fail;
            free(pk.weights[k].v);
            pk.weights[k].v = NULL;
        }
        weights = pk.pcs;
    } else {
        if ((st = ez_exec_load_weights(&tr, NULL, &plan, wpath, &d)) != EZ_OK)
            goto fail;
    }
    if ((st = ez_exec_load_inputs(&tr, NULL, &plan, ipath, &d)) != EZ_OK)
        goto fail;
    double t0 = ez_now(), c0 = ez_prove_cpu_now();
    if (wpath) {
        ez_cli_progress_fn(&pg, "weights", 0);
        if ((st = ez_weights_commit_scheme(&own, &com, &plan, &tr, scheme, &d)) != EZ_OK)
            goto fail;
        if (ez_weights_deferred(&plan, &com)) {
            /* the vk's range proof leaves claims to every proof: derive them (its cost) */
            ez_writer wr;
            ez_writer_init(&wr);
            st = ez_prove_weight_range(&plan, &tr, own, false, &wr, &d);
            ez_writer_clear(&wr);
            if (st != EZ_OK)
                goto fail;
        }
        ez_cli_progress_fn(&pg, "weights", 1);
        weights = own;
        wcommit_s = ez_now() - t0;
        wcommit_cpu = ez_prove_cpu_now() - c0;
    }
    double te = ez_now(), ce = ez_prove_cpu_now();
    if ((st = ez_exec_run(&plan, &tr, &d)) != EZ_OK)
        goto fail;
    exec_s = ez_now() - te;
    exec_cpu = ez_prove_cpu_now() - ce;
    ez_prove_opts prove_opts = {.progress = pg.on,
                                .progress_fn = ez_cli_progress_fn,
                                .progress_ctx = &pg,
                                .trace_done = trace_free,
                                .trace_done_ctx = &tr,
                                .strategy = strategy};
    if ((st = ez_prove(&plan, &tr, weights, &prove_opts, &proof, &stats, &d)) != EZ_OK)
        goto fail;
    size_t stmt_bytes = 0;
    if ((st = ez_proof_encode(&out, &proof, &stmt_bytes)) != EZ_OK)
        goto fail;
    double seconds = ez_now() - t0, cpu_seconds = ez_prove_cpu_now() - c0;
    stats.statement_bytes = stmt_bytes;
    stats.proof_bytes = out.len - stmt_bytes;
    if ((st = ez_file_write(opath, out.data, out.len, &d)) != EZ_OK)
        goto fail;
    if (json) {
        if (print_json(&plan, &stats, seconds, cpu_seconds, exec_s, exec_cpu, wcommit_s, wcommit_cpu) != 0) {
            st = EZ_ERR_NOMEM;
            goto fail;
        }
    } else {
        printf("proved %s: %s — argument %llu bytes, statement %llu bytes, %.3f s\n", plan.model, opath,
               (unsigned long long)stats.proof_bytes, (unsigned long long)stats.statement_bytes, seconds);
    }
    goto out;
fail:
    rc = ez_cli_progress_error(&pg, st, &d);
out:
    ez_writer_clear(&out);
    ez_proof_clear(&proof);
    ez_prove_stats_clear(&stats);
    ez_pcs_prover_free(own);
    ez_pcs_commitment_clear(&com);
    ez_pk_clear(&pk);
    ez_file_view_clear(&pkfile);
    ez_trace_clear(&tr);
    ez_plan_clear(&plan);
    return rc;
}

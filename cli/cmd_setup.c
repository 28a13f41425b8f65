/* einzk setup MODEL.einc --weights W.safetensors --vk MODEL.vk --pk MODEL.pk
 *
 * Quantizes the weights (each checked against its declared width), commits them once
 * (runtime/prove/weights.h: the padded layout of every weight, plan order, one commitment:
 * WHIR by default, --pcs ligero for Ligero; the proofs then use the same scheme), proves once that every committed weight lies in its width (the
 * weight range proof, runtime/prove.h) and writes
 *   MODEL.vk — the plan, the weight commitment and that proof: all a verifier needs;
 *   MODEL.pk — the plan digest, the quantized weights and the commitment's prover data,
 *              so `prove --pk` neither re-reads the weights file nor re-encodes.
 * A plan with an op the prover cannot prove yet is refused here already (exit 4). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "cli/progress.h"
#include "compiler/einc.h"
#include "runtime/exec/exec.h"
#include "runtime/io/model_io.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/weights.h"

enum { O_WEIGHTS, O_VK, O_PK, O_PCS, O_N };

const ez_cli_opt ez_cli_opts_setup[O_N + 1] = { /* the last row empty: the end */
    [O_WEIGHTS] = EZ_CLI_OPT_WEIGHTS,
    [O_VK] = {"--vk", "MODEL.vk", EZ_CLI_REQUIRED, "write the verifying key here (plan, weight commitment)"},
    [O_PK] = {"--pk", "MODEL.pk", EZ_CLI_REQUIRED, "write the proving key here (quantized weights)"},
    [O_PCS] = {"--pcs", "SCHEME", 0, "the commitment scheme: whir (default: small proofs) or ligero"},
};

/* The weight commitment's own progress (lib/util.h's thread sink) as the "commit" step. */
static void commit_progress(void *ctx, double frac)
{
    ez_cli_progress_fn(ctx, "commit", frac);
}

int ez_cli_run_setup(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    ez_cli_tune_malloc();
    if (!ez_cli_spill_dir_ok("setup"))
        return EZ_EXIT_INPUT;
    const char *model = args->operand, *wpath = args->value[O_WEIGHTS];
    const char *vkpath = args->value[O_VK], *pkpath = args->value[O_PK];
    unsigned scheme;
    if (!ez_cli_pcs_scheme(args, O_PCS, &scheme))
        return EZ_EXIT_USAGE;
    if (!strcmp(vkpath, pkpath))
        return ez_cli_usage_error(args->cmd, "--vk and --pk name the same file: %s", vkpath);
    ez_diag d = {{0}};
    ez_plan plan;
    ez_trace tr = {0};
    ez_pcs_prover *pcs = NULL;
    ez_pcs_commitment com = {0};
    ez_writer vk, pk, wr;
    ez_writer_init(&wr);
    ez_writer_init(&vk);
    ez_writer_init(&pk);
    rc = EZ_EXIT_OK;
    double t0 = ez_now();
    ez_cli_progress pg;
    ez_cli_progress_init(&pg, "setup", 0);
    ez_status st = ez_cli_plan_load(&plan, model, EZ_CLI_PLAN_PROVE, &d);
    if (st == EZ_OK)
        ez_cli_spill_auto("setup", &plan, false);
    if (st == EZ_OK)
        st = ez_file_check_writable(vkpath, &d);
    if (st == EZ_OK)
        st = ez_file_check_writable(pkpath, &d);
    if (st == EZ_OK)
        st = ez_cli_expect_kind_file(wpath, NULL, EZ_NOUN_WEIGHTS, &d);
    if (st != EZ_OK)
        goto fail;
    if ((st = ez_trace_init(&tr, &plan, &d)) != EZ_OK)
        goto fail;
    /* three steps of about equal cost on large models: progress by step */
    ez_cli_progress_fn(&pg, "load", 0);
    if ((st = ez_exec_load_weights(&tr, NULL, &plan, wpath, &d)) != EZ_OK)
        goto fail;
    ez_cli_progress_fn(&pg, "commit", 0);
    ez_progress_install(commit_progress, &pg);
    st = ez_weights_commit_scheme(&pcs, &com, &plan, &tr, scheme, &d);
    ez_progress_install(NULL, NULL);
    if (st != EZ_OK)
        goto fail;
    ez_cli_progress_fn(&pg, "widths", 0);
    if ((st = ez_prove_weight_range(&plan, &tr, pcs, false, &wr, &d)) != EZ_OK)
        goto fail;
    ez_cli_progress_fn(&pg, "write", 0);
    if ((st = ez_vk_encode(&vk, &plan, pcs ? &com : NULL, wr.data, wr.len, &d)) != EZ_OK)
        goto fail;
    if ((st = ez_pk_encode(&pk, &plan, tr.t, pcs, wr.data, wr.len)) != EZ_OK)
        goto fail;
    if ((st = ez_file_write(vkpath, vk.data, vk.len, &d)) != EZ_OK)
        goto fail;
    if ((st = ez_file_write(pkpath, pk.data, pk.len, &d)) != EZ_OK)
        goto fail;
    ez_cli_progress_end(&pg);
    char hex[65];
    ez_plan_digest_hex(&plan, hex);
    printf("setup %s: vk %zu bytes -> %s, pk %zu bytes -> %s (digest %.16s, %.3f s)\n", plan.model, vk.len, vkpath,
           pk.len, pkpath, hex, ez_now() - t0);
    goto out;
fail:
    rc = ez_cli_progress_error(&pg, st, &d);
out:
    ez_writer_clear(&wr);
    ez_writer_clear(&vk);
    ez_writer_clear(&pk);
    ez_pcs_prover_free(pcs);
    ez_pcs_commitment_clear(&com);
    ez_trace_clear(&tr);
    ez_plan_clear(&plan);
    return rc;
}

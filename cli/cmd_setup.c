/* einzk setup MODEL.einc --weights W.safetensors --vk MODEL.vk --pk MODEL.pk
 *
 * Quantizes the weights (each checked against its declared width), commits them once
 * (runtime/prove.h ez_weights_commit: the padded layout of every weight, plan order, one
 * Ligero commitment), proves once that every committed weight lies in its width (the
 * weight range proof, runtime/prove.h) and writes
 *   MODEL.vk — the plan, the weight commitment and that proof: all a verifier needs;
 *   MODEL.pk — the plan digest, the quantized weights and the commitment's prover data,
 *              so `prove --pk` neither re-reads the weights file nor re-encodes.
 * A plan with an op the prover cannot prove yet is refused here already (exit 4). */
#include <stdio.h>
#include <malloc.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "compiler/einc.h"
#include "runtime/exec/exec.h"
#include "runtime/io/model_io.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/weights.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: einzk setup MODEL.einc --weights W.safetensors --vk MODEL.vk --pk MODEL.pk\n");
}

/* The prover allocates and frees many tables of megabytes (sumcheck scratch, eq tables,
 * fraction trees, the PCS's). Served from fresh mmaps, every one costs a page fault and
 * a zeroed page per 4 KiB (measured: a third of the prover's CPU time on the GPT-2-sized
 * attention layer). Keeping freed memory in the heap lets later tables reuse it; a
 * command-line process gives it back at exit anyway. */
static void tune_malloc(void)
{
    (void)mallopt(M_MMAP_THRESHOLD, 1 << 30);
    (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int ez_cmd_setup(int argc, char **argv)
{
    tune_malloc();
    const char *model = NULL, *wpath = NULL, *vkpath = NULL, *pkpath = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EZ_EXIT_OK;
        } else if (!strcmp(a, "--weights") && has_next) {
            wpath = argv[++i];
        } else if (!strcmp(a, "--vk") && has_next) {
            vkpath = argv[++i];
        } else if (!strcmp(a, "--pk") && has_next) {
            pkpath = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "einzk setup: error: unknown option or missing value '%s'\n", a);
            usage(stderr);
            return EZ_EXIT_USAGE;
        } else if (model == NULL) {
            model = a;
        } else {
            fprintf(stderr, "einzk setup: error: more than one model file ('%s', '%s')\n", model, a);
            return EZ_EXIT_USAGE;
        }
    }
    if (model == NULL || wpath == NULL || vkpath == NULL || pkpath == NULL) {
        usage(stderr);
        return EZ_EXIT_USAGE;
    }
    bool progress = isatty(2);
    ez_diag d = {{0}};
    ez_plan plan;
    ez_trace tr;
    ez_pcs_prover *pcs = NULL;
    ez_pcs_commitment com;
    ez_writer vk, pk, wr;
    memset(&tr, 0, sizeof tr);
    memset(&com, 0, sizeof com);
    ez_writer_init(&wr);
    ez_writer_init(&vk);
    ez_writer_init(&pk);
    ez_plan_init(&plan);
    int rc = EZ_EXIT_OK;
    double t0 = ez_now();
    ez_status st = ez_einc_read_file(&plan, model, &d);
    if (st != EZ_OK)
        goto fail;
    if ((st = ez_exec_check_plan(&plan, &d)) != EZ_OK) {
        st = EZ_ERR_FORMAT;
        goto fail;
    }
    if ((st = ez_prove_check_plan(&plan, &d)) != EZ_OK)
        goto fail;
    if ((st = ez_trace_init(&tr, &plan, &d)) != EZ_OK)
        goto fail;
    if (progress)
        fprintf(stderr, "einzk setup: loading weights from %s\n", wpath);
    if ((st = ez_exec_load_weights(&tr, NULL, &plan, wpath, &d)) != EZ_OK)
        goto fail;
    if (progress)
        fprintf(stderr, "einzk setup: committing the weights\n");
    if ((st = ez_weights_commit(&pcs, &com, &plan, &tr, &d)) != EZ_OK)
        goto fail;
    if (progress)
        fprintf(stderr, "einzk setup: proving the weights' widths\n");
    if ((st = ez_prove_weight_range(&plan, &tr, pcs, false, &wr, &d)) != EZ_OK)
        goto fail;
    if ((st = ez_vk_encode(&vk, &plan, pcs ? &com : NULL, wr.data, wr.len, &d)) != EZ_OK)
        goto fail;
    if ((st = ez_pk_encode(&pk, &plan, tr.t, pcs)) != EZ_OK)
        goto fail;
    if ((st = ez_file_write(vkpath, vk.data, vk.len, &d)) != EZ_OK)
        goto fail;
    if ((st = ez_file_write(pkpath, pk.data, pk.len, &d)) != EZ_OK)
        goto fail;
    char hex[65];
    ez_plan_digest_hex(&plan, hex);
    printf("setup %s: vk %zu bytes -> %s, pk %zu bytes -> %s (digest %.16s, %.3f s)\n", plan.model, vk.len, vkpath,
           pk.len, pkpath, hex, ez_now() - t0);
    goto out;
fail:
    ez_cli_error("setup", st, &d);
    rc = ez_exit_for_status(st);
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

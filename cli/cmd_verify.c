/* einzk verify --vk MODEL.vk PROOF [--input IN.json] [-o OUT.json] [--json] [--threads N]
 *
 * Verifies PROOF against the verifying key only (runtime/verify.h): no weights, no trace.
 *   --input IN.json  also require the proof's public input to equal IN.json quantized
 *                    (the same quantization as `run` and `prove`);
 *   -o OUT.json      write the proven outputs, dequantized, when the proof is accepted;
 *   --json           print {"accepted", "verify_seconds"[, "reason"]} on stdout;
 *   --threads N      OpenMP threads (default ONE: the verifier's work — tens of
 *                    milliseconds of short loops — is smaller than what waking and
 *                    joining a second thread costs per loop; measured on the 2-core VM:
 *                    35-45 ms with one thread, 110-150 ms with two spinning threads).
 * Exit 0 accepted; 1 rejected (also malformed or truncated proofs and keys, a proof of
 * another model, a different input); 2 usage; 4 unreadable files or a bad IN.json. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "runtime/formats/proofio.h"
#include "runtime/io/quant.h"
#include "runtime/io/tensorio.h"
#include "runtime/prove/verify.h"

enum { O_VK, O_INPUT, O_OUT, O_JSON, O_THREADS, O_N };

static const ez_cli_opt opts[O_N] = {
    [O_VK] = {"--vk", "MODEL.vk", EZ_CLI_REQUIRED, "the verifying key from `einzk setup` (no weights are needed)"},
    [O_INPUT] = {"--input", "IN.json", 0, "also require the proof's public input to be IN.json, quantized"},
    [O_OUT] = {"-o", "OUT.json", 0, "write the proven outputs, dequantized, here when the proof is accepted"},
    [O_JSON] = {"--json", NULL, 0, "print {\"accepted\", \"verify_seconds\"[, \"reason\"]} on stdout"},
    [O_THREADS] = {"--threads", "N", 0, "OpenMP threads, 1 to 1024 (default 1: the verifier's loops are short)"},
};

const ez_cli_cmd ez_cli_cmd_verify = {
    "verify", ez_cmd_verify, "PROOF", "proof file",
    "Verify a proof with the verifying key alone (exit 0 accepted, 1 rejected).", opts, O_N, NULL,
};

static void spec_of(ez_tensor_spec *s, const ez_plan_tensor *t)
{
    memset(s, 0, sizeof *s);
    s->name = t->source_name;
    s->rank = t->rank;
    for (unsigned a = 0; a < t->rank; a++)
        s->dims[a] = t->dims[a];
    s->is_token = t->kind == EZ_TENSOR_TOKENS;
    s->token_limit = t->token_limit;
}

/* EZ_OK and *same set: whether IN.json quantizes to the proof's public input. */
static ez_status check_input(const ez_plan *p, const ez_statement *s, const char *path, bool *same, ez_diag *d,
                             ez_diag *why)
{
    size_t n = 0;
    ez_tensor_spec *specs = ez_alloc_array(p->ntensors, sizeof *specs);
    size_t *ids = ez_alloc_array(p->ntensors, sizeof *ids);
    ez_tensor_value *vals = ez_alloc_array(p->ntensors, sizeof *vals);
    int64_t *q = NULL;
    ez_status st = EZ_ERR_NOMEM;
    *same = true;
    if (!specs || !ids || !vals)
        goto out;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_INPUT || p->tensors[i].kind == EZ_TENSOR_TOKENS) {
            ids[n] = i;
            spec_of(&specs[n++], &p->tensors[i]);
        }
    if ((st = ez_inputs_load(path, specs, n, vals, d)) != EZ_OK) {
        n = 0;
        goto out;
    }
    for (size_t j = 0; j < n && *same; j++) {
        const ez_plan_tensor *t = &p->tensors[ids[j]];
        const ez_stmt_tensor *x = ez_statement_find(s, (unsigned)ids[j]);
        const int64_t *v = vals[j].tok;
        if (t->kind == EZ_TENSOR_INPUT) {
            free(q);
            if ((q = ez_alloc_array(vals[j].numel ? vals[j].numel : 1, sizeof *q)) == NULL) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            char label[EZ_MAX_NAME + 32];
            snprintf(label, sizeof label, "input '%s'", t->source_name);
            if ((st = ez_quantize_tensor(label, vals[j].f, vals[j].numel, t->dims, t->rank, t->scale, t->bits, q,
                                         d)) != EZ_OK)
                goto out;
            v = q;
        }
        if (x == NULL || x->n != vals[j].numel || memcmp(x->v, v, x->n * sizeof *v) != 0) {
            *same = false;
            ez_diag_set(why, "the proof's public input '%s' differs from %s", t->source_name, path);
        }
    }
    st = EZ_OK;
out:
    if (vals)
        ez_tensor_values_clear(vals, n);
    free(vals);
    free(ids);
    free(specs);
    free(q);
    return st;
}

static ez_status write_outputs(const ez_plan *p, const ez_statement *s, const char *path, ez_diag *d)
{
    size_t n = 0;
    ez_tensor_spec *specs = ez_alloc_array(p->ntensors, sizeof *specs);
    double **data = ez_alloc_array(p->ntensors, sizeof *data);
    ez_status st = EZ_ERR_NOMEM;
    if (!specs || !data)
        goto out;
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (!t->is_output)
            continue;
        const ez_stmt_tensor *x = ez_statement_find(s, (unsigned)i);
        spec_of(&specs[n], t);
        if ((data[n] = ez_alloc_array(x->n ? x->n : 1, sizeof(double))) == NULL)
            goto out;
        for (uint64_t e = 0; e < x->n; e++)
            data[n][e] = ez_dequantize(x->v[e], t->scale);
        n++;
    }
    st = ez_outputs_save(path, specs, n, (const double *const *)data, d);
out:
    if (data)
        for (size_t i = 0; i < n; i++)
            free(data[i]);
    free(data);
    free(specs);
    return st;
}

int ez_cmd_verify(int argc, char **argv)
{
    ez_cli_args args;
    int rc = ez_cli_parse(&args, &ez_cli_cmd_verify, argc, argv);
    if (rc != EZ_CLI_RUN)
        return rc;
    const char *vkpath = args.value[O_VK], *ppath = args.operand;
    const char *ipath = args.value[O_INPUT], *opath = args.value[O_OUT];
    bool json = args.n[O_JSON] > 0;
    if (!ez_cli_threads(&args, O_THREADS, 1))
        return EZ_EXIT_USAGE;
    ez_diag d = {{0}}, why = {{0}};
    ez_vk vk;
    ez_proof pf;
    uint8_t *vkb = NULL, *pb = NULL;
    size_t vklen = 0, plen = 0;
    bool accepted = false, decoded = false;
    ez_vk_init(&vk);
    ez_proof_init(&pf);
    rc = EZ_EXIT_OK;
    double t0 = ez_now();
    ez_status st = ez_file_read(vkpath, &vkb, &vklen, &d);
    if (st == EZ_OK)
        st = ez_file_read(ppath, &pb, &plen, &d);
    if (st != EZ_OK)
        goto fail;
    /* a malformed key or proof is a rejection (exit 1), not an I/O error */
    if ((st = ez_vk_decode(&vk, vkb, vklen, &why)) != EZ_OK) {
        if (st != EZ_ERR_FORMAT)
            goto fail;
        ez_diag tmp = why;
        ez_diag_set(&why, "the verifying key is malformed: %s", tmp.msg);
        goto verdict;
    }
    if ((st = ez_proof_decode(&pf, pb, plen, &why)) != EZ_OK) {
        if (st != EZ_ERR_FORMAT)
            goto fail;
        goto verdict;
    }
    decoded = true;
    ez_verify_stats vs;
    if ((st = ez_verify(&vk, &pf, &accepted, &vs, &why)) != EZ_OK) {
        if (st != EZ_ERR_UNSUPPORTED)
            goto fail;
        accepted = false; /* reason in why */
    }
    if (accepted && ipath) {
        bool same = true;
        if ((st = check_input(&vk.plan, &pf.stmt, ipath, &same, &d, &why)) != EZ_OK)
            goto fail;
        accepted = same;
    }
verdict:
    st = EZ_OK;
    double seconds = ez_now() - t0;
    if (accepted && opath && decoded && (st = write_outputs(&vk.plan, &pf.stmt, opath, &d)) != EZ_OK)
        goto fail;
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "accepted", json_boolean(accepted));
        json_object_set_new(o, "verify_seconds", json_real(seconds));
        if (!accepted)
            json_object_set_new(o, "reason", json_string(why.msg[0] ? why.msg : "rejected"));
        json_dumpf(o, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(o);
    } else if (accepted) {
        printf("accepted (%.3f s)\n", seconds);
    } else {
        printf("rejected: %s\n", why.msg[0] ? why.msg : "the proof does not verify");
    }
    rc = accepted ? EZ_EXIT_OK : EZ_EXIT_REJECT;
    goto out;
fail:
    ez_cli_error("verify", st, &d);
    rc = ez_exit_for_status(st);
out:
    ez_proof_clear(&pf);
    ez_vk_clear(&vk);
    free(vkb);
    free(pb);
    return rc;
}

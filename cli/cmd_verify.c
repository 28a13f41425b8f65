/* einzk verify --vk MODEL.vk FILE [--input IN.json] [-o OUT.json] [--model MODEL.ein [-D N=V]...]
 *              [--prompt TEXT | --prompt-tokens IDS] [--vocab V.json] [--json] [--threads N]
 *
 * Verifies FILE — a proof or a certificate (`einzk certify`) — against the verifying key
 * only (runtime/prove/verify.h, runtime/prove/certify.h): no weights, no trace.
 *   --input IN.json  (proofs) also require the public input to equal IN.json quantized;
 *   -o OUT.json      (proofs) write the proven outputs, dequantized, when accepted;
 *   --model MODEL.ein  recompile the source (with the -D overrides) and require the vk's
 *                    plan digest to equal it, so the vk is known to be the model read;
 *   --prompt, --prompt-tokens  (certificates) require this prompt;
 *   --vocab V.json   (certificates) print the prompt and the certified text as text;
 *   --json           print {"accepted", "verify_seconds"[, "reason"]} (certificates add
 *                    "prompt_tokens", "output_tokens", "stop"[, "text"]);
 *   --threads N      OpenMP threads (default ONE: the verifier's work — tens of
 *                    milliseconds of short loops — is smaller than what waking and
 *                    joining a second thread costs per loop; measured on the 2-core VM:
 *                    35-45 ms with one thread, 110-150 ms with two spinning threads).
 * Exit 0 accepted; 1 rejected (malformed or truncated proofs, a proof of another model or
 * other weights, a different input or prompt, a vk of another source); 2 usage; 4 files
 * that cannot be read or are of the wrong kind (a pk given as --vk), a bad IN.json. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "cli/prompt.h"
#include "compiler/einc.h"
#include "runtime/formats/certificate.h"
#include "runtime/formats/sections.h"
#include "runtime/formats/proofio.h"
#include "runtime/io/model_io.h"
#include "runtime/io/quant.h"
#include "runtime/io/tensorio.h"
#include "runtime/prove/certify.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/verify.h"

enum { O_VK, O_INPUT, O_OUT, O_MODEL, O_DEFINE, O_SCALE, O_BITS, O_PROMPT, O_TOKENS, O_VOCAB, O_JSON, O_THREADS, O_N };

const ez_cli_opt ez_cli_opts_verify[O_N + 1] = { /* the last row empty: the end */
    [O_VK] = {"--vk", "MODEL.vk", EZ_CLI_REQUIRED, "the verifying key from `einzk setup` (no weights are needed)"},
    [O_INPUT] = {"--input", "IN.json", 0, "also require the proof's public input to be IN.json, quantized"},
    [O_OUT] = {"-o", "OUT.json", 0, "write the proven outputs, dequantized, here when the proof is accepted"},
    [O_MODEL] = {"--model", "MODEL.ein", 0, "also require the vk to be this source's (recompiled, digest compared)"},
    [O_DEFINE] = {"-D", "NAME=VALUE", EZ_CLI_REPEAT, "with --model: the param overrides it was compiled with"},
    [O_SCALE] = {"--scale", "N", 0, "with --model: the --scale it was compiled with"},
    [O_BITS] = {"--bits", "N", 0, "with --model: the --bits it was compiled with"},
    [O_PROMPT] = {"--prompt", "TEXT", 0, "a certificate: also require this prompt (needs --vocab)"},
    [O_TOKENS] = {"--prompt-tokens", "IDS", 0, "a certificate: also require this prompt, as token ids"},
    [O_VOCAB] = {"--vocab", "V.json", 0, "a certificate: show the prompt and the certified text as text"},
    [O_JSON] = {"--json", NULL, 0, "print {\"accepted\", \"verify_seconds\"[, \"reason\"], ...} on stdout"},
    [O_THREADS] = {"--threads", "N", 0, "OpenMP threads, 1 to 1024 (default 1: the verifier's loops are short)"},
};


/* EZ_OK and *same set: whether IN.json quantizes to the proof's public input (as the
 * prover's loader quantizes it: ez_exec_input_ints). */
static ez_status check_input(const ez_plan *p, const ez_statement *s, const char *path, bool *same, ez_diag *d,
                             ez_diag *why)
{
    ez_exec_inputs in;
    int64_t *q = NULL;
    *same = true;
    ez_status st = ez_exec_read_inputs(&in, p, path, d);
    for (size_t j = 0; j < in.n && *same && st == EZ_OK; j++) {
        const ez_plan_tensor *t = &p->tensors[in.ids[j]];
        const ez_stmt_tensor *x = ez_statement_find(s, (unsigned)in.ids[j]);
        free(q);
        if ((st = ez_exec_input_ints(&q, p, &in, j, d)) != EZ_OK)
            break;
        int64_t *tmp = NULL;
        const int64_t *xv = x && x->n == in.vals[j].numel ? ez_stmt_values(x, &tmp) : NULL;
        if (x && x->n == in.vals[j].numel && xv == NULL) {
            st = EZ_ERR_NOMEM;
            break;
        }
        if (xv == NULL || (x->n > 0 && memcmp(xv, q, x->n * sizeof *q) != 0)) {
            *same = false;
            ez_diag_set(why, "the proof's public input '%s' differs from %s", t->source_name, path);
        }
        free(tmp);
    }
    ez_exec_inputs_clear(&in);
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
        ez_exec_tensor_spec(&specs[n], t, t->source_name);
        specs[n].is_token = ez_plan_tensor_is_index(p, i);
        if ((data[n] = ez_alloc_array(x->n ? x->n : 1, sizeof(double))) == NULL)
            goto out;
        n++;
        int64_t buf[4096]; /* the statement's bytes unpacked a block at a time */
        for (uint64_t e = 0; e < x->n; e += 4096) {
            size_t m = x->n - e < 4096 ? (size_t)(x->n - e) : 4096;
            ez_stmt_get(x, e, m, buf);
            for (size_t k = 0; k < m; k++)
                data[n - 1][e + k] = ez_dequantize(buf[k], t->scale);
        }
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

/* The verifier's side of a certificate: verdict in *accepted (reason in why), plus the
 * prompt check; jo gets the certified text. */
static ez_status verify_certificate(const ez_vk *vk, const uint8_t *data, size_t len, const int64_t *prompt,
                                    size_t np, const ez_vocab *vocab, bool json, json_t *jo, bool *accepted,
                                    ez_diag *why)
{
    ez_certificate cert;
    ez_status st = ez_certificate_decode(&cert, data, len, why);
    *accepted = false;
    if (st == EZ_ERR_FORMAT)
        return EZ_OK; /* malformed: rejected */
    if (st != EZ_OK)
        return st;
    st = ez_certify_verify(vk, &cert, accepted, NULL, why);
    if (st == EZ_ERR_UNSUPPORTED) {
        *accepted = false;
        st = EZ_OK;
    }
    if (st == EZ_OK && *accepted && prompt &&
        (np != cert.gen.nprompt || memcmp(prompt, cert.gen.tokens, np * sizeof *prompt) != 0)) {
        *accepted = false;
        ez_diag_set(why, "the certificate's prompt differs from the one given (%llu tokens certified, %zu given)",
                    (unsigned long long)cert.gen.nprompt, np);
    }
    if (st == EZ_OK && *accepted) {
        if (json) {
            json_t *g = ez_cli_generation_json(&cert.gen, vocab);
            json_object_update(jo, g);
            json_decref(g);
        } else {
            ez_cli_print_generation(stdout, &cert.gen, vocab);
        }
    }
    ez_certificate_clear(&cert);
    return st;
}

/* --model: the vk's plan must be the source's, compiled with the same overrides. */
static int check_model(const ez_cli_args *a, const ez_vk *vk, bool *same, ez_diag *why)
{
    ez_cli_defines defs;
    ez_plan plan;
    if (!ez_cli_overrides_get(&defs, a, O_DEFINE))
        return EZ_EXIT_USAGE;
    int rc = ez_cli_compile("verify", a->value[O_MODEL], &defs, NULL, &plan);
    if (rc != EZ_CLI_RUN)
        return rc;
    *same = memcmp(plan.digest, vk->plan.digest, sizeof plan.digest) == 0;
    if (!*same) {
        char hv[65], hm[65];
        ez_plan_digest_hex(&vk->plan, hv);
        ez_plan_digest_hex(&plan, hm);
        ez_diag_set(why, "the verifying key is not %s's: its plan digest is %.16s, the source compiles to %.16s",
                    a->value[O_MODEL], hv, hm);
    }
    ez_plan_clear(&plan);
    return EZ_CLI_RUN;
}

int ez_cli_run_verify(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    const char *vkpath = args->value[O_VK], *ppath = args->operand;
    const char *ipath = args->value[O_INPUT], *opath = args->value[O_OUT];
    bool json = args->n[O_JSON] > 0;
    if (args->value[O_PROMPT] && args->value[O_TOKENS])
        return ez_cli_usage_error(args->cmd, "give at most one of --prompt and --prompt-tokens");
    if (args->value[O_PROMPT] && !args->value[O_VOCAB])
        return ez_cli_usage_error(args->cmd, "--prompt needs --vocab V.json to turn the text into tokens");
    if ((args->n[O_DEFINE] || args->value[O_SCALE] || args->value[O_BITS]) && !args->value[O_MODEL])
        return ez_cli_usage_error(args->cmd, "-D, --scale and --bits go with --model MODEL.ein");
    if (!ez_cli_threads(args, O_THREADS, 1))
        return EZ_EXIT_USAGE;
    ez_diag d = {{0}}, why = {{0}};
    ez_vk vk;
    ez_proof pf;
    ez_vocab vocab = {0};
    const ez_vocab *vp = NULL;
    int64_t *prompt = NULL;
    size_t np = 0;
    uint8_t *vkb = NULL, *pb = NULL;
    size_t vklen = 0, plen = 0;
    /* the proof mapped, not read: its statement is verified where it lies (a decoded
     * statement points into these bytes; GPT-2's at 512 tokens is 77 MB) */
    ez_file_view pfile = {0};
    bool accepted = false, decoded = false, is_cert = false;
    json_t *jo = json_object();
    ez_vk_init(&vk);
    ez_proof_init(&pf);
    rc = EZ_EXIT_OK;
    double t0 = ez_now();
    const char *paths[] = {ipath, args->value[O_VOCAB]}, *nouns[] = {EZ_NOUN_INPUT, EZ_NOUN_VOCAB};
    ez_status st = ez_cli_expect_data(&d, 2, paths, nouns);
    if (st == EZ_OK && opath)
        st = ez_file_check_writable(opath, &d);
    if (st == EZ_OK)
        st = ez_file_read(vkpath, &vkb, &vklen, &d);
    if (st == EZ_OK && (st = ez_file_map(&pfile, ppath, &d)) == EZ_OK) {
        pb = pfile.data;
        plen = pfile.len;
    }
    if (st == EZ_OK && args->value[O_VOCAB] && (st = ez_vocab_load(&vocab, args->value[O_VOCAB], &d)) == EZ_OK)
        vp = &vocab;
    if (st == EZ_OK && (args->value[O_PROMPT] || args->value[O_TOKENS]))
        st = ez_cli_prompt(args->value[O_TOKENS], args->value[O_PROMPT], &vocab, &prompt, &np, &d);
    if (st != EZ_OK)
        goto fail;
    /* files of the wrong kind are the operator's error (exit 4), not a rejection */
    const char *vkind = ez_file_kind(vkb, vklen), *pkind = ez_file_kind(pb, plen);
    if (vkind && strcmp(vkind, "verifying key") != 0) {
        ez_diag_set(&d, "%s is a %s, not a verifying key (`einzk setup --vk` writes one)", vkpath, vkind);
        st = EZ_ERR_INPUT;
        goto fail;
    }
    if (pkind && strcmp(pkind, "proof") != 0 && strcmp(pkind, "certificate") != 0) {
        ez_diag_set(&d, "%s is a %s, not a proof or a certificate", ppath, pkind);
        st = EZ_ERR_INPUT;
        goto fail;
    }
    is_cert = pkind && !strcmp(pkind, "certificate");
    if (is_cert && (ipath || opath)) {
        rc = ez_cli_usage_error(args->cmd, "--input and -o are for proofs; %s is a certificate", ppath);
        goto out;
    }
    if (!is_cert && (prompt || vp)) {
        rc = ez_cli_usage_error(args->cmd, "--prompt, --prompt-tokens and --vocab are for certificates");
        goto out;
    }
    /* a malformed key or proof is a rejection (exit 1), not an I/O error */
    if ((st = ez_vk_decode(&vk, vkb, vklen, &why)) != EZ_OK) {
        if (st != EZ_ERR_FORMAT)
            goto fail;
        ez_diag tmp = why;
        ez_diag_set(&why, "the verifying key is malformed: %s", tmp.msg);
        goto verdict;
    }
    if (args->value[O_MODEL]) {
        bool same = false;
        if ((rc = check_model(args, &vk, &same, &why)) != EZ_CLI_RUN)
            goto out;
        rc = EZ_EXIT_OK;
        if (!same)
            goto verdict;
    }
    if (is_cert) {
        if ((st = verify_certificate(&vk, pb, plen, prompt, np, vp, json, jo, &accepted, &why)) != EZ_OK)
            goto fail;
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
        json_object_set_new(jo, "accepted", json_boolean(accepted));
        json_object_set_new(jo, "verify_seconds", json_real(seconds));
        if (!accepted)
            json_object_set_new(jo, "reason", json_string(why.msg[0] ? why.msg : "rejected"));
        json_dumpf(jo, stdout, JSON_COMPACT);
        fputc('\n', stdout);
    } else if (accepted) {
        printf("accepted (%.3f s)\n", seconds);
    } else {
        printf("rejected: %s\n", why.msg[0] ? why.msg : "the proof does not verify");
    }
    rc = accepted ? EZ_EXIT_OK : EZ_EXIT_REJECT;
    goto out;
fail:
    rc = ez_cli_error("verify", st, &d);
out:
    json_decref(jo);
    free(prompt);
    ez_vocab_clear(&vocab);
    ez_proof_clear(&pf);
    ez_vk_clear(&vk);
    free(vkb);
    ez_file_view_clear(&pfile);
    return rc;
}

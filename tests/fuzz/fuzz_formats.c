/* fuzz_formats — the proof, vk and pk decoders and the verifier on untrusted bytes.
 *
 * Properties (run under ASan+UBSan as well):
 *   proof  for ANY bytes, decoding and verifying against a fixed vk ends in a verdict,
 *          never a crash; a proof that differs from the honest one is never accepted;
 *   vk     any bytes either fail to decode with a reason, or decode into a vk under which
 *          the honest proof is rejected — unless they are the honest vk itself;
 *   pk     any bytes either fail to decode against the model with a reason, or decode.
 * A violated property aborts (so a sanitizer-free build reports it too).
 *
 * Built two ways:
 *   clang -fsanitize=fuzzer,address,undefined -DEZ_LIBFUZZER ...   libFuzzer, with the
 *       honest files named by EZ_FUZZ_VK / EZ_FUZZ_PROOF / EZ_FUZZ_PLAN and the mode by
 *       EZ_FUZZ_MODE (proof|vk|pk) — tests/fuzz/libfuzzer.sh;
 *   the default build (make check): `fuzz_formats MODE VK PROOF EINC FILE...` replays the
 *       mutants a seeded script wrote (tests/e2e/fuzz_formats.sh). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/einc.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/verify.h"
#include "tests/fuzz/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef enum { MODE_PROOF, MODE_VK, MODE_PK } fuzz_mode;

/* The honest files every mutant is measured against. */
static struct {
    bool ready;
    fuzz_mode mode;
    ez_vk vk;
    ez_plan plan;
    uint8_t *proof, *vkbytes;
    size_t proof_len, vk_len;
} g;

static bool same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* m is the honest vk with only a higher minor version in its header (bytes 6-7): a vk
 * from a newer build, read by design (its unknown sections skipped), so its acceptance of
 * the honest proof is no failure (tests/e2e/fuzz_formats.sh's newer_minor_only). */
static bool newer_minor_only(const uint8_t *m, size_t n, const uint8_t *b, size_t nb)
{
    return n == nb && n >= 8 && memcmp(m, b, 6) == 0 && memcmp(m + 8, b + 8, n - 8) == 0 &&
           (m[6] | (unsigned)m[7] << 8) > (b[6] | (unsigned)b[7] << 8);
}

/* One mutant; true iff it was accepted (decoded, and for proofs/vks: verified). */
static bool run_one(const uint8_t *data, size_t size)
{
    ez_diag d = {{0}};
    bool accepted = false;
    if (g.mode == MODE_PROOF) {
        if (ez_verify_bytes(&g.vk, data, size, &accepted, NULL, &d) != EZ_OK)
            return false; /* out of memory: nothing to say */
        if (accepted && !same(data, size, g.proof, g.proof_len))
            abort(); /* a changed proof verified */
        if (!accepted && !d.msg[0])
            abort(); /* every rejection has a reason */
        return accepted;
    }
    if (g.mode == MODE_VK) {
        ez_vk vk;
        ez_vk_init(&vk);
        ez_status st = ez_vk_decode(&vk, data, size, &d);
        if (st == EZ_OK) {
            if (ez_verify_bytes(&vk, g.proof, g.proof_len, &accepted, NULL, &d) == EZ_OK && accepted &&
                !same(data, size, g.vkbytes, g.vk_len) && !newer_minor_only(data, size, g.vkbytes, g.vk_len))
                abort(); /* another vk accepts the honest proof */
        } else if (!d.msg[0] && st != EZ_ERR_NOMEM) {
            abort();
        }
        ez_vk_clear(&vk);
        return accepted;
    }
    ez_pk pk;
    ez_pk_init(&pk);
    ez_status st = ez_pk_decode(&pk, &g.plan, data, size, &d);
    if (st != EZ_OK && st != EZ_ERR_NOMEM && !d.msg[0])
        abort();
    ez_pk_clear(&pk);
    return st == EZ_OK;
}

static int load(const char *mode, const char *vk, const char *proof, const char *einc)
{
    ez_diag d = {{0}};
    g.mode = !strcmp(mode, "vk") ? MODE_VK : !strcmp(mode, "pk") ? MODE_PK : MODE_PROOF;
    if (ez_file_read(vk, &g.vkbytes, &g.vk_len, &d) != EZ_OK ||
        ez_file_read(proof, &g.proof, &g.proof_len, &d) != EZ_OK) {
        fprintf(stderr, "fuzz_formats: %s\n", d.msg);
        return 1;
    }
    ez_vk_init(&g.vk);
    if (ez_vk_decode(&g.vk, g.vkbytes, g.vk_len, &d) != EZ_OK || ez_einc_read_file(&g.plan, einc, &d) != EZ_OK) {
        fprintf(stderr, "fuzz_formats: the honest files do not load: %s\n", d.msg);
        return 1;
    }
    g.ready = true;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g.ready) {
        const char *m = getenv("EZ_FUZZ_MODE"), *vk = getenv("EZ_FUZZ_VK"), *pf = getenv("EZ_FUZZ_PROOF"),
                   *pl = getenv("EZ_FUZZ_PLAN");
        if (!m || !vk || !pf || !pl || load(m, vk, pf, pl) != 0)
            abort();
    }
    (void)run_one(data, size);
    return 0;
}

#ifndef EZ_LIBFUZZER
int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: fuzz_formats proof|vk|pk VK PROOF EINC [MUTANT...]\n");
        return 2;
    }
    if (load(argv[1], argv[2], argv[3], argv[4]) != 0)
        return 1;
    char name[64];
    snprintf(name, sizeof name, "fuzz_formats %s", argv[1]);
    int rc = ez_fuzz_replay(name, argv + 5, argc - 5, run_one);
    ez_vk_clear(&g.vk);
    ez_plan_clear(&g.plan);
    free(g.proof);
    free(g.vkbytes);
    return rc;
}
#endif

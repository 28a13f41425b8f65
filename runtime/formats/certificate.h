/* certificate — the file `einzk certify` writes: a generated text and the proofs that
 * certify it (runtime/prove/certify.h; docs/certify.md).
 *
 *   "EZCT" | version | sections (runtime/formats/sections.h):
 *     1 generation: u64 nprompt | u64 ngen | i64 eos (-1: none) | u64 max_new | u8 stop
 *                   | i64 tokens[nprompt + ngen]
 *     2 passes:     u64 npass, then per pass u64 length | u64 first | u64 last
 *                   | u64 nbytes | an EZPF proof of nbytes bytes
 *
 * A pass is one proven forward pass over `length` positions that certifies the next-token
 * relations of positions first..last. One-pass certification has one pass covering all
 * of them; the per-step baseline (`certify --per-step`) one pass per generated token.
 * Decoding checks only the container (sizes, counts, tokens within int64); what the
 * passes must cover and prove is the verifier's job. */
#ifndef EZ_RUNTIME_FORMATS_CERTIFICATE_H
#define EZ_RUNTIME_FORMATS_CERTIFICATE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"
#include "runtime/exec/decode.h"

#define EZ_CERT_MAGIC "EZCT"

typedef struct {
    uint64_t length;      /* positions of the proven pass */
    uint64_t first, last; /* the positions whose next token it certifies */
    uint8_t *proof;       /* the EZPF bytes (owned) */
    size_t proof_len;
} ez_cert_pass;

typedef struct {
    ez_generation gen;
    size_t npass;
    ez_cert_pass *pass;
} ez_certificate;

void ez_certificate_init(ez_certificate *c);
void ez_certificate_clear(ez_certificate *c);

/* Append pass (length, first, last) with a copy of the proof bytes. EZ_OK or EZ_ERR_NOMEM. */
ez_status ez_certificate_add_pass(ez_certificate *c, uint64_t length, uint64_t first, uint64_t last,
                                  const uint8_t *proof, size_t proof_len);

/* Encode. Errors only EZ_ERR_NOMEM. */
ez_status ez_certificate_encode(ez_writer *w, const ez_certificate *c);
/* Decode untrusted bytes (copies what it keeps). EZ_ERR_FORMAT with a reason, EZ_ERR_NOMEM. */
ez_status ez_certificate_decode(ez_certificate *c, const uint8_t *data, size_t len, ez_diag *d);

/* Does data start with the certificate magic? (`einzk verify` takes proofs and certificates.) */
bool ez_certificate_is(const uint8_t *data, size_t len);

#endif

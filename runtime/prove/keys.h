/* keys — the vk and the pk as the verifier and the prover load them: parsed by
 * runtime/formats/proofio (bytes only), then checked against the plan's weight layout
 * here, where that layout is known (formats/ does not depend on prove/). */
#ifndef EZ_RUNTIME_PROVE_KEYS_H
#define EZ_RUNTIME_PROVE_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/formats/proofio.h"

/* ez_vk_parse, then the weight commitment's lens must be the plan's weight shape under
 * its scheme, its polys taking the plan's supports (ez_weights_set_supports).
 * EZ_ERR_FORMAT with a reason, EZ_ERR_NOMEM. */
ez_status ez_vk_decode(ez_vk *vk, const uint8_t *data, size_t len, ez_diag *d);

/* ez_pk_parse, then the PCS prover's lens must be the weight shape (ez_weights_check)
 * and, when the range proof is deferred, section 4 is verified and its final claims set
 * as the prover's standing claims, exactly as every verifier derives them from the vk.
 * EZ_ERR_FORMAT (or EZ_ERR_INPUT for a pk of another model) with a reason. */
ez_status ez_pk_decode(ez_pk *pk, const ez_plan *p, const uint8_t *data, size_t len, ez_diag *d);

#endif

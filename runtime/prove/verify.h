/* verify — the verifier of a whole plan (docs/protocol.md; docs/protocol.md). It reads only
 * the verifying key (the plan and the weight commitment) and the proof (statement and
 * argument): never weights, never a trace. Same phases and transcript records as the
 * prover (runtime/prove.h), with the per-op `verify` functions of the op table. */
#ifndef EZ_RUNTIME_VERIFY_H
#define EZ_RUNTIME_VERIFY_H

#include <stdbool.h>

#include "lib/util.h"
#include "runtime/formats/proofio.h"

typedef struct {
    double seconds;
} ez_verify_stats;

/* Verify a decoded proof against vk (its weight range proof first).
 * In:  vk, proof; d must not be NULL (it carries the reason).
 * Out: *accepted — the verdict; when false, d->msg says why ("lookups: ...",
 *      "op 'h' (einsum): ...", "weight opening: ..."); stats may be NULL.
 * Returns EZ_OK when verification ran to a verdict (accepted or not), EZ_ERR_NOMEM, or
 *      EZ_ERR_UNSUPPORTED when the vk's plan has an op this build cannot verify
 *      (*accepted false then too).
 * Cost: O(public inputs and outputs + table sizes) field work, the per-op checks
 *      (logarithmic in the tensors), two PCS verifications. */
ez_status ez_verify(const ez_vk *vk, const ez_proof *proof, bool *accepted, ez_verify_stats *stats, ez_diag *d);

/* ez_verify of a plan derived from the vk's (plan; NULL: the vk's own): a certified pass
 * over fewer positions (compiler/causality.h ez_plan_restrict), whose weights are the
 * vk's commitment with the shortened axes read as prefixes. The caller derives plan from
 * vk->plan itself — never from the proof. */
ez_status ez_verify_plan(const ez_vk *vk, const ez_plan *plan, const ez_proof *pf, bool *accepted,
                         ez_verify_stats *stats, ez_diag *d);

/* Decode the proof bytes and verify (a malformed proof is a rejection, not an error). */
ez_status ez_verify_bytes(const ez_vk *vk, const uint8_t *data, size_t len, bool *accepted,
                          ez_verify_stats *stats, ez_diag *d);

#endif

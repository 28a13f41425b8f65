/* certify — one proof that a text is a model's greedy continuation of a prompt
 * (`einzk certify`, `einzk verify CERT`; docs/certify.md).
 *
 * A certifiable model (compiler/causality.h) computes next[s] from tok[0..s] only, and its
 * argmax proves lowest-index ties, so next[s] is THE greedy choice after tok[0..s]. One
 * proven forward pass over the prompt and the generated text, whose statement shows
 * tok[s] = tokens[s] up to the last position and next[s] = tokens[s + 1] from the end of
 * the prompt on, certifies every generated token at once: linear in the length instead of
 * one proof per step over a growing prefix (that baseline is `per_step`).
 *
 * The pass runs over the plan restricted to L positions (ez_plan_restrict: L the context
 * or the power of two at or above the positions needed), with the vk's weight commitment
 * read as prefixes of the shortened weights, so one setup serves every length and the cost
 * follows the text, not the context. */
#ifndef EZ_RUNTIME_PROVE_CERTIFY_H
#define EZ_RUNTIME_PROVE_CERTIFY_H

#include <stdbool.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/formats/certificate.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/verify.h"

typedef struct {
    bool per_step;      /* the baseline: one pass per generated token, over the prefix it needs */
    ez_prove_opts prove; /* progress, testing flags (wplan is set by ez_certify) */
} ez_certify_opts;

typedef struct {
    double seconds, cpu_seconds; /* proving, all passes (witness to openings) */
    size_t npass;
    uint64_t positions;          /* the passes' lengths, summed */
    uint64_t proof_bytes;        /* the passes' proofs, summed */
} ez_certify_stats;

/* The positions a pass certifying next-token relations up to position `last` runs over:
 * the context S when the power of two at or above last + 1 is not below S, else that
 * power of two. */
uint64_t ez_certify_pass_length(uint64_t last, uint64_t context);

/* Prove generation g of plan p (the vk's plan, certifiable) under proving key pk.
 * In:  g from ez_generate with pk's weights (the passes re-run the model and check it).
 * Out: *out — the certificate (ez_certificate_clear); stats may be NULL.
 * Returns EZ_OK; EZ_ERR_UNSUPPORTED (p not certifiable or an op not provable);
 *      EZ_ERR_INPUT (g is not what the model generates: d names the position);
 *      the errors of ez_prove; EZ_ERR_NOMEM. */
ez_status ez_certify(ez_certificate *out, const ez_plan *p, const ez_pk *pk, const ez_generation *g,
                     const ez_certify_opts *opts, ez_certify_stats *stats, ez_diag *d);

/* Verify a certificate with the vk alone: the stop rule, that the passes cover exactly
 * positions nprompt - 1 .. nprompt + ngen - 2 in order, and per pass its proof against the
 * plan restricted to its length (derived from the vk, never from the certificate) with
 * tok[s] = tokens[s] for s <= last and next[s] = tokens[s + 1] for s in first..last.
 * Out: *accepted; the reason in d when false.
 * Returns EZ_OK when a verdict was reached, EZ_ERR_NOMEM, EZ_ERR_UNSUPPORTED (the vk's
 *      plan has an op this build cannot verify). */
ez_status ez_certify_verify(const ez_vk *vk, const ez_certificate *c, bool *accepted, ez_verify_stats *stats,
                            ez_diag *d);

#endif

/* weights — the weight commitment (the vk's half of the PCS, docs/protocol.md) and the vk's weight range proof: every committed weight lies in its
 * declared width and the padding of its layout is zero (docs/protocol.md §6.4). Prove
 * and verify side by side; both run the session phases of runtime/prove/session.h. */
#ifndef EZ_RUNTIME_PROVE_WEIGHTS_H
#define EZ_RUNTIME_PROVE_WEIGHTS_H

#include <stdbool.h>

#include "lib/pcs.h"
#include "lib/sumcheck.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/pctx.h"
#include "runtime/prove/session.h"

/* ---- the weight commitment -------------------------------------------------------------- */

/* The default commitment scheme of `setup` (and `prove --weights`): WHIR, whose proofs
 * are a quarter of Ligero's at 2^22 entries for ~1.2x the commit and ~1.6x the opening
 * time (bench/kernel rows whir_vs_ligero; docs/performance.md). `--pcs ligero` selects
 * Ligero with its proximity row tested once, in the vk (EZ_PCS_SCHEME_LIGERO_P1). */
#define EZ_PCS_DEFAULT_SCHEME EZ_PCS_SCHEME_WHIR

/* The advice commitment's scheme for a model whose weights are committed under wcom
 * (NULL: a model without weights, which uses the default): the same family — Ligero
 * weights with Ligero advice (every opening with its proximity row), WHIR with WHIR. The
 * prover commits with it and the verifier requires it, so the vk fixes the scheme. */
unsigned ez_advice_scheme(const ez_pcs_commitment *wcom);

/* The weight range proof is DEFERRED for a weight commitment c of plan p: c is WHIR and
 * holds, after the weights, the range proof's advice (limbs, multiplicities); the vk
 * keeps the range proof's transcript up to its final claims, and every proof's opening
 * proves those claims (docs/protocol.md §6.4). Otherwise (Ligero; WHIR when the advice
 * would need another WHIR part, ez_wshape_build) the vk holds the full range proof,
 * openings included. Valid for a commitment whose shape was checked (ez_weights_check,
 * ez_weights_set_supports). */
bool ez_weights_deferred(const ez_plan *p, const ez_pcs_commitment *c);

/* What the weight commitment holds under a scheme: the nw weight polys (ez_weights_lens,
 * plan order) and, when deferred, then the polys of the weights' range layout L
 * (ez_advice_layout_build_weights), n in all, with their supports (sup NULL when none
 * has one; its pieces point into wsup and L). Deferred: WHIR, and the advice adds no
 * part of 2^EZ_PCS_WHIR_PART_LOG entries to the weights' stack (a part is one more
 * instance in every proof's batched opening, ~100 KB: GPT-2's 46 M weights of one block
 * would go from one part to two). */
typedef struct {
    size_t n, nw;
    uint64_t *lens;
    ez_pcs_support *sup;
    ez_advice_layout wsup, L;
} ez_wshape;

/* Fill *w for plan p under scheme (w->n == 0: no weights). EZ_OK, EZ_ERR_NOMEM, the
 * layout's errors (d). Clear with ez_wshape_clear (also after a failure). */
ez_status ez_wshape_build(ez_wshape *w, const ez_plan *p, unsigned scheme, ez_diag *d);
void ez_wshape_clear(ez_wshape *w);

/* The weight commitment's polys, built from the weights alone: the one place that lays
 * them out, for setup's commitment (ez_weights_commit_scheme) and for the pk's reader,
 * which rebuilds the stacked vector from the pk's weights instead of storing it
 * (runtime/prove/keys.c). Init: the shape W of plan p under scheme and, when deferred,
 * the range advice computed from tr's weights (ez_psess_witness, unchecked: an
 * out-of-range weight is committed as it is and left to the range proof to refuse);
 * tr is borrowed (its WEIGHT tensors are read by ez_wsource_poly). W.nw == 0: no
 * weights. EZ_OK, EZ_ERR_NOMEM, the layout's and the witness's errors (d); cleared on
 * failure. ez_wsource_poly is an ez_pcs_polys_src fill (ctx: the source): poly k's len
 * entries, EZ_ERR_FORMAT when k or len is not the shape's. */
typedef struct {
    const ez_plan *p;
    const ez_trace *tr;
    ez_wshape W;
    size_t *tensor; /* weight poly k's plan tensor (W.nw entries) */
    long *wsi;      /* its support in W.wsup, -1: the padded layout */
    ez_psess s;     /* deferred: the advice, polys W.nw .. W.n - 1 of the commitment */
} ez_wsource;

ez_status ez_wsource_init(ez_wsource *src, const ez_plan *p, const ez_trace *tr, unsigned scheme, ez_diag *d);
ez_status ez_wsource_poly(void *ctx, size_t k, ez_fe *out, uint64_t len);
void ez_wsource_clear(ez_wsource *src);

/* ez_weights_commit under a chosen scheme (EZ_PCS_SCHEME_LIGERO_P1 or _WHIR): the polys of
 * ez_wshape_build; when deferred the range advice is computed from tr's weights (as they
 * are: an out-of-range weight is committed and left to the range proof to refuse). */
ez_status ez_weights_commit_scheme(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_plan *p,
                                   const ez_trace *tr, unsigned scheme, ez_diag *d);

/* Commit the weights of tr (every WEIGHT tensor set) in their padded layouts, plan order.
 * Out: *out (NULL when the model has no weights) and *com (zeroed then).
 * Returns EZ_OK, EZ_ERR_UNSUPPORTED (sizes beyond the PCS limits), EZ_ERR_NOMEM. */
ez_status ez_weights_commit(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_plan *p, const ez_trace *tr,
                            ez_diag *d);

/* The weight prover must commit exactly the plan's weight shape under its scheme
 * (ez_wshape_build; and exist iff the model has weights): EZ_OK or EZ_ERR_INVALID with a
 * reason. Sets the supports of its polys on its commitment (a prover read from a pk has
 * none yet). */
ez_status ez_weights_check(const ez_plan *p, ez_pcs_prover *weights, ez_diag *d);

/* Check a weight commitment read from bytes (the vk's) against plan p's weight shape
 * under its scheme and set the supports of its polys. EZ_OK, EZ_ERR_INVALID (lens that
 * do not fit, reason in d), EZ_ERR_NOMEM. */
ez_status ez_weights_set_supports(const ez_plan *p, ez_pcs_commitment *com, ez_diag *d);

/* ---- the weight range proof (in the vk) ---------------------------------------------------
 * The verifier cannot see the weights, yet the compiler's bound analysis (no wrap-around
 * modulo p) assumes every weight lies in its declared width. `setup` therefore proves it
 * once: the same advice/lookup/opening machinery over a layout that range-checks every
 * WEIGHT tensor (ez_advice_layout_build_weights: weight + 2^(bits-1) in [0, 2^bits) on
 * its padded layout, padding included) and the zero padding of every weight with
 * interior padding (ez_weight_pad_desc), in its own transcript (domain
 * EZ_WRANGE_DOMAIN: version, plan digest, weight commitment, advice commitment, lookups,
 * padding zero-checks, openings). The bytes live in the vk; ez_verify checks them before
 * the proof (runtime/verify.h ez_verify_weight_range). docs/protocol.md §6.4.
 * Format: u8 kind, then chunks (u64 length + bytes). EZ_WRANGE_NONE (a model without
 * weights): nothing. EZ_WRANGE_FULL (Ligero; WHIR when deferring would add a part): 4
 * chunks, advice commitment, lookups + padding zero-checks, weight opening (full), advice
 * opening (WHIR: both in one batched opening, the last chunk empty). EZ_WRANGE_DEFERRED
 * (ez_weights_deferred): 1 chunk, lookups + padding zero-checks; the advice is in the
 * weight commitment and the final claims (on weights and advice) become the weight
 * commitment's STANDING claims (lib/pcs.h), proved by every proof's opening. */
#define EZ_WRANGE_DOMAIN "einzk/weights"
#define EZ_WRANGE_NONE 0u
#define EZ_WRANGE_FULL 1u
#define EZ_WRANGE_DEFERRED 2u

void ez_weight_range_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom);

/* Prove the weights of tr (committed by `weights`, NULL iff the model has none) in range.
 * unchecked: testing only (emit a proof for out-of-range weights). Appends to out. When
 * deferred, also sets the standing claims on `weights` (derived from the bytes written,
 * as ez_weight_range_verify derives them), which ez_prove needs.
 * Returns EZ_OK, EZ_ERR_NUMERIC (a weight outside its width, d names it), EZ_ERR_INVALID
 * (weights do not match the plan), EZ_ERR_NOMEM. Cost: one advice commitment of the
 * weights' limbs (for widths > 16) and one LogUp-GKR over all weights. */
ez_status ez_prove_weight_range(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, bool unchecked,
                                ez_writer *out, ez_diag *d);

/* Zero padding of the committed weights (docs/protocol.md §6.4): a weight whose padded
 * layout has interior padding (ez_advice_interior_padding) is committed with zeros there,
 * and the vk's range proof shows it with one zero-check per such weight,
 *     0 = sum_x eq(rho, x) (1 - R(x)) P(x),  R = prod_a [x_a < d_a] (the real entries),
 * rho (nv coordinates, label "wpad/rho") drawn after the lookups. So P's MLE IS the
 * zero-padded tensor's, and claims on the tensor are openings of P (no masking).
 * The factor 1 - R has the closed-form MLE 1 - ez_weight_real_mle (O(nv)). */
void ez_weight_pad_desc(ez_sumcheck_desc *desc, unsigned nv);
/* R~(point) = prod_a ez_mle_prefix(point_a, ceil(log2 d_a), d_a). */
ez_fe2 ez_weight_real_mle(const ez_plan_tensor *tt, const ez_fe2 *point);

/* Verify a weight range proof (bytes, len: the vk's section) for the weight commitment
 * wcom (NULL or npolys 0: a model without weights). When deferred and accepted, sets
 * wcom's standing claims to the claims the range transcript ends with (re-derived from
 * the bytes: the points from its Fiat-Shamir challenges, the values from its messages),
 * else clears them. ez_verify calls it first, on a copy of the vk's commitment, and opens
 * the proof against that copy. Out: *accepted, reason in d.
 * Returns EZ_OK when a verdict was reached, EZ_ERR_NOMEM, EZ_ERR_UNSUPPORTED. */
ez_status ez_weight_range_verify(const ez_plan *p, ez_pcs_commitment *wcom, const uint8_t *bytes, size_t len,
                                 bool *accepted, ez_diag *d);
/* ez_weight_range_verify on a copy of the vk's commitment (the claims dropped). */
ez_status ez_verify_weight_range(const ez_vk *vk, bool *accepted, ez_diag *d);

#endif

/* session — the phases of a proof that the prover of an inference (runtime/prove/prove.c)
 * and the vk's weight range proof (runtime/prove/weights.c) share, on both sides
 * (docs/protocol.md §2): the witness (advice limbs, op-owned polys, lookup columns and
 * multiplicities), the advice commitment, one LogUp-GKR per table with its claims
 * resolved, and the two batched openings (weights against the vk, advice against the
 * proof's commitment). */
#ifndef EZ_RUNTIME_PROVE_SESSION_H
#define EZ_RUNTIME_PROVE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/pcs.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/pctx.h"

/* The concrete columns of one table: built for its multiplicities (witness phase) and
 * again for its LogUp (lookups phase); the materialised ones are freed in between. */
typedef struct {
    size_t nc;            /* columns, or tuples of a function table */
    size_t nslots;        /* entries of cols and owned (a tuple fills two per column) */
    const ez_fe **cols;
    ez_fe **owned;
    size_t *idx;
    uint64_t *lens;
    unsigned *tags;       /* each column's range width */
    ez_fe *tin, *tout;    /* a function table: its rows (input, output) */
} ez_sess_cols;

/* Everything one proof session owns besides the transcript and the claim lists. */
typedef struct {
    ez_advice_layout L;
    ez_fe **polys;
    uint64_t *alens;
    ez_sess_cols tcs[EZ_ADV_MAX_TABLES];
    ez_pcs_prover *aprover;
    ez_pcs_commitment acom;
    /* TESTING ONLY: keep the witness phase's materialised columns for the lookups (a
     * test edits them in between); by default they are freed after the multiplicities
     * and rebuilt per table for its LogUp, so they are not held through the commitment */
    bool keep_cols;
    /* progress (NULL: none): the phase ("witness", "commit", "lookups", "openings") and
     * the fraction of it done, per op filled, per table, per opening */
    void (*progress)(void *ctx, const char *phase, double frac);
    void *progress_ctx;
} ez_psess;

/* Free everything s owns (its layout included) and zero it. */
void ez_psess_clear(ez_psess *s);

/* Prover. s->L built. ez_psess_witness fills the advice values (ez_advice_fill, then
 * every op's fill hook), every table's concrete columns and its multiplicities (with
 * unchecked, values outside their ranges go through: testing only). ez_psess_commit
 * commits the advice under `scheme` (ez_advice_scheme) and writes u8 present + the
 * commitment to w and absorbs it.
 * ez_psess_lookups proves one LogUp-GKR per table into c->w and resolves its claims.
 * ez_psess_openings opens the weights (one batched opening with PCS flags wflags, into
 * ww) and the advice (into wa); when both are WHIR and both have claims, ONE batched WHIR
 * run opens both (lib/pcs.h ez_pcs_open_multi, docs/protocol-kernel-pcs.md §9a), all in
 * ww, and wa stays empty (ez_vsess_openings requires it). */
ez_status ez_psess_witness(ez_psess *s, const ez_plan *p, const ez_trace *tr, bool unchecked, ez_diag *d);
ez_status ez_psess_commit(ez_psess *s, ez_transcript *t, ez_writer *w, unsigned scheme);
ez_status ez_psess_lookups(ez_psess *s, ez_pctx *c);
ez_status ez_psess_openings(ez_psess *s, ez_pctx *c, ez_pcs_prover *weights, unsigned wflags, ez_writer *ww,
                            ez_writer *wa);
/* Free the advice values (s->polys[q], set to NULL; the array stays): once the walk is
 * done nothing reads them, and the openings read the commitment's own copy. Their pages
 * stay in the heap for the openings' own tables, unless the prover spills (memory short:
 * then they are handed back; docs/performance.md, gpt2n). */
void ez_psess_release_advice(ez_psess *s);

/* Both sides: the claims c holds on weights and advice as PCS claims on ONE commitment
 * (the deferred weight range proof's, runtime/prove/weights.h): the weight claims on
 * weight poly wi (in plan order, lifted as the openings lift them), then advice poly q's
 * claims on poly aoff + q. Out: *out (*n entries) and the lifted points *lifted; the
 * caller frees both (the other points are c's). EZ_OK, EZ_ERR_NOMEM, EZ_ERR_INTERNAL. */
ez_status ez_sess_pcs_claims(const ez_pctx *c, size_t aoff, ez_pcs_claim **out, size_t *n, ez_fe2 **lifted);

/* Verifier: the same phases from untrusted bytes. Each returns EZ_OK (go on),
 * EZ_ERR_REJECT (reason in d) or a hard error. */
bool ez_vsess_section_done(ez_reader *r, const char *what, ez_diag *d);
ez_status ez_vsess_commit(const ez_advice_layout *L, ez_transcript *t, const uint8_t *data, size_t len,
                          unsigned scheme, ez_pcs_commitment *acom, ez_diag *d);
ez_status ez_vsess_lookups(ez_pctx *c);
ez_status ez_vsess_openings(ez_pctx *c, const ez_pcs_commitment *wcom, unsigned wflags,
                            const ez_pcs_commitment *acom, const uint8_t *ww, size_t wwlen, const uint8_t *wa,
                            size_t walen);

#endif

/* pcs_internal — what lib/pcs.c (stacking, commitment I/O, claim batching, dispatch on
 * the scheme) shares with its two backends: lib/pcs_ligero.c (EZ_PCS_SCHEME_LIGERO and
 * EZ_PCS_SCHEME_LIGERO_P1) and lib/pcs_whir.c (EZ_PCS_SCHEME_WHIR, on lib/whir.h).
 * Not a public interface: only lib/pcs*.c include it.
 *
 * Division of work. lib/pcs.c checks the arguments, absorbs the opening mode and the
 * claims, draws rho and forms the combined claim sum_k rho^k v_k
 * (docs/protocol-kernel-pcs.md §2); a backend's open/verify starts from there and
 * consumes/produces exactly its own proof bytes. */
#ifndef EZ_PCS_INTERNAL_H
#define EZ_PCS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/merkle.h"
#include "lib/pcs.h"
#include "lib/sumcheck.h"
#include "lib/whir.h"

struct ez_pcs_prover {
    ez_pcs_commitment com;
    /* Ligero: the encoded matrix, (cols << EZ_PCS_LOG_BLOWUP) * rows entries,
     * column-major, and the Merkle tree over the column hashes. */
    ez_fe *enc;
    ez_merkle *tree;
    /* WHIR: per part of the stack (lib/pcs_whir.c) its vector, first oracle and tree
     * (lib/whir.h). */
    ez_whir_prover **whir;
    size_t nwhir;
    uint8_t (*wroots)[32]; /* the parts' roots */
    ez_merkle *wjoin;      /* joined parts (ez_pcs_whir_joined): the tree of the commitment's root */
    /* TESTING ONLY (tests/check_pcs.c sets it on a prover it made; nothing else does): the
     * batched Ligero opening's two sumchecks run over the tables this returns, NULL for
     * their own — a prover cheating on one factor the verifier evaluates itself. */
    const ez_sumcheck_factor *(*test_sumcheck_hook)(void *ctx, const ez_sumcheck_desc *d,
                                                    const ez_sumcheck_factor *f);
    void *test_sumcheck_ctx;
};

/* One (claim, piece) pair of an opening (both backends, both sides): the piece's weight
 * is coef * eq(zf, .) over its 2^b entries, coef = rho^claim * eq over the bits the
 * piece fixes, zf the claim's coordinates at the piece's free bits, most significant
 * first (a suffix of the claim's point for a plain poly, gathered for a support). */
typedef struct {
    size_t claim;
    uint64_t piece;
    unsigned b;
    ez_fe2 coef;
    const ez_fe2 *zf;
} ez_pcs_pterm;

/* The pairs of the claims, in claim then piece order, those with a zero coefficient left
 * out (a claim at a point inside another piece of a support). Out: *out (nout entries),
 * *store (the gathered coordinates zf may point into); caller frees both. EZ_OK or
 * EZ_ERR_NOMEM. */
ez_status ez_pcs_piece_terms(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                             ez_pcs_pterm **out, size_t *nout, ez_fe2 **store);

/* A scheme id ez_pcs_commit_scheme and ez_pcs_commitment_read accept. */
static inline bool ez_pcs_scheme_valid(unsigned scheme)
{
    return scheme == EZ_PCS_SCHEME_LIGERO || scheme == EZ_PCS_SCHEME_LIGERO_P1 || scheme == EZ_PCS_SCHEME_WHIR;
}

/* Dispatch: everything but WHIR is Ligero (a zeroed scheme field reads as
 * EZ_PCS_SCHEME_LIGERO, pcs.h). */
static inline bool ez_pcs_scheme_is_ligero(unsigned scheme)
{
    return scheme != EZ_PCS_SCHEME_WHIR;
}

/* ---- Ligero backend (lib/pcs_ligero.c) ------------------------------------------------
 * ez_pcs_ligero_commit: p->com holds the layout; fills p->enc, p->tree and p->com.root.
 * ez_pcs_ligero_prover_write/read: the prover data after the commitment (read: p->com
 *   already read; EZ_ERR_FORMAT / EZ_ERR_NOMEM, p's arrays freed by the caller).
 * ez_pcs_ligero_open/verify: the opening after the claims were absorbed (claim = sum_k
 *   rho^k v_k); prox false for EZ_PCS_OPEN_NO_PROXIMITY. Returns as ez_pcs_open_ex /
 *   ez_pcs_verify_ex. */
ez_status ez_pcs_ligero_commit(ez_pcs_prover *p, const ez_fe *const *polys);
void ez_pcs_ligero_prover_write(ez_writer *w, const ez_pcs_prover *p);
ez_status ez_pcs_ligero_prover_read(ez_reader *r, ez_pcs_prover *p);
ez_status ez_pcs_ligero_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, bool prox,
                            ez_fe2 rho, ez_fe2 claim, ez_writer *proof);
ez_status ez_pcs_ligero_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                              bool prox, ez_fe2 rho, ez_fe2 claim, ez_reader *proof);

/* ---- WHIR backend (lib/pcs_whir.c) ----------------------------------------------------
 * The same four roles as the Ligero backend. ez_pcs_whir_params: the WHIR parameters of
 * a laid-out WHIR commitment (EZ_ERR_INVALID if its size is out of range). */
ez_status ez_pcs_whir_params(const ez_pcs_commitment *c, ez_whir_params *par);
ez_status ez_pcs_whir_commit(ez_pcs_prover *p, const ez_fe *const *polys);
void ez_pcs_whir_prover_write(ez_writer *w, const ez_pcs_prover *p);
ez_status ez_pcs_whir_prover_read(ez_reader *r, ez_pcs_prover *p, const ez_pcs_polys_src *src);
ez_status ez_pcs_whir_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                          ez_fe2 claim, ez_writer *proof);
ez_status ez_pcs_whir_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                            ez_fe2 rho, ez_fe2 claim, ez_reader *proof);
/* Several WHIR commitments (their claims absorbed, rho[k] and claim[k] drawn by lib/pcs.c;
 * n[k] == 0: not opened) in ONE batched WHIR run (lib/whir.h ez_whir_open_batch): each
 * commitment's part roots and sums as in ez_pcs_whir_open, then every touched part of
 * every commitment as one instance (every part of a joined commitment, one group: docs
 * §9c; if those do not fit one chain together, one run per commitment). */
ez_status ez_pcs_whir_open_multi(ez_pcs_prover *const *p, const ez_pcs_claim *const *claims, const size_t *n,
                                 const ez_fe2 *rho, const ez_fe2 *claim, size_t ncom, ez_transcript *t,
                                 ez_writer *proof);
ez_status ez_pcs_whir_verify_multi(const ez_pcs_commitment *const *com, const ez_pcs_claim *const *claims,
                                   const size_t *n, const ez_fe2 *rho, const ez_fe2 *claim, size_t ncom,
                                   ez_transcript *t, ez_reader *proof);

#endif

/* sumcheck_box — the prover of lib/sumcheck.h for tables that are zero outside a box,
 * reading only the entries that can be non-zero, in every round.
 *
 * A contraction's sumcheck tables are a tensor laid out over padded axes: the variables
 * form blocks (one per index, MSB first), block b holding real indices [0, ext_b) of its
 * 2^bits_b slots, everything else zero (docs/protocol.md: "padding is a property of the view,
 * not of memory"). The tables are stored COMPACT — row-major over the real extents — and
 * the rounds bind the variables most significant first (desc order = identity). Binding
 * the top variable of block b (2^K slots, extent E) pairs x with x + 2^(K-1): pairs with
 * x >= min(E, 2^(K-1)) are zero on both sides and skipped, and a pair whose upper half is
 * padding reads one entry; the bound block has extent min(E, 2^(K-1)). So a 12-head,
 * width-80 table costs 12 x 80 entries in round one, not 16 x 128, and the later rounds
 * read only their non-zero support too.
 *
 * The proof is byte-identical to ez_sumcheck_prove on the zero-padded tables (same
 * transcript records; round values are exact field elements and padding contributes
 * zero): tests/check_sumcheck.c compares them. */
#ifndef EZ_SUMCHECK_BOX_H
#define EZ_SUMCHECK_BOX_H

#include <stdint.h>

#include "lib/sumcheck.h"

typedef struct {
    unsigned nblocks;
    unsigned bits[EZ_SC_MAX_VARS]; /* variables of block b; the blocks cover variables
                                      0..nvars-1 in order (block 0 most significant) */
    uint64_t ext[EZ_SC_MAX_VARS];  /* real extent of block b: 1 <= ext <= 2^bits */
} ez_sumcheck_box;

/* Entries of a compact table: prod ext_b (0 if the box is malformed). */
uint64_t ez_sumcheck_box_size(const ez_sumcheck_box *b);

/* Entries of the tables summed over the rounds: what this prover reads (padded false:
 * the non-zero support of each round's tables) or what ez_sumcheck_prove reads on the
 * zero-padded tables (padded true: 2^nvars + 2^(nvars-1) + ... + 2). Per table. */
uint64_t ez_sumcheck_box_touched(const ez_sumcheck_box *b, bool padded);

/* Prove, exactly as ez_sumcheck_prove would on the zero-padded tables.
 * In:  t, coeffs, eq_point, claim — as ez_sumcheck_prove; d — a checked desc with ONE
 *      term in which each of its nfactors (1..4) factors appears once, order = identity
 *      (round j binds variable j); box — blocks covering exactly d->nvars variables;
 *      factors[j] — compact tables of ez_sumcheck_box_size(box) entries (not modified).
 * Out: proof, point, evals — as ez_sumcheck_prove (bytes identical); touched (may be
 *      NULL) += the entries read (ez_sumcheck_box_touched(box, false)).
 * Cost: O(nfactors * touched) field operations (extension arithmetic: slower per entry
 *      than the dense kernels, which is why callers use them when nothing is padded);
 *      scratch: one extension table per factor, smaller than the compact table (the first
 *      bind halves the leading block), the eq tables of the blocks. OpenMP over the
 *      outer block of a round.
 * Returns EZ_OK, EZ_ERR_INVALID (a shape outside the above) or EZ_ERR_NOMEM. */
ez_status ez_sumcheck_prove_box(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                const ez_fe2 *eq_point, const ez_sumcheck_box *box,
                                const ez_sumcheck_factor *factors, ez_fe2 claim, ez_sumcheck_proof *proof,
                                ez_fe2 *point, ez_fe2 *evals, uint64_t *touched);

#endif

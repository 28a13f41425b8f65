/* masks — the multilinear extensions of public structured masks, which the verifier
 * evaluates itself in O(log n) instead of trusting a committed copy (docs/protocol.md
 * "Multilinear conventions": causal mask, live-entry selectors). */
#ifndef EZ_RUNTIME_PROVE_MASKS_H
#define EZ_RUNTIME_PROVE_MASKS_H

#include <stdint.h>

#include "lib/field.h"

/* The MLE of the causal mask M[i, j] = [j <= i] over ni + nj variables (i's block first;
 * i in [0, 2^ni), j in [0, 2^nj), the whole cube) at (ri, rj), in O(ni + nj) multiplies:
 * M~ = 1 - sum_b E_b rj_b (1 - ri_b), bits aligned at the least significant end, E_b the
 * eq of the more significant bits (missing bits of the shorter index are 0). */
ez_fe2 ez_mle_causal(const ez_fe2 *ri, unsigned ni, const ez_fe2 *rj, unsigned nj);

/* The MLE of the live set of a causally masked row/column pair,
 *     F(i, j) = [i < Ni] [j < Nj] [j <= i],
 * over ni + nj variables (i's block, j's block; MSB first in each), at (ri, rj), in
 * O(max(ni, nj)) extension multiplies: a 12-state comparison automaton read from the most
 * significant bit, each variable weighted by eq(r_b, bit) once, so the sum over accepting
 * runs is multilinear and equals the table's MLE. 1 <= Ni <= 2^ni, 1 <= Nj <= 2^nj. */
ez_fe2 ez_softmax_live_mle(const ez_fe2 *ri, unsigned ni, uint64_t Ni, const ez_fe2 *rj, unsigned nj, uint64_t Nj);

#endif

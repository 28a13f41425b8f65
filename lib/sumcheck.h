/* sumcheck — ONE sumcheck engine for sums of products with an optional eq factor
 * (docs/protocol-einsum.md; Thaler,
 * "Proofs, Arguments, and Zero-Knowledge", §4.1 and the eq-factor variant of §4.6).
 *
 * It proves
 *     claim = sum_{x in {0,1}^n} eq(r_B, x_B) * sum_t c_t * prod_{j in T_t} f_j(x)
 * where B (eq_vars) is a subset of the variables (empty = no eq factor), each f_j is a
 * multilinear table of 2^n entries (base or extension field) and T_t lists the factors
 * of term t. Variables are bound in the order desc.order[] (any permutation), so a
 * caller can bind in the order that matches its memory layout.
 *
 * Round j binds variable order[j]: the prover sends g_j at 0, 2, 3, ..., d (d = degree);
 * the verifier derives g_j(1) = claim_j - g_j(0), draws r_j from the transcript and
 * sets claim_{j+1} = g_j(r_j). At the end it checks
 *     claim_n = eq(r_B, point_B) * sum_t c_t prod_{j in T_t} evals[j]
 * and hands point[] and evals[] to the caller, who must discharge the claims
 * f_j(point) = evals[j] (e.g. by a PCS opening or a further sumcheck).
 * Soundness error: at most n * d / |F_{p^2}| ~ n d / 2^128 (Schwartz–Zippel per round).
 *
 * Transcript discipline (both sides, identical): absorb the desc shape and the claim,
 * each round's message before its challenge, then the final evals.
 * Format details: docs/protocol-kernel-sumcheck.md. */
#ifndef EZ_SUMCHECK_H
#define EZ_SUMCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"

#define EZ_SC_MAX_VARS 48
#define EZ_SC_MAX_FACTORS 8
#define EZ_SC_MAX_TERMS 4
#define EZ_SC_MAX_TERM_FACTORS 4

/* The public shape of one sumcheck; prover and verifier share it. */
typedef struct {
    unsigned nvars, nfactors, nterms;
    struct {
        unsigned nf;                         /* number of factors in the term, 1..4 */
        unsigned f[EZ_SC_MAX_TERM_FACTORS];  /* factor indices (repeats allowed: f^2) */
    } term[EZ_SC_MAX_TERMS];
    uint64_t eq_vars;               /* bit v set <=> variable v carries the eq factor */
    unsigned order[EZ_SC_MAX_VARS]; /* order[j] = variable bound in round j (a permutation) */
} ez_sumcheck_desc;

/* Degree of the round polynomials: max_t nf_t, plus 1 if eq_vars != 0 (the same degree
 * in every round, so the proof has a fixed shape; rounds binding a variable outside B
 * send one redundant value). */
unsigned ez_sumcheck_degree(const ez_sumcheck_desc *d);

/* EZ_OK if d is well formed: nvars <= 48 (0 is allowed: no rounds, the sum is the
 * single point's value), 1 <= nfactors <= 8, 1 <= nterms <= 4, every term has 1..4
 * factors < nfactors, eq_vars only has bits < nvars, order is a permutation of
 * 0..nvars-1. Else EZ_ERR_INVALID. */
ez_status ez_sumcheck_desc_check(const ez_sumcheck_desc *d);

/* One term = the product of all nfactors factors (nfactors <= 4), no eq, order = 0..n-1.
 * Callers then adjust terms, eq_vars and order. */
void ez_sumcheck_desc_init(ez_sumcheck_desc *d, unsigned nvars, unsigned nfactors);

/* A factor table of 2^nvars entries; exactly one of base / ext is non-NULL.
 * Index convention: lib/mle.h (variable 0 = most significant bit). */
typedef struct {
    const ez_fe *base;
    const ez_fe2 *ext;
} ez_sumcheck_factor;

typedef struct {
    unsigned nvars, degree, nfactors;
    ez_fe2 *rounds; /* nvars * degree values: round j sends g_j(0), g_j(2), ..., g_j(degree);
                       g_j(1) = claim - g_j(0) */
    ez_fe2 *evals;  /* nfactors: f_j(point) — the claims the caller discharges */
} ez_sumcheck_proof;

/* Bytes of a proof of shape d (ez_sumcheck_proof_write): (nvars * degree + nfactors) * 16. */
uint64_t ez_sumcheck_proof_bytes(const ez_sumcheck_desc *d);

/* Free the arrays of p and zero it (p may be zeroed already; NULL-safe fields). */
void ez_sumcheck_proof_clear(ez_sumcheck_proof *p);

/* Append the proof: the rounds then the evals, each ez_fe2 as 16 canonical bytes.
 * No lengths are written: the shape follows from the desc both sides share. */
void ez_sumcheck_proof_write(ez_writer *w, const ez_sumcheck_proof *p);

/* Parse a proof of shape d from untrusted bytes (consumes exactly its length, leaves
 * the reader after it). Out: *p allocated (clear with ez_sumcheck_proof_clear; it is
 * left zeroed on failure). Returns EZ_OK, EZ_ERR_REJECT on short input or a
 * non-canonical field encoding, EZ_ERR_INVALID for a bad desc, EZ_ERR_NOMEM. */
ez_status ez_sumcheck_proof_read(ez_reader *r, const ez_sumcheck_desc *d, ez_sumcheck_proof *p);

/* Prove.
 * In:  t — transcript (advanced); d — checked desc; coeffs — nterms c_t (NULL = all
 *      one); eq_point — popcount(eq_vars) coordinates listed in increasing variable
 *      index (NULL iff eq_vars == 0); factors[nfactors] — 2^nvars-entry tables (not
 *      modified); claim — the claimed sum (the caller's; it is NOT recomputed, so a
 *      wrong claim makes a proof that the verifier rejects).
 * Out: proof — allocated (caller clears; any previous contents are overwritten, not
 *      freed); point[nvars] indexed BY VARIABLE (not by round); evals[nfactors] =
 *      f_j(point) (also stored in the proof). point/evals may be NULL.
 * Cost: O(2^n * (nfactors + term products * d)) field work, the first round on base
 *      data directly (no table is lifted to the extension up front); scratch of
 *      2^(n-1) extension entries per factor (2^(n-2) for one term f*g of two base
 *      factors), 1.5 times that if some round binds a variable that is not the most
 *      significant unbound one, plus two eq tables of about 2^(n/2) entries; large
 *      scratch is huge-page advised (ez_alloc_huge). Dedicated kernels for one term
 *      of 2 or 3 factors (base, extension, or f*g with one base and one extension
 *      factor) and for two terms of two factors each, with or without eq; other
 *      shapes run the generic kernel. OpenMP over blocks of pairs. Per element at
 *      2^20 on one core of the development machine: docs/protocol-kernel-sumcheck.md
 *      (bench/kernel sumcheck_*).
 * Returns EZ_OK, EZ_ERR_INVALID (bad desc or arguments) or EZ_ERR_NOMEM. */
ez_status ez_sumcheck_prove(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                            const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim,
                            ez_sumcheck_proof *proof, ez_fe2 *point, ez_fe2 *evals);

/* The same proof computed by the generic kernels only: no shape-specialised kernel and
 * no small-value round. The round values are exact field elements, so the result is
 * byte-identical to ez_sumcheck_prove's (tests/check_sumcheck.c asserts this on random
 * instances of every specialised shape); it is the reference the fast kernels are
 * tested against, and slower. Arguments, outputs and returns as ez_sumcheck_prove. */
ez_status ez_sumcheck_prove_reference(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                      const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim,
                                      ez_sumcheck_proof *proof, ez_fe2 *point, ez_fe2 *evals);

/* Verify.
 * Checks every round against the running claim and the final value against
 * eq(r_B, point_B) * sum_t c_t prod f_j(point) with f_j = proof->evals, and that the
 * proof's shape matches d. Returns EZ_OK or EZ_ERR_REJECT (EZ_ERR_INVALID for a bad
 * desc). On OK, point[nvars] (by variable) and evals[nfactors] (copied from the proof)
 * are the caller's claims to discharge; on reject they are unspecified.
 * Cost: O(n d^2) extension operations plus the transcript. No allocation. */
ez_status ez_sumcheck_verify(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                             const ez_fe2 *eq_point, ez_fe2 claim, const ez_sumcheck_proof *proof,
                             ez_fe2 *point, ez_fe2 *evals);

#endif

/* claim — evaluation claims of the GKR-style claim flow (docs/protocol.md §5 "The claim flow").
 *
 * A claim says "the MLE of tensor T at point is value". The runtime walks the ops in
 * reverse topological order; each op's prover reduces the (one) claim on its output to
 * claims on its inputs and advice. A tensor consumed by several ops collects several
 * claims (ez_claim_list); before its producer runs they are merged into one
 * (ez_claim_merge_*): a random linear combination and one degree-2 sumcheck.
 *
 * Tensor convention (lib/mle.h, project-wide): a tensor with real extents d_1..d_k is
 * the MLE over sum_a ez_log2_ceil(d_a) variables, one block per axis, axis 1's block
 * first, MSB first inside a block, each axis zero-padded to a power of two. A rank-0
 * tensor has no variables: its MLE is its one value.
 *
 * Protocol text and soundness: docs/protocol-einsum.md ("Fan-out merge"). */
#ifndef EZ_RUNTIME_CLAIM_H
#define EZ_RUNTIME_CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"

/* T~(point) = value. The point is owned by the claim (heap, nvars coordinates; NULL
 * when nvars == 0). A zeroed struct is a valid empty claim. */
typedef struct {
    unsigned nvars;
    ez_fe2 *point;
    ez_fe2 value;
} ez_claim;

/* Allocate the point of c (nvars coordinates, zero) and set value = 0.
 * c must not own a point (zeroed or cleared). Returns EZ_OK or EZ_ERR_NOMEM (c zeroed). */
ez_status ez_claim_init(ez_claim *c, unsigned nvars);

/* c := (point[0..nvars-1], value), allocating. c must not own a point. point may alias
 * nothing in c. Returns EZ_OK or EZ_ERR_NOMEM (c zeroed). */
ez_status ez_claim_set(ez_claim *c, const ez_fe2 *point, unsigned nvars, ez_fe2 value);

/* dst := a deep copy of src (dst must not own a point). EZ_OK or EZ_ERR_NOMEM. */
ez_status ez_claim_copy(ez_claim *dst, const ez_claim *src);

/* Free the point and zero c. NULL-safe, idempotent. */
void ez_claim_clear(ez_claim *c);

/* Absorb the claim (nvars as u64, the point, the value) under label. */
void ez_claim_absorb(ez_transcript *t, const char *label, const ez_claim *c);

/* Number of MLE variables of a tensor with real extents dims[0..rank-1]. */
unsigned ez_claim_tensor_nvars(const uint64_t *dims, unsigned rank);

/* ---- per-tensor claim lists ---------------------------------------------------------- */

typedef struct {
    size_t n, cap;
    ez_claim *items; /* n claims, owned */
} ez_claim_list;

void ez_claim_list_init(ez_claim_list *l);
/* Free every claim and the array; l is left empty and reusable. NULL-safe. */
void ez_claim_list_clear(ez_claim_list *l);
/* Append a deep copy of c. EZ_OK or EZ_ERR_NOMEM (l unchanged). */
ez_status ez_claim_list_add(ez_claim_list *l, const ez_claim *c);
/* Append c itself, taking ownership of its point; *c is zeroed on success (left as is
 * on EZ_ERR_NOMEM). */
ez_status ez_claim_list_add_owned(ez_claim_list *l, ez_claim *c);

/* ---- fan-out merge --------------------------------------------------------------------
 * Given claims T~(r_i) = v_i, i < n, the verifier draws lambda_0..lambda_{n-1} and
 *     sum_i lambda_i v_i = sum_{x in {0,1}^nv} W(x) T(x),
 *     W(x) = sum_i lambda_i eq(r_i, x) on the tensor's real entries, 0 on its padding
 * is proven by one sumcheck (factors W ext, T base; degree 2, no eq factor). T is zero on
 * the padding, so W's padding changes no sum; keeping it zero lets the prover skip the
 * padding altogether (both tables zero there, lib/sumcheck_box.h). The verifier evaluates
 * W at the sumcheck point itself (per axis a prefix sum of eq(r_i) eq(p), O(n nv)) and
 * keeps the single claim T~(p) = the sumcheck's T evaluation. n == 1 is a no-op (copy, no bytes, no
 * transcript use). Both sides must call with the same n, nvars and claims.
 * Transcript: u64 n, every claim, n challenges, then the sumcheck's own records.
 * Proof bytes: the sumcheck proof (nv rounds of 2 values, then W(p) and T(p)). */

/* Prover.
 * In:  t — transcript (advanced); data — the tensor's values (row-major, real extents
 *      dims[0..rank-1], rank <= 8; rank 0 = one value); claims[0..n-1], n >= 1, each with
 *      nvars = ez_claim_tensor_nvars(dims, rank) (the claims are not checked against the
 *      data: a false claim makes a proof the verifier rejects).
 * Out: proof — the bytes appended; out — the merged claim (must not own a point;
 *      caller clears; zeroed on failure).
 * Cost: O(n numel) extension multiplies for W plus the sumcheck over the real entries
 *      (the padding skipped, ez_claim_merge_prove_ex); memory 24 numel bytes plus the
 *      sumcheck's scratch. OpenMP.
 * Returns EZ_OK, EZ_ERR_INVALID (n == 0, nvars mismatch, bad dims) or EZ_ERR_NOMEM. */
ez_status ez_claim_merge_prove(ez_transcript *t, const int64_t *data, const uint64_t *dims, unsigned rank,
                               const ez_claim *claims, size_t n, ez_writer *proof, ez_claim *out);

/* ez_claim_merge_prove over compact tables by default: W and T hold the tensor's real
 * entries and the sumcheck skips the padding (lib/sumcheck_box.h; the same proof).
 * dense: over the zero-padded 2^nv tables (the padded strategies). touched (may be NULL)
 * += the entries built and read: n per table entry for W, then the sumcheck's reads. */
ez_status ez_claim_merge_prove_ex(ez_transcript *t, const int64_t *data, const uint64_t *dims, unsigned rank,
                                  const ez_claim *claims, size_t n, bool dense, ez_writer *proof, ez_claim *out,
                                  uint64_t *touched);

/* What ez_claim_merge_prove_ex adds to touched, from the shape alone (padded: dense). */
uint64_t ez_claim_merge_work(const uint64_t *dims, unsigned rank, size_t n, bool padded);

/* Verifier: the same statement with the tensor known only by its shape.
 * In:  t; dims[0..rank) the tensor's real extents; claims[0..n-1] (each with the tensor's
 *      variable count, n >= 1); proof — untrusted bytes,
 *      the reader is left after this merge's part.
 * Out: out — the merged claim (must not own a point; zeroed unless EZ_OK).
 * Cost: O(n nv + nv) extension operations plus transcript hashing; no data access.
 * Returns EZ_OK, EZ_ERR_REJECT (bad round, W(p) wrong, truncated or non-canonical
 *      bytes), EZ_ERR_INVALID (n == 0 or a claim's nvars differs) or EZ_ERR_NOMEM. */
ez_status ez_claim_merge_verify(ez_transcript *t, const uint64_t *dims, unsigned rank, const ez_claim *claims,
                                size_t n, ez_reader *proof, ez_claim *out);

/* ---- layout helpers shared by the provers -------------------------------------------
 * Copy a row-major tensor with real extents dims[0..rank-1] into a table with arbitrary
 * per-axis strides: dst[sum_a i_a * stride[a]] = src[i] for every real index i. An axis
 * with stride 0 must have extent 1. Entries of dst not hit are left untouched (callers
 * zero dst first for zero padding). dst must be large enough for the largest index; it
 * must not alias src. rank may be 0 (one value). Cost: O(numel), OpenMP over rows. */
void ez_claim_layout_i64(ez_fe *dst, const int64_t *src, const uint64_t *dims, unsigned rank,
                         const uint64_t *stride);
void ez_claim_layout_fe2(ez_fe2 *dst, const ez_fe2 *src, const uint64_t *dims, unsigned rank,
                         const uint64_t *stride);

#endif

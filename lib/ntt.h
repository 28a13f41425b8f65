/* ntt — radix-2 number-theoretic transforms over Goldilocks and the Reed–Solomon
 * low-degree extension used by the polynomial commitment (docs/protocol.md).
 *
 * Conventions. For n = 2^k, w_n = ez_fe_root_of_unity(k) (a fixed primitive 2^k-th
 * root; w_{2n}^2 = w_n). The forward transform maps coefficients a[0..n-1] to
 * evaluations A[i] = sum_j a[j] w_n^(i j), both in natural order; the inverse undoes it
 * (including the 1/n factor).
 *
 * Twiddles are precomputed once per ez_ntt (one table per direction, 2^max_log entries
 * each, laid out stage by stage so every butterfly pass reads them sequentially).
 * An ez_ntt is immutable after creation and may be shared by any number of threads.
 * The butterflies use AVX-512 when the compiler targets it (-march=native on a machine
 * that has it) and portable scalar code otherwise; both give identical results.
 * Transforms of 2^14 entries or more use OpenMP when called outside a parallel region.
 * Nothing here allocates except the constructors. */
#ifndef EZ_NTT_H
#define EZ_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/util.h"

/* Largest supported transform: 2^24 entries (the tables of a 2^24 ez_ntt take 256 MiB). */
#define EZ_NTT_MAX_LOG 24u

typedef struct ez_ntt ez_ntt;

/* Precompute forward and inverse twiddles for all sizes up to 2^max_log.
 * In:  max_log <= EZ_NTT_MAX_LOG.
 * Out: *out (free with ez_ntt_free); NULL on failure.
 * Cost: 2 * 2^max_log multiplies, 16 * 2^max_log bytes.
 * Returns EZ_OK, EZ_ERR_INVALID (max_log too large) or EZ_ERR_NOMEM. */
ez_status ez_ntt_new(ez_ntt **out, unsigned max_log);
void ez_ntt_free(ez_ntt *t); /* NULL-safe */
unsigned ez_ntt_max_log(const ez_ntt *t);

/* In-place forward transform of a[0..2^logn-1] (coefficients -> evaluations on the
 * subgroup <w_n>, natural order). Precondition: logn <= ez_ntt_max_log(t).
 * Cost: (n/2) logn butterflies plus one bit-reversal permutation. */
void ez_ntt_forward(const ez_ntt *t, ez_fe *a, unsigned logn);

/* In-place inverse transform (evaluations -> coefficients, natural order, scaled by
 * 1/n). Precondition and cost as ez_ntt_forward, plus n multiplies. */
void ez_ntt_inverse(const ez_ntt *t, ez_fe *a, unsigned logn);

/* In-place coset evaluation: a holds coefficients; afterwards a[i] = P(shift * w_n^i).
 * Precondition as ez_ntt_forward. Cost: ez_ntt_forward plus 2n multiplies. */
void ez_ntt_coset_forward(const ez_ntt *t, ez_fe *a, unsigned logn, ez_fe shift);

/* ---- Reed–Solomon low-degree extension (systematic) ------------------------------
 * For a message of n = 2^logn values, viewed as the evaluations of the unique
 * polynomial P of degree < n on H = <w_n>, the codeword is P on the domain
 * D = <w_{Bn}> of B = 2^log_blowup times as many points, listed coset by coset:
 *     out[k n + j] = P(w_{Bn}^k * w_n^j),   0 <= k < B, 0 <= j < n,
 * so out[0..n-1] is the message itself (k = 0). This is RS[F, D, n], rate 1/B: any two
 * distinct codewords differ in at least (B-1) n + 1 positions. */
typedef struct ez_ntt_lde ez_ntt_lde;

/* Precompute the plan for one message size and blowup.
 * In:  1 <= logn, logn + log_blowup <= EZ_NTT_MAX_LOG, 1 <= log_blowup <= 4.
 * Out: *out (free with ez_ntt_lde_free). Cost: O(B n) multiplies, (B + 1) n * 8 bytes.
 * Returns EZ_OK, EZ_ERR_INVALID or EZ_ERR_NOMEM. */
ez_status ez_ntt_lde_new(ez_ntt_lde **out, unsigned logn, unsigned log_blowup);
void ez_ntt_lde_free(ez_ntt_lde *p); /* NULL-safe */
unsigned ez_ntt_lde_logn(const ez_ntt_lde *p);
unsigned ez_ntt_lde_log_blowup(const ez_ntt_lde *p);

/* Encode one message.
 * In:  in[0..n-1]; scratch: n entries (must not alias in or out).
 * Out: out[0..B n - 1] as above. out may equal in (in place: in must then have room for
 *      B n entries); otherwise they must not overlap.
 * Cost: one inverse and B-1 forward transforms of size n, (B-1) n extra multiplies; no
 *      allocation; single-threaded for logn <= 14 or inside a parallel region (callers
 *      parallelise over messages). */
void ez_ntt_lde_apply(const ez_ntt_lde *p, ez_fe *out, const ez_fe *in, ez_fe *scratch);

/* ---- Reed–Solomon encoding from coefficients (WHIR, lib/whir.h) -------------------
 * For P(X) = sum_{u<n} a_u X^u (n = 2^logn, natural order) and B = 2^log_blowup, coset
 * k < B of the codeword is P on w_{Bn}^k <w_n>, listed in BIT-REVERSED order:
 *     out[j] = P(w_{Bn}^k * w_n^brev(j)),  j < n  (brev over logn bits),
 * so no permutation pass is spent (the caller maps positions to points). */
typedef struct ez_ntt_rs ez_ntt_rs;

/* Precompute the coset scale tables for one message size and blowup.
 * In:  logn + log_blowup <= EZ_NTT_MAX_LOG (logn may be 0), 1 <= log_blowup <= 4.
 * Out: *out (free with ez_ntt_rs_free). Cost: O(B n) multiplies, (B + 1) n * 8 bytes.
 * Returns EZ_OK, EZ_ERR_INVALID or EZ_ERR_NOMEM. */
ez_status ez_ntt_rs_new(ez_ntt_rs **out, unsigned logn, unsigned log_blowup);
void ez_ntt_rs_free(ez_ntt_rs *p); /* NULL-safe */

/* One coset. In: a[0..n-1] coefficients, k < B. Out: out[0..n-1] as above (out must
 * not overlap a). Cost: n multiplies (k > 0) and (n/2) logn butterflies; no
 * allocation; OpenMP for n >= 2^14 outside a parallel region. */
void ez_ntt_rs_coset(const ez_ntt_rs *p, ez_fe *out, const ez_fe *a, unsigned k);

/* Multilinear evaluations to multilinear (Möbius) coefficients, in place, over index
 * bits lo .. lo + nbits - 1 of a[0 .. 2^(lo + nbits) - 1]: for each such bit h and each
 * x with bit h clear, a[x + 2^h] -= a[x]. The other (low) bits are untouched, so an
 * extension table (c0, c1 interleaved) is lo = 1, and "rows" x mod 2^lo are
 * transformed independently. Cost: nbits 2^(lo + nbits - 1) subtractions (AVX-512 when
 * available); OpenMP for large arrays outside a parallel region. */
void ez_ntt_mobius(ez_fe *a, unsigned lo, unsigned nbits);

/* ---- eight small Reed–Solomon encodings at once (lib/whir.c ez_whir_prover_leaves0) --
 * x holds 8 multilinears of 2^lb EVALUATIONS each, lane-major (x[b * 8 + l] is entry b
 * of multilinear l); each is read as the univariate P_l with its Möbius coefficients
 * (the WHIR view, lib/whir.h) and evaluated on all M = 2^(lb + c) points, in NATURAL
 * order: out[v * 8 + l] = P_l(w_M^v). x is overwritten (the coefficients); out has 8 M
 * entries and must not overlap x. tw: M entries from ez_ntt_small_twiddles (w_M^k for
 * k < M/2, then a code per twiddle telling a shift +-2^e from a general product).
 * Cost: lb 2^(lb-1) subtractions and lb M/2 butterflies on 8 lanes (AVX-512 when
 * available); no allocation, no threads (callers parallelise over blocks). */
void ez_ntt_small_twiddles(ez_fe *tw, unsigned logM);
void ez_ntt_rs_small8(ez_fe *out, ez_fe *x, unsigned lb, unsigned c, const ez_fe *tw, const uint16_t *plan);

/* The plan that lets ez_ntt_rs_small8 compute only some points: need[v] != 0 for each
 * point v < M = 2^logM (logM >= 1) the caller reads. Writes at most M + 2 entries to plan
 * and returns their number. With a plan, rs_small8 skips the butterflies of its last two
 * stages that lead to no needed point: out[v] for a v not needed is then unspecified. */
size_t ez_ntt_small_plan(uint16_t *plan, const uint8_t *need, unsigned logM);

/* The queried leaves' accumulation after ez_ntt_rs_small8: for j < np and lanes l < 8,
 * acc[j stride + l] += e[j] v[8 pos[j] + l] (mod p; canonical in, canonical out).
 * acc must not overlap v; with stride < 8 the rows overlap, which is harmless only when
 * v's lanes from stride on are zero (they then add zero to the next row). Cost: np
 * multiplies on 8 lanes (AVX-512 when available). */
void ez_ntt_mac8(ez_fe *acc, size_t stride, const ez_fe *v, const size_t *pos, const ez_fe *e, size_t np);

/* ---- Reed–Solomon encodings of interleaved polynomials (lanes; lib/whir.c's oracle 0) --
 * W = 2^lw polynomials of n = 2^logn coefficients side by side: a[u W + r] is entry u of
 * polynomial r, so a vector (W entries) is one index u of every polynomial. Each step
 * works on whole vectors, which keeps the layout of a WHIR leaf (the W values at one
 * point) from the input through the output. The work is split into cache blocks of
 * 2^B vectors (B = ez_ntt_lanes_block_log(logn, lw): 512 KiB, up to 2 MiB for long
 * columns; any B <= logn gives the same result) and columns (the 2^(logn - B) vectors
 * q + i 2^B for one q < 2^B): the index bits from B up are done on columns, the bits
 * below B on blocks; the calls for different columns (or blocks) are independent, so
 * callers split them over threads, and a caller may use each block as soon as its call
 * returns. No allocation, no threads.
 *
 * Möbius (as ez_ntt_mobius, per polynomial): first ez_ntt_lanes_mobius_block for every
 * block b < 2^(logn - B) (copies block b of src to dst, unless they are equal, then its
 * bits below B), then ez_ntt_lanes_mobius_column for every column q < 2^B (bits from B
 * up of dst). */
unsigned ez_ntt_lanes_block_log(unsigned logn, unsigned lw);
void ez_ntt_lanes_mobius_block(ez_fe *dst, const ez_fe *src, unsigned lw, unsigned B, size_t b);
void ez_ntt_lanes_mobius_column(ez_fe *a, unsigned lw, unsigned logn, unsigned B, size_t q);

/* Coset k of every polynomial (as ez_ntt_rs_coset: out[j W + r] = P_r(w_{Bn}^k
 * w_n^brev(j)), bit-reversed): ez_ntt_rs_lanes_column for every column q (column q of
 * a, scaled, into out; out may equal a, else they must not overlap; then the stages
 * with h >= 2^B), then ez_ntt_rs_lanes_block for every block (the stages below, in
 * place). logn is the plan's (ez_ntt_rs_new). Cost: the butterflies of W calls of
 * ez_ntt_rs_coset with 3/4 of their products (two stages at a time), one twiddle load
 * per butterfly of W lanes, and three passes over out (column, block and the caller's
 * use of the block while it is in cache). */
void ez_ntt_rs_lanes_column(const ez_ntt_rs *p, ez_fe *out, const ez_fe *a, unsigned k, unsigned lw, unsigned B,
                            size_t q);
void ez_ntt_rs_lanes_block(const ez_ntt_rs *p, ez_fe *out, unsigned lw, unsigned B, size_t b);

#endif

/* mle — multilinear extensions and the eq polynomial (docs/protocol.md).
 *
 * Convention (project-wide): a table of 2^n entries is the MLE over n variables where
 * variable 0 is the MOST significant bit of the index, index(x) = sum_j x_j 2^(n-1-j);
 * a point r[0..n-1] lists variables in that order. eq(r, x) = prod_j (r_j x_j +
 * (1 - r_j)(1 - x_j)). A table shorter than 2^n is zero-padded (padding is a view).
 *
 * A tensor with real extents d_1..d_k (row-major in memory) is the MLE over
 * ez_log2_ceil(d_1) + ... + ez_log2_ceil(d_k) variables, one block per axis, axis 1's
 * block most significant, each axis zero-padded to a power of two.
 *
 * Unless stated otherwise outputs must not alias inputs. Nothing here allocates except
 * the fold functions (which return EZ_ERR_NOMEM on failure). Large loops use OpenMP. */
#ifndef EZ_MLE_H
#define EZ_MLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/util.h"


/* The eq table of r over n variables.
 * In:  r[0..n-1] (variable 0 first); n <= 62.
 * Out: out[x] = eq(r, x) for all x < 2^n (out has 2^n entries; must not alias r).
 * Cost: 2^n - 1 extension multiplies (one per produced entry, built by doubling);
 *       OpenMP for large n. sum_x out[x] = 1. */
void ez_eq_table(ez_fe2 *out, const ez_fe2 *r, unsigned n);

/* The same table times s: out[x] = s eq(r, x), at the same cost (the doubling starts
 * from s instead of 1), so a weighted sum of eq tables needs no multiply per entry. */
void ez_eq_table_scaled(ez_fe2 *out, const ez_fe2 *r, unsigned n, ez_fe2 s);

/* eq(a, b) = prod_j (a_j b_j + (1 - a_j)(1 - b_j)) in O(n). */
ez_fe2 ez_eq_eval(const ez_fe2 *a, const ez_fe2 *b, unsigned n);

/* One coordinate of eq: ab + (1 - a)(1 - b) = 1 - a - b + 2ab, one multiply. */
static inline ez_fe2 ez_eq1(ez_fe2 a, ez_fe2 b)
{
    ez_fe2 ab = ez_fe2_mul(a, b);
    return ez_fe2_add(ez_fe2_sub(ez_fe2_add(ab, ab), ez_fe2_add(a, b)), ez_fe2_one());
}

/* eq(r, idx) for a Boolean point idx over n variables (bit n-1-j of idx is variable j,
 * r[j] its coordinate). O(n). */
ez_fe2 ez_eq_bool(const ez_fe2 *r, unsigned n, uint64_t idx);

/* Evaluate the MLE of t (len entries, entries len..2^n-1 are zero) at r[0..n-1].
 * Precondition: len <= 2^n (n <= 62). Cost: about 2 len base multiplies (fe) or len
 * extension multiplies (fe2); no heap allocation (O(n) recursion and a small eq table
 * for the low variables on the stack). */
ez_fe2 ez_mle_eval_fe(const ez_fe *t, size_t len, const ez_fe2 *r, unsigned n);
ez_fe2 ez_mle_eval_fe2(const ez_fe2 *t, size_t len, const ez_fe2 *r, unsigned n);

/* Bind the first (most significant) variable of p to r, in place.
 * In:  p has 2n entries (the table over m+1 variables, n = 2^m).
 * Out: p[0..n-1] = p[i] + r (p[n+i] - p[i]) — the table over the remaining variables.
 * Cost: n extension multiplies; OpenMP for large n. */
void ez_mle_bind_top(ez_fe2 *p, size_t n, const ez_fe2 *r);

/* Bind the last (least significant) variable of p to r, in place.
 * In:  p has 2n entries.
 * Out: p[0..n-1] = p[2i] + r (p[2i+1] - p[2i]). Cost: n extension multiplies
 *      (sequential: the in-place update reads ahead of where it writes). */
void ez_mle_bind_bottom(ez_fe2 *p, size_t n, const ez_fe2 *r);

/* Tensor MLEs with per-axis padding (docs/protocol.md).
 * In:  in — row-major data with real extents dims[0..k-1] (each >= 1), k >= 1;
 *      points[a] — NULL for a kept axis, else a point of ez_log2_ceil(dims[a])
 *      coordinates for a folded axis (points may be NULL: nothing folded, a copy).
 * Out: out — the folded tensor over the kept axes, real extents, row-major:
 *      out[kept idx] = sum over folded axes' real indices i of
 *                      prod_a eq(points[a], i_a) * in[...].
 *      out has prod_{kept a} dims[a] entries (1 if every axis is folded); must not
 *      alias in.
 * Cost: O(size of in) multiplies plus the eq tables of the folded axes (their real
 *       extents only); allocates O(sum of folded extents + size of out) scratch.
 * Returns EZ_OK, EZ_ERR_INVALID (k == 0, a zero extent, size overflow) or EZ_ERR_NOMEM. */
ez_status ez_mle_fold_fe(ez_fe2 *out, const ez_fe *in, const size_t *dims, unsigned k,
                         const ez_fe2 *const *points);
ez_status ez_mle_fold_fe2(ez_fe2 *out, const ez_fe2 *in, const size_t *dims, unsigned k,
                          const ez_fe2 *const *points);

/* The tensor's MLE at point = the concatenation of the axis blocks (axis 0's block
 * first, ez_log2_ceil(dims[a]) coordinates each). Returns zero if scratch allocation
 * fails (never for tensors whose leading-axes fold fits memory). */
ez_fe2 ez_mle_eval_tensor_fe(const ez_fe *in, const size_t *dims, unsigned k, const ez_fe2 *point);
/* The same for a tensor of integers (each taken mod p), without a field copy of it. */
ez_fe2 ez_mle_eval_tensor_i64(const int64_t *in, const size_t *dims, unsigned k, const ez_fe2 *point);
/* The same for integers packed w bytes each (1..8, two's complement little-endian:
 * ez_unpack_i64), unpacked a block of a row at a time: no int64 copy of the tensor. */
ez_fe2 ez_mle_eval_tensor_packed(const uint8_t *in, unsigned w, const size_t *dims, unsigned k, const ez_fe2 *point);

/* The MLE of the prefix selector s(x) = [index(x) < len] over n variables at r, in O(n)
 * multiplies. Precondition: len <= 2^n (n <= 63). len == 0 gives 0, len == 2^n gives 1. */
ez_fe2 ez_mle_prefix(const ez_fe2 *r, unsigned n, uint64_t len);

/* sum_{x < len} eq(r, x) eq(p, x) over n variables (x's top bit is variable 0), in O(n)
 * multiplies: as ez_mle_prefix, with the per-bit weights w(1) = r p, w(0) = (1 - r)(1 - p)
 * and the free lower bits summing to prod (w(0) + w(1)) instead of 1. n <= 63; a len of
 * 2^n or more sums the whole cube. */
ez_fe2 ez_mle_prefix_dot(const ez_fe2 *r, const ez_fe2 *p, unsigned n, uint64_t len);

#endif

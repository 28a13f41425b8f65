/* fe2_vec — loops over arrays of extension elements on eight Goldilocks lanes
 * (lib/fe_vec.h: one AVX-512 or two AVX2 registers), for the sumcheck's binds, the eq
 * tables and the LogUp-GKR fraction layers: the prover's hottest loops after the NTT.
 *
 * Each kernel runs eight entries at a time (an entry's c0 and c1 in two lane vectors)
 * and finishes a length that is not a multiple of eight with its scalar loop, the
 * `_ref` function beside it. Without EZ_FE_VEC the kernel is its `_ref`. Every output
 * is canonical and equal to the scalar one (the arithmetic is exact; tests compare the
 * two on edge values and lengths 1, 7, 8, 9: tests/check_sumcheck.c, check_mle.c,
 * check_logup.c). Outputs may alias inputs exactly where each function says. */
#ifndef EZ_FE2_VEC_H
#define EZ_FE2_VEC_H

#include <stddef.h>

#include "lib/field.h"

/* ---- scalar sums of products with one reduction (the `_ref` loops, lib/gkr.c) -------
 * A sum of up to four 128-bit products is kept as (lo, carries) and reduced once:
 * 2^128 = 2^32 * 2^96 = -2^32 (mod p), so it is reduce128(lo) - carries 2^32. */
static inline void ez_sum128(unsigned __int128 *lo, uint64_t *carries, unsigned __int128 v)
{
    *lo += v;
    *carries += *lo < v;
}

static inline ez_fe ez_red128(unsigned __int128 lo, uint64_t carries)
{
    return ez_fe_sub(ez_fe_reduce128(lo), ez_fe_from_u64(carries << 32)); /* carries <= 3 */
}

/* c + x r for a fixed r with rw = 7 r.c1: both coefficients as one unreduced sum each. */
static inline ez_fe2 ez_fe2_mul_add_pre(ez_fe2 x, ez_fe2 r, ez_fe rw, ez_fe2 c)
{
    typedef unsigned __int128 u128;
    uint64_t k0 = 0, k1 = 0;
    u128 x0 = (u128)x.c0 * r.c0, x1 = (u128)x.c0 * r.c1;
    ez_sum128(&x0, &k0, (u128)x.c1 * rw);
    ez_sum128(&x0, &k0, c.c0);
    ez_sum128(&x1, &k1, (u128)x.c1 * r.c0);
    ez_sum128(&x1, &k1, c.c1);
    return ez_fe2_make(ez_red128(x0, k0), ez_red128(x1, k1));
}

/* One entry of a bind, a + r (b - a) (rw = 7 r.c1), for extension and base halves. */
static inline ez_fe2 ez_fe2_bind1(ez_fe2 a, ez_fe2 b, ez_fe2 r, ez_fe rw)
{
    return ez_fe2_mul_add_pre(ez_fe2_sub(b, a), r, rw, a);
}

static inline ez_fe2 ez_fe2_bind1_base(ez_fe a, ez_fe b, ez_fe2 r)
{
    ez_fe df = ez_fe_sub(b, a);
    uint64_t k = 0;
    unsigned __int128 x0 = (unsigned __int128)r.c0 * df;
    ez_sum128(&x0, &k, a);
    return ez_fe2_make(ez_red128(x0, k), ez_fe_mul(r.c1, df));
}

/* The multilinear bind of one variable: dst[i] = lo[i] + r (hi[i] - lo[i]), i < n.
 * dst may equal lo (binding in place); dst must not overlap hi[0..n) otherwise.
 * O(n): four base products per entry. */
void ez_fe2_bind(ez_fe2 *dst, const ez_fe2 *lo, const ez_fe2 *hi, size_t n, ez_fe2 r);
void ez_fe2_bind_ref(ez_fe2 *dst, const ez_fe2 *lo, const ez_fe2 *hi, size_t n, ez_fe2 r);

/* The same for base-field halves: dst[i] = lo[i] + r (hi[i] - lo[i]). Two products. */
void ez_fe2_bind_base(ez_fe2 *dst, const ez_fe *lo, const ez_fe *hi, size_t n, ez_fe2 r);
void ez_fe2_bind_base_ref(ez_fe2 *dst, const ez_fe *lo, const ez_fe *hi, size_t n, ez_fe2 r);

/* One doubling step of an eq table: hi[i] = x[i] r, then x[i] = x[i] - hi[i], i < n
 * (eq(r, 1) = r, eq(r, 0) = 1 - r). x and hi do not overlap. */
void ez_fe2_eq_split(ez_fe2 *x, ez_fe2 *hi, size_t n, ez_fe2 r);
void ez_fe2_eq_split_ref(ez_fe2 *x, ez_fe2 *hi, size_t n, ez_fe2 r);

/* One layer of a fraction tree (docs/protocol-kernel-logup.md §3): node i of n is the
 * sum of the fractions pL/qL and pR/qR, projectively,
 *   op[i] = pL[i] qR[i] + pR[i] qL[i],  oq[i] = qL[i] qR[i].
 * The outputs overlap no input. */
void ez_fe2_frac_layer(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *pL, const ez_fe2 *qL, const ez_fe2 *pR,
                       const ez_fe2 *qR, size_t n);
void ez_fe2_frac_layer_ref(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *pL, const ez_fe2 *qL, const ez_fe2 *pR,
                           const ez_fe2 *qR, size_t n);

/* dst[i] = a[i] + l b[i], i < n (LogUp-GKR's A = pL + lambda qL). dst overlaps neither
 * input. Four products per entry. */
void ez_fe2_axpy(ez_fe2 *dst, const ez_fe2 *a, ez_fe2 l, const ez_fe2 *b, size_t n);
void ez_fe2_axpy_ref(ez_fe2 *dst, const ez_fe2 *a, ez_fe2 l, const ez_fe2 *b, size_t n);

/* The layer above unit leaves (numerators 1): op[i] = qL[i] + qR[i], oq[i] = qL[i] qR[i]. */
void ez_fe2_frac_layer_unit(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *qL, const ez_fe2 *qR, size_t n);
void ez_fe2_frac_layer_unit_ref(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *qL, const ez_fe2 *qR, size_t n);

#endif

/* quant — fixed-point quantization of real inputs and weights (docs/language.md).
 *
 * A real v at scale s (fraction bits) becomes the integer q = round(v * 2^s), which
 * must fit the tensor's width: a signed `bits`-bit integer, -2^(bits-1) <= q <=
 * 2^(bits-1) - 1. Rounding is to nearest with ties AWAY from zero (C's round()):
 * 0.5 -> 1, -0.5 -> -1, 2.5 -> 3. v * 2^s is computed exactly (a power-of-two scale
 * only moves the exponent), so ties are detected exactly and the result does not
 * depend on the platform's rounding mode.
 *
 * Accepted parameters: scale <= EZ_QUANT_MAX_SCALE, 1 <= bits <= EZ_QUANT_MAX_BITS. */
#ifndef EZ_RUNTIME_QUANT_H
#define EZ_RUNTIME_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

#define EZ_QUANT_MAX_SCALE 62u
#define EZ_QUANT_MAX_BITS 63u

/* Quantize one value.
 * Out: *out = round(v * 2^scale) on EZ_OK; untouched otherwise.
 * Errors: EZ_ERR_NUMERIC for NaN, +-Inf, or a rounded value outside the signed
 *      `bits`-bit range; EZ_ERR_INVALID for scale/bits outside the accepted range.
 * Cost: a few flops; pure, thread-safe. */
ez_status ez_quantize(double v, unsigned scale, unsigned bits, int64_t *out);

/* Quantize a whole tensor, row-major.
 * In:  v[0..n) values; dims[0..rank) the tensor's extents (used only to turn a flat
 *      position into a multi-index for the message; product should be n; rank <= 8,
 *      dims may be NULL when rank == 0); label names the tensor for the user, e.g.
 *      "input 'x'" or "W.safetensors: tensor 'wq'".
 * Out: out[0..n) (must not alias v). On failure out is partially written.
 * Errors: as ez_quantize, for the FIRST failing element in row-major order; the diag
 *      reads e.g. "input 'x'[2, 5] = 9.5: does not fit 16 signed bits at scale 12
 *      (representable range [-8, 7.999755859375])".
 * Cost: O(n); OpenMP-parallel over elements, no allocation. */
ez_status ez_quantize_tensor(const char *label, const double *v, size_t n,
                             const uint64_t *dims, unsigned rank, unsigned scale,
                             unsigned bits, int64_t *out, ez_diag *d);

/* q / 2^scale as a double: exact whenever |q| <= 2^53 (always true for bits <= 54);
 * otherwise correctly rounded. scale <= EZ_QUANT_MAX_SCALE. */
double ez_dequantize(int64_t q, unsigned scale);

#endif

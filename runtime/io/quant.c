/* quant — see quant.h. */
#include "runtime/io/quant.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "runtime/io/tensorio.h"

/* Round to nearest, ties away from zero, without a library call: x - trunc(x) is
 * exact (|x| < 2^52 has at most 52 fraction bits to drop; larger x are integers). */
static inline double round_half_away(double x)
{
    double t = trunc(x);
    double f = x - t;
    if (f >= 0.5)
        t += 1.0;
    else if (f <= -0.5)
        t -= 1.0;
    return t;
}

/* The core shared by ez_quantize and the tensor loop; pow2 = 2^scale, lim = 2^(bits-1). */
static inline bool quantize_one(double v, double pow2, double lim, int64_t *out)
{
    /* v * 2^scale is exact (a power of two only moves the exponent); an overflow
     * gives infinity and a NaN stays NaN, both of which fail the range check. Both
     * limits are exact; r is an integer, so r < 2^(bits-1) is the same as
     * r <= 2^(bits-1) - 1 even where the latter is not a double. */
    double r = round_half_away(v * pow2);
    if (!(r >= -lim && r < lim))
        return false;
    *out = (int64_t)r;
    return true;
}

ez_status ez_quantize(double v, unsigned scale, unsigned bits, int64_t *out)
{
    if (scale > EZ_QUANT_MAX_SCALE || bits < 1 || bits > EZ_QUANT_MAX_BITS)
        return EZ_ERR_INVALID;
    return quantize_one(v, ldexp(1.0, (int)scale), ldexp(1.0, (int)bits - 1), out)
               ? EZ_OK
               : EZ_ERR_NUMERIC;
}

double ez_dequantize(int64_t q, unsigned scale)
{
    return ldexp((double)q, -(int)scale);
}

/* "[i0, i1, ...]" for a flat row-major position; "" for rank 0. */
static void format_index(char *buf, size_t cap, size_t pos, const uint64_t *dims, unsigned rank)
{
    buf[0] = 0;
    if (rank >= 1 && rank <= EZ_MAX_RANK && dims != NULL)
        ez_tensorio_format_index(buf, cap, pos, dims, rank);
    else if (pos != 0) /* a caller gave no shape: show the flat position */
        snprintf(buf, cap, "[%zu]", pos);
}

ez_status ez_quantize_tensor(const char *label, const double *v, size_t n,
                             const uint64_t *dims, unsigned rank, unsigned scale,
                             unsigned bits, int64_t *out, ez_diag *d)
{
    if (scale > EZ_QUANT_MAX_SCALE || bits < 1 || bits > EZ_QUANT_MAX_BITS) {
        ez_diag_set(d, "%s: unsupported quantization (scale %u, %u bits)", label, scale, bits);
        return EZ_ERR_INVALID;
    }
    /* The first failing position in row-major order, so the message does not depend
     * on the thread schedule. */
    size_t bad = SIZE_MAX;
    const double pow2 = ldexp(1.0, (int)scale), lim = ldexp(1.0, (int)bits - 1);
#pragma omp parallel for reduction(min : bad) schedule(static)
    for (size_t i = 0; i < n; i++) {
        if (!quantize_one(v[i], pow2, lim, &out[i]) && i < bad)
            bad = i;
    }
    if (bad == SIZE_MAX)
        return EZ_OK;

    char where[200];
    format_index(where, sizeof where, bad, dims, rank);
    double x = v[bad];
    if (!isfinite(x)) {
        ez_diag_set(d, "%s%s = %s: not a finite number", label, where,
                    isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    } else {
        double lo = -ldexp(1.0, (int)bits - 1 - (int)scale);
        double hi = ldexp(ldexp(1.0, (int)bits - 1) - 1.0, -(int)scale);
        ez_diag_set(d,
                    "%s%s = %.17g: does not fit %u signed bits at scale %u "
                    "(representable range [%.17g, %.17g])",
                    label, where, x, bits, scale, lo, hi);
    }
    return EZ_ERR_NUMERIC;
}

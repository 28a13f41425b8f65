/* tables — see tables.h and docs/semantics.md §"Tables". */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EZ_TABLE_SAT ((int64_t)((UINT64_C(1) << 62) - 1))

double ez_func_eval_f64(ez_func f, double x)
{
    switch (f) {
    case EZ_FN_RELU: return x > 0 ? x : 0.0;
    case EZ_FN_GELU: return 0.5 * x * (1.0 + erf(x * M_SQRT1_2));
    case EZ_FN_GELU_TANH: return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case EZ_FN_SILU: return x / (1.0 + exp(-x));
    case EZ_FN_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case EZ_FN_TANH: return tanh(x);
    case EZ_FN_EXP: return exp(x);
    case EZ_FN_RSQRT: return x > 0 ? 1.0 / sqrt(x) : INFINITY;
    case EZ_FN_NONE: break;
    }
    return NAN;
}

/* round half away from zero, saturated: the one rounding rule of every table row. */
static int64_t round_sat(double v)
{
    if (!(v == v))
        return 0;
    double r = round(v);
    if (r >= (double)EZ_TABLE_SAT)
        return EZ_TABLE_SAT;
    if (r <= -(double)EZ_TABLE_SAT)
        return -EZ_TABLE_SAT;
    return (int64_t)r;
}

static ez_status table_alloc(ez_table *t, uint32_t n, ez_diag *d)
{
    t->out = ez_alloc_array(n, sizeof *t->out);
    if (t->out == NULL) {
        ez_diag_set(d, "out of memory building a table");
        return EZ_ERR_NOMEM;
    }
    t->n = n;
    return EZ_OK;
}

/* A table of 2^EZ_TABLE_BITS rows, row i for the input x' = lo + i in units of 2^in_shift
 * input units (in_shift: the input scale's excess over EZ_TABLE_RES_SCALE): its header and
 * its output array, the values left to the caller. */
static ez_status table_sampled(ez_table *t, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale,
                               int64_t lo, ez_diag *d)
{
    t->kind = kind;
    t->func = f;
    t->in_scale = in_scale;
    t->out_scale = out_scale;
    t->in_shift = in_scale > EZ_TABLE_RES_SCALE ? in_scale - EZ_TABLE_RES_SCALE : 0;
    t->lo = lo;
    return table_alloc(t, UINT32_C(1) << EZ_TABLE_BITS, d);
}

void ez_table_tails(ez_func f, ez_tail *lo, ez_tail *hi)
{
    switch (f) {
    case EZ_FN_GELU:
    case EZ_FN_GELU_TANH:
    case EZ_FN_SILU: *lo = EZ_TAIL_ZERO, *hi = EZ_TAIL_IDENTITY; break;
    case EZ_FN_SIGMOID: *lo = EZ_TAIL_ZERO, *hi = EZ_TAIL_ONE; break;
    case EZ_FN_TANH: *lo = EZ_TAIL_MINUS_ONE, *hi = EZ_TAIL_ONE; break;
    default: *lo = EZ_TAIL_ZERO, *hi = EZ_TAIL_CLAMP; break; /* exp */
    }
}

ez_status ez_table_build(ez_table *t, ez_func f, unsigned in_scale, unsigned out_scale,
                         ez_diag *d)
{
    memset(t, 0, sizeof *t);
    if (f == EZ_FN_RSQRT) {
        ez_status st = ez_table_build_rsqrt(t, d);
        t->in_scale = in_scale;
        t->out_scale = out_scale;
        return st;
    }
    if (f == EZ_FN_NONE || f == EZ_FN_RELU || f > EZ_FN_LAST) {
        ez_diag_set(d, "no table for function '%s'", ez_func_name(f));
        return EZ_ERR_INVALID;
    }
    if (in_scale > 62 || out_scale > 62) {
        ez_diag_set(d, "table scales out of range (%u, %u)", in_scale, out_scale);
        return EZ_ERR_INVALID;
    }
    ez_table_tails(f, &t->lo_tail, &t->hi_tail);
    ez_status st = table_sampled(t, EZ_TABLE_FUNC, f, in_scale, out_scale, -((int64_t)1 << (EZ_TABLE_BITS - 1)), d);
    if (st != EZ_OK)
        return st;
    /* x' units are 2^in_shift input units: real value = x' * 2^(in_shift - in_scale). */
    const double unit = ldexp(1.0, (int)t->in_shift - (int)in_scale);
    const double outmul = ldexp(1.0, (int)out_scale);
    /* 2^16 libm calls (erf, tanh, exp: 20-90 ns each), independent rows */
#pragma omp parallel for schedule(static)
    for (uint32_t i = 0; i < t->n; i++)
        t->out[i] = round_sat(ez_func_eval_f64(f, (double)(t->lo + (int64_t)i) * unit) * outmul);
    return EZ_OK;
}

ez_status ez_table_build_softmax_exp(ez_table *t, unsigned in_scale, ez_diag *d)
{
    memset(t, 0, sizeof *t);
    if (in_scale > 62) {
        ez_diag_set(d, "softmax input scale %u out of range", in_scale);
        return EZ_ERR_INVALID;
    }
    t->lo_tail = EZ_TAIL_CLAMP; /* never used: d >= 0 */
    t->hi_tail = EZ_TAIL_ZERO;
    ez_status st = table_sampled(t, EZ_TABLE_SOFTMAX_EXP, EZ_FN_EXP, in_scale, EZ_SOFTMAX_EXP_SCALE, 0, d);
    if (st != EZ_OK)
        return st;
    const double unit = ldexp(1.0, (int)t->in_shift - (int)in_scale);
    const double outmul = ldexp(1.0, EZ_SOFTMAX_EXP_SCALE);
#pragma omp parallel for schedule(static)
    for (uint32_t i = 0; i < t->n; i++)
        t->out[i] = round_sat(exp(-(double)i * unit) * outmul);
    return EZ_OK;
}

ez_status ez_table_build_kind(ez_table *t, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale,
                              ez_diag *d)
{
    if (kind == EZ_TABLE_SOFTMAX_EXP)
        return ez_table_build_softmax_exp(t, in_scale, d);
    if (kind == EZ_TABLE_RSQRT)
        return ez_table_build_rsqrt(t, d);
    if (kind == EZ_TABLE_SIGN)
        return ez_table_build_sign(t, d);
    return ez_table_build(t, f, in_scale, out_scale, d);
}

bool ez_table_is(const ez_table *t, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale)
{
    if (t->kind != kind)
        return false;
    if (kind == EZ_TABLE_RSQRT || kind == EZ_TABLE_SIGN)
        return true;
    if (kind == EZ_TABLE_SOFTMAX_EXP)
        return t->in_scale == in_scale;
    return t->func == f && t->in_scale == in_scale && t->out_scale == out_scale;
}

/* floor(sqrt(x)) exactly: a double estimate corrected by integer steps. */
static uint64_t isqrt_u64(uint64_t x)
{
    uint64_t r = (uint64_t)sqrt((double)x);
    while (r > 0 && (r > UINT32_MAX || r * r > x))
        r--;
    while (r + 1 <= UINT32_MAX && (r + 1) * (r + 1) <= x)
        r++;
    return r;
}

ez_status ez_table_build_rsqrt(ez_table *t, ez_diag *d)
{
    memset(t, 0, sizeof *t);
    t->kind = EZ_TABLE_RSQRT;
    t->func = EZ_FN_RSQRT;
    t->out_scale = EZ_RSQRT_TABLE_SCALE;
    t->lo = 0;
    t->lo_tail = EZ_TAIL_ZERO;
    t->hi_tail = EZ_TAIL_ZERO; /* never used: ez_rsqrt_split keeps M < 2^16 */
    ez_status st = table_alloc(t, UINT32_C(1) << EZ_TABLE_BITS, d);
    if (st != EZ_OK)
        return st;
    /* r = floor(sqrt(2^(2*TS) / M)) = floor(sqrt(floor(2^(2*TS) / M))): exact, so the
     * table is the same on every platform. */
    const uint64_t num = UINT64_C(1) << (2 * EZ_RSQRT_TABLE_SCALE);
    t->out[0] = 0;
#pragma omp parallel for schedule(static)
    for (uint32_t i = 1; i < t->n; i++)
        t->out[i] = (int64_t)isqrt_u64(num / i);
    return EZ_OK;
}

ez_status ez_table_build_sign(ez_table *t, ez_diag *d)
{
    memset(t, 0, sizeof *t);
    t->kind = EZ_TABLE_SIGN;
    t->func = EZ_FN_NONE;
    t->lo = -((int64_t)1 << (EZ_TABLE_BITS - 1));
    t->lo_tail = t->hi_tail = EZ_TAIL_CLAMP; /* never used: the rows are all the lookup admits */
    ez_status st = table_alloc(t, UINT32_C(1) << EZ_TABLE_BITS, d);
    if (st != EZ_OK)
        return st;
    for (uint32_t i = 0; i < t->n; i++) {
        int64_t h = t->lo + (int64_t)i;
        t->out[i] = (h > 0) - (h < 0);
    }
    return EZ_OK;
}

void ez_table_clear(ez_table *t)
{
    if (t == NULL)
        return;
    free(t->out);
    memset(t, 0, sizeof *t);
}

int64_t ez_table_tail(const ez_table *t, ez_tail tail, int64_t x)
{
    switch (tail) {
    case EZ_TAIL_ZERO: return 0;
    case EZ_TAIL_ONE: return (int64_t)1 << t->out_scale;
    case EZ_TAIL_MINUS_ONE: return -((int64_t)1 << t->out_scale);
    case EZ_TAIL_IDENTITY:
        if (t->out_scale >= t->in_scale) {
            unsigned s = t->out_scale - t->in_scale;
            /* saturate instead of overflowing; the compiler's bound rules out reaching it */
            if (s >= 62 || x > (EZ_TABLE_SAT >> s) || x < -(EZ_TABLE_SAT >> s))
                return x > 0 ? EZ_TABLE_SAT : -EZ_TABLE_SAT;
            return x * ((int64_t)1 << s);
        }
        return x >> (t->in_scale - t->out_scale); /* arithmetic shift = floor */
    case EZ_TAIL_CLAMP: break;
    }
    return 0; /* CLAMP is resolved by ez_table_eval, which knows the side */
}

int64_t ez_table_eval(const ez_table *t, int64_t x)
{
    int64_t xs = x >> t->in_shift; /* floor */
    if (xs < t->lo)
        return t->lo_tail == EZ_TAIL_CLAMP ? t->out[0] : ez_table_tail(t, t->lo_tail, x);
    if (xs - t->lo >= (int64_t)t->n)
        return t->hi_tail == EZ_TAIL_CLAMP ? t->out[t->n - 1] : ez_table_tail(t, t->hi_tail, x);
    return t->out[xs - t->lo];
}

void ez_rsqrt_split(int64_t v, int64_t *m, unsigned *k, int64_t *mrem)
{
    if (v <= 0) {
        *m = 0;
        *k = 0;
        *mrem = 0;
        return;
    }
    uint64_t u = (uint64_t)v;
    unsigned kk = 0;
    for (;;) {
        unsigned s = 2 * kk;
        uint64_t q = s >= 64 ? 0 : u >> s;
        uint64_t low = s >= 64 ? u : u & ((UINT64_C(1) << s) - 1);
        uint64_t mm = q + (low != 0); /* ceil(u / 4^k) */
        if (mm < (UINT64_C(1) << EZ_TABLE_BITS)) {
            *k = kk;
            *m = (int64_t)mm;
            *mrem = (int64_t)((mm << s) - u);
            return;
        }
        kk++;
    }
}

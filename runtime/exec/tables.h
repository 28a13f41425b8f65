/* tables — the function tables of the integer model, defined ONCE here.
 *
 * Every non-arithmetic function of the integer semantics (docs/semantics.md) is a table
 * of at most 2^16 rows plus a few exact integer steps around it (shifts, tails,
 * normalisation). The executor (runtime/exec*.c) evaluates through these tables, and the
 * prover's lookups (docs/protocol.md §4 "Lookups") must use the very same rows, so the rows are
 * built by exactly one function per kind and nothing else computes them.
 *
 * Table kinds
 * - Elementwise function f at (in_scale, out_scale) — gelu, silu, sigmoid, tanh, exp:
 *     x' = floor(x / 2^in_shift), in_shift = max(0, in_scale - EZ_TABLE_RES_SCALE)
 *     rows x' in [lo, lo + n), n <= 2^16, row i holds
 *         round(f((lo + i) * 2^in_shift / 2^in_scale) * 2^out_scale)
 *     (round half away from zero, computed in double with the C library's erf/exp/tanh,
 *     saturated to +-(2^62 - 1)). Outside [lo, lo + n) the value is the function's
 *     *tail* (ez_tail): a constant, zero, or the exact identity x * 2^(out - in)
 *     (floor when out < in). The tails make gelu/silu exact-ish for large inputs
 *     instead of clamping them, and are provable with one range check on the high limb.
 * - Softmax exponential at in_scale (ez_table_build_softmax_exp): d >= 0 is the distance
 *     of a score to its row max; d' = floor(d / 2^in_shift); rows d' in [0, 2^16) hold
 *     round(exp(-d' * 2^in_shift / 2^in_scale) * 2^EZ_SOFTMAX_EXP_SCALE); d' >= 2^16
 *     gives 0 (the high limb is non-zero, docs/protocol-softmax.md).
 * - Normalisation reciprocal square root (ez_table_build_rsqrt; used by layernorm,
 *     rmsnorm and rsqrt): rows M in [0, 2^16) hold floor(2^EZ_RSQRT_TABLE_SCALE / sqrt(M)),
 *     computed exactly with an integer square root (the largest r with r^2 * M <= 2^46),
 *     row 0 = 0; the argument is brought into the table by a mantissa/exponent split
 *     V = M * 4^k - mrem (ez_rsqrt_split).
 * - Sign (ez_table_build_sign): rows h in [-2^15, 2^15) hold sign(h) in {-1, 0, 1}: which
 *     side of an elementwise table's rows an input lies on (docs/protocol-elementwise.md §3).
 *
 * Cost: a build is O(n) libm calls (1-6 ms for 2^16 rows; OpenMP over the rows); tables
 * are immutable after building and may be shared between threads. */
#ifndef EZ_RUNTIME_TABLES_H
#define EZ_RUNTIME_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"

#define EZ_TABLE_BITS 16          /* at most 2^16 rows per table (docs/protocol.md) */
#define EZ_TABLE_RES_SCALE 12     /* finest input resolution a table resolves: 2^-12 */
#define EZ_SOFTMAX_EXP_SCALE 16   /* fraction bits of the softmax exp values e */
#define EZ_SOFTMAX_RECIP_BITS 16  /* B: p = floor(e r / 2^B), r = floor(2^(out+B) / sigma) */
#define EZ_RSQRT_TABLE_SCALE 23   /* fraction bits of the rsqrt table entries */
#define EZ_NORM_EPS 1e-5          /* epsilon of layernorm / rmsnorm (GPT-2's value) */

/* What a function table answers outside its rows. */
typedef enum {
    EZ_TAIL_CLAMP = 0,    /* the nearest row's value */
    EZ_TAIL_ZERO = 1,     /* 0 */
    EZ_TAIL_IDENTITY = 2, /* x rescaled exactly: x * 2^(out - in), or floor(x / 2^(in - out)) */
    EZ_TAIL_ONE = 3,      /* 2^out_scale */
    EZ_TAIL_MINUS_ONE = 4 /* -2^out_scale */
} ez_tail;

typedef enum {
    EZ_TABLE_FUNC = 0,        /* elementwise f(x) */
    EZ_TABLE_SOFTMAX_EXP = 1, /* exp(-d) for softmax */
    EZ_TABLE_RSQRT = 2,       /* 2^23 / sqrt(M) for normalisation */
    EZ_TABLE_SIGN = 3         /* sign(h) for the tails of elementwise functions */
} ez_fn_table_kind;

typedef struct {
    ez_fn_table_kind kind;
    ez_func func;           /* EZ_TABLE_FUNC: the function; EXP for SOFTMAX_EXP; RSQRT */
    unsigned in_scale, out_scale;
    unsigned in_shift;      /* table input x' = floor(x / 2^in_shift) */
    int64_t lo;             /* first row's input x' */
    uint32_t n;             /* number of rows, <= 2^16 */
    ez_tail lo_tail, hi_tail;
    int64_t *out;           /* n entries */
} ez_table;

/* The tails of the elementwise table of f (GELU, GELU_TANH, SILU, SIGMOID, TANH, EXP):
 * what ez_table_build records in lo_tail / hi_tail, without building the rows (the
 * prover's layout needs them from the plan alone). */
void ez_table_tails(ez_func f, ez_tail *lo, ez_tail *hi);

/* Build the elementwise table of f in {GELU, SILU, SIGMOID, TANH, EXP} at the given
 * scales (rows as in the file comment, lo = -2^15, n = 2^16). Tails: gelu, silu:
 * ZERO below, IDENTITY above; sigmoid: ZERO / ONE; tanh: MINUS_ONE / ONE; exp: ZERO /
 * CLAMP. For RSQRT this builds the normalisation table (same as ez_table_build_rsqrt;
 * scales are recorded but do not change the rows).
 * Out: *t owns t->out (free with ez_table_clear).
 * Errors: EZ_ERR_INVALID for RELU/NONE (relu is exact, no table) or scales > 62;
 *         EZ_ERR_NOMEM. Cost: 2^16 libm calls. */
ez_status ez_table_build(ez_table *t, ez_func f, unsigned in_scale, unsigned out_scale,
                         ez_diag *d);

/* The softmax exponential table for scores at in_scale (see the file comment). */
ez_status ez_table_build_softmax_exp(ez_table *t, unsigned in_scale, ez_diag *d);

/* The normalisation rsqrt table: row M = floor(2^EZ_RSQRT_TABLE_SCALE / sqrt(M)) (exact
 * integer arithmetic, no libm), row 0 = 0. */
ez_status ez_table_build_rsqrt(ez_table *t, ez_diag *d);

/* The sign table: rows h in [-2^15, 2^15) hold sign(h); no libm, the same everywhere. */
ez_status ez_table_build_sign(ez_table *t, ez_diag *d);

/* The table of kind (FUNC: ez_table_build of f at the scales; SOFTMAX_EXP: at in_scale;
 * RSQRT: the one normalisation table; SIGN: the one sign table), as the executor builds it. */
ez_status ez_table_build_kind(ez_table *t, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale,
                              ez_diag *d);

/* Whether t is the table of (kind, f, scales): RSQRT and SIGN have one table for every scale, the
 * softmax exp one per in_scale, a FUNC table one per (f, in_scale, out_scale). */
bool ez_table_is(const ez_table *t, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale);

void ez_table_clear(ez_table *t);

/* The elementwise function table evaluated at x (EZ_TABLE_FUNC only): the row of
 * floor(x / 2^in_shift) or the tail. Pure, O(1). */
int64_t ez_table_eval(const ez_table *t, int64_t x);

/* The softmax exp of distance d >= 0 (EZ_TABLE_SOFTMAX_EXP only): with
 * d' = floor(d / 2^in_shift), T[d'] if d' < 2^16 else 0. */
static inline int64_t ez_table_softmax_exp(const ez_table *t, int64_t d)
{
    uint64_t dd = (uint64_t)d >> t->in_shift;
    return dd < t->n ? t->out[dd] : 0;
}

/* Mantissa/exponent split of V for the rsqrt table, rounding the mantissa UP so that
 * T[M] * 2^-(23+k) never exceeds 1/sqrt(V) (normalised outputs then stay within
 * sqrt(N) * 2^s, the compiler's bound): k is the smallest integer >= 0 with
 * ceil(V / 4^k) < 2^16, M = ceil(V / 4^k), mrem = M * 4^k - V in [0, 4^k).
 * When k > 0, M >= 2^14. V <= 0 gives M = k = mrem = 0 (and T[0] = 0). O(1). */
void ez_rsqrt_split(int64_t v, int64_t *m, unsigned *k, int64_t *mrem);

/* Exact tail value of the elementwise table at x (used by ez_table_eval; exposed for
 * tests and the prover). */
int64_t ez_table_tail(const ez_table *t, ez_tail tail, int64_t x);

/* The real function f(x) in double (the float reference's "true" function; also the
 * function whose rounding the table rows hold). RELU is max(x, 0); RSQRT is 1/sqrt(x)
 * (inf for x <= 0). */
double ez_func_eval_f64(ez_func f, double x);

#endif

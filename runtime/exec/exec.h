/* exec — integer execution of a compiled plan (docs/architecture.md; exact semantics of every op in docs/semantics.md).
 *
 * The trace is everything the prover needs about one inference: an int64 array for
 * every tensor of the plan (inputs, tokens, weights, activations; row-major, real
 * extents) and, per op, the auxiliary values of the op's non-linear steps (rescale
 * remainders, softmax row maxima / exp values / row sums / division remainders,
 * normalisation means, variances, mantissas, ...), plus the function tables used.
 *
 * Usage:
 *     ez_trace tr;
 *     ez_trace_init(&tr, plan, &d);
 *     ez_trace_set(&tr, tensor_id, values, n, &d);   // every INPUT, TOKENS, WEIGHT
 *     ez_exec_run(plan, &tr, &d);                    // fills every ACT tensor + aux
 *     ... tr.t[i] ..., ez_trace_aux(&tr, op, EZ_AUX_REM, &n) ...
 *     ez_trace_clear(&tr);
 *
 * Determinism: every op is exact integer arithmetic, so the trace is bit-identical for
 * any number of OpenMP threads (contractions may use double FMA only when every partial
 * sum is an integer below 2^53, where double arithmetic is exact — see exec_gemm.h).
 * The plan is borrowed for the trace's lifetime. */
#ifndef EZ_RUNTIME_EXEC_H
#define EZ_RUNTIME_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/exec/tables.h"

/* Auxiliary arrays an op leaves in the trace. "per element" arrays have the output
 * tensor's shape (row-major). "per row" arrays have one entry per row of a reduction:
 * the rows are the output's index tuples with the reduced axis dropped, in row-major
 * order of the output (for MAX/ARGMAX, whose output has no reduced axis, rows are
 * simply the output elements). Which op leaves which array is listed in
 * docs/semantics.md; values the prover can recompute in one subtraction (d = m - x,
 * centred values c = x - mean) are not stored. */
typedef enum {
    EZ_AUX_REM = 0,   /* per element: a floor division's remainder (rescale: mul*acc - out*2^shift) */
    EZ_AUX_ROW_MAX,   /* per row: max over the live entries (SOFTMAX, ARGMAX) */
    EZ_AUX_ROW_ARG,   /* per row: lowest index attaining the max (MAX) */
    EZ_AUX_EXP,       /* per element: softmax e = E(m - x), 0 where masked */
    EZ_AUX_ROW_SUM,   /* per row: softmax sigma = sum e; norms: sum of the inputs */
    EZ_AUX_DIV_REM,   /* per element: softmax e*r - p*2^16, in [0, 2^16) */
    EZ_AUX_MEAN,      /* per row: floor(sum / N) (LAYERNORM) */
    EZ_AUX_MEAN_REM,  /* per row: sum - mean*N, in [0, N) */
    EZ_AUX_SUMSQ,     /* per row: Q = sum of squared centred values */
    EZ_AUX_VAR,       /* per row: floor(Q / N) */
    EZ_AUX_VAR_REM,   /* per row: Q - var*N, in [0, N) */
    EZ_AUX_NORM_EXP,  /* per row (norms) / per element (rsqrt): k of V = M*4^k + rem */
    EZ_AUX_MANTISSA,  /* same shape: M */
    EZ_AUX_MANT_REM,  /* same shape: rem in [0, 4^k) */
    EZ_AUX_RSQRT,     /* same shape: r = T_rsqrt[M] */
    EZ_AUX_ROW_RECIP, /* per row: softmax r = floor(2^(out_scale+16) / sigma), 0 when sigma = 0 */
    EZ_AUX_COUNT
} ez_aux_kind;

const char *ez_aux_kind_name(ez_aux_kind k);

/* One op's share of the trace. aux[k] is NULL (naux[k] == 0) when the op has no such
 * array. seconds/macs are measurements for profiling, not part of the semantics. */
typedef struct {
    int64_t *aux[EZ_AUX_COUNT];
    uint64_t naux[EZ_AUX_COUNT];
    double seconds;     /* wall time of the op in the last run */
    uint64_t macs;      /* multiply-accumulates of a contraction (0 for other ops) */
    bool exact_f64;     /* a contraction ran on the exact-double kernel (else int64) */
} ez_op_trace;

typedef struct ez_trace_s {
    const ez_plan *plan;  /* borrowed */
    int64_t **t;          /* ntensors arrays of numel values (NULL for numel 0) */
    bool *ready;          /* per tensor: set by the caller or computed */
    uint64_t *maxabs;     /* per tensor: max |v| over its values (valid when ready) */
    ez_op_trace *ops;     /* nops entries */
    ez_table *tables;     /* every table the run used, built once */
    size_t ntables;
    const struct ez_trace_s *table_cache; /* optional, borrowed: a trace whose tables are
                                             used before building new ones (the decoder's
                                             per-position runs share the model's) */
    void *work[2];        /* scratch of the contraction kernel, kept warm between ops */
    size_t work_bytes[2];
} ez_trace;

/* Allocate a zeroed trace for plan p (all tensor arrays, no aux yet).
 * Errors: EZ_ERR_NOMEM (with the tensor named), EZ_ERR_INVALID (dims overflow).
 * On failure *tr is left cleared. Cost: O(sum of tensor sizes) memory. */
ez_status ez_trace_init(ez_trace *tr, const ez_plan *p, ez_diag *d);

/* Free everything the trace owns and zero it (NULL or cleared is fine). */
void ez_trace_clear(ez_trace *tr);

/* Copy the quantized values of tensor `tensor` (INPUT, TOKENS or WEIGHT) into the trace.
 * In:  n == numel of the tensor; data row-major.
 * Errors: EZ_ERR_INVALID (wrong tensor kind or length), EZ_ERR_NUMERIC when a value
 *     is outside the tensor's signed width (INPUT/WEIGHT: [-2^(bits-1), 2^(bits-1)),
 *     and |v| <= bound) or a token outside [0, token_limit); the diag names the tensor,
 *     multi-index and value. Cost: O(n). */
ez_status ez_trace_set(ez_trace *tr, size_t tensor, const int64_t *data, uint64_t n,
                       ez_diag *d);

/* Structural check of a plan against what the executor needs: tensor ids in range,
 * operand ranks/extents equal to the index sizes, operand counts per kind, axis ids,
 * output produced by its op, scales consistent. EZ_ERR_INVALID with the op named.
 * Cost: O(ops * indices). */
ez_status ez_exec_check_plan(const ez_plan *p, ez_diag *d);

/* Execute every op of p in order, filling tr's activation tensors and aux arrays.
 * In:  tr initialised for p; every INPUT/TOKENS/WEIGHT set.
 * Errors: EZ_ERR_INVALID (plan malformed, inputs missing), EZ_ERR_NUMERIC (a rescaled
 *     value outside its tensor's width, a contraction accumulator that could exceed
 *     2^62, a normalisation sum over 2^62: the diag names tensor, index and value),
 *     EZ_ERR_NOMEM, EZ_ERR_INTERNAL (a computed value outside the compiler's bound).
 * Cost: the model's integer inference; OpenMP-parallel, deterministic. */
ez_status ez_exec_run(const ez_plan *p, ez_trace *tr, ez_diag *d);

/* Execute op `op` only (its operands must be ready). Same errors as ez_exec_run. */
ez_status ez_exec_op(const ez_plan *p, size_t op, ez_trace *tr, ez_diag *d);

/* The aux array of kind k of op `op`, or NULL; *n (if non-NULL) gets its length. */
const int64_t *ez_trace_aux(const ez_trace *tr, size_t op, ez_aux_kind k, uint64_t *n);

/* The table of (kind, func, in_scale, out_scale) built by the last run, or NULL. */
const ez_table *ez_trace_table(const ez_trace *tr, ez_fn_table_kind kind, ez_func f,
                               unsigned in_scale, unsigned out_scale);

/* Format "name[i, j, k]" for flat row-major element `flat` of tensor t (for messages). */
void ez_exec_format_elem(char *buf, size_t cap, const ez_plan_tensor *t, uint64_t flat);

/* Row-major strides of tensor t (s has t->rank entries). */
void ez_exec_tensor_strides(const ez_plan_tensor *t, uint64_t *s);

/* A box of a tensor: dst (shaped like w, row-major) := src (shaped like f, the same rank)
 * at w's coordinates plus start (NULL: the prefix box). Used for the decoder's windows and
 * the weights of a certified pass over fewer positions. O(numel of w). */
void ez_exec_copy_box(int64_t *dst, const ez_plan_tensor *w, const int64_t *src, const ez_plan_tensor *f,
                      const uint64_t *start);

#endif

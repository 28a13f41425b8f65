/* floatref — a float64 evaluation of a plan, the "what the model means" reference
 * against which `einzk run --compare-float` measures the integer trace.
 *
 * Every tensor holds REAL values (not fixed-point integers). Ops use the true
 * functions (exp, erf-GELU, tanh, 1/sqrt, ...) and exact real constants:
 *   EINSUM  out = mul * 2^(sum of operand scales - shift - out scale) * sum prod in_k
 *   ADD     out = sum_k coef_k * 2^(scale_k - shift - out scale) * in_k
 *   CAUSAL  0 where j > i;  SOFTMAX  exp(x - max) / sum over live entries, 0 if masked
 *   MAX / ARGMAX (first index);  LAYERNORM (x - mean) / sqrt(var + 1e-5) (population
 *   variance);  RMSNORM x / sqrt(mean(x^2) + 1e-5);  UNARY f(x);  GATHER copies rows.
 * The constants are the plan's (a non-power-of-two constant was already rounded into
 * `mul` by the compiler), so the comparison measures the integer arithmetic and the
 * quantization of data, not of constants. Contractions reuse the packed double kernel
 * (exec_gemm.h). */
#ifndef EZ_RUNTIME_FLOATREF_H
#define EZ_RUNTIME_FLOATREF_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/exec/exec_index.h"

typedef struct {
    const ez_plan *plan; /* borrowed */
    double **t;          /* per tensor, numel values (NULL for numel 0) */
    bool *ready;
} ez_ftrace;

/* Allocate zeroed arrays for every tensor of p. Errors: EZ_ERR_NOMEM / EZ_ERR_INVALID. */
ez_status ez_ftrace_init(ez_ftrace *ft, const ez_plan *p, ez_diag *d);
void ez_ftrace_clear(ez_ftrace *ft);

/* Copy the real values of an INPUT, TOKENS (token ids as doubles) or WEIGHT tensor.
 * Errors: EZ_ERR_INVALID (wrong kind or n != numel). */
ez_status ez_ftrace_set(ez_ftrace *ft, size_t tensor, const double *data, uint64_t n, ez_diag *d);

/* A row of a reduction in double: x and y point at entry 0 of row r of the input and the
 * output; entries are rows->in_step / out_step apart, rows->len of them. */
typedef void (*ez_floatref_row_fn)(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x,
                                   double *y);

/* Run fn over every row of op (its reduced index op->axis; with mask, the causal mask's
 * coordinates are available through ez_exec_rows_masked). OpenMP over rows.
 * Errors: those of ez_exec_rows_init. */
ez_status ez_floatref_rows(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, bool mask, ez_floatref_row_fn fn,
                           ez_diag *d);

/* The float value of output element e of an elementwise op, x the operand's element that e
 * reads. */
typedef double (*ez_floatref_elem_fn)(const ez_plan *p, const ez_plan_op *op, uint64_t e, double x);

/* Run fn on every element of op's output (one operand; the elements it reads are those of
 * ez_exec_elem_offsets). Errors: those of ez_exec_elem_offsets. */
ez_status ez_floatref_elementwise(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_floatref_elem_fn fn,
                                  ez_diag *d);

/* Evaluate every op of p in double (each op's floatref hook, runtime/exec/dispatch.c). Errors: EZ_ERR_INVALID (plan malformed — checked
 * with ez_exec_check_plan — or inputs missing), EZ_ERR_INPUT (token out of range),
 * EZ_ERR_NOMEM. Cost: the model's float inference (OpenMP-parallel). */
ez_status ez_floatref_run(const ez_plan *p, ez_ftrace *ft, ez_diag *d);

/* Error statistics of an integer tensor q (scale s) against reals f, n values:
 * max_abs = max |q/2^s - f|, max_ref = max |f|, rel = max_abs / max_ref (0 when
 * max_ref == 0 and max_abs == 0; +inf when only max_ref == 0); worst = index of max_abs. */
typedef struct {
    double max_abs, max_ref, rel;
    uint64_t worst;
} ez_float_err;

void ez_floatref_compare(ez_float_err *e, const int64_t *q, unsigned scale, const double *f,
                         uint64_t n);

#endif

/* ARGMAX — argmax[t](e), the lowest index of the maximum along t (docs/semantics.md
 * "ARGMAX"). Proven by the row-max argument shared with MAX (runtime/ops/maxarg.h,
 * docs/protocol-argmax.md) on the lexicographic key: d = 2^k (m - x) + t - a >= 0 on
 * every entry says x_t <= m everywhere and x_t < m for every t < a; the mark at a with
 * d = 0, with m and a range-checked per row, pins a = the argmax and m = the max. The
 * tie-break is part of the statement, so the result is a function of the input. */
#include "config.h"

#include "runtime/ops/maxarg.h"
#include "runtime/ops/op.h"

static void argmax_row_f64(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x, double *y)
{
    (void)op, (void)r;
    double m = x[0];
    int64_t arg = 0;
    for (int64_t j = 1; j < (int64_t)rows->len; j++)
        if (x[j * rows->in_step] > m)
            m = x[j * rows->in_step], arg = j;
    y[0] = (double)arg;
}

static ez_status argmax_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_rows(p, op, ft, false, argmax_row_f64, d);
}

const ez_op_def ez_op_argmax = {
    .kind = EZ_OP_ARGMAX,
    .exec = ez_exec_maxarg,
    .floatref = argmax_floatref,
    .layout = ez_maxarg_layout,
    .fill = ez_maxarg_fill,
    .prove = ez_maxarg_reduce,
    .verify = ez_maxarg_reduce,
    .walk_bytes = ez_maxarg_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = ez_maxarg_relations,
};

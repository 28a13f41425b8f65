/* ARGMAX — argmax[t](e), the lowest index of the maximum along t (docs/semantics.md
 * "ARGMAX"). Not provable yet. */
#include "config.h"

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
};

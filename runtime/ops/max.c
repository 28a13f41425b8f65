/* MAX — max[t](e), the maximum along t (docs/semantics.md "MAX"). Not provable yet. */
#include "config.h"

#include "runtime/ops/op.h"

static void max_row_f64(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x, double *y)
{
    (void)op, (void)r;
    double m = x[0];
    for (int64_t j = 1; j < (int64_t)rows->len; j++)
        if (x[j * rows->in_step] > m)
            m = x[j * rows->in_step];
    y[0] = m;
}

static ez_status max_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_rows(p, op, ft, false, max_row_f64, d);
}

const ez_op_def ez_op_max = {
    .kind = EZ_OP_MAX,
    .exec = ez_exec_maxarg,
    .floatref = max_floatref,
};

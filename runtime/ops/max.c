/* MAX — max[t](e), the maximum along t (docs/semantics.md "MAX"). Proven by the row-max
 * argument shared with ARGMAX (runtime/ops/maxarg.h, docs/protocol-argmax.md): every
 * d = m - x >= 0 (range checks of d's limbs) AND m attained (a mark on an entry with
 * d = 0, summing to 1 per row). */
#include "config.h"

#include "runtime/ops/maxarg.h"
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
    .layout = ez_maxarg_layout,
    .fill = ez_maxarg_fill,
    .prove = ez_maxarg_reduce,
    .verify = ez_maxarg_reduce,
    .walk_bytes = ez_maxarg_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = ez_maxarg_relations,
};

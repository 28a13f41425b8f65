/* floatref — see floatref.h. The index bookkeeping is the executor's (exec_index.h),
 * so the float reference walks exactly the same element correspondence as the
 * integer ops; only the arithmetic differs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/floatref.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec.h"
#include "runtime/exec/exec_gemm.h"
#include "runtime/exec/exec_index.h"
#include "runtime/exec/tables.h"

void ez_ftrace_clear(ez_ftrace *ft)
{
    if (ft == NULL)
        return;
    if (ft->plan && ft->t)
        for (size_t i = 0; i < ft->plan->ntensors; i++)
            free(ft->t[i]);
    free(ft->t);
    free(ft->ready);
    memset(ft, 0, sizeof *ft);
}

ez_status ez_ftrace_init(ez_ftrace *ft, const ez_plan *p, ez_diag *d)
{
    memset(ft, 0, sizeof *ft);
    ft->plan = p;
    ft->t = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *ft->t);
    ft->ready = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *ft->ready);
    if (ft->t == NULL || ft->ready == NULL)
        goto nomem;
    for (size_t i = 0; i < p->ntensors; i++) {
        uint64_t n = ez_plan_tensor_numel(&p->tensors[i]);
        if (n == 0)
            continue;
        if ((ft->t[i] = ez_alloc_array(n, sizeof(double))) == NULL)
            goto nomem;
    }
    return EZ_OK;
nomem:
    ez_ftrace_clear(ft);
    ez_diag_set(d, "out of memory for the float reference");
    return EZ_ERR_NOMEM;
}

ez_status ez_ftrace_set(ez_ftrace *ft, size_t tensor, const double *data, uint64_t n, ez_diag *d)
{
    const ez_plan *p = ft->plan;
    if (tensor >= p->ntensors || p->tensors[tensor].kind == EZ_TENSOR_ACT ||
        n != ez_plan_tensor_numel(&p->tensors[tensor])) {
        ez_diag_set(d, "float reference: cannot set tensor %zu", tensor);
        return EZ_ERR_INVALID;
    }
    if (n)
        memcpy(ft->t[tensor], data, n * sizeof *data);
    ft->ready[tensor] = true;
    return EZ_OK;
}

/* ---- row reductions ------------------------------------------------------------------ */

ez_status ez_floatref_rows(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, bool mask, ez_floatref_row_fn fn,
                           ez_diag *d)
{
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, mask, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    double *out = ft->t[op->out];
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < rows.nrows; r++)
        fn(op, &rows, r, in + rows.in_off[r], out + rows.out_off[r]);
    ez_exec_rows_clear(&rows);
    return EZ_OK;
}

ez_status ez_floatref_elementwise(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_floatref_elem_fn fn,
                                  ez_diag *d)
{
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, p, op, 0, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    for (uint64_t e = 0; e < n; e++)
        ft->t[op->out][e] = fn(p, op, e, in[off[e]]);
    free(off);
    return EZ_OK;
}

void ez_floatref_compare(ez_float_err *e, const int64_t *q, unsigned scale, const double *f,
                         uint64_t n)
{
    memset(e, 0, sizeof *e);
    const double unit = ldexp(1.0, -(int)scale);
    for (uint64_t i = 0; i < n; i++) {
        double err = fabs((double)q[i] * unit - f[i]);
        if (err > e->max_abs || err != err) {
            e->max_abs = err;
            e->worst = i;
        }
        if (fabs(f[i]) > e->max_ref)
            e->max_ref = fabs(f[i]);
    }
    e->rel = e->max_ref > 0 ? e->max_abs / e->max_ref : (e->max_abs > 0 ? INFINITY : 0.0);
}

/* rows — execution helpers shared by the row reductions: MAX and ARGMAX (one scan gives
 * both the maximum and its lowest index) and the normalisation epsilon. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "runtime/exec/exec_op.h"
#include "runtime/exec/tables.h"

ez_status ez_exec_maxarg(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, false, c->d);
    if (st != EZ_OK)
        return st;
    /* a valid plan gives MAX the operand's scale (compiler/builtins.c EZ_SCALE_OPERAND):
     * the result is the maximum itself, nothing to move */
    const bool is_max = op->kind == EZ_OP_MAX;
    int64_t *aux = ez_exec_aux(c, is_max ? EZ_AUX_ROW_ARG : EZ_AUX_ROW_MAX, rows.nrows);
    if (aux == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
#pragma omp parallel for schedule(static) if (rows.nrows * rows.len > 16384)
    for (uint64_t r = 0; r < rows.nrows; r++) {
        int64_t arg, m = ez_exec_row_maxarg(in + rows.in_off[r], rows.len, rows.in_step, &arg);
        out[rows.out_off[r]] = is_max ? m : arg;
        aux[r] = is_max ? arg : m;
    }
out:
    ez_exec_rows_clear(&rows);
    return st;
}

int64_t ez_exec_norm_eps(unsigned in_scale)
{
    /* ldexp is exact, so the product is the double 1e-5 scaled: platform independent */
    double e = round(ldexp(EZ_NORM_EPS, 2 * (int)in_scale));
    return e < 1.0 ? 1 : (int64_t)e;
}

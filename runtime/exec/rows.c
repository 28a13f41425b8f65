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
    const bool is_max = op->kind == EZ_OP_MAX;
    int64_t *aux = ez_exec_aux(c, is_max ? EZ_AUX_ROW_ARG : EZ_AUX_ROW_MAX, rows.nrows);
    int64_t *rem = NULL;
    if (aux == NULL ||
        (is_max && op->out_scale < op->in_scale && !(rem = ez_exec_aux(c, EZ_AUX_REM, rows.nrows)))) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const unsigned from = op->in_scale, to = op->out_scale;
#pragma omp parallel for schedule(static) if (rows.nrows * rows.len > 16384)
    for (uint64_t r = 0; r < rows.nrows; r++) {
        const int64_t *x = in + rows.in_off[r];
        int64_t m = x[0], arg = 0;
        for (uint64_t j = 1; j < rows.len; j++) {
            int64_t v = x[(int64_t)j * rows.in_step];
            if (v > m) /* strict: ties keep the lowest index */
                m = v, arg = (int64_t)j;
        }
        if (is_max) {
            int64_t rr = 0;
            out[rows.out_off[r]] = ez_exec_move_scale(m, from, to, &rr);
            aux[r] = arg;
            if (rem)
                rem[r] = rr;
        } else {
            out[rows.out_off[r]] = arg;
            aux[r] = m;
        }
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

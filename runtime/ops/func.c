/* FUNC — an elementwise function by one table lookup: gelu, gelu_tanh, silu, sigmoid,
 * tanh, exp (docs/semantics.md "Elementwise functions"): x' = floor(x / 2^k) indexes a
 * 2^16-row table; inputs outside its rows take the function's tails. Not provable yet. */
#include "config.h"

#include <stdlib.h>

#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"

static ez_status func_exec(ez_exec_ctx *c)
{
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&c->p->tensors[op->out]);
    int64_t *off = NULL, *rem = NULL;
    const ez_table *t;
    ez_status st = ez_exec_elem_offsets(&off, c->p, op, 0, c->d);
    if (st == EZ_OK)
        st = ez_exec_table(c, &t, EZ_TABLE_FUNC, op->func, op->in_scale, op->out_scale);
    /* the table resolves floor(x / 2^in_shift): keep the dropped low bits */
    if (st == EZ_OK && t->in_shift > 0 && (rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL)
        st = EZ_ERR_NOMEM;
    if (st == EZ_OK) {
        const int64_t *in = c->tr->t[op->in[0]];
        int64_t *out = c->tr->t[op->out];
        const unsigned sh = t->in_shift;
#pragma omp parallel for schedule(static) if (n > 65536)
        for (uint64_t e = 0; e < n; e++) {
            int64_t x = in[off[e]];
            out[e] = ez_table_eval(t, x);
            if (rem)
                rem[e] = x - (int64_t)((uint64_t)(x >> sh) << sh);
        }
    }
    free(off);
    return st;
}

/* The float reference of an elementwise function: f on every element. */
static ez_status func_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, p, op, 0, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    for (uint64_t e = 0; e < n; e++)
        ft->t[op->out][e] = ez_func_eval_f64(op->func, in[off[e]]);
    free(off);
    return EZ_OK;
}

const ez_op_def ez_op_func = {
    .kind = EZ_OP_FUNC,
    .exec = func_exec,
    .floatref = func_floatref,
};

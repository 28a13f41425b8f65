/* RELU — relu(e) = max(e, 0), exactly (docs/semantics.md "relu"). Not provable yet. */
#include "config.h"

#include <stdlib.h>

#include "runtime/ops/op.h"

static ez_status relu_exec(ez_exec_ctx *c)
{
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&c->p->tensors[op->out]);
    int64_t *off = NULL, *rem;
    ez_status st = ez_exec_elem_offsets(&off, c->p, op, 0, c->d);
    if (st == EZ_OK)
        st = ez_exec_move_scale_prepare(c, n, &rem);
    if (st == EZ_OK) {
        const int64_t *in = c->tr->t[op->in[0]];
        int64_t *out = c->tr->t[op->out];
        const unsigned from = op->in_scale, to = op->out_scale;
#pragma omp parallel for schedule(static) if (n > 65536)
        for (uint64_t e = 0; e < n; e++) {
            int64_t x = in[off[e]], r = 0;
            out[e] = x > 0 ? ez_exec_move_scale(x, from, to, &r) : 0;
            if (rem)
                rem[e] = r;
        }
    }
    free(off);
    return st;
}

/* The float reference of an elementwise function: f on every element. */
static ez_status relu_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, p, op, 0, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    for (uint64_t e = 0; e < n; e++)
        ft->t[op->out][e] = in[off[e]] > 0 ? in[off[e]] : 0.0;
    free(off);
    return EZ_OK;
}

const ez_op_def ez_op_relu = {
    .kind = EZ_OP_RELU,
    .exec = relu_exec,
    .floatref = relu_floatref,
};

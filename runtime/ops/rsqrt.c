/* RSQRT — rsqrt(e) = 1/sqrt(e), 0 for e <= 0 (docs/semantics.md "rsqrt"): the
 * mantissa/exponent split of the norms, one table row and a rescale. Not provable yet. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "runtime/ops/op.h"

/* Elementwise rsqrt (docs/semantics.md "rsqrt"): with s_e = in_scale rounded up to even
 * and x_e = x * 2^(s_e - in_scale), y = floor(T[M] * 2^(out + s_e/2 - 23 - k)) where
 * x_e = M * 4^k - mrem; y = 0 for x <= 0. */
static ez_status unary_rsqrt(ez_exec_ctx *c, const int64_t *off, uint64_t n)
{
    const ez_plan_op *op = c->op;
    const ez_table *t;
    ez_status st = ez_exec_table(c, &t, EZ_TABLE_RSQRT, EZ_FN_RSQRT, op->in_scale, op->out_scale);
    if (st != EZ_OK)
        return st;
    int64_t *ak = ez_exec_aux(c, EZ_AUX_NORM_EXP, n);
    int64_t *am = ez_exec_aux(c, EZ_AUX_MANTISSA, n);
    int64_t *amr = ez_exec_aux(c, EZ_AUX_MANT_REM, n);
    int64_t *ar = ez_exec_aux(c, EZ_AUX_RSQRT, n);
    int64_t *rem = ez_exec_aux(c, EZ_AUX_REM, n);
    if (!ak || !am || !amr || !ar || !rem)
        return EZ_ERR_NOMEM;
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const unsigned se = op->in_scale + (op->in_scale & 1);
    const int base = (int)op->out_scale + (int)(se / 2) - EZ_RSQRT_TABLE_SCALE;
    uint64_t bad = UINT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        int64_t x = in[off[e]];
        int64_t xe = x > 0 ? x << (se - op->in_scale) : 0;
        int64_t m, mrem;
        unsigned k;
        ez_rsqrt_split(xe, &m, &k, &mrem);
        int64_t r = t->out[m];
        int ex = base - (int)k;
        int64_t y, yr = 0;
        if (ex >= 0) {
            if (ex >= 62 ? r != 0 : (r >> (62 - ex)) != 0) {
                bad = e < bad ? e : bad;
                y = 0;
            } else {
                y = r << ex;
            }
        } else {
            y = ez_exec_floor_shift(r, (unsigned)-ex, &yr);
        }
        out[e] = y;
        ak[e] = k, am[e] = m, amr[e] = mrem, ar[e] = r, rem[e] = yr;
    }
    if (bad != UINT64_MAX) {
        ez_diag_set(c->d, "rsqrt '%s': result too large for the output scale %u", op->label,
                    op->out_scale);
        return EZ_ERR_NUMERIC;
    }
    return EZ_OK;
}

static ez_status rsqrt_exec(ez_exec_ctx *c)
{
    const uint64_t n = ez_plan_tensor_numel(&c->p->tensors[c->op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, c->p, c->op, 0, c->d);
    if (st == EZ_OK)
        st = unary_rsqrt(c, off, n);
    free(off);
    return st;
}

/* The float reference of an elementwise function: f on every element. */
static ez_status rsqrt_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, p, op, 0, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    for (uint64_t e = 0; e < n; e++)
        ft->t[op->out][e] = in[off[e]] > 0 ? 1.0 / sqrt(in[off[e]]) : 0.0;
    free(off);
    return EZ_OK;
}

const ez_op_def ez_op_rsqrt = {
    .kind = EZ_OP_RSQRT,
    .exec = rsqrt_exec,
    .floatref = rsqrt_floatref,
};

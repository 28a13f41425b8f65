/* LAYERNORM and RMSNORM — layernorm[i](e) = (e - mean) / sqrt(var + 1e-5) and
 * rmsnorm[i](e) = e / sqrt(mean(e^2) + 1e-5) along i, no gain or bias (docs/semantics.md
 * "Normalisation"): row sums, floor divisions by N, the rsqrt mantissa/exponent split and
 * table, the output rescale. Not provable yet. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"

typedef __int128 ez_i128;

#define LIM62 ((ez_i128)1 << 62)

static int64_t floor_div(ez_i128 a, int64_t b, int64_t *rem)
{
    ez_i128 q = a / b, r = a % b;
    if (r < 0)
        q -= 1, r += b;
    *rem = (int64_t)r;
    return (int64_t)q;
}

static ez_status norm_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    const bool layer = op->kind == EZ_OP_LAYERNORM;
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, false, c->d);
    if (st != EZ_OK)
        return st;
    const ez_table *t;
    st = ez_exec_table(c, &t, EZ_TABLE_RSQRT, EZ_FN_RSQRT, 0, 0);
    if (st != EZ_OK)
        goto out;
    const uint64_t nr = rows.nrows;
    int64_t *asum = NULL, *amean = NULL, *amrem = NULL;
    if (layer && (!(asum = ez_exec_aux(c, EZ_AUX_ROW_SUM, nr)) ||
                  !(amean = ez_exec_aux(c, EZ_AUX_MEAN, nr)) ||
                  !(amrem = ez_exec_aux(c, EZ_AUX_MEAN_REM, nr)))) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    int64_t *aq = ez_exec_aux(c, EZ_AUX_SUMSQ, nr);
    int64_t *av = ez_exec_aux(c, EZ_AUX_VAR, nr);
    int64_t *avr = ez_exec_aux(c, EZ_AUX_VAR_REM, nr);
    int64_t *ak = ez_exec_aux(c, EZ_AUX_NORM_EXP, nr);
    int64_t *am = ez_exec_aux(c, EZ_AUX_MANTISSA, nr);
    int64_t *amr = ez_exec_aux(c, EZ_AUX_MANT_REM, nr);
    int64_t *ar = ez_exec_aux(c, EZ_AUX_RSQRT, nr);
    int64_t *rem = ez_exec_aux(c, EZ_AUX_REM, n);
    if (!aq || !av || !avr || !ak || !am || !amr || !ar || !rem) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const int64_t N = (int64_t)rows.len, E = ez_exec_norm_eps(op->in_scale);
    const int s_out = (int)op->out_scale;
    uint64_t bad = UINT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static) if (nr * rows.len > 16384)
    for (uint64_t r = 0; r < nr; r++) {
        const int64_t *x = in + rows.in_off[r];
        const int64_t xs = rows.in_step, os = rows.out_step;
        int64_t mu = 0;
        if (layer) {
            ez_i128 s = 0;
            for (int64_t j = 0; j < N; j++)
                s += x[j * xs];
            if (s >= LIM62 || s <= -LIM62) {
                bad = r < bad ? r : bad;
                continue;
            }
            asum[r] = (int64_t)s;
            mu = floor_div(s, N, &amrem[r]);
            amean[r] = mu;
        }
        ez_i128 q = 0;
        for (int64_t j = 0; j < N; j++) {
            ez_i128 cj = (ez_i128)x[j * xs] - mu;
            q += cj * cj;
        }
        if (q >= LIM62) {
            bad = r < bad ? r : bad;
            continue;
        }
        aq[r] = (int64_t)q;
        int64_t v = floor_div(q, N, &avr[r]);
        av[r] = v;
        int64_t m, mrem;
        unsigned k;
        ez_rsqrt_split(v + E, &m, &k, &mrem);
        const int64_t rs = t->out[m];
        ak[r] = k, am[r] = m, amr[r] = mrem, ar[r] = rs;
        /* y = floor(c * r * 2^(s_out - 23 - k)) */
        const int ex = s_out - EZ_RSQRT_TABLE_SCALE - (int)k;
        for (int64_t j = 0; j < N; j++) {
            ez_i128 prod = ((ez_i128)x[j * xs] - mu) * rs;
            ez_i128 y;
            int64_t yr = 0;
            if (ex >= 0) {
                y = prod * ((ez_i128)1 << ex);
            } else {
                y = prod >> (-ex); /* arithmetic: floor */
                yr = (int64_t)(prod - y * ((ez_i128)1 << (-ex)));
            }
            if (y >= LIM62 || y <= -LIM62) {
                bad = r < bad ? r : bad;
                y = 0;
            }
            out[rows.out_off[r] + j * os] = (int64_t)y;
            rem[rows.out_off[r] + j * os] = yr;
        }
    }
    if (bad != UINT64_MAX) {
        ez_diag_set(c->d,
                    "%s '%s' (line %u): row %" PRIu64 " leaves the safe range 2^62 (input too wide)",
                    ez_op_kind_name(op->kind), op->label, op->line, bad);
        st = EZ_ERR_NUMERIC;
    }
out:
    ez_exec_rows_clear(&rows);
    return st;
}

static void norm_row_f64(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x, double *y)
{
    const int64_t N = (int64_t)rows->len, xs = rows->in_step, ys = rows->out_step;
    double mean = 0, var = 0;
    (void)r;
    if (op->kind == EZ_OP_LAYERNORM) {
        for (int64_t j = 0; j < N; j++)
            mean += x[j * xs];
        mean /= (double)N;
    }
    for (int64_t j = 0; j < N; j++)
        var += (x[j * xs] - mean) * (x[j * xs] - mean);
    var /= (double)N;
    double inv = 1.0 / sqrt(var + EZ_NORM_EPS);
    for (int64_t j = 0; j < N; j++)
        y[j * ys] = (x[j * xs] - mean) * inv;
}

static ez_status norm_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_rows(p, op, ft, false, norm_row_f64, d);
}

const ez_op_def ez_op_layernorm = {
    .kind = EZ_OP_LAYERNORM,
    .exec = norm_exec,
    .floatref = norm_floatref,
};

const ez_op_def ez_op_rmsnorm = {
    .kind = EZ_OP_RMSNORM,
    .exec = norm_exec,
    .floatref = norm_floatref,
};

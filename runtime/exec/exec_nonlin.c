/* exec_nonlin — the row reductions: SOFTMAX (DESIGN §3 "Softmax, exactly"), MAX,
 * ARGMAX, LAYERNORM and RMSNORM. Exact integer semantics in docs/semantics.md; every
 * intermediate the prover needs (row max, exp values, sums, remainders, the rsqrt
 * split) is left in the trace. Rows run OpenMP-parallel; each row is independent. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec_internal.h"

typedef __int128 ez_i128;

ez_status ez_exec_softmax(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, op->masked, c->d);
    if (st != EZ_OK)
        return st;
    const ez_table *t;
    st = ez_exec_table(c, &t, EZ_TABLE_SOFTMAX_EXP, EZ_FN_EXP, op->in_scale, EZ_SOFTMAX_EXP_SCALE);
    if (st != EZ_OK)
        goto out;
    int64_t *amax = ez_exec_aux(c, EZ_AUX_ROW_MAX, rows.nrows);
    int64_t *asum = ez_exec_aux(c, EZ_AUX_ROW_SUM, rows.nrows);
    int64_t *aexp = ez_exec_aux(c, EZ_AUX_EXP, n);
    int64_t *arem = ez_exec_aux(c, EZ_AUX_DIV_REM, n);
    if (!amax || !asum || !aexp || !arem) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const bool masked = op->masked;
    const unsigned s_out = op->out_scale;
#pragma omp parallel for schedule(static) if (rows.nrows * rows.len > 16384)
    for (uint64_t r = 0; r < rows.nrows; r++) {
        const int64_t *x = in + rows.in_off[r];
        const int64_t xs = rows.in_step, os = rows.out_step;
        int64_t *y = out + rows.out_off[r], *ye = aexp + rows.out_off[r];
        int64_t *yr = arem + rows.out_off[r];
        /* m = max over the live entries (masked entries take no part at all) */
        bool any = false;
        int64_t m = 0;
        for (uint64_t j = 0; j < rows.len; j++) {
            if (masked && ez_exec_rows_masked(&rows, r, (int64_t)j))
                continue;
            int64_t v = x[(int64_t)j * xs];
            if (!any || v > m)
                m = v;
            any = true;
        }
        /* e = E(m - x) and sigma = sum e; the max entry has e = 2^16, so sigma > 0 */
        int64_t sigma = 0;
        for (uint64_t j = 0; j < rows.len; j++) {
            int64_t e = 0;
            if (!(masked && ez_exec_rows_masked(&rows, r, (int64_t)j)))
                e = ez_table_softmax_exp(t, (int64_t)((uint64_t)m - (uint64_t)x[(int64_t)j * xs]));
            ye[(int64_t)j * os] = e;
            sigma += e;
        }
        amax[r] = any ? m : 0;
        asum[r] = sigma;
        /* p = floor(e * 2^s_out / sigma), remainder in [0, sigma). A double reciprocal
         * gives the quotient to within one (num < 2^61, q <= 2^44), corrected exactly
         * with integer arithmetic: an integer division per entry would dominate. */
        const double inv = sigma ? 1.0 / (double)sigma : 0.0;
        for (uint64_t j = 0; j < rows.len; j++) {
            int64_t num = ye[(int64_t)j * os] << s_out;
            int64_t q = (int64_t)((double)num * inv);
            while (q > 0 && q * sigma > num)
                q--;
            while (sigma && (q + 1) * sigma <= num)
                q++;
            y[(int64_t)j * os] = q;
            yr[(int64_t)j * os] = num - q * sigma;
        }
    }
out:
    ez_exec_rows_clear(&rows);
    return st;
}

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

static int64_t floor_div(ez_i128 a, int64_t b, int64_t *rem)
{
    ez_i128 q = a / b, r = a % b;
    if (r < 0)
        q -= 1, r += b;
    *rem = (int64_t)r;
    return (int64_t)q;
}

#define LIM62 ((ez_i128)1 << 62)

ez_status ez_exec_norm(ez_exec_ctx *c)
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

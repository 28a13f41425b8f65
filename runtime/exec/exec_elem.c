/* exec_elem — the elementwise ops: ADD (with broadcasting and coefficients), CAUSAL,
 * GATHER and UNARY functions (docs/semantics.md). Each walks the output row-major with
 * a precomputed operand offset per output element. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec_internal.h"

typedef unsigned __int128 ez_u128;

ez_status ez_exec_add(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off[EZ_MAX_OPERANDS] = {NULL};
    const int64_t *src[EZ_MAX_OPERANDS];
    int64_t *out = c->tr->t[op->out], *rem = NULL;
    ez_status st = EZ_OK;
    ez_u128 worst = 0;
    for (unsigned k = 0; k < op->nin; k++) {
        st = ez_exec_elem_offsets(&off[k], p, op, k, c->d);
        if (st != EZ_OK)
            goto out;
        src[k] = c->tr->t[op->in[k]];
        int64_t cf = op->coef[k];
        uint64_t acf = cf < 0 ? -(uint64_t)cf : (uint64_t)cf;
        worst += (ez_u128)acf * ez_exec_maxabs(src[k], ez_plan_tensor_numel(&p->tensors[op->in[k]]));
    }
    if (worst >= ((ez_u128)1 << 62)) {
        ez_diag_set(c->d, "sum '%s' (line %u) could leave the safe range 2^62", op->label, op->line);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    if (op->shift > 0 && (rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const unsigned nin = op->nin, shift = op->shift;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++) {
        int64_t acc = 0, r = 0;
        for (unsigned k = 0; k < nin; k++)
            acc += op->coef[k] * src[k][off[k][i]];
        out[i] = shift ? ez_exec_floor_shift(acc, shift, &r) : acc;
        if (rem)
            rem[i] = r;
    }
out:
    for (unsigned k = 0; k < op->nin; k++)
        free(off[k]);
    return st;
}

/* Values moving between scales without a table (causal, max, relu): exact when the
 * scale grows, floor with a remainder (aux REM) when it shrinks. */
static ez_status move_scale_prepare(ez_exec_ctx *c, uint64_t n, int64_t **rem)
{
    *rem = NULL;
    if (c->op->out_scale < c->op->in_scale && (*rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL)
        return EZ_ERR_NOMEM;
    return EZ_OK;
}

ez_status ez_exec_causal(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    int64_t *off = NULL, *rem = NULL;
    ez_status st = ez_exec_elem_offsets(&off, p, op, 0, c->d);
    if (st == EZ_OK)
        st = move_scale_prepare(c, n, &rem);
    if (st != EZ_OK) {
        free(off);
        return st;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    /* coordinates of i and j per element come from unit strides on those indices */
    int64_t si[EZ_MAX_IDX] = {0}, sj[EZ_MAX_IDX] = {0};
    unsigned grp[EZ_MAX_RANK] = {0};
    for (unsigned a = 0; a < to->rank; a++)
        grp[a] = op->out_axes[a];
    si[op->mask_row] = 1;
    sj[op->mask_col] = 1;
    int64_t *ci = NULL, *cj = NULL;
    if (ez_exec_group_offsets(&ci, op->idx_size, grp, to->rank, si) != EZ_OK ||
        ez_exec_group_offsets(&cj, op->idx_size, grp, to->rank, sj) != EZ_OK) {
        ez_diag_set(c->d, "out of memory in '%s'", op->label);
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const unsigned from = op->in_scale, toscale = op->out_scale;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        int64_t r = 0;
        out[e] = cj[e] > ci[e] ? 0 : ez_exec_move_scale(in[off[e]], from, toscale, &r);
        if (rem)
            rem[e] = r;
    }
out:
    free(off);
    free(ci);
    free(cj);
    return st;
}

ez_status ez_exec_gather(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *tt = &p->tensors[op->in[0]];
    const ez_plan_tensor *tk = &p->tensors[op->in[1]];
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    /* table strides over its axes 1.. (axis 0 is the gathered one, addressed by the token) */
    int64_t st_tab[EZ_MAX_IDX], st_tok[EZ_MAX_IDX], base_tab, base_tok;
    ez_exec_strides(p, op, 0, st_tab, NULL, &base_tab);
    ez_exec_strides(p, op, 1, st_tok, NULL, &base_tok);
    int64_t row_stride = 1;
    for (unsigned a = 1; a < tt->rank; a++)
        row_stride *= (int64_t)tt->dims[a];
    unsigned grp[EZ_MAX_RANK] = {0};
    for (unsigned a = 0; a < to->rank; a++)
        grp[a] = op->out_axes[a];
    int64_t *otab = NULL, *otok = NULL;
    ez_status st = EZ_OK;
    if (ez_exec_group_offsets(&otab, op->idx_size, grp, to->rank, st_tab) != EZ_OK ||
        ez_exec_group_offsets(&otok, op->idx_size, grp, to->rank, st_tok) != EZ_OK) {
        ez_diag_set(c->d, "out of memory in '%s'", op->label);
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *tab = c->tr->t[op->in[0]] + base_tab, *tok = c->tr->t[op->in[1]] + base_tok;
    int64_t *out = c->tr->t[op->out];
    const int64_t rows = (int64_t)tt->dims[0];
    uint64_t bad = UINT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        int64_t t = tok[otok[e]];
        if (t < 0 || t >= rows) {
            bad = e < bad ? e : bad;
            out[e] = 0;
            continue;
        }
        out[e] = tab[t * row_stride + otab[e]];
    }
    if (bad != UINT64_MAX) {
        ez_diag_set(c->d, "token %" PRId64 " of '%s' is outside the %" PRId64 " rows of '%s'",
                    tok[otok[bad]], tk->name, rows, tt->name);
        st = EZ_ERR_INPUT;
    }
out:
    free(otab);
    free(otok);
    return st;
}

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

ez_status ez_exec_unary(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *off = NULL;
    ez_status st = ez_exec_elem_offsets(&off, p, op, 0, c->d);
    if (st != EZ_OK)
        return st;
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    if (op->func == EZ_FN_RSQRT) {
        st = unary_rsqrt(c, off, n);
    } else if (op->func == EZ_FN_RELU) {
        int64_t *rem;
        st = move_scale_prepare(c, n, &rem);
        if (st == EZ_OK) {
            const unsigned from = op->in_scale, to = op->out_scale;
#pragma omp parallel for schedule(static) if (n > 65536)
            for (uint64_t e = 0; e < n; e++) {
                int64_t x = in[off[e]], r = 0;
                out[e] = x > 0 ? ez_exec_move_scale(x, from, to, &r) : 0;
                if (rem)
                    rem[e] = r;
            }
        }
    } else {
        const ez_table *t;
        st = ez_exec_table(c, &t, EZ_TABLE_FUNC, op->func, op->in_scale, op->out_scale);
        int64_t *rem = NULL;
        /* the table resolves floor(x / 2^in_shift): keep the dropped low bits */
        if (st == EZ_OK && t->in_shift > 0 && (rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL)
            st = EZ_ERR_NOMEM;
        if (st == EZ_OK) {
            const unsigned sh = t->in_shift;
#pragma omp parallel for schedule(static) if (n > 65536)
            for (uint64_t e = 0; e < n; e++) {
                int64_t x = in[off[e]];
                out[e] = ez_table_eval(t, x);
                if (rem)
                    rem[e] = x - (int64_t)((uint64_t)(x >> sh) << sh);
            }
        }
    }
    free(off);
    return st;
}

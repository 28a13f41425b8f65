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

/* ---- einsum ------------------------------------------------------------------------ */

typedef struct {
    double *out;
    double c;
    const int64_t *ob, *om, *on, *orr;
    uint64_t nr;
} fstore;

static void fstore_tile(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nr,
                        const double *c)
{
    const fstore *s = ctx;
    for (unsigned i = 0; i < mr; i++)
        for (unsigned j = 0; j < nr; j++) {
            int64_t base = s->ob[b] + s->om[m0 + i] + s->on[n0 + j];
            for (uint64_t q = 0; q < s->nr; q++)
                s->out[base + s->orr[q]] = s->c * c[i * EZ_GEMM_NR + j];
        }
}

static ez_status f_einsum(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const ez_plan_tensor *to = &p->tensors[op->out];
    int64_t sa[EZ_MAX_IDX], sb[EZ_MAX_IDX] = {0}, so[EZ_MAX_IDX], basea = 0, baseb = 0;
    bool pa[EZ_MAX_IDX], pb[EZ_MAX_IDX] = {false}, po[EZ_MAX_IDX];
    ez_exec_strides(p, op, 0, sa, pa, &basea);
    if (op->nin == 2)
        ez_exec_strides(p, op, 1, sb, pb, &baseb);
    ez_exec_strides(p, op, EZ_EXEC_OUT, so, po, NULL);
    const double *A = ft->t[op->in[0]] + basea;
    const double *B = op->nin == 2 ? ft->t[op->in[1]] + baseb : NULL;
    double *out = ft->t[op->out];
    int sc = (int)p->tensors[op->in[0]].scale + (B ? (int)p->tensors[op->in[1]].scale : 0) -
             (int)op->shift - (int)to->scale;
    const double cst = ldexp((double)op->mul, sc);
    ez_exec_groups g;
    ez_exec_classify(p, op, pa, pb, po, &g);
    /* Everything is a (batched) product here: a missing B is a K = 1 column of ones,
     * realised by treating the operand's own indices as rows and summing while packing. */
    int64_t *ab = NULL, *am = NULL, *ak = NULL, *as = NULL, *bb = NULL, *bn = NULL, *bk = NULL,
            *bs = NULL, *ob = NULL, *om = NULL, *on = NULL, *orr = NULL;
    double *ap = NULL, *bp = NULL, *ones = NULL;
    ez_status st = EZ_ERR_NOMEM;
    int64_t zero = 0;
    if (ez_exec_group_offsets(&ab, op->idx_size, g.b, g.nb, sa) ||
        ez_exec_group_offsets(&am, op->idx_size, g.m, g.nm, sa) ||
        ez_exec_group_offsets(&ak, op->idx_size, g.k, g.nk, sa) ||
        ez_exec_group_offsets(&as, op->idx_size, g.sa, g.nsa, sa) ||
        ez_exec_group_offsets(&bb, op->idx_size, g.b, g.nb, sb) ||
        ez_exec_group_offsets(&bn, op->idx_size, g.n, g.nn, sb) ||
        ez_exec_group_offsets(&bk, op->idx_size, g.k, g.nk, sb) ||
        ez_exec_group_offsets(&bs, op->idx_size, g.sb, g.nsb, sb) ||
        ez_exec_group_offsets(&ob, op->idx_size, g.b, g.nb, so) ||
        ez_exec_group_offsets(&om, op->idx_size, g.m, g.nm, so) ||
        ez_exec_group_offsets(&on, op->idx_size, g.n, g.nn, so) ||
        ez_exec_group_offsets(&orr, op->idx_size, g.r, g.nr, so))
        goto out;
    uint64_t alen = ez_gemm_apack_len(g.M, g.K) * g.B, blen = ez_gemm_bpack_len(g.N, g.K) * g.B;
    ap = ez_alloc_aligned(alen ? alen : 1, sizeof(double));
    bp = ez_alloc_aligned(blen ? blen : 1, sizeof(double));
    if (ap == NULL || bp == NULL)
        goto out;
    ez_gemm_pack_f64_f64(ap, EZ_GEMM_MR, A, g.B, g.M, g.K, ab, am, ak, as, g.SA);
    if (B) {
        ez_gemm_pack_f64_f64(bp, EZ_GEMM_NR, B, g.B, g.N, g.K, bb, bn, bk, bs, g.SB);
    } else {
        /* N = K = 1 and B == 1: a column of ones */
        ones = ez_alloc_array(1, sizeof(double));
        if (ones == NULL)
            goto out;
        ones[0] = 1.0;
        ez_gemm_pack_f64_f64(bp, EZ_GEMM_NR, ones, g.B, 1, 1, bb, &zero, &zero, &zero, 1);
    }
    fstore s = {.out = out, .c = cst, .ob = ob, .om = om, .on = on, .orr = orr, .nr = g.R};
    st = ez_gemm_f64(g.B, g.M, g.N, g.K, ap, bp, fstore_tile, &s);
out:
    if (st != EZ_OK)
        ez_diag_set(d, "out of memory in the float reference of '%s'", op->label);
    free(ab), free(am), free(ak), free(as), free(bb), free(bn), free(bk), free(bs);
    free(ob), free(om), free(on), free(orr), free(ap), free(bp), free(ones);
    return st;
}

/* ---- elementwise ------------------------------------------------------------------- */

static ez_status f_elementwise(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    double *out = ft->t[op->out];
    int64_t *off[EZ_MAX_OPERANDS] = {NULL};
    ez_status st = EZ_OK;
    unsigned nop = op->kind == EZ_OP_ADD ? op->nin : 1;
    for (unsigned k = 0; k < nop; k++)
        if ((st = ez_exec_elem_offsets(&off[k], p, op, k, d)) != EZ_OK)
            goto out;
    if (op->kind == EZ_OP_ADD) {
        double cf[EZ_MAX_OPERANDS];
        for (unsigned k = 0; k < nop; k++)
            cf[k] = ldexp((double)op->coef[k], (int)p->tensors[op->in[k]].scale - (int)op->shift -
                                                   (int)to->scale);
        for (uint64_t e = 0; e < n; e++) {
            double s = 0;
            for (unsigned k = 0; k < nop; k++)
                s += cf[k] * ft->t[op->in[k]][off[k][e]];
            out[e] = s;
        }
    } else if (op->kind == EZ_OP_CAUSAL) {
        const double *in = ft->t[op->in[0]];
        for (uint64_t e = 0; e < n; e++) {
            uint64_t coord[EZ_MAX_IDX];
            ez_exec_out_coords(p, op, e, coord);
            out[e] = coord[op->mask_col] > coord[op->mask_row] ? 0.0 : in[off[0][e]];
        }
    } else { /* UNARY */
        const double *in = ft->t[op->in[0]];
        for (uint64_t e = 0; e < n; e++)
            out[e] = ez_func_eval_f64(op->func, in[off[0][e]]);
    }
out:
    for (unsigned k = 0; k < nop; k++)
        free(off[k]);
    return st;
}

static ez_status f_gather(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const ez_plan_tensor *tt = &p->tensors[op->in[0]], *tk = &p->tensors[op->in[1]];
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    int64_t st_tok[EZ_MAX_IDX], st_tab[EZ_MAX_IDX], base_tok, base_tab, row_stride = 1;
    ez_exec_strides(p, op, 1, st_tok, NULL, &base_tok);
    ez_exec_strides(p, op, 0, st_tab, NULL, &base_tab);
    for (unsigned a = 1; a < tt->rank; a++)
        row_stride *= (int64_t)tt->dims[a];
    for (uint64_t e = 0; e < n; e++) {
        uint64_t coord[EZ_MAX_IDX];
        ez_exec_out_coords(p, op, e, coord);
        int64_t ot = base_tok, otab = base_tab;
        for (unsigned i = 0; i < op->nidx; i++)
            ot += (int64_t)coord[i] * st_tok[i], otab += (int64_t)coord[i] * st_tab[i];
        double tokv = ft->t[op->in[1]][ot];
        if (!(tokv >= 0 && tokv < (double)tt->dims[0])) {
            ez_diag_set(d, "token %g of '%s' is outside the table '%s'", tokv, tk->name, tt->name);
            return EZ_ERR_INPUT;
        }
        ft->t[op->out][e] = ft->t[op->in[0]][(int64_t)tokv * row_stride + otab];
    }
    return EZ_OK;
}

/* ---- row reductions ------------------------------------------------------------------ */

static ez_status f_rows(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    ez_exec_rows rows;
    bool mask = op->kind == EZ_OP_SOFTMAX && op->masked;
    ez_status st = ez_exec_rows_init(&rows, p, op, mask, d);
    if (st != EZ_OK)
        return st;
    const double *in = ft->t[op->in[0]];
    double *out = ft->t[op->out];
    const int64_t N = (int64_t)rows.len;
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < rows.nrows; r++) {
        const double *x = in + rows.in_off[r];
        double *y = out + rows.out_off[r];
        const int64_t xs = rows.in_step, ys = rows.out_step;
        switch (op->kind) {
        case EZ_OP_SOFTMAX: {
            double m = -INFINITY, s = 0;
            for (int64_t j = 0; j < N; j++)
                if (!(mask && ez_exec_rows_masked(&rows, r, j)) && x[j * xs] > m)
                    m = x[j * xs];
            for (int64_t j = 0; j < N; j++) {
                double e = mask && ez_exec_rows_masked(&rows, r, j) ? 0.0 : exp(x[j * xs] - m);
                y[j * ys] = e;
                s += e;
            }
            for (int64_t j = 0; j < N; j++)
                y[j * ys] = s > 0 ? y[j * ys] / s : 0.0;
            break;
        }
        case EZ_OP_MAX:
        case EZ_OP_ARGMAX: {
            double m = x[0];
            int64_t arg = 0;
            for (int64_t j = 1; j < N; j++)
                if (x[j * xs] > m)
                    m = x[j * xs], arg = j;
            y[0] = op->kind == EZ_OP_MAX ? m : (double)arg;
            break;
        }
        default: { /* LAYERNORM, RMSNORM */
            double mean = 0, var = 0;
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
            break;
        }
        }
    }
    ez_exec_rows_clear(&rows);
    return EZ_OK;
}

ez_status ez_floatref_run(const ez_plan *p, ez_ftrace *ft, ez_diag *d)
{
    if (ft->plan != p) {
        ez_diag_set(d, "float trace does not belong to this plan");
        return EZ_ERR_INVALID;
    }
    ez_status st = ez_exec_check_plan(p, d);
    if (st != EZ_OK)
        return st;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind != EZ_TENSOR_ACT && !ft->ready[i]) {
            ez_diag_set(d, "'%s' has no values", p->tensors[i].name);
            return EZ_ERR_INVALID;
        }
    for (size_t oi = 0; oi < p->nops && st == EZ_OK; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        switch (op->kind) {
        case EZ_OP_EINSUM: st = f_einsum(p, op, ft, d); break;
        case EZ_OP_ADD:
        case EZ_OP_CAUSAL:
        case EZ_OP_UNARY: st = f_elementwise(p, op, ft, d); break;
        case EZ_OP_GATHER: st = f_gather(p, op, ft, d); break;
        default: st = f_rows(p, op, ft, d); break;
        }
        if (st == EZ_OK)
            ft->ready[op->out] = true;
    }
    return st;
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

/* exec — the trace and the helpers an op's exec hook uses (exec_op.h). The dispatch over
 * the ops is runtime/exec/dispatch.c; the ops themselves live in runtime/ops/. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec_index.h"
#include "runtime/exec/exec_op.h"

const char *ez_aux_kind_name(ez_aux_kind k)
{
    switch (k) {
    case EZ_AUX_REM: return "rem";
    case EZ_AUX_ROW_MAX: return "row_max";
    case EZ_AUX_ROW_ARG: return "row_arg";
    case EZ_AUX_EXP: return "exp";
    case EZ_AUX_ROW_SUM: return "row_sum";
    case EZ_AUX_DIV_REM: return "div_rem";
    case EZ_AUX_ROW_RECIP: return "row_recip";
    case EZ_AUX_MEAN: return "mean";
    case EZ_AUX_MEAN_REM: return "mean_rem";
    case EZ_AUX_SUMSQ: return "sumsq";
    case EZ_AUX_VAR: return "var";
    case EZ_AUX_VAR_REM: return "var_rem";
    case EZ_AUX_NORM_EXP: return "norm_exp";
    case EZ_AUX_MANTISSA: return "mantissa";
    case EZ_AUX_MANT_REM: return "mant_rem";
    case EZ_AUX_RSQRT: return "rsqrt";
    case EZ_AUX_COUNT: break;
    }
    return "?";
}

void ez_exec_format_elem(char *buf, size_t cap, const ez_plan_tensor *t, uint64_t flat)
{
    uint64_t coord[EZ_MAX_RANK] = {0};
    for (unsigned a = t->rank; a-- > 0;) {
        coord[a] = t->dims[a] ? flat % t->dims[a] : 0;
        flat = t->dims[a] ? flat / t->dims[a] : 0;
    }
    size_t n = (size_t)snprintf(buf, cap, "%s", t->name);
    if (t->rank == 0 || n >= cap)
        return;
    for (unsigned a = 0; a < t->rank && n < cap; a++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRIu64, a ? ", " : "[", coord[a]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* ---- trace ------------------------------------------------------------------------ */

void ez_trace_clear(ez_trace *tr)
{
    if (tr == NULL)
        return;
    if (tr->plan != NULL) {
        for (size_t i = 0; tr->t && i < tr->plan->ntensors; i++)
            free(tr->t[i]);
        for (size_t o = 0; tr->ops && o < tr->plan->nops; o++)
            for (int k = 0; k < EZ_AUX_COUNT; k++)
                free(tr->ops[o].aux[k]);
    }
    for (size_t i = 0; i < tr->ntables; i++)
        ez_table_clear(&tr->tables[i]);
    free(tr->tables);
    free(tr->work[0]);
    free(tr->work[1]);
    free(tr->t);
    free(tr->ready);
    free(tr->maxabs);
    free(tr->ops);
    memset(tr, 0, sizeof *tr);
}

static bool numel_checked(const ez_plan_tensor *t, uint64_t *out)
{
    uint64_t n = 1;
    if (t->rank > EZ_MAX_RANK)
        return false;
    for (unsigned a = 0; a < t->rank; a++) {
        if (t->dims[a] != 0 && n > UINT64_MAX / t->dims[a])
            return false;
        n *= t->dims[a];
    }
    *out = n;
    return n <= (UINT64_C(1) << 40);
}

ez_status ez_trace_init(ez_trace *tr, const ez_plan *p, ez_diag *d)
{
    memset(tr, 0, sizeof *tr);
    tr->plan = p;
    tr->t = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *tr->t);
    tr->ready = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *tr->ready);
    tr->ops = ez_alloc_array(p->nops ? p->nops : 1, sizeof *tr->ops);
    tr->maxabs = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *tr->maxabs);
    if (tr->t == NULL || tr->ready == NULL || tr->ops == NULL || tr->maxabs == NULL) {
        ez_trace_clear(tr);
        ez_diag_set(d, "out of memory allocating the trace");
        return EZ_ERR_NOMEM;
    }
    for (size_t i = 0; i < p->ntensors; i++) {
        uint64_t n;
        if (!numel_checked(&p->tensors[i], &n)) {
            ez_diag_set(d, "tensor '%s': shape too large", p->tensors[i].name);
            ez_trace_clear(tr);
            return EZ_ERR_INVALID;
        }
        if (n == 0)
            continue;
        tr->t[i] = ez_alloc_array(n, sizeof(int64_t));
        if (tr->t[i] == NULL) {
            ez_diag_set(d, "out of memory for tensor '%s' (%" PRIu64 " values)", p->tensors[i].name, n);
            ez_trace_clear(tr);
            return EZ_ERR_NOMEM;
        }
    }
    return EZ_OK;
}

ez_status ez_trace_set(ez_trace *tr, size_t tensor, const int64_t *data, uint64_t n, ez_diag *d)
{
    const ez_plan *p = tr->plan;
    if (tensor >= p->ntensors) {
        ez_diag_set(d, "tensor id %zu out of range", tensor);
        return EZ_ERR_INVALID;
    }
    const ez_plan_tensor *t = &p->tensors[tensor];
    uint64_t numel = ez_plan_tensor_numel(t);
    if (t->kind == EZ_TENSOR_ACT || n != numel) {
        ez_diag_set(d, "tensor '%s': cannot set %" PRIu64 " values (%s with %" PRIu64 " elements)",
                    t->name, n, ez_tensor_kind_name(t->kind), numel);
        return EZ_ERR_INVALID;
    }
    int64_t lo, hi;
    if (t->kind == EZ_TENSOR_TOKENS) {
        lo = 0;
        hi = t->token_limit - 1;
    } else {
        unsigned b = t->bits >= 1 && t->bits <= 63 ? t->bits : 63;
        lo = -(int64_t)(UINT64_C(1) << (b - 1));
        hi = (int64_t)((UINT64_C(1) << (b - 1)) - 1);
        if (t->bound < (UINT64_C(1) << 62)) {
            if ((int64_t)t->bound < hi)
                hi = (int64_t)t->bound;
            if (-(int64_t)t->bound > lo)
                lo = -(int64_t)t->bound;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        if (data[i] < lo || data[i] > hi) {
            char where[256];
            ez_exec_format_elem(where, sizeof where, t, i);
            if (t->kind == EZ_TENSOR_TOKENS)
                ez_diag_set(d, "token %s = %" PRId64 " is outside [0, %" PRId64 ")", where, data[i],
                            t->token_limit);
            else
                ez_diag_set(d, "%s = %" PRId64 " is outside its %u-bit range [%" PRId64 ", %" PRId64 "]",
                            where, data[i], t->bits, lo, hi);
            return EZ_ERR_NUMERIC;
        }
    }
    if (n)
        memcpy(tr->t[tensor], data, n * sizeof *data);
    tr->maxabs[tensor] = ez_exec_maxabs(data, n);
    tr->ready[tensor] = true;
    return EZ_OK;
}

const int64_t *ez_trace_aux(const ez_trace *tr, size_t op, ez_aux_kind k, uint64_t *n)
{
    if (tr == NULL || tr->plan == NULL || op >= tr->plan->nops || (unsigned)k >= EZ_AUX_COUNT) {
        if (n)
            *n = 0;
        return NULL;
    }
    if (n)
        *n = tr->ops[op].naux[k];
    return tr->ops[op].aux[k];
}

const ez_table *ez_trace_table(const ez_trace *tr, ez_fn_table_kind kind, ez_func f,
                               unsigned in_scale, unsigned out_scale)
{
    for (size_t i = 0; i < tr->ntables; i++)
        if (ez_table_is(&tr->tables[i], kind, f, in_scale, out_scale))
            return &tr->tables[i];
    return NULL;
}

/* ---- helpers for the op files ------------------------------------------------------ */

/* Aux arrays are kept between runs of the same op (a prover or a benchmark running the
 * trace again reuses the memory); every op writes every entry of the arrays it asks
 * for, so a reused array needs no clearing. */
int64_t *ez_exec_aux(ez_exec_ctx *c, ez_aux_kind k, uint64_t n)
{
    ez_op_trace *ot = &c->tr->ops[c->oi];
    c->aux_used |= 1u << k;
    if (ot->aux[k] != NULL && ot->naux[k] == n)
        return ot->aux[k];
    free(ot->aux[k]);
    ot->aux[k] = ez_alloc_array(n ? n : 1, sizeof(int64_t));
    ot->naux[k] = ot->aux[k] ? n : 0;
    if (ot->aux[k] == NULL)
        ez_diag_set(c->d, "out of memory for the %s values of op '%s'", ez_aux_kind_name(k), c->op->label);
    return ot->aux[k];
}

ez_status ez_exec_table(ez_exec_ctx *c, const ez_table **out, ez_fn_table_kind kind, ez_func f,
                        unsigned in_scale, unsigned out_scale)
{
    ez_trace *tr = c->tr;
    const ez_table *have = ez_trace_table(tr, kind, f, in_scale, out_scale);
    if (have == NULL && tr->table_cache)
        have = ez_trace_table(tr->table_cache, kind, f, in_scale, out_scale);
    if (have) {
        *out = have;
        return EZ_OK;
    }
    ez_table *nt = ez_realloc_array(tr->tables, tr->ntables + 1, sizeof *tr->tables);
    if (nt == NULL) {
        ez_diag_set(c->d, "out of memory for a table");
        return EZ_ERR_NOMEM;
    }
    tr->tables = nt;
    ez_table *t = &tr->tables[tr->ntables];
    ez_status st = ez_table_build_kind(t, kind, f, in_scale, out_scale, c->d);
    if (st != EZ_OK)
        return st;
    tr->ntables++;
    *out = t;
    return EZ_OK;
}

void *ez_exec_scratch(ez_exec_ctx *c, int slot, size_t bytes)
{
    ez_trace *tr = c->tr;
    if (tr->work_bytes[slot] < bytes) {
        free(tr->work[slot]);
        tr->work_bytes[slot] = 0;
        if ((tr->work[slot] = ez_alloc_aligned(bytes, 1)) == NULL) {
            ez_diag_set(c->d, "out of memory (%zu bytes of scratch) in op '%s'", bytes, c->op->label);
            return NULL;
        }
        tr->work_bytes[slot] = bytes;
    }
    return tr->work[slot];
}

uint64_t ez_exec_maxabs(const int64_t *v, uint64_t n)
{
    uint64_t m = 0;
#pragma omp parallel for reduction(max : m) schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = v[i] < 0 ? -(uint64_t)v[i] : (uint64_t)v[i];
        m = a > m ? a : m;
    }
    return m;
}

ez_status ez_exec_move_scale_prepare(ez_exec_ctx *c, uint64_t n, int64_t **off, int64_t **rem)
{
    *off = NULL;
    *rem = NULL;
    ez_status st = ez_exec_elem_offsets(off, c->p, c->op, 0, c->d);
    if (st == EZ_OK && c->op->out_scale < c->op->in_scale && (*rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL)
        st = EZ_ERR_NOMEM;
    if (st != EZ_OK) {
        free(*off);
        *off = NULL;
    }
    return st;
}


void ez_exec_tensor_strides(const ez_plan_tensor *t, uint64_t *s)
{
    uint64_t m = 1;
    for (unsigned a = t->rank; a-- > 0;) {
        s[a] = m;
        m *= t->dims[a];
    }
}

void ez_exec_copy_box(int64_t *dst, const ez_plan_tensor *w, const int64_t *src, const ez_plan_tensor *f,
                      const uint64_t *start)
{
    uint64_t fs[EZ_MAX_RANK], n = ez_plan_tensor_numel(w);
    ez_exec_tensor_strides(f, fs);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        uint64_t rest = e, off = 0;
        for (unsigned a = w->rank; a-- > 0;) {
            off += ((start ? start[a] : 0) + rest % w->dims[a]) * fs[a];
            rest /= w->dims[a];
        }
        dst[e] = src[off];
    }
}

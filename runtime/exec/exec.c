/* exec — the trace, plan checks, the op dispatch and the range checks after each op.
 * The ops themselves live in exec_einsum.c, exec_elem.c and exec_nonlin.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec_internal.h"

const char *ez_aux_kind_name(ez_aux_kind k)
{
    switch (k) {
    case EZ_AUX_REM: return "rem";
    case EZ_AUX_ROW_MAX: return "row_max";
    case EZ_AUX_ROW_ARG: return "row_arg";
    case EZ_AUX_EXP: return "exp";
    case EZ_AUX_ROW_SUM: return "row_sum";
    case EZ_AUX_DIV_REM: return "div_rem";
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
    for (size_t i = 0; i < tr->ntables; i++) {
        const ez_table *t = &tr->tables[i];
        if (t->kind != kind)
            continue;
        if (kind == EZ_TABLE_RSQRT)
            return t; /* one table for every scale */
        if (kind == EZ_TABLE_SOFTMAX_EXP && t->in_scale == in_scale)
            return t;
        if (kind == EZ_TABLE_FUNC && t->func == f && t->in_scale == in_scale &&
            t->out_scale == out_scale)
            return t;
    }
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
    ez_status st;
    if (kind == EZ_TABLE_SOFTMAX_EXP)
        st = ez_table_build_softmax_exp(t, in_scale, c->d);
    else if (kind == EZ_TABLE_RSQRT)
        st = ez_table_build_rsqrt(t, c->d);
    else
        st = ez_table_build(t, f, in_scale, out_scale, c->d);
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

/* ---- plan check -------------------------------------------------------------------- */

static ez_status bad(ez_diag *d, const ez_plan_op *op, size_t oi, const char *what)
{
    ez_diag_set(d, "plan op %zu ('%s', %s): %s", oi, op->label, ez_op_kind_name(op->kind), what);
    return EZ_ERR_INVALID;
}

/* Operand k's axes (k < 0: the result) name indices of matching sizes; fixed axes
 * (layer slices) hold a position inside the axis. */
static bool axes_ok(const ez_plan_op *op, const ez_plan_tensor *t, int k, unsigned first)
{
    const unsigned *axes = k < 0 ? op->out_axes : op->in_axes[k];
    unsigned fixed = k < 0 ? 0 : op->in_fixed[k];
    for (unsigned a = first; a < t->rank; a++) {
        if ((fixed >> a) & 1) {
            if (op->in_pos[k][a] >= t->dims[a])
                return false;
        } else if (axes[a] >= op->nidx || op->idx_size[axes[a]] != t->dims[a]) {
            return false;
        }
    }
    return (fixed >> t->rank) == 0;
}

ez_status ez_exec_check_plan(const ez_plan *p, ez_diag *d)
{
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        uint64_t n;
        if (!numel_checked(t, &n) || t->scale > 62 || t->bits < 1 || t->bits > 63) {
            ez_diag_set(d, "plan tensor '%s': bad shape, scale or width", t->name);
            return EZ_ERR_INVALID;
        }
        if (t->kind == EZ_TENSOR_ACT && (t->producer < 0 || (size_t)t->producer >= p->nops ||
                                         p->ops[t->producer].out != i)) {
            ez_diag_set(d, "plan tensor '%s': no producing op", t->name);
            return EZ_ERR_INVALID;
        }
        if (t->kind == EZ_TENSOR_TOKENS && t->token_limit < 1) {
            ez_diag_set(d, "plan tensor '%s': token limit %" PRId64, t->name, t->token_limit);
            return EZ_ERR_INVALID;
        }
    }
    for (size_t oi = 0; oi < p->nops; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        if (op->nidx > EZ_MAX_IDX || op->nin < 1 || op->nin > EZ_MAX_OPERANDS)
            return bad(d, op, oi, "index or operand count out of range");
        if (op->out >= p->ntensors || p->tensors[op->out].kind != EZ_TENSOR_ACT ||
            p->tensors[op->out].producer != (int)oi)
            return bad(d, op, oi, "result tensor is not an activation produced here");
        const ez_plan_tensor *to = &p->tensors[op->out];
        if (!axes_ok(op, to, -1, 0))
            return bad(d, op, oi, "result axes do not match the index sizes");
        for (unsigned a = 0; a < to->rank; a++)
            for (unsigned b = a + 1; b < to->rank; b++)
                if (op->out_axes[a] == op->out_axes[b])
                    return bad(d, op, oi, "repeated result index");
        for (unsigned k = 0; k < op->nin; k++) {
            if (op->in[k] >= p->ntensors)
                return bad(d, op, oi, "operand tensor id out of range");
            const ez_plan_tensor *ti = &p->tensors[op->in[k]];
            if (ti->kind == EZ_TENSOR_ACT && ti->producer >= (int)oi)
                return bad(d, op, oi, "operand computed later");
            bool gather_table = op->kind == EZ_OP_GATHER && k == 0;
            if (gather_table && ti->rank < 1)
                return bad(d, op, oi, "gather table has no rows");
            if ((gather_table && (op->in_fixed[k] & 1)) || !axes_ok(op, ti, (int)k, gather_table ? 1 : 0))
                return bad(d, op, oi, "operand axes do not match the index sizes");
            if (ti->kind == EZ_TENSOR_TOKENS && op->kind != EZ_OP_GATHER)
                return bad(d, op, oi, "token input used outside a gather");
        }
        const ez_plan_tensor *t0 = &p->tensors[op->in[0]];
        bool reduce = false;
        switch (op->kind) {
        case EZ_OP_EINSUM:
            if (op->nin > 2 || op->shift > 62)
                return bad(d, op, oi, "contraction needs 1 or 2 operands and shift <= 62");
            break;
        case EZ_OP_ADD:
            if (op->shift > 62)
                return bad(d, op, oi, "shift > 62");
            break;
        case EZ_OP_CAUSAL:
            if (op->nin != 1 || op->mask_row >= op->nidx || op->mask_col >= op->nidx)
                return bad(d, op, oi, "causal mask indices out of range");
            break;
        case EZ_OP_SOFTMAX:
            reduce = true;
            if (op->masked && (op->mask_row >= op->nidx || op->mask_col >= op->nidx))
                return bad(d, op, oi, "mask indices out of range");
            if (op->out_scale > 44)
                return bad(d, op, oi, "softmax output scale above 44");
            break;
        case EZ_OP_MAX:
        case EZ_OP_ARGMAX:
        case EZ_OP_LAYERNORM:
        case EZ_OP_RMSNORM: reduce = true; break;
        case EZ_OP_UNARY:
            if (op->nin != 1 || op->func == EZ_FN_NONE || op->func > EZ_FN_LAST)
                return bad(d, op, oi, "unknown function");
            break;
        case EZ_OP_GATHER:
            if (op->nin != 2 || t0->kind == EZ_TENSOR_TOKENS ||
                p->tensors[op->in[1]].kind != EZ_TENSOR_TOKENS)
                return bad(d, op, oi, "gather needs a table and a token input");
            break;
        default: return bad(d, op, oi, "unknown op kind");
        }
        if (reduce && (op->nin != 1 || op->axis >= op->nidx))
            return bad(d, op, oi, "reduced index out of range");
        if (op->kind == EZ_OP_ARGMAX && to->scale != 0)
            return bad(d, op, oi, "argmax result must have scale 0");
        if (op->kind != EZ_OP_EINSUM && op->kind != EZ_OP_ADD && op->kind != EZ_OP_GATHER &&
            op->kind != EZ_OP_ARGMAX &&
            (op->in_scale != t0->scale || op->out_scale != to->scale))
            return bad(d, op, oi, "in_scale/out_scale differ from the tensors' scales");
        if ((op->kind == EZ_OP_LAYERNORM || op->kind == EZ_OP_RMSNORM ||
             (op->kind == EZ_OP_UNARY && op->func == EZ_FN_RSQRT)) &&
            (op->in_scale > 31 || op->out_scale > 40))
            return bad(d, op, oi, "normalisation scales too large (input <= 31, output <= 40)");
    }
    return EZ_OK;
}

/* ---- range checks after an op -------------------------------------------------------- */

/* Every computed value must lie within the compiler's bound; a rescaled value (the
 * prover range-checks it, DESIGN §3) must also fit the tensor's width. */
static ez_status check_result(ez_exec_ctx *c)
{
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *t = &c->p->tensors[op->out];
    const int64_t *v = c->tr->t[op->out];
    uint64_t n = ez_plan_tensor_numel(t);
    bool width = (op->kind == EZ_OP_EINSUM || op->kind == EZ_OP_ADD) && op->shift > 0;
    int64_t lo = -(int64_t)(UINT64_C(1) << (t->bits - 1));
    int64_t hi = (int64_t)((UINT64_C(1) << (t->bits - 1)) - 1);
    uint64_t bound = t->bound;
    uint64_t first = UINT64_MAX, m = 0;
#pragma omp parallel for reduction(min : first) reduction(max : m) schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = v[i] < 0 ? -(uint64_t)v[i] : (uint64_t)v[i];
        m = a > m ? a : m;
        if (a > bound || (width && (v[i] < lo || v[i] > hi)))
            first = i < first ? i : first;
    }
    c->tr->maxabs[op->out] = m; /* the contractions' exactness test reads it */
    if (first == UINT64_MAX)
        return EZ_OK;
    char where[256];
    ez_exec_format_elem(where, sizeof where, t, first);
    int64_t x = v[first];
    if (width && (x < lo || x > hi))
        ez_diag_set(c->d,
                    "%s = %" PRId64 " (%.6g) is outside its %u-bit range [%" PRId64 ", %" PRId64
                    "] after the rescale in line %u: %s\n"
                    "help: give the statement more bits (@bits(N)) or a smaller scale",
                    where, x, (double)x / (double)(UINT64_C(1) << t->scale), t->bits, lo, hi,
                    op->line, op->equation);
    else
        ez_diag_set(c->d,
                    "%s = %" PRId64 " exceeds its proven bound %" PRIu64 " (%s, line %u: %s)", where,
                    x, bound, ez_op_kind_name(op->kind), op->line, op->equation);
    return EZ_ERR_NUMERIC;
}

/* ---- run --------------------------------------------------------------------------- */

ez_status ez_exec_op(const ez_plan *p, size_t oi, ez_trace *tr, ez_diag *d)
{
    if (tr->plan != p || oi >= p->nops) {
        ez_diag_set(d, "trace does not belong to this plan");
        return EZ_ERR_INVALID;
    }
    const ez_plan_op *op = &p->ops[oi];
    for (unsigned k = 0; k < op->nin; k++) {
        if (op->in[k] >= p->ntensors || !tr->ready[op->in[k]]) {
            const char *nm = op->in[k] < p->ntensors ? p->tensors[op->in[k]].name : "?";
            ez_diag_set(d, "op '%s': operand '%s' has no values (inputs and weights must be set)",
                        op->label, nm);
            return EZ_ERR_INVALID;
        }
    }
    ez_exec_ctx c = {.p = p, .op = op, .oi = oi, .tr = tr, .d = d, .aux_used = 0};
    ez_op_trace *ot = &tr->ops[oi];
    ot->macs = 0;
    ot->exact_f64 = false;
    double t0 = ez_now();
    ez_status st;
    switch (op->kind) {
    case EZ_OP_EINSUM: st = ez_exec_einsum(&c); break;
    case EZ_OP_ADD: st = ez_exec_add(&c); break;
    case EZ_OP_CAUSAL: st = ez_exec_causal(&c); break;
    case EZ_OP_SOFTMAX: st = ez_exec_softmax(&c); break;
    case EZ_OP_MAX:
    case EZ_OP_ARGMAX: st = ez_exec_maxarg(&c); break;
    case EZ_OP_LAYERNORM:
    case EZ_OP_RMSNORM: st = ez_exec_norm(&c); break;
    case EZ_OP_UNARY: st = ez_exec_unary(&c); break;
    case EZ_OP_GATHER: st = ez_exec_gather(&c); break;
    default:
        ez_diag_set(d, "op '%s': unknown kind %d", op->label, (int)op->kind);
        st = EZ_ERR_INVALID;
    }
    if (st == EZ_OK)
        st = check_result(&c);
    ot->seconds = ez_now() - t0;
    for (int k = 0; k < EZ_AUX_COUNT; k++) /* arrays a previous run left and this one did not */
        if (!((c.aux_used >> k) & 1) || st != EZ_OK) {
            free(ot->aux[k]);
            ot->aux[k] = NULL;
            ot->naux[k] = 0;
        }
    if (st == EZ_OK)
        tr->ready[op->out] = true;
    return st;
}

ez_status ez_exec_run(const ez_plan *p, ez_trace *tr, ez_diag *d)
{
    if (tr->plan != p) {
        ez_diag_set(d, "trace does not belong to this plan");
        return EZ_ERR_INVALID;
    }
    ez_status st = ez_exec_check_plan(p, d);
    if (st != EZ_OK)
        return st;
    for (size_t i = 0; i < p->ntensors; i++) {
        if (p->tensors[i].kind != EZ_TENSOR_ACT && !tr->ready[i]) {
            ez_diag_set(d, "%s '%s' has no values", ez_tensor_kind_name(p->tensors[i].kind),
                        p->tensors[i].name);
            return EZ_ERR_INVALID;
        }
    }
    for (size_t oi = 0; oi < p->nops; oi++) {
        st = ez_exec_op(p, oi, tr, d);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

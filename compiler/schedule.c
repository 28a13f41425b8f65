/* schedule — plan validation and the EqSchedule of every op (schedule.h). What an op
 * commits and looks up is the runtime's advice layout (runtime/prove/layout.h), not
 * the plan's: the plan says what is proven, the layout how. */
#include "compiler/schedule.h"

#include "compiler/builtins.h"

#include <stdlib.h>
#include <string.h>

/* Caps that keep every later allocation and loop sane for untrusted plans. */
#define EZ_PLAN_MAX_DIM (UINT64_C(1) << 32)
#define EZ_PLAN_MAX_NUMEL (UINT64_C(1) << 40)
#define EZ_PLAN_MAX_BOUND (UINT64_C(1) << 62)
#define EZ_PLAN_MAX_SC_VARS 48 /* lib/sumcheck.h EZ_SC_MAX_VARS */

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static bool name_ok(const char *s, size_t cap, bool nonempty)
{
    const char *z = memchr(s, 0, cap);
    return z != NULL && (!nonempty || z != s);
}

/* ---- graph validation ------------------------------------------------------------ */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 if index id `ix` labels one of the first `rank` entries of axes. */
static bool axes_have(const unsigned *axes, unsigned rank, unsigned ix)
{
    for (unsigned a = 0; a < rank; a++)
        if (axes[a] == ix)
            return true;
    return false;
}

static bool is_fixed(const ez_plan_op *op, unsigned k, unsigned a)
{
    return (op->in_fixed[k] >> a) & 1;
}

/* 1 if index ix labels a (non-fixed) axis of operand k. */
static bool in_has(const ez_plan *p, const ez_plan_op *op, unsigned k, unsigned ix)
{
    for (unsigned a = 0; a < p->tensors[op->in[k]].rank; a++)
        if (!is_fixed(op, k, a) && op->in_axes[k][a] == ix)
            return true;
    return false;
}

/* Axes of operand k that carry an index (not fixed). */
static unsigned free_rank(const ez_plan *p, const ez_plan_op *op, unsigned k)
{
    unsigned r = 0;
    for (unsigned a = 0; a < p->tensors[op->in[k]].rank; a++)
        r += !is_fixed(op, k, a);
    return r;
}


/* Axes of one tensor inside op i: ids < nidx, sizes equal to dims, no index twice;
 * fixed axes (bits of `fixed`) have a position inside the axis and in_axes 0. */
static ez_status check_axes(const ez_plan_op *op, size_t i, const ez_plan_tensor *t, const unsigned *axes,
                            unsigned fixed, const uint64_t *pos, const char *what, ez_diag *d)
{
    if (fixed >> t->rank) {
        ez_diag_set(d, "op %zu: %s has fixed axes beyond its rank", i, what);
        return EZ_ERR_FORMAT;
    }
    for (unsigned a = 0; a < t->rank; a++) {
        if ((fixed >> a) & 1) {
            if (pos[a] >= t->dims[a] || axes[a] != 0) {
                ez_diag_set(d, "op %zu: %s axis %u is fixed at %llu outside its size %llu", i, what, a,
                            (unsigned long long)pos[a], (unsigned long long)t->dims[a]);
                return EZ_ERR_FORMAT;
            }
            continue;
        }
        if (axes[a] >= op->nidx) {
            ez_diag_set(d, "op %zu: %s axis %u names index %u of %u", i, what, a, axes[a], op->nidx);
            return EZ_ERR_FORMAT;
        }
        if (op->idx_size[axes[a]] != t->dims[a]) {
            ez_diag_set(d, "op %zu: %s axis %u has size %llu but index '%s' has size %llu", i, what, a,
                        (unsigned long long)t->dims[a], op->idx_name[axes[a]],
                        (unsigned long long)op->idx_size[axes[a]]);
            return EZ_ERR_FORMAT;
        }
        for (unsigned b = 0; b < a; b++)
            if (!((fixed >> b) & 1) && axes[b] == axes[a]) {
                ez_diag_set(d, "op %zu: %s uses index '%s' on two axes", i, what, op->idx_name[axes[a]]);
                return EZ_ERR_FORMAT;
            }
    }
    return EZ_OK;
}

static ez_status check_tensor(const ez_plan *p, size_t t, ez_diag *d)
{
    const ez_plan_tensor *x = &p->tensors[t];
    if (!name_ok(x->name, sizeof x->name, true) || !name_ok(x->source_name, sizeof x->source_name, false)) {
        ez_diag_set(d, "tensor %zu: empty or unterminated name", t);
        return EZ_ERR_FORMAT;
    }
    if ((unsigned)x->kind > EZ_TENSOR_ACT) {
        ez_diag_set(d, "tensor '%s': invalid kind %u", x->name, (unsigned)x->kind);
        return EZ_ERR_FORMAT;
    }
    if (x->rank > EZ_MAX_RANK) {
        ez_diag_set(d, "tensor '%s': rank %u exceeds %d", x->name, x->rank, EZ_MAX_RANK);
        return EZ_ERR_FORMAT;
    }
    uint64_t n = 1;
    for (unsigned a = 0; a < x->rank; a++) {
        if (x->dims[a] == 0 || x->dims[a] > EZ_PLAN_MAX_DIM) {
            ez_diag_set(d, "tensor '%s': axis %u has invalid size %llu", x->name, a,
                        (unsigned long long)x->dims[a]);
            return EZ_ERR_FORMAT;
        }
        n = sat_mul(n, x->dims[a]);
    }
    if (n > EZ_PLAN_MAX_NUMEL) {
        ez_diag_set(d, "tensor '%s': %llu elements exceed the cap 2^40", x->name, (unsigned long long)n);
        return EZ_ERR_FORMAT;
    }
    if (x->scale > 62 || x->bits == 0 || x->bits > 63 || x->bound >= EZ_PLAN_MAX_BOUND) {
        ez_diag_set(d, "tensor '%s': invalid scale %u, bits %u or bound %llu", x->name, x->scale, x->bits,
                    (unsigned long long)x->bound);
        return EZ_ERR_FORMAT;
    }
    if (x->kind == EZ_TENSOR_TOKENS && (x->token_limit <= 0 || (uint64_t)x->token_limit > EZ_PLAN_MAX_DIM)) {
        ez_diag_set(d, "tensor '%s': token limit %lld out of range", x->name, (long long)x->token_limit);
        return EZ_ERR_FORMAT;
    }
    if (x->kind == EZ_TENSOR_ACT) {
        if (x->producer < 0 || (size_t)x->producer >= p->nops || p->ops[x->producer].out != t) {
            ez_diag_set(d, "tensor '%s': producer %d does not compute it", x->name, x->producer);
            return EZ_ERR_FORMAT;
        }
    } else if (x->producer != -1) {
        ez_diag_set(d, "tensor '%s': a %s has no producer", x->name, ez_tensor_kind_name(x->kind));
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

/* ---- per-op checks: the three syntax ops, then every built-in function by its row ---- */

static ez_status check_einsum(const ez_plan_op *op, size_t i, ez_diag *d)
{
    if (op->mul == 0 || op->mul > INT64_C(1) << 62 || op->mul < -(INT64_C(1) << 62)) {
        ez_diag_set(d, "op %zu: constant multiplier %lld out of range", i, (long long)op->mul);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

static ez_status check_add(const ez_plan *p, const ez_plan_op *op, size_t i, ez_diag *d)
{
    const ez_plan_tensor *out = &p->tensors[op->out];
    if (op->shift > 0 && op->checked) {
        ez_diag_set(d, "op %zu: a rescaled sum is range-checked anyway; `checked` is for sums without a shift", i);
        return EZ_ERR_FORMAT;
    }
    for (unsigned k = 0; k < op->nin; k++) {
        const ez_plan_tensor *t = &p->tensors[op->in[k]];
        if (op->coef[k] == 0 || op->coef[k] > INT64_C(1) << 62 || op->coef[k] < -(INT64_C(1) << 62)) {
            ez_diag_set(d, "op %zu: coefficient %u out of range", i, k);
            return EZ_ERR_FORMAT;
        }
        for (unsigned ax = 0; ax < t->rank; ax++)
            if (!is_fixed(op, k, ax) && !axes_have(op->out_axes, out->rank, op->in_axes[k][ax])) {
                ez_diag_set(d, "op %zu: term %u has index '%s' that is not in the output", i, k,
                            op->idx_name[op->in_axes[k][ax]]);
                return EZ_ERR_FORMAT;
            }
    }
    return EZ_OK;
}

static ez_status check_gather(const ez_plan *p, const ez_plan_op *op, size_t i, ez_diag *d)
{
    const ez_plan_tensor *a = &p->tensors[op->in[0]], *out = &p->tensors[op->out];
    const ez_plan_tensor *tok = &p->tensors[op->in[1]];
    if (tok->kind != EZ_TENSOR_TOKENS || a->kind == EZ_TENSOR_TOKENS || a->rank < 1 || (op->in_fixed[0] & 1) ||
        op->in_fixed[1] || out->rank != tok->rank + free_rank(p, op, 0) - 1) {
        ez_diag_set(d, "op %zu: gather needs a token tensor and a table of rank >= 1", i);
        return EZ_ERR_FORMAT;
    }
    if (axes_have(op->out_axes, out->rank, op->in_axes[0][0]) || in_has(p, op, 1, op->in_axes[0][0])) {
        ez_diag_set(d, "op %zu: the gathered (vocabulary) index must not appear elsewhere", i);
        return EZ_ERR_FORMAT;
    }
    if ((uint64_t)tok->token_limit > a->dims[0]) {
        ez_diag_set(d, "op %zu: token limit %lld exceeds the table's %llu rows", i, (long long)tok->token_limit,
                    (unsigned long long)a->dims[0]);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

/* A built-in function: the axis rule of its row (same indices as the operand, or the
 * operand's without the axis), its axis and mask indices, its scale rule. */
static ez_status check_function(const ez_plan *p, const ez_plan_op *op, const ez_builtin *bi, size_t i,
                                ez_diag *d)
{
    const ez_plan_tensor *in = &p->tensors[op->in[0]], *out = &p->tensors[op->out];
    if (in->kind == EZ_TENSOR_TOKENS) {
        ez_diag_set(d, "op %zu: a token input is used outside a gather", i);
        return EZ_ERR_FORMAT;
    }
    /* two axis indices: causal's mask, softmax's fused mask, rope's position and rotary ones */
    bool masked = bi->naxes == 2 || (bi->fuses_causal && op->masked);
    if (op->masked && !bi->fuses_causal) {
        ez_diag_set(d, "op %zu (%s): only softmax carries a causal mask", i, ez_op_kind_name(op->kind));
        return EZ_ERR_FORMAT;
    }
    if (bi->naxes == 1 && !in_has(p, op, 0, op->axis)) {
        ez_diag_set(d, "op %zu: reduced index %u is not an input axis", i, op->axis);
        return EZ_ERR_FORMAT;
    }
    unsigned want = free_rank(p, op, 0) - (bi->drops_axis ? 1 : 0);
    bool ok = out->rank == want && !(bi->drops_axis && axes_have(op->out_axes, out->rank, op->axis));
    for (unsigned x = 0; x < out->rank && ok; x++)
        ok = in_has(p, op, 0, op->out_axes[x]);
    if (!ok) {
        ez_diag_set(d, "op %zu (%s): output indices must be the input's%s", i, ez_op_kind_name(op->kind),
                    bi->drops_axis ? " without the reduced one" : "");
        return EZ_ERR_FORMAT;
    }
    if (masked) {
        if (op->mask_row == op->mask_col || !in_has(p, op, 0, op->mask_row) || !in_has(p, op, 0, op->mask_col)) {
            ez_diag_set(d, "op %zu: the %s indices are not two distinct input axes", i,
                        op->kind == EZ_OP_ROPE ? "position and rotary" : "causal mask");
            return EZ_ERR_FORMAT;
        }
    }
    if (bi->check) {
        ez_status st = bi->check(op, i, d);
        if (st != EZ_OK)
            return st;
    }
    bool scale_ok = true;
    switch (bi->scale) {
    case EZ_SCALE_OPERAND: scale_ok = out->scale == in->scale; break;
    case EZ_SCALE_INDEX: scale_ok = out->scale == 0; break;
    case EZ_SCALE_TARGET: break;
    }
    if (!scale_ok) {
        ez_diag_set(d, "op %zu (%s): the result's scale is not the one its rule gives", i,
                    ez_op_kind_name(op->kind));
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

static ez_status check_op(const ez_plan *p, size_t i, ez_diag *d)
{
    const ez_plan_op *op = &p->ops[i];
    if ((unsigned)op->kind > EZ_OP_LAST) {
        ez_diag_set(d, "op %zu: invalid kind %u", i, (unsigned)op->kind);
        return EZ_ERR_FORMAT;
    }
    if (!name_ok(op->label, sizeof op->label, false) || !name_ok(op->equation, sizeof op->equation, false)) {
        ez_diag_set(d, "op %zu: unterminated label or equation", i);
        return EZ_ERR_FORMAT;
    }
    const ez_builtin *bi = ez_builtin_of(op->kind, op->func);
    if (bi == NULL) {
        ez_diag_set(d, "op %zu: invalid kind %u or function %u", i, (unsigned)op->kind, (unsigned)op->func);
        return EZ_ERR_FORMAT;
    }
    if (op->nin < bi->min_in || op->nin > bi->max_in) {
        ez_diag_set(d, "op %zu (%s): %u operands, expected %u..%u", i, ez_op_kind_name(op->kind), op->nin,
                    bi->min_in, bi->max_in);
        return EZ_ERR_FORMAT;
    }
    if (op->nidx > EZ_MAX_IDX) {
        ez_diag_set(d, "op %zu: %u indices exceed %d", i, op->nidx, EZ_MAX_IDX);
        return EZ_ERR_FORMAT;
    }
    for (unsigned x = 0; x < op->nidx; x++) {
        if (!name_ok(op->idx_name[x], EZ_MAX_NAME, true) || op->idx_size[x] == 0 ||
            op->idx_size[x] > EZ_PLAN_MAX_DIM) {
            ez_diag_set(d, "op %zu: index %u has an invalid name or size", i, x);
            return EZ_ERR_FORMAT;
        }
    }
    if (op->out >= p->ntensors || p->tensors[op->out].kind != EZ_TENSOR_ACT ||
        p->tensors[op->out].producer != (int)i) {
        ez_diag_set(d, "op %zu: output tensor %u is not an activation produced by this op", i, op->out);
        return EZ_ERR_FORMAT;
    }
    const ez_plan_tensor *out = &p->tensors[op->out];
    ez_status st = check_axes(op, i, out, op->out_axes, 0, NULL, "output", d);
    if (st != EZ_OK)
        return st;
    for (unsigned k = 0; k < op->nin; k++) {
        if (op->in[k] >= p->ntensors) {
            ez_diag_set(d, "op %zu: operand %u names tensor %u of %zu", i, k, op->in[k], p->ntensors);
            return EZ_ERR_FORMAT;
        }
        const ez_plan_tensor *t = &p->tensors[op->in[k]];
        if (t->kind == EZ_TENSOR_ACT && (size_t)t->producer >= i) {
            ez_diag_set(d, "op %zu: operand '%s' is produced later (op %d)", i, t->name, t->producer);
            return EZ_ERR_FORMAT;
        }
        st = check_axes(op, i, t, op->in_axes[k], op->in_fixed[k], op->in_pos[k], "operand", d);
        if (st != EZ_OK)
            return st;
    }
    /* every index labels some axis */
    for (unsigned k = op->nin; k < EZ_MAX_OPERANDS; k++)
        if (op->in_fixed[k] != 0) {
            ez_diag_set(d, "op %zu: fixed axes on a missing operand", i);
            return EZ_ERR_FORMAT;
        }
    for (unsigned x = 0; x < op->nidx; x++) {
        bool used = axes_have(op->out_axes, out->rank, x);
        for (unsigned k = 0; k < op->nin && !used; k++)
            used = in_has(p, op, k, x);
        if (!used) {
            ez_diag_set(d, "op %zu: index '%s' labels no axis", i, op->idx_name[x]);
            return EZ_ERR_FORMAT;
        }
    }
    if (op->shift > 62 || op->in_scale > 62 || op->out_scale > 62) {
        ez_diag_set(d, "op %zu: invalid shift or scale", i);
        return EZ_ERR_FORMAT;
    }
    if ((op->shift > 0 && !bi->rescales) ||
        (op->checked && op->kind != EZ_OP_ADD)) {
        ez_diag_set(d, "op %zu (%s): only a contraction or a sum has a rescale", i, ez_op_kind_name(op->kind));
        return EZ_ERR_FORMAT;
    }
    if (op->kind != EZ_OP_EINSUM && op->kind != EZ_OP_ADD && op->kind != EZ_OP_GATHER &&
        (op->in_scale != p->tensors[op->in[0]].scale || op->out_scale != out->scale)) {
        ez_diag_set(d, "op %zu: in_scale/out_scale differ from the tensors' scales", i);
        return EZ_ERR_FORMAT;
    }
    if (op->in_scale > bi->max_in_scale || op->out_scale > bi->max_out_scale) {
        ez_diag_set(d, "op %zu (%s): scales %u -> %u exceed its limits %u -> %u", i, ez_op_kind_name(op->kind),
                    op->in_scale, op->out_scale, bi->max_in_scale, bi->max_out_scale);
        return EZ_ERR_FORMAT;
    }
    switch (op->kind) {
    case EZ_OP_EINSUM: return check_einsum(op, i, d);
    case EZ_OP_ADD: return check_add(p, op, i, d);
    case EZ_OP_GATHER: return check_gather(p, op, i, d);
    default: return check_function(p, op, bi, i, d);
    }
}

ez_status ez_plan_validate_graph(const ez_plan *p, ez_diag *d)
{
    ez_status st = EZ_OK;
    const char **names = NULL;
    if (!name_ok(p->model, sizeof p->model, true)) {
        ez_diag_set(d, "empty or unterminated model name");
        return EZ_ERR_FORMAT;
    }
    if (p->ntensors == 0 || p->tensors == NULL || (p->nops > 0 && p->ops == NULL)) {
        ez_diag_set(d, "the plan has no tensors");
        return EZ_ERR_FORMAT;
    }
    for (size_t t = 0; t < p->ntensors; t++)
        if ((st = check_tensor(p, t, d)) != EZ_OK)
            return st;
    /* unique names in O(n log n), safe for large untrusted plans */
    names = ez_alloc_array(p->ntensors, sizeof *names);
    if (names == NULL)
        return EZ_ERR_NOMEM;
    for (size_t t = 0; t < p->ntensors; t++)
        names[t] = p->tensors[t].name;
    qsort(names, p->ntensors, sizeof *names, cmp_names);
    for (size_t t = 1; t < p->ntensors; t++)
        if (!strcmp(names[t - 1], names[t])) {
            ez_diag_set(d, "two tensors are named '%s'", names[t]);
            st = EZ_ERR_FORMAT;
            goto out;
        }
    for (size_t i = 0; i < p->nops; i++)
        if ((st = check_op(p, i, d)) != EZ_OK)
            goto out;
out:
    free(names);
    return st;
}

/* ---- classification ----------------------------------------------------------------- */

static void fill_vars(ez_eq_schedule *s, const ez_plan_op *op)
{
    s->nvars = s->eq_vars = 0;
    for (unsigned b = 0; b < s->nbind; b++) {
        unsigned v = ez_log2_ceil(op->idx_size[s->bind_order[b]]);
        s->nvars += v;
        if (s->cls[s->bind_order[b]] == EZ_IDX_BATCH)
            s->eq_vars += v;
    }
}

ez_status ez_plan_classify(const ez_plan *p, const ez_plan_op *op, ez_eq_schedule *out, ez_diag *d)
{
    ez_eq_schedule s;
    memset(&s, 0, sizeof s);
    const ez_builtin *bi = ez_builtin_of(op->kind, op->func);
    if (bi == NULL) {
        ez_diag_set(d, "'%s': invalid op kind", op->label);
        return EZ_ERR_INVALID;
    }
    const ez_plan_tensor *ta = &p->tensors[op->in[0]];
    const ez_plan_tensor *to = &p->tensors[op->out];
    bool in_a[EZ_MAX_IDX] = {0}, in_b[EZ_MAX_IDX] = {0}, in_o[EZ_MAX_IDX] = {0};
    for (unsigned a = 0; a < ta->rank; a++)
        if (!is_fixed(op, 0, a))
            in_a[op->in_axes[0][a]] = true;
    for (unsigned a = 0; a < to->rank; a++)
        in_o[op->out_axes[a]] = true;
    /* ADD and GATHER: "A" is every term / the table, "B" the token side */
    for (unsigned k = 1; k < op->nin; k++)
        for (unsigned a = 0; a < p->tensors[op->in[k]].rank; a++) {
            if (is_fixed(op, k, a))
                continue;
            if (op->kind == EZ_OP_ADD)
                in_a[op->in_axes[k][a]] = true;
            else
                in_b[op->in_axes[k][a]] = true;
        }

    switch (bi->sched) {
    case EZ_SCHED_CONTRACTION:
        if (op->kind == EZ_OP_GATHER)
            in_b[op->in_axes[0][0]] = true; /* the vocabulary index meets the one-hot matrix */
        for (unsigned x = 0; x < op->nidx; x++) {
            if (in_a[x] && in_b[x])
                s.cls[x] = in_o[x] ? EZ_IDX_BATCH : EZ_IDX_CONTRACTED;
            else if (in_a[x])
                s.cls[x] = in_o[x] ? EZ_IDX_FREE_A : EZ_IDX_SUMMED_A;
            else if (in_b[x])
                s.cls[x] = in_o[x] ? EZ_IDX_FREE_B : EZ_IDX_SUMMED_B;
            else
                s.cls[x] = EZ_IDX_BROADCAST;
        }
        /* bind order: operand A's row-major axis order, so A' is folded in place and
         * the first bound variables are its most significant ones (no transpose) */
        for (unsigned a = 0; a < ta->rank; a++) {
            unsigned x = op->in_axes[0][a];
            if (!is_fixed(op, 0, a) && (s.cls[x] == EZ_IDX_BATCH || s.cls[x] == EZ_IDX_CONTRACTED))
                s.bind_order[s.nbind++] = x;
        }
        fill_vars(&s, op);
        s.degree = s.nvars == 0 ? 0 : s.eq_vars > 0 ? 3 : 2;
        break;
    case EZ_SCHED_POINTWISE:
        /* the lookup is the whole proof, claims map pointwise */
        for (unsigned x = 0; x < op->nidx; x++)
            s.cls[x] = in_a[x] ? EZ_IDX_FREE_A : EZ_IDX_BROADCAST;
        break;
    case EZ_SCHED_ROWCHECK:
        /* one batched zero-check (plus row sums) over every variable of the input:
         * eq(rho, x) over all of them, bound in the input's layout order */
        for (unsigned x = 0; x < op->nidx; x++)
            s.cls[x] = in_a[x] ? EZ_IDX_BATCH : EZ_IDX_BROADCAST;
        for (unsigned a = 0; a < ta->rank; a++)
            if (!is_fixed(op, 0, a))
                s.bind_order[s.nbind++] = op->in_axes[0][a];
        fill_vars(&s, op);
        s.degree = s.nvars == 0 ? 0 : bi->degree;
        break;
    }
    if (s.nvars > EZ_PLAN_MAX_SC_VARS) {
        ez_diag_set(d, "'%s': %u sumcheck variables exceed the limit %d", op->label, s.nvars,
                    EZ_PLAN_MAX_SC_VARS);
        return EZ_ERR_INVALID;
    }
    *out = s;
    return EZ_OK;
}

unsigned ez_plan_live_eligible(const ez_plan *p, size_t i)
{
    const ez_plan_op *op = &p->ops[i];
    if (op->kind != EZ_OP_EINSUM || op->shift == 0 || p->tensors[op->out].is_output)
        return 0;
    size_t reader = SIZE_MAX;
    for (size_t j = 0; j < p->nops; j++)
        for (unsigned k = 0; k < p->ops[j].nin; k++)
            if (p->ops[j].in[k] == op->out) {
                if (reader != SIZE_MAX || k != 0)
                    return 0; /* read twice, or not as a softmax's input */
                reader = j;
            }
    if (reader == SIZE_MAX)
        return 0;
    const ez_plan_op *sm = &p->ops[reader];
    if (sm->kind != EZ_OP_SOFTMAX || !sm->masked || sm->nin != 1 || sm->in_fixed[0] != 0)
        return 0;
    return (unsigned)reader + 1;
}

unsigned ez_plan_live_mark(const ez_plan *p, size_t i)
{
    unsigned mark = ez_plan_live_eligible(p, i);
    if (mark == 0)
        return 0;
    /* the softmax's row length: its reduced index's extent on its input */
    const ez_plan_op *sm = &p->ops[mark - 1];
    const ez_plan_tensor *x = &p->tensors[sm->in[0]];
    for (unsigned a = 0; a < x->rank; a++)
        if (sm->in_axes[0][a] == sm->axis)
            return x->dims[a] >= EZ_PLAN_LIVE_MIN_ROW ? mark : 0;
    return 0;
}

ez_status ez_plan_schedule(ez_plan *p, ez_diag *d)
{
    ez_status st = ez_plan_validate_graph(p, d);
    if (st != EZ_OK)
        return st == EZ_ERR_FORMAT ? EZ_ERR_INVALID : st;
    for (size_t i = 0; i < p->nops; i++)
        if ((st = ez_plan_classify(p, &p->ops[i], &p->ops[i].sched, d)) != EZ_OK)
            return st;
    for (size_t i = 0; i < p->nops; i++)
        p->ops[i].sched.live = ez_plan_live_mark(p, i);
    return EZ_OK;
}

/* ---- full validation ------------------------------------------------------------------ */

ez_status ez_plan_validate(const ez_plan *p, ez_diag *d)
{
    ez_status st = ez_plan_validate_graph(p, d);
    if (st != EZ_OK)
        return st;
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        ez_eq_schedule want;
        ez_diag tmp;
        if (ez_plan_classify(p, op, &want, &tmp) != EZ_OK) {
            ez_diag_set(d, "op %zu: %s", i, tmp.msg);
            return EZ_ERR_FORMAT;
        }
        const ez_eq_schedule *s = &op->sched;
        bool same = s->nvars == want.nvars && s->eq_vars == want.eq_vars && s->degree == want.degree &&
                    s->nbind == want.nbind;
        for (unsigned x = 0; x < op->nidx && same; x++)
            same = s->cls[x] == want.cls[x];
        for (unsigned b = 0; b < want.nbind && same; b++)
            same = s->bind_order[b] == want.bind_order[b];
        /* the live mark may be absent (the whole cube), never wrong */
        same = same && (s->live == 0 || s->live == ez_plan_live_eligible(p, i));
        if (!same) {
            ez_diag_set(d, "op %zu ('%s'): the EqSchedule does not match its equation", i, op->label);
            return EZ_ERR_FORMAT;
        }
    }
    return EZ_OK;
}

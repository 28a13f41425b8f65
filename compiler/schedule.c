/* schedule — EqSchedules, lookups, advice and estimates per op (schedule.h).
 * The recipes (what is committed, what is range-checked, in how many limbs) are
 * documented, with their reasons, in docs/plan.md; keep the two in step. */
#include "compiler/schedule.h"

#include <stdlib.h>
#include <string.h>

/* Caps that keep every later allocation and loop sane for untrusted plans. */
#define EZ_PLAN_MAX_DIM (UINT64_C(1) << 32)
#define EZ_PLAN_MAX_NUMEL (UINT64_C(1) << 40)
#define EZ_PLAN_MAX_BOUND (UINT64_C(1) << 62)
#define EZ_PLAN_MAX_SC_VARS 48 /* lib/sumcheck.h EZ_SC_MAX_VARS */
#define EZ_EVAL_BYTES 16       /* one extension-field element */

unsigned ez_plan_log2_ceil(uint64_t n)
{
    unsigned k = 0;
    while (k < 64 && (UINT64_C(1) << k) < n)
        k++;
    return k;
}

/* Number of bits of v (0 for 0). */
static unsigned bitlen(uint64_t v)
{
    unsigned k = 0;
    while (v) {
        k++;
        v >>= 1;
    }
    return k;
}

/* 16-bit limbs for a value of `bits` bits (at least one: a 0-bit value still gets its
 * zero range-checked so the witness is unique). */
static unsigned limbs16(unsigned bits)
{
    return bits == 0 ? 1 : (bits + 15) / 16;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
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

/* Elements of operand k as the op sees it (fixed axes select one slice). */
static uint64_t operand_numel(const ez_plan *p, const ez_plan_op *op, unsigned k)
{
    const ez_plan_tensor *t = &p->tensors[op->in[k]];
    uint64_t n = 1;
    for (unsigned a = 0; a < t->rank; a++)
        if (!is_fixed(op, k, a))
            n = sat_mul(n, t->dims[a]);
    return n;
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

static ez_status check_op(const ez_plan *p, size_t i, ez_diag *d)
{
    const ez_plan_op *op = &p->ops[i];
    if ((unsigned)op->kind > EZ_OP_GATHER) {
        ez_diag_set(d, "op %zu: invalid kind %u", i, (unsigned)op->kind);
        return EZ_ERR_FORMAT;
    }
    if (!name_ok(op->label, sizeof op->label, false) || !name_ok(op->equation, sizeof op->equation, false)) {
        ez_diag_set(d, "op %zu: unterminated label or equation", i);
        return EZ_ERR_FORMAT;
    }
    unsigned lo = 1, hi = 1;
    switch (op->kind) {
    case EZ_OP_EINSUM: hi = 2; break;
    case EZ_OP_ADD: hi = EZ_MAX_OPERANDS; break;
    case EZ_OP_GATHER: lo = hi = 2; break;
    default: break;
    }
    if (op->nin < lo || op->nin > hi) {
        ez_diag_set(d, "op %zu (%s): %u operands, expected %u..%u", i, ez_op_kind_name(op->kind), op->nin, lo, hi);
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
    if (op->shift > 62 || op->in_scale > 62 || op->out_scale > 62 || (unsigned)op->func > EZ_FN_LAST) {
        ez_diag_set(d, "op %zu: invalid shift, scale or function", i);
        return EZ_ERR_FORMAT;
    }
    const ez_plan_tensor *a = &p->tensors[op->in[0]];
    bool same_shape = out->rank == free_rank(p, op, 0);
    for (unsigned x = 0; x < out->rank && same_shape; x++)
        same_shape = in_has(p, op, 0, op->out_axes[x]);
    switch (op->kind) {
    case EZ_OP_EINSUM:
        if (op->mul == 0 || op->mul > INT64_C(1) << 62 || op->mul < -(INT64_C(1) << 62)) {
            ez_diag_set(d, "op %zu: constant multiplier %lld out of range", i, (long long)op->mul);
            return EZ_ERR_FORMAT;
        }
        break;
    case EZ_OP_ADD:
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
        break;
    case EZ_OP_CAUSAL:
    case EZ_OP_SOFTMAX:
    case EZ_OP_LAYERNORM:
    case EZ_OP_RMSNORM:
    case EZ_OP_UNARY:
        if (!same_shape) {
            ez_diag_set(d, "op %zu (%s): output indices differ from the input's", i, ez_op_kind_name(op->kind));
            return EZ_ERR_FORMAT;
        }
        if (op->kind == EZ_OP_UNARY && op->func == EZ_FN_NONE) {
            ez_diag_set(d, "op %zu: unary op without a function", i);
            return EZ_ERR_FORMAT;
        }
        if ((op->kind == EZ_OP_SOFTMAX || op->kind == EZ_OP_LAYERNORM || op->kind == EZ_OP_RMSNORM) &&
            !in_has(p, op, 0, op->axis)) {
            ez_diag_set(d, "op %zu: reduced index %u is not an input axis", i, op->axis);
            return EZ_ERR_FORMAT;
        }
        if (op->kind == EZ_OP_CAUSAL || (op->kind == EZ_OP_SOFTMAX && op->masked)) {
            if (op->mask_row == op->mask_col || !in_has(p, op, 0, op->mask_row) ||
                !in_has(p, op, 0, op->mask_col)) {
                ez_diag_set(d, "op %zu: causal mask indices are not two distinct input axes", i);
                return EZ_ERR_FORMAT;
            }
            if (op->kind == EZ_OP_SOFTMAX && op->mask_col != op->axis) {
                ez_diag_set(d, "op %zu: a masked softmax must reduce over the mask column", i);
                return EZ_ERR_FORMAT;
            }
        }
        break;
    case EZ_OP_MAX:
    case EZ_OP_ARGMAX:
        if (!in_has(p, op, 0, op->axis) || axes_have(op->out_axes, out->rank, op->axis) ||
            out->rank + 1 != free_rank(p, op, 0)) {
            ez_diag_set(d, "op %zu (%s): must reduce exactly the index %u", i, ez_op_kind_name(op->kind), op->axis);
            return EZ_ERR_FORMAT;
        }
        for (unsigned x = 0; x < out->rank; x++)
            if (!in_has(p, op, 0, op->out_axes[x])) {
                ez_diag_set(d, "op %zu: output index not in the input", i);
                return EZ_ERR_FORMAT;
            }
        break;
    case EZ_OP_GATHER: {
        const ez_plan_tensor *tok = &p->tensors[op->in[1]];
        if (tok->kind != EZ_TENSOR_TOKENS || a->rank < 1 || (op->in_fixed[0] & 1) || op->in_fixed[1] ||
            out->rank != tok->rank + free_rank(p, op, 0) - 1) {
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
        break;
    }
    }
    return EZ_OK;
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

/* Variables of the input of a softmax beyond 16 bits of d = max - x need the clamp's
 * is-zero gadget, which raises the zero-check degree to 4 (docs/plan.md). */
static bool softmax_needs_clamp(const ez_plan *p, const ez_plan_op *op)
{
    return bitlen(sat_mul(2, p->tensors[op->in[0]].bound)) > 16;
}

static void fill_vars(ez_eq_schedule *s, const ez_plan_op *op)
{
    s->nvars = s->eq_vars = 0;
    for (unsigned b = 0; b < s->nbind; b++) {
        unsigned v = ez_plan_log2_ceil(op->idx_size[s->bind_order[b]]);
        s->nvars += v;
        if (s->cls[s->bind_order[b]] == EZ_IDX_BATCH)
            s->eq_vars += v;
    }
}

ez_status ez_plan_classify(const ez_plan *p, const ez_plan_op *op, ez_eq_schedule *out, ez_diag *d)
{
    ez_eq_schedule s;
    memset(&s, 0, sizeof s);
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

    switch (op->kind) {
    case EZ_OP_EINSUM:
    case EZ_OP_ADD:
    case EZ_OP_GATHER:
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
    case EZ_OP_UNARY:
        if (op->func != EZ_FN_RELU) {
            /* a table function: the lookup is the whole proof, claims map pointwise */
            for (unsigned x = 0; x < op->nidx; x++)
                s.cls[x] = in_a[x] ? EZ_IDX_FREE_A : EZ_IDX_BROADCAST;
            break;
        }
        /* relu is an exact zero-check like the kinds below */
        __attribute__((fallthrough));
    case EZ_OP_CAUSAL:
    case EZ_OP_SOFTMAX:
    case EZ_OP_MAX:
    case EZ_OP_ARGMAX:
    case EZ_OP_LAYERNORM:
    case EZ_OP_RMSNORM:
        /* one batched zero-check (plus row sums) over every variable of the input:
         * eq(rho, x) over all of them, bound in the input's layout order */
        for (unsigned x = 0; x < op->nidx; x++)
            s.cls[x] = in_a[x] ? EZ_IDX_BATCH : EZ_IDX_BROADCAST;
        for (unsigned a = 0; a < ta->rank; a++)
            if (!is_fixed(op, 0, a))
                s.bind_order[s.nbind++] = op->in_axes[0][a];
        fill_vars(&s, op);
        switch (op->kind) {
        case EZ_OP_SOFTMAX: s.degree = softmax_needs_clamp(p, op) ? 4 : 3; break;
        case EZ_OP_MAX: s.degree = 4; break;
        default: s.degree = 3; break;
        }
        if (s.nvars == 0)
            s.degree = 0;
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

/* ---- lookups and advice --------------------------------------------------------------- */

static ez_status add_lookup(ez_plan_op *op, ez_lookup_kind table, ez_func f, int in_s, int out_s, uint64_t count)
{
    if (count == 0)
        return EZ_OK;
    for (unsigned l = 0; l < op->nlookups; l++) {
        ez_plan_lookup *x = &op->lookups[l];
        if (x->table == table && x->func == f && x->in_scale == in_s && x->out_scale == out_s) {
            x->count = sat_add(x->count, count);
            return EZ_OK;
        }
    }
    if (op->nlookups == EZ_MAX_OP_LOOKUPS)
        return EZ_ERR_INTERNAL;
    ez_plan_lookup *x = &op->lookups[op->nlookups++];
    x->table = table;
    x->func = f;
    x->count = count;
    x->in_scale = in_s;
    x->out_scale = out_s;
    return EZ_OK;
}

/* Range-check n values of `bits` bits into [0, 2^16) in 16-bit limbs (a top limb of
 * fewer bits is looked up shifted left, so one table serves all widths). With several
 * limbs the limbs are committed (the value is their combination); with one limb the
 * value itself is looked up and is committed only if `committed` (else its lookup claim
 * joins the claim flow of the tensor it is derived from). */
static ez_status range_check(ez_plan_op *op, uint64_t n, unsigned bits, bool committed)
{
    unsigned L = limbs16(bits);
    if (L > 1)
        op->advice_elems = sat_add(op->advice_elems, sat_mul(n, L));
    else if (committed)
        op->advice_elems = sat_add(op->advice_elems, n);
    return add_lookup(op, EZ_LOOKUP_RANGE16, EZ_FN_NONE, 0, 0, sat_mul(n, L));
}

/* Fused rescale by 2^shift: remainder in [0, 2^shift) (committed), quotient to the
 * output's signed width (DESIGN §3: both, so the witness is unique). */
static ez_status rescale(ez_plan_op *op, uint64_t n, unsigned shift, unsigned out_bits)
{
    if (shift == 0)
        return EZ_OK;
    ez_status st = range_check(op, n, shift, true);
    if (st == EZ_OK)
        st = range_check(op, n, out_bits, false);
    return st;
}

static void add_advice(ez_plan_op *op, uint64_t n)
{
    op->advice_elems = sat_add(op->advice_elems, n);
}

/* Recipes per kind: fill lookups, advice and the number of operand/advice evaluations
 * sent after the sumcheck. docs/plan.md has the table with the reasons. */
static ez_status recipe(const ez_plan *p, ez_plan_op *op, unsigned *nevals)
{
    const ez_plan_tensor *x = &p->tensors[op->in[0]];
    const ez_plan_tensor *y = &p->tensors[op->out];
    uint64_t n_in = operand_numel(p, op, 0), n_out = ez_plan_tensor_numel(y);
    uint64_t nt = op->idx_size[op->axis < op->nidx ? op->axis : 0];
    uint64_t rows = n_in / (nt ? nt : 1);
    unsigned bits_d = bitlen(sat_mul(2, x->bound)); /* d = max - x in [0, 2 * bound] */
    ez_status st = EZ_OK;
    *nevals = op->nin;
    switch (op->kind) {
    case EZ_OP_EINSUM:
    case EZ_OP_ADD:
        st = rescale(op, n_out, op->shift, y->bits);
        *nevals += op->shift > 0;
        break;
    case EZ_OP_GATHER:
        *nevals = 1; /* the table; the one-hot matrix is public */
        break;
    case EZ_OP_CAUSAL:
        *nevals = 1; /* the mask is evaluated by the verifier */
        break;
    case EZ_OP_SOFTMAX: {
        /* committed per row: max m, sum sigma, attainment count c; per entry: low limb dl,
         * exp-table output e_raw, its d==0 indicator, the clamped e */
        add_advice(op, sat_mul(3, rows));
        add_advice(op, sat_mul(4, n_in));
        st = add_lookup(op, EZ_LOOKUP_FUNC, EZ_FN_EXP, (int)x->scale, (int)op->out_scale, n_in);
        if (st == EZ_OK && bits_d > 16) {
            st = range_check(op, n_in, bits_d - 16, true); /* high part dh */
            add_advice(op, n_in);                         /* its inverse w (is-zero gadget) */
        }
        if (st == EZ_OK) /* attainment: c - 1 in [0, nt) */
            st = range_check(op, rows, nt > 1 ? bitlen(nt - 1) : 1, false);
        unsigned bits_sigma = bitlen(sat_mul(nt, UINT64_C(1) << 16) - 1); /* sigma <= nt T[0], T[0] = 2^16 */
        if (st == EZ_OK) /* division remainder: rem >= 0 and sigma - 1 - rem >= 0 */
            st = range_check(op, n_in, bits_sigma, true);
        if (st == EZ_OK)
            st = range_check(op, n_in, bits_sigma, false);
        if (st == EZ_OK) /* output p in [0, 2^s]: p >= 0 and 2^s - p >= 0 */
            st = range_check(op, n_in, op->out_scale + 1, false);
        if (st == EZ_OK)
            st = range_check(op, n_in, op->out_scale + 1, false);
        *nevals = 12;
        break;
    }
    case EZ_OP_MAX:
        add_advice(op, sat_mul(2, rows)); /* m, attainment count c */
        add_advice(op, n_in);             /* w: inverse of d where d != 0 */
        st = range_check(op, n_in, bits_d, false);
        if (st == EZ_OK)
            st = range_check(op, rows, nt > 1 ? bitlen(nt - 1) : 1, false);
        *nevals = 4;
        break;
    case EZ_OP_ARGMAX:
        add_advice(op, rows);             /* m */
        add_advice(op, sat_mul(2, n_in)); /* one-hot o, prefix selector pre = [t < argmax] */
        st = range_check(op, n_in, bits_d, false); /* d - pre >= 0: strictly below before argmax */
        if (st == EZ_OK)
            st = range_check(op, n_in, bitlen(nt), false); /* pre decides t < a exactly */
        *nevals = 5;
        break;
    case EZ_OP_LAYERNORM:
    case EZ_OP_RMSNORM: {
        uint64_t bx = x->bound;
        if (op->kind == EZ_OP_LAYERNORM) {
            /* mean = floor(sum / n): remainder in [0, n), two one-sided checks */
            unsigned bn = nt > 1 ? bitlen(nt - 1) : 1;
            st = range_check(op, rows, bn, true);
            if (st == EZ_OK)
                st = range_check(op, rows, bn, false);
            bx = sat_mul(2, bx); /* centred values */
        }
        /* u = floor(sum x^2 / (n 2^k)) fits the 16-bit rsqrt table */
        unsigned bsq = bitlen(sat_mul(bx, bx));
        unsigned k = bsq > 16 ? bsq - 16 : 0;
        uint64_t div = sat_mul(nt, UINT64_C(1) << k);
        unsigned bdiv = bitlen(div - 1) ? bitlen(div - 1) : 1;
        if (st == EZ_OK)
            st = range_check(op, rows, bdiv, true);
        if (st == EZ_OK)
            st = range_check(op, rows, bdiv, false);
        if (st == EZ_OK)
            st = add_lookup(op, EZ_LOOKUP_FUNC, EZ_FN_RSQRT, 2 * (int)x->scale - (int)k, (int)op->out_scale, rows);
        add_advice(op, rows); /* g = rsqrt(u) */
        if (st == EZ_OK)      /* y = floor(x g / 2^s_in) */
            st = rescale(op, n_in, x->scale, y->bits);
        *nevals = 5;
        break;
    }
    case EZ_OP_UNARY:
        if (op->func == EZ_FN_RELU) {
            /* y >= 0 (y committed), y - x >= 0, y (y - x) = 0 */
            st = range_check(op, n_in, bitlen(x->bound), true);
            if (st == EZ_OK)
                st = range_check(op, n_in, bits_d, false);
            *nevals = 2;
        } else {
            /* xt = floor(x / 2^k) is a signed 16-bit table index; y committed */
            unsigned bx = bitlen(x->bound) + 1;
            unsigned k = bx > 16 ? bx - 16 : 0;
            if (k > 0)
                st = range_check(op, n_in, k, true);
            if (st == EZ_OK)
                st = add_lookup(op, EZ_LOOKUP_FUNC, op->func, (int)op->in_scale - (int)k, (int)op->out_scale, n_in);
            add_advice(op, n_in);
            *nevals = 2;
        }
        break;
    }
    return st;
}

/* ---- size estimates ------------------------------------------------------------------ */

/* A LogUp-GKR proof for `rows` looked-up rows of width w against a 2^16-row table: one
 * fraction tree per side, layer j a degree-3 sumcheck over j variables plus 4 evals. */
static uint64_t logup_bytes(uint64_t rows, unsigned width)
{
    uint64_t b = 0;
    unsigned depth[2] = {ez_plan_log2_ceil(rows), 16};
    for (int side = 0; side < 2; side++)
        for (unsigned j = 1; j <= depth[side]; j++)
            b += (uint64_t)j * 3 * EZ_EVAL_BYTES + 4 * EZ_EVAL_BYTES;
    return b + (uint64_t)(width + 1) * EZ_EVAL_BYTES;
}

/* A Ligero opening of n base-field elements: best power-of-two row count r; the proof
 * sends two combined rows (c extension elements each) and EZ_PLAN_PCS_QUERIES columns
 * (r base elements and a Merkle path over the 4c-wide codeword each). */
static uint64_t pcs_bytes(uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t best = UINT64_MAX;
    for (unsigned lr = 0; lr <= 40; lr++) {
        uint64_t r = UINT64_C(1) << lr;
        uint64_t c = (n + r - 1) / r;
        uint64_t b = 2 * c * EZ_EVAL_BYTES + 32 /* root */ +
                     (uint64_t)EZ_PLAN_PCS_QUERIES * (r * 8 + 32 * (uint64_t)ez_plan_log2_ceil(4 * c));
        if (b < best)
            best = b;
        if (r >= n)
            break;
    }
    return best;
}

typedef struct {
    ez_lookup_kind table;
    ez_func func;
    int in_scale, out_scale;
    uint64_t rows;
} table_use;

ez_status ez_plan_schedule(ez_plan *p, ez_diag *d)
{
    ez_status st = ez_plan_validate_graph(p, d);
    table_use *tables = NULL;
    size_t ntables = 0;
    if (st != EZ_OK)
        return st == EZ_ERR_FORMAT ? EZ_ERR_INVALID : st;
    /* at most EZ_MAX_OP_LOOKUPS distinct tables per op */
    tables = ez_alloc_array(p->nops * EZ_MAX_OP_LOOKUPS + 1, sizeof *tables);
    if (tables == NULL)
        return EZ_ERR_NOMEM;

    uint64_t advice = 0, bytes = 0, work = 0;
    for (size_t i = 0; i < p->nops; i++) {
        ez_plan_op *op = &p->ops[i];
        if ((st = ez_plan_classify(p, op, &op->sched, d)) != EZ_OK)
            goto out;
        op->nlookups = 0;
        memset(op->lookups, 0, sizeof op->lookups);
        op->advice_elems = 0;
        unsigned nevals = 0;
        if ((st = recipe(p, op, &nevals)) != EZ_OK) {
            ez_diag_set(d, "'%s': too many lookup tables in one op", op->label);
            goto out;
        }
        op->est_proof_bytes = (uint64_t)op->sched.nvars * op->sched.degree * EZ_EVAL_BYTES +
                              (uint64_t)nevals * EZ_EVAL_BYTES;
        advice = sat_add(advice, op->advice_elems);
        bytes = sat_add(bytes, op->est_proof_bytes);
        /* sumcheck working set: every operand folded to extension elements, twice */
        uint64_t w = 0;
        for (unsigned k = 0; k < op->nin; k++)
            w = sat_add(w, operand_numel(p, op, k));
        w = sat_mul(sat_add(w, op->advice_elems), 2 * EZ_EVAL_BYTES);
        if (w > work)
            work = w;
        for (unsigned l = 0; l < op->nlookups; l++) {
            const ez_plan_lookup *lk = &op->lookups[l];
            size_t t = 0;
            while (t < ntables && !(tables[t].table == lk->table && tables[t].func == lk->func &&
                                    tables[t].in_scale == lk->in_scale && tables[t].out_scale == lk->out_scale))
                t++;
            if (t == ntables) {
                tables[t] = (table_use){lk->table, lk->func, lk->in_scale, lk->out_scale, 0};
                ntables++;
            }
            tables[t].rows = sat_add(tables[t].rows, lk->count);
        }
    }
    /* lookups: every table's multiplicities are committed advice; one GKR proof per table */
    uint64_t lookup_mem = 0;
    for (size_t t = 0; t < ntables; t++) {
        advice = sat_add(advice, EZ_PLAN_TABLE_ROWS);
        /* function tables are looked up as (input, output[, indicator]) rows */
        unsigned width = tables[t].table == EZ_LOOKUP_RANGE16 ? 1 : tables[t].func == EZ_FN_EXP ? 3 : 2;
        bytes = sat_add(bytes, logup_bytes(tables[t].rows, width));
        uint64_t m = sat_mul(80, (uint64_t)1 << ez_plan_log2_ceil(tables[t].rows));
        if (m > lookup_mem)
            lookup_mem = m;
    }
    /* the advice commitment (root + one batched opening) and the weight opening */
    uint64_t weights = 0, acts = 0;
    for (size_t t = 0; t < p->ntensors; t++) {
        uint64_t n = ez_plan_tensor_numel(&p->tensors[t]);
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            weights = sat_add(weights, n);
        else
            acts = sat_add(acts, n);
    }
    bytes = sat_add(bytes, pcs_bytes(advice));
    bytes = sat_add(bytes, pcs_bytes(weights));
    p->total_advice_elems = advice;
    p->est_proof_bytes = bytes;
    /* trace (8 B per value), weights and advice with their rate-1/4 codewords (5 x 8 B),
     * the largest sumcheck working set and the largest lookup tree */
    uint64_t mem = sat_mul(acts, 8);
    mem = sat_add(mem, sat_mul(weights, 40));
    mem = sat_add(mem, sat_mul(advice, 40));
    mem = sat_add(mem, work > lookup_mem ? work : lookup_mem);
    p->est_prover_mem_bytes = mem;
out:
    free(tables);
    return st;
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
        if (!same) {
            ez_diag_set(d, "op %zu ('%s'): the EqSchedule does not match its equation", i, op->label);
            return EZ_ERR_FORMAT;
        }
        if (op->nlookups > EZ_MAX_OP_LOOKUPS) {
            ez_diag_set(d, "op %zu: %u lookups exceed %d", i, op->nlookups, EZ_MAX_OP_LOOKUPS);
            return EZ_ERR_FORMAT;
        }
        for (unsigned l = 0; l < op->nlookups; l++) {
            const ez_plan_lookup *lk = &op->lookups[l];
            if ((unsigned)lk->table > EZ_LOOKUP_FUNC || (unsigned)lk->func > EZ_FN_LAST ||
                (lk->table == EZ_LOOKUP_FUNC) != (lk->func != EZ_FN_NONE) || lk->count == 0 ||
                (lk->table == EZ_LOOKUP_RANGE16 && (lk->in_scale != 0 || lk->out_scale != 0)) ||
                lk->count > EZ_PLAN_MAX_NUMEL * 64 || lk->in_scale < -64 || lk->in_scale > 64 ||
                lk->out_scale < 0 || lk->out_scale > 62) {
                ez_diag_set(d, "op %zu: lookup %u is malformed", i, l);
                return EZ_ERR_FORMAT;
            }
        }
    }
    return EZ_OK;
}

/* lower — checked program to op graph (lower.h). */
#include "compiler/lower.h"

#include "compiler/builtins.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/schedule.h"

/* ---- contraction order ------------------------------------------------------------- */

static uint64_t set_size(uint32_t set, const uint64_t *size, unsigned nidx)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < nidx; i++)
        if ((set >> i) & 1) {
            if (n && size[i] > UINT64_MAX / n)
                return UINT64_MAX;
            n *= size[i];
        }
    return n;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

typedef struct {
    unsigned n;
    uint64_t *cost;
    uint32_t *set, *split;
    ez_contraction_order *order;
} dp_ctx;

/* Emit the steps of subset S (post-order); returns its slot. */
static unsigned dp_emit(dp_ctx *c, uint32_t S)
{
    if ((S & (S - 1)) == 0)
        return (unsigned)__builtin_ctz(S);
    unsigned a = dp_emit(c, c->split[S]);
    unsigned b = dp_emit(c, S & ~c->split[S]);
    unsigned k = c->order->nsteps++;
    c->order->step[k][0] = a;
    c->order->step[k][1] = b;
    c->order->keep[k] = c->set[S];
    return c->n + k;
}

ez_status ez_lower_contraction_order(ez_contraction_order *order, const uint32_t *factor_idx, unsigned n,
                                     uint32_t out_idx, const uint64_t *idx_size, unsigned nidx)
{
    if (n < 2 || n > EZ_LOWER_MAX_FACTORS || nidx > 32)
        return EZ_ERR_INVALID;
    memset(order, 0, sizeof *order);
    if (n <= EZ_LOWER_EXACT_FACTORS) {
        size_t m = (size_t)1 << n;
        dp_ctx c = {n, ez_alloc_array(m, sizeof(uint64_t)), ez_alloc_array(m, sizeof(uint32_t)),
                    ez_alloc_array(m, sizeof(uint32_t)), order};
        uint32_t *idx = ez_alloc_array(m, sizeof(uint32_t));
        ez_status st = EZ_OK;
        if (!c.cost || !c.set || !c.split || !idx) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        for (uint32_t S = 1; S < m; S++) {
            unsigned low = (unsigned)__builtin_ctz(S);
            idx[S] = idx[S & (S - 1)] | factor_idx[low];
        }
        uint32_t all = (uint32_t)(m - 1);
        for (uint32_t S = 1; S < m; S++) {
            if ((S & (S - 1)) == 0) {
                c.set[S] = idx[S]; /* a factor enters its first step whole */
                continue;
            }
            /* the result keeps what the output or a later factor still needs */
            c.set[S] = idx[S] & (out_idx | idx[all & ~S]);
            uint32_t low = S & -S;
            uint64_t best = UINT64_MAX;
            uint32_t best_a = 0;
            /* A ranges over proper subsets of S containing S's lowest factor */
            for (uint32_t A = (S - 1) & S; A; A = (A - 1) & S) {
                if (!(A & low))
                    continue;
                uint32_t B = S & ~A;
                uint64_t cost = add_sat(add_sat(c.cost[A], c.cost[B]), set_size(c.set[A] | c.set[B], idx_size, nidx));
                if (cost < best || (cost == best && A < best_a)) {
                    best = cost;
                    best_a = A;
                }
            }
            c.cost[S] = best;
            c.split[S] = best_a;
        }
        order->cost = c.cost[all];
        dp_emit(&c, all);
    out:
        free(c.cost);
        free(c.set);
        free(c.split);
        free(idx);
        return st;
    }
    /* greedy: the cheapest next pair, until one slot remains */
    uint32_t set[2 * EZ_LOWER_MAX_FACTORS];
    unsigned slot[2 * EZ_LOWER_MAX_FACTORS];
    unsigned nact = n;
    for (unsigned i = 0; i < n; i++) {
        set[i] = factor_idx[i];
        slot[i] = i;
    }
    while (nact > 1) {
        unsigned bi = 0, bj = 1;
        uint64_t best = UINT64_MAX;
        for (unsigned i = 0; i < nact; i++)
            for (unsigned j = i + 1; j < nact; j++) {
                uint64_t cost = set_size(set[i] | set[j], idx_size, nidx);
                if (cost < best) {
                    best = cost;
                    bi = i;
                    bj = j;
                }
            }
        uint32_t others = out_idx;
        for (unsigned i = 0; i < nact; i++)
            if (i != bi && i != bj)
                others |= set[i];
        unsigned k = order->nsteps++;
        order->step[k][0] = slot[bi];
        order->step[k][1] = slot[bj];
        order->keep[k] = (set[bi] | set[bj]) & others;
        order->cost = add_sat(order->cost, best);
        set[bi] = order->keep[k];
        slot[bi] = n + k;
        set[bj] = set[nact - 1];
        slot[bj] = slot[nact - 1];
        nact--;
    }
    return EZ_OK;
}

/* ---- lowering -------------------------------------------------------------------- */

/* An operand as the op sees it: a tensor and, per axis, a statement index or a fixed
 * position. */
typedef struct {
    unsigned tensor;
    unsigned rank;
    ez_axis axes[EZ_MAX_RANK];
} operand;

typedef struct {
    const ez_program *prog;
    ez_plan *p;
    size_t cap_tensors, cap_ops;
    const ez_stmt *st;
    unsigned ntmp; /* temporaries made for the current statement */
    ez_diag *d;
} lctx;

static ez_status bound_u64(lctx *c, const mpz_t b, uint64_t *out)
{
    if (mpz_sgn(b) < 0 || mpz_sizeinbase(b, 2) > 62) {
        ez_diag_set(c->d, "line %d: a bound of '%s' is outside the field's safe range", c->st->span.first_line,
                    c->p->tensors[c->st->def].name);
        return EZ_ERR_NUMERIC;
    }
    *out = (uint64_t)mpz_get_ui(b);
    return EZ_OK;
}

/* Grows the array a of *n elements of `elem` bytes (capacity *cap) by one zeroed element,
 * its index in *id. Returns the array, which may have moved, or NULL when out of memory
 * (a is then unchanged). */
static void *append_zeroed(void *a, size_t *n, size_t *cap, size_t elem, unsigned *id)
{
    char *room = ez_array_room(a, *n, cap, elem, 16);
    if (room != NULL) {
        *id = (unsigned)*n;
        memset(room + elem * (*n)++, 0, elem);
    }
    return room;
}

static ez_plan_tensor *new_tensor(lctx *c, unsigned *id)
{
    ez_plan_tensor *a = append_zeroed(c->p->tensors, &c->p->ntensors, &c->cap_tensors, sizeof *a, id);
    if (a == NULL)
        return NULL;
    c->p->tensors = a;
    a[*id].producer = -1;
    return &a[*id];
}

static ez_plan_op *new_op(lctx *c, unsigned *id)
{
    ez_plan_op *a = append_zeroed(c->p->ops, &c->p->nops, &c->cap_ops, sizeof *a, id);
    if (a == NULL)
        return NULL;
    c->p->ops = a;
    a[*id].mul = 1;
    return &a[*id];
}

/* A temporary for an inner node: "<defined name>.<k>", the node's index list as shape. */
static ez_status new_temp(lctx *c, unsigned nout, const unsigned *out, unsigned scale, unsigned bits,
                          uint64_t bound, unsigned *id)
{
    const ez_plan_tensor *def = &c->p->tensors[c->st->def];
    char name[EZ_MAX_NAME];
    int len = snprintf(name, sizeof name, "%s.%u", def->name, ++c->ntmp);
    if (len < 0 || (size_t)len >= sizeof name) {
        ez_diag_set(c->d, "line %d: the name '%s' is too long for a temporary", c->st->span.first_line, def->name);
        return EZ_ERR_INVALID;
    }
    char source[EZ_MAX_NAME];
    memcpy(source, def->source_name, sizeof source);
    ez_plan_tensor *t = new_tensor(c, id);
    if (t == NULL)
        return EZ_ERR_NOMEM;
    memcpy(t->name, name, sizeof name);
    memcpy(t->source_name, source, sizeof source);
    t->kind = EZ_TENSOR_ACT;
    t->rank = nout;
    for (unsigned a = 0; a < nout; a++)
        t->dims[a] = c->st->idx[out[a]].size;
    t->scale = scale;
    t->bits = bits;
    t->bound = bound;
    return EZ_OK;
}

/* ---- equations (human-readable, for `info` and messages) ---- */

typedef struct {
    char *buf;
    size_t cap, len;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->len >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len = b->len + (size_t)n < b->cap ? b->len + (size_t)n : b->cap;
}

static void sb_ref(sbuf *b, const lctx *c, const ez_plan_op *op, unsigned k)
{
    const ez_plan_tensor *t = &c->p->tensors[op->in[k]];
    sb_printf(b, "%s[", t->name);
    for (unsigned a = 0; a < t->rank; a++) {
        if (a)
            sb_printf(b, ",");
        if ((op->in_fixed[k] >> a) & 1)
            sb_printf(b, "%llu", (unsigned long long)op->in_pos[k][a]);
        else if (op->kind == EZ_OP_GATHER && k == 0 && a == 0)
            sb_printf(b, "%s[%s]", c->p->tensors[op->in[1]].name, op->idx_name[op->in_axes[1][0]]);
        else
            sb_printf(b, "%s", op->idx_name[op->in_axes[k][a]]);
    }
    sb_printf(b, "]");
}

static void render_equation(const lctx *c, ez_plan_op *op)
{
    sbuf b = {op->equation, sizeof op->equation, 0};
    const ez_plan_tensor *o = &c->p->tensors[op->out];
    sb_printf(&b, "%s[", o->name);
    for (unsigned a = 0; a < o->rank; a++)
        sb_printf(&b, "%s%s", a ? "," : "", op->idx_name[op->out_axes[a]]);
    sb_printf(&b, "] = ");
    switch (op->kind) {
    case EZ_OP_EINSUM:
        sb_ref(&b, c, op, 0);
        if (op->nin == 2) {
            sb_printf(&b, " * ");
            sb_ref(&b, c, op, 1);
        }
        if (op->mul != 1)
            sb_printf(&b, " * %lld", (long long)op->mul);
        break;
    case EZ_OP_ADD:
        for (unsigned k = 0; k < op->nin; k++) {
            int64_t cf = op->coef[k];
            if (k)
                sb_printf(&b, cf < 0 ? " - " : " + ");
            else if (cf < 0)
                sb_printf(&b, "-");
            uint64_t m = cf < 0 ? (uint64_t)0 - (uint64_t)cf : (uint64_t)cf;
            if (m != 1)
                sb_printf(&b, "%llu*", (unsigned long long)m);
            sb_ref(&b, c, op, k);
        }
        break;
    case EZ_OP_GATHER:
        sb_ref(&b, c, op, 0);
        break;
    default: {
        /* a built-in: name[axes](operand), a fused causal mask written out */
        const ez_builtin *bi = ez_builtin_of(op->kind, op->func);
        sb_printf(&b, "%s", bi->name);
        if (bi->naxes == 2)
            sb_printf(&b, "[%s,%s]", op->idx_name[op->mask_row], op->idx_name[op->mask_col]);
        else if (bi->naxes == 1)
            sb_printf(&b, "[%s]", op->idx_name[op->axis]);
        sb_printf(&b, "(");
        if (op->masked)
            sb_printf(&b, "causal[%s,%s](", op->idx_name[op->mask_row], op->idx_name[op->mask_col]);
        sb_ref(&b, c, op, 0);
        sb_printf(&b, op->masked ? "))" : ")");
        break;
    }
    }
    if (op->shift)
        sb_printf(&b, " >> %u", op->shift);
    /* a truncated equation ends in "..." so nobody mistakes it for the whole */
    if (b.len >= b.cap - 1 && b.cap > 4)
        memcpy(b.buf + b.cap - 4, "...", 4);
}

/* ---- ops ---- */

/* Map the statement's index ids used by an op to the op's own dense ids, in statement
 * order (so an op's index names read as in the source). */
typedef struct {
    uint32_t used; /* statement ids (bit i) */
    int local[EZ_MAX_IDX];
} idxmap;

static void map_use(idxmap *m, unsigned id)
{
    m->used |= (uint32_t)1 << id;
}

static ez_status map_finish(lctx *c, idxmap *m, ez_plan_op *op)
{
    op->nidx = 0;
    for (unsigned i = 0; i < c->st->nidx; i++) {
        m->local[i] = -1;
        if ((m->used >> i) & 1) {
            m->local[i] = (int)op->nidx;
            memcpy(op->idx_name[op->nidx], c->st->idx[i].name, EZ_MAX_NAME);
            op->idx_size[op->nidx] = c->st->idx[i].size;
            op->nidx++;
        }
    }
    return EZ_OK;
}

static void set_operand(ez_plan_op *op, unsigned k, const operand *o, const idxmap *m)
{
    op->in[k] = o->tensor;
    for (unsigned a = 0; a < o->rank; a++) {
        if (o->axes[a].kind == EZ_AXIS_FIXED) {
            op->in_fixed[k] |= (uint8_t)(1u << a);
            op->in_pos[k][a] = o->axes[a].pos;
            op->in_axes[k][a] = 0;
        } else if (o->axes[a].kind == EZ_AXIS_INDEX) {
            op->in_axes[k][a] = (unsigned)m->local[o->axes[a].idx];
        }
    }
}

static void use_operand(idxmap *m, const operand *o)
{
    for (unsigned a = 0; a < o->rank; a++)
        if (o->axes[a].kind == EZ_AXIS_INDEX)
            map_use(m, o->axes[a].idx);
}

static ez_status lower_operand(lctx *c, const ez_node *n, operand *o);

/* Emit the op(s) computing node n into tensor `dest`. */
static ez_status emit(lctx *c, const ez_node *n, unsigned dest);

static ez_status operand_of_node(lctx *c, const ez_node *n, unsigned tensor, operand *o)
{
    o->tensor = tensor;
    o->rank = n->nout;
    for (unsigned a = 0; a < n->nout; a++) {
        o->axes[a].kind = EZ_AXIS_INDEX;
        o->axes[a].idx = n->out[a];
        o->axes[a].pos = 0;
    }
    (void)c;
    return EZ_OK;
}

static ez_status lower_operand(lctx *c, const ez_node *n, operand *o)
{
    if (n->kind == EZ_NODE_REF) {
        o->tensor = n->tensor;
        o->rank = n->rank;
        memcpy(o->axes, n->axes, sizeof o->axes);
        return EZ_OK;
    }
    uint64_t bound;
    ez_status st = bound_u64(c, n->bound, &bound);
    unsigned t;
    if (st == EZ_OK)
        st = new_temp(c, n->nout, n->out, n->scale, n->bits, bound, &t);
    if (st == EZ_OK)
        st = emit(c, n, t);
    if (st == EZ_OK)
        st = operand_of_node(c, n, t, o);
    return st;
}

/* Finish an op: output axes, producer link, equation. */
static void finish_op(lctx *c, ez_plan_op *op, unsigned opid, unsigned dest, const ez_node *n, const idxmap *m)
{
    op->out = dest;
    for (unsigned a = 0; a < n->nout; a++)
        op->out_axes[a] = (unsigned)m->local[n->out[a]];
    memcpy(op->label, c->p->tensors[dest].name, EZ_MAX_NAME);
    op->line = c->st->span.first_line > 0 ? (unsigned)c->st->span.first_line : 0;
    op->out_scale = c->p->tensors[dest].scale;
    c->p->tensors[dest].producer = (int)opid;
    render_equation(c, op);
}

/* A product of nf > 2 factors: pairwise contractions in the cheapest order; the last
 * step carries the multiplier and the rescale. */
static ez_status emit_split_product(lctx *c, const ez_node *n, unsigned dest)
{
    ez_status st = EZ_OK;
    operand ops[2 * EZ_LOWER_MAX_FACTORS];
    uint32_t sets[2 * EZ_LOWER_MAX_FACTORS] = {0};
    unsigned scales[2 * EZ_LOWER_MAX_FACTORS];
    uint64_t size[32];
    uint32_t out_set = 0;
    mpz_t bnd[2 * EZ_LOWER_MAX_FACTORS], acc;
    unsigned nf = n->nin;
    if (nf > EZ_LOWER_MAX_FACTORS || c->st->nidx > 32)
        return EZ_ERR_INVALID;
    for (unsigned i = 0; i < 2 * nf; i++)
        mpz_init(bnd[i]);
    mpz_init(acc);
    for (unsigned i = 0; i < c->st->nidx; i++)
        size[i] = c->st->idx[i].size;
    for (unsigned a = 0; a < n->nout; a++)
        out_set |= (uint32_t)1 << n->out[a];
    for (unsigned k = 0; k < nf && st == EZ_OK; k++) {
        st = lower_operand(c, n->in[k], &ops[k]);
        for (unsigned a = 0; a < ops[k].rank; a++)
            if (ops[k].axes[a].kind == EZ_AXIS_INDEX)
                sets[k] |= (uint32_t)1 << ops[k].axes[a].idx;
        if (st == EZ_OK) {
            const ez_plan_tensor *t = &c->p->tensors[ops[k].tensor];
            mpz_set_ui(bnd[k], (unsigned long)t->bound);
            scales[k] = t->scale;
        }
    }
    ez_contraction_order ord;
    if (st == EZ_OK)
        st = ez_lower_contraction_order(&ord, sets, nf, out_set, size, c->st->nidx);
    for (unsigned k = 0; k < nf - 1 && st == EZ_OK; k++) {
        unsigned a = ord.step[k][0], b = ord.step[k][1], s = nf + k;
        bool last = k == nf - 2;
        /* the step's result: kept indices in statement order, or the node's out order */
        ez_node tmp;
        memset(&tmp, 0, sizeof tmp);
        if (last) {
            tmp.nout = n->nout;
            memcpy(tmp.out, n->out, sizeof tmp.out);
        } else {
            for (unsigned i = 0; i < c->st->nidx; i++)
                if ((ord.keep[k] >> i) & 1)
                    tmp.out[tmp.nout++] = i;
        }
        unsigned t = dest;
        if (!last) {
            /* exact bound: product of the operand bounds times the summed extents */
            mpz_mul(bnd[s], bnd[a], bnd[b]);
            uint32_t summed = (sets[a] | sets[b]) & ~ord.keep[k];
            for (unsigned i = 0; i < c->st->nidx; i++)
                if ((summed >> i) & 1)
                    mpz_mul_ui(bnd[s], bnd[s], (unsigned long)size[i]);
            uint64_t bu;
            if ((st = bound_u64(c, bnd[s], &bu)) != EZ_OK)
                break;
            unsigned bits = 1;
            while (bits < 63 && (bu >> (bits - 1)) != 0)
                bits++;
            scales[s] = scales[a] + scales[b];
            if ((st = new_temp(c, tmp.nout, tmp.out, scales[s] > 62 ? 62 : scales[s], bits, bu, &t)) != EZ_OK)
                break;
        }
        idxmap m = {0};
        use_operand(&m, &ops[a]);
        use_operand(&m, &ops[b]);
        for (unsigned x = 0; x < tmp.nout; x++)
            map_use(&m, tmp.out[x]);
        unsigned opid;
        ez_plan_op *op = new_op(c, &opid);
        if (op == NULL) {
            st = EZ_ERR_NOMEM;
            break;
        }
        map_finish(c, &m, op);
        op->kind = EZ_OP_EINSUM;
        op->nin = 2;
        set_operand(op, 0, &ops[a], &m);
        set_operand(op, 1, &ops[b], &m);
        op->in_scale = c->p->tensors[ops[a].tensor].scale;
        if (last) {
            op->mul = n->mul;
            op->shift = n->shift;
        }
        finish_op(c, op, opid, t, &tmp, &m);
        sets[s] = ord.keep[k];
        operand_of_node(c, &tmp, t, &ops[s]);
    }
    for (unsigned i = 0; i < 2 * nf; i++)
        mpz_clear(bnd[i]);
    mpz_clear(acc);
    return st;
}

static ez_status emit(lctx *c, const ez_node *n, unsigned dest)
{
    ez_status st = EZ_OK;
    operand ops[EZ_MAX_OPERANDS];
    unsigned nin = 0;
    const ez_node *fused_causal = NULL;
    if (n->kind == EZ_NODE_PRODUCT && n->nin > 2)
        return emit_split_product(c, n, dest);
    const ez_builtin *bi = n->kind == EZ_NODE_FUNC ? ez_builtin_of(n->op, n->func) : NULL;
    if (bi && bi->fuses_causal && n->nin == 1 && n->in[0]->kind == EZ_NODE_FUNC && n->in[0]->op == EZ_OP_CAUSAL &&
        n->in[0]->mask_col == n->axis)
        fused_causal = n->in[0]; /* softmax[t](causal[s, t](e)): one masked softmax */
    if (n->nin > EZ_MAX_OPERANDS)
        return EZ_ERR_INVALID;
    int64_t fold_mul[EZ_MAX_OPERANDS];
    for (unsigned k = 0; k < n->nin && st == EZ_OK; k++) {
        const ez_node *child = fused_causal && k == 0 ? fused_causal->in[0] : n->in[k];
        fold_mul[k] = 1;
        /* a term `3 * x[..]` of a sum: fold the constant into the ADD coefficient
         * instead of a separate scaling op (exact: no shift, nothing summed) */
        if (n->kind == EZ_NODE_ADD && child->kind == EZ_NODE_PRODUCT && child->nin == 1 && child->nsum == 0 &&
            child->shift == 0 && child->mul != 0 && n->coef[k] != 0 &&
            (child->mul < 0 ? -(uint64_t)child->mul : (uint64_t)child->mul) <=
                (UINT64_C(1) << 62) / (n->coef[k] < 0 ? -(uint64_t)n->coef[k] : (uint64_t)n->coef[k])) {
            fold_mul[k] = child->mul;
            child = child->in[0];
        }
        st = lower_operand(c, child, &ops[k]);
        nin++;
    }
    if (st != EZ_OK)
        return st;

    idxmap m = {0};
    for (unsigned k = 0; k < nin; k++)
        use_operand(&m, &ops[k]);
    for (unsigned a = 0; a < n->nout; a++)
        map_use(&m, n->out[a]);
    if (bi) {
        if (bi->naxes == 1)
            map_use(&m, n->axis);
        if (bi->naxes == 2 || fused_causal) {
            const ez_node *cz = fused_causal ? fused_causal : n;
            map_use(&m, cz->mask_row);
            map_use(&m, cz->mask_col);
        }
    }
    unsigned opid;
    ez_plan_op *op = new_op(c, &opid);
    if (op == NULL)
        return EZ_ERR_NOMEM;
    map_finish(c, &m, op);
    op->nin = nin;
    for (unsigned k = 0; k < nin; k++)
        set_operand(op, k, &ops[k], &m);
    op->in_scale = c->p->tensors[ops[0].tensor].scale;
    switch (n->kind) {
    case EZ_NODE_PRODUCT:
        op->kind = EZ_OP_EINSUM;
        op->mul = n->mul;
        op->shift = n->shift;
        break;
    case EZ_NODE_ADD:
        op->kind = EZ_OP_ADD;
        for (unsigned k = 0; k < nin; k++)
            op->coef[k] = n->coef[k] * fold_mul[k];
        op->shift = n->shift;
        op->checked = n->shift == 0 && n->range_checked;
        break;
    case EZ_NODE_GATHER: {
        op->kind = EZ_OP_GATHER;
        /* the vocabulary index: contracted against the public one-hot matrix */
        if (op->nidx == EZ_MAX_IDX) {
            ez_diag_set(c->d, "line %d: too many indices for one op", c->st->span.first_line);
            return EZ_ERR_INVALID;
        }
        unsigned v = op->nidx++;
        snprintf(op->idx_name[v], EZ_MAX_NAME, "#%.60s", c->p->tensors[ops[1].tensor].source_name);
        op->idx_size[v] = c->p->tensors[ops[0].tensor].dims[0];
        op->in_axes[0][0] = v;
        break;
    }
    case EZ_NODE_FUNC:
        op->kind = n->op;
        op->func = bi->func;
        if (bi->naxes == 1)
            op->axis = (unsigned)m.local[n->axis];
        if (bi->naxes == 2 || fused_causal) {
            const ez_node *cz = fused_causal ? fused_causal : n;
            op->masked = fused_causal != NULL;
            op->mask_row = (unsigned)m.local[cz->mask_row];
            op->mask_col = (unsigned)m.local[cz->mask_col];
        }
        if (n->op == EZ_OP_ROPE)
            op->shift = n->shift; /* its fused rescale (sema) */
        break;
    case EZ_NODE_REF:
        return EZ_ERR_INTERNAL; /* sema: a REF is never computed */
    }
    finish_op(c, op, opid, dest, n, &m);
    return st;
}

ez_status ez_lower(ez_plan *out, const ez_program *prog, const char *fallback_model, ez_diag *d)
{
    ez_status st = EZ_OK;
    lctx c = {prog, out, 0, 0, NULL, 0, d};
    ez_plan_init(out);
    const char *model = prog->model[0] ? prog->model : fallback_model && fallback_model[0] ? fallback_model : "model";
    snprintf(out->model, sizeof out->model, "%s", model);

    for (size_t t = 0; t < prog->ntensors; t++) {
        const ez_tensor *src = &prog->tensors[t];
        unsigned id;
        ez_plan_tensor *x = new_tensor(&c, &id);
        if (x == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        memcpy(x->name, src->name, EZ_MAX_NAME);
        memcpy(x->source_name, src->source_name, EZ_MAX_NAME);
        x->kind = src->kind;
        x->rank = src->rank;
        memcpy(x->dims, src->dims, sizeof x->dims);
        x->scale = src->scale;
        x->bits = src->bits;
        x->token_limit = src->kind == EZ_TENSOR_TOKENS ? src->token_limit : 0;
        x->is_output = src->is_output;
        if (mpz_sgn(src->bound) < 0 || mpz_sizeinbase(src->bound, 2) > 62) {
            ez_diag_set(d, "tensor '%s': bound outside the field's safe range", src->name);
            st = EZ_ERR_NUMERIC;
            goto out;
        }
        x->bound = (uint64_t)mpz_get_ui(src->bound);
    }
    for (size_t s = 0; s < prog->nstmts; s++) {
        c.st = &prog->stmts[s];
        c.ntmp = 0;
        if (c.st->root == NULL || c.st->def >= out->ntensors) {
            st = EZ_ERR_INTERNAL;
            goto out;
        }
        if ((st = emit(&c, c.st->root, c.st->def)) != EZ_OK)
            goto out;
    }
    ez_diag why;
    if ((st = ez_plan_validate_graph(out, &why)) != EZ_OK) {
        ez_diag_set(d, "internal error: the lowered plan is invalid: %s", why.msg);
        st = EZ_ERR_INTERNAL;
    }
out:
    if (st != EZ_OK)
        ez_plan_clear(out);
    return st;
}

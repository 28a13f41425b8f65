/* sema_reduce — steps 2 and 3 of checking a statement (sema.c): the summation rules
 * (each index not on the left is summed at the smallest subexpression that holds all
 * of its occurrences), products of three or more factors split pairwise in the
 * cheapest order, and every node's scale, rescale shift and integer multiplier.
 * Contracts in sema_internal.h. */
#include "compiler/sema_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/bounds.h"

/* ---- statements: reduce + scales --------------------------------------------------- */

uint32_t ez_sema_node_outset(const ez_node *n)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < n->nout; i++)
        m |= 1u << n->out[i];
    return m;
}

/* out[] of a node from an ordered candidate list filtered by a set. */
static void set_out(ez_node *n, const unsigned *order, unsigned norder, uint32_t keep)
{
    n->nout = 0;
    uint32_t seen = 0;
    for (unsigned i = 0; i < norder; i++) {
        unsigned id = order[i];
        if ((keep & (1u << id)) && !(seen & (1u << id))) {
            n->out[n->nout++] = id;
            seen |= 1u << id;
        }
    }
}

static void collect_order(const ez_node *const *ins, unsigned nin, unsigned *order, unsigned *norder)
{
    *norder = 0;
    uint32_t seen = 0;
    for (unsigned k = 0; k < nin; k++)
        for (unsigned i = 0; i < ins[k]->nout; i++) {
            unsigned id = ins[k]->out[i];
            if (!(seen & (1u << id))) {
                seen |= 1u << id;
                order[(*norder)++] = id;
            }
        }
}

/* A constant factor as integer multiplier and scale adjustment: value * cst ==
 * value * mul / 2^extra, exactly for powers of two and integers; otherwise mul has
 * `sig` significant bits (relative error below 2^-sig). */
static void const_to_fixed(double cst, int sig, int64_t *mul, int *extra)
{
    int e;
    double f = frexp(fabs(cst), &e); /* |cst| = f * 2^e, f in [0.5, 1) */
    int sg = cst < 0 ? -1 : 1;
    if (f == 0.5) {
        *mul = sg;
        *extra = -(e - 1);
        return;
    }
    int64_t m;
    int x;
    if (cst == floor(cst) && fabs(cst) < 9.0e15) {
        m = (int64_t)fabs(cst);
        x = 0;
    } else {
        x = (sig - 1) - (e - 1);
        if (x < 0)
            x = 0;
        m = llround(ldexp(fabs(cst), x));
    }
    while (m != 0 && (m & 1) == 0) {
        m >>= 1;
        x--;
    }
    *mul = sg * m;
    *extra = x;
}

static bool shift_or_mul(ez_sema_ctx *c, ez_node *n, long acc_scale, unsigned target, int64_t *coef, unsigned ncoef)
{
    long sh = acc_scale - (long)target;
    if (sh >= 0) {
        n->shift = (unsigned)sh;
        return true;
    }
    n->shift = 0;
    if (-sh > 60)
        goto too_big;
    for (unsigned k = 0; k < ncoef; k++) {
        int64_t r;
        if (__builtin_mul_overflow(coef[k], (int64_t)1 << -sh, &r) || r > (INT64_C(1) << 61)
            || r < -(INT64_C(1) << 61))
            goto too_big;
        coef[k] = r;
    }
    return true;
too_big: {
    ez_diag_item *it = ez_sema_err(c, n->span, "this constant factor is too large for exact integer arithmetic");
    ez_diag_help(c->d, it, "keep constant factors below 2^61 after scaling");
    return false;
}
}

ez_node *ez_sema_make_product(ez_sema_ctx *c, ez_node **ins, unsigned nin, uint32_t keep, double cst, ez_span sp,
                                     bool tmp)
{
    ez_node *n = ez_sema_node_new(c, EZ_NODE_PRODUCT, sp);
    if (n == NULL)
        return NULL;
    unsigned order[EZ_MAX_IDX], norder;
    collect_order((const ez_node *const *)ins, nin, order, &norder);
    uint32_t all = 0;
    long acc_scale = 0;
    for (unsigned k = 0; k < nin; k++) {
        n->in[k] = ins[k];
        all |= ez_sema_node_outset(ins[k]);
        acc_scale += ins[k]->scale;
    }
    n->nin = nin;
    set_out(n, order, norder, keep & all);
    n->nsum = 0;
    for (unsigned i = 0; i < norder; i++)
        if (!(keep & (1u << order[i])))
            n->sum[n->nsum++] = order[i];
    n->split_tmp = tmp;
    int extra = 0;
    if (cst == 0) {
        ez_diag_item *it = ez_sema_err(c, sp, "multiplication by zero makes this expression constant");
        ez_diag_help(c->d, it, "remove the term");
        return NULL;
    }
    /* A non-power-of-two constant gets up to 16 significant bits, as many as the
     * accumulator's headroom below 2^62 allows (the operands' exact bounds times the
     * summed lengths), but at least 4. */
    int sig = 16;
    {
        mpz_t raw;
        mpz_init_set_ui(raw, 1);
        for (unsigned k = 0; k < nin; k++)
            mpz_mul(raw, raw, ins[k]->bound);
        for (unsigned i = 0; i < n->nsum; i++)
            mpz_mul_ui(raw, raw, c->st->idx[n->sum[i]].size);
        int avail = (EZ_BOUND_LIMIT_BITS - 1) - (int)ceil(ez_bound_log2(raw));
        mpz_clear(raw);
        if (avail < sig)
            sig = avail < 4 ? 4 : avail;
    }
    const_to_fixed(cst, sig, &n->mul, &extra);
    n->scale = c->st->scale;
    n->bits = c->st->bits;
    if (!shift_or_mul(c, n, acc_scale + extra, n->scale, &n->mul, 1))
        return NULL;
    n->range_checked = n->shift > 0;
    ez_bounds_node(c->p, c->st, n);
    return n;
}

/* Size of an index set: product of index sizes (as a double: only compared). */
static double set_cost(const ez_sema_ctx *c, uint32_t set)
{
    double r = 1;
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (set & (1u << i))
            r *= (double)c->st->idx[i].size;
    return r;
}

/* Split a product of k >= 3 factors into pairwise contractions, choosing the order that
 * minimises the total work, sum over contractions of the product of the sizes of all
 * indices involved (the integer inference cost). Dynamic programming over subsets. */
static ez_node *split_product(ez_sema_ctx *c, ez_node **f, unsigned k, uint32_t keep, double cst, ez_span sp)
{
    unsigned nsub = 1u << k;
    uint32_t fset[EZ_MAX_OPERANDS];
    for (unsigned i = 0; i < k; i++)
        fset[i] = ez_sema_node_outset(f[i]);
    double best[1u << EZ_MAX_OPERANDS];
    unsigned choice[1u << EZ_MAX_OPERANDS];
    uint32_t need[1u << EZ_MAX_OPERANDS];
    for (unsigned s = 1; s < nsub; s++) {
        uint32_t in = 0, outside = keep;
        for (unsigned i = 0; i < k; i++) {
            if (s & (1u << i))
                in |= fset[i];
            else
                outside |= fset[i];
        }
        need[s] = in & outside;
        if ((s & (s - 1)) == 0) {
            best[s] = 0;
            choice[s] = 0;
            continue;
        }
        best[s] = INFINITY;
        choice[s] = 0;
        for (unsigned a = (s - 1) & s; a; a = (a - 1) & s) {
            unsigned b = s ^ a;
            if (a < b)
                continue; /* each split once */
            double cost = best[a] + best[b] + set_cost(c, need[a] | need[b]);
            if (cost < best[s]) {
                best[s] = cost;
                choice[s] = a;
            }
        }
    }
    /* Build bottom-up with an explicit stack of subsets. */
    ez_node *built[1u << EZ_MAX_OPERANDS];
    memset(built, 0, sizeof(ez_node *) * nsub);
    for (unsigned i = 0; i < k; i++)
        built[1u << i] = f[i];
    unsigned stack[64], top = 0, full = nsub - 1;
    stack[top++] = full;
    while (top) {
        unsigned s = stack[top - 1];
        unsigned a = choice[s], b = s ^ a;
        if (!built[a]) {
            stack[top++] = a;
            continue;
        }
        if (!built[b]) {
            stack[top++] = b;
            continue;
        }
        top--;
        /* Operands in source order: the side holding the earlier factor first. */
        bool a_first = (a & -a) < (b & -b);
        ez_node *ins[2] = {a_first ? built[a] : built[b], a_first ? built[b] : built[a]};
        bool is_top = s == full;
        built[s] = ez_sema_make_product(c, ins, 2, is_top ? keep : need[s], is_top ? cst : 1.0, sp, !is_top);
        if (built[s] == NULL)
            return NULL;
    }
    return built[full];
}

/* True iff some product inside x (not looking into nested calls) has index i in two or
 * more factors, i.e. would contract i if i were summed there. */
static bool contracts_inside(const ez_pn *x, unsigned i)
{
    if (x->kind == EZ_PN_PROD) {
        unsigned with = 0;
        for (unsigned k = 0; k < x->nk; k++)
            with += x->k[k]->cnt[i] > 0;
        if (with >= 2)
            return true;
    }
    if (x->kind == EZ_PN_PROD || x->kind == EZ_PN_SUM)
        for (unsigned k = 0; k < x->nk; k++)
            if (contracts_inside(x->k[k], i))
                return true;
    return false;
}

/* Lower the pre-tree under `allowed` (the indices this subtree may keep). */
ez_node *ez_sema_reduce(ez_sema_ctx *c, const ez_pn *x, uint32_t allowed, const uint16_t *total)
{
    uint32_t alive = 0;
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (x->cnt[i] && x->cnt[i] < total[i])
            alive |= 1u << i;
    uint32_t keep = alive & allowed;
    ez_node *n = NULL;
    switch (x->kind) {
    case EZ_PN_CONST:
        ez_sema_err(c, x->span, "a constant cannot stand alone here");
        return NULL;
    case EZ_PN_REF:
    case EZ_PN_GATHER: {
        const ez_tensor *t = &c->p->tensors[x->tensor];
        ez_node *r = ez_sema_node_new(c, EZ_NODE_REF, x->span);
        if (r == NULL)
            return NULL;
        r->tensor = x->tensor;
        r->rank = t->rank;
        memcpy(r->axes, x->axes, sizeof r->axes);
        r->scale = t->scale;
        r->bits = t->bits;
        for (unsigned a = 0; a < t->rank; a++)
            if (x->axes[a].kind == EZ_AXIS_INDEX)
                r->out[r->nout++] = x->axes[a].idx;
        n = r;
        if (x->kind == EZ_PN_GATHER) {
            const ez_tensor *k = &c->p->tensors[x->tok];
            ez_node *tk = ez_sema_node_new(c, EZ_NODE_REF, x->span);
            ez_node *g = ez_sema_node_new(c, EZ_NODE_GATHER, x->span);
            if (tk == NULL || g == NULL)
                return NULL;
            tk->tensor = x->tok;
            tk->rank = k->rank;
            memcpy(tk->axes, x->tok_axes, sizeof tk->axes);
            tk->scale = 0;
            tk->bits = k->bits;
            for (unsigned a = 0; a < k->rank; a++)
                if (x->tok_axes[a].kind == EZ_AXIS_INDEX)
                    tk->out[tk->nout++] = x->tok_axes[a].idx;
            g->nin = 2;
            g->in[0] = r;
            g->in[1] = tk;
            g->scale = t->scale;
            g->bits = t->bits;
            for (unsigned i = 0; i < tk->nout; i++)
                g->out[g->nout++] = tk->out[i];
            for (unsigned i = 0; i < r->nout; i++)
                g->out[g->nout++] = r->out[i];
            n = g;
        }
        break;
    }
    case EZ_PN_CALL: {
        /* docs/language.md keeps an index that also occurs outside a function's argument. When
         * the argument multiplies two tensors over that index and the index is summed
         * later anyway (SwiGLU written as silu(x[s,d]*wg[d,f]) * (x[s,d]*wu[d,f])), the
         * literal reading applies the function before the sum: almost never what was
         * meant, and a large intermediate. Refuse it with both spellings in the help. */
        for (unsigned i = 0; i < c->st->nidx; i++) {
            const ez_pn *a = x->k[0];
            bool is_axis = false;
            for (unsigned k = 0; k < x->naxes; k++)
                is_axis |= x->axis[k] == i;
            if (a->cnt[i] == 0 || a->cnt[i] >= total[i] || (c->lhs_set & (1u << i)) || is_axis ||
                !contracts_inside(a, i))
                continue;
            const char *nm = c->st->idx[i].name;
            ez_diag_item *it = ez_sema_err(c, x->span,
                                           "index '%s' is multiplied inside the argument of %s and also used "
                                           "outside it, so %s would be applied before the sum over '%s'",
                                           nm, x->fname, x->fname, nm);
            ez_diag_help(c->d, it, "to sum '%s' inside %s, give its other uses another index name (e.g. '%s2'); "
                                   "to apply %s first, compute its argument in a separate statement",
                         nm, x->fname, nm, x->fname);
            return NULL;
        }
        ez_node *arg = ez_sema_reduce(c, x->k[0], ~0u, total);
        if (arg == NULL)
            return NULL;
        ez_node *f = ez_sema_node_new(c, EZ_NODE_FUNC, x->span);
        if (f == NULL)
            return NULL;
        f->op = x->bi->kind;
        f->func = x->bi->func;
        f->nin = 1;
        f->in[0] = arg;
        f->axis = x->axis[0];
        if (x->bi->naxes == 2) {
            f->mask_row = x->axis[0];
            f->mask_col = x->axis[1];
        }
        uint32_t argset = ez_sema_node_outset(arg);
        for (unsigned a = 0; a < x->naxes; a++)
            if (!(argset & (1u << x->axis[a]))) {
                /* Defensive: axes count as outside the operand, so they are never summed away. */
                ez_sema_err(c, x->span, "internal: axis of %s lost in its operand", x->fname);
                return NULL;
            }
        for (unsigned i = 0; i < arg->nout; i++) {
            unsigned id = arg->out[i];
            if (x->bi->drops_axis && id == x->axis[0])
                continue;
            f->out[f->nout++] = id;
        }
        f->bits = c->st->bits;
        switch (x->bi->scale) {
        case EZ_SCALE_INDEX: {
            uint64_t nax = c->st->idx[x->axis[0]].size;
            f->scale = 0;
            f->bits = ez_bitlen(nax > 1 ? nax - 1 : 1) + 1;
            if (f->bits < EZ_MIN_BITS)
                f->bits = EZ_MIN_BITS;
            break;
        }
        case EZ_SCALE_OPERAND:
            f->scale = arg->scale;
            f->bits = arg->bits;
            break;
        case EZ_SCALE_TARGET:
            f->scale = c->st->scale;
            break;
        }
        if (x->bi->kind == EZ_OP_ROPE) {
            /* the rotation pairs e with e + E/2; its accumulator has the operand's scale + 16 */
            uint64_t ext = c->st->idx[x->axis[1]].size;
            if (ext % 2 != 0) {
                ez_diag_item *it = ez_sema_err(c, x->span, "rope's rotary index '%s' ranges over %llu, an odd number",
                                       c->st->idx[x->axis[1]].name, (unsigned long long)ext);
                ez_diag_help(c->d, it, "rope rotates the pairs (e, e + E/2): the rotary axis needs an even size");
                return NULL;
            }
            if (arg->scale + EZ_ROPE_SCALE <= f->scale || arg->scale + EZ_ROPE_SCALE - f->scale > 62) {
                ez_diag_item *it = ez_sema_err(c, x->span, "rope's result scale %u must be below its operand's scale %u + %d",
                                       f->scale, arg->scale, EZ_ROPE_SCALE);
                ez_diag_help(c->d, it, "give the statement a smaller @scale");
                return NULL;
            }
            f->shift = arg->scale + EZ_ROPE_SCALE - f->scale;
        }
        n = f;
        break;
    }
    case EZ_PN_PROD: {
        ez_node *fs[EZ_MAX_OPERANDS];
        for (unsigned i = 0; i < x->nk; i++) {
            fs[i] = ez_sema_reduce(c, x->k[i], ~0u, total);
            if (fs[i] == NULL)
                return NULL;
        }
        if (x->nk >= 3)
            return split_product(c, fs, x->nk, keep, x->c, x->span);
        return ez_sema_make_product(c, fs, x->nk, keep, x->c, x->span, false);
    }
    case EZ_PN_SUM: {
        ez_node *a = ez_sema_node_new(c, EZ_NODE_ADD, x->span);
        if (a == NULL)
            return NULL;
        long common = 0;
        for (unsigned i = 0; i < x->nk; i++) {
            a->in[i] = ez_sema_reduce(c, x->k[i], keep, total);
            if (a->in[i] == NULL)
                return NULL;
            if ((long)a->in[i]->scale > common)
                common = a->in[i]->scale;
        }
        a->nin = x->nk;
        unsigned order[EZ_MAX_IDX], norder;
        collect_order((const ez_node *const *)a->in, a->nin, order, &norder);
        set_out(a, order, norder, ~0u);
        for (unsigned i = 0; i < x->nk; i++) {
            unsigned d = (unsigned)(common - (long)a->in[i]->scale);
            if (d > 60) {
                ez_diag_item *it = ez_sema_err(c, x->k[i]->span, "the scales of these terms differ by %u bits", d);
                ez_diag_help(c->d, it, "give the tensors closer @scale values");
                return NULL;
            }
            a->coef[i] = x->sign[i] * ((int64_t)1 << d);
        }
        a->scale = c->st->scale;
        a->bits = c->st->bits;
        if (!shift_or_mul(c, a, common, a->scale, a->coef, a->nin))
            return NULL;
        a->range_checked = a->shift > 0;
        ez_bounds_node(c->p, c->st, a);
        return a;
    }
    }
    if (n == NULL)
        return NULL;
    for (unsigned k = 0; k < n->nin; k++)
        if (n->in[k]->kind == EZ_NODE_REF)
            ez_bounds_node(c->p, c->st, n->in[k]);
    ez_bounds_node(c->p, c->st, n);
    /* REF, GATHER and FUNC: indices whose smallest enclosing subexpression is this one
     * are summed right here by a one-operand product. */
    uint32_t have = ez_sema_node_outset(n);
    if ((have & ~keep) != 0) {
        ez_node *ins[1] = {n};
        return ez_sema_make_product(c, ins, 1, keep, 1.0, x->span, false);
    }
    return n;
}

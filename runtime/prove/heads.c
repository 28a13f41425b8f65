/* heads — see heads.h. */
#include "config.h"

#include "runtime/prove/heads.h"

#include <string.h>

#include "lib/util.h"

/* Position of index i among axes[0..rank), or -1. */
static int pos_of(const unsigned *axes, unsigned rank, unsigned i)
{
    for (unsigned a = 0; a < rank; a++)
        if (axes[a] == i)
            return (int)a;
    return -1;
}

/* The free index of an operand that stays a row/column: the largest, ties the first. */
static int pick_row(const ez_plan_op *op, const unsigned *axes, unsigned rank, const bool *is_free)
{
    int best = -1;
    for (unsigned a = 0; a < rank; a++) {
        unsigned i = axes[a];
        if (is_free[i] && (best < 0 || op->idx_size[i] > op->idx_size[best]))
            best = (int)i;
    }
    return best;
}

/* The last k axes of x (rank rx) equal the last k axes of y (rank ry), in order. */
static bool same_tail(const unsigned *x, unsigned rx, const unsigned *y, unsigned ry, unsigned k)
{
    if (k > rx || k > ry)
        return false;
    for (unsigned j = 0; j < k; j++)
        if (x[rx - k + j] != y[ry - k + j])
            return false;
    return true;
}

static void set_flat(const ez_plan_op *op, const unsigned *axes, unsigned k, ez_heads *h)
{
    h->nflat = k;
    h->flat_len = 1;
    h->flat_is_split = true;
    for (unsigned j = 0; j < k; j++) {
        h->flat[j] = axes[j];
        h->flat_len *= op->idx_size[axes[j]];
        if (j > 0 && (op->idx_size[axes[j]] & (op->idx_size[axes[j]] - 1)) != 0)
            h->flat_is_split = false;
    }
    h->flat_vars = ez_log2_ceil(h->flat_len);
}

void ez_heads_classify(const ez_plan_op *op, const ez_plan_tensor *tensors, ez_heads *h)
{
    memset(h, 0, sizeof *h);
    if (op->kind != EZ_OP_EINSUM || op->nin != 2 || op->nidx > EZ_MAX_IDX)
        return;
    const ez_plan_tensor *ta = &tensors[op->in[0]], *tb = &tensors[op->in[1]], *to = &tensors[op->out];
    const unsigned *aa = op->in_axes[0], *ab = op->in_axes[1], *ao = op->out_axes;
    bool in_a[EZ_MAX_IDX] = {false}, in_b[EZ_MAX_IDX] = {false}, in_o[EZ_MAX_IDX] = {false};
    for (unsigned a = 0; a < ta->rank; a++)
        in_a[aa[a]] = true;
    for (unsigned a = 0; a < tb->rank; a++)
        in_b[ab[a]] = true;
    for (unsigned a = 0; a < to->rank; a++)
        in_o[ao[a]] = true;
    unsigned nbatch = 0, ncon = 0, nfa = 0, nfb = 0, nother = 0;
    bool free_a[EZ_MAX_IDX] = {false}, free_b[EZ_MAX_IDX] = {false};
    for (unsigned i = 0; i < op->nidx; i++) {
        if (in_a[i] && in_b[i])
            in_o[i] ? nbatch++ : ncon++;
        else if (in_a[i] && in_o[i])
            free_a[i] = true, nfa++;
        else if (in_b[i] && in_o[i])
            free_b[i] = true, nfb++;
        else
            nother++; /* summed or broadcast */
    }
    if (nother > 0 || ncon == 0)
        return;
    memcpy(h->in_a, in_a, sizeof in_a);
    memcpy(h->in_b, in_b, sizeof in_b);

    if (nbatch > 0) {
        h->role = EZ_HEAD_MIX;
        int ra = pick_row(op, aa, ta->rank, free_a), rb = pick_row(op, ab, tb->rank, free_b);
        if (ra >= 0)
            h->row[h->nrow++] = (unsigned)ra;
        if (rb >= 0)
            h->col[h->ncol++] = (unsigned)rb;
        h->nheads = 1;
        for (unsigned a = 0; a < to->rank; a++) {
            unsigned i = ao[a];
            if ((int)i == ra || (int)i == rb)
                continue;
            h->head[h->nhead++] = i;
            h->nheads *= op->idx_size[i];
            h->head_vars += ez_log2_ceil(op->idx_size[i]);
        }
        /* contracted indices in bind order (the plan's, else A's axis order) */
        if (op->sched.nbind > 0) {
            for (unsigned j = 0; j < op->sched.nbind && j < EZ_MAX_IDX; j++) {
                unsigned i = op->sched.bind_order[j];
                if (i < op->nidx && in_a[i] && in_b[i] && !in_o[i])
                    h->con[h->ncon++] = i;
            }
        } else {
            for (unsigned a = 0; a < ta->rank; a++)
                if (in_b[aa[a]] && !in_o[aa[a]])
                    h->con[h->ncon++] = aa[a];
        }
        if (h->ncon != ncon) { /* a malformed bind order: leave it to the plain prover */
            memset(h, 0, sizeof *h);
            return;
        }
        for (unsigned j = 0; j < h->ncon; j++)
            h->con_vars += ez_log2_ceil(op->idx_size[h->con[j]]);
        return;
    }
    if (tb->kind != EZ_TENSOR_WEIGHT)
        return;
    if (nfb >= 2 && nfa >= 1 && same_tail(ab, tb->rank, ao, to->rank, nfb)) {
        bool ok = true;
        for (unsigned j = 0; j < nfb; j++)
            ok = ok && free_b[ab[tb->rank - nfb + j]];
        /* the contracted indices in the same order in x and in w (one table layout) */
        for (unsigned a = 0, j = 0; ok && a < ta->rank; a++)
            if (in_b[aa[a]])
                ok = ab[j++] == aa[a];
        if (ok) {
            h->role = EZ_HEAD_PROJ_IN;
            set_flat(op, ab + tb->rank - nfb, nfb, h);
            for (unsigned a = 0; a < ta->rank; a++)
                if (free_a[aa[a]])
                    h->row[h->nrow++] = aa[a];
            for (unsigned a = 0; a < tb->rank - nfb; a++)
                h->con[h->ncon++] = ab[a];
            return;
        }
    }
    if (ncon >= 2 && ncon <= ta->rank && ncon <= tb->rank) {
        bool ok = true;
        for (unsigned j = 0; j < ncon; j++)
            ok = ok && aa[ta->rank - ncon + j] == ab[j] && !in_o[ab[j]];
        if (ok) {
            h->role = EZ_HEAD_PROJ_OUT;
            set_flat(op, ab, ncon, h);
            for (unsigned a = 0; a + ncon < ta->rank; a++)
                h->row[h->nrow++] = aa[a];
            for (unsigned a = ncon; a < tb->rank; a++)
                h->col[h->ncol++] = ab[a];
        }
    }
}

bool ez_heads_mask(const ez_plan *p, size_t op, unsigned *row, unsigned *col)
{
    const ez_plan_op *o = &p->ops[op];
    for (size_t j = op + 1; j < p->nops; j++) {
        const ez_plan_op *c = &p->ops[j];
        bool masks = (c->kind == EZ_OP_SOFTMAX && c->masked) || c->kind == EZ_OP_CAUSAL;
        if (!masks || c->nin < 1 || c->in[0] != o->out || c->in_fixed[0] != 0)
            continue;
        unsigned rank = p->tensors[o->out].rank;
        int pr = pos_of(c->in_axes[0], rank, c->mask_row), pc = pos_of(c->in_axes[0], rank, c->mask_col);
        if (pr < 0 || pc < 0 || pr == pc)
            continue;
        *row = o->out_axes[pr];
        *col = o->out_axes[pc];
        return true;
    }
    return false;
}

/* Op j reads operand 0 as op i does (same tensor, same slice). */
static bool same_input(const ez_plan_op *a, const ez_plan_op *b)
{
    if (a->in[0] != b->in[0] || a->in_fixed[0] != b->in_fixed[0])
        return false;
    for (unsigned x = 0; x < EZ_MAX_RANK; x++)
        if (((a->in_fixed[0] >> x) & 1) && a->in_pos[0][x] != b->in_pos[0][x])
            return false;
    return true;
}

static ez_head_role role_of(const ez_plan *p, size_t i)
{
    const ez_plan_op *op = &p->ops[i];
    if (op->kind != EZ_OP_EINSUM || op->nin != 2)
        return EZ_HEAD_NONE;
    /* the view: fixed axes removed (as ez_opview_init), enough for the role */
    ez_plan_op v = *op;
    ez_plan_tensor t[3];
    for (unsigned k = 0; k < 2; k++) {
        const ez_plan_tensor *src = &p->tensors[op->in[k]];
        t[k] = *src;
        t[k].rank = 0;
        for (unsigned a = 0; a < src->rank; a++)
            if (!((op->in_fixed[k] >> a) & 1)) {
                v.in_axes[k][t[k].rank] = op->in_axes[k][a];
                t[k].dims[t[k].rank++] = src->dims[a];
            }
        v.in[k] = k;
    }
    t[2] = p->tensors[op->out];
    v.out = 2;
    ez_heads h;
    ez_heads_classify(&v, t, &h);
    return h.role;
}

void ez_heads_group(const ez_plan *p, size_t op, const bool *live, size_t *members, unsigned *n)
{
    size_t cand[EZ_HEADS_MAX_GROUP + 1];
    unsigned m = 0;
    members[0] = op;
    *n = 1;
    if (role_of(p, op) != EZ_HEAD_PROJ_IN)
        return;
    for (size_t j = 0; j < p->nops; j++) {
        if (!live[p->ops[j].out] || !same_input(&p->ops[op], &p->ops[j]) || role_of(p, j) != EZ_HEAD_PROJ_IN)
            continue;
        if (m == EZ_HEADS_MAX_GROUP)
            return; /* too many: op alone */
        cand[m++] = j;
    }
    if (m < 2)
        return;
    size_t last = cand[m - 1];
    for (unsigned k = 0; k < m; k++)
        for (size_t j = 0; j < p->nops; j++)
            for (unsigned x = 0; x < p->ops[j].nin; x++)
                if (p->ops[j].in[x] == p->ops[cand[k]].out && j <= last)
                    return; /* a member's output is read before the group is proven */
    for (unsigned k = 0; k < m; k++)
        members[k] = cand[k];
    *n = m;
}

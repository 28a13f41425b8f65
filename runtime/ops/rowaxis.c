/* rowaxis — the cube geometry of a one-axis op (contract in rowaxis.h). */
#include "runtime/ops/rowaxis.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/util.h"
#include "runtime/prove/advice.h"

void ez_rowaxis_init(ez_rowaxis *g, const ez_plan_tensor *in, unsigned at)
{
    memset(g, 0, sizeof *g);
    g->in = in;
    g->rank = in->rank;
    g->at = at;
    for (unsigned a = 0, o = 0, r = 0; a < g->rank; a++) {
        g->nv[a] = ez_log2_ceil(in->dims[a]);
        g->off[a] = o;
        g->roff[a] = r;
        o += g->nv[a];
        if (a != at)
            r += g->nv[a];
        g->n = o;
    }
    g->nt = g->nv[at];
    g->nR = g->n - g->nt;
    g->rows = *in;
    g->rows.rank = 0;
    for (unsigned a = 0; a < g->rank; a++)
        if (a != at)
            g->rows.dims[g->rows.rank++] = in->dims[a];
    for (unsigned a = g->rows.rank; a < EZ_MAX_RANK; a++)
        g->rows.dims[a] = 0;
    g->lenE = ez_advice_padlen(in);
    g->lenR = ez_advice_padlen(&g->rows);
}

bool ez_rowaxis_row_real(const ez_rowaxis *g, uint64_t y)
{
    for (unsigned a = 0; a < g->rank; a++)
        if (a != g->at && ((y >> (g->nR - g->roff[a] - g->nv[a])) & ((UINT64_C(1) << g->nv[a]) - 1)) >= g->in->dims[a])
            return false;
    return true;
}

ez_fe2 ez_rowaxis_rowreal_eval(const ez_rowaxis *g, const ez_fe2 *zeta)
{
    ez_fe2 r = ez_fe2_one();
    for (unsigned a = 0; a < g->rank; a++)
        if (a != g->at)
            r = ez_fe2_mul(r, ez_mle_prefix(zeta + g->roff[a], g->nv[a], g->in->dims[a]));
    return r;
}

ez_fe2 ez_rowaxis_real_eval(const ez_rowaxis *g, const ez_fe2 *pt)
{
    ez_fe2 r = ez_fe2_one();
    for (unsigned a = 0; a < g->rank; a++)
        r = ez_fe2_mul(r, ez_mle_prefix(pt + g->off[a], g->nv[a], g->in->dims[a]));
    return r;
}

ez_fe2 ez_rowaxis_tau_eval(const ez_rowaxis *g, const ez_fe2 *pt)
{
    ez_fe2 r = ez_fe2_zero();
    for (unsigned j = 0; j < g->nt; j++)
        r = ez_fe2_add(ez_fe2_add(r, r), pt[g->off[g->at] + j]);
    return r;
}

void ez_rowaxis_point_row(const ez_rowaxis *g, ez_fe2 *row, const ez_fe2 *pt)
{
    unsigned o = g->off[g->at];
    memcpy(row, pt, o * sizeof *row);
    memcpy(row + o, pt + o + g->nt, (g->n - o - g->nt) * sizeof *row);
}

void ez_rowaxis_point_join(const ez_rowaxis *g, ez_fe2 *pt, const ez_fe2 *row, ez_fe2 t_val)
{
    unsigned o = g->off[g->at];
    memcpy(pt, row, o * sizeof *pt);
    for (unsigned b = 0; b < g->nt; b++)
        pt[o + b] = t_val;
    memcpy(pt + o + g->nt, row + o, (g->n - o - g->nt) * sizeof *pt);
}

/* ---- the live support ---------------------------------------------------------------- */

static unsigned causal_block_log = 0; /* 0: the default rule */

void ez_rowaxis_testing_causal_block(unsigned log)
{
    causal_block_log = log;
}

/* The pieces of one axis or of the masked pair, as (mask, val) over the cube's bits. */
typedef struct {
    ez_pcs_piece *p;
    size_t n, cap;
    bool nomem;
} piece_list;

static void piece_push(piece_list *l, uint64_t mask, uint64_t val)
{
    ez_pcs_piece *room = ez_array_room(l->p, l->n, &l->cap, sizeof *room, 16);
    if (room == NULL) {
        l->nomem = true;
        return;
    }
    l->p = room;
    l->p[l->n++] = (ez_pcs_piece){mask, val};
}

/* Block [i0, i0 + 2^bi) x [t0, t0 + 2^bt) of the pair: live entries i < Ni, t < Nt,
 * t <= i. Cut until a block is all live, all dead, or at most 2^minlog entries. */
typedef struct {
    uint64_t Ni, Nt;
    unsigned ni, nt, shi, sht, minlog;
} tri_ctx;

static void tri_rec(const tri_ctx *c, piece_list *l, uint64_t i0, unsigned bi, uint64_t t0, unsigned bt)
{
    uint64_t i1 = i0 + (UINT64_C(1) << bi) - 1, t1 = t0 + (UINT64_C(1) << bt) - 1;
    if (i0 >= c->Ni || t0 >= c->Nt || t0 > (i1 < c->Ni ? i1 : c->Ni - 1))
        return; /* nothing live */
    bool all = i1 < c->Ni && t1 < c->Nt && t1 <= i0;
    if (all || bi + bt <= c->minlog) {
        uint64_t mi = ((UINT64_C(1) << c->ni) - 1) & ~((UINT64_C(1) << bi) - 1);
        uint64_t mt = ((UINT64_C(1) << c->nt) - 1) & ~((UINT64_C(1) << bt) - 1);
        piece_push(l, (mi << c->shi) | (mt << c->sht), (i0 << c->shi) | (t0 << c->sht));
        return;
    }
    if (bi >= bt && bi > 0) {
        tri_rec(c, l, i0, bi - 1, t0, bt);
        tri_rec(c, l, i0 + (UINT64_C(1) << (bi - 1)), bi - 1, t0, bt);
    } else {
        tri_rec(c, l, i0, bi, t0, bt - 1);
        tri_rec(c, l, i0, bi, t0 + (UINT64_C(1) << (bt - 1)), bt - 1);
    }
}

ez_status ez_rowaxis_live_support(ez_advice_layout *L, const ez_rowaxis *g, bool masked, unsigned ai, long *idx)
{
    *idx = -1;
    if (g->n == 0 || g->n > 48)
        return EZ_OK;
    unsigned sh[EZ_MAX_RANK];
    for (unsigned a = 0; a < g->rank; a++)
        sh[a] = g->n - g->off[a] - g->nv[a];
    /* one list per factor of the product: the axes, the masked pair as one factor */
    piece_list f[EZ_MAX_RANK];
    unsigned nf = 0;
    memset(f, 0, sizeof f);
    ez_status st = EZ_OK;
    size_t total = 1;
    for (unsigned a = 0; a < g->rank; a++) {
        if (masked && a == g->at)
            continue;
        piece_list *l = &f[nf++];
        if (masked && a == ai) {
            unsigned tot = g->nv[ai] + g->nt;
            tri_ctx c = {g->in->dims[ai], g->in->dims[g->at], g->nv[ai], g->nt, sh[ai], sh[g->at], 0};
            if (causal_block_log)
                c.minlog = causal_block_log;
            else
                c.minlog = tot > EZ_ROWAXIS_CAUSAL_LOG ? tot - EZ_ROWAXIS_CAUSAL_LOG : 0;
            tri_rec(&c, l, 0, g->nv[ai], 0, g->nt);
        } else {
            /* the binary pieces of [0, d): one per set bit, largest first */
            uint64_t d = g->in->dims[a], start = 0, all = (UINT64_C(1) << g->nv[a]) - 1;
            for (unsigned b = 64; b-- > 0;)
                if ((d >> b) & 1) {
                    piece_push(l, (all & ~((UINT64_C(1) << b) - 1)) << sh[a], start << sh[a]);
                    start += UINT64_C(1) << b;
                }
        }
        if (l->nomem) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        total = l->n == 0 ? 0 : total * l->n;
        if (total > EZ_ADV_MAX_PIECES)
            goto out; /* too many pieces: the plain padded layout */
    }
    if (total == 0)
        goto out;
    if (total == 1) { /* the whole cube? */
        uint64_t mask = 0;
        for (unsigned k = 0; k < nf; k++)
            mask |= f[k].p[0].mask;
        if (mask == 0)
            goto out;
    }
    ez_pcs_piece *pc = ez_alloc_array(total, sizeof *pc);
    if (pc == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* the product, the first factor outermost */
    for (size_t j = 0; j < total; j++) {
        size_t rest = j;
        uint64_t mask = 0, val = 0;
        for (unsigned k = nf; k-- > 0;) {
            const ez_pcs_piece *x = &f[k].p[rest % f[k].n];
            rest /= f[k].n;
            mask |= x->mask, val |= x->val;
        }
        pc[j] = (ez_pcs_piece){mask, val};
    }
    st = ez_advice_add_support(L, g->n, pc, total, idx);
    free(pc);
out:
    for (unsigned k = 0; k < nf; k++)
        free(f[k].p);
    return st;
}

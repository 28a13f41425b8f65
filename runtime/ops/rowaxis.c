/* rowaxis — the cube geometry of a one-axis op (contract in rowaxis.h). */
#include "runtime/ops/rowaxis.h"

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

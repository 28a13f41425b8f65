/* rowaxis — the cube geometry of an op that works along ONE axis t of its input (softmax,
 * max, argmax, the norms): the input's element cube and its ROW cube (the input without
 * t), and how points and indices move between them.
 *
 * Variables follow the claim convention of runtime/prove/claim.h: input axis order, each
 * axis a block of nv[a] = ceil(log2 dims[a]) variables, MSB first; a row point is an
 * element point with t's block left out. Element cube index x has axis a's coordinate in
 * bits [n - off[a] - nv[a], n - off[a]). */
#ifndef EZ_RUNTIME_OPS_ROWAXIS_H
#define EZ_RUNTIME_OPS_ROWAXIS_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"

typedef struct {
    const ez_plan_tensor *in;     /* the input (its dims bound the real entries) */
    unsigned rank, at;            /* the input's rank; t's position among its axes */
    unsigned nv[EZ_MAX_RANK];     /* variables per input axis */
    unsigned off[EZ_MAX_RANK];    /* offset of axis a's block in an element point */
    unsigned roff[EZ_MAX_RANK];   /* ... in a row point (meaningless for a = at) */
    unsigned n, nR, nt;           /* element variables, row variables, t's variables */
    ez_plan_tensor rows;          /* the row shape: the input without axis t */
    uint64_t lenE, lenR;          /* padded layouts of the input and of the row shape */
} ez_rowaxis;

/* Fill g for input `in` (rank >= 1) reduced along its axis `at` (< rank). g keeps `in`. */
void ez_rowaxis_init(ez_rowaxis *g, const ez_plan_tensor *in, unsigned at);

/* Coordinate of input axis a in element cube index x. */
static inline uint64_t ez_rowaxis_coord(const ez_rowaxis *g, uint64_t x, unsigned a)
{
    return (x >> (g->n - g->off[a] - g->nv[a])) & ((UINT64_C(1) << g->nv[a]) - 1);
}

/* Row cube index of element cube index x: t's bits dropped. */
static inline uint64_t ez_rowaxis_row_of(const ez_rowaxis *g, uint64_t x)
{
    unsigned lo = g->n - g->off[g->at] - g->nt;
    return ((x >> (lo + g->nt)) << lo) | (x & ((UINT64_C(1) << lo) - 1));
}

/* [row cube index y is a real row] (every coordinate inside its extent). */
bool ez_rowaxis_row_real(const ez_rowaxis *g, uint64_t y);

/* R~(zeta): the real-row selector's MLE at a row point (a prefix selector per axis). */
ez_fe2 ez_rowaxis_rowreal_eval(const ez_rowaxis *g, const ez_fe2 *zeta);

/* The real-entry selector's MLE at an element point. */
ez_fe2 ez_rowaxis_real_eval(const ez_rowaxis *g, const ez_fe2 *pt);

/* tau~(pt): t's coordinate as a multilinear polynomial of its bits (MSB first). */
ez_fe2 ez_rowaxis_tau_eval(const ez_rowaxis *g, const ez_fe2 *pt);

/* The row part of element point pt (t's block left out). */
void ez_rowaxis_point_row(const ez_rowaxis *g, ez_fe2 *row, const ez_fe2 *pt);

/* The element point of row point `row` with every variable of t's block set to t_val. */
void ez_rowaxis_point_join(const ez_rowaxis *g, ez_fe2 *pt, const ez_fe2 *row, ez_fe2 t_val);

#endif

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
#include "lib/util.h"
#include "runtime/prove/advice.h"

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

/* The LIVE SUPPORT of the element cube (advice.h "supports"): disjoint subcubes covering
 * every real entry and, for a causal op (masked: axis `ai`'s coordinate i, keep t <= i),
 * every real entry the mask keeps. Per axis other than (ai, t) the binary pieces of its
 * extent; the pair (i, t) of a masked op is cut recursively (the larger block's top free
 * bit first) into blocks that are all live, all dead (dropped) or at most
 * 2^(ni + nt - EZ_ROWAXIS_CAUSAL_LOG) entries (kept whole: their masked entries are
 * committed, with values the op's relations fix), so the triangle takes fewer than
 * 2^(EZ_ROWAXIS_CAUSAL_LOG / 2 + 1) pieces (15 at 6) and commits about
 * 2^(1 - EZ_ROWAXIS_CAUSAL_LOG / 2) more than its live entries (12 % at 6). Every piece is
 * one lookup column per looked-up poly, so more pieces cost proof bytes (a GPT-2 layer at
 * 64 tokens: +17 KB at 8, +9 KB at 6, +8 KB at 4, against the padded layout). An element poly on it commits about half the
 * cube of a causal op and no padding. Added to L: *idx its index, or -1 when the cube
 * has no variables, the support would be the whole cube (a plain vector is the same), or
 * it would need more than EZ_ADV_MAX_PIECES pieces. Public: both sides build it from the
 * plan. EZ_OK or EZ_ERR_NOMEM. */
#ifndef EZ_ROWAXIS_CAUSAL_LOG
#define EZ_ROWAXIS_CAUSAL_LOG 6u
#endif
ez_status ez_rowaxis_live_support(ez_advice_layout *L, const ez_rowaxis *g, bool masked, unsigned ai,
                                  long *idx);

/* TESTING ONLY: the finest causal block is 2^log entries (0: back to the default rule),
 * so a small test model can have masked entries inside its support. Prover and verifier
 * of one process read the same value. */
void ez_rowaxis_testing_causal_block(unsigned log);

#endif

/* rsqrt — the reciprocal-square-root block shared by RSQRT and the norms (LAYERNORM,
 * RMSNORM): the mantissa/exponent split of docs/semantics.md "Normalisation" step 5, the
 * rsqrt table and the per-entry scale factor, proven on a cube of entries (the norms'
 * rows, RSQRT's elements). The protocol and its soundness argument are
 * docs/protocol-norms.md, cited as "§n".
 *
 * On every entry of a committed layout of len entries (S = [x < len], the public layout
 * selector: every entry of the layout, padding included, is an entry of the block), a
 * value V >= 0 the caller ties to its own witness (norms: var + E on a real row, 0 on a
 * padding row; RSQRT: max(x, 0) 2^(se-s)), and the committed polys of the block (§3):
 *     M, R     (M, R) in the model's shared rsqrt table (EZ_TABLE_RSQRT): R = T[M]
 *     G, g     2^k and 2^(kmax - k), each of bg = kmax + 1 bits
 *     MR, MG   mrem and 4^k - 1 - mrem, each of bm = max(1, 2 kmax) bits
 *     W        the minimality witness, bw = bitlen(4 vmax) bits
 *     Z        [k = 0]
 *     RG       R g = T[M] 2^(kmax - k): the per-entry factor with ONE public shift
 * the relations (§3, each zero on the whole cube: beyond the layout every poly is 0 and
 * S = 0; a padding entry of the layout holds the split of V = 0, so M = 0 and RG = 0 there
 * are FORCED — a consumer's sum over padded extents sees 0):
 *     L1  V - M G^2 + MR = 0                       V = M 4^k - mrem
 *     L3  G g - 2^kmax S = 0                       G = 2^k, g = 2^(kmax - k), k <= kmax
 *     L4  MG + S + MR - G^2 = 0                    mrem <= 4^k - 1
 *     L5  W - 4 V + 65535 G^2 + 4 S - 65539 Z = 0  k > 0: 4 V >= 65535 4^k + 4 (k minimal)
 *     L6  Z (G^2 - 1) = 0                          k > 0 forces Z = 0
 *     L7  RG - R g = 0
 * batched with random coefficients into one zero-check
 *     sum_x eq(zeta, x) [Lin0 + G G LinB + g LinD (+ extra terms of the caller)] = 0
 *     Lin0 = b1 (V + MR) + b4 (MG + S + MR) + b5 (W - 4 V + 4 S - 65539 Z) - b6 Z
 *            - b3 2^kmax S + b7 RG (+ the caller's linear relations)
 *     LinB = -b1 M - b4 + 65535 b5 + b6 Z,      LinD = b3 G - b7 R
 * (lib/sumcheck.h: factors Lin0, G, LinB, g, LinD; degree 4 with the eq factor). */
#ifndef EZ_RUNTIME_OPS_RSQRT_H
#define EZ_RUNTIME_OPS_RSQRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/sumcheck.h"
#include "runtime/exec/exec_op.h"
#include "runtime/exec/tables.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/pctx.h"

/* The block's widths and its polys' local ids (relative to the op's first poly; the
 * block's polys are contiguous, pM first). */
typedef struct {
    uint64_t vmax;            /* the largest V the plan allows */
    unsigned kmax;            /* the exponent of vmax: every V <= vmax has k <= kmax */
    unsigned bg, bm, bw;      /* widths of G and g, of MR and MG, of W */
    unsigned ng, nm, nw;      /* their limbs */
    unsigned pM, pR, pG, pg, pMR, pMG, pW, pZ, pRG, first, npolys;
} ez_rsq;

/* The batching coefficients of L1, L3..L7 (§3). */
enum { EZ_RSQ_B1, EZ_RSQ_B3, EZ_RSQ_B4, EZ_RSQ_B5, EZ_RSQ_B6, EZ_RSQ_B7, EZ_RSQ_NB };

/* The block's values at one point (limbed values recombined). */
typedef struct {
    ez_fe2 M, R, G, g, MR, MG, W, Z, RG;
} ez_rsq_atoms;

/* The executor's side of the block: its four trace columns (aux of the op being run, n
 * entries each: one per row for the norms, per element for rsqrt) — k, M and mrem of
 * V = M 4^k - mrem (ez_rsqrt_split) and r = T_rsqrt[M]. */
typedef struct {
    int64_t *k, *m, *mrem, *r;
} ez_rsq_cols;

/* The columns from ez_exec_aux; EZ_ERR_NOMEM when one cannot be had. */
ez_status ez_rsq_cols_get(ez_exec_ctx *c, uint64_t n, ez_rsq_cols *a);
/* Entry i: split V, look M up in the rsqrt table t, store the four; returns r (and k). */
int64_t ez_rsq_cols_set(const ez_rsq_cols *a, const ez_table *t, uint64_t i, int64_t V, unsigned *k);

/* k of ez_rsqrt_split(vmax) (vmax clamped to 2^63 - 1): every 1 <= V <= vmax has k <= it
 * (k is non-decreasing in V). */
unsigned ez_rsq_kmax(uint64_t vmax);

/* The block for values V in [0, vmax] whose polys start at local id `first`.
 * Returns EZ_OK or EZ_ERR_UNSUPPORTED (vmax >= 2^62: W would need more than 64 bits). */
ez_status ez_rsq_init(ez_rsq *b, uint64_t vmax, unsigned first);

/* Layout: the range columns of G, g, MR, MG, W and the tuple (M, R) in the model's shared
 * rsqrt table. gfirst is the global index of the op's local poly 0; every block poly has
 * len entries (the caller added the polys). EZ_OK, EZ_ERR_NOMEM, EZ_ERR_UNSUPPORTED. */
ez_status ez_rsq_layout(ez_advice_layout *L, unsigned op, const ez_rsq *b, size_t gfirst, uint64_t len);

/* Range columns of a `bits`-bit value committed in nl 16-bit limbs at global polys
 * first.. (each limb one column, the top limb of its own width), plus, when cst != 0, one
 * more column limb0 + cst of width `bits` (only for a one-limb value: then value + cst <
 * 2^bits, i.e. an upper bound 2^bits - cst). */
ez_status ez_rsq_range_cols(ez_advice_layout *L, unsigned op, size_t first, unsigned nl, unsigned bits,
                            uint64_t len, uint64_t cst);

/* Prover: entry i < len of the block's polys P (the op's local polys, P[q] for local id
 * q) from the trace's values V, k, M, mrem and r = T[M] as the executor wrote them (a
 * padding entry: all 0, the split of V = 0). Returns NULL, or the name of the first value that
 * leaves its range (a tampered trace: k > kmax, mrem outside [0, 4^k), the minimality
 * witness negative); the limbs are split anyway (ez_rsq_split). */
const char *ez_rsq_fill(const ez_rsq *b, ez_fe *const *P, uint64_t i, int64_t V, int64_t k, int64_t M, int64_t mrem,
                        int64_t r);

/* The block's atoms from the values of its npolys polys at one point, in local order. */
void ez_rsq_atoms_of(const ez_rsq *b, const ez_fe2 *vals, ez_rsq_atoms *a);
/* Prover: the atoms at entry i of the polys (lifted to the extension). */
void ez_rsq_atoms_at(const ez_rsq *b, ez_fe *const *P, uint64_t i, ez_rsq_atoms *a);

/* The three factors of the batched relations at one point: Lin0, LinB, LinD (above),
 * for the value V and the layout selector S there. Both sides use this one function. */
void ez_rsq_lin(const ez_rsq *b, const ez_fe2 *beta, const ez_rsq_atoms *a, ez_fe2 V, ez_fe2 S, ez_fe2 out[3]);

/* The zero-check's shape: factors Lin0, G, LinB, g, LinD (then XP, XN when extra), terms
 * Lin0 + G G LinB + g LinD (+ XP XN), eq(zeta, .) on all nv variables. */
void ez_rsq_desc(ez_sumcheck_desc *d, unsigned nv, bool extra);

/* The relations L1, L3, L4, L5, L7 with the ranges of their terms (margins.h); vdesc names
 * V ("var + E", "xp 2^e") and V ranges over [0, vhi]. */
void ez_rsq_relations(ez_margins *m, size_t op, const ez_rsq *b, const char *vdesc, ez_i128 vhi);

#endif

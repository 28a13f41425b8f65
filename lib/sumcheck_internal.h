/* sumcheck_internal — what the sumcheck prover's driver (sumcheck.c: rounds, transcript,
 * binding order, scratch tables) and its round kernels (sumcheck_kernels.c: the sums
 * that give one round polynomial) share. Not an interface: only lib/sumcheck*.c
 * include it. The data flow and the notation (pairs (i0, i1), E_lo / E_hi, q, D) are
 * described at the top of sumcheck.c. */
#ifndef EZ_LIB_SUMCHECK_INTERNAL_H
#define EZ_LIB_SUMCHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/field.h"
#include "lib/sumcheck.h"

/* q is evaluated at 0..D with D <= 4; g has degree <= 5. */
#define EZ_SC_NPTS_MAX (EZ_SC_MAX_TERM_FACTORS + 1)
#define EZ_SC_GPTS_MAX (EZ_SC_MAX_TERM_FACTORS + 2)

/* How a factor's value at a current-table index is obtained. */
enum {
    EZ_SC_SRC_BASE,       /* no pending bind, base table (lifted on the fly in extension kernels) */
    EZ_SC_SRC_EXT,        /* no pending bind, extension table */
    EZ_SC_SRC_BIND_BASE,  /* bind the old base table with the pending challenge, store, use */
    EZ_SC_SRC_BIND_EXT,   /* the same from an old extension table */
    EZ_SC_SRC_BIND2_BASE, /* bind the base input with the two pending challenges, store, use */
    EZ_SC_SRC_MIXED       /* per factor, read from fkind[] */
};

/* The arguments of one round's kernel: the statement's shape, where each factor's
 * values come from (and whether a pending bind writes them first), the split eq tables
 * and the pair indexing. Filled by the driver (sumcheck.c), read-only in the kernels. */
typedef struct {
    unsigned nf, D; /* factors; q is evaluated at 0..D */
    bool need1;     /* evaluate q(1) too (it cannot be derived: r_v = 0) */
    int fkind[EZ_SC_MAX_FACTORS];
    const ez_fe *sb[EZ_SC_MAX_FACTORS]; /* source tables (old tables if a bind is pending) */
    const ez_fe2 *se[EZ_SC_MAX_FACTORS];
    ez_fe2 *dst[EZ_SC_MAX_FACTORS]; /* bound current tables written by a pending bind */
    bool pending;                   /* bind into dst before evaluating */
    const ez_fe *cb[EZ_SC_MAX_FACTORS]; /* current tables read by the evaluation */
    const ez_fe2 *ce[EZ_SC_MAX_FACTORS];
    /* One pending challenge rp (rpw = 7 rp.c1) at log2 weight lwp of the old table. */
    ez_fe2 rp;
    ez_fe rpw;
    unsigned lwp;
    /* Two pending challenges over base inputs: w4[b1 + 2 b2] = eq((r1, r2), (b1, b2)),
     * old index of a current index i = spread(spread(i, lw2), lw1) + b1 d1 + b2 d2. */
    ez_fe2 w4[4];
    unsigned lw1, lw2;
    size_t d1, d2;
    /* Small-value round: ww[b + 2 b'] = w_b w_b' with w_0 = 1 - rp, w_1 = rp. */
    ez_fe2 ww[4];
    unsigned lw; /* log2 weight of the variable bound now (current table) */
    unsigned L;  /* pair index y = (y_hi << L) | y_lo */
    size_t nhi;
    const ez_fe2 *elo, *ehi;
    const ez_fe *elow; /* 7 * elo[i].c1, so an E_lo-weighted c0 needs one accumulator */
    bool elo_on, ehi_on;
    /* terms (generic path) */
    unsigned nt, tnf[EZ_SC_MAX_TERMS], tf[EZ_SC_MAX_TERMS][EZ_SC_MAX_TERM_FACTORS];
    ez_fe2 coef[EZ_SC_MAX_TERMS];
    bool cone[EZ_SC_MAX_TERMS]; /* coef[t] == 1: the generic kernel skips that multiply */
    bool coef_one;
    /* one term f*g with mixed inputs: mb = the base factor, me = the extension one */
    unsigned mb, me;
    /* two terms of two factors: c21 = coef[1] / coef[0] (c21w = 7 c21.c1), c21_one iff 1 */
    ez_fe2 c21;
    ez_fe c21w;
    bool c21_one;
} ez_sc_round;

/* Insert a zero bit at position lw: the index in a table one variable larger. Written
 * spread(y, lw) in comments. */
static inline size_t ez_sc_spread(size_t y, unsigned lw)
{
    size_t lo = y & (((size_t)1 << lw) - 1);
    return ((y ^ lo) << 1) | lo;
}

/* The statement shapes with dedicated kernels. */
enum {
    EZ_SC_SHAPE_GENERIC,
    EZ_SC_SHAPE_SIMPLE, /* one term in which every factor appears exactly once */
    EZ_SC_SHAPE_TWO     /* two terms of two factors each, coef[0] != 0 */
};

/* A kernel: adds to acc[0..D] the contributions of the 2^L pairs of block yh (slot 1
 * only if R->need1; slot D holds q's X^D coefficient, D >= 2), running a pending bind
 * of that block first. Blocks are independent: any number may run in parallel. */
typedef void (*ez_sc_block_fn)(const ez_sc_round *R, size_t yh, ez_fe2 *acc);

/* The kernel for a round. round0: no bind pending, the sources are the inputs (all
 * base if base, all extension if ext, else mixed); otherwise a bind is pending
 * (R->pending). shape: EZ_SC_SHAPE_*. reference: the generic kernels only. */
ez_sc_block_fn ez_sc_pick_kernel(const ez_sc_round *R, int shape, bool round0, bool base, bool ext, bool reference);
/* The small-value round's kernel (one term f*g of base inputs, round 1: the products
 * over the four (b, b') corners weighted by R->ww, no table written). */
ez_sc_block_fn ez_sc_sv2_kernel(const ez_sc_round *R);
/* True iff fn applies the term coefficients itself (the generic kernels); the others
 * leave the single term's coef[0] to the caller. */
bool ez_sc_kernel_is_generic(ez_sc_block_fn fn);

/* q[k] for k = 0..R->D (q[1] only if R->need1) summed over all pairs with kernel fn;
 * OpenMP over blocks when there are many pairs. The result does not depend on the
 * thread count. No allocation. */
void ez_sc_run_round(const ez_sc_round *R, ez_sc_block_fn fn, ez_fe2 *q);

/* ---- shared with lib/sumcheck_box.c (the padding-skipping prover), so that it writes the
 * same transcript records and round values as ez_sumcheck_prove ---- */

/* The statement records both sides absorb first (desc shape, coefficients, eq point,
 * claim; deg = ez_sumcheck_degree(d)). */
void ez_sumcheck_absorb_header(ez_transcript *t, const ez_sumcheck_desc *d, unsigned deg, const ez_fe2 *coeffs,
                               const ez_fe2 *eq_point, ez_fe2 claim);

/* p zeroed, then its rounds (nvars * degree values, at least one slot) and evals
 * (nfactors) allocated and its shape set. EZ_ERR_NOMEM leaves p cleared. */
ez_status ez_sumcheck_proof_alloc(ez_sumcheck_proof *p, unsigned nvars, unsigned degree, unsigned nfactors);

/* The prover's last step, the same in both provers: absorb the factor values
 * ("sumcheck/evals", proof->nfactors of them) and copy the challenge point pt
 * (proof->nvars values) to point and the values to evals (either may be NULL). */
void ez_sumcheck_prover_finish(ez_transcript *t, const ez_sumcheck_proof *proof, const ez_fe2 *pt, ez_fe2 *point,
                               ez_fe2 *evals);

/* The polynomial of degree <= D through (k, v[k]), k = 0..D, at x; inv_dfact = 1/D!. */
ez_fe2 ez_sumcheck_interp(const ez_fe2 *v, unsigned D, ez_fe2 x, ez_fe inv_dfact);

/* Table over cnt variables vars[0..cnt) (most significant first): entry x = prod over the
 * eq variables among them of eq1(r_v, bit of x), the others contribute 1 (rb: r by
 * variable). out has room for 2^cnt entries. Returns whether any variable is an eq one. */
bool ez_sc_eq_part(ez_fe2 *out, const unsigned *vars, unsigned cnt, uint64_t eq_vars, const ez_fe2 *rb);

/* The prover's side of a round after its kernel, the same in both provers (Gruen §3, the
 * header of lib/sumcheck.c): g(X) = s e(X) q(X) with s the eq factors of the bound
 * variables and e(X) = eq1(r_v, X) when the round's variable v is an eq variable. */
typedef struct {
    unsigned D, deg;     /* q's degree; the message's (ez_sumcheck_degree) */
    ez_fe dfact, inv_dq; /* D!, 1/D! */
    ez_fe2 scale;        /* s: product of eq1(r_u, rho_u) over the bound eq variables */
    ez_fe2 cprime;       /* the running claim / s */
} ez_sc_gruen;

void ez_sc_gruen_init(ez_sc_gruen *g, unsigned D, unsigned deg, ez_fe2 claim);

/* In: q[0], q[2..D-1] (q[1] too when need1) and q's X^D coefficient in q[D] (D >= 2), as
 * the kernels return them; q has room for deg + 1 entries. inb: v is an eq variable, rv
 * its coordinate r_v. Completes q (q(1) from the running claim, q(D) from the D-th
 * difference, q(deg) when deg > D), writes g(0), g(2..deg) to msg[0..deg), absorbs them
 * ("sumcheck/round"), draws rho ("sumcheck/r"), moves the running claim to q(rho) and s
 * to s e(rho). Returns rho. O(D^2). */
ez_fe2 ez_sc_gruen_round(ez_sc_gruen *g, ez_transcript *t, ez_fe2 *q, bool inb, bool need1, ez_fe2 rv, ez_fe2 *msg);

#endif

/* sumcheck — see sumcheck.h. Protocol: Thaler, "Proofs, Arguments, and Zero-Knowledge"
 * §4.1 (sum-check), with the eq-factor optimisations of Gruen, "Some Improvements for
 * the PIOP for ZeroCheck" (ePrint 2024/108, §3): the eq factor of the bound variable is
 * split off the round polynomial as a known linear factor, and the eq weights of the
 * remaining variables are a product of two small tables (split eq) instead of one
 * table as large as the data. Round format and soundness: docs/protocol-kernel-sumcheck.md.
 *
 * Prover data flow. Factor tables are never lifted to the extension up front: round 0
 * reads the caller's tables (base-field arithmetic when every factor is base), and each
 * later round FUSES the binding of the previous challenge with the evaluation of the
 * current round: it reads the old table, writes the bound entries it needs into a
 * scratch buffer and evaluates the round polynomial from them, one pass over memory per
 * round. One scratch table per factor (2^(n-1) entries), bound in place when the bound
 * variable is the table's top one, else ping-ponging with a second of half the size.
 * For one term f*g of two base inputs, round 1 is computed from base products without
 * any table (small-value round, block_sv2) and round 2 binds two challenges at once,
 * which halves the scratch.
 *
 * Kernels: dedicated ones for the shapes that dominate — one term of 2 or 3 distinct
 * factors (base round 0, extension rounds), one term f*g with a base and an extension
 * factor (round 0 of the PCS batching and claim-merge sumchecks), two terms of two
 * factors (LogUp-GKR layers) — and a generic one for every shape. The generic kernels
 * alone (ez_sumcheck_prove_reference) produce the same bytes: the tests compare them.
 *
 * Round j binds variable v = order[j]. In the current table (2^m entries over the m
 * unbound variables, original order) v has bit weight w = 2^lw; pair y in [0, 2^(m-1))
 * is (i0, i1 = i0 + w) with i0 = spread(y, lw). With s = prod of eq1(r_u, rho_u) over
 * the eq variables bound so far, the round polynomial is
 *     g(X) = s * e(X) * q(X),  e(X) = eq1(r_v, X) if v in B else 1,
 *     q(X) = sum_y E(y) * sum_t c_t prod_{f in T_t} f(i0 + X (i1 - i0)),
 * with E(y) = eq over the remaining eq variables = E_hi[y_hi] * E_lo[y_lo]. The prover
 * evaluates q at 0, 2, ..., D-1 and its X^D coefficient (the "point at infinity",
 * sum of products of differences; D = largest term), derives q(1) from the running
 * claim, since claim = s * ((1 - r_v) q(0) + r_v q(1)) (or s * (q(0) + q(1))), and
 * recovers q(D) by finite differences. It keeps c' = claim / s implicitly (c' becomes
 * q(rho)), so it never inverts s.
 *
 * Sums are accumulated unreduced and reduced once per block of pairs.
 *
 * This file: the statement, the proof container and its I/O, the prover's driver (rounds,
 * transcript, scratch tables) and the verifier. The round kernels are in
 * sumcheck_kernels.c (what the two share: sumcheck_internal.h). */
#include "config.h"

#include "lib/sumcheck.h"
#include "lib/sumcheck_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"

/* ---- description ------------------------------------------------------------------ */

static unsigned max_term(const ez_sumcheck_desc *d)
{
    unsigned m = 0;
    for (unsigned t = 0; t < d->nterms && t < EZ_SC_MAX_TERMS; t++)
        if (d->term[t].nf > m)
            m = d->term[t].nf;
    return m;
}

unsigned ez_sumcheck_degree(const ez_sumcheck_desc *d)
{
    return max_term(d) + (d->eq_vars != 0 ? 1u : 0u);
}

ez_status ez_sumcheck_desc_check(const ez_sumcheck_desc *d)
{
    if (!d || d->nvars > EZ_SC_MAX_VARS || d->nfactors < 1 || d->nfactors > EZ_SC_MAX_FACTORS ||
        d->nterms < 1 || d->nterms > EZ_SC_MAX_TERMS)
        return EZ_ERR_INVALID;
    for (unsigned t = 0; t < d->nterms; t++) {
        if (d->term[t].nf < 1 || d->term[t].nf > EZ_SC_MAX_TERM_FACTORS)
            return EZ_ERR_INVALID;
        for (unsigned i = 0; i < d->term[t].nf; i++)
            if (d->term[t].f[i] >= d->nfactors)
                return EZ_ERR_INVALID;
    }
    if (d->nvars < 64 && (d->eq_vars >> d->nvars) != 0)
        return EZ_ERR_INVALID;
    uint64_t seen = 0;
    for (unsigned j = 0; j < d->nvars; j++) {
        unsigned v = d->order[j];
        if (v >= d->nvars || ((seen >> v) & 1))
            return EZ_ERR_INVALID;
        seen |= UINT64_C(1) << v;
    }
    return EZ_OK;
}

void ez_sumcheck_desc_init(ez_sumcheck_desc *d, unsigned nvars, unsigned nfactors)
{
    EZ_VERIFY_CHECK(nfactors >= 1 && nfactors <= EZ_SC_MAX_TERM_FACTORS && nvars <= EZ_SC_MAX_VARS);
    memset(d, 0, sizeof *d);
    d->nvars = nvars;
    d->nfactors = nfactors;
    d->nterms = 1;
    d->term[0].nf = nfactors <= EZ_SC_MAX_TERM_FACTORS ? nfactors : EZ_SC_MAX_TERM_FACTORS;
    for (unsigned i = 0; i < d->term[0].nf; i++)
        d->term[0].f[i] = i;
    for (unsigned j = 0; j < nvars && j < EZ_SC_MAX_VARS; j++)
        d->order[j] = j;
}

/* ---- proof container ---------------------------------------------------------------- */

void ez_sumcheck_proof_clear(ez_sumcheck_proof *p)
{
    if (!p)
        return;
    free(p->rounds);
    free(p->evals);
    memset(p, 0, sizeof *p);
}

uint64_t ez_sumcheck_proof_bytes(const ez_sumcheck_desc *d)
{
    return ((uint64_t)d->nvars * ez_sumcheck_degree(d) + d->nfactors) * 16;
}

void ez_sumcheck_proof_write(ez_writer *w, const ez_sumcheck_proof *p)
{
    ez_writer_fe2(w, p->rounds, (size_t)p->nvars * p->degree);
    ez_writer_fe2(w, p->evals, p->nfactors);
}

ez_status ez_sumcheck_proof_alloc(ez_sumcheck_proof *p, unsigned nvars, unsigned degree, unsigned nfactors)
{
    memset(p, 0, sizeof *p);
    size_t nr = (size_t)nvars * degree;
    p->rounds = ez_alloc_array(nr ? nr : 1, sizeof(ez_fe2));
    p->evals = ez_alloc_array(nfactors, sizeof(ez_fe2));
    if (!p->rounds || !p->evals) {
        ez_sumcheck_proof_clear(p);
        return EZ_ERR_NOMEM;
    }
    p->nvars = nvars;
    p->degree = degree;
    p->nfactors = nfactors;
    return EZ_OK;
}

ez_status ez_sumcheck_proof_read(ez_reader *r, const ez_sumcheck_desc *d, ez_sumcheck_proof *p)
{
    memset(p, 0, sizeof *p);
    if (ez_sumcheck_desc_check(d) != EZ_OK)
        return EZ_ERR_INVALID;
    unsigned deg = ez_sumcheck_degree(d);
    size_t nr = (size_t)d->nvars * deg, total = nr + d->nfactors;
    /* The shape is bounded (<= 48 * 5 + 8 values): check the length before allocating. */
    if (r->failed || ez_reader_remaining(r) < total * 16) {
        r->failed = true;
        return EZ_ERR_REJECT;
    }
    ez_status st = ez_sumcheck_proof_alloc(p, d->nvars, deg, d->nfactors);
    if (st != EZ_OK)
        return st;
    if (!ez_reader_fe2(r, p->rounds, nr) || !ez_reader_fe2(r, p->evals, d->nfactors)) {
        ez_sumcheck_proof_clear(p);
        return EZ_ERR_REJECT;
    }
    return EZ_OK;
}

/* ---- small polynomial helpers ------------------------------------------------------- */

/* 1 - a - b + 2ab = ab + (1-a)(1-b). */

/* The polynomial of degree <= D through (k, v[k]), k = 0..D, at x (Lagrange):
 *   p(x) = (1/D!) sum_k v[k] (-1)^(D-k) binom(D, k) prod_{m != k} (x - m).
 * inv_dfact = 1/D!. Exact for x equal to a node (the other products vanish). */
static ez_fe2 interp(const ez_fe2 *v, unsigned D, ez_fe2 x, ez_fe inv_dfact)
{
    ez_fe2 pre[EZ_SC_GPTS_MAX], suf[EZ_SC_GPTS_MAX];
    pre[0] = ez_fe2_one();
    for (unsigned k = 1; k <= D; k++)
        pre[k] = ez_fe2_mul(pre[k - 1], ez_fe2_sub(x, ez_fe2_from_fe(k - 1)));
    suf[D] = ez_fe2_one();
    for (unsigned k = D; k-- > 0;)
        suf[k] = ez_fe2_mul(suf[k + 1], ez_fe2_sub(x, ez_fe2_from_fe(k + 1)));
    ez_fe2 acc = ez_fe2_zero();
    uint64_t binom = 1; /* binom(D, k), exact for D <= 5 */
    for (unsigned k = 0; k <= D; k++) {
        ez_fe c = (ez_fe)binom;
        if ((D - k) & 1)
            c = ez_fe_neg(c);
        acc = ez_fe2_add(acc, ez_fe2_mul_fe(ez_fe2_mul(v[k], ez_fe2_mul(pre[k], suf[k])), c));
        binom = binom * (D - k) / (k + 1);
    }
    return ez_fe2_mul_fe(acc, inv_dfact);
}

static ez_fe inv_factorial(unsigned D)
{
    ez_fe f = 1;
    for (unsigned k = 2; k <= D; k++)
        f = ez_fe_mul(f, k);
    return ez_fe_inv(f);
}

/* ---- transcript header (identical on both sides) ----------------------------------- */

static void absorb_header(ez_transcript *t, const ez_sumcheck_desc *d, unsigned deg, const ez_fe2 *coeffs,
                          const ez_fe2 *eq_point, ez_fe2 claim)
{
    /* The whole statement shape, as u64 LE words: nvars, nfactors, nterms, degree,
     * eq_vars, then per term nf and its factor indices, then the binding order. */
    uint8_t buf[8 * (5 + EZ_SC_MAX_TERMS * (1 + EZ_SC_MAX_TERM_FACTORS) + EZ_SC_MAX_VARS)];
    size_t n = 0;
#define PUT(x)                                                                                               \
    do {                                                                                                     \
        uint64_t v_ = (uint64_t)(x);                                                                         \
        for (int b_ = 0; b_ < 8; b_++)                                                                       \
            buf[n++] = (uint8_t)(v_ >> (8 * b_));                                                            \
    } while (0)
    PUT(d->nvars);
    PUT(d->nfactors);
    PUT(d->nterms);
    PUT(deg);
    PUT(d->eq_vars);
    for (unsigned i = 0; i < d->nterms; i++) {
        PUT(d->term[i].nf);
        for (unsigned k = 0; k < d->term[i].nf; k++)
            PUT(d->term[i].f[k]);
    }
    for (unsigned j = 0; j < d->nvars; j++)
        PUT(d->order[j]);
#undef PUT
    ez_transcript_absorb_bytes(t, "sumcheck/desc", buf, n);
    ez_fe2 c[EZ_SC_MAX_TERMS];
    for (unsigned i = 0; i < d->nterms; i++)
        c[i] = coeffs ? coeffs[i] : ez_fe2_one();
    ez_transcript_absorb_fe2(t, "sumcheck/coeffs", c, d->nterms);
    ez_transcript_absorb_fe2(t, "sumcheck/eq_point", eq_point, (size_t)__builtin_popcountll(d->eq_vars));
    ez_transcript_absorb_fe2(t, "sumcheck/claim", &claim, 1);
}

/* r_B by variable (entries outside B unused). */
static void spread_eq_point(ez_fe2 *rb, const ez_sumcheck_desc *d, const ez_fe2 *eq_point)
{
    unsigned k = 0;
    for (unsigned v = 0; v < d->nvars; v++)
        rb[v] = (d->eq_vars >> v) & 1 ? eq_point[k++] : ez_fe2_zero();
}

/* sum_t c_t prod_{f in T_t} vals[f] */
static ez_fe2 combine_terms(const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *vals)
{
    ez_fe2 acc = ez_fe2_zero();
    for (unsigned t = 0; t < d->nterms; t++) {
        ez_fe2 p = coeffs ? coeffs[t] : ez_fe2_one();
        for (unsigned i = 0; i < d->term[t].nf; i++)
            p = ez_fe2_mul(p, vals[d->term[t].f[i]]);
        acc = ez_fe2_add(acc, p);
    }
    return acc;
}

bool ez_sc_eq_part(ez_fe2 *out, const unsigned *vars, unsigned cnt, uint64_t eq_vars, const ez_fe2 *rb)
{
    bool on = false;
    out[0] = ez_fe2_one();
    /* As in ez_eq_table: the next more significant bit doubles the table at the top. */
    for (unsigned b = 0; b < cnt; b++) {
        unsigned v = vars[cnt - 1 - b];
        size_t h = (size_t)1 << b;
        if ((eq_vars >> v) & 1) {
            on = true;
            for (size_t i = 0; i < h; i++) {
                ez_fe2 hi = ez_fe2_mul(out[i], rb[v]);
                out[h + i] = hi;
                out[i] = ez_fe2_sub(out[i], hi);
            }
        } else {
            memcpy(out + h, out, h * sizeof *out);
        }
    }
    return on;
}

/* The pair-index variables of a round binding rem[pos] (yv: the others, in order) and
 * the split point L of the pair index: blocks of 2^L pairs share one E_hi weight;
 * balance the two tables, but keep small rounds in one block. */
static unsigned round_split(const unsigned *rem, unsigned m, unsigned pos, unsigned *yv)
{
    unsigned ny = 0;
    for (unsigned i = 0; i < m; i++)
        if (i != pos)
            yv[ny++] = rem[i];
    return ny < 8 ? ny : (ny + 1) / 2;
}

static void *sc_alloc(size_t n)
{
    return ez_alloc_aligned(n ? n : 1, sizeof(ez_fe2));
}

/* The prover; reference: generic kernels only (ez_sumcheck_prove_reference). */
static ez_status prove(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *eq_point,
                       const ez_sumcheck_factor *factors, ez_fe2 claim, ez_sumcheck_proof *proof, ez_fe2 *point,
                       ez_fe2 *evals, bool reference)
{
    ez_status st = EZ_OK;
    ez_fe2 *bufs[EZ_SC_MAX_FACTORS][2] = {{NULL}};
    ez_fe2 *elo = NULL, *ehi = NULL;
    ez_fe *elow = NULL;
    if (!t || !proof || ez_sumcheck_desc_check(d) != EZ_OK || !factors || (d->eq_vars && !eq_point))
        return EZ_ERR_INVALID;
    const unsigned n = d->nvars, nf = d->nfactors, D = max_term(d), deg = ez_sumcheck_degree(d);
    for (unsigned j = 0; j < nf; j++)
        if (!factors[j].base == !factors[j].ext)
            return EZ_ERR_INVALID;
    st = ez_sumcheck_proof_alloc(proof, n, deg, nf);
    if (st != EZ_OK)
        return st;

    absorb_header(t, d, deg, coeffs, eq_point, claim);
    ez_fe2 rb[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS];
    spread_eq_point(rb, d, eq_point);

    if (n == 0) {
        for (unsigned j = 0; j < nf; j++)
            proof->evals[j] = factors[j].base ? ez_fe2_from_fe(factors[j].base[0]) : factors[j].ext[0];
        goto finish;
    }

    /* The round-independent part of the kernel arguments. */
    ez_sc_round R;
    memset(&R, 0, sizeof R);
    R.nf = nf;
    R.D = D;
    R.nt = d->nterms;
    R.coef_one = true;
    for (unsigned i = 0; i < d->nterms; i++) {
        R.tnf[i] = d->term[i].nf;
        memcpy(R.tf[i], d->term[i].f, sizeof R.tf[i]);
        R.coef[i] = coeffs ? coeffs[i] : ez_fe2_one();
        R.cone[i] = ez_fe2_eq(R.coef[i], ez_fe2_one());
        if (!R.cone[i])
            R.coef_one = false;
    }
    /* simple: one term in which every factor appears exactly once. */
    bool simple = d->nterms == 1 && d->term[0].nf == nf;
    for (unsigned i = 0; simple && i < nf; i++)
        for (unsigned k = 0; k < i; k++)
            if (d->term[0].f[i] == d->term[0].f[k])
                simple = false;
    int shape = simple ? EZ_SC_SHAPE_SIMPLE : EZ_SC_SHAPE_GENERIC;
    if (d->nterms == 2 && d->term[0].nf == 2 && d->term[1].nf == 2 && !ez_fe2_is_zero(R.coef[0])) {
        /* a b + c21 c d, times coef[0] after the sum */
        shape = EZ_SC_SHAPE_TWO;
        R.c21_one = ez_fe2_eq(R.coef[1], R.coef[0]);
        R.c21 = R.c21_one ? ez_fe2_one() : ez_fe2_mul(R.coef[1], ez_fe2_inv(R.coef[0]));
        R.c21w = ez_fe_mul_w(R.c21.c1);
    }
    bool all_base = true, all_ext = true;
    for (unsigned j = 0; j < nf; j++) {
        all_base = all_base && factors[j].base;
        all_ext = all_ext && factors[j].ext;
    }
    R.mb = factors[0].base ? 0 : 1;
    R.me = 1 - R.mb;
    /* Small-value round 1 (block_sv2) for f*g over base inputs: no table is written
     * until round 2, which halves the scratch memory. */
    const bool sv = all_base && simple && nf == 2 && n >= 2 && !reference;

    /* Scratch: the first written table has 2^(n-1) entries (2^(n-2) with sv); later
     * ones halve each round. A bind of the old table's top variable (the usual
     * most-significant-first order) is done in place: bound entry i depends only on
     * old entries i and i + 2^m, and each i is bound once, by one block. Other binds
     * ping-pong into a second buffer of half the size, allocated when first needed.
     * Huge-page advice: first touch of fresh pages is a large part of the cost. */
    unsigned lfirst = n - 1 - (sv ? 1u : 0u);
    for (unsigned j = 0; j < nf; j++) {
        if (!(bufs[j][0] = ez_alloc_huge((size_t)1 << lfirst, sizeof(ez_fe2)))) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    }
    /* Split-eq tables (see the choice of L below): E_lo has 2^L <= 2^max(n/2, 7)
     * entries, E_hi 2^(bits - L) <= 2^(n/2). */
    elo = sc_alloc((size_t)1 << (n / 2 > 7 ? n / 2 : 7));
    elow = ez_alloc_aligned((size_t)1 << (n / 2 > 7 ? n / 2 : 7), sizeof(ez_fe));
    ehi = sc_alloc((size_t)1 << (n / 2));
    if (!elo || !elow || !ehi) {
        st = EZ_ERR_NOMEM;
        goto out;
    }

    unsigned rem[EZ_SC_MAX_VARS], yv[EZ_SC_MAX_VARS]; /* unbound variables, original order */
    for (unsigned v = 0; v < n; v++)
        rem[v] = v;
    unsigned m = n;
    ez_sc_gruen G;
    ez_sc_gruen_init(&G, D, deg, claim);
    /* The source tables: the inputs until a bound table has been written. */
    const ez_fe *curb[EZ_SC_MAX_FACTORS];
    const ez_fe2 *cure[EZ_SC_MAX_FACTORS];
    for (unsigned j = 0; j < nf; j++) {
        curb[j] = factors[j].base;
        cure[j] = factors[j].ext;
    }
    unsigned npend = 0; /* challenges not yet bound into the sources */
    int held = -1;      /* the scratch buffer holding the sources; -1: the inputs */

    for (unsigned round = 0; round < n; round++) {
        unsigned v = d->order[round], pos = 0;
        while (rem[pos] != v)
            pos++;
        bool inb = (d->eq_vars >> v) & 1;
        ez_fe2 rv = rb[v];

        R.lw = m - 1 - pos;
        R.need1 = inb && ez_fe2_is_zero(rv);
        unsigned bits = m - 1;
        R.L = round_split(rem, m, pos, yv);
        R.nhi = (size_t)1 << (bits - R.L);
        R.elo_on = ez_sc_eq_part(elo, yv + (bits - R.L), R.L, d->eq_vars, rb);
        R.ehi_on = ez_sc_eq_part(ehi, yv, bits - R.L, d->eq_vars, rb);
        if (R.elo_on)
            for (size_t i = 0; i < ((size_t)1 << R.L); i++)
                elow[i] = ez_fe_mul_w(elo[i].c1);
        R.elo = elo;
        R.elow = elow;
        R.ehi = ehi;

        bool writes = npend > 0 && !(sv && round == 1);
        /* In place iff the pending variable was the old table's top one (lwp == m). */
        int wbuf = held >= 0 && npend == 1 && R.lwp == m ? held : held == 0 ? 1 : 0;
        ez_sc_block_fn fn;
        for (unsigned j = 0; j < nf; j++) {
            if (writes && !bufs[j][wbuf] &&
                !(bufs[j][wbuf] = ez_alloc_huge(lfirst ? (size_t)1 << (lfirst - 1) : 1, sizeof(ez_fe2)))) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            R.sb[j] = curb[j];
            R.se[j] = cure[j];
            R.dst[j] = bufs[j][wbuf];
            R.cb[j] = curb[j];
            R.ce[j] = cure[j];
        }
        R.pending = false;
        if (npend == 0) {
            fn = ez_sc_pick_kernel(&R, shape, true, all_base, all_ext, reference);
        } else if (npend == 1 && sv && round == 1) {
            for (unsigned c = 0; c < 4; c++) {
                ez_fe2 wf = c & 1 ? R.rp : ez_fe2_sub(ez_fe2_one(), R.rp);
                ez_fe2 wg = c >> 1 ? R.rp : ez_fe2_sub(ez_fe2_one(), R.rp);
                R.ww[c] = ez_fe2_mul(wf, wg);
            }
            fn = ez_sc_sv2_kernel(&R);
        } else {
            /* Fused: bind the pending challenge(s) block by block, then evaluate. */
            R.pending = true;
            for (unsigned j = 0; j < nf; j++) {
                R.fkind[j] = npend == 2 ? EZ_SC_SRC_BIND2_BASE : curb[j] ? EZ_SC_SRC_BIND_BASE : EZ_SC_SRC_BIND_EXT;
                R.cb[j] = NULL;
                R.ce[j] = R.dst[j];
            }
            fn = ez_sc_pick_kernel(&R, shape, false, false, true, reference);
        }
        ez_fe2 q[EZ_SC_GPTS_MAX];
        ez_sc_run_round(&R, fn, q);
        /* The specialised kernels leave the single term's coefficient out: apply it once. */
        if (!ez_sc_kernel_is_generic(fn) && !R.coef_one)
            for (unsigned k = 0; k <= D; k++)
                q[k] = ez_fe2_mul(q[k], R.coef[0]);

        ez_fe2 rho = ez_sc_gruen_round(&G, t, q, inb, R.need1, rv, proof->rounds + (size_t)round * deg);
        pt[v] = rho;

        if (writes) {
            /* This round's bound tables are the next round's sources. */
            for (unsigned j = 0; j < nf; j++) {
                curb[j] = NULL;
                cure[j] = R.dst[j];
            }
            held = wbuf;
        }
        if (writes || npend == 0) {
            npend = 1;
            R.rp = rho;
            R.rpw = ez_fe_mul_w(rho.c1);
            R.lwp = R.lw;
        } else {
            /* After the small-value round: two challenges pending on the inputs. */
            npend = 2;
            R.lw1 = R.lwp;
            R.lw2 = R.lw;
            R.d1 = (size_t)1 << R.lw1;
            R.d2 = ez_sc_spread((size_t)1 << R.lw2, R.lw1);
            for (unsigned c = 0; c < 4; c++) {
                ez_fe2 w1 = c & 1 ? R.rp : ez_fe2_sub(ez_fe2_one(), R.rp);
                ez_fe2 w2 = c >> 1 ? rho : ez_fe2_sub(ez_fe2_one(), rho);
                R.w4[c] = ez_fe2_mul(w1, w2);
            }
        }
        for (unsigned i = pos; i + 1 < m; i++)
            rem[i] = rem[i + 1];
        m--;
    }
    /* The pending binds of the last round(s): one value per factor is left. */
    for (unsigned j = 0; j < nf; j++) {
        if (npend == 2) {
            const ez_fe *F = curb[j];
            ez_fe2 acc = ez_fe2_zero();
            for (unsigned c = 0; c < 4; c++)
                acc = ez_fe2_add(acc, ez_fe2_mul_fe(R.w4[c], F[(c & 1) * R.d1 + (c >> 1) * R.d2]));
            proof->evals[j] = acc;
        } else if (curb[j]) {
            ez_fe df = ez_fe_sub(curb[j][1], curb[j][0]);
            proof->evals[j] = ez_fe2_add(ez_fe2_from_fe(curb[j][0]), ez_fe2_mul_fe(R.rp, df));
        } else {
            proof->evals[j] = ez_fe2_add(cure[j][0], ez_fe2_mul(R.rp, ez_fe2_sub(cure[j][1], cure[j][0])));
        }
    }
finish:
    ez_sumcheck_prover_finish(t, proof, pt, point, evals);
out:
    for (unsigned j = 0; j < EZ_SC_MAX_FACTORS; j++) {
        free(bufs[j][0]);
        free(bufs[j][1]);
    }
    EZ_FREE_ALL(elo, elow, ehi);
    if (st != EZ_OK)
        ez_sumcheck_proof_clear(proof);
    return st;
}

ez_status ez_sumcheck_prove(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                            const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim,
                            ez_sumcheck_proof *proof, ez_fe2 *point, ez_fe2 *evals)
{
    return prove(t, d, coeffs, eq_point, factors, claim, proof, point, evals, false);
}

ez_status ez_sumcheck_prove_reference(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                      const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim,
                                      ez_sumcheck_proof *proof, ez_fe2 *point, ez_fe2 *evals)
{
    return prove(t, d, coeffs, eq_point, factors, claim, proof, point, evals, true);
}

ez_status ez_sumcheck_verify(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                             const ez_fe2 *eq_point, ez_fe2 claim, const ez_sumcheck_proof *proof,
                             ez_fe2 *point, ez_fe2 *evals)
{
    if (!t || ez_sumcheck_desc_check(d) != EZ_OK || (d->eq_vars && !eq_point))
        return EZ_ERR_INVALID;
    const unsigned n = d->nvars, nf = d->nfactors, deg = ez_sumcheck_degree(d);
    /* The proof's shape must be the one the statement fixes. */
    if (!proof || proof->nvars != n || proof->degree != deg || proof->nfactors != nf || !proof->evals ||
        (n > 0 && !proof->rounds))
        return EZ_ERR_REJECT;
    absorb_header(t, d, deg, coeffs, eq_point, claim);
    ez_fe2 rb[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS];
    spread_eq_point(rb, d, eq_point);
    ez_fe inv_dg = inv_factorial(deg);
    for (unsigned round = 0; round < n; round++) {
        /* Thaler §4.1 round check: g(0) + g(1) = claim holds by construction of g(1);
         * the message fixes g of degree <= deg, evaluated at the fresh challenge. */
        const ez_fe2 *msg = proof->rounds + (size_t)round * deg;
        ez_fe2 g[EZ_SC_GPTS_MAX];
        g[0] = msg[0];
        g[1] = ez_fe2_sub(claim, msg[0]);
        for (unsigned k = 2; k <= deg; k++)
            g[k] = msg[k - 1];
        ez_transcript_absorb_fe2(t, "sumcheck/round", msg, deg);
        ez_fe2 rho = ez_transcript_challenge_fe2(t, "sumcheck/r");
        pt[d->order[round]] = rho;
        claim = interp(g, deg, rho, inv_dg);
    }
    ez_transcript_absorb_fe2(t, "sumcheck/evals", proof->evals, nf);
    /* Final check: the last claim against the oracle values the caller discharges. */
    ez_fe2 e = ez_fe2_one();
    for (unsigned v = 0; v < n; v++)
        if ((d->eq_vars >> v) & 1)
            e = ez_fe2_mul(e, ez_eq1(rb[v], pt[v]));
    ez_fe2 expect = ez_fe2_mul(e, combine_terms(d, coeffs, proof->evals));
    if (!ez_fe2_eq(expect, claim))
        return EZ_ERR_REJECT;
    if (point)
        memcpy(point, pt, n * sizeof *pt);
    if (evals)
        memcpy(evals, proof->evals, nf * sizeof *evals);
    return EZ_OK;
}

/* ---- shared with lib/sumcheck_box.c (lib/sumcheck_internal.h) ---------------------------- */

void ez_sumcheck_absorb_header(ez_transcript *t, const ez_sumcheck_desc *d, unsigned deg, const ez_fe2 *coeffs,
                               const ez_fe2 *eq_point, ez_fe2 claim)
{
    absorb_header(t, d, deg, coeffs, eq_point, claim);
}

void ez_sc_gruen_init(ez_sc_gruen *g, unsigned D, unsigned deg, ez_fe2 claim)
{
    g->D = D;
    g->deg = deg;
    g->inv_dq = inv_factorial(D);
    g->dfact = 1;
    for (unsigned k = 2; k <= D; k++)
        g->dfact *= k; /* D! <= 24 */
    g->scale = ez_fe2_one();
    g->cprime = claim;
}

ez_fe2 ez_sc_gruen_round(ez_sc_gruen *g, ez_transcript *t, ez_fe2 *q, bool inb, bool need1, ez_fe2 rv, ez_fe2 *msg)
{
    const unsigned D = g->D, deg = g->deg;
    /* q(1) from the running claim (Gruen §3): c' = e(0) q(0) + e(1) q(1). */
    if (!inb)
        q[1] = ez_fe2_sub(g->cprime, q[0]);
    else if (!need1)
        q[1] = ez_fe2_mul(ez_fe2_sub(g->cprime, ez_fe2_mul(ez_fe2_sub(ez_fe2_one(), rv), q[0])), ez_fe2_inv(rv));
    /* The kernels return q's X^D coefficient c in slot D (D >= 2): the D-th finite
     * difference of q is D! c, which gives q(D) from q(0..D-1). */
    if (D >= 2) {
        ez_fe2 qd = ez_fe2_mul_fe(q[D], g->dfact);
        uint64_t binom = 1; /* binom(D, i) */
        for (unsigned i = 0; i < D; i++) {
            ez_fe2 term = ez_fe2_mul_fe(q[i], (ez_fe)binom);
            qd = (D - i) & 1 ? ez_fe2_add(qd, term) : ez_fe2_sub(qd, term);
            binom = binom * (D - i) / (i + 1);
        }
        q[D] = qd;
    }
    if (deg > D) /* q has degree D; g = s e q needs one more point of q */
        q[deg] = interp(q, D, ez_fe2_from_fe(deg), g->inv_dq);
    for (unsigned k = 0; k <= deg; k++) {
        if (k == 1)
            continue;
        ez_fe2 gk = ez_fe2_mul(g->scale, q[k]);
        if (inb)
            gk = ez_fe2_mul(gk, ez_eq1(rv, ez_fe2_from_fe(k)));
        msg[k == 0 ? 0 : k - 1] = gk;
    }
    ez_transcript_absorb_fe2(t, "sumcheck/round", msg, deg);
    ez_fe2 rho = ez_transcript_challenge_fe2(t, "sumcheck/r");
    g->cprime = interp(q, D, rho, g->inv_dq);
    if (inb)
        g->scale = ez_fe2_mul(g->scale, ez_eq1(rv, rho));
    return rho;
}

void ez_sumcheck_prover_finish(ez_transcript *t, const ez_sumcheck_proof *proof, const ez_fe2 *pt, ez_fe2 *point,
                               ez_fe2 *evals)
{
    ez_transcript_absorb_fe2(t, "sumcheck/evals", proof->evals, proof->nfactors);
    if (point)
        memcpy(point, pt, proof->nvars * sizeof *pt);
    if (evals)
        memcpy(evals, proof->evals, proof->nfactors * sizeof *evals);
}

ez_fe2 ez_sumcheck_interp(const ez_fe2 *v, unsigned D, ez_fe2 x, ez_fe inv_dfact)
{
    return interp(v, D, x, inv_dfact);
}

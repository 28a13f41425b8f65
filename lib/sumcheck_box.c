/* sumcheck_box — see sumcheck_box.h. The round polynomial and the transcript are those of
 * lib/sumcheck.c (Thaler §4.1 with Gruen's eq split, ePrint 2024/108 §3): the prover
 * computes q(0), q(2..D-1) and q's leading coefficient from the pairs, derives q(1) from
 * the running claim and q(D) by finite differences, and sends g = s e q. Every value is
 * the same field element the dense kernels compute, because an all-zero pair adds zero to
 * every sum: skipping it changes nothing but the work. */
#include "config.h"

#include "lib/sumcheck_box.h"

#include <stdlib.h>
#include <string.h>

#include "lib/sumcheck_internal.h"

#define BOX_PAR_MIN 8192 /* pairs per round below which a round runs on one thread */
#define BOX_NPTS (EZ_SC_MAX_TERM_FACTORS + 2)

uint64_t ez_sumcheck_box_size(const ez_sumcheck_box *b)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < b->nblocks; i++) {
        if (b->bits[i] > 40 || b->ext[i] == 0 || b->ext[i] > (UINT64_C(1) << b->bits[i]))
            return 0;
        n *= b->ext[i];
    }
    return n;
}

uint64_t ez_sumcheck_box_touched(const ez_sumcheck_box *b, bool padded)
{
    unsigned n = 0;
    uint64_t ext[EZ_SC_MAX_VARS], total = 0;
    for (unsigned i = 0; i < b->nblocks; i++) {
        n += b->bits[i];
        ext[i] = padded ? UINT64_C(1) << b->bits[i] : b->ext[i];
    }
    unsigned k[EZ_SC_MAX_VARS];
    for (unsigned i = 0; i < b->nblocks; i++)
        k[i] = b->bits[i];
    for (unsigned round = 0; round < n; round++) {
        uint64_t size = 1;
        unsigned c = 0;
        for (unsigned i = 0; i < b->nblocks; i++)
            size *= ext[i];
        total += size;
        while (k[c] == 0)
            c++;
        uint64_t half = UINT64_C(1) << (k[c] - 1);
        ext[c] = ext[c] < half ? ext[c] : half;
        k[c]--;
    }
    return total;
}

/* Weights over a block's remaining variables first..first + nv - 1 (MSB first): w[x] =
 * prod over its eq variables of eq1(r_v, bit), the others contribute 1. out has room for
 * 2^nv entries. Returns whether any variable is an eq one. */
static bool block_eq(ez_fe2 *out, unsigned first, unsigned nv, uint64_t eq_vars, const ez_fe2 *rb)
{
    unsigned vars[EZ_SC_MAX_VARS];
    EZ_VERIFY_CHECK(nv <= EZ_SC_MAX_VARS);
    for (unsigned i = 0; i < nv; i++)
        vars[i] = first + i;
    return ez_sc_eq_part(out, vars, nv, eq_vars, rb);
}

/* The round's state shared by the pair loop. */
typedef struct {
    unsigned nf, D;
    bool need1;
    size_t lo, hin, inner, half; /* x < lo; a partner for x < hin; r < inner */
    const ez_fe *fb[EZ_SC_MAX_FACTORS];
    const ez_fe2 *fe[EZ_SC_MAX_FACTORS];
    const ez_fe2 *wc, *wi; /* NULL: weight 1 */
} box_round;

/* A factor's value at compact index i as an extension element. */
static inline ez_fe2 val(const box_round *R, unsigned j, size_t i)
{
    return R->fb[j] ? ez_fe2_from_fe(R->fb[j][i]) : R->fe[j][i];
}

/* sum over r of wi[r] * (q_k terms of the pair (x, r)) into s[0..D] (slot D: the
 * leading coefficient when D >= 2; slot 1 only with need1). */
static void pair_sums(const box_round *R, size_t x, ez_fe2 *s)
{
    const unsigned nf = R->nf, D = R->D;
    for (unsigned k = 0; k <= D; k++)
        s[k] = ez_fe2_zero();
    const bool partner = x < R->hin;
    const size_t o0 = x * R->inner, o1 = (x + R->half) * R->inner;
    for (size_t r = 0; r < R->inner; r++) {
        ez_fe2 a[EZ_SC_MAX_FACTORS], df[EZ_SC_MAX_FACTORS];
        for (unsigned j = 0; j < nf; j++) {
            a[j] = val(R, j, o0 + r);
            ez_fe2 b = partner ? val(R, j, o1 + r) : ez_fe2_zero();
            df[j] = ez_fe2_sub(b, a[j]);
        }
        ez_fe2 w = R->wi ? R->wi[r] : ez_fe2_one();
        for (unsigned k = 0; k <= D; k++) {
            if (k == 1 && !R->need1)
                continue;
            ez_fe2 p = ez_fe2_one();
            for (unsigned j = 0; j < nf; j++) {
                ez_fe2 v;
                if (k == D && D >= 2)
                    v = df[j]; /* the point at infinity */
                else if (k == 0)
                    v = a[j];
                else
                    v = ez_fe2_add(a[j], ez_fe2_mul_fe(df[j], (ez_fe)k));
                p = j == 0 ? v : ez_fe2_mul(p, v);
            }
            s[k] = ez_fe2_add(s[k], R->wi ? ez_fe2_mul(w, p) : p);
        }
    }
}

/* q[0..D] of the round (unscaled by the coefficient). */
static void round_sums(const box_round *R, ez_fe2 *q)
{
    const unsigned D = R->D;
    for (unsigned k = 0; k <= D; k++)
        q[k] = ez_fe2_zero();
#pragma omp parallel if (R->lo * R->inner >= BOX_PAR_MIN && R->lo > 1)
    {
        ez_fe2 part[BOX_NPTS], s[BOX_NPTS];
        for (unsigned k = 0; k <= D; k++)
            part[k] = ez_fe2_zero();
#pragma omp for schedule(dynamic, 1) nowait
        for (size_t x = 0; x < R->lo; x++) {
            pair_sums(R, x, s);
            for (unsigned k = 0; k <= D; k++)
                part[k] = ez_fe2_add(part[k], R->wc ? ez_fe2_mul(R->wc[x], s[k]) : s[k]);
        }
#pragma omp critical(ez_sumcheck_box_round)
        for (unsigned k = 0; k <= D; k++)
            q[k] = ez_fe2_add(q[k], part[k]);
    }
}

/* dst[x, r] = f(x, r) + rho (f(x + half, r) - f(x, r)), x < lo (the partner is zero for
 * x >= hin). In place is safe: the partners live at or beyond half * inner >= lo * inner. */
static void bind(const box_round *R, unsigned j, ez_fe2 *dst, ez_fe2 rho)
{
    const size_t n = R->lo * R->inner;
#pragma omp parallel for schedule(static) if (n >= BOX_PAR_MIN)
    for (size_t i = 0; i < n; i++) {
        size_t x = i / R->inner, r = i - x * R->inner;
        ez_fe2 a = val(R, j, i);
        ez_fe2 b = x < R->hin ? val(R, j, (x + R->half) * R->inner + r) : ez_fe2_zero();
        dst[i] = ez_fe2_add(a, ez_fe2_mul(rho, ez_fe2_sub(b, a)));
    }
}

static bool box_check(const ez_sumcheck_desc *d, const ez_sumcheck_box *box)
{
    if (ez_sumcheck_desc_check(d) != EZ_OK || d->nterms != 1 || d->term[0].nf != d->nfactors ||
        d->nfactors > EZ_SC_MAX_TERM_FACTORS || box->nblocks > EZ_SC_MAX_VARS || ez_sumcheck_box_size(box) == 0)
        return false;
    for (unsigned i = 0; i < d->nfactors; i++)
        for (unsigned k = 0; k < i; k++)
            if (d->term[0].f[i] == d->term[0].f[k])
                return false;
    unsigned n = 0;
    for (unsigned b = 0; b < box->nblocks; b++)
        n += box->bits[b];
    for (unsigned j = 0; j < d->nvars; j++)
        if (d->order[j] != j)
            return false;
    return n == d->nvars;
}

ez_status ez_sumcheck_prove_box(ez_transcript *t, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                const ez_fe2 *eq_point, const ez_sumcheck_box *box,
                                const ez_sumcheck_factor *factors, ez_fe2 claim, ez_sumcheck_proof *proof,
                                ez_fe2 *point, ez_fe2 *evals, uint64_t *touched)
{
    ez_status st = EZ_OK;
    ez_fe2 *own[EZ_SC_MAX_FACTORS] = {NULL}, *wc = NULL, *wi = NULL, *tmp = NULL;
    if (!t || !proof || !d || !box || !factors || !box_check(d, box) || (d->eq_vars && !eq_point))
        return EZ_ERR_INVALID;
    const unsigned n = d->nvars, nf = d->nfactors, D = nf, deg = ez_sumcheck_degree(d);
    for (unsigned j = 0; j < nf; j++)
        if (!factors[j].base == !factors[j].ext)
            return EZ_ERR_INVALID;
    if (n == 0) /* one entry: the dense prover is this prover */
        return ez_sumcheck_prove(t, d, coeffs, eq_point, factors, claim, proof, point, evals);
    if ((st = ez_sumcheck_proof_alloc(proof, n, deg, nf)) != EZ_OK)
        return st;

    ez_sumcheck_absorb_header(t, d, deg, coeffs, eq_point, claim);
    ez_fe2 rb[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS];
    for (unsigned v = 0, k = 0; v < n; v++)
        rb[v] = (d->eq_vars >> v) & 1 ? eq_point[k++] : ez_fe2_zero();

    /* Blocks: first variable, remaining bits, current extent. */
    unsigned nb = box->nblocks, first[EZ_SC_MAX_VARS], K[EZ_SC_MAX_VARS];
    uint64_t E[EZ_SC_MAX_VARS];
    for (unsigned b = 0, v = 0; b < nb; b++) {
        first[b] = v;
        K[b] = box->bits[b];
        E[b] = box->ext[b];
        v += box->bits[b];
    }
    /* Scratch: the first bind halves the leading block at least; the eq tables of a block
     * over its bits (<= 2 x its extent) and of everything after it (<= the table). */
    const uint64_t size0 = ez_sumcheck_box_size(box);
    uint64_t wc_cap = 1, maxbits = 0;
    for (unsigned b = 0; b < nb; b++)
        if (box->bits[b] > maxbits)
            maxbits = box->bits[b];
    wc_cap = (uint64_t)1 << maxbits;
    wc = ez_alloc_aligned(wc_cap, sizeof *wc);
    wi = ez_alloc_aligned(size0, sizeof *wi);
    tmp = ez_alloc_aligned(wc_cap, sizeof *tmp);
    if (!wc || !wi || !tmp) {
        st = EZ_ERR_NOMEM;
        goto out;
    }

    box_round R;
    memset(&R, 0, sizeof R);
    R.nf = nf;
    R.D = D;
    for (unsigned j = 0; j < nf; j++) {
        R.fb[j] = factors[j].base;
        R.fe[j] = factors[j].ext;
    }
    const ez_fe2 coef = coeffs ? coeffs[0] : ez_fe2_one();
    ez_sc_gruen G;
    ez_sc_gruen_init(&G, D, deg, claim);
    int wi_block = -1; /* the block whose successors wi weighs */
    bool wi_on = false;
    uint64_t reads = 0;

    for (unsigned round = 0; round < n; round++) {
        unsigned c = 0;
        while (K[c] == 0)
            c++;
        const unsigned v = round;
        const bool inb = (d->eq_vars >> v) & 1;
        const ez_fe2 rv = rb[v];
        R.half = (size_t)1 << (K[c] - 1);
        R.lo = E[c] < R.half ? (size_t)E[c] : R.half;
        R.hin = E[c] > R.half ? (size_t)(E[c] - R.half) : 0;
        R.inner = 1;
        for (unsigned b = c + 1; b < nb; b++)
            R.inner *= (size_t)E[b];
        R.need1 = inb && ez_fe2_is_zero(rv);
        reads += (uint64_t)E[c] * R.inner;
        /* eq weights: block c's variables below the bound one, and the untouched blocks
         * after c (built once per block) */
        R.wc = block_eq(wc, first[c] + box->bits[c] - K[c] + 1, K[c] - 1, d->eq_vars, rb) ? wc : NULL;
        if (wi_block != (int)c) {
            wi_block = (int)c;
            size_t m = 1;
            wi[0] = ez_fe2_one();
            wi_on = false;
            for (unsigned b = c + 1; b < nb; b++) {
                /* wi over blocks c+1..b from wi over c+1..b-1, back to front: entry i
                 * is read before anything at or below i*E[b] is written */
                bool on = block_eq(tmp, first[b], box->bits[b], d->eq_vars, rb);
                wi_on = wi_on || on;
                for (size_t i = m; i-- > 0;) {
                    ez_fe2 w = wi[i];
                    for (size_t e = 0; e < E[b]; e++)
                        wi[i * E[b] + e] = on ? ez_fe2_mul(w, tmp[e]) : w;
                }
                m *= (size_t)E[b];
            }
        }
        R.wi = wi_on ? wi : NULL;

        ez_fe2 q[BOX_NPTS];
        round_sums(&R, q);
        for (unsigned k = 0; k <= D; k++)
            q[k] = ez_fe2_mul(q[k], coef);
        ez_fe2 rho = ez_sc_gruen_round(&G, t, q, inb, R.need1, rv, proof->rounds + (size_t)round * deg);
        pt[v] = rho;

        /* bind: the tables shrink to lo x inner */
        for (unsigned j = 0; j < nf; j++) {
            if (!own[j] && !(own[j] = ez_alloc_huge(R.lo * R.inner, sizeof(ez_fe2)))) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            bind(&R, j, own[j], rho);
            R.fb[j] = NULL;
            R.fe[j] = own[j];
        }
        E[c] = R.lo;
        K[c]--;
    }
    for (unsigned j = 0; j < nf; j++)
        proof->evals[j] = R.fe[j][0];
    ez_sumcheck_prover_finish(t, proof, pt, point, evals);
    if (touched)
        *touched += reads;
out:
    for (unsigned j = 0; j < EZ_SC_MAX_FACTORS; j++)
        free(own[j]);
    EZ_FREE_ALL(wc, wi, tmp);
    if (st != EZ_OK)
        ez_sumcheck_proof_clear(proof);
    return st;
}

/* whir_prove — the WHIR opening prover (ez_whir_open, lib/whir.h): the protocol of
 * [WHIR] §5 with the parameters, transcript and proof format of
 * docs/protocol-kernel-pcs.md §9 (the steps below are named as in that table).
 *
 * The sum sum_x f(x) W(x) is kept in two parts while variables are bound:
 *   dense:  tables f and W over the remaining variables (W: the claims after round 0 and
 *           every out-of-domain constraint);
 *   sparse: the in-domain ("shift") constraints coef * eq(pow(y), x), one per query. For
 *           the k sumcheck rounds of oracle i each contributes
 *           sum_t coef eq(pow_low(y), t) P(t), P(t) = g_t(y^(2^k)) = row t of f_i at
 *           y^(2^k) — a point of oracle i's domain (rates nondecreasing, whir.h), so P
 *           is the leaf the prover has just encoded: no table of size 2^m per query.
 * Round 0 has no dense part: a claim term on a block of 2^b entries gives P(t) =
 * sum_u eq(z_mid, u) s[off + u 2^k0 + t], one pass over its own block. */
#include <stdlib.h>
#include <string.h>

#include "lib/fe2_dot.h"
#include "lib/merkle.h"
#include "lib/ntt.h"
#include "lib/whir.h"
#include "lib/whir_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Tables at least this long are processed with OpenMP. */
#define EZ_WHIR_PAR_MIN (1u << 12)

/* One in-domain constraint: coef * eq(pow(y), .) on the current variables, from the
 * point w_{N_a}^e of oracle a. */
typedef struct {
    ez_fe2 coef;
    uint64_t e;
    unsigned a;
    ez_fe y;
} shift_term;

/* The sparse part during one round: nt tables E (coef * eq over the 2^k folded bits) and
 * P, each 2^k entries, term j at j << k. */
typedef struct {
    size_t nt;
    unsigned k;
    ez_fe2 *E, *P;
} sparse_part;

typedef struct {
    const ez_whir_params *par;
    ez_transcript *t;
    ez_writer *w;
    unsigned cheat; /* testing only: EZ_WHIR_CHEAT_* */
    size_t len;      /* current dense length (0 in round 0) */
    ez_fe2 *f, *W, *tmp;
    sparse_part sp;
} prover;

/* ---- sumcheck rounds ------------------------------------------------------------------ */

/* g(0) and g(2) of the dense part over pairs (2i, 2i+1), i < half. */
static void dense_round(const ez_fe2 *f, const ez_fe2 *W, size_t half, ez_fe2 *g0, ez_fe2 *g2)
{
    ez_fe2 s0 = ez_fe2_zero(), s2 = ez_fe2_zero();
#pragma omp parallel if (half >= EZ_WHIR_PAR_MIN)
    {
        ez_fe2 a0 = ez_fe2_zero(), a2 = ez_fe2_zero();
#pragma omp for schedule(static) nowait
        for (size_t i = 0; i < half; i++) {
            ez_fe2 f0 = f[2 * i], f1 = f[2 * i + 1], w0 = W[2 * i], w1 = W[2 * i + 1];
            a0 = ez_fe2_add(a0, ez_fe2_mul(f0, w0));
            ez_fe2 f2 = ez_fe2_sub(ez_fe2_add(f1, f1), f0), w2 = ez_fe2_sub(ez_fe2_add(w1, w1), w0);
            a2 = ez_fe2_add(a2, ez_fe2_mul(f2, w2));
        }
#pragma omp critical
        {
            s0 = ez_fe2_add(s0, a0);
            s2 = ez_fe2_add(s2, a2);
        }
    }
    *g0 = s0;
    *g2 = s2;
}

/* out[i] = p[2i] + r (p[2i+1] - p[2i]), i < half (out must not alias p). */
static void bind_low(ez_fe2 *out, const ez_fe2 *p, size_t half, ez_fe2 r)
{
#pragma omp parallel for schedule(static) if (half >= EZ_WHIR_PAR_MIN)
    for (size_t i = 0; i < half; i++)
        out[i] = ez_fe2_add(p[2 * i], ez_fe2_mul(r, ez_fe2_sub(p[2 * i + 1], p[2 * i])));
}

/* One sumcheck round over both parts (round `rd` of the sparse tables): send g(0), g(2),
 * draw the challenge, bind ([WHIR] §5: a sumcheck round on f * w). */
static ez_fe2 sumcheck_round(prover *pv, unsigned rd)
{
    ez_fe2 g0 = ez_fe2_zero(), g2 = ez_fe2_zero();
    if (pv->len >= 2)
        dense_round(pv->f, pv->W, pv->len / 2, &g0, &g2);
    sparse_part *sp = &pv->sp;
    size_t sz = sp->nt ? (size_t)1 << (sp->k - rd) : 0, stride = (size_t)1 << sp->k;
    /* the sparse terms side by side when there are many (round 0 of nanoGPT's advice:
     * 2,081 terms of 2^5 entries; the field sums are exact, so any order gives the same
     * message) */
    bool par = sp->nt * sz >= 2 * EZ_WHIR_PAR_MIN;
#pragma omp parallel if (par)
    {
        ez_fe2 a0 = ez_fe2_zero(), a2 = ez_fe2_zero();
#pragma omp for schedule(static) nowait
        for (size_t j = 0; j < sp->nt; j++) {
            const ez_fe2 *E = sp->E + j * stride, *P = sp->P + j * stride;
            for (size_t i = 0; i < sz / 2; i++) {
                ez_fe2 e0 = E[2 * i], e1 = E[2 * i + 1], p0 = P[2 * i], p1 = P[2 * i + 1];
                a0 = ez_fe2_add(a0, ez_fe2_mul(e0, p0));
                a2 = ez_fe2_add(a2,
                                ez_fe2_mul(ez_fe2_sub(ez_fe2_add(e1, e1), e0), ez_fe2_sub(ez_fe2_add(p1, p1), p0)));
            }
        }
#pragma omp critical
        {
            g0 = ez_fe2_add(g0, a0);
            g2 = ez_fe2_add(g2, a2);
        }
    }
    ez_fe2 g[2] = {g0, g2};
    ez_writer_bytes(pv->w, g, sizeof g);
    ez_transcript_absorb_fe2(pv->t, EZ_WHIR_L_ROUND, g, 2);
    ez_fe2 r = ez_transcript_challenge_fe2(pv->t, EZ_WHIR_L_FOLD);
    if (pv->len >= 2) {
        size_t half = pv->len / 2;
        bind_low(pv->tmp, pv->f, half, r);
        ez_fe2 *x = pv->f;
        pv->f = pv->tmp;
        pv->tmp = x;
        bind_low(pv->tmp, pv->W, half, r);
        x = pv->W;
        pv->W = pv->tmp;
        pv->tmp = x;
        pv->len = half;
    }
#pragma omp parallel for schedule(static) if (par)
    for (size_t j = 0; j < sp->nt; j++) {
        ez_fe2 *E = sp->E + j * stride, *P = sp->P + j * stride;
        /* in place is safe sequentially: entry i is written after entries 2i, 2i+1 are read */
        for (size_t i = 0; i < sz / 2; i++) {
            E[i] = ez_fe2_add(E[2 * i], ez_fe2_mul(r, ez_fe2_sub(E[2 * i + 1], E[2 * i])));
            P[i] = ez_fe2_add(P[2 * i], ez_fe2_mul(r, ez_fe2_sub(P[2 * i + 1], P[2 * i])));
        }
    }
    return r;
}

/* ---- round 0: the claim terms ---------------------------------------------------------- */

/* cs[t] = the dot product of eqlo with row t of a chunk of `chunk` rows (R entries each,
 * row-major: entry u R + t). */
static void chunk_dots(ez_fe2 *cs, const ez_fe *rows, const ez_fe2 *eqlo, size_t chunk, size_t R)
{
    for (size_t t = 0; t < R; t++)
        cs[t] = ez_fe2_zero();
#if EZ_FE2_DOT_LANES
    if (R >= 8) {
        /* eight columns at a time, copied out contiguous first: rows 2^k0 entries apart
         * fall into a few cache sets, and the lanes read each twice (chunk <= 2^8 rows,
         * claim_tables) */
        ez_fe blk[256 * 8];
        bool ok = chunk <= 256;
        for (size_t t0 = 0; t0 < R && ok; t0 += 8) {
            for (size_t u = 0; u < chunk; u++)
                memcpy(blk + 8 * u, rows + u * R + t0, 8 * sizeof *blk);
            ok = ez_fe2_acc8_base(cs + t0, eqlo, blk, 8, chunk);
        }
        EZ_VERIFY_CHECK(ok);
        return;
    }
#endif
    for (size_t t = 0; t < R; t++) {
        /* 64x64-bit products summed in 192 bits per coordinate, reduced once */
        unsigned __int128 a0 = 0, a1 = 0;
        uint64_t c0 = 0, c1 = 0;
        for (size_t u = 0; u < chunk; u++) {
            uint64_t x = rows[u * R + t];
            unsigned __int128 q0 = (unsigned __int128)eqlo[u].c0 * x, q1 = (unsigned __int128)eqlo[u].c1 * x;
            a0 += q0;
            c0 += a0 < q0;
            a1 += q1;
            c1 += a1 < q1;
        }
        /* 2^128 = -2^32 (mod p) since 2^96 = -1 */
        ez_fe top0 = ez_fe_mul(ez_fe_from_u64(c0), (ez_fe)1 << 32);
        ez_fe top1 = ez_fe_mul(ez_fe_from_u64(c1), (ez_fe)1 << 32);
        cs[t] = ez_fe2_make(ez_fe_sub(ez_fe_reduce128(a0), top0), ez_fe_sub(ez_fe_reduce128(a1), top1));
    }
}

/* P += sum over the chunks ch < nch of eqmid[ch] times the chunk's dot products with eqlo
 * (claim_tables), the chunks shared among the team of the enclosing parallel region. */
static void claim_chunks(ez_fe2 *P, const ez_fe *blk, const ez_fe2 *eqlo, const ez_fe2 *eqmid, size_t nch,
                         size_t chunk, size_t R)
{
    ez_fe2 part[256], cs[256];
    for (size_t t = 0; t < R; t++)
        part[t] = ez_fe2_zero();
#pragma omp for schedule(static) nowait
    for (size_t ch = 0; ch < nch; ch++) {
        chunk_dots(cs, blk + ch * chunk * R, eqlo, chunk, R);
        for (size_t t = 0; t < R; t++)
            part[t] = ez_fe2_add(part[t], ez_fe2_mul(eqmid[ch], cs[t]));
    }
#pragma omp critical
    for (size_t t = 0; t < R; t++)
        P[t] = ez_fe2_add(P[t], part[t]);
}

/* A claim term whose block has at least this many entries is read by the whole team
 * (claim_chunks); a smaller one by one thread, terms side by side (claim_tables_all). */
#define EZ_WHIR_TERM_TEAM_LOG 16u

/* E = coef * eq over the k0 low bits of the term; P = the rows' values on its block
 * (eqmid: 2^(b - k0 - 8) entries of scratch). A term of 2^EZ_WHIR_TERM_TEAM_LOG entries
 * or more is read by a team (called outside a parallel region), a smaller one here. */
static void claim_tables(const ez_whir_prover *p, const ez_whir_term *w, unsigned k0, ez_fe2 *E, ez_fe2 *P,
                         ez_fe2 *eqmid)
{
    size_t R = (size_t)1 << k0;
    ez_fe2 zk[8];
    unsigned nb = w->b < k0 ? w->b : k0;
    for (unsigned j = 0; j < nb; j++)
        zk[j] = w->z[j];
    for (unsigned j = nb; j < k0; j++) /* bits fixed by the block offset */
        zk[j] = ez_fe2_from_fe((w->off >> j) & 1);
    ez_whir_eq_bits(E, zk, k0);
    for (size_t t = 0; t < R; t++)
        E[t] = ez_fe2_mul(E[t], w->coef);
    if (w->b < k0) {
        const ez_fe *row = p->s + ((w->off >> k0) << k0);
        for (size_t t = 0; t < R; t++)
            P[t] = ez_fe2_from_fe(row[t]);
        return;
    }
    /* P(t) = sum_u eq(z_mid, u) s[off + u R + t] over the 2^(b - k0) rows of the block,
     * in chunks of 2^nl rows: eq(z_mid, u) = eq_lo(u mod 2^nl) eq_hi(u >> nl), so each
     * chunk is a dot product with the one small table eq_lo (its rows and eq_lo stay in
     * cache while every t, or every 8 lanes of t, runs over them with its accumulators in
     * registers), then one product by eq_hi: no table of 2^(b - k0) entries to build */
    unsigned nm = w->b - k0, nl = nm < 8 ? nm : 8;
    size_t chunk = (size_t)1 << nl, nch = (size_t)1 << (nm - nl);
    ez_fe2 eqlo[256], cs[256];
    ez_whir_eq_bits(eqlo, w->z + k0, nl);
    ez_whir_eq_bits(eqmid, w->z + k0 + nl, nm - nl);
    const ez_fe *blk = p->s + w->off;
    for (size_t t = 0; t < R; t++)
        P[t] = ez_fe2_zero();
    if (w->b >= EZ_WHIR_TERM_TEAM_LOG) {
#pragma omp parallel
        claim_chunks(P, blk, eqlo, eqmid, nch, chunk, R);
        return;
    }
    for (size_t ch = 0; ch < nch; ch++) {
        chunk_dots(cs, blk + ch * chunk * R, eqlo, chunk, R);
        for (size_t t = 0; t < R; t++)
            P[t] = ez_fe2_add(P[t], ez_fe2_mul(eqmid[ch], cs[t]));
    }
}

/* Round 0's tables of every claim term (term x at x << k0 in E and P). Thousands of small
 * terms (nanoGPT's advice: 2,081, most of 2^6-2^12 entries) were a serial stretch of the
 * openings: they run side by side, one term per thread at a time, each thread with its
 * own scratch (a small term's eqmid has at most 2^(15 - k0 - 8) entries); then each
 * large term with the whole team on its chunks. */
static void claim_tables_all(const ez_whir_prover *p, const ez_whir_term *terms, size_t nterms, unsigned k0,
                             ez_fe2 *E, ez_fe2 *P, ez_fe2 *eqmid)
{
    size_t nsmall = 0;
    for (size_t x = 0; x < nterms; x++)
        nsmall += terms[x].b < EZ_WHIR_TERM_TEAM_LOG;
#pragma omp parallel for schedule(dynamic, 8) if (nsmall >= 64)
    for (size_t x = 0; x < nterms; x++) {
        ez_fe2 em[1u << (EZ_WHIR_TERM_TEAM_LOG - 8)];
        if (terms[x].b < EZ_WHIR_TERM_TEAM_LOG)
            claim_tables(p, &terms[x], k0, E + (x << k0), P + (x << k0), em);
    }
    for (size_t x = 0; x < nterms; x++)
        if (terms[x].b >= EZ_WHIR_TERM_TEAM_LOG)
            claim_tables(p, &terms[x], k0, E + (x << k0), P + (x << k0), eqmid);
}

/* After an instance's round 0: its fold sum_t eq(alpha, t) row_t into f[0..n1) (the
 * first n1 fold entries: all 2^(m - k0), or a batched instance's live ones) and its
 * bound claim terms into W (the same entries, zero on entry; the terms lie inside). */
static void round0_finish(prover *pv, const ez_whir_prover *p, const ez_whir_term *terms, size_t nterms,
                          const ez_fe2 *alpha, ez_fe2 *eqmid, ez_fe2 *f, ez_fe2 *W, size_t n1)
{
    unsigned k0 = p->par.k[0];
    size_t R = (size_t)1 << k0;
    ez_fe2 eqa[256];
    ez_whir_eq_bits(eqa, alpha, k0);
    /* rows past the real data are zero: skip their dot products */
    size_t live = (size_t)((p->len + R - 1) >> k0);
#pragma omp parallel for schedule(static) if (n1 >= EZ_WHIR_PAR_MIN)
    for (size_t y = 0; y < n1; y++)
        f[y] = y < live ? ez_fe2_dot_base(eqa, p->s + y * R, R) : ez_fe2_zero();
    for (size_t j = 0; j < nterms; j++) {
        const ez_whir_term *w = &terms[j];
        ez_fe2 c = pv->sp.E[j << k0]; /* coef * eq(z_low, alpha) after the k0 rounds */
        uint64_t base = w->off >> k0;
        if (w->b <= k0) {
            W[base] = ez_fe2_add(W[base], c);
            continue;
        }
        unsigned nm = w->b - k0;
        ez_whir_eq_bits_scaled(eqmid, w->z + k0, nm, c);
        size_t nu = (size_t)1 << nm;
        if (nu < EZ_WHIR_PAR_MIN) { /* most terms: no (inactive) parallel region to enter */
            for (size_t u = 0; u < nu; u++)
                W[base + u] = ez_fe2_add(W[base + u], eqmid[u]);
            continue;
        }
#pragma omp parallel for schedule(static)
        for (size_t u = 0; u < nu; u++)
            W[base + u] = ez_fe2_add(W[base + u], eqmid[u]);
    }
}

/* W[x] += sum_j coef[j] eq(pow(y_j), x) for x < 2^b, y_j base points: the queries to a
 * batched instance's oracle 0 as constraints on its block of the stack (§9a). eq splits
 * into the low 10 bits and the rest, so each entry is one lazy dot product over the
 * queries: on lanes eight entries at once (ez_fe2_acc8_base over a query-major table of
 * the low parts), else one 192-bit dot product per entry. Cost about 2^b nq multiplies,
 * OpenMP. Returns EZ_OK or EZ_ERR_NOMEM. */
static ez_status add_block_queries(ez_fe2 *W, unsigned b, const ez_fe *y, const ez_fe2 *coef, size_t nq)
{
    unsigned lo = b < 10 ? b : 10, hi = b - lo;
    size_t nlo = (size_t)1 << lo, nhi = (size_t)1 << hi;
    ez_fe *elo = ez_alloc_array(nlo * nq, sizeof *elo), *ehi = ez_alloc_array(nhi * nq, sizeof *ehi);
    ez_fe *tmp = ez_alloc_array(nlo, sizeof *tmp);
    bool fail = elo == NULL || ehi == NULL || tmp == NULL;
    /* elo in groups of 8 entries, query-major, 8 entries per step */
    bool lanes = EZ_FE2_DOT_LANES && nlo >= 8 && nq <= EZ_FE2_ACC8_MAX;
    if (!fail) {
        for (size_t q = 0; q < nq; q++) {
            ez_fe r[EZ_WHIR_MAX_VARS], v = y[q];
            for (unsigned bit = 0; bit < b; bit++) {
                r[bit] = v;
                v = ez_fe_sqr(v);
            }
            ez_whir_eq_bits_base(tmp, r, lo);
            if (lanes) /* elo[xl / 8][q][xl % 8]: each group of eight entries query-major,
                        * its nq rows contiguous (not 2^10 entries apart: one cache set) */
                for (size_t xl = 0; xl < nlo; xl += 8)
                    memcpy(elo + xl * nq + 8 * q, tmp + xl, 8 * sizeof *tmp);
            else /* elo[xl][q]: the dot runs over q */
                for (size_t xl = 0; xl < nlo; xl++)
                    elo[xl * nq + q] = tmp[xl];
            ez_whir_eq_bits_base(ehi + q * nhi, r + lo, hi);
        }
#pragma omp parallel if (nhi * nlo * nq >= (1u << 16))
        {
            ez_fe2 *h = ez_alloc_array(nq, sizeof *h);
            if (h == NULL) {
#pragma omp atomic write
                fail = true;
            }
#pragma omp for schedule(static)
            for (size_t xh = 0; xh < nhi; xh++) {
                if (h == NULL)
                    continue;
                for (size_t q = 0; q < nq; q++)
                    h[q] = ez_fe2_mul_fe(coef[q], ehi[q * nhi + xh]);
                ez_fe2 *row = W + xh * nlo;
                if (lanes) { /* nq <= EZ_FE2_ACC8_MAX: never refused */
                    for (size_t xl = 0; xl < nlo; xl += 8)
                        (void)ez_fe2_acc8_base(row + xl, h, elo + xl * nq, 8, nq);
                    continue;
                }
                for (size_t xl = 0; xl < nlo; xl++)
                    row[xl] = ez_fe2_add(row[xl], ez_fe2_dot_base(h, elo + xl * nq, nq));
            }
            free(h);
        }
    }
    free(elo);
    free(ehi);
    free(tmp);
    return fail ? EZ_ERR_NOMEM : EZ_OK;
}

/* ---- queries ------------------------------------------------------------------------- */

/* Draw oracle o's queries; write the distinct leaves and their Merkle batch opening. */
static ez_status answer_queries(prover *pv, const ez_whir_oracle *o, unsigned nq, uint64_t *q, uint64_t *d,
                                size_t *nd)
{
    unsigned logN = o->logn + o->c;
    *nd = ez_whir_draw_queries(pv->t, logN, nq, q, d);
    for (size_t j = 0; j < *nd; j++)
        ez_writer_bytes(pv->w, o->enc + d[j] * o->width, o->width * sizeof(ez_fe));
    size_t nmp = ez_merkle_batch_count(logN, d, *nd);
    ez_digest *mp = ez_alloc_array(nmp ? nmp : 1, sizeof *mp);
    if (mp == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = ez_merkle_batch_open(o->tree, d, *nd, mp);
    if (st == EZ_OK)
        ez_merkle_digests_write(pv->w, mp, nmp);
    free(mp);
    return st;
}

/* answer_queries for an instance's oracle 0: the queried leaves are copied from the
 * codeword if the commitment kept it (EZ_WHIR_KEEP_LOG), else encoded alone
 * (ez_whir_prover_leaves0). draw: this instance
 * draws the queries (q, d, *nd), else it is in a group and reuses its first instance's
 * (§9c); tree non-NULL: the group ends here, its Merkle batch opening follows. */
static ez_status answer_queries0(prover *pv, const ez_whir_prover *p, bool draw, const ez_merkle *tree,
                                 unsigned nq, uint64_t *q, uint64_t *d, size_t *nd)
{
    const ez_whir_oracle *o = &p->o0;
    unsigned logN = o->logn + o->c;
    if (draw)
        *nd = ez_whir_draw_queries(pv->t, logN, nq, q, d);
    ez_fe *leaves = ez_alloc_array(*nd ? *nd * o->width : 1, sizeof *leaves);
    size_t nmp = ez_merkle_batch_count(logN, d, *nd);
    ez_digest *mp = ez_alloc_array(nmp ? nmp : 1, sizeof *mp);
    ez_status st = leaves == NULL || mp == NULL ? EZ_ERR_NOMEM : EZ_OK;
    if (st == EZ_OK && o->enc != NULL) /* the commitment kept the codeword */
        for (size_t j = 0; j < *nd; j++)
            memcpy(leaves + j * o->width, o->enc + d[j] * o->width, o->width * sizeof *leaves);
    else if (st == EZ_OK)
        st = ez_whir_prover_leaves0(p, d, *nd, leaves);
    ez_whir_prover_release(p); /* the leaves read all of s: one instance's at a time */
    if (st == EZ_OK && pv->cheat == EZ_WHIR_CHEAT_LEAF && !draw)
        leaves[0] = ez_fe_add(leaves[0], ez_fe_from_u64(1)); /* testing only */
    if (st == EZ_OK)
        ez_writer_bytes(pv->w, leaves, *nd * o->width * sizeof *leaves);
    if (st == EZ_OK && tree != NULL && (st = ez_merkle_batch_open(tree, d, *nd, mp)) == EZ_OK) {
        if (pv->cheat == EZ_WHIR_CHEAT_SIBLING && !draw && nmp > 0)
            mp[nmp - 1].h[0] ^= 1; /* testing only */
        ez_merkle_digests_write(pv->w, mp, nmp);
    }
    ez_merkle_release(tree); /* its paths' pages, when spilled */
    free(leaves);
    free(mp);
    return st;
}

/* Testing only (EZ_WHIR_CHEAT_SWAP): the first two instances of a group answer with each
 * other's leaves. */
static const ez_whir_prover *swapped(const ez_whir_prover *const *ps, const uint8_t *joined, size_t n, size_t j,
                                     unsigned cheat)
{
    if (cheat != EZ_WHIR_CHEAT_SWAP || joined == NULL)
        return ps[j];
    if (j + 1 < n && !joined[j] && joined[j + 1])
        return ps[j + 1];
    if (joined[j] && (j < 2 || !joined[j - 1]))
        return ps[j - 1];
    return ps[j];
}

/* Instance j's place in its group (joined, §9c): *h its first instance; returns the tree
 * that authenticates the group's leaves if j is its last instance, else NULL. */
static const ez_merkle *group_of(const ez_whir_prover *const *ps, const uint8_t *joined,
                                 const ez_merkle *const *tree, size_t n, size_t j, size_t *h)
{
    if (joined == NULL || !joined[j])
        *h = j;
    if (joined != NULL && j + 1 < n && joined[j + 1])
        return NULL;
    return *h == j ? ps[j]->o0.tree : tree[*h];
}

/* Sparse tables of the shift terms for oracle o (index i): E = coef * eq(pow_low(y), .),
 * P = the leaf at y^(2^k). */
static void shift_tables(prover *pv, const ez_whir_params *par, unsigned i, const ez_whir_oracle *o,
                         const shift_term *st, size_t ns)
{
    unsigned k = par->k[i];
    size_t R = (size_t)1 << k;
    uint64_t N = (uint64_t)1 << (o->logn + o->c);
    pv->sp.nt = ns;
    pv->sp.k = k;
    for (size_t j = 0; j < ns; j++) {
        ez_fe2 r[8];
        ez_fe y = st[j].y;
        for (unsigned b = 0; b < k; b++) {
            r[b] = ez_fe2_from_fe(y);
            y = ez_fe_sqr(y);
        }
        ez_fe2 *E = pv->sp.E + j * R, *P = pv->sp.P + j * R;
        ez_whir_eq_bits(E, r, k);
        for (size_t t = 0; t < R; t++)
            E[t] = ez_fe2_mul(E[t], st[j].coef);
        uint64_t e = (st[j].e << (par->c[i] - par->c[st[j].a])) & (N - 1);
        uint64_t q = ez_whir_point_pos(o->logn, o->c, e);
        memcpy(P, o->enc + q * o->width, R * sizeof *P);
    }
}

/* After oracle i's rounds: each term's coefficient absorbs its bound eq factor and its
 * point moves to y^(2^k). */
static void shift_advance(prover *pv, unsigned k, shift_term *st, size_t ns)
{
    for (size_t j = 0; j < ns; j++) {
        st[j].coef = pv->sp.E[j << k];
        for (unsigned b = 0; b < k; b++)
            st[j].y = ez_fe_sqr(st[j].y);
    }
}

/* ---- the opening ---------------------------------------------------------------------- */

static bool terms_ok(const ez_whir_term *terms, size_t n, unsigned m)
{
    if (n > 0 && terms == NULL)
        return false;
    for (size_t j = 0; j < n; j++) {
        const ez_whir_term *w = &terms[j];
        if (w->b > m || (w->b > 0 && w->z == NULL) || (w->off & (((uint64_t)1 << w->b) - 1)) != 0 ||
            w->off >= ((uint64_t)1 << m))
            return false;
    }
    return true;
}

/* The queries y[0..nq) (coefficients coef) to a batched instance's oracle 0 as
 * constraints on its block's pieces in the stack W: piece i gets the coefficients times
 * eq(pow(y) on the block bits above b_i, the piece's position) (§9a). nq <= 256. */
static ez_status add_piece_queries(ez_fe2 *W, const ez_whir_block *blk, unsigned logn, const ez_fe *y,
                                   const ez_fe2 *coef, size_t nq)
{
    ez_status st = EZ_OK;
    ez_fe2 scratch[256];
    if (nq > 256)
        return EZ_ERR_INVALID;
    for (unsigned i = 0; i < blk->np && st == EZ_OK; i++) {
        unsigned b = blk->b[i];
        for (size_t x = 0; x < nq; x++) {
            ez_fe v = y[x], e = 1;
            for (unsigned bit = 0; bit < logn; bit++) {
                if (bit >= b)
                    e = ez_fe_mul(e, (blk->pos[i] >> bit) & 1 ? v : ez_fe_sub(1, v));
                v = ez_fe_sqr(v);
            }
            scratch[x] = ez_fe2_mul_fe(coef[x], e);
        }
        st = add_block_queries(W + blk->off[i], b, y, scratch, nq);
    }
    return st;
}

/* The opening of n >= 1 instances (ez_whir_open_batch; n == 1 is ez_whir_open): chain
 * is the parameters of the later oracles (the instance's own for n == 1), blk the
 * blocks of the stack (§9a; NULL for n == 1: the whole fold at 0). */
static ez_status open_impl(const ez_whir_prover *const *ps, const ez_whir_claimset *cs, size_t n,
                           const uint8_t *joined, const ez_merkle *const *tree, const ez_whir_params *chain,
                           const ez_whir_block *blk, ez_transcript *t, ez_writer *proof, unsigned cheat)
{
    const ez_whir_params *par = chain;
    for (size_t j = 0; j < n; j++)
        if (!terms_ok(cs[j].terms, cs[j].nterms, ps[j]->par.m))
            return EZ_ERR_INVALID;
    ez_status st = EZ_ERR_NOMEM;
    unsigned M = par->noracles - 1, mv1 = par->m - par->k[0];
    size_t n1 = (size_t)1 << mv1, maxk = 0, nshift = 0, maxterms = 0, maxblk = 0;
    for (unsigned i = 1; i < par->noracles; i++) {
        maxk = par->k[i] > maxk ? par->k[i] : maxk;
        nshift += par->t[i];
    }
    size_t maxlive = 0;
    for (size_t j = 0; j < n; j++) {
        const ez_whir_params *pj = &ps[j]->par;
        maxk = pj->k[0] > maxk ? pj->k[0] : maxk;
        maxterms = cs[j].nterms > maxterms ? cs[j].nterms : maxterms;
        maxblk = ((size_t)1 << (pj->m - pj->k[0])) > maxblk ? (size_t)1 << (pj->m - pj->k[0]) : maxblk;
        size_t live = (size_t)ez_whir_block_live(pj, ps[j]->len);
        maxlive = live > maxlive ? live : maxlive;
        if (n > 1 && !ez_whir_terms_within(cs[j].terms, cs[j].nterms, (uint64_t)live << pj->k[0]))
            return EZ_ERR_INVALID;
    }
    /* one instance: its oracle-0 queries are sparse terms read off oracle 1's leaves */
    if (n == 1)
        nshift += par->t[0];
    size_t maxsp = maxterms > nshift ? maxterms : nshift;
    prover pv = {.par = par, .t = t, .w = proof, .cheat = cheat};
    ez_whir_oracle cur = {0}, prev = {0};
    shift_term *sh = ez_alloc_array(nshift + 1, sizeof *sh);
    uint64_t *q = ez_alloc_array(242, sizeof *q), *d = ez_alloc_array(242, sizeof *d);
    ez_fe *qy = ez_alloc_array(242, sizeof *qy);
    ez_fe2 *qc = ez_alloc_array(242, sizeof *qc);
    /* eqmid: a claim's middle bits (within an instance's block) or the final round's
     * 2^mfinal base entries, not the stack (512 MiB for GPT-2's at 512 tokens) */
    size_t lfin = (size_t)1 << par->mfinal;
    ez_fe2 *eqmid = ez_alloc_aligned(lfin > maxblk ? lfin : maxblk, sizeof *eqmid), *ood = NULL;
    ez_fe2 *alpha = ez_alloc_array(8 * n, sizeof *alpha), *fb = NULL, *Wb = NULL;
    pv.f = ez_alloc_huge(n1, sizeof(ez_fe2));
    pv.W = ez_alloc_huge(n1, sizeof(ez_fe2));
    pv.tmp = ez_alloc_huge(n1, sizeof(ez_fe2));
    pv.sp.E = ez_alloc_array((maxsp + 1) << maxk, sizeof(ez_fe2));
    pv.sp.P = ez_alloc_array((maxsp + 1) << maxk, sizeof(ez_fe2));
    /* a batched instance's fold and weight, before they go to its pieces of the stack */
    fb = n > 1 ? ez_alloc_huge(maxlive, sizeof *fb) : NULL;
    Wb = n > 1 ? ez_alloc_huge(maxlive, sizeof *Wb) : NULL;
    if (!sh || !q || !d || !qy || !qc || !eqmid || !alpha || !pv.f || !pv.W || !pv.tmp || !pv.sp.E || !pv.sp.P ||
        (n > 1 && (!fb || !Wb)))
        goto out;
    if (n > 1) {
        memset(pv.f, 0, n1 * sizeof *pv.f);
        memset(pv.W, 0, n1 * sizeof *pv.W);
        ez_transcript_absorb_u64(t, EZ_WHIR_L_BATCH, n);
    }

    /* Round 0 of every instance: k0 sumcheck rounds on its claim terms alone, then its
     * fold and bound terms into its block of the stack. */
    for (size_t j = 0; j < n; j++) {
        const ez_whir_prover *p = ps[j];
        unsigned k0 = p->par.k[0];
        ez_whir_absorb_params(t, &p->par);
        ez_transcript_absorb_fe2(t, EZ_WHIR_L_SUM, &cs[j].sigma, 1);
        pv.len = 0;
        pv.sp.nt = cs[j].nterms;
        pv.sp.k = k0;
        claim_tables_all(p, cs[j].terms, cs[j].nterms, k0, pv.sp.E, pv.sp.P, eqmid);
        for (unsigned r = 0; r < k0; r++)
            alpha[8 * j + r] = sumcheck_round(&pv, r);
        if (n == 1) {
            memset(pv.W, 0, n1 * sizeof *pv.W);
            round0_finish(&pv, p, cs[j].terms, cs[j].nterms, alpha + 8 * j, eqmid, pv.f, pv.W, n1);
            ez_whir_prover_release(p);
            continue;
        }
        /* batched: the live entries, then each piece to its place in the stack; a spilled
         * vector leaves memory before the next instance's is read */
        size_t live = (size_t)ez_whir_block_live(&p->par, p->len);
        memset(Wb, 0, live * sizeof *Wb);
        round0_finish(&pv, p, cs[j].terms, cs[j].nterms, alpha + 8 * j, eqmid, fb, Wb, live);
        ez_whir_prover_release(p);
        for (unsigned i = 0; i < blk[j].np; i++) {
            size_t len = (size_t)1 << blk[j].b[i];
            memcpy(pv.f + blk[j].off[i], fb + blk[j].pos[i], len * sizeof *fb);
            memcpy(pv.W + blk[j].off[i], Wb + blk[j].pos[i], len * sizeof *Wb);
        }
    }
    pv.len = n1;
    if (n > 1) { /* beta combines the instances' claims: block j's weight gets beta^j */
        ez_fe2 beta = ez_transcript_challenge_fe2(t, EZ_WHIR_L_BATCH_COMBINE), bp = beta;
        for (size_t j = 1; j < n; j++, bp = ez_fe2_mul(bp, beta))
            for (unsigned i = 0; i < blk[j].np; i++) {
                size_t len = (size_t)1 << blk[j].b[i];
                ez_fe2 *W = pv.W + blk[j].off[i];
#pragma omp parallel for schedule(static) if (len >= EZ_WHIR_PAR_MIN)
                for (size_t x = 0; x < len; x++)
                    W[x] = ez_fe2_mul(W[x], bp);
            }
        ez_whir_absorb_params(t, par);
    }
    if (cheat == EZ_WHIR_CHEAT_STACK) {
        /* testing only: the last instance's block of the stack is not its fold, but the
         * combined claim sum_x f W is unchanged (f[a] += W[b], f[b] -= W[a]) */
        size_t a = n > 1 ? (size_t)blk[n - 1].off[0] : 0, b = a + 1;
        pv.f[a] = ez_fe2_add(pv.f[a], pv.W[b]);
        pv.f[b] = ez_fe2_sub(pv.f[b], pv.W[a]);
    }
    const ez_whir_oracle *po = NULL; /* the chain oracle the next queries go to (NULL: the instances') */
    size_t ns = 0;

    for (unsigned i = 1; i <= M; i++) {
        unsigned mv = par->mv[i], k = par->k[i];
        size_t len = (size_t)1 << mv;
        /* commit f_i (the folded polynomial, as a new oracle) */
        st = EZ_ERR_NOMEM;
        ood = ez_alloc_huge(len, sizeof *ood);
        if (ood == NULL)
            goto out;
        ez_digest root;
        if ((st = ez_whir_oracle_commit(&cur, &root, (const ez_fe *)pv.f, k + 1, k, mv - k, par->c[i])) != EZ_OK)
            goto out;
        ez_writer_bytes(proof, root.h, 32);
        ez_transcript_absorb_bytes(t, EZ_WHIR_L_ROOT, root.h, 32);
        /* out-of-domain sample: f_i(z) = sum_x f(x) eq(pow(z), x) */
        ez_fe2 z = ez_transcript_challenge_fe2(t, EZ_WHIR_L_OODPT), zp[EZ_WHIR_MAX_VARS];
        for (unsigned b = 0; b < mv; b++) {
            zp[b] = z;
            z = ez_fe2_sqr(z);
        }
        ez_whir_eq_bits(ood, zp, mv);
        ez_fe2 ans = ez_fe2_zero();
#pragma omp parallel if (len >= EZ_WHIR_PAR_MIN)
        {
            ez_fe2 part = ez_fe2_zero();
#pragma omp for schedule(static) nowait
            for (size_t x = 0; x < len; x++)
                part = ez_fe2_add(part, ez_fe2_mul(pv.f[x], ood[x]));
#pragma omp critical
            ans = ez_fe2_add(ans, part);
        }
        ez_writer_bytes(proof, &ans, sizeof ans);
        ez_transcript_absorb_fe2(t, EZ_WHIR_L_OOD, &ans, 1);
        /* in-domain ("shift") queries to oracle i-1; for i == 1 to every instance's oracle 0 */
        size_t nd;
        ez_fe2 gamma;
        if (po == NULL) {
            /* the queries of every instance first (the codeword of one at a time), then
             * gamma, then their constraints in the same order */
            uint64_t *qall = ez_alloc_array(242 * n, sizeof *qall);
            if (qall == NULL) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
            for (size_t j = 0, h = 0; j < n && st == EZ_OK; j++) {
                const ez_merkle *tr = group_of(ps, joined, tree, n, j, &h);
                if (h != j) /* a group shares its first instance's queries (d, nd too) */
                    memcpy(qall + 242 * j, qall + 242 * h, 242 * sizeof *qall);
                st = answer_queries0(&pv, swapped(ps, joined, n, j, cheat), h == j, tr, ps[j]->par.t[0],
                                     qall + 242 * j, d, &nd);
            }
            gamma = ez_transcript_challenge_fe2(t, EZ_WHIR_L_COMBINE);
            ez_fe2 gp = ez_fe2_mul(gamma, gamma);
#pragma omp parallel for schedule(static) if (len >= EZ_WHIR_PAR_MIN)
            for (size_t x = 0; x < len; x++)
                pv.W[x] = ez_fe2_add(pv.W[x], ez_fe2_mul(gamma, ood[x]));
            for (size_t j = 0; j < n && st == EZ_OK; j++) {
                const ez_whir_params *pj = &ps[j]->par;
                unsigned logn = pj->m - pj->k[0], c0 = pj->c[0];
                for (unsigned x = 0; x < pj->t[0]; x++, gp = ez_fe2_mul(gp, gamma)) {
                    uint64_t e = ez_whir_point_exp(logn, c0, qall[242 * j + x]);
                    ez_fe y = ez_whir_root_pow(logn + c0, e);
                    if (n == 1) {
                        sh[ns++] = (shift_term){.coef = gp, .e = e, .a = 0, .y = y};
                    } else {
                        qy[x] = y;
                        qc[x] = gp;
                    }
                }
                if (n > 1)
                    st = add_piece_queries(pv.W, &blk[j], logn, qy, qc, pj->t[0]);
            }
            free(qall);
            if (st != EZ_OK)
                goto out;
        } else {
            if ((st = answer_queries(&pv, po, par->t[i - 1], q, d, &nd)) != EZ_OK)
                goto out;
            /* combination randomness: the OOD constraint gets gamma, query j
             * gamma^(j+2); W += gamma eq(pow(z), .), the queries become shift terms */
            gamma = ez_transcript_challenge_fe2(t, EZ_WHIR_L_COMBINE);
            ez_fe2 gp = ez_fe2_mul(gamma, gamma);
#pragma omp parallel for schedule(static) if (len >= EZ_WHIR_PAR_MIN)
            for (size_t x = 0; x < len; x++)
                pv.W[x] = ez_fe2_add(pv.W[x], ez_fe2_mul(gamma, ood[x]));
            unsigned logNp = po->logn + po->c;
            for (unsigned j = 0; j < par->t[i - 1]; j++, gp = ez_fe2_mul(gp, gamma)) {
                uint64_t e = ez_whir_point_exp(po->logn, po->c, q[j]);
                sh[ns++] = (shift_term){.coef = gp, .e = e, .a = i - 1, .y = ez_whir_root_pow(logNp, e)};
            }
        }
        free(ood);
        ood = NULL;
        /* oracle i-1 is done with; oracle i is queried next */
        ez_whir_oracle_clear(&prev);
        prev = cur;
        memset(&cur, 0, sizeof cur);
        po = &prev;
        /* k_i sumcheck rounds */
        shift_tables(&pv, par, i, po, sh, ns);
        for (unsigned r = 0; r < k; r++)
            sumcheck_round(&pv, r);
        shift_advance(&pv, k, sh, ns);
    }

    /* Final round: f_F in the clear (its 2^mfinal hypercube values),
     * the last oracle's queries, then the sumcheck of f_F W_F over the mfinal variables. */
    size_t lf = (size_t)1 << par->mfinal;
    ez_writer_bytes(proof, pv.f, lf * sizeof(ez_fe2));
    ez_transcript_absorb_fe2(t, EZ_WHIR_L_FINAL, pv.f, lf);
    size_t nd;
    if (po == NULL) { /* no later oracle: the instances' oracle 0 are queried */
        for (size_t j = 0, h = 0; j < n; j++) {
            const ez_merkle *tr = group_of(ps, joined, tree, n, j, &h);
            if ((st = answer_queries0(&pv, swapped(ps, joined, n, j, cheat), h == j, tr, ps[j]->par.t[0], q, d,
                                      &nd)) != EZ_OK)
                goto out;
        }
    } else if ((st = answer_queries(&pv, po, par->t[M], q, d, &nd)) != EZ_OK) {
        goto out;
    }
    /* W_F = the dense part + every shift term on the remaining variables */
    {
        ez_fe *eb = (ez_fe *)eqmid; /* lf base entries fit: lf <= lfin */
        for (size_t j = 0; j < ns; j++) {
            ez_fe r[EZ_WHIR_MAX_VARS], y = sh[j].y;
            for (unsigned b = 0; b < par->mfinal; b++) {
                r[b] = y;
                y = ez_fe_sqr(y);
            }
            ez_whir_eq_bits_base(eb, r, par->mfinal);
            for (size_t x = 0; x < lf; x++)
                pv.W[x] = ez_fe2_add(pv.W[x], ez_fe2_mul_fe(sh[j].coef, eb[x]));
        }
    }
    pv.sp.nt = 0;
    for (unsigned r = 0; r < par->mfinal; r++)
        sumcheck_round(&pv, r);
    st = proof->failed ? EZ_ERR_NOMEM : EZ_OK;
out:
    ez_whir_oracle_clear(&cur);
    ez_whir_oracle_clear(&prev);
    free(sh);
    free(q);
    free(d);
    free(qy);
    free(qc);
    free(eqmid);
    free(alpha);
    free(ood);
    free(pv.f);
    free(pv.W);
    free(pv.tmp);
    free(pv.sp.E);
    free(pv.sp.P);
    free(fb);
    free(Wb);
    return st;
}

ez_status ez_whir_open(const ez_whir_prover *p, ez_transcript *t, const ez_whir_term *terms, size_t nterms,
                       ez_fe2 sigma, ez_writer *proof)
{
    ez_whir_claimset cs = {.terms = terms, .nterms = nterms, .sigma = sigma};
    return open_impl(&p, &cs, 1, NULL, NULL, &p->par, NULL, t, proof, 0);
}

/* Groups are well formed: joined[0] == 0, each joined instance joinable with the one
 * before, every group of two or more with its tree, at most EZ_WHIR_MAX_JOIN. */
static bool groups_ok(const ez_whir_prover *const *p, const uint8_t *joined, const ez_merkle *const *tree, size_t n,
                      bool *any)
{
    *any = false;
    if (joined == NULL)
        return true;
    if (joined[0])
        return false;
    for (size_t j = 1, h = 0; j < n; j++) {
        if (!joined[j]) {
            h = j;
            continue;
        }
        *any = true;
        if (tree == NULL || tree[h] == NULL || j - h + 1 > EZ_WHIR_MAX_JOIN ||
            !ez_whir_joinable(&p[j - 1]->par, &p[j]->par))
            return false;
    }
    return true;
}

static ez_status open_batch(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n,
                            const uint8_t *joined, const ez_merkle *const *tree, ez_transcript *t, ez_writer *proof,
                            unsigned cheat)
{
    if (n == 0 || p == NULL || cs == NULL)
        return EZ_ERR_INVALID;
    bool any;
    if (!groups_ok(p, joined, tree, n, &any))
        return EZ_ERR_INVALID;
    if (n == 1 && cheat == 0)
        return ez_whir_open(p[0], t, cs[0].terms, cs[0].nterms, cs[0].sigma, proof);
    if (n == 1)
        return open_impl(p, cs, 1, NULL, NULL, &p[0]->par, NULL, t, proof, cheat);
    ez_whir_params chain;
    const ez_whir_params **par = ez_alloc_array(n, sizeof *par);
    uint64_t *lens = ez_alloc_array(n, sizeof *lens);
    ez_whir_block *blk = ez_alloc_array(n, sizeof *blk);
    ez_status st = EZ_ERR_NOMEM;
    if (par == NULL || lens == NULL || blk == NULL)
        goto out;
    for (size_t j = 0; j < n; j++) {
        par[j] = &p[j]->par;
        lens[j] = p[j]->len;
    }
    if (ez_whir_batch_params(&chain, blk, par, lens, n) == EZ_OK) {
        st = open_impl(p, cs, n, joined, tree, &chain, blk, t, proof, cheat);
    } else if (any) { /* a group's shared queries need the one chain */
        st = EZ_ERR_INVALID;
    } else { /* too large for one chain: one opening after the other */
        st = EZ_OK;
        for (size_t j = 0; j < n && st == EZ_OK; j++)
            st = ez_whir_open(p[j], t, cs[j].terms, cs[j].nterms, cs[j].sigma, proof);
    }
out:
    free(par);
    free(lens);
    free(blk);
    return st;
}

ez_status ez_whir_open_batch(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n, ez_transcript *t,
                             ez_writer *proof)
{
    return open_batch(p, cs, n, NULL, NULL, t, proof, 0);
}

ez_status ez_whir_open_joined(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n,
                              const uint8_t *joined, const ez_merkle *const *tree, ez_transcript *t, ez_writer *proof)
{
    return open_batch(p, cs, n, joined, tree, t, proof, 0);
}

ez_status ez_whir_open_batch_cheat(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n,
                                   const uint8_t *joined, const ez_merkle *const *tree, ez_transcript *t,
                                   ez_writer *proof, unsigned cheat)
{
    return open_batch(p, cs, n, joined, tree, t, proof, cheat);
}

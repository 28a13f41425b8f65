/* whir_verify — the WHIR verifier (ez_whir_verify, lib/whir.h): the verifier of [WHIR]
 * §5 with the transcript and proof format of docs/protocol-kernel-pcs.md §9.
 *
 * Checks, in order: every sumcheck round is folded into the running claim (g(1) is
 * derived, so a wrong round shows up in the final equation); every opened leaf is
 * authenticated by its oracle's root (Merkle batch opening); the folds of the last
 * oracle's opened leaves equal the final polynomial at the queried points; and the final
 * claim equals f_F(r_F) * W(r), where W(r) sums the claim terms, every out-of-domain
 * constraint and every in-domain (shift) constraint at the full challenge point r. The
 * folds of the earlier oracles' leaves and the out-of-domain answers enter the claim
 * with the combination randomness and are checked by that last equation. */
#include <stdlib.h>
#include <string.h>

#include "lib/merkle.h"
#include "lib/ntt.h"
#include "lib/whir.h"
#include "lib/whir_internal.h"

/* A constraint for the final W(r): coef * eq(pow(y), .) on the variables of chain oracle
 * i >= 1, or (i == 0) on the block of instance inst of the stack (§9a). */
typedef struct {
    ez_fe2 coef, y;
    unsigned i;
    size_t inst;
} vconstraint;

typedef struct {
    ez_transcript *t;
    ez_reader *r;
    ez_fe2 claim;
    ez_fe2 rb[EZ_WHIR_MAX_VARS]; /* challenge of each bound bit (of the chain, or of a round 0) */
    unsigned nb;                 /* bits bound so far */
} verifier;

/* One sumcheck round: g(0), g(2) from the proof, g(1) = claim - g(0). */
static bool sumcheck_round(verifier *v)
{
    ez_fe2 g[2];
    if (!ez_reader_fe2(v->r, g, 2))
        return false;
    ez_transcript_absorb_fe2(v->t, EZ_WHIR_L_ROUND, g, 2);
    ez_fe2 a = ez_transcript_challenge_fe2(v->t, EZ_WHIR_L_FOLD);
    v->claim = ez_whir_quad_eval(g[0], ez_fe2_sub(v->claim, g[0]), g[1], a);
    v->rb[v->nb++] = a;
    return true;
}

/* Queries to an oracle of 2^logN leaves (2^k rows; base entries if base, else (c0, c1)
 * pairs): draw nq of them (q, d, *nd; unless !draw: a joined group's later instance
 * reuses its first instance's, §9c), read the distinct leaves, their digests into lh[],
 * and fold each with the challenges alpha[0..k-1] (fold[]). False on a short or
 * non-canonical read. */
static bool read_leaves(verifier *v, unsigned logN, unsigned nq, unsigned k, bool base, const ez_fe2 *alpha,
                        bool draw, uint64_t *q, uint64_t *d, size_t *nd, ez_fe *leaves, ez_digest *lh, ez_fe2 *fold)
{
    size_t R = (size_t)1 << k, width = base ? R : 2 * R;
    if (draw)
        *nd = ez_whir_draw_queries(v->t, logN, nq, q, d);
    if (!ez_reader_fe(v->r, leaves, *nd * width))
        return false;
    for (size_t j = 0; j < *nd; j++)
        ez_merkle_hash_leaf(&lh[j], leaves + j * width, width);
    /* Fold(f_i, alpha)(y) = sum_t eq(alpha, t) g_t(y): the leaf's rows combined */
    ez_fe2 eqa[256];
    ez_whir_eq_bits(eqa, alpha, k);
    for (size_t j = 0; j < *nd; j++) {
        const ez_fe *lf = leaves + j * width;
        if (base) {
            fold[j] = ez_fe2_dot_base(eqa, lf, R);
        } else {
            ez_fe2 acc = ez_fe2_zero();
            for (size_t t = 0; t < R; t++)
                acc = ez_fe2_add(acc, ez_fe2_mul(eqa[t], ez_fe2_make(lf[2 * t], lf[2 * t + 1])));
            fold[j] = acc;
        }
    }
    return true;
}

/* Read the Merkle batch opening of positions d[0..nd) and check it against root with the
 * leaf digests of ng instances (lh[g * 242 + x]: instance g, position d[x]); ng > 1: a
 * joined group, each position's leaf is join(its ng digests) (lib/merkle.h). Returns
 * EZ_OK, EZ_ERR_REJECT or EZ_ERR_NOMEM. */
static ez_status check_paths(verifier *v, unsigned logN, const uint64_t *d, size_t nd, const ez_digest *lh,
                             size_t ng, const uint8_t *root)
{
    ez_status st = EZ_ERR_NOMEM;
    ez_digest *jl = ng > 1 ? ez_alloc_array(nd ? nd : 1, sizeof *jl) : NULL;
    if (ng > 1 && jl == NULL)
        return st;
    for (size_t x = 0; x < nd && ng > 1; x++) {
        ez_digest g[EZ_WHIR_MAX_JOIN];
        for (size_t i = 0; i < ng; i++)
            g[i] = lh[i * 242 + x];
        ez_merkle_hash_digests(&jl[x], g, ng);
    }
    st = EZ_ERR_REJECT;
    size_t nmp = ez_merkle_batch_count(logN, d, nd);
    /* at most nd * logN siblings: the allocation is bounded by the queries */
    ez_digest *mp = nmp == SIZE_MAX ? NULL : ez_alloc_array(nmp ? nmp : 1, sizeof *mp);
    if (nmp != SIZE_MAX && mp == NULL)
        st = EZ_ERR_NOMEM;
    if (mp != NULL && ez_merkle_digests_read(v->r, mp, nmp)) {
        ez_digest rt;
        memcpy(rt.h, root, 32);
        st = ez_merkle_batch_verify(&rt, logN, d, ng > 1 ? jl : lh, nd, mp, nmp);
    }
    free(mp);
    free(jl);
    return st;
}

/* Draw nq queries to a chain oracle, read and authenticate the distinct leaves against
 * root, fold them (read_leaves, check_paths). Returns EZ_OK, EZ_ERR_REJECT or
 * EZ_ERR_NOMEM. */
static ez_status read_queries(verifier *v, unsigned logN, unsigned nq, unsigned k, bool base, const ez_fe2 *alpha,
                              const uint8_t *root, uint64_t *q, uint64_t *d, size_t *nd, ez_fe *leaves,
                              ez_digest *lh, ez_fe2 *fold)
{
    if (!read_leaves(v, logN, nq, k, base, alpha, true, q, d, nd, leaves, lh, fold))
        return EZ_ERR_REJECT;
    return check_paths(v, logN, d, *nd, lh, 1, root);
}

/* Oracle-0 queries of instance j in its group (joined, §9c): the first instance draws,
 * the last checks the group's paths against the group's root (roots[h]); between them
 * each reads its leaves, digests into glh + 242 (j - h). */
static ez_status read_queries0(verifier *v, const ez_whir_params *const *ip, const uint8_t *const *roots,
                               const uint8_t *joined, size_t n, size_t j, size_t *h, const ez_fe2 *alpha,
                               uint64_t *q, uint64_t *d, size_t *nd, ez_fe *leaves, ez_digest *glh, ez_fe2 *fold)
{
    if (joined == NULL || !joined[j])
        *h = j;
    unsigned logN = ez_whir_log_len(ip[j], 0);
    if (!read_leaves(v, logN, ip[j]->t[0], ip[j]->k[0], true, alpha, *h == j, q, d, nd, leaves,
                     glh + 242 * (j - *h), fold))
        return EZ_ERR_REJECT;
    if (joined != NULL && j + 1 < n && joined[j + 1])
        return EZ_OK;
    return check_paths(v, logN, d, *nd, glh, j - *h + 1, roots[*h]);
}

/* The fold of the distinct leaf at position x (d sorted). */
static ez_fe2 fold_at(const uint64_t *d, size_t nd, const ez_fe2 *fold, uint64_t x)
{
    size_t lo = 0, hi = nd;
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return fold[lo];
}

static bool terms_ok(const ez_whir_term *terms, size_t n, unsigned m)
{
    if (n > 0 && terms == NULL)
        return false;
    for (size_t j = 0; j < n; j++)
        if (terms[j].b > m || (terms[j].b > 0 && terms[j].z == NULL) ||
            (terms[j].off & (((uint64_t)1 << terms[j].b) - 1)) != 0 || terms[j].off >= ((uint64_t)1 << m))
            return false;
    return true;
}

/* eq(r[b..mv1-1], the block index bits of off): block selector of the stack. */
static ez_fe2 block_sel(const ez_fe2 *r, unsigned b, unsigned mv1, uint64_t off)
{
    ez_fe2 v = ez_fe2_one();
    for (unsigned bit = b; bit < mv1; bit++)
        v = ez_fe2_mul(v, ez_whir_eq1_bit(r[bit], (unsigned)((off >> bit) & 1)));
    return v;
}

/* Instance j's weight at the chain point r (mv1 bits): the sum over its block's pieces
 * of W_j at (its round-0 challenges a, the piece's point on the block bits) times the
 * piece's selector (§9a). */
static ez_fe2 block_terms(const ez_whir_claimset *cs, const ez_whir_params *ip, const ez_fe2 *a,
                          const ez_whir_block *blk, const ez_fe2 *r, unsigned mv1)
{
    unsigned k0 = ip->k[0], logn = ip->m - k0;
    ez_fe2 pt[EZ_WHIR_MAX_VARS], w = ez_fe2_zero();
    memcpy(pt, a, k0 * sizeof *pt);
    for (unsigned i = 0; i < blk->np; i++) {
        ez_whir_piece_point(pt + k0, r, blk->b[i], blk->pos[i], logn);
        /* a term outside the piece's entries [lo, hi) is exactly zero there (a Boolean
         * coordinate of pt above both sizes differs from its offset's bit): skipped, so
         * the cost is the terms times the pieces they meet, not times every piece */
        uint64_t lo = blk->pos[i] << k0, hi = lo + ((uint64_t)1 << (blk->b[i] + k0));
        ez_fe2 wi = ez_fe2_zero();
        for (size_t x = 0; x < cs->nterms; x++) {
            const ez_whir_term *t = &cs->terms[x];
            if (t->off < hi && t->off + ((uint64_t)1 << t->b) > lo)
                wi = ez_fe2_add(wi, ez_whir_terms_eval(t, 1, pt, ip->m));
        }
        w = ez_fe2_add(w, ez_fe2_mul(wi, block_sel(r, blk->b[i], mv1, blk->off[i])));
    }
    return w;
}

/* eq(pow(y), .) of a query to instance j's oracle 0 at the chain point r: summed over its
 * block's pieces, each times its selector. */
static ez_fe2 block_query(ez_fe2 y, const ez_whir_params *ip, const ez_whir_block *blk, const ez_fe2 *r, unsigned mv1)
{
    unsigned logn = ip->m - ip->k[0];
    ez_fe2 pt[EZ_WHIR_MAX_VARS], e = ez_fe2_zero();
    for (unsigned i = 0; i < blk->np; i++) {
        ez_whir_piece_point(pt, r, blk->b[i], blk->pos[i], logn);
        e = ez_fe2_add(e, ez_fe2_mul(ez_whir_eq_pow(y, pt, logn), block_sel(r, blk->b[i], mv1, blk->off[i])));
    }
    return e;
}

/* Verify n >= 1 instances with chain parameters chain and blocks blk (n == 1: the
 * instance's own parameters, its whole fold at 0). */
static ez_status verify_impl(const ez_whir_params *const *ip, const uint8_t *const *roots, const uint8_t *joined,
                             const ez_whir_claimset *cs, size_t n, const ez_whir_params *par,
                             const ez_whir_block *blk, ez_transcript *t, ez_reader *proof)
{
    ez_status st = EZ_ERR_NOMEM;
    unsigned M = par->noracles - 1, maxk = 0, mv1 = par->m - par->k[0];
    size_t ncons = 0;
    for (unsigned i = 1; i < par->noracles; i++) {
        ncons += par->t[i] + 1;
        maxk = par->k[i] > maxk ? par->k[i] : maxk;
    }
    for (size_t j = 0; j < n; j++) {
        ncons += ip[j]->t[0] + 1;
        maxk = ip[j]->k[0] > maxk ? ip[j]->k[0] : maxk;
    }
    size_t lf = (size_t)1 << par->mfinal, lc = lf;
    for (size_t j = 0; j < n && M == 0; j++) /* the blocks' coefficients, below */
        lc = ((size_t)1 << (ip[j]->m - ip[j]->k[0])) > lc ? (size_t)1 << (ip[j]->m - ip[j]->k[0]) : lc;
    vconstraint *cons = ez_alloc_array(ncons, sizeof *cons);
    uint64_t *q = ez_alloc_array(242 * n, sizeof *q), *d = ez_alloc_array(242 * n, sizeof *d);
    size_t *nds = ez_alloc_array(n, sizeof *nds);
    ez_fe *leaves = ez_alloc_array((size_t)242 << (maxk + 1), sizeof *leaves);
    ez_fe2 *fold = ez_alloc_array(242 * n, sizeof *fold), *fin = ez_alloc_array(lf, sizeof *fin);
    ez_fe2 *coef = ez_alloc_array(lc, sizeof *coef), *alpha = ez_alloc_array(8 * n, sizeof *alpha);
    ez_fe2 *bpow = ez_alloc_array(n, sizeof *bpow);
    size_t ngmax = 1; /* the largest group: its instances' leaf digests are kept until its paths */
    for (size_t j = 1, h = 0; j < n && joined != NULL; j++) {
        h = joined[j] ? h : j;
        ngmax = j - h + 1 > ngmax ? j - h + 1 : ngmax;
    }
    ez_digest *glh = ez_alloc_array(242 * ngmax, sizeof *glh);
    if (!cons || !q || !d || !nds || !leaves || !fold || !fin || !coef || !alpha || !bpow || !glh)
        goto out;
    st = EZ_ERR_REJECT;
    verifier v = {.t = t, .r = proof, .nb = 0};
    size_t nc = 0;
    uint8_t prev_root[32];

    if (n > 1)
        ez_transcript_absorb_u64(t, EZ_WHIR_L_BATCH, n);
    /* every instance's round 0; the claims combined by powers of beta */
    ez_fe2 claim = ez_fe2_zero();
    for (size_t j = 0; j < n; j++) {
        ez_whir_absorb_params(t, ip[j]);
        ez_transcript_absorb_fe2(t, EZ_WHIR_L_SUM, &cs[j].sigma, 1);
        v.claim = cs[j].sigma;
        v.nb = 0;
        for (unsigned r = 0; r < ip[j]->k[0]; r++)
            if (!sumcheck_round(&v))
                goto out;
        memcpy(alpha + 8 * j, v.rb, ip[j]->k[0] * sizeof *alpha);
        bpow[j] = v.claim; /* the instance's claim, until beta */
    }
    if (n > 1) {
        ez_fe2 beta = ez_transcript_challenge_fe2(t, EZ_WHIR_L_BATCH_COMBINE), bp = ez_fe2_one();
        for (size_t j = 0; j < n; j++, bp = ez_fe2_mul(bp, beta)) {
            claim = ez_fe2_add(claim, ez_fe2_mul(bp, bpow[j]));
            bpow[j] = bp;
        }
        ez_whir_absorb_params(t, par);
    } else {
        claim = bpow[0];
        bpow[0] = ez_fe2_one();
    }
    v.claim = claim;
    v.nb = 0;

    for (unsigned i = 1; i <= M; i++) {
        uint8_t rt[32];
        if (!ez_reader_bytes(proof, rt, 32))
            goto out;
        ez_transcript_absorb_bytes(t, EZ_WHIR_L_ROOT, rt, 32);
        ez_fe2 z = ez_transcript_challenge_fe2(t, EZ_WHIR_L_OODPT), ans;
        if (!ez_reader_fe2(proof, &ans, 1))
            goto out;
        ez_transcript_absorb_fe2(t, EZ_WHIR_L_OOD, &ans, 1);
        if (i == 1) {
            /* every instance's oracle 0: queries, leaves, folds */
            for (size_t j = 0, h = 0; j < n; j++) {
                if (joined != NULL && joined[j]) { /* the group's queries */
                    memcpy(q + 242 * j, q + 242 * h, 242 * sizeof *q);
                    memcpy(d + 242 * j, d + 242 * h, 242 * sizeof *d);
                    nds[j] = nds[h];
                }
                if ((st = read_queries0(&v, ip, roots, joined, n, j, &h, alpha + 8 * j, q + 242 * j, d + 242 * j,
                                        &nds[j], leaves, glh, fold + 242 * j)) != EZ_OK)
                    goto out;
            }
        } else {
            if ((st = read_queries(&v, ez_whir_log_len(par, i - 1), par->t[i - 1], par->k[i - 1], false,
                                   v.rb + (v.nb - par->k[i - 1]), prev_root, q, d, &nds[0], leaves, glh, fold)) !=
                EZ_OK)
                goto out;
        }
        st = EZ_ERR_REJECT;
        ez_fe2 gamma = ez_transcript_challenge_fe2(t, EZ_WHIR_L_COMBINE), gp = ez_fe2_mul(gamma, gamma);
        /* [WHIR] §5 combination: claim += gamma ans + sum_j gamma^(j+2) Fold(f_{i-1})(y_j) */
        v.claim = ez_fe2_add(v.claim, ez_fe2_mul(gamma, ans));
        cons[nc++] = (vconstraint){.coef = gamma, .y = z, .i = i};
        if (i == 1) {
            for (size_t j = 0; j < n; j++) {
                unsigned logn = ip[j]->m - ip[j]->k[0], c = ip[j]->c[0];
                for (unsigned x = 0; x < ip[j]->t[0]; x++, gp = ez_fe2_mul(gp, gamma)) {
                    uint64_t qx = q[242 * j + x];
                    v.claim = ez_fe2_add(v.claim, ez_fe2_mul(gp, fold_at(d + 242 * j, nds[j], fold + 242 * j, qx)));
                    ez_fe y = ez_whir_root_pow(logn + c, ez_whir_point_exp(logn, c, qx));
                    cons[nc++] = (vconstraint){.coef = gp, .y = ez_fe2_from_fe(y), .i = 0, .inst = j};
                }
            }
        } else {
            unsigned logn = par->mv[i - 1] - par->k[i - 1], c = par->c[i - 1];
            for (unsigned j = 0; j < par->t[i - 1]; j++, gp = ez_fe2_mul(gp, gamma)) {
                v.claim = ez_fe2_add(v.claim, ez_fe2_mul(gp, fold_at(d, nds[0], fold, q[j])));
                ez_fe y = ez_whir_root_pow(logn + c, ez_whir_point_exp(logn, c, q[j]));
                cons[nc++] = (vconstraint){.coef = gp, .y = ez_fe2_from_fe(y), .i = i};
            }
        }
        memcpy(prev_root, rt, 32);
        for (unsigned r = 0; r < par->k[i]; r++)
            if (!sumcheck_round(&v))
                goto out;
    }
    /* final polynomial, then the last oracle's folds must match it ([WHIR] §5, final round) */
    if (!ez_reader_fe2(proof, fin, lf))
        goto out;
    ez_transcript_absorb_fe2(t, EZ_WHIR_L_FINAL, fin, lf);
    if (M == 0) {
        /* no later oracle: every instance's oracle 0 against its block of f_F */
        for (size_t j = 0, h = 0; j < n; j++) {
            unsigned logn = ip[j]->m - ip[j]->k[0], c = ip[j]->c[0];
            size_t nblk = (size_t)1 << logn;
            memset(coef, 0, nblk * sizeof *coef); /* the block: its pieces, zero beyond */
            for (unsigned i = 0; i < blk[j].np; i++)
                memcpy(coef + blk[j].pos[i], fin + blk[j].off[i], ((size_t)1 << blk[j].b[i]) * sizeof *coef);
            ez_ntt_mobius((ez_fe *)coef, 1, logn); /* univariate coefficients of the block */
            if ((st = read_queries0(&v, ip, roots, joined, n, j, &h, alpha + 8 * j, q, d, &nds[0], leaves, glh,
                                    fold)) != EZ_OK)
                goto out;
            st = EZ_ERR_REJECT;
            for (size_t x = 0; x < nds[0]; x++) {
                ez_fe y = ez_whir_root_pow(logn + c, ez_whir_point_exp(logn, c, d[x]));
                if (!ez_fe2_eq(fold[x], ez_whir_horner_base(coef, nblk, y)))
                    goto out;
            }
        }
    } else {
        memcpy(coef, fin, lf * sizeof *coef);
        ez_ntt_mobius((ez_fe *)coef, 1, par->mfinal); /* univariate coefficients of f_F */
        if ((st = read_queries(&v, ez_whir_log_len(par, M), par->t[M], par->k[M], false, v.rb + (v.nb - par->k[M]),
                               prev_root, q, d, &nds[0], leaves, glh, fold)) != EZ_OK)
            goto out;
        st = EZ_ERR_REJECT;
        unsigned logn = par->mv[M] - par->k[M], c = par->c[M];
        for (size_t j = 0; j < nds[0]; j++) {
            ez_fe y = ez_whir_root_pow(logn + c, ez_whir_point_exp(logn, c, d[j]));
            if (!ez_fe2_eq(fold[j], ez_whir_horner_base(coef, lf, y)))
                goto out;
        }
    }
    for (unsigned r = 0; r < par->mfinal; r++)
        if (!sumcheck_round(&v))
            goto out;
    /* claim = f_F(r_F) * W(r): W sums every instance's claim terms (at its round-0
     * challenges and the chain's low bits, times its block selector and beta power), the
     * instances' query constraints and every chain constraint */
    {
        const ez_fe2 *rf = v.rb + (mv1 - par->mfinal);
        ez_whir_eq_bits(coef, rf, par->mfinal);
        ez_fe2 fr = ez_fe2_zero();
        for (size_t x = 0; x < lf; x++)
            fr = ez_fe2_add(fr, ez_fe2_mul(fin[x], coef[x]));
        ez_fe2 w = ez_fe2_zero();
        for (size_t j = 0; j < n; j++)
            w = ez_fe2_add(w, ez_fe2_mul(bpow[j], block_terms(&cs[j], ip[j], alpha + 8 * j, &blk[j], v.rb, mv1)));
        for (size_t j = 0; j < nc; j++) {
            ez_fe2 e;
            if (cons[j].i == 0) {
                e = block_query(cons[j].y, ip[cons[j].inst], &blk[cons[j].inst], v.rb, mv1);
            } else {
                e = ez_whir_eq_pow(cons[j].y, v.rb + (mv1 - par->mv[cons[j].i]), par->mv[cons[j].i]);
            }
            w = ez_fe2_add(w, ez_fe2_mul(cons[j].coef, e));
        }
        if (!ez_fe2_eq(v.claim, ez_fe2_mul(fr, w)))
            goto out;
    }
    st = EZ_OK;
out:
    if (st == EZ_ERR_REJECT)
        proof->failed = true;
    free(cons);
    free(q);
    free(d);
    free(nds);
    free(leaves);
    free(fold);
    free(fin);
    free(coef);
    free(alpha);
    free(bpow);
    free(glh);
    return st;
}

ez_status ez_whir_verify(const ez_whir_params *par, const uint8_t root[32], ez_transcript *t,
                         const ez_whir_term *terms, size_t nterms, ez_fe2 sigma, ez_reader *proof)
{
    ez_whir_params chk;
    if (par == NULL || root == NULL ||
        ez_whir_params_make(&chk, par->m, par->noracles, par->k, par->c) != EZ_OK ||
        memcmp(&chk, par, sizeof chk) != 0 || !terms_ok(terms, nterms, par->m))
        return EZ_ERR_INVALID;
    ez_whir_claimset cs = {.terms = terms, .nterms = nterms, .sigma = sigma};
    ez_whir_block blk;
    ez_whir_block_whole(&blk, par->m - par->k[0]);
    return verify_impl(&par, &root, NULL, &cs, 1, par, &blk, t, proof);
}

static ez_status verify_batch(const ez_whir_params *const *par, const uint8_t *const *roots, const uint64_t *lens,
                              const uint8_t *joined, const ez_whir_claimset *cs, size_t n, ez_transcript *t,
                              ez_reader *proof)
{
    if (n == 0 || par == NULL || roots == NULL || cs == NULL || lens == NULL)
        return EZ_ERR_INVALID;
    bool any = false; /* some group of two or more (§9c): joinable neighbours, the one chain */
    if (joined != NULL && joined[0])
        return EZ_ERR_INVALID;
    for (size_t j = 1, h = 0; j < n && joined != NULL; j++) {
        h = joined[j] ? h : j;
        if (joined[j] && (par[j] == NULL || par[j - 1] == NULL || j - h + 1 > EZ_WHIR_MAX_JOIN ||
                          !ez_whir_joinable(par[j - 1], par[j])))
            return EZ_ERR_INVALID;
        any |= joined[j] != 0;
    }
    if (n == 1)
        return ez_whir_verify(par[0], roots[0], t, cs[0].terms, cs[0].nterms, cs[0].sigma, proof);
    for (size_t j = 0; j < n; j++)
        if (roots[j] == NULL || par[j] == NULL || !terms_ok(cs[j].terms, cs[j].nterms, par[j]->m))
            return EZ_ERR_INVALID;
    ez_whir_params chain;
    ez_whir_block *blk = ez_alloc_array(n, sizeof *blk);
    if (blk == NULL)
        return EZ_ERR_NOMEM;
    ez_status st;
    if (ez_whir_batch_params(&chain, blk, par, lens, n) == EZ_OK) {
        st = EZ_OK;
        for (size_t j = 0; j < n && st == EZ_OK; j++)
            if (!ez_whir_terms_within(cs[j].terms, cs[j].nterms, ez_whir_block_live(par[j], lens[j]) << par[j]->k[0]))
                st = EZ_ERR_INVALID;
        if (st == EZ_OK)
            st = verify_impl(par, roots, joined, cs, n, &chain, blk, t, proof);
    } else if (any) {
        st = EZ_ERR_INVALID;
    } else {
        /* a bad instance's parameters are EZ_ERR_INVALID in ez_whir_verify */
        st = EZ_OK;
        for (size_t j = 0; j < n && st == EZ_OK; j++)
            st = ez_whir_verify(par[j], roots[j], t, cs[j].terms, cs[j].nterms, cs[j].sigma, proof);
    }
    free(blk);
    return st;
}

ez_status ez_whir_verify_batch(const ez_whir_params *const *par, const uint8_t *const *roots, const uint64_t *lens,
                               const ez_whir_claimset *cs, size_t n, ez_transcript *t, ez_reader *proof)
{
    return verify_batch(par, roots, lens, NULL, cs, n, t, proof);
}

ez_status ez_whir_verify_joined(const ez_whir_params *const *par, const uint8_t *const *roots, const uint64_t *lens,
                                const uint8_t *joined, const ez_whir_claimset *cs, size_t n, ez_transcript *t,
                                ez_reader *proof)
{
    return verify_batch(par, roots, lens, joined, cs, n, t, proof);
}

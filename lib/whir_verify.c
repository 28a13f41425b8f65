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

/* A constraint on f_i for the final W(r): gamma-power * eq(pow(y), r_i). */
typedef struct {
    ez_fe2 coef, y;
    unsigned i;
} vconstraint;

typedef struct {
    const ez_whir_params *par;
    ez_transcript *t;
    ez_reader *r;
    ez_fe2 claim;
    ez_fe2 rb[EZ_WHIR_MAX_VARS]; /* challenge of each bound bit */
    unsigned nb;                 /* bits bound so far */
} verifier;

static bool read_fe2(ez_reader *r, ez_fe2 *out, size_t n)
{
    if (n > SIZE_MAX / 16)
        return false;
    const uint8_t *b = ez_reader_view(r, n * 16);
    if (b == NULL)
        return false;
    memcpy(out, b, n * 16);
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= (out[i].c0 >= EZ_P) | (out[i].c1 >= EZ_P);
    return bad == 0;
}

/* One sumcheck round: g(0), g(2) from the proof, g(1) = claim - g(0). */
static bool sumcheck_round(verifier *v)
{
    ez_fe2 g[2];
    if (!read_fe2(v->r, g, 2))
        return false;
    ez_transcript_absorb_fe2(v->t, EZ_WHIR_L_ROUND, g, 2);
    ez_fe2 a = ez_transcript_challenge_fe2(v->t, EZ_WHIR_L_FOLD);
    v->claim = ez_whir_quad_eval(g[0], ez_fe2_sub(v->claim, g[0]), g[1], a);
    v->rb[v->nb++] = a;
    return true;
}

/* Draw oracle i's queries, read and authenticate the distinct leaves (into leaves,
 * width base entries each), and compute each distinct leaf's fold with the round's
 * challenges (fold[]). Returns EZ_OK, EZ_ERR_REJECT or EZ_ERR_NOMEM. */
static ez_status read_queries(verifier *v, unsigned i, const uint8_t *root, uint64_t *q, uint64_t *d, size_t *nd,
                              ez_fe *leaves, ez_fe2 *fold)
{
    const ez_whir_params *par = v->par;
    unsigned k = par->k[i], logN = ez_whir_log_len(par, i);
    size_t R = (size_t)1 << k, width = i == 0 ? R : 2 * R;
    *nd = ez_whir_draw_queries(v->t, logN, par->t[i], q, d);
    if (!ez_whir_read_fe(v->r, leaves, *nd * width))
        return EZ_ERR_REJECT;
    ez_status st = EZ_ERR_NOMEM;
    ez_digest *lh = ez_alloc_array(*nd, sizeof *lh);
    if (lh == NULL)
        return st;
    for (size_t j = 0; j < *nd; j++)
        ez_merkle_hash_leaf(&lh[j], leaves + j * width, width);
    st = EZ_ERR_REJECT;
    size_t nmp = ez_merkle_batch_count(logN, d, *nd);
    const uint8_t *mp = nmp == SIZE_MAX ? NULL : ez_reader_view(v->r, nmp * sizeof(ez_digest));
    if (mp != NULL) {
        ez_digest rt;
        memcpy(rt.h, root, 32);
        /* proof bytes may be unaligned: ez_digest is a byte array, alignment 1 */
        st = ez_merkle_batch_verify(&rt, logN, d, lh, *nd, (const ez_digest *)mp, nmp);
    }
    free(lh);
    if (st != EZ_OK)
        return st;
    /* Fold(f_i, alpha)(y) = sum_t eq(alpha, t) g_t(y): the leaf's rows combined */
    ez_fe2 eqa[256];
    ez_whir_eq_bits(eqa, v->rb + (v->nb - k), k);
    for (size_t j = 0; j < *nd; j++) {
        const ez_fe *lf = leaves + j * width;
        if (i == 0) {
            fold[j] = ez_whir_dot_ext_base(eqa, lf, R);
        } else {
            ez_fe2 acc = ez_fe2_zero();
            for (size_t t = 0; t < R; t++)
                acc = ez_fe2_add(acc, ez_fe2_mul(eqa[t], ez_fe2_make(lf[2 * t], lf[2 * t + 1])));
            fold[j] = acc;
        }
    }
    return EZ_OK;
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

ez_status ez_whir_verify(const ez_whir_params *par, const uint8_t root[32], ez_transcript *t,
                         const ez_whir_term *terms, size_t nterms, ez_fe2 sigma, ez_reader *proof)
{
    ez_whir_params chk;
    if (par == NULL || root == NULL ||
        ez_whir_params_make(&chk, par->m, par->noracles, par->k, par->c) != EZ_OK ||
        memcmp(&chk, par, sizeof chk) != 0 || (nterms > 0 && terms == NULL))
        return EZ_ERR_INVALID;
    for (size_t j = 0; j < nterms; j++)
        if (terms[j].b > par->m || (terms[j].b > 0 && terms[j].z == NULL) ||
            (terms[j].off & (((uint64_t)1 << terms[j].b) - 1)) != 0 || terms[j].off >= ((uint64_t)1 << par->m))
            return EZ_ERR_INVALID;
    ez_status st = EZ_ERR_NOMEM;
    unsigned M = par->noracles - 1, maxk = 0;
    size_t ncons = 0;
    for (unsigned i = 0; i < par->noracles; i++) {
        ncons += par->t[i] + 1;
        maxk = par->k[i] > maxk ? par->k[i] : maxk;
    }
    size_t lf = (size_t)1 << par->mfinal;
    vconstraint *cons = ez_alloc_array(ncons, sizeof *cons);
    uint64_t *q = ez_alloc_array(242, sizeof *q), *d = ez_alloc_array(242, sizeof *d);
    ez_fe *leaves = ez_alloc_array((size_t)242 << (maxk + 1), sizeof *leaves);
    ez_fe2 *fold = ez_alloc_array(242, sizeof *fold), *fin = ez_alloc_array(lf, sizeof *fin);
    ez_fe2 *coef = ez_alloc_array(lf, sizeof *coef);
    if (!cons || !q || !d || !leaves || !fold || !fin || !coef)
        goto out;
    st = EZ_ERR_REJECT;
    verifier v = {.par = par, .t = t, .r = proof, .claim = sigma, .nb = 0};
    size_t nc = 0;
    uint8_t prev_root[32];
    memcpy(prev_root, root, 32);

    ez_whir_absorb_params(t, par);
    ez_transcript_absorb_fe2(t, EZ_WHIR_L_SUM, &sigma, 1);
    for (unsigned r = 0; r < par->k[0]; r++)
        if (!sumcheck_round(&v))
            goto out;
    for (unsigned i = 1; i <= M; i++) {
        uint8_t rt[32];
        if (!ez_reader_bytes(proof, rt, 32))
            goto out;
        ez_transcript_absorb_bytes(t, EZ_WHIR_L_ROOT, rt, 32);
        ez_fe2 z = ez_transcript_challenge_fe2(t, EZ_WHIR_L_OODPT), ans;
        if (!read_fe2(proof, &ans, 1))
            goto out;
        ez_transcript_absorb_fe2(t, EZ_WHIR_L_OOD, &ans, 1);
        size_t nd;
        if ((st = read_queries(&v, i - 1, prev_root, q, d, &nd, leaves, fold)) != EZ_OK)
            goto out;
        st = EZ_ERR_REJECT;
        ez_fe2 gamma = ez_transcript_challenge_fe2(t, EZ_WHIR_L_COMBINE), gp = ez_fe2_mul(gamma, gamma);
        /* [WHIR] §5 combination: claim += gamma ans + sum_j gamma^(j+2) Fold(f_{i-1})(y_j) */
        v.claim = ez_fe2_add(v.claim, ez_fe2_mul(gamma, ans));
        cons[nc++] = (vconstraint){.coef = gamma, .y = z, .i = i};
        unsigned logn = par->mv[i - 1] - par->k[i - 1], c = par->c[i - 1];
        for (unsigned j = 0; j < par->t[i - 1]; j++, gp = ez_fe2_mul(gp, gamma)) {
            v.claim = ez_fe2_add(v.claim, ez_fe2_mul(gp, fold_at(d, nd, fold, q[j])));
            ez_fe y = ez_whir_root_pow(logn + c, ez_whir_point_exp(logn, c, q[j]));
            cons[nc++] = (vconstraint){.coef = gp, .y = ez_fe2_from_fe(y), .i = i};
        }
        memcpy(prev_root, rt, 32);
        for (unsigned r = 0; r < par->k[i]; r++)
            if (!sumcheck_round(&v))
                goto out;
    }
    /* final polynomial, then the last oracle's folds must match it ([WHIR] §5, final round) */
    if (!read_fe2(proof, fin, lf))
        goto out;
    ez_transcript_absorb_fe2(t, EZ_WHIR_L_FINAL, fin, lf);
    memcpy(coef, fin, lf * sizeof *coef);
    ez_ntt_mobius((ez_fe *)coef, 1, par->mfinal); /* univariate coefficients of f_F */
    size_t nd;
    if ((st = read_queries(&v, M, prev_root, q, d, &nd, leaves, fold)) != EZ_OK)
        goto out;
    st = EZ_ERR_REJECT;
    {
        unsigned logn = par->mv[M] - par->k[M], c = par->c[M];
        for (size_t j = 0; j < nd; j++) {
            ez_fe y = ez_whir_root_pow(logn + c, ez_whir_point_exp(logn, c, d[j]));
            if (!ez_fe2_eq(fold[j], ez_whir_horner_base(coef, lf, y)))
                goto out;
        }
    }
    for (unsigned r = 0; r < par->mfinal; r++)
        if (!sumcheck_round(&v))
            goto out;
    /* claim = f_F(r_F) * W(r) */
    {
        const ez_fe2 *rf = v.rb + (par->m - par->mfinal);
        ez_whir_eq_bits(coef, rf, par->mfinal);
        ez_fe2 fr = ez_fe2_zero();
        for (size_t x = 0; x < lf; x++)
            fr = ez_fe2_add(fr, ez_fe2_mul(fin[x], coef[x]));
        ez_fe2 w = ez_whir_terms_eval(terms, nterms, v.rb, par->m);
        for (size_t j = 0; j < nc; j++) {
            unsigned o = par->m - par->mv[cons[j].i];
            w = ez_fe2_add(w, ez_fe2_mul(cons[j].coef, ez_whir_eq_pow(cons[j].y, v.rb + o, par->mv[cons[j].i])));
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
    free(leaves);
    free(fold);
    free(fin);
    free(coef);
    return st;
}

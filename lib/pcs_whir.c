/* pcs_whir — the WHIR backend of lib/pcs.h (EZ_PCS_SCHEME_WHIR): the stacked vector S
 * of lib/pcs.h's layout committed with lib/whir.h, and the claims turned into WHIR
 * weight terms (docs/protocol-kernel-pcs.md §8).
 *
 * Claims. lib/pcs.c has absorbed the claims and drawn rho; claim k on polynomial i
 * (nv variables, point z in lib/mle.h order) is sum_x S(x) w_k(x) with w_k supported on
 * the pieces of i: on a piece of 2^b entries at offset off of S, starting at entry s of
 * the polynomial, w_k(x) = eq(z_top, s / 2^b) eq(z_low, x - off) (z_top its first nv - b
 * coordinates, z_low the last b). That is one ez_whir_term per (claim, piece) with
 * coef = rho^k eq(z_top, s / 2^b); WHIR then proves sum_x S(x) sum_k rho^k w_k(x) =
 * sum_k rho^k v_k directly ([WHIR] §5: constrained Reed–Solomon codes take any linear
 * weight), so Ligero's two batching sumchecks (§4) are not needed here. */
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/pcs.h"
#include "lib/pcs_internal.h"
#include "lib/whir.h"

ez_status ez_pcs_whir_params(const ez_pcs_commitment *c, ez_whir_params *par)
{
    if (c->scheme != EZ_PCS_SCHEME_WHIR || ez_whir_params_default(par, c->nvars_total) != EZ_OK ||
        c->log_cols != par->m - par->k[0])
        return EZ_ERR_INVALID;
    return EZ_OK;
}

/* Stacked length: the end of the last piece (pieces are laid out without gaps). */
static uint64_t stacked_len(const ez_pcs_commitment *c)
{
    uint64_t t = 0;
    for (uint64_t j = 0; j < c->npieces; j++)
        t += (uint64_t)1 << c->pbits[j];
    return t;
}

ez_status ez_pcs_whir_commit(ez_pcs_prover *p, const ez_fe *const *polys)
{
    ez_whir_params par;
    ez_status st = ez_pcs_whir_params(&p->com, &par);
    if (st != EZ_OK)
        return st;
    const ez_pcs_commitment *c = &p->com;
    uint64_t T = stacked_len(c);
    size_t n = (size_t)1 << par.m;
    ez_fe *s = ez_alloc_huge(n, sizeof *s);
    if (s == NULL)
        return EZ_ERR_NOMEM;
    for (size_t i = 0; i < c->npolys; i++)
        for (uint64_t j = c->pfirst[i]; j < c->pfirst[i + 1]; j++)
            memcpy(s + c->poff[j], polys[i] + c->pstart[j], ((size_t)1 << c->pbits[j]) * sizeof *s);
    memset(s + T, 0, (n - (size_t)T) * sizeof *s);
    return ez_whir_commit_take(&p->whir, p->com.root, &par, s, T);
}

void ez_pcs_whir_prover_write(ez_writer *w, const ez_pcs_prover *p)
{
    ez_whir_prover_write(w, p->whir);
}

ez_status ez_pcs_whir_prover_read(ez_reader *r, ez_pcs_prover *p)
{
    ez_whir_params par;
    if (ez_pcs_whir_params(&p->com, &par) != EZ_OK)
        return EZ_ERR_FORMAT;
    ez_status st = ez_whir_prover_read(r, &par, p->com.root, &p->whir);
    if (st == EZ_ERR_INVALID)
        st = EZ_ERR_FORMAT;
    /* the stored vector must be exactly the layout's stacked length */
    if (st == EZ_OK && ez_whir_prover_len(p->whir) != stacked_len(&p->com))
        st = EZ_ERR_FORMAT;
    return st;
}

/* The weight terms of the claims: one per (claim, piece); rev receives each claim's
 * point in bit order (sum of nv coordinates). */
static ez_status make_terms(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                            ez_whir_term **terms_out, size_t *nterms, ez_fe2 **rev_out)
{
    size_t nt = 0, nz = 0;
    for (size_t k = 0; k < n; k++) {
        nt += (size_t)(c->pfirst[claims[k].poly + 1] - c->pfirst[claims[k].poly]);
        nz += c->nvars[claims[k].poly];
    }
    ez_whir_term *terms = ez_alloc_array(nt ? nt : 1, sizeof *terms);
    ez_fe2 *rev = ez_alloc_array(nz ? nz : 1, sizeof *rev);
    if (terms == NULL || rev == NULL) {
        free(terms);
        free(rev);
        return EZ_ERR_NOMEM;
    }
    ez_fe2 pw = ez_fe2_one(), one = ez_fe2_one();
    size_t j = 0, zo = 0;
    for (size_t k = 0; k < n; k++, pw = ez_fe2_mul(pw, rho)) {
        size_t i = claims[k].poly;
        unsigned nv = c->nvars[i];
        const ez_fe2 *z = claims[k].point;
        ez_fe2 *zr = rev + zo;
        for (unsigned b = 0; b < nv; b++)
            zr[b] = z[nv - 1 - b]; /* index bit b <-> lib/mle.h variable nv-1-b */
        zo += nv;
        for (uint64_t pc = c->pfirst[i]; pc < c->pfirst[i + 1]; pc++) {
            unsigned b = c->pbits[pc], top = nv - b;
            uint64_t pos = c->pstart[pc] >> b;
            ez_fe2 coef = pw;
            for (unsigned v = 0; v < top; v++) {
                ez_fe2 zv = z[v];
                coef = ez_fe2_mul(coef, ((pos >> (top - 1 - v)) & 1) ? zv : ez_fe2_sub(one, zv));
            }
            terms[j++] = (ez_whir_term){.coef = coef, .off = c->poff[pc], .b = b, .z = zr};
        }
    }
    *terms_out = terms;
    *nterms = nt;
    *rev_out = rev;
    return EZ_OK;
}

ez_status ez_pcs_whir_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                          ez_fe2 claim, ez_writer *proof)
{
    ez_whir_term *terms;
    ez_fe2 *rev;
    size_t nt;
    ez_status st = make_terms(&p->com, claims, n, rho, &terms, &nt, &rev);
    if (st != EZ_OK)
        return st;
    st = ez_whir_open(p->whir, t, terms, nt, claim, proof);
    free(terms);
    free(rev);
    return st;
}

ez_status ez_pcs_whir_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                            ez_fe2 rho, ez_fe2 claim, ez_reader *proof)
{
    ez_whir_params par;
    ez_whir_term *terms;
    ez_fe2 *rev;
    size_t nt;
    if (ez_pcs_whir_params(com, &par) != EZ_OK)
        return EZ_ERR_INVALID;
    ez_status st = make_terms(com, claims, n, rho, &terms, &nt, &rev);
    if (st != EZ_OK)
        return st;
    st = ez_whir_verify(&par, com->root, t, terms, nt, claim, proof);
    free(terms);
    free(rev);
    return st;
}

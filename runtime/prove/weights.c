/* weights — the weight commitment and the vk's weight range proof (weights.h). */
#include "config.h"

#include "runtime/prove/weights.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/formats/version.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/session.h"

/* ---- the weight commitment ------------------------------------------------------------- */


unsigned ez_advice_scheme(const ez_pcs_commitment *wcom)
{
    if (wcom == NULL)
        return EZ_PCS_DEFAULT_SCHEME;
    return wcom->scheme == EZ_PCS_SCHEME_WHIR ? EZ_PCS_SCHEME_WHIR : EZ_PCS_SCHEME_LIGERO;
}

ez_status ez_weights_commit(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_plan *p, const ez_trace *tr,
                            ez_diag *d)
{
    return ez_weights_commit_scheme(out, com, p, tr, EZ_PCS_DEFAULT_SCHEME, d);
}

bool ez_weights_deferred(const ez_plan *p, const ez_pcs_commitment *c)
{
    size_t nw = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        nw += p->tensors[i].kind == EZ_TENSOR_WEIGHT;
    return c != NULL && c->scheme == EZ_PCS_SCHEME_WHIR && c->npolys > nw;
}

/* WHIR parts of a stack of T entries (lib/pcs_whir.c: the default part length). */
static uint64_t whir_parts(uint64_t T)
{
    uint64_t P = (uint64_t)1 << EZ_PCS_WHIR_PART_LOG;
    return T <= P ? 1 : (T + P - 1) / P;
}

void ez_wshape_clear(ez_wshape *w)
{
    free(w->lens);
    free(w->sup);
    ez_advice_layout_clear(&w->wsup);
    ez_advice_layout_clear(&w->L);
    memset(w, 0, sizeof *w);
}

ez_status ez_wshape_build(ez_wshape *w, const ez_plan *p, unsigned scheme, ez_diag *d)
{
    uint64_t *wl = NULL;
    ez_pcs_support *wsup = NULL, *asup = NULL;
    memset(w, 0, sizeof *w);
    ez_advice_layout_init(&w->wsup);
    ez_advice_layout_init(&w->L);
    ez_status st = ez_weights_lens(p, &wl, &w->nw);
    if (st != EZ_OK || w->nw == 0)
        goto out;
    if ((st = ez_weights_supports(p, &w->wsup, &wsup)) != EZ_OK)
        goto out;
    size_t na = 0;
    if (scheme == EZ_PCS_SCHEME_WHIR) {
        if ((st = ez_advice_layout_build_weights(&w->L, p, d)) != EZ_OK)
            goto out;
        uint64_t tw = 0, ta = 0;
        for (size_t i = 0; i < w->nw; i++)
            tw += wl[i];
        for (size_t q = 0; q < w->L.npolys; q++)
            ta += w->L.polys[q].len;
        if (whir_parts(tw + ta) == whir_parts(tw)) {
            if ((st = ez_advice_pcs_supports(&w->L, &asup)) != EZ_OK)
                goto out;
            na = w->L.npolys;
        } else {
            ez_advice_layout_clear(&w->L);
            ez_advice_layout_init(&w->L);
        }
    }
    w->n = w->nw + na;
    w->lens = ez_alloc_array(w->n, sizeof *w->lens);
    if (w->lens == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    memcpy(w->lens, wl, w->nw * sizeof *wl);
    for (size_t q = 0; q < na; q++)
        w->lens[w->nw + q] = w->L.polys[q].len;
    if (wsup || asup) {
        if ((w->sup = calloc(w->n, sizeof *w->sup)) == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        if (wsup)
            memcpy(w->sup, wsup, w->nw * sizeof *wsup);
        if (asup)
            memcpy(w->sup + w->nw, asup, na * sizeof *asup);
    }
out:
    EZ_FREE_ALL(wl, wsup, asup);
    if (st != EZ_OK)
        ez_wshape_clear(w);
    return st;
}

void ez_wsource_clear(ez_wsource *src)
{
    free(src->tensor);
    free(src->wsi);
    ez_psess_clear(&src->s);
    ez_wshape_clear(&src->W);
    memset(src, 0, sizeof *src);
}

ez_status ez_wsource_init(ez_wsource *src, const ez_plan *p, const ez_trace *tr, unsigned scheme, ez_diag *d)
{
    memset(src, 0, sizeof *src);
    src->p = p;
    src->tr = tr;
    ez_status st = ez_wshape_build(&src->W, p, scheme, d);
    if (st != EZ_OK || src->W.nw == 0)
        goto out;
    src->tensor = ez_alloc_array(src->W.nw, sizeof *src->tensor);
    src->wsi = ez_alloc_array(src->W.nw, sizeof *src->wsi);
    if (src->tensor == NULL || src->wsi == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0, k = 0; i < p->ntensors && st == EZ_OK; i++) {
        if (p->tensors[i].kind != EZ_TENSOR_WEIGHT)
            continue;
        src->tensor[k] = i;
        src->wsi[k] = -1;
        if (src->W.sup && src->W.sup[k].nv)
            st = ez_advice_support_tensor(&src->W.wsup, p, (unsigned)i, &src->wsi[k]);
        k++;
    }
    if (st != EZ_OK)
        goto out;
    if (src->W.n > src->W.nw) {
        /* deferred range proof (WHIR): the range proof's advice (limbs, multiplicities) is
         * committed with the weights (docs/protocol.md §6.4). Unchecked: an out-of-range
         * weight is committed as it is; the range proof refuses it. */
        ez_advice_layout_clear(&src->s.L);
        src->s.L = src->W.L;
        ez_advice_layout_init(&src->W.L);
        st = ez_psess_witness(&src->s, p, tr, true, d);
    }
out:
    if (st != EZ_OK)
        ez_wsource_clear(src);
    return st;
}

/* Weight poly k (plan tensor i) in its commitment layout: on its support the real
 * entries, piece by piece (no padding committed), else the padded tensor. */
static void weight_poly(const ez_wsource *src, size_t k, ez_fe *out)
{
    const ez_plan *p = src->p;
    size_t i = src->tensor[k];
    if (src->wsi[k] < 0) {
        ez_advice_pad_i64(out, src->tr->t[i], &p->tensors[i], 0);
        return;
    }
    const ez_adv_support *x = &src->W.wsup.supports[src->wsi[k]];
    for (size_t j = 0; j < x->npieces; j++)
        ez_advice_gather_piece(out + x->off[j], src->tr->t[i], &p->tensors[i], x, j, 0);
}

ez_status ez_wsource_poly(void *ctx, size_t k, ez_fe *out, uint64_t len)
{
    const ez_wsource *src = ctx;
    if (k >= src->W.n || len != src->W.lens[k])
        return EZ_ERR_FORMAT; /* not the plan's weight shape */
    if (k < src->W.nw)
        weight_poly(src, k, out);
    else
        memcpy(out, src->s.polys[k - src->W.nw], (size_t)len * sizeof *out);
    return EZ_OK;
}

ez_status ez_weights_commit_scheme(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_plan *p,
                                   const ez_trace *tr, unsigned scheme, ez_diag *d)
{
    ez_fe **polys = NULL;
    ez_wsource src;
    *out = NULL;
    memset(com, 0, sizeof *com);
    ez_status st = ez_wsource_init(&src, p, tr, scheme, d);
    const ez_wshape *W = &src.W;
    if (st != EZ_OK || W->nw == 0)
        goto out;
    uint64_t total = 0;
    for (size_t i = 0; i < W->n; i++) {
        if (W->lens[i] > EZ_ADV_MAX_PADLEN || (total += W->lens[i]) > EZ_ADV_MAX_PADLEN) {
            ez_diag_set(d, "the weights exceed the commitment's limit of 2^40 entries");
            st = EZ_ERR_UNSUPPORTED;
            goto out;
        }
    }
    if ((polys = calloc(W->n, sizeof *polys)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t k = 0; k < W->n; k++) {
        if (k >= W->nw) { /* the deferred advice: already built, taken over, not copied */
            polys[k] = src.s.polys[k - W->nw];
            src.s.polys[k - W->nw] = NULL;
            continue;
        }
        if ((polys[k] = ez_alloc_aligned(W->lens[k], sizeof(ez_fe))) == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        if ((st = ez_wsource_poly(&src, k, polys[k], W->lens[k])) != EZ_OK)
            goto out;
    }
    /* Ligero: opened in full once (the vk's range proof), then without the proximity row */
    st = ez_pcs_commit_supported(out, com, (const ez_fe *const *)polys, W->lens, W->sup, W->n, scheme, 0);
out:
    if (polys)
        for (size_t i = 0; i < W->n; i++)
            free(polys[i]);
    free(polys);
    ez_wsource_clear(&src);
    return st;
}

void ez_weight_pad_desc(ez_sumcheck_desc *desc, unsigned nv)
{
    /* eq(rho, x) * (1 - R)(x) * P(x): factors 1 - R and P, eq on every variable */
    ez_sumcheck_desc_init(desc, nv, 2);
    desc->eq_vars = nv >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << nv) - 1;
}

ez_fe2 ez_weight_real_mle(const ez_plan_tensor *tt, const ez_fe2 *point)
{
    ez_fe2 r = ez_fe2_one();
    unsigned o = 0;
    for (unsigned a = 0; a < tt->rank; a++) {
        unsigned na = ez_log2_ceil(tt->dims[a]);
        r = ez_fe2_mul(r, ez_mle_prefix(point + o, na, tt->dims[a]));
        o += na;
    }
    return r;
}

/* Prover: the zero-check of weight i's padding (its data in the trace, padding zero);
 * appends to c->w and adds the claim P~(pt) to the weight's claims. */
static ez_status weight_pad_prove(ez_pctx *c, size_t i)
{
    const ez_plan_tensor *tt = &c->plan->tensors[i];
    unsigned nv = ez_claim_tensor_nvars(tt->dims, tt->rank);
    size_t N = (size_t)1 << nv;
    uint64_t padlen = ez_advice_padlen(tt), numel = ez_plan_tensor_numel(tt);
    ez_status st = EZ_ERR_NOMEM;
    ez_fe *pad = ez_alloc_aligned(N, sizeof *pad), *val = ez_alloc_aligned(N, sizeof *val);
    int64_t *ones = ez_alloc_array(numel ? numel : 1, sizeof *ones);
    ez_sumcheck_proof proof;
    memset(&proof, 0, sizeof proof);
    if (!pad || !val || !ones)
        goto out;
    ez_fe2 rho[EZ_PROVE_MAX_VARS], pt[EZ_PROVE_MAX_VARS], evals[2];
    ez_transcript_challenges_fe2(c->t, "wpad/rho", rho, nv);
    /* 1 - R: 1 on padding (interior and beyond padlen), 0 on real entries */
    for (uint64_t e = 0; e < numel; e++)
        ones[e] = -1;
    ez_advice_pad_i64(pad, ones, tt, 1);
    for (size_t x = padlen; x < N; x++)
        pad[x] = 1;
    ez_advice_pad_i64(val, c->tr->t[i], tt, 0);
    memset(val + padlen, 0, (N - padlen) * sizeof *val);
    ez_sumcheck_desc desc;
    ez_weight_pad_desc(&desc, nv);
    ez_sumcheck_factor f[2] = {{pad, NULL}, {val, NULL}};
    if ((st = ez_sumcheck_prove(c->t, &desc, NULL, rho, f, ez_fe2_zero(), &proof, pt, evals)) != EZ_OK)
        goto out;
    ez_sumcheck_proof_write(c->w, &proof);
    st = ez_pctx_claim_tensor(c, i, pt, nv, evals[1]);
out:
    ez_sumcheck_proof_clear(&proof);
    free(pad);
    free(val);
    free(ones);
    return st;
}

static void put_chunk(ez_writer *out, const ez_writer *chunk)
{
    ez_writer_u64(out, chunk->len);
    ez_writer_bytes(out, chunk->data, chunk->len);
    if (chunk->failed)
        out->failed = true;
}

void ez_weight_range_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom)
{
    const char *ver = ez_protocol_version();
    ez_transcript_init(t, EZ_WRANGE_DOMAIN);
    ez_transcript_absorb_bytes(t, "version", ver, strlen(ver));
    ez_transcript_absorb_bytes(t, "plan/digest", p->digest, sizeof p->digest);
    ez_pcs_commitment_absorb(t, wcom);
}

ez_status ez_prove_weight_range(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, bool unchecked,
                                ez_writer *out, ez_diag *d)
{
    ez_status st;
    ez_psess s;
    ez_pctx c;
    ez_transcript t;
    ez_writer sec[4];
    ez_pcs_commitment wc;
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    memset(&wc, 0, sizeof wc);
    for (int k = 0; k < 4; k++)
        ez_writer_init(&sec[k]);
    if ((st = ez_weights_check(p, weights, d)) != EZ_OK)
        goto out;
    if (weights == NULL) {
        ez_writer_u8(out, EZ_WRANGE_NONE);
        goto out;
    }
    const ez_pcs_commitment *wcom = ez_pcs_prover_commitment(weights);
    bool deferred = ez_weights_deferred(p, wcom);
    if ((st = ez_advice_layout_build_weights(&s.L, p, d)) != EZ_OK)
        goto out;
    if ((st = ez_psess_witness(&s, p, tr, unchecked, d)) != EZ_OK)
        goto out;
    ez_weight_range_transcript_start(&t, p, wcom);
    /* deferred: the advice is inside the weight commitment, absorbed above */
    if (!deferred && (st = ez_psess_commit(&s, &t, &sec[0], ez_advice_scheme(wcom))) != EZ_OK)
        goto out;
    c = (ez_pctx){.prover = true, .plan = p, .adv = &s.L, .t = &t, .tr = tr, .advice = s.polys, .d = d};
    if ((st = ez_pctx_alloc(&c, p, &s.L)) != EZ_OK)
        goto out;
    c.w = &sec[1];
    if ((st = ez_psess_lookups(&s, &c)) != EZ_OK)
        goto out;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT && ez_advice_interior_padding(&p->tensors[i]) &&
            !ez_advice_tensor_supported(&p->tensors[i]) && (st = weight_pad_prove(&c, i)) != EZ_OK)
            goto out;
    if (deferred) {
        /* the final claims are left to every proof's opening (docs/protocol.md §6.4) */
        ez_writer_u8(&sec[0], EZ_WRANGE_DEFERRED);
        put_chunk(&sec[0], &sec[1]);
        if (sec[0].failed) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        /* the standing claims, derived from the bytes as every verifier derives them */
        if ((st = ez_pcs_commitment_copy(&wc, wcom)) != EZ_OK)
            goto out;
        bool ok = false;
        if ((st = ez_weight_range_verify(p, &wc, sec[0].data, sec[0].len, &ok, d)) != EZ_OK)
            goto out;
        ez_writer_bytes(out, sec[0].data, sec[0].len);
        if (out->failed) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        if (!ok) {
            /* only an unchecked (testing) witness gets here: the vk is rejected; the
             * prover's own final claims stand in, so that proofs can still be made */
            ez_pcs_claim *cl = NULL;
            ez_fe2 *lifted = NULL;
            size_t n = 0, nw = ez_pcs_prover_commitment(weights)->npolys - s.L.npolys;
            if (!unchecked) {
                st = EZ_ERR_INTERNAL;
                goto out;
            }
            if ((st = ez_sess_pcs_claims(&c, nw, &cl, &n, &lifted)) == EZ_OK)
                st = ez_pcs_prover_set_standing(weights, cl, n);
            free(cl);
            free(lifted);
            goto out;
        }
        st = ez_pcs_prover_set_standing(weights, wc.standing, wc.nstanding);
        goto out;
    }
    /* the full opening: it also tests the weight commitment's proximity (docs §6.4) */
    ez_psess_release_advice(&s);
    if ((st = ez_psess_openings(&s, &c, weights, 0, &sec[2], &sec[3])) != EZ_OK)
        goto out;
    ez_writer_u8(out, EZ_WRANGE_FULL);
    for (int k = 0; k < 4; k++)
        put_chunk(out, &sec[k]);
    if (out->failed)
        st = EZ_ERR_NOMEM;
out:
    for (int k = 0; k < 4; k++)
        ez_writer_clear(&sec[k]);
    if (c.tclaims)
        ez_pctx_free(&c);
    ez_psess_clear(&s);
    ez_pcs_commitment_clear(&wc);
    return st;
}

/* The weight commitment must be exactly the plan's weight layout under its own scheme
 * (ez_wshape_build); its supports are set on com (or on prover's commitment). */
static ez_status check_shape(const ez_plan *p, const ez_pcs_commitment *have, ez_pcs_commitment *com,
                             ez_pcs_prover *prover, ez_diag *d)
{
    ez_wshape W;
    ez_diag sub = {{0}};
    ez_status st = ez_wshape_build(&W, p, have ? have->scheme : EZ_PCS_DEFAULT_SCHEME, &sub);
    if (st == EZ_ERR_NOMEM)
        return st;
    bool same = st == EZ_OK && (W.nw == 0) == (have == NULL);
    if (same && have) {
        same = have->npolys == W.n;
        for (size_t i = 0; same && i < W.n; i++)
            same = have->lens[i] == W.lens[i];
    }
    if (!same) {
        ez_wshape_clear(&W);
        ez_diag_set(d, "the weight commitment does not match the model's weight layout");
        return EZ_ERR_INVALID;
    }
    if (have && W.sup)
        st = com ? ez_pcs_commitment_set_supports(com, W.sup) : ez_pcs_prover_set_supports(prover, W.sup);
    ez_wshape_clear(&W);
    if (st == EZ_ERR_INVALID)
        ez_diag_set(d, "the weight commitment does not match the model's weight layout");
    return st;
}

ez_status ez_weights_check(const ez_plan *p, ez_pcs_prover *weights, ez_diag *d)
{
    return check_shape(p, weights ? ez_pcs_prover_commitment(weights) : NULL, NULL, weights, d);
}

ez_status ez_weights_set_supports(const ez_plan *p, ez_pcs_commitment *com, ez_diag *d)
{
    return check_shape(p, com, com, NULL, d);
}

/* ---- verifier -------------------------------------------------------------------------- */

/* Verifier side of weight_pad_prove (runtime/prove.c): the zero-check of weight i's
 * padding, its claim P~(pt) added to the weight's claims. */
static ez_status weight_pad_verify(ez_pctx *c, size_t i)
{
    const ez_plan_tensor *tt = &c->plan->tensors[i];
    unsigned nv = ez_claim_tensor_nvars(tt->dims, tt->rank);
    ez_fe2 rho[EZ_PROVE_MAX_VARS], pt[EZ_PROVE_MAX_VARS], evals[2];
    ez_sumcheck_proof proof;
    memset(&proof, 0, sizeof proof);
    ez_transcript_challenges_fe2(c->t, "wpad/rho", rho, nv);
    ez_sumcheck_desc desc;
    ez_weight_pad_desc(&desc, nv);
    ez_status st = ez_sumcheck_proof_read(c->r, &desc, &proof);
    if (st == EZ_OK)
        st = ez_sumcheck_verify(c->t, &desc, NULL, rho, ez_fe2_zero(), &proof, pt, evals);
    /* the first factor is public: 1 - R~(pt) */
    if (st == EZ_OK && !ez_fe2_eq(evals[0], ez_fe2_sub(ez_fe2_one(), ez_weight_real_mle(tt, pt))))
        st = EZ_ERR_REJECT;
    if (st == EZ_OK)
        st = ez_pctx_claim_tensor(c, i, pt, nv, evals[1]);
    else if (st != EZ_ERR_NOMEM)
        ez_diag_set(c->d, "the zero padding of weight '%s' failed", tt->name);
    ez_sumcheck_proof_clear(&proof);
    return st == EZ_ERR_INVALID ? EZ_ERR_REJECT : st;
}

static bool get_chunk(ez_reader *r, const uint8_t **p, size_t *n)
{
    uint64_t len = ez_reader_u64(r);
    if (r->failed || len > ez_reader_remaining(r))
        return false;
    *n = (size_t)len;
    *p = ez_reader_view(r, *n);
    if (*p == NULL)
        *p = (const uint8_t *)"";
    return true;
}

ez_status ez_weight_range_verify(const ez_plan *p, ez_pcs_commitment *wcom, const uint8_t *bytes, size_t len,
                                 bool *accepted, ez_diag *d)
{
    ez_status st;
    ez_advice_layout L;
    ez_pctx c;
    ez_transcript t;
    ez_pcs_commitment acom;
    ez_reader r, sr;
    const uint8_t *chunk[4];
    size_t clen[4];
    ez_pcs_claim *cl = NULL;
    ez_fe2 *lifted = NULL;
    memset(&c, 0, sizeof c);
    memset(&acom, 0, sizeof acom);
    ez_advice_layout_init(&L);
    *accepted = false;
    bool has = wcom != NULL && wcom->npolys > 0, deferred = has && ez_weights_deferred(p, wcom);
    if (has && (st = ez_pcs_commitment_set_standing(wcom, NULL, 0)) != EZ_OK)
        return st;
    ez_reader_init(&r, bytes, len);
    uint8_t present = ez_reader_u8(&r);
    unsigned want = !has ? EZ_WRANGE_NONE : deferred ? EZ_WRANGE_DEFERRED : EZ_WRANGE_FULL;
    if (r.failed || present != want) {
        ez_diag_set(d, "the verifying key's weight range proof is malformed");
        return EZ_OK;
    }
    if (!has) {
        *accepted = ez_reader_done(&r);
        if (!*accepted)
            ez_diag_set(d, "the verifying key's weight range proof is malformed");
        return EZ_OK;
    }
    int nchunks = deferred ? 1 : 4;
    for (int k = 0; k < nchunks; k++)
        if (!get_chunk(&r, &chunk[k], &clen[k])) {
            ez_diag_set(d, "the verifying key's weight range proof is malformed");
            return EZ_OK;
        }
    if (!ez_reader_done(&r)) {
        ez_diag_set(d, "the verifying key's weight range proof has trailing bytes");
        return EZ_OK;
    }
    if ((st = ez_advice_layout_build_weights(&L, p, d)) != EZ_OK)
        goto out;
    ez_weight_range_transcript_start(&t, p, wcom);
    const uint8_t *lk = deferred ? chunk[0] : chunk[1];
    size_t lklen = deferred ? clen[0] : clen[1];
    if (!deferred &&
        (st = ez_vsess_commit(&L, &t, chunk[0], clen[0], ez_advice_scheme(wcom), &acom, d)) != EZ_OK)
        goto out;
    c = (ez_pctx){.prover = false, .plan = p, .adv = &L, .t = &t, .r = &sr, .d = d};
    if ((st = ez_pctx_alloc(&c, p, &L)) != EZ_OK)
        goto out;
    ez_reader_init(&sr, lk, lklen);
    if ((st = ez_vsess_lookups(&c)) != EZ_OK)
        goto out;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT && ez_advice_interior_padding(&p->tensors[i]) &&
            !ez_advice_tensor_supported(&p->tensors[i]) && (st = weight_pad_verify(&c, i)) != EZ_OK)
            goto out;
    if (!ez_vsess_section_done(&sr, "lookups", d)) {
        st = EZ_ERR_REJECT;
        goto out;
    }
    if (deferred) {
        /* the claims this transcript ends with, re-derived here from the vk's bytes alone:
         * on the weights (weight polys) and on the advice (polys nw + q of the same
         * commitment); every proof's opening proves them (standing claims, §6.4) */
        size_t n = 0, nw = 0;
        for (size_t i = 0; i < p->ntensors; i++)
            nw += p->tensors[i].kind == EZ_TENSOR_WEIGHT;
        if (wcom->npolys != nw + L.npolys) {
            ez_diag_set(d, "the weight commitment does not hold the range proof's advice");
            st = EZ_ERR_REJECT;
            goto out;
        }
        if ((st = ez_sess_pcs_claims(&c, nw, &cl, &n, &lifted)) != EZ_OK)
            goto out;
        if ((st = ez_pcs_commitment_set_standing(wcom, cl, n)) != EZ_OK)
            goto out;
    } else if ((st = ez_vsess_openings(&c, wcom, 0, &acom, chunk[2], clen[2], chunk[3], clen[3])) != EZ_OK) {
        /* the full weight opening: it tests the commitment's proximity for every proof */
        goto out;
    }
    *accepted = true;
out:
    if (st == EZ_ERR_REJECT) {
        ez_diag why = *d;
        ez_diag_set(d, "the verifying key's weight range proof failed: %s", why.msg);
        st = EZ_OK;
    }
    free(cl);
    free(lifted);
    if (c.tclaims)
        ez_pctx_free(&c);
    ez_pcs_commitment_clear(&acom);
    ez_advice_layout_clear(&L);
    if (*accepted)
        d->msg[0] = 0;
    else if (has && st == EZ_OK)
        (void)ez_pcs_commitment_set_standing(wcom, NULL, 0);
    return st;
}

ez_status ez_verify_weight_range(const ez_vk *vk, bool *accepted, ez_diag *d)
{
    ez_pcs_commitment wc;
    *accepted = false;
    memset(&wc, 0, sizeof wc);
    if (vk->has_weights && ez_pcs_commitment_copy(&wc, &vk->wcom) != EZ_OK)
        return EZ_ERR_NOMEM;
    ez_status st = ez_weight_range_verify(&vk->plan, vk->has_weights ? &wc : NULL, vk->wrange, vk->wrange_len,
                                          accepted, d);
    ez_pcs_commitment_clear(&wc);
    return st;
}

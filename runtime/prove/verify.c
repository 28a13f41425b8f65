/* verify — see verify.h; the phases mirror ez_prove (runtime/prove.c) record for record. */
#include "config.h"

#include "runtime/prove/verify.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/lookup.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/rangecheck.h"

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

/* Reject unless the section was read exactly. */
static bool section_done(ez_reader *r, const char *what, ez_diag *d)
{
    if (ez_reader_done(r))
        return true;
    ez_diag_set(d, "%s: %zu unexpected trailing bytes", what, ez_reader_remaining(r));
    return false;
}

/* ---- phases shared by ez_verify and ez_verify_weight_range ------------------------------------
 * Each returns EZ_OK (go on), EZ_ERR_REJECT (reason in d) or a hard error. */

/* Phase 2: read the advice commitment (its lens must be the layout's) and absorb it. */
static ez_status v_commit(const ez_advice_layout *L, ez_transcript *t, const uint8_t *data, size_t len,
                          ez_pcs_commitment *acom, ez_diag *d)
{
    ez_reader r;
    ez_reader_init(&r, data, len);
    uint8_t present = ez_reader_u8(&r);
    if (r.failed || present != (L->npolys > 0)) {
        ez_diag_set(d, "advice commitment: malformed");
        return EZ_ERR_REJECT;
    }
    if (present) {
        if (ez_pcs_commitment_read(&r, acom) != EZ_OK) {
            ez_diag_set(d, "advice commitment: malformed");
            return EZ_ERR_REJECT;
        }
        bool same = acom->npolys == L->npolys;
        for (size_t q = 0; same && q < L->npolys; q++)
            same = acom->lens[q] == L->polys[q].len;
        if (!same) {
            ez_diag_set(d, "advice commitment: its layout is not the model's");
            return EZ_ERR_REJECT;
        }
        ez_pcs_commitment_absorb(t, acom);
    }
    return section_done(&r, "advice commitment", d) ? EZ_OK : EZ_ERR_REJECT;
}

/* Phase 3: the lookups of every table, read from c->r (set to the section); with
 * wpad, then the zero-checks of the weights' padding (the vk's range proof). */
static ez_status v_lookups(ez_pctx *c, bool wpad)
{
    const ez_advice_layout *L = c->adv;
    ez_status st = EZ_OK;
    size_t *idx = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *idx);
    uint64_t *lens = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *lens);
    unsigned *tags = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *tags);
    if (idx == NULL || lens == NULL || tags == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (unsigned tb = 0; tb < L->ntables && st == EZ_OK; tb++) {
        size_t nc = 0;
        ez_lookup_claims lcl;
        for (size_t j = 0; j < L->ncols; j++)
            if (L->cols[j].table == tb) {
                idx[nc] = j;
                tags[nc] = L->cols[j].bits;
                lens[nc++] = L->cols[j].len;
            }
        st = ez_lookup_verify(c->t, L->tables[tb].rbits, L->tables[tb].nranges, lens, tags, nc, c->r, &lcl);
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "lookups: the range-check argument (table %u) failed", tb);
        else if (st == EZ_OK)
            st = ez_rc_resolve(c, tb, idx, nc, &lcl);
        ez_lookup_claims_clear(&lcl);
    }
    for (size_t i = 0; wpad && st == EZ_OK && i < c->plan->ntensors; i++)
        if (c->plan->tensors[i].kind == EZ_TENSOR_WEIGHT && ez_advice_interior_padding(&c->plan->tensors[i]))
            st = weight_pad_verify(c, i);
    if (st == EZ_OK && !section_done(c->r, "lookups", c->d))
        st = EZ_ERR_REJECT;
out:
    free(idx);
    free(lens);
    free(tags);
    return st == EZ_ERR_INVALID ? EZ_ERR_REJECT : st;
}

/* Phase 6: public tensors, weights (one opening, section ww; their padding is zero by the
 * vk's range proof), advice (wa). */
static ez_status v_openings(ez_pctx *c, const ez_pcs_commitment *wcom, unsigned wflags,
                            const ez_pcs_commitment *acom, const uint8_t *ww, size_t wwlen, const uint8_t *wa,
                            size_t walen)
{
    const ez_plan *p = c->plan;
    const ez_advice_layout *L = c->adv;
    ez_diag *d = c->d;
    ez_status st = EZ_OK;
    ez_reader r;
    size_t npc = 0, cap = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        cap += c->tclaims[i].n;
    for (size_t q = 0; q < L->npolys; q++)
        cap += c->aclaims[q].n;
    ez_pcs_claim *pclaims = ez_alloc_array(cap ? cap : 1, sizeof *pclaims);
    if (pclaims == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *tt = &p->tensors[i];
        if (tt->kind != EZ_TENSOR_INPUT && tt->kind != EZ_TENSOR_TOKENS)
            continue;
        const ez_stmt_tensor *x = c->stmt ? ez_statement_find(c->stmt, (unsigned)i) : NULL;
        for (size_t j = 0; j < c->tclaims[i].n; j++) {
            ez_fe2 v;
            if (x == NULL) {
                ez_diag_set(d, "a claim on the public input '%s' without its values", tt->source_name);
                st = EZ_ERR_REJECT;
                goto out;
            }
            if ((st = ez_advice_tensor_eval(&v, x->v, tt, c->tclaims[i].items[j].point)) != EZ_OK)
                goto out;
            if (!ez_fe2_eq(v, c->tclaims[i].items[j].value)) {
                ez_diag_set(d, "a claim on the public input '%s' is false", tt->source_name);
                st = EZ_ERR_REJECT;
                goto out;
            }
        }
    }
    ez_reader_init(&r, ww, wwlen);
    for (size_t i = 0, wi = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *tt = &p->tensors[i];
        ez_claim_list *l = &c->tclaims[i];
        if (tt->kind == EZ_TENSOR_ACT && l->n > 0) {
            ez_diag_set(d, "internal: claims left on activation '%s'", tt->name);
            st = EZ_ERR_INTERNAL;
            goto out;
        }
        if (tt->kind != EZ_TENSOR_WEIGHT)
            continue;
        for (size_t j = 0; j < l->n; j++)
            pclaims[npc++] = (ez_pcs_claim){wi, l->items[j].point, l->items[j].value};
        wi++;
    }
    if (npc > 0) {
        st = ez_pcs_verify_ex(wcom, c->t, pclaims, npc, wflags, &r);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag_set(d, "weight opening: the commitment does not open to the claimed values");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
    }
    if (!section_done(&r, "weight opening", d)) {
        st = EZ_ERR_REJECT;
        goto out;
    }
    ez_reader_init(&r, wa, walen);
    npc = 0;
    for (size_t q = 0; q < L->npolys; q++)
        for (size_t j = 0; j < c->aclaims[q].n; j++)
            pclaims[npc++] = (ez_pcs_claim){q, c->aclaims[q].items[j].point, c->aclaims[q].items[j].value};
    if (npc > 0) {
        st = ez_pcs_verify(acom, c->t, pclaims, npc, &r);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag_set(d, "advice opening: the commitment does not open to the claimed values");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
    }
    if (!section_done(&r, "advice opening", d))
        st = EZ_ERR_REJECT;
out:
    free(pclaims);
    return st;
}

/* ---- the weight range proof ------------------------------------------------------------------- */

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

ez_status ez_verify_weight_range(const ez_vk *vk, bool *accepted, ez_diag *d)
{
    const ez_plan *p = &vk->plan;
    ez_status st;
    ez_advice_layout L;
    ez_pctx c;
    ez_transcript t;
    ez_pcs_commitment acom;
    ez_reader r, sr;
    const uint8_t *chunk[4];
    size_t clen[4];
    memset(&c, 0, sizeof c);
    memset(&acom, 0, sizeof acom);
    ez_advice_layout_init(&L);
    *accepted = false;
    ez_reader_init(&r, vk->wrange, vk->wrange_len);
    uint8_t present = ez_reader_u8(&r);
    if (r.failed || present != (vk->has_weights ? 1 : 0)) {
        ez_diag_set(d, "the verifying key's weight range proof is malformed");
        return EZ_OK;
    }
    if (!present) {
        *accepted = ez_reader_done(&r);
        if (!*accepted)
            ez_diag_set(d, "the verifying key's weight range proof is malformed");
        return EZ_OK;
    }
    for (int k = 0; k < 4; k++)
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
    ez_weight_range_transcript_start(&t, p, &vk->wcom);
    if ((st = v_commit(&L, &t, chunk[0], clen[0], &acom, d)) != EZ_OK)
        goto out;
    c.prover = false;
    c.plan = p;
    c.adv = &L;
    c.t = &t;
    c.r = &sr;
    c.d = d;
    if ((st = ez_pctx_alloc(&c, p, &L)) != EZ_OK)
        goto out;
    ez_reader_init(&sr, chunk[1], clen[1]);
    if ((st = v_lookups(&c, true)) != EZ_OK)
        goto out;
    /* the full weight opening: it tests the commitment's proximity for every proof */
    if ((st = v_openings(&c, &vk->wcom, 0, &acom, chunk[2], clen[2], chunk[3], clen[3])) != EZ_OK)
        goto out;
    *accepted = true;
out:
    if (st == EZ_ERR_REJECT) {
        ez_diag why = *d;
        ez_diag_set(d, "the verifying key's weight range proof failed: %s", why.msg);
        st = EZ_OK;
    }
    if (c.tclaims)
        ez_pctx_free(&c);
    ez_pcs_commitment_clear(&acom);
    ez_advice_layout_clear(&L);
    if (*accepted)
        d->msg[0] = 0;
    return st;
}

/* ---- the verifier ------------------------------------------------------------------------------ */

ez_status ez_verify(const ez_vk *vk, const ez_proof *pf, bool *accepted, ez_verify_stats *stats, ez_diag *d)
{
    const ez_plan *p = &vk->plan;
    ez_status st;
    ez_advice_layout L;
    ez_pctx c;
    ez_transcript t;
    ez_pcs_commitment acom;
    ez_reader r;
    double t0 = ez_now();
    bool ok = false;
    memset(&c, 0, sizeof c);
    memset(&acom, 0, sizeof acom);
    ez_advice_layout_init(&L);
    *accepted = false;
    d->msg[0] = 0;

    if ((st = ez_advice_layout_build(&L, p, d)) != EZ_OK)
        goto out; /* EZ_ERR_UNSUPPORTED: an op this build cannot verify */
    /* the vk's own proof that its weights lie in their widths */
    if ((st = ez_verify_weight_range(vk, &ok, d)) != EZ_OK || !ok) {
        ok = false;
        goto out;
    }
    ok = false;
    if ((st = ez_statement_check(&pf->stmt, p, d)) != EZ_OK) {
        st = st == EZ_ERR_FORMAT ? EZ_OK : st; /* a malformed statement is a rejection */
        goto out;
    }

    /* phase 1 and 2 */
    ez_proof_transcript_start(&t, p, vk->has_weights ? &vk->wcom : NULL, &pf->stmt);
    if ((st = v_commit(&L, &t, pf->sec[EZ_PF_SEC_ADVICE].data, pf->sec[EZ_PF_SEC_ADVICE].len, &acom, d)) != EZ_OK)
        goto out;

    c.prover = false;
    c.plan = p;
    c.adv = &L;
    c.t = &t;
    c.r = &r;
    c.stmt = &pf->stmt;
    c.d = d;
    if ((st = ez_pctx_alloc(&c, p, &L)) != EZ_OK)
        goto out;

    /* phase 3: lookups */
    ez_reader_init(&r, pf->sec[EZ_PF_SEC_LOOKUPS].data, pf->sec[EZ_PF_SEC_LOOKUPS].len);
    if ((st = v_lookups(&c, false)) != EZ_OK)
        goto out;

    /* phase 4 and 5 */
    ez_reader_init(&r, pf->sec[EZ_PF_SEC_WALK].data, pf->sec[EZ_PF_SEC_WALK].len);
    if ((st = ez_proof_output_claims(&c, &pf->stmt)) != EZ_OK)
        goto out;
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        ez_claim_list *l = &c.tclaims[op->out];
        if (l->n == 0)
            continue;
        const ez_plan_tensor *to = &p->tensors[op->out];
        ez_claim m = {0};
        d->msg[0] = 0;
        if (l->n == 1)
            st = ez_claim_copy(&m, &l->items[0]);
        else if ((st = ez_claim_merge_verify(&t, ez_claim_tensor_nvars(to->dims, to->rank), l->items, l->n, &r,
                                             &m)) == EZ_ERR_REJECT)
            ez_diag_set(d, "the fan-out merge failed");
        ez_claim_list_clear(l);
        if (st == EZ_OK)
            st = ez_op_prover_find(op->kind)->verify(&c, i, &m);
        ez_claim_clear(&m);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag why = *d;
            ez_diag_set(d, "op '%s' (%s): %s", op->label, ez_op_kind_name(op->kind), why.msg[0] ? why.msg : "rejected");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
    }
    if (!section_done(&r, "walk", d)) {
        st = EZ_ERR_REJECT;
        goto out;
    }

    /* phase 6 */
    /* the weight commitment's proximity was tested by the vk's range proof (checked above) */
    st = v_openings(&c, &vk->wcom, EZ_PCS_OPEN_NO_PROXIMITY, &acom, pf->sec[EZ_PF_SEC_OPEN_W].data,
                    pf->sec[EZ_PF_SEC_OPEN_W].len, pf->sec[EZ_PF_SEC_OPEN_A].data, pf->sec[EZ_PF_SEC_OPEN_A].len);
    if (st == EZ_OK)
        ok = true;

out:
    if (st == EZ_ERR_REJECT) {
        /* a rejection from a helper that did not set a reason */
        if (!d->msg[0])
            ez_diag_set(d, "the proof is malformed");
        st = EZ_OK;
    }
    if (c.tclaims)
        ez_pctx_free(&c);
    ez_pcs_commitment_clear(&acom);
    ez_advice_layout_clear(&L);
    *accepted = ok && st == EZ_OK;
    if (*accepted)
        d->msg[0] = 0;
    if (stats)
        stats->seconds = ez_now() - t0;
    return st;
}

ez_status ez_verify_bytes(const ez_vk *vk, const uint8_t *data, size_t len, bool *accepted,
                          ez_verify_stats *stats, ez_diag *d)
{
    ez_proof pf;
    double t0 = ez_now();
    *accepted = false;
    ez_status st = ez_proof_decode(&pf, data, len, d);
    if (st == EZ_ERR_FORMAT) {
        if (stats)
            stats->seconds = ez_now() - t0;
        return EZ_OK; /* malformed: rejected, reason in d */
    }
    if (st != EZ_OK)
        return st;
    st = ez_verify(vk, &pf, accepted, stats, d);
    ez_proof_clear(&pf);
    if (stats)
        stats->seconds = ez_now() - t0;
    return st;
}

/* certify — see certify.h; the argument in docs/certify.md. */
#include "config.h"

#include "runtime/prove/certify.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/causality.h"

uint64_t ez_certify_pass_length(uint64_t last, uint64_t context)
{
    uint64_t L = 1;
    while (L < last + 1)
        L <<= 1;
    return L >= context ? context : L;
}

/* ---- prover -------------------------------------------------------------------------------- */

/* The trace of pass rp: the text's tokens (0 beyond it: positions past `last` certify
 * nothing), the pk's weights cut to rp's shapes (prefixes of the committed ones). */
static ez_status pass_trace(ez_trace *tr, const ez_plan *rp, const ez_plan *p, const ez_positions *ps,
                            const ez_pk *pk, const ez_generation *g, ez_diag *d)
{
    ez_status st = ez_trace_init(tr, rp, d);
    if (st != EZ_OK)
        return st;
    const uint64_t L = rp->tensors[ps->tokens].dims[0], n = g->nprompt + g->ngen;
    int64_t *tok = ez_alloc_array(L, sizeof *tok);
    if (tok == NULL)
        return EZ_ERR_NOMEM;
    for (uint64_t s = 0; s < L; s++)
        tok[s] = s < n ? g->tokens[s] : 0;
    st = ez_trace_set(tr, ps->tokens, tok, L, d);
    free(tok);
    size_t k = 0;
    for (size_t t = 0; t < p->ntensors && st == EZ_OK; t++) {
        if (p->tensors[t].kind != EZ_TENSOR_WEIGHT)
            continue;
        const ez_plan_tensor *rt = &rp->tensors[t];
        uint64_t m = ez_plan_tensor_numel(rt);
        int64_t *w = ez_alloc_array(m ? m : 1, sizeof *w);
        if (w == NULL)
            return EZ_ERR_NOMEM;
        ez_exec_copy_box(w, rt, pk->weights[k++].v, &p->tensors[t], NULL);
        st = ez_trace_set(tr, t, w, m, d);
        free(w);
    }
    if (st == EZ_OK)
        st = ez_exec_run(rp, tr, d);
    return st;
}

/* Prove one pass certifying positions first..last into out. */
static ez_status prove_pass(ez_certificate *out, const ez_plan *p, const ez_positions *ps, const ez_pk *pk,
                            const ez_generation *g, uint64_t first, uint64_t last, const ez_certify_opts *o,
                            ez_certify_stats *stats, ez_diag *d)
{
    const uint64_t L = ez_certify_pass_length(last, p->tensors[ps->tokens].dims[0]);
    ez_plan rp;
    ez_trace tr;
    ez_proof pf;
    ez_prove_stats pst;
    ez_writer w;
    memset(&tr, 0, sizeof tr);
    memset(&pst, 0, sizeof pst);
    ez_proof_init(&pf);
    ez_writer_init(&w);
    ez_status st = ez_plan_restrict(&rp, p, ps, L, d);
    if (st != EZ_OK)
        return st;
    if ((st = pass_trace(&tr, &rp, p, ps, pk, g, d)) != EZ_OK)
        goto out;
    for (uint64_t s = first; s <= last; s++)
        if (tr.t[ps->next][s] != g->tokens[s + 1]) {
            ez_diag_set(d, "position %" PRIu64 ": the model's next token is %" PRId64 ", the text has %" PRId64, s,
                        tr.t[ps->next][s], g->tokens[s + 1]);
            st = EZ_ERR_INPUT;
            goto out;
        }
    ez_prove_opts po = o ? o->prove : (ez_prove_opts){0};
    po.wplan = p;
    if ((st = ez_prove(&rp, &tr, pk->pcs, &po, &pf, &pst, d)) != EZ_OK)
        goto out;
    if ((st = ez_proof_encode(&w, &pf, NULL)) != EZ_OK)
        goto out;
    st = ez_certificate_add_pass(out, L, first, last, w.data, w.len);
    if (stats) {
        stats->seconds += pst.total;
        stats->cpu_seconds += pst.cpu_total;
        stats->npass++;
        stats->positions += L;
        stats->proof_bytes += w.len;
    }
out:
    ez_writer_clear(&w);
    ez_prove_stats_clear(&pst);
    ez_proof_clear(&pf);
    if (tr.plan)
        ez_trace_clear(&tr);
    ez_plan_clear(&rp);
    return st;
}

static ez_status copy_generation(ez_generation *dst, const ez_generation *src)
{
    *dst = *src;
    const uint64_t n = src->nprompt + src->ngen;
    dst->tokens = ez_alloc_array(n ? n : 1, sizeof *dst->tokens);
    if (dst->tokens == NULL)
        return EZ_ERR_NOMEM;
    memcpy(dst->tokens, src->tokens, n * sizeof *dst->tokens);
    return EZ_OK;
}

ez_status ez_certify(ez_certificate *out, const ez_plan *p, const ez_pk *pk, const ez_generation *g,
                     const ez_certify_opts *opts, ez_certify_stats *stats, ez_diag *d)
{
    ez_positions ps;
    ez_certificate_init(out);
    if (stats)
        memset(stats, 0, sizeof *stats);
    ez_status st = ez_positions_analyze(&ps, p, d);
    if (st == EZ_OK && ez_generation_check_stop(g, p->tensors[ps.tokens].dims[0], d) != EZ_OK)
        st = EZ_ERR_INPUT;
    if (st == EZ_OK)
        st = copy_generation(&out->gen, g);
    const uint64_t first = g->nprompt - 1, last = g->nprompt + g->ngen - 2;
    if (opts && opts->per_step) {
        for (uint64_t s = first; s <= last && st == EZ_OK; s++)
            st = prove_pass(out, p, &ps, pk, g, s, s, opts, stats, d);
    } else if (st == EZ_OK) {
        st = prove_pass(out, p, &ps, pk, g, first, last, opts, stats, d);
    }
    ez_positions_clear(&ps);
    if (st != EZ_OK)
        ez_certificate_clear(out);
    return st;
}

/* ---- verifier ------------------------------------------------------------------------------ */

/* The statement of one verified pass says what the certificate claims. */
static bool pass_statement_matches(const ez_proof *pf, const ez_positions *ps, const ez_generation *g,
                                   const ez_cert_pass *pass, ez_diag *d)
{
    const ez_stmt_tensor *tok = ez_statement_find(&pf->stmt, (unsigned)ps->tokens);
    const ez_stmt_tensor *next = ez_statement_find(&pf->stmt, (unsigned)ps->next);
    if (tok == NULL || next == NULL || tok->n < pass->last + 1 || next->n < pass->last + 1) {
        ez_diag_set(d, "the proof's statement lacks the tokens or the next-token output");
        return false;
    }
    int64_t *ttmp = NULL, *ntmp = NULL;
    const int64_t *tv = ez_stmt_values(tok, &ttmp), *nv = ez_stmt_values(next, &ntmp);
    bool ok = tv && nv;
    if (!ok)
        ez_diag_set(d, "out of memory reading the proof's statement");
    for (uint64_t s = 0; ok && s <= pass->last; s++)
        if (tv[s] != g->tokens[s]) {
            ez_diag_set(d, "the proof's token at position %" PRIu64 " is %" PRId64 ", the text has %" PRId64, s, tv[s],
                        g->tokens[s]);
            ok = false;
        }
    for (uint64_t s = pass->first; ok && s <= pass->last; s++)
        if (nv[s] != g->tokens[s + 1]) {
            ez_diag_set(d, "the model's next token after position %" PRIu64 " is %" PRId64 ", the text has %" PRId64, s,
                        nv[s], g->tokens[s + 1]);
            ok = false;
        }
    free(ttmp);
    free(ntmp);
    return ok;
}

/* Verify pass i; *accepted false with the reason in d on rejection. */
static ez_status verify_pass(const ez_vk *vk, const ez_positions *ps, const ez_certificate *c, size_t i,
                             bool *accepted, ez_diag *d)
{
    const ez_cert_pass *pass = &c->pass[i];
    ez_plan rp;
    ez_proof pf;
    *accepted = false;
    ez_status st = ez_plan_restrict(&rp, &vk->plan, ps, pass->length, d);
    if (st == EZ_ERR_INVALID)
        return EZ_OK; /* a length no pass may have: rejected */
    if (st != EZ_OK)
        return st;
    st = ez_proof_decode(&pf, pass->proof, pass->proof_len, d);
    if (st == EZ_OK) {
        st = ez_verify_plan(vk, &rp, &pf, accepted, NULL, d);
        if (st == EZ_OK && *accepted)
            *accepted = pass_statement_matches(&pf, ps, &c->gen, pass, d);
        ez_proof_clear(&pf);
    } else if (st == EZ_ERR_FORMAT) {
        st = EZ_OK; /* malformed: rejected */
    }
    ez_plan_clear(&rp);
    return st;
}

/* The passes cover nprompt - 1 .. nprompt + ngen - 2 in order, each within its length. */
static bool passes_cover(const ez_certificate *c, ez_diag *d)
{
    const ez_generation *g = &c->gen;
    uint64_t want = g->nprompt - 1;
    for (size_t i = 0; i < c->npass; i++) {
        const ez_cert_pass *ps = &c->pass[i];
        if (ps->first != want || ps->last < ps->first || ps->last >= ps->length) {
            ez_diag_set(d, "pass %zu certifies positions %" PRIu64 "..%" PRIu64 " of %" PRIu64 "; position %" PRIu64
                           " is next",
                        i, ps->first, ps->last, ps->length, want);
            return false;
        }
        want = ps->last + 1;
    }
    if (c->npass == 0 || want != g->nprompt + g->ngen - 1) {
        ez_diag_set(d, "the passes certify up to position %" PRIu64 ", the text needs up to %" PRIu64,
                    want ? want - 1 : 0, g->nprompt + g->ngen - 2);
        return false;
    }
    return true;
}

ez_status ez_certify_verify(const ez_vk *vk, const ez_certificate *c, bool *accepted, ez_verify_stats *stats,
                            ez_diag *d)
{
    double t0 = ez_now();
    ez_positions ps;
    *accepted = false;
    d->msg[0] = 0;
    ez_status st = ez_positions_analyze(&ps, &vk->plan, d);
    if (st == EZ_ERR_UNSUPPORTED) {
        ez_diag why = *d;
        ez_diag_set(d, "the verifying key's model is not certifiable: %s", why.msg);
        st = EZ_OK;
    } else if (st == EZ_OK) {
        const ez_generation *g = &c->gen;
        const ez_plan_tensor *tt = &vk->plan.tensors[ps.tokens];
        bool ok = ez_generation_check_stop(g, tt->dims[0], d) == EZ_OK;
        if (ok && (g->eos < -1 || g->eos >= tt->token_limit)) {
            ez_diag_set(d, "the EOS token %" PRId64 " is outside the vocabulary", g->eos);
            ok = false;
        }
        ok = ok && passes_cover(c, d);
        for (size_t i = 0; ok && i < c->npass && st == EZ_OK; i++) {
            st = verify_pass(vk, &ps, c, i, &ok, d);
            if (st == EZ_OK && !ok && c->npass > 1) {
                ez_diag why = *d;
                ez_diag_set(d, "pass %zu: %s", i, why.msg);
            }
        }
        *accepted = st == EZ_OK && ok;
    }
    ez_positions_clear(&ps);
    if (stats)
        stats->seconds = ez_now() - t0;
    return st;
}

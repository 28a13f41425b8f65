/* verify — see verify.h; the phases mirror ez_prove (runtime/prove/prove.c) record for record. */
#include "config.h"

#include "runtime/prove/verify.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/ops/op.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/public.h"
#include "runtime/prove/session.h"
#include "runtime/prove/statement.h"
#include "runtime/prove/weights.h"

/* What is checked before the argument: the vk's own proof that its weights lie in their
 * widths (deferred with WHIR: it leaves its final claims on wcom, a copy of the weight
 * commitment, which this proof's opening must prove; docs/protocol.md §6.4), the
 * statement against the plan, and the public ops executed on it. *ok false with the
 * reason in d on a rejection (a malformed statement is one). */
/* The transcript's start (ez_proof_transcript_start) as a thread's job. */
typedef struct {
    ez_transcript *t;
    const ez_plan *p;
    const ez_pcs_commitment *wcom;
    const ez_statement *s;
    ez_strategy strategy;
} hash_job;

static void *hash_run(void *arg)
{
    const hash_job *j = arg;
    ez_proof_transcript_start(j->t, j->p, j->wcom, j->s, j->strategy);
    return NULL;
}

static ez_status check_premises(const ez_vk *vk, const ez_plan *p, const ez_proof *pf, ez_pcs_commitment *wcom,
                                bool *ok, ez_diag *d)
{
    ez_status st = ez_weight_range_verify(&vk->plan, vk->has_weights ? wcom : NULL, vk->wrange, vk->wrange_len, ok, d);
    if (st != EZ_OK || !*ok)
        return st;
    *ok = false;
    if ((st = ez_statement_check(&pf->stmt, p, d)) != EZ_OK)
        return st == EZ_ERR_FORMAT ? EZ_OK : st; /* a malformed statement is a rejection */
    /* the public ops (runtime/prove/public.h): executed on the statement */
    return ez_public_ops_check(p, &pf->stmt, ok, d);
}

ez_status ez_verify(const ez_vk *vk, const ez_proof *pf, bool *accepted, ez_verify_stats *stats, ez_diag *d)
{
    return ez_verify_plan(vk, NULL, pf, accepted, stats, d);
}

ez_status ez_verify_plan(const ez_vk *vk, const ez_plan *plan, const ez_proof *pf, bool *accepted,
                         ez_verify_stats *stats, ez_diag *d)
{
    const ez_plan *p = plan ? plan : &vk->plan;
    ez_status st = EZ_OK;
    ez_advice_layout L;
    ez_pctx c;
    ez_transcript t;
    ez_pcs_commitment acom, wcom;
    ez_reader r;
    double t0 = ez_now();
    bool ok = false;
    memset(&c, 0, sizeof c);
    memset(&acom, 0, sizeof acom);
    memset(&wcom, 0, sizeof wcom);
    ez_advice_layout_init(&L);
    *accepted = false;
    d->msg[0] = 0;

    /* first what the proof is for: another model or other weights, said as such */
    if (ez_proof_binding_check(&pf->bind, p, vk->has_weights ? &vk->wcom : NULL, d) != EZ_OK)
        goto out;
    if ((st = ez_advice_layout_build(&L, p, d)) != EZ_OK)
        goto out; /* EZ_ERR_UNSUPPORTED: an op this build cannot verify */
    /* the vk's plan: its bounds re-derived and every relation's field margin (a plan where
     * a relation could wrap modulo p proves nothing about the integers) */
    ez_status ps = ez_plan_soundness(p, NULL, d);
    if (ps == EZ_ERR_FORMAT || ps == EZ_ERR_NUMERIC) {
        ez_diag why = *d;
        ez_diag_set(d, "the verifying key's plan is not sound: %s", why.msg);
        goto out;
    }
    if ((st = ps) != EZ_OK)
        goto out;
    if (vk->has_weights && (st = ez_pcs_commitment_copy(&wcom, &vk->wcom)) != EZ_OK)
        goto out;
    /* Phase 1, the transcript's start (its hash of the statement: GPT-2's 77 MB of logits
     * at 512 tokens), on a thread of its own beside the premises' checks when the
     * statement is large: neither reads what the other writes. A POSIX thread, not an
     * OpenMP team: the join sleeps (an OpenMP barrier spins unless OMP_WAIT_POLICY is
     * passive), and the checks keep their own OpenMP threads. The transcript of a proof
     * whose premises fail is dropped unused. */
    {
        hash_job job = {&t, p, vk->has_weights ? &vk->wcom : NULL, &pf->stmt, (ez_strategy)pf->strategy};
        pthread_t th;
        bool good = false, beside = ez_statement_bytes(&pf->stmt) >= EZ_STMT_HASH_THREAD_MIN &&
                                    pthread_create(&th, NULL, hash_run, &job) == 0;
        if (!beside)
            hash_run(&job);
        st = check_premises(vk, p, pf, &wcom, &good, d);
        if (beside)
            pthread_join(th, NULL);
        if (st != EZ_OK || !good)
            goto out;
    }

    /* phase 2; the strategy is the proof's own (any of them verifies against the vk) */
    if (pf->strategy >= EZ_STRATEGY_COUNT) {
        ez_diag_set(d, "unknown proving strategy %u", (unsigned)pf->strategy);
        goto out;
    }
    if ((st = ez_vsess_commit(&L, &t, pf->sec[EZ_PF_SEC_ADVICE].data, pf->sec[EZ_PF_SEC_ADVICE].len,
                              ez_advice_scheme(vk->has_weights ? &vk->wcom : NULL), &acom, d)) != EZ_OK)
        goto out;

    c = (ez_pctx){.prover = false, .plan = p, .adv = &L, .t = &t, .r = &r, .stmt = &pf->stmt,
                  .wplan = plan ? &vk->plan : NULL, .strategy = (ez_strategy)pf->strategy, .d = d};
    if ((st = ez_pctx_alloc(&c, p, &L)) != EZ_OK)
        goto out;

    /* phase 3: lookups */
    ez_reader_init(&r, pf->sec[EZ_PF_SEC_LOOKUPS].data, pf->sec[EZ_PF_SEC_LOOKUPS].len);
    if ((st = ez_vsess_lookups(&c)) != EZ_OK)
        goto out;
    if (!ez_vsess_section_done(&r, "lookups", d)) {
        st = EZ_ERR_REJECT;
        goto out;
    }

    /* phase 4 and 5 */
    ez_reader_init(&r, pf->sec[EZ_PF_SEC_WALK].data, pf->sec[EZ_PF_SEC_WALK].len);
    if ((st = ez_proof_output_claims(&c, &pf->stmt)) != EZ_OK)
        goto out;
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        ez_claim_list *l = &c.tclaims[op->out];
        if (l->n == 0)
            continue;
        if (ez_op_is_public(p, i)) {
            /* its result is public and recomputed above: claims on it are checked there */
            bool good = false;
            st = ez_public_claims_check(p, &pf->stmt, op->out, l, &good, d);
            ez_claim_list_clear(l);
            if (st == EZ_OK && !good)
                st = EZ_ERR_REJECT;
            if (st != EZ_OK)
                goto out;
            continue;
        }
        const ez_plan_tensor *to = &p->tensors[op->out];
        ez_claim m = {0};
        d->msg[0] = 0;
        if (l->n == 1)
            st = ez_claim_copy(&m, &l->items[0]);
        else if ((st = ez_claim_merge_verify(&t, to->dims, to->rank, l->items, l->n, &r, &m)) == EZ_ERR_REJECT)
            ez_diag_set(d, "the fan-out merge failed");
        ez_claim_list_clear(l);
        if (st == EZ_OK)
            st = ez_op_verify(&c, i, &m);
        ez_claim_clear(&m);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag why = *d;
            ez_diag_set(d, "op '%s' (%s): %s", op->label, ez_op_kind_name(op->kind), why.msg[0] ? why.msg : "rejected");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
    }
    if (!ez_vsess_section_done(&r, "walk", d)) {
        st = EZ_ERR_REJECT;
        goto out;
    }

    /* phase 6 */
    /* Ligero: the weight commitment's proximity was tested by the vk's range proof (checked
     * above); WHIR: every opening is a full test, and carries the range proof's claims */
    st = ez_vsess_openings(&c, &wcom, EZ_PCS_OPEN_NO_PROXIMITY, &acom, pf->sec[EZ_PF_SEC_OPEN_W].data,
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
    ez_pcs_commitment_clear(&wcom);
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

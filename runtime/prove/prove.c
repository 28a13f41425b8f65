/* prove — the prover of a whole plan (prove.h); protocol: docs/protocol.md. */
#include "config.h"

#include "runtime/prove/prove.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/ops/op.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/live.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/public.h"
#include "runtime/prove/session.h"
#include "runtime/prove/weights.h"

ez_status ez_prove_check_plan(const ez_plan *p, ez_diag *d)
{
    ez_advice_layout L;
    ez_status st = ez_advice_layout_build(&L, p, d);
    ez_advice_layout_clear(&L);
    if (st == EZ_OK && (st = ez_plan_soundness(p, NULL, d)) == EZ_ERR_FORMAT)
        st = EZ_ERR_NUMERIC;
    return st;
}

/* ---- helpers of the prover ------------------------------------------------------------------- */

double ez_prove_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ez_prove_stats_clear(ez_prove_stats *s)
{
    if (s == NULL)
        return;
    free(s->ops);
    memset(s, 0, sizeof *s);
}

static void progress(const ez_prove_opts *o, const char *phase, double frac)
{
    if (o && o->progress && o->progress_fn)
        o->progress_fn(o->progress_ctx, phase, frac);
}

/* ---- the prover ------------------------------------------------------------------------------ */

ez_status ez_prove(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, const ez_prove_opts *opts,
                   ez_proof *proof, ez_prove_stats *stats, ez_diag *d)
{
    ez_status st;
    ez_psess s;
    ez_pctx c;
    ez_transcript t;
    ez_prove_stats S;
    bool unchecked = opts && opts->unchecked;
    memset(&S, 0, sizeof S);
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    double t0 = ez_now(), tp = t0, c0 = ez_prove_cpu_now(), cp = c0;

    const ez_strategy strategy = opts ? opts->strategy : EZ_STRATEGY_EINSUM;
    if ((unsigned)strategy >= EZ_STRATEGY_COUNT) {
        ez_diag_set(d, "unknown proving strategy %u", (unsigned)strategy);
        return EZ_ERR_INVALID;
    }
    proof->strategy = (uint8_t)strategy;
    if (opts && opts->progress) {
        s.progress = opts->progress_fn;
        s.progress_ctx = opts->progress_ctx;
    }
    if ((st = ez_advice_layout_build(&s.L, p, d)) != EZ_OK)
        goto out;
    const ez_plan *wplan = opts && opts->wplan ? opts->wplan : p;
    if ((st = ez_weights_check(wplan, weights, d)) != EZ_OK)
        goto out;
    if (weights && ez_weights_deferred(wplan, ez_pcs_prover_commitment(weights)) &&
        ez_pcs_prover_commitment(weights)->nstanding == 0) {
        /* the opening must prove the vk's range claims (docs/protocol.md §6.4) */
        ez_diag_set(d, "the weight commitment carries no range claims: prove its weight range first "
                       "(ez_prove_weight_range) or load it from a proving key");
        st = EZ_ERR_INVALID;
        goto out;
    }
    S.nops = p->nops;
    if ((S.ops = ez_alloc_array(p->nops ? p->nops : 1, sizeof *S.ops)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if ((st = ez_statement_from_trace(&proof->stmt, p, opts && opts->stmt_from ? opts->stmt_from : tr->t)) != EZ_OK)
        goto out;
    ez_proof_bind(&proof->bind, p, weights ? ez_pcs_prover_commitment(weights) : NULL);

    /* witness: advice limbs, then every table's columns and multiplicities */
    progress(opts, "witness", 0);
    if ((st = ez_psess_witness(&s, p, tr, unchecked, d)) != EZ_OK)
        goto out;
    S.witness = ez_now() - tp;
    S.cpu_witness = ez_prove_cpu_now() - cp;

    /* phase 1: transcript; phase 2: the advice commitment */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    ez_proof_transcript_start(&t, p, weights ? ez_pcs_prover_commitment(weights) : NULL, &proof->stmt, strategy);
    progress(opts, "commit", 0);
    if ((st = ez_psess_commit(&s, &t, &proof->sec[EZ_PF_SEC_ADVICE],
                              ez_advice_scheme(weights ? ez_pcs_prover_commitment(weights) : NULL))) != EZ_OK)
        goto out;
    S.commit = ez_now() - tp;
    S.cpu_commit = ez_prove_cpu_now() - cp;

    c.prover = true;
    c.plan = p;
    c.adv = &s.L;
    c.t = &t;
    c.tr = tr;
    c.stmt = &proof->stmt;
    c.advice = s.polys;
    c.wplan = opts ? opts->wplan : NULL;
    c.strategy = strategy;
    c.msg_hook = opts ? opts->msg_hook : NULL;
    c.msg_hook_ctx = opts ? opts->msg_hook_ctx : NULL;
    c.sumcheck_hook = opts ? opts->sumcheck_hook : NULL;
    c.sumcheck_hook_ctx = opts ? opts->sumcheck_hook_ctx : NULL;
    c.d = d;
    if ((st = ez_pctx_alloc(&c, p, &s.L)) != EZ_OK)
        goto out;

    /* phase 3: lookups, one LogUp-GKR per table */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    progress(opts, "lookups", 0);
    c.w = &proof->sec[EZ_PF_SEC_LOOKUPS];
    if ((st = ez_psess_lookups(&s, &c)) != EZ_OK)
        goto out;
    S.lookups = ez_now() - tp;
    S.cpu_lookups = ez_prove_cpu_now() - cp;

    /* phase 4 and 5: output claims, then the backward walk */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    progress(opts, "sumchecks", 0);
    c.w = &proof->sec[EZ_PF_SEC_WALK];
    if (opts && opts->walk_tr)
        c.tr = opts->walk_tr; /* testing only: another witness for the walk */
    if ((st = ez_proof_output_claims(&c, &proof->stmt)) != EZ_OK)
        goto out;
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        ez_claim_list *l = &c.tclaims[op->out];
        if (l->n == 0)
            continue; /* nothing depends on this op */
        if (ez_op_is_public(p, i)) {
            ez_claim_list_clear(l); /* the verifier checks them on the statement */
            continue;
        }
        double ts = ez_now(), tc = ez_prove_cpu_now();
        size_t b0 = c.w->len;
        const ez_plan_tensor *to = &p->tensors[op->out];
        ez_claim m = {0};
        c.work = &S.ops[i].work;
        if (l->n == 1) {
            st = ez_claim_copy(&m, &l->items[0]);
        } else {
            /* the padded strategies merge over padded tables too (the same bytes) */
            uint64_t touched = 0;
            /* a tensor on a live support (runtime/prove/live.h): its claims are on the
             * tensor restricted to that support */
            long ls = ez_live_support_of(c.adv, p, i);
            int64_t *lv = ls >= 0 ? ez_advice_restrict_i64(c.tr->t[op->out], to, &c.adv->supports[ls]) : NULL;
            if (ls >= 0 && lv == NULL)
                st = EZ_ERR_NOMEM;
            else
                st = ez_claim_merge_prove_ex(&t, lv ? lv : c.tr->t[op->out], to->dims, to->rank, l->items, l->n,
                                             strategy != EZ_STRATEGY_EINSUM, c.w, &m, &touched);
            free(lv);
            ez_work_add(c.work, 1, touched, ez_claim_merge_work(to->dims, to->rank, l->n, false));
        }
        ez_claim_list_clear(l);
        if (st == EZ_OK)
            st = ez_op_prove(&c, i, &m);
        c.work = NULL;
        ez_claim_clear(&m);
        if (st != EZ_OK) {
            if (!d->msg[0])
                ez_diag_set(d, "op '%s' (%s): the prover failed (%s)", op->label, ez_op_kind_name(op->kind),
                            ez_status_str(st));
            goto out;
        }
        S.ops[i].seconds = ez_now() - ts;
        S.ops[i].cpu_seconds = ez_prove_cpu_now() - tc;
        S.ops[i].bytes = c.w->len - b0;
        progress(opts, "sumchecks", (double)(p->nops - i) / (double)p->nops);
    }
    S.sumchecks = ez_now() - tp;
    S.cpu_sumchecks = ez_prove_cpu_now() - cp;

    /* phase 6: openings */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    progress(opts, "openings", 0);
    if (opts && opts->trace_done) {
        c.tr = NULL; /* from here on nothing reads it */
        opts->trace_done(opts->trace_done_ctx);
    }
    ez_psess_release_advice(&s);
    /* the weight commitment's proximity is tested once, by the vk's range proof, which
     * every verification checks first: the proof's weight opening omits it */
    if ((st = ez_psess_openings(&s, &c, weights, EZ_PCS_OPEN_NO_PROXIMITY, &proof->sec[EZ_PF_SEC_OPEN_W],
                            &proof->sec[EZ_PF_SEC_OPEN_A])) != EZ_OK)
        goto out;
    S.openings = ez_now() - tp;
    S.cpu_openings = ez_prove_cpu_now() - cp;
    for (int k = 1; k <= EZ_PF_NSEC; k++)
        if (proof->sec[k].failed) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    S.total = ez_now() - t0;
    S.cpu_total = ez_prove_cpu_now() - c0;
    progress(opts, "done", 1);

out:
    if (c.tclaims)
        ez_pctx_free(&c);
    ez_psess_clear(&s);
    if (st == EZ_OK && stats)
        *stats = S;
    else
        ez_prove_stats_clear(&S);
    return st;
}

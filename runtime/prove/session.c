/* session — the shared phases of a proof, prover and verifier (session.h). */
#include "config.h"

#include "runtime/prove/session.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
#define omp_get_max_threads() 1
#endif

#include "runtime/ops/op.h"
#include "runtime/prove/lookup.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/prove/statement.h"

/* ---- the claims of the two openings (both sides) ------------------------------------------ */

/* The weight claims as claims on the committed polynomials: a claim on weight t of the
 * plan at point z becomes one on the weight as committed (c->wplan's tensor t): per axis
 * whose extent the plan shrank to a power-of-two prefix, the axis' block of z gets the
 * missing top coordinates set to 0 (the prefix's MLE). The weights' padding is zero
 * (the vk's range proof), so a claim on the tensor is a claim on its polynomial.
 * Out: pcl[0..*n), the lifted points in *lifted (one array, caller frees). */
static ez_status weight_claims(const ez_pctx *c, ez_pcs_claim *pcl, size_t *n, ez_fe2 **lifted)
{
    const ez_plan *p = c->plan, *w = c->wplan ? c->wplan : c->plan;
    size_t total = 0, used = 0;
    *n = 0;
    *lifted = NULL;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT)
            total += c->tclaims[i].n * ez_claim_tensor_nvars(w->tensors[i].dims, w->tensors[i].rank);
    ez_fe2 *buf = ez_alloc_array(total ? total : 1, sizeof *buf);
    if (buf == NULL)
        return EZ_ERR_NOMEM;
    for (size_t i = 0, wi = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *tp = &p->tensors[i], *tw = &w->tensors[i];
        const ez_claim_list *l = &c->tclaims[i];
        if (tp->kind == EZ_TENSOR_ACT && l->n > 0) {
            ez_diag_set(c->d, "internal: claims left on activation '%s'", tp->name);
            free(buf);
            return EZ_ERR_INTERNAL;
        }
        if (tp->kind != EZ_TENSOR_WEIGHT)
            continue;
        for (size_t j = 0; j < l->n; j++) {
            ez_fe2 *pt = buf + used;
            unsigned o = 0, so = 0;
            for (unsigned a = 0; a < tw->rank; a++) {
                unsigned nw = ez_log2_ceil(tw->dims[a]), np = ez_log2_ceil(tp->dims[a]);
                for (unsigned b = 0; b < nw - np; b++)
                    pt[o++] = ez_fe2_zero();
                if (np) /* an axis of extent 1 has no variables (and a point may be NULL) */
                    memcpy(pt + o, l->items[j].point + so, np * sizeof *pt);
                o += np, so += np;
            }
            used += o;
            pcl[(*n)++] = (ez_pcs_claim){wi, pt, l->items[j].value};
        }
        wi++;
    }
    *lifted = buf;
    return EZ_OK;
}

/* Every advice claim, as a claim on its poly. */
static void advice_claims(const ez_pctx *c, ez_pcs_claim *pcl, size_t *n)
{
    *n = 0;
    for (size_t q = 0; q < c->adv->npolys; q++)
        for (size_t j = 0; j < c->aclaims[q].n; j++)
            pcl[(*n)++] = (ez_pcs_claim){q, c->aclaims[q].items[j].point, c->aclaims[q].items[j].value};
}

/* Room for every claim of either opening. */
static ez_pcs_claim *claims_room(const ez_pctx *c)
{
    size_t cap = 0;
    for (size_t i = 0; i < c->plan->ntensors; i++)
        cap += c->tclaims[i].n;
    for (size_t q = 0; q < c->adv->npolys; q++)
        cap += c->aclaims[q].n;
    return ez_alloc_array(cap ? cap : 1, sizeof(ez_pcs_claim));
}

ez_status ez_sess_pcs_claims(const ez_pctx *c, size_t aoff, ez_pcs_claim **out, size_t *n, ez_fe2 **lifted)
{
    size_t nw = 0, na = 0;
    *out = NULL;
    *n = 0;
    ez_pcs_claim *cl = claims_room(c);
    if (cl == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = weight_claims(c, cl, &nw, lifted);
    if (st != EZ_OK) {
        free(cl);
        return st;
    }
    advice_claims(c, cl + nw, &na);
    for (size_t k = 0; k < na; k++)
        cl[nw + k].poly += aoff;
    *out = cl;
    *n = nw + na;
    return EZ_OK;
}

/* ---- prover ------------------------------------------------------------------------------- */

/* Hand the heap's free pages back to the system. Blocks below 1 GiB come from the heap
 * (the CLI raises glibc's mmap threshold that far), so free alone keeps their pages
 * resident: the proving key's decoding buffers through the witness, the witness's lookup
 * columns through the commitment. Called at those phase boundaries (docs/performance.md,
 * GPT-2 at 512 tokens). Below HEAP_TRIM_MIN free bytes the pages stay: the next phase
 * touches them again, and at nanoGPT's size a trim only costs page faults. Before the
 * openings only when spilling: see ez_psess_release_advice. */
#define HEAP_TRIM_MIN ((size_t)256 << 20)

static void heap_release(void)
{
#ifdef __GLIBC__
    struct mallinfo2 mi = mallinfo2();
    if (mi.fordblks >= HEAP_TRIM_MIN)
        (void)malloc_trim(0);
#endif
}

static void progress(const ez_psess *s, const char *phase, size_t done, size_t total)
{
    if (s->progress)
        s->progress(s->progress_ctx, phase, total ? (double)done / (double)total : 1.0);
}

void ez_psess_clear(ez_psess *s)
{
    if (s->polys)
        for (size_t q = 0; q < s->L.npolys; q++)
            free(s->polys[q]);
    free(s->polys);
    free(s->alens);
    for (size_t tb = 0; tb < EZ_ADV_MAX_TABLES; tb++) {
        for (size_t j = 0; j < s->tcs[tb].nslots; j++)
            free(s->tcs[tb].owned[j]);
        free(s->tcs[tb].cols);
        free(s->tcs[tb].owned);
        free(s->tcs[tb].idx);
        free(s->tcs[tb].lens);
        free(s->tcs[tb].tags);
        free(s->tcs[tb].tin);
        free(s->tcs[tb].tout);
    }
    ez_pcs_prover_free(s->aprover);
    ez_pcs_commitment_clear(&s->acom);
    ez_advice_layout_clear(&s->L);
    memset(s, 0, sizeof *s);
}

void ez_psess_release_advice(ez_psess *s)
{
    if (s->polys)
        for (size_t q = 0; q < s->L.npolys; q++) {
            free(s->polys[q]);
            s->polys[q] = NULL;
        }
    /* In memory, no trim: the openings' data is resident already and their tables are
     * carved from these pages (and the trace's, freed just before); handing them back
     * made the openings fault them in again, zero-filled: a quarter of a one-block
     * 512-token prove's page faults (1 GiB), the openings 0.8 CPU s, the peak the same.
     * Spilled (memory short), the trim stays: the openings read the parts back into the
     * page cache on top of what is resident, and the kept heap made them the peak (two
     * blocks at 512 tokens: +0.2-0.45 GB). docs/performance.md, gpt2n. */
    if (ez_spill_on())
        heap_release();
}

/* Free the columns of table tb the session materialised (virtual columns, gathered
 * tensors): they are rebuilt for its LogUp (sess_cols_build), so they are not held
 * through the commitment, and freed again before the openings. Borrowed columns (advice
 * polys) are pointers only. */
static void sess_cols_release(ez_sess_cols *tc)
{
    for (size_t j = 0; j < tc->nslots; j++) {
        if (tc->owned[j])
            tc->cols[j] = NULL;
        free(tc->owned[j]);
        tc->owned[j] = NULL;
    }
}

/* The concrete columns of table tb (their lengths and tags too). */
static ez_status sess_cols_build(ez_psess *s, const ez_plan *p, const ez_trace *tr, size_t tb, ez_diag *d)
{
    ez_advice_layout *L = &s->L;
    ez_sess_cols *tc = &s->tcs[tb];
    ez_status st;
    if (L->tables[tb].kind == EZ_LOOKUP_RANGES) {
        st = ez_rc_columns(L, p, tr, s->polys, (unsigned)tb, tc->cols, tc->owned, tc->idx, &tc->nc, d);
        for (size_t j = 0; st == EZ_OK && j < tc->nc; j++) {
            tc->lens[j] = L->cols[tc->idx[j]].len;
            tc->tags[j] = L->cols[tc->idx[j]].bits;
        }
    } else {
        st = ez_rc_tuple_columns(L, p, tr, s->polys, (unsigned)tb, tc->cols, tc->owned, tc->idx, &tc->nc);
        for (size_t j = 0; st == EZ_OK && j < tc->nc; j++)
            tc->lens[j] = L->tuples[tc->idx[j]].len;
    }
    return st;
}

/* The advice values, every table's concrete columns and its multiplicities (s->L built). */
ez_status ez_psess_witness(ez_psess *s, const ez_plan *p, const ez_trace *tr, bool unchecked, ez_diag *d)
{
    ez_advice_layout *L = &s->L;
    ez_status st;
    heap_release();
    s->polys = ez_alloc_array(L->npolys ? L->npolys : 1, sizeof *s->polys);
    s->alens = ez_alloc_array(L->npolys ? L->npolys : 1, sizeof *s->alens);
    if (!s->polys || !s->alens)
        return EZ_ERR_NOMEM;
    if ((st = ez_advice_fill(L, p, tr, unchecked, s->polys, d)) != EZ_OK)
        return st;
    size_t steps = p->nops + L->ntables;
    /* The ops' advice in parallel, one op per task (each writes its own polys); the first
     * failing op's message is kept, and progress moves as each op ends (a long witness,
     * 512 tokens of GPT-2, reports while it runs). */
    size_t bad = p->nops, done = 0;
    int err = EZ_OK;
#pragma omp parallel for schedule(dynamic, 1) if (p->nops > 1)
    for (size_t i = 0; i < p->nops; i++) {
        ez_diag di;
        di.msg[0] = 0;
        ez_status sti = ez_op_fill(L, p, tr, i, unchecked, s->polys, &di);
#pragma omp critical(ez_psess_op_fill)
        {
            if (sti != EZ_OK && i < bad) {
                bad = i;
                err = (int)sti;
                if (d)
                    *d = di;
            }
            progress(s, "witness", ++done, steps);
        }
    }
    if (err != EZ_OK)
        return (ez_status)err;
    for (size_t q = 0; q < L->npolys; q++)
        s->alens[q] = L->polys[q].len;
    for (size_t tb = 0; tb < L->ntables; tb++) {
        ez_sess_cols *tc = &s->tcs[tb];
        size_t q = ez_advice_table_poly(L, (unsigned)tb), n = L->ncols + 2 * L->ntuples + 1;
        tc->cols = ez_alloc_array(n, sizeof *tc->cols);
        tc->owned = ez_alloc_array(n, sizeof *tc->owned);
        tc->nslots = tc->owned ? n : 0;
        tc->idx = ez_alloc_array(n, sizeof *tc->idx);
        tc->lens = ez_alloc_array(n, sizeof *tc->lens);
        tc->tags = ez_alloc_array(n, sizeof *tc->tags);
        s->polys[q] = ez_alloc_aligned(s->alens[q], sizeof(ez_fe));
        if (!tc->cols || !tc->owned || !tc->idx || !tc->lens || !tc->tags || !s->polys[q])
            return EZ_ERR_NOMEM;
        const ez_lookup_table_desc *td = &L->tables[tb];
        if (td->kind != EZ_LOOKUP_RANGES &&
            (st = ez_lookup_func_rows(td->fkind, td->func, td->in_scale, td->out_scale, &tc->tin, &tc->tout, d)) !=
                EZ_OK)
            return st;
        if ((st = sess_cols_build(s, p, tr, tb, d)) != EZ_OK)
            return st;
        if (td->kind == EZ_LOOKUP_RANGES)
            st = ez_lookup_mult(s->polys[q], td->rbits, td->nranges, td->pairs, tc->cols, tc->lens, tc->tags, tc->nc, d);
        else
            st = ez_lookup_func_mult(s->polys[q], tc->tin, tc->tout, tc->cols, tc->lens, tc->nc, d);
        if (!s->keep_cols)
            sess_cols_release(tc);
        if (st == EZ_ERR_NUMERIC) {
            /* checked mode: a value outside its range, or a row not in its function table,
             * that the advice fill let through */
            if (unchecked) {
                st = EZ_OK;
            } else {
                ez_diag why = *d;
                ez_diag_set(d, "a looked-up value is not in its table (%s)", why.msg);
            }
        }
        if (st != EZ_OK)
            return st;
        progress(s, "witness", p->nops + tb + 1, steps);
    }
    return EZ_OK;
}

/* The commitment's own progress (lib/util.h's thread sink) as the "commit" phase. */
static void commit_progress(void *ctx, double frac)
{
    const ez_psess *s = ctx;
    s->progress(s->progress_ctx, "commit", frac);
}

/* Phase 2: commit the advice, write u8 present + the commitment to w, absorb it. */
ez_status ez_psess_commit(ez_psess *s, ez_transcript *t, ez_writer *w, unsigned scheme)
{
    ez_writer_u8(w, s->L.npolys > 0);
    if (s->L.npolys == 0)
        return EZ_OK;
    progress(s, "commit", 0, 1);
    heap_release();
    ez_pcs_support *sup = NULL;
    ez_status st = ez_advice_pcs_supports(&s->L, &sup);
    if (s->progress)
        ez_progress_install(commit_progress, s);
    if (st == EZ_OK)
        st = ez_pcs_commit_supported(&s->aprover, &s->acom, (const ez_fe *const *)s->polys, s->alens, sup,
                                     s->L.npolys, scheme, 0);
    ez_progress_install(NULL, NULL);
    free(sup);
    if (st != EZ_OK)
        return st;
    progress(s, "commit", 1, 1);
    ez_pcs_commitment_write(w, &s->acom);
    ez_pcs_commitment_absorb(t, &s->acom);
    return EZ_OK;
}

/* Phase 3: one LogUp-GKR per table, then its claims resolved (c->w is the section). */
/* The lookups' trees are proven together, each on one thread, largest first, when they
 * have at most this many leaves in all: then two trees and every table's columns are
 * held at once (nanoGPT: 2^21 leaves, tens of MB). Above it, table by table and one tree
 * in memory at a time, each tree's loops parallel (GPT-2). The proof is the same. */
#define PSESS_TOGETHER_LEAVES (UINT64_C(1) << 22)

typedef struct {
    unsigned tb, vars;
    size_t k;
} sess_tree;

/* Largest first (the longest task starts first), then in table and tree order. */
static int sess_tree_cmp(const void *pa, const void *pb)
{
    const sess_tree *a = pa, *b = pb;
    if (a->vars != b->vars)
        return a->vars > b->vars ? -1 : 1;
    if (a->tb != b->tb)
        return a->tb < b->tb ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* Table tb's columns and multiplicities to its prover (built again unless kept). */
static ez_status sess_lookup_columns(ez_psess *s, ez_pctx *c, ez_lookup_prover *lp, size_t tb)
{
    ez_sess_cols *tc = &s->tcs[tb];
    const ez_fe *m = s->polys[ez_advice_table_poly(&s->L, (unsigned)tb)];
    ez_status st = s->keep_cols ? EZ_OK : sess_cols_build(s, c->plan, c->tr, tb, c->d);
    if (st == EZ_OK)
        st = ez_lookup_prover_columns(lp, tc->cols, tc->lens, tc->tags, tc->nc, m);
    return st;
}

/* Every tree of every table at once (distinct trees touch disjoint state); the first
 * failing tree's status in the list's order. A tree holding more than a thread's share
 * of the leaves left (nanoGPT's 2^20-leaf range column: 58 % of 1.8 M leaves) would run
 * on one thread while the others finish early: such trees, largest first, are proven
 * one at a time by the whole team (their loops parallel), then the rest together, one
 * thread each. The proof is the same (every tree on its own transcript, §4b). */
static ez_status sess_trees_together(ez_psess *s, ez_pctx *c, ez_lookup_prover *lp, size_t ntrees)
{
    sess_tree *tr = ez_alloc_array(ntrees ? ntrees : 1, sizeof *tr);
    if (tr == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = EZ_OK;
    size_t n = 0;
    for (size_t tb = 0; tb < s->L.ntables && st == EZ_OK; tb++) {
        st = sess_lookup_columns(s, c, &lp[tb], tb);
        for (size_t k = 0; k < ez_logup_prover_ninstances(lp[tb].lp); k++)
            tr[n++] = (sess_tree){.tb = (unsigned)tb, .k = k, .vars = ez_logup_prover_instance_vars(lp[tb].lp, k)};
    }
    if (st != EZ_OK) {
        free(tr);
        return st;
    }
    qsort(tr, n, sizeof *tr, sess_tree_cmp);
    size_t bad = n;
    int err = EZ_OK;
    uint64_t rest = 0;
    for (size_t i = 0; i < n; i++)
        rest += UINT64_C(1) << tr[i].vars;
    size_t i0 = 0;
    const uint64_t nt = (uint64_t)omp_get_max_threads();
    for (; i0 < n && nt > 1 && (UINT64_C(1) << tr[i0].vars) * nt > rest; i0++) {
        rest -= UINT64_C(1) << tr[i0].vars;
        ez_status sti = ez_lookup_prove_tree(&lp[tr[i0].tb], tr[i0].k);
        if (sti != EZ_OK && bad == n) {
            bad = i0;
            err = (int)sti;
        }
    }
#pragma omp parallel for schedule(dynamic, 1) if (n - i0 > 1)
    for (size_t i = i0; i < n; i++) {
        ez_status sti = ez_lookup_prove_tree(&lp[tr[i].tb], tr[i].k);
        if (sti != EZ_OK) {
#pragma omp critical(ez_psess_trees)
            if (i < bad) {
                bad = i;
                err = (int)sti;
            }
        }
    }
    free(tr);
    return (ez_status)err;
}

ez_status ez_psess_lookups(ez_psess *s, ez_pctx *c)
{
    ez_status st = EZ_OK;
    ez_lookup_prover lp[EZ_ADV_MAX_TABLES];
    size_t ntrees = 0;
    uint64_t leaves = 0;
    memset(lp, 0, sizeof lp);
    /* every table's statement and challenges, in table order (§4b) */
    for (size_t tb = 0; tb < s->L.ntables && st == EZ_OK; tb++) {
        const ez_sess_cols *tc = &s->tcs[tb];
        const ez_lookup_table_desc *td = &s->L.tables[tb];
        st = td->kind == EZ_LOOKUP_RANGES
                 ? ez_lookup_prove_begin(&lp[tb], c->t, td->rbits, td->nranges, td->pairs, tc->lens, tc->tags, tc->nc)
                 : ez_lookup_func_prove_begin(&lp[tb], c->t, tc->tin, tc->tout, tc->lens, tc->nc);
        for (size_t k = 0; st == EZ_OK && k < ez_logup_prover_ninstances(lp[tb].lp); k++, ntrees++)
            leaves += UINT64_C(1) << ez_logup_prover_instance_vars(lp[tb].lp, k);
    }
    const bool together = leaves <= PSESS_TOGETHER_LEAVES;
    if (st == EZ_OK && together)
        st = sess_trees_together(s, c, lp, ntrees);
    /* then per table in order: its trees (unless proven together), its bytes and joined
     * transcripts, its claims resolved */
    for (size_t tb = 0; tb < s->L.ntables && st == EZ_OK; tb++) {
        ez_sess_cols *tc = &s->tcs[tb];
        ez_lookup_claims lcl;
        memset(&lcl, 0, sizeof lcl);
        if (!together) {
            st = sess_lookup_columns(s, c, &lp[tb], tb);
            for (size_t k = 0; st == EZ_OK && k < ez_logup_prover_ninstances(lp[tb].lp); k++)
                st = ez_lookup_prove_tree(&lp[tb], k);
        }
        if (st == EZ_OK)
            st = ez_lookup_prove_end(&lp[tb], c->t, c->w, &lcl);
        if (st == EZ_OK)
            st = s->L.tables[tb].kind == EZ_LOOKUP_RANGES ? ez_rc_resolve(c, (unsigned)tb, tc->idx, tc->nc, &lcl)
                                                          : ez_rc_resolve_tuples(c, (unsigned)tb, tc->idx, tc->nc, &lcl);
        ez_lookup_claims_clear(&lcl);
        sess_cols_release(tc);
        ez_lookup_prover_clear(&lp[tb]);
        if (st == EZ_OK)
            progress(s, "lookups", tb + 1, s->L.ntables);
    }
    for (size_t tb = 0; tb < s->L.ntables; tb++) {
        sess_cols_release(&s->tcs[tb]);
        ez_lookup_prover_clear(&lp[tb]);
    }
    return st;
}

/* Phase 6: weights (one opening, with the PCS flags wflags) into ww, advice (one
 * opening) into wa. The weights' padding is zero (the vk's range proof), so a claim on a
 * weight tensor is a claim on its committed polynomial. */
ez_status ez_psess_openings(ez_psess *s, ez_pctx *c, ez_pcs_prover *weights, unsigned wflags, ez_writer *ww,
                            ez_writer *wa)
{
    ez_status st = EZ_OK;
    size_t npc = 0;
    ez_fe2 *lifted = NULL;
    ez_pcs_claim *pclaims = claims_room(c);
    if (pclaims == NULL)
        return EZ_ERR_NOMEM;
    if ((st = weight_claims(c, pclaims, &npc, &lifted)) != EZ_OK)
        goto out;
    size_t nadv = 0;
    advice_claims(c, pclaims + npc, &nadv);
    /* the weight commitment's standing claims (the vk's deferred range claims, §6.4) make
     * an opening even when the proof has no weight claims; lib/pcs.h adds them */
    const ez_pcs_commitment *wc = weights ? ez_pcs_prover_commitment(weights) : NULL;
    size_t nwo = npc + (wc ? wc->nstanding : 0);
    if (nwo > 0 && nadv > 0 && wc->scheme == EZ_PCS_SCHEME_WHIR && s->acom.scheme == EZ_PCS_SCHEME_WHIR) {
        /* both WHIR: ONE batched opening of weights and advice, all in the weight section
         * (protocol-kernel-pcs.md §9a) */
        ez_pcs_prover *pp[2] = {weights, s->aprover};
        const ez_pcs_claim *cl[2] = {pclaims, pclaims + npc};
        size_t nn[2] = {npc, nadv};
        unsigned fl[2] = {wflags, 0};
        progress(s, "openings", 1, 4); /* both claim sets gathered */
        if ((st = ez_pcs_open_multi(pp, cl, nn, fl, 2, c->t, ww)) == EZ_OK)
            progress(s, "openings", 2, 2);
        goto out;
    }
    if (nwo > 0 && (st = ez_pcs_open_ex(weights, c->t, pclaims, npc, wflags, ww)) != EZ_OK)
        goto out;
    progress(s, "openings", 1, 2);
    if (nadv > 0)
        st = ez_pcs_open(s->aprover, c->t, pclaims + npc, nadv, wa);
    if (st == EZ_OK)
        progress(s, "openings", 2, 2);
out:
    free(lifted);
    free(pclaims);
    return st;
}

/* ---- verifier ----------------------------------------------------------------------------- */

/* Reject unless the section was read exactly. */
bool ez_vsess_section_done(ez_reader *r, const char *what, ez_diag *d)
{
    if (ez_reader_done(r))
        return true;
    ez_diag_set(d, "%s: %zu unexpected trailing bytes", what, ez_reader_remaining(r));
    return false;
}

/* Phase 2: read the advice commitment (its lens must be the layout's) and absorb it. */
ez_status ez_vsess_commit(const ez_advice_layout *L, ez_transcript *t, const uint8_t *data, size_t len,
                          unsigned scheme, ez_pcs_commitment *acom, ez_diag *d)
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
        if (acom->scheme != scheme) {
            ez_diag_set(d, "advice commitment: scheme %u, the verifying key's weights call for %u", acom->scheme,
                        scheme);
            return EZ_ERR_REJECT;
        }
        /* the supports are the layout's (public, not in the bytes) */
        ez_pcs_support *sup = NULL;
        ez_status st = ez_advice_pcs_supports(L, &sup);
        if (st == EZ_OK && sup)
            st = ez_pcs_commitment_set_supports(acom, sup);
        free(sup);
        if (st == EZ_ERR_NOMEM)
            return st;
        if (st != EZ_OK) {
            ez_diag_set(d, "advice commitment: its layout is not the model's");
            return EZ_ERR_REJECT;
        }
        ez_pcs_commitment_absorb(t, acom);
    }
    return ez_vsess_section_done(&r, "advice commitment", d) ? EZ_OK : EZ_ERR_REJECT;
}

/* Phase 3: the lookups of every table, read from c->r (set to the section; the caller
 * checks that the section ends after whatever else it holds). */
ez_status ez_vsess_lookups(ez_pctx *c)
{
    const ez_advice_layout *L = c->adv;
    ez_status st = EZ_OK;
    size_t n = L->ncols + L->ntuples + 1;
    size_t *idx[EZ_ADV_MAX_TABLES] = {0}, nc[EZ_ADV_MAX_TABLES] = {0};
    uint64_t *lens = ez_alloc_array(n, sizeof *lens);
    unsigned *tags = ez_alloc_array(n, sizeof *tags);
    ez_fe *tin[EZ_ADV_MAX_TABLES] = {0}, *tout[EZ_ADV_MAX_TABLES] = {0};
    ez_lookup_verifier lv[EZ_ADV_MAX_TABLES];
    memset(lv, 0, sizeof lv);
    if (lens == NULL || tags == NULL)
        st = EZ_ERR_NOMEM;
    /* every table's statement and challenges in table order, then per table its trees
     * (each on its own transcript, joined in order) and its claims (§4b) */
    for (unsigned tb = 0; tb < L->ntables && st == EZ_OK; tb++) {
        const ez_lookup_table_desc *td = &L->tables[tb];
        if ((idx[tb] = ez_alloc_array(n, sizeof *idx[tb])) == NULL) {
            st = EZ_ERR_NOMEM;
            break;
        }
        if (td->kind == EZ_LOOKUP_RANGES) {
            for (size_t j = 0; j < L->ncols; j++)
                if (L->cols[j].table == tb) {
                    idx[tb][nc[tb]] = j;
                    tags[nc[tb]] = L->cols[j].bits;
                    lens[nc[tb]++] = L->cols[j].len;
                }
            st = ez_lookup_verify_begin(&lv[tb], c->t, td->rbits, td->nranges, td->pairs, lens, tags, nc[tb]);
        } else {
            for (size_t j = 0; j < L->ntuples; j++)
                if (L->tuples[j].table == tb) {
                    idx[tb][nc[tb]] = j;
                    lens[nc[tb]++] = L->tuples[j].len;
                }
            const ez_table *T;
            st = ez_pctx_table(c, td->fkind, td->func, td->in_scale, td->out_scale, &T);
            if (st == EZ_OK)
                st = ez_lookup_table_rows(T, &tin[tb], &tout[tb]);
            if (st == EZ_OK)
                st = ez_lookup_func_verify_begin(&lv[tb], c->t, tin[tb], tout[tb], lens, nc[tb]);
        }
    }
    for (unsigned tb = 0; tb < L->ntables && st == EZ_OK; tb++) {
        const ez_lookup_table_desc *td = &L->tables[tb];
        ez_lookup_claims lcl;
        st = ez_lookup_verify_end(&lv[tb], c->t, c->r, &lcl);
        if (st == EZ_ERR_REJECT && td->kind == EZ_LOOKUP_RANGES)
            ez_diag_set(c->d, "lookups: the range-check argument failed");
        else if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "lookups: the %s table lookup failed",
                        td->fkind == EZ_TABLE_SIGN ? "sign" : ez_func_name(td->func));
        else if (st == EZ_OK && td->kind == EZ_LOOKUP_RANGES)
            st = ez_rc_resolve(c, tb, idx[tb], nc[tb], &lcl);
        else if (st == EZ_OK)
            st = ez_rc_resolve_tuples(c, tb, idx[tb], nc[tb], &lcl);
        ez_lookup_claims_clear(&lcl);
    }
    for (unsigned tb = 0; tb < EZ_ADV_MAX_TABLES; tb++) {
        ez_lookup_verifier_clear(&lv[tb]);
        free(idx[tb]);
        free(tin[tb]);
        free(tout[tb]);
    }
    free(lens);
    free(tags);
    return st == EZ_ERR_INVALID ? EZ_ERR_REJECT : st;
}

/* Phase 6: public tensors, weights (one opening, section ww; their padding is zero by the
 * vk's range proof), advice (wa). */
ez_status ez_vsess_openings(ez_pctx *c, const ez_pcs_commitment *wcom, unsigned wflags,
                            const ez_pcs_commitment *acom, const uint8_t *ww, size_t wwlen, const uint8_t *wa,
                            size_t walen)
{
    const ez_plan *p = c->plan;
    ez_diag *d = c->d;
    ez_status st = EZ_OK;
    ez_reader r;
    size_t npc = 0;
    ez_fe2 *lifted = NULL;
    ez_pcs_claim *pclaims = claims_room(c);
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
            if ((st = ez_stmt_eval(&v, x, tt, c->tclaims[i].items[j].point)) != EZ_OK)
                goto out;
            if (!ez_fe2_eq(v, c->tclaims[i].items[j].value)) {
                ez_diag_set(d, "a claim on the public input '%s' is false", tt->source_name);
                st = EZ_ERR_REJECT;
                goto out;
            }
        }
    }
    ez_reader_init(&r, ww, wwlen);
    if ((st = weight_claims(c, pclaims, &npc, &lifted)) != EZ_OK)
        goto out;
    size_t nadv = 0;
    advice_claims(c, pclaims + npc, &nadv);
    size_t nwo = npc + (wcom ? wcom->nstanding : 0); /* as the prover: standing claims too */
    if (nwo > 0 && nadv > 0 && wcom->scheme == EZ_PCS_SCHEME_WHIR && acom->scheme == EZ_PCS_SCHEME_WHIR) {
        /* both WHIR: one batched opening in the weight section, the advice section empty */
        const ez_pcs_commitment *cc[2] = {wcom, acom};
        const ez_pcs_claim *cl[2] = {pclaims, pclaims + npc};
        size_t nn[2] = {npc, nadv};
        unsigned fl[2] = {wflags, 0};
        st = ez_pcs_verify_multi(cc, cl, nn, fl, 2, c->t, &r);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag_set(d, "weight and advice opening: the commitments do not open to the claimed values");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
        if (!ez_vsess_section_done(&r, "weight opening (batched with the advice opening)", d)) {
            st = EZ_ERR_REJECT;
            goto out;
        }
        if (walen != 0) {
            ez_diag_set(d, "advice opening: %zu unexpected trailing bytes (it is batched into the weight opening)",
                        walen);
            st = EZ_ERR_REJECT;
        }
        goto out;
    }
    if (nwo > 0) {
        st = ez_pcs_verify_ex(wcom, c->t, pclaims, npc, wflags, &r);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag_set(d, "weight opening: the commitment does not open to the claimed values");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
    }
    if (!ez_vsess_section_done(&r, "weight opening", d)) {
        st = EZ_ERR_REJECT;
        goto out;
    }
    ez_reader_init(&r, wa, walen);
    if (nadv > 0) {
        st = ez_pcs_verify(acom, c->t, pclaims + npc, nadv, &r);
        if (st == EZ_ERR_REJECT || st == EZ_ERR_INVALID) {
            ez_diag_set(d, "advice opening: the commitment does not open to the claimed values");
            st = EZ_ERR_REJECT;
        }
        if (st != EZ_OK)
            goto out;
    }
    if (!ez_vsess_section_done(&r, "advice opening", d))
        st = EZ_ERR_REJECT;
out:
    free(lifted);
    free(pclaims);
    return st;
}

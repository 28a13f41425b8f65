/* prove_fixture — see prove_fixture.h. */
#include "tests/prove_fixture.h"

#include <check.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/einc.h"
#include "runtime/ops/op.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/lookup.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/verify.h"
#include "runtime/prove/weights.h"
#include "tests/testutil.h"

void ez_pfx_compile(ez_pfx *f, const char *src)
{
    memset(f, 0, sizeof *f);
    ez_test_compile_plan(&f->plan, src);
}

size_t ez_pfx_last_op(const ez_plan *p, ez_op_kind kind)
{
    size_t op = SIZE_MAX;
    for (size_t i = 0; i < p->nops; i++)
        if (p->ops[i].kind == kind)
            op = i;
    ck_assert_msg(op != SIZE_MAX, "no %s op in the plan", ez_op_kind_name(kind));
    return op;
}

void ez_pfx_commit(ez_pfx *f)
{
    ez_diag d = {{0}};
    ez_pcs_prover_free(f->w);
    ez_pcs_commitment_clear(&f->wcom);
    ez_writer_clear(&f->wrange);
    f->w = NULL;
    ck_assert_msg(ez_weights_commit(&f->w, &f->wcom, &f->plan, &f->tr, &d) == EZ_OK, "%s", d.msg);
    ez_writer_init(&f->wrange);
    ck_assert_msg(ez_prove_weight_range(&f->plan, &f->tr, f->w, false, &f->wrange, &d) == EZ_OK, "%s", d.msg);
}

void ez_pfx_fill_run(const ez_plan *p, ez_trace *tr, const char *seed, ez_pfx_value_fn value, void *ctx)
{
    ez_rng rng = ez_rng_for(seed);
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_trace_init(tr, p, &d), EZ_OK);
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        uint64_t n = ez_plan_tensor_numel(t);
        int64_t *v = malloc((n ? n : 1) * sizeof *v);
        ck_assert_ptr_nonnull(v);
        for (uint64_t e = 0; e < n; e++)
            v[e] = value(ctx, t, e, ez_rng_next(&rng));
        ck_assert_msg(ez_trace_set(tr, i, v, n, &d) == EZ_OK, "%s", d.msg);
        free(v);
    }
    ck_assert_msg(ez_exec_run(p, tr, &d) == EZ_OK, "%s: %s", seed, d.msg);
}

void ez_pfx_run_values(ez_pfx *f, const char *seed, ez_pfx_value_fn value, void *ctx)
{
    ez_pfx_fill_run(&f->plan, &f->tr, seed, value, ctx);
    ez_pfx_commit(f);
}

/* Uniform in [-l, l], l = min(lim, bound - 1); tokens uniform below their limit. */
static int64_t uniform_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    (void)e;
    int64_t lim = *(const int64_t *)ctx;
    int64_t l = lim > (int64_t)t->bound - 1 ? (int64_t)t->bound - 1 : lim;
    return t->kind == EZ_TENSOR_TOKENS ? (int64_t)(r % (uint64_t)t->token_limit)
                                       : (int64_t)(r % (uint64_t)(2 * l + 1)) - l;
}

void ez_pfx_random_claim(ez_claim *out, const ez_plan_tensor *t, const int64_t *vals, ez_rng *rng)
{
    memset(out, 0, sizeof *out);
    ck_assert_int_eq(ez_claim_init(out, ez_claim_tensor_nvars(t->dims, t->rank)), EZ_OK);
    for (unsigned v = 0; v < out->nvars; v++)
        out->point[v] = ez_rng_fe2(rng);
    if (vals)
        ck_assert_int_eq(ez_advice_tensor_eval(&out->value, vals, t, out->point), EZ_OK);
}

ez_fe **ez_pfx_advice(ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op)
{
    ez_diag d = {{0}};
    ck_assert_msg(ez_advice_layout_build(L, p, &d) == EZ_OK, "%s", d.msg);
    ez_fe **polys = calloc(L->npolys ? L->npolys : 1, sizeof *polys);
    ck_assert_ptr_nonnull(polys);
    ck_assert_msg(ez_advice_fill(L, p, tr, true, polys, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_op_fill(L, p, tr, op, true, polys, &d) == EZ_OK, "%s", d.msg);
    return polys;
}

void ez_pfx_advice_free(ez_advice_layout *L, ez_fe **polys)
{
    for (size_t q = 0; q < L->npolys; q++)
        free(polys[q]);
    free(polys);
    ez_advice_layout_clear(L);
}

size_t ez_pfx_first_op_poly(const ez_advice_layout *L, size_t op)
{
    for (size_t q = 0; q < L->npolys; q++)
        if (L->polys[q].value == EZ_ADV_POLY_OP && L->polys[q].op == op)
            return q;
    ck_abort_msg("op %zu owns no polys", op);
    return 0;
}

bool ez_pfx_lookups_hold(const ez_advice_layout *L, ez_fe *const *polys, const ez_plan *p, const ez_trace *tr,
                         size_t op)
{
    bool ok = true;
    for (size_t j = 0; j < L->ncols; j++) {
        const ez_lookup_col *c = &L->cols[j];
        if (c->op != op)
            continue;
        /* a column on a piece of a support: the atoms' entries from the piece's offset */
        const ez_adv_support *su = c->sup ? &L->supports[c->sup - 1] : NULL;
        uint64_t off = su ? su->off[c->piece] : 0;
        ez_fe *v = malloc(c->len * sizeof *v);
        ck_assert_ptr_nonnull(v);
        if (c->atom.is_tensor && su)
            ez_advice_gather_piece(v, tr->t[c->atom.id], &p->tensors[c->atom.id], su, c->piece, 0);
        else if (c->atom.is_tensor)
            ez_advice_pad_i64(v, tr->t[c->atom.id], &p->tensors[c->atom.id], 0);
        else
            memcpy(v, polys[c->atom.id] + off, c->len * sizeof *v);
        for (uint64_t i = 0; i < c->len; i++) {
            ez_fe x = ez_fe_add(ez_fe_mul(v[i], c->coef), c->cst);
            for (unsigned e = 0; e < c->nx; e++)
                x = ez_fe_add(x, ez_fe_mul(polys[c->xatom[e].id][off + i], c->xcoef[e]));
            if (x >> c->bits)
                ok = false;
        }
        free(v);
    }
    for (size_t j = 0; j < L->ntuples; j++) {
        const ez_lookup_tuple *u = &L->tuples[j];
        if (u->op != op)
            continue;
        const ez_lookup_table_desc *td = &L->tables[u->table];
        ez_fe *tin, *tout;
        ez_diag d = {{0}};
        ck_assert_int_eq(ez_lookup_func_rows(td->fkind, td->func, td->in_scale, td->out_scale, &tin, &tout, &d), EZ_OK);
        const ez_adv_support *su = u->sup ? &L->supports[u->sup - 1] : NULL;
        uint64_t off = su ? su->off[u->piece] : 0;
        /* the input column: an advice poly, a tensor's entries, or a virtual column (its
         * main atom times coef plus the extra atoms) */
        ez_fe *a = malloc(u->len * sizeof *a);
        ck_assert_ptr_nonnull(a);
        if (u->atom[0].is_tensor && su)
            ez_advice_gather_piece(a, tr->t[u->atom[0].id], &p->tensors[u->atom[0].id], su, u->piece, 0);
        else if (u->atom[0].is_tensor)
            ez_advice_pad_i64(a, tr->t[u->atom[0].id], &p->tensors[u->atom[0].id], 0);
        else
            memcpy(a, polys[u->atom[0].id] + off, u->len * sizeof *a);
        const ez_fe *b = polys[u->atom[1].id] + off;
        for (uint64_t i = 0; i < u->len; i++) {
            ez_fe x = a[i];
            if (u->nx > 0)
                x = ez_fe_mul(x, u->coef);
            for (unsigned e = 0; e < u->nx; e++)
                x = ez_fe_add(x, ez_fe_mul(polys[u->xatom[e].id][off + i], u->xcoef[e]));
            /* the rows' inputs are consecutive: x is one iff tin[x - tin[0]] == x */
            uint64_t r = ez_fe_sub(x, tin[0]);
            if (r >> EZ_TABLE_BITS || tin[r] != x || tout[r] != b[i])
                ok = false;
        }
        free(a);
        free(tin);
        free(tout);
    }
    return ok;
}

void ez_pfx_run(ez_pfx *f, const char *seed, int64_t lim)
{
    ez_pfx_run_values(f, seed, uniform_value, &lim);
}

void ez_pfx_honest(const char *src, const char *seed, ez_pfx_value_fn value, void *ctx)
{
    ez_pfx f;
    ez_diag why = {{0}}, d = {{0}};
    ez_pfx_compile(&f, src);
    ck_assert_msg(ez_plan_soundness(&f.plan, NULL, &d) == EZ_OK, "%s: %s", seed, d.msg);
    ez_pfx_run_values(&f, seed, value ? value : uniform_value, ctx);
    ck_assert_msg(ez_pfx_prove_verify(&f, false, &why), "%s: rejected: %s", seed, why.msg);
    ez_pfx_free(&f);
}

ez_vk ez_pfx_vk(ez_pfx *f)
{
    ez_vk vk;
    ez_vk_init(&vk);
    vk.plan = f->plan;
    vk.has_weights = f->w != NULL;
    if (f->w)
        vk.wcom = *ez_pcs_prover_commitment(f->w);
    vk.wrange = f->wrange.data;
    vk.wrange_len = f->wrange.len;
    return vk;
}

void ez_pfx_pk(ez_pfx *f, ez_pk *pk)
{
    ez_writer w;
    ez_diag d = {{0}};
    ez_writer_init(&w);
    ck_assert_int_eq(ez_pk_encode(&w, &f->plan, f->tr.t, f->w, f->wrange.data, f->wrange.len), EZ_OK);
    ck_assert_msg(ez_pk_decode(pk, &f->plan, w.data, w.len, &d) == EZ_OK, "%s", d.msg);
    ez_writer_clear(&w);
}

void ez_pfx_free(ez_pfx *f)
{
    ez_trace_clear(&f->tr);
    ez_pcs_prover_free(f->w);
    ez_pcs_commitment_clear(&f->wcom);
    ez_writer_clear(&f->wrange);
    ez_plan_clear(&f->plan);
}

ez_status ez_pfx_prove_status(ez_pfx *f, bool unchecked, ez_proof *pf, ez_diag *d)
{
    ez_prove_opts o = {.unchecked = unchecked};
    ez_proof_init(pf);
    return ez_prove(&f->plan, &f->tr, f->w, &o, pf, NULL, d);
}

void ez_pfx_prove(ez_pfx *f, bool unchecked, ez_proof *pf)
{
    ez_diag d = {{0}};
    ck_assert_msg(ez_pfx_prove_status(f, unchecked, pf, &d) == EZ_OK, "prove: %s", d.msg);
}

bool ez_pfx_verify(ez_pfx *f, const ez_proof *pf, ez_diag *why)
{
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_proof_encode(&w, pf, NULL), EZ_OK);
    ez_vk vk = ez_pfx_vk(f); /* borrowed: not cleared below */
    bool ok = false;
    ck_assert_int_eq(ez_verify_bytes(&vk, w.data, w.len, &ok, NULL, why), EZ_OK);
    ez_writer_clear(&w);
    return ok;
}

size_t ez_pfx_flip_section(ez_pfx *f, ez_proof *pf, unsigned sec, size_t first, size_t stride)
{
    ez_diag why = {{0}};
    ez_writer *w = &pf->sec[sec];
    size_t n = 0;
    for (size_t off = first; off < w->len; off += stride, n++) {
        w->data[off] ^= 0x01;
        ck_assert_msg(!ez_pfx_verify(f, pf, &why), "section %u: flip at %zu of %zu accepted", sec, off, w->len);
        w->data[off] ^= 0x01;
    }
    ck_assert_msg(ez_pfx_verify(f, pf, &why), "restored: %s", why.msg);
    return n;
}

ez_stmt_tensor *ez_pfx_stmt_tensor(ez_proof *pf, unsigned t)
{
    for (size_t i = 0; i < pf->stmt.n; i++)
        if (pf->stmt.t[i].tensor == t)
            return &pf->stmt.t[i];
    return NULL;
}

void ez_pfx_changed_stmt(ez_pfx *f, ez_proof *pf, ez_stmt_tensor *st, uint64_t e)
{
    ez_diag why = {{0}};
    ck_assert_ptr_nonnull(st);
    ck_assert_uint_lt(e, st->n);
    st->v[e] += 1;
    ck_assert_msg(!ez_pfx_verify(f, pf, &why), "statement tensor %u: element %" PRIu64 " + 1 accepted", st->tensor, e);
    st->v[e] -= 1;
    ck_assert_msg(ez_pfx_verify(f, pf, &why), "restored: %s", why.msg);
}

void ez_pfx_copy_trace(ez_pfx *f, ez_trace *t)
{
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_trace_init(t, &f->plan, &d), EZ_OK);
    for (size_t i = 0; i < f->plan.ntensors; i++)
        if (f->plan.tensors[i].kind != EZ_TENSOR_ACT)
            ck_assert_int_eq(ez_trace_set(t, i, f->tr.t[i], ez_plan_tensor_numel(&f->plan.tensors[i]), &d), EZ_OK);
    ck_assert_msg(ez_exec_run(&f->plan, t, &d) == EZ_OK, "%s", d.msg);
}

bool ez_pfx_prove_split(ez_pfx *f, ez_trace *wit, ez_trace *walk, ez_diag *why)
{
    ez_prove_opts o = {.unchecked = true, .walk_tr = walk, .stmt_from = walk->t};
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_msg(ez_prove(&f->plan, wit, f->w, &o, &pf, NULL, why) == EZ_OK, "prove: %s", why->msg);
    bool ok = ez_pfx_verify(f, &pf, why);
    ez_proof_clear(&pf);
    return ok;
}

bool ez_pfx_prove_verify(ez_pfx *f, bool unchecked, ez_diag *why)
{
    ez_proof pf;
    ez_pfx_prove(f, unchecked, &pf);
    bool ok = ez_pfx_verify(f, &pf, why);
    ez_proof_clear(&pf);
    return ok;
}

void ez_pfx_expect_rejected(ez_pfx *f, const ez_proof *pf, const char *needle)
{
    ez_diag why = {{0}};
    ck_assert_msg(!ez_pfx_verify(f, pf, &why), "accepted; wanted a rejection naming \"%s\"", needle);
    ck_assert_msg(strstr(why.msg, needle) != NULL, "rejected, but not for \"%s\": %s", needle, why.msg);
}

void ez_pfx_expect_prove_rejected(ez_pfx *f, bool unchecked, const char *needle)
{
    ez_diag why = {{0}};
    ck_assert_msg(!ez_pfx_prove_verify(f, unchecked, &why), "accepted; wanted a rejection naming \"%s\"", needle);
    ck_assert_msg(strstr(why.msg, needle) != NULL, "rejected, but not for \"%s\": %s", needle, why.msg);
}

void ez_pfx_expect_refused(ez_pfx *f, const char *refusal, const char *reason)
{
    ez_proof pf;
    ez_diag d = {{0}};
    ez_status st = ez_pfx_prove_status(f, false, &pf, &d);
    if (refusal) {
        ck_assert_msg(st == EZ_ERR_NUMERIC, "the checked prover accepted the trace (%s)", ez_status_str(st));
        ck_assert_msg(strstr(d.msg, refusal) != NULL, "refused for another reason: %s", d.msg);
    } else {
        ck_assert_msg(st == EZ_OK, "prove: %s", d.msg);
    }
    ez_proof_clear(&pf);
    ez_pfx_expect_prove_rejected(f, true, reason);
}

static const ez_sumcheck_factor *forge_hook(void *ctx, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                            const ez_fe2 *eqp, const ez_sumcheck_factor *f)
{
    ez_pfx_forge *g = ctx;
    if (getenv("EZ_FORGE_TRACE"))
        fprintf(stderr, "forge: call %u: %u factors, %u terms, %u vars\n", g->seen, d->nfactors, d->nterms, d->nvars);
    if (g->seen++ != g->call)
        return NULL;
    ck_assert_uint_eq(d->nfactors, g->nfactors);
    ck_assert_uint_lt(g->factor, d->nfactors);
    ck_assert_ptr_null(g->table);
    ez_test_forge_factor(d, coeffs, eqp, f, g->factor, g->f, &g->table);
    g->forged = true;
    return g->f;
}

bool ez_pfx_prove_forged(ez_pfx *f, const ez_prove_opts *base, unsigned call, unsigned nfactors, unsigned factor,
                         ez_diag *why)
{
    ez_diag d = {{0}};
    ez_pfx_forge g = {.call = call, .nfactors = nfactors, .factor = factor};
    ez_prove_opts o = {0};
    if (base)
        o = *base;
    o.sumcheck_hook = forge_hook;
    o.sumcheck_hook_ctx = &g;
    ez_proof pf;
    ez_proof_init(&pf);
    ck_assert_msg(ez_prove(&f->plan, &f->tr, f->w, &o, &pf, NULL, &d) == EZ_OK, "prove: %s", d.msg);
    ck_assert_msg(g.forged, "op sumcheck %u not reached (%u seen)", call, g.seen);
    bool ok = ez_pfx_verify(f, &pf, why);
    ez_proof_clear(&pf);
    free(g.table);
    return ok;
}

bool ez_pfx_op_alone(const ez_plan *p, const ez_trace *tr, const ez_advice_layout *L, ez_fe **polys, size_t op,
                     const ez_claim *out, const ez_pfx_alone *a, bool *claims_ok, size_t *walk, ez_diag *why)
{
    const ez_plan_op *o = &p->ops[op];
    ez_diag d = {{0}};
    ez_transcript tp, tv;
    ez_transcript_init(&tp, a->label);
    ez_transcript_init(&tv, a->label);
    ez_writer w;
    ez_writer_init(&w);
    ez_pctx cp, cv;
    memset(&cp, 0, sizeof cp);
    memset(&cv, 0, sizeof cv);
    cp.prover = true, cp.plan = p, cp.adv = L, cp.t = &tp, cp.w = &w, cp.tr = tr, cp.stmt = a->stmt;
    cp.advice = polys, cp.d = &d;
    ck_assert_int_eq(ez_pctx_alloc(&cp, p, L), EZ_OK);
    ez_status st = a->prove ? a->prove(&cp, op, out, a->ctx) : ez_op_prove(&cp, op, out);
    ck_assert_msg(st == EZ_OK, "%s", d.msg);
    if (walk)
        *walk = w.len;
    ez_reader r;
    ez_reader_init(&r, w.data, w.len);
    cv.prover = false, cv.plan = p, cv.adv = L, cv.t = &tv, cv.r = &r, cv.d = why;
    cv.stmt = a->vstmt ? a->vstmt : a->stmt;
    ck_assert_int_eq(ez_pctx_alloc(&cv, p, L), EZ_OK);
    st = ez_op_verify(&cv, op, out);
    ck_assert(st == EZ_OK || st == EZ_ERR_REJECT);
    bool ok = st == EZ_OK && ez_reader_done(&r);
    if (claims_ok)
        *claims_ok = true;
    if (ok && claims_ok) {
        for (size_t q = 0; q < L->npolys; q++)
            for (size_t j = 0; j < cv.aclaims[q].n; j++) {
                const ez_claim *c = &cv.aclaims[q].items[j];
                ck_assert_ptr_nonnull(polys[q]);
                if (!ez_fe2_eq(ez_advice_poly_eval(L, q, polys[q], c->point), c->value))
                    *claims_ok = false;
            }
        for (size_t t = 0; t < p->ntensors; t++) {
            ck_assert(t == o->in[0] || cv.tclaims[t].n == 0);
            for (size_t j = 0; j < cv.tclaims[t].n; j++) {
                ez_fe2 v;
                ck_assert_int_eq(ez_advice_tensor_eval(&v, tr->t[t], &p->tensors[t], cv.tclaims[t].items[j].point),
                                 EZ_OK);
                if (!ez_fe2_eq(v, cv.tclaims[t].items[j].value))
                    *claims_ok = false;
            }
        }
    }
    ez_pctx_free(&cp);
    ez_pctx_free(&cv);
    ez_writer_clear(&w);
    return ok;
}

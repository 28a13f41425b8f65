/* lookup — see lookup.h. */
#include "config.h"

#include "runtime/prove/lookup.h"

#include <stdlib.h>
#include <string.h>

#include "lib/logup.h"

void ez_lookup_claims_clear(ez_lookup_claims *c)
{
    if (c == NULL)
        return;
    if (c->col && c->first)
        for (size_t j = 0; j < c->first[c->ncols]; j++)
            ez_claim_clear(&c->col[j]);
    free(c->col);
    free(c->first);
    if (c->mult)
        for (size_t j = 0; j < c->nmult; j++)
            ez_claim_clear(&c->mult[j]);
    free(c->mult);
    memset(c, 0, sizeof *c);
}

static ez_status columns(ez_logup_column **out, const ez_fe *const *cols, const uint64_t *lens,
                         const unsigned *tags, size_t nc)
{
    ez_logup_column *lc = ez_alloc_array(nc ? nc : 1, sizeof *lc);
    if (lc == NULL)
        return EZ_ERR_NOMEM;
    for (size_t j = 0; j < nc; j++) {
        lc[j].len = lens[j];
        lc[j].cols[0] = cols ? cols[j] : NULL;
        lc[j].tag = tags[j];
    }
    *out = lc;
    return EZ_OK;
}

/* The logup table of these regions (EZ_ERR_INVALID if there are too many). */
static ez_status table_of(ez_logup_table *tab, const unsigned *rbits, unsigned nranges, unsigned pairs)
{
    memset(tab, 0, sizeof *tab);
    if (nranges > EZ_LOGUP_MAX_RANGES)
        return EZ_ERR_INVALID;
    tab->kind = EZ_TABLE_RANGES;
    tab->nranges = nranges;
    for (unsigned k = 0; k < nranges; k++)
        tab->rbits[k] = rbits[k];
    tab->pairs = pairs;
    return EZ_OK;
}

/* logup's claims on the multiplicities into ours (one per tree of the table). */
static ez_status mult_claims(ez_lookup_claims *out, const ez_logup_claims *in)
{
    out->nmult = in->nmult;
    if ((out->mult = ez_alloc_array(in->nmult, sizeof *out->mult)) == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = EZ_OK;
    for (size_t j = 0; j < in->nmult && st == EZ_OK; j++)
        st = ez_claim_set(&out->mult[j], in->mult[j].point, in->mult[j].nvars, in->mult[j].value);
    return st;
}

/* Move logup's claims into ours. */
static ez_status convert(ez_lookup_claims *out, const ez_logup_claims *in)
{
    memset(out, 0, sizeof *out);
    out->col = ez_alloc_array(in->nclaims ? in->nclaims : 1, sizeof *out->col);
    out->first = ez_alloc_array(in->ncolumns + 1, sizeof *out->first);
    if (out->col == NULL || out->first == NULL) {
        free(out->col);
        free(out->first);
        out->col = NULL;
        out->first = NULL;
        return EZ_ERR_NOMEM;
    }
    out->ncols = in->ncolumns;
    memcpy(out->first, in->first, (in->ncolumns + 1) * sizeof *out->first);
    ez_status st = EZ_OK;
    for (size_t j = 0; j < in->nclaims && st == EZ_OK; j++)
        st = ez_claim_set(&out->col[j], in->col[j * in->width].point, in->col[j * in->width].nvars,
                          in->col[j * in->width].value);
    if (st == EZ_OK)
        st = mult_claims(out, in);
    if (st != EZ_OK)
        ez_lookup_claims_clear(out);
    return st;
}

ez_status ez_lookup_mult(ez_fe *m, const unsigned *rbits, unsigned nranges, unsigned pairs, const ez_fe *const *cols,
                         const uint64_t *lens, const unsigned *tags, size_t nc, ez_diag *d)
{
    ez_logup_column *lc = NULL;
    ez_logup_table tab;
    ez_status st = table_of(&tab, rbits, nranges, pairs);
    if (st != EZ_OK || (st = columns(&lc, cols, lens, tags, nc)) != EZ_OK)
        return st;
    st = ez_logup_multiplicities(m, &tab, lc, nc, d);
    free(lc);
    return st;
}

/* ---- function tables ------------------------------------------------------------------ */

ez_status ez_lookup_table_rows(const ez_table *tab, ez_fe **in, ez_fe **out)
{
    const uint64_t n = UINT64_C(1) << EZ_TABLE_BITS;
    *in = *out = NULL;
    if (tab->n != n)
        return EZ_ERR_INVALID;
    *in = ez_alloc_aligned(n, sizeof **in);
    *out = ez_alloc_aligned(n, sizeof **out);
    if (*in == NULL || *out == NULL) {
        free(*in);
        free(*out);
        *in = *out = NULL;
        return EZ_ERR_NOMEM;
    }
    ez_fe *ti = *in, *to = *out;
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++) {
        ti[i] = ez_fe_from_i64(tab->lo + (int64_t)i); /* lo = 0 for SOFTMAX_EXP and RSQRT */
        to[i] = ez_fe_from_i64(tab->out[i]);
    }
    return EZ_OK;
}

ez_status ez_lookup_func_rows(ez_fn_table_kind fkind, ez_func func, unsigned in_scale, unsigned out_scale, ez_fe **in,
                              ez_fe **out, ez_diag *d)
{
    ez_table tab;
    *in = *out = NULL;
    ez_status st = ez_table_build_kind(&tab, fkind, func, in_scale, out_scale, d);
    if (st == EZ_OK)
        st = ez_lookup_table_rows(&tab, in, out);
    ez_table_clear(&tab);
    return st;
}

static void func_table(ez_logup_table *lt, const ez_fe *tin, const ez_fe *tout)
{
    memset(lt, 0, sizeof *lt);
    lt->kind = EZ_TABLE_EXPLICIT;
    lt->ncols = EZ_LOOKUP_FUNC_WIDTH;
    lt->nrows = UINT64_C(1) << EZ_TABLE_BITS;
    lt->cols[0] = tin;
    lt->cols[1] = tout;
}

static ez_status func_columns(ez_logup_column **out, const ez_fe *const *cols, const uint64_t *lens, size_t nc)
{
    ez_logup_column *lc = ez_alloc_array(nc ? nc : 1, sizeof *lc);
    if (lc == NULL)
        return EZ_ERR_NOMEM;
    for (size_t j = 0; j < nc; j++) {
        lc[j].len = lens[j];
        lc[j].cols[0] = cols ? cols[2 * j] : NULL;
        lc[j].cols[1] = cols ? cols[2 * j + 1] : NULL;
    }
    *out = lc;
    return EZ_OK;
}

/* Move logup's claims on every column of a width-2 table into ours (2 per tuple). */
static ez_status convert_func(ez_lookup_claims *out, const ez_logup_claims *in)
{
    memset(out, 0, sizeof *out);
    size_t nc = in->ncolumns, n = nc * EZ_LOOKUP_FUNC_WIDTH;
    if (in->width != EZ_LOOKUP_FUNC_WIDTH || in->nclaims != nc)
        return EZ_ERR_INTERNAL;
    out->col = ez_alloc_array(n ? n : 1, sizeof *out->col);
    out->first = ez_alloc_array(nc + 1, sizeof *out->first);
    if (out->col == NULL || out->first == NULL) {
        ez_lookup_claims_clear(out);
        return EZ_ERR_NOMEM;
    }
    out->ncols = nc;
    for (size_t j = 0; j <= nc; j++)
        out->first[j] = EZ_LOOKUP_FUNC_WIDTH * j;
    ez_status st = EZ_OK;
    for (size_t j = 0; j < n && st == EZ_OK; j++)
        st = ez_claim_set(&out->col[j], in->col[j].point, in->col[j].nvars, in->col[j].value);
    if (st == EZ_OK)
        st = mult_claims(out, in);
    if (st != EZ_OK)
        ez_lookup_claims_clear(out);
    return st;
}

ez_status ez_lookup_func_mult(ez_fe *m, const ez_fe *tin, const ez_fe *tout, const ez_fe *const *cols,
                              const uint64_t *lens, size_t nc, ez_diag *d)
{
    ez_logup_column *lc = NULL;
    ez_logup_table lt;
    func_table(&lt, tin, tout);
    ez_status st = func_columns(&lc, cols, lens, nc);
    if (st == EZ_OK)
        st = ez_logup_multiplicities(m, &lt, lc, nc, d);
    free(lc);
    return st;
}

/* ---- a table's proof in steps (lib/logup.h, docs/protocol-kernel-logup.md §4b) ------ */

static ez_status convert_any(ez_lookup_claims *out, const ez_logup_table *t, const ez_logup_claims *in)
{
    return t->kind == EZ_TABLE_EXPLICIT ? convert_func(out, in) : convert(out, in);
}

ez_status ez_lookup_prove_begin(ez_lookup_prover *p, ez_transcript *t, const unsigned *rbits, unsigned nranges,
                                unsigned pairs, const uint64_t *lens, const unsigned *tags, size_t nc)
{
    ez_logup_table tab;
    memset(p, 0, sizeof *p);
    ez_status st = table_of(&tab, rbits, nranges, pairs);
    if (st == EZ_OK)
        st = ez_logup_prove_begin(&p->lp, t, &tab, lens, tags, nc);
    return st;
}

ez_status ez_lookup_func_prove_begin(ez_lookup_prover *p, ez_transcript *t, const ez_fe *tin, const ez_fe *tout,
                                     const uint64_t *lens, size_t nc)
{
    ez_logup_table lt;
    memset(p, 0, sizeof *p);
    func_table(&lt, tin, tout);
    return ez_logup_prove_begin(&p->lp, t, &lt, lens, NULL, nc);
}

ez_status ez_lookup_prover_columns(ez_lookup_prover *p, const ez_fe *const *cols, const uint64_t *lens,
                                   const unsigned *tags, size_t nc, const ez_fe *m)
{
    free(p->lc);
    p->lc = NULL;
    p->m = m;
    p->nc = nc;
    if (ez_logup_prover_table(p->lp)->kind == EZ_TABLE_EXPLICIT)
        return func_columns(&p->lc, cols, lens, nc);
    return columns(&p->lc, cols, lens, tags, nc);
}

ez_status ez_lookup_prove_tree(ez_lookup_prover *p, size_t k)
{
    if (p->lc == NULL)
        return EZ_ERR_INVALID;
    return ez_logup_prove_instance(p->lp, k, p->lc, p->m);
}

ez_status ez_lookup_prove_end(ez_lookup_prover *p, ez_transcript *t, ez_writer *w, ez_lookup_claims *out)
{
    ez_logup_claims cl;
    memset(out, 0, sizeof *out);
    ez_status st = ez_logup_prove_end(p->lp, t, w, &cl);
    if (st == EZ_OK)
        st = convert_any(out, ez_logup_prover_table(p->lp), &cl);
    ez_logup_claims_clear(&cl);
    return st;
}

void ez_lookup_prover_clear(ez_lookup_prover *p)
{
    ez_logup_prover_free(p->lp);
    free(p->lc);
    memset(p, 0, sizeof *p);
}

ez_status ez_lookup_verify_begin(ez_lookup_verifier *v, ez_transcript *t, const unsigned *rbits, unsigned nranges,
                                 unsigned pairs, const uint64_t *lens, const unsigned *tags, size_t nc)
{
    ez_logup_table tab;
    memset(v, 0, sizeof *v);
    ez_status st = table_of(&tab, rbits, nranges, pairs);
    if (st == EZ_OK)
        st = ez_logup_verify_begin(&v->lv, t, &tab, lens, tags, nc);
    return st;
}

ez_status ez_lookup_func_verify_begin(ez_lookup_verifier *v, ez_transcript *t, const ez_fe *tin, const ez_fe *tout,
                                      const uint64_t *lens, size_t nc)
{
    ez_logup_table lt;
    memset(v, 0, sizeof *v);
    func_table(&lt, tin, tout);
    v->func = true;
    return ez_logup_verify_begin(&v->lv, t, &lt, lens, NULL, nc);
}

ez_status ez_lookup_verify_end(ez_lookup_verifier *v, ez_transcript *t, ez_reader *r, ez_lookup_claims *out)
{
    ez_logup_claims cl;
    ez_logup_table kind = {.kind = v->func ? EZ_TABLE_EXPLICIT : EZ_TABLE_RANGES};
    memset(out, 0, sizeof *out);
    ez_status st = ez_logup_verify_end(v->lv, t, r, &cl);
    if (st == EZ_OK)
        st = convert_any(out, &kind, &cl);
    else if (st == EZ_ERR_INVALID)
        st = EZ_ERR_REJECT;
    ez_logup_claims_clear(&cl);
    return st;
}

void ez_lookup_verifier_clear(ez_lookup_verifier *v)
{
    ez_logup_verifier_free(v->lv);
    memset(v, 0, sizeof *v);
}

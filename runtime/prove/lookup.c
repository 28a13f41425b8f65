/* lookup — see lookup.h. Must not include runtime/exec.h or runtime/tables.h. */
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
    ez_claim_clear(&c->mult);
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
static ez_status table_of(ez_logup_table *tab, const unsigned *rbits, unsigned nranges)
{
    memset(tab, 0, sizeof *tab);
    if (nranges > EZ_LOGUP_MAX_RANGES)
        return EZ_ERR_INVALID;
    tab->kind = EZ_TABLE_RANGES;
    tab->nranges = nranges;
    for (unsigned k = 0; k < nranges; k++)
        tab->rbits[k] = rbits[k];
    return EZ_OK;
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
        st = ez_claim_set(&out->mult, in->mult.point, in->mult.nvars, in->mult.value);
    if (st != EZ_OK)
        ez_lookup_claims_clear(out);
    return st;
}

ez_status ez_lookup_mult(ez_fe *m, const unsigned *rbits, unsigned nranges, const ez_fe *const *cols,
                         const uint64_t *lens, const unsigned *tags, size_t nc, ez_diag *d)
{
    ez_logup_column *lc = NULL;
    ez_logup_table tab;
    ez_status st = table_of(&tab, rbits, nranges);
    if (st != EZ_OK || (st = columns(&lc, cols, lens, tags, nc)) != EZ_OK)
        return st;
    st = ez_logup_multiplicities(m, &tab, lc, nc, d);
    free(lc);
    return st;
}

ez_status ez_lookup_prove(ez_transcript *t, const unsigned *rbits, unsigned nranges, const ez_fe *const *cols,
                          const uint64_t *lens, const unsigned *tags, size_t nc, const ez_fe *m, ez_writer *w,
                          ez_lookup_claims *out)
{
    ez_logup_column *lc = NULL;
    ez_logup_claims cl;
    ez_logup_table tab;
    memset(&cl, 0, sizeof cl);
    memset(out, 0, sizeof *out);
    ez_status st = table_of(&tab, rbits, nranges);
    if (st != EZ_OK || (st = columns(&lc, cols, lens, tags, nc)) != EZ_OK)
        return st;
    st = ez_logup_prove(t, &tab, lc, nc, m, w, &cl);
    if (st == EZ_OK)
        st = convert(out, &cl);
    ez_logup_claims_clear(&cl);
    free(lc);
    return st;
}

ez_status ez_lookup_verify(ez_transcript *t, const unsigned *rbits, unsigned nranges, const uint64_t *lens,
                           const unsigned *tags, size_t nc, ez_reader *r, ez_lookup_claims *out)
{
    ez_logup_claims cl;
    ez_logup_table tab;
    memset(&cl, 0, sizeof cl);
    memset(out, 0, sizeof *out);
    ez_status st = table_of(&tab, rbits, nranges);
    if (st != EZ_OK)
        return st;
    st = ez_logup_verify_tagged(t, &tab, lens, tags, nc, r, &cl);
    if (st == EZ_OK)
        st = convert(out, &cl);
    else if (st == EZ_ERR_INVALID)
        st = EZ_ERR_REJECT;
    ez_logup_claims_clear(&cl);
    return st;
}

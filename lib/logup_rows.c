/* logup_rows — a LogUp table's rows and columns: which tables and columns the kernel
 * accepts, a RANGES table's regions and their offsets (logup_rows.h; the layout is
 * docs/protocol-kernel-logup.md §2, §2a). */
#include "lib/logup_rows.h"

#include <stdlib.h>
#include <string.h>

bool lu_table_ok(const ez_logup_table *t)
{
    if (!t || (t->max_tree_log != 0 && (t->max_tree_log < 4 || t->max_tree_log > 40)))
        return false;
    if (t->kind != EZ_TABLE_RANGES && t->pairs != 0)
        return false;
    if (t->kind == EZ_TABLE_RANGE)
        return t->bits <= EZ_LOGUP_MAX_TABLE_BITS;
    if (t->kind == EZ_TABLE_RANGES) {
        if (t->nranges < 1 || t->nranges > EZ_LOGUP_MAX_RANGES)
            return false;
        unsigned widths = 0;
        for (unsigned k = 0; k < t->nranges; k++) {
            if (t->rbits[k] < 1 || t->rbits[k] > EZ_LOGUP_MAX_TABLE_BITS ||
                (k > 0 && t->rbits[k] >= t->rbits[k - 1]))
                return false;
            widths |= 1u << t->rbits[k];
        }
        /* a pair region only for a width of a single region, at most 8 bits */
        return (t->pairs & ~widths) == 0 && (t->pairs >> (EZ_LOGUP_PAIR_MAX_BITS + 1)) == 0;
    }
    if (t->kind != EZ_TABLE_EXPLICIT || t->ncols < 1 || t->ncols > EZ_LOGUP_MAX_WIDTH || t->nrows < 1 ||
        t->nrows > (UINT64_C(1) << EZ_LOGUP_MAX_TABLE_BITS))
        return false;
    for (unsigned w = 0; w < t->ncols; w++)
        if (!t->cols[w])
            return false;
    return true;
}


/* RANGES: the regions in table order, widest first (a single region before a pair
 * region of the same size), so each starts at a multiple of its size. Returns their
 * number. */
unsigned lu_ranges_regions(const ez_logup_table *t, lu_region *R)
{
    unsigned n = 0;
    for (unsigned k = 0; k < t->nranges; k++)
        R[n++] = (lu_region){.b = t->rbits[k], .tag = t->rbits[k], .pw = 0};
    for (unsigned w = 1; w <= EZ_LOGUP_PAIR_MAX_BITS; w++)
        if ((t->pairs >> w) & 1)
            R[n++] = (lu_region){.b = 2 * w, .tag = LU_PAIR_TAG0 + w, .pw = w};
    for (unsigned i = 1; i < n; i++) /* stable: singles (listed first) win ties */
        for (unsigned j = i; j > 0 && R[j].b > R[j - 1].b; j--) {
            lu_region x = R[j];
            R[j] = R[j - 1];
            R[j - 1] = x;
        }
    return n;
}

uint64_t ez_logup_table_size(const ez_logup_table *t)
{
    if (!lu_table_ok(t))
        return 0;
    if (t->kind == EZ_TABLE_RANGES) {
        lu_region R[LU_MAX_REGIONS];
        unsigned nr = lu_ranges_regions(t, R);
        uint64_t n = 0;
        for (unsigned k = 0; k < nr; k++)
            n += UINT64_C(1) << R[k].b;
        return n;
    }
    return t->kind == EZ_TABLE_RANGE ? UINT64_C(1) << t->bits : t->nrows;
}

/* RANGES: the single region of width `tag` (its index in rbits), or -1. */
int lu_ranges_region(const ez_logup_table *t, unsigned tag)
{
    for (unsigned k = 0; k < t->nranges; k++)
        if (t->rbits[k] == tag)
            return (int)k;
    return -1;
}

/* RANGES: the first row of the region with this tag (16 + w: the pair region of w). */
uint64_t lu_ranges_offset(const ez_logup_table *t, unsigned tag)
{
    lu_region R[LU_MAX_REGIONS];
    unsigned nr = lu_ranges_regions(t, R);
    uint64_t o = 0;
    for (unsigned k = 0; k < nr && R[k].tag != tag; k++)
        o += UINT64_C(1) << R[k].b;
    return o;
}

/* RANGES: whether the columns of this tag are looked up in pairs. */
bool lu_tag_paired(const ez_logup_table *t, unsigned tag)
{
    return t->kind == EZ_TABLE_RANGES && tag <= EZ_LOGUP_PAIR_MAX_BITS && ((t->pairs >> tag) & 1);
}

unsigned ez_logup_table_width(const ez_logup_table *t)
{
    if (!lu_table_ok(t))
        return 0;
    return t->kind == EZ_TABLE_EXPLICIT ? t->ncols : 1;
}

bool lu_columns_ok(const ez_logup_table *t, const ez_logup_column *c, size_t nc, unsigned width)
{
    if (!c || nc == 0)
        return false;
    for (size_t i = 0; i < nc; i++) {
        if (c[i].len < 1 || c[i].len > EZ_LOGUP_MAX_LEN)
            return false;
        if (t->kind == EZ_TABLE_RANGES && lu_ranges_region(t, c[i].tag) < 0)
            return false;
        for (unsigned w = 0; w < width; w++)
            if (!c[i].cols[w])
                return false;
    }
    return true;
}

void ez_logup_claims_clear(ez_logup_claims *c)
{
    if (!c)
        return;
    if (c->col)
        for (size_t i = 0; i < c->nclaims * c->width; i++)
            free(c->col[i].point);
    free(c->col);
    free(c->first);
    if (c->mult)
        for (size_t i = 0; i < c->nmult; i++)
            free(c->mult[i].point);
    free(c->mult);
    memset(c, 0, sizeof *c);
}


/* logup_mult — the table multiplicities m (how often each table row is looked up; §2 and §2a
 * of docs/protocol-kernel-logup.md): the prover's count, with a diagnostic naming a looked-up
 * row that is not in the table. */
#include "lib/logup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lib/logup_rows.h"

/* ---- multiplicities ------------------------------------------------------------------ */

/* An open-addressing index from a table row to its first position; or none when the
 * first column is c0, c0 + 1, ..., c0 + nrows - 1 (a function table's inputs): then a
 * row's position is its first entry minus c0, checked against the table's row there. */
typedef struct {
    uint32_t *slot; /* row index or UINT32_MAX (empty); NULL: consecutive */
    uint64_t mask;
    ez_fe c0;
} lu_index;

static uint64_t row_hash(const ez_fe *v, unsigned width)
{
    uint64_t h = UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned w = 0; w < width; w++) {
        h ^= v[w];
        h *= UINT64_C(0xBF58476D1CE4E5B9);
        h ^= h >> 31;
    }
    return h;
}

static void table_row(ez_fe *v, const ez_logup_table *t, uint64_t j)
{
    for (unsigned w = 0; w < t->ncols; w++)
        v[w] = t->cols[w][j];
}

static bool row_eq(const ez_logup_table *t, uint64_t j, const ez_fe *v)
{
    for (unsigned w = 0; w < t->ncols; w++)
        if (t->cols[w][j] != v[w])
            return false;
    return true;
}

/* Whether t's first column counts up by one from its first entry. */
static bool first_col_consecutive(const ez_logup_table *t)
{
    const ez_fe *c = t->cols[0];
    for (uint64_t j = 1; j < t->nrows; j++)
        if (c[j] != ez_fe_add(c[j - 1], 1))
            return false;
    return true;
}

static ez_status index_build(lu_index *ix, const ez_logup_table *t)
{
    if (t->nrows > 0 && first_col_consecutive(t)) {
        /* rows are distinct (so every first position is the only one): no hash needed */
        ix->slot = NULL;
        ix->c0 = t->cols[0][0];
        return EZ_OK;
    }
    uint64_t cap = UINT64_C(1) << (ez_log2_ceil(t->nrows) + 1);
    ix->slot = ez_alloc_array((size_t)cap, sizeof *ix->slot);
    if (!ix->slot)
        return EZ_ERR_NOMEM;
    memset(ix->slot, 0xFF, (size_t)cap * sizeof *ix->slot);
    ix->mask = cap - 1;
    ez_fe v[EZ_LOGUP_MAX_WIDTH];
    for (uint64_t j = 0; j < t->nrows; j++) {
        table_row(v, t, j);
        uint64_t s = row_hash(v, t->ncols) & ix->mask;
        for (;; s = (s + 1) & ix->mask) {
            if (ix->slot[s] == UINT32_MAX) {
                ix->slot[s] = (uint32_t)j;
                break;
            }
            if (row_eq(t, ix->slot[s], v))
                break; /* a repeated row: keep the first occurrence */
        }
    }
    return EZ_OK;
}

/* Position of row v in the table, or UINT64_MAX. */
static uint64_t index_find(const lu_index *ix, const ez_logup_table *t, const ez_fe *v)
{
    if (ix->slot == NULL) {
        uint64_t j = ez_fe_sub(v[0], ix->c0);
        return j < t->nrows && row_eq(t, j, v) ? j : UINT64_MAX;
    }
    for (uint64_t s = row_hash(v, t->ncols) & ix->mask;; s = (s + 1) & ix->mask) {
        uint32_t j = ix->slot[s];
        if (j == UINT32_MAX)
            return UINT64_MAX;
        if (row_eq(t, j, v))
            return j;
    }
}

/* Table position of row i of column c, or UINT64_MAX if it is not in the table. */
static inline uint64_t lookup_pos(const ez_logup_table *t, const lu_index *ix, const ez_logup_column *c,
                                  uint64_t i, uint64_t region_off)
{
    if (t->kind == EZ_TABLE_RANGE) {
        ez_fe v = c->cols[0][i];
        return v < (UINT64_C(1) << t->bits) ? v : UINT64_MAX;
    }
    if (t->kind == EZ_TABLE_RANGES) {
        ez_fe v = c->cols[0][i];
        return v < (UINT64_C(1) << c->tag) ? region_off + v : UINT64_MAX;
    }
    ez_fe v[EZ_LOGUP_MAX_WIDTH];
    for (unsigned w = 0; w < t->ncols; w++)
        v[w] = c->cols[w][i];
    return index_find(ix, t, v);
}

static void diag_bad_row(ez_diag *d, const ez_logup_table *t, const ez_logup_column *cols, size_t ci, uint64_t i)
{
    const ez_logup_column *c = &cols[ci];
    if (t->kind == EZ_TABLE_RANGE || t->kind == EZ_TABLE_RANGES) {
        ez_diag_set(d, "lookup column %zu, row %" PRIu64 ": value %" PRId64 " is outside the range [0, 2^%u)", ci,
                    i, ez_fe_to_i64(c->cols[0][i]), t->kind == EZ_TABLE_RANGE ? t->bits : c->tag);
        return;
    }
    char buf[160];
    size_t n = 0;
    for (unsigned w = 0; w < t->ncols && n < sizeof buf; w++) {
        int k = snprintf(buf + n, sizeof buf - n, "%s%" PRId64, w ? ", " : "", ez_fe_to_i64(c->cols[w][i]));
        if (k < 0)
            break;
        n += (size_t)k;
    }
    ez_diag_set(d, "lookup column %zu, row %" PRIu64 ": (%s) is not a row of the table", ci, i, buf);
}

/* A paired column's counts (tag w, §2a), inside the caller's parallel region and with no
 * barrier (my: this thread's counts): the rows of a binary piece of 2^k >= 2 rows (cut at the tree cap as
 * layout_build cuts them) are counted two at a time, (v[i], v[i + 2^(k-1)]) at row
 * poff + v[i] + 2^w v[i + 2^(k-1)] of the pair region; a one-row piece in the single
 * region (roff). Returns nonzero if some value is outside [0, 2^w). */
static int pair_counts(uint64_t *my, const ez_logup_column *c, unsigned capl, uint64_t roff, uint64_t poff)
{
    const ez_fe *v = c->cols[0];
    const unsigned w = c->tag;
    const uint64_t lim = UINT64_C(1) << w;
    int bad = 0;
    uint64_t boff = 0;
    for (unsigned b = 64; b-- > 0;) {
        if (!((c->len >> b) & 1))
            continue;
        if (b == 0) {
#pragma omp single nowait
            {
                if (v[boff] < lim)
                    my[roff + v[boff]]++;
                else
                    bad = 1;
            }
            break;
        }
        const unsigned k = b > capl ? capl : b;
        const uint64_t half = UINT64_C(1) << (k - 1);
        const int64_t npairs = (int64_t)(UINT64_C(1) << (b - 1));
#pragma omp for schedule(static) nowait
        for (int64_t u = 0; u < npairs; u++) {
            uint64_t i0 = boff + (((uint64_t)u >> (k - 1)) << k) + ((uint64_t)u & (half - 1));
            ez_fe x = v[i0], y = v[i0 + half];
            if (x < lim && y < lim)
                my[poff + x + (y << w)]++;
            else
                bad = 1;
        }
        boff += UINT64_C(1) << b;
    }
    return bad;
}

ez_status ez_logup_multiplicities(ez_fe *m, const ez_logup_table *t, const ez_logup_column *c, size_t nc,
                                  ez_diag *d)
{
    ez_status st = EZ_OK;
    lu_index ix = {0};
    uint64_t *counts = NULL;
    if (!lu_table_ok(t) || !m || !lu_columns_ok(t, c, nc, ez_logup_table_width(t)))
        return EZ_ERR_INVALID;
    uint64_t tsize = ez_logup_table_size(t);
    if (t->kind == EZ_TABLE_EXPLICIT && (st = index_build(&ix, t)) != EZ_OK)
        goto out;
    int nthr = 1;
#ifdef _OPENMP
    nthr = omp_get_max_threads();
#endif
    /* One private count array per thread (no atomics in the hot loop), merged below. */
    counts = ez_alloc_array((size_t)nthr * (size_t)tsize, sizeof *counts);
    if (!counts) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    int bad = 0;
    uint64_t rows = 0;
    for (size_t ci = 0; ci < nc; ci++)
        rows += c[ci].len;
    /* One parallel region for all columns (a range table has hundreds, most below
     * LU_PAR_MIN rows: one region per column ran nearly all of them on one thread); each
     * column's rows are shared out without a barrier, the counts being per thread. */
#pragma omp parallel num_threads(nthr) if (rows >= LU_PAR_MIN) reduction(| : bad)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        uint64_t *my = counts + (size_t)tid * (size_t)tsize;
        for (size_t ci = 0; ci < nc; ci++) {
            int64_t len = (int64_t)c[ci].len;
            uint64_t roff = t->kind == EZ_TABLE_RANGES ? lu_ranges_offset(t, c[ci].tag) : 0;
            const bool paired = lu_tag_paired(t, c[ci].tag);
            const uint64_t poff = paired ? lu_ranges_offset(t, LU_PAIR_TAG0 + c[ci].tag) : 0;
            if (paired) {
                bad |= pair_counts(my, &c[ci], lu_tree_log(t), roff, poff);
            } else {
#pragma omp for schedule(static) nowait
                for (int64_t i = 0; i < len; i++) {
                    uint64_t j = lookup_pos(t, &ix, &c[ci], (uint64_t)i, roff);
                    if (j == UINT64_MAX)
                        bad = 1;
                    else
                        my[j]++;
                }
            }
        }
    }
#pragma omp parallel for schedule(static) if (tsize >= LU_PAR_MIN)
    for (int64_t j = 0; j < (int64_t)tsize; j++) {
        uint64_t s = 0;
        for (int k = 0; k < nthr; k++)
            s += counts[(size_t)k * (size_t)tsize + (size_t)j];
        m[j] = ez_fe_from_u64(s);
    }
    if (bad) {
        /* Rare path: find the first offending row for the message. */
        st = EZ_ERR_NUMERIC;
        for (size_t ci = 0; ci < nc; ci++)
            for (uint64_t i = 0; i < c[ci].len; i++)
                if (lookup_pos(t, &ix, &c[ci], i, t->kind == EZ_TABLE_RANGES ? lu_ranges_offset(t, c[ci].tag) : 0) ==
                    UINT64_MAX) {
                    diag_bad_row(d, t, c, ci, i);
                    goto out;
                }
    }
out:
    free(ix.slot);
    free(counts);
    return st;
}


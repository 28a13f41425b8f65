/* logup_rows — what lib/logup.c (the protocol) and lib/logup_mult.c (the multiplicities)
 * share about a table's rows and columns: checks, the RANGES regions' offsets, the tree cap.
 * Private to the LogUp kernel. */
#ifndef EZ_LOGUP_ROWS_H
#define EZ_LOGUP_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/logup.h"

/* Loops shorter than this run serially. */
#define LU_PAR_MIN 8192
/* A pair region's tag is LU_PAIR_TAG0 + w (the single regions' tags are 1..16; §2a). */
#define LU_PAIR_TAG0 16u

/* RANGES: one region of the table. A single region of width w holds (v, w), combined as
 * v + gamma w (tag = w, pw = 0); the pair region of width w holds (a, b) at row
 * a + 2^w b, combined as a + gamma (16 + w) + gamma^2 b (tag = 16 + w, pw = w), b = 2w
 * bits. */
typedef struct {
    unsigned b, tag, pw;
} lu_region;
#define LU_MAX_REGIONS (EZ_LOGUP_MAX_RANGES + EZ_LOGUP_PAIR_MAX_BITS)
/* RANGES: the regions in table order, widest first (a single region before a pair region
 * of the same size), so each starts at a multiple of its size; returns their number. */
unsigned lu_ranges_regions(const ez_logup_table *t, lu_region *R);
/* RANGES: the single region of width `tag` (its index in rbits), or -1. */
int lu_ranges_region(const ez_logup_table *t, unsigned tag);
/* A table the kernel accepts (kind, widths, pairs). */
bool lu_table_ok(const ez_logup_table *t);
/* The first row of a RANGES table's region of tag `tag` (1..16 single, 16 + w paired). */
uint64_t lu_ranges_offset(const ez_logup_table *t, unsigned tag);
/* Whether a column of tag `tag` is looked up two rows per leaf (§2a). */
bool lu_tag_paired(const ez_logup_table *t, unsigned tag);
/* Columns of `width` values each that the table can look up (tags, lengths). */
bool lu_columns_ok(const ez_logup_table *t, const ez_logup_column *c, size_t nc, unsigned width);
/* The table's tree cap (lib/logup.h max_tree_log; 0: EZ_LOGUP_MAX_TREE_LOG). */
unsigned lu_tree_log(const ez_logup_table *t);

#endif

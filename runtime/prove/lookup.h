/* lookup — the runtime's door to lib/logup.h (LogUp-GKR, docs/protocol.md §4 "Lookups").
 *
 * Why a separate module: it turns lib/logup.h's claims into the runtime's ez_claim and
 * keeps the range-table layout (one region per width) in one place; everything that
 * touches the trace talks to the lookup argument through these functions.
 *
 * Two kinds of table: the range table with one region [0, 2^w) per width w in rbits[]
 * (strictly decreasing, each 1..16; lib/logup.h EZ_TABLE_RANGES), each looked-up column
 * checked in the region of its width tags[j]; and FUNCTION tables (softmax's exp,
 * gelu, rsqrt, ...): the explicit rows (input, output) of one table of
 * runtime/exec/tables.h, the same rows the executor evaluates through, looked up by
 * (input, output) tuples of atoms. */
#ifndef EZ_RUNTIME_LOOKUP_H
#define EZ_RUNTIME_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"
#include "runtime/exec/tables.h"
#include "runtime/prove/claim.h"

/* The claims a lookup leaves: on each looked-up column's zero-padded MLE (over
 * ceil(log2 len) variables), one per binary piece of its length (lib/logup.h: a column
 * of 2^k rows has one claim, at a random point; a piece's point starts with fixed 0/1
 * coordinates), and one on the multiplicities. */
typedef struct {
    size_t ncols;
    size_t *first;   /* ncols + 1: column j's claims are col[first[j] .. first[j+1]) */
    ez_claim *col;
    size_t nmult;    /* claims on the multiplicities: one per tree of the table */
    ez_claim *mult;
} ez_lookup_claims;

void ez_lookup_claims_clear(ez_lookup_claims *c);

/* Multiplicities m[0..table size) of the rows of cols[j] (lens[j] entries each, checked
 * in [0, 2^tags[j])) in the range table of regions rbits[0..nranges) and pair regions
 * `pairs` (lib/logup.h: the columns of a width in pairs, two rows per leaf). EZ_ERR_NUMERIC (d
 * names the first value outside) — m then counts the others — EZ_ERR_INVALID,
 * EZ_ERR_NOMEM. */
ez_status ez_lookup_mult(ez_fe *m, const unsigned *rbits, unsigned nranges, unsigned pairs, const ez_fe *const *cols,
                         const uint64_t *lens, const unsigned *tags, size_t nc, ez_diag *d);

/* ez_logup_prove / ez_logup_verify_tagged for that range table: the caller has absorbed
 * the commitment to m. Out: *out (clear with ez_lookup_claims_clear; zeroed on
 * failure). Verify returns EZ_ERR_REJECT for any failed check or malformed bytes. */
ez_status ez_lookup_prove(ez_transcript *t, const unsigned *rbits, unsigned nranges, unsigned pairs, const ez_fe *const *cols,
                          const uint64_t *lens, const unsigned *tags, size_t nc, const ez_fe *m, ez_writer *w,
                          ez_lookup_claims *out);
ez_status ez_lookup_verify(ez_transcript *t, const unsigned *rbits, unsigned nranges, unsigned pairs, const uint64_t *lens,
                           const unsigned *tags, size_t nc, ez_reader *r, ez_lookup_claims *out);

/* ---- function tables ------------------------------------------------------------------ */

#define EZ_LOOKUP_FUNC_WIDTH 2u /* a function table's row: (input, output) */

/* The rows of a function table (fkind, func, in_scale, out_scale): in[i] the table's input
 * (FUNC and SIGN: x' = lo + i, signed; SOFTMAX_EXP and RSQRT: i) and out[i] its output, 2^16 each
 * (new arrays, caller frees). Built by runtime/exec/tables.c, so they are the executor's
 * rows. EZ_ERR_INVALID (no such table), EZ_ERR_NOMEM. O(2^16). */
ez_status ez_lookup_func_rows(ez_fn_table_kind fkind, ez_func func, unsigned in_scale, unsigned out_scale, ez_fe **in,
                              ez_fe **out, ez_diag *d);
/* The same rows of a table already built (tab->n must be 2^16, else EZ_ERR_INVALID). */
ez_status ez_lookup_table_rows(const ez_table *tab, ez_fe **in, ez_fe **out);

/* Multiplicities, proof and verification of tuples (cols[2 j], cols[2 j + 1]) of length
 * lens[j], j < nc, in a function table whose rows are (tin, tout). Claims: out->col[2 j + w]
 * is the claim on column w of tuple j (one point per tuple); out->first[j] = 2 j.
 * Errors as ez_lookup_mult / ez_lookup_prove / ez_lookup_verify. */
ez_status ez_lookup_func_mult(ez_fe *m, const ez_fe *tin, const ez_fe *tout, const ez_fe *const *cols,
                              const uint64_t *lens, size_t nc, ez_diag *d);
ez_status ez_lookup_func_prove(ez_transcript *t, const ez_fe *tin, const ez_fe *tout, const ez_fe *const *cols,
                               const uint64_t *lens, size_t nc, const ez_fe *m, ez_writer *w, ez_lookup_claims *out);
ez_status ez_lookup_func_verify(ez_transcript *t, const ez_fe *tin, const ez_fe *tout, const uint64_t *lens,
                                size_t nc, ez_reader *r, ez_lookup_claims *out);

#endif

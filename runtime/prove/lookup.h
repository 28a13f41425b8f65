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
#include "lib/logup.h"
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

/* Multiplicities of tuples (cols[2 j], cols[2 j + 1]) of length lens[j], j < nc, in a
 * function table whose rows are (tin, tout); errors as ez_lookup_mult. */
ez_status ez_lookup_func_mult(ez_fe *m, const ez_fe *tin, const ez_fe *tout, const ez_fe *const *cols,
                              const uint64_t *lens, size_t nc, ez_diag *d);

/* ---- a table's proof in steps ----------------------------------------------------------
 * lib/logup.h's ez_logup_prove_begin / _instance / _end for the range table (regions
 * rbits[0..nranges), pairs, columns of lengths lens and widths tags) or a function table
 * (rows tin, tout: borrowed until end; tuples of lengths lens): every tree of the table
 * on its own transcript (docs/protocol-kernel-logup.md §4b), so that a proof begins its
 * tables in order, proves all their trees at once and ends them in order. The caller has
 * absorbed the commitment to m before begin.
 * columns: the columns the trees read (the range table: cols[0..nc); a function table:
 *   tuple j is (cols[2 j], cols[2 j + 1])), their lengths and tags as given to begin,
 *   and m; borrowed until the last tree. tree: tree k < ez_logup_prover_ninstances(lp);
 *   distinct trees may be proven concurrently. end: the proof bytes to w, the trees'
 *   transcripts joined into t, *out the claims (a function table's: out->col[2 j + w] on
 *   column w of tuple j, out->first[j] = 2 j; clear with ez_lookup_claims_clear).
 * The verifier's begin and end are the same steps; end returns EZ_ERR_REJECT for any
 * failed check or malformed bytes. Errors otherwise EZ_ERR_INVALID, EZ_ERR_NOMEM. */
typedef struct {
    ez_logup_prover *lp;
    ez_logup_column *lc; /* from ez_lookup_prover_columns */
    size_t nc;
    const ez_fe *m;
} ez_lookup_prover;

ez_status ez_lookup_prove_begin(ez_lookup_prover *p, ez_transcript *t, const unsigned *rbits, unsigned nranges,
                                unsigned pairs, const uint64_t *lens, const unsigned *tags, size_t nc);
ez_status ez_lookup_func_prove_begin(ez_lookup_prover *p, ez_transcript *t, const ez_fe *tin, const ez_fe *tout,
                                     const uint64_t *lens, size_t nc);
ez_status ez_lookup_prover_columns(ez_lookup_prover *p, const ez_fe *const *cols, const uint64_t *lens,
                                   const unsigned *tags, size_t nc, const ez_fe *m);
ez_status ez_lookup_prove_tree(ez_lookup_prover *p, size_t k);
ez_status ez_lookup_prove_end(ez_lookup_prover *p, ez_transcript *t, ez_writer *w, ez_lookup_claims *out);
void ez_lookup_prover_clear(ez_lookup_prover *p);

typedef struct {
    ez_logup_verifier *lv;
    bool func;
} ez_lookup_verifier;

ez_status ez_lookup_verify_begin(ez_lookup_verifier *v, ez_transcript *t, const unsigned *rbits, unsigned nranges,
                                 unsigned pairs, const uint64_t *lens, const unsigned *tags, size_t nc);
ez_status ez_lookup_func_verify_begin(ez_lookup_verifier *v, ez_transcript *t, const ez_fe *tin, const ez_fe *tout,
                                      const uint64_t *lens, size_t nc);
ez_status ez_lookup_verify_end(ez_lookup_verifier *v, ez_transcript *t, ez_reader *r, ez_lookup_claims *out);
void ez_lookup_verifier_clear(ez_lookup_verifier *v);

#endif

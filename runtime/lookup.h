/* lookup — the runtime's door to lib/logup.h (LogUp-GKR, DESIGN.md §3 "Lookups").
 *
 * Why a separate module: lib/logup.h and runtime/tables.h (through runtime/exec.h) both
 * define a type named ez_table_kind, so no translation unit can include both. Everything
 * that touches the trace talks to the lookup argument through these functions, whose
 * types (field elements, claims, transcript, bytes) come from neither header.
 *
 * v1 tables are range tables [0, 2^bits) (bits <= 16). A function table (softmax's exp,
 * gelu, ...) would add an "explicit rows" variant here. */
#ifndef EZ_RUNTIME_LOOKUP_H
#define EZ_RUNTIME_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"
#include "runtime/claim.h"

/* The claims a lookup leaves: one per looked-up column (its zero-padded MLE over
 * ceil(log2 len) variables) and one on the multiplicities (over `bits` variables). */
typedef struct {
    size_t ncols;
    ez_claim *col;
    ez_claim mult;
} ez_lookup_claims;

void ez_lookup_claims_clear(ez_lookup_claims *c);

/* Multiplicities m[0..2^bits) of the rows of cols[j] (lens[j] entries each) in the range
 * table [0, 2^bits). EZ_ERR_NUMERIC (d names the first value outside) — m then counts the
 * others — EZ_ERR_INVALID, EZ_ERR_NOMEM. */
ez_status ez_lookup_mult(ez_fe *m, unsigned bits, const ez_fe *const *cols, const uint64_t *lens, size_t nc,
                         ez_diag *d);

/* ez_logup_prove / ez_logup_verify for the range table [0, 2^bits): the caller has
 * absorbed the commitment to m. Out: *out (clear with ez_lookup_claims_clear; zeroed on
 * failure). Verify returns EZ_ERR_REJECT for any failed check or malformed bytes. */
ez_status ez_lookup_prove(ez_transcript *t, unsigned bits, const ez_fe *const *cols, const uint64_t *lens,
                          size_t nc, const ez_fe *m, ez_writer *w, ez_lookup_claims *out);
ez_status ez_lookup_verify(ez_transcript *t, unsigned bits, const uint64_t *lens, size_t nc, ez_reader *r,
                           ez_lookup_claims *out);

#endif

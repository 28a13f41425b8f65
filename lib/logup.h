/* logup — lookups into fixed tables: LogUp (Haböck, "Multivariate lookups based on
 * logarithmic derivatives", eprint 2022/1530) with the fractional sums proven by a GKR
 * tree (Papini and Haböck, eprint 2023/1284; lib/gkr.h). docs/protocol.md §4 "Lookups".
 *
 * Statement: every row of every looked-up column is a row of the table. With
 * alpha, gamma random (extension field) and f_i = sum_w gamma^w col_w[i],
 * t_j = sum_w gamma^w table_w[j], the prover shows
 *     sum_i 1 / (alpha - f_i) - sum_j m_j / (alpha - t_j) = 0
 * where m (the multiplicities) is committed by the CALLER before prove/verify. Only m
 * is committed: the proof ends in claims on the MLEs of the looked-up base columns and
 * of m at random points, which the caller discharges (PCS openings, or the GKR-style
 * claim flow of docs/protocol.md). The verifier evaluates the table's MLE itself: O(bits) for
 * a range table, O(nrows) for an explicit one.
 *
 * Layout, proof format, transcript order and soundness error:
 * docs/protocol-kernel-logup.md. */
#ifndef EZ_LOGUP_H
#define EZ_LOGUP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"

#define EZ_LOGUP_MAX_WIDTH 4
#define EZ_LOGUP_MAX_TABLE_BITS 16
/* RANGES: at most one region per width 1..16. */
#define EZ_LOGUP_MAX_RANGES 16
/* Largest fraction tree (leaves): longer inputs are cut into several trees, each its own
 * GKR instance (memory: about 80 bytes per leaf of the largest tree). */
#define EZ_LOGUP_MAX_TREE_LOG 24u
/* Longest looked-up column (rows); a sanity bound well above any model tensor. */
#define EZ_LOGUP_MAX_LEN (UINT64_C(1) << 40)

typedef enum { EZ_TABLE_RANGE, EZ_TABLE_EXPLICIT, EZ_TABLE_RANGES } ez_table_kind;

/* RANGES — several range checks of different widths in ONE table: region k holds the
 * rows (v, rbits[k]) for v < 2^rbits[k], i.e. the pair (value, width), combined as
 * v + gamma * rbits[k]; the regions are laid end to end, widest first (so each starts
 * at a multiple of its size). A column carries its width as a public `tag` and looks
 * up (v_i, tag): it is in the table iff v_i in [0, 2^tag). So a limb of any width 1..16
 * costs one looked-up row, and the verifier still evaluates the table's MLE in
 * O(nranges * bits) (docs/protocol-kernel-logup.md §2). */
typedef struct {
    ez_table_kind kind;
    unsigned bits;        /* RANGE: table = {0..2^bits-1}, bits <= 16 */
    unsigned ncols;       /* EXPLICIT: width of a row (1..4) */
    uint64_t nrows;       /* EXPLICIT: rows (1..2^16) */
    const ez_fe *cols[4]; /* EXPLICIT: column c has nrows entries (borrowed) */
    unsigned nranges;     /* RANGES: 1..EZ_LOGUP_MAX_RANGES regions */
    unsigned rbits[EZ_LOGUP_MAX_RANGES]; /* RANGES: strictly decreasing widths in 1..16 */
    unsigned max_tree_log; /* largest fraction tree 2^max_tree_log leaves (4..40; 0: the
                              default EZ_LOGUP_MAX_TREE_LOG); public, both sides alike */
    unsigned pairs;        /* RANGES: bit w set (w <= EZ_LOGUP_PAIR_MAX_BITS, w one of
                              rbits): the columns of tag w are looked up two rows per
                              leaf, in a PAIR region of 2^(2w) rows (below) */
} ez_logup_table;

/* RANGES pair regions (docs/protocol-kernel-logup.md §2a). For w in `pairs` the table
 * also holds the rows (a, b), a, b < 2^w, combined as a + gamma (16 + w) + gamma^2 b
 * (a tag no single region has), laid out with the single regions by size, widest first.
 * A column of tag w is cut into its binary pieces as usual; a piece of 2^k >= 2 rows
 * looks up (v[i], v[i + 2^(k-1)]) for i < 2^(k-1): half the leaves. Its claim is still
 * one claim on the column (at a point whose coordinate k-1 from the bottom is a fresh
 * challenge). A piece of one row uses the single region w. */
#define EZ_LOGUP_PAIR_MAX_BITS 8u

/* Rows of the table: 2^bits (RANGE), nrows (EXPLICIT) or sum_k 2^rbits[k] plus
 * sum_{w in pairs} 2^(2w) (RANGES); 0 for a malformed table. */
uint64_t ez_logup_table_size(const ez_logup_table *t);
/* Row width: 1 (RANGE, RANGES) or ncols (EXPLICIT); 0 for a malformed table. */
unsigned ez_logup_table_width(const ez_logup_table *t);

/* A looked-up vector of len rows (1 <= len <= EZ_LOGUP_MAX_LEN); cols[w] for
 * w < table width are its base columns (borrowed), the rest are ignored. For a RANGES
 * table, tag is the width the column is checked against (one of rbits); otherwise it
 * is ignored. */
typedef struct {
    uint64_t len;
    const ez_fe *cols[4];
    unsigned tag;
} ez_logup_column;

/* Multiplicities.
 * In:  t, c[0..nc-1] (nc >= 1, widths as above).
 * Out: m[j] (ez_logup_table_size(t) entries) = how many looked-up rows equal table row j.
 *      A row that occurs several times in an explicit table is counted at its first
 *      occurrence.
 * Returns EZ_OK; EZ_ERR_NUMERIC if some looked-up row is not in the table (d names the
 *      first such: column, index and value; m then holds the counts of the other rows);
 *      EZ_ERR_INVALID for a malformed table or column; EZ_ERR_NOMEM.
 * Cost: RANGE: one increment per row; EXPLICIT: one hash probe per row after an
 *      O(nrows) index. OpenMP (per-thread counts, merged). */
ez_status ez_logup_multiplicities(ez_fe *m, const ez_logup_table *t, const ez_logup_column *c, size_t nc,
                                  ez_diag *d);

/* One claim the caller must discharge: MLE(point) == value, point has nvars coords. */
typedef struct {
    unsigned nvars;
    ez_fe2 *point;
    ez_fe2 value;
} ez_logup_claim;

typedef struct {
    size_t ncolumns;
    unsigned width;
    size_t nclaims;      /* column claims per base column: ncolumns, or for a RANGES table
                            one per binary piece of each column (popcount of len_c) */
    size_t *first;       /* ncolumns + 1: column c's claims are j in [first[c], first[c+1]) */
    ez_logup_claim *col; /* nclaims * width claims: col[j * width + w] is on column c's base
                            column w (nvars = ez_log2_ceil(len_c)); for a RANGES table the
                            points of a piece start with fixed 0/1 coordinates */
    size_t nmult;        /* claims on m: one, or for a RANGES table one per tree of the
                            table (its large binary pieces, then the rest) */
    ez_logup_claim *mult; /* nmult claims on m (nvars = ez_log2_ceil(table size)); a
                             tree's point starts with its fixed 0/1 coordinates */
} ez_logup_claims;

/* Free the points and arrays and zero c (c may be zeroed already). */
void ez_logup_claims_clear(ez_logup_claims *c);

/* Prove.
 * In:  tr — the transcript, after the caller absorbed its commitment to m (alpha and
 *      gamma are drawn here, after that); t, c[0..nc-1] as for ez_logup_multiplicities;
 *      m — the multiplicities (table size entries). The witness is NOT checked: rows
 *      outside the table or wrong m give a proof that ez_logup_verify rejects (call
 *      ez_logup_multiplicities first to get a diagnosis).
 * Out: appends the proof to proof; *out — the claims (allocated; clear with
 *      ez_logup_claims_clear; zeroed on failure), identical to the verifier's. A RANGES
 *      table's columns are split into their binary pieces (no padding leaves): one claim
 *      per piece.
 * Cost: O(total padded rows) field work — the leaves, the fraction tree and one
 *      sumcheck per tree layer (lib/gkr.h); memory about 80 bytes per padded row.
 * Returns EZ_OK, EZ_ERR_INVALID (malformed table/columns) or EZ_ERR_NOMEM. */
ez_status ez_logup_prove(ez_transcript *tr, const ez_logup_table *t, const ez_logup_column *c, size_t nc,
                         const ez_fe *m, ez_writer *proof, ez_logup_claims *out);

/* The same proof in three steps, for a caller that proves several LogUps' instances at
 * once (docs/protocol-kernel-logup.md §4b: every instance, one fraction tree, runs on a
 * transcript of its own, forked after alpha and gamma and joined at the end):
 * ez_logup_prove = begin, every instance k < ninstances in any order (or concurrently:
 * distinct k touch disjoint state), end.
 * begin: the statement (lengths col_lens, tags col_tags: required for a RANGES table,
 *   else may be NULL) absorbed into tr and alpha, gamma drawn; t is copied, an explicit
 *   table's rows are borrowed until end. *out on EZ_OK (free with ez_logup_prover_free).
 * instance: tree k from the columns c[0..nc-1] (the lengths and tags given to begin)
 *   and m, its GKR on its own transcript, its leaf values: held in the prover. Each
 *   uses OpenMP inside (nested in a caller's parallel region: one thread).
 * end: every instance's bytes appended to proof in instance order, each instance's
 *   final transcript state absorbed into tr in that order; *out the claims (moved out of
 *   the prover). EZ_ERR_INVALID if an instance was not proven.
 * Errors: EZ_ERR_INVALID (malformed table, lengths, tags or columns), EZ_ERR_NOMEM. */
typedef struct ez_logup_prover ez_logup_prover;
ez_status ez_logup_prove_begin(ez_logup_prover **out, ez_transcript *tr, const ez_logup_table *t,
                               const uint64_t *col_lens, const unsigned *col_tags, size_t nc);
size_t ez_logup_prover_ninstances(const ez_logup_prover *p);
/* Instance k's tree has 2^vars leaves (0 for k out of range): a scheduling weight. */
unsigned ez_logup_prover_instance_vars(const ez_logup_prover *p, size_t k);
const ez_logup_table *ez_logup_prover_table(const ez_logup_prover *p);
ez_status ez_logup_prove_instance(ez_logup_prover *p, size_t k, const ez_logup_column *c, const ez_fe *m);
ez_status ez_logup_prove_end(ez_logup_prover *p, ez_transcript *tr, ez_writer *proof, ez_logup_claims *out);
void ez_logup_prover_free(ez_logup_prover *p);

/* Bytes ez_logup_prove appends for table t and columns of lengths col_lens[0..nc-1]
 * and tags col_tags (required when t has pairs, else may be NULL) (per instance: its
 * root, its GKR proof and its leaf values), into *bytes. Returns EZ_OK, EZ_ERR_INVALID
 * (malformed table, lengths or tags) or EZ_ERR_NOMEM. O(nc log nc). */
ez_status ez_logup_proof_bytes(const ez_logup_table *t, const uint64_t *col_lens, const unsigned *col_tags, size_t nc,
                               uint64_t *bytes);

/* Verify.
 * In:  tr — as for the prover; t — the table; col_lens[0..nc-1] — the lengths of the
 *      looked-up columns (public shape); proof — the prover's bytes (read exactly).
 * Out: on EZ_OK, *out — the claims the caller MUST discharge (each column claim and the
 *      claim on m against the commitments/claim flow); zeroed otherwise.
 * Returns EZ_OK, EZ_ERR_REJECT (any check failed, the proof is short or malformed),
 *      EZ_ERR_INVALID (malformed table or lengths) or EZ_ERR_NOMEM.
 * Cost: O(log^2 of the rows) field operations and hashes, plus O(nrows) for an
 *      explicit table and O(log) per column. */
ez_status ez_logup_verify(ez_transcript *tr, const ez_logup_table *t, const uint64_t *col_lens, size_t nc,
                          ez_reader *proof, ez_logup_claims *out);
/* The same with the columns' tags (col_tags[0..nc-1], public; required for a RANGES
 * table, ignored — may be NULL — otherwise). */
ez_status ez_logup_verify_tagged(ez_transcript *tr, const ez_logup_table *t, const uint64_t *col_lens,
                                 const unsigned *col_tags, size_t nc, ez_reader *proof, ez_logup_claims *out);

/* The verifier in two steps, to match ez_logup_prove_begin / _end: begin absorbs the
 * statement and draws alpha, gamma (t copied, an explicit table's rows borrowed until
 * end; errors as ez_logup_verify); end reads and checks every instance on its own
 * transcript, joins them into tr and returns the claims (as ez_logup_verify). */
typedef struct ez_logup_verifier ez_logup_verifier;
ez_status ez_logup_verify_begin(ez_logup_verifier **out, ez_transcript *tr, const ez_logup_table *t,
                                const uint64_t *col_lens, const unsigned *col_tags, size_t nc);
ez_status ez_logup_verify_end(ez_logup_verifier *v, ez_transcript *tr, ez_reader *proof, ez_logup_claims *out);
void ez_logup_verifier_free(ez_logup_verifier *v);

#endif

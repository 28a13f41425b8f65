/* pcs — multilinear polynomial commitments over Goldilocks for many stacked vectors
 * (docs/protocol-kernel-pcs.md), two schemes behind one interface:
 *   Ligero (Ames, Hazay, Ishai, Venkitasubramaniam, "Ligero", CCS 2017, in the
 *   multilinear "tensor" form of Brakedown, Golovnev et al., CRYPTO 2023, §4), and
 *   WHIR (Arnon, Chiesa, Fenzi, Yogev, eprint 2024/1586; lib/whir.h): proofs about 4x
 *   smaller and faster verification, for a commitment that costs about as much.
 * The scheme is chosen at commit time (ez_pcs_commit_scheme) and is the first byte of
 * the commitment; every other function dispatches on it. The full protocols, the
 * parameters (>= 100 bits, provable) and the proof-size rules are in
 * docs/protocol-kernel-pcs.md (Ligero §1-7, WHIR §8-12).
 *
 * Stacking. Many base-field vectors are committed at once. Vector i has lens[i] >= 1
 * entries and is the MLE over ez_log2_ceil(lens[i]) variables (zero-padded, lib/mle.h
 * convention). Each vector is cut into its binary PIECES (one per set bit of lens[i],
 * largest first: 196608 = 2^17 + 2^16), and the pieces of all vectors are laid out by
 * decreasing size, so every piece's offset is a multiple of its size and nothing is
 * padding: the stacked vector S has exactly sum lens[i] entries (rounded up to a multiple
 * of the row length), a matrix of `rows` x 2^log_cols, row-major, the MLE over
 * nvars_total = ez_log2_ceil(rows) + log_cols variables (rows beyond the last are zero).
 * A vector's MLE is the sum over its pieces of eq(z_top, piece position) * piece MLE.
 *
 * Commitment (Ligero). Every row is Reed–Solomon encoded at rate 1/4 (lib/ntt.h,
 * systematic), the encoded columns are hashed into a SHA-256 Merkle tree (lib/merkle.h);
 * the commitment is the root plus the public layout. (WHIR: S as one multilinear over
 * m = ceil(log2 T) variables, interleaved RS oracles, docs §8.)
 *
 * Opening. All claims on one commitment are batched into one: a random combination
 * with powers of rho; Ligero then reduces it with two sumchecks (lib/sumcheck.h) to one
 * Ligero opening of S at one point, WHIR proves the combined weighted sum directly. */
#ifndef EZ_PCS_H
#define EZ_PCS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"

/* Column queries per opening: (5/8)^148 < 2^-100 (docs/protocol-kernel-pcs.md §3). */
#define EZ_PCS_QUERIES 148u
/* log2 of the RS blowup (rate 1/4). */
#define EZ_PCS_LOG_BLOWUP 2u
/* A WHIR stack longer than 2^part_log entries is committed in parts of that many entries
 * (the last one shorter), one WHIR instance each (lib/pcs_whir.c;
 * docs/protocol-kernel-pcs.md §8). The default part is WHIR's own limit (lib/whir.h
 * EZ_WHIR_MAX_VARS); a commitment records its part_log, in [MIN, PART_LOG], and may have
 * at most EZ_PCS_WHIR_MAX_PARTS parts. */
#define EZ_PCS_WHIR_PART_LOG 26u
#define EZ_PCS_WHIR_MIN_PART_LOG 4u
#define EZ_PCS_WHIR_MAX_PARTS (1u << 16)
/* Limits a commitment may have (the reader rejects anything larger). */
#define EZ_PCS_MAX_POLYS (1u << 20)
#define EZ_PCS_MAX_TOTAL_LOG 40u

typedef struct ez_pcs_prover ez_pcs_prover; /* opaque: encoded matrix and Merkle tree */

/* Supports (docs/protocol-kernel-pcs.md §1, "Supports"). A polynomial with a support is
 * the MLE over nv variables of a cube of 2^nv entries that is ZERO outside npieces
 * disjoint subcubes; only the subcubes are committed. Piece j holds the cube indices x
 * with (x & mask) == val (bit b of an index is lib/mle.h variable nv-1-b), 2^(nv -
 * popcount(mask)) entries by increasing free bits; the committed vector is the pieces
 * one after another in order, so lens[i] = sum of the pieces' sizes. A claim on such a
 * polynomial is on its cube MLE (nv coordinates). Supports are public: both sides derive
 * them (they are not serialized; ez_pcs_commitment_set_supports after reading). */
typedef struct {
    uint64_t mask, val;
} ez_pcs_piece;

typedef struct {
    unsigned nv;          /* 0: no support (a plain vector of lens[i] entries) */
    size_t npieces;
    const ez_pcs_piece *pieces;
} ez_pcs_support;

/* Commitment schemes (the first byte of a serialized commitment). The first two are the
 * Ligero commitment below; they differ only in the row-length rule, i.e. in which
 * openings the matrix shape is balanced for:
 *   EZ_PCS_SCHEME_LIGERO     every opening sends the evaluation and the proximity row;
 *   EZ_PCS_SCHEME_LIGERO_P1  "proximity tested once": one full opening (the vk's) and
 *                            then openings with EZ_PCS_OPEN_NO_PROXIMITY (one row).
 *   EZ_PCS_SCHEME_WHIR       WHIR (lib/whir.h, docs §8-12); every opening is a full
 *                            proximity test: EZ_PCS_OPEN_NO_PROXIMITY is accepted,
 *                            absorbed and changes nothing else. For WHIR the layout's
 *                            nvars_total is ceil(log2 T), log_cols is m0 - k0 (the
 *                            length of an interleaved row) and rows is 2^k0 (rows of
 *                            the first oracle: the entries x = t mod 2^k0, not
 *                            row-major), m0 the variables of the first PART of the
 *                            stack: a stack above 2^EZ_PCS_WHIR_PART_LOG
 *                            entries is committed as consecutive parts of that size,
 *                            one WHIR instance each, the commitment's root binding
 *                            the parts' roots (docs §8), or for parts of one shape
 *                            one Merkle tree over all of them (joined, docs §9c). */
#define EZ_PCS_SCHEME_LIGERO 1u
#define EZ_PCS_SCHEME_LIGERO_P1 2u
#define EZ_PCS_SCHEME_WHIR 3u

typedef struct {
    uint8_t root[32];
    unsigned scheme;      /* EZ_PCS_SCHEME_* (0 is read as EZ_PCS_SCHEME_LIGERO) */
    uint64_t npolys;
    uint64_t *lens; /* real length of each stacked polynomial (base-field entries) */
    /* Layout, derived from lens by ez_pcs_layout (never trusted from bytes): */
    uint64_t *offsets;    /* offset in S of each polynomial's first (largest) piece */
    unsigned *nvars;      /* ez_log2_ceil(lens[i]) */
    uint64_t npieces;     /* pieces of all polynomials (sum of popcount(lens[i])) */
    uint64_t *pfirst;     /* npolys + 1: poly i's pieces are pieces[pfirst[i] .. pfirst[i+1]) */
    uint64_t *poff;       /* per piece: its offset in S (a multiple of its size) */
    uint64_t *pstart;     /* per piece: its first entry in its polynomial */
    unsigned *pbits;      /* per piece: log2 of its size */
    unsigned log_cols;    /* row length 2^log_cols (the proof-size rule) */
    uint64_t rows;        /* number of rows, >= 1 */
    unsigned nvars_total; /* ez_log2_ceil(rows) + log_cols */
    unsigned part_log;    /* WHIR: parts of 2^part_log entries (0 when laid out: the default) */
    /* Per piece: the cube bits it fixes and their values (a plain vector's piece fixes
     * its top nvars - pbits bits to its position). */
    uint64_t *pmask, *pval;
    /* Supports (owned copies): snv[i] (0: plain), poly i's support pieces
     * spieces[sfirst[i] .. sfirst[i+1]). NULL when no poly has one. */
    unsigned *snv;
    uint64_t *sfirst;
    ez_pcs_piece *spieces;
    /* Standing claims (docs/protocol-kernel-pcs.md §9b): claims that EVERY opening of this
     * commitment proves after the caller's own, set by ez_pcs_commitment_set_standing
     * (owned copies; never serialized: both sides derive them from public data, e.g. the
     * vk's weight range proof). standing[k].point points into standing_pts. */
    size_t nstanding;
    struct ez_pcs_claim_s *standing;
    ez_fe2 *standing_pts;
} ez_pcs_commitment;

/* Free the arrays and zero *c (NULL-safe on a zeroed struct). */
void ez_pcs_commitment_clear(ez_pcs_commitment *c);

/* Fill the layout of c from c->npolys and c->lens (root untouched). Allocates offsets,
 * nvars and the piece arrays (freeing previous ones). Returns EZ_OK, EZ_ERR_INVALID
 * (npolys == 0 or above EZ_PCS_MAX_POLYS, a zero length, total above
 * 2^EZ_PCS_MAX_TOTAL_LOG) or EZ_ERR_NOMEM. Deterministic: prover and verifier derive the
 * same layout. */
ez_status ez_pcs_layout(ez_pcs_commitment *c);

/* The row length rule: the log_cols in [1, EZ_NTT_MAX_LOG - 2] that minimises the
 * estimated proof bytes 32 * cols + 8 * rows * EZ_PCS_QUERIES + 32 * EZ_PCS_QUERIES *
 * (log_cols + 2) for a stacked total of `total` entries (smallest on ties). For
 * EZ_PCS_SCHEME_LIGERO_P1 (ez_pcs_log_cols_rule_scheme) the first term is 16 * cols: its
 * openings send one row. For EZ_PCS_SCHEME_WHIR: m - k0 of ez_whir_params_default(m),
 * m = max(1, ceil(log2 total)) (0 if m > EZ_WHIR_MAX_VARS). */
unsigned ez_pcs_log_cols_rule(uint64_t total);
unsigned ez_pcs_log_cols_rule_scheme(uint64_t total, unsigned scheme);

/* Deep copy (layout included). Returns EZ_OK or EZ_ERR_NOMEM (dst zeroed then). */
ez_status ez_pcs_commitment_copy(ez_pcs_commitment *dst, const ez_pcs_commitment *src);

/* Serialize: u8 scheme id, u32 log_cols, (WHIR: u8 part_log), npolys and the number of
 * runs of equal consecutive lens, then per run its count and its length (all five in
 * unsigned LEB128), 32-byte root (format 1.5; u64 npolys and npolys x u64 lens before).
 * The reader accepts the three schemes and requires log_cols to be that scheme's rule,
 * minimal LEB128, runs of at least one polynomial adding up to npolys and maximal (a
 * run's length differs from the previous one's): one serialization per commitment. */
void ez_pcs_commitment_write(ez_writer *w, const ez_pcs_commitment *c);
/* Parse from untrusted bytes; recomputes the layout and requires the stored log_cols
 * to equal the rule's. Out: *c (clear with ez_pcs_commitment_clear; zeroed on failure).
 * Returns EZ_OK, EZ_ERR_FORMAT (malformed, limits exceeded) or EZ_ERR_NOMEM. */
ez_status ez_pcs_commitment_read(ez_reader *r, ez_pcs_commitment *c);

/* ez_pcs_commit with a scheme (EZ_PCS_SCHEME_*; else EZ_ERR_INVALID). WHIR's cost: docs
 * §11 (about Ligero's commit; memory 32 bytes per stacked entry, each part rounded up to
 * a power of two). */
ez_status ez_pcs_commit_scheme(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                               const uint64_t *lens, size_t npolys, unsigned scheme);
/* The same with WHIR parts of 2^part_log entries (EZ_PCS_WHIR_MIN_PART_LOG ..
 * EZ_PCS_WHIR_PART_LOG; 0 = the default; ignored by Ligero). */
ez_status ez_pcs_commit_parts(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                              const uint64_t *lens, size_t npolys, unsigned scheme, unsigned part_log);
/* The same with supports: sup[i] for poly i (sup NULL: none), polys[i] its pieces'
 * entries one after another. EZ_ERR_INVALID for a support that does not fit (nv > 48,
 * a mask or value beyond nv bits, piece sizes not summing to lens[i]); the pieces'
 * disjointness is the caller's (both sides derive supports from public data). */
ez_status ez_pcs_commit_supported(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                                  const uint64_t *lens, const ez_pcs_support *sup, size_t npolys, unsigned scheme,
                                  unsigned part_log);
/* Set the supports of a commitment read from bytes (the committer's, derived by the
 * reader the same way; sup NULL: none) and lay it out again. Errors as above. */
ez_status ez_pcs_commitment_set_supports(ez_pcs_commitment *c, const ez_pcs_support *sup);
/* The same for a prover read back (the pk): its commitment's supports. */
ez_status ez_pcs_prover_set_supports(ez_pcs_prover *p, const ez_pcs_support *sup);

/* Commit to npolys base-field vectors at once; poly i has lens[i] entries.
 * Out: *out — the prover data (free with ez_pcs_prover_free); *com — the commitment
 *      (clear with ez_pcs_commitment_clear). Both zeroed/NULL on failure.
 * Cost: per stacked entry one inverse and three coset NTT butterfly sets of the row
 *      length (~2 log2(cols) butterflies) and SHA-256 over 32 bytes; memory 4x the
 *      stacked size for the codewords. OpenMP over rows and columns.
 * Returns EZ_OK, EZ_ERR_INVALID (bad lengths, NULL polys) or EZ_ERR_NOMEM. */
ez_status ez_pcs_commit(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                        const uint64_t *lens, size_t npolys);
void ez_pcs_prover_free(ez_pcs_prover *p); /* NULL-safe */
/* The commitment this prover opens (owned by the prover). */
const ez_pcs_commitment *ez_pcs_prover_commitment(const ez_pcs_prover *p);

/* Where a prover read back from its data gets its committed polys (WHIR: the data does
 * not hold them). fill writes poly i's len (= lens[i]) entries to out, exactly the
 * committed ones (anything else yields openings the verifier rejects); its errors are
 * passed on. sup: the polys' supports as committed (NULL: none), set on the commitment
 * before the stack is laid out; it must have the commitment's npolys entries (the caller
 * checks the commitment's shape first, e.g. on a copy read with ez_pcs_commitment_read). */
typedef struct {
    const ez_pcs_support *sup;
    ez_status (*fill)(void *ctx, size_t i, ez_fe *out, uint64_t len);
    void *ctx;
} ez_pcs_polys_src;
/* A fill over an array of polys in memory: ctx is `const ez_fe *const *`. */
ez_status ez_pcs_polys_copy(void *ctx, size_t i, ez_fe *out, uint64_t len);

/* The prover data (the pk part): the commitment, then for Ligero the encoded matrix and
 * the Merkle leaves, so an opening needs no re-encoding; for WHIR the parts' roots (more
 * than one part) and each part's oracle-0 leaf digests (4 bytes per entry at k0 = 5),
 * not the stacked vector S: the reader rebuilds S from src (Ligero ignores src), so
 * setup's polys go in exactly as committed (docs/protocol-kernel-pcs.md §8).
 * The reader checks every stored field element is canonical, every size is consistent
 * and that the leaves hash to the stored root (it does not rehash the columns, nor encode
 * S: a pk is the prover's own data, and a corrupted one, or an S that is not the
 * committed one, only yields proofs the verifier rejects).
 * Returns EZ_OK, EZ_ERR_FORMAT, EZ_ERR_NOMEM, or an error of src->fill. */
void ez_pcs_prover_write(ez_writer *w, const ez_pcs_prover *p);
ez_status ez_pcs_prover_read(ez_reader *r, ez_pcs_prover **out, const ez_pcs_polys_src *src);

/* One evaluation claim: MLE of poly `poly` at point (ez_log2_ceil(lens[poly]) coords)
 * equals value. */
typedef struct ez_pcs_claim_s {
    size_t poly;
    const ez_fe2 *point;
    ez_fe2 value;
} ez_pcs_claim;

/* Set the standing claims of c (replacing any): copies claims[0..n) and their points.
 * From then on every opening of c (ez_pcs_open_ex, ez_pcs_open_multi and their verifiers,
 * which must be given a commitment with the same standing claims) proves them after the
 * caller's claims, absorbed with them, as if the caller had passed them too; an opening
 * with no claims of its own but standing ones is still made. n == 0 clears them.
 * Returns EZ_OK, EZ_ERR_INVALID (a poly out of range, a NULL point) or EZ_ERR_NOMEM. */
ez_status ez_pcs_commitment_set_standing(ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n);
/* The same on a prover's commitment. */
ez_status ez_pcs_prover_set_standing(ez_pcs_prover *p, const ez_pcs_claim *claims, size_t n);

/* Prove all n claims with ONE opening, appended to proof. The caller must have absorbed
 * the commitment (root and layout) into t already; the claims (poly, point, value) are
 * absorbed here. The claimed values are the caller's: a wrong one yields a proof the
 * verifier rejects. n == 0 writes nothing.
 * Cost (Ligero): O(2^nvars_total) for the batching sumcheck and the two row
 *       combinations, O(sum over claims of 2^nvars[poly]) for the claim table; allocates
 *       about 40 * 2^nvars_total bytes of scratch. (WHIR: one pass over each claimed
 *       piece and one over S, then work on 2^(m-5) extension entries and the encoding of
 *       the later oracles; docs §11.)
 * Returns EZ_OK, EZ_ERR_INVALID (poly out of range, NULL point) or EZ_ERR_NOMEM. */
ez_status ez_pcs_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                      ez_writer *proof);

/* Opening without the proximity row (docs/protocol-kernel-pcs.md §3, "proximity tested
 * once"): the proof omits w and its column checks, leaving the evaluation row y and its
 * column checks. SOUND ONLY for a commitment whose proximity to the code was established
 * by a full opening that every verifier of this opening also checks (the weight
 * commitment: the vk's weight range proof opens it with the proximity row, and ez_verify
 * checks that proof first). The mode is absorbed into the transcript. For WHIR the flag
 * is absorbed and the opening is the full one (docs §8). */
#define EZ_PCS_OPEN_NO_PROXIMITY 1u

/* ez_pcs_open / ez_pcs_verify with flags (0 or EZ_PCS_OPEN_NO_PROXIMITY; anything else is
 * EZ_ERR_INVALID). ez_pcs_open/ez_pcs_verify are flags 0. */
ez_status ez_pcs_open_ex(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, unsigned flags,
                         ez_writer *proof);
ez_status ez_pcs_verify_ex(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                           unsigned flags, ez_reader *proof);

/* Open claims on ncom commitments at once (claims[k][0..n[k]-1] with flags[k] on p[k];
 * n[k] == 0 skips commitment k). If every opened commitment is WHIR, every one's mode and
 * claims are absorbed and its rho drawn, in order, then the part roots (not for joined
 * parts, docs §9c) and sums of those with several parts (docs §8), then ONE batched WHIR
 * run proves all of them (docs §9a; joined parts share their oracle-0 queries):
 * one chain of later oracles instead of one per commitment. Otherwise the openings are
 * ez_pcs_open_ex one after the other. The verifier mirrors it from the same public data.
 * Returns as ez_pcs_open_ex / ez_pcs_verify_ex. */
ez_status ez_pcs_open_multi(ez_pcs_prover *const *p, const ez_pcs_claim *const *claims, const size_t *n,
                            const unsigned *flags, size_t ncom, ez_transcript *t, ez_writer *proof);
ez_status ez_pcs_verify_multi(const ez_pcs_commitment *const *com, const ez_pcs_claim *const *claims,
                              const size_t *n, const unsigned *flags, size_t ncom, ez_transcript *t,
                              ez_reader *proof);

/* Verify an opening read from proof (consumes exactly its bytes). com comes from
 * ez_pcs_commitment_read or ez_pcs_commit (layout filled); the caller must check that
 * com->lens are what it expects and have absorbed com into t.
 * Returns EZ_OK (all claims hold), EZ_ERR_REJECT (anything wrong with the proof: short,
 * non-canonical, failed check), EZ_ERR_INVALID (claims malformed by the caller) or
 * EZ_ERR_NOMEM. Never reads outside the reader's bytes.
 * Cost (Ligero): O(EZ_PCS_QUERIES * rows + cols log cols + n * nvars_total) field
 *       operations and EZ_PCS_QUERIES column hashes. (WHIR: a few hundred leaf hashes and
 *       their Merkle paths, O(2^mF (t + mF)) for the final polynomial and
 *       O((pieces of the claims + queries) * m) for the weights; docs §11.) */
ez_status ez_pcs_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims,
                        size_t n, ez_reader *proof);

/* Absorb the commitment (scheme id, layout, root) into t: what callers absorb before
 * opening or verifying. */
void ez_pcs_commitment_absorb(ez_transcript *t, const ez_pcs_commitment *c);

#endif

/* merkle — a SHA-256 (nettle) Merkle tree over column hashes, with single
 * authentication paths and pruned batch openings (docs/protocol.md).
 *
 * Hashing (domain-separated, so a leaf can never be read as an inner node), with H the
 * first EZ_MERKLE_DIGEST_BYTES = 26 bytes (208 bits) of SHA-256:
 *     leaf(col) = H(0x00 || col[0] || ... || col[m-1])   (8-byte little-endian each)
 *     node(l,r) = H(0x01 || l || r)                       (53 bytes: one SHA-256 block)
 *     join(d)   = H(0x02 || d[0] || ... || d[n-1])         (several trees' leaf digests)
 * 208 bits keep the hash term of the Fiat-Shamir bound, ~t^2 / 2^208 for t hash
 * queries, below t 2^-106 for every t <= 2^100 (docs/protocol-kernel-pcs.md §10); an ez_digest
 * holds the 26 bytes and six zero bytes, and proofs carry the 26 bytes only.
 * A tree has 2^depth leaves (depth <= EZ_MERKLE_MAX_DEPTH); leaf i sits at position i,
 * the root is the node over all of them (depth 0: the root is the only leaf).
 *
 * Batch opening of a sorted set of distinct leaf positions: the verifier hashes level
 * by level; at each level, a node whose sibling is also known pairs with it, otherwise
 * the sibling is the next hash of the proof. The proof lists exactly those siblings in
 * that order (level by level from the leaves up, left to right), so shared upper path
 * segments are sent once. Its length follows from the positions alone
 * (ez_merkle_batch_count), so no length is sent.
 *
 * Verification reads only the arrays it is given with the lengths it is given. */
#ifndef EZ_MERKLE_H
#define EZ_MERKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/util.h"

#define EZ_MERKLE_MAX_DEPTH 40u

#define EZ_MERKLE_DIGEST_BYTES 26u

typedef struct {
    uint8_t h[32]; /* h[EZ_MERKLE_DIGEST_BYTES ..] are zero */
} ez_digest;

/* A proof's digests: EZ_MERKLE_DIGEST_BYTES bytes each. The reader fills d[0..n) (zero
 * tails) and returns false when the bytes run out (r->failed set). O(n). */
void ez_merkle_digests_write(ez_writer *w, const ez_digest *d, size_t n);
bool ez_merkle_digests_read(ez_reader *r, ez_digest *d, size_t n);
/* True iff every d[i] has a zero tail (digests read whole from prover data). O(n). */
bool ez_merkle_digests_canonical(const ez_digest *d, size_t n);

/* leaf(col[0..m-1]) as above. Cost: SHA-256 over 8m + 1 bytes. */
void ez_merkle_hash_leaf(ez_digest *out, const ez_fe *col, size_t m);
/* leaf() of n columns at once: out[i] = leaf(cols[i stride .. i stride + m - 1]).
 * Same digests as ez_merkle_hash_leaf; two at a time with SHA-NI when the build
 * targets it (about twice the single-stream rate). out must not overlap cols. */
void ez_merkle_hash_leaves(ez_digest *out, const ez_fe *cols, size_t m, size_t stride, size_t n);
/* join(d[0..n-1]) = H(0x02 || d[0] || ... || d[n-1]) (26 bytes each): the leaf of a tree
 * over several trees' leaves at one position (lib/whir.h ez_whir_join; the third tag keeps
 * it from being read as a leaf or a node). Cost: SHA-256 over 26n + 1 bytes. */
void ez_merkle_hash_digests(ez_digest *out, const ez_digest *d, size_t n);
/* node(l, r) as above. out may alias l or r. */
void ez_merkle_hash_node(ez_digest *out, const ez_digest *l, const ez_digest *r);

typedef struct ez_merkle ez_merkle;

/* Build the tree over 2^depth leaf digests (copied).
 * Out: *out (free with ez_merkle_free). Cost: 2^depth - 1 node hashes (OpenMP for large
 * trees), 64 * 2^depth bytes. Returns EZ_OK, EZ_ERR_INVALID (depth too large) or
 * EZ_ERR_NOMEM. */
ez_status ez_merkle_new(ez_merkle **out, const ez_digest *leaves, unsigned depth);
void ez_merkle_free(ez_merkle *t); /* NULL-safe */
/* Move a built tree's nodes to disk (ez_spill_copy, lib/util.h: only with EZ_SPILL_DIR
 * set; otherwise, or on failure, nothing changes). The same tree: an opening reads back
 * only the pages of the paths it sends. */
void ez_merkle_spill(ez_merkle *t);
/* After reading a spilled tree (a join of its leaves, a batch opening), its pages leave
 * the resident set again (ez_spill_release). Needed even for paths alone: the kernel
 * maps a file's pages in large folios, and one batch opening of 148 paths in a tree of
 * 2^23 leaves was measured to map 424 MB of its 512 MiB. Nothing for a tree in memory. */
void ez_merkle_release(const ez_merkle *t);
/* The same for the leaf digests [first, first + n) alone (a pass over the leaves in
 * blocks; n = 0 or a tree in memory: nothing). */
void ez_merkle_release_leaves(const ez_merkle *t, uint64_t first, uint64_t n);

/* The same tree built in two steps, so the leaf digests can be written in place (no
 * 2^depth-entry copy): ez_merkle_alloc reserves the tree (Out: *out; Returns as
 * ez_merkle_new), the caller fills ez_merkle_leaves_mut(t)[0 .. 2^depth - 1], then
 * ez_merkle_build hashes the inner nodes (Cost: as ez_merkle_new). Until then the
 * root is unspecified. */
ez_status ez_merkle_alloc(ez_merkle **out, unsigned depth);
/* ez_merkle_alloc with the nodes on disk from the start (ez_spill_alloc, lib/util.h:
 * with EZ_SPILL_DIR set; otherwise, or on failure, in memory as ez_merkle_alloc): the
 * tree is built in the file's pages, and ez_merkle_spill has nothing left to copy. */
ez_status ez_merkle_alloc_spilled(ez_merkle **out, unsigned depth);
ez_digest *ez_merkle_leaves_mut(ez_merkle *t);
void ez_merkle_build(ez_merkle *t);
/* A tree of which only the leaves and the root are kept: joined parts (lib/whir.h
 * ez_whir_join) need a part's leaf digests and its root, never its paths. ez_merkle_alloc_leaves
 * reserves it (in memory, or on disk with spilled as ez_merkle_alloc_spilled) faulting in
 * only the leaf level; after the leaves are written, ez_merkle_build_root hashes the
 * inner levels into scratch (2^depth digests, the caller's, e.g. a buffer the commitment
 * is done with) and keeps the root: the same root as ez_merkle_build, none of the tree's
 * 2^depth inner nodes written (half its pages). ez_merkle_batch_open then refuses it
 * (EZ_ERR_INVALID). */
ez_status ez_merkle_alloc_leaves(ez_merkle **out, unsigned depth, bool spilled);
void ez_merkle_build_root(ez_merkle *t, ez_digest *scratch);
unsigned ez_merkle_depth(const ez_merkle *t);
const ez_digest *ez_merkle_root(const ez_merkle *t);
/* The leaf digests, 2^depth of them in order. */
const ez_digest *ez_merkle_leaves(const ez_merkle *t);

/* Authentication path of leaf idx < 2^depth: path[0..depth-1] = the siblings from the
 * leaf level up. */
void ez_merkle_path(const ez_merkle *t, uint64_t idx, ez_digest *path);

/* True iff leaf, hashed up along path (depth siblings) from position idx, gives root.
 * False if idx >= 2^depth or depth > EZ_MERKLE_MAX_DEPTH. */
bool ez_merkle_path_verify(const ez_digest *root, unsigned depth, uint64_t idx, const ez_digest *leaf,
                           const ez_digest *path);

/* Number of sibling digests in the batch opening of positions idx[0..n-1] (which must be
 * strictly increasing and < 2^depth; returns SIZE_MAX otherwise, or if n == 0).
 * Cost: O(n depth) comparisons, no allocation. */
size_t ez_merkle_batch_count(unsigned depth, const uint64_t *idx, size_t n);

/* The batch opening of positions idx[0..n-1] (strictly increasing, < 2^depth) of a tree
 * built with ez_merkle_build or ez_merkle_new (else EZ_ERR_INVALID).
 * Out: out[0..ez_merkle_batch_count()-1]. Cost: O(n depth) copies, allocates O(n). */
ez_status ez_merkle_batch_open(const ez_merkle *t, const uint64_t *idx, size_t n, ez_digest *out);

/* Verify a batch opening: leaves[k] is the claimed digest at position idx[k]
 * (strictly increasing, < 2^depth), proof[0..nproof-1] the siblings.
 * Returns EZ_OK if they hash to root using exactly nproof siblings, EZ_ERR_REJECT
 * otherwise (bad positions, wrong count, wrong hashes), EZ_ERR_NOMEM.
 * Cost: at most n depth node hashes; allocates O(n). */
ez_status ez_merkle_batch_verify(const ez_digest *root, unsigned depth, const uint64_t *idx,
                                 const ez_digest *leaves, size_t n, const ez_digest *proof, size_t nproof);

#endif

/* whir — WHIR, a multilinear polynomial commitment with small proofs and fast
 * verification (G. Arnon, A. Chiesa, G. Fenzi, E. Yogev, "WHIR: Reed–Solomon Proximity
 * Testing with Super-Fast Verification", eprint 2024/1586; "[WHIR]" below), over
 * Goldilocks with every verifier challenge in K = F_p[X]/(X^2 - 7) (lib/field.h).
 * The protocol, the parameters and the soundness argument (unique decoding, 100 bits,
 * no proof of work) are in docs/protocol-kernel-pcs.md §8-11, batched openings in §9a;
 * lib/pcs.h selects this backend with EZ_PCS_SCHEME_WHIR.
 *
 * What is committed. A vector s of 2^m base-field entries (zero beyond its length),
 * read as the multilinear f over m variables. Variables are numbered by index BIT, the
 * least significant first (bit j of x; in lib/mle.h's order that is variable m-1-j), and
 * WHIR binds them in that order. The univariate view of [WHIR] §2 is then
 * f(X) = sum_x c_x X^x with c the Möbius transform (multilinear coefficients) of s: bit
 * j of x stands for X^(2^j).
 *
 * Oracles. Oracle i (i < noracles) holds f_i (mv[i] variables; f_0 = f) as 2^k[i]
 * interleaved Reed–Solomon codewords: row t < 2^k[i] is f_i restricted to the inputs
 * x = t (mod 2^k[i]), a polynomial g_t of degree < n_i = 2^(mv[i]-k[i]) evaluated on the
 * subgroup D_i of order N_i = n_i 2^c[i] (rate 2^-c[i]). Leaf q of oracle i's SHA-256
 * Merkle tree (lib/merkle.h) is (g_0(y), ..., g_{2^k-1}(y)) at the point y of position q:
 *     q = a n_i + j  (a < 2^c[i], j < n_i)  <->  y = w_{N_i}^(a + 2^c[i] brev(j))
 * (brev over log2 n_i bits; ez_whir_point_exp). This is [WHIR]'s oracle on
 * L_i = {x : x^(2^k) in D_i} up to a bijection inside each block of 2^k points (the
 * leaf holds the block's fold coefficients instead of f's values), so Fold(f_i, a)(y)
 * = sum_t eq(a, t) g_t(y): one inner product per queried leaf, no interpolation.
 *
 * Weights. A claim set is a weight polynomial W = sum of terms
 *     coef * [x >> b = off >> b] * prod_{j<b} eq1(z[j], x_j),  eq1(z, e) = z e + (1-z)(1-e),
 * (an aligned block of 2^b entries carrying eq(z, .)); the opening proves
 * sum_x f(x) W(x) = sigma. lib/pcs_whir.c turns stacked-polynomial claims into terms.
 *
 * Nothing here prints, exits or keeps global state. Large loops use OpenMP. */
#ifndef EZ_WHIR_H
#define EZ_WHIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/merkle.h"
#include "lib/transcript.h"
#include "lib/util.h"

/* Largest number of variables: keeps the folding error 2^(m+1)/|K| (§10) below
 * 2^-101 and the first oracle's row NTT within EZ_NTT_MAX_LOG. */
#define EZ_WHIR_MAX_VARS 26u
/* Largest number of committed oracles. */
#define EZ_WHIR_MAX_ORACLES 6u
/* The round-by-round soundness target, in bits (docs/protocol-kernel-pcs.md §10). */
#define EZ_WHIR_SECURITY_BITS 100u

typedef struct {
    unsigned m;                        /* variables of the committed f, 1..EZ_WHIR_MAX_VARS */
    unsigned noracles;                 /* committed oracles, 1..EZ_WHIR_MAX_ORACLES */
    unsigned k[EZ_WHIR_MAX_ORACLES];   /* folding factor of oracle i (its sumcheck rounds) */
    unsigned c[EZ_WHIR_MAX_ORACLES];   /* log2 inverse rate of oracle i: c[0] = 2, nondecreasing */
    unsigned t[EZ_WHIR_MAX_ORACLES];   /* queries to oracle i: ez_whir_queries(c[i]) */
    unsigned mv[EZ_WHIR_MAX_ORACLES];  /* variables of f_i: m - k[0] - ... - k[i-1] */
    unsigned mfinal;                   /* variables of the final polynomial, sent in clear */
} ez_whir_params;

/* Queries that make ((1 + 2^-c)/2)^t <= 2^-EZ_WHIR_SECURITY_BITS, the smallest such t
 * (unique-decoding query error at rate 2^-c, §10). In: 1 <= c <= 8 (else 0). */
unsigned ez_whir_queries(unsigned c);

/* The parameters einzk uses for m variables (the table of docs/protocol-kernel-pcs.md
 * §9, chosen to minimise the proof size). Out: *p. Returns EZ_OK or EZ_ERR_INVALID
 * (m == 0 or m > EZ_WHIR_MAX_VARS). */
ez_status ez_whir_params_default(ez_whir_params *p, unsigned m);

/* Custom parameters (tests, experiments): noracles folding factors k[] and log inverse
 * rates c[]; t, mv and mfinal are derived. Valid iff 1 <= m <= EZ_WHIR_MAX_VARS,
 * 1 <= noracles <= EZ_WHIR_MAX_ORACLES, every k[i] in [1, 8] with sum <= m, c[0] = 2,
 * c nondecreasing and <= 4, and every oracle's codeword length within EZ_NTT_MAX_LOG.
 * (Nondecreasing c makes every earlier query point's power a point of the current
 * oracle's domain: the prover reads those constraint values off its codeword, §9.)
 * Returns EZ_OK or EZ_ERR_INVALID. */
ez_status ez_whir_params_make(ez_whir_params *p, unsigned m, unsigned noracles, const unsigned *k,
                              const unsigned *c);

/* log2 of oracle i's codeword length N_i = 2^(mv[i] - k[i] + c[i]). */
static inline unsigned ez_whir_log_len(const ez_whir_params *p, unsigned i)
{
    return p->mv[i] - p->k[i] + p->c[i];
}

/* The exponent e with y = w_N^e for codeword position q of an oracle with message
 * length 2^logn and blowup 2^c (N = 2^(logn + c)), and its inverse. */
uint64_t ez_whir_point_exp(unsigned logn, unsigned c, uint64_t q);
uint64_t ez_whir_point_pos(unsigned logn, unsigned c, uint64_t e);

/* One term of a weight polynomial (see the header comment). z has b coordinates, z[j]
 * for bit j; off is a multiple of 2^b below 2^m; b <= m. */
typedef struct {
    ez_fe2 coef;
    uint64_t off;
    unsigned b;
    const ez_fe2 *z;
} ez_whir_term;

/* W(r) for a point r[0..m-1] (r[j] for bit j): sum of coef * prod_j eq1(., r[j]) over
 * the terms. Cost O(nterms m) extension multiplies. */
ez_fe2 ez_whir_terms_eval(const ez_whir_term *terms, size_t nterms, const ez_fe2 *r, unsigned m);

typedef struct ez_whir_prover ez_whir_prover;

/* Oracle 0's codeword (2^(m + c0) entries) is kept by the prover that computed it when
 * it has at most 2^EZ_WHIR_KEEP_LOG entries (128 MiB: m <= 22 at c0 = 2, the size at
 * which Ligero's prover keeps its own encoded matrix); an opening then copies its
 * queried leaves instead of encoding them (about a third of a 2^22 opening). */
#define EZ_WHIR_KEEP_LOG 24u

/* Commit to s[0..len-1] (entries len..2^m-1 are zero), len <= 2^p->m.
 * Out: *out (free with ez_whir_prover_free; it keeps a copy of s and oracle 0's Merkle
 *      tree, 8 2^m + 64 N_0 bytes, and up to EZ_WHIR_KEEP_LOG the codeword, 8 N_0 2^k0
 *      bytes more; without the codeword an opening computes only the leaves it
 *      queries), root[32] (the Merkle root).
 * Cost: a Möbius transform (m 2^(m-1) subtractions), 2^k0 rows x 2^c0 coset NTTs of
 *      size 2^(m-k0), N_0 leaf hashes of 8 2^k0 bytes and N_0 node hashes; above
 *      EZ_WHIR_KEEP_LOG one coset encoded at a time, so 16 2^m bytes of scratch, not
 *      the 32 2^m of a codeword. OpenMP.
 * Returns EZ_OK, EZ_ERR_INVALID (bad params, len > 2^m, s NULL with len > 0) or
 *      EZ_ERR_NOMEM. */
ez_status ez_whir_commit(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *p, const ez_fe *s,
                         uint64_t len);
/* ez_whir_commit taking ownership of s: s has 2^m entries from ez_alloc_huge (or
 * malloc), zero from len on; it is kept (no copy) and freed with the prover, or freed
 * here on failure. paths false: the prover's oracle-0 queries are answered by a joined
 * tree (ez_whir_join, ez_whir_open_joined), never by its own, so above EZ_WHIR_KEEP_LOG
 * its tree keeps only the leaf digests and the root (lib/merkle.h ez_merkle_build_root:
 * the same root, half the tree's memory or spilled pages). */
ez_status ez_whir_commit_take(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *p, ez_fe *s,
                              uint64_t len, bool paths);
/* ez_whir_commit_take for s from ez_spill_alloc (lib/util.h): the prover is on disk from
 * the start, its vector that mapping and oracle 0's tree built in another
 * (ez_merkle_alloc_spilled), so ez_whir_prover_spill has nothing to copy (it hands the
 * pages back). Freed with the prover, or here (ez_spill_free) on failure; with invalid
 * parameters its size is unknown and it stays the caller's. */
ez_status ez_whir_commit_mapped(ez_whir_prover **out, uint8_t root[32], const ez_whir_params *p, ez_fe *s,
                                uint64_t len, bool paths);
void ez_whir_prover_free(ez_whir_prover *p); /* NULL-safe */
/* Move the committed vector and oracle 0's tree to disk (EZ_SPILL_DIR, lib/util.h
 * ez_spill_copy; nothing changes when it is unset or a write fails) and drop a kept
 * codeword. Openings are the same bytes; they read the vector back once and the tree
 * only along their paths. */
void ez_whir_prover_spill(ez_whir_prover *p);
/* After a pass over a spilled prover's vector or tree (an opening's round 0, its oracle-0
 * leaves and paths, a join): their pages leave the resident set again (ez_spill_release,
 * ez_merkle_release), so the openings of many spilled parts hold one part's vector at a
 * time. Nothing for data in memory. */
void ez_whir_prover_release(const ez_whir_prover *p);
const ez_whir_params *ez_whir_prover_params(const ez_whir_prover *p);
/* The committed vector's real length (entries from it on are zero). */
uint64_t ez_whir_prover_len(const ez_whir_prover *p);

/* Prover data: the N_0 leaf digests of oracle 0 (32 bytes each), nothing else: the
 * committed vector is the caller's to rebuild (lib/pcs.h: the pk rebuilds it from the
 * weights). The reader takes ownership of s (2^m entries, zeros from len on; mapped: an
 * ez_spill_alloc mapping of that size, else ez_alloc_huge memory; freed on failure too),
 * rebuilds the tree from the digests and requires its root to equal root (no encoding:
 * openings encode). It cannot tie s to the digests without encoding it: an s that is not
 * the committed vector yields openings the verifier rejects.
 * Returns EZ_OK, EZ_ERR_FORMAT (short, non-canonical, wrong root), EZ_ERR_INVALID
 * (params, len > 2^m) or EZ_ERR_NOMEM; *out NULL on failure. */
void ez_whir_prover_write(ez_writer *w, const ez_whir_prover *p);
ez_status ez_whir_prover_read(ez_reader *r, const ez_whir_params *p, const uint8_t root[32], ez_fe *s,
                              uint64_t len, bool mapped, ez_whir_prover **out);

/* Prove sum_x f(x) W(x) = sigma for W = the terms, appending the proof (format:
 * docs/protocol-kernel-pcs.md §9). The caller has absorbed the commitment and
 * everything the terms and sigma depend on. A wrong sigma yields a proof the verifier
 * rejects. Cost: oracle 0's encoding (without hashing; its codeword, 32 bytes per entry
 * of s, lives until its queries are answered), O(sum over terms of 2^b) for the first
 * round plus one pass over s (the fold), then O(2^(m-k0)) extension work per later round and the encodings of the later
 * oracles (2^(mv[i] + c[i]) entries each). Returns EZ_OK, EZ_ERR_INVALID (a malformed
 * term) or EZ_ERR_NOMEM. */
ez_status ez_whir_open(const ez_whir_prover *p, ez_transcript *t, const ez_whir_term *terms, size_t nterms,
                       ez_fe2 sigma, ez_writer *proof);

/* Verify an opening against root (consumes exactly its bytes).
 * Returns EZ_OK (sum_x f(x) W(x) = sigma for the f the root binds, up to the soundness
 * error of §10), EZ_ERR_REJECT (short or non-canonical proof, a failed check),
 * EZ_ERR_INVALID (bad params or terms) or EZ_ERR_NOMEM. Never reads outside the reader.
 * Cost: sum_i t_i leaf hashes and their Merkle paths, O(t_i 2^k[i]) for the folds,
 * O(2^mfinal (m + sum t_i)) for the final polynomial and O((nterms + sum t_i) m) for W. */
ez_status ez_whir_verify(const ez_whir_params *p, const uint8_t root[32], ez_transcript *t,
                         const ez_whir_term *terms, size_t nterms, ez_fe2 sigma, ez_reader *proof);

/* ---- batched openings: several commitments, one WHIR run --------------------------------
 *
 * Instances j < n (each a committed f_j with its own parameters par_j, root, weight terms
 * and sum sigma_j) are opened together (docs/protocol-kernel-pcs.md §9a): each runs its
 * own round 0 (k0_j sumcheck rounds on f_j W_j), a random beta combines the n folded
 * claims, and ONE chain of later oracles (parameters: ez_whir_batch_params) proves them
 * on the stack of the folded polynomials; the queries to every instance's oracle 0 become
 * constraints on that instance's block of the stack. The proof is one opening's worth of
 * later oracles and final polynomial plus each instance's round 0 and oracle-0 queries.
 * With n == 1 these are exactly ez_whir_open / ez_whir_verify. */
typedef struct {
    const ez_whir_term *terms;
    size_t nterms;
    ez_fe2 sigma;
} ez_whir_claimset;

/* An instance's block of the folded stack (§9a): its fold's LIVE entries, [0, L) with
 * L = max(1, ceil(len / 2^k0)) (len the committed length: the fold is zero from L on),
 * cut into binary pieces, largest first: piece i holds block positions [pos[i], pos[i] +
 * 2^b[i]) at stack offset off[i] (a multiple of 2^b[i]). The zero tail is not stacked. */
#define EZ_WHIR_MAX_PIECES (EZ_WHIR_MAX_VARS + 1)
typedef struct {
    unsigned np;
    unsigned b[EZ_WHIR_MAX_PIECES];
    uint64_t pos[EZ_WHIR_MAX_PIECES], off[EZ_WHIR_MAX_PIECES];
} ez_whir_block;

/* The folded stack's layout and the chain's parameters for instances par[0..n-1], n >= 2,
 * committed lengths lens[0..n-1] (1 <= lens[j] <= 2^m_j). The pieces of every block
 * (ez_whir_block) are laid out by decreasing size (ties: by instance, then position):
 * aligned, no gaps; the stack has mv1 = ceil(log2 of sum_j L_j) variables (at least 1).
 * chain: m = mv1 + 1, a virtual oracle 0 (k = 1, c = 2; its queries are the instances'),
 * then the later oracles of the default table for mv1 + 5 variables (k = 4, c = 3
 * oracles first while that exceeds EZ_WHIR_MAX_VARS). Returns EZ_OK or EZ_ERR_INVALID
 * (n < 2, a bad par or length, mv1 > EZ_WHIR_MAX_VARS - 1: then the instances are opened
 * one by one). blk (n entries) may be NULL. */
ez_status ez_whir_batch_params(ez_whir_params *chain, ez_whir_block *blk, const ez_whir_params *const *par,
                               const uint64_t *lens, size_t n);

/* Open / verify n >= 1 instances in one run (the verifier is given the committed lengths
 * lens, the prover uses its instances' own, ez_whir_prover_len; with n >= 2 every term of
 * instance j must lie in its first L_j 2^k0 entries, else EZ_ERR_INVALID). If n >= 2 and
 * ez_whir_batch_params fails,
 * the instances are opened (verified) one after the other with ez_whir_open
 * (ez_whir_verify), on the same transcript. Costs: each instance's round 0 and oracle-0
 * queries as in ez_whir_open, one chain over the stack, plus O(t_0 2^(m_j - k0_j)) per
 * instance for its query constraints (n >= 2). Returns as ez_whir_open / ez_whir_verify. */
ez_status ez_whir_open_batch(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n, ez_transcript *t,
                             ez_writer *proof);
ez_status ez_whir_verify_batch(const ez_whir_params *const *par, const uint8_t *const *roots, const uint64_t *lens,
                               const ez_whir_claimset *cs, size_t n, ez_transcript *t, ez_reader *proof);

/* ---- joined commitments: one Merkle tree over several instances' oracle 0 -------------
 *
 * Instances with equal oracle 0 (ez_whir_joinable: same m, k0, c0, so the same codeword
 * length and t0) can share one tree (docs/protocol-kernel-pcs.md §9c): its leaf q is
 * join(leaf digest of instance 0 at q, ..., of instance n-1 at q) (lib/merkle.h), its
 * root binds every instance's oracle 0. A batched opening of such a group draws ONE set
 * of oracle-0 queries for the whole group, sends every instance's leaves at them, and one
 * Merkle batch opening of the joined tree. */
#define EZ_WHIR_MAX_JOIN 64u
bool ez_whir_joinable(const ez_whir_params *a, const ez_whir_params *b);

/* The joined tree of p[0..n-1] (2 <= n <= EZ_WHIR_MAX_JOIN, all joinable, their trees
 * present). Out: *out (ez_merkle_free), root[32]. Cost: N_0 joins of n digests and N_0
 * node hashes, 64 N_0 bytes (OpenMP). Returns EZ_OK, EZ_ERR_INVALID or EZ_ERR_NOMEM. */
ez_status ez_whir_join(ez_merkle **out, uint8_t root[32], const ez_whir_prover *const *p, size_t n);

/* ez_whir_open_batch / ez_whir_verify_batch with groups: joined[j] != 0 puts instance j in
 * the group of instance j - 1 (joined[0] == 0; joined NULL: no groups, exactly the plain
 * batch). A group of two or more is joinable instances whose oracle 0 is authenticated by
 * the joined tree: the prover's tree[h] (h the group's first instance; ez_whir_join of
 * the group's provers in order), the verifier's roots[h] (roots of the rest unused).
 * Groups need the one-chain run: if ez_whir_batch_params fails and some group has two
 * instances, EZ_ERR_INVALID (no one-by-one fallback). Returns as the plain forms. */
ez_status ez_whir_open_joined(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n,
                              const uint8_t *joined, const ez_merkle *const *tree, ez_transcript *t,
                              ez_writer *proof);
ez_status ez_whir_verify_joined(const ez_whir_params *const *par, const uint8_t *const *roots, const uint64_t *lens,
                                const uint8_t *joined, const ez_whir_claimset *cs, size_t n, ez_transcript *t,
                                ez_reader *proof);

#endif

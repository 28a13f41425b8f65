/* whir_internal — helpers shared by lib/whir.c (parameters, commitment, oracles),
 * lib/whir_prove.c and lib/whir_verify.c. Not a public interface.
 *
 * Conventions (lib/whir.h): index bit j of a table is the j-th variable WHIR binds;
 * eq1(a, b) = a b + (1 - a)(1 - b); every sumcheck round binds the least significant
 * remaining bit and sends g(0), g(2) (g(1) = claim - g(0); the sumcheck rounds of
 * [WHIR] §5). */
#ifndef EZ_WHIR_INTERNAL_H
#define EZ_WHIR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/merkle.h"
#include "lib/transcript.h"
#include "lib/util.h"
#include "lib/whir.h"

/* Transcript labels (docs/protocol-kernel-pcs.md §9). */
#define EZ_WHIR_L_PARAMS "whir/params"
#define EZ_WHIR_L_SUM "whir/sum"
#define EZ_WHIR_L_ROUND "whir/sumcheck"
#define EZ_WHIR_L_FOLD "whir/fold"
#define EZ_WHIR_L_ROOT "whir/root"
#define EZ_WHIR_L_OODPT "whir/ood-point"
#define EZ_WHIR_L_OOD "whir/ood"
#define EZ_WHIR_L_QUERY "whir/query"
#define EZ_WHIR_L_COMBINE "whir/combine"
#define EZ_WHIR_L_FINAL "whir/final"
#define EZ_WHIR_L_BATCH "whir/batch"
#define EZ_WHIR_L_BATCH_COMBINE "whir/batch-combine"

/* One committed oracle: leaf-major codeword (leaf q = enc[q * width .. + width), width =
 * 2^k base entries for oracle 0 or 2^(k+1) (c0, c1 pairs) for later oracles) and its
 * Merkle tree. */
typedef struct {
    unsigned logn, c, k; /* message 2^logn per row, blowup 2^c, 2^k rows */
    size_t width;        /* base entries per leaf */
    ez_fe *enc;          /* 2^(logn + c) * width */
    ez_merkle *tree;
} ez_whir_oracle;

struct ez_whir_prover {
    ez_whir_params par;
    uint64_t len; /* real length of s */
    ez_fe *s;     /* 2^m entries, zero beyond len */
    ez_whir_oracle o0;
    bool s_spilled; /* s is an ez_spill_copy or ez_spill_alloc mapping (ez_whir_prover_spill,
                       ez_whir_commit_mapped); oracle 0's tree is then spilled too */
};

void ez_whir_oracle_clear(ez_whir_oracle *o);

/* Oracle 0's codeword of p (the prover keeps only its tree): a new array of
 * 2^(logn + c0) * 2^k0 entries (caller frees), *enc NULL on failure. Cost: the
 * commitment's encoding without the hashing. The reference of ez_whir_prover_leaves0
 * (tests). Returns EZ_OK, EZ_ERR_NOMEM. */
ez_status ez_whir_prover_encode0(const ez_whir_prover *p, ez_fe **enc);
/* The leaves of oracle 0 at positions pos[0..np) (each < N_0), without its codeword: out[j
 * 2^k0 + t] = row t of leaf pos[j], exactly as in ez_whir_prover_encode0's codeword. In the
 * evaluation basis a row's value at y is g_t(y) = sum_u s[t + 2^k0 u] eq(pow(y), u)
 * (whir.h); with u = a + 2^la b (b: the top lb <= 6 bits) that is
 *     sum_a eq(pow_la(y), a) K_{t,a}(y^(2^la)),
 * K_{t,a} the lb-variable slice b -> s[t + 2^k0 (a + 2^la b)] encoded like a row (Möbius,
 * rate 2^-c0): y^(2^la) lies in its domain of 2^(lb + c0) points. Cost: per entry of s one
 * Möbius step and 2^c0 coset NTT butterflies of a 2^lb slice (~20 operations, in cache),
 * per leaf and slice 2^k0 multiply-adds; 8 np 2^la bytes for the eq tables, no codeword
 * (the full one is 4 2^m entries). OpenMP over slices.
 * Returns EZ_OK, EZ_ERR_INVALID (a position out of range), EZ_ERR_NOMEM. */
ez_status ez_whir_prover_leaves0(const ez_whir_prover *p, const uint64_t *pos, size_t np, ez_fe *out);

/* Encode and commit a table as an oracle. In: a[0 .. 2^(lw + logn) - 1], a base table
 * whose entries x = r + 2^lw u (r < 2^lw, u < 2^logn) form 2^lw interleaved rows of
 * multilinear EVALUATIONS over u; lw = k (base) or k + 1 (an extension table viewed as
 * (c0, c1) base pairs); a is not modified. Out: *o (enc, tree), root. Cost: the Möbius
 * transform of every row, 2^lw x 2^c coset NTTs of 2^logn, N leaf and N node hashes
 * (N = 2^(logn + c)); 16 2^logn entries of scratch per thread; OpenMP over blocks of 8
 * rows. Returns EZ_OK, EZ_ERR_INVALID, EZ_ERR_NOMEM (*o cleared on failure). */
ez_status ez_whir_oracle_commit(ez_whir_oracle *o, ez_digest *root, const ez_fe *a, unsigned lw, unsigned k,
                                unsigned logn, unsigned c);
/* The same encoding without the tree (the pk reader rebuilds the tree from stored
 * leaf digests). */
ez_status ez_whir_oracle_encode(ez_whir_oracle *o, const ez_fe *a, unsigned lw, unsigned k, unsigned logn,
                                unsigned c);

static inline uint64_t ez_whir_brev(uint64_t x, unsigned bits)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

/* eq1(a, e) for a Boolean e. */
static inline ez_fe2 ez_whir_eq1_bit(ez_fe2 a, unsigned e)
{
    return e ? a : ez_fe2_sub(ez_fe2_one(), a);
}

/* eq1(a, b) = a b + (1 - a)(1 - b) = 1 - a - b + 2 a b. */
static inline ez_fe2 ez_whir_eq1(ez_fe2 a, ez_fe2 b)
{
    ez_fe2 ab = ez_fe2_mul(a, b);
    return ez_fe2_add(ez_fe2_sub(ez_fe2_sub(ez_fe2_one(), a), b), ez_fe2_add(ab, ab));
}

/* out[t] = prod_{b<k} eq1(r[b], bit b of t) for t < 2^k (bit b <-> r[b]); the _scaled
 * form multiplies every entry by c (no extra pass), the _base form is for base-field
 * points. Cost 2^k multiplies (OpenMP from 2^14 entries for the extension forms). */
void ez_whir_eq_bits(ez_fe2 *out, const ez_fe2 *r, unsigned k);
void ez_whir_eq_bits_scaled(ez_fe2 *out, const ez_fe2 *r, unsigned k, ez_fe2 c);
void ez_whir_eq_bits_base(ez_fe *out, const ez_fe *r, unsigned k);

/* eq(pow(y), r) = prod_{b<n} eq1(y^(2^b), r[b]) for y in K. */
ez_fe2 ez_whir_eq_pow(ez_fe2 y, const ez_fe2 *r, unsigned n);

/* The degree-2 round polynomial through g(0), g(1), g(2), at x. */
ez_fe2 ez_whir_quad_eval(ez_fe2 g0, ez_fe2 g1, ez_fe2 g2, ez_fe2 x);


/* f(y) for f(X) = sum_u c[u] X^u, c extension, y base (Horner). */
ez_fe2 ez_whir_horner_base(const ez_fe2 *c, size_t n, ez_fe y);

/* t query positions in [0, 2^logN) from the transcript (label EZ_WHIR_L_QUERY), in
 * draw order (q[]), and the sorted distinct ones (d[], returned count). */
size_t ez_whir_draw_queries(ez_transcript *t, unsigned logN, unsigned nq, uint64_t *q, uint64_t *d);

/* Absorb the parameters (both sides, before anything else of an opening). */
void ez_whir_absorb_params(ez_transcript *t, const ez_whir_params *p);

/* Testing only (tests/check_whir.c): ez_whir_open_batch with one deviation.
 * EZ_WHIR_CHEAT_STACK: the last instance's block of the committed stack (oracle 1, or the
 * final polynomial) is not its fold, two entries changed so that the combined claim
 * still holds; only the queries to that instance's oracle 0 can catch it (§9a). */
#define EZ_WHIR_CHEAT_STACK 1u
/* Joined groups (§9c): the second instance of a group sends one leaf entry changed
 * (LEAF), the group's Merkle opening has one sibling changed (SIBLING), or the group's
 * first two instances send each other's leaves (SWAP). */
#define EZ_WHIR_CHEAT_LEAF 2u
#define EZ_WHIR_CHEAT_SIBLING 3u
#define EZ_WHIR_CHEAT_SWAP 4u
ez_status ez_whir_open_batch_cheat(const ez_whir_prover *const *p, const ez_whir_claimset *cs, size_t n,
                                   const uint8_t *joined, const ez_merkle *const *tree, ez_transcript *t,
                                   ez_writer *proof, unsigned cheat);

/* An instance's live fold entries in a batch: max(1, ceil(len / 2^k0)) (§9a). */
uint64_t ez_whir_block_live(const ez_whir_params *p, uint64_t len);
/* The block of a lone instance: one piece, its whole fold of 2^logn entries at 0. */
void ez_whir_block_whole(ez_whir_block *blk, unsigned logn);
/* The stack point of a piece's entries on its block's logn bits: r[0..b) then the bits of
 * pos above b, as 0 / 1 (pt and r may not alias). */
void ez_whir_piece_point(ez_fe2 *pt, const ez_fe2 *r, unsigned b, uint64_t pos, unsigned logn);

/* Every term lies in [0, lim) (a batched instance's live entries). */
bool ez_whir_terms_within(const ez_whir_term *terms, size_t n, uint64_t lim);

/* Point y = w_{2^logN}^e. */
ez_fe ez_whir_root_pow(unsigned logN, uint64_t e);

#endif

/* gkr — GKR for a binary tree of projective fraction additions (Papini and Haböck,
 * "Improving logarithmic derivative lookups using GKR", eprint 2023/1284), the engine
 * under lib/logup.h. Protocol, format and soundness: docs/protocol-kernel-logup.md §3.
 *
 * A tree over n variables has 2^n leaves (p_x, q_x), read as the fractions p_x / q_x.
 * Layer k has 2^k nodes (layer n = the leaves, layer 0 = the root) and
 *     node_k[x] = (pL qR + pR qL, qL qR)  with  L = node_{k+1}[x], R = node_{k+1}[x + 2^k],
 * i.e. the two halves of a layer are added, so the child sits on the MOST significant
 * variable: P_{k+1}(c, y) = (1 - c) pL(y) + c pR(y) under the project's MLE convention
 * (lib/mle.h). With every q nonzero, p_root / q_root = sum_x p_x / q_x.
 *
 * The prover proves the root from claims on the leaf MLEs: layer by layer, the claims
 * (P_k(r), Q_k(r)) are combined with a random lambda and reduced by ONE sumcheck
 * (lib/sumcheck.h, degree 3, eq factor on all k variables) to pL, pR, qL, qR at a
 * random point r', then to (P_{k+1}(c, r'), Q_{k+1}(c, r')) with a random c. What is
 * left is a claim (P_n(r), Q_n(r)) on the leaves at a random point r, which the CALLER
 * must check (lib/logup.c evaluates the leaf MLEs from its own data and claims).
 *
 * A tree may have UNIT numerators (every leaf p = 1, as for the looked-up rows of
 * LogUp): then the leaf layer's sumcheck is a single product of two factors
 * (docs/protocol-kernel-logup.md §3.3), and both sides must know it.
 *
 * The root itself is NOT written or absorbed here: the caller sends and absorbs each
 * tree's root before its proof (lib/logup.c: tree by tree, the roots' sum checked after
 * the last one). */
#ifndef EZ_GKR_H
#define EZ_GKR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"
#include "lib/transcript.h"
#include "lib/util.h"

/* Deepest tree: the layer sumchecks run over at most n - 1 <= EZ_SC_MAX_VARS variables. */
#define EZ_GKR_MAX_VARS 48

/* The prover's tree: every layer above the leaves (the leaves are borrowed). Opaque. */
typedef struct ez_gkr_frac_tree ez_gkr_frac_tree;

/* Build the tree over n variables.
 * In:  n <= EZ_GKR_MAX_VARS; leaf numerators p (2^n entries: at most one of p_base /
 *      p_ext non-NULL; both NULL = unit numerators, every p = 1) and denominators
 *      q_ext (2^n entries). The leaf arrays are BORROWED: they must stay valid and
 *      unchanged until ez_gkr_frac_tree_free.
 * Out: *out — a new tree (free with ez_gkr_frac_tree_free).
 * Cost: 3 multiplies per internal node (the first layer from base numerators: one
 *      extension and two mixed multiplies per node; from unit numerators one);
 *      2^n * 32 bytes for the layers. OpenMP over the nodes of large layers.
 * Returns EZ_OK, EZ_ERR_INVALID (bad n or leaves) or EZ_ERR_NOMEM. */
ez_status ez_gkr_frac_tree_new(ez_gkr_frac_tree **out, unsigned n, const ez_fe *p_base, const ez_fe2 *p_ext,
                               const ez_fe2 *q_ext);
void ez_gkr_frac_tree_free(ez_gkr_frac_tree *t);

/* Unit-numerator leaves made on demand: fill(ctx, lo, hi, q) writes the denominators of
 * leaves lo .. hi-1 to q[0 .. hi-lo). It must be pure (the same values every call) and
 * safe to call from several threads at once; it is called twice per leaf (building the
 * layer above the leaves, and for the leaf layer's sumcheck), at most 256 leaves per
 * call. */
typedef void (*ez_gkr_leaf_fn)(void *ctx, uint64_t lo, uint64_t hi, ez_fe2 *q);

/* ez_gkr_frac_tree_new for a unit tree whose denominators come from fill (ctx stays
 * valid until ez_gkr_frac_tree_free): the same tree and the same proof, without the
 * 2^n * 16 bytes of a leaf array. Returns as ez_gkr_frac_tree_new. */
ez_status ez_gkr_frac_tree_new_unit(ez_gkr_frac_tree **out, unsigned n, ez_gkr_leaf_fn fill, void *ctx);

/* The root (p, q); the caller sends and absorbs it before ez_gkr_frac_prove. */
void ez_gkr_frac_tree_root(const ez_gkr_frac_tree *t, ez_fe2 *p, ez_fe2 *q);
unsigned ez_gkr_frac_tree_nvars(const ez_gkr_frac_tree *t);
bool ez_gkr_frac_tree_unit(const ez_gkr_frac_tree *t);

/* Prove the tree's root from its leaves. Once per tree: the proof reuses the memory of
 * the layers it has finished with as scratch (a second call returns EZ_ERR_INVALID;
 * the root stays readable).
 * In:  tr — the transcript, after the caller absorbed this tree's root.
 * Out: appends the layer messages to proof; point[n] — the leaf point r (variable 0
 *      first), *p_claim = P_n(r), *q_claim = Q_n(r): what the leaf MLEs must equal.
 *      point may be NULL iff n == 0.
 * Cost: one degree-3 sumcheck per layer k = 1..n-1 over 4 factors of 2^k entries
 *      (2 for the leaf layer of a unit tree), about twice the work of the leaf layer's
 *      sumcheck in total; no memory beyond the tree's and the engine's.
 * Returns EZ_OK, EZ_ERR_INVALID (already proven), EZ_ERR_NOMEM or EZ_ERR_INTERNAL
 *      (the engine refused its input). */
ez_status ez_gkr_frac_prove(ez_transcript *tr, ez_gkr_frac_tree *t, ez_writer *proof, ez_fe2 *point,
                            ez_fe2 *p_claim, ez_fe2 *q_claim);

/* Verify: the mirror of ez_gkr_frac_prove for a tree over n variables (unit: whether
 * its numerators are all one) whose root (p_root, q_root) the caller has read, checked
 * and absorbed.
 * Out: on EZ_OK, point[n], *p_claim, *q_claim as for the prover; the caller MUST check
 *      P_n(point) == *p_claim and Q_n(point) == *q_claim against the leaves it knows.
 * Returns EZ_OK, EZ_ERR_REJECT (a layer identity or a sumcheck failed, or the proof is
 *      short or holds a non-canonical encoding), EZ_ERR_INVALID (n too large) or
 *      EZ_ERR_NOMEM. Reads exactly this tree's bytes from proof. */
ez_status ez_gkr_frac_verify(ez_transcript *tr, unsigned n, bool unit, ez_fe2 p_root, ez_fe2 q_root,
                             ez_reader *proof, ez_fe2 *point, ez_fe2 *p_claim, ez_fe2 *q_claim);

/* Memory for leaves and layers: n * size bytes (uninitialised, 64-byte aligned; free
 * with free()); ez_alloc_huge (lib/util.h): from 4 MiB on, the whole 2 MiB pages inside
 * are advised for transparent huge pages, so first touch of fresh memory costs one page
 * fault per 2 MiB, not per 4 KiB (measured: a fifth of the prover's time on 2^20
 * leaves). NULL on failure or overflow. */
void *ez_gkr_alloc(size_t n, size_t size);

/* Bytes ez_gkr_frac_prove writes for a tree over n variables: 64 (layer 1) +
 * sum_{k=1}^{n-1} 16 (3k + 4), two evals fewer for a unit tree (n >= 2). 0 for n == 0. */
uint64_t ez_gkr_frac_proof_bytes(unsigned n, bool unit);

#endif

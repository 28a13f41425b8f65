/* heads — the head structure of a contraction, as the per-head strategies see it
 * (runtime/prove/strategies.h, docs/comparison.md). The einsum strategy needs none of
 * this: a head axis is just a batch index of its one sumcheck. DeepProve and zkLLM
 * instead split the heads, and DeepProve also flattens (head, width) into one axis of
 * the activations (docs of deep-prove, zkml/docs "MHA", "QKV"). Decided from the op and
 * the plan alone, so prover, verifier and `info` agree.
 *
 * Roles (on the operand view, runtime/prove/pctx.h ez_opview):
 *   MIX       a batched contraction: >= 1 batch and >= 1 contracted index, nothing summed
 *             or broadcast (attention scores q.k, value mixing p.v, GQA). Heads = the
 *             batch indices plus every free index but one per operand: the largest free
 *             index of A is A's row (ties: the first in A's axis order) and of B its
 *             column; the other free indices are heads the other operand lacks — DeepProve
 *             v1 replicates K/V across the R query heads of a GQA group this way.
 *   PROJ_IN   a projection x[rows.., c..] * w[c.., f1, .., fk] with k >= 2 free indices
 *             of the weight w, trailing in w and in the output in the same order (Q, K, V
 *             = x W: the flat axis (f1 .. fk) is DeepProve's hidden axis h*m).
 *   PROJ_OUT  an output projection c[rows.., c1, .., ck] * w[c1, .., ck, cols..] with
 *             k >= 2 contracted indices, trailing in c and leading in the weight w
 *             (concatenated heads times W_O: the flat axis is (c1 .. ck)).
 *   NONE      anything else (the plain contraction in every strategy). */
#ifndef EZ_RUNTIME_PROVE_HEADS_H
#define EZ_RUNTIME_PROVE_HEADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"

typedef enum { EZ_HEAD_NONE = 0, EZ_HEAD_MIX, EZ_HEAD_PROJ_IN, EZ_HEAD_PROJ_OUT } ez_head_role;

typedef struct {
    ez_head_role role;
    /* MIX */
    unsigned nhead, head[EZ_MAX_IDX]; /* head indices, in the output's axis order */
    bool in_a[EZ_MAX_IDX], in_b[EZ_MAX_IDX]; /* by index id: operand A / B carries it */
    unsigned nrow, row[EZ_MAX_IDX];   /* A's free indices folded at the output point */
    unsigned ncol, col[EZ_MAX_IDX];   /* B's likewise */
    unsigned ncon, con[EZ_MAX_IDX];   /* contracted indices, in the op's bind order */
    uint64_t nheads;                  /* real heads: the product of the head extents */
    unsigned head_vars, con_vars;     /* their padded variables */
    /* PROJ_IN, PROJ_OUT */
    unsigned nflat, flat[EZ_MAX_IDX]; /* the indices of the flat axis, most significant first */
    uint64_t flat_len;                /* the product of their extents */
    unsigned flat_vars;               /* ceil(log2 flat_len) */
    bool flat_is_split;               /* every flat index after the first has a power-of-two
                                         extent: the flat axis' MLE is the split tensor's
                                         (no padding matrix is needed) */
} ez_heads;

/* The role and structure of a two-operand EINSUM op (op and tensors: an operand view,
 * in[k] = k, out = nin). Anything not matching a role is EZ_HEAD_NONE. O(nidx^2). */
void ez_heads_classify(const ez_plan_op *op, const ez_plan_tensor *tensors, ez_heads *h);

/* The causal mask applied to op `op`'s output by a consumer (a masked SOFTMAX or a CAUSAL
 * op reading it whole as its operand 0): true and the mask's row and column as index ids
 * of `op` (entries with column > row are masked). */
bool ez_heads_mask(const ez_plan *p, size_t op, unsigned *row, unsigned *col);

/* DeepProve's Q/K/V aggregation: the PROJ_IN ops of p that read the same first operand
 * (the same tensor and slice) and whose outputs are live (live[tensor]: it has claims),
 * provided there are at most EZ_HEADS_MAX_GROUP of them and every consumer of their
 * outputs comes after the last of them — else op alone. Out: members[0..*n) in op order
 * (op among them). The last member proves the group; the walk then finds the others
 * without claims. */
#define EZ_HEADS_MAX_GROUP 4
void ez_heads_group(const ez_plan *p, size_t op, const bool *live, size_t *members, unsigned *n);

#endif

/* strategy — how one proof reduces its contractions (docs/comparison.md). The proof
 * records its strategy (docs/protocol.md §9, section 7) and absorbs it first in its
 * transcript, so one verifying key checks a proof of any strategy, and a proof cannot be
 * replayed under another one.
 *
 *   einsum     every contraction is ONE sumcheck whose batch axes carry an eq factor
 *              (docs/protocol.md); the prover skips padded regions in every round.
 *   deepprove  DeepProve's way (Lagrange Labs, zkml/docs "MHA", "QKV"): heads padded to
 *              powers of two, the stacked head axis split into per-head MLEs in one
 *              sumcheck with every per-head evaluation sent and recombined by beta, the
 *              Q/K/V padding and projections proven by aggregated sumchecks, causal masking
 *              by a zeroifier sumcheck, GQA by replicated K/V heads.
 *   per-head   zkLLM's way (Sun et al., CCS 2024): per head, separate sumchecks for QK^T
 *              and PV, then the heads concatenated and projected by one more matmul.
 * Softmax, lookups, commitments and the rest of the protocol are the same for all three.
 *
 * This header also describes what each strategy does to a plan, from the plan alone, for
 * `einzk info --strategy` and the bench (ez_strategy_describe), with the same counts the
 * prover reports (ez_prove_stats). */
#ifndef EZ_RUNTIME_PROVE_STRATEGY_H
#define EZ_RUNTIME_PROVE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"

typedef enum {
    EZ_STRATEGY_EINSUM = 0,
    EZ_STRATEGY_DEEPPROVE = 1,
    EZ_STRATEGY_PER_HEAD = 2,
    EZ_STRATEGY_COUNT = 3
} ez_strategy;

/* "einsum", "deepprove", "per-head"; NULL for a value outside the enum. */
const char *ez_strategy_name(ez_strategy s);

/* The strategy named `name` (exactly one of the names above) into *out. EZ_OK or
 * EZ_ERR_INPUT. */
ez_status ez_strategy_parse(const char *name, ez_strategy *out);

/* Work of one op's reduction, counted by the prover (and predicted by
 * ez_strategy_describe). touched: elements the prover reads — every operand entry a fold
 * reads plus, per sumcheck round, the table entries it reads — padding included (a dense
 * prover reads 2^m entries per m-variable table, a padding-skipping one only the entries
 * that can be non-zero). real: the same count for the op's real (unpadded) data: the
 * operands' real entries plus, per round, the table entries that are not padding. */
typedef struct {
    uint64_t sumchecks;
    uint64_t touched;
    uint64_t real;
} ez_work;

static inline void ez_work_add(ez_work *w, uint64_t sumchecks, uint64_t touched, uint64_t real)
{
    if (w) {
        w->sumchecks += sumchecks;
        w->touched += touched;
        w->real += real;
    }
}

/* ---- what a strategy does to a plan (for `einzk info --strategy` and the bench) -------- */

typedef struct {
    bool provable;       /* the op is proven (else everything below is 0) */
    unsigned role;       /* the op's role for the strategy (runtime/prove/heads.h
                            ez_head_role; EZ_HEAD_NONE = 0: the plain contraction or not an
                            einsum) */
    unsigned out_claims; /* claims on its output when the walk reaches it (0: skipped, or
                            consumed by the group that proves it) */
    uint64_t walk_bytes; /* fan-out merge + reduction: ez_prove_stats.ops[i].bytes */
    ez_work work;        /* ez_prove_stats.ops[i].work */
    uint64_t committed;  /* committed advice entries the op owns (the same in every
                            strategy: none of them commits anything for its contractions) */
} ez_strategy_op;

typedef struct {
    ez_strategy strategy;
    size_t nops;
    ez_strategy_op *ops;
    bool provable;       /* every op */
    uint64_t walk_bytes; /* the proof's walk section */
    uint64_t committed;  /* the whole advice commitment (multiplicities included) */
    ez_work work;        /* the sum over the ops */
} ez_strategy_plan;

/* What a proof of p under strategy s does, per op, from the plan alone: the same walk
 * bytes and work the prover reports (tests/check_strategies.c compares them).
 * Returns EZ_OK, EZ_ERR_INVALID (s is not a strategy) or EZ_ERR_NOMEM; an op that is not
 * provable is marked, not an error. Clear with ez_strategy_plan_clear. */
ez_status ez_strategy_describe(ez_strategy_plan *sp, const ez_plan *p, ez_strategy s, ez_diag *d);
void ez_strategy_plan_clear(ez_strategy_plan *sp);

#endif

/* strategies — the reduction of one EINSUM op under each proving strategy
 * (runtime/prove/strategy.h; docs/comparison.md). The einsum op's prove/verify hook
 * (runtime/ops/einsum.c) picks the proof's strategy (c->strategy); each strategy is one
 * file:
 *   strategy_einsum.c     ONE sumcheck per contraction (runtime/prove/contraction.h);
 *   strategy_deepprove.c  DeepProve's stacked heads, padding matrices, zeroifier, QKV;
 *   strategy_perhead.c    zkLLM's sumchecks per head.
 * Like every op hook they run on both sides (c->prover tells them apart) and talk to the
 * proof only through runtime/prove/pctx.h. An op a strategy does not restructure (no
 * head axes) is reduced by the strategy's plain contraction prover. */
#ifndef EZ_RUNTIME_PROVE_STRATEGIES_H
#define EZ_RUNTIME_PROVE_STRATEGIES_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/prove/claim.h"
#include "runtime/prove/pctx.h"

/* Reduce the merged claim `out` on op `op`'s output (an EZ_OP_EINSUM): the prover
 * (c->prover) writes its messages to c->w, the verifier reads them from c->r; both leave
 * claims on the operands (through the operand view) and on the rescale remainder, and
 * the prover adds its work to c->work. Returns EZ_OK, EZ_ERR_REJECT (verifier; reason in
 * c->d), EZ_ERR_INVALID, EZ_ERR_NOMEM. on_acc: `out` is a claim on the accumulator
 * (the live step of runtime/prove/live.h proved the rescale and the causal mask): no
 * rescale, no zeroifier. */
ez_status ez_strategy_einsum_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc);
ez_status ez_strategy_deepprove_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc);
ez_status ez_strategy_perhead_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc);

/* The one-sumcheck contraction of runtime/prove/contraction.h for any EINSUM op: compact
 * and padding-free (dense false: the einsum strategy), or over tables padded to powers of
 * two (dense true: how the other strategies prove a contraction without head axes).
 * Same contract as above; both give the same bytes. */
ez_status ez_strategy_plain_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool dense, bool on_acc);

#endif

/* schedule — plan validation and the EqSchedule of every op (docs/protocol.md).
 *
 * Input is an op graph from compiler/lower.c (or built by hand): tensors, ops, index
 * spaces and arithmetic filled in; the EqSchedules are ignored and overwritten.
 *
 * The schedule follows the op's built-in row (compiler/builtins.h):
 *   CONTRACTION  EINSUM with 2 operands: the docs/plan.md index-class table, one sumcheck over batch +
 *                contracted variables, eq over batch, degree 3 with batch else 2, bound
 *                in operand A's layout order (nothing transposed). EINSUM with 1 operand
 *                and ADD: no sumcheck (a claim map: kept indices FREE_A, summed ones
 *                SUMMED_A fold at (1/2,..,1/2) times 2^vars, out-only ones BROADCAST).
 *                GATHER: one sumcheck over the vocabulary variables against the public
 *                one-hot matrix, degree 2, no eq.
 *   ROWCHECK     one batched zero-check / row-sum sumcheck over all variables of the
 *                input, every index BATCH (eq over all), the row's degree.
 *   POINTWISE    no sumcheck: the function table lookup is the proof.
 * What each op commits and looks up is decided by the runtime's advice layout from the
 * plan (runtime/prove/layout.h); `einzk info` prints both. */
#ifndef EZ_COMPILER_SCHEDULE_H
#define EZ_COMPILER_SCHEDULE_H

#include "compiler/plan.h"
#include "lib/util.h"

/* Classify the indices of one op and fill its EqSchedule (cls, nvars, eq_vars, degree,
 * bind order) per the table above.
 * In:  p — the plan (tensor ranks are read for the operands); op — one of p's ops, its
 *      index space and axes valid (ez_plan_validate_graph holds).
 * Out: *out — the schedule.
 * Returns EZ_OK, or EZ_ERR_INVALID with d set when the op's shape is unsupported (e.g.
 *      an EINSUM with 3 operands, or more than 48 sumcheck variables). O(nidx). */
ez_status ez_plan_classify(const ez_plan *p, const ez_plan_op *op, ez_eq_schedule *out, ez_diag *d);

/* Where op i MAY carry the live mark (ez_eq_schedule.live; what a plan's validation
 * accepts besides 0): 1 + the index of the causally masked SOFTMAX that is the only reader
 * of op i's output, when op i is an EINSUM with a rescale (shift > 0) whose output is not
 * a model output and that softmax reads it whole (operand 0, no fixed axis); else 0.
 * O(ops x operands). */
unsigned ez_plan_live_eligible(const ez_plan *p, size_t i);

/* The softmax row length from which the compiler marks an eligible op. Below it the
 * support's per-piece range columns (one LogUp tree each) cost more proof bytes and
 * lookup time than the masked half saves: measured on GPT-2 at 64 tokens (+37 KB) and
 * nanoGPT at 64 (+5 KB, lookups +0.05 s), while at 512 the advice shrinks by 5 %. */
#define EZ_PLAN_LIVE_MIN_ROW 256u

/* The live mark the compiler sets on op i: ez_plan_live_eligible when the softmax's row
 * (its reduced axis) has at least EZ_PLAN_LIVE_MIN_ROW entries, else 0. */
unsigned ez_plan_live_mark(const ez_plan *p, size_t i);

/* Fill the EqSchedule of every op.
 * In/out: p, a structurally valid graph (ez_plan_validate_graph). Idempotent.
 * Returns EZ_OK, or EZ_ERR_INVALID with d naming the op. O(total index count). */
ez_status ez_plan_schedule(ez_plan *p, ez_diag *d);

/* Structural validation of the op graph (everything ez_plan_schedule and the runtime
 * rely on): ranks <= EZ_MAX_RANK, dims > 0 and numel <= 2^40, names non-empty, NUL
 * terminated and unique, enum values valid, index ids < nidx, index sizes equal to the
 * axes they label, tensor ids in range, every ACT tensor produced by exactly the op
 * that names it, producers before consumers, operand counts per kind.
 * Returns EZ_OK or EZ_ERR_FORMAT with d giving the reason. O(size of the plan). */
ez_status ez_plan_validate_graph(const ez_plan *p, ez_diag *d);

/* ez_plan_validate_graph plus the EqSchedules: each equal to what ez_plan_classify
 * derives from the op (classes, bind order, nvars, eq_vars, degree).
 * Returns EZ_OK or EZ_ERR_FORMAT with d giving the reason. */
ez_status ez_plan_validate(const ez_plan *p, ez_diag *d);

#endif

/* schedule — the proving plan of every op: EqSchedules, lookups, committed advice and
 * size estimates (DESIGN.md §3; the exact recipes and counts are in docs/plan.md).
 *
 * Input is an op graph from compiler/lower.c (or built by hand): tensors, ops, index
 * spaces and arithmetic filled in, the proving fields (sched, lookups, advice, estimates,
 * totals) ignored and overwritten.
 *
 * Per op kind the schedule is:
 *   EINSUM, 2 operands  the DESIGN §3 table: one sumcheck over batch + contracted
 *                       variables, eq over batch, degree 3 with batch else 2; bound in
 *                       operand A's layout order (nothing transposed).
 *   EINSUM, 1 operand   no sumcheck (a claim map: kept indices are FREE_A, summed ones
 *   ADD                 SUMMED_A and fold at (1/2,..,1/2) times 2^vars, out-only ones
 *                       BROADCAST); nvars = degree = 0.
 *   GATHER              one sumcheck over the vocabulary variables against the public
 *                       one-hot matrix, degree 2, no eq.
 *   CAUSAL, SOFTMAX, MAX, ARGMAX, LAYERNORM, RMSNORM, UNARY relu
 *                       one batched zero-check / row-sum sumcheck over all variables of
 *                       the input, every index BATCH (eq over all), degree 3 (4 where an
 *                       is-zero gadget multiplies d * d * w).
 *   UNARY (table)       no sumcheck: the function table lookup is the proof.
 * A fused rescale (shift > 0) commits the remainder and range-checks it to [0, 2^shift)
 * and the quotient to the output's width, in 16-bit limbs (DESIGN §3). */
#ifndef EZ_COMPILER_SCHEDULE_H
#define EZ_COMPILER_SCHEDULE_H

#include "compiler/plan.h"
#include "lib/util.h"

/* Rows of every lookup table (range [0, 2^16) and function tables). */
#define EZ_PLAN_TABLE_ROWS (UINT64_C(1) << 16)
/* Columns a Ligero opening reveals in the estimate (rate 1/4, >= 100 bits; docs/plan.md). */
#define EZ_PLAN_PCS_QUERIES 148

/* ceil(log2 n); 0 for n <= 1. */
unsigned ez_plan_log2_ceil(uint64_t n);

/* Classify the indices of one op and fill its EqSchedule (cls, nvars, eq_vars, degree,
 * bind order) per the table above; lookups and advice are not touched.
 * In:  p — the plan (tensor ranks are read for the operands); op — one of p's ops, its
 *      index space and axes valid (ez_plan_validate_graph holds).
 * Out: *out — the schedule.
 * Returns EZ_OK, or EZ_ERR_INVALID with d set when the op's shape is unsupported (e.g.
 *      an EINSUM with 3 operands, or more than 48 sumcheck variables). O(nidx). */
ez_status ez_plan_classify(const ez_plan *p, const ez_plan_op *op, ez_eq_schedule *out, ez_diag *d);

/* Fill the proving plan of every op (sched, lookups, advice_elems, est_proof_bytes) and
 * the totals (total_advice_elems incl. lookup multiplicities, est_proof_bytes incl.
 * lookup GKR trees and PCS openings, est_prover_mem_bytes).
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

/* ez_plan_validate_graph plus the proving fields: classes, bind orders (distinct,
 * < nidx, exactly the sumcheck indices), nvars/eq_vars consistent with the index sizes,
 * lookup table and func values valid, counts within the tensor sizes.
 * Returns EZ_OK or EZ_ERR_FORMAT with d giving the reason. */
ez_status ez_plan_validate(const ez_plan *p, ez_diag *d);

#endif

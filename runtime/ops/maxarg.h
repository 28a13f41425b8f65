/* maxarg — the row-max argument MAX and ARGMAX share (docs/protocol-argmax.md): one op
 * definition, ez_op_maxarg, for both kinds; every hook switches on the op kind, so the
 * two reductions cannot drift apart:
 *
 *   MAX     m = max_t x, proven by d = m - x >= 0 on every entry (limbs) AND attainment
 *           (a mark z on entries with d = 0 summing to 1 per row);
 *   ARGMAX  a = the lowest t with x_t = max, proven by the same two obligations on the
 *           lexicographic key d = 2^k (m - x) + t - a >= 0 (k = max(nt, 1), T <= 2^k),
 *           which is exactly "x_t <= m everywhere and x_t < m before a", with m and a
 *           range-checked per row so that the attaining entry pins both; a public
 *           result (a model output) is read from the statement instead, its mark being
 *           its one-hot, which the verifier evaluates itself.
 * Internal to runtime/ops and its tests. */
#ifndef EZ_RUNTIME_OPS_MAXARG_H
#define EZ_RUNTIME_OPS_MAXARG_H

#include "runtime/ops/op.h"

/* Testing only (tests/check_ops_max.c): the prover of ez_op_maxarg's reduction with forge(ctx,
 * which, tables, ntables, len) called on the factor tables of a zero-check right before its
 * sumcheck — which = 0: the main one (S, A1, Z, L2), 1: the padding rows' (1 - R, W); len
 * entries each — so that a test builds a prover that lies in ONE factor and keeps the
 * transcript consistent, and shows the verifier's check of that factor is needed. */
typedef void (*ez_maxarg_forge)(void *ctx, unsigned which, ez_fe *const *tables, unsigned ntables, uint64_t len);
ez_status ez_maxarg_prove_forged(ez_pctx *c, size_t op, const ez_claim *out, ez_maxarg_forge forge, void *ctx);

#endif

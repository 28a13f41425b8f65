/* contract — the contraction engine: out = floor(mul * sum_{summed} prod_k in_k / 2^shift)
 * for one or two operands with every index class of docs/protocol.md (docs/semantics.md
 * "einsum"). EINSUM's op file (runtime/ops/einsum.c) calls it; it lives beside the matrix
 * kernels it drives (runtime/exec/exec_gemm.h). */
#ifndef EZ_RUNTIME_EXEC_CONTRACT_H
#define EZ_RUNTIME_EXEC_CONTRACT_H

#include "runtime/exec/exec_op.h"
#include "runtime/exec/floatref.h"

/* Integers: fills c->tr->t[out] and the REM aux array (shift > 0). The accumulator is
 * bounded before anything runs (max|A| * max|B| * terms * |mul| < 2^62, EZ_ERR_NUMERIC
 * otherwise); the kernel (int16 VNNI, exact double, int64) is chosen from the operands'
 * actual maxima, so the result is the same integer whichever ran, for any thread count. */
ez_status ez_exec_contract(ez_exec_ctx *c);

/* Double: out = mul * 2^(operand scales - shift - out scale) * sum prod in_k, on the
 * float reference's real values (the packed double kernel). EZ_ERR_NOMEM. */
ez_status ez_floatref_contract(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d);

#endif

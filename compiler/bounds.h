/* bounds — exact worst-case value bounds with GMP mpz (docs/language.md; the rescale: docs/protocol-einsum.md).
 *
 * Every value of the model is an integer; the proof is about the integers only if no
 * value ever wraps modulo p. The field's safe range is |v| < 2^62 (EZ_BOUND_LIMIT_BITS).
 * Bounds are propagated in statement order from the declared widths:
 *   input/weight            2^(bits-1)
 *   PRODUCT accumulator     |mul| * prod_k bound(in_k) * prod_{summed i} size(i)
 *   ADD accumulator         sum_k |coef_k| * bound(in_k)
 *   after a rescale (shift > 0, value range-checked to bits):
 *                           min(2^(bits-1), ceil(accumulator / 2^shift))
 *   GATHER                  the table's bound
 *   relu/gelu/silu/max/causal   the operand's bound moved to the output scale
 *   sigmoid 2^s, tanh 2^s, softmax 2^s (s = output scale), argmax n-1 (n = axis size),
 *   layernorm/rmsnorm ceil(sqrt(n) * 2^s), exp/rsqrt the table's largest output
 *   (clamped to the width); every function output is also at most 2^(bits-1).
 * A bound >= 2^62 anywhere (also before a rescale) is an error naming the statement,
 * the bound (as a power of two) and a fix. */
#ifndef EZ_COMPILER_BOUNDS_H
#define EZ_COMPILER_BOUNDS_H

#include <gmp.h>

#include "compiler/builtins.h"
#include "compiler/diag.h"
#include "compiler/sema.h"

#define EZ_BOUND_LIMIT_BITS 62

/* Fill raw_bound/bound of every node and the bound of every tensor of p, in order.
 * In: p fully built by sema except bounds (declared tensors' bounds are set here too).
 * Out: p's bounds; one diagnostic per statement that overflows (then EZ_ERR_SOURCE; the
 * remaining statements are still analysed with the overflowing bound clamped so that
 * later messages are not cascades). Cost: O(nodes) mpz operations. */
ez_status ez_bounds_compute(ez_program *p, ez_diag_list *diags);

/* Bound of one node from its operands' bounds (which must be set). st gives the index
 * sizes. Exposed for tests. */
void ez_bounds_node(const ez_program *p, const ez_stmt *st, ez_node *n);


#endif

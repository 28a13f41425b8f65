/* recheck — the plan's derived numbers re-derived from what a plan declares (docs/protocol.md
 * soundness checklist, item 6: the verifier trusts nothing it can recompute).
 *
 * A plan declares shapes, widths, scales and op parameters; the compiler DERIVED from them
 * every tensor's exact worst-case bound, the token limits and which sums are range-checked
 * to their width. A verifier that took those from a vk would let a hand-edited plan
 * claim a smaller bound (so a relation that can wrap the field looks safe) or a missing
 * range check. ez_plan_recheck runs the compiler's own bound rules (compiler/builtins.h)
 * over the plan in order and requires every stored value to be the one derived. */
#ifndef EZ_COMPILER_RECHECK_H
#define EZ_COMPILER_RECHECK_H

#include "compiler/plan.h"
#include "lib/util.h"

/* In:  p — a structurally valid plan (ez_plan_validate_graph holds).
 * Checks: every INPUT/WEIGHT bound is 2^(bits-1); every TOKENS bound is token_limit - 1;
 *      every computed tensor's bound is the one its producer's bound rule gives from its
 *      operands' bounds, and below 2^62, as is the op's accumulator (the field's safe
 *      range, compiler/bounds.h); a sum without a rescale is marked `checked` exactly when
 *      its accumulator's bound exceeds its width.
 * Returns EZ_OK, or EZ_ERR_FORMAT with d naming the tensor or op and both values. O(plan)
 * mpz operations. */
ez_status ez_plan_recheck(const ez_plan *p, ez_diag *d);

/* The same derivation WRITTEN into p (bounds of every tensor, `checked` of every sum
 * without a rescale): for plans built by hand (tests, tools). Returns EZ_OK, or
 * EZ_ERR_FORMAT when a value would leave the field's safe range 2^62. */
ez_status ez_plan_rederive(ez_plan *p, ez_diag *d);

#endif

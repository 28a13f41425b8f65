/* margins — the field margin of every integer relation the protocol proves (docs/protocol.md
 * soundness checklist, item 5; docs/protocol.md §7).
 *
 * The proof checks relations such as a rescale acc = 2^k q + r in F_p, and the integer
 * semantics need them over Z. Each is a linear form sum_i c_i x_i = 0 whose variables
 * are integers proven (by range checks, by the bound analysis, or by construction) to
 * lie in [lo_i, hi_i]. If every value the form can take on that box lies strictly
 * between -p and p, then a solution mod p is a solution over Z, and the witness the
 * verifier accepts is the integer one. ONE function decides this for every relation
 * (ez_rel_end); every op states its relations in its `relations` hook
 * (runtime/ops/op.h) through the builder below, and the framework adds its own (limb
 * decompositions, tensor range checks, lookup multiplicities). The compiler refuses a
 * plan that fails (`einzk compile`, exit 3) and the verifier runs the same check on the
 * vk's plan and rejects.
 *
 * Example — the forgery this prevents: a rescale with k = 16 and a 50-bit quotient has
 * 2^k q + r ranging over 2^66 > p values, so (q + (p-1)/2^k, r + 1) satisfies the same
 * congruence as (q, r) with both in range: a different claimed output verifies. */
#ifndef EZ_RUNTIME_PROVE_MARGINS_H
#define EZ_RUNTIME_PROVE_MARGINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/prove/advice.h"

typedef __int128 ez_i128;

#define EZ_REL_MAX_TERMS 12

/* The sink the relations are stated into. Opaque to the ops. */
typedef struct ez_margins ez_margins;

/* Start relation `what` (e.g. "acc = 2^16 q + r") of op `op` (SIZE_MAX: the framework,
 * e.g. the weights' range checks). */
void ez_rel_begin(ez_margins *m, size_t op, const char *what);
/* Add the term mul * 2^e * x with x an integer in [lo, hi] (lo <= hi); e <= 126. */
void ez_rel_term(ez_margins *m, const char *name, int64_t mul, unsigned e, ez_i128 lo, ez_i128 hi);
/* Finish the relation: record a failure (the first one is reported) when the form can
 * reach -p or p. */
void ez_rel_end(ez_margins *m);

/* Shared relations. */
/* The fused rescale of op `op` by 2^shift: acc = 2^shift q + r, q in the output's signed
 * width, r in [0, 2^shift), acc within the accumulator's bound (compiler/builtins.h). */
void ez_rel_rescale(ez_margins *m, const ez_plan *p, size_t op, unsigned shift);
/* A value of [0, 2^bits) = the sum of its nlimbs 16-bit limbs (the last one the rest of
 * the width), stated as relation `what` of op `op`. */
void ez_rel_limbs(ez_margins *m, size_t op, const char *what, unsigned bits, unsigned nlimbs);
/* [0, 2^bits) and the signed width [-2^(bits-1), 2^(bits-1)) as ranges. */
void ez_rel_unsigned(unsigned bits, ez_i128 *lo, ez_i128 *hi);
void ez_rel_signed(unsigned bits, ez_i128 *lo, ez_i128 *hi);

/* Check every relation of plan p with layout L (each op's `relations` hook, then the
 * framework's: every committed value's limb decomposition, every range-checked tensor,
 * every table's multiplicities).
 * Out: on failure d names the op (its label, kind and source line), the relation and
 *      the magnitude it can reach against p; *bad_op the op (SIZE_MAX: the framework).
 * Returns EZ_OK, EZ_ERR_NUMERIC (a relation can wrap), EZ_ERR_NOMEM. O(plan). */
ez_status ez_margins_check(const ez_plan *p, const ez_advice_layout *L, size_t *bad_op, ez_diag *d);

/* The soundness conditions of a plan from the plan alone: its bounds and range-check flags
 * re-derived (compiler/recheck.h), then the margins of every relation of every provable
 * op and of the framework (ez_margins_check on the layout of the provable ops). The
 * compiler refuses a plan that fails; the verifier rejects a vk whose plan fails.
 * Returns EZ_OK; EZ_ERR_FORMAT (a stored bound or flag differs from the derived one);
 * EZ_ERR_NUMERIC (a relation can wrap: *bad_op the op, SIZE_MAX for the framework);
 * EZ_ERR_NOMEM. d gives the reason. */
ez_status ez_plan_soundness(const ez_plan *p, size_t *bad_op, ez_diag *d);

/* For a plan whose op `op` fails its margins: the widest width of that op's output with
 * which every relation holds (the plan's other fields unchanged; the bounds of the
 * output recomputed), or 0 if none from 2 up does. For compiler messages. */
unsigned ez_margins_widest_width(const ez_plan *p, size_t op);

#endif

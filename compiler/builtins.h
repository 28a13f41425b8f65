/* builtins — the compiler's side of every operator: ONE table row per op (the way jq's
 * src/builtin.c holds a built-in as one function and one row of function_list[]).
 *
 * A row says everything the compiler needs to know about an op, so that sema, bounds,
 * lower and schedule read it instead of switching on the op kind:
 *   name          the built-in as written in a .ein file (NULL for ops written as syntax:
 *                 a product is EINSUM, `+`/`-` is ADD, `table[tok[s], d]` is GATHER);
 *   arity         operand counts;
 *   axis rule     how many axis arguments (`softmax[t]` one, `causal[s, t]` two) and
 *                 whether the result drops the axis (max, argmax);
 *   scale rule    the result's scale and width: the operand's, the statement's target,
 *                 or an integer position (argmax);
 *   bound rule    the exact worst-case |value| of the result from its operands' bounds
 *                 (GMP, compiler/bounds.h) — the same function the verifier re-runs on a
 *                 vk's plan, so a bound written into a plan is never trusted;
 *   schedule      how the op's EqSchedule is classified (a contraction, a row check with
 *                 every index batch, or a pointwise claim map) and its sumcheck degree;
 *   provable      whether the runtime can prove it (runtime/ops/ holds the other half of
 *                 the op: one file with its exec, layout, prove, verify, float reference);
 *   keeps_zero, rescales, check   what the plan checks (schedule) and the causality
 *                 analysis need beyond the rules above: f(0) = 0, a fused rescale, the op's
 *                 own rules on a plan.
 * Adding an operator: docs/architecture.md "Adding an operator". */
#ifndef EZ_COMPILER_BUILTINS_H
#define EZ_COMPILER_BUILTINS_H

#include <gmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler/plan.h"

/* Scale and width of an op's result. */
typedef enum {
    EZ_SCALE_OPERAND = 0, /* the operand's scale and width (causal, max, relu) */
    EZ_SCALE_TARGET,      /* the statement's target scale and width */
    EZ_SCALE_INDEX        /* an integer position along the axis: scale 0, the width of axis - 1 */
} ez_scale_rule;

/* How the compiler classifies the op's indices into an EqSchedule (compiler/schedule.h). */
typedef enum {
    EZ_SCHED_CONTRACTION = 0, /* docs/plan.md index classes: batch/contracted/free/summed/broadcast */
    EZ_SCHED_ROWCHECK,        /* one batched zero-check over every input variable: all batch */
    EZ_SCHED_POINTWISE        /* no sumcheck: the lookup is the proof, claims map pointwise */
} ez_sched_rule;

/* The inputs of a bound rule. Everything is exact; in_bound[k] is operand k's bound. */
typedef struct {
    unsigned nin;
    mpz_srcptr in_bound[EZ_MAX_OPERANDS];
    unsigned in_scale[EZ_MAX_OPERANDS];
    unsigned out_scale, out_bits;
    ez_func func;
    uint64_t axis_len;    /* the reduced or normalised axis' extent (1 if none) */
    int64_t mul;          /* EINSUM: constant multiplier */
    int64_t coef[EZ_MAX_OPERANDS]; /* ADD: coefficients */
    uint64_t summed;      /* EINSUM: product of the extents summed over (1 if none) */
    unsigned shift;       /* EINSUM/ADD: fused rescale */
} ez_bound_args;

/* raw: the largest intermediate the op computes (a contraction's accumulator before its
 * rescale, softmax's row sum, a norm's sum of squares); bound: the result's |value|. */
typedef void (*ez_bound_fn)(const ez_bound_args *a, mpz_t raw, mpz_t bound);

typedef struct ez_builtin {
    ez_op_kind kind;
    const char *name;        /* language name; NULL for syntax ops */
    ez_func func;            /* EZ_OP_FUNC: the function; EZ_FN_NONE otherwise */
    unsigned min_in, max_in; /* operand counts */
    unsigned naxes;          /* axis arguments: 0, 1 (along an index), 2 (causal[i, j]) */
    bool drops_axis;         /* the result lacks the axis (max, argmax) */
    bool fuses_causal;       /* softmax[t](causal[s, t](e)) becomes one masked op */
    ez_scale_rule scale;
    unsigned max_in_scale, max_out_scale; /* limits of the integer semantics */
    ez_bound_fn bound;
    ez_sched_rule sched;
    unsigned degree;         /* ROWCHECK: its zero-check degree (for the EqSchedule) */
    bool provable;
    const char *summary;     /* one line for messages and `einzk help` */
    bool keeps_zero;         /* f(0) = 0 elementwise: a causally masked operand stays masked */
    bool rescales;           /* may carry a fused rescale (op->shift > 0) */
    /* The op's own rules on an (untrusted) plan beyond what the row says, after the
     * generic checks of its shape, axes and scales (compiler/schedule.c); NULL: none.
     * i is the op's index, for messages. */
    ez_status (*check)(const ez_plan_op *op, size_t i, ez_diag *d);
} ez_builtin;

/* The row of a language built-in by name, or NULL. */
const ez_builtin *ez_builtin_by_name(const char *name);

/* The row of an op kind (and function, for EZ_OP_FUNC), or NULL for an invalid pair. */
const ez_builtin *ez_builtin_of(ez_op_kind kind, ez_func func);

/* The rows in table order (n gets the count); language names are those with name != NULL. */
const ez_builtin *ez_builtin_table(size_t *n);

/* "softmax[i], causal[i, j], ..." — every language built-in, for help messages. */
const char *ez_builtin_list(void);

/* The bound rule of op `op` of plan p given its operands' bounds (in_bound[k] for
 * operand k). Reads the row of the op's kind. Deterministic; no allocation beyond mpz. */
void ez_builtin_op_bound(const ez_plan *p, const ez_plan_op *op, mpz_srcptr const *in_bound, mpz_t raw,
                         mpz_t bound);

/* True iff some v with |v| <= b falls outside the signed width [-2^(bits-1), 2^(bits-1)):
 * a sum with such a bound is range-checked to its width (a residual stream). */
bool ez_bound_exceeds_width(mpz_srcptr b, unsigned bits);

/* log2 of a positive bound (0 for a bound of 0 or 1), for messages: "2^71.3". */
double ez_bound_log2(mpz_srcptr b);

/* Bound helpers shared with compiler/bounds.c. */
void ez_bound_clamp_width(mpz_t r, unsigned bits);            /* r = min(r, 2^(bits-1)) */
void ez_bound_move_scale(mpz_t r, mpz_srcptr b, unsigned from, unsigned to); /* ceil(b 2^(to-from)) + 1 */

#endif

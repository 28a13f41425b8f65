/* plan — the compiled model: the op-graph IR plus, per op, the proving plan
 * (docs/architecture.md data flow; docs/protocol-einsum.md).
 *
 * This header is the ONLY compiler header the runtime includes: it is plain data with
 * no reference to the AST. The compiler fills it (compiler/lower.c, compiler/plan.c),
 * compiler/einc.c writes and reads it, the runtime executes and proves it.
 *
 * Conventions
 * - Tensors and ops are referred to by index into ez_plan.tensors / ez_plan.ops.
 *   Ops are in topological (source) order; an op's inputs are produced earlier.
 * - Every op works over an index space: nidx named indices with sizes. Each operand
 *   axis and each output axis names one index of that space. This is the einsum
 *   description, and it is also used by the non-contraction ops (softmax over index
 *   `axis`, elementwise functions with all indices batch, ...).
 * - Values are fixed-point integers: a tensor with scale s holds round(real * 2^s).
 *   Every tensor's values lie in [-bound, bound] (exact worst case from the compiler's
 *   GMP analysis, bound < 2^62) and computed tensors are proven to fit `bits` signed
 *   bits where they are range-checked (after every rescale; docs/language.md).
 */
#ifndef EZ_COMPILER_PLAN_H
#define EZ_COMPILER_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

#define EZ_MAX_RANK 8      /* axes per tensor */
#define EZ_MAX_IDX 16      /* indices per op */
#define EZ_MAX_OPERANDS 8  /* operands per op (ADD may have several terms) */
#define EZ_MAX_NAME 64     /* identifier length, including the NUL */

typedef enum {
    EZ_TENSOR_INPUT = 0,  /* public float input, quantized at its scale by the runtime */
    EZ_TENSOR_TOKENS = 1, /* public integer input (token ids) in [0, token_limit) */
    EZ_TENSOR_WEIGHT = 2, /* committed at setup (vk) */
    EZ_TENSOR_ACT = 3     /* computed by exactly one op */
} ez_tensor_kind;

typedef struct {
    char name[EZ_MAX_NAME];   /* unique: a shadowing redefinition of x is "x'1", "x'2", ... */
    char source_name[EZ_MAX_NAME]; /* the name as written in the .ein file */
    ez_tensor_kind kind;
    unsigned rank;
    uint64_t dims[EZ_MAX_RANK];
    unsigned scale;           /* fraction bits */
    unsigned bits;            /* signed width: values in [-2^(bits-1), 2^(bits-1)) */
    uint64_t bound;           /* exact worst case |v| <= bound (for ACT, of the stored value) */
    int64_t token_limit;      /* TOKENS only: the vocabulary size */
    bool is_output;           /* declared with `output` (the final definition of that name) */
    int producer;             /* ACT: index of the op that computes it; -1 otherwise */
} ez_plan_tensor;

typedef enum {
    /* out = floor(mul * sum_{summed idx} prod_operands in_k[...] / 2^shift).
     * 1 or 2 operands (the compiler splits longer products into pairwise contractions).
     * One operand covers reductions, constant scaling and transposes. */
    EZ_OP_EINSUM = 0,
    /* out = floor(sum_k coef[k] * in_k[proj_k(idx)] / 2^shift): +/- with broadcasting by
     * index name. coef aligns scales exactly (+-2^d). */
    EZ_OP_ADD = 1,
    /* out[.., i, .., j, ..] = in if j <= i else 0 (mask_row = i, mask_col = j). */
    EZ_OP_CAUSAL = 2,
    /* softmax over index `axis`, optionally causal-masked (masked entries get exactly 0),
     * input at in_scale, output at out_scale; integer semantics in docs/semantics.md. */
    EZ_OP_SOFTMAX = 3,
    EZ_OP_MAX = 4,       /* max over `axis` */
    EZ_OP_ARGMAX = 5,    /* index of the max over `axis` (ties -> lowest index), scale 0 */
    EZ_OP_LAYERNORM = 6, /* (x - mean) / sqrt(var + eps) over `axis`, no gain/bias */
    EZ_OP_RMSNORM = 7,   /* x / sqrt(mean(x^2) + eps) over `axis` */
    EZ_OP_FUNC = 8,      /* elementwise function `func` by a table lookup (gelu, silu, ...) */
    /* out[.., s, .., d, ..] = in[0][tokens[s], d...]: in[0] the table (weight), in[1] the
     * token tensor; in_axes[0][0] names the vocabulary index ("#<tokens>", size = the
     * table's rows, contracted against the public one-hot matrix), the rest name indices. */
    EZ_OP_GATHER = 9,
    EZ_OP_RELU = 10,     /* max(x, 0), exactly */
    EZ_OP_RSQRT = 11,    /* 1/sqrt(x) by a mantissa/exponent split and a table (0 for x <= 0) */
    /* rotary position embedding (Llama's rotate-half, base 10000): position index mask_row,
     * rotary index mask_col (even extent E); out = floor((x C -+ x' S) / 2^shift) with x'
     * the partner at e +- E/2 and C, S the public cos/sin at EZ_ROPE_SCALE
     * (docs/semantics.md "RoPE"); shift = in_scale + EZ_ROPE_SCALE - out_scale >= 1. */
    EZ_OP_ROPE = 12,
    EZ_OP_LAST = EZ_OP_ROPE
} ez_op_kind;

/* Fraction bits of RoPE's cos/sin coefficients, and the rotation base. */
#define EZ_ROPE_SCALE 16
#define EZ_ROPE_BASE 10000.0

/* Functions of EZ_OP_FUNC (RELU and RSQRT name the tables of their own op kinds). */
typedef enum {
    EZ_FN_NONE = 0,
    EZ_FN_RELU, EZ_FN_GELU, EZ_FN_SILU, EZ_FN_SIGMOID, EZ_FN_TANH, EZ_FN_EXP, EZ_FN_RSQRT,
    EZ_FN_GELU_TANH, /* GPT-2's tanh approximation of GELU */
    EZ_FN_LAST = EZ_FN_GELU_TANH
} ez_func;

/* How each index of an einsum relates to operands A (in[0]), B (in[1]) and the output
 * (docs/plan.md index-class table). One-operand ops use only BATCH-like (in A and out -> FREE_A... see
 * ez_plan_classify) classes. */
typedef enum {
    EZ_IDX_BATCH = 0,      /* in A, in B, in out: sumcheck vars with an eq factor */
    EZ_IDX_CONTRACTED = 1, /* in A, in B, not out: sumcheck vars, no eq */
    EZ_IDX_FREE_A = 2,     /* in A only and out: folded into A with eq(r, i) */
    EZ_IDX_FREE_B = 3,     /* in B only and out: folded into B */
    EZ_IDX_SUMMED_A = 4,   /* in A only, not out: folded with all-ones */
    EZ_IDX_SUMMED_B = 5,   /* in B only, not out */
    EZ_IDX_BROADCAST = 6   /* in out only: closed-form factor sum_j eq(r, j) over real extent */
} ez_idx_class;

/* The EqSchedule of one contraction (docs/protocol.md): which sumcheck variables carry the eq
 * factor, the order in which indices are bound (matching the memory layout so nothing
 * is transposed), the degree and where the operand claims land. */
typedef struct {
    ez_idx_class cls[EZ_MAX_IDX];
    unsigned nvars;               /* sumcheck variables: sum of ceil(log2 size) over batch + contracted */
    unsigned eq_vars;             /* of those, variables with an eq factor (batch) */
    unsigned degree;              /* 3 with a batch index, else 2; 0 when nvars == 0 (no
                                     sumcheck: one-operand einsums and ADD are claim maps,
                                     summed indices fold at (1/2,..)); other kinds: schedule.h */
    unsigned nbind;               /* number of indices in bind_order */
    unsigned bind_order[EZ_MAX_IDX]; /* indices (batch + contracted), bound first to last;
                                        within an index, its variables MSB first */
    unsigned live;                /* EINSUM with a rescale whose output's ONLY reader is a
                                     causally masked SOFTMAX (op live - 1, reading the whole
                                     tensor as its input): the output is proven, committed and
                                     range-checked on that softmax's live support only
                                     (docs/protocol-einsum.md "On the causal support"); 0:
                                     the whole cube. Decided by ez_plan_schedule; a plan may
                                     leave it 0 (then the whole cube, as before .einc 2.1) */
} ez_eq_schedule;

typedef struct {
    ez_op_kind kind;
    char label[EZ_MAX_NAME];  /* the output tensor's name, for tables and messages */
    char equation[256];       /* human-readable, e.g. "a[h,s,t] = q[s,h,e] * k[t,h,e] / 8" */
    unsigned line;            /* source line of the statement */

    unsigned out;             /* tensor index */
    unsigned nin;
    unsigned in[EZ_MAX_OPERANDS];

    /* index space */
    unsigned nidx;
    char idx_name[EZ_MAX_IDX][EZ_MAX_NAME];
    uint64_t idx_size[EZ_MAX_IDX];
    unsigned in_axes[EZ_MAX_OPERANDS][EZ_MAX_RANK]; /* operand k, axis a -> index id */
    unsigned out_axes[EZ_MAX_RANK];                  /* output axis a -> index id */
    /* Operand axes fixed at one position (a layer slice left by `for` unrolling, e.g.
     * wq[2, d, h, e] or x'3 = h[l=2...]): bit a of in_fixed[k] set means axis a of
     * operand k is fixed at in_pos[k][a] (< its size) and in_axes[k][a] is unused (0).
     * Its claim lands on the whole tensor with that axis block set to the position's
     * bits. (added by compiler/lower.c) */
    uint8_t in_fixed[EZ_MAX_OPERANDS];
    uint64_t in_pos[EZ_MAX_OPERANDS][EZ_MAX_RANK];

    /* arithmetic */
    int64_t mul;              /* EINSUM: integer constant multiplier (1 if none) */
    int64_t coef[EZ_MAX_OPERANDS]; /* ADD: per-term integer coefficient */
    unsigned shift;           /* fused rescale: floor division by 2^shift (0 = none);
                                 EINSUM, ADD and ROPE only */
    bool checked;             /* ADD without a shift: the sum is range-checked to its width
                                 because its bound exceeds it (a residual stream); decided by
                                 the compiler, re-derived by the verifier. A rescaled result
                                 (shift > 0) is always range-checked: ez_plan_op_width_checked */

    /* reductions and functions */
    unsigned axis;            /* SOFTMAX/MAX/ARGMAX/LAYERNORM/RMSNORM: index id reduced */
    bool masked;              /* SOFTMAX: causal mask present */
    unsigned mask_row, mask_col; /* CAUSAL/SOFTMAX: index ids i, j; masked where j > i.
                                    ROPE: the position index and the rotary index */
    ez_func func;             /* FUNC */
    unsigned in_scale, out_scale;

    /* the EqSchedule (filled by ez_plan_schedule) */
    ez_eq_schedule sched;
} ez_plan_op;

typedef struct {
    char model[EZ_MAX_NAME];
    uint8_t digest[32];       /* SHA-256 of the canonical plan encoding (compiler/einc.c) */
    size_t ntensors, nops;
    ez_plan_tensor *tensors;
    ez_plan_op *ops;
} ez_plan;

/* True iff the op's result is range-checked to its tensor's width: every rescale
 * (docs/protocol.md: both the remainder and the quotient), and a sum marked `checked`. */
static inline bool ez_plan_op_width_checked(const ez_plan_op *op)
{
    return op->shift > 0 || op->checked;
}

/* Where each index's variables sit in a point over a tensor whose axes are labelled
 * axes[0..rank) (a claim point on an op's output or operand: one block per axis in axis
 * order, ceil(log2 size) variables each, most significant first — the project's MLE
 * convention). The one place this is computed; every op reads it. */
typedef struct {
    unsigned nvars;              /* variables of the whole point */
    bool has[EZ_MAX_IDX];        /* the index labels an axis */
    unsigned off[EZ_MAX_IDX];    /* its block's first variable */
    unsigned nv[EZ_MAX_IDX];     /* its block's length: ceil(log2 idx_size) */
} ez_point_blocks;

void ez_plan_point_blocks(ez_point_blocks *b, const ez_plan_op *op, const unsigned *axes, unsigned rank);

void ez_plan_init(ez_plan *p);
void ez_plan_clear(ez_plan *p);

/* Number of elements of a tensor (product of dims; 1 for rank 0). */
/* Does tensor t hold integer ids rather than fixed-point reals: the token input, or an
 * argmax's indices? (Written as JSON integers; an output file is an input file.) */
bool ez_plan_tensor_is_index(const ez_plan *p, size_t t);

uint64_t ez_plan_tensor_numel(const ez_plan_tensor *t);

const char *ez_op_kind_name(ez_op_kind k);
const char *ez_func_name(ez_func f);
const char *ez_idx_class_name(ez_idx_class c);
const char *ez_tensor_kind_name(ez_tensor_kind k);

/* Find a tensor by unique name; -1 if absent. */
int ez_plan_find_tensor(const ez_plan *p, const char *name);

#endif

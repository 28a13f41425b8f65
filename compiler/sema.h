/* sema — the checked program: what the front end guarantees to the back end
 * (docs/architecture.md; the language: docs/language.md). compiler/lower.c lowers it to the plan.
 *
 * ez_compile_front parses a .ein file, resolves every name, substitutes params (with
 * -D overrides), unrolls `for` loops, resolves every index to a size, applies the
 * summation rules of §2, decides scales and rescale shifts, splits products of three or
 * more tensors into pairwise contractions (cheapest order) and computes the exact GMP
 * bound of every value (compiler/bounds.h). The result is a flat list of statements,
 * each an expression tree whose nodes map one-to-one onto plan ops.
 *
 * GUARANTEES of a program returned with EZ_OK (the back end may rely on all of them):
 *  - Params are gone: every size is a positive uint64_t. Loops are gone: stmts[] is the
 *    unrolled sequence in execution order; `for l in 0..L` produced L copies with l
 *    substituted (stmt->iter says which).
 *  - tensors[] holds every declared input/weight and every DEFINITION VERSION of a
 *    computed tensor: `h = ...` defined three times gives tensors "h", "h'1", "h'2"
 *    (name unique, source_name "h"), each with its own shape/scale/bits/bound. A
 *    reference in a statement points at the version current at that point.
 *  - Every tensor has rank <= EZ_MAX_RANK, 1 <= dims[] <= 2^32 (at most 2^48
 *    elements), scale in [0, 60], bits in [2, 62], bound < 2^62 (mpz). Inputs/weights: bound = 2^(bits-1). TOKENS tensors:
 *    token_limit = the smallest table size (axis 0 of every table it indexes), >= 1.
 *  - Every statement has <= EZ_MAX_IDX distinct indices, each with a resolved size
 *    (idx[i].size >= 1); every use of an index name in the statement has that size.
 *  - Node trees: children are computed before parents; every non-REF node becomes one
 *    op. Kinds and what the fields mean:
 *      REF      a tensor version (leaf). axes[a] = INDEX(id) or FIXED(position) for each
 *               axis a of the tensor; FIXED comes from a loop variable or a constant
 *               expression (`wq[l, d, h, e]` after unrolling l=2 -> FIXED(2)), and is
 *               < dims[a]. out[] = the INDEX axes in axis order (no index twice).
 *               Never the root of a statement. A TOKENS tensor appears only as the
 *               token REF in[1] of a GATHER.
 *      GATHER   table[tok[i..], j..]: in[0] is the table REF (a weight, axes[0] unused
 *               and marked EZ_AXIS_GATHER), in[1] the token REF (a TOKENS tensor, all
 *               axes INDEX). Output indices = the token's indices then the table's
 *               remaining INDEX axes, in that order. Scale/bits/bound = the table's.
 *      PRODUCT  out = floor(mul * sum_{sum[]} prod_k in[k] / 2^shift), nin = 1 or 2
 *               (never more: longer products are split; intermediates have split_tmp
 *               and are rescaled and range-checked like any product). mul may be
 *               negative (a minus sign folds into it).
 *               One operand: a reduction, a transpose/copy or a constant scaling.
 *               Indices of the operands not in out[] are exactly sum[].
 *      ADD      out = floor(sum_k coef[k] * in[k] / 2^shift), 2..EZ_MAX_OPERANDS terms;
 *               broadcasting by index name: each term's out[] is a subset of the node's
 *               out[]. coef[k] = +-2^(common scale - term scale) aligns scales exactly.
 *      FUNC     op in {EZ_OP_SOFTMAX, EZ_OP_CAUSAL, EZ_OP_MAX, EZ_OP_ARGMAX,
 *               EZ_OP_LAYERNORM, EZ_OP_RMSNORM, EZ_OP_UNARY}, one operand in[0].
 *               axis = the reduced/normalised index id (SOFTMAX, MAX, ARGMAX, LAYERNORM,
 *               RMSNORM); mask_row/mask_col = i, j of causal[i, j] (masked where j > i);
 *               func for UNARY. in_scale = in[0]->scale, out_scale = node scale.
 *               out[] lists the operand's indices (MAX/ARGMAX without `axis`), in the
 *               operand's order, except at a statement's root where it is the
 *               left-hand side's order (a permutation; plan ops carry out_axes).
 *               relu, causal and max keep the operand's scale; ARGMAX has scale 0
 *               (an integer position); the others produce the statement's target scale.
 *               softmax[t](causal[s,t](e)) is left as two nodes; the back end may fuse
 *               them (EZ_OP_SOFTMAX.masked).
 *  - The root's out[] is exactly the left-hand side's index list in order, so the
 *    defined tensor's axis a is root->out[a] (no transpose is ever needed afterwards).
 *    The root is a PRODUCT, ADD or FUNC node (a bare reference or gather on the right
 *    is wrapped in a one-operand PRODUCT) and has the statement's target scale,
 *    except an ARGMAX root (scale 0).
 *  - Scales: every node has scale and bits. A PRODUCT's accumulator has scale
 *    sum(operand scales) + extra bits of a non-power-of-two constant; shift brings it to
 *    the node's scale (the statement's target, `@scale` or the default); a division by
 *    a power-of-two constant is folded into shift, other constants into mul. If the
 *    accumulator scale is below the target, mul absorbs the 2^difference and shift is 0.
 *  - Bounds (mpz, exact worst case from the operands' bounds and the real index
 *    extents): raw_bound bounds the value before the rescale (the accumulator),
 *    bound the stored value. With shift > 0 the value is range-checked to bits
 *    (range_checked = true) and bound = min(2^(bits-1), ceil(raw_bound / 2^shift));
 *    every raw_bound and bound is < 2^62 (otherwise compilation failed with a
 *    diagnostic naming the statement). For FUNC nodes raw_bound is the largest
 *    internal sum the function needs (softmax: row sum of the exponentials, n * 2^s;
 *    layernorm/rmsnorm: sum of squares, n * B^2), otherwise the operand's bound;
 *    range_checked is false for FUNC, REF and GATHER nodes.
 *  - outputs: every `output` name resolved to the LAST version of that name; its
 *    tensor has is_output set.
 *
 * All memory belongs to the program: ez_program_free releases it. */
#ifndef EZ_COMPILER_SEMA_H
#define EZ_COMPILER_SEMA_H

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/ast.h"
#include "compiler/diag.h"
#include "compiler/plan.h"
#include "lib/util.h"

/* A -D NAME=VALUE from the command line (the CLI parses VALUE; a malformed one is a
 * usage error there). text is the argument as written, for messages ("-D S=128"). */
typedef struct {
    const char *name;
    int64_t value;
    const char *text;
} ez_define;

typedef struct {
    char name[EZ_MAX_NAME];
    int64_t value;         /* after -D overrides and evaluation */
    bool overridden;       /* set by -D */
    ez_span span;          /* the definition */
} ez_param;

typedef struct {
    unsigned id;                   /* index in ez_program.tensors */
    char name[EZ_MAX_NAME];        /* unique: "h", "h'1", "h'2", ... (plan.h naming) */
    char source_name[EZ_MAX_NAME]; /* "h" */
    ez_tensor_kind kind;           /* INPUT, TOKENS, WEIGHT or ACT (plan.h) */
    unsigned version;              /* 0 for the first definition of the name */
    unsigned rank;
    uint64_t dims[EZ_MAX_RANK];
    unsigned scale, bits;
    mpz_t bound;                   /* |v| <= bound for every stored value */
    int64_t token_limit;           /* TOKENS: vocabulary size; 0 otherwise */
    bool is_output;
    int def_stmt;                  /* ACT: index into stmts; -1 otherwise */
    ez_span span;                  /* declaration or left-hand side */
} ez_tensor;

typedef enum { EZ_NODE_REF = 0, EZ_NODE_GATHER, EZ_NODE_PRODUCT, EZ_NODE_ADD, EZ_NODE_FUNC } ez_node_kind;

typedef enum { EZ_AXIS_INDEX = 0, EZ_AXIS_FIXED, EZ_AXIS_GATHER } ez_axis_kind;

typedef struct {
    ez_axis_kind kind;
    unsigned idx;       /* INDEX: statement index id */
    uint64_t pos;       /* FIXED: the selected position, < the axis size */
} ez_axis;

typedef struct ez_node {
    ez_node_kind kind;
    ez_span span;                   /* the source text this node came from */
    unsigned nout;
    unsigned out[EZ_MAX_IDX];       /* output axes -> statement index ids */

    unsigned scale, bits;
    mpz_t raw_bound;                /* PRODUCT/ADD: the accumulator before the rescale; FUNC: see above */
    mpz_t bound;                    /* of the node's values */
    bool range_checked;             /* values proven to fit `bits` (shift > 0) */

    unsigned nin;
    struct ez_node *in[EZ_MAX_OPERANDS];

    /* REF */
    unsigned tensor;                /* tensor id */
    unsigned rank;
    ez_axis axes[EZ_MAX_RANK];

    /* PRODUCT */
    unsigned nsum;
    unsigned sum[EZ_MAX_IDX];       /* summed index ids */
    int64_t mul;                    /* integer multiplier (1 if none) */
    bool split_tmp;                 /* an intermediate of a split 3+-tensor product */

    /* ADD */
    int64_t coef[EZ_MAX_OPERANDS];

    /* PRODUCT and ADD */
    unsigned shift;

    /* FUNC */
    ez_op_kind op;
    ez_func func;
    unsigned axis;
    unsigned mask_row, mask_col;
} ez_node;

typedef struct {
    char name[EZ_MAX_NAME];
    uint64_t size;
    ez_span span;                   /* first use */
} ez_index;

typedef struct {
    unsigned def;                   /* tensor id of the version this statement defines */
    unsigned nidx;
    ez_index idx[EZ_MAX_IDX];       /* the statement's index space */
    ez_node *root;
    unsigned scale, bits;           /* the statement's target */
    ez_span span;                   /* the whole statement */
    char text[256];                 /* the statement's source, whitespace collapsed */
    char iter[64];                  /* "" or the loop values, e.g. "l=2" or "l=1,k=0" */
} ez_stmt;

typedef struct {
    char model[EZ_MAX_NAME];        /* "" if no `model` line */
    unsigned default_scale, default_bits;
    size_t nparams;
    ez_param *params;
    size_t ntensors;
    ez_tensor *tensors;
    size_t nstmts;
    ez_stmt *stmts;
    size_t noutputs;
    unsigned *outputs;              /* tensor ids */
    /* private: every node, for freeing */
    size_t nnodes, capnodes;
    ez_node **nodes;
} ez_program;

/* What the command line may override in a source: -D params, and the model's `scale`
 * and `bits` defaults (what declarations and statements without @scale/@bits get). */
typedef struct {
    const ez_define *defs;
    size_t ndefs;
    int scale; /* >= 0: the default scale, whatever the source's `scale` line says; -1: the source's */
    int bits;  /* >= 0: the default width (EZ_MIN..MAX bits), likewise; -1: the source's */
} ez_front_opts;

/* Parse and check a .ein source (the whole front end).
 * In:  path (for messages), src[0..len), defs[0..ndefs) -D overrides.
 * Out: diags is INITIALISED here over (path, src, len) and receives every error (up to
 *      the cap); the caller clears it with ez_diag_list_clear. On EZ_OK, *out is a new
 *      program (ez_program_free) and diags holds no errors.
 * Returns EZ_OK; EZ_ERR_SOURCE when the source (or a -D) has errors (*out = NULL);
 * EZ_ERR_NOMEM. path/src must outlive diags. Cost: linear in the unrolled program plus
 * 2^k per product of k <= 8 factors (ordering). */
ez_status ez_compile_front(const char *path, const char *src, size_t len, const ez_define *defs,
                           size_t ndefs, ez_diag_list *diags, ez_program **out);

/* ez_compile_front with the default overrides of o (o->scale, o->bits out of range are
 * errors reported in diags, like a bad -D). On EZ_OK diags may hold warnings (unused
 * weights, dead statements, a softmax summed over its own axis): ez_diag_render them. */
ez_status ez_compile_front_opts(const char *path, const char *src, size_t len, const ez_front_opts *o,
                                ez_diag_list *diags, ez_program **out);

/* Check an already parsed tree (ez_compile_front = ez_parse + this). Same contract;
 * diags must already be initialised. ast is borrowed. */
ez_status ez_sema_check(const ez_ast *ast, const ez_define *defs, size_t ndefs, ez_diag_list *diags,
                        ez_program **out);
ez_status ez_sema_check_opts(const ez_ast *ast, const ez_front_opts *o, ez_diag_list *diags, ez_program **out);

/* Free a program and all its nodes. Accepts NULL. */
void ez_program_free(ez_program *p);

/* Look up the current (last) version of a tensor by source name, or by unique name;
 * -1 if absent. O(ntensors). */
int ez_program_find(const ez_program *p, const char *name);

/* The statement's index name / size for an index id (convenience for the back end). */
static inline const char *ez_stmt_idx_name(const ez_stmt *s, unsigned id)
{
    return s->idx[id].name;
}

/* Render a node as text for tests and `einzk info`, e.g.
 * "product[s,n | d](ref x[s,d], ref w[d,n]) >> 12". New string (free()), NULL on OOM. */
char *ez_node_dump(const ez_program *p, const ez_stmt *s, const ez_node *n);

#endif

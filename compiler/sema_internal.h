/* sema_internal — what the files of the checker share (not an interface: only
 * compiler/sema*.c include it). The checker is split by job:
 *   sema.c         entry points (ez_sema_check, ez_compile_front) and node dumps;
 *   sema_scope.c   names and their meaning: params, declarations, tensor versions,
 *                  loop variables, constants, attributes, "did you mean";
 *   sema_build.c   step 1: a right-hand side -> pre-tree (ez_pn);
 *   sema_reduce.c  steps 2 and 3: summation rules, product splitting, scales;
 *   sema_stmt.c    statements in order: assignments, loops, blocks, whole-program checks;
 *   sema_warn.c    warnings on a checked program (unused weights, dead statements, ...).
 * Every function here reports problems to the user through ez_sema_err (c->d) and an
 * allocation failure by setting c->nomem; none prints. */
#ifndef EZ_COMPILER_SEMA_INTERNAL_H
#define EZ_COMPILER_SEMA_INTERNAL_H

#include "compiler/builtins.h"
#include "compiler/sema.h"

#define EZ_MAX_UNROLLED 100000      /* statements after unrolling */
#define EZ_MAX_LOOP_DEPTH 8
#define EZ_MAX_DIM (UINT64_C(1) << 32)
#define EZ_MAX_NUMEL (UINT64_C(1) << 48)
#define EZ_MAX_SCALE 60
#define EZ_MIN_BITS 2
#define EZ_MAX_BITS 62
#define EZ_SRC_NAME_MAX 48          /* leaves room for the "'NNNN" version suffix */

/* ---- the pre-tree (step 1's output) ------------------------------------------------
 * One node per constant, reference, gather, function call, flattened product or
 * flattened sum of the right-hand side; cnt[] counts each index's occurrences in the
 * subtree, which is all step 2 needs to place every summation. Nodes live in the
 * context's arena until the statement is done. */
typedef enum { EZ_PN_CONST, EZ_PN_REF, EZ_PN_GATHER, EZ_PN_CALL, EZ_PN_PROD, EZ_PN_SUM } ez_pn_kind;

typedef struct ez_pn {
    ez_pn_kind kind;
    ez_span span;
    double c;                  /* CONST value; PROD constant factor */
    /* REF (and the table of a GATHER) */
    unsigned tensor, rank;
    ez_axis axes[EZ_MAX_RANK];
    /* GATHER: the token reference */
    unsigned tok, tok_rank;
    ez_axis tok_axes[EZ_MAX_RANK];
    /* CALL */
    const ez_builtin *bi;
    const char *fname;
    unsigned naxes;
    unsigned axis[2];
    /* PROD factors, SUM terms, CALL operand */
    unsigned nk;
    struct ez_pn *k[EZ_MAX_OPERANDS];
    int sign[EZ_MAX_OPERANDS];
    /* occurrences of each index inside this subtree */
    uint16_t cnt[EZ_MAX_IDX];
} ez_pn;

/* A `for` variable while its body is checked: its current value. */
typedef struct {
    char name[EZ_MAX_NAME];
    int64_t value;
    ez_span span;
} ez_sema_loopvar;

/* What the program does not keep about a tensor but messages need. */
typedef struct {
    char dimtxt[EZ_MAX_RANK][40]; /* how each dim was written, for messages ("D", "4*D") */
} ez_sema_tensor_extra;

/* A name defined somewhere in the file (ez_sema_prescan), to tell "used before its
 * definition" from "undefined". */
typedef struct {
    const char *name;
    ez_span span;
    bool is_param;
} ez_sema_fwd;

/* The checker's whole state: one per ez_sema_check call, no globals. */
typedef struct {
    ez_diag_list *d;
    ez_program *p;
    const ez_define *defs;
    size_t ndefs;
    bool *def_used;
    bool nomem;

    ez_sema_tensor_extra *tx;
    size_t txcap;

    /* source name -> id of its latest version: open addressing, ids + 1 (0 = empty),
     * so that unrolling many layers stays linear */
    unsigned *latest;
    size_t latest_cap, latest_n;
    size_t capstmts;

    ez_sema_loopvar loops[EZ_MAX_LOOP_DEPTH];
    unsigned nloops;
    size_t unrolled;
    bool unroll_capped;

    bool have_model, have_scale, have_bits, seen_decl;
    bool scale_fixed, bits_fixed; /* the command line set the default (ez_front_opts) */
    ez_span model_span, scale_span, bits_span;

    struct {
        char name[EZ_MAX_NAME];
        ez_span span;
    } *outs;
    size_t nouts, capouts;

    ez_sema_fwd *fwd;
    size_t nfwd, capfwd;

    /* Names whose last definition failed: later uses fail silently instead of
     * repeating the error as "undefined". */
    char (*poisoned)[EZ_MAX_NAME];
    size_t npoisoned, cappoisoned;

    /* the statement being checked */
    ez_stmt *st;
    const char *cur_lhs;
    const char *cur_param;   /* the param whose value is being evaluated */
    uint32_t lhs_set;
    char idx_desc[EZ_MAX_IDX][192];
    ez_pn **arena;
    size_t narena, caparena;
} ez_sema_ctx;

/* The value of a constant expression: exact while it stays an integer. */
typedef struct {
    bool is_int;
    int64_t i;
    double v;
} ez_sema_cval;

/* ---- sema_scope.c: helpers ---------------------------------------------------------- */

/* Report an error at sp (printf-style message) and return it, so the caller can add
 * notes and help lines (ez_diag_note, ez_diag_help); NULL past the diagnostic cap. */
ez_diag_item *ez_sema_err(ez_sema_ctx *c, ez_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A new pre-tree node of kind k at sp (every other field zero) owned by the context's
 * arena (freed by ez_sema_pn_free_all); NULL and c->nomem on allocation failure. */
ez_pn *ez_sema_pn_new(ez_sema_ctx *c, ez_pn_kind k, ez_span sp);
/* Free every arena node (after each statement and at the end); the arena is reusable. */
void ez_sema_pn_free_all(ez_sema_ctx *c);

/* A new program node of kind k at sp (mul = 1, bounds initialised), owned by c->p;
 * NULL and c->nomem on allocation failure. */
ez_node *ez_sema_node_new(ez_sema_ctx *c, ez_node_kind k, ez_span sp);

/* The source text of sp into buf[0..cap), whitespace runs and comments collapsed to one
 * space ("" for an empty span). */
void ez_sema_span_text(const ez_diag_list *d, ez_span sp, char *buf, size_t cap);

/* ---- sema_scope.c: names ------------------------------------------------------------ */

/* Index of a param / of an enclosing loop variable (innermost first) named name, or -1. */
int ez_sema_find_param(const ez_sema_ctx *c, const char *name);
int ez_sema_find_loop(const ez_sema_ctx *c, const char *name);
/* Id of the latest version of the tensor with source name name, or -1. O(1) expected. */
int ez_sema_find_tensor(const ez_sema_ctx *c, const char *name);
/* The definition of name anywhere in the file (see ez_sema_prescan), or NULL. */
const ez_sema_fwd *ez_sema_find_fwd(const ez_sema_ctx *c, const char *name, bool is_param);
/* Record every name the block (and nested loops) defines. Names are borrowed from the
 * tree, which must outlive c. */
void ez_sema_prescan(ez_sema_ctx *c, const ez_ast *block);

/* Poisoned names: a name whose last definition failed. Uses of it fail silently
 * instead of repeating the error as "undefined". find returns an index or -1. */
int ez_sema_find_poisoned(const ez_sema_ctx *c, const char *name);
void ez_sema_poison(ez_sema_ctx *c, const char *name);
void ez_sema_unpoison(ez_sema_ctx *c, const char *name);

/* The defined name closest to want, for "did you mean": over tensors (if tensors) and
 * params and loop variables (if params); NULL when none is close (ez_suggest_try). */
const char *ez_sema_suggest_name(const ez_sema_ctx *c, const char *want, bool tensors, bool params);

/* True iff name is short enough to be a source name (else reports it at sp). */
bool ez_sema_name_ok(ez_sema_ctx *c, const char *name, ez_span sp);
/* True iff name may be declared now as a `what` ("param", "input", ...): not a param,
 * tensor or loop variable yet; otherwise reports where it was defined. */
bool ez_sema_check_new_name(ez_sema_ctx *c, const char *name, ez_span sp, const char *what);

/* ---- sema_scope.c: constants and attributes ---------------------------------------- */

/* True iff e is built from numbers, params, loop variables and sqrt only. Unknown names
 * count as constants so that ez_sema_const_eval reports them. */
bool ez_sema_is_const_expr(const ez_sema_ctx *c, const ez_ast *e);
/* Evaluate a constant expression into *out; false after reporting why not (`what` names
 * the value in messages, e.g. "a param value"). */
bool ez_sema_const_eval(ez_sema_ctx *c, const ez_ast *e, ez_sema_cval *out, const char *what);
/* As ez_sema_const_eval, and the value must be a whole number. */
bool ez_sema_const_int(ez_sema_ctx *c, const ez_ast *e, const char *what, int64_t *out);
/* Read @scale(n) and @bits(n) from an attribute list; *scale / *bits are set only when
 * given, *any (may be NULL) says whether there were attributes at all. False after
 * reporting an unknown, repeated or out-of-range attribute. */
bool ez_sema_read_attrs(ez_sema_ctx *c, const ez_ast *attrs, unsigned *scale, unsigned *bits, bool *any);

/* ---- sema_scope.c: tensors and declarations ------------------------------------------ */

/* Append a new tensor (the next version of source_name if it exists) and make it the
 * latest version; returns its id, or -1 with c->nomem. Shape, scale, bits: caller's. */
int ez_sema_add_tensor(ez_sema_ctx *c, const char *source_name, ez_tensor_kind kind, ez_span sp);
/* How axis `axis` of tensor `tensor` was written, for messages: "D = 64" or "64". */
void ez_sema_dim_desc(const ez_sema_ctx *c, unsigned tensor, unsigned axis, char *buf, size_t cap);

/* Top-level statements that only declare: `param` (with -D overrides), `@scale n` /
 * `@bits n` defaults (is_scale picks which), `input` / `weight` (weights picks which),
 * `output`. Errors go to c->d. */
void ez_sema_params(ez_sema_ctx *c, const ez_ast *s);
void ez_sema_default(ez_sema_ctx *c, const ez_ast *s, bool is_scale);
/* The command line's defaults (ez_front_opts: -1 = none); a source's `scale`/`bits`
 * line is then checked but does not change them. Out of range: an error without a
 * position. */
void ez_sema_overrides(ez_sema_ctx *c, int scale, int bits);
void ez_sema_decls(ez_sema_ctx *c, const ez_ast *s, bool weights);
void ez_sema_outputs(ez_sema_ctx *c, const ez_ast *s);

/* ---- sema_build.c ------------------------------------------------------------------- */

/* Id of index name in the current statement (c->st), or -1. */
int ez_sema_idx_find(const ez_sema_ctx *c, const char *name);
/* Step 1: the pre-tree of expression e of the current statement, registering every
 * index it uses in c->st. NULL after reporting an error (or with c->nomem). */
ez_pn *ez_sema_build(ez_sema_ctx *c, const ez_ast *e);

/* ---- sema_reduce.c ------------------------------------------------------------------ */

/* The set of n's output index ids (out[]), as a bit mask. */
uint32_t ez_sema_node_outset(const ez_node *n);
/* A PRODUCT node over ins[0..nin) (nin 1 or 2) that keeps the indices in `keep` and sums
 * the others, times the constant cst, at the statement's target scale (shift or
 * multiplier chosen here, bound computed); tmp marks an intermediate of a split product.
 * NULL after reporting an error (a zero or too large constant). */
ez_node *ez_sema_make_product(ez_sema_ctx *c, ez_node **ins, unsigned nin, uint32_t keep, double cst, ez_span sp,
                              bool tmp);
/* Steps 2 and 3 for the pre-tree x: program nodes in which each index is summed at the
 * smallest subtree holding all of its occurrences. allowed: the indices x may keep
 * (the left-hand side's at the root); total[i]: index i's occurrences in the whole
 * statement, the left side counted. NULL after reporting an error. */
ez_node *ez_sema_reduce(ez_sema_ctx *c, const ez_pn *x, uint32_t allowed, const uint16_t *total);

/* ---- sema_stmt.c -------------------------------------------------------------------- */

/* Check the statements of a block in order (top: the file's top level, where
 * declarations are allowed; otherwise a loop body). */
void ez_sema_block(ez_sema_ctx *c, const ez_ast *block, bool top);
/* The checks that need the whole program: -D names are params of the model and given
 * once, outputs name computed tensors, every token input indexes a table. */
void ez_sema_finish(ez_sema_ctx *c);

/* ---- sema_warn.c -------------------------------------------------------------------- */

/* Warnings on a program checked without errors (c->p complete, bounds computed):
 * weights and inputs no statement reads, statements whose every unrolled copy defines a
 * tensor nothing reads and that is not an output, and a softmax summed over its own
 * axis right away (each row sums to one: the result does not depend on its operand). */
void ez_sema_warnings(ez_sema_ctx *c);

#endif

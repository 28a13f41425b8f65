/* sema — name resolution, params, loop unrolling, index ranges, the summation rules,
 * scales and the construction of the checked program (contract in sema.h; the language
 * in docs/language.md).
 *
 * A statement is checked in three steps:
 *   1. build: the right-hand side becomes a small pre-tree (`pn`): constants folded,
 *      products and sums flattened, every tensor reference resolved to its current
 *      version, every index occurrence registered with the size of its axis;
 *   2. reduce: each index not on the left is summed at the smallest subexpression that
 *      contains all of its occurrences (the left side and a function's axis argument
 *      count as occurrences outside the function's operand; a sum distributes the
 *      summation over its terms), which yields DESIGN §2's rule for function
 *      arguments; products of three or more factors are split pairwise in the cheapest
 *      order;
 *   3. scales: every node gets its scale, rescale shift and integer multiplier.
 * Bounds are computed afterwards over the whole program (compiler/bounds.c). */
#include "compiler/sema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/bounds.h"
#include "compiler/builtins.h"

#define EZ_MAX_UNROLLED 100000      /* statements after unrolling */
#define EZ_MAX_LOOP_DEPTH 8
#define EZ_MAX_DIM (UINT64_C(1) << 32)
#define EZ_MAX_NUMEL (UINT64_C(1) << 48)
#define EZ_MAX_SCALE 60
#define EZ_MIN_BITS 2
#define EZ_MAX_BITS 62
#define EZ_SRC_NAME_MAX 48          /* leaves room for the "'NNNN" version suffix */

/* ---- pre-tree ---------------------------------------------------------------------- */

typedef enum { PN_CONST, PN_REF, PN_GATHER, PN_CALL, PN_PROD, PN_SUM } pn_kind;

typedef struct pn {
    pn_kind kind;
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
    struct pn *k[EZ_MAX_OPERANDS];
    int sign[EZ_MAX_OPERANDS];
    /* occurrences of each index inside this subtree */
    uint16_t cnt[EZ_MAX_IDX];
} pn;

typedef struct {
    char name[EZ_MAX_NAME];
    int64_t value;
    ez_span span;
} loopvar;

typedef struct {
    char dimtxt[EZ_MAX_RANK][40]; /* how each dim was written, for messages ("D", "4*D") */
} tensor_extra;

typedef struct {
    const char *name;
    ez_span span;
    bool is_param;
} fwd_def;

typedef struct {
    ez_diag_list *d;
    ez_program *p;
    const ez_define *defs;
    size_t ndefs;
    bool *def_used;
    bool nomem;

    tensor_extra *tx;
    size_t txcap;

    /* source name -> id of its latest version: open addressing, ids + 1 (0 = empty),
     * so that unrolling many layers stays linear */
    unsigned *latest;
    size_t latest_cap, latest_n;
    size_t capstmts;

    loopvar loops[EZ_MAX_LOOP_DEPTH];
    unsigned nloops;
    size_t unrolled;
    bool unroll_capped;

    bool have_model, have_scale, have_bits, seen_decl;
    ez_span model_span, scale_span, bits_span;

    struct {
        char name[EZ_MAX_NAME];
        ez_span span;
    } *outs;
    size_t nouts, capouts;

    fwd_def *fwd;
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
    pn **arena;
    size_t narena, caparena;
} sctx;



/* ---- small helpers ------------------------------------------------------------------- */

static ez_diag_item *err(sctx *c, ez_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ez_diag_item *err(sctx *c, ez_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ez_diag_item *it = ez_diag_verror(c->d, sp, fmt, ap);
    va_end(ap);
    return it;
}

static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The closest candidate within a small edit distance, or NULL. */
typedef struct {
    const char *best;
    unsigned dist;
    const char *want;
} suggest;

static void suggest_try(suggest *s, const char *cand)
{
    if (cand == NULL || strcmp(cand, s->want) == 0)
        return;
    size_t lw = strlen(s->want);
    if (lw == 1) {
        /* One letter is too short to guess from, except for a case slip (x for X). */
        if (strlen(cand) == 1 && (s->want[0] | 0x20) == (cand[0] | 0x20) && s->dist > 1) {
            s->dist = 1;
            s->best = cand;
        }
        return;
    }
    unsigned d = edit_distance(s->want, cand);
    unsigned limit = lw <= 3 ? 1 : lw <= 6 ? 2 : 3;
    if (d <= limit && d < s->dist) {
        s->dist = d;
        s->best = cand;
    }
}

static void *arena_pn(sctx *c)
{
    if (c->narena == c->caparena) {
        size_t cap = c->caparena ? 2 * c->caparena : 32;
        pn **a = ez_realloc_array(c->arena, cap, sizeof *a);
        if (a == NULL) {
            c->nomem = true;
            return NULL;
        }
        c->arena = a;
        c->caparena = cap;
    }
    pn *n = calloc(1, sizeof *n);
    if (n == NULL) {
        c->nomem = true;
        return NULL;
    }
    c->arena[c->narena++] = n;
    return n;
}

static void arena_reset(sctx *c)
{
    for (size_t i = 0; i < c->narena; i++)
        free(c->arena[i]);
    c->narena = 0;
}

static ez_node *new_node(sctx *c, ez_node_kind k, ez_span sp)
{
    ez_program *p = c->p;
    if (p->nnodes == p->capnodes) {
        size_t cap = p->capnodes ? 2 * p->capnodes : 64;
        ez_node **a = ez_realloc_array(p->nodes, cap, sizeof *a);
        if (a == NULL) {
            c->nomem = true;
            return NULL;
        }
        p->nodes = a;
        p->capnodes = cap;
    }
    ez_node *n = calloc(1, sizeof *n);
    if (n == NULL) {
        c->nomem = true;
        return NULL;
    }
    mpz_init(n->bound);
    mpz_init(n->raw_bound);
    n->kind = k;
    n->span = sp;
    n->mul = 1;
    p->nodes[p->nnodes++] = n;
    return n;
}

/* Copy the source text of sp into buf, whitespace runs and comments collapsed to one
 * space. */
static void span_text(const ez_diag_list *d, ez_span sp, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (sp.first_line < 1 || cap == 0)
        return;
    size_t pos = 0;
    int line = 1;
    while (line < sp.first_line && pos < d->len) {
        if (d->src[pos] == '\n')
            line++;
        pos++;
    }
    pos += (size_t)(sp.first_column > 0 ? sp.first_column - 1 : 0);
    size_t o = 0;
    int col = sp.first_column;
    bool space = false;
    while (pos < d->len && o + 1 < cap) {
        char ch = d->src[pos];
        if (line > sp.last_line || (line == sp.last_line && col > sp.last_column))
            break;
        if (ch == '#') {
            while (pos < d->len && d->src[pos] != '\n')
                pos++;
            continue;
        }
        if (ch == '\n') {
            line++;
            col = 1;
            pos++;
            space = true;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            space = true;
        } else {
            if (space && o > 0 && o + 2 < cap)
                buf[o++] = ' ';
            space = false;
            buf[o++] = ch;
        }
        pos++;
        col++;
    }
    buf[o] = '\0';
}

/* ---- symbol lookup ----------------------------------------------------------------- */

static int find_param(const sctx *c, const char *name)
{
    for (size_t i = 0; i < c->p->nparams; i++)
        if (strcmp(c->p->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int find_loop(const sctx *c, const char *name)
{
    for (unsigned i = c->nloops; i-- > 0;)
        if (strcmp(c->loops[i].name, name) == 0)
            return (int)i;
    return -1;
}

static size_t name_hash(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * UINT64_C(1099511628211);
    return (size_t)h;
}

static int find_tensor(const sctx *c, const char *name)
{
    if (c->latest_cap == 0)
        return -1;
    for (size_t i = name_hash(name) & (c->latest_cap - 1);; i = (i + 1) & (c->latest_cap - 1)) {
        unsigned v = c->latest[i];
        if (v == 0)
            return -1;
        if (strcmp(c->p->tensors[v - 1].source_name, name) == 0)
            return (int)(v - 1);
    }
}

/* Record tensor id as the latest version of its source name. */
static bool set_latest(sctx *c, unsigned id)
{
    if (2 * (c->latest_n + 1) > c->latest_cap) {
        size_t cap = c->latest_cap ? 2 * c->latest_cap : 64;
        unsigned *t = ez_alloc_array(cap, sizeof *t);
        if (t == NULL) {
            c->nomem = true;
            return false;
        }
        for (size_t k = 0; k < c->latest_cap; k++) {
            unsigned v = c->latest[k];
            if (v == 0)
                continue;
            size_t i = name_hash(c->p->tensors[v - 1].source_name) & (cap - 1);
            while (t[i])
                i = (i + 1) & (cap - 1);
            t[i] = v;
        }
        free(c->latest);
        c->latest = t;
        c->latest_cap = cap;
    }
    const char *name = c->p->tensors[id].source_name;
    size_t i = name_hash(name) & (c->latest_cap - 1);
    while (c->latest[i] && strcmp(c->p->tensors[c->latest[i] - 1].source_name, name) != 0)
        i = (i + 1) & (c->latest_cap - 1);
    if (c->latest[i] == 0)
        c->latest_n++;
    c->latest[i] = id + 1;
    return true;
}

static const fwd_def *find_fwd(const sctx *c, const char *name, bool is_param)
{
    for (size_t i = 0; i < c->nfwd; i++)
        if (c->fwd[i].is_param == is_param && strcmp(c->fwd[i].name, name) == 0)
            return &c->fwd[i];
    return NULL;
}

static void add_fwd(sctx *c, const char *name, ez_span sp, bool is_param)
{
    if (find_fwd(c, name, is_param))
        return;
    if (c->nfwd == c->capfwd) {
        size_t cap = c->capfwd ? 2 * c->capfwd : 32;
        fwd_def *f = ez_realloc_array(c->fwd, cap, sizeof *f);
        if (f == NULL) {
            c->nomem = true;
            return;
        }
        c->fwd = f;
        c->capfwd = cap;
    }
    c->fwd[c->nfwd++] = (fwd_def){name, sp, is_param};
}

/* Every name defined anywhere in the file, to tell "used before its definition" from
 * "undefined". */
static void prescan(sctx *c, const ez_ast *block)
{
    for (size_t i = 0; i < block->nkids; i++) {
        const ez_ast *s = block->kids[i];
        if (s->kind == EZ_AST_ASSIGN && s->kids[0]->name)
            add_fwd(c, s->kids[0]->name, s->kids[0]->span, false);
        else if (s->kind == EZ_AST_PARAMS)
            for (size_t j = 0; j < s->nkids; j++)
                add_fwd(c, s->kids[j]->name, s->kids[j]->span, true);
        else if (s->kind == EZ_AST_INPUTS || s->kind == EZ_AST_WEIGHTS)
            for (size_t j = 0; j < s->kids[0]->nkids; j++)
                add_fwd(c, s->kids[0]->kids[j]->name, s->kids[0]->kids[j]->span, false);
        else if (s->kind == EZ_AST_FOR)
            prescan(c, s->kids[2]);
    }
}

static int find_poisoned(const sctx *c, const char *name)
{
    for (size_t i = 0; i < c->npoisoned; i++)
        if (strcmp(c->poisoned[i], name) == 0)
            return (int)i;
    return -1;
}

static void poison(sctx *c, const char *name)
{
    if (find_poisoned(c, name) >= 0)
        return;
    if (c->npoisoned == c->cappoisoned) {
        size_t cap = c->cappoisoned ? 2 * c->cappoisoned : 16;
        void *a = ez_realloc_array(c->poisoned, cap, sizeof *c->poisoned);
        if (a == NULL) {
            c->nomem = true;
            return;
        }
        c->poisoned = a;
        c->cappoisoned = cap;
    }
    snprintf(c->poisoned[c->npoisoned++], EZ_MAX_NAME, "%s", name);
}

static void unpoison(sctx *c, const char *name)
{
    int i = find_poisoned(c, name);
    if (i >= 0)
        memmove(c->poisoned[i], c->poisoned[c->npoisoned - 1], EZ_MAX_NAME), c->npoisoned--;
}

/* "did you mean" over tensors, params (if with_params) and loop variables. */
static const char *suggest_name(const sctx *c, const char *want, bool tensors, bool params)
{
    suggest s = {NULL, 99, want};
    if (tensors)
        for (size_t i = 0; i < c->p->ntensors; i++)
            suggest_try(&s, c->p->tensors[i].source_name);
    if (params) {
        for (size_t i = 0; i < c->p->nparams; i++)
            suggest_try(&s, c->p->params[i].name);
        for (unsigned i = 0; i < c->nloops; i++)
            suggest_try(&s, c->loops[i].name);
    }
    return s.best;
}

/* ---- constants --------------------------------------------------------------------- */

typedef struct {
    bool is_int;
    int64_t i;
    double v;
} cval;

static bool is_const_expr(const sctx *c, const ez_ast *e)
{
    switch (e->kind) {
    case EZ_AST_NUM:
        return true;
    case EZ_AST_NAME:
        /* Unknown names count as constants so the constant evaluator reports them. */
        return find_tensor(c, e->name) < 0 || find_param(c, e->name) >= 0 || find_loop(c, e->name) >= 0;
    case EZ_AST_BINOP:
        return is_const_expr(c, e->kids[0]) && is_const_expr(c, e->kids[1]);
    case EZ_AST_NEG:
    case EZ_AST_PAREN:
        return is_const_expr(c, e->kids[0]);
    case EZ_AST_CALL:
        return strcmp(e->name, "sqrt") == 0 && e->nkids == 1 && e->kids[0]->nkids == 1
               && is_const_expr(c, e->kids[0]->kids[0]);
    default:
        return false;
    }
}

static bool const_eval(sctx *c, const ez_ast *e, cval *out, const char *what)
{
    cval a, b;
    switch (e->kind) {
    case EZ_AST_NUM:
        if (e->bad) {
            ez_diag_item *it = err(c, e->span, "number '%s' is out of range", e->text);
            ez_diag_help(c->d, it, "integers must fit in 63 bits");
            return false;
        }
        out->is_int = e->is_int;
        out->i = e->ival;
        out->v = e->is_int ? (double)e->ival : e->num;
        return true;
    case EZ_AST_NAME: {
        int l = find_loop(c, e->name);
        if (l >= 0) {
            *out = (cval){true, c->loops[l].value, (double)c->loops[l].value};
            return true;
        }
        int p = find_param(c, e->name);
        if (p >= 0) {
            *out = (cval){true, c->p->params[p].value, (double)c->p->params[p].value};
            return true;
        }
        if (c->cur_param && strcmp(c->cur_param, e->name) == 0) {
            ez_diag_item *it = err(c, e->span, "param '%s' is defined in terms of itself", e->name);
            ez_diag_help(c->d, it, "define it from other params or a number");
            return false;
        }
        if (find_poisoned(c, e->name) >= 0)
            return false;
        int t = find_tensor(c, e->name);
        if (t >= 0) {
            err(c, e->span, "'%s' is a tensor, but %s must be a constant", e->name, what);
            return false;
        }
        const fwd_def *f = find_fwd(c, e->name, true);
        if (f) {
            ez_diag_item *it = err(c, e->span, "param '%s' is used before its definition", e->name);
            ez_diag_note(c->d, it, f->span, "'%s' is defined here", e->name);
            ez_diag_help(c->d, it, "move the param line above its first use");
            return false;
        }
        ez_diag_item *it = err(c, e->span, "undefined name '%s'", e->name);
        const char *s = suggest_name(c, e->name, false, true);
        if (s)
            ez_diag_help(c->d, it, "did you mean '%s'?", s);
        else
            ez_diag_help(c->d, it, "%s may use numbers, params and loop variables", what);
        return false;
    }
    case EZ_AST_PAREN:
        return const_eval(c, e->kids[0], out, what);
    case EZ_AST_NEG:
        if (!const_eval(c, e->kids[0], &a, what))
            return false;
        out->is_int = a.is_int && a.i != INT64_MIN;
        out->i = out->is_int ? -a.i : 0;
        out->v = -a.v;
        return true;
    case EZ_AST_BINOP: {
        if (!const_eval(c, e->kids[0], &a, what) || !const_eval(c, e->kids[1], &b, what))
            return false;
        bool ints = a.is_int && b.is_int;
        int64_t r = 0;
        switch (e->op) {
        case '+':
            out->v = a.v + b.v;
            out->is_int = ints && !__builtin_add_overflow(a.i, b.i, &r);
            break;
        case '-':
            out->v = a.v - b.v;
            out->is_int = ints && !__builtin_sub_overflow(a.i, b.i, &r);
            break;
        case '*':
            out->v = a.v * b.v;
            out->is_int = ints && !__builtin_mul_overflow(a.i, b.i, &r);
            break;
        default:
            if (b.v == 0) {
                err(c, e->kids[1]->span, "division by zero");
                return false;
            }
            out->v = a.v / b.v;
            out->is_int = ints && b.i != -1 && a.i % b.i == 0;
            if (out->is_int)
                r = a.i / b.i;
            break;
        }
        out->i = out->is_int ? r : 0;
        if (!isfinite(out->v)) {
            err(c, e->span, "this constant overflows");
            return false;
        }
        return true;
    }
    case EZ_AST_CALL:
        if (strcmp(e->name, "sqrt") == 0 && e->nkids == 1 && e->kids[0]->nkids == 1) {
            if (!const_eval(c, e->kids[0]->kids[0], &a, what))
                return false;
            if (a.v < 0) {
                err(c, e->span, "sqrt of a negative number");
                return false;
            }
            out->v = sqrt(a.v);
            out->is_int = false;
            out->i = 0;
            double fl = floor(out->v);
            if (fl == out->v && fl < 9e15) {
                out->is_int = true;
                out->i = (int64_t)fl;
            }
            return true;
        }
        err(c, e->span, "%s must be a constant, but this calls '%s'", what, e->name);
        return false;
    default:
        err(c, e->span, "%s must be a constant expression", what);
        return false;
    }
}

static bool const_int(sctx *c, const ez_ast *e, const char *what, int64_t *out)
{
    cval v;
    if (!const_eval(c, e, &v, what))
        return false;
    if (!v.is_int) {
        ez_diag_item *it = err(c, e->span, "%s must be a whole number, but this is %g", what, v.v);
        ez_diag_help(c->d, it, "sizes, positions, scales and widths are integers; "
                               "a division of sizes must be exact");
        return false;
    }
    *out = v.i;
    return true;
}

/* ---- attributes -------------------------------------------------------------------- */

/* @scale(n) @bits(n) of a declaration or statement. */
static bool read_attrs(sctx *c, const ez_ast *attrs, unsigned *scale, unsigned *bits, bool *any)
{
    bool ok = true, have_s = false, have_b = false;
    ez_span first_s = {0}, first_b = {0};
    if (any)
        *any = attrs->nkids > 0;
    for (size_t i = 0; i < attrs->nkids; i++) {
        const ez_ast *a = attrs->kids[i];
        bool is_s = strcmp(a->name, "scale") == 0, is_b = strcmp(a->name, "bits") == 0;
        if (!is_s && !is_b) {
            ez_diag_item *it = err(c, a->span, "unknown attribute '@%s'", a->name);
            ez_diag_help(c->d, it, "the attributes are @scale(N) (fraction bits) and @bits(N) (signed width)");
            ok = false;
            continue;
        }
        if ((is_s && have_s) || (is_b && have_b)) {
            ez_diag_item *it = err(c, a->span, "'@%s' is given twice", a->name);
            ez_diag_note(c->d, it, is_s ? first_s : first_b, "first given here");
            ok = false;
            continue;
        }
        int64_t v;
        if (!const_int(c, a->kids[0], is_s ? "a scale" : "a width", &v)) {
            ok = false;
            continue;
        }
        if (is_s) {
            have_s = true;
            first_s = a->span;
            if (v < 0 || v > EZ_MAX_SCALE) {
                ez_diag_item *it = err(c, a->kids[0]->span, "scale %lld is out of range", (long long)v);
                ez_diag_help(c->d, it, "a scale counts fraction bits: 0 to %d", EZ_MAX_SCALE);
                ok = false;
            } else
                *scale = (unsigned)v;
        } else {
            have_b = true;
            first_b = a->span;
            if (v < EZ_MIN_BITS || v > EZ_MAX_BITS) {
                ez_diag_item *it = err(c, a->kids[0]->span, "width %lld is out of range", (long long)v);
                ez_diag_help(c->d, it, "a width counts signed bits: %d to %d (values must stay below 2^62)",
                             EZ_MIN_BITS, EZ_MAX_BITS);
                ok = false;
            } else
                *bits = (unsigned)v;
        }
    }
    return ok;
}

/* ---- tensors ----------------------------------------------------------------------- */

static int add_tensor(sctx *c, const char *source_name, ez_tensor_kind kind, ez_span sp)
{
    ez_program *p = c->p;
    if (p->ntensors >= c->txcap) {
        size_t cap = c->txcap ? 2 * c->txcap : 32;
        ez_tensor *t = ez_realloc_array(p->tensors, cap, sizeof *t);
        if (t == NULL) {
            c->nomem = true;
            return -1;
        }
        p->tensors = t;
        tensor_extra *x = ez_realloc_array(c->tx, cap, sizeof *x);
        if (x == NULL) {
            c->nomem = true;
            return -1;
        }
        c->tx = x;
        c->txcap = cap;
    }
    unsigned version = 0;
    int prev = find_tensor(c, source_name);
    if (prev >= 0)
        version = p->tensors[prev].version + 1;
    ez_tensor *t = &p->tensors[p->ntensors];
    memset(t, 0, sizeof *t);
    memset(&c->tx[p->ntensors], 0, sizeof c->tx[0]);
    mpz_init(t->bound);
    t->id = (unsigned)p->ntensors;
    snprintf(t->source_name, sizeof t->source_name, "%s", source_name);
    if (version == 0)
        snprintf(t->name, sizeof t->name, "%s", source_name);
    else
        snprintf(t->name, sizeof t->name, "%s'%u", source_name, version);
    t->kind = kind;
    t->version = version;
    t->def_stmt = -1;
    t->span = sp;
    p->ntensors++;
    if (!set_latest(c, t->id))
        return -1;
    return (int)t->id;
}

static void dim_desc(const sctx *c, unsigned tensor, unsigned axis, char *buf, size_t cap)
{
    const ez_tensor *t = &c->p->tensors[tensor];
    const char *txt = c->tx[tensor].dimtxt[axis];
    bool is_number = txt[0] >= '0' && txt[0] <= '9' && strspn(txt, "0123456789") == strlen(txt);
    if (txt[0] && !is_number)
        snprintf(buf, cap, "%s = %llu", txt, (unsigned long long)t->dims[axis]);
    else
        snprintf(buf, cap, "%llu", (unsigned long long)t->dims[axis]);
}

static bool name_ok(sctx *c, const char *name, ez_span sp)
{
    if (strlen(name) > EZ_SRC_NAME_MAX) {
        err(c, sp, "name '%.20s...' is too long (at most %d characters)", name, EZ_SRC_NAME_MAX);
        return false;
    }
    return true;
}

/* A name about to be declared (param, input, weight, loop variable) must be new. */
static bool check_new_name(sctx *c, const char *name, ez_span sp, const char *what)
{
    if (!name_ok(c, name, sp))
        return false;
    int p = find_param(c, name);
    if (p >= 0) {
        ez_diag_item *it = err(c, sp, "%s '%s' is already defined as a param", what, name);
        ez_diag_note(c->d, it, c->p->params[p].span, "param '%s' is defined here", name);
        ez_diag_help(c->d, it, "choose another name");
        return false;
    }
    int t = find_tensor(c, name);
    if (t >= 0) {
        const ez_tensor *tt = &c->p->tensors[t];
        ez_diag_item *it = err(c, sp, "%s '%s' is already defined", what, name);
        ez_diag_note(c->d, it, tt->span, "'%s' is first defined here", name);
        ez_diag_help(c->d, it, "choose another name");
        return false;
    }
    int l = find_loop(c, name);
    if (l >= 0) {
        ez_diag_item *it = err(c, sp, "%s '%s' is already the name of a loop variable", what, name);
        ez_diag_note(c->d, it, c->loops[l].span, "loop variable '%s' is defined here", name);
        return false;
    }
    return true;
}

/* ---- top-level statements ---------------------------------------------------------- */

static void do_params(sctx *c, const ez_ast *s)
{
    for (size_t i = 0; i < s->nkids; i++) {
        const ez_ast *d = s->kids[i];
        int prev = find_param(c, d->name);
        if (prev >= 0) {
            ez_diag_item *it = err(c, d->span, "param '%s' is defined twice", d->name);
            ez_diag_note(c->d, it, c->p->params[prev].span, "first defined here");
            ez_diag_help(c->d, it, "remove one definition; to change a size, use -D %s=VALUE on the command line",
                         d->name);
            continue;
        }
        if (!check_new_name(c, d->name, d->span, "param"))
            continue;
        int64_t v = 0;
        c->cur_param = d->name;
        bool ok = const_int(c, d->kids[0], "a param value", &v);
        c->cur_param = NULL;
        poison(c, d->name); /* until it is defined below */
        bool over = false;
        const ez_define *def = NULL;
        for (size_t k = 0; k < c->ndefs; k++)
            if (strcmp(c->defs[k].name, d->name) == 0) {
                def = &c->defs[k];
                c->def_used[k] = true;
            }
        if (def) {
            v = def->value;
            over = true;
            ok = true;
        }
        if (!ok)
            continue;
        if (v < 1 || (uint64_t)v > EZ_MAX_DIM) {
            ez_diag_item *it;
            if (over)
                it = err(c, d->span, "param '%s' must be between 1 and 2^32, but %s sets it to %lld", d->name,
                         def->text ? def->text : "-D", (long long)v);
            else
                it = err(c, d->kids[0]->span, "param '%s' must be between 1 and 2^32, but it is %lld",
                         d->name, (long long)v);
            ez_diag_help(c->d, it, "params are sizes: every axis has at least one element");
            continue;
        }
        ez_param *np = ez_realloc_array(c->p->params, c->p->nparams + 1, sizeof *np);
        if (np == NULL) {
            c->nomem = true;
            return;
        }
        c->p->params = np;
        ez_param *q = &np[c->p->nparams++];
        memset(q, 0, sizeof *q);
        snprintf(q->name, sizeof q->name, "%s", d->name);
        q->value = v;
        q->overridden = over;
        q->span = d->span;
        unpoison(c, d->name);
    }
}

static void do_default(sctx *c, const ez_ast *s, bool is_scale)
{
    bool *have = is_scale ? &c->have_scale : &c->have_bits;
    ez_span *first = is_scale ? &c->scale_span : &c->bits_span;
    const char *kw = is_scale ? "scale" : "bits";
    if (*have) {
        ez_diag_item *it = err(c, s->span, "'%s' is set twice", kw);
        ez_diag_note(c->d, it, *first, "first set here");
        ez_diag_help(c->d, it, "set the default once; override it per declaration or statement with @%s(N)", kw);
        return;
    }
    *have = true;
    *first = s->span;
    if (c->seen_decl) {
        ez_diag_item *it = err(c, s->span, "'%s' must come before the first declaration or definition", kw);
        ez_diag_help(c->d, it, "move this line up, next to the params; it sets the default of the whole model");
        return;
    }
    int64_t v;
    if (!const_int(c, s->kids[0], is_scale ? "a scale" : "a width", &v))
        return;
    if (is_scale && (v < 0 || v > EZ_MAX_SCALE)) {
        ez_diag_item *it = err(c, s->kids[0]->span, "scale %lld is out of range", (long long)v);
        ez_diag_help(c->d, it, "a scale counts fraction bits: 0 to %d", EZ_MAX_SCALE);
        return;
    }
    if (!is_scale && (v < EZ_MIN_BITS || v > EZ_MAX_BITS)) {
        ez_diag_item *it = err(c, s->kids[0]->span, "width %lld is out of range", (long long)v);
        ez_diag_help(c->d, it, "a width counts signed bits: %d to %d", EZ_MIN_BITS, EZ_MAX_BITS);
        return;
    }
    if (is_scale)
        c->p->default_scale = (unsigned)v;
    else
        c->p->default_bits = (unsigned)v;
}

static void do_decls(sctx *c, const ez_ast *s, bool weights)
{
    const ez_ast *list = s->kids[0];
    c->seen_decl = true;
    for (size_t i = 0; i < list->nkids; i++) {
        const ez_ast *d = list->kids[i];
        const ez_ast *dims = d->kids[0], *attrs = d->kids[1];
        const char *what = weights ? "weight" : "input";
        if (!check_new_name(c, d->name, d->span, what))
            continue;
        if (weights && d->flag) {
            ez_diag_item *it = err(c, d->span, "weight '%s' cannot be a token tensor", d->name);
            ez_diag_help(c->d, it, "token ids are public inputs: input %s[...] : token", d->name);
            continue;
        }
        if (dims->nkids > EZ_MAX_RANK) {
            err(c, dims->span, "'%s' has %zu axes; at most %d are supported", d->name, dims->nkids, EZ_MAX_RANK);
            continue;
        }
        bool ok = true;
        uint64_t dv[EZ_MAX_RANK];
        unsigned __int128 numel = 1;
        for (size_t a = 0; a < dims->nkids; a++) {
            int64_t v;
            if (!const_int(c, dims->kids[a], "a size", &v)) {
                ok = false;
                continue;
            }
            if (v < 1 || (uint64_t)v > EZ_MAX_DIM) {
                char txt[40];
                span_text(c->d, dims->kids[a]->span, txt, sizeof txt);
                ez_diag_item *it = err(c, dims->kids[a]->span, "axis %zu of '%s' has size %s = %lld", a + 1,
                                       d->name, txt, (long long)v);
                ez_diag_help(c->d, it, "every axis needs a size between 1 and 2^32");
                ok = false;
                continue;
            }
            dv[a] = (uint64_t)v;
            numel *= (uint64_t)v;
        }
        if (ok && numel > EZ_MAX_NUMEL) {
            err(c, d->span, "'%s' would have more than 2^48 elements", d->name);
            ok = false;
        }
        unsigned scale = c->p->default_scale, bits = c->p->default_bits;
        bool any_attr = false;
        if (!read_attrs(c, attrs, &scale, &bits, &any_attr))
            ok = false;
        if (d->flag && any_attr) {
            ez_diag_item *it = err(c, attrs->span, "a token input takes no @scale or @bits");
            ez_diag_help(c->d, it, "token ids are integers checked against the table they index");
            ok = false;
        }
        if (!ok) {
            poison(c, d->name);
            continue;
        }
        int id = add_tensor(c, d->name, d->flag ? EZ_TENSOR_TOKENS : weights ? EZ_TENSOR_WEIGHT : EZ_TENSOR_INPUT,
                            d->span);
        if (id < 0)
            return;
        ez_tensor *t = &c->p->tensors[id];
        t->rank = (unsigned)dims->nkids;
        for (unsigned a = 0; a < t->rank; a++) {
            t->dims[a] = dv[a];
            span_text(c->d, dims->kids[a]->span, c->tx[id].dimtxt[a], sizeof c->tx[id].dimtxt[a]);
        }
        t->scale = d->flag ? 0 : scale;
        t->bits = d->flag ? EZ_MAX_BITS : bits;
        /* Provisional bound for the multiplier precision choice (make_product); the
         * final bounds are recomputed by ez_bounds_compute. Token ids are never
         * multiplied. */
        if (!d->flag)
            mpz_setbit(t->bound, t->bits - 1);
    }
}

static void do_outputs(sctx *c, const ez_ast *s)
{
    for (size_t i = 0; i < s->nkids; i++) {
        const ez_ast *n = s->kids[i];
        bool dup = false;
        for (size_t k = 0; k < c->nouts; k++)
            if (strcmp(c->outs[k].name, n->name) == 0) {
                ez_diag_item *it = err(c, n->span, "output '%s' is listed twice", n->name);
                ez_diag_note(c->d, it, c->outs[k].span, "first listed here");
                dup = true;
            }
        if (dup || !name_ok(c, n->name, n->span))
            continue;
        if (c->nouts == c->capouts) {
            size_t cap = c->capouts ? 2 * c->capouts : 4;
            void *o = ez_realloc_array(c->outs, cap, sizeof *c->outs);
            if (o == NULL) {
                c->nomem = true;
                return;
            }
            c->outs = o;
            c->capouts = cap;
        }
        snprintf(c->outs[c->nouts].name, EZ_MAX_NAME, "%s", n->name);
        c->outs[c->nouts].span = n->span;
        c->nouts++;
    }
}

/* ---- statements: building the pre-tree --------------------------------------------- */

static uint32_t pn_raw(const pn *n)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < EZ_MAX_IDX; i++)
        if (n->cnt[i])
            m |= 1u << i;
    return m;
}

static void list_indices(const sctx *c, uint32_t set, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (set & (1u << i)) {
            int w = snprintf(buf + o, cap - o, "%s%s", o ? ", " : "", c->st->idx[i].name);
            if (w < 0 || (size_t)w >= cap - o)
                break;
            o += (size_t)w;
        }
    if (o == 0)
        snprintf(buf, cap, "none");
}

static int idx_find(const sctx *c, const char *name)
{
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (strcmp(c->st->idx[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Register one use of index `name` on axis `axis` of tensor `tensor` (size size). */
static int idx_use(sctx *c, const char *name, ez_span sp, unsigned tensor, unsigned axis)
{
    ez_stmt *st = c->st;
    uint64_t size = c->p->tensors[tensor].dims[axis];
    char dd[64];
    dim_desc(c, tensor, axis, dd, sizeof dd);
    int i = idx_find(c, name);
    if (i < 0) {
        if (st->nidx >= EZ_MAX_IDX) {
            ez_diag_item *it = err(c, sp, "too many different indices in one statement (at most %d)", EZ_MAX_IDX);
            ez_diag_help(c->d, it, "split the statement in two");
            return -1;
        }
        if (!name_ok(c, name, sp))
            return -1;
        i = (int)st->nidx++;
        snprintf(st->idx[i].name, EZ_MAX_NAME, "%s", name);
        st->idx[i].size = size;
        st->idx[i].span = sp;
        snprintf(c->idx_desc[i], sizeof c->idx_desc[i], "axis %u of '%s' (size %s)", axis + 1,
                 c->p->tensors[tensor].source_name, dd);
        return i;
    }
    if (st->idx[i].size != size) {
        ez_diag_item *it = err(c, sp, "index '%s' ranges over %llu here (axis %u of '%s', size %s), but over %llu "
                               "where it is first used", name, (unsigned long long)size, axis + 1,
                               c->p->tensors[tensor].source_name, dd, (unsigned long long)st->idx[i].size);
        ez_diag_note(c->d, it, st->idx[i].span, "'%s' is first used here, on %s", name, c->idx_desc[i]);
        ez_diag_help(c->d, it, "an index has one range in a statement: use a different index name for an axis "
                               "of another size, or fix the declared shapes");
        return -1;
    }
    return i;
}

static pn *build(sctx *c, const ez_ast *e);

static bool is_plain_index_name(const ez_ast *e)
{
    return e->kind == EZ_AST_NAME;
}

/* One index item of a reference: an index name, a loop variable or constant position
 * (FIXED), or a gather tok[...] (only on axis 0, handled by the caller). */
static bool build_axis(sctx *c, const ez_ast *item, unsigned tensor, unsigned a, ez_axis *ax)
{
    const ez_tensor *t = &c->p->tensors[tensor];
    if (is_plain_index_name(item) && find_loop(c, item->name) < 0 && find_param(c, item->name) < 0) {
        int id = idx_use(c, item->name, item->span, tensor, a);
        if (id < 0)
            return false;
        ax->kind = EZ_AXIS_INDEX;
        ax->idx = (unsigned)id;
        return true;
    }
    if (is_plain_index_name(item) && find_param(c, item->name) >= 0) {
        ez_diag_item *it = err(c, item->span, "'%s' is a param, not an index", item->name);
        ez_diag_help(c->d, it, "use a lower-case index name such as '%c'; to select one position write "
                               "a constant such as %s - 1", (char)(item->name[0] | 0x20), item->name);
        return false;
    }
    if (item->kind == EZ_AST_REF) {
        ez_diag_item *it = err(c, item->span, "a token index like '%s[...]' may only be the first index of a table",
                               item->name);
        ez_diag_help(c->d, it, "put the gathered axis first: weight table[V, D] used as table[%s[s], d]", item->name);
        return false;
    }
    if (!is_const_expr(c, item)) {
        ez_diag_item *it = err(c, item->span, "an index must be an index name, a loop variable or a constant position");
        ez_diag_help(c->d, it, "compute the value in a separate statement first");
        return false;
    }
    int64_t v;
    if (!const_int(c, item, "a position", &v))
        return false;
    if (v < 0 || (uint64_t)v >= t->dims[a]) {
        char dd[64];
        dim_desc(c, tensor, a, dd, sizeof dd);
        ez_diag_item *it = err(c, item->span, "position %lld is outside axis %u of '%s' (size %s)", (long long)v,
                               a + 1, t->source_name, dd);
        ez_diag_help(c->d, it, "positions count from 0 to %llu", (unsigned long long)(t->dims[a] - 1));
        return false;
    }
    ax->kind = EZ_AXIS_FIXED;
    ax->pos = (uint64_t)v;
    return true;
}

static void report_undefined_tensor(sctx *c, const char *name, ez_span sp)
{
    if (find_poisoned(c, name) >= 0)
        return;
    const fwd_def *f = find_fwd(c, name, false);
    if (f && (f->span.first_line > sp.first_line
              || (f->span.first_line == sp.first_line && f->span.first_column > sp.first_column))) {
        ez_diag_item *it = err(c, sp, "'%s' is used before it is defined", name);
        ez_diag_note(c->d, it, f->span, "'%s' is defined here", name);
        ez_diag_help(c->d, it, "statements run in order: define '%s' above its first use", name);
        return;
    }
    if (f && c->cur_lhs && strcmp(c->cur_lhs, name) == 0) {
        ez_diag_item *it = err(c, sp, "'%s' is used in its own first definition", name);
        ez_diag_help(c->d, it, "a name may be redefined from its previous value (a residual update), but its "
                               "first definition cannot read it");
        return;
    }
    ez_diag_item *it = err(c, sp, "undefined tensor '%s'", name);
    const char *s = suggest_name(c, name, true, false);
    if (s)
        ez_diag_help(c->d, it, "did you mean '%s'?", s);
    else
        ez_diag_help(c->d, it, "declare it (input %s[...] or weight %s[...]) or define it before this statement",
                     name, name);
}

static pn *build_ref(sctx *c, const ez_ast *e)
{
    const ez_ast *items = e->kids[0];
    if (find_param(c, e->name) >= 0 || find_loop(c, e->name) >= 0) {
        err(c, e->span, "'%s' is a %s, not a tensor", e->name, find_param(c, e->name) >= 0 ? "param" : "loop variable");
        return NULL;
    }
    int t = find_tensor(c, e->name);
    if (t < 0 || find_poisoned(c, e->name) >= 0) {
        report_undefined_tensor(c, e->name, e->name_span);
        return NULL;
    }
    const ez_tensor *tt = &c->p->tensors[t];
    if (tt->kind == EZ_TENSOR_TOKENS) {
        ez_diag_item *it = err(c, e->span, "'%s' is a token input (integer ids) and cannot be used as a number",
                               e->name);
        ez_diag_note(c->d, it, tt->span, "'%s' is declared here", e->name);
        ez_diag_help(c->d, it, "a token input can only index the first axis of a table, e.g. wte[%s[s], d]", e->name);
        return NULL;
    }
    if (items->nkids != tt->rank) {
        char shape[160] = "";
        size_t o = 0;
        for (unsigned a = 0; a < tt->rank && o < sizeof shape; a++) {
            char dd[64];
            dim_desc(c, (unsigned)t, a, dd, sizeof dd);
            o += (size_t)snprintf(shape + o, sizeof shape - o, "%s%s", a ? ", " : "", c->tx[t].dimtxt[a][0] ? c->tx[t].dimtxt[a] : dd);
        }
        ez_diag_item *it = err(c, e->span, "'%s' has %u ax%s but is used with %zu ind%s", e->name, tt->rank,
                               tt->rank == 1 ? "is" : "es", items->nkids, items->nkids == 1 ? "ex" : "ices");
        ez_diag_note(c->d, it, tt->span, "'%s' is %s here with shape [%s]",
                     e->name, tt->kind == EZ_TENSOR_ACT ? "defined" : "declared", shape);
        ez_diag_help(c->d, it, "write one index per axis, e.g. %s[%s]", e->name,
                     tt->rank == 0 ? "" : tt->rank == 1 ? "i" : tt->rank == 2 ? "i, j" : tt->rank == 3 ? "i, j, k"
                                                                                                      : "i, j, k, ...");
        return NULL;
    }
    pn *n = arena_pn(c);
    if (n == NULL)
        return NULL;
    n->kind = PN_REF;
    n->span = e->span;
    n->tensor = (unsigned)t;
    n->rank = tt->rank;
    bool ok = true;
    for (unsigned a = 0; a < tt->rank; a++) {
        const ez_ast *item = items->kids[a];
        if (a == 0 && item->kind == EZ_AST_REF) {
            /* gather: table[tok[...], ...] */
            int k = find_tensor(c, item->name);
            if (k < 0 || find_poisoned(c, item->name) >= 0) {
                report_undefined_tensor(c, item->name, item->name_span);
                ok = false;
                continue;
            }
            const ez_tensor *kt = &c->p->tensors[k];
            if (kt->kind != EZ_TENSOR_TOKENS) {
                ez_diag_item *it = err(c, item->span, "'%s' holds numbers, not token ids, so it cannot index '%s'",
                                       item->name, e->name);
                ez_diag_note(c->d, it, kt->span, "'%s' is %s here", item->name,
                              kt->kind == EZ_TENSOR_ACT ? "defined" : "declared");
                ez_diag_help(c->d, it, "gather needs a public integer input: input %s[...] : token", item->name);
                ok = false;
                continue;
            }
            if (item->kids[0]->nkids != kt->rank) {
                err(c, item->span, "'%s' has %u ax%s but is used with %zu ind%s", item->name, kt->rank,
                    kt->rank == 1 ? "is" : "es", item->kids[0]->nkids, item->kids[0]->nkids == 1 ? "ex" : "ices");
                ok = false;
                continue;
            }
            n->kind = PN_GATHER;
            n->tok = (unsigned)k;
            n->tok_rank = kt->rank;
            for (unsigned b = 0; b < kt->rank; b++) {
                const ez_ast *ti = item->kids[0]->kids[b];
                if (ti->kind == EZ_AST_REF) {
                    err(c, ti->span, "a token index cannot itself be gathered");
                    ok = false;
                    continue;
                }
                if (!build_axis(c, ti, (unsigned)k, b, &n->tok_axes[b]))
                    ok = false;
                else if (n->tok_axes[b].kind == EZ_AXIS_INDEX)
                    n->cnt[n->tok_axes[b].idx]++;
            }
            n->axes[0].kind = EZ_AXIS_GATHER;
            /* The vocabulary is the table's first axis: ids must be below it. */
            ez_tensor *kw = &c->p->tensors[k];
            if (kw->token_limit == 0 || (uint64_t)kw->token_limit > tt->dims[0])
                kw->token_limit = (int64_t)tt->dims[0];
            continue;
        }
        if (!build_axis(c, item, (unsigned)t, a, &n->axes[a])) {
            ok = false;
            continue;
        }
        if (n->axes[a].kind == EZ_AXIS_INDEX) {
            unsigned id = n->axes[a].idx;
            if (n->cnt[id]) {
                ez_diag_item *it = err(c, item->span, "index '%s' appears twice in one reference to '%s'",
                                       item->name, e->name);
                ez_diag_help(c->d, it, "diagonals are not supported; use two index names");
                ok = false;
            }
            n->cnt[id]++;
        }
    }
    return ok ? n : NULL;
}

static pn *build_call(sctx *c, const ez_ast *e)
{
    const ez_builtin *b = ez_builtin_by_name(e->name);
    if (b == NULL) {
        ez_diag_item *it;
        if (strcmp(e->name, "sqrt") == 0) {
            it = err(c, e->name_span, "sqrt applies only to constants");
            ez_diag_help(c->d, it, "for a tensor use rsqrt(x) (1/sqrt), or a norm: layernorm[i](x), rmsnorm[i](x)");
            return NULL;
        }
        if (find_tensor(c, e->name) >= 0) {
            it = err(c, e->name_span, "'%s' is a tensor, not a function", e->name);
            ez_diag_help(c->d, it, "index a tensor with square brackets: %s[i, j]", e->name);
            return NULL;
        }
        it = err(c, e->name_span, "unknown function '%s'", e->name);
        static const struct {
            const char *name, *help;
        } hints[] = {
            {"sum", "summation is implicit: an index on the right that is not on the left is summed, "
                    "e.g. y[s] = x[s, d]"},
            {"mean", "sum by leaving the index out of the left side and divide by its size: y[s] = x[s, d] / D"},
            {"matmul", "write the product with a shared index: y[s, n] = x[s, d] * w[d, n]"},
            {"dot", "write the product with a shared index: y[s, n] = x[s, d] * w[d, n]"},
            {"einsum", "every statement is an einsum: y[s, n] = x[s, d] * w[d, n]"},
            {"transpose", "indices are matched by name, so a transpose is y[n, s] = x[s, n]"},
            {"reshape", "declare weights in split form instead, e.g. weight wq[D, H, E]"},
            {"concat", "declare weights in split form (wq[D, H, E]) and contract over both axes: "
                       "y[s, n] = c[s, h, e] * wo[h, e, n]"},
            {"swish", "swish is silu: silu(x[i])"},
            {"mask", "the causal mask is causal[i, j](e)"},
        };
        for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++)
            if (strcmp(hints[h].name, e->name) == 0) {
                ez_diag_help(c->d, it, "%s", hints[h].help);
                return NULL;
            }
        suggest s = {NULL, 99, e->name};
        size_t nb;
        const ez_builtin *tab = ez_builtin_table(&nb);
        for (size_t i = 0; i < nb; i++)
            if (tab[i].name)
                suggest_try(&s, tab[i].name);
        if (s.best)
            ez_diag_help(c->d, it, "did you mean '%s'?", s.best);
        else
            ez_diag_help(c->d, it, "the functions are %s", ez_builtin_list());
        return NULL;
    }
    const ez_ast *args = e->kids[0];
    const ez_ast *axes = e->nkids > 1 ? e->kids[1] : NULL;
    if (args->nkids != 1) {
        ez_diag_item *it = err(c, e->span, "%s takes one argument, but %zu are given", e->name, args->nkids);
        ez_diag_help(c->d, it, "combine tensors inside the argument, e.g. %s(a[i] + b[i])", e->name);
        return NULL;
    }
    size_t nax = axes ? axes->nkids : 0;
    if (b->naxes == 0 && axes) {
        ez_diag_item *it = err(c, axes->span, "%s is elementwise and takes no axis", e->name);
        ez_diag_help(c->d, it, "write %s(x[i, j])", e->name);
        return NULL;
    }
    if (b->naxes > 0 && nax != b->naxes) {
        ez_diag_item *it = err(c, axes ? axes->span : e->span, "%s needs %s axis argument%s, but %zu %s given",
                               e->name, b->naxes == 1 ? "one" : "two", b->naxes == 1 ? "" : "s", nax,
                               nax == 1 ? "is" : "are");
        if (b->kind == EZ_OP_ROPE)
            ez_diag_help(c->d, it, "write rope[s, e](x[..., s, ..., e]): positions s rotate the pairs (e, e + E/2)");
        else if (b->naxes == 2)
            ez_diag_help(c->d, it, "write causal[i, j](x[..., i, ..., j]): entries with j > i are masked");
        else
            ez_diag_help(c->d, it, "name the index it works along: %s[t](a[s, t])", e->name);
        return NULL;
    }
    pn *arg = build(c, args->kids[0]);
    if (arg == NULL)
        return NULL;
    if (arg->kind == PN_CONST) {
        err(c, args->kids[0]->span, "the argument of %s is a constant; it must involve a tensor", e->name);
        return NULL;
    }
    pn *n = arena_pn(c);
    if (n == NULL)
        return NULL;
    n->kind = PN_CALL;
    n->span = e->span;
    n->bi = b;
    n->fname = b->name;
    n->nk = 1;
    n->k[0] = arg;
    n->naxes = (unsigned)nax;
    memcpy(n->cnt, arg->cnt, sizeof n->cnt);
    uint32_t raw = pn_raw(arg);
    bool ok = true;
    for (size_t a = 0; a < nax; a++) {
        const ez_ast *ax = axes->kids[a];
        int id = ax->kind == EZ_AST_NAME ? idx_find(c, ax->name) : -1;
        if (ax->kind != EZ_AST_NAME || find_loop(c, ax->name) >= 0 || find_param(c, ax->name) >= 0) {
            ez_diag_item *it = err(c, ax->span, "the axis argument of %s must be an index name", e->name);
            ez_diag_help(c->d, it, "e.g. %s[t](a[s, t]) works along t", e->name);
            ok = false;
            continue;
        }
        if (id < 0 || !(raw & (1u << id))) {
            char have[160];
            list_indices(c, raw, have, sizeof have);
            ez_diag_item *it = err(c, ax->span, "axis '%s' of %s is not an index of its operand", ax->name, e->name);
            ez_diag_help(c->d, it, "the operand has indices %s", have);
            ok = false;
            continue;
        }
        if (a == 1 && (unsigned)id == n->axis[0]) {
            ez_diag_item *it = err(c, ax->span, "causal needs two different indices");
            ez_diag_help(c->d, it, "causal[s, t](a[h, s, t]) masks the entries with t > s");
            ok = false;
            continue;
        }
        n->axis[a] = (unsigned)id;
        n->cnt[id]++;
    }
    return ok ? n : NULL;
}

static pn *make_const(sctx *c, double v, ez_span sp)
{
    pn *n = arena_pn(c);
    if (n) {
        n->kind = PN_CONST;
        n->c = v;
        n->span = sp;
    }
    return n;
}

/* A product node holding x (flattened if x is itself a product). */
static pn *as_prod(sctx *c, pn *x)
{
    if (x->kind == PN_PROD)
        return x;
    pn *n = arena_pn(c);
    if (n == NULL)
        return NULL;
    n->kind = PN_PROD;
    n->span = x->span;
    n->c = 1;
    n->nk = 1;
    n->k[0] = x;
    memcpy(n->cnt, x->cnt, sizeof n->cnt);
    return n;
}

static pn *scale_by(sctx *c, pn *x, double f, ez_span sp)
{
    if (x->kind == PN_SUM && f == -1) {
        for (unsigned i = 0; i < x->nk; i++)
            x->sign[i] = -x->sign[i];
        x->span = sp;
        return x;
    }
    pn *n = as_prod(c, x);
    if (n == NULL)
        return NULL;
    n->c *= f;
    n->span = sp;
    return n;
}

static void add_cnt(pn *dst, const pn *src)
{
    for (unsigned i = 0; i < EZ_MAX_IDX; i++)
        dst->cnt[i] = (uint16_t)(dst->cnt[i] + src->cnt[i]);
}

static pn *build(sctx *c, const ez_ast *e)
{
    if (is_const_expr(c, e)) {
        cval v;
        if (!const_eval(c, e, &v, "a constant"))
            return NULL;
        return make_const(c, v.v, e->span);
    }
    switch (e->kind) {
    case EZ_AST_NAME: {
        int t = find_tensor(c, e->name);
        const ez_tensor *tt = &c->p->tensors[t];
        if (tt->rank != 0) {
            ez_diag_item *it = err(c, e->span, "'%s' has %u ax%s; write its indices", e->name, tt->rank,
                                   tt->rank == 1 ? "is" : "es");
            ez_diag_help(c->d, it, "e.g. %s[%s]", e->name, tt->rank == 1 ? "i" : tt->rank == 2 ? "i, j" : "i, j, k");
            return NULL;
        }
        if (tt->kind == EZ_TENSOR_TOKENS) {
            err(c, e->span, "'%s' is a token input and cannot be used as a number", e->name);
            return NULL;
        }
        pn *n = arena_pn(c);
        if (n) {
            n->kind = PN_REF;
            n->span = e->span;
            n->tensor = (unsigned)t;
        }
        return n;
    }
    case EZ_AST_REF:
        return build_ref(c, e);
    case EZ_AST_CALL:
        return build_call(c, e);
    case EZ_AST_PAREN: {
        pn *n = build(c, e->kids[0]);
        if (n && n->kind != PN_PROD)
            n->span = e->span;
        return n;
    }
    case EZ_AST_NEG: {
        pn *x = build(c, e->kids[0]);
        return x ? scale_by(c, x, -1, e->span) : NULL;
    }
    case EZ_AST_BINOP: {
        pn *a = build(c, e->kids[0]);
        pn *b = build(c, e->kids[1]);
        if (a == NULL || b == NULL)
            return NULL;
        if (e->op == '/') {
            if (b->kind != PN_CONST) {
                ez_diag_item *it = err(c, e->kids[1]->span, "division by a tensor is not supported");
                ez_diag_help(c->d, it, "divide only by a constant (a[i] / 8); to normalise use softmax, layernorm "
                                       "or rmsnorm, or multiply by rsqrt(...)");
                return NULL;
            }
            if (b->c == 0) {
                err(c, e->kids[1]->span, "division by zero");
                return NULL;
            }
            return scale_by(c, a, 1.0 / b->c, e->span);
        }
        if (e->op == '*') {
            if (a->kind == PN_CONST)
                return scale_by(c, b, a->c, e->span);
            if (b->kind == PN_CONST)
                return scale_by(c, a, b->c, e->span);
            pn *pa = as_prod(c, a), *pb = as_prod(c, b);
            if (pa == NULL || pb == NULL)
                return NULL;
            if (pa->nk + pb->nk > EZ_MAX_OPERANDS) {
                ez_diag_item *it = err(c, e->span, "a product of more than %d tensors", EZ_MAX_OPERANDS);
                ez_diag_help(c->d, it, "split it over two statements");
                return NULL;
            }
            pn *n = pa;
            for (unsigned i = 0; i < pb->nk; i++)
                n->k[n->nk++] = pb->k[i];
            n->c *= pb->c;
            add_cnt(n, pb);
            n->span = e->span;
            return n;
        }
        /* + and - */
        if (a->kind == PN_CONST || b->kind == PN_CONST) {
            ez_diag_item *it = err(c, (a->kind == PN_CONST ? a : b)->span,
                                   "a constant cannot be added to a tensor");
            ez_diag_help(c->d, it, "definitions have no constant term; add a bias tensor instead (+ b[n]) or "
                                   "fold the constant into a weight");
            return NULL;
        }
        pn *n = a;
        if (a->kind != PN_SUM) {
            n = arena_pn(c);
            if (n == NULL)
                return NULL;
            n->kind = PN_SUM;
            n->nk = 1;
            n->k[0] = a;
            n->sign[0] = 1;
            memcpy(n->cnt, a->cnt, sizeof n->cnt);
        }
        int sg = e->op == '-' ? -1 : 1;
        pn *terms[EZ_MAX_OPERANDS];
        int signs[EZ_MAX_OPERANDS];
        unsigned nt = 0;
        if (b->kind == PN_SUM) {
            for (unsigned i = 0; i < b->nk && nt < EZ_MAX_OPERANDS; i++) {
                terms[nt] = b->k[i];
                signs[nt++] = sg * b->sign[i];
            }
        } else {
            terms[nt] = b;
            signs[nt++] = sg;
        }
        if (n->nk + nt > EZ_MAX_OPERANDS) {
            ez_diag_item *it = err(c, e->span, "a sum of more than %d terms", EZ_MAX_OPERANDS);
            ez_diag_help(c->d, it, "split it over two statements");
            return NULL;
        }
        for (unsigned i = 0; i < nt; i++) {
            n->k[n->nk] = terms[i];
            n->sign[n->nk++] = signs[i];
        }
        add_cnt(n, b);
        n->span = e->span;
        return n;
    }
    default:
        err(c, e->span, "this is not an expression");
        return NULL;
    }
}

/* ---- statements: reduce + scales --------------------------------------------------- */

static uint32_t node_outset(const ez_node *n)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < n->nout; i++)
        m |= 1u << n->out[i];
    return m;
}

/* out[] of a node from an ordered candidate list filtered by a set. */
static void set_out(ez_node *n, const unsigned *order, unsigned norder, uint32_t keep)
{
    n->nout = 0;
    uint32_t seen = 0;
    for (unsigned i = 0; i < norder; i++) {
        unsigned id = order[i];
        if ((keep & (1u << id)) && !(seen & (1u << id))) {
            n->out[n->nout++] = id;
            seen |= 1u << id;
        }
    }
}

static void collect_order(const ez_node *const *ins, unsigned nin, unsigned *order, unsigned *norder)
{
    *norder = 0;
    uint32_t seen = 0;
    for (unsigned k = 0; k < nin; k++)
        for (unsigned i = 0; i < ins[k]->nout; i++) {
            unsigned id = ins[k]->out[i];
            if (!(seen & (1u << id))) {
                seen |= 1u << id;
                order[(*norder)++] = id;
            }
        }
}

/* A constant factor as integer multiplier and scale adjustment: value * cst ==
 * value * mul / 2^extra, exactly for powers of two and integers; otherwise mul has
 * `sig` significant bits (relative error below 2^-sig). */
static void const_to_fixed(double cst, int sig, int64_t *mul, int *extra)
{
    int e;
    double f = frexp(fabs(cst), &e); /* |cst| = f * 2^e, f in [0.5, 1) */
    int sg = cst < 0 ? -1 : 1;
    if (f == 0.5) {
        *mul = sg;
        *extra = -(e - 1);
        return;
    }
    int64_t m;
    int x;
    if (cst == floor(cst) && fabs(cst) < 9.0e15) {
        m = (int64_t)fabs(cst);
        x = 0;
    } else {
        x = (sig - 1) - (e - 1);
        if (x < 0)
            x = 0;
        m = llround(ldexp(fabs(cst), x));
    }
    while (m != 0 && (m & 1) == 0) {
        m >>= 1;
        x--;
    }
    *mul = sg * m;
    *extra = x;
}

static bool shift_or_mul(sctx *c, ez_node *n, long acc_scale, unsigned target, int64_t *coef, unsigned ncoef)
{
    long sh = acc_scale - (long)target;
    if (sh >= 0) {
        n->shift = (unsigned)sh;
        return true;
    }
    n->shift = 0;
    if (-sh > 60)
        goto too_big;
    for (unsigned k = 0; k < ncoef; k++) {
        int64_t r;
        if (__builtin_mul_overflow(coef[k], (int64_t)1 << -sh, &r) || r > (INT64_C(1) << 61)
            || r < -(INT64_C(1) << 61))
            goto too_big;
        coef[k] = r;
    }
    return true;
too_big: {
    ez_diag_item *it = err(c, n->span, "this constant factor is too large for exact integer arithmetic");
    ez_diag_help(c->d, it, "keep constant factors below 2^61 after scaling");
    return false;
}
}

static ez_node *make_product(sctx *c, ez_node **ins, unsigned nin, uint32_t keep, double cst, ez_span sp,
                             bool tmp)
{
    ez_node *n = new_node(c, EZ_NODE_PRODUCT, sp);
    if (n == NULL)
        return NULL;
    unsigned order[EZ_MAX_IDX], norder;
    collect_order((const ez_node *const *)ins, nin, order, &norder);
    uint32_t all = 0;
    long acc_scale = 0;
    for (unsigned k = 0; k < nin; k++) {
        n->in[k] = ins[k];
        all |= node_outset(ins[k]);
        acc_scale += ins[k]->scale;
    }
    n->nin = nin;
    set_out(n, order, norder, keep & all);
    n->nsum = 0;
    for (unsigned i = 0; i < norder; i++)
        if (!(keep & (1u << order[i])))
            n->sum[n->nsum++] = order[i];
    n->split_tmp = tmp;
    int extra = 0;
    if (cst == 0) {
        ez_diag_item *it = err(c, sp, "multiplication by zero makes this expression constant");
        ez_diag_help(c->d, it, "remove the term");
        return NULL;
    }
    /* A non-power-of-two constant gets up to 16 significant bits, as many as the
     * accumulator's headroom below 2^62 allows (the operands' exact bounds times the
     * summed lengths), but at least 4. */
    int sig = 16;
    {
        mpz_t raw;
        mpz_init_set_ui(raw, 1);
        for (unsigned k = 0; k < nin; k++)
            mpz_mul(raw, raw, ins[k]->bound);
        for (unsigned i = 0; i < n->nsum; i++)
            mpz_mul_ui(raw, raw, c->st->idx[n->sum[i]].size);
        int avail = (EZ_BOUND_LIMIT_BITS - 1) - (int)ceil(ez_bound_log2(raw));
        mpz_clear(raw);
        if (avail < sig)
            sig = avail < 4 ? 4 : avail;
    }
    const_to_fixed(cst, sig, &n->mul, &extra);
    n->scale = c->st->scale;
    n->bits = c->st->bits;
    if (!shift_or_mul(c, n, acc_scale + extra, n->scale, &n->mul, 1))
        return NULL;
    n->range_checked = n->shift > 0;
    ez_bounds_node(c->p, c->st, n);
    return n;
}

/* Size of an index set: product of index sizes (as a double: only compared). */
static double set_cost(const sctx *c, uint32_t set)
{
    double r = 1;
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (set & (1u << i))
            r *= (double)c->st->idx[i].size;
    return r;
}

/* Split a product of k >= 3 factors into pairwise contractions, choosing the order that
 * minimises the total work, sum over contractions of the product of the sizes of all
 * indices involved (the integer inference cost). Dynamic programming over subsets. */
static ez_node *split_product(sctx *c, ez_node **f, unsigned k, uint32_t keep, double cst, ez_span sp)
{
    unsigned nsub = 1u << k;
    uint32_t fset[EZ_MAX_OPERANDS];
    for (unsigned i = 0; i < k; i++)
        fset[i] = node_outset(f[i]);
    double best[1u << EZ_MAX_OPERANDS];
    unsigned choice[1u << EZ_MAX_OPERANDS];
    uint32_t need[1u << EZ_MAX_OPERANDS];
    for (unsigned s = 1; s < nsub; s++) {
        uint32_t in = 0, outside = keep;
        for (unsigned i = 0; i < k; i++) {
            if (s & (1u << i))
                in |= fset[i];
            else
                outside |= fset[i];
        }
        need[s] = in & outside;
        if ((s & (s - 1)) == 0) {
            best[s] = 0;
            choice[s] = 0;
            continue;
        }
        best[s] = INFINITY;
        choice[s] = 0;
        for (unsigned a = (s - 1) & s; a; a = (a - 1) & s) {
            unsigned b = s ^ a;
            if (a < b)
                continue; /* each split once */
            double cost = best[a] + best[b] + set_cost(c, need[a] | need[b]);
            if (cost < best[s]) {
                best[s] = cost;
                choice[s] = a;
            }
        }
    }
    /* Build bottom-up with an explicit stack of subsets. */
    ez_node *built[1u << EZ_MAX_OPERANDS];
    memset(built, 0, sizeof(ez_node *) * nsub);
    for (unsigned i = 0; i < k; i++)
        built[1u << i] = f[i];
    unsigned stack[64], top = 0, full = nsub - 1;
    stack[top++] = full;
    while (top) {
        unsigned s = stack[top - 1];
        unsigned a = choice[s], b = s ^ a;
        if (!built[a]) {
            stack[top++] = a;
            continue;
        }
        if (!built[b]) {
            stack[top++] = b;
            continue;
        }
        top--;
        /* Operands in source order: the side holding the earlier factor first. */
        bool a_first = (a & -a) < (b & -b);
        ez_node *ins[2] = {a_first ? built[a] : built[b], a_first ? built[b] : built[a]};
        bool is_top = s == full;
        built[s] = make_product(c, ins, 2, is_top ? keep : need[s], is_top ? cst : 1.0, sp, !is_top);
        if (built[s] == NULL)
            return NULL;
    }
    return built[full];
}

/* True iff some product inside x (not looking into nested calls) has index i in two or
 * more factors, i.e. would contract i if i were summed there. */
static bool contracts_inside(const pn *x, unsigned i)
{
    if (x->kind == PN_PROD) {
        unsigned with = 0;
        for (unsigned k = 0; k < x->nk; k++)
            with += x->k[k]->cnt[i] > 0;
        if (with >= 2)
            return true;
    }
    if (x->kind == PN_PROD || x->kind == PN_SUM)
        for (unsigned k = 0; k < x->nk; k++)
            if (contracts_inside(x->k[k], i))
                return true;
    return false;
}

/* Lower the pre-tree under `allowed` (the indices this subtree may keep). */
static ez_node *reduce(sctx *c, const pn *x, uint32_t allowed, const uint16_t *total)
{
    uint32_t alive = 0;
    for (unsigned i = 0; i < c->st->nidx; i++)
        if (x->cnt[i] && x->cnt[i] < total[i])
            alive |= 1u << i;
    uint32_t keep = alive & allowed;
    ez_node *n = NULL;
    switch (x->kind) {
    case PN_CONST:
        err(c, x->span, "a constant cannot stand alone here");
        return NULL;
    case PN_REF:
    case PN_GATHER: {
        const ez_tensor *t = &c->p->tensors[x->tensor];
        ez_node *r = new_node(c, EZ_NODE_REF, x->span);
        if (r == NULL)
            return NULL;
        r->tensor = x->tensor;
        r->rank = t->rank;
        memcpy(r->axes, x->axes, sizeof r->axes);
        r->scale = t->scale;
        r->bits = t->bits;
        for (unsigned a = 0; a < t->rank; a++)
            if (x->axes[a].kind == EZ_AXIS_INDEX)
                r->out[r->nout++] = x->axes[a].idx;
        n = r;
        if (x->kind == PN_GATHER) {
            const ez_tensor *k = &c->p->tensors[x->tok];
            ez_node *tk = new_node(c, EZ_NODE_REF, x->span);
            ez_node *g = new_node(c, EZ_NODE_GATHER, x->span);
            if (tk == NULL || g == NULL)
                return NULL;
            tk->tensor = x->tok;
            tk->rank = k->rank;
            memcpy(tk->axes, x->tok_axes, sizeof tk->axes);
            tk->scale = 0;
            tk->bits = k->bits;
            for (unsigned a = 0; a < k->rank; a++)
                if (x->tok_axes[a].kind == EZ_AXIS_INDEX)
                    tk->out[tk->nout++] = x->tok_axes[a].idx;
            g->nin = 2;
            g->in[0] = r;
            g->in[1] = tk;
            g->scale = t->scale;
            g->bits = t->bits;
            for (unsigned i = 0; i < tk->nout; i++)
                g->out[g->nout++] = tk->out[i];
            for (unsigned i = 0; i < r->nout; i++)
                g->out[g->nout++] = r->out[i];
            n = g;
        }
        break;
    }
    case PN_CALL: {
        /* DESIGN §2 keeps an index that also occurs outside a function's argument. When
         * the argument multiplies two tensors over that index and the index is summed
         * later anyway (SwiGLU written as silu(x[s,d]*wg[d,f]) * (x[s,d]*wu[d,f])), the
         * literal reading applies the function before the sum: almost never what was
         * meant, and a large intermediate. Refuse it with both spellings in the help. */
        for (unsigned i = 0; i < c->st->nidx; i++) {
            const pn *a = x->k[0];
            bool is_axis = false;
            for (unsigned k = 0; k < x->naxes; k++)
                is_axis |= x->axis[k] == i;
            if (a->cnt[i] == 0 || a->cnt[i] >= total[i] || (c->lhs_set & (1u << i)) || is_axis ||
                !contracts_inside(a, i))
                continue;
            const char *nm = c->st->idx[i].name;
            ez_diag_item *it = err(c, x->span, "index '%s' is multiplied inside the argument of %s and also used "
                                               "outside it, so %s would be applied before the sum over '%s'",
                                   nm, x->fname, x->fname, nm);
            ez_diag_help(c->d, it, "to sum '%s' inside %s, give its other uses another index name (e.g. '%s2'); "
                                   "to apply %s first, compute its argument in a separate statement",
                         nm, x->fname, nm, x->fname);
            return NULL;
        }
        ez_node *arg = reduce(c, x->k[0], ~0u, total);
        if (arg == NULL)
            return NULL;
        ez_node *f = new_node(c, EZ_NODE_FUNC, x->span);
        if (f == NULL)
            return NULL;
        f->op = x->bi->kind;
        f->func = x->bi->func;
        f->nin = 1;
        f->in[0] = arg;
        f->axis = x->axis[0];
        if (x->bi->naxes == 2) {
            f->mask_row = x->axis[0];
            f->mask_col = x->axis[1];
        }
        uint32_t argset = node_outset(arg);
        for (unsigned a = 0; a < x->naxes; a++)
            if (!(argset & (1u << x->axis[a]))) {
                /* Defensive: axes count as outside the operand, so they are never summed away. */
                err(c, x->span, "internal: axis of %s lost in its operand", x->fname);
                return NULL;
            }
        for (unsigned i = 0; i < arg->nout; i++) {
            unsigned id = arg->out[i];
            if (x->bi->drops_axis && id == x->axis[0])
                continue;
            f->out[f->nout++] = id;
        }
        f->bits = c->st->bits;
        switch (x->bi->scale) {
        case EZ_SCALE_INDEX: {
            uint64_t nax = c->st->idx[x->axis[0]].size;
            f->scale = 0;
            f->bits = ez_bitlen(nax > 1 ? nax - 1 : 1) + 1;
            if (f->bits < EZ_MIN_BITS)
                f->bits = EZ_MIN_BITS;
            break;
        }
        case EZ_SCALE_OPERAND:
            f->scale = arg->scale;
            f->bits = arg->bits;
            break;
        case EZ_SCALE_TARGET:
            f->scale = c->st->scale;
            break;
        }
        if (x->bi->kind == EZ_OP_ROPE) {
            /* the rotation pairs e with e + E/2; its accumulator has the operand's scale + 16 */
            uint64_t ext = c->st->idx[x->axis[1]].size;
            if (ext % 2 != 0) {
                ez_diag_item *it = err(c, x->span, "rope's rotary index '%s' ranges over %llu, an odd number",
                                       c->st->idx[x->axis[1]].name, (unsigned long long)ext);
                ez_diag_help(c->d, it, "rope rotates the pairs (e, e + E/2): the rotary axis needs an even size");
                return NULL;
            }
            if (arg->scale + EZ_ROPE_SCALE <= f->scale || arg->scale + EZ_ROPE_SCALE - f->scale > 62) {
                ez_diag_item *it = err(c, x->span, "rope's result scale %u must be below its operand's scale %u + %d",
                                       f->scale, arg->scale, EZ_ROPE_SCALE);
                ez_diag_help(c->d, it, "give the statement a smaller @scale");
                return NULL;
            }
            f->shift = arg->scale + EZ_ROPE_SCALE - f->scale;
        }
        n = f;
        break;
    }
    case PN_PROD: {
        ez_node *fs[EZ_MAX_OPERANDS];
        for (unsigned i = 0; i < x->nk; i++) {
            fs[i] = reduce(c, x->k[i], ~0u, total);
            if (fs[i] == NULL)
                return NULL;
        }
        if (x->nk >= 3)
            return split_product(c, fs, x->nk, keep, x->c, x->span);
        return make_product(c, fs, x->nk, keep, x->c, x->span, false);
    }
    case PN_SUM: {
        ez_node *a = new_node(c, EZ_NODE_ADD, x->span);
        if (a == NULL)
            return NULL;
        long common = 0;
        for (unsigned i = 0; i < x->nk; i++) {
            a->in[i] = reduce(c, x->k[i], keep, total);
            if (a->in[i] == NULL)
                return NULL;
            if ((long)a->in[i]->scale > common)
                common = a->in[i]->scale;
        }
        a->nin = x->nk;
        unsigned order[EZ_MAX_IDX], norder;
        collect_order((const ez_node *const *)a->in, a->nin, order, &norder);
        set_out(a, order, norder, ~0u);
        for (unsigned i = 0; i < x->nk; i++) {
            unsigned d = (unsigned)(common - (long)a->in[i]->scale);
            if (d > 60) {
                ez_diag_item *it = err(c, x->k[i]->span, "the scales of these terms differ by %u bits", d);
                ez_diag_help(c->d, it, "give the tensors closer @scale values");
                return NULL;
            }
            a->coef[i] = x->sign[i] * ((int64_t)1 << d);
        }
        a->scale = c->st->scale;
        a->bits = c->st->bits;
        if (!shift_or_mul(c, a, common, a->scale, a->coef, a->nin))
            return NULL;
        a->range_checked = a->shift > 0;
        ez_bounds_node(c->p, c->st, a);
        return a;
    }
    }
    if (n == NULL)
        return NULL;
    for (unsigned k = 0; k < n->nin; k++)
        if (n->in[k]->kind == EZ_NODE_REF)
            ez_bounds_node(c->p, c->st, n->in[k]);
    ez_bounds_node(c->p, c->st, n);
    /* REF, GATHER and FUNC: indices whose smallest enclosing subexpression is this one
     * are summed right here by a one-operand product. */
    uint32_t have = node_outset(n);
    if ((have & ~keep) != 0) {
        ez_node *ins[1] = {n};
        return make_product(c, ins, 1, keep, 1.0, x->span, false);
    }
    return n;
}

static bool same_order(const ez_node *n, const unsigned *lhs, unsigned nl)
{
    if (n->nout != nl)
        return false;
    for (unsigned i = 0; i < nl; i++)
        if (n->out[i] != lhs[i])
            return false;
    return true;
}

static void do_assign(sctx *c, const ez_ast *s)
{
    const ez_ast *lhs = s->kids[0], *attrs = s->kids[1], *rhs = s->kids[2];
    c->seen_decl = true;
    if (c->p->nstmts >= EZ_MAX_UNROLLED) {
        if (!c->unroll_capped) {
            ez_diag_item *it = err(c, s->span, "the model has more than %d statements after unrolling loops",
                                   EZ_MAX_UNROLLED);
            ez_diag_help(c->d, it, "use smaller loop ranges");
        }
        c->unroll_capped = true;
        return;
    }
    if (lhs->kind == EZ_AST_NAME) {
        ez_diag_item *it = err(c, lhs->span, "the left side needs its indices");
        ez_diag_help(c->d, it, "write %s[i, j] = ... (or %s[] = ... for a scalar)", lhs->name, lhs->name);
        return;
    }
    if (find_param(c, lhs->name) >= 0 || find_loop(c, lhs->name) >= 0) {
        int p = find_param(c, lhs->name);
        ez_diag_item *it = err(c, lhs->span, "'%s' is a %s and cannot be assigned", lhs->name,
                               p >= 0 ? "param" : "loop variable");
        if (p >= 0)
            ez_diag_note(c->d, it, c->p->params[p].span, "param '%s' is defined here", lhs->name);
        ez_diag_help(c->d, it, "choose another name for the tensor");
        return;
    }
    if (!name_ok(c, lhs->name, lhs->span))
        return;
    const ez_ast *litems = lhs->kids[0];
    if (litems->nkids > EZ_MAX_RANK) {
        err(c, litems->span, "'%s' would have %zu axes; at most %d are supported", lhs->name, litems->nkids,
            EZ_MAX_RANK);
        return;
    }

    /* The statement under construction lives in a local until it is complete. */
    ez_stmt st;
    memset(&st, 0, sizeof st);
    st.scale = c->p->default_scale;
    st.bits = c->p->default_bits;
    st.span = s->span;
    c->st = &st;
    c->cur_lhs = lhs->name;
    size_t errs0 = c->d->nerrors;
    arena_reset(c);
    if (!read_attrs(c, attrs, &st.scale, &st.bits, NULL))
        goto out;

    pn *root = build(c, rhs);
    if (root == NULL)
        goto out;
    if (root->kind == PN_CONST) {
        ez_diag_item *it = err(c, rhs->span, "the right side is a constant; it must involve a tensor");
        ez_diag_help(c->d, it, "definitions compute tensors from inputs and weights");
        goto out;
    }

    /* Left side: distinct index names, each used on the right. */
    unsigned lhs_ids[EZ_MAX_RANK];
    uint32_t lhs_set = 0;
    bool ok = true;
    for (size_t a = 0; a < litems->nkids; a++) {
        const ez_ast *it = litems->kids[a];
        if (it->kind != EZ_AST_NAME) {
            ez_diag_item *d = err(c, it->span, "the left side takes index names only");
            ez_diag_help(c->d, d, "a definition computes the whole tensor: %s[i, j] = ...", lhs->name);
            ok = false;
            continue;
        }
        if (find_loop(c, it->name) >= 0) {
            ez_diag_item *d = err(c, it->span, "loop variable '%s' cannot index the left side", it->name);
            ez_diag_help(c->d, d, "each unrolled statement defines a whole tensor; give per-layer results their "
                                  "own names or update one tensor (h[s, d] = h[s, d] + ...)");
            ok = false;
            continue;
        }
        if (find_param(c, it->name) >= 0) {
            ez_diag_item *d = err(c, it->span, "'%s' is a param, not an index", it->name);
            ez_diag_help(c->d, d, "use a lower-case index name");
            ok = false;
            continue;
        }
        int id = idx_find(c, it->name);
        if (id < 0) {
            ez_diag_item *d = err(c, it->span, "index '%s' of the left side does not occur on the right side",
                                  it->name);
            ez_diag_help(c->d, d, "its range would be unknown; every index on the left must index a tensor on "
                                  "the right");
            ok = false;
            continue;
        }
        if (lhs_set & (1u << id)) {
            ez_diag_item *d = err(c, it->span, "index '%s' appears twice on the left side", it->name);
            ez_diag_help(c->d, d, "use distinct index names");
            ok = false;
            continue;
        }
        lhs_set |= 1u << id;
        lhs_ids[a] = (unsigned)id;
    }
    if (!ok)
        goto out;

    c->lhs_set = lhs_set;
    uint16_t total[EZ_MAX_IDX];
    for (unsigned i = 0; i < EZ_MAX_IDX; i++)
        total[i] = (uint16_t)(root->cnt[i] + ((lhs_set >> i) & 1));
    ez_node *n = reduce(c, root, lhs_set, total);
    if (n == NULL)
        goto out;
    uint32_t have = node_outset(n);
    if ((have & lhs_set) != lhs_set) {
        for (size_t a = 0; a < litems->nkids; a++)
            if (!(have & (1u << lhs_ids[a]))) {
                ez_diag_item *d = err(c, litems->kids[a]->span,
                                      "index '%s' of the left side is reduced away on the right side",
                                      litems->kids[a]->name);
                ez_diag_help(c->d, d, "max[%s] and argmax[%s] remove the index they reduce; drop it from the left "
                                      "side", litems->kids[a]->name, litems->kids[a]->name);
            }
        goto out;
    }
    /* The root produces the left side's axes in order at the statement's scale. */
    bool argmax_root = n->kind == EZ_NODE_FUNC && ez_builtin_of(n->op, n->func)->scale == EZ_SCALE_INDEX;
    if (n->kind == EZ_NODE_REF || n->kind == EZ_NODE_GATHER || (!argmax_root && n->scale != st.scale)) {
        ez_node *ins[1] = {n};
        n = make_product(c, ins, 1, lhs_set, 1.0, rhs->span, false);
        if (n == NULL)
            goto out;
    }
    if (!same_order(n, lhs_ids, (unsigned)litems->nkids)) {
        n->nout = (unsigned)litems->nkids;
        memcpy(n->out, lhs_ids, sizeof(unsigned) * litems->nkids);
    }
    if (c->d->nerrors != errs0)
        goto out;

    /* Define the new version. */
    int id = add_tensor(c, lhs->name, EZ_TENSOR_ACT, lhs->span);
    if (id < 0)
        goto out;
    ez_tensor *t = &c->p->tensors[id];
    t->rank = (unsigned)litems->nkids;
    unsigned __int128 numel = 1;
    for (unsigned a = 0; a < t->rank; a++) {
        t->dims[a] = st.idx[lhs_ids[a]].size;
        numel *= t->dims[a];
        snprintf(c->tx[id].dimtxt[a], sizeof c->tx[id].dimtxt[a], "%s", "");
    }
    if (numel > EZ_MAX_NUMEL) {
        err(c, lhs->span, "'%s' would have more than 2^48 elements", lhs->name);
        goto out;
    }
    t->scale = n->scale;
    t->bits = n->bits;
    mpz_set(t->bound, n->bound);
    {
        mpz_t lim;
        mpz_init(lim);
        mpz_setbit(lim, EZ_BOUND_LIMIT_BITS);
        if (mpz_cmp(t->bound, lim) >= 0)
            mpz_sub_ui(t->bound, lim, 1);
        mpz_clear(lim);
    }
    t->def_stmt = (int)c->p->nstmts;
    st.def = (unsigned)id;
    st.root = n;
    span_text(c->d, s->span, st.text, sizeof st.text);
    {
        size_t o = 0;
        for (unsigned i = 0; i < c->nloops && o < sizeof st.iter; i++) {
            int w = snprintf(st.iter + o, sizeof st.iter - o, "%s%s=%lld", i ? "," : "", c->loops[i].name,
                             (long long)c->loops[i].value);
            if (w < 0)
                break;
            o += (size_t)w;
        }
    }
    if (c->p->nstmts == c->capstmts) {
        size_t cap = c->capstmts ? 2 * c->capstmts : 16;
        ez_stmt *ns = ez_realloc_array(c->p->stmts, cap, sizeof *ns);
        if (ns == NULL) {
            c->nomem = true;
            goto out;
        }
        c->p->stmts = ns;
        c->capstmts = cap;
    }
    c->p->stmts[c->p->nstmts++] = st;
    unpoison(c, lhs->name);
    c->st = NULL;
    c->cur_lhs = NULL;
    arena_reset(c);
    return;
out:
    poison(c, lhs->name);
    c->st = NULL;
    c->cur_lhs = NULL;
    arena_reset(c);
}

static void do_block(sctx *c, const ez_ast *block, bool top);

static void do_for(sctx *c, const ez_ast *s)
{
    if (c->nloops >= EZ_MAX_LOOP_DEPTH) {
        err(c, s->span, "loops nest more than %d deep", EZ_MAX_LOOP_DEPTH);
        return;
    }
    if (!check_new_name(c, s->name, s->span, "loop variable"))
        return;
    int64_t lo, hi;
    bool ok = const_int(c, s->kids[0], "a loop bound", &lo);
    ok = const_int(c, s->kids[1], "a loop bound", &hi) && ok;
    if (!ok)
        return;
    if (hi <= lo) {
        ez_diag_item *it = err(c, ez_span_join(s->kids[0]->span, s->kids[1]->span),
                               "the loop range %lld..%lld is empty", (long long)lo, (long long)hi);
        ez_diag_help(c->d, it, "a range lo..hi runs over lo, lo+1, ..., hi-1; hi must be larger than lo");
        return;
    }
    loopvar *lv = &c->loops[c->nloops++];
    snprintf(lv->name, sizeof lv->name, "%s", s->name);
    lv->span = s->span;
    for (int64_t v = lo; v < hi; v++) {
        lv->value = v;
        size_t e0 = c->d->nerrors;
        do_block(c, s->kids[2], false);
        /* An error in one iteration would repeat in every other: report it once. */
        if (c->d->nerrors != e0 || c->nomem || c->unroll_capped)
            break;
    }
    c->nloops--;
}

static void do_block(sctx *c, const ez_ast *block, bool top)
{
    for (size_t i = 0; i < block->nkids && !c->nomem; i++) {
        const ez_ast *s = block->kids[i];
        if (!top && s->kind != EZ_AST_ASSIGN && s->kind != EZ_AST_FOR) {
            const char *what = s->kind == EZ_AST_PARAMS ? "a param"
                               : s->kind == EZ_AST_INPUTS ? "an input"
                               : s->kind == EZ_AST_WEIGHTS ? "a weight"
                               : s->kind == EZ_AST_OUTPUTS ? "an output"
                               : s->kind == EZ_AST_MODEL ? "the model name"
                                                          : "a default";
            ez_diag_item *it = err(c, s->span, "%s cannot be declared inside a for loop", what);
            if (s->kind == EZ_AST_INPUTS || s->kind == EZ_AST_WEIGHTS)
                for (size_t j = 0; j < s->kids[0]->nkids; j++)
                    poison(c, s->kids[0]->kids[j]->name);
            else if (s->kind == EZ_AST_PARAMS)
                for (size_t j = 0; j < s->nkids; j++)
                    poison(c, s->kids[j]->name);
            if (s->kind == EZ_AST_WEIGHTS)
                ez_diag_help(c->d, it, "declare the weight once at the top level with a layer axis, e.g. "
                                       "weight wq[L, D, H, E], and use wq[l, d, h, e] in the loop");
            else
                ez_diag_help(c->d, it, "move it to the top level of the file");
            continue;
        }
        switch (s->kind) {
        case EZ_AST_MODEL:
            if (c->have_model) {
                ez_diag_item *it = err(c, s->span, "the model is named twice");
                ez_diag_note(c->d, it, c->model_span, "first named here");
                break;
            }
            c->have_model = true;
            c->model_span = s->span;
            if (name_ok(c, s->name, s->span))
                snprintf(c->p->model, sizeof c->p->model, "%s", s->name);
            break;
        case EZ_AST_PARAMS:
            do_params(c, s);
            break;
        case EZ_AST_SCALE:
            do_default(c, s, true);
            break;
        case EZ_AST_BITS:
            do_default(c, s, false);
            break;
        case EZ_AST_INPUTS:
            do_decls(c, s, false);
            break;
        case EZ_AST_WEIGHTS:
            do_decls(c, s, true);
            break;
        case EZ_AST_OUTPUTS:
            do_outputs(c, s);
            break;
        case EZ_AST_ASSIGN:
            do_assign(c, s);
            break;
        case EZ_AST_FOR:
            do_for(c, s);
            break;
        default:
            err(c, s->span, "internal: unexpected statement");
            break;
        }
    }
}

static void finish(sctx *c)
{
    ez_program *p = c->p;
    /* -D names must be params of this model. */
    for (size_t k = 0; k < c->ndefs; k++) {
        for (size_t j = 0; j < k; j++)
            if (strcmp(c->defs[j].name, c->defs[k].name) == 0) {
                ez_span none = {0};
                err(c, none, "%s: param '%s' is set twice on the command line", c->defs[k].text ? c->defs[k].text : "-D",
                    c->defs[k].name);
            }
        if (c->def_used[k])
            continue;
        ez_span none = {0};
        ez_diag_item *it = err(c, none, "%s: the model has no param '%s'", c->defs[k].text ? c->defs[k].text : "-D",
                               c->defs[k].name);
        suggest s = {NULL, 99, c->defs[k].name};
        char list[256] = "";
        size_t o = 0;
        for (size_t i = 0; i < p->nparams; i++) {
            suggest_try(&s, p->params[i].name);
            int w = snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", p->params[i].name);
            if (w > 0 && (size_t)w < sizeof list - o)
                o += (size_t)w;
        }
        if (s.best)
            ez_diag_help(c->d, it, "did you mean -D %s=...? the params are %s", s.best, list);
        else if (p->nparams)
            ez_diag_help(c->d, it, "the params of this model are %s", list);
        else
            ez_diag_help(c->d, it, "this model declares no params");
    }
    /* Outputs name the last version of a computed tensor. */
    for (size_t i = 0; i < c->nouts; i++) {
        int t = find_tensor(c, c->outs[i].name);
        if (find_poisoned(c, c->outs[i].name) >= 0)
            continue;
        if (t < 0) {
            ez_diag_item *it = err(c, c->outs[i].span, "undefined output '%s'", c->outs[i].name);
            const char *s = suggest_name(c, c->outs[i].name, true, false);
            if (s)
                ez_diag_help(c->d, it, "did you mean '%s'?", s);
            else
                ez_diag_help(c->d, it, "define it, e.g. %s[i] = ..., before or after this line", c->outs[i].name);
            continue;
        }
        if (p->tensors[t].kind != EZ_TENSOR_ACT) {
            ez_diag_item *it = err(c, c->outs[i].span, "output '%s' is %s, not a computed tensor", c->outs[i].name,
                                   p->tensors[t].kind == EZ_TENSOR_WEIGHT ? "a weight" : "an input");
            ez_diag_help(c->d, it, "outputs are results of definitions; copy it if you need it: y[i] = %s[i]",
                         c->outs[i].name);
            continue;
        }
        unsigned *o = ez_realloc_array(p->outputs, p->noutputs + 1, sizeof *o);
        if (o == NULL) {
            c->nomem = true;
            return;
        }
        p->outputs = o;
        o[p->noutputs++] = (unsigned)t;
        p->tensors[t].is_output = true;
    }
    /* Every silent failure (a use of a name whose definition failed) follows a reported
     * error; if none was reported, say so rather than accept a partial program. */
    if (c->npoisoned > 0 && !ez_diag_any(c->d)) {
        ez_span none = {0};
        err(c, none, "internal error: '%s' could not be defined, but no reason was reported", c->poisoned[0]);
    }
    if (c->nouts == 0 && !ez_diag_any(c->d)) {
        ez_span none = {0};
        ez_diag_item *it = err(c, none, "the model has no output");
        ez_diag_help(c->d, it, "add a line 'output NAME' naming the tensor the model returns");
    }
    /* Token inputs must index a table (that fixes their vocabulary). */
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_TOKENS && p->tensors[i].token_limit == 0 && !ez_diag_any(c->d)) {
            ez_diag_item *it = err(c, p->tensors[i].span, "token input '%s' never indexes a table",
                                   p->tensors[i].name);
            ez_diag_help(c->d, it, "use it as the first index of an embedding: x[s, d] = wte[%s[s], d]",
                         p->tensors[i].name);
        }
}

/* ---- entry points ------------------------------------------------------------------ */

void ez_program_free(ez_program *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nnodes; i++) {
        mpz_clear(p->nodes[i]->bound);
        mpz_clear(p->nodes[i]->raw_bound);
        free(p->nodes[i]);
    }
    free(p->nodes);
    for (size_t i = 0; i < p->ntensors; i++)
        mpz_clear(p->tensors[i].bound);
    free(p->tensors);
    free(p->stmts);
    free(p->params);
    free(p->outputs);
    free(p);
}

ez_status ez_sema_check(const ez_ast *ast, const ez_define *defs, size_t ndefs, ez_diag_list *diags,
                        ez_program **out)
{
    ez_status st = EZ_OK;
    sctx c;
    memset(&c, 0, sizeof c);
    *out = NULL;
    c.d = diags;
    c.defs = defs;
    c.ndefs = ndefs;
    c.p = calloc(1, sizeof *c.p);
    c.def_used = ndefs ? calloc(ndefs, sizeof *c.def_used) : NULL;
    if (c.p == NULL || (ndefs && c.def_used == NULL)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    c.p->default_scale = 12;
    c.p->default_bits = 24;
    prescan(&c, ast);
    do_block(&c, ast, true);
    if (!c.nomem)
        finish(&c);
    if (c.nomem) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if (ez_diag_any(diags)) {
        st = EZ_ERR_SOURCE;
        goto out;
    }
    st = ez_bounds_compute(c.p, diags);
    if (st != EZ_OK)
        goto out;
    *out = c.p;
    c.p = NULL;
out:
    ez_program_free(c.p);
    arena_reset(&c);
    free(c.arena);
    free(c.tx);
    free(c.outs);
    free(c.fwd);
    free(c.poisoned);
    free(c.latest);
    free(c.def_used);
    return st;
}

ez_status ez_compile_front(const char *path, const char *src, size_t len, const ez_define *defs,
                           size_t ndefs, ez_diag_list *diags, ez_program **out)
{
    ez_ast *ast = NULL;
    *out = NULL;
    ez_diag_list_init(diags, path, src, len);
    ez_status st = ez_parse(&ast, src, len, diags);
    if (st != EZ_OK)
        return st;
    if (ast == NULL || ez_diag_any(diags)) {
        /* Syntax errors: still report -D names and nothing else (names in a partial
         * tree would produce follow-on errors). */
        ez_ast_free(ast);
        return ez_diag_any(diags) ? EZ_ERR_SOURCE : EZ_ERR_INTERNAL;
    }
    st = ez_sema_check(ast, defs, ndefs, diags, out);
    ez_ast_free(ast);
    return st;
}

int ez_program_find(const ez_program *p, const char *name)
{
    for (size_t i = p->ntensors; i-- > 0;)
        if (strcmp(p->tensors[i].source_name, name) == 0 || strcmp(p->tensors[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- dumps ------------------------------------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
    bool failed;
} dbuf;

static void dput(dbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dput(dbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (s == NULL) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void dump_idx(dbuf *b, const ez_stmt *s, const unsigned *ids, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        dput(b, "%s%s", i ? "," : "", s->idx[ids[i]].name);
}

static void dump_node(dbuf *b, const ez_program *p, const ez_stmt *s, const ez_node *n)
{
    switch (n->kind) {
    case EZ_NODE_REF:
        dput(b, "%s[", p->tensors[n->tensor].name);
        for (unsigned a = 0; a < n->rank; a++) {
            if (a)
                dput(b, ",");
            if (n->axes[a].kind == EZ_AXIS_INDEX)
                dput(b, "%s", s->idx[n->axes[a].idx].name);
            else if (n->axes[a].kind == EZ_AXIS_FIXED)
                dput(b, "%llu", (unsigned long long)n->axes[a].pos);
            else
                dput(b, "*");
        }
        dput(b, "]");
        return;
    case EZ_NODE_GATHER:
        dput(b, "gather(");
        dump_node(b, p, s, n->in[0]);
        dput(b, ", ");
        dump_node(b, p, s, n->in[1]);
        dput(b, ")");
        return;
    case EZ_NODE_PRODUCT:
        dput(b, "%s[", n->split_tmp ? "product~" : "product");
        dump_idx(b, s, n->out, n->nout);
        dput(b, "|");
        dump_idx(b, s, n->sum, n->nsum);
        dput(b, "](");
        break;
    case EZ_NODE_ADD:
        dput(b, "add[");
        dump_idx(b, s, n->out, n->nout);
        dput(b, "](");
        break;
    case EZ_NODE_FUNC: {
        const ez_builtin *bi = ez_builtin_of(n->op, n->func);
        dput(b, "%s[", bi->name);
        dump_idx(b, s, n->out, n->nout);
        if (bi->naxes == 2)
            dput(b, "|%s,%s", s->idx[n->mask_row].name, s->idx[n->mask_col].name);
        else if (bi->naxes == 1)
            dput(b, "|%s", s->idx[n->axis].name);
        dput(b, "](");
        break;
    }
    }
    for (unsigned k = 0; k < n->nin; k++) {
        if (k)
            dput(b, ", ");
        if (n->kind == EZ_NODE_ADD && n->coef[k] != 1)
            dput(b, "%lld*", (long long)n->coef[k]);
        dump_node(b, p, s, n->in[k]);
    }
    dput(b, ")");
    if (n->kind == EZ_NODE_PRODUCT && n->mul != 1)
        dput(b, "*%lld", (long long)n->mul);
    if ((n->kind == EZ_NODE_PRODUCT || n->kind == EZ_NODE_ADD) && n->shift)
        dput(b, ">>%u", n->shift);
}

char *ez_node_dump(const ez_program *p, const ez_stmt *s, const ez_node *n)
{
    dbuf b = {0};
    dump_node(&b, p, s, n);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

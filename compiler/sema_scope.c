/* sema_scope — names and what they stand for while a program is checked: params,
 * declarations, the latest version of every tensor, loop variables, names whose
 * definition failed ("poisoned"), constant expressions and attributes, and the
 * top-level statements that only declare (param, @scale/@bits defaults, input, weight,
 * output). Contracts in sema_internal.h. */
#include "compiler/sema_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------------------- */

ez_diag_item *ez_sema_err(ez_sema_ctx *c, ez_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ez_diag_item *it = ez_diag_verror(c->d, sp, fmt, ap);
    va_end(ap);
    return it;
}

ez_pn *ez_sema_pn_new(ez_sema_ctx *c, ez_pn_kind k, ez_span sp)
{
    ez_pn **room = ez_array_room(c->arena, c->narena, &c->caparena, sizeof *room, 32);
    if (room == NULL) {
        c->nomem = true;
        return NULL;
    }
    c->arena = room;
    ez_pn *n = calloc(1, sizeof *n);
    if (n == NULL) {
        c->nomem = true;
        return NULL;
    }
    c->arena[c->narena++] = n;
    n->kind = k;
    n->span = sp;
    return n;
}

void ez_sema_pn_free_all(ez_sema_ctx *c)
{
    for (size_t i = 0; i < c->narena; i++)
        free(c->arena[i]);
    c->narena = 0;
}

ez_node *ez_sema_node_new(ez_sema_ctx *c, ez_node_kind k, ez_span sp)
{
    ez_program *p = c->p;
    ez_node **room = ez_array_room(p->nodes, p->nnodes, &p->capnodes, sizeof *room, 64);
    if (room == NULL) {
        c->nomem = true;
        return NULL;
    }
    p->nodes = room;
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
void ez_sema_span_text(const ez_diag_list *d, ez_span sp, char *buf, size_t cap)
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

int ez_sema_find_param(const ez_sema_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->p->nparams; i++)
        if (strcmp(c->p->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

int ez_sema_find_loop(const ez_sema_ctx *c, const char *name)
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

int ez_sema_find_tensor(const ez_sema_ctx *c, const char *name)
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
static bool set_latest(ez_sema_ctx *c, unsigned id)
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

const ez_sema_fwd *ez_sema_find_fwd(const ez_sema_ctx *c, const char *name, bool is_param)
{
    for (size_t i = 0; i < c->nfwd; i++)
        if (c->fwd[i].is_param == is_param && strcmp(c->fwd[i].name, name) == 0)
            return &c->fwd[i];
    return NULL;
}

static void add_fwd(ez_sema_ctx *c, const char *name, ez_span sp, bool is_param)
{
    if (ez_sema_find_fwd(c, name, is_param))
        return;
    ez_sema_fwd *room = ez_array_room(c->fwd, c->nfwd, &c->capfwd, sizeof *room, 32);
    if (room == NULL) {
        c->nomem = true;
        return;
    }
    c->fwd = room;
    c->fwd[c->nfwd++] = (ez_sema_fwd){name, sp, is_param};
}

/* Every name defined anywhere in the file, to tell "used before its definition" from
 * "undefined". */
void ez_sema_prescan(ez_sema_ctx *c, const ez_ast *block)
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
            ez_sema_prescan(c, s->kids[2]);
    }
}

int ez_sema_find_poisoned(const ez_sema_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->npoisoned; i++)
        if (strcmp(c->poisoned[i], name) == 0)
            return (int)i;
    return -1;
}

void ez_sema_poison(ez_sema_ctx *c, const char *name)
{
    if (ez_sema_find_poisoned(c, name) >= 0)
        return;
    void *room = ez_array_room(c->poisoned, c->npoisoned, &c->cappoisoned, sizeof *c->poisoned, 16);
    if (room == NULL) {
        c->nomem = true;
        return;
    }
    c->poisoned = room;
    snprintf(c->poisoned[c->npoisoned++], EZ_MAX_NAME, "%s", name);
}

void ez_sema_unpoison(ez_sema_ctx *c, const char *name)
{
    int i = ez_sema_find_poisoned(c, name);
    if (i >= 0)
        memmove(c->poisoned[i], c->poisoned[c->npoisoned - 1], EZ_MAX_NAME), c->npoisoned--;
}

/* "did you mean" over tensors, params (if with_params) and loop variables. */
const char *ez_sema_suggest_name(const ez_sema_ctx *c, const char *want, bool tensors, bool params)
{
    ez_suggest s;
        ez_suggest_init(&s, want);
    if (tensors)
        for (size_t i = 0; i < c->p->ntensors; i++)
            ez_suggest_try(&s, c->p->tensors[i].source_name);
    if (params) {
        for (size_t i = 0; i < c->p->nparams; i++)
            ez_suggest_try(&s, c->p->params[i].name);
        for (unsigned i = 0; i < c->nloops; i++)
            ez_suggest_try(&s, c->loops[i].name);
    }
    return s.best;
}

/* ---- constants --------------------------------------------------------------------- */

bool ez_sema_is_const_expr(const ez_sema_ctx *c, const ez_ast *e)
{
    switch (e->kind) {
    case EZ_AST_NUM:
        return true;
    case EZ_AST_NAME:
        /* Unknown names count as constants so the constant evaluator reports them. */
        return ez_sema_find_tensor(c, e->name) < 0 || ez_sema_find_param(c, e->name) >= 0
               || ez_sema_find_loop(c, e->name) >= 0;
    case EZ_AST_BINOP:
        return ez_sema_is_const_expr(c, e->kids[0]) && ez_sema_is_const_expr(c, e->kids[1]);
    case EZ_AST_NEG:
    case EZ_AST_PAREN:
        return ez_sema_is_const_expr(c, e->kids[0]);
    case EZ_AST_CALL:
        return strcmp(e->name, "sqrt") == 0 && e->nkids == 1 && e->kids[0]->nkids == 1
               && ez_sema_is_const_expr(c, e->kids[0]->kids[0]);
    default:
        return false;
    }
}

bool ez_sema_const_eval(ez_sema_ctx *c, const ez_ast *e, ez_sema_cval *out, const char *what)
{
    ez_sema_cval a, b;
    switch (e->kind) {
    case EZ_AST_NUM:
        if (e->bad) {
            ez_diag_item *it = ez_sema_err(c, e->span, "number '%s' is out of range", e->text);
            ez_diag_help(c->d, it, "integers must fit in 63 bits");
            return false;
        }
        out->is_int = e->is_int;
        out->i = e->ival;
        out->v = e->is_int ? (double)e->ival : e->num;
        return true;
    case EZ_AST_NAME: {
        int l = ez_sema_find_loop(c, e->name);
        if (l >= 0) {
            *out = (ez_sema_cval){true, c->loops[l].value, (double)c->loops[l].value};
            return true;
        }
        int p = ez_sema_find_param(c, e->name);
        if (p >= 0) {
            *out = (ez_sema_cval){true, c->p->params[p].value, (double)c->p->params[p].value};
            return true;
        }
        if (c->cur_param && strcmp(c->cur_param, e->name) == 0) {
            ez_diag_item *it = ez_sema_err(c, e->span, "param '%s' is defined in terms of itself", e->name);
            ez_diag_help(c->d, it, "define it from other params or a number");
            return false;
        }
        if (ez_sema_find_poisoned(c, e->name) >= 0)
            return false;
        int t = ez_sema_find_tensor(c, e->name);
        if (t >= 0) {
            ez_sema_err(c, e->span, "'%s' is a tensor, but %s must be a constant", e->name, what);
            return false;
        }
        const ez_sema_fwd *f = ez_sema_find_fwd(c, e->name, true);
        if (f) {
            ez_diag_item *it = ez_sema_err(c, e->span, "param '%s' is used before its definition", e->name);
            ez_diag_note(c->d, it, f->span, "'%s' is defined here", e->name);
            ez_diag_help(c->d, it, "move the param line above its first use");
            return false;
        }
        ez_diag_item *it = ez_sema_err(c, e->span, "undefined name '%s'", e->name);
        const char *s = ez_sema_suggest_name(c, e->name, false, true);
        if (s)
            ez_diag_help(c->d, it, "did you mean '%s'?", s);
        else
            ez_diag_help(c->d, it, "%s may use numbers, params and loop variables", what);
        return false;
    }
    case EZ_AST_PAREN:
        return ez_sema_const_eval(c, e->kids[0], out, what);
    case EZ_AST_NEG:
        if (!ez_sema_const_eval(c, e->kids[0], &a, what))
            return false;
        out->is_int = a.is_int && a.i != INT64_MIN;
        out->i = out->is_int ? -a.i : 0;
        out->v = -a.v;
        return true;
    case EZ_AST_BINOP: {
        if (!ez_sema_const_eval(c, e->kids[0], &a, what) || !ez_sema_const_eval(c, e->kids[1], &b, what))
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
                ez_sema_err(c, e->kids[1]->span, "division by zero");
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
            ez_sema_err(c, e->span, "this constant overflows");
            return false;
        }
        return true;
    }
    case EZ_AST_CALL:
        if (strcmp(e->name, "sqrt") == 0 && e->nkids == 1 && e->kids[0]->nkids == 1) {
            if (!ez_sema_const_eval(c, e->kids[0]->kids[0], &a, what))
                return false;
            if (a.v < 0) {
                ez_sema_err(c, e->span, "sqrt of a negative number");
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
        ez_sema_err(c, e->span, "%s must be a constant, but this calls '%s'", what, e->name);
        return false;
    default:
        ez_sema_err(c, e->span, "%s must be a constant expression", what);
        return false;
    }
}

bool ez_sema_const_int(ez_sema_ctx *c, const ez_ast *e, const char *what, int64_t *out)
{
    ez_sema_cval v;
    if (!ez_sema_const_eval(c, e, &v, what))
        return false;
    if (!v.is_int) {
        ez_diag_item *it = ez_sema_err(c, e->span, "%s must be a whole number, but this is %g", what, v.v);
        ez_diag_help(c->d, it, "sizes, positions, scales and widths are integers; "
                               "a division of sizes must be exact");
        return false;
    }
    *out = v.i;
    return true;
}

/* ---- attributes -------------------------------------------------------------------- */

/* @scale(n) @bits(n) of a declaration or statement. */
bool ez_sema_read_attrs(ez_sema_ctx *c, const ez_ast *attrs, unsigned *scale, unsigned *bits, bool *any)
{
    bool ok = true, have_s = false, have_b = false;
    ez_span first_s = {0}, first_b = {0};
    if (any)
        *any = attrs->nkids > 0;
    for (size_t i = 0; i < attrs->nkids; i++) {
        const ez_ast *a = attrs->kids[i];
        bool is_s = strcmp(a->name, "scale") == 0, is_b = strcmp(a->name, "bits") == 0;
        if (!is_s && !is_b) {
            ez_diag_item *it = ez_sema_err(c, a->span, "unknown attribute '@%s'", a->name);
            ez_diag_help(c->d, it, "the attributes are @scale(N) (fraction bits) and @bits(N) (signed width)");
            ok = false;
            continue;
        }
        if ((is_s && have_s) || (is_b && have_b)) {
            ez_diag_item *it = ez_sema_err(c, a->span, "'@%s' is given twice", a->name);
            ez_diag_note(c->d, it, is_s ? first_s : first_b, "first given here");
            ok = false;
            continue;
        }
        int64_t v;
        if (!ez_sema_const_int(c, a->kids[0], is_s ? "a scale" : "a width", &v)) {
            ok = false;
            continue;
        }
        if (is_s) {
            have_s = true;
            first_s = a->span;
            if (v < 0 || v > EZ_MAX_SCALE) {
                ez_diag_item *it = ez_sema_err(c, a->kids[0]->span, "scale %lld is out of range", (long long)v);
                ez_diag_help(c->d, it, "a scale counts fraction bits: 0 to %d", EZ_MAX_SCALE);
                ok = false;
            } else
                *scale = (unsigned)v;
        } else {
            have_b = true;
            first_b = a->span;
            if (v < EZ_MIN_BITS || v > EZ_MAX_BITS) {
                ez_diag_item *it = ez_sema_err(c, a->kids[0]->span, "width %lld is out of range", (long long)v);
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

int ez_sema_add_tensor(ez_sema_ctx *c, const char *source_name, ez_tensor_kind kind, ez_span sp)
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
        ez_sema_tensor_extra *x = ez_realloc_array(c->tx, cap, sizeof *x);
        if (x == NULL) {
            c->nomem = true;
            return -1;
        }
        c->tx = x;
        c->txcap = cap;
    }
    unsigned version = 0;
    int prev = ez_sema_find_tensor(c, source_name);
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

void ez_sema_dim_desc(const ez_sema_ctx *c, unsigned tensor, unsigned axis, char *buf, size_t cap)
{
    const ez_tensor *t = &c->p->tensors[tensor];
    const char *txt = c->tx[tensor].dimtxt[axis];
    bool is_number = txt[0] >= '0' && txt[0] <= '9' && strspn(txt, "0123456789") == strlen(txt);
    if (txt[0] && !is_number)
        snprintf(buf, cap, "%s = %llu", txt, (unsigned long long)t->dims[axis]);
    else
        snprintf(buf, cap, "%llu", (unsigned long long)t->dims[axis]);
}

bool ez_sema_name_ok(ez_sema_ctx *c, const char *name, ez_span sp)
{
    if (strlen(name) > EZ_SRC_NAME_MAX) {
        ez_sema_err(c, sp, "name '%.20s...' is too long (at most %d characters)", name, EZ_SRC_NAME_MAX);
        return false;
    }
    return true;
}

/* A name about to be declared (param, input, weight, loop variable) must be new. */
bool ez_sema_check_new_name(ez_sema_ctx *c, const char *name, ez_span sp, const char *what)
{
    if (!ez_sema_name_ok(c, name, sp))
        return false;
    int p = ez_sema_find_param(c, name);
    if (p >= 0) {
        ez_diag_item *it = ez_sema_err(c, sp, "%s '%s' is already defined as a param", what, name);
        ez_diag_note(c->d, it, c->p->params[p].span, "param '%s' is defined here", name);
        ez_diag_help(c->d, it, "choose another name");
        return false;
    }
    int t = ez_sema_find_tensor(c, name);
    if (t >= 0) {
        const ez_tensor *tt = &c->p->tensors[t];
        ez_diag_item *it = ez_sema_err(c, sp, "%s '%s' is already defined", what, name);
        ez_diag_note(c->d, it, tt->span, "'%s' is first defined here", name);
        ez_diag_help(c->d, it, "choose another name");
        return false;
    }
    int l = ez_sema_find_loop(c, name);
    if (l >= 0) {
        ez_diag_item *it = ez_sema_err(c, sp, "%s '%s' is already the name of a loop variable", what, name);
        ez_diag_note(c->d, it, c->loops[l].span, "loop variable '%s' is defined here", name);
        return false;
    }
    return true;
}

/* ---- top-level statements ---------------------------------------------------------- */

void ez_sema_params(ez_sema_ctx *c, const ez_ast *s)
{
    for (size_t i = 0; i < s->nkids; i++) {
        const ez_ast *d = s->kids[i];
        int prev = ez_sema_find_param(c, d->name);
        if (prev >= 0) {
            ez_diag_item *it = ez_sema_err(c, d->span, "param '%s' is defined twice", d->name);
            ez_diag_note(c->d, it, c->p->params[prev].span, "first defined here");
            ez_diag_help(c->d, it, "remove one definition; to change a size, use -D %s=VALUE on the command line",
                         d->name);
            continue;
        }
        if (!ez_sema_check_new_name(c, d->name, d->span, "param"))
            continue;
        int64_t v = 0;
        c->cur_param = d->name;
        bool ok = ez_sema_const_int(c, d->kids[0], "a param value", &v);
        c->cur_param = NULL;
        ez_sema_poison(c, d->name); /* until it is defined below */
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
                it = ez_sema_err(c, d->span, "param '%s' must be between 1 and 2^32, but %s sets it to %lld", d->name,
                                 def->text ? def->text : "-D", (long long)v);
            else
                it = ez_sema_err(c, d->kids[0]->span, "param '%s' must be between 1 and 2^32, but it is %lld",
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
        ez_sema_unpoison(c, d->name);
    }
}

void ez_sema_default(ez_sema_ctx *c, const ez_ast *s, bool is_scale)
{
    bool *have = is_scale ? &c->have_scale : &c->have_bits;
    ez_span *first = is_scale ? &c->scale_span : &c->bits_span;
    const char *kw = is_scale ? "scale" : "bits";
    if (*have) {
        ez_diag_item *it = ez_sema_err(c, s->span, "'%s' is set twice", kw);
        ez_diag_note(c->d, it, *first, "first set here");
        ez_diag_help(c->d, it, "set the default once; override it per declaration or statement with @%s(N)", kw);
        return;
    }
    *have = true;
    *first = s->span;
    if (c->seen_decl) {
        ez_diag_item *it = ez_sema_err(c, s->span, "'%s' must come before the first declaration or definition", kw);
        ez_diag_help(c->d, it, "move this line up, next to the params; it sets the default of the whole model");
        return;
    }
    int64_t v;
    if (!ez_sema_const_int(c, s->kids[0], is_scale ? "a scale" : "a width", &v))
        return;
    if (is_scale && (v < 0 || v > EZ_MAX_SCALE)) {
        ez_diag_item *it = ez_sema_err(c, s->kids[0]->span, "scale %lld is out of range", (long long)v);
        ez_diag_help(c->d, it, "a scale counts fraction bits: 0 to %d", EZ_MAX_SCALE);
        return;
    }
    if (!is_scale && (v < EZ_MIN_BITS || v > EZ_MAX_BITS)) {
        ez_diag_item *it = ez_sema_err(c, s->kids[0]->span, "width %lld is out of range", (long long)v);
        ez_diag_help(c->d, it, "a width counts signed bits: %d to %d", EZ_MIN_BITS, EZ_MAX_BITS);
        return;
    }
    if (is_scale && !c->scale_fixed)
        c->p->default_scale = (unsigned)v;
    else if (!is_scale && !c->bits_fixed)
        c->p->default_bits = (unsigned)v;
}

void ez_sema_overrides(ez_sema_ctx *c, int scale, int bits)
{
    ez_span none = {0};
    if (scale > EZ_MAX_SCALE)
        ez_diag_help(c->d, ez_sema_err(c, none, "--scale %d is out of range", scale),
                     "a scale counts fraction bits: 0 to %d", EZ_MAX_SCALE);
    else if (scale >= 0) {
        c->p->default_scale = (unsigned)scale;
        c->scale_fixed = true;
    }
    if (bits >= 0 && (bits < EZ_MIN_BITS || bits > EZ_MAX_BITS))
        ez_diag_help(c->d, ez_sema_err(c, none, "--bits %d is out of range", bits),
                     "a width counts signed bits: %d to %d", EZ_MIN_BITS, EZ_MAX_BITS);
    else if (bits >= 0) {
        c->p->default_bits = (unsigned)bits;
        c->bits_fixed = true;
    }
}

void ez_sema_decls(ez_sema_ctx *c, const ez_ast *s, bool weights)
{
    const ez_ast *list = s->kids[0];
    c->seen_decl = true;
    for (size_t i = 0; i < list->nkids; i++) {
        const ez_ast *d = list->kids[i];
        const ez_ast *dims = d->kids[0], *attrs = d->kids[1];
        const char *what = weights ? "weight" : "input";
        if (!ez_sema_check_new_name(c, d->name, d->span, what))
            continue;
        if (weights && d->flag) {
            ez_diag_item *it = ez_sema_err(c, d->span, "weight '%s' cannot be a token tensor", d->name);
            ez_diag_help(c->d, it, "token ids are public inputs: input %s[...] : token", d->name);
            continue;
        }
        if (dims->nkids > EZ_MAX_RANK) {
            ez_sema_err(c, dims->span, "'%s' has %zu axes; at most %d are supported", d->name, dims->nkids,
                        EZ_MAX_RANK);
            continue;
        }
        bool ok = true;
        uint64_t dv[EZ_MAX_RANK];
        unsigned __int128 numel = 1;
        for (size_t a = 0; a < dims->nkids; a++) {
            int64_t v;
            if (!ez_sema_const_int(c, dims->kids[a], "a size", &v)) {
                ok = false;
                continue;
            }
            if (v < 1 || (uint64_t)v > EZ_MAX_DIM) {
                char txt[40];
                ez_sema_span_text(c->d, dims->kids[a]->span, txt, sizeof txt);
                ez_diag_item *it = ez_sema_err(c, dims->kids[a]->span, "axis %zu of '%s' has size %s = %lld", a + 1,
                                               d->name, txt, (long long)v);
                ez_diag_help(c->d, it, "every axis needs a size between 1 and 2^32");
                ok = false;
                continue;
            }
            dv[a] = (uint64_t)v;
            numel *= (uint64_t)v;
        }
        if (ok && numel > EZ_MAX_NUMEL) {
            ez_sema_err(c, d->span, "'%s' would have more than 2^48 elements", d->name);
            ok = false;
        }
        unsigned scale = c->p->default_scale, bits = c->p->default_bits;
        bool any_attr = false;
        if (!ez_sema_read_attrs(c, attrs, &scale, &bits, &any_attr))
            ok = false;
        if (d->flag && any_attr) {
            ez_diag_item *it = ez_sema_err(c, attrs->span, "a token input takes no @scale or @bits");
            ez_diag_help(c->d, it, "token ids are integers checked against the table they index");
            ok = false;
        }
        if (!ok) {
            ez_sema_poison(c, d->name);
            continue;
        }
        int id = ez_sema_add_tensor(c, d->name,
                                    d->flag   ? EZ_TENSOR_TOKENS
                                    : weights ? EZ_TENSOR_WEIGHT
                                              : EZ_TENSOR_INPUT,
                                    d->span);
        if (id < 0)
            return;
        ez_tensor *t = &c->p->tensors[id];
        t->rank = (unsigned)dims->nkids;
        for (unsigned a = 0; a < t->rank; a++) {
            t->dims[a] = dv[a];
            ez_sema_span_text(c->d, dims->kids[a]->span, c->tx[id].dimtxt[a], sizeof c->tx[id].dimtxt[a]);
        }
        t->scale = d->flag ? 0 : scale;
        t->bits = d->flag ? EZ_MAX_BITS : bits;
        /* Provisional bound for the multiplier precision choice (ez_sema_make_product); the
         * final bounds are recomputed by ez_bounds_compute. Token ids are never
         * multiplied. */
        if (!d->flag)
            mpz_setbit(t->bound, t->bits - 1);
    }
}

void ez_sema_outputs(ez_sema_ctx *c, const ez_ast *s)
{
    for (size_t i = 0; i < s->nkids; i++) {
        const ez_ast *n = s->kids[i];
        bool dup = false;
        for (size_t k = 0; k < c->nouts; k++)
            if (strcmp(c->outs[k].name, n->name) == 0) {
                ez_diag_item *it = ez_sema_err(c, n->span, "output '%s' is listed twice", n->name);
                ez_diag_note(c->d, it, c->outs[k].span, "first listed here");
                dup = true;
            }
        if (dup || !ez_sema_name_ok(c, n->name, n->span))
            continue;
        void *room = ez_array_room(c->outs, c->nouts, &c->capouts, sizeof *c->outs, 4);
        if (room == NULL) {
            c->nomem = true;
            return;
        }
        c->outs = room;
        snprintf(c->outs[c->nouts].name, EZ_MAX_NAME, "%s", n->name);
        c->outs[c->nouts].span = n->span;
        c->nouts++;
    }
}

/* sema_stmt — the statements of a block in order: assignments (build, reduce, define a
 * new tensor version), `for` loops (unrolled), declarations (sema_scope.c), and the
 * checks that need the whole program (-D names, outputs, token inputs).
 * Contracts in sema_internal.h. */
#include "compiler/sema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/bounds.h"

static bool same_order(const ez_node *n, const unsigned *lhs, unsigned nl)
{
    if (n->nout != nl)
        return false;
    for (unsigned i = 0; i < nl; i++)
        if (n->out[i] != lhs[i])
            return false;
    return true;
}

static void do_assign(ez_sema_ctx *c, const ez_ast *s)
{
    const ez_ast *lhs = s->kids[0], *attrs = s->kids[1], *rhs = s->kids[2];
    c->seen_decl = true;
    if (c->p->nstmts >= EZ_MAX_UNROLLED) {
        if (!c->unroll_capped) {
            ez_diag_item *it = ez_sema_err(c, s->span, "the model has more than %d statements after unrolling loops",
                                           EZ_MAX_UNROLLED);
            ez_diag_help(c->d, it, "use smaller loop ranges");
        }
        c->unroll_capped = true;
        return;
    }
    if (lhs->kind == EZ_AST_NAME) {
        ez_diag_item *it = ez_sema_err(c, lhs->span, "the left side needs its indices");
        ez_diag_help(c->d, it, "write %s[i, j] = ... (or %s[] = ... for a scalar)", lhs->name, lhs->name);
        return;
    }
    if (ez_sema_find_param(c, lhs->name) >= 0 || ez_sema_find_loop(c, lhs->name) >= 0) {
        int p = ez_sema_find_param(c, lhs->name);
        ez_diag_item *it = ez_sema_err(c, lhs->span, "'%s' is a %s and cannot be assigned", lhs->name,
                                       p >= 0 ? "param" : "loop variable");
        if (p >= 0)
            ez_diag_note(c->d, it, c->p->params[p].span, "param '%s' is defined here", lhs->name);
        ez_diag_help(c->d, it, "choose another name for the tensor");
        return;
    }
    if (!ez_sema_name_ok(c, lhs->name, lhs->span))
        return;
    const ez_ast *litems = lhs->kids[0];
    if (litems->nkids > EZ_MAX_RANK) {
        ez_sema_err(c, litems->span, "'%s' would have %zu axes; at most %d are supported", lhs->name, litems->nkids,
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
    ez_sema_pn_free_all(c);
    if (!ez_sema_read_attrs(c, attrs, &st.scale, &st.bits, NULL))
        goto out;

    ez_pn *root = ez_sema_build(c, rhs);
    if (root == NULL)
        goto out;
    if (root->kind == EZ_PN_CONST) {
        ez_diag_item *it = ez_sema_err(c, rhs->span, "the right side is a constant; it must involve a tensor");
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
            ez_diag_item *d = ez_sema_err(c, it->span, "the left side takes index names only");
            ez_diag_help(c->d, d, "a definition computes the whole tensor: %s[i, j] = ...", lhs->name);
            ok = false;
            continue;
        }
        if (ez_sema_find_loop(c, it->name) >= 0) {
            ez_diag_item *d = ez_sema_err(c, it->span, "loop variable '%s' cannot index the left side", it->name);
            ez_diag_help(c->d, d, "each unrolled statement defines a whole tensor; give per-layer results their "
                                  "own names or update one tensor (h[s, d] = h[s, d] + ...)");
            ok = false;
            continue;
        }
        if (ez_sema_find_param(c, it->name) >= 0) {
            ez_diag_item *d = ez_sema_err(c, it->span, "'%s' is a param, not an index", it->name);
            ez_diag_help(c->d, d, "use a lower-case index name");
            ok = false;
            continue;
        }
        int id = ez_sema_idx_find(c, it->name);
        if (id < 0) {
            ez_diag_item *d = ez_sema_err(c, it->span, "index '%s' of the left side does not occur on the right side",
                                          it->name);
            ez_diag_help(c->d, d, "its range would be unknown; every index on the left must index a tensor on "
                                  "the right");
            ok = false;
            continue;
        }
        if (lhs_set & (1u << id)) {
            ez_diag_item *d = ez_sema_err(c, it->span, "index '%s' appears twice on the left side", it->name);
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
    ez_node *n = ez_sema_reduce(c, root, lhs_set, total);
    if (n == NULL)
        goto out;
    uint32_t have = ez_sema_node_outset(n);
    if ((have & lhs_set) != lhs_set) {
        for (size_t a = 0; a < litems->nkids; a++)
            if (!(have & (1u << lhs_ids[a]))) {
                ez_diag_item *d = ez_sema_err(c, litems->kids[a]->span,
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
        n = ez_sema_make_product(c, ins, 1, lhs_set, 1.0, rhs->span, false);
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
    int id = ez_sema_add_tensor(c, lhs->name, EZ_TENSOR_ACT, lhs->span);
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
        ez_sema_err(c, lhs->span, "'%s' would have more than 2^48 elements", lhs->name);
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
    ez_sema_span_text(c->d, s->span, st.text, sizeof st.text);
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
    ez_stmt *room = ez_array_room(c->p->stmts, c->p->nstmts, &c->capstmts, sizeof *room, 16);
    if (room == NULL) {
        c->nomem = true;
        goto out;
    }
    c->p->stmts = room;
    c->p->stmts[c->p->nstmts++] = st;
    ez_sema_unpoison(c, lhs->name);
    c->st = NULL;
    c->cur_lhs = NULL;
    ez_sema_pn_free_all(c);
    return;
out:
    ez_sema_poison(c, lhs->name);
    c->st = NULL;
    c->cur_lhs = NULL;
    ez_sema_pn_free_all(c);
}

static void do_for(ez_sema_ctx *c, const ez_ast *s)
{
    if (c->nloops >= EZ_MAX_LOOP_DEPTH) {
        ez_sema_err(c, s->span, "loops nest more than %d deep", EZ_MAX_LOOP_DEPTH);
        return;
    }
    if (!ez_sema_check_new_name(c, s->name, s->span, "loop variable"))
        return;
    int64_t lo, hi;
    bool ok = ez_sema_const_int(c, s->kids[0], "a loop bound", &lo);
    ok = ez_sema_const_int(c, s->kids[1], "a loop bound", &hi) && ok;
    if (!ok)
        return;
    if (hi <= lo) {
        ez_diag_item *it = ez_sema_err(c, ez_span_join(s->kids[0]->span, s->kids[1]->span),
                                       "the loop range %lld..%lld is empty", (long long)lo, (long long)hi);
        ez_diag_help(c->d, it, "a range lo..hi runs over lo, lo+1, ..., hi-1; hi must be larger than lo");
        return;
    }
    ez_sema_loopvar *lv = &c->loops[c->nloops++];
    snprintf(lv->name, sizeof lv->name, "%s", s->name);
    lv->span = s->span;
    for (int64_t v = lo; v < hi; v++) {
        lv->value = v;
        size_t e0 = c->d->nerrors;
        ez_sema_block(c, s->kids[2], false);
        /* An error in one iteration would repeat in every other: report it once. */
        if (c->d->nerrors != e0 || c->nomem || c->unroll_capped)
            break;
    }
    c->nloops--;
}

void ez_sema_block(ez_sema_ctx *c, const ez_ast *block, bool top)
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
            ez_diag_item *it = ez_sema_err(c, s->span, "%s cannot be declared inside a for loop", what);
            if (s->kind == EZ_AST_INPUTS || s->kind == EZ_AST_WEIGHTS)
                for (size_t j = 0; j < s->kids[0]->nkids; j++)
                    ez_sema_poison(c, s->kids[0]->kids[j]->name);
            else if (s->kind == EZ_AST_PARAMS)
                for (size_t j = 0; j < s->nkids; j++)
                    ez_sema_poison(c, s->kids[j]->name);
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
                ez_diag_item *it = ez_sema_err(c, s->span, "the model is named twice");
                ez_diag_note(c->d, it, c->model_span, "first named here");
                break;
            }
            c->have_model = true;
            c->model_span = s->span;
            if (ez_sema_name_ok(c, s->name, s->span))
                snprintf(c->p->model, sizeof c->p->model, "%s", s->name);
            break;
        case EZ_AST_PARAMS:
            ez_sema_params(c, s);
            break;
        case EZ_AST_SCALE:
            ez_sema_default(c, s, true);
            break;
        case EZ_AST_BITS:
            ez_sema_default(c, s, false);
            break;
        case EZ_AST_INPUTS:
            ez_sema_decls(c, s, false);
            break;
        case EZ_AST_WEIGHTS:
            ez_sema_decls(c, s, true);
            break;
        case EZ_AST_OUTPUTS:
            ez_sema_outputs(c, s);
            break;
        case EZ_AST_ASSIGN:
            do_assign(c, s);
            break;
        case EZ_AST_FOR:
            do_for(c, s);
            break;
        default:
            ez_sema_err(c, s->span, "internal: unexpected statement");
            break;
        }
    }
}

void ez_sema_finish(ez_sema_ctx *c)
{
    ez_program *p = c->p;
    /* -D names must be params of this model. */
    for (size_t k = 0; k < c->ndefs; k++) {
        for (size_t j = 0; j < k; j++)
            if (strcmp(c->defs[j].name, c->defs[k].name) == 0) {
                ez_span none = {0};
                ez_sema_err(c, none, "%s: param '%s' is set twice on the command line",
                            c->defs[k].text ? c->defs[k].text : "-D", c->defs[k].name);
            }
        if (c->def_used[k])
            continue;
        ez_span none = {0};
        ez_diag_item *it = ez_sema_err(c, none, "%s: the model has no param '%s'",
                                       c->defs[k].text ? c->defs[k].text : "-D", c->defs[k].name);
        ez_suggest s;
        ez_suggest_init(&s, c->defs[k].name);
        char list[256] = "";
        size_t o = 0;
        for (size_t i = 0; i < p->nparams; i++) {
            ez_suggest_try(&s, p->params[i].name);
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
        int t = ez_sema_find_tensor(c, c->outs[i].name);
        if (ez_sema_find_poisoned(c, c->outs[i].name) >= 0)
            continue;
        if (t < 0) {
            ez_diag_item *it = ez_sema_err(c, c->outs[i].span, "undefined output '%s'", c->outs[i].name);
            const char *s = ez_sema_suggest_name(c, c->outs[i].name, true, false);
            if (s)
                ez_diag_help(c->d, it, "did you mean '%s'?", s);
            else
                ez_diag_help(c->d, it, "define it, e.g. %s[i] = ..., before or after this line", c->outs[i].name);
            continue;
        }
        if (p->tensors[t].kind != EZ_TENSOR_ACT) {
            ez_diag_item *it =
                ez_sema_err(c, c->outs[i].span, "output '%s' is %s, not a computed tensor", c->outs[i].name,
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
        ez_sema_err(c, none, "internal error: '%s' could not be defined, but no reason was reported", c->poisoned[0]);
    }
    if (c->nouts == 0 && !ez_diag_any(c->d)) {
        ez_span none = {0};
        ez_diag_item *it = ez_sema_err(c, none, "the model has no output");
        ez_diag_help(c->d, it, "add a line 'output NAME' naming the tensor the model returns");
    }
    /* Token inputs must index a table (that fixes their vocabulary). */
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_TOKENS && p->tensors[i].token_limit == 0 && !ez_diag_any(c->d)) {
            ez_diag_item *it = ez_sema_err(c, p->tensors[i].span, "token input '%s' never indexes a table",
                                           p->tensors[i].name);
            ez_diag_help(c->d, it, "use it as the first index of an embedding: x[s, d] = wte[%s[s], d]",
                         p->tensors[i].name);
        }
}

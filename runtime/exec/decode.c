/* decode — greedy decoding with a KV cache (decode.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/decode.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The position window of one op at one step, as a plan of that op alone. */
typedef struct {
    ez_plan plan;
    ez_plan_op op;
    ez_plan_tensor tens[EZ_MAX_OPERANDS + 1];
    uint64_t start[EZ_MAX_OPERANDS + 1][EZ_MAX_RANK]; /* per axis: the slice's first coordinate */
    bool sliced[EZ_MAX_OPERANDS + 1];
    int64_t *t[EZ_MAX_OPERANDS + 1];
    bool ready[EZ_MAX_OPERANDS + 1];
    uint64_t maxabs[EZ_MAX_OPERANDS + 1];
    ez_op_trace otr;
    ez_trace tr;
} window;

void ez_decoder_clear(ez_decoder *g)
{
    ez_positions_clear(&g->pos);
    memset(g, 0, sizeof *g);
}

/* Build op i's window at position cur: index `row` of size 1 at cur, every key index cut
 * to [0, cur]; operands sliced (copied) where their axes change, borrowed otherwise; a
 * causal mask is a copy inside the window (every key <= cur is live), a masked softmax an
 * unmasked one. */
static ez_status window_build(window *wd, const ez_decoder *g, size_t i, uint64_t cur)
{
    const ez_plan *p = g->plan;
    const ez_plan_op *op = &p->ops[i];
    memset(wd, 0, sizeof *wd);
    wd->op = *op;
    ez_plan_op *m = &wd->op;
    int kind[EZ_MAX_IDX];
    for (unsigned x = 0; x < op->nidx; x++) {
        kind[x] = ez_positions_index_kind(&g->pos, p, i, x);
        if (kind[x] == 1)
            m->idx_size[x] = 1;
        else if (kind[x] == 2)
            m->idx_size[x] = cur + 1;
    }
    if (op->kind == EZ_OP_CAUSAL) {
        m->kind = EZ_OP_EINSUM;
        m->mul = 1;
        m->shift = 0;
    }
    m->masked = false;
    for (unsigned k = 0; k <= op->nin; k++) {
        bool is_out = k == op->nin;
        const ez_plan_tensor *f = &p->tensors[is_out ? op->out : op->in[k]];
        ez_plan_tensor *w = &wd->tens[k];
        *w = *f;
        w->is_output = false;
        w->kind = is_out ? EZ_TENSOR_ACT : EZ_TENSOR_WEIGHT;
        w->producer = is_out ? 0 : -1;
        if (!is_out)
            w->bits = 63; /* the cache's values, not a declaration to check */
        for (unsigned a = 0; a < f->rank; a++) {
            bool fixed = !is_out && ((op->in_fixed[k] >> a) & 1);
            unsigned x = is_out ? op->out_axes[a] : op->in_axes[k][a];
            if (fixed || kind[x] == 0)
                continue;
            w->dims[a] = m->idx_size[x];
            wd->start[k][a] = kind[x] == 1 ? cur : 0;
            wd->sliced[k] = true;
        }
        if (is_out)
            continue;
        m->in[k] = k;
        if (!wd->sliced[k]) {
            wd->t[k] = g->tr->t[op->in[k]]; /* borrowed */
        } else {
            wd->t[k] = ez_alloc_array(ez_plan_tensor_numel(w), sizeof(int64_t));
            if (wd->t[k] == NULL)
                return EZ_ERR_NOMEM;
            ez_exec_copy_box(wd->t[k], w, g->tr->t[op->in[k]], f, wd->start[k]);
        }
        wd->ready[k] = true;
        wd->maxabs[k] = g->tr->maxabs[op->in[k]]; /* the whole tensor's: an upper bound */
    }
    m->out = op->nin;
    wd->t[op->nin] = ez_alloc_array(ez_plan_tensor_numel(&wd->tens[op->nin]), sizeof(int64_t));
    if (wd->t[op->nin] == NULL)
        return EZ_ERR_NOMEM;
    wd->plan.ntensors = op->nin + 1;
    wd->plan.tensors = wd->tens;
    wd->plan.nops = 1;
    wd->plan.ops = m;
    wd->tr.plan = &wd->plan;
    wd->tr.t = wd->t;
    wd->tr.ready = wd->ready;
    wd->tr.maxabs = wd->maxabs;
    wd->tr.ops = &wd->otr;
    wd->tr.table_cache = g->tr;
    return EZ_OK;
}

static void window_clear(window *wd, unsigned nin)
{
    for (unsigned k = 0; k <= nin; k++)
        if (k == nin || wd->sliced[k])
            free(wd->t[k]);
    for (int k = 0; k < EZ_AUX_COUNT; k++)
        free(wd->otr.aux[k]);
    for (size_t j = 0; j < wd->tr.ntables; j++)
        ez_table_clear(&wd->tr.tables[j]);
    free(wd->tr.tables);
    free(wd->tr.work[0]);
    free(wd->tr.work[1]);
}

/* The window's result into the cache: the row cur of the full output gets the window's
 * values, its entries beyond the window (keys > cur, which every consumer masks) 0. */
static void window_store(const window *wd, ez_decoder *g, size_t i)
{
    const ez_plan_op *op = &g->plan->ops[i];
    const ez_plan_tensor *f = &g->plan->tensors[op->out], *w = &wd->tens[op->nin];
    int64_t *dst = g->tr->t[op->out];
    uint64_t fs[EZ_MAX_RANK], slab[EZ_MAX_RANK], n = 1;
    ez_exec_tensor_strides(f, fs);
    /* zero the row: every coordinate but the row axis' */
    unsigned ra = (unsigned)g->pos.row_axis[op->out];
    for (unsigned a = 0; a < f->rank; a++) {
        slab[a] = a == ra ? 1 : f->dims[a];
        n *= slab[a];
    }
    const uint64_t cur = wd->start[op->nin][ra];
    for (uint64_t e = 0; e < n; e++) {
        uint64_t rest = e, off = cur * fs[ra];
        for (unsigned a = f->rank; a-- > 0;) {
            if (a != ra)
                off += (rest % slab[a]) * fs[a];
            rest /= slab[a];
        }
        dst[off] = 0;
    }
    uint64_t nw = ez_plan_tensor_numel(w);
    for (uint64_t e = 0; e < nw; e++) {
        uint64_t rest = e, off = 0;
        for (unsigned a = w->rank; a-- > 0;) {
            off += (wd->start[op->nin][a] + rest % w->dims[a]) * fs[a];
            rest /= w->dims[a];
        }
        dst[off] = wd->t[op->nin][e];
    }
}

ez_status ez_decoder_init(ez_decoder *g, const ez_plan *p, ez_trace *tr, ez_diag *d)
{
    memset(g, 0, sizeof *g);
    g->plan = p;
    g->tr = tr;
    ez_status st = ez_positions_analyze(&g->pos, p, d);
    if (st != EZ_OK)
        return st;
    /* the tokens are written position by position; the rest of the cache starts at 0 */
    tr->ready[g->pos.tokens] = true;
    tr->maxabs[g->pos.tokens] = (uint64_t)p->tensors[g->pos.tokens].token_limit - 1;
    for (size_t i = 0; i < p->nops && st == EZ_OK; i++)
        if (g->pos.op_row[i] < 0)
            st = ez_exec_op(p, i, tr, d); /* depends on weights only */
    return st;
}

ez_status ez_decoder_step(ez_decoder *g, int64_t token, int64_t *next, ez_diag *d)
{
    const ez_plan *p = g->plan;
    const ez_plan_tensor *tt = &p->tensors[g->pos.tokens];
    const uint64_t cur = g->next_pos;
    if (cur >= tt->dims[0]) {
        ez_diag_set(d, "the context of %" PRIu64 " positions is full", tt->dims[0]);
        return EZ_ERR_INPUT;
    }
    if (token < 0 || token >= tt->token_limit) {
        ez_diag_set(d, "token %" PRId64 " is outside the vocabulary [0, %" PRId64 ")", token, tt->token_limit);
        return EZ_ERR_INPUT;
    }
    g->tr->t[g->pos.tokens][cur] = token;
    ez_status st = EZ_OK;
    for (size_t i = 0; i < p->nops && st == EZ_OK; i++) {
        if (g->pos.op_row[i] < 0)
            continue;
        window wd;
        st = window_build(&wd, g, i, cur);
        if (st == EZ_OK)
            st = ez_exec_op(&wd.plan, 0, &wd.tr, d);
        if (st == EZ_OK) {
            window_store(&wd, g, i);
            /* the whole tensor's maximum, for the next ops' exactness tests */
            uint64_t m = wd.maxabs[p->ops[i].nin];
            if (m > g->tr->maxabs[p->ops[i].out])
                g->tr->maxabs[p->ops[i].out] = m;
            g->tr->ready[p->ops[i].out] = true;
        }
        window_clear(&wd, p->ops[i].nin);
    }
    if (st != EZ_OK)
        return st;
    *next = g->tr->t[g->pos.next][cur];
    g->next_pos++;
    return EZ_OK;
}

/* ---- greedy generation ------------------------------------------------------------------- */

const char *ez_stop_rule_name(ez_stop_rule s)
{
    switch (s) {
    case EZ_STOP_MAX_NEW:
        return "max-new";
    case EZ_STOP_EOS:
        return "eos";
    case EZ_STOP_CONTEXT:
        return "context";
    }
    return "?";
}

void ez_generation_clear(ez_generation *g)
{
    if (g == NULL)
        return;
    free(g->tokens);
    memset(g, 0, sizeof *g);
}

ez_status ez_generation_check_stop(const ez_generation *g, uint64_t context, ez_diag *d)
{
    const uint64_t P = g->nprompt, n = g->ngen;
    if (P == 0 || n == 0 || P > context || n > context + 1 - P) {
        ez_diag_set(d, "%" PRIu64 " prompt and %" PRIu64 " generated tokens do not fit a context of %" PRIu64, P, n,
                    context);
        return EZ_ERR_REJECT;
    }
    for (uint64_t i = 0; i + 1 < n; i++)
        if (g->eos >= 0 && g->tokens[P + i] == g->eos) {
            ez_diag_set(d, "generated token %" PRIu64 " is EOS (%" PRId64 "), yet generation went on", i, g->eos);
            return EZ_ERR_REJECT;
        }
    const bool last_eos = g->eos >= 0 && g->tokens[P + n - 1] == g->eos;
    const char *why = NULL;
    switch (g->stop) {
    case EZ_STOP_EOS:
        if (!last_eos || n > g->max_new)
            why = "stopped at EOS, but the last token is not EOS";
        break;
    case EZ_STOP_MAX_NEW:
        if (last_eos || n != g->max_new)
            why = last_eos ? "stopped at max-new, but the last token is EOS" : "stopped at max-new before max-new tokens";
        break;
    case EZ_STOP_CONTEXT:
        if (last_eos || n >= g->max_new || P + n != context + 1)
            why = "stopped at a full context, but the context is not full";
        break;
    default:
        why = "unknown stop rule";
    }
    if (why) {
        ez_diag_set(d, "%s (%" PRIu64 " generated, max-new %" PRIu64 ")", why, n, g->max_new);
        return EZ_ERR_REJECT;
    }
    return EZ_OK;
}

ez_status ez_generate(ez_generation *g, const ez_plan *p, ez_trace *tr, const int64_t *prompt, size_t nprompt,
                      uint64_t max_new, int64_t eos, ez_diag *d)
{
    memset(g, 0, sizeof *g);
    ez_decoder dec;
    ez_status st = ez_decoder_init(&dec, p, tr, d);
    if (st != EZ_OK)
        return st;
    const ez_plan_tensor *tt = &p->tensors[dec.pos.tokens];
    const uint64_t S = tt->dims[0];
    st = EZ_ERR_INPUT;
    if (nprompt == 0)
        ez_diag_set(d, "the prompt is empty");
    else if (nprompt > S)
        ez_diag_set(d, "the prompt has %zu tokens, the model's context is %" PRIu64, nprompt, S);
    else if (max_new == 0)
        ez_diag_set(d, "max-new must be at least 1");
    else if (eos < -1 || eos >= tt->token_limit)
        ez_diag_set(d, "the EOS token %" PRId64 " is outside the vocabulary [0, %" PRId64 ")", eos, tt->token_limit);
    else
        st = EZ_OK;
    if (st != EZ_OK) {
        ez_decoder_clear(&dec);
        return st;
    }
    uint64_t cap = nprompt + (max_new < S + 1 - nprompt ? max_new : S + 1 - nprompt);
    g->tokens = ez_alloc_array(cap, sizeof *g->tokens);
    if (g->tokens == NULL) {
        ez_decoder_clear(&dec);
        return EZ_ERR_NOMEM;
    }
    g->nprompt = nprompt;
    g->eos = eos;
    g->max_new = max_new;
    memcpy(g->tokens, prompt, nprompt * sizeof *prompt);
    int64_t next = 0;
    for (size_t s = 0; s < nprompt && st == EZ_OK; s++)
        st = ez_decoder_step(&dec, prompt[s], &next, d);
    while (st == EZ_OK) {
        g->tokens[nprompt + g->ngen++] = next;
        if (eos >= 0 && next == eos) {
            g->stop = EZ_STOP_EOS;
            break;
        }
        if (g->ngen == max_new) {
            g->stop = EZ_STOP_MAX_NEW;
            break;
        }
        if (dec.next_pos == S) {
            g->stop = EZ_STOP_CONTEXT;
            break;
        }
        st = ez_decoder_step(&dec, next, &next, d);
    }
    ez_decoder_clear(&dec);
    if (st != EZ_OK)
        ez_generation_clear(g);
    return st;
}

/* pctx — the proof context (pctx.h). */
#include "config.h"

#include "runtime/prove/pctx.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/formats/version.h"
#include "runtime/prove/public.h"
#include "runtime/prove/statement.h"

ez_status ez_pctx_msg(ez_pctx *c, const char *label, ez_fe2 *v, size_t n)
{
    if (n == 0)
        return EZ_OK;
    if (c->prover) {
        if (c->msg_hook)
            c->msg_hook(c->msg_hook_ctx, label, v, n);
        for (size_t i = 0; i < n; i++) {
            uint8_t b[16];
            ez_fe2_encode(b, v[i]);
            ez_writer_bytes(c->w, b, sizeof b);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            const uint8_t *b = ez_reader_view(c->r, 16);
            if (b == NULL || !ez_fe2_decode(&v[i], b)) {
                ez_diag_set(c->d, "%s: the proof is truncated or holds a non-canonical field element", label);
                return EZ_ERR_REJECT;
            }
        }
    }
    ez_transcript_absorb_fe2(c->t, label, v, n);
    return EZ_OK;
}

static ez_status add_claim(ez_claim_list *l, const ez_fe2 *point, unsigned nvars, ez_fe2 value)
{
    ez_claim cl = {0};
    ez_status st = ez_claim_set(&cl, point, nvars, value);
    if (st == EZ_OK && (st = ez_claim_list_add_owned(l, &cl)) != EZ_OK)
        ez_claim_clear(&cl);
    return st;
}

ez_status ez_pctx_claim_tensor(ez_pctx *c, size_t tensor, const ez_fe2 *point, unsigned nvars, ez_fe2 value)
{
    const ez_plan_tensor *t = &c->plan->tensors[tensor];
    if (tensor >= c->plan->ntensors || nvars != ez_claim_tensor_nvars(t->dims, t->rank))
        return EZ_ERR_INVALID;
    return add_claim(&c->tclaims[tensor], point, nvars, value);
}

ez_status ez_pctx_claim_advice(ez_pctx *c, size_t poly, const ez_fe2 *point, unsigned nvars, ez_fe2 value)
{
    if (poly >= c->adv->npolys || nvars != ez_advice_poly_nvars(c->adv, poly))
        return EZ_ERR_INVALID;
    return add_claim(&c->aclaims[poly], point, nvars, value);
}

ez_status ez_pctx_eval_atom(const ez_pctx *c, ez_atom a, const ez_fe2 *point, ez_fe2 *out)
{
    if (a.is_tensor)
        return ez_advice_tensor_eval(out, c->tr->t[a.id], &c->plan->tensors[a.id], point);
    *out = ez_advice_poly_eval(c->adv, a.id, c->advice[a.id], point);
    return EZ_OK;
}

ez_status ez_pctx_alloc(ez_pctx *c, const ez_plan *p, const ez_advice_layout *L)
{
    c->tclaims = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *c->tclaims);
    c->aclaims = ez_alloc_array(L->npolys ? L->npolys : 1, sizeof *c->aclaims);
    if (c->tclaims == NULL || c->aclaims == NULL) {
        free(c->tclaims);
        free(c->aclaims);
        c->tclaims = c->aclaims = NULL;
        return EZ_ERR_NOMEM;
    }
    for (size_t i = 0; i < p->ntensors; i++)
        ez_claim_list_init(&c->tclaims[i]);
    for (size_t i = 0; i < L->npolys; i++)
        ez_claim_list_init(&c->aclaims[i]);
    return EZ_OK;
}

void ez_pctx_free(ez_pctx *c)
{
    if (c->tclaims)
        for (size_t i = 0; i < c->plan->ntensors; i++)
            ez_claim_list_clear(&c->tclaims[i]);
    if (c->aclaims)
        for (size_t i = 0; i < c->adv->npolys; i++)
            ez_claim_list_clear(&c->aclaims[i]);
    free(c->tclaims);
    free(c->aclaims);
    c->tclaims = c->aclaims = NULL;
    for (size_t i = 0; i < c->ntables; i++) {
        ez_table_clear(c->tables[i]);
        free(c->tables[i]);
    }
    free(c->tables);
    c->tables = NULL;
    c->ntables = 0;
}

ez_status ez_pctx_table(ez_pctx *c, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale,
                        const ez_table **out)
{
    const ez_table *have = NULL;
    if (c->tr) {
        have = ez_trace_table(c->tr, kind, f, in_scale, out_scale);
        if (have == NULL && c->tr->table_cache)
            have = ez_trace_table(c->tr->table_cache, kind, f, in_scale, out_scale);
    }
    for (size_t i = 0; have == NULL && i < c->ntables; i++)
        if (ez_table_is(c->tables[i], kind, f, in_scale, out_scale))
            have = c->tables[i];
    if (have) {
        *out = have;
        return EZ_OK;
    }
    /* one allocation per table: a table handed out earlier stays where it is */
    ez_table **nt = ez_realloc_array(c->tables, c->ntables + 1, sizeof *c->tables);
    if (nt == NULL)
        return EZ_ERR_NOMEM;
    c->tables = nt;
    ez_table *t = calloc(1, sizeof *t);
    if (t == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = ez_table_build_kind(t, kind, f, in_scale, out_scale, c->d);
    if (st != EZ_OK) {
        ez_table_clear(t);
        free(t);
        return st;
    }
    c->tables[c->ntables++] = t;
    *out = t;
    return EZ_OK;
}

void ez_opview_clear(ez_opview *v)
{
    for (unsigned k = 0; k < EZ_MAX_OPERANDS; k++)
        free(v->owned[k]);
    memset(v, 0, sizeof *v);
}

ez_status ez_opview_init(ez_opview *v, const ez_plan *p, size_t i, const ez_trace *tr)
{
    memset(v, 0, sizeof *v);
    const ez_plan_op *op = &p->ops[i];
    v->op = *op;
    for (unsigned k = 0; k < op->nin; k++) {
        const ez_plan_tensor *t = &p->tensors[op->in[k]];
        ez_plan_tensor *s = &v->tensors[k];
        *s = *t;
        s->rank = 0;
        uint64_t fixed_off = 0, full_stride[EZ_MAX_RANK], sub_dims[EZ_MAX_RANK], sub_stride[EZ_MAX_RANK];
        unsigned nsub = 0;
        uint64_t st = 1;
        for (unsigned a = t->rank; a-- > 0;) {
            full_stride[a] = st;
            st *= t->dims[a];
        }
        for (unsigned a = 0; a < t->rank; a++) {
            if ((op->in_fixed[k] >> a) & 1) {
                fixed_off += op->in_pos[k][a] * full_stride[a];
                continue;
            }
            v->op.in_axes[k][s->rank] = op->in_axes[k][a];
            s->dims[s->rank++] = t->dims[a];
            sub_dims[nsub] = t->dims[a];
            sub_stride[nsub++] = full_stride[a];
        }
        for (unsigned a = s->rank; a < EZ_MAX_RANK; a++) {
            s->dims[a] = 0;
            v->op.in_axes[k][a] = 0;
        }
        v->op.in[k] = k;
        v->op.in_fixed[k] = 0;
        if (tr == NULL)
            continue;
        if (op->in_fixed[k] == 0) {
            v->data[k] = tr->t[op->in[k]];
            continue;
        }
        uint64_t n = ez_plan_tensor_numel(s);
        int64_t *x = ez_alloc_array(n ? n : 1, sizeof *x);
        if (x == NULL) {
            ez_opview_clear(v);
            return EZ_ERR_NOMEM;
        }
        const int64_t *src = tr->t[op->in[k]];
        for (uint64_t e = 0; e < n; e++) {
            uint64_t rest = e, off = fixed_off;
            for (unsigned a = nsub; a-- > 0;) {
                off += (rest % sub_dims[a]) * sub_stride[a];
                rest /= sub_dims[a];
            }
            x[e] = src[off];
        }
        v->owned[k] = x;
        v->data[k] = x;
    }
    v->tensors[op->nin] = p->tensors[op->out];
    v->op.out = op->nin;
    return EZ_OK;
}

ez_status ez_opview_claim(ez_pctx *c, const ez_opview *v, size_t i, unsigned k, const ez_claim *slice_claim)
{
    const ez_plan_op *op = &c->plan->ops[i];
    const ez_plan_tensor *t = &c->plan->tensors[op->in[k]];
    (void)v;
    unsigned nv = ez_claim_tensor_nvars(t->dims, t->rank);
    if (op->in_fixed[k] == 0)
        return ez_pctx_claim_tensor(c, op->in[k], slice_claim->point, slice_claim->nvars, slice_claim->value);
    ez_fe2 pt[EZ_PROVE_MAX_VARS];
    unsigned o = 0, so = 0;
    for (unsigned a = 0; a < t->rank; a++) {
        unsigned na = ez_log2_ceil(t->dims[a]);
        if ((op->in_fixed[k] >> a) & 1) {
            /* the slice is the tensor with this axis block at the position's bits */
            for (unsigned b = 0; b < na; b++)
                pt[o + b] = ez_fe2_from_fe((op->in_pos[k][a] >> (na - 1 - b)) & 1);
        } else {
            if (so + na > slice_claim->nvars)
                return EZ_ERR_INVALID;
            memcpy(pt + o, slice_claim->point + so, na * sizeof *pt);
            so += na;
        }
        o += na;
    }
    if (so != slice_claim->nvars || o != nv)
        return EZ_ERR_INVALID;
    return ez_pctx_claim_tensor(c, op->in[k], pt, nv, slice_claim->value);
}

void ez_proof_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom,
                               const ez_statement *s, ez_strategy strategy)
{
    const char *ver = ez_protocol_version();
    ez_transcript_init(t, EZ_PROOF_DOMAIN);
    ez_transcript_absorb_bytes(t, "version", ver, strlen(ver));
    /* before anything else: a proof of one strategy is no proof of another */
    ez_transcript_absorb_u64(t, "strategy", (uint64_t)strategy);
    ez_transcript_absorb_bytes(t, "plan/digest", p->digest, sizeof p->digest);
    ez_transcript_absorb_u64(t, "weights/present", wcom != NULL);
    if (wcom)
        ez_pcs_commitment_absorb(t, wcom);
    ez_transcript_absorb_u64(t, "stmt/n", s->n);
    for (size_t i = 0; i < s->n; i++) {
        const ez_stmt_tensor *x = &s->t[i];
        unsigned w = ez_stmt_tensor_width(x);
        ez_transcript_absorb_u64(t, "stmt/tensor", x->tensor);
        ez_transcript_absorb_u64(t, "stmt/len", x->n);
        ez_transcript_absorb_u64(t, "stmt/width", w);
        /* the values as the proof file carries them, w bytes each, in records of 4096 values
         * (no allocation): hashing a GPT-2 statement's logits costs 3 bytes each, not 8; a
         * decoded statement's bytes are the file's own, hashed where they lie */
        uint8_t buf[4096 * 8];
        for (uint64_t o = 0; o < x->n; o += 4096) {
            size_t m = x->n - o < 4096 ? (size_t)(x->n - o) : 4096;
            const uint8_t *b = x->raw ? x->raw + o * w : buf;
            if (x->raw == NULL)
                ez_stmt_put(buf, x->v + o, m, w);
            ez_transcript_absorb_bytes(t, "stmt/values", b, m * w);
        }
    }
}

/* The output claims: per output tensor a random point and the public output's MLE. */
ez_status ez_proof_output_claims(ez_pctx *c, const ez_statement *s)
{
    const ez_plan *p = c->plan;
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (!t->is_output || ez_tensor_is_public_result(p, i))
            continue; /* a public op's result: the verifier recomputes it (public.h) */
        const ez_stmt_tensor *v = ez_statement_find(s, (unsigned)i);
        if (v == NULL)
            return EZ_ERR_INVALID;
        unsigned nv = ez_claim_tensor_nvars(t->dims, t->rank);
        ez_fe2 r[EZ_PROVE_MAX_VARS], val;
        ez_transcript_challenges_fe2(c->t, "out/point", r, nv);
        ez_status st = ez_stmt_eval(&val, v, t, r);
        if (st == EZ_OK)
            st = ez_pctx_claim_tensor(c, i, r, nv, val);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

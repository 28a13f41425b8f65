/* prove — the prover of a whole plan, the per-op table, operand views, the EINSUM entry
 * and the weight commitment (prove.h). Protocol: docs/protocol.md. */
#include "config.h"

#include "runtime/prove/prove.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/prove/lookup.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/ops/softmax.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/formats/version.h"

/* ---- the per-op table ---------------------------------------------------------------------- */

static const ez_op_prover op_table[] = {
    {EZ_OP_EINSUM, ez_op_einsum_layout, ez_op_einsum_prove, ez_op_einsum_verify, NULL},
    {EZ_OP_ADD, ez_op_add_layout, ez_op_add_prove, ez_op_add_verify, NULL},
    {EZ_OP_CAUSAL, ez_op_causal_layout, ez_op_causal_prove, ez_op_causal_verify, NULL},
    {EZ_OP_GATHER, ez_op_gather_layout, ez_op_gather_prove, ez_op_gather_verify, NULL},
    {EZ_OP_SOFTMAX, ez_op_softmax_layout, ez_op_softmax_prove, ez_op_softmax_verify, ez_op_softmax_fill},
};

const ez_op_prover *ez_op_prover_find(ez_op_kind kind)
{
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
        if (op_table[i].kind == kind)
            return &op_table[i];
    return NULL;
}

ez_status ez_prove_check_plan(const ez_plan *p, ez_diag *d)
{
    ez_advice_layout L;
    ez_status st = ez_advice_layout_build(&L, p, d);
    ez_advice_layout_clear(&L);
    return st;
}

/* ---- the proof context --------------------------------------------------------------------- */

ez_status ez_pctx_msg(ez_pctx *c, const char *label, ez_fe2 *v, size_t n)
{
    if (n == 0)
        return EZ_OK;
    if (c->prover) {
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
    if (poly >= c->adv->npolys || nvars != ez_log2_ceil(c->adv->polys[poly].len))
        return EZ_ERR_INVALID;
    return add_claim(&c->aclaims[poly], point, nvars, value);
}

ez_status ez_pctx_eval_atom(const ez_pctx *c, ez_atom a, const ez_fe2 *point, ez_fe2 *out)
{
    if (a.is_tensor)
        return ez_advice_tensor_eval(out, c->tr->t[a.id], &c->plan->tensors[a.id], point);
    const ez_adv_poly *q = &c->adv->polys[a.id];
    *out = ez_mle_eval_fe(c->advice[a.id], (size_t)q->len, point, ez_log2_ceil(q->len));
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
}

/* ---- operand views ------------------------------------------------------------------------- */

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

/* ---- EINSUM: runtime/prove_einsum.h with the fused rescale -------------------------------- */

ez_status ez_op_einsum_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    const ez_plan_op *o = &p->ops[op];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, op, NULL);
    if (st != EZ_OK)
        return st;
    /* the kernel's own preconditions, checked on the view (no data) */
    ez_status sz = EZ_OK;
    (void)ez_einsum_proof_size(&v.op, v.tensors, &sz);
    ez_opview_clear(&v);
    if (sz != EZ_OK) {
        ez_diag_set(d, "op '%s' (einsum): this contraction's shape is not provable", o->label);
        return EZ_ERR_UNSUPPORTED;
    }
    return o->shift > 0 ? ez_rc_rescale(L, p, op, o->shift, d) : EZ_OK;
}

static ez_status einsum_finish(ez_pctx *c, const ez_opview *v, size_t op, ez_claim *inc, ez_claim *remc)
{
    ez_status st = EZ_OK;
    const ez_plan_op *o = &c->plan->ops[op];
    for (unsigned k = 0; k < o->nin && st == EZ_OK; k++)
        st = ez_opview_claim(c, v, op, k, &inc[k]);
    if (st == EZ_OK && o->shift > 0)
        st = ez_rc_value_claim(c, (size_t)c->adv->op_rem[op], remc);
    return st;
}

ez_status ez_op_einsum_prove(ez_pctx *c, size_t op, const ez_claim *out)
{
    const ez_plan_op *o = &c->plan->ops[op];
    ez_claim inc[2] = {{0}}, remc = {0};
    ez_opview v;
    ez_status st = ez_opview_init(&v, c->plan, op, c->tr);
    if (st != EZ_OK)
        return st;
    const int64_t *rem = NULL;
    if (o->shift > 0 && (rem = ez_trace_aux(c->tr, op, EZ_AUX_REM, NULL)) == NULL) {
        ez_diag_set(c->d, "op '%s': the trace has no remainder", o->label);
        st = EZ_ERR_INVALID;
        goto out;
    }
    st = ez_einsum_prove(c->t, &v.op, v.tensors, v.data, rem, out, c->w, inc, o->shift > 0 ? &remc : NULL);
    if (st == EZ_OK)
        st = einsum_finish(c, &v, op, inc, &remc);
out:
    ez_claim_clear(&inc[0]);
    ez_claim_clear(&inc[1]);
    ez_claim_clear(&remc);
    ez_opview_clear(&v);
    return st;
}

ez_status ez_op_einsum_verify(ez_pctx *c, size_t op, const ez_claim *out)
{
    const ez_plan_op *o = &c->plan->ops[op];
    ez_claim inc[2] = {{0}}, remc = {0};
    ez_opview v;
    ez_status st = ez_opview_init(&v, c->plan, op, NULL);
    if (st != EZ_OK)
        return st;
    st = ez_einsum_verify(c->t, &v.op, v.tensors, out, c->r, inc, o->shift > 0 ? &remc : NULL);
    if (st == EZ_ERR_REJECT)
        ez_diag_set(c->d, "the contraction sumcheck failed");
    if (st == EZ_OK)
        st = einsum_finish(c, &v, op, inc, &remc);
    ez_claim_clear(&inc[0]);
    ez_claim_clear(&inc[1]);
    ez_claim_clear(&remc);
    ez_opview_clear(&v);
    return st;
}

/* ---- the weight commitment ------------------------------------------------------------------ */

ez_status ez_weights_lens(const ez_plan *p, uint64_t **lens, size_t *n)
{
    size_t k = 0;
    *lens = NULL;
    for (size_t i = 0; i < p->ntensors; i++)
        k += p->tensors[i].kind == EZ_TENSOR_WEIGHT;
    *n = k;
    if (k == 0)
        return EZ_OK;
    uint64_t *l = ez_alloc_array(k, sizeof *l);
    if (l == NULL)
        return EZ_ERR_NOMEM;
    k = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT)
            l[k++] = ez_advice_padlen(&p->tensors[i]);
    *lens = l;
    return EZ_OK;
}

ez_status ez_weights_commit(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_plan *p, const ez_trace *tr,
                            ez_diag *d)
{
    uint64_t *lens = NULL;
    size_t n = 0;
    ez_fe **polys = NULL;
    *out = NULL;
    memset(com, 0, sizeof *com);
    ez_status st = ez_weights_lens(p, &lens, &n);
    if (st != EZ_OK || n == 0)
        return st;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > EZ_ADV_MAX_PADLEN || (total += lens[i]) > EZ_ADV_MAX_PADLEN) {
            ez_diag_set(d, "the weights exceed the commitment's limit of 2^40 entries");
            st = EZ_ERR_UNSUPPORTED;
            goto out;
        }
    }
    polys = ez_alloc_array(n, sizeof *polys);
    if (polys == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0, k = 0; i < p->ntensors; i++) {
        if (p->tensors[i].kind != EZ_TENSOR_WEIGHT)
            continue;
        polys[k] = ez_alloc_aligned(lens[k], sizeof(ez_fe));
        if (polys[k] == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        ez_advice_pad_i64(polys[k], tr->t[i], &p->tensors[i], 0);
        k++;
    }
    /* opened in full once (the vk's range proof), then without the proximity row */
    st = ez_pcs_commit_scheme(out, com, (const ez_fe *const *)polys, lens, n, EZ_PCS_SCHEME_LIGERO_P1);
out:
    if (polys)
        for (size_t i = 0; i < n; i++)
            free(polys[i]);
    free(polys);
    free(lens);
    return st;
}

/* ---- transcript start --------------------------------------------------------------------- */

void ez_proof_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom,
                               const ez_statement *s)
{
    const char *ver = ez_protocol_version();
    ez_transcript_init(t, EZ_PROOF_DOMAIN);
    ez_transcript_absorb_bytes(t, "version", ver, strlen(ver));
    ez_transcript_absorb_bytes(t, "plan/digest", p->digest, sizeof p->digest);
    ez_transcript_absorb_u64(t, "weights/present", wcom != NULL);
    if (wcom)
        ez_pcs_commitment_absorb(t, wcom);
    ez_transcript_absorb_u64(t, "stmt/n", s->n);
    for (size_t i = 0; i < s->n; i++) {
        ez_transcript_absorb_u64(t, "stmt/tensor", s->t[i].tensor);
        ez_transcript_absorb_u64(t, "stmt/len", s->t[i].n);
        /* absorbed in chunks of 4096 canonical elements (no allocation) */
        ez_fe buf[4096];
        for (uint64_t o = 0; o < s->t[i].n; o += 4096) {
            size_t m = s->t[i].n - o < 4096 ? (size_t)(s->t[i].n - o) : 4096;
            for (size_t j = 0; j < m; j++)
                buf[j] = ez_fe_from_i64(s->t[i].v[o + j]);
            ez_transcript_absorb_fe(t, "stmt/values", buf, m);
        }
    }
}

/* ---- zero padding of the weights (the vk's range proof) ------------------------------------- */

void ez_weight_pad_desc(ez_sumcheck_desc *desc, unsigned nv)
{
    /* eq(rho, x) * (1 - R)(x) * P(x): factors 1 - R and P, eq on every variable */
    ez_sumcheck_desc_init(desc, nv, 2);
    desc->eq_vars = nv >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << nv) - 1;
}

ez_fe2 ez_weight_real_mle(const ez_plan_tensor *tt, const ez_fe2 *point)
{
    ez_fe2 r = ez_fe2_one();
    unsigned o = 0;
    for (unsigned a = 0; a < tt->rank; a++) {
        unsigned na = ez_log2_ceil(tt->dims[a]);
        r = ez_fe2_mul(r, ez_mle_prefix(point + o, na, tt->dims[a]));
        o += na;
    }
    return r;
}

/* Prover: the zero-check of weight i's padding (its data in the trace, padding zero);
 * appends to c->w and adds the claim P~(pt) to the weight's claims. */
static ez_status weight_pad_prove(ez_pctx *c, size_t i)
{
    const ez_plan_tensor *tt = &c->plan->tensors[i];
    unsigned nv = ez_claim_tensor_nvars(tt->dims, tt->rank);
    size_t N = (size_t)1 << nv;
    uint64_t padlen = ez_advice_padlen(tt), numel = ez_plan_tensor_numel(tt);
    ez_status st = EZ_ERR_NOMEM;
    ez_fe *pad = ez_alloc_aligned(N, sizeof *pad), *val = ez_alloc_aligned(N, sizeof *val);
    int64_t *ones = ez_alloc_array(numel ? numel : 1, sizeof *ones);
    ez_sumcheck_proof proof;
    memset(&proof, 0, sizeof proof);
    if (!pad || !val || !ones)
        goto out;
    ez_fe2 rho[EZ_PROVE_MAX_VARS], pt[EZ_PROVE_MAX_VARS], evals[2];
    ez_transcript_challenges_fe2(c->t, "wpad/rho", rho, nv);
    /* 1 - R: 1 on padding (interior and beyond padlen), 0 on real entries */
    for (uint64_t e = 0; e < numel; e++)
        ones[e] = -1;
    ez_advice_pad_i64(pad, ones, tt, 1);
    for (size_t x = padlen; x < N; x++)
        pad[x] = 1;
    ez_advice_pad_i64(val, c->tr->t[i], tt, 0);
    memset(val + padlen, 0, (N - padlen) * sizeof *val);
    ez_sumcheck_desc desc;
    ez_weight_pad_desc(&desc, nv);
    ez_sumcheck_factor f[2] = {{pad, NULL}, {val, NULL}};
    if ((st = ez_sumcheck_prove(c->t, &desc, NULL, rho, f, ez_fe2_zero(), &proof, pt, evals)) != EZ_OK)
        goto out;
    ez_sumcheck_proof_write(c->w, &proof);
    st = ez_pctx_claim_tensor(c, i, pt, nv, evals[1]);
out:
    ez_sumcheck_proof_clear(&proof);
    free(pad);
    free(val);
    free(ones);
    return st;
}

/* ---- helpers of the prover ------------------------------------------------------------------- */

double ez_prove_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ez_prove_stats_clear(ez_prove_stats *s)
{
    if (s == NULL)
        return;
    free(s->ops);
    memset(s, 0, sizeof *s);
}

/* The concrete columns of one table (kept from the witness phase to the lookups). */
typedef struct {
    size_t nc;
    const ez_fe **cols;
    ez_fe **owned;
    size_t *idx;
    uint64_t *lens;
    unsigned *tags;       /* each column's range width */
} tab_cols;

/* The multiplicity poly of table tb. */
static size_t table_poly(const ez_advice_layout *L, unsigned tb)
{
    for (size_t q = 0; q < L->npolys; q++)
        if (L->polys[q].value == -1 && L->polys[q].table == tb)
            return q;
    return 0; /* unreachable: the layout builders add one per table */
}

static void progress(const ez_prove_opts *o, const char *phase, double frac)
{
    if (o && o->progress && o->progress_fn)
        o->progress_fn(o->progress_ctx, phase, frac);
}

/* The output claims: per output tensor a random point and the public output's MLE. */
ez_status ez_proof_output_claims(ez_pctx *c, const ez_statement *s)
{
    const ez_plan *p = c->plan;
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (!t->is_output)
            continue;
        const ez_stmt_tensor *v = ez_statement_find(s, (unsigned)i);
        if (v == NULL)
            return EZ_ERR_INVALID;
        unsigned nv = ez_claim_tensor_nvars(t->dims, t->rank);
        ez_fe2 r[EZ_PROVE_MAX_VARS], val;
        ez_transcript_challenges_fe2(c->t, "out/point", r, nv);
        ez_status st = ez_advice_tensor_eval(&val, v->v, t, r);
        if (st == EZ_OK)
            st = ez_pctx_claim_tensor(c, i, r, nv, val);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

/* ---- the phases shared by ez_prove and ez_prove_weight_range ------------------------------ */

/* Everything one proof session owns besides the transcript and the claim lists. */
typedef struct {
    ez_advice_layout L;
    ez_fe **polys;
    uint64_t *alens;
    tab_cols tcs[EZ_ADV_MAX_TABLES];
    ez_pcs_prover *aprover;
    ez_pcs_commitment acom;
} psess;

static void sess_clear(psess *s)
{
    if (s->polys)
        for (size_t q = 0; q < s->L.npolys; q++)
            free(s->polys[q]);
    free(s->polys);
    free(s->alens);
    for (size_t tb = 0; tb < EZ_ADV_MAX_TABLES; tb++) {
        for (size_t j = 0; j < s->tcs[tb].nc; j++)
            free(s->tcs[tb].owned[j]);
        free(s->tcs[tb].cols);
        free(s->tcs[tb].owned);
        free(s->tcs[tb].idx);
        free(s->tcs[tb].lens);
        free(s->tcs[tb].tags);
    }
    ez_pcs_prover_free(s->aprover);
    ez_pcs_commitment_clear(&s->acom);
    ez_advice_layout_clear(&s->L);
    memset(s, 0, sizeof *s);
}

/* The advice values, every table's concrete columns and its multiplicities (s->L built). */
static ez_status sess_witness(psess *s, const ez_plan *p, const ez_trace *tr, bool unchecked, ez_diag *d)
{
    ez_advice_layout *L = &s->L;
    ez_status st;
    s->polys = ez_alloc_array(L->npolys ? L->npolys : 1, sizeof *s->polys);
    s->alens = ez_alloc_array(L->npolys ? L->npolys : 1, sizeof *s->alens);
    if (!s->polys || !s->alens)
        return EZ_ERR_NOMEM;
    if ((st = ez_advice_fill(L, p, tr, unchecked, s->polys, d)) != EZ_OK)
        return st;
    for (size_t i = 0; i < p->nops; i++) {
        const ez_op_prover *e = ez_op_prover_find(p->ops[i].kind);
        if (e->fill && (st = e->fill(L, p, tr, i, unchecked, s->polys, d)) != EZ_OK)
            return st;
    }
    for (size_t q = 0; q < L->npolys; q++)
        s->alens[q] = L->polys[q].len;
    for (size_t tb = 0; tb < L->ntables; tb++) {
        tab_cols *tc = &s->tcs[tb];
        size_t q = table_poly(L, (unsigned)tb);
        tc->cols = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *tc->cols);
        tc->owned = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *tc->owned);
        tc->idx = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *tc->idx);
        tc->lens = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *tc->lens);
        tc->tags = ez_alloc_array(L->ncols ? L->ncols : 1, sizeof *tc->tags);
        s->polys[q] = ez_alloc_aligned(s->alens[q], sizeof(ez_fe));
        if (!tc->cols || !tc->owned || !tc->idx || !tc->lens || !tc->tags || !s->polys[q])
            return EZ_ERR_NOMEM;
        if ((st = ez_rc_columns(L, p, tr, s->polys, (unsigned)tb, tc->cols, tc->owned, tc->idx, &tc->nc, d)) != EZ_OK)
            return st;
        for (size_t j = 0; j < tc->nc; j++) {
            tc->lens[j] = L->cols[tc->idx[j]].len;
            tc->tags[j] = L->cols[tc->idx[j]].bits;
        }
        st = ez_lookup_mult(s->polys[q], L->tables[tb].rbits, L->tables[tb].nranges, tc->cols, tc->lens, tc->tags,
                            tc->nc, d);
        if (st == EZ_ERR_NUMERIC) {
            /* checked mode: a value outside its range that the advice fill let through */
            if (unchecked) {
                st = EZ_OK;
            } else {
                ez_diag why = *d;
                ez_diag_set(d, "a range-checked value is outside its range (%s)", why.msg);
            }
        }
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

/* Phase 2: commit the advice, write u8 present + the commitment to w, absorb it. */
static ez_status sess_commit(psess *s, ez_transcript *t, ez_writer *w)
{
    ez_writer_u8(w, s->L.npolys > 0);
    if (s->L.npolys == 0)
        return EZ_OK;
    ez_status st = ez_pcs_commit(&s->aprover, &s->acom, (const ez_fe *const *)s->polys, s->alens, s->L.npolys);
    if (st != EZ_OK)
        return st;
    ez_pcs_commitment_write(w, &s->acom);
    ez_pcs_commitment_absorb(t, &s->acom);
    return EZ_OK;
}

/* Phase 3: one LogUp-GKR per table, then its claims resolved (c->w is the section). */
static ez_status sess_lookups(psess *s, ez_pctx *c)
{
    for (size_t tb = 0; tb < s->L.ntables; tb++) {
        tab_cols *tc = &s->tcs[tb];
        ez_lookup_claims lcl;
        ez_status st = ez_lookup_prove(c->t, s->L.tables[tb].rbits, s->L.tables[tb].nranges, tc->cols, tc->lens,
                                       tc->tags, tc->nc, s->polys[table_poly(&s->L, (unsigned)tb)], c->w, &lcl);
        if (st == EZ_OK)
            st = ez_rc_resolve(c, (unsigned)tb, tc->idx, tc->nc, &lcl);
        ez_lookup_claims_clear(&lcl);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

/* Phase 6: weights (one opening, with the PCS flags wflags) into ww, advice (one
 * opening) into wa. The weights' padding is zero (the vk's range proof), so a claim on a
 * weight tensor is a claim on its committed polynomial. */
static ez_status sess_openings(psess *s, ez_pctx *c, ez_pcs_prover *weights, unsigned wflags, ez_writer *ww,
                               ez_writer *wa)
{
    const ez_plan *p = c->plan;
    ez_status st = EZ_OK;
    size_t npc = 0, cap = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        cap += c->tclaims[i].n;
    for (size_t q = 0; q < s->L.npolys; q++)
        cap += c->aclaims[q].n;
    ez_pcs_claim *pclaims = ez_alloc_array(cap ? cap : 1, sizeof *pclaims);
    if (pclaims == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0, wi = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *tt = &p->tensors[i];
        ez_claim_list *l = &c->tclaims[i];
        if (tt->kind == EZ_TENSOR_ACT && l->n > 0) {
            ez_diag_set(c->d, "internal: claims left on activation '%s'", tt->name);
            st = EZ_ERR_INTERNAL;
            goto out;
        }
        if (tt->kind != EZ_TENSOR_WEIGHT)
            continue;
        for (size_t j = 0; j < l->n; j++)
            pclaims[npc++] = (ez_pcs_claim){wi, l->items[j].point, l->items[j].value};
        wi++;
    }
    if (npc > 0 && (st = ez_pcs_open_ex(weights, c->t, pclaims, npc, wflags, ww)) != EZ_OK)
        goto out;
    npc = 0;
    for (size_t q = 0; q < s->L.npolys; q++)
        for (size_t j = 0; j < c->aclaims[q].n; j++)
            pclaims[npc++] = (ez_pcs_claim){q, c->aclaims[q].items[j].point, c->aclaims[q].items[j].value};
    if (npc > 0)
        st = ez_pcs_open(s->aprover, c->t, pclaims, npc, wa);
out:
    free(pclaims);
    return st;
}

/* The weight prover must commit exactly the plan's weight layout. */
static ez_status check_weights(const ez_plan *p, ez_pcs_prover *weights, ez_diag *d)
{
    uint64_t *wlens = NULL;
    size_t nw = 0;
    ez_status st = ez_weights_lens(p, &wlens, &nw);
    if (st != EZ_OK)
        return st;
    bool same = (nw == 0) == (weights == NULL);
    if (same && weights) {
        const ez_pcs_commitment *wc = ez_pcs_prover_commitment(weights);
        same = wc->npolys == nw;
        for (size_t i = 0; same && i < nw; i++)
            same = wc->lens[i] == wlens[i];
    }
    free(wlens);
    if (!same) {
        ez_diag_set(d, "the weight commitment does not match the model's weight layout");
        return EZ_ERR_INVALID;
    }
    return EZ_OK;
}

/* ---- the prover ------------------------------------------------------------------------------ */

ez_status ez_prove(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, const ez_prove_opts *opts,
                   ez_proof *proof, ez_prove_stats *stats, ez_diag *d)
{
    ez_status st;
    psess s;
    ez_pctx c;
    ez_transcript t;
    ez_prove_stats S;
    bool unchecked = opts && opts->unchecked;
    memset(&S, 0, sizeof S);
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    double t0 = ez_now(), tp = t0, c0 = ez_prove_cpu_now(), cp = c0;

    if ((st = ez_advice_layout_build(&s.L, p, d)) != EZ_OK)
        goto out;
    if ((st = check_weights(p, weights, d)) != EZ_OK)
        goto out;
    S.nops = p->nops;
    if ((S.ops = ez_alloc_array(p->nops ? p->nops : 1, sizeof *S.ops)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if ((st = ez_statement_from_trace(&proof->stmt, p, tr->t)) != EZ_OK)
        goto out;

    /* witness: advice limbs, then every table's columns and multiplicities */
    progress(opts, "witness", 0);
    if ((st = sess_witness(&s, p, tr, unchecked, d)) != EZ_OK)
        goto out;
    S.witness = ez_now() - tp;
    S.cpu_witness = ez_prove_cpu_now() - cp;

    /* phase 1: transcript; phase 2: the advice commitment */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    ez_proof_transcript_start(&t, p, weights ? ez_pcs_prover_commitment(weights) : NULL, &proof->stmt);
    progress(opts, "commit", 0);
    if ((st = sess_commit(&s, &t, &proof->sec[EZ_PF_SEC_ADVICE])) != EZ_OK)
        goto out;
    S.commit = ez_now() - tp;
    S.cpu_commit = ez_prove_cpu_now() - cp;

    c.prover = true;
    c.plan = p;
    c.adv = &s.L;
    c.t = &t;
    c.tr = tr;
    c.stmt = &proof->stmt;
    c.advice = s.polys;
    c.d = d;
    if ((st = ez_pctx_alloc(&c, p, &s.L)) != EZ_OK)
        goto out;

    /* phase 3: lookups, one LogUp-GKR per table */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    progress(opts, "lookups", 0);
    c.w = &proof->sec[EZ_PF_SEC_LOOKUPS];
    if ((st = sess_lookups(&s, &c)) != EZ_OK)
        goto out;
    S.lookups = ez_now() - tp;
    S.cpu_lookups = ez_prove_cpu_now() - cp;

    /* phase 4 and 5: output claims, then the backward walk */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    progress(opts, "sumchecks", 0);
    c.w = &proof->sec[EZ_PF_SEC_WALK];
    if ((st = ez_proof_output_claims(&c, &proof->stmt)) != EZ_OK)
        goto out;
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        ez_claim_list *l = &c.tclaims[op->out];
        if (l->n == 0)
            continue; /* nothing depends on this op */
        double ts = ez_now();
        size_t b0 = c.w->len;
        const ez_plan_tensor *to = &p->tensors[op->out];
        ez_claim m = {0};
        if (l->n == 1)
            st = ez_claim_copy(&m, &l->items[0]);
        else
            st = ez_claim_merge_prove(&t, tr->t[op->out], to->dims, to->rank, l->items, l->n, c.w, &m);
        ez_claim_list_clear(l);
        if (st == EZ_OK)
            st = ez_op_prover_find(op->kind)->prove(&c, i, &m);
        ez_claim_clear(&m);
        if (st != EZ_OK) {
            if (!d->msg[0])
                ez_diag_set(d, "op '%s' (%s): the prover failed (%s)", op->label, ez_op_kind_name(op->kind),
                            ez_status_str(st));
            goto out;
        }
        S.ops[i].seconds = ez_now() - ts;
        S.ops[i].bytes = c.w->len - b0;
        progress(opts, "sumchecks", (double)(p->nops - i) / (double)p->nops);
    }
    S.sumchecks = ez_now() - tp;
    S.cpu_sumchecks = ez_prove_cpu_now() - cp;

    /* phase 6: openings */
    tp = ez_now();
    cp = ez_prove_cpu_now();
    progress(opts, "openings", 0);
    /* the weight commitment's proximity is tested once, by the vk's range proof, which
     * every verification checks first: the proof's weight opening omits it */
    if ((st = sess_openings(&s, &c, weights, EZ_PCS_OPEN_NO_PROXIMITY, &proof->sec[EZ_PF_SEC_OPEN_W],
                            &proof->sec[EZ_PF_SEC_OPEN_A])) != EZ_OK)
        goto out;
    S.openings = ez_now() - tp;
    S.cpu_openings = ez_prove_cpu_now() - cp;
    for (int k = 1; k <= EZ_PF_NSEC; k++)
        if (proof->sec[k].failed) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    S.total = ez_now() - t0;
    S.cpu_total = ez_prove_cpu_now() - c0;
    progress(opts, "done", 1);

out:
    if (c.tclaims)
        ez_pctx_free(&c);
    sess_clear(&s);
    if (st == EZ_OK && stats)
        *stats = S;
    else
        ez_prove_stats_clear(&S);
    return st;
}

/* ---- the weight range proof ---------------------------------------------------------------- */

static void put_chunk(ez_writer *out, const ez_writer *chunk)
{
    ez_writer_u64(out, chunk->len);
    ez_writer_bytes(out, chunk->data, chunk->len);
    if (chunk->failed)
        out->failed = true;
}

void ez_weight_range_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom)
{
    const char *ver = ez_protocol_version();
    ez_transcript_init(t, EZ_WRANGE_DOMAIN);
    ez_transcript_absorb_bytes(t, "version", ver, strlen(ver));
    ez_transcript_absorb_bytes(t, "plan/digest", p->digest, sizeof p->digest);
    ez_pcs_commitment_absorb(t, wcom);
}

ez_status ez_prove_weight_range(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, bool unchecked,
                                ez_writer *out, ez_diag *d)
{
    ez_status st;
    psess s;
    ez_pctx c;
    ez_transcript t;
    ez_writer sec[4];
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    for (int k = 0; k < 4; k++)
        ez_writer_init(&sec[k]);
    if ((st = check_weights(p, weights, d)) != EZ_OK)
        goto out;
    if (weights == NULL) {
        ez_writer_u8(out, 0);
        goto out;
    }
    if ((st = ez_advice_layout_build_weights(&s.L, p, d)) != EZ_OK)
        goto out;
    if ((st = sess_witness(&s, p, tr, unchecked, d)) != EZ_OK)
        goto out;
    ez_weight_range_transcript_start(&t, p, ez_pcs_prover_commitment(weights));
    if ((st = sess_commit(&s, &t, &sec[0])) != EZ_OK)
        goto out;
    c.prover = true;
    c.plan = p;
    c.adv = &s.L;
    c.t = &t;
    c.tr = tr;
    c.advice = s.polys;
    c.d = d;
    if ((st = ez_pctx_alloc(&c, p, &s.L)) != EZ_OK)
        goto out;
    c.w = &sec[1];
    if ((st = sess_lookups(&s, &c)) != EZ_OK)
        goto out;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT && ez_advice_interior_padding(&p->tensors[i]) &&
            (st = weight_pad_prove(&c, i)) != EZ_OK)
            goto out;
    /* the full opening: it also tests the weight commitment's proximity (docs §6.4) */
    if ((st = sess_openings(&s, &c, weights, 0, &sec[2], &sec[3])) != EZ_OK)
        goto out;
    ez_writer_u8(out, 1);
    for (int k = 0; k < 4; k++)
        put_chunk(out, &sec[k]);
    if (out->failed)
        st = EZ_ERR_NOMEM;
out:
    for (int k = 0; k < 4; k++)
        ez_writer_clear(&sec[k]);
    if (c.tclaims)
        ez_pctx_free(&c);
    sess_clear(&s);
    return st;
}

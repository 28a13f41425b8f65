/* advice — see advice.h; the protocol is docs/protocol.md §3. */
#include "config.h"

#include "runtime/prove/advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/prove/rangecheck.h"

/* ---- padded layout ----------------------------------------------------------------------- */

uint64_t ez_advice_padlen(const ez_plan_tensor *t)
{
    if (t->rank == 0)
        return 1;
    uint64_t n = t->dims[0];
    for (unsigned a = 1; a < t->rank; a++) {
        unsigned k = ez_log2_ceil(t->dims[a]);
        if (k >= 64 || n > (UINT64_MAX >> k))
            return UINT64_MAX;
        n <<= k;
    }
    return n;
}

bool ez_advice_interior_padding(const ez_plan_tensor *t)
{
    for (unsigned a = 1; a < t->rank; a++)
        if (t->dims[a] & (t->dims[a] - 1))
            return true;
    return false;
}

void ez_advice_strides(const ez_plan_tensor *t, uint64_t stride[EZ_MAX_RANK])
{
    uint64_t s = 1;
    for (unsigned a = t->rank; a-- > 0;) {
        stride[a] = s;
        s <<= ez_log2_ceil(t->dims[a]);
    }
}

void ez_advice_pad_i64(ez_fe *dst, const int64_t *src, const ez_plan_tensor *t, ez_fe add)
{
    uint64_t n = ez_advice_padlen(t);
    uint64_t stride[EZ_MAX_RANK];
    ez_advice_strides(t, stride);
    memset(dst, 0, n * sizeof *dst);
    ez_claim_layout_i64(dst, src, t->dims, t->rank, stride);
    if (add != 0) {
#pragma omp parallel for schedule(static) if (n > 65536)
        for (uint64_t i = 0; i < n; i++)
            dst[i] = ez_fe_add(dst[i], add);
    }
}

ez_status ez_advice_tensor_eval(ez_fe2 *out, const int64_t *src, const ez_plan_tensor *t, const ez_fe2 *point)
{
    uint64_t n = ez_plan_tensor_numel(t);
    ez_fe *tmp = ez_alloc_aligned(n ? n : 1, sizeof *tmp);
    if (tmp == NULL)
        return EZ_ERR_NOMEM;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++)
        tmp[i] = ez_fe_from_i64(src[i]);
    if (t->rank == 0) {
        *out = ez_fe2_from_fe(tmp[0]);
    } else {
        size_t dims[EZ_MAX_RANK];
        for (unsigned a = 0; a < t->rank; a++)
            dims[a] = (size_t)t->dims[a];
        *out = ez_mle_eval_tensor_fe(tmp, dims, t->rank, point);
    }
    free(tmp);
    return EZ_OK;
}

/* ---- the weight layout ----------------------------------------------------------------- */

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

/* ---- the layout ---------------------------------------------------------------------------- */

void ez_advice_layout_init(ez_advice_layout *L)
{
    memset(L, 0, sizeof *L);
}

void ez_advice_layout_clear(ez_advice_layout *L)
{
    if (L == NULL)
        return;
    free(L->values);
    free(L->polys);
    free(L->cols);
    free(L->tuples);
    free(L->op_rem);
    memset(L, 0, sizeof *L);
}

/* Grow array *a of *n elements (capacity *cap) by one; return the new slot or NULL. */
static void *grow(void **a, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *p = ez_realloc_array(*a, nc, elem);
        if (p == NULL)
            return NULL;
        *a = p;
        *cap = nc;
    }
    void *slot = (char *)*a + (*n)++ * elem;
    memset(slot, 0, elem);
    return slot;
}

ez_status ez_advice_add_value(ez_advice_layout *L, const ez_adv_value *v, const ez_plan *p, size_t *idx)
{
    uint64_t len = ez_advice_padlen(&p->tensors[v->tensor]);
    size_t first = L->npolys;
    for (unsigned i = 0; i < v->nlimbs; i++) {
        ez_adv_poly *q = grow((void **)&L->polys, &L->npolys, &L->caps[1], sizeof *q);
        if (q == NULL)
            return EZ_ERR_NOMEM;
        q->len = len;
        q->value = (long)L->nvalues;
        q->limb = i;
    }
    ez_adv_value *x = grow((void **)&L->values, &L->nvalues, &L->caps[0], sizeof *x);
    if (x == NULL)
        return EZ_ERR_NOMEM;
    *x = *v;
    x->first_poly = first;
    if (idx)
        *idx = L->nvalues - 1;
    return EZ_OK;
}

ez_status ez_advice_add_poly(ez_advice_layout *L, uint64_t len, unsigned op, size_t *idx)
{
    ez_adv_poly *q = grow((void **)&L->polys, &L->npolys, &L->caps[1], sizeof *q);
    if (q == NULL)
        return EZ_ERR_NOMEM;
    q->len = len;
    q->value = EZ_ADV_POLY_OP;
    q->op = op;
    if (idx)
        *idx = L->npolys - 1;
    return EZ_OK;
}

ez_status ez_advice_add_col(ez_advice_layout *L, const ez_lookup_col *c, size_t *idx)
{
    ez_lookup_col *x = grow((void **)&L->cols, &L->ncols, &L->caps[2], sizeof *x);
    if (x == NULL)
        return EZ_ERR_NOMEM;
    *x = *c;
    if (idx)
        *idx = L->ncols - 1;
    return EZ_OK;
}

ez_status ez_advice_add_tuple(ez_advice_layout *L, const ez_lookup_tuple *t, size_t *idx)
{
    ez_lookup_tuple *x = grow((void **)&L->tuples, &L->ntuples, &L->caps[3], sizeof *x);
    if (x == NULL)
        return EZ_ERR_NOMEM;
    *x = *t;
    if (idx)
        *idx = L->ntuples - 1;
    return EZ_OK;
}

ez_status ez_advice_range_table(ez_advice_layout *L, unsigned bits, unsigned *idx)
{
    if (bits == 0 || bits > EZ_ADV_LIMB_BITS)
        return EZ_ERR_INVALID;
    size_t i = 0;
    while (i < L->ntables && L->tables[i].kind != EZ_LOOKUP_RANGES)
        i++;
    if (i == L->ntables) {
        if (L->ntables == EZ_ADV_MAX_TABLES)
            return EZ_ERR_UNSUPPORTED;
        memset(&L->tables[L->ntables++], 0, sizeof L->tables[0]);
    }
    ez_lookup_table_desc *t = &L->tables[i];
    *idx = (unsigned)i;
    for (unsigned k = 0; k < t->nranges; k++)
        if (t->rbits[k] == bits)
            return EZ_OK;
    t->rbits[t->nranges++] = bits; /* at most 16 distinct widths */
    return EZ_OK;
}

ez_status ez_advice_func_table(ez_advice_layout *L, ez_fn_table_kind fkind, ez_func func, unsigned in_scale,
                               unsigned out_scale, unsigned *idx)
{
    if (fkind == EZ_TABLE_RSQRT)
        func = EZ_FN_RSQRT, in_scale = out_scale = 0;
    else if (fkind == EZ_TABLE_SOFTMAX_EXP)
        func = EZ_FN_EXP, out_scale = 0;
#ifndef EZ_UNSHARED_FUNC_TABLES /* bench/models.sh's baseline: one table per op */
    for (size_t i = 0; i < L->ntables; i++) {
        const ez_lookup_table_desc *t = &L->tables[i];
        if (t->kind == EZ_LOOKUP_FUNC && t->fkind == fkind && t->func == func && t->in_scale == in_scale &&
            t->out_scale == out_scale) {
            *idx = (unsigned)i;
            return EZ_OK;
        }
    }
#endif
    if (L->ntables == EZ_ADV_MAX_TABLES)
        return EZ_ERR_UNSUPPORTED;
    ez_lookup_table_desc *t = &L->tables[L->ntables];
    memset(t, 0, sizeof *t);
    t->kind = EZ_LOOKUP_FUNC;
    t->fkind = fkind;
    t->func = func;
    t->in_scale = in_scale;
    t->out_scale = out_scale;
    *idx = (unsigned)L->ntables++;
    return EZ_OK;
}

uint64_t ez_advice_table_rows(const ez_lookup_table_desc *t)
{
    if (t->kind == EZ_LOOKUP_FUNC)
        return UINT64_C(1) << EZ_TABLE_BITS;
    uint64_t n = 0;
    for (unsigned k = 0; k < t->nranges; k++)
        n += UINT64_C(1) << t->rbits[k];
    return n;
}

/* After every column is registered: regions widest first (lib/logup.h's order), then
 * one multiplicity poly per table. */
ez_status ez_advice_layout_start(ez_advice_layout *L, const ez_plan *p)
{
    ez_advice_layout_init(L);
    L->nops = p->nops;
    L->op_rem = ez_alloc_array(p->nops ? p->nops : 1, sizeof *L->op_rem);
    if (L->op_rem == NULL)
        return EZ_ERR_NOMEM;
    for (size_t i = 0; i < p->nops; i++)
        L->op_rem[i] = -1;
    return EZ_OK;
}

ez_status ez_advice_finish_tables(ez_advice_layout *L)
{
    for (size_t t = 0; t < L->ntables; t++) {
        ez_lookup_table_desc *d = &L->tables[t];
        for (unsigned i = 1; i < d->nranges; i++)
            for (unsigned j = i; j > 0 && d->rbits[j] > d->rbits[j - 1]; j--) {
                unsigned x = d->rbits[j];
                d->rbits[j] = d->rbits[j - 1];
                d->rbits[j - 1] = x;
            }
        ez_adv_poly *q = grow((void **)&L->polys, &L->npolys, &L->caps[1], sizeof *q);
        if (q == NULL)
            return EZ_ERR_NOMEM;
        q->len = ez_advice_table_rows(d);
        q->value = -1;
        q->table = (unsigned)t;
    }
    return EZ_OK;
}

size_t ez_advice_table_poly(const ez_advice_layout *L, unsigned table)
{
    for (size_t q = 0; q < L->npolys; q++)
        if (L->polys[q].value == -1 && L->polys[q].table == table)
            return q;
    return L->npolys; /* no such table: an index every user rejects */
}

uint64_t ez_advice_atom_len(const ez_advice_layout *L, const ez_plan *p, ez_atom a)
{
    return a.is_tensor ? ez_advice_padlen(&p->tensors[a.id]) : L->polys[a.id].len;
}



/* ---- values ------------------------------------------------------------------------------- */

/* Split the padded entries x[0..len) of value v into its limb polys (after the shift:
 * e = x >> shift; in range iff x < 2^(bits + shift)). Returns the first padded index out
 * of range (checked mode), or UINT64_MAX. */
static uint64_t split_limbs(const ez_adv_value *v, const ez_fe *x, uint64_t len, ez_fe **limbs, bool unchecked)
{
    unsigned n = v->nlimbs, top = n - 1;
    uint64_t bad = UINT64_MAX;
    ez_fe inv_top = ez_fe_inv(ez_fe_pow(2, (uint64_t)EZ_ADV_LIMB_BITS * top));
#pragma omp parallel for schedule(static) if (len > 65536)
    for (uint64_t i = 0; i < len; i++) {
        uint64_t e = x[i] >> v->shift;
        bool ok = v->bits >= 64 || (e >> v->bits) == 0;
        if (!ok && !unchecked) {
#pragma omp critical(ez_advice_bad)
            if (i < bad)
                bad = i;
            continue;
        }
        /* top <= 3, so the low limbs are the low 16 top <= 48 bits of e, below p */
        ez_fe low = top ? e & ((UINT64_C(1) << (EZ_ADV_LIMB_BITS * top)) - 1) : 0;
        for (unsigned l = 0; l < top; l++)
            limbs[l][i] = (e >> (EZ_ADV_LIMB_BITS * l)) & 0xffff;
        /* in range this is e >> 16 top; out of range (unchecked) the field quotient */
        limbs[top][i] = ok ? (top ? e >> (EZ_ADV_LIMB_BITS * top) : e) : ez_fe_mul(ez_fe_sub(e, low), inv_top);
    }
    return bad;
}

static void describe_entry(char *buf, size_t cap, const ez_plan_tensor *t, uint64_t padded)
{
    uint64_t stride[EZ_MAX_RANK], flat = 0, mul = 1;
    ez_advice_strides(t, stride);
    bool real = true;
    uint64_t rest = padded;
    uint64_t idx[EZ_MAX_RANK] = {0};
    for (unsigned a = 0; a < t->rank; a++) {
        idx[a] = rest / stride[a];
        rest %= stride[a];
        if (idx[a] >= t->dims[a])
            real = false;
    }
    if (!real) {
        snprintf(buf, cap, "%s[padding entry %llu]", t->name, (unsigned long long)padded);
        return;
    }
    for (unsigned a = t->rank; a-- > 0;) {
        flat += idx[a] * mul;
        mul *= t->dims[a];
    }
    ez_exec_format_elem(buf, cap, t, flat);
}

ez_status ez_advice_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, bool unchecked,
                         ez_fe **polys, ez_diag *d)
{
    ez_status st = EZ_OK;
    ez_fe *x = NULL;
    for (size_t i = 0; i < L->npolys; i++)
        polys[i] = NULL;
    for (size_t vi = 0; vi < L->nvalues; vi++) {
        const ez_adv_value *v = &L->values[vi];
        const ez_plan_tensor *t = &p->tensors[v->tensor];
        const char *owner = v->op < p->nops ? p->ops[v->op].label : "weights";
        uint64_t len = ez_advice_padlen(t), numel = ez_plan_tensor_numel(t);
        const int64_t *src = NULL;
        if (v->src == EZ_ADV_SRC_TENSOR) {
            src = tr->t[v->tensor];
        } else {
            uint64_t n = 0;
            src = ez_trace_aux(tr, v->op, v->aux, &n);
            if (src == NULL || n != numel) {
                ez_diag_set(d, "op '%s': the trace has no %s array of %llu entries", owner,
                            ez_aux_kind_name(v->aux), (unsigned long long)numel);
                st = EZ_ERR_INVALID;
                goto out;
            }
        }
        if (src == NULL && numel > 0) {
            ez_diag_set(d, "tensor '%s' is not in the trace", t->name);
            st = EZ_ERR_INVALID;
            goto out;
        }
        x = ez_alloc_aligned(len, sizeof *x);
        if (x == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        ez_advice_pad_i64(x, src, t, ez_fe_from_i64(v->offset));
        ez_fe *limbs[EZ_ADV_MAX_LIMBS];
        for (unsigned l = 0; l < v->nlimbs; l++) {
            limbs[l] = polys[v->first_poly + l] = ez_alloc_aligned(len, sizeof(ez_fe));
            if (limbs[l] == NULL) {
                st = EZ_ERR_NOMEM;
                goto out;
            }
        }
        uint64_t bad = split_limbs(v, x, len, limbs, unchecked);
        if (bad != UINT64_MAX) {
            char where[256];
            describe_entry(where, sizeof where, t, bad);
            int64_t val = ez_fe_to_i64(ez_fe_sub(x[bad], ez_fe_from_i64(v->offset)));
            if (v->src == EZ_ADV_SRC_TENSOR)
                ez_diag_set(d, "%s '%s': %s = %lld is outside its %u-bit range", v->op < p->nops ? "op" : "in",
                            owner, where, (long long)val,
                            v->bits + v->shift - (v->offset != 0));
            else
                ez_diag_set(d, "op '%s': %s of %s = %lld is outside [0, 2^%u)", owner, ez_aux_kind_name(v->aux),
                            where, (long long)val, v->bits);
            st = EZ_ERR_NUMERIC;
            goto out;
        }
        free(x);
        x = NULL;
    }
out:
    free(x);
    if (st != EZ_OK)
        for (size_t i = 0; i < L->npolys; i++) {
            free(polys[i]);
            polys[i] = NULL;
        }
    return st;
}

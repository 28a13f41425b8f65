/* advice — see advice.h; the protocol is docs/protocol.md §3. */
#include "config.h"

#include "runtime/prove/advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/logup.h"
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
    if (t->rank == 0) {
        *out = ez_fe2_from_fe(ez_fe_from_i64(src[0]));
        return EZ_OK;
    }
    size_t dims[EZ_MAX_RANK];
    for (unsigned a = 0; a < t->rank; a++)
        dims[a] = (size_t)t->dims[a];
    *out = ez_mle_eval_tensor_i64(src, dims, t->rank, point);
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
            l[k++] = ez_advice_tensor_supported(&p->tensors[i]) ? ez_plan_tensor_numel(&p->tensors[i])
                                                                : ez_advice_padlen(&p->tensors[i]);
    *lens = l;
    return EZ_OK;
}

/* The piece cap in force: EZ_ADV_MAX_PIECES, lowered only by tests (see advice.h). */
static size_t max_pieces = EZ_ADV_MAX_PIECES;

void ez_advice_testing_max_pieces(size_t n)
{
    max_pieces = n ? n : EZ_ADV_MAX_PIECES;
}

bool ez_advice_tensor_supported(const ez_plan_tensor *t)
{
    if (!ez_advice_interior_padding(t))
        return false;
    size_t np = 1;
    unsigned nv = 0;
    for (unsigned a = 0; a < t->rank; a++) {
        np *= (size_t)__builtin_popcountll(t->dims[a]);
        nv += ez_log2_ceil(t->dims[a]);
        if (np > max_pieces)
            return false;
    }
    return nv > 0 && nv <= 48;
}

ez_status ez_weights_supports(const ez_plan *p, ez_advice_layout *scratch, ez_pcs_support **out)
{
    *out = NULL;
    size_t n = 0;
    bool any = false;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT) {
            n++;
            any |= ez_advice_tensor_supported(&p->tensors[i]);
        }
    if (!any)
        return EZ_OK;
    long *idx = ez_alloc_array(n, sizeof *idx);
    ez_pcs_support *s = calloc(n, sizeof *s);
    ez_status st = idx && s ? EZ_OK : EZ_ERR_NOMEM;
    for (size_t i = 0, k = 0; st == EZ_OK && i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT)
            st = ez_advice_support_tensor(scratch, p, (unsigned)i, &idx[k++]);
    /* pointers only once every support exists (the array may move while it grows) */
    for (size_t k = 0; st == EZ_OK && k < n; k++)
        if (idx[k] >= 0) {
            const ez_adv_support *x = &scratch->supports[idx[k]];
            s[k] = (ez_pcs_support){x->nv, x->npieces, x->pieces};
        }
    free(idx);
    if (st != EZ_OK) {
        free(s);
        return st;
    }
    *out = s;
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
    for (size_t i = 0; i < L->nsupports; i++) {
        free(L->supports[i].pieces);
        free(L->supports[i].off);
        free(L->supports[i].bits);
    }
    EZ_FREE_ALL(L->supports, L->values, L->polys, L->cols, L->tuples, L->op_rem);
    memset(L, 0, sizeof *L);
}

/* Grow array *a of *n elements (capacity *cap) by one; return the new slot or NULL. */
static void *grow(void **a, size_t *n, size_t *cap, size_t elem)
{
    void *p = ez_array_room(*a, *n, cap, elem, 16);
    if (p == NULL)
        return NULL;
    *a = p;
    void *slot = (char *)*a + (*n)++ * elem;
    memset(slot, 0, elem);
    return slot;
}

/* ---- supports ------------------------------------------------------------------------- */

uint64_t ez_advice_support_len(const ez_adv_support *s)
{
    return s->off[s->npieces];
}

ez_status ez_advice_add_support(ez_advice_layout *L, unsigned nv, const ez_pcs_piece *pieces, size_t npieces,
                                long *idx)
{
    if (nv == 0 || nv > 48 || npieces == 0)
        return EZ_ERR_INVALID;
    uint64_t all = (UINT64_C(1) << nv) - 1;
    for (size_t j = 0; j < npieces; j++)
        if ((pieces[j].mask & ~all) || (pieces[j].val & ~pieces[j].mask))
            return EZ_ERR_INVALID;
    ez_adv_support s = {.nv = nv, .npieces = npieces, .tensor = EZ_ADV_NO_TENSOR};
    s.pieces = ez_alloc_array(npieces, sizeof *s.pieces);
    s.off = ez_alloc_array(npieces + 1, sizeof *s.off);
    s.bits = ez_alloc_array(npieces, sizeof *s.bits);
    ez_adv_support *x = NULL;
    if (s.pieces && s.off && s.bits)
        x = grow((void **)&L->supports, &L->nsupports, &L->caps[4], sizeof *x);
    if (x == NULL) {
        free(s.pieces);
        free(s.off);
        free(s.bits);
        return EZ_ERR_NOMEM;
    }
    memcpy(s.pieces, pieces, npieces * sizeof *s.pieces);
    s.off[0] = 0;
    for (size_t j = 0; j < npieces; j++) {
        s.bits[j] = nv - (unsigned)__builtin_popcountll(pieces[j].mask);
        s.off[j + 1] = s.off[j] + (UINT64_C(1) << s.bits[j]);
    }
    *x = s;
    *idx = (long)(L->nsupports - 1);
    return EZ_OK;
}

ez_status ez_advice_support_tensor(ez_advice_layout *L, const ez_plan *p, unsigned tensor, long *idx)
{
    const ez_plan_tensor *t = &p->tensors[tensor];
    if ((*idx = ez_advice_live_support(L, tensor)) >= 0)
        return EZ_OK;
    if (!ez_advice_tensor_supported(t))
        return EZ_OK;
    for (size_t i = 0; i < L->nsupports; i++) {
        const ez_adv_support *s = &L->supports[i];
        if (s->tensor == EZ_ADV_NO_TENSOR || s->live)
            continue;
        const ez_plan_tensor *u = &p->tensors[s->tensor];
        if (u->rank == t->rank && memcmp(u->dims, t->dims, t->rank * sizeof *t->dims) == 0) {
            *idx = (long)i;
            return EZ_OK;
        }
    }
    /* per axis: its block of index bits and its binary pieces, largest first */
    unsigned nv = 0, sh[EZ_MAX_RANK], na[EZ_MAX_RANK];
    size_t np = 1;
    for (unsigned a = t->rank; a-- > 0;) {
        na[a] = ez_log2_ceil(t->dims[a]);
        sh[a] = nv;
        nv += na[a];
        np *= (size_t)__builtin_popcountll(t->dims[a]);
    }
    ez_pcs_piece *pc = ez_alloc_array(np, sizeof *pc);
    if (pc == NULL)
        return EZ_ERR_NOMEM;
    /* the product, axis 0 outermost: piece index digits per axis */
    for (size_t j = 0; j < np; j++) {
        size_t rest = j;
        uint64_t mask = 0, val = 0;
        for (unsigned a = t->rank; a-- > 0;) {
            size_t cnt = (size_t)__builtin_popcountll(t->dims[a]), which = rest % cnt;
            rest /= cnt;
            /* the which-th set bit of dims[a] from the top: the piece [start, start + 2^b) */
            uint64_t start = 0;
            unsigned b = 0;
            for (unsigned bit = 64, seen = 0; bit-- > 0;)
                if ((t->dims[a] >> bit) & 1) {
                    if (seen++ == which) {
                        b = bit;
                        break;
                    }
                    start += UINT64_C(1) << bit;
                }
            uint64_t amask = ((UINT64_C(1) << na[a]) - 1) & ~((UINT64_C(1) << b) - 1);
            mask |= amask << sh[a];
            val |= start << sh[a];
        }
        pc[j] = (ez_pcs_piece){mask, val};
    }
    ez_status st = ez_advice_add_support(L, nv, pc, np, idx);
    free(pc);
    if (st == EZ_OK)
        L->supports[*idx].tensor = tensor;
    return st;
}

void ez_advice_piece_point(const ez_adv_support *s, size_t j, const ez_fe2 *pt, ez_fe2 *out)
{
    unsigned nv = s->nv, o = 0;
    for (unsigned v = 0; v < nv; v++) {
        unsigned bit = nv - 1 - v;
        if ((s->pieces[j].mask >> bit) & 1)
            out[v] = ez_fe2_from_fe((s->pieces[j].val >> bit) & 1);
        else
            out[v] = pt[o++];
    }
}

ez_fe2 ez_advice_support_indicator(const ez_adv_support *s, const ez_fe2 *z)
{
    ez_fe2 sum = ez_fe2_zero(), one = ez_fe2_one();
    for (size_t j = 0; j < s->npieces; j++) {
        ez_fe2 e = one;
        for (unsigned v = 0; v < s->nv; v++) {
            unsigned bit = s->nv - 1 - v;
            if ((s->pieces[j].mask >> bit) & 1)
                e = ez_fe2_mul(e, ((s->pieces[j].val >> bit) & 1) ? z[v] : ez_fe2_sub(one, z[v]));
        }
        sum = ez_fe2_add(sum, e);
    }
    return sum;
}

long ez_advice_live_support(const ez_advice_layout *L, unsigned tensor)
{
    for (size_t i = 0; i < L->nsupports; i++)
        if (L->supports[i].live && L->supports[i].tensor == tensor)
            return (long)i;
    return -1;
}

/* Per axis of t: its bits' shift in a cube index, its bit count and its row-major stride. */
static void cube_strides(const ez_plan_tensor *t, unsigned *sh, unsigned *na, uint64_t *rs)
{
    unsigned nv = 0;
    uint64_t r = 1;
    for (unsigned a = t->rank; a-- > 0;) {
        na[a] = ez_log2_ceil(t->dims[a]);
        sh[a] = nv;
        nv += na[a];
        rs[a] = r;
        r *= t->dims[a];
    }
}

/* Row-major element of cube index x of t, or UINT64_MAX for a padding entry. */
static inline uint64_t cube_elem(uint64_t x, unsigned rank, const unsigned *sh, const unsigned *na,
                                 const uint64_t *rs, const uint64_t *dims)
{
    uint64_t e = 0;
    for (unsigned a = 0; a < rank; a++) {
        uint64_t c = (x >> sh[a]) & ((UINT64_C(1) << na[a]) - 1);
        if (c >= dims[a])
            return UINT64_MAX;
        e += c * rs[a];
    }
    return e;
}

int64_t *ez_advice_restrict_i64(const int64_t *src, const ez_plan_tensor *t, const ez_adv_support *s)
{
    uint64_t n = ez_plan_tensor_numel(t);
    int64_t *dst = ez_alloc_array(n ? n : 1, sizeof *dst); /* zero-filled */
    if (dst == NULL)
        return NULL;
    unsigned sh[EZ_MAX_RANK], na[EZ_MAX_RANK];
    uint64_t rs[EZ_MAX_RANK];
    cube_strides(t, sh, na, rs);
    for (size_t j = 0; j < s->npieces; j++) {
        uint64_t m = UINT64_C(1) << s->bits[j];
#pragma omp parallel for schedule(static) if (m > 65536)
        for (uint64_t k = 0; k < m; k++) {
            uint64_t e = cube_elem(ez_advice_piece_index(s, j, k), t->rank, sh, na, rs, t->dims);
            if (e != UINT64_MAX)
                dst[e] = src[e];
        }
    }
    return dst;
}

void ez_advice_gather_piece(ez_fe *dst, const int64_t *src, const ez_plan_tensor *t, const ez_adv_support *s, size_t j,
                            ez_fe add)
{
    unsigned sh[EZ_MAX_RANK], na[EZ_MAX_RANK];
    uint64_t rs[EZ_MAX_RANK];
    cube_strides(t, sh, na, rs);
    uint64_t n = UINT64_C(1) << s->bits[j];
    const unsigned rank = t->rank;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t k = 0; k < n; k++) {
        uint64_t e = cube_elem(ez_advice_piece_index(s, j, k), rank, sh, na, rs, t->dims);
        dst[k] = e == UINT64_MAX ? add : ez_fe_add(ez_fe_from_i64(src[e]), add);
    }
}

void ez_advice_compact(ez_fe *dst, const ez_fe *padded, const ez_adv_support *s)
{
    for (size_t j = 0; j < s->npieces; j++) {
        uint64_t n = UINT64_C(1) << s->bits[j];
        ez_fe *d = dst + s->off[j];
#pragma omp parallel for schedule(static) if (n > 65536)
        for (uint64_t k = 0; k < n; k++)
            d[k] = padded[ez_advice_piece_index(s, j, k)];
    }
}

uint64_t *ez_advice_support_pos(const ez_adv_support *s, uint64_t n)
{
    uint64_t *pos = ez_alloc_array(n ? n : 1, sizeof *pos);
    if (pos == NULL)
        return NULL;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (uint64_t x = 0; x < n; x++)
        pos[x] = EZ_ADV_NOT_COMMITTED;
    for (size_t j = 0; j < s->npieces; j++) {
        uint64_t m = UINT64_C(1) << s->bits[j], o = s->off[j];
#pragma omp parallel for schedule(static) if (m > 65536)
        for (uint64_t k = 0; k < m; k++) {
            uint64_t x = ez_advice_piece_index(s, j, k);
            if (x < n)
                pos[x] = o + k;
        }
    }
    return pos;
}

unsigned ez_advice_poly_nvars(const ez_advice_layout *L, size_t q)
{
    const ez_adv_poly *y = &L->polys[q];
    return y->support >= 0 ? L->supports[y->support].nv : ez_log2_ceil(y->len);
}

ez_fe2 ez_advice_poly_eval(const ez_advice_layout *L, size_t q, const ez_fe *data, const ez_fe2 *z)
{
    const ez_adv_poly *y = &L->polys[q];
    if (y->support < 0)
        return ez_mle_eval_fe(data, (size_t)y->len, z, ez_log2_ceil(y->len));
    const ez_adv_support *s = &L->supports[y->support];
    ez_fe2 sum = ez_fe2_zero(), one = ez_fe2_one(), zf[64];
    for (size_t j = 0; j < s->npieces; j++) {
        ez_fe2 e = one;
        unsigned o = 0;
        for (unsigned v = 0; v < s->nv; v++) {
            unsigned bit = s->nv - 1 - v;
            if ((s->pieces[j].mask >> bit) & 1)
                e = ez_fe2_mul(e, ((s->pieces[j].val >> bit) & 1) ? z[v] : ez_fe2_sub(one, z[v]));
            else
                zf[o++] = z[v];
        }
        if (ez_fe2_is_zero(e))
            continue;
        sum = ez_fe2_add(sum, ez_fe2_mul(e, ez_mle_eval_fe(data + s->off[j], (size_t)1 << s->bits[j], zf, o)));
    }
    return sum;
}

ez_status ez_advice_pcs_supports(const ez_advice_layout *L, ez_pcs_support **out)
{
    *out = NULL;
    bool any = false;
    for (size_t q = 0; q < L->npolys && !any; q++)
        any = L->polys[q].support >= 0;
    if (!any)
        return EZ_OK;
    ez_pcs_support *s = calloc(L->npolys, sizeof *s);
    if (s == NULL)
        return EZ_ERR_NOMEM;
    for (size_t q = 0; q < L->npolys; q++)
        if (L->polys[q].support >= 0) {
            const ez_adv_support *x = &L->supports[L->polys[q].support];
            s[q] = (ez_pcs_support){x->nv, x->npieces, x->pieces};
        }
    *out = s;
    return EZ_OK;
}

ez_status ez_advice_add_value(ez_advice_layout *L, const ez_adv_value *v, const ez_plan *p, size_t *idx)
{
    long sup = -1;
    ez_status st = ez_advice_support_tensor(L, p, v->tensor, &sup);
    if (st != EZ_OK)
        return st;
    uint64_t len = sup >= 0 ? ez_advice_support_len(&L->supports[sup]) : ez_advice_padlen(&p->tensors[v->tensor]);
    size_t first = L->npolys;
    for (unsigned i = 0; i < v->nlimbs; i++) {
        ez_adv_poly *q = grow((void **)&L->polys, &L->npolys, &L->caps[1], sizeof *q);
        if (q == NULL)
            return EZ_ERR_NOMEM;
        q->len = len;
        q->value = (long)L->nvalues;
        q->limb = i;
        q->support = sup;
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
    q->support = -1;
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
    /* a virtual input column: a nonzero coefficient and advice extra atoms (their values
     * are sent at the lookup point; a tensor's would be claimed by its producer instead) */
    if (t->nx > EZ_ADV_MAX_LIMBS || (t->nx > 0 && t->coef == 0))
        return EZ_ERR_INVALID;
    for (unsigned e = 0; e < t->nx; e++)
        if (t->xatom[e].is_tensor)
            return EZ_ERR_INVALID;
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
    else if (fkind == EZ_TABLE_SIGN)
        func = EZ_FN_NONE, in_scale = out_scale = 0;
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
    for (unsigned w = 1; w <= EZ_LOGUP_PAIR_MAX_BITS; w++)
        if ((t->pairs >> w) & 1)
            n += UINT64_C(1) << (2 * w);
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
        q->support = -1;
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

/* Advice value v's limb polys into polys (allocated here; on failure some may be set:
 * the caller frees them). */
static ez_status value_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, bool unchecked,
                            const ez_adv_value *v, ez_fe **polys, ez_diag *d)
{
    ez_status st = EZ_OK;
    ez_fe *x = NULL;
    const ez_plan_tensor *t = &p->tensors[v->tensor];
    const char *owner = v->op < p->nops ? p->ops[v->op].label : "weights";
    uint64_t len = ez_advice_padlen(t), numel = ez_plan_tensor_numel(t);
    long sup = L->polys[v->first_poly].support;
    const ez_adv_support *su = sup >= 0 ? &L->supports[sup] : NULL;
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
    /* The entries go straight into the top limb's poly, which split_limbs then rewrites in
     * place (it reads entry i before writing it): no padded or compacted copy of the
     * value, whose first touch cost as much as the limbs' (the witness is mostly fresh
     * memory, docs/performance.md, GPT-2 at 512 tokens). */
    if (su)
        len = ez_advice_support_len(su);
    ez_fe *limbs[EZ_ADV_MAX_LIMBS];
    for (unsigned l = 0; l < v->nlimbs; l++) {
        limbs[l] = polys[v->first_poly + l] = ez_alloc_aligned(len, sizeof(ez_fe));
        if (limbs[l] == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    }
    x = limbs[v->nlimbs - 1];
    if (su) { /* the support's entries only: no padding committed */
        for (size_t j = 0; j < su->npieces; j++)
            ez_advice_gather_piece(x + su->off[j], src, t, su, j, ez_fe_from_i64(v->offset));
    } else {
        ez_advice_pad_i64(x, src, t, ez_fe_from_i64(v->offset));
    }
    /* checked mode leaves an entry out of range unwritten: x[bad] is still the value */
    uint64_t bad = split_limbs(v, x, len, limbs, unchecked);
    if (bad != UINT64_MAX) {
        char where[256];
        uint64_t at = bad;
        if (su) { /* the compact entry's place in the padded layout */
            size_t j = 0;
            while (j + 1 < su->npieces && su->off[j + 1] <= bad)
                j++;
            at = ez_advice_piece_index(su, j, bad - su->off[j]);
        }
        describe_entry(where, sizeof where, t, at);
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
out:
    return st;
}

ez_status ez_advice_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, bool unchecked,
                         ez_fe **polys, ez_diag *d)
{
    for (size_t i = 0; i < L->npolys; i++)
        polys[i] = NULL;
    /* The values in parallel, one per task (most are a few thousand entries: below their
     * loops' thresholds); the first failing value's message is kept. */
    size_t bad = L->nvalues;
    int err = EZ_OK;
#pragma omp parallel for schedule(dynamic, 1) if (L->nvalues > 1)
    for (size_t vi = 0; vi < L->nvalues; vi++) {
        ez_diag dv;
        dv.msg[0] = 0;
        ez_status st = value_fill(L, p, tr, unchecked, &L->values[vi], polys, &dv);
        if (st != EZ_OK) {
#pragma omp critical(ez_advice_fill)
            if (vi < bad) {
                bad = vi;
                err = (int)st;
                if (d)
                    *d = dv;
            }
        }
    }
    if (err != EZ_OK)
        for (size_t i = 0; i < L->npolys; i++) {
            free(polys[i]);
            polys[i] = NULL;
        }
    return (ez_status)err;
}

/* layout — the whole plan's advice layout and its sizes (layout.h). */
#include "config.h"

#include "runtime/prove/layout.h"

#include <stdlib.h>
#include <string.h>

#include "lib/field.h"
#include "lib/logup.h"
#include "runtime/ops/op.h"
#include "runtime/prove/public.h"
#include "runtime/prove/rangecheck.h"

/* Drop the range table's regions that cost more than they save (docs/protocol.md §4,
 * "Sparse widths"). A region of width w costs 2^w rows: 2^w table leaves in the range
 * LogUp and 2^w committed multiplicities. A column X of width w can instead be looked up
 * twice in a wider region W that is kept anyway: X in [0, 2^W) and 2^(W-w) X in [0, 2^W)
 * hold together iff X is an integer in [0, 2^w) (the first makes X an integer below
 * 2^W, so 2^(W-w) X < 2^(2W) < p is the integer product, below 2^W iff X < 2^w). The
 * second column is the first's linear form times 2^(W-w) (its "scaled twin", coef != 1),
 * resolved like any column. A width is dropped when its columns look up fewer than 2^w
 * rows — each such row then costs one more looked-up row against 2^w table rows and
 * committed entries saved; widths are decided widest first, so W (the narrowest kept
 * width above w) is final. A function of the layout only: prover and verifier agree. */
static ez_status prune_ranges(ez_advice_layout *L)
{
    size_t rt = 0;
    while (rt < L->ntables && L->tables[rt].kind != EZ_LOOKUP_RANGES)
        rt++;
    if (rt == L->ntables)
        return EZ_OK;
    uint64_t rows[EZ_ADV_LIMB_BITS + 1] = {0};
    for (size_t j = 0; j < L->ncols; j++)
        if (L->cols[j].table == rt && L->cols[j].bits >= 1 && L->cols[j].bits <= EZ_ADV_LIMB_BITS)
            rows[L->cols[j].bits] += L->cols[j].len;
    unsigned into[EZ_ADV_LIMB_BITS + 1] = {0}, wider = 0; /* into[w]: 0 = kept, else W */
    for (unsigned w = EZ_ADV_LIMB_BITS; w >= 1; w--) {
        if (rows[w] == 0)
            continue;
        if (wider > 0 && rows[w] < (UINT64_C(1) << w))
            into[w] = wider;
        else
            wider = w;
    }
    ez_lookup_table_desc *t = &L->tables[rt];
    unsigned n = 0;
    for (unsigned k = 0; k < t->nranges; k++)
        if (into[t->rbits[k]] == 0)
            t->rbits[n++] = t->rbits[k];
    t->nranges = n;
    size_t ntwins = 0;
    for (size_t j = 0; j < L->ncols; j++)
        ntwins += L->cols[j].table == rt && into[L->cols[j].bits] != 0;
    if (ntwins == 0)
        return EZ_OK;
    /* each twin right after its column (the columns' order is the lookups' order) */
    ez_lookup_col *cols = ez_alloc_array(L->ncols + ntwins, sizeof *cols);
    if (cols == NULL)
        return EZ_ERR_NOMEM;
    size_t n2 = 0;
    for (size_t j = 0; j < L->ncols; j++) {
        ez_lookup_col c = L->cols[j];
        unsigned W = c.table == rt ? into[c.bits] : 0;
        if (W != 0)
            c.bits = W;
        cols[n2++] = c;
        if (W == 0)
            continue;
        ez_fe s = ez_fe_pow(2, W - L->cols[j].bits);
        c.coef = ez_fe_mul(c.coef, s);
        c.cst = ez_fe_mul(c.cst, s);
        for (unsigned e = 0; e < c.nx; e++)
            c.xcoef[e] = ez_fe_mul(c.xcoef[e], s);
        cols[n2++] = c;
    }
    free(L->cols);
    L->cols = cols;
    L->ncols = L->caps[2] = n2;
    return EZ_OK;
}

/* Pair the range table's narrow widths that pay for it (docs/protocol-kernel-logup.md
 * §2a): the columns of width w <= 8 then look up two rows per leaf, in a region of
 * 2^(2w) rows. That saves half of their rows' leaves (unit-tree leaves, the cheap kind)
 * for 2^(2w) more table leaves and committed multiplicities (several times a leaf's
 * cost each), so a width is paired when its columns look up at least
 * EZ_RC_PAIR_RATIO 2^(2w) rows. After prune_ranges (the twins' rows count in their
 * region); a function of the layout only. */
#define EZ_RC_PAIR_RATIO 6u
static void pair_ranges(ez_advice_layout *L)
{
    size_t rt = 0;
    while (rt < L->ntables && L->tables[rt].kind != EZ_LOOKUP_RANGES)
        rt++;
    if (rt == L->ntables)
        return;
    uint64_t rows[EZ_LOGUP_PAIR_MAX_BITS + 1] = {0};
    for (size_t j = 0; j < L->ncols; j++)
        if (L->cols[j].table == rt && L->cols[j].bits >= 1 && L->cols[j].bits <= EZ_LOGUP_PAIR_MAX_BITS)
            rows[L->cols[j].bits] += L->cols[j].len;
    ez_lookup_table_desc *t = &L->tables[rt];
    t->pairs = 0;
    for (unsigned k = 0; k < t->nranges; k++) {
        unsigned w = t->rbits[k];
        if (w <= EZ_LOGUP_PAIR_MAX_BITS && rows[w] >= (uint64_t)EZ_RC_PAIR_RATIO << (2 * w))
            t->pairs |= 1u << w;
    }
}

/* The tables' final form: sparse range regions pruned, narrow ones paired, one
 * multiplicity poly per table. */
static ez_status finish(ez_advice_layout *L)
{
    ez_status st = prune_ranges(L);
    if (st == EZ_OK)
        pair_ranges(L);
    return st == EZ_OK ? ez_advice_finish_tables(L) : st;
}

ez_status ez_advice_layout_build(ez_advice_layout *L, const ez_plan *p, ez_diag *d)
{
    ez_status st = EZ_OK;
    if ((st = ez_advice_layout_start(L, p)) != EZ_OK)
        return st;
    for (size_t t = 0; t < p->ntensors; t++)
        if (ez_advice_padlen(&p->tensors[t]) > EZ_ADV_MAX_PADLEN) {
            ez_diag_set(d, "tensor '%s': its padded layout exceeds 2^40 entries", p->tensors[t].name);
            st = EZ_ERR_UNSUPPORTED;
            goto out;
        }
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        const ez_op_def *e = ez_op_def_of(op->kind);
        if (ez_op_is_public(p, i))
            continue; /* the verifier executes it (runtime/prove/public.h) */
        if (e == NULL || e->layout == NULL) {
            ez_diag_set(d, "op '%s' (%s) is not provable yet", op->label, ez_op_kind_name(op->kind));
            st = EZ_ERR_UNSUPPORTED;
            goto out;
        }
        if ((st = ez_op_layout(L, p, i, d)) != EZ_OK)
            goto out;
    }
    /* one multiplicity poly per table that has columns */
    st = finish(L);
out:
    if (st != EZ_OK)
        ez_advice_layout_clear(L);
    return st;
}

ez_status ez_advice_layout_build_weights(ez_advice_layout *L, const ez_plan *p, ez_diag *d)
{
    ez_status st = EZ_OK;
    if ((st = ez_advice_layout_start(L, p)) != EZ_OK)
        return st;
    for (size_t t = 0; t < p->ntensors && st == EZ_OK; t++) {
        const ez_plan_tensor *x = &p->tensors[t];
        if (x->kind != EZ_TENSOR_WEIGHT)
            continue;
        if (ez_advice_padlen(x) > EZ_ADV_MAX_PADLEN || x->bits == 0 || x->bits > 63) {
            ez_diag_set(d, "weight '%s': its layout or width is beyond the prover's limits", x->name);
            st = EZ_ERR_UNSUPPORTED;
            break;
        }
        /* op = nops: no op owns it (messages say "weights") */
        st = ez_rc_check_tensor(L, p, (unsigned)p->nops, (unsigned)t, (int64_t)(UINT64_C(1) << (x->bits - 1)),
                                x->bits, d);
    }
    if (st == EZ_OK)
        st = finish(L);
    if (st != EZ_OK)
        ez_advice_layout_clear(L);
    return st;
}

ez_status ez_advice_layout_build_lenient(ez_advice_layout *L, const ez_plan *p, bool *provable, ez_diag *d)
{
    ez_status st = ez_advice_layout_start(L, p);
    for (size_t i = 0; i < p->nops && st == EZ_OK; i++) {
        const ez_op_def *e = ez_op_def_of(p->ops[i].kind);
        if (ez_op_is_public(p, i)) {
            provable[i] = true; /* executed by the verifier: nothing committed */
            continue;
        }
        provable[i] = e && e->layout && e->prove && e->verify && e->walk_bytes && e->claims;
        if (!provable[i])
            continue;
        ez_diag why;
        st = ez_op_layout(L, p, i, &why);
        if (st == EZ_ERR_UNSUPPORTED) { /* a shape the op cannot prove */
            provable[i] = false;
            st = EZ_OK;
        }
    }
    if (st == EZ_OK)
        st = finish(L);
    (void)d;
    if (st != EZ_OK)
        ez_advice_layout_clear(L);
    return st;
}

/* ---- sizes ------------------------------------------------------------------------------ */

void ez_layout_sizes_clear(ez_layout_sizes *s)
{
    if (s == NULL)
        return;
    free(s->ops);
    memset(s, 0, sizeof *s);
}


/* Claims on every tensor when the proof runs (the fan-out census): one per output, one
 * per lookup-column piece whose atom is the tensor, and what every live op leaves on its
 * operands (an op is live when its output has a claim: the walk skips the others). */
static ez_status census(const ez_plan *p, const ez_advice_layout *L, const ez_layout_sizes *s, uint64_t *claims)
{
    for (size_t t = 0; t < p->ntensors; t++)
        claims[t] = p->tensors[t].is_output && !ez_tensor_is_public_result(p, t);
    for (size_t j = 0; j < L->ncols; j++)
        if (L->cols[j].atom.is_tensor)
            claims[L->cols[j].atom.id] += (uint64_t)__builtin_popcountll(L->cols[j].len);
    for (size_t j = 0; j < L->ntuples; j++)
        for (unsigned w = 0; w < EZ_LOOKUP_FUNC_WIDTH; w++)
            if (L->tuples[j].atom[w].is_tensor)
                claims[L->tuples[j].atom[w].id]++;
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        if (claims[op->out] == 0 || !s->ops[i].provable || ez_op_is_public(p, i))
            continue;
        for (unsigned k = 0; k < op->nin; k++)
            claims[op->in[k]] += ez_op_claims(p, i, k);
    }
    return EZ_OK;
}

ez_status ez_layout_sizes_compute(ez_layout_sizes *s, const ez_plan *p, ez_diag *d)
{
    ez_advice_layout L;
    uint64_t *claims = NULL;
    memset(s, 0, sizeof *s);
    ez_advice_layout_init(&L);
    s->nops = p->nops;
    s->ops = ez_alloc_array(p->nops ? p->nops : 1, sizeof *s->ops);
    claims = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *claims);
    ez_status st = s->ops && claims ? EZ_OK : EZ_ERR_NOMEM;
    bool *prov = st == EZ_OK ? ez_alloc_array(p->nops ? p->nops : 1, sizeof *prov) : NULL;
    if (st == EZ_OK && prov == NULL)
        st = EZ_ERR_NOMEM;
    if (st == EZ_OK)
        st = ez_advice_layout_build_lenient(&L, p, prov, d);
    for (size_t i = 0; st == EZ_OK && i < p->nops; i++)
        s->ops[i].provable = prov[i];
    free(prov);
    if (st != EZ_OK)
        goto out;
    s->provable = true;
    for (size_t i = 0; i < p->nops; i++)
        s->provable &= s->ops[i].provable;
    /* committed entries and looked-up rows per op */
    for (size_t q = 0; q < L.npolys; q++) {
        const ez_adv_poly *y = &L.polys[q];
        long owner = y->value >= 0 ? (long)L.values[y->value].op : y->value == EZ_ADV_POLY_OP ? (long)y->op : -1;
        if (owner >= 0 && (size_t)owner < p->nops)
            s->ops[owner].advice_elems += y->len;
        s->advice_elems += y->len;
    }
    for (size_t j = 0; j < L.ncols; j++)
        if (L.cols[j].op < p->nops)
            s->ops[L.cols[j].op].lookup_rows += L.cols[j].len;
    /* the walk: per op its fan-out merge and its reduction */
    census(p, &L, s, claims);
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        ez_layout_op_size *o = &s->ops[i];
        o->out_claims = ez_op_is_public(p, i) ? 0 : claims[op->out];
        if (!o->provable || o->out_claims == 0)
            continue;
        const ez_plan_tensor *to = &p->tensors[op->out];
        unsigned nv = ez_claim_tensor_nvars(to->dims, to->rank);
        /* ez_claim_merge_prove: a degree-2 sumcheck over the tensor and its 2 evaluations */
        o->merge_bytes = o->out_claims > 1 ? ((uint64_t)2 * nv + 2) * EZ_OP_FE2_BYTES : 0;
        o->walk_bytes = ez_op_walk_bytes(p, &L, i);
        s->walk_bytes += o->merge_bytes + o->walk_bytes;
    }
out:
    free(claims);
    ez_advice_layout_clear(&L);
    if (st != EZ_OK)
        ez_layout_sizes_clear(s);
    return st;
}

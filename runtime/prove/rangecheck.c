/* rangecheck — see rangecheck.h; protocol and soundness in docs/protocol.md §4. */
#include "config.h"

#include "runtime/prove/rangecheck.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"

unsigned ez_rc_nlimbs(unsigned bits)
{
    return bits <= EZ_ADV_LIMB_BITS ? 1 : (bits + EZ_ADV_LIMB_BITS - 1) / EZ_ADV_LIMB_BITS;
}

/* Register column c over its atoms' whole length (sup < 0), or one column per piece of
 * support sup (each of the piece's 2^bits entries). */
static ez_status add_cols(ez_advice_layout *L, ez_lookup_col c, long sup)
{
    if (sup < 0) {
        c.sup = 0;
        return ez_advice_add_col(L, &c, NULL);
    }
    ez_status st = EZ_OK;
    for (size_t j = 0; j < L->supports[sup].npieces && st == EZ_OK; j++) {
        c.sup = (size_t)sup + 1;
        c.piece = j;
        c.len = UINT64_C(1) << L->supports[sup].bits[j];
        st = ez_advice_add_col(L, &c, NULL);
    }
    return st;
}

/* The column range-checking one limb of width w (1..16) of atom a (plus cst: a tensor
 * with its offset): one row per entry in the range table's region [0, 2^w) — per piece
 * when the atom has a support. */
static ez_status limb_cols(ez_advice_layout *L, unsigned op, uint64_t len, ez_atom a, ez_fe cst, unsigned w, long sup)
{
    unsigned table;
    ez_status st = ez_advice_range_table(L, w, &table);
    if (st != EZ_OK)
        return st;
    ez_lookup_col c = {.table = table, .op = op, .len = len, .atom = a, .coef = 1, .cst = cst, .bits = w};
    return add_cols(L, c, sup);
}

ez_status ez_rc_commit_value(ez_advice_layout *L, const ez_plan *p, const ez_adv_value *v, size_t *idx,
                             ez_diag *d)
{
    if (v->bits == 0 || v->bits > EZ_ADV_MAX_LIMBS * EZ_ADV_LIMB_BITS) {
        ez_diag_set(d, "'%s': a %u-bit range check is not supported", p->tensors[v->tensor].name, v->bits);
        return EZ_ERR_UNSUPPORTED;
    }
    ez_status st;
    ez_adv_value x = *v;
    x.nlimbs = ez_rc_nlimbs(v->bits);
    size_t vi;
    if ((st = ez_advice_add_value(L, &x, p, &vi)) != EZ_OK)
        return st;
    const ez_adv_value *val = &L->values[vi];
    const ez_adv_poly *q0 = &L->polys[val->first_poly];
    for (unsigned l = 0; l < val->nlimbs && st == EZ_OK; l++) {
        unsigned w = l + 1 < val->nlimbs ? EZ_ADV_LIMB_BITS : v->bits - EZ_ADV_LIMB_BITS * l;
        ez_atom a = {false, val->first_poly + l};
        st = limb_cols(L, v->op, q0->len, a, 0, w, q0->support);
    }
    if (st == EZ_OK && idx)
        *idx = vi;
    return st;
}

ez_status ez_rc_check_tensor(ez_advice_layout *L, const ez_plan *p, unsigned op, unsigned tensor, int64_t offset,
                             unsigned bits, ez_diag *d)
{
    ez_status st;
    uint64_t len = ez_advice_padlen(&p->tensors[tensor]);
    long sup = -1;
    if ((st = ez_advice_support_tensor(L, p, tensor, &sup)) != EZ_OK)
        return st;
    if (ez_rc_nlimbs(bits) == 1) {
        /* the tensor itself (plus offset) is the looked-up column: nothing committed */
        ez_atom a = {true, tensor};
        return limb_cols(L, op, len, a, ez_fe_from_i64(offset), bits, sup);
    }
    /* Only the HIGH part H = (tensor + offset) >> 16 is committed (in limbs, each looked
     * up); the low 16 bits are the VIRTUAL column tensor + offset - 2^16 H, looked up in
     * the 16-bit region. Both in range make tensor + offset = low + 2^16 H an integer in
     * [0, 2^bits); at the virtual column's lookup point the prover sends H's limbs and
     * the verifier derives the tensor's value: that claim ties the tensor the walk
     * proves to the range-checked H (no separate link, no committed low limb). */
    ez_adv_value v = {.src = EZ_ADV_SRC_TENSOR, .op = op, .tensor = tensor, .offset = offset,
                      .shift = EZ_ADV_LIMB_BITS, .bits = bits - EZ_ADV_LIMB_BITS};
    size_t vi;
    if ((st = ez_rc_commit_value(L, p, &v, &vi, d)) != EZ_OK)
        return st;
    const ez_adv_value *val = &L->values[vi];
    unsigned table;
    if ((st = ez_advice_range_table(L, EZ_ADV_LIMB_BITS, &table)) != EZ_OK)
        return st;
    ez_lookup_col c = {.table = table, .op = op, .len = len, .atom = {true, tensor}, .coef = 1,
                       .cst = ez_fe_from_i64(offset), .bits = EZ_ADV_LIMB_BITS, .nx = val->nlimbs};
    for (unsigned l = 0; l < val->nlimbs; l++) {
        c.xatom[l] = (ez_atom){false, val->first_poly + l};
        c.xcoef[l] = ez_fe_neg(ez_fe_pow(2, (uint64_t)EZ_ADV_LIMB_BITS * (l + 1)));
    }
    if (L->polys[val->first_poly].support != sup)
        return EZ_ERR_INTERNAL; /* the high part lives on the tensor's support */
    return add_cols(L, c, sup);
}

ez_status ez_rc_rescale(ez_advice_layout *L, const ez_plan *p, size_t op, unsigned shift, ez_diag *d)
{
    const ez_plan_op *o = &p->ops[op];
    const ez_plan_tensor *out = &p->tensors[o->out];
    if (shift == 0 || shift > 62 || out->bits == 0 || out->bits > 63) {
        ez_diag_set(d, "op '%s': rescale by 2^%u to %u bits is not supported", o->label, shift, out->bits);
        return EZ_ERR_UNSUPPORTED;
    }
    ez_adv_value v = {.src = EZ_ADV_SRC_AUX, .op = (unsigned)op, .tensor = o->out, .aux = EZ_AUX_REM, .bits = shift};
    size_t vi;
    ez_status st = ez_rc_commit_value(L, p, &v, &vi, d);
    if (st != EZ_OK)
        return st;
    L->op_rem[op] = (long)vi;
    return ez_rc_check_width(L, p, op, d);
}

ez_status ez_rc_check_width(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    const ez_plan_op *o = &p->ops[op];
    const ez_plan_tensor *out = &p->tensors[o->out];
    if (out->bits == 0 || out->bits > 63) {
        ez_diag_set(d, "op '%s': a %u-bit range check is not supported", o->label, out->bits);
        return EZ_ERR_UNSUPPORTED;
    }
    /* the width-checked result of a rescale or checked sum that is an output is in the
     * statement: the verifier checks its width there (ez_statement_check), so the proof
     * commits and looks up nothing for it */
    if (out->is_output && ez_plan_op_width_checked(o))
        return EZ_OK;
    return ez_rc_check_tensor(L, p, (unsigned)op, o->out, (int64_t)(UINT64_C(1) << (out->bits - 1)), out->bits, d);
}

ez_status ez_rc_limb_cols(ez_advice_layout *L, unsigned op, size_t first_poly, unsigned nl, unsigned bits,
                          uint64_t len)
{
    ez_status st = EZ_OK;
    for (unsigned l = 0; l < nl && st == EZ_OK; l++) {
        unsigned w = l + 1 < nl ? EZ_ADV_LIMB_BITS : bits - EZ_ADV_LIMB_BITS * l;
        ez_atom a = {false, first_poly + l};
        st = limb_cols(L, op, len, a, 0, w, L->polys[first_poly + l].support);
    }
    return st;
}

bool ez_rc_split(ez_fe v, unsigned bits, unsigned nl, ez_fe *const *limbs, uint64_t i)
{
    bool ok = bits >= 64 || (v >> bits) == 0;
    unsigned top = nl - 1;
    for (unsigned l = 0; l < top; l++)
        limbs[l][i] = (v >> (EZ_ADV_LIMB_BITS * l)) & 0xffff;
    if (ok) {
        limbs[top][i] = v >> (EZ_ADV_LIMB_BITS * top);
    } else {
        ez_fe low = top ? v & ((UINT64_C(1) << (EZ_ADV_LIMB_BITS * top)) - 1) : 0;
        limbs[top][i] = ez_fe_mul(ez_fe_sub(v, low), ez_fe_inv(ez_fe_pow(2, (uint64_t)EZ_ADV_LIMB_BITS * top)));
    }
    return ok;
}

/* Column c's concrete values: advice (borrowed, *owned NULL) or a new array (*owned). */
static ez_status column_build(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, ez_fe *const *advice,
                              const ez_lookup_col *c, const ez_fe **col, ez_fe **owned)
{
    *owned = NULL;
    /* a piece of a support: the atoms' entries from the piece's offset */
    const ez_adv_support *su = c->sup ? &L->supports[c->sup - 1] : NULL;
    uint64_t aoff = su ? su->off[c->piece] : 0;
    if (!c->atom.is_tensor && c->coef == 1 && c->cst == 0 && c->nx == 0) {
        *col = advice[c->atom.id] + aoff;
        return EZ_OK;
    }
    ez_fe *x = ez_alloc_aligned(c->len, sizeof *x);
    if (x == NULL)
        return EZ_ERR_NOMEM;
    ez_fe coef = c->coef, cst = c->cst;
    uint64_t len = c->len;
    if (su && c->atom.is_tensor) {
        ez_advice_gather_piece(x, tr->t[c->atom.id], &p->tensors[c->atom.id], su, c->piece, 0);
        if (coef != 1 || cst != 0) {
#pragma omp parallel for schedule(static) if (len > 65536)
            for (uint64_t i = 0; i < len; i++)
                x[i] = ez_fe_add(ez_fe_mul(x[i], coef), cst);
        }
    } else if (su) {
        const ez_fe *a = advice[c->atom.id] + aoff;
#pragma omp parallel for schedule(static) if (len > 65536)
        for (uint64_t i = 0; i < len; i++)
            x[i] = ez_fe_add(ez_fe_mul(a[i], coef), cst);
    } else if (c->atom.is_tensor && coef == 1) {
        /* the tensor plus its offset on every entry of its padded layout (len) */
        ez_advice_pad_i64(x, tr->t[c->atom.id], &p->tensors[c->atom.id], cst);
    } else {
        if (c->atom.is_tensor)
            ez_advice_pad_i64(x, tr->t[c->atom.id], &p->tensors[c->atom.id], 0);
        else
            memcpy(x, advice[c->atom.id], c->len * sizeof *x);
#pragma omp parallel for schedule(static) if (len > 65536)
        for (uint64_t i = 0; i < len; i++)
            x[i] = ez_fe_add(ez_fe_mul(x[i], coef), cst);
    }
    /* a virtual column: plus the extra atoms (advice polys of the same length) */
    for (unsigned e = 0; e < c->nx; e++) {
        const ez_fe *xa = advice[c->xatom[e].id] ? advice[c->xatom[e].id] + aoff : NULL;
        ez_fe xc = c->xcoef[e];
        if (c->xatom[e].is_tensor || xa == NULL) {
            free(x);
            return EZ_ERR_INTERNAL;
        }
#pragma omp parallel for schedule(static) if (len > 65536)
        for (uint64_t i = 0; i < len; i++)
            x[i] = ez_fe_add(x[i], ez_fe_mul(xa[i], xc));
    }
    *owned = x;
    *col = x;
    return EZ_OK;
}

ez_status ez_rc_columns(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, ez_fe *const *advice,
                        unsigned table, const ez_fe **cols, ez_fe **owned, size_t *idx, size_t *ncols_out,
                        ez_diag *d)
{
    size_t n = 0;
    (void)d;
    for (size_t j = 0; j < L->ncols; j++)
        if (L->cols[j].table == table)
            idx[n++] = j;
    /* The columns in parallel (a range table has hundreds, most of a few thousand rows:
     * below every loop's own threshold). */
    int err = EZ_OK;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (size_t k = 0; k < n; k++) {
        ez_status st = column_build(L, p, tr, advice, &L->cols[idx[k]], &cols[k], &owned[k]);
        if (st != EZ_OK) {
#pragma omp critical(ez_rc_columns)
            err = err == EZ_OK ? (int)st : err;
        }
    }
    *ncols_out = n;
    return (ez_status)err;
}


/* Add the claim atom~(point) = value. */
static ez_status atom_claim(ez_pctx *c, ez_atom a, const ez_fe2 *point, unsigned nv, ez_fe2 value)
{
    return a.is_tensor ? ez_pctx_claim_tensor(c, a.id, point, nv, value)
                       : ez_pctx_claim_advice(c, a.id, point, nv, value);
}


ez_status ez_rc_resolve(ez_pctx *c, unsigned table, const size_t *idx, size_t ncols, const ez_lookup_claims *lc)
{
    const ez_advice_layout *L = c->adv;
    ez_status st;
    if (lc->ncols != ncols)
        return EZ_ERR_INTERNAL;
    for (size_t j = 0; j < ncols; j++) {
        const ez_lookup_col *col = &L->cols[idx[j]];
        const ez_adv_support *su = col->sup ? &L->supports[col->sup - 1] : NULL;
        for (size_t k = lc->first[j]; k < lc->first[j + 1]; k++) {
            const ez_claim *cl = &lc->col[k];
            /* a piece's claim is the atoms' claim at the cube point with the piece's fixed
             * bits (its MLE is theirs restricted there), where the selector is 1 */
            ez_fe2 full[EZ_PROVE_MAX_VARS];
            const ez_fe2 *pt = cl->point;
            unsigned nv = cl->nvars;
            if (su) {
                if (cl->nvars != su->bits[col->piece])
                    return EZ_ERR_INTERNAL;
                ez_advice_piece_point(su, col->piece, cl->point, full);
                pt = full;
                nv = su->nv;
            }
            /* col(z) = coef atom(z) + sum xcoef_e xatom_e(z) + cst sel(z): the prover sends
             * the extra atoms' values, the main atom's follows */
            ez_fe2 xv[EZ_ADV_MAX_LIMBS];
            if (c->prover)
                for (unsigned e = 0; e < col->nx; e++)
                    if ((st = ez_pctx_eval_atom(c, col->xatom[e], pt, &xv[e])) != EZ_OK)
                        return st;
            if ((st = ez_pctx_msg(c, "col/atoms", xv, col->nx)) != EZ_OK)
                return st;
            ez_fe2 sel = su ? ez_fe2_one() : ez_mle_prefix(cl->point, cl->nvars, col->len);
            ez_fe2 v = ez_fe2_sub(cl->value, ez_fe2_mul_fe(sel, col->cst));
            for (unsigned e = 0; e < col->nx; e++) {
                v = ez_fe2_sub(v, ez_fe2_mul_fe(xv[e], col->xcoef[e]));
                if ((st = atom_claim(c, col->xatom[e], pt, nv, xv[e])) != EZ_OK)
                    return st;
            }
            v = ez_fe2_mul_fe(v, ez_fe_inv(col->coef));
            if ((st = atom_claim(c, col->atom, pt, nv, v)) != EZ_OK)
                return st;
        }
    }
    /* the multiplicities: the table's multiplicity poly (a claim per tree of the table) */
    for (size_t k = 0; k < lc->nmult; k++)
        if ((st = ez_pctx_claim_advice(c, ez_advice_table_poly(L, table), lc->mult[k].point, lc->mult[k].nvars,
                                       lc->mult[k].value)) != EZ_OK)
            return st;
    return EZ_OK;
}

/* Tuple u's virtual input column as a range column's linear form (column_build's input). */
static ez_lookup_col tuple_input(const ez_lookup_tuple *u)
{
    ez_lookup_col c = {.table = u->table, .op = u->op, .len = u->len, .sup = u->sup, .piece = u->piece,
                       .atom = u->atom[0], .coef = u->coef, .cst = 0, .nx = u->nx};
    for (unsigned e = 0; e < u->nx; e++) {
        c.xatom[e] = u->xatom[e];
        c.xcoef[e] = u->xcoef[e];
    }
    return c;
}

ez_status ez_rc_tuple_columns(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, ez_fe *const *advice,
                              unsigned table, const ez_fe **cols, ez_fe **owned, size_t *idx, size_t *ntuples)
{
    size_t n = 0;
    ez_status st = EZ_OK;
    for (size_t j = 0; j < L->ntuples && st == EZ_OK; j++) {
        const ez_lookup_tuple *u = &L->tuples[j];
        if (u->table != table)
            continue;
        idx[n] = j;
        const ez_adv_support *su = u->sup ? &L->supports[u->sup - 1] : NULL;
        for (unsigned w = 0; w < EZ_LOOKUP_FUNC_WIDTH; w++) {
            ez_atom a = u->atom[w];
            owned[2 * n + w] = NULL;
            if (w == 0 && u->nx > 0) { /* a virtual input column */
                ez_lookup_col c = tuple_input(u);
                cols[2 * n] = NULL;
                st = column_build(L, p, tr, advice, &c, &cols[2 * n], &owned[2 * n]);
                continue;
            }
            if (!a.is_tensor) {
                cols[2 * n + w] = advice[a.id] + (su ? su->off[u->piece] : 0);
                continue;
            }
            ez_fe *x = ez_alloc_aligned(u->len, sizeof *x);
            if (x == NULL) {
                st = EZ_ERR_NOMEM;
                cols[2 * n + w] = NULL;
                continue;
            }
            if (su)
                ez_advice_gather_piece(x, tr->t[a.id], &p->tensors[a.id], su, u->piece, 0);
            else
                ez_advice_pad_i64(x, tr->t[a.id], &p->tensors[a.id], 0);
            owned[2 * n + w] = x;
            cols[2 * n + w] = x;
        }
        n++;
    }
    *ntuples = n;
    return st;
}

/* The claims of tuple u's column w at the lookup's point pt (nv coordinates: the cube
 * point of a piece): on its atom, or for a virtual input column on its extra atoms at the
 * values the prover sends (`tuple/atoms`) and on atom[0] at the value they leave,
 * (v - sum_e xcoef_e xatom_e(pt)) / coef (docs/protocol.md §4). */
static ez_status tuple_claims(ez_pctx *c, const ez_lookup_tuple *u, unsigned w, const ez_fe2 *pt, unsigned nv,
                              ez_fe2 v)
{
    ez_status st;
    if (w != 0 || u->nx == 0)
        return atom_claim(c, u->atom[w], pt, nv, v);
    ez_fe2 xv[EZ_ADV_MAX_LIMBS];
    if (c->prover)
        for (unsigned e = 0; e < u->nx; e++)
            if ((st = ez_pctx_eval_atom(c, u->xatom[e], pt, &xv[e])) != EZ_OK)
                return st;
    if ((st = ez_pctx_msg(c, "tuple/atoms", xv, u->nx)) != EZ_OK)
        return st;
    for (unsigned e = 0; e < u->nx; e++) {
        v = ez_fe2_sub(v, ez_fe2_mul_fe(xv[e], u->xcoef[e]));
        if ((st = atom_claim(c, u->xatom[e], pt, nv, xv[e])) != EZ_OK)
            return st;
    }
    return atom_claim(c, u->atom[0], pt, nv, ez_fe2_mul_fe(v, ez_fe_inv(u->coef)));
}

ez_status ez_rc_resolve_tuples(ez_pctx *c, unsigned table, const size_t *idx, size_t ntuples,
                               const ez_lookup_claims *lc)
{
    const ez_advice_layout *L = c->adv;
    ez_status st = EZ_OK;
    if (lc->ncols != ntuples)
        return EZ_ERR_INTERNAL;
    for (size_t j = 0; j < ntuples && st == EZ_OK; j++) {
        const ez_lookup_tuple *u = &L->tuples[idx[j]];
        const ez_adv_support *su = u->sup ? &L->supports[u->sup - 1] : NULL;
        for (unsigned w = 0; w < EZ_LOOKUP_FUNC_WIDTH && st == EZ_OK; w++) {
            const ez_claim *cl = &lc->col[lc->first[j] + w];
            if (su) { /* a piece: the atom's claim at its cube point */
                ez_fe2 full[EZ_PROVE_MAX_VARS];
                if (cl->nvars != su->bits[u->piece])
                    return EZ_ERR_INTERNAL;
                ez_advice_piece_point(su, u->piece, cl->point, full);
                st = tuple_claims(c, u, w, full, su->nv, cl->value);
            } else {
                st = tuple_claims(c, u, w, cl->point, cl->nvars, cl->value);
            }
        }
    }
    if (st == EZ_OK) {
        size_t q = ez_advice_table_poly(L, table);
        for (size_t k = 0; k < lc->nmult && st == EZ_OK; k++)
            st = ez_pctx_claim_advice(c, q, lc->mult[k].point, lc->mult[k].nvars, lc->mult[k].value);
    }
    return st;
}

ez_status ez_rc_value_claim(ez_pctx *c, size_t value, const ez_claim *claim)
{
    const ez_adv_value *v = &c->adv->values[value];
    const ez_adv_poly *q0 = &c->adv->polys[v->first_poly];
    ez_fe2 val[EZ_ADV_MAX_LIMBS];
    ez_status st;
    unsigned n = v->nlimbs;
    if (claim->nvars != ez_advice_poly_nvars(c->adv, v->first_poly))
        return EZ_ERR_INVALID;
    if (c->prover)
        for (unsigned i = 1; i < n; i++) {
            ez_atom a = {false, v->first_poly + i};
            if ((st = ez_pctx_eval_atom(c, a, claim->point, &val[i])) != EZ_OK)
                return st;
        }
    if ((st = ez_pctx_msg(c, "value/limbs", val + 1, n - 1)) != EZ_OK)
        return st;
    /* limb_0 = V + offset sel - sum_{i>=1} 2^(16 i) limb_i */
    ez_fe2 sel = q0->support >= 0 ? ez_advice_support_indicator(&c->adv->supports[q0->support], claim->point)
                                   : ez_mle_prefix(claim->point, claim->nvars, q0->len);
    ez_fe2 s = ez_fe2_add(claim->value, ez_fe2_mul_fe(sel, ez_fe_from_i64(v->offset)));
    for (unsigned i = 1; i < n; i++)
        s = ez_fe2_sub(s, ez_fe2_mul_fe(val[i], ez_fe_pow(2, (uint64_t)EZ_ADV_LIMB_BITS * i)));
    val[0] = s;
    for (unsigned i = 0; i < n; i++)
        if ((st = ez_pctx_claim_advice(c, v->first_poly + i, claim->point, claim->nvars, val[i])) != EZ_OK)
            return st;
    return EZ_OK;
}

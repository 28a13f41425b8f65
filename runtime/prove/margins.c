/* margins — field margins of the protocol's integer relations (margins.h). */
#include "config.h"

#include "runtime/prove/margins.h"

#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/builtins.h"
#include "compiler/recheck.h"
#include "lib/field.h"
#include "runtime/ops/op.h"
#include "runtime/prove/layout.h"

struct ez_margins {
    const ez_plan *plan;
    size_t op;                 /* the relation's op */
    char what[160];
    unsigned nterms;
    mpz_t max, min;            /* running extremes of the form over the box */
    char terms[320];           /* "acc [-2^61, 2^61], q ..." for the message */
    bool failed;               /* some relation failed (the first is kept in d) */
    size_t bad_op;
    ez_diag *d;
};

static void set_i128(mpz_t r, ez_i128 v)
{
    bool neg = v < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    mpz_set_ui(r, (unsigned long)(uint64_t)(u >> 64));
    mpz_mul_2exp(r, r, 64);
    mpz_add_ui(r, r, (unsigned long)(uint64_t)u);
    if (neg)
        mpz_neg(r, r);
}

void ez_rel_begin(ez_margins *m, size_t op, const char *what)
{
    m->op = op;
    snprintf(m->what, sizeof m->what, "%s", what);
    m->nterms = 0;
    m->terms[0] = 0;
    mpz_set_ui(m->max, 0);
    mpz_set_ui(m->min, 0);
}

void ez_rel_term(ez_margins *m, const char *name, int64_t mul, unsigned e, ez_i128 lo, ez_i128 hi)
{
    mpz_t c, a, b;
    mpz_inits(c, a, b, NULL);
    mpz_set_si(c, mul);
    mpz_mul_2exp(c, c, e);
    set_i128(a, lo);
    set_i128(b, hi);
    mpz_mul(a, a, c);
    mpz_mul(b, b, c);
    /* the term's extremes are at the box's corners: c lo and c hi */
    if (mpz_cmp(a, b) > 0)
        mpz_swap(a, b);
    mpz_add(m->min, m->min, a);
    mpz_add(m->max, m->max, b);
    size_t n = strlen(m->terms);
    if (n < sizeof m->terms - 1)
        snprintf(m->terms + n, sizeof m->terms - n, "%s%s", n ? ", " : "", name);
    m->nterms++;
    mpz_clears(c, a, b, NULL);
}

static double log2_abs(const mpz_t v)
{
    if (mpz_sgn(v) == 0)
        return 0;
    long e;
    double x = mpz_get_d_2exp(&e, v);
    return (double)e + __builtin_log2(x < 0 ? -x : x);
}

void ez_rel_end(ez_margins *m)
{
    mpz_t p, negp;
    mpz_inits(p, negp, NULL);
    mpz_set_ui(p, (unsigned long)EZ_P);
    mpz_neg(negp, p);
    /* -p < min and max < p: then a multiple of p in the range is 0 itself */
    bool ok = mpz_cmp(m->max, p) < 0 && mpz_cmp(m->min, negp) > 0;
    if (!ok && !m->failed) {
        m->failed = true;
        m->bad_op = m->op;
        double reach = log2_abs(mpz_cmpabs(m->max, m->min) >= 0 ? m->max : m->min);
        if (m->op < m->plan->nops) {
            const ez_plan_op *o = &m->plan->ops[m->op];
            ez_diag_set(m->d,
                        "op '%s' (%s, line %u): the relation %s can reach 2^%.1f in magnitude, beyond the field's "
                        "p ~ 2^64, so it could hold modulo p without holding over the integers (terms: %s)",
                        o->label, ez_op_kind_name(o->kind), o->line, m->what, reach, m->terms);
        } else {
            ez_diag_set(m->d, "the relation %s can reach 2^%.1f in magnitude, beyond the field's p ~ 2^64 (terms: %s)",
                        m->what, reach, m->terms);
        }
    }
    mpz_clears(p, negp, NULL);
}

void ez_rel_unsigned(unsigned bits, ez_i128 *lo, ez_i128 *hi)
{
    *lo = 0;
    *hi = ((ez_i128)1 << bits) - 1;
}

void ez_rel_signed(unsigned bits, ez_i128 *lo, ez_i128 *hi)
{
    *lo = -((ez_i128)1 << (bits - 1));
    *hi = ((ez_i128)1 << (bits - 1)) - 1;
}

/* The raw bound (the accumulator before its rescale) of op `op` from its operands'
 * bounds: the compiler's bound rule (the verifier has re-derived every bound). */
static ez_i128 raw_bound(const ez_plan *p, size_t op)
{
    const ez_plan_op *o = &p->ops[op];
    mpz_t in[EZ_MAX_OPERANDS], raw, bound;
    mpz_srcptr ib[EZ_MAX_OPERANDS];
    mpz_inits(raw, bound, NULL);
    for (unsigned k = 0; k < o->nin; k++) {
        mpz_init_set_ui(in[k], (unsigned long)p->tensors[o->in[k]].bound);
        ib[k] = in[k];
    }
    ez_builtin_op_bound(p, o, ib, raw, bound);
    ez_i128 r;
    if (mpz_sizeinbase(raw, 2) >= 126) {
        r = (ez_i128)1 << 126;
    } else {
        mpz_t hi;
        mpz_init(hi);
        mpz_tdiv_q_2exp(hi, raw, 64);
        r = ((ez_i128)mpz_get_ui(hi) << 64) | (ez_i128)mpz_get_ui(raw);
        mpz_clear(hi);
    }
    for (unsigned k = 0; k < o->nin; k++)
        mpz_clear(in[k]);
    mpz_clears(raw, bound, NULL);
    return r;
}

void ez_rel_rescale(ez_margins *m, const ez_plan *p, size_t op, unsigned shift)
{
    const ez_plan_tensor *out = &p->tensors[p->ops[op].out];
    char what[96];
    ez_i128 lo, hi, acc = raw_bound(p, op);
    snprintf(what, sizeof what, "acc = 2^%u q + r (q of %u bits, r of %u bits)", shift, out->bits, shift);
    ez_rel_begin(m, op, what);
    ez_rel_term(m, "acc", 1, 0, -acc, acc);
    ez_rel_signed(out->bits, &lo, &hi);
    ez_rel_term(m, "q", -1, shift, lo, hi);
    ez_rel_unsigned(shift, &lo, &hi);
    ez_rel_term(m, "r", -1, 0, lo, hi);
    ez_rel_end(m);
}

void ez_rel_limbs(ez_margins *m, size_t op, const char *what, unsigned bits, unsigned nlimbs)
{
    ez_i128 lo, hi;
    ez_rel_begin(m, op, what);
    ez_rel_unsigned(bits, &lo, &hi);
    ez_rel_term(m, "value", 1, 0, lo, hi);
    for (unsigned l = 0; l < nlimbs; l++) {
        unsigned w = l + 1 < nlimbs ? EZ_ADV_LIMB_BITS : bits - EZ_ADV_LIMB_BITS * l;
        ez_rel_unsigned(w, &lo, &hi);
        ez_rel_term(m, "limb", -1, EZ_ADV_LIMB_BITS * l, lo, hi);
    }
    ez_rel_end(m);
}

/* ---- the framework's relations ------------------------------------------------------- */

/* A committed value = the combination of its limbs: (src + offset) >> shift in [0, 2^bits)
 * on the limb side; the value side is what the limbs define (no other constraint), so
 * the decomposition is unique iff the limbs' range [0, 2^bits) has fewer than p values. */
static void value_relations(ez_margins *m, const ez_advice_layout *L)
{
    for (size_t v = 0; v < L->nvalues; v++) {
        const ez_adv_value *x = &L->values[v];
        ez_rel_limbs(m, x->op, "a value = the sum of its 16-bit limbs", x->bits, x->nlimbs);
    }
}

/* A range-checked tensor: tensor + cst = the looked-up value(s). The tensor's values are
 * the claim flow's (within its bound, |t| <= bound); the looked-up side is in [0, 2^bits)
 * (a virtual column: the low 16 bits plus 2^16 times the committed high part). */
static void column_relations(ez_margins *m, const ez_plan *p, const ez_advice_layout *L)
{
    for (size_t j = 0; j < L->ncols; j++) {
        const ez_lookup_col *c = &L->cols[j];
        if (!c->atom.is_tensor || c->coef != 1) /* coef != 1: a scaled twin (layout.c), no new relation */
            continue;
        const ez_plan_tensor *t = &p->tensors[c->atom.id];
        unsigned bits = c->bits;
        if (c->nx > 0) /* a virtual column: the low 16 bits and the committed high part */
            for (size_t v = 0; v < L->nvalues; v++)
                if (c->xatom[0].id == L->values[v].first_poly)
                    bits = EZ_ADV_LIMB_BITS + L->values[v].bits;
        ez_i128 lo, hi, b = (ez_i128)t->bound, cst = (ez_i128)ez_fe_to_i64(c->cst);
        char what[160];
        snprintf(what, sizeof what, "'%s' + %lld in [0, 2^%u)", t->name, (long long)cst, bits);
        ez_rel_begin(m, c->op, what);
        ez_rel_term(m, "tensor", 1, 0, -b + cst, b + cst);
        ez_rel_unsigned(bits, &lo, &hi);
        ez_rel_term(m, "limbs", -1, 0, lo, hi);
        ez_rel_end(m);
    }
}

/* LogUp (eprint 2023/1284): sum_i 1/(a - f_i) = sum_j m_j/(a - t_j) pins each m_j only
 * modulo p, so the looked-up rows of a table must number fewer than p. */
static void lookup_relations(ez_margins *m, const ez_advice_layout *L)
{
    for (size_t tb = 0; tb < L->ntables; tb++) {
        ez_i128 rows = 0;
        for (size_t j = 0; j < L->ncols; j++)
            if (L->cols[j].table == tb)
                rows += (ez_i128)L->cols[j].len;
        for (size_t j = 0; j < L->ntuples; j++)
            if (L->tuples[j].table == tb)
                rows += (ez_i128)L->tuples[j].len;
        ez_rel_begin(m, SIZE_MAX, "a table's multiplicities = its looked-up rows");
        ez_rel_term(m, "rows", 1, 0, 0, rows);
        ez_rel_end(m);
    }
}

ez_status ez_margins_check(const ez_plan *p, const ez_advice_layout *L, size_t *bad_op, ez_diag *d)
{
    ez_margins m;
    memset(&m, 0, sizeof m);
    m.plan = p;
    m.d = d;
    m.bad_op = SIZE_MAX;
    mpz_inits(m.max, m.min, NULL);
    for (size_t i = 0; i < p->nops; i++)
        ez_op_relations(&m, p, i);
    value_relations(&m, L);
    column_relations(&m, p, L);
    lookup_relations(&m, L);
    mpz_clears(m.max, m.min, NULL);
    if (bad_op)
        *bad_op = m.bad_op;
    return m.failed ? EZ_ERR_NUMERIC : EZ_OK;
}


ez_status ez_plan_soundness(const ez_plan *p, size_t *bad_op, ez_diag *d)
{
    ez_advice_layout L;
    if (bad_op)
        *bad_op = SIZE_MAX;
    ez_status st = ez_plan_recheck(p, d);
    if (st != EZ_OK)
        return st;
    bool *prov = ez_alloc_array(p->nops ? p->nops : 1, sizeof *prov);
    if (prov == NULL)
        return EZ_ERR_NOMEM;
    if ((st = ez_advice_layout_build_lenient(&L, p, prov, d)) == EZ_OK) {
        st = ez_margins_check(p, &L, bad_op, d);
        ez_advice_layout_clear(&L);
    }
    free(prov);
    return st;
}

unsigned ez_margins_widest_width(const ez_plan *p, size_t op)
{
    ez_plan q = *p;
    ez_plan_tensor *t = malloc(p->ntensors * sizeof *t);
    if (t == NULL || op >= p->nops)
        goto none;
    memcpy(t, p->tensors, p->ntensors * sizeof *t);
    q.tensors = t;
    ez_plan_tensor *out = &t[p->ops[op].out];
    const ez_op_def *e = ez_op_def_of(p->ops[op].kind);
    for (unsigned w = out->bits; w >= 2 && e && e->relations; w--) {
        ez_margins m;
        ez_diag d;
        memset(&m, 0, sizeof m);
        m.plan = &q;
        m.d = &d;
        mpz_inits(m.max, m.min, NULL);
        out->bits = w;
        /* a narrower checked result is bounded by its width */
        if (out->bound > (UINT64_C(1) << (w - 1)))
            out->bound = UINT64_C(1) << (w - 1);
        ez_op_relations(&m, &q, op);
        mpz_clears(m.max, m.min, NULL);
        if (!m.failed) {
            free(t);
            return w;
        }
    }
none:
    free(t);
    return 0;
}

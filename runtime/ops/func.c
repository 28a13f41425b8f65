/* FUNC — an elementwise function by one lookup in the model's shared function table:
 * gelu, gelu_tanh, silu, sigmoid, tanh, exp (docs/semantics.md "Elementwise functions").
 * The protocol and its soundness argument are docs/protocol-elementwise.md, cited below
 * as "§n". Summary, per element of the output's padded cube (x the input moved into the
 * output's layout, k = the table's input shift):
 *
 *     x = 2^k (A + 2^16 H) + R          R in [0, 2^k), A in [-2^15, 2^15) (the lookup)
 *     (A, TV) a row of the table        (H, C) a row of the sign table: C = sign(H)
 *     y = (1 - C^2) TV + C (C + 1) / 2 yhi + C (C - 1) / 2 ylo - T[0] (P - S)
 *
 * so y is the table row of x' = floor(x / 2^k) when x' is in the rows (H = 0), the lower
 * tail when below them (H < 0) and the upper tail when above (H > 0); P - S (the
 * layout's interior padding, public; 0 when the polys live on the output's support)
 * keeps y zero off the real entries. The identity
 * upper tail is yhi = 2^u x (u = out - in >= 0) or yhi = (x - R2) / 2^j with R2 in
 * [0, 2^j) and y range-checked to its width (j = in - out > 0).
 *
 * A is committed only when x is not in the output's layout (a permuted output, a slice);
 * otherwise the lookup's input column is the VIRTUAL 2^-k (x - R) - 2^16 H (§2.2, format
 * 1.9), built from x and the committed H and R, so x = 2^k (A + 2^16 H) + R is what the
 * lookup itself proves.
 *
 * Two shapes (§2): when the input's proven range keeps every x' inside the rows (a 16-bit
 * input at scale 12, an input rescaled to its width), h = 0 and the proof is the lookup
 * alone — the claim on y is a claim on TV (with A committed, x = 2^k A + R is checked at
 * the claim's point; at k = 0 with the layouts agreeing the virtual A is x itself: nothing
 * but TV is committed). Otherwise one sumcheck at the claim's point proves y~(r) and the
 * relations above together (§3). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"
#include "runtime/prove/rangecheck.h"

#define FN_HALF (INT64_C(1) << (EZ_TABLE_BITS - 1)) /* 2^15: the rows are x' in [-2^15, 2^15) */

/* ---- the plan's side: shape, ranges, tails ----------------------------------------------- */

/* The input's proven range [lo, hi]: its bound, and its width when the width is proven
 * (public inputs are checked by the verifier, weights by the vk's range proof, rescaled
 * or checked sums by their range lookups). */
static void fn_input_range(const ez_plan *p, unsigned t, int64_t *lo, int64_t *hi)
{
    const ez_plan_tensor *x = &p->tensors[t];
    int64_t b = (int64_t)x->bound;
    *lo = -b;
    *hi = b;
    bool width = x->kind == EZ_TENSOR_INPUT || x->kind == EZ_TENSOR_WEIGHT ||
                 (x->kind == EZ_TENSOR_ACT && x->producer >= 0 && (size_t)x->producer < p->nops &&
                  ez_plan_op_width_checked(&p->ops[x->producer]));
    if (width && x->bits >= 1 && x->bits <= 63) {
        int64_t w = (int64_t)(UINT64_C(1) << (x->bits - 1));
        if (*hi > w - 1)
            *hi = w - 1;
        if (*lo < -w)
            *lo = -w;
    }
}

static unsigned fn_in_shift(const ez_plan_op *o)
{
    return o->in_scale > EZ_TABLE_RES_SCALE ? o->in_scale - EZ_TABLE_RES_SCALE : 0;
}

/* Whether every value of a function with a ZERO lower and an IDENTITY upper tail (gelu,
 * gelu_tanh, silu) that does not divide (u = out - in >= 0) lies in the signed width w,
 * for inputs x <= xhi (§2.3): a row of z >= 0 holds round(f(z) 2^out) <= z 2^out =
 * x' 2^(k+u) (f(z) <= z in double too, and the right side is an integer), so at most
 * xhi 2^u; the upper tail is x 2^u <= xhi 2^u; a row of z < 0 holds round(f(z) 2^out) >=
 * -2^(out-1) (f > -0.2785, silu's minimum; gelu's is -0.170); the lower tail is 0. The
 * bound rule (compiler/builtins.c: the operand's bound moved to the output scale, + 1)
 * is clamped to the width for a full-width input, although no value reaches it. */
static bool fn_fits_width(const ez_plan_op *o, int64_t xhi, unsigned w)
{
    ez_tail lo, hi;
    ez_table_tails(o->func, &lo, &hi);
    if (lo != EZ_TAIL_ZERO || hi != EZ_TAIL_IDENTITY || o->out_scale < o->in_scale || o->out_scale > 60 || w < 2)
        return false;
    const unsigned u = o->out_scale - o->in_scale;
    const uint64_t wmax = (UINT64_C(1) << (w - 1)) - 1; /* the width's largest value */
    if (((UINT64_C(1) << o->out_scale) >> 1) > wmax + 1) /* the rows' lowest value, -2^(out-1) */
        return false;
    return xhi <= 0 || (u < 62 && (uint64_t)xhi <= wmax >> u);
}

/* The output is range-checked to its width (§2.3) when its bound was clamped to the width
 * and its values could exceed it (the executor refuses them, the proof must too) or when
 * the identity tail divides (its floor needs the quotient's range). */
static bool fn_width_checked(const ez_plan *p, const ez_plan_op *o)
{
    const ez_plan_tensor *to = &p->tensors[o->out];
    if (to->bits == 0 || to->bits > 63)
        return false;
    int64_t xlo, xhi;
    fn_input_range(p, o->in[0], &xlo, &xhi);
    if (to->bound >= (UINT64_C(1) << (to->bits - 1)))
        return !fn_fits_width(o, xhi, to->bits);
    ez_tail lo, hi;
    ez_table_tails(o->func, &lo, &hi);
    if (hi != EZ_TAIL_IDENTITY || o->out_scale >= o->in_scale)
        return false;
    return (xhi >> fn_in_shift(o)) >= FN_HALF;
}

/* Everything both sides derive from the plan (§2). */
typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    unsigned rank, n;              /* axes; cube variables (the output's) */
    unsigned in_pos[EZ_MAX_RANK];  /* output axis b is input (slice) axis in_pos[b] */
    unsigned off[EZ_MAX_RANK];     /* output axis b's block in the output point */
    unsigned ioff[EZ_MAX_RANK];    /* input axis a's block in the input point */
    uint64_t len;                  /* the output's padded layout */
    bool interior;                 /* the layout has interior padding (P - S != 0) */
    bool on_sup;                   /* the sumcheck shape's polys live on the output's support
                                      (§2.2): no padding committed, and no P - S term */
    bool same;                     /* the input's layout is the output's (no slice, no permutation) */
    bool general;                  /* some tail is reachable: the sumcheck shape (§3) */
    bool a_virt;                   /* A is not committed: the lookup's input column is the
                                      virtual x' - 2^16 h = 2^-k (x - R) - 2^16 H (§2.2), or
                                      x itself in the lookup-only shape at k = 0 */
    bool width;                    /* y range-checked to its width */
    bool id_down;                  /* the identity tail divides: R2 committed */
    unsigned k, j, u;              /* in shift; identity tail down / up shifts */
    ez_tail lo_tail, hi_tail;
    unsigned nr, nr2;              /* limbs of R, R2 */
    /* local poly ids (§2.2) */
    unsigned pA, pTV, pH, pC, pR, pR2, npolys;
} fn_shape;

static ez_status fn_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    fn_shape *s = (fn_shape *)base;
    const ez_plan_op *o = base->o;
    if (o->kind != EZ_OP_FUNC || o->nin != 1 || o->func == EZ_FN_NONE || o->func == EZ_FN_RELU ||
        o->func == EZ_FN_RSQRT)
        return ez_op_unsupported(d, o, ez_func_name(o->func), "not a one-operand table function");
    if (o->in_scale > 62 || o->out_scale > 62)
        return ez_op_unsupported(d, o, ez_func_name(o->func), "scales above 62");
    s->rank = s->base.to->rank;
    if (s->base.ti->rank != s->rank)
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the output's axes differ from the input's");
    if (ez_op_axes_pos(s->in_pos, o, s->base.v.op.in_axes[0], s->base.ti, s->base.to, 0) != EZ_OP_AXES_OK)
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the output's axes differ from the input's");
    s->same = o->in_fixed[0] == 0;
    for (unsigned b = 0; b < s->rank; b++)
        s->same = s->same && s->in_pos[b] == b;
    s->n = ez_op_axis_offsets(s->off, s->base.to);
    ez_op_axis_offsets(s->ioff, s->base.ti);
    s->len = ez_advice_padlen(s->base.to);
    s->interior = ez_advice_interior_padding(s->base.to);
    if (s->n > EZ_SC_MAX_VARS || s->len > EZ_ADV_MAX_PADLEN)
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the tensor is too large for one sumcheck");
    s->k = fn_in_shift(o);
    if (o->out_scale >= o->in_scale)
        s->u = o->out_scale - o->in_scale;
    else
        s->j = o->in_scale - o->out_scale;
    ez_table_tails(o->func, &s->lo_tail, &s->hi_tail);
    /* which cases the input's proven range reaches (§2.1) */
    int64_t xlo, xhi;
    fn_input_range(p, o->in[0], &xlo, &xhi);
    int64_t qlo = xlo >> s->k, qhi = xhi >> s->k;
    bool lo_reach = qlo < -FN_HALF, hi_reach = qhi >= FN_HALF;
    s->general = lo_reach || hi_reach;
    s->width = fn_width_checked(p, o);
    /* the bound rule of gelu, gelu_tanh, silu covers the rows of negative inputs only when
     * the input's bound is at least 2^k - 1 (§2.3) */
    const ez_plan_tensor *tx = &p->tensors[o->in[0]];
    if (s->hi_tail == EZ_TAIL_IDENTITY && !s->width && s->k < 62 && tx->bound + 1 < (UINT64_C(1) << s->k))
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the input's bound is below the table's input step 2^k: the result's bound does "
                                 "not cover the rows (give the input a smaller scale)");
    if (s->hi_tail == EZ_TAIL_IDENTITY && s->u > 0 && xhi > 0 && (uint64_t)xhi > (UINT64_C(1) << 62) >> s->u)
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the identity tail's values reach 2^62");
    s->id_down = s->general && hi_reach && s->hi_tail == EZ_TAIL_IDENTITY && s->j > 0;
    if (s->id_down && (s->j > 62 || !s->width))
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the identity tail's rescale is beyond the prover's limits");
    /* h = floor((x' + 2^15) / 2^16) is looked up in the sign table: its rows are h in
     * [-2^15, 2^15), i.e. x' within 32 bits */
    if (s->general && (((qlo + FN_HALF) >> EZ_TABLE_BITS) < -FN_HALF || ((qhi + FN_HALF) >> EZ_TABLE_BITS) >= FN_HALF))
        return ez_op_unsupported(d, o, ez_func_name(o->func), "the table's input floor(x / 2^k) reaches 2^31 (give the input fewer "
                                 "bits or a smaller scale)");
    s->on_sup = s->general && ez_advice_tensor_supported(s->base.to);
    s->nr = s->k ? ez_rc_nlimbs(s->k) : 0;
    s->nr2 = s->id_down ? ez_rc_nlimbs(s->j) : 0;
    /* A is virtual when x is in the output's layout (a tensor atom of the lookup: no slice,
     * no permutation) and its extra atoms (H, R's limbs) fit a tuple */
    s->a_virt = s->same && (s->general ? 1u : 0u) + s->nr <= EZ_ADV_MAX_LIMBS;
    unsigned q = 0;
    s->pA = s->a_virt ? UINT32_MAX : q++;
    s->pTV = q++;
    if (s->general) {
        s->pH = q++;
        s->pC = q++;
    }
    s->pR = q, q += s->nr;
    s->pR2 = q, q += s->nr2;
    s->npolys = q;
    return EZ_OK;
}

/* ---- layout --------------------------------------------------------------------------------- */

/* The (A, TV) tuple's columns (§2.2): TV, and A committed, or virtual — x' - 2^16 h =
 * 2^-k x - sum_l 2^(16 l - k) R_l - 2^16 H over x (a tensor atom in the output's layout)
 * and the committed H and R limbs, plain x when neither is there. */
static void fn_tuple_input(ez_lookup_tuple *u, const fn_shape *s, size_t first)
{
    u->atom[1] = (ez_atom){false, first + s->pTV};
    if (!s->a_virt) {
        u->atom[0] = (ez_atom){false, first + s->pA};
        return;
    }
    u->atom[0] = (ez_atom){true, s->base.o->in[0]};
    const ez_fe inv2k = ez_fe_inv(ez_fe_pow(2, s->k));
    u->coef = inv2k;
    u->nx = 0;
    if (s->general) {
        u->xatom[u->nx] = (ez_atom){false, first + s->pH};
        u->xcoef[u->nx++] = ez_fe_neg(ez_fe_pow(2, EZ_TABLE_BITS));
    }
    for (unsigned l = 0; l < s->nr; l++) {
        u->xatom[u->nx] = (ez_atom){false, first + s->pR + l};
        u->xcoef[u->nx++] = ez_fe_neg(ez_fe_mul(ez_fe_pow(2, (uint64_t)EZ_ADV_LIMB_BITS * l), inv2k));
    }
}

static ez_status func_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    const fn_shape *s = (const fn_shape *)sh;
    size_t first = L->npolys;
    /* the sumcheck shape's polys on the output's support: its real entries only (§2.2) */
    long sup = -1;
    ez_status st = s->on_sup ? ez_advice_support_tensor(L, p, s->base.o->out, &sup) : EZ_OK;
    if (st == EZ_OK && s->on_sup && sup < 0)
        st = EZ_ERR_INTERNAL; /* ez_advice_tensor_supported said it has one */
    if (st == EZ_OK)
        st = ez_op_add_polys(L, op, s->npolys, sup >= 0 ? ez_advice_support_len(&L->supports[sup]) : s->len);
    for (unsigned q = 0; q < s->npolys && st == EZ_OK; q++)
        L->polys[first + q].support = sup;
    /* limbs in range (§2.2): R, R2 (on the support when the polys are) */
    if (st == EZ_OK && s->nr)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pR, s->nr, s->k, s->len);
    if (st == EZ_OK && s->nr2)
        st = ez_rc_limb_cols(L, (unsigned)op, first + s->pR2, s->nr2, s->j, s->len);
    /* (A, TV) in the model's shared table of (function, scales) (§2.2) */
    unsigned tb, ts = 0;
    if (st == EZ_OK)
        st = ez_advice_func_table(L, EZ_TABLE_FUNC, s->base.o->func, s->base.o->in_scale, s->base.o->out_scale, &tb);
    /* (H, C) in the model's one sign table (§2.2) */
    if (st == EZ_OK && s->general)
        st = ez_advice_func_table(L, EZ_TABLE_SIGN, EZ_FN_NONE, 0, 0, &ts);
    if (st == EZ_OK && sup < 0) {
        ez_lookup_tuple u = {.table = tb, .op = (unsigned)op, .len = s->len};
        fn_tuple_input(&u, s, first);
        st = ez_advice_add_tuple(L, &u, NULL);
        if (st == EZ_OK && s->general) {
            ez_lookup_tuple v = {.table = ts, .op = (unsigned)op, .len = s->len,
                                 .atom = {{false, first + s->pH}, {false, first + s->pC}}};
            st = ez_advice_add_tuple(L, &v, NULL);
        }
    }
    for (size_t j = 0; sup >= 0 && j < L->supports[sup].npieces && st == EZ_OK; j++) {
        ez_lookup_tuple u = {.table = tb, .op = (unsigned)op, .len = UINT64_C(1) << L->supports[sup].bits[j],
                             .sup = (size_t)sup + 1, .piece = j};
        fn_tuple_input(&u, s, first);
        st = ez_advice_add_tuple(L, &u, NULL);
        if (st == EZ_OK) {
            ez_lookup_tuple v = {.table = ts, .op = (unsigned)op, .len = u.len, .sup = u.sup, .piece = j,
                                 .atom = {{false, first + s->pH}, {false, first + s->pC}}};
            st = ez_advice_add_tuple(L, &v, NULL);
        }
    }
    if (st == EZ_OK && s->width)
        st = ez_rc_check_width(L, p, op, d);
    return st;
}

/* ---- public values: tails, T[0], selectors -------------------------------------------------- */

/* The constants of the op's table the relations use (§3): T[0] (y off the real entries),
 * the lower tail and a constant upper tail. */
typedef struct {
    int64_t t0, c_lo, c_hi;
} fn_consts;

static int64_t tail_const(const ez_table *t, ez_tail tail, bool hi)
{
    if (tail == EZ_TAIL_CLAMP)
        return hi ? t->out[t->n - 1] : t->out[0];
    return ez_table_tail(t, tail, 0); /* ZERO, ONE, MINUS_ONE (IDENTITY is not constant) */
}

static ez_status fn_consts_get(fn_consts *c, const fn_shape *s, const ez_table *t)
{
    if (t->n != (UINT32_C(1) << EZ_TABLE_BITS) || t->lo != -FN_HALF)
        return EZ_ERR_INTERNAL;
    c->t0 = t->out[FN_HALF]; /* the row of x' = 0 */
    c->c_lo = tail_const(t, s->lo_tail, false);
    c->c_hi = s->hi_tail == EZ_TAIL_IDENTITY ? 0 : tail_const(t, s->hi_tail, true);
    return EZ_OK;
}

/* (P - S)~(pt): the layout's prefix minus the real entries' selector (§3). */
static ez_fe2 fn_pad_eval(const fn_shape *s, const ez_fe2 *pt)
{
    if (!s->interior || s->on_sup)
        return ez_fe2_zero();
    ez_fe2 sel = ez_fe2_one();
    for (unsigned b = 0; b < s->rank; b++)
        sel = ez_fe2_mul(sel, ez_mle_prefix(pt + s->off[b], ez_log2_ceil(s->base.to->dims[b]), s->base.to->dims[b]));
    return ez_fe2_sub(ez_mle_prefix(pt, s->n, s->len), sel);
}

/* The input's point from the output's: blocks into the input's axis order. */
static void fn_in_point(const fn_shape *s, ez_fe2 *pin, const ez_fe2 *pout)
{
    for (unsigned b = 0; b < s->rank; b++) {
        unsigned a = s->in_pos[b];
        memcpy(pin + s->ioff[a], pout + s->off[b], ez_log2_ceil(s->base.to->dims[b]) * sizeof *pin);
    }
}

/* Padded position of every output element (row-major), and the input's offsets. */
static ez_status fn_positions(const fn_shape *s, const ez_plan *p, uint64_t **pos, int64_t **off, ez_diag *d)
{
    uint64_t numel = ez_plan_tensor_numel(s->base.to), stride[EZ_MAX_RANK];
    *pos = NULL;
    *off = NULL;
    ez_status st = ez_exec_elem_offsets(off, p, s->base.o, 0, d);
    if (st != EZ_OK)
        return st;
    *pos = ez_alloc_aligned(numel ? numel : 1, sizeof **pos);
    if (*pos == NULL) {
        free(*off);
        *off = NULL;
        return EZ_ERR_NOMEM;
    }
    ez_advice_strides(s->base.to, stride);
    const unsigned rank = s->rank;
#pragma omp parallel for schedule(static) if (numel > 65536)
    for (uint64_t e = 0; e < numel; e++) {
        uint64_t rest = e, q = 0;
        for (unsigned b = rank; b-- > 0;) {
            q += (rest % s->base.to->dims[b]) * stride[b];
            rest /= s->base.to->dims[b];
        }
        (*pos)[e] = q;
    }
    return EZ_OK;
}

/* pos[e] (the padded position of output element e) := its entry on the output's
 * support, where the polys from `first` are committed (§2.2). */
static ez_status fn_support_positions(const ez_advice_layout *L, const fn_shape *s, size_t first, uint64_t *pos)
{
    uint64_t *spos = ez_advice_support_pos(&L->supports[L->polys[first].support], s->len);
    if (spos == NULL)
        return EZ_ERR_NOMEM;
    uint64_t numel = ez_plan_tensor_numel(s->base.to);
#pragma omp parallel for schedule(static) if (numel > 65536)
    for (uint64_t e = 0; e < numel; e++)
        pos[e] = spos[pos[e]];
    free(spos);
    return EZ_OK;
}

/* ---- fill (prover) ------------------------------------------------------------------------ */

/* The upper tail's value at x (IDENTITY: x moved to the output scale exactly). */
static int64_t fn_yhi(const fn_shape *s, const fn_consts *c, int64_t x)
{
    if (s->hi_tail != EZ_TAIL_IDENTITY)
        return c->c_hi;
    return s->j ? x >> s->j : (int64_t)((uint64_t)x << s->u);
}

/* The witness explains the trace's y (§2.2): x, R (the trace's remainder) fix x', h, A; the
 * case is the one y matches — a tail value at an entry whose x' is in the rows, or a row
 * value outside them, gives the witness a false statement the verifier catches, which is
 * what the malicious-prover tests rely on. In checked mode any y that is not f(x) (or an R
 * outside [0, 2^k)) is refused here with a message. */
static ez_status func_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                           const ez_op_shape *sh, bool unchecked, ez_fe **polys, ez_diag *d)
{
    const fn_shape *s = (const fn_shape *)sh;
    ez_status st = EZ_OK;
    ez_table tab;
    memset(&tab, 0, sizeof tab);
    uint64_t *pos = NULL;
    int64_t *off = NULL;
    ez_fe *rv = NULL, *r2v = NULL;
    const ez_plan_op *o = s->base.o;
    size_t first;
    if ((st = ez_op_polys_at(L, op, s->npolys, &first)) != EZ_OK || first == SIZE_MAX)
        goto out; /* SIZE_MAX: a layout without this op's polys */
    fn_consts cs;
    /* the rows the executor evaluated through (the trace keeps every table it built: the
     * same function of (f, scales), so no second 2^16 libm calls per op); built here only
     * for a trace that lacks it */
    const ez_table *T = ez_trace_table(tr, EZ_TABLE_FUNC, o->func, o->in_scale, o->out_scale);
    if (T == NULL && tr->table_cache)
        T = ez_trace_table(tr->table_cache, EZ_TABLE_FUNC, o->func, o->in_scale, o->out_scale);
    if (T == NULL) {
        if ((st = ez_table_build(&tab, o->func, o->in_scale, o->out_scale, d)) != EZ_OK)
            goto out;
        T = &tab;
    }
    if ((st = fn_consts_get(&cs, s, T)) != EZ_OK || (st = fn_positions(s, p, &pos, &off, d)) != EZ_OK)
        goto out;
    /* the committed entries: the padded layout, or the output's support (pos[e] moved to
     * the element's entry there) */
    const uint64_t lenC = L->polys[first].len;
    if (s->on_sup && (st = fn_support_positions(L, s, first, pos)) != EZ_OK)
        goto out;
    uint64_t numel = ez_plan_tensor_numel(s->base.to), nrem = 0;
    const int64_t *x = tr->t[o->in[0]], *y = tr->t[o->out];
    const int64_t *arem = s->k ? ez_trace_aux(tr, op, EZ_AUX_REM, &nrem) : NULL;
    if (s->k && (arem == NULL || nrem != numel)) {
        ez_diag_set(d, "op '%s': the trace lacks the function's remainders", o->label);
        st = EZ_ERR_INVALID;
        goto out;
    }
    for (unsigned q = 0; q < s->npolys; q++)
        if ((polys[first + q] = ez_alloc_aligned(lenC, sizeof(ez_fe))) == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    ez_fe *const *P = polys + first;
    /* R's and R2's values before their limb split, only when committed (no fresh memory
     * for GPT-2's GELU at k = 0 with a multiplying tail) */
    rv = s->nr ? ez_alloc_aligned(lenC, sizeof *rv) : NULL;
    r2v = s->nr2 ? ez_alloc_aligned(lenC, sizeof *r2v) : NULL;
    if ((s->nr && !rv) || (s->nr2 && !r2v)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* padding entries (none on the support): x = 0, so x' = h = 0, A = 0, TV = T[0],
     * everything else 0 */
    for (uint64_t i = 0; i < lenC; i++) {
        if (!s->a_virt)
            P[s->pA][i] = 0;
        P[s->pTV][i] = ez_fe_from_i64(cs.t0);
        if (s->general)
            P[s->pH][i] = P[s->pC][i] = 0;
        if (rv)
            rv[i] = 0;
        if (r2v)
            r2v[i] = 0;
    }
    uint64_t bad = UINT64_MAX;
    const char *why = NULL;
#pragma omp parallel for schedule(static) if (numel > 16384)
    for (uint64_t e = 0; e < numel; e++) {
        uint64_t i = pos[e];
        int64_t xe = x[off[e]], ye = y[e], re = s->k ? arem[e] : 0;
        const char *w = NULL;
        /* x' from the trace's remainder: exact when R = x mod 2^k */
        int64_t xq = (xe - re) >> s->k; /* arithmetic shift: floor */
        if (s->k && (re < 0 || re >= (INT64_C(1) << s->k) || ((xe - re) & ((INT64_C(1) << s->k) - 1)) != 0))
            w = "its remainder is not x mod 2^k";
        int64_t h = (xq + FN_HALF) >> EZ_TABLE_BITS, a = xq - h * (INT64_C(1) << EZ_TABLE_BITS);
        int64_t row = T->out[a + FN_HALF];
        bool nb = h < 0, oc = false;
        if (!s->general && h != 0)
            w = "its input is outside the table's rows, which the plan rules out";
        if (s->general) {
            if (h < -FN_HALF || h >= FN_HALF)
                w = "its input is beyond the plan's bound";
            int64_t tail = nb ? cs.c_lo : fn_yhi(s, &cs, xe);
            /* the case y claims (honest: C = sign(h)): outside the rows the tail unless y
             * is the row and not the tail, inside the rows the row unless y is the tail
             * and not the row (then C = 1, the upper tail's side: the sign lookup fails) */
            oc = h != 0 ? (ye != row || ye == tail) : (ye == tail && ye != row);
            if (oc != (h != 0))
                w = h != 0 ? "a table row is given for an input outside the rows"
                           : "a tail value is given for an input inside the rows";
            else if (oc && ye != tail)
                w = "its value is not the function's tail";
            P[s->pH][i] = ez_fe_from_i64(h);
            P[s->pC][i] = ez_fe_from_i64(oc ? (nb ? -1 : 1) : 0);
            if (r2v)
                r2v[i] = ez_fe_from_i64(oc && !nb ? xe - ye * (INT64_C(1) << s->j) : xe & ((INT64_C(1) << s->j) - 1));
        }
        /* TV: the row, or y itself where y claims to be a row */
        int64_t tv = oc ? row : ye;
        if (!oc && ye != row)
            w = "its value is not the table's row";
        if (!s->a_virt)
            P[s->pA][i] = ez_fe_from_i64(a);
        P[s->pTV][i] = ez_fe_from_i64(tv);
        if (rv)
            rv[i] = ez_fe_from_i64(re);
        if (w) {
#pragma omp critical(ez_func_bad)
            if (e < bad)
                bad = e, why = w;
        }
    }
    if (bad != UINT64_MAX && !unchecked) {
        char where[256];
        ez_exec_format_elem(where, sizeof where, s->base.to, bad);
        ez_diag_set(d, "op '%s': %s = %lld: %s (the trace is inconsistent)", o->label, where, (long long)y[bad],
                    why);
        st = EZ_ERR_NUMERIC;
        goto out;
    }
    const struct {
        const ez_fe *v;
        unsigned first, nl, bits;
    } vals[] = {{rv, s->pR, s->nr, s->k}, {r2v, s->pR2, s->nr2, s->j}};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0] && st == EZ_OK; k++) {
        if (vals[k].nl == 0)
            continue;
        ez_fe *limbs[EZ_ADV_MAX_LIMBS];
        for (unsigned l = 0; l < vals[k].nl; l++)
            limbs[l] = P[vals[k].first + l];
        uint64_t badl = UINT64_MAX;
        for (uint64_t i = 0; i < lenC; i++)
            if (!ez_rc_split(vals[k].v[i], vals[k].bits, vals[k].nl, limbs, i) && badl == UINT64_MAX)
                badl = i;
        if (badl != UINT64_MAX && !unchecked) {
            ez_diag_set(d, "op '%s': a committed value (entry %llu of its committed layout) is outside [0, 2^%u)",
                        o->label, (unsigned long long)badl, vals[k].bits);
            st = EZ_ERR_NUMERIC;
        }
    }
out:
    free(pos);
    free(off);
    free(rv);
    free(r2v);
    ez_table_clear(&tab);
    return st;
}

/* ---- the reduction (both sides) ------------------------------------------------------------ */

/* Prover: poly q's MLE at pt (its cube MLE when it lives on a support). */
static ez_fe2 fn_eval_poly(const ez_pctx *c, size_t q, const ez_fe2 *pt)
{
    return ez_advice_poly_eval(c->adv, q, c->advice[q], pt);
}

/* Prover: the operand x at pt (the output's variable order) — A virtual, so x is in the
 * output's layout. */
static ez_status fn_eval_x(const ez_pctx *c, const fn_shape *s, const ez_fe2 *pt, ez_fe2 *out)
{
    ez_fe2 pin[EZ_PROVE_MAX_VARS];
    fn_in_point(s, pin, pt);
    return ez_pctx_eval_atom(c, (ez_atom){true, s->base.o->in[0]}, pin, out);
}

static ez_status fn_claim(ez_pctx *c, const fn_shape *s, size_t first, unsigned q, const ez_fe2 *pt, ez_fe2 v)
{
    return ez_pctx_claim_advice(c, first + q, pt, ez_log2_ceil(s->len), v);
}

/* The claim x~(pt') = v on the operand (pt in the output's variable order). */
static ez_status fn_claim_x(ez_pctx *c, const fn_shape *s, size_t op, const ez_fe2 *pt, ez_fe2 v)
{
    ez_fe2 pin[EZ_PROVE_MAX_VARS];
    ez_claim kc = {0};
    fn_in_point(s, pin, pt);
    ez_status st = ez_claim_set(&kc, pin, s->n, v);
    if (st == EZ_OK)
        st = ez_opview_claim(c, &s->base.v, op, 0, &kc);
    ez_claim_clear(&kc);
    return st;
}

/* The shape of the sumcheck (§3): factors TVm, C, G2, G1; terms TVm + C C G2 + C G1;
 * eq(r, .) on every variable (degree 4). */
enum { F_TV, F_C, F_G2, F_G1, F_N };

static void fn_desc(ez_sumcheck_desc *d, unsigned n)
{
    ez_sumcheck_desc_init(d, n, 1);
    d->nfactors = F_N;
    d->nterms = 3;
    d->term[0].nf = 1, d->term[0].f[0] = F_TV;
    d->term[1].nf = 3, d->term[1].f[0] = F_C, d->term[1].f[1] = F_C, d->term[1].f[2] = F_G2;
    d->term[2].nf = 2, d->term[2].f[0] = F_C, d->term[2].f[1] = F_G1;
    d->eq_vars = n == 0 ? 0 : n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* The linear factors from the atoms (verifier's check; the prover's tables use the same
 * formulas per entry): yhi, then TVm = TV - T0 (P - S), G2 = (yhi + ylo) / 2 - TV,
 * G1 = (yhi - ylo) / 2. */
typedef struct {
    ez_fe2 tv, x, r2, pad;
} fn_atoms;

static void fn_linear(const fn_shape *s, const fn_consts *cs, const fn_atoms *a, ez_fe2 *tvm, ez_fe2 *g2, ez_fe2 *g1)
{
    ez_fe2 yhi;
    if (s->hi_tail != EZ_TAIL_IDENTITY)
        yhi = ez_fe2_from_fe(ez_fe_from_i64(cs->c_hi));
    else if (s->j)
        yhi = ez_fe2_mul_fe(ez_fe2_sub(a->x, a->r2), ez_fe_inv(ez_fe_pow(2, s->j)));
    else
        yhi = ez_fe2_mul_fe(a->x, ez_fe_pow(2, s->u));
    const ez_fe2 ylo = ez_fe2_from_fe(ez_fe_from_i64(cs->c_lo));
    const ez_fe half = ez_fe_inv(2);
    *tvm = ez_fe2_sub(a->tv, ez_fe2_mul_fe(a->pad, ez_fe_from_i64(cs->t0)));
    *g2 = ez_fe2_sub(ez_fe2_mul_fe(ez_fe2_add(yhi, ylo), half), a->tv);
    *g1 = ez_fe2_mul_fe(ez_fe2_sub(yhi, ylo), half);
}

/* Prover: the factor tables over the whole cube. */
typedef struct {
    ez_fe *f[F_N];
} fn_tables;

static void fn_tables_clear(fn_tables *t)
{
    for (unsigned q = 0; q < F_N; q++)
        free(t->f[q]);
    memset(t, 0, sizeof *t);
}

static ez_status fn_tables_build(fn_tables *t, const ez_pctx *c, size_t first, const fn_shape *s, const fn_consts *cs)
{
    memset(t, 0, sizeof *t);
    const uint64_t N = UINT64_C(1) << s->n, len = s->len;
    ez_fe *X = ez_alloc_aligned(N, sizeof *X), *PS = ez_alloc_array(N, sizeof *PS);
    uint64_t *pos = NULL, *spos = NULL;
    int64_t *off = NULL;
    ez_status st = EZ_ERR_NOMEM;
    for (unsigned q = 0; q < F_N; q++)
        if ((t->f[q] = ez_alloc_aligned(N, sizeof(ez_fe))) == NULL)
            goto out;
    if (!X || !PS)
        goto out;
    if ((st = fn_positions(s, c->plan, &pos, &off, c->d)) != EZ_OK)
        goto out;
    /* on the support, cube index i is committed entry spos[i] (none off the real entries) */
    if (s->on_sup && (spos = ez_advice_support_pos(&c->adv->supports[c->adv->polys[first].support], len)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* x in the output's layout; P - S: 1 on the layout's entries that are not real (not
     * used on the support, where TV is 0 there) */
    memset(X, 0, N * sizeof *X);
    for (uint64_t i = 0; i < len; i++)
        PS[i] = s->interior && !s->on_sup;
    const int64_t *x = c->tr->t[s->base.o->in[0]];
    uint64_t numel = ez_plan_tensor_numel(s->base.to);
    for (uint64_t e = 0; e < numel; e++) {
        X[pos[e]] = ez_fe_from_i64(x[off[e]]);
        PS[pos[e]] = 0;
    }
    ez_fe *const *P = c->advice + first;
    const ez_fe t0 = ez_fe_from_i64(cs->t0), clo = ez_fe_from_i64(cs->c_lo), half = ez_fe_inv(2);
    const ez_fe chi = ez_fe_from_i64(cs->c_hi), up = ez_fe_pow(2, s->u), dn = ez_fe_inv(ez_fe_pow(2, s->j));
#pragma omp parallel for schedule(static) if (N >= 4096) /* dozens of field operations per entry */
    for (uint64_t ix = 0; ix < N; ix++) {
        const uint64_t i = ix < len ? (spos ? spos[ix] : ix) : EZ_ADV_NOT_COMMITTED; /* committed entry */
        const bool in = i != EZ_ADV_NOT_COMMITTED;
        ez_fe tv = in ? P[s->pTV][i] : 0, cv = in ? P[s->pC][i] : 0;
        ez_fe r2 = in && s->nr2 ? ez_op_limbs_at(P + s->pR2, s->nr2, i) : 0;
        ez_fe yhi = s->hi_tail != EZ_TAIL_IDENTITY ? chi
                    : s->j                         ? ez_fe_mul(ez_fe_sub(X[ix], r2), dn)
                                                   : ez_fe_mul(X[ix], up);
        t->f[F_TV][ix] = ez_fe_sub(tv, ez_fe_mul(PS[ix], t0));
        t->f[F_C][ix] = cv;
        t->f[F_G2][ix] = ez_fe_sub(ez_fe_mul(ez_fe_add(yhi, clo), half), tv);
        t->f[F_G1][ix] = ez_fe_mul(ez_fe_sub(yhi, clo), half);
    }
    st = EZ_OK;
out:
    EZ_FREE_ALL(X, PS, pos, spos, off);
    if (st != EZ_OK)
        fn_tables_clear(t);
    return st;
}

static ez_status func_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    const fn_shape *s = (const fn_shape *)sh;
    ez_status st = EZ_OK;
    fn_tables tb;
    memset(&tb, 0, sizeof tb);
    size_t first;
    if ((st = ez_op_reduce_begin(c, op, s->npolys, s->n, out, "func/out", &first)) != EZ_OK)
        goto out;
    /* the public constants (the verifier builds the same rows the lookup used) */
    fn_consts cs = {0, 0, 0};
    bool need_tab = (s->interior && !s->on_sup) || (s->general && (s->lo_tail == EZ_TAIL_CLAMP || s->hi_tail == EZ_TAIL_CLAMP));
    if (need_tab) {
        const ez_table *tab;
        if ((st = ez_pctx_table(c, EZ_TABLE_FUNC, s->base.o->func, s->base.o->in_scale, s->base.o->out_scale, &tab)) !=
                EZ_OK ||
            (st = fn_consts_get(&cs, s, tab)) != EZ_OK)
            goto out;
    } else {
        cs.c_lo = s->lo_tail == EZ_TAIL_MINUS_ONE ? -(INT64_C(1) << s->base.o->out_scale) : 0;
        cs.c_hi = s->hi_tail == EZ_TAIL_ONE ? INT64_C(1) << s->base.o->out_scale : 0;
    }
    const ez_fe two_k = ez_fe_pow(2, s->k);
    if (!s->general) {
        /* §2.4: y~(r) = TV~(r) - T0 (P - S)~(r); with A committed, x~(r') = 2^k A~(r) + R~(r)
         * (a virtual A ties x to TV in the lookup itself) */
        ez_fe2 vals[1 + EZ_ADV_MAX_LIMBS];
        unsigned qs[1 + EZ_ADV_MAX_LIMBS], nq = 0;
        if (!s->a_virt) {
            qs[nq++] = s->pA;
            for (unsigned l = 0; l < s->nr; l++)
                qs[nq++] = s->pR + l;
            st = ez_op_atoms_msg(c, first, "func/link", qs, nq, out->point, vals);
        }
        if (st == EZ_OK && !s->a_virt) {
            ez_fe2 xv = ez_fe2_add(ez_fe2_mul_fe(vals[0], two_k), s->nr ? ez_op_limbs_combine(vals + 1, s->nr) : ez_fe2_zero());
            st = fn_claim_x(c, s, op, out->point, xv);
        }
        if (st == EZ_OK) {
            ez_fe2 tv = ez_fe2_add(out->value, ez_fe2_mul_fe(fn_pad_eval(s, out->point), ez_fe_from_i64(cs.t0)));
            st = fn_claim(c, s, first, s->pTV, out->point, tv);
        }
        goto out;
    }

    /* §3: one sumcheck at the claim's point proves y~(r) from the committed case split */
    ez_sumcheck_desc desc;
    fn_desc(&desc, s->n);
    ez_fe2 coeffs[3] = {ez_fe2_one(), ez_fe2_one(), ez_fe2_one()};
    ez_fe2 pt[EZ_PROVE_MAX_VARS], ev[F_N];
    if (c->prover && (st = fn_tables_build(&tb, c, first, s, &cs)) != EZ_OK)
        goto out;
    ez_sumcheck_factor f[F_N] = {{tb.f[F_TV], NULL}, {tb.f[F_C], NULL}, {tb.f[F_G2], NULL}, {tb.f[F_G1], NULL}};
    if ((st = ez_op_sumcheck(c, &desc, coeffs, out->point, f, out->value, pt, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            st = ez_op_reject(c, "the function's sumcheck failed");
        goto out;
    }
    /* atoms at pt: TV; x itself (A virtual) or A, H and R's limbs (x = 2^k (A + 2^16 H) + R,
     * E5); R2's limbs. C is the sumcheck's own final evaluation. */
    {
        enum { FN_X = UINT32_MAX }; /* the operand's value, not a poly */
        unsigned qs[3 + 2 * EZ_ADV_MAX_LIMBS], nq = 0;
        ez_fe2 vals[3 + 2 * EZ_ADV_MAX_LIMBS];
        qs[nq++] = s->pTV;
        if (s->a_virt) {
            qs[nq++] = FN_X;
        } else {
            qs[nq++] = s->pA;
            qs[nq++] = s->pH;
            for (unsigned l = 0; l < s->nr; l++)
                qs[nq++] = s->pR + l;
        }
        for (unsigned l = 0; l < s->nr2; l++)
            qs[nq++] = s->pR2 + l;
        for (unsigned j = 0; c->prover && j < nq && st == EZ_OK; j++) {
            if (qs[j] == FN_X)
                st = fn_eval_x(c, s, pt, &vals[j]);
            else
                vals[j] = fn_eval_poly(c, first + qs[j], pt);
        }
        if (st != EZ_OK || (st = ez_pctx_msg(c, "func/atoms", vals, nq)) != EZ_OK)
            goto out;
        fn_atoms a = {.tv = vals[0], .pad = fn_pad_eval(s, pt)};
        unsigned j = 2;
        if (s->a_virt) {
            a.x = vals[1];
        } else {
            /* x = 2^k (A + 2^16 H) + R (§3, E5): the operand's claim */
            ez_fe2 r = s->nr ? ez_op_limbs_combine(vals + 3, s->nr) : ez_fe2_zero();
            a.x = ez_fe2_add(ez_fe2_mul_fe(ez_fe2_add(vals[1], ez_fe2_mul_fe(vals[2], 1u << EZ_TABLE_BITS)), two_k), r);
            j = 3 + s->nr;
        }
        a.r2 = s->nr2 ? ez_op_limbs_combine(vals + j, s->nr2) : ez_fe2_zero();
        if (!c->prover) {
            ez_fe2 tvm, g2, g1;
            fn_linear(s, &cs, &a, &tvm, &g2, &g1);
            if (!ez_fe2_eq(tvm, ev[F_TV]) || !ez_fe2_eq(g2, ev[F_G2]) || !ez_fe2_eq(g1, ev[F_G1])) {
                st = ez_op_reject(c, "the function's sumcheck does not end in the committed values");
                goto out;
            }
        }
        for (unsigned q = 0; q < nq && st == EZ_OK; q++)
            if (qs[q] != FN_X)
                st = fn_claim(c, s, first, qs[q], pt, vals[q]);
        if (st == EZ_OK)
            st = fn_claim(c, s, first, s->pC, pt, ev[F_C]);
        if (st == EZ_OK)
            st = fn_claim_x(c, s, op, pt, a.x);
    }
out:
    fn_tables_clear(&tb);
    return st;
}

/* ---- execution and the float reference ----------------------------------------------- */

static ez_status func_exec(ez_exec_ctx *c)
{
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *to = &c->p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    int64_t *off = NULL, *rem = NULL;
    const ez_table *t;
    ez_status st = ez_exec_elem_offsets(&off, c->p, op, 0, c->d);
    if (st == EZ_OK)
        st = ez_exec_table(c, &t, EZ_TABLE_FUNC, op->func, op->in_scale, op->out_scale);
    /* the table resolves floor(x / 2^in_shift): keep the dropped low bits */
    if (st == EZ_OK && t->in_shift > 0 && (rem = ez_exec_aux(c, EZ_AUX_REM, n)) == NULL)
        st = EZ_ERR_NOMEM;
    if (st == EZ_OK) {
        const int64_t *in = c->tr->t[op->in[0]];
        int64_t *out = c->tr->t[op->out];
        const unsigned sh = t->in_shift;
#pragma omp parallel for schedule(static) if (n > 65536)
        for (uint64_t e = 0; e < n; e++) {
            int64_t x = in[off[e]];
            out[e] = ez_table_eval(t, x);
            if (rem)
                rem[e] = x - (int64_t)((uint64_t)(x >> sh) << sh);
        }
        /* a result the proof range-checks to its width must fit it (docs/semantics.md) */
        if (fn_width_checked(c->p, op)) {
            const int64_t lo = -(int64_t)(UINT64_C(1) << (to->bits - 1)), hi = -lo - 1;
            for (uint64_t e = 0; e < n; e++)
                if (out[e] < lo || out[e] > hi) {
                    char where[256];
                    ez_exec_format_elem(where, sizeof where, to, e);
                    ez_diag_set(c->d,
                                "%s = %lld is outside its %u-bit range in line %u: %s\n"
                                "help: give the statement more bits (@bits(N)) or a smaller scale",
                                where, (long long)out[e], to->bits, op->line, op->equation);
                    st = EZ_ERR_NUMERIC;
                    break;
                }
        }
    }
    free(off);
    return st;
}

/* The float reference of an elementwise function: f on every element. */
static double func_f64(const ez_plan *p, const ez_plan_op *op, uint64_t e, double x)
{
    (void)p, (void)e;
    return ez_func_eval_f64(op->func, x);
}

static ez_status func_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_elementwise(p, op, ft, func_f64, d);
}

/* ---- sizes and relations ------------------------------------------------------------------ */

/* The bytes func_reduce appends (§4). */
static uint64_t func_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const fn_shape *s = (const fn_shape *)sh;
    (void)L;
    uint64_t b;
    if (!s->general) {
        b = s->a_virt ? 0 : (uint64_t)(1 + s->nr) * EZ_OP_FE2_BYTES;
    } else {
        ez_sumcheck_desc desc;
        fn_desc(&desc, s->n);
        b = ez_sumcheck_proof_bytes(&desc) + (uint64_t)((s->a_virt ? 2 : 3 + s->nr) + s->nr2) * EZ_OP_FE2_BYTES;
    }
    return b;
}

/* One claim on the input, except in the lookup-only shape with a virtual A, where the
 * lookup's own claims on x are all (§2.4). */
static unsigned func_claims(const ez_plan *p, size_t op, const ez_op_shape *sh, unsigned operand)
{
    (void)p, (void)op, (void)operand;
    const fn_shape *s = (const fn_shape *)sh;
    return s->a_virt && !s->general ? 0 : 1;
}

/* The integer relations of docs/protocol-elementwise.md §5, with the ranges the proof gives
 * their terms. */
static void func_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    const fn_shape *s = (const fn_shape *)sh;
    const ez_plan_tensor *tx = &p->tensors[s->base.o->in[0]], *ty = s->base.to;
    ez_i128 B = (ez_i128)tx->bound, Y = (ez_i128)ty->bound, lo, hi;
    const ez_i128 sat = ((ez_i128)1 << 62) - 1;
    ez_rel_begin(m, op, s->general ? "x = 2^k (A + 2^16 H) + R" : "x = 2^k A + R");
    ez_rel_term(m, "x", 1, 0, -B, B);
    ez_rel_term(m, "A", -1, s->k, -FN_HALF, FN_HALF - 1);
    if (s->general)
        ez_rel_term(m, "H", -1, s->k + EZ_TABLE_BITS, -FN_HALF, FN_HALF - 1); /* the sign table's rows */
    ez_rel_unsigned(s->k, &lo, &hi);
    ez_rel_term(m, "R", -1, 0, lo, hi);
    ez_rel_end(m);
    /* y equals a table row, a tail constant or T[0] - T[0] in F: both sides are integers
     * of at most 62 bits, so equal in F means equal */
    ez_rel_begin(m, op, "y = T[A] (a row)");
    ez_rel_term(m, "y", 1, 0, -Y, Y);
    ez_rel_term(m, "T[A]", -1, 0, -sat, sat);
    ez_rel_end(m);
    if (s->general && s->hi_tail == EZ_TAIL_IDENTITY) {
        if (s->j) {
            ez_rel_begin(m, op, "x = 2^j y + R2 (the identity tail)");
            ez_rel_term(m, "x", 1, 0, -B, B);
            ez_rel_signed(ty->bits, &lo, &hi);
            ez_rel_term(m, "y", -1, s->j, lo, hi);
            ez_rel_unsigned(s->j, &lo, &hi);
            ez_rel_term(m, "R2", -1, 0, lo, hi);
        } else {
            ez_rel_begin(m, op, "y = 2^u x (the identity tail)");
            ez_rel_term(m, "y", 1, 0, -Y, Y);
            ez_rel_term(m, "x", -1, s->u, -B, B);
        }
        ez_rel_end(m);
    }
    /* the committed values are the sums of their limbs */
    const struct {
        unsigned nl, bits;
        const char *what;
    } v[] = {{s->nr, s->k, "R = the sum of its limbs"},
             {s->nr2, s->j, "R2 = the sum of its limbs"}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i].nl != 0)
            ez_rel_limbs(m, op, v[i].what, v[i].bits, v[i].nl);
}

const ez_op_def ez_op_func = {
    .exec = func_exec,
    .floatref = func_floatref,
    .shape_size = sizeof(fn_shape),
    .shape_init = fn_shape_init,
    .layout = func_layout,
    .fill = func_fill,
    .prove = func_reduce,
    .verify = func_reduce,
    .walk_bytes = func_walk_bytes,
    .claims = func_claims,
    .relations = func_relations,
};

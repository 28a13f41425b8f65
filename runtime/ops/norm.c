/* LAYERNORM and RMSNORM — layernorm[i](e) = (e - mean) / sqrt(var + 1e-5) and
 * rmsnorm[i](e) = e / sqrt(mean(e^2) + 1e-5) along i, no gain or bias, exactly as the
 * integer semantics define them (docs/semantics.md "Normalisation"). The protocol and its
 * soundness argument are docs/protocol-norms.md, cited below as "§n".
 *
 * Per row of N entries x (the input without the normalised axis t; mu = 0 for rmsnorm):
 *     sum_t x = N mu + a,  a in [0, N)          (layernorm: the floor of the mean)
 *     sum_t c^2 = N v + b, b in [0, N),  c = x - mu
 *     V = v + E;  the split V = M 4^k - mrem, k minimal, R = T[M]   (rsqrt.h's block)
 *     y = floor(c R 2^(kmax - k) / 2^sh),  sh = 23 + kmax - o   (ONE public shift: the
 *         per-row factor RG = R 2^(kmax - k) absorbs the row's exponent)
 * The op commits per row (the row shape's padded layout) mu (+ 2^(bmu-1), limbs), a, v
 * (limbs), b and the rsqrt block, and per element only the rescale's remainder (the
 * framework's ez_rc_rescale, which also range-checks y to its width). The reduction of
 * the claim y~(r) = v_out:
 *   1. rho = R'~(r) (the remainder), zeta (a random row point), v, b, a at zeta, lambda;
 *   2. ONE sumcheck over the input's cube (degree 3, no eq factor):
 *          sum_x eq(r, x) D(x) RG(x_R) + lambda_0 eq(zeta, x_R) D(x)^2 + lambda_1 eq(zeta, x_R) D(x)
 *        = 2^sh v_out + rho + lambda_0 (N v(zeta) + b(zeta)) + lambda_1 a(zeta)
 *      with D = x - mu(x_R) S_t(x_t) (zero off the real entries): the output rescale, the
 *      sum of squares and the row sum (sum_t D = a) in one pass (§2.2);
 *   3. the block's zero-check over the row cube at eq(zeta, .) (§3);
 *   4. rho becomes limb claims on the remainder. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/exec/tables.h"
#include "runtime/ops/op.h"
#include "runtime/ops/rsqrt.h"
#include "runtime/ops/rowaxis.h"
#include "runtime/prove/rangecheck.h"

#define LIM62 ((ez_i128)1 << 62)
#define NM_MAX_ROW (UINT64_C(1) << 16) /* a and b are one 16-bit limb each */
#define NM_MAX_POLYS 64                 /* mu, a, v, b limbs and the block: at most 10 + 24 */

/* ---- the plan's constants (exec and proof) ----------------------------------------------- */

/* The largest V = v + E the plan allows: v = floor(Q / N) <= B^2 (+ 1 for layernorm,
 * centred on the floor of the mean: compiler/builtins.c bound_norm). */
static uint64_t nm_vmax(const ez_plan *p, const ez_plan_op *o)
{
    unsigned __int128 B = p->tensors[o->in[0]].bound;
    unsigned __int128 v = B * B + (o->kind == EZ_OP_LAYERNORM) + (unsigned __int128)ez_exec_norm_eps(o->in_scale);
    return v >= ((unsigned __int128)1 << 63) ? UINT64_MAX : (uint64_t)v;
}

/* sh = 23 + kmax - out_scale (§1). */
static int nm_shift(const ez_plan_op *o, unsigned kmax)
{
    return EZ_RSQRT_TABLE_SCALE + (int)kmax - (int)o->out_scale;
}

/* ---- shape ------------------------------------------------------------------------------- */

/* Everything both sides derive from the plan (§1). */
typedef struct {
    ez_op_shape base;              /* the op, its input slice and output (op.h) */
    ez_rowaxis g;                 /* the input's element and row cubes */
    bool layer;
    unsigned out_pos[EZ_MAX_RANK];  /* output axis b is input axis out_pos[b] */
    uint64_t N, B;                  /* row length, input bound */
    int64_t E;                      /* epsilon at scale 2 in_scale */
    uint64_t vmax;
    unsigned bmu, bv, bN, nmu, nvv; /* widths: mu + 2^(bmu-1), v, a and b; limbs */
    uint64_t cstN;                  /* 2^bN - N: a + cstN < 2^bN is a < N */
    int sh;
    ez_rsq blk;
    /* local poly ids: U = mu + 2^(bmu-1) S_R limbs and a (layernorm), v limbs, b, block */
    unsigned pU, pA, pV, pB, npolys;
} nm_shape;

static ez_status nm_shape_init(ez_op_shape *base, const ez_plan *p, size_t op, ez_diag *d)
{
    nm_shape *s = (nm_shape *)base;
    const ez_plan_op *o = base->o;
    if ((o->kind != EZ_OP_LAYERNORM && o->kind != EZ_OP_RMSNORM) || o->nin != 1)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "not a one-operand norm");
    s->layer = o->kind == EZ_OP_LAYERNORM;
    s->g.rank = s->base.ti->rank;
    const unsigned *ax = s->base.v.op.in_axes[0];
    if (s->g.rank == 0 || s->base.to->rank != s->g.rank)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the output's axes differ from the input's");
    if (!ez_op_axes_distinct(ax, s->g.rank))
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "an index repeats inside the input");
    if ((s->g.at = ez_op_axis_pos(ax, s->g.rank, o->axis)) == s->g.rank)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the normalised index is not an axis of the input");
    if (ez_op_axes_pos(s->out_pos, o, ax, s->base.ti, s->base.to, 0) != EZ_OP_AXES_OK)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the output's axes differ from the input's");
    ez_rowaxis_init(&s->g, s->base.ti, s->g.at);
    s->N = s->base.ti->dims[s->g.at];
    if (s->g.n > EZ_SC_MAX_VARS || s->g.lenE > EZ_ADV_MAX_PADLEN || s->N == 0)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the input is too large for one sumcheck");
    if (s->N > NM_MAX_ROW)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "rows longer than 2^16 entries");
    if (o->in_scale > 31)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "input scale above 31");
    s->B = p->tensors[o->in[0]].bound;
    if (s->B >= (UINT64_C(1) << 31))
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the input's bound is 2^31 or more (its squares leave 2^62)");
    s->E = ez_exec_norm_eps(o->in_scale);
    s->vmax = nm_vmax(p, o);
    s->bmu = ez_bitlen(s->B) + 1;
    s->bv = ez_bitlen(s->B * s->B + s->layer) ? ez_bitlen(s->B * s->B + s->layer) : 1;
    s->bN = s->N > 1 ? ez_bitlen(s->N - 1) : 1;
    s->cstN = (UINT64_C(1) << s->bN) - s->N;
    s->nmu = s->layer ? ez_rc_nlimbs(s->bmu) : 0;
    s->nvv = ez_rc_nlimbs(s->bv);
    unsigned q = 0;
    s->pU = q, q += s->nmu;
    s->pA = q, q += s->layer;
    s->pV = q, q += s->nvv;
    s->pB = q++;
    if (ez_rsq_init(&s->blk, s->vmax, q) != EZ_OK)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the variance is too wide for the split");
    s->sh = nm_shift(o, s->blk.kmax);
    if (s->sh > 62 || s->sh < -62)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "the output rescale exceeds 2^62");
    s->npolys = q + s->blk.npolys;
    if (s->npolys > NM_MAX_POLYS)
        return ez_op_unsupported(d, o, ez_op_kind_name(o->kind), "too many committed polys");
    return EZ_OK;
}

/* t's coordinate of element cube index x. */
static inline uint64_t nm_t_of(const nm_shape *s, uint64_t x)
{
    return (x >> (s->g.n - s->g.off[s->g.at] - s->g.nt)) & ((UINT64_C(1) << s->g.nt) - 1);
}

/* ---- layout ------------------------------------------------------------------------------- */

static ez_status norm_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    const nm_shape *s = (const nm_shape *)sh;
    size_t first = L->npolys;
    ez_status st = ez_op_add_polys(L, op, s->npolys, s->g.lenR);
    /* mu + 2^(bmu-1) (signed mean), a < N and b < N (two columns each: a in [0, 2^bN) and
     * a + 2^bN - N in [0, 2^bN)), v in its width (§1) */
    if (st == EZ_OK && s->layer)
        st = ez_rsq_range_cols(L, (unsigned)op, first + s->pU, s->nmu, s->bmu, s->g.lenR, 0);
    if (st == EZ_OK && s->layer)
        st = ez_rsq_range_cols(L, (unsigned)op, first + s->pA, 1, s->bN, s->g.lenR, s->cstN);
    if (st == EZ_OK)
        st = ez_rsq_range_cols(L, (unsigned)op, first + s->pV, s->nvv, s->bv, s->g.lenR, 0);
    if (st == EZ_OK)
        st = ez_rsq_range_cols(L, (unsigned)op, first + s->pB, 1, s->bN, s->g.lenR, s->cstN);
    if (st == EZ_OK)
        st = ez_rsq_layout(L, (unsigned)op, &s->blk, first, s->g.lenR);
    /* y = floor(c RG / 2^sh): the remainder and the output's width (§1) */
    if (st == EZ_OK && s->sh > 0)
        st = ez_rc_rescale(L, p, op, (unsigned)s->sh, d);
    return st;
}

/* ---- fill (prover) ------------------------------------------------------------------------- */

static ez_status norm_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op,
                           const ez_op_shape *sh, bool unchecked, ez_fe **polys, ez_diag *d)
{
    const nm_shape *s = (const nm_shape *)sh;
    ez_status st = EZ_OK;
    const ez_plan_op *o = s->base.o;
    size_t first;
    if ((st = ez_op_polys_at(L, op, s->npolys, &first)) != EZ_OK || first == SIZE_MAX)
        goto out; /* SIZE_MAX: a layout without this op's polys (the weight range proof's) */
    const uint64_t nrows = ez_plan_tensor_numel(s->base.to) / s->N;
    const ez_aux_kind kinds[] = {EZ_AUX_VAR,      EZ_AUX_VAR_REM, EZ_AUX_NORM_EXP, EZ_AUX_MANTISSA,
                                 EZ_AUX_MANT_REM, EZ_AUX_RSQRT,   EZ_AUX_MEAN,     EZ_AUX_MEAN_REM};
    const int64_t *aux[8];
    for (unsigned j = 0; j < 8; j++) {
        uint64_t na = 0;
        aux[j] = j >= 6 && !s->layer ? NULL : ez_trace_aux(tr, op, kinds[j], &na);
        if ((j < 6 || s->layer) && (aux[j] == NULL || na != nrows)) {
            ez_diag_set(d, "op '%s': the trace lacks the norm's aux arrays", o->label);
            st = EZ_ERR_INVALID;
            goto out;
        }
    }
    for (unsigned q = 0; q < s->npolys; q++) {
        polys[first + q] = ez_alloc_array(s->g.lenR, sizeof(ez_fe)); /* zero: padding rows */
        if (polys[first + q] == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
    }
    ez_fe *const *P = polys + first;
    /* padding rows: the split of V = 0 (rsqrt.h), every other value 0 */
    for (uint64_t y = 0; y < s->g.lenR; y++)
        ez_rsq_fill(&s->blk, P, y, 0, 0, 0, 0, 0);
    /* exec row rr (row-major over the output's axes without t) -> row cube index */
    uint64_t rstride_t[EZ_MAX_RANK], rstride[EZ_MAX_RANK];
    ez_advice_strides(&s->g.rows, rstride_t);
    for (unsigned a = 0, r = 0; a < s->g.rank; a++)
        rstride[a] = a == s->g.at ? 0 : rstride_t[r++];
    uint64_t bad = UINT64_MAX;
    const char *bad_what = NULL;
    const ez_fe half_mu = UINT64_C(1) << (s->bmu - 1);
    const int64_t N = (int64_t)s->N;
    for (uint64_t rr = 0; rr < nrows; rr++) {
        uint64_t rest = rr, pr = 0;
        for (unsigned b = s->g.rank; b-- > 0;) {
            if (s->out_pos[b] == s->g.at)
                continue;
            pr += (rest % s->base.to->dims[b]) * rstride[s->out_pos[b]];
            rest /= s->base.to->dims[b];
        }
        const char *what = ez_rsq_fill(&s->blk, P, pr, aux[0][rr] + s->E, aux[2][rr], aux[3][rr], aux[4][rr],
                                       aux[5][rr]);
        if (!ez_rc_split(ez_fe_from_i64(aux[1][rr]), s->bN, 1, P + s->pB, pr) || aux[1][rr] >= N)
            what = "the variance's remainder";
        if (!ez_rc_split(ez_fe_from_i64(aux[0][rr]), s->bv, s->nvv, P + s->pV, pr))
            what = "the variance";
        if (s->layer) {
            if (!ez_rc_split(ez_fe_from_i64(aux[7][rr]), s->bN, 1, P + s->pA, pr) || aux[7][rr] >= N)
                what = "the mean's remainder";
            if (!ez_rc_split(ez_fe_add(ez_fe_from_i64(aux[6][rr]), half_mu), s->bmu, s->nmu, P + s->pU, pr))
                what = "the mean";
        }
        if (what && bad == UINT64_MAX)
            bad = rr, bad_what = what;
    }
    if (bad != UINT64_MAX && !unchecked) {
        ez_diag_set(d, "op '%s': %s of row %" PRIu64 " is outside its range (the trace is inconsistent)", o->label,
                    bad_what, bad);
        st = EZ_ERR_NUMERIC;
    }
out:
    return st;
}

/* ---- the reduction (both sides) ------------------------------------------------------------ */

/* The main sumcheck's shape (§2.2): factors E_r, D, RG, E_zeta; terms E_r D RG,
 * lambda_0 E_zeta D D and (layernorm) lambda_1 E_zeta D; no eq factor. */
static void nm_desc_main(ez_sumcheck_desc *d, unsigned n, bool layer)
{
    ez_sumcheck_desc_init(d, n, 1);
    d->nfactors = 4;
    d->nterms = layer ? 3 : 2;
    d->term[0].nf = 3, d->term[0].f[0] = 0, d->term[0].f[1] = 1, d->term[0].f[2] = 2;
    d->term[1].nf = 3, d->term[1].f[0] = 3, d->term[1].f[1] = 1, d->term[1].f[2] = 1;
    d->term[2].nf = 2, d->term[2].f[0] = 3, d->term[2].f[1] = 1;
    d->eq_vars = 0;
}

/* Prover: the main sumcheck's factor tables over the whole cube (2^n entries). */
typedef struct {
    ez_fe2 *Er, *Ez, *ez_rows;
    ez_fe *D, *RG, *X;
} nm_tables;

static void nm_tables_clear(nm_tables *t)
{
    EZ_FREE_ALL(t->Er, t->Ez, t->ez_rows, t->D, t->RG, t->X);
    memset(t, 0, sizeof *t);
}

static ez_status nm_tables_build(nm_tables *t, const ez_pctx *c, size_t first, const nm_shape *s, const ez_fe2 *rin,
                                 const ez_fe2 *zeta)
{
    memset(t, 0, sizeof *t);
    const uint64_t N = UINT64_C(1) << s->g.n, NR = UINT64_C(1) << s->g.nR;
    t->Er = ez_alloc_aligned(N, sizeof *t->Er);
    t->Ez = ez_alloc_aligned(N, sizeof *t->Ez);
    t->ez_rows = ez_alloc_aligned(NR, sizeof *t->ez_rows);
    t->D = ez_alloc_aligned(N, sizeof *t->D);
    t->RG = ez_alloc_aligned(N, sizeof *t->RG);
    t->X = ez_alloc_aligned(N, sizeof *t->X);
    if (!t->Er || !t->Ez || !t->ez_rows || !t->D || !t->RG || !t->X) {
        nm_tables_clear(t);
        return EZ_ERR_NOMEM;
    }
    ez_eq_table(t->Er, rin, s->g.n);
    ez_eq_table(t->ez_rows, zeta, s->g.nR);
    ez_advice_pad_i64(t->X, s->base.v.data[0], s->base.ti, 0);
    memset(t->X + s->g.lenE, 0, (N - s->g.lenE) * sizeof *t->X);
    ez_fe *const *P = c->advice + first;
    const ez_fe half_mu = UINT64_C(1) << (s->bmu - 1);
    const uint64_t lenR = s->g.lenR;
#pragma omp parallel for schedule(static) if (N >= 4096) /* dozens of field operations per entry */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t r = ez_rowaxis_row_of(&s->g, i);
        ez_fe mu = 0, rg = 0;
        if (r < lenR) {
            rg = P[s->blk.pRG][r];
            if (s->layer)
                mu = ez_fe_sub(ez_op_limbs_at(P + s->pU, s->nmu, r), ez_rowaxis_row_real(&s->g, r) ? half_mu : 0);
        }
        bool tin = nm_t_of(s, i) < s->N;
        t->D[i] = ez_fe_sub(t->X[i], tin ? mu : 0);
        t->RG[i] = rg;
        t->Ez[i] = t->ez_rows[r];
    }
    return EZ_OK;
}

static ez_status nm_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    const nm_shape *s = (const nm_shape *)sh;
    ez_status st = EZ_OK;
    nm_tables tb;
    ez_fe2 *lins[3] = {NULL};
    ez_fe *gt[2] = {NULL};
    ez_claim kc = {0};
    memset(&tb, 0, sizeof tb);
    size_t first;
    if ((st = ez_op_reduce_begin(c, op, s->npolys, s->g.n, out, "norm/out", &first)) != EZ_OK)
        goto out;
    const unsigned n = s->g.n, nR = s->g.nR;
    const char *kind = s->layer ? "layernorm" : "rmsnorm";
    /* the output point's blocks in the input's axis order */
    ez_fe2 rin[EZ_PROVE_MAX_VARS];
    for (unsigned b = 0, o_ = 0; b < s->g.rank; b++) {
        unsigned a = s->out_pos[b];
        memcpy(rin + s->g.off[a], out->point + o_, s->g.nv[a] * sizeof *rin);
        o_ += s->g.nv[a];
    }

    /* 1. the rescale's remainder at r (§1) */
    ez_fe2 claim, rho;
    if ((st = ez_op_unrescale(c, op, s->base.to, out, s->sh, "norm/rem", &claim, &rho)) != EZ_OK)
        goto out;

    /* 2. the row point zeta and v, b (and a) there, then lambda (§2.2) */
    ez_fe2 zeta[EZ_PROVE_MAX_VARS], lambda[2], zv[EZ_ADV_MAX_LIMBS + 2];
    ez_transcript_challenges_fe2(c->t, "norm/zeta", zeta, nR);
    {
        unsigned qs[EZ_ADV_MAX_LIMBS + 2];
        size_t nq = 0;
        for (unsigned l = 0; l < s->nvv; l++)
            qs[nq++] = s->pV + l;
        qs[nq++] = s->pB;
        if (s->layer)
            qs[nq++] = s->pA;
        if ((st = ez_op_atoms_msg(c, first, "norm/rows-at-zeta", qs, nq, zeta, zv)) != EZ_OK)
            goto out;
    }
    ez_transcript_challenges_fe2(c->t, "norm/lambda", lambda, 2);
    {
        ez_fe2 vz = ez_op_limbs_combine(zv, s->nvv), bz = zv[s->nvv];
        ez_fe2 q = ez_fe2_add(ez_fe2_mul_fe(vz, (ez_fe)s->N), bz);
        claim = ez_fe2_add(claim, ez_fe2_mul(lambda[0], q));
        if (s->layer)
            claim = ez_fe2_add(claim, ez_fe2_mul(lambda[1], zv[s->nvv + 1]));
    }

    /* 3. the main sumcheck: output rescale, sum of squares, row sum (§2.2) */
    ez_sumcheck_desc dm;
    nm_desc_main(&dm, n, s->layer);
    ez_fe2 coeffs[3] = {ez_fe2_one(), lambda[0], lambda[1]};
    ez_sumcheck_factor fm[4];
    if (c->prover) {
        if ((st = nm_tables_build(&tb, c, first, s, rin, zeta)) != EZ_OK)
            goto out;
        fm[0] = (ez_sumcheck_factor){NULL, tb.Er};
        fm[1] = (ez_sumcheck_factor){tb.D, NULL};
        fm[2] = (ez_sumcheck_factor){tb.RG, NULL};
        fm[3] = (ez_sumcheck_factor){NULL, tb.Ez};
    }
    ez_fe2 pt[EZ_PROVE_MAX_VARS], ptr[EZ_PROVE_MAX_VARS], ev[7];
    if ((st = ez_op_sumcheck(c, &dm, coeffs, NULL, fm, claim, pt, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the %s sumcheck (output, row sums) failed", kind);
        goto out;
    }
    nm_tables_clear(&tb);
    ez_rowaxis_point_row(&s->g, ptr, pt);
    {
        /* x at pt, mu's limbs and RG at the row point */
        ez_fe2 xv;
        if (c->prover && (st = ez_advice_tensor_eval(&xv, s->base.v.data[0], s->base.ti, pt)) != EZ_OK)
            goto out;
        if ((st = ez_pctx_msg(c, "norm/x", &xv, 1)) != EZ_OK)
            goto out;
        if ((st = ez_claim_set(&kc, pt, n, xv)) != EZ_OK || (st = ez_opview_claim(c, &s->base.v, op, 0, &kc)) != EZ_OK)
            goto out;
        ez_claim_clear(&kc);
        unsigned qs[EZ_ADV_MAX_LIMBS + 1];
        ez_fe2 vals[EZ_ADV_MAX_LIMBS + 1];
        size_t nq = 0;
        for (unsigned l = 0; l < s->nmu; l++)
            qs[nq++] = s->pU + l;
        qs[nq++] = s->blk.pRG;
        if ((st = ez_op_atoms_msg(c, first, "norm/mu-rg", qs, nq, ptr, vals)) != EZ_OK)
            goto out;
        if (!c->prover) {
            ez_fe2 sr = ez_rowaxis_rowreal_eval(&s->g, ptr), mu = ez_fe2_zero();
            if (s->layer)
                mu = ez_fe2_sub(ez_op_limbs_combine(vals, s->nmu), ez_fe2_mul_fe(sr, UINT64_C(1) << (s->bmu - 1)));
            ez_fe2 st_ = ez_mle_prefix(pt + s->g.off[s->g.at], s->g.nt, s->N);
            ez_fe2 want[4] = {ez_eq_eval(rin, pt, n), ez_fe2_sub(xv, ez_fe2_mul(mu, st_)), vals[s->nmu],
                              ez_eq_eval(zeta, ptr, nR)};
            if ((st = ez_op_final_evals(c, want, ev, 4,
                                        "the %s sumcheck's final evaluations do not match the committed values", kind)) !=
                EZ_OK)
                goto out;
        }
    }

    /* 4. the rsqrt block's zero-check on the row cube at eq(zeta, .) (§3) */
    ez_fe2 beta[EZ_RSQ_NB];
    ez_transcript_challenges_fe2(c->t, "norm/beta", beta, EZ_RSQ_NB);
    ez_sumcheck_desc dz;
    ez_rsq_desc(&dz, nR, false);
    ez_sumcheck_factor fz[5];
    if (c->prover) {
        const uint64_t NR = UINT64_C(1) << nR;
        ez_fe *const *P = c->advice + first;
        for (int j = 0; j < 3; j++)
            lins[j] = ez_alloc_aligned(NR, sizeof(ez_fe2));
        gt[0] = ez_alloc_aligned(NR, sizeof(ez_fe));
        gt[1] = ez_alloc_aligned(NR, sizeof(ez_fe));
        if (!lins[0] || !lins[1] || !lins[2] || !gt[0] || !gt[1]) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        for (uint64_t y = 0; y < NR; y++) {
            ez_rsq_atoms a;
            ez_fe vv = 0;
            bool real = y < s->g.lenR && ez_rowaxis_row_real(&s->g, y);
            if (y < s->g.lenR) {
                ez_rsq_atoms_at(&s->blk, P, y, &a);
                vv = ez_op_limbs_at(P + s->pV, s->nvv, y);
            } else {
                memset(&a, 0, sizeof a);
            }
            ez_fe2 V = ez_fe2_from_fe(ez_fe_add(vv, real ? ez_fe_from_i64(s->E) : 0)), lin[3];
            ez_rsq_lin(&s->blk, beta, &a, V, ez_fe2_from_fe(y < s->g.lenR), lin);
            lins[0][y] = lin[0], lins[1][y] = lin[1], lins[2][y] = lin[2];
            gt[0][y] = a.G.c0;
            gt[1][y] = a.g.c0;
        }
        fz[0] = (ez_sumcheck_factor){NULL, lins[0]};
        fz[1] = (ez_sumcheck_factor){gt[0], NULL};
        fz[2] = (ez_sumcheck_factor){NULL, lins[1]};
        fz[3] = (ez_sumcheck_factor){gt[1], NULL};
        fz[4] = (ez_sumcheck_factor){NULL, lins[2]};
    }
    ez_fe2 pt2[EZ_PROVE_MAX_VARS];
    if ((st = ez_op_sumcheck(c, &dz, NULL, zeta, fz, ez_fe2_zero(), pt2, ev)) != EZ_OK) {
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the %s rsqrt zero-check failed", kind);
        goto out;
    }
    {
        unsigned qs[NM_MAX_POLYS];
        ez_fe2 vals[NM_MAX_POLYS];
        size_t nq = 0;
        for (unsigned l = 0; l < s->nvv; l++)
            qs[nq++] = s->pV + l;
        for (unsigned q = 0; q < s->blk.npolys; q++)
            qs[nq++] = s->blk.first + q;
        if ((st = ez_op_atoms_msg(c, first, "norm/rows", qs, nq, pt2, vals)) != EZ_OK)
            goto out;
        if (!c->prover) {
            ez_rsq_atoms a;
            ez_rsq_atoms_of(&s->blk, vals + s->nvv, &a);
            ez_fe2 sr = ez_rowaxis_rowreal_eval(&s->g, pt2), lin[3];
            ez_fe2 V = ez_fe2_add(ez_op_limbs_combine(vals, s->nvv), ez_fe2_mul_fe(sr, ez_fe_from_i64(s->E)));
            ez_rsq_lin(&s->blk, beta, &a, V, ez_mle_prefix(pt2, nR, s->g.lenR), lin);
            ez_fe2 want[5] = {lin[0], a.G, lin[1], a.g, lin[2]};
            if ((st = ez_op_final_evals(
                     c, want, ev, 5, "the %s rsqrt zero-check's final evaluations do not match the committed values",
                     kind)) != EZ_OK)
                goto out;
        }
    }

    /* 5. the remainder's limbs (§1) */
    if (s->sh > 0)
        st = ez_op_rem_claim(c, op, out, rho);
out:
    ez_claim_clear(&kc);
    nm_tables_clear(&tb);
    for (int j = 0; j < 3; j++)
        free(lins[j]);
    free(gt[0]);
    free(gt[1]);
    return st;
}

/* The bytes nm_reduce appends, message by message. */
static uint64_t norm_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    const nm_shape *s = (const nm_shape *)sh;
    (void)L;
    ez_sumcheck_desc dm, dz;
    nm_desc_main(&dm, s->g.n, s->layer);
    ez_rsq_desc(&dz, s->g.nR, false);
    uint64_t nfe = (s->sh > 0 ? ez_rc_nlimbs((unsigned)s->sh) : 0) /* rho, then the remainder's limbs 1.. */
                   + s->nvv + 1 + s->layer                          /* v, b, a at zeta */
                   + 1 + s->nmu + 1                                /* x, mu, RG at the main point */
                   + s->nvv + s->blk.npolys;                        /* v and the block at the row point */
    uint64_t b = ez_sumcheck_proof_bytes(&dm) + ez_sumcheck_proof_bytes(&dz) + nfe * EZ_OP_FE2_BYTES;
    return b;
}

/* The integer relations of docs/protocol-norms.md §4 with the ranges the proof gives their
 * terms (B the input's bound, N the row length). */
static void norm_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    const nm_shape *s = (const nm_shape *)sh;
    ez_i128 B = (ez_i128)s->B, N = (ez_i128)s->N, lo, hi;
    if (s->layer) {
        /* R1: sum_t x = N mu + a, mu in its signed width, a in [0, N) */
        ez_rel_begin(m, op, "sum_t x = N mu + a");
        ez_rel_term(m, "sum_t x", 1, 0, -N * B, N * B);
        ez_rel_signed(s->bmu, &lo, &hi);
        ez_rel_term(m, "N mu", -(int64_t)s->N, 0, lo, hi);
        ez_rel_term(m, "a", -1, 0, 0, N - 1);
        ez_rel_end(m);
    }
    /* R2: sum_t c^2 = N v + b; with mu the floor of the mean (R1), sum_t c^2 <= N (B^2 + 1) */
    ez_rel_begin(m, op, "sum_t c^2 = N v + b");
    ez_rel_term(m, "sum_t c^2", 1, 0, 0, N * (B * B + s->layer));
    ez_rel_unsigned(s->bv, &lo, &hi);
    ez_rel_term(m, "N v", -(int64_t)s->N, 0, lo, hi);
    ez_rel_term(m, "b", -1, 0, 0, N - 1);
    ez_rel_end(m);
    /* the split on V = v + E <= vmax (v <= B^2 + 1 by R2) */
    ez_rsq_relations(m, op, &s->blk, "v + E", (ez_i128)s->vmax);
    /* the output: |c RG| < sqrt(N) 2^(23 + kmax) (§4.3: c^2 <= Q < N V <= N M 4^k,
     * R^2 <= 2^46 / M, g^2 = 4^(kmax - k)) */
    ez_i128 sq = (ez_i128)ceil(sqrt((double)s->N));
    while (sq * sq < N)
        sq++;
    while (sq > 1 && (sq - 1) * (sq - 1) >= N)
        sq--;
    ez_i128 crg = sq << (EZ_RSQRT_TABLE_SCALE + s->blk.kmax);
    const ez_plan_tensor *to = &p->tensors[p->ops[op].out];
    if (s->sh > 0) {
        ez_rel_begin(m, op, "c rg = 2^sh y + r");
        ez_rel_term(m, "c rg", 1, 0, -crg, crg);
        ez_rel_signed(to->bits, &lo, &hi);
        ez_rel_term(m, "y", -1, (unsigned)s->sh, lo, hi);
        ez_rel_unsigned((unsigned)s->sh, &lo, &hi);
        ez_rel_term(m, "r", -1, 0, lo, hi);
        ez_rel_end(m);
    } else {
        ez_rel_begin(m, op, "y = c rg 2^-sh");
        ez_rel_term(m, "c rg", 1, (unsigned)-s->sh, -crg, crg);
        ez_rel_term(m, "y", -1, 0, -(crg << -s->sh), crg << -s->sh);
        ez_rel_end(m);
    }
}

/* ---- execution and the float reference ----------------------------------------------- */

static int64_t floor_div(ez_i128 a, int64_t b, int64_t *rem)
{
    ez_i128 q = a / b, r = a % b;
    if (r < 0)
        q -= 1, r += b;
    *rem = (int64_t)r;
    return (int64_t)q;
}

/* docs/semantics.md "Normalisation". aux rem: the remainder of the proof's one public
 * shift, c T[M] 2^(kmax - k) - y 2^sh in [0, 2^sh) (0 when sh <= 0), kmax and sh from the
 * plan (§1); the output is the same floor(c T[M] 2^(o - 23 - k)). */
static ez_status norm_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    const bool layer = op->kind == EZ_OP_LAYERNORM;
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, false, c->d);
    if (st != EZ_OK)
        return st;
    const ez_table *t;
    st = ez_exec_table(c, &t, EZ_TABLE_RSQRT, EZ_FN_RSQRT, 0, 0);
    if (st != EZ_OK)
        goto out;
    const uint64_t nr = rows.nrows;
    int64_t *asum = NULL, *amean = NULL, *amrem = NULL;
    if (layer && (!(asum = ez_exec_aux(c, EZ_AUX_ROW_SUM, nr)) ||
                  !(amean = ez_exec_aux(c, EZ_AUX_MEAN, nr)) ||
                  !(amrem = ez_exec_aux(c, EZ_AUX_MEAN_REM, nr)))) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    int64_t *aq = ez_exec_aux(c, EZ_AUX_SUMSQ, nr);
    int64_t *av = ez_exec_aux(c, EZ_AUX_VAR, nr);
    int64_t *avr = ez_exec_aux(c, EZ_AUX_VAR_REM, nr);
    int64_t *rem = ez_exec_aux(c, EZ_AUX_REM, n);
    ez_rsq_cols rc;
    if (!aq || !av || !avr || !rem || ez_rsq_cols_get(c, nr, &rc) != EZ_OK) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *in = c->tr->t[op->in[0]];
    int64_t *out = c->tr->t[op->out];
    const int64_t N = (int64_t)rows.len, E = ez_exec_norm_eps(op->in_scale);
    const int s_out = (int)op->out_scale;
    const unsigned kmax = ez_rsq_kmax(nm_vmax(p, op));
    const int sh = nm_shift(op, kmax);
    uint64_t bad = UINT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static) if (nr * rows.len > 16384)
    for (uint64_t r = 0; r < nr; r++) {
        const int64_t *x = in + rows.in_off[r];
        const int64_t xs = rows.in_step, os = rows.out_step;
        int64_t mu = 0;
        if (layer) {
            ez_i128 s = 0;
            for (int64_t j = 0; j < N; j++)
                s += x[j * xs];
            if (s >= LIM62 || s <= -LIM62) {
                bad = r < bad ? r : bad;
                continue;
            }
            asum[r] = (int64_t)s;
            mu = floor_div(s, N, &amrem[r]);
            amean[r] = mu;
        }
        ez_i128 q = 0;
        for (int64_t j = 0; j < N; j++) {
            ez_i128 cj = (ez_i128)x[j * xs] - mu;
            q += cj * cj;
        }
        if (q >= LIM62) {
            bad = r < bad ? r : bad;
            continue;
        }
        aq[r] = (int64_t)q;
        int64_t v = floor_div(q, N, &avr[r]);
        av[r] = v;
        unsigned k;
        const int64_t rs = ez_rsq_cols_set(&rc, t, r, v + E, &k);
        /* y = floor(c r 2^(s_out - 23 - k)) */
        const int ex = s_out - EZ_RSQRT_TABLE_SCALE - (int)k;
        for (int64_t j = 0; j < N; j++) {
            ez_i128 prod = ((ez_i128)x[j * xs] - mu) * rs;
            ez_i128 y = ex >= 0 ? prod * ((ez_i128)1 << ex) : prod >> (-ex); /* arithmetic: floor */
            if (y >= LIM62 || y <= -LIM62) {
                bad = r < bad ? r : bad;
                y = 0;
            }
            /* the proof's remainder: c r 2^(kmax - k) = 2^sh y + rem (k <= kmax when the
             * input is within its bound; otherwise the prover refuses the trace) */
            ez_i128 yr = 0;
            if (sh > 0 && k <= kmax)
                yr = prod * ((ez_i128)1 << (kmax - k)) - y * ((ez_i128)1 << sh);
            out[rows.out_off[r] + j * os] = (int64_t)y;
            rem[rows.out_off[r] + j * os] = (int64_t)yr;
        }
    }
    if (bad != UINT64_MAX) {
        ez_diag_set(c->d,
                    "%s '%s' (line %u): row %" PRIu64 " leaves the safe range 2^62 (input too wide)",
                    ez_op_kind_name(op->kind), op->label, op->line, bad);
        st = EZ_ERR_NUMERIC;
    }
out:
    ez_exec_rows_clear(&rows);
    return st;
}

static void norm_row_f64(const ez_plan_op *op, const ez_exec_rows *rows, uint64_t r, const double *x, double *y)
{
    const int64_t N = (int64_t)rows->len, xs = rows->in_step, ys = rows->out_step;
    double mean = 0, var = 0;
    (void)r;
    if (op->kind == EZ_OP_LAYERNORM) {
        for (int64_t j = 0; j < N; j++)
            mean += x[j * xs];
        mean /= (double)N;
    }
    for (int64_t j = 0; j < N; j++)
        var += (x[j * xs] - mean) * (x[j * xs] - mean);
    var /= (double)N;
    double inv = 1.0 / sqrt(var + EZ_NORM_EPS);
    for (int64_t j = 0; j < N; j++)
        y[j * ys] = (x[j * xs] - mean) * inv;
}

static ez_status norm_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    return ez_floatref_rows(p, op, ft, false, norm_row_f64, d);
}

const ez_op_def ez_op_norm = {
    .exec = norm_exec,
    .floatref = norm_floatref,
    .shape_size = sizeof(nm_shape),
    .shape_init = nm_shape_init,
    .layout = norm_layout,
    .fill = norm_fill,
    .prove = nm_reduce,
    .verify = nm_reduce,
    .walk_bytes = norm_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = norm_relations,
};

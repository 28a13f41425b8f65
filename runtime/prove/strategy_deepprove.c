/* strategy_deepprove — DeepProve's structure (Lagrange Labs, deep-prove zkml/docs
 * "Multi-Head Attention" and "QKV", and its v1 code; read for facts, written anew). Every
 * tensor is padded to powers of two (dense tables), and:
 *
 * MIX contractions (scores q.k, value mixing p.v; runtime/prove/heads.h), claim
 * out~(r) = v with r = (r_heads, r_row, r_col):
 *   0. zeroifier, when a consumer masks the output causally (DeepProve proves
 *      QK_M = QK (.) z + m with a sumcheck over the padded H x S x S cube): the prover
 *      sends v_z = (z (.) a)~(r); with mu drawn, ONE sumcheck
 *          v_z + mu (v - v_z) = sum_x eq(r, x) [z(x) + mu (1 - z(x))] a(x)
 *      leaves a claim on a at its point p (z~(p) the verifier's, runtime/prove/masks.h).
 *      The (1 - z) part is there because our softmax reads the whole scores tensor (its
 *      live selector, not -inf entries, removes the masked ones): it costs one more term
 *      in the same sumcheck, DeepProve's zeroifier otherwise;
 *   1. rescale: acc~(r) = 2^k v + R~(r);
 *   2. the stacked heads: heads padded to Hbar, each head's operands one MLE over the
 *      contracted variables, and ONE degree-2 sumcheck
 *          acc~(r) = mul sum_x sum_{i < Hbar} beta(i, r_heads) A_i(x) B_i(x)
 *      (DeepProve's ConcatMatMul with its beta vector); at its point p the prover sends all
 *      2 Hbar per-head values A_i(p), B_i(p); the verifier checks the last round against
 *      mul sum_i beta_i A_i(p) B_i(p), draws rho over the head variables and recombines
 *          A~(r_row, rho, p) = sum_i eq(rho, i) A_i(p)
 *      (B likewise; a head index B lacks — GQA, whose K/V heads DeepProve v1 replicates
 *      across the R query heads of a group — is divided out as prefix(rho_r, R)).
 *   Soundness: 0 and 2 are sumchecks (<= deg n / |K| each); a wrong v_z makes the batched
 *   claim wrong unless mu hits one value (1/|K|); wrong per-head values recombine to a
 *   wrong claim unless rho is a root of a non-zero multilinear polynomial (<= hv / |K|).
 *
 * PROJ_IN (Q, K, V) and PROJ_OUT (the output projection): strategy_deepprove_pad.c.
 * Everything else: the plain contraction over padded tables. */
#include "config.h"

#include "runtime/prove/strategy_deepprove.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/masks.h"
#include "runtime/prove/strategy_util.h"

/* The polynomial of degree 2 through (0, g0), (1, g1), (2, g2) at x. */
static ez_fe2 interp2(ez_fe2 g0, ez_fe2 g1, ez_fe2 g2, ez_fe2 x)
{
    const ez_fe2 one = ez_fe2_one(), two = ez_fe2_from_fe(2);
    ez_fe2 xm1 = ez_fe2_sub(x, one), xm2 = ez_fe2_sub(x, two);
    ez_fe half = ez_fe_inv(2);
    ez_fe2 t0 = ez_fe2_mul_fe(ez_fe2_mul(g0, ez_fe2_mul(xm1, xm2)), half);
    ez_fe2 t1 = ez_fe2_mul(g1, ez_fe2_mul(x, xm2));
    ez_fe2 t2 = ez_fe2_mul_fe(ez_fe2_mul(g2, ez_fe2_mul(x, xm1)), half);
    return ez_fe2_add(ez_fe2_sub(t0, t1), t2);
}

/* 0. The zeroifier: the claim (r, v) on the output a becomes a claim (p, a~(p)) in *zc
 * (owns its point). Mask row/column: index ids mr, mc of the op. */
static ez_status zeroifier(ez_pctx *c, size_t op, const ez_opview *v, unsigned mr, unsigned mc, const ez_claim *out,
                           ez_claim *zc)
{
    const ez_plan_op *o = &v->op;
    const ez_plan_tensor *to = &v->tensors[o->out];
    const unsigned n = out->nvars;
    const uint64_t size = UINT64_C(1) << n;
    ez_point_blocks ob;
    ez_plan_point_blocks(&ob, o, o->out_axes, to->rank);
    const uint64_t Nr = o->idx_size[mr], Nc = o->idx_size[mc];
    ez_status st = EZ_OK;
    ez_fe *a = NULL;
    ez_fe2 *zp = NULL;
    ez_fe2 vz = ez_fe2_zero();
    /* the row/column coordinates of a padded-cube index */
    const unsigned sr = n - ob.off[mr] - ob.nv[mr], sc = n - ob.off[mc] - ob.nv[mc];
    const uint64_t mrow = (UINT64_C(1) << ob.nv[mr]) - 1, mcol = (UINT64_C(1) << ob.nv[mc]) - 1;
    if (c->prover) {
        uint64_t stride[EZ_MAX_RANK], low = 0, d64[EZ_MAX_RANK];
        for (unsigned x = to->rank; x-- > 0;) {
            stride[x] = UINT64_C(1) << low;
            low += ez_log2_ceil(to->dims[x]);
            d64[x] = to->dims[x];
        }
        a = ez_alloc_array(size, sizeof *a);
        zp = ez_alloc_aligned(size, sizeof *zp);
        if (!a || !zp) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        ez_claim_layout_i64(a, c->tr->t[c->plan->ops[op].out], d64, to->rank, stride);
        /* v_z = (z . a)~(r), z = [i < Nr][j < Nc][j <= i] on every other coordinate */
        for (uint64_t x = 0; x < size; x++) {
            uint64_t i = (x >> sr) & mrow, j = (x >> sc) & mcol;
            zp[x] = ez_fe2_from_fe(i < Nr && j < Nc && j <= i ? a[x] : 0);
        }
        vz = ez_mle_eval_fe2(zp, size, out->point, n);
        ez_work_add(c->work, 0, size, 0);
    }
    if ((st = ez_pctx_msg(c, "deepprove/zeroified", &vz, 1)) != EZ_OK)
        goto out;
    ez_fe2 mu = ez_transcript_challenge_fe2(c->t, "deepprove/mu");
    ez_fe2 one_mu = ez_fe2_sub(ez_fe2_one(), mu);
    if (c->prover)
        for (uint64_t x = 0; x < size; x++) {
            uint64_t i = (x >> sr) & mrow, j = (x >> sc) & mcol;
            zp[x] = i < Nr && j < Nc && j <= i ? ez_fe2_one() : mu; /* z + mu (1 - z) */
        }
    ez_fe2 claim = ez_fe2_add(ez_fe2_mul(mu, out->value), ez_fe2_mul(one_mu, vz));
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, n, 2);
    d.eq_vars = n ? (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) : 0;
    ez_sumcheck_factor f[2] = {{NULL, zp}, {a, NULL}};
    ez_fe2 pt[EZ_SC_MAX_VARS], ev[2];
    if ((st = ez_su_sumcheck(c, "the zeroifier sumcheck", &d, NULL, n ? out->point : NULL, f, claim, pt, ev)) != EZ_OK)
        goto out;
    ez_fe2 z = ez_softmax_live_mle(pt + ob.off[mr], ob.nv[mr], Nr, pt + ob.off[mc], ob.nv[mc], Nc);
    if (!c->prover && !ez_fe2_eq(ev[0], ez_fe2_add(z, ez_fe2_mul(mu, ez_fe2_sub(ez_fe2_one(), z))))) {
        ez_diag_set(c->d, "the zeroifier's mask value is wrong");
        st = EZ_ERR_REJECT;
        goto out;
    }
    st = ez_claim_set(zc, pt, n, ev[1]);
out:
    free(a);
    free(zp);
    return st;
}

/* 2. The stacked-heads sumcheck on both sides: tables ta, tb (prover; [nh][nx]) are bound
 * in place. Out: p (con_vars), the 2 nh per-head values in av, bv. */
static ez_status stacked(ez_pctx *c, const ez_heads *h, const ez_fe2 *beta, ez_fe2 coef, ez_fe2 claim, ez_fe2 *ta,
                         ez_fe2 *tb, ez_fe2 *p, ez_fe2 *av, ez_fe2 *bv)
{
    const uint64_t nh = UINT64_C(1) << h->head_vars;
    uint64_t nx = UINT64_C(1) << h->con_vars;
    ez_status st;
    for (unsigned round = 0; round < h->con_vars; round++) {
        const uint64_t half = nx / 2;
        ez_fe2 g[2] = {ez_fe2_zero(), ez_fe2_zero()}; /* g(0), g(2) */
        if (c->prover) {
            for (uint64_t i = 0; i < nh; i++) {
                const ez_fe2 *A = ta + i * nx, *B = tb + i * nx;
                ez_fe2 s0 = ez_fe2_zero(), s2 = ez_fe2_zero();
                for (uint64_t y = 0; y < half; y++) {
                    ez_fe2 a2 = ez_fe2_sub(ez_fe2_add(A[y + half], A[y + half]), A[y]);
                    ez_fe2 b2 = ez_fe2_sub(ez_fe2_add(B[y + half], B[y + half]), B[y]);
                    s0 = ez_fe2_add(s0, ez_fe2_mul(A[y], B[y]));
                    s2 = ez_fe2_add(s2, ez_fe2_mul(a2, b2));
                }
                g[0] = ez_fe2_add(g[0], ez_fe2_mul(beta[i], s0));
                g[1] = ez_fe2_add(g[1], ez_fe2_mul(beta[i], s2));
            }
            g[0] = ez_fe2_mul(coef, g[0]);
            g[1] = ez_fe2_mul(coef, g[1]);
            ez_work_add(c->work, 0, nh * nx, 0);
        }
        if ((st = ez_pctx_msg(c, "deepprove/round", g, 2)) != EZ_OK)
            return st;
        ez_fe2 rho = ez_transcript_challenge_fe2(c->t, "deepprove/r");
        p[round] = rho;
        claim = interp2(g[0], ez_fe2_sub(claim, g[0]), g[1], rho);
        if (c->prover)
            for (uint64_t i = 0; i < nh; i++)
                for (int k = 0; k < 2; k++) {
                    ez_fe2 *T = (k ? tb : ta) + i * nx;
                    for (uint64_t y = 0; y < half; y++)
                        T[y] = ez_fe2_add(T[y], ez_fe2_mul(rho, ez_fe2_sub(T[y + half], T[y])));
                }
        /* the tables keep their stride nx: entry 0 of each head's block is current */
        if (c->prover && half > 0)
            for (uint64_t i = 0; i < nh; i++)
                for (int k = 0; k < 2; k++) {
                    ez_fe2 *T = k ? tb : ta;
                    memmove(T + i * half, T + i * nx, half * sizeof *T);
                }
        nx = half;
    }
    if (c->prover)
        for (uint64_t i = 0; i < nh; i++) {
            av[i] = ta[i];
            bv[i] = tb[i];
        }
    if ((st = ez_pctx_msg(c, "deepprove/heads-a", av, nh)) != EZ_OK ||
        (st = ez_pctx_msg(c, "deepprove/heads-b", bv, nh)) != EZ_OK)
        return st;
    if (c->prover)
        ez_work_add(c->work, 1, 0, 0);
    ez_fe2 fin = ez_fe2_zero();
    for (uint64_t i = 0; i < nh; i++)
        fin = ez_fe2_add(fin, ez_fe2_mul(beta[i], ez_fe2_mul(av[i], bv[i])));
    /* the verifier's final check (a prover of a false claim goes on: its proof fails) */
    if (!c->prover && !ez_fe2_eq(ez_fe2_mul(coef, fin), claim)) {
        ez_diag_set(c->d, "the stacked-heads sumcheck failed");
        return EZ_ERR_REJECT;
    }
    return EZ_OK;
}

static ez_status mix_reduce(ez_pctx *c, size_t op, ez_opview *v, const ez_heads *h, const ez_claim *out, bool on_acc)
{
    const ez_plan_op *o = &v->op;
    ez_status st = EZ_OK;
    ez_claim zc = {0};
    ez_fe2 *ta = NULL, *tb = NULL, *beta = NULL, *av = NULL, *bv = NULL, *eqrho = NULL;
    const ez_claim *cl = out;
    unsigned mr, mc;
    ez_point_blocks ob;
    ez_plan_point_blocks(&ob, o, o->out_axes, v->tensors[o->out].rank);
    const uint64_t nh = UINT64_C(1) << h->head_vars;

    ez_claim_absorb(c->t, "deepprove/out", out);
    if (!on_acc && ez_heads_mask(c->plan, op, &mr, &mc)) {
        if ((st = zeroifier(c, op, v, mr, mc, out, &zc)) != EZ_OK)
            goto out;
        cl = &zc;
    }
    ez_fe2 acc;
    if ((st = ez_su_rescale(c, op, cl, on_acc, "deepprove/rem", &acc)) != EZ_OK)
        goto out;

    /* beta(i, r_heads) over the padded head cube (head blocks in order) */
    ez_fe2 rh[EZ_PROVE_MAX_VARS];
    unsigned nrh = 0;
    for (unsigned k = 0; k < h->nhead; k++)
        for (unsigned b = 0; b < ob.nv[h->head[k]]; b++)
            rh[nrh++] = cl->point[ob.off[h->head[k]] + b];
    beta = ez_alloc_aligned(nh, sizeof *beta);
    av = ez_alloc_array(nh, sizeof *av);
    bv = ez_alloc_array(nh, sizeof *bv);
    eqrho = ez_alloc_aligned(nh, sizeof *eqrho);
    if (!beta || !av || !bv || !eqrho) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    ez_eq_table(beta, rh, nrh);
    if (c->prover) {
        uint64_t reads = 0;
        if ((st = ez_su_head_tables(o, v->tensors, h, 0, v->data[0], cl->point, &ta, &reads)) != EZ_OK ||
            (st = ez_su_head_tables(o, v->tensors, h, 1, v->data[1], cl->point, &tb, &reads)) != EZ_OK)
            goto out;
        ez_work_add(c->work, 0, reads, ez_einsum_real_work(o, v->tensors));
    }
    ez_fe2 p[EZ_SC_MAX_VARS];
    const ez_fe2 coef = ez_fe2_from_fe(ez_fe_from_i64(o->mul));
    if ((st = stacked(c, h, beta, coef, acc, ta, tb, p, av, bv)) != EZ_OK)
        goto out;

    /* recombine the per-head values at rho */
    ez_fe2 rho[EZ_PROVE_MAX_VARS];
    ez_transcript_challenges_fe2(c->t, "deepprove/rho", rho, h->head_vars);
    ez_eq_table(eqrho, rho, h->head_vars);
    ez_su_blocks bl;
    memset(&bl, 0, sizeof bl);
    for (unsigned k = 0, off = 0; k < h->nhead; k++) {
        bl.at[h->head[k]] = rho + off;
        off += ob.nv[h->head[k]];
    }
    for (unsigned k = 0; k < h->nrow; k++)
        bl.at[h->row[k]] = cl->point + ob.off[h->row[k]];
    for (unsigned k = 0; k < h->ncol; k++)
        bl.at[h->col[k]] = cl->point + ob.off[h->col[k]];
    for (unsigned k = 0, off = 0; k < h->ncon; k++) {
        bl.at[h->con[k]] = p + off;
        off += ez_log2_ceil(o->idx_size[h->con[k]]);
    }
    for (unsigned k = 0; k < 2 && st == EZ_OK; k++) {
        const ez_fe2 *vals = k ? bv : av;
        const bool *has = k ? h->in_b : h->in_a;
        ez_fe2 val = ez_fe2_zero(), div = ez_fe2_one();
        for (uint64_t i = 0; i < nh; i++)
            val = ez_fe2_add(val, ez_fe2_mul(eqrho[i], vals[i]));
        /* replicated over an index the operand lacks: sum_{x < d} eq(rho_x, x) */
        for (unsigned j = 0; j < h->nhead; j++)
            if (!has[h->head[j]])
                div = ez_fe2_mul(div, ez_mle_prefix(bl.at[h->head[j]], ob.nv[h->head[j]], o->idx_size[h->head[j]]));
        if (ez_fe2_is_zero(div)) { /* both sides: no claim can be derived */
            ez_diag_set(c->d, "a replicated head's weight vanishes at rho");
            st = EZ_ERR_REJECT;
            break;
        }
        ez_fe2 pnt[EZ_PROVE_MAX_VARS];
        unsigned nv;
        if ((st = ez_su_operand_point(o, v->tensors, k, &bl, pnt, &nv)) != EZ_OK)
            break;
        ez_claim oc = {.nvars = nv, .point = pnt, .value = ez_fe2_mul(val, ez_fe2_inv(div))};
        st = ez_opview_claim(c, v, op, k, &oc);
    }
out:
    ez_claim_clear(&zc);
    free(ta);
    free(tb);
    free(beta);
    free(av);
    free(bv);
    free(eqrho);
    return st;
}

ez_status ez_strategy_deepprove_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc)
{
    ez_opview v;
    ez_heads h;
    ez_status st = ez_su_heads_view(c, op, &v, &h);
    if (st != EZ_OK) {
        ez_opview_clear(&v);
        return st;
    }
    switch (h.role) {
    case EZ_HEAD_MIX:
        st = mix_reduce(c, op, &v, &h, out, on_acc);
        break;
    case EZ_HEAD_PROJ_IN:
        ez_opview_clear(&v);
        return ez_deepprove_proj_in(c, op, out);
    case EZ_HEAD_PROJ_OUT:
        if (!h.flat_is_split) {
            st = ez_deepprove_proj_out(c, op, &v, &h, out);
            break;
        }
        /* the flat matmul is the split contraction */
        __attribute__((fallthrough));
    default:
        ez_opview_clear(&v);
        return ez_strategy_plain_reduce(c, op, out, true, on_acc);
    }
    ez_opview_clear(&v);
    return st;
}

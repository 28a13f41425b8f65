/* strategy_perhead — zkLLM's structure (Sun, Li, Zhang, "zkLLM: Zero Knowledge Proofs
 * for Large Language Models", CCS 2024, §5 attention): every head is its own matrix
 * product with its own sumcheck — QK^T and PV per head — then the heads are concatenated
 * and projected by one more matmul sumcheck. Softmax stays ours (one op over all heads).
 *
 * A MIX contraction (runtime/prove/heads.h: scores, value mixing, GQA) with claim
 * out~(r) = v, r = (r_heads, r_row, r_col):
 *   1. rescale: acc~(r) = 2^k v + R~(r) (the prover sends R~(r));
 *   2. split: the prover sends a_h = acc_h~(r_row, r_col) for every real head h (acc_h
 *      the head's slice); the verifier checks sum_h eq(r_heads, h) a_h = acc~(r). The
 *      heads' padding is zero, so only real heads enter. If acc~(r) is false some a_h is;
 *   3. per head h: one sumcheck a_h = mul sum_x A_h(x) B_h(x) over the contracted
 *      variables (tables padded to powers of two, as zkLLM pads); its final values are
 *      claims A~(r_row, h, p_h), B~(r_col, h_B, p_h) — one claim per head on each operand,
 *      which the framework's fan-out merge combines at the operand's producer.
 * Soundness: step 2 is an identity (a false a_h is a false claim on one head's sum);
 * each head's sumcheck errs with probability <= 2 nvars / |K| (Thaler §4.1).
 * Every other contraction (projections, the output projection: "one more matmul") is the
 * plain contraction over padded tables. */
#include "config.h"

#include "runtime/prove/strategies.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/strategy_util.h"

ez_status ez_strategy_perhead_reduce(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc)
{
    ez_opview v;
    ez_heads h;
    ez_status st = ez_su_heads_view(c, op, &v, &h);
    if (st != EZ_OK || h.role != EZ_HEAD_MIX) {
        ez_opview_clear(&v);
        return st != EZ_OK ? st : ez_strategy_plain_reduce(c, op, out, true, on_acc);
    }
    const ez_plan_op *o = &v.op;
    ez_fe2 *ta = NULL, *tb = NULL, *vals = NULL;
    uint64_t *real_heads = NULL;
    ez_point_blocks ob;
    ez_plan_point_blocks(&ob, o, o->out_axes, v.tensors[o->out].rank);
    const uint64_t nh = UINT64_C(1) << h.head_vars, nx = UINT64_C(1) << h.con_vars;
    const ez_fe2 coef = ez_fe2_from_fe(ez_fe_from_i64(o->mul));

    ez_claim_absorb(c->t, "perhead/out", out);
    ez_fe2 acc;
    if ((st = ez_su_rescale(c, op, out, on_acc, "perhead/rem", &acc)) != EZ_OK)
        goto out;

    /* the real heads, in order */
    real_heads = ez_alloc_array(nh, sizeof *real_heads);
    vals = ez_alloc_array(nh, sizeof *vals);
    if (!real_heads || !vals) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    uint64_t H = 0, hc[EZ_MAX_IDX];
    for (uint64_t i = 0; i < nh; i++)
        if (ez_su_head_coords(o, &h, i, hc))
            real_heads[H++] = i;
    uint64_t reads = 0;
    if (c->prover) {
        if ((st = ez_su_head_tables(o, v.tensors, &h, 0, v.data[0], out->point, &ta, &reads)) != EZ_OK ||
            (st = ez_su_head_tables(o, v.tensors, &h, 1, v.data[1], out->point, &tb, &reads)) != EZ_OK)
            goto out;
        for (uint64_t j = 0; j < H; j++) {
            ez_fe2 s = ez_fe2_zero();
            const ez_fe2 *a = ta + real_heads[j] * nx, *b = tb + real_heads[j] * nx;
            for (uint64_t x = 0; x < nx; x++)
                s = ez_fe2_add(s, ez_fe2_mul(a[x], b[x]));
            vals[j] = ez_fe2_mul(coef, s);
        }
        ez_work_add(c->work, 0, reads, ez_einsum_real_work(o, v.tensors));
    }
    if ((st = ez_pctx_msg(c, "perhead/heads", vals, H)) != EZ_OK)
        goto out;
    /* 2. the heads' values recombine to the claim */
    ez_fe2 sum = ez_fe2_zero();
    for (uint64_t j = 0; j < H; j++) {
        ez_fe2 w = ez_fe2_one();
        ez_su_head_coords(o, &h, real_heads[j], hc);
        for (unsigned k = 0; k < h.nhead; k++) {
            unsigned x = h.head[k], n = ob.nv[x];
            for (unsigned b = 0; b < n; b++) {
                ez_fe2 r = out->point[ob.off[x] + b];
                w = ez_fe2_mul(w, (hc[k] >> (n - 1 - b)) & 1 ? r : ez_fe2_sub(ez_fe2_one(), r));
            }
        }
        sum = ez_fe2_add(sum, ez_fe2_mul(w, vals[j]));
    }
    if (!c->prover && !ez_fe2_eq(sum, acc)) {
        ez_diag_set(c->d, "the per-head values do not add up to the output claim");
        st = EZ_ERR_REJECT;
        goto out;
    }
    /* 3. one sumcheck per head */
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, h.con_vars, 2);
    for (uint64_t j = 0; j < H && st == EZ_OK; j++) {
        uint64_t i = real_heads[j];
        ez_fe2 pt[EZ_SC_MAX_VARS], ev[2];
        ez_sumcheck_factor f[2] = {{NULL, ta ? ta + i * nx : NULL}, {NULL, tb ? tb + i * nx : NULL}};
        if ((st = ez_su_sumcheck(c, "a per-head sumcheck", &d, &coef, NULL, f, vals[j], pt, ev)) != EZ_OK)
            goto out;
        /* the head's coordinates as boolean points of its indices' blocks */
        ez_fe2 hbits[EZ_PROVE_MAX_VARS];
        ez_su_blocks bl;
        memset(&bl, 0, sizeof bl);
        ez_su_head_coords(o, &h, i, hc);
        unsigned used = 0;
        for (unsigned k = 0; k < h.nhead; k++) {
            unsigned x = h.head[k], n = ob.nv[x];
            for (unsigned b = 0; b < n; b++)
                hbits[used + b] = ez_fe2_from_fe((hc[k] >> (n - 1 - b)) & 1);
            bl.at[x] = hbits + used;
            used += n;
        }
        for (unsigned k = 0; k < h.nrow; k++)
            bl.at[h.row[k]] = out->point + ob.off[h.row[k]];
        for (unsigned k = 0; k < h.ncol; k++)
            bl.at[h.col[k]] = out->point + ob.off[h.col[k]];
        for (unsigned k = 0, off = 0; k < h.ncon; k++) {
            bl.at[h.con[k]] = pt + off;
            off += ez_log2_ceil(o->idx_size[h.con[k]]);
        }
        for (unsigned k = 0; k < 2 && st == EZ_OK; k++) {
            ez_claim cl = {0};
            ez_fe2 p[EZ_PROVE_MAX_VARS];
            unsigned nv;
            if ((st = ez_su_operand_point(o, v.tensors, k, &bl, p, &nv)) != EZ_OK)
                break;
            cl.nvars = nv;
            cl.point = p;
            cl.value = ev[k];
            st = ez_opview_claim(c, &v, op, k, &cl);
        }
    }
out:
    free(ta);
    free(tb);
    free(vals);
    free(real_heads);
    ez_opview_clear(&v);
    return st;
}

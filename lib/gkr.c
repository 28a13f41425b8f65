/* gkr — see gkr.h; protocol and soundness in docs/protocol-kernel-logup.md §3. */
#include "lib/gkr.h"

#include <stdlib.h>
#include <string.h>

#include "lib/fe2_vec.h"
#include "lib/sumcheck.h"

/* Loops shorter than this run serially: thread start-up costs more. */
#define GKR_PAR_MIN 4096

struct ez_gkr_frac_tree {
    unsigned n;
    const ez_fe *leaf_pb;  /* borrowed leaves: at most one of leaf_pb / leaf_pe, */
    const ez_fe2 *leaf_pe; /* neither for unit numerators */
    const ez_fe2 *leaf_q;  /* or NULL: unit leaves made by leaf_fn */
    ez_gkr_leaf_fn leaf_fn;
    void *leaf_ctx;
    ez_fe2 *pbuf, *qbuf; /* layers 0..n-1; layer k at offset 2^k - 1 (2^k entries) */
    ez_fe2 root_p, root_q;
    bool spent; /* proven: the layers were reused as scratch */
};

static ez_fe2 *layer_p(const ez_gkr_frac_tree *t, unsigned k)
{
    return t->pbuf + ((UINT64_C(1) << k) - 1);
}

static ez_fe2 *layer_q(const ez_gkr_frac_tree *t, unsigned k)
{
    return t->qbuf + ((UINT64_C(1) << k) - 1);
}

void *ez_gkr_alloc(size_t n, size_t size)
{
    return ez_alloc_huge(n, size);
}

/* Layer loops run in chunks of this many nodes, each chunk one call of a lane kernel
 * (lib/fe2_vec.h). */
#define GKR_CHUNK 1024

/* for each chunk [x0, x0 + len) of [0, h): BODY, in parallel when h is large */
#define GKR_CHUNKS(h, BODY)                                                                                  \
    do {                                                                                                     \
        const int64_t nch_ = ((int64_t)(h) + GKR_CHUNK - 1) / GKR_CHUNK;                                     \
        const bool par_ = (int64_t)(h) >= GKR_PAR_MIN; /* (the pragma's text sees no macro arguments) */       \
        _Pragma("omp parallel for schedule(static) if (par_)")                                                \
        for (int64_t c_ = 0; c_ < nch_; c_++) {                                                              \
            const size_t x0 = (size_t)c_ * GKR_CHUNK;                                                        \
            const size_t len = (size_t)(h) - x0 < GKR_CHUNK ? (size_t)(h) - x0 : GKR_CHUNK;                  \
            BODY;                                                                                            \
        }                                                                                                    \
    } while (0)

/* Leaf numerator i as an extension element. */
static ez_fe2 leaf_p(const ez_gkr_frac_tree *t, uint64_t i)
{
    if (t->leaf_pb)
        return ez_fe2_from_fe(t->leaf_pb[i]);
    return t->leaf_pe ? t->leaf_pe[i] : ez_fe2_one();
}

/* Leaves made on demand are filled in chunks of this many (two on the stack: 8 KiB). */
#define GKR_LEAF_CHUNK 256

/* Leaf denominator i. */
static ez_fe2 leaf_q(const ez_gkr_frac_tree *t, uint64_t i)
{
    if (t->leaf_q)
        return t->leaf_q[i];
    ez_fe2 q;
    t->leaf_fn(t->leaf_ctx, i, i + 1, &q);
    return q;
}

/* dst[x] = lambda + q_(off + x), x < h, q the leaf denominators (the unit leaf layer's
 * B tables, lib/gkr.c's prover). */
static void leaves_plus(ez_fe2 *dst, const ez_gkr_frac_tree *t, uint64_t off, int64_t h, ez_fe2 lambda)
{
    if (t->leaf_q) {
        const ez_fe2 *q = t->leaf_q + off;
#pragma omp parallel for schedule(static) if (h >= GKR_PAR_MIN)
        for (int64_t x = 0; x < h; x++)
            dst[x] = ez_fe2_add(lambda, q[x]);
        return;
    }
    const int64_t nch = (h + GKR_LEAF_CHUNK - 1) / GKR_LEAF_CHUNK;
#pragma omp parallel for schedule(static) if (h >= GKR_PAR_MIN)
    for (int64_t c = 0; c < nch; c++) {
        uint64_t x0 = (uint64_t)c * GKR_LEAF_CHUNK, x1 = x0 + GKR_LEAF_CHUNK < (uint64_t)h ? x0 + GKR_LEAF_CHUNK : (uint64_t)h;
        t->leaf_fn(t->leaf_ctx, off + x0, off + x1, dst + x0);
        for (uint64_t x = x0; x < x1; x++)
            dst[x] = ez_fe2_add(lambda, dst[x]);
    }
}

unsigned ez_gkr_frac_tree_nvars(const ez_gkr_frac_tree *t)
{
    return t->n;
}

bool ez_gkr_frac_tree_unit(const ez_gkr_frac_tree *t)
{
    return !t->leaf_pb && !t->leaf_pe;
}

void ez_gkr_frac_tree_free(ez_gkr_frac_tree *t)
{
    if (!t)
        return;
    free(t->pbuf);
    free(t->qbuf);
    free(t);
}

static ez_status tree_new(ez_gkr_frac_tree **out, unsigned n, const ez_fe *p_base, const ez_fe2 *p_ext,
                          const ez_fe2 *q_ext, ez_gkr_leaf_fn fill, void *ctx)
{
    ez_status st = EZ_OK;
    ez_gkr_frac_tree *t = NULL;
    *out = NULL;
    if (n > EZ_GKR_MAX_VARS || !q_ext == !fill || (p_base && p_ext) || (fill && (p_base || p_ext)))
        return EZ_ERR_INVALID;
    t = calloc(1, sizeof *t);
    if (!t)
        return EZ_ERR_NOMEM;
    t->n = n;
    t->leaf_pb = p_base;
    t->leaf_pe = p_ext;
    t->leaf_q = q_ext;
    t->leaf_fn = fill;
    t->leaf_ctx = ctx;
    if (n > 0) {
        size_t total = (size_t)((UINT64_C(1) << n) - 1);
        t->pbuf = ez_gkr_alloc(total, sizeof(ez_fe2));
        t->qbuf = ez_gkr_alloc(total, sizeof(ez_fe2));
        if (!t->pbuf || !t->qbuf) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        /* The layer above the leaves, by numerator kind: unit numerators add the two
         * denominators; base numerators cost two base multiplies, not an extension one. */
        int64_t h = (int64_t)(UINT64_C(1) << (n - 1));
        ez_fe2 *pp = layer_p(t, n - 1), *pq = layer_q(t, n - 1);
        if (p_base) {
#pragma omp parallel for schedule(static) if (h >= GKR_PAR_MIN)
            for (int64_t x = 0; x < h; x++) {
                ez_fe2 qL = q_ext[x], qR = q_ext[x + h];
                pp[x] = ez_fe2_add(ez_fe2_mul_fe(qR, p_base[x]), ez_fe2_mul_fe(qL, p_base[x + h]));
                pq[x] = ez_fe2_mul(qL, qR);
            }
        } else if (p_ext) {
            GKR_CHUNKS(h, ez_fe2_frac_layer(pp + x0, pq + x0, p_ext + x0, q_ext + x0, p_ext + h + x0, q_ext + h + x0,
                                            len));
        } else if (q_ext) {
            GKR_CHUNKS(h, ez_fe2_frac_layer_unit(pp + x0, pq + x0, q_ext + x0, q_ext + h + x0, len));
        } else {
            /* leaves made chunk by chunk: both children of a chunk of nodes */
            const int64_t nch = (h + GKR_LEAF_CHUNK - 1) / GKR_LEAF_CHUNK;
#pragma omp parallel for schedule(static) if (h >= GKR_PAR_MIN)
            for (int64_t c = 0; c < nch; c++) {
                ez_fe2 qa[GKR_LEAF_CHUNK], qb[GKR_LEAF_CHUNK];
                uint64_t x0 = (uint64_t)c * GKR_LEAF_CHUNK;
                uint64_t x1 = x0 + GKR_LEAF_CHUNK < (uint64_t)h ? x0 + GKR_LEAF_CHUNK : (uint64_t)h;
                fill(ctx, x0, x1, qa);
                fill(ctx, x0 + (uint64_t)h, x1 + (uint64_t)h, qb);
                ez_fe2_frac_layer_unit(pp + x0, pq + x0, qa, qb, x1 - x0);
            }
        }
        for (unsigned k = n - 1; k-- > 0;) {
            int64_t hk = (int64_t)(UINT64_C(1) << k);
            const ez_fe2 *cp = layer_p(t, k + 1), *cq = layer_q(t, k + 1);
            ez_fe2 *op = layer_p(t, k), *oq = layer_q(t, k);
            GKR_CHUNKS(hk, ez_fe2_frac_layer(op + x0, oq + x0, cp + x0, cq + x0, cp + hk + x0, cq + hk + x0, len));
        }
    }
    if (n == 0) {
        t->root_p = leaf_p(t, 0);
        t->root_q = leaf_q(t, 0);
    } else {
        t->root_p = layer_p(t, 0)[0];
        t->root_q = layer_q(t, 0)[0];
    }
    *out = t;
    t = NULL;
out:
    ez_gkr_frac_tree_free(t);
    return st;
}

ez_status ez_gkr_frac_tree_new(ez_gkr_frac_tree **out, unsigned n, const ez_fe *p_base, const ez_fe2 *p_ext,
                               const ez_fe2 *q_ext)
{
    if (!q_ext) {
        *out = NULL;
        return EZ_ERR_INVALID;
    }
    return tree_new(out, n, p_base, p_ext, q_ext, NULL, NULL);
}

ez_status ez_gkr_frac_tree_new_unit(ez_gkr_frac_tree **out, unsigned n, ez_gkr_leaf_fn fill, void *ctx)
{
    if (!fill) {
        *out = NULL;
        return EZ_ERR_INVALID;
    }
    return tree_new(out, n, NULL, NULL, NULL, fill, ctx);
}

void ez_gkr_frac_tree_root(const ez_gkr_frac_tree *t, ez_fe2 *p, ez_fe2 *q)
{
    *p = t->root_p;
    *q = t->root_q;
}

uint64_t ez_gkr_frac_proof_bytes(unsigned n, bool unit)
{
    if (n == 0)
        return 0;
    uint64_t b = 64;
    for (unsigned k = 1; k < n; k++)
        b += 16 * (3 * (uint64_t)k + (unit && k + 1 == n ? 2 : 4));
    return b;
}

/* The layer-k sumcheck shapes (both sides build them identically). Variables are bound
 * most significant first, which matches the halves layout of the layers.
 *
 * General layer, with A = pL + lambda qL (a multilinear table the prover builds):
 *   P_k(r) + lambda Q_k(r) = sum_y eq(r, y) [pL qR + pR qL + lambda qL qR](y)
 *                          = sum_y eq(r, y) [A qR + pR qL](y)
 * factors 0..3 = A, qR, pR, qL: two products with unit coefficients instead of three
 * products and three coefficient multiplies per point.
 *
 * Leaf layer of a unit tree (pL = pR = 1), with B = mu + q (mu = the layer's random
 * challenge) and sum_y eq(r, y) = 1:
 *   mu^2 + mu P_k(r) + Q_k(r) = sum_y eq(r, y) [BL BR](y)
 * factors 0, 1 = BL, BR: a single product, and B costs an addition per entry. */
static void layer_desc(ez_sumcheck_desc *d, unsigned k, bool unit_leaf)
{
    ez_sumcheck_desc_init(d, k, unit_leaf ? 2 : 4);
    if (!unit_leaf) {
        d->nterms = 2;
        d->term[0].nf = 2;
        d->term[0].f[0] = 0;
        d->term[0].f[1] = 1;
        d->term[1].nf = 2;
        d->term[1].f[0] = 2;
        d->term[1].f[1] = 3;
    }
    d->eq_vars = (UINT64_C(1) << k) - 1; /* k < EZ_GKR_MAX_VARS < 64 */
    for (unsigned j = 0; j < k; j++)
        d->order[j] = j;
}

/* The layer's claim from (P_k(r), Q_k(r)); lambda is mu on the unit leaf layer. */
static ez_fe2 layer_claim(bool unit_leaf, ez_fe2 lambda, ez_fe2 P, ez_fe2 Q)
{
    if (unit_leaf)
        return ez_fe2_add(ez_fe2_mul(lambda, ez_fe2_add(lambda, P)), Q);
    return ez_fe2_add(P, ez_fe2_mul(lambda, Q));
}

/* The sumcheck's evals back to e[4] = pL, pR, qL, qR at r'. */
static void layer_evals(ez_fe2 e[4], const ez_fe2 *ev, bool unit_leaf, ez_fe2 lambda)
{
    if (unit_leaf) {
        e[0] = ez_fe2_one();
        e[1] = ez_fe2_one();
        e[2] = ez_fe2_sub(ev[0], lambda);
        e[3] = ez_fe2_sub(ev[1], lambda);
    } else {
        e[0] = ez_fe2_sub(ev[0], ez_fe2_mul(lambda, ev[3]));
        e[1] = ev[2];
        e[2] = ev[3];
        e[3] = ev[1];
    }
}

/* From the four child values at r' and the challenge c, the claims on the child layer
 * at (c, r'): the child's most significant variable selects the half. */
static void fold_claims(const ez_fe2 e[4], ez_fe2 c, ez_fe2 *P, ez_fe2 *Q)
{
    *P = ez_fe2_add(e[0], ez_fe2_mul(c, ez_fe2_sub(e[1], e[0])));
    *Q = ez_fe2_add(e[2], ez_fe2_mul(c, ez_fe2_sub(e[3], e[2])));
}

/* The end of a layer, the same on both sides: draw the challenge c that selects the
 * child's half, make it the point's first coordinate and fold the four child values e
 * into the claims (P, Q) on the child layer. The other k coordinates (rnew: the layer's
 * sumcheck point; none for layer 1) follow c. */
static void next_layer(ez_transcript *tr, const ez_fe2 e[4], const ez_fe2 *rnew, unsigned k, ez_fe2 *point, ez_fe2 *P,
                       ez_fe2 *Q)
{
    ez_fe2 c = ez_transcript_challenge_fe2(tr, "gkr/c");
    point[0] = c;
    if (k > 0)
        memcpy(point + 1, rnew, k * sizeof *rnew);
    fold_claims(e, c, P, Q);
}

ez_status ez_gkr_frac_prove(ez_transcript *tr, ez_gkr_frac_tree *t, ez_writer *proof, ez_fe2 *point,
                            ez_fe2 *p_claim, ez_fe2 *q_claim)
{
    ez_status st = EZ_OK;
    ez_sumcheck_proof scp = {0};
    const unsigned n = t->n;
    const bool unit = ez_gkr_frac_tree_unit(t);
    ez_fe2 P, Q;
    if (t->spent)
        return EZ_ERR_INVALID;
    ez_gkr_frac_tree_root(t, &P, &Q);
    /* The step for layer k reads layer k+1 only; layer k itself is done with, so its
     * memory holds A (2^k entries, in layer k's p) or BL, BR (layer n-1's p and q). */
    t->spent = true;
    if (n > 0) {
        /* Layer 1 has two nodes: send them; the verifier checks the root identity
         * directly (a zero-variable "sumcheck"). */
        ez_fe2 e[4];
        if (n == 1) {
            e[0] = leaf_p(t, 0);
            e[1] = leaf_p(t, 1);
            e[2] = leaf_q(t, 0);
            e[3] = leaf_q(t, 1);
        } else {
            e[0] = layer_p(t, 1)[0];
            e[1] = layer_p(t, 1)[1];
            e[2] = layer_q(t, 1)[0];
            e[3] = layer_q(t, 1)[1];
        }
        ez_writer_fe2(proof, e, 4);
        ez_transcript_absorb_fe2(tr, "gkr/layer1", e, 4);
        next_layer(tr, e, NULL, 0, point, &P, &Q);
    }
    for (unsigned k = 1; k < n; k++) {
        /* Layer k -> k+1 (the GKR step of eprint 2023/1284: one sumcheck per layer,
         * the numerator and denominator claims batched by lambda). */
        const bool leaf = k + 1 == n, unit_leaf = leaf && unit;
        ez_fe2 lambda = ez_transcript_challenge_fe2(tr, "gkr/lambda");
        ez_fe2 claim = layer_claim(unit_leaf, lambda, P, Q);
        ez_sumcheck_desc d;
        layer_desc(&d, k, unit_leaf);
        const int64_t h = (int64_t)(UINT64_C(1) << k);
        const ez_fe2 *cq = leaf ? t->leaf_q : layer_q(t, k + 1); /* NULL: leaves on demand (unit) */
        ez_sumcheck_factor f[4];
        memset(f, 0, sizeof f);
        if (unit_leaf) {
            ez_fe2 *BL = layer_p(t, k), *BR = layer_q(t, k);
            leaves_plus(BL, t, 0, h, lambda);
            leaves_plus(BR, t, (uint64_t)h, h, lambda);
            f[0].ext = BL;
            f[1].ext = BR;
        } else {
            ez_fe2 *A = layer_p(t, k);
            const ez_fe l7 = ez_fe_mul(lambda.c1, EZ_FE2_W);
            if (leaf && t->leaf_pb) {
                const ez_fe *pb = t->leaf_pb;
#pragma omp parallel for schedule(static) if (h >= GKR_PAR_MIN)
                for (int64_t x = 0; x < h; x++)
                    A[x] = ez_fe2_mul_add_pre(cq[x], lambda, l7, ez_fe2_from_fe(pb[x]));
                f[2].base = pb + h;
            } else {
                const ez_fe2 *cp = leaf ? t->leaf_pe : layer_p(t, k + 1);
                GKR_CHUNKS(h, ez_fe2_axpy(A + x0, cp + x0, lambda, cq + x0, len));
                f[2].ext = cp + h;
            }
            f[0].ext = A;
            f[1].ext = cq + h;
            f[3].ext = cq;
        }
        ez_fe2 rnew[EZ_GKR_MAX_VARS], ev[4], e[4];
        st = ez_sumcheck_prove(tr, &d, NULL, point, f, claim, &scp, rnew, ev);
        if (st != EZ_OK) {
            st = st == EZ_ERR_NOMEM ? EZ_ERR_NOMEM : EZ_ERR_INTERNAL;
            goto out;
        }
        ez_sumcheck_proof_write(proof, &scp);
        ez_sumcheck_proof_clear(&scp);
        layer_evals(e, ev, unit_leaf, lambda);
        next_layer(tr, e, rnew, k, point, &P, &Q);
    }
    *p_claim = P;
    *q_claim = Q;
out:
    ez_sumcheck_proof_clear(&scp);
    return st;
}

ez_status ez_gkr_frac_verify(ez_transcript *tr, unsigned n, bool unit, ez_fe2 p_root, ez_fe2 q_root,
                             ez_reader *proof, ez_fe2 *point, ez_fe2 *p_claim, ez_fe2 *q_claim)
{
    ez_status st = EZ_OK;
    ez_sumcheck_proof scp = {0};
    ez_fe2 P = p_root, Q = q_root;
    if (n > EZ_GKR_MAX_VARS)
        return EZ_ERR_INVALID;
    if (n > 0) {
        ez_fe2 e[4];
        if (!ez_reader_fe2(proof, e, 4))
            return EZ_ERR_REJECT;
        /* The root must be the sum of the two layer-1 fractions, projectively. */
        ez_fe2 pr = ez_fe2_add(ez_fe2_mul(e[0], e[3]), ez_fe2_mul(e[1], e[2]));
        ez_fe2 qr = ez_fe2_mul(e[2], e[3]);
        if (!ez_fe2_eq(pr, P) || !ez_fe2_eq(qr, Q))
            return EZ_ERR_REJECT;
        ez_transcript_absorb_fe2(tr, "gkr/layer1", e, 4);
        next_layer(tr, e, NULL, 0, point, &P, &Q);
    }
    for (unsigned k = 1; k < n; k++) {
        const bool unit_leaf = unit && k + 1 == n;
        ez_fe2 lambda = ez_transcript_challenge_fe2(tr, "gkr/lambda");
        ez_fe2 claim = layer_claim(unit_leaf, lambda, P, Q);
        ez_sumcheck_desc d;
        layer_desc(&d, k, unit_leaf);
        st = ez_sumcheck_proof_read(proof, &d, &scp);
        if (st != EZ_OK) {
            st = st == EZ_ERR_NOMEM ? EZ_ERR_NOMEM : EZ_ERR_REJECT;
            goto out;
        }
        ez_fe2 rnew[EZ_GKR_MAX_VARS], ev[4], e[4];
        /* Checks every round and the final value eq(r, r') * (the layer's products). */
        st = ez_sumcheck_verify(tr, &d, NULL, point, claim, &scp, rnew, ev);
        ez_sumcheck_proof_clear(&scp);
        if (st != EZ_OK) {
            st = EZ_ERR_REJECT;
            goto out;
        }
        layer_evals(e, ev, unit_leaf, lambda);
        next_layer(tr, e, rnew, k, point, &P, &Q);
    }
    *p_claim = P;
    *q_claim = Q;
out:
    ez_sumcheck_proof_clear(&scp);
    return st;
}

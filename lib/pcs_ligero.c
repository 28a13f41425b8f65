/* pcs_ligero — the Ligero backend of lib/pcs.h (schemes EZ_PCS_SCHEME_LIGERO and
 * EZ_PCS_SCHEME_LIGERO_P1): row encoding and the column Merkle tree, the Ligero opening
 * at one point of S, and the two sumchecks that batch all claims into that point.
 * Protocol, parameters and soundness: docs/protocol-kernel-pcs.md §1-6.
 *
 * Memory layout of the prover: the codewords of all rows, column-major
 * (enc[j * rows + i] = codeword of row i at position j, j < 4 cols), so a Merkle leaf
 * and an opened column are one contiguous run, and the message (systematic code:
 * positions j < cols) is the first cols columns. */
#include <stdlib.h>
#include <string.h>

#include "lib/merkle.h"
#include "lib/mle.h"
#include "lib/ntt.h"
#include "lib/pcs.h"
#include "lib/pcs_internal.h"
#include "lib/sumcheck.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

/* Rows encoded together before their columns are transposed into place. */
#define EZ_PCS_ROW_BLOCK 8u

/* ---- commit ------------------------------------------------------------------------- */

/* Pieces in increasing offset order, for filling rows. */
typedef struct {
    uint64_t off, len;
    const ez_fe *data;
} slot_ref;

static int slot_ref_cmp(const void *a, const void *b)
{
    const slot_ref *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* msg[0..cols-1] = S[row * cols ..]: real entries of the slots it overlaps, else 0. */
static void fill_row(ez_fe *msg, uint64_t row, size_t cols, const slot_ref *slots, size_t ns)
{
    uint64_t lo = row * cols, hi = lo + cols;
    memset(msg, 0, cols * sizeof *msg);
    /* First slot whose real data ends after lo (offsets increase; data ends increase
     * too, because slots are disjoint and in order). */
    size_t a = 0, b = ns;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (slots[m].off + slots[m].len <= lo)
            a = m + 1;
        else
            b = m;
    }
    for (size_t k = a; k < ns && slots[k].off < hi; k++) {
        uint64_t s = slots[k].off > lo ? slots[k].off : lo;
        uint64_t e = slots[k].off + slots[k].len < hi ? slots[k].off + slots[k].len : hi;
        if (s < e)
            memcpy(msg + (s - lo), slots[k].data + (s - slots[k].off), (size_t)(e - s) * sizeof *msg);
    }
}

/* Scatter nr encoded rows (buf[r * ncode + j]) into the column-major matrix: column j
 * gets the run dst[j * rows + 0..nr-1]. Full blocks of 8 rows move as 8x8 register
 * transposes (one 64-byte store per column). */
static void scatter_rows(ez_fe *dst, size_t rows, const ez_fe *buf, size_t ncode, size_t nr)
{
    size_t j = 0;
#if defined(__AVX512F__)
    if (nr == 8) {
        const __m512i i0 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
        const __m512i i1 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
        bool aligned = ((uintptr_t)dst % 64) == 0 && rows % 8 == 0;
        for (; j + 8 <= ncode; j += 8) {
            __m512i r[8], t[8], s[8];
            for (int k = 0; k < 8; k++)
                r[k] = _mm512_loadu_si512((const void *)(buf + k * ncode + j));
            /* t: pairs of rows interleaved; s: quads; then 128-bit lanes give columns. */
            for (int k = 0; k < 8; k += 2) {
                t[k] = _mm512_unpacklo_epi64(r[k], r[k + 1]);
                t[k + 1] = _mm512_unpackhi_epi64(r[k], r[k + 1]);
            }
            s[0] = _mm512_permutex2var_epi64(t[0], i0, t[2]); /* cols 0,4 of rows 0-3 */
            s[1] = _mm512_permutex2var_epi64(t[0], i1, t[2]); /* cols 2,6 */
            s[2] = _mm512_permutex2var_epi64(t[1], i0, t[3]); /* cols 1,5 */
            s[3] = _mm512_permutex2var_epi64(t[1], i1, t[3]); /* cols 3,7 */
            s[4] = _mm512_permutex2var_epi64(t[4], i0, t[6]); /* rows 4-7 likewise */
            s[5] = _mm512_permutex2var_epi64(t[4], i1, t[6]);
            s[6] = _mm512_permutex2var_epi64(t[5], i0, t[7]);
            s[7] = _mm512_permutex2var_epi64(t[5], i1, t[7]);
            __m512i c[8];
            c[0] = _mm512_shuffle_i64x2(s[0], s[4], 0x44);
            c[4] = _mm512_shuffle_i64x2(s[0], s[4], 0xEE);
            c[2] = _mm512_shuffle_i64x2(s[1], s[5], 0x44);
            c[6] = _mm512_shuffle_i64x2(s[1], s[5], 0xEE);
            c[1] = _mm512_shuffle_i64x2(s[2], s[6], 0x44);
            c[5] = _mm512_shuffle_i64x2(s[2], s[6], 0xEE);
            c[3] = _mm512_shuffle_i64x2(s[3], s[7], 0x44);
            c[7] = _mm512_shuffle_i64x2(s[3], s[7], 0xEE);
            ez_fe *d = dst + j * rows;
            /* Aligned runs (rows a multiple of 8) bypass the cache: the matrix is far
             * larger than it and is next read column by column for hashing. */
            if (aligned)
                for (int k = 0; k < 8; k++)
                    _mm512_stream_si512((void *)(d + k * rows), c[k]);
            else
                for (int k = 0; k < 8; k++)
                    _mm512_storeu_si512((void *)(d + k * rows), c[k]);
        }
        _mm_sfence();
    }
#endif
    for (; j < ncode; j++)
        for (size_t r = 0; r < nr; r++)
            dst[j * rows + r] = buf[r * ncode + j];
}

static ez_status build_tree(ez_pcs_prover *p)
{
    size_t cols = (size_t)1 << p->com.log_cols, ncode = cols << EZ_PCS_LOG_BLOWUP;
    size_t rows = (size_t)p->com.rows;
    ez_digest *leaves = ez_alloc_aligned(ncode, sizeof *leaves);
    if (leaves == NULL)
        return EZ_ERR_NOMEM;
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < ncode; j++)
        ez_merkle_hash_leaf(&leaves[j], p->enc + j * rows, rows);
    ez_status st = ez_merkle_new(&p->tree, leaves, p->com.log_cols + EZ_PCS_LOG_BLOWUP);
    free(leaves);
    if (st == EZ_OK)
        memcpy(p->com.root, ez_merkle_root(p->tree)->h, 32);
    return st;
}

ez_status ez_pcs_ligero_commit(ez_pcs_prover *p, const ez_fe *const *polys)
{
    ez_status st = EZ_ERR_NOMEM;
    slot_ref *slots = NULL;
    ez_ntt_lde *lde = NULL;
    size_t npolys = (size_t)p->com.npolys;
    size_t cols = (size_t)1 << p->com.log_cols, ncode = cols << EZ_PCS_LOG_BLOWUP;
    size_t rows = (size_t)p->com.rows;
    if (rows > SIZE_MAX / ncode)
        goto out;
    size_t nslots = (size_t)p->com.npieces;
    slots = ez_alloc_array(nslots, sizeof *slots);
    p->enc = ez_alloc_aligned(ncode * rows, sizeof *p->enc);
    if (slots == NULL || p->enc == NULL)
        goto out;
    for (size_t i = 0; i < npolys; i++)
        for (uint64_t j = p->com.pfirst[i]; j < p->com.pfirst[i + 1]; j++) {
            slots[j].off = p->com.poff[j];
            slots[j].len = (uint64_t)1 << p->com.pbits[j];
            slots[j].data = polys[i] + p->com.pstart[j];
        }
    qsort(slots, nslots, sizeof *slots, slot_ref_cmp);
    if ((st = ez_ntt_lde_new(&lde, p->com.log_cols, EZ_PCS_LOG_BLOWUP)) != EZ_OK)
        goto out;

    /* Rows in blocks: encode EZ_PCS_ROW_BLOCK rows, then scatter them column by column
     * so each column receives a contiguous run (the transposition that makes columns
     * contiguous for hashing and opening). */
    size_t nblocks = (rows + EZ_PCS_ROW_BLOCK - 1) / EZ_PCS_ROW_BLOCK;
    int failed = 0;
#pragma omp parallel
    {
        ez_fe *buf = ez_alloc_aligned(EZ_PCS_ROW_BLOCK * ncode + cols, sizeof *buf);
        if (buf == NULL) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t b = 0; b < nblocks; b++) {
            if (buf == NULL)
                continue;
            ez_fe *scratch = buf + EZ_PCS_ROW_BLOCK * ncode;
            size_t i0 = b * EZ_PCS_ROW_BLOCK;
            size_t nr = rows - i0 < EZ_PCS_ROW_BLOCK ? rows - i0 : EZ_PCS_ROW_BLOCK;
            for (size_t r = 0; r < nr; r++) {
                /* the message is the codeword's first cols entries: encode in place */
                fill_row(buf + r * ncode, i0 + r, cols, slots, nslots);
                ez_ntt_lde_apply(lde, buf + r * ncode, buf + r * ncode, scratch);
            }
            scatter_rows(p->enc + i0, rows, buf, ncode, nr);
        }
        free(buf);
    }
    st = EZ_ERR_NOMEM;
    if (failed)
        goto out;
    if ((st = build_tree(p)) != EZ_OK)
        goto out;
    st = EZ_OK;
out:
    ez_ntt_lde_free(lde);
    free(slots);
    return st;
}

void ez_pcs_ligero_prover_write(ez_writer *w, const ez_pcs_prover *p)
{
    size_t ncode = (size_t)1 << (p->com.log_cols + EZ_PCS_LOG_BLOWUP);
    ez_writer_u64(w, (uint64_t)(ncode * p->com.rows));
    ez_writer_bytes(w, p->enc, ncode * (size_t)p->com.rows * sizeof *p->enc);
    ez_writer_bytes(w, ez_merkle_leaves(p->tree), ncode * sizeof(ez_digest));
}

ez_status ez_pcs_ligero_prover_read(ez_reader *r, ez_pcs_prover *p)
{
    ez_status st = EZ_ERR_FORMAT;
    ez_digest *leaves = NULL;
    unsigned depth = p->com.log_cols + EZ_PCS_LOG_BLOWUP;
    size_t ncode = (size_t)1 << depth, rows = (size_t)p->com.rows;
    uint64_t count = ez_reader_u64(r);
    if (r->failed || rows > SIZE_MAX / 8 / ncode || count != (uint64_t)ncode * rows ||
        ez_reader_remaining(r) / 8 < count)
        goto out;
    st = EZ_ERR_NOMEM;
    p->enc = ez_alloc_aligned(ncode * rows, sizeof *p->enc);
    leaves = ez_alloc_array(ncode, sizeof *leaves);
    if (p->enc == NULL || leaves == NULL)
        goto out;
    st = EZ_ERR_FORMAT;
    if (!ez_reader_fe(r, p->enc, ncode * rows))
        goto out;
    if (!ez_reader_bytes(r, leaves, ncode * sizeof *leaves) || !ez_merkle_digests_canonical(leaves, ncode))
        goto out;
    if ((st = ez_merkle_new(&p->tree, leaves, depth)) != EZ_OK)
        goto out;
    st = EZ_ERR_FORMAT;
    if (memcmp(ez_merkle_root(p->tree)->h, p->com.root, 32) != 0)
        goto out;
    st = EZ_OK;
out:
    free(leaves);
    return st;
}

/* ---- the Ligero opening at one point of S ---------------------------------------------
 * (Ligero §4, in the tensor form of Brakedown §4.) With r = (r_row, r_col):
 * S(r) = sum_i eq(r_row, i) sum_j eq(r_col, j) M[i][j] = <eq(r_col), y>,
 * y = eq(r_row)^T M. The prover sends y and the proximity row w = a^T M for random a;
 * the verifier checks <eq(r_col), y> = value, then at EZ_PCS_QUERIES random codeword
 * positions that Enc(y) and Enc(w) agree with the combinations of the opened column. */

/* Sorted distinct query positions (n_out of them) drawn from the transcript. */
static size_t draw_queries(ez_transcript *t, uint64_t ncode, uint64_t *q)
{
    for (size_t k = 0; k < EZ_PCS_QUERIES; k++)
        q[k] = ez_transcript_challenge_index(t, "pcs/query", ncode);
    return ez_sort_unique_u64(q, EZ_PCS_QUERIES);
}

/* prox: send the proximity row w (false only for EZ_PCS_OPEN_NO_PROXIMITY). */
static ez_status ligero_open(const ez_pcs_prover *p, ez_transcript *t, const ez_fe2 *r, bool prox, ez_writer *w)
{
    ez_status st = EZ_ERR_NOMEM;
    const ez_pcs_commitment *c = &p->com;
    unsigned lc = c->log_cols, lr = c->nvars_total - lc;
    size_t cols = (size_t)1 << lc, rows = (size_t)c->rows, ncode = cols << EZ_PCS_LOG_BLOWUP;
    ez_fe2 *e = ez_alloc_aligned((size_t)1 << lr, sizeof *e);
    ez_fe2 *a = ez_alloc_aligned(rows, sizeof *a);
    ez_fe2 *y = ez_alloc_aligned(cols, sizeof *y);
    ez_fe2 *pw = ez_alloc_aligned(cols, sizeof *pw);
    ez_digest *mp = NULL;
    uint64_t q[EZ_PCS_QUERIES];
    if (e == NULL || a == NULL || y == NULL || pw == NULL)
        goto out;
    ez_eq_table(e, r, lr);
    if (prox)
        ez_transcript_challenges_fe2(t, "pcs/proximity", a, rows);
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < cols; j++) {
        y[j] = ez_fe2_dot_base(e, p->enc + j * rows, rows);
        if (prox)
            pw[j] = ez_fe2_dot_base(a, p->enc + j * rows, rows);
    }
    ez_writer_bytes(w, y, cols * sizeof *y);
    if (prox)
        ez_writer_bytes(w, pw, cols * sizeof *pw);
    ez_transcript_absorb_fe2(t, "pcs/eval-row", y, cols);
    if (prox)
        ez_transcript_absorb_fe2(t, "pcs/proximity-row", pw, cols);
    size_t nq = draw_queries(t, ncode, q);
    for (size_t k = 0; k < nq; k++)
        ez_writer_bytes(w, p->enc + (size_t)q[k] * rows, rows * sizeof *p->enc);
    size_t nmp = ez_merkle_batch_count(lc + EZ_PCS_LOG_BLOWUP, q, nq);
    mp = ez_alloc_array(nmp, sizeof *mp);
    if (mp == NULL)
        goto out;
    if ((st = ez_merkle_batch_open(p->tree, q, nq, mp)) != EZ_OK)
        goto out;
    ez_merkle_digests_write(w, mp, nmp);
    st = EZ_OK;
out:
    free(e);
    free(a);
    free(y);
    free(pw);
    free(mp);
    return st;
}

/* One evaluation equation on the row combination y: sum_{x < lim} eq(zl, x) y[co + x]
 * = value (zl has nzl coordinates, co + lim <= cols). */
typedef struct {
    const ez_fe2 *zl;
    unsigned nzl;
    uint64_t co, lim;
    ez_fe2 value;
} lg_check;

/* The Ligero verifier at row point r (lr coordinates): every check on y, then the
 * column tests of y and (prox) of the proximity row. */
static ez_status ligero_verify(const ez_pcs_commitment *c, ez_transcript *t, const ez_fe2 *r,
                               const lg_check *checks, size_t nchecks, bool prox, ez_reader *rd)
{
    ez_status st = EZ_ERR_NOMEM;
    unsigned lc = c->log_cols, lr = c->nvars_total - lc, depth = lc + EZ_PCS_LOG_BLOWUP;
    size_t cols = (size_t)1 << lc, rows = (size_t)c->rows, ncode = cols << EZ_PCS_LOG_BLOWUP;
    ez_fe2 *e = ez_alloc_aligned((size_t)1 << lr, sizeof *e);
    ez_fe2 *ec = ez_alloc_aligned(cols, sizeof *ec);
    ez_fe2 *a = ez_alloc_aligned(rows, sizeof *a);
    ez_fe2 *y = ez_alloc_aligned(cols, sizeof *y);
    ez_fe2 *pw = ez_alloc_aligned(cols, sizeof *pw);
    ez_fe *code = ez_alloc_aligned(4 * ncode, sizeof *code), *scratch = ez_alloc_aligned(4 * cols, sizeof *scratch);
    ez_fe *colv = ez_alloc_aligned(EZ_PCS_QUERIES * rows, sizeof *colv);
    ez_digest *leaves = ez_alloc_array(EZ_PCS_QUERIES, sizeof *leaves), *mp = NULL;
    ez_ntt_lde *lde = NULL;
    uint64_t q[EZ_PCS_QUERIES];
    if (!e || !ec || !a || !y || !pw || !code || !scratch || !colv || !leaves)
        goto out;
    if ((st = ez_ntt_lde_new(&lde, lc, EZ_PCS_LOG_BLOWUP)) != EZ_OK)
        goto out;
    ez_eq_table(e, r, lr);
    if (prox)
        ez_transcript_challenges_fe2(t, "pcs/proximity", a, rows);
    st = EZ_ERR_REJECT;
    if (!ez_reader_fe(rd, (ez_fe *)y, 2 * cols) || (prox && !ez_reader_fe(rd, (ez_fe *)pw, 2 * cols)))
        goto out;
    /* The evaluation equations: value = sum_x eq(zl, x) y[co + x] (for one claim at
     * (r_row, r_col): S(r) = <eq(r_col), y>). */
    for (size_t k = 0; k < nchecks; k++) {
        const lg_check *ck = &checks[k];
        if (ck->nzl > lc || ck->lim > ((uint64_t)1 << ck->nzl) || ck->co + ck->lim > cols)
            goto out;
        ez_eq_table(ec, ck->zl, ck->nzl);
        ez_fe2 acc = ez_fe2_zero();
        for (uint64_t j = 0; j < ck->lim; j++)
            acc = ez_fe2_add(acc, ez_fe2_mul(ec[j], y[ck->co + j]));
        if (!ez_fe2_eq(acc, ck->value))
            goto out;
    }
    ez_transcript_absorb_fe2(t, "pcs/eval-row", y, cols);
    if (prox)
        ez_transcript_absorb_fe2(t, "pcs/proximity-row", pw, cols);
    size_t nq = draw_queries(t, ncode, q);
    if (!ez_reader_fe(rd, colv, nq * rows))
        goto out;
    for (size_t k = 0; k < nq; k++)
        ez_merkle_hash_leaf(&leaves[k], colv + k * rows, rows);
    size_t nmp = ez_merkle_batch_count(depth, q, nq);
    if (nmp == SIZE_MAX)
        goto out;
    st = EZ_ERR_NOMEM;
    /* at most EZ_PCS_QUERIES * depth siblings */
    mp = ez_alloc_array(nmp ? nmp : 1, sizeof *mp);
    if (mp == NULL)
        goto out;
    st = EZ_ERR_REJECT;
    if (!ez_merkle_digests_read(rd, mp, nmp))
        goto out;
    ez_digest root;
    memcpy(root.h, c->root, 32);
    st = ez_merkle_batch_verify(&root, depth, q, leaves, nq, mp, nmp);
    if (st != EZ_OK)
        goto out;
    st = EZ_ERR_REJECT;
    /* Column checks: at each opened position the combinations of the column equal the
     * encodings of y and w (the code is linear, so an honest prover always passes). */
    ez_fe *y0 = code, *y1 = code + ncode, *w0 = code + 2 * ncode, *w1 = code + 3 * ncode;
    /* Enc of an extension vector: the code is F_p-linear, so encode both coordinates. The
     * (up to) four encodings run side by side, each single-threaded: an NTT of one row is
     * too short to split across threads (measured: a 16384-column opening spent most of
     * its time in thread barriers). */
    int nenc = prox ? 4 : 2;
#pragma omp parallel for schedule(static, 1) if (cols >= 1024)
    for (int k = 0; k < nenc; k++) {
        ez_fe *dst = code + (size_t)k * ncode, *scr = scratch + (size_t)k * cols;
        const ez_fe2 *src = k < 2 ? y : pw;
        for (size_t j = 0; j < cols; j++)
            dst[j] = k % 2 == 0 ? src[j].c0 : src[j].c1;
        ez_ntt_lde_apply(lde, dst, dst, scr);
    }
    for (size_t k = 0; k < nq; k++) {
        const ez_fe *col = colv + k * rows;
        ez_fe2 ye = ez_fe2_dot_base(e, col, rows);
        if (!ez_fe2_eq(ye, ez_fe2_make(y0[q[k]], y1[q[k]])))
            goto out;
        if (prox && !ez_fe2_eq(ez_fe2_dot_base(a, col, rows), ez_fe2_make(w0[q[k]], w1[q[k]])))
            goto out;
    }
    st = EZ_OK;
out:
    ez_ntt_lde_free(lde);
    free(e);
    free(ec);
    free(a);
    free(y);
    free(pw);
    free(code);
    free(scratch);
    free(colv);
    free(leaves);
    free(mp);
    return st;
}

/* ---- batching all claims into one opening -------------------------------------------
 * A claim poly_k(z_k) = v_k is sum_x w_k(x) S(x) with w_k(x) = eq(z_k, local(x)) on the
 * entries of poly_k's pieces. Over the matrix M (rows x cols), the weight on one piece
 * (2^b entries at an aligned offset, position s in its polynomial) is eq(z_top, s / 2^b)
 * times a product of a row part and a column part ("terms", rterm below): the piece's
 * rows (row weights eq(z_hi, row), column vector eq(z_lo)) when it spans whole rows, or
 * — for a piece inside one row — that row and eq(z_low) at the piece's column offset.
 * Terms whose column vectors are equal share a group g (every piece of a claim that
 * spans rows has the same column vector; claims at one point share theirs). With
 * b_g the group's column vector and A_g(i) = sum_{t in g} rho^k_t a_t(i):
 *     sum_k rho^k v_k = sum_g A_g^T M b_g.
 * Two sumchecks (Thaler §4.1) reduce this to ONE point of S without any table of the
 * stacked size:
 *   1. columns: sum_{g, j} B(g, j) V(g, j) with B(g, .) = b_g and V(g, .) = A_g^T M (the
 *      row combination of the group's own rows: O(claimed slot sizes) to build), column
 *      variables bound first. At (r_g, r_col) the verifier computes B itself and the
 *      prover sends v_g = V_g(r_col) for every group (checked against V(r_g, r_col)).
 *   2. rows: with gamma, sum_g gamma^g v_g = sum_i A*(i) u(i), A* = sum_g gamma^g A_g
 *      (public), u = M eq(r_col) (one pass over the matrix). At r_row the verifier
 *      computes A*(r_row) and is left with u(r_row) = S(r_row, r_col): the Ligero
 *      opening of §3 at that point.
 * Soundness: rho (n/|F|), the sumchecks (2 (lg + lc) / |F| and 2 lr / |F|), gamma
 * (ng/|F|), then the Ligero opening (docs/protocol-kernel-pcs.md §4). */

/* One claim on a polynomial that fills its slot (len = 2^nvars): poly(z) = S(slot, z)
 * exactly, so the opening needs no sumcheck. With padding this shortcut would let the
 * padding entries contribute, so it is taken only without padding. */
static bool direct_point(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n, ez_fe2 *point)
{
    if (n != 1)
        return false;
    size_t i = claims[0].poly;
    unsigned nv = c->nvars[i], top = c->nvars_total - nv;
    if (c->lens[i] != ((uint64_t)1 << nv) || (c->snv && c->snv[i])) /* one piece, cube order */
        return false;
    uint64_t slot = c->offsets[i] >> nv;
    for (unsigned l = 0; l < top; l++)
        point[l] = ez_fe2_from_fe((slot >> (top - 1 - l)) & 1);
    for (unsigned l = 0; l < nv; l++)
        point[top + l] = claims[0].point[l];
    return true;
}

/* A column vector b(co + x) = eq(zl, x) for x < lim (zl has nzl coordinates, lim <=
 * 2^nzl, co a multiple of 2^nzl, co + 2^nzl <= cols), zero elsewhere. */
typedef struct {
    const ez_fe2 *zl;
    unsigned nzl;
    uint64_t co, lim;
} colvec;

/* The row part of a term, times rho^k: SLOT rows r0 + x for x < full with weights
 * eq(zh, x) (zh: hi coordinates; r0 a multiple of 2^hi), or ONE row r0 with weight w. */
typedef struct {
    bool slot;
    uint64_t r0, full;
    unsigned hi;
    const ez_fe2 *zh;
    ez_fe2 w, coef;
    size_t group;
} rterm;

static bool colvec_eq(const colvec *a, const colvec *b)
{
    return a->nzl == b->nzl && a->co == b->co && a->lim == b->lim &&
           (a->nzl == 0 || memcmp(a->zl, b->zl, a->nzl * sizeof *a->zl) == 0);
}

/* Split the claims into terms, one per piece of the claimed polynomial, and group their
 * column vectors (both sides, from public data, in claim order). terms and groups need
 * one entry per (claim, piece). */
static void make_terms(const ez_pcs_commitment *c, const ez_pcs_pterm *pt, size_t npt, rterm *terms,
                       size_t *nterms, colvec *groups, size_t *ngroups)
{
    unsigned lc = c->log_cols;
    uint64_t cols = (uint64_t)1 << lc;
    size_t nt = 0, ng = 0;
    for (size_t x = 0; x < npt; x++) {
        {
            /* the piece (full, 2^b entries at poff): weight coef * eq(zf, .) over it
             * (ez_pcs_piece_terms: coef = rho^k eq over the bits it fixes) */
            unsigned b = pt[x].b;
            uint64_t off = c->poff[pt[x].piece];
            const ez_fe2 *zl = pt[x].zf;
            ez_fe2 coef = pt[x].coef;
            rterm tk;
            colvec bk;
            if (b > lc) {
                unsigned hi = b - lc;
                tk = (rterm){.slot = true, .r0 = off >> lc, .full = (uint64_t)1 << hi, .hi = hi, .zh = zl, .coef = coef};
                bk = (colvec){.zl = zl + hi, .nzl = lc, .co = 0, .lim = cols};
            } else {
                tk = (rterm){.slot = false, .r0 = off >> lc, .w = ez_fe2_one(), .coef = coef};
                bk = (colvec){.zl = zl, .nzl = b, .co = off & (cols - 1), .lim = (uint64_t)1 << b};
            }
            size_t g = 0;
            while (g < ng && !colvec_eq(&groups[g], &bk))
                g++;
            if (g == ng)
                groups[ng++] = bk;
            tk.group = g;
            terms[nt++] = tk;
        }
    }
    *nterms = nt;
    *ngroups = ng;
}

/* Both sides: the claims' piece terms (ez_pcs_piece_terms, with the store of their points)
 * and make_terms' terms and groups, in arrays it allocates into *pts, *zstore, *terms,
 * *groups (the caller frees them, also on failure). EZ_OK or EZ_ERR_NOMEM. */
static ez_status claim_terms(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                             ez_pcs_pterm **pts, ez_fe2 **zstore, rterm **terms, size_t *nt, colvec **groups,
                             size_t *ng)
{
    size_t npc = 0;
    if (ez_pcs_piece_terms(c, claims, n, rho, pts, &npc, zstore) != EZ_OK)
        return EZ_ERR_NOMEM;
    *terms = ez_alloc_array(npc ? npc : 1, sizeof **terms);
    *groups = ez_alloc_array(npc ? npc : 1, sizeof **groups);
    if (*terms == NULL || *groups == NULL)
        return EZ_ERR_NOMEM;
    make_terms(c, *pts, npc, *terms, nt, *groups, ng);
    return EZ_OK;
}

/* a_t(r_row) (times rho^k) over lr row variables, for the verifier. */
static ez_fe2 rterm_eval(const rterm *t, const ez_fe2 *r, unsigned lr)
{
    ez_fe2 v;
    if (t->slot)
        v = ez_fe2_mul(ez_eq_bool(r, lr - t->hi, t->r0 >> t->hi), ez_mle_prefix_dot(r + (lr - t->hi), t->zh, t->hi, t->full));
    else
        v = ez_fe2_mul(t->w, ez_eq_bool(r, lr, t->r0));
    return ez_fe2_mul(v, t->coef);
}

/* b_g(r_col) over lc column variables, for the verifier. */
static ez_fe2 colvec_eval(const colvec *b, const ez_fe2 *r, unsigned lc)
{
    unsigned top = lc - b->nzl;
    return ez_fe2_mul(ez_eq_bool(r, top, b->co >> b->nzl), ez_mle_prefix_dot(r + top, b->zl, b->nzl, b->lim));
}

/* Sumcheck 1: B * V over lg + lc variables (group bits first in the index), the column
 * variables bound first so every group ends at the same r_col. */
static void cols_desc(ez_sumcheck_desc *d, unsigned lg, unsigned lc)
{
    ez_sumcheck_desc_init(d, lg + lc, 2);
    for (unsigned j = 0; j < lc; j++)
        d->order[j] = lg + j;
    for (unsigned j = 0; j < lg; j++)
        d->order[lc + j] = j;
}

/* V[g * cols + j] = sum over the terms t of group g of sum_i a_t(i) M[i][j] (times
 * rho^k): each term reads only its own rows. OpenMP over columns. */
static ez_status group_rows(const ez_pcs_prover *p, const rterm *terms, size_t nt, ez_fe2 *V)
{
    size_t cols = (size_t)1 << p->com.log_cols, rows = (size_t)p->com.rows;
    ez_fe2 **w = ez_alloc_array(nt, sizeof *w);
    ez_status st = EZ_ERR_NOMEM;
    if (w == NULL)
        return st;
    for (size_t t = 0; t < nt; t++) {
        const rterm *x = &terms[t];
        if (!x->slot)
            continue;
        if ((w[t] = ez_alloc_aligned((size_t)1 << x->hi, sizeof(ez_fe2))) == NULL)
            goto out;
        ez_eq_table(w[t], x->zh, x->hi);
        for (uint64_t r = 0; r < x->full; r++)
            w[t][r] = ez_fe2_mul(w[t][r], x->coef);
    }
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < cols; j++) {
        const ez_fe *col = p->enc + j * rows;
        for (size_t t = 0; t < nt; t++) {
            const rterm *x = &terms[t];
            ez_fe2 v = x->slot ? ez_fe2_dot_base(w[t], col + x->r0, (size_t)x->full)
                               : ez_fe2_mul_fe(ez_fe2_mul(x->w, x->coef), col[x->r0]);
            V[x->group * cols + j] = ez_fe2_add(V[x->group * cols + j], v);
        }
    }
    st = EZ_OK;
out:
    for (size_t t = 0; t < nt; t++)
        free(w[t]);
    free(w);
    return st;
}

/* u[i] = sum_j e[j] M[i][j] for every row (one pass over the systematic part of the
 * column-major matrix, blocks of rows accumulated in 192 bits). */
#define EZ_PCS_UBLOCK 64u
static void column_combo(const ez_pcs_prover *p, const ez_fe2 *e, ez_fe2 *u)
{
    size_t cols = (size_t)1 << p->com.log_cols, rows = (size_t)p->com.rows;
    size_t nblocks = (rows + EZ_PCS_UBLOCK - 1) / EZ_PCS_UBLOCK;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t b = 0; b < nblocks; b++) {
        unsigned __int128 a0[EZ_PCS_UBLOCK] = {0}, a1[EZ_PCS_UBLOCK] = {0};
        uint64_t t0[EZ_PCS_UBLOCK] = {0}, t1[EZ_PCS_UBLOCK] = {0};
        size_t i0 = b * EZ_PCS_UBLOCK, nr = rows - i0 < EZ_PCS_UBLOCK ? rows - i0 : EZ_PCS_UBLOCK;
        for (size_t j = 0; j < cols; j++) {
            const ez_fe *col = p->enc + j * rows + i0;
            uint64_t c0 = e[j].c0, c1 = e[j].c1;
            for (size_t r = 0; r < nr; r++) {
                unsigned __int128 p0 = (unsigned __int128)c0 * col[r], p1 = (unsigned __int128)c1 * col[r];
                a0[r] += p0;
                t0[r] += a0[r] < p0;
                a1[r] += p1;
                t1[r] += a1[r] < p1;
            }
        }
        /* 2^128 = -2^32 (mod p) since 2^96 = -1 */
        for (size_t r = 0; r < nr; r++) {
            ez_fe top0 = ez_fe_mul(ez_fe_from_u64(t0[r]), (ez_fe)1 << 32);
            ez_fe top1 = ez_fe_mul(ez_fe_from_u64(t1[r]), (ez_fe)1 << 32);
            u[i0 + r] = ez_fe2_make(ez_fe_sub(ez_fe_reduce128(a0[r]), top0), ez_fe_sub(ez_fe_reduce128(a1[r]), top1));
        }
    }
}

/* gamma^g for g < ng. */
static void powers(ez_fe2 *out, size_t n, ez_fe2 x)
{
    ez_fe2 pw = ez_fe2_one();
    for (size_t i = 0; i < n; i++) {
        out[i] = pw;
        pw = ez_fe2_mul(pw, x);
    }
}

ez_status ez_pcs_ligero_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, bool prox,
                            ez_fe2 rho, ez_fe2 claim, ez_writer *proof)
{
    const ez_pcs_commitment *c = &p->com;
    ez_status st;
    rterm *terms = NULL;
    ez_pcs_pterm *pts = NULL;
    ez_fe2 *zstore = NULL;
    colvec *groups = NULL;
    ez_fe2 *B = NULL, *V = NULL, *v = NULL, *gp = NULL, *ec = NULL, *A = NULL, *u = NULL;
    ez_sumcheck_proof sp;
    memset(&sp, 0, sizeof sp);
    ez_fe2 point[EZ_SC_MAX_VARS], evals[2];
    if (direct_point(c, claims, n, point))
        return ligero_open(p, t, point, prox, proof);
    unsigned lc = c->log_cols, lr = c->nvars_total - lc;
    size_t cols = (size_t)1 << lc, rows = (size_t)c->rows;
    size_t nt, ng;
    if ((st = claim_terms(c, claims, n, rho, &pts, &zstore, &terms, &nt, &groups, &ng)) != EZ_OK)
        goto out;
    unsigned lg = ez_log2_ceil(ng);
    if (lg + lc > EZ_SC_MAX_VARS) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    st = EZ_ERR_NOMEM;
    /* sumcheck 1 over (group, column) */
    size_t ncv = cols << lg;
    B = ez_alloc_array(ncv, sizeof *B); /* zeroed: padding groups */
    V = ez_alloc_array(ncv, sizeof *V);
    v = ez_alloc_array(ng, sizeof *v);
    gp = ez_alloc_array(ng, sizeof *gp);
    if (B == NULL || V == NULL || v == NULL || gp == NULL)
        goto out;
    for (size_t g = 0; g < ng; g++) {
        ez_eq_table(B + g * cols + groups[g].co, groups[g].zl, groups[g].nzl);
        for (uint64_t x = groups[g].lim; x < ((uint64_t)1 << groups[g].nzl); x++)
            B[g * cols + groups[g].co + x] = ez_fe2_zero();
    }
    if ((st = group_rows(p, terms, nt, V)) != EZ_OK)
        goto out;
    ez_sumcheck_desc d;
    cols_desc(&d, lg, lc);
    ez_sumcheck_factor f[2] = {{NULL, B}, {NULL, V}};
    const ez_sumcheck_factor *hf = p->test_sumcheck_hook ? p->test_sumcheck_hook(p->test_sumcheck_ctx, &d, f) : NULL;
    if ((st = ez_sumcheck_prove(t, &d, NULL, NULL, hf ? hf : f, claim, &sp, point, evals)) != EZ_OK)
        goto out;
    ez_sumcheck_proof_write(proof, &sp);
    ez_sumcheck_proof_clear(&sp);
    ez_fe2 rcol[EZ_SC_MAX_VARS];
    memcpy(rcol, point + lg, lc * sizeof *rcol);
    for (size_t g = 0; g < ng; g++)
        v[g] = ez_mle_eval_fe2(V + g * cols, cols, rcol, lc);
    ez_writer_bytes(proof, v, ng * sizeof *v);
    ez_transcript_absorb_fe2(t, "pcs/col-evals", v, ng);
    free(B);
    free(V);
    B = V = NULL;

    /* sumcheck 2 over the rows: sum_g gamma^g v_g = sum_i A*(i) u(i) */
    powers(gp, ng, ez_transcript_challenge_fe2(t, "pcs/gamma"));
    ez_fe2 claim2 = ez_fe2_zero();
    for (size_t g = 0; g < ng; g++)
        claim2 = ez_fe2_add(claim2, ez_fe2_mul(gp[g], v[g]));
    size_t nrow = (size_t)1 << lr;
    st = EZ_ERR_NOMEM;
    ec = ez_alloc_aligned(cols, sizeof *ec);
    A = ez_alloc_array(nrow, sizeof *A);
    u = ez_alloc_array(nrow, sizeof *u); /* rows past the matrix stay zero */
    if (ec == NULL || A == NULL || u == NULL)
        goto out;
    ez_eq_table(ec, rcol, lc);
    column_combo(p, ec, u);
    for (size_t k = 0; k < nt; k++) {
        const rterm *x = &terms[k];
        ez_fe2 cg = ez_fe2_mul(gp[x->group], x->coef);
        if (!x->slot) {
            A[x->r0] = ez_fe2_add(A[x->r0], ez_fe2_mul(cg, x->w));
            continue;
        }
        ez_fe2 *e = ez_alloc_aligned((size_t)1 << x->hi, sizeof *e);
        if (e == NULL)
            goto out;
        ez_eq_table(e, x->zh, x->hi);
        for (uint64_t r = 0; r < x->full; r++)
            A[x->r0 + r] = ez_fe2_add(A[x->r0 + r], ez_fe2_mul(cg, e[r]));
        free(e);
    }
    (void)rows;
    ez_sumcheck_desc d2;
    ez_sumcheck_desc_init(&d2, lr, 2);
    ez_sumcheck_factor f2[2] = {{NULL, A}, {NULL, u}};
    ez_fe2 rrow[EZ_SC_MAX_VARS];
    hf = p->test_sumcheck_hook ? p->test_sumcheck_hook(p->test_sumcheck_ctx, &d2, f2) : NULL;
    if ((st = ez_sumcheck_prove(t, &d2, NULL, NULL, hf ? hf : f2, claim2, &sp, rrow, evals)) != EZ_OK)
        goto out;
    ez_sumcheck_proof_write(proof, &sp);
    /* the Ligero opening of S at (r_row, r_col) (ligero_open reads the row part) */
    memcpy(rrow + lr, rcol, lc * sizeof *rcol);
    st = ligero_open(p, t, rrow, prox, proof);
out:
    ez_sumcheck_proof_clear(&sp);
    free(terms);
    free(pts);
    free(zstore);
    free(groups);
    free(B);
    free(V);
    free(v);
    free(gp);
    free(ec);
    free(A);
    free(u);
    return st;
}

ez_status ez_pcs_ligero_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                              bool prox, ez_fe2 rho, ez_fe2 claim, ez_reader *proof)
{
    ez_status st = EZ_ERR_INVALID;
    ez_sumcheck_proof sp;
    rterm *terms = NULL;
    ez_pcs_pterm *pts = NULL;
    ez_fe2 *zstore = NULL;
    colvec *groups = NULL;
    ez_fe2 *v = NULL, *gp = NULL;
    memset(&sp, 0, sizeof sp);
    ez_fe2 point[EZ_SC_MAX_VARS], evals[2];
    unsigned lc = com->log_cols, lr = com->nvars_total - lc;
    if (direct_point(com, claims, n, point)) {
        lg_check one = {.zl = point + lr, .nzl = lc, .co = 0, .lim = (uint64_t)1 << lc, .value = claims[0].value};
        st = ligero_verify(com, t, point, &one, 1, prox, proof);
        goto out;
    }
    size_t nt, ng;
    if ((st = claim_terms(com, claims, n, rho, &pts, &zstore, &terms, &nt, &groups, &ng)) != EZ_OK)
        goto out;
    unsigned lg = ez_log2_ceil(ng);
    st = EZ_ERR_INVALID;
    if (lg + lc > EZ_SC_MAX_VARS)
        goto out;
    /* sumcheck 1: columns */
    ez_sumcheck_desc d;
    cols_desc(&d, lg, lc);
    st = ez_sumcheck_proof_read(proof, &d, &sp);
    if (st == EZ_OK)
        st = ez_sumcheck_verify(t, &d, NULL, NULL, claim, &sp, point, evals);
    ez_sumcheck_proof_clear(&sp);
    if (st != EZ_OK) {
        if (st != EZ_ERR_NOMEM)
            st = EZ_ERR_REJECT;
        goto out;
    }
    st = EZ_ERR_NOMEM;
    v = ez_alloc_array(ng, sizeof *v);
    gp = ez_alloc_array(ng, sizeof *gp);
    if (v == NULL || gp == NULL)
        goto out;
    st = EZ_ERR_REJECT;
    if (!ez_reader_fe(proof, (ez_fe *)v, 2 * ng))
        goto out;
    ez_transcript_absorb_fe2(t, "pcs/col-evals", v, ng);
    const ez_fe2 *rg = point;
    ez_fe2 rcol[EZ_SC_MAX_VARS];
    memcpy(rcol, point + lg, lc * sizeof *rcol);
    /* B(r_g, r_col) is public; V(r_g, r_col) must be the groups' values combined */
    ez_fe2 b_sum = ez_fe2_zero(), v_sum = ez_fe2_zero();
    for (size_t g = 0; g < ng; g++) {
        ez_fe2 e = ez_eq_bool(rg, lg, g);
        b_sum = ez_fe2_add(b_sum, ez_fe2_mul(e, colvec_eval(&groups[g], rcol, lc)));
        v_sum = ez_fe2_add(v_sum, ez_fe2_mul(e, v[g]));
    }
    if (!ez_fe2_eq(b_sum, evals[0]) || !ez_fe2_eq(v_sum, evals[1]))
        goto out;
    /* sumcheck 2: rows */
    powers(gp, ng, ez_transcript_challenge_fe2(t, "pcs/gamma"));
    ez_fe2 claim2 = ez_fe2_zero();
    for (size_t g = 0; g < ng; g++)
        claim2 = ez_fe2_add(claim2, ez_fe2_mul(gp[g], v[g]));
    ez_sumcheck_desc d2;
    ez_sumcheck_desc_init(&d2, lr, 2);
    ez_fe2 rrow[EZ_SC_MAX_VARS];
    st = ez_sumcheck_proof_read(proof, &d2, &sp);
    if (st == EZ_OK)
        st = ez_sumcheck_verify(t, &d2, NULL, NULL, claim2, &sp, rrow, evals);
    if (st != EZ_OK) {
        if (st != EZ_ERR_NOMEM)
            st = EZ_ERR_REJECT;
        goto out;
    }
    st = EZ_ERR_REJECT;
    ez_fe2 a_sum = ez_fe2_zero();
    for (size_t k = 0; k < nt; k++)
        a_sum = ez_fe2_add(a_sum, ez_fe2_mul(gp[terms[k].group], rterm_eval(&terms[k], rrow, lr)));
    if (!ez_fe2_eq(a_sum, evals[0]))
        goto out;
    /* left: u(r_row) = S(r_row, r_col), the Ligero opening */
    lg_check one = {.zl = rcol, .nzl = lc, .co = 0, .lim = (uint64_t)1 << lc, .value = evals[1]};
    st = ligero_verify(com, t, rrow, &one, 1, prox, proof);
out:
    if (st == EZ_ERR_REJECT)
        proof->failed = true;
    ez_sumcheck_proof_clear(&sp);
    free(terms);
    free(pts);
    free(zstore);
    free(groups);
    free(v);
    free(gp);
    return st;
}

/* logup — see logup.h; protocol, layout and soundness in docs/protocol-kernel-logup.md. The
 * tables' rows and the columns they accept are lib/logup_rows.c, the multiplicities
 * lib/logup_mult.c. */
#include "lib/logup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lib/gkr.h"
#include "lib/logup_rows.h"
#include "lib/mle.h"

/* A RANGES table's pieces below 2^(kT - LU_TABLE_CUT) rows share one tree (§2). */
#define LU_TABLE_CUT 4u

/* ---- the leaf layout ------------------------------------------------------------------
 * Segments: the table (2^kT leaves), a tree ("instance") of its own, the first; then
 * each looked-up column c (2^k_c leaves, k_c = ceil(log2 len_c); a RANGES column's
 * binary pieces), sorted by size (largest first; ties: columns in order) and laid end to
 * end. Total S = sum of the column segment sizes. The column leaves are cut into one
 * tree per set bit of S (at most 2^cap each), largest first: because the sizes are
 * decreasing powers of two, every segment lies inside one instance at an offset that is
 * a multiple of its size, and no instance has padding beyond its segments' own.
 *
 * Leaves: a looked-up row i is (1, alpha - f_i); a column's padding rows look up table
 * row 0, i.e. they are (1, alpha - t_0), and the table's numerator at row 0 is
 * -(m_0 + npad) with npad the total number of padding rows (public). So every leaf of
 * a column instance has numerator 1 (a unit tree, lib/gkr.h: the cheaper leaf layer),
 * and m stays the count of real rows. Table rows j >= nrows are padding leaves (0, 1). */
typedef struct {
    int64_t col;  /* looked-up column index, or -1 for the table */
    unsigned k;   /* log2 of the segment size */
    uint64_t len; /* real rows */
    uint64_t off; /* offset inside its instance */
    uint64_t coff; /* a piece of a split column: its first row in the column */
    unsigned ck;  /* its column's variables (ceil(log2 len_c)) */
    size_t claim; /* its claim's index (claims of column c are contiguous) */
    bool pair;    /* a paired piece (§2a): 2^(k+1) rows from coff, two per leaf */
} lu_seg;

typedef struct {
    unsigned b;   /* the instance's tree has 2^b leaves */
    size_t first; /* its segments are seg[first .. first + nseg - 1] */
    size_t nseg;
    bool unit;    /* no table segment: every numerator is 1 */
} lu_inst;

typedef struct {
    lu_seg *seg;
    size_t nseg;
    lu_inst *inst;
    size_t ninst;
    uint64_t npad; /* padding rows of all looked-up columns */
} lu_layout;

/* The table first, then the columns' segments by size, largest first (ties: column
 * order, then piece order). */
static int seg_cmp(const void *pa, const void *pb)
{
    const lu_seg *a = pa, *b = pb;
    if ((a->col < 0) != (b->col < 0))
        return a->col < 0 ? -1 : 1;
    if (a->k != b->k)
        return a->k > b->k ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->coff < b->coff ? -1 : a->coff > b->coff;
}

/* Columns of a RANGES table are SPLIT: a column of len rows is one segment per set bit
 * of len (its binary pieces, largest first, each aligned to its size), so no looked-up
 * leaf is padding; a piece above 2^EZ_LOGUP_MAX_TREE_LOG rows is cut into pieces of that
 * size. A piece's MLE is the column's with its top ck - k coordinates fixed to the
 * piece's position, so its claim is a claim on the column at such a point. */
static size_t column_pieces(uint64_t len, bool split, unsigned capl)
{
    if (!split)
        return 1;
    size_t n = 0;
    for (unsigned b = 0; b < 64; b++)
        if ((len >> b) & 1)
            n += b > capl ? (size_t)1 << (b - capl) : 1;
    return n;
}

/* The table's tree cap (lib/logup.h max_tree_log; 0: EZ_LOGUP_MAX_TREE_LOG). */
unsigned lu_tree_log(const ez_logup_table *t)
{
    return t->max_tree_log ? t->max_tree_log : EZ_LOGUP_MAX_TREE_LOG;
}

static ez_status layout_build(lu_layout *L, const ez_logup_table *t, const uint64_t *lens, const unsigned *tags,
                              size_t nc)
{
    const uint64_t tsize = ez_logup_table_size(t);
    const bool split = t->kind == EZ_TABLE_RANGES;
    const unsigned capl = lu_tree_log(t);
    memset(L, 0, sizeof *L);
    /* a RANGES table: one segment per binary piece of its size of at least
     * 2^(kT - LU_TABLE_CUT) rows (whole regions each, as the regions are decreasing
     * powers of two laid end to end), each a tree of its own with no padding leaf, and
     * the rest of the rows, if any, one more (padded) tree: the small pieces would cost
     * a GKR proof each for little padding saved. Other tables: one segment. */
    const unsigned kT = ez_log2_ceil(tsize);
    const unsigned kcut = kT > LU_TABLE_CUT ? kT - LU_TABLE_CUT : 0;
    const uint64_t rest = tsize & ((UINT64_C(1) << kcut) - 1);
    const size_t ntp = split ? (size_t)__builtin_popcountll(tsize >> kcut) + (rest != 0) : 1;
    L->nseg = ntp;
    for (size_t i = 0; i < nc; i++)
        L->nseg += column_pieces(lens[i], split, capl);
    L->seg = ez_alloc_array(L->nseg, sizeof *L->seg);
    if (!L->seg)
        return EZ_ERR_NOMEM;
    if (!split) {
        L->seg[0] = (lu_seg){.col = -1, .k = kT, .len = tsize, .ck = kT};
    } else {
        uint64_t toff = 0;
        size_t s = 0;
        for (unsigned b = 64; b-- > kcut;)
            if ((tsize >> b) & 1) {
                L->seg[s++] = (lu_seg){.col = -1, .k = b, .len = UINT64_C(1) << b, .coff = toff, .ck = kT};
                toff += UINT64_C(1) << b;
            }
        if (rest != 0) /* toff is a multiple of 2^kcut >= the rest's padded size */
            L->seg[s++] = (lu_seg){.col = -1, .k = ez_log2_ceil(rest), .len = rest, .coff = toff, .ck = kT};
    }
    for (size_t i = 0, s = ntp; i < nc; i++) {
        unsigned ck = ez_log2_ceil(lens[i]);
        if (!split) {
            L->seg[s] = (lu_seg){.col = (int64_t)i, .k = ck, .len = lens[i], .ck = ck, .claim = i};
            L->npad += (UINT64_C(1) << ck) - lens[i];
            s++;
            continue;
        }
        uint64_t coff = 0;
        const bool paired = tags && lu_tag_paired(t, tags[i]);
        for (unsigned b = 64; b-- > 0;)
            if ((lens[i] >> b) & 1) {
                unsigned k = b > capl ? capl : b;
                /* a paired piece of 2^k >= 2 rows is 2^(k-1) leaves */
                const bool pair = paired && k >= 1;
                const unsigned kl = pair ? k - 1 : k;
                for (uint64_t u = 0; u < (UINT64_C(1) << (b - k)); u++) {
                    L->seg[s] = (lu_seg){.col = (int64_t)i, .k = kl, .len = UINT64_C(1) << kl, .coff = coff,
                                         .ck = ck, .claim = s - ntp, .pair = pair};
                    coff += UINT64_C(1) << k;
                    s++;
                }
            }
    }
    qsort(L->seg, L->nseg, sizeof *L->seg, seg_cmp);
    /* Every tree must fit the sumcheck engine: S < 2^EZ_GKR_MAX_VARS, and memory: the
     * table is one tree; the columns' leaves are cut into trees of at most
     * 2^EZ_LOGUP_MAX_TREE_LOG (whole ones first, then one per set bit of the rest), each
     * tree built and proven on its own. The column segments are sorted by decreasing
     * size, so every cut falls between segments. A segment above the cap (an unsplit
     * column) gets a tree of its own size. */
    const uint64_t cap = UINT64_C(1) << EZ_GKR_MAX_VARS;
    uint64_t S = 0;
    for (size_t i = 0; i < L->nseg; i++) {
        S += UINT64_C(1) << L->seg[i].k;
        if (S >= cap)
            return EZ_ERR_INVALID;
    }
    size_t maxinst = 64 + (size_t)(S >> capl) + L->nseg;
    L->inst = ez_alloc_array(maxinst, sizeof *L->inst);
    if (L->inst == NULL)
        return EZ_ERR_NOMEM;
    /* The table's segments (sorted first) are trees of their own: every other tree then
     * holds looked-up rows only, so all of them are unit trees (the cheaper leaf layer,
     * §3.3). */
    uint64_t left = S;
    for (size_t s = 0; s < ntp; s++) {
        EZ_VERIFY_CHECK(L->seg[s].col < 0);
        L->inst[s] = (lu_inst){.b = L->seg[s].k, .first = s, .nseg = 1, .unit = false};
        L->seg[s].off = 0;
        left -= UINT64_C(1) << L->seg[s].k;
    }
    L->ninst = ntp;
    size_t s = ntp;
    while (left > 0) {
        /* the next tree: the largest power of two below the rest, at most the cap, but at
         * least the next segment */
        unsigned b = 63 - (unsigned)__builtin_clzll(left);
        if (b > capl)
            b = capl;
        if (L->seg[s].k > b)
            b = L->seg[s].k;
        left -= UINT64_C(1) << b;
        lu_inst *in = &L->inst[L->ninst++];
        in->b = b;
        in->first = s;
        in->unit = true;
        uint64_t off = 0;
        while (off < (UINT64_C(1) << b)) {
            EZ_VERIFY_CHECK(s < L->nseg && L->seg[s].col >= 0);
            L->seg[s].off = off;
            off += UINT64_C(1) << L->seg[s].k;
            s++;
        }
        EZ_VERIFY_CHECK(off == (UINT64_C(1) << b));
        in->nseg = s - in->first;
    }
    EZ_VERIFY_CHECK(s == L->nseg);
    return EZ_OK;
}

static void layout_clear(lu_layout *L)
{
    free(L->seg);
    free(L->inst);
    memset(L, 0, sizeof *L);
}

/* ---- shared protocol pieces -------------------------------------------------------- */

/* Bind the public statement, then draw alpha and gamma (after the caller absorbed the
 * commitment to m: LogUp's soundness needs m fixed before alpha). */
static void begin_transcript(ez_transcript *tr, const ez_logup_table *t, const uint64_t *lens,
                             const unsigned *tags, size_t nc, ez_fe2 *alpha, ez_fe2 *gamma)
{
    ez_transcript_absorb_u64(tr, "logup/kind", (uint64_t)t->kind);
    ez_transcript_absorb_u64(tr, "logup/table_size", ez_logup_table_size(t));
    ez_transcript_absorb_u64(tr, "logup/width", ez_logup_table_width(t));
    ez_transcript_absorb_u64(tr, "logup/ncolumns", (uint64_t)nc);
    for (size_t i = 0; i < nc; i++)
        ez_transcript_absorb_u64(tr, "logup/len", lens[i]);
    if (t->kind == EZ_TABLE_RANGES) {
        /* the regions and every column's width: the statement "column c in [0, 2^tag_c)" */
        ez_transcript_absorb_u64(tr, "logup/nranges", t->nranges);
        for (unsigned k = 0; k < t->nranges; k++)
            ez_transcript_absorb_u64(tr, "logup/rbits", t->rbits[k]);
        for (size_t i = 0; i < nc; i++)
            ez_transcript_absorb_u64(tr, "logup/tag", tags[i]);
        if (t->pairs != 0) /* which widths are looked up in pairs (§2a) */
            ez_transcript_absorb_u64(tr, "logup/pairs", t->pairs);
    }
    *alpha = ez_transcript_challenge_fe2(tr, "logup/alpha");
    *gamma = ez_transcript_challenge_fe2(tr, "logup/gamma");
}

/* Number of leaf values the prover sends for an instance: width per column segment
 * (two for a paired piece: its halves), one (m) for the table. */
static size_t inst_nvalues(const lu_layout *L, const lu_inst *in, unsigned width)
{
    size_t n = 0;
    for (size_t s = in->first; s < in->first + in->nseg; s++)
        n += L->seg[s].col < 0 ? 1 : L->seg[s].pair ? 2 : width;
    return n;
}

/* Whether an instance holds a paired piece (then a challenge folds its halves' values). */
static bool inst_has_pair(const lu_layout *L, const lu_inst *in)
{
    for (size_t s = in->first; s < in->first + in->nseg; s++)
        if (L->seg[s].pair)
            return true;
    return false;
}

/* sum_i 2^(n-1-i) r[i]: the MLE of the row index over n coordinates (MSB first). */
static ez_fe2 index_mle(const ez_fe2 *r, unsigned n)
{
    ez_fe2 lin = ez_fe2_zero();
    for (unsigned i = 0; i < n; i++)
        lin = ez_fe2_add(ez_fe2_add(lin, lin), r[i]);
    return lin;
}

/* The table's combined MLE T(r) = sum_w gamma^w table_w~(r) over kT variables.
 * RANGE: table_0[j] = j, whose MLE is sum_i 2^(bits-1-i) r_i (O(bits));
 * EXPLICIT: O(nrows) per column. */
static ez_fe2 table_mle(const ez_logup_table *t, const ez_fe2 *r, unsigned kT, ez_fe2 gamma)
{
    if (t->kind == EZ_TABLE_RANGE) {
        ez_fe2 acc = ez_fe2_zero();
        for (unsigned i = 0; i < t->bits; i++)
            acc = ez_fe2_add(ez_fe2_add(acc, acc), r[i]);
        return acc;
    }
    if (t->kind == EZ_TABLE_RANGES) {
        /* region k (rows o_k .. o_k + 2^b - 1, o_k a multiple of 2^b) contributes
         * eq(r_top, o_k / 2^b) * (sum_i 2^(b-1-i) r_(top+i) + gamma b), top = kT - b;
         * a pair region of width w (b = 2w) eq(r_top, o_k / 2^b) * (a~ + gamma (16 + w)
         * + gamma^2 b~), b~ over its first w coordinates, a~ over its last w */
        lu_region R[LU_MAX_REGIONS];
        unsigned nr = lu_ranges_regions(t, R);
        ez_fe2 acc = ez_fe2_zero();
        uint64_t off = 0;
        for (unsigned k = 0; k < nr; k++) {
            unsigned b = R[k].b, top = kT - b;
            ez_fe2 v = ez_fe2_mul_fe(gamma, (ez_fe)R[k].tag);
            if (R[k].pw == 0) {
                v = ez_fe2_add(v, index_mle(r + top, b));
            } else {
                unsigned w = R[k].pw;
                ez_fe2 g2 = ez_fe2_mul(gamma, gamma);
                v = ez_fe2_add(v, ez_fe2_add(index_mle(r + top + w, w), ez_fe2_mul(g2, index_mle(r + top, w))));
            }
            acc = ez_fe2_add(acc, ez_fe2_mul(ez_eq_bool(r, top, off >> b), v));
            off += UINT64_C(1) << b;
        }
        return acc;
    }
    ez_fe2 acc = ez_fe2_zero(), g = ez_fe2_one();
    for (unsigned w = 0; w < t->ncols; w++) {
        acc = ez_fe2_add(acc, ez_fe2_mul(g, ez_mle_eval_fe(t->cols[w], (size_t)t->nrows, r, kT)));
        g = ez_fe2_mul(g, gamma);
    }
    return acc;
}

/* t_0 = sum_w gamma^w table_w[0]: the row the padding rows of a column look up. */
static ez_fe2 table_row0(const ez_logup_table *t, ez_fe2 gamma)
{
    if (t->kind == EZ_TABLE_RANGE)
        return ez_fe2_zero();
    if (t->kind == EZ_TABLE_RANGES) {
        lu_region R[LU_MAX_REGIONS];
        lu_ranges_regions(t, R);
        return ez_fe2_mul_fe(gamma, (ez_fe)R[0].tag); /* (0, tag) or (0, tag, 0) */
    }
    ez_fe2 acc = ez_fe2_zero(), g = ez_fe2_one();
    for (unsigned w = 0; w < t->ncols; w++) {
        acc = ez_fe2_add(acc, ez_fe2_mul_fe(g, t->cols[w][0]));
        g = ez_fe2_mul(g, gamma);
    }
    return acc;
}

/* The leaf MLEs of one instance at r (b coordinates) from the prover's leaf values
 * vals[] (in segment order), the verifier's own table evaluation and the prefix
 * selectors sel_s of the real rows:
 *   P(r) = sum_s eq(r_hi, off_s) * P_s(r_lo),  Q(r) = sum_s eq(r_hi, off_s) * Q_s(r_lo)
 *   column: P_s = 1,                          Q_s = alpha - F_s - (1 - sel_s) t_0
 *   table:  P_s = -(m~ + npad eq(., 0)),      Q_s = 1 + (alpha - 1) sel_s - T
 * with F_s = sum_w gamma^w col_w~ (from vals), T = sum_w gamma^w table_w~ and t_0 its
 * row 0, r_lo the last k_s coordinates (the segment's own point), r_hi the first
 * b - k_s. */
static void leaf_mle(const lu_layout *L, const lu_inst *in, const ez_logup_table *t, const unsigned *tags,
                     unsigned width, const ez_fe2 *r, const ez_fe2 *vals, ez_fe2 alpha, ez_fe2 gamma, ez_fe2 *P,
                     ez_fe2 *Q)
{
    ez_fe2 accP = ez_fe2_zero(), accQ = ez_fe2_zero();
    ez_fe2 am1 = ez_fe2_sub(alpha, ez_fe2_one());
    ez_fe2 t0 = table_row0(t, gamma);
    size_t v = 0;
    for (size_t s = in->first; s < in->first + in->nseg; s++) {
        const lu_seg *sg = &L->seg[s];
        unsigned hi = in->b - sg->k;
        const ez_fe2 *rlo = r + hi;
        ez_fe2 e = ez_eq_bool(r, hi, sg->off >> sg->k);
        ez_fe2 sel = ez_mle_prefix(rlo, sg->k, sg->len);
        ez_fe2 p, q;
        if (sg->col < 0) {
            /* a table piece: rows coff .. coff + 2^k - 1, the table's MLE at its point
             * (the top coordinates its position's bits); row 0's padding count in the
             * first piece */
            ez_fe2 pt[EZ_GKR_MAX_VARS];
            unsigned top = sg->ck - sg->k;
            for (unsigned j = 0; j < top; j++)
                pt[j] = ez_fe2_from_fe((sg->coff >> (sg->ck - 1 - j)) & 1);
            memcpy(pt + top, rlo, sg->k * sizeof *rlo);
            ez_fe2 pad = sg->coff == 0 ? ez_fe2_mul_fe(ez_eq_bool(rlo, sg->k, 0), ez_fe_from_u64(L->npad))
                                       : ez_fe2_zero();
            p = ez_fe2_neg(ez_fe2_add(vals[v++], pad));
            q = ez_fe2_sub(ez_fe2_add(ez_fe2_one(), ez_fe2_mul(am1, sel)), table_mle(t, pt, sg->ck, gamma));
        } else {
            p = ez_fe2_one();
            ez_fe2 F = ez_fe2_zero(), g = ez_fe2_one();
            unsigned tag = t->kind == EZ_TABLE_RANGES ? tags[sg->col] : 0;
            if (sg->pair) {
                /* the halves (V0, V1) look up (V0, 16 + w, V1) */
                F = ez_fe2_add(vals[v], ez_fe2_mul(ez_fe2_mul(gamma, gamma), vals[v + 1]));
                v += 2;
                tag += LU_PAIR_TAG0;
            } else {
                for (unsigned w = 0; w < width; w++) {
                    F = ez_fe2_add(F, ez_fe2_mul(g, vals[v++]));
                    g = ez_fe2_mul(g, gamma);
                }
            }
            if (t->kind == EZ_TABLE_RANGES) /* the real rows look up (v, tag) */
                F = ez_fe2_add(F, ez_fe2_mul(sel, ez_fe2_mul_fe(gamma, (ez_fe)tag)));
            ez_fe2 padf = ez_fe2_mul(ez_fe2_sub(ez_fe2_one(), sel), t0);
            q = ez_fe2_sub(alpha, ez_fe2_add(F, padf));
        }
        accP = ez_fe2_add(accP, ez_fe2_mul(e, p));
        accQ = ez_fe2_add(accQ, ez_fe2_mul(e, q));
    }
    *P = accP;
    *Q = accQ;
}

static ez_status claims_alloc(ez_logup_claims *out, const lu_layout *L, size_t nc, unsigned width)
{
    memset(out, 0, sizeof *out);
    size_t ncl = L->nseg; /* at most one claim per column segment */
    out->col = ez_alloc_array(ncl * width, sizeof *out->col);
    out->first = ez_alloc_array(nc + 1, sizeof *out->first);
    if (!out->col || !out->first)
        return EZ_ERR_NOMEM;
    out->ncolumns = nc;
    out->width = width;
    size_t nt = 0; /* the table's segments: the first ones */
    while (nt < L->nseg && L->seg[nt].col < 0)
        nt++;
    out->nclaims = L->nseg - nt;
    out->nmult = nt;
    if (!(out->mult = ez_alloc_array(nt, sizeof *out->mult)))
        return EZ_ERR_NOMEM;
    for (size_t s = 0; s < L->nseg; s++) {
        const lu_seg *sg = &L->seg[s];
        if (sg->col < 0) {
            out->mult[s].nvars = sg->ck;
            if (!(out->mult[s].point = ez_alloc_array(sg->ck ? sg->ck : 1, sizeof(ez_fe2))))
                return EZ_ERR_NOMEM;
        } else {
            for (unsigned w = 0; w < width; w++) {
                ez_logup_claim *c = &out->col[sg->claim * width + w];
                c->nvars = sg->ck;
                if (!(c->point = ez_alloc_array(sg->ck ? sg->ck : 1, sizeof(ez_fe2))))
                    return EZ_ERR_NOMEM;
            }
        }
    }
    /* the claims of column c are claim indices first[c] .. first[c+1]-1 (column order) */
    size_t *cnt = out->first;
    memset(cnt, 0, (nc + 1) * sizeof *cnt);
    for (size_t s = 0; s < L->nseg; s++)
        if (L->seg[s].col >= 0)
            cnt[L->seg[s].col + 1]++;
    for (size_t c = 0; c < nc; c++)
        cnt[c + 1] += cnt[c];
    return EZ_OK;
}

/* What prover and verifier set up alike: the instances of the columns (layout), the
 * claims they produce (allocated in out) and a scratch vector for the largest
 * instance's leaf values (*vals, free()). */
static ez_status session_setup(lu_layout *L, ez_logup_claims *out, ez_fe2 **vals, const ez_logup_table *t,
                               const uint64_t *lens, const unsigned *tags, size_t nc)
{
    unsigned width = ez_logup_table_width(t);
    ez_status st = layout_build(L, t, lens, tags, nc);
    if (st == EZ_OK)
        st = claims_alloc(out, L, nc, width);
    if (st != EZ_OK)
        return st;
    size_t maxvals = 0;
    for (size_t k = 0; k < L->ninst; k++) {
        size_t nv = inst_nvalues(L, &L->inst[k], width);
        maxvals = nv > maxvals ? nv : maxvals;
    }
    *vals = ez_alloc_array(maxvals, sizeof **vals);
    return *vals ? EZ_OK : EZ_ERR_NOMEM;
}

/* Record one instance's leaf values as claims at the segments' own points; a paired
 * piece's two half values fold into one claim at cpair (drawn after them, §2a). */
static void claims_fill(ez_logup_claims *out, const lu_layout *L, const lu_inst *in, unsigned width,
                        const ez_fe2 *r, const ez_fe2 *vals, ez_fe2 cpair)
{
    size_t v = 0;
    for (size_t s = in->first; s < in->first + in->nseg; s++) {
        const lu_seg *sg = &L->seg[s];
        const ez_fe2 *rlo = r + (in->b - sg->k);
        if (sg->col < 0) {
            /* a table piece: m at its rows, the top coordinates its position's bits */
            ez_logup_claim *c = &out->mult[s];
            unsigned top = sg->ck - sg->k;
            for (unsigned j = 0; j < top; j++)
                c->point[j] = ez_fe2_from_fe((sg->coff >> (sg->ck - 1 - j)) & 1);
            memcpy(c->point + top, rlo, sg->k * sizeof *rlo);
            c->value = vals[v++];
        } else if (sg->pair) {
            /* the piece's 2^(k+1) rows: the coordinate above its leaves' picks the half */
            unsigned top = sg->ck - sg->k - 1;
            ez_logup_claim *c = &out->col[sg->claim * width];
            for (unsigned j = 0; j < top; j++)
                c->point[j] = ez_fe2_from_fe((sg->coff >> (sg->ck - 1 - j)) & 1);
            c->point[top] = cpair;
            memcpy(c->point + top + 1, rlo, sg->k * sizeof *rlo);
            c->value = ez_fe2_add(vals[v], ez_fe2_mul(cpair, ez_fe2_sub(vals[v + 1], vals[v])));
            v += 2;
        } else {
            /* a piece: the column's top ck - k coordinates are its position's bits */
            unsigned top = sg->ck - sg->k;
            for (unsigned w = 0; w < width; w++) {
                ez_logup_claim *c = &out->col[sg->claim * width + w];
                for (unsigned j = 0; j < top; j++)
                    c->point[j] = ez_fe2_from_fe((sg->coff >> (sg->ck - 1 - j)) & 1);
                memcpy(c->point + top, rlo, sg->k * sizeof *rlo);
                c->value = vals[v++];
            }
        }
    }
}

/* ---- prover --------------------------------------------------------------------------- */

/* Leaves j0 .. j1-1 of one segment (layout above; indices within the segment) into
 * p[0 .. j1-j0) and q[0 .. j1-j0). p is NULL in a unit instance (every numerator 1,
 * nothing to store). t0 = the combined table row 0. Serial: the callers split the
 * instance into chunks. */
static void leaves_fill(ez_fe *p, ez_fe2 *q, const lu_seg *sg, uint64_t j0, uint64_t j1, const ez_logup_table *t,
                        const ez_logup_column *c, const ez_fe *m, uint64_t npad, unsigned width, ez_fe2 alpha,
                        const ez_fe2 *gpow, ez_fe2 t0)
{
    const uint64_t len = sg->len;
    if (sg->col < 0) {
        lu_region R[LU_MAX_REGIONS];
        if (t->kind == EZ_TABLE_RANGES)
            lu_ranges_regions(t, R);
        for (uint64_t jj = j0; jj < j1; jj++) {
            if (jj >= len) {
                p[jj - j0] = 0;
                q[jj - j0] = ez_fe2_one();
                continue;
            }
            const uint64_t j = sg->coff + jj; /* the table row (a piece starts at coff) */
            p[jj - j0] = ez_fe_neg(j == 0 ? ez_fe_add(m[0], ez_fe_from_u64(npad)) : m[j]);
            ez_fe2 f;
            if (t->kind == EZ_TABLE_RANGE) {
                f = ez_fe2_from_fe((ez_fe)j);
            } else if (t->kind == EZ_TABLE_RANGES) {
                /* row j of region k is (j - o_k, tag_k), of a pair region (a, tag_k, b)
                 * with j - o_k = a + 2^w b */
                uint64_t o = 0;
                unsigned k = 0;
                while (j >= o + (UINT64_C(1) << R[k].b))
                    o += UINT64_C(1) << R[k++].b;
                uint64_t x = j - o;
                f = ez_fe2_mul_fe(gpow[1], (ez_fe)R[k].tag);
                if (R[k].pw == 0) {
                    f = ez_fe2_add(f, ez_fe2_from_fe((ez_fe)x));
                } else {
                    uint64_t a = x & ((UINT64_C(1) << R[k].pw) - 1), bb = x >> R[k].pw;
                    f = ez_fe2_add(ez_fe2_add(f, ez_fe2_from_fe((ez_fe)a)), ez_fe2_mul_fe(gpow[2], (ez_fe)bb));
                }
            } else {
                f = ez_fe2_from_fe(t->cols[0][j]);
                for (unsigned w = 1; w < width; w++)
                    f = ez_fe2_add(f, ez_fe2_mul_fe(gpow[w], t->cols[w][j]));
            }
            q[jj - j0] = ez_fe2_sub(alpha, f);
        }
        return;
    }
    const ez_logup_column *col = &c[sg->col];
    const uint64_t jr = j1 < len ? j1 : len; /* real rows end */
    if (sg->pair) {
        /* leaf i looks up (v[i], 16 + w, v[i + 2^k]): alpha - gamma (16 + w) - v[i] -
         * gamma^2 v[i + 2^k], two base multiplies (no padding: a piece is full) */
        const ez_fe *v0 = col->cols[0] + sg->coff, *v1 = v0 + (UINT64_C(1) << sg->k);
        const ez_fe2 a = ez_fe2_sub(alpha, ez_fe2_mul_fe(gpow[1], (ez_fe)(LU_PAIR_TAG0 + col->tag)));
        const ez_fe2 g2 = gpow[2];
        for (uint64_t i = j0; i < j1; i++)
            q[i - j0] = ez_fe2_make(ez_fe_sub(ez_fe_sub(a.c0, v0[i]), ez_fe_mul(g2.c0, v1[i])),
                                    ez_fe_sub(a.c1, ez_fe_mul(g2.c1, v1[i])));
        if (p)
            for (uint64_t i = j0; i < j1; i++)
                p[i - j0] = 1;
        return;
    }
    if (width == 1) {
        /* alpha - v keeps alpha's X coefficient: one base subtraction per row (for a
         * RANGES table alpha - gamma tag - v, the constant folded into alpha). */
        const ez_fe *v = col->cols[0] + sg->coff;
        ez_fe2 a = t->kind == EZ_TABLE_RANGES ? ez_fe2_sub(alpha, ez_fe2_mul_fe(gpow[1], (ez_fe)col->tag)) : alpha;
        for (uint64_t i = j0; i < jr; i++)
            q[i - j0] = ez_fe2_make(ez_fe_sub(a.c0, v[i]), a.c1);
    } else {
        for (uint64_t i = j0; i < jr; i++) {
            ez_fe2 f = ez_fe2_from_fe(col->cols[0][i]);
            for (unsigned w = 1; w < width; w++)
                f = ez_fe2_add(f, ez_fe2_mul_fe(gpow[w], col->cols[w][i]));
            q[i - j0] = ez_fe2_sub(alpha, f);
        }
    }
    ez_fe2 qpad = ez_fe2_sub(alpha, t0);
    for (uint64_t i = jr > j0 ? jr : j0; i < j1; i++)
        q[i - j0] = qpad;
    if (p)
        for (uint64_t i = j0; i < j1; i++)
            p[i - j0] = 1;
}

/* Leaves per parallel task: an instance may hold hundreds of small segments (a range
 * check per 4096-entry tensor), so the tasks are chunks of the instance's leaf range,
 * not segments. */
#define LU_CHUNK 4096

/* One instance's leaf maker: everything leaves_fill needs. */
typedef struct {
    const lu_seg *seg; /* the instance's segments, tiling [0, 2^b) in order */
    size_t nseg;
    const ez_logup_table *t;
    const ez_logup_column *c;
    const ez_fe *m;
    uint64_t npad;
    unsigned width;
    ez_fe2 alpha, t0;
    const ez_fe2 *gpow;
} lu_leaves;

/* Leaves lo .. hi-1 of the instance into p[0 .. hi-lo) (p NULL: unit) and q, segment
 * piece by segment piece, starting at the segment that holds leaf lo. Serial. */
static void inst_leaves(const lu_leaves *x, uint64_t lo, uint64_t hi, ez_fe *p, ez_fe2 *q)
{
    size_t a = 0, z = x->nseg;
    while (z - a > 1) { /* the last segment with off <= lo */
        size_t mid = a + (z - a) / 2;
        if (x->seg[mid].off <= lo)
            a = mid;
        else
            z = mid;
    }
    for (size_t s = a; s < x->nseg && x->seg[s].off < hi; s++) {
        uint64_t so = x->seg[s].off, se = so + (UINT64_C(1) << x->seg[s].k);
        uint64_t j0 = (lo > so ? lo : so) - so, j1 = (hi < se ? hi : se) - so, at = so + j0 - lo;
        leaves_fill(p ? p + at : NULL, q + at, &x->seg[s], j0, j1, x->t, x->c, x->m, x->npad, x->width, x->alpha,
                    x->gpow, x->t0);
    }
}

/* lib/gkr.h's leaf maker of a unit instance. */
static void unit_leaves(void *ctx, uint64_t lo, uint64_t hi, ez_fe2 *q)
{
    inst_leaves(ctx, lo, hi, NULL, q);
}

/* The fraction tree of one instance. A unit instance's leaves are made on demand by the
 * tree (x must outlive it): no leaf array, 2^b * 32 bytes less at the peak. The table's
 * instance stores its leaves (*pleaf, *qleaf; free them after the tree). */
static ez_status inst_tree(const lu_leaves *x, const lu_inst *in, ez_fe **pleaf, ez_fe2 **qleaf,
                           ez_gkr_frac_tree **tree)
{
    if (in->unit)
        return ez_gkr_frac_tree_new_unit(tree, in->b, unit_leaves, (void *)x);
    const uint64_t n = UINT64_C(1) << in->b;
    *pleaf = ez_gkr_alloc((size_t)n, sizeof(ez_fe));
    *qleaf = ez_gkr_alloc((size_t)n, sizeof(ez_fe2));
    if (!*pleaf || !*qleaf)
        return EZ_ERR_NOMEM;
    ez_fe *pl = *pleaf;
    ez_fe2 *ql = *qleaf;
    const uint64_t chunk = n < LU_CHUNK ? n : LU_CHUNK, nchunks = n / chunk;
#pragma omp parallel for schedule(static) if (nchunks > 1 && n >= LU_PAR_MIN)
    for (int64_t ch = 0; ch < (int64_t)nchunks; ch++) {
        uint64_t lo = (uint64_t)ch * chunk;
        inst_leaves(x, lo, lo + chunk, pl + lo, ql + lo);
    }
    return ez_gkr_frac_tree_new(tree, in->b, pl, NULL, ql);
}

/* ---- the columns' leaf values: MLE evaluations sharing one low eq table --------------
 * Every segment of a tree is evaluated at the LAST k_s coordinates of the tree's point,
 * so the eq table of the last LU_EVAL_LOW coordinates is the same for all segments of at
 * least that size: one table per tree instead of one per segment (lib/mle.c builds its
 * own each call, 1023 multiplies, a quarter of a multiply per row of a 4096-row piece).
 * The dot products with it take the looked-up values as they come: below 2^32 (every
 * honest range-checked value) a block of 2^LU_EVAL_LOW products is summed unreduced in
 * 128 bits (each < 2^96) and reduced once; otherwise lib/mle's way, one reduction per
 * product. */
#define LU_EVAL_LOW 10

/* sum_{i < len} eq[i] v[i], len <= 2^LU_EVAL_LOW. */
static ez_fe2 dot_low(const ez_fe *v, size_t len, const ez_fe2 *eq)
{
    ez_fe any = 0;
    for (size_t i = 0; i < len; i++)
        any |= v[i];
    if ((any >> 32) == 0) {
        unsigned __int128 a0 = 0, a1 = 0;
        for (size_t i = 0; i < len; i++) {
            a0 += (unsigned __int128)eq[i].c0 * v[i];
            a1 += (unsigned __int128)eq[i].c1 * v[i];
        }
        return ez_fe2_make(ez_fe_reduce128(a0), ez_fe_reduce128(a1));
    }
    ez_fe2 acc = ez_fe2_zero();
    for (size_t i = 0; i < len; i++)
        acc = ez_fe2_add(acc, ez_fe2_mul_fe(eq[i], v[i]));
    return acc;
}

/* The MLE of v[0..len) (zero beyond) over m top coordinates r[0..m) and LU_EVAL_LOW low
 * ones whose eq table is eq: (1 - r_0) lo + r_0 hi recursively (as lib/mle.c). */
static ez_fe2 eval_low(const ez_fe *v, size_t len, const ez_fe2 *r, unsigned m, const ez_fe2 *eq)
{
    if (len == 0)
        return ez_fe2_zero();
    if (m == 0)
        return dot_low(v, len, eq);
    size_t half = (size_t)1 << (m - 1 + LU_EVAL_LOW);
    ez_fe2 lo = eval_low(v, len < half ? len : half, r + 1, m - 1, eq);
    ez_fe2 hi = len > half ? eval_low(v + half, len - half, r + 1, m - 1, eq) : ez_fe2_zero();
    return ez_fe2_add(lo, ez_fe2_mul(r[0], ez_fe2_sub(hi, lo)));
}

/* The leaf values of instance in at its GKR point r (segments in order; *nv of them):
 * width values per column segment, one (m~) for the table. A lone segment filling the
 * tree gets its value from the GKR's own leaf claim (P, Q) in O(b) — leaf_mle solved for
 * it; otherwise every segment's MLE is evaluated, in parallel over the segments when
 * there are several (an instance may hold hundreds). */
static ez_status inst_values(ez_fe2 *vals, size_t *nv, const lu_layout *L, const lu_inst *in, const ez_logup_table *t,
                        const ez_logup_column *c, unsigned width, const ez_fe2 *r, ez_fe2 P,
                        ez_fe2 Q, ez_fe2 alpha, ez_fe2 gamma, ez_fe2 t0)
{
    const lu_seg *sg0 = &L->seg[in->first];
    if (in->nseg == 1 && sg0->col < 0) {
        /* the padding rows' count sits at table row 0, in the first piece */
        ez_fe2 pad = sg0->coff == 0 ? ez_fe2_mul_fe(ez_eq_bool(r, in->b, 0), ez_fe_from_u64(L->npad)) : ez_fe2_zero();
        vals[0] = ez_fe2_neg(ez_fe2_add(P, pad));
        *nv = 1;
        return EZ_OK;
    }
    if (in->nseg == 1 && width == 1 && !sg0->pair) {
        ez_fe2 sel = ez_mle_prefix(r, in->b, sg0->len);
        ez_fe2 padf = ez_fe2_mul(ez_fe2_sub(ez_fe2_one(), sel), t0);
        if (t->kind == EZ_TABLE_RANGES)
            padf = ez_fe2_add(padf, ez_fe2_mul(sel, ez_fe2_mul_fe(gamma, (ez_fe)c[sg0->col].tag)));
        vals[0] = ez_fe2_sub(ez_fe2_sub(alpha, padf), Q);
        *nv = 1;
        return EZ_OK;
    }
    /* the table segment is alone in its tree (layout_build): here every segment is a
     * column's, width values each (a paired piece: its two halves, §2a) */
    const int64_t ns = (int64_t)in->nseg;
    ez_fe2 eq[1u << LU_EVAL_LOW];
    if (in->b >= LU_EVAL_LOW)
        ez_eq_table(eq, r + (in->b - LU_EVAL_LOW), LU_EVAL_LOW);
    /* where each segment's values start */
    size_t *at = ez_alloc_array((size_t)ns + 1, sizeof *at);
    if (at == NULL) {
        *nv = 0;
        return EZ_ERR_NOMEM;
    }
    at[0] = 0;
    for (int64_t i = 0; i < ns; i++)
        at[i + 1] = at[i] + (L->seg[in->first + (size_t)i].pair ? 2 : width);
#pragma omp parallel for schedule(dynamic, 1) if (ns >= 4)
    for (int64_t i = 0; i < ns; i++) {
        const lu_seg *sg = &L->seg[in->first + (size_t)i];
        const ez_fe2 *rlo = r + (in->b - sg->k);
        EZ_VERIFY_CHECK(sg->col >= 0);
        const unsigned nw = sg->pair ? 2 : width;
        for (unsigned w = 0; w < nw; w++) {
            const ez_fe *v = sg->pair ? c[sg->col].cols[0] + sg->coff + ((uint64_t)w << sg->k)
                                      : c[sg->col].cols[w] + sg->coff;
            vals[at[i] + w] = sg->k >= LU_EVAL_LOW ? eval_low(v, (size_t)sg->len, rlo, sg->k - LU_EVAL_LOW, eq)
                                                   : ez_mle_eval_fe(v, (size_t)sg->len, rlo, sg->k);
        }
    }
    *nv = at[ns];
    free(at);
    return EZ_OK;
}

ez_status ez_logup_proof_bytes(const ez_logup_table *t, const uint64_t *col_lens, const unsigned *col_tags, size_t nc,
                               uint64_t *bytes)
{
    lu_layout L = {0};
    *bytes = 0;
    if (!lu_table_ok(t) || (nc > 0 && col_lens == NULL) || (t->pairs != 0 && col_tags == NULL))
        return EZ_ERR_INVALID;
    ez_status st = layout_build(&L, t, col_lens, col_tags, nc);
    if (st != EZ_OK)
        return st;
    unsigned width = ez_logup_table_width(t);
    uint64_t b = 2 * 16 * (uint64_t)L.ninst;
    for (size_t k = 0; k < L.ninst; k++) {
        const lu_inst *in = &L.inst[k];
        const lu_seg *sg0 = &L.seg[in->first];
        /* the leaf values: one when a lone segment fills the tree or has width 1 */
        size_t nv = in->nseg == 1 && (sg0->col < 0 || (width == 1 && !sg0->pair)) ? 1 : inst_nvalues(&L, in, width);
        b += ez_gkr_frac_proof_bytes(in->b, in->unit) + 16 * (uint64_t)nv;
    }
    layout_clear(&L);
    *bytes = b;
    return EZ_OK;
}


/* ---- the instances' transcripts (§4b) -------------------------------------------------
 * After alpha and gamma every instance (tree) runs on a transcript of its own: the
 * caller's state at that point (the fork) with the instance's index absorbed. Its
 * root, GKR and leaf values depend on nothing another instance sends, so the prover may
 * prove the instances in any order or at once; at the end each instance's final state
 * is absorbed into the caller's transcript in instance order, which binds every message
 * of every instance before any later challenge. */
static ez_transcript inst_transcript(const ez_transcript *fork, size_t k)
{
    ez_transcript u = *fork;
    ez_transcript_absorb_u64(&u, "logup/instance", (uint64_t)k);
    return u;
}

static void join_transcript(ez_transcript *tr, const ez_transcript *u)
{
    ez_transcript_absorb_bytes(tr, "logup/joined", u->state, sizeof u->state);
}

/* One instance's proof as it is made: its transcript, its bytes, whether it is done. */
typedef struct {
    ez_transcript tr;
    ez_writer w;
    bool done;
} lu_run;

struct ez_logup_prover {
    ez_logup_table t; /* a copy: an explicit table's rows are the caller's */
    uint64_t *lens;
    unsigned *tags;
    size_t nc;
    unsigned width;
    lu_layout L;
    ez_logup_claims cl; /* each instance fills its own segments' claims */
    ez_fe2 alpha, gamma, t0, gpow[EZ_LOGUP_MAX_WIDTH];
    ez_transcript fork;
    lu_run *run; /* L.ninst */
};

void ez_logup_prover_free(ez_logup_prover *p)
{
    if (!p)
        return;
    if (p->run)
        for (size_t k = 0; k < p->L.ninst; k++)
            ez_writer_clear(&p->run[k].w);
    free(p->run);
    ez_logup_claims_clear(&p->cl);
    layout_clear(&p->L);
    free(p->lens);
    free(p->tags);
    free(p);
}

ez_status ez_logup_prove_begin(ez_logup_prover **out, ez_transcript *tr, const ez_logup_table *t,
                               const uint64_t *col_lens, const unsigned *col_tags, size_t nc)
{
    ez_status st = EZ_OK;
    ez_fe2 *vals = NULL;
    *out = NULL;
    if (!lu_table_ok(t) || !col_lens || nc == 0 || (t->kind == EZ_TABLE_RANGES && !col_tags))
        return EZ_ERR_INVALID;
    for (size_t i = 0; i < nc; i++)
        if (col_lens[i] < 1 || col_lens[i] > EZ_LOGUP_MAX_LEN ||
            (t->kind == EZ_TABLE_RANGES && lu_ranges_region(t, col_tags[i]) < 0))
            return EZ_ERR_INVALID;
    ez_logup_prover *p = calloc(1, sizeof *p);
    if (!p)
        return EZ_ERR_NOMEM;
    p->t = *t;
    p->nc = nc;
    p->width = ez_logup_table_width(t);
    p->lens = ez_alloc_array(nc, sizeof *p->lens);
    p->tags = ez_alloc_array(nc, sizeof *p->tags);
    if (!p->lens || !p->tags) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    memcpy(p->lens, col_lens, nc * sizeof *p->lens);
    for (size_t i = 0; i < nc; i++)
        p->tags[i] = col_tags ? col_tags[i] : 0;
    if ((st = session_setup(&p->L, &p->cl, &vals, t, p->lens, p->tags, nc)) != EZ_OK)
        goto out;
    if (!(p->run = ez_alloc_array(p->L.ninst, sizeof *p->run))) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t k = 0; k < p->L.ninst; k++) {
        ez_writer_init(&p->run[k].w);
        p->run[k].done = false;
    }
    begin_transcript(tr, t, p->lens, p->tags, nc, &p->alpha, &p->gamma);
    p->gpow[0] = ez_fe2_one();
    for (unsigned w = 1; w < EZ_LOGUP_MAX_WIDTH; w++)
        p->gpow[w] = ez_fe2_mul(p->gpow[w - 1], p->gamma);
    p->t0 = table_row0(t, p->gamma);
    p->fork = *tr;
out:
    free(vals);
    if (st != EZ_OK)
        ez_logup_prover_free(p);
    else
        *out = p;
    return st;
}

size_t ez_logup_prover_ninstances(const ez_logup_prover *p)
{
    return p->L.ninst;
}

unsigned ez_logup_prover_instance_vars(const ez_logup_prover *p, size_t k)
{
    return k < p->L.ninst ? p->L.inst[k].b : 0;
}

const ez_logup_table *ez_logup_prover_table(const ez_logup_prover *p)
{
    return &p->t;
}

ez_status ez_logup_prove_instance(ez_logup_prover *p, size_t k, const ez_logup_column *c, const ez_fe *m)
{
    ez_status st = EZ_OK;
    ez_fe *pleaf = NULL;
    ez_fe2 *qleaf = NULL, *vals = NULL;
    ez_gkr_frac_tree *tree = NULL;
    if (k >= p->L.ninst || p->run[k].done || !m || !lu_columns_ok(&p->t, c, p->nc, p->width))
        return EZ_ERR_INVALID;
    for (size_t i = 0; i < p->nc; i++)
        if (c[i].len != p->lens[i] || (p->t.kind == EZ_TABLE_RANGES && c[i].tag != p->tags[i]))
            return EZ_ERR_INVALID;
    const lu_inst *in = &p->L.inst[k];
    lu_run *run = &p->run[k];
    ez_fe2 r[EZ_GKR_MAX_VARS], P, Q, root[2];
    run->tr = inst_transcript(&p->fork, k);
    lu_leaves lx = {.seg = p->L.seg + in->first, .nseg = in->nseg, .t = &p->t, .c = c, .m = m,
                    .npad = p->L.npad, .width = p->width, .alpha = p->alpha, .t0 = p->t0, .gpow = p->gpow};
    if ((st = inst_tree(&lx, in, &pleaf, &qleaf, &tree)) != EZ_OK)
        goto out;
    /* the root is absorbed right before the tree's GKR proof: bound before any of its
     * challenges; the verifier checks that the roots add up to zero after the last tree */
    ez_gkr_frac_tree_root(tree, &root[0], &root[1]);
    ez_writer_fe2(&run->w, root, 2);
    ez_transcript_absorb_fe2(&run->tr, "logup/root", root, 2);
    if ((st = ez_gkr_frac_prove(&run->tr, tree, &run->w, r, &P, &Q)) != EZ_OK)
        goto out;
    /* the tree is no longer needed: free it before the leaf values */
    ez_gkr_frac_tree_free(tree);
    tree = NULL;
    size_t v = 0;
    if (!(vals = ez_alloc_array(inst_nvalues(&p->L, in, p->width), sizeof *vals))) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if ((st = inst_values(vals, &v, &p->L, in, &p->t, c, p->width, r, P, Q, p->alpha, p->gamma, p->t0)) != EZ_OK)
        goto out;
    ez_writer_fe2(&run->w, vals, v);
    ez_transcript_absorb_fe2(&run->tr, "logup/leaf", vals, v);
    ez_fe2 cpair = inst_has_pair(&p->L, in) ? ez_transcript_challenge_fe2(&run->tr, "logup/pair") : ez_fe2_zero();
    claims_fill(&p->cl, &p->L, in, p->width, r, vals, cpair);
    if (run->w.failed)
        st = EZ_ERR_NOMEM;
    run->done = st == EZ_OK;
out:
    ez_gkr_frac_tree_free(tree);
    free(pleaf);
    free(qleaf);
    free(vals);
    return st;
}

ez_status ez_logup_prove_end(ez_logup_prover *p, ez_transcript *tr, ez_writer *proof, ez_logup_claims *out)
{
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < p->L.ninst; k++)
        if (!p->run[k].done)
            return EZ_ERR_INVALID;
    for (size_t k = 0; k < p->L.ninst; k++) {
        ez_writer_bytes(proof, p->run[k].w.data, p->run[k].w.len);
        join_transcript(tr, &p->run[k].tr);
    }
    if (proof->failed)
        return EZ_ERR_NOMEM;
    *out = p->cl;
    memset(&p->cl, 0, sizeof p->cl);
    return EZ_OK;
}

ez_status ez_logup_prove(ez_transcript *tr, const ez_logup_table *t, const ez_logup_column *c, size_t nc,
                         const ez_fe *m, ez_writer *proof, ez_logup_claims *out)
{
    ez_status st = EZ_OK;
    ez_logup_prover *p = NULL;
    uint64_t *lens = NULL;
    unsigned *tags = NULL;
    memset(out, 0, sizeof *out);
    if (!lu_table_ok(t) || !m || !proof || !lu_columns_ok(t, c, nc, ez_logup_table_width(t)))
        return EZ_ERR_INVALID;
    lens = ez_alloc_array(nc, sizeof *lens);
    tags = ez_alloc_array(nc, sizeof *tags);
    if (!lens || !tags) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        lens[i] = c[i].len;
        tags[i] = c[i].tag;
    }
    if ((st = ez_logup_prove_begin(&p, tr, t, lens, tags, nc)) != EZ_OK)
        goto out;
    /* one tree at a time (only one is ever in memory), each with parallel loops */
    for (size_t k = 0; k < p->L.ninst && st == EZ_OK; k++)
        st = ez_logup_prove_instance(p, k, c, m);
    if (st == EZ_OK)
        st = ez_logup_prove_end(p, tr, proof, out);
out:
    ez_logup_prover_free(p);
    free(lens);
    free(tags);
    return st;
}

/* ---- verifier ------------------------------------------------------------------------- */

ez_status ez_logup_verify(ez_transcript *tr, const ez_logup_table *t, const uint64_t *col_lens, size_t nc,
                          ez_reader *proof, ez_logup_claims *out)
{
    return ez_logup_verify_tagged(tr, t, col_lens, NULL, nc, proof, out);
}

struct ez_logup_verifier {
    ez_logup_table t; /* a copy: an explicit table's rows are the caller's */
    uint64_t *lens;
    unsigned *tags; /* NULL unless a RANGES table */
    size_t nc;
    unsigned width;
    lu_layout L;
    ez_logup_claims cl;
    ez_fe2 *vals; /* the largest instance's leaf values */
    ez_fe2 alpha, gamma;
    ez_transcript fork;
};

void ez_logup_verifier_free(ez_logup_verifier *v)
{
    if (!v)
        return;
    ez_logup_claims_clear(&v->cl);
    layout_clear(&v->L);
    free(v->vals);
    free(v->lens);
    free(v->tags);
    free(v);
}

ez_status ez_logup_verify_begin(ez_logup_verifier **out, ez_transcript *tr, const ez_logup_table *t,
                                const uint64_t *col_lens, const unsigned *col_tags, size_t nc)
{
    ez_status st = EZ_OK;
    *out = NULL;
    if (!lu_table_ok(t) || !col_lens || nc == 0)
        return EZ_ERR_INVALID;
    for (size_t i = 0; i < nc; i++)
        if (col_lens[i] < 1 || col_lens[i] > EZ_LOGUP_MAX_LEN)
            return EZ_ERR_INVALID;
    if (t->kind == EZ_TABLE_RANGES) {
        if (!col_tags)
            return EZ_ERR_INVALID;
        for (size_t i = 0; i < nc; i++)
            if (lu_ranges_region(t, col_tags[i]) < 0)
                return EZ_ERR_INVALID;
    }
    ez_logup_verifier *v = calloc(1, sizeof *v);
    if (!v)
        return EZ_ERR_NOMEM;
    v->t = *t;
    v->nc = nc;
    v->width = ez_logup_table_width(t);
    v->lens = ez_alloc_array(nc, sizeof *v->lens);
    if (t->kind == EZ_TABLE_RANGES)
        v->tags = ez_alloc_array(nc, sizeof *v->tags);
    if (!v->lens || (t->kind == EZ_TABLE_RANGES && !v->tags)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    memcpy(v->lens, col_lens, nc * sizeof *v->lens);
    if (v->tags)
        memcpy(v->tags, col_tags, nc * sizeof *v->tags);
    if ((st = session_setup(&v->L, &v->cl, &v->vals, t, v->lens, v->tags, nc)) != EZ_OK)
        goto out;
    begin_transcript(tr, t, v->lens, v->tags, nc, &v->alpha, &v->gamma);
    v->fork = *tr;
out:
    if (st != EZ_OK)
        ez_logup_verifier_free(v);
    else
        *out = v;
    return st;
}

ez_status ez_logup_verify_end(ez_logup_verifier *v, ez_transcript *tr, ez_reader *proof, ez_logup_claims *out)
{
    const lu_layout *L = &v->L;
    memset(out, 0, sizeof *out);
    if (!proof)
        return EZ_ERR_INVALID;
    /* Tree by tree, each on its own transcript (§4b): its root (every denominator
     * nonzero; absorbed before the tree's GKR), the GKR down to the leaves, the leaf
     * check; its final state joins tr. After the last tree the roots must add up to
     * zero: sum_i 1/(alpha - f_i) = sum_j m_j/(alpha - t_j) (LogUp, eprint 2022/1530),
     * checked projectively. */
    ez_fe2 sp = ez_fe2_zero(), sq = ez_fe2_one();
    for (size_t k = 0; k < L->ninst; k++) {
        const lu_inst *in = &L->inst[k];
        ez_fe2 r[EZ_GKR_MAX_VARS], P, Q, root[2];
        ez_transcript u = inst_transcript(&v->fork, k);
        if (!ez_reader_fe2(proof, root, 2) || ez_fe2_is_zero(root[1]))
            return EZ_ERR_REJECT;
        sp = ez_fe2_add(ez_fe2_mul(sp, root[1]), ez_fe2_mul(root[0], sq));
        sq = ez_fe2_mul(sq, root[1]);
        ez_transcript_absorb_fe2(&u, "logup/root", root, 2);
        ez_status st = ez_gkr_frac_verify(&u, in->b, in->unit, root[0], root[1], proof, r, &P, &Q);
        if (st != EZ_OK)
            return st;
        size_t nv = inst_nvalues(L, in, v->width);
        if (!ez_reader_fe2(proof, v->vals, nv))
            return EZ_ERR_REJECT;
        /* The GKR's last claim must match the leaves: our own table MLE and selectors,
         * the prover's column and multiplicity values (returned as claims below). */
        ez_fe2 eP, eQ;
        leaf_mle(L, in, &v->t, v->tags, v->width, r, v->vals, v->alpha, v->gamma, &eP, &eQ);
        if (!ez_fe2_eq(eP, P) || !ez_fe2_eq(eQ, Q))
            return EZ_ERR_REJECT;
        ez_transcript_absorb_fe2(&u, "logup/leaf", v->vals, nv);
        ez_fe2 cpair = inst_has_pair(L, in) ? ez_transcript_challenge_fe2(&u, "logup/pair") : ez_fe2_zero();
        claims_fill(&v->cl, L, in, v->width, r, v->vals, cpair);
        join_transcript(tr, &u);
    }
    if (!ez_fe2_is_zero(sp))
        return EZ_ERR_REJECT;
    *out = v->cl;
    memset(&v->cl, 0, sizeof v->cl);
    return EZ_OK;
}

ez_status ez_logup_verify_tagged(ez_transcript *tr, const ez_logup_table *t, const uint64_t *col_lens,
                                 const unsigned *col_tags, size_t nc, ez_reader *proof, ez_logup_claims *out)
{
    ez_logup_verifier *v = NULL;
    memset(out, 0, sizeof *out);
    if (!proof)
        return EZ_ERR_INVALID;
    ez_status st = ez_logup_verify_begin(&v, tr, t, col_lens, col_tags, nc);
    if (st == EZ_OK)
        st = ez_logup_verify_end(v, tr, proof, out);
    ez_logup_verifier_free(v);
    return st;
}

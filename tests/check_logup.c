/* logup and gkr: honest proofs for range and explicit tables of several widths and
 * column lengths, the fraction-tree GKR on its own, and malicious provers (values
 * outside the table, wrong multiplicities, tampered, truncated and substituted
 * proofs). A verifier "accepts" only if ez_logup_verify returns EZ_OK AND the claims it
 * returns agree with the true column and multiplicity MLEs — what the caller checks. */
#include <stdlib.h>
#include <string.h>

#include "lib/fe2_vec.h"
#include "lib/gkr.h"
#include "lib/logup.h"
#include "lib/mle.h"
#include "lib/transcript.h"
#include "tests/testutil.h"

/* ---- helpers -------------------------------------------------------------------------- */

/* The transcript both sides start from: in the product the caller absorbs its PCS
 * commitment to m; here a digest of m stands in for it. */
static void start(ez_transcript *tr, const ez_fe *m, uint64_t tsize)
{
    ez_transcript_init(tr, "einzk/test/logup");
    ez_transcript_absorb_fe(tr, "test/m", m, (size_t)tsize);
}

/* Do the claims hold for these columns and this m? */
static bool claims_true(const ez_logup_claims *cl, const ez_logup_column *c, size_t nc, unsigned width,
                        const ez_fe *m, uint64_t tsize)
{
    if (cl->ncolumns != nc || cl->width != width || cl->first[0] != 0 || cl->first[nc] != cl->nclaims)
        return false;
    for (size_t i = 0; i < nc; i++) {
        if (cl->first[i + 1] <= cl->first[i])
            return false; /* every column has a claim */
        for (size_t j = cl->first[i]; j < cl->first[i + 1]; j++)
            for (unsigned w = 0; w < width; w++) {
                const ez_logup_claim *k = &cl->col[j * width + w];
                if (k->nvars != ez_log2_ceil(c[i].len))
                    return false;
                ez_fe2 v = ez_mle_eval_fe(c[i].cols[w], (size_t)c[i].len, k->point, k->nvars);
                if (!ez_fe2_eq(v, k->value))
                    return false;
            }
    }
    if (cl->nmult < 1)
        return false;
    for (size_t k = 0; k < cl->nmult; k++)
        if (cl->mult[k].nvars != ez_log2_ceil(tsize) ||
            !ez_fe2_eq(ez_mle_eval_fe(m, (size_t)tsize, cl->mult[k].point, cl->mult[k].nvars), cl->mult[k].value))
            return false;
    return true;
}

static bool claims_equal(const ez_logup_claims *a, const ez_logup_claims *b)
{
    if (a->ncolumns != b->ncolumns || a->width != b->width || a->nclaims != b->nclaims)
        return false;
    for (size_t i = 0; i <= a->ncolumns; i++)
        if (a->first[i] != b->first[i])
            return false;
    for (size_t i = 0; i < a->nclaims * a->width; i++) {
        if (a->col[i].nvars != b->col[i].nvars || !ez_fe2_eq(a->col[i].value, b->col[i].value))
            return false;
        for (unsigned j = 0; j < a->col[i].nvars; j++)
            if (!ez_fe2_eq(a->col[i].point[j], b->col[i].point[j]))
                return false;
    }
    if (a->nmult != b->nmult)
        return false;
    for (size_t k = 0; k < a->nmult; k++) {
        if (a->mult[k].nvars != b->mult[k].nvars || !ez_fe2_eq(a->mult[k].value, b->mult[k].value))
            return false;
        for (unsigned j = 0; j < a->mult[k].nvars; j++)
            if (!ez_fe2_eq(a->mult[k].point[j], b->mult[k].point[j]))
                return false;
    }
    return true;
}

/* Prove with m_prover, write the proof into *w (caller clears). */
static void prove(const ez_logup_table *t, const ez_logup_column *c, size_t nc, const ez_fe *m_prover,
                  ez_writer *w, ez_logup_claims *pc)
{
    uint64_t tsize = ez_logup_table_size(t);
    ez_transcript tr;
    start(&tr, m_prover, tsize);
    ez_writer_init(w);
    ck_assert_int_eq(ez_logup_prove(&tr, t, c, nc, m_prover, w, pc), EZ_OK);
    ck_assert(!w->failed);
}

/* What the verifier knows of columns c[0..nc): their lengths and range tags (NULL: not
 * wanted), into arrays of cap entries. */
static void column_shape(const ez_logup_column *c, size_t nc, size_t cap, uint64_t *lens, unsigned *tags)
{
    ck_assert(nc <= cap);
    for (size_t i = 0; i < nc; i++) {
        lens[i] = c[i].len;
        if (tags)
            tags[i] = c[i].tag;
    }
}

/* Verify bytes against the columns and the committed m; true iff the verifier accepts
 * and every returned claim is true (reject otherwise, as the caller would). */
static bool accepts(const ez_logup_table *t, const ez_logup_column *c, size_t nc, const ez_fe *m,
                    const uint8_t *bytes, size_t len, ez_status *st_out)
{
    uint64_t tsize = ez_logup_table_size(t);
    uint64_t lens[64];
    unsigned tags[64];
    column_shape(c, nc, 64, lens, tags);
    ez_transcript tr;
    start(&tr, m, tsize);
    ez_reader r;
    ez_reader_init(&r, bytes, len);
    ez_logup_claims vc;
    ez_status st = ez_logup_verify_tagged(&tr, t, lens, tags, nc, &r, &vc);
    if (st_out)
        *st_out = st;
    bool ok = st == EZ_OK && ez_reader_done(&r) && claims_true(&vc, c, nc, ez_logup_table_width(t), m, tsize);
    ez_logup_claims_clear(&vc);
    return ok;
}

/* A prover run on the columns with multiplicities m (possibly false; the transcript
 * commits to them): whether its proof is accepted (accepts()), the verifier's status in
 * *st (NULL: not wanted). */
static bool proof_accepted(const ez_logup_table *t, const ez_logup_column *c, size_t nc, const ez_fe *m,
                           ez_status *st)
{
    ez_writer w;
    ez_logup_claims pc;
    prove(t, c, nc, m, &w, &pc);
    bool ok = accepts(t, c, nc, m, w.data, w.len, st);
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
    return ok;
}

/* The honest multiplicities m of the one column c (asserted in the table), its proof
 * into *w and claims into *pc (caller clears), accepted. */
static void honest_one_column(const ez_logup_table *t, const ez_logup_column *c, ez_fe *m, ez_writer *w,
                              ez_logup_claims *pc)
{
    ck_assert_int_eq(ez_logup_multiplicities(m, t, c, 1, NULL), EZ_OK);
    prove(t, c, 1, m, w, pc);
    ck_assert(accepts(t, c, 1, m, w->data, w->len, NULL));
}

/* Full honest round trip: multiplicities, prove, verify, claims agree and hold. */
static void honest_roundtrip(const ez_logup_table *t, const ez_logup_column *c, size_t nc)
{
    uint64_t tsize = ez_logup_table_size(t);
    unsigned width = ez_logup_table_width(t);
    ez_fe *m = calloc((size_t)tsize, sizeof *m);
    ck_assert_ptr_nonnull(m);
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_logup_multiplicities(m, t, c, nc, &d), EZ_OK);
    uint64_t total = 0, rows = 0;
    for (uint64_t j = 0; j < tsize; j++)
        total += m[j];
    for (size_t i = 0; i < nc; i++) {
        bool paired = t->kind == EZ_TABLE_RANGES && ((t->pairs >> c[i].tag) & 1);
        rows += paired ? c[i].len / 2 + (c[i].len & 1) : c[i].len; /* a pair counts once */
    }
    ck_assert_uint_eq(total, rows);

    ez_writer w;
    ez_logup_claims pc;
    ez_transcript tp;
    start(&tp, m, tsize);
    ez_writer_init(&w);
    ck_assert_int_eq(ez_logup_prove(&tp, t, c, nc, m, &w, &pc), EZ_OK);
    ck_assert(!w.failed);
    ck_assert(claims_true(&pc, c, nc, width, m, tsize));

    uint64_t lens[64];
    unsigned tags[64];
    column_shape(c, nc, 64, lens, tags);
    uint64_t want_bytes;
    ck_assert_int_eq(ez_logup_proof_bytes(t, lens, tags, nc, &want_bytes), EZ_OK);
    ck_assert_uint_eq(want_bytes, w.len);
    ez_transcript tr;
    start(&tr, m, tsize);
    ez_reader r;
    ez_reader_init(&r, w.data, w.len);
    ez_logup_claims vc;
    ck_assert_int_eq(ez_logup_verify_tagged(&tr, t, lens, tags, nc, &r, &vc), EZ_OK);
    ck_assert(ez_reader_done(&r));
    ck_assert(claims_equal(&pc, &vc));
    /* Both sides end in the same transcript state: the caller continues from it. */
    ck_assert(!memcmp(tp.state, tr.state, sizeof tr.state) && tp.nmsg == tr.nmsg);
    ck_assert(claims_true(&vc, c, nc, width, m, tsize));
    ez_logup_claims_clear(&vc);
    ez_logup_claims_clear(&pc);
    ez_writer_clear(&w);
    free(m);
}

/* honest_roundtrip with t's trees capped at 2^cap leaves (lib/logup.h max_tree_log), for
 * cap = lo, lo + step, ... up to hi. */
static void honest_capped(const ez_logup_table *t, const ez_logup_column *c, size_t nc, unsigned lo, unsigned hi,
                          unsigned step)
{
    for (unsigned cap = lo; cap <= hi; cap += step) {
        ez_logup_table tc = *t;
        tc.max_tree_log = cap;
        honest_roundtrip(&tc, c, nc);
    }
}

/* The checked fixture: the test's generator and the arrays it makes (fx_alloc: range
 * values, tables, columns, multiplicities), freed after the test. */
static struct {
    ez_rng rng;
    void *keep[64];
    size_t nkeep;
} fx;

static void fx_setup(void)
{
    fx.rng = ez_rng_for("logup");
    fx.nkeep = 0;
}

static void fx_teardown(void)
{
    for (size_t i = 0; i < fx.nkeep; i++)
        free(fx.keep[i]);
    fx.nkeep = 0;
}

/* n zeroed field elements, freed after the test. */
static ez_fe *fx_alloc(uint64_t n)
{
    ck_assert_uint_lt(fx.nkeep, sizeof fx.keep / sizeof fx.keep[0]);
    ez_fe *v = calloc((size_t)(n ? n : 1), sizeof *v);
    ck_assert_ptr_nonnull(v);
    return fx.keep[fx.nkeep++] = v;
}

static ez_fe *range_values(ez_rng *rng, uint64_t len, unsigned bits)
{
    ez_fe *v = fx_alloc(len);
    for (uint64_t i = 0; i < len; i++)
        v[i] = ez_rng_next(rng) & ((UINT64_C(1) << bits) - 1);
    return v;
}

/* n columns c[i] of lens[i] random values below 2^tags[i], tagged tags[i] (a RANGES
 * table's regions); their values in v[i]. */
static void range_columns(ez_logup_column *c, ez_fe **v, size_t n, const uint64_t *lens, const unsigned *tags)
{
    for (size_t i = 0; i < n; i++) {
        v[i] = range_values(&fx.rng, lens[i], tags[i]);
        c[i] = (ez_logup_column){.len = lens[i], .cols = {v[i]}, .tag = tags[i]};
    }
}

/* ---- the fraction tree on its own ----------------------------------------------------- */

/* A leaf maker over an array (lib/gkr.h ez_gkr_leaf_fn), counting its calls. */
typedef struct {
    const ez_fe2 *q;
    uint64_t n, calls;
} leaf_src;

static void leaf_src_fill(void *ctx, uint64_t lo, uint64_t hi, ez_fe2 *q)
{
    leaf_src *s = ctx;
    ck_assert(lo < hi && hi <= s->n && hi - lo <= 256);
    memcpy(q, s->q + lo, (hi - lo) * sizeof *q);
#pragma omp atomic
    s->calls++;
}

START_TEST(test_gkr_tree)
{
    ez_rng rng = ez_rng_for("gkr_tree");
    for (unsigned n = 0; n <= 9; n++) {
        size_t N = (size_t)1 << n;
        ez_fe *pb = malloc(N * sizeof *pb);
        ez_fe2 *pe = malloc(N * sizeof *pe), *q = malloc(N * sizeof *q);
        for (size_t i = 0; i < N; i++) {
            pb[i] = ez_rng_fe(&rng);
            pe[i] = ez_rng_fe2(&rng);
            q[i] = ez_rng_fe2(&rng);
            if (i % 3 == 1) /* the largest coordinates: the node's unreduced sums carry */
                pe[i] = q[i] = ez_fe2_make(EZ_P - 1, EZ_P - 1);
        }
        /* Numerators: 0 base, 1 extension, 2 unit (all one). */
        for (int kind = 0; kind < 3; kind++) {
            const bool unit = kind == 2;
            ez_gkr_frac_tree *t;
            ck_assert_int_eq(ez_gkr_frac_tree_new(&t, n, kind == 0 ? pb : NULL, kind == 1 ? pe : NULL, q), EZ_OK);
            ck_assert(ez_gkr_frac_tree_unit(t) == unit);
            ez_fe2 rp, rq;
            ez_gkr_frac_tree_root(t, &rp, &rq);
            /* The root is the sum of the leaf fractions: rp/rq == sum p_i/q_i. */
            ez_fe2 sum = ez_fe2_zero();
            for (size_t i = 0; i < N; i++) {
                ez_fe2 p = kind == 0 ? ez_fe2_from_fe(pb[i]) : kind == 1 ? pe[i] : ez_fe2_one();
                sum = ez_fe2_add(sum, ez_fe2_mul(p, ez_fe2_inv(q[i])));
            }
            ck_assert(ez_fe2_eq(sum, ez_fe2_mul(rp, ez_fe2_inv(rq))));

            ez_transcript tp, tv;
            ez_transcript_init(&tp, "gkr");
            tv = tp;
            ez_writer w;
            ez_writer_init(&w);
            ez_fe2 pt[EZ_GKR_MAX_VARS], P, Q, vpt[EZ_GKR_MAX_VARS], vP, vQ;
            ck_assert_int_eq(ez_gkr_frac_prove(&tp, t, &w, pt, &P, &Q), EZ_OK);
            ck_assert_uint_eq(w.len, ez_gkr_frac_proof_bytes(n, unit));
            ez_fe2 want_p = kind == 0 ? ez_mle_eval_fe(pb, N, pt, n)
                            : kind == 1 ? ez_mle_eval_fe2(pe, N, pt, n)
                                        : ez_fe2_one();
            ck_assert(ez_fe2_eq(P, want_p));
            ck_assert(ez_fe2_eq(Q, ez_mle_eval_fe2(q, N, pt, n)));

            ez_reader r;
            ez_reader_init(&r, w.data, w.len);
            ck_assert_int_eq(ez_gkr_frac_verify(&tv, n, unit, rp, rq, &r, vpt, &vP, &vQ), EZ_OK);
            ck_assert(ez_reader_done(&r));
            ck_assert(ez_fe2_eq(vP, P) && ez_fe2_eq(vQ, Q));
            for (unsigned j = 0; j < n; j++)
                ck_assert(ez_fe2_eq(vpt[j], pt[j]));
            ck_assert(!memcmp(tp.state, tv.state, sizeof tp.state));

            /* A wrong root is rejected: its numerator, or its denominator alone (the
             * leaf claims the verifier would return are the tree's, true: only the
             * layer-1 check of the root's denominator catches it; LogUp relies on it,
             * a prover faking one instance's q could make the roots sum to zero). */
            if (n > 0) {
                ez_transcript_init(&tv, "gkr");
                ez_reader_init(&r, w.data, w.len);
                ck_assert_int_eq(ez_gkr_frac_verify(&tv, n, unit, ez_fe2_add(rp, ez_fe2_one()), rq, &r, vpt, &vP, &vQ),
                                 EZ_ERR_REJECT);
                ez_transcript_init(&tv, "gkr");
                ez_reader_init(&r, w.data, w.len);
                ck_assert_int_eq(ez_gkr_frac_verify(&tv, n, unit, rp, ez_fe2_add(rq, ez_fe2_one()), &r, vpt, &vP, &vQ),
                                 EZ_ERR_REJECT);
            }
            if (unit) {
                /* The same unit tree from leaves made on demand: the same root and the
                 * same proof bytes, and every leaf made (twice, for n > 0). */
                leaf_src src = {q, N, 0};
                ez_gkr_frac_tree *tf;
                ck_assert_int_eq(ez_gkr_frac_tree_new_unit(&tf, n, leaf_src_fill, &src), EZ_OK);
                ck_assert(ez_gkr_frac_tree_unit(tf));
                ez_fe2 fp, fq;
                ez_gkr_frac_tree_root(tf, &fp, &fq);
                ck_assert(ez_fe2_eq(fp, rp) && ez_fe2_eq(fq, rq));
                ez_transcript tf2;
                ez_transcript_init(&tf2, "gkr");
                ez_writer wf;
                ez_writer_init(&wf);
                ez_fe2 fpt[EZ_GKR_MAX_VARS], fP, fQ;
                ck_assert_int_eq(ez_gkr_frac_prove(&tf2, tf, &wf, fpt, &fP, &fQ), EZ_OK);
                ck_assert_uint_eq(wf.len, w.len);
                ck_assert(w.len == 0 || !memcmp(wf.data, w.data, w.len)); /* n = 0: no bytes, NULL data */
                ck_assert(ez_fe2_eq(fP, P) && ez_fe2_eq(fQ, Q));
                ck_assert(src.calls >= (n > 0 ? 2 : 1));
                ez_writer_clear(&wf);
                ez_gkr_frac_tree_free(tf);
            }
            ez_writer_clear(&w);
            ez_gkr_frac_tree_free(t);
        }
        free(pb);
        free(pe);
        free(q);
    }
    /* no denominators, from neither source */
    ez_gkr_frac_tree *t;
    ck_assert_int_eq(ez_gkr_frac_tree_new(&t, 3, NULL, NULL, NULL), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_gkr_frac_tree_new_unit(&t, 3, NULL, NULL), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_gkr_frac_tree_new_unit(&t, EZ_GKR_MAX_VARS + 1, leaf_src_fill, NULL), EZ_ERR_INVALID);
}
END_TEST

/* ---- honest provers ------------------------------------------------------------------- */

START_TEST(test_range_honest)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 8};
    const uint64_t lens[] = {1000, 3, 1, 256, 100, 257};
    ez_logup_column c[6];
    ez_fe *vals[6];
    for (int i = 0; i < 6; i++) {
        vals[i] = range_values(&fx.rng, lens[i], 8);
        c[i] = (ez_logup_column){.len = lens[i], .cols = {vals[i]}};
    }
    honest_roundtrip(&t, c, 6);
    /* Extremes of the table: 0 and 255 only. */
    for (uint64_t i = 0; i < lens[0]; i++)
        vals[0][i] = (i & 1) ? 255 : 0;
    honest_roundtrip(&t, c, 1);
}
END_TEST

START_TEST(test_range16)
{
    /* The production table size: one column of exactly 2^12 rows (no padding at all),
     * one of 20000 rows (large enough for the threaded loops); and a bits = 0 table. */
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 16};
    ez_fe *v = range_values(&fx.rng, 20000, 16);
    ez_logup_column c = {.len = 4096, .cols = {v}};
    honest_roundtrip(&t, &c, 1);
    c.len = 20000;
    honest_roundtrip(&t, &c, 1);
    ez_logup_table t0 = {.kind = EZ_TABLE_RANGE, .bits = 0};
    memset(v, 0, 5 * sizeof *v);
    ez_logup_column c0 = {.len = 5, .cols = {v}};
    honest_roundtrip(&t0, &c0, 1);
}
END_TEST

/* An explicit table of nrows distinct random rows of the given width. */
static void random_table(ez_rng *rng, ez_logup_table *t, ez_fe **cols, unsigned width, uint64_t nrows)
{
    memset(t, 0, sizeof *t);
    t->kind = EZ_TABLE_EXPLICIT;
    t->ncols = width;
    t->nrows = nrows;
    for (unsigned w = 0; w < width; w++) {
        cols[w] = fx_alloc(nrows);
        for (uint64_t j = 0; j < nrows; j++)
            cols[w][j] = w == 0 ? (ez_fe)j * 3 + 1 : ez_rng_fe(rng); /* column 0 distinct */
        t->cols[w] = cols[w];
    }
}

/* A column of len rows sampled from the table's rows. */
static void sample_rows(ez_rng *rng, ez_fe **out, const ez_logup_table *t, uint64_t len)
{
    for (unsigned w = 0; w < t->ncols; w++) {
        out[w] = fx_alloc(len);
    }
    for (uint64_t i = 0; i < len; i++) {
        uint64_t j = ez_rng_next(rng) % t->nrows;
        for (unsigned w = 0; w < t->ncols; w++)
            out[w][i] = t->cols[w][j];
    }
}

/* An explicit table of nrows random rows of the given width and n columns of lens[i]
 * rows sampled from it (fx's generator and arrays): the honest proof verifies
 * (honest_roundtrip). */
static void explicit_honest(unsigned width, uint64_t nrows, const uint64_t *lens, size_t n)
{
    ez_logup_table t;
    ez_fe *tc[4], *cv[4][4];
    ez_logup_column c[4] = {{0}};
    ck_assert_uint_le(n, 4);
    random_table(&fx.rng, &t, tc, width, nrows);
    for (size_t i = 0; i < n; i++) {
        sample_rows(&fx.rng, cv[i], &t, lens[i]);
        c[i].len = lens[i];
        for (unsigned w = 0; w < width; w++)
            c[i].cols[w] = cv[i][w];
    }
    honest_roundtrip(&t, c, n);
}

START_TEST(test_explicit_1col)
{
    const uint64_t lens[] = {17, 512, 1};
    explicit_honest(1, 300, lens, 3);
}
END_TEST

START_TEST(test_explicit_2col)
{
    const uint64_t lens[] = {5, 77, 513, 1024};
    explicit_honest(2, 1000, lens, 4);
}
END_TEST

START_TEST(test_explicit_4col_dups)
{
    /* Width 4, a table with repeated rows (counted at the first occurrence) and a
     * one-row table (a tree of zero variables). */
    ez_logup_table t;
    ez_fe *tc[4];
    random_table(&fx.rng, &t, tc, 4, 40);
    for (unsigned w = 0; w < 4; w++)
        tc[w][39] = tc[w][7];
    ez_fe *cv[2][4];
    ez_logup_column c[2];
    sample_rows(&fx.rng, cv[0], &t, 90);
    sample_rows(&fx.rng, cv[1], &t, 33);
    for (int i = 0; i < 2; i++)
        c[i] = (ez_logup_column){.len = i ? 33 : 90, .cols = {cv[i][0], cv[i][1], cv[i][2], cv[i][3]}};
    honest_roundtrip(&t, c, 2);
    ez_fe m[40];
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, NULL), EZ_OK);
    ck_assert_uint_eq(m[39], 0);

    ez_logup_table t1 = t;
    t1.nrows = 1;
    for (int i = 0; i < 2; i++)
        for (unsigned w = 0; w < 4; w++)
            for (int k = 0; k < 3; k++)
                cv[i][w][k] = tc[w][0];
    c[0].len = 3;
    c[1].len = 1;
    honest_roundtrip(&t1, c, 2);
}
END_TEST

START_TEST(test_many_columns)
{
    /* Many columns of mixed sizes: several trees (one per set bit of the total), some
     * of zero variables, columns of length 1. */
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 5};
    enum { NC = 23 };
    ez_logup_column c[NC];
    ez_fe *v[NC];
    for (int i = 0; i < NC; i++) {
        uint64_t len = 1 + ez_rng_next(&fx.rng) % (i < 5 ? 2 : 70);
        v[i] = range_values(&fx.rng, len, 5);
        c[i] = (ez_logup_column){.len = len, .cols = {v[i]}};
    }
    honest_roundtrip(&t, c, NC);
}
END_TEST

START_TEST(test_ranges_honest)
{
    /* One RANGES table with regions 16, 12, 8, 3, 1 bits; columns of every width and of
     * mixed lengths (several trees, padding rows, a column of length 1). */
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 5, .rbits = {16, 12, 8, 3, 1}};
    ck_assert_uint_eq(ez_logup_table_size(&t), 65536 + 4096 + 256 + 8 + 2);
    ck_assert_uint_eq(ez_logup_table_width(&t), 1);
    const uint64_t lens[] = {3000, 1, 4096, 77, 512, 1000, 5};
    const unsigned tags[] = {16, 12, 8, 3, 1, 12, 16};
    ez_logup_column c[7];
    ez_fe *v[7];
    range_columns(c, v, 7, lens, tags);
    v[2][0] = 255; /* the edges of a region */
    v[2][1] = 0;
    honest_roundtrip(&t, c, 7);
    /* trees capped at 2^6 and 2^10 leaves: many trees, the table a tree of its own,
     * column pieces above the cap cut to its size */
    honest_capped(&t, c, 7, 6, 10, 4);
    /* a single region is a plain range check with a tag */
    ez_logup_table t1 = {.kind = EZ_TABLE_RANGES, .nranges = 1, .rbits = {8}};
    honest_roundtrip(&t1, &c[2], 1);
}
END_TEST

/* The prover's leaf values are the columns' true MLE values whatever the columns hold:
 * values of 32 bits and more (not the small-value sums of lib/logup.c's leaf values) in
 * pieces of 1024 rows and more, sharing a tree with others. Such a witness is rejected;
 * its claims still hold. */
START_TEST(test_leaf_values_large)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 2, .rbits = {16, 8}};
    uint64_t tsize = ez_logup_table_size(&t);
    ez_fe *a = range_values(&fx.rng, 3000, 16), *b = range_values(&fx.rng, 1500, 8);
    a[7] = EZ_P - 1;
    a[2500] = UINT64_C(1) << 40;
    b[1400] = UINT64_C(1) << 32;
    ez_logup_column c[2] = {{.len = 3000, .cols = {a}, .tag = 16}, {.len = 1500, .cols = {b}, .tag = 8}};
    ez_fe *m = fx_alloc(tsize);
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, NULL), EZ_ERR_NUMERIC);
    ez_writer w;
    ez_logup_claims pc;
    prove(&t, c, 2, m, &w, &pc);
    ck_assert(claims_true(&pc, c, 2, 1, m, tsize));
    ck_assert(!accepts(&t, c, 2, m, w.data, w.len, NULL));
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
}
END_TEST

/* ---- malicious provers ----------------------------------------------------------------- */

START_TEST(test_ranges_outside)
{
    /* A value inside the table but outside its column's region (300 in an 8-bit column:
     * a row of the 12- and 16-bit regions) is not in the table. */
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 3, .rbits = {16, 12, 8}};
    uint64_t tsize = ez_logup_table_size(&t);
    ez_fe *a = range_values(&fx.rng, 200, 16), *b = range_values(&fx.rng, 64, 8);
    b[7] = 300;
    ez_logup_column c[2] = {{.len = 200, .cols = {a}, .tag = 16}, {.len = 64, .cols = {b}, .tag = 8}};
    ez_fe *m = fx_alloc(tsize);
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, &d), EZ_ERR_NUMERIC);
    ck_assert_str_eq(d.msg, "lookup column 1, row 7: value 300 is outside the range [0, 2^8)");
    ez_writer w;
    ez_logup_claims pc;
    /* m as computed, and m counting the row in the 12-bit or 16-bit region */
    const uint64_t fudge[] = {UINT64_MAX, 65536 + 300, 300};
    for (int k = 0; k < 3; k++) {
        ez_fe *mf = malloc((size_t)tsize * sizeof *mf);
        memcpy(mf, m, (size_t)tsize * sizeof *mf);
        if (fudge[k] != UINT64_MAX)
            mf[fudge[k]] = ez_fe_add(mf[fudge[k]], 1);
        ez_status st;
        ck_assert(!proof_accepted(&t, c, 2, mf, &st));
        ck_assert_int_eq(st, EZ_ERR_REJECT);
        free(mf);
    }
    /* the same with trees capped at 2^5 leaves: the bad row sits in one of many trees */
    ez_logup_table tcap = t;
    tcap.max_tree_log = 5;
    ck_assert(!proof_accepted(&tcap, c, 2, m, NULL));
    /* An honest proof for tag 12 is rejected by a verifier that checks tag 8. */
    c[1].tag = 12;
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, &d), EZ_OK);
    prove(&t, c, 2, m, &w, &pc);
    ck_assert(accepts(&t, c, 2, m, w.data, w.len, NULL));
    c[1].tag = 8;
    ck_assert(!accepts(&t, c, 2, m, w.data, w.len, NULL));
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
    /* malformed RANGES tables and tags */
    uint64_t lens[2] = {200, 64};
    unsigned badtag[2] = {16, 5};
    ez_reader r;
    ez_reader_init(&r, (const uint8_t *)"", 0);
    ez_logup_claims vc;
    ez_transcript tr;
    start(&tr, m, tsize);
    ck_assert_int_eq(ez_logup_verify_tagged(&tr, &t, lens, badtag, 2, &r, &vc), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_logup_verify(&tr, &t, lens, 2, &r, &vc), EZ_ERR_INVALID);
    ez_logup_table bad1 = {.kind = EZ_TABLE_RANGES, .nranges = 2, .rbits = {8, 12}}; /* not decreasing */
    ez_logup_table bad2 = {.kind = EZ_TABLE_RANGES, .nranges = 2, .rbits = {17, 12}};
    ez_logup_table bad3 = {.kind = EZ_TABLE_RANGES, .nranges = 0};
    ck_assert_uint_eq(ez_logup_table_size(&bad1), 0);
    ck_assert_uint_eq(ez_logup_table_size(&bad2), 0);
    ck_assert_uint_eq(ez_logup_table_size(&bad3), 0);
    c[1].tag = 5; /* not a region */
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, &d), EZ_ERR_INVALID);
}
END_TEST

START_TEST(test_value_outside_table)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 8};
    ez_fe *a = range_values(&fx.rng, 100, 8), *b = range_values(&fx.rng, 50, 8);
    b[5] = 256; /* just outside */
    ez_logup_column c[2] = {{.len = 100, .cols = {a}}, {.len = 50, .cols = {b}}};
    ez_fe m[256];
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, &d), EZ_ERR_NUMERIC);
    ck_assert_str_eq(d.msg, "lookup column 1, row 5: value 256 is outside the range [0, 2^8)");
    uint64_t total = 0;
    for (int j = 0; j < 256; j++)
        total += m[j];
    ck_assert_uint_eq(total, 149); /* every other row counted */

    /* An honest prover on this witness is rejected ... */
    ck_assert(!proof_accepted(&t, c, 2, m, NULL));
    /* ... and so is one that fudges m to make the counts add up (the bad row counted at
     * 255, at 0, or a negative value that hides as p - 1). */
    const int fudge[] = {255, 0};
    for (int k = 0; k < 2; k++) {
        ez_fe mf[256];
        memcpy(mf, m, sizeof mf);
        mf[fudge[k]] = ez_fe_add(mf[fudge[k]], 1);
        ez_status st;
        ck_assert(!proof_accepted(&t, c, 2, mf, &st));
        ck_assert_int_eq(st, EZ_ERR_REJECT);
    }
    b[5] = EZ_P - 1;
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, &d), EZ_ERR_NUMERIC);
    ck_assert_str_eq(d.msg, "lookup column 1, row 5: value -1 is outside the range [0, 2^8)");
    ck_assert(!proof_accepted(&t, c, 2, m, NULL));
}
END_TEST

START_TEST(test_outside_explicit)
{
    ez_logup_table t;
    ez_fe *tc[4];
    random_table(&fx.rng, &t, tc, 2, 64);
    ez_fe *cv[4];
    sample_rows(&fx.rng, cv, &t, 20);
    cv[1][12] = ez_fe_add(cv[1][12], 1); /* right key, wrong value: not a row */
    ez_logup_column c = {.len = 20, .cols = {cv[0], cv[1]}};
    ez_fe m[64];
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, &c, 1, &d), EZ_ERR_NUMERIC);
    ck_assert_ptr_nonnull(strstr(d.msg, "lookup column 0, row 12: ("));
    ck_assert_ptr_nonnull(strstr(d.msg, "is not a row of the table"));
    ck_assert(!proof_accepted(&t, &c, 1, m, NULL));
}
END_TEST

START_TEST(test_wrong_multiplicity)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 6};
    ez_fe *a = range_values(&fx.rng, 200, 6);
    ez_logup_column c = {.len = 200, .cols = {a}};
    ez_fe m[64];
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, &c, 1, NULL), EZ_OK);
    /* One count too many; one moved to another row (same total). */
    for (int k = 0; k < 2; k++) {
        ez_fe mf[64];
        memcpy(mf, m, sizeof mf);
        mf[a[0]] = ez_fe_add(mf[a[0]], 1);
        if (k == 1)
            mf[(a[0] + 1) % 64] = ez_fe_sub(mf[(a[0] + 1) % 64], 1);
        ez_writer w;
        ez_logup_claims pc;
        prove(&t, &c, 1, mf, &w, &pc);
        ez_status st;
        ck_assert(!accepts(&t, &c, 1, mf, w.data, w.len, &st));
        ck_assert_int_eq(st, EZ_ERR_REJECT);
        /* The honest proof does not verify against the fudged commitment either. */
        ez_writer_clear(&w);
        ez_logup_claims_clear(&pc);
    }
    {
        ez_writer w;
        ez_logup_claims pc;
        prove(&t, &c, 1, m, &w, &pc);
        ck_assert(accepts(&t, &c, 1, m, w.data, w.len, NULL));
        ez_fe mf[64];
        memcpy(mf, m, sizeof mf);
        mf[3] = ez_fe_add(mf[3], 1);
        ck_assert(!accepts(&t, &c, 1, mf, w.data, w.len, NULL)); /* other transcript and claim */
        ez_writer_clear(&w);
        ez_logup_claims_clear(&pc);
    }
}
END_TEST

/* accepts() for the tamper helpers: one column c of table t with multiplicities m. */
typedef struct {
    const ez_logup_table *t;
    const ez_logup_column *c;
    const ez_fe *m;
} one_column;

static bool one_column_accepts(void *ctx, const uint8_t *p, size_t len, ez_status *st)
{
    const one_column *oc = ctx;
    return accepts(oc->t, oc->c, 1, oc->m, p, len, st);
}

/* Every single-byte change of w, a proof of the one column c with multiplicities m, is
 * rejected; what names it in failure messages. */
static void one_column_flips_rejected(const ez_logup_table *t, const ez_logup_column *c, const ez_fe *m,
                                      const ez_writer *w, const char *what)
{
    one_column cc = {t, c, m};
    ez_tamper_opts flips = {0};
    ez_tamper_bytes(w->data, w->len, &flips, one_column_accepts, &cc, what);
}

/* Offsets into the proof of a single-column range lookup with a 2^kT table and a
 * 2^kc column, kc > kT: the table's tree first, then the column's, each as [its root:
 * 32][its GKR proof][its 1 leaf value]. */
START_TEST(test_tamper_messages)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 4};
    ez_fe *a = range_values(&fx.rng, 100, 4); /* kc = 7 */
    ez_logup_column c = {.len = 100, .cols = {a}};
    ez_fe m[16];
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, &c, 1, NULL), EZ_OK);
    ez_writer w;
    ez_logup_claims pc;
    prove(&t, &c, 1, m, &w, &pc);
    size_t tab_tree = 32, tab_leaf = tab_tree + (size_t)ez_gkr_frac_proof_bytes(4, false);
    size_t col_root = tab_leaf + 16, col_tree = col_root + 32;
    size_t col_leaf = col_tree + (size_t)ez_gkr_frac_proof_bytes(7, true);
    ck_assert_uint_eq(w.len, col_leaf + 16);
    ck_assert(accepts(&t, &c, 1, m, w.data, w.len, NULL));

    /* Replace one field element by another valid one (so parsing succeeds) at: the
     * table's root (p, q), its tree, m's value, the column's root (p, q), a layer-1
     * value, a sumcheck round message of a middle layer, a final sumcheck eval, the
     * column's leaf value (the final claim). */
    const size_t at[] = {0, 16, tab_tree + 80, tab_leaf, col_root, col_root + 16, col_tree,
                         col_tree + 64 + 16 * 7, col_tree + 64 + 16 * (3 + 4) + 16 * 6, col_leaf - 16, col_leaf};
    uint8_t *buf = malloc(w.len);
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        memcpy(buf, w.data, w.len);
        ez_tamper_fe2(buf + at[k]);
        ez_status st;
        ck_assert_msg(!accepts(&t, &c, 1, m, buf, w.len, &st), "tamper at %zu accepted", at[k]);
        ck_assert_int_eq(st, EZ_ERR_REJECT);
    }
    free(buf);
    /* Every single-byte change anywhere is rejected. */
    one_column_flips_rejected(&t, &c, m, &w, "logup proof");
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
}
END_TEST

START_TEST(test_substituted_column)
{
    /* A prover that runs the protocol on a different column b (also in the table, same
     * multiplicities) than the column a the caller holds: every check inside logup
     * passes, but the returned claim on a's MLE is false and the caller rejects. */
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 4};
    ez_fe *a = range_values(&fx.rng, 40, 4), *b = fx_alloc(40);
    for (int i = 0; i < 40; i++)
        b[i] = a[39 - i]; /* a permutation: identical multiplicities */
    ez_logup_column ca = {.len = 40, .cols = {a}}, cb = {.len = 40, .cols = {b}};
    ez_fe m[16];
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, &ca, 1, NULL), EZ_OK);
    ez_writer w;
    ez_logup_claims pc;
    prove(&t, &cb, 1, m, &w, &pc);
    ez_status st;
    ck_assert(!accepts(&t, &ca, 1, m, w.data, w.len, &st));
    ck_assert_int_eq(st, EZ_OK); /* logup itself accepted: the claim check caught it */
    ck_assert(accepts(&t, &cb, 1, m, w.data, w.len, NULL));
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
}
END_TEST

/* The leaves' denominators (issue 8): a prover runs the GKR on an in-table column a'
 * but reports, as the column's leaf value, the MLE of the column a it is bound to, which
 * holds a value outside the table. Every GKR layer, the roots' sum and the numerators
 * are those of a' (same multiplicities); the claims the verifier hands back are true for
 * a and m. Only the comparison of the GKR's final denominator with the leaves' (built
 * from the reported value) catches it. Two trees (table and column, 16 rows each): the
 * column's, last, ends the proof with its leaf value a' at the point. */
START_TEST(test_leaf_denominator_substituted)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 4};
    for (int trial = 0; trial < 3; trial++) {
        ez_fe *ap = range_values(&fx.rng, 16, 4), *a = fx_alloc(16);
        memcpy(a, ap, 16 * sizeof *a);
        a[ez_rng_next(&fx.rng) % 16] = trial == 0 ? 16 : trial == 1 ? EZ_P - 1 : 1000; /* outside [0, 16) */
        ez_logup_column ca = {.len = 16, .cols = {a}}, cp = {.len = 16, .cols = {ap}};
        ez_fe m[16];
        ez_writer w;
        ez_logup_claims pc;
        honest_one_column(&t, &cp, m, &w, &pc);
        ck_assert_uint_eq(pc.nclaims, 1);
        ez_fe2 v = ez_mle_eval_fe(a, 16, pc.col[0].point, pc.col[0].nvars);
        ck_assert_uint_ge(w.len, 16);
        ez_fe2_encode(w.data + w.len - 16, v);
        ez_status st;
        ck_assert(!accepts(&t, &ca, 1, m, w.data, w.len, &st));
        ck_assert_int_eq(st, EZ_ERR_REJECT); /* logup itself rejects: the claims would hold */
        ez_writer_clear(&w);
        ez_logup_claims_clear(&pc);
    }
}
END_TEST

START_TEST(test_truncated_and_garbage)
{
    ez_logup_table t;
    ez_fe *tc[4];
    random_table(&fx.rng, &t, tc, 2, 20);
    ez_fe *cv[2][4];
    sample_rows(&fx.rng, cv[0], &t, 30);
    sample_rows(&fx.rng, cv[1], &t, 3);
    ez_logup_column c[2] = {{.len = 30, .cols = {cv[0][0], cv[0][1]}}, {.len = 3, .cols = {cv[1][0], cv[1][1]}}};
    ez_fe m[20];
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, NULL), EZ_OK);
    ez_writer w;
    ez_logup_claims pc;
    prove(&t, c, 2, m, &w, &pc);
    for (size_t len = 0; len < w.len; len++) {
        ez_status st;
        ck_assert(!accepts(&t, c, 2, m, w.data, len, &st));
        ck_assert_int_eq(st, EZ_ERR_REJECT);
    }
    /* Random bytes of the right length. */
    uint8_t *g = malloc(w.len);
    for (int k = 0; k < 20; k++) {
        for (size_t i = 0; i < w.len; i++)
            g[i] = (uint8_t)ez_rng_next(&fx.rng);
        ck_assert(!accepts(&t, c, 2, m, g, w.len, NULL));
    }
    free(g);
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
}
END_TEST

/* ---- pair regions (docs/protocol-kernel-logup.md §2a) ------------------------------- */

START_TEST(test_pairs_honest)
{
    /* Pairs at the boundary widths 1 and 8 and at 3, next to an unpaired 16; columns of
     * 1, 2, 3 (a one-row piece left single), 64 and odd lengths, both halves of a piece
     * at a region's edges; trees capped at 2^4 and 2^6 leaves too (pieces cut at the cap,
     * each paired on its own). */
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 4, .rbits = {16, 8, 3, 1},
                        .pairs = (1u << 8) | (1u << 3) | (1u << 1)};
    ck_assert_uint_eq(ez_logup_table_size(&t), 65536 + 256 + 8 + 2 + 65536 + 64 + 4);
    const uint64_t lens[] = {1, 2, 3, 4096, 777, 5, 64, 300, 33};
    const unsigned tags[] = {8, 8, 8, 8, 8, 1, 3, 16, 1};
    ez_logup_column c[9];
    ez_fe *v[9];
    range_columns(c, v, 9, lens, tags);
    v[3][0] = 255; /* (255, 0) and (0, 255): a pair region's corners */
    v[3][2048] = 0;
    v[3][1] = 0;
    v[3][2049] = 255;
    honest_roundtrip(&t, c, 9);
    honest_capped(&t, c, 9, 4, 6, 2);
    /* fewer leaves than unpaired: the same columns' proof is shorter (fewer GKR layers) */
    uint64_t with, without;
    ez_logup_table t0 = t;
    t0.pairs = 0;
    ck_assert_int_eq(ez_logup_proof_bytes(&t, lens, tags, 9, &with), EZ_OK);
    ck_assert_int_eq(ez_logup_proof_bytes(&t0, lens, tags, 9, &without), EZ_OK);
    ck_assert_uint_ne(with, without);
    ck_assert_int_eq(ez_logup_proof_bytes(&t, lens, NULL, 9, &with), EZ_ERR_INVALID);
    /* malformed pairs: a width without its single region, above 8 bits, or not RANGES */
    ez_logup_table bad1 = {.kind = EZ_TABLE_RANGES, .nranges = 1, .rbits = {8}, .pairs = 1u << 4};
    ez_logup_table bad2 = {.kind = EZ_TABLE_RANGES, .nranges = 1, .rbits = {9}, .pairs = 1u << 9};
    ez_logup_table bad3 = {.kind = EZ_TABLE_RANGE, .bits = 8, .pairs = 1u << 8};
    ck_assert_uint_eq(ez_logup_table_size(&bad1), 0);
    ck_assert_uint_eq(ez_logup_table_size(&bad2), 0);
    ck_assert_uint_eq(ez_logup_table_size(&bad3), 0);
}
END_TEST

/* A paired value outside its width, in the first or the second half of a piece: the
 * pair (7, 9) becomes (7 + 256, 8) (in the first element's slot), which the naive
 * encoding a + 256 b cannot tell from it, or (300, 9) with 300 a row of the 9-bit
 * region. m counts the original pair (k = 0), the tampered pair's in-range residues
 * (k = 1: the counts add up), or 300 in the 9-bit region (k = 2). All rejected. */
START_TEST(test_pairs_outside)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 2, .rbits = {9, 8}, .pairs = 1u << 8};
    const uint64_t tsize = ez_logup_table_size(&t), pair0 = 0, r9 = 65536; /* widest first */
    ck_assert_uint_eq(tsize, 65536 + 512 + 256);
    for (int half = 0; half < 2; half++) {
        ez_fe *a = range_values(&fx.rng, 64, 8);
        const uint64_t i0 = 5 + (uint64_t)half * 32, i1 = half ? i0 - 32 : i0 + 32; /* the bad row, its partner */
        a[i0] = 7;
        a[i1] = 9;
        ez_logup_column c = {.len = 64, .cols = {a}, .tag = 8};
        ez_fe *m = fx_alloc(tsize);
        ck_assert_int_eq(ez_logup_multiplicities(m, &t, &c, 1, NULL), EZ_OK);
        /* the row of a pair (x at i0, y at i1) in piece order (first half first) */
#define PAIR_ROW(x, y) (half ? pair0 + (y) + 256 * (x) : pair0 + (x) + 256 * (y))
        for (int k = 0; k < 3; k++) {
            ez_fe *mf = malloc((size_t)tsize * sizeof *mf);
            memcpy(mf, m, (size_t)tsize * sizeof *mf);
            a[i0] = k == 2 ? 300 : 7 + 256;
            a[i1] = k == 2 ? 9 : 8;
            if (k == 1)
                mf[PAIR_ROW(7, 9)] = ez_fe_sub(mf[PAIR_ROW(7, 9)], 1), mf[PAIR_ROW(7, 8)] = ez_fe_add(mf[PAIR_ROW(7, 8)], 1);
            if (k == 2)
                mf[PAIR_ROW(7, 9)] = ez_fe_sub(mf[PAIR_ROW(7, 9)], 1), mf[r9 + 300] = ez_fe_add(mf[r9 + 300], 1);
            ez_fe *mm = fx_alloc(tsize);
            ck_assert_int_eq(ez_logup_multiplicities(mm, &t, &c, 1, NULL), EZ_ERR_NUMERIC);
            ez_writer w;
            ez_logup_claims pc;
            prove(&t, &c, 1, mf, &w, &pc);
            ez_status st;
            ck_assert_msg(!accepts(&t, &c, 1, mf, w.data, w.len, &st), "half %d case %d accepted", half, k);
            ck_assert_int_eq(st, EZ_ERR_REJECT);
            ez_writer_clear(&w);
            ez_logup_claims_clear(&pc);
            free(mf);
        }
#undef PAIR_ROW
    }
}
END_TEST

/* A paired piece's two leaf values: each tampered, and the GKR run on an in-range
 * column a' while the values sent are those of the column a the caller holds (one
 * value outside [0, 2^w)): the claims would hold for a, so only the leaf check catches
 * it. Then every single-byte change of a small paired proof. */
START_TEST(test_pairs_leaf_values)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 1, .rbits = {3}, .pairs = 1u << 3};
    ck_assert_uint_eq(ez_logup_table_size(&t), 64 + 8);
    ez_fe *ap = range_values(&fx.rng, 64, 3), *a = fx_alloc(64);
    memcpy(a, ap, 64 * sizeof *a);
    a[40] = 8; /* outside [0, 8), in the second half */
    ez_logup_column cp = {.len = 64, .cols = {ap}, .tag = 3}, ca = {.len = 64, .cols = {a}, .tag = 3};
    ez_fe m[72];
    ez_writer w;
    ez_logup_claims pc;
    honest_one_column(&t, &cp, m, &w, &pc);
    /* one piece of 64 rows: one claim at (c, r_lo), the proof ends with V0, V1 */
    ck_assert_uint_eq(pc.nclaims, 1);
    ck_assert_uint_eq(pc.col[0].nvars, 6);
    uint8_t *buf = malloc(w.len);
    for (int k = 1; k <= 2; k++) {
        memcpy(buf, w.data, w.len);
        ez_tamper_fe2(buf + w.len - 16 * (size_t)k);
        ez_status st;
        ck_assert(!accepts(&t, &cp, 1, m, buf, w.len, &st));
        ck_assert_int_eq(st, EZ_ERR_REJECT);
    }
    /* a's halves at r_lo (the claim's point without its first coordinate, c) */
    const ez_fe2 *rlo = pc.col[0].point + 1;
    memcpy(buf, w.data, w.len);
    ez_fe2_encode(buf + w.len - 32, ez_mle_eval_fe(a, 32, rlo, 5));
    ez_fe2_encode(buf + w.len - 16, ez_mle_eval_fe(a + 32, 32, rlo, 5));
    ez_status st;
    ck_assert(!accepts(&t, &ca, 1, m, buf, w.len, &st));
    ck_assert_int_eq(st, EZ_ERR_REJECT);
    free(buf);
    one_column_flips_rejected(&t, &cp, m, &w, "paired logup proof");
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
}
END_TEST

/* A RANGES table of 2^16 + 2^14 + 2^8 + 2 rows is three trees (docs/protocol-kernel-logup.md
 * §2): its pieces of 2^16 and 2^14 rows, then the last 258 rows in a tree of 2^9 leaves
 * (padded), each with its own claim on m. A count moved from the 8-bit region to the
 * 16-bit one (the same value, the same total) is rejected; so is each tree's m value
 * changed in the proof. */
START_TEST(test_table_pieces)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGES, .nranges = 4, .rbits = {16, 14, 8, 1}};
    const uint64_t tsize = ez_logup_table_size(&t);
    ck_assert_uint_eq(tsize, 65536 + 16384 + 256 + 2);
    ez_fe *a = range_values(&fx.rng, 100, 16), *y = range_values(&fx.rng, 30, 14), *b = range_values(&fx.rng, 50, 8),
          *z = range_values(&fx.rng, 10, 1);
    ez_logup_column c[4] = {{.len = 100, .cols = {a}, .tag = 16}, {.len = 30, .cols = {y}, .tag = 14},
                            {.len = 50, .cols = {b}, .tag = 8}, {.len = 10, .cols = {z}, .tag = 1}};
    ez_fe *m = fx_alloc(tsize);
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 4, NULL), EZ_OK);
    ez_writer w;
    ez_logup_claims pc;
    prove(&t, c, 4, m, &w, &pc);
    ck_assert(accepts(&t, c, 4, m, w.data, w.len, NULL));
    ck_assert_uint_eq(pc.nmult, 3);
    /* the table's trees come first: [root][GKR][m value] each */
    size_t v0 = 32 + (size_t)ez_gkr_frac_proof_bytes(16, false);
    size_t v1 = v0 + 16 + 32 + (size_t)ez_gkr_frac_proof_bytes(14, false);
    size_t v2 = v1 + 16 + 32 + (size_t)ez_gkr_frac_proof_bytes(9, false);
    const size_t at[] = {v0, v1, v2};
    uint8_t *buf = malloc(w.len);
    for (int k = 0; k < 3; k++) {
        memcpy(buf, w.data, w.len);
        ez_tamper_fe2(buf + at[k]);
        ez_status st;
        ck_assert_msg(!accepts(&t, c, 4, m, buf, w.len, &st), "tree %d's m value", k);
        ck_assert_int_eq(st, EZ_ERR_REJECT);
    }
    free(buf);
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
    ez_fe *mf = fx_alloc(tsize);
    memcpy(mf, m, (size_t)tsize * sizeof *mf);
    const uint64_t r8 = 65536 + 16384; /* the 8-bit region's first row */
    mf[r8 + b[0]] = ez_fe_sub(mf[r8 + b[0]], 1);
    mf[b[0]] = ez_fe_add(mf[b[0]], 1);
    prove(&t, c, 4, mf, &w, &pc);
    ez_status st;
    ck_assert(!accepts(&t, c, 4, mf, w.data, w.len, &st));
    ck_assert_int_eq(st, EZ_ERR_REJECT);
    ez_writer_clear(&w);
    ez_logup_claims_clear(&pc);
}
END_TEST

START_TEST(test_invalid_arguments)
{
    ez_fe v[4] = {0, 1, 2, 3}, m[8];
    ez_logup_column c = {.len = 4, .cols = {v}};
    ez_logup_table big = {.kind = EZ_TABLE_RANGE, .bits = 17};
    ez_logup_table ex0 = {.kind = EZ_TABLE_EXPLICIT, .ncols = 1, .nrows = 4};       /* no column */
    ez_logup_table ex5 = {.kind = EZ_TABLE_EXPLICIT, .ncols = 5, .nrows = 4};       /* too wide */
    ez_logup_table ok = {.kind = EZ_TABLE_RANGE, .bits = 3};
    ck_assert_uint_eq(ez_logup_table_size(&big), 0);
    ck_assert_uint_eq(ez_logup_table_size(&ok), 8);
    ck_assert_int_eq(ez_logup_multiplicities(m, &big, &c, 1, NULL), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_logup_multiplicities(m, &ex0, &c, 1, NULL), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_logup_multiplicities(m, &ex5, &c, 1, NULL), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_logup_multiplicities(m, &ok, &c, 0, NULL), EZ_ERR_INVALID);
    ez_logup_column c0 = {.len = 0, .cols = {v}};
    ck_assert_int_eq(ez_logup_multiplicities(m, &ok, &c0, 1, NULL), EZ_ERR_INVALID);

    ez_transcript tr;
    ez_transcript_init(&tr, "x");
    ez_writer w;
    ez_writer_init(&w);
    ez_logup_claims cl;
    ck_assert_int_eq(ez_logup_prove(&tr, &big, &c, 1, m, &w, &cl), EZ_ERR_INVALID);
    ck_assert_ptr_null(cl.col);
    uint64_t lens[2] = {4, 0};
    ez_reader r;
    ez_reader_init(&r, NULL, 0);
    ck_assert_int_eq(ez_logup_verify(&tr, &ok, lens, 2, &r, &cl), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_logup_verify(&tr, &ok, lens, 0, &r, &cl), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_logup_verify(&tr, &ok, lens, 1, &r, &cl), EZ_ERR_REJECT);
    ck_assert_ptr_null(cl.col);
    ez_writer_clear(&w);
}
END_TEST

/* A function-like table, first column c0, c0 + 1, ... (no hash index: a row's position is
 * its key minus c0, then the whole row is compared): the counts equal a brute-force
 * count, the first and last rows included; a key one below c0 or one past the last, or
 * the right key with a wrong value, is not a row (its column and row named). */
START_TEST(test_mult_consecutive_keys)
{
    enum { N = 50, LEN = 300 };
    ez_fe tin[N], tout[N], ci[LEN], co[LEN], m[N];
    for (uint64_t j = 0; j < N; j++) {
        tin[j] = ez_fe_from_i64((int64_t)j - 7); /* crosses zero: p - 7, ..., p - 1, 0, 1, ... */
        tout[j] = ez_rng_fe(&fx.rng);
    }
    ez_logup_table t = {.kind = EZ_TABLE_EXPLICIT, .ncols = 2, .nrows = N, .cols = {tin, tout}};
    uint64_t want[N] = {0};
    for (uint64_t i = 0; i < LEN; i++) {
        uint64_t j = i == 0 ? 0 : i == 1 ? N - 1 : ez_rng_next(&fx.rng) % N;
        ci[i] = tin[j];
        co[i] = tout[j];
        want[j]++;
    }
    ez_logup_column c = {.len = LEN, .cols = {ci, co}};
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, &c, 1, &d), EZ_OK);
    for (uint64_t j = 0; j < N; j++)
        ck_assert_uint_eq(m[j], want[j]);
    honest_roundtrip(&t, &c, 1);
    const ez_fe bad_key[3] = {ez_fe_sub(tin[0], 1), ez_fe_add(tin[N - 1], 1), tin[N / 2]};
    for (int k = 0; k < 3; k++) {
        ez_fe si = ci[77], so = co[77];
        ci[77] = bad_key[k];
        co[77] = k == 2 ? ez_fe_add(tout[N / 2], 1) : tout[0];
        ck_assert_int_eq(ez_logup_multiplicities(m, &t, &c, 1, &d), EZ_ERR_NUMERIC);
        ck_assert_ptr_nonnull(strstr(d.msg, "lookup column 0, row 77: ("));
        ci[77] = si;
        co[77] = so;
    }
}
END_TEST

/* Every tree on a transcript of its own (docs/protocol-kernel-logup.md §4b). A range
 * table of 2^8 rows and two columns of 64 and 16 rows: three trees, the table's, then
 * the columns' (one per set bit of 64 + 16), each [root][GKR][one value]. */
static void split_prove(const ez_logup_table *t, const ez_logup_column *c, size_t nc, const ez_fe *m, bool reverse,
                        ez_writer *w, ez_logup_claims *pc, ez_transcript *tr)
{
    uint64_t lens[8];
    unsigned tags[8];
    column_shape(c, nc, 8, lens, tags);
    ez_logup_prover *p = NULL;
    start(tr, m, ez_logup_table_size(t));
    ck_assert_int_eq(ez_logup_prove_begin(&p, tr, t, lens, tags, nc), EZ_OK);
    const int64_t n = (int64_t)ez_logup_prover_ninstances(p);
    ez_writer_init(w);
    /* before every tree is proven, end refuses */
    ck_assert_int_eq(ez_logup_prove_end(p, tr, w, pc), EZ_ERR_INVALID);
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad)
    for (int64_t i = 0; i < n; i++)
        bad += ez_logup_prove_instance(p, (size_t)(reverse ? n - 1 - i : i), c, m) != EZ_OK;
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(ez_logup_prove_instance(p, 0, c, m), EZ_ERR_INVALID); /* proven once */
    ck_assert_int_eq(ez_logup_prove_end(p, tr, w, pc), EZ_OK);
    ez_logup_prover_free(p);
}

/* The verifier's transcript state after the proof (st: its status). */
static ez_status verify_state(const ez_logup_table *t, const ez_logup_column *c, size_t nc, const ez_fe *m,
                              const ez_writer *w, ez_transcript *tr, ez_logup_claims *vc)
{
    uint64_t lens[8];
    column_shape(c, nc, 8, lens, NULL);
    start(tr, m, ez_logup_table_size(t));
    ez_reader r;
    ez_reader_init(&r, w->data, w->len);
    ez_status st = ez_logup_verify(tr, t, lens, nc, &r, vc);
    return st == EZ_OK && !ez_reader_done(&r) ? EZ_ERR_REJECT : st;
}

START_TEST(test_tree_transcripts_forked)
{
    ez_logup_table t = {.kind = EZ_TABLE_RANGE, .bits = 8};
    ez_fe *a = range_values(&fx.rng, 64, 8), *z = range_values(&fx.rng, 16, 8), *a2 = fx_alloc(64);
    for (int i = 0; i < 64; i++)
        a2[i] = a[63 - i]; /* a permutation of a: the same multiplicities */
    ck_assert(memcmp(a, a2, 64 * sizeof *a) != 0);
    ez_logup_column c[2] = {{.len = 64, .cols = {a}}, {.len = 16, .cols = {z}}};
    ez_logup_column c2[2] = {{.len = 64, .cols = {a2}}, {.len = 16, .cols = {z}}};
    ez_fe m[256];
    ck_assert_int_eq(ez_logup_multiplicities(m, &t, c, 2, NULL), EZ_OK);
    const size_t t0 = 32 + (size_t)ez_gkr_frac_proof_bytes(8, false) + 16;
    const size_t t1 = t0 + 32 + (size_t)ez_gkr_frac_proof_bytes(6, true) + 16;
    const size_t t2 = t1 + 32 + (size_t)ez_gkr_frac_proof_bytes(4, true) + 16;

    /* the trees in any order, on two threads or one: the same bytes, claims and state */
    ez_writer w, ws;
    ez_logup_claims pc, ps;
    ez_transcript tr, ts;
    start(&tr, m, 256);
    ez_writer_init(&w);
    ck_assert_int_eq(ez_logup_prove(&tr, &t, c, 2, m, &w, &pc), EZ_OK);
    ck_assert_uint_eq(w.len, t2);
    for (int reverse = 0; reverse < 2; reverse++) {
        split_prove(&t, c, 2, m, reverse, &ws, &ps, &ts);
        ck_assert(ws.len == w.len && memcmp(ws.data, w.data, w.len) == 0);
        ck_assert(claims_equal(&pc, &ps) && memcmp(ts.state, tr.state, sizeof tr.state) == 0);
        ez_writer_clear(&ws);
        ez_logup_claims_clear(&ps);
    }

    /* Another valid witness for the 64-row column changes that tree's messages only: the
     * 16-row tree after it has the same bytes (its challenges do not depend on the other
     * trees), and the verifier's transcript after the proof differs (the join binds every
     * tree's messages before the caller's next challenge). */
    ez_writer w2;
    ez_logup_claims pc2;
    prove(&t, c2, 2, m, &w2, &pc2);
    ck_assert_uint_eq(w2.len, t2);
    ck_assert(memcmp(w.data, w2.data, t0) == 0);
    ck_assert(memcmp(w.data + t0, w2.data + t0, t1 - t0) != 0);
    ck_assert(memcmp(w.data + t1, w2.data + t1, t2 - t1) == 0);
    ez_transcript v1, v2;
    ez_logup_claims vc;
    ck_assert_int_eq(verify_state(&t, c, 2, m, &w, &v1, &vc), EZ_OK);
    ez_logup_claims_clear(&vc);
    ck_assert_int_eq(verify_state(&t, c2, 2, m, &w2, &v2, &vc), EZ_OK);
    ez_logup_claims_clear(&vc);
    ck_assert(memcmp(v1.state, v2.state, sizeof v1.state) != 0);

    /* A malicious prover splices the other witness's tree into the proof of c: each
     * tree is valid on its own transcript, so LogUp accepts, but the claim it returns on
     * the 64-row column is a2's, false for a: the caller rejects. */
    uint8_t *buf = malloc(w.len);
    memcpy(buf, w.data, w.len);
    memcpy(buf + t0, w2.data + t0, t1 - t0);
    ez_status st;
    ck_assert(!accepts(&t, c, 2, m, buf, w.len, &st));
    ck_assert_int_eq(st, EZ_OK);
    ck_assert(accepts(&t, c2, 2, m, buf, w.len, NULL));
    /* and one round message of the 16-row tree changed: that tree rejects */
    memcpy(buf, w.data, w.len);
    ez_tamper_fe2(buf + t1 + 32 + 64 + 16);
    ck_assert(!accepts(&t, c, 2, m, buf, w.len, &st));
    ck_assert_int_eq(st, EZ_ERR_REJECT);
    free(buf);
    ez_writer_clear(&w);
    ez_writer_clear(&w2);
    ez_logup_claims_clear(&pc);
    ez_logup_claims_clear(&pc2);
}
END_TEST

/* The fraction tree's layer kernels and the A table on lanes (lib/fe2_vec.c) against
 * their scalar loops and lib/field.h, on edge values and at lengths around the
 * eight-lane step. */
START_TEST(test_fe2_vec_frac)
{
    ez_rng r = ez_rng_for("fe2_vec_frac");
    for (size_t li = 0; li < ez_test_vec_nlen; li++) {
        const size_t n = ez_test_vec_len[li];
        for (int it = 0; it < 40; it++) {
            ez_fe2 pl[EZ_TEST_VEC_MAXLEN], ql[EZ_TEST_VEC_MAXLEN], pr[EZ_TEST_VEC_MAXLEN], qr[EZ_TEST_VEC_MAXLEN], op[EZ_TEST_VEC_MAXLEN], oq[EZ_TEST_VEC_MAXLEN], rp[EZ_TEST_VEC_MAXLEN], rq[EZ_TEST_VEC_MAXLEN];
            ez_fe2 l = it == 0 ? ez_fe2_make(EZ_P - 1, EZ_P - 1) : ez_rng_fe2_edgy(&r);
            for (size_t i = 0; i < n; i++) {
                pl[i] = ez_rng_fe2_edgy(&r);
                ql[i] = ez_rng_fe2_edgy(&r);
                pr[i] = ez_rng_fe2_edgy(&r);
                qr[i] = ez_rng_fe2_edgy(&r);
            }
            /* the general layer, then the unit one (numerators 1) */
            for (int unit = 0; unit < 2; unit++) {
                if (unit) {
                    ez_fe2_frac_layer_unit(op, oq, ql, qr, n);
                    ez_fe2_frac_layer_unit_ref(rp, rq, ql, qr, n);
                } else {
                    ez_fe2_frac_layer(op, oq, pl, ql, pr, qr, n);
                    ez_fe2_frac_layer_ref(rp, rq, pl, ql, pr, qr, n);
                }
                for (size_t i = 0; i < n; i++) {
                    ez_fe2 wp = unit ? ez_fe2_add(ql[i], qr[i])
                                     : ez_fe2_add(ez_fe2_mul(pl[i], qr[i]), ez_fe2_mul(pr[i], ql[i]));
                    ez_fe2 wq = ez_fe2_mul(ql[i], qr[i]);
                    ck_assert_msg(ez_fe2_eq(op[i], wp) && ez_fe2_eq(rp[i], wp) && ez_fe2_eq(oq[i], wq) &&
                                      ez_fe2_eq(rq[i], wq),
                                  "frac_layer unit=%d n=%zu i=%zu", unit, n, i);
                }
            }
            ez_fe2_axpy(op, pl, l, ql, n);
            ez_fe2_axpy_ref(rp, pl, l, ql, n);
            for (size_t i = 0; i < n; i++) {
                ez_fe2 w = ez_fe2_add(pl[i], ez_fe2_mul(l, ql[i]));
                ck_assert_msg(ez_fe2_eq(op[i], w) && ez_fe2_eq(rp[i], w), "axpy n=%zu i=%zu", n, i);
            }
        }
    }
}
END_TEST

Suite *ez_suite_logup(void)
{
    const TTest *tests[] = {test_range_honest, test_range16, test_explicit_1col, test_explicit_2col,
        test_explicit_4col_dups, test_many_columns, test_ranges_honest, test_leaf_values_large, test_ranges_outside,
        test_value_outside_table, test_outside_explicit, test_wrong_multiplicity, test_tamper_messages,
        test_substituted_column, test_leaf_denominator_substituted, test_truncated_and_garbage, test_invalid_arguments,
        test_pairs_honest, test_pairs_outside, test_pairs_leaf_values, test_table_pieces, test_mult_consecutive_keys,
        test_tree_transcripts_forked};
    Suite *s = suite_create("logup");
    const TTest *gkr[] = {test_gkr_tree, test_fe2_vec_frac};
    ez_tcase_add(s, "gkr", 60, gkr, 2);
    ez_tcase_add_fixture(s, "logup", 60, fx_setup, fx_teardown, tests, sizeof tests / sizeof tests[0]);
    return s;
}

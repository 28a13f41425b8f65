/* sumcheck_box: the padding-skipping prover (lib/sumcheck_box.h) writes the same bytes,
 * point and evaluations as ez_sumcheck_prove on the zero-padded tables — for random
 * boxes (interior and suffix padding, blocks of one slot, extents that are powers of
 * two), eq factors on none, some or all variables (an eq coordinate of 0 too), one to
 * three base, extension or mixed factors, a coefficient, and a FALSE claim (the round
 * values then depend on the claim, and must still agree); it reads exactly
 * ez_sumcheck_box_touched entries; bad shapes are refused. */
#include <stdlib.h>
#include <string.h>

#include "lib/sumcheck.h"
#include "lib/sumcheck_box.h"
#include "tests/testutil.h"

typedef struct {
    ez_sumcheck_box box;
    ez_sumcheck_desc d;
    ez_fe2 eqp[EZ_SC_MAX_VARS], coef;
    size_t size, padded;
    ez_fe *cb[4], *db[4];  /* compact / padded base tables */
    ez_fe2 *ce[4], *de[4]; /* compact / padded extension tables */
    ez_sumcheck_factor fc[4], fd[4];
} box_inst;

static void box_free(box_inst *I)
{
    for (int j = 0; j < 4; j++) {
        free(I->cb[j]);
        free(I->db[j]);
        free(I->ce[j]);
        free(I->de[j]);
    }
}

/* The padded index of compact index i: per block, its coordinate at its slot stride. */
static size_t padded_index(const ez_sumcheck_box *b, size_t i)
{
    size_t out = 0, stride = 1;
    for (unsigned k = b->nblocks; k-- > 0;) {
        out += (i % b->ext[k]) * stride;
        i /= b->ext[k];
        stride <<= b->bits[k];
    }
    return out;
}

static void box_make(box_inst *I, ez_rng *r, unsigned nblocks, unsigned nf, int eqmode, int fk)
{
    memset(I, 0, sizeof *I);
    unsigned n = 0;
    I->box.nblocks = nblocks;
    for (unsigned b = 0; b < nblocks; b++) {
        unsigned bits = (unsigned)(ez_rng_next(r) % 4); /* 0..3 */
        uint64_t cap = UINT64_C(1) << bits;
        I->box.bits[b] = bits;
        I->box.ext[b] = cap == 1 ? 1 : cap / 2 + 1 + ez_rng_next(r) % (cap / 2);
        n += bits;
    }
    ez_sumcheck_desc_init(&I->d, n, nf);
    for (unsigned v = 0; v < n; v++) {
        bool on = eqmode == 2 || (eqmode == 1 && (ez_rng_next(r) & 1));
        if (on)
            I->d.eq_vars |= UINT64_C(1) << v;
    }
    for (unsigned v = 0; v < n; v++)
        I->eqp[v] = (ez_rng_next(r) % 5 == 0) ? ez_fe2_zero() : ez_rng_fe2(r);
    I->coef = ez_rng_fe2(r);
    I->size = ez_sumcheck_box_size(&I->box);
    I->padded = (size_t)1 << n;
    for (unsigned j = 0; j < nf; j++) {
        bool base = fk == 0 || (fk == 2 && (j & 1) == 0);
        if (base) {
            I->cb[j] = calloc(I->size, sizeof(ez_fe));
            I->db[j] = calloc(I->padded, sizeof(ez_fe));
            for (size_t i = 0; i < I->size; i++)
                I->db[j][padded_index(&I->box, i)] = I->cb[j][i] = ez_rng_fe(r);
            I->fc[j].base = I->cb[j];
            I->fd[j].base = I->db[j];
        } else {
            I->ce[j] = calloc(I->size, sizeof(ez_fe2));
            I->de[j] = calloc(I->padded, sizeof(ez_fe2));
            for (size_t i = 0; i < I->size; i++)
                I->de[j][padded_index(&I->box, i)] = I->ce[j][i] = ez_rng_fe2(r);
            I->fc[j].ext = I->ce[j];
            I->fd[j].ext = I->de[j];
        }
    }
}

/* The true sum over the padded tables (eq weights included), times the coefficient. */
static ez_fe2 true_sum(const box_inst *I)
{
    ez_fe2 s = ez_fe2_zero();
    unsigned n = I->d.nvars;
    for (size_t x = 0; x < I->padded; x++) {
        ez_fe2 p = I->coef;
        for (unsigned j = 0; j < I->d.nfactors; j++)
            p = ez_fe2_mul(p, I->db[j] ? ez_fe2_from_fe(I->db[j][x]) : I->de[j][x]);
        for (unsigned v = 0; v < n; v++) {
            if (!((I->d.eq_vars >> v) & 1))
                continue;
            ez_fe2 e = I->eqp[v];
            p = ez_fe2_mul(p, ((x >> (n - 1 - v)) & 1) ? e : ez_fe2_sub(ez_fe2_one(), e));
        }
        s = ez_fe2_add(s, p);
    }
    return s;
}

START_TEST(test_box_equals_dense)
{
    ez_rng r = ez_rng_for("sumcheck_box_equal");
    unsigned cases = 0;
    for (unsigned rep = 0; rep < 160; rep++) {
        box_inst I;
        box_make(&I, &r, 1 + rep % 4, 1 + rep % 3, (int)(rep / 3 % 3), (int)(rep / 9 % 3));
        if (I.d.nvars == 0) {
            box_free(&I);
            continue;
        }
        cases++;
        /* claim: the true one, or a wrong one every third instance */
        ez_fe2 claim = true_sum(&I);
        if (rep % 3 == 2)
            claim = ez_fe2_add(claim, ez_fe2_one());
        /* pack the eq point as the kernel wants it: eq variables only, in order */
        ez_fe2 ep[EZ_SC_MAX_VARS];
        unsigned ne = 0;
        for (unsigned v = 0; v < I.d.nvars; v++)
            if ((I.d.eq_vars >> v) & 1)
                ep[ne++] = I.eqp[v];
        ez_transcript t1, t2;
        ez_transcript_init(&t1, "box");
        t2 = t1;
        ez_sumcheck_proof p1, p2;
        ez_fe2 pt1[EZ_SC_MAX_VARS], pt2[EZ_SC_MAX_VARS], ev1[4], ev2[4];
        uint64_t touched = 0;
        ck_assert_int_eq(ez_sumcheck_prove(&t1, &I.d, &I.coef, ne ? ep : NULL, I.fd, claim, &p1, pt1, ev1), EZ_OK);
        ck_assert_int_eq(ez_sumcheck_prove_box(&t2, &I.d, &I.coef, ne ? ep : NULL, &I.box, I.fc, claim, &p2, pt2,
                                               ev2, &touched),
                         EZ_OK);
        ez_writer w1, w2;
        ez_writer_init(&w1);
        ez_writer_init(&w2);
        ez_sumcheck_proof_write(&w1, &p1);
        ez_sumcheck_proof_write(&w2, &p2);
        ck_assert_uint_eq(w1.len, w2.len);
        ck_assert_msg(memcmp(w1.data, w2.data, w1.len) == 0, "instance %u: proofs differ", rep);
        for (unsigned v = 0; v < I.d.nvars; v++)
            ck_assert(ez_fe2_eq(pt1[v], pt2[v]));
        for (unsigned j = 0; j < I.d.nfactors; j++)
            ck_assert(ez_fe2_eq(ev1[j], ev2[j]));
        /* the transcripts end in the same state */
        ck_assert(ez_fe2_eq(ez_transcript_challenge_fe2(&t1, "x"), ez_transcript_challenge_fe2(&t2, "x")));
        ck_assert_uint_eq(touched, ez_sumcheck_box_touched(&I.box, false));
        ck_assert_uint_le(touched, ez_sumcheck_box_touched(&I.box, true));
        /* the honest proof verifies */
        if (rep % 3 != 2) {
            ez_transcript tv;
            ez_transcript_init(&tv, "box");
            ck_assert_int_eq(ez_sumcheck_verify(&tv, &I.d, &I.coef, ne ? ep : NULL, claim, &p2, NULL, NULL), EZ_OK);
        }
        ez_writer_clear(&w1);
        ez_writer_clear(&w2);
        ez_sumcheck_proof_clear(&p1);
        ez_sumcheck_proof_clear(&p2);
        box_free(&I);
    }
    ck_assert_uint_gt(cases, 100);
}
END_TEST

/* 12 heads of width 80 (16 x 128 slots): round one reads 960 entries, not 2048, and every
 * later round only the non-zero support (a known count). */
START_TEST(test_box_touched_heads)
{
    ez_sumcheck_box b = {.nblocks = 2, .bits = {4, 7}, .ext = {12, 80}};
    ck_assert_uint_eq(ez_sumcheck_box_size(&b), 960);
    /* h rounds: 12, 8, 4, 2 rows of 80; then e rounds on one row: 80, 64, 32, ..., 2 */
    ck_assert_uint_eq(ez_sumcheck_box_touched(&b, false), (12 + 8 + 4 + 2) * 80 + (80 + 64 + 32 + 16 + 8 + 4 + 2));
    ck_assert_uint_eq(ez_sumcheck_box_touched(&b, true), 2 * 2048 - 2);
}
END_TEST

START_TEST(test_box_refuses)
{
    ez_rng r = ez_rng_for("sumcheck_box_refuses");
    box_inst I;
    box_make(&I, &r, 2, 2, 0, 0);
    while (I.d.nvars < 2) {
        box_free(&I);
        box_make(&I, &r, 2, 2, 0, 0);
    }
    ez_transcript t;
    ez_transcript_init(&t, "box");
    ez_sumcheck_proof p;
    ez_sumcheck_box bad = I.box;
    bad.ext[0] = (UINT64_C(1) << bad.bits[0]) + 1; /* beyond its slots */
    ck_assert_int_eq(ez_sumcheck_prove_box(&t, &I.d, NULL, NULL, &bad, I.fc, ez_fe2_zero(), &p, NULL, NULL, NULL),
                     EZ_ERR_INVALID);
    bad = I.box;
    bad.bits[0]++; /* blocks do not cover the variables */
    ck_assert_int_eq(ez_sumcheck_prove_box(&t, &I.d, NULL, NULL, &bad, I.fc, ez_fe2_zero(), &p, NULL, NULL, NULL),
                     EZ_ERR_INVALID);
    ez_sumcheck_desc d = I.d;
    d.order[0] = 1, d.order[1] = 0; /* not most significant first */
    ck_assert_int_eq(ez_sumcheck_prove_box(&t, &d, NULL, NULL, &I.box, I.fc, ez_fe2_zero(), &p, NULL, NULL, NULL),
                     EZ_ERR_INVALID);
    d = I.d;
    d.term[0].f[1] = 0; /* f^2: not one term of distinct factors */
    ck_assert_int_eq(ez_sumcheck_prove_box(&t, &d, NULL, NULL, &I.box, I.fc, ez_fe2_zero(), &p, NULL, NULL, NULL),
                     EZ_ERR_INVALID);
    box_free(&I);
}
END_TEST

Suite *ez_suite_sumcheck_box(void)
{
    const TTest *tests[] = {test_box_equals_dense, test_box_touched_heads, test_box_refuses};
    return ez_test_suite("sumcheck_box", "core", 60, tests, sizeof tests / sizeof tests[0]);
}

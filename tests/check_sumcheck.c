/* sumcheck: random instances of many shapes (degrees 1..4, eq on none/some/all
 * variables, identity/reversed/random binding orders, several terms with coefficients,
 * base/extension/mixed factors) prove and verify, with the claimed sum and the final
 * evaluations checked by brute force; the specialised kernels give byte-identical proofs
 * to the generic reference prover; malicious provers and malformed proofs are
 * rejected. */
#include <stdlib.h>
#include <string.h>

#include "lib/fe2_vec.h"
#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "tests/testutil.h"

typedef struct {
    ez_sumcheck_desc d;
    ez_fe2 coeffs[EZ_SC_MAX_TERMS];
    bool use_coeffs;
    ez_fe2 eqp[EZ_SC_MAX_VARS];
    ez_fe *fb[EZ_SC_MAX_FACTORS];
    ez_fe2 *fe[EZ_SC_MAX_FACTORS];
    ez_sumcheck_factor f[EZ_SC_MAX_FACTORS];
} inst;

enum { ORD_ID, ORD_REV, ORD_RAND };
/* factor kinds: all base, all extension, even factors base, odd factors base, random */
enum { F_BASE, F_EXT, F_MIXED, F_MIXED_ODD, F_RAND };

static void inst_free(inst *I)
{
    for (int j = 0; j < EZ_SC_MAX_FACTORS; j++) {
        free(I->fb[j]);
        free(I->fe[j]);
    }
    memset(I, 0, sizeof *I);
}

/* Fill tables and points; the desc's terms must already be set. */
static void inst_fill(inst *I, ez_rng *r, int ordk, int fk, uint64_t eq_vars)
{
    ez_sumcheck_desc *d = &I->d;
    unsigned n = d->nvars;
    size_t N = (size_t)1 << n;
    d->eq_vars = eq_vars;
    for (unsigned j = 0; j < n; j++)
        d->order[j] = ordk == ORD_REV ? n - 1 - j : j;
    if (ordk == ORD_RAND)
        for (unsigned j = n; j > 1; j--) {
            unsigned k = (unsigned)(ez_rng_next(r) % j), tmp = d->order[j - 1];
            d->order[j - 1] = d->order[k];
            d->order[k] = tmp;
        }
    for (unsigned j = 0; j < d->nfactors; j++) {
        bool base = fk == F_BASE || (fk == F_MIXED && (j & 1) == 0) || (fk == F_MIXED_ODD && (j & 1) == 1) ||
                    (fk == F_RAND && (ez_rng_next(r) & 1));
        if (base) {
            I->fb[j] = ez_alloc_array(N, sizeof(ez_fe));
            for (size_t i = 0; i < N; i++)
                I->fb[j][i] = ez_rng_fe(r);
            I->f[j].base = I->fb[j];
        } else {
            I->fe[j] = ez_alloc_array(N, sizeof(ez_fe2));
            for (size_t i = 0; i < N; i++)
                I->fe[j][i] = ez_rng_fe2(r);
            I->f[j].ext = I->fe[j];
        }
    }
    for (int i = 0; i < __builtin_popcountll(eq_vars); i++)
        I->eqp[i] = ez_rng_fe2(r);
    for (unsigned t = 0; t < d->nterms; t++)
        I->coeffs[t] = ez_rng_fe2(r);
}

static ez_fe2 fval(const inst *I, unsigned j, size_t x)
{
    return I->fb[j] ? ez_fe2_from_fe(I->fb[j][x]) : I->fe[j][x];
}

/* The sum from its definition, one hypercube point at a time. */
static ez_fe2 brute_claim(const inst *I)
{
    const ez_sumcheck_desc *d = &I->d;
    unsigned n = d->nvars;
    ez_fe2 acc = ez_fe2_zero();
    for (size_t x = 0; x < ((size_t)1 << n); x++) {
        ez_fe2 w = ez_fe2_one();
        unsigned k = 0;
        for (unsigned v = 0; v < n; v++) {
            if (!((d->eq_vars >> v) & 1))
                continue;
            unsigned bit = (x >> (n - 1 - v)) & 1;
            ez_fe2 r = I->eqp[k++];
            w = ez_fe2_mul(w, bit ? r : ez_fe2_sub(ez_fe2_one(), r));
        }
        ez_fe2 s = ez_fe2_zero();
        for (unsigned t = 0; t < d->nterms; t++) {
            ez_fe2 p = I->use_coeffs ? I->coeffs[t] : ez_fe2_one();
            for (unsigned i = 0; i < d->term[t].nf; i++)
                p = ez_fe2_mul(p, fval(I, d->term[t].f[i], x));
            s = ez_fe2_add(s, p);
        }
        acc = ez_fe2_add(acc, ez_fe2_mul(w, s));
    }
    return acc;
}

/* Prove the true claim, verify with a fresh transcript, and check the claims the
 * caller would discharge against direct MLE evaluations. */
static void prove_verify_ok(const inst *I)
{
    const ez_sumcheck_desc *d = &I->d;
    ck_assert_int_eq(ez_sumcheck_desc_check(d), EZ_OK);
    ez_fe2 claim = brute_claim(I);
    const ez_fe2 *co = I->use_coeffs ? I->coeffs : NULL;
    ez_transcript tp, tv;
    ez_transcript_init(&tp, "check_sumcheck");
    ez_transcript_init(&tv, "check_sumcheck");
    ez_sumcheck_proof pf;
    ez_fe2 pp[EZ_SC_MAX_VARS], pe[EZ_SC_MAX_FACTORS], vp[EZ_SC_MAX_VARS], ve[EZ_SC_MAX_FACTORS];
    ck_assert_int_eq(ez_sumcheck_prove(&tp, d, co, I->eqp, I->f, claim, &pf, pp, pe), EZ_OK);
    ck_assert_uint_eq(pf.degree, ez_sumcheck_degree(d));
    ck_assert_int_eq(ez_sumcheck_verify(&tv, d, co, I->eqp, claim, &pf, vp, ve), EZ_OK);
    ck_assert_mem_eq(tp.state, tv.state, 32);
    ck_assert_mem_eq(pp, vp, d->nvars * sizeof *pp);
    ck_assert_mem_eq(pe, ve, d->nfactors * sizeof *pe);
    for (unsigned j = 0; j < d->nfactors; j++) {
        ez_fe2 want = I->fb[j] ? ez_mle_eval_fe(I->fb[j], (size_t)1 << d->nvars, vp, d->nvars)
                               : ez_mle_eval_fe2(I->fe[j], (size_t)1 << d->nvars, vp, d->nvars);
        ck_assert(ez_fe2_eq(ve[j], want));
    }
    ez_sumcheck_proof_clear(&pf);
}

/* I cleared, its desc one term of factors 0 .. nf - 1 over n variables
 * (ez_sumcheck_desc_init); a test may change the terms before inst_fill. */
static void inst_init(inst *I, unsigned n, unsigned nf)
{
    memset(I, 0, sizeof *I);
    ez_sumcheck_desc_init(&I->d, n, nf);
}

/* Which of the n variables carry eq: none, a random subset (drawn from r) or all. */
enum { EQ_NONE, EQ_SOME, EQ_ALL };

static uint64_t eq_subset(ez_rng *r, int eqk, unsigned n)
{
    uint64_t all = (UINT64_C(1) << n) - 1;
    return eqk == EQ_NONE ? 0 : eqk == EQ_ALL ? all : (ez_rng_next(r) & all);
}

/* Set each eq coordinate to 0 or 1 with probability 1/2 (the prover cannot derive
 * q(1) from the claim when r_v = 0: it computes it). */
static void eq_point_bits(inst *I, ez_rng *r)
{
    for (int i = 0; i < __builtin_popcountll(I->d.eq_vars); i++)
        if (ez_rng_next(r) & 1)
            I->eqp[i] = ez_fe2_from_fe(ez_rng_next(r) & 1);
}

/* One random instance of one term of nf factors over n variables, eq on the eqk subset,
 * binding order ordk, factor kinds fk (eq coordinates 0 or 1 when bits), checked by
 * `check` and freed. */
static void check_one(ez_rng *r, void (*check)(const inst *), unsigned n, unsigned nf, int eqk, bool use_coeffs,
                      int ordk, int fk, bool bits)
{
    inst I;
    inst_init(&I, n, nf);
    uint64_t eqv = eq_subset(r, eqk, n);
    I.use_coeffs = use_coeffs;
    inst_fill(&I, r, ordk, fk, eqv);
    if (bits)
        eq_point_bits(&I, r);
    check(&I);
    inst_free(&I);
}

START_TEST(test_shapes)
{
    ez_rng r = ez_rng_for("shapes");
    static const unsigned ns[] = {1, 2, 3, 6};
    for (size_t ni = 0; ni < 4; ni++)
        for (unsigned nf = 1; nf <= 4; nf++)
            for (int eqk = EQ_NONE; eqk <= EQ_ALL; eqk++)
                for (int ordk = 0; ordk < 3; ordk++)
                    for (int fk = 0; fk < 3; fk++)
                        check_one(&r, prove_verify_ok, ns[ni], nf, eqk, fk == F_MIXED, ordk, fk, false);
}
END_TEST

/* Several terms, repeated factors (f^2), unused factors, coefficients. */
START_TEST(test_multi_term)
{
    ez_rng r = ez_rng_for("multi_term");
    for (int iter = 0; iter < 60; iter++) {
        inst I;
        ez_sumcheck_desc *d = &I.d;
        unsigned n = 1 + (unsigned)(ez_rng_next(&r) % 7);
        inst_init(&I, n, 1);
        d->nfactors = 1 + (unsigned)(ez_rng_next(&r) % EZ_SC_MAX_FACTORS);
        d->nterms = 1 + (unsigned)(ez_rng_next(&r) % EZ_SC_MAX_TERMS);
        for (unsigned t = 0; t < d->nterms; t++) {
            d->term[t].nf = 1 + (unsigned)(ez_rng_next(&r) % EZ_SC_MAX_TERM_FACTORS);
            for (unsigned i = 0; i < d->term[t].nf; i++)
                d->term[t].f[i] = (unsigned)(ez_rng_next(&r) % d->nfactors);
        }
        I.use_coeffs = iter % 3 != 0;
        inst_fill(&I, &r, iter % 3, (iter / 3) % 3, eq_subset(&r, iter % 4 == 0 ? EQ_NONE : EQ_SOME, n));
        prove_verify_ok(&I);
        inst_free(&I);
    }
}
END_TEST

/* Every binding order and every eq subset on 3 variables, degree 2 and 3. */
START_TEST(test_exhaustive_tiny)
{
    ez_rng r = ez_rng_for("exhaustive_tiny");
    static const unsigned perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; p++)
        for (uint64_t eqv = 0; eqv < 8; eqv++)
            for (unsigned nf = 2; nf <= 3; nf++)
                for (int fk = 0; fk < 2; fk++) {
                    inst I;
                    inst_init(&I, 3, nf);
                    inst_fill(&I, &r, ORD_ID, fk, eqv);
                    memcpy(I.d.order, perms[p], sizeof perms[p]);
                    prove_verify_ok(&I);
                    inst_free(&I);
                }
}
END_TEST

/* Sizes where rounds run in parallel and the specialised kernels fire (two and three
 * base or extension factors, with and without eq, each order kind). */
START_TEST(test_larger)
{
    ez_rng r = ez_rng_for("larger");
    for (unsigned nf = 2; nf <= 3; nf++)
        for (int eqk = EQ_NONE; eqk <= EQ_ALL; eqk++)
            for (int ordk = 0; ordk < 3; ordk++)
                for (int fk = 0; fk < 2; fk++)
                    check_one(&r, prove_verify_ok, (ordk == ORD_ID && eqk == EQ_ALL) ? 14 : 11, nf, eqk,
                              eqk == EQ_SOME, ordk, fk, false);
}
END_TEST

/* eq points with coordinates 0 and 1 (the prover cannot derive q(1) when r_v = 0). */
START_TEST(test_degenerate_eq_point)
{
    ez_rng r = ez_rng_for("degenerate_eq");
    for (int iter = 0; iter < 12; iter++) {
        inst I;
        inst_init(&I, 5, 2 + (unsigned)(iter % 2));
        inst_fill(&I, &r, iter % 3, iter % 2, 0x1F);
        for (int k = 0; k < 5; k++)
            if ((ez_rng_next(&r) & 1) || k == iter % 5)
                I.eqp[k] = ez_fe2_from_fe(ez_rng_next(&r) & 1);
        prove_verify_ok(&I);
        inst_free(&I);
    }
}
END_TEST

/* No variables: the sum is the single term value; zero factors tables are fine. */
START_TEST(test_zero_vars_and_zero_tables)
{
    ez_rng r = ez_rng_for("zero_vars");
    inst I;
    inst_init(&I, 0, 2);
    inst_fill(&I, &r, ORD_ID, F_MIXED, 0);
    I.use_coeffs = true;
    prove_verify_ok(&I);
    inst_free(&I);
    inst_init(&I, 6, 2);
    inst_fill(&I, &r, ORD_ID, F_BASE, 0x3F);
    memset(I.fb[0], 0, 64 * sizeof(ez_fe));
    ck_assert(ez_fe2_is_zero(brute_claim(&I)));
    prove_verify_ok(&I);
    inst_free(&I);
}
END_TEST

START_TEST(test_desc)
{
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, 10, 3);
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_OK);
    ck_assert_uint_eq(ez_sumcheck_degree(&d), 3);
    d.eq_vars = 1;
    ck_assert_uint_eq(ez_sumcheck_degree(&d), 4);
    d.eq_vars = UINT64_C(1) << 10;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.eq_vars = 0;
    d.order[3] = 4; /* 4 twice */
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.order[3] = 10;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.order[3] = 3;
    d.term[0].f[1] = 3;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.term[0].f[1] = 1;
    d.nterms = 0;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.nterms = EZ_SC_MAX_TERMS + 1;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.nterms = 2;
    d.term[1].nf = 0;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    d.term[1].nf = 1;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_OK);
    d.nvars = EZ_SC_MAX_VARS + 1;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    ez_sumcheck_desc_init(&d, 4, 2);
    d.nfactors = 0;
    ck_assert_int_eq(ez_sumcheck_desc_check(&d), EZ_ERR_INVALID);
    /* The prover refuses a factor with both or neither table. */
    ez_sumcheck_desc_init(&d, 1, 1);
    ez_fe tb[2] = {1, 2};
    ez_fe2 te[2] = {{1, 0}, {2, 0}};
    ez_sumcheck_factor f = {tb, te};
    ez_transcript t;
    ez_transcript_init(&t, "x");
    ez_sumcheck_proof pf;
    ck_assert_int_eq(ez_sumcheck_prove(&t, &d, NULL, NULL, &f, ez_fe2_from_fe(3), &pf, NULL, NULL), EZ_ERR_INVALID);
    f.base = NULL;
    f.ext = NULL;
    ck_assert_int_eq(ez_sumcheck_prove(&t, &d, NULL, NULL, &f, ez_fe2_from_fe(3), &pf, NULL, NULL), EZ_ERR_INVALID);
    /* eq variables but no eq point */
    f.base = tb;
    d.eq_vars = 1;
    ck_assert_int_eq(ez_sumcheck_prove(&t, &d, NULL, NULL, &f, ez_fe2_from_fe(3), &pf, NULL, NULL), EZ_ERR_INVALID);
}
END_TEST

/* The fast prover and the generic reference prover (ez_sumcheck_prove_reference) give
 * byte-identical proofs, the same point and evals, and the same transcript state; the
 * proof verifies against the brute-force claim. */
static void check_same_as_reference(const inst *I)
{
    const ez_sumcheck_desc *d = &I->d;
    ck_assert_int_eq(ez_sumcheck_desc_check(d), EZ_OK);
    ez_fe2 claim = brute_claim(I);
    const ez_fe2 *co = I->use_coeffs ? I->coeffs : NULL;
    ez_transcript tf, tr, tv;
    ez_transcript_init(&tf, "reference");
    ez_transcript_init(&tr, "reference");
    ez_transcript_init(&tv, "reference");
    ez_sumcheck_proof pf, pr;
    ez_fe2 fp[EZ_SC_MAX_VARS], fe[EZ_SC_MAX_FACTORS], rp[EZ_SC_MAX_VARS], re[EZ_SC_MAX_FACTORS];
    ck_assert_int_eq(ez_sumcheck_prove(&tf, d, co, I->eqp, I->f, claim, &pf, fp, fe), EZ_OK);
    ck_assert_int_eq(ez_sumcheck_prove_reference(&tr, d, co, I->eqp, I->f, claim, &pr, rp, re), EZ_OK);
    ez_writer wf, wr;
    ez_writer_init(&wf);
    ez_writer_init(&wr);
    ez_sumcheck_proof_write(&wf, &pf);
    ez_sumcheck_proof_write(&wr, &pr);
    ck_assert(!wf.failed && !wr.failed);
    ck_assert_uint_eq(wf.len, wr.len);
    ck_assert_uint_eq(wf.len, 16 * ((size_t)d->nvars * ez_sumcheck_degree(d) + d->nfactors));
    ck_assert_mem_eq(wf.data, wr.data, wf.len);
    ck_assert_mem_eq(tf.state, tr.state, 32);
    ck_assert_mem_eq(fp, rp, d->nvars * sizeof *fp);
    ck_assert_mem_eq(fe, re, d->nfactors * sizeof *fe);
    ck_assert_int_eq(ez_sumcheck_verify(&tv, d, co, I->eqp, claim, &pf, NULL, NULL), EZ_OK);
    ez_writer_clear(&wf);
    ez_writer_clear(&wr);
    ez_sumcheck_proof_clear(&pf);
    ez_sumcheck_proof_clear(&pr);
}

/* One term: every specialised shape (f g, f g h over base, extension, either mixed
 * assignment; with and without eq; every order kind; with and without a coefficient)
 * and the shapes that stay generic. */
START_TEST(test_reference_one_term)
{
    ez_rng r = ez_rng_for("reference_one_term");
    static const unsigned ns[] = {1, 2, 5, 9};
    static const int fks[] = {F_BASE, F_EXT, F_MIXED, F_MIXED_ODD};
    for (size_t ni = 0; ni < 4; ni++)
        for (unsigned nf = 1; nf <= 4; nf++)
            for (int fi = 0; fi < 4; fi++)
                for (int eqk = EQ_NONE; eqk <= EQ_ALL; eqk++)
                    check_one(&r, check_same_as_reference, ns[ni], nf, eqk, (ni + nf + (unsigned)eqk) % 2 == 0,
                              (int)((nf + (unsigned)fi + (unsigned)eqk) % 3), fks[fi], ni == 2 && eqk == EQ_ALL);
}
END_TEST

/* Two terms of two factors (the LogUp-GKR layer shape and its variants): repeated and
 * unused factors, every factor kind, coefficients none / random / equal / c_0 = 0 /
 * c_1 = 0, random eq subsets and orders. */
START_TEST(test_reference_two_terms)
{
    ez_rng r = ez_rng_for("reference_two_terms");
    for (int iter = 0; iter < 150; iter++) {
        unsigned n = 1 + (unsigned)(ez_rng_next(&r) % 10);
        inst I;
        inst_init(&I, n, 1);
        ez_sumcheck_desc *d = &I.d;
        d->nfactors = iter % 5 == 0 ? 2 + (unsigned)(ez_rng_next(&r) % 5) : 4;
        d->nterms = 2;
        for (unsigned t = 0; t < 2; t++) {
            d->term[t].nf = 2;
            for (unsigned i = 0; i < 2; i++)
                d->term[t].f[i] = iter % 5 == 0 ? (unsigned)(ez_rng_next(&r) % d->nfactors) : 2 * t + i;
        }
        uint64_t eqv = eq_subset(&r, iter % 3, n);
        int ck = (iter / 3) % 5;
        I.use_coeffs = ck != 0;
        inst_fill(&I, &r, (iter / 15) % 3, (iter / 7) % 5, eqv);
        if (ck == 2)
            I.coeffs[1] = I.coeffs[0];
        else if (ck == 3)
            I.coeffs[0] = ez_fe2_zero();
        else if (ck == 4)
            I.coeffs[1] = ez_fe2_zero();
        if (iter % 4 == 1)
            eq_point_bits(&I, &r);
        check_same_as_reference(&I);
        inst_free(&I);
    }
}
END_TEST

/* Sizes where rounds run in parallel blocks with both eq tables in use: f g mixed both
 * ways, f g over base (the small-value round), eq (a b + c d) over extension and with
 * one base factor (the LogUp leaf layer), random orders. */
START_TEST(test_reference_larger)
{
    ez_rng r = ez_rng_for("reference_larger");
    for (int k = 0; k < 8; k++) {
        /* n = 16: the in-place bind of round 2 runs in parallel blocks too */
        unsigned n = k == 1 || k == 5 ? 16 : 14;
        bool two = k >= 5;
        inst I;
        inst_init(&I, n, two ? 4 : 2);
        if (two) {
            I.d.nterms = 2;
            I.d.term[0].nf = 2;
            I.d.term[1].nf = 2;
            I.d.term[1].f[0] = 2;
            I.d.term[1].f[1] = 3;
        }
        static const int fks[8] = {F_MIXED, F_MIXED_ODD, F_MIXED, F_MIXED_ODD, F_BASE, F_EXT, F_RAND, F_EXT};
        uint64_t eqv = eq_subset(&r, k == 0 || k == 7 ? EQ_NONE : k == 3 ? EQ_SOME : EQ_ALL, n);
        I.use_coeffs = k % 2 == 1;
        inst_fill(&I, &r, k == 3 || k == 6 ? ORD_RAND : k == 2 ? ORD_REV : ORD_ID, fks[k], eqv);
        check_same_as_reference(&I);
        inst_free(&I);
    }
}
END_TEST

/* A fixed instance used by the malicious-prover tests. */
static void make_fixed(inst *I, ez_rng *r)
{
    inst_init(I, 6, 3);
    ez_sumcheck_desc *d = &I->d;
    d->nterms = 2;
    d->term[0].nf = 2; /* f0 f1 */
    d->term[1].nf = 2;
    d->term[1].f[0] = 2; /* f2 f2 */
    d->term[1].f[1] = 2;
    I->use_coeffs = true;
    inst_fill(I, r, ORD_RAND, F_MIXED, 0x2B);
}

static ez_status verify_fixed(const inst *I, ez_fe2 claim, const ez_sumcheck_proof *pf)
{
    ez_transcript t;
    ez_transcript_init(&t, "malicious");
    return ez_sumcheck_verify(&t, &I->d, I->coeffs, I->eqp, claim, pf, NULL, NULL);
}

static void prove_fixed(const inst *I, ez_fe2 claim, ez_sumcheck_proof *pf)
{
    ez_transcript t;
    ez_transcript_init(&t, "malicious");
    ck_assert_int_eq(ez_sumcheck_prove(&t, &I->d, I->coeffs, I->eqp, I->f, claim, pf, NULL, NULL), EZ_OK);
}

/* The "malicious" case's checked fixture: the fixed instance, its true claim and an
 * honest proof of it, made before each test and freed after it. */
static struct {
    inst I;
    ez_fe2 claim;
    ez_sumcheck_proof pf;
} fx;

static void fixed_setup(void)
{
    ez_rng r = ez_rng_for("malicious");
    make_fixed(&fx.I, &r);
    fx.claim = brute_claim(&fx.I);
    prove_fixed(&fx.I, fx.claim, &fx.pf);
}

static void fixed_teardown(void)
{
    ez_sumcheck_proof_clear(&fx.pf);
    inst_free(&fx.I);
}

START_TEST(test_malicious_round_value)
{
    const inst *I = &fx.I;
    ez_fe2 claim = fx.claim;
    ez_sumcheck_proof *pf = &fx.pf;
    ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_OK);
    size_t nr = (size_t)pf->nvars * pf->degree;
    ck_assert_uint_eq(nr, 6 * 3);
    for (size_t i = 0; i < nr; i++) {
        ez_fe2 keep = pf->rounds[i];
        pf->rounds[i] = ez_fe2_add(keep, ez_fe2_from_fe(1));
        ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_ERR_REJECT);
        pf->rounds[i] = ez_fe2_make(keep.c0, ez_fe_add(keep.c1, 1));
        ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_ERR_REJECT);
        pf->rounds[i] = keep;
    }
    ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_OK);
}
END_TEST

START_TEST(test_malicious_claim)
{
    const inst *I = &fx.I;
    ez_fe2 claim = fx.claim, wrong = ez_fe2_add(claim, ez_fe2_one());
    ez_sumcheck_proof pw;
    /* A prover that runs the protocol on a wrong sum. */
    prove_fixed(I, wrong, &pw);
    ck_assert_int_eq(verify_fixed(I, wrong, &pw), EZ_ERR_REJECT);
    ez_sumcheck_proof_clear(&pw);
    /* An honest proof presented for a different claim. */
    const ez_sumcheck_proof *pf = &fx.pf;
    ck_assert_int_eq(verify_fixed(I, wrong, pf), EZ_ERR_REJECT);
    ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_OK);
    /* ... or for a different eq point or coefficient (the statement is bound). */
    ez_transcript t;
    ez_fe2 eqp2[EZ_SC_MAX_VARS], co2[EZ_SC_MAX_TERMS];
    memcpy(eqp2, I->eqp, sizeof eqp2);
    memcpy(co2, I->coeffs, sizeof co2);
    eqp2[1] = ez_fe2_add(eqp2[1], ez_fe2_one());
    ez_transcript_init(&t, "malicious");
    ck_assert_int_eq(ez_sumcheck_verify(&t, &I->d, I->coeffs, eqp2, claim, pf, NULL, NULL), EZ_ERR_REJECT);
    co2[1] = ez_fe2_add(co2[1], ez_fe2_one());
    ez_transcript_init(&t, "malicious");
    ck_assert_int_eq(ez_sumcheck_verify(&t, &I->d, co2, I->eqp, claim, pf, NULL, NULL), EZ_ERR_REJECT);
    /* A different transcript history gives different challenges. */
    ez_transcript_init(&t, "another");
    ck_assert_int_eq(ez_sumcheck_verify(&t, &I->d, I->coeffs, I->eqp, claim, pf, NULL, NULL), EZ_ERR_REJECT);
}
END_TEST

/* The claim is absorbed before the first round (issue 8). Without it the challenges do
 * not depend on the claimed sum, and a prover picks the sum AFTER seeing them. One
 * variable, one factor f (degree 1): the prover sends g(0) = f(0) + delta, learns rho,
 * and solves the final equation (1 - rho) g(0) + rho (S - g(0)) = f(rho) for S, a false
 * sum (S - (f(0) + f(1)) = delta (2 rho - 1) / rho). The rho it needs is what a verifier
 * blind to the claim draws: the one of its own run on f' = (f(0) + delta, f(1)). Every
 * equation then holds and the evaluation f(rho) it reports is true: only the absorbed
 * claim, which makes the verifier's rho another one, rejects. */
START_TEST(test_malicious_claim_after_challenges)
{
    ez_rng r = ez_rng_for("claim_after_challenges");
    for (int trial = 0; trial < 4; trial++) {
        ez_sumcheck_desc d;
        ez_sumcheck_desc_init(&d, 1, 1);
        ez_fe f[2] = {ez_rng_fe(&r), ez_rng_fe(&r)};
        ez_fe fp[2] = {ez_fe_add(f[0], 1 + ez_rng_next(&r) % 1000), f[1]};
        ez_sumcheck_factor fac = {fp, NULL};
        ez_transcript t;
        ez_transcript_init(&t, "claim-after");
        ez_sumcheck_proof pf;
        ez_fe2 rho, ev;
        ck_assert_int_eq(ez_sumcheck_prove(&t, &d, NULL, NULL, &fac, ez_fe2_from_fe(ez_fe_add(fp[0], fp[1])), &pf,
                                           &rho, &ev),
                         EZ_OK);
        ez_fe2 g0 = pf.rounds[0];
        ck_assert(ez_fe2_eq(g0, ez_fe2_from_fe(fp[0])));
        /* f(rho) and the sum that makes the last equation hold at this rho */
        ez_fe2 one = ez_fe2_one(), frho = ez_fe2_add(ez_fe2_mul_fe(ez_fe2_sub(one, rho), f[0]), ez_fe2_mul_fe(rho, f[1]));
        ez_fe2 S = ez_fe2_add(ez_fe2_mul(ez_fe2_sub(frho, ez_fe2_mul(ez_fe2_sub(one, rho), g0)), ez_fe2_inv(rho)), g0);
        ck_assert(!ez_fe2_eq(S, ez_fe2_from_fe(ez_fe_add(f[0], f[1])))); /* false */
        ez_fe2 lhs = ez_fe2_add(ez_fe2_mul(ez_fe2_sub(one, rho), g0), ez_fe2_mul(rho, ez_fe2_sub(S, g0)));
        ck_assert(ez_fe2_eq(lhs, frho)); /* consistent at the prover's rho */
        pf.evals[0] = frho;
        ez_transcript_init(&t, "claim-after");
        ez_fe2 vpt, vev;
        ck_assert_int_eq(ez_sumcheck_verify(&t, &d, NULL, NULL, S, &pf, &vpt, &vev), EZ_ERR_REJECT);
        ez_sumcheck_proof_clear(&pf);
    }
}
END_TEST

START_TEST(test_malicious_final_eval)
{
    const inst *I = &fx.I;
    ez_fe2 claim = fx.claim;
    ez_sumcheck_proof *pf = &fx.pf;
    for (unsigned j = 0; j < pf->nfactors; j++) {
        ez_fe2 keep = pf->evals[j];
        pf->evals[j] = ez_fe2_add(keep, ez_fe2_from_fe(1));
        ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_ERR_REJECT);
        pf->evals[j] = keep;
    }
    /* A proof of the wrong shape. */
    pf->degree--;
    ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_ERR_REJECT);
    pf->degree++;
    pf->nfactors--;
    ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_ERR_REJECT);
    pf->nfactors++;
    ck_assert_int_eq(verify_fixed(I, claim, pf), EZ_OK);
}
END_TEST

/* The byte format's verifier: parse, then verify (a failed parse leaves no proof). */
typedef struct {
    const inst *I;
    ez_fe2 claim;
} proof_ctx;

static bool proof_accepts(void *ctx, const uint8_t *p, size_t len, ez_status *st)
{
    const proof_ctx *c = ctx;
    ez_reader rd;
    ez_reader_init(&rd, p, len);
    ez_sumcheck_proof back;
    *st = ez_sumcheck_proof_read(&rd, &c->I->d, &back);
    if (*st != EZ_OK) {
        ck_assert_ptr_null(back.rounds);
        return false;
    }
    *st = verify_fixed(c->I, c->claim, &back);
    ez_sumcheck_proof_clear(&back);
    return *st == EZ_OK;
}

START_TEST(test_proof_bytes)
{
    ez_rng r = ez_rng_for("proof_bytes");
    const inst *I = &fx.I;
    ez_fe2 claim = fx.claim;
    ez_sumcheck_proof back;
    ez_writer w;
    ez_writer_init(&w);
    ez_writer_bytes(&w, "pre", 3);
    ez_sumcheck_proof_write(&w, &fx.pf);
    ez_writer_u8(&w, 0xAB);
    ck_assert(!w.failed);
    size_t plen = w.len - 4;
    ck_assert_uint_eq(plen, 16 * (6 * 3 + 3));
    /* Round trip: exactly the proof's bytes are consumed. */
    ez_reader rd;
    ez_reader_init(&rd, w.data, w.len);
    ck_assert(ez_reader_view(&rd, 3) != NULL);
    ck_assert_int_eq(ez_sumcheck_proof_read(&rd, &I->d, &back), EZ_OK);
    ck_assert_uint_eq(ez_reader_u8(&rd), 0xAB);
    ck_assert(ez_reader_done(&rd));
    ck_assert_mem_eq(back.rounds, fx.pf.rounds, 18 * sizeof(ez_fe2));
    ck_assert_mem_eq(back.evals, fx.pf.evals, 3 * sizeof(ez_fe2));
    ck_assert_int_eq(verify_fixed(I, claim, &back), EZ_OK);
    ez_sumcheck_proof_clear(&back);
    /* Every truncation is rejected. */
    proof_ctx pc = {I, claim};
    ez_tamper_truncations(w.data + 3, plen, true, proof_accepts, &pc, "sumcheck proof");
    /* Non-canonical encodings (>= p) are rejected wherever they are. */
    uint8_t *bad = malloc(plen);
    for (size_t at = 0; at < plen; at += 8) {
        memcpy(bad, w.data + 3, plen);
        memset(bad + at, 0xFF, 8);
        ez_reader_init(&rd, bad, plen);
        ck_assert_int_eq(ez_sumcheck_proof_read(&rd, &I->d, &back), EZ_ERR_REJECT);
    }
    /* Random canonical garbage parses but does not verify; a flipped bit in any
     * value of a real proof either fails to parse or fails to verify. */
    for (int k = 0; k < 20; k++) {
        for (size_t i = 0; i < plen; i += 8) {
            ez_fe v = ez_rng_fe(&r);
            ez_fe_encode(bad + i, v);
        }
        ez_reader_init(&rd, bad, plen);
        ck_assert_int_eq(ez_sumcheck_proof_read(&rd, &I->d, &back), EZ_OK);
        ck_assert_int_eq(verify_fixed(I, claim, &back), EZ_ERR_REJECT);
        ez_sumcheck_proof_clear(&back);
    }
    ez_tamper_opts flips = {.stride = 5, .must_reject = true};
    ez_tamper_bytes(w.data + 3, plen, &flips, proof_accepts, &pc, "sumcheck proof");
    free(bad);
    ez_writer_clear(&w);
}
END_TEST

/* The binds' lane kernels (lib/fe2_vec.c, the fused binds of every extension round)
 * against their scalar loops and against lib/field.h's arithmetic, on edge values and at
 * lengths around the eight-lane step; in place too (the MSB-first binds write over lo). */
START_TEST(test_fe2_vec_bind)
{
    ez_rng r = ez_rng_for("fe2_vec_bind");
    for (size_t li = 0; li < ez_test_vec_nlen; li++) {
        const size_t n = ez_test_vec_len[li];
        for (int it = 0; it < 40; it++) {
            ez_fe2 lo[EZ_TEST_VEC_MAXLEN], hi[EZ_TEST_VEC_MAXLEN], v[EZ_TEST_VEC_MAXLEN], ref[EZ_TEST_VEC_MAXLEN], inpl[EZ_TEST_VEC_MAXLEN];
            ez_fe blo[EZ_TEST_VEC_MAXLEN], bhi[EZ_TEST_VEC_MAXLEN];
            ez_fe2 c = it == 0 ? ez_fe2_make(EZ_P - 1, EZ_P - 1) : ez_rng_fe2_edgy(&r);
            for (size_t i = 0; i < n; i++) {
                lo[i] = ez_rng_fe2_edgy(&r);
                hi[i] = ez_rng_fe2_edgy(&r);
                blo[i] = ez_rng_fe_edgy(&r);
                bhi[i] = ez_rng_fe_edgy(&r);
            }
            ez_fe2_bind(v, lo, hi, n, c);
            ez_fe2_bind_ref(ref, lo, hi, n, c);
            memcpy(inpl, lo, n * sizeof *lo);
            ez_fe2_bind(inpl, inpl, hi, n, c);
            for (size_t i = 0; i < n; i++) {
                ez_fe2 want = ez_fe2_add(lo[i], ez_fe2_mul(c, ez_fe2_sub(hi[i], lo[i])));
                ck_assert_msg(ez_fe2_eq(v[i], want) && ez_fe2_eq(ref[i], want) && ez_fe2_eq(inpl[i], want),
                              "bind n=%zu i=%zu", n, i);
            }
            ez_fe2_bind_base(v, blo, bhi, n, c);
            ez_fe2_bind_base_ref(ref, blo, bhi, n, c);
            for (size_t i = 0; i < n; i++) {
                ez_fe2 want = ez_fe2_add(ez_fe2_from_fe(blo[i]), ez_fe2_mul_fe(c, ez_fe_sub(bhi[i], blo[i])));
                ck_assert_msg(ez_fe2_eq(v[i], want) && ez_fe2_eq(ref[i], want), "bind_base n=%zu i=%zu", n, i);
            }
        }
    }
}
END_TEST

Suite *ez_suite_sumcheck(void)
{
    const TTest *tests[] = {test_desc, test_shapes, test_multi_term, test_exhaustive_tiny, test_larger,
        test_degenerate_eq_point, test_reference_one_term, test_reference_two_terms, test_reference_larger,
        test_zero_vars_and_zero_tables, test_malicious_claim_after_challenges, test_fe2_vec_bind};
    Suite *s = ez_test_suite("sumcheck", "sumcheck", 60, tests, sizeof tests / sizeof tests[0]);
    const TTest *fixed[] = {test_malicious_round_value, test_malicious_claim, test_malicious_final_eval,
        test_proof_bytes};
    ez_tcase_add_fixture(s, "malicious", 60, fixed_setup, fixed_teardown, fixed, sizeof fixed / sizeof fixed[0]);
    return s;
}

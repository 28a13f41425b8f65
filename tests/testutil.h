/* Shared helpers for the Check suites: a seeded, reproducible random source (the runner
 * prints the seed; EZ_TEST_SEED=<n> in the environment replays a run), and the byte
 * tampering every protocol's malicious-prover tests do to an honest proof. */
#ifndef EZ_TESTUTIL_H
#define EZ_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/pcs.h"
#include "lib/sumcheck.h"

#define EZ_SUITE(name) Suite *ez_suite_##name(void);
#define EZ_SUITE_W(name, w) EZ_SUITE(name)
#include "tests/suites.h"
#undef EZ_SUITE
#undef EZ_SUITE_W

/* Add the test case `name` to s: the n tests of `tests`, in that order, with Check's
 * timeout set to `timeout` seconds (0: Check's default, or CK_DEFAULT_TIMEOUT). */
void ez_tcase_add(Suite *s, const char *name, double timeout, const TTest *const *tests, size_t n);

/* ez_tcase_add with a Check checked fixture: setup runs before and teardown after each
 * test, in the test's own process (forked or not), so a test reads as its check alone.
 * The fixture a setup fills lives in a file-static variable of the suite. */
void ez_tcase_add_fixture(Suite *s, const char *name, double timeout, void (*setup)(void), void (*teardown)(void),
                          const TTest *const *tests, size_t n);

/* A new suite `name` of one test case, `tcase` (its tests and timeout as ez_tcase_add). */
Suite *ez_test_suite(const char *name, const char *tcase, double timeout, const TTest *const *tests, size_t n);

/* A tensor's shape is (want[0], ..., want[want_rank - 1]): rank and every extent
 * asserted, the failure message naming the axis. EZ_TEST_DIMS(rank, dims, 2, 3, 4)
 * passes the extents as a list. */
void ez_test_dims_eq(unsigned rank, const uint64_t *dims, unsigned want_rank, const uint64_t *want);
#define EZ_TEST_DIMS(rank, dims, ...)                                                                \
    ez_test_dims_eq(rank, dims, (unsigned)(sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), \
                    (const uint64_t[]){__VA_ARGS__})

/* The run's seed (set once by the runner before any test). */
uint64_t ez_test_seed(void);

/* splitmix64: a small deterministic generator; each test seeds its own state from
 * ez_test_seed() so tests are independent of each other's order. */
typedef struct {
    uint64_t s;
} ez_rng;

static inline uint64_t ez_rng_next(ez_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline ez_rng ez_rng_for(const char *test_name)
{
    uint64_t h = ez_test_seed();
    for (const char *c = test_name; *c; c++)
        h = (h ^ (uint8_t)*c) * UINT64_C(0x100000001B3);
    ez_rng r = {h};
    return r;
}

static inline ez_fe ez_rng_fe(ez_rng *r)
{
    return ez_fe_from_u64(ez_rng_next(r));
}

static inline ez_fe2 ez_rng_fe2(ez_rng *r)
{
    return ez_fe2_make(ez_rng_fe(r), ez_rng_fe(r));
}

/* Field elements at the edges of the reductions (0, 1, 2^32 - 1, 2^32, 2^63, p - 2^32,
 * p - 1, ...): the values a lane kernel's carries and borrows go wrong on first. */
extern const ez_fe ez_test_fe_edge[];
extern const size_t ez_test_fe_nedge;

/* Lengths around an eight-lane step (1, 7, 8, 9, ...; the largest EZ_TEST_VEC_MAXLEN):
 * a lane kernel's whole steps, its scalar tail and both together. */
#define EZ_TEST_VEC_MAXLEN 67
extern const size_t ez_test_vec_len[];
extern const size_t ez_test_vec_nlen;

/* An edge value or a random one, each half the time. */
static inline ez_fe ez_rng_fe_edgy(ez_rng *r)
{
    uint64_t x = ez_rng_next(r);
    return x & 1 ? ez_test_fe_edge[(x >> 1) % ez_test_fe_nedge] : ez_rng_fe(r);
}

static inline ez_fe2 ez_rng_fe2_edgy(ez_rng *r)
{
    return ez_fe2_make(ez_rng_fe_edgy(r), ez_rng_fe_edgy(r));
}

/* ---- tampered proofs ------------------------------------------------------------------
 * A byte flip is caught by whatever check comes first, so these complement (never
 * replace) the targeted malicious provers of each suite: they show that no byte of a
 * proof is left unchecked. */

/* The verifier under test, for one (tampered) copy of a proof: whether it accepts
 * p[0..len), with the verifier's status in *st. ctx: the test's fixture. */
typedef bool (*ez_tamper_accepts_fn)(void *ctx, const uint8_t *p, size_t len, ez_status *st);

typedef struct {
    size_t stride;    /* tamper with bytes 0, stride, 2 stride, ... (0 means 1) */
    uint8_t mask;     /* xor this into the byte; 0: one bit, bit (i % 8) of byte i ... */
    ez_rng *rng;      /* ... or, when given, a random bit */
    bool must_reject; /* the status must be EZ_ERR_REJECT, not only "not accepted" */
} ez_tamper_opts;

/* One byte at a time, a copy of proof[0..len) with byte i changed (see o) must not be
 * accepted. what names the proof in failure messages. Returns the copies tried. */
size_t ez_tamper_bytes(const uint8_t *proof, size_t len, const ez_tamper_opts *o, ez_tamper_accepts_fn accepts,
                       void *ctx, const char *what);

/* Every proper prefix of proof[0..len) (a truncated proof, in an exact-size copy so
 * that a sanitizer sees any read past its end) must not be accepted, and must be
 * rejected with EZ_ERR_REJECT when must_reject. */
void ez_tamper_truncations(const uint8_t *proof, size_t len, bool must_reject, ez_tamper_accepts_fn accepts,
                           void *ctx, const char *what);

/* Replace the extension element encoded at p by itself + 1: still canonical, so the
 * proof parses and only the checks that read this value can catch it. */
void ez_tamper_fe2(uint8_t *p);

/* ---- committed polys and true claims on them (the PCS suites) ----------------------- */

#define EZ_TEST_MAXPOLYS 40 /* polys in one ez_test_polys */
#define EZ_TEST_MAXVARS 40  /* coordinates of one claim's point */

typedef struct {
    size_t n;
    uint64_t lens[EZ_TEST_MAXPOLYS];
    ez_fe *polys[EZ_TEST_MAXPOLYS]; /* owned */
} ez_test_polys;

/* n <= EZ_TEST_MAXPOLYS polys of lens[i] random entries each, drawn from r in order. */
void ez_test_polys_make(ez_test_polys *ps, ez_rng *r, const uint64_t *lens, size_t n);
void ez_test_polys_free(ez_test_polys *ps);
/* ps's polys as the source of a prover read from its data (ez_pcs_prover_read: WHIR's
 * data does not hold them), copied from memory, no supports. */
ez_pcs_polys_src ez_test_polys_src(const ez_test_polys *ps);

/* Those polys committed with `scheme` (ez_pcs_commit_scheme; fails the test on an error). */
typedef struct {
    ez_test_polys ps;
    ez_pcs_prover *p;
    ez_pcs_commitment com;
} ez_test_committed;

void ez_test_commit(ez_test_committed *c, ez_rng *r, const uint64_t *lens, size_t n, unsigned scheme);
/* Verify an opening of claims cl[0..n) of com (ez_pcs_verify_ex with flags) read from
 * data[0..len), on a fresh transcript of the given domain that has absorbed com; the
 * verifier's status, and in *done (if not NULL) whether it read the bytes exactly. */
ez_status ez_test_pcs_verify(const char *domain, const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n,
                             unsigned flags, const uint8_t *data, size_t len, bool *done);
void ez_test_committed_free(ez_test_committed *c);

/* For k < n: cl[k] claims poly which[k] of ps at a random point (drawn from r, stored in
 * points[k]) with its true value (the MLE of the poly's entries there). */
void ez_test_pcs_claims(ez_pcs_claim *cl, ez_fe2 (*points)[EZ_TEST_MAXVARS], ez_rng *r, const ez_test_polys *ps,
                        const size_t *which, size_t n);

/* Set the OpenMP thread count of the following parallel regions (no-op without OpenMP);
 * returns the count before. For tests that compare a result on 1 and 2 threads. */
int ez_test_set_threads(int n);

/* ---- plans from source ------------------------------------------------------------- */

/* Compile .ein source text (file name "test.ein", model name "test") all the way to a
 * scheduled plan with its digest, into *plan (initialised here; ez_plan_clear). Fails
 * the test, with the rendered diagnostics on stderr, when any step fails. */
void ez_test_compile_plan(ez_plan *plan, const char *src);

/* A sumcheck's factor tables with factor j changed at two entries x0, x1 by +w(x1) and
 * -w(x0), w(x) = eq(x) sum_t c_t prod_{i in t, i != j} f_i(x) that factor's weight in the
 * sum at x (the first two entries where w != 0): the sum over the cube is unchanged, so a
 * prover running the sumcheck over them keeps every round consistent, while factor j's
 * value at the final point is no longer the original table's (a cheating prover aimed at
 * the check of that one value). j must occur at most once in each term. Out: out[] the
 * factors (j's table is *table, 2^nvars extension entries, the caller frees it). */
const ez_sumcheck_factor *ez_test_forge_factor(const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *eqp,
                                               const ez_sumcheck_factor *f, unsigned j, ez_sumcheck_factor *out,
                                               ez_fe2 **table);

#endif

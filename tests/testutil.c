/* Shared helpers for the Check suites (testutil.h): tampered proofs, plans from source. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "compiler/diag.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "lib/mle.h"

const ez_fe ez_test_fe_edge[] = {0, 1, 2, UINT64_C(0xFFFFFFFF), UINT64_C(0x100000000), UINT64_C(0x100000001),
                                 UINT64_C(0x8000000000000000), UINT64_C(0x7FFFFFFFFFFFFFFF),
                                 EZ_P - UINT64_C(0x100000000), EZ_P - UINT64_C(0xFFFFFFFF), EZ_P - 2, EZ_P - 1,
                                 UINT64_C(0xFFFFFFFE00000000), UINT64_C(0xFFFFFFFF00000000) - 1};
const size_t ez_test_fe_nedge = sizeof ez_test_fe_edge / sizeof ez_test_fe_edge[0];
const size_t ez_test_vec_len[] = {1, 7, 8, 9, 15, 16, 17, EZ_TEST_VEC_MAXLEN};
const size_t ez_test_vec_nlen = sizeof ez_test_vec_len / sizeof ez_test_vec_len[0];

void ez_tcase_add(Suite *s, const char *name, double timeout, const TTest *const *tests, size_t n)
{
    ez_tcase_add_fixture(s, name, timeout, NULL, NULL, tests, n);
}

void ez_tcase_add_fixture(Suite *s, const char *name, double timeout, void (*setup)(void), void (*teardown)(void),
                          const TTest *const *tests, size_t n)
{
    TCase *tc = tcase_create(name);
    if (timeout > 0)
        tcase_set_timeout(tc, timeout);
    if (setup || teardown)
        tcase_add_checked_fixture(tc, setup, teardown);
    for (size_t i = 0; i < n; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(s, tc);
}

Suite *ez_test_suite(const char *name, const char *tcase, double timeout, const TTest *const *tests, size_t n)
{
    Suite *s = suite_create(name);
    ez_tcase_add(s, tcase, timeout, tests, n);
    return s;
}

void ez_test_dims_eq(unsigned rank, const uint64_t *dims, unsigned want_rank, const uint64_t *want)
{
    ck_assert_uint_eq(rank, want_rank);
    for (unsigned a = 0; a < want_rank; a++)
        ck_assert_msg(dims[a] == want[a], "axis %u: extent %llu, expected %llu", a, (unsigned long long)dims[a],
                      (unsigned long long)want[a]);
}

size_t ez_tamper_bytes(const uint8_t *proof, size_t len, const ez_tamper_opts *o, ez_tamper_accepts_fn accepts,
                       void *ctx, const char *what)
{
    uint8_t *buf = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(buf);
    size_t n = 0;
    for (size_t i = 0; i < len; i += o->stride ? o->stride : 1, n++) {
        memcpy(buf, proof, len);
        uint8_t m = o->mask ? o->mask : (uint8_t)(1u << (o->rng ? ez_rng_next(o->rng) % 8 : i % 8));
        buf[i] ^= m;
        ez_status st = EZ_OK;
        ck_assert_msg(!accepts(ctx, buf, len, &st), "%s: byte %zu ^ 0x%02x accepted", what, i, m);
        if (o->must_reject)
            ck_assert_msg(st == EZ_ERR_REJECT, "%s: byte %zu ^ 0x%02x: status %d, expected a rejection", what, i,
                          m, (int)st);
    }
    free(buf);
    return n;
}

void ez_tamper_truncations(const uint8_t *proof, size_t len, bool must_reject, ez_tamper_accepts_fn accepts,
                           void *ctx, const char *what)
{
    for (size_t l = 0; l < len; l++) {
        uint8_t *cut = malloc(l ? l : 1); /* an exact-size copy: ASan sees overreads */
        ck_assert_ptr_nonnull(cut);
        memcpy(cut, proof, l);
        ez_status st = EZ_OK;
        bool ok = accepts(ctx, cut, l, &st);
        free(cut);
        ck_assert_msg(!ok, "%s: the first %zu bytes accepted", what, l);
        if (must_reject)
            ck_assert_msg(st == EZ_ERR_REJECT, "%s: the first %zu bytes: status %d, expected a rejection", what,
                          l, (int)st);
    }
}

void ez_tamper_fe2(uint8_t *p)
{
    ez_fe2 v;
    ck_assert_msg(ez_fe2_decode(&v, p), "not an encoded extension element");
    ez_fe2_encode(p, ez_fe2_add(v, ez_fe2_one()));
}

void ez_test_compile_plan(ez_plan *plan, const char *src)
{
    ez_plan_init(plan);
    ez_diag_list diags;
    ez_program *prog = NULL;
    ez_diag d = {{0}};
    ez_status st = ez_compile_front("test.ein", src, strlen(src), NULL, 0, &diags, &prog);
    if (st != EZ_OK) {
        char *text = NULL;
        if (ez_diag_render(&diags, &text) == EZ_OK && text)
            fprintf(stderr, "%s", text);
        free(text);
    }
    ck_assert_int_eq(st, EZ_OK);
    ck_assert_msg(ez_lower(plan, prog, "test", &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_plan_schedule(plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_int_eq(ez_plan_compute_digest(plan, &d), EZ_OK);
    ez_program_free(prog);
    ez_diag_list_clear(&diags);
}

/* w(x): factor j's weight in the sum at entry x (testutil.h ez_test_forge_factor) */
static ez_fe2 forge_weight(const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *eqp,
                           const ez_sumcheck_factor *f, unsigned j, uint64_t x)
{
    ez_fe2 w = ez_fe2_zero();
    for (unsigned t = 0; t < d->nterms; t++) {
        unsigned hits = 0;
        ez_fe2 prod = coeffs ? coeffs[t] : ez_fe2_one();
        for (unsigned k = 0; k < d->term[t].nf; k++) {
            unsigned i = d->term[t].f[k];
            if (i == j) {
                hits++;
                continue;
            }
            prod = ez_fe2_mul(prod, f[i].base ? ez_fe2_from_fe(f[i].base[x]) : f[i].ext[x]);
        }
        ck_assert_uint_le(hits, 1);
        if (hits)
            w = ez_fe2_add(w, prod);
    }
    /* eq over eq_vars: coordinates in increasing variable index, variable 0 the MSB of x */
    unsigned k = 0;
    for (unsigned v = 0; v < d->nvars; v++)
        if ((d->eq_vars >> v) & 1) {
            ez_fe2 r = eqp[k++];
            w = ez_fe2_mul(w, (x >> (d->nvars - 1 - v)) & 1 ? r : ez_fe2_sub(ez_fe2_one(), r));
        }
    return w;
}

const ez_sumcheck_factor *ez_test_forge_factor(const ez_sumcheck_desc *d, const ez_fe2 *coeffs, const ez_fe2 *eqp,
                                               const ez_sumcheck_factor *f, unsigned j, ez_sumcheck_factor *out,
                                               ez_fe2 **table)
{
    ck_assert_uint_lt(j, d->nfactors);
    const uint64_t n = UINT64_C(1) << d->nvars;
    ez_fe2 *tb = malloc(n * sizeof *tb);
    ck_assert_ptr_nonnull(tb);
    for (uint64_t x = 0; x < n; x++)
        tb[x] = f[j].base ? ez_fe2_from_fe(f[j].base[x]) : f[j].ext[x];
    uint64_t x0 = n, x1 = n;
    ez_fe2 w0 = ez_fe2_zero(), w1 = ez_fe2_zero();
    for (uint64_t x = 0; x < n && x1 == n; x++) {
        ez_fe2 w = forge_weight(d, coeffs, eqp, f, j, x);
        if (ez_fe2_is_zero(w))
            continue;
        if (x0 == n) {
            x0 = x;
            w0 = w;
        } else {
            x1 = x;
            w1 = w;
        }
    }
    ck_assert_msg(x1 < n, "the factor has fewer than two entries that count in the sum");
    tb[x0] = ez_fe2_add(tb[x0], w1);
    tb[x1] = ez_fe2_sub(tb[x1], w0);
    memcpy(out, f, d->nfactors * sizeof *f);
    out[j].base = NULL;
    out[j].ext = tb;
    *table = tb;
    return out;
}

void ez_test_polys_make(ez_test_polys *ps, ez_rng *r, const uint64_t *lens, size_t n)
{
    ck_assert_uint_le(n, EZ_TEST_MAXPOLYS);
    ps->n = n;
    for (size_t i = 0; i < n; i++) {
        ps->lens[i] = lens[i];
        ps->polys[i] = malloc(lens[i] * sizeof(ez_fe));
        ck_assert_ptr_nonnull(ps->polys[i]);
        for (uint64_t j = 0; j < lens[i]; j++)
            ps->polys[i][j] = ez_rng_fe(r);
    }
}

ez_pcs_polys_src ez_test_polys_src(const ez_test_polys *ps)
{
    return (ez_pcs_polys_src){.sup = NULL, .fill = ez_pcs_polys_copy, .ctx = (void *)ps->polys};
}

void ez_test_polys_free(ez_test_polys *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        free(ps->polys[i]);
}

void ez_test_commit(ez_test_committed *c, ez_rng *r, const uint64_t *lens, size_t n, unsigned scheme)
{
    ez_test_polys_make(&c->ps, r, lens, n);
    c->p = NULL;
    ck_assert_int_eq(ez_pcs_commit_scheme(&c->p, &c->com, (const ez_fe *const *)c->ps.polys, c->ps.lens, n, scheme),
                     EZ_OK);
}

void ez_test_committed_free(ez_test_committed *c)
{
    ez_pcs_commitment_clear(&c->com);
    ez_pcs_prover_free(c->p);
    ez_test_polys_free(&c->ps);
}

ez_status ez_test_pcs_verify(const char *domain, const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n,
                             unsigned flags, const uint8_t *data, size_t len, bool *done)
{
    ez_transcript t;
    ez_transcript_init(&t, domain);
    ez_pcs_commitment_absorb(&t, com);
    ez_reader rd;
    ez_reader_init(&rd, data, len);
    ez_status st = ez_pcs_verify_ex(com, &t, cl, n, flags, &rd);
    if (done)
        *done = ez_reader_done(&rd);
    return st;
}

void ez_test_pcs_claims(ez_pcs_claim *cl, ez_fe2 (*points)[EZ_TEST_MAXVARS], ez_rng *r, const ez_test_polys *ps,
                        const size_t *which, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        size_t i = which[k];
        unsigned nv = ez_log2_ceil(ps->lens[i]);
        ck_assert_uint_le(nv, EZ_TEST_MAXVARS);
        for (unsigned v = 0; v < nv; v++)
            points[k][v] = ez_rng_fe2(r);
        cl[k] = (ez_pcs_claim){.poly = i, .point = points[k], .value = ez_mle_eval_fe(ps->polys[i], ps->lens[i], points[k], nv)};
    }
}

int ez_test_set_threads(int n)
{
#ifdef _OPENMP
    int old = omp_get_max_threads();
    omp_set_num_threads(n);
    return old;
#else
    (void)n;
    return 1;
#endif
}

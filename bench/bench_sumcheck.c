/* Sumcheck prover benchmarks (docs/performance.md: a degree-2 sumcheck <= 25 ns per element on
 * one core). Prints, one JSON object per line:
 *   sumcheck_deg2      two base factors, no eq                 (claim = sum f g)
 *   sumcheck_deg3_eq   two base factors and eq on every variable (claim = sum eq f g)
 *   sumcheck_mixed     f base, g extension, no eq (the PCS batching and claim-merge shape)
 *   sumcheck_mixed_eq  the same with eq on every variable
 *   sumcheck_2terms    eq (a b + c d), four extension factors (a LogUp-GKR layer)
 * and the first two with all threads as *_mt. ns = prover seconds / 2^n, best of 3
 * runs, including the transcript and the prover's scratch allocation; each proof is
 * verified once (not timed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/bench.h"
#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "lib/util.h"

static uint64_t bench_rand(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

enum { SH_BASE2, SH_MIXED, SH_TWO_TERMS };

/* factor value at i as an extension element */
static ez_fe2 fval(const ez_sumcheck_factor *f, size_t i)
{
    return f->base ? ez_fe2_from_fe(f->base[i]) : f->ext[i];
}

static void bench_one(const char *name, unsigned n, int shape, bool with_eq, int threads)
{
    size_t N = (size_t)1 << n;
    uint64_t seed = 12345;
    ez_sumcheck_desc d;
    ez_sumcheck_factor fac[4];
    void *mem[4] = {NULL, NULL, NULL, NULL};
    ez_fe2 *eq = NULL;
    memset(fac, 0, sizeof fac);
    unsigned nf = shape == SH_TWO_TERMS ? 4 : 2;
    ez_sumcheck_desc_init(&d, n, nf);
    if (shape == SH_TWO_TERMS) {
        d.nterms = 2;
        d.term[0].nf = 2, d.term[0].f[0] = 0, d.term[0].f[1] = 1;
        d.term[1].nf = 2, d.term[1].f[0] = 2, d.term[1].f[1] = 3;
    }
    for (unsigned j = 0; j < nf; j++) {
        bool base = shape == SH_BASE2 || (shape == SH_MIXED && j == 0);
        mem[j] = ez_alloc_aligned(N, base ? sizeof(ez_fe) : sizeof(ez_fe2));
        if (!mem[j])
            goto out;
        if (base) {
            ez_fe *t = mem[j];
            for (size_t i = 0; i < N; i++)
                t[i] = ez_fe_from_u64(bench_rand(&seed));
            fac[j].base = t;
        } else {
            ez_fe2 *t = mem[j];
            for (size_t i = 0; i < N; i++)
                t[i] = ez_fe2_make(ez_fe_from_u64(bench_rand(&seed)), ez_fe_from_u64(bench_rand(&seed)));
            fac[j].ext = t;
        }
    }
    ez_fe2 eqp[EZ_SC_MAX_VARS];
    if (with_eq) {
        d.eq_vars = (UINT64_C(1) << n) - 1;
        for (unsigned j = 0; j < n; j++)
            eqp[j] = ez_fe2_make(ez_fe_from_u64(bench_rand(&seed)), ez_fe_from_u64(bench_rand(&seed)));
        if (!(eq = ez_alloc_aligned(N, sizeof *eq)))
            goto out;
        ez_eq_table(eq, eqp, n);
    }
    /* The claim, computed outside the timing (the prover takes it as input). */
    ez_fe2 claim = ez_fe2_zero();
    for (size_t i = 0; i < N; i++) {
        ez_fe2 v = ez_fe2_zero();
        for (unsigned t = 0; t < d.nterms; t++)
            v = ez_fe2_add(v, ez_fe2_mul(fval(&fac[d.term[t].f[0]], i), fval(&fac[d.term[t].f[1]], i)));
        claim = ez_fe2_add(claim, with_eq ? ez_fe2_mul(eq[i], v) : v);
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    double best = 1e30;
    bool ok = true;
    for (int rep = 0; rep < 3; rep++) {
        ez_transcript tp;
        ez_transcript_init(&tp, "bench");
        ez_sumcheck_proof pf;
        double t0 = ez_now();
        ez_status st = ez_sumcheck_prove(&tp, &d, NULL, with_eq ? eqp : NULL, fac, claim, &pf, NULL, NULL);
        double dt = ez_now() - t0;
        if (dt < best)
            best = dt;
        if (st != EZ_OK) {
            ok = false;
            break;
        }
        if (rep == 0) {
            ez_transcript tv;
            ez_transcript_init(&tv, "bench");
            ok = ez_sumcheck_verify(&tv, &d, NULL, with_eq ? eqp : NULL, claim, &pf, NULL, NULL) == EZ_OK;
        }
        ez_sumcheck_proof_clear(&pf);
    }
    printf("{\"bench\":\"%s\",\"ns\":%.3f,\"log2n\":%u,\"threads\":%d,\"verified\":%s}\n", name,
           best * 1e9 / (double)N, n, threads, ok ? "true" : "false");
    fflush(stdout);
out:
    for (unsigned j = 0; j < 4; j++)
        free(mem[j]);
    free(eq);
}

void ez_bench_sumcheck(const ez_bench_opts *o)
{
    unsigned n = o->quick ? 16 : 20;
#ifdef _OPENMP
    int all = omp_get_num_procs();
#else
    int all = 1;
#endif
    bench_one("sumcheck_deg2", n, SH_BASE2, false, 1);
    bench_one("sumcheck_deg3_eq", n, SH_BASE2, true, 1);
    bench_one("sumcheck_mixed", n, SH_MIXED, false, 1);
    bench_one("sumcheck_mixed_eq", n, SH_MIXED, true, 1);
    bench_one("sumcheck_2terms", n, SH_TWO_TERMS, true, 1);
    bench_one("sumcheck_deg2_mt", n, SH_BASE2, false, all);
    bench_one("sumcheck_deg3_eq_mt", n, SH_BASE2, true, all);
#ifdef _OPENMP
    omp_set_num_threads(all);
#endif
}

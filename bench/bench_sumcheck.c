/* Sumcheck prover benchmarks (DESIGN.md §6: a degree-2 sumcheck <= 25 ns per element on
 * one core). Prints, one JSON object per line:
 *   sumcheck_deg2      two base factors, no eq                 (claim = sum f g)
 *   sumcheck_deg3_eq   two base factors and eq on every variable (claim = sum eq f g)
 * and the same with all threads as *_mt. ns = prover seconds / 2^n, best of 3 runs,
 * including the transcript; each proof is verified once (not timed). */
#include <stdio.h>
#include <stdlib.h>
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

static void bench_one(const char *name, unsigned n, bool with_eq, int threads)
{
    size_t N = (size_t)1 << n;
    uint64_t seed = 12345;
    ez_fe *f = ez_alloc_aligned(N, sizeof *f), *g = ez_alloc_aligned(N, sizeof *g);
    if (!f || !g) {
        free(f);
        free(g);
        return;
    }
    for (size_t i = 0; i < N; i++) {
        f[i] = ez_fe_from_u64(bench_rand(&seed));
        g[i] = ez_fe_from_u64(bench_rand(&seed));
    }
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, n, 2);
    ez_fe2 eqp[EZ_SC_MAX_VARS];
    if (with_eq) {
        d.eq_vars = (UINT64_C(1) << n) - 1;
        for (unsigned j = 0; j < n; j++)
            eqp[j] = ez_fe2_make(ez_fe_from_u64(bench_rand(&seed)), ez_fe_from_u64(bench_rand(&seed)));
    }
    /* The claim, computed outside the timing (the prover takes it as input). */
    ez_fe2 claim = ez_fe2_zero();
    if (with_eq) {
        ez_fe2 *eq = ez_alloc_aligned(N, sizeof *eq);
        if (!eq) {
            free(f);
            free(g);
            return;
        }
        ez_eq_table(eq, eqp, n);
        for (size_t i = 0; i < N; i++)
            claim = ez_fe2_add(claim, ez_fe2_mul_fe(eq[i], ez_fe_mul(f[i], g[i])));
        free(eq);
    } else {
        for (size_t i = 0; i < N; i++)
            claim = ez_fe2_add(claim, ez_fe2_from_fe(ez_fe_mul(f[i], g[i])));
    }
    ez_sumcheck_factor fac[2] = {{f, NULL}, {g, NULL}};
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
    free(f);
    free(g);
}

void ez_bench_sumcheck(const ez_bench_opts *o)
{
    unsigned n = o->quick ? 16 : 20;
#ifdef _OPENMP
    int all = omp_get_num_procs();
#else
    int all = 1;
#endif
    bench_one("sumcheck_deg2", n, false, 1);
    bench_one("sumcheck_deg3_eq", n, true, 1);
    bench_one("sumcheck_deg2_mt", n, false, all);
    bench_one("sumcheck_deg3_eq_mt", n, true, all);
#ifdef _OPENMP
    omp_set_num_threads(all);
#endif
}

/* PCS benchmark (docs/performance.md: a commitment <= 80 ns per element on one core): one
 * polynomial of 2^22 random entries (2^16 with --quick), Ligero then WHIR
 * (docs/protocol-kernel-pcs.md §6 and §11) in the same run.
 *   ligero_commit       ns per committed element, one thread (RS encoding + hashing);
 *                       "cpu_ns" is the same in thread CPU time (robust on a busy host)
 *   ligero_commit_mt    the same with all threads
 *   ligero_open         ms for an opening of two claims at different points (the
 *                       batched path: claim table, sumcheck, Ligero opening), one thread
 *   ligero_verify       ms to verify it, one thread
 *   ligero_proof_bytes  its size
 *   ligero_open_direct  one claim on the whole polynomial (no batching sumcheck):
 *                       open/verify ms and bytes
 *   whir_commit, whir_commit_mt, whir_open, whir_verify, whir_proof_bytes
 *                       the same for EZ_PCS_SCHEME_WHIR (same polynomial and claims)
 *   whir_vs_ligero      WHIR / Ligero in this run: commit and open in thread CPU time
 *                       (one thread), the minimum over the rows above and EZ_BENCH_REPS
 *                       more interleaved repetitions (a shared host's noise only ever
 *                       adds time), verify likewise (thread CPU time), proof bytes
 *   whir_batch2         two WHIR commitments of 2^22 (the polynomial and its reverse), two
 *                       claims each, in ONE batched opening (ez_pcs_open_multi, docs §9a):
 *                       bytes against two separate openings, open/verify ms, one thread */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/bench.h"
#include "lib/mle.h"
#include "lib/pcs.h"

static void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Interleaved repetitions behind the whir_vs_ligero ratios. */
#define EZ_BENCH_REPS 2

/* Open and verify claims; returns false on any failure. open_cpu: thread CPU time. */
static bool open_verify(ez_pcs_prover *p, const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n,
                        double *open_ms, double *open_cpu_ms, double *verify_ms, double *verify_cpu_ms, size_t *bytes)
{
    ez_transcript t;
    ez_writer w;
    ez_writer_init(&w);
    ez_transcript_init(&t, "einzk/bench/pcs");
    ez_pcs_commitment_absorb(&t, com);
    double t0 = ez_now(), c0 = thread_cpu();
    ez_status st = ez_pcs_open(p, &t, cl, n, &w);
    double t1 = ez_now(), c1 = thread_cpu();
    bool ok = st == EZ_OK && !w.failed;
    if (ok) {
        ez_transcript_init(&t, "einzk/bench/pcs");
        ez_pcs_commitment_absorb(&t, com);
        ez_reader r;
        ez_reader_init(&r, w.data, w.len);
        double t2 = ez_now(), c2 = thread_cpu();
        ok = ez_pcs_verify(com, &t, cl, n, &r) == EZ_OK && ez_reader_done(&r);
        *verify_ms = (ez_now() - t2) * 1e3;
        if (verify_cpu_ms)
            *verify_cpu_ms = (thread_cpu() - c2) * 1e3;
    }
    *open_ms = (t1 - t0) * 1e3;
    if (open_cpu_ms)
        *open_cpu_ms = (c1 - c0) * 1e3;
    *bytes = w.len;
    ez_writer_clear(&w);
    return ok;
}

/* Commit with one thread then all threads (rows <prefix>_commit, <prefix>_commit_mt);
 * the last prover and commitment stay in *p, *com (the same bytes either way). */
static bool commit_rows(const char *prefix, unsigned scheme, const ez_fe *const *polys, uint64_t n,
                        ez_pcs_prover **p, ez_pcs_commitment *com, double *cpu_ns)
{
    int thr[2] = {1, max_threads()};
    for (int k = 0; k < 2; k++) {
        set_threads(thr[k]);
        ez_pcs_prover_free(*p);
        ez_pcs_commitment_clear(com);
        *p = NULL;
        double t0 = ez_now(), c0 = thread_cpu();
        ez_status st = ez_pcs_commit_scheme(p, com, polys, &n, 1, scheme);
        double t = ez_now() - t0, c = thread_cpu() - c0;
        if (st != EZ_OK)
            return false;
        printf("{\"bench\":\"%s_commit%s\",\"ns\":%.1f,", prefix, thr[k] == 1 ? "" : "_mt", t * 1e9 / (double)n);
        if (thr[k] == 1) {
            printf("\"cpu_ns\":%.1f,", c * 1e9 / (double)n);
            *cpu_ns = c * 1e9 / (double)n;
        }
        printf("\"elements\":%llu,\"threads\":%d,\"rows\":%llu,\"cols\":%llu}\n", (unsigned long long)n, thr[k],
               (unsigned long long)com->rows, (unsigned long long)1 << com->log_cols);
        fflush(stdout);
    }
    return true;
}

void ez_bench_pcs(const ez_bench_opts *o)
{
    unsigned lg = o->quick ? 16 : 22;
    uint64_t n = (uint64_t)1 << lg;
    ez_fe *v = malloc((size_t)n * sizeof *v);
    ez_pcs_prover *p = NULL;
    ez_pcs_commitment com = {0};
    if (v == NULL)
        return;
    uint64_t s = 0xC0FFEE;
    for (uint64_t i = 0; i < n; i++)
        v[i] = ez_fe_from_u64(mix(&s));
    const ez_fe *polys[1] = {v};
    ez_fe2 pts[2][64];
    ez_pcs_claim cl[2];
    for (int k = 0; k < 2; k++) {
        for (unsigned j = 0; j < lg; j++)
            pts[k][j] = ez_fe2_make(ez_fe_from_u64(mix(&s)), ez_fe_from_u64(mix(&s)));
        cl[k].poly = 0;
        cl[k].point = pts[k];
        cl[k].value = ez_mle_eval_fe(v, (size_t)n, pts[k], lg);
    }
    double lcpu, lom, locpu, lvm, lvcpu, wcpu, wom, wocpu, wvm, wvcpu;
    size_t lbytes, wbytes;

    /* Ligero */
    if (!commit_rows("ligero", EZ_PCS_SCHEME_LIGERO, polys, n, &p, &com, &lcpu))
        goto out;
    set_threads(1);
    bool ok = open_verify(p, &com, cl, 2, &lom, &locpu, &lvm, &lvcpu, &lbytes);
    printf("{\"bench\":\"ligero_open\",\"ms\":%.2f,\"cpu_ms\":%.2f,\"claims\":2,\"elements\":%llu,\"accepted\":%s}\n",
           lom, locpu, (unsigned long long)n, ok ? "true" : "false");
    printf("{\"bench\":\"ligero_verify\",\"ms\":%.3f,\"cpu_ms\":%.3f,\"claims\":2,\"accepted\":%s}\n", lvm, lvcpu,
           ok ? "true" : "false");
    printf("{\"bench\":\"ligero_proof_bytes\",\"bytes\":%zu,\"claims\":2,\"queries\":%u}\n", lbytes, EZ_PCS_QUERIES);
    double om, vm;
    size_t bytes;
    ok = open_verify(p, &com, cl, 1, &om, NULL, &vm, NULL, &bytes);
    printf("{\"bench\":\"ligero_open_direct\",\"ms\":%.2f,\"verify_ms\":%.3f,\"bytes\":%zu,\"claims\":1,"
           "\"accepted\":%s}\n",
           om, vm, bytes, ok ? "true" : "false");
    fflush(stdout);

    /* WHIR on the same polynomial and claims */
    if (!commit_rows("whir", EZ_PCS_SCHEME_WHIR, polys, n, &p, &com, &wcpu))
        goto out;
    set_threads(1);
    ok = open_verify(p, &com, cl, 2, &wom, &wocpu, &wvm, &wvcpu, &wbytes);
    printf("{\"bench\":\"whir_open\",\"ms\":%.2f,\"cpu_ms\":%.2f,\"claims\":2,\"elements\":%llu,\"accepted\":%s}\n",
           wom, wocpu, (unsigned long long)n, ok ? "true" : "false");
    printf("{\"bench\":\"whir_verify\",\"ms\":%.3f,\"cpu_ms\":%.3f,\"claims\":2,\"accepted\":%s}\n", wvm, wvcpu,
           ok ? "true" : "false");
    printf("{\"bench\":\"whir_proof_bytes\",\"bytes\":%zu,\"claims\":2}\n", wbytes);
    /* more interleaved repetitions, one thread, thread CPU time; keep the minima */
    set_threads(1);
    for (int rep = 0; rep < (o->quick ? 0 : EZ_BENCH_REPS); rep++)
        for (int w = 0; w < 2; w++) {
            ez_pcs_prover_free(p);
            ez_pcs_commitment_clear(&com);
            p = NULL;
            double c0 = thread_cpu();
            if (ez_pcs_commit_scheme(&p, &com, polys, &n, 1, w ? EZ_PCS_SCHEME_WHIR : EZ_PCS_SCHEME_LIGERO) != EZ_OK)
                goto out;
            double c = (thread_cpu() - c0) * 1e9 / (double)n, ocpu, vcpu;
            if (!open_verify(p, &com, cl, 2, &om, &ocpu, &vm, &vcpu, &bytes))
                goto out;
            double *cm = w ? &wcpu : &lcpu, *om_ = w ? &wocpu : &locpu, *vm_ = w ? &wvcpu : &lvcpu;
            *cm = c < *cm ? c : *cm;
            *om_ = ocpu < *om_ ? ocpu : *om_;
            *vm_ = vcpu < *vm_ ? vcpu : *vm_;
        }
    printf("{\"bench\":\"whir_vs_ligero\",\"commit\":%.2f,\"open\":%.2f,\"verify\":%.2f,\"proof_bytes\":%.3f,"
           "\"ligero_commit_cpu_ns\":%.1f,\"whir_commit_cpu_ns\":%.1f,\"ligero_open_cpu_ms\":%.2f,"
           "\"whir_open_cpu_ms\":%.2f,\"ligero_verify_cpu_ms\":%.3f,\"whir_verify_cpu_ms\":%.3f,\"reps\":%d}\n",
           wcpu / lcpu, wocpu / locpu, wvcpu / lvcpu, (double)wbytes / (double)lbytes, lcpu, wcpu, locpu, wocpu, lvcpu,
           wvcpu, 1 + (o->quick ? 0 : EZ_BENCH_REPS));
    fflush(stdout);

    /* two commitments in one batched opening */
    {
        ez_fe *u = malloc((size_t)n * sizeof *u);
        ez_pcs_prover *q = NULL;
        ez_pcs_commitment cq = {0};
        if (u == NULL)
            goto out;
        for (uint64_t i = 0; i < n; i++)
            u[i] = v[n - 1 - i];
        const ez_fe *pu[1] = {u};
        ez_pcs_claim cu[2];
        for (int k = 0; k < 2; k++)
            cu[k] = (ez_pcs_claim){.poly = 0, .point = pts[k], .value = ez_mle_eval_fe(u, (size_t)n, pts[k], lg)};
        if (ez_pcs_commit_scheme(&q, &cq, pu, &n, 1, EZ_PCS_SCHEME_WHIR) == EZ_OK) {
            ez_pcs_prover *pp[2] = {p, q};
            const ez_pcs_commitment *cc[2] = {&com, &cq};
            const ez_pcs_claim *cls[2] = {cl, cu};
            size_t nn[2] = {2, 2};
            unsigned fl[2] = {0, 0};
            ez_transcript t;
            ez_writer w;
            ez_writer_init(&w);
            ez_transcript_init(&t, "einzk/bench/pcs");
            double t0 = ez_now(), c0 = thread_cpu();
            bool bok = ez_pcs_open_multi(pp, cls, nn, fl, 2, &t, &w) == EZ_OK && !w.failed;
            double om2 = (ez_now() - t0) * 1e3, oc2 = (thread_cpu() - c0) * 1e3, vm2 = 0, vc2 = 0;
            if (bok) {
                ez_reader r;
                ez_reader_init(&r, w.data, w.len);
                ez_transcript_init(&t, "einzk/bench/pcs");
                t0 = ez_now();
                c0 = thread_cpu();
                bok = ez_pcs_verify_multi(cc, cls, nn, fl, 2, &t, &r) == EZ_OK && ez_reader_done(&r);
                vm2 = (ez_now() - t0) * 1e3;
                vc2 = (thread_cpu() - c0) * 1e3;
            }
            printf("{\"bench\":\"whir_batch2\",\"bytes\":%zu,\"separate_bytes\":%zu,\"open_ms\":%.2f,"
                   "\"open_cpu_ms\":%.2f,\"verify_ms\":%.3f,\"verify_cpu_ms\":%.3f,\"accepted\":%s}\n",
                   w.len, 2 * wbytes, om2, oc2, vm2, vc2, bok ? "true" : "false");
            fflush(stdout);
            ez_writer_clear(&w);
        }
        ez_pcs_prover_free(q);
        ez_pcs_commitment_clear(&cq);
        free(u);
    }
out:
    set_threads(max_threads());
    ez_pcs_prover_free(p);
    ez_pcs_commitment_clear(&com);
    free(v);
}

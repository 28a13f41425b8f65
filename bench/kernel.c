/* bench/kernel — kernel microbenchmarks. One JSON object per line on stdout:
 * {"bench": name, ...numbers...}. Single-threaded unless the name ends in _mt.
 * Usage: bench/kernel [--quick]   (--quick uses smaller sizes, for smoke runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "lib/field.h"
#include "lib/ntt.h"
#include "lib/util.h"

/* A dependent chain of multiplies measures latency-bound throughput honestly:
 * 8 independent chains, so the pipeline is used as a real kernel would use it. One
 * timing loop for both field types (a macro, so each type's multiply is inlined as
 * before): acc[j] = MUL(acc[j], m) iters times, then the ns per multiply and a check
 * value (the xor of FOLD(acc[j]), so the work cannot be elided). */
#define BENCH_CHAINS(name, MUL, FOLD, acc, m, iters)                                                             \
    do {                                                                                                       \
        double t0 = ez_now();                                                                                  \
        for (size_t i = 0; i < (iters); i++)                                                                   \
            for (int j = 0; j < 8; j++)                                                                        \
                (acc)[j] = MUL((acc)[j], (m));                                                                 \
        double t = ez_now() - t0;                                                                              \
        ez_fe x = 0;                                                                                           \
        for (int j = 0; j < 8; j++)                                                                            \
            x ^= FOLD((acc)[j]);                                                                               \
        printf("{\"bench\":\"" name "\",\"ns\":%.3f,\"check\":%llu}\n", t * 1e9 / (double)((iters) * 8),          \
               (unsigned long long)x);                                                                         \
    } while (0)

#define FE_AS_IS(a) (a)
#define FE2_FOLD(a) ((a).c0 ^ (a).c1)

static void bench_fe_mul(void)
{
    ez_fe acc[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const ez_fe m = UINT64_C(0x123456789abcdef1) % EZ_P;
    BENCH_CHAINS("fe_mul", ez_fe_mul, FE_AS_IS, acc, m, (size_t)1 << 24);
}

static void bench_fe2_mul(void)
{
    ez_fe2 acc[8];
    for (int j = 0; j < 8; j++)
        acc[j] = ez_fe2_make((ez_fe)j + 1, (ez_fe)j + 9);
    const ez_fe2 m = ez_fe2_make(UINT64_C(0x123456789abcdef1) % EZ_P, 12345);
    BENCH_CHAINS("fe2_mul", ez_fe2_mul, FE2_FOLD, acc, m, (size_t)1 << 22);
}

/* The lane NTT of a WHIR commitment alone (lib/ntt.h's lanes steps in commit0_by_coset's
 * order): W = 32 interleaved polynomials of 2^19 coefficients (GPT-2's parts: 2^21), the
 * Möbius transform, then rate 1/4's four cosets; one thread, best of three, ns per
 * committed entry (mobius_ns) and per codeword entry (coset_ns: four per committed one);
 * check: a few output entries, xor-folded, equal across builds. */
static void bench_ntt_lanes(const ez_bench_opts *o)
{
    const unsigned lw = 5, c = 2, lg = o->quick ? 12 : 19;
    size_t n = (size_t)1 << lg, W = (size_t)1 << lw, N = n * W;
    unsigned B = ez_ntt_lanes_block_log(lg, lw);
    ez_ntt_rs *rs = NULL;
    ez_fe *a = ez_alloc_aligned(N, sizeof *a), *coef = ez_alloc_aligned(N, sizeof *coef);
    ez_fe *out = ez_alloc_aligned(N, sizeof *out);
    if (a == NULL || coef == NULL || out == NULL || ez_ntt_rs_new(&rs, lg, c) != EZ_OK) {
        fprintf(stderr, "bench_ntt_lanes: out of memory\n");
        exit(1);
    }
    uint64_t x = 1;
    for (size_t i = 0; i < N; i++) { /* splitmix64, reduced */
        uint64_t z = (x += UINT64_C(0x9E3779B97F4A7C15));
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        a[i] = (z ^ (z >> 31)) % EZ_P;
    }
    double best_m = 1e30, best_e = 1e30;
    ez_fe check = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = ez_now();
        for (size_t b = 0; b < (n >> B); b++)
            ez_ntt_lanes_mobius_block(coef, a, lw, B, b);
        for (size_t q = 0; q < ((size_t)1 << B); q++)
            ez_ntt_lanes_mobius_column(coef, lw, lg, B, q);
        double t1 = ez_now();
        check = 0;
        for (unsigned k = 0; k < (1u << c); k++) {
            for (size_t q = 0; q < ((size_t)1 << B); q++)
                ez_ntt_rs_lanes_column(rs, out, coef, k, lw, B, q);
            for (size_t b = 0; b < (n >> B); b++)
                ez_ntt_rs_lanes_block(rs, out, lw, B, b);
            for (size_t i = 0; i < N; i += 4099)
                check ^= out[i] + k;
        }
        double t2 = ez_now();
        best_m = t1 - t0 < best_m ? t1 - t0 : best_m;
        best_e = t2 - t1 < best_e ? t2 - t1 : best_e;
    }
    printf("{\"bench\":\"ntt_lanes\",\"mobius_ns\":%.3f,\"coset_ns\":%.3f,\"lanes\":%zu,\"log_n\":%u,\"cosets\":%u,"
           "\"check\":%llu}\n",
           best_m * 1e9 / (double)N, best_e * 1e9 / (double)(N << c), W, lg, 1u << c, (unsigned long long)check);
    ez_ntt_rs_free(rs);
    free(a);
    free(coef);
    free(out);
}

int main(int argc, char **argv)
{
    ez_bench_opts opts = {.quick = argc > 1 && !strcmp(argv[1], "--quick")};
    bench_fe_mul();
    bench_fe2_mul();
    bench_ntt_lanes(&opts);
    fflush(stdout);
    ez_bench_kernel_protocols(&opts);
    return 0;
}

/* bench/kernel — kernel microbenchmarks. One JSON object per line on stdout:
 * {"bench": name, ...numbers...}. Single-threaded unless the name ends in _mt.
 * Usage: bench/kernel [--quick]   (--quick uses smaller sizes, for smoke runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "lib/field.h"
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

int main(int argc, char **argv)
{
    ez_bench_opts opts = {.quick = argc > 1 && !strcmp(argv[1], "--quick")};
    bench_fe_mul();
    bench_fe2_mul();
    fflush(stdout);
    ez_bench_kernel_protocols(&opts);
    return 0;
}

/* Shared declarations for bench/kernel: each protocol module adds its benchmarks in
 * bench/bench_<module>.c and calls them from ez_bench_kernel_protocols. */
#ifndef EZ_BENCH_H
#define EZ_BENCH_H
#include <stdbool.h>

typedef struct {
    bool quick; /* smaller sizes for a smoke run */
} ez_bench_opts;

void ez_bench_kernel_protocols(const ez_bench_opts *o);

#endif

/* The protocol benchmarks of bench/kernel, in the order they print. */
#include "bench/bench.h"

void ez_bench_kernel_protocols(const ez_bench_opts *o)
{
    (void)o;
    ez_bench_logup(o);
    ez_bench_sumcheck(o);
    ez_bench_pcs(o);
}

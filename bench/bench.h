/* Shared declarations for bench/kernel: each protocol module adds its benchmarks in
 * bench/bench_<module>.c and calls them from ez_bench_kernel_protocols. */
#ifndef EZ_BENCH_H
#define EZ_BENCH_H
#include <stdbool.h>

typedef struct {
    bool quick; /* smaller sizes for a smoke run */
} ez_bench_opts;

void ez_bench_kernel_protocols(const ez_bench_opts *o);
/* bench/bench_logup.c: "logup", "logup_mt" */
void ez_bench_logup(const ez_bench_opts *o);
/* bench/bench_sumcheck.c: "sumcheck_deg2", "sumcheck_deg3_eq", "sumcheck_mixed",
 * "sumcheck_mixed_eq", "sumcheck_2terms", and "sumcheck_deg2_mt", "sumcheck_deg3_eq_mt" */
void ez_bench_sumcheck(const ez_bench_opts *o);
/* bench/bench_pcs.c: "ligero_commit", "ligero_commit_mt", "ligero_open", "ligero_verify",
 * "ligero_proof_bytes", "ligero_open_direct", "whir_commit", "whir_commit_mt",
 * "whir_open", "whir_verify", "whir_proof_bytes", "whir_vs_ligero" */
void ez_bench_pcs(const ez_bench_opts *o);

#endif

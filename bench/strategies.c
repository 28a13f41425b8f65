/* bench/strategies — the three proving strategies (runtime/prove/strategy.h) on one
 * attention layer per row, same field, commitment, transcript and machine: the einsum
 * formulation against DeepProve's and zkLLM's per-head structures (docs/comparison.md).
 *
 * A row is an attention layer (examples/attention.ein's shape: Q/K/V projections, causal
 * softmax, value mixing, output projection) of S positions, model width D, H heads of width
 * E — or grouped-query attention (G K/V heads of R query heads each). Per row the model is
 * compiled, run on seeded random data, its weights committed once (the vk every strategy
 * is verified against), then each strategy proves in its own forked process (so its peak
 * RSS is its own) and the proof is verified there.
 *
 * Output: one JSON object per (row, strategy) on stdout, a table on stderr. Columns:
 * prove and verify seconds (wall; *_cpu: process CPU seconds, all threads — the machine
 * is shared, so CPU is the steadier number), contractions_s and _cpu_s (seconds of the
 * EINSUM ops' reductions and their merges: the part the strategies change), walk_cpu_s (CPU of
 * the whole walk, softmax included), proof bytes (the argument, without the statement)
 * and walk bytes (the reductions alone; the rest is lookups and PCS openings, the same for
 * every strategy), committed advice elements, sumchecks, elements touched including
 * padding and the real ones (ez_work: the contraction ops and merges), peak RSS of the
 * proving process.
 *
 * Usage: bench/strategies [--quick] [--row N]   (--quick: small rows for a smoke run;
 *        --row N: only row N). Built by `make bench/strategies`, not run by make check;
 *        bench/strategies.sh runs it and draws docs/img/strategies.png. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/strategy.h"
#include "runtime/prove/verify.h"
#include "runtime/prove/weights.h"

typedef struct {
    unsigned S, D, H, E; /* H = G * R for GQA */
    unsigned G, R;       /* GQA: G K/V heads, R query heads each (0: plain multi-head) */
} row;

/* The grid: head widths 64, 80, 96, 128 x heads 4, 12, 16 at S = 128 (D = 256); S = 512
 * with D = 128 (the softmax over H S^2 entries dominates there); GQA (8 query heads over
 * 2 K/V heads). A modest D keeps the grid within a quarter of an hour on a shared 2-core
 * machine: the projections scale with D, the head structure does not. */
static const row full_rows[] = {
    {128, 256, 4, 64, 0, 0},  {128, 256, 4, 80, 0, 0},  {128, 256, 4, 96, 0, 0},  {128, 256, 4, 128, 0, 0},
    {128, 256, 12, 64, 0, 0}, {128, 256, 12, 80, 0, 0}, {128, 256, 12, 96, 0, 0}, {128, 256, 12, 128, 0, 0},
    {128, 256, 16, 64, 0, 0}, {128, 256, 16, 80, 0, 0}, {128, 256, 16, 96, 0, 0}, {128, 256, 16, 128, 0, 0},
    {512, 128, 4, 64, 0, 0},  {512, 128, 4, 80, 0, 0},  {512, 128, 12, 64, 0, 0},
    {128, 256, 8, 64, 2, 4},  {128, 256, 8, 80, 2, 4},
};
static const row quick_rows[] = {
    {16, 64, 4, 16, 0, 0}, {16, 64, 3, 20, 0, 0}, {16, 64, 8, 16, 2, 4},
};

static void model_src(char *buf, size_t n, const row *r)
{
    if (r->G == 0)
        snprintf(buf, n,
                 "model attention\nparam S = %u, D = %u, H = %u, E = %u\ninput x[S, D]\n"
                 "weight wq[D, H, E], wk[D, H, E], wv[D, H, E], wo[H, E, D]\n"
                 "q[s, h, e] = x[s, d] * wq[d, h, e]\nk[t, h, e] = x[t, d] * wk[d, h, e]\n"
                 "v[t, h, e] = x[t, d] * wv[d, h, e]\na[h, s, t] = q[s, h, e] * k[t, h, e] / sqrt(E)\n"
                 "p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\nc[s, h, e] = p[h, s, t] * v[t, h, e]\n"
                 "y[s, n] = c[s, h, e] * wo[h, e, n]\noutput y\n",
                 r->S, r->D, r->H, r->E);
    else
        snprintf(buf, n,
                 "model gqa\nparam S = %u, D = %u, G = %u, R = %u, E = %u\ninput x[S, D]\n"
                 "weight wq[D, G, R, E], wk[D, G, E], wv[D, G, E], wo[G, R, E, D]\n"
                 "q[s, g, r, e] = x[s, d] * wq[d, g, r, e]\nk[t, g, e] = x[t, d] * wk[d, g, e]\n"
                 "v[t, g, e] = x[t, d] * wv[d, g, e]\na[g, r, s, t] = q[s, g, r, e] * k[t, g, e] / sqrt(E)\n"
                 "p[g, r, s, t] = softmax[t](causal[s, t](a[g, r, s, t]))\n"
                 "c[s, g, r, e] = p[g, r, s, t] * v[t, g, e]\ny[s, n] = c[s, g, r, e] * wo[g, r, e, n]\noutput y\n",
                 r->S, r->D, r->G, r->R, r->E);
}

static int compile(ez_plan *p, const char *src)
{
    ez_diag_list diags;
    ez_program *prog = NULL;
    ez_diag d = {{0}};
    ez_plan_init(p);
    if (ez_compile_front("bench.ein", src, strlen(src), NULL, 0, &diags, &prog) != EZ_OK) {
        char *text = NULL;
        if (ez_diag_render(&diags, &text) == EZ_OK && text)
            fprintf(stderr, "%s", text);
        free(text);
        ez_diag_list_clear(&diags);
        return -1;
    }
    ez_diag_list_clear(&diags);
    int rc = ez_lower(p, prog, "bench", &d) == EZ_OK && ez_plan_schedule(p, &d) == EZ_OK &&
                     ez_plan_compute_digest(p, &d) == EZ_OK
                 ? 0
                 : -1;
    if (rc)
        fprintf(stderr, "strategies: %s\n", d.msg);
    ez_program_free(prog);
    return rc;
}

/* splitmix64 */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Seeded inputs and weights: values of about 0.06 at scale 12, small enough for every
 * rescaled value to stay in its width. */
static int run(const ez_plan *p, ez_trace *tr)
{
    ez_diag d = {{0}};
    uint64_t seed = 1;
    if (ez_trace_init(tr, p, &d) != EZ_OK)
        return -1;
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        uint64_t n = ez_plan_tensor_numel(t);
        int64_t *v = malloc((n ? n : 1) * sizeof *v), lim = 255;
        for (uint64_t e = 0; e < n; e++)
            v[e] = (int64_t)(next(&seed) % (uint64_t)(2 * lim + 1)) - lim;
        ez_status st = ez_trace_set(tr, i, v, n, &d);
        free(v);
        if (st != EZ_OK)
            return -1;
    }
    if (ez_exec_run(p, tr, &d) != EZ_OK) {
        fprintf(stderr, "strategies: %s\n", d.msg);
        return -1;
    }
    return 0;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What a child reports. */
typedef struct {
    int ok;
    double setup_s, prove_s, prove_cpu, verify_s, verify_cpu, contract_s, contract_cpu, walk_cpu;
    uint64_t proof_bytes, walk_bytes, committed, sumchecks, touched, real;
    long rss_kib;
    char why[256];
} result;

static int read_file(const char *path, ez_writer *w)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        ez_writer_bytes(w, buf, n);
    fclose(f);
    return w->failed ? -1 : 0;
}

static int write_file(const char *path, const ez_writer *w)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t k = fwrite(w->data, 1, w->len, f);
    return fclose(f) == 0 && k == w->len ? 0 : -1;
}

/* Setup (child): the weight commitment and its range proof, written as vk and pk — the
 * one verifying key of every strategy. */
static void setup_child(const row *r, const char *dir, result *out)
{
    char src[2048], path[512];
    ez_plan p;
    ez_trace tr;
    ez_diag d = {{0}};
    model_src(src, sizeof src, r);
    if (compile(&p, src) != 0 || run(&p, &tr) != 0) {
        snprintf(out->why, sizeof out->why, "the model does not compile or run");
        return;
    }
    double t0 = ez_now();
    ez_pcs_prover *w = NULL;
    ez_pcs_commitment wcom;
    ez_writer wrange, vk, pk;
    ez_writer_init(&wrange);
    ez_writer_init(&vk);
    ez_writer_init(&pk);
    if (ez_weights_commit(&w, &wcom, &p, &tr, &d) != EZ_OK ||
        ez_prove_weight_range(&p, &tr, w, false, &wrange, &d) != EZ_OK ||
        ez_vk_encode(&vk, &p, &wcom, wrange.data, wrange.len, &d) != EZ_OK || ez_pk_encode(&pk, &p, tr.t, w, wrange.data, wrange.len) != EZ_OK) {
        snprintf(out->why, sizeof out->why, "setup: %.200s", d.msg);
        return;
    }
    out->setup_s = ez_now() - t0;
    ez_strategy_plan sp;
    if (ez_strategy_describe(&sp, &p, EZ_STRATEGY_EINSUM, &d) == EZ_OK)
        out->committed = sp.committed;
    ez_strategy_plan_clear(&sp);
    snprintf(path, sizeof path, "%s/m.vk", dir);
    int ok = write_file(path, &vk) == 0;
    snprintf(path, sizeof path, "%s/m.pk", dir);
    out->ok = ok && write_file(path, &pk) == 0;
}

/* Prove and verify under strategy s (child): the model run again on the same seeded
 * data, the pk's weight prover, the vk. */
static void prove_child(const row *r, const char *dir, ez_strategy s, result *out)
{
    char src[2048], path[512];
    ez_plan p;
    ez_trace tr;
    ez_diag d = {{0}};
    ez_writer vkb, pkb;
    ez_writer_init(&vkb);
    ez_writer_init(&pkb);
    model_src(src, sizeof src, r);
    snprintf(path, sizeof path, "%s/m.vk", dir);
    int ok = read_file(path, &vkb) == 0;
    snprintf(path, sizeof path, "%s/m.pk", dir);
    ok = ok && read_file(path, &pkb) == 0;
    if (!ok || compile(&p, src) != 0 || run(&p, &tr) != 0) {
        snprintf(out->why, sizeof out->why, "no model or keys");
        return;
    }
    ez_pk pk;
    ez_vk vk;
    if (ez_pk_decode(&pk, &p, pkb.data, pkb.len, &d) != EZ_OK || ez_vk_decode(&vk, vkb.data, vkb.len, &d) != EZ_OK) {
        snprintf(out->why, sizeof out->why, "keys: %.200s", d.msg);
        return;
    }
    ez_proof pf;
    ez_prove_stats S;
    ez_prove_opts o = {.strategy = s};
    ez_proof_init(&pf);
    if (ez_prove(&p, &tr, pk.pcs, &o, &pf, &S, &d) != EZ_OK) {
        snprintf(out->why, sizeof out->why, "prove: %.200s", d.msg);
        return;
    }
    out->prove_s = S.total;
    out->prove_cpu = S.cpu_total;
    out->walk_cpu = S.cpu_sumchecks;
    for (size_t i = 0; i < S.nops; i++) {
        out->sumchecks += S.ops[i].work.sumchecks;
        out->touched += S.ops[i].work.touched;
        out->real += S.ops[i].work.real;
        if (p.ops[i].kind == EZ_OP_EINSUM) {
            out->contract_s += S.ops[i].seconds;
            out->contract_cpu += S.ops[i].cpu_seconds;
        }
    }
    out->walk_bytes = pf.sec[EZ_PF_SEC_WALK].len;
    ez_writer buf;
    ez_writer_init(&buf);
    size_t stmt = 0;
    ez_proof_encode(&buf, &pf, &stmt);
    out->proof_bytes = buf.len - stmt;
    bool accepted = false;
    double t0 = ez_now(), c0 = cpu_now();
    ez_status st = ez_verify_bytes(&vk, buf.data, buf.len, &accepted, NULL, &d);
    out->verify_s = ez_now() - t0;
    out->verify_cpu = cpu_now() - c0;
    out->ok = st == EZ_OK && accepted;
    if (!out->ok)
        snprintf(out->why, sizeof out->why, "verify: %.200s", d.msg);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    out->rss_kib = ru.ru_maxrss;
}

/* Run a child process (setup when s < 0, else strategy s) and collect its result. The
 * parent never runs parallel code: an OpenMP runtime does not survive fork, so every
 * child starts clean, and its peak RSS and timings are its own. */
static int in_child(const row *r, const char *dir, int s, result *out)
{
    int fd[2];
    memset(out, 0, sizeof *out);
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        result res;
        memset(&res, 0, sizeof res);
        if (s < 0)
            setup_child(r, dir, &res);
        else
            prove_child(r, dir, (ez_strategy)s, &res);
        ssize_t k = write(fd[1], &res, sizeof res);
        _exit(k == (ssize_t)sizeof res ? 0 : 1);
    }
    close(fd[1]);
    ssize_t k = read(fd[0], out, sizeof *out);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (k != (ssize_t)sizeof *out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(out->why, sizeof out->why, "the child died");
        return -1;
    }
    return out->ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    const row *rows = full_rows;
    size_t nrows = sizeof full_rows / sizeof full_rows[0];
    long only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            rows = quick_rows;
            nrows = sizeof quick_rows / sizeof quick_rows[0];
        } else if (!strcmp(argv[i], "--row") && i + 1 < argc) {
            only = strtol(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: bench/strategies [--quick] [--row N]\n");
            return 2;
        }
    }
    char dir[] = "/tmp/ezbench-strategies.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    fprintf(stderr, "%-4s %-20s %-9s %7s %7s %7s %7s %6s %9s %7s %9s %4s %11s %11s %6s\n", "row", "shape", "strategy",
            "prove_s", "cpu_s", "contr_c", "ver_ms", "vcpu", "proof_B", "walk_B", "committed", "sc", "touched",
            "real", "rssMiB");
    int fails = 0;
    for (size_t ri = 0; ri < nrows; ri++) {
        if (only >= 0 && (size_t)only != ri)
            continue;
        const row *r = &rows[ri];
        char shape[64];
        if (r->G)
            snprintf(shape, sizeof shape, "S%u D%u G%uxR%u E%u", r->S, r->D, r->G, r->R, r->E);
        else
            snprintf(shape, sizeof shape, "S%u D%u H%u E%u", r->S, r->D, r->H, r->E);
        result su;
        if (in_child(r, dir, -1, &su) != 0) {
            fprintf(stderr, "row %zu (%s): skipped: %s\n", ri, shape, su.why);
            fails++;
            continue;
        }
        for (unsigned s = 0; s < EZ_STRATEGY_COUNT; s++) {
            result res;
            if (in_child(r, dir, (int)s, &res) != 0) {
                fprintf(stderr, "row %zu (%s) %s: failed: %s\n", ri, shape, ez_strategy_name((ez_strategy)s), res.why);
                fails++;
                continue;
            }
            printf("{\"row\":%zu,\"S\":%u,\"D\":%u,\"H\":%u,\"E\":%u,\"G\":%u,\"R\":%u,\"strategy\":\"%s\","
                   "\"setup_s\":%.3f,\"prove_s\":%.3f,\"prove_cpu_s\":%.3f,\"walk_cpu_s\":%.3f,"
                   "\"contractions_s\":%.4f,\"contractions_cpu_s\":%.4f,\"verify_s\":%.4f,\"verify_cpu_s\":%.4f,\"proof_bytes\":%llu,"
                   "\"walk_bytes\":%llu,\"committed\":%llu,\"sumchecks\":%llu,\"touched\":%llu,\"real\":%llu,"
                   "\"peak_rss_bytes\":%lld}\n",
                   ri, r->S, r->D, r->H, r->E, r->G, r->R, ez_strategy_name((ez_strategy)s), su.setup_s, res.prove_s,
                   res.prove_cpu, res.walk_cpu, res.contract_s, res.contract_cpu, res.verify_s, res.verify_cpu,
                   (unsigned long long)res.proof_bytes, (unsigned long long)res.walk_bytes,
                   (unsigned long long)su.committed, (unsigned long long)res.sumchecks,
                   (unsigned long long)res.touched, (unsigned long long)res.real, (long long)res.rss_kib * 1024);
            fflush(stdout);
            fprintf(stderr, "%-4zu %-20s %-9s %7.2f %7.2f %7.3f %7.1f %6.1f %9llu %7llu %9llu %4llu %11llu %11llu %6.0f\n",
                    ri, shape, ez_strategy_name((ez_strategy)s), res.prove_s, res.prove_cpu, res.contract_cpu,
                    res.verify_s * 1e3, res.verify_cpu * 1e3, (unsigned long long)res.proof_bytes,
                    (unsigned long long)res.walk_bytes, (unsigned long long)su.committed,
                    (unsigned long long)res.sumchecks, (unsigned long long)res.touched, (unsigned long long)res.real,
                    (double)res.rss_kib / 1024);
        }
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s/m.vk", dir);
    remove(cmd);
    snprintf(cmd, sizeof cmd, "%s/m.pk", dir);
    remove(cmd);
    rmdir(dir);
    return fails ? 1 : 0;
}

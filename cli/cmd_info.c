/* einzk info MODEL.einc [--json]
 * The per-op proving plan: kind, equation, shape, sumcheck variables, degree, eq
 * variables, bind order, lookups and committed advice, then the model totals. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "compiler/einc.h"
#include "compiler/plan.h"
#include "compiler/schedule.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: einzk info MODEL.einc [--json]\n");
}

/* Human-readable byte count: "12345 B", "12.1 KiB", "3.4 MiB", "1.2 GiB". */
static const char *human_bytes(uint64_t b, char *buf, size_t cap)
{
    if (b < 10 * 1024)
        snprintf(buf, cap, "%" PRIu64 " B", b);
    else if (b < 10 * 1024 * 1024)
        snprintf(buf, cap, "%.1f KiB", (double)b / 1024);
    else if (b < (uint64_t)10 * 1024 * 1024 * 1024)
        snprintf(buf, cap, "%.1f MiB", (double)b / (1024 * 1024));
    else
        snprintf(buf, cap, "%.1f GiB", (double)b / (1024.0 * 1024 * 1024));
    return buf;
}

static void shape_text(const ez_plan_tensor *t, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (unsigned a = 0; a < t->rank && n < cap; a++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRIu64, a ? "," : "", t->dims[a]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* Bound indices in order, eq-carrying (batch) ones marked with '*': "h*,e". */
static void bind_text(const ez_plan_op *op, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (unsigned b = 0; b < op->sched.nbind && n < cap; b++) {
        unsigned x = op->sched.bind_order[b];
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", b ? "," : "", op->idx_name[x],
                              op->sched.cls[x] == EZ_IDX_BATCH ? "*" : "");
    }
    if (op->sched.nbind == 0)
        snprintf(buf, cap, "-");
}

static void lookups_text(const ez_plan_op *op, char *buf, size_t cap)
{
    size_t n = 0;
    char lab[96];
    buf[0] = 0;
    for (unsigned l = 0; l < op->nlookups && n < cap; l++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s:%" PRIu64, l ? " " : "",
                              ez_plan_lookup_label(&op->lookups[l], lab, sizeof lab), op->lookups[l].count);
    if (op->nlookups == 0)
        snprintf(buf, cap, "-");
}

static void print_table(const ez_plan *p)
{
    char hex[65], shape[96], bind[160], lk[320], b1[32], b2[32];
    ez_plan_digest_hex(p, hex);
    uint64_t weights = 0, vars = 0;
    for (size_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            weights += ez_plan_tensor_numel(&p->tensors[t]);
    printf("model %s  (.einc %d.%d, digest %s)\n", p->model, EZ_EINC_MAJOR, EZ_EINC_MINOR, hex);
    printf("%zu tensors, %zu ops, %" PRIu64 " weight elements\n\n", p->ntensors, p->nops, weights);
    printf("%3s  %-12s %-9s %-16s %4s %3s %3s  %-14s %-34s %10s  %s\n", "#", "name", "kind", "shape", "vars", "deg",
           "eq", "bind (*=eq)", "lookups", "advice", "equation");
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        shape_text(&p->tensors[op->out], shape, sizeof shape);
        bind_text(op, bind, sizeof bind);
        lookups_text(op, lk, sizeof lk);
        vars += op->sched.nvars;
        printf("%3zu  %-12s %-9s %-16s %4u %3u %3u  %-14s %-34s %10" PRIu64 "  %s\n", i, op->label,
               ez_op_kind_name(op->kind), shape, op->sched.nvars, op->sched.degree, op->sched.eq_vars, bind, lk,
               op->advice_elems, op->equation);
    }
    /* lookups per table over the model */
    printf("\ntotals\n  sumcheck variables  %" PRIu64 "\n", vars);
    /* rows per distinct table, in order of first use (few tables: linear search) */
    enum { MAXT = 64 };
    char labels[MAXT][96];
    uint64_t rows[MAXT];
    size_t nt = 0;
    for (size_t i = 0; i < p->nops; i++)
        for (unsigned l = 0; l < p->ops[i].nlookups; l++) {
            char lab[96];
            ez_plan_lookup_label(&p->ops[i].lookups[l], lab, sizeof lab);
            size_t t = 0;
            while (t < nt && strcmp(labels[t], lab) != 0)
                t++;
            if (t == nt) {
                if (nt == MAXT)
                    continue;
                memcpy(labels[nt], lab, sizeof lab);
                rows[nt++] = 0;
            }
            rows[t] += p->ops[i].lookups[l].count;
        }
    for (size_t t = 0; t < nt; t++)
        printf("  lookups %-11s %" PRIu64 " rows\n", labels[t], rows[t]);
    printf("  committed advice    %" PRIu64 " field elements (incl. lookup multiplicities)\n",
           p->total_advice_elems);
    printf("  est. proof size     %s\n", human_bytes(p->est_proof_bytes, b1, sizeof b1));
    printf("  est. prover memory  %s\n", human_bytes(p->est_prover_mem_bytes, b2, sizeof b2));
}

int ez_cmd_info(int argc, char **argv)
{
    const char *in = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return EZ_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] != 0) {
            fprintf(stderr, "einzk info: error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return EZ_EXIT_USAGE;
        } else if (in == NULL) {
            in = argv[i];
        } else {
            fprintf(stderr, "einzk info: error: more than one file ('%s', '%s')\n", in, argv[i]);
            return EZ_EXIT_USAGE;
        }
    }
    if (in == NULL) {
        usage(stderr);
        return EZ_EXIT_USAGE;
    }
    ez_plan p;
    ez_diag d = {{0}};
    ez_status st = ez_einc_read_file(&p, in, &d);
    if (st != EZ_OK) {
        ez_cli_error("info", st, &d);
        return ez_exit_for_status(st);
    }
    int rc = EZ_EXIT_OK;
    if (json) {
        json_t *j = ez_plan_to_json(&p);
        if (j == NULL || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
            ez_cli_error("info", EZ_ERR_NOMEM, NULL);
            rc = EZ_EXIT_INTERNAL;
        } else {
            putchar('\n');
        }
        json_decref(j);
    } else {
        print_table(&p);
    }
    ez_plan_clear(&p);
    return rc;
}

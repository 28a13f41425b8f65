/* einzk info MODEL.einc [--json]
 * The per-op proving plan: kind, provable or not, equation, shape, sumcheck variables,
 * degree, eq variables, bind order; then what a proof of it holds, from the same advice
 * layout the prover builds (runtime/prove/layout.h): committed entries, looked-up rows
 * and the exact walk bytes (fan-out merge + reduction) per op, and the totals. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "compiler/causality.h"
#include "compiler/einc.h"
#include "compiler/plan.h"
#include "compiler/schedule.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/strategy.h"

enum { O_JSON, O_STRATEGY, O_N };

const ez_cli_opt ez_cli_opts_info[O_N + 1] = { /* the last row empty: the end */
    [O_JSON] = {"--json", NULL, 0, "print the plan and the per-op proof sizes as one JSON object"},
    [O_STRATEGY] = {"--strategy", "NAME", 0,
                    "also show how einsum, deepprove, per-head or all of them reduce the contractions"},
};

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

/* Whether one proven pass certifies a generated text (compiler/causality.h): "yes" with
 * the token input and the next-token output, else the reason. */
static void certifiable_text(const ez_plan *p, char *buf, size_t cap)
{
    ez_positions ps;
    ez_diag d = {{0}};
    if (ez_positions_analyze(&ps, p, &d) == EZ_OK)
        snprintf(buf, cap, "yes (tokens '%s', next token '%s'; `einzk certify`)",
                 p->tensors[ps.tokens].source_name, p->tensors[ps.next].source_name);
    else
        snprintf(buf, cap, "no: %s",
                 !strncmp(d.msg, "not certifiable: ", 17) ? d.msg + 17 : d.msg[0] ? d.msg : "out of memory");
    ez_positions_clear(&ps);
}

static void print_table(const ez_plan *p, const ez_layout_sizes *z)
{
    char cert[sizeof ((ez_diag *)0)->msg + 128];
    char hex[65], shape[96], bind[160], b1[32];
    ez_plan_digest_hex(p, hex);
    uint64_t weights = 0, vars = 0, rows = 0;
    for (size_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            weights += ez_plan_tensor_numel(&p->tensors[t]);
    printf("model %s  (.einc %d.%d, digest %s)\n", p->model, EZ_EINC_MAJOR, EZ_EINC_MINOR, hex);
    printf("%zu tensors, %zu ops, %" PRIu64 " weight elements\n\n", p->ntensors, p->nops, weights);
    printf("%3s  %-12s %-9s %-4s %-16s %4s %3s %3s  %-14s %10s %10s %9s  %s\n", "#", "name", "kind", "prov",
           "shape", "vars", "deg", "eq", "bind (*=eq)", "advice", "lookups", "bytes", "equation");
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        const ez_layout_op_size *o = &z->ops[i];
        shape_text(&p->tensors[op->out], shape, sizeof shape);
        bind_text(op, bind, sizeof bind);
        vars += op->sched.nvars;
        rows += o->lookup_rows;
        printf("%3zu  %-12s %-9s %-4s %-16s %4u %3u %3u  %-14s %10" PRIu64 " %10" PRIu64 " %9" PRIu64 "  %s\n", i,
               op->label, ez_op_kind_name(op->kind), o->provable ? "yes" : "NO", shape, op->sched.nvars,
               op->sched.degree, op->sched.eq_vars, bind, o->advice_elems, o->lookup_rows,
               o->merge_bytes + o->walk_bytes, op->equation);
    }
    printf("\ntotals\n  sumcheck variables  %" PRIu64 "\n", vars);
    printf("  range-check rows    %" PRIu64 "\n", rows);
    printf("  committed advice    %" PRIu64 " field elements (incl. lookup multiplicities)\n", z->advice_elems);
    printf("  walk (sumchecks)    %s\n", human_bytes(z->walk_bytes, b1, sizeof b1));
    certifiable_text(p, cert, sizeof cert);
    printf("  certifiable         %s\n", cert);
    if (!z->provable) {
        printf("  not provable yet:");
        for (size_t i = 0; i < p->nops; i++)
            if (!z->ops[i].provable)
                printf(" %s (%s, line %u)", p->ops[i].label, ez_op_kind_name(p->ops[i].kind), p->ops[i].line);
        printf("\n");
    }
}

/* The plan's JSON with the layout's sizes per op and in the totals. */
static json_t *info_json(const ez_plan *p, const ez_layout_sizes *z)
{
    json_t *j = ez_plan_to_json(p);
    json_t *ops = j ? json_object_get(j, "ops") : NULL, *tot = j ? json_object_get(j, "totals") : NULL;
    bool ok = ops && tot;
    for (size_t i = 0; ok && i < p->nops; i++) {
        json_t *o = json_array_get(ops, i);
        const ez_layout_op_size *s = &z->ops[i];
        ok = o && json_object_set_new(o, "provable", json_boolean(s->provable)) == 0 &&
             json_object_set_new(o, "advice_elems", json_integer((json_int_t)s->advice_elems)) == 0 &&
             json_object_set_new(o, "lookup_rows", json_integer((json_int_t)s->lookup_rows)) == 0 &&
             json_object_set_new(o, "proof_bytes", json_integer((json_int_t)(s->merge_bytes + s->walk_bytes))) == 0;
    }
    ok = ok && json_object_set_new(tot, "provable", json_boolean(z->provable)) == 0 &&
         json_object_set_new(tot, "advice_elems", json_integer((json_int_t)z->advice_elems)) == 0 &&
         json_object_set_new(tot, "walk_bytes", json_integer((json_int_t)z->walk_bytes)) == 0;
    char cert[sizeof ((ez_diag *)0)->msg + 128];
    certifiable_text(p, cert, sizeof cert);
    ok = ok && json_object_set_new(tot, "certifiable", json_boolean(!strncmp(cert, "yes", 3))) == 0;
    if (!ok) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* One strategy's reduction of every contraction (runtime/prove/strategy.h), from the plan
 * alone: the numbers `prove --strategy` reports. Text, or a JSON object when j is set. */
static ez_status show_strategy(const ez_plan *p, ez_strategy s, json_t *j, ez_diag *d)
{
    ez_strategy_plan sp;
    ez_status st = ez_strategy_describe(&sp, p, s, d);
    if (st != EZ_OK)
        return st;
    if (j) {
        json_t *o = json_object(), *ops = json_array();
        for (size_t i = 0; i < p->nops; i++) {
            const ez_strategy_op *x = &sp.ops[i];
            if (x->work.sumchecks == 0 && x->walk_bytes == 0)
                continue;
            json_t *r = json_object();
            json_object_set_new(r, "name", json_string(p->ops[i].label));
            json_object_set_new(r, "sumchecks", json_integer((json_int_t)x->work.sumchecks));
            json_object_set_new(r, "touched", json_integer((json_int_t)x->work.touched));
            json_object_set_new(r, "real", json_integer((json_int_t)x->work.real));
            json_object_set_new(r, "walk_bytes", json_integer((json_int_t)x->walk_bytes));
            json_array_append_new(ops, r);
        }
        json_object_set_new(o, "ops", ops);
        json_object_set_new(o, "sumchecks", json_integer((json_int_t)sp.work.sumchecks));
        json_object_set_new(o, "touched", json_integer((json_int_t)sp.work.touched));
        json_object_set_new(o, "real", json_integer((json_int_t)sp.work.real));
        json_object_set_new(o, "walk_bytes", json_integer((json_int_t)sp.walk_bytes));
        json_object_set_new(o, "committed", json_integer((json_int_t)sp.committed));
        json_object_set_new(j, ez_strategy_name(s), o);
    } else {
        printf("\nstrategy %s (docs/comparison.md)\n", ez_strategy_name(s));
        printf("  %-12s %9s %14s %14s %7s %10s\n", "op", "sumchecks", "touched", "real", "ratio", "walk B");
        for (size_t i = 0; i < p->nops; i++) {
            const ez_strategy_op *x = &sp.ops[i];
            if (x->work.sumchecks == 0 && x->walk_bytes == 0)
                continue;
            printf("  %-12s %9" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f %10" PRIu64 "\n", p->ops[i].label,
                   x->work.sumchecks, x->work.touched, x->work.real,
                   x->work.real ? (double)x->work.touched / (double)x->work.real : 0.0, x->walk_bytes);
        }
        printf("  %-12s %9" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f %10" PRIu64 "\n", "total", sp.work.sumchecks,
               sp.work.touched, sp.work.real, sp.work.real ? (double)sp.work.touched / (double)sp.work.real : 0.0,
               sp.walk_bytes);
    }
    ez_strategy_plan_clear(&sp);
    return EZ_OK;
}

int ez_cli_run_info(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    const char *in = args->operand;
    bool json = args->n[O_JSON] > 0;
    const char *sname = args->value[O_STRATEGY];
    ez_strategy only = EZ_STRATEGY_EINSUM;
    if (sname && strcmp(sname, "all") != 0 && ez_strategy_parse(sname, &only) != EZ_OK)
        return ez_cli_usage_error(args->cmd, "--strategy must be einsum, deepprove, per-head or all, not '%s'",
                                  sname);
    ez_plan p;
    ez_diag d = {{0}};
    ez_plan_init(&p);
    ez_status st = ez_cli_expect_kind_file(in, EZ_KIND_EINC, "a compiled model (.einc)", &d);
    if (st == EZ_OK)
        st = ez_einc_read_file(&p, in, &d);
    if (st != EZ_OK) {
        return ez_cli_error("info", st, &d);
    }
    rc = EZ_EXIT_OK;
    ez_layout_sizes z;
    if ((st = ez_layout_sizes_compute(&z, &p, &d)) != EZ_OK) {
        ez_cli_error("info", st, &d);
        ez_plan_clear(&p);
        return ez_exit_for_status(st);
    }
    if (json) {
        json_t *j = info_json(&p, &z), *sj = sname ? json_object() : NULL;
        for (unsigned s = 0; sname && j && s < EZ_STRATEGY_COUNT && st == EZ_OK; s++)
            if (!strcmp(sname, "all") || (ez_strategy)s == only)
                st = show_strategy(&p, (ez_strategy)s, sj, &d);
        if (sj)
            json_object_set_new(j, "strategies", sj);
        if (st != EZ_OK) {
            rc = ez_cli_error("info", st, &d);
        } else if (j == NULL || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
            ez_cli_error("info", EZ_ERR_NOMEM, NULL);
            rc = EZ_EXIT_INTERNAL;
        } else {
            putchar('\n');
        }
        json_decref(j);
    } else {
        print_table(&p, &z);
        for (unsigned s = 0; sname && s < EZ_STRATEGY_COUNT && st == EZ_OK; s++)
            if (!strcmp(sname, "all") || (ez_strategy)s == only)
                st = show_strategy(&p, (ez_strategy)s, NULL, &d);
        if (st != EZ_OK) {
            rc = ez_cli_error("info", st, &d);
        }
    }
    ez_layout_sizes_clear(&z);
    ez_plan_clear(&p);
    return rc;
}

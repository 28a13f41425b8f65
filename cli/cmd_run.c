/* einzk run MODEL.einc --weights W.safetensors --input IN.json [-o OUT.json]
 *                       [--compare-float] [--profile] [--threads N]
 * einzk run MODEL.einc --dump-plan
 *
 * Runs the model in exact integer arithmetic (runtime/exec.h) and writes the outputs,
 * dequantized, as {"name": {"shape": [...], "data": [...]}} to OUT.json or stdout.
 *   --compare-float  also evaluates the plan in float64 with the true functions
 *                    (runtime/floatref.h) on the unquantized weights and inputs and
 *                    prints, on stderr, a table with per-op max absolute and relative
 *                    error (relative = max abs error / max |float value| of the tensor)
 *                    and the worst op.
 *   --profile        per-op wall time, MACs and MAC/s on stderr.
 *   --repeat N       run the integer inference N times (benchmarking on a noisy
 *                    machine): --profile then reports each op's fastest run.
 *   --dump-plan      print the plan as JSON on stdout (everything the executor reads:
 *                    index spaces, axes, multipliers, shifts, scales) and exit; used by
 *                    the numpy oracle (tests/oracle/oracle.py).
 * Timing of the whole run ("exec ... s") is printed to stderr with --profile. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/cli.h"
#include "cli/model.h"
#include "cli/progress.h"
#include "runtime/exec/exec.h"
#include "runtime/io/model_io.h"
#include "runtime/io/tensorio.h"
#include "runtime/exec/floatref.h"

enum { O_WEIGHTS, O_INPUT, O_OUT, O_COMPARE, O_PROFILE, O_REPEAT, O_THREADS, O_DUMP, O_N };

const ez_cli_opt ez_cli_opts_run[O_N + 1] = { /* the last row empty: the end */
    [O_WEIGHTS] = {"--weights", "W.safetensors", 0, "the model's weights (safetensors)"},
    [O_INPUT] = {"--input", "IN.json", 0, "the input (JSON)"},
    [O_OUT] = {"-o", "OUT.json", 0, "write the outputs here instead of stdout"},
    [O_COMPARE] = {"--compare-float", NULL, 0, "also run in float64 and print each op's error on stderr"},
    [O_PROFILE] = {"--profile", NULL, 0, "print each op's time, MACs and MAC/s on stderr"},
    [O_REPEAT] = {"--repeat", "N", 0, "run the inference N times (1 to 1000000); --profile shows the fastest"},
    [O_THREADS] = EZ_CLI_OPT_THREADS,
    [O_DUMP] = {"--dump-plan", NULL, 0, "print the plan as JSON on stdout and exit (no weights or input needed)"},
};

/* ---- --dump-plan ---------------------------------------------------------------------- */

static json_t *plan_json(const ez_plan *p)
{
    json_t *root = json_object();
    json_object_set_new(root, "model", json_string(p->model));
    json_t *ts = json_array();
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(t->name));
        json_object_set_new(o, "source_name", json_string(t->source_name));
        json_object_set_new(o, "kind", json_string(ez_tensor_kind_name(t->kind)));
        json_object_set_new(o, "shape", ez_tensorio_json_dims(t->dims, t->rank));
        json_object_set_new(o, "scale", json_integer(t->scale));
        json_object_set_new(o, "bits", json_integer(t->bits));
        json_object_set_new(o, "bound", json_integer((json_int_t)t->bound));
        json_object_set_new(o, "token_limit", json_integer(t->token_limit));
        json_object_set_new(o, "output", json_boolean(t->is_output));
        json_array_append_new(ts, o);
    }
    json_object_set_new(root, "tensors", ts);
    json_t *os = json_array();
    for (size_t oi = 0; oi < p->nops; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(ez_op_kind_name(op->kind)));
        json_object_set_new(o, "label", json_string(op->label));
        json_object_set_new(o, "equation", json_string(op->equation));
        json_object_set_new(o, "out", json_integer(op->out));
        json_t *idx = json_array();
        for (unsigned i = 0; i < op->nidx; i++) {
            json_t *x = json_object();
            json_object_set_new(x, "name", json_string(op->idx_name[i]));
            json_object_set_new(x, "size", json_integer((json_int_t)op->idx_size[i]));
            json_array_append_new(idx, x);
        }
        json_object_set_new(o, "indices", idx);
        /* operand axes: an index id, or {"pos": p} for an axis fixed at a position;
         * axis 0 of a gather table is null (addressed by the token) */
        json_t *ins = json_array();
        for (unsigned k = 0; k < op->nin; k++) {
            const ez_plan_tensor *t = &p->tensors[op->in[k]];
            json_t *in = json_object(), *axes = json_array();
            json_object_set_new(in, "tensor", json_integer(op->in[k]));
            json_object_set_new(in, "coef", json_integer(op->coef[k]));
            for (unsigned a = 0; a < t->rank; a++) {
                if (op->kind == EZ_OP_GATHER && k == 0 && a == 0) {
                    json_array_append_new(axes, json_null());
                } else if ((op->in_fixed[k] >> a) & 1) {
                    json_t *f = json_object();
                    json_object_set_new(f, "pos", json_integer((json_int_t)op->in_pos[k][a]));
                    json_array_append_new(axes, f);
                } else {
                    json_array_append_new(axes, json_integer(op->in_axes[k][a]));
                }
            }
            json_object_set_new(in, "axes", axes);
            json_array_append_new(ins, in);
        }
        json_object_set_new(o, "inputs", ins);
        json_t *oa = json_array();
        for (unsigned a = 0; a < p->tensors[op->out].rank; a++)
            json_array_append_new(oa, json_integer(op->out_axes[a]));
        json_object_set_new(o, "out_axes", oa);
        json_object_set_new(o, "mul", json_integer(op->mul));
        json_object_set_new(o, "shift", json_integer(op->shift));
        json_object_set_new(o, "axis", json_integer(op->axis));
        json_object_set_new(o, "masked", json_boolean(op->masked));
        json_object_set_new(o, "mask_row", json_integer(op->mask_row));
        json_object_set_new(o, "mask_col", json_integer(op->mask_col));
        json_object_set_new(o, "func", json_string(ez_func_name(op->func)));
        json_object_set_new(o, "in_scale", json_integer(op->in_scale));
        json_object_set_new(o, "out_scale", json_integer(op->out_scale));
        json_array_append_new(os, o);
    }
    json_object_set_new(root, "ops", os);
    return root;
}

/* ---- reports on stderr -------------------------------------------------------------------- */

static void print_profile(const ez_plan *p, const ez_trace *tr, const double *best, double total)
{
    fprintf(stderr, "%3s  %-12s %-10s %14s %10s %10s  %s\n", "#", "op", "kind", "MACs", "ms",
            "GMAC/s", "kernel");
    uint64_t macs = 0;
    double csec = 0;
    for (size_t oi = 0; oi < p->nops; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        const ez_op_trace *ot = &tr->ops[oi];
        double sec = best[oi];
        if (op->kind == EZ_OP_EINSUM) {
            macs += ot->macs;
            csec += sec;
        }
        fprintf(stderr, "%3zu  %-12.12s %-10s %14" PRIu64 " %10.3f %10.2f  %s\n", oi, op->label,
                ez_op_kind_name(op->kind), ot->macs, sec * 1e3,
                ot->macs && sec > 0 ? (double)ot->macs / sec * 1e-9 : 0.0,
                op->kind != EZ_OP_EINSUM ? "" : ot->exact_f64 ? "f64-exact" : "int64");
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    fprintf(stderr, "exec %.6f s total (fastest run); contractions %" PRIu64 " MACs in %.6f s = %.2f GMAC/s "
                    "(%d thread%s, %.2f GMAC/s per thread)\n",
            total, macs, csec, csec > 0 ? (double)macs / csec * 1e-9 : 0.0, threads,
            threads == 1 ? "" : "s", csec > 0 ? (double)macs / csec * 1e-9 / threads : 0.0);
}

static void print_compare(const ez_plan *p, const ez_trace *tr, const ez_ftrace *ft)
{
    fprintf(stderr, "integer trace vs float64 reference (relative = max abs error / max |float|)\n");
    fprintf(stderr, "%3s  %-12s %-10s %12s %12s %12s  %s\n", "#", "tensor", "kind", "max_abs",
            "max|float|", "relative", "worst element");
    double worst_rel = -1;
    size_t worst_op = 0;
    for (size_t oi = 0; oi < p->nops; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        const ez_plan_tensor *t = &p->tensors[op->out];
        const bool index = ez_plan_tensor_is_index(p, op->out); /* an argmax: compared as positions */
        ez_float_err e;
        ez_floatref_compare(&e, tr->t[op->out], t->scale, ft->t[op->out], ez_plan_tensor_numel(t));
        char where[256];
        ez_exec_format_elem(where, sizeof where, t, e.worst);
        fprintf(stderr, "%3zu  %-12.12s %-10s %12.4g %12.4g %12.4g  %s%s\n", oi, t->name,
                ez_op_kind_name(op->kind), e.max_abs, e.max_ref, e.rel, where,
                index ? " (index; ties/near-ties may differ)" : "");
        if (!index && e.rel > worst_rel)
            worst_rel = e.rel, worst_op = oi;
    }
    if (worst_rel >= 0)
        fprintf(stderr, "worst op: #%zu '%s' (%s), relative error %.4g\n", worst_op,
                p->ops[worst_op].label, ez_op_kind_name(p->ops[worst_op].kind), worst_rel);
}

/* ---- the command ---------------------------------------------------------------------------- */

/* ez_exec_run, op by op with progress on a terminal once the run has taken a second. */
static ez_status run_ops(const ez_plan *p, ez_trace *tr, ez_cli_progress *pg, ez_diag *d)
{
    if (!pg->on)
        return ez_exec_run(p, tr, d);
    for (size_t oi = 0; oi < p->nops; oi++) {
        ez_status st = ez_exec_op(p, oi, tr, d);
        if (st != EZ_OK)
            return st;
        ez_cli_progress_fn(pg, "ops", (double)(oi + 1) / (double)p->nops);
    }
    ez_cli_progress_end(pg);
    return EZ_OK;
}

int ez_cli_run_run(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    const char *model = args->operand, *wpath = args->value[O_WEIGHTS], *ipath = args->value[O_INPUT];
    const char *opath = args->value[O_OUT];
    bool compare = args->n[O_COMPARE] > 0, profile = args->n[O_PROFILE] > 0, dump = args->n[O_DUMP] > 0;
    uint64_t repeat = 1;
    if (!ez_cli_uint(args, O_REPEAT, 10, 1, 1000000, &repeat) || !ez_cli_threads(args, O_THREADS, 0))
        return EZ_EXIT_USAGE;
    if (!dump && (wpath == NULL || ipath == NULL))
        return ez_cli_usage_error(args->cmd, "missing %s (needed unless --dump-plan)",
                                  wpath == NULL ? "--weights W.safetensors" : "--input IN.json");

    ez_diag d = {{0}};
    ez_plan plan;
    ez_trace tr = {0};
    ez_ftrace ft = {0};
    double *best = NULL;
    rc = EZ_EXIT_OK;
    ez_status st = ez_cli_plan_load(&plan, model, EZ_CLI_PLAN_RUN, &d);
    if (st != EZ_OK)
        goto fail;
    if (dump) {
        json_t *j = plan_json(&plan);
        if (j == NULL || json_dumpf(j, stdout, JSON_INDENT(1)) != 0) {
            json_decref(j);
            st = EZ_ERR_NOMEM;
            goto fail;
        }
        json_decref(j);
        fputc('\n', stdout);
        goto out;
    }
    if ((st = ez_trace_init(&tr, &plan, &d)) != EZ_OK)
        goto fail;
    if (compare && (st = ez_ftrace_init(&ft, &plan, &d)) != EZ_OK)
        goto fail;
    const char *paths[] = {wpath, ipath}, *nouns[] = {EZ_NOUN_WEIGHTS, EZ_NOUN_INPUT};
    if ((st = ez_cli_expect_data(&d, 2, paths, nouns)) != EZ_OK)
        goto fail;
    if ((st = ez_exec_load(&tr, compare ? &ft : NULL, &plan, wpath, ipath, &d)) != EZ_OK)
        goto fail;
    if ((best = ez_alloc_array(plan.nops + 1, sizeof *best)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto fail;
    }
    double total = 0;
    ez_cli_progress pg;
    ez_cli_progress_init(&pg, "run", 1.0);
    for (uint64_t r = 0; r < repeat; r++) {
        double t0 = ez_now();
        if ((st = run_ops(&plan, &tr, &pg, &d)) != EZ_OK) {
            ez_cli_progress_end(&pg);
            goto fail;
        }
        double t = ez_now() - t0;
        total = r == 0 || t < total ? t : total;
        for (size_t oi = 0; oi < plan.nops; oi++)
            if (r == 0 || tr.ops[oi].seconds < best[oi])
                best[oi] = tr.ops[oi].seconds;
    }
    if (profile)
        print_profile(&plan, &tr, best, total);
    if (compare) {
        if ((st = ez_floatref_run(&plan, &ft, &d)) != EZ_OK)
            goto fail;
        print_compare(&plan, &tr, &ft);
    }
    if ((st = ez_exec_write_outputs(stdout, opath, &plan, &tr, &d)) != EZ_OK)
        goto fail;
    goto out;
fail:
    rc = ez_cli_error("run", st, &d);
out:
    free(best);
    ez_trace_clear(&tr);
    ez_ftrace_clear(&ft);
    ez_plan_clear(&plan);
    return rc;
}

/* einzk calibrate MODEL.ein --weights W --input SAMPLE.json... [-D NAME=VALUE]...
 *                 [--scales LO..HI] [--tolerance REL] [-o ANNOTATED.ein] [--json]
 *
 * Chooses `scale` and the widths from sample data (cli/calibrate.h has the method): for
 * every scale of the range, the widths that hold the samples' values with a margin, the
 * model compiled with them (feasible or not), its proof's committed advice, and how far
 * its integer run is from the float reference. Recommends the cheapest feasible scale
 * whose worst relative error is at most the tolerance (else the most accurate one) and
 * prints its settings; -o writes the source annotated with them (cli/annotate.h).
 * Exit 0 with a recommendation; 5 when no scale of the range holds the data. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/annotate.h"
#include "cli/calibrate.h"
#include "cli/cli.h"
#include "cli/model.h"
#include "cli/progress.h"
#include "cli/report.h"

enum { O_WEIGHTS, O_INPUT, O_DEFINE, O_SCALES, O_TOL, O_OUT, O_JSON, O_N };

const ez_cli_opt ez_cli_opts_calibrate[O_N + 1] = { /* the last row empty: the end */
    [O_WEIGHTS] = EZ_CLI_OPT_WEIGHTS,
    [O_INPUT] = {"--input", "SAMPLE.json", EZ_CLI_REQUIRED | EZ_CLI_REPEAT, "a sample input (JSON); give several"},
    [O_DEFINE] = EZ_CLI_OPT_DEFINE,
    [O_SCALES] = {"--scales", "LO..HI", 0, "the scales to try (default 8..16)"},
    [O_TOL] = {"--tolerance", "REL", 0, "the worst relative error accepted (default 0.01)"},
    [O_OUT] = {"-o", "ANNOTATED.ein", 0, "write the source with the recommended scale, bits and @bits here"},
    [O_JSON] = {"--json", NULL, 0, "print every scale's cost and fidelity and the recommendation as JSON"},
};

#define MAX_SCALES 61

typedef struct {
    unsigned scale;
    bool feasible;
    char reason[1024];
    ez_cli_widths w;
    ez_calib_eval e;
    char *text;     /* the annotated source */
    char worst[EZ_MAX_NAME];
} row;

/* LO..HI within 0..60 into *lo, *hi. */
static bool parse_scales(const ez_cli_args *a, unsigned *lo, unsigned *hi)
{
    const char *s = a->value[O_SCALES];
    *lo = 8;
    *hi = 16;
    if (s == NULL)
        return true;
    unsigned x, y;
    int end = 0;
    if (sscanf(s, "%u..%u%n", &x, &y, &end) != 2 || s[end] != 0 || x > y || y > 60) {
        ez_cli_usage_error(a->cmd, "--scales needs LO..HI with 0 <= LO <= HI <= 60, got '%s'", s);
        return false;
    }
    *lo = x;
    *hi = y;
    return true;
}

static bool parse_tolerance(const ez_cli_args *a, double *tol)
{
    const char *s = a->value[O_TOL];
    *tol = 0.01;
    if (s == NULL)
        return true;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != 0 || errno || !(v > 0) || !isfinite(v)) {
        ez_cli_usage_error(a->cmd, "--tolerance needs a positive number, got '%s'", s);
        return false;
    }
    *tol = v;
    return true;
}

/* One scale: widths from p0 (the source at that scale), the annotated source compiled,
 * evaluated. A scale that cannot hold the data says why in r->reason. */
static ez_status try_scale(row *r, const char *path, const char *src, size_t len, const ez_cli_defines *defs,
                           const ez_calib_data *m)
{
    ez_cli_defines ds = *defs;
    ez_plan p0, p;
    ez_diag d = {{0}};
    ds.scale = (int)r->scale;
    for (size_t k = 0; k < ds.n; k++) /* the copy's names point into its own arrays */
        ds.defs[k].name = ds.names[k], ds.defs[k].text = ds.texts[k];
    ez_status st = ez_calib_compile(&p0, path, src, len, &ds, false, &d);
    if (st == EZ_OK && p0.ntensors != m->ntensors)
        st = EZ_ERR_INTERNAL;
    if (st == EZ_OK)
        st = ez_calib_widths(&r->w, &p0, m, r->scale, &d);
    ez_plan_clear(&p0);
    if (st == EZ_OK)
        st = ez_cli_annotate(src, len, &r->w, &r->text, &d);
    ds.scale = -1; /* the annotated source says it */
    ez_plan_init(&p);
    if (st == EZ_OK)
        st = ez_calib_compile(&p, path, r->text, strlen(r->text), &ds, true, &d);
    if (st == EZ_OK)
        st = ez_calib_evaluate(&r->e, &p, m, &d);
    if (st == EZ_OK)
        snprintf(r->worst, sizeof r->worst, "%s", p.ops[r->e.worst_op].label);
    ez_plan_clear(&p);
    r->feasible = st == EZ_OK;
    if (st == EZ_ERR_NUMERIC || st == EZ_ERR_SOURCE) {
        snprintf(r->reason, sizeof r->reason, "%s", d.msg);
        return EZ_OK;
    }
    if (st != EZ_OK)
        snprintf(r->reason, sizeof r->reason, "%s", d.msg[0] ? d.msg : ez_status_str(st));
    return st;
}

/* The recommended row: the cheapest feasible one within the tolerance, else the most
 * accurate feasible one; NULL when none is feasible. */
static const row *recommend(const row *rows, size_t n, double tol, bool *within)
{
    const row *best = NULL;
    *within = false;
    for (size_t i = 0; i < n; i++)
        if (rows[i].feasible && rows[i].e.rel <= tol &&
            (best == NULL || rows[i].e.advice_elems < best->e.advice_elems))
            best = &rows[i];
    if (best) {
        *within = true;
        return best;
    }
    for (size_t i = 0; i < n; i++)
        if (rows[i].feasible && (best == NULL || rows[i].e.rel < best->e.rel))
            best = &rows[i];
    return best;
}

static json_t *widths_json(const ez_cli_widths *w)
{
    json_t *o = json_pack("{s:I, s:I}", "scale", (json_int_t)w->scale, "bits", (json_int_t)w->bits);
    json_t *ds = json_array(), *ls = json_array();
    for (size_t i = 0; i < w->ndecls; i++)
        json_array_append_new(ds, json_pack("{s:s, s:I}", "name", w->decls[i].name, "bits",
                                            (json_int_t)w->decls[i].bits));
    for (size_t i = 0; i < w->nlines; i++)
        json_array_append_new(ls, json_pack("{s:I, s:I}", "line", (json_int_t)w->lines[i].line, "bits",
                                            (json_int_t)w->lines[i].bits));
    json_object_set_new(o, "declarations", ds);
    json_object_set_new(o, "definitions", ls);
    return o;
}

static void print_json(const char *model, size_t nsamples, double tol, const row *rows, size_t n, const row *rec,
                       bool within, const char *out)
{
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "model", json_string(model));
    json_object_set_new(o, "samples", json_integer((json_int_t)nsamples));
    json_object_set_new(o, "tolerance", json_real(tol));
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        json_t *x = json_pack("{s:I, s:b}", "scale", (json_int_t)r->scale, "feasible", r->feasible);
        if (r->feasible) {
            json_object_set_new(x, "bits", json_integer(r->w.bits));
            json_object_set_new(x, "advice_elems", json_integer((json_int_t)r->e.advice_elems));
            json_object_set_new(x, "walk_bytes", json_integer((json_int_t)r->e.walk_bytes));
            json_object_set_new(x, "max_rel_error", json_real(r->e.rel));
            json_object_set_new(x, "worst_op", json_string(r->worst));
            if (r->e.has_argmax)
                json_object_set_new(x, "argmax_agreement", json_real(r->e.argmax_agree));
        } else {
            json_object_set_new(x, "reason", json_string(r->reason));
        }
        json_array_append_new(a, x);
    }
    json_object_set_new(o, "scales", a);
    json_object_set_new(o, "recommended", widths_json(&rec->w));
    json_object_set_new(o, "within_tolerance", json_boolean(within));
    json_object_set_new(o, "output", out ? json_string(out) : json_null());
    json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
}

static void print_text(const char *model, size_t nsamples, double tol, const row *rows, size_t n, const row *rec,
                       bool within, const char *out)
{
    printf("calibrate %s: %zu sample%s; widths hold the samples' largest values (+1 bit for inputs and "
           "computed tensors)\n\n",
           model, nsamples, nsamples == 1 ? "" : "s");
    printf("%5s %5s %14s %10s %12s %8s  %s\n", "scale", "bits", "advice elems", "walk KiB", "rel. error", "argmax",
           "worst op");
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->feasible) {
            printf("%5u  not feasible: %s\n", r->scale, r->reason);
            continue;
        }
        char agree[16] = "-";
        if (r->e.has_argmax)
            snprintf(agree, sizeof agree, "%.1f%%", 100 * r->e.argmax_agree);
        printf("%5u %5u %14" PRIu64 " %10.1f %12.3g %8s  %s%s\n", r->scale, r->w.bits, r->e.advice_elems,
               (double)r->e.walk_bytes / 1024, r->e.rel, agree, r->worst, r == rec ? "  <-" : "");
    }
    printf("\nrecommended: scale %u, bits %u (%s)\n", rec->w.scale, rec->w.bits,
           within ? "the cheapest scale within the tolerance" : "no scale is within the tolerance: the most accurate");
    for (size_t i = 0; i < rec->w.ndecls; i++)
        printf("  %-16s @bits(%u)\n", rec->w.decls[i].name, rec->w.decls[i].bits);
    for (size_t i = 0; i < rec->w.nlines; i++)
        printf("  line %-11d @bits(%u)\n", rec->w.lines[i].line, rec->w.lines[i].bits);
    printf("(tolerance %g)%s%s\n", tol, out ? "; annotated source -> " : "", out ? out : "");
}

int ez_cli_run_calibrate(const ez_cli_args *a)
{
    int rc = EZ_CLI_RUN;
    ez_cli_defines defs;
    unsigned lo, hi;
    double tol;
    if (!ez_cli_defines_get(&defs, a, O_DEFINE) || !parse_scales(a, &lo, &hi) || !parse_tolerance(a, &tol))
        return EZ_EXIT_USAGE;
    const char *path = a->operand, *out = a->value[O_OUT];
    const char *inputs[EZ_CLI_MAX_VALUES];
    size_t nin = 0;
    for (size_t i = 0; i < a->nvals; i++)
        if (a->vals[i].opt == O_INPUT)
            inputs[nin++] = a->vals[i].value;
    ez_diag d = {{0}};
    ez_plan base;
    ez_calib_data m;
    row rows[MAX_SCALES];
    size_t n = 0;
    uint8_t *src = NULL;
    size_t len = 0;
    ez_program *prog = NULL;
    ez_plan_init(&base);
    memset(&m, 0, sizeof m);
    memset(rows, 0, sizeof rows);
    ez_status st = EZ_OK;
    /* the source's own diagnostics first, as check prints them */
    if ((rc = ez_cli_front("calibrate", path, &defs, NULL, &prog)) != EZ_CLI_RUN)
        goto out;
    ez_program_free(prog);
    const char *paths[] = {a->value[O_WEIGHTS]}, *nouns[] = {EZ_NOUN_WEIGHTS};
    st = out ? ez_file_check_writable(out, &d) : EZ_OK;
    if (st == EZ_OK)
        st = ez_cli_expect_data(&d, 1, paths, nouns);
    for (size_t i = 0; i < nin && st == EZ_OK; i++)
        st = ez_cli_expect_kind_file(inputs[i], NULL, EZ_NOUN_INPUT, &d);
    if (st == EZ_OK)
        st = ez_file_read(path, &src, &len, &d);
    if (st == EZ_OK)
        st = ez_calib_compile(&base, path, (const char *)src, len, &defs, false, &d);
    if (st == EZ_OK)
        st = ez_calib_measure(&m, &base, a->value[O_WEIGHTS], inputs, nin, &d);
    if (st != EZ_OK)
        goto fail;
    ez_cli_progress pg;
    ez_cli_progress_init(&pg, "calibrate", 0);
    for (unsigned s = lo; s <= hi; s++) {
        row *r = &rows[n++];
        r->scale = s;
        ez_cli_progress_fn(&pg, "scales", (double)(s - lo) / (double)(hi - lo + 1));
        if ((st = try_scale(r, path, (const char *)src, len, &defs, &m)) != EZ_OK) {
            ez_cli_progress_end(&pg);
            snprintf(d.msg, sizeof d.msg, "scale %u: %s", s, r->reason);
            goto fail;
        }
    }
    ez_cli_progress_end(&pg);
    bool within;
    const row *rec = recommend(rows, n, tol, &within);
    if (rec == NULL) {
        rc = ez_cli_fail("calibrate", EZ_EXIT_NUMERIC, "no scale in %u..%u holds the samples (scale %u: %s)", lo, hi,
                         hi, rows[n - 1].reason);
        goto out;
    }
    if (out && (st = ez_file_write(out, rec->text, strlen(rec->text), &d)) != EZ_OK)
        goto fail;
    if (a->n[O_JSON])
        print_json(base.model, nin, tol, rows, n, rec, within, out);
    else
        print_text(base.model, nin, tol, rows, n, rec, within, out);
    rc = EZ_EXIT_OK;
    goto out;
fail:
    rc = ez_cli_error("calibrate", st, &d);
out:
    for (size_t i = 0; i < n; i++) {
        ez_calib_widths_clear(&rows[i].w);
        free(rows[i].text);
    }
    ez_calib_data_clear(&m);
    ez_plan_clear(&base);
    free(src);
    return rc;
}

/* calibrate — measure, widths, evaluate (the method: calibrate.h). */
#include "cli/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/model.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "runtime/exec/exec.h"
#include "runtime/exec/floatref.h"
#include "runtime/io/model_io.h"
#include "runtime/io/quant.h"
#include "runtime/io/safetensors.h"
#include "runtime/io/tensorio.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"

/* ---- measure ---------------------------------------------------------------------------- */

void ez_calib_data_clear(ez_calib_data *m)
{
    for (size_t i = 0; m->w && i < m->ntensors; i++)
        free(m->w[i]);
    for (size_t i = 0; m->in && i < m->ntensors * m->nsamples; i++)
        free(m->in[i]);
    free(m->w);
    free(m->in);
    free(m->maxabs);
    memset(m, 0, sizeof *m);
}


static ez_status load_weights(ez_calib_data *m, const ez_plan *p, const char *path, ez_diag *d)
{
    ez_safetensors sf;
    ez_status st = ez_exec_read_weights(&sf, p, path, d);
    for (size_t i = 0; i < p->ntensors && st == EZ_OK; i++) {
        if (p->tensors[i].kind != EZ_TENSOR_WEIGHT)
            continue;
        uint64_t numel = ez_plan_tensor_numel(&p->tensors[i]);
        if ((m->w[i] = ez_alloc_array(numel ? numel : 1, sizeof(double))) == NULL)
            st = EZ_ERR_NOMEM;
        else
            st = ez_st_tensor_to_f64(ez_safetensors_find(&sf, p->tensors[i].name), m->w[i], d);
    }
    ez_safetensors_free(&sf);
    return st;
}

static ez_status load_sample(ez_calib_data *m, const ez_plan *p, size_t k, const char *path, ez_diag *d)
{
    ez_exec_inputs in;
    ez_status st = ez_exec_read_inputs(&in, p, path, d);
    for (size_t j = 0; j < in.n && st == EZ_OK; j++) {
        ez_tensor_value *v = &in.vals[j];
        double **dst = &m->in[k * m->ntensors + in.ids[j]];
        if (v->tok == NULL) {
            *dst = v->f; /* taken */
            v->f = NULL;
        } else if ((*dst = ez_alloc_array(v->numel ? v->numel : 1, sizeof(double))) == NULL) {
            st = EZ_ERR_NOMEM;
        } else {
            for (uint64_t e = 0; e < v->numel; e++)
                (*dst)[e] = (double)v->tok[e];
        }
    }
    ez_exec_inputs_clear(&in);
    return st;
}

/* The float trace of p on sample k (weights and the sample's inputs set, then run). */
static ez_status float_run(ez_ftrace *ft, const ez_plan *p, const ez_calib_data *m, size_t k, ez_diag *d)
{
    ez_status st = ez_ftrace_init(ft, p, d);
    for (size_t i = 0; i < p->ntensors && st == EZ_OK; i++) {
        const double *v = p->tensors[i].kind == EZ_TENSOR_WEIGHT ? m->w[i] : m->in[k * m->ntensors + i];
        if (p->tensors[i].kind != EZ_TENSOR_ACT)
            st = ez_ftrace_set(ft, i, v, ez_plan_tensor_numel(&p->tensors[i]), d);
    }
    return st == EZ_OK ? ez_floatref_run(p, ft, d) : st;
}

ez_status ez_calib_measure(ez_calib_data *m, const ez_plan *p, const char *weights, const char *const *inputs,
                           size_t n, ez_diag *d)
{
    memset(m, 0, sizeof *m);
    m->ntensors = p->ntensors;
    m->nsamples = n;
    m->maxabs = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *m->maxabs);
    m->w = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *m->w);
    size_t nin = p->ntensors * n;
    m->in = ez_alloc_array(nin ? nin : 1, sizeof *m->in);
    if (!m->maxabs || !m->w || !m->in)
        return EZ_ERR_NOMEM;
    memset(m->maxabs, 0, p->ntensors * sizeof *m->maxabs);
    memset(m->w, 0, p->ntensors * sizeof *m->w);
    memset(m->in, 0, nin * sizeof *m->in);
    ez_status st = load_weights(m, p, weights, d);
    for (size_t k = 0; k < n && st == EZ_OK; k++)
        st = load_sample(m, p, k, inputs[k], d);
    for (size_t k = 0; k < n && st == EZ_OK; k++) {
        ez_ftrace ft;
        memset(&ft, 0, sizeof ft);
        if ((st = float_run(&ft, p, m, k, d)) == EZ_OK)
            for (size_t i = 0; i < p->ntensors; i++) {
                uint64_t numel = ez_plan_tensor_numel(&p->tensors[i]);
                for (uint64_t e = 0; e < numel; e++)
                    m->maxabs[i] = fmax(m->maxabs[i], fabs(ft.t[i][e]));
            }
        ez_ftrace_clear(&ft);
    }
    return st;
}

/* ---- widths ------------------------------------------------------------------------------- */

/* Signed bits holding |v| <= m at scale t, plus margin; 63 when more than 62 would do. */
static unsigned need_bits(double m, unsigned t, unsigned margin)
{
    double x = ceil(m * ldexp(1.0, (int)t));
    if (!(x < 0x1p61))
        return 63;
    unsigned b = ez_bitlen((uint64_t)x) + 1 + margin;
    return b < 2 ? 2 : b;
}

void ez_calib_widths_clear(ez_cli_widths *w)
{
    free(w->decls);
    free(w->lines);
    memset(w, 0, sizeof *w);
}

ez_status ez_calib_widths(ez_cli_widths *w, const ez_plan *p0, const ez_calib_data *m, unsigned scale, ez_diag *d)
{
    memset(w, 0, sizeof *w);
    w->scale = scale;
    w->bits = 2;
    w->decls = ez_alloc_array(p0->ntensors ? p0->ntensors : 1, sizeof *w->decls);
    w->lines = ez_alloc_array(p0->nops ? p0->nops : 1, sizeof *w->lines);
    if (!w->decls || !w->lines)
        return EZ_ERR_NOMEM;
    const char *widest = NULL;
    for (size_t i = 0; i < p0->ntensors; i++) {
        const ez_plan_tensor *t = &p0->tensors[i];
        if (t->kind != EZ_TENSOR_INPUT && t->kind != EZ_TENSOR_WEIGHT)
            continue;
        unsigned b = need_bits(m->maxabs[i], t->scale, t->kind == EZ_TENSOR_INPUT);
        snprintf(w->decls[w->ndecls].name, sizeof w->decls[w->ndecls].name, "%s", t->source_name);
        w->decls[w->ndecls++].bits = b;
        if (b > w->bits)
            w->bits = b, widest = t->source_name;
    }
    for (size_t o = 0; o < p0->nops; o++) {
        const ez_plan_op *op = &p0->ops[o];
        if (ez_plan_tensor_is_index(p0, op->out))
            continue; /* its width is the index's */
        const ez_plan_tensor *t = &p0->tensors[op->out];
        unsigned b = need_bits(m->maxabs[op->out], t->scale, 1);
        size_t k = 0;
        while (k < w->nlines && w->lines[k].line != (int)op->line)
            k++;
        if (k == w->nlines)
            w->lines[w->nlines++] = (typeof(*w->lines)){(int)op->line, 0};
        if (b > w->lines[k].bits)
            w->lines[k].bits = b;
        if (b > w->bits)
            w->bits = b, widest = t->source_name;
    }
    if (w->bits > 62) {
        ez_diag_set(d, "'%s' would need more than 62 bits at scale %u", widest ? widest : "?", scale);
        return EZ_ERR_NUMERIC;
    }
    return EZ_OK;
}

/* ---- compile ---------------------------------------------------------------------------- */


ez_status ez_calib_compile(ez_plan *plan, const char *path, const char *text, size_t len, const ez_cli_defines *defs,
                           bool sound, ez_diag *d)
{
    ez_diag_list diags;
    ez_program *prog = NULL;
    char stem[EZ_MAX_NAME];
    ez_front_opts fo = {defs->defs, defs->n, defs->scale, defs->bits};
    ez_plan_init(plan);
    ez_status st = ez_compile_front_opts(path, text, len, &fo, &diags, &prog);
    if (st == EZ_ERR_SOURCE) {
        for (size_t i = 0; i < diags.n; i++)
            if (!diags.items[i].warning) {
                ez_diag_set(d, "line %d: %s", diags.items[i].span.first_line, diags.items[i].msg);
                break;
            }
    }
    ez_diag_list_clear(&diags);
    ez_cli_file_stem(path, stem, sizeof stem);
    if (st == EZ_OK && (st = ez_lower(plan, prog, stem, d)) == EZ_ERR_INVALID)
        st = EZ_ERR_SOURCE; /* a plan limit */
    if (st == EZ_OK && (st = ez_plan_schedule(plan, d)) == EZ_ERR_INVALID)
        st = EZ_ERR_SOURCE;
    if (st == EZ_OK && sound)
        st = ez_plan_soundness(plan, NULL, d);
    if (st == EZ_OK)
        st = ez_plan_compute_digest(plan, d);
    ez_program_free(prog);
    return st;
}

/* ---- evaluate --------------------------------------------------------------------------- */

/* The integer trace of p on sample k. */
static ez_status int_run(ez_trace *tr, const ez_plan *p, const ez_calib_data *m, size_t k, ez_diag *d)
{
    ez_status st = ez_trace_init(tr, p, d);
    int64_t *q = NULL;
    for (size_t i = 0; i < p->ntensors && st == EZ_OK; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        const double *v = t->kind == EZ_TENSOR_WEIGHT ? m->w[i] : m->in[k * m->ntensors + i];
        uint64_t n = ez_plan_tensor_numel(t);
        free(q);
        if ((q = ez_alloc_array(n ? n : 1, sizeof *q)) == NULL) {
            st = EZ_ERR_NOMEM;
            break;
        }
        if (t->kind == EZ_TENSOR_TOKENS) {
            for (uint64_t e = 0; e < n; e++)
                q[e] = (int64_t)v[e];
        } else {
            char label[EZ_MAX_NAME + 16];
            snprintf(label, sizeof label, "%s '%s'", t->kind == EZ_TENSOR_WEIGHT ? "weight" : "input", t->source_name);
            st = ez_quantize_tensor(label, v, n, t->dims, t->rank, t->scale, t->bits, q, d);
        }
        if (st == EZ_OK)
            st = ez_trace_set(tr, i, q, n, d);
    }
    free(q);
    return st == EZ_OK ? ez_exec_run(p, tr, d) : st;
}

ez_status ez_calib_evaluate(ez_calib_eval *e, const ez_plan *p, const ez_calib_data *m, ez_diag *d)
{
    ez_layout_sizes z;
    memset(e, 0, sizeof *e);
    ez_status st = ez_layout_sizes_compute(&z, p, d);
    if (st != EZ_OK)
        return st;
    e->advice_elems = z.advice_elems;
    e->walk_bytes = z.walk_bytes;
    ez_layout_sizes_clear(&z);
    uint64_t agree = 0, total = 0;
    for (size_t k = 0; k < m->nsamples && st == EZ_OK; k++) {
        ez_trace tr;
        ez_ftrace ft;
        memset(&tr, 0, sizeof tr);
        memset(&ft, 0, sizeof ft);
        if ((st = int_run(&tr, p, m, k, d)) == EZ_OK && (st = float_run(&ft, p, m, k, d)) == EZ_OK)
            for (size_t o = 0; o < p->nops; o++) {
                const ez_plan_op *op = &p->ops[o];
                const ez_plan_tensor *t = &p->tensors[op->out];
                uint64_t n = ez_plan_tensor_numel(t);
                if (ez_plan_tensor_is_index(p, op->out)) {
                    for (uint64_t i = 0; i < n; i++)
                        agree += tr.t[op->out][i] == (int64_t)ft.t[op->out][i];
                    total += n;
                    continue;
                }
                ez_float_err fe;
                ez_floatref_compare(&fe, tr.t[op->out], t->scale, ft.t[op->out], n);
                if (fe.rel > e->rel || (o == 0 && k == 0))
                    e->rel = fe.rel, e->worst_op = o;
            }
        if (tr.plan)
            ez_trace_clear(&tr);
        ez_ftrace_clear(&ft);
    }
    e->has_argmax = total > 0;
    e->argmax_agree = total ? (double)agree / (double)total : 1.0;
    return st;
}

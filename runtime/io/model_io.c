/* exec_io — see exec_io.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/io/model_io.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/io/quant.h"
#include "runtime/io/safetensors.h"
#include "runtime/io/tensorio.h"

void ez_exec_tensor_spec(ez_tensor_spec *s, const ez_plan_tensor *t, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->rank = t->rank;
    for (unsigned a = 0; a < t->rank; a++)
        s->dims[a] = t->dims[a];
    s->is_token = t->kind == EZ_TENSOR_TOKENS;
    s->token_limit = t->token_limit;
}

/* Quantize reals into the trace (and keep them in ft). */
static ez_status put_reals(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, size_t i,
                           const double *v, const char *label, ez_diag *d)
{
    const ez_plan_tensor *t = &p->tensors[i];
    uint64_t n = ez_plan_tensor_numel(t);
    int64_t *q = ez_alloc_array(n ? n : 1, sizeof *q);
    if (q == NULL) {
        ez_diag_set(d, "out of memory quantizing '%s'", t->name);
        return EZ_ERR_NOMEM;
    }
    ez_status st = ez_quantize_tensor(label, v, n, t->dims, t->rank, t->scale, t->bits, q, d);
    if (st == EZ_OK)
        st = ez_trace_set(tr, i, q, n, d);
    if (st == EZ_OK && ft)
        st = ez_ftrace_set(ft, i, v, n, d);
    free(q);
    return st;
}

ez_status ez_exec_read_weights(ez_safetensors *sf, const ez_plan *p, const char *path, ez_diag *d)
{
    memset(sf, 0, sizeof *sf);
    ez_tensor_spec *specs = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *specs);
    if (specs == NULL)
        return EZ_ERR_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT)
            ez_exec_tensor_spec(&specs[n++], &p->tensors[i], p->tensors[i].name);
    ez_status st = ez_safetensors_load(sf, path, d);
    if (st == EZ_OK)
        st = ez_safetensors_check(sf, specs, n, d);
    free(specs);
    return st;
}

ez_status ez_exec_load_weights(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, const char *path,
                               ez_diag *d)
{
    ez_safetensors sf;
    double *buf = NULL;
    ez_status st = ez_exec_read_weights(&sf, p, path, d);
    for (size_t i = 0; i < p->ntensors && st == EZ_OK; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind != EZ_TENSOR_WEIGHT)
            continue;
        uint64_t numel = ez_plan_tensor_numel(t);
        free(buf);
        if ((buf = ez_alloc_array(numel ? numel : 1, sizeof *buf)) == NULL) {
            st = EZ_ERR_NOMEM;
            break;
        }
        char label[EZ_MAX_NAME + 1100];
        snprintf(label, sizeof label, "%s: tensor '%s'", path, t->name);
        if ((st = ez_st_tensor_to_f64(ez_safetensors_find(&sf, t->name), buf, d)) == EZ_OK)
            st = put_reals(tr, ft, p, i, buf, label, d);
    }
    if (st == EZ_ERR_NOMEM && d && !d->msg[0])
        ez_diag_set(d, "out of memory loading weights");
    free(buf);
    ez_safetensors_free(&sf);
    return st;
}

ez_status ez_exec_read_inputs(ez_exec_inputs *in, const ez_plan *p, const char *path, ez_diag *d)
{
    size_t cap = p->ntensors ? p->ntensors : 1;
    memset(in, 0, sizeof *in);
    ez_tensor_spec *specs = ez_alloc_array(cap, sizeof *specs);
    in->ids = ez_alloc_array(cap, sizeof *in->ids);
    in->vals = ez_alloc_array(cap, sizeof *in->vals);
    ez_status st = EZ_ERR_NOMEM;
    if (specs != NULL && in->ids != NULL && in->vals != NULL) {
        size_t m = 0;
        for (size_t i = 0; i < p->ntensors; i++) {
            const ez_plan_tensor *t = &p->tensors[i];
            if (t->kind == EZ_TENSOR_INPUT || t->kind == EZ_TENSOR_TOKENS) {
                in->ids[m] = i;
                ez_exec_tensor_spec(&specs[m++], t, t->source_name);
            }
        }
        if ((st = ez_inputs_load(path, specs, m, in->vals, d)) == EZ_OK)
            in->n = m;
    }
    free(specs);
    return st;
}

void ez_exec_inputs_clear(ez_exec_inputs *in)
{
    if (in->vals)
        ez_tensor_values_clear(in->vals, in->n);
    free(in->vals);
    free(in->ids);
    memset(in, 0, sizeof *in);
}

ez_status ez_exec_input_ints(int64_t **q, const ez_plan *p, const ez_exec_inputs *in, size_t j, ez_diag *d)
{
    const ez_plan_tensor *t = &p->tensors[in->ids[j]];
    const ez_tensor_value *val = &in->vals[j];
    ez_status st = EZ_OK;
    *q = ez_alloc_array(val->numel ? val->numel : 1, sizeof **q);
    if (*q == NULL) {
        ez_diag_set(d, "out of memory quantizing '%s'", t->name);
        return EZ_ERR_NOMEM;
    }
    if (t->kind == EZ_TENSOR_TOKENS) {
        for (uint64_t e = 0; e < val->numel; e++)
            (*q)[e] = val->tok[e];
    } else {
        char label[EZ_MAX_NAME + 32];
        snprintf(label, sizeof label, "input '%s'", t->source_name);
        st = ez_quantize_tensor(label, val->f, val->numel, t->dims, t->rank, t->scale, t->bits, *q, d);
    }
    if (st != EZ_OK) {
        free(*q);
        *q = NULL;
    }
    return st;
}

ez_status ez_exec_load_inputs(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, const char *path,
                              ez_diag *d)
{
    ez_exec_inputs in;
    int64_t *q = NULL;
    double *tokd = NULL;
    ez_status st = ez_exec_read_inputs(&in, p, path, d);
    for (size_t j = 0; j < in.n && st == EZ_OK; j++) {
        const ez_tensor_value *val = &in.vals[j];
        free(q);
        if ((st = ez_exec_input_ints(&q, p, &in, j, d)) == EZ_OK)
            st = ez_trace_set(tr, in.ids[j], q, val->numel, d);
        if (st != EZ_OK || ft == NULL)
            continue;
        const double *real = val->f; /* the float reference takes the reals, or the ids as reals */
        if (real == NULL) {
            free(tokd);
            if ((tokd = ez_alloc_array(val->numel ? val->numel : 1, sizeof *tokd)) == NULL) {
                st = EZ_ERR_NOMEM;
                break;
            }
            for (uint64_t e = 0; e < val->numel; e++)
                tokd[e] = (double)val->tok[e];
            real = tokd;
        }
        st = ez_ftrace_set(ft, in.ids[j], real, val->numel, d);
    }
    if (st == EZ_ERR_NOMEM && d && !d->msg[0])
        ez_diag_set(d, "out of memory loading inputs");
    ez_exec_inputs_clear(&in);
    free(q);
    free(tokd);
    return st;
}

ez_status ez_exec_load(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, const char *weights_path,
                       const char *input_path, ez_diag *d)
{
    ez_status st = ez_exec_load_weights(tr, ft, p, weights_path, d);
    if (st == EZ_OK)
        st = ez_exec_load_inputs(tr, ft, p, input_path, d);
    return st;
}

ez_status ez_exec_write_outputs(FILE *f, const char *path, const ez_plan *p, const ez_trace *tr,
                                ez_diag *d)
{
    size_t n = 0;
    ez_tensor_spec *specs = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *specs);
    double **data = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *data);
    ez_status st = EZ_ERR_NOMEM;
    if (specs == NULL || data == NULL)
        goto out;
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (!t->is_output)
            continue;
        uint64_t numel = ez_plan_tensor_numel(t);
        ez_exec_tensor_spec(&specs[n], t, t->source_name);
        specs[n].is_token = ez_plan_tensor_is_index(p, i);
        if ((data[n] = ez_alloc_array(numel ? numel : 1, sizeof(double))) == NULL)
            goto out;
        for (uint64_t e = 0; e < numel; e++)
            data[n][e] = ez_dequantize(tr->t[i][e], t->scale);
        n++;
    }
    st = path ? ez_outputs_save(path, specs, n, (const double *const *)data, d)
              : ez_outputs_write(f, specs, n, (const double *const *)data, d);
out:
    if (st == EZ_ERR_NOMEM && d && !d->msg[0])
        ez_diag_set(d, "out of memory writing outputs");
    for (size_t i = 0; data && i < n; i++)
        free(data[i]);
    free(data);
    free(specs);
    return st;
}

/* einzk gen MODEL.einc --seed N --weights W.safetensors --input IN.json
 *
 * Deterministic random weights and inputs of realistic scale for a compiled model:
 *   - a weight contracted in its first contraction over indices of total size
 *     fan_in (the weight's indices that the product sums over) is normal with
 *     std 1/sqrt(fan_in), like a trained transformer's projections;
 *   - otherwise a gather table (an embedding) is normal with std 1;
 *   - otherwise, by name: g*, gamma*, ln* (layernorm-style gains) are 1 + 0.05 N(0,1);
 *     b*, beta* (biases) are 0.02 N(0,1); anything else N(0,1);
 *   - inputs are N(0,1); token inputs uniform in [0, token_limit).
 * Every value is clipped to what its tensor's width holds at its scale
 * (|v| <= (2^(bits-1) - 1) / 2^scale) and rounded to float32. Each tensor draws from
 * its own stream (splitmix64 seeded by the seed and the tensor's name, Box-Muller),
 * so a tensor's values do not depend on the others. Weights are written as F32
 * safetensors; inputs as {"name": {"shape": [...], "data": [...]}}. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "runtime/io/safetensors.h"

enum { O_SEED, O_WEIGHTS, O_INPUT, O_N };

const ez_cli_opt ez_cli_opts_gen[O_N + 1] = { /* the last row empty: the end */
    [O_SEED] = {"--seed", "N", EZ_CLI_REQUIRED, "the generator's seed, a non-negative integer (0x.. hex, 0.. octal)"},
    [O_WEIGHTS] = {"--weights", "W.safetensors", EZ_CLI_REQUIRED, "write the random weights here (F32 safetensors)"},
    [O_INPUT] = {"--input", "IN.json", EZ_CLI_REQUIRED, "write the random inputs here (JSON)"},
};

typedef struct {
    uint64_t s;
    bool have;
    double spare;
} gen_rng;

static uint64_t rng_next(gen_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static gen_rng rng_for(uint64_t seed, const char *name)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ seed;
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * UINT64_C(0x100000001B3);
    gen_rng r = {h, false, 0};
    return r;
}

static double rng_gauss(gen_rng *r)
{
    if (r->have) {
        r->have = false;
        return r->spare;
    }
    double u1 = ((double)(rng_next(r) >> 11) + 0.5) * 0x1p-53; /* (0, 1) */
    double u2 = (double)(rng_next(r) >> 11) * 0x1p-53;
    double m = sqrt(-2.0 * log(u1));
    r->spare = m * sin(2 * M_PI * u2);
    r->have = true;
    return m * cos(2 * M_PI * u2);
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* How a weight is used: fan-in of its first contraction (0 if never contracted),
 * whether it is a gather table. */
static void weight_use(const ez_plan *p, unsigned t, uint64_t *fan_in, bool *gather)
{
    *fan_in = 0;
    *gather = false;
    for (size_t oi = 0; oi < p->nops; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        for (unsigned k = 0; k < op->nin; k++) {
            if (op->in[k] != t)
                continue;
            if (op->kind == EZ_OP_GATHER && k == 0) {
                if (*fan_in == 0)
                    *gather = true;
                return;
            }
            if (op->kind != EZ_OP_EINSUM)
                continue;
            bool in_out[EZ_MAX_IDX] = {false}, seen[EZ_MAX_IDX] = {false};
            for (unsigned a = 0; a < p->tensors[op->out].rank; a++)
                in_out[op->out_axes[a]] = true;
            uint64_t f = 1;
            for (unsigned a = 0; a < p->tensors[t].rank; a++) {
                unsigned i = op->in_axes[k][a];
                if (((op->in_fixed[k] >> a) & 1) || i >= op->nidx || seen[i] || in_out[i])
                    continue;
                seen[i] = true;
                f *= op->idx_size[i];
            }
            if (f > 1) {
                *fan_in = f;
                return;
            }
        }
    }
}

static double clip_limit(const ez_plan_tensor *t)
{
    return ldexp((double)((UINT64_C(1) << (t->bits - 1)) - 1), -(int)t->scale);
}

static float draw(gen_rng *r, double mean, double sd, double lim)
{
    double v = mean + sd * rng_gauss(r);
    v = v > lim ? lim : v < -lim ? -lim : v;
    return (float)v;
}

int ez_cli_run_gen(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    const char *model = args->operand, *wpath = args->value[O_WEIGHTS], *ipath = args->value[O_INPUT];
    uint64_t seed = 0;
    if (!ez_cli_uint(args, O_SEED, 0, 0, UINT64_MAX, &seed))
        return EZ_EXIT_USAGE;

    ez_diag d = {{0}};
    ez_plan plan;
    rc = EZ_EXIT_OK;
    size_t nw = 0;
    const char **names = NULL;
    unsigned *ranks = NULL;
    const uint64_t **dims = NULL;
    float **data = NULL;
    json_t *inputs = NULL;
    ez_status st = ez_cli_plan_load(&plan, model, EZ_CLI_PLAN_READ, &d);
    if (st != EZ_OK)
        goto fail;
    names = ez_alloc_array(plan.ntensors + 1, sizeof *names);
    ranks = ez_alloc_array(plan.ntensors + 1, sizeof *ranks);
    dims = ez_alloc_array(plan.ntensors + 1, sizeof *dims);
    data = ez_alloc_array(plan.ntensors + 1, sizeof *data);
    inputs = json_object();
    st = EZ_ERR_NOMEM;
    if (!names || !ranks || !dims || !data || !inputs)
        goto fail;
    for (size_t i = 0; i < plan.ntensors; i++) {
        const ez_plan_tensor *t = &plan.tensors[i];
        uint64_t n = ez_plan_tensor_numel(t);
        gen_rng r = rng_for(seed, t->name);
        if (t->kind == EZ_TENSOR_WEIGHT) {
            float *v = ez_alloc_array(n ? n : 1, sizeof *v);
            if (v == NULL)
                goto fail;
            names[nw] = t->name, ranks[nw] = t->rank, dims[nw] = t->dims, data[nw++] = v;
            uint64_t fan_in;
            bool gather;
            weight_use(&plan, (unsigned)i, &fan_in, &gather);
            double mean = 0, sd = 1;
            if (fan_in > 0)
                sd = 1.0 / sqrt((double)fan_in);
            else if (gather)
                sd = 1.0;
            else if (starts(t->source_name, "g") || starts(t->source_name, "ln"))
                mean = 1.0, sd = 0.05; /* g*, gamma*, ln*: layernorm gains */
            else if (starts(t->source_name, "b"))
                sd = 0.02; /* b*, beta*: biases */
            double lim = clip_limit(t);
            for (uint64_t e = 0; e < n; e++)
                v[e] = draw(&r, mean, sd, lim);
        } else if (t->kind == EZ_TENSOR_INPUT || t->kind == EZ_TENSOR_TOKENS) {
            json_t *o = json_object(), *arr = json_array();
            if (!o || !arr) {
                json_decref(o), json_decref(arr);
                goto fail;
            }
            double lim = clip_limit(t);
            for (uint64_t e = 0; e < n; e++) {
                if (t->kind == EZ_TENSOR_TOKENS)
                    json_array_append_new(arr, json_integer((json_int_t)(rng_next(&r) % (uint64_t)t->token_limit)));
                else
                    json_array_append_new(arr, json_real((double)draw(&r, 0, 1, lim)));
            }
            if (!ez_tensorio_json_set_shape(o, t->dims, t->rank, "data", arr)) {
                json_decref(o);
                goto fail;
            }
            json_object_set_new(inputs, t->source_name, o);
        }
    }
    if ((st = ez_safetensors_write(wpath, nw, names, ranks, dims, (const float *const *)data, &d)) != EZ_OK)
        goto fail;
    if (json_dump_file(inputs, ipath, JSON_COMPACT | JSON_REAL_PRECISION(9)) != 0) {
        ez_diag_set(&d, "cannot write '%s'", ipath);
        st = EZ_ERR_IO;
        goto fail;
    }
    fprintf(stderr, "einzk gen: %zu weight tensors -> %s, inputs -> %s (seed %" PRIu64 ")\n", nw, wpath,
            ipath, seed);
    goto out;
fail:
    rc = ez_cli_error("gen", st, &d);
out:
    for (size_t i = 0; data && i < nw; i++)
        free(data[i]);
    free(data);
    free(names);
    free(ranks);
    free(dims);
    json_decref(inputs);
    ez_plan_clear(&plan);
    return rc;
}

/* fuzz_json — libFuzzer harness for the JSON input reader and the output writer.
 *
 * Properties: for ANY bytes, ez_inputs_parse either refuses them with EZ_ERR_INPUT and
 * a message naming the file, or yields values of the declared sizes with tokens in
 * range; and when it accepts, writing the values with ez_outputs_write and reading
 * them back gives the same doubles bit for bit.
 *
 * Built like fuzz_safetensors.c: -DEZ_LIBFUZZER for libFuzzer, otherwise
 * `fuzz_json FILE...` replays files. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/io/tensorio.h"
#include "tests/fuzz/replay.h"

/* A fixed set of inputs: a matrix, tokens, a scalar and an empty tensor. */
static const ez_tensor_spec specs[] = {
    {.name = "x", .rank = 2, .dims = {2, 3}},
    {.name = "tok", .rank = 1, .dims = {4}, .is_token = true, .token_limit = 50},
    {.name = "s", .rank = 0},
    {.name = "e", .rank = 2, .dims = {2, 0}},
};
#define NSPEC (sizeof specs / sizeof specs[0])

/* One input; true iff the reader accepted it. */
static bool run_one(const uint8_t *data, size_t size)
{
    ez_tensor_value v[NSPEC], back[NSPEC];
    ez_diag d = {{0}};
    ez_status s = ez_inputs_parse(data, size, "fuzz.json", specs, NSPEC, v, &d);
    if (s != EZ_OK) {
        if (s != EZ_ERR_NOMEM && (s != EZ_ERR_INPUT || strncmp(d.msg, "fuzz.json:", 10) != 0))
            abort();
        for (size_t i = 0; i < NSPEC; i++)
            if (v[i].f || v[i].tok)
                abort(); /* nothing may be left behind on failure */
        return false;
    }
    const double *dv[NSPEC];
    double *tokd = NULL;
    for (size_t i = 0; i < NSPEC; i++) {
        uint64_t numel;
        if (!ez_tensor_spec_numel(&specs[i], &numel) || v[i].numel != numel)
            abort();
        if (specs[i].is_token) {
            tokd = malloc((size_t)numel * sizeof *tokd + 1);
            if (tokd == NULL)
                abort();
            for (uint64_t k = 0; k < numel; k++) {
                if (v[i].tok[k] < 0 || v[i].tok[k] >= specs[i].token_limit)
                    abort();
                tokd[k] = (double)v[i].tok[k];
            }
            dv[i] = tokd;
        } else {
            for (uint64_t k = 0; k < numel; k++)
                if (!isfinite(v[i].f[k]))
                    abort();
            dv[i] = v[i].f;
        }
    }
    /* write as outputs (treating tokens as floats), read back, compare */
    ez_tensor_spec as_float[NSPEC];
    memcpy(as_float, specs, sizeof specs);
    for (size_t i = 0; i < NSPEC; i++)
        as_float[i].is_token = false;
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (f == NULL)
        abort();
    s = ez_outputs_write(f, as_float, NSPEC, dv, &d);
    fclose(f);
    if (s != EZ_OK)
        abort();
    if (ez_inputs_parse((const uint8_t *)text, tlen, "rt.json", as_float, NSPEC, back, &d) != EZ_OK)
        abort();
    for (size_t i = 0; i < NSPEC; i++)
        for (uint64_t k = 0; k < back[i].numel; k++)
            if (memcmp(&back[i].f[k], &dv[i][k], sizeof(double)) != 0)
                abort();
    ez_tensor_values_clear(back, NSPEC);
    free(text);
    free(tokd);
    ez_tensor_values_clear(v, NSPEC);
    return true;
}

EZ_FUZZ_HARNESS("fuzz_json", run_one)

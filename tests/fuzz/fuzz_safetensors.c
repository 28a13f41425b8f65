/* fuzz_safetensors — libFuzzer harness for the safetensors reader.
 *
 * Property: for ANY bytes, ez_safetensors_parse either refuses them with a message
 * naming the file, or yields tensors whose data lies inside the buffer and whose
 * conversion, lookup and model check run without crashing (run under ASan+UBSan).
 *
 * Built two ways (docs/formats-io.md):
 *   clang -fsanitize=fuzzer,address,undefined -DEZ_LIBFUZZER ...   a real fuzzer
 *   the default build (make check)       `fuzz_safetensors FILE...` replays files */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/io/safetensors.h"
#include "tests/fuzz/replay.h"

/* A fixed model for ez_safetensors_check: exercises missing/shape/extra paths. */
static const ez_tensor_spec specs[] = {
    {.name = "a", .rank = 2, .dims = {2, 2}},
    {.name = "bb", .rank = 1, .dims = {2}},
};

/* One input; true iff the reader accepted it. */
static bool run_one(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (copy == NULL)
        return false;
    if (size)
        memcpy(copy, data, size);
    ez_safetensors st;
    ez_diag d = {{0}};
    ez_status s = ez_safetensors_parse(&st, copy, size, "fuzz.safetensors", &d);
    if (s != EZ_OK) {
        /* every refusal names the file */
        if (strncmp(d.msg, "fuzz.safetensors: ", 18) != 0 && s != EZ_ERR_NOMEM)
            abort();
        return false;
    }
    for (size_t i = 0; i < st.n; i++) {
        const ez_st_tensor *t = &st.tensors[i];
        /* validated invariants: the range lies inside the buffer and matches the shape */
        if (t->data < st.bytes || t->nbytes > st.len ||
            (size_t)(t->data - st.bytes) > st.len - t->nbytes ||
            t->nbytes != t->numel * ez_st_dtype_size(t->dtype) || t->rank > EZ_MAX_RANK)
            abort();
        if (ez_safetensors_find(&st, t->name) != t)
            abort();
        double *out = malloc((size_t)t->numel * sizeof *out + 1);
        if (out) {
            (void)ez_st_tensor_to_f64(t, out, &d);
            free(out);
        }
    }
    (void)ez_safetensors_check(&st, specs, sizeof specs / sizeof specs[0], &d);
    ez_safetensors_free(&st);
    return true;
}

EZ_FUZZ_HARNESS("fuzz_safetensors", run_one)

/* tensorio — the runtime's JSON files: model inputs in, model outputs out.
 *
 * This module does not know the compiled plan. A caller describes what it expects
 * with ez_tensor_spec records (name, declared shape, token-ness) and gets values back
 * as doubles (ordinary inputs, quantized later by runtime/quant.h) or int64 (token
 * inputs, used as public gather indices). The same spec type describes weights for
 * ez_safetensors_check (runtime/safetensors.h).
 *
 * Input file (docs/formats-io.md): one JSON object whose keys are exactly the declared
 * input names; each value is either nested arrays in the declared shape
 *     {"x": [[0.5, 1], [2, -3.25]]}
 * or the flat form with row-major data
 *     {"x": {"shape": [2, 2], "data": [0.5, 1, 2, -3.25]}}
 * A rank-0 input is a bare number (nested form) or {"shape": [], "data": [v]}.
 * Output file: {"name": {"shape": [...], "data": [...]}, ...} in the callers' order.
 *
 * Every failure caused by the file is EZ_ERR_INPUT (or EZ_ERR_IO when it cannot be
 * read) with a diag that names the file, the input and the offending index, e.g.
 *     in.json: input 'x': row 3 has 63 entries, expected 64 */
#ifndef EZ_RUNTIME_TENSORIO_H
#define EZ_RUNTIME_TENSORIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/util.h"

/* Largest tensor rank any einzk file format accepts. */
#define EZ_MAX_RANK 8

/* What the caller expects of one named tensor. dims[0..rank-1] are the declared
 * extents, outermost first (row-major); rank 0 is a scalar. token_limit matters only
 * when is_token: token values must lie in [0, token_limit). */
typedef struct {
    const char *name;
    unsigned rank;
    uint64_t dims[EZ_MAX_RANK];
    bool is_token;
    int64_t token_limit;
} ez_tensor_spec;

/* One loaded input, row-major, numel = product of the spec's dims (1 for rank 0).
 * Exactly one of f (ordinary input) and tok (token input) is non-NULL after a
 * successful load; both are heap-owned by the value. */
typedef struct {
    uint64_t numel;
    double *f;
    int64_t *tok;
} ez_tensor_value;

/* Free the arrays of vals[0..n-1] and zero them. vals may be NULL when n == 0. */
void ez_tensor_values_clear(ez_tensor_value *vals, size_t n);

/* Product of spec->dims (1 for rank 0) into *out. False if the rank exceeds
 * EZ_MAX_RANK or the product overflows uint64. */
bool ez_tensor_spec_numel(const ez_tensor_spec *spec, uint64_t *out);

/* Format "name[d0, d1, ...]" (or "name" for rank 0) into buf (always terminated,
 * truncated to cap). For diagnostics. */
void ez_tensor_spec_format(char *buf, size_t cap, const ez_tensor_spec *spec);

/* "[v0, v1, ...]" of v[0..n) into buf (always terminated, truncated to cap): a shape or
 * a multi-index in a diagnostic. */
void ez_tensorio_format_list(char *buf, size_t cap, const uint64_t *v, unsigned n);
/* "[i0, i1, ...]": the multi-index of flat row-major position pos in a tensor of shape
 * dims[0..rank) ("[]" for rank 0; rank <= EZ_MAX_RANK). For diagnostics. */
void ez_tensorio_format_index(char *buf, size_t cap, uint64_t pos, const uint64_t *dims, unsigned rank);

/* What a JSON value is, for messages: "an object", "an array", "a string", "an integer",
 * "a real number", "a boolean" or "null". */
struct json_t;
const char *ez_tensorio_json_kind(const struct json_t *v);
/* A new JSON array of dims[0..rank) (a shape as every einzk JSON file writes it), or
 * NULL when memory runs out. */
struct json_t *ez_tensorio_json_dims(const uint64_t *dims, unsigned rank);
/* A tensor's entry in every einzk JSON file and the safetensors header: set e["shape"]
 * to dims[0..rank) and then e[key] to value (after whatever keys e already holds), taking
 * value's reference in every case. False when e or value is NULL or memory runs out
 * (e is the caller's to free either way). */
bool ez_tensorio_json_set_shape(struct json_t *e, const uint64_t *dims, unsigned rank, const char *key,
                                struct json_t *value);

/* Copy a tensor name into buf for a diagnostic: control bytes become '?', and a name
 * longer than fits (or than 64 bytes) is cut at a UTF-8 boundary and ends in "...".
 * Names come from untrusted files, so messages never echo them raw. cap >= 4. */
void ez_tensorio_quote_name(char *buf, size_t cap, const char *name);

/* Load a JSON input file.
 * In:  specs[0..n-1], names unique and non-NULL; for token specs token_limit >= 1.
 * Out: out[i] holds the values of specs[i] (caller provides n zeroed or garbage slots;
 *      on failure every out[i] is left empty, nothing to free).
 * Errors: EZ_ERR_IO (unreadable), EZ_ERR_INPUT (bad JSON, missing or unknown names,
 *      shape mismatch, ragged arrays, non-numbers, reals where tokens are expected,
 *      tokens out of range), EZ_ERR_NOMEM, EZ_ERR_INVALID (bad specs).
 * Integers given for ordinary inputs are converted to double (exactly up to 2^53).
 * Cost: one pass over the file, O(file size) memory for the jansson tree. */
ez_status ez_inputs_load(const char *path, const ez_tensor_spec *specs, size_t n,
                         ez_tensor_value *out, ez_diag *d);

/* As ez_inputs_load on bytes[0..len) already in memory (len may be 0; bytes need not
 * be NUL-terminated); `path` is used only in messages. Does not take ownership. */
ez_status ez_inputs_parse(const uint8_t *bytes, size_t len, const char *path,
                          const ez_tensor_spec *specs, size_t n, ez_tensor_value *out,
                          ez_diag *d);

/* Write outputs as {"name": {"shape": [...], "data": [...]}, ...} followed by a
 * newline, names in the order given.
 * In:  specs[0..n-1] give names and shapes; data[i] has numel(specs[i]) finite
 *      doubles, row-major. is_token: integers (token ids, argmax indices), written as
 *      JSON integers so an output file is a valid input file.
 * Reals are printed with 17 significant digits (jansson's default), so every double
 * reads back bit-for-bit; dequantized values k / 2^s print exactly.
 * Errors: EZ_ERR_INVALID (non-finite value, duplicate name, bad spec), EZ_ERR_NOMEM,
 *      EZ_ERR_IO (write failed). The diag names the output. */
ez_status ez_outputs_write(FILE *f, const ez_tensor_spec *specs, size_t n,
                           const double *const *data, ez_diag *d);

/* ez_outputs_write into a new file at path (EZ_ERR_IO names the path). */
ez_status ez_outputs_save(const char *path, const ez_tensor_spec *specs, size_t n,
                          const double *const *data, ez_diag *d);

#endif

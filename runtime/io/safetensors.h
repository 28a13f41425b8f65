/* safetensors — read and validate weight files, convert their tensors to double,
 * and write F32 files (for `einzk gen`).
 *
 * File layout (Hugging Face safetensors; docs/formats-io.md):
 *     u64 little-endian N | N bytes of JSON header | data area (rest of the file)
 * The header is a JSON object; each key except "__metadata__" names a tensor:
 *     {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
 * with offsets relative to the first byte of the data area; "__metadata__", when
 * present, maps strings to strings. Values are little-endian, row-major.
 *
 * Parsing treats the file as hostile. It accepts a file only if: N <= 100 MiB and
 * 8 + N <= file length; the header is valid UTF-8 JSON whose top level is an object
 * without duplicate keys; every tensor entry is an object with exactly the keys
 * dtype/shape/data_offsets; dtype is one of the known names; shape is an array of at
 * most EZ_MAX_RANK non-negative integers; data_offsets is [begin, end] with
 * begin <= end <= data area length; product(shape) * dtype size == end - begin
 * (computed without overflow); and no two tensors' byte ranges overlap. Gaps between
 * ranges and unused trailing bytes are allowed (some writers align tensor data).
 * Any violation is EZ_ERR_FORMAT with a diag "FILE: tensor 'x': <field>: <problem>"
 * (or "FILE: header: ..." for problems not tied to one tensor). */
#ifndef EZ_RUNTIME_SAFETENSORS_H
#define EZ_RUNTIME_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"
#include "runtime/io/tensorio.h"

/* Header lengths above this are refused before anything is allocated. */
#define EZ_SAFETENSORS_MAX_HEADER ((uint64_t)100 << 20)

typedef enum {
    EZ_ST_F64,
    EZ_ST_F32,
    EZ_ST_F16,
    EZ_ST_BF16,
    EZ_ST_F8_E5M2,
    EZ_ST_F8_E4M3, /* the "fn" variant: no infinities, only S.1111.111 is NaN */
    EZ_ST_I64,
    EZ_ST_I32,
    EZ_ST_I16,
    EZ_ST_I8,
    EZ_ST_U64,
    EZ_ST_U32,
    EZ_ST_U16,
    EZ_ST_U8,
    EZ_ST_BOOL
} ez_st_dtype;

/* The safetensors spelling of a dtype ("F32", "BF16", ...) and its element size in
 * bytes. */
const char *ez_st_dtype_name(ez_st_dtype t);
size_t ez_st_dtype_size(ez_st_dtype t);

/* One validated tensor. data points into the owning ez_safetensors' bytes (possibly
 * unaligned) and has exactly nbytes = numel * dtype size bytes. path is the owner's
 * file name, kept for messages. */
typedef struct {
    char *name;
    ez_st_dtype dtype;
    unsigned rank;
    uint64_t dims[EZ_MAX_RANK];
    uint64_t numel;
    const uint8_t *data;
    size_t nbytes;
    const char *path;
} ez_st_tensor;

/* A parsed file: the bytes it owns and its tensors sorted by name (strcmp order). */
typedef struct {
    uint8_t *bytes;
    size_t len;
    char *path;
    ez_st_tensor *tensors;
    size_t n;
} ez_safetensors;

/* Parse and validate a whole file held in memory.
 * In:  bytes[0..len) from malloc (may be NULL when len == 0); TAKES OWNERSHIP of bytes
 *      in every case (freed on failure, held by *out on success). path_for_messages
 *      is copied and used only in diagnostics (NULL means "<memory>").
 * Out: *out is filled on EZ_OK; on failure it is left empty (ez_safetensors_free is
 *      still safe to call).
 * Errors: EZ_ERR_FORMAT (see the file comment), EZ_ERR_NOMEM.
 * Cost: O(header size + number of tensors * log) — tensor data is not touched. */
ez_status ez_safetensors_parse(ez_safetensors *out, uint8_t *bytes, size_t len,
                               const char *path_for_messages, ez_diag *d);

/* Read the file at path and parse it. EZ_ERR_IO (naming path) if it cannot be read. */
ez_status ez_safetensors_load(ez_safetensors *out, const char *path, ez_diag *d);

/* Release everything *st owns and zero it. st may be NULL or already freed/empty. */
void ez_safetensors_free(ez_safetensors *st);

/* The tensor called name, or NULL. O(log n). */
const ez_st_tensor *ez_safetensors_find(const ez_safetensors *st, const char *name);

/* Check the file against what the model declares.
 * In:  specs[0..n-1] with unique names (is_token ignored).
 * Errors: EZ_ERR_INPUT when a declared tensor is missing, has a different rank or
 *      extents, or when the file holds tensors the model does not declare (the diag
 *      names them, up to what fits). EZ_ERR_INVALID for bad specs.
 * Cost: O(n log st->n + st->n). */
ez_status ez_safetensors_check(const ez_safetensors *st, const ez_tensor_spec *specs,
                               size_t n, ez_diag *d);

/* Convert every element of t to double, row-major, into out[0..t->numel).
 * Exact for every dtype: floats widen exactly (F16/BF16/F8 by bit manipulation,
 * subnormals, signed zeros, infinities and NaN preserved); BOOL gives 0 or 1;
 * integers are exact when |v| <= 2^53.
 * Errors: EZ_ERR_NUMERIC when an I64/U64 element is not exactly representable (the
 *      diag names file, tensor, multi-index and value); EZ_ERR_FORMAT for a BOOL byte
 *      other than 0 or 1. Out is then partially written.
 * Non-finite values are converted, not rejected: quantization rejects them with a
 * better message. Cost: O(numel); parallel over elements. */
ez_status ez_st_tensor_to_f64(const ez_st_tensor *t, double *out, ez_diag *d);

/* Serialize F32 tensors into a safetensors image appended to w.
 * In:  names[i] unique, non-empty, not "__metadata__"; ranks[i] <= EZ_MAX_RANK;
 *      dims[i][0..ranks[i]) extents; data[i] has product(dims[i]) floats (may be NULL
 *      when that product is 0). Tensors are laid out in the order given; the header is
 *      padded with spaces to a multiple of 8 so each tensor's data is 4-aligned in the
 *      file.
 * Errors: EZ_ERR_INVALID (bad names, ranks, sizes), EZ_ERR_NOMEM. On failure w may
 *      hold a partial image. */
ez_status ez_safetensors_serialize(ez_writer *w, size_t n, const char *const *names,
                                   const unsigned *ranks, const uint64_t *const *dims,
                                   const float *const *data, ez_diag *d);

/* ez_safetensors_serialize into a new file at path (EZ_ERR_IO names the path). */
ez_status ez_safetensors_write(const char *path, size_t n, const char *const *names,
                               const unsigned *ranks, const uint64_t *const *dims,
                               const float *const *data, ez_diag *d);

/* Bit-exact scalar conversions, exposed for tests and for callers that stream. */
double ez_f16_to_f64(uint16_t h);
double ez_bf16_to_f64(uint16_t b);
double ez_f8e4m3_to_f64(uint8_t b);
double ez_f8e5m2_to_f64(uint8_t b);

#endif

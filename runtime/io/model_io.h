/* exec_io — a trace's data from and to files: weights (safetensors) and inputs (JSON)
 * quantized into a trace, dequantized outputs out. Shared by `einzk run` and
 * `einzk prove` so both read models the same way. Uses the runtime's readers
 * (runtime/safetensors.h, runtime/tensorio.h) and quantizer (runtime/quant.h). */
#ifndef EZ_RUNTIME_EXEC_IO_H
#define EZ_RUNTIME_EXEC_IO_H

#include <stdio.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/exec/exec.h"
#include "runtime/exec/floatref.h"
#include "runtime/io/safetensors.h"
#include "runtime/io/tensorio.h"

/* Load every WEIGHT of p from the safetensors file and every INPUT/TOKENS tensor from
 * the JSON file, quantize them at their tensors' scale and width, and set them in tr.
 * In:  tr initialised for p; ft NULL or initialised for p (then it gets the real,
 *      unquantized values too, for the float reference).
 * Errors: EZ_ERR_IO (unreadable file), EZ_ERR_FORMAT (malformed safetensors),
 *      EZ_ERR_INPUT (missing/extra names, wrong shapes, bad JSON, tokens out of range),
 *      EZ_ERR_NUMERIC (a value that does not fit its width at its scale; the diag names
 *      the tensor, the multi-index and the value), EZ_ERR_NOMEM.
 * Cost: O(file sizes + model parameters). */
ez_status ez_exec_load(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, const char *weights_path,
                       const char *input_path, ez_diag *d);

/* As ez_exec_load for the weights only / the inputs only (either path may be used
 * alone, e.g. a prover with committed weights). */
ez_status ez_exec_load_weights(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, const char *path,
                               ez_diag *d);
ez_status ez_exec_load_inputs(ez_trace *tr, ez_ftrace *ft, const ez_plan *p, const char *path,
                              ez_diag *d);

/* The spec the file readers check plan tensor t against, under `name`: rank, dims, token
 * or real, token limit. */
void ez_exec_tensor_spec(ez_tensor_spec *s, const ez_plan_tensor *t, const char *name);

/* Load the safetensors file at path into *sf and check that it holds every WEIGHT of p (by
 * name, with its shape), not yet quantized (ez_safetensors_free, also after an error).
 * Errors as ez_exec_load_weights' reading. */
ez_status ez_exec_read_weights(ez_safetensors *sf, const ez_plan *p, const char *path, ez_diag *d);

/* A plan's inputs as read from a file, not quantized: vals[j] holds plan tensor ids[j]. */
typedef struct {
    size_t n;
    size_t *ids;
    ez_tensor_value *vals;
} ez_exec_inputs;

/* Read the JSON input file at path for p's INPUT and TOKENS tensors (by source name, in
 * plan order) into *in (ez_exec_inputs_clear, also after an error). Errors as
 * ez_exec_load_inputs' reading. */
ez_status ez_exec_read_inputs(ez_exec_inputs *in, const ez_plan *p, const char *path, ez_diag *d);
void ez_exec_inputs_clear(ez_exec_inputs *in);

/* The integers input j of in (ez_exec_read_inputs for p) puts in a trace, the one rule
 * for the loader and for `verify --input`: a TOKENS tensor's ids as read, an INPUT
 * tensor's reals quantized at its scale and width (errors name it "input 'name'"). *q: a
 * new array of in->vals[j].numel entries (free it); NULL after an error. */
ez_status ez_exec_input_ints(int64_t **q, const ez_plan *p, const ez_exec_inputs *in, size_t j, ez_diag *d);

/* Write the outputs of p (tensors with is_output, in tensor order, named by their
 * source name) dequantized, as {"name": {"shape": [...], "data": [...]}} to f, or to
 * the file at path when path is non-NULL. Errors: EZ_ERR_IO, EZ_ERR_NOMEM. */
ez_status ez_exec_write_outputs(FILE *f, const char *path, const ez_plan *p, const ez_trace *tr,
                                ez_diag *d);

#endif

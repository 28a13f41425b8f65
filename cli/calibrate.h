/* calibrate — choosing `scale` and widths from sample data (`einzk calibrate`,
 * docs/cli.md). The method, in three steps:
 *   measure   the float reference (runtime/exec/floatref.h) of the model on every sample
 *             gives each tensor's largest |value|;
 *   widths    at a scale s, a tensor of scale t (s, or its @scale) whose values reach m
 *             needs bitlen(ceil(m 2^t)) + 1 signed bits, plus a margin of one bit for
 *             inputs and computed tensors (other data than the samples); weights need
 *             none (their values are known). A definition gets the widest of the ops it
 *             compiles to (argmax excepted: its width is the index's), a declaration its
 *             tensor's; the default `bits` is the widest of all;
 *   evaluate  the model annotated so is compiled (the compiler's bounds and field-margin
 *             checks decide whether the scale is feasible), its proof's committed advice
 *             counted (runtime/prove/layout.h), and every sample run in integers and
 *             compared with the float reference as `run --compare-float` does: the worst
 *             relative error of any op (max abs error / max |float|), and the share of
 *             argmax positions that agree. */
#ifndef EZ_CLI_CALIBRATE_H
#define EZ_CLI_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "cli/annotate.h"
#include "cli/args.h"
#include "compiler/plan.h"
#include "lib/util.h"

/* The samples and what the float reference makes of them, for plans of one source
 * (compiled at any scale: the same tensors in the same order). */
typedef struct {
    size_t ntensors, nsamples;
    double *maxabs;   /* per tensor: max |value| over the samples */
    double **w;       /* per tensor: a weight's values (NULL for the others) */
    double **in;      /* [sample * ntensors + tensor]: an input's values, token ids as doubles */
} ez_calib_data;

/* Load the weights and the n sample inputs for plan p (the float values, not quantized)
 * and run the float reference on every sample. Errors: those of the readers (EZ_ERR_IO,
 * EZ_ERR_FORMAT, EZ_ERR_INPUT with the file named), EZ_ERR_NOMEM. */
ez_status ez_calib_measure(ez_calib_data *m, const ez_plan *p, const char *weights, const char *const *inputs,
                           size_t n, ez_diag *d);
void ez_calib_data_clear(ez_calib_data *m);

/* The widths at default scale `scale` for p0, the source compiled at that scale (its
 * tensors' scales are what the widths are for). EZ_ERR_NUMERIC when a tensor would need
 * more than 62 bits (named in d). Clear with ez_calib_widths_clear. */
ez_status ez_calib_widths(ez_cli_widths *w, const ez_plan *p0, const ez_calib_data *m, unsigned scale, ez_diag *d);
void ez_calib_widths_clear(ez_cli_widths *w);

/* Compile source text quietly (no printing): front end with the overrides, plan,
 * schedule, and with `sound` the field-margin checks; the digest. path names the file
 * in messages and gives the model name when the source has none. EZ_ERR_SOURCE (the
 * first error's message in d), EZ_ERR_NUMERIC (a relation could wrap), EZ_ERR_NOMEM.
 * Clear plan with ez_plan_clear (also after a failure). */
ez_status ez_calib_compile(ez_plan *plan, const char *path, const char *text, size_t len, const ez_cli_defines *defs,
                           bool sound, ez_diag *d);

typedef struct {
    double rel;              /* worst relative error of any op but argmax, over the samples */
    size_t worst_op;         /* its op */
    bool has_argmax;         /* the model has argmax ops */
    double argmax_agree;     /* share of their positions equal to the float's (1 without) */
    uint64_t advice_elems;   /* the proof's committed advice (field elements) */
    uint64_t walk_bytes;     /* its sumcheck walk */
} ez_calib_eval;

/* Fidelity and cost of plan p on the samples of m. Errors: EZ_ERR_NUMERIC (a sample does
 * not fit: quantization or an op's width; d names it), EZ_ERR_NOMEM. */
ez_status ez_calib_evaluate(ez_calib_eval *e, const ez_plan *p, const ez_calib_data *m, ez_diag *d);

#endif

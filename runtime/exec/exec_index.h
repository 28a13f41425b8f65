/* exec_index — index-space bookkeeping shared by the integer executor (runtime/exec*.c)
 * and the float reference (runtime/floatref.c). Internal to the runtime.
 *
 * An op works over nidx named indices (compiler/plan.h). A tensor bound to the op
 * through an axis list gets a *stride per index*: stride[i] = sum of the row-major
 * strides of the tensor's axes that name index i (0 when the tensor lacks index i;
 * a repeated index — a diagonal — adds its axes' strides). Offsets of a tensor element
 * for an index tuple are then sum_i coord[i] * stride[i]. */
#ifndef EZ_RUNTIME_EXEC_INDEX_H
#define EZ_RUNTIME_EXEC_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"

#define EZ_EXEC_OUT (-1)

/* Per-index strides and presence of operand k of op (k = EZ_EXEC_OUT: the result).
 * Axes fixed at a position (op->in_fixed, a layer slice) take no index; their
 * position times their stride goes to *base (the element offset of the slice), so
 * element offsets are base + sum_i coord[i] * stride[i]. Axis 0 of a GATHER table
 * (the gathered axis) is skipped too. present may be NULL. */
void ez_exec_strides(const ez_plan *p, const ez_plan_op *op, int k, int64_t stride[EZ_MAX_IDX],
                     bool present[EZ_MAX_IDX], int64_t *base);

/* Offsets of a group of indices grp[0..ng) (row-major over the group, grp[0] slowest)
 * under per-index strides: off[g] = sum_j coord_j(g) * stride[grp[j]].
 * Out: *out = new array of count = prod size[grp[j]] entries (1 for ng == 0), free().
 * Errors: EZ_ERR_NOMEM. Cost: O(count). */
ez_status ez_exec_group_offsets(int64_t **out, const uint64_t *size, const unsigned *grp,
                                unsigned ng, const int64_t *stride);

/* Rows of a reduction over index `axis`: the output's index tuples without `axis`,
 * row-major in output order (docs/semantics.md "rows"). */
typedef struct {
    uint64_t nrows, len;      /* rows; entries per row (= size of axis) */
    int64_t *in_off;          /* nrows: offset of the row's entry 0 in the input */
    int64_t *out_off;         /* nrows: same in the output (axis coordinate 0) */
    int64_t in_step, out_step; /* strides along axis (out_step 0 if the output lacks it) */
    /* masking (want_mask): per row the coordinate of index mask_row / mask_col, or -1
     * when that index is `axis` itself (then the entry's own coordinate is used). */
    int64_t *mrow, *mcol;
} ez_exec_rows;

/* Build the rows of op (operand 0 -> output, reduced index op->axis).
 * Errors: EZ_ERR_INVALID when operand 0 has an index the output lacks (other than
 * axis), or the output has one operand 0 lacks; EZ_ERR_NOMEM. Cost: O(nrows). */
ez_status ez_exec_rows_init(ez_exec_rows *r, const ez_plan *p, const ez_plan_op *op,
                            bool want_mask, ez_diag *d);
void ez_exec_rows_clear(ez_exec_rows *r);

/* Is entry j of row `row` masked (causal: coordinate of mask_col > that of mask_row)? */
static inline bool ez_exec_rows_masked(const ez_exec_rows *r, uint64_t row, int64_t j)
{
    int64_t ci = r->mcol[row] < 0 ? j : r->mcol[row];
    int64_t ri = r->mrow[row] < 0 ? j : r->mrow[row];
    return ci > ri;
}

/* For every output element (row-major) the offset of the corresponding element of
 * operand k under op's index space (the operand's indices must all be output indices).
 * Out: *out new array of numel(out tensor) entries. Errors: EZ_ERR_INVALID, NOMEM. */
ez_status ez_exec_elem_offsets(int64_t **out, const ez_plan *p, const ez_plan_op *op,
                               unsigned k, ez_diag *d);

/* Coordinates of every index for output element `flat` of op (indices not in the
 * output get 0). */
void ez_exec_out_coords(const ez_plan *p, const ez_plan_op *op, uint64_t flat,
                        uint64_t coord[EZ_MAX_IDX]);

/* The docs/protocol.md classes of a contraction's indices, grouped for the matrix kernel:
 * batch b (A, B, out), free-A m, free-B n (in output-axis order, so tiles store along
 * the output's rows), contracted k (in A's axis order), summed-A sa, summed-B sb and
 * broadcast r (out only). One operand: b, n, k, sb are empty. B..R are the groups'
 * sizes (products of index sizes; 1 for an empty group). */
typedef struct {
    unsigned b[EZ_MAX_IDX], m[EZ_MAX_IDX], n[EZ_MAX_IDX], k[EZ_MAX_IDX];
    unsigned sa[EZ_MAX_IDX], sb[EZ_MAX_IDX], r[EZ_MAX_IDX];
    unsigned nb, nm, nn, nk, nsa, nsb, nr;
    uint64_t B, M, N, K, SA, SB, R;
} ez_exec_groups;

/* Classify op's indices from the presence flags of A, B (all false for one operand)
 * and the output (ez_exec_strides). */
void ez_exec_classify(const ez_plan *p, const ez_plan_op *op, const bool *pa, const bool *pb,
                      const bool *po, ez_exec_groups *g);

#endif

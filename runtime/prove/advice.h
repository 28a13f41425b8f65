/* advice — the committed advice of a proof: its deterministic LAYOUT, derived from the
 * plan alone (prover and verifier call the same function), and its VALUES, filled by
 * the prover from the integer trace (docs/protocol.md §5 "The claim flow", "Lookups"; the whole
 * protocol is in docs/protocol.md §3).
 *
 * The layout has four lists and the tables:
 *   values   quantities committed in 16-bit limbs (a rescale remainder, the high part of
 *            a wide quotient): (src + offset) >> shift = sum_i 2^(16 i) limb_i, every
 *            limb looked up in the range table, so the value is in [0, 2^bits);
 *   polys    the committed polynomials: one per limb of a value, one per lookup table
 *            for its multiplicities, and the ops' own (stacked into ONE PCS commitment,
 *            lib/pcs.h);
 *   columns  the looked-up columns, each a linear form coef * atom + sum xcoef * xatom +
 *            cst * [x < len] of atoms — advice polynomials or plan tensors (DESIGN:
 *            "atoms"); usually one atom; a VIRTUAL column (the low 16 bits of a wide
 *            quotient) has extra atoms, which is how a tensor is tied to the committed
 *            part that range-checks it — checked to lie in [0, 2^bits) by the range
 *            table's region of that width;
 *   tuples   rows looked up in a FUNCTION table: (input, output) pairs of atoms, e.g.
 *            softmax's (l, e_lo) in its exp table; the input may be a virtual column
 *            (a linear form of atoms, as a range column's);
 *   tables   the range table (one region per limb width) and one function table per
 *            (function, scales) the model uses — shared by every op that looks it up, so
 *            the verifier pays each table once per proof, not once per op.
 *
 * Tensor-shaped data use the PADDED LAYOUT of a tensor (advice, columns and the weight
 * commitment alike): an array of ez_advice_padlen(t) = d_1 * prod_{a>=2} 2^ceil(log2 d_a)
 * entries, entry (i_1..i_k) at sum_a i_a prod_{b>a} 2^ceil(log2 d_b). Its zero-extended
 * MLE over ceil(log2 padlen) variables IS the tensor's MLE of the project convention
 * (per-axis zero padding), so a claim on a tensor and a claim on its padded array are
 * the same claim. Entries of the layout that are not real elements ("padding") are 0
 * for the tensor itself and `offset` for a value with an offset (a quotient's limbs
 * encode 0 + 2^(bits-1) there), so the limb relation holds on every entry.
 *
 * Ownership: ez_advice_layout owns its arrays (ez_advice_layout_clear). Nothing here
 * prints. */
#ifndef EZ_RUNTIME_ADVICE_H
#define EZ_RUNTIME_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/pcs.h"
#include "lib/util.h"
#include "runtime/exec/exec.h"
#include "runtime/prove/lookup.h"

#define EZ_ADV_LIMB_BITS 16u
#define EZ_ADV_MAX_LIMBS 4u      /* values up to 64 bits */
#define EZ_ADV_MAX_TABLES 16u   /* the range table and up to 15 function tables */
/* Largest padded layout the prover supports (the PCS caps a commitment at 2^40). */
#define EZ_ADV_MAX_PADLEN (UINT64_C(1) << 40)

/* Where a committed value's entries come from (prover side). */
typedef enum {
    EZ_ADV_SRC_TENSOR = 0, /* the values of plan tensor `tensor` */
    EZ_ADV_SRC_AUX = 1     /* the aux array `aux` of op `op`, one entry per element of `tensor` */
} ez_adv_src;

/* A quantity committed in 16-bit limbs: for every entry x of the padded layout of
 * `tensor`, value(x) = floor((src(x) + offset) / 2^shift) = sum_{i < nlimbs} 2^(16 i)
 * limb_i(x). shift = 16 is the HIGH part of a wide tensor whose low 16 bits are a virtual
 * lookup column (ez_rc_check_tensor). */
typedef struct {
    ez_adv_src src;
    unsigned op;          /* the op that owns it */
    unsigned tensor;      /* shape; for EZ_ADV_SRC_TENSOR also the values */
    ez_aux_kind aux;      /* EZ_ADV_SRC_AUX */
    int64_t offset;
    unsigned shift;       /* 0 or 16 */
    unsigned bits;        /* value in [0, 2^bits), 1 <= bits <= 64 */
    unsigned nlimbs;      /* ceil(bits / 16) */
    size_t first_poly;    /* limb i is polys[first_poly + i] */
} ez_adv_value;

/* A SUPPORT (lib/pcs.h ez_pcs_support): a poly with one is the MLE of its nv-variable
 * cube, zero outside the disjoint subcubes `pieces`, and its committed entries are the
 * pieces' one after another (piece j from entry off[j], 2^bits[j] entries, by increasing
 * free bits). A tensor's support (ez_advice_support_tensor) is the product of the binary
 * pieces of its axes' extents: exactly its real entries, no padding committed, looked
 * up or range-checked. */
typedef struct {
    unsigned nv;
    size_t npieces;
    ez_pcs_piece *pieces;
    uint64_t *off;        /* npieces + 1 */
    unsigned *bits;       /* npieces */
    unsigned tensor;      /* the tensor whose shape made it (EZ_ADV_NO_TENSOR: an op's own) */
    bool live;            /* the LIVE support of `tensor` (an einsum's output with the plan's
                             live mark, compiler/plan.h): found for that tensor only */
} ez_adv_support;
#define EZ_ADV_NO_TENSOR UINT32_MAX
/* Most pieces a support may have (more: the tensor keeps its padded layout). */
#define EZ_ADV_MAX_PIECES 4096u

/* One committed polynomial (a vector of len base-field entries). */
typedef struct {
    uint64_t len;
    long value;           /* index into values (a limb), or -1: multiplicities of `table` */
    unsigned limb;
    unsigned table;
    unsigned op;          /* EZ_ADV_POLY_OP: the owning op */
    long support;         /* index into the layout's supports, or -1: a plain vector */
} ez_adv_poly;
#define EZ_ADV_POLY_OP (-2L) /* value of an op-owned poly (filled by the op's fill) */

/* An atom: an advice polynomial or a plan tensor (its padded-layout MLE). */
typedef struct {
    bool is_tensor;
    size_t id;
} ez_atom;

/* A looked-up column: coef * atom + sum_i xcoef[i] * xatom[i] + cst * [x < len], len =
 * the atoms' length, checked in [0, 2^bits) (one row per entry in the region of that
 * width of the range table). The extra atoms (nx of them, usually none) make a VIRTUAL
 * column: at its lookup point the prover sends their values and the verifier derives
 * the main atom's (docs/protocol.md §4). */
typedef struct {
    unsigned table;
    unsigned op;          /* the op that registered it (for messages) */
    uint64_t len;
    size_t sup;           /* 0: the atoms' whole length; k >= 1: piece `piece` of support
                             k - 1 of its atoms (len = the piece's size) */
    size_t piece;
    ez_atom atom;
    ez_fe coef;           /* nonzero */
    ez_fe cst;
    unsigned bits;        /* 1..16, a width of the table (ez_advice_range_table) */
    unsigned nx;
    ez_atom xatom[EZ_ADV_MAX_LIMBS];
    ez_fe xcoef[EZ_ADV_MAX_LIMBS];
} ez_lookup_col;

/* A row looked up in function table `table`: atom[w] is column w of the row (w = 0 the
 * table's input, 1 its output), both of length len. With nx > 0 the input column is
 * VIRTUAL, coef * atom[0] + sum_e xcoef[e] * xatom[e] (the extra atoms advice polys of the
 * same entries; coef nonzero): nothing is committed for it, and at its lookup point the
 * prover sends the extra atoms' values and the verifier derives atom[0]'s (FUNC's
 * x' - 2^16 h, docs/protocol-elementwise.md §2.2). With nx = 0, coef is not read. */
typedef struct {
    unsigned table;
    unsigned op;          /* the op that registered it */
    uint64_t len;
    size_t sup;           /* as ez_lookup_col's */
    size_t piece;
    ez_atom atom[EZ_LOOKUP_FUNC_WIDTH];
    ez_fe coef;
    unsigned nx;
    ez_atom xatom[EZ_ADV_MAX_LIMBS];
    ez_fe xcoef[EZ_ADV_MAX_LIMBS];
} ez_lookup_tuple;

/* A lookup table. RANGES: the range table, one region [0, 2^w) per width w used by some
 * column (lib/logup.h EZ_TABLE_RANGES), widths strictly decreasing once the layout is
 * built; its multiplicity poly has sum_k 2^rbits[k] entries. FUNC: the 2^16 rows
 * (input, output) of one table of runtime/exec/tables.h, identified by (fkind, func,
 * in_scale, out_scale); its multiplicity poly has 2^16 entries. */
#define EZ_ADV_MAX_RANGES 16u
typedef enum { EZ_LOOKUP_RANGES = 0, EZ_LOOKUP_FUNC = 1 } ez_lookup_table_kind;
typedef struct {
    ez_lookup_table_kind kind;
    unsigned nranges;
    unsigned rbits[EZ_ADV_MAX_RANGES];
    unsigned pairs;       /* RANGES: widths whose columns are looked up two rows per leaf
                             (bit w; lib/logup.h pair regions, 2^(2w) rows more each) */
    ez_fn_table_kind fkind;
    ez_func func;
    unsigned in_scale, out_scale;
} ez_lookup_table_desc;

typedef struct {
    size_t nvalues, npolys, ncols, ntuples, ntables, nsupports;
    ez_adv_value *values;
    ez_adv_poly *polys;
    ez_lookup_col *cols;
    ez_lookup_tuple *tuples;
    ez_adv_support *supports;
    ez_lookup_table_desc tables[EZ_ADV_MAX_TABLES];
    long *op_rem;         /* per op: the value index of its rescale remainder, or -1 */
    size_t nops;
    size_t caps[5];       /* allocation capacities (values, polys, cols, tuples, supports) */
} ez_advice_layout;

/* ---- padded layout of a tensor --------------------------------------------------------- */

/* d_1 * prod_{a>=2} 2^ceil(log2 d_a) (1 for rank 0); saturates at UINT64_MAX. */
uint64_t ez_advice_padlen(const ez_plan_tensor *t);

/* True iff some axis after the first has an extent that is not a power of two, i.e. the
 * padded layout has padding entries before its last real element. */
bool ez_advice_interior_padding(const ez_plan_tensor *t);

/* Strides of the padded layout: stride[a] = prod_{b>a} 2^ceil(log2 d_b). */
void ez_advice_strides(const ez_plan_tensor *t, uint64_t stride[EZ_MAX_RANK]);

/* dst[0..padlen) := the padded layout of src (numel real entries, row-major) with every
 * entry (padding included) increased by `add`: real entries fe(src) + add, padding add.
 * dst must not alias src. O(padlen), OpenMP. */
void ez_advice_pad_i64(ez_fe *dst, const int64_t *src, const ez_plan_tensor *t, ez_fe add);

/* The MLE of tensor t (values src, real extents) at point (ez_claim_tensor_nvars coords),
 * straight from the integers (one eq table per axis, no copy of src). Returns EZ_OK. */
ez_status ez_advice_tensor_eval(ez_fe2 *out, const int64_t *src, const ez_plan_tensor *t, const ez_fe2 *point);

/* ---- supports ------------------------------------------------------------------------- */

/* The support of tensor t's entries (the binary pieces of every axis extent, in axis
 * order, each axis' pieces largest first), added to L if new: *idx = its index, or -1
 * when t needs none (no interior padding: a plain vector of padlen entries) or would
 * need more than EZ_ADV_MAX_PIECES pieces. A tensor with a live support in L
 * (ez_advice_live_support) gets that one. EZ_OK or EZ_ERR_NOMEM. */
ez_status ez_advice_support_tensor(ez_advice_layout *L, const ez_plan *p, unsigned tensor, long *idx);

/* Add an op's own support (pieces copied; sizes derived): *idx its index. EZ_OK,
 * EZ_ERR_INVALID (nv > 48, a piece beyond nv bits), EZ_ERR_NOMEM. */
ez_status ez_advice_add_support(ez_advice_layout *L, unsigned nv, const ez_pcs_piece *pieces, size_t npieces,
                                long *idx);

/* The live support of tensor t in L (an op's support marked live for t by its producer's
 * layout, runtime/ops/einsum.c), or -1. O(supports). */
long ez_advice_live_support(const ez_advice_layout *L, unsigned tensor);

/* A copy of tensor t's values (src, row-major real entries) that is ZERO outside support
 * s (a support over t's cube): the tensor restricted to s, whose MLE the claims on a
 * tensor with a live support are about. Allocated (free it); NULL on EZ_ERR_NOMEM.
 * O(numel + support), OpenMP. */
int64_t *ez_advice_restrict_i64(const int64_t *src, const ez_plan_tensor *t, const ez_adv_support *s);

/* Entries of a support (sum of its pieces' sizes). */
uint64_t ez_advice_support_len(const ez_adv_support *s);

/* The cube index of entry k of piece j (k < 2^bits[j]): its free bits deposited. */
static inline uint64_t ez_advice_piece_index(const ez_adv_support *s, size_t j, uint64_t k)
{
    uint64_t free = ~s->pieces[j].mask & ((UINT64_C(1) << s->nv) - 1), x = s->pieces[j].val;
#if defined(__BMI2__)
    return x | __builtin_ia32_pdep_di(k, free);
#else
    for (uint64_t b = 1; free; b <<= 1) {
        uint64_t low = free & -free;
        if (k & b)
            x |= low;
        free ^= low;
    }
    return x;
#endif
}

/* The point over nv cube coordinates of a claim on piece j at `pt` (bits[j] coordinates,
 * the piece's free variables in order): the fixed variables set to the piece's bits. */
void ez_advice_piece_point(const ez_adv_support *s, size_t j, const ez_fe2 *pt, ez_fe2 *out);

/* The MLE at z (nv coordinates) of the support's indicator: sum over pieces of eq over
 * the bits each fixes. O(npieces nv). */
ez_fe2 ez_advice_support_indicator(const ez_adv_support *s, const ez_fe2 *z);

/* Gather tensor t's values (src, row-major real entries) at piece j of support s (a
 * support over t's cube) into dst[0 .. 2^bits[j]) as field elements plus add; a padding
 * entry of the piece (a live support's diagonal block may hold some) reads 0 plus add. */
void ez_advice_gather_piece(ez_fe *dst, const int64_t *src, const ez_plan_tensor *t, const ez_adv_support *s, size_t j,
                            ez_fe add);

/* Compact a padded-layout array (padlen = the cube prefix) into the support order: dst
 * gets ez_advice_support_len(s) entries. */
void ez_advice_compact(ez_fe *dst, const ez_fe *padded, const ez_adv_support *s);

/* The inverse of a support's order: pos[x] = the committed entry of cube index x, or
 * EZ_ADV_NOT_COMMITTED outside the support, for x < n (n <= 2^nv; x >= n is not
 * stored). Allocated (free it); NULL on EZ_ERR_NOMEM. O(n), OpenMP. */
#define EZ_ADV_NOT_COMMITTED UINT64_MAX
uint64_t *ez_advice_support_pos(const ez_adv_support *s, uint64_t n);

/* The variables of poly q's MLE (its support's nv, or ceil(log2 len)). */
unsigned ez_advice_poly_nvars(const ez_advice_layout *L, size_t q);

/* Prover: the MLE of poly q (entries data) at z (ez_advice_poly_nvars coordinates). */
ez_fe2 ez_advice_poly_eval(const ez_advice_layout *L, size_t q, const ez_fe *data, const ez_fe2 *z);

/* The lib/pcs.h supports of every poly (npolys entries; nv = 0 for plain ones), pointing
 * into L (valid while L lives); *out NULL when no poly has one. EZ_OK, EZ_ERR_NOMEM. */
ez_status ez_advice_pcs_supports(const ez_advice_layout *L, ez_pcs_support **out);

/* ---- the layout ------------------------------------------------------------------------ */

void ez_advice_layout_init(ez_advice_layout *L);
void ez_advice_layout_clear(ez_advice_layout *L);

/* Whether tensor t is committed on its support (ez_advice_support_tensor: interior
 * padding and at most EZ_ADV_MAX_PIECES pieces) rather than its padded layout. */
bool ez_advice_tensor_supported(const ez_plan_tensor *t);

/* TESTING ONLY: lower the piece cap to n (0: back to EZ_ADV_MAX_PIECES), so a test model
 * of a few entries takes the padded-layout path (the padding zero-check of a weight,
 * docs/protocol.md §6.4) that only tensors of more than 4096 pieces take otherwise.
 * Prover and verifier of one process read the same cap. */
void ez_advice_testing_max_pieces(size_t n);

/* Lengths of the weight polys, plan order: a weight's numel when it is committed on its
 * support, else its padded layout. *n gets the count (0 for a model without weights;
 * lens may then be NULL). */
ez_status ez_weights_lens(const ez_plan *p, uint64_t **lens, size_t *n);

/* The supports of the weight polys (one entry per WEIGHT tensor, plan order; nv = 0 for
 * one committed plain), kept in *scratch (init it; clear it after use). *out NULL when
 * no weight has one. EZ_OK, EZ_ERR_NOMEM. */
ez_status ez_weights_supports(const ez_plan *p, ez_advice_layout *scratch, ez_pcs_support **out);

/* Start a layout for p: op_rem of every op set to -1. EZ_OK or EZ_ERR_NOMEM. */
ez_status ez_advice_layout_start(ez_advice_layout *L, const ez_plan *p);

/* Finish a layout: one multiplicity poly per table that has columns. */
ez_status ez_advice_finish_tables(ez_advice_layout *L);

/* Builders (used by the per-op layout functions, runtime/rangecheck.c). Each returns
 * EZ_OK or EZ_ERR_NOMEM and writes the new element's index to *idx (may be NULL);
 * ez_advice_add_tuple also EZ_ERR_INVALID for a virtual input column with more than
 * EZ_ADV_MAX_LIMBS extra atoms, a zero coef or a tensor among them. */
ez_status ez_advice_add_value(ez_advice_layout *L, const ez_adv_value *v, const ez_plan *p, size_t *idx);
ez_status ez_advice_add_col(ez_advice_layout *L, const ez_lookup_col *c, size_t *idx);
ez_status ez_advice_add_tuple(ez_advice_layout *L, const ez_lookup_tuple *t, size_t *idx);
/* An op-owned committed poly of len entries; its entries come from the op's fill. */
ez_status ez_advice_add_poly(ez_advice_layout *L, uint64_t len, unsigned op, size_t *idx);
/* The range table (its index), with a region of `bits` bits (1..16) added if new; a
 * column of that width sets .table = *idx and .bits = bits. */
ez_status ez_advice_range_table(ez_advice_layout *L, unsigned bits, unsigned *idx);

/* The function table (fkind, func, in_scale, out_scale) (its index), added if new; a
 * tuple looked up in it sets .table = *idx. The rsqrt table has one set of rows for every
 * scale and softmax's exp table one per input scale: their other scales are ignored. */
ez_status ez_advice_func_table(ez_advice_layout *L, ez_fn_table_kind fkind, ez_func func, unsigned in_scale,
                               unsigned out_scale, unsigned *idx);

/* Multiplicity-poly length of table t: sum of 2^rbits over its regions (RANGES), 2^16
 * (FUNC). */
uint64_t ez_advice_table_rows(const ez_lookup_table_desc *t);

/* The multiplicity poly of table `table` (L->npolys if there is none). */
size_t ez_advice_table_poly(const ez_advice_layout *L, unsigned table);

/* The length of an atom (advice poly len, or the tensor's padlen). */
uint64_t ez_advice_atom_len(const ez_advice_layout *L, const ez_plan *p, ez_atom a);

/* ---- values (prover) ----------------------------------------------------------------- */

/* Fill every limb polynomial from the trace: polys[i] (allocated here, polys[i]->len
 * entries) for every poly of a value; multiplicity polys are left NULL (the prover fills
 * them after computing the columns).
 * In:  tr — an executed trace of p; unchecked — testing only: a value outside
 *      [0, 2^bits) is split anyway (low limbs from its canonical representative, the top
 *      limb absorbing the rest in the field), producing a proof the verifier rejects.
 * Out: polys[0..npolys) (caller frees each with free(), and the array).
 * Returns EZ_OK, EZ_ERR_NUMERIC (checked mode: d names the op, tensor, element and
 *      value), EZ_ERR_INVALID (aux array missing or of the wrong length), EZ_ERR_NOMEM. */
ez_status ez_advice_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, bool unchecked,
                         ez_fe **polys, ez_diag *d);

#endif

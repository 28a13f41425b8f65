/* builtins — the operator table (builtins.h) and the bound rule of every op.
 * The rules are exact (GMP); docs/language.md "Bounds" states them in words. */
#include "compiler/builtins.h"

#include <math.h>
#include <string.h>

/* ---- bound helpers -------------------------------------------------------------------- */

void ez_bound_clamp_width(mpz_t r, unsigned bits)
{
    mpz_t w;
    mpz_init(w);
    mpz_setbit(w, bits - 1);
    if (mpz_cmp(r, w) > 0)
        mpz_set(r, w);
    mpz_clear(w);
}

void ez_bound_move_scale(mpz_t r, mpz_srcptr b, unsigned from, unsigned to)
{
    /* one unit of rounding slack: a floor moves a value by less than one unit */
    if (to >= from)
        mpz_mul_2exp(r, b, to - from);
    else
        mpz_cdiv_q_2exp(r, b, from - to);
    mpz_add_ui(r, r, 1);
}

/* r = min(2^(bits-1), ceil(2^x) + 1) for a real exponent x. */
static void pow2_real(mpz_t r, double x, unsigned bits)
{
    if (!(x < (double)bits - 1)) {
        mpz_set_ui(r, 0);
        mpz_setbit(r, bits - 1);
        return;
    }
    if (x < 0)
        x = 0;
    mpz_set_d(r, ceil(exp2(x)));
    mpz_add_ui(r, r, 1);
    ez_bound_clamp_width(r, bits);
}


/* A rescaled result (shift > 0) is range-checked to its width (docs/protocol.md), so its bound
 * is min(2^(bits-1), ceil(raw / 2^shift)): floor(v / 2^k) for |v| <= B lies in
 * [-ceil(B / 2^k), floor(B / 2^k)]. Without a shift the result is the accumulator. */
static void rescaled(const ez_bound_args *a, mpz_srcptr raw, mpz_t bound)
{
    if (a->shift > 0) {
        mpz_cdiv_q_2exp(bound, raw, a->shift);
        ez_bound_clamp_width(bound, a->out_bits);
    } else {
        mpz_set(bound, raw);
    }
}

bool ez_bound_exceeds_width(mpz_srcptr b, unsigned bits)
{
    /* |v| <= b fits [-2^(bits-1), 2^(bits-1)) for every v iff b <= 2^(bits-1) - 1 */
    return mpz_sizeinbase(b, 2) >= bits;
}

double ez_bound_log2(mpz_srcptr b)
{
    if (mpz_cmp_ui(b, 1) <= 0)
        return 0;
    long e;
    double d = mpz_get_d_2exp(&e, b); /* b = d * 2^e, d in [0.5, 1) */
    return (double)e + log2(d);
}

/* ---- bound rules ------------------------------------------------------------------------ */

/* |mul| * prod_k bound_k * (extent summed over) */
static void bound_einsum(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set_si(raw, a->mul);
    mpz_abs(raw, raw);
    for (unsigned k = 0; k < a->nin; k++)
        mpz_mul(raw, raw, a->in_bound[k]);
    mpz_mul_ui(raw, raw, a->summed);
    rescaled(a, raw, bound);
}

/* sum_k |coef_k| * bound_k; a sum whose bound exceeds its width is range-checked to it
 * (a residual stream: runtime/ops/add.c), so the bound resets there. */
static void bound_add(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set_ui(raw, 0);
    for (unsigned k = 0; k < a->nin; k++) {
        mpz_t t;
        mpz_init_set_si(t, a->coef[k]);
        mpz_abs(t, t);
        mpz_addmul(raw, t, a->in_bound[k]);
        mpz_clear(t);
    }
    rescaled(a, raw, bound);
    ez_bound_clamp_width(bound, a->out_bits);
}

/* the operand's values, unchanged (gather copies table rows; causal, max keep the scale) */
static void bound_same(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    mpz_set(bound, a->in_bound[0]);
}

/* relu moves the operand to the result's scale (exact or floor) */
static void bound_moved(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    if (a->out_scale == a->in_scale[0])
        mpz_set(bound, a->in_bound[0]);
    else
        ez_bound_move_scale(bound, a->in_bound[0], a->in_scale[0], a->out_scale);
}

static void bound_argmax(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    mpz_set_ui(bound, a->axis_len - 1);
}

/* p in [0, 2^s]. Inside (docs/semantics.md): exponentials e <= 2^16 (the exp table's
 * scale), their row sum <= len * 2^16, and e * 2^s before the division. */
static void bound_softmax(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set_ui(bound, 0);
    mpz_setbit(bound, a->out_scale);
    mpz_set_ui(raw, a->axis_len);
    mpz_mul_2exp(raw, raw, 16);
    mpz_t es;
    mpz_init(es);
    mpz_setbit(es, 16 + a->out_scale);
    if (mpz_cmp(es, raw) > 0)
        mpz_set(raw, es);
    mpz_clear(es);
}

/* |y_i| <= sqrt(len) for a normalised row. The largest intermediate is the sum of squares
 * of the (centred) row: at most len * B^2 for rmsnorm, and for layernorm, centred on the
 * floor of the mean, len * (B^2 + 1) (the floor moves the centre by less than 1:
 * sum (x - mu)^2 = sum (x - m)^2 + len (m - mu)^2 <= len * B^2 + len). */
static void bound_norm(const ez_bound_args *a, mpz_t raw, mpz_t bound, bool centred)
{
    mpz_set_ui(bound, a->axis_len);
    mpz_mul_2exp(bound, bound, 2 * a->out_scale);
    mpz_sqrt(bound, bound);
    mpz_add_ui(bound, bound, 2);
    ez_bound_clamp_width(bound, a->out_bits);
    mpz_mul(raw, a->in_bound[0], a->in_bound[0]);
    if (centred)
        mpz_add_ui(raw, raw, 1);
    mpz_mul_ui(raw, raw, a->axis_len);
}

static void bound_layernorm(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    bound_norm(a, raw, bound, true);
}

static void bound_rmsnorm(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    bound_norm(a, raw, bound, false);
}

/* |x * Phi(x)| and |x * sigma(x)| are at most |x|: the operand moved to the result's scale */
static void bound_gelu_like(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    ez_bound_move_scale(bound, a->in_bound[0], a->in_scale[0], a->out_scale);
    ez_bound_clamp_width(bound, a->out_bits);
}

/* sigmoid, tanh: at most 1 */
static void bound_unit(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    mpz_set_ui(bound, 0);
    mpz_setbit(bound, a->out_scale);
    ez_bound_clamp_width(bound, a->out_bits);
}

/* exp(X) with X = B / 2^s_in the largest input */
static void bound_exp(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    double X = exp2(ez_bound_log2(a->in_bound[0]) - (double)a->in_scale[0]);
    pow2_real(bound, X * M_LOG2E + (double)a->out_scale, a->out_bits);
}

/* RoPE: |C| + |S| <= sqrt(2) 2^16 + 1 for the rounded cos/sin at scale 16, so the
 * accumulator x C -+ x' S is at most B (floor(sqrt(2) 2^16) + 2); rescaled by the op's
 * shift (range-checked to the width). */
#define EZ_ROPE_COEF_SUM 92683u
static void bound_rope(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_mul_ui(raw, a->in_bound[0], EZ_ROPE_COEF_SUM);
    rescaled(a, raw, bound);
}

/* the smallest positive input is 2^-s_in, so 1/sqrt is at most 2^(s_in/2) */
static void bound_rsqrt(const ez_bound_args *a, mpz_t raw, mpz_t bound)
{
    mpz_set(raw, a->in_bound[0]);
    pow2_real(bound, (double)a->in_scale[0] / 2.0 + (double)a->out_scale, a->out_bits);
}

/* ---- the ops' own plan rules (the row's `check`) -------------------------------------- */

/* RoPE pairs e with e + E/2, and its accumulator x C -+ x' S has the operand's scale + 16:
 * an even rotary extent and the shift that brings it to the result's scale. */
static ez_status check_rope(const ez_plan_op *op, size_t i, ez_diag *d)
{
    if (op->idx_size[op->mask_col] % 2 != 0 || op->in_scale + EZ_ROPE_SCALE <= op->out_scale ||
        op->shift != op->in_scale + EZ_ROPE_SCALE - op->out_scale) {
        ez_diag_set(d, "op %zu (rope): an odd rotary extent, or a shift other than in + %d - out", i, EZ_ROPE_SCALE);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

/* A fused causal mask masks the keys the softmax reduces over. */
static ez_status check_softmax(const ez_plan_op *op, size_t i, ez_diag *d)
{
    if (op->masked && op->mask_col != op->axis) {
        ez_diag_set(d, "op %zu: a masked softmax must reduce over the mask column", i);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

/* ---- the table ------------------------------------------------------------------------- */

#define ANY_SCALE 62u
#define FUNC_ROW(nm, fn, bnd, sum, zero)                                                                         \
    {EZ_OP_FUNC, nm, fn, 1, 1, 0, false, false, EZ_SCALE_TARGET, ANY_SCALE, ANY_SCALE, bnd, EZ_SCHED_POINTWISE, 0, \
     true, sum, zero, false, NULL}

static const ez_builtin table[] = {
    /* kind, name, func, min_in, max_in, naxes, drops_axis, fuses_causal, scale rule,
     * max in/out scale, bound, schedule, degree, provable, summary, keeps_zero, rescales,
     * check */
    {EZ_OP_EINSUM, NULL, EZ_FN_NONE, 1, 2, 0, false, false, EZ_SCALE_TARGET, ANY_SCALE, ANY_SCALE, bound_einsum,
     EZ_SCHED_CONTRACTION, 0, true, "a product of one or two tensors, summed over the indices not kept", false, true,
     NULL},
    {EZ_OP_ADD, NULL, EZ_FN_NONE, 2, EZ_MAX_OPERANDS, 0, false, false, EZ_SCALE_TARGET, ANY_SCALE, ANY_SCALE,
     bound_add, EZ_SCHED_CONTRACTION, 0, true, "a sum of terms, broadcast by index name", false, true, NULL},
    {EZ_OP_GATHER, NULL, EZ_FN_NONE, 2, 2, 0, false, false, EZ_SCALE_OPERAND, ANY_SCALE, ANY_SCALE, bound_same,
     EZ_SCHED_CONTRACTION, 0, true, "rows of a table picked by public token ids", false, false, NULL},
    {EZ_OP_CAUSAL, "causal", EZ_FN_NONE, 1, 1, 2, false, false, EZ_SCALE_OPERAND, ANY_SCALE, ANY_SCALE, bound_same,
     EZ_SCHED_ROWCHECK, 3, true, "causal[i, j](e): entries with j > i are 0", false, false, NULL},
    {EZ_OP_SOFTMAX, "softmax", EZ_FN_NONE, 1, 1, 1, false, true, EZ_SCALE_TARGET, ANY_SCALE, 44, bound_softmax,
     EZ_SCHED_ROWCHECK, 4, true, "softmax[i](e): exact integer softmax along i", false, false, check_softmax},
    {EZ_OP_MAX, "max", EZ_FN_NONE, 1, 1, 1, true, false, EZ_SCALE_OPERAND, ANY_SCALE, ANY_SCALE, bound_same,
     EZ_SCHED_ROWCHECK, 3, true, "max[i](e): the maximum along i", false, false, NULL},
    {EZ_OP_ARGMAX, "argmax", EZ_FN_NONE, 1, 1, 1, true, false, EZ_SCALE_INDEX, ANY_SCALE, 0, bound_argmax,
     EZ_SCHED_ROWCHECK, 3, true, "argmax[i](e): the lowest index of the maximum along i", false, false, NULL},
    {EZ_OP_LAYERNORM, "layernorm", EZ_FN_NONE, 1, 1, 1, false, false, EZ_SCALE_TARGET, 31, 40, bound_layernorm,
     EZ_SCHED_ROWCHECK, 4, true, "layernorm[i](e): (e - mean) / sqrt(var + 1e-5) along i", false, false, NULL},
    {EZ_OP_RMSNORM, "rmsnorm", EZ_FN_NONE, 1, 1, 1, false, false, EZ_SCALE_TARGET, 31, 40, bound_rmsnorm,
     EZ_SCHED_ROWCHECK, 4, true, "rmsnorm[i](e): e / sqrt(mean(e^2) + 1e-5) along i", false, false, NULL},
    {EZ_OP_RELU, "relu", EZ_FN_NONE, 1, 1, 0, false, false, EZ_SCALE_OPERAND, ANY_SCALE, ANY_SCALE, bound_moved,
     EZ_SCHED_ROWCHECK, 3, true, "relu(e) = max(e, 0), exactly", true, false, NULL},
    {EZ_OP_RSQRT, "rsqrt", EZ_FN_NONE, 1, 1, 0, false, false, EZ_SCALE_TARGET, 31, 40, bound_rsqrt,
     EZ_SCHED_ROWCHECK, 4, true, "rsqrt(e) = 1 / sqrt(e) (0 for e <= 0)", false, false, NULL},
    {EZ_OP_ROPE, "rope", EZ_FN_NONE, 1, 1, 2, false, false, EZ_SCALE_TARGET, ANY_SCALE, ANY_SCALE, bound_rope,
     EZ_SCHED_POINTWISE, 0, true, "rope[s, e](x): rotary position embedding along e at the positions s", false, true,
     check_rope},
    FUNC_ROW("gelu", EZ_FN_GELU, bound_gelu_like, "gelu(e): x * Phi(x), the exact GELU", true),
    FUNC_ROW("gelu_tanh", EZ_FN_GELU_TANH, bound_gelu_like, "gelu_tanh(e): GPT-2's tanh form of GELU", true),
    FUNC_ROW("silu", EZ_FN_SILU, bound_gelu_like, "silu(e) = x * sigmoid(x)", true),
    FUNC_ROW("sigmoid", EZ_FN_SIGMOID, bound_unit, "sigmoid(e) = 1 / (1 + exp(-x))", false),
    FUNC_ROW("tanh", EZ_FN_TANH, bound_unit, "tanh(e)", true),
    FUNC_ROW("exp", EZ_FN_EXP, bound_exp, "exp(e), clamped at the table's last row", false),
};

#define NROWS (sizeof table / sizeof table[0])

const ez_builtin *ez_builtin_table(size_t *n)
{
    *n = NROWS;
    return table;
}

const ez_builtin *ez_builtin_by_name(const char *name)
{
    for (size_t i = 0; i < NROWS; i++)
        if (table[i].name && strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

const ez_builtin *ez_builtin_of(ez_op_kind kind, ez_func func)
{
    for (size_t i = 0; i < NROWS; i++)
        if (table[i].kind == kind && (kind != EZ_OP_FUNC || table[i].func == func))
            return kind == EZ_OP_FUNC || func == EZ_FN_NONE ? &table[i] : NULL;
    return NULL;
}

const char *ez_builtin_list(void)
{
    return "softmax[i], causal[i, j], max[i], argmax[i], layernorm[i], rmsnorm[i], rope[s, e], relu, rsqrt, gelu, "
           "gelu_tanh, silu, sigmoid, tanh and exp";
}

void ez_builtin_op_bound(const ez_plan *p, const ez_plan_op *op, mpz_srcptr const *in_bound, mpz_t raw,
                         mpz_t bound)
{
    const ez_builtin *b = ez_builtin_of(op->kind, op->func);
    const ez_plan_tensor *out = &p->tensors[op->out];
    ez_bound_args a;
    memset(&a, 0, sizeof a);
    a.nin = op->nin;
    for (unsigned k = 0; k < op->nin; k++) {
        a.in_bound[k] = in_bound[k];
        a.in_scale[k] = p->tensors[op->in[k]].scale;
        a.coef[k] = op->coef[k];
    }
    a.out_scale = out->scale;
    a.out_bits = out->bits;
    a.func = op->func;
    a.axis_len = b && b->naxes == 1 ? op->idx_size[op->axis] : 1;
    a.mul = op->mul;
    a.shift = op->shift;
    /* the extent summed over: indices of the operands that the result lacks */
    a.summed = 1;
    if (op->kind == EZ_OP_EINSUM)
        for (unsigned x = 0; x < op->nidx; x++) {
            bool in_out = false, in_op = false;
            for (unsigned i = 0; i < out->rank; i++)
                in_out |= op->out_axes[i] == x;
            for (unsigned k = 0; k < op->nin; k++)
                for (unsigned i = 0; i < p->tensors[op->in[k]].rank; i++)
                    in_op |= !((op->in_fixed[k] >> i) & 1) && op->in_axes[k][i] == x;
            if (in_op && !in_out)
                a.summed *= op->idx_size[x];
        }
    if (b == NULL) {
        mpz_set_ui(raw, 0);
        mpz_setbit(raw, 64); /* an invalid op: a bound no plan may hold */
        mpz_set(bound, raw);
        return;
    }
    b->bound(&a, raw, bound);
}

/* mle — see mle.h. Conventions: docs/protocol-kernel-sumcheck.md §2. */
#include "config.h"

#include "lib/mle.h"

#include "lib/fe2_vec.h"

#include <stdlib.h>
#include <string.h>

/* Below this many entries a loop runs on one thread: forking costs more than it saves. */
#define EZ_MLE_PAR_MIN 16384
/* An eq table of at least this many entries is built by 2^EZ_EQ_SPLIT_BITS blocks in
 * parallel (one multiply per entry: 4096 of them outweigh a fork and join). */
#define EZ_EQ_PAR_MIN 4096
#define EZ_EQ_SPLIT_BITS 4
/* Evaluation works on leaves of 2^EZ_MLE_LEAF_BITS entries with one shared eq table of
 * the low variables (16 KiB of stack). */
#define EZ_MLE_LEAF_BITS 10

void ez_eq_table(ez_fe2 *out, const ez_fe2 *r, unsigned n)
{
    ez_eq_table_scaled(out, r, n, ez_fe2_one());
}

/* The doubling build of eq(r, .) * s into out[0 .. 2^n): add variables from the least
 * significant (n-1) up to 0; each new variable becomes the top bit of the table built so
 * far, so the step out[h + i] = out[i] * r_j, out[i] -= out[h + i] is in place. One
 * multiply per new entry (eight at a time on lanes, lib/fe2_vec.h). Serial. */
static void eq_build(ez_fe2 *out, const ez_fe2 *r, unsigned n, ez_fe2 s)
{
    out[0] = s;
    for (unsigned jj = n; jj-- > 0;) {
        size_t h = (size_t)1 << (n - 1 - jj);
        ez_fe2_eq_split(out, out + h, h, r[jj]);
    }
}

void ez_eq_table_scaled(ez_fe2 *out, const ez_fe2 *r, unsigned n, ez_fe2 s)
{
    if (((size_t)1 << n) < EZ_EQ_PAR_MIN) {
        eq_build(out, r, n, s);
        return;
    }
    /* eq(r, (c, y)) = eq(r_top, c) eq(r_low, y): the blocks of the top EZ_EQ_SPLIT_BITS
     * variables are built from their scales independently, in one parallel region (not
     * one per variable): the walk's tables, 2^12 to 2^14 entries, go parallel too. */
    ez_fe2 top[1u << EZ_EQ_SPLIT_BITS];
    eq_build(top, r, EZ_EQ_SPLIT_BITS, s);
    const unsigned low = n - EZ_EQ_SPLIT_BITS;
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < ((size_t)1 << EZ_EQ_SPLIT_BITS); c++)
        eq_build(out + (c << low), r + EZ_EQ_SPLIT_BITS, low, top[c]);
}

ez_fe2 ez_eq_eval(const ez_fe2 *a, const ez_fe2 *b, unsigned n)
{
    ez_fe2 acc = ez_fe2_one();
    for (unsigned i = 0; i < n; i++)
        acc = ez_fe2_mul(acc, ez_eq1(a[i], b[i]));
    return acc;
}

ez_fe2 ez_eq_bool(const ez_fe2 *r, unsigned n, uint64_t idx)
{
    ez_fe2 one = ez_fe2_one(), acc = one;
    for (unsigned j = 0; j < n; j++)
        acc = ez_fe2_mul(acc, ((idx >> (n - 1 - j)) & 1) ? r[j] : ez_fe2_sub(one, r[j]));
    return acc;
}

/* ---- evaluation ------------------------------------------------------------------
 * f(r) = (1 - r_0) f_lo(r') + r_0 f_hi(r') recursively over the top variables; the
 * bottom EZ_MLE_LEAF_BITS variables are a dot product with one shared eq table. The
 * zero padding beyond len is never touched: a missing upper half contributes 0. */

static ez_fe2 dot_fe2(const ez_fe2 *t, size_t len, const ez_fe2 *eq)
{
    ez_fe2 acc = ez_fe2_zero();
    for (size_t i = 0; i < len; i++)
        acc = ez_fe2_add(acc, ez_fe2_mul(eq[i], t[i]));
    return acc;
}

/* The table (len entries from offset off of tb, base, or te, extension: exactly one is
 * set; offsets are the same for both, so the recursion is written once) over m top
 * variables r[0..m-1] and `leaf` low variables whose eq table is eq. */
static ez_fe2 eval_rec(const ez_fe *tb, const ez_fe2 *te, size_t off, size_t len, const ez_fe2 *r, unsigned m,
                       unsigned leaf, const ez_fe2 *eq)
{
    if (len == 0)
        return ez_fe2_zero();
    if (m == 0)
        return tb ? ez_fe2_dot_base(eq, tb + off, len) : dot_fe2(te + off, len, eq);
    size_t half = (size_t)1 << (m - 1 + leaf);
    ez_fe2 lo = eval_rec(tb, te, off, len < half ? len : half, r + 1, m - 1, leaf, eq);
    ez_fe2 hi = len > half ? eval_rec(tb, te, off + half, len - half, r + 1, m - 1, leaf, eq) : ez_fe2_zero();
    return ez_fe2_add(lo, ez_fe2_mul(r[0], ez_fe2_sub(hi, lo)));
}

/* Large tables: split on the top `s` variables into 2^s independent sub-evaluations run
 * in parallel, then combine them with the eq table of those variables. */
#define EZ_MLE_SPLIT_BITS 5

static ez_fe2 eval_any(const ez_fe *tb, const ez_fe2 *te, size_t len, const ez_fe2 *r, unsigned n)
{
    EZ_VERIFY_CHECK(n <= 62 && len <= ((size_t)1 << n));
    unsigned leaf = n < EZ_MLE_LEAF_BITS ? n : EZ_MLE_LEAF_BITS;
    ez_fe2 eq[1u << EZ_MLE_LEAF_BITS];
    ez_eq_table(eq, r + (n - leaf), leaf);
    unsigned m = n - leaf;
    if (len < 2 * (size_t)EZ_MLE_PAR_MIN || m < EZ_MLE_SPLIT_BITS)
        return eval_rec(tb, te, 0, len, r, m, leaf, eq);
    ez_fe2 part[1u << EZ_MLE_SPLIT_BITS], w[1u << EZ_MLE_SPLIT_BITS];
    size_t chunk = (size_t)1 << (n - EZ_MLE_SPLIT_BITS);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t c = 0; c < ((size_t)1 << EZ_MLE_SPLIT_BITS); c++) {
        size_t off = c * chunk;
        size_t l = off >= len ? 0 : (len - off < chunk ? len - off : chunk);
        part[c] = eval_rec(tb, te, off, l, r + EZ_MLE_SPLIT_BITS, m - EZ_MLE_SPLIT_BITS, leaf, eq);
    }
    ez_eq_table(w, r, EZ_MLE_SPLIT_BITS);
    return dot_fe2(part, (size_t)1 << EZ_MLE_SPLIT_BITS, w);
}

ez_fe2 ez_mle_eval_fe(const ez_fe *t, size_t len, const ez_fe2 *r, unsigned n)
{
    return eval_any(t, NULL, len, r, n);
}

ez_fe2 ez_mle_eval_fe2(const ez_fe2 *t, size_t len, const ez_fe2 *r, unsigned n)
{
    return eval_any(NULL, t, len, r, n);
}

/* ---- binding ---------------------------------------------------------------------- */

void ez_mle_bind_top(ez_fe2 *p, size_t n, const ez_fe2 *r)
{
    ez_fe2 rr = *r;
#pragma omp parallel for schedule(static) if (n >= EZ_MLE_PAR_MIN)
    for (size_t i = 0; i < n; i++)
        p[i] = ez_fe2_add(p[i], ez_fe2_mul(rr, ez_fe2_sub(p[n + i], p[i])));
}

void ez_mle_bind_bottom(ez_fe2 *p, size_t n, const ez_fe2 *r)
{
    ez_fe2 rr = *r;
    /* Sequential: p[i] is written after p[2i], p[2i+1] (>= i) were read. */
    for (size_t i = 0; i < n; i++)
        p[i] = ez_fe2_add(p[2 * i], ez_fe2_mul(rr, ez_fe2_sub(p[2 * i + 1], p[2 * i])));
}

/* ---- tensor folds ------------------------------------------------------------------
 * Folding axis a of a tensor viewed as (outer, d, inner):
 *   dst[o, i] = sum_{j < d} eq_a[j] * src[o, j, i]
 * costs one multiply per source entry and shrinks the data d-fold, so folding the
 * largest axis first (on the base-field input) and the rest on the shrunken extension
 * data keeps the total at O(size of in). */

/* Block of the inner dimension one task accumulates (stays in L1). */
#define EZ_FOLD_BLOCK 256

/* One axis, from a base (sb) or an extension (se) source: exactly one is non-NULL. The
 * choice is made once per row, outside the inner loop. */
static void fold_axis(ez_fe2 *dst, const ez_fe *sb, const ez_fe2 *se, size_t outer, size_t d, size_t inner,
                      const ez_fe2 *eq)
{
    size_t nblk = (inner + EZ_FOLD_BLOCK - 1) / EZ_FOLD_BLOCK;
    size_t ntask = outer * nblk;
#pragma omp parallel for schedule(static) if (outer * d * inner >= EZ_MLE_PAR_MIN)
    for (size_t task = 0; task < ntask; task++) {
        size_t o = task / nblk, b0 = (task % nblk) * EZ_FOLD_BLOCK;
        size_t bl = inner - b0 < EZ_FOLD_BLOCK ? inner - b0 : EZ_FOLD_BLOCK;
        ez_fe2 acc[EZ_FOLD_BLOCK];
        for (size_t i = 0; i < bl; i++)
            acc[i] = ez_fe2_zero();
        for (size_t j = 0; j < d; j++) {
            size_t row = (o * d + j) * inner + b0;
            ez_fe2 e = eq[j];
            if (sb)
                for (size_t i = 0; i < bl; i++)
                    acc[i] = ez_fe2_add(acc[i], ez_fe2_mul_fe(e, sb[row + i]));
            else
                for (size_t i = 0; i < bl; i++)
                    acc[i] = ez_fe2_add(acc[i], ez_fe2_mul(e, se[row + i]));
        }
        memcpy(dst + o * inner + b0, acc, bl * sizeof *acc);
    }
}

#define EZ_FOLD_MAX_AXES 64

/* One driver for both input types: exactly one of in_fe / in_fe2 is non-NULL. */
static ez_status fold_any(ez_fe2 *out, const ez_fe *in_fe, const ez_fe2 *in_fe2, const size_t *dims,
                          unsigned k, const ez_fe2 *const *points)
{
    ez_status st = EZ_OK;
    ez_fe2 *eqs[EZ_FOLD_MAX_AXES] = {0};
    ez_fe2 *bufs[2] = {NULL, NULL};
    if (k == 0 || k > EZ_FOLD_MAX_AXES || !dims)
        return EZ_ERR_INVALID;
    size_t size = 1;
    for (unsigned a = 0; a < k; a++) {
        if (dims[a] == 0 || __builtin_mul_overflow(size, dims[a], &size))
            return EZ_ERR_INVALID;
    }
    /* Current shape, shrinking as axes fold (a folded axis keeps extent 1). */
    size_t cur[EZ_FOLD_MAX_AXES];
    bool todo[EZ_FOLD_MAX_AXES];
    unsigned nfold = 0;
    for (unsigned a = 0; a < k; a++) {
        cur[a] = dims[a];
        /* A folded extent-1 axis has a 0-variable point: eq = 1, nothing to do. */
        todo[a] = points && points[a] && dims[a] > 1;
        if (!todo[a])
            continue;
        nfold++;
        eqs[a] = ez_alloc_array((size_t)1 << ez_log2_ceil(dims[a]), sizeof(ez_fe2));
        if (!eqs[a]) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        ez_eq_table(eqs[a], points[a], ez_log2_ceil(dims[a]));
    }
    if (nfold == 0) {
        for (size_t i = 0; i < size; i++)
            out[i] = in_fe ? ez_fe2_from_fe(in_fe[i]) : in_fe2[i];
        goto out;
    }
    /* Fold order: largest extent first. Ping-pong between two scratch buffers; the
     * last fold writes out directly. */
    const ez_fe2 *src2 = in_fe2;
    size_t cursize = size;
    for (unsigned step = 0; step < nfold; step++) {
        unsigned best = k;
        for (unsigned a = 0; a < k; a++)
            if (todo[a] && (best == k || cur[a] > cur[best]))
                best = a;
        size_t outer = 1, inner = 1, d = cur[best];
        for (unsigned a = 0; a < best; a++)
            outer *= cur[a];
        for (unsigned a = best + 1; a < k; a++)
            inner *= cur[a];
        size_t nsize = cursize / d;
        ez_fe2 *dst;
        if (step == nfold - 1) {
            dst = out;
        } else {
            ez_fe2 **slot = &bufs[step & 1];
            if (!*slot) {
                *slot = ez_alloc_huge(nsize, sizeof(ez_fe2)); /* large: few page faults */
                if (!*slot) {
                    st = EZ_ERR_NOMEM;
                    goto out;
                }
            }
            dst = *slot;
        }
        fold_axis(dst, step == 0 ? in_fe : NULL, src2, outer, d, inner, eqs[best]);
        src2 = dst;
        cursize = nsize;
        cur[best] = 1;
        todo[best] = false;
    }
out:
    free(bufs[0]);
    free(bufs[1]);
    for (unsigned a = 0; a < k; a++)
        free(eqs[a]);
    return st;
}

ez_status ez_mle_fold_fe(ez_fe2 *out, const ez_fe *in, const size_t *dims, unsigned k,
                         const ez_fe2 *const *points)
{
    return fold_any(out, in, NULL, dims, k, points);
}

ez_status ez_mle_fold_fe2(ez_fe2 *out, const ez_fe2 *in, const size_t *dims, unsigned k,
                          const ez_fe2 *const *points)
{
    return fold_any(out, NULL, in, dims, k, points);
}

/* Tensor evaluation without materialising any fold: a recursion over the axes,
 *   T(a, base) = sum_{j < d_a} eq_a[j] * T(a + 1, base * d_a + j),
 * whose last level is a dot product with the last axis's eq table. Cost: about 2 base
 * multiplies per entry plus one extension multiply per row of each outer level. */
/* The tensor's values: field elements, integers, or integers packed w bytes each
 * (ez_unpack_i64); exactly one non-NULL. */
typedef struct {
    const ez_fe *fe;
    const int64_t *i64;
    const uint8_t *packed;
    unsigned w;
} tensor_in;

/* Values per block of a packed row unpacked for its dot product (32 KB: L1). */
#define PACKED_BLOCK 4096

/* The dot product of a packed row of n integers with e, unpacked block by block. */
static ez_fe2 dot_packed(const ez_fe2 *e, const uint8_t *p, unsigned w, size_t n)
{
    int64_t buf[PACKED_BLOCK];
    ez_fe2 acc = ez_fe2_zero();
    for (size_t o = 0; o < n; o += PACKED_BLOCK) {
        size_t m = n - o < PACKED_BLOCK ? n - o : PACKED_BLOCK;
        ez_unpack_i64(buf, p + o * w, m, w);
        /* w <= 3 bytes: every value in [-2^23, 2^23), the narrow kernel's precondition */
        acc = ez_fe2_add(acc, w <= 3 ? ez_fe2_dot_i24(e + o, buf, m) : ez_fe2_dot_i64(e + o, buf, m));
    }
    return acc;
}

static ez_fe2 tensor_rec(tensor_in in, const size_t *dims, unsigned k, unsigned a, size_t base, ez_fe2 *const *eqs)
{
    if (a == k - 1)
        return in.fe       ? ez_fe2_dot_base(eqs[a], in.fe + base * dims[a], dims[a])
               : in.packed ? dot_packed(eqs[a], in.packed + base * dims[a] * in.w, in.w, dims[a])
                           : ez_fe2_dot_i64(eqs[a], in.i64 + base * dims[a], dims[a]);
    ez_fe2 acc = ez_fe2_zero();
    for (size_t j = 0; j < dims[a]; j++)
        acc = ez_fe2_add(acc, ez_fe2_mul(eqs[a][j], tensor_rec(in, dims, k, a + 1, base * dims[a] + j, eqs)));
    return acc;
}

static ez_fe2 eval_tensor(tensor_in in, const size_t *dims, unsigned k, const ez_fe2 *point)
{
    ez_fe2 res = ez_fe2_zero();
    ez_fe2 *eqs[EZ_FOLD_MAX_AXES] = {0};
    if (k == 0 || k > EZ_FOLD_MAX_AXES)
        return res;
    unsigned off = 0;
    for (unsigned a = 0; a < k; a++) {
        unsigned b = ez_log2_ceil(dims[a]);
        eqs[a] = ez_alloc_array((size_t)1 << b, sizeof(ez_fe2));
        if (!eqs[a])
            goto out;
        ez_eq_table(eqs[a], point + off, b);
        off += b;
    }
    /* Parallelise over the first axis when the tensor is large. */
    size_t size = 1;
    for (unsigned a = 0; a < k; a++)
        size *= dims[a];
    if (k == 1 || size < 2 * (size_t)EZ_MLE_PAR_MIN || dims[0] < 2) {
        res = tensor_rec(in, dims, k, 0, 0, eqs);
    } else {
        ez_fe2 acc = ez_fe2_zero();
#pragma omp parallel
        {
            ez_fe2 part = ez_fe2_zero();
#pragma omp for schedule(dynamic, 1) nowait
            for (size_t j = 0; j < dims[0]; j++)
                part = ez_fe2_add(part, ez_fe2_mul(eqs[0][j], tensor_rec(in, dims, k, 1, j, eqs)));
#pragma omp critical
            acc = ez_fe2_add(acc, part);
        }
        res = acc;
    }
out:
    for (unsigned a = 0; a < k; a++)
        free(eqs[a]);
    return res;
}

ez_fe2 ez_mle_eval_tensor_fe(const ez_fe *in, const size_t *dims, unsigned k, const ez_fe2 *point)
{
    return eval_tensor((tensor_in){.fe = in}, dims, k, point);
}

ez_fe2 ez_mle_eval_tensor_i64(const int64_t *in, const size_t *dims, unsigned k, const ez_fe2 *point)
{
    return eval_tensor((tensor_in){.i64 = in}, dims, k, point);
}

ez_fe2 ez_mle_eval_tensor_packed(const uint8_t *in, unsigned w, const size_t *dims, unsigned k, const ez_fe2 *point)
{
    return eval_tensor((tensor_in){.packed = in, .w = w}, dims, k, point);
}

ez_fe2 ez_mle_prefix(const ez_fe2 *r, unsigned n, uint64_t len)
{
    EZ_VERIFY_CHECK(n <= 63 && len <= (UINT64_C(1) << n));
    if (len >> n)
        return ez_fe2_one(); /* len == 2^n: the all-ones selector */
    /* index(x) < len iff at the first bit j (from the top) where x and len differ,
     * len_j = 1 and x_j = 0. Summing over j with a running product of the matching
     * prefix eq(r_<j, len_<j), the free lower bits sum to 1:
     *   s~(r) = sum_{j : len_j = 1} prod_{i<j} eq1(r_i, len_i) * (1 - r_j).   O(n). */
    ez_fe2 acc = ez_fe2_zero(), pre = ez_fe2_one();
    for (unsigned j = 0; j < n; j++) {
        ez_fe2 one_minus = ez_fe2_sub(ez_fe2_one(), r[j]);
        if ((len >> (n - 1 - j)) & 1) {
            acc = ez_fe2_add(acc, ez_fe2_mul(pre, one_minus));
            pre = ez_fe2_mul(pre, r[j]);
        } else {
            pre = ez_fe2_mul(pre, one_minus);
        }
    }
    return acc;
}

ez_fe2 ez_mle_prefix_dot(const ez_fe2 *r, const ez_fe2 *p, unsigned n, uint64_t len)
{
    EZ_VERIFY_CHECK(n <= 63);
    ez_fe2 w0[64], w1[64], suf[65];
    suf[n] = ez_fe2_one();
    for (unsigned j = n; j-- > 0;) {
        w1[j] = ez_fe2_mul(r[j], p[j]);
        w0[j] = ez_fe2_mul(ez_fe2_sub(ez_fe2_one(), r[j]), ez_fe2_sub(ez_fe2_one(), p[j]));
        suf[j] = ez_fe2_mul(suf[j + 1], ez_fe2_add(w0[j], w1[j]));
    }
    if (len >> n)
        return suf[0];
    ez_fe2 acc = ez_fe2_zero(), pre = ez_fe2_one();
    for (unsigned j = 0; j < n; j++) {
        if ((len >> (n - 1 - j)) & 1) {
            acc = ez_fe2_add(acc, ez_fe2_mul(pre, ez_fe2_mul(w0[j], suf[j + 1])));
            pre = ez_fe2_mul(pre, w1[j]);
        } else {
            pre = ez_fe2_mul(pre, w0[j]);
        }
    }
    return acc;
}

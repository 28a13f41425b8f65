/* exec_gemm: the contraction kernels (f64, i64, int16 VNNI) against a plain integer
 * reference, on every source layout the packers distinguish (rows contiguous, k
 * contiguous, strided with summed indices), sizes crossing every blocking boundary
 * (MR/NR tiles, the NCB column blocks, the MCH row chunks, KC/KC16 k blocks, odd k),
 * each C element stored exactly once, identical for 1 and 3 threads; the int16
 * kernel's int32 runs at the worst case (every product 32767^2); the kernel choice;
 * the prepacked (float reference) entry point; an executor-level projection. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "runtime/exec/exec.h"
#include "runtime/exec/exec_gemm.h"
#include "tests/plan_fixture.h"
#include "tests/testutil.h"

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

typedef enum { LAYOUT_ROWS, LAYOUT_K, LAYOUT_STRIDED_SUM } layout;

/* An operand of nb x rows x k values in one of three source layouts (see the file
 * comment). Owns its arrays. */
typedef struct {
    int64_t *src;
    double *srcf;
    int64_t *ob, *orow, *ok, *os;
    uint64_t ns;
    ez_gemm_operand op;
} operand;

static int64_t rnd(ez_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(ez_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Values: uniform in [-vmax, vmax], with the extremes planted at a few places. The
 * strided layout sums two source values, so each gets half the range. */
static void operand_make(operand *o, ez_rng *r, layout l, uint64_t nb, uint64_t rows, uint64_t k,
                         int64_t vmax)
{
    memset(o, 0, sizeof *o);
    uint64_t per = rows * k * (l == LAYOUT_STRIDED_SUM ? 3 : 1) + 5; /* gaps between batches */
    uint64_t total = nb * per;
    o->src = malloc(total * sizeof *o->src);
    o->srcf = malloc(total * sizeof *o->srcf);
    o->ob = malloc((nb ? nb : 1) * sizeof *o->ob);
    o->orow = malloc((rows ? rows : 1) * sizeof *o->orow);
    o->ok = malloc((k ? k : 1) * sizeof *o->ok);
    o->os = malloc(2 * sizeof *o->os);
    int64_t v = l == LAYOUT_STRIDED_SUM ? vmax / 2 : vmax;
    for (uint64_t i = 0; i < total; i++) {
        uint64_t pick = ez_rng_next(r) % 64;
        o->src[i] = pick == 0 ? v : pick == 1 ? -v : rnd(r, -v, v);
        o->srcf[i] = (double)o->src[i];
    }
    for (uint64_t b = 0; b < nb; b++)
        o->ob[b] = (int64_t)(b * per + 3);
    o->ns = 1;
    o->os[0] = 0;
    for (uint64_t i = 0; i < rows; i++)
        o->orow[i] = (int64_t)(l == LAYOUT_ROWS ? i : l == LAYOUT_K ? i * k : i * 3 * k);
    for (uint64_t kk = 0; kk < k; kk++)
        o->ok[kk] = (int64_t)(l == LAYOUT_ROWS ? kk * rows : l == LAYOUT_K ? kk : kk * 3);
    if (l == LAYOUT_STRIDED_SUM) {
        o->ns = 2;
        o->os[1] = 1;
    }
    o->op = (ez_gemm_operand){.src = o->src, .src_f64 = false, .ob = o->ob, .orow = o->orow,
                              .ok = o->ok, .os = o->os, .ns = o->ns};
}

static void operand_free(operand *o)
{
    free(o->src), free(o->srcf), free(o->ob), free(o->orow), free(o->ok), free(o->os);
}

static int64_t operand_at(const operand *o, uint64_t b, uint64_t row, uint64_t kk)
{
    int64_t s = 0;
    for (uint64_t q = 0; q < o->ns; q++)
        s += o->src[o->ob[b] + o->orow[row] + o->ok[kk] + o->os[q]];
    return s;
}

/* Collects the blocks the driver stores. */
typedef struct {
    int64_t *c;
    unsigned *count;
    uint64_t m, n;
    bool bad_shape;
} sink;

/* A block the kernel hands over: flag a shape beyond the kernel's contract. */
static void sink_check(sink *s, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc, size_t ldc)
{
    if (mr > EZ_GEMM_MCH || nc > EZ_GEMM_NCB || m0 + mr > s->m || n0 + nc > s->n || ldc < nc)
        s->bad_shape = true;
}

/* Where entry (row, col) of batch b goes in s->c, counted as delivered once more. */
static uint64_t sink_at(sink *s, uint64_t b, uint64_t row, uint64_t col)
{
    uint64_t at = (b * s->m + row) * s->n + col;
    __atomic_fetch_add(&s->count[at], 1, __ATOMIC_RELAXED);
    return at;
}

/* One delivered block, of integers ci or (ci NULL) doubles cf, stored as integers. */
static void sink_put(sink *s, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc, const int64_t *ci,
                     const double *cf, size_t ldc)
{
    sink_check(s, m0, mr, n0, nc, ldc);
    for (unsigned i = 0; i < mr; i++)
        for (unsigned j = 0; j < nc; j++)
            s->c[sink_at(s, b, m0 + i, n0 + j)] = ci ? ci[i * ldc + j] : (int64_t)cf[i * ldc + j];
}

static void sink_i64(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc,
                     const int64_t *c, size_t ldc)
{
    sink_put(ctx, b, m0, mr, n0, nc, c, NULL, ldc);
}

static void sink_f64(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc,
                     const double *c, size_t ldc)
{
    sink_put(ctx, b, m0, mr, n0, nc, NULL, c, ldc);
}

static uint64_t maxabs_operand(const operand *o, uint64_t nb, uint64_t rows, uint64_t k)
{
    uint64_t m = 0;
    for (uint64_t b = 0; b < nb; b++)
        for (uint64_t i = 0; i < rows; i++)
            for (uint64_t kk = 0; kk < k; kk++) {
                int64_t v = operand_at(o, b, i, kk);
                uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
                m = a > m ? a : m;
            }
    return m;
}

/* One product with kernel `kind` on operands in layouts la, lb, with the current
 * OpenMP thread count; compares every element with the reference. */
/* kind I16: limbs 1 uses the longest safe run; limbs 2 the split ez_gemm_choose would
 * pick for these maxima (or 7 if it would not split). */
static void product_case(ez_rng *r, ez_gemm_kind kind, unsigned limbs, layout la, layout lb,
                         uint64_t nb, uint64_t m, uint64_t n, uint64_t k, int64_t vmax)
{
    operand A, B;
    operand_make(&A, r, la, nb, m, k, vmax);
    operand_make(&B, r, lb, nb, n, k, vmax);
    uint64_t nc = nb * m * n;
    int64_t *want = malloc((nc ? nc : 1) * sizeof *want);
    int64_t *da = malloc((nb * m * k + 1) * sizeof *da);
    int64_t *db = malloc((nb * n * k + 1) * sizeof *db);
    for (uint64_t b = 0; b < nb; b++) { /* dense copies, then a plain triple loop */
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t kk = 0; kk < k; kk++)
                da[(b * m + i) * k + kk] = operand_at(&A, b, i, kk);
        for (uint64_t j = 0; j < n; j++)
            for (uint64_t kk = 0; kk < k; kk++)
                db[(b * n + j) * k + kk] = operand_at(&B, b, j, kk);
    }
    for (uint64_t b = 0; b < nb; b++)
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t j = 0; j < n; j++) {
                const int64_t *ra = da + (b * m + i) * k, *rb = db + (b * n + j) * k;
                int64_t s = 0; /* |values| <= 2^26, k < 2^9: no overflow */
                for (uint64_t kk = 0; kk < k; kk++)
                    s += ra[kk] * rb[kk];
                want[(b * m + i) * n + j] = s;
            }
    free(da), free(db);
    uint64_t amax = maxabs_operand(&A, nb, m, k), bmax = maxabs_operand(&B, nb, n, k);
    ez_gemm_plan pl = {.kind = kind, .limbs = 1};
    if (kind == EZ_GEMM_I16 && limbs == 1) {
        pl.chunk = ez_gemm_i16_chunk(amax, bmax);
    } else if (kind == EZ_GEMM_I16) {
        ez_gemm_choose(&pl, amax, bmax, UINT64_MAX);
        if (pl.limbs != 2) {
            unsigned sp = 7;
            uint64_t hi = (amax + (1u << sp) - 1) >> sp;
            ck_assert_uint_le(hi, EZ_GEMM_I16_MAX);
            uint64_t rl = ez_gemm_i16_chunk((1u << sp) - 1, bmax), rh = ez_gemm_i16_chunk(hi, bmax);
            pl = (ez_gemm_plan){.kind = EZ_GEMM_I16, .limbs = 2, .split = sp,
                                .chunk = rl < rh ? rl : rh};
        }
        ck_assert_uint_ge(pl.chunk, 2);
    }
    {
        const int threads = max_threads();
        void *ap = ez_alloc_aligned(ez_gemm_apack_bytes(&pl, nb, m, k) + 64, 1);
        size_t wb = ez_gemm_work_bytes(&pl, threads, m, n, k);
        void *work = ez_alloc_aligned(wb, 1);
        ck_assert(ap != NULL && work != NULL);
        sink s = {.c = calloc(nc ? nc : 1, sizeof(int64_t)),
                  .count = calloc(nc ? nc : 1, sizeof(unsigned)), .m = m, .n = n};
        ez_gemm_pack_a(&pl, ap, &A.op, nb, m, k);
        ez_status st = EZ_ERR_INTERNAL;
        if (kind == EZ_GEMM_F64)
            st = ez_gemm_run_f64(nb, m, n, k, ap, &B.op, sink_f64, &s, work, wb);
        else if (kind == EZ_GEMM_I64)
            st = ez_gemm_run_i64(nb, m, n, k, ap, &B.op, sink_i64, &s, work, wb);
        else
            st = ez_gemm_run_i16(&pl, nb, m, n, k, ap, &B.op, sink_i64, &s, work, wb);
        ck_assert_int_eq(st, EZ_OK);
        ck_assert(!s.bad_shape);
        /* one assertion per product, naming the first wrong element (an assertion per
         * element costs Check a message each: most of the suite's time under ASan) */
        uint64_t bad = UINT64_MAX;
        for (uint64_t i = 0; i < nc && bad == UINT64_MAX; i++)
            if (s.count[i] != 1 || s.c[i] != want[i])
                bad = i;
        ck_assert_msg(bad == UINT64_MAX,
                      "kind %d/%u limbs layouts %d/%d, %" PRIu64 "x%" PRIu64 "x%" PRIu64
                      "x%" PRIu64 ", %d threads, element %" PRIu64 ": %" PRId64 " != %" PRId64
                      ", stored %u times",
                      (int)kind, pl.limbs, (int)la, (int)lb, nb, m, n, k, threads, bad,
                      bad < nc ? s.c[bad] : 0, bad < nc ? want[bad] : 0,
                      bad < nc ? s.count[bad] : 0);
        /* a scratch one byte short is refused */
        if (nc > 0 && k > 0) {
            if (kind == EZ_GEMM_F64)
                st = ez_gemm_run_f64(nb, m, n, k, ap, &B.op, sink_f64, &s, work, wb - 1);
            else if (kind == EZ_GEMM_I64)
                st = ez_gemm_run_i64(nb, m, n, k, ap, &B.op, sink_i64, &s, work, wb - 1);
            else
                st = ez_gemm_run_i16(&pl, nb, m, n, k, ap, &B.op, sink_i64, &s, work, wb - 1);
            ck_assert_int_eq(st, EZ_ERR_INVALID);
        }
        free(s.c), free(s.count), free(ap), free(work);
    }
    free(want);
    operand_free(&A);
    operand_free(&B);
}

/* Sizes that cross the blocking boundaries: MR/NR (and MR16/NR16) tiles, NCB column
 * blocks (96 on AVX-512), MCH row chunks (512), KC (128) and KC16 (256) k blocks, odd k. */
static const uint64_t sizes[][4] = {
    {1, 1, 1, 1},    {1, 7, 5, 3},     {2, 9, 25, 17},   {3, 17, 49, 129},
    {1, 513, 97, 130}, {2, 8, 97, 301}, {1, 513, 24, 2}, {4, 33, 48, 64},
};

/* Runs body for 1 and then 3 OpenMP threads (a team size changed per case would make
 * libgomp start and stop threads every time: most of the test's time under ASan). */
#ifdef _OPENMP
#define FOR_THREADS(body)                                                                     \
    do {                                                                                    \
        int old_ = omp_get_max_threads();                                                   \
        for (int t_ = 1; t_ <= 3; t_ += 2) {                                                \
            omp_set_num_threads(t_);                                                        \
            body;                                                                           \
        }                                                                                   \
        omp_set_num_threads(old_);                                                          \
    } while (0)
#else
#define FOR_THREADS(body) body
#endif

/* One kernel's product cases at one size and layout pair: the kernel, A's limbs and
 * the largest |value|. */
typedef struct {
    ez_gemm_kind kind;
    unsigned limbs;
    int64_t vmax;
} gemm_case;

/* The n cases at every size and layout pair (the big size with three of the pairs). */
static void layouts(ez_rng *rp, const gemm_case *c, size_t n)
{
    ez_rng r = *rp;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int la = 0; la < 3; la++)
            for (int lb = 0; lb < 3; lb++) {
                const uint64_t *z = sizes[si];
                if (z[1] * z[2] * z[3] > 200000 && la != lb)
                    continue;
                for (size_t i = 0; i < n; i++)
                    product_case(&r, c[i].kind, c[i].limbs, (layout)la, (layout)lb, z[0], z[1], z[2], z[3], c[i].vmax);
            }
}

START_TEST(test_gemm_layouts_f64_i64)
{
    const gemm_case c[] = {{EZ_GEMM_F64, 1, 1 << 20}, {EZ_GEMM_I64, 1, INT64_C(1) << 26}};
    ez_rng r = ez_rng_for("gemm_layouts");
    FOR_THREADS(layouts(&r, c, 2));
}
END_TEST

START_TEST(test_gemm_layouts_i16)
{
    if (!EZ_GEMM_HAVE_I16)
        return; /* not compiled in: ez_gemm_choose never picks it */
    const gemm_case c[] = {
        {EZ_GEMM_I16, 1, EZ_GEMM_I16_MAX}, /* full int16 range: runs of 2 (a spill after every pair) */
        {EZ_GEMM_I16, 1, 700},             /* activation x weight magnitudes: long runs */
        /* A split in two limbs (negative values: lo = v mod 2^s, hi = floor); B must still
         * fit int16, so both get the int16 range */
        {EZ_GEMM_I16, 2, EZ_GEMM_I16_MAX},
    };
    ez_rng r = ez_rng_for("gemm_layouts_i16");
    FOR_THREADS(layouts(&r, c, 3));
}
END_TEST

/* Every product is +32767^2 (signs matched), so any run of more than two k overflows
 * int32: the chunking must widen after every pair. Also all -32767 x +32767. */
START_TEST(test_gemm_i16_worst_case)
{
    if (!EZ_GEMM_HAVE_I16)
        return;
    const uint64_t m = 9, n = 50, k = 515;
    ck_assert_uint_eq(ez_gemm_i16_chunk(EZ_GEMM_I16_MAX, EZ_GEMM_I16_MAX), 2);
    for (int sign = -1; sign <= 1; sign += 2) {
        int64_t *a = malloc(m * k * sizeof *a), *b = malloc(n * k * sizeof *b);
        for (uint64_t i = 0; i < m * k; i++) /* a [m][k]: the sign follows k */
            a[i] = sign * EZ_GEMM_I16_MAX * (((i % k) % 2) ? -1 : 1);
        for (uint64_t kk = 0; kk < k; kk++)
            for (uint64_t j = 0; j < n; j++)
                b[kk * n + j] = EZ_GEMM_I16_MAX * ((kk % 2) ? -1 : 1); /* [k][n], a weight */
        int64_t *ob = calloc(1, sizeof *ob), *am = malloc(m * 8), *ak = malloc(k * 8);
        int64_t *bn = malloc(n * 8), *bk = malloc(k * 8), os = 0;
        for (uint64_t i = 0; i < m; i++)
            am[i] = (int64_t)(i * k);
        for (uint64_t kk = 0; kk < k; kk++)
            ak[kk] = (int64_t)kk, bk[kk] = (int64_t)(kk * n);
        for (uint64_t j = 0; j < n; j++)
            bn[j] = (int64_t)j;
        ez_gemm_operand A = {.src = a, .ob = ob, .orow = am, .ok = ak, .os = &os, .ns = 1};
        ez_gemm_operand B = {.src = b, .ob = ob, .orow = bn, .ok = bk, .os = &os, .ns = 1};
        const ez_gemm_plan pl = {.kind = EZ_GEMM_I16, .limbs = 1, .chunk = 2};
        void *ap = ez_alloc_aligned(ez_gemm_apack_bytes(&pl, 1, m, k), 1);
        size_t wb = ez_gemm_work_bytes(&pl, max_threads(), m, n, k);
        void *work = ez_alloc_aligned(wb, 1);
        sink s = {.c = calloc(m * n, 8), .count = calloc(m * n, sizeof(unsigned)), .m = m, .n = n};
        ez_gemm_pack_a(&pl, ap, &A, 1, m, k);
        ck_assert_int_eq(ez_gemm_run_i16(&pl, 1, m, n, k, ap, &B, sink_i64, &s, work, wb), EZ_OK);
        /* a plan the kernel cannot run is refused */
        const ez_gemm_plan bad[] = {{EZ_GEMM_I16, 1, 0, 1}, {EZ_GEMM_I16, 3, 0, 8},
                                    {EZ_GEMM_I16, 2, 16, 8}, {EZ_GEMM_F64, 1, 0, 8}};
        for (size_t bi = 0; bi < sizeof bad / sizeof bad[0]; bi++)
            ck_assert_int_eq(ez_gemm_run_i16(&bad[bi], 1, m, n, k, ap, &B, sink_i64, &s, work, wb),
                             EZ_ERR_INVALID);
        const int64_t want = sign * (int64_t)k * EZ_GEMM_I16_MAX * EZ_GEMM_I16_MAX;
        uint64_t wrong = 0;
        for (uint64_t i = 0; i < m * n; i++)
            wrong += s.c[i] != want;
        ck_assert_uint_eq(wrong, 0);
        free(a), free(b), free(ob), free(am), free(ak), free(bn), free(bk);
        free(ap), free(work), free(s.c), free(s.count);
    }
}
END_TEST

START_TEST(test_gemm_choose)
{
    const ez_gemm_kind i16 = EZ_GEMM_HAVE_I16 ? EZ_GEMM_I16 : EZ_GEMM_F64;
    ez_gemm_plan pl;
    ez_gemm_choose(&pl, 19276, 678, 768); /* x . wq of GPT-2 at scale 12: one limb */
    ck_assert_int_eq(pl.kind, i16);
    if (EZ_GEMM_HAVE_I16) {
        ck_assert_uint_eq(pl.limbs, 1);
        ck_assert_uint_eq(pl.chunk, ez_gemm_i16_chunk(19276, 678));
    }
    ez_gemm_choose(&pl, 0, 700, 768);
    ck_assert_int_eq(pl.kind, i16);
    ez_gemm_choose(&pl, 0, 1 << 30, 768); /* B not an int16 */
    ck_assert_int_eq(pl.kind, EZ_GEMM_F64);
    /* q . k at scale 12: one limb would widen every 6 k; two limbs with long runs */
    ez_gemm_choose(&pl, 19162, 18082, 64);
    ck_assert_int_eq(pl.kind, i16);
    if (EZ_GEMM_HAVE_I16) {
        ck_assert_uint_eq(pl.limbs, 2);
        uint64_t lo = (UINT64_C(1) << pl.split) - 1, hi = (19162 + lo) >> pl.split;
        ck_assert_uint_le(hi, EZ_GEMM_I16_MAX);
        ck_assert_uint_ge(pl.chunk, EZ_GEMM_I16_SPLIT_MIN_CHUNK);
        ck_assert_uint_le(pl.chunk, ez_gemm_i16_chunk(lo, 18082));
        ck_assert_uint_le(pl.chunk, ez_gemm_i16_chunk(hi, 18082));
    }
    /* A beyond int16 (an activation above 8 at scale 12): two limbs */
    ez_gemm_choose(&pl, 200000, 700, 768);
    ck_assert_int_eq(pl.kind, i16);
    if (EZ_GEMM_HAVE_I16)
        ck_assert_uint_eq(pl.limbs, 2);
    /* both at the int16 limit: one limb only for k = 2, else two limbs of A */
    ez_gemm_choose(&pl, 32767, 32767, 1000);
    ck_assert_int_eq(pl.kind, i16);
    if (EZ_GEMM_HAVE_I16)
        ck_assert_uint_eq(pl.limbs, 2);
    ez_gemm_choose(&pl, 32767, 32767, 2);
    ck_assert_int_eq(pl.kind, i16);
    if (EZ_GEMM_HAVE_I16)
        ck_assert_uint_eq(pl.limbs, 1);
    /* A far beyond int16 and B at the limit: no split gives runs of 64: double */
    ez_gemm_choose(&pl, UINT64_C(1) << 22, 32767, 300);
    ck_assert_int_eq(pl.kind, EZ_GEMM_F64);
    ez_gemm_choose(&pl, 32768, 32768, 10);
    ck_assert_int_eq(pl.kind, EZ_GEMM_F64);
    /* the 2^53 rule, exactly at and just above the limit */
    ez_gemm_choose(&pl, UINT64_C(1) << 26, UINT64_C(1) << 17, UINT64_C(1) << 10);
    ck_assert_int_eq(pl.kind, EZ_GEMM_F64);
    ez_gemm_choose(&pl, UINT64_C(1) << 26, UINT64_C(1) << 17, (UINT64_C(1) << 10) + 1);
    ck_assert_int_eq(pl.kind, EZ_GEMM_I64);
    ck_assert_uint_eq(ez_gemm_i16_chunk(0, 5), UINT64_MAX);
    ck_assert_uint_eq(ez_gemm_i16_chunk(1 << 15, 1 << 16), 0);
}
END_TEST

/* The float reference's entry point: both operands packed beforehand (double source),
 * tiles of MR x NR to a per-tile store. */
typedef struct {
    double *c;
    uint64_t m, n;
    bool bad_shape;
} tile_sink;

static void tile_store(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nr,
                       const double *c)
{
    tile_sink *s = ctx;
    if (mr > EZ_GEMM_MR || nr > EZ_GEMM_NR)
        s->bad_shape = true;
    for (unsigned i = 0; i < mr; i++)
        for (unsigned j = 0; j < nr; j++)
            s->c[(b * s->m + m0 + i) * s->n + n0 + j] = c[i * EZ_GEMM_NR + j];
}

START_TEST(test_gemm_prepacked_f64)
{
    ez_rng r = ez_rng_for("gemm_prepacked");
    const uint64_t nb = 2, m = 37, n = 101, k = 300;
    operand A, B;
    operand_make(&A, &r, LAYOUT_K, nb, m, k, 1000);
    operand_make(&B, &r, LAYOUT_ROWS, nb, n, k, 1000);
    double *ap = ez_alloc_aligned(nb * ez_gemm_apack_len(m, k), sizeof(double));
    double *bp = ez_alloc_aligned(nb * ez_gemm_bpack_len(n, k), sizeof(double));
    ez_gemm_pack_f64_f64(ap, EZ_GEMM_MR, A.srcf, nb, m, k, A.ob, A.orow, A.ok, A.os, A.ns);
    ez_gemm_pack_f64_f64(bp, EZ_GEMM_NR, B.srcf, nb, n, k, B.ob, B.orow, B.ok, B.os, B.ns);
    tile_sink s = {.c = calloc(nb * m * n, sizeof(double)), .m = m, .n = n};
    ck_assert_int_eq(ez_gemm_f64(nb, m, n, k, ap, bp, tile_store, &s), EZ_OK);
    ck_assert(!s.bad_shape);
    uint64_t wrong = 0;
    for (uint64_t b = 0; b < nb; b++)
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t j = 0; j < n; j++) {
                int64_t want = 0;
                for (uint64_t kk = 0; kk < k; kk++)
                    want += operand_at(&A, b, i, kk) * operand_at(&B, b, j, kk);
                wrong += (int64_t)s.c[(b * m + i) * n + j] != want;
            }
    ck_assert_uint_eq(wrong, 0);
    free(ap), free(bp), free(s.c);
    operand_free(&A);
    operand_free(&B);
}
END_TEST

/* ---- through the executor: a projection y[s,n] = x[s,d] * w[d,n] >> 12 ---------------- */

static unsigned add_tensor(ez_plan *p, const char *name, ez_tensor_kind kind, uint64_t d0,
                           uint64_t d1, uint64_t bound)
{
    int i = ez_fx_tensor(p, name, kind); /* scale 12, no producer */
    ez_plan_tensor *t = &p->tensors[i];
    t->rank = 2;
    t->dims[0] = d0;
    t->dims[1] = d1;
    t->bits = 24;
    t->bound = bound;
    return (unsigned)i;
}

/* x [S][D] (values up to xmax) times w [D][N] (up to wmax), rescaled by 2^12; the
 * kernel the run used (x and w small: int16; otherwise double) does not change a bit
 * of the output or the remainders, for 1 and 2 threads. */
static void projection_case(ez_rng *r, uint64_t S, uint64_t D, uint64_t N, int64_t xmax,
                            int64_t wmax)
{
    ez_plan p;
    ez_fx_plan(&p, "gemm");
    unsigned x = add_tensor(&p, "x", EZ_TENSOR_INPUT, S, D, (UINT64_C(1) << 23));
    unsigned w = add_tensor(&p, "w", EZ_TENSOR_WEIGHT, D, N, (UINT64_C(1) << 23));
    unsigned y = add_tensor(&p, "y", EZ_TENSOR_ACT, S, N, (UINT64_C(1) << 39));
    p.tensors[y].bits = 40;
    p.ops = calloc(1, sizeof *p.ops);
    ez_plan_op *op = &p.ops[0];
    op->kind = EZ_OP_EINSUM;
    snprintf(op->label, sizeof op->label, "y");
    snprintf(op->equation, sizeof op->equation, "y[s,n] = x[s,d] * w[d,n] >> 12");
    op->nin = 2;
    op->in[0] = x, op->in[1] = w, op->out = y;
    op->coef[0] = op->coef[1] = 1;
    op->mul = 1;
    op->shift = 12;
    op->nidx = 3; /* s = 0, d = 1, n = 2 */
    op->idx_name[0][0] = 's', op->idx_name[1][0] = 'd', op->idx_name[2][0] = 'n';
    op->idx_size[0] = S, op->idx_size[1] = D, op->idx_size[2] = N;
    op->in_axes[0][0] = 0, op->in_axes[0][1] = 1;
    op->in_axes[1][0] = 1, op->in_axes[1][1] = 2;
    op->out_axes[0] = 0, op->out_axes[1] = 2;
    op->in_scale = 12, op->out_scale = 12;
    p.tensors[y].producer = 0;
    p.nops = 1;

    int64_t *xv = malloc(S * D * 8), *wv = malloc(D * N * 8);
    for (uint64_t i = 0; i < S * D; i++)
        xv[i] = rnd(r, -xmax, xmax);
    for (uint64_t i = 0; i < D * N; i++)
        wv[i] = rnd(r, -wmax, wmax);
    int64_t *want = malloc(S * N * 8), *wrem = malloc(S * N * 8);
    for (uint64_t s = 0; s < S; s++)
        for (uint64_t n = 0; n < N; n++) {
            int64_t acc = 0;
            for (uint64_t d = 0; d < D; d++)
                acc += xv[s * D + d] * wv[d * N + n];
            want[s * N + n] = acc >> 12; /* arithmetic: floor */
            wrem[s * N + n] = acc - want[s * N + n] * 4096;
        }
#ifdef _OPENMP
    int old = omp_get_max_threads();
#endif
    for (int threads = 1; threads <= 2; threads++) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        ez_trace tr;
        ez_diag d = {{0}};
        ck_assert_int_eq(ez_trace_init(&tr, &p, &d), EZ_OK);
        ck_assert_int_eq(ez_trace_set(&tr, x, xv, S * D, &d), EZ_OK);
        ck_assert_int_eq(ez_trace_set(&tr, w, wv, D * N, &d), EZ_OK);
        for (int rep = 0; rep < 2; rep++) { /* a second run reuses scratch and aux arrays */
            ez_status st = ez_exec_run(&p, &tr, &d);
            ck_assert_msg(st == EZ_OK, "%s", d.msg);
            uint64_t nrem;
            const int64_t *rem = ez_trace_aux(&tr, 0, EZ_AUX_REM, &nrem);
            ck_assert_uint_eq(nrem, S * N);
            uint64_t wrong = 0;
            for (uint64_t i = 0; i < S * N; i++)
                wrong += tr.t[y][i] != want[i] || rem[i] != wrem[i];
            ck_assert_uint_eq(wrong, 0);
            ck_assert(tr.ops[0].exact_f64); /* int16 or double, not the int64 fallback */
        }
        ez_trace_clear(&tr);
    }
#ifdef _OPENMP
    omp_set_num_threads(old);
#endif
    free(xv), free(wv), free(want), free(wrem);
    ez_plan_clear(&p);
}

START_TEST(test_exec_projection)
{
    ez_rng r = ez_rng_for("exec_projection");
    projection_case(&r, 130, 200, 301, 19000, 700);     /* int16 kernel, long runs */
    projection_case(&r, 300, 97, 100, 32767, 32767);    /* int16 range, runs of 2: double */
    projection_case(&r, 33, 129, 250, 40000, 700);      /* x beyond int16: two limbs */
    projection_case(&r, 20, 300, 40, 1 << 22, 32767);   /* two limbs at the limit: double */
}
END_TEST

Suite *ez_suite_exec_gemm(void)
{
    const TTest *tests[] = {test_gemm_layouts_f64_i64, test_gemm_layouts_i16, test_gemm_i16_worst_case, test_gemm_choose,
        test_gemm_prepacked_f64, test_exec_projection};
    return ez_test_suite("exec_gemm", "core", 60, tests, sizeof tests / sizeof tests[0]);
}

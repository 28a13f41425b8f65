/* fe2_vec — see fe2_vec.h. Each kernel: eight entries per step on fe_vec.h's lanes (full
 * reductions per product: on the AMD EPYC hosts without AVX-512, two AVX2 registers of
 * four lanes still beat the scalar loop's 128-bit products with delayed reduction by
 * 1.3-1.6x, docs/performance.md), then the scalar loop (the `_ref`) for the last n % 8. */
#include "config.h"

#include "lib/fe2_vec.h"

#include "lib/fe_vec.h"

/* ---- the scalar loops: references and tails ------------------------------------------ */

void ez_fe2_bind_ref(ez_fe2 *dst, const ez_fe2 *lo, const ez_fe2 *hi, size_t n, ez_fe2 r)
{
    const ez_fe rw = ez_fe_mul_w(r.c1);
    for (size_t i = 0; i < n; i++)
        dst[i] = ez_fe2_bind1(lo[i], hi[i], r, rw);
}

void ez_fe2_bind_base_ref(ez_fe2 *dst, const ez_fe *lo, const ez_fe *hi, size_t n, ez_fe2 r)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = ez_fe2_bind1_base(lo[i], hi[i], r);
}

void ez_fe2_eq_split_ref(ez_fe2 *x, ez_fe2 *hi, size_t n, ez_fe2 r)
{
    const ez_fe rw = ez_fe_mul_w(r.c1);
    for (size_t i = 0; i < n; i++) {
        ez_fe2 h = ez_fe2_mul_add_pre(x[i], r, rw, ez_fe2_zero());
        hi[i] = h;
        x[i] = ez_fe2_sub(x[i], h);
    }
}

void ez_fe2_axpy_ref(ez_fe2 *dst, const ez_fe2 *a, ez_fe2 l, const ez_fe2 *b, size_t n)
{
    const ez_fe lw = ez_fe_mul_w(l.c1);
    for (size_t i = 0; i < n; i++)
        dst[i] = ez_fe2_mul_add_pre(b[i], l, lw, a[i]);
}

/* node = (pL qR + pR qL, qL qR) over X^2 = 7: 12 products and 5 reductions (four plain
 * extension multiplies take 8 reductions for the numerator alone). */
static inline void frac_node(ez_fe2 *op, ez_fe2 *oq, ez_fe2 pL, ez_fe2 qL, ez_fe2 pR, ez_fe2 qR)
{
    typedef unsigned __int128 u128;
    uint64_t c = 0;
    u128 x = (u128)pL.c1 * qR.c1;
    ez_sum128(&x, &c, (u128)pR.c1 * qL.c1);
    ez_fe x11 = ez_red128(x, c);
    c = 0;
    x = (u128)pL.c0 * qR.c0;
    ez_sum128(&x, &c, (u128)pR.c0 * qL.c0);
    ez_sum128(&x, &c, (u128)x11 * EZ_FE2_W);
    ez_fe p0 = ez_red128(x, c);
    c = 0;
    x = (u128)pL.c0 * qR.c1;
    ez_sum128(&x, &c, (u128)pL.c1 * qR.c0);
    ez_sum128(&x, &c, (u128)pR.c0 * qL.c1);
    ez_sum128(&x, &c, (u128)pR.c1 * qL.c0);
    *op = ez_fe2_make(p0, ez_red128(x, c));
    ez_fe t = ez_fe_mul(qL.c1, qR.c1);
    c = 0;
    x = (u128)qL.c0 * qR.c0;
    ez_sum128(&x, &c, (u128)t * EZ_FE2_W);
    ez_fe q0 = ez_red128(x, c);
    c = 0;
    x = (u128)qL.c0 * qR.c1;
    ez_sum128(&x, &c, (u128)qL.c1 * qR.c0);
    *oq = ez_fe2_make(q0, ez_red128(x, c));
}

/* a b with 3 reductions instead of 4 (the unit layer's denominator qL qR). */
static inline ez_fe2 mul_lazy(ez_fe2 a, ez_fe2 b)
{
    typedef unsigned __int128 u128;
    uint64_t c0 = 0, c1 = 0;
    u128 x0 = (u128)a.c0 * b.c0, x1 = (u128)a.c0 * b.c1;
    ez_sum128(&x0, &c0, (u128)ez_fe_mul(a.c1, b.c1) * EZ_FE2_W);
    ez_sum128(&x1, &c1, (u128)a.c1 * b.c0);
    return ez_fe2_make(ez_red128(x0, c0), ez_red128(x1, c1));
}

void ez_fe2_frac_layer_ref(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *pL, const ez_fe2 *qL, const ez_fe2 *pR,
                           const ez_fe2 *qR, size_t n)
{
    for (size_t i = 0; i < n; i++)
        frac_node(&op[i], &oq[i], pL[i], qL[i], pR[i], qR[i]);
}

void ez_fe2_frac_layer_unit_ref(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *qL, const ez_fe2 *qR, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        op[i] = ez_fe2_add(qL[i], qR[i]);
        oq[i] = mul_lazy(qL[i], qR[i]);
    }
}

/* ---- eight lanes ----------------------------------------------------------------------- */

#if EZ_FE_VEC

/* c + x r, lane-wise, for r = (r0, r1) and rw = 7 r1 in every lane */
EZ_V8_FN void v2_mul_add_pre(ez_v8 *o0, ez_v8 *o1, ez_v8 x0, ez_v8 x1, ez_v8 r0, ez_v8 r1, ez_v8 rw, ez_v8 c0,
                             ez_v8 c1)
{
    *o0 = v_add(c0, v_add(v_mul(x0, r0), v_mul(x1, rw)));
    *o1 = v_add(c1, v_add(v_mul(x0, r1), v_mul(x1, r0)));
}

/* r's lanes: r0, r1, 7 r1 */
typedef struct {
    ez_v8 c0, c1, w;
} lanes_c;

EZ_V8_FN lanes_c lanes_of(ez_fe2 r)
{
    lanes_c l = {v_set1(r.c0), v_set1(r.c1), v_set1(ez_fe_mul_w(r.c1))};
    return l;
}

/* dst[i..i+8) = a + x r, from a's and x's lanes */
EZ_V8_FN void store_mul_add(ez_fe2 *dst, ez_v8 a0, ez_v8 a1, ez_v8 x0, ez_v8 x1, lanes_c r)
{
    ez_v8 o0, o1;
    v2_mul_add_pre(&o0, &o1, x0, x1, r.c0, r.c1, r.w, a0, a1);
    v2_store(dst, o0, o1);
}

/* dst = a + x r over the whole lane steps of n, x = b - a (diff) or b; returns how far */
EZ_V8_FN size_t mul_add_lanes(ez_fe2 *dst, const ez_fe2 *a, const ez_fe2 *b, size_t n, ez_fe2 r, bool diff)
{
    const lanes_c rc = lanes_of(r);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        ez_v8 a0, a1, b0, b1;
        v2_load(a + i, &a0, &a1);
        v2_load(b + i, &b0, &b1);
        if (diff)
            store_mul_add(dst + i, a0, a1, v_sub(b0, a0), v_sub(b1, a1), rc);
        else
            store_mul_add(dst + i, a0, a1, b0, b1, rc);
    }
    return i;
}

void ez_fe2_bind(ez_fe2 *dst, const ez_fe2 *lo, const ez_fe2 *hi, size_t n, ez_fe2 r)
{
    size_t i = mul_add_lanes(dst, lo, hi, n, r, true);
    ez_fe2_bind_ref(dst + i, lo + i, hi + i, n - i, r);
}

void ez_fe2_bind_base(ez_fe2 *dst, const ez_fe *lo, const ez_fe *hi, size_t n, ez_fe2 r)
{
    const ez_v8 r0 = v_set1(r.c0), r1 = v_set1(r.c1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        ez_v8 a = v_load_v2(lo + i), df = v_sub(v_load_v2(hi + i), a);
        v2_store(dst + i, v_add(a, v_mul(df, r0)), v_mul(df, r1));
    }
    ez_fe2_bind_base_ref(dst + i, lo + i, hi + i, n - i, r);
}

void ez_fe2_eq_split(ez_fe2 *x, ez_fe2 *hi, size_t n, ez_fe2 r)
{
    const lanes_c rc = lanes_of(r);
    const ez_v8 z = v_set1(0);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        ez_v8 a0, a1, h0, h1;
        v2_load(x + i, &a0, &a1);
        v2_mul_add_pre(&h0, &h1, a0, a1, rc.c0, rc.c1, rc.w, z, z);
        v2_store(hi + i, h0, h1);
        v2_store(x + i, v_sub(a0, h0), v_sub(a1, h1));
    }
    ez_fe2_eq_split_ref(x + i, hi + i, n - i, r);
}

void ez_fe2_axpy(ez_fe2 *dst, const ez_fe2 *a, ez_fe2 l, const ez_fe2 *b, size_t n)
{
    size_t i = mul_add_lanes(dst, a, b, n, l, false);
    ez_fe2_axpy_ref(dst + i, a + i, l, b + i, n - i);
}

void ez_fe2_frac_layer(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *pL, const ez_fe2 *qL, const ez_fe2 *pR,
                       const ez_fe2 *qR, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        ez_v8 pl0, pl1, ql0, ql1, pr0, pr1, qr0, qr1;
        v2_load(pL + i, &pl0, &pl1);
        v2_load(qL + i, &ql0, &ql1);
        v2_load(pR + i, &pr0, &pr1);
        v2_load(qR + i, &qr0, &qr1);
        /* p = pL qR + pR qL: the two X^2 parts summed before the one multiply by 7 */
        ez_v8 p11 = v_add(v_mul(pl1, qr1), v_mul(pr1, ql1));
        ez_v8 p0 = v_add(v_add(v_mul(pl0, qr0), v_mul(pr0, ql0)), v_mul_w(p11));
        ez_v8 p1 = v_add(v_add(v_mul(pl0, qr1), v_mul(pl1, qr0)), v_add(v_mul(pr0, ql1), v_mul(pr1, ql0)));
        ez_v8 q0, q1;
        v2_mul(&q0, &q1, ql0, ql1, qr0, qr1);
        v2_store(op + i, p0, p1);
        v2_store(oq + i, q0, q1);
    }
    ez_fe2_frac_layer_ref(op + i, oq + i, pL + i, qL + i, pR + i, qR + i, n - i);
}

void ez_fe2_frac_layer_unit(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *qL, const ez_fe2 *qR, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        ez_v8 ql0, ql1, qr0, qr1, q0, q1;
        v2_load(qL + i, &ql0, &ql1);
        v2_load(qR + i, &qr0, &qr1);
        v2_mul(&q0, &q1, ql0, ql1, qr0, qr1);
        v2_store(op + i, v_add(ql0, qr0), v_add(ql1, qr1));
        v2_store(oq + i, q0, q1);
    }
    ez_fe2_frac_layer_unit_ref(op + i, oq + i, qL + i, qR + i, n - i);
}

#else /* no lanes: the scalar loops */

void ez_fe2_bind(ez_fe2 *dst, const ez_fe2 *lo, const ez_fe2 *hi, size_t n, ez_fe2 r)
{
    ez_fe2_bind_ref(dst, lo, hi, n, r);
}

void ez_fe2_bind_base(ez_fe2 *dst, const ez_fe *lo, const ez_fe *hi, size_t n, ez_fe2 r)
{
    ez_fe2_bind_base_ref(dst, lo, hi, n, r);
}

void ez_fe2_eq_split(ez_fe2 *x, ez_fe2 *hi, size_t n, ez_fe2 r)
{
    ez_fe2_eq_split_ref(x, hi, n, r);
}

void ez_fe2_axpy(ez_fe2 *dst, const ez_fe2 *a, ez_fe2 l, const ez_fe2 *b, size_t n)
{
    ez_fe2_axpy_ref(dst, a, l, b, n);
}

void ez_fe2_frac_layer(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *pL, const ez_fe2 *qL, const ez_fe2 *pR,
                       const ez_fe2 *qR, size_t n)
{
    ez_fe2_frac_layer_ref(op, oq, pL, qL, pR, qR, n);
}

void ez_fe2_frac_layer_unit(ez_fe2 *op, ez_fe2 *oq, const ez_fe2 *qL, const ez_fe2 *qR, size_t n)
{
    ez_fe2_frac_layer_unit_ref(op, oq, qL, qR, n);
}

#endif

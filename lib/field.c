/* field — see field.h. */
#include "lib/field.h"

#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

ez_fe ez_fe_pow(ez_fe a, uint64_t e)
{
    ez_fe r = 1;
    while (e) {
        if (e & 1)
            r = ez_fe_mul(r, a);
        a = ez_fe_sqr(a);
        e >>= 1;
    }
    return r;
}

ez_fe ez_fe_inv(ez_fe a)
{
    return ez_fe_pow(a, EZ_P - 2); /* 0^(p-2) = 0, as specified */
}

bool ez_fe_batch_inv(ez_fe *out, const ez_fe *a, size_t n, ez_fe *scratch)
{
    ez_fe *pre = scratch ? scratch : malloc(n ? n * sizeof *pre : 1);
    if (pre == NULL)
        return false;
    /* pre[i] = product of the non-zero a[0..i-1]. */
    ez_fe acc = 1;
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (a[i] != 0)
            acc = ez_fe_mul(acc, a[i]);
    }
    ez_fe inv = ez_fe_inv(acc);
    for (size_t i = n; i-- > 0;) {
        ez_fe ai = a[i];
        if (ai == 0) {
            out[i] = 0;
            continue;
        }
        out[i] = ez_fe_mul(inv, pre[i]);
        inv = ez_fe_mul(inv, ai);
    }
    if (scratch == NULL)
        free(pre);
    return true;
}

void ez_fe_encode(uint8_t out[8], ez_fe a)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(a >> (8 * i));
}

bool ez_fe_decode(ez_fe *out, const uint8_t in[8])
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)in[i] << (8 * i);
    if (v >= EZ_P) {
        *out = 0;
        return false;
    }
    *out = v;
    return true;
}

ez_fe ez_fe_root_of_unity(unsigned k)
{
    if (k > 32)
        return 0;
    /* g^((p-1)/2^k) has order exactly 2^k because g generates the whole group. */
    return ez_fe_pow(EZ_FE_GENERATOR, (EZ_P - 1) >> k);
}

ez_fe2 ez_fe2_pow(ez_fe2 a, uint64_t e)
{
    ez_fe2 r = ez_fe2_one();
    while (e) {
        if (e & 1)
            r = ez_fe2_mul(r, a);
        a = ez_fe2_sqr(a);
        e >>= 1;
    }
    return r;
}

ez_fe2 ez_fe2_inv(ez_fe2 a)
{
    /* (a0 + a1 X)(a0 - a1 X) = a0^2 - 7 a1^2, a base-field norm; non-zero for a != 0
     * because X^2 - 7 is irreducible. */
    ez_fe norm = ez_fe_sub(ez_fe_sqr(a.c0), ez_fe_mul_w(ez_fe_sqr(a.c1)));
    ez_fe ninv = ez_fe_inv(norm);
    return ez_fe2_make(ez_fe_mul(a.c0, ninv), ez_fe_neg(ez_fe_mul(a.c1, ninv)));
}

bool ez_fe2_batch_inv(ez_fe2 *out, const ez_fe2 *a, size_t n, ez_fe2 *scratch)
{
    ez_fe2 *pre = scratch ? scratch : malloc(n ? n * sizeof *pre : 1);
    if (pre == NULL)
        return false;
    ez_fe2 acc = ez_fe2_one();
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!ez_fe2_is_zero(a[i]))
            acc = ez_fe2_mul(acc, a[i]);
    }
    ez_fe2 inv = ez_fe2_inv(acc);
    for (size_t i = n; i-- > 0;) {
        ez_fe2 ai = a[i];
        if (ez_fe2_is_zero(ai)) {
            out[i] = ai;
            continue;
        }
        out[i] = ez_fe2_mul(inv, pre[i]);
        inv = ez_fe2_mul(inv, ai);
    }
    if (scratch == NULL)
        free(pre);
    return true;
}

/* The dot products' accumulator: per coordinate the 128-bit products summed in 192 bits
 * (a + 2^128 t), reduced once at the end (2^128 = -2^32 mod p). */
typedef struct {
    unsigned __int128 a0, a1;
    uint64_t t0, t1;
} dot_acc;

static inline void dot_add(dot_acc *s, ez_fe2 e, ez_fe x)
{
    unsigned __int128 p0 = (unsigned __int128)e.c0 * x, p1 = (unsigned __int128)e.c1 * x;
    s->a0 += p0;
    s->t0 += s->a0 < p0;
    s->a1 += p1;
    s->t1 += s->a1 < p1;
}

static ez_fe2 dot_done(const dot_acc *s)
{
    ez_fe top0 = ez_fe_mul(ez_fe_from_u64(s->t0), (ez_fe)1 << 32);
    ez_fe top1 = ez_fe_mul(ez_fe_from_u64(s->t1), (ez_fe)1 << 32);
    return ez_fe2_make(ez_fe_sub(ez_fe_reduce128(s->a0), top0), ez_fe_sub(ez_fe_reduce128(s->a1), top1));
}

ez_fe2 ez_fe2_dot_base(const ez_fe2 *e, const ez_fe *x, size_t n)
{
    dot_acc s = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        dot_add(&s, e[i], x[i]);
    return dot_done(&s);
}

ez_fe2 ez_fe2_dot_i64(const ez_fe2 *e, const int64_t *v, size_t n)
{
    dot_acc s = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        dot_add(&s, e[i], ez_fe_from_i64(v[i]));
    return dot_done(&s);
}

/* ez_fe2_dot_i24's sums per coordinate c: of lo32(e) x', hi32(e) x', lo32(e), hi32(e). */
typedef struct {
    unsigned __int128 pl[2], ph[2], sl[2], sh[2];
} dot24_acc;

static inline void dot24_add(dot24_acc *s, ez_fe2 e, uint64_t x)
{
    const ez_fe c[2] = {e.c0, e.c1};
    for (int k = 0; k < 2; k++) {
        s->pl[k] += (c[k] & 0xffffffffu) * x;
        s->ph[k] += (c[k] >> 32) * x;
        s->sl[k] += c[k] & 0xffffffffu;
        s->sh[k] += c[k] >> 32;
    }
}

ez_fe2 ez_fe2_dot_i24(const ez_fe2 *e, const int64_t *v, size_t n)
{
    const int64_t off = INT64_C(1) << 23;
    dot24_acc s;
    memset(&s, 0, sizeof s);
    size_t i = 0;
#if defined(__AVX2__)
    /* lanes: c0 and c1 of e[i], then of e[i + 1]; x' of each broadcast to its two lanes */
    const __m256i voff = _mm256_set1_epi64x(off), lo32 = _mm256_set1_epi64x(0xffffffff);
    while (i + 2 <= n) {
        size_t end = n - i > 512 ? i + 512 : n; /* 256 products per lane: below 2^64 */
        __m256i al = _mm256_setzero_si256(), ah = al, el = al, eh = al;
        for (; i + 2 <= end; i += 2) {
            __m256i E = _mm256_loadu_si256((const __m256i *)(const void *)(e + i));
            __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
            __m256i X = _mm256_add_epi64(_mm256_permute4x64_epi64(_mm256_castsi128_si256(x2), 0x50), voff);
            __m256i Eh = _mm256_srli_epi64(E, 32);
            al = _mm256_add_epi64(al, _mm256_mul_epu32(E, X));
            ah = _mm256_add_epi64(ah, _mm256_mul_epu32(Eh, X));
            el = _mm256_add_epi64(el, _mm256_and_si256(E, lo32));
            eh = _mm256_add_epi64(eh, Eh);
        }
        uint64_t l[4][4];
        _mm256_storeu_si256((__m256i *)(void *)l[0], al);
        _mm256_storeu_si256((__m256i *)(void *)l[1], ah);
        _mm256_storeu_si256((__m256i *)(void *)l[2], el);
        _mm256_storeu_si256((__m256i *)(void *)l[3], eh);
        for (int k = 0; k < 2; k++) {
            s.pl[k] += (unsigned __int128)l[0][k] + l[0][k + 2];
            s.ph[k] += (unsigned __int128)l[1][k] + l[1][k + 2];
            s.sl[k] += (unsigned __int128)l[2][k] + l[2][k + 2];
            s.sh[k] += (unsigned __int128)l[3][k] + l[3][k + 2];
        }
    }
#endif
    for (; i < n; i++)
        dot24_add(&s, e[i], (uint64_t)(v[i] + off));
    const ez_fe two32 = (ez_fe)1 << 32;
    ez_fe r[2];
    for (int k = 0; k < 2; k++) {
        ez_fe p = ez_fe_add(ez_fe_reduce128(s.pl[k]), ez_fe_mul(ez_fe_reduce128(s.ph[k]), two32));
        ez_fe sum = ez_fe_add(ez_fe_reduce128(s.sl[k]), ez_fe_mul(ez_fe_reduce128(s.sh[k]), two32));
        r[k] = ez_fe_sub(p, ez_fe_mul(sum, (ez_fe)off));
    }
    return ez_fe2_make(r[0], r[1]);
}

void ez_fe2_encode(uint8_t out[16], ez_fe2 a)
{
    ez_fe_encode(out, a.c0);
    ez_fe_encode(out + 8, a.c1);
}

bool ez_fe2_decode(ez_fe2 *out, const uint8_t in[16])
{
    bool ok0 = ez_fe_decode(&out->c0, in);
    bool ok1 = ez_fe_decode(&out->c1, in + 8);
    return ok0 && ok1;
}

void ez_writer_fe2(ez_writer *w, const ez_fe2 *v, size_t n)
{
    uint8_t b[16];
    for (size_t i = 0; i < n; i++) {
        ez_fe2_encode(b, v[i]);
        ez_writer_bytes(w, b, sizeof b);
    }
}

bool ez_reader_fe(ez_reader *r, ez_fe *out, size_t n)
{
    const uint8_t *b = n > SIZE_MAX / 8 ? NULL : ez_reader_view(r, n * 8);
    if (b == NULL) {
        r->failed = true;
        return false;
    }
    _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "ez_fe_encode's bytes are the host's");
    memcpy(out, b, n * 8);
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= out[i] >= EZ_P;
    if (bad)
        r->failed = true;
    return bad == 0;
}

bool ez_reader_fe2(ez_reader *r, ez_fe2 *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = ez_reader_view(r, 16);
        if (b == NULL || !ez_fe2_decode(&out[i], b)) {
            r->failed = true;
            return false;
        }
    }
    return true;
}

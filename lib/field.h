/* field — the Goldilocks prime field p = 2^64 - 2^32 + 1 and its quadratic extension
 * F_p[X]/(X^2 - 7) (docs/protocol-kernel-sumcheck.md §1).
 *
 * Representation: an ez_fe is a uint64_t that is ALWAYS canonical (< p) on entry to
 * and exit from every function here. An ez_fe2 {c0, c1} is c0 + c1*X with X^2 = 7;
 * 7 is a quadratic non-residue mod p (the same extension Plonky2 uses), so the
 * extension has p^2 ~ 2^128 elements and verifier challenges drawn from it make
 * sumcheck/GKR soundness errors about deg*rounds/2^127.
 *
 * Reduction is branch-free (conditional moves), using 2^64 = 2^32 - 1 (mod p) and
 * 2^96 = -1 (mod p). Constant time is not a goal (no secrets), speed is.
 * All functions are pure; outputs may alias inputs. */
#ifndef EZ_FIELD_H
#define EZ_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

typedef uint64_t ez_fe;
typedef struct {
    ez_fe c0, c1;
} ez_fe2;

#define EZ_P UINT64_C(0xFFFFFFFF00000001)
#define EZ_EPSILON UINT64_C(0xFFFFFFFF) /* 2^64 mod p */
#define EZ_FE2_W 7                       /* X^2 = W */

/* ---- base field ------------------------------------------------------------------ */

static inline ez_fe ez_fe_add(ez_fe a, ez_fe b)
{
    ez_fe s;
    uint64_t carry = __builtin_add_overflow(a, b, &s);
    /* s + 2^64 = s + EPSILON (mod p); with a, b < p this never overflows again. */
    s += (0 - carry) & EZ_EPSILON;
    ez_fe t;
    uint64_t lt = __builtin_sub_overflow(s, EZ_P, &t); /* lt: s < p */
    return t + ((0 - lt) & EZ_P);
}

static inline ez_fe ez_fe_sub(ez_fe a, ez_fe b)
{
    ez_fe d;
    uint64_t borrow = __builtin_sub_overflow(a, b, &d);
    /* d wrapped by 2^64; subtracting EPSILON turns +2^64 into +p. */
    return d - ((0 - borrow) & EZ_EPSILON);
}

static inline ez_fe ez_fe_neg(ez_fe a)
{
    return ez_fe_sub(0, a);
}

/* Reduce a 128-bit value modulo p; result canonical. */
static inline ez_fe ez_fe_reduce128(unsigned __int128 x)
{
    uint64_t lo = (uint64_t)x;
    uint64_t hi = (uint64_t)(x >> 64);
    uint64_t hi_hi = hi >> 32;
    uint64_t hi_lo = hi & EZ_EPSILON;
    /* x = lo + hi_lo*2^64 + hi_hi*2^96 = lo + hi_lo*(2^32-1) - hi_hi (mod p).
     * Carries and borrows are turned into masks: data-dependent branches here cost a
     * misprediction on about half of all random inputs. */
    uint64_t t0;
    uint64_t borrow = __builtin_sub_overflow(lo, hi_hi, &t0);
    t0 -= (0 - borrow) & EZ_EPSILON;
    uint64_t t1 = hi_lo * EZ_EPSILON; /* < 2^64 */
    uint64_t t2;
    uint64_t carry = __builtin_add_overflow(t0, t1, &t2);
    t2 += (0 - carry) & EZ_EPSILON;
    /* t2 >= p is rare (probability ~2^-32): a predictable branch is fine. */
    return t2 >= EZ_P ? t2 - EZ_P : t2;
}

static inline ez_fe ez_fe_mul(ez_fe a, ez_fe b)
{
    return ez_fe_reduce128((unsigned __int128)a * b);
}

static inline ez_fe ez_fe_sqr(ez_fe a)
{
    return ez_fe_mul(a, a);
}

/* Any uint64 to its canonical residue. */
static inline ez_fe ez_fe_from_u64(uint64_t v)
{
    return v >= EZ_P ? v - EZ_P : v;
}

/* A signed integer to its residue (negative v maps to p - |v| mod p). */
static inline ez_fe ez_fe_from_i64(int64_t v)
{
    return v >= 0 ? ez_fe_from_u64((uint64_t)v) : ez_fe_neg(ez_fe_from_u64((uint64_t)0 - (uint64_t)v));
}

/* The centered representative in (-p/2, p/2] as int64 when it fits (|v| < 2^63),
 * which is every value the bound analysis admits. */
static inline int64_t ez_fe_to_i64(ez_fe a)
{
    return a > EZ_P / 2 ? -(int64_t)(EZ_P - a) : (int64_t)a;
}

/* a^e by square-and-multiply (64 squarings). */
ez_fe ez_fe_pow(ez_fe a, uint64_t e);
/* a^(p-2): the inverse for a != 0; ez_fe_inv(0) = 0 by specification. */
ez_fe ez_fe_inv(ez_fe a);
/* out[i] = a[i]^-1 with Montgomery's trick: 3(n-1) multiplies and one inversion.
 * Zeros map to zero (they are skipped). out may equal a. scratch: n elements or NULL
 * (then allocated; returns false only if that allocation fails). */
bool ez_fe_batch_inv(ez_fe *out, const ez_fe *a, size_t n, ez_fe *scratch);

/* Canonical 8-byte little-endian encoding. Decoding rejects values >= p. */
void ez_fe_encode(uint8_t out[8], ez_fe a);
bool ez_fe_decode(ez_fe *out, const uint8_t in[8]);

/* A generator of the multiplicative group (order p - 1 = 2^32 * 3 * 5 * 17 * 257 * 65537). */
#define EZ_FE_GENERATOR 7
/* A primitive 2^k-th root of unity, k <= 32. */
ez_fe ez_fe_root_of_unity(unsigned k);

/* ---- quadratic extension --------------------------------------------------------- */

static inline ez_fe2 ez_fe2_make(ez_fe c0, ez_fe c1)
{
    ez_fe2 r = {c0, c1};
    return r;
}

static inline ez_fe2 ez_fe2_from_fe(ez_fe a)
{
    return ez_fe2_make(a, 0);
}

static inline ez_fe2 ez_fe2_zero(void) { return ez_fe2_make(0, 0); }
static inline ez_fe2 ez_fe2_one(void) { return ez_fe2_make(1, 0); }

static inline bool ez_fe2_eq(ez_fe2 a, ez_fe2 b)
{
    return a.c0 == b.c0 && a.c1 == b.c1;
}

static inline bool ez_fe2_is_zero(ez_fe2 a)
{
    return (a.c0 | a.c1) == 0;
}

static inline ez_fe2 ez_fe2_add(ez_fe2 a, ez_fe2 b)
{
    return ez_fe2_make(ez_fe_add(a.c0, b.c0), ez_fe_add(a.c1, b.c1));
}

static inline ez_fe2 ez_fe2_sub(ez_fe2 a, ez_fe2 b)
{
    return ez_fe2_make(ez_fe_sub(a.c0, b.c0), ez_fe_sub(a.c1, b.c1));
}

static inline ez_fe2 ez_fe2_neg(ez_fe2 a)
{
    return ez_fe2_make(ez_fe_neg(a.c0), ez_fe_neg(a.c1));
}

/* 7*a without a multiply: 8a - a, reduced. */
static inline ez_fe ez_fe_mul_w(ez_fe a)
{
    ez_fe a2 = ez_fe_add(a, a);
    ez_fe a4 = ez_fe_add(a2, a2);
    ez_fe a8 = ez_fe_add(a4, a4);
    return ez_fe_sub(a8, a);
}

/* (a0 + a1 X)(b0 + b1 X) = (a0 b0 + 7 a1 b1) + (a0 b1 + a1 b0) X.
 * a1 b1 is reduced first so that a0 b0 + 7 t stays below 2^128 and the constant
 * coefficient needs one reduction. */
static inline ez_fe2 ez_fe2_mul(ez_fe2 a, ez_fe2 b)
{
    ez_fe t = ez_fe_mul(a.c1, b.c1);
    unsigned __int128 c0 = (unsigned __int128)a.c0 * b.c0 + (unsigned __int128)t * EZ_FE2_W;
    /* a0 b0 <= (p-1)^2 < 2^128 - 2^96 and 7 t < 2^67: the sum fits in 128 bits. */
    unsigned __int128 x = (unsigned __int128)a.c0 * b.c1;
    unsigned __int128 y = (unsigned __int128)a.c1 * b.c0;
    ez_fe c1a = ez_fe_reduce128(x);
    ez_fe c1b = ez_fe_reduce128(y);
    return ez_fe2_make(ez_fe_reduce128(c0), ez_fe_add(c1a, c1b));
}

static inline ez_fe2 ez_fe2_sqr(ez_fe2 a)
{
    return ez_fe2_mul(a, a);
}

/* base x extension: two base multiplies. */
static inline ez_fe2 ez_fe2_mul_fe(ez_fe2 a, ez_fe b)
{
    return ez_fe2_make(ez_fe_mul(a.c0, b), ez_fe_mul(a.c1, b));
}

ez_fe2 ez_fe2_pow(ez_fe2 a, uint64_t e);
/* (a0 - a1 X) / (a0^2 - 7 a1^2); ez_fe2_inv(0) = 0 by specification. */
ez_fe2 ez_fe2_inv(ez_fe2 a);
/* sum_i e[i] * x[i], extension times base (canonical inputs): the 128-bit products
 * summed in 192 bits per coordinate and reduced once (2^128 = -2^32 mod p). O(n). */
ez_fe2 ez_fe2_dot_base(const ez_fe2 *e, const ez_fe *x, size_t n);
/* The same over integers (each taken mod p): no field copy of x needed. O(n). */
ez_fe2 ez_fe2_dot_i64(const ez_fe2 *e, const int64_t *v, size_t n);
/* The same for integers of at most 24 bits: every v[i] in [-2^23, 2^23) (the caller's
 * guarantee: a statement tensor of width <= 3 bytes, GPT-2's logits), at about a third of
 * ez_fe2_dot_i64's cost: sum e x = sum e (x + 2^23) - 2^23 sum e, and each e (x + 2^23)
 * split at e's 32-bit halves is below 2^56, so 256 of them add in a 64-bit lane (AVX2:
 * four lanes, one 32x32-bit multiply per coordinate half). O(n). */
ez_fe2 ez_fe2_dot_i24(const ez_fe2 *e, const int64_t *v, size_t n);
/* Montgomery batch inversion in the extension; zeros map to zero. out may equal a. */
bool ez_fe2_batch_inv(ez_fe2 *out, const ez_fe2 *a, size_t n, ez_fe2 *scratch);

/* 16 bytes: c0 then c1, each canonical little-endian. */
void ez_fe2_encode(uint8_t out[16], ez_fe2 a);
bool ez_fe2_decode(ez_fe2 *out, const uint8_t in[16]);

/* ---- extension elements in proofs (lib/util.h's writer and reader) ------------------
 * Every proof message that carries extension elements writes and reads them with these
 * two, so there is one encoding (ez_fe2_encode, 16 bytes each) and one rule for a
 * non-canonical one: it fails the read like a short proof. */

/* Append v[0..n) to w, 16 bytes each. O(n). */
void ez_writer_fe2(ez_writer *w, const ez_fe2 *v, size_t n);
/* Read n elements into out. False when the bytes run out or an encoding is not
 * canonical; r->failed is set then, and out[] is partly written. O(n). */
bool ez_reader_fe2(ez_reader *r, ez_fe2 *out, size_t n);
/* The same for n base elements, 8 bytes each (ez_fe_encode), copied in one block: the
 * PCS openings read columns of thousands. Also reads an ez_fe2 array as 2n elements. */
bool ez_reader_fe(ez_reader *r, ez_fe *out, size_t n);

#endif

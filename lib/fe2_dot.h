/* fe2_dot — exact sums of products of extension and base elements on lanes, for WHIR's
 * round 0 and its queries' constraints (lib/whir_prove.c: a claim term's rows, the
 * constraints of the queries to a batched instance's oracle 0).
 *
 * A product e x (e extension, x base) is summed as exact integers and reduced once: x in
 * three limbs of 22, 22 and 20 bits, each coordinate of e in two halves of 32 bits, so
 * every vpmuludq product is below 2^54 and 2^10 of them add up in a 64-bit lane with no
 * carry. With AVX-512 eight lanes are one register; with AVX2 only (the AMD EPYC hosts)
 * four lanes are one register and eight lanes two runs of four, one coordinate of e per
 * pass (six sums, no spills in sixteen registers). Without either the kernel is its
 * `_ref` loop. The arithmetic is exact, so every output equals the scalar one
 * (tests/check_whir.c test_whir_acc8 compares them on edge values, lengths around the
 * steps and the most steps). Inputs are canonical. */
#ifndef EZ_FE2_DOT_H
#define EZ_FE2_DOT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/field.h"

/* Whether the kernel below runs on lanes (else it is its `_ref` loop). */
#if defined(__AVX512F__) || defined(__AVX2__)
#define EZ_FE2_DOT_LANES 1
#else
#define EZ_FE2_DOT_LANES 0
#endif

/* At most this many steps per call of ez_fe2_acc8_base: 2^10 products below 2^54 fit a
 * 64-bit lane. */
#define EZ_FE2_ACC8_MAX 1024u

/* out[l] += sum_{u < n} e[u] x[u stride + l] for the eight lanes l < 8 (eight adjacent
 * columns of a row-major table, one dot product each). Refuses n > EZ_FE2_ACC8_MAX:
 * returns false and leaves out unchanged. */
bool ez_fe2_acc8_base(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n);
bool ez_fe2_acc8_base_ref(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n);

#endif

/* sumcheck_internal — what lib/sumcheck.c shares with its sibling provers
 * (lib/sumcheck_box.c) so that they write the same transcript records and round values
 * as ez_sumcheck_prove; not part of the kernel's public interface. */
#ifndef EZ_SUMCHECK_INTERNAL_H
#define EZ_SUMCHECK_INTERNAL_H

#include "lib/sumcheck.h"

/* The statement records both sides absorb first (desc shape, coefficients, eq point,
 * claim; deg = ez_sumcheck_degree(d)). */
void ez_sumcheck_absorb_header(ez_transcript *t, const ez_sumcheck_desc *d, unsigned deg, const ez_fe2 *coeffs,
                               const ez_fe2 *eq_point, ez_fe2 claim);

/* The polynomial of degree <= D through (k, v[k]), k = 0..D, at x; inv_dfact = 1/D!. */
ez_fe2 ez_sumcheck_interp(const ez_fe2 *v, unsigned D, ez_fe2 x, ez_fe inv_dfact);

#endif

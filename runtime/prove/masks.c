/* masks — closed-form MLEs of the public structured masks (masks.h). */
#include "config.h"

#include "runtime/prove/masks.h"

#include <string.h>

ez_fe2 ez_mle_causal(const ez_fe2 *ri, unsigned ni, const ez_fe2 *rj, unsigned nj)
{
    /* [j > i] = sum_b (prod_{c < b} eq(i_c, j_c)) j_b (1 - i_b) over aligned bits, MSB
     * first; every variable occurs once per term, so this is the multilinear extension. */
    unsigned m = ni > nj ? ni : nj;
    ez_fe2 one = ez_fe2_one(), e = one, gt = ez_fe2_zero();
    for (unsigned b = 0; b < m; b++) {
        ez_fe2 ib = b >= m - ni ? ri[b - (m - ni)] : ez_fe2_zero();
        ez_fe2 jb = b >= m - nj ? rj[b - (m - nj)] : ez_fe2_zero();
        gt = ez_fe2_add(gt, ez_fe2_mul(e, ez_fe2_mul(jb, ez_fe2_sub(one, ib))));
        ez_fe2 eqb = ez_fe2_add(ez_fe2_mul(ib, jb), ez_fe2_mul(ez_fe2_sub(one, ib), ez_fe2_sub(one, jb)));
        e = ez_fe2_mul(e, eqb);
    }
    return ez_fe2_sub(one, gt);
}

ez_fe2 ez_softmax_live_mle(const ez_fe2 *ri, unsigned ni, uint64_t Ni, const ez_fe2 *rj, unsigned nj, uint64_t Nj)
{
    /* state: cmp (0: j == i so far, 1: j < i, 2: j > i) x ti (0: i tight against Ni-1,
     * 1: below) x tj (same for j); a bit above the bound kills the run. Bits are aligned at
     * the least significant end; a missing high bit of the shorter index is constant 0. */
    unsigned m = ni > nj ? ni : nj;
    uint64_t bi = Ni - 1, bj = Nj - 1;
    ez_fe2 w[3][2][2], nw[3][2][2];
    memset(w, 0, sizeof w);
    w[0][0][0] = ez_fe2_one();
    for (unsigned b = 0; b < m; b++) {
        bool hasi = b >= m - ni, hasj = b >= m - nj;
        ez_fe2 xi = hasi ? ri[b - (m - ni)] : ez_fe2_zero(), xj = hasj ? rj[b - (m - nj)] : ez_fe2_zero();
        unsigned li = (unsigned)((bi >> (m - 1 - b)) & 1), lj = (unsigned)((bj >> (m - 1 - b)) & 1);
        ez_fe2 fi[2] = {ez_fe2_sub(ez_fe2_one(), xi), xi}, fj[2] = {ez_fe2_sub(ez_fe2_one(), xj), xj};
        memset(nw, 0, sizeof nw);
        for (unsigned c = 0; c < 3; c++)
            for (unsigned ti = 0; ti < 2; ti++)
                for (unsigned tj = 0; tj < 2; tj++) {
                    ez_fe2 v = w[c][ti][tj];
                    if (ez_fe2_is_zero(v))
                        continue;
                    for (unsigned ib = 0; ib < (hasi ? 2u : 1u); ib++)
                        for (unsigned jb = 0; jb < (hasj ? 2u : 1u); jb++) {
                            if ((ti == 0 && ib > li) || (tj == 0 && jb > lj))
                                continue; /* above Ni - 1 or Nj - 1: not a real entry */
                            unsigned c2 = c != 0 ? c : jb < ib ? 1u : jb > ib ? 2u : 0u;
                            unsigned t2i = ti | (ib < li), t2j = tj | (jb < lj);
                            nw[c2][t2i][t2j] = ez_fe2_add(nw[c2][t2i][t2j], ez_fe2_mul(v, ez_fe2_mul(fi[ib], fj[jb])));
                        }
                }
        memcpy(w, nw, sizeof w);
    }
    ez_fe2 s = ez_fe2_zero();
    for (unsigned c = 0; c < 2; c++)
        for (unsigned ti = 0; ti < 2; ti++)
            for (unsigned tj = 0; tj < 2; tj++)
                s = ez_fe2_add(s, w[c][ti][tj]);
    return s;
}

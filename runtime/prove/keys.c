/* keys — see keys.h; the formats in docs/protocol.md §9, the deferred range proof §6.4. */
#include "config.h"

#include "runtime/prove/keys.h"

#include "runtime/prove/weights.h"

ez_status ez_vk_decode(ez_vk *vk, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_status st = ez_vk_parse(vk, data, len, d);
    if (st != EZ_OK || !vk->has_weights)
        return st;
    /* lens: the plan's weight shape under the commitment's scheme; the supports of its
     * polys are the plan's (public, not in the bytes) */
    if ((st = ez_weights_set_supports(&vk->plan, &vk->wcom, d)) != EZ_OK) {
        ez_diag_set(d, "the weight commitment does not match the model's weights");
        ez_vk_clear(vk);
        return st == EZ_ERR_NOMEM ? st : EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

/* A deferred range proof: verify the pk's copy (section 4) and set its final claims as the
 * prover's standing claims. */
static ez_status pk_standing(ez_pk *pk, const ez_plan *p, const uint8_t *wr, size_t len, ez_diag *d)
{
    const ez_pcs_commitment *c = ez_pcs_prover_commitment(pk->pcs);
    if (!ez_weights_deferred(p, c))
        return EZ_OK;
    ez_pcs_commitment wc;
    bool ok = false;
    ez_diag sub = {{0}};
    ez_status st = ez_pcs_commitment_copy(&wc, c);
    if (st == EZ_OK)
        st = ez_weight_range_verify(p, &wc, wr, len, &ok, &sub);
    if (st == EZ_OK && !ok) {
        ez_diag_set(d, "proving key: %s", sub.msg);
        st = EZ_ERR_FORMAT;
    }
    if (st == EZ_OK)
        st = ez_pcs_prover_set_standing(pk->pcs, wc.standing, wc.nstanding);
    ez_pcs_commitment_clear(&wc);
    return st;
}

ez_status ez_pk_decode(ez_pk *pk, const ez_plan *p, const uint8_t *data, size_t len, ez_diag *d)
{
    const uint8_t *wr = NULL;
    size_t wrlen = 0;
    ez_status st = ez_pk_parse(pk, p, data, len, &wr, &wrlen, d);
    if (st != EZ_OK || pk->pcs == NULL)
        return st;
    ez_diag sub = {{0}};
    if ((st = ez_weights_check(p, pk->pcs, &sub)) != EZ_OK) {
        ez_diag_set(d, "proving key: %s", sub.msg);
        st = st == EZ_ERR_NOMEM ? st : EZ_ERR_FORMAT;
    } else {
        st = pk_standing(pk, p, wr, wrlen, d);
    }
    if (st != EZ_OK)
        ez_pk_clear(pk);
    return st;
}

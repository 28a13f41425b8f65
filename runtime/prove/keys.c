/* keys — see keys.h; the formats in docs/protocol.md §9, the deferred range proof §6.4. */
#include "config.h"

#include "runtime/prove/keys.h"

#include "runtime/prove/weights.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec.h"

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

/* A trace of plan p whose WEIGHT tensors are the pk's arrays (borrowed: pk_trace_clear
 * hands them back): what the weight source reads. full: every other tensor too, zero as
 * in setup's trace (a deferred range proof's witness runs every op's fill hook); else
 * only the weights (the weight polys read nothing more), no trace-sized allocation. */
static ez_status pk_trace(ez_trace *tr, const ez_pk *pk, const ez_plan *p, bool full, ez_diag *d)
{
    memset(tr, 0, sizeof *tr);
    ez_status st = full ? ez_trace_init(tr, p, d) : EZ_OK;
    if (st != EZ_OK)
        return st;
    tr->plan = p;
    if (!full && (tr->t = ez_alloc_array(p->ntensors, sizeof *tr->t)) == NULL)
        return EZ_ERR_NOMEM;
    for (size_t k = 0; k < pk->nweights; k++) {
        size_t i = pk->weights[k].tensor;
        free(tr->t[i]);
        tr->t[i] = pk->weights[k].v;
    }
    return EZ_OK;
}

static void pk_trace_clear(ez_trace *tr, const ez_pk *pk)
{
    for (size_t k = 0; tr->t && k < pk->nweights; k++)
        tr->t[pk->weights[k].tensor] = NULL;
    ez_trace_clear(tr);
}

/* The PCS prover data (rest->pcs), its stacked vector rebuilt from the pk's weights by
 * setup's own layout (ez_wsource): the commitment is read first on its own, to learn its
 * scheme and to check its lens are the plan's weight shape before anything is laid out. */
static ez_status pk_prover(ez_pk *pk, const ez_plan *p, const ez_pk_rest *rest, ez_diag *d)
{
    ez_reader r, peek;
    ez_pcs_commitment com;
    ez_wsource src;
    ez_trace tr;
    ez_diag sub = {{0}};
    memset(&com, 0, sizeof com);
    memset(&src, 0, sizeof src);
    memset(&tr, 0, sizeof tr);
    ez_reader_init(&r, rest->pcs, rest->pcs_len);
    peek = r;
    ez_status st = ez_pcs_commitment_read(&peek, &com);
    if (st == EZ_OK && (st = ez_weights_set_supports(p, &com, &sub)) == EZ_OK &&
        (st = pk_trace(&tr, pk, p, ez_weights_deferred(p, &com), &sub)) == EZ_OK &&
        (st = ez_wsource_init(&src, p, &tr, com.scheme, &sub)) == EZ_OK) {
        ez_pcs_polys_src ps = {.sup = src.W.sup, .fill = ez_wsource_poly, .ctx = &src};
        st = ez_pcs_prover_read(&r, &pk->pcs, &ps);
        if (st == EZ_OK && !ez_reader_done(&r))
            st = EZ_ERR_FORMAT;
    }
    if (st != EZ_OK && st != EZ_ERR_NOMEM) {
        if (sub.msg[0])
            ez_diag_set(d, "proving key: %s", sub.msg);
        else
            ez_diag_set(d, "proving key: malformed commitment data");
        st = EZ_ERR_FORMAT;
    }
    ez_wsource_clear(&src);
    if (tr.plan)
        pk_trace_clear(&tr, pk);
    ez_pcs_commitment_clear(&com);
    return st;
}

ez_status ez_pk_decode(ez_pk *pk, const ez_plan *p, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_pk_rest rest;
    ez_status st = ez_pk_parse(pk, p, data, len, &rest, d);
    if (st != EZ_OK || rest.pcs == NULL)
        return st;
    ez_diag sub = {{0}};
    st = pk_prover(pk, p, &rest, d);
    if (st == EZ_OK && (st = ez_weights_check(p, pk->pcs, &sub)) != EZ_OK) {
        ez_diag_set(d, "proving key: %s", sub.msg);
        st = st == EZ_ERR_NOMEM ? st : EZ_ERR_FORMAT;
    }
    if (st == EZ_OK)
        st = pk_standing(pk, p, rest.wrange, rest.wrange_len, d);
    if (st != EZ_OK)
        ez_pk_clear(pk);
    return st;
}

/* statement — see statement.h. */
#include "config.h"

#include "runtime/prove/statement.h"

#include "lib/mle.h"

ez_status ez_stmt_eval(ez_fe2 *out, const ez_stmt_tensor *x, const ez_plan_tensor *t, const ez_fe2 *point)
{
    if (x->n != ez_plan_tensor_numel(t))
        return EZ_ERR_INVALID;
    if (t->rank == 0) {
        int64_t v;
        ez_stmt_get(x, 0, 1, &v);
        *out = ez_fe2_from_fe(ez_fe_from_i64(v));
        return EZ_OK;
    }
    size_t dims[EZ_MAX_RANK];
    for (unsigned a = 0; a < t->rank; a++)
        dims[a] = (size_t)t->dims[a];
    *out = x->v ? ez_mle_eval_tensor_i64(x->v, dims, t->rank, point)
                : ez_mle_eval_tensor_packed(x->raw, x->w, dims, t->rank, point);
    return EZ_OK;
}

uint64_t ez_statement_bytes(const ez_statement *s)
{
    uint64_t b = 0;
    for (size_t i = 0; i < s->n; i++)
        b += s->t[i].n * (s->t[i].raw ? s->t[i].w : 8);
    return b;
}

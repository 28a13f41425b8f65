/* einc — .einc artifact I/O, the plan digest and the plan's JSON view (einc.h). */
#include "compiler/einc.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/schedule.h"

#define EINC_MAX_TENSORS (UINT64_C(1) << 20)
#define EINC_MAX_OPS (UINT64_C(1) << 20)
/* smallest encodings, so a count can be checked against the bytes that remain */
#define EINC_MIN_TENSOR_BYTES 42
#define EINC_MIN_OP_BYTES 55
#define EINC_MIN_SCHED_BYTES 14
#define EINC_SEC_HEADER_BYTES 12

/* ---- encoding ------------------------------------------------------------------------ */

static void put_u16(ez_writer *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    ez_writer_bytes(w, b, 2);
}

/* Begin a section; returns the offset of its length field (patched by sec_end). */
static size_t sec_begin(ez_writer *w, uint32_t tag)
{
    ez_writer_u32(w, tag);
    return ez_writer_reserve(w, 8);
}

static void sec_end(ez_writer *w, size_t len_off)
{
    if (!w->failed && len_off != SIZE_MAX)
        ez_writer_patch_u64(w, len_off, w->len - len_off - 8);
}

static void put_axes(ez_writer *w, const unsigned *axes, unsigned rank)
{
    ez_writer_u8(w, (uint8_t)rank);
    for (unsigned a = 0; a < rank; a++)
        ez_writer_u8(w, (uint8_t)axes[a]);
}

/* The canonical encoding: everything but the digest section. */
static void encode_body(ez_writer *w, const ez_plan *p)
{
    ez_writer_bytes(w, EZ_EINC_MAGIC, 4);
    put_u16(w, EZ_EINC_MAJOR);
    put_u16(w, EZ_EINC_MINOR);

    size_t s = sec_begin(w, EZ_EINC_SEC_MODEL);
    ez_writer_str(w, p->model);
    sec_end(w, s);

    s = sec_begin(w, EZ_EINC_SEC_TENSORS);
    ez_writer_u64(w, p->ntensors);
    for (size_t t = 0; t < p->ntensors; t++) {
        const ez_plan_tensor *x = &p->tensors[t];
        ez_writer_str(w, x->name);
        ez_writer_str(w, x->source_name);
        ez_writer_u8(w, (uint8_t)x->kind);
        ez_writer_u8(w, (uint8_t)x->rank);
        for (unsigned a = 0; a < x->rank; a++)
            ez_writer_u64(w, x->dims[a]);
        ez_writer_u32(w, x->scale);
        ez_writer_u32(w, x->bits);
        ez_writer_u64(w, x->bound);
        ez_writer_i64(w, x->token_limit);
        ez_writer_u8(w, x->is_output ? 1 : 0);
        ez_writer_i64(w, x->producer);
    }
    sec_end(w, s);

    s = sec_begin(w, EZ_EINC_SEC_OPS);
    ez_writer_u64(w, p->nops);
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        ez_writer_u8(w, (uint8_t)op->kind);
        ez_writer_str(w, op->label);
        ez_writer_str(w, op->equation);
        ez_writer_u32(w, op->line);
        ez_writer_u32(w, op->out);
        ez_writer_u8(w, (uint8_t)op->nin);
        for (unsigned k = 0; k < op->nin; k++)
            ez_writer_u32(w, op->in[k]);
        ez_writer_u8(w, (uint8_t)op->nidx);
        for (unsigned x = 0; x < op->nidx; x++) {
            ez_writer_str(w, op->idx_name[x]);
            ez_writer_u64(w, op->idx_size[x]);
        }
        for (unsigned k = 0; k < op->nin; k++) {
            unsigned rank = p->tensors[op->in[k]].rank;
            put_axes(w, op->in_axes[k], rank);
            ez_writer_u8(w, op->in_fixed[k]);
            for (unsigned a = 0; a < rank; a++)
                if ((op->in_fixed[k] >> a) & 1)
                    ez_writer_u64(w, op->in_pos[k][a]);
        }
        put_axes(w, op->out_axes, p->tensors[op->out].rank);
        ez_writer_i64(w, op->mul);
        for (unsigned k = 0; k < op->nin; k++)
            ez_writer_i64(w, op->coef[k]);
        ez_writer_u32(w, op->shift);
        ez_writer_u8(w, op->checked ? 1 : 0);
        ez_writer_u32(w, op->axis);
        ez_writer_u8(w, op->masked ? 1 : 0);
        ez_writer_u32(w, op->mask_row);
        ez_writer_u32(w, op->mask_col);
        ez_writer_u8(w, (uint8_t)op->func);
        ez_writer_u32(w, op->in_scale);
        ez_writer_u32(w, op->out_scale);
    }
    sec_end(w, s);

    s = sec_begin(w, EZ_EINC_SEC_SCHEDULE);
    ez_writer_u64(w, p->nops);
    for (size_t i = 0; i < p->nops; i++) {
        const ez_plan_op *op = &p->ops[i];
        const ez_eq_schedule *sc = &op->sched;
        ez_writer_u8(w, (uint8_t)op->nidx);
        for (unsigned x = 0; x < op->nidx; x++)
            ez_writer_u8(w, (uint8_t)sc->cls[x]);
        ez_writer_u32(w, sc->nvars);
        ez_writer_u32(w, sc->eq_vars);
        ez_writer_u32(w, sc->degree);
        put_axes(w, sc->bind_order, sc->nbind);
        ez_writer_u32(w, sc->live); /* since 2.1 */
    }
    sec_end(w, s);
}

static void sha256(uint8_t out[32], const uint8_t *data, size_t len)
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

ez_status ez_einc_encode(ez_writer *w, ez_plan *p, ez_diag *d)
{
    ez_diag why;
    if (ez_plan_validate(p, &why) != EZ_OK) {
        ez_diag_set(d, "cannot encode an invalid plan: %s", why.msg);
        return EZ_ERR_INVALID;
    }
    size_t start = w->len;
    encode_body(w, p);
    if (w->failed)
        return EZ_ERR_NOMEM;
    sha256(p->digest, w->data + start, w->len - start);
    size_t s = sec_begin(w, EZ_EINC_SEC_DIGEST);
    ez_writer_bytes(w, p->digest, 32);
    sec_end(w, s);
    return w->failed ? EZ_ERR_NOMEM : EZ_OK;
}

ez_status ez_plan_compute_digest(ez_plan *p, ez_diag *d)
{
    ez_writer w;
    ez_writer_init(&w);
    ez_status st = ez_einc_encode(&w, p, d);
    ez_writer_clear(&w);
    return st;
}

/* ---- decoding ------------------------------------------------------------------------ */

/* Read a string into a fixed buffer of cap bytes (at most cap - 1 characters). */
static bool get_name(ez_reader *r, char *dst, size_t cap)
{
    char *s = ez_reader_str(r, cap - 1);
    if (s == NULL)
        return false;
    memcpy(dst, s, strlen(s) + 1);
    free(s);
    return true;
}

static bool get_axes(ez_reader *r, unsigned *axes, unsigned expect_rank, unsigned cap)
{
    unsigned n = ez_reader_u8(r);
    if (r->failed || n != expect_rank || n > cap)
        return false;
    for (unsigned a = 0; a < n; a++)
        axes[a] = ez_reader_u8(r);
    return !r->failed;
}

/* Open the next section, which must carry `tag`; unknown tags of a newer minor version
 * are skipped. On success *sub reads exactly the payload. */
static ez_status next_section(ez_reader *r, uint32_t tag, uint16_t minor, ez_reader *sub, ez_diag *d)
{
    for (;;) {
        uint32_t t = ez_reader_u32(r);
        uint64_t len = ez_reader_u64(r);
        if (r->failed || len > ez_reader_remaining(r)) {
            ez_diag_set(d, "truncated file: section %u is missing or cut short", tag);
            return EZ_ERR_FORMAT;
        }
        const uint8_t *payload = ez_reader_view(r, (size_t)len);
        if (t == tag) {
            ez_reader_init(sub, payload, (size_t)len);
            return EZ_OK;
        }
        if (!(minor > EZ_EINC_MINOR && t > EZ_EINC_SEC_DIGEST)) {
            ez_diag_set(d, "unexpected section %u where section %u belongs", t, tag);
            return EZ_ERR_FORMAT;
        }
    }
}

static ez_status end_section(ez_reader *sub, const char *what, ez_diag *d)
{
    if (sub->failed) {
        ez_diag_set(d, "malformed %s section (truncated or a field out of range)", what);
        return EZ_ERR_FORMAT;
    }
    if (!ez_reader_done(sub)) {
        ez_diag_set(d, "%zu trailing bytes in the %s section", ez_reader_remaining(sub), what);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

static ez_status decode_tensors(ez_reader *r, ez_plan *p, ez_diag *d)
{
    uint64_t n = ez_reader_count(r, EINC_MAX_TENSORS, EINC_MIN_TENSOR_BYTES);
    if (r->failed || n == 0) {
        ez_diag_set(d, "invalid tensor count");
        return EZ_ERR_FORMAT;
    }
    p->tensors = ez_alloc_array((size_t)n, sizeof *p->tensors);
    if (p->tensors == NULL)
        return EZ_ERR_NOMEM;
    p->ntensors = (size_t)n;
    for (size_t t = 0; t < p->ntensors; t++) {
        ez_plan_tensor *x = &p->tensors[t];
        if (!get_name(r, x->name, sizeof x->name) || !get_name(r, x->source_name, sizeof x->source_name))
            goto bad;
        unsigned kind = ez_reader_u8(r);
        x->rank = ez_reader_u8(r);
        if (kind > EZ_TENSOR_ACT || x->rank > EZ_MAX_RANK)
            goto bad;
        x->kind = (ez_tensor_kind)kind;
        for (unsigned a = 0; a < x->rank; a++)
            x->dims[a] = ez_reader_u64(r);
        x->scale = ez_reader_u32(r);
        x->bits = ez_reader_u32(r);
        x->bound = ez_reader_u64(r);
        x->token_limit = ez_reader_i64(r);
        unsigned out = ez_reader_u8(r);
        int64_t prod = ez_reader_i64(r);
        if (r->failed || out > 1 || prod < -1 || prod >= (int64_t)EINC_MAX_OPS)
            goto bad;
        x->is_output = out;
        x->producer = (int)prod;
        continue;
    bad:
        ez_diag_set(d, "tensor %zu: malformed record", t);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

static ez_status decode_ops(ez_reader *r, ez_plan *p, ez_diag *d)
{
    uint64_t n = ez_reader_count(r, EINC_MAX_OPS, EINC_MIN_OP_BYTES);
    if (r->failed) {
        ez_diag_set(d, "invalid op count");
        return EZ_ERR_FORMAT;
    }
    if (n > 0) {
        p->ops = ez_alloc_array((size_t)n, sizeof *p->ops);
        if (p->ops == NULL)
            return EZ_ERR_NOMEM;
    }
    p->nops = (size_t)n;
    for (size_t i = 0; i < p->nops; i++) {
        ez_plan_op *op = &p->ops[i];
        unsigned kind = ez_reader_u8(r);
        if (kind > EZ_OP_LAST || !get_name(r, op->label, sizeof op->label) ||
            !get_name(r, op->equation, sizeof op->equation))
            goto bad;
        op->kind = (ez_op_kind)kind;
        op->line = ez_reader_u32(r);
        op->out = ez_reader_u32(r);
        op->nin = ez_reader_u8(r);
        if (r->failed || op->nin > EZ_MAX_OPERANDS || op->out >= p->ntensors)
            goto bad;
        for (unsigned k = 0; k < op->nin; k++) {
            op->in[k] = ez_reader_u32(r);
            if (op->in[k] >= p->ntensors)
                goto bad;
        }
        op->nidx = ez_reader_u8(r);
        if (r->failed || op->nidx > EZ_MAX_IDX)
            goto bad;
        for (unsigned x = 0; x < op->nidx; x++) {
            if (!get_name(r, op->idx_name[x], EZ_MAX_NAME))
                goto bad;
            op->idx_size[x] = ez_reader_u64(r);
        }
        for (unsigned k = 0; k < op->nin; k++) {
            unsigned rank = p->tensors[op->in[k]].rank;
            if (!get_axes(r, op->in_axes[k], rank, EZ_MAX_RANK))
                goto bad;
            op->in_fixed[k] = ez_reader_u8(r);
            if (r->failed || (op->in_fixed[k] >> rank) != 0)
                goto bad;
            for (unsigned a = 0; a < rank; a++)
                if ((op->in_fixed[k] >> a) & 1)
                    op->in_pos[k][a] = ez_reader_u64(r);
        }
        if (!get_axes(r, op->out_axes, p->tensors[op->out].rank, EZ_MAX_RANK))
            goto bad;
        op->mul = ez_reader_i64(r);
        for (unsigned k = 0; k < op->nin; k++)
            op->coef[k] = ez_reader_i64(r);
        op->shift = ez_reader_u32(r);
        unsigned checked = ez_reader_u8(r);
        op->axis = ez_reader_u32(r);
        unsigned masked = ez_reader_u8(r);
        op->mask_row = ez_reader_u32(r);
        op->mask_col = ez_reader_u32(r);
        unsigned func = ez_reader_u8(r);
        op->in_scale = ez_reader_u32(r);
        op->out_scale = ez_reader_u32(r);
        if (r->failed || masked > 1 || checked > 1 || func > EZ_FN_LAST)
            goto bad;
        op->masked = masked;
        op->checked = checked;
        op->func = (ez_func)func;
        /* index ids are checked against nidx by ez_plan_validate_graph; reject here the
         * ones that would index past the arrays before anything looks at them */
        if (op->axis >= EZ_MAX_IDX || op->mask_row >= EZ_MAX_IDX || op->mask_col >= EZ_MAX_IDX)
            goto bad;
        for (unsigned k = 0; k < op->nin; k++)
            for (unsigned a = 0; a < p->tensors[op->in[k]].rank; a++)
                if (!((op->in_fixed[k] >> a) & 1) && op->in_axes[k][a] >= op->nidx)
                    goto bad;
        for (unsigned a = 0; a < p->tensors[op->out].rank; a++)
            if (op->out_axes[a] >= op->nidx)
                goto bad;
        continue;
    bad:
        ez_diag_set(d, "op %zu: malformed record", i);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

static ez_status decode_schedule(ez_reader *r, ez_plan *p, uint16_t minor, ez_diag *d)
{
    uint64_t n = ez_reader_count(r, EINC_MAX_OPS, EINC_MIN_SCHED_BYTES);
    if (r->failed || n != p->nops) {
        ez_diag_set(d, "the schedule covers %llu ops, the plan has %zu", (unsigned long long)n, p->nops);
        return EZ_ERR_FORMAT;
    }
    for (size_t i = 0; i < p->nops; i++) {
        ez_plan_op *op = &p->ops[i];
        ez_eq_schedule *sc = &op->sched;
        unsigned ncls = ez_reader_u8(r);
        if (r->failed || ncls != op->nidx)
            goto bad;
        for (unsigned x = 0; x < ncls; x++) {
            unsigned c = ez_reader_u8(r);
            if (c > EZ_IDX_BROADCAST)
                goto bad;
            sc->cls[x] = (ez_idx_class)c;
        }
        sc->nvars = ez_reader_u32(r);
        sc->eq_vars = ez_reader_u32(r);
        sc->degree = ez_reader_u32(r);
        unsigned nb = ez_reader_u8(r);
        if (r->failed || nb > op->nidx)
            goto bad;
        for (unsigned b = 0; b < nb; b++)
            sc->bind_order[b] = ez_reader_u8(r);
        sc->nbind = nb;
        for (unsigned b = 0; b < nb; b++)
            if (sc->bind_order[b] >= op->nidx)
                goto bad;
        /* the live mark, since 2.1 (before: none, the whole cube); checked by
         * ez_plan_validate against the graph */
        sc->live = minor >= 1 ? ez_reader_u32(r) : 0;
        if (r->failed || sc->live > p->nops)
            goto bad;
        continue;
    bad:
        ez_diag_set(d, "op %zu: malformed schedule record", i);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

ez_status ez_einc_decode(ez_plan *p, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_status st = EZ_ERR_FORMAT;
    ez_reader r, sub;
    uint8_t magic[4], ver[4];
    ez_plan_init(p);
    ez_reader_init(&r, data, len);
    if (!ez_reader_bytes(&r, magic, 4) || memcmp(magic, EZ_EINC_MAGIC, 4) != 0) {
        ez_diag_set(d, "not an .einc file (bad magic)");
        goto out;
    }
    if (!ez_reader_bytes(&r, ver, 4)) {
        ez_diag_set(d, "truncated file: no format version");
        goto out;
    }
    uint16_t major = (uint16_t)(ver[0] | ver[1] << 8), minor = (uint16_t)(ver[2] | ver[3] << 8);
    if (major != EZ_EINC_MAJOR) {
        ez_diag_set(d, ".einc format version %u.%u is not supported (this einzk reads %d.x); recompile the model",
                    major, minor, EZ_EINC_MAJOR);
        goto out;
    }

    if ((st = next_section(&r, EZ_EINC_SEC_MODEL, minor, &sub, d)) != EZ_OK)
        goto out;
    st = EZ_ERR_FORMAT;
    if (!get_name(&sub, p->model, sizeof p->model)) {
        ez_diag_set(d, "malformed model section (name)");
        goto out;
    }
    if ((st = end_section(&sub, "model", d)) != EZ_OK)
        goto out;

    if ((st = next_section(&r, EZ_EINC_SEC_TENSORS, minor, &sub, d)) != EZ_OK ||
        (st = decode_tensors(&sub, p, d)) != EZ_OK || (st = end_section(&sub, "tensors", d)) != EZ_OK)
        goto out;
    if ((st = next_section(&r, EZ_EINC_SEC_OPS, minor, &sub, d)) != EZ_OK || (st = decode_ops(&sub, p, d)) != EZ_OK ||
        (st = end_section(&sub, "ops", d)) != EZ_OK)
        goto out;
    if ((st = next_section(&r, EZ_EINC_SEC_SCHEDULE, minor, &sub, d)) != EZ_OK ||
        (st = decode_schedule(&sub, p, minor, d)) != EZ_OK || (st = end_section(&sub, "schedule", d)) != EZ_OK)
        goto out;

    if ((st = next_section(&r, EZ_EINC_SEC_DIGEST, minor, &sub, d)) != EZ_OK)
        goto out;
    /* the digest covers everything before its own section, skipped sections included */
    size_t body_len = r.pos - EINC_SEC_HEADER_BYTES - sub.len;
    st = EZ_ERR_FORMAT;
    uint8_t want[32];
    if (!ez_reader_bytes(&sub, p->digest, 32) || !ez_reader_done(&sub)) {
        ez_diag_set(d, "malformed digest section");
        goto out;
    }
    if (!ez_reader_done(&r)) {
        ez_diag_set(d, "%zu trailing bytes after the digest", ez_reader_remaining(&r));
        goto out;
    }
    sha256(want, data, body_len);
    if (memcmp(want, p->digest, 32) != 0) {
        ez_diag_set(d, "digest mismatch: the file is corrupted or was modified");
        goto out;
    }
    ez_diag why;
    if ((st = ez_plan_validate(p, &why)) != EZ_OK) {
        ez_diag_set(d, "invalid plan: %s", why.msg);
        st = st == EZ_ERR_NOMEM ? st : EZ_ERR_FORMAT;
        goto out;
    }
    st = EZ_OK;
out:
    if (st != EZ_OK)
        ez_plan_clear(p);
    return st;
}

ez_status ez_einc_write_file(const char *path, ez_plan *p, ez_diag *d)
{
    ez_writer w;
    ez_writer_init(&w);
    ez_status st = ez_einc_encode(&w, p, d);
    if (st == EZ_OK)
        st = ez_file_write(path, w.data, w.len, d);
    ez_writer_clear(&w);
    return st;
}

ez_status ez_einc_read_file(ez_plan *p, const char *path, ez_diag *d)
{
    uint8_t *data = NULL;
    size_t len = 0;
    ez_plan_init(p);
    ez_status st = ez_file_read(path, &data, &len, d);
    if (st != EZ_OK)
        goto out;
    ez_diag why;
    st = ez_einc_decode(p, data, len, &why);
    if (st != EZ_OK)
        ez_diag_set(d, "%s: %s", path, why.msg);
out:
    free(data);
    return st;
}

void ez_plan_digest_hex(const ez_plan *p, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[p->digest[i] >> 4];
        out[2 * i + 1] = hex[p->digest[i] & 15];
    }
    out[64] = 0;
}

/* ---- JSON -------------------------------------------------------------------------- */

static json_t *shape_json(const ez_plan_tensor *t)
{
    json_t *a = json_array();
    for (unsigned k = 0; a && k < t->rank; k++)
        if (json_array_append_new(a, json_integer((json_int_t)t->dims[k])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* json_integer for unsigned 64-bit counts (saturating estimates stay representable) */
static json_t *ju(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Set key on obj to a new value (the reference is consumed in every case); false when
 * v is NULL or on failure. */
static bool put(json_t *obj, const char *key, json_t *v)
{
    return v != NULL && json_object_set_new(obj, key, v) == 0;
}

/* put() if ok so far, else drop v; *v is consumed and cleared either way. */
static bool put_take(bool ok, json_t *obj, const char *key, json_t **v)
{
    json_t *x = *v;
    *v = NULL;
    if (!ok) {
        json_decref(x);
        return false;
    }
    return put(obj, key, x);
}

static json_t *op_json(const ez_plan *p, const ez_plan_op *op)
{
    json_t *o = json_object(), *cls = json_object(), *bind = json_array();
    bool ok = o && cls && bind;
    ok = ok && put(o, "name", json_string(op->label));
    ok = ok && put(o, "kind", json_string(ez_op_kind_name(op->kind)));
    ok = ok && put(o, "equation", json_string(op->equation));
    ok = ok && put(o, "shape", shape_json(&p->tensors[op->out]));
    ok = ok && put(o, "sumcheck_vars", json_integer(op->sched.nvars));
    ok = ok && put(o, "degree", json_integer(op->sched.degree));
    ok = ok && put(o, "eq_vars", json_integer(op->sched.eq_vars));
    for (unsigned x = 0; ok && x < op->nidx; x++)
        ok = put(cls, op->idx_name[x], json_string(ez_idx_class_name(op->sched.cls[x])));
    for (unsigned b = 0; ok && b < op->sched.nbind; b++)
        ok = json_array_append_new(bind, json_string(op->idx_name[op->sched.bind_order[b]])) == 0;
    ok = put_take(ok, o, "classes", &cls);
    ok = put_take(ok, o, "bind_order", &bind);
    ok = ok && put(o, "shift", json_integer(op->shift));
    ok = ok && put(o, "checked", json_boolean(op->checked));
    ok = ok && put(o, "line", json_integer(op->line));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *tensor_json(const ez_plan_tensor *t)
{
    json_t *o = json_object();
    bool ok = o != NULL;
    ok = ok && put(o, "name", json_string(t->name));
    ok = ok && put(o, "source_name", json_string(t->source_name));
    ok = ok && put(o, "kind", json_string(ez_tensor_kind_name(t->kind)));
    ok = ok && put(o, "shape", shape_json(t));
    ok = ok && put(o, "scale", json_integer(t->scale));
    ok = ok && put(o, "bits", json_integer(t->bits));
    ok = ok && put(o, "bound", ju(t->bound));
    if (ok && t->kind == EZ_TENSOR_TOKENS)
        ok = put(o, "token_limit", json_integer(t->token_limit));
    ok = ok && put(o, "output", json_boolean(t->is_output));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *ez_plan_to_json(const ez_plan *p)
{
    json_t *root = json_object(), *ops = json_array(), *tens = json_array(), *tot = json_object();
    bool ok = root && ops && tens && tot;
    char hex[65], fmt[32];
    uint64_t vars = 0, weights = 0;
    ez_plan_digest_hex(p, hex);
    snprintf(fmt, sizeof fmt, "%d.%d", EZ_EINC_MAJOR, EZ_EINC_MINOR);
    ok = ok && put(root, "model", json_string(p->model));
    ok = ok && put(root, "digest", json_string(hex));
    ok = ok && put(root, "format", json_string(fmt));
    for (size_t t = 0; ok && t < p->ntensors; t++) {
        ok = json_array_append_new(tens, tensor_json(&p->tensors[t])) == 0;
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            weights += ez_plan_tensor_numel(&p->tensors[t]);
    }
    for (size_t i = 0; ok && i < p->nops; i++) {
        ok = json_array_append_new(ops, op_json(p, &p->ops[i])) == 0;
        vars += p->ops[i].sched.nvars;
    }
    ok = ok && put(tot, "ops", ju(p->nops));
    ok = ok && put(tot, "tensors", ju(p->ntensors));
    ok = ok && put(tot, "weight_elems", ju(weights));
    ok = ok && put(tot, "sumcheck_vars", ju(vars));
    ok = put_take(ok, root, "tensors", &tens);
    ok = put_take(ok, root, "ops", &ops);
    ok = put_take(ok, root, "totals", &tot);
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

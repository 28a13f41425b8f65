/* proofio — see proofio.h; byte layout in docs/protocol.md §9. */
#include "config.h"

#include "runtime/formats/proofio.h"

#include <stdlib.h>
#include <string.h>

#include "compiler/einc.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/sections.h"

#define MAX_STMT_TENSORS (UINT64_C(1) << 20)
#define MAX_ELEMS (UINT64_C(1) << 40)
/* values per block when a statement tensor is streamed (32 KB of int64: L1) */
#define STMT_BLOCK 4096

/* ---- tensors of integers ---------------------------------------------------------------------- */

/* The bytes for values whose OR of v ^ (v >> 63) is mag: its top set bit plus a sign bit. */
static unsigned width_of_mag(uint64_t mag)
{
    unsigned bits = mag ? 65 - (unsigned)__builtin_clzll(mag) : 1;
    return (bits + 7) / 8;
}

unsigned ez_stmt_width(const int64_t *v, uint64_t n)
{
    uint64_t mag = 0;
    for (uint64_t i = 0; i < n; i++)
        mag |= (uint64_t)(v[i] ^ (v[i] >> 63));
    return width_of_mag(mag);
}

void ez_stmt_put(uint8_t *out, const int64_t *v, size_t n, unsigned w)
{
    ez_pack_i64(out, v, n, w);
}

void ez_stmt_get(const ez_stmt_tensor *x, uint64_t off, size_t n, int64_t *out)
{
    if (x->v)
        memcpy(out, x->v + off, n * sizeof *out);
    else
        ez_unpack_i64(out, x->raw + off * x->w, n, x->w);
}

const int64_t *ez_stmt_values(const ez_stmt_tensor *x, int64_t **tmp)
{
    *tmp = NULL;
    if (x->v)
        return x->v;
    if ((*tmp = ez_alloc_array(x->n ? x->n : 1, sizeof **tmp)) != NULL)
        ez_unpack_i64(*tmp, x->raw, (size_t)x->n, x->w);
    return *tmp;
}

unsigned ez_stmt_tensor_width(const ez_stmt_tensor *x)
{
    return x->v ? ez_stmt_width(x->v, x->n) : x->w;
}

/* 1.3: u32 tensor, u64 count, u8 w = the fewest bytes holding every value (ez_stmt_width),
 * count x w bytes, each value two's complement little-endian: GPT-2's 3.2M logits take 3
 * bytes each instead of 8. */
static void write_ints(ez_writer *w, const ez_stmt_tensor *t)
{
    unsigned wb = ez_stmt_tensor_width(t);
    ez_writer_u32(w, t->tensor);
    ez_writer_u64(w, t->n);
    ez_writer_u8(w, (uint8_t)wb);
    if (t->v == NULL) {
        ez_writer_bytes(w, t->raw, (size_t)t->n * wb);
        return;
    }
    uint8_t buf[4096];
    size_t per = sizeof buf / wb;
    for (uint64_t i = 0; i < t->n; i += per) {
        size_t m = t->n - i < per ? (size_t)(t->n - i) : per;
        ez_stmt_put(buf, t->v + i, m, wb);
        ez_writer_bytes(w, buf, m * wb);
    }
}

/* Whether n values of w bytes need all w: some value's top byte is not the sign extension
 * of the byte below it (a value that fits in w - 1 bytes has top byte 0x00 or 0xff, equal
 * to the next byte's sign). Stops at the first such value: a GPT-2 logits row has one
 * within its first few values, so this costs nothing like a pass over the 77 MB. */
static bool width_needed(const uint8_t *p, uint64_t n, unsigned w)
{
    if (w == 1)
        return true; /* one byte is the fewest */
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *b = p + i * w;
        if (b[w - 1] != (b[w - 2] & 0x80 ? 0xff : 0x00))
            return true;
    }
    return false;
}

/* The inverse of write_ints, the values left where they are (raw into the reader's
 * bytes); false on a width outside 1..8, a count beyond the bytes, or a width wider than
 * the values need (one encoding per statement). */
static bool read_ints(ez_reader *r, ez_stmt_tensor *t)
{
    t->tensor = ez_reader_u32(r);
    t->n = ez_reader_u64(r);
    unsigned wb = ez_reader_u8(r);
    if (r->failed || wb == 0 || wb > 8 || t->n > MAX_ELEMS || t->n > ez_reader_remaining(r) / wb)
        return false;
    t->w = wb;
    t->raw = ez_reader_view(r, (size_t)t->n * wb);
    return t->raw != NULL && width_needed(t->raw, t->n, wb);
}

/* ---- statement -------------------------------------------------------------------------------- */

void ez_statement_clear(ez_statement *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->t[i].v); /* raw is borrowed */
    free(s->t);
    memset(s, 0, sizeof *s);
}

static bool is_input(const ez_plan_tensor *t)
{
    return t->kind == EZ_TENSOR_INPUT || t->kind == EZ_TENSOR_TOKENS;
}

/* The statement's tensors in order: inputs/tokens, then outputs that are not inputs. */
static size_t stmt_order(const ez_plan *p, unsigned *ids)
{
    size_t n = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        if (is_input(&p->tensors[i]))
            ids[n++] = (unsigned)i;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].is_output && !is_input(&p->tensors[i]))
            ids[n++] = (unsigned)i;
    return n;
}

ez_status ez_statement_from_trace(ez_statement *s, const ez_plan *p, int64_t *const *t)
{
    memset(s, 0, sizeof *s);
    unsigned *ids = ez_alloc_array(p->ntensors ? p->ntensors * 2 : 1, sizeof *ids);
    if (ids == NULL)
        return EZ_ERR_NOMEM;
    size_t n = stmt_order(p, ids);
    s->t = ez_alloc_array(n ? n : 1, sizeof *s->t);
    if (s->t == NULL) {
        free(ids);
        return EZ_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t m = ez_plan_tensor_numel(&p->tensors[ids[i]]);
        ez_stmt_tensor *x = &s->t[s->n++];
        x->tensor = ids[i];
        x->n = m;
        x->v = ez_alloc_array(m ? m : 1, sizeof *x->v);
        if (x->v == NULL) {
            free(ids);
            ez_statement_clear(s);
            return EZ_ERR_NOMEM;
        }
        if (m)
            memcpy(x->v, t[ids[i]], m * sizeof *x->v);
    }
    free(ids);
    return EZ_OK;
}

const ez_stmt_tensor *ez_statement_find(const ez_statement *s, unsigned tensor)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->t[i].tensor == tensor)
            return &s->t[i];
    return NULL;
}

/* "x[4,8]" into buf: a tensor's name and shape, for messages. */
static void shape_text(char *buf, size_t cap, const ez_plan_tensor *t)
{
    size_t n = (size_t)snprintf(buf, cap, "%s[", t->source_name);
    for (unsigned a = 0; a < t->rank && n < cap; a++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%llu", a ? "," : "", (unsigned long long)t->dims[a]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* The model's statement as text: "x[4,8] (32), y[4] (4)", cut to fit. */
static void stmt_text(char *buf, size_t cap, const ez_plan *p, const unsigned *ids, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        char sh[96];
        shape_text(sh, sizeof sh, &p->tensors[ids[i]]);
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", sh);
    }
}

ez_status ez_statement_check(const ez_statement *s, const ez_plan *p, ez_diag *d)
{
    unsigned *ids = ez_alloc_array(p->ntensors ? p->ntensors * 2 : 1, sizeof *ids);
    if (ids == NULL)
        return EZ_ERR_NOMEM;
    size_t n = stmt_order(p, ids);
    ez_status st = EZ_OK;
    char want[200], sh[96];
    if (s->n != n) {
        stmt_text(want, sizeof want, p, ids, n);
        ez_diag_set(d, "statement: the proof has %zu tensors, the model's statement has %zu: %s", s->n, n, want);
        st = EZ_ERR_FORMAT;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const ez_plan_tensor *t = &p->tensors[ids[i]];
        const ez_stmt_tensor *x = &s->t[i];
        if (x->tensor != ids[i] || x->n != ez_plan_tensor_numel(t)) {
            shape_text(sh, sizeof sh, t);
            char got[96] = "a tensor the model does not have";
            if (x->tensor < p->ntensors)
                shape_text(got, sizeof got, &p->tensors[x->tensor]);
            if (x->tensor != ids[i])
                ez_diag_set(d, "statement: entry %zu should be %s, the proof has %s (#%u) with %llu values", i, sh,
                            got, x->tensor, (unsigned long long)x->n);
            else
                ez_diag_set(d, "statement: %s has %llu values, the proof has %llu", sh,
                            (unsigned long long)ez_plan_tensor_numel(t), (unsigned long long)x->n);
            st = EZ_ERR_FORMAT;
            goto out;
        }
        /* the public inputs must satisfy what the compiler's bound analysis assumed; the
         * outputs lie in their bounds, and a width-checked op's result in its width (the
         * executor's own checks): the proof does not range-check such an output's width,
         * the verifier checks it here (rangecheck.h ez_rc_check_width) */
        bool in = is_input(t), width = in;
        if (!in)
            for (size_t o = 0; o < p->nops; o++)
                if (p->ops[o].out == ids[i])
                    width = ez_plan_op_width_checked(&p->ops[o]);
        if (t->bits == 0 || t->bits > 63)
            continue;
        int64_t lo = t->kind == EZ_TENSOR_TOKENS ? 0 : width ? -(INT64_C(1) << (t->bits - 1)) : INT64_MIN;
        int64_t hi = t->kind == EZ_TENSOR_TOKENS ? t->token_limit - 1 : width ? (INT64_C(1) << (t->bits - 1)) - 1 : INT64_MAX;
        /* tokens lie in [0, limit); everything else within its bound: one interval */
        if (t->kind != EZ_TENSOR_TOKENS && t->bound <= (uint64_t)INT64_MAX) {
            lo = lo > -(int64_t)t->bound ? lo : -(int64_t)t->bound;
            hi = hi < (int64_t)t->bound ? hi : (int64_t)t->bound;
        }
        /* values held in w bytes lie in [-2^(8w-1), 2^(8w-1)) (the decoder sign-extends
         * exactly w bytes): when that is inside the range, no value needs reading */
        if (x->v == NULL) {
            int64_t wl = x->w >= 8 ? INT64_MIN : -(INT64_C(1) << (8 * x->w - 1)), wh = -(wl + 1);
            if (wl >= lo && wh <= hi)
                continue;
        }
        uint64_t first = UINT64_MAX;
        /* in blocks decoded from the proof's bytes (no int64 copy of a 25.7 M-logit tensor) */
        const uint64_t nb = (x->n + STMT_BLOCK - 1) / STMT_BLOCK;
#pragma omp parallel for reduction(min : first) schedule(static) if (x->n > 65536)
        for (uint64_t b = 0; b < nb; b++) {
            int64_t buf[STMT_BLOCK];
            size_t m = x->n - b * STMT_BLOCK < STMT_BLOCK ? (size_t)(x->n - b * STMT_BLOCK) : STMT_BLOCK;
            ez_stmt_get(x, b * STMT_BLOCK, m, buf);
            bool bad = false;
            for (size_t j = 0; j < m; j++)
                bad |= buf[j] < lo || buf[j] > hi;
            for (size_t j = 0; bad && j < m; j++)
                if (buf[j] < lo || buf[j] > hi) {
                    first = first < b * STMT_BLOCK + j ? first : b * STMT_BLOCK + j;
                    break;
                }
        }
        if (first != UINT64_MAX) {
            char where[256];
            int64_t v;
            ez_stmt_get(x, first, 1, &v);
            ez_exec_format_elem(where, sizeof where, t, first);
            ez_diag_set(d, "statement: %s %s = %lld is outside its range", in ? "input" : "output", where,
                        (long long)v);
            st = EZ_ERR_FORMAT;
            goto out;
        }
    }
out:
    free(ids);
    return st;
}

/* ---- binding: what the proof is for ------------------------------------------------------------ */

void ez_proof_bind(ez_proof_binding *b, const ez_plan *p, const ez_pcs_commitment *wcom)
{
    memset(b, 0, sizeof *b);
    memcpy(b->digest, p->digest, 32);
    b->has_weights = wcom != NULL;
    if (wcom)
        memcpy(b->wroot, wcom->root, 32);
}

static void write_binding(ez_writer *w, const ez_proof_binding *b)
{
    ez_writer_bytes(w, b->digest, 32);
    ez_writer_u8(w, b->has_weights);
    if (b->has_weights)
        ez_writer_bytes(w, b->wroot, 32);
}

static bool read_binding(ez_reader *r, ez_proof_binding *b)
{
    memset(b, 0, sizeof *b);
    ez_reader_bytes(r, b->digest, 32);
    uint8_t present = ez_reader_u8(r);
    if (r->failed || present > 1)
        return false;
    b->has_weights = present;
    return !present || ez_reader_bytes(r, b->wroot, 32);
}

static void hex16(char out[17], const uint8_t *v)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) {
        out[2 * i] = hx[v[i] >> 4];
        out[2 * i + 1] = hx[v[i] & 15];
    }
    out[16] = 0;
}

ez_status ez_proof_binding_check(const ez_proof_binding *b, const ez_plan *p, const ez_pcs_commitment *wcom,
                                 ez_diag *d)
{
    char x[17], y[17];
    if (memcmp(b->digest, p->digest, 32) != 0) {
        hex16(x, b->digest);
        hex16(y, p->digest);
        ez_diag_set(d, "the proof is for another model: its plan digest is %s, the verifying key's is %s", x, y);
        return EZ_ERR_REJECT;
    }
    if (b->has_weights != (wcom != NULL) || (wcom && memcmp(b->wroot, wcom->root, 32) != 0)) {
        if (b->has_weights)
            hex16(x, b->wroot);
        else
            snprintf(x, sizeof x, "none");
        if (wcom)
            hex16(y, wcom->root);
        else
            snprintf(y, sizeof y, "none");
        ez_diag_set(d, "the proof was made with other weights: weight commitment %s, the verifying key's %s", x, y);
        return EZ_ERR_REJECT;
    }
    return EZ_OK;
}

/* ---- proof ------------------------------------------------------------------------------------ */

void ez_proof_init(ez_proof *p)
{
    memset(p, 0, sizeof *p);
    for (int s = 0; s <= EZ_PF_NSEC; s++)
        ez_writer_init(&p->sec[s]);
}

void ez_proof_clear(ez_proof *p)
{
    if (p == NULL)
        return;
    ez_statement_clear(&p->stmt);
    for (int s = 0; s <= EZ_PF_NSEC; s++)
        ez_writer_clear(&p->sec[s]);
    memset(p, 0, sizeof *p);
}

ez_status ez_proof_encode(ez_writer *w, const ez_proof *p, size_t *stmt_bytes)
{
    ez_writer st;
    ez_writer_init(&st);
    ez_writer_u64(&st, p->stmt.n);
    for (size_t i = 0; i < p->stmt.n; i++)
        write_ints(&st, &p->stmt.t[i]);
    write_binding(&st, &p->bind);
    ez_sections_write_header(w, EZ_PROOF_MAGIC);
    ez_sections_write(w, EZ_PF_SEC_STATEMENT, &st);
    if (stmt_bytes)
        *stmt_bytes = st.len + 12;
    ez_writer_clear(&st);
    for (int s = 2; s < EZ_PF_SEC_STRATEGY; s++)
        ez_sections_write(w, (uint32_t)s, &p->sec[s]);
    ez_writer sg;
    ez_writer_init(&sg);
    ez_writer_u8(&sg, p->strategy);
    ez_sections_write(w, EZ_PF_SEC_STRATEGY, &sg);
    ez_writer_clear(&sg);
    return w->failed ? EZ_ERR_NOMEM : EZ_OK;
}

ez_status ez_proof_decode(ez_proof *p, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_section_view sec[EZ_PF_NSEC + 1];
    ez_proof_init(p);
    ez_status st = ez_sections_read(data, len, EZ_PROOF_MAGIC, "proof", EZ_PF_NSEC, true, sec, d);
    if (st != EZ_OK)
        return st;
    /* an older minor version is another argument (1.0: no strategy, no binding, another transcript) */
    unsigned minor = data[6] | (unsigned)data[7] << 8;
    if (minor != EZ_PROOF_MINOR) {
        ez_diag_set(d, "proof: format version %d.%u predates this build's %d.%d (prove it again)", EZ_PROOF_MAJOR,
                    minor, EZ_PROOF_MAJOR, EZ_PROOF_MINOR);
        return EZ_ERR_FORMAT;
    }
    ez_reader r;
    ez_reader_init(&r, sec[1].data, sec[1].len);
    uint64_t n = ez_reader_count(&r, MAX_STMT_TENSORS, 13);
    st = EZ_ERR_FORMAT; /* each failure below but the allocations' */
    if (r.failed) {
        ez_diag_set(d, "proof: malformed statement");
        goto fail;
    }
    p->stmt.t = ez_alloc_array(n ? n : 1, sizeof *p->stmt.t);
    if (p->stmt.t == NULL) {
        st = EZ_ERR_NOMEM;
        goto fail;
    }
    for (uint64_t i = 0; i < n; i++) {
        p->stmt.n++;
        if (!read_ints(&r, &p->stmt.t[i])) {
            ez_diag_set(d, "proof: malformed statement (tensor %llu)", (unsigned long long)i);
            goto fail;
        }
    }
    if (!read_binding(&r, &p->bind)) {
        ez_diag_set(d, "proof: malformed binding (plan digest, weight commitment)");
        goto fail;
    }
    if (!ez_reader_done(&r)) {
        ez_diag_set(d, "proof: trailing bytes in the statement");
        goto fail;
    }
    if (sec[EZ_PF_SEC_STRATEGY].len != 1) {
        ez_diag_set(d, "proof: the strategy section is not one byte");
        goto fail;
    }
    p->strategy = sec[EZ_PF_SEC_STRATEGY].data[0];
    for (int s = 2; s < EZ_PF_SEC_STRATEGY; s++)
        ez_writer_bytes(&p->sec[s], sec[s].data, sec[s].len);
    for (int s = 2; s < EZ_PF_SEC_STRATEGY; s++)
        if (p->sec[s].failed) {
            st = EZ_ERR_NOMEM;
            goto fail;
        }
    return EZ_OK;
fail:
    ez_proof_clear(p);
    return st;
}

/* ---- verifying key ------------------------------------------------------------------------------ */

void ez_vk_init(ez_vk *vk)
{
    memset(vk, 0, sizeof *vk);
    ez_plan_init(&vk->plan);
}

void ez_vk_clear(ez_vk *vk)
{
    if (vk == NULL)
        return;
    ez_plan_clear(&vk->plan);
    ez_pcs_commitment_clear(&vk->wcom);
    free(vk->wrange);
    memset(vk, 0, sizeof *vk);
}

ez_status ez_vk_encode(ez_writer *w, ez_plan *p, const ez_pcs_commitment *wcom, const uint8_t *wrange,
                       size_t wrange_len, ez_diag *d)
{
    ez_writer pl, wc, wr;
    ez_writer_init(&pl);
    ez_writer_init(&wc);
    ez_writer_init(&wr);
    ez_writer_bytes(&wr, wrange, wrange_len);
    ez_status st = ez_einc_encode(&pl, p, d);
    if (st == EZ_OK) {
        ez_writer_u8(&wc, wcom != NULL);
        if (wcom)
            ez_pcs_commitment_write(&wc, wcom);
        ez_sections_write_header(w, EZ_VK_MAGIC);
        ez_sections_write(w, 1, &pl);
        ez_sections_write(w, 2, &wc);
        ez_sections_write(w, 3, &wr);
        st = w->failed ? EZ_ERR_NOMEM : EZ_OK;
    }
    ez_writer_clear(&pl);
    ez_writer_clear(&wc);
    ez_writer_clear(&wr);
    return st;
}

/* A vk's or pk's sections (ez_sections_read), refused when the file is older than
 * min_minor (another weight commitment, range proof or pk layout); cur_minor is the
 * version this build writes. */
static ez_status key_sections(const uint8_t *data, size_t len, const char *magic, const char *what, unsigned nsec,
                              unsigned min_minor, unsigned cur_minor, ez_section_view *sec, ez_diag *d)
{
    ez_status st = ez_sections_read(data, len, magic, what, nsec, false, sec, d);
    if (st != EZ_OK)
        return st;
    unsigned minor = data[6] | (unsigned)data[7] << 8;
    if (minor < min_minor) {
        ez_diag_set(d, "%s: format version %d.%u predates this build's %d.%u (run einzk setup again)", what,
                    EZ_PROOF_MAJOR, minor, EZ_PROOF_MAJOR, cur_minor);
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

/* The model has weights iff a commitment is present. */
static ez_status check_weights_present(const ez_plan *p, bool present, ez_diag *d)
{
    bool any = false;
    for (size_t i = 0; i < p->ntensors && !any; i++)
        any = p->tensors[i].kind == EZ_TENSOR_WEIGHT;
    if (any != present) {
        ez_diag_set(d, "the weight commitment does not match the model's weights");
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

ez_status ez_vk_parse(ez_vk *vk, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_section_view sec[4];
    ez_vk_init(vk);
    ez_status st = key_sections(data, len, EZ_VK_MAGIC, "verifying key", 3, EZ_KEY_MIN_MINOR, EZ_PROOF_MINOR, sec, d);
    if (st != EZ_OK)
        return st;
    ez_diag sub = {{0}};
    if ((st = ez_einc_decode(&vk->plan, sec[1].data, sec[1].len, &sub)) != EZ_OK) {
        ez_diag_set(d, "verifying key: the model: %s", sub.msg);
        goto fail;
    }
    ez_reader r;
    ez_reader_init(&r, sec[2].data, sec[2].len);
    uint8_t present = ez_reader_u8(&r);
    st = r.failed || present > 1 ? EZ_ERR_FORMAT : EZ_OK;
    vk->has_weights = present;
    if (st == EZ_OK && present)
        st = ez_pcs_commitment_read(&r, &vk->wcom);
    if (st != EZ_OK) {
        ez_diag_set(d, "verifying key: malformed weight commitment");
        goto fail;
    }
    if (!ez_reader_done(&r)) {
        ez_diag_set(d, "verifying key: trailing bytes after the weight commitment");
        st = EZ_ERR_FORMAT;
        goto fail;
    }
    if ((st = check_weights_present(&vk->plan, vk->has_weights, d)) != EZ_OK)
        goto fail;
    vk->wrange = ez_alloc_array(sec[3].len ? sec[3].len : 1, 1);
    if (vk->wrange == NULL) {
        st = EZ_ERR_NOMEM;
        goto fail;
    }
    memcpy(vk->wrange, sec[3].data, sec[3].len);
    vk->wrange_len = sec[3].len;
    return EZ_OK;
fail:
    ez_vk_clear(vk);
    return st;
}

/* ---- proving key ------------------------------------------------------------------------------ */

void ez_pk_init(ez_pk *pk)
{
    memset(pk, 0, sizeof *pk);
}

void ez_pk_clear(ez_pk *pk)
{
    if (pk == NULL)
        return;
    for (size_t i = 0; i < pk->nweights; i++)
        free(pk->weights[i].v);
    free(pk->weights);
    ez_pcs_prover_free(pk->pcs);
    memset(pk, 0, sizeof *pk);
}

/* A pk weight (1.2): u32 tensor, u64 count, u8 w = its width's bytes (ez_pk_weight_bytes),
 * count x w bytes, each value two's complement little-endian in w bytes. The prover
 * needs the integers (it reruns inference); GPT-2's 24-bit weights take 3 bytes, 3/8 of
 * the i64s of 1.1. */
static void write_weight(ez_writer *w, unsigned tensor, uint64_t n, unsigned bits, const int64_t *v)
{
    unsigned wb = ez_pk_weight_bytes(bits);
    ez_writer_u32(w, tensor);
    ez_writer_u64(w, n);
    ez_writer_u8(w, (uint8_t)wb);
    uint8_t buf[4096];
    size_t per = sizeof buf / wb;
    for (uint64_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? (size_t)(n - i) : per;
        for (size_t j = 0; j < m; j++) {
            uint64_t x = (uint64_t)v[i + j];
            for (unsigned b = 0; b < wb; b++)
                buf[j * wb + b] = (uint8_t)(x >> (8 * b));
        }
        ez_writer_bytes(w, buf, m * wb);
    }
}

/* Read one weight written by write_weight for plan tensor t (index ti): its index, count
 * and byte width must be the plan's, every value within t->bits. false with a reason. */
static bool read_weight(ez_reader *r, ez_stmt_tensor *x, unsigned ti, const ez_plan_tensor *t, ez_diag *d)
{
    x->tensor = ez_reader_u32(r);
    x->n = ez_reader_u64(r);
    unsigned wb = ez_reader_u8(r);
    if (r->failed || x->tensor != ti || x->n != ez_plan_tensor_numel(t) || wb != ez_pk_weight_bytes(t->bits) ||
        x->n > ez_reader_remaining(r) / wb) {
        ez_diag_set(d, "proving key: weight '%s' is malformed", t->name);
        return false;
    }
    const uint8_t *b = ez_reader_view(r, (size_t)x->n * wb);
    x->v = ez_alloc_array(x->n ? x->n : 1, sizeof *x->v);
    if (b == NULL || x->v == NULL) {
        ez_diag_set(d, "proving key: weight '%s' is malformed", t->name);
        return false;
    }
    int64_t lim = INT64_C(1) << (t->bits - 1);
    unsigned sh = 64 - 8 * wb;
    bool ok = true;
    for (uint64_t i = 0; i < x->n; i++) {
        uint64_t u = 0;
        for (unsigned k = 0; k < wb; k++)
            u |= (uint64_t)b[i * wb + k] << (8 * k);
        int64_t v = sh ? (int64_t)(u << sh) >> sh : (int64_t)u; /* sign-extend from 8 wb bits */
        ok &= v >= -lim && v < lim;
        x->v[i] = v;
    }
    if (!ok)
        ez_diag_set(d, "proving key: weight '%s' has a value outside its %u-bit width", t->name, t->bits);
    return ok;
}

ez_status ez_pk_encode(ez_writer *w, const ez_plan *p, int64_t *const *t, const ez_pcs_prover *pcs,
                       const uint8_t *wrange, size_t wrange_len)
{
    ez_writer dg, ws, pc, wr;
    ez_writer_init(&dg);
    ez_writer_init(&ws);
    ez_writer_init(&pc);
    ez_writer_init(&wr);
    ez_writer_bytes(&wr, wrange, wrange_len);
    ez_writer_bytes(&dg, p->digest, 32);
    uint64_t n = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        n += p->tensors[i].kind == EZ_TENSOR_WEIGHT;
    ez_writer_u64(&ws, n);
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT)
            write_weight(&ws, (unsigned)i, ez_plan_tensor_numel(&p->tensors[i]), p->tensors[i].bits, t[i]);
    ez_writer_u8(&pc, pcs != NULL);
    if (pcs)
        ez_pcs_prover_write(&pc, pcs);
    ez_sections_write_header_minor(w, EZ_PK_MAGIC, EZ_PK_MINOR);
    ez_sections_write(w, 1, &dg);
    ez_sections_write(w, 2, &ws);
    ez_sections_write(w, 3, &pc);
    ez_sections_write(w, 4, &wr);
    ez_writer_clear(&dg);
    ez_writer_clear(&ws);
    ez_writer_clear(&pc);
    ez_writer_clear(&wr);
    return w->failed ? EZ_ERR_NOMEM : EZ_OK;
}

ez_status ez_pk_parse(ez_pk *pk, const ez_plan *p, const uint8_t *data, size_t len, ez_pk_rest *rest, ez_diag *d)
{
    ez_section_view sec[5];
    ez_pk_init(pk);
    ez_status st = key_sections(data, len, EZ_PK_MAGIC, "proving key", 4, EZ_PK_MIN_MINOR, EZ_PK_MINOR, sec, d);
    if (st != EZ_OK)
        return st;
    if (sec[1].len != 32) {
        ez_diag_set(d, "proving key: malformed digest");
        return EZ_ERR_FORMAT;
    }
    memcpy(pk->digest, sec[1].data, 32);
    if (memcmp(pk->digest, p->digest, 32) != 0) {
        char x[17], y[17];
        hex16(x, pk->digest);
        hex16(y, p->digest);
        ez_diag_set(d, "the proving key belongs to another model: its plan digest is %s, the model's is %s", x, y);
        return EZ_ERR_INPUT;
    }
    ez_reader r;
    ez_reader_init(&r, sec[2].data, sec[2].len);
    uint64_t n = ez_reader_count(&r, p->ntensors, 12);
    pk->weights = ez_alloc_array(n ? n : 1, sizeof *pk->weights);
    if (r.failed || pk->weights == NULL) {
        ez_diag_set(d, "proving key: malformed weights");
        st = r.failed ? EZ_ERR_FORMAT : EZ_ERR_NOMEM;
        goto fail;
    }
    size_t wi = 0;
    for (size_t i = 0; i < p->ntensors; i++) {
        const ez_plan_tensor *t = &p->tensors[i];
        if (t->kind != EZ_TENSOR_WEIGHT)
            continue;
        if (wi >= n) {
            ez_diag_set(d, "proving key: weight '%s' is missing", t->name);
            st = EZ_ERR_FORMAT;
            goto fail;
        }
        ez_stmt_tensor *x = &pk->weights[pk->nweights++];
        wi++;
        if (!read_weight(&r, x, (unsigned)i, t, d)) {
            st = EZ_ERR_FORMAT;
            goto fail;
        }
    }
    if (wi != n || !ez_reader_done(&r)) {
        ez_diag_set(d, "proving key: unexpected weights");
        st = EZ_ERR_FORMAT;
        goto fail;
    }
    ez_reader_init(&r, sec[3].data, sec[3].len);
    uint8_t present = ez_reader_u8(&r);
    if (r.failed || present > 1 || (present != 0) != (n > 0) || (!present && !ez_reader_done(&r))) {
        ez_diag_set(d, "proving key: malformed commitment data");
        st = EZ_ERR_FORMAT;
        goto fail;
    }
    *rest = (ez_pk_rest){.pcs = present ? sec[3].data + 1 : NULL,
                         .pcs_len = present ? sec[3].len - 1 : 0,
                         .wrange = sec[4].data,
                         .wrange_len = sec[4].len};
    return EZ_OK;
fail:
    ez_pk_clear(pk);
    return st;
}

unsigned ez_pk_weight_bytes(unsigned bits)
{
    return bits == 0 ? 1 : (bits + 7) / 8;
}

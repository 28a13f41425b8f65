/* safetensors — see safetensors.h. */
#include "runtime/io/safetensors.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---------------------------------------------------------------------- */

static const struct {
    const char *name;
    ez_st_dtype type;
    size_t size;
} dtype_table[] = {
    {"F64", EZ_ST_F64, 8},         {"F32", EZ_ST_F32, 4},   {"F16", EZ_ST_F16, 2},
    {"BF16", EZ_ST_BF16, 2},       {"F8_E5M2", EZ_ST_F8_E5M2, 1},
    {"F8_E4M3", EZ_ST_F8_E4M3, 1}, {"I64", EZ_ST_I64, 8},   {"I32", EZ_ST_I32, 4},
    {"I16", EZ_ST_I16, 2},         {"I8", EZ_ST_I8, 1},     {"U64", EZ_ST_U64, 8},
    {"U32", EZ_ST_U32, 4},         {"U16", EZ_ST_U16, 2},   {"U8", EZ_ST_U8, 1},
    {"BOOL", EZ_ST_BOOL, 1},
};
#define N_DTYPES (sizeof dtype_table / sizeof dtype_table[0])

const char *ez_st_dtype_name(ez_st_dtype t)
{
    for (size_t i = 0; i < N_DTYPES; i++)
        if (dtype_table[i].type == t)
            return dtype_table[i].name;
    return "?";
}

size_t ez_st_dtype_size(ez_st_dtype t)
{
    for (size_t i = 0; i < N_DTYPES; i++)
        if (dtype_table[i].type == t)
            return dtype_table[i].size;
    return 0;
}

static bool dtype_lookup(const char *s, ez_st_dtype *out)
{
    for (size_t i = 0; i < N_DTYPES; i++)
        if (strcmp(dtype_table[i].name, s) == 0) {
            *out = dtype_table[i].type;
            return true;
        }
    return false;
}

/* ---- small floats, decoded by building the binary64 bit pattern ------------------
 * A small float with `eb` exponent bits and `mb` mantissa bits widens to binary64
 * exactly: re-bias the exponent and left-align the mantissa; subnormals are
 * normalised (binary64 has room for all of them); infinities and NaN payloads map to
 * the binary64 ones. ieee_special: the all-ones exponent means Inf/NaN as in IEEE 754;
 * otherwise (E4M3 "fn") only the all-ones pattern is NaN and there is no infinity. */
static double minifloat_to_f64(uint32_t v, unsigned eb, unsigned mb, bool ieee_special)
{
    uint64_t sign = (v >> (eb + mb)) & 1u;
    uint32_t emax = (1u << eb) - 1;
    uint32_t mmask = (1u << mb) - 1;
    uint32_t e = (v >> mb) & emax;
    uint64_t m = v & mmask;
    int bias = (1 << (eb - 1)) - 1;
    uint64_t bits;
    if (e == emax && (ieee_special || m == mmask)) {
        bits = UINT64_C(0x7FF) << 52;
        if (ieee_special)
            bits |= m << (52 - mb); /* 0: infinity; else NaN with the payload kept */
        else
            bits |= UINT64_C(1) << 51;
    } else if (e == 0) {
        if (m == 0) {
            bits = 0;
        } else {
            int exp = 1 - bias;
            while (!(m & ((uint64_t)1 << mb))) {
                m <<= 1;
                exp--;
            }
            m &= mmask;
            bits = ((uint64_t)(exp + 1023) << 52) | (m << (52 - mb));
        }
    } else {
        bits = ((uint64_t)((int)e - bias + 1023) << 52) | (m << (52 - mb));
    }
    bits |= sign << 63;
    double out;
    memcpy(&out, &bits, 8);
    return out;
}

double ez_f16_to_f64(uint16_t h) { return minifloat_to_f64(h, 5, 10, true); }
double ez_bf16_to_f64(uint16_t b) { return minifloat_to_f64(b, 8, 7, true); }
double ez_f8e4m3_to_f64(uint8_t b) { return minifloat_to_f64(b, 4, 3, false); }
double ez_f8e5m2_to_f64(uint8_t b) { return minifloat_to_f64(b, 5, 2, true); }

/* ---- helpers --------------------------------------------------------------------- */

static uint64_t le_get(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- parsing --------------------------------------------------------------------- */

/* A tensor's name is printed through ez_tensorio_quote_name (control bytes replaced,
 * long names cut) so a hostile header cannot garble the terminal. */
#define QNAME(buf, s) (ez_tensorio_quote_name((buf), sizeof(buf), (s)), (buf))

static bool json_u64(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v))
        return false;
    json_int_t x = json_integer_value(v);
    if (x < 0)
        return false;
    *out = (uint64_t)x;
    return true;
}

/* Validate one header entry into *t (name already set). data_len: size of the data area. */
static ez_status parse_entry(ez_st_tensor *t, const json_t *v, const uint8_t *data,
                             size_t data_len, const char *path, ez_diag *d)
{
    char qn[96];
    QNAME(qn, t->name);
    if (!json_is_object(v)) {
        ez_diag_set(d, "%s: tensor '%s': entry is %s, expected an object", path, qn, ez_tensorio_json_kind(v));
        return EZ_ERR_FORMAT;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        if (strcmp(key, "dtype") != 0 && strcmp(key, "shape") != 0 &&
            strcmp(key, "data_offsets") != 0) {
            char qk[96];
            ez_diag_set(d, "%s: tensor '%s': unknown field '%s'", path, qn, QNAME(qk, key));
            return EZ_ERR_FORMAT;
        }
    }
    const json_t *jd = json_object_get(v, "dtype");
    const json_t *js = json_object_get(v, "shape");
    const json_t *jo = json_object_get(v, "data_offsets");
    const char *missing = !jd ? "dtype" : !js ? "shape" : !jo ? "data_offsets" : NULL;
    if (missing) {
        ez_diag_set(d, "%s: tensor '%s': missing field '%s'", path, qn, missing);
        return EZ_ERR_FORMAT;
    }

    if (!json_is_string(jd)) {
        ez_diag_set(d, "%s: tensor '%s': dtype: %s, expected a string such as \"F32\"", path,
                    qn, ez_tensorio_json_kind(jd));
        return EZ_ERR_FORMAT;
    }
    if (!dtype_lookup(json_string_value(jd), &t->dtype)) {
        char qd[96];
        ez_diag_set(d, "%s: tensor '%s': dtype: unknown dtype '%s'", path, qn,
                    QNAME(qd, json_string_value(jd)));
        return EZ_ERR_FORMAT;
    }

    if (!json_is_array(js)) {
        ez_diag_set(d, "%s: tensor '%s': shape: %s, expected an array of integers", path, qn,
                    ez_tensorio_json_kind(js));
        return EZ_ERR_FORMAT;
    }
    size_t rank = json_array_size(js);
    if (rank > EZ_MAX_RANK) {
        ez_diag_set(d, "%s: tensor '%s': shape: rank %zu exceeds the maximum %d", path, qn, rank,
                    EZ_MAX_RANK);
        return EZ_ERR_FORMAT;
    }
    t->rank = (unsigned)rank;
    uint64_t numel = 1;
    bool overflow = false;
    for (size_t k = 0; k < rank; k++) {
        const json_t *e = json_array_get(js, k);
        if (!json_u64(e, &t->dims[k])) {
            ez_diag_set(d, "%s: tensor '%s': shape[%zu]: %s, expected a non-negative integer",
                        path, qn, k,
                        json_is_integer(e) ? "a negative integer" : ez_tensorio_json_kind(e));
            return EZ_ERR_FORMAT;
        }
        /* Keep multiplying after an overflow only to find a zero extent, which makes
         * the true product 0 (a valid empty tensor). */
        if (__builtin_mul_overflow(numel, t->dims[k], &numel))
            overflow = true;
    }
    for (size_t k = 0; k < rank; k++)
        if (t->dims[k] == 0) {
            overflow = false;
            numel = 0;
        }
    size_t esize = ez_st_dtype_size(t->dtype);
    uint64_t need;
    if (overflow || __builtin_mul_overflow(numel, (uint64_t)esize, &need)) {
        char sh[200];
        ez_tensorio_format_list(sh, sizeof sh, t->dims, t->rank);
        ez_diag_set(d, "%s: tensor '%s': shape: %s %s has more bytes than fit in 64 bits", path,
                    qn, ez_st_dtype_name(t->dtype), sh);
        return EZ_ERR_FORMAT;
    }
    t->numel = numel;

    uint64_t begin, end;
    if (!json_is_array(jo) || json_array_size(jo) != 2 ||
        !json_u64(json_array_get(jo, 0), &begin) || !json_u64(json_array_get(jo, 1), &end)) {
        ez_diag_set(d, "%s: tensor '%s': data_offsets: expected [begin, end], two non-negative "
                    "integers", path, qn);
        return EZ_ERR_FORMAT;
    }
    if (begin > end) {
        ez_diag_set(d, "%s: tensor '%s': data_offsets: begin %" PRIu64 " is after end %" PRIu64,
                    path, qn, begin, end);
        return EZ_ERR_FORMAT;
    }
    if (end > data_len) {
        ez_diag_set(d, "%s: tensor '%s': data_offsets: end %" PRIu64
                    " is past the end of the data area (%zu bytes)", path, qn, end, data_len);
        return EZ_ERR_FORMAT;
    }
    if (end - begin != need) {
        char sh[200];
        ez_tensorio_format_list(sh, sizeof sh, t->dims, t->rank);
        ez_diag_set(d, "%s: tensor '%s': data_offsets: [%" PRIu64 ", %" PRIu64 "] holds %" PRIu64
                    " bytes but %s %s needs %" PRIu64, path, qn, begin, end, end - begin,
                    ez_st_dtype_name(t->dtype), sh, need);
        return EZ_ERR_FORMAT;
    }
    t->data = data + begin;
    t->nbytes = (size_t)need;
    return EZ_OK;
}

static int cmp_by_name(const void *a, const void *b)
{
    return strcmp(((const ez_st_tensor *)a)->name, ((const ez_st_tensor *)b)->name);
}

static int cmp_by_range(const void *a, const void *b)
{
    const ez_st_tensor *x = *(const ez_st_tensor *const *)a, *y = *(const ez_st_tensor *const *)b;
    if (x->data != y->data)
        return x->data < y->data ? -1 : 1;
    return x->nbytes < y->nbytes ? -1 : x->nbytes > y->nbytes;
}

ez_status ez_safetensors_parse(ez_safetensors *out, uint8_t *bytes, size_t len,
                               const char *path_for_messages, ez_diag *d)
{
    ez_status st = EZ_ERR_FORMAT;
    json_t *root = NULL;
    const ez_st_tensor **by_range = NULL;
    const char *path = path_for_messages ? path_for_messages : "<memory>";
    ez_safetensors s = {.bytes = bytes, .len = len};

    memset(out, 0, sizeof *out);
    s.path = ez_strdup(path);
    if (s.path == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if (len < 8) {
        ez_diag_set(d, "%s: header: file is %zu bytes, too short for the 8-byte header length",
                    path, len);
        goto out;
    }
    uint64_t hlen = le_get(bytes, 8);
    if (hlen > EZ_SAFETENSORS_MAX_HEADER) {
        ez_diag_set(d, "%s: header: length %" PRIu64 " exceeds the limit of %" PRIu64
                    " bytes (not a safetensors file?)", path, hlen, EZ_SAFETENSORS_MAX_HEADER);
        goto out;
    }
    if (hlen > len - 8) {
        ez_diag_set(d, "%s: header: length %" PRIu64 " runs past the end of the file (%zu bytes)",
                    path, hlen, len);
        goto out;
    }
    const uint8_t *data = bytes + 8 + hlen;
    size_t data_len = len - 8 - (size_t)hlen;

    json_error_t err;
    root = json_loadb((const char *)bytes + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &err);
    if (root == NULL) {
        ez_diag_set(d, "%s: header: invalid JSON at line %d, column %d: %s", path, err.line,
                    err.column, err.text);
        goto out;
    }
    if (!json_is_object(root)) {
        ez_diag_set(d, "%s: header: the JSON header is %s, expected an object", path,
                    ez_tensorio_json_kind(root));
        goto out;
    }

    size_t count = json_object_size(root);
    s.tensors = ez_alloc_array(count, sizeof *s.tensors);
    if (s.tensors == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val)
    {
        if (strcmp(key, "__metadata__") == 0) {
            /* Free-form string-to-string map: validated, not kept. */
            if (!json_is_object(val)) {
                ez_diag_set(d, "%s: header: __metadata__ is %s, expected an object of strings",
                            path, ez_tensorio_json_kind(val));
                goto out;
            }
            const char *mk;
            json_t *mv;
            json_object_foreach(val, mk, mv)
            {
                if (!json_is_string(mv)) {
                    char qk[96];
                    ez_diag_set(d, "%s: header: __metadata__ '%s' is %s, expected a string", path,
                                QNAME(qk, mk), ez_tensorio_json_kind(mv));
                    goto out;
                }
            }
            continue;
        }
        ez_st_tensor *t = &s.tensors[s.n];
        t->name = ez_strdup(key);
        if (t->name == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        t->path = s.path;
        s.n++;
        st = parse_entry(t, val, data, data_len, path, d);
        if (st != EZ_OK)
            goto out;
        st = EZ_ERR_FORMAT;
    }

    qsort(s.tensors, s.n, sizeof *s.tensors, cmp_by_name);
    for (size_t i = 1; i < s.n; i++) /* JSON_REJECT_DUPLICATES already refused these */
        if (strcmp(s.tensors[i - 1].name, s.tensors[i].name) == 0) {
            char qn[96];
            ez_diag_set(d, "%s: tensor '%s': duplicate name", path, QNAME(qn, s.tensors[i].name));
            goto out;
        }

    /* Overlaps: sort the non-empty ranges by start; each must begin at or after the end
     * of the one before. (An empty range overlaps nothing.) */
    by_range = ez_alloc_array(s.n, sizeof *by_range);
    if (by_range == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    size_t m = 0;
    for (size_t i = 0; i < s.n; i++)
        if (s.tensors[i].nbytes > 0)
            by_range[m++] = &s.tensors[i];
    qsort(by_range, m, sizeof *by_range, cmp_by_range);
    for (size_t i = 1; i < m; i++) {
        const ez_st_tensor *a = by_range[i - 1], *b = by_range[i];
        size_t a0 = (size_t)(a->data - data), b0 = (size_t)(b->data - data);
        if (b0 < a0 + a->nbytes) {
            char qa[96], qb[96];
            ez_diag_set(d, "%s: tensor '%s': data_offsets: [%zu, %zu] overlap tensor '%s' at "
                        "[%zu, %zu]", path, QNAME(qb, b->name), b0, b0 + b->nbytes,
                        QNAME(qa, a->name), a0, a0 + a->nbytes);
            goto out;
        }
    }

    *out = s;
    memset(&s, 0, sizeof s);
    st = EZ_OK;
out:
    free(by_range);
    json_decref(root);
    ez_safetensors_free(&s);
    return st;
}

ez_status ez_safetensors_load(ez_safetensors *out, const char *path, ez_diag *d)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    ez_status st = ez_file_read(path, &bytes, &len, d);
    if (st != EZ_OK)
        return st;
    return ez_safetensors_parse(out, bytes, len, path, d);
}

void ez_safetensors_free(ez_safetensors *st)
{
    if (st == NULL)
        return;
    for (size_t i = 0; i < st->n; i++)
        free(st->tensors[i].name);
    free(st->tensors);
    free(st->bytes);
    free(st->path);
    memset(st, 0, sizeof *st);
}

const ez_st_tensor *ez_safetensors_find(const ez_safetensors *st, const char *name)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, st->tensors[mid].name);
        if (c == 0)
            return &st->tensors[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---- checking against the model -------------------------------------------------- */

ez_status ez_safetensors_check(const ez_safetensors *st, const ez_tensor_spec *specs,
                               size_t n, ez_diag *d)
{
    ez_status status = EZ_ERR_INPUT;
    const char *path = st->path ? st->path : "<memory>";
    bool *used = ez_alloc_array(st->n, sizeof *used);
    if (used == NULL)
        return EZ_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const ez_tensor_spec *sp = &specs[i];
        if (sp->name == NULL || sp->rank > EZ_MAX_RANK) {
            ez_diag_set(d, "%s: internal: bad tensor spec %zu", path, i);
            status = EZ_ERR_INVALID;
            goto out;
        }
        char decl[300], qn[96];
        ez_tensor_spec_format(decl, sizeof decl, sp);
        const ez_st_tensor *t = ez_safetensors_find(st, sp->name);
        if (t == NULL) {
            ez_diag_set(d, "%s: missing tensor '%s' (the model declares weight %s)", path,
                        QNAME(qn, sp->name), decl);
            goto out;
        }
        used[t - st->tensors] = true;
        bool same = t->rank == sp->rank;
        for (unsigned k = 0; same && k < sp->rank; k++)
            same = t->dims[k] == sp->dims[k];
        if (!same) {
            char sh[200];
            ez_tensorio_format_list(sh, sizeof sh, t->dims, t->rank);
            ez_diag_set(d, "%s: tensor '%s': shape %s, but the model declares weight %s", path,
                        QNAME(qn, sp->name), sh, decl);
            goto out;
        }
    }
    size_t extra = 0;
    for (size_t i = 0; i < st->n; i++)
        extra += !used[i];
    if (extra > 0) {
        /* Name as many as fit; the count says how many there are. */
        char list[700];
        size_t pos = 0, shown = 0;
        list[0] = 0;
        for (size_t i = 0; i < st->n && shown < 10; i++) {
            if (used[i])
                continue;
            char qn[96];
            int w = snprintf(list + pos, sizeof list - pos, "%s'%s'", shown ? ", " : "",
                             QNAME(qn, st->tensors[i].name));
            if (w < 0 || (size_t)w >= sizeof list - pos)
                break;
            pos += (size_t)w;
            shown++;
        }
        ez_diag_set(d, "%s: %zu tensor%s not declared by the model: %s%s", path, extra,
                    extra == 1 ? "" : "s", list, shown < extra ? ", ..." : "");
        goto out;
    }
    status = EZ_OK;
out:
    free(used);
    return status;
}

/* ---- conversion ------------------------------------------------------------------ */

/* One element at q (es = dtype size bytes, little-endian). Sets *bad when the element
 * cannot be converted exactly (see ez_st_tensor_to_f64). Inlined into loops with a
 * constant dtype, so the switch folds away. */
static inline double elem_to_f64(ez_st_dtype ty, size_t es, const uint8_t *q, bool *bad)
{
    uint64_t u = le_get(q, es);
    double v = 0;
    switch (ty) {
    case EZ_ST_F64: memcpy(&v, &u, 8); break;
    case EZ_ST_F32: {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        v = f;
        break;
    }
    case EZ_ST_F16: v = ez_f16_to_f64((uint16_t)u); break;
    case EZ_ST_BF16: v = ez_bf16_to_f64((uint16_t)u); break;
    case EZ_ST_F8_E5M2: v = ez_f8e5m2_to_f64((uint8_t)u); break;
    case EZ_ST_F8_E4M3: v = ez_f8e4m3_to_f64((uint8_t)u); break;
    case EZ_ST_I64: {
        int64_t x = (int64_t)u;
        *bad = x > (INT64_C(1) << 53) || x < -(INT64_C(1) << 53);
        v = (double)x;
        break;
    }
    case EZ_ST_I32: v = (int32_t)(uint32_t)u; break;
    case EZ_ST_I16: v = (int16_t)(uint16_t)u; break;
    case EZ_ST_I8: v = (int8_t)(uint8_t)u; break;
    case EZ_ST_U64:
        *bad = u > (UINT64_C(1) << 53);
        v = (double)u;
        break;
    case EZ_ST_U32:
    case EZ_ST_U16:
    case EZ_ST_U8: v = (double)u; break;
    case EZ_ST_BOOL:
        *bad = u > 1;
        v = (double)u;
        break;
    }
    return v;
}

ez_status ez_st_tensor_to_f64(const ez_st_tensor *t, double *out, ez_diag *d)
{
    const uint8_t *p = t->data;
    const size_t n = (size_t)t->numel;
    const size_t es = ez_st_dtype_size(t->dtype);
    const ez_st_dtype ty = t->dtype;
    /* First element (row-major) that cannot be converted; SIZE_MAX if none. */
    size_t bad = SIZE_MAX;

    /* One loop per dtype (a constant first argument folds elem_to_f64's switch). */
#define EZ_CONVERT_LOOP(TY, ES)                                                          \
    _Pragma("omp parallel for reduction(min : bad) schedule(static)")                    \
    for (size_t i = 0; i < n; i++) {                                                     \
        bool b = false;                                                                  \
        out[i] = elem_to_f64(TY, ES, p + i * ES, &b);                                    \
        if (b && i < bad)                                                                \
            bad = i;                                                                     \
    }
    switch (ty) {
    case EZ_ST_F64: EZ_CONVERT_LOOP(EZ_ST_F64, 8) break;
    case EZ_ST_F32: EZ_CONVERT_LOOP(EZ_ST_F32, 4) break;
    case EZ_ST_F16: EZ_CONVERT_LOOP(EZ_ST_F16, 2) break;
    case EZ_ST_BF16: EZ_CONVERT_LOOP(EZ_ST_BF16, 2) break;
    case EZ_ST_I64: EZ_CONVERT_LOOP(EZ_ST_I64, 8) break;
    case EZ_ST_I32: EZ_CONVERT_LOOP(EZ_ST_I32, 4) break;
    case EZ_ST_I8: EZ_CONVERT_LOOP(EZ_ST_I8, 1) break;
    default: EZ_CONVERT_LOOP(ty, es) break; /* rarer dtypes: the generic loop */
    }
#undef EZ_CONVERT_LOOP
    if (bad == SIZE_MAX)
        return EZ_OK;

    char qn[96], where[200];
    QNAME(qn, t->name);
    ez_tensorio_format_index(where, sizeof where, bad, t->dims, t->rank);
    uint64_t u = le_get(p + bad * es, es);
    const char *path = t->path ? t->path : "<memory>";
    if (ty == EZ_ST_BOOL) {
        ez_diag_set(d, "%s: tensor '%s'%s: BOOL byte %" PRIu64 " is neither 0 nor 1", path, qn,
                    where, u);
        return EZ_ERR_FORMAT;
    }
    if (ty == EZ_ST_I64)
        ez_diag_set(d, "%s: tensor '%s'%s: I64 value %" PRId64
                    " is not exactly representable (|v| > 2^53)", path, qn, where, (int64_t)u);
    else
        ez_diag_set(d, "%s: tensor '%s'%s: U64 value %" PRIu64
                    " is not exactly representable (v > 2^53)", path, qn, where, u);
    return EZ_ERR_NUMERIC;
}

/* ---- writing --------------------------------------------------------------------- */

ez_status ez_safetensors_serialize(ez_writer *w, size_t n, const char *const *names,
                                   const unsigned *ranks, const uint64_t *const *dims,
                                   const float *const *data, ez_diag *d)
{
    ez_status st = EZ_ERR_INVALID;
    json_t *root = json_object();
    char *text = NULL;
    uint64_t *sizes = ez_alloc_array(n, sizeof *sizes);
    if (root == NULL || sizes == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        char qn[96];
        if (names[i] == NULL || names[i][0] == 0 || strcmp(names[i], "__metadata__") == 0 ||
            ranks[i] > EZ_MAX_RANK) {
            ez_diag_set(d, "safetensors writer: tensor %zu: bad name or rank", i);
            goto out;
        }
        if (json_object_get(root, names[i]) != NULL) {
            ez_diag_set(d, "safetensors writer: tensor '%s': duplicate name",
                        QNAME(qn, names[i]));
            goto out;
        }
        uint64_t numel = 1;
        bool ok = true;
        for (unsigned k = 0; k < ranks[i]; k++)
            ok &= dims[i][k] <= (uint64_t)INT64_MAX &&
                  !__builtin_mul_overflow(numel, dims[i][k], &numel);
        uint64_t nb, end;
        ok = ok && !__builtin_mul_overflow(numel, 4, &nb) && !__builtin_add_overflow(off, nb, &end) &&
             end <= (uint64_t)INT64_MAX && (numel == 0 || data[i] != NULL);
        if (!ok) {
            ez_diag_set(d, "safetensors writer: tensor '%s': size overflows or no data",
                        QNAME(qn, names[i]));
            goto out;
        }
        json_t *offs = json_array(), *e = json_object();
        bool built = offs && e && json_array_append_new(offs, json_integer((json_int_t)off)) == 0 &&
                     json_array_append_new(offs, json_integer((json_int_t)end)) == 0 &&
                     json_object_set_new(e, "dtype", json_string("F32")) == 0;
        built = ez_tensorio_json_set_shape(e, dims[i], ranks[i], "data_offsets", offs) && built;
        if (!built) {
            json_decref(e);
            st = EZ_ERR_NOMEM;
            goto out;
        }
        /* jansson refuses keys that are not valid UTF-8 */
        if (json_object_set_new(root, names[i], e) != 0) {
            ez_diag_set(d, "safetensors writer: tensor '%s': name is not valid UTF-8",
                        QNAME(qn, names[i]));
            goto out;
        }
        sizes[i] = numel;
        off = end;
    }
    text = json_dumps(root, JSON_COMPACT);
    if (text == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    size_t tl = strlen(text);
    size_t hl = (tl + 7) & ~(size_t)7; /* 8 + hl is a multiple of 8 */
    ez_writer_u64(w, hl);
    ez_writer_bytes(w, text, tl);
    for (size_t i = tl; i < hl; i++)
        ez_writer_u8(w, ' ');
    for (size_t i = 0; i < n && !w->failed; i++) {
        size_t at = ez_writer_reserve(w, (size_t)sizes[i] * 4);
        if (at == SIZE_MAX)
            break;
        uint8_t *q = w->data + at;
        for (size_t j = 0; j < (size_t)sizes[i]; j++) {
            uint32_t u;
            memcpy(&u, &data[i][j], 4);
            for (int b = 0; b < 4; b++)
                q[4 * j + (size_t)b] = (uint8_t)(u >> (8 * b));
        }
    }
    st = w->failed ? EZ_ERR_NOMEM : EZ_OK;
out:
    free(text);
    free(sizes);
    json_decref(root);
    return st;
}

ez_status ez_safetensors_write(const char *path, size_t n, const char *const *names,
                               const unsigned *ranks, const uint64_t *const *dims,
                               const float *const *data, ez_diag *d)
{
    ez_writer w;
    ez_writer_init(&w);
    ez_status st = ez_safetensors_serialize(&w, n, names, ranks, dims, data, d);
    if (st == EZ_OK)
        st = ez_file_write(path, w.data, w.len, d);
    ez_writer_clear(&w);
    return st;
}

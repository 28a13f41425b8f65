/* tensorio — see tensorio.h. JSON is parsed and printed by jansson only. */
#include "runtime/io/tensorio.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers --------------------------------------------------------------- */

void ez_tensorio_quote_name(char *buf, size_t cap, const char *name)
{
    const size_t limit = 64;
    size_t n = strlen(name);
    size_t keep = n;
    bool cut = false;
    if (keep > limit || keep + 1 > cap) {
        keep = limit < cap - 4 ? limit : cap - 4;
        /* do not split a UTF-8 sequence: back up over continuation bytes */
        while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
            keep--;
        cut = true;
    }
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)name[i];
        buf[i] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
    }
    if (cut) {
        memcpy(buf + keep, "...", 4);
    } else {
        buf[keep] = 0;
    }
}

#define QNAME(buf, s) (ez_tensorio_quote_name((buf), sizeof(buf), (s)), (buf))

bool ez_tensor_spec_numel(const ez_tensor_spec *spec, uint64_t *out)
{
    if (spec->rank > EZ_MAX_RANK)
        return false;
    uint64_t n = 1;
    for (unsigned k = 0; k < spec->rank; k++)
        if (__builtin_mul_overflow(n, spec->dims[k], &n))
            return false;
    *out = n;
    return true;
}

void ez_tensorio_format_list(char *buf, size_t cap, const uint64_t *v, unsigned n)
{
    size_t used = 0;
    int w = snprintf(buf, cap, "[");
    used = w > 0 ? (size_t)w : 0;
    for (unsigned k = 0; k < n && used < cap; k++) {
        w = snprintf(buf + used, cap - used, "%s%" PRIu64, k ? ", " : "", v[k]);
        if (w < 0)
            return;
        used += (size_t)w;
    }
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
}

void ez_tensorio_format_index(char *buf, size_t cap, uint64_t pos, const uint64_t *dims, unsigned rank)
{
    uint64_t idx[EZ_MAX_RANK] = {0};
    for (unsigned k = rank; k-- > 0;) {
        uint64_t e = dims[k] ? dims[k] : 1;
        idx[k] = pos % e;
        pos /= e;
    }
    ez_tensorio_format_list(buf, cap, idx, rank);
}

void ez_tensor_spec_format(char *buf, size_t cap, const ez_tensor_spec *spec)
{
    char qn[96], sh[200] = "";
    unsigned rank = spec->rank > EZ_MAX_RANK ? EZ_MAX_RANK : spec->rank;
    if (rank > 0)
        ez_tensorio_format_list(sh, sizeof sh, spec->dims, rank);
    snprintf(buf, cap, "%s%s", QNAME(qn, spec->name ? spec->name : "?"), sh);
}

void ez_tensor_values_clear(ez_tensor_value *vals, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(vals[i].f);
        free(vals[i].tok);
        memset(&vals[i], 0, sizeof vals[i]);
    }
}

json_t *ez_tensorio_json_dims(const uint64_t *dims, unsigned rank)
{
    json_t *a = json_array();
    for (unsigned k = 0; a && k < rank; k++)
        if (json_array_append_new(a, json_integer((json_int_t)dims[k])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

bool ez_tensorio_json_set_shape(json_t *e, const uint64_t *dims, unsigned rank, const char *key, json_t *value)
{
    json_t *shape = ez_tensorio_json_dims(dims, rank);
    if (e == NULL || shape == NULL || value == NULL) {
        json_decref(shape);
        json_decref(value);
        return false;
    }
    /* set_new steals the reference even on failure */
    bool ok = json_object_set_new(e, "shape", shape) == 0;
    return json_object_set_new(e, key, value) == 0 && ok;
}

const char *ez_tensorio_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

/* ---- inputs ---------------------------------------------------------------------- */

/* Everything one input's walk needs, to store values and to word messages. */
typedef struct {
    const char *path;
    const ez_tensor_spec *spec;
    ez_tensor_value *val;
    char qname[96];
    ez_diag *d;
} input_ctx;

/* Store the element at flat position pos. where: already formatted location such as
 * "entry [2, 5]" or "data[7]". */
static ez_status store_elem(input_ctx *c, const json_t *e, uint64_t pos, const char *where)
{
    const ez_tensor_spec *sp = c->spec;
    if (sp->is_token) {
        if (!json_is_integer(e)) {
            ez_diag_set(c->d, "%s: input '%s': %s is %s, expected an integer token", c->path,
                        c->qname, where, ez_tensorio_json_kind(e));
            return EZ_ERR_INPUT;
        }
        json_int_t t = json_integer_value(e);
        if (t < 0 || t >= sp->token_limit) {
            ez_diag_set(c->d, "%s: input '%s': %s = %lld is outside the token range [0, %" PRId64
                        ")", c->path, c->qname, where, (long long)t, sp->token_limit);
            return EZ_ERR_INPUT;
        }
        c->val->tok[pos] = (int64_t)t;
        return EZ_OK;
    }
    if (!json_is_number(e)) {
        ez_diag_set(c->d, "%s: input '%s': %s is %s, expected a number", c->path, c->qname, where,
                    ez_tensorio_json_kind(e));
        return EZ_ERR_INPUT;
    }
    c->val->f[pos] = json_number_value(e);
    return EZ_OK;
}

/* "row 3" at depth 1, "row [1, 3]" deeper; "entry [1, 3, 5]" for an element. */
static void format_where(char *buf, size_t cap, const char *what, const uint64_t *idx,
                         unsigned depth)
{
    if (depth == 1 && what[0] == 'r') {
        snprintf(buf, cap, "%s %" PRIu64, what, idx[0]);
        return;
    }
    char l[200];
    ez_tensorio_format_list(l, sizeof l, idx, depth);
    snprintf(buf, cap, "%s %s", what, l);
}

/* Walk nested arrays: v sits at idx[0..depth) and must have the shape dims[depth..rank). */
static ez_status walk_nested(input_ctx *c, const json_t *v, unsigned depth, uint64_t *idx,
                             uint64_t base)
{
    const ez_tensor_spec *sp = c->spec;
    char where[256];
    if (depth == sp->rank) {
        if (depth == 0)
            snprintf(where, sizeof where, "the value");
        else
            format_where(where, sizeof where, "entry", idx, depth);
        return store_elem(c, v, base, where);
    }
    uint64_t want = sp->dims[depth];
    if (!json_is_array(v)) {
        if (depth == 0) {
            char decl[300];
            ez_tensor_spec_format(decl, sizeof decl, sp);
            ez_diag_set(c->d, "%s: input '%s': value is %s, expected nested arrays of the "
                        "declared shape %s or {\"shape\": [...], \"data\": [...]}", c->path,
                        c->qname, ez_tensorio_json_kind(v), decl);
        } else {
            format_where(where, sizeof where, "row", idx, depth);
            ez_diag_set(c->d, "%s: input '%s': %s is %s, expected an array of %" PRIu64
                        " entries", c->path, c->qname, where, ez_tensorio_json_kind(v), want);
        }
        return EZ_ERR_INPUT;
    }
    size_t have = json_array_size(v);
    if (have != want) {
        if (depth == 0) {
            char decl[300];
            ez_tensor_spec_format(decl, sizeof decl, sp);
            ez_diag_set(c->d, "%s: input '%s': has %zu entries along axis 0, expected %" PRIu64
                        " (declared %s)", c->path, c->qname, have, want, decl);
        } else {
            format_where(where, sizeof where, "row", idx, depth);
            ez_diag_set(c->d, "%s: input '%s': %s has %zu entries, expected %" PRIu64, c->path,
                        c->qname, where, have, want);
        }
        return EZ_ERR_INPUT;
    }
    /* stride of this axis = product of the later extents (fits: numel was checked) */
    uint64_t stride = 1;
    for (unsigned k = depth + 1; k < sp->rank; k++)
        stride *= sp->dims[k];
    for (size_t i = 0; i < have; i++) {
        idx[depth] = i;
        ez_status st = walk_nested(c, json_array_get(v, i), depth + 1, idx, base + i * stride);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

static ez_status read_flat(input_ctx *c, const json_t *v, uint64_t numel)
{
    const ez_tensor_spec *sp = c->spec;
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)v, key, x)
    {
        if (strcmp(key, "shape") != 0 && strcmp(key, "data") != 0) {
            char qk[96];
            ez_diag_set(c->d, "%s: input '%s': unknown field '%s' (expected only \"shape\" and "
                        "\"data\")", c->path, c->qname, QNAME(qk, key));
            return EZ_ERR_INPUT;
        }
    }
    const json_t *js = json_object_get(v, "shape"), *jd = json_object_get(v, "data");
    if (js == NULL || jd == NULL) {
        ez_diag_set(c->d, "%s: input '%s': missing field '%s'", c->path, c->qname,
                    js == NULL ? "shape" : "data");
        return EZ_ERR_INPUT;
    }
    char decl[300];
    ez_tensor_spec_format(decl, sizeof decl, sp);
    if (!json_is_array(js)) {
        ez_diag_set(c->d, "%s: input '%s': shape is %s, expected an array of integers", c->path,
                    c->qname, ez_tensorio_json_kind(js));
        return EZ_ERR_INPUT;
    }
    size_t rank = json_array_size(js);
    bool same = rank == sp->rank;
    uint64_t got[EZ_MAX_RANK];
    for (size_t k = 0; k < rank; k++) {
        const json_t *e = json_array_get(js, k);
        if (!json_is_integer(e) || json_integer_value(e) < 0) {
            ez_diag_set(c->d, "%s: input '%s': shape[%zu] is %s, expected a non-negative integer",
                        c->path, c->qname, k,
                        json_is_integer(e) ? "negative" : ez_tensorio_json_kind(e));
            return EZ_ERR_INPUT;
        }
        if (k < EZ_MAX_RANK)
            got[k] = (uint64_t)json_integer_value(e);
        same = same && got[k] == sp->dims[k];
    }
    if (!same) {
        char sh[200];
        if (rank <= EZ_MAX_RANK)
            ez_tensorio_format_list(sh, sizeof sh, got, (unsigned)rank);
        else
            snprintf(sh, sizeof sh, "of rank %zu", rank);
        ez_diag_set(c->d, "%s: input '%s': shape %s does not match the declared %s", c->path,
                    c->qname, sh, decl);
        return EZ_ERR_INPUT;
    }
    if (!json_is_array(jd)) {
        ez_diag_set(c->d, "%s: input '%s': data is %s, expected a flat array of numbers",
                    c->path, c->qname, ez_tensorio_json_kind(jd));
        return EZ_ERR_INPUT;
    }
    if (json_array_size(jd) != numel) {
        ez_diag_set(c->d, "%s: input '%s': data has %zu entries, expected %" PRIu64
                    " (declared %s)", c->path, c->qname, json_array_size(jd), numel, decl);
        return EZ_ERR_INPUT;
    }
    for (size_t i = 0; i < numel; i++) {
        char where[64];
        snprintf(where, sizeof where, "data[%zu]", i);
        ez_status st = store_elem(c, json_array_get(jd, i), i, where);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

/* A comma-separated list of the declared names, for "unknown input" messages. */
static void list_names(char *buf, size_t cap, const ez_tensor_spec *specs, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        char qn[96];
        int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", QNAME(qn, specs[i].name));
        if (w < 0 || (size_t)w >= cap - used) {
            /* does not fit: end the list with "..." (cap is far above 4) */
            memcpy(buf + (used + 4 <= cap ? used : cap - 4), "...", 4);
            return;
        }
        used += (size_t)w;
    }
}

ez_status ez_inputs_parse(const uint8_t *bytes, size_t len, const char *path,
                          const ez_tensor_spec *specs, size_t n, ez_tensor_value *out,
                          ez_diag *d)
{
    ez_status st = EZ_ERR_INPUT;
    json_t *root = NULL;
    if (path == NULL)
        path = "<memory>";
    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof out[i]);

    for (size_t i = 0; i < n; i++) {
        uint64_t numel;
        bool ok = specs[i].name != NULL && ez_tensor_spec_numel(&specs[i], &numel) &&
                  (!specs[i].is_token || specs[i].token_limit >= 1);
        for (size_t j = 0; ok && j < i; j++)
            ok = strcmp(specs[i].name, specs[j].name) != 0;
        if (!ok) {
            ez_diag_set(d, "%s: internal: bad input spec %zu", path, i);
            st = EZ_ERR_INVALID;
            goto out;
        }
    }

    json_error_t err;
    root = json_loadb((const char *)bytes, bytes ? len : 0, JSON_REJECT_DUPLICATES, &err);
    if (root == NULL) {
        ez_diag_set(d, "%s:%d:%d: invalid JSON: %s", path, err.line, err.column, err.text);
        goto out;
    }
    if (!json_is_object(root)) {
        ez_diag_set(d, "%s: the file holds %s, expected a JSON object mapping input names to "
                    "values", path, ez_tensorio_json_kind(root));
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        bool known = false;
        for (size_t i = 0; i < n && !known; i++)
            known = strcmp(key, specs[i].name) == 0;
        if (!known) {
            char qk[96], names[400];
            list_names(names, sizeof names, specs, n);
            ez_diag_set(d, "%s: unknown input '%s' (the model's inputs: %s)", path,
                        QNAME(qk, key), n ? names : "none");
            goto out;
        }
    }
    for (size_t i = 0; i < n; i++) {
        input_ctx c = {.path = path, .spec = &specs[i], .val = &out[i], .d = d};
        QNAME(c.qname, specs[i].name);
        v = json_object_get(root, specs[i].name);
        if (v == NULL) {
            char decl[300];
            ez_tensor_spec_format(decl, sizeof decl, &specs[i]);
            ez_diag_set(d, "%s: missing input '%s' (declared %s)", path, c.qname, decl);
            goto out;
        }
        uint64_t numel = 0;
        (void)ez_tensor_spec_numel(&specs[i], &numel); /* checked above */
        /* An input cannot hold more numbers than the file has bytes: refusing larger
         * shapes here keeps a wrong spec from asking for an absurd allocation. */
        if (numel > len) {
            char decl[300];
            ez_tensor_spec_format(decl, sizeof decl, &specs[i]);
            ez_diag_set(d, "%s: input '%s': the file is too small to hold %s", path, c.qname,
                        decl);
            goto out;
        }
        out[i].numel = numel;
        if (specs[i].is_token)
            out[i].tok = ez_alloc_array((size_t)numel, sizeof *out[i].tok);
        else
            out[i].f = ez_alloc_array((size_t)numel, sizeof *out[i].f);
        if (out[i].tok == NULL && out[i].f == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        uint64_t idx[EZ_MAX_RANK] = {0};
        st = json_is_object(v) ? read_flat(&c, v, numel) : walk_nested(&c, v, 0, idx, 0);
        if (st != EZ_OK)
            goto out;
        st = EZ_ERR_INPUT;
    }
    st = EZ_OK;
out:
    json_decref(root);
    if (st != EZ_OK)
        ez_tensor_values_clear(out, n);
    return st;
}

ez_status ez_inputs_load(const char *path, const ez_tensor_spec *specs, size_t n,
                         ez_tensor_value *out, ez_diag *d)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof out[i]);
    ez_status st = ez_file_read(path, &bytes, &len, d);
    if (st == EZ_OK) {
        st = ez_inputs_parse(bytes, len, path, specs, n, out, d);
        if (st == EZ_ERR_NOMEM)
            ez_diag_set(d, "%s: out of memory while reading inputs", path);
    }
    free(bytes);
    return st;
}

/* ---- outputs --------------------------------------------------------------------- */

/* Build {"shape": [...], "data": [...]}; NULL on allocation failure. */
static json_t *output_entry(const ez_tensor_spec *sp, uint64_t numel, const double *data)
{
    json_t *e = json_object(), *arr = json_array();
    bool ok = e && arr;
    for (uint64_t i = 0; ok && i < numel; i++)
        ok = json_array_append_new(arr, sp->is_token ? json_integer((json_int_t)data[i]) : json_real(data[i])) == 0;
    ok = ez_tensorio_json_set_shape(e, sp->dims, sp->rank, "data", arr) && ok;
    if (!ok) {
        json_decref(e);
        return NULL;
    }
    return e;
}

ez_status ez_outputs_write(FILE *f, const ez_tensor_spec *specs, size_t n,
                           const double *const *data, ez_diag *d)
{
    ez_status st = EZ_ERR_INVALID;
    json_t *root = json_object();
    if (root == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const ez_tensor_spec *sp = &specs[i];
        char qn[96];
        uint64_t numel;
        if (sp->name == NULL || !ez_tensor_spec_numel(sp, &numel) ||
            (numel > 0 && data[i] == NULL)) {
            ez_diag_set(d, "output %zu: bad output description", i);
            goto out;
        }
        QNAME(qn, sp->name);
        for (unsigned k = 0; k < sp->rank; k++)
            if (sp->dims[k] > (uint64_t)INT64_MAX) {
                ez_diag_set(d, "output '%s': extent too large", qn);
                goto out;
            }
        if (json_object_get(root, sp->name) != NULL) {
            ez_diag_set(d, "output '%s': duplicate name", qn);
            goto out;
        }
        for (uint64_t j = 0; j < numel; j++)
            if (!isfinite(data[i][j])) {
                ez_diag_set(d, "output '%s': element %" PRIu64 " is not finite", qn, j);
                goto out;
            }
        json_t *e = output_entry(sp, numel, data[i]);
        if (e == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        if (json_object_set_new(root, sp->name, e) != 0) {
            ez_diag_set(d, "output '%s': name is not valid UTF-8", qn);
            goto out;
        }
    }
    /* 17 significant digits: every double reads back bit-for-bit. */
    if (json_dumpf(root, f, JSON_REAL_PRECISION(17)) != 0 || fputc('\n', f) == EOF ||
        fflush(f) != 0 || ferror(f)) {
        ez_diag_set(d, "writing outputs failed: %s", strerror(errno));
        st = EZ_ERR_IO;
        goto out;
    }
    st = EZ_OK;
out:
    json_decref(root);
    return st;
}

ez_status ez_outputs_save(const char *path, const ez_tensor_spec *specs, size_t n,
                          const double *const *data, ez_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = ez_outputs_write(f, specs, n, data, d);
    if (fclose(f) != 0 && st == EZ_OK)
        st = EZ_ERR_NOMEM;
    if (st == EZ_OK)
        st = ez_file_write(path, buf, len, d); /* atomic */
    free(buf);
    return st;
}

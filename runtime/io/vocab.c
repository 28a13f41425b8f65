/* vocab — see vocab.h. */
#include "config.h"

#include "runtime/io/vocab.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void ez_vocab_clear(ez_vocab *v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < v->n; i++)
        free(v->tok[i]);
    free(v->tok);
    memset(v, 0, sizeof *v);
}

/* Bytes of the UTF-8 character starting at s (1 for a malformed lead byte). */
static size_t utf8_len(const char *s)
{
    unsigned char c = (unsigned char)s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    for (size_t i = 1; i < n; i++)
        if (((unsigned char)s[i] >> 6) != 2)
            return 1;
    return n;
}

static ez_status add_token(ez_vocab *v, const char *s, size_t len, const char *path, ez_diag *d)
{
    if (len == 0) {
        ez_diag_set(d, "%s: token %zu is empty", path, v->n);
        return EZ_ERR_INPUT;
    }
    for (size_t i = 0; i < v->n; i++)
        if (strlen(v->tok[i]) == len && memcmp(v->tok[i], s, len) == 0) {
            ez_diag_set(d, "%s: token %zu repeats token %zu (\"%.*s\")", path, v->n, i, (int)len, s);
            return EZ_ERR_INPUT;
        }
    char *c = malloc(len + 1);
    if (c == NULL)
        return EZ_ERR_NOMEM;
    memcpy(c, s, len);
    c[len] = 0;
    v->tok[v->n++] = c;
    if (len > v->maxlen)
        v->maxlen = len;
    return EZ_OK;
}

ez_status ez_vocab_load(ez_vocab *v, const char *path, ez_diag *d)
{
    memset(v, 0, sizeof *v);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (root == NULL) {
        ez_diag_set(d, "%s:%d: %s", path, je.line, je.text);
        return je.line <= 0 && strstr(je.text, "unable to open") ? EZ_ERR_IO : EZ_ERR_INPUT;
    }
    ez_status st = EZ_OK;
    json_t *toks = json_object_get(root, "tokens"), *alpha = json_object_get(root, "alphabet");
    size_t cap = 0;
    if (json_is_array(toks) && alpha == NULL) {
        cap = json_array_size(toks);
    } else if (json_is_string(alpha) && toks == NULL) {
        cap = json_string_length(alpha);
    } else {
        ez_diag_set(d, "%s: a vocabulary is {\"tokens\": [strings]} or {\"alphabet\": \"string\"}", path);
        st = EZ_ERR_INPUT;
        goto out;
    }
    v->tok = calloc(cap ? cap : 1, sizeof *v->tok);
    if (v->tok == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if (toks) {
        for (size_t i = 0; i < cap && st == EZ_OK; i++) {
            json_t *t = json_array_get(toks, i);
            if (!json_is_string(t)) {
                ez_diag_set(d, "%s: tokens[%zu] is not a string", path, i);
                st = EZ_ERR_INPUT;
            } else {
                st = add_token(v, json_string_value(t), json_string_length(t), path, d);
            }
        }
    } else {
        const char *s = json_string_value(alpha);
        for (size_t i = 0; i < cap && st == EZ_OK;) {
            size_t n = utf8_len(s + i);
            st = add_token(v, s + i, n, path, d);
            i += n;
        }
    }
    if (st == EZ_OK && v->n == 0) {
        ez_diag_set(d, "%s: the vocabulary is empty", path);
        st = EZ_ERR_INPUT;
    }
out:
    json_decref(root);
    if (st != EZ_OK)
        ez_vocab_clear(v);
    return st;
}

ez_status ez_vocab_encode(const ez_vocab *v, const char *text, int64_t **ids, size_t *n, ez_diag *d)
{
    size_t len = strlen(text), k = 0;
    int64_t *out = ez_alloc_array(len ? len : 1, sizeof *out);
    if (out == NULL)
        return EZ_ERR_NOMEM;
    for (size_t i = 0; i < len;) {
        size_t best = 0;
        int64_t id = -1;
        for (size_t t = 0; t < v->n; t++) {
            size_t tl = strlen(v->tok[t]);
            if (tl > best && tl <= len - i && memcmp(text + i, v->tok[t], tl) == 0)
                best = tl, id = (int64_t)t;
        }
        if (id < 0) {
            size_t cl = utf8_len(text + i);
            ez_diag_set(d, "the text has no token for '%.*s' (byte %zu): it is not in the vocabulary", (int)cl,
                        text + i, i);
            free(out);
            return EZ_ERR_INPUT;
        }
        out[k++] = id;
        i += best;
    }
    *ids = out;
    *n = k;
    return EZ_OK;
}

ez_status ez_vocab_decode(const ez_vocab *v, const int64_t *ids, size_t n, char **text, ez_diag *d)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || (uint64_t)ids[i] >= v->n) {
            ez_diag_set(d, "token %lld is outside the vocabulary of %zu", (long long)ids[i], v->n);
            return EZ_ERR_INPUT;
        }
        len += strlen(v->tok[ids[i]]);
    }
    char *s = malloc(len);
    if (s == NULL)
        return EZ_ERR_NOMEM;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        size_t tl = strlen(v->tok[ids[i]]);
        memcpy(s + o, v->tok[ids[i]], tl);
        o += tl;
    }
    s[o] = 0;
    *text = s;
    return EZ_OK;
}

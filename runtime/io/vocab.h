/* vocab — the text side of token models: a vocabulary file, and text to token ids and back
 * (`einzk generate/certify --prompt TEXT --vocab V.json`, `verify --vocab`).
 *
 * A vocabulary file is JSON, either
 *     {"tokens": ["a", "b", "th", ...]}      token id = index in the list
 *     {"alphabet": "abc..."}                 one character (UTF-8) per token, id = index
 * Encoding is greedy longest match from the left, so an alphabet (single characters) and
 * a list with multi-character tokens both work; text that cannot be encoded is an input
 * error naming the character and its byte offset. */
#ifndef EZ_RUNTIME_IO_VOCAB_H
#define EZ_RUNTIME_IO_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

typedef struct {
    size_t n;
    char **tok;    /* n NUL-terminated strings (non-empty, distinct) */
    size_t maxlen; /* longest token in bytes */
} ez_vocab;

/* Load path. Returns EZ_OK, EZ_ERR_IO (unreadable), EZ_ERR_INPUT (malformed: not JSON,
 * neither form, an empty or repeated token; d names the file and the field), EZ_ERR_NOMEM. */
ez_status ez_vocab_load(ez_vocab *v, const char *path, ez_diag *d);
void ez_vocab_clear(ez_vocab *v);

/* text -> ids. Out: *ids (new array, caller frees), *n. EZ_ERR_INPUT when some part of the
 * text is no token (d names the character and its byte offset), EZ_ERR_NOMEM. */
ez_status ez_vocab_encode(const ez_vocab *v, const char *text, int64_t **ids, size_t *n, ez_diag *d);

/* ids -> text (new string, caller frees). EZ_ERR_INPUT for an id outside the vocabulary. */
ez_status ez_vocab_decode(const ez_vocab *v, const int64_t *ids, size_t n, char **text, ez_diag *d);

#endif

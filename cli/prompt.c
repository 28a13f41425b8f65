/* prompt — see prompt.h. */
#include "cli/prompt.h"

#include "cli/cli.h"
#include "cli/model.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ez_status ez_cli_parse_tokens(const char *text, int64_t **ids, size_t *n, ez_diag *d)
{
    size_t cap = strlen(text) / 2 + 1, k = 0;
    int64_t *v = ez_alloc_array(cap, sizeof *v);
    if (v == NULL)
        return EZ_ERR_NOMEM;
    const char *s = text;
    for (;;) {
        while (*s == ',' || isspace((unsigned char)*s))
            s++;
        if (*s == 0)
            break;
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (end == s || errno != 0 || x < 0 || (*end && *end != ',' && !isspace((unsigned char)*end))) {
            size_t len = strcspn(s, ", \t");
            ez_diag_set(d, "--prompt-tokens: '%.*s' is not a token id (a non-negative integer)", (int)len, s);
            free(v);
            return EZ_ERR_INPUT;
        }
        v[k++] = x;
        s = end;
    }
    if (k == 0) {
        ez_diag_set(d, "--prompt-tokens: the list is empty");
        free(v);
        return EZ_ERR_INPUT;
    }
    *ids = v;
    *n = k;
    return EZ_OK;
}

ez_status ez_cli_prompt(const char *tokens, const char *text, const ez_vocab *vocab, int64_t **ids, size_t *n,
                        ez_diag *d)
{
    if (tokens)
        return ez_cli_parse_tokens(tokens, ids, n, d);
    ez_status st = ez_vocab_encode(vocab, text, ids, n, d);
    if (st == EZ_OK && *n == 0) {
        free(*ids);
        ez_diag_set(d, "--prompt: the text is empty");
        return EZ_ERR_INPUT;
    }
    return st;
}

json_t *ez_cli_tokens_json(const int64_t *ids, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)ids[i]));
    return a;
}

char *ez_cli_tokens_text(const int64_t *ids, size_t n, const ez_vocab *vocab)
{
    char *text = NULL;
    ez_diag d = {{0}};
    if (vocab == NULL || ez_vocab_decode(vocab, ids, n, &text, &d) != EZ_OK)
        return NULL;
    return text;
}

void ez_cli_print_tokens(FILE *f, const int64_t *ids, size_t n, const ez_vocab *vocab)
{
    char *text = ez_cli_tokens_text(ids, n, vocab);
    if (text) {
        json_t *s = json_string(text); /* quoted and escaped as JSON does */
        char *q = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
        fputs(q ? q : text, f);
        free(q);
        json_decref(s);
        free(text);
        return;
    }
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", ids[i]);
    fputc(']', f);
}

json_t *ez_cli_generation_json(const ez_generation *g, const ez_vocab *vocab)
{
    json_t *o = json_object();
    json_object_set_new(o, "prompt_tokens", ez_cli_tokens_json(g->tokens, g->nprompt));
    json_object_set_new(o, "output_tokens", ez_cli_tokens_json(g->tokens + g->nprompt, g->ngen));
    json_object_set_new(o, "stop", json_string(ez_stop_rule_name(g->stop)));
    char *text = ez_cli_tokens_text(g->tokens + g->nprompt, g->ngen, vocab);
    if (text)
        json_object_set_new(o, "text", json_string(text));
    free(text);
    return o;
}

void ez_cli_print_generation(FILE *f, const ez_generation *g, const ez_vocab *vocab)
{
    fprintf(f, "prompt:       ");
    ez_cli_print_tokens(f, g->tokens, g->nprompt, vocab);
    fprintf(f, "\ncontinuation: ");
    ez_cli_print_tokens(f, g->tokens + g->nprompt, g->ngen, vocab);
    fprintf(f, "\n              (%llu tokens, stopped at %s)\n", (unsigned long long)g->ngen, ez_stop_rule_name(g->stop));
}

int ez_cli_generation_options(const ez_cli_args *a, unsigned first, unsigned o_threads, uint64_t *max_new,
                              int64_t *eos)
{
    const ez_cli_cmd *cmd = a->cmd;
    const unsigned o_tokens = first, o_prompt = first + 1, o_vocab = first + 2, o_maxnew = first + 3, o_eos = first + 4;
    if ((a->value[o_tokens] == NULL) == (a->value[o_prompt] == NULL))
        return ez_cli_usage_error(cmd, "give exactly one of --prompt-tokens and --prompt");
    if (a->value[o_prompt] && a->value[o_vocab] == NULL)
        return ez_cli_usage_error(cmd, "--prompt needs --vocab V.json to turn the text into tokens");
    uint64_t e = 0;
    *max_new = 0;
    if (!ez_cli_uint(a, o_maxnew, 10, 1, UINT64_C(1) << 32, max_new) || !ez_cli_uint(a, o_eos, 10, 0, INT64_MAX, &e))
        return EZ_EXIT_USAGE;
    *eos = a->value[o_eos] ? (int64_t)e : -1;
    return ez_cli_threads(a, o_threads, 0) ? EZ_CLI_RUN : EZ_EXIT_USAGE;
}

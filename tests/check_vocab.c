/* Suite "vocab": vocabulary files, text to token ids and back (runtime/io/vocab.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/io/vocab.h"
#include "tests/testutil.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A new temporary file holding text; path: "/tmp/ezvocabXXXXXX", made its name. */
static void temp_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    write_file(path, text);
}

/* The vocabulary of the JSON text, loaded from a temporary file (removed again). */
static void vocab_of(ez_vocab *v, const char *json)
{
    char path[] = "/tmp/ezvocabXXXXXX";
    ez_diag d = {{0}};
    temp_file(path, json);
    ck_assert_msg(ez_vocab_load(v, path, &d) == EZ_OK, "%s", d.msg);
    unlink(path);
}

/* text encodes to exactly want[0..nwant) under v, and those ids decode back to text. */
static void expect_encoding(const ez_vocab *v, const char *text, const int64_t *want, size_t nwant)
{
    ez_diag d = {{0}};
    int64_t *ids;
    size_t n;
    char *back;
    ck_assert_msg(ez_vocab_encode(v, text, &ids, &n, &d) == EZ_OK, "%s", d.msg);
    ck_assert_uint_eq(n, nwant);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(ids[i] == want[i], "token %zu of '%s': %lld, not %lld", i, text, (long long)ids[i],
                      (long long)want[i]);
    ck_assert_msg(ez_vocab_decode(v, ids, n, &back, &d) == EZ_OK, "%s", d.msg);
    ck_assert_str_eq(back, text);
    free(back);
    free(ids);
}

START_TEST(test_alphabet_roundtrip)
{
    ez_vocab v;
    vocab_of(&v, "{\"alphabet\": \" abcdefghij.\\n\\u00e9\"}");
    ck_assert_uint_eq(v.n, 14); /* é is one token of two bytes */
    /* ' ' 0, a..j 1..10, '.' 11, '\n' 12, e-acute 13 */
    expect_encoding(&v, "a bad cafe\xc3\xa9.\n", (const int64_t[]){1, 0, 2, 1, 4, 0, 3, 1, 6, 5, 13, 11, 12}, 13);
    /* a character the vocabulary lacks is named, with its offset */
    ez_diag d = {{0}};
    int64_t *ids;
    size_t n;
    char *back;
    ck_assert_int_eq(ez_vocab_encode(&v, "abz", &ids, &n, &d), EZ_ERR_INPUT);
    ck_assert_msg(strstr(d.msg, "'z'") && strstr(d.msg, "byte 2"), "%s", d.msg);
    int64_t bad = 14;
    ck_assert_int_eq(ez_vocab_decode(&v, &bad, 1, &back, &d), EZ_ERR_INPUT);
    ez_vocab_clear(&v);
}
END_TEST

START_TEST(test_tokens_longest_match)
{
    ez_vocab v;
    vocab_of(&v, "{\"tokens\": [\"t\", \"h\", \"e\", \"th\", \"the\", \" \"]}");
    expect_encoding(&v, "the th e", (const int64_t[]){4, 5, 3, 5, 2}, 5);
    ez_vocab_clear(&v);
    /* malformed files: each names the file */
    ez_diag d = {{0}};
    const char *bad[] = {"[1, 2]", "{\"tokens\": [\"a\", \"a\"]}", "{\"tokens\": [\"a\", 3]}",
                         "{\"tokens\": [\"\"]}", "{\"alphabet\": \"\"}", "{\"tokens\": [], \"alphabet\": \"a\"}", "{"};
    char path[] = "/tmp/ezvocabXXXXXX";
    temp_file(path, "");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i]);
        ck_assert_int_eq(ez_vocab_load(&v, path, &d), EZ_ERR_INPUT);
        ck_assert_msg(strstr(d.msg, path) != NULL, "%s", d.msg);
    }
    unlink(path);
    ck_assert_int_eq(ez_vocab_load(&v, "/nonexistent/v.json", &d), EZ_ERR_IO);
}
END_TEST

Suite *ez_suite_vocab(void)
{
    const TTest *tests[] = {test_alphabet_roundtrip, test_tokens_longest_match};
    return ez_test_suite("vocab", "core", 0, tests, sizeof tests / sizeof tests[0]);
}

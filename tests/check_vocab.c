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

START_TEST(test_alphabet_roundtrip)
{
    ez_vocab v;
    ez_diag d = {{0}};
    vocab_of(&v, "{\"alphabet\": \" abcdefghij.\\n\\u00e9\"}");
    ck_assert_uint_eq(v.n, 14); /* é is one token of two bytes */
    int64_t *ids;
    size_t n;
    ck_assert_int_eq(ez_vocab_encode(&v, "a bad cafe\xc3\xa9.\n", &ids, &n, &d), EZ_OK);
    ck_assert_uint_eq(n, 13);
    ck_assert_int_eq(ids[0], 1);
    ck_assert_int_eq(ids[1], 0);
    ck_assert_int_eq(ids[10], 13);
    char *back;
    ck_assert_int_eq(ez_vocab_decode(&v, ids, n, &back, &d), EZ_OK);
    ck_assert_str_eq(back, "a bad cafe\xc3\xa9.\n");
    free(back);
    free(ids);
    /* a character the vocabulary lacks is named, with its offset */
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
    ez_diag d = {{0}};
    vocab_of(&v, "{\"tokens\": [\"t\", \"h\", \"e\", \"th\", \"the\", \" \"]}");
    int64_t *ids;
    size_t n;
    ck_assert_int_eq(ez_vocab_encode(&v, "the th e", &ids, &n, &d), EZ_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_int_eq(ids[0], 4);
    ck_assert_int_eq(ids[2], 3);
    free(ids);
    ez_vocab_clear(&v);
    /* malformed files: each names the file */
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

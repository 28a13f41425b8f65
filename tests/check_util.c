/* util: the strict reader never reads past its end; the writer round-trips. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/util.h"
#include "tests/testutil.h"

START_TEST(test_roundtrip)
{
    ez_writer w;
    ez_writer_init(&w);
    ez_writer_u8(&w, 0xAB);
    ez_writer_u32(&w, 0xDEADBEEF);
    ez_writer_u64(&w, UINT64_C(0x0123456789ABCDEF));
    ez_writer_i64(&w, -5);
    ez_writer_f64(&w, 1.5);
    ez_writer_str(&w, "hello");
    size_t off = ez_writer_reserve(&w, 8);
    ez_writer_patch_u64(&w, off, 42);
    ck_assert(!w.failed);

    ez_reader r;
    ez_reader_init(&r, w.data, w.len);
    ck_assert_uint_eq(ez_reader_u8(&r), 0xAB);
    ck_assert_uint_eq(ez_reader_u32(&r), 0xDEADBEEF);
    ck_assert_uint_eq(ez_reader_u64(&r), UINT64_C(0x0123456789ABCDEF));
    ck_assert_int_eq(ez_reader_i64(&r), -5);
    ck_assert(ez_reader_f64(&r) == 1.5);
    char *s = ez_reader_str(&r, 100);
    ck_assert_str_eq(s, "hello");
    free(s);
    ck_assert_uint_eq(ez_reader_u64(&r), 42);
    ck_assert(ez_reader_done(&r));
    ez_writer_clear(&w);
}
END_TEST

/* Every prefix of a record fails cleanly, and once failed the reader stays failed. */
START_TEST(test_truncation)
{
    uint8_t buf[32];
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    for (size_t n = 0; n < 12; n++) {
        ez_reader r;
        ez_reader_init(&r, buf, n);
        (void)ez_reader_u32(&r);
        uint64_t v = ez_reader_u64(&r);
        ck_assert(r.failed);
        ck_assert_uint_eq(v, 0);
        ck_assert_uint_eq(ez_reader_u8(&r), 0); /* sticky */
        ck_assert(!ez_reader_done(&r));
    }
    /* a string length beyond the buffer, and one past the cap */
    ez_reader r;
    uint8_t s[8] = {200, 0, 0, 0, 'a', 'b', 'c', 'd'};
    ez_reader_init(&r, s, sizeof s);
    ck_assert_ptr_null(ez_reader_str(&r, 1000));
    s[0] = 4;
    ez_reader_init(&r, s, sizeof s);
    ck_assert_ptr_null(ez_reader_str(&r, 3));
    /* an absurd count is refused before anything is allocated */
    uint8_t c[8];
    memset(c, 0xFF, 8);
    ez_reader_init(&r, c, 8);
    ck_assert_uint_eq(ez_reader_count(&r, 1000, 8), 0);
    ck_assert(r.failed);
}
END_TEST

START_TEST(test_overflowing_alloc)
{
    ck_assert_ptr_null(ez_alloc_aligned(SIZE_MAX / 2, 4));
    ck_assert_ptr_null(ez_realloc_array(NULL, SIZE_MAX / 2, 4));
    ck_assert_ptr_null(ez_alloc_huge(SIZE_MAX / 2, 4));
}
END_TEST

/* Large blocks (huge-page advice) and small ones are 64-byte aligned and writable end
 * to end (ASan checks the bounds in the sanitizer build). */
START_TEST(test_alloc_huge)
{
    const size_t sizes[] = {1, 100, (size_t)3 << 20, ((size_t)5 << 20) + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *p = ez_alloc_huge(sizes[i], 1);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 64, 0);
        memset(p, 0xA5, sizes[i]);
        ck_assert_uint_eq(p[sizes[i] - 1], 0xA5);
        free(p);
    }
}
END_TEST

/* A spill that does not fit on the disk fails cleanly (NULL: the caller keeps the data in
 * memory), before anything is mapped: a store through a mapping of a sparse file would
 * raise SIGBUS instead. The full disk is a file-size limit (RLIMIT_FSIZE, its signal
 * ignored), which write(2) and posix_fallocate both honour with EFBIG. */
START_TEST(test_spill_full_disk)
{
    char dir[] = "/tmp/ez-spill-full.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(setenv("EZ_SPILL_DIR", dir, 1), 0);
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)1 << 20;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    size_t big = (size_t)4 << 20, small = (size_t)256 << 10;
    uint8_t *src = calloc(big, 1);
    ck_assert_ptr_nonnull(src);
    memset(src, 0xA5, big);
    void *a = ez_spill_alloc(big), *c = ez_spill_copy(src, big);
    uint8_t *ok = ez_spill_alloc(small), *okc = ez_spill_copy(src, small);
    (void)setrlimit(RLIMIT_FSIZE, &old);
    (void)signal(SIGXFSZ, was);
    unsetenv("EZ_SPILL_DIR");
    ck_assert_ptr_null(a);
    ck_assert_ptr_null(c);
    /* within the limit both work, the copy holds the bytes, and the array is writable
     * end to end */
    ck_assert_ptr_nonnull(ok);
    ck_assert_ptr_nonnull(okc);
    ck_assert_mem_eq(okc, src, small);
    memset(ok, 0x5A, small);
    ck_assert_uint_eq(ok[small - 1], 0x5A);
    ez_spill_free(ok, small);
    ez_spill_free(okc, small);
    free(src);
    ck_assert_int_eq(rmdir(dir), 0); /* the spill files were unlinked from the start */
}
END_TEST

/* ez_spill_on follows EZ_SPILL_DIR as the spills do: unset and empty are off (and then
 * ez_spill_alloc refuses), a directory is on; the prover keeps the heap before the
 * openings exactly when it is off (runtime/prove/session.c). */
START_TEST(test_spill_on)
{
    char dir[] = "/tmp/ez-spill-on.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *was = getenv("EZ_SPILL_DIR");
    char *saved = was ? strdup(was) : NULL;
    unsetenv("EZ_SPILL_DIR");
    ck_assert(!ez_spill_on());
    ck_assert_ptr_null(ez_spill_alloc(4096));
    ck_assert_int_eq(setenv("EZ_SPILL_DIR", "", 1), 0);
    ck_assert(!ez_spill_on());
    ck_assert_ptr_null(ez_spill_alloc(4096));
    ck_assert_int_eq(setenv("EZ_SPILL_DIR", dir, 1), 0);
    ck_assert(ez_spill_on());
    void *m = ez_spill_alloc(4096);
    ck_assert_ptr_nonnull(m);
    ez_spill_free(m, 4096);
    if (saved)
        ck_assert_int_eq(setenv("EZ_SPILL_DIR", saved, 1), 0);
    else
        unsetenv("EZ_SPILL_DIR");
    free(saved);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* ez_unpack_i64: every width 1..8, every count 0..40 (the 8-byte loads stop 8 bytes
 * before the end, the rest go byte by byte: each count moves that seam), values at the
 * width's edges and random, against a by-hand sign extension; the buffer ends right after
 * the last value (ASan sees a read past it). */
START_TEST(test_unpack)
{
    ez_rng r = ez_rng_for("unpack");
    for (unsigned w = 1; w <= 8; w++)
        for (size_t n = 0; n <= 40; n++) {
            uint8_t *p = malloc(n * w + 1);
            int64_t *want = malloc((n + 1) * sizeof *want), *got = malloc((n + 1) * sizeof *got);
            for (size_t i = 0; i < n * w; i++)
                p[i] = (uint8_t)ez_rng_next(&r);
            for (size_t i = 0; i < n && w > 1; i++)
                if (i % 3 == 0) { /* the edges: 0x80.. and 0x7f.. in the top byte */
                    memset(p + i * w, i % 2 ? 0xff : 0x00, w);
                    p[i * w + w - 1] = i % 2 ? 0x7f : 0x80;
                }
            for (size_t i = 0; i < n; i++) {
                uint64_t u = 0;
                for (unsigned b = 0; b < w; b++)
                    u |= (uint64_t)p[i * w + b] << (8 * b);
                if (w < 8 && (u >> (8 * w - 1)) & 1)
                    u |= ~UINT64_C(0) << (8 * w);
                want[i] = (int64_t)u;
            }
            uint8_t *tight = malloc(n > 0 ? n * w : 1);
            memcpy(tight, p, n * w);
            ez_unpack_i64(got, tight, n, w);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(got[i] == want[i], "w = %u, n = %zu, value %zu: %lld, want %lld", w, n, i,
                              (long long)got[i], (long long)want[i]);
            free(tight);
            free(p);
            free(want);
            free(got);
        }
}
END_TEST

Suite *ez_suite_util(void)
{
    const TTest *tests[] = {test_roundtrip, test_truncation, test_overflowing_alloc, test_alloc_huge,
                             test_spill_full_disk, test_spill_on, test_unpack};
    return ez_test_suite("util", "bytes", 0, tests, sizeof tests / sizeof tests[0]);
}

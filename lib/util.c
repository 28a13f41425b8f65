/* util — see util.h. */
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#else
#define omp_in_parallel() 1
#define omp_get_max_threads() 1
#endif

const char *ez_status_str(ez_status s)
{
    switch (s) {
    case EZ_OK: return "ok";
    case EZ_ERR_NOMEM: return "out of memory";
    case EZ_ERR_INVALID: return "invalid argument";
    case EZ_ERR_IO: return "I/O error";
    case EZ_ERR_FORMAT: return "malformed data";
    case EZ_ERR_INPUT: return "input error";
    case EZ_ERR_SOURCE: return "error in model source";
    case EZ_ERR_NUMERIC: return "numeric error";
    case EZ_ERR_UNSUPPORTED: return "unsupported";
    case EZ_ERR_REJECT: return "proof rejected";
    case EZ_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

void ez_diag_vset(ez_diag *d, const char *fmt, va_list ap)
{
    if (d == NULL)
        return;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
}

void ez_diag_set(ez_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ez_diag_vset(d, fmt, ap);
    va_end(ap);
}

_Noreturn void ez_verify_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, expr);
    abort();
}

void *ez_alloc_array(size_t n, size_t size)
{
    if (n == 0 || size == 0)
        return calloc(1, 1);
    return calloc(n, size);
}

void ez_free_all(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i]);
}

void *ez_realloc_array(void *p, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    return realloc(p, bytes ? bytes : 1);
}

void *ez_array_room(void *a, size_t n, size_t *cap, size_t elem, size_t min_cap)
{
    if (n < *cap)
        return a;
    size_t nc = *cap ? 2 * *cap : min_cap;
    void *p = ez_realloc_array(a, nc, elem);
    if (p != NULL)
        *cap = nc;
    return p;
}

void *ez_alloc_aligned(size_t n, size_t size)
{
    if (size != 0 && n > (SIZE_MAX - 64) / size)
        return NULL;
    size_t bytes = n * size;
    bytes = (bytes + 63) & ~(size_t)63;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0)
        return NULL;
    return p;
}

void *ez_alloc_huge(size_t n, size_t size)
{
    void *p = ez_alloc_aligned(n, size);
#ifdef MADV_HUGEPAGE
    /* Transparent huge pages only on request (EZ_HUGEPAGES=1). On the 2-core VMs this
     * project runs on (THP "madvise", defrag "madvise"), the first touch of a freshly
     * advised block stalls in direct compaction: 4.0-4.4 s per 512 MiB against 0.53 s with
     * 4 KiB pages (a first-touch loop, 2026-12-01), and nanoGPT's prove took
     * 1.52-1.62 CPU s advised against 1.13-1.37 without (commit and openings, 1 thread, runs
     * alternated). On a host with free huge pages the advice can pay; hence the switch.
     * Only the whole 2 MiB pages inside the block are advised. */
    const char *e = getenv("EZ_HUGEPAGES"); /* read per call: no shared state between threads */
    const bool want = e && strcmp(e, "1") == 0;
    const uintptr_t huge = (uintptr_t)1 << 21;
    size_t bytes = n * size; /* no overflow: ez_alloc_aligned checked it */
    if (want && p && bytes >= 2 * (size_t)huge) {
        uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice only: failure is harmless */
    }
#endif
    return p;
}

/* Buffers from this size on are faulted in by the team, a piece per thread: the kernel
 * zeroes each page (clear_page) on the faulting CPU, so one call from the main thread
 * left that work serial (nanoGPT's commitment: 2-11 % of a 2-thread prove's samples on
 * the main thread, docs/performance.md). */
#define EZ_POPULATE_PAR_MIN ((size_t)8 << 20)

void ez_populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = 4096;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (p == NULL || hi <= lo)
        return;
    if (hi - lo < EZ_POPULATE_PAR_MIN || omp_in_parallel() || omp_get_max_threads() == 1) {
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* advice only */
        return;
    }
    const size_t piece = (size_t)2 << 20, npiece = (hi - lo + piece - 1) / piece;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < npiece; i++) {
        uintptr_t a = lo + i * piece, b = hi - a > piece ? a + piece : hi;
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE); /* advice only */
    }
#else
    (void)p;
    (void)bytes;
#endif
}

/* A new unlinked file in EZ_SPILL_DIR (read per call, as EZ_HUGEPAGES): its descriptor,
 * or -1 when the variable is unset or empty or the file cannot be made. The file lives as
 * long as a mapping of it. */
bool ez_spill_on(void)
{
    const char *dir = getenv("EZ_SPILL_DIR");
    return dir != NULL && dir[0] != 0;
}

static int spill_file(void)
{
    if (!ez_spill_on())
        return -1;
    const char *dir = getenv("EZ_SPILL_DIR");
    char path[4096];
    if (snprintf(path, sizeof path, "%s/ezspill.XXXXXX", dir) >= (int)sizeof path)
        return -1;
    int fd = mkstemp(path);
    if (fd >= 0)
        (void)unlink(path);
    return fd;
}

/* write(2) all of b[0 .. bytes), retrying short writes and EINTR: false on any failure
 * (a full disk gives ENOSPC here, never a SIGBUS later) */
static bool write_all(int fd, const void *b, size_t bytes)
{
    const uint8_t *c = b;
    while (bytes > 0) {
        ssize_t w = write(fd, c, bytes);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        bytes -= (size_t)w;
    }
    return true;
}

/* Give fd's file `bytes` of allocated blocks, so that no store through a mapping of it can
 * meet a full disk (SIGBUS): posix_fallocate, or, on a file system without it, zeros
 * written block by block. */
static bool reserve_blocks(int fd, size_t bytes)
{
    int e = posix_fallocate(fd, 0, (off_t)bytes);
    if (e == 0)
        return true;
    if (e != EOPNOTSUPP && e != EINVAL)
        return false;
    static const uint8_t zeros[1 << 16];
    for (size_t done = 0; done < bytes; done += sizeof zeros)
        if (!write_all(fd, zeros, bytes - done < sizeof zeros ? bytes - done : sizeof zeros))
            return false;
    return true;
}

void *ez_spill_copy(const void *p, size_t bytes)
{
    int fd = p == NULL || bytes == 0 ? -1 : spill_file();
    if (fd < 0)
        return NULL;
    if (!write_all(fd, p, bytes)) {
        close(fd);
        return NULL;
    }
    /* shared: a write to it stays through ez_spill_release */
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return m == MAP_FAILED ? NULL : m;
}

void *ez_spill_alloc(size_t bytes)
{
    int fd = bytes == 0 ? -1 : spill_file();
    if (fd < 0)
        return NULL;
    /* the blocks reserved now: a full disk fails here, not as a SIGBUS on a later store */
    if (!reserve_blocks(fd, bytes)) {
        close(fd);
        return NULL;
    }
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return m == MAP_FAILED ? NULL : m;
}

void ez_spill_free(void *m, size_t bytes)
{
    if (m != NULL)
        (void)munmap(m, bytes);
}

void ez_spill_release(const void *m, size_t bytes)
{
    if (m == NULL || bytes == 0)
        return;
    /* whole pages around [m, m + bytes): a neighbour's data in a shared page is not lost,
     * only read again from the file */
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t ps = pg > 0 ? (uintptr_t)pg : 4096u;
    uintptr_t lo = (uintptr_t)m & ~(ps - 1), hi = (uintptr_t)m + bytes;
    (void)madvise((void *)lo, hi - lo, MADV_DONTNEED); /* advice: a failure only keeps the pages */
}

void *ez_alloc_pages(size_t bytes)
{
    if (bytes == 0)
        return NULL;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

void ez_free_pages(void *p, size_t bytes)
{
    if (p != NULL)
        (void)munmap(p, bytes);
}

char *ez_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

double ez_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t ez_peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u; /* Linux reports KiB */
}

/* ---- writer ---- */

void ez_writer_init(ez_writer *w)
{
    memset(w, 0, sizeof *w);
}

void ez_writer_clear(ez_writer *w)
{
    free(w->data);
    memset(w, 0, sizeof *w);
}

static bool writer_grow(ez_writer *w, size_t n)
{
    if (w->failed)
        return false;
    if (n > SIZE_MAX - w->len) {
        w->failed = true;
        return false;
    }
    size_t need = w->len + n;
    if (need <= w->cap)
        return true;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(w->data, cap);
    if (p == NULL) {
        w->failed = true;
        return false;
    }
    w->data = p;
    w->cap = cap;
    return true;
}

void ez_writer_bytes(ez_writer *w, const void *p, size_t n)
{
    if (n == 0 || !writer_grow(w, n))
        return;
    memcpy(w->data + w->len, p, n);
    w->len += n;
}

void ez_writer_printf(ez_writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        w->failed = true;
        return;
    }
    /* + 1: vsnprintf writes a terminator, which the next write overwrites */
    if (!writer_grow(w, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf((char *)w->data + w->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    w->len += (size_t)n;
}

char *ez_writer_take_text(ez_writer *w)
{
    ez_writer_u8(w, 0);
    char *s = w->failed ? NULL : (char *)w->data;
    if (s == NULL)
        free(w->data);
    memset(w, 0, sizeof *w);
    return s;
}

static void put_le(ez_writer *w, uint64_t v, size_t n)
{
    uint8_t b[8];
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    ez_writer_bytes(w, b, n);
}

void ez_writer_u8(ez_writer *w, uint8_t v) { put_le(w, v, 1); }
void ez_writer_u32(ez_writer *w, uint32_t v) { put_le(w, v, 4); }
void ez_writer_u64(ez_writer *w, uint64_t v) { put_le(w, v, 8); }
void ez_writer_i64(ez_writer *w, int64_t v) { put_le(w, (uint64_t)v, 8); }

void ez_writer_f64(ez_writer *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_le(w, u, 8);
}

void ez_writer_str(ez_writer *w, const char *s)
{
    size_t n = strlen(s);
    if (n > UINT32_MAX) {
        w->failed = true;
        return;
    }
    ez_writer_u32(w, (uint32_t)n);
    ez_writer_bytes(w, s, n);
}

size_t ez_writer_reserve(ez_writer *w, size_t n)
{
    if (!writer_grow(w, n))
        return SIZE_MAX;
    size_t off = w->len;
    memset(w->data + off, 0, n);
    w->len += n;
    return off;
}

void ez_writer_patch_u64(ez_writer *w, size_t off, uint64_t v)
{
    if (w->failed || off > w->len || w->len - off < 8)
        return;
    for (size_t i = 0; i < 8; i++)
        w->data[off + i] = (uint8_t)(v >> (8 * i));
}

/* ---- reader ---- */

void ez_reader_init(ez_reader *r, const void *data, size_t len)
{
    r->data = data;
    r->len = data ? len : 0;
    r->pos = 0;
    r->failed = false;
}

const uint8_t *ez_reader_view(ez_reader *r, size_t n)
{
    if (r->failed || n > r->len - r->pos) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

bool ez_reader_bytes(ez_reader *r, void *out, size_t n)
{
    const uint8_t *p = ez_reader_view(r, n);
    if (p == NULL) {
        if (n)
            memset(out, 0, n);
        return false;
    }
    if (n)
        memcpy(out, p, n);
    return true;
}

static uint64_t get_le(ez_reader *r, size_t n)
{
    const uint8_t *p = ez_reader_view(r, n);
    if (p == NULL)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t ez_reader_u8(ez_reader *r) { return (uint8_t)get_le(r, 1); }
uint32_t ez_reader_u32(ez_reader *r) { return (uint32_t)get_le(r, 4); }
uint64_t ez_reader_u64(ez_reader *r) { return get_le(r, 8); }
int64_t ez_reader_i64(ez_reader *r) { return (int64_t)get_le(r, 8); }

double ez_reader_f64(ez_reader *r)
{
    uint64_t u = get_le(r, 8);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

char *ez_reader_str(ez_reader *r, size_t max_len)
{
    uint32_t n = ez_reader_u32(r);
    if (r->failed || n > max_len) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = ez_reader_view(r, n);
    if (p == NULL || memchr(p, 0, n) != NULL) {
        r->failed = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (s == NULL) {
        r->failed = true;
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

uint64_t ez_reader_count(ez_reader *r, uint64_t max, size_t elem_size)
{
    uint64_t n = ez_reader_u64(r);
    if (r->failed || n > max || (elem_size && n > ez_reader_remaining(r) / elem_size)) {
        r->failed = true;
        return 0;
    }
    return n;
}

size_t ez_reader_remaining(const ez_reader *r)
{
    return r->failed ? 0 : r->len - r->pos;
}

bool ez_reader_done(const ez_reader *r)
{
    return !r->failed && r->pos == r->len;
}

ez_status ez_file_map(ez_file_view *v, const char *path, ez_diag *d)
{
    memset(v, 0, sizeof *v);
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size <= SIZE_MAX) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            (void)madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL); /* advice only */
            close(fd);
            v->data = p;
            v->len = (size_t)sb.st_size;
            v->mapped = 1;
            return EZ_OK;
        }
    }
    if (fd >= 0)
        close(fd);
    return ez_file_read(path, &v->data, &v->len, d);
}

void ez_file_view_clear(ez_file_view *v)
{
    if (v->mapped)
        munmap(v->data, v->len);
    else
        free(v->data);
    memset(v, 0, sizeof *v);
}

ez_status ez_file_read(const char *path, uint8_t **out, size_t *out_len, ez_diag *d)
{
    ez_status st = EZ_ERR_IO;
    uint8_t *buf = NULL;
    FILE *f = fopen(path, "rb");
    *out = NULL;
    *out_len = 0;
    if (f == NULL) {
        ez_diag_set(d, "%s: %s", path, strerror(errno));
        goto out;
    }
    size_t cap = 1 << 16, len = 0;
    buf = malloc(cap);
    if (buf == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (nb == NULL) {
                st = EZ_ERR_NOMEM;
                ez_diag_set(d, "%s: file too large to read into memory", path);
                goto out;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                ez_diag_set(d, "%s: read error: %s", path, strerror(errno));
                goto out;
            }
            break;
        }
    }
    *out = buf;
    *out_len = len;
    buf = NULL;
    st = EZ_OK;
out:
    free(buf);
    if (f)
        fclose(f);
    return st;
}

/* The directory part of path ("." when it has none) into buf. */
static void dir_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(buf, cap, ".");
    else if (slash == path)
        snprintf(buf, cap, "/");
    else
        snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

ez_status ez_file_check_writable(const char *path, ez_diag *d)
{
    char dir[4096];
    struct stat sb;
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        ez_diag_set(d, "%s: the directory %s does not exist", path, dir);
        return EZ_ERR_IO;
    }
    if (access(dir, W_OK) != 0) {
        ez_diag_set(d, "%s: the directory %s is not writable", path, dir);
        return EZ_ERR_IO;
    }
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        ez_diag_set(d, "%s is a directory", path);
        return EZ_ERR_IO;
    }
    return EZ_OK;
}

ez_status ez_file_write(const char *path, const void *data, size_t len, ez_diag *d)
{
    /* a temporary file in the same directory, renamed over path only when complete: an
     * interrupted run never leaves a partial file under the final name */
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (tmp == NULL)
        return EZ_ERR_NOMEM;
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ez_diag_set(d, "%s: %s", path, strerror(errno));
        free(tmp);
        return EZ_ERR_IO;
    }
    (void)fchmod(fd, 0644);
    FILE *f = fdopen(fd, "wb");
    size_t put = f && len ? fwrite(data, 1, len, f) : 0;
    int closed = f ? fclose(f) : close(fd);
    ez_status st = EZ_OK;
    if (f == NULL || put != len || closed != 0) {
        ez_diag_set(d, "%s: write failed: %s", path, strerror(errno));
        st = EZ_ERR_IO;
    } else if (rename(tmp, path) != 0) {
        ez_diag_set(d, "%s: %s", path, strerror(errno));
        st = EZ_ERR_IO;
    }
    if (st != EZ_OK)
        unlink(tmp);
    free(tmp);
    return st;
}

unsigned ez_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void ez_suggest_init(ez_suggest *s, const char *want)
{
    s->best = NULL;
    s->dist = 99;
    s->want = want;
}

void ez_suggest_try(ez_suggest *s, const char *cand)
{
    if (cand == NULL || strcmp(cand, s->want) == 0)
        return;
    size_t lw = strlen(s->want);
    if (lw == 1) {
        /* One letter is too short to guess from, except for a case slip (x for X). */
        if (strlen(cand) == 1 && (s->want[0] | 0x20) == (cand[0] | 0x20) && s->dist > 1) {
            s->dist = 1;
            s->best = cand;
        }
        return;
    }
    unsigned d = ez_edit_distance(s->want, cand);
    unsigned limit = lw <= 3 ? 1 : lw <= 6 ? 2 : 3;
    if (d <= limit && d < s->dist) {
        s->dist = d;
        s->best = cand;
    }
}

size_t ez_sort_unique_u64(uint64_t *a, size_t n)
{
    for (size_t k = 1; k < n; k++) {
        uint64_t v = a[k];
        size_t j = k;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (m == 0 || a[m - 1] != a[k])
            a[m++] = a[k];
    return m;
}

static _Thread_local ez_progress_fn progress_fn;
static _Thread_local void *progress_ctx;

void ez_progress_install(ez_progress_fn fn, void *ctx)
{
    progress_fn = fn;
    progress_ctx = ctx;
}

void ez_progress_report(double frac)
{
    if (progress_fn)
        progress_fn(progress_ctx, frac < 0 ? 0 : frac > 1 ? 1 : frac);
}

/* w constant after inlining: one unaligned 8-byte load per value while 8 bytes remain
 * (shifted up and back down: sign extension), the last few byte by byte */
static inline __attribute__((always_inline)) void unpack_w(int64_t *v, const uint8_t *p, size_t n, unsigned w)
{
    const unsigned sh = 64 - 8 * w;
    size_t i = 0;
    _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the values are little-endian");
    for (; n * w >= 8 && i <= (n * w - 8) / w; i++) {
        uint64_t u;
        memcpy(&u, p + w * i, 8);
        v[i] = (int64_t)(u << sh) >> sh;
    }
    for (; i < n; i++) {
        uint64_t u = 0;
        for (unsigned k = 0; k < w; k++)
            u |= (uint64_t)p[w * i + k] << (8 * k);
        v[i] = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
    }
}

/* w constant after inlining: the byte loop becomes one store per value */
static inline __attribute__((always_inline)) void pack_w(uint8_t *out, const int64_t *v, size_t n, unsigned w)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < w; b++)
            out[i * w + b] = (uint8_t)((uint64_t)v[i] >> (8 * b));
}

/* KERNEL(dst, src, n, w) with w a constant 1..8 (any other w as 8): one inlined copy per
 * width */
#define BY_WIDTH(KERNEL, dst, src, n, w)                                                      \
    switch (w) {                                                                              \
    case 1: KERNEL(dst, src, n, 1); break;                                                    \
    case 2: KERNEL(dst, src, n, 2); break;                                                    \
    case 3: KERNEL(dst, src, n, 3); break;                                                    \
    case 4: KERNEL(dst, src, n, 4); break;                                                    \
    case 5: KERNEL(dst, src, n, 5); break;                                                    \
    case 6: KERNEL(dst, src, n, 6); break;                                                    \
    case 7: KERNEL(dst, src, n, 7); break;                                                    \
    default: KERNEL(dst, src, n, 8); break;                                                   \
    }

void ez_unpack_i64(int64_t *v, const uint8_t *p, size_t n, unsigned w)
{
    BY_WIDTH(unpack_w, v, p, n, w)
}

void ez_pack_i64(uint8_t *out, const int64_t *v, size_t n, unsigned w)
{
    BY_WIDTH(pack_w, out, v, n, w)
}

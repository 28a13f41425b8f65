/* util — status codes, diagnostics, checked allocation, and the byte writer / strict
 * reader that every binary format of einzk is built on.
 *
 * Library code never prints or exits: it returns ez_status and, when a user needs a
 * sentence, fills an ez_diag. Untrusted bytes are read only through ez_reader, which
 * can never read out of bounds: after the first failure every read fails. */
#ifndef EZ_UTIL_H
#define EZ_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    EZ_OK = 0,
    EZ_ERR_NOMEM,       /* allocation failed or a size overflowed */
    EZ_ERR_INVALID,     /* a caller broke a precondition (bad argument) */
    EZ_ERR_IO,          /* a file could not be read or written */
    EZ_ERR_FORMAT,      /* untrusted bytes are malformed (truncated, bad magic, ...) */
    EZ_ERR_INPUT,       /* user data does not fit the model (names, shapes, JSON) */
    EZ_ERR_SOURCE,      /* the .ein source has errors */
    EZ_ERR_NUMERIC,     /* a value is outside its range (quantization, bounds) */
    EZ_ERR_UNSUPPORTED, /* a feature the current build cannot do yet */
    EZ_ERR_REJECT,      /* a verifier rejected a proof */
    EZ_ERR_INTERNAL     /* a bug */
} ez_status;

/* A short English name for a status ("out of memory", "malformed data", ...). */
const char *ez_status_str(ez_status s);

/* A user-facing message a library function may leave for the CLI to print. */
typedef struct {
    char msg[1024];
} ez_diag;

/* Format into d->msg (truncating). d may be NULL: then nothing happens. */
void ez_diag_set(ez_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ez_diag_vset(ez_diag *d, const char *fmt, va_list ap);

/* Invariants: active when configured with verify checks (the default and the test
 * build), compiled out with --disable-verify-checks. A failure is a bug: abort. */
#ifdef EZ_VERIFY
#define EZ_VERIFY_CHECK(x) ((x) ? (void)0 : ez_verify_fail(#x, __FILE__, __LINE__))
#else
#define EZ_VERIFY_CHECK(x) ((void)0)
#endif
_Noreturn void ez_verify_fail(const char *expr, const char *file, int line);

/* Checked allocation: n * size with overflow check; NULL on failure or overflow.
 * ez_alloc_array zero-fills. Free with free(). */
void *ez_alloc_array(size_t n, size_t size);
/* free() each of p[0..n) (NULL entries are no-ops, as for free): the scratch arrays or
 * the members a function's one cleanup releases. EZ_FREE_ALL(a, b, c) passes its
 * arguments as that array (each evaluated once). */
void ez_free_all(void *const *p, size_t n);
#define EZ_FREE_ALL(...) \
    ez_free_all((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))
void *ez_realloc_array(void *p, size_t n, size_t size);
/* Room for one more element in a growable array a of n elements (capacity *cap, elem
 * bytes each): when it is full, a reallocated to twice *cap (min_cap at first) and *cap
 * updated. Returns the array (a itself when it had room), or NULL when the allocation
 * fails (a and *cap unchanged). */
void *ez_array_room(void *a, size_t n, size_t *cap, size_t elem, size_t min_cap);
/* 64-byte aligned, uninitialised; free with free(). NULL on failure. */
void *ez_alloc_aligned(size_t n, size_t size);
/* For large scratch tables: as ez_alloc_aligned (64-byte aligned, uninitialised, free
 * with free(), NULL on failure or overflow). With EZ_HUGEPAGES=1 in the environment, from
 * 4 MiB on the whole 2 MiB pages inside the block are advised for transparent huge pages
 * (madvise MADV_HUGEPAGE): one fault per 2 MiB instead of per 4 KiB, but on hosts that
 * must compact memory to find a huge page the first touch stalls (measured 8x slower on
 * this project's VMs, util.c), so it is off by default. No stronger alignment, on
 * purpose: 2 MiB-aligned requests were measured to push glibc into fresh mappings (+20%
 * faults, +130 MiB peak RSS in a prove). */
void *ez_alloc_huge(size_t n, size_t size);
/* Fault in the pages of p[0 .. bytes) in one call (madvise MADV_POPULATE_WRITE, Linux
 * 5.14), for a fresh buffer about to be written in full: 24 ms of thread CPU per 96 MiB
 * against 43 ms page by page (a first-touch loop on this project's VM, 2026-12-02). Not
 * for buffers written only in part (it makes every page resident). Advice only: a
 * kernel without it refuses harmlessly; NULL-safe. */
void ez_populate(void *p, size_t bytes);
char *ez_strdup(const char *s);
/* Spilling prover data to disk (EZ_SPILL_DIR in the environment; unset or empty: off).
 * ez_spill_copy writes bytes from p to a new unlinked file in that directory and returns
 * a shared writable mapping of it (the same contents; NULL when off or on any failure,
 * nothing changed then); the caller frees p and later releases the mapping with
 * ez_spill_free (munmap). The mapping's pages are clean page cache until touched, so
 * they leave the process's resident set, and the kernel can evict them: data written
 * once and read sparsely later (a commitment's vector and Merkle tree, read again only by
 * the openings) costs disk instead of memory (docs/performance.md, issue 15). */
void *ez_spill_copy(const void *p, size_t bytes);
/* A new zero-filled array already on disk: a shared writable mapping of a new unlinked
 * file of that size (EZ_SPILL_DIR; NULL when off or on any failure: the caller then
 * allocates in memory). What is written to it goes to the file's page cache directly, so
 * data built in place and spilled afterwards costs no copy (ez_spill_copy's write moved
 * every byte through the kernel: 18 % of an L = 2, 512-token GPT-2 prove's CPU, perf).
 * Free with ez_spill_free; ez_spill_release hands its pages back at any time. */
void *ez_spill_alloc(size_t bytes);
/* Is spilling asked for (EZ_SPILL_DIR set and not empty; read per call)? The prover's
 * sign that memory is short: the CLI sets it when the prover would need more than half
 * of it (cli/model.c). Says nothing about whether a given spill succeeds. */
bool ez_spill_on(void);
void ez_spill_free(void *m, size_t bytes);
/* Hand back the resident pages of an ez_spill_copy mapping (madvise MADV_DONTNEED; the
 * contents stay: a later read faults them in again from the file, page cache first). A
 * touched page of the mapping counts in the resident set like heap memory, so a pass
 * over several spilled vectors, one after the other, costs one vector's memory only if
 * each is released after its turn. m NULL: nothing. Both kinds of spill mapping are
 * shared, so what was written to them stays as well. m may lie inside a mapping:
 * the whole pages around [m, m + bytes) are handed back (their other bytes stay too). */
void ez_spill_release(const void *m, size_t bytes);

/* Anonymous pages for a large short-lived buffer, zero-filled, handed back to the kernel
 * by ez_free_pages (bytes: the size allocated). A heap block would stay resident after
 * its free under the CLI's 1 GiB trim threshold (cli/model.c ez_cli_tune_malloc) and
 * raise the peak of what follows. NULL when out of memory or bytes is 0. */
void *ez_alloc_pages(size_t bytes);
void ez_free_pages(void *p, size_t bytes);

/* Seconds since an arbitrary epoch (monotonic clock). */
double ez_now(void);
/* Peak resident set size of this process in bytes (0 if unknown). */
uint64_t ez_peak_rss_bytes(void);

/* ---- byte writer: a growable little-endian buffer --------------------------------
 * Writes never fail visibly: an allocation failure sets w->failed and later writes are
 * ignored, so a sequence of writes is checked once at the end. */
typedef struct {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} ez_writer;

void ez_writer_init(ez_writer *w);
void ez_writer_clear(ez_writer *w);
void ez_writer_bytes(ez_writer *w, const void *p, size_t n);
void ez_writer_u8(ez_writer *w, uint8_t v);
void ez_writer_u32(ez_writer *w, uint32_t v);
void ez_writer_u64(ez_writer *w, uint64_t v);
void ez_writer_i64(ez_writer *w, int64_t v);
void ez_writer_f64(ez_writer *w, double v);
/* u32 length then the bytes (no terminator). */
void ez_writer_str(ez_writer *w, const char *s);
/* Reserve n bytes and return their offset (to patch a length in later); SIZE_MAX on failure. */
size_t ez_writer_reserve(ez_writer *w, size_t n);
void ez_writer_patch_u64(ez_writer *w, size_t off, uint64_t v);

/* The writer as a string builder (messages, dumps): append printf-formatted text, no
 * terminator; ez_writer_take_text adds it. */
void ez_writer_printf(ez_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What was written, as a new NUL-terminated string (free()): "" when nothing was; NULL
 * when a write failed or memory ran out. Either way w is left empty (as after init). */
char *ez_writer_take_text(ez_writer *w);

/* ---- strict reader over untrusted bytes -------------------------------------------
 * Every read checks the remaining length; the first short read sets r->failed and all
 * later reads fail too and return zeros, so parsers may read a whole record and check
 * once. Reading never touches memory outside [data, data + len). */
typedef struct {
    const uint8_t *data;
    size_t len, pos;
    bool failed;
} ez_reader;

void ez_reader_init(ez_reader *r, const void *data, size_t len);
bool ez_reader_bytes(ez_reader *r, void *out, size_t n);
/* Borrow n bytes in place (NULL if short). */
const uint8_t *ez_reader_view(ez_reader *r, size_t n);
uint8_t ez_reader_u8(ez_reader *r);
uint32_t ez_reader_u32(ez_reader *r);
uint64_t ez_reader_u64(ez_reader *r);
int64_t ez_reader_i64(ez_reader *r);
double ez_reader_f64(ez_reader *r);
/* A u32-length-prefixed string of at most max_len bytes without NUL bytes; returns a
 * new NUL-terminated copy (free()) or NULL and sets failed. */
char *ez_reader_str(ez_reader *r, size_t max_len);
/* A u64 count that must be <= max (a sanity cap against absurd allocations) and whose
 * elem_size-byte payload must fit in what remains; 0 and failed otherwise. */
uint64_t ez_reader_count(ez_reader *r, uint64_t max, size_t elem_size);
size_t ez_reader_remaining(const ez_reader *r);
/* True iff nothing failed and every byte was consumed. */
bool ez_reader_done(const ez_reader *r);

/* ---- packed integers ---- */

/* n integers of w bytes each (1 <= w <= 8), two's complement little-endian, at p into v,
 * sign-extended: the proof statement's encoding (docs/protocol.md §9). O(n), no
 * allocation; w is dispatched once, so each value is one load and a shift pair. */
void ez_unpack_i64(int64_t *v, const uint8_t *p, size_t n, unsigned w);
/* The inverse: n values into out, w bytes each (their low bytes). O(n). */
void ez_pack_i64(uint8_t *out, const int64_t *v, size_t n, unsigned w);

/* ---- bit counts ---- */

/* ceil(log2 n); 0 for n <= 1 (the variables of an n-entry zero-padded MLE). */
static inline unsigned ez_log2_ceil(uint64_t n)
{
    return n <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(n - 1);
}

/* The number of bits of v (0 for 0): v < 2^ez_bitlen(v). */
static inline unsigned ez_bitlen(uint64_t v)
{
    return v == 0 ? 0 : 64u - (unsigned)__builtin_clzll(v);
}

/* ---- "did you mean ...?" ----------------------------------------------------------
 * The closest of a set of candidate names to a misspelt one, for help lines (the
 * compiler's undefined names and -D params, the CLI's commands and options). */

/* Levenshtein distance between a and b (insertions, deletions, substitutions); 99 when
 * either is longer than 63 bytes. O(strlen(a) * strlen(b)), no allocation. */
/* Sort a[0..n) ascending in place (insertion sort: meant for the few hundred query
 * positions of a PCS opening) and drop repeats; returns the count left. */
size_t ez_sort_unique_u64(uint64_t *a, size_t n);

unsigned ez_edit_distance(const char *a, const char *b);

typedef struct {
    const char *best; /* the closest candidate so far, or NULL */
    unsigned dist;    /* its edit distance */
    const char *want; /* the misspelt name (borrowed) */
} ez_suggest;

/* Start a search for names close to want (borrowed until the search ends). */
void ez_suggest_init(ez_suggest *s, const char *want);
/* Offer one candidate (NULL and want itself are ignored). s->best becomes cand when it
 * is closer than every earlier one and within a distance that is still a plausible slip:
 * 1 for names of up to 3 bytes, 2 up to 6, else 3; a one-letter want only matches a
 * one-letter candidate that differs in case (x for X). cand is borrowed. */
void ez_suggest_try(ez_suggest *s, const char *cand);


/* Progress of a long kernel step (a commitment's encoding and hashing), for the CLI's
 * progress line. The sink belongs to the calling thread, installed around the one call
 * whose progress is wanted, so that a kernel deep below it reports without every layer
 * passing a callback; OpenMP workers have none, so only the installing thread (the
 * team's master) reports. ez_progress_install(NULL, NULL) removes it. */
typedef void (*ez_progress_fn)(void *ctx, double frac);
void ez_progress_install(ez_progress_fn fn, void *ctx);
/* Report frac (0..1) of the step to this thread's sink, if any. */
void ez_progress_report(double frac);
/* Whole-file helpers. ez_file_read returns EZ_ERR_IO with a diag naming the file. */
ez_status ez_file_read(const char *path, uint8_t **out, size_t *out_len, ez_diag *d);
/* A whole file read-only, mapped when it can be (a regular file): its pages come from
 * the page cache, so a multi-GB input (a pk) costs no anonymous copy, no zeroed fresh
 * pages and no read() copy; otherwise (pipes, mmap failure) read as ez_file_read.
 * Clear with ez_file_view_clear (zeroes it; NULL-safe on a zeroed view). */
typedef struct {
    uint8_t *data;
    size_t len;
    int mapped;
} ez_file_view;
ez_status ez_file_map(ez_file_view *v, const char *path, ez_diag *d);
void ez_file_view_clear(ez_file_view *v);
/* Atomic: the bytes go to a temporary file in path's directory, renamed to path when
 * complete (an interrupted run leaves no partial file under path). */
ez_status ez_file_write(const char *path, const void *data, size_t len, ez_diag *d);
/* Can path be written (its directory exists and is writable, path is no directory)?
 * Checked before long work, so a bad -o fails in milliseconds. EZ_OK or EZ_ERR_IO. */
ez_status ez_file_check_writable(const char *path, ez_diag *d);

#endif

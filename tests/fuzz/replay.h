/* replay — the corpus replayer of the harnesses that judge an input accepted or
 * refused (fuzz_safetensors, fuzz_json, fuzz_formats), built when EZ_LIBFUZZER is not
 * defined. Header-only: tests/fuzz/libfuzzer.sh compiles each harness as one file. */
#ifndef EZ_TESTS_FUZZ_REPLAY_H
#define EZ_TESTS_FUZZ_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"

/* Run run_one on every file of files[0..n) and print "NAME: replayed N file(s): A
 * accepted, R refused" (the robustness scripts check that valid seeds are accepted).
 * Returns 1 when a file could not be read, else 0 (a crash or a sanitizer report ends
 * the process on its own). */
static inline int ez_fuzz_replay(const char *name, char **files, int n, bool (*run_one)(const uint8_t *, size_t))
{
    int rc = 0, accepted = 0;
    for (int i = 0; i < n; i++) {
        uint8_t *buf = NULL;
        size_t len = 0;
        ez_diag d;
        if (ez_file_read(files[i], &buf, &len, &d) != EZ_OK) {
            fprintf(stderr, "%s\n", d.msg);
            rc = 1;
            continue;
        }
        accepted += run_one(buf, len);
        free(buf);
    }
    printf("%s: replayed %d file(s): %d accepted, %d refused\n", name, n, accepted, n - accepted);
    return rc;
}

/* The entry points of a harness whose input is one file judged by run_one: libFuzzer's,
 * and without EZ_LIBFUZZER a main replaying the files named on the command line. */
#define EZ_FUZZ_ENTRY(run_one)                                                                                     \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                                                  \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                                   \
    {                                                                                                              \
        (void)run_one(data, size);                                                                                 \
        return 0;                                                                                                  \
    }
#ifdef EZ_LIBFUZZER
#define EZ_FUZZ_HARNESS(name, run_one) EZ_FUZZ_ENTRY(run_one)
#else
#define EZ_FUZZ_HARNESS(name, run_one)                                                                             \
    EZ_FUZZ_ENTRY(run_one)                                                                                         \
    int main(int argc, char **argv)                                                                                \
    {                                                                                                              \
        return ez_fuzz_replay(name, argv + 1, argc - 1, run_one);                                                  \
    }
#endif

#endif

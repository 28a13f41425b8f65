/* The one Check runner: every module's suite, with the random seed printed first.
 *
 *   tests/check_einzk                    every suite
 *   CK_RUN_SUITE=name tests/check_einzk  one suite (Check's own variable)
 *   EZ_TEST_SHARD=k/n tests/check_einzk  shard k of n: the suites split into n parts of
 *                                        about equal weight (tests/suites.h), so that
 *                                        `make check` runs them side by side */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/testutil.h"

static uint64_t g_seed;

uint64_t ez_test_seed(void)
{
    return g_seed;
}

typedef struct {
    Suite *(*make)(void);
    unsigned weight;
} suite_row;

static const suite_row suites[] = {
#define EZ_SUITE(name) {ez_suite_##name, 1},
#define EZ_SUITE_W(name, w) {ez_suite_##name, w},
#include "tests/suites.h"
#undef EZ_SUITE
#undef EZ_SUITE_W
};
#define NSUITES (sizeof suites / sizeof suites[0])

/* Greedy split: heaviest suite first, each to the lightest shard so far (ties: lowest
 * shard). Deterministic, so the shards cover every suite exactly once. */
static void shard_of(unsigned n, unsigned *shard)
{
    unsigned load[64] = {0};
    bool done[NSUITES] = {false};
    for (size_t k = 0; k < NSUITES; k++) {
        size_t best = 0;
        bool any = false;
        for (size_t i = 0; i < NSUITES; i++)
            if (!done[i] && (!any || suites[i].weight > suites[best].weight)) {
                best = i;
                any = true;
            }
        unsigned s = 0;
        for (unsigned j = 1; j < n; j++)
            if (load[j] < load[s])
                s = j;
        shard[best] = s;
        load[s] += suites[best].weight;
        done[best] = true;
    }
}

int main(void)
{
    const char *env = getenv("EZ_TEST_SEED");
    g_seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    unsigned k = 0, n = 1;
    const char *sh = getenv("EZ_TEST_SHARD");
    if (sh && (sscanf(sh, "%u/%u", &k, &n) != 2 || n == 0 || n > 64 || k >= n)) {
        fprintf(stderr, "EZ_TEST_SHARD=%s: expected k/n with 0 <= k < n <= 64\n", sh);
        return EXIT_FAILURE;
    }
    printf("einzk unit tests: seed %" PRIu64 " (replay with EZ_TEST_SEED=%" PRIu64 ")", g_seed, g_seed);
    if (n > 1)
        printf(", shard %u/%u", k, n);
    printf("\n");
    fflush(stdout);

    unsigned shard[NSUITES];
    shard_of(n, shard);
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < NSUITES; i++)
        if (shard[i] == k)
            srunner_add_suite(sr, suites[i].make());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("seed was %" PRIu64 "\n", g_seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

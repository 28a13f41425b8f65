/* The one Check runner: every module's suite, with the random seed printed first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/testutil.h"

static uint64_t g_seed;

uint64_t ez_test_seed(void)
{
    return g_seed;
}

int main(void)
{
    const char *env = getenv("EZ_TEST_SEED");
    g_seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    printf("einzk unit tests: seed %" PRIu64 " (replay with EZ_TEST_SEED=%" PRIu64 ")\n", g_seed, g_seed);
    fflush(stdout);

    SRunner *sr = srunner_create(NULL);
#define EZ_SUITE(name) srunner_add_suite(sr, ez_suite_##name());
#include "tests/suites.h"
#undef EZ_SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("seed was %" PRIu64 "\n", g_seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

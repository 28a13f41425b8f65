/* The one Check runner: every module's suite, with the random seed printed first.
 *
 * EZ_TEST_FAILFAST=1 (used by tests/mutation/run.sh) runs the suites one at a time and
 * stops at the first suite with a failure, printing "failfast: suite NAME failed";
 * EZ_TEST_FIRST=name,name,... runs those suites first (in that order, then the rest);
 * a non-empty EZ_TEST_ONLY runs those suites only. */
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
    const char *name;
    Suite *(*make)(void);
} suite_entry;

static const suite_entry g_suites[] = {
#define EZ_SUITE(name) {#name, ez_suite_##name},
#include "tests/suites.h"
#undef EZ_SUITE
};
#define NSUITES (sizeof g_suites / sizeof g_suites[0])

/* Whether name is one of the comma-separated list's entries. */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* One suite in its own runner: its number of failed tests. */
static int run_one(const suite_entry *s)
{
    SRunner *sr = srunner_create(s->make());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

static int run_failfast(const char *first)
{
    bool done[NSUITES] = {false};
    /* the listed suites first, in the list's order */
    for (const char *p = first; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        for (size_t i = 0; i < NSUITES; i++)
            if (!done[i] && strlen(g_suites[i].name) == len && strncmp(p, g_suites[i].name, len) == 0) {
                done[i] = true;
                if (run_one(&g_suites[i])) {
                    printf("failfast: suite %s failed\n", g_suites[i].name);
                    return 1;
                }
            }
        p = e ? e + 1 : NULL;
    }
    const char *only = getenv("EZ_TEST_ONLY");
    if (only && *only)
        return 0;
    for (size_t i = 0; i < NSUITES; i++) {
        if (done[i] || in_list(first, g_suites[i].name))
            continue;
        if (run_one(&g_suites[i])) {
            printf("failfast: suite %s failed\n", g_suites[i].name);
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    const char *env = getenv("EZ_TEST_SEED");
    g_seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    printf("einzk unit tests: seed %" PRIu64 " (replay with EZ_TEST_SEED=%" PRIu64 ")\n", g_seed, g_seed);
    fflush(stdout);

    int failed;
    if (getenv("EZ_TEST_FAILFAST")) {
        failed = run_failfast(getenv("EZ_TEST_FIRST"));
    } else {
        SRunner *sr = srunner_create(NULL);
        for (size_t i = 0; i < NSUITES; i++)
            srunner_add_suite(sr, g_suites[i].make());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
    }
    if (failed)
        printf("seed was %" PRIu64 "\n", g_seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

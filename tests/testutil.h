/* Shared helpers for the Check suites: a seeded, reproducible random source.
 * The runner prints the seed; EZ_TEST_SEED=<n> in the environment replays a run. */
#ifndef EZ_TESTUTIL_H
#define EZ_TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "lib/field.h"

#define EZ_SUITE(name) Suite *ez_suite_##name(void);
#include "tests/suites.h"
#undef EZ_SUITE

/* The run's seed (set once by the runner before any test). */
uint64_t ez_test_seed(void);

/* splitmix64: a small deterministic generator; each test seeds its own state from
 * ez_test_seed() so tests are independent of each other's order. */
typedef struct {
    uint64_t s;
} ez_rng;

static inline uint64_t ez_rng_next(ez_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline ez_rng ez_rng_for(const char *test_name)
{
    uint64_t h = ez_test_seed();
    for (const char *c = test_name; *c; c++)
        h = (h ^ (uint8_t)*c) * UINT64_C(0x100000001B3);
    ez_rng r = {h};
    return r;
}

static inline ez_fe ez_rng_fe(ez_rng *r)
{
    return ez_fe_from_u64(ez_rng_next(r));
}

static inline ez_fe2 ez_rng_fe2(ez_rng *r)
{
    return ez_fe2_make(ez_rng_fe(r), ez_rng_fe(r));
}

#endif

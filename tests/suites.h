/* The list of Check suites in the one runner: one line per tests/check_<module>.c.
 * Each module's file defines `Suite *ez_suite_<name>(void)`. */
EZ_SUITE(util)
EZ_SUITE(field)

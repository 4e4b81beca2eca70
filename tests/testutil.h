/* testutil.h - shared helpers for the CUnit suites: fresh randomness and a runner. */
#ifndef ZKA_TESTUTIL_H
#define ZKA_TESTUTIL_H
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

/* Fills buf with n bytes from getrandom(2): every run sees fresh values. */
void zka_test_random(void *buf, size_t n);

/* Returns a fresh random 64-bit value. */
uint64_t zka_test_rand64(void);

/* Runs every registered suite; returns 0 when all tests passed, 1 otherwise.
 * Prints CUnit's summary, so ctest logs show the counts. */
int zka_test_run(void);

/* Adds a suite with the NULL-terminated list of (name, fn) pairs; aborts the program if
 * CUnit cannot allocate it (a test harness failure, not a test failure). */
typedef struct { const char *name; CU_TestFunc fn; } zka_test_case;
void zka_test_suite(const char *name, const zka_test_case *cases);

#endif

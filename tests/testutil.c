/* testutil.c - see testutil.h. */
#include "tests/testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

void zka_test_random(void *buf, size_t n)
{
	unsigned char *p = buf;
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0) {
			perror("getrandom");
			abort();
		}
		p += got;
		n -= (size_t)got;
	}
}

uint64_t zka_test_rand64(void)
{
	uint64_t v;
	zka_test_random(&v, sizeof v);
	return v;
}

void zka_test_suite(const char *name, const zka_test_case *cases)
{
	if (CU_get_registry() == NULL && CU_initialize_registry() != CUE_SUCCESS)
		abort();
	CU_pSuite s = CU_add_suite(name, NULL, NULL);
	if (!s)
		abort();
	for (; cases->name; cases++)
		if (!CU_add_test(s, cases->name, cases->fn))
			abort();
}

int zka_test_run(void)
{
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	unsigned run = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	return (failed == 0 && run > 0) ? 0 : 1;
}

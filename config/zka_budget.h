/* zka_budget.h - the window tables' memory budget as operators write it ([run] table_budget,
 * zkarena-gpud --table-budget, $ZKG_TABLE_BUDGET, bench gpu --table-budget): "max", or N or Nx
 * with N a number >= 0, in multiples of the key's own point bytes (cuda/zka_gpu_test.h,
 * zka_gpu_set_table_budget, says what it buys). Header-only: the settings check (built without
 * CUDA) and the CUDA library read it alike. */
#ifndef ZKA_BUDGET_H
#define ZKA_BUDGET_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* *times = the budget s names (INFINITY for "max"); 0, or -EINVAL (and *times untouched) for
 * anything else: empty, negative, not a number, trailing text other than one 'x'. */
static inline int zka_budget_parse(const char *s, double *times)
{
	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "max")) {
		*times = INFINITY;
		return 0;
	}
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !(v >= 0) || isinf(v) || (*end && strcmp(end, "x")))
		return -EINVAL;
	*times = v;
	return 0;
}

/* The budget times as zka_budget_parse reads it back: "max" for INFINITY, else "%gx". */
static inline void zka_budget_str(double times, char *buf, size_t len)
{
	if (isinf(times))
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%gx", times);
}

#endif

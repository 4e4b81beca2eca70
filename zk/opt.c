/* opt.c - integer values of command-line options (see opt.h) */
#include "zk/opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int zka_opt_int(const char *prog, const char *name, const char *s, long lo, long hi, int *out)
{
	/* strtol alone would take leading blanks and '+' and stop at the first non-digit */
	int ok = s && (is_digit(s[0]) || (s[0] == '-' && is_digit(s[1])));
	long v = 0;
	if (ok) {
		char *end;
		errno = 0;
		v = strtol(s, &end, 10);
		ok = *end == 0 && errno == 0 && v >= lo && v <= hi;
	}
	if (!ok) {
		fprintf(stderr, "%s: %s: '%s' is not an integer in %ld..%ld\n", prog, name, s ? s : "", lo, hi);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

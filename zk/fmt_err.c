/* fmt_err.c - see fmt_err.h. */
#include "zk/fmt_err.h"

#include <stdarg.h>
#include <stdio.h>

void zka_fmt_err(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	if (!err || errlen == 0 || err[0])
		return;
	int n = snprintf(err, errlen, "%s: ", path ? path : "(null)");
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	/* one line: replace any newline a message may carry */
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

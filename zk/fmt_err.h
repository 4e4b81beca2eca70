/* fmt_err.h - one-line "PATH: problem" error messages for the file-format readers/writers. */
#ifndef ZKA_FMT_ERR_H
#define ZKA_FMT_ERR_H
#include <stddef.h>

/* Writes "path: <formatted message>" into err (errlen bytes, always NUL-terminated, truncated
 * if needed). Does nothing when err is NULL or errlen is 0. Keeps the first error: if err
 * already holds a message (err[0] != 0) it is left as is, so an inner, more precise message
 * wins over an outer, generic one. */
void zka_fmt_err(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

/* opt.h - integer values of command-line options, parsed strictly (no atoi: "3x", "", " 3"
 * and out-of-range values are errors, not 3 or 0). */
#ifndef ZKA_OPT_H
#define ZKA_OPT_H

/* Parses s as a decimal integer in lo..hi into *out. On failure prints one line,
 * "<prog>: <name>: '<s>' is not an integer in lo..hi", to stderr and returns -EINVAL
 * (*out unchanged); returns 0 otherwise. */
int zka_opt_int(const char *prog, const char *name, const char *s, long lo, long hi, int *out);

#endif

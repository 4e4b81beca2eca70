/* decimal.c - see decimal.h. */
#include "zk/decimal.h"

#include <errno.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

/* Longest accepted input: 48-byte values have at most 116 digits; leading zeros aside. */
#define ZKA_DEC_MAX_LEN 1024

int zka_dec_parse(const char *s, void *out, size_t n8, const uint64_t *mod, uint32_t mod_limbs)
{
	int ret = 0;
	if (!s || !*s)
		return -EINVAL;
	size_t len = 0;
	for (const char *p = s; *p; p++, len++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	if (len > ZKA_DEC_MAX_LEN)
		return -ERANGE;
	mpz_t v, m;
	mpz_init(v);
	mpz_init(m);
	if (mpz_set_str(v, s, 10) != 0) {
		ret = -EINVAL;
		goto err;
	}
	if (mpz_sizeinbase(v, 2) > n8 * 8) {
		ret = -ERANGE;
		goto err;
	}
	if (mod) {
		mpz_import(m, mod_limbs, -1, sizeof(uint64_t), 0, 0, mod);
		if (mpz_cmp(v, m) >= 0) {
			ret = -ERANGE;
			goto err;
		}
	}
	memset(out, 0, n8);
	mpz_export(out, NULL, -1, 1, 0, 0, v);
err:
	mpz_clear(v);
	mpz_clear(m);
	return ret;
}

char *zka_dec_format(const void *in, size_t n8)
{
	mpz_t v;
	mpz_init(v);
	mpz_import(v, n8, -1, 1, 0, 0, in);
	/* mpz_get_str allocates with GMP's allocator (malloc by default); copy to be sure */
	size_t need = mpz_sizeinbase(v, 10) + 2;
	char *s = malloc(need);
	if (s)
		mpz_get_str(s, 10, v);
	mpz_clear(v);
	return s;
}

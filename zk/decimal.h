/* decimal.h - decimal strings <-> little-endian integers of n8 bytes (32 or 48), via GMP. */
#ifndef ZKA_DECIMAL_H
#define ZKA_DECIMAL_H
#include <stddef.h>
#include <stdint.h>

/* Parses s strictly: one or more ASCII digits, nothing else (no sign, no spaces, no "0x";
 * leading zeros are accepted as snarkjs does). Stores the value as n8 little-endian bytes.
 * When mod is not NULL the value must also be < mod (mod_limbs 64-bit limbs).
 * Returns 0, -EINVAL (not a decimal string), -ERANGE (does not fit n8 bytes or >= mod),
 * -ENOMEM. out is untouched on error. */
int zka_dec_parse(const char *s, void *out, size_t n8, const uint64_t *mod, uint32_t mod_limbs);

/* Formats the n8-byte little-endian integer as a decimal string without leading zeros
 * ("0" for zero). Returns a malloc'ed string or NULL (out of memory). */
char *zka_dec_format(const void *in, size_t n8);

#endif

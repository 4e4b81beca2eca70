/* fr.hpp - zkarena's stand-in for the fr.hpp that circom's --c output includes.
 *
 * `zkarena import --c DIR` compiles circom's generated circuit (DIR/<name>.cpp, calcwit.cpp)
 * against this header instead of circom's own, and links it with trace.cpp: every Fr_
 * operation then records a node of the witness graph (witness/zka_wcg.h) instead of computing
 * a value. The element layout is circom's (the generated code and calcwit.cpp copy elements
 * by value and index arrays of them), so constants loaded from the circuit's .dat keep their
 * meaning; a traced element is marked by type ZKA_FR_TRACED and carries its node id in
 * shortVal. Only the functions circom's generated code and calcwit.cpp call are declared. */
#ifndef __FR_H
#define __FR_H
#include <gmp.h>
#include <stdint.h>
#include <string>

#define Fr_N64 4
#define Fr_SHORT 0x00000000
#define Fr_MONTGOMERY 0x40000000
#define Fr_SHORTMONTGOMERY 0x40000000
#define Fr_LONG 0x80000000
#define Fr_LONGMONTGOMERY 0xC0000000
#define ZKA_FR_TRACED 0x2A000000u

typedef uint64_t FrRawElement[Fr_N64];
typedef struct __attribute__((__packed__)) {
	int32_t shortVal;
	uint32_t type;
	FrRawElement longVal;
} FrElement;
typedef FrElement *PFrElement;

extern "C" {
void Fr_copy(PFrElement r, PFrElement a);
void Fr_copyn(PFrElement r, PFrElement a, int n);
void Fr_add(PFrElement r, PFrElement a, PFrElement b);
void Fr_sub(PFrElement r, PFrElement a, PFrElement b);
void Fr_neg(PFrElement r, PFrElement a);
void Fr_mul(PFrElement r, PFrElement a, PFrElement b);
void Fr_square(PFrElement r, PFrElement a);
void Fr_band(PFrElement r, PFrElement a, PFrElement b);
void Fr_bor(PFrElement r, PFrElement a, PFrElement b);
void Fr_bxor(PFrElement r, PFrElement a, PFrElement b);
void Fr_bnot(PFrElement r, PFrElement a);
void Fr_shl(PFrElement r, PFrElement a, PFrElement b);
void Fr_shr(PFrElement r, PFrElement a, PFrElement b);
void Fr_eq(PFrElement r, PFrElement a, PFrElement b);
void Fr_neq(PFrElement r, PFrElement a, PFrElement b);
void Fr_lt(PFrElement r, PFrElement a, PFrElement b);
void Fr_gt(PFrElement r, PFrElement a, PFrElement b);
void Fr_leq(PFrElement r, PFrElement a, PFrElement b);
void Fr_geq(PFrElement r, PFrElement a, PFrElement b);
void Fr_land(PFrElement r, PFrElement a, PFrElement b);
void Fr_lor(PFrElement r, PFrElement a, PFrElement b);
void Fr_lnot(PFrElement r, PFrElement a);
void Fr_toNormal(PFrElement r, PFrElement a);
void Fr_toLongNormal(PFrElement r, PFrElement a);
void Fr_toMontgomery(PFrElement r, PFrElement a);
int Fr_isTrue(PFrElement pE);
int Fr_toInt(PFrElement pE);
void Fr_fail();
}
void Fr_str2element(PFrElement pE, char const *s, uint base = 10);
char *Fr_element2str(PFrElement pE);
void Fr_idiv(PFrElement r, PFrElement a, PFrElement b);
void Fr_mod(PFrElement r, PFrElement a, PFrElement b);
void Fr_inv(PFrElement r, PFrElement a);
void Fr_div(PFrElement r, PFrElement a, PFrElement b);
void Fr_pow(PFrElement r, PFrElement a, PFrElement b);

/* Control flow that depends on a traced value (the rewritten circuit source uses these; see
 * trace.cpp's note). zka_spec runs an if/else once per outcome when its condition is traced
 * and merges what both passes wrote with select nodes. */
struct zka_spec {
	explicit zka_spec(PFrElement cond);
	~zka_spec();
	bool next();
	bool taken() const { return pass_taken; }

    private:
	bool pass_taken;
	int state;
	void *frame;
};
#define ZKA_IF(c) for (zka_spec zka__s(c); zka__s.next();) if (zka__s.taken())
int zka_while(PFrElement cond, int line);
void zka_assert(PFrElement cond, const std::string &tmpl, int line, const std::string &trace);
/* circom's source line of the integer division (\\ or %) about to run (set by the rewrite) */
extern int zka_div_line;
#endif

/* zka_wcg.h - the witness calculation graph: what a circom circuit computes, recorded once.
 *
 * Objects
 *   graph   the file `zkarena import --c` writes beside a key (.wcg): the field operations a
 *           circom circuit's witness calculator performs, as a straight-line program over
 *           nodes, with circom's own constant folding, loops and component wiring already
 *           executed away. Written by the tracer (witness/rt/trace.cpp, compiled with
 *           circom's generated C++), read and evaluated by witness/wcg.c.
 *   node    {op, a, b, c}: an input slot, a constant, or an operation on earlier nodes (a
 *           node's operands always have smaller ids, so evaluation in id order is valid).
 *   input   one scalar of the main component's input signals, in circom's signal order;
 *           named through the input map (FNV-1a 64 hash of the top-level name, offset, size).
 *   assert  {node, guard, msg, line}: the witness is refused when guard is true (or NONE) and
 *           node is zero; msg names circom's template and component path. Line 0 marks the
 *           divisor of an integer division (circom's wasm stops on \ or % by zero).
 *
 * File layout (little-endian; see struct zka_wcg_hdr): header, input map, constants (32-byte
 * standard-form field elements), nodes, witness node ids, asserts, message bytes, then an
 * XXH64 of everything before it.
 *
 * Semantics of the operators are circom's (its C++ and wasm calculators agree): values are
 * residues mod p; comparisons read x > (p-1)/2 as x - p; bitwise operators work on the
 * standard-form integer, masked to the bit length of p and reduced once; shifts by a
 * "negative" amount shift the other way; idiv and mod are integer division of the standard
 * forms. A field division by zero yields zero (as circom's calculators do); an integer one on
 * the path taken refuses the witness through its line-0 assert, and yields zero on a branch
 * that select discards.
 */
#ifndef ZKA_WCG_H
#define ZKA_WCG_H
#include <stdint.h>

#define ZKA_WCG_MAGIC "ZKAWCG01"
#define ZKA_WCG_NONE 0xffffffffu

enum zka_wcg_op {
	ZKA_WOP_INPUT = 1, /* a: input slot */
	ZKA_WOP_CONST,	   /* a: constant index */
	ZKA_WOP_ADD,
	ZKA_WOP_SUB,
	ZKA_WOP_MUL,
	ZKA_WOP_DIV,
	ZKA_WOP_NEG,
	ZKA_WOP_POW,
	ZKA_WOP_IDIV,
	ZKA_WOP_MOD,
	ZKA_WOP_SHL,
	ZKA_WOP_SHR,
	ZKA_WOP_BAND,
	ZKA_WOP_BOR,
	ZKA_WOP_BXOR,
	ZKA_WOP_BNOT,
	ZKA_WOP_EQ,
	ZKA_WOP_NEQ,
	ZKA_WOP_LT,
	ZKA_WOP_GT,
	ZKA_WOP_LEQ,
	ZKA_WOP_GEQ,
	ZKA_WOP_LAND,
	ZKA_WOP_LOR,
	ZKA_WOP_LNOT,
	ZKA_WOP_SELECT, /* a ? b : c */
	ZKA_WOP_COUNT
};

/* Codes of the compiled program's instructions besides the operators above (witness/wcg.c;
 * never in a file): an operator | ZKA_WOP_SMALL is its 64-bit integer form. */
#define ZKA_WOP_SMALL 0x40
#define ZKA_WOP_MAC (ZKA_WOP_COUNT + 1) /* a + b c, small values only */
/* Field instructions whose operands are known at compile time to hold their Montgomery form
 * (wcg.c: "Montgomery operands"): no form flags read, no by-bit shortcuts */
#define ZKA_WOP_LC (ZKA_WOP_COUNT + 2)	 /* sum of products and addends, reduced once */
#define ZKA_WOP_FMUL (ZKA_WOP_COUNT + 3) /* a b */
#define ZKA_WOP_FADD (ZKA_WOP_COUNT + 4) /* a + b */
#define ZKA_WOP_FSUB (ZKA_WOP_COUNT + 5) /* a - b */

struct zka_wcg_hdr {
	char magic[8];
	uint32_t version; /* 1 */
	uint32_t curve;	  /* zka_curve_id of zk/curve.h */
	uint32_t n_inputs;
	uint32_t n_map;
	uint32_t n_consts;
	uint32_t n_nodes;
	uint32_t n_witness;
	uint32_t n_asserts;
	uint32_t msg_bytes;
	uint32_t reserved;
};

struct zka_wcg_map {
	uint64_t hash; /* FNV-1a 64 of the signal's top-level name */
	uint32_t offset;
	uint32_t size;
};

struct zka_wcg_node {
	uint8_t op;
	uint8_t pad[3];
	uint32_t a, b, c;
};

struct zka_wcg_assert {
	uint32_t node, guard, msg, line;
};

/* FNV-1a 64, circom's input-name hash. */
static inline uint64_t zka_wcg_fnv1a(const char *s, uint64_t n)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (uint64_t i = 0; i < n; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001B3ull;
	}
	return h;
}
#endif

/* wcg.c - reads, checks and evaluates witness graphs (zka_witness.h, format in zka_wcg.h).
 *
 * States of a graph: a file on disk -> LOADED (zka_wcg_load: read whole, checksum and every
 * index checked, constants converted to Montgomery form once, then compiled: see below; or
 * zka_wcg_load_kept: the compiled form kept from an earlier process mapped, see "the compiled
 * form kept" below) -> evaluated any number of times, concurrently (zka_wcg_eval only reads
 * it) -> freed.
 *
 * The program (compile()): first narrow() proves, from the graph alone, which nodes hold small
 * values (|v| <= 2^62 as signed integers: a hash circuit's bits, words and their sums) and
 * which asserts cannot fail (a value whose interval excludes 0: circom's x (x - 1) === 0 on a
 * bit made with & 1); those asserts are dropped, and with them the nodes only they read. Each
 * remaining node becomes one instruction, in node order: small ones as 64-bit integer
 * instructions (op | ZKA_WOP_SMALL), the rest on field elements; a small a + x y whose product
 * has no other reader is one fused instruction (ZKA_WOP_MAC). Instructions read and write register
 * slots instead of one value per node. A node's slot is taken when it is computed and given back
 * after its last reader (a node, an assert check, a witness entry); slots go round a free
 * list, so the scratch is the graph's peak of live values, not its size (a hash circuit's
 * working set stays in cache). Each witness entry is written when its node is computed, and
 * each assert is checked at the node that completes it (the later of its value and guard).
 *
 * Montgomery operands (montgomery_ops()): a field instruction whose operands are all values
 * that some field instruction left in Montgomery form (not an input, an integer operator or a
 * small value: mont_out()) needs no form flags and no by-bit shortcuts: FMUL, FADD, FSUB. A
 * field sum whose inner sums and products have no other reader (Poseidon's lc += M[j][i] in[j],
 * MixS's in[i] + in[0] S, a Switcher's aux + L) is one LC instruction: k products x y and m
 * addends z (operand slots in the 16-byte records after the head, at most LC_OPS). Its
 * products are summed as 512-bit integers (below k p^2 < 2^512: k <= lc_kmax, 8 for BN254 and
 * 4 for BLS12-381), reduced once (acc R^-1 = redc(acc mod R) + acc / R, zk/fp_tmpl.h's
 * F(redc): the Montgomery form of sum x y), the addends added, and the total (below 2^256 +
 * (m + 1) p) brought below p by subtraction: exact, and canonical like every slot. BN254
 * Merkle (issue 41): 1.89 M instructions -> 1.04 M (193 LCs, 240 FMULs, 80 FADDs per
 * Poseidon(2)); the witness entries' standard forms are made by F(redc) alone (half the
 * products of F(from_mont)). Tried and dropped (2026-12-07, 2-core box): ordering the program
 * by level, so that the Merkle circuit's 100 independent proofs interleave, gave no
 * measurable gain (36.6 vs 36.5 ms, best of 21) and SHA-256 x16's scratch grew 0.8 -> 4.7 MB.
 *
 * Invariants
 *   W1. After zka_wcg_load, every operand of node i is < i, every constant, input, witness,
 *       assert and message index is in range, and messages are NUL-terminated: evaluation
 *       needs no bounds checks.
 *   W2. A slot is never reused while a later instruction, assert or witness entry reads it.
 *   W3. When evaluation fails (an assert), w may be partly written: callers discard it.
 *   W4. A small instruction's operands are small instructions' results (their integer form
 *       is in the slot), and no small result leaves [-2^62, 2^62] for any input, so the 64-bit
 *       integer arithmetic is exact and v mod p is the field's value. ZKA_WCG_PLAIN=1 turns
 *       narrow() and the Montgomery-operand instructions off: the field-only evaluation that
 *       tests compare with (tests/test_wcg.c).
 *   W5. An FMUL, FADD, FSUB or LC operand's slot holds a canonical Montgomery form when the
 *       instruction runs: its producer always writes one (mont_out()), and later readers only
 *       add other forms beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <gmp.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <xxhash.h>

#include "witness/wcg_ifma.h"
#include "witness/wcg_int.h"
#include "witness/zka_wcg.h"
#include "witness/zka_witness.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"

struct zka_wcg {
	struct zka_wcg_hdr h;
	const zka_curve *curve;
	zka_wi_field wf;
	uint8_t *buf; /* the whole file */
	const struct zka_wcg_map *map;
	const uint64_t (*consts)[4];
	uint64_t (*mconst)[4]; /* constants in Montgomery form */
	const struct zka_wcg_node *nodes;
	const uint32_t *witness;
	const struct zka_wcg_assert *asserts;
	const char *msgs;
	/* small constants (|c| <= 2^62 as a signed integer), for the integer instructions */
	int64_t *iconst;
	uint8_t *ismall;
	uint32_t lc_kmax; /* products one LC may sum: lc_kmax p^2 < 2^512 (at most 8) */
	/* the compiled program: n_ins instructions, the live nodes' */
	struct zka_wcg_ins *prog;
	uint32_t n_ins, n_slots;
	struct zka_wcg_assert *kas; /* the asserts kept (not proved to hold), na of them */
	uint32_t na;
	uint32_t *wemit, *wlist; /* witness entries of node i: wlist[wemit[i] .. wemit[i+1]) */
	uint32_t *achk, *alist,
	    *aslot;		 /* asserts checked at node i, and their (value, guard) slots */
	uint32_t *wnode, *anode; /* the node of wlist[k] and of alist[k], ascending */
	void *kept;		 /* the kept compiled form's mapping, when loaded from one */
	size_t kept_len;
};

/* 16 bytes: the program is streamed once per witness (SHA-256 x16: 4.2 M instructions) */
struct zka_wcg_ins {
	uint32_t od;	  /* op (a zka_wcg_op, | ZKA_WOP_SMALL for its integer form) | dst << 8 */
	uint32_t a, b, c; /* slots (a: the constant or input index of CONST and INPUT) */
};
#define ZKA_WCG_SLOTS_MAX (1u << 24)

/* instruction codes: zka_wcg.h (ZKA_WOP_SMALL, ZKA_WOP_MAC, ZKA_WOP_LC, ...) */
#define SMALL_BOUND ((int64_t)1 << 62)
#define LC_OPS 24 /* at most this many operands (two a product, one an addend) in one LC */

/* z = x / y or x mod y (integers; 0 when y is 0). */
static void zka_wcg_divmod(uint64_t *z, const uint64_t *x, const uint64_t *y, int mod)
{
	mpz_t a, b, c;
	mpz_inits(a, b, c, NULL);
	mpz_import(a, 4, -1, 8, 0, 0, x);
	mpz_import(b, 4, -1, 8, 0, 0, y);
	memset(z, 0, 4 * sizeof *z);
	if (mpz_sgn(b)) {
		if (mod)
			mpz_fdiv_r(c, a, b);
		else
			mpz_fdiv_q(c, a, b);
		mpz_export(z, NULL, -1, 8, 0, 0, c);
	}
	mpz_clears(a, b, c, NULL);
}

/* decided once per process: -1 unknown, 0 off (ifma_why says why), 1 on; ifma_why is set
 * before ifma_state is stored (a race between two first calls only recomputes the same) */
static _Atomic int ifma_state = -1;
static const char *_Atomic ifma_why = "";

/* See zka_witness.h. */
int zka_wcg_ifma(void)
{
	if (ifma_state < 0) {
		const char *e = getenv("ZKA_WCG_IFMA");
		int on = 0;
		if (getenv("ZKA_WCG_PLAIN"))
			ifma_why = " (ZKA_WCG_PLAIN)";
		else if (e && !strcmp(e, "0"))
			ifma_why = " (ZKA_WCG_IFMA=0)";
		else if (!zka_ifma_available())
			ifma_why = " (this CPU has no AVX-512 IFMA)";
		else
			on = 1;
		ifma_state = on;
	}
	return ifma_state;
}

/* See zka_wcg.h. */
const char *zka_wcg_conversions(void)
{
	static char buf[96];
	snprintf(buf, sizeof buf, "%s%s", zka_wcg_ifma() ? "AVX-512 IFMA, 8 at a time" : "scalar",
		 ifma_why);
	return buf;
}

#define FR bn254_fr
#include "witness/wcg_eval_tmpl.h"
#define FR bls12_381_fr
#include "witness/wcg_eval_tmpl.h"

/* The whole regular file open on fd (read with pread from offset 0; the descriptor stays
 * open), named path in messages: 0, or -errno with err set. */
static int read_fd(int fd, const char *path, uint8_t **buf, size_t *size, char *err, size_t errlen)
{
	struct stat st;
	int rc;
	*buf = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	*size = (size_t)st.st_size;
	*buf = malloc(*size ? *size : 1);
	if (!*buf) {
		snprintf(err, errlen, "%s: out of memory (%zu bytes)", path, *size);
		return -ENOMEM;
	}
	for (size_t off = 0; off < *size;) {
		ssize_t n = pread(fd, *buf + off, *size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: read failed (%s)", path,
				 n < 0 ? strerror(errno) : "file shrank");
			free(*buf);
			*buf = NULL;
			return rc;
		}
		off += (size_t)n;
	}
	return 0;
}

/* The whole regular file at path (not followed when a link, not blocking on a FIFO). */
static int read_all(const char *path, uint8_t **buf, size_t *size, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	*buf = NULL;
	if (fd < 0) {
		int rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	int rc = read_fd(fd, path, buf, size, err, errlen);
	close(fd);
	return rc;
}

static int arity(uint8_t op)
{
	switch (op) {
	case ZKA_WOP_INPUT:
	case ZKA_WOP_CONST:
		return 0;
	case ZKA_WOP_NEG:
	case ZKA_WOP_BNOT:
	case ZKA_WOP_LNOT:
		return 1;
	case ZKA_WOP_SELECT:
		return 3;
	default:
		return op > 0 && op < ZKA_WOP_COUNT ? 2 : -1;
	}
}

/* W1: every index of g checked; returns NULL or the problem. */
static const char *check(const struct zka_wcg *g)
{
	const struct zka_wcg_hdr *h = &g->h;
	for (uint32_t i = 0; i < h->n_map; i++)
		if ((uint64_t)g->map[i].offset + g->map[i].size > h->n_inputs)
			return "an input map entry is outside the inputs";
	for (uint32_t i = 0; i < h->n_nodes; i++) {
		const struct zka_wcg_node *n = &g->nodes[i];
		int k = arity(n->op);
		if (k < 0)
			return "a node has an unknown operator";
		if (n->op == ZKA_WOP_INPUT && n->a >= h->n_inputs)
			return "an input node is out of range";
		if (n->op == ZKA_WOP_CONST && n->a >= h->n_consts)
			return "a constant node is out of range";
		if ((k >= 1 && n->a >= i) || (k >= 2 && n->b >= i) || (k >= 3 && n->c >= i))
			return "a node reads a later node";
	}
	for (uint32_t i = 0; i < h->n_consts; i++)
		if (!zka_lt_modulus(g->consts[i], g->curve->r, 4))
			return "a constant is not below the field's modulus";
	for (uint32_t i = 0; i < h->n_witness; i++)
		if (g->witness[i] >= h->n_nodes)
			return "a witness entry is out of range";
	for (uint32_t i = 0; i < h->n_asserts; i++) {
		const struct zka_wcg_assert *a = &g->asserts[i];
		if (a->node >= h->n_nodes || (a->guard != ZKA_WCG_NONE && a->guard >= h->n_nodes) ||
		    a->msg >= h->msg_bytes)
			return "an assert is out of range";
	}
	if (h->msg_bytes && g->msgs[h->msg_bytes - 1] != '\0')
		return "the message table is not terminated";
	return NULL;
}

/* Counting sort of (key, value) pairs into CSR form: start[0..n], list. 0 or -ENOMEM. */
static int csr(uint32_t n, const uint32_t *key, uint32_t cnt, uint32_t **start, uint32_t **list)
{
	*start = calloc((size_t)n + 2, sizeof **start);
	*list = malloc(((size_t)cnt + 1) * sizeof **list);
	if (!*start || !*list)
		return -ENOMEM;
	for (uint32_t k = 0; k < cnt; k++)
		(*start)[key[k] + 2]++;
	for (uint32_t i = 0; i < n; i++)
		(*start)[i + 2] += (*start)[i + 1];
	for (uint32_t k = 0; k < cnt; k++)
		(*list)[(*start)[key[k] + 1]++] = k;
	return 0;
}

/* Small values: which nodes hold a value v with |v| <= 2^62 (the residue v mod p), proved
 * from the graph alone by interval arithmetic, and which of them are computed as 64-bit integers
 * (small[i] = 1: every operand the integer form reads is itself small). A hash circuit's bits,
 * words and their sums are such values: the field product of two of them is an integer product.
 * An assert whose value's interval excludes 0 holds for every input and is dropped (circom's
 * x (x - 1) === 0 on a bit extracted with & 1). Fills small[], lo[], hi[] and known[]. */
static void narrow(const struct zka_wcg *g, uint8_t *small, uint8_t *known, int64_t *lo,
		   int64_t *hi)
{
	uint32_t nn = g->h.n_nodes;
	for (uint32_t i = 0; i < nn; i++) {
		const struct zka_wcg_node *n = &g->nodes[i];
		uint32_t a = n->a, b = n->b, c = n->c;
		__int128 l = 0, h = 0;
		int sm = 0, kn = 0;
		int sa = n->op != ZKA_WOP_INPUT && n->op != ZKA_WOP_CONST && small[a];
		int sb = arity(n->op) >= 2 && small[b];
		switch (n->op) {
		case ZKA_WOP_CONST:
			if (g->ismall[a])
				l = h = g->iconst[a], sm = 1;
			break;
		case ZKA_WOP_ADD:
			if (sa && sb)
				l = (__int128)lo[a] + lo[b], h = (__int128)hi[a] + hi[b], sm = 1;
			break;
		case ZKA_WOP_SUB:
			if (sa && sb)
				l = (__int128)lo[a] - hi[b], h = (__int128)hi[a] - lo[b], sm = 1;
			break;
		case ZKA_WOP_NEG:
			if (sa)
				l = -(__int128)hi[a], h = -(__int128)lo[a], sm = 1;
			break;
		case ZKA_WOP_MUL:
			if (sa && sb) {
				__int128 p[4] = {(__int128)lo[a] * lo[b], (__int128)lo[a] * hi[b],
						 (__int128)hi[a] * lo[b], (__int128)hi[a] * hi[b]};
				l = h = p[0];
				for (int k = 1; k < 4; k++) {
					l = p[k] < l ? p[k] : l;
					h = p[k] > h ? p[k] : h;
				}
				/* x (x - 1) of a bit x is 0 (intervals forget that both are x) */
				for (int k = 0; k < 2; k++) {
					uint32_t x = k ? b : a, y = k ? a : b;
					const struct zka_wcg_node *ny = &g->nodes[y];
					if (ny->op == ZKA_WOP_SUB && ny->a == x && lo[x] >= 0 &&
					    hi[x] <= 1 && small[ny->b] && lo[ny->b] == 1 &&
					    hi[ny->b] == 1)
						l = h = 0;
				}
				sm = 1;
			}
			break;
		case ZKA_WOP_SELECT:
			if (small[b] && small[c]) {
				l = lo[b] < lo[c] ? lo[b] : lo[c];
				h = hi[b] > hi[c] ? hi[b] : hi[c];
				sm = 1;
			}
			break;
		case ZKA_WOP_EQ:
		case ZKA_WOP_NEQ: {
			int t = n->op == ZKA_WOP_EQ;
			l = 0, h = 1, kn = 1, sm = sa && sb;
			if (known[a] && known[b] && lo[a] == hi[a] && lo[b] == hi[b] &&
			    lo[a] == lo[b])
				l = h = t; /* the same value: EQ 1, NEQ 0 */
			else if (known[a] && known[b] && (hi[a] < lo[b] || hi[b] < lo[a]))
				l = h = !t;
			break;
		}
		case ZKA_WOP_LT:
		case ZKA_WOP_GT:
		case ZKA_WOP_LEQ:
		case ZKA_WOP_GEQ:
			l = 0, h = 1, kn = 1, sm = sa && sb;
			break;
		case ZKA_WOP_LAND:
		case ZKA_WOP_LOR:
		case ZKA_WOP_LNOT:
			l = 0, h = 1, sm = 1; /* operands of any form: their truth */
			break;
		case ZKA_WOP_BAND:
			/* a non-negative small operand bounds the result, and only the other's low
			 * 64 bits matter */
			if ((sa && lo[a] >= 0) || (sb && lo[b] >= 0)) {
				int64_t m = INT64_MAX;
				if (sa && lo[a] >= 0)
					m = hi[a];
				if (sb && lo[b] >= 0 && hi[b] < m)
					m = hi[b];
				l = 0, h = m, sm = 1;
			}
			break;
		case ZKA_WOP_BOR:
		case ZKA_WOP_BXOR:
			if (sa && sb && lo[a] >= 0 && lo[b] >= 0) {
				int64_t m = hi[a] > hi[b] ? hi[a] : hi[b];
				__int128 p2 = 1;
				while (p2 <= m)
					p2 <<= 1;
				l = 0, h = p2 - 1, sm = 1;
			}
			break;
		case ZKA_WOP_SHR:
			if (sa && lo[a] >= 0 && g->nodes[b].op == ZKA_WOP_CONST && sb && lo[b] >= 0)
				l = 0, h = lo[b] >= 63 ? 0 : hi[a] >> lo[b], sm = 1;
			break;
		case ZKA_WOP_SHL:
			if (sa && lo[a] >= 0 && g->nodes[b].op == ZKA_WOP_CONST && sb &&
			    lo[b] >= 0 && lo[b] <= 62 && (hi[a] >> (62 - lo[b])) == 0)
				l = lo[a] << lo[b], h = hi[a] << lo[b], sm = 1;
			break;
		default:
			break;
		}
		if (sm && (l < -SMALL_BOUND || h > SMALL_BOUND))
			sm = 0, kn = 0;
		small[i] = (uint8_t)sm;
		known[i] = (uint8_t)(sm || kn);
		lo[i] = known[i] ? (int64_t)l : 0;
		hi[i] = known[i] ? (int64_t)h : 0;
	}
}

/* The operand nodes of node i's instruction into ops (LC_OPS at most); returns their count.
 * A fused multiply-add reads a, x and y of a + x y; an LC its products' operand pairs, then
 * its addends (montgomery_ops()). */
static int ins_ops(const struct zka_wcg *g, uint32_t i, const uint32_t *fuse, const uint8_t *fop,
		   const uint32_t *lcoff, const uint16_t *lcn, const uint32_t *pool, uint32_t *ops)
{
	const struct zka_wcg_node *n = &g->nodes[i];
	if (fuse[i]) {
		uint32_t x = fuse[i] - 1;
		ops[0] = x == n->a ? n->b : n->a;
		ops[1] = g->nodes[x].a;
		ops[2] = g->nodes[x].b;
		return 3;
	}
	if (fop[i] == ZKA_WOP_LC) {
		int k = 2 * (lcn[i] & 0xff) + (lcn[i] >> 8);
		memcpy(ops, pool + lcoff[i], (size_t)k * 4);
		return k;
	}
	int k = arity(n->op);
	ops[0] = n->a, ops[1] = n->b, ops[2] = n->c;
	return k < 0 ? 0 : k;
}

/* 1 when node x's instruction always leaves its value in Montgomery form (flag 1): the field
 * instructions; not an input (standard form), an integer operator (standard form) or a small
 * value (integer form). */
static int mont_out(const struct zka_wcg *g, const uint8_t *small, uint32_t x)
{
	switch (g->nodes[x].op) {
	case ZKA_WOP_INPUT:
	case ZKA_WOP_IDIV:
	case ZKA_WOP_MOD:
	case ZKA_WOP_SHL:
	case ZKA_WOP_SHR:
	case ZKA_WOP_BAND:
	case ZKA_WOP_BOR:
	case ZKA_WOP_BXOR:
	case ZKA_WOP_BNOT:
	case ZKA_WOP_LT:
	case ZKA_WOP_GT:
	case ZKA_WOP_LEQ:
	case ZKA_WOP_GEQ:
		return 0;
	default:
		return !small[x];
	}
}

/* Montgomery operands (see compile()'s note): picks, for the live field nodes whose operands
 * are all Montgomery-form values (mont_out), the instructions FMUL, FADD, FSUB, or LC for a
 * tree of field sums whose inner sums and products have no other reader (no other node, no
 * witness entry, no assert): sum of products x y and addends z, the products' 512-bit sums
 * reduced once. nread[x] counts x's readers (2 a witness entry or assert). Absorbed nodes are
 * marked in fused[]; each LC's operand nodes go to pool (lcoff[i], lcn[i] = products | addends
 * << 8); *extra counts the operand records the LCs add to the program. 0 or -ENOMEM. */
static int montgomery_ops(const struct zka_wcg *g, const uint8_t *live, const uint8_t *small,
			  const uint32_t *nread, uint8_t *fused, uint8_t *fop, uint32_t *lcoff,
			  uint16_t *lcn, uint32_t **pool, uint32_t *npool, size_t *extra)
{
	uint32_t nn = g->h.n_nodes, cap = 0;
	for (uint32_t i = nn; i-- > 0;) {
		const struct zka_wcg_node *n = &g->nodes[i];
		if (!live[i] || fused[i] || small[i])
			continue;
		int ma = mont_out(g, small, n->a),
		    mb = arity(n->op) >= 2 && mont_out(g, small, n->b);
		if ((n->op == ZKA_WOP_MUL || n->op == ZKA_WOP_SUB) && ma && mb)
			fop[i] = n->op == ZKA_WOP_MUL ? ZKA_WOP_FMUL : ZKA_WOP_FSUB;
		if (n->op != ZKA_WOP_ADD)
			continue;
		/* the tree under i: frontier nodes are expanded while the operands stay within
		 * LC_OPS (an absorbed sum adds one frontier node) */
		uint32_t fr[LC_OPS + 2], prod[LC_OPS], add[LC_OPS], absorbed[2 * LC_OPS];
		int nf = 2, np = 0, nad = 0, nab = 0, ok = 1;
		fr[0] = n->a, fr[1] = n->b;
		while (nf > 0 && ok) {
			uint32_t x = fr[--nf];
			const struct zka_wcg_node *nx = &g->nodes[x];
			int sole = live[x] && !fused[x] && !small[x] && nread[x] == 1;
			if (sole && nx->op == ZKA_WOP_ADD && nf + 2 + 2 * np + nad <= LC_OPS) {
				absorbed[nab++] = x;
				fr[nf++] = nx->a;
				fr[nf++] = nx->b;
			} else if (sole && nx->op == ZKA_WOP_MUL && (uint32_t)np < g->lc_kmax &&
				   mont_out(g, small, nx->a) && mont_out(g, small, nx->b) &&
				   nf + 2 * np + nad + 2 <= LC_OPS) {
				absorbed[nab++] = x;
				prod[2 * np] = nx->a;
				prod[2 * np + 1] = nx->b;
				np++;
			} else if (mont_out(g, small, x)) {
				add[nad++] = x;
			} else {
				ok = 0; /* an operand not in Montgomery form: the plain ADD */
			}
		}
		if (!ok)
			continue;
		if (np == 0 && nad == 2) {
			fop[i] = ZKA_WOP_FADD;
			continue;
		}
		fop[i] = ZKA_WOP_LC;
		for (int q = 0; q < nab; q++)
			fused[absorbed[q]] = 1;
		uint32_t k = 2 * (uint32_t)np + (uint32_t)nad;
		if (*npool + k > cap) {
			uint32_t nc = cap ? 2 * cap : 1024;
			while (nc < *npool + k)
				nc *= 2;
			uint32_t *p = realloc(*pool, (size_t)nc * 4);
			if (!p)
				return -ENOMEM;
			*pool = p, cap = nc;
		}
		lcoff[i] = *npool;
		lcn[i] = (uint16_t)(np | nad << 8);
		memcpy(*pool + *npool, prod, (size_t)np * 8);
		memcpy(*pool + *npool + 2 * np, add, (size_t)nad * 4);
		*npool += k;
		*extra += (k + 3) / 4;
	}
	return 0;
}

/* Builds g's program (see the note): the small values' integer instructions, the asserts that
 * can fail, the live nodes only, slots by liveness, witness and assert placement. */
static int compile(struct zka_wcg *g)
{
	uint32_t nn = g->h.n_nodes, nw = g->h.n_witness, na = 0;
	uint32_t *last = malloc((size_t)nn * 4), *slot = malloc((size_t)nn * 4),
		 *free_ = malloc((size_t)nn * 4), *akey = malloc(((size_t)g->h.n_asserts + 1) * 4);
	uint8_t *small = malloc(nn), *known = malloc(nn), *live = calloc(nn, 1),
		*fused = calloc(nn, 1);
	uint32_t *fuse = malloc((size_t)nn * 4), *ins_of = malloc((size_t)nn * 4);
	int64_t *lo = malloc((size_t)nn * 8), *hi = malloc((size_t)nn * 8);
	uint8_t *fop = calloc(nn, 1);
	uint32_t *lcoff = malloc((size_t)nn * 4), *pool = NULL, npool = 0;
	uint16_t *lcn = calloc(nn, 2);
	size_t extra = 0;
	int rc = -ENOMEM, plain = getenv("ZKA_WCG_PLAIN") != NULL;
	g->kas = malloc(((size_t)g->h.n_asserts + 1) * sizeof *g->kas);
	if (!last || !slot || !free_ || !akey || !small || !known || !live || !lo || !hi ||
	    !g->kas || !fused || !fuse || !ins_of || !fop || !lcoff || !lcn)
		goto out;
	if (plain) /* the field-only reference, for tests */
		memset(small, 0, nn), memset(known, 0, nn), memset(lo, 0, (size_t)nn * 8),
		    memset(hi, 0, (size_t)nn * 8);
	else
		narrow(g, small, known, lo, hi);
	/* the asserts that can fail; then the nodes a witness value or such an assert reads */
	for (uint32_t k = 0; k < g->h.n_asserts; k++) {
		const struct zka_wcg_assert *a = &g->asserts[k];
		if (known[a->node] && (lo[a->node] > 0 || hi[a->node] < 0))
			continue;
		g->kas[na++] = *a;
		live[a->node] = 1;
		if (a->guard != ZKA_WCG_NONE)
			live[a->guard] = 1;
	}
	g->na = na;
	for (uint32_t k = 0; k < nw; k++)
		live[g->witness[k]] = 1;
	for (uint32_t i = nn; i-- > 0;) {
		const struct zka_wcg_node *n = &g->nodes[i];
		int k = arity(n->op);
		if (!live[i])
			continue;
		if (k >= 1)
			live[n->a] = 1;
		if (k >= 2)
			live[n->b] = 1;
		if (k >= 3)
			live[n->c] = 1;
	}
	/* fused multiply-adds: a small a + x y whose product has no other reader is one
	 * instruction (fuse[i]: the product's node + 1; the product itself is not computed) */
	for (uint32_t i = 0; i < nn; i++)
		last[i] = 0; /* here: the number of readers */
	for (uint32_t k = 0; k < nw; k++)
		last[g->witness[k]] += 2;
	for (uint32_t k = 0; k < na; k++) {
		last[g->kas[k].node] += 2;
		if (g->kas[k].guard != ZKA_WCG_NONE)
			last[g->kas[k].guard] += 2;
	}
	for (uint32_t i = 0; i < nn; i++) {
		const struct zka_wcg_node *n = &g->nodes[i];
		int k = live[i] ? arity(n->op) : 0;
		if (k >= 1)
			last[n->a]++;
		if (k >= 2)
			last[n->b]++;
		if (k >= 3)
			last[n->c]++;
	}
	for (uint32_t i = 0; i < nn; i++) {
		const struct zka_wcg_node *n = &g->nodes[i];
		fuse[i] = 0;
		if (!live[i] || !small[i] || n->op != ZKA_WOP_ADD || n->a == n->b)
			continue;
		for (int q = 0; q < 2 && !fuse[i]; q++) {
			uint32_t x = q ? n->a : n->b;
			if (g->nodes[x].op == ZKA_WOP_MUL && small[x] && last[x] == 1 && !fuse[x] &&
			    !fused[x]) {
				fuse[i] = x + 1;
				fused[x] = 1;
			}
		}
	}
	if (!plain &&
	    montgomery_ops(g, live, small, last, fused, fop, lcoff, lcn, &pool, &npool, &extra))
		goto out;
	g->prog = malloc(((size_t)nn + extra + 1) * sizeof *g->prog);
	if (!g->prog)
		goto out;
	for (uint32_t i = 0; i < nn; i++)
		last[i] = i;
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t ops[LC_OPS];
		int k = live[i] && !fused[i] ? ins_ops(g, i, fuse, fop, lcoff, lcn, pool, ops) : 0;
		for (int q = 0; q < k; q++)
			last[ops[q]] = i;
	}
	for (uint32_t k = 0; k < na; k++) {
		const struct zka_wcg_assert *a = &g->kas[k];
		uint32_t at = a->guard != ZKA_WCG_NONE && a->guard > a->node ? a->guard : a->node;
		akey[k] = at;
		if (last[a->node] < at)
			last[a->node] = at;
		if (a->guard != ZKA_WCG_NONE && last[a->guard] < at)
			last[a->guard] = at;
	}
	if (csr(nn, g->witness, nw, &g->wemit, &g->wlist) || csr(nn, akey, na, &g->achk, &g->alist))
		goto out;
	/* csr stored the positions k; witness entry k is witness index k */
	g->aslot = malloc(((size_t)na + 1) * 2 * 4);
	if (!g->aslot)
		goto out;
	uint32_t nfree = 0, top = 0, j = 0;
	for (uint32_t i = 0; i < nn; i++) {
		const struct zka_wcg_node *n = &g->nodes[i];
		if (!live[i] || fused[i])
			continue;
		struct zka_wcg_ins *in = &g->prog[j];
		uint8_t op;
		ins_of[i] = j++;
		uint32_t ops[LC_OPS];
		int k = ins_ops(g, i, fuse, fop, lcoff, lcn, pool, ops);
		op = (uint8_t)(n->op | (small[i] ? ZKA_WOP_SMALL : 0));
		if (fuse[i])
			op = ZKA_WOP_SMALL | ZKA_WOP_MAC; /* a + x y */
		else if (fop[i])
			op = fop[i];
		if (op == ZKA_WOP_LC) { /* operands in the records after the head */
			uint32_t *o = (uint32_t *)&g->prog[j];
			memset(o, 0, ((size_t)k + 3) / 4 * sizeof *g->prog);
			for (int q = 0; q < k; q++)
				o[q] = slot[ops[q]];
			in->a = lcn[i] & 0xff; /* products (their operand pairs first) */
			in->b = lcn[i] >> 8;   /* addends */
			in->c = 0;
			j += ((uint32_t)k + 3) / 4;
		} else {
			in->a = n->op == ZKA_WOP_INPUT || n->op == ZKA_WOP_CONST ? n->a
				: k >= 1					 ? slot[ops[0]]
										 : 0;
			in->b = k >= 2 ? slot[ops[1]] : 0;
			in->c = k >= 3 ? slot[ops[2]] : 0;
		}
		/* operands read for the last time here give their slots back first (W2: the
		 * instruction reads them before it writes), each once */
		for (int q0 = 0; q0 < k; q0++) {
			uint32_t o = ops[q0];
			int checked =
			    0; /* an assert at i reads it after the instruction: keep it */
			for (uint32_t q = g->achk[i]; q < g->achk[i + 1]; q++)
				checked |=
				    g->kas[g->alist[q]].node == o || g->kas[g->alist[q]].guard == o;
			for (int q = 0; q < q0; q++)
				checked |= ops[q] == o;
			if (last[o] == i && !checked)
				free_[nfree++] = slot[o];
		}
		slot[i] = nfree ? free_[--nfree] : top++;
		if (slot[i] >=
		    ZKA_WCG_SLOTS_MAX) { /* 16 M values live at once: 1.2 GB of scratch */
			rc = -E2BIG;
			goto out;
		}
		in->od = op | slot[i] << 8;
		for (uint32_t q = g->achk[i]; q < g->achk[i + 1]; q++) {
			const struct zka_wcg_assert *a = &g->kas[g->alist[q]];
			g->aslot[2 * q] = slot[a->node];
			g->aslot[2 * q + 1] = a->guard == ZKA_WCG_NONE ? 0 : slot[a->guard];
		}
		/* values whose last reader is an assert check or a witness entry here */
		if (last[i] == i)
			free_[nfree++] = slot[i];
		for (uint32_t q = g->achk[i]; q < g->achk[i + 1]; q++) {
			const struct zka_wcg_assert *a = &g->kas[g->alist[q]];
			if (a->node != i && last[a->node] == i)
				free_[nfree++] = slot[a->node], last[a->node] = UINT32_MAX;
			if (a->guard != ZKA_WCG_NONE && a->guard != i && last[a->guard] == i)
				free_[nfree++] = slot[a->guard], last[a->guard] = UINT32_MAX;
		}
	}
	g->n_ins = j;
	g->n_slots = top ? top : 1;
	g->wnode = malloc(((size_t)nw + 1) * 4);
	g->anode = malloc(((size_t)na + 1) * 4);
	if (!g->wnode || !g->anode)
		goto out;
	/* the events by instruction (witness and assert nodes are live and never fused) */
	for (uint32_t k = 0; k < nw; k++)
		g->wnode[k] = ins_of[g->witness[g->wlist[k]]];
	g->wnode[nw] = UINT32_MAX; /* sentinels: the evaluator's next-event compares end here */
	for (uint32_t k = 0; k < na; k++)
		g->anode[k] = ins_of[akey[g->alist[k]]];
	g->anode[na] = UINT32_MAX;
	rc = 0;
out:
	free(last);
	free(slot);
	free(free_);
	free(akey);
	free(small);
	free(known);
	free(live);
	free(fused);
	free(fuse);
	free(ins_of);
	free(lo);
	free(hi);
	free(fop);
	free(lcoff);
	free(lcn);
	free(pool);
	return rc;
}

/* zka_wcg_load of the graph file open on fd (read from offset 0, left open), named path in
 * messages. */
static int load_fd(int fd, const char *path, zka_wcg **out, char *err, size_t errlen)
{
	struct zka_wcg *g = calloc(1, sizeof *g);
	size_t size = 0;
	const char *why = NULL;
	int rc;
	*out = NULL;
	if (!g) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = read_fd(fd, path, &g->buf, &size, err, errlen);
	if (rc)
		goto err;
	rc = -EINVAL;
	if (size < sizeof g->h + 8 || memcmp(g->buf, ZKA_WCG_MAGIC, 8)) {
		why = "not a zkarena witness graph";
		goto bad;
	}
	memcpy(&g->h, g->buf, sizeof g->h);
	if (g->h.version != 1) {
		why = "unsupported graph version (re-import the circuit)";
		goto bad;
	}
	uint64_t need =
	    sizeof g->h + (uint64_t)g->h.n_map * sizeof(struct zka_wcg_map) +
	    (uint64_t)g->h.n_consts * 32 + (uint64_t)g->h.n_nodes * sizeof(struct zka_wcg_node) +
	    (uint64_t)g->h.n_witness * 4 +
	    (uint64_t)g->h.n_asserts * sizeof(struct zka_wcg_assert) + g->h.msg_bytes + 8;
	if (need != size) {
		why = "truncated or of the wrong size";
		goto bad;
	}
	uint64_t sum;
	memcpy(&sum, g->buf + size - 8, 8);
	if (XXH64(g->buf, size - 8, 0) != sum) {
		why = "checksum mismatch (the file is damaged)";
		goto bad;
	}
	g->curve = g->h.curve == ZKA_BN254	 ? &zka_curve_bn254
		   : g->h.curve == ZKA_BLS12_381 ? &zka_curve_bls12_381
						 : NULL;
	if (!g->curve) {
		why = "unknown curve";
		goto bad;
	}
	if (g->h.n_witness == 0 || g->h.n_nodes == 0) {
		why = "the graph computes no witness";
		goto bad;
	}
	/* every array is 4-byte aligned at worst; copy the 8-byte ones to aligned memory */
	uint8_t *p = g->buf + sizeof g->h;
	g->map = (const struct zka_wcg_map *)p;
	p += (size_t)g->h.n_map * sizeof(struct zka_wcg_map);
	g->mconst = malloc(((size_t)g->h.n_consts + 1) * 32);
	if (!g->mconst) {
		rc = -ENOMEM;
		why = "out of memory";
		goto bad;
	}
	memcpy(g->mconst, p, (size_t)g->h.n_consts * 32);
	g->consts = (const uint64_t(*)[4])g->mconst;
	p += (size_t)g->h.n_consts * 32;
	g->nodes = (const struct zka_wcg_node *)p;
	p += (size_t)g->h.n_nodes * sizeof(struct zka_wcg_node);
	g->witness = (const uint32_t *)p;
	p += (size_t)g->h.n_witness * 4;
	g->asserts = (const struct zka_wcg_assert *)p;
	p += (size_t)g->h.n_asserts * sizeof(struct zka_wcg_assert);
	g->msgs = (const char *)p;
	why = check(g);
	if (why)
		goto bad;
	/* the constants as small signed integers where they are (before Montgomery form) */
	g->iconst = calloc((size_t)g->h.n_consts + 1, 8);
	g->ismall = calloc((size_t)g->h.n_consts + 1, 1);
	if (!g->iconst || !g->ismall) {
		rc = -ENOMEM;
		why = "out of memory";
		goto bad;
	}
	for (uint32_t i = 0; i < g->h.n_consts; i++) {
		const uint64_t *c = g->consts[i];
		uint64_t d[4];
		if (!(c[1] | c[2] | c[3]) && c[0] <= (uint64_t)SMALL_BOUND) {
			g->iconst[i] = (int64_t)c[0], g->ismall[i] = 1;
		} else {
			zka_wi_sub(d, g->curve->r, c); /* p - c: c is -d */
			if (!(d[1] | d[2] | d[3]) && d[0] <= (uint64_t)SMALL_BOUND)
				g->iconst[i] = -(int64_t)d[0], g->ismall[i] = 1;
		}
	}
	for (uint32_t i = 0; i < g->h.n_consts; i++)
		g->curve->fr_to_mont(g->mconst[i], g->mconst[i]);
	memcpy(g->wf.q, g->curve->r, 32);
	mpz_t t;
	mpz_init(t);
	mpz_import(t, 4, -1, 8, 0, 0, g->curve->r);
	g->wf.nbits = (int)mpz_sizeinbase(t, 2);
	mpz_sub_ui(t, t, 1);
	mpz_fdiv_q_2exp(t, t, 1);
	mpz_export(g->wf.half, NULL, -1, 8, 0, 0, t);
	/* LC: k products of canonical Montgomery forms sum below k p^2, which must stay below
	 * 2^512 (BN254: 27, BLS12-381: 4) */
	mpz_import(t, 4, -1, 8, 0, 0, g->curve->r);
	mpz_mul(t, t, t);
	mpz_t top;
	mpz_init_set_ui(top, 1);
	mpz_mul_2exp(top, top, 512);
	mpz_sub_ui(top, top, 1);
	mpz_fdiv_q(top, top, t);
	g->lc_kmax = mpz_cmp_ui(top, 8) > 0 ? 8 : (uint32_t)mpz_get_ui(top);
	mpz_clears(t, top, NULL);
	if ((rc = compile(g))) {
		why = rc == -E2BIG ? "the graph needs more than 2^24 values live at once"
				   : "out of memory";
		goto bad;
	}
	*out = g;
	return 0;
bad:
	snprintf(err, errlen, "%s: %s", path, why);
err:
	zka_wcg_free(g);
	return rc;
}

int zka_wcg_load(const char *path, zka_wcg **out, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	*out = NULL;
	if (fd < 0) {
		int rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	int rc = load_fd(fd, path, out, err, errlen);
	close(fd);
	return rc;
}

void zka_wcg_free(zka_wcg *g)
{
	if (!g)
		return;
	if (g->kept) { /* every array lies in the kept entry's mapping (load_kept) */
		munmap(g->kept, g->kept_len);
		free(g);
		return;
	}
	free(g->mconst);
	free(g->iconst);
	free(g->ismall);
	free(g->kas);
	free(g->buf);
	free(g->prog);
	free(g->wemit);
	free(g->wlist);
	free(g->achk);
	free(g->alist);
	free(g->aslot);
	free(g->wnode);
	free(g->anode);
	free(g);
}

/* ---- the compiled form kept between processes (zka_wcg_load_kept) ----
 *
 * An entry DIR/<graph name>-<XXH3 of the graph's real path>.wcgx holds what evaluation and
 * input.json parsing read: struct kept_hdr, the sections of kept_layout() (each 64-byte
 * aligned), then an XXH3-64 of everything before it. One entry per graph path: a re-imported
 * graph's entry replaces its predecessor's.
 *
 * Invariants
 *   K1. An entry serves a graph only when it records that very file (device, inode, size,
 *       mtime and ctime to the nanosecond, its XXH64 trailer and its header), this build's
 *       compiler (ZKA_WCG_CODE_ID: a hash of the evaluator's sources, witness/CMakeLists.txt)
 *       and the same ZKA_WCG_PLAIN setting; any difference compiles the graph again and
 *       replaces the entry.
 *   K2. An entry is trusted only as a regular file of this euid, not writable by group or
 *       others, reached without a link, in a directory the caller checked
 *       (zka_keys_cache_check: this user's, 0700); its size must be the one its counts give
 *       and its checksum must hold before any of it is used: a damaged or untrusted entry is
 *       refused (said in the zka_wcg_kept record) and rebuilt.
 *   K3. An entry appears only complete: written to an O_EXCL temporary (mode 0600) beside it,
 *       then renamed over the name. No fsync: a torn entry after a crash fails K2's checks.
 *   K4. A mapped entry is read-only (PROT_READ, MAP_PRIVATE) and unmapped by zka_wcg_free.
 *       Entries are only ever replaced by a rename, never rewritten or truncated in place, so a
 *       process's mapping keeps the inode it checked; only this user truncating an entry in
 *       place while another process evaluates from it could fault that process (SIGBUS).
 */
#define KEPT_MAGIC "ZKAWCGX1"
#ifndef ZKA_WCG_CODE_ID
#define ZKA_WCG_CODE_ID __DATE__ " " __TIME__ /* built outside CMake: each build its own */
#endif

struct kept_hdr {
	char magic[8];
	uint32_t version; /* 1 */
	uint32_t plain;	  /* compiled with ZKA_WCG_PLAIN */
	char code[48];	  /* ZKA_WCG_CODE_ID, NUL-padded */
	uint64_t dev, ino, size, mtime_s, mtime_ns, ctime_s, ctime_ns; /* the graph file's */
	uint64_t gsum;	       /* the graph's XXH64 trailer */
	struct zka_wcg_hdr gh; /* the graph's header */
	zka_wi_field wf;
	uint32_t n_ins, n_slots, na, lc_kmax;
	uint64_t fsize; /* the entry's size */
};

enum {
	K_MAP,
	K_MCONST,
	K_ICONST,
	K_PROG,
	K_KAS,
	K_MSGS,
	K_WLIST,
	K_WNODE,
	K_ALIST,
	K_ANODE,
	K_ASLOT,
	K_N
};

#define ALIGN64(x) (((uint64_t)(x) + 63) & ~(uint64_t)63)

/* The offsets and lengths of an entry's sections from its header's counts (32-bit counts:
 * no overflow); returns the entry's size. */
static uint64_t kept_layout(const struct kept_hdr *k, uint64_t off[K_N], uint64_t len[K_N])
{
	const struct zka_wcg_hdr *h = &k->gh;
	len[K_MAP] = (uint64_t)h->n_map * sizeof(struct zka_wcg_map);
	len[K_MCONST] = (uint64_t)h->n_consts * 32;
	len[K_ICONST] = (uint64_t)h->n_consts * 8;
	len[K_PROG] = (uint64_t)k->n_ins * sizeof(struct zka_wcg_ins);
	len[K_KAS] = (uint64_t)k->na * sizeof(struct zka_wcg_assert);
	len[K_MSGS] = h->msg_bytes;
	len[K_WLIST] = (uint64_t)h->n_witness * 4;
	len[K_WNODE] = ((uint64_t)h->n_witness + 1) * 4;
	len[K_ALIST] = (uint64_t)k->na * 4;
	len[K_ANODE] = ((uint64_t)k->na + 1) * 4;
	len[K_ASLOT] = (uint64_t)k->na * 8;
	uint64_t o = ALIGN64(sizeof *k);
	for (int i = 0; i < K_N; i++) {
		off[i] = o;
		o = ALIGN64(o + len[i]);
	}
	return o + 8;
}

/* k: the identity an entry must record for the graph file open on fd (K1). 0, or -EINVAL when
 * it is no regular file with a header and a trailer. */
static int kept_identity(int fd, struct kept_hdr *k)
{
	struct stat st;
	memset(k, 0, sizeof *k);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof k->gh + 8 ||
	    pread(fd, &k->gh, sizeof k->gh, 0) != (ssize_t)sizeof k->gh ||
	    pread(fd, &k->gsum, 8, st.st_size - 8) != 8)
		return -EINVAL;
	memcpy(k->magic, KEPT_MAGIC, 8);
	k->version = 1;
	k->plain = getenv("ZKA_WCG_PLAIN") != NULL;
	strncpy(k->code, ZKA_WCG_CODE_ID, sizeof k->code - 1);
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = (uint64_t)st.st_size;
	k->mtime_s = (uint64_t)st.st_mtim.tv_sec;
	k->mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
	k->ctime_s = (uint64_t)st.st_ctim.tv_sec;
	k->ctime_ns = (uint64_t)st.st_ctim.tv_nsec;
	return 0;
}

/* The entry of the graph at path in dir: DIR/<name>-<XXH3 of its real path>.wcgx. 0, or
 * -ENAMETOOLONG. */
static int kept_path(const char *dir, const char *path, char *out, size_t n)
{
	char real[PATH_MAX], name[64];
	const char *r = realpath(path, real) ? real : path, *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t l = strlen(b);
	if (l > 4 && !strcmp(b + l - 4, ".wcg"))
		l -= 4;
	snprintf(name, sizeof name, "%.*s", (int)(l > 60 ? 60 : l), b);
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			*c = '_';
	int w = snprintf(out, n, "%s/%s-%016llx.wcgx", dir, name,
			 (unsigned long long)XXH3_64bits(r, strlen(r)));
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

/* Writes len bytes of p (NULL: zeros) at *off of fd, hashing them into h; 0 or -errno. */
static int kept_put(int fd, XXH3_state_t *h, const void *p, uint64_t len, uint64_t *off)
{
	static const uint8_t zero[64];
	while (len) {
		size_t n = p ? (len > (1u << 30) ? 1u << 30 : (size_t)len)
			     : (len > sizeof zero ? sizeof zero : (size_t)len);
		const void *src = p ? p : zero;
		ssize_t w = pwrite(fd, src, n, (off_t)*off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		XXH3_64bits_update(h, src, (size_t)w);
		*off += (uint64_t)w;
		len -= (uint64_t)w;
		if (p)
			p = (const uint8_t *)p + w;
	}
	return 0;
}

/* Writes g's compiled form, for the graph whose identity k records, to entry (K3). 0, or
 * -errno with one line in err. */
static int kept_write(const struct zka_wcg *g, struct kept_hdr *k, const char *entry, char *err,
		      size_t errlen)
{
	const void *src[K_N] = {g->map,	  g->mconst, g->iconst, g->prog,  g->kas,  g->msgs,
				g->wlist, g->wnode,  g->alist,	g->anode, g->aslot};
	uint64_t off[K_N], len[K_N], at = 0, sum;
	char tmp[PATH_MAX + 64];
	uint64_t rnd = 0;
	k->wf = g->wf;
	k->n_ins = g->n_ins;
	k->n_slots = g->n_slots;
	k->na = g->na;
	k->lc_kmax = g->lc_kmax;
	k->fsize = kept_layout(k, off, len);
	if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) { /* then a clock's bits */
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		rnd = XXH3_64bits(&now, sizeof now);
	}
	snprintf(tmp, sizeof tmp, "%s.%d.%016llx.tmp", entry, (int)getpid(),
		 (unsigned long long)rnd);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), rc = 0;
	XXH3_state_t *h = XXH3_createState();
	if (fd < 0 || !h) {
		rc = fd < 0 ? -errno : -ENOMEM;
		snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(-rc));
		XXH3_freeState(h);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	XXH3_64bits_reset(h);
	rc = kept_put(fd, h, k, sizeof *k, &at);
	for (int i = 0; i < K_N && !rc; i++)
		if (!(rc = kept_put(fd, h, NULL, off[i] - at, &at)))
			rc = kept_put(fd, h, src[i], len[i], &at);
	if (!rc)
		rc = kept_put(fd, h, NULL, k->fsize - 8 - at, &at);
	sum = XXH3_64bits_digest(h);
	XXH3_freeState(h);
	if (!rc && pwrite(fd, &sum, 8, (off_t)at) != 8)
		rc = errno ? -errno : -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, entry))
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "%s: cannot write: %s", entry, strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

/* The graph from the entry open on fd when it serves the graph whose identity want records
 * (K1, K2); else NULL with *why the reason and *bad 1 when the entry is damaged or untrusted
 * (0: of another graph or build, or out of memory). */
static struct zka_wcg *kept_load(int fd, const struct kept_hdr *want, const char **why, int *bad)
{
	struct stat st;
	uint64_t off[K_N], len[K_N], sum;
	*bad = 1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return NULL;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		*why = st.st_uid != geteuid() ? "owned by another user: not trusted"
					      : "writable by group or others: not trusted";
		return NULL;
	}
	if ((uint64_t)st.st_size < ALIGN64(sizeof(struct kept_hdr)) + 8) {
		*why = "truncated";
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED) {
		*why = "cannot be mapped";
		*bad = 0;
		return NULL;
	}
	const struct kept_hdr *k = (const struct kept_hdr *)m;
	struct zka_wcg *g = NULL;
	if (memcmp(k->magic, KEPT_MAGIC, 8) || k->version != 1) {
		*why = "not a kept compiled graph of this version";
		goto no;
	}
	if (k->plain != want->plain || memcmp(k->code, want->code, sizeof k->code) ||
	    k->dev != want->dev || k->ino != want->ino || k->size != want->size ||
	    k->mtime_s != want->mtime_s || k->mtime_ns != want->mtime_ns ||
	    k->ctime_s != want->ctime_s || k->ctime_ns != want->ctime_ns || k->gsum != want->gsum ||
	    memcmp(&k->gh, &want->gh, sizeof k->gh)) {
		*why = "of another version of the graph or of zkarena";
		*bad = 0;
		goto no;
	}
	if (kept_layout(k, off, len) != size || k->fsize != size) {
		*why = "truncated or of the wrong size";
		goto no;
	}
	memcpy(&sum, m + size - 8, 8);
	if (XXH3_64bits(m, size - 8) != sum) {
		*why = "checksum mismatch (damaged)";
		goto no;
	}
	const struct zka_wcg_hdr *h = &k->gh;
	const uint32_t *wnode = (const uint32_t *)(m + off[K_WNODE]),
		       *anode = (const uint32_t *)(m + off[K_ANODE]);
	if (!k->n_ins || !k->n_slots || k->n_slots > ZKA_WCG_SLOTS_MAX || k->na > h->n_asserts ||
	    !h->n_witness || wnode[h->n_witness] != UINT32_MAX || anode[k->na] != UINT32_MAX ||
	    (h->curve != ZKA_BN254 && h->curve != ZKA_BLS12_381)) {
		*why = "inconsistent (damaged)";
		goto no;
	}
	if (!(g = calloc(1, sizeof *g))) {
		*why = "out of memory";
		*bad = 0;
		goto no;
	}
	g->h = *h;
	g->curve = h->curve == ZKA_BN254 ? &zka_curve_bn254 : &zka_curve_bls12_381;
	g->wf = k->wf;
	g->lc_kmax = k->lc_kmax;
	g->n_ins = k->n_ins;
	g->n_slots = k->n_slots;
	g->na = k->na;
	g->map = (const struct zka_wcg_map *)(m + off[K_MAP]);
	g->mconst = (uint64_t(*)[4])(m + off[K_MCONST]); /* read only (K4) */
	g->iconst = (int64_t *)(m + off[K_ICONST]);
	g->prog = (struct zka_wcg_ins *)(m + off[K_PROG]);
	g->kas = (struct zka_wcg_assert *)(m + off[K_KAS]);
	g->msgs = (const char *)(m + off[K_MSGS]);
	g->wlist = (uint32_t *)(m + off[K_WLIST]);
	g->wnode = (uint32_t *)(m + off[K_WNODE]);
	g->alist = (uint32_t *)(m + off[K_ALIST]);
	g->anode = (uint32_t *)(m + off[K_ANODE]);
	g->aslot = (uint32_t *)(m + off[K_ASLOT]);
	g->kept = m;
	g->kept_len = size;
	return g;
no:
	munmap(m, size);
	return NULL;
}

int zka_wcg_load_kept(const char *path, const char *dir, zka_wcg **out, struct zka_wcg_kept *info,
		      char *err, size_t errlen)
{
	struct kept_hdr want;
	memset(info, 0, sizeof *info);
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), rc;
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	int use = dir && dir[0] && !kept_identity(fd, &want) &&
		  !kept_path(dir, path, info->entry, sizeof info->entry);
	if (use) {
		int kfd = open(info->entry, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		const char *why = NULL;
		int bad = 0;
		if (kfd >= 0) {
			*out = kept_load(kfd, &want, &why, &bad);
			close(kfd);
			if (*out) {
				info->hit = 1;
				close(fd);
				return 0;
			}
		} else if (errno != ENOENT) {
			why = errno == ELOOP ? "a symbolic link: not trusted" : strerror(errno);
			bad = 1;
		}
		if (why)
			snprintf(info->why, sizeof info->why, "%s", why);
		info->refused = bad;
	}
	rc = load_fd(fd, path, out, err, errlen);
	close(fd);
	if (rc || !use)
		return rc;
	/* K1: keep it only when the bytes compiled are the ones whose identity was taken */
	const struct zka_wcg *g = *out;
	size_t gsize = (size_t)want.size;
	if (memcmp(&g->h, &want.gh, sizeof want.gh) || memcmp(g->buf + gsize - 8, &want.gsum, 8)) {
		snprintf(info->werr, sizeof info->werr, "%s changed while read: not kept", path);
		return 0;
	}
	if (!kept_write(g, &want, info->entry, info->werr, sizeof info->werr))
		info->written = 1;
	return 0;
}

void zka_wcg_path(const char *key, char *out, size_t n)
{
	size_t l = strlen(key);
	if (l > 4 && !strcmp(key + l - 4, ".wcg"))
		snprintf(out, n, "%s", key);
	else
		snprintf(out, n, "%s.wcg", key);
}

const zka_curve *zka_wcg_curve(const zka_wcg *g)
{
	return g->curve;
}
uint32_t zka_wcg_n_witness(const zka_wcg *g)
{
	return g->h.n_witness;
}
uint32_t zka_wcg_n_inputs(const zka_wcg *g)
{
	return g->h.n_inputs;
}
void zka_wcg_op_counts(const zka_wcg *g, uint32_t counts[256])
{
	memset(counts, 0, 256 * sizeof *counts);
	for (uint32_t j = 0; j < g->n_ins; j++) {
		uint8_t op = (uint8_t)(g->prog[j].od & 0xff);
		counts[op]++;
		if (op == ZKA_WOP_LC)
			j += (2 * g->prog[j].a + g->prog[j].b + 3) / 4;
	}
}
size_t zka_wcg_scratch_bytes(const zka_wcg *g)
{
	return (size_t)g->n_slots * (32 + 32 + 8 + 1); /* Montgomery, standard, integer, flags */
}

/* ---- input.json ---- */

/* Appends the scalars of v (nested arrays flattened in order) to list; returns -1 when the
 * nesting is absurd. */
static int flatten(json_t *v, json_t *list, int depth)
{
	if (depth > 64)
		return -1;
	if (!json_is_array(v))
		return json_array_append(list, v);
	for (size_t i = 0; i < json_array_size(v); i++)
		if (flatten(json_array_get(v, i), list, depth + 1))
			return -1;
	return 0;
}

/* BigInt(s) of JavaScript for a string: trimmed; empty is 0; decimal with an optional sign, or
 * 0x / 0o / 0b digits without one. Sets t; returns 0, or -1 when s is not such a number. */
static int parse_bigint_str(mpz_t t, const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
		s++;
	size_t n = strlen(s);
	while (n && strchr(" \t\n\r\f\v", s[n - 1]))
		n--;
	char *c = strndup(s, n);
	int rc = -1, base = 10, neg = 0;
	const char *d = c;
	if (!c)
		return -1;
	if (n == 0) {
		mpz_set_ui(t, 0);
		rc = 0;
		goto out;
	}
	if (n > 2 && d[0] == '0' && strchr("xXoObB", d[1])) {
		base = d[1] == 'x' || d[1] == 'X' ? 16 : d[1] == 'o' || d[1] == 'O' ? 8 : 2;
		d += 2;
	} else if (*d == '-' || *d == '+') {
		neg = *d == '-';
		d++;
	}
	if (!*d || n > 4096)
		goto out;
	for (const char *q = d; *q; q++) {
		int v = *q >= '0' && *q <= '9'	 ? *q - '0'
			: *q >= 'a' && *q <= 'f' ? *q - 'a' + 10
			: *q >= 'A' && *q <= 'F' ? *q - 'A' + 10
						 : 99;
		if (v >= base)
			goto out;
	}
	if (mpz_set_str(t, d, base))
		goto out;
	if (neg)
		mpz_neg(t, t);
	rc = 0;
out:
	free(c);
	return rc;
}

/* One scalar of input.json into out (standard form mod r): a string, a JSON number that is an
 * integer (read as JavaScript reads it: the nearest double), or a boolean. Returns NULL or the
 * problem. */
static const char *scalar(const zka_wcg *g, json_t *v, uint64_t *out)
{
	mpz_t t, r;
	const char *why = NULL;
	mpz_inits(t, r, NULL);
	if (json_is_string(v)) {
		if (parse_bigint_str(t, json_string_value(v)))
			why = "is not an integer (decimal, or 0x/0o/0b digits)";
	} else if (json_is_integer(v) || json_is_real(v)) {
		double d = json_number_value(v);
		if (!isfinite(d) || d != floor(d))
			why = "is not an integer";
		else
			mpz_set_d(t, d);
	} else if (json_is_boolean(v)) {
		mpz_set_ui(t, json_is_true(v));
	} else {
		why = json_is_null(v) ? "is null" : "is not a number";
	}
	if (!why) {
		mpz_import(r, 4, -1, 8, 0, 0, g->curve->r);
		mpz_mod(t, t, r);
		memset(out, 0, 32);
		mpz_export(out, NULL, -1, 8, 0, 0, t);
	}
	mpz_clears(t, r, NULL);
	return why;
}

int zka_wcg_inputs_json(const zka_wcg *g, const char *path, uint64_t (*in)[4], char *err,
			size_t errlen)
{
	return zka_wcg_inputs_json_fd(g, -1, path, in, err, errlen);
}

int zka_wcg_inputs_json_fd(const zka_wcg *g, int fd, const char *path, uint64_t (*in)[4], char *err,
			   size_t errlen)
{
	json_error_t je;
	uint8_t *buf = NULL;
	size_t size = 0;
	int rc = fd < 0 ? read_all(path, &buf, &size, err, errlen)
			: read_fd(fd, path, &buf, &size, err, errlen);
	if (rc)
		return rc;
	json_t *root = json_loadb((const char *)buf, size, JSON_DECODE_INT_AS_REAL, &je);
	free(buf);
	uint8_t *set = calloc(g->h.n_inputs + 1, 1);
	json_t *list = json_array();
	const char *key;
	json_t *val;
	rc = -EINVAL;
	if (!set || !list) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (!root) {
		snprintf(err, errlen, "%s: line %d: %s", path, je.line, je.text);
		goto out;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: not a JSON object of input signals", path);
		goto out;
	}
	json_object_foreach(root, key, val)
	{
		uint64_t h = zka_wcg_fnv1a(key, strlen(key));
		const struct zka_wcg_map *m = NULL;
		for (uint32_t i = 0; i < g->h.n_map && !m; i++)
			if (g->map[i].hash == h)
				m = &g->map[i];
		if (!m) {
			snprintf(err, errlen, "%s: signal '%s' is not an input of the circuit",
				 path, key);
			goto out;
		}
		json_array_clear(list);
		if (flatten(val, list, 0)) {
			snprintf(err, errlen, "%s: signal '%s' is nested too deeply", path, key);
			goto out;
		}
		if (json_array_size(list) != m->size) {
			snprintf(err, errlen,
				 "%s: signal '%s' has %zu value%s, the circuit expects %u", path,
				 key, json_array_size(list), json_array_size(list) == 1 ? "" : "s",
				 m->size);
			goto out;
		}
		for (uint32_t k = 0; k < m->size; k++) {
			const char *why = scalar(g, json_array_get(list, k), in[m->offset + k]);
			if (why) {
				if (m->size == 1)
					snprintf(err, errlen, "%s: signal '%s' %s", path, key, why);
				else
					snprintf(err, errlen,
						 "%s: signal '%s' value %u (flattened) %s", path,
						 key, k, why);
				goto out;
			}
			set[m->offset + k] = 1;
		}
	}
	uint32_t missing = 0;
	for (uint32_t i = 0; i < g->h.n_inputs; i++)
		missing += !set[i];
	if (missing) {
		snprintf(err, errlen, "%s: %u of the circuit's %u input values are missing", path,
			 missing, g->h.n_inputs);
		goto out;
	}
	rc = 0;
out:
	json_decref(list);
	json_decref(root);
	free(set);
	return rc;
}

int zka_wcg_eval(const zka_wcg *g, const uint64_t (*in)[4], uint64_t (*w)[4], void *scratch,
		 char *err, size_t errlen)
{
	void *s = scratch ? scratch : malloc(zka_wcg_scratch_bytes(g));
	if (!s) {
		snprintf(err, errlen, "out of memory for %u graph values", g->n_slots);
		return -ENOMEM;
	}
	int rc = g->curve->id == ZKA_BN254 ? bn254_fr_wcg_eval(g, in, w, s, err, errlen)
					   : bls12_381_fr_wcg_eval(g, in, w, s, err, errlen);
	if (!scratch)
		free(s);
	return rc;
}

int zka_wcg_check_input(const char *graph, const char *input, const zka_curve *curve,
			uint32_t n_vars, char *err, size_t errlen)
{
	struct zka_wcg g;
	int fd = open(graph, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), rc = -EINVAL;
	memset(&g, 0, sizeof g);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			snprintf(err, errlen,
				 "%s: no witness graph for this key (import it with --c)", graph);
		else
			snprintf(err, errlen, "%s: %s", graph, strerror(errno));
		return rc;
	}
	struct stat st;
	uint8_t *map = NULL;
	uint64_t *in = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, &g.h, sizeof g.h, 0) != (ssize_t)sizeof g.h ||
	    memcmp(g.h.magic, ZKA_WCG_MAGIC, 8) || g.h.version != 1 ||
	    (uint64_t)g.h.n_map * sizeof(struct zka_wcg_map) > (uint64_t)st.st_size) {
		snprintf(err, errlen, "%s: not a zkarena witness graph of this version", graph);
		goto out;
	}
	g.curve = g.h.curve == ZKA_BN254       ? &zka_curve_bn254
		  : g.h.curve == ZKA_BLS12_381 ? &zka_curve_bls12_381
					       : NULL;
	if (g.curve != curve || g.h.n_witness != n_vars) {
		snprintf(err, errlen,
			 "%s: the graph computes %u values of %s, the key expects %u of %s", graph,
			 g.h.n_witness, g.curve ? g.curve->pretty : "an unknown curve", n_vars,
			 curve->pretty);
		goto out;
	}
	size_t mb = (size_t)g.h.n_map * sizeof(struct zka_wcg_map);
	map = malloc(mb + 1);
	in = calloc((size_t)g.h.n_inputs + 1, 32);
	if (!map || !in) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", graph);
		goto out;
	}
	if (pread(fd, map, mb, sizeof g.h) != (ssize_t)mb) {
		snprintf(err, errlen, "%s: truncated", graph);
		goto out;
	}
	g.map = (const struct zka_wcg_map *)map;
	for (uint32_t i = 0; i < g.h.n_map; i++)
		if ((uint64_t)g.map[i].offset + g.map[i].size > g.h.n_inputs) {
			snprintf(err, errlen, "%s: an input map entry is outside the inputs",
				 graph);
			goto out;
		}
	rc = zka_wcg_inputs_json(&g, input, (uint64_t(*)[4])in, err, errlen);
out:
	free(map);
	free(in);
	close(fd);
	return rc;
}

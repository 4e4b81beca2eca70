/* trace.cpp - records a circom circuit's witness calculation as a graph (witness/zka_wcg.h).
 *
 * Built by `zkarena import --c DIR` (witness/wcimport.c) from circom's generated circuit
 * source, circom's calcwit.cpp, this file and fr.hpp beside it; run once; then deleted.
 *
 * Objects
 *   element  circom's FrElement. A constant keeps circom's encoding (short, long, Montgomery);
 *            a traced element has type ZKA_FR_TRACED and its node id in shortVal.
 *   node     an entry of the graph under construction; identical (op, operands) share one id
 *            (hash-consing), constants are folded at once with circom's semantics
 *            (witness/wcg_int.h for the integer operators, GMP for the rest).
 *   frame    one speculative if/else (struct zka_spec): its condition node, the pass being
 *            run, and an undo log of the elements the passes wrote (address, value before).
 *
 * Speculation (why a traced branch still gives one straight-line graph)
 *   The rewritten circuit source turns `if (Fr_isTrue(&c)) {A} else {B}` into ZKA_IF(&c).
 *   A constant c runs its branch once, as circom would. A traced c runs A, snapshots what A
 *   wrote and restores the old values, runs B, then writes select(c, A's value, B's value)
 *   to every element either pass wrote. Writes into stack frames below the frame's own (a
 *   function called inside the branch, whose locals are dead when it returns) are not
 *   logged. A circom assert inside a pass becomes a guarded assert (the conjunction of the
 *   enclosing conditions). What cannot be made straight-line is refused with the circuit's
 *   line: a `while` or an array index on a traced value, a `return` inside a traced branch.
 *
 * Invariants
 *   T1. A node's operands have smaller ids (nodes are appended after their operands exist).
 *   T2. Every write to an element in a frame goes through before_write(), which logs the
 *       first value of each address per frame, so a pass can be undone exactly.
 *   T3. The output holds only nodes reachable from a witness value or an assert.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <xxhash.h>

#include "calcwit.hpp"
#include "circom.hpp"
extern "C" {
#include "wcg_int.h"
#include "zka_wcg.h"
}

#ifndef ZKA_WC_CURVE
#error "define ZKA_WC_CURVE (0 BN254, 1 BLS12-381)"
#endif

/* ---- the field ---- */
static mpz_t Q, RINV;
static zka_wi_field WF;

static void field_init()
{
	const char *r = ZKA_WC_CURVE == 0
			    ? "21888242871839275222246405745257275088548364400416034343698204186575808495617"
			    : "52435875175126190479447740508185965837690552500527637822603658699938581184513";
	mpz_init_set_str(Q, r, 10);
	mpz_init(RINV);
	mpz_t R;
	mpz_init(R);
	mpz_setbit(R, 256);
	mpz_invert(RINV, R, Q);
	mpz_clear(R);
	memset(&WF, 0, sizeof WF);
	mpz_export(WF.q, NULL, -1, 8, 0, 0, Q);
	mpz_t h;
	mpz_init(h);
	mpz_sub_ui(h, Q, 1);
	mpz_fdiv_q_2exp(h, h, 1);
	mpz_export(WF.half, NULL, -1, 8, 0, 0, h);
	mpz_clear(h);
	WF.nbits = (int)mpz_sizeinbase(Q, 2);
}

typedef std::array<uint64_t, 4> limbs;

static void die(const char *fmt, const char *a = "", long b = 0)
{
	fprintf(stderr, "zkarena-trace: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n");
	exit(3);
}

/* ---- the graph under construction ---- */
struct node {
	uint8_t op;
	uint32_t a, b, c;
};
struct node_key_hash {
	size_t operator()(const std::array<uint32_t, 4> &k) const
	{
		return XXH64(k.data(), sizeof k, 0);
	}
};
struct limbs_hash {
	size_t operator()(const limbs &k) const { return XXH64(k.data(), sizeof k, 0); }
};
static std::vector<node> nodes;
static std::unordered_map<std::array<uint32_t, 4>, uint32_t, node_key_hash> cse;
static std::vector<limbs> consts;
static std::unordered_map<limbs, uint32_t, limbs_hash> const_ids;
static std::vector<zka_wcg_assert> asserts;
static std::string msgs;
static std::recursive_mutex mu;

/* The id of node (op, a, b, c), appended when new. */
static uint32_t mk(uint8_t op, uint32_t a, uint32_t b = 0, uint32_t c = 0)
{
	std::array<uint32_t, 4> k = {op, a, b, c};
	auto it = cse.find(k);
	if (it != cse.end())
		return it->second;
	if (nodes.size() >= 0x7fffffffu)
		die("the circuit needs more than 2^31 graph nodes%s", "");
	uint32_t id = (uint32_t)nodes.size();
	nodes.push_back({op, a, b, c});
	cse.emplace(k, id);
	return id;
}

static uint32_t const_node(const limbs &v)
{
	auto it = const_ids.find(v);
	uint32_t ci;
	if (it == const_ids.end()) {
		ci = (uint32_t)consts.size();
		consts.push_back(v);
		const_ids.emplace(v, ci);
	} else {
		ci = it->second;
	}
	return mk(ZKA_WOP_CONST, ci);
}

/* ---- elements ---- */
static inline bool traced(const FrElement *e) { return e->type == ZKA_FR_TRACED; }

/* The standard-form value of constant e. */
static limbs value_of(const FrElement *e)
{
	mpz_t t;
	mpz_init(t);
	if (e->type & Fr_MONTGOMERY) {
		mpz_import(t, 4, -1, 8, 0, 0, e->longVal);
		mpz_mul(t, t, RINV);
	} else if (e->type & Fr_LONG) {
		mpz_import(t, 4, -1, 8, 0, 0, e->longVal);
	} else {
		mpz_set_si(t, e->shortVal);
	}
	mpz_mod(t, t, Q);
	limbs v = {0, 0, 0, 0};
	mpz_export(v.data(), NULL, -1, 8, 0, 0, t);
	mpz_clear(t);
	return v;
}

static uint32_t node_of(const FrElement *e)
{
	return traced(e) ? (uint32_t)e->shortVal : const_node(value_of(e));
}

/* ---- speculation frames ---- */
struct frame {
	uint32_t cond;
	int pass; /* 0: the true branch, 1: the false branch */
	char *stack_floor;
	std::vector<std::pair<FrElement *, FrElement>> undo; /* first write per address */
	std::unordered_map<FrElement *, size_t> seen;
	std::vector<FrElement> after_true;
	size_t n_true; /* undo entries logged by the true pass */
};
static thread_local std::vector<frame *> frames;
static thread_local char *stack_lo;

static void before_write(FrElement *r)
{
	if (frames.empty())
		return;
	frame *f = frames.back();
	char *p = (char *)r;
	if (p < f->stack_floor && p >= stack_lo)
		return; /* a callee's local: dead once the branch's calls return */
	if (f->seen.count(r))
		return;
	f->seen.emplace(r, f->undo.size());
	f->undo.push_back({r, *r});
}

static void put_const(PFrElement r, const limbs &v)
{
	before_write(r);
	r->shortVal = 0;
	r->type = Fr_LONG;
	memcpy(r->longVal, v.data(), sizeof r->longVal);
}

static void put_node(PFrElement r, uint32_t id)
{
	if (nodes[id].op == ZKA_WOP_CONST) {
		put_const(r, consts[nodes[id].a]);
		return;
	}
	before_write(r);
	r->shortVal = (int32_t)id;
	r->type = ZKA_FR_TRACED;
	memset(r->longVal, 0, sizeof r->longVal);
}

/* ---- constant folding ---- */
static void to_mpz(mpz_t t, const limbs &v) { mpz_import(t, 4, -1, 8, 0, 0, v.data()); }
static limbs from_mpz(mpz_t t)
{
	mpz_mod(t, t, Q);
	limbs v = {0, 0, 0, 0};
	mpz_export(v.data(), NULL, -1, 8, 0, 0, t);
	return v;
}
static bool is_zero(const limbs &v) { return !(v[0] | v[1] | v[2] | v[3]); }
static limbs small(uint64_t x) { return {x, 0, 0, 0}; }

/* op applied to constants (c only for select). */
static limbs fold(int op, const limbs &a, const limbs &b, const limbs &c)
{
	limbs r = {0, 0, 0, 0};
	mpz_t x, y, z;
	mpz_inits(x, y, z, NULL);
	to_mpz(x, a);
	to_mpz(y, b);
	switch (op) {
	case ZKA_WOP_ADD: mpz_add(z, x, y); r = from_mpz(z); break;
	case ZKA_WOP_SUB: mpz_sub(z, x, y); r = from_mpz(z); break;
	case ZKA_WOP_MUL: mpz_mul(z, x, y); r = from_mpz(z); break;
	case ZKA_WOP_NEG: mpz_neg(z, x); r = from_mpz(z); break;
	case ZKA_WOP_DIV:
		if (mpz_sgn(y) && mpz_invert(z, y, Q)) {
			mpz_mul(z, z, x);
			r = from_mpz(z);
		}
		break;
	case ZKA_WOP_POW: mpz_powm(z, x, y, Q); r = from_mpz(z); break;
	case ZKA_WOP_IDIV:
		if (mpz_sgn(y)) {
			mpz_fdiv_q(z, x, y);
			r = from_mpz(z);
		}
		break;
	case ZKA_WOP_MOD:
		if (mpz_sgn(y)) {
			mpz_fdiv_r(z, x, y);
			r = from_mpz(z);
		}
		break;
	case ZKA_WOP_SHL: zka_wi_shift(r.data(), a.data(), b.data(), 1, &WF); break;
	case ZKA_WOP_SHR: zka_wi_shift(r.data(), a.data(), b.data(), 0, &WF); break;
	case ZKA_WOP_BAND: zka_wi_bit(r.data(), a.data(), b.data(), 0, &WF); break;
	case ZKA_WOP_BOR: zka_wi_bit(r.data(), a.data(), b.data(), 1, &WF); break;
	case ZKA_WOP_BXOR: zka_wi_bit(r.data(), a.data(), b.data(), 2, &WF); break;
	case ZKA_WOP_BNOT: zka_wi_bit(r.data(), a.data(), a.data(), 3, &WF); break;
	case ZKA_WOP_EQ: r = small(a == b); break;
	case ZKA_WOP_NEQ: r = small(a != b); break;
	case ZKA_WOP_LT: r = small(zka_wi_scmp(a.data(), b.data(), &WF) < 0); break;
	case ZKA_WOP_GT: r = small(zka_wi_scmp(a.data(), b.data(), &WF) > 0); break;
	case ZKA_WOP_LEQ: r = small(zka_wi_scmp(a.data(), b.data(), &WF) <= 0); break;
	case ZKA_WOP_GEQ: r = small(zka_wi_scmp(a.data(), b.data(), &WF) >= 0); break;
	case ZKA_WOP_LAND: r = small(!is_zero(a) && !is_zero(b)); break;
	case ZKA_WOP_LOR: r = small(!is_zero(a) || !is_zero(b)); break;
	case ZKA_WOP_LNOT: r = small(is_zero(a)); break;
	case ZKA_WOP_SELECT: r = !is_zero(a) ? b : c; break;
	default: die("internal: fold of op %s%ld", "", op);
	}
	mpz_clears(x, y, z, NULL);
	return r;
}

/* The node for op on node ids, folded when every operand is constant and simplified when
 * one operand is the identity (x+0, x-0, x*1) or absorbing (x*0). */
static uint32_t apply(int op, uint32_t a, uint32_t b = 0, uint32_t c = 0)
{
	int n = op == ZKA_WOP_NEG || op == ZKA_WOP_BNOT || op == ZKA_WOP_LNOT ? 1
		: op == ZKA_WOP_SELECT					     ? 3
									     : 2;
	bool ca = nodes[a].op == ZKA_WOP_CONST, cb = n < 2 || nodes[b].op == ZKA_WOP_CONST,
	     cc = n < 3 || nodes[c].op == ZKA_WOP_CONST;
	limbs z = {0, 0, 0, 0};
	const limbs &va = ca ? consts[nodes[a].a] : z;
	const limbs &vb = n >= 2 && cb ? consts[nodes[b].a] : z;
	if (ca && cb && cc)
		return const_node(fold(op, va, vb, n == 3 ? consts[nodes[c].a] : z));
	if (op == ZKA_WOP_SELECT) {
		if (ca)
			return is_zero(va) ? c : b;
		if (b == c)
			return b;
	}
	if (op == ZKA_WOP_ADD && ca && is_zero(va))
		return b;
	if ((op == ZKA_WOP_ADD || op == ZKA_WOP_SUB) && cb && is_zero(vb))
		return a;
	if (op == ZKA_WOP_MUL) {
		if ((ca && is_zero(va)) || (cb && is_zero(vb)))
			return const_node(z);
		if (ca && va == small(1))
			return b;
		if (cb && vb == small(1))
			return a;
	}
	if (op == ZKA_WOP_ADD || op == ZKA_WOP_MUL || op == ZKA_WOP_EQ || op == ZKA_WOP_NEQ ||
	    op == ZKA_WOP_LAND || op == ZKA_WOP_LOR || op == ZKA_WOP_BAND || op == ZKA_WOP_BOR ||
	    op == ZKA_WOP_BXOR)
		if (a > b)
			std::swap(a, b); /* commutative: one node for both orders */
	return mk((uint8_t)op, a, n >= 2 ? b : 0, n >= 3 ? c : 0);
}

static void op2(int op, PFrElement r, PFrElement a, PFrElement b)
{
	std::lock_guard<std::recursive_mutex> g(mu);
	uint32_t na = node_of(a), nb = node_of(b);
	put_node(r, apply(op, na, nb));
}

static void op1(int op, PFrElement r, PFrElement a)
{
	std::lock_guard<std::recursive_mutex> g(mu);
	put_node(r, apply(op, node_of(a)));
}

/* ---- traced control flow ---- */
static bool path_traced()
{
	for (frame *f : frames)
		if (f->cond != ZKA_WCG_NONE)
			return true;
	return false;
}

/* The condition under which the current pass is the path taken (the conjunction of the
 * enclosing frames' outcomes), or ZKA_WCG_NONE on the unconditional path. */
static uint32_t path_guard()
{
	uint32_t guard = ZKA_WCG_NONE;
	if (path_traced()) {
		for (frame *f : frames) {
			uint32_t t = f->pass == 0 ? f->cond : apply(ZKA_WOP_LNOT, f->cond);
			guard = guard == ZKA_WCG_NONE ? t : apply(ZKA_WOP_LAND, guard, t);
		}
	}
	return guard;
}

int zka_div_line;

/* Records "c is not zero" as a guarded assert (line 0: a divisor) on the path taken, with msg
 * for the evaluator; a constant c that holds returns at once, and one that fails on the
 * unconditional path ends the trace (exit 3) with "the circuit <always> for every input". */
static void guarded_check(PFrElement c, const std::string &msg, int line, const std::string &always)
{
	std::lock_guard<std::recursive_mutex> g(mu);
	uint32_t guard = path_guard();
	if (!traced(c)) {
		if (!is_zero(value_of(c)))
			return;
		if (guard == ZKA_WCG_NONE) {
			fprintf(stderr, "zkarena-trace: the circuit %s for every input\n",
				always.c_str());
			exit(3);
		}
	}
	zka_wcg_assert a = {node_of(c), guard, (uint32_t)msgs.size(), (uint32_t)line};
	msgs += msg;
	msgs.push_back('\0');
	asserts.push_back(a);
}

/* An integer division (\ or %) by zero stops circom's wasm calculator (snarkjs: "divide by
 * zero"), so on the path taken it refuses the witness: a guarded check with line 0 (the
 * evaluator's "integer division ... by zero"); a divisor zero for every input is refused here. */
static void nonzero_divisor(PFrElement b)
{
	std::string at = "at circom line " + std::to_string(zka_div_line);
	guarded_check(b, "integer division (\\ or %) by zero " + at, 0,
		      "divides by zero (\\ or %) " + at);
	zka_div_line = 0;
}

/* ---- circom's Fr API ---- */
extern "C" {
void Fr_copy(PFrElement r, PFrElement a)
{
	FrElement t = *a;
	before_write(r);
	*r = t;
}
void Fr_copyn(PFrElement r, PFrElement a, int n)
{
	if (r > a && r < a + n) {
		for (int i = n - 1; i >= 0; i--)
			Fr_copy(&r[i], &a[i]);
	} else {
		for (int i = 0; i < n; i++)
			Fr_copy(&r[i], &a[i]);
	}
}
void Fr_add(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_ADD, r, a, b); }
void Fr_sub(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_SUB, r, a, b); }
void Fr_neg(PFrElement r, PFrElement a) { op1(ZKA_WOP_NEG, r, a); }
void Fr_mul(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_MUL, r, a, b); }
void Fr_square(PFrElement r, PFrElement a) { op2(ZKA_WOP_MUL, r, a, a); }
void Fr_band(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_BAND, r, a, b); }
void Fr_bor(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_BOR, r, a, b); }
void Fr_bxor(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_BXOR, r, a, b); }
void Fr_bnot(PFrElement r, PFrElement a) { op1(ZKA_WOP_BNOT, r, a); }
void Fr_shl(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_SHL, r, a, b); }
void Fr_shr(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_SHR, r, a, b); }
void Fr_eq(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_EQ, r, a, b); }
void Fr_neq(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_NEQ, r, a, b); }
void Fr_lt(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_LT, r, a, b); }
void Fr_gt(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_GT, r, a, b); }
void Fr_leq(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_LEQ, r, a, b); }
void Fr_geq(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_GEQ, r, a, b); }
void Fr_land(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_LAND, r, a, b); }
void Fr_lor(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_LOR, r, a, b); }
void Fr_lnot(PFrElement r, PFrElement a) { op1(ZKA_WOP_LNOT, r, a); }
void Fr_toNormal(PFrElement r, PFrElement a) { Fr_copy(r, a); }
void Fr_toLongNormal(PFrElement r, PFrElement a) { Fr_copy(r, a); }
void Fr_toMontgomery(PFrElement r, PFrElement a) { Fr_copy(r, a); }

int Fr_isTrue(PFrElement e)
{
	if (traced(e))
		die("the circuit branches on a signal's value outside an if/else (unsupported)%s",
		    "");
	return !is_zero(value_of(e));
}

int Fr_toInt(PFrElement e)
{
	if (traced(e))
		die("the circuit indexes an array by a signal's value (unsupported)%s", "");
	limbs v = value_of(e);
	if (v[1] || v[2] || v[3] || v[0] > 0x7fffffff)
		die("an index or count does not fit an int: %s%ld", "", (long)v[0]);
	return (int)v[0];
}
void Fr_fail() { die("circom's runtime reported a failure%s", ""); }
}

void Fr_str2element(PFrElement e, char const *s, uint base)
{
	mpz_t t;
	mpz_init_set_str(t, s, (int)base);
	limbs v = from_mpz(t);
	mpz_clear(t);
	put_const(e, v);
}

char *Fr_element2str(PFrElement e)
{
	if (traced(e))
		return strdup("<signal>"); /* a log() of a signal: the trace prints no values */
	mpz_t t;
	mpz_init(t);
	limbs v = value_of(e);
	to_mpz(t, v);
	char *s = mpz_get_str(NULL, 10, t);
	mpz_clear(t);
	return s;
}

void Fr_idiv(PFrElement r, PFrElement a, PFrElement b)
{
	nonzero_divisor(b);
	op2(ZKA_WOP_IDIV, r, a, b);
}
void Fr_mod(PFrElement r, PFrElement a, PFrElement b)
{
	nonzero_divisor(b);
	op2(ZKA_WOP_MOD, r, a, b);
}
void Fr_div(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_DIV, r, a, b); }
void Fr_pow(PFrElement r, PFrElement a, PFrElement b) { op2(ZKA_WOP_POW, r, a, b); }
void Fr_inv(PFrElement r, PFrElement a)
{
	FrElement one;
	one.shortVal = 1;
	one.type = Fr_SHORT;
	op2(ZKA_WOP_DIV, r, &one, a);
}


__attribute__((noinline)) zka_spec::zka_spec(PFrElement c) : pass_taken(false), state(0), frame(nullptr)
{
	std::lock_guard<std::recursive_mutex> g(mu);
	if (!traced(c)) {
		pass_taken = !is_zero(value_of(c));
		state = -1; /* one pass */
		return;
	}
	struct frame *f = new struct frame;
	f->cond = (uint32_t)c->shortVal;
	f->pass = 0;
	f->stack_floor = (char *)__builtin_frame_address(0);
	f->n_true = 0;
	frame = f;
}

bool zka_spec::next()
{
	std::lock_guard<std::recursive_mutex> g(mu);
	if (state == -1) {
		state = -2;
		return true;
	}
	if (state == -2)
		return false;
	struct frame *f = (struct frame *)frame;
	if (state == 0) { /* start the true pass */
		frames.push_back(f);
		pass_taken = true;
		state = 1;
		return true;
	}
	if (state == 1) { /* the true pass ended: keep its values, undo it, run the false one */
		f->n_true = f->undo.size();
		for (auto &u : f->undo) {
			f->after_true.push_back(*u.first);
			*u.first = u.second;
		}
		f->pass = 1;
		pass_taken = false;
		state = 2;
		return true;
	}
	/* both passes ended: merge into the enclosing frame */
	frames.pop_back();
	std::vector<std::pair<FrElement *, uint32_t>> merged;
	for (size_t i = 0; i < f->undo.size(); i++) {
		FrElement *p = f->undo[i].first;
		const FrElement &old = f->undo[i].second;
		uint32_t vt = node_of(i < f->n_true ? &f->after_true[i] : &old);
		uint32_t vf = node_of(p);
		*p = old;
		merged.push_back({p, apply(ZKA_WOP_SELECT, f->cond, vt, vf)});
	}
	for (auto &m : merged)
		put_node(m.first, m.second);
	delete f;
	frame = nullptr;
	state = -2;
	return false;
}

zka_spec::~zka_spec()
{
	if (frame)
		die("a return inside a branch on a signal's value (unsupported)%s", "");
}

int zka_while(PFrElement c, int line)
{
	if (traced(c))
		die("circuit source line %ld: a loop whose condition depends on a signal's value "
		    "(unsupported)%s",
		    "", line);
	return !is_zero(value_of(c));
}

void zka_assert(PFrElement c, const std::string &tmpl, int line, const std::string &trace)
{
	std::string where = tmpl + " line " + std::to_string(line);
	guarded_check(c, where + " (" + trace + ")", line,
		      "fails its assert in template " + where + " (" + trace + ")");
}

/* ---- the circuit's .dat (circom's layout; see its main.cpp) ---- */
static Circom_Circuit *load_dat(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		die("cannot open %s", path);
	size_t size = (size_t)st.st_size;
	uint8_t *d = (uint8_t *)mmap(NULL, size ? size : 1, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (d == MAP_FAILED)
		die("cannot map %s", path);
	Circom_Circuit *c = new Circom_Circuit;
	size_t off = 0;
	auto take = [&](void *dst, size_t n) {
		if (n > size - off)
			die("%s is shorter than the circuit needs", path);
		memcpy(dst, d + off, n);
		off += n;
	};
	c->InputHashMap = new HashSignalInfo[get_size_of_input_hashmap()];
	take(c->InputHashMap, get_size_of_input_hashmap() * sizeof(HashSignalInfo));
	c->witness2SignalList = new u64[get_size_of_witness()];
	take(c->witness2SignalList, get_size_of_witness() * sizeof(u64));
	c->circuitConstants = new FrElement[get_size_of_constants() + 1];
	take(c->circuitConstants, get_size_of_constants() * sizeof(FrElement));
	c->busInsId2FieldInfo = NULL;
	if (get_size_of_io_map() > 0) {
		std::vector<u32> index(get_size_of_io_map());
		take(index.data(), index.size() * sizeof(u32));
		auto u32at = [&]() {
			u32 v;
			take(&v, sizeof v);
			return v;
		};
		auto defs = [&](IOFieldDefPair &p) {
			p.len = u32at();
			p.defs = (IOFieldDef *)calloc(p.len ? p.len : 1, sizeof(IOFieldDef));
			for (u32 j = 0; j < p.len; j++) {
				p.defs[j].offset = u32at();
				u32 len = u32at();
				p.defs[j].len = len;
				p.defs[j].lengths = new u32[len ? len : 1];
				for (u32 k = 0; k < len; k++)
					p.defs[j].lengths[k] = u32at();
				p.defs[j].size = u32at();
				p.defs[j].busId = u32at();
			}
		};
		for (u32 i = 0; i < index.size(); i++) {
			IOFieldDefPair p;
			defs(p);
			c->templateInsId2IOSignalInfo[index[i]] = p;
		}
		c->busInsId2FieldInfo = (IOFieldDefPair *)calloc(
		    get_size_of_bus_field_map() ? get_size_of_bus_field_map() : 1,
		    sizeof(IOFieldDefPair));
		for (u32 i = 0; i < get_size_of_bus_field_map(); i++)
			defs(c->busInsId2FieldInfo[i]);
	}
	munmap(d, size ? size : 1);
	return c;
}

/* ---- output ---- */
static void out(FILE *f, const void *p, size_t n, XXH64_state_t *h)
{
	if (n && fwrite(p, 1, n, f) != n)
		die("cannot write the graph%s", "");
	XXH64_update(h, p, n);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s CIRCUIT.dat OUT.wcg\n", argv[0]);
		return 2;
	}
	field_init();
	pthread_attr_t at;
	void *lo;
	size_t sz;
	if (pthread_getattr_np(pthread_self(), &at) == 0 &&
	    pthread_attr_getstack(&at, &lo, &sz) == 0)
		stack_lo = (char *)lo;
	Circom_Circuit *circuit = load_dat(argv[1]);
	Circom_CalcWit *ctx = new Circom_CalcWit(circuit);

	/* every main input scalar becomes an input node, in signal order */
	u64 in0 = get_main_input_signal_start(), nin = get_main_input_signal_no();
	std::vector<zka_wcg_map> map;
	for (uint i = 0; i < get_size_of_input_hashmap(); i++) {
		HashSignalInfo &h = circuit->InputHashMap[i];
		if (h.signalsize == 0 && h.hash == 0)
			continue;
		if (h.signalid < in0 || h.signalid + h.signalsize > in0 + nin)
			die("input map entry %s%ld is outside the input signals", "", (long)i);
		map.push_back({h.hash, (uint32_t)(h.signalid - in0), (uint32_t)h.signalsize});
	}
	for (auto &m : map)
		for (uint32_t k = 0; k < m.size; k++) {
			FrElement e;
			memset(&e, 0, sizeof e);
			e.type = ZKA_FR_TRACED;
			e.shortVal = (int32_t)mk(ZKA_WOP_INPUT, m.offset + k);
			ctx->setInputSignal(m.hash, k, e);
		}
	if (nin == 0)
		ctx->tryRunCircuit();

	/* the witness, then everything it and the asserts need (T3) */
	std::vector<uint32_t> wit(get_size_of_witness());
	for (size_t i = 0; i < wit.size(); i++)
		wit[i] = node_of(&ctx->signalValues[circuit->witness2SignalList[i]]);
	std::vector<uint32_t> keep(nodes.size(), 0);
	std::vector<uint32_t> stack;
	auto mark = [&](uint32_t n) {
		if (n != ZKA_WCG_NONE && !keep[n]) {
			keep[n] = 1;
			stack.push_back(n);
		}
	};
	for (uint32_t w : wit)
		mark(w);
	for (auto &a : asserts) {
		mark(a.node);
		mark(a.guard);
	}
	while (!stack.empty()) {
		uint32_t n = stack.back();
		stack.pop_back();
		const node &nd = nodes[n];
		if (nd.op == ZKA_WOP_INPUT || nd.op == ZKA_WOP_CONST)
			continue;
		mark(nd.a);
		if (nd.op != ZKA_WOP_NEG && nd.op != ZKA_WOP_BNOT && nd.op != ZKA_WOP_LNOT)
			mark(nd.b);
		if (nd.op == ZKA_WOP_SELECT)
			mark(nd.c);
	}
	std::vector<uint32_t> renum(nodes.size(), ZKA_WCG_NONE), cmap(consts.size(), ZKA_WCG_NONE);
	std::vector<zka_wcg_node> outn;
	std::vector<limbs> outc;
	for (size_t i = 0; i < nodes.size(); i++) {
		if (!keep[i])
			continue;
		node nd = nodes[i];
		zka_wcg_node o;
		memset(&o, 0, sizeof o);
		o.op = nd.op;
		if (nd.op == ZKA_WOP_CONST) {
			if (cmap[nd.a] == ZKA_WCG_NONE) {
				cmap[nd.a] = (uint32_t)outc.size();
				outc.push_back(consts[nd.a]);
			}
			o.a = cmap[nd.a];
		} else if (nd.op == ZKA_WOP_INPUT) {
			o.a = nd.a;
		} else {
			o.a = renum[nd.a];
			o.b = nd.op == ZKA_WOP_NEG || nd.op == ZKA_WOP_BNOT || nd.op == ZKA_WOP_LNOT
				  ? 0
				  : renum[nd.b];
			o.c = nd.op == ZKA_WOP_SELECT ? renum[nd.c] : 0;
		}
		renum[i] = (uint32_t)outn.size();
		outn.push_back(o);
	}
	for (auto &w : wit)
		w = renum[w];
	for (auto &a : asserts) {
		a.node = renum[a.node];
		a.guard = a.guard == ZKA_WCG_NONE ? ZKA_WCG_NONE : renum[a.guard];
	}

	zka_wcg_hdr h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, ZKA_WCG_MAGIC, 8);
	h.version = 1;
	h.curve = ZKA_WC_CURVE;
	h.n_inputs = (uint32_t)nin;
	h.n_map = (uint32_t)map.size();
	h.n_consts = (uint32_t)outc.size();
	h.n_nodes = (uint32_t)outn.size();
	h.n_witness = (uint32_t)wit.size();
	h.n_asserts = (uint32_t)asserts.size();
	h.msg_bytes = (uint32_t)msgs.size();
	FILE *f = fopen(argv[2], "wbx");
	if (!f)
		die("cannot create %s", argv[2]);
	XXH64_state_t *xs = XXH64_createState();
	XXH64_reset(xs, 0);
	out(f, &h, sizeof h, xs);
	out(f, map.data(), map.size() * sizeof(zka_wcg_map), xs);
	out(f, outc.data(), outc.size() * sizeof(limbs), xs);
	out(f, outn.data(), outn.size() * sizeof(zka_wcg_node), xs);
	out(f, wit.data(), wit.size() * sizeof(uint32_t), xs);
	out(f, asserts.data(), asserts.size() * sizeof(zka_wcg_assert), xs);
	out(f, msgs.data(), msgs.size(), xs);
	uint64_t sum = XXH64_digest(xs);
	if (fwrite(&sum, 1, 8, f) != 8 || fclose(f) != 0)
		die("cannot write %s", argv[2]);
	fprintf(stderr, "zkarena-trace: %zu nodes recorded, %zu kept, %zu constants, %zu asserts\n",
		nodes.size(), outn.size(), outc.size(), asserts.size());
	return 0;
}

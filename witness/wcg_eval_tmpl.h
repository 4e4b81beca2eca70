/* wcg_eval_tmpl.h - the graph evaluator for one scalar field; included by wcg.c with
 *   FR   the field prefix of zk/fp_tmpl.h (bn254_fr, bls12_381_fr)
 * defining static int FR##_wcg_eval(...), which runs the program zka_wcg_load compiled (see
 * wcg.c: register slots, witness emission and assert checks at the node that completes them).
 *
 * A slot holds its value in Montgomery form (field arithmetic), standard form (comparisons,
 * bitwise operators, shifts, the witness), or both: flags say which are valid, and the other
 * form is made on first need and kept, so a value read by many integer operators (a Num2Bits
 * input: 254 shifts) is converted once. The integer operators are witness/wcg_int.h's, the
 * implementation the tracer folded constants with. FMUL, FADD, FSUB and LC (wcg.c: "Montgomery
 * operands") read m[] directly: their operands' producers always leave a Montgomery form. A
 * witness entry of a value held only in Montgomery form (and of no other entry) is converted in
 * a batch of WCG_PEND (F(ws_batch)), not right after its instruction. */
#define WE_CAT2(a, b) a##_##b
#define WE_CAT(a, b) WE_CAT2(a, b)
#define WF_(name) WE_CAT(FR, name)
#define WT WF_(t)

/* The Montgomery form of slot s (made from the standard or the integer form when missing). */
static inline const WT *WF_(wm)(WT *m, WT *st, const int64_t *iv, uint8_t *fl, uint32_t s)
{
	if (!(fl[s] & 1)) {
		if (fl[s] & 4) { /* a small integer v: the residue v mod p */
			int64_t v = iv[s];
			uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			if (u <= 1) {
				if (u)
					WF_(one)(&m[s]);
				else
					WF_(zero)(&m[s]);
			} else {
				WT t;
				memset(&t, 0, sizeof t);
				t.v[0] = u;
				WF_(to_mont)(&m[s], &t);
			}
			if (v < 0)
				WF_(neg)(&m[s], &m[s]);
		} else {
			const uint64_t *x = st[s].v;
			if (!(x[1] | x[2] | x[3]) &&
			    x[0] <= 1) { /* bits: most of a hash's values */
				if (x[0])
					WF_(one)(&m[s]);
				else
					WF_(zero)(&m[s]);
			} else {
				WF_(to_mont)(&m[s], &st[s]);
			}
		}
		fl[s] |= 1;
	}
	return &m[s];
}

/* r = the standard form of the canonical Montgomery form x, one the Montgomery form of 1: 0 and
 * R (the bits) without a product, else by the reduction alone (r < p: F(redc)). */
static inline void WF_(to_std)(WT *r, const WT *x, const WT *one)
{
	if (WF_(is_zero)(x) || WF_(eq)(x, one)) {
		memset(r, 0, sizeof *r);
		r->v[0] = !WF_(is_zero)(x);
	} else {
		WF_(redc)(r, x->v);
	}
}

/* F(to_std) out of line: the integer forms' path of F(ws) stays small enough to inline. */
static __attribute__((noinline)) void WF_(ws_mont)(WT *r, const WT *x)
{
	WT one;
	WF_(one)(&one);
	WF_(to_std)(r, x, &one);
}

#ifndef ZKA_WCG_COPY4
#define ZKA_WCG_COPY4
/* dst[0..3] = src[0..3] by four 8-byte loads and stores. src was just written by the
 * instruction's scalar stores: a 16-byte load of it waits for them to retire instead of
 * taking their values from the store buffer (perf on the 2-core box: 29% of the evaluator's
 * own time on the load of a witness value queued for conversion). The empty asm keeps the
 * values in general registers, so the compiler does not merge the copies into vector moves. */
static inline void zka_wcg_copy4(uint64_t *dst, const uint64_t *src)
{
	uint64_t a = src[0], b = src[1], c = src[2], d = src[3];
	__asm__("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
	dst[0] = a, dst[1] = b, dst[2] = c, dst[3] = d;
}
#endif

#ifndef WCG_PEND
/* Witness values converted to standard form together: independent reductions, which the CPU
 * overlaps, where one right after each instruction waited for its serial chain. */
#define WCG_PEND 64
#endif

/* w[idx[k]] = the standard form of the canonical Montgomery form x[k], k < n. */
static void WF_(ws_batch)(uint64_t (*w)[4], const WT *x, const uint32_t *idx, uint32_t n,
			  const zka_ifma_redc *ic)
{
	if (ic) { /* 8 at a time (wcg_ifma.h) */
		zka_ifma_to_std(w, (const uint64_t(*)[4])x, idx, n, ic);
		return;
	}
	WT one;
	WF_(one)(&one);
	for (uint32_t k = 0; k < n; k++) {
		WT r;
		WF_(to_std)(&r, &x[k], &one);
		memcpy(w[idx[k]], r.v, 32);
	}
}

/* The standard form of slot s (made from the Montgomery or the integer form when missing). */
static inline const uint64_t *WF_(ws)(WT *m, WT *st, const int64_t *iv, uint8_t *fl, uint32_t s,
				      const zka_wi_field *f)
{
	if (!(fl[s] & 2)) {
		if (fl[s] & 4) {
			int64_t v = iv[s];
			uint64_t t[4] = {v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 0, 0, 0};
			if (v < 0)
				zka_wi_sub(st[s].v, f->q, t);
			else
				memcpy(st[s].v, t, sizeof t);
		} else {
			WF_(ws_mont)(&st[s], &m[s]);
		}
		fl[s] |= 2;
	}
	return st[s].v;
}

/* The truth of slot s (not zero), from whichever form it has. */
static inline int WF_(wt)(WT *m, WT *st, const int64_t *iv, uint8_t *fl, uint32_t s)
{
	if (fl[s] & 4)
		return iv[s] != 0;
	if (fl[s] & 1)
		return !WF_(is_zero)(&m[s]);
	return (st[s].v[0] | st[s].v[1] | st[s].v[2] | st[s].v[3]) != 0;
}

/* The low 64 bits of slot s's standard form. */
static inline uint64_t WF_(wl)(WT *m, WT *st, const int64_t *iv, uint8_t *fl, uint32_t s,
			       const zka_wi_field *f)
{
	if (fl[s] & 4) /* v or p + v: the low limb wraps */
		return iv[s] < 0 ? f->q[0] + (uint64_t)iv[s] : (uint64_t)iv[s];
	return WF_(ws)(m, st, iv, fl, s, f)[0];
}

/* r = the LC (wcg.c's montgomery_ops()) whose head is n: sum of np products of Montgomery
 * forms a_k b_k and na addends z_k, all canonical slots of m. The products' 512-bit sum
 * (below np p^2 < 2^512: wcg.c's lc_kmax) is reduced once, acc R^-1 = redc(acc mod R) +
 * acc / R (the Montgomery form of sum a_k b_k), the addends added, and the (5-limb) total,
 * below 2^256 + (na + 1) p, brought below p by subtractions. Returns the records read after
 * the head. */
static __attribute__((noinline)) uint32_t WF_(lc)(WT *r, const WT *m, const struct zka_wcg_ins *n,
						  const zka_wi_field *f)
{
	const uint32_t *o = (const uint32_t *)(n + 1);
	uint32_t np = n->a, na = n->b;
	uint64_t acc[8], t[8], u[5];
	unsigned char c;
	if (np) {
		WF_(wide_mul)(acc, &m[o[0]], &m[o[1]]);
		for (uint32_t k = 1; k < np; k++) {
			WF_(wide_mul)(t, &m[o[2 * k]], &m[o[2 * k + 1]]);
			c = 0;
			for (int q = 0; q < 8; q++)
				c = zka_fp_adc(c, acc[q], t[q], &acc[q]);
		}
		WT lo;
		WF_(redc)(&lo, acc); /* <= p */
		c = 0;
		for (int q = 0; q < 4; q++)
			c = zka_fp_adc(c, lo.v[q], acc[4 + q], &u[q]);
		u[4] = c;
	} else {
		memset(u, 0, sizeof u);
	}
	for (uint32_t k = 0; k < na; k++) {
		const uint64_t *z = m[o[2 * np + k]].v;
		c = 0;
		for (int q = 0; q < 4; q++)
			c = zka_fp_adc(c, u[q], z[q], &u[q]);
		u[4] += c;
	}
	/* u - p while u >= p, in named registers and stored limb by limb: the array and its
	 * 16-byte copy out stalled on store forwarding (perf on the 2-core box: 9% of the LC on
	 * the load after the loop) */
	uint64_t u0 = u[0], u1 = u[1], u2 = u[2], u3 = u[3], u4 = u[4];
	const uint64_t p0 = f->q[0], p1 = f->q[1], p2 = f->q[2], p3 = f->q[3];
	for (;;) {
		uint64_t d0, d1, d2, d3;
		unsigned char b = zka_fp_sbb(0, u0, p0, &d0);
		b = zka_fp_sbb(b, u1, p1, &d1);
		b = zka_fp_sbb(b, u2, p2, &d2);
		b = zka_fp_sbb(b, u3, p3, &d3);
		if (u4 == 0 && b)
			break;
		u0 = d0, u1 = d1, u2 = d2, u3 = d3, u4 -= b;
	}
	r->v[0] = u0, r->v[1] = u1, r->v[2] = u2, r->v[3] = u3;
	return (2 * np + na + 3) / 4;
}

static int WF_(wcg_eval)(const struct zka_wcg *g, const uint64_t (*in)[4], uint64_t (*w)[4],
			 void *scratch, char *err, size_t errlen)
{
	WT *m = (WT *)scratch, *st = m + g->n_slots, one, zero;
	int64_t *iv = (int64_t *)(st + g->n_slots);
	uint8_t *fl = (uint8_t *)(iv + g->n_slots);
	const zka_wi_field *f = &g->wf;
	uint32_t ak = 0, wk = 0; /* the next assert check and witness entry (by instruction) */
	WT pend[WCG_PEND]; /* witness values waiting for their standard forms, and their indices */
	uint32_t pidx[WCG_PEND], np = 0;
	zka_ifma_redc icv, *ic = zka_wcg_ifma() ? &icv : NULL;
	if (ic)
		zka_ifma_redc_init(ic, f->q);
	WF_(one)(&one);
	WF_(zero)(&zero);
#define M(s) WF_(wm)(m, st, iv, fl, (s))
#define S(s) WF_(ws)(m, st, iv, fl, (s), f)
#define T(s) WF_(wt)(m, st, iv, fl, (s))
#define L(s) WF_(wl)(m, st, iv, fl, (s), f)
#define SET_M(v) (m[d] = (v), fl[d] = 1)
#define SET_I(v) (iv[d] = (v), fl[d] = 4)
#define SM(op) (ZKA_WOP_SMALL | ZKA_WOP_##op)
	for (uint32_t j = 0; j < g->n_ins; j++) {
		const struct zka_wcg_ins *n = &g->prog[j];
		uint32_t d = n->od >> 8, i = j, op = n->od & 0xff;
		uint64_t z[4] = {0, 0, 0, 0};
		switch (op) {
		/* small values (wcg.c's narrow(): no result leaves [-2^62, 2^62]) */
		case SM(CONST):
			SET_I(g->iconst[n->a]);
			break;
		case SM(ADD):
			SET_I(iv[n->a] + iv[n->b]);
			break;
		case SM(SUB):
			SET_I(iv[n->a] - iv[n->b]);
			break;
		case SM(MUL):
			SET_I(iv[n->a] * iv[n->b]);
			break;
		case SM(MAC):
			SET_I(iv[n->a] + iv[n->b] * iv[n->c]);
			break;
		case SM(NEG):
			SET_I(-iv[n->a]);
			break;
		case SM(SELECT):
			SET_I(T(n->a) ? iv[n->b] : iv[n->c]);
			break;
		case SM(EQ):
			SET_I(iv[n->a] == iv[n->b]);
			break;
		case SM(NEQ):
			SET_I(iv[n->a] != iv[n->b]);
			break;
		case SM(LT): /* a small v is its own signed reading */
			SET_I(iv[n->a] < iv[n->b]);
			break;
		case SM(GT):
			SET_I(iv[n->a] > iv[n->b]);
			break;
		case SM(LEQ):
			SET_I(iv[n->a] <= iv[n->b]);
			break;
		case SM(GEQ):
			SET_I(iv[n->a] >= iv[n->b]);
			break;
		case SM(LAND):
			SET_I(T(n->a) && T(n->b));
			break;
		case SM(LOR):
			SET_I(T(n->a) || T(n->b));
			break;
		case SM(LNOT):
			SET_I(!T(n->a));
			break;
		case SM(BAND):
			SET_I((int64_t)(L(n->a) & L(n->b)));
			break;
		case SM(BOR):
			SET_I(iv[n->a] | iv[n->b]);
			break;
		case SM(BXOR):
			SET_I(iv[n->a] ^ iv[n->b]);
			break;
		case SM(SHR):
			SET_I(iv[n->b] >= 63 ? 0 : iv[n->a] >> iv[n->b]);
			break;
		case SM(SHL):
			SET_I(iv[n->a] << iv[n->b]);
			break;
		/* Montgomery operands (wcg.c: the operands' instructions leave that form) */
		case ZKA_WOP_LC:
			j += WF_(lc)(&m[d], m, n, f);
			fl[d] = 1;
			break;
		case ZKA_WOP_FMUL:
			WF_(mul)(&m[d], &m[n->a], &m[n->b]);
			fl[d] = 1;
			break;
		case ZKA_WOP_FADD:
			WF_(add)(&m[d], &m[n->a], &m[n->b]);
			fl[d] = 1;
			break;
		case ZKA_WOP_FSUB:
			WF_(sub)(&m[d], &m[n->a], &m[n->b]);
			fl[d] = 1;
			break;
		case ZKA_WOP_INPUT:
			memcpy(st[d].v, in[n->a], 32);
			fl[d] = 2;
			break;
		case ZKA_WOP_CONST:
			m[d] = ((const WT *)g->mconst)[n->a];
			fl[d] = 1;
			break;
		case ZKA_WOP_ADD:
			WF_(add)(&m[d], M(n->a), M(n->b));
			fl[d] = 1;
			break;
		case ZKA_WOP_SUB:
			WF_(sub)(&m[d], M(n->a), M(n->b));
			fl[d] = 1;
			break;
		case ZKA_WOP_MUL: {
			/* by a bit (most products of a hash circuit): a select, not a product */
			const WT *x = M(n->a), *y = M(n->b);
			/* a top-limb prefilter: a full-width value skips the three compares */
			if ((x->v[3] != one.v[3] && x->v[3] != 0) &&
			    (y->v[3] != one.v[3] && y->v[3] != 0))
				WF_(mul)(&m[d], x, y);
			else if (WF_(eq)(x, &one))
				m[d] = *y;
			else if (WF_(eq)(y, &one))
				m[d] = *x;
			else if (WF_(is_zero)(x) || WF_(is_zero)(y))
				m[d] = zero;
			else
				WF_(mul)(&m[d], x, y);
			fl[d] = 1;
			break;
		}
		case ZKA_WOP_NEG:
			WF_(neg)(&m[d], M(n->a));
			fl[d] = 1;
			break;
		case ZKA_WOP_DIV: {
			WT t;
			WF_(inv_vartime)
			(&t, M(n->b)); /* 0 for 0 (zka_wcg.h); variable time:
					  the witness code branches on values anyway */
			WF_(mul)(&m[d], M(n->a), &t);
			fl[d] = 1;
			break;
		}
		case ZKA_WOP_EQ:
			SET_M(WF_(eq)(M(n->a), M(n->b)) ? one : zero);
			break;
		case ZKA_WOP_NEQ:
			SET_M(WF_(eq)(M(n->a), M(n->b)) ? zero : one);
			break;
		case ZKA_WOP_LAND:
			SET_M(T(n->a) && T(n->b) ? one : zero);
			break;
		case ZKA_WOP_LOR:
			SET_M(T(n->a) || T(n->b) ? one : zero);
			break;
		case ZKA_WOP_LNOT:
			SET_M(T(n->a) ? zero : one);
			break;
		case ZKA_WOP_SELECT: {
			uint32_t s = T(n->a) ? n->b : n->c;
			WT a = *M(s);
			SET_M(a);
			break;
		}
		case ZKA_WOP_POW:
			WF_(pow)(&m[d], M(n->a), S(n->b), 4);
			fl[d] = 1;
			break;
		default: {
			/* integer operators: standard forms in, a standard form out */
			const uint64_t *x = S(n->a), *y = op == ZKA_WOP_BNOT ? x : S(n->b);
			switch (op) {
			case ZKA_WOP_LT:
				z[0] = zka_wi_scmp(x, y, f) < 0;
				break;
			case ZKA_WOP_GT:
				z[0] = zka_wi_scmp(x, y, f) > 0;
				break;
			case ZKA_WOP_LEQ:
				z[0] = zka_wi_scmp(x, y, f) <= 0;
				break;
			case ZKA_WOP_GEQ:
				z[0] = zka_wi_scmp(x, y, f) >= 0;
				break;
			case ZKA_WOP_SHL:
				zka_wi_shift(z, x, y, 1, f);
				break;
			case ZKA_WOP_SHR:
				zka_wi_shift(z, x, y, 0, f);
				break;
			case ZKA_WOP_BAND:
				zka_wi_bit(z, x, y, 0, f);
				break;
			case ZKA_WOP_BOR:
				zka_wi_bit(z, x, y, 1, f);
				break;
			case ZKA_WOP_BXOR:
				zka_wi_bit(z, x, y, 2, f);
				break;
			case ZKA_WOP_BNOT:
				zka_wi_bit(z, x, x, 3, f);
				break;
			case ZKA_WOP_IDIV:
			case ZKA_WOP_MOD:
				zka_wcg_divmod(z, x, y, op == ZKA_WOP_MOD);
				break;
			}
			memcpy(st[d].v, z, 32);
			fl[d] = 2;
			break;
		}
		}
		/* the asserts this node completes, in circom's order among themselves */
		for (; g->anode[ak] == i; ak++) {
			const struct zka_wcg_assert *as = &g->kas[g->alist[ak]];
			if (as->guard != ZKA_WCG_NONE && !T(g->aslot[2 * ak + 1]))
				continue;
			if (!T(g->aslot[2 * ak])) {
				if (as->line == 0) /* trace.cpp's divisor check */
					snprintf(err, errlen, "circuit %s", g->msgs + as->msg);
				else
					snprintf(err, errlen, "circuit assert failed: template %s",
						 g->msgs + as->msg);
				return -EDOM;
			}
		}
		/* the witness entries that are this node's value: a lone entry of a value held in
		 * Montgomery form only waits in pend[] for the next batch of conversions */
		if (g->wnode[wk] == i && g->wnode[wk + 1] != i && fl[d] == 1) {
			zka_wcg_copy4(pend[np].v, m[d].v);
			pidx[np++] = g->wlist[wk++];
			if (np == WCG_PEND)
				WF_(ws_batch)(w, pend, pidx, np, ic), np = 0;
		}
		for (; g->wnode[wk] == i; wk++)
			memcpy(w[g->wlist[wk]], S(d), 32);
	}
	WF_(ws_batch)(w, pend, pidx, np, ic);
#undef M
#undef S
#undef T
#undef L
#undef SET_M
#undef SET_I
#undef SM
	return 0;
}
#undef WE_CAT2
#undef WE_CAT
#undef WF_
#undef WT
#undef FR

/* wcg_eval_tmpl.h - the graph evaluator for one scalar field; included by wcg.c with
 *   FR   the field prefix of zk/fp_tmpl.h (bn254_fr, bls12_381_fr)
 * defining static int FR##_wcg_eval(...). Values live in Montgomery form; the operators that
 * read integers (comparisons, bitwise, shifts, pow, idiv, mod) convert through standard form
 * and witness/wcg_int.h, the implementation the tracer folded constants with. */
#define WE_CAT2(a, b) a##_##b
#define WE_CAT(a, b) WE_CAT2(a, b)
#define WF_(name) WE_CAT(FR, name)
#define WT WF_(t)

static int WF_(wcg_eval)(const struct zka_wcg *g, const uint64_t (*in)[4], uint64_t (*w)[4],
			 uint64_t (*scratch)[4], char *err, size_t errlen)
{
	WT *v = (WT *)scratch, one, zero;
	WF_(one)(&one);
	WF_(zero)(&zero);
	const struct zka_wcg_node *nd = g->nodes;
	for (uint32_t i = 0; i < g->h.n_nodes; i++) {
		const struct zka_wcg_node *n = &nd[i];
		WT *r = &v[i];
		const WT *a = &v[n->a], *b = &v[n->b];
		uint64_t x[4], y[4], z[4];
		switch (n->op) {
		case ZKA_WOP_INPUT: WF_(to_mont)(r, (const WT *)in[n->a]); break;
		case ZKA_WOP_CONST: *r = ((const WT *)g->mconst)[n->a]; break;
		case ZKA_WOP_ADD: WF_(add)(r, a, b); break;
		case ZKA_WOP_SUB: WF_(sub)(r, a, b); break;
		case ZKA_WOP_MUL: WF_(mul)(r, a, b); break;
		case ZKA_WOP_NEG: WF_(neg)(r, a); break;
		case ZKA_WOP_DIV: {
			WT t;
			WF_(inv)(&t, b); /* 0 for 0 (zka_wcg.h) */
			WF_(mul)(r, a, &t);
			break;
		}
		case ZKA_WOP_EQ: *r = WF_(eq)(a, b) ? one : zero; break;
		case ZKA_WOP_NEQ: *r = WF_(eq)(a, b) ? zero : one; break;
		case ZKA_WOP_LAND: *r = !WF_(is_zero)(a) && !WF_(is_zero)(b) ? one : zero; break;
		case ZKA_WOP_LOR: *r = !WF_(is_zero)(a) || !WF_(is_zero)(b) ? one : zero; break;
		case ZKA_WOP_LNOT: *r = WF_(is_zero)(a) ? one : zero; break;
		case ZKA_WOP_SELECT: *r = !WF_(is_zero)(a) ? *b : v[n->c]; break;
		default: {
			/* integer operators: standard forms in x, y; result in z */
			WF_(from_mont)((WT *)x, a);
			WF_(from_mont)((WT *)y, b);
			memset(z, 0, sizeof z);
			const zka_wi_field *f = &g->wf;
			switch (n->op) {
			case ZKA_WOP_LT: z[0] = zka_wi_scmp(x, y, f) < 0; break;
			case ZKA_WOP_GT: z[0] = zka_wi_scmp(x, y, f) > 0; break;
			case ZKA_WOP_LEQ: z[0] = zka_wi_scmp(x, y, f) <= 0; break;
			case ZKA_WOP_GEQ: z[0] = zka_wi_scmp(x, y, f) >= 0; break;
			case ZKA_WOP_SHL: zka_wi_shift(z, x, y, 1, f); break;
			case ZKA_WOP_SHR: zka_wi_shift(z, x, y, 0, f); break;
			case ZKA_WOP_BAND: zka_wi_bit(z, x, y, 0, f); break;
			case ZKA_WOP_BOR: zka_wi_bit(z, x, y, 1, f); break;
			case ZKA_WOP_BXOR: zka_wi_bit(z, x, y, 2, f); break;
			case ZKA_WOP_BNOT: zka_wi_bit(z, x, x, 3, f); break;
			case ZKA_WOP_POW: WF_(pow)(r, a, y, 4); goto done;
			case ZKA_WOP_IDIV:
			case ZKA_WOP_MOD: zka_wcg_divmod(z, x, y, n->op == ZKA_WOP_MOD); break;
			}
			WF_(to_mont)(r, (const WT *)z);
		done:
			break;
		}
		}
	}
	for (uint32_t i = 0; i < g->h.n_asserts; i++) {
		const struct zka_wcg_assert *as = &g->asserts[i];
		if (as->guard != ZKA_WCG_NONE && WF_(is_zero)(&v[as->guard]))
			continue;
		if (WF_(is_zero)(&v[as->node])) {
			snprintf(err, errlen, "circuit assert failed: template %s", g->msgs + as->msg);
			return -EDOM;
		}
	}
	for (uint32_t i = 0; i < g->h.n_witness; i++)
		WF_(from_mont)((WT *)w[i], &v[g->witness[i]]);
	return 0;
}
#undef WE_CAT2
#undef WE_CAT
#undef WF_
#undef WT
#undef FR

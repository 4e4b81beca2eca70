/* test_bellperson.c - bellperson .params files and 192-byte proofs (zk/bellperson.h) and the
 * monomial-H prover, on synthetic BLS12-381 circuits with public inputs:
 *   - blstrs's ROOT_OF_UNITY (its Montgomery limbs) is what ntt_root_kind(GEN7) computes;
 *   - point encodings round-trip (uncompressed and compressed, both y signs, infinity), and
 *     bad flags, coordinates >= q, off-curve and out-of-subgroup points are refused;
 *   - a setup --format bellperson key written and read back is the same key; a corrupted
 *     file (a bad point at a random section and index, truncated, a bad count, extra bytes)
 *     is refused naming the section and index;
 *   - a monomial-H key with snarkjs's root and the coset-H key of the same toxic waste prove
 *     byte-identically with the same r, s (the two H computations agree exactly); a
 *     bellperson-root key from the .params proves, and the proof verifies, also after its
 *     192 bytes are decoded;
 *   - a coset-H key (a .zkey's) converted to a .params (zka_bp_from_zkey_pk): h and the vk
 *     equal the bellperson-root setup's of the same toxic waste byte for byte, every section
 *     the snarkjs-root monomial key's; it proves (the .zkey's proof, same r, s) with
 *     snarkjs's root and gives a proof that does not verify with bellperson's. */
#include "tests/fmt_testlib.h"
#include "tests/testutil.h"
#include "zk/bellperson.h"
#include "zk/bls12_381.h"
#include "zk/setup.h"
#include "zk/synthetic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp(const char *name)
{
	static char p[4][600];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
	return p[k];
}

static void test_root(void)
{
	/* blstrs / bls12_381 Scalar::ROOT_OF_UNITY (= 7^t), Montgomery limbs */
	static const uint64_t want[4] = {0xb9b58d8c5f0e466aull, 0x5b1b4c801819d7ecull,
					 0x0af53ae352a31e64ull, 0x5bf3adda19e9b27bull};
	bls12_381_fr_t w;
	CU_ASSERT(!zka_domain_root(&zka_curve_bls12_381, BLS12_381_FR_S, ZKA_ROOT_GEN7, w.v));
	CU_ASSERT(!memcmp(w.v, want, sizeof want));
	CU_ASSERT(zka_domain_root(&zka_curve_bn254, 3, ZKA_ROOT_GEN7, w.v) == -EINVAL);
	/* a primitive 2^k-th root: w^(2^(k-1)) = -1 */
	for (int k = 1; k < 12; k++) {
		bls12_381_fr_t x, m1;
		CU_ASSERT(!zka_domain_root(&zka_curve_bls12_381, k, ZKA_ROOT_GEN7, x.v));
		for (int i = 1; i < k; i++)
			bls12_381_fr_sqr(&x, &x);
		bls12_381_fr_one(&m1);
		bls12_381_fr_neg(&m1, &m1);
		CU_ASSERT(bls12_381_fr_eq(&x, &m1));
	}
}

/* k G1 and k G2 points of the group: the generators times small random scalars */
static void rand_points(uint8_t *p1, uint8_t *p2, int k)
{
	bls12_381_g1_aff g1, a1;
	bls12_381_g2_aff g2, a2;
	bls12_381_g1_gen(&g1);
	bls12_381_g2_gen(&g2);
	for (int i = 0; i < k; i++) {
		uint64_t s = zka_test_rand64() | 1;
		bls12_381_g1_jac j1;
		bls12_381_g2_jac j2;
		bls12_381_g1_mul_u64_aff(&j1, &g1, s);
		bls12_381_g2_mul_u64_aff(&j2, &g2, s);
		bls12_381_g1_to_aff(&a1, &j1);
		bls12_381_g2_to_aff(&a2, &j2);
		memcpy(p1 + 96 * i, &a1, 96);
		memcpy(p2 + 192 * i, &a2, 192);
	}
}

static void test_points(void)
{
	uint8_t p1[96 * 16], p2[192 * 16], e1[96], e2[192], c1[48], c2[96], back[192];
	rand_points(p1, p2, 16);
	int larger = 0;
	for (int i = 0; i < 16; i++) {
		zka_bp_g1_encode(p1 + 96 * i, e1);
		CU_ASSERT(!zka_bp_g1_decode(e1, back) && !memcmp(back, p1 + 96 * i, 96));
		zka_bp_g2_encode(p2 + 192 * i, e2);
		CU_ASSERT(!zka_bp_g2_decode(e2, back) && !memcmp(back, p2 + 192 * i, 192));
		zka_bp_g1_compress(p1 + 96 * i, c1);
		CU_ASSERT(!zka_bp_g1_decompress(c1, back) && !memcmp(back, p1 + 96 * i, 96));
		zka_bp_g2_compress(p2 + 192 * i, c2);
		CU_ASSERT(!zka_bp_g2_decompress(c2, back) && !memcmp(back, p2 + 192 * i, 192));
		larger += !!(c1[0] & 0x20);
		/* the other sign decodes to the negated point */
		c1[0] ^= 0x20;
		CU_ASSERT(!zka_bp_g1_decompress(c1, back) && memcmp(back, p1 + 96 * i, 96));
	}
	CU_ASSERT(larger > 0 && larger < 16); /* both signs were seen (fails 2^-15 of runs) */
	/* the generator's known Zcash compressed form starts 97f1d3a7 */
	bls12_381_g1_aff g;
	bls12_381_g1_gen(&g);
	zka_bp_g1_compress((const uint8_t *)&g, c1);
	CU_ASSERT(c1[0] == 0x97 && c1[1] == 0xf1 && c1[2] == 0xd3 && c1[3] == 0xa7);
	/* infinity */
	uint8_t zero[192] = {0};
	zka_bp_g1_encode(zero, e1);
	CU_ASSERT(e1[0] == 0x40);
	CU_ASSERT(!zka_bp_g1_decode(e1, back) && !memcmp(back, zero, 96));
	zka_bp_g2_compress(zero, c2);
	CU_ASSERT(c2[0] == 0xc0 && !zka_bp_g2_decompress(c2, back) && !memcmp(back, zero, 192));
	/* refusals */
	zka_bp_g1_encode(p1, e1);
	e1[0] |= 0x80;
	CU_ASSERT(zka_bp_g1_decode(e1, back) != NULL); /* compressed flag */
	e1[0] &= 0x7f;
	e1[95] ^= 1;
	CU_ASSERT(zka_bp_g1_decode(e1, back) != NULL); /* off the curve */
	memset(e1, 0xff, 96);
	e1[0] = 0x1f;
	CU_ASSERT(zka_bp_g1_decode(e1, back) != NULL); /* x >= q */
	memset(e1, 0, 96);
	CU_ASSERT(zka_bp_g1_decode(e1, back) != NULL); /* (0, 0) without the infinity flag */
	e1[0] = 0x40;
	e1[50] = 1;
	CU_ASSERT(zka_bp_g1_decode(e1, back) != NULL); /* infinity with a coordinate */
	zka_bp_g1_compress(p1, c1);
	c1[0] &= 0x7f;
	CU_ASSERT(zka_bp_g1_decompress(c1, back) != NULL); /* not flagged compressed */
	/* a G1 point on the curve outside the subgroup: x = 0 is not on it (4 is not a cube
	 * root issue: y^2 = 4, y = 2 is on E but of order 3? check via the decoder) */
	bls12_381_g1_aff q;
	memset(&q, 0, sizeof q);
	bls12_381_fq_from_u64(&q.y, 2); /* (0, 2): on y^2 = x^3 + 4, order 3, not in G1 */
	zka_bp_g1_encode((const uint8_t *)&q, e1);
	const char *why = zka_bp_g1_decode(e1, back);
	CU_ASSERT(why && strstr(why, "subgroup"));
}

/* a BLS12-381 circuit and witness with public inputs */
static void circuit(zka_r1cs *cs, zka_witness *w, uint32_t m, uint32_t npub)
{
	CU_ASSERT_FATAL(!zka_synthetic_circuit(&zka_curve_bls12_381, m, npub, 7 + m, cs, w));
}

static void rand_rs(zka_rs *rs)
{
	CU_ASSERT_FATAL(!zka_rs_random(rs, &zka_curve_bls12_381));
}

static int verify(const zka_pk *pk, const zka_witness *w, const zka_proof *pr)
{
	zka_vk vk;
	const char *why = NULL;
	if (zka_vk_from_pk(&vk, pk))
		return -1;
	int ok = zka_verify(&vk, (const uint64_t(*)[4])(w->w + 1), pk->n_public, pr, &why);
	zka_vk_free(&vk);
	return ok;
}

static void test_roundtrip_prove(void)
{
	zka_r1cs cs;
	zka_witness w;
	zka_toxic tw;
	zka_pk pk, pk2;
	zka_bp_params bp, bp2;
	char err[300] = "";
	circuit(&cs, &w, 300, 3);
	zka_toxic_from_seed(&tw, &zka_curve_bls12_381, 42);
	CU_ASSERT_FATAL(!zka_setup_kind(&cs, &tw, &pk, NULL, 2, ZKA_H_MONOMIAL, ZKA_ROOT_GEN7));
	CU_ASSERT_FATAL(!zka_bp_from_pk(&pk, &cs, &bp, err, sizeof err));
	CU_ASSERT(bp.n_h == pk.domain_size - 1 && bp.n_ic == 4);
	CU_ASSERT_FATAL(!zka_bp_write(tmp("k.params"), &bp, err, sizeof err));
	CU_ASSERT_FATAL(!zka_bp_read(tmp("k.params"), &bp2, 2, err, sizeof err));
	CU_ASSERT(bp2.n_a == bp.n_a && bp2.n_b2 == bp.n_b2 && bp2.n_l == bp.n_l);
	CU_ASSERT(!memcmp(bp2.b2, bp.b2, (size_t)bp.n_b2 * 192));
	CU_ASSERT(!memcmp(bp2.h, bp.h, (size_t)bp.n_h * 96));
	CU_ASSERT(!memcmp(bp2.delta2, bp.delta2, 192));
	CU_ASSERT_FATAL(!zka_bp_to_pk(&bp2, &cs, ZKA_ROOT_GEN7, &pk2, err, sizeof err));
	size_t n1 = 96, nv = pk.n_vars;
	CU_ASSERT(!memcmp(pk.A, pk2.A, nv * n1) && !memcmp(pk.B1, pk2.B1, nv * n1));
	CU_ASSERT(!memcmp(pk.B2, pk2.B2, nv * 192) && !memcmp(pk.H, pk2.H, pk.domain_size * n1));
	CU_ASSERT(!memcmp(pk.IC, pk2.IC, 4 * n1) && pk2.h_kind == ZKA_H_MONOMIAL);
	/* prove with the key read back; verify; through the 192 bytes */
	zka_rs rs;
	zka_proof pr, pr2;
	rand_rs(&rs);
	zka_prove_opts o = {.threads = 2};
	CU_ASSERT_FATAL(!zka_prove(&pk2, &w, &rs, &pr, &o, NULL));
	CU_ASSERT(verify(&pk2, &w, &pr) == 1);
	uint8_t bytes[192];
	zka_bp_proof_encode(&pr, bytes);
	CU_ASSERT(!zka_bp_proof_decode(bytes, &pr2, err, sizeof err));
	CU_ASSERT(!memcmp(pr.a, pr2.a, 96) && !memcmp(pr.b, pr2.b, 192) &&
		  !memcmp(pr.c, pr2.c, 96));
	/* a wrong public input does not verify */
	w.w[1][0] ^= 1;
	CU_ASSERT(verify(&pk2, &w, &pr) == 0);
	w.w[1][0] ^= 1;
	/* a key whose H is coset-kind but holds monomial points must not verify (the H kinds
	 * really differ) */
	pk2.h_kind = ZKA_H_COSET;
	pk2.root = ZKA_ROOT_SNARKJS;
	CU_ASSERT(!zka_prove(&pk2, &w, &rs, &pr, &o, NULL) && verify(&pk2, &w, &pr) == 0);
	zka_bp_free(&bp);
	zka_bp_free(&bp2);
	zka_pk_free(&pk);
	zka_pk_free(&pk2);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
}

/* The same toxic waste, snarkjs's root: the coset-H and the monomial-H keys differ only in H,
 * and give the same proof for the same r, s. */
static void test_cross_h(void)
{
	uint32_t sizes[3] = {5, 200, 3000};
	for (int t = 0; t < 3; t++) {
		zka_r1cs cs;
		zka_witness w;
		zka_toxic tw;
		zka_pk pc, pm;
		circuit(&cs, &w, sizes[t], 2);
		zka_toxic_from_seed(&tw, &zka_curve_bls12_381, 9 + t);
		CU_ASSERT_FATAL(!zka_setup(&cs, &tw, &pc, NULL, 2));
		CU_ASSERT_FATAL(
		    !zka_setup_kind(&cs, &tw, &pm, NULL, 2, ZKA_H_MONOMIAL, ZKA_ROOT_SNARKJS));
		CU_ASSERT(!memcmp(pc.A, pm.A, (size_t)pc.n_vars * 96));
		CU_ASSERT(memcmp(pc.H, pm.H, (size_t)pc.domain_size * 96));
		zka_rs rs;
		zka_proof a, b;
		rand_rs(&rs);
		for (int thr = 1; thr <= 3; thr += 2) {
			zka_prove_opts o = {.threads = thr};
			CU_ASSERT_FATAL(!zka_prove(&pc, &w, &rs, &a, &o, NULL));
			CU_ASSERT_FATAL(!zka_prove(&pm, &w, &rs, &b, &o, NULL));
			CU_ASSERT(!memcmp(a.a, b.a, 96) && !memcmp(a.b, b.b, 192) &&
				  !memcmp(a.c, b.c, 96));
			CU_ASSERT(verify(&pm, &w, &b) == 1);
		}
		/* a coset key with the bellperson root is refused */
		pc.root = ZKA_ROOT_GEN7;
		CU_ASSERT(zka_prove(&pc, &w, &rs, &a, NULL, NULL) == -EINVAL);
		zka_pk_free(&pc);
		zka_pk_free(&pm);
		zka_r1cs_free(&cs);
		zka_witness_free(&w);
	}
}

/* A .zkey's key converted (zka_bp_from_zkey_pk): its h is the bellperson setup's of the same
 * toxic waste byte for byte (the monomials do not depend on the roots), and so are the six vk
 * points; the whole file is the monomial-H key of snarkjs's root's; it proves with snarkjs's
 * root and not with bellperson's; a BN254 key and a monomial key are refused. */
static void test_convert(void)
{
	uint32_t sizes[3] = {5, 200, 1100}; /* domains 2^3, 2^8, 2^11 */
	char err[300] = "";
	for (int t = 0; t < 3; t++) {
		zka_r1cs cs;
		zka_witness w;
		zka_toxic tw;
		zka_pk pc, pm, pg, k1;
		zka_bp_params cv, bm, bg;
		circuit(&cs, &w, sizes[t], 3);
		zka_toxic_from_seed(&tw, &zka_curve_bls12_381, 21 + t);
		CU_ASSERT_FATAL(!zka_setup(&cs, &tw, &pc, NULL, 2));
		CU_ASSERT_FATAL(
		    !zka_setup_kind(&cs, &tw, &pm, NULL, 2, ZKA_H_MONOMIAL, ZKA_ROOT_SNARKJS));
		CU_ASSERT_FATAL(
		    !zka_setup_kind(&cs, &tw, &pg, NULL, 2, ZKA_H_MONOMIAL, ZKA_ROOT_GEN7));
		CU_ASSERT_FATAL(!zka_bp_from_zkey_pk(&pc, "c.zkey", &cv, 1 + t, err, sizeof err));
		CU_ASSERT_FATAL(!zka_bp_from_pk(&pm, &cs, &bm, err, sizeof err));
		CU_ASSERT_FATAL(!zka_bp_from_pk(&pg, &cs, &bg, err, sizeof err));
		/* h and the vk: the bellperson setup's (its own root), byte for byte */
		CU_ASSERT(cv.n_h == bg.n_h && cv.n_h == pc.domain_size - 1);
		CU_ASSERT(!memcmp(cv.h, bg.h, (size_t)cv.n_h * 96));
		CU_ASSERT(!memcmp(cv.alpha1, bg.alpha1, 96) && !memcmp(cv.beta1, bg.beta1, 96) &&
			  !memcmp(cv.beta2, bg.beta2, 192) && !memcmp(cv.gamma2, bg.gamma2, 192) &&
			  !memcmp(cv.delta1, bg.delta1, 96) && !memcmp(cv.delta2, bg.delta2, 192));
		/* a, b, l, ic: another numbering of the rows than bellperson's */
		CU_ASSERT(cv.n_a == bg.n_a && memcmp(cv.a, bg.a, (size_t)cv.n_a * 96));
		/* the whole file: the monomial-H key of snarkjs's root, every section */
		CU_ASSERT(cv.n_ic == bm.n_ic && cv.n_l == bm.n_l && cv.n_a == bm.n_a &&
			  cv.n_b1 == bm.n_b1 && cv.n_b2 == bm.n_b2);
		CU_ASSERT(!memcmp(cv.ic, bm.ic, (size_t)cv.n_ic * 96) &&
			  !memcmp(cv.l, bm.l, (size_t)cv.n_l * 96) &&
			  !memcmp(cv.a, bm.a, (size_t)cv.n_a * 96) &&
			  !memcmp(cv.b1, bm.b1, (size_t)cv.n_b1 * 96) &&
			  !memcmp(cv.b2, bm.b2, (size_t)cv.n_b2 * 192) &&
			  !memcmp(cv.h, bm.h, (size_t)cv.n_h * 96));
		/* written, read back (every point checked), expanded by the circuit: proves with
		 * snarkjs's root; with bellperson's the proof does not verify */
		CU_ASSERT_FATAL(!zka_bp_write(tmp("cv.params"), &cv, err, sizeof err));
		zka_bp_params rd;
		CU_ASSERT_FATAL(!zka_bp_read(tmp("cv.params"), &rd, 2, err, sizeof err));
		zka_rs rs;
		zka_proof pr, pr2;
		zka_prove_opts o = {.threads = 2};
		rand_rs(&rs);
		CU_ASSERT_FATAL(!zka_bp_to_pk(&rd, &cs, ZKA_ROOT_SNARKJS, &k1, err, sizeof err));
		CU_ASSERT_FATAL(!zka_prove(&k1, &w, &rs, &pr, &o, NULL));
		CU_ASSERT(verify(&k1, &w, &pr) == 1);
		CU_ASSERT_FATAL(!zka_prove(&pc, &w, &rs, &pr2, &o, NULL)); /* the .zkey's proof */
		CU_ASSERT(!memcmp(pr.a, pr2.a, 96) && !memcmp(pr.b, pr2.b, 192) &&
			  !memcmp(pr.c, pr2.c, 96));
		zka_pk_free(&k1);
		CU_ASSERT_FATAL(!zka_bp_to_pk(&rd, &cs, ZKA_ROOT_GEN7, &k1, err, sizeof err));
		CU_ASSERT_FATAL(!zka_prove(&k1, &w, &rs, &pr, &o, NULL));
		CU_ASSERT(verify(&k1, &w, &pr) == 0);
		zka_pk_free(&k1);
		zka_bp_free(&rd); /* (the refusals below leave rd zeroed) */
		/* refusals: a key whose B points name variables its coefficients do not (the
		 * list cut after A's constraint terms), a monomial key, a BN254 key */
		uint32_t nc = pc.n_coefs, na = 0;
		while (na < nc && pc.coefs[na].matrix == 0)
			na++;
		pc.n_coefs = na;
		err[0] = 0;
		CU_ASSERT(zka_bp_from_zkey_pk(&pc, "c.zkey", &rd, 1, err, sizeof err) == -EINVAL &&
			  strstr(err, "c.zkey: variable ") && strstr(err, "its B point"));
		pc.n_coefs = nc;
		err[0] = 0;
		CU_ASSERT(zka_bp_from_zkey_pk(&pm, "c.zkey", &rd, 1, err, sizeof err) == -EINVAL &&
			  strstr(err, "c.zkey: not a snarkjs (coset-H) key"));
		zka_bp_free(&cv);
		zka_bp_free(&bm);
		zka_bp_free(&bg);
		zka_pk_free(&pc);
		zka_pk_free(&pm);
		zka_pk_free(&pg);
		zka_r1cs_free(&cs);
		zka_witness_free(&w);
	}
	zka_r1cs cs;
	zka_witness w;
	zka_toxic tw;
	zka_pk pk;
	zka_bp_params bp;
	CU_ASSERT_FATAL(!zka_synthetic_circuit(&zka_curve_bn254, 20, 1, 3, &cs, &w));
	zka_toxic_from_seed(&tw, &zka_curve_bn254, 3);
	CU_ASSERT_FATAL(!zka_setup(&cs, &tw, &pk, NULL, 1));
	err[0] = 0;
	CU_ASSERT(zka_bp_from_zkey_pk(&pk, "c.zkey", &bp, 1, err, sizeof err) == -EINVAL &&
		  strstr(err, "BLS12-381 only") && !strchr(err, '\n'));
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
}

static void test_corrupt(void)
{
	zka_r1cs cs;
	zka_witness w;
	zka_toxic tw;
	zka_pk pk;
	zka_bp_params bp, rd;
	char err[300] = "";
	circuit(&cs, &w, 100, 2);
	zka_toxic_from_seed(&tw, &zka_curve_bls12_381, 5);
	CU_ASSERT_FATAL(!zka_setup_kind(&cs, &tw, &pk, NULL, 2, ZKA_H_MONOMIAL, ZKA_ROOT_GEN7));
	CU_ASSERT_FATAL(!zka_bp_from_pk(&pk, &cs, &bp, err, sizeof err));
	const char *good = tmp("good.params"), *bad = tmp("bad.params");
	CU_ASSERT_FATAL(!zka_bp_write(good, &bp, err, sizeof err));
	size_t n = 0;
	uint8_t *b = fmt_slurp(good, &n);
	CU_ASSERT_FATAL(b != NULL);
	/* the sections' offsets */
	static const char *name[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
	uint32_t cnt[6] = {bp.n_ic, bp.n_h, bp.n_l, bp.n_a, bp.n_b1, bp.n_b2};
	size_t off[6];
	CU_ASSERT_FATAL(zka_bp_file_layout(&bp, off) == n);
	/* a bad point at a random index of every section, twice */
	for (int s = 0; s < 6; s++)
		for (int rep = 0; rep < 2; rep++) {
			uint32_t i = (uint32_t)(zka_test_rand64() % cnt[s]);
			size_t ps = s == 5 ? 192 : 96, at = off[s] + i * ps + ps - 1;
			b[at] ^= 1; /* the last byte of y: off the curve */
			fmt_spit(bad, b, n);
			b[at] ^= 1;
			err[0] = 0;
			CU_ASSERT(zka_bp_read(bad, &rd, 2, err, sizeof err) == -EINVAL);
			char want[64];
			snprintf(want, sizeof want, "section %s index %u:", name[s], i);
			CU_ASSERT(strstr(err, want) != NULL);
			if (!strstr(err, want))
				fprintf(stderr, "want '%s', got '%s'\n", want, err);
		}
	/* a bad vk point */
	b[96 + 95] ^= 1;
	fmt_spit(bad, b, n);
	b[96 + 95] ^= 1;
	err[0] = 0;
	CU_ASSERT(zka_bp_read(bad, &rd, 2, err, sizeof err) == -EINVAL &&
		  strstr(err, "vk.beta_g1") != NULL);
	/* truncated: at random lengths */
	for (int rep = 0; rep < 4; rep++) {
		size_t len = (size_t)(zka_test_rand64() % n);
		fmt_spit(bad, b, len);
		err[0] = 0;
		CU_ASSERT(zka_bp_read(bad, &rd, 2, err, sizeof err) == -EINVAL &&
			  !strchr(err, '\n'));
		CU_ASSERT(strstr(err, "truncated") != NULL);
	}
	/* a bad count: h's one larger */
	b[off[1] - 1]++;
	fmt_spit(bad, b, n);
	b[off[1] - 1]--;
	err[0] = 0;
	CU_ASSERT(zka_bp_read(bad, &rd, 2, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "section") != NULL);
	/* extra bytes */
	uint8_t *x = malloc(n + 7);
	memcpy(x, b, n);
	memset(x + n, 0, 7);
	fmt_spit(bad, x, n + 7);
	err[0] = 0;
	CU_ASSERT(zka_bp_read(bad, &rd, 2, err, sizeof err) == -EINVAL &&
		  strstr(err, "7 extra bytes") != NULL);
	free(x);
	/* a count that does not fit the circuit */
	CU_ASSERT(!zka_bp_read(good, &rd, 2, err, sizeof err));
	rd.n_l--;
	zka_pk k2;
	err[0] = 0;
	CU_ASSERT(zka_bp_to_pk(&rd, &cs, ZKA_ROOT_GEN7, &k2, err, sizeof err) == -EINVAL &&
		  strstr(err, "l has"));
	rd.n_l++;
	zka_bp_free(&rd);
	free(b);
	zka_bp_free(&bp);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/zka-bp-XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		return 2;
	static const zka_test_case cases[] = {
	    {"gen7 root is blstrs's ROOT_OF_UNITY", test_root},
	    {"Zcash point encodings", test_points},
	    {".params round trip, prove, 192-byte proof", test_roundtrip_prove},
	    {"monomial H = coset H, byte for byte", test_cross_h},
	    {"corrupted .params refused naming section and index", test_corrupt},
	    {".zkey converted: h = bellperson setup's, proves with snarkjs's root", test_convert},
	    {NULL, NULL}};
	zka_test_suite("bellperson", cases);
	int r = zka_test_run();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd)) {
	}
	return r;
}

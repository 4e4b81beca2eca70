/* test_keys.c - the .zka format, the loader, resident keys and the params cache
 * (keys/zka_loader.h, keys/zka_keys.h, keys/zka_cache.h) on the snarkjs fixtures of
 * tests/data/fmt (both curves, both .zkey section orders): import -> load -> prove gives the
 * proof zka_prove gives from the .zkey (fixed r, s); every loader path (O_DIRECT with fixed
 * buffers, plain reads, buffered, tmpfs, depth 1 with 4 KiB reads) gives the file's bytes;
 * corrupt, truncated and mismatched files are refused naming the section; a key with an
 * off-curve point is refused at import naming section and index; a resident key is used
 * without opening the key file (the loader's open counter); the params cache hits, refuses,
 * and keeps or closes a replaced region as asked. */
#include "keys/zka_cache.h"
#include "keys/zka_keys.h"
#include "keys/zka_loader.h"
#include "tests/testutil.h"
#include "zk/abc.h"
#include "zk/bellperson.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/setup.h"
#include "zk/synthetic.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* the PRNG of tests/curvepts.h's point sampling */
static uint64_t rnd(void)
{
	return zka_test_rand64();
}
#include "tests/curvepts.h"

#ifndef ZKA_FMT_DATA
#error "ZKA_FMT_DATA must name tests/data/fmt"
#endif

static char tmpdir[256];
static int disk_direct; /* the file system of tmpdir takes O_DIRECT */
static int shm_direct;	/* /dev/shm does (tmpfs, Linux >= 6.6) */

static int takes_direct(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECT);
	void *buf = NULL;
	int ok = fd >= 0 && !posix_memalign(&buf, 4096, 4096) && pread(fd, buf, 4096, 0) >= 0;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok;
}

static const char *fixture(const char *name)
{
	static char p[4][800];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", ZKA_FMT_DATA, name);
	return p[k];
}

static const char *tmp(const char *name)
{
	static char p[4][800];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
	return p[k];
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(*n ? *n : 1);
	if (b && fread(b, 1, *n, f) != *n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static void spit(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fwrite(b, 1, n, f) == n);
	fclose(f);
}

/* The proof from a params region, as `zkarena prove` makes it. */
static int prove_params(const zka_params *p, const zka_witness *w, const zka_rs *rs,
			zka_proof *proof)
{
	size_t n = p->pk.domain_size;
	uint64_t(*a)[4] = malloc(n * 32), (*b)[4] = malloc(n * 32), (*c)[4] = malloc(n * 32),
	(*wm)[4] = malloc((size_t)w->n * 32);
	int r = -ENOMEM;
	if (a && b && c && wm) {
		r = zka_abc_witness_mem(p->pk.curve, (const uint64_t(*)[4])w->w, w->n, wm, NULL, 0,
					2)
			? -EINVAL
			: 0;
		if (!r)
			r = zka_abc_compute(&p->abc, (const uint64_t(*)[4])wm, NULL, NULL, a, b, c,
					    2);
		if (!r)
			r = zka_prove_abc(&p->pk, a, b, c, (const uint64_t(*)[4])w->w, rs, proof,
					  NULL, NULL);
	}
	free(a);
	free(b);
	free(c);
	free(wm);
	return r;
}

static int same_proof(const zka_proof *x, const zka_proof *y, const zka_curve *c)
{
	return !memcmp(x->a, y->a, zka_g1_bytes(c)) && !memcmp(x->b, y->b, zka_g2_bytes(c)) &&
	       !memcmp(x->c, y->c, zka_g1_bytes(c));
}

static const struct {
	const char *zkey, *wtns, *r1cs;
} keys[] = {
    {"bn128.nopub.zkey", "bn128.nopub.wtns", NULL},
    {"bn128.nopub.setup.zkey", "bn128.nopub.wtns", "bn128.nopub.r1cs"},
    {"bn128.mix.setup.zkey", "bn128.mix.wtns", "bn128.mix.r1cs"},
    {"bls12381.nopub.zkey", "bls12381.nopub.wtns", NULL},
    {"bls12381.nopub.setup.zkey", "bls12381.nopub.wtns", "bls12381.nopub.r1cs"},
};

/* import -> load (every loader path) -> prove == zka_prove from the .zkey */
static void test_identical_proofs(void)
{
	char err[1024];
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		zka_pk pk;
		zka_witness w;
		zka_proof ref, got;
		zka_rs rs;
		CU_ASSERT_FATAL(zka_zkey_read(fixture(keys[i].zkey), &pk, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_wtns_read(fixture(keys[i].wtns), &w, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_rs_random(&rs, pk.curve) == 0);
		CU_ASSERT_FATAL(zka_prove(&pk, &w, &rs, &ref, NULL, NULL) == 0);
		for (int with_r1cs = 0; with_r1cs < 1 + (keys[i].r1cs != NULL); with_r1cs++) {
			const char *zka = tmp("k.zka");
			int r = zka_keys_import(fixture(keys[i].zkey),
						with_r1cs ? fixture(keys[i].r1cs) : NULL, zka, 2, 0,
						err, sizeof err);
			CU_ASSERT_FATAL(r == 0);
			size_t flen;
			uint8_t *file = slurp(zka, &flen);
			CU_ASSERT_FATAL(file != NULL);
			CU_ASSERT(flen % 4096 == 0);
			/* a copy on tmpfs: O_DIRECT refused, buffered fallback */
			char shmcopy[128];
			snprintf(shmcopy, sizeof shmcopy, "/dev/shm/zka-test-%d.zka",
				 (int)getpid());
			spit(shmcopy, file, flen);
			struct {
				zka_loader_opts o;
				const char *path;
				int direct;
			} ways[] = {
			    {{.populate = -1, .quiet = 1}, zka, 1},
			    {{.populate = 1, .quiet = 1}, zka, 1},
			    {{.populate = 1, .pop_piece = 8192, .chunk = 16384, .quiet = 1},
			     zka,
			     1},
			    {{.populate = 1,
			      .pop_piece = 65536,
			      .depth = 3,
			      .threads = 1,
			      .quiet = 1},
			     zka,
			     1},
			    {{.populate = -1, .no_fixed = 1, .quiet = 1}, zka, 1},
			    {{.depth = 1, .chunk = 4096, .threads = 3, .quiet = 1}, zka, 1},
			    {{.buffered = 1, .depth = 2, .chunk = 8192}, zka, 0},
			    {{.quiet = 1}, shmcopy, 2},
			    {{.quiet = 0}, zka, 3},
			};
			for (size_t k = 0; k < sizeof ways / sizeof ways[0]; k++) {
				zka_params p;
				zka_loader_stats st;
				/* 2: tmpfs takes O_DIRECT since Linux 6.6, refused before; 3: the
				 * refusal simulated (the test hook), the buffered fallback taken */
				int want = ways[k].direct == 2	 ? shm_direct
					   : ways[k].direct == 3 ? 0
								 : ways[k].direct && disk_direct;
				if (ways[k].direct == 3)
					setenv("ZKA_TEST_REFUSE_DIRECT", "1", 1);
				r = zka_loader_load(ways[k].path, &ways[k].o, &p, &st, err,
						    sizeof err);
				unsetenv("ZKA_TEST_REFUSE_DIRECT");
				CU_ASSERT_FATAL(r == 0);
				CU_ASSERT(st.direct == want);
				/* populated ahead (plain reads), or fixed buffers (their
				 * registration faults the pages) */
				if (ways[k].o.populate) {
					CU_ASSERT(st.populated == (ways[k].o.populate > 0));
					CU_ASSERT(st.fixed ==
						  (ways[k].o.populate < 0 && !ways[k].o.no_fixed));
				}
				CU_ASSERT(p.size == flen);
				CU_ASSERT(memcmp(p.map, file, flen) == 0);
				CU_ASSERT(p.has_r1cs == with_r1cs);
				CU_ASSERT(p.pk.n_vars == pk.n_vars &&
					  p.pk.domain_size == pk.domain_size);
				if (with_r1cs) {
					zka_r1cs cs;
					CU_ASSERT_FATAL(zka_r1cs_read(fixture(keys[i].r1cs), &cs,
								      err, sizeof err) == 0);
					CU_ASSERT(p.cs.n_constraints == cs.n_constraints);
					for (int m = 0; m < 3; m++)
						CU_ASSERT(p.cs.m[m].n_terms == cs.m[m].n_terms &&
							  !memcmp(p.cs.m[m].value, cs.m[m].value,
								  32 * cs.m[m].n_terms));
					zka_r1cs_free(&cs);
				}
				memset(&got, 0, sizeof got);
				CU_ASSERT_FATAL(prove_params(&p, &w, &rs, &got) == 0);
				CU_ASSERT(same_proof(&ref, &got, pk.curve));
				zka_params_close(&p);
			}
			unlink(shmcopy);
			free(file);
		}
		/* the .zkey through the cache: imported the first time, read from the cache after
		 */
		for (int pass = 0; pass < 2; pass++) {
			zka_params p;
			zka_keys_info ki;
			zka_keys_opts ko = {.threads = 2};
			CU_ASSERT_FATAL(zka_keys_open(fixture(keys[i].zkey), &ko, &p, &ki, err,
						      sizeof err) == 0);
			CU_ASSERT(!ki.resident);
			CU_ASSERT(strstr(ki.how, pass ? "cached" : "imported") != NULL);
			CU_ASSERT_FATAL(prove_params(&p, &w, &rs, &got) == 0);
			CU_ASSERT(same_proof(&ref, &got, pk.curve));
			zka_params_close(&p);
		}
		zka_pk_free(&pk);
		zka_witness_free(&w);
	}
}

/* The header's checksum field: the 8 bytes at the first offset where they equal the XXH3 of
 * everything before them. */
static size_t checksum_at(const uint8_t *h)
{
	for (size_t k = 64; k < 2048; k += 8) {
		uint64_t v;
		memcpy(&v, h + k, 8);
		if (v == XXH3_64bits(h, k))
			return k;
	}
	return 0;
}

static void expect_refused(const char *path, const char *what)
{
	char err[1024] = "";
	zka_params p;
	uint64_t before = 0;
	int r = zka_loader_load(path, NULL, &p, NULL, err, sizeof err);
	CU_ASSERT(r == -EBADMSG);
	CU_ASSERT(strstr(err, what) != NULL);
	CU_ASSERT(strstr(err, path) != NULL);
	if (r == 0 || !strstr(err, what))
		fprintf(stderr, "\nwanted '%s', got: %s\n", what, err);
	CU_ASSERT(p.map == NULL);
	/* nothing left behind: no temporary region */
	(void)before;
}

static void test_bad_files(void)
{
	char err[1024];
	const char *zka = tmp("bad-src.zka"), *bad = tmp("bad.zka");
	CU_ASSERT_FATAL(zka_keys_import(fixture("bn128.mix.setup.zkey"), fixture("bn128.mix.r1cs"),
					zka, 2, 0, err, sizeof err) == 0);
	size_t n;
	uint8_t *f = slurp(zka, &n), *g = malloc(n + 8192);
	zka_params_info in;
	CU_ASSERT_FATAL(f && g && zka_params_header(f, &in, err, sizeof err) == 0);
	/* corrupt: one byte of each section with data, in turn */
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++) {
		if (!in.len[s])
			continue;
		memcpy(g, f, n);
		g[in.off[s] + (zka_test_rand64() % in.len[s])] ^= 1u << (zka_test_rand64() % 8);
		spit(bad, g, n);
		char want[128];
		snprintf(want, sizeof want, "section %s: checksum mismatch",
			 zka_params_section_name(s));
		expect_refused(bad, want);
	}
	/* truncated: inside H, inside the header */
	int sH = 11;
	CU_ASSERT(!strcmp(zka_params_section_name(sH), "H"));
	spit(bad, f, (size_t)in.off[sH] + 4096);
	expect_refused(bad, "section H: truncated");
	spit(bad, f, 100);
	expect_refused(bad, "header: truncated");
	/* mismatched: bytes past the end; a header whose counts do not fit the sections (checksum
	 * recomputed, so only the sizes disagree); another version; not a .zka at all */
	memcpy(g, f, n);
	memset(g + n, 0, 4096);
	spit(bad, g, n + 4096);
	expect_refused(bad, "mismatched");
	memcpy(g, f, n);
	size_t ck = checksum_at(g);
	CU_ASSERT_FATAL(ck != 0);
	uint32_t np;
	memcpy(&np, g + 20, 4); /* n_public: after the magic, version, curve and n_vars */
	CU_ASSERT(np == in.n_public);
	np++;
	memcpy(g + 20, &np, 4);
	uint64_t h = XXH3_64bits(g, ck);
	memcpy(g + ck, &h, 8);
	spit(bad, g, n);
	expect_refused(bad, "section IC: ");
	memcpy(g, f, n);
	g[9] ^= 1; /* the version's low byte... */
	h = XXH3_64bits(g, ck);
	memcpy(g + ck, &h, 8); /* ...with a valid checksum */
	spit(bad, g, n);
	expect_refused(bad, "header: version");
	memcpy(g, f, n);
	g[ck + 3] ^= 0x10;
	spit(bad, g, n);
	expect_refused(bad, "header: checksum mismatch");
	expect_refused(fixture("bn128.mix.setup.zkey"), "header: not a zkarena params file");
	free(f);
	free(g);
}

/* The loader's region consumer (prove --gpu registers the key's memory beside the reads): told
 * once, with the region's address and layout, before any section's bytes land; told to let go
 * before the region is unmapped when the load fails; a refusal fails the load. */
struct consumer {
	int told, dropped, refuse, zero_at_tell, mapped_at_drop;
	void *map;
	const void *p[5];
	size_t len[5];
};

static int on_region(void *arg, void *map, size_t size, const zka_params_info *in)
{
	struct consumer *c = arg;
	c->told++;
	c->map = map;
	zka_params_point_sections(in, map, c->p, c->len);
	/* nothing read yet: the point sections are the fresh region's zeros */
	c->zero_at_tell = 1;
	for (int i = 0; i < 5; i++)
		for (size_t k = 0; k < c->len[i]; k++)
			if (((const uint8_t *)c->p[i])[k]) {
				c->zero_at_tell = 0;
				break;
			}
	CU_ASSERT(size >= in->total);
	return c->refuse;
}

static void on_region_drop(void *arg)
{
	struct consumer *c = arg;
	c->dropped++;
	/* still mapped: the header's magic is readable */
	c->mapped_at_drop = !memcmp(c->map, "ZKAPARM1", 8);
}

static void test_region_consumer(void)
{
	char err[1024];
	const char *zka = tmp("cons.zka"), *bad = tmp("cons-bad.zka");
	CU_ASSERT_FATAL(zka_keys_import(fixture("bn128.mix.setup.zkey"), NULL, zka, 2, 0, err,
					sizeof err) == 0);
	zka_params p;
	struct consumer c = {0};
	zka_loader_opts o = {
	    .quiet = 1, .on_region = on_region, .on_region_drop = on_region_drop, .region_arg = &c};
	CU_ASSERT_FATAL(zka_loader_load(zka, &o, &p, NULL, err, sizeof err) == 0);
	CU_ASSERT(c.told == 1 && c.dropped == 0 && c.zero_at_tell == 1);
	CU_ASSERT(c.map == p.map);
	const void *q[5];
	size_t ql[5];
	zka_pk_point_sets(&p.pk, q, ql);
	for (int i = 0; i < 5; i++)
		CU_ASSERT(c.p[i] == q[i] && c.len[i] == ql[i] && ql[i] > 0);
	zka_params_close(&p);
	/* a corrupt file: told, then let go while the region is still mapped */
	size_t n;
	uint8_t *f = slurp(zka, &n);
	zka_params_info in;
	CU_ASSERT_FATAL(f && zka_params_header(f, &in, err, sizeof err) == 0);
	f[in.off[11] + 5] ^= 4; /* a byte of H */
	spit(bad, f, n);
	memset(&c, 0, sizeof c);
	CU_ASSERT(zka_loader_load(bad, &o, &p, NULL, err, sizeof err) == -EBADMSG);
	CU_ASSERT(strstr(err, "section H: checksum mismatch") != NULL);
	CU_ASSERT(c.told == 1 && c.dropped == 1 && c.mapped_at_drop == 1);
	/* truncated: refused before any region, so never told */
	spit(bad, f, (size_t)in.off[11] + 4096);
	memset(&c, 0, sizeof c);
	CU_ASSERT(zka_loader_load(bad, &o, &p, NULL, err, sizeof err) == -EBADMSG);
	CU_ASSERT(c.told == 0 && c.dropped == 0);
	/* the consumer refuses: the load fails with its error, nothing to let go */
	memset(&c, 0, sizeof c);
	c.refuse = -EPERM;
	CU_ASSERT(zka_loader_load(zka, &o, &p, NULL, err, sizeof err) == -EPERM);
	CU_ASSERT(strstr(err, zka) != NULL);
	CU_ASSERT(c.told == 1 && c.dropped == 0 && p.map == NULL);
	/* through zka_keys_open: the same callbacks reach the loader */
	memset(&c, 0, sizeof c);
	zka_keys_opts ko = {.no_resident = 1,
			    .on_region = on_region,
			    .on_region_drop = on_region_drop,
			    .region_arg = &c};
	CU_ASSERT_FATAL(zka_keys_open(zka, &ko, &p, NULL, err, sizeof err) == 0);
	CU_ASSERT(c.told == 1 && c.map == p.map && c.dropped == 0);
	zka_params_close(&p);
	free(f);
}

/* The .zkey section id's bytes in the iden3 container f (magic, version, count, then (type
 * u32, size u64, data)): offset into *off, size into *sz; 0 when absent. */
static int zkey_section(const uint8_t *f, size_t n, uint32_t want, size_t *off, size_t *sz)
{
	size_t o = 12;
	while (o + 12 <= n) {
		uint32_t id;
		uint64_t len;
		memcpy(&id, f + o, 4);
		memcpy(&len, f + o + 4, 8);
		if (id == want) {
			*off = o + 12;
			*sz = (size_t)len;
			return 1;
		}
		o += 12 + (size_t)len;
	}
	return 0;
}

/* A point of the curve (G1) or the twist (G2) of c outside the order-r subgroup, in the
 * .zkey's encoding (affine, Montgomery): from a random x, the cofactor not cleared, checked
 * off the subgroup by the r-multiple reference (not by the tests under test). */
static void off_subgroup_point(const zka_curve *c, int g2, uint8_t *out)
{
	if (c->id == ZKA_BN254) {
		CU_ASSERT_FATAL(g2); /* BN254's G1 has cofactor 1 */
		bn254_g2_aff a;
		do
			rand_curve_g2_bn254(&a);
		while (bn254_g2_aff_in_group_ref(&a));
		memcpy(out, &a, sizeof a);
	} else if (g2) {
		bls12_381_g2_aff a;
		do
			rand_curve_g2_bls12_381(&a);
		while (bls12_381_g2_aff_in_group_ref(&a));
		memcpy(out, &a, sizeof a);
	} else {
		bls12_381_g1_aff a;
		do
			rand_curve_g1_bls12_381(&a);
		while (bls12_381_g1_aff_in_group_ref(&a));
		memcpy(out, &a, sizeof a);
	}
}

/* Entries of dir whose names start with prefix ("" : all but . and ..). */
static int dir_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* A .zkey with one bad point planted at a random section (IC, A, B1, B2, C, H) and a random
 * index, either moved off the curve (y + 1) or replaced by a point of the curve outside the
 * subgroup (for the groups with a cofactor: BN254 G2, BLS12-381 G1 and G2), is refused at
 * import naming the section and the index; nothing is written. 24 plants a run, fresh; one
 * round in three by the sequential import (ZKA_IMPORT_SEQUENTIAL), the others overlapped. */
static void test_planted(void)
{
	unsetenv("ZKA_IMPORT_SEQUENTIAL");
	static const char *zkeys[] = {"bn128.mix.setup.zkey", "bn128.nopub.zkey",
				      "bls12381.nopub.zkey", "bls12381.nopub.setup.zkey"};
	static const struct {
		uint32_t zsect; /* the .zkey section */
		const char *name;
		int g2;
	} sects[] = {{3, "IC", 0}, {5, "A", 0}, {6, "B1", 0},
		     {7, "B2", 1}, {8, "C", 0}, {9, "H", 0}};
	int seen_group[2][2] = {{0}}; /* [curve][g2]: an off-subgroup plant was made */
	for (int round = 0; round < 24; round++) {
		const char *name = zkeys[round % 4];
		size_t n, off = 0, sz = 0;
		uint8_t *f = slurp(fixture(name), &n);
		CU_ASSERT_FATAL(f != NULL);
		const zka_curve *c =
		    strstr(name, "bn128") ? &zka_curve_bn254 : &zka_curve_bls12_381;
		/* rounds 0-3 plant into B2 and rounds 12-15 into a G1 section, off the subgroup
		 * where the group has a cofactor, so each such group is planted every run; the
		 * others pick the section and the kind at random */
		int forced = round < 4 || (round >= 12 && round < 16);
		int si = round < 4 ? 3 : (int)(zka_test_rand64() % 6);
		while (round >= 12 && round < 16 && si == 3)
			si = (int)(zka_test_rand64() % 6);
		int g2 = sects[si].g2;
		CU_ASSERT_FATAL(zkey_section(f, n, sects[si].zsect, &off, &sz));
		size_t psz = g2 ? zka_g2_bytes(c) : zka_g1_bytes(c);
		uint32_t npts = (uint32_t)(sz / psz), k = 0, idx = 0;
		/* the first point that is not infinity, from a random start */
		uint32_t start = (uint32_t)(zka_test_rand64() % npts);
		for (k = 0; k < npts; k++) {
			idx = (start + k) % npts;
			uint8_t *pt = f + off + (size_t)idx * psz;
			int zero = 1;
			for (size_t b = 0; b < psz && zero; b++)
				zero = pt[b] == 0;
			if (!zero)
				break;
		}
		CU_ASSERT_FATAL(k < npts);
		uint8_t *pt = f + off + (size_t)idx * psz;
		int has_cofactor = g2 || c->id != ZKA_BN254;
		int group = has_cofactor && (forced || (zka_test_rand64() & 1));
		if (group) {
			off_subgroup_point(c, g2, pt);
			CU_ASSERT((g2 ? c->g2_check(pt) : c->g1_check(pt)) == ZKA_ENOTINGROUP);
			seen_group[c->id == ZKA_BN254][g2] = 1;
		} else {
			/* y (the last coordinate) + 1 in its lowest limb: still below q with
			 * overwhelming odds, and off the curve */
			uint8_t *y = pt + psz - c->n8q;
			uint64_t lo;
			memcpy(&lo, y, 8);
			lo += 1;
			memcpy(y, &lo, 8);
		}
		const char *zk = tmp("planted.zkey"), *out = tmp("planted.zka");
		spit(zk, f, n);
		unlink(out);
		char err[1024] = "", want[128];
		/* odd rounds by the per-point path, even ones batched (BN254 G2); one odd round in
		 * two by the r*P reference checks */
		if (round & 1)
			setenv("ZKA_VALIDATE_EXACT", (round & 4) ? "ref" : "1", 1);
		/* one round in three by the sequential import, the others overlapped (the
		 * points validated from the parsed key while the image is built) */
		if (round % 3 == 2)
			setenv("ZKA_IMPORT_SEQUENTIAL", "1", 1);
		int r = zka_keys_import(zk, NULL, out, 2, 0, err, sizeof err);
		unsetenv("ZKA_VALIDATE_EXACT");
		unsetenv("ZKA_IMPORT_SEQUENTIAL");
		const char *what = group ? "not in the subgroup" : "not on the curve";
		if (sects[si].zsect == 3) /* IC is checked by the .zkey reader */
			snprintf(want, sizeof want, "IC[%u]: point %s", idx, what);
		else
			snprintf(want, sizeof want, "section %s: point %u is %s", sects[si].name,
				 idx, what);
		CU_ASSERT(r == -EINVAL);
		CU_ASSERT(strstr(err, want) != NULL);
		if (!strstr(err, want))
			fprintf(stderr, "\n%s: wanted '%s', got: %s\n", name, want, err);
		CU_ASSERT(access(out, F_OK) != 0);
		CU_ASSERT(dir_entries(tmpdir, ".planted.zka.tmp") == 0); /* its mapped temporary */
		free(f);
	}
	CU_ASSERT(seen_group[1][1] && seen_group[0][0] && seen_group[0][1]);
}

/* This process's temporary regions in /dev/shm (/zka-load.PID.*: an import's before it is
 * published). */
static int shm_temporaries(void)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "zka-load.%d.", (int)getpid());
	return dir_entries("/dev/shm", prefix);
}

/* A synthetic BN254 key whose B2 holds a few thousand points (batches of the batched G2 test,
 * zk/subgroup_batch_tmpl.h, split over 2 threads): the .zka of the batched import is
 * byte-identical to ZKA_VALIDATE_EXACT=1's and to the cache entry zka_keys_open writes
 * (during validation); with one or two off-subgroup or off-curve points planted at random
 * indices of B2, both paths refuse it naming the section and the lowest index, by
 * zka_keys_import and by zka_keys_open (also into a named region, overlapped and sequential),
 * and leave nothing: no .zka, no temporary file beside it, no cache entry or temporary in the
 * cache directory, no region published or left under a temporary name. */
static void test_planted_batched(void)
{
	zka_r1cs cs;
	zka_witness w;
	zka_pk pk;
	zka_toxic tw;
	char err[1024] = "";
	const zka_curve *c = &zka_curve_bn254;
	CU_ASSERT_FATAL(zka_synthetic_circuit(c, 3000, 2, zka_test_rand64(), &cs, &w) == 0);
	zka_toxic_from_seed(&tw, c, zka_test_rand64());
	CU_ASSERT_FATAL(zka_setup(&cs, &tw, &pk, NULL, 2) == 0);
	const char *zk = tmp("batch.zkey"), *a = tmp("batch.zka"), *b = tmp("batch-exact.zka");
	CU_ASSERT_FATAL(zka_zkey_write(zk, &pk, 0, err, sizeof err) == 0);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
	CU_ASSERT_FATAL(zka_keys_import(zk, NULL, a, 2, 0, err, sizeof err) == 0);
	setenv("ZKA_VALIDATE_EXACT", "1", 1);
	CU_ASSERT_FATAL(zka_keys_import(zk, NULL, b, 2, 0, err, sizeof err) == 0);
	unsetenv("ZKA_VALIDATE_EXACT");
	size_t na, nb, nc, n, off = 0, sz = 0;
	char *prev = getenv("ZKARENA_CACHE") ? strdup(getenv("ZKARENA_CACHE")) : NULL;
	char cdir[800];
	snprintf(cdir, sizeof cdir, "%s", tmp("cache-g2"));
	setenv("ZKARENA_CACHE", cdir, 1);
	zka_params p;
	zka_keys_info ki;
	zka_keys_opts ko = {0};
	CU_ASSERT_FATAL(zka_keys_open(zk, &ko, &p, &ki, err, sizeof err) == 0);
	zka_params_close(&p);
	uint8_t *x = slurp(a, &na), *y = slurp(b, &nb), *z = slurp(ki.file, &nc);
	CU_ASSERT(x && y && na == nb && !memcmp(x, y, na));
	CU_ASSERT(z && nc == na && !memcmp(x, z, na));
	CU_ASSERT(dir_entries(cdir, "") == 1);
	unlink(ki.file);
	free(z);
	/* validated behind the proof (prove's way): open returns, validated says 0, the cache
	 * entry is committed then and is the same image */
	zka_keys_opts kd = {.defer_validate = 1};
	CU_ASSERT_FATAL(zka_keys_open(zk, &kd, &p, &ki, err, sizeof err) == 0);
	CU_ASSERT(p.pending != NULL);
	CU_ASSERT(zka_keys_validated(&p, err, sizeof err) == 0);
	CU_ASSERT(p.pending == NULL);
	zka_params_close(&p);
	z = slurp(ki.file, &nc);
	CU_ASSERT(z && nc == na && !memcmp(x, z, na));
	CU_ASSERT(dir_entries(cdir, "") == 1);
	unlink(ki.file);
	free(x);
	free(y);
	free(z);
	uint8_t *f = slurp(zk, &n);
	CU_ASSERT_FATAL(f && zkey_section(f, n, 7, &off, &sz));
	const size_t psz = zka_g2_bytes(c);
	uint32_t npts = (uint32_t)(sz / psz);
	CU_ASSERT_FATAL(npts >= 2048);
	uint8_t *keep = malloc(sz);
	CU_ASSERT_FATAL(keep != NULL);
	memcpy(keep, f + off, sz);
	for (int round = 0; round < 8; round++) {
		uint32_t idx[2], low = UINT32_MAX;
		int group[2], lowgroup = 0;
		for (int k = 0; k < 1 + (round >= 4); k++) {
			uint8_t *pt;
			do { /* a point that is not infinity */
				idx[k] = (uint32_t)(zka_test_rand64() % npts);
				pt = f + off + (size_t)idx[k] * psz;
			} while (pt[0] == 0 && !memcmp(pt, pt + 1, psz - 1));
			group[k] = round % 4 != 3 && !(round == 6 && k == 1);
			if (group[k]) {
				off_subgroup_point(c, 1, pt);
			} else {
				uint64_t lo;
				memcpy(&lo, pt + psz - c->n8q, 8);
				lo += 1;
				memcpy(pt + psz - c->n8q, &lo, 8);
			}
			if (idx[k] <= low) { /* the same index twice: the last plant stays */
				low = idx[k];
				lowgroup = group[k];
			}
		}
		const char *pz = tmp("planted-b.zkey"), *out = tmp("planted-b.zka");
		spit(pz, f, n);
		char want[128];
		snprintf(want, sizeof want, "section B2: point %u is %s", low,
			 lowgroup ? "not in the subgroup" : "not on the curve");
		for (int exact = 0; exact < 2; exact++) {
			unlink(out);
			if (exact)
				setenv("ZKA_VALIDATE_EXACT", "1", 1);
			int r = zka_keys_import(pz, NULL, out, 2, 0, err, sizeof err);
			unsetenv("ZKA_VALIDATE_EXACT");
			CU_ASSERT(r == -EINVAL && strstr(err, want) != NULL);
			if (!strstr(err, want))
				fprintf(stderr, "\nexact=%d: wanted '%s', got: %s\n", exact, want,
					err);
			CU_ASSERT(access(out, F_OK) != 0);
			CU_ASSERT(dir_entries(tmpdir, ".planted-b.zka.tmp") == 0);
			if (exact)
				setenv("ZKA_VALIDATE_EXACT", "1", 1);
			r = zka_keys_open(pz, &ko, &p, &ki, err, sizeof err);
			unsetenv("ZKA_VALIDATE_EXACT");
			CU_ASSERT(r == -EINVAL && strstr(err, want) != NULL);
			CU_ASSERT(dir_entries(cdir, "") == 0);
			/* into a named region (the pipeline's way), overlapped and sequential:
			 * refused with the same words, nothing published, no temporary left */
			for (int sq = 0; sq < 2; sq++) {
				zka_keys_opts kn = {.shm = "", .no_cache = 1};
				char name[64];
				if (sq)
					setenv("ZKA_IMPORT_SEQUENTIAL", "1", 1);
				if (exact)
					setenv("ZKA_VALIDATE_EXACT", "1", 1);
				err[0] = 0;
				r = zka_keys_open(pz, &kn, &p, &ki, err, sizeof err);
				unsetenv("ZKA_VALIDATE_EXACT");
				unsetenv("ZKA_IMPORT_SEQUENTIAL");
				CU_ASSERT(r == -EINVAL && strstr(err, want) != NULL);
				if (!strstr(err, want))
					fprintf(stderr,
						"\nnamed, sequential=%d: wanted '%s', got: %s\n",
						sq, want, err);
				CU_ASSERT(zka_keys_find_resident(pz, NULL, name) == -ENOENT);
				CU_ASSERT(shm_temporaries() == 0);
			}
			/* deferred: the key opens, then validated refuses it with the same words;
			 * no cache entry or temporary is left; closing it then is safe */
			err[0] = 0;
			r = zka_keys_open(pz, &kd, &p, &ki, err, sizeof err);
			CU_ASSERT_FATAL(r == 0);
			r = zka_keys_validated(&p, err, sizeof err);
			CU_ASSERT(r == -EINVAL && strstr(err, want) != NULL);
			if (!strstr(err, want))
				fprintf(stderr, "\ndeferred: wanted '%s', got: %s\n", want, err);
			zka_params_close(&p);
			CU_ASSERT(dir_entries(cdir, "") == 0);
			/* and closed without waiting (an error path before the proof): joined */
			CU_ASSERT_FATAL(zka_keys_open(pz, &kd, &p, &ki, err, sizeof err) == 0);
			zka_params_close(&p);
			CU_ASSERT(dir_entries(cdir, "") == 0);
		}
		memcpy(f + off, keep, sz);
	}
	if (prev)
		setenv("ZKARENA_CACHE", prev, 1);
	else
		unsetenv("ZKARENA_CACHE");
	free(prev);
	free(keep);
	free(f);
}

/* The import's image does not depend on the threads that validate and fill it: 1 and 3
 * threads give byte-identical .zka files, on both curves, with and without the r1cs. */
static void test_import_identical(void)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char err[1024];
		const char *a = tmp("t1.zka"), *b = tmp("t3.zka");
		char r1cs_p[800], zkey_p[800]; /* fixture's buffers rotate */
		const char *r1cs = keys[i].r1cs ? strcpy(r1cs_p, fixture(keys[i].r1cs)) : NULL;
		const char *zkey = strcpy(zkey_p, fixture(keys[i].zkey));
		CU_ASSERT_FATAL(zka_keys_import(zkey, r1cs, a, 1, 0, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_keys_import(zkey, r1cs, b, 3, 0, err, sizeof err) == 0);
		size_t na, nb;
		uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
		CU_ASSERT(x && y && na == nb && !memcmp(x, y, na));
		free(y);
		/* the sequential import (stages one after the other, the region's points
		 * validated): the same bytes; the stages' times say which ran */
		zka_keys_times tm;
		zka_keys_last_times(&tm);
		CU_ASSERT(tm.overlapped == 1 && tm.wall > 0);
		CU_ASSERT(tm.wall + 1e-6 >= tm.parse + tm.csr + tm.fill);
		setenv("ZKA_IMPORT_SEQUENTIAL", "1", 1);
		CU_ASSERT_FATAL(zka_keys_import(zkey, r1cs, b, 2, 0, err, sizeof err) == 0);
		unsetenv("ZKA_IMPORT_SEQUENTIAL");
		zka_keys_last_times(&tm);
		CU_ASSERT(tm.overlapped == 0);
		CU_ASSERT(tm.wall + 1e-6 >= tm.read + tm.parse + tm.csr + tm.fill + tm.validate);
		y = slurp(b, &nb);
		CU_ASSERT(x && y && na == nb && !memcmp(x, y, na));
		free(y);
		/* named regions (the pipeline's): overlapped and sequential, the same bytes as the
		 * file's but the residency record, which says when and how it was made */
		for (int sq = 0; sq < 2; sq++) {
			zka_params p;
			zka_keys_info ki;
			char name[64];
			snprintf(name, sizeof name, "/zka-test-ovl.%d.%d", (int)getpid(), sq);
			zka_keys_opts kn = {
			    .shm = name, .no_cache = 1, .no_resident = 1, .r1cs = r1cs};
			if (sq)
				setenv("ZKA_IMPORT_SEQUENTIAL", "1", 1);
			int r = zka_keys_open(zkey, &kn, &p, &ki, err, sizeof err);
			unsetenv("ZKA_IMPORT_SEQUENTIAL");
			if (r)
				fprintf(stderr, "\nnamed, sequential=%d: %s\n", sq, err);
			CU_ASSERT_FATAL(r == 0);
			CU_ASSERT(!strcmp(ki.shm, name) && p.size == na);
			CU_ASSERT(x && p.size == na && !memcmp(p.map, x, ZKA_PARAMS_RES_OFF) &&
				  !memcmp((uint8_t *)p.map + ZKA_PARAMS_HDR, x + ZKA_PARAMS_HDR,
					  na - ZKA_PARAMS_HDR));
			zka_params_close(&p);
			shm_unlink(name);
		}
		/* the r*P reference checks and the per-point path: the same keys, the same bytes */
		static const char *modes[] = {"ref", "1"};
		for (int m = 0; m < 2; m++) {
			setenv("ZKA_VALIDATE_EXACT", modes[m], 1);
			int r = zka_keys_import(zkey, r1cs, b, 2, 0, err, sizeof err);
			unsetenv("ZKA_VALIDATE_EXACT");
			if (r)
				fprintf(stderr, "\nZKA_VALIDATE_EXACT=%s: %s\n", modes[m], err);
			CU_ASSERT_FATAL(r == 0);
			y = slurp(b, &nb);
			CU_ASSERT(x && y && na == nb && !memcmp(x, y, na));
			free(y);
		}
		free(x);
	}
}

/* A resident region serves the key's .zka and its .zkey without a key file being opened. */
static void test_resident(void)
{
	char err[1024], name[64];
	const char *zka = tmp("res.zka");
	CU_ASSERT_FATAL(
	    zka_keys_import(fixture("bls12381.nopub.zkey"), NULL, zka, 2, 0, err, sizeof err) == 0);
	zka_params p, q;
	zka_keys_info ki;
	zka_keys_opts load = {.shm = ""}, use = {0};
	CU_ASSERT_FATAL(zka_keys_open(zka, &load, &p, &ki, err, sizeof err) == 0);
	CU_ASSERT(strncmp(ki.shm, "/zka-key.", 9) == 0);
	CU_ASSERT(zka_keys_find_resident(zka, NULL, name) == 0 && !strcmp(name, ki.shm));
	CU_ASSERT(zka_keys_find_resident(fixture("bls12381.nopub.zkey"), NULL, name) == 0);
	zka_params_res res;
	CU_ASSERT(zka_params_residency(p.map, &res) == 0 && (int)res.direct == disk_direct);
	zka_params_close(&p);
	const char *paths[2] = {zka, fixture("bls12381.nopub.zkey")};
	for (int i = 0; i < 2; i++) {
		uint64_t before = zka_loader_key_opens();
		CU_ASSERT_FATAL(zka_keys_open(paths[i], &use, &q, &ki, err, sizeof err) == 0);
		CU_ASSERT(ki.resident == 1);
		CU_ASSERT(zka_loader_key_opens() == before); /* no key file opened */
		zka_params_close(&q);
	}
	zka_keys_region *v;
	int n = zka_keys_list(&v), seen = 0;
	for (int i = 0; i < n; i++)
		seen += !strcmp(v[i].name, ki.shm) && v[i].resident && v[i].ok && v[i].has_res;
	free(v);
	CU_ASSERT(seen == 1);
	CU_ASSERT(zka_keys_evict(ki.shm + 9, err, sizeof err) == 0);
	CU_ASSERT(zka_keys_find_resident(zka, NULL, name) == -ENOENT);
	/* evicted: the next open reads the file again, and the counter sees it */
	uint64_t before = zka_loader_key_opens();
	CU_ASSERT_FATAL(zka_keys_open(zka, &use, &q, &ki, err, sizeof err) == 0);
	CU_ASSERT(ki.resident == 0);
	CU_ASSERT(zka_loader_key_opens() > before);
	zka_params_close(&q);
	CU_ASSERT(zka_keys_evict("0000nosuchkey", err, sizeof err) == -ENOENT);
}

/* How many mappings of /dev/shm NAME this process holds. */
static int mappings_of(const char *name)
{
	char line[1024], want[96];
	snprintf(want, sizeof want, "/dev/shm%s", name);
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		n += strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* A stand-in for the device checker (zka_keys_set_checker): the curve's own per-point checks,
 * counting its calls and points, so that the tests see which sections reach it. */
static struct {
	int calls;
	uint64_t points;
} fake_dev;

static int fake_check(void *arg, const zka_curve *c, int g2, const void *pts, size_t n,
		      uint64_t *bad, int *code, char *err, size_t errlen)
{
	(void)arg, (void)err, (void)errlen;
	fake_dev.calls++;
	fake_dev.points += n;
	*bad = UINT64_MAX;
	size_t sz = g2 ? zka_g2_bytes(c) : zka_g1_bytes(c);
	for (size_t i = 0; i < n; i++) {
		int r = g2 ? c->g2_check((const uint8_t *)pts + i * sz)
			   : c->g1_check((const uint8_t *)pts + i * sz);
		if (r) {
			*bad = i, *code = r;
			break;
		}
	}
	return 0;
}

/* A bellperson .params (setup --format bellperson's layout) with a point of the curve outside
 * the order-r subgroup planted at a random index of a random section (ic, h, l, a, b_g1, b_g2):
 * its reader checks only the curve (ZKA_BP_READ_CURVE_ONLY) and leaves the subgroup to
 * zka_keys_check_sections, so the import must still refuse it naming that section and
 * index, on the CPU and on the device checker (here fake_check, forced by
 * ZKA_VALIDATE_ON=gpu), writing nothing; zka_bp_read's own checks name it too. The good file
 * imports, its sections seen by the checker. 8 plants a run, each section G1/G2 by turns. */
static void test_params_planted(void)
{
	static const char *name[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
	zka_r1cs cs;
	zka_witness w;
	zka_toxic tw;
	zka_pk pk;
	zka_bp_params bp, rd;
	char err[1024] = "";
	const zka_curve *c = &zka_curve_bls12_381;
	CU_ASSERT_FATAL(!zka_synthetic_circuit(c, 200, 2, 11, &cs, &w));
	zka_toxic_from_seed(&tw, c, 9);
	CU_ASSERT_FATAL(!zka_setup_kind(&cs, &tw, &pk, NULL, 2, ZKA_H_MONOMIAL, ZKA_ROOT_GEN7));
	CU_ASSERT_FATAL(!zka_bp_from_pk(&pk, &cs, &bp, err, sizeof err));
	const char *good = tmp("pl-good.params"), *bad = tmp("pl-bad.params"), *r1 = tmp("pl.r1cs"),
		   *out = tmp("pl.zka");
	CU_ASSERT_FATAL(!zka_bp_write(good, &bp, err, sizeof err));
	CU_ASSERT_FATAL(!zka_r1cs_write(r1, &cs, err, sizeof err));
	/* the good file: imported, its six sections on the (fake) device */
	setenv("ZKA_VALIDATE_ON", "gpu", 1);
	zka_keys_set_checker(fake_check, NULL, "the fake device");
	memset(&fake_dev, 0, sizeof fake_dev);
	unlink(out);
	CU_ASSERT(zka_keys_import(good, r1, out, 2, 0, err, sizeof err) == 0);
	uint64_t all = (uint64_t)bp.n_ic + bp.n_h + bp.n_l + bp.n_a + bp.n_b1 + bp.n_b2;
	CU_ASSERT(fake_dev.points == all && fake_dev.calls >= 5);
	CU_ASSERT(access(out, F_OK) == 0);
	size_t n = 0;
	uint8_t *f = slurp(good, &n);
	CU_ASSERT_FATAL(f != NULL);
	uint32_t cnt[6] = {bp.n_ic, bp.n_h, bp.n_l, bp.n_a, bp.n_b1, bp.n_b2};
	size_t off[6];
	CU_ASSERT_FATAL(zka_bp_file_layout(&bp, off) == n);
	for (int round = 0; round < 8; round++) {
		/* b_g2 (G2) every other round, a G1 section at random otherwise */
		int s = round & 1 ? 5 : (int)(zka_test_rand64() % 5);
		uint32_t i = (uint32_t)(zka_test_rand64() % cnt[s]);
		size_t ps = s == 5 ? 192 : 96;
		uint8_t *at = f + off[s] + i * ps, keep[192], pt[192];
		memcpy(keep, at, ps);
		off_subgroup_point(c, s == 5, pt);
		if (s == 5)
			zka_bp_g2_encode(pt, at);
		else
			zka_bp_g1_encode(pt, at);
		spit(bad, f, n);
		memcpy(at, keep, ps);
		char want[64];
		/* zka_bp_read (every check on the CPU) */
		err[0] = 0;
		snprintf(want, sizeof want, "section %s index %u: not in the", name[s], i);
		CU_ASSERT(zka_bp_read(bad, &rd, 2, err, sizeof err) == -EINVAL &&
			  strstr(err, want) != NULL);
		/* its curve-only read passes it: the subgroup is the caller's */
		CU_ASSERT(zka_bp_read_flags(bad, &rd, 2, ZKA_BP_READ_CURVE_ONLY, err, sizeof err) ==
			  0);
		zka_bp_free(&rd);
		/* the import: on the fake device, then on the CPU */
		snprintf(want, sizeof want, "section %s: point %u is not in the subgroup", name[s],
			 i);
		for (int dev = 1; dev >= 0; dev--) {
			setenv("ZKA_VALIDATE_ON", dev ? "gpu" : "cpu", 1);
			memset(&fake_dev, 0, sizeof fake_dev);
			unlink(out);
			err[0] = 0;
			int r = zka_keys_import(bad, r1, out, 2, 0, err, sizeof err);
			CU_ASSERT(r == -EINVAL && strstr(err, want) && strstr(err, bad) &&
				  !strchr(err, '\n'));
			if (r != -EINVAL || !strstr(err, want))
				fprintf(stderr, "\nwanted '%s' (%s), got %d: %s\n", want,
					dev ? "device" : "cpu", r, err);
			CU_ASSERT(dev ? fake_dev.calls > 0 : fake_dev.calls == 0);
			CU_ASSERT(access(out, F_OK) != 0); /* nothing written */
			CU_ASSERT(dir_entries(tmpdir, ".pl.zka.tmp") == 0);
		}
	}
	zka_keys_set_checker(NULL, NULL, NULL);
	unsetenv("ZKA_VALIDATE_ON");
	free(f);
	zka_bp_free(&bp);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
}

/* An arena NAME with circuit entry 0 LOADED from params region shm. */
static struct zka_arena *cache_arena(const char *name, const char *shm)
{
	struct zka_arena_params ap = {.nslots = 1, .slot_bytes = 4096, .numa_node = -1};
	struct zka_arena *a = NULL;
	const char *msg = NULL;
	zka_arena_destroy(name);
	CU_ASSERT_FATAL(zka_arena_create(name, &ap, &a, &msg) == 0);
	struct zka_circuit_key k = {.key_path = "/test/k1.zkey", .key_size = 1, .header_hash = 7};
	uint32_t idx = 99;
	CU_ASSERT_FATAL(zka_circuit_claim(a, &k, &idx) == 0 && idx == 0);
	CU_ASSERT_FATAL(zka_circuit_publish(a, 0, shm) == 0);
	return a;
}

/* The params cache (keys/zka_cache.h): hits, refusals, and a replaced region kept mapped
 * (keep > 0) or closed (keep = 0). */
static void test_params_cache(void)
{
	char err[1024] = "", arena[64], r1[64], r2[64];
	snprintf(arena, sizeof arena, "t-keys-cache-%d", (int)getpid());
	snprintf(r1, sizeof r1, "/zka-tk-cache1-%d", (int)getpid());
	snprintf(r2, sizeof r2, "/zka-tk-cache2-%d", (int)getpid());
	zka_pk pk;
	zka_r1cs cs;
	CU_ASSERT_FATAL(zka_params_read_files(fixture("bn128.nopub.zkey"), NULL, &pk, &cs, err,
					      sizeof err) == 0);
	CU_ASSERT_FATAL(zka_params_create(r1, &pk, NULL, err, sizeof err) == 0);
	CU_ASSERT_FATAL(zka_params_create(r2, &pk, NULL, err, sizeof err) == 0);
	struct zka_arena *a = cache_arena(arena, r1);
	zka_params_cache *keep = zka_params_cache_new(1), *drop = zka_params_cache_new(0);
	CU_ASSERT_FATAL(keep && drop);
	const zka_params *p = zka_params_cache_get(keep, a, 0, err, sizeof err);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(p->pk.n_vars == pk.n_vars && p->abc.n_vals > 0);
	CU_ASSERT(zka_params_cache_get(keep, a, 0, err, sizeof err) == p); /* a hit */
	const uint64_t(*vs)[4] = zka_params_cache_values_std(keep, 0);
	CU_ASSERT(vs != NULL && zka_params_cache_values_std(keep, 0) == vs);
	CU_ASSERT(zka_params_cache_values_std(keep, 1) == NULL); /* not open here */
	CU_ASSERT_FATAL(zka_params_cache_get(drop, a, 0, err, sizeof err) != NULL);
	CU_ASSERT(mappings_of(r1) == 2);
	/* refusals: no such entry, an entry not LOADED, a region that is not there */
	CU_ASSERT(zka_params_cache_get(keep, a, 300, err, sizeof err) == NULL);
	CU_ASSERT(strstr(err, "circuit 300: no such entry") != NULL);
	struct zka_circuit_key k2 = {.key_path = "/test/k2.zkey", .key_size = 2};
	uint32_t idx;
	CU_ASSERT_FATAL(zka_circuit_claim(a, &k2, &idx) == 0 && idx == 1);
	CU_ASSERT(zka_params_cache_get(keep, a, 1, err, sizeof err) == NULL);
	CU_ASSERT(strstr(err, "circuit 1 (/test/k2.zkey): not loaded") != NULL);
	CU_ASSERT(zka_params_owner_check(a, "/zka-tk-no-such-region", err, sizeof err) == -ENOENT);
	CU_ASSERT(strstr(err, "params region /zka-tk-no-such-region") != NULL);
	CU_ASSERT(zka_params_owner_check(a, "/a/b", err, sizeof err) == -EINVAL);
	CU_ASSERT(zka_params_owner_check(a, r1, err, sizeof err) == 0);
	/* entry 0 now names another region (the arena made again): both caches reopen it; the
	 * keeping one still maps the old region, the other has closed it */
	zka_arena_close(a);
	a = cache_arena(arena, r2);
	const zka_params *q = zka_params_cache_get(keep, a, 0, err, sizeof err);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(zka_params_cache_get(drop, a, 0, err, sizeof err) != NULL);
	CU_ASSERT(mappings_of(r2) == 2);
	CU_ASSERT(mappings_of(r1) == 1);
	zka_params_cache_free(keep);
	zka_params_cache_free(drop);
	zka_params_cache_free(NULL);
	CU_ASSERT(mappings_of(r1) == 0 && mappings_of(r2) == 0);
	zka_arena_close(a);
	zka_arena_destroy(arena);
	shm_unlink(r1);
	shm_unlink(r2);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
}

int main(void)
{
	/* in the build tree: on a disk file system, where /tmp may be tmpfs */
	init_bn254();
	init_bls12_381();
	snprintf(tmpdir, sizeof tmpdir, "%s/zka-keys-XXXXXX", ZKA_TEST_TMP);
	if (!mkdtemp(tmpdir))
		return 1;
	FILE *pf = fopen(tmp("probe"), "wb");
	if (!pf || fwrite(tmpdir, 1, 1, pf) != 1 || fclose(pf))
		return 1;
	disk_direct = takes_direct(tmp("probe"));
	char sp[64];
	snprintf(sp, sizeof sp, "/dev/shm/zka-probe-%d", (int)getpid());
	if ((pf = fopen(sp, "wb")) && fwrite(sp, 1, 1, pf) == 1 && !fclose(pf))
		shm_direct = takes_direct(sp);
	unlink(sp);
	if (!disk_direct)
		printf("note: %s refuses O_DIRECT: the loader's O_DIRECT path is not exercised\n",
		       tmpdir);
	char cache[300];
	snprintf(cache, sizeof cache, "%s/cache", tmpdir);
	setenv("ZKARENA_CACHE", cache, 1);
	static const zka_test_case cases[] = {
	    {"import -> load -> prove == .zkey proof", test_identical_proofs},
	    {"corrupt, truncated, mismatched files", test_bad_files},
	    {"planted off-curve and off-subgroup points refused at import", test_planted},
	    {".params: off-subgroup points refused naming section and index (device, CPU)",
	     test_params_planted},
	    {"batched G2 validation: same .zka, planted points named", test_planted_batched},
	    {"the .zka does not depend on the import's threads, ZKA_VALIDATE_EXACT or overlap",
	     test_import_identical},
	    {"the loader's region consumer", test_region_consumer},
	    {"resident key without opening the key file", test_resident},
	    {"the params cache", test_params_cache},
	    {NULL, NULL}};
	zka_test_suite("keys", cases);
	int r = zka_test_run();
	char cmd[320];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd)) {
	}
	return r;
}

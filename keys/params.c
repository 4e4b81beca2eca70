/* params.c - the params image (keys/params.h): one layout for a .zka file and a params region.
 *
 * Objects
 *   header     struct hdr in the first 2 KiB: magic, version, counts, each section's offset,
 *              length and XXH3-64, the sources' identities; an XXH3-64 of every byte before it
 *              ends it.
 *   residency  the next 2 KiB: zka_params_res with its own checksum, outside the header's;
 *              written into a region after a load (zka_params_set_residency).
 *   sections   S_COUNT of them (sect_name), each at a ZKA_PARAMS_ALIGN multiple, zero-padded:
 *              the key's points, its A and B in CSR (zk/abc.h), the r1cs's matrices.
 *   plan       zka_params_plan: an image being built from a key, its sources and header.
 *
 * States of an image
 *   PLANNED  -> FILLED    zka_params_plan_new, then zka_params_plan_fill: the CSR form built,
 *                         the sections laid out, copied and hashed, the header checksummed
 *   FILLED   -> NAMED     zka_params_create: into a shm object under a temporary name, then
 *                         renamed to NAME (keys.c and the loader publish theirs likewise)
 *   any      -> OPENED    zka_params_open, zka_params_open_shape, zka_params_from_map: the
 *                         header checked (zka_params_header), the size against it, the CSR
 *                         and r1cs matrices checked (not with _shape), pointers set into it
 *
 * Invariants
 *   1. zka_params_header checks magic, version, checksum, curve, every section's length
 *      against the counts, alignment, order and bounds before any section's offset is used.
 *   2. The content identity (zka_params_info.id) hashes the counts, lengths and section
 *      checksums only: two imports of the same key and circuit have the same id, whatever
 *      file they came from.
 *   3. An opened image's pointers are into its read-only mapping; a shape-only open zeroes
 *      abc and cs, so nothing unchecked is handed out.
 *   4. zka_params_create makes NAME appear only complete (rename is the commit).
 */
#include "keys/params.h"
#include "keys/zka_keys.h"
#include "zk/bellperson.h"

#include "zk/abc.h"
#include "zk/par.h"
#include "zk/r1cs.h"
#include "zk/zkey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC "ZKAPARM1"
#define RES_MAGIC "ZKARES1"

enum {
	S_ALPHA1,
	S_BETA1,
	S_BETA2,
	S_GAMMA2,
	S_DELTA1,
	S_DELTA2,
	S_IC,
	S_A,
	S_B1,
	S_B2,
	S_C,
	S_H,
	S_ABC_START /* start A, start B, terms A, terms B, values */,
	S_ABC_END = S_ABC_START + 5,
	S_R1CS_START = S_ABC_END /* 3 x (start, signal, value) follow */,
	S_COUNT = S_R1CS_START + 9
};
_Static_assert(S_COUNT == ZKA_PARAMS_NSECT, "section count");
_Static_assert(S_ABC_START == ZKA_PARAMS_NPOINTSECT, "point section count");

static const char *const sect_name[S_COUNT] = {"alpha1",
					       "beta1",
					       "beta2",
					       "gamma2",
					       "delta1",
					       "delta2",
					       "IC",
					       "A",
					       "B1",
					       "B2",
					       "C",
					       "H",
					       "abc.startA",
					       "abc.startB",
					       "abc.termsA",
					       "abc.termsB",
					       "abc.values",
					       "r1cs.A.start",
					       "r1cs.A.signal",
					       "r1cs.A.value",
					       "r1cs.B.start",
					       "r1cs.B.signal",
					       "r1cs.B.value",
					       "r1cs.C.start",
					       "r1cs.C.signal",
					       "r1cs.C.value"};

/* The on-disk header (little-endian, x86-64 layout). */
struct hdr {
	char magic[8];
	uint32_t version, curve, n_vars, n_public, domain_size, log_domain, n_vals, has_r1cs;
	uint32_t r_n_wires, r_n_pub_out, r_n_pub_in, r_n_prv_in, r_n_constraints, n_sections;
	uint32_t h_kind, root; /* zka_pk's: the H points' kind, the domain's roots (version 4) */
	uint64_t r_n_terms[3];
	uint64_t nnz[2]; /* terms of A and B */
	uint64_t total;
	uint64_t off[S_COUNT], len[S_COUNT], sum[S_COUNT];
	zka_file_id src_key, src_r1cs;
	char src_name[128];
	uint64_t checksum; /* XXH3-64 of every byte before it */
};
_Static_assert(sizeof(struct hdr) <= ZKA_PARAMS_RES_OFF, "header fits its half page");
_Static_assert(sizeof(zka_params_res) <= ZKA_PARAMS_HDR - ZKA_PARAMS_RES_OFF, "residency fits");

const char *zka_params_section_name(int s)
{
	return s >= 0 && s < S_COUNT ? sect_name[s] : "?";
}

void zka_params_point_sections(const zka_params_info *in, const void *map, const void *p[5],
			       size_t len[5])
{
	static const int sect[5] = {S_A, S_B1, S_B2, S_C, S_H};
	for (int i = 0; i < 5; i++) {
		p[i] = (const uint8_t *)map + in->off[sect[i]];
		len[i] = (size_t)in->len[sect[i]];
	}
}

uint64_t zka_params_slot_bytes(const zka_pk *pk)
{
	return 2ull * pk->domain_size * 32 + (uint64_t)pk->n_vars * 32; /* a, b, w: pipe.h */
}

int zka_params_is_bellperson(const char *path)
{
	return zka_bp_is_params(path);
}

/* The subgroup tests of bp's sections (its reader made every other check): on the device
 * checker where there is one (zka_keys_check_sections), naming the .params's section and
 * index; 0 or -EINVAL with err set. */
static int check_bp_sections(const char *path, const zka_bp_params *bp, char *err, size_t errlen)
{
	static const int g2[6] = {0, 0, 0, 0, 0, 1};
	const void *const pts[6] = {bp->ic, bp->h, bp->l, bp->a, bp->b1, bp->b2};
	const uint64_t n[6] = {bp->n_ic, bp->n_h, bp->n_l, bp->n_a, bp->n_b1, bp->n_b2};
	return zka_keys_check_sections(path, bp->curve, 6, zka_bp_section_name, g2, pts, n, 0, -1,
				       err, errlen);
}

/* A .params key and its circuit (required: the densities of a, b_g1, b_g2 come from it),
 * its rows numbered by root (ZKA_ROOT_*) */
static int read_bellperson(const char *path, const char *r1cs_path, uint32_t root, zka_pk *pk,
			   zka_r1cs *cs, char *err, size_t errlen)
{
	zka_bp_params bp;
	int r;
	memset(pk, 0, sizeof *pk);
	memset(cs, 0, sizeof *cs);
	if (!r1cs_path) {
		snprintf(err, errlen,
			 "%s: a bellperson .params key needs its circuit (--r1cs FILE): the "
			 "points it omits are known from the circuit only",
			 path);
		return -EINVAL;
	}
	if ((r = zka_r1cs_read(r1cs_path, cs, err, errlen)))
		return r;
	if (cs->curve != &zka_curve_bls12_381) {
		snprintf(err, errlen,
			 "%s: circuit is %s; bellperson .params keys are BLS12-381 only", r1cs_path,
			 cs->curve->pretty);
		zka_r1cs_free(cs);
		return -EINVAL;
	}
	char why[512] = "";
	/* on the curve as it decodes; the subgroup (nearly all of the CPU's time) then on the
	 * device where there is one */
	if (!(r = zka_bp_read_flags(path, &bp, 0, ZKA_BP_READ_CURVE_ONLY, why, sizeof why))) {
		if ((r = check_bp_sections(path, &bp, err, errlen))) {
			zka_bp_free(&bp);
			zka_r1cs_free(cs);
			return r;
		}
		r = zka_bp_to_pk_take(&bp, cs, root, pk, why, sizeof why); /* bp freed */
		if (r) /* why names ".params": say which */
			snprintf(err, errlen, "%s (with %s): %s", path, r1cs_path, why);
	} else {
		snprintf(err, errlen, "%s", why);
	}
	if (r)
		zka_r1cs_free(cs);
	return r;
}

int zka_params_read_files(const char *zkey_path, const char *r1cs_path, zka_pk *pk, zka_r1cs *cs,
			  char *err, size_t errlen)
{
	return zka_params_read_files_root(zkey_path, r1cs_path, ZKA_ROOT_GEN7, pk, cs, err, errlen);
}

int zka_params_read_files_root(const char *zkey_path, const char *r1cs_path, uint32_t bp_root,
			       zka_pk *pk, zka_r1cs *cs, char *err, size_t errlen)
{
	if (zka_params_is_bellperson(zkey_path))
		return read_bellperson(zkey_path, r1cs_path, bp_root, pk, cs, err, errlen);
	int r = zka_zkey_read(zkey_path, pk, err, errlen);
	if (r)
		return r;
	memset(cs, 0, sizeof *cs);
	if (!r1cs_path)
		return 0;
	r = zka_r1cs_read(r1cs_path, cs, err, errlen);
	if (!r && (cs->curve != pk->curve || cs->n_wires != pk->n_vars)) {
		snprintf(err, errlen,
			 "%s: circuit (%s, %u wires) does not match %s (%s, %u signals)", r1cs_path,
			 cs->curve->pretty, cs->n_wires, zkey_path, pk->curve->pretty, pk->n_vars);
		r = -EINVAL;
	}
	if (r) {
		zka_pk_free(pk);
		zka_r1cs_free(cs);
	}
	return r;
}

static uint64_t align_up(uint64_t x)
{
	return (x + ZKA_PARAMS_ALIGN - 1) & ~(uint64_t)(ZKA_PARAMS_ALIGN - 1);
}

/* The lengths the counts of h imply for the key's sections (the r1cs ones too when present). */
static void want_lengths(const struct hdr *h, const zka_curve *c, uint64_t want[S_COUNT])
{
	uint64_t g1 = zka_g1_bytes(c), g2 = zka_g2_bytes(c);
	uint64_t w[S_R1CS_START] = {g1,
				    g1,
				    g2,
				    g2,
				    g1,
				    g2,
				    g1 * (h->n_public + 1ull),
				    g1 * h->n_vars,
				    g1 * h->n_vars,
				    g2 * h->n_vars,
				    g1 * ((uint64_t)h->n_vars - h->n_public - 1),
				    g1 * h->domain_size,
				    4ull * (h->domain_size + 1ull),
				    4ull * (h->domain_size + 1ull),
				    8ull * h->nnz[0],
				    8ull * h->nnz[1],
				    32ull * h->n_vals};
	memcpy(want, w, sizeof w);
	for (int m = 0; m < 3; m++) {
		int s = S_R1CS_START + 3 * m;
		want[s] = h->has_r1cs ? 8ull * (h->r_n_constraints + 1ull) : 0;
		want[s + 1] = h->has_r1cs ? 4ull * h->r_n_terms[m] : 0;
		want[s + 2] = h->has_r1cs ? 32ull * h->r_n_terms[m] : 0;
	}
}

static const zka_curve *curve_of(uint32_t id)
{
	return id == ZKA_BN254	     ? &zka_curve_bn254
	       : id == ZKA_BLS12_381 ? &zka_curve_bls12_381
				     : NULL;
}

static uint64_t content_id(const struct hdr *h)
{
	/* the counts, lengths and checksums: equal for two imports of the same key and circuit */
	uint8_t
	    buf[offsetof(struct hdr, total) - offsetof(struct hdr, version) + 2 * sizeof h->len];
	size_t n = offsetof(struct hdr, total) - offsetof(struct hdr, version);
	memcpy(buf, &h->version, n);
	memcpy(buf + n, h->len, sizeof h->len);
	memcpy(buf + n + sizeof h->len, h->sum, sizeof h->sum);
	return XXH3_64bits(buf, sizeof buf);
}

int zka_params_header(const void *hdr, zka_params_info *info, char *why, size_t whylen)
{
	struct hdr h;
	memcpy(&h, hdr, sizeof h);
	memset(info, 0, sizeof *info);
	const zka_curve *c = curve_of(h.curve);
	if (memcmp(h.magic, MAGIC, 8)) {
		snprintf(why, whylen, "header: not a zkarena params file (bad magic)");
		return -EBADMSG;
	}
	if (h.version != ZKA_PARAMS_VERSION) {
		snprintf(why, whylen,
			 "header: version %u, this zkarena reads version %u (re-import the key)",
			 h.version, ZKA_PARAMS_VERSION);
		return -EBADMSG;
	}
	if (h.checksum != XXH3_64bits(&h, offsetof(struct hdr, checksum))) {
		snprintf(why, whylen, "header: checksum mismatch");
		return -EBADMSG;
	}
	if (!c || h.n_sections != S_COUNT || h.n_vars < h.n_public + 1ull || h.log_domain > 31 ||
	    h.domain_size != (1u << h.log_domain) || h.total % ZKA_PARAMS_ALIGN ||
	    h.total < ZKA_PARAMS_HDR || (h.has_r1cs && h.r_n_wires != h.n_vars) ||
	    h.h_kind > ZKA_H_MONOMIAL || h.root > ZKA_ROOT_GEN7 ||
	    (h.h_kind == ZKA_H_COSET && h.root != ZKA_ROOT_SNARKJS) ||
	    (h.root == ZKA_ROOT_GEN7 && h.curve != ZKA_BLS12_381)) {
		snprintf(why, whylen, "header: inconsistent counts (curve, sizes or sections)");
		return -EBADMSG;
	}
	uint64_t want[S_COUNT], end = ZKA_PARAMS_HDR;
	want_lengths(&h, c, want);
	for (int s = 0; s < S_COUNT; s++) {
		if (h.len[s] != want[s]) {
			snprintf(why, whylen,
				 "section %s: %llu bytes, the header's counts imply %llu",
				 sect_name[s], (unsigned long long)h.len[s],
				 (unsigned long long)want[s]);
			return -EBADMSG;
		}
		if (h.off[s] % ZKA_PARAMS_ALIGN || h.off[s] < end || h.off[s] > h.total ||
		    h.len[s] > h.total - h.off[s]) {
			snprintf(why, whylen,
				 "section %s: offset %llu out of place (file of %llu bytes)",
				 sect_name[s], (unsigned long long)h.off[s],
				 (unsigned long long)h.total);
			return -EBADMSG;
		}
		end = h.off[s] + h.len[s];
	}
	info->curve = c;
	info->n_vars = h.n_vars;
	info->n_public = h.n_public;
	info->domain_size = h.domain_size;
	info->has_r1cs = h.has_r1cs;
	info->h_kind = h.h_kind;
	info->root = h.root;
	info->total = h.total;
	memcpy(info->off, h.off, sizeof h.off);
	memcpy(info->len, h.len, sizeof h.len);
	memcpy(info->sum, h.sum, sizeof h.sum);
	info->src_key = h.src_key;
	info->src_r1cs = h.src_r1cs;
	memcpy(info->src_name, h.src_name, sizeof info->src_name);
	info->src_name[sizeof info->src_name - 1] = 0;
	info->id = content_id(&h);
	return 0;
}

int zka_params_residency(const void *hdr, zka_params_res *res)
{
	memcpy(res, (const uint8_t *)hdr + ZKA_PARAMS_RES_OFF, sizeof *res);
	if (memcmp(res->magic, RES_MAGIC, 8) ||
	    res->checksum != XXH3_64bits(res, offsetof(zka_params_res, checksum))) {
		memset(res, 0, sizeof *res);
		return -ENOENT;
	}
	res->path[sizeof res->path - 1] = 0;
	return 0;
}

void zka_params_set_residency(void *hdr, const zka_params_res *res)
{
	zka_params_res r = *res;
	memcpy(r.magic, RES_MAGIC, 8);
	r.checksum = XXH3_64bits(&r, offsetof(zka_params_res, checksum));
	memcpy((uint8_t *)hdr + ZKA_PARAMS_RES_OFF, &r, sizeof r);
}

/* The twelve point sections' sources in pk, as plan_new lays them out. */
static void pk_srcs(const zka_pk *pk, const void *src[S_ABC_START])
{
	const void *s[S_ABC_START] = {pk->alpha1, pk->beta1,  pk->beta2, pk->gamma2,
				      pk->delta1, pk->delta2, pk->IC,	 pk->A,
				      pk->B1,	  pk->B2,     pk->C,	 pk->H};
	memcpy(src, s, sizeof s);
}

void zka_params_pk_points(const zka_pk *pk, const void *src[ZKA_PARAMS_NPOINTSECT],
			  uint64_t len[ZKA_PARAMS_NPOINTSECT])
{
	struct hdr h;
	uint64_t want[S_COUNT];
	memset(&h, 0, sizeof h);
	h.n_vars = pk->n_vars;
	h.n_public = pk->n_public;
	h.domain_size = pk->domain_size;
	want_lengths(&h, pk->curve, want);
	pk_srcs(pk, src);
	memcpy(len, want, S_ABC_START * sizeof *len);
}

void zka_params_plan_set_ids(zka_params_plan *pl, const zka_file_id *src_key,
			     const zka_file_id *src_r1cs)
{
	struct hdr *h = (struct hdr *)pl->hdr;
	h->src_key = src_key ? *src_key : (zka_file_id){0};
	h->src_r1cs = src_r1cs ? *src_r1cs : (zka_file_id){0};
}

int zka_params_plan_new(zka_params_plan *pl, const zka_pk *pk, const zka_r1cs *cs,
			const zka_file_id *src_key, const zka_file_id *src_r1cs,
			const char *src_name, char *err, size_t errlen)
{
	const zka_curve *c = pk->curve;
	struct hdr h;
	char why[256] = "";
	memset(pl, 0, sizeof *pl);
	int ret = zka_abc_build(pk, &pl->abc, why, sizeof why);
	if (ret) {
		snprintf(err, errlen, "the key's A/B %s", why);
		return ret;
	}
	zka_abc *m = &pl->abc;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, 8);
	h.version = ZKA_PARAMS_VERSION;
	h.curve = (uint32_t)c->id;
	h.n_vars = pk->n_vars;
	h.n_public = pk->n_public;
	h.domain_size = pk->domain_size;
	h.log_domain = pk->log_domain;
	h.h_kind = pk->h_kind;
	h.root = pk->root;
	h.n_vals = m->n_vals;
	h.n_sections = S_COUNT;
	h.nnz[0] = m->nnz[0];
	h.nnz[1] = m->nnz[1];
	const void *src[S_COUNT] = {0};
	pk_srcs(pk, src); /* the point sections: zka_params_pk_points's */
	const void *abc_src[5] = {m->start[0], m->start[1], m->term[0], m->term[1], m->val};
	memcpy(src + S_ABC_START, abc_src, sizeof abc_src);
	if (cs && cs->curve) {
		h.has_r1cs = 1;
		h.r_n_wires = cs->n_wires;
		h.r_n_pub_out = cs->n_pub_out;
		h.r_n_pub_in = cs->n_pub_in;
		h.r_n_prv_in = cs->n_prv_in;
		h.r_n_constraints = cs->n_constraints;
		for (int k = 0; k < 3; k++) {
			int s = S_R1CS_START + 3 * k;
			h.r_n_terms[k] = cs->m[k].n_terms;
			src[s] = cs->m[k].start;
			src[s + 1] = cs->m[k].signal;
			src[s + 2] = cs->m[k].value;
		}
	}
	uint64_t want[S_COUNT], off = ZKA_PARAMS_HDR;
	want_lengths(&h, c, want);
	for (int s = 0; s < S_COUNT; s++) {
		h.off[s] = off;
		h.len[s] = want[s];
		off = align_up(off + h.len[s]);
		pl->src[s] = src[s];
	}
	h.total = off;
	if (src_key)
		h.src_key = *src_key;
	if (src_r1cs)
		h.src_r1cs = *src_r1cs;
	if (src_name)
		snprintf(h.src_name, sizeof h.src_name, "%s", src_name);
	memcpy(pl->hdr, &h, sizeof h);
	pl->info.total = h.total;
	return 0;
}

/* Fill's work: the sections cut into pieces of FILL_PIECE bytes (the last of a section also
 * zeroes its padding), copied by whichever thread takes the next piece; then each section's
 * XXH3 over what was copied, the largest sections taken first. The bytes do not depend on the
 * threads: every byte of [ZKA_PARAMS_HDR, total) is written by exactly one piece. */
#define FILL_PIECE (8u << 20)

struct fill_ctx {
	zka_params_plan *pl;
	uint8_t *dst;
	struct hdr *h;
	uint64_t first[S_COUNT + 1]; /* section s's pieces: [first[s], first[s + 1]) */
	int order[S_COUNT];	     /* the sections, longest first */
	_Atomic uint64_t next_piece;
	_Atomic int next_sum;
};

static void fill_copy(void *arg, size_t begin, size_t end, int tid)
{
	(void)begin, (void)end, (void)tid;
	struct fill_ctx *f = arg;
	int s = 0;
	for (uint64_t k; (k = atomic_fetch_add(&f->next_piece, 1)) < f->first[S_COUNT];) {
		while (k >= f->first[s + 1])
			s++;
		uint64_t off = f->h->off[s], len = f->h->len[s],
			 at = (k - f->first[s]) * FILL_PIECE,
			 n = len - at > FILL_PIECE ? FILL_PIECE : len - at;
		if (n)
			memcpy(f->dst + off + at, (const uint8_t *)f->pl->src[s] + at, n);
		if (k + 1 == f->first[s + 1]) /* the section's last piece: its padding */
			memset(f->dst + off + len, 0, align_up(off + len) - off - len);
	}
}

static void fill_sum(void *arg, size_t begin, size_t end, int tid)
{
	(void)begin, (void)end, (void)tid;
	struct fill_ctx *f = arg;
	for (int i; (i = atomic_fetch_add(&f->next_sum, 1)) < S_COUNT;) {
		int s = f->order[i];
		f->h->sum[s] = XXH3_64bits(f->dst + f->h->off[s], f->h->len[s]);
	}
}

void zka_params_plan_fill(zka_params_plan *pl, void *dst, int threads)
{
	struct hdr *h = (struct hdr *)pl->hdr;
	struct fill_ctx f = {.pl = pl, .dst = dst, .h = h};
	for (int s = 0; s < S_COUNT; s++) {
		uint64_t pieces = h->len[s] ? (h->len[s] + FILL_PIECE - 1) / FILL_PIECE : 1;
		f.first[s + 1] = f.first[s] + pieces;
		f.order[s] = s;
	}
	for (int i = 1; i < S_COUNT; i++) /* insertion sort, longest first */
		for (int k = i; k > 0 && h->len[f.order[k]] > h->len[f.order[k - 1]]; k--) {
			int x = f.order[k];
			f.order[k] = f.order[k - 1];
			f.order[k - 1] = x;
		}
	int t = zka_par_threads(threads);
	zka_par_for(t, (size_t)t, fill_copy, &f);
	zka_par_for(t > S_COUNT ? S_COUNT : t, (size_t)(t > S_COUNT ? S_COUNT : t), fill_sum, &f);
	memset(dst, 0, ZKA_PARAMS_HDR);
	h->checksum = XXH3_64bits(h, offsetof(struct hdr, checksum));
	memcpy(dst, h, sizeof *h);
	char why[8];
	zka_params_header(dst, &pl->info, why, sizeof why);
}

void zka_params_plan_free(zka_params_plan *pl)
{
	zka_abc_free(&pl->abc);
	memset(pl, 0, sizeof *pl);
}

int zka_params_create(const char *name, const zka_pk *pk, const zka_r1cs *cs, char *err,
		      size_t errlen)
{
	zka_params_plan pl;
	char why[300];
	int ret = zka_params_plan_new(&pl, pk, cs, NULL, NULL, NULL, why, sizeof why);
	if (ret) {
		snprintf(err, errlen, "params %s: %s", name, why);
		return ret;
	}
	uint64_t total = pl.info.total;
	/* write under a temporary name, then rename within /dev/shm: readers never see a
	 * partially written region under NAME */
	char tmp[128], path[160], tpath[160];
	snprintf(tmp, sizeof tmp, "%s.tmp%d", name, (int)getpid());
	snprintf(path, sizeof path, "/dev/shm%s", name);
	snprintf(tpath, sizeof tpath, "/dev/shm%s", tmp);
	int fd = shm_open(tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
	void *map = MAP_FAILED;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "params %s: shm_open: %s", name, strerror(errno));
		zka_params_plan_free(&pl);
		return ret;
	}
	if ((ret = posix_fallocate(fd, 0, (off_t)total))) {
		snprintf(err, errlen, "params %s: cannot allocate %llu bytes in /dev/shm: %s", name,
			 (unsigned long long)total, strerror(ret));
		ret = -ret;
		goto err;
	}
	map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "params %s: mmap: %s", name, strerror(errno));
		goto err;
	}
	zka_params_plan_fill(&pl, map, 0);
	if (rename(tpath, path)) {
		ret = -errno;
		snprintf(err, errlen, "params %s: rename: %s", name, strerror(errno));
		goto err;
	}
	munmap(map, total);
	close(fd);
	zka_params_plan_free(&pl);
	return 0;
err:
	if (map != MAP_FAILED)
		munmap(map, total);
	close(fd);
	shm_unlink(tmp);
	zka_params_plan_free(&pl);
	return ret;
}

static int params_from_map(void *map, size_t size, const char *what, int shape_only, zka_params *p,
			   char *err, size_t errlen);

int zka_params_from_map(void *map, size_t size, const char *what, zka_params *p, char *err,
			size_t errlen)
{
	return params_from_map(map, size, what, 0, p, err, errlen);
}

/* shape_only: the CSR matrices and the r1cs are not checked (p->abc and p->cs are then
 * zeroed: not to be used) */
static int params_from_map(void *map, size_t size, const char *what, int shape_only, zka_params *p,
			   char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	zka_params_info in;
	char why[256];
	if (size < ZKA_PARAMS_HDR) {
		snprintf(err, errlen, "%s: truncated (%zu bytes)", what, size);
		return -EBADMSG;
	}
	if (zka_params_header(map, &in, why, sizeof why)) {
		snprintf(err, errlen, "%s: %s", what, why);
		return -EBADMSG;
	}
	if (in.total != size) {
		snprintf(err, errlen, "%s: %zu bytes, the header says %llu", what, size,
			 (unsigned long long)in.total);
		return -EBADMSG;
	}
	struct hdr h;
	memcpy(&h, map, sizeof h);
	const zka_curve *c = in.curve;
	uint8_t *b = map;
	zka_pk *pk = &p->pk;
	pk->curve = c;
	pk->n_vars = h.n_vars;
	pk->n_public = h.n_public;
	pk->domain_size = h.domain_size;
	pk->log_domain = h.log_domain;
	pk->h_kind = h.h_kind;
	pk->root = h.root;
	pk->n_coefs = 0; /* synthesis reads the CSR form (p->abc), not a coefficient list */
	pk->coefs = NULL;
	uint8_t **dst[S_ABC_START] = {&pk->alpha1, &pk->beta1,	&pk->beta2, &pk->gamma2,
				      &pk->delta1, &pk->delta2, &pk->IC,    &pk->A,
				      &pk->B1,	   &pk->B2,	&pk->C,	    &pk->H};
	for (int s = 0; s < S_ABC_START; s++)
		*dst[s] = b + h.off[s];
	zka_abc *m = &p->abc;
	*m = (zka_abc){.curve = c,
		       .n_rows = h.domain_size,
		       .n_cols = h.n_vars,
		       .n_vals = h.n_vals,
		       .nnz = {h.nnz[0], h.nnz[1]},
		       .start = {(uint32_t *)(b + h.off[S_ABC_START]),
				 (uint32_t *)(b + h.off[S_ABC_START + 1])},
		       .term = {(uint32_t(*)[2])(b + h.off[S_ABC_START + 2]),
				(uint32_t(*)[2])(b + h.off[S_ABC_START + 3])},
		       .val = (uint64_t(*)[4])(b + h.off[S_ABC_START + 4])};
	if (shape_only) {
		memset(m, 0, sizeof *m);
	} else if (zka_abc_check(m, why, sizeof why)) {
		memset(p, 0, sizeof *p);
		snprintf(err, errlen, "%s: section abc: %s", what, why);
		return -EBADMSG;
	}
	p->vk = (zka_vk){.curve = c,
			 .n_public = h.n_public,
			 .alpha1 = pk->alpha1,
			 .beta2 = pk->beta2,
			 .gamma2 = pk->gamma2,
			 .delta2 = pk->delta2,
			 .IC = pk->IC};
	if (h.has_r1cs && !shape_only) { /* (shape_only: p->cs stays zeroed) */
		zka_r1cs *cs = &p->cs;
		cs->curve = c;
		cs->n_wires = h.r_n_wires;
		cs->n_pub_out = h.r_n_pub_out;
		cs->n_pub_in = h.r_n_pub_in;
		cs->n_prv_in = h.r_n_prv_in;
		cs->n_constraints = h.r_n_constraints;
		for (int k = 0; k < 3; k++) {
			int s = S_R1CS_START + 3 * k;
			cs->m[k].start = (uint64_t *)(b + h.off[s]);
			cs->m[k].signal = (uint32_t *)(b + h.off[s + 1]);
			cs->m[k].value = (uint64_t(*)[4])(b + h.off[s + 2]);
			cs->m[k].n_terms = h.r_n_terms[k];
			/* CSR sanity: rows monotonic within the terms, signals within the wires */
			int bad = cs->m[k].start[0] != 0 ||
				  cs->m[k].start[h.r_n_constraints] != h.r_n_terms[k];
			for (uint32_t i = 0; i < h.r_n_constraints && !bad; i++)
				bad = cs->m[k].start[i] > cs->m[k].start[i + 1];
			for (uint64_t t = 0; t < h.r_n_terms[k] && !bad; t++)
				bad = cs->m[k].signal[t] >= h.r_n_wires;
			if (bad) {
				memset(p, 0, sizeof *p);
				snprintf(err, errlen, "%s: section %s: inconsistent matrix", what,
					 sect_name[s]);
				return -EBADMSG;
			}
		}
		p->has_r1cs = 1;
	}
	p->map = map;
	p->size = size;
	return 0;
}

static int params_open(const char *name, int shape_only, zka_params *p, char *err, size_t errlen);

int zka_params_open(const char *name, zka_params *p, char *err, size_t errlen)
{
	return params_open(name, 0, p, err, errlen);
}

int zka_params_open_shape(const char *name, zka_params *p, char *err, size_t errlen)
{
	return params_open(name, 1, p, err, errlen);
}

static int params_open(const char *name, int shape_only, zka_params *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	int fd = shm_open(name, O_RDONLY, 0);
	struct stat st;
	if (fd < 0) {
		snprintf(err, errlen, "params %s: %s", name, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) || (uint64_t)st.st_size < ZKA_PARAMS_HDR) {
		close(fd);
		snprintf(err, errlen, "params %s: truncated", name);
		return -EINVAL;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "params %s: mmap: %s", name, strerror(errno));
		return -errno;
	}
	char what[96];
	snprintf(what, sizeof what, "params %s", name);
	int r = params_from_map(map, (size_t)st.st_size, what, shape_only, p, err, errlen);
	if (r)
		munmap(map, (size_t)st.st_size);
	return r;
}

void zka_params_close(zka_params *p)
{
	if (p && p->pending) /* the validation thread reads the map: joined first */
		zka__keys_pending_end(p, NULL, 0, NULL);
	if (p && p->map)
		munmap(p->map, p->size);
	if (p)
		memset(p, 0, sizeof *p);
}

/* params.c - see params.h. */
#include "synth/params.h"

#include "zk/abc.h"
#include "zk/r1cs.h"
#include "zk/zkey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC "ZKAPARM1"
#define VERSION 2u /* 2: A and B as CSR (zk/abc.h) instead of the coefficient list */
#define HDR 4096u

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

struct hdr {
	char magic[8];
	uint32_t version, curve, n_vars, n_public, domain_size, log_domain, n_vals, has_r1cs;
	uint32_t r_n_wires, r_n_pub_out, r_n_pub_in, r_n_prv_in, r_n_constraints, pad;
	uint64_t r_n_terms[3];
	uint64_t nnz[2]; /* terms of A and B */
	uint64_t off[S_COUNT], len[S_COUNT];
	uint64_t total;
	uint64_t checksum; /* XXH64 of every byte before it */
};

uint64_t zka_params_slot_bytes(const zka_pk *pk)
{
	return 3ull * pk->domain_size * 32 + (uint64_t)pk->n_vars * 32;
}

int zka_params_read_files(const char *zkey_path, const char *r1cs_path, zka_pk *pk, zka_r1cs *cs,
			  char *err, size_t errlen)
{
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

static uint64_t align64(uint64_t x)
{
	return (x + 63) & ~63ull;
}

int zka_params_create(const char *name, const zka_pk *pk, const zka_r1cs *cs, char *err,
		      size_t errlen)
{
	const zka_curve *c = pk->curve;
	struct hdr h;
	zka_abc m;
	char why[256] = "";
	int ret = zka_abc_build(pk, &m, why, sizeof why);
	if (ret) {
		snprintf(err, errlen, "params %s: the key's A/B %s", name, why);
		return ret;
	}
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, 8);
	h.version = VERSION;
	h.curve = (uint32_t)c->id;
	h.n_vars = pk->n_vars;
	h.n_public = pk->n_public;
	h.domain_size = pk->domain_size;
	h.log_domain = pk->log_domain;
	h.n_vals = m.n_vals;
	h.nnz[0] = m.nnz[0];
	h.nnz[1] = m.nnz[1];
	const void *src[S_COUNT] = {pk->alpha1, pk->beta1, pk->beta2,  pk->gamma2, pk->delta1,
				    pk->delta2, pk->IC,	   pk->A,      pk->B1,	   pk->B2,
				    pk->C,	pk->H,	   m.start[0], m.start[1], m.term[0],
				    m.term[1],	m.val};
	size_t g1 = zka_g1_bytes(c), g2 = zka_g2_bytes(c);
	uint64_t len[S_COUNT] = {g1,
				 g1,
				 g2,
				 g2,
				 g1,
				 g2,
				 g1 * (pk->n_public + 1),
				 g1 * pk->n_vars,
				 g1 * pk->n_vars,
				 g2 * pk->n_vars,
				 g1 * (pk->n_vars - pk->n_public - 1),
				 g1 * pk->domain_size,
				 4ull * (pk->domain_size + 1),
				 4ull * (pk->domain_size + 1),
				 8ull * m.nnz[0],
				 8ull * m.nnz[1],
				 32ull * m.n_vals};
	if (cs && cs->curve) {
		h.has_r1cs = 1;
		h.r_n_wires = cs->n_wires;
		h.r_n_pub_out = cs->n_pub_out;
		h.r_n_pub_in = cs->n_pub_in;
		h.r_n_prv_in = cs->n_prv_in;
		h.r_n_constraints = cs->n_constraints;
		for (int m = 0; m < 3; m++) {
			int s = S_R1CS_START + 3 * m;
			h.r_n_terms[m] = cs->m[m].n_terms;
			src[s] = cs->m[m].start;
			len[s] = 8ull * (cs->n_constraints + 1);
			src[s + 1] = cs->m[m].signal;
			len[s + 1] = 4ull * cs->m[m].n_terms;
			src[s + 2] = cs->m[m].value;
			len[s + 2] = 32ull * cs->m[m].n_terms;
		}
	}
	uint64_t off = HDR;
	for (int s = 0; s < S_COUNT; s++) {
		h.off[s] = off;
		h.len[s] = src[s] ? len[s] : 0;
		off = align64(off + h.len[s]);
	}
	h.total = off;
	h.checksum = XXH64(&h, offsetof(struct hdr, checksum), 0);

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
		zka_abc_free(&m);
		return ret;
	}
	if ((ret = posix_fallocate(fd, 0, (off_t)h.total))) {
		snprintf(err, errlen, "params %s: cannot allocate %llu bytes in /dev/shm: %s", name,
			 (unsigned long long)h.total, strerror(ret));
		ret = -ret;
		goto err;
	}
	map = mmap(NULL, h.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "params %s: mmap: %s", name, strerror(errno));
		goto err;
	}
	memcpy(map, &h, sizeof h);
	for (int s = 0; s < S_COUNT; s++)
		if (h.len[s])
			memcpy((char *)map + h.off[s], src[s], h.len[s]);
	if (rename(tpath, path)) {
		ret = -errno;
		snprintf(err, errlen, "params %s: rename: %s", name, strerror(errno));
		goto err;
	}
	munmap(map, h.total);
	close(fd);
	zka_abc_free(&m);
	return 0;
err:
	if (map != MAP_FAILED)
		munmap(map, h.total);
	close(fd);
	shm_unlink(tmp);
	zka_abc_free(&m);
	return ret;
}

int zka_params_open(const char *name, zka_params *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	int fd = shm_open(name, O_RDONLY, 0);
	struct stat st;
	if (fd < 0) {
		snprintf(err, errlen, "params %s: %s", name, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) || (uint64_t)st.st_size < HDR) {
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
	struct hdr h;
	memcpy(&h, map, sizeof h);
	const zka_curve *c = h.curve == ZKA_BN254	? &zka_curve_bn254
			     : h.curve == ZKA_BLS12_381 ? &zka_curve_bls12_381
							: NULL;
	if (memcmp(h.magic, MAGIC, 8) || h.version != VERSION ||
	    h.checksum != XXH64(&h, offsetof(struct hdr, checksum), 0) || !c ||
	    h.total != (uint64_t)st.st_size || h.n_vars < h.n_public + 1 ||
	    h.domain_size != (1u << (h.log_domain & 31))) {
		munmap(map, (size_t)st.st_size);
		snprintf(err, errlen, "params %s: bad header (magic, version, checksum or sizes)",
			 name);
		return -EBADMSG;
	}
	for (int s = 0; s < S_COUNT; s++)
		if (h.off[s] < HDR || h.off[s] > h.total || h.len[s] > h.total - h.off[s]) {
			munmap(map, (size_t)st.st_size);
			snprintf(err, errlen, "params %s: section %d out of bounds", name, s);
			return -EBADMSG;
		}
	size_t g1 = zka_g1_bytes(c), g2 = zka_g2_bytes(c);
	uint64_t want[S_R1CS_START] = {g1,
				       g1,
				       g2,
				       g2,
				       g1,
				       g2,
				       g1 * (h.n_public + 1),
				       g1 * h.n_vars,
				       g1 * h.n_vars,
				       g2 * h.n_vars,
				       g1 * (h.n_vars - h.n_public - 1),
				       g1 * h.domain_size,
				       4ull * (h.domain_size + 1),
				       4ull * (h.domain_size + 1),
				       8ull * h.nnz[0],
				       8ull * h.nnz[1],
				       32ull * h.n_vals};
	for (int s = 0; s < S_R1CS_START; s++)
		if (h.len[s] != want[s]) {
			munmap(map, (size_t)st.st_size);
			snprintf(err, errlen, "params %s: section %d has the wrong size", name, s);
			return -EBADMSG;
		}
	uint8_t *b = map;
	zka_pk *pk = &p->pk;
	pk->curve = c;
	pk->n_vars = h.n_vars;
	pk->n_public = h.n_public;
	pk->domain_size = h.domain_size;
	pk->log_domain = h.log_domain;
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
	char why[256];
	if (zka_abc_check(m, why, sizeof why)) {
		munmap(map, (size_t)st.st_size);
		memset(p, 0, sizeof *p);
		snprintf(err, errlen, "params %s: %s", name, why);
		return -EBADMSG;
	}
	p->vk = (zka_vk){.curve = c,
			 .n_public = h.n_public,
			 .alpha1 = pk->alpha1,
			 .beta2 = pk->beta2,
			 .gamma2 = pk->gamma2,
			 .delta2 = pk->delta2,
			 .IC = pk->IC};
	if (h.has_r1cs) {
		zka_r1cs *cs = &p->cs;
		cs->curve = c;
		cs->n_wires = h.r_n_wires;
		cs->n_pub_out = h.r_n_pub_out;
		cs->n_pub_in = h.r_n_pub_in;
		cs->n_prv_in = h.r_n_prv_in;
		cs->n_constraints = h.r_n_constraints;
		for (int m = 0; m < 3; m++) {
			int s = S_R1CS_START + 3 * m;
			if (h.len[s] != 8ull * (h.r_n_constraints + 1) ||
			    h.len[s + 1] != 4ull * h.r_n_terms[m] ||
			    h.len[s + 2] != 32ull * h.r_n_terms[m]) {
				munmap(map, (size_t)st.st_size);
				snprintf(err, errlen,
					 "params %s: r1cs matrix %d has the wrong size", name, m);
				return -EBADMSG;
			}
			cs->m[m].start = (uint64_t *)(b + h.off[s]);
			cs->m[m].signal = (uint32_t *)(b + h.off[s + 1]);
			cs->m[m].value = (uint64_t(*)[4])(b + h.off[s + 2]);
			cs->m[m].n_terms = h.r_n_terms[m];
			/* CSR sanity: rows monotonic within the terms, signals within the wires */
			int bad = cs->m[m].start[0] != 0 ||
				  cs->m[m].start[h.r_n_constraints] != h.r_n_terms[m];
			for (uint32_t i = 0; i < h.r_n_constraints && !bad; i++)
				bad = cs->m[m].start[i] > cs->m[m].start[i + 1];
			for (uint64_t t = 0; t < h.r_n_terms[m] && !bad; t++)
				bad = cs->m[m].signal[t] >= h.r_n_wires;
			if (bad || h.r_n_wires != h.n_vars) {
				munmap(map, (size_t)st.st_size);
				snprintf(err, errlen, "params %s: r1cs matrix %d is inconsistent",
					 name, m);
				return -EBADMSG;
			}
		}
		p->has_r1cs = 1;
	}
	p->map = map;
	p->size = (size_t)st.st_size;
	return 0;
}

void zka_params_close(zka_params *p)
{
	if (p && p->map)
		munmap(p->map, p->size);
	if (p)
		memset(p, 0, sizeof *p);
}

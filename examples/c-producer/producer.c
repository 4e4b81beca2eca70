/* producer.c - a synthesizer that proves through a running zkarena pipeline with libzkarena.
 *
 *   c-producer ARENA KEY WITNESS.wtns PROOF.json PUBLIC.json
 *
 * It stands in for a real synthesizer: its "synthesis" reads the witness values from a .wtns
 * file (snarkjs's format) and writes them straight into the slot that zka_lib_begin leased,
 * the pinned memory the prover copies to the GPU from. zkarena computes a and b at commit
 * (the ZKA_LIB_WITNESS shape), the pipeline proves, and the proof and public inputs come back
 * as snarkjs's proof.json and public.json, written here where `zkarena prove` would write
 * them. Build: cc producer.c $(pkg-config --cflags --libs zkarena). */
#include <zkarena.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A little-endian u32 / u64 at p. */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The synthesis: the witness values of the .wtns at path into dst (room for n values of 32
 * bytes). Returns the number of values written, or -1 with a message on stderr. */
static long synthesize(const char *path, unsigned char *dst, uint64_t n)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[12], sh[12];
	long got = -1;
	uint32_t n8 = 0, nw = 0;
	if (!f || fread(h, 1, 12, f) != 12 || memcmp(h, "wtns", 4)) {
		fprintf(stderr, "c-producer: %s: not a .wtns file\n", path);
		goto out;
	}
	for (uint32_t s = 0; s < le32(h + 8); s++) {
		if (fread(sh, 1, 12, f) != 12)
			break;
		uint32_t id = le32(sh);
		uint64_t size = le64(sh + 4);
		if (id == 1) { /* header: n8, the prime, the number of values */
			unsigned char b[4 + 64 + 4];
			if (size < 8 || size > sizeof b || fread(b, 1, size, f) != size)
				break;
			n8 = le32(b);
			nw = le32(b + 4 + n8);
		} else if (id == 2) { /* the values, n8 bytes each, little-endian standard form */
			if (n8 != 32 || nw > n || size != (uint64_t)nw * 32) {
				fprintf(
				    stderr,
				    "c-producer: %s: %u values of %u bytes; the key takes %llu of "
				    "32\n",
				    path, nw, n8, (unsigned long long)n);
				goto out;
			}
			if (fread(dst, 32, nw, f) != nw) /* straight into the slot */
				break;
			got = (long)nw;
			goto out;
		} else if (fseek(f, (long)size, SEEK_CUR)) {
			break;
		}
	}
	fprintf(stderr, "c-producer: %s: no witness values\n", path);
out:
	if (f)
		fclose(f);
	return got;
}

static int save(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "c-producer: %s: cannot write\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr,
			"usage: c-producer ARENA KEY WITNESS.wtns PROOF.json PUBLIC.json\n");
		return 2;
	}
	zka_lib *lib = NULL;
	zka_lib_key *key;
	zka_lib_job *job = NULL;
	struct zka_lib_regions r;
	struct zka_lib_key_info ki;
	int status = 1, rc;
	if (zka_lib_open(argv[1], &lib) || zka_lib_key_open(lib, argv[2], &key)) {
		fprintf(stderr, "c-producer: %s\n", zka_lib_error());
		goto out;
	}
	zka_lib_key_info(key, &ki);
	/* one slot leased for this proof; NULL: the result goes to a private directory */
	if (zka_lib_begin(key, ZKA_LIB_WITNESS, NULL, 60000, &job, &r)) {
		fprintf(stderr, "c-producer: %s\n", zka_lib_error());
		goto out;
	}
	long n = synthesize(argv[3], r.witness, r.n_witness);
	if (n < 0) {
		zka_lib_abort(job, "synthesis failed");
		goto out;
	}
	if (zka_lib_commit(job, (uint64_t)n, 0, 0)) {
		fprintf(stderr, "c-producer: %s\n", zka_lib_error());
		goto out;
	}
	rc = zka_lib_wait(job, -1);
	if (rc == ZKA_LIB_FAILED)
		fprintf(stderr, "c-producer: job %llu FAILED: %s\n",
			(unsigned long long)zka_lib_job_id(job), zka_lib_job_reason(job));
	else if (rc < 0)
		fprintf(stderr, "c-producer: %s\n", zka_lib_error());
	else if (!save(argv[4], zka_lib_job_proof(job)) && !save(argv[5], zka_lib_job_public(job)))
		status = 0;
	if (!status)
		printf("job %llu DONE (%s, %u witness values, domain %u)\n",
		       (unsigned long long)zka_lib_job_id(job),
		       ki.curve == ZKA_LIB_BN254 ? "BN254" : "BLS12-381", ki.n_witness,
		       ki.domain_size);
out:
	zka_lib_job_free(job);
	zka_lib_close(lib);
	return status;
}

/* cmd_verify.c - `zkarena verify verification_key.json public.json proof.json`, the argument
 * order of snarkjs groth16 verify. */
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/bellperson.h"
#include "zk/groth16.h"
#include "zk/json_io.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena verify verification_key.json public.json proof.json\n"
	    "\n"
	    "Verifies a Groth16 proof (BN254 or BLS12-381, from the key's \"curve\").\n"
	    "The key may also be a bellperson circuit.params (its vk part is read), and\n"
	    "the proof bellperson's 192 bytes (compressed A, B, C; a BLS12-381 key).\n"
	    "Prints OK, or INVALID with the reason.\n"
	    "exit status: 0 valid; 1 well-formed but invalid; 2 bad usage or malformed input.\n");
}

/* A bellperson proof: 192 bytes, the first with the compressed flag (a JSON file starts
 * with ASCII). 1 read into proof, 0 not one (JSON then), -errno with err. */
static int proof_binary(const char *path, const zka_curve *c, zka_proof *proof, char *err,
			size_t errlen)
{
	uint8_t b[ZKA_BP_PROOF_BYTES + 1];
	struct stat st;
	/* O_NONBLOCK and a regular file only: a FIFO is left to the JSON reader, which
	 * refuses it ("not a regular file"), never waited on here */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0; /* the JSON reader says why */
	ssize_t n = -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		n = pread(fd, b, sizeof b, 0);
	close(fd);
	if (n != ZKA_BP_PROOF_BYTES || !(b[0] & 0x80))
		return 0;
	if (c != &zka_curve_bls12_381) {
		snprintf(err, errlen, "%s: a 192-byte bellperson proof, but the key is %s", path,
			 c->pretty);
		return -EINVAL;
	}
	char why[256] = "";
	if (zka_bp_proof_decode(b, proof, why, sizeof why)) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -EINVAL;
	}
	return 1;
}

int zka_cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		return zka_cli_bad_option(argc, argv);
	}
	if (argc - optind != 3) {
		fprintf(stderr, "zkarena verify: expected 3 arguments: verification_key.json "
				"public.json proof.json (see --help)\n");
		return 2;
	}
	char err[512] = "";
	zka_vk vk = {0};
	zka_proof proof;
	uint64_t(*pub)[4] = NULL;
	uint32_t n = 0;
	int status = 2;
	const char *why = NULL;
	const char *vkp = argv[optind], *pp = argv[optind + 2];
	int binary = 0;
	if ((zka_bp_is_params(vkp) ? zka_bp_read_vk(vkp, &vk, err, sizeof err)
				   : zka_vk_read_json(vkp, &vk, err, sizeof err)) ||
	    zka_public_read_json(argv[optind + 1], vk.curve, &pub, &n, err, sizeof err) ||
	    (binary = proof_binary(pp, vk.curve, &proof, err, sizeof err)) < 0 ||
	    (!binary && zka_proof_read_json(pp, vk.curve, &proof, err, sizeof err)))
		goto out;
	if (n != vk.n_public) {
		snprintf(err, sizeof err, "%s: %u public values but the key has nPublic = %u",
			 argv[optind + 1], n, vk.n_public);
		goto out;
	}
	int ok = zka_verify(&vk, (const uint64_t(*)[4])pub, n, &proof, &why);
	if (ok == 1) {
		printf("OK\n");
		status = 0;
	} else if (ok == 0) {
		printf("INVALID: %s\n", why);
		status = 1;
	} else {
		snprintf(err, sizeof err, "%s: %s", pp, why ? why : "malformed");
	}
out:
	if (status == 2)
		fprintf(stderr, "zkarena verify: %s\n", err);
	zka_vk_free(&vk);
	free(pub);
	return status;
}

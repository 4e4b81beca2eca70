/* cmd_zkey.c - the circom user's small tools, as snarkjs names them: `zkarena zkey export
 * verificationkey KEY vk.json` and `zkarena r1cs info FILE`. */
#include "tools/cli.h"
#include "zk/bellperson.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/r1cs.h"
#include "zk/zkey.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int zka_cmd_zkey(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf(
		    "usage: zkarena zkey export verificationkey circuit.zkey vk.json\n\n"
		    "Writes the Groth16 key's verification key as `snarkjs zkey export\n"
		    "verificationkey` does, byte for byte: protocol, curve, nPublic, vk_alpha_1,\n"
		    "vk_beta_2, vk_gamma_2, vk_delta_2, vk_alphabeta_12 (the pairing of alpha and\n"
		    "beta), IC. Written atomically.\n"
		    "A bellperson key (circuit.params, BLS12-381) gives its vk in the same form\n"
		    "(only its vk and ic are read), so snarkjs verifies zkarena's proof.json.\n"
		    "exit status: 0 written; 2 bad usage or input (nothing written).\n");
		return 0;
	}
	if (argc != 5 || strcmp(argv[1], "export") || strcmp(argv[2], "verificationkey")) {
		fprintf(stderr,
			"zkarena zkey: '%s': expected export verificationkey circuit.zkey vk.json "
			"(see zkarena zkey --help)\n",
			argc > 1 ? argv[1] : "");
		return 2;
	}
	char err[512] = "";
	zka_pk pk;
	zka_vk vk = {0};
	int r;
	if (zka_bp_is_params(argv[3])) { /* a bellperson key: its vk part only */
		if (zka_bp_read_vk(argv[3], &vk, err, sizeof err)) {
			fprintf(stderr, "zkarena zkey: %s\n", err);
			return 2;
		}
		r = 0;
	} else {
		if (zka_zkey_read(argv[3], &pk, err, sizeof err)) {
			fprintf(stderr, "zkarena zkey: %s\n", err);
			return 2;
		}
		r = zka_vk_from_pk(&vk, &pk);
		zka_pk_free(&pk);
	}
	if (r || (r = zka_vk_alphabeta(&vk))) {
		fprintf(stderr, "zkarena zkey: %s: %s\n", argv[3],
			r == -ENOMEM ? "out of memory" : "alpha or beta is the point at infinity");
		zka_vk_free(&vk);
		return 2;
	}
	r = zka_vk_write_json(argv[4], &vk, err, sizeof err);
	zka_vk_free(&vk);
	if (r) {
		fprintf(stderr, "zkarena zkey: %s\n", err);
		return 2;
	}
	return 0;
}

int zka_cmd_r1cs(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: zkarena r1cs info circuit.r1cs\n\n"
		       "Prints what `snarkjs r1cs info` prints (its lines without the [INFO]\n"
		       "prefix): the curve (bn-128 or bls12-381), the number of wires,\n"
		       "constraints, private inputs, public inputs, labels and outputs (the file\n"
		       "is read and checked whole).\n"
		       "exit status: 0; 2 bad usage or an unreadable or malformed file.\n");
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "info")) {
		fprintf(
		    stderr,
		    "zkarena r1cs: '%s': expected info circuit.r1cs (see zkarena r1cs --help)\n",
		    argc > 1 ? argv[1] : "");
		return 2;
	}
	char err[512] = "";
	zka_r1cs r;
	if (zka_r1cs_read(argv[2], &r, err, sizeof err)) {
		fprintf(stderr, "zkarena r1cs: %s\n", err);
		return 2;
	}
	printf("Curve: %s\n# of Wires: %u\n# of Constraints: %u\n# of Private Inputs: %u\n"
	       "# of Public Inputs: %u\n# of Labels: %llu\n# of Outputs: %u\n",
	       r.curve->id == ZKA_BN254 ? "bn-128" : "bls12-381", r.n_wires, r.n_constraints,
	       r.n_prv_in, r.n_pub_in, (unsigned long long)r.n_labels, r.n_pub_out);
	zka_r1cs_free(&r);
	return 0;
}

/* cmd_zkey.c - the circom user's small tools, as snarkjs names them: `zkarena zkey export
 * verificationkey KEY vk.json` and `zkarena r1cs info FILE`; and `zkarena zkey export
 * bellperson c.zkey c.params` (a snarkjs key in bellperson's layout, docs/bellperson.md). */
#include "tools/cli.h"
#include "zk/bellperson.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/r1cs.h"
#include "zk/zkey.h"

#include "tools/util.h"
#include "zk/opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* `zkey export bellperson c.zkey c.params [--threads N]`: argv[3], argv[4] the files */
static int export_bellperson(int argc, char **argv)
{
	int threads = 0;
	if (argc == 7 && !strcmp(argv[5], "--threads")) {
		if (zka_opt_int("zkarena zkey", "--threads", argv[6], 1, 1024, &threads))
			return 2;
	} else if (argc != 5) {
		fprintf(stderr, "zkarena zkey: expected export bellperson circuit.zkey "
				"circuit.params [--threads N] (see zkarena zkey --help)\n");
		return 2;
	}
	const char *in = argv[3], *out = argv[4];
	char err[512] = "";
	const zka_curve *curve;
	uint32_t nv;
	zka_pk pk;
	zka_bp_params bp;
	if (!zka_bp_is_params(out)) {
		fprintf(stderr, "zkarena zkey: %s: the output's name must end in .params\n", out);
		return 2;
	}
	char dir[4096];
	const char *slash = strrchr(out, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
	if (access(dir, W_OK | X_OK)) { /* said now, not after the conversion's minutes */
		fprintf(stderr, "zkarena zkey: %s: cannot write in %s: %s\n", out, dir,
			strerror(errno));
		return 2;
	}
	if (zka_zkey_peek(in, &curve, &nv, err, sizeof err)) {
		fprintf(stderr, "zkarena zkey: %s\n", err);
		return 2;
	}
	if (curve != &zka_curve_bls12_381) {
		fprintf(stderr,
			"zkarena zkey: %s: a %s key; bellperson .params keys are BLS12-381 only\n",
			in, curve->pretty);
		return 2;
	}
	double t0 = zka_now();
	if (zka_zkey_read_flags(in, &pk, ZKA_ZKEY_CHECK_ALL_POINTS, err, sizeof err)) {
		fprintf(stderr, "zkarena zkey: %s\n", err);
		return 2;
	}
	double t1 = zka_now();
	int r = zka_bp_from_zkey_pk(&pk, in, &bp, threads, err, sizeof err);
	double t2 = zka_now();
	uint32_t dom = pk.domain_size;
	zka_pk_free(&pk);
	if (r) {
		fprintf(stderr, "zkarena zkey: %s\n", err);
		return r == -ENOMEM ? 1 : 2;
	}
	r = zka_bp_write(out, &bp, err, sizeof err);
	zka_bp_free(&bp);
	if (r) {
		fprintf(stderr, "zkarena zkey: %s\n", err);
		return 1;
	}
	fprintf(stderr,
		"zkarena zkey: %s -> %s (domain %u: read and checked %.2f s, h by a DFT of the "
		"points %.2f s, written %.2f s)\n"
		"zkarena zkey: its rows are numbered by snarkjs's roots of unity: import or prove "
		"it with --root snarkjs (bellperson itself, which always uses 7^t, cannot prove "
		"with it)\n",
		in, out, dom, t1 - t0, t2 - t1, zka_now() - t2);
	return 0;
}

int zka_cmd_zkey(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf(
		    "usage: zkarena zkey export verificationkey circuit.zkey|circuit.params "
		    "vk.json\n"
		    "       zkarena zkey export bellperson circuit.zkey circuit.params "
		    "[--threads N]\n\n"
		    "Writes the Groth16 key's verification key as `snarkjs zkey export\n"
		    "verificationkey` does, byte for byte: protocol, curve, nPublic, vk_alpha_1,\n"
		    "vk_beta_2, vk_gamma_2, vk_delta_2, vk_alphabeta_12 (the pairing of alpha and\n"
		    "beta), IC. Written atomically.\n"
		    "A bellperson key (circuit.params, BLS12-381) gives its vk in the same form\n"
		    "(only its vk and ic are read), so snarkjs verifies zkarena's proof.json.\n"
		    "\n"
		    "export bellperson: a BLS12-381 .zkey's key in bellperson's .params layout\n"
		    "(Filecoin's Parameters::write): its vk and ic; l = its C points; a, b_g1,\n"
		    "b_g2 = its A, B1, B2 points without the variables that no coefficient of A\n"
		    "(B) names, the public ones always in a (the densities `import --r1cs` takes\n"
		    "from the circuit); h = bellperson's monomials [tau^j t(tau)/delta]_1, j < "
		    "n-1,\n"
		    "computed from the .zkey's H points by a DFT of the points (--threads N,\n"
		    "default one per CPU; every point of the .zkey is checked first). The rows\n"
		    "stay numbered by snarkjs's roots of unity, so the file proves only with\n"
		    "`zkarena import|prove circuit.params --r1cs circuit.r1cs --root snarkjs`;\n"
		    "bellperson itself (always 7^t) cannot prove with it. A BN254 key is refused.\n"
		    "Written atomically.\n"
		    "exit status: 0 written; 2 bad usage or input (nothing written); 1 out of\n"
		    "memory or a write failed (nothing written).\n");
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "export") && !strcmp(argv[2], "bellperson"))
		return export_bellperson(argc, argv);
	if (argc != 5 || strcmp(argv[1], "export") || strcmp(argv[2], "verificationkey")) {
		fprintf(stderr,
			"zkarena zkey: '%s': expected export verificationkey circuit.zkey vk.json "
			"or export bellperson circuit.zkey circuit.params (see zkarena zkey "
			"--help)\n",
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

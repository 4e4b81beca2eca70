/* cmd_setup.c - `zkarena setup --insecure circuit.r1cs circuit.zkey verification_key.json`:
 * a test-only Groth16 setup with known toxic waste (see zk/setup.h); with --format
 * bellperson, a bellperson .params key (zk/bellperson.h) of the same toxic waste. */
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/bellperson.h"
#include "zk/json_io.h"
#include "zk/opt.h"
#include "zk/r1cs.h"
#include "zk/setup.h"
#include "zk/zkey.h"
#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: zkarena setup --insecure [options] circuit.r1cs circuit.zkey "
		"verification_key.json\n"
		"\n"
		"A TEST-ONLY Groth16 setup: the toxic waste (tau, alpha, beta, gamma, delta) is "
		"derived\n"
		"from a seed, so anyone who knows the seed can forge proofs. Use it for benchmarks "
		"and\n"
		"tests with circuits too large for a local snarkjs ceremony; never for real keys.\n"
		"The .zkey is in snarkjs's format (snarkjs groth16 prove accepts it).\n"
		"\n"
		"options:\n"
		"  --insecure       required: acknowledges the above\n"
		"  --seed S         derive the toxic waste from the 64-bit integer S (default: "
		"random)\n"
		"  --format F       zkey (default) or bellperson: a Filecoin/bellperson .params\n"
		"                   key (BLS12-381 circuits; monomial H, bellperson's roots of\n"
		"                   unity) in place of circuit.zkey, from the same toxic waste\n"
		"  --setup-order    write sections in the order of `snarkjs groth16 setup`\n"
		"                   (1,2,4,3,9,8,5,6,7,10) instead of 1..10\n"
		"  --gpu            do the fixed-base multiplications on a CUDA device\n"
		"  --device N       CUDA device for --gpu (default 0)\n"
		"  --threads N      CPU threads (default: one per CPU it may run on)\n"
		"  --progress       a line per step on stderr with the time so far (the default\n"
		"                   when stderr is a terminal; --no-progress: none)\n"
		"  -h, --help       this text\n"
		"\n"
		"exit status: 0 written; 2 bad usage or input (nothing written); 1 failure.\n");
}

#ifdef ZKA_HAVE_CUDA
static int gpu_g1(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		  void *out)
{
	char err[256] = "";
	int r = zka_gpu_fixed_base_g1(ctx, c, base, k, n, out, err, sizeof err);
	if (r)
		fprintf(stderr, "zkarena setup: gpu: %s\n", err);
	return r;
}
static int gpu_g2(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		  void *out)
{
	char err[256] = "";
	int r = zka_gpu_fixed_base_g2(ctx, c, base, k, n, out, err, sizeof err);
	if (r)
		fprintf(stderr, "zkarena setup: gpu: %s\n", err);
	return r;
}
#endif

static struct timespec setup_t0;

static double since_t0(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - setup_t0.tv_sec) + (double)(t.tv_nsec - setup_t0.tv_nsec) * 1e-9;
}

/* --progress: one line per step of zka_setup, with the time so far. */
static void on_progress(int step, const char *what, uint64_t points)
{
	fprintf(stderr, "zkarena setup: [%d/%d] %s (%llu points) at %.1f s\n", step,
		ZKA_SETUP_STEPS, what, (unsigned long long)points, since_t0());
}

int zka_cmd_setup(int argc, char **argv)
{
	static const struct option opts[] = {{"insecure", no_argument, 0, 'i'},
					     {"seed", required_argument, 0, 'S'},
					     {"setup-order", no_argument, 0, 'o'},
					     {"gpu", no_argument, 0, 'g'},
					     {"device", required_argument, 0, 'd'},
					     {"threads", required_argument, 0, 't'},
					     {"progress", no_argument, 0, 'P'},
					     {"no-progress", no_argument, 0, 'N'},
					     {"format", required_argument, 0, 'F'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int insecure = 0, order = 0, gpu = 0, device = 0, threads = 0, have_seed = 0, opt;
	int bellperson = 0;
	int progress = isatty(2);
	uint64_t seed = 0;
	char *end;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			insecure = 1;
			break;
		case 'S':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || optarg[0] == '-') {
				fprintf(stderr,
					"zkarena setup: --seed: '%s' is not a 64-bit unsigned "
					"integer\n",
					optarg);
				return 2;
			}
			have_seed = 1;
			break;
		case 'P':
			progress = 1;
			break;
		case 'N':
			progress = 0;
			break;
		case 'o':
			order = 1;
			break;
		case 'F':
			if (strcmp(optarg, "zkey") && strcmp(optarg, "bellperson")) {
				fprintf(stderr,
					"zkarena setup: --format: '%s' is not zkey or bellperson\n",
					optarg);
				return 2;
			}
			bellperson = !strcmp(optarg, "bellperson");
			break;
		case 'g':
			gpu = 1;
			break;
		case 'd':
			if (zka_opt_int("zkarena setup", "--device", optarg, 0, 1023, &device))
				return 2;
			break;
		case 't':
			if (zka_opt_int("zkarena setup", "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (!insecure) {
		fprintf(stderr,
			"zkarena setup: refusing to run without --insecure: this setup's toxic "
			"waste is known, so its keys are for tests and benchmarks only\n");
		return 2;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "zkarena setup: expected 3 arguments: circuit.r1cs circuit.zkey "
				"verification_key.json (see --help)\n");
		return 2;
	}
	fprintf(stderr, "zkarena setup: WARNING: insecure setup with known toxic waste: keys are "
			"for testing only\n");
	const char *r1cs = argv[optind], *zkey = argv[optind + 1], *vkp = argv[optind + 2];
	char err[512] = "";
	zka_r1cs cs = {0};
	zka_pk pk = {0};
	zka_vk vk = {0};
	zka_toxic tw;
	zka_fixed_base_ops fb = {0}, *fbp = NULL;
	int status = 2, ret;
#ifdef ZKA_HAVE_CUDA
	zka_gpu *g = NULL;
#endif
	if (zka_r1cs_read(r1cs, &cs, err, sizeof err))
		goto out;
	if (bellperson && cs.curve != &zka_curve_bls12_381) {
		snprintf(err, sizeof err,
			 "%s: a %s circuit; bellperson .params keys are BLS12-381 only (circom "
			 "--prime bls12381)",
			 r1cs, cs.curve->pretty);
		goto out;
	}
	if (!have_seed && getrandom(&seed, sizeof seed, 0) != sizeof seed) {
		snprintf(err, sizeof err, "getrandom: %s", strerror(errno));
		status = 1;
		goto out;
	}
	zka_toxic_from_seed(&tw, cs.curve, seed);
	if (gpu) {
#ifdef ZKA_HAVE_CUDA
		if (zka_gpu_open(&g, device, err, sizeof err))
			goto out;
		fb = (zka_fixed_base_ops){.ctx = g, .g1 = gpu_g1, .g2 = gpu_g2};
		fbp = &fb;
		fprintf(stderr, "zkarena setup: fixed-base multiplications on %s\n",
			zka_gpu_device_name(g));
#else
		(void)fb;
		(void)device;
		snprintf(err, sizeof err, "--gpu: this zkarena was built without CUDA");
		goto out;
#endif
	}
	status = 1;
	if (progress) {
		clock_gettime(CLOCK_MONOTONIC, &setup_t0);
		zka_setup_progress = on_progress;
	}
	ret = bellperson
		  ? zka_setup_kind(&cs, &tw, &pk, fbp, threads, ZKA_H_MONOMIAL, ZKA_ROOT_GEN7)
		  : zka_setup(&cs, &tw, &pk, fbp, threads);
	if (progress)
		fprintf(stderr, "zkarena setup: key computed after %.1f s\n", since_t0());
	if (ret == -EINVAL) {
		snprintf(err, sizeof err,
			 "%s: circuit too large for the %s scalar field's roots of unity", r1cs,
			 cs.curve->pretty);
		status = 2;
		goto out;
	}
	if (ret) {
		snprintf(err, sizeof err, "setup failed: %s", strerror(-ret));
		goto out;
	}
	if (zka_vk_from_pk(&vk, &pk) || zka_vk_alphabeta(&vk)) {
		snprintf(err, sizeof err, "out of memory");
		goto out;
	}
	if (bellperson) {
		zka_bp_params bp;
		if (zka_bp_from_pk(&pk, &cs, &bp, err, sizeof err))
			goto out;
		ret = zka_bp_write(zkey, &bp, err, sizeof err);
		zka_bp_free(&bp);
		if (ret)
			goto out;
	} else if (zka_zkey_write(zkey, &pk, order, err, sizeof err)) {
		goto out;
	}
	if (zka_vk_write_json(vkp, &vk, err, sizeof err)) {
		unlink(zkey);
		goto out;
	}
	fprintf(stderr, "zkarena setup: %s, %u constraints, domain 2^%u, %u signals (%u public)\n",
		cs.curve->pretty, cs.n_constraints, pk.log_domain, pk.n_vars, pk.n_public);
	status = 0;
out:
	if (status)
		fprintf(stderr, "zkarena setup: %s\n", err);
#ifdef ZKA_HAVE_CUDA
	zka_gpu_close(g);
#endif
	zka_r1cs_free(&cs);
	zka_pk_free(&pk);
	zka_vk_free(&vk);
	return status;
}

/* cmd_keys.c - `zkarena import` (a .zkey into a .zka) and `zkarena params` (resident keys:
 * load, list, evict). */
#include "keys/zka_keys.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "witness/zka_wcimport.h"
#include "zk/opt.h"
#include "zk/zkey.h"

#include "shm/zka_arena.h"
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int zka_cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"r1cs", required_argument, 0, 'c'}, {"threads", required_argument, 0, 't'},
	    {"c", required_argument, 0, 'w'},	 {"root", required_argument, 0, 'R'},
	    {"help", no_argument, 0, 'h'},	 {0, 0, 0, 0}};
	const char *r1cs = NULL, *out = NULL, *cdir = NULL, *root = NULL;
	int threads = 0, opt, root_snarkjs = 0;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			r1cs = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'w':
			cdir = optarg;
			break;
		case 'R':
			root = optarg;
			break;
		case 't':
			if (zka_opt_int("zkarena import", "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'h':
			printf(
			    "usage: zkarena import circuit.zkey [--r1cs circuit.r1cs] [--c "
			    "circuit_cpp] -o circuit.zka\n"
			    "       zkarena import circuit.params --r1cs circuit.r1cs [--root "
			    "snarkjs|bellperson] -o circuit.zka\n\n"
			    "Turns a snarkjs Groth16 key into a .zka: the params region's image "
			    "(points\n"
			    "in the prover's form, A and B in CSR, the verification key, and with "
			    "--r1cs\n"
			    "the circuit), 4 KiB-aligned sections with XXH3 checksums, read at "
			    "disk speed\n"
			    "by the loader. Every point is checked once, here: on the curve and in "
			    "the\n"
			    "subgroup (--threads N, default one per CPU). Written atomically.\n"
			    "They are checked on the GPU where this build has CUDA and a device\n"
			    "(ZKA_VALIDATE_ON unset or auto: unless the key is small enough for\n"
			    "the CPU's threads to finish first; gpu: always; the line printed "
			    "says\n"
			    "where they were checked); ZKA_VALIDATE_ON=cpu: on the CPU.\n"
			    "--c DIR: circom's --c output of the circuit (compiled with the key's\n"
			    "--prime): its witness calculator is recorded once as a graph of "
			    "field\n"
			    "operations, written beside the key as circuit.zka.wcg, so that\n"
			    "`zkarena witness`, `prove` and `submit --input` start from "
			    "input.json.\n"
			    "Recording compiles circom's C++ (needs g++, libgmp-dev, "
			    "libxxhash-dev;\n"
			    "ZKA_CXX names another compiler); proving never does.\n"
			    "A bellperson key (circuit.params, BLS12-381) imports the same way "
			    "with\n"
			    "--r1cs (required: the points it omits are known from the circuit); "
			    "its\n"
			    ".zka proves with bellperson's monomial H, on the CPU or the GPU.\n"
			    "--root: the roots of unity that numbered the .params's rows when it "
			    "was\n"
			    "made (the file does not say): bellperson (default; 7^t, a bellperson "
			    "or\n"
			    "`setup --format bellperson` key) or snarkjs (a key converted by "
			    "`zkarena\n"
			    "zkey export bellperson`). The wrong one gives a key whose proofs do "
			    "not\n"
			    "verify (`prove` refuses them). Recorded in the .zka.\n"
			    "exit status: 0 written; 2 bad usage or bad key (nothing written).\n");
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 1 || !out) {
		fprintf(stderr,
			"zkarena import: expected circuit.zkey -o circuit.zka (see --help)\n");
		return 2;
	}
	if (root && zka_cli_root("import", root, argv[optind], &root_snarkjs))
		return 2;
	char err[1024] = "", wcg[4096] = "", wtmp[4200] = "";
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (cdir) { /* the graph first, under a temporary name: a failure leaves nothing */
		const zka_curve *curve;
		uint32_t nv;
		int r = zka_zkey_peek(argv[optind], &curve, &nv, err, sizeof err);
		if (!r) {
			snprintf(wcg, sizeof wcg, "%s.wcg", out);
			snprintf(wtmp, sizeof wtmp, "%s.%d.tmp", wcg, (int)getpid());
			fprintf(stderr, "zkarena import: recording %s's witness graph ...\n", cdir);
			r = zka_wc_build(cdir, curve, wtmp, err, sizeof err);
		}
		if (r) {
			fprintf(stderr, "zkarena import: %s\n", err);
			return r == -ENOMEM ? 1 : 2;
		}
	}
	int r = zka_keys_import_root(argv[optind], r1cs,
				     root_snarkjs ? ZKA_ROOT_SNARKJS : ZKA_ROOT_GEN7, out, threads,
				     1, err, sizeof err);
	if (!r && cdir && rename(wtmp, wcg)) {
		r = -errno;
		snprintf(err, sizeof err, "%s: %s", wcg, strerror(errno));
		unlink(out);
	}
	if (r) {
		if (cdir)
			unlink(wtmp);
		fprintf(stderr, "zkarena import: %s\n", err);
		return r == -ENOMEM ? 1 : 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	zka_keys_times kt;
	zka_keys_last_times(&kt);
	fprintf(stderr,
		"zkarena import: %s -> %s in %.2f s (read %.2f, parse %.2f, csr %.2f, fill %.2f, "
		"validate %.2f, write %.2f; %s %.2f; points validated%s)\n",
		argv[optind], out,
		(double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec), kt.read,
		kt.parse, kt.csr, kt.fill, kt.validate, kt.write,
		kt.overlapped ? "overlapped, wall" : "sequential, wall", kt.wall,
		zka_keys_validated_where());
	return 0;
}

static int params_load(int argc, char **argv)
{
	static const struct option opts[] = {{"r1cs", required_argument, 0, 'c'},
					     {"no-cache", no_argument, 0, 'n'},
					     {"threads", required_argument, 0, 't'},
					     {"root", required_argument, 0, 'R'},
					     {0, 0, 0, 0}};
	zka_keys_opts ko = {.shm = "", .progress = -1, .no_resident = 0};
	const char *root = NULL;
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			ko.r1cs = optarg;
			break;
		case 'n':
			ko.no_cache = 1;
			break;
		case 'R':
			root = optarg;
			break;
		case 't':
			if (zka_opt_int("zkarena params load", "--threads", optarg, 1, 1024,
					&ko.threads))
				return 2;
			break;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena params load: expected FILE (.zka or .zkey)\n");
		return 2;
	}
	if (root && zka_cli_root("params load", root, argv[optind], &ko.root_snarkjs))
		return 2;
	zka_params p;
	zka_keys_info ki;
	char err[1024] = "";
	int r = zka_keys_open(argv[optind], &ko, &p, &ki, err, sizeof err);
	if (r) {
		fprintf(stderr, "zkarena params load: %s\n", err);
		return r == -EBADMSG || r == -EINVAL || r == -ENOENT ? 2 : 1;
	}
	printf("%s %s: %s, domain 2^%u, %zu bytes, %.3f s (%s)\n",
	       ki.resident ? "already resident:" : "resident:", ki.shm, p.pk.curve->pretty,
	       (unsigned)__builtin_ctz(p.pk.domain_size), p.size, ki.seconds, ki.how);
	zka_params_close(&p);
	return 0;
}

static int params_list(void)
{
	zka_keys_region *v;
	int n = zka_keys_list(&v);
	if (n < 0) {
		fprintf(stderr, "zkarena params list: /dev/shm: %s\n", strerror(-n));
		return 1;
	}
	printf("%-16s %-8s %-24s %-9s %6s %12s %8s %7s  %s\n", "ID", "KIND", "CIRCUIT", "CURVE",
	       "DOMAIN", "BYTES", "LOAD_S", "GB/S", "MAPPED BY");
	for (int i = 0; i < n; i++) {
		zka_keys_region *r = &v[i];
		const char *id = r->resident ? r->name + 9 : r->name + 1;
		if (!r->ok) {
			printf("%-16s %-8s (bad or old header)\n", id,
			       r->resident ? "resident" : "arena");
			continue;
		}
		double s = r->has_res ? r->res.seconds : 0;
		printf("%-16s %-8s %-24.24s %-9s 2^%-4u %12llu %8.3f %7.2f  %s\n", id,
		       r->resident ? "resident" : "arena",
		       r->info.src_name[0] ? r->info.src_name : "?", r->info.curve->pretty,
		       (unsigned)__builtin_ctz(r->info.domain_size), (unsigned long long)r->size, s,
		       s > 0 ? 1e-9 * (double)r->size / s : 0.0, r->mappers[0] ? r->mappers : "-");
	}
	free(v);
	return 0;
}

/* The arenas this process can read whose circuit table names region (a LOADED entry), as
 * "arena A (key K), ..." in out; their count. */
static int arenas_using(const char *region, char *out, size_t n)
{
	DIR *d = opendir("/dev/shm");
	int hits = 0;
	size_t used = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *an = e->d_name + 8;
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "zkarena-", 8) ||
		    (l > 7 && !strcmp(e->d_name + l - 7, "-status")))
			continue;
		struct zka_arena *a;
		const char *msg = NULL;
		if (zka_arena_open(an, ZKA_OPEN_RDONLY | ZKA_OPEN_SHARED, &a, &msg))
			continue;
		struct zka_arena_geometry g;
		zka_arena_geometry(a, &g);
		for (uint32_t i = 0; i < g.ncircuits; i++) {
			struct zka_circuit_info ci;
			if (zka_circuit_info(a, i, &ci) || strcmp(ci.params_shm, region))
				continue;
			int k = snprintf(out + used, n - used, "%sarena %s (key %.200s)",
					 hits ? ", " : "", an, ci.key_path);
			hits++;
			if (k > 0 && (size_t)k < n - used)
				used += (size_t)k;
		}
		zka_arena_close(a);
	}
	if (d)
		closedir(d);
	return hits;
}

/* params gc [--max SIZE]: the cache pruned to SIZE (default its cap); 0, or 2 on bad usage or
 * an unusable cache directory. */
static int params_gc(int argc, char **argv)
{
	char dir[PATH_MAX], err[600];
	uint64_t max, left = 0;
	int given = argc == 3 && !strcmp(argv[1], "--max");
	if (given) {
		if (setenv("ZKARENA_CACHE_MAX", argv[2], 1))
			return 2;
	} else if (argc != 1) {
		fprintf(stderr,
			"zkarena params gc: expected [--max SIZE] (see zkarena params --help)\n");
		return 2;
	}
	if (zka_keys_cache_max(&max, err, sizeof err)) {
		fprintf(stderr, "zkarena params gc: %s\n", err);
		return 2;
	}
	zka_keys_cache_dir(dir, sizeof dir);
	if (zka_keys_cache_check(dir, 0, err, sizeof err)) {
		fprintf(stderr, "zkarena params gc: %s\n", err);
		return 2;
	}
	/* --max 0 empties the cache; a cap of 0 in the environment means none */
	int n = zka_keys_cache_gc(dir, max || given ? max : UINT64_MAX, NULL, stderr, &left);
	if (n < 0) {
		fprintf(stderr, "zkarena params gc: %s: %s\n", dir, strerror(-n));
		return 1;
	}
	printf("key cache %s: %d entr%s removed, %llu bytes left (cap %llu)\n", dir, n,
	       n == 1 ? "y" : "ies", (unsigned long long)left, (unsigned long long)max);
	return 0;
}

int zka_cmd_params(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(
		    f,
		    "usage: zkarena params load FILE [--r1cs circuit.r1cs] [--no-cache] [--root "
		    "snarkjs|bellperson]\n"
		    "       zkarena params list\n"
		    "       zkarena params evict ID [--force]\n"
		    "       zkarena params gc [--max SIZE]\n\n"
		    "Resident keys: `load` reads a .zka (or a .zkey, through the cache) into a\n"
		    "params region /dev/shm/zka-key.ID that outlives every process; `prove`,\n"
		    "`submit` and the pipeline then use it without opening the key file. `list`\n"
		    "shows each region (circuit, curve, bytes, load time and GB/s, the processes\n"
		    "that map it); `evict` removes one (processes that map it keep their copy);\n"
		    "it refuses a region an arena's circuit table names (destroy the arena first,\n"
		    "or --force). Only regions of this user (or of a uid in ZKARENA_KEY_OWNERS,\n"
		    "comma-separated) are used; root uses only root's.\n"
		    "A .params key (bellperson) needs --r1cs; --root as for `zkarena import`\n"
		    "(snarkjs for a key converted by `zkey export bellperson`).\n"
		    "`gc` prunes this user's key cache (imported .zkey files, see `prove --help`)\n"
		    "to SIZE bytes (K/M/G/T suffix; default: the cap, $ZKARENA_CACHE_MAX or 64G),\n"
		    "least recently used entries first; every new cache entry does the same.\n");
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "load"))
		return params_load(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return params_list();
	if (!strcmp(argv[1], "evict")) {
		char err[256], name[64], users[600] = "";
		int force = argc == 4 && !strcmp(argv[3], "--force");
		if (argc != 3 && !force) {
			fprintf(stderr,
				"zkarena params evict: expected ID [--force] (from `zkarena "
				"params list`)\n");
			return 2;
		}
		if (zka_keys_resolve(argv[2], name, err, sizeof err) == 0 &&
		    arenas_using(name, users, sizeof users) && !force) {
			fprintf(stderr,
				"zkarena params evict: %s serves %s: evicting it would leave them "
				"pointing at a missing region; destroy those arenas first (or pass "
				"--force)\n",
				name, users);
			return 2;
		}
		if (zka_keys_evict(argv[2], err, sizeof err)) {
			fprintf(stderr, "zkarena params evict: %s\n", err);
			return 2;
		}
		printf("evicted %s\n", argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "gc"))
		return params_gc(argc - 1, argv + 1);
	fprintf(stderr,
		"zkarena params: unknown subcommand '%s' (load, list, evict, gc; see zkarena "
		"params --help)\n",
		argv[1]);
	return 2;
}

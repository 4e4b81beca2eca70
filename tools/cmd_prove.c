/* cmd_prove.c - `zkarena prove [options] circuit.zkey witness.wtns proof.json public.json`:
 * the snarkjs/rapidsnark-compatible prover command, on the CPU or (--gpu) on a CUDA device. */
#include "keys/zka_keys.h"
#include "shm/zka_arena.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/abc.h"
#include "zk/bellperson.h"
#include "zk/decimal.h"
#include "zk/fmt_atomic.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/opt.h"
#include "zk/r1cs.h"
#include "zk/wtns.h"
#include "zk/zkey.h"
#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"
#include "gpud/devkey.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena prove [options] circuit.zkey|circuit.zka witness.wtns proof.json "
	    "public.json\n"
	    "       zkarena prove [options] circuit.zka input.json proof.json public.json\n"
	    "\n"
	    "Proves with a snarkjs Groth16 key (BN254 or BLS12-381, taken from the key) and a\n"
	    "circom witness; writes proof.json and public.json as snarkjs does, atomically.\n"
	    "Given input.json (a name ending in .json) it first computes the witness, as\n"
	    "`snarkjs groth16 fullprove` does, with the graph `import --c` recorded beside the\n"
	    "key (circuit.zka.wcg); see `zkarena witness --help`.\n"
	    "The proof is verified before it is written (unless --no-verify).\n"
	    "The key: a resident region of it when one exists (`zkarena params load`: no key\n"
	    "file is opened), else the .zka read with io_uring, else the .zkey imported once\n"
	    "into the cache directory ($ZKARENA_CACHE) and read from there afterwards.\n"
	    "An import checks every point (on the curve, in the subgroup) while the proof is\n"
	    "computed; nothing is verified or written before every point passed (a bad key:\n"
	    "exit 2 naming the section and the point, no output, no cache entry).\n"
	    "\n"
	    "options:\n"
	    "  --arena NAME     hand the proof to the running pipeline of arena NAME (`zkarena\n"
	    "                   run`): submit, wait, write the two files; the key is loaded into\n"
	    "                   the arena once (--gpu, --threads, --r/--s do not apply)\n"
	    "  --no-cache       import a .zkey in memory, without reading or writing the cache\n"
	    "  --r1cs FILE      check that the witness satisfies the circuit first and name the\n"
	    "                   first failing constraint instead of proving\n"
	    "  --gpu            prove on a CUDA device (zkarena must be built with CUDA)\n"
	    "  --device N       CUDA device index for --gpu (default 0)\n"
	    "                   (--gpu loads the key for this one proof, without the window\n"
	    "                   tables zkarena-gpud builds for the keys it keeps: building them\n"
	    "                   costs more than they save on a single proof)\n"
	    "  --threads N      CPU threads (default: one per CPU it may run on)\n"
	    "  --no-verify      skip the self-check of the proof\n"
	    "  --times          print per-stage times to stderr, the key load its own stage\n"
	    "                   (a .zkey imported: its stages read, parse, csr, fill,\n"
	    "                   validate, write), and the number of key files this process\n"
	    "                   opened\n"
	    "  --r DEC --s DEC  fixed prover randomness (testing only: reusing r, s with two\n"
	    "                   witnesses leaks them); default: fresh from getrandom(2)\n"
	    "  --bellperson-proof FILE  also write the proof's 192 bytes (bellperson's\n"
	    "                   compressed A, B, C; BLS12-381 keys)\n"
	    "  --root snarkjs|bellperson  a .params key's roots of unity (the file does not\n"
	    "                   say): bellperson's 7^t (default) or snarkjs's, for a key\n"
	    "                   converted by `zkarena zkey export bellperson`; part of the\n"
	    "                   key's cache identity. The wrong one: the proof does not\n"
	    "                   verify, exit 1, nothing written (with --no-verify: a wrong\n"
	    "                   proof is written)\n"
	    "\n"
	    "A bellperson key (circuit.params, BLS12-381; docs/bellperson.md) needs --r1cs:\n"
	    "the points it omits are known from the circuit. It is imported through the cache\n"
	    "like a .zkey and proves with bellperson's monomial H, on the CPU or on the\n"
	    "device (--gpu; an --arena on a GPU): the same proof for the same r and s.\n"
	    "  -h, --help       this text\n"
	    "\n"
	    "environment:\n"
	    "  ZKA_PROVE_UPLOAD=staged[:T]|staged-mapped[:T]|registered  how --gpu copies a\n"
	    "                   resident key (one not registered while read from disk):\n"
	    "                   staged: T threads (default: half the CPUs, 2..8) pread it from\n"
	    "                   the region's file into pinned buffers; staged-mapped: they\n"
	    "                   copy it from the region's mapping; registered: its memory is\n"
	    "                   registered with CUDA first\n"
	    "\n"
	    "exit status: 0 proof written; 2 bad usage or bad input (nothing written);\n"
	    "1 the proof could not be produced (nothing written).\n");
}

/* a = A w, b = B w and c = a .* b, in Montgomery form, from the region's CSR matrices
 * (zk/abc.h); c NULL: a and b only, in standard form, as a slot holds them (the device
 * converts them and makes c: zka_gpu_prove_ab), with no Montgomery conversion of the witness. */
static int params_abc(const zka_params *p, const zka_witness *w, uint64_t (*a)[4], uint64_t (*b)[4],
		      uint64_t (*c)[4], int threads)
{
	int std = c == NULL;
	uint64_t(*vs)[4] = std ? zka_abc_values_std(&p->abc) : NULL;
	uint64_t(*wm)[4] = zka_abc_scratch(w->n); /* huge pages: the row loop reads it at random */
	int r = -ENOMEM;
	if (wm && (vs || !std)) {
		uint64_t *cls = zka_abc_scratch_cls(wm, w->n);
		int64_t bad = zka_abc_witness_mem(p->pk.curve, (const uint64_t(*)[4])w->w, w->n, wm,
						  cls, std, threads);
		r = bad ? -EINVAL
			: zka_abc_compute(&p->abc, (const uint64_t(*)[4])wm, cls,
					  (const uint64_t(*)[4])vs, a, b, c, threads);
	}
	zka_abc_scratch_free(wm, w->n);
	free(vs);
	return r;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU prover from a params region. */
static int prove_cpu(const zka_params *p, const zka_witness *w, const zka_rs *rs, zka_proof *proof,
		     const zka_prove_opts *o, zka_prove_times *t)
{
	size_t n = p->pk.domain_size;
	int ret = -ENOMEM;
	double t0 = mono();
	uint64_t(*a)[4] = malloc(n * sizeof *a), (*b)[4] = malloc(n * sizeof *b),
	(*c)[4] = malloc(n * sizeof *c);
	if (!a || !b || !c)
		goto err;
	if ((ret = params_abc(p, w, a, b, c, o->threads)))
		goto err;
	double t1 = mono();
	ret = zka_prove_abc(&p->pk, a, b, c, (const uint64_t(*)[4])w->w, rs, proof, o, t);
	t->abc = t1 - t0;
	t->total = mono() - t0;
err:
	free(a);
	free(b);
	free(c);
	return ret;
}

/* --gpu: the key's way to the device (CUDA's start, the registration of its memory, the upload)
 * runs on a thread of its own beside the key's read, the witness and a, b (issue 18: a
 * one-shot proof of BN254 2^22 in 0.6 s): gpud/devkey.h, zka_devkey_prep. */
#ifndef ZKA_HAVE_CUDA
typedef struct zka_devkey_prep zka_devkey_prep; /* never made without CUDA */
#endif

/* --times' GPU stages: the prep thread's (beside the main thread's work) and the main
 * thread's wait for it */
typedef struct {
	double open, pop, pin, key, abc, wait, reg, prove, teardown, stage;
	int pin_early; /* the key's memory was registered during its read */
	int staged;    /* the staged upload's threads (0: registered) */
	int reg_early; /* a, b and w were registered beside the staged upload, before the wait */
	int reader;    /* the staged upload read the resident region's file */
	char pop_note[96];
	int want_device; /* set by the caller (--times): device gets zka_gpu_device_desc */
	char device[384];
} gpu_stages;

/* The proof on the device once the preparation (*xp) is joined; ends the preparation (*xp
 * NULL then) on every path. */
static int prove_gpu(const zka_params *p, const zka_witness *w, const zka_rs *rs,
		     zka_devkey_prep **xp, zka_proof *proof, zka_prove_times *t, gpu_stages *gs,
		     char *err, size_t errlen)
{
#ifdef ZKA_HAVE_CUDA
	const zka_pk *pk = &p->pk;
	size_t n = pk->domain_size;
	uint64_t(*a)[4] = NULL, (*b)[4] = NULL;
	int ret = -ENOMEM;
	double t0 = mono(), t1;
	zka_gpu_pin *abw = NULL;
	zka_devkey_prep *x = *xp;
	zka_devkey_report rep;
	/* huge pages: a tenth of the page faults, and registered in a third of the time (THP
	 * anonymous 1.6 GB: 0.035 s against 0.08-0.12 s for 4 KiB pages; H200 box, 2026-12-02) */
	a = zka_abc_scratch(n);
	b = zka_abc_scratch(n);
	if (!a || !b) {
		snprintf(err, errlen, "out of memory for a, b (%zu entries)", n);
		goto err;
	}
	/* a and b only, in standard form: the device converts them and makes c = a .* b (one
	 * buffer less to fill, to register and to copy; no Montgomery conversion here) */
	ret = params_abc(p, w, a, b, NULL, 0);
	if (ret) {
		snprintf(err, errlen, "computing a, b failed (%s)", strerror(-ret));
		goto err;
	}
	t1 = mono();
	gs->abc = t1 - t0;
	/* the buffers are ours and not pinned: register them (in parallel) for full-speed copies;
	 * beside the key's copy when it is staged, else after the join (beside the key's
	 * registration both took longer, H200 2026-12-03, s18-c) */
	const void *bp[3] = {a, b, w->w};
	size_t bl[3] = {n * sizeof *a, n * sizeof *b, (size_t)w->n * sizeof *w->w};
	if ((gs->reg_early = zka_devkey_prep_abw_early(x))) {
		double t2 = mono();
		if ((ret = zka_gpu_pin_ranges(zka_devkey_prep_gpu(x), bp, bl, 3, 0, &abw, err,
					      errlen)))
			goto err;
		gs->reg = mono() - t2;
	}
	ret = zka_devkey_prep_join(x, &rep, err, errlen);
	gs->wait = mono() - t1; /* (the early registration included) */
	gs->open = rep.open;
	gs->pop = rep.pop;
	if (rep.pop_errno)
		snprintf(gs->pop_note, sizeof gs->pop_note, " (MADV_POPULATE_READ: %s)",
			 strerror(rep.pop_errno));
	gs->pin = rep.pin;
	gs->pin_early = rep.pin_early;
	gs->key = rep.key;
	gs->staged = rep.staged;
	gs->stage = rep.stage;
	gs->reader = rep.reader;
	if (ret)
		goto err;
	zka_gpu *g = zka_devkey_prep_gpu(x);
	fprintf(stderr, "zkarena prove: device %d: %s\n", rep.device, zka_gpu_device_name(g));
	if (gs->want_device && zka_gpu_device_desc(g, gs->device, sizeof gs->device))
		gs->device[0] = 0; /* (a message: the --times line is left out) */
	if (rep.stage_note[0])
		fprintf(stderr, "zkarena prove: %s\n", rep.stage_note);
	if (rep.reader_note[0] && rep.staged)
		fprintf(stderr, "zkarena prove: %s\n", rep.reader_note);
	if (rep.pin_note[0])
		fprintf(stderr, "zkarena prove: %s\n", rep.pin_note);
	if (rep.staged)
		fprintf(stderr,
			"zkarena prove: key copied %s through pinned buffers by %d threads "
			"(staged upload; ZKA_PROVE_UPLOAD=registered registers it instead)\n",
			rep.reader ? "from the resident region's file (pread, its pages never "
				     "mapped)"
				   : "from pageable memory",
			rep.staged);
	t1 = mono();
	if (!abw && (ret = zka_gpu_pin_ranges(g, bp, bl, 3, 0, &abw, err, errlen)))
		goto err;
	if (!gs->reg_early)
		gs->reg = mono() - t1;
	fprintf(stderr, "zkarena prove: registered a, b and the witness with "
			"cudaHostRegister (pinned, no staging copy); c made on the device\n");
	fprintf(stderr, "zkarena prove: key on the device: %s\n",
		zka_gpu_key_mode(zka_devkey_prep_key(x)));
	t1 = mono();
	ret = zka_gpu_prove_ab(g, zka_devkey_prep_key(x), (const uint64_t(*)[4])a,
			       (const uint64_t(*)[4])b, 1, (const uint64_t(*)[4])w->w, rs, proof, t,
			       err, errlen);
	gs->prove = mono() - t1;
err:
	zka_gpu_unpin(abw); /* before a, b and w are freed */
	t1 = mono();
	zka_devkey_prep_end(x);
	*xp = NULL;
	gs->teardown = mono() - t1;
	zka_abc_scratch_free(a, n);
	zka_abc_scratch_free(b, n);
	return ret;
#else
	(void)p, (void)w, (void)rs, (void)xp, (void)proof, (void)t, (void)gs;
	snprintf(err, errlen, "--gpu: this zkarena was built without CUDA (no nvcc at build time)");
	return -ENOTSUP;
#endif
}

/* Moves src to dst (rename, or a copy across file systems). */
static int move_file(const char *src, const char *dst, char *err, size_t errlen)
{
	if (rename(src, dst) == 0)
		return 0;
	if (errno != EXDEV) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		return -errno;
	}
	FILE *in = fopen(src, "rb"), *out = NULL;
	char tmp[PATH_MAX], buf[65536];
	int ret = 0;
	snprintf(tmp, sizeof tmp, "%s.tmp%d", dst, (int)getpid());
	if (!in || !(out = fopen(tmp, "wb")))
		ret = -errno;
	for (size_t n; !ret && (n = fread(buf, 1, sizeof buf, in)) > 0;)
		if (fwrite(buf, 1, n, out) != n)
			ret = -EIO;
	if (in)
		fclose(in);
	if (out && fclose(out) && !ret)
		ret = -EIO;
	if (!ret && rename(tmp, dst))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", dst, strerror(-ret));
	} else
		unlink(src);
	return ret;
}

/* `prove --arena NAME`: the job through a running pipeline, its two files moved into place. */
static int prove_arena(const char *name, const char *zkey, const char *r1cs, const char *wtns,
		       const char *proof_path, const char *public_path, int times)
{
	char err[1024] = "", dir[PATH_MAX], pdir[PATH_MAX], src[PATH_MAX + 32];
	double t0 = mono();
	snprintf(pdir, sizeof pdir, "%s", proof_path);
	snprintf(dir, sizeof dir, "%s/.zkarena-prove-XXXXXX", dirname(pdir));
	if (!mkdtemp(dir)) {
		fprintf(stderr, "zkarena prove: %s: cannot make a directory for the job: %s\n", dir,
			strerror(errno));
		return 2;
	}
	struct zka_arena *a = zka_pipe_attach("zkarena prove", name, 0);
	uint64_t id = 0;
	int status = 2;
	struct zka_job_info ji;
	if (!a)
		goto out;
	if (zka_client_submit(a, name, zkey, r1cs, wtns, dir, &id, err, sizeof err))
		goto out;
	double t1 = mono();
	int r = zka_job_wait(a, id, -1, &ji);
	if (r == 1) {
		/* a witness the key or the circuit refuses is bad input, as for `prove`; so is an
		 * input.json that fails circom's assert or its signals (witness/zka_witness.h) */
		int bad_input =
		    strstr(ji.reason, "witness") || strstr(ji.reason, "does not satisfy") ||
		    strstr(ji.reason, ".wtns") || strstr(ji.reason, "circuit assert failed") ||
		    strstr(ji.reason, ".json:");
		snprintf(err, sizeof err, "job %llu failed: %s", (unsigned long long)id, ji.reason);
		status = bad_input ? 2 : 1;
		goto out;
	}
	if (r) {
		snprintf(err, sizeof err, "job %llu: %s", (unsigned long long)id, strerror(-r));
		status = 1;
		goto out;
	}
	status = 1;
	snprintf(src, sizeof src, "%s/public.json", dir);
	if (move_file(src, public_path, err, sizeof err))
		goto out;
	snprintf(src, sizeof src, "%s/proof.json", dir);
	if (move_file(src, proof_path, err, sizeof err)) {
		unlink(public_path); /* never leave half of the output */
		goto out;
	}
	if (times)
		fprintf(stderr,
			"zkarena prove: arena %s job %llu: submit (key in the arena) %.3f s, "
			"queued to done %.3f s, total %.3f s\n",
			name, (unsigned long long)id, t1 - t0, mono() - t1, mono() - t0);
	status = 0;
out:
	if (status)
		fprintf(stderr, "zkarena prove: %s\n", err[0] ? err : "cannot reach the arena");
	if (a) {
		if (id) {
			char mk[PATH_MAX + 96];
			zka_client_marker(mk, sizeof mk, a, dir, id);
			unlink(mk);
			zka_job_release(a, id);
		}
		zka_arena_close(a);
	}
	snprintf(src, sizeof src, "%s/proof.json", dir);
	unlink(src);
	snprintf(src, sizeof src, "%s/public.json", dir);
	unlink(src);
	rmdir(dir);
	return status;
}

/* --bellperson-proof: the proof's 192 bytes, atomically. 0 or -errno with err. */
static int write_bp_proof(const char *path, const zka_proof *proof, char *err, size_t errlen)
{
	uint8_t b[ZKA_BP_PROOF_BYTES];
	zka_atomic a;
	zka_bp_proof_encode(proof, b);
	int r = zka_atomic_open(&a, path);
	if (!r && (r = zka_atomic_write(&a, b, sizeof b)))
		zka_atomic_abort(&a);
	else if (!r)
		r = zka_atomic_commit(&a);
	if (r)
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	return r;
}

int zka_cmd_prove(int argc, char **argv)
{
	static const struct option opts[] = {{"r1cs", required_argument, 0, 'c'},
					     {"gpu", no_argument, 0, 'g'},
					     {"device", required_argument, 0, 'd'},
					     {"threads", required_argument, 0, 't'},
					     {"no-verify", no_argument, 0, 'n'},
					     {"times", no_argument, 0, 'T'},
					     {"r", required_argument, 0, 'r'},
					     {"s", required_argument, 0, 's'},
					     {"no-cache", no_argument, 0, 'N'},
					     {"arena", required_argument, 0, 'a'},
					     {"bellperson-proof", required_argument, 0, 'B'},
					     {"root", required_argument, 0, 'R'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *r1cs_path = NULL, *r_dec = NULL, *s_dec = NULL, *arena = NULL, *bp_out = NULL,
		   *root = NULL;
	int root_snarkjs = 0, gpu = 0, device = 0, threads = 0, verify = 1, times = 0, no_cache = 0,
	    opt;
	char err[1024] = "";
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			r1cs_path = optarg;
			break;
		case 'g':
			gpu = 1;
			break;
		case 'd':
			if (zka_opt_int("zkarena prove", "--device", optarg, 0, 1023, &device))
				return 2;
			break;
		case 't':
			if (zka_opt_int("zkarena prove", "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'n':
			verify = 0;
			break;
		case 'T':
			times = 1;
			break;
		case 'r':
			r_dec = optarg;
			break;
		case 's':
			s_dec = optarg;
			break;
		case 'N':
			no_cache = 1;
			break;
		case 'a':
			arena = optarg;
			break;
		case 'B':
			bp_out = optarg;
			break;
		case 'R':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 4) {
		fprintf(stderr, "zkarena prove: expected 4 arguments: circuit.zkey witness.wtns "
				"proof.json public.json (see --help)\n");
		return 2;
	}
	if ((r_dec == NULL) != (s_dec == NULL)) {
		fprintf(stderr, "zkarena prove: --r and --s go together\n");
		return 2;
	}
	const char *zkey = argv[optind], *wtns = argv[optind + 1], *proof_path = argv[optind + 2],
		   *public_path = argv[optind + 3];
	int bellperson = zka_params_is_bellperson(zkey);
	if (root && zka_cli_root("prove", root, zkey, &root_snarkjs))
		return 2;
	if (bellperson && !r1cs_path) {
		fprintf(stderr,
			"zkarena prove: %s: a bellperson key needs its circuit (--r1cs "
			"circuit.r1cs): the points it omits are known from the circuit only\n",
			zkey);
		return 2;
	}
	if (arena) {
		if (r_dec || gpu || no_cache) {
			fprintf(stderr,
				"zkarena prove: --arena: the pipeline chooses r, s and the device "
				"itself (drop --r/--s, --gpu, --no-cache)\n");
			return 2;
		}
		return prove_arena(arena, zkey, r1cs_path, wtns, proof_path, public_path, times);
	}
	zka_params p = {0};
	zka_witness w = {0};
	zka_r1cs cs = {0};
	zka_proof proof;
	zka_rs rs;
	zka_prove_times t = {0};
	zka_keys_info ki = {0};
	zka_keys_opts ko = {.no_cache = no_cache,
			    .threads = threads,
			    .progress = -1,
			    .defer_validate = 1, /* a first import's checks beside the proof */
			    .r1cs = bellperson ? r1cs_path : NULL, /* its densities */
			    .root_snarkjs = root_snarkjs};
	int status = 2, ret;
	zka_devkey_prep *gx = NULL; /* --gpu's preparation, ended on every path */
	gpu_stages gs = {0};
	gs.want_device = times;
	double t_start = mono();
#ifndef ZKA_HAVE_CUDA
	(void)device; /* --gpu fails in prove_gpu, after the inputs are checked */
#else
	if (gpu &&
	    (ret = zka_devkey_prep_start(&gx, device))) { /* CUDA starts while the key loads */
		snprintf(err, sizeof err, "cannot start the GPU thread: %s", strerror(-ret));
		status = 1;
		goto err;
	}
	if (gpu) { /* a key read from a .zka is registered while its reads are in flight */
		ko.on_region = zka_devkey_prep_region;
		ko.on_region_drop = zka_devkey_prep_region_drop;
		ko.region_arg = gx;
	}
#endif

	if (zka_keys_open(zkey, &ko, &p, &ki, err, sizeof err))
		goto err;
#ifdef ZKA_HAVE_CUDA
	if (gpu && ki.resident)
		zka_devkey_prep_reader(gx, ki.shm,
				       &p); /* a staged upload reads the region's file */
	if (gpu)
		zka_devkey_prep_post(gx,
				     &p); /* the key's upload runs beside the witness and a, b */
#endif
	size_t wl = strlen(wtns);
	double wsecs = -1;
	struct zka_witness_times wt;
	if (wl > 5 && !strcmp(wtns + wl - 5, ".json")) { /* fullprove: the witness of input.json */
		if (zka_witness_from_input(zkey, wtns, &w, &wt, err, sizeof err))
			goto err;
		wsecs = wt.eval;
	} else if (zka_wtns_read(wtns, &w, err, sizeof err)) {
		goto err;
	}
	if (wsecs >= 0 && times)
		fprintf(stderr,
			"zkarena prove: witness of %s computed in %.3f s (graph %.3f s: %s)\n",
			wtns, wsecs, wt.graph, wt.how);
	const zka_pk *pk = &p.pk;
	if (bp_out && pk->curve != &zka_curve_bls12_381) {
		snprintf(err, sizeof err, "--bellperson-proof: %s is a %s key (BLS12-381 only)",
			 zkey, pk->curve->pretty);
		goto err;
	}
	if (w.curve != pk->curve) {
		snprintf(err, sizeof err, "%s: witness is for %s but %s is a %s key", wtns,
			 w.curve->pretty, zkey, pk->curve->pretty);
		goto err;
	}
	if (w.n != pk->n_vars) {
		snprintf(err, sizeof err, "%s: witness has %u values but %s expects %u", wtns, w.n,
			 zkey, pk->n_vars);
		goto err;
	}
	if (r1cs_path) {
		uint32_t bad = 0;
		if (zka_r1cs_read(r1cs_path, &cs, err, sizeof err))
			goto err;
		if (cs.curve != pk->curve || cs.n_wires != pk->n_vars) {
			snprintf(err, sizeof err,
				 "%s: circuit (%s, %u wires) does not match %s (%s, %u signals)",
				 r1cs_path, cs.curve->pretty, cs.n_wires, zkey, pk->curve->pretty,
				 pk->n_vars);
			goto err;
		}
		ret = zka_r1cs_check(&cs, &w, &bad);
		if (ret == 1) {
			snprintf(err, sizeof err,
				 "%s: witness does not satisfy constraint %u of %s", wtns, bad,
				 r1cs_path);
			goto err;
		}
		if (ret) {
			snprintf(err, sizeof err, "%s: cannot check the witness against %s (%s)",
				 wtns, r1cs_path, strerror(-ret));
			goto err;
		}
	}
	if (r_dec) {
		if (zka_dec_parse(r_dec, rs.r, 32, pk->curve->r, 4) ||
		    zka_dec_parse(s_dec, rs.s, 32, pk->curve->r, 4)) {
			snprintf(err, sizeof err,
				 "--r/--s: not a decimal integer below the group order");
			goto err;
		}
	} else if ((ret = zka_rs_random(&rs, pk->curve))) {
		snprintf(err, sizeof err, "getrandom: %s", strerror(-ret));
		status = 1;
		goto err;
	}
	zka_prove_opts po = {.threads = threads};
	status = 1;
	if (gpu)
		ret = prove_gpu(&p, &w, &rs, &gx, &proof, &t, &gs, err, sizeof err);
	else
		ret = prove_cpu(&p, &w, &rs, &proof, &po, &t);
	if (ret) {
		char kerr[sizeof err] = "";
		if (zka_keys_validated(&p, kerr, sizeof kerr)) { /* the bad key is the reason */
			snprintf(err, sizeof err, "%s", kerr);
			status = 2;
		} else if (!err[0]) {
			snprintf(err, sizeof err, "proving %s with %s failed: %s", wtns, zkey,
				 strerror(-ret));
		}
		goto err;
	}
	/* a key imported for this proof was validated beside it: nothing is checked or released
	 * before every one of its points passed */
	if (zka_keys_validated(&p, err, sizeof err)) {
		status = 2; /* a bad key, as when it was refused before the proof */
		goto err;
	}
	proof.curve = pk->curve;
	const uint64_t(*pub)[4] = (const uint64_t(*)[4])(w.w + 1);
	if (verify) {
		const char *why = NULL;
		if (zka_verify(&p.vk, pub, pk->n_public, &proof, &why) != 1) {
			snprintf(
			    err, sizeof err,
			    "witness %s does not satisfy the circuit, or key %s may be corrupt "
			    "(the new proof does not verify: %s)%s; nothing written",
			    wtns, zkey, why ? why : "?",
			    bellperson && !root_snarkjs
				? ", or its rows are numbered by snarkjs's roots (a .params "
				  "converted by `zkey export bellperson`: prove it with --root "
				  "snarkjs)"
				: "");
			goto err;
		}
	}
	if (zka_proof_write_json(proof_path, &proof, err, sizeof err))
		goto err;
	if (zka_public_write_json(public_path, pk->curve, pub, pk->n_public, err, sizeof err)) {
		unlink(proof_path); /* never leave half of the output */
		goto err;
	}
	if (bp_out && (ret = write_bp_proof(bp_out, &proof, err, sizeof err))) {
		unlink(proof_path);
		unlink(public_path);
		goto err;
	}
	zka_profile_stamp("prove: files written");
	if (times) {
		fprintf(stderr, "zkarena prove: key load %.3f s (%s); key files opened %llu\n",
			ki.seconds, ki.how, (unsigned long long)zka_loader_key_opens());
		zka_keys_times kt;
		zka_keys_last_times(&kt);
		if (kt.read + kt.parse > 0)
			fprintf(
			    stderr,
			    "zkarena prove: import: read %.3f s, parse %.3f s, csr %.3f s, fill "
			    "%.3f s, validate %.3f s, write %.3f s, %s %.3f s (points "
			    "validated%s)\n",
			    kt.read, kt.parse, kt.csr, kt.fill, kt.validate, kt.write,
			    kt.overlapped ? "overlapped: wall" : "sequential: wall", kt.wall,
			    zka_keys_validated_where());
		if (gpu) {
			t.abc = gs.abc;
			char up[192], pop[160]; /* the key's way to the device; its pages */
			if (gs.reader)
				snprintf(pop, sizeof pop, "key pages not mapped");
			else
				snprintf(pop, sizeof pop, "key pages mapped %.3f s%s", gs.pop,
					 gs.pop_note);
			if (gs.staged)
				snprintf(up, sizeof up,
					 "staging buffers %.3f s, key upload %.3f s (staged by %d "
					 "threads, %s)",
					 gs.stage, gs.key, gs.staged,
					 gs.reader ? "read from the region's file"
						   : "from its mapping");
			else
				snprintf(up, sizeof up,
					 "key memory registered %.3f s%s, key upload %.3f s%s",
					 gs.pin, gs.pin_early ? " (during the key's read)" : "",
					 gs.key,
					 gs.pin_early ? ""
						      : " (beside the registration: each set "
							"copied once registered)");
			fprintf(stderr,
				"zkarena prove: gpu: beside the key's load, the witness and a, b: "
				"CUDA start %.3f s, %s, %s; then waited for them %.3f s, a, b and "
				"witness registered %.3f s%s, proof %.3f s, teardown %.3f s\n",
				gs.open, pop, up, gs.wait, gs.reg,
				gs.reg_early ? " (beside the key's copy, within the wait)" : "",
				gs.prove, gs.teardown);
			if (gs.device[0])
				fprintf(stderr, "zkarena prove: gpu: %s\n", gs.device);
		}
		fprintf(stderr,
			"zkarena prove: %s, %u constraints domain, abc %.3f s, ntt %.3f s, "
			"msm G1 %.3f s, msm G2 %.3f s, total %.3f s; command %.3f s to the "
			"files written\n",
			pk->curve->pretty, pk->domain_size, t.abc, t.ntt, t.msm_g1, t.msm_g2,
			t.total, mono() - t_start);
	}
	status = 0;
err:
#ifdef ZKA_HAVE_CUDA
	zka_devkey_prep_end(gx); /* (done already when the proof ran: NULL) */
#endif
	if (status)
		fprintf(stderr, "zkarena prove: %s\n", err);
	zka_params_close(&p);
	zka_witness_free(&w);
	zka_r1cs_free(&cs);
	zka_profile_stamp("prove: returns");
	return status;
}

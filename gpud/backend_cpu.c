/* backend_cpu.c - the CPU backend: the core prover (zk/groth16.h) minus synthesis. The
 * slot's a and b are converted into private scratch first (Montgomery form), and c = a .* b
 * made there, because zka_prove_abc transforms them in place and the slot must stay intact for
 * a possible re-proof after a crash. */
#include "gpud/backend.h"
#include "zk/abc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct lane {
	uint64_t (*scratch)[4];
	size_t cap; /* entries per vector */
	/* a slot of form W: its witness in Montgomery form and class map (zk/abc.h), wcap
	 * values */
	uint64_t (*wm)[4];
	size_t wcap;
};
struct cpu {
	struct lane lane[ZKA_LANES_MAX];
};

static int cpu_init(void **ctx, struct zka_arena *a, int device, int lanes, char *note,
		    size_t notelen, char *err, size_t errlen)
{
	(void)a;
	(void)device;
	(void)lanes;
	struct cpu *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(note, notelen,
		 "backend cpu: core prover on CPU threads (no device memory, nothing to register)");
	*ctx = c;
	return 0;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cpu_prove(void *ctx, int lane, uint32_t circuit, const zka_params *p,
		     const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*w)[4],
		     const zka_rs *rs, zka_proof *proof, zka_prove_times *t, double *copy_s,
		     char *err, size_t errlen)
{
	(void)circuit;
	struct lane *x = &((struct cpu *)ctx)->lane[lane];
	size_t n = p->pk.domain_size;
	if (x->cap < n) {
		void *s = realloc(x->scratch, 3 * n * sizeof *x->scratch);
		if (!s) {
			snprintf(err, errlen, "out of memory for %zu-entry scratch", 3 * n);
			return -ENOMEM;
		}
		x->scratch = s;
		x->cap = n;
	}
	double t0 = mono();
	int r;
	if (!a) { /* form W: a, b and c from the witness here, in Montgomery form */
		if (zka_abc_scratch_reserve(&x->wm, &x->wcap, p->pk.n_vars)) {
			snprintf(err, errlen, "out of memory for a %u-value witness", p->pk.n_vars);
			return -ENOMEM;
		}
		int64_t bad = zka_abc_compute_w(&p->abc, w, x->wm, x->scratch, x->scratch + n,
						x->scratch + 2 * n, 0);
		if (bad > 0) {
			snprintf(err, errlen, "witness value %lld is not below r",
				 (long long)bad - 1);
			return -EINVAL;
		}
		r = (int)bad;
	} else { /* the slot's a and b are in standard form and it holds no c
		  * (synth/slot_layout.h): a, b and c in Montgomery form into the scratch */
		r = zka_abc_from_slot(p->pk.curve, a, b, x->scratch, (uint32_t)n, 0);
	}
	*copy_s = mono() - t0;
	if (r) {
		snprintf(err, errlen, "CPU prover: a, b, c from the slot: %s", strerror(-r));
		return r;
	}
	r = zka_prove_abc(&p->pk, x->scratch, x->scratch + n, x->scratch + 2 * n, w, rs, proof,
			  NULL, t);
	if (r)
		snprintf(err, errlen, "CPU prover: %s", strerror(-r));
	return r;
}

static void cpu_shutdown(void *ctx)
{
	struct cpu *c = ctx;
	for (int i = 0; c && i < ZKA_LANES_MAX; i++) {
		free(c->lane[i].scratch);
		zka_abc_scratch_free(c->lane[i].wm, c->lane[i].wcap);
	}
	free(c);
}

/* no device memory, nothing registered: status is NULL (the status file and the metrics then
 * carry no device-memory gauges for a cpu gpud) */
const zka_backend zka_backend_cpu = {"cpu", cpu_init, cpu_prove, cpu_shutdown, NULL};

/* devcheck.c - the key checker on a CUDA device (devcheck.h). The context is opened under the
 * mutex on the first check and its outcome kept: a process whose device is missing tries once.
 * Invariant: chk.g is non-NULL exactly when chk.rc == 0 after the first check. */
#include "gpud/devcheck.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "cuda/zka_gpu.h"
#include "keys/zka_keys.h"

static struct {
	pthread_mutex_t mu;
	int device, tried, rc;
	zka_gpu *g;
	char why[200];
} chk = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* zka_keys_check_fn: the points on chk's device; the open's failure returned at every call */
static int chk_run(void *arg, const struct zka_curve *c, int g2, const void *pts, size_t n,
		   uint64_t *bad, int *code, char *err, size_t errlen)
{
	(void)arg;
	pthread_mutex_lock(&chk.mu);
	if (!chk.tried) {
		chk.tried = 1;
		chk.rc = zka_gpu_open(&chk.g, chk.device, chk.why, sizeof chk.why);
		if (chk.rc)
			chk.g = NULL;
	}
	int r = chk.rc;
	if (r)
		snprintf(err, errlen, "%s", chk.why);
	else
		r = zka_gpu_check_points(chk.g, c, g2, pts, n, bad, code, err, errlen);
	pthread_mutex_unlock(&chk.mu);
	return r;
}

void zka_devcheck_install(int device)
{
	static char name[64];
	chk.device = device;
	snprintf(name, sizeof name, "the GPU (CUDA device %d)", device);
	zka_keys_set_checker(chk_run, NULL, name);
}

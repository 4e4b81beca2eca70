/* zka_gpu_test.cu - the tests' and benchmarks' entries of the CUDA library (cuda/zka_gpu_test.h):
 * each checks the curve, selects the context's device and calls the curve's zkg_test_ops
 * (drv_test.cuh, instantiated in bn254.cu and bls12_381.cu); the host-to-device bandwidth
 * probe and the zka_fixed_base_ops adapters need no engine. Production code (gpud, the CLI's
 * prove and setup) never calls these. */
#include <errno.h>
#include <stdio.h>

#include "cuda/internal.cuh"
#include "cuda/zka_gpu_test.h"

static const struct zkg_test_ops *test_ops_of(const zka_curve *c)
{
	if (!c)
		return NULL;
	return c->id == ZKA_BN254	? &zkg_test_ops_bn254
	       : c->id == ZKA_BLS12_381 ? &zkg_test_ops_bls12_381
					: NULL;
}

#define NEED_TEST_OPS(c, fn)                                                                       \
	const struct zkg_test_ops *o = test_ops_of(c);                                             \
	if (!o) {                                                                                  \
		zkg_errf(err, errlen, "%s: unsupported curve", fn);                                \
		return -EINVAL;                                                                    \
	}
#define SET_DEV(g) CK(cudaSetDevice((g)->device))

extern "C" int zka_gpu_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

extern "C" int zka_gpu_msm_g1(zka_gpu *g, const zka_curve *c, const void *points,
			      const uint64_t (*k)[4], size_t n, void *out, double *dev_s, char *err,
			      size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_msm_g1");
	SET_DEV(g);
	return o->msm(g, 0, points, k, n, out, dev_s, err, errlen);
}

extern "C" int zka_gpu_msm_g2(zka_gpu *g, const zka_curve *c, const void *points,
			      const uint64_t (*k)[4], size_t n, void *out, double *dev_s, char *err,
			      size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_msm_g2");
	SET_DEV(g);
	return o->msm(g, 1, points, k, n, out, dev_s, err, errlen);
}

extern "C" int zka_gpu_ntt(zka_gpu *g, const zka_curve *c, uint32_t logn, uint64_t (*x)[4],
			   int inverse, double *dev_s, char *err, size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_ntt");
	SET_DEV(g);
	return o->ntt(g, logn, x, inverse, dev_s, err, errlen);
}

extern "C" int zka_gpu_h(zka_gpu *g, const zka_curve *c, uint32_t logn, const uint64_t (*a)[4],
			 const uint64_t (*b)[4], const uint64_t (*cc)[4], uint64_t (*h)[4],
			 char *err, size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_h");
	SET_DEV(g);
	return o->hpoly(g, logn, ZKA_H_COSET, ZKA_ROOT_SNARKJS, a, b, cc, h, err, errlen);
}

extern "C" int zka_gpu_h_kind(zka_gpu *g, const zka_curve *c, uint32_t logn, uint32_t h_kind,
			      uint32_t root, const uint64_t (*a)[4], const uint64_t (*b)[4],
			      const uint64_t (*cc)[4], uint64_t (*h)[4], char *err, size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_h_kind");
	SET_DEV(g);
	return o->hpoly(g, logn, h_kind, root, a, b, cc, h, err, errlen);
}

extern "C" int zka_gpu_field_op(zka_gpu *g, const zka_curve *c, int field, int op, const void *a,
				const void *b, void *out, size_t n, char *err, size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_field_op");
	SET_DEV(g);
	return o->field_op(g, field, op, a, b, out, n, err, errlen);
}

extern "C" int zka_gpu_acc_arith(zka_gpu *g, const zka_curve *c, int method, int J, const void *pts,
				 size_t npts, const uint32_t *idx, size_t lanes, uint32_t steps,
				 void *out, double *dev_s, char *err, size_t errlen)
{
	NEED_TEST_OPS(c, "zka_gpu_acc_arith");
	SET_DEV(g);
	return o->acc_arith(g, method, J, pts, npts, idx, lanes, steps, out, dev_s, err, errlen);
}

extern "C" int zka_gpu_h2d_bw(zka_gpu *g, const void *host, size_t bytes, double *gbps, char *err,
			      size_t errlen)
{
	SET_DEV(g);
	void *d = NULL;
	CK(cudaMalloc(&d, bytes));
	cudaError_t e = cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, g->s); /* warm-up */
	float best = 1e30f;
	for (int i = 0; i < 3 && e == cudaSuccess; i++) {
		float ms = 0;
		if ((e = cudaEventRecord(g->ev[0], g->s)) ||
		    (e = cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, g->s)) ||
		    (e = cudaEventRecord(g->ev[1], g->s)) || (e = cudaEventSynchronize(g->ev[1])) ||
		    (e = cudaEventElapsedTime(&ms, g->ev[0], g->ev[1])))
			break;
		if (ms < best)
			best = ms;
	}
	cudaFree(d);
	CK(e);
	*gbps = bytes / (best * 1e-3) / 1e9;
	return 0;
}

/* zka_fixed_base_ops adapters: the message goes to stderr (that interface has no err buffer) */
static int fb_logged(void *ctx, int g2, const zka_curve *c, const void *base,
		     const uint64_t (*k)[4], size_t n, void *out)
{
	char err[256];
	zka_gpu *g = (zka_gpu *)ctx;
	int rc = g2 ? zka_gpu_fixed_base_g2(g, c, base, k, n, out, err, sizeof err)
		    : zka_gpu_fixed_base_g1(g, c, base, k, n, out, err, sizeof err);
	if (rc)
		fprintf(stderr, "zka_gpu_fixed_base_g%d: %s\n", g2 + 1, err);
	return rc;
}

extern "C" int zka_gpu_fb_g1(void *ctx, const zka_curve *c, const void *base,
			     const uint64_t (*k)[4], size_t n, void *out)
{
	return fb_logged(ctx, 0, c, base, k, n, out);
}

extern "C" int zka_gpu_fb_g2(void *ctx, const zka_curve *c, const void *base,
			     const uint64_t (*k)[4], size_t n, void *out)
{
	return fb_logged(ctx, 1, c, base, k, n, out);
}

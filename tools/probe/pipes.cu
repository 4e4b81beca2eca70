/* pipes.cu - how many warp instructions per cycle the H200's pipes retire for the operations a
 * field product is made of, alone and interleaved (issue 22: can FP64 limb products run beside
 * the IMAD.WIDE ones? H200, 2026-12-03: barely, and integer additions do not hide behind them
 * at all: docs/gpu.md, "FP64 limb products, measured"). Built as zkarena-probe-pipes with the
 * CUDA build (or nvcc -arch=sm_90 -O3 -o pipes tools/probe/pipes.cu). It prints one line per
 * kernel, in lane operations per cycle per SM at the SM clock measured in the same run (clock64
 * against the global timer), then each interleaved pair against its two operations alone. Each
 * thread runs U independent chains, so the figures are throughput, not latency; the chains'
 * sum is written out, so no step is dead code. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                         \
				cudaGetErrorString(e_));                                           \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

enum { U = 8, IT = 4096 };

__device__ __forceinline__ uint64_t madw(uint32_t a, uint32_t b, uint64_t c)
{
	uint64_t r;
	asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(a), "r"(b), "l"(c));
	return r;
}

__global__ void k_clock(unsigned long long *o)
{
	unsigned long long t0, t1;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	long long c0 = clock64();
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
	while (t1 - t0 < 20000000ull);
	long long c1 = clock64();
	o[0] = (unsigned long long)(c1 - c0);
	o[1] = t1 - t0;
}
/* The kernels: U independent chains per thread, IT steps each; OP picks the step:
 *   0 DFMA.RZ; 1 IMAD.WIDE.U32 (32 x 32 + 64 bits, the multiplicand the chain's low word, so
 *   no other instruction); 2 a 64-bit add of three operands (IADD3, IADD3.X); 3 steps 0 and 1
 *   interleaved, independent; 4 the limb split of field_f64.cuh (DFMA, DADD, DFMA) and a DADD
 *   back to a small value; 5 steps 1 and 2 interleaved, independent (the integer product's
 *   multiplies beside its additions).
 * The chains' sum goes to out, so that no step is dead code. */
template <int OP> __global__ void k_chain(double y, uint32_t z, uint64_t yi, double *out)
{
	const double C1 = 20282409603651670423947251286016.0, /* 2^104 */
	    C2 = 20282409603651674927546878656512.0;	      /* 2^104 + 2^52 */
	double x[U];
	uint64_t w[U], v[U];
	for (int u = 0; u < U; u++) {
		x[u] = threadIdx.x + u;
		w[u] = threadIdx.x * 3 + u;
		v[u] = threadIdx.x * 5 + u;
	}
	for (int i = 0; i < IT; i++)
#pragma unroll
		for (int u = 0; u < U; u++) {
			if (OP == 0 || OP == 3)
				x[u] = __fma_rz(x[u], y, 1.0);
			if (OP == 1 || OP == 3 || OP == 5)
				w[u] = madw((uint32_t)w[u], z, w[u]);
			if (OP == 2)
				w[u] = w[u] + yi + w[(u + 1) % U];
			if (OP == 5)
				v[u] = v[u] + yi + v[(u + 1) % U];
			if (OP == 4) {
				double h = __fma_rz(x[u], y, C1);
				double l = __fma_rz(x[u], y, __dsub_rn(C2, h));
				x[u] = __dsub_rn(l, 4503599627370496.0);
			}
		}
	double s = 0;
	for (int u = 0; u < U; u++)
		s += x[u] + (double)w[u] + (double)v[u];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main(void)
{
	cudaDeviceProp pr;
	CK(cudaGetDeviceProperties(&pr, 0));
	int sms = pr.multiProcessorCount, threads = 256, blocks = sms * 8;
	size_t n = (size_t)blocks * threads;
	void *out;
	unsigned long long *clk, hc[2];
	CK(cudaMalloc(&out, n * 8));
	CK(cudaMalloc(&clk, 16));
	k_clock<<<1, 1>>>(clk);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hc, clk, 16, cudaMemcpyDeviceToHost));
	double ghz = (double)hc[0] / hc[1];
	printf("%s, %d SMs, SM clock %.3f GHz (clock64 over 20 ms of the global timer)\n", pr.name,
	       sms, ghz);
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	const char *names[] = {"DFMA.RZ",
			       "IMAD.WIDE.U32",
			       "IADD 64-bit, 3 operands",
			       "DFMA.RZ and IMAD.WIDE interleaved (per op)",
			       "split: DFMA, DADD, DFMA, DADD (per op)",
			       "IMAD.WIDE and 64-bit IADD interleaved (per op)"};
	const double ops[] = {1, 1, 1, 2, 4, 2};
	double cyc[6];
	for (int k = 0; k < 6; k++) {
		float best = 1e30f;
		for (int r = 0; r < 4; r++) {
			CK(cudaEventRecord(e0));
			double y = k == 4 ? 3.0 : 1.0000001;
			uint32_t z = 2654435761u;
			uint64_t yi = 0x9e3779b97f4a7c15ull;
			if (k == 0)
				k_chain<0><<<blocks, threads>>>(y, z, yi, (double *)out);
			else if (k == 1)
				k_chain<1><<<blocks, threads>>>(y, z, yi, (double *)out);
			else if (k == 2)
				k_chain<2><<<blocks, threads>>>(y, z, yi, (double *)out);
			else if (k == 3)
				k_chain<3><<<blocks, threads>>>(y, z, yi, (double *)out);
			else if (k == 4)
				k_chain<4><<<blocks, threads>>>(y, z, yi, (double *)out);
			else
				k_chain<5><<<blocks, threads>>>(y, z, yi, (double *)out);
			CK(cudaGetLastError());
			CK(cudaEventRecord(e1));
			CK(cudaEventSynchronize(e1));
			float ms;
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (r && ms < best)
				best = ms;
		}
		double lane_ops = (double)n * IT * U * ops[k];
		double per_clk_sm = lane_ops / (best * 1e-3 * ghz * 1e9) / sms;
		cyc[k] = 4 * 32 / per_clk_sm;
		printf(
		    "%-48s %8.3f ms  %6.1f lane-ops per cycle per SM (%.2f cycles per warp op per "
		    "scheduler)\n",
		    names[k], best, per_clk_sm, cyc[k]);
	}
	/* a pair interleaved against its two operations alone: their sum if they share a pipe
	 * or a dispatch, their maximum if they overlap */
	printf("DFMA + IMAD.WIDE: %.2f cycles per pair interleaved; alone %.2f + %.2f (sum %.2f, "
	       "max %.2f)\n",
	       2 * cyc[3], cyc[0], cyc[1], cyc[0] + cyc[1], cyc[0] > cyc[1] ? cyc[0] : cyc[1]);
	printf("IMAD.WIDE + IADD: %.2f cycles per pair interleaved; alone %.2f + %.2f (sum %.2f, "
	       "max %.2f)\n",
	       2 * cyc[5], cyc[1], cyc[2], cyc[1] + cyc[2], cyc[1] > cyc[2] ? cyc[1] : cyc[2]);
	return 0;
}

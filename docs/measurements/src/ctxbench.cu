// scratch: what each step of zka_gpu_open costs, and whether the stack limit changes the exit
// (argv[1]: stack limit to set, 0 none; argv[2]: 1 cudaGetDeviceProperties, 0 three attributes;
// argv[3]: MiB of device memory to allocate and touch before exiting). Prints each step's ms;
// the caller times the wall around the process.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
__global__ void touch(char *p, size_t n) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = 1; }
int main(int argc, char **argv) {
	size_t stack = argc > 1 ? strtoull(argv[1], 0, 10) : 8192;
	int props = argc > 2 ? atoi(argv[2]) : 1;
	size_t mib = argc > 3 ? strtoull(argv[3], 0, 10) : 0;
	double t0 = now(), t;
#define STEP(name, call) do { t = now(); cudaError_t e = call; if (e) { printf("%s: %s\n", name, cudaGetErrorString(e)); return 1; } printf(" %s %.1f", name, (now() - t) * 1e3); } while (0)
	STEP("setdevice", cudaSetDevice(0));
	STEP("flags", cudaSetDeviceFlags(cudaDeviceScheduleAuto));
	if (props) { cudaDeviceProp p; STEP("props", cudaGetDeviceProperties(&p, 0)); }
	else { int a, b, c; STEP("attrs", (cudaDeviceGetAttribute(&a, cudaDevAttrMultiProcessorCount, 0), cudaDeviceGetAttribute(&b, cudaDevAttrComputeCapabilityMajor, 0), cudaDeviceGetAttribute(&c, cudaDevAttrComputeCapabilityMinor, 0))); }
	if (stack) STEP("stack", cudaDeviceSetLimit(cudaLimitStackSize, stack));
	cudaStream_t s[6];
	for (int i = 0; i < 6; i++) STEP("stream", cudaStreamCreateWithPriority(&s[i], cudaStreamNonBlocking, 0));
	void *h; STEP("hostalloc", cudaHostAlloc(&h, 5 << 20, cudaHostAllocDefault));
	cudaEvent_t ev[24];
	t = now(); for (int i = 0; i < 24; i++) cudaEventCreate(&ev[i]); printf(" events %.1f", (now() - t) * 1e3);
	if (mib) { char *d; STEP("malloc", cudaMalloc(&d, mib << 20)); touch<<<264, 256, 0, s[0]>>>(d, mib << 20); STEP("touch", cudaStreamSynchronize(s[0])); }
	size_t lim = 0; cudaDeviceGetLimit(&lim, cudaLimitStackSize);
	printf(" | total %.1f ms, stack limit %zu\n", (now() - t0) * 1e3, lim);
	return 0;
}

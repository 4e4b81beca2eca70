// scratch: what a CUDA process's exit costs (mode 0 return, 1 _exit, 2 cudaDeviceReset then return)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int mode = atoi(argv[1]);
	void *d; cudaMalloc(&d, (size_t)1536 << 20);
	void *d2; cudaMalloc(&d2, (size_t)640 << 20);
	size_t n = (size_t)512 << 20; char *h = (char *)malloc(n); memset(h, 1, n);
	cudaHostRegister(h, n, 0); cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
	cudaDeviceSetLimit(cudaLimitStackSize, 8192);
	if (mode == 1) _exit(0);
	if (mode == 2) { cudaHostUnregister(h); cudaDeviceReset(); }
	return 0;
}

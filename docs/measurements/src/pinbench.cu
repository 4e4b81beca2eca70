// scratch measurement (not part of the product): CUDA start pieces, pinning speed and scaling
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
struct job { char *p; size_t n; double t; int rc; };
static void *pin(void *a) { job *j = (job *)a; double t0 = now(); j->rc = cudaHostRegister(j->p, j->n, cudaHostRegisterReadOnly); j->t = now() - t0; return 0; }
int main(int argc, char **argv) {
	size_t N = (size_t)1600 << 20;
	double t0 = now();
	cudaFree(0);
	double t1 = now();
	cudaDeviceSetLimit(cudaLimitStackSize, 8192);
	double t2 = now();
	cudaStream_t s; cudaStreamCreate(&s);
	void *h; cudaHostAlloc(&h, 1 << 20, 0);
	double t3 = now();
	printf("context %.3f s, stack limit 8192 %.3f s, stream+hostalloc %.3f s\n", t1 - t0, t2 - t1, t3 - t2);
	int fd = shm_open("/pinbench", O_CREAT | O_RDWR, 0600); shm_unlink("/pinbench");
	ftruncate(fd, N);
	char *w = (char *)mmap(0, N, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	memset(w, 1, N);
	char *p = (char *)mmap(0, N, PROT_READ, MAP_SHARED, fd, 0);
	void *d; cudaMalloc(&d, N);
	for (int K = 1; K <= 8; K *= 2) {
		for (int rep = 0; rep < 2; rep++) {
			job j[8]; pthread_t th[8];
			double a = now();
			for (int i = 0; i < K; i++) { j[i].p = p + N / K * i; j[i].n = N / K; pthread_create(&th[i], 0, pin, &j[i]); }
			for (int i = 0; i < K; i++) pthread_join(th[i], 0);
			double b = now();
			double c0 = now();
			cudaError_t ce = cudaMemcpy(d, p, N, cudaMemcpyHostToDevice); // spans all K registrations
			double c1 = now();
			printf("  copy across %d registrations: %s\n", K, cudaGetErrorString(ce)); cudaGetLastError();
			double u0 = now();
			for (int i = 0; i < K; i++) cudaHostUnregister(j[i].p);
			double u1 = now();
			printf("K=%d pin %.3f s (rc %d) copy across them %.1f GB/s, unpin %.3f s\n", K, b - a, j[0].rc, N / (c1 - c0) / 1e9, u1 - u0);
		}
	}
	double c0 = now(); cudaMemcpy(d, p, N, cudaMemcpyHostToDevice); double c1 = now();
	printf("pageable copy %.1f GB/s\n", N / (c1 - c0) / 1e9);
	// a 2 MiB huge-page backed anonymous buffer: pin cost
	char *hp = (char *)mmap(0, N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(hp, N, MADV_HUGEPAGE); memset(hp, 1, N);
	double a = now(); cudaHostRegister(hp, N, 0); double b = now(); cudaHostUnregister(hp); double c = now();
	printf("THP anonymous: pin %.3f s, unpin %.3f s\n", b - a, c - b);
	double e0 = now(); cudaDeviceReset(); double e1 = now();
	printf("cudaDeviceReset %.3f s\n", e1 - e0);
	return 0;
}

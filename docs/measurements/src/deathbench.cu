// scratch: when does a SIGKILLed CUDA process's death become visible: pipe HUP vs waitpid
#include <cuda_runtime.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main() {
	for (int rep = 0; rep < 3; rep++) {
		int hup[2], rdy[2];
		pipe(hup); pipe(rdy);
		pid_t p = fork();
		if (p == 0) {
			close(hup[0]); close(rdy[0]);
			void *d; cudaMalloc(&d, (size_t)20 << 30); cudaMemset(d, 0, (size_t)20 << 30);
			size_t n = (size_t)4 << 30; char *h = (char *)malloc(n); memset(h, 1, n);
			cudaHostRegister(h, n, 0); cudaDeviceSynchronize();
			write(rdy[1], "r", 1);
			for (;;) pause();
		}
		close(hup[1]); close(rdy[1]);
		char c; read(rdy[0], &c, 1);
		double t0 = now();
		kill(p, SIGKILL);
		struct pollfd pf = {hup[0], POLLIN, 0};
		poll(&pf, 1, 10000);
		double t1 = now();
		int st; waitpid(p, &st, 0);
		double t2 = now();
		printf("rep %d: pipe HUP after %.3f s, waitpid after %.3f s\n", rep, t1 - t0, t2 - t0);
		close(hup[0]); close(rdy[0]);
	}
	return 0;
}

/* backend.h - what zkarena-gpud needs from a prover: the CPU backend and the CUDA backend
 * implement the same four operations: init, prove, shutdown, and status (which may be NULL). */
#define ZKA_LANES_MAX 8
#ifndef ZKA_BACKEND_H
#define ZKA_BACKEND_H
#include <stddef.h>
#include <stdint.h>

#include "shm/zka_arena.h"
#include "keys/params.h"
#include "zk/groth16.h"

/* A backend's gauges and warnings for the status file. */
typedef struct zka_backend_status {
	int has_mem; /* 1: the backend has device memory (cuda); 0: mem_* mean nothing */
	/* the device's memory in use (by every process: total - free) and its size, bytes */
	uint64_t mem_used, mem_total;
	/* "" or one line about a fast path that is missing since init (a params region that could
	 * not be registered: its key's uploads run at pageable speed), appended to the note */
	char warn[256];
	/* "" (cpu) or the device, its compute capability and the kernel image the driver chose
	 * from the fat binary (cuda/zka_gpu.h, zka_gpu_device_desc): SASS for sm_XY or PTX JIT */
	char device[384];
} zka_backend_status;

typedef struct zka_backend {
	const char *name;
	/* Prepares the backend for arena a: the CUDA backend registers every slot's memory once
	 * (cudaHostRegister) so proofs read a, b, w with no staging copy. *note receives a
	 * one-line description of the fast paths in use or missing (shown in the log and in
	 * status). Returns 0 or -errno with err set. */
	int (*init)(void **ctx, struct zka_arena *a, int device, int lanes, char *note,
		    size_t notelen, char *err, size_t errlen);
	/* Proves one job from a slot on lane (0 <= lane < the lanes given to init); each lane is
	 * used by one thread at a time and lanes run concurrently (the CUDA backend: one device
	 * context each, sharing the keys, so one proof's copies overlap another's kernels).
	 * a, b, w live in the slot and must not be modified (a restarted daemon proves the
	 * same slot again after a crash); the backend makes c = a .* b itself
	 * (synth/slot_layout.h). a = b = NULL: the slot holds only w (form W) and the backend
	 * makes a = A w and b = B w from p->abc (the CUDA backend on the device), the same
	 * values synthesis would have written; a witness value not below r fails the proof. circuit
	 * identifies p for per-circuit caches (device-resident keys). *copy_s receives the seconds
	 * this proof spent copying its inputs (host to device, or into the CPU prover's scratch).
	 * Returns 0 or -errno with err set. */
	int (*prove)(void *ctx, int lane, uint32_t circuit, const zka_params *p,
		     const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*w)[4],
		     const zka_rs *rs, zka_proof *proof, zka_prove_times *t, double *copy_s,
		     char *err, size_t errlen);
	void (*shutdown)(void *ctx);
	/* What the status file shows besides the proofs (called by the main thread once a second,
	 * while lanes prove; may be NULL): see zka_backend_status. */
	void (*status)(void *ctx, struct zka_backend_status *st);
} zka_backend;

extern const zka_backend zka_backend_cpu;
extern const zka_backend zka_backend_cuda; /* init fails with -ENOTSUP when built without CUDA */

#endif

/* backend.h - what zkarena-gpud needs from a prover: the CPU backend and the CUDA backend
 * implement the same three operations. */
#ifndef ZKA_BACKEND_H
#define ZKA_BACKEND_H
#include <stddef.h>
#include <stdint.h>

#include "shm/zka_arena.h"
#include "synth/params.h"
#include "zk/groth16.h"

typedef struct zka_backend {
	const char *name;
	/* Prepares the backend for arena a: the CUDA backend registers every slot's memory once
	 * (cudaHostRegister) so proofs read a/b/c with no staging copy. *note receives a
	 * one-line description of the fast paths in use or missing (shown in the log and in
	 * status). Returns 0 or -errno with err set. */
	int (*init)(void **ctx, struct zka_arena *a, int device, char *note, size_t notelen,
		    char *err, size_t errlen);
	/* Proves one job from a slot. a, b, c, w live in the slot and must not be modified (a
	 * restarted daemon proves the same slot again after a crash). circuit identifies p for
	 * per-circuit caches (device-resident keys). Returns 0 or -errno with err set. */
	int (*prove)(void *ctx, uint32_t circuit, const zka_params *p, const uint64_t (*a)[4],
		     const uint64_t (*b)[4], const uint64_t (*c)[4], const uint64_t (*w)[4],
		     const zka_rs *rs, zka_proof *proof, zka_prove_times *t, char *err,
		     size_t errlen);
	void (*shutdown)(void *ctx);
} zka_backend;

extern const zka_backend zka_backend_cpu;
extern const zka_backend zka_backend_cuda; /* init fails with -ENOTSUP when built without CUDA */

#endif

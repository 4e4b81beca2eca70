/* zka_gpu.h - the CUDA Groth16 prover (BN254 and BLS12-381; fat binaries for sm_80 and up,
 * zka_gpu_device_desc says which image a device runs), as production uses it: gpud's CUDA
 * backend and the CLI's `prove --gpu` and `setup --gpu`. The tests' and benchmarks' entries
 * (building blocks, tuning knobs) are in cuda/zka_gpu_test.h.
 *
 * Byte layouts are the host's (zk/groth16.h): affine Montgomery points as in .zkey (infinity is
 * all zero bytes), Fr scalars as 4 little-endian 64-bit limbs. Every function returns 0 or a
 * negative errno and writes a one-line message into err (when err != NULL); none exits.
 * A context is used by one thread at a time; it owns a stream and one proof's device buffers.
 * A loaded key is read only while proving: several contexts of the same device may prove with
 * one key at the same time (one thread each), so that one proof's copies and host work overlap
 * another's kernels without a second copy of the key. */
#ifndef ZKA_GPU_H
#define ZKA_GPU_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zka_gpu zka_gpu;		/* a device context */
typedef struct zka_gpu_key zka_gpu_key; /* a proving key resident on the device */

/* Returns -ENODEV (and "no CUDA device" in err) when there is no usable device. */
int zka_gpu_open(zka_gpu **g, int device, char *err, size_t errlen);
void zka_gpu_close(zka_gpu *g);

/* How this process's host threads wait for the device (a device-wide setting of the process,
 * applied by every later zka_gpu_open; call before the first). ZKA_GPU_WAIT_AUTO: CUDA's
 * default, which spins a core for every waiting thread while the process has fewer contexts
 * than the machine has cores (the lowest latency: benchmarks, one-shot proofs).
 * ZKA_GPU_WAIT_BLOCK: waiting threads sleep in the kernel until the device signals
 * (cudaDeviceScheduleBlockingSync): a daemon whose host shares its cores with synthesis keeps
 * them for it (two lanes spinning through their proofs hold two of the cores all the time). */
enum { ZKA_GPU_WAIT_AUTO = 0, ZKA_GPU_WAIT_BLOCK = 1 };
void zka_gpu_set_host_wait(int mode);
/* A one-line description of the context's device ("NVIDIA H200, 132 SMs, 139 GiB"). */
const char *zka_gpu_device_name(const zka_gpu *g);
/* What runs on the context's device, one line: its name and compute capability, the kernel
 * image the driver chose from this build's fat binary ("SASS for sm_90", or "PTX of compute_121
 * JIT-compiled for sm_130" on a device newer than the build) and the architectures built
 * (CMAKE_CUDA_ARCHITECTURES). The first call asks the driver (cudaFuncGetAttributes; later
 * calls only format). 0, or -EIO with the message in buf. */
int zka_gpu_device_desc(zka_gpu *g, char *buf, size_t len);

/* Copies the key's points to the device (A, B1, B2, C, H) and prepares the NTT tables (and
 * the window tables, see zka_gpu_set_tables_build). The key may then be used with any context
 * of the same device; free it after those contexts have finished proving with it (a build
 * still running is waited for). The key's H kind and roots (zka_pk.h_kind, .root) decide the
 * device's H: a coset-H key with snarkjs's roots, or a monomial-H (bellperson) key with
 * snarkjs's or (BLS12-381) bellperson's 7^t roots, each as the CPU prover computes it; any
 * other kind is -ENOTSUP. */
int zka_gpu_key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key **key, char *err, size_t errlen);
/* An upload gate lets the next zka_gpu_key_load on g copy each point set as soon as its
 * host memory is ready (registered on another thread) instead of after all of them: before
 * each set's copy the load calls gate(arg, todo), todo the sets still to copy (bit i: A, B1,
 * B2, C, H; only the sets the load uploads), and copies the set whose index gate returns; gate
 * may block until it can answer. A negative return (-errno) fails the load, naming the gate;
 * an index not in todo fails it with -EINVAL. The allocations before the first call and the
 * NTT tables after the copies run as without a gate. The gate is cleared when that load
 * returns; NULL clears it. */
typedef int (*zka_gpu_upload_gate)(void *arg, int todo);
void zka_gpu_set_upload_gate(zka_gpu *g, zka_gpu_upload_gate gate, void *arg);
/* Staged uploads: later key loads on g copy every point set whose host memory is not
 * registered through 2 x threads pinned buffers of piece bytes (0: ZKA_GPU_STAGE_PIECE; else
 * a power of two from 64 KiB to 1 GiB), threads CPU threads filling them piece by piece (memcpy,
 * or the reader of zka_gpu_set_upload_reader) while the buffers filled before are copied to the
 * device; registered sets are copied directly.
 * For memory that is pageable and not worth registering (a key resident in 4 KiB shm pages,
 * used once: registering and unregistering it cost more than the copy). threads 0 frees the
 * buffers and turns it off (also done by zka_gpu_close). 0, or -EINVAL (threads not in
 * 0..ZKA_GPU_STAGE_MAX, bad piece) / -ENOMEM / -EIO naming what failed, the previous setting
 * kept. zka_gpu_key_times.staged says which load used it. */
#define ZKA_GPU_STAGE_MAX 16
#define ZKA_GPU_STAGE_PIECE ((size_t)2 << 20)
int zka_gpu_set_upload_staging(zka_gpu *g, int threads, size_t piece, char *err, size_t errlen);
/* The staged upload's reader: fills dst (a pinned staging buffer) with the len bytes of host
 * key that start at src (an address inside one of the key's point sets, as its pointers give
 * them), from wherever the caller keeps those bytes; returns 0 or -errno with a one-line
 * message in err. Called from the stager's threads at once, each on its own pieces. For a key
 * whose bytes are in a file (a resident shm region): pread(2) copies them without mapping
 * its pages into the process, which then has no page tables to build or tear down. NULL (the
 * default): memcpy from src. Kept for later loads until set again. */
typedef int (*zka_gpu_upload_read)(void *arg, void *dst, const void *src, size_t len, char *err,
				   size_t errlen);
void zka_gpu_set_upload_reader(zka_gpu *g, zka_gpu_upload_read read, void *arg);
void zka_gpu_key_free(zka_gpu_key *key);
/* How a key's load went (zka_gpu_key_timing), in bytes and seconds: the key's points copied
 * host to device, the copies' time (from the first copy's start to the last one's completion),
 * the window tables' build on the device after them (0 when the key has none, and while a
 * background build is not done) and the whole zka_gpu_key_load (allocations, copies, tables
 * when built before it returns, NTT twiddles). pinned: every point set's
 * source was page-locked (registered) host memory, so the copies ran at pinned speed; 0: at
 * least one came from pageable memory. staged: the threads that copied the pageable sets through
 * pinned buffers (zka_gpu_set_upload_staging), 0 when the driver staged them (several times
 * slower) or every set was pinned. split: 0 when the engine did not stamp its phases (upload and
 * tables are then 0; only total is known). */
typedef struct {
	uint64_t bytes;
	double upload, tables, total;
	int pinned, split, staged;
} zka_gpu_key_times;
void zka_gpu_key_timing(const zka_gpu_key *key, zka_gpu_key_times *t);
/* One line saying which MSM path the key uses: "shared-bucket MSM with window tables (...)"
 * or "windowed MSM: ..." with the reason (tables turned off, or too large for the device). */
const char *zka_gpu_key_mode(const zka_gpu_key *key);
/* 1 when the key streams point sets from the host key at every proof (zka_gpu_set_stream_chunk:
 * its host points must stay mapped, and should stay registered, until zka_gpu_key_free) */
int zka_gpu_key_streamed(const zka_gpu_key *key);
/* Window tables (default on): a key loaded afterwards stores W copies of each point set,
 * copy w = 2^(c w) times the points, so that all windows of an MSM share one set of buckets
 * (no per-window bucket reduction). 0 turns them off for later key loads and MSMs. */
void zka_gpu_set_precompute(zka_gpu *g, int on);
/* The proofs that will run at once with keys loaded afterwards through g (1..64, default 2:
 * zkarena-gpud's lanes, each its own context): a key's window tables leave their estimated
 * working memory free, so that every lane can allocate its buffers. */
void zka_gpu_set_proofs_in_flight(zka_gpu *g, int n);
/* When keys loaded afterwards through g build their window tables (about 1.1 s of device time
 * for BN254 2^22's 19.5 GiB on an H200):
 *   ZKA_GPU_TABLES_SYNC (default): zka_gpu_key_load builds them before it returns;
 *   ZKA_GPU_TABLES_BACKGROUND: zka_gpu_key_load starts the build on a stream of the lowest
 *     priority and returns; proofs run the windowed MSM (same results, slower) until the
 *     build is done, then the shared-bucket one, so a restarted daemon proves at once;
 *   ZKA_GPU_TABLES_DEFERRED: the tables are allocated but the build waits for
 *     zka_gpu_key_tables_start (tests: proofs before, during and after the build). */
#define ZKA_GPU_TABLES_SYNC 0
#define ZKA_GPU_TABLES_BACKGROUND 1
#define ZKA_GPU_TABLES_DEFERRED 2
void zka_gpu_set_tables_build(zka_gpu *g, int mode);
/* Never blocks: ZKA_GPU_TABLES_NONE (the key has no window tables: windowed MSM for good),
 * ZKA_GPU_TABLES_BUILDING (not started or not finished: proofs run the windowed MSM),
 * ZKA_GPU_TABLES_READY (proofs from now on use them; *build_s, when not NULL, gets the
 * build's device seconds), or -errno with err on a device error. Any thread. */
#define ZKA_GPU_TABLES_NONE 0
#define ZKA_GPU_TABLES_BUILDING 1
#define ZKA_GPU_TABLES_READY 2
int zka_gpu_key_tables(zka_gpu_key *key, double *build_s, char *err, size_t errlen);

/* Page-locked host memory for the whole process (cudaHostRegister), independent of the
 * context's own registrations (g is only read: its device), so any thread may pin while g
 * proves; zka_gpu_unpin undoes it and must come before the memory is unmapped (NULL is fine). */
typedef struct zka_gpu_pin zka_gpu_pin;
void zka_gpu_unpin(zka_gpu_pin *pin);
/* Pins n ranges at once (readonly: cudaHostRegisterReadOnly, for PROT_READ mappings, -ENOTSUP
 * where the device has no read-only registration; 0: ordinary registration), pinned by up to 8
 * threads in parallel: the ranges are rounded out
 * to whole pages, merged where they share a page, and a range over 64 GiB is cut every 64 GiB
 * from its start. A copy must lie within one piece (the driver refuses one that spans two
 * registrations): pin each buffer that is copied whole as its own range. Whole pages are
 * registered, so memory sharing a page with a range (a small heap buffer's neighbour) must not
 * be copied to a device while pinned: pin page-aligned memory (mmap, the arena, a params
 * region). Returns 0, or -errno with the failing piece named in err and nothing left
 * registered. */
int zka_gpu_pin_ranges(zka_gpu *g, const void *const *ptrs, const size_t *lens, int n, int readonly,
		       zka_gpu_pin **pin, char *err, size_t errlen);
/* A host key's five point sets (A, B1, B2, C, H: what zka_gpu_key_load copies), read-only,
 * each its own range, pinned in parallel: a key in a params region uploads at pinned speed.
 * Its pieces end at every multiple of 64 GiB in the address space, where zka_gpu_key_load cuts
 * its copies too, so a set that straddles such an address still uploads pinned. */
int zka_gpu_pin_key(zka_gpu *g, const zka_pk *pk, zka_gpu_pin **pin, char *err, size_t errlen);
/* The same for five ranges given by address (A, B1, B2, C, H as zka_pk_point_sets orders
 * them; zka_params_point_sections gives them from a .zka's header), cut as zka_gpu_pin_key cuts.
 * readonly 0: ordinary registration, for memory still being written (a key being read into
 * its region: the pages pinned are the ones the reads fill). */
int zka_gpu_pin_key_sets(zka_gpu *g, const void *const p[5], const size_t len[5], int readonly,
			 zka_gpu_pin **pin, char *err, size_t errlen);

/* Device memory of g's device (cudaMemGetInfo): *free_b and *total_b in bytes, used by every
 * process on the device. g is only read (any thread). Returns 0 or -EIO with err set. */
int zka_gpu_mem_info(zka_gpu *g, size_t *free_b, size_t *total_b, char *err, size_t errlen);

/* Puts the key's A and B matrices (m: the CSR of zk/abc.h, built for this key: m->n_rows =
 * domain_size, m->n_cols = n_vars, the key's curve) on the device once, so that proofs may take
 * a slot that holds only the witness (zka_gpu_prove_ab with a = b = NULL). Idempotent and safe
 * to call from several contexts' threads at once (the first call uploads, the others wait for
 * it); m is only read, and not kept. Returns 0, -EINVAL when m does not fit the key, -ENOMEM
 * when the device is full (the key stays usable with a and b from the host), -EIO. */
struct zka_abc;
int zka_gpu_key_set_abc(zka_gpu *g, zka_gpu_key *key, const struct zka_abc *m, char *err,
			size_t errlen);

/* One proof from a and b (domain_size scalars each, read only; c = a .* b is made on the
 * device: a pipeline slot holds no c), in standard form when ab_std (a slot's: synth/pipe.h;
 * the device converts them), else in Montgomery form; w the n_vars witness scalars in standard
 * form. a = b = NULL (with ab_std): a = A w and b = B w are made on the device from the key's
 * matrices (zka_gpu_key_set_abc first, else -EINVAL) and w, the same bytes as the host's.
 * Bit-identical to zka_prove_abc for the same rs. t may be NULL (t->abc is left 0). */
int zka_gpu_prove_ab(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4], const uint64_t (*b)[4],
		     int ab_std, const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		     zka_prove_times *t, char *err, size_t errlen);

/* Finer timings of the last proof (zka_gpu_prove_ab), in seconds. */
typedef struct {
	double h2d;    /* host-to-device copies of a, b, c, w */
	double ntt;    /* the H polynomial on the device (copies excluded) */
	double msm_g1; /* A, B1, C, H (device work + host window combination) */
	double msm_g2; /* B2 */
	double finish; /* randomisation and conversion to affine on the host */
	double total;
	/* msm_split: the witness MSMs took the 0/1 split (zka_gpu_set_split01), frac01 the
	 * fraction of witness scalars 0 or 1 (-1: not counted, the split being off). Also set by
	 * zka_gpu_msm_g1/g2 for their scalars. */
	int msm_split;
	double frac01;
	int tables; /* 1: the proof's MSMs used the key's window tables; 0: the windowed MSM */
} zka_gpu_times;
void zka_gpu_last_times(const zka_gpu *g, zka_gpu_times *t);

/* Batch fixed-base multiplication (for `setup --insecure --gpu`): out[i] = k[i] * base with
 * base and out affine Montgomery bytes (G1: 2*n8q, G2: 4*n8q bytes each), k standard form. */
int zka_gpu_fixed_base_g1(zka_gpu *g, const zka_curve *c, const void *base, const uint64_t (*k)[4],
			  size_t n, void *out, char *err, size_t errlen);
int zka_gpu_fixed_base_g2(zka_gpu *g, const zka_curve *c, const void *base, const uint64_t (*k)[4],
			  size_t n, void *out, char *err, size_t errlen);

/* A key's points validated on g's device (the host's checks, zk/curve_inst.h: each coordinate
 * below q, on the curve, in the order-r subgroup by the same endomorphism tests; infinity
 * passes): n affine Montgomery points of G1 (g2 = 0) or G2 (g2 = 1) of curve c at pts, in any
 * host memory. 0 with *bad = UINT64_MAX when every point passed, else *bad = the lowest failing
 * index and *code = ZKA_ENOTONCURVE or ZKA_ENOTINGROUP (the host's answer for that point);
 * -errno with err on a device error. Device memory: two chunks of 2^20 points. */
int zka_gpu_check_points(zka_gpu *g, const zka_curve *c, int g2, const void *pts, size_t n,
			 uint64_t *bad, int *code, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

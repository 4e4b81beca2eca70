/* params.h - the params region of a circuit: a read-only POSIX shm object holding everything
 * the pipeline needs about one circuit, loaded once and shared by every process:
 *   - the proving key's points, in the layout of the .zkey (the prover's form), and its A and
 *     B matrices in compressed sparse rows with a table of distinct values (zk/abc.h; built
 *     once here, at load, so that synthesis is one pass over rows in order; pk.coefs is NULL
 *     in an opened region);
 *   - optionally the circuit's A, B, C matrices from the .r1cs in CSR form, so synthesis can
 *     check the witness and name the first failing constraint.
 * Layout: a 4 KiB header (magic, version, counts, section offsets, xxh64 checksum of the
 * header) followed by 64-byte aligned sections. Consumers map it PROT_READ and bounds-check
 * every offset against the object size before use. */
#ifndef ZKA_PARAMS_H
#define ZKA_PARAMS_H
#include <stddef.h>
#include <stdint.h>

#include "zk/abc.h"
#include "zk/groth16.h"
#include "zk/r1cs.h"

typedef struct zka_params {
	void *map;
	size_t size;
	zka_pk pk;   /* pointers into map: never zka_pk_free it */
	zka_vk vk;   /* the key's verification part: pointers into map, never zka_vk_free it */
	zka_abc abc; /* the key's A and B as CSR (zk/abc.h): pointers into map, checked at open */
	zka_r1cs cs; /* pointers into map, valid when has_r1cs */
	int has_r1cs;
} zka_params;

/* Reads the key (and the circuit when r1cs_path is not NULL) from files. This is the loading
 * interface a faster loader (io_uring, O_DIRECT) replaces. Returns 0 or -errno with err set. */
int zka_params_read_files(const char *zkey_path, const char *r1cs_path, zka_pk *pk, zka_r1cs *cs,
			  char *err, size_t errlen);

/* Creates the shm object NAME (must not exist) holding pk and cs (cs may be NULL), mode 0600,
 * complete before it becomes visible under NAME (written under a temporary name, then linked
 * by rename through /dev/shm). Returns 0 or -errno with err set. */
int zka_params_create(const char *name, const zka_pk *pk, const zka_r1cs *cs, char *err,
		      size_t errlen);

/* Maps NAME read-only and validates it; p's pk (and cs) point into the mapping. */
int zka_params_open(const char *name, zka_params *p, char *err, size_t errlen);

/* Unmaps. Safe on a zeroed p. */
void zka_params_close(zka_params *p);

/* Bytes a slot needs for this key: a, b, c (domain_size Fr each) and the witness (n_vars). */
uint64_t zka_params_slot_bytes(const zka_pk *pk);

#endif

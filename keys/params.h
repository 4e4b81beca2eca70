/* params.h - the params region of a circuit: a read-only POSIX shm object holding everything
 * the pipeline needs about one circuit, loaded once and shared by every process:
 *   - the proving key's points, in the layout of the .zkey (the prover's form), and its A and
 *     B matrices in compressed sparse rows with a table of distinct values (zk/abc.h; built
 *     once, at import, so that synthesis is one pass over rows in order; pk.coefs is NULL in
 *     an opened region);
 *   - optionally the circuit's A, B, C matrices from the .r1cs in CSR form, so synthesis can
 *     check the witness and name the first failing constraint.
 *
 * Layout (version 4), the same in a region and in a .zka file, so that a loader reads the file
 * straight into the region (keys/zka_loader.h):
 *   [0, 2048)     the header: magic, version, curve, counts, the source files' identity, and
 *                 for each section its offset, length and XXH3-64 checksum; an XXH3-64 of the
 *                 header itself ends it
 *   [2048, 4096)  the residency record: zero in a file; in a region, written by the loader
 *                 after the load (which file, how long, how); not part of the header checksum
 *   sections      each at a multiple of ZKA_PARAMS_ALIGN (4 KiB: O_DIRECT reads land in place),
 *                 zero-padded to the next multiple; the total is a multiple too
 * Consumers map it PROT_READ and bounds-check every offset against the object size before use;
 * zka_params_open does not recompute the section checksums (the loader does, once). */
#ifndef ZKA_PARAMS_H
#define ZKA_PARAMS_H
#include <stddef.h>
#include <stdint.h>

#include "zk/abc.h"
#include "zk/groth16.h"
#include "zk/r1cs.h"

#define ZKA_PARAMS_VERSION 4u /* 4: the H kind and domain roots (bellperson keys) */
#define ZKA_PARAMS_ALIGN 4096u
#define ZKA_PARAMS_HDR 4096u	 /* header + residency record */
#define ZKA_PARAMS_RES_OFF 2048u /* the residency record */
#define ZKA_PARAMS_NSECT 26
#define ZKA_PARAMS_NPOINTSECT 12 /* sections 0..11: the key's points (alpha1 .. H) */

typedef struct zka_params {
	void *map;
	size_t size;
	zka_pk pk;   /* pointers into map: never zka_pk_free it */
	zka_vk vk;   /* the key's verification part: pointers into map, never zka_vk_free it */
	zka_abc abc; /* the key's A and B as CSR (zk/abc.h): pointers into map, checked at open */
	zka_r1cs cs; /* pointers into map, valid when has_r1cs */
	int has_r1cs;
	/* keys.c: the points still being validated behind a first proof (zka_keys_opts
	 * .defer_validate); zka_keys_validated waits for them, zka_params_close too */
	struct zka_keys_pending *pending;
} zka_params;

/* keys.c (internal): joins p's pending validation, if any (zka_keys_validated). */
void zka__keys_pending_end(zka_params *p, char *err, size_t errlen, int *ret);

/* A file as stat(2) sees it, plus a hash of its contents (0 where not computed). */
typedef struct zka_file_id {
	uint64_t size;
	int64_t mtime_ns;
	uint64_t dev, ino;
	uint64_t hash; /* XXH3-64 of the whole file */
} zka_file_id;

/* What a region or .zka file says about itself (zka_params_header). */
typedef struct zka_params_info {
	const zka_curve *curve;
	uint32_t n_vars, n_public, domain_size, has_r1cs;
	uint32_t h_kind, root; /* the key's zka_pk.h_kind and .root */
	uint64_t total;
	uint64_t off[ZKA_PARAMS_NSECT], len[ZKA_PARAMS_NSECT], sum[ZKA_PARAMS_NSECT];
	zka_file_id src_key, src_r1cs; /* the .zkey (and .r1cs) it was imported from */
	char src_name[128];	       /* the .zkey's file name, for listings */
	uint64_t id;		       /* content identity: XXH3 of the header's sections part */
} zka_params_info;

/* The residency record of a loaded region. */
typedef struct zka_params_res {
	char magic[8];		/* "ZKARES1" when present */
	zka_file_id from;	/* the file that was read */
	int64_t loaded_at_ns;	/* CLOCK_REALTIME */
	double seconds;		/* the load's duration */
	uint32_t direct, depth; /* O_DIRECT used; reads in flight */
	char path[1024];	/* the file that was read, absolute */
	uint64_t checksum;	/* XXH3-64 of the bytes before it */
} zka_params_res;

/* The extents in a region mapped at map of the sections that hold the key's five point sets
 * (A, B1, B2, C, H, as zka_pk_point_sets orders them): each contains its set, so memory
 * registered over them covers what a key's upload copies. Known from the header alone, before
 * any section's bytes are read. */
void zka_params_point_sections(const zka_params_info *in, const void *map, const void *p[5],
			       size_t len[5]);

/* The name of section s ("A", "H", "abc.termsA", "r1cs.C.value", ...). */
const char *zka_params_section_name(int s);

/* Parses and checks the header at hdr (ZKA_PARAMS_HDR bytes): magic, version, header checksum,
 * curve, sizes consistent with the counts, sections inside [ZKA_PARAMS_HDR, total), aligned
 * and in order. Returns 0, or -EBADMSG with "header: problem" or "section NAME: problem" in
 * why. */
int zka_params_header(const void *hdr, zka_params_info *info, char *why, size_t whylen);

/* Reads the residency record of a region's first ZKA_PARAMS_HDR bytes; 0, or -ENOENT. */
int zka_params_residency(const void *hdr, zka_params_res *res);
/* Writes it (its magic and checksum are filled in). */
void zka_params_set_residency(void *hdr, const zka_params_res *res);

/* An image being built from a key: the A/B CSR form and the section plan. */
typedef struct zka_params_plan {
	zka_params_info info;
	const void *src[ZKA_PARAMS_NSECT];
	zka_abc abc;
	uint8_t hdr[ZKA_PARAMS_HDR];
} zka_params_plan;

/* Plans the image of pk (with its coefficient list) and cs (NULL or zeroed: none); src_key and
 * src_r1cs may be NULL. Builds the CSR form (zka_abc_build). Returns 0 or -errno with err
 * set; *total is the image's size. */
int zka_params_plan_new(zka_params_plan *pl, const zka_pk *pk, const zka_r1cs *cs,
			const zka_file_id *src_key, const zka_file_id *src_r1cs,
			const char *src_name, char *err, size_t errlen);
/* The point sections' sources and lengths (bytes) that zka_params_plan_new lays out for pk:
 * src[s] is the very pointer it copies section s from, len[s] its length; known from pk
 * alone, before the CSR form is built (an import validates them while it builds it). */
void zka_params_pk_points(const zka_pk *pk, const void *src[ZKA_PARAMS_NPOINTSECT],
			  uint64_t len[ZKA_PARAMS_NPOINTSECT]);
/* Sets the header's source identities (as plan_new's src_key, src_r1cs; NULL: zero), for an
 * import that learns its files' hashes after planning; before zka_params_plan_fill. */
void zka_params_plan_set_ids(zka_params_plan *pl, const zka_file_id *src_key,
			     const zka_file_id *src_r1cs);
/* Writes the image into dst (info.total bytes, zeroed or not) and fills in the checksums and
 * the header (also kept in pl->hdr and pl->info), over threads threads (0: one per CPU). */
void zka_params_plan_fill(zka_params_plan *pl, void *dst, int threads);
void zka_params_plan_free(zka_params_plan *pl);

/* 1 when path names a bellperson .params key (by its name). */
int zka_params_is_bellperson(const char *path);

/* Reads the key (and the circuit when r1cs_path is not NULL) from files: a .zkey, or a
 * bellperson .params (zk/bellperson.h), which needs r1cs_path (its densities). Returns 0 or -errno
 * with err set. */
int zka_params_read_files(const char *zkey_path, const char *r1cs_path, zka_pk *pk, zka_r1cs *cs,
			  char *err, size_t errlen);
/* The same with the roots of unity a .params's rows are numbered by (bp_root: ZKA_ROOT_GEN7, a
 * bellperson setup's, what zka_params_read_files assumes; ZKA_ROOT_SNARKJS, a key converted from
 * a .zkey by `zkarena zkey export bellperson`); a .zkey ignores it. */
int zka_params_read_files_root(const char *zkey_path, const char *r1cs_path, uint32_t bp_root,
			       zka_pk *pk, zka_r1cs *cs, char *err, size_t errlen);

/* Creates the shm object NAME (must not exist) holding pk and cs (cs may be NULL), mode 0600,
 * complete before it becomes visible under NAME (written under a temporary name, then linked
 * by rename through /dev/shm). Returns 0 or -errno with err set. */
int zka_params_create(const char *name, const zka_pk *pk, const zka_r1cs *cs, char *err,
		      size_t errlen);

/* Maps NAME read-only and validates it; p's pk (and cs) point into the mapping. */
int zka_params_open(const char *name, zka_params *p, char *err, size_t errlen);
/* The same without the check of the CSR matrices (a scan of ~230 MB at BN254 2^22, ~25 ms
 * on fresh pages): for a caller that reads only the key's shape (submit: the slot size and
 * the witness's count); p->abc and p->cs are zeroed and must not be used. */
int zka_params_open_shape(const char *name, zka_params *p, char *err, size_t errlen);

/* Validates the image at map (size bytes, from mmap: zka_params_close munmaps it) as
 * zka_params_open does and fills p; what names it in err ("params NAME", a file). On error
 * map is left mapped and p zeroed. */
int zka_params_from_map(void *map, size_t size, const char *what, zka_params *p, char *err,
			size_t errlen);

/* Unmaps. Safe on a zeroed p. */
void zka_params_close(zka_params *p);

/* Bytes a slot needs for this key: a, b (domain_size Fr each) and the witness (n_vars). */
uint64_t zka_params_slot_bytes(const zka_pk *pk);

#endif

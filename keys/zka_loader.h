/* zka_loader.h - reads a .zka file (a params region's image, keys/params.h) into memory with
 * io_uring and O_DIRECT, verifying every section's checksum while later reads are in flight.
 * See loader.c for the design (objects, states, invariants). */
#ifndef ZKA_LOADER_H
#define ZKA_LOADER_H
#include <stddef.h>
#include <stdint.h>

#include "keys/params.h"

#define ZKA_LOADER_DEPTH 8		 /* reads in flight (measured: docs/keys.md) */
#define ZKA_LOADER_CHUNK (4u << 20)	 /* bytes per read */
#define ZKA_LOADER_IOV_MAX (1u << 30)	 /* bytes per registered buffer (the kernel's limit) */
#define ZKA_LOADER_POP_PIECE (32u << 20) /* bytes a populate thread takes at a time */
#define ZKA_LOADER_POP_THREADS 4	 /* at most (and at most the online CPUs) */
/* populate ahead by default from this many CPUs: measured 2026-12-02 (docs/keys.md), a 2^22
 * key (1.75 GB) into a new region on the H200 box (16 CPUs) 0.87-0.89 s ahead against
 * 1.09-1.20 s fixed; a 438 MB key on the 2-core box 0.57-0.70 s ahead against 0.27-0.32 s */
#define ZKA_LOADER_POP_MIN_CPUS 8

typedef struct zka_loader_opts {
	unsigned depth;	 /* reads in flight; 0: ZKA_LOADER_DEPTH */
	unsigned chunk;	 /* bytes per read, a multiple of 4 KiB; 0: ZKA_LOADER_CHUNK */
	int threads;	 /* checksum workers; 0: online CPUs, at most 4 */
	int progress;	 /* 1: a progress line on stderr for loads over a second; 0: none;
			    -1: when stderr is a terminal */
	int buffered;	 /* 1: never O_DIRECT */
	int no_fixed;	 /* 1: plain reads, no registered buffers */
	const char *shm; /* NULL: private anonymous memory; "": the resident name
			    (/zka-key.<id>); else this shm object (replaced if it exists) */
	void *dst;	 /* not NULL: read into this mapping (dst_size bytes) instead */
	size_t dst_size;
	int quiet; /* 1: no notice line for the buffered fallback */
	/* A fresh region's pages (allocated and zeroed by the kernel on first touch):
	 *   1: populated ahead of the reads by up to ZKA_LOADER_POP_THREADS threads
	 *     (MADV_POPULATE_WRITE, pop_piece bytes at a time) and read with plain O_DIRECT
	 *     reads: the page allocation runs on other cores beside the disk's transfers;
	 *  -1: the fixed buffers' registration faults and pins every page before the first
	 *     read (a private region is on transparent huge pages where the system gives them:
	 *     a fixed buffer of 2 MiB folios reaches the disk in few, large segments);
	 *   0 (default): 1 with at least ZKA_LOADER_POP_MIN_CPUS online CPUs, else -1; the
	 *     environment's ZKA_LOADER_POPULATE=ahead or =fixed overrides (an operator's A/B
	 *     switch; `zkarena bench load` measures both for new private and shm regions). */
	int populate;
	unsigned pop_piece; /* bytes per populate piece, a multiple of 4 KiB; 0: the default */
	/* Called once, on the loading thread, when the region is mapped and before its first
	 * read: the file's layout is known (in) but no section's bytes have landed. A consumer
	 * may start work that needs only the addresses (registering the key's memory with a
	 * device) beside the reads. A non-zero return fails the load (its -errno). */
	int (*on_region)(void *arg, void *map, size_t size, const zka_params_info *in);
	/* Called on an error after on_region, before the region is unmapped: whatever on_region
	 * started must be undone when it returns (the memory goes away). */
	void (*on_region_drop)(void *arg);
	void *region_arg;
} zka_loader_opts;

typedef struct zka_loader_stats {
	double seconds; /* open to verified */
	/* its phases: open, header and region mapped, ring made and buffers registered
	 * (t_setup); every read landed (t_read); the checksums' tail and the image's
	 * validation (t_verify) */
	double t_setup, t_read, t_verify;
	uint64_t bytes; /* the file's size */
	int direct;	/* O_DIRECT was used */
	int fixed;	/* reads went into registered buffers */
	int populated;	/* the region's pages were populated ahead of the reads */
	unsigned depth, chunk;
	char shm[64]; /* the region's shm name, "" when private */
} zka_loader_stats;

/* Loads path into a region and validates it as zka_params_open does; p maps it (zka_params_close
 * unmaps; with o->dst, p->map is o->dst and must not be closed). Errors: one "path: section
 * NAME: problem" line in err; -EBADMSG for a corrupt, truncated or mismatched file, other
 * -errno for the system (open, memory, io_uring). Nothing is left behind on error. */
int zka_loader_load(const char *path, const zka_loader_opts *o, zka_params *p, zka_loader_stats *st,
		    char *err, size_t errlen);

/* The number of times this process has opened a key file (.zka or .zkey) for reading: the
 * loader, zka_keys_* and import count every open(2) of one. */
uint64_t zka_loader_key_opens(void);
void zka_loader_count_open(void);

#endif

/* zka_keys.h - where a proving key comes from: a resident params region, a .zka file (read by
 * the loader, zka_loader.h), or a .zkey imported into a .zka once and kept in a cache
 * directory keyed by the .zkey's identity. Also `zkarena import` and the resident regions'
 * listing and eviction.
 *
 * Resident regions are shm objects /zka-key.<id> (id: the content identity of the image,
 * zka_params_info.id) carrying a residency record (params.h). A key file names a resident
 * region when stat(2) of the file matches the region's loaded-from file or the .zkey it was
 * imported from (size, mtime, device, inode): finding one opens no key file. */
#ifndef ZKA_KEYS_H
#define ZKA_KEYS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "keys/params.h"
#include "keys/zka_loader.h"

typedef struct zka_keys_opts {
	const char *r1cs; /* the circuit to put in the region (pipeline); NULL: none */
	int no_cache;	  /* a .zkey is imported in memory, no .zka written */
	int no_resident;  /* do not look for a resident region */
	int threads;	  /* 0: one per online CPU */
	int progress;	  /* as zka_loader_opts.progress */
	/* 1: a .zkey imported now (not into a named region) is returned while its points are
	 * still being validated on a thread; the caller may compute with the key but must not
	 * release anything made from it before zka_keys_validated returns 0 */
	int defer_validate;
	const char *shm; /* as zka_loader_opts.shm: NULL private, "" the resident name */
	/* a .params key: 1 when its rows are numbered by snarkjs's roots (a key converted from a
	 * .zkey by `zkey export bellperson`), 0 by bellperson's 7^t; part of the key's identity
	 * (its cache entry, a resident region); a .zkey or .zka ignores it */
	int root_snarkjs;
	/* as zka_loader_opts: told of a region the loader reads into (a .zka or a cached
	 * import's .zka; not a resident region, not an import in memory) */
	int (*on_region)(void *arg, void *map, size_t size, const zka_params_info *in);
	void (*on_region_drop)(void *arg);
	void *region_arg;
} zka_keys_opts;

typedef struct zka_keys_info {
	double seconds;	 /* the key load, found or read or imported */
	char how[256];	 /* one phrase: "resident region /zka-key.X", "read NAME.zka ..." */
	char shm[64];	 /* the region's name when named or resident */
	int resident;	 /* 1: an existing resident region was used */
	char file[1024]; /* the .zka read (the key itself or its cache entry), "" if none */
} zka_keys_info;

/* Gives p the params of the key at path (.zka or .zkey; a .zkey through the cache unless
 * o->no_cache). Errors: one line in err naming the file; -EBADMSG (or -EINVAL) for a bad
 * file, other -errno for the system. */
int zka_keys_open(const char *path, const zka_keys_opts *o, zka_params *p, zka_keys_info *ki,
		  char *err, size_t errlen);

/* Waits for p's deferred validation (zka_keys_opts.defer_validate; at once when there is
 * none) and finishes its cache entry (committed only when every point passed). Returns 0, or
 * -EINVAL with err naming the section and point; p stays open either way. */
int zka_keys_validated(zka_params *p, char *err, size_t errlen);

/* `zkarena import`: the .zkey (and .r1cs) into the .zka file out, every point validated (on
 * the curve, in the subgroup) with threads threads; written atomically. */
int zka_keys_import(const char *zkey, const char *r1cs, const char *out, int threads, int progress,
		    char *err, size_t errlen);
/* The same, a .params's rows numbered by bp_root (ZKA_ROOT_GEN7: zka_keys_import's;
 * ZKA_ROOT_SNARKJS: a key converted from a .zkey), recorded in the .zka. */
int zka_keys_import_root(const char *zkey, const char *r1cs, uint32_t bp_root, const char *out,
			 int threads, int progress, char *err, size_t errlen);

/* The stages of the last .zkey import this process made (zka_keys_import or an import by
 * zka_keys_open), in seconds; all zero before the first. read: the .zkey's (and .r1cs's)
 * identity hash, one sequential read; parse: the .zkey (and .r1cs) parsed, coordinates checked
 * below q; csr: A and B into CSR, the layout planned and the region made; fill: the sections
 * copied into the image and checksummed; validate: every point on the curve and in the
 * subgroup; write: what the .zka's write and fsync added after the validation (0 for an import
 * in memory). Each is that stage's own duration. With overlapped, read ran beside parse and
 * csr, and validate beside csr and fill (keys.c: "the import's stages overlapped"), so the
 * stages sum to more than the import took: wall is the time from the import's start to its
 * points validated (a deferred validation: to the image filled), the stages' real cost;
 * sequential (ZKA_IMPORT_SEQUENTIAL set), wall is their sum. */
typedef struct zka_keys_times {
	double read, parse, csr, fill, validate, write;
	int validate_dev; /* 1: the points were checked by the device checker (see below) */
	int overlapped;	  /* 1: the stages overlapped (read, validate beside the others) */
	double wall;	  /* the import's start to its points validated, before the write */
} zka_keys_times;
void zka_keys_last_times(zka_keys_times *t);

/* A device that checks points for the imports of this process (the CUDA build's
 * zka_gpu_check_points, installed by gpud/devcheck.c): check(arg, curve, g2, pts, n, &bad, &code,
 * err, errlen) checks n affine Montgomery points of G1 or G2 exactly as the curve's
 * g1_check/g2_check do and returns 0 with bad = UINT64_MAX (all passed) or the lowest failing
 * index and its code (ZKA_ENOTONCURVE, ZKA_ENOTINGROUP), or -errno when it cannot (no device:
 * -ENODEV). An import then checks every section with it when ZKA_VALIDATE_ON is auto or gpu
 * (unset: keys.c's ZKA_VALIDATE_ON_DEFAULT; never under ZKA_VALIDATE_EXACT); when it cannot,
 * the CPU checks them: said once on stderr unless the reason is -ENODEV, and in the import's
 * line (zka_keys_info.how) in every case. NULL
 * uninstalls. Set it before any import starts (not thread-safe against running imports). */
typedef int (*zka_keys_check_fn)(void *arg, const struct zka_curve *c, int g2, const void *pts,
				 size_t n, uint64_t *bad, int *code, char *err, size_t errlen);
void zka_keys_set_checker(zka_keys_check_fn check, void *arg, const char *name);

/* Checks n (<= ZKA_PARAMS_NPOINTSECT) sections of affine Montgomery points of curve c, as an
 * import checks a key's: section s is count[s] points at pts[s], G2 when g2[s]; on the device
 * checker when one is installed (and ZKA_VALIDATE_ON allows), else on threads CPU threads.
 * Returns 0 when every point is on the curve and in the order-r subgroup (or infinity), or
 * -EINVAL with "path: section NAME: point K is not on the curve|in the subgroup" for the
 * lowest failing point of the first failing section. progress: 1 show, 0 not, -1 when stderr
 * is a terminal. keys/params.c checks a .params's h, l, a, b_g1, b_g2 and ic so. */
int zka_keys_check_sections(const char *path, const struct zka_curve *c, int n,
			    const char *const name[], const int g2[], const void *const pts[],
			    const uint64_t count[], int threads, int progress, char *err,
			    size_t errlen);

/* Where the last import of this process checked its points, for its line: " on NAME" (the
 * device), " on the CPU (REASON)" when a checker is installed but did not check them, "" when
 * none is installed. Valid until the next import. */
const char *zka_keys_validated_where(void);

/* Finds the resident region of the key file path (and circuit r1cs, NULL: any); 0 with name
 * set, or -ENOENT. Opens no key file. For a .params, only a region imported with bellperson's
 * roots (the default; zka_keys_opts.root_snarkjs's imports are found by zka_keys_open). Only a
 * trusted region (zka_keys_region_trusted) whose content id matches its /zka-key.<id> name is
 * considered. */
int zka_keys_find_resident(const char *path, const char *r1cs, char name[64]);

struct stat;
/* May this process use a key region with this stat? A regular file, not writable by group or
 * others, owned by this euid or by a uid listed in $ZKARENA_KEY_OWNERS (comma-separated):
 * root trusts only root's, a user only its own, unless configured. 1, or 0 with why set. */
int zka_keys_region_trusted(const struct stat *st, char *why, size_t whylen);

/* The cache directory ($ZKARENA_CACHE; /var/cache/zkarena as root; else
 * $XDG_CACHE_HOME/zkarena or ~/.cache/zkarena; "" when HOME is unset: no cache). */
void zka_keys_cache_dir(char *out, size_t n);

/* 0 when dir may hold this user's cache: it and every ancestor owned by this user or root,
 * none writable by group or others without the sticky bit, dir itself this user's (made
 * 0700; with create: missing components made). Else one line in err, -EPERM/-errno. */
int zka_keys_cache_check(const char *dir, int create, char *err, size_t errlen);

/* The cache's size cap in bytes: $ZKARENA_CACHE_MAX (bytes, K/M/G/T suffix; 0: no cap), else
 * ZKA_KEYS_CACHE_MAX_DEFAULT. -EINVAL (said in err) when the variable is not a size. */
#define ZKA_KEYS_CACHE_MAX_DEFAULT (64ull << 30)
int zka_keys_cache_max(uint64_t *max, char *err, size_t errlen);

/* Least-recently-used eviction: removes this user's cache entries (*.zka, and the compiled
 * witness graphs *.wcgx of witness/wcg.c; regular files) in
 * dir, the least recently used first (atime: a cache hit touches it), until they take at most
 * max bytes; never keep (a path or NULL). Each removal is said on log when not NULL. Returns
 * the number removed (>= 0) with *left the bytes left, or -errno. */
int zka_keys_cache_gc(const char *dir, uint64_t max, const char *keep, FILE *log, uint64_t *left);

/* One params region in /dev/shm, for `zkarena params list`. */
typedef struct zka_keys_region {
	char name[64];
	int resident; /* 1: /zka-key.*, 0: an arena's */
	int ok;	      /* header valid */
	zka_params_info info;
	zka_params_res res;
	int has_res;
	uint64_t size;
	char mappers[256]; /* "pid (comm), ..." of the processes that map it */
} zka_keys_region;

/* Lists the params regions; *out is malloc'd (free it). Returns the count or -errno. */
int zka_keys_list(zka_keys_region **out);

/* The region name ("/zka-key.<id>") of a resident key given by a unique prefix of its id;
 * 0, or -ENOENT / -EEXIST (ambiguous) with err. */
int zka_keys_resolve(const char *id, char name[64], char *err, size_t errlen);
/* Removes the resident region named by id (its 16 hex digits, a unique prefix, or its shm
 * name). Processes that map it keep their mapping. 0 or -errno with err set. */
int zka_keys_evict(const char *id, char *err, size_t errlen);

#endif

/* zka_gpud_status.h - the gpuds' status files of an arena: path, format, atomic write,
 * hardened read, removal with the arena. See shm/gpud_status.c for the design note. */
#ifndef ZKA_GPUD_STATUS_H
#define ZKA_GPUD_STATUS_H

#include <stddef.h>
#include <stdint.h>

#define ZKA_GPUDS_MAX 64	    /* gpud ids 0..63 */
#define ZKA_GPUD_KEYS_MAX 256	    /* circuit indices a "keys:" line can name */
#define ZKA_GPUD_STATUS_BYTES 32768 /* a file larger than this is refused */

/* One gpud's status file, as written and as read back. */
struct zka_gpud_status {
	int id, device, pid, lanes, nkeys;
	char backend[16];
	char note[800];	   /* line 1 after "pid P: ": the backend's note and warning */
	char summary[600]; /* line 2: the last minute in words ("last 60 s: GPU busy ...") */
	double busy, proofs_per_s; /* the last minute's, read back from summary (busy: 0..1) */
	uint64_t keys[ZKA_GPUD_KEYS_MAX / 64]; /* circuits whose key is resident */
	int has_counters;		       /* the "counters:" line was read */
	unsigned long long mono_ns, busy_ns, proofs, failed, copy_ns, copy_hidden_ns, ready_total,
	    bytes_in, yields, key_bytes;
	int has_mem; /* the counters line has mem_used= and mem_total= (cuda backend) */
	unsigned long long mem_used, mem_total; /* the device's memory, bytes */
	int alive;				/* read back: pid still runs */
	int stopped;  /* read back: alive but stopped (SIGSTOP, traced): it proves nothing */
	double age_s; /* read back: seconds since the file was last written (every 1 s) */
};

/* Writes gpud id's status file path of arena name to out ("/dev/shm/zkarena-NAME.gpud-status"
 * for id 0, "...gpudI-status" for I > 0). 0, or -EINVAL (bad name or id, or out too small). */
int zka_gpud_status_path(char *out, size_t n, const char *name, int id);
/* The uid a status file of arena name must belong to (besides root): the arena object's owner,
 * or this process's uid when the arena is absent. */
uint32_t zka_gpud_status_owner(const char *name);
/* Writes s as gpud s->id's status file of arena name, atomically (a mode 0600 temporary file,
 * then rename: a reader sees the old file or the new one). key_bytes[i] (may be NULL) is the
 * size of resident key i for the "keys:" line. 0 or -errno. */
int zka_gpud_status_write(const char *name, const struct zka_gpud_status *s,
			  const uint64_t *key_bytes);
/* Reads gpud id's status file text into buf (NUL-terminated) without following a link or
 * blocking: only a regular file of owner (or root) of at most ZKA_GPUD_STATUS_BYTES is read.
 * 0; -ENOENT absent; -ELOOP a link; -EPERM another's; -EINVAL not a regular file; -EFBIG too
 * large or buf too small; other -errno. */
int zka_gpud_status_load(const char *name, int id, uint32_t owner, char *buf, size_t n);
/* Parses a status file's text into s (zeroed first; device -1 and backend "?" when absent). */
void zka_gpud_status_parse(const char *text, struct zka_gpud_status *s);
/* Loads (as zka_gpud_status_load) and parses gpud id's file; sets s->id, s->alive, s->stopped
 * and s->age_s. 0 or -errno as load. */
int zka_gpud_status_read(const char *name, int id, uint32_t owner, struct zka_gpud_status *s);
/* "" for a gpud that runs and writes its file, else "  [not running]", "  [stopped]" or
 * "  [no update for N s]" (a file older than 5 s: hung), into buf. */
const char *zka_gpud_status_flag(const struct zka_gpud_status *s, char *buf, size_t n);
/* Reads the status files of arena name's gpuds, in id order, into out (at most max), as
 * zka_gpud_status_read with the arena's owner. Returns how many were read. */
int zka_gpud_status_read_all(const char *name, struct zka_gpud_status *out, int max);
/* Removes every gpud status file of arena name (whatever is at those names; zka_arena_destroy
 * calls it). Returns the number removed. */
int zka_gpud_status_remove_all(const char *name);

#endif

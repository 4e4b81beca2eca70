/* pipe.h - the pipeline's shared pieces on top of the arena (shm/zka_arena.h): circuits
 * loaded into params regions, the job client API (submit, wait, cancel, list), and the layout
 * of a slot. Used by the CLI, zkarena-synth and zkarena-gpud.
 *
 * Slot layout (all little-endian, 32 bytes per Fr element; arena layout version 5):
 *   [a: domain_size, standard form][b: domain_size, standard form][w: n_vars, standard form]
 * a and b are computed by synthesis and only read by the prover, so a prover that dies
 * mid-proof leaves them intact for the next one (no re-synthesis). c = a .* b is not in the
 * slot: the prover makes it (the GPU on the device, from a and b already copied there; the
 * CPU backend into its scratch), which saves synthesis a third of its output writes and the
 * GPU a third of its input copies. a and b are in standard form (zk/abc.h's "Forms"): the
 * witness needs no Montgomery conversion on the host, and the GPU converts a and b after the
 * copy, where it costs one product each. Version 3 slots held c between b and w; version 4
 * held a and b in Montgomery form. */
#ifndef ZKA_PIPE_H
#define ZKA_PIPE_H
#include <stddef.h>
#include <stdint.h>

#include "shm/zka_arena.h"
#include "keys/params.h"

/* Pointers into a slot's data for a key; returns -ENOSPC when the slot is too small. */
typedef struct {
	uint64_t (*a)[4], (*b)[4], (*w)[4];
	uint64_t bytes;
} zka_slot_view;
int zka_pipe_slot_view(struct zka_arena *a, uint32_t slot, const zka_pk *pk, zka_slot_view *v);

/* Makes sure the key (.zka or .zkey, and optional r1cs) is in a params region recorded in
 * the arena's circuit table (by path, size, mtime and a hash of the key's first 4 KiB): a
 * resident region of the key (zka_keys.h) when one exists, else loaded now (zka_keys_open,
 * through the .zkey cache) when no process has; *idx receives the table index. Waits (up to ~60 s)
 * for another process that is loading the same key. Returns 0 or -errno with err naming the file.
 */
int zka_pipe_load_circuit(struct zka_arena *a, const char *arena_name, const char *zkey,
			  const char *r1cs, uint32_t *idx, char *err, size_t errlen);

/* Submits one job: loads the circuit if needed (only the arena's owner or root loads keys; a
 * group member uses the keys loaded), checks the params region's owner, that the arena's
 * slots hold the key (naming both sizes), the witness (regular file, the key's curve and
 * length), and the output directory (not a symbolic link, a directory this user may write;
 * its device and inode and the submitter's uid/gid go into the job so that the prover writes
 * only there, files owned by the submitter), then queues the job (the oldest finished
 * records are freed when the table is full). Returns 0 with *id set, or -errno with err set
 * (nothing queued). */
int zka_pipe_submit(struct zka_arena *a, const char *arena_name, const char *zkey, const char *r1cs,
		    const char *wtns, const char *out_dir, uint64_t *id, char *err, size_t errlen);

/* Removes every params region of the arena NAME (for destroy and the demo's cleanup).
 * Returns the number removed. */
int zka_pipe_unlink_params(const char *arena_name);

/* Opens arena name with zka_arena_open flags (0: with recovery, as the daemons do), printing
 * "PROG: arena NAME: problem" on failure (returns NULL). */
struct zka_arena *zka_pipe_attach(const char *prog, const char *name, int flags);

/* Prints "PROG[pid]: message" on stderr, one line. */
void zka_pipe_log(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sleeps for the number of milliseconds in environment variable var (a test hook that widens
 * the window in which a kill lands mid-operation); does nothing when it is unset or <= 0. */
void zka_pipe_test_delay(const char *var);

/* The name of a job's "done" marker inside its output directory. It carries the arena's
 * creation time as well as the job id, so a marker left by a job of an earlier arena (ids
 * repeat across arenas) never makes a new job with the same id skip its proof. */
void zka_pipe_marker(char *out, size_t n, const struct zka_arena *a, const char *out_dir,
		     uint64_t id);

#endif

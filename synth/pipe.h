/* pipe.h - the arena plumbing its processes share, on top of the arena (shm/zka_arena.h) and
 * the keys (keys/): keys loaded into params regions and recorded in the circuit table, the
 * loaded keys as a submitter sees them, and the helpers every zkarena process uses to attach,
 * log and widen test windows. The layout of a slot is in synth/slot_layout.h, the job client
 * (submit, wait, done markers) in synth/client.h. Used by the CLI, zkarena-synth and
 * zkarena-gpud. */
#ifndef ZKA_PIPE_H
#define ZKA_PIPE_H
#include <stddef.h>
#include <stdint.h>

#include "shm/zka_arena.h"
#include "keys/params.h"

/* Makes sure the key (.zka or .zkey, and optional r1cs) is in a params region recorded in
 * the arena's circuit table (by path, size, mtime and a hash of the key's first 4 KiB): a
 * resident region of the key (zka_keys.h) when one exists, else loaded now (zka_keys_open,
 * through the .zkey cache) when no process has; *idx receives the table index. Waits (up to ~60 s)
 * for another process that is loading the same key. Returns 0 or -errno with err naming the file.
 */
int zka_pipe_load_circuit(struct zka_arena *a, const char *arena_name, const char *zkey,
			  const char *r1cs, uint32_t *idx, char *err, size_t errlen);

/* The LOADED circuit entry of this key (by path, size, mtime and header hash), without
 * loading anything: what a submitter that does not own the arena may use. 0 with *idx set;
 * -EPERM with err set when the owner has not loaded it; other -errno from the key's files. */
int zka_pipe_find_loaded(struct zka_arena *a, const char *zkey, const char *r1cs, uint32_t *idx,
			 char *err, size_t errlen);

/* Removes every params region of the arena NAME (for destroy and the demo's cleanup).
 * Returns the number removed. */
int zka_pipe_unlink_params(const char *arena_name);

/* Opens arena name with zka_arena_open flags (0: with recovery, as the daemons do), printing
 * "PROG: arena NAME: problem" on failure (returns NULL). */
struct zka_arena *zka_pipe_attach(const char *prog, const char *name, int flags);

/* Who computes a = A w and b = B w for a job whose witness a worker or library producer has
 * written (synth/slot_layout.c's forms). */
enum zka_ab_mode { ZKA_AB_AUTO = 0, ZKA_AB_PROVER = 1, ZKA_AB_WORKER = 2 };
/* "auto", "prover" or "worker" into *m: 0, or -EINVAL. */
int zka_ab_mode_parse(const char *s, enum zka_ab_mode *m);
/* 1 when the prover should make a and b (the slot then holds only the witness, form W): mode
 * PROVER, or AUTO with at least one running gpud of the arena and every running one a cuda
 * gpud (their status files, read at most once a second per process; the answer is cached
 * between). 0 otherwise. The first answer and every change are said in one log line
 * "PROG[pid]: a and b: computed by ...". Any thread. */
int zka_pipe_ab_prover(struct zka_arena *a, enum zka_ab_mode mode, const char *prog);

/* Prints "PROG[pid]: message" on stderr, one line. */
void zka_pipe_log(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sleeps for the number of milliseconds in environment variable var (a test hook that widens
 * the window in which a kill lands mid-operation); does nothing when it is unset or <= 0. */
void zka_pipe_test_delay(const char *var);
/* Test hook: 1 when $ZKA_TEST_ENOSPC names this output file (gpud then fails writing it with
 * ENOSPC, as a full disk would), else 0. */
int zka_pipe_test_enospc(const char *name);

#endif

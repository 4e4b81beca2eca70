/* gpuds.h - `zkarena status`: the gpuds of an arena as their status files describe them
 * (shm/zka_gpud_status.h reads them), printed for people. */
#ifndef ZKA_GPUDS_H
#define ZKA_GPUDS_H

#include <stdint.h>

/* Prints gpud 0's status file line by line after "daemon: " (or why there is none), then one
 * line per gpud (id, device, backend, pid, busy %, proofs/s, keys resident), then each file of
 * id >= 1 line by line after "daemon: ". Files are read only as regular files of owner (the
 * arena's) or root. Returns the number of gpuds. */
int zka_gpuds_print(const char *name, uint32_t owner);
struct zka_arena;
/* One line "users: uid U (NAME) Q queued, R in progress; ..." for every submitter with a job
 * queued or in progress, with the per-user limits of the arena's settings file ([limits]) and
 * which users they bind (every one but the arena's owner and root). */
void zka_print_user_queues(struct zka_arena *a, const char *name);
/* `zkarena status NAME --watch` (tools/cmd_watch.c): a snapshot of the arena every second
 * until SIGINT/SIGTERM (watch 0: one snapshot). Returns the exit status. */
int zka_status_watch(const char *name, int watch);

#endif

/* gpuds.h - the gpuds of an arena as their status files describe them (for `zkarena status`
 * and the metrics). Each zkarena-gpud writes /dev/shm/zkarena-NAME.gpud-status (id 0) or
 * zkarena-NAME.gpudI-status (id I) once a second; gpud/main.c describes the lines. */
#ifndef ZKA_GPUDS_H
#define ZKA_GPUDS_H

#define ZKA_GPUDS_MAX 64

struct zka_gpud_status {
	int id, device, pid, alive, lanes, nkeys;
	char backend[16];
	double busy, proofs_per_s; /* the last minute's */
	unsigned long long mono_ns, busy_ns, proofs, failed, bytes_in, key_bytes, yields;
	int has_mem; /* the counters line has mem_used= and mem_total= (cuda backend) */
	unsigned long long mem_used, mem_total; /* the device's memory, bytes */
};

/* The status file path of gpud id of arena name. */
void zka_gpuds_path(char *out, unsigned long n, const char *name, int id);
/* Reads the status files of arena name's gpuds, in id order, into out (at most max): only
 * regular files (no link followed) of the arena's owner. Returns how many were read. */
int zka_gpuds_read(const char *name, struct zka_gpud_status *out, int max);
/* Prints one line per gpud (id, device, backend, pid, busy %, proofs/s, keys resident), then
 * each file of id >= 1 line by line after "daemon: " (id 0's file is printed by the caller).
 * Returns the number of gpuds. */
int zka_gpuds_print(const char *name);
/* `zkarena status NAME --watch` (tools/cmd_watch.c): a snapshot of the arena every second
 * until SIGINT/SIGTERM (watch 0: one snapshot). Returns the exit status. */
int zka_status_watch(const char *name, int watch);

#endif

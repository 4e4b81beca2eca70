/* zka_config.h - an arena's settings file, /etc/zkarena/NAME.conf (INI, read with inih).
 * config.c's opening comment lists the sections and keys. */
#ifndef ZKA_CONFIG_H
#define ZKA_CONFIG_H

#include <stdint.h>
#include <stdio.h>

/* Which keys the file set (bits of zka_config.set). */
enum {
	ZKA_CF_SLOTS = 1 << 0,
	ZKA_CF_SLOT_BYTES = 1 << 1,
	ZKA_CF_JOBS = 1 << 2,
	ZKA_CF_NUMA = 1 << 3,
	ZKA_CF_MAX_ATTEMPTS = 1 << 4,
	ZKA_CF_RETENTION = 1 << 5,
	ZKA_CF_WORKERS = 1 << 6,
	ZKA_CF_THREADS = 1 << 7,
	ZKA_CF_BACKEND = 1 << 8,
	ZKA_CF_DEVICES = 1 << 9,
	ZKA_CF_INFLIGHT = 1 << 10,
	ZKA_CF_METRICS = 1 << 11,
	ZKA_CF_TABLE_BUDGET = 1 << 12,
	ZKA_CF_USER_QUEUED = 1 << 13,
	ZKA_CF_USER_PRIORITY = 1 << 14,
	ZKA_CF_HTTP_LISTEN = 1 << 15,
	ZKA_CF_HTTP_UNIX = 1 << 16,
	ZKA_CF_HTTP_TOKENS = 1 << 17,
	ZKA_CF_HTTP_SPOOL = 1 << 18,
	ZKA_CF_HTTP_CERT = 1 << 19,
	ZKA_CF_HTTP_KEY = 1 << 20,
	ZKA_CF_HTTP_MAX_BODY = 1 << 21,
	ZKA_CF_HTTP_MAX_QUEUE = 1 << 22,
	ZKA_CF_HTTP_KEYS = 1 << 23,
	ZKA_CF_HTTP_UNIX_GROUP = 1 << 24,
};

struct zka_config {
	unsigned set;
	/* [arena] */
	uint32_t slots, jobs, max_attempts, retention_s;
	uint64_t slot_bytes;
	int numa_node; /* -1: no binding */
	/* [run] */
	int workers, threads, inflight;
	char backend[8];       /* cpu | cuda | auto */
	char devices[256];     /* "0,1,..." */
	char table_budget[32]; /* as written: "max", N or Nx (config/zka_budget.h); "" unset */
	/* [metrics] */
	char metrics[64]; /* HOST:PORT, "" off */
	/* [limits]: per submitter other than the arena's owner and root (shm/zka_arena.h,
	 * zka_user_limits) */
	uint32_t user_queued; /* jobs of one user eligible at a time (1..16777214) */
	int user_priority;    /* the highest priority that counts for one user (-1000..1000) */
	/* [http]: the job API (serve/zka_serve.h) inside `zkarena run`; "" unset */
	char http_listen[64], http_unix[108], http_tokens[256], http_spool[256];
	char http_unix_group[64]; /* the socket's group (serve --unix-group) */
	char http_cert[256], http_key[256], http_keys[1024]; /* keys: paths, comma-separated */
	uint64_t http_max_body;
	uint32_t http_max_queue;
};

/* The settings file of arena name: $ZKA_CONFIG_DIR/NAME.conf, default /etc/zkarena/NAME.conf. */
void zka_config_path(char *out, size_t n, const char *name);
/* Reads path into *c (zeroed first, numa_node -1). Every problem is printed to report (may be
 * NULL) as "PATH:LINE: problem", and counted in *problems (may be NULL). Returns 0, -EINVAL
 * when there were problems (c holds the valid keys), or -errno when the file cannot be read
 * (printed as "PATH: reason"). */
int zka_config_load(const char *path, struct zka_config *c, FILE *report, int *problems);
/* The per-user limits of arena name's settings file, when it exists, into *queued and *prio
 * (ZKA_CF_USER_* bits of the result say which are set). 0 when there is no file or no
 * [limits]; -EINVAL (printed to report) when the file has problems. */
int zka_config_user_limits(const char *name, FILE *report, uint32_t *queued, int *prio);
/* Submit's side of those limits for a job of uid at priority prio in arena a (named name; the
 * workers enforce them whatever a client does): 0 when allowed (always for the arena's owner
 * and root); -EPERM, prio above user_priority; -EDQUOT, uid already has user_queued queued jobs
 * (counted by the user each job counts against, zka_job_info.acct_uid); -EINVAL, the settings
 * file has problems (printed to report, may be NULL). err (n bytes) says which, naming the
 * limit and the file. */
struct zka_arena;
int zka_config_user_limits_check(struct zka_arena *a, const char *name, uint32_t uid, int prio,
				 FILE *report, char *err, size_t n);
/* Parses a list of device numbers "0,1,..." (0..1023, at most max) into dev; returns how many,
 * or -EINVAL. */
int zka_config_devices(const char *s, int *dev, int max);

#endif

/* gpuds.c - see gpuds.h. */
#include "tools/gpuds.h"

#include "config/zka_config.h"
#include "shm/zka_arena.h"
#include "shm/zka_gpud_status.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the text of a status file after "daemon: ", line by line. */
static void print_lines(const char *text)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		int len = nl ? (int)(nl - l) : (int)strlen(l);
		printf("daemon: %.*s\n", len, l);
		l += len + (nl != NULL);
	}
}

int zka_gpuds_print(const char *name, uint32_t owner)
{
	char path[ZKA_NAME_MAX + 64], *text = malloc(ZKA_GPUD_STATUS_BYTES + 1);
	struct zka_gpud_status *s = calloc(ZKA_GPUDS_MAX, sizeof *s);
	int n = 0;
	if (!text || !s) {
		printf("daemon: out of memory\n");
		goto out;
	}
	int r = zka_gpud_status_load(name, 0, owner, text, ZKA_GPUD_STATUS_BYTES + 1);
	if (r == 0)
		print_lines(text);
	else if (r == -ENOENT || r == -ELOOP || zka_gpud_status_path(path, sizeof path, name, 0))
		printf("daemon: no zkarena-gpud has started on this arena yet\n");
	else
		printf("daemon: %s is not a regular file of the arena's owner: ignored\n", path);
	n = zka_gpud_status_read_all(name, s, ZKA_GPUDS_MAX);
	if (n > 0)
		printf("%-5s %-7s %-8s %-8s %-7s %-9s %s\n", "gpud", "device", "backend", "pid",
		       "busy%", "proofs/s", "keys resident");
	for (int i = 0; i < n; i++) {
		char flag[96];
		printf("%-5d %-7d %-8s %-8d %-7.1f %-9.2f %d (%.1f MiB)%s\n", s[i].id, s[i].device,
		       s[i].backend, s[i].pid, 100 * s[i].busy, s[i].proofs_per_s, s[i].nkeys,
		       (double)s[i].key_bytes / 1048576.0,
		       zka_gpud_status_flag(&s[i], flag, sizeof flag));
	}
	for (int i = 0; i < n; i++)
		if (s[i].id != 0 && zka_gpud_status_load(name, s[i].id, owner, text,
							 ZKA_GPUD_STATUS_BYTES + 1) == 0)
			print_lines(text);
out:
	free(text);
	free(s);
	return n;
}

void zka_print_user_queues(struct zka_arena *a, const char *name)
{
	struct zka_arena_geometry g;
	struct uq {
		uint32_t uid, queued, busy;
	} u[64];
	int nu = 0, more = 0;
	uint32_t auid, q = 0;
	int pr = 0, set = zka_config_user_limits(name, NULL, &q, &pr);
	zka_arena_owner(a, &auid, NULL, NULL);
	zka_arena_geometry(a, &g);
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		if (zka_job_info(a, j, &ji) || ji.state < ZKA_JOB_SUBMITTED ||
		    ji.state > ZKA_JOB_PROVING)
			continue;
		int i = 0;
		while (i < nu && u[i].uid != ji.acct_uid)
			i++;
		if (i == nu) {
			if (nu == 64) {
				more++;
				continue;
			}
			u[nu++] = (struct uq){.uid = ji.acct_uid};
		}
		if (ji.state == ZKA_JOB_SUBMITTED)
			u[i].queued++;
		else
			u[i].busy++;
	}
	printf("users:");
	if (!nu)
		printf(" no job queued or in progress");
	for (int i = 0; i < nu; i++) {
		struct passwd *pw = getpwuid(u[i].uid);
		int lim = set > 0 && u[i].uid != auid && u[i].uid != 0;
		printf("%s uid %u (%s) %u queued, %u in progress%s", i ? ";" : "", u[i].uid,
		       pw ? pw->pw_name : "?", u[i].queued, u[i].busy,
		       lim && (set & ZKA_CF_USER_QUEUED) && u[i].queued > q ? " [over user_queued]"
									    : "");
	}
	if (more)
		printf("; %d job(s) of further users", more);
	printf("\n");
	if (set > 0) {
		printf("per-user limits (all but uid %u and root):", auid);
		if (set & ZKA_CF_USER_QUEUED)
			printf(" %u queued job(s) eligible at a time", q);
		if (set & ZKA_CF_USER_PRIORITY)
			printf("%s priority counts at most %d", set & ZKA_CF_USER_QUEUED ? "," : "",
			       pr);
		printf("\n");
	}
}

/* gpuds.c - see gpuds.h. */
#include "tools/gpuds.h"

#include "shm/zka_arena.h"
#include "shm/zka_gpud_status.h"

#include <errno.h>
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

/* gpuds.c - see gpuds.h. */
#include "tools/gpuds.h"

#include "shm/zka_arena.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void zka_gpuds_path(char *out, unsigned long n, const char *name, int id)
{
	if (id == 0)
		snprintf(out, n, "/dev/shm/zkarena-%s.gpud-status", name);
	else
		snprintf(out, n, "/dev/shm/zkarena-%s.gpud%d-status", name, id);
}

/* Opens gpud id's status file: NULL when absent, a link, not regular or not the owner's. */
static FILE *open_status(const char *name, int id, uid_t owner)
{
	char path[ZKA_NAME_MAX + 64];
	zka_gpuds_path(path, sizeof path, name, id);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != owner) {
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static uid_t arena_owner(const char *name)
{
	char path[ZKA_NAME_MAX + 32];
	struct stat st;
	snprintf(path, sizeof path, "/dev/shm/zkarena-%s", name);
	return stat(path, &st) ? getuid() : st.st_uid;
}

int zka_gpuds_read(const char *name, struct zka_gpud_status *out, int max)
{
	uid_t owner = arena_owner(name);
	int n = 0;
	for (int id = 0; id < ZKA_GPUDS_MAX && n < max; id++) {
		FILE *f = open_status(name, id, owner);
		if (!f)
			continue;
		struct zka_gpud_status *s = &out[n++];
		memset(s, 0, sizeof *s);
		s->id = id;
		s->device = -1;
		snprintf(s->backend, sizeof s->backend, "?");
		char line[4096];
		while (fgets(line, sizeof line, f)) {
			sscanf(line, "pid %d:", &s->pid);
			sscanf(line, "last %*f s: %*s busy %lf%%, %lf proofs/s", &s->busy,
			       &s->proofs_per_s);
			sscanf(line, "gpud: id=%*d device=%d backend=%15s lanes=%d", &s->device,
			       s->backend, &s->lanes);
			sscanf(line, "keys: %d resident", &s->nkeys);
			sscanf(line,
			       "counters: mono_ns=%llu busy_ns=%llu proofs=%llu failed=%llu "
			       "copy_ns=%*d copy_hidden_ns=%*d ready_total=%*u lanes=%*d "
			       "bytes_in=%llu yields=%llu keys=%*d key_bytes=%llu",
			       &s->mono_ns, &s->busy_ns, &s->proofs, &s->failed, &s->bytes_in,
			       &s->yields, &s->key_bytes);
			const char *mu =
			    strncmp(line, "counters:", 9) ? NULL : strstr(line, " mem_used=");
			if (mu && sscanf(mu, " mem_used=%llu mem_total=%llu", &s->mem_used,
					 &s->mem_total) == 2)
				s->has_mem = 1;
		}
		s->busy /= 100;
		s->alive = s->pid > 0 && (kill(s->pid, 0) == 0 || errno == EPERM);
		fclose(f);
	}
	return n;
}

int zka_gpuds_print(const char *name)
{
	struct zka_gpud_status s[ZKA_GPUDS_MAX];
	int n = zka_gpuds_read(name, s, ZKA_GPUDS_MAX);
	if (n > 0)
		printf("%-5s %-7s %-8s %-8s %-7s %-9s %s\n", "gpud", "device", "backend", "pid",
		       "busy%", "proofs/s", "keys resident");
	for (int i = 0; i < n; i++)
		printf("%-5d %-7d %-8s %-8d %-7.1f %-9.2f %d (%.1f MiB)%s\n", s[i].id, s[i].device,
		       s[i].backend, s[i].pid, 100 * s[i].busy, s[i].proofs_per_s, s[i].nkeys,
		       (double)s[i].key_bytes / 1048576.0, s[i].alive ? "" : "  [not running]");
	uid_t owner = arena_owner(name);
	for (int i = 0; i < n; i++) {
		if (s[i].id == 0)
			continue;
		FILE *f = open_status(name, s[i].id, owner);
		char line[4096];
		while (f && fgets(line, sizeof line, f))
			printf("daemon: %s", line);
		if (f)
			fclose(f);
	}
	return n;
}

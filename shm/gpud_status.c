/* gpud_status.c - the gpuds' status files of an arena: one module owns their path, their
 * format, their writing, their reading and their removal.
 *
 * ==== Design notes ====
 *
 * Objects. One plain file per gpud in /dev/shm, beside the arena object "/zkarena-NAME":
 *   zkarena-NAME.gpud-status    gpud id 0
 *   zkarena-NAME.gpudI-status   gpud id I (1..63)
 * mode 0600, owned by the gpud's uid (the arena's owner: gpud opens only its own arenas), at
 * most ZKA_GPUD_STATUS_BYTES. Five lines (zka_gpud_status_write is their only writer):
 *   pid P: NOTE                  the backend's note and warning
 *   SUMMARY                      "last 60 s: GPU busy B%, R proofs/s, ..." for people
 *   gpud: id=I device=D backend=NAME lanes=L
 *   keys: N resident, B bytes: i=bytes ...     the circuits whose key is on the device
 *   counters: mono_ns=... busy_ns=... proofs=... failed=... copy_ns=... copy_hidden_ns=...
 *             ready_total=... lanes=... bytes_in=... yields=... keys=... key_bytes=...
 *             [mem_used=... mem_total=...]     for programs (bench pipeline, metrics)
 * Readers: `zkarena status` (and --watch), the metrics exporter, bench pipeline, and every
 * gpud (the other gpuds' resident keys, for key preference).
 *
 * States of one name: ABSENT -> PRESENT (first write) -> PRESENT (each write replaces the
 * file whole) -> ABSENT (zka_gpud_status_remove_all, from zka_arena_destroy). Anything else
 * found at the name (a link, a FIFO, a directory, another user's file, an oversized file) is
 * FOREIGN: never read, removed with the arena.
 *
 * Transition table:
 *   zka_gpud_status_write       ABSENT|PRESENT -> PRESENT  (temporary "NAME.tmpPID", rename)
 *   zka_gpud_status_remove_all  any -> ABSENT              (every gpud id and stale temporary)
 *   zka_gpud_status_load/read   none (reads PRESENT, refuses FOREIGN)
 *
 * Invariants:
 *   S1. A reader sees a whole file, old or new: writes go through a temporary file and rename.
 *   S2. A reader never follows a link and never blocks: the name is opened O_NOFOLLOW |
 *       O_NONBLOCK, and only a regular file of the arena's owner (or root) is read, and at
 *       most ZKA_GPUD_STATUS_BYTES of it. A FIFO or link planted at the name is refused.
 *   S3. The path of gpud id of arena NAME is built only by zka_gpud_status_path, from a name
 *       that zka_arena_shm_name accepts.
 *   S4. Destroying the arena removes the status files of every gpud id, so none outlives it.
 */
#include "shm/zka_arena.h"
#include "shm/zka_gpud_status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int zka_gpud_status_path(char *out, size_t n, const char *name, int id)
{
	int r, len;
	if ((r = zka_arena_shm_name(name, NULL, 0)))
		return r;
	if (id < 0 || id >= ZKA_GPUDS_MAX)
		return -EINVAL;
	if (id == 0)
		len = snprintf(out, n, "/dev/shm/zkarena-%s.gpud-status", name);
	else
		len = snprintf(out, n, "/dev/shm/zkarena-%s.gpud%d-status", name, id);
	return len < 0 || (size_t)len >= n ? -EINVAL : 0;
}

uint32_t zka_gpud_status_owner(const char *name)
{
	char shm[ZKA_NAME_MAX + 16], path[ZKA_NAME_MAX + 32];
	struct stat st;
	if (zka_arena_shm_name(name, shm, sizeof shm))
		return getuid();
	snprintf(path, sizeof path, "/dev/shm%s", shm);
	return stat(path, &st) ? getuid() : st.st_uid;
}

/* Writes the five lines of s to f. */
static void format(FILE *f, const struct zka_gpud_status *s, const uint64_t *key_bytes)
{
	fprintf(f, "pid %d: %s\n%s\n", s->pid, s->note, s->summary);
	fprintf(f, "gpud: id=%d device=%d backend=%s lanes=%d\n", s->id, s->device, s->backend,
		s->lanes);
	fprintf(f, "keys: %d resident, %llu bytes:", s->nkeys, s->key_bytes);
	for (int i = 0; i < ZKA_GPUD_KEYS_MAX; i++)
		if (s->keys[i / 64] >> (i % 64) & 1)
			fprintf(f, " %d=%llu", i,
				key_bytes ? (unsigned long long)key_bytes[i] : 0ull);
	fprintf(f, "\n");
	fprintf(f,
		"counters: mono_ns=%llu busy_ns=%llu proofs=%llu failed=%llu copy_ns=%llu "
		"copy_hidden_ns=%llu ready_total=%llu lanes=%d bytes_in=%llu yields=%llu keys=%d "
		"key_bytes=%llu",
		s->mono_ns, s->busy_ns, s->proofs, s->failed, s->copy_ns, s->copy_hidden_ns,
		s->ready_total, s->lanes, s->bytes_in, s->yields, s->nkeys, s->key_bytes);
	if (s->has_mem)
		fprintf(f, " mem_used=%llu mem_total=%llu", s->mem_used, s->mem_total);
	fprintf(f, "\n");
}

int zka_gpud_status_write(const char *name, const struct zka_gpud_status *s,
			  const uint64_t *key_bytes)
{
	char path[ZKA_NAME_MAX + 64], tmp[ZKA_NAME_MAX + 96];
	int r = zka_gpud_status_path(path, sizeof path, name, s->id);
	if (r)
		return r;
	snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto err;
	}
	format(f, s, key_bytes);
	if (fclose(f)) {
		r = -errno;
		goto err;
	}
	if (rename(tmp, path)) {
		r = -errno;
		goto err;
	}
	return 0;
err:
	unlink(tmp);
	return r;
}

int zka_gpud_status_load(const char *name, int id, uint32_t owner, char *buf, size_t n)
{
	char path[ZKA_NAME_MAX + 64];
	struct stat st;
	int r = zka_gpud_status_path(path, sizeof path, name, id);
	if (r)
		return r;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		r = -errno;
		goto err;
	}
	r = !S_ISREG(st.st_mode)					    ? -EINVAL
	    : st.st_uid != owner && st.st_uid != 0			    ? -EPERM
	    : st.st_size > ZKA_GPUD_STATUS_BYTES || (size_t)st.st_size >= n ? -EFBIG
									    : 0;
	if (r)
		goto err;
	size_t got = 0;
	while (got < n - 1) {
		ssize_t k = read(fd, buf + got, n - 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			goto err;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	buf[got] = 0;
	close(fd);
	return 0;
err:
	close(fd);
	return r;
}

/* Copies src into dst (n bytes), cut short when longer, always NUL-terminated. */
static void copy_text(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);
	memcpy(dst, src, l);
	dst[l] = 0;
}

/* Parses the "keys:" line's "i=bytes" tokens into s->keys. */
static void parse_keys(const char *line, struct zka_gpud_status *s)
{
	const char *c = strchr(line + 5, ':');
	while (c && *c) {
		unsigned idx;
		int used = 0;
		c += strspn(c, ": \t");
		if (!*c || *c == '\n')
			break;
		if (sscanf(c, "%u=%*u%n", &idx, &used) >= 1 && used > 0 && idx < ZKA_GPUD_KEYS_MAX)
			s->keys[idx / 64] |= 1ull << (idx % 64);
		c += strcspn(c, " \t\n");
	}
}

/* Parses one line of a status file (without its newline) into s. */
static void parse_line(const char *line, int lineno, struct zka_gpud_status *s)
{
	int at = 0;
	if (lineno == 0 && sscanf(line, "pid %d:%n", &s->pid, &at) == 1 && at > 0) {
		at += line[at] == ' ';
		copy_text(s->note, sizeof s->note, line + at);
	}
	if (lineno == 1)
		copy_text(s->summary, sizeof s->summary, line);
	sscanf(line, "last %*f s: %*s busy %lf%%, %lf proofs/s", &s->busy, &s->proofs_per_s);
	sscanf(line, "gpud: id=%*d device=%d backend=%15s lanes=%d", &s->device, s->backend,
	       &s->lanes);
	if (!strncmp(line, "keys:", 5)) {
		sscanf(line, "keys: %d resident", &s->nkeys);
		parse_keys(line, s);
	}
	if (strncmp(line, "counters:", 9))
		return;
	if (sscanf(line,
		   "counters: mono_ns=%llu busy_ns=%llu proofs=%llu failed=%llu copy_ns=%llu "
		   "copy_hidden_ns=%llu ready_total=%llu lanes=%*d bytes_in=%llu yields=%llu "
		   "keys=%*d key_bytes=%llu",
		   &s->mono_ns, &s->busy_ns, &s->proofs, &s->failed, &s->copy_ns,
		   &s->copy_hidden_ns, &s->ready_total, &s->bytes_in, &s->yields,
		   &s->key_bytes) >= 5)
		s->has_counters = 1;
	const char *mu = strstr(line, " mem_used=");
	if (mu && sscanf(mu, " mem_used=%llu mem_total=%llu", &s->mem_used, &s->mem_total) == 2)
		s->has_mem = 1;
}

void zka_gpud_status_parse(const char *text, struct zka_gpud_status *s)
{
	char line[8192]; /* one line at a time, so that no pattern reads on into the next */
	memset(s, 0, sizeof *s);
	s->device = -1;
	snprintf(s->backend, sizeof s->backend, "?");
	for (int lineno = 0; *text; lineno++) {
		size_t len = strcspn(text, "\n");
		snprintf(line, sizeof line, "%.*s", (int)len, text);
		parse_line(line, lineno, s);
		text += len + (text[len] == '\n');
	}
	s->busy /= 100;
}

int zka_gpud_status_read(const char *name, int id, uint32_t owner, struct zka_gpud_status *s)
{
	char text[ZKA_GPUD_STATUS_BYTES + 1];
	int r = zka_gpud_status_load(name, id, owner, text, sizeof text);
	if (r)
		return r;
	zka_gpud_status_parse(text, s);
	s->id = id;
	s->alive = s->pid > 0 && (kill(s->pid, 0) == 0 || errno == EPERM);
	/* a live gpud stopped (SIGSTOP, a debugger) writes nothing and proves nothing: its
	 * state from /proc/PID/stat, and how old the file is (it is rewritten every second) */
	char p[64], buf[512];
	snprintf(p, sizeof p, "/proc/%d/stat", s->pid);
	FILE *f = s->alive ? fopen(p, "re") : NULL;
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = 0;
		fclose(f);
		const char *rp = strrchr(buf, ')');
		s->stopped = rp && rp[1] == ' ' && (rp[2] == 'T' || rp[2] == 't');
	}
	struct stat st;
	struct timespec now;
	if (zka_gpud_status_path(p, sizeof p, name, id) == 0 && lstat(p, &st) == 0 &&
	    clock_gettime(CLOCK_REALTIME, &now) == 0)
		s->age_s = (double)(now.tv_sec - st.st_mtim.tv_sec) +
			   1e-9 * (double)(now.tv_nsec - st.st_mtim.tv_nsec);
	return 0;
}

int zka_gpud_status_read_all(const char *name, struct zka_gpud_status *out, int max)
{
	uint32_t owner = zka_gpud_status_owner(name);
	int n = 0;
	for (int id = 0; id < ZKA_GPUDS_MAX && n < max; id++)
		if (zka_gpud_status_read(name, id, owner, &out[n]) == 0)
			n++;
	return n;
}

/* 1 when d (a /dev/shm entry) is a status file, or its temporary, of the arena whose prefix
 * "zkarena-NAME.gpud" is p: p, digits, "-status", then nothing or ".tmp" and digits. */
static int is_status_name(const char *d, const char *p)
{
	size_t pl = strlen(p);
	if (strncmp(d, p, pl))
		return 0;
	d += pl;
	d += strspn(d, "0123456789");
	if (strncmp(d, "-status", 7))
		return 0;
	d += 7;
	if (!*d)
		return 1;
	if (strncmp(d, ".tmp", 4) || !d[4])
		return 0;
	return d[4 + strspn(d + 4, "0123456789")] == 0;
}

int zka_gpud_status_remove_all(const char *name)
{
	char prefix[ZKA_NAME_MAX + 32];
	if (zka_arena_shm_name(name, NULL, 0))
		return 0;
	snprintf(prefix, sizeof prefix, "zkarena-%s.gpud", name);
	DIR *dir = opendir("/dev/shm");
	if (!dir)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (!is_status_name(e->d_name, prefix))
			continue;
		if (unlinkat(dirfd(dir), e->d_name, 0) == 0)
			n++;
	}
	closedir(dir);
	return n;
}

const char *zka_gpud_status_flag(const struct zka_gpud_status *s, char *buf, size_t n)
{
	if (!s->alive)
		snprintf(buf, n, "  [not running]");
	else if (s->stopped)
		snprintf(buf, n, "  [stopped (SIGSTOP?): proves nothing until SIGCONT]");
	else if (s->age_s > 5)
		snprintf(buf, n, "  [no update for %.0f s: hung?]", s->age_s);
	else
		buf[0] = 0;
	return buf;
}

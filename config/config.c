/* config.c - an arena's settings file, /etc/zkarena/NAME.conf, in INI form (inih).
 *
 * ==== Design notes ====
 *
 * One file per arena, read by `zkarena run NAME` (and printed as arguments for the units by
 * `zkarena config args FILE SECTION`); command-line flags override the file's values. Keys:
 *   [arena]   slots (1..65536), slot_bytes (bytes, K/M/G suffix), jobs (0..16777214: 0 the
 *             default), numa_node (-1..1023, -1: no binding), max_attempts (1..255),
 *             retention (seconds a finished job's record is kept, 1..31536000)
 *   [run]     workers (1..256), threads (1..1024), backend (cpu | cuda | auto: cuda when this
 *             build has CUDA and an NVIDIA GPU is visible, else cpu, said at start), devices
 * ("0,1,...": one gpud per entry), inflight (1..8), table_budget (the window tables' device memory
 * beyond the keys' points: max, N or Nx, multiples of a key's own point bytes; config/zka_budget.h)
 *   [metrics] listen (HOST:PORT for GET /metrics; empty: no metrics)
 *   [limits]  user_queued (1..16777214: how many of one user's queued jobs are eligible at a
 *             time), user_priority (-1000..1000: the highest priority that counts for one
 *             user); both for every submitter but the arena's owner and root. Read by the
 *             workers (which enforce them) and by submit (which refuses beyond them).
 *   [http]    the job API of `zkarena serve` run inside `zkarena run`: listen (HOST:PORT,
 *             port 0..65535), unix (a socket path), token_file, spool, tls_cert, tls_key
 *             (paths), max_body (bytes, K/M/G), max_queue (1..16777216), keys (paths,
 *             comma-separated); the files are checked when the server starts
 * Comments start with '#' or ';'. Checking reports every problem, each with its line: a line
 * that is neither "[section]" nor "key = value", an unknown section or key, a key given twice,
 * a value out of range or not a number. inih's reader interface is used so that the line
 * number is known for every key (the Debian build of inih does not pass it to the handler):
 * read_line counts the lines and checks their shape, the handler checks the keys and values.
 * The values are kept even when other lines are bad, but load then returns -EINVAL and the
 * callers refuse to start: a half-understood configuration does not run. */
#include "config/zka_config.h"
#include "shm/zka_arena.h"

#include "config/zka_budget.h"
#include "metrics/zka_metrics.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void zka_config_path(char *out, size_t n, const char *name)
{
	const char *dir = getenv("ZKA_CONFIG_DIR");
	snprintf(out, n, "%s/%s.conf", dir && *dir ? dir : "/etc/zkarena", name);
}

struct parse {
	const char *path;
	FILE *f, *report;
	int line, problems;
	unsigned seen; /* keys given (for duplicates) */
	struct zka_config *c;
};

static void problem(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct parse *p, const char *fmt, ...)
{
	p->problems++;
	if (!p->report)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(p->report, "%s:%d: ", p->path, p->line);
	vfprintf(p->report, fmt, ap);
	fprintf(p->report, "\n");
	va_end(ap);
}

static int known_section(const char *s, size_t n)
{
	static const char *const names[] = {"arena", "run", "metrics", "limits", "http"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], s, n))
			return 1;
	return 0;
}

/* inih's reader: one line per call, its shape checked here (and the section names, so that
 * an unknown section is reported even when it has no keys). */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	if (!fgets(str, num, p->f))
		return NULL;
	p->line++;
	const char *s = str;
	while (*s == ' ' || *s == '\t')
		s++;
	int indented = s != str;
	if (!*s || *s == '\n' || *s == '\r' || *s == '#' || *s == ';' || indented)
		return str; /* blank, comment, or a continuation (inih's multi-line values) */
	if (*s == '[') {
		const char *e = strchr(s, ']');
		if (!e)
			problem(p, "'[' without ']': not a section header");
		else if (!known_section(s + 1, (size_t)(e - s - 1)))
			problem(p,
				"[%.*s]: unknown section (expected arena, run, metrics, limits or "
				"http)",
				(int)(e - s - 1 < 64 ? e - s - 1 : 64), s + 1);
		return str;
	}
	if (!strchr(s, '=') && !strchr(s, ':')) {
		char t[64];
		snprintf(t, sizeof t, "%s", s);
		t[strcspn(t, "\r\n")] = 0;
		problem(p, "'%s' is neither [section] nor key = value", t);
	}
	return str;
}

static int parse_u64(const char *v, int sizes, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*v))
		return -EINVAL;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno)
		return -EINVAL;
	if (sizes && *end) {
		int sh = 0;
		switch (toupper((unsigned char)*end)) {
		case 'K':
			sh = 10;
			break;
		case 'M':
			sh = 20;
			break;
		case 'G':
			sh = 30;
			break;
		case 'T':
			sh = 40;
			break;
		default:
			return -EINVAL;
		}
		end++;
		if (toupper((unsigned char)*end) == 'I' && toupper((unsigned char)end[1]) == 'B')
			end += 2;
		else if (toupper((unsigned char)*end) == 'B')
			end++;
		if (x > (~0ull >> sh))
			return -EINVAL;
		x <<= sh;
	}
	if (*end || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_int(const char *v, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return -EINVAL;
	*out = (int)x;
	return 0;
}

int zka_config_devices(const char *s, int *dev, int max)
{
	int n = 0;
	const char *p = s;
	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || !isdigit((unsigned char)*p) || v > 1023 ||
		    (*end && *end != ',') || n == max)
			return -EINVAL;
		dev[n++] = (int)v;
		if (!*end)
			return n;
		p = end + 1;
	}
}

static const struct key {
	const char *section, *name;
	unsigned bit;
	const char *range;
} keys[] = {
    {"arena", "slots", ZKA_CF_SLOTS, "a number of slots in 1..65536"},
    {"arena", "slot_bytes", ZKA_CF_SLOT_BYTES, "a size in bytes (K, M, G suffix) of 1..1T"},
    {"arena", "jobs", ZKA_CF_JOBS, "a number of job records in 0..16777214"},
    {"arena", "numa_node", ZKA_CF_NUMA, "a NUMA node in -1..1023 (-1: no binding)"},
    {"arena", "max_attempts", ZKA_CF_MAX_ATTEMPTS, "a number of attempts in 1..255"},
    {"arena", "retention", ZKA_CF_RETENTION, "seconds in 1..31536000"},
    {"run", "workers", ZKA_CF_WORKERS, "a number of workers in 1..256"},
    {"run", "threads", ZKA_CF_THREADS, "a number of threads in 1..1024"},
    {"run", "backend", ZKA_CF_BACKEND, "cpu, cuda or auto"},
    {"run", "devices", ZKA_CF_DEVICES, "a list of device numbers 0..1023 such as 0,1"},
    {"run", "inflight", ZKA_CF_INFLIGHT, "a number of proofs in flight in 1..8"},
    {"run", "table_budget", ZKA_CF_TABLE_BUDGET,
     "max, or N or Nx with N >= 0 (multiples of a key's own point bytes)"},
    {"metrics", "listen", ZKA_CF_METRICS, "HOST:PORT such as 127.0.0.1:9464, or empty"},
    {"limits", "user_queued", ZKA_CF_USER_QUEUED, "a number of jobs in 1..16777214"},
    {"limits", "user_priority", ZKA_CF_USER_PRIORITY, "a priority in -1000..1000"},
    {"http", "listen", ZKA_CF_HTTP_LISTEN, "HOST:PORT such as 127.0.0.1:8545, or empty"},
    {"http", "unix", ZKA_CF_HTTP_UNIX, "an absolute socket path (under 108 characters)"},
    {"http", "unix_group", ZKA_CF_HTTP_UNIX_GROUP,
     "a group name or number (letters, digits, _ . -; under 64 characters)"},
    {"http", "token_file", ZKA_CF_HTTP_TOKENS, "an absolute path"},
    {"http", "spool", ZKA_CF_HTTP_SPOOL, "an absolute path"},
    {"http", "tls_cert", ZKA_CF_HTTP_CERT, "an absolute path"},
    {"http", "tls_key", ZKA_CF_HTTP_KEY, "an absolute path"},
    {"http", "max_body", ZKA_CF_HTTP_MAX_BODY, "a size in bytes (K, M, G suffix) of 1..1T"},
    {"http", "max_queue", ZKA_CF_HTTP_MAX_QUEUE, "a number of jobs in 1..16777216"},
    {"http", "keys", ZKA_CF_HTTP_KEYS, "absolute key paths separated by commas"},
};

/* An absolute path that fits n bytes, copied into out. */
static int set_path(char *out, size_t n, const char *v)
{
	if (v[0] != '/' || strlen(v) >= n)
		return -EINVAL;
	snprintf(out, n, "%s", v);
	return 0;
}

static int set_value(struct zka_config *c, unsigned bit, const char *v)
{
	uint64_t u;
	int r = 0, devs[64];
	switch (bit) {
	case ZKA_CF_SLOTS:
		if (!(r = parse_u64(v, 0, 1, 65536, &u)))
			c->slots = (uint32_t)u;
		break;
	case ZKA_CF_SLOT_BYTES:
		if (!(r = parse_u64(v, 1, 1, 1ull << 40, &u)))
			c->slot_bytes = u;
		break;
	case ZKA_CF_JOBS:
		if (!(r = parse_u64(v, 0, 0, 16777214, &u)))
			c->jobs = (uint32_t)u;
		break;
	case ZKA_CF_NUMA:
		r = parse_int(v, -1, 1023, &c->numa_node);
		break;
	case ZKA_CF_USER_QUEUED:
		if (!(r = parse_u64(v, 0, 1, 16777214, &u)))
			c->user_queued = (uint32_t)u;
		break;
	case ZKA_CF_USER_PRIORITY:
		r = parse_int(v, -1000, 1000, &c->user_priority);
		break;
	case ZKA_CF_MAX_ATTEMPTS:
		if (!(r = parse_u64(v, 0, 1, 255, &u)))
			c->max_attempts = (uint32_t)u;
		break;
	case ZKA_CF_RETENTION:
		if (!(r = parse_u64(v, 0, 1, 31536000, &u)))
			c->retention_s = (uint32_t)u;
		break;
	case ZKA_CF_WORKERS:
		r = parse_int(v, 1, 256, &c->workers);
		break;
	case ZKA_CF_THREADS:
		r = parse_int(v, 1, 1024, &c->threads);
		break;
	case ZKA_CF_INFLIGHT:
		r = parse_int(v, 1, 8, &c->inflight);
		break;
	case ZKA_CF_TABLE_BUDGET: {
		double t;
		if (strlen(v) >= sizeof c->table_budget || zka_budget_parse(v, &t))
			return -EINVAL;
		snprintf(c->table_budget, sizeof c->table_budget, "%s", v);
		break;
	}
	case ZKA_CF_BACKEND:
		if (strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "auto"))
			return -EINVAL;
		snprintf(c->backend, sizeof c->backend, "%s", v);
		break;
	case ZKA_CF_DEVICES:
		if (strlen(v) >= sizeof c->devices || zka_config_devices(v, devs, 64) < 0)
			return -EINVAL;
		snprintf(c->devices, sizeof c->devices, "%s", v);
		break;
	case ZKA_CF_METRICS: {
		unsigned ip;
		unsigned short port;
		char e[128];
		if (*v && (strlen(v) >= sizeof c->metrics ||
			   zka_metrics_parse_addr(v, &ip, &port, e, sizeof e)))
			return -EINVAL;
		snprintf(c->metrics, sizeof c->metrics, "%s", v);
		break;
	}
	case ZKA_CF_HTTP_LISTEN: {
		unsigned ip;
		unsigned short port;
		char e[128], hp[80];
		size_t l = strlen(v);
		/* port 0 (any free one) is fine here: check HOST with port 1 */
		snprintf(hp, sizeof hp, "%.*s1", l > 1 ? (int)l - 1 : 0, v);
		if (*v && (l >= sizeof c->http_listen ||
			   zka_metrics_parse_addr(l > 2 && !strcmp(v + l - 2, ":0") ? hp : v, &ip,
						  &port, e, sizeof e)))
			return -EINVAL;
		snprintf(c->http_listen, sizeof c->http_listen, "%s", v);
		break;
	}
	case ZKA_CF_HTTP_UNIX:
		return set_path(c->http_unix, sizeof c->http_unix, v);
	case ZKA_CF_HTTP_UNIX_GROUP:
		/* a name as useradd/groupadd accept it; whether it exists is serve's check */
		if (!*v || strlen(v) >= sizeof c->http_unix_group || *v == '-' ||
		    strspn(v,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
			strlen(v))
			return -EINVAL;
		snprintf(c->http_unix_group, sizeof c->http_unix_group, "%s", v);
		break;
	case ZKA_CF_HTTP_TOKENS:
		return set_path(c->http_tokens, sizeof c->http_tokens, v);
	case ZKA_CF_HTTP_SPOOL:
		return set_path(c->http_spool, sizeof c->http_spool, v);
	case ZKA_CF_HTTP_CERT:
		return set_path(c->http_cert, sizeof c->http_cert, v);
	case ZKA_CF_HTTP_KEY:
		return set_path(c->http_key, sizeof c->http_key, v);
	case ZKA_CF_HTTP_MAX_BODY:
		if (!(r = parse_u64(v, 1, 1, 1ull << 40, &u)))
			c->http_max_body = u;
		break;
	case ZKA_CF_HTTP_MAX_QUEUE:
		if (!(r = parse_u64(v, 0, 1, 1u << 24, &u)))
			c->http_max_queue = (uint32_t)u;
		break;
	case ZKA_CF_HTTP_KEYS:
		if (strlen(v) >= sizeof c->http_keys || v[0] != '/' || strstr(v, ",,") ||
		    v[strlen(v) - 1] == ',' || strstr(v, ", ") == v)
			return -EINVAL;
		for (const char *q = strchr(v, ','); q; q = strchr(q + 1, ','))
			if (q[1] != '/')
				return -EINVAL;
		snprintf(c->http_keys, sizeof c->http_keys, "%s", v);
		break;
	}
	return r;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	int known_section = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(keys[i].section, section))
			continue;
		known_section = 1;
		if (strcmp(keys[i].name, name))
			continue;
		if (p->seen & keys[i].bit)
			problem(p, "[%s] %s given twice", section, name);
		p->seen |= keys[i].bit;
		if (set_value(p->c, keys[i].bit, value))
			problem(p, "[%s] %s = '%s': not %s", section, name, value, keys[i].range);
		else
			p->c->set |= keys[i].bit;
		return 1;
	}
	if (!*section)
		problem(p, "'%s' outside a section ([arena], [run], [metrics], [limits] or [http])",
			name);
	else if (known_section) /* an unknown section was reported at its header */
		problem(p, "[%s] %s: unknown key", section, name);
	return 1;
}

int zka_config_load(const char *path, struct zka_config *c, FILE *report, int *problems)
{
	memset(c, 0, sizeof *c);
	c->numa_node = -1;
	struct parse p = {.path = path, .report = report, .c = c};
	int r = 0;
	if (problems)
		*problems = 0;
	if (!(p.f = fopen(path, "r"))) {
		r = -errno;
		if (report)
			fprintf(report, "%s: %s\n", path, strerror(errno));
		goto err;
	}
	int first = ini_parse_stream(read_line, &p, handler, &p);
	if (first < 0) {
		r = -ENOMEM;
		if (report)
			fprintf(report, "%s: out of memory\n", path);
		goto err;
	}
	if (first > 0 && !p.problems) { /* a syntax error read_line did not see */
		p.line = first;
		problem(&p, "syntax error");
	}
	if (problems)
		*problems = p.problems;
	if (p.problems)
		r = -EINVAL;
err:
	if (p.f)
		fclose(p.f);
	return r;
}

int zka_config_user_limits(const char *name, FILE *report, uint32_t *queued, int *prio)
{
	char path[600];
	struct zka_config c;
	zka_config_path(path, sizeof path, name);
	if (access(path, F_OK))
		return 0;
	if (zka_config_load(path, &c, report, NULL))
		return -EINVAL;
	*queued = c.user_queued;
	*prio = c.user_priority;
	return (int)(c.set & (ZKA_CF_USER_QUEUED | ZKA_CF_USER_PRIORITY));
}

int zka_config_user_limits_check(struct zka_arena *a, const char *name, uint32_t uid, int prio,
				 FILE *report, char *err, size_t n)
{
	uint32_t auid, q = 0, queued = 0;
	int pr = 0;
	zka_arena_owner(a, &auid, NULL, NULL);
	if (uid == auid || uid == 0)
		return 0;
	int set = zka_config_user_limits(name, report, &q, &pr);
	char path[600];
	zka_config_path(path, sizeof path, name);
	if (set < 0) {
		snprintf(err, n, "%s has problems (zkarena config check %s)", path, name);
		return -EINVAL;
	}
	if ((set & ZKA_CF_USER_PRIORITY) && prio > pr) {
		snprintf(err, n,
			 "priority %d is above the per-user cap %d of arena %s ([limits] "
			 "user_priority in %s)",
			 prio, pr, name, path);
		return -EPERM;
	}
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	for (uint32_t j = 0; (set & ZKA_CF_USER_QUEUED) && j < g.njobs; j++) {
		struct zka_job_info ji;
		if (zka_job_info(a, j, &ji) == 0 && ji.state == ZKA_JOB_SUBMITTED &&
		    ji.acct_uid == uid)
			queued++;
	}
	if ((set & ZKA_CF_USER_QUEUED) && queued >= q) {
		snprintf(err, n,
			 "uid %u has %u job(s) queued in arena %s, the per-user limit ([limits] "
			 "user_queued in %s) is %u: wait for some to start",
			 uid, queued, name, path, q);
		return -EDQUOT;
	}
	return 0;
}

/* cmd_arena.c - `zkarena arena create|destroy|status|recover|check`: manage a shared-memory
 * arena (shm/zka_arena.h). */
#include "shm/zka_arena.h"
#include "synth/attest.h"
#include "synth/pipe.h"
#include "tools/cli.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#define ERR(...)                                                                                   \
	do {                                                                                       \
		fprintf(stderr, "zkarena arena: " __VA_ARGS__);                                    \
		fputc('\n', stderr);                                                               \
	} while (0)

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena arena COMMAND NAME [OPTIONS]\n"
	    "\n"
	    "An arena is the POSIX shm object /dev/shm/zkarena-NAME (mode 0600) holding the job\n"
	    "and slot tables, the rings and the slots. NAME: 1-64 of [A-Za-z0-9._-], not starting\n"
	    "with '.'.\n"
	    "\n"
	    "commands:\n"
	    "  create NAME --slots K --slot-bytes B [--jobs J] [--numa-node N] [--max-attempts M]\n"
	    "              [--owners O] [--circuits C] [--retention SECONDS] [--group GROUP]\n"
	    "      Creates, sizes (posix_fallocate) and pre-faults the arena; fails at once when\n"
	    "      /dev/shm is too small. Each slot holds B bytes rounded up to 2 MiB (sizes take\n"
	    "      K, M, G suffixes, powers of 1024). Defaults: J = 4*K (at least 64), M = 3,\n"
	    "      O = 1024 attached processes, C = 16 loaded circuits. --numa-node binds the\n"
	    "      memory to node N (mbind MPOL_BIND) before it is touched; on a machine with one\n"
	    "      node it says so and goes on. DONE/FAILED job records are kept --retention\n"
	    "      seconds (default 3600), or less when the table is needed (oldest first).\n"
	    "      --group shares the arena with GROUP (mode 0660) so that its members may\n"
	    "      submit; otherwise only its creator (and root's arenas for everyone) is used.\n"
	    "      The slots (witnesses, a and b) of a --group arena are a second object,\n"
	    "      /dev/shm/zkarena-NAME+slots, mode 0600: members never read them, and\n"
	    "      produce with libzkarena only as the creator. A private arena served with\n"
	    "      `zkarena serve NAME --unix PATH --unix-group G` keeps even the job table\n"
	    "      from them (docs/ops.md).\n"
	    "  ensure NAME (the options of create)\n"
	    "      Creates the arena, or accepts an existing one only if this user owns it\n"
	    "      (atomic: O_EXCL create, then an ownership check); for the arena unit.\n"
	    "  destroy NAME\n"
	    "      Removes the shm object; processes that have it mapped keep their mapping.\n"
	    "  status NAME [--json] [--all-jobs]\n"
	    "      Geometry, ring depths, counters, each slot's state, owner (pid) and NUMA node,\n"
	    "      and every job that is not FREE (--all-jobs: every job). Read-only: it runs no\n"
	    "      recovery and registers no owner.\n"
	    "  recover NAME\n"
	    "      Moves records of dead processes back (as every process does on attach) and\n"
	    "      prints how many moved.\n"
	    "  check NAME [--repair]\n"
	    "      Recovers, then checks the table/ring invariants; exit 1 when one is broken\n"
	    "      (meaningful when no process is mid-operation). --repair first quarantines\n"
	    "      corrupt slot and job records for good (state QUARANTINED: counted, shown by\n"
	    "      status, never handed out again).\n");
}

/* Parses "123", "4K", "2M", "1G" (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return -EINVAL;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	unsigned shift = 0;
	if (*end) {
		switch (*end) {
		case 'k':
		case 'K':
			shift = 10;
			break;
		case 'm':
		case 'M':
			shift = 20;
			break;
		case 'g':
		case 'G':
			shift = 30;
			break;
		case 't':
		case 'T':
			shift = 40;
			break;
		default:
			return -EINVAL;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_u32(const char *opt, const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (parse_size(s, &v) < 0 || v > max) {
		ERR("%s: '%s' is not a number in 0..%u", opt, s ? s : "", max);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

static int ensure_existing(const char *name, const struct zka_arena_params *p);

static int cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {{"slots", required_argument, 0, 's'},
					     {"slot-bytes", required_argument, 0, 'b'},
					     {"jobs", required_argument, 0, 'j'},
					     {"numa-node", required_argument, 0, 'n'},
					     {"max-attempts", required_argument, 0, 'm'},
					     {"owners", required_argument, 0, 'o'},
					     {"circuits", required_argument, 0, 'c'},
					     {"retention", required_argument, 0, 'R'},
					     {"group", required_argument, 0, 'G'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	struct zka_arena_params p = {.numa_node = -1};
	int ensure = !strcmp(argv[0], "ensure");
	int have_slots = 0, have_bytes = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		uint32_t v;
		switch (c) {
		case 's':
			if (parse_u32("--slots", optarg, 0xFFFFFE, &p.nslots) < 0)
				return 2;
			have_slots = 1;
			break;
		case 'b':
			if (parse_size(optarg, &p.slot_bytes) < 0 || p.slot_bytes == 0) {
				ERR("--slot-bytes: '%s' is not a size (N, NK, NM, NG)", optarg);
				return 2;
			}
			have_bytes = 1;
			break;
		case 'j':
			if (parse_u32("--jobs", optarg, 0xFFFFFE, &p.njobs) < 0)
				return 2;
			if (!p.njobs) { /* 0 would silently mean the default */
				ERR("--jobs: 0 job records is not a table (1..16777214; leave "
				    "--jobs "
				    "out for the default, 4 x slots, at least 64)");
				return 2;
			}
			break;
		case 'n':
			if (parse_u32("--numa-node", optarg, 1023, &v) < 0)
				return 2;
			p.numa_node = (int)v;
			break;
		case 'm':
			if (parse_u32("--max-attempts", optarg, 255, &p.max_attempts) < 0)
				return 2;
			break;
		case 'o':
			if (parse_u32("--owners", optarg, 4094, &p.nowners) < 0)
				return 2;
			break;
		case 'c':
			if (parse_u32("--circuits", optarg, 4096, &p.ncircuits) < 0)
				return 2;
			break;
		case 'R':
			if (parse_u32("--retention", optarg, 100000000, &p.retention_s) < 0)
				return 2;
			if (p.retention_s == 0) {
				ERR("--retention: 0 is not a number of seconds >= 1");
				return 2;
			}
			break;
		case 'G': {
			struct group gr, *gp = NULL;
			char buf[4096];
			if (getgrnam_r(optarg, &gr, buf, sizeof buf, &gp) != 0 || !gp) {
				ERR("--group: no group named '%s'", optarg);
				return 2;
			}
			p.share_group = 1;
			p.group = (uint32_t)gp->gr_gid;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			ERR("create: unknown or incomplete option '%s' (try --help)",
			    argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ERR("create: expected one NAME (try --help)");
		return 2;
	}
	if (!have_slots || !have_bytes || p.nslots == 0) {
		ERR("create: --slots (>= 1) and --slot-bytes are required");
		return 2;
	}
	const char *name = argv[optind], *msg;
	struct zka_arena *a;
	int rc = zka_arena_create(name, &p, &a, &msg);
	if (rc == -EEXIST && ensure)
		return ensure_existing(name, &p);
	if (rc == -ENOSPC) { /* say how much the arena needs and how much there is */
		struct statvfs vf;
		double need = (double)p.nslots * (double)p.slot_bytes;
		if (statvfs("/dev/shm", &vf) == 0)
			ERR("%s: not enough space in /dev/shm: the arena needs at least %.0f bytes "
			    "(%.2f GiB: %u slots x %" PRIu64
			    " bytes, plus its tables) and /dev/shm has "
			    "%.2f GiB free of %.2f GiB (fewer or smaller slots, or a larger "
			    "/dev/shm: "
			    "mount -o remount,size=...)",
			    name, need, need / 1073741824.0, p.nslots, p.slot_bytes,
			    (double)vf.f_bavail * (double)vf.f_frsize / 1073741824.0,
			    (double)vf.f_blocks * (double)vf.f_frsize / 1073741824.0);
		else
			ERR("%s: %s: the arena needs at least %.0f bytes (%u slots x %" PRIu64
			    " bytes)",
			    name, msg, need, p.nslots, p.slot_bytes);
		return 2;
	}
	if (rc < 0) {
		ERR("%s: %s (%s)", name, msg, strerror(-rc));
		return 2;
	}
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	printf("created arena %s: /dev/shm/zkarena-%s, %" PRIu64 " bytes, %u slots of %" PRIu64
	       " bytes (stride %" PRIu64 "), %u jobs, max_attempts %u\n",
	       name, name, g.total_bytes, g.nslots, g.slot_bytes, g.slot_stride, g.njobs,
	       g.max_attempts);
	if (p.share_group) /* said where the choice is made (docs/ops.md, the multi-user model) */
		fprintf(stderr,
			"zkarena arena: note: members of group %u submit, list and wait in this "
			"arena; its slots (the witnesses) are in /dev/shm/zkarena-%s+slots, this "
			"user's alone, so members cannot read them nor produce into slots with "
			"libzkarena (producers run as this user)\n",
			p.group, name);
	zka_arena_close(a);
	return 0;
}

/* ensure: the arena exists (our O_EXCL create failed): accept it only if this user owns it
 * (zka_arena_open without ZKA_OPEN_SHARED refuses another uid's object) and it has the
 * geometry asked for. A creator still initialising it: retried for up to 5 s. */
static int ensure_existing(const char *name, const struct zka_arena_params *p)
{
	struct zka_arena *a = NULL;
	const char *msg = NULL;
	int rc = -EBADMSG;
	for (int i = 0; i < 50; i++) {
		rc = zka_arena_open(name, ZKA_OPEN_RDONLY, &a, &msg);
		if (rc != -EBADMSG && rc != -EINVAL)
			break;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (rc < 0) {
		ERR("%s: exists but is refused: %s (%s)", name, msg, strerror(-rc));
		return 2;
	}
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	uint32_t uid, gid, mode;
	zka_arena_owner(a, &uid, &gid, &mode);
	zka_arena_close(a);
	uint64_t stride = (p->slot_bytes + ZKA_SLOT_ALIGN - 1) / ZKA_SLOT_ALIGN * ZKA_SLOT_ALIGN;
	if (g.nslots != p->nslots || g.slot_stride != stride) {
		ERR("%s: exists (owned by this user) with %u slots of %" PRIu64
		    " bytes, not the %u slots of %" PRIu64
		    " bytes asked for (destroy it to change it)",
		    name, g.nslots, g.slot_stride, p->nslots, stride);
		return 2;
	}
	if (p->share_group && (gid != p->group || (mode & 0660) != 0660)) {
		ERR("%s: exists but is not shared with group %u (group %u, mode %04o)", name,
		    p->group, gid, mode);
		return 2;
	}
	printf("arena %s exists and is this user's (uid %u): %u slots of %" PRIu64 " bytes\n", name,
	       uid, g.nslots, g.slot_stride);
	return 0;
}

static int open_named(int argc, char **argv, const char *cmd, int flags, struct zka_arena **a,
		      int *json, int *all)
{
	static const struct option opts[] = {{"json", no_argument, 0, 'J'},
					     {"all-jobs", no_argument, 0, 'A'},
					     {"repair", no_argument, 0, 'P'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if ((c == 'J' && json) || (c == 'A' && all && strcmp(cmd, "check")) ||
		    (c == 'P' && all && !strcmp(cmd, "check"))) {
			*(c == 'J' ? json : all) = 1;
			continue;
		}
		ERR("%s: unknown option '%s' (try --help)", cmd, argv[optind - 1]);
		return 2;
	}
	if (optind != argc - 1) {
		ERR("%s: expected one NAME (try --help)", cmd);
		return 2;
	}
	const char *name = argv[optind], *msg;
	if (!a) {
		int rc = zka_arena_destroy(name);
		if (rc < 0) {
			ERR("%s: %s", name,
			    rc == -ENOENT   ? "no such arena"
			    : rc == -EINVAL ? "invalid name"
					    : strerror(-rc));
			return 2;
		}
		/* the arena's params regions (loaded keys) and the daemon's status file go with it
		 */
		int np = zka_pipe_unlink_params(name);
		if (np > 0)
			printf("removed %d params region(s) of %s\n", np, name);
		return -1;
	}
	int rc = zka_arena_open(name, flags, a, &msg);
	if (rc < 0) {
		ERR("%s: %s (%s)", name, msg, strerror(-rc));
		return 2;
	}
	return -1;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static const char *circuit_state_name(int s)
{
	return s == ZKA_CIRCUIT_FREE	  ? "FREE"
	       : s == ZKA_CIRCUIT_LOADING ? "LOADING"
	       : s == ZKA_CIRCUIT_LOADED  ? "LOADED"
					  : "CORRUPT";
}

static void node_text(int node, char *buf, size_t n)
{
	if (node >= 0)
		snprintf(buf, n, "%d", node);
	else if (node == -EXDEV)
		snprintf(buf, n, "mixed");
	else if (node == -ENOSYS)
		snprintf(buf, n, "n/a");
	else if (node == -EACCES)
		snprintf(buf, n, "(not ours)");
	else
		snprintf(buf, n, "?(%s)", strerror(-node));
}

/* Slots and jobs per state (index 0: corrupt records). */
struct state_counts {
	int slot[6], job[ZKA_JOB_STATE_MAX + 1];
};

static void count_states(struct zka_arena *a, const struct zka_arena_geometry *g,
			 struct state_counts *c)
{
	memset(c, 0, sizeof *c);
	for (uint32_t s = 0; s < g->nslots; s++) {
		struct zka_slot_info si;
		zka_slot_info(a, s, &si);
		c->slot[si.state]++;
	}
	for (uint32_t j = 0; j < g->njobs; j++) {
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		c->job[ji.state]++;
	}
}

/* status --json, part 1: name, geometry, owner, rings, counters and the state counts, up to
 * the slot list. */
static void json_summary(struct zka_arena *a, const struct zka_arena_geometry *gp, const char *name,
			 const struct state_counts *sc)
{
	const struct zka_arena_geometry g = *gp;
	const int *slot_counts = sc->slot, *job_counts = sc->job;
	printf("{\"name\":");
	json_str(name);
	printf(",\"geometry\":{\"version\":%u,\"slots\":%u,\"slot_bytes\":%" PRIu64
	       ",\"slot_stride\":%" PRIu64 ",\"jobs\":%u,\"owners\":%u,\"circuits\":%u,"
	       "\"max_attempts\":%u,\"numa_node\":%d,\"total_bytes\":%" PRIu64
	       ",\"data_off\":%" PRIu64 ",\"epoch_ns\":%" PRId64 ",\"retention_s\":%u,"
	       "\"jobs_off\":%" PRIu64 ",\"job_rec_bytes\":%" PRIu64 ",\"slots_off\":%" PRIu64
	       ",\"slot_rec_bytes\":%" PRIu64 ",\"slots_object\":%s,\"slots_mapped\":%s},",
	       g.version, g.nslots, g.slot_bytes, g.slot_stride, g.njobs, g.nowners, g.ncircuits,
	       g.max_attempts, g.numa_node, g.total_bytes, g.data_off, g.epoch_ns, g.retention_s,
	       g.jobs_off, g.job_rec_bytes, g.slots_off, g.slot_rec_bytes,
	       g.split ? "true" : "false", g.slots_mapped ? "true" : "false");
	uint32_t ouid, ogid, omode;
	zka_arena_owner(a, &ouid, &ogid, &omode);
	printf("\"owner\":{\"uid\":%u,\"gid\":%u,\"mode\":%u},", ouid, ogid, omode);
	printf("\"rings\":{");
	for (uint32_t r = 0; r < g.nrings; r++)
		printf("%s\"%s\":{\"depth\":%d,\"capacity\":%d}", r ? "," : "",
		       zka_ring_name((int)r), zka_ring_depth(a, (int)r),
		       zka_ring_capacity(a, (int)r));
	printf("},\"counters\":{");
	for (int c = 0; c < ZKA_C_COUNT; c++)
		printf("%s\"%s\":%" PRIu64, c ? "," : "", zka_counter_name(c),
		       zka_arena_counter(a, c));
	printf("},\"slot_states\":{");
	for (int s = 0; s <= 5; s++)
		printf("%s\"%s\":%d", s ? "," : "", zka_slot_state_name(s), slot_counts[s]);
	printf("},\"job_states\":{");
	for (int s = 0; s <= ZKA_JOB_STATE_MAX; s++)
		printf("%s\"%s\":%d", s ? "," : "", zka_job_state_name(s), job_counts[s]);
	printf("},\"state_entries\":{\"slot\":{");
	for (int s = 1; s <= 5; s++)
		printf("%s\"%s\":%" PRIu64, s > 1 ? "," : "", zka_slot_state_name(s),
		       zka_arena_state_entries(a, 0, s));
	printf("},\"job\":{");
	for (int s = 1; s <= ZKA_JOB_STATE_MAX; s++)
		printf("%s\"%s\":%" PRIu64, s > 1 ? "," : "", zka_job_state_name(s),
		       zka_arena_state_entries(a, 1, s));
}

/* status --json, part 2: the slots, one object each. */
static void json_slots(struct zka_arena *a, const struct zka_arena_geometry *gp)
{
	const struct zka_arena_geometry g = *gp;
	printf("}},\"slots\":[");
	for (uint32_t s = 0; s < g.nslots; s++) {
		struct zka_slot_info si;
		zka_slot_info(a, s, &si);
		char node[64];
		node_text(zka_slot_numa_node(a, s), node, sizeof node);
		printf("%s{\"index\":%u,\"state\":\"%s\",\"owner_pid\":%d,\"owner_alive\":%s,"
		       "\"job\":%d,\"data_off\":%" PRIu64 ",\"data_size\":%" PRIu64
		       ",\"used_bytes\":%" PRIu64 ",\"numa_node\":",
		       s ? "," : "", s, zka_slot_state_name(si.state), si.who.pid,
		       si.who.alive ? "true" : "false", si.job == ZKA_NONE ? -1 : (int)si.job,
		       si.data_off, si.data_size, si.used_bytes);
		json_str(node);
		putchar('}');
	}
}

/* status --json, part 3: the job records (all, or those not FREE). */
static void json_jobs(struct zka_arena *a, const struct zka_arena_geometry *gp, int all)
{
	const struct zka_arena_geometry g = *gp;
	printf("],\"jobs\":[");
	int first = 1;
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		if (!all && ji.state == ZKA_JOB_FREE)
			continue;
		printf("%s{\"index\":%u,\"id\":%" PRIu64 ",\"state\":\"%s\",\"owner_pid\":%d,"
		       "\"slot\":%d,\"attempts\":%u,\"max_attempts\":%u,\"synth_count\":%u,"
		       "\"circuit\":%d,\"t_submit\":%" PRId64 ",\"t_synth_start\":%" PRId64
		       ",\"t_synth_end\":%" PRId64 ",\"t_prove_start\":%" PRId64
		       ",\"t_prove_end\":%" PRId64 ",\"t_witness_end\":%" PRId64 ",\"witness\":",
		       first ? "" : ",", j, ji.id, zka_job_state_name(ji.state), ji.who.pid,
		       ji.slot == ZKA_NONE ? -1 : (int)ji.slot, ji.attempts, ji.max_attempts,
		       ji.synth_count, ji.circuit == ZKA_NONE ? -1 : (int)ji.circuit, ji.t_submit,
		       ji.t_synth_start, ji.t_synth_end, ji.t_prove_start, ji.t_prove_end,
		       ji.t_witness_end);
		json_str(ji.witness_path);
		printf(",\"out_dir\":");
		json_str(ji.out_dir);
		printf(",\"reason\":");
		json_str(ji.reason);
		printf(",\"prove_count\":%u,\"uid\":%u,\"acct_uid\":%u}", ji.prove_count, ji.uid,
		       ji.acct_uid);
		first = 0;
	}
}

/* status --json, part 4: the circuits in use, and the closing brace. */
static void json_circuits(struct zka_arena *a, const struct zka_arena_geometry *gp)
{
	const struct zka_arena_geometry g = *gp;
	int first = 1;
	printf("],\"circuits\":[");
	for (uint32_t i = 0; i < g.ncircuits; i++) {
		struct zka_circuit_info ci;
		zka_circuit_info(a, i, &ci);
		if (ci.state == ZKA_CIRCUIT_FREE)
			continue;
		printf("%s{\"index\":%u,\"state\":\"%s\",\"key_path\":", first ? "" : ",", i,
		       circuit_state_name(ci.state));
		json_str(ci.key_path);
		printf(",\"key_size\":%" PRIu64 ",\"params_shm\":", ci.key_size);
		json_str(ci.params_shm);
		putchar('}');
		first = 0;
	}
	printf("]}\n");
}

/* status in text, part 1: the arena, its owner, rings, counters and the state counts. */
static void text_summary(struct zka_arena *a, const struct zka_arena_geometry *gp, const char *name,
			 const struct state_counts *sc)
{
	const struct zka_arena_geometry g = *gp;
	const int *slot_counts = sc->slot, *job_counts = sc->job;
	char t[64];
	time_t sec = (time_t)(g.epoch_ns / 1000000000);
	struct tm tm;
	strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&sec, &tm));
	uint32_t ouid, ogid, omode;
	zka_arena_owner(a, &ouid, &ogid, &omode);
	printf("arena %s (/dev/shm/zkarena-%s), layout version %u, created %s\n", name, name,
	       g.version, t);
	printf("  owner uid %u, group %u, mode %04o; finished jobs kept %u s\n", ouid, ogid, omode,
	       g.retention_s);
	if (g.split)
		printf("  slots in /dev/shm/zkarena-%s+slots (mode 0600, the owner's alone)%s\n",
		       name, g.slots_mapped ? "" : "; not readable by this user");
	printf(
	    "  %u slots x %" PRIu64 " bytes (stride %" PRIu64 "), %u jobs, %u owners, %u circuits, "
	    "max_attempts %u, %" PRIu64 " bytes total, NUMA %s%d\n",
	    g.nslots, g.slot_bytes, g.slot_stride, g.njobs, g.nowners, g.ncircuits, g.max_attempts,
	    g.total_bytes, g.numa_node < 0 ? "unbound " : "bind requested for node ", g.numa_node);
	printf("rings:\n");
	for (uint32_t r = 0; r < g.nrings; r++)
		printf("  %-15s %6d / %d\n", zka_ring_name((int)r), zka_ring_depth(a, (int)r),
		       zka_ring_capacity(a, (int)r));
	printf("counters:\n");
	for (int c = 0; c < ZKA_C_COUNT; c++)
		printf("  %-17s %" PRIu64 "\n", zka_counter_name(c), zka_arena_counter(a, c));
	printf("slot states (now/entered):");
	for (int s = 1; s <= 5; s++)
		printf(" %s %d/%" PRIu64, zka_slot_state_name(s), slot_counts[s],
		       zka_arena_state_entries(a, 0, s));
	if (slot_counts[0])
		printf(" CORRUPT %d", slot_counts[0]);
	printf("\njob states (now/entered):");
	for (int s = 1; s <= ZKA_JOB_STATE_MAX; s++)
		printf(" %s %d/%" PRIu64, zka_job_state_name(s), job_counts[s],
		       zka_arena_state_entries(a, 1, s));
	if (job_counts[0])
		printf(" CORRUPT %d", job_counts[0]);
}

/* status in text, part 2: the slots, the job records and the circuits. */
static void text_tables(struct zka_arena *a, const struct zka_arena_geometry *gp, int all)
{
	const struct zka_arena_geometry g = *gp;
	printf("\nslots:\n  %5s %-8s %-16s %-8s %-10s %s\n", "slot", "state", "owner", "job",
	       "used", "numa");
	for (uint32_t s = 0; s < g.nslots; s++) {
		struct zka_slot_info si;
		zka_slot_info(a, s, &si);
		char own[32] = "-", job[16] = "-", node[64];
		if (si.owner != ZKA_NONE)
			snprintf(own, sizeof own, "%d%s", si.who.pid,
				 si.who.alive ? "" : " (dead)");
		if (si.job != ZKA_NONE)
			snprintf(job, sizeof job, "%u", si.job);
		node_text(zka_slot_numa_node(a, s), node, sizeof node);
		printf("  %5u %-8s %-16s %-8s %-10" PRIu64 " %s\n", s,
		       zka_slot_state_name(si.state), own, job, si.used_bytes, node);
	}
	printf("jobs%s:\n  %5s %-12s %-16s %-6s %-9s %s\n", all ? "" : " (not FREE)", "job",
	       "state", "owner", "slot", "attempts", "witness / reason");
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		if (!all && ji.state == ZKA_JOB_FREE)
			continue;
		char own[32] = "-", slot[16] = "-";
		if (ji.owner != ZKA_NONE)
			snprintf(own, sizeof own, "%d%s", ji.who.pid,
				 ji.who.alive ? "" : " (dead)");
		if (ji.slot != ZKA_NONE)
			snprintf(slot, sizeof slot, "%u", ji.slot);
		printf("  %5u %-12s %-16s %-6s %u/%-7u %s%s%s\n", j, zka_job_state_name(ji.state),
		       own, slot, ji.attempts, ji.max_attempts, ji.witness_path,
		       ji.reason[0] ? " / " : "", ji.reason);
	}
	for (uint32_t i = 0; i < g.ncircuits; i++) {
		struct zka_circuit_info ci;
		zka_circuit_info(a, i, &ci);
		if (ci.state != ZKA_CIRCUIT_FREE)
			printf("circuit %u: %s %s (%" PRIu64 " bytes) params %s\n", i,
			       circuit_state_name(ci.state), ci.key_path, ci.key_size,
			       ci.params_shm);
	}
}

/* `arena status NAME [--json] [--all]`: the arena's geometry, rings, counters and records. */
static int cmd_status(int argc, char **argv)
{
	struct zka_arena *a = NULL;
	int json = 0, all = 0;
	int rc =
	    open_named(argc, argv, "status", ZKA_OPEN_RDONLY | ZKA_OPEN_SHARED, &a, &json, &all);
	if (rc >= 0)
		return rc;
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	struct state_counts sc;
	count_states(a, &g, &sc);
	const char *name = argv[argc - 1];
	if (json) {
		json_summary(a, &g, name, &sc);
		json_slots(a, &g);
		json_jobs(a, &g, all);
		json_circuits(a, &g);
	} else {
		text_summary(a, &g, name, &sc);
		text_tables(a, &g, all);
	}
	zka_arena_close(a);
	return 0;
}

int zka_cmd_arena(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "create") || !strcmp(cmd, "ensure"))
		return cmd_create(argc - 1, argv + 1);
	if (!strcmp(cmd, "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(cmd, "destroy")) {
		int rc = open_named(argc - 1, argv + 1, "destroy", 0, NULL, NULL, NULL);
		if (rc <= 0) /* the jobs' attestations (synth/attest.h) go with the arena */
			zka_attest_remove_all(argv[argc - 1]);
		return rc >= 0 ? rc : 0;
	}
	if (!strcmp(cmd, "recover") || !strcmp(cmd, "check")) {
		struct zka_arena *a;
		int repair = 0;
		int rc = open_named(argc - 1, argv + 1, cmd, ZKA_OPEN_NORECOVER, &a, NULL, &repair);
		if (rc >= 0)
			return rc;
		if (repair) {
			uint32_t qs = 0, qj = 0, fixed = 0;
			char why[300] = "";
			if (zka_arena_locks_check(a, 0, NULL, why, sizeof why))
				printf("%s\n", why);
			int q = zka_arena_locks_check(a, 1, &fixed, NULL, 0);
			if (q < 0) {
				ERR("%s: cannot repair the mutexes: %s", argv[argc - 1],
				    strerror(-q));
				zka_arena_close(a);
				return 2;
			}
			if (fixed)
				printf("initialised %u mutex(es) again (rings rebuilt from the "
				       "tables)\n",
				       fixed);
			int nc = zka_arena_repair_circuits(a);
			if (nc > 0)
				printf(
				    "reset %d corrupt circuit record(s) to FREE (their keys load "
				    "again at the next submit)\n",
				    nc);
			q = zka_arena_repair(a, &qs, &qj);
			if (q < 0) {
				ERR("%s: repair failed: %s", argv[argc - 1], strerror(-q));
				zka_arena_close(a);
				return 2;
			}
			printf("quarantined %u slot record(s) and %u job record(s)\n", qs, qj);
		}
		int n = zka_arena_recover(a);
		if (n < 0) {
			ERR("%s: recovery failed: %s", argv[argc - 1], strerror(-n));
			zka_arena_close(a);
			return 2;
		}
		if (!strcmp(cmd, "recover")) {
			printf("recovered %d record(s)\n", n);
			zka_arena_close(a);
			return 0;
		}
		char err[256] = "";
		rc = zka_arena_check(a, err, sizeof err);
		zka_arena_close(a);
		if (rc) {
			printf("invariant broken: %s\n", err);
			return 1;
		}
		printf("ok\n");
		return 0;
	}
	ERR("unknown command '%s' (try zkarena arena --help)", cmd);
	return 2;
}

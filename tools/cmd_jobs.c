/* cmd_jobs.c - the job API on the command line: submit, wait, status, cancel, list. */
#include "config/zka_config.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "tools/cli.h"
#include "tools/gpuds.h"
#include "tools/util.h"
#include "zk/opt.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Opens arena name for a client (no recovery: that is the daemons' work); prints
 * "zkarena CMD: arena NAME: problem" and returns NULL on failure. */
static struct zka_arena *open_arena(const char *cmd, const char *name, int flags)
{
	char prog[64];
	snprintf(prog, sizeof prog, "zkarena %s", cmd);
	return zka_pipe_attach(prog, name, flags | ZKA_OPEN_NORECOVER | ZKA_OPEN_SHARED);
}

/* Parses a job id (decimal); returns 0 or -EINVAL after printing the problem. */
static int parse_id(const char *cmd, const char *s, uint64_t *id)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || !*s || s[0] == '-') {
		fprintf(stderr, "zkarena %s: '%s' is not a job id\n", cmd, s);
		return -EINVAL;
	}
	*id = v;
	return 0;
}

/* Submit's side of the per-user limits (zka_config_user_limits_check): 1 when refused (said). */
static int user_limits_refuse(struct zka_arena *a, const char *name, int prio)
{
	char err[1024];
	if (!zka_config_user_limits_check(a, name, (uint32_t)geteuid(), prio, stderr, err,
					  sizeof err))
		return 0;
	fprintf(stderr, "zkarena submit: %s\n", err);
	return 1;
}

/* A first argument that looks like an option but is not --help: one line, exit 2 (1 when
 * argv[1] is fine). */
static int bad_first(const char *cmd, int argc, char **argv)
{
	if (argc < 2 || argv[1][0] != '-' || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return 0;
	fprintf(stderr, "zkarena %s: unknown option '%s' (see zkarena %s --help)\n", cmd, argv[1],
		cmd);
	return 1;
}

int zka_cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"out", required_argument, 0, 'o'},	     {"r1cs", required_argument, 0, 'r'},
	    {"priority", required_argument, 0, 'p'}, {"input", required_argument, 0, 'i'},
	    {"help", no_argument, 0, 'h'},	     {0, 0, 0, 0}};
	const char *out = NULL, *r1cs = NULL, *input = NULL;
	int opt, prio = 0;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			r1cs = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'p':
			if (zka_opt_int("zkarena submit", "--priority", optarg, ZKA_PRIORITY_MIN,
					ZKA_PRIORITY_MAX, &prio))
				return 2;
			break;
		case 'h':
			printf(
			    "usage: zkarena submit NAME circuit.zkey witness.wtns --out DIR "
			    "[--r1cs circuit.r1cs]\n"
			    "                      [--priority N]\n"
			    "       zkarena submit NAME circuit.zka --input input.json --out DIR "
			    "[...]\n\n"
			    "Queues one proof in arena NAME. The key is loaded into the arena's "
			    "params\n"
			    "region the first time it is named (later jobs reuse it); with --r1cs "
			    "the\n"
			    "workers also check each witness against the circuit. proof.json and\n"
			    "public.json will appear in DIR (which must exist). Prints the job id "
			    "alone on\n"
			    "the last line. --priority N (-1000..1000, default 0): workers take "
			    "the\n"
			    "highest waiting priority first, FIFO within one; a job gains one "
			    "level per\n"
			    "%d s of waiting, so a low priority waits a bounded time.\n"
			    "--input input.json (or a witness argument ending in .json): a "
			    "synthesis\n"
			    "worker computes the witness from input.json with the key's witness "
			    "graph\n"
			    "(circuit.zka.wcg, recorded by `zkarena import --c`), straight into "
			    "its slot;\n"
			    "the input is checked against the graph's inputs here, before "
			    "queuing.\n"
			    "Another user than the arena's owner is bound by its [limits] "
			    "(user_queued,\n"
			    "user_priority; docs/ops.md); in a group arena the job's fields are\n"
			    "attested in /dev/shm/zkarena-NAME.att-NONCE, owned by the submitter.\n"
			    "exit status: 0 queued; 2 bad input (nothing queued).\n",
			    ZKA_PRIORITY_AGE_S);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != (input ? 2 : 3) || !out) {
		fprintf(stderr,
			"zkarena submit: expected NAME circuit.zkey witness.wtns (or --input "
			"input.json) --out DIR (see --help)\n");
		return 2;
	}
	const char *wit = input ? input : argv[optind + 2];
	size_t wl = strlen(wit);
	if (input && (wl < 6 || strcmp(wit + wl - 5, ".json"))) {
		fprintf(stderr, "zkarena submit: --input %s: the name must end in .json\n", input);
		return 2;
	}
	struct zka_arena *a = open_arena("submit", argv[optind], 0);
	if (!a)
		return 2;
	char err[1024] = "";
	uint64_t id;
	if (user_limits_refuse(a, argv[optind], prio)) {
		zka_arena_close(a);
		return 2;
	}
	zka_arena_set_priority(a, prio);
	int r = zka_client_submit(a, argv[optind], argv[optind + 1], r1cs, wit, out, &id, err,
				  sizeof err);
	zka_arena_close(a);
	if (r) {
		fprintf(stderr, "zkarena submit: %s\n", err);
		return 2;
	}
	printf("%llu\n", (unsigned long long)id);
	return 0;
}

static double secs(int64_t a, int64_t b)
{
	return a && b && b >= a ? (double)(b - a) * 1e-9 : -1;
}

/* Prints wait's answer for outcome r of job id (zka_client_wait) and returns the exit status:
 * 0 DONE, 1 FAILED, 3 timed out, 2 unknown job or trouble. */
static int wait_report(uint64_t id, int r, const struct zka_client_outcome *o)
{
	unsigned long long u = (unsigned long long)id;
	const struct zka_job_info *ji = &o->ji;
	if (r == 0 && o->from == ZKA_CLIENT_MARKER) {
		printf("job %llu DONE: %s/proof.json %s/public.json (record expired; from the done "
		       "marker: %s)\n",
		       u, o->out_dir, o->out_dir, o->marker);
		return 0;
	}
	if (r == 0) {
		printf(
		    "job %llu DONE: %s/proof.json %s/public.json (synthesis %.3f s, prove %.3f s, "
		    "total %.3f s, attempts %u)\n",
		    u, ji->out_dir, ji->out_dir, secs(ji->t_synth_start, ji->t_synth_end),
		    secs(ji->t_prove_start, ji->t_prove_end), secs(ji->t_submit, ji->t_prove_end),
		    ji->attempts + 1);
		return 0;
	}
	if (r == 1) {
		printf("job %llu FAILED: %s%s\n", u, ji->reason,
		       o->from == ZKA_CLIENT_RETAINED ? " (record freed by retention)" : "");
		return 1;
	}
	if (r == -ETIMEDOUT) {
		fprintf(stderr, "zkarena wait: job %llu: still running after the timeout\n", u);
		return 3;
	}
	if (r == -ESTALE)
		fprintf(
		    stderr,
		    "zkarena wait: job %llu: no such job: never submitted, released, or its record "
		    "expired (finished records are kept for the retention time, or less when the "
		    "table is needed); pass --out DIR to read its outcome from its done marker\n",
		    u);
	else if (r == -ENOENT)
		fprintf(
		    stderr,
		    "zkarena wait: job %llu: its record expired and %s has no done marker for it: "
		    "the job did not produce a proof there\n",
		    u, o->out_dir);
	else
		fprintf(stderr, "zkarena wait: job %llu: %s\n", u, strerror(-r));
	return 2;
}

int zka_cmd_wait(int argc, char **argv)
{
	static const struct option opts[] = {{"timeout", required_argument, 0, 't'},
					     {"release", no_argument, 0, 'r'},
					     {"out", required_argument, 0, 'o'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int timeout_ms = -1, release = 0, opt;
	const char *out = NULL;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't': {
			/* seconds, fractions allowed; strictly parsed (atof took "x" as 0) */
			char *end;
			errno = 0;
			double sec = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(sec >= 0 && sec <= 2000000)) {
				fprintf(stderr,
					"zkarena wait: --timeout: '%s' is not a number of seconds "
					"in 0..2000000\n",
					optarg);
				return 2;
			}
			timeout_ms = (int)(sec * 1000);
			break;
		}
		case 'r':
			release = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			printf("usage: zkarena wait NAME JOB [--timeout SECONDS] [--release] "
			       "[--out DIR]\n\n"
			       "Blocks (on a futex, no polling) until JOB is DONE or FAILED.\n"
			       "--release frees the job record afterwards (its id then stops "
			       "naming it).\n"
			       "Finished records are freed after the arena's retention time (or "
			       "earlier,\n"
			       "oldest first, when the table is needed): a freed job's outcome is "
			       "read from\n"
			       "its output directory's done marker (DIR, or the record while not "
			       "reused).\n"
			       "exit status: 0 DONE (proof.json and public.json are in the job's "
			       "directory);\n"
			       "1 FAILED (the reason is printed); 3 timed out; 2 bad usage or "
			       "unknown job.\n");
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	uint64_t id;
	if (argc - optind != 2) {
		fprintf(stderr, "zkarena wait: expected NAME JOB (see --help)\n");
		return 2;
	}
	if (parse_id("wait", argv[optind + 1], &id))
		return 2;
	struct zka_arena *a = open_arena("wait", argv[optind], 0);
	if (!a)
		return 2;
	struct zka_client_outcome *o = malloc(sizeof *o);
	if (!o) {
		fprintf(stderr, "zkarena wait: out of memory\n");
		zka_arena_close(a);
		return 2;
	}
	struct zka_job_info own;
	if (zka_job_info(a, zka_job_index(id), &own) == 0 && own.id == id &&
	    own.state != ZKA_JOB_FREE && !zka_job_may_touch(a, &own)) {
		fprintf(stderr,
			"zkarena wait: job %llu belongs to uid %u: only its submitter, the arena's "
			"owner or root may read it (EPERM)\n",
			(unsigned long long)id, own.uid);
		free(o);
		zka_arena_close(a);
		return 2;
	}
	int status = wait_report(id, zka_client_wait(a, id, timeout_ms, out, o), o);
	free(o);
	if (release && (status == 0 || status == 1))
		zka_job_release(a, id);
	zka_arena_close(a);
	return status;
}

int zka_cmd_cancel(int argc, char **argv)
{
	uint64_t id;
	if (bad_first("cancel", argc, argv))
		return 2;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: zkarena cancel NAME JOB\n\nCancels a job that has not finished: the "
		       "worker or prover that handles it next fails it with \"cancelled\".\n"
		       "Only the job's submitter, the arena's owner or root may cancel it.\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "zkarena cancel: expected NAME JOB\n");
		return 2;
	}
	if (parse_id("cancel", argv[2], &id))
		return 2;
	struct zka_arena *a = open_arena("cancel", argv[1], 0);
	if (!a)
		return 2;
	int r = zka_job_cancel(a, id);
	struct zka_job_info ji;
	if (r == -EPERM && zka_job_info(a, zka_job_index(id), &ji) == 0) {
		fprintf(
		    stderr,
		    "zkarena cancel: job %llu belongs to uid %u: only its submitter, the arena's "
		    "owner or root may cancel it (EPERM)\n",
		    (unsigned long long)id, ji.uid);
		zka_arena_close(a);
		return 2;
	}
	zka_arena_close(a);
	if (r == -EALREADY) {
		fprintf(stderr, "zkarena cancel: job %llu already finished\n",
			(unsigned long long)id);
		return 1;
	}
	if (r) {
		fprintf(stderr, "zkarena cancel: job %llu: %s\n", (unsigned long long)id,
			r == -ESTALE ? "no such job" : strerror(-r));
		return 2;
	}
	printf("job %llu: cancellation requested\n", (unsigned long long)id);
	return 0;
}

/* One line per job: id, state, attempts, stage times, directory or reason. */
static void list_jobs(struct zka_arena *a, int all)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	printf("%-12s %-12s %-4s %-8s %-8s %-8s %-8s %s\n", "job", "state", "try", "queue", "synth",
	       "witness", "prove", "output / reason");
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		if (zka_job_info(a, j, &ji) || ji.state == ZKA_JOB_FREE)
			continue;
		if (!all && (ji.state == ZKA_JOB_DONE))
			continue;
		char other[64]; /* another user's job: its paths and reason are not shown */
		snprintf(other, sizeof other, "(a job of uid %u)", ji.uid);
		printf("%-12llu %-12s %-4u %-8.3f %-8.3f %-8.3f %-8.3f %s\n",
		       (unsigned long long)ji.id, zka_job_state_name(ji.state), ji.attempts + 1,
		       secs(ji.t_submit, ji.t_synth_start), secs(ji.t_synth_start, ji.t_synth_end),
		       secs(ji.t_synth_start, ji.t_witness_end),
		       secs(ji.t_prove_start, ji.t_prove_end),
		       !zka_job_may_touch(a, &ji)   ? other
		       : ji.state == ZKA_JOB_FAILED ? ji.reason
						    : ji.out_dir);
	}
}

int zka_cmd_list(int argc, char **argv)
{
	if (bad_first("list", argc, argv))
		return 2;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: zkarena list NAME [--all]\n\nLists the arena's jobs (without --all, "
		       "DONE jobs are left out). Times in seconds; -1: stage not reached.\n");
		return argc < 2 ? 2 : 0;
	}
	struct zka_arena *a = open_arena("list", argv[1], ZKA_OPEN_RDONLY);
	if (!a)
		return 2;
	list_jobs(a, argc > 2 && !strcmp(argv[2], "--all"));
	zka_arena_close(a);
	return 0;
}

/* The job's proof attempts: number, prover pid, start and end (UTC), or "did not finish". */
static void print_attempts(const struct zka_job_info *ji)
{
	printf("  proof attempts: %u\n", ji->prove_count);
	for (int k = 0; k < ZKA_ATTEMPT_LOG && ji->prove_log[k].n; k++) {
		const struct zka_attempt_info *e = &ji->prove_log[k];
		char t0[64], t1[64];
		struct tm tm;
		time_t s0 = (time_t)(e->t_start / 1000000000), s1 = (time_t)(e->t_end / 1000000000);
		strftime(t0, sizeof t0, "%Y-%m-%d %H:%M:%S", gmtime_r(&s0, &tm));
		snprintf(t0 + strlen(t0), sizeof t0 - strlen(t0), ".%03d",
			 (int)(e->t_start % 1000000000 / 1000000));
		if (e->t_end) {
			strftime(t1, sizeof t1, "%H:%M:%S", gmtime_r(&s1, &tm));
			snprintf(t1 + strlen(t1), sizeof t1 - strlen(t1), ".%03d UTC (%.3f s)",
				 (int)(e->t_end % 1000000000 / 1000000),
				 (double)(e->t_end - e->t_start) * 1e-9);
		} else {
			snprintf(t1, sizeof t1, "did not finish (prover died or still proving)");
		}
		printf("    attempt %u: gpud pid %d, started %s, ended %s\n", e->n, e->pid, t0, t1);
	}
}

int zka_cmd_status(int argc, char **argv)
{
	if (bad_first("status", argc, argv))
		return 2;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf(
		    "usage: zkarena status NAME [JOB | --watch | --snapshot]\n\nWith JOB: that "
		    "job's state, attempts, "
		    "stage times and reason. Without: jobs per state, the daemon's backend and\n"
		    "fast paths (from its last start), and the jobs not yet DONE. For the arena's\n"
		    "slots, rings and counters see `zkarena arena status NAME`.\n"
		    "--watch: a live view refreshed every second (slots by state, the queue by\n"
		    "priority, each gpud's busy %% and proofs/s, the last failures) until Ctrl-C;\n"
		    "plain text, also in a pipe. --snapshot: that view once.\n");
		return argc < 2 ? 2 : 0;
	}
	if (argc == 3 && (!strcmp(argv[2], "--watch") || !strcmp(argv[2], "--snapshot")))
		return zka_status_watch(argv[1], !strcmp(argv[2], "--watch"));
	struct zka_arena *a = open_arena("status", argv[1], ZKA_OPEN_RDONLY);
	if (!a)
		return 2;
	int status = 0;
	if (argc > 2) {
		uint64_t id;
		struct zka_job_info ji;
		if (parse_id("status", argv[2], &id)) {
			status = 2;
		} else if ((zka_job_info(a, zka_job_index(id), &ji) || ji.id != id ||
			    ji.state == ZKA_JOB_FREE) &&
			   zka_job_expired(a, id, &ji) != 0) {
			fprintf(stderr,
				"zkarena status: job %llu: no such job (never submitted, released, "
				"or its "
				"record expired and was reused)\n",
				(unsigned long long)id);
			status = 2;
		} else if (!zka_job_may_touch(a, &ji)) {
			fprintf(
			    stderr,
			    "zkarena status: job %llu belongs to uid %u: only its submitter, the "
			    "arena's owner or root may read it (EPERM)\n",
			    (unsigned long long)id, ji.uid);
			status = 2;
		} else {
			if (ji.id == id && zka_job_expired(a, id, &ji) == 0)
				printf("job %llu: record freed by retention (kept until reused)\n",
				       (unsigned long long)id);
			printf(
			    "job %llu: %s, priority %d, attempt %u of %u, synthesized %u time(s)\n",
			    (unsigned long long)id, zka_job_state_name(ji.state), ji.priority,
			    ji.attempts + 1, ji.max_attempts, ji.synth_count);
			printf("  witness %s\n  output  %s\n", ji.witness_path, ji.out_dir);
			printf(
			    "  queued %.3f s, synthesis %.3f s (the witness %.3f s of it), waiting "
			    "for the prover %.3f s, prove %.3f s\n",
			    secs(ji.t_submit, ji.t_synth_start),
			    secs(ji.t_synth_start, ji.t_synth_end),
			    secs(ji.t_synth_start, ji.t_witness_end),
			    secs(ji.t_synth_end, ji.t_prove_start),
			    secs(ji.t_prove_start, ji.t_prove_end));
			if (ji.reason[0])
				printf("  reason: %s\n", ji.reason);
			print_attempts(&ji);
		}
	} else {
		static const int states[] = {ZKA_JOB_SUBMITTED, ZKA_JOB_SYNTHESIZING,
					     ZKA_JOB_READY,	ZKA_JOB_PROVING,
					     ZKA_JOB_DONE,	ZKA_JOB_FAILED};
		struct zka_arena_geometry g;
		zka_arena_geometry(a, &g);
		unsigned cnt[16] = {0};
		for (uint32_t j = 0; j < g.njobs; j++) {
			struct zka_job_info ji;
			if (!zka_job_info(a, j, &ji) && ji.state > 0 && ji.state < 16)
				cnt[ji.state]++;
		}
		printf("arena %s: %u slots of %llu MiB, %u job records\njobs:", argv[1], g.nslots,
		       (unsigned long long)(g.slot_bytes >> 20), g.njobs);
		for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
			printf(" %s %u", zka_job_state_name(states[i]), cnt[states[i]]);
		printf("\n");
		zka_print_user_queues(a, argv[1]);
		uint32_t auid;
		zka_arena_owner(a, &auid, NULL, NULL);
		zka_gpuds_print(argv[1], auid); /* every gpud: its file, the table */
		list_jobs(a, 0);
	}
	zka_arena_close(a);
	return status;
}

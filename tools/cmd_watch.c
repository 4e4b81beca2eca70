/* cmd_watch.c - `zkarena status NAME --watch`: a live view of an arena, one snapshot a second:
 * slots by state, the queue by priority, each gpud's busy % and proofs/s, jobs per state and
 * the last failures. Plain text: on a terminal each snapshot replaces the previous one (cursor
 * home, clear), in a pipe snapshots follow each other separated by a blank line. */
#include "shm/zka_arena.h"
#include "shm/zka_gpud_status.h"
#include "synth/pipe.h"
#include "tools/gpuds.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t watch_stop;

static void on_int(int sig)
{
	(void)sig;
	watch_stop = 1;
}

struct prio {
	int priority;
	unsigned n;
};

#define NFAIL 3

static void snapshot(struct zka_arena *a, const char *name)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	unsigned slots[8] = {0}, jobs[16] = {0};
	for (uint32_t s = 0; s < g.nslots; s++) {
		struct zka_slot_info si;
		if (zka_slot_info(a, s, &si) == 0 && si.state >= 0 && si.state < 8)
			slots[si.state]++;
	}
	struct prio pr[16];
	int npr = 0, other = 0;
	struct zka_job_info *fail = calloc(NFAIL, sizeof *fail), ji;
	int nfail = 0;
	for (uint32_t j = 0; j < g.njobs; j++) {
		if (zka_job_info(a, j, &ji) || ji.state <= 0 || ji.state >= 16)
			continue;
		jobs[ji.state]++;
		if (ji.state == ZKA_JOB_SUBMITTED) {
			int k = 0;
			while (k < npr && pr[k].priority != ji.priority)
				k++;
			if (k == npr && npr < 16)
				pr[npr++] = (struct prio){ji.priority, 0};
			if (k < npr)
				pr[k].n++;
			else
				other++;
		}
		if (ji.state == ZKA_JOB_FAILED && fail) {
			int64_t t = ji.t_prove_end ? ji.t_prove_end : ji.t_synth_end;
			/* keep the NFAIL latest, by the time they ended (or were submitted) */
			int64_t tt = t ? t : ji.t_submit;
			int at = nfail < NFAIL ? nfail++ : -1;
			if (at < 0) {
				int old = 0;
				for (int i = 1; i < NFAIL; i++)
					if ((fail[i].t_prove_end ? fail[i].t_prove_end
								 : fail[i].t_submit) <
					    (fail[old].t_prove_end ? fail[old].t_prove_end
								   : fail[old].t_submit))
						old = i;
				if ((fail[old].t_prove_end ? fail[old].t_prove_end
							   : fail[old].t_submit) < tt)
					at = old;
			}
			if (at >= 0)
				fail[at] = ji;
		}
	}
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", gmtime_r(&now, &tm));
	printf("arena %s  %s UTC\n", name, ts);
	printf("slots: FREE %u  WRITING %u  READY %u  PROVING %u\n", slots[ZKA_SLOT_FREE],
	       slots[ZKA_SLOT_WRITING], slots[ZKA_SLOT_READY], slots[ZKA_SLOT_PROVING]);
	printf("jobs:  SUBMITTED %u  SYNTHESIZING %u  READY %u  PROVING %u  DONE %u  FAILED %u\n",
	       jobs[ZKA_JOB_SUBMITTED], jobs[ZKA_JOB_SYNTHESIZING], jobs[ZKA_JOB_READY],
	       jobs[ZKA_JOB_PROVING], jobs[ZKA_JOB_DONE], jobs[ZKA_JOB_FAILED]);
	printf("queue by priority:");
	if (!npr)
		printf(" empty");
	for (int i = 0; i < npr; i++) /* highest first */
		for (int k = i + 1; k < npr; k++)
			if (pr[k].priority > pr[i].priority) {
				struct prio t = pr[i];
				pr[i] = pr[k];
				pr[k] = t;
			}
	for (int i = 0; i < npr; i++)
		printf(" [%d] %u", pr[i].priority, pr[i].n);
	if (other)
		printf(" [other] %d", other);
	printf("\n");
	zka_print_user_queues(a, name);
	struct zka_gpud_status *gs = calloc(ZKA_GPUDS_MAX, sizeof *gs);
	int ng = gs ? zka_gpud_status_read_all(name, gs, ZKA_GPUDS_MAX) : 0;
	if (!ng)
		printf("gpuds: none has started on this arena\n");
	for (int i = 0; i < ng; i++) {
		char flag[96];
		printf("gpud %d  device %d  %-4s  busy %5.1f%%  %6.2f proofs/s  keys %d%s\n",
		       gs[i].id, gs[i].device, gs[i].backend, 100 * gs[i].busy, gs[i].proofs_per_s,
		       gs[i].nkeys, zka_gpud_status_flag(&gs[i], flag, sizeof flag));
	}
	printf("last failures:%s\n", nfail ? "" : " none");
	for (int i = 0; i < nfail; i++)
		printf("  job %llu: %s\n", (unsigned long long)fail[i].id, fail[i].reason);
	free(fail);
	free(gs);
}

int zka_status_watch(const char *name, int watch)
{
	struct zka_arena *a =
	    zka_pipe_attach("zkarena status", name, ZKA_OPEN_RDONLY | ZKA_OPEN_NORECOVER);
	if (!a)
		return 2;
	struct sigaction sa = {.sa_handler = on_int};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	int tty = isatty(STDOUT_FILENO);
	do {
		if (watch && tty)
			printf("\033[H\033[J");
		snapshot(a, name);
		if (watch && !tty)
			printf("\n");
		fflush(stdout);
		if (watch) {
			struct timespec t = {1, 0};
			nanosleep(&t, NULL);
		}
	} while (watch && !watch_stop);
	zka_arena_close(a);
	return 0;
}

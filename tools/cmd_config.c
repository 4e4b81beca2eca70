/* cmd_config.c - `zkarena config check FILE`, `zkarena config args FILE SECTION` (the settings
 * file of config/zka_config.h as flags) and `zkarena config exec gpud|synth NAME[-gpuDEVICE]`
 * (what the systemd units run). */
#include "config/zka_config.h"
#include "tools/cli.h"

#include "tools/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(
	    f, "%s",
	    "usage: zkarena config check FILE\n"
	    "       zkarena config args FILE arena|gpud\n"
	    "       zkarena config exec gpud|synth NAME[-gpuDEVICE]\n\n"
	    "check: reads an arena's settings file (/etc/zkarena/NAME.conf, INI: [arena] slots,\n"
	    "slot_bytes, jobs, numa_node, max_attempts, retention; [run] workers, threads,\n"
	    "backend, devices, inflight, table_budget; [metrics] listen; [limits]\n"
	    "user_queued, user_priority; [http] listen, unix, unix_group, token_file, spool, tls_cert,\n"
	    "tls_key, max_body, max_queue, keys: the job API of `zkarena serve` inside\n"
	    "`zkarena run`) and prints every problem as\n"
	    "FILE:LINE: problem. exit status: 0 no problem, 2 problems (or unreadable).\n"
	    "args: prints the file's settings of one section as command-line flags, for the\n"
	    "units: arena (zkarena arena ensure), gpud (zkarena-gpud: backend, inflight,\n"
	    "table_budget).\n"
	    "exec: what the zkarena-gpud@ and zkarena-synth@ units run: reads NAME's settings\n"
	    "file ($ZKA_CONFIG_DIR or /etc/zkarena), binds to its numa_node, and becomes\n"
	    "zkarena-gpud (on DEVICE, default the first of [run] devices; its --id is DEVICE's\n"
	    "position in that list) or zkarena-synth (--threads from [run] threads).\n"
	    "NAME-gpuDEVICE (the unit zkarena-gpud@NAME-gpuDEVICE) may also be written\n"
	    "NAME:DEVICE.\n");
}

/* `config exec KIND NAME[-gpuDEVICE]` (or NAME:DEVICE, which systemd-analyze verify refuses
 * in a unit's file name): becomes the daemon, configured from NAME's file. */
static int exec_daemon(const char *kind, const char *inst)
{
	char name[128], path[PATH_MAX], exe[PATH_MAX];
	snprintf(name, sizeof name, "%s", inst);
	char *colon = strchr(name, ':');
	int dev = -1;
	char *g = strstr(name, "-gpu");
	for (char *n; g && (n = strstr(g + 1, "-gpu"));)
		g = n; /* the last -gpu */
	if (!colon && g && g[4] && strspn(g + 4, "0123456789") == strlen(g + 4)) {
		*g = ':'; /* NAME-gpuN: the same as NAME:N */
		memmove(g + 1, g + 4, strlen(g + 4) + 1);
		colon = g;
	}
	if (colon) {
		*colon = 0;
		char *end;
		long v = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || v < 0 || v > 1023) {
			fprintf(stderr,
				"zkarena config exec: '%s': DEVICE is not a number 0..1023\n",
				inst);
			return 2;
		}
		dev = (int)v;
	}
	struct zka_config c;
	zka_config_path(path, sizeof path, name);
	if (access(path, F_OK) == 0) {
		if (zka_config_load(path, &c, stderr, NULL))
			return 2;
	} else {
		memset(&c, 0, sizeof c);
		c.numa_node = -1;
	}
	if (c.numa_node >= 0 && zka_run_bind_node(c.numa_node))
		return 2;
	char s_dev[16], s_id[16], s_inf[16], s_thr[16], s_max[16];
	char *v[16];
	int n = 0;
	if (!strcmp(kind, "gpud")) {
		int devs[64], nd = c.devices[0] ? zka_config_devices(c.devices, devs, 64) : 0,
			      id = -1;
		if (dev < 0)
			dev = nd > 0 ? devs[0] : 0;
		for (int i = 0; i < nd && id < 0; i++)
			if (devs[i] == dev)
				id = i;
		snprintf(s_dev, sizeof s_dev, "%d", dev);
		snprintf(s_id, sizeof s_id, "%d", id < 0 ? dev : id);
		if (zka_run_find_exe("ZKA_GPUD_BIN", "zkarena-gpud", "gpud", exe, sizeof exe))
			goto noexe;
		v[n++] = exe;
		const char *be =
		    zka_backend_resolve("zkarena config exec", c.backend[0] ? c.backend : "cuda");
		v[n++] = "--backend", v[n++] = (char *)be;
		if (c.inflight) {
			snprintf(s_inf, sizeof s_inf, "%d", c.inflight);
			v[n++] = "--inflight", v[n++] = s_inf;
		}
		if (c.table_budget[0] && !strcmp(be, "cuda"))
			v[n++] = "--table-budget", v[n++] = c.table_budget;
		else if (c.table_budget[0]) /* said once, into the unit's log */
			fprintf(stderr,
				"zkarena config exec: %s: table_budget %s ignored: window tables "
				"exist only with the cuda backend (backend %s)\n",
				path, c.table_budget, be);
		v[n++] = "--device", v[n++] = s_dev, v[n++] = "--id", v[n++] = s_id;
	} else if (!strcmp(kind, "synth")) {
		if (zka_run_find_exe("ZKA_SYNTH_BIN", "zkarena-synth", "synth", exe, sizeof exe))
			goto noexe;
		v[n++] = exe;
		if (c.threads) {
			snprintf(s_thr, sizeof s_thr, "%d", c.threads);
			v[n++] = "--threads", v[n++] = s_thr;
		}
		if (c.threads && c.workers) { /* as `zkarena run`: at most W x T for a lone job */
			snprintf(s_max, sizeof s_max, "%d", c.workers * c.threads);
			v[n++] = "--max-threads", v[n++] = s_max;
		}
	} else {
		fprintf(stderr, "zkarena config exec: '%s' is not gpud or synth\n", kind);
		return 2;
	}
	v[n++] = name;
	v[n] = NULL;
	execv(exe, v);
	fprintf(stderr, "zkarena config exec: %s: %s\n", exe, strerror(errno));
	return 1;
noexe:
	fprintf(stderr, "zkarena config exec: no zkarena-%s next to zkarena\n", kind);
	return 2;
}

int zka_cmd_config(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	struct zka_config c;
	int problems = 0;
	if (argc == 3 && !strcmp(argv[1], "check")) {
		int r = zka_config_load(argv[2], &c, stderr, &problems);
		if (r) {
			if (problems)
				fprintf(stderr, "zkarena config: %s: %d problem%s\n", argv[2],
					problems, problems > 1 ? "s" : "");
			return 2;
		}
		printf("%s: ok\n", argv[2]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "args")) {
		if (zka_config_load(argv[2], &c, stderr, &problems))
			return 2;
		if (!strcmp(argv[3], "arena")) {
			if (c.set & ZKA_CF_SLOTS)
				printf(" --slots %u", c.slots);
			if (c.set & ZKA_CF_SLOT_BYTES)
				printf(" --slot-bytes %llu", (unsigned long long)c.slot_bytes);
			if ((c.set & ZKA_CF_JOBS) && c.jobs) /* jobs = 0: the default */
				printf(" --jobs %u", c.jobs);
			if ((c.set & ZKA_CF_NUMA) && c.numa_node >= 0)
				printf(" --numa-node %d", c.numa_node);
			if (c.set & ZKA_CF_MAX_ATTEMPTS)
				printf(" --max-attempts %u", c.max_attempts);
			if (c.set & ZKA_CF_RETENTION)
				printf(" --retention %u", c.retention_s);
		} else if (!strcmp(argv[3], "gpud")) {
			if (c.set & ZKA_CF_BACKEND)
				printf(" --backend %s",
				       zka_backend_resolve("zkarena config args", c.backend));
			if (c.set & ZKA_CF_INFLIGHT)
				printf(" --inflight %d", c.inflight);
			if (c.set & ZKA_CF_TABLE_BUDGET)
				printf(" --table-budget %s", c.table_budget);
		} else {
			fprintf(stderr, "zkarena config args: '%s' is not arena or gpud\n",
				argv[3]);
			return 2;
		}
		printf("\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "exec"))
		return exec_daemon(argv[2], argv[3]);
	fprintf(stderr,
		"zkarena config: '%s': expected check FILE, args FILE SECTION or exec DAEMON NAME "
		"(see zkarena config --help)\n",
		argc > 1 ? argv[1] : "");
	return 2;
}

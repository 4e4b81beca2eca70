/* cmd_config.c - `zkarena config check FILE` and `zkarena config args FILE SECTION` (the
 * settings file of config/zka_config.h as flags, for the systemd units). */
#include "config/zka_config.h"
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena config check FILE\n"
	    "       zkarena config args FILE arena|gpud\n\n"
	    "check: reads an arena's settings file (/etc/zkarena/NAME.conf, INI: [arena] slots,\n"
	    "slot_bytes, jobs, numa_node, max_attempts, retention; [run] workers, threads,\n"
	    "backend, devices, inflight; [metrics] listen) and prints every problem as\n"
	    "FILE:LINE: problem. exit status: 0 no problem, 2 problems (or unreadable).\n"
	    "args: prints the file's settings of one section as command-line flags, for the\n"
	    "units: arena (zkarena arena create), gpud (zkarena-gpud: backend, inflight).\n");
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
			if (c.set & ZKA_CF_JOBS)
				printf(" --jobs %u", c.jobs);
			if ((c.set & ZKA_CF_NUMA) && c.numa_node >= 0)
				printf(" --numa-node %d", c.numa_node);
			if (c.set & ZKA_CF_MAX_ATTEMPTS)
				printf(" --max-attempts %u", c.max_attempts);
			if (c.set & ZKA_CF_RETENTION)
				printf(" --retention %u", c.retention_s);
		} else if (!strcmp(argv[3], "gpud")) {
			if (c.set & ZKA_CF_BACKEND)
				printf(" --backend %s", c.backend);
			if (c.set & ZKA_CF_INFLIGHT)
				printf(" --inflight %d", c.inflight);
		} else {
			fprintf(stderr, "zkarena config args: '%s' is not arena or gpud\n",
				argv[3]);
			return 2;
		}
		printf("\n");
		return 0;
	}
	usage(stderr);
	return 2;
}

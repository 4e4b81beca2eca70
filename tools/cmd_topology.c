/* cmd_topology.c - `zkarena topology`: the GPUs (PCI display and 3D controllers of NVIDIA, in
 * PCI order, which is CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID), each with its NUMA node and
 * local CPUs, from sysfs; the nodes' CPUs and memory; and the settings that follow: the node
 * for each gpud, and for the arena (the GPUs' node when they share one). */
#include "tools/cli.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUS_MAX 64

struct gpu {
	char addr[32], cpus[256];
	int node;
};

static int read_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int r = fgets(out, (int)n, f) ? 0 : -1;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	return r;
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct gpu *)a)->addr, ((const struct gpu *)b)->addr);
}

int zka_cmd_topology(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		fprintf(
		    stderr,
		    "zkarena topology: takes no arguments ('%s'; see zkarena topology --help)\n",
		    argv[1]);
		return 2;
	}
	if (argc > 1) {
		int help = 1;
		fprintf(
		    help ? stdout : stderr,
		    "usage: zkarena topology\n\n"
		    "Prints each NVIDIA GPU (PCI address, NUMA node, local CPUs, from sysfs; in\n"
		    "PCI order, CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID), each NUMA node's\n"
		    "CPUs and memory, and the settings they imply: numa_node for the arena and\n"
		    "for each gpud (--devices).\n");
		return help ? 0 : 2;
	}
	struct gpu g[GPUS_MAX];
	int ng = 0;
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	while (d && (e = readdir(d)) && ng < GPUS_MAX) {
		if (e->d_name[0] == '.')
			continue;
		char p[512], v[64], c[64];
		snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/vendor", e->d_name);
		if (read_line(p, v, sizeof v) || strcmp(v, "0x10de"))
			continue;
		snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/class", e->d_name);
		if (read_line(p, c, sizeof c) ||
		    (strncmp(c, "0x0300", 6) && strncmp(c, "0x0302", 6)))
			continue;
		struct gpu *x = &g[ng++];
		snprintf(x->addr, sizeof x->addr, "%.31s", e->d_name);
		snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/numa_node", e->d_name);
		x->node = read_line(p, v, sizeof v) ? -1 : atoi(v);
		snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/local_cpulist", e->d_name);
		if (read_line(p, x->cpus, sizeof x->cpus))
			snprintf(x->cpus, sizeof x->cpus, "?");
	}
	if (d)
		closedir(d);
	qsort(g, (size_t)ng, sizeof g[0], cmp_gpu);
	printf("GPUs: %d\n", ng);
	for (int i = 0; i < ng; i++)
		printf("  device %d  %s  NUMA node %d  local CPUs %s\n", i, g[i].addr, g[i].node,
		       g[i].cpus);
	int nodes = 0;
	printf("NUMA nodes:\n");
	for (int n = 0; n < 1024; n++) {
		char p[128], cpus[256], line[256];
		snprintf(p, sizeof p, "/sys/devices/system/node/node%d/cpulist", n);
		if (read_line(p, cpus, sizeof cpus))
			continue;
		nodes++;
		unsigned long long kb = 0;
		snprintf(p, sizeof p, "/sys/devices/system/node/node%d/meminfo", n);
		FILE *f = fopen(p, "r");
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "Node %*d MemTotal: %llu kB", &kb) == 1)
				break;
		if (f)
			fclose(f);
		printf("  node %d  CPUs %s  memory %.1f GiB\n", n, cpus, (double)kb / 1048576.0);
	}
	if (!nodes)
		printf("  none reported (no NUMA support in sysfs)\n");
	printf("settings:\n");
	if (nodes <= 1) {
		printf("  one NUMA node: numa_node = -1 (binding changes nothing)\n");
		return 0;
	}
	int same = ng > 0 && g[0].node >= 0;
	for (int i = 1; i < ng; i++)
		same &= g[i].node == g[0].node;
	if (!ng)
		printf("  no GPU: numa_node = -1, or the node whose CPUs run the workers\n");
	else if (same)
		printf("  every GPU on node %d: [arena] numa_node = %d\n", g[0].node, g[0].node);
	else
		printf(
		    "  GPUs on several nodes: one arena per node, each with that node's devices\n");
	for (int i = 0; i < ng; i++)
		printf("  gpud for device %d: node %d\n", i, g[i].node);
	return 0;
}

/* zkarena.c - entry point of the `zkarena` CLI: dispatches to the subcommands of cli.h. */
#include "config/zka_version.h"
#include "tools/cli.h"
#include "tools/util.h"
#ifdef ZKA_HAVE_CUDA
#include "gpud/devcheck.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct zka_cmd cmds[] = {
    /* ZKA_CMDS_BEGIN: one line per subcommand */
    {"prove", zka_cmd_prove, "prove: circuit.zkey witness.wtns proof.json public.json"},
    {"verify", zka_cmd_verify, "verify: verification_key.json public.json proof.json"},
    {"setup", zka_cmd_setup, "test-only setup: --insecure circuit.r1cs circuit.zkey vk.json"},
    {"circuit", zka_cmd_circuit, "write a random satisfiable circuit and witness (for benchmarks)"},
    {"arena", zka_cmd_arena, "create, destroy or inspect a shared-memory arena"},
    {"run", zka_cmd_run, "run the pipeline of an arena: gpud + synthesis workers"},
    {"submit", zka_cmd_submit, "queue a proof: NAME circuit.zkey witness.wtns --out DIR"},
    {"wait", zka_cmd_wait, "wait for a job: NAME JOB"},
    {"status", zka_cmd_status, "jobs and daemon of an arena, or one job"},
    {"list", zka_cmd_list, "list the jobs of an arena"},
    {"cancel", zka_cmd_cancel, "cancel a job that has not finished"},
    {"serve", zka_cmd_serve, "the HTTP/JSON job API of an arena: NAME --listen HOST:PORT"},
    {"demo", zka_cmd_demo, "the whole pipeline on an embedded circuit, with a summary"},
    {"witness", zka_cmd_witness, "input.json -> witness.wtns: circuit.zka input.json witness.wtns"},
    {"import", zka_cmd_import,
     "a .zkey into a .zka (points validated): circuit.zkey -o circuit.zka"},
    {"params", zka_cmd_params, "resident keys in /dev/shm: load FILE, list, evict ID"},
    {"topology", zka_cmd_topology, "GPUs, NUMA nodes and the settings they imply"},
    {"config", zka_cmd_config, "an arena's settings file: check FILE, args FILE SECTION"},
    {"zkey", zka_cmd_zkey,
     "export verificationkey circuit.zkey vk.json (as snarkjs); export bellperson"},
    {"r1cs", zka_cmd_r1cs, "info circuit.r1cs: wires, constraints, inputs (as snarkjs)"},
    {"bench", zka_cmd_bench, "run a benchmark (ring, ...) and print a table"},
#ifdef ZKA_HAVE_CLUSTER
    {"cluster", zka_cmd_cluster,
     "jobs across nodes through PostgreSQL: init, submit, wait, status"},
    {"bridge", zka_cmd_bridge,
     "run one node's jobs from the cluster database: --db URL --arena NAME"},
#endif
    /* ZKA_CMDS_END */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: zkarena COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n`zkarena COMMAND --help` describes each command.\n"
		   "`zkarena --version` (-V) prints the version (and git commit);\n"
		   "`zkarena --commands` the command names, one a line.\n");
}

/* ZKG_PROFILE's exit stamp: registered first, so it runs after every later atexit handler
 * (the CUDA runtime's among them); what remains after it is the kernel's teardown. */
static void profile_exit(void)
{
	zka_profile_stamp("exit handlers done");
}

int main(int argc, char **argv)
{
	if (getenv("ZKG_PROFILE")) { /* where a command's wall goes outside its own stages */
		zka_profile_stamp("main entered");
		atexit(profile_exit);
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (zka_version_asked(argv[1]))
		return zka_version_print("zkarena");
	if (!strcmp(argv[1], "--commands")) { /* the install's help texts and man page use it */
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
			printf("%s\n", cmds[i].name);
		return 0;
	}
#ifdef ZKA_HAVE_CUDA
	/* an import's points are checked on the GPU when there is one (opened at the first
	 * check; keys/zka_keys.h: zka_keys_set_checker, ZKA_VALIDATE_ON=auto|gpu|cpu) */
	zka_devcheck_install(0);
#endif
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "zkarena: unknown command '%s' (try zkarena --help)\n", argv[1]);
	return 2;
}

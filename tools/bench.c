/* bench.c - `zkarena bench KIND`: dispatches to the benchmarks, each of which prints a table. */
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>

static const struct zka_cmd benches[] = {
    /* ZKA_BENCH_BEGIN */
    {"prove", zka_bench_prove, "CPU prover vs snarkjs on the same circuit and machine"},
    {"ring", zka_bench_ring,
     "cross-process ring handoff latency and throughput vs pipe and eventfd"},
    {"gpu", zka_bench_gpu, "GPU prover stages over a size sweep, both curves (synthetic keys)"},
    {"pipeline", zka_bench_pipeline,
     "synthesis vs the prover: pipeline proofs/s and busy % against the prover-only ceiling"},
#ifdef ZKA_HAVE_CLUSTER
    {"cluster", zka_bench_cluster,
     "jobs through PostgreSQL: claim-to-start latency, jobs/s, next to proof time"},
#endif
    {"witness", zka_bench_witness,
     "input.json -> witness: zkarena's graph vs circom's C++ and snarkjs"},
    {"import", zka_bench_import,
     "a .zkey's first proof (cold cache) and second vs rapidsnark's, the import's stages timed"},
    {"load", zka_bench_load, "key loading: io_uring+O_DIRECT vs read() vs mmap, cold and warm"},
    {"field", zka_bench_field,
     "the host's field inversions: Fermat, binary Euclid, binary GCD on approximations"},
    /* ZKA_BENCH_END */
};

int zka_cmd_bench(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: zkarena bench KIND [ARGS...]\n\nkinds:\n");
		for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
			fprintf(f, "  %-8s %s\n", benches[i].name, benches[i].summary);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "zkarena bench: unknown benchmark '%s' (see zkarena bench --help)\n",
		argv[1]);
	return 2;
}

/* cli.h - the subcommands of the `zkarena` CLI.
 *
 * Each subcommand is one function taking the argument vector that starts at its own name
 * (argv[0] = "prove", ...) and returning the process exit status: 0 success, 1 a well-formed
 * but negative answer (verify: invalid proof), 2 bad usage or bad input. Subcommands never
 * call exit(); they print one-line errors to stderr as "zkarena <cmd>: <what>: <problem>". */
#ifndef ZKA_CLI_H
#define ZKA_CLI_H

typedef int (*zka_cmd_fn)(int argc, char **argv);

struct zka_cmd {
	const char *name;
	zka_cmd_fn fn;
	const char *summary;
};

int zka_cmd_prove(int argc, char **argv);
int zka_cmd_verify(int argc, char **argv);
int zka_cmd_setup(int argc, char **argv);
int zka_cmd_arena(int argc, char **argv);
int zka_cmd_bench(int argc, char **argv);
int zka_cmd_circuit(int argc, char **argv);
int zka_cmd_run(int argc, char **argv);
int zka_cmd_submit(int argc, char **argv);
int zka_cmd_wait(int argc, char **argv);
int zka_cmd_status(int argc, char **argv);
int zka_cmd_list(int argc, char **argv);
int zka_cmd_cancel(int argc, char **argv);
int zka_cmd_demo(int argc, char **argv);
int zka_cmd_import(int argc, char **argv);
int zka_cmd_witness(int argc, char **argv);
int zka_cmd_params(int argc, char **argv);
int zka_cmd_config(int argc, char **argv);
int zka_cmd_topology(int argc, char **argv);
int zka_cmd_serve(int argc, char **argv);
int zka_cmd_zkey(int argc, char **argv);
int zka_cmd_r1cs(int argc, char **argv);
/* cluster/ (built when libpq is found: ZKA_HAVE_CLUSTER) */
int zka_cmd_cluster(int argc, char **argv);
int zka_cmd_bridge(int argc, char **argv);
int zka_bench_cluster(int argc, char **argv);

/* Benchmarks, dispatched by `zkarena bench KIND`. */
int zka_bench_ring(int argc, char **argv);
int zka_bench_field(int argc, char **argv);
int zka_bench_gpu(int argc, char **argv);
int zka_bench_prove(int argc, char **argv);
int zka_bench_load(int argc, char **argv);
int zka_bench_import(int argc, char **argv);
/* Whether a peer's proof DIR/PROOF verifies against pk with publics DIR/PUB that are the
 * witness's; says why on stderr (naming who) when not (bench_prove.c). */
struct zka_pk;
struct zka_witness;
int zka_bench_peer_ok(const struct zka_pk *pk, const struct zka_witness *w, const char *dir,
		      const char *proof, const char *pub, const char *who);
int zka_bench_pipeline(int argc, char **argv);
int zka_bench_witness(int argc, char **argv);

/* cmd_witness.c: the witness of input.json through a key's graph (zka_wcg_path; the caller
 * frees w with zka_witness_free); t, when not NULL, receives where the time went. */
#include <stddef.h>
struct zka_witness;
struct zka_witness_times {
	double graph, inputs, eval; /* seconds: graph loaded, input.json parsed, evaluation */
	char how[4700];		    /* how the graph was had: its kept compiled form or compiled */
};
int zka_witness_from_input(const char *key, const char *input, struct zka_witness *w,
			   struct zka_witness_times *t, char *err, size_t errlen);

#endif

/* zka_witness.h - witnesses from input.json: a circuit's recorded graph (zka_wcg.h), read,
 * checked and evaluated with zkarena's own field code.
 *
 * Flow: zka_wcg_load (once per circuit; the graph is read-only afterwards and may be shared
 * by threads), zka_wcg_inputs_json (input.json -> the input scalars), zka_wcg_eval (inputs ->
 * witness, standard form, the order and values `snarkjs wtns calculate` writes).
 * Errors are one line naming the file or signal and the problem; nothing is half-written. */
#ifndef ZKA_WITNESS_H
#define ZKA_WITNESS_H
#include <stddef.h>
#include <stdint.h>

#include "zk/curve.h"

typedef struct zka_wcg zka_wcg;

/* Where the graph of a key lives: KEY.wcg beside it (`import --c` writes it there), or KEY
 * itself when it names a .wcg. */
void zka_wcg_path(const char *key, char *out, size_t n);

/* Reads and validates the graph file at path (checksum, sizes, every operand of a node
 * earlier than the node, every index in range). Returns 0 with *g set (free with
 * zka_wcg_free), or -errno with a "path: problem" line in err. */
int zka_wcg_load(const char *path, zka_wcg **g, char *err, size_t errlen);
void zka_wcg_free(zka_wcg *g);

/* What zka_wcg_load_kept did with the graph's kept compiled form. */
struct zka_wcg_kept {
	int hit;	  /* 1: the program came from the entry (nothing compiled) */
	int written;	  /* 1: the graph was compiled and a new entry written */
	int refused;	  /* 1: an entry was there but damaged or untrusted (why says how) */
	char entry[4200]; /* the entry's path ("" when none is used) */
	char why[256];	  /* why an entry there did not serve ("" when none was there) */
	char werr[4608];  /* why a new entry was not written ("" when it was or not tried) */
};
/* zka_wcg_load, keeping the compiled program between processes: an entry in dir (a key cache
 * directory the caller checked with zka_keys_cache_check; NULL or "": none), tied to the
 * graph file's identity, this build's compiler and its checksum, is mapped instead of reading
 * and compiling the graph; a missing, stale, damaged or untrusted one (another user's, group
 * or world writable, a link) is not used, and the graph compiled and the entry rewritten
 * atomically (wcg.c: "the compiled form kept"). The graph evaluates the same either way.
 * Returns zka_wcg_load's results; a failure to keep the entry only fills kept->werr. */
int zka_wcg_load_kept(const char *path, const char *dir, zka_wcg **g, struct zka_wcg_kept *kept,
		      char *err, size_t errlen);

const zka_curve *zka_wcg_curve(const zka_wcg *g);

/* How this process converts witness entries to standard form, for bench and status lines:
 * "AVX-512 IFMA, 8 at a time" or "scalar (WHY)" (wcg_ifma.h; ZKA_WCG_IFMA=0 turns it off). */
const char *zka_wcg_conversions(void);

/* 1 when this process converts them 8 at a time with AVX-512 IFMA: the CPU has it and neither
 * ZKA_WCG_PLAIN nor ZKA_WCG_IFMA=0 is set (decided at the first call). */
int zka_wcg_ifma(void);
uint32_t zka_wcg_n_witness(const zka_wcg *g);
uint32_t zka_wcg_n_inputs(const zka_wcg *g);
/* The compiled program's instructions by code (counts[op], op as in zka_wcg.h: an operator,
 * | ZKA_WOP_SMALL, ZKA_WOP_MAC, ZKA_WOP_LC, ...): for tests and measurements. */
void zka_wcg_op_counts(const zka_wcg *g, uint32_t counts[256]);
/* Bytes of scratch zka_wcg_eval needs (the graph's peak of live values, 73 bytes each). */
size_t zka_wcg_scratch_bytes(const zka_wcg *g);

/* Parses input.json at path as snarkjs does (each top-level name an input signal of the main
 * component; nested arrays flattened in order; decimal or 0x/0o/0b strings, JSON numbers,
 * negative values mod r) into in[0 .. n_inputs) (standard form). Returns 0, or -EINVAL with
 * "path: signal 'x' ..." (unknown name, wrong count, not a number, a missing input). */
int zka_wcg_inputs_json(const zka_wcg *g, const char *path, uint64_t (*in)[4], char *err,
			size_t errlen);
/* The same from the regular file open on fd (read from offset 0, left open; fd < 0: open
 * path), path naming it in messages: a worker reads the descriptor it checked, never a path
 * that may have changed since. */
int zka_wcg_inputs_json_fd(const zka_wcg *g, int fd, const char *path, uint64_t (*in)[4], char *err,
			   size_t errlen);

/* What a job client checks before queuing an input.json job, cheaply (the graph's header and
 * input map only, no nodes): the graph at path graph exists and computes n_vars values of
 * curve, and input parses against its inputs (zka_wcg_inputs_json's checks). 0 or -errno with
 * one line in err. */
int zka_wcg_check_input(const char *graph, const char *input, const zka_curve *curve,
			uint32_t n_vars, char *err, size_t errlen);

/* Evaluates the graph: w[0 .. n_witness) receives the witness (standard form). scratch, when
 * not NULL, is zka_wcg_scratch_bytes(g) bytes, 32-byte aligned, overwritten (one per thread);
 * else one is allocated for the call. Returns 0, -EDOM when a circuit assert fails (err names
 * circom's template, line and component path; w is then partly written and must be
 * discarded), or -ENOMEM. */
int zka_wcg_eval(const zka_wcg *g, const uint64_t (*in)[4], uint64_t (*w)[4], void *scratch,
		 char *err, size_t errlen);

#endif

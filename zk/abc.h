/* abc.h - synthesis at memory speed: a = A w, b = B w (and, for one-shot provers, c = a .* b)
 * from a key's A and B matrices in compressed sparse rows, by several threads over blocks of
 * rows. The pipeline's slots hold a and b only, in standard form: the GPU converts them and
 * computes c on the device (128 MiB less to write and to copy per 2^22 job, and no Montgomery
 * conversion of the witness on the host), the CPU backend with zka_abc_from_slot.
 *
 * Forms. The row loop is Montgomery arithmetic over bytes: a product of x and y gives
 * x y R^-1, sums are sums. Given the witness in Montgomery form (w R) it yields a, b in
 * Montgomery form; given the same witness in standard form (w) every term, and so every row
 * sum, comes out divided by R: a, b in standard form, from the same operations on the same
 * coefficients (the 0/1 shortcuts are identities: a product with the Montgomery form of 1 is
 * the other factor either way). The one exception is a class-1 term of the class map, which
 * adds its coefficient without a product: in standard form it must add the coefficient's
 * standard form (zka_abc_values_std). c = a .* b is only made in Montgomery form.
 *
 * Objects
 *   zka_abc    the A and B matrices of one key in row order. For matrix k (0 = A, 1 = B) the
 *              terms of row i are term[k][start[k][i] .. start[k][i+1]), each a pair {column,
 *              value index}; val holds the distinct coefficient values in Montgomery form with
 *              val[0] = 1 and val[1] = -1, which the inner loop adds or subtracts without a
 *              product (circom's coefficients are mostly those two). Built once per key by
 *              zka_abc_build (at load; the pipeline stores it in the params region) and read,
 *              never written, by every synthesis of that key.
 *   wm         the witness as the row loop reads it, in Montgomery form or (a pipeline slot's
 *              synthesis) in standard form: the synthesis worker's scratch, allocated once and
 *              reused by every job; the slot receives the standard form (what the MSMs read)
 *              straight from the mapped .wtns.
 *   cls        the class map of wm: 2 bits per value (0: zero, 1: one, 2: any other), value j
 *              in bits 2 (j % 32) of word j / 32, ZKA_ABC_CLS_WORDS(n) words; written by the
 *              witness pass beside wm (the scratch holds both: zka_abc_scratch_cls). The row
 *              loop reads a value's class first and wm only for the others: the map is 1/128
 *              of wm and stays in the core's cache, and circom witnesses are mostly bits.
 *
 * Work division (one job, T threads): rows in blocks of ZKA_ABC_BLOCK taken from one atomic
 * counter, so a thread that drew cheap rows takes more of them. Row i's a_i, b_i and c_i are
 * written by the one thread that drew its block: no atomics, no second pass over a and b.
 * The witness pass and the satisfiability check are divided the same way; ZKA_ABC_BLOCK is a
 * multiple of 32, so each word of the class map has one writer.
 *
 * Invariants (zka_abc_build establishes them; zka_abc_check verifies them for a region that
 * another process wrote)
 *   1. start[k][0] = 0, start[k] is non-decreasing and start[k][n_rows] = nnz[k].
 *   2. Every column is < n_cols and every value index < n_vals; n_vals >= 2, val[0] = 1 and
 *      val[1] = -1, every val is canonical (< r) and nonzero.
 *   3. No term has a zero value (dropped at build: it adds nothing).
 *   4. zka_abc_compute's a, b, c equal zka_compute_abc's byte for byte, for any thread count
 *      (in standard form: a, b equal them once converted to Montgomery form): field sums are
 *      exact and canonical, so neither the order of a row's terms nor the merging of repeated
 *      (row, column) terms changes a value.
 */
#ifndef ZKA_ABC_H
#define ZKA_ABC_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"
#include "zk/r1cs.h"

/* Tuning of the row loop (internal; zk/abc_tmpl.h reads it). Defaults are the H200
 * measurements' best (docs/synthesis.md); ZKA_ABC_AHEAD=N (rows prefetched ahead, 1-64) and
 * ZKA_ABC_GATHER=0|1 (gather each chunk's witness values before the arithmetic) override them
 * for benchmarks, read once by the first zka_abc_compute. */
struct zka__abc_tune {
	uint32_t ahead;
	int gather;
	int classes; /* ZKA_ABC_CLASSES=0|1: use the class map when one is given (default 1) */
};
extern struct zka__abc_tune zka__abc_tune;

/* Rows per block of work. 4096 rows of a 2^22 key are ~0.1% of the job, small enough to
 * balance 16 threads and large enough that the counter is touched ~1000 times a job. */
#define ZKA_ABC_BLOCK 4096u

typedef struct zka_abc {
	const zka_curve *curve;
	uint32_t n_rows; /* the key's domain_size */
	uint32_t n_cols; /* the key's n_vars */
	uint32_t n_vals;
	uint64_t nnz[2];
	uint32_t *start[2];	/* n_rows + 1 entries each */
	uint32_t (*term[2])[2]; /* {column, value index}, nnz[k] entries */
	uint64_t (*val)[4];	/* n_vals entries, Montgomery form */
	int owned;		/* 1: the buffers are malloc'd and zka_abc_free frees them */
} zka_abc;

/* Builds the CSR form of pk's coefficient list. Checks each coefficient (matrix 0 or 1, row
 * < domain_size, signal < n_vars, value < r); on a bad one returns -EINVAL with "coefficient
 * N: problem" in err. Returns 0, -EINVAL or -ENOMEM; on error m owns nothing. */
int zka_abc_build(const zka_pk *pk, zka_abc *m, char *err, size_t errlen);

/* Verifies invariants 1-2 of m (for matrices read from shared memory). Returns 0 or -EBADMSG
 * with the first violation in err. */
int zka_abc_check(const zka_abc *m, char *err, size_t errlen);

/* Frees an owned m and zeroes it (a borrowed one is only zeroed). Safe on a zeroed m. */
void zka_abc_free(zka_abc *m);

/* Words of the class map of n values. */
#define ZKA_ABC_CLS_WORDS(n) (((size_t)(n) + 31) / 32)

/* Maps the .wtns at path, validates it as zka_wtns_read does (container, n8 = 32, the prime of
 * curve c, exactly n values, each < r, w[0] = 1) and writes its values in standard form into
 * w_std and into wm (n entries each; std 0: in Montgomery form, 1: in standard form), and
 * their classes into cls (when not NULL), with threads threads (0: one per online CPU).
 * Returns 0 or -errno with a "path: problem" line in err; the buffers' contents are
 * unspecified on error. */
int zka_abc_witness(const char *path, const zka_curve *c, uint32_t n, uint64_t (*w_std)[4],
		    uint64_t (*wm)[4], uint64_t *cls, int std, int threads, char *err,
		    size_t errlen);

/* The same from values in memory (standard form, n = m->n_cols entries): checks each value and
 * writes wm (and cls); wm = cls = NULL: only checks (a slot that holds only the witness).
 * Returns 0, or 1 + the index of the first value that is not below r. */
int64_t zka_abc_witness_mem(const zka_curve *c, const uint64_t (*w_std)[4], uint32_t n,
			    uint64_t (*wm)[4], uint64_t *cls, int std, int threads);

/* a = A wm, b = B wm and, when c is not NULL, c = a .* b (n_rows entries each) with threads
 * threads (0: one per online CPU). cls: wm's class map from the witness pass, or NULL (every
 * value read from wm); the results are the same. val_std NULL: wm and a, b, c in Montgomery
 * form; val_std = zka_abc_values_std(m): wm and a, b in standard form, and c must be NULL.
 * Returns 0 or -EINVAL (no curve, or c with val_std). */
int zka_abc_compute(const zka_abc *m, const uint64_t (*wm)[4], const uint64_t *cls,
		    const uint64_t (*val_std)[4], uint64_t (*a)[4], uint64_t (*b)[4],
		    uint64_t (*c)[4], int threads);

/* m's coefficient values in standard form (n_vals entries; malloc'd, the caller frees), for
 * zka_abc_compute's standard form. NULL when out of memory. */
uint64_t (*zka_abc_values_std(const zka_abc *m))[4];

/* The satisfiability check on a computed job: for every constraint i of cs, a_i b_i (a and b
 * from the key's A and B, as the slot holds them) must equal <C_i, w>. wm is the witness
 * (n_wires entries); std 0: wm, a, b in Montgomery form, 1: in standard form. Returns 0 when
 * all hold, 1 with *first_failing = the lowest failing constraint, -EINVAL when cs does not
 * fit (other curve, more constraints than rows, other wire count). */
int zka_abc_check_ab(const zka_r1cs *cs, const zka_abc *m, const uint64_t (*a)[4],
		     const uint64_t (*b)[4], const uint64_t (*wm)[4], int std, int threads,
		     uint32_t *first_failing);

/* A slot's a and b (standard form, n values each; only read) into out's a, b and c = a .* b in
 * Montgomery form (out: 3 n entries; it may be a itself when b = a + n), with threads threads:
 * what a prover that works on the host needs from a slot. Returns 0 or -EINVAL (no curve). */
int zka_abc_from_slot(const zka_curve *c, const uint64_t (*a)[4], const uint64_t (*b)[4],
		      uint64_t (*out)[4], uint32_t n, int threads);

/* out = a .* b (n Montgomery values each; out written, a and b only read), with threads
 * threads.
 * Returns 0 or -EINVAL (no curve). */
int zka_abc_product(const zka_curve *c, const uint64_t (*a)[4], const uint64_t (*b)[4],
		    uint64_t (*out)[4], uint32_t n, int threads);

/* A witness scratch of n Montgomery values followed by their class map (the wm and cls of the
 * functions above), whose pages the kernel is asked to back with transparent huge pages
 * (madvise MADV_HUGEPAGE, 2 MiB aligned): the row loop reads it at random, and with 4 KiB pages
 * nearly every term of a 2^22 job is also a TLB miss. Where huge pages are refused the memory
 * is ordinary pages (same results). Returns NULL when out of memory; free with
 * zka_abc_scratch_free(p, n). */
uint64_t (*zka_abc_scratch(size_t n))[4];
void zka_abc_scratch_free(uint64_t (*p)[4], size_t n);
/* The class map that follows the n values of a zka_abc_scratch (ZKA_ABC_CLS_WORDS(n) words). */
uint64_t *zka_abc_scratch_cls(uint64_t (*wm)[4], size_t n);
/* Makes *wm a zka_abc_scratch of at least n values (*cap: its size, 0 for none): kept when
 * large enough, else freed and replaced (the old contents are not kept). 0, or -ENOMEM with
 * *wm NULL and *cap 0. */
int zka_abc_scratch_reserve(uint64_t (**wm)[4], size_t *cap, size_t n);

/* a = A w, b = B w and, when c is not NULL, c = a .* b, in Montgomery form, from the witness w
 * in standard form (m->n_cols values, only read) through wm, a zka_abc_scratch of m->n_cols
 * values: the witness pass (each value checked), then zka_abc_compute. Returns 0, 1 + the
 * index of the first value of w not below r (a, b, c unspecified), or -EINVAL. */
int64_t zka_abc_compute_w(const zka_abc *m, const uint64_t (*w)[4], uint64_t (*wm)[4],
			  uint64_t (*a)[4], uint64_t (*b)[4], uint64_t (*c)[4], int threads);

/* zka_compute_abc through the CSR path: builds the matrices, converts w, computes. For one-shot
 * provers; o->threads as in zka_prove_opts. Returns 0 or -errno. */
int zka_abc_compute_pk(const zka_pk *pk, const zka_witness *w, uint64_t (*a)[4], uint64_t (*b)[4],
		       uint64_t (*c)[4], const zka_prove_opts *o);

#endif

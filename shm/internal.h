/* internal.h - the arena's in-memory layout and internal helpers (shm/ only). */
#ifndef ZKA_SHM_INTERNAL_H
#define ZKA_SHM_INTERNAL_H

#include "shm/zka_arena.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ZKA_MAGIC 0x314e4552414b5a7fULL /* "\x7fZKAREN1" little-endian */
/* 2: retention, output identity, proof attempts, quarantine; 3: priority; 4: slots without c;
 * 5: a slot's a and b in standard form (synth/slot_layout.h) */
/* 6: job records carry t_witness_end */
/* 7: the LEASED job state (external producers, libzkarena) */
#define ZKA_VERSION 8u /* 8: group arenas keep the slots in an owner-only object; acct_uid */
#define ZKA_HDR_BYTES 4096u
#define ZKA_MAX_OWNERS 4094u /* owner index 0xFFF means "none" */
#define ZKA_MAX_INDEX 0xFFFFFEu
#define ZKA_SYS_RINGS 4u
#define ZKA_MAX_USER_RINGS 8u

/* ---- packed 64-bit state words ----
 * slot: state:4 | owner:12 | job:24  | gen:24
 * job:  state:4 | owner:12 | slot:24 | attempts:8 | gen:16
 * circuit: state:4 | owner:12 | gen:48
 * owner entry: pid:22 | start:42 (0 = empty); start is clock ticks after boot. */
#define ZKA_OWNER_NONE 0xFFFu
static inline uint32_t w_state(uint64_t w)
{
	return (uint32_t)(w & 0xF);
}
static inline uint32_t w_owner(uint64_t w)
{
	return (uint32_t)((w >> 4) & 0xFFF);
}
static inline uint32_t w_link(uint64_t w)
{
	return (uint32_t)((w >> 16) & 0xFFFFFF);
}
static inline uint32_t w_slot_gen(uint64_t w)
{
	return (uint32_t)(w >> 40);
}
static inline uint32_t w_job_attempts(uint64_t w)
{
	return (uint32_t)((w >> 40) & 0xFF);
}
static inline uint32_t w_job_gen(uint64_t w)
{
	return (uint32_t)(w >> 48);
}
static inline uint64_t w_slot(uint32_t st, uint32_t owner, uint32_t job, uint32_t gen)
{
	return (uint64_t)st | (uint64_t)(owner & 0xFFF) << 4 | (uint64_t)(job & 0xFFFFFF) << 16 |
	       (uint64_t)(gen & 0xFFFFFF) << 40;
}
static inline uint64_t w_job(uint32_t st, uint32_t owner, uint32_t slot, uint32_t att,
			     uint32_t gen)
{
	return (uint64_t)st | (uint64_t)(owner & 0xFFF) << 4 | (uint64_t)(slot & 0xFFFFFF) << 16 |
	       (uint64_t)(att & 0xFF) << 40 | (uint64_t)(gen & 0xFFFF) << 48;
}
static inline uint64_t w_owner_ident(pid_t pid, uint64_t start)
{
	return (uint64_t)(uint32_t)pid | (start & ((1ULL << 42) - 1)) << 22;
}

/* ---- shared layout ---- */
/* The checksummed, immutable part of the header. */
struct zka__geom {
	uint64_t magic;
	uint32_t version, hdr_bytes;
	uint32_t nslots, njobs, nowners, ncircuits;
	uint32_t max_attempts, nrings, user_ring_cap;
	int32_t numa_node;
	uint32_t retention_s; /* finished records kept this long (issue 19) */
	uint32_t flags;	      /* ZKA_GEOM_* */
	uint64_t slot_bytes, slot_stride, total_bytes;
	uint64_t owners_off, circuits_off, jobs_off, slots_off, rings_off[ZKA_SYS_RINGS + ZKA_MAX_USER_RINGS];
	uint64_t ring_cap[ZKA_SYS_RINGS + ZKA_MAX_USER_RINGS];
	uint64_t data_off;
	int64_t epoch_ns;
	uint64_t checksum; /* XXH64 of every field above, seed ZKA_MAGIC */
};

/* geometry flags: SPLIT, the slot data [data_off, total_bytes) is not in the arena object but in
 * the owner-only object "/zkarena-NAME+slots" (a --group arena: its members never map it) */
#define ZKA_GEOM_SPLIT 1u

struct zka__hdr {
	struct zka__geom g;
	char pad0[512 - sizeof(struct zka__geom)];
	pthread_mutex_t recover_mu; /* robust, process-shared: one recoverer at a time */
	_Atomic uint64_t next_serial;
	_Atomic uint64_t counters[ZKA_C_COUNT];
	_Atomic uint64_t into_slot_state[8], into_job_state[16]; /* cumulative transitions */
};

struct zka__ring {
	pthread_mutex_t mu; /* robust, process-shared; held for every push/pop/repair */
	_Atomic uint32_t head, tail;          /* free-running; entries are cells[head..tail) */
	_Atomic uint32_t nonempty_seq, nonfull_seq; /* futex words, bumped under mu */
	_Atomic uint32_t pop_waiters, push_waiters; /* counted under mu, decremented after wait */
	char pad[64];
	_Atomic uint32_t cells[];
};

struct zka__slot {
	_Atomic uint64_t word;
	_Atomic uint64_t data_off, data_size; /* written at create; validated against geometry */
	_Atomic uint64_t used_bytes;
	/* what the data holds (ZKA_SLOT_FORM_*): set by synthesis while WRITING, reset at
	 * acquire; 0 in every arena made before the field existed (a, b and w: no layout change) */
	_Atomic uint32_t form;
	char pad[28];
};

struct zka__job {
	_Atomic uint64_t word;
	_Atomic uint32_t done_seq; /* futex: bumped (and woken) when the job becomes DONE/FAILED */
	_Atomic uint32_t waiters;
	_Atomic uint64_t serial;
	_Atomic uint64_t user_tag;
	_Atomic uint32_t circuit, max_attempts, synth_count;
	_Atomic uint32_t cancel; /* 1: a client asked to cancel (see zka_job_cancel) */
	_Atomic int64_t t_submit, t_synth_start, t_synth_end, t_prove_start, t_prove_end;
	_Atomic int64_t t_witness_end; /* the witness in the slot, within synthesis (0: not yet) */
	char witness_path[ZKA_PATH_MAX];
	char out_dir[ZKA_PATH_MAX];
	char reason[ZKA_REASON_MAX];
	/* issue 19: the output directory's identity and the submitter, recorded at submit */
	_Atomic uint64_t out_dev, out_ino;
	_Atomic uint32_t sub_uid, sub_gid;
	_Atomic uint32_t expired;     /* 1: freed by retention (serial kept until reuse) */
	_Atomic uint32_t prove_count; /* proof attempts started (take_ready) */
	struct zka__attempt {
		_Atomic uint32_t n; /* attempt number (1-based), 0: unused entry */
		_Atomic int32_t pid;
		_Atomic int64_t t_start, t_end;
	} prove_log[ZKA_ATTEMPT_LOG];
	_Atomic int32_t priority; /* issue 20: higher is served first (see zka__pick_job) */
	_Atomic uint32_t acct_uid; /* who the job counts against (zka__job_account) */
};

struct zka__circuit {
	_Atomic uint64_t word;
	_Atomic uint64_t key_size, header_hash;
	_Atomic int64_t key_mtime_ns;
	char key_path[ZKA_PATH_MAX];
	char params_shm[ZKA_SHM_NAME_MAX];
};

/* ---- the per-process handle ---- */
struct zka_arena {
	unsigned char *base;
	uint64_t size;
	struct zka__geom g; /* private copy of the validated geometry: never re-read */
	int flags;
	pid_t owner_pid;    /* the pid owner_idx was registered for */
	uint32_t owner_idx; /* ZKA_OWNER_NONE until registered */
	uint32_t obj_uid, obj_gid, obj_mode; /* the shm object's, from fstat at open/create */
	char name[ZKA_NAME_MAX + 1];
	int32_t priority; /* the priority of jobs submitted with spec priority 0 */
	struct zka_user_limits lim; /* per-user limits this process's picks obey (workers) */
	int data_mapped;   /* the slot data is mapped (not so for a group arena's members) */
	uint32_t acct_uid; /* zka_arena_set_account: jobs submitted on behalf of (or NONE) */
};

uint32_t zka__job_account(const struct zka_arena *a, struct zka__job *J);

static inline struct zka__hdr *hdr(const struct zka_arena *a)
{
	return (struct zka__hdr *)a->base;
}
static inline _Atomic uint64_t *owners(const struct zka_arena *a)
{
	return (_Atomic uint64_t *)(a->base + a->g.owners_off);
}
static inline struct zka__job *job_rec(const struct zka_arena *a, uint32_t i)
{
	return (struct zka__job *)(a->base + a->g.jobs_off) + i;
}
static inline struct zka__slot *slot_rec(const struct zka_arena *a, uint32_t i)
{
	return (struct zka__slot *)(a->base + a->g.slots_off) + i;
}
static inline struct zka__circuit *circ_rec(const struct zka_arena *a, uint32_t i)
{
	return (struct zka__circuit *)(a->base + a->g.circuits_off) + i;
}
static inline struct zka__ring *ring_at(const struct zka_arena *a, int r)
{
	return (struct zka__ring *)(a->base + a->g.rings_off[r]);
}

/* Counters are statistics: relaxed increments, no ordering with anything. */
static inline void cnt(struct zka_arena *a, int c, uint64_t n)
{
	if (!(a->flags & ZKA_OPEN_RDONLY))
		atomic_fetch_add_explicit(&hdr(a)->counters[c], n, memory_order_relaxed);
}

int64_t zka__now_ns(void);
/* Registers this process (pid may have changed after fork) and returns its owner index. */
int zka__self(struct zka_arena *a, uint32_t *idx);
/* 1 alive, 0 dead/empty, for the owner entry idx (reads /proc/PID/stat). */
int zka__owner_alive(const struct zka_arena *a, uint32_t idx);
int zka__proc_start(pid_t pid, uint64_t *start, char *state);
void zka__owner_info(const struct zka_arena *a, uint32_t idx, struct zka_owner_info *o);

/* Fault points: ZKA_FAULT(name) stops or kills this process at the armed step. */
extern int zka__fault_armed;
void zka__fault_hit(const char *step);
#define ZKA_FAULT(step)                                                                            \
	do {                                                                                       \
		if (zka__fault_armed)                                                              \
			zka__fault_hit(step);                                                      \
	} while (0)

/* Futex helpers on shared (non-private) words. */
int zka__futex_wait(_Atomic uint32_t *w, uint32_t val, const struct timespec *abs_mono);
int zka__futex_wake(_Atomic uint32_t *w, int n);
void zka__deadline(struct timespec *ts, int timeout_ms);

/* Ring core (ring.c). A bound ring's callbacks run under the ring's mutex:
 * enter(idx) performs the CAS that moves record idx into the ring's state (push);
 * leave(idx) performs the CAS that moves it out (pop) and returns -EAGAIN for a stale entry. */
struct zka__ring_ops {
	int (*enter)(struct zka_arena *a, uint32_t idx, void *ctx);
	int (*leave)(struct zka_arena *a, uint32_t idx, void *ctx);
	void *ctx;
	/* pop only: called under the ring's mutex with the n >= 1 entries from the head; returns
	 * the position (< n) of the entry to pop, which is swapped into the head cell first */
	uint32_t (*pick)(struct zka_arena *a, const _Atomic uint32_t *cells, uint32_t head,
			 uint32_t n, uint32_t cap);
};
int zka__ring_push(struct zka_arena *a, int r, uint32_t idx, int timeout_ms,
		   const struct zka__ring_ops *ops);
int zka__ring_pop(struct zka_arena *a, int r, uint32_t *idx, int timeout_ms,
		  const struct zka__ring_ops *ops);
/* The submitted ring's pick: the job of the highest effective priority (table.c). */
uint32_t zka__pick_job(struct zka_arena *a, const _Atomic uint32_t *cells, uint32_t head,
		       uint32_t n, uint32_t cap);
/* Wakes every waiter of every ring (after recovery). */
void zka__ring_kick_all(struct zka_arena *a);
int zka__ring_init(pthread_mutex_t *mu);
/* Locks a robust mutex with a deadline; on EOWNERDEAD marks it consistent and returns 1. */
int zka__robust_lock(pthread_mutex_t *mu, int timeout_ms);
/* Table size and the "in ring" state of a system ring. */
uint32_t zka__ring_table_n(const struct zka_arena *a, int r);
int zka__ring_member(const struct zka_arena *a, int r, uint32_t idx);

#endif

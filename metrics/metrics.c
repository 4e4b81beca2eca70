/* metrics.c - Prometheus metrics of one arena: the text exposition format (version 0.0.4) on
 * GET /metrics, served by libmicrohttpd's own thread inside `zkarena run --metrics HOST:PORT`.
 *
 * ==== Design notes ====
 *
 * Where the values come from. Nothing in the arena or the daemons is changed for the metrics:
 *   - the arena's counters (zka_arena_counter): jobs submitted/done/failed, records recovered;
 *   - a table scan at each scrape: slots per state, ring depths;
 *   - the gpuds' status files (shm/zka_gpud_status.h, written once a second by each gpud): per gpud
 *     busy ratio of the last minute, proofs, bytes copied into the prover, keys resident and
 *     their bytes, whether it is running;
 *   - the collector thread: every 250 ms it scans the job table and, for each record that is
 *     DONE or FAILED with an id it has not seen at that index, observes it once: the stage
 *     histograms of DONE jobs per circuit, attempts, cancellations. A job submitted, finished
 *     and released between two scans (under 250 ms) is missed by the histograms (the arena's
 *     counters still count it); jobs already finished when the collector starts are observed
 *     at its first scan;
 *   - the supervisor: restarts of the processes it runs (zka_metrics_restart).
 *
 * Families (names and units per the Prometheus conventions: zkarena_ prefix, base units,
 * _seconds, _bytes, _total for counters, labels for dimensions):
 *   zkarena_job_{queue,synthesis,ready_wait,prove,end_to_end,witness}_seconds{circuit}   histograms
 *   zkarena_jobs_{submitted,done,failed}_total, zkarena_jobs_cancelled_total,
 *   zkarena_job_attempts_total, zkarena_recoveries_total,
 *   zkarena_process_restarts_total{process}                                   counters
 *   zkarena_slots{state}, zkarena_ring_depth{ring}                             gauges
 *   zkarena_gpud_up, zkarena_gpu_busy_ratio, zkarena_keys_resident,
 *   zkarena_keys_resident_bytes {gpud,device}                                 gauges
 *   zkarena_proofs_total, zkarena_device_copied_bytes_total {gpud,device}     counters
 *   zkarena_gpu_memory_used_bytes, zkarena_gpu_memory_total_bytes {gpud,device} gauges
 * The per-gpud counters restart from 0 with a restarted gpud (a counter reset, which
 * Prometheus's rate() handles). Device memory (cudaMemGetInfo on the gpud's device: every
 * process's allocations, the "counters:" line's mem_used and mem_total) is exported for the
 * running gpuds whose backend has a device (cuda) only: a cpu gpud has none, and when no gpud
 * has one the two families are left out altogether.
 *
 * Concurrency: one mutex guards the collector's state; a scrape renders under it. The arena
 * handle is shared with the supervisor's thread (the arena API is thread-safe). */
#include "metrics/zka_metrics.h"

#include "shm/zka_arena.h"
#include "shm/zka_gpud_status.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBUCKETS 15
static const double buckets[NBUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
					 2.5,	5,    10,    30,   60,	120,  300};
enum { ST_QUEUE, ST_SYNTH, ST_WAIT, ST_PROVE, ST_E2E, ST_WITNESS, ST_N };
static const char *const stage_name[ST_N] = {"queue", "synthesis",  "ready_wait",
					     "prove", "end_to_end", "witness"};
static const char *const stage_help[ST_N] = {
    "Time from submission to the start of synthesis",
    "Time of synthesis (witness to a and b in a slot)",
    "Time from the slot READY to the start of its proof",
    "Time of the proof on the gpud",
    "Time from submission to the proof written",
    "Time of the witness in its slot (a .wtns read, or computed from input.json), within synthesis",
};
#define CIRCUITS 256

struct hist {
	uint64_t count[NBUCKETS + 1]; /* last: +Inf only */
	uint64_t n;
	double sum;
};

struct zka_metrics {
	struct zka_arena *a;
	char name[ZKA_NAME_MAX + 1];
	struct MHD_Daemon *httpd;
	pthread_t th;
	int running, stop;
	pthread_mutex_t mu; /* guards everything below */
	uint64_t *seen;	    /* per job index: the id last observed there */
	uint32_t njobs;
	struct hist h[CIRCUITS][ST_N];
	char circuit[CIRCUITS][128]; /* label: the key file's name; "" unused */
	uint64_t attempts, cancelled, restarts_gpud, restarts_worker;
};

int zka_metrics_parse_addr(const char *addr, unsigned *ip, unsigned short *port, char *err,
			   size_t errlen)
{
	char host[64];
	const char *c = strrchr(addr, ':');
	if (!c || c == addr || (size_t)(c - addr) >= sizeof host) {
		snprintf(err, errlen, "'%s' is not HOST:PORT (e.g. 127.0.0.1:9464)", addr);
		return -EINVAL;
	}
	memcpy(host, addr, (size_t)(c - addr));
	host[c - addr] = 0;
	struct in_addr in;
	if (inet_pton(AF_INET, host, &in) != 1) {
		snprintf(err, errlen, "'%s': '%s' is not an IPv4 address", addr, host);
		return -EINVAL;
	}
	char *end;
	errno = 0;
	long p = strtol(c + 1, &end, 10);
	if (errno || end == c + 1 || *end || p < 1 || p > 65535) {
		snprintf(err, errlen, "'%s': the port '%s' is not in 1..65535", addr, c + 1);
		return -EINVAL;
	}
	*ip = in.s_addr;
	*port = (unsigned short)p;
	return 0;
}

static void observe(struct hist *h, double v)
{
	int i = 0;
	while (i < NBUCKETS && v > buckets[i])
		i++;
	h->count[i]++;
	h->n++;
	h->sum += v;
}

static double span(int64_t a, int64_t b)
{
	return b >= a ? (double)(b - a) * 1e-9 : 0;
}

/* One scan of the job table: observes each newly terminal record once. */
static void collect(zka_metrics *m)
{
	for (uint32_t j = 0; j < m->njobs; j++) {
		struct zka_job_info ji;
		if (zka_job_info(m->a, j, &ji) ||
		    (ji.state != ZKA_JOB_DONE && ji.state != ZKA_JOB_FAILED))
			continue;
		pthread_mutex_lock(&m->mu);
		if (m->seen[j] == ji.id) {
			pthread_mutex_unlock(&m->mu);
			continue;
		}
		m->seen[j] = ji.id;
		m->attempts += ji.attempts + 1;
		if (ji.state == ZKA_JOB_FAILED && !strcmp(ji.reason, "cancelled"))
			m->cancelled++;
		uint32_t c = ji.circuit;
		if (ji.state == ZKA_JOB_DONE && c < CIRCUITS) {
			if (!m->circuit[c][0]) {
				struct zka_circuit_info ci;
				const char *base = NULL;
				if (zka_circuit_info(m->a, c, &ci) == 0) {
					base = strrchr(ci.key_path, '/');
					base = base ? base + 1 : ci.key_path;
				}
				snprintf(m->circuit[c], sizeof m->circuit[c], "%.127s",
					 base && *base ? base : "unknown");
			}
			struct hist *h = m->h[c];
			observe(&h[ST_QUEUE], span(ji.t_submit, ji.t_synth_start));
			observe(&h[ST_SYNTH], span(ji.t_synth_start, ji.t_synth_end));
			observe(&h[ST_WAIT], span(ji.t_synth_end, ji.t_prove_start));
			observe(&h[ST_PROVE], span(ji.t_prove_start, ji.t_prove_end));
			observe(&h[ST_E2E], span(ji.t_submit, ji.t_prove_end));
			if (ji.t_witness_end) /* a job that failed before its witness has none */
				observe(&h[ST_WITNESS], span(ji.t_synth_start, ji.t_witness_end));
		}
		pthread_mutex_unlock(&m->mu);
	}
}

static void *collector(void *arg)
{
	zka_metrics *m = arg;
	for (;;) {
		pthread_mutex_lock(&m->mu);
		int stop = m->stop;
		pthread_mutex_unlock(&m->mu);
		if (stop)
			break;
		collect(m);
		struct timespec ts = {0, 250 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* A growing text buffer; on allocation failure it keeps failing (ok = 0). */
struct buf {
	char *p;
	size_t len, cap;
	int ok;
};

static void put(struct buf *b, const char *fmt, ...)
{
	if (!b->ok)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->ok = 0;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap * 2 + (size_t)n + 1;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->ok = 0;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Label values: backslash, double quote and newline escaped. */
static void label_value(char *out, size_t n, const char *s)
{
	size_t k = 0;
	for (; *s && k + 3 < n; s++) {
		if (*s == '\\' || *s == '"')
			out[k++] = '\\', out[k++] = *s;
		else if (*s == '\n')
			out[k++] = '\\', out[k++] = 'n';
		else
			out[k++] = *s;
	}
	out[k] = 0;
}

int zka_metrics_render(zka_metrics *m, char **text, size_t *len)
{
	struct buf b = {.p = malloc(16384), .cap = 16384, .ok = 1};
	if (!b.p)
		return -ENOMEM;
	b.p[0] = 0;
	static const struct {
		int c;
		const char *name, *help;
	} ctr[] = {
	    {ZKA_C_JOBS_SUBMITTED, "zkarena_jobs_submitted_total", "Jobs submitted"},
	    {ZKA_C_JOBS_DONE, "zkarena_jobs_done_total", "Jobs finished with a proof"},
	    {ZKA_C_JOBS_FAILED, "zkarena_jobs_failed_total",
	     "Jobs failed (bad input, attempts exhausted, cancelled)"},
	    {ZKA_C_RECOVERED, "zkarena_recoveries_total",
	     "Records of dead processes put back by recovery"},
	};
	for (size_t i = 0; i < sizeof ctr / sizeof ctr[0]; i++) {
		family(&b, ctr[i].name, "counter", ctr[i].help);
		put(&b, "%s %llu\n", ctr[i].name,
		    (unsigned long long)zka_arena_counter(m->a, ctr[i].c));
	}
	pthread_mutex_lock(&m->mu);
	family(&b, "zkarena_jobs_cancelled_total", "counter",
	       "Jobs that ended cancelled (observed by the collector)");
	put(&b, "zkarena_jobs_cancelled_total %llu\n", (unsigned long long)m->cancelled);
	family(&b, "zkarena_job_attempts_total", "counter",
	       "Attempts of finished jobs (observed by the collector)");
	put(&b, "zkarena_job_attempts_total %llu\n", (unsigned long long)m->attempts);
	family(&b, "zkarena_process_restarts_total", "counter",
	       "Supervised processes restarted by zkarena run");
	put(&b, "zkarena_process_restarts_total{process=\"gpud\"} %llu\n",
	    (unsigned long long)m->restarts_gpud);
	put(&b, "zkarena_process_restarts_total{process=\"worker\"} %llu\n",
	    (unsigned long long)m->restarts_worker);
	for (int s = 0; s < ST_N; s++) {
		char fam[64];
		snprintf(fam, sizeof fam, "zkarena_job_%s_seconds", stage_name[s]);
		family(&b, fam, "histogram", stage_help[s]);
		for (int c = 0; c < CIRCUITS; c++) {
			if (!m->circuit[c][0])
				continue;
			char lv[300];
			label_value(lv, sizeof lv, m->circuit[c]);
			const struct hist *h = &m->h[c][s];
			uint64_t cum = 0;
			for (int i = 0; i < NBUCKETS; i++) {
				cum += h->count[i];
				put(&b, "%s_bucket{circuit=\"%s\",le=\"%g\"} %llu\n", fam, lv,
				    buckets[i], (unsigned long long)cum);
			}
			put(&b, "%s_bucket{circuit=\"%s\",le=\"+Inf\"} %llu\n", fam, lv,
			    (unsigned long long)h->n);
			put(&b, "%s_sum{circuit=\"%s\"} %.9f\n", fam, lv, h->sum);
			put(&b, "%s_count{circuit=\"%s\"} %llu\n", fam, lv,
			    (unsigned long long)h->n);
		}
	}
	pthread_mutex_unlock(&m->mu);

	struct zka_arena_geometry g;
	zka_arena_geometry(m->a, &g);
	unsigned per[8] = {0};
	for (uint32_t s = 0; s < g.nslots; s++) {
		struct zka_slot_info si;
		if (zka_slot_info(m->a, s, &si) == 0 && si.state >= 0 && si.state < 8)
			per[si.state]++;
	}
	family(&b, "zkarena_slots", "gauge", "Slots per state");
	static const int sst[] = {ZKA_SLOT_FREE, ZKA_SLOT_WRITING, ZKA_SLOT_READY,
				  ZKA_SLOT_PROVING};
	for (size_t i = 0; i < sizeof sst / sizeof sst[0]; i++)
		put(&b, "zkarena_slots{state=\"%s\"} %u\n", zka_slot_state_name(sst[i]),
		    per[sst[i]]);
	put(&b, "zkarena_slots{state=\"corrupt\"} %u\n", per[0]);
	family(&b, "zkarena_ring_depth", "gauge", "Entries in each of the arena's rings");
	for (int r = 0; r < ZKA_RING_USER0; r++) {
		int d = zka_ring_depth(m->a, r);
		put(&b, "zkarena_ring_depth{ring=\"%s\"} %d\n", zka_ring_name(r), d < 0 ? 0 : d);
	}

	struct zka_gpud_status *gs = calloc(ZKA_GPUDS_MAX, sizeof *gs);
	int ng = gs ? zka_gpud_status_read_all(m->name, gs, ZKA_GPUDS_MAX) : 0;
	static const struct {
		const char *name, *type, *help;
	} gf[] = {
	    {"zkarena_gpud_up", "gauge", "1 while the gpud's process runs"},
	    {"zkarena_gpu_busy_ratio", "gauge",
	     "Share of the last minute with a proof inside the gpud's prover"},
	    {"zkarena_keys_resident", "gauge", "Keys held on the gpud's device"},
	    {"zkarena_keys_resident_bytes", "gauge", "Bytes of the keys held on the device"},
	    {"zkarena_proofs_total", "counter", "Proofs made by the gpud (since its start)"},
	    {"zkarena_device_copied_bytes_total", "counter",
	     "Bytes of a, b and witness copied into the prover (since the gpud's start)"},
	};
	for (size_t f = 0; f < sizeof gf / sizeof gf[0]; f++) {
		family(&b, gf[f].name, gf[f].type, gf[f].help);
		for (int i = 0; i < ng; i++) {
			const struct zka_gpud_status *s = &gs[i];
			put(&b, "%s{gpud=\"%d\",device=\"%d\"} ", gf[f].name, s->id, s->device);
			switch (f) {
			case 0:
				put(&b, "%d\n", s->alive);
				break;
			case 1:
				put(&b, "%.4f\n", s->alive ? s->busy : 0.0);
				break;
			case 2:
				put(&b, "%d\n", s->alive ? s->nkeys : 0);
				break;
			case 3:
				put(&b, "%llu\n", s->alive ? s->key_bytes : 0ull);
				break;
			case 4:
				put(&b, "%llu\n", s->proofs);
				break;
			default:
				put(&b, "%llu\n", s->bytes_in);
				break;
			}
		}
	}
	/* device memory: only the running gpuds that have a device (the cuda backend) */
	int nmem = 0;
	for (int i = 0; i < ng; i++)
		nmem += gs[i].alive && gs[i].has_mem;
	static const struct {
		const char *name, *help;
	} mf[] = {
	    {"zkarena_gpu_memory_used_bytes",
	     "Device memory in use on the gpud's device (every process's allocations)"},
	    {"zkarena_gpu_memory_total_bytes", "Device memory of the gpud's device"},
	};
	for (size_t f = 0; nmem && f < sizeof mf / sizeof mf[0]; f++) {
		family(&b, mf[f].name, "gauge", mf[f].help);
		for (int i = 0; i < ng; i++)
			if (gs[i].alive && gs[i].has_mem)
				put(&b, "%s{gpud=\"%d\",device=\"%d\"} %llu\n", mf[f].name,
				    gs[i].id, gs[i].device, f ? gs[i].mem_total : gs[i].mem_used);
	}
	free(gs);
	if (!b.ok) {
		free(b.p);
		return -ENOMEM;
	}
	*text = b.p;
	*len = b.len;
	return 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **req)
{
	(void)version, (void)upload, (void)upload_len, (void)req;
	zka_metrics *m = cls;
	struct MHD_Response *resp;
	unsigned code = MHD_HTTP_OK;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char msg[] = "only GET\n";
		resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg,
						       MHD_RESPMEM_PERSISTENT);
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, "/metrics")) {
		static const char msg[] = "not found: the metrics are at /metrics\n";
		resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg,
						       MHD_RESPMEM_PERSISTENT);
		code = MHD_HTTP_NOT_FOUND;
	} else {
		char *text;
		size_t len;
		if (zka_metrics_render(m, &text, &len))
			return MHD_NO;
		resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
		if (resp)
			MHD_add_response_header(resp, "Content-Type",
						"text/plain; version=0.0.4; charset=utf-8");
		else
			free(text);
	}
	if (!resp)
		return MHD_NO;
	enum MHD_Result r = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return r;
}

void zka_metrics_restart(zka_metrics *m, const char *what)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	if (!strcmp(what, "gpud"))
		m->restarts_gpud++;
	else
		m->restarts_worker++;
	pthread_mutex_unlock(&m->mu);
}

int zka_metrics_start(zka_metrics **out, struct zka_arena *a, const char *name, const char *addr,
		      char *err, size_t errlen)
{
	unsigned ip;
	unsigned short port;
	int r = zka_metrics_parse_addr(addr, &ip, &port, err, errlen);
	if (r)
		return r;
	zka_metrics *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	m->a = a;
	snprintf(m->name, sizeof m->name, "%s", name);
	m->njobs = g.njobs;
	pthread_mutex_init(&m->mu, NULL);
	if (!(m->seen = calloc(g.njobs ? g.njobs : 1, sizeof *m->seen))) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
		goto err;
	}
	if ((r = -pthread_create(&m->th, NULL, collector, m))) {
		snprintf(err, errlen, "cannot start the collector: %s", strerror(-r));
		goto err;
	}
	m->running = 1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	sa.sin_addr.s_addr = ip;
	m->httpd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, port, NULL, NULL, answer, m,
				    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				    MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_CONNECTION_TIMEOUT,
				    10u, MHD_OPTION_END);
	if (!m->httpd) {
		r = errno ? -errno : -EADDRINUSE;
		snprintf(err, errlen, "cannot listen on %s: %s", addr, strerror(-r));
		goto err;
	}
	*out = m;
	return 0;
err:
	zka_metrics_stop(m);
	return r;
}

void zka_metrics_stop(zka_metrics *m)
{
	if (!m)
		return;
	if (m->httpd)
		MHD_stop_daemon(m->httpd);
	if (m->running) {
		pthread_mutex_lock(&m->mu);
		m->stop = 1;
		pthread_mutex_unlock(&m->mu);
		pthread_join(m->th, NULL);
	}
	pthread_mutex_destroy(&m->mu);
	free(m->seen);
	free(m);
}

/* zka_metrics.h - Prometheus metrics of one arena over HTTP (libmicrohttpd): GET /metrics.
 * metrics.c's opening comment describes the metric families and where each value comes from. */
#ifndef ZKA_METRICS_H
#define ZKA_METRICS_H

#include <stddef.h>

struct zka_arena;
typedef struct zka_metrics zka_metrics;

/* Parses "HOST:PORT" (HOST an IPv4 address, PORT 1..65535) into *ip (network order) and *port;
 * 0, or -EINVAL with err saying what is wrong. */
int zka_metrics_parse_addr(const char *addr, unsigned *ip, unsigned short *port, char *err,
			   size_t errlen);
/* Starts the collector (a thread that watches the job table every 250 ms) and the HTTP server
 * on addr for arena a, named name (a stays the caller's and must outlive the metrics).
 * Returns 0 with *out set, or -errno with err set (bad address, port in use, ...). */
int zka_metrics_start(zka_metrics **out, struct zka_arena *a, const char *name, const char *addr,
		      char *err, size_t errlen);
/* Counts a restart of a supervised process (what: "gpud" or "worker"). */
void zka_metrics_restart(zka_metrics *m, const char *what);
/* Renders the text exposition into a malloc'ed buffer (*text, *len); 0 or -ENOMEM. */
int zka_metrics_render(zka_metrics *m, char **text, size_t *len);
/* Stops the server and the collector and frees m. NULL is fine. */
void zka_metrics_stop(zka_metrics *m);

#endif

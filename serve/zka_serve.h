/* zka_serve.h - the node's HTTP/JSON job API (libmicrohttpd): submit a proof over the network,
 * its status, its proof, cancel it, the node's keys and queue. serve.c's opening comment is the
 * design note (endpoints, authentication, limits, the spool directory). */
#ifndef ZKA_SERVE_H
#define ZKA_SERVE_H

#include <stddef.h>
#include <stdint.h>

struct zka_arena;
typedef struct zka_serve zka_serve;

struct zka_serve_opts {
	const char *arena_name;
	const char *listen;	/* "HOST:PORT" (IPv4; port 0: any free one), NULL: none */
	const char *unix_path;	/* a Unix socket listener (no token needed), NULL: none */
	const char *unix_group; /* the socket's group (name or number), NULL: the server's */
	const char *token_file; /* "NAME TOKEN" lines, mode 0600; required with listen */
	const char *spool;	/* directory of the jobs' witnesses and outputs (created 0750) */
	const char *tls_cert, *tls_key; /* PEM files: HTTPS on listen; both or neither */
	uint64_t max_body;		/* bytes of one request body; 0: 256 MiB */
	uint32_t max_queue;		/* unfinished jobs before 429; 0: the job table's size */
	const char *const *keys;	/* key files the API may name besides the loaded ones */
	size_t nkeys;
};

/* Checks the options, reads the tokens (refusing a token file that the group or others may
 * read), creates the spool and starts the listeners for arena a (which stays the caller's
 * and must outlive the server). Returns 0 with *out set, or -errno with err naming the option
 * or file and the problem (nothing left running). */
int zka_serve_start(zka_serve **out, struct zka_arena *a, const struct zka_serve_opts *o, char *err,
		    size_t errlen);
/* The TCP port listened on (the one the kernel chose for port 0); 0 without a TCP listener. */
unsigned zka_serve_port(const zka_serve *s);
/* Stops the listeners (requests in progress finish first) and frees s. NULL is fine. */
void zka_serve_stop(zka_serve *s);

#endif

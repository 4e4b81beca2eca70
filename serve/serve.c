/* serve.c - the node's HTTP/JSON job API: `zkarena serve NAME` (and [http] of `zkarena run`).
 *
 * ==== Design notes ====
 *
 * Objects. The arena's job records (shm/zka_arena.h: the authority on a job's state), the job
 * client (synth/client.h: every check a submission gets, the same as `zkarena submit`), and the
 * spool directory SPOOL of this server:
 *   SPOOL/jobs/h-XXXXXX/            one per upload (mkdtemp), mode 0750
 *       witness.wtns | input.json   the request body, as received
 *       out/                        the job's output directory (proof.json, public.json)
 *       submitter                   the token name (or "uid:N" on the Unix socket), one line
 *   SPOOL/by-id/ID -> ../jobs/h-XXXXXX   written once the arena accepted the job
 * A request is one MHD connection callback sequence; its context (struct req) lives from the
 * first call to the completion callback.
 *
 * Endpoints (JSON bodies; errors are one object {"error": "...", "field": "..."}):
 *   POST   /v1/jobs?key=K[&priority=N]  body: a .wtns (application/octet-stream) or input.json
 *                                       (application/json, keys with a witness graph) -> 202
 *   GET    /v1/jobs/ID                  state, attempts, stage times, reason, submitter
 *   GET    /v1/jobs/ID/proof            {"proof": ..., "public": [...]} once DONE (else 409)
 *   POST   /v1/jobs/ID/cancel           cancel an unfinished job (409 when finished)
 *   DELETE /v1/jobs/ID                  unfinished: cancel; finished: release the record and
 *                                       remove its spool directory
 *   GET    /v1/keys, GET /v1/queue      the keys the API may name; jobs per state, own jobs
 * A key K is a loaded circuit's table index, or the path of a loaded key or of one given with
 * --key: no request makes the node open a file it was not told about.
 *
 * Request state machine (struct req, one per request):
 *   NEW --first call: authorize, route, early checks--> REFUSED (401/404/405/413/429 queued
 *       at once, the body is never read) | UPLOADING (POST /v1/jobs: spool dir and witness
 *       file created) | READING (other routes: a body is read and dropped)
 *   UPLOADING --each chunk--> UPLOADING (written; past max_body: TOO_BIG, written no more)
 *   UPLOADING --last call--> SUBMITTED (zka_client_submit accepted; by-id link written) |
 *       REFUSED (400 naming the field, 413, 429)
 *   any --completion callback (also on a client that went away)--> gone; the spool dir is
 *       removed unless SUBMITTED
 * Functions: on_request (NEW, chunks, last call), submit_finish (the last call of an upload),
 * on_completed (gone).
 *
 * Invariants:
 *   S1. No request is acted on without a valid bearer token, except on the Unix socket
 *       listener (whose file mode is the access control; the peer's uid is the submitter).
 *       Tokens are compared in constant time over their length; the token file must not be
 *       readable by group or others, and must be owned by this user.
 *   S2. A job is queued only after its whole body arrived within max_body: an upload cut short,
 *       oversized or refused leaves nothing queued and no spool directory.
 *   S3. A job's submitter is written beside it before its id is published (the by-id link);
 *       a job is shown, cancelled or released only for its own submitter.
 *   S4. Submissions are serialized (one mutex): the arena handle's priority is set per
 *       submission (zka_arena_set_priority), and the queue limit is checked under it, so at
 *       most max_queue unfinished jobs exist when only this server submits.
 *   S5. A server killed mid-upload leaves at most an unlinked-by-nobody spool directory with
 *       no by-id link: never a job. A server killed between the arena accepting a job and
 *       the link leaves a job that runs but that the API does not show (its directory stays).
 *   S6. Per-user limits: a Unix socket peer is a user of its own under the arena's [limits]
 *       (its uid, not the server's): a submission beyond user_queued is answered 429, above
 *       user_priority 403, and its jobs are recorded as counting against it
 *       (zka_arena_set_account, under the submission mutex of S4), so the workers' fair-share
 *       picks tell the socket's users apart. Token holders act for the server's user.
 */
#include "serve/zka_serve.h"

#include "config/zka_config.h"
#include "shm/zka_arena.h"
#include "synth/client.h"
#include "witness/zka_witness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_MAX_BODY (256ull << 20)

struct token {
	char name[64];
	char tok[256];
	size_t len;
};

struct zka_serve {
	struct zka_arena *a;
	char name[64];
	struct MHD_Daemon *tcp, *unx;
	int unix_fd;
	char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct token *tokens;
	size_t ntokens;
	char spool[3072];
	uint64_t max_body;
	uint32_t max_queue;
	char **keys;
	size_t nkeys;
	char *cert, *key;
	unsigned port;
	pthread_mutex_t mu; /* S4 */
};

enum { R_NEW, R_REFUSED, R_UPLOADING, R_READING, R_SUBMITTED };

struct req {
	zka_serve *s;
	int state, unix_conn;
	char who[64];
	int64_t peer_uid; /* the Unix socket peer's uid (SO_PEERCRED), -1 for a token */
	int fd;
	char dir[PATH_MAX], wpath[PATH_MAX + 16], key[PATH_MAX];
	uint64_t got;
	int too_big, io_err, prio;
};

/* ---- responses ---- */

/* Queues j (consumed) as the response with code; retry_after: a Retry-After header or NULL. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, json_t *j,
			     const char *retry_after)
{
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!text)
		return MHD_NO;
	size_t n = strlen(text);
	char *body = realloc(text, n + 2);
	if (!body) {
		free(text);
		return MHD_NO;
	}
	body[n] = '\n';
	body[n + 1] = 0;
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(n + 1, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (retry_after)
		MHD_add_response_header(r, "Retry-After", retry_after);
	if (code == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"zkarena\"");
	enum MHD_Result q = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return q;
}

/* One error object: {"error": msg, "field": field} (field left out when NULL). */
static enum MHD_Result fail(struct MHD_Connection *c, unsigned code, const char *field,
			    const char *retry_after, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum MHD_Result fail(struct MHD_Connection *c, unsigned code, const char *field,
			    const char *retry_after, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_t *j = json_object();
	json_object_set_new(j, "error", json_string(msg));
	if (field)
		json_object_set_new(j, "field", json_string(field));
	return reply(c, code, j, retry_after);
}

/* ---- tokens (S1) ---- */

/* Reads path's "NAME TOKEN" lines into s->tokens; 0, or -errno with err naming the file (and
 * line) and the problem. */
static int load_tokens(zka_serve *s, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		snprintf(err, errlen, "--token-file %s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) || st.st_uid != geteuid()) {
		if (!S_ISREG(st.st_mode))
			snprintf(err, errlen, "--token-file %s: not a regular file", path);
		else if (st.st_mode & 077)
			snprintf(err, errlen,
				 "--token-file %s: mode %04o: readable by group or others (chmod "
				 "600 it)",
				 path, (unsigned)(st.st_mode & 07777));
		else
			snprintf(err, errlen,
				 "--token-file %s: owned by uid %u, not by this user (uid %u)",
				 path, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		snprintf(err, errlen, "--token-file %s: %s", path, strerror(errno));
		return -ENOMEM;
	}
	char line[1024];
	int ln = 0, r = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		char name[128], tok[512], extra[8];
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		int n = sscanf(p, "%127s %511s %7s", name, tok, extra);
		size_t tl = n >= 2 ? strlen(tok) : 0;
		if (n != 2 || strlen(name) > 63 ||
		    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
				 "klmnopqrstuvwxyz0123456789._-") != strlen(name)) {
			snprintf(err, errlen,
				 "--token-file %s:%d: not 'NAME TOKEN' (NAME: letters, digits, . _ "
				 "-, at most 63)",
				 path, ln);
			r = -EINVAL;
			break;
		}
		if (tl < 16 || tl > 255) {
			snprintf(
			    err, errlen,
			    "--token-file %s:%d: the token of '%s' has %zu characters (16..255)",
			    path, ln, name, tl);
			r = -EINVAL;
			break;
		}
		for (size_t i = 0; i < s->ntokens && !r; i++)
			if (!strcmp(s->tokens[i].name, name) || !strcmp(s->tokens[i].tok, tok)) {
				snprintf(err, errlen, "--token-file %s:%d: '%s': %s given twice",
					 path, ln, name,
					 strcmp(s->tokens[i].name, name) ? "its token"
									 : "the name");
				r = -EINVAL;
			}
		if (r)
			break;
		struct token *t = realloc(s->tokens, (s->ntokens + 1) * sizeof *t);
		if (!t) {
			r = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			break;
		}
		s->tokens = t;
		snprintf(t[s->ntokens].name, sizeof t->name, "%s", name);
		snprintf(t[s->ntokens].tok, sizeof t->tok, "%s", tok);
		t[s->ntokens++].len = tl;
	}
	fclose(f);
	if (!r && !s->ntokens) {
		snprintf(err, errlen, "--token-file %s: no tokens ('NAME TOKEN' lines)", path);
		r = -EINVAL;
	}
	return r;
}

/* The token's name in who (1), or 0 when it matches none; every token is compared in full. */
static int token_name(const zka_serve *s, const char *tok, char *who, size_t n)
{
	size_t tl = strlen(tok);
	int found = 0;
	for (size_t i = 0; i < s->ntokens; i++) {
		const struct token *t = &s->tokens[i];
		unsigned char d = (unsigned char)(tl != t->len);
		for (size_t k = 0; k < t->len; k++)
			d |= (unsigned char)(t->tok[k] ^ (k < tl ? tok[k] : 0));
		if (!d && !found) {
			snprintf(who, n, "%s", t->name);
			found = 1;
		}
	}
	return found;
}

/* S1: sets r->who; 0, or -1 after queuing the 401. */
static int authorize(struct req *r, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	if (!h && r->unix_conn) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct ucred uc;
		socklen_t l = sizeof uc;
		if (ci && !getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &uc, &l)) {
			snprintf(r->who, sizeof r->who, "uid:%u", (unsigned)uc.uid);
			r->peer_uid = uc.uid;
			return 0;
		}
		fail(c, MHD_HTTP_UNAUTHORIZED, "Authorization", NULL,
		     "the peer's credentials are unknown: send a bearer token");
		return -1;
	}
	if (!h) {
		fail(c, MHD_HTTP_UNAUTHORIZED, "Authorization", NULL,
		     "no 'Authorization: Bearer TOKEN' header");
		return -1;
	}
	if (strncasecmp(h, "Bearer ", 7) || !token_name(r->s, h + 7, r->who, sizeof r->who)) {
		fail(c, MHD_HTTP_UNAUTHORIZED, "Authorization", NULL,
		     "the bearer token is not one of this node's");
		return -1;
	}
	return 0;
}

/* ---- keys ---- */

static int has_graph(const char *key)
{
	char gp[PATH_MAX + 8];
	zka_wcg_path(key, gp, sizeof gp);
	return access(gp, R_OK) == 0;
}

/* Resolves the key K of a request (a table index, or a known path) into path; 0 or -1. */
static int resolve_key(const zka_serve *s, const char *k, char *path, size_t n)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(s->a, &g);
	struct zka_circuit_info ci;
	if (*k && strspn(k, "0123456789") == strlen(k) && strlen(k) < 9) {
		unsigned long i = strtoul(k, NULL, 10);
		if (i < g.ncircuits && !zka_circuit_info(s->a, (uint32_t)i, &ci) &&
		    ci.state == ZKA_CIRCUIT_LOADED) {
			snprintf(path, n, "%s", ci.key_path);
			return 0;
		}
		return -1;
	}
	char rp[PATH_MAX];
	if (!realpath(k, rp))
		snprintf(rp, sizeof rp, "%s", k);
	for (size_t i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i], rp)) {
			snprintf(path, n, "%s", rp);
			return 0;
		}
	for (uint32_t i = 0; i < g.ncircuits; i++)
		if (!zka_circuit_info(s->a, i, &ci) && ci.state == ZKA_CIRCUIT_LOADED &&
		    (!strcmp(ci.key_path, k) || !strcmp(ci.key_path, rp))) {
			snprintf(path, n, "%s", ci.key_path);
			return 0;
		}
	return -1;
}

static enum MHD_Result get_keys(zka_serve *s, struct MHD_Connection *c)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(s->a, &g);
	json_t *arr = json_array();
	struct zka_circuit_info ci;
	for (uint32_t i = 0; i < g.ncircuits; i++)
		if (!zka_circuit_info(s->a, i, &ci) && ci.state == ZKA_CIRCUIT_LOADED)
			json_array_append_new(arr,
					      json_pack("{s:I,s:s,s:s,s:b}", "id", (json_int_t)i,
							"path", ci.key_path, "state", "loaded",
							"witness_graph", has_graph(ci.key_path)));
	for (size_t k = 0; k < s->nkeys; k++) {
		int loaded = 0;
		for (uint32_t i = 0; i < g.ncircuits && !loaded; i++)
			loaded = !zka_circuit_info(s->a, i, &ci) &&
				 ci.state == ZKA_CIRCUIT_LOADED && !strcmp(ci.key_path, s->keys[k]);
		if (!loaded)
			json_array_append_new(
			    arr, json_pack("{s:n,s:s,s:s,s:b}", "id", "path", s->keys[k], "state",
					   "not loaded", "witness_graph", has_graph(s->keys[k])));
	}
	return reply(c, MHD_HTTP_OK, json_pack("{s:o}", "keys", arr), NULL);
}

/* ---- jobs ---- */

static int unfinished(int st)
{
	return st == ZKA_JOB_FILLING || st == ZKA_JOB_SUBMITTED || st == ZKA_JOB_SYNTHESIZING ||
	       st == ZKA_JOB_READY || st == ZKA_JOB_PROVING;
}

/* The spool directory and submitter of job id (submitted here); 0 or -1. */
static int job_dir(const zka_serve *s, uint64_t id, char *dir, size_t n, char *who, size_t wn)
{
	char link[PATH_MAX + 64], tgt[64];
	snprintf(link, sizeof link, "%s/by-id/%llu", s->spool, (unsigned long long)id);
	ssize_t l = readlink(link, tgt, sizeof tgt - 1);
	if (l <= 0)
		return -1;
	tgt[l] = 0; /* readlink does not terminate: before any string check reads tgt */
	if (strncmp(tgt, "../jobs/h-", 10) || strchr(tgt + 8, '/'))
		return -1;
	snprintf(dir, n, "%s/%s", s->spool, tgt + 3);
	char sp[PATH_MAX + 16];
	snprintf(sp, sizeof sp, "%s/submitter", dir);
	FILE *f = fopen(sp, "re");
	if (!f)
		return -1;
	int ok = fgets(who, (int)wn, f) != NULL;
	fclose(f);
	who[strcspn(who, "\n")] = 0;
	return ok ? 0 : -1;
}

static enum MHD_Result get_queue(struct req *rq, struct MHD_Connection *c)
{
	zka_serve *s = rq->s;
	struct zka_arena_geometry g;
	zka_arena_geometry(s->a, &g);
	static const int states[] = {ZKA_JOB_SUBMITTED, ZKA_JOB_SYNTHESIZING, ZKA_JOB_READY,
				     ZKA_JOB_PROVING,	ZKA_JOB_DONE,	      ZKA_JOB_FAILED};
	unsigned cnt[16] = {0}, open = 0;
	json_t *mine = json_array();
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		char dir[PATH_MAX], who[64];
		if (zka_job_info(s->a, j, &ji) || ji.state <= 0 || ji.state >= 16)
			continue;
		cnt[ji.state]++;
		if (!unfinished(ji.state))
			continue;
		open++;
		if (!job_dir(s, ji.id, dir, sizeof dir, who, sizeof who) && !strcmp(who, rq->who)) {
			char ids[24];
			snprintf(ids, sizeof ids, "%llu", (unsigned long long)ji.id);
			json_array_append_new(mine, json_pack("{s:s,s:s,s:i}", "id", ids, "state",
							      zka_job_state_name(ji.state),
							      "priority", (int)ji.priority));
		}
	}
	json_t *counts = json_object();
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
		json_object_set_new(counts, zka_job_state_name(states[i]),
				    json_integer(cnt[states[i]]));
	return reply(c, MHD_HTTP_OK,
		     json_pack("{s:o,s:I,s:I,s:I,s:o}", "counts", counts, "unfinished",
			       (json_int_t)open, "limit", (json_int_t)s->max_queue, "slots",
			       (json_int_t)g.nslots, "jobs", mine),
		     NULL);
}

static double secs(int64_t a, int64_t b)
{
	return a && b && b >= a ? (double)(b - a) * 1e-9 : -1;
}

/* The job's record (or retained record) in ji: 0; 1 when only its done marker is left (DONE);
 * -1 when nothing is known. */
static int job_state(zka_serve *s, uint64_t id, const char *dir, struct zka_job_info *ji)
{
	if (!zka_job_info(s->a, zka_job_index(id), ji) && ji->id == id && ji->state != ZKA_JOB_FREE)
		return 0;
	if (zka_job_expired(s->a, id, ji) == 0)
		return 0;
	char out[PATH_MAX + 8], line[256];
	snprintf(out, sizeof out, "%s/out", dir);
	return zka_client_marker_read(s->a, out, id, line, sizeof line) == 1 ? 1 : -1;
}

static enum MHD_Result job_get(struct req *rq, struct MHD_Connection *c, uint64_t id,
			       const char *dir, int proof)
{
	struct zka_job_info ji;
	char ids[24];
	snprintf(ids, sizeof ids, "%llu", (unsigned long long)id);
	int k = job_state(rq->s, id, dir, &ji);
	if (k < 0)
		return fail(c, MHD_HTTP_NOT_FOUND, "id", NULL,
			    "job %s: its record expired and it left no proof", ids);
	const char *st = k ? "DONE" : zka_job_state_name(ji.state);
	if (!proof) {
		json_t *j =
		    json_pack("{s:s,s:s,s:s}", "id", ids, "state", st, "submitter", rq->who);
		if (!k) {
			json_object_set_new(j, "priority", json_integer(ji.priority));
			json_object_set_new(j, "attempts", json_integer(ji.attempts + 1));
			json_object_set_new(j, "max_attempts", json_integer(ji.max_attempts));
			json_object_set_new(
			    j, "seconds",
			    json_pack("{s:f,s:f,s:f,s:f,s:f}", "queue",
				      secs(ji.t_submit, ji.t_synth_start), "synthesis",
				      secs(ji.t_synth_start, ji.t_synth_end), "witness",
				      secs(ji.t_synth_start, ji.t_witness_end), "prove",
				      secs(ji.t_prove_start, ji.t_prove_end), "total",
				      secs(ji.t_submit, ji.t_prove_end)));
			if (ji.reason[0])
				json_object_set_new(j, "reason", json_string(ji.reason));
		}
		return reply(c, MHD_HTTP_OK, j, NULL);
	}
	if (!k && ji.state == ZKA_JOB_FAILED)
		return fail(c, MHD_HTTP_CONFLICT, "id", NULL, "job %s FAILED: %s", ids, ji.reason);
	if (!k && ji.state != ZKA_JOB_DONE)
		return fail(c, MHD_HTTP_CONFLICT, "id", "1", "job %s is %s: no proof yet", ids, st);
	char p[PATH_MAX + 32];
	json_error_t je;
	snprintf(p, sizeof p, "%s/out/proof.json", dir);
	json_t *pf = json_load_file(p, 0, &je);
	snprintf(p, sizeof p, "%s/out/public.json", dir);
	json_t *pub = json_load_file(p, 0, &je);
	if (!pf || !pub) {
		json_decref(pf);
		json_decref(pub);
		return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL,
			    "job %s is DONE but its proof files cannot be read", ids);
	}
	return reply(c, MHD_HTTP_OK,
		     json_pack("{s:s,s:o,s:o}", "id", ids, "proof", pf, "public", pub), NULL);
}

/* Removes a spool directory (its files, out/ and its files); best effort. */
static void remove_dir(const char *dir)
{
	char out[PATH_MAX + 8];
	snprintf(out, sizeof out, "%s/out", dir);
	const char *dirs[2] = {out, dir};
	for (int i = 0; i < 2; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
		rmdir(dirs[i]);
	}
}

static enum MHD_Result job_cancel(struct req *rq, struct MHD_Connection *c, uint64_t id,
				  const char *dir, int remove)
{
	char ids[24];
	snprintf(ids, sizeof ids, "%llu", (unsigned long long)id);
	int r = zka_job_cancel(rq->s->a, id);
	if (r == 0)
		return reply(c, MHD_HTTP_ACCEPTED,
			     json_pack("{s:s,s:s}", "id", ids, "state", "cancel requested"), NULL);
	if ((r == -EALREADY || r == -ESTALE) && remove) {
		zka_job_release(rq->s->a, id);
		char link[PATH_MAX + 64];
		snprintf(link, sizeof link, "%s/by-id/%s", rq->s->spool, ids);
		unlink(link);
		remove_dir(dir);
		return reply(c, MHD_HTTP_OK, json_pack("{s:s,s:s}", "id", ids, "state", "removed"),
			     NULL);
	}
	if (r == -EALREADY)
		return fail(c, MHD_HTTP_CONFLICT, "id", NULL, "job %s already finished", ids);
	if (r == -ESTALE)
		return fail(c, MHD_HTTP_CONFLICT, "id", NULL, "job %s: its record expired", ids);
	return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL, "job %s: %s", ids, strerror(-r));
}

/* /v1/jobs/ID[/proof|/cancel] */
static enum MHD_Result job_route(struct req *rq, struct MHD_Connection *c, const char *rest,
				 const char *method)
{
	char ids[32];
	size_t l = strspn(rest, "0123456789");
	const char *tail = rest + l;
	if (!l || l > 20 || (*tail && strcmp(tail, "/proof") && strcmp(tail, "/cancel")))
		return fail(c, MHD_HTTP_NOT_FOUND, NULL, NULL, "no such resource");
	memcpy(ids, rest, l);
	ids[l] = 0;
	errno = 0;
	uint64_t id = strtoull(ids, NULL, 10);
	char dir[PATH_MAX], who[64];
	if (errno || job_dir(rq->s, id, dir, sizeof dir, who, sizeof who) || strcmp(who, rq->who))
		return fail(c, MHD_HTTP_NOT_FOUND, "id", NULL,
			    "no job %s submitted here with this token", ids);
	int get = !strcmp(method, "GET"), post = !strcmp(method, "POST"),
	    del = !strcmp(method, "DELETE");
	if (!*tail && get)
		return job_get(rq, c, id, dir, 0);
	if (!strcmp(tail, "/proof") && get)
		return job_get(rq, c, id, dir, 1);
	if (!strcmp(tail, "/cancel") && post)
		return job_cancel(rq, c, id, dir, 0);
	if (!*tail && del)
		return job_cancel(rq, c, id, dir, 1);
	return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, NULL, "%s is not allowed here", method);
}

/* Unfinished jobs in the arena now. */
static uint32_t open_jobs(zka_serve *s)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(s->a, &g);
	uint32_t n = 0;
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		if (!zka_job_info(s->a, j, &ji) && unfinished(ji.state))
			n++;
	}
	return n;
}

/* ---- submissions ---- */

/* POST /v1/jobs, first call: the query, the declared length, the queue; then the spool
 * directory and the witness file. 0, or -1 after queuing the refusal. */
static int submit_begin(struct req *rq, struct MHD_Connection *c)
{
	zka_serve *s = rq->s;
	const char *k = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "key");
	const char *p = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "priority");
	const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	if (!k || !*k) {
		fail(c, MHD_HTTP_BAD_REQUEST, "key", NULL,
		     "no key: POST /v1/jobs?key=ID_OR_PATH (GET /v1/keys lists them)");
		return -1;
	}
	if (resolve_key(s, k, rq->key, sizeof rq->key)) {
		fail(c, MHD_HTTP_BAD_REQUEST, "key", NULL,
		     "key '%s' is not known to this node (GET /v1/keys lists them)", k);
		return -1;
	}
	if (p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (!*p || *end || errno || v < ZKA_PRIORITY_MIN || v > ZKA_PRIORITY_MAX) {
			fail(c, MHD_HTTP_BAD_REQUEST, "priority", NULL,
			     "priority '%s' is not an integer in %d..%d", p, ZKA_PRIORITY_MIN,
			     ZKA_PRIORITY_MAX);
			return -1;
		}
		rq->prio = (int)v;
	}
	int json = ct && !strncasecmp(ct, "application/json", 16);
	/* curl --data-binary sends application/x-www-form-urlencoded unless told otherwise */
	if (ct && !json && strncasecmp(ct, "application/octet-stream", 24) &&
	    strncasecmp(ct, "application/x-www-form-urlencoded", 33)) {
		fail(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "Content-Type", NULL,
		     "Content-Type '%s': send application/octet-stream (a .wtns) or "
		     "application/json (input.json)",
		     ct);
		return -1;
	}
	if (json && !has_graph(rq->key)) {
		fail(c, MHD_HTTP_BAD_REQUEST, "Content-Type", NULL,
		     "key '%s' has no witness graph (zkarena import --c): send a .wtns", k);
		return -1;
	}
	if (cl && strtoull(cl, NULL, 10) > s->max_body) {
		fail(c, MHD_HTTP_CONTENT_TOO_LARGE, "body", NULL,
		     "the body has %s bytes; this node takes at most %llu", cl,
		     (unsigned long long)s->max_body);
		return -1;
	}
	if (open_jobs(s) >= s->max_queue) {
		fail(c, MHD_HTTP_TOO_MANY_REQUESTS, NULL, "1",
		     "the queue is full (%u unfinished jobs): retry later", s->max_queue);
		return -1;
	}
	snprintf(rq->dir, sizeof rq->dir, "%s/jobs/h-XXXXXX", s->spool);
	char out[PATH_MAX + 8];
	if (!mkdtemp(rq->dir) || chmod(rq->dir, 0750)) {
		rq->dir[0] = 0;
		fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL, "spool %s: %s", s->spool,
		     strerror(errno));
		return -1;
	}
	snprintf(out, sizeof out, "%s/out", rq->dir);
	snprintf(rq->wpath, sizeof rq->wpath, "%s/%s", rq->dir,
		 json ? "input.json" : "witness.wtns");
	if (mkdir(out, 0750) ||
	    (rq->fd = open(rq->wpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) < 0) {
		fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL, "spool %s: %s", rq->dir,
		     strerror(errno));
		return -1;
	}
	rq->state = R_UPLOADING;
	return 0;
}

/* Replaces the spool path of the witness in msg by "the body". */
static void hide_path(char *msg, size_t n, const char *path)
{
	char *p;
	size_t pl = strlen(path);
	while ((p = strstr(msg, path))) {
		char tmp[1024];
		snprintf(tmp, sizeof tmp, "the body%s", p + pl);
		snprintf(p, n - (size_t)(p - msg), "%s", tmp);
	}
}

/* POST /v1/jobs, last call: the witness complete; submit it (S2, S3, S4). */
static enum MHD_Result submit_finish(struct req *rq, struct MHD_Connection *c)
{
	zka_serve *s = rq->s;
	int fd = rq->fd;
	rq->fd = -1;
	if (close(fd) && !rq->io_err)
		rq->io_err = errno;
	if (rq->too_big)
		return fail(c, MHD_HTTP_CONTENT_TOO_LARGE, "body", NULL,
			    "the body is larger than this node takes (%llu bytes)",
			    (unsigned long long)s->max_body);
	if (rq->io_err)
		return fail(c, MHD_HTTP_INSUFFICIENT_STORAGE, NULL, NULL, "spool: %s",
			    strerror(rq->io_err));
	if (!rq->got)
		return fail(c, MHD_HTTP_BAD_REQUEST, "body", NULL,
			    "empty body: send the witness (.wtns) or input.json");
	char err[1024] = "", out[PATH_MAX + 8];
	snprintf(out, sizeof out, "%s/out", rq->dir);
	/* the submitter first (S3): the by-id link is what publishes the job here */
	char sp[PATH_MAX + 16];
	snprintf(sp, sizeof sp, "%s/submitter", rq->dir);
	FILE *f = fopen(sp, "we");
	if (!f || fprintf(f, "%s\n", rq->who) < 0 || fclose(f)) {
		return fail(c, MHD_HTTP_INSUFFICIENT_STORAGE, NULL, NULL, "spool: %s",
			    strerror(errno));
	}
	uint64_t id;
	char lim[1024] = "";
	pthread_mutex_lock(&s->mu);
	int r = open_jobs(s) >= s->max_queue ? -EAGAIN : 0;
	/* a socket peer is its own user under [limits] (S6): checked here, and its jobs count
	 * against it in the workers' picks (zka_arena_set_account) */
	int lr = !r && rq->peer_uid >= 0
		     ? zka_config_user_limits_check(s->a, s->name, (uint32_t)rq->peer_uid, rq->prio,
						    NULL, lim, sizeof lim)
		     : 0;
	if (!r && !lr) {
		zka_arena_set_priority(s->a, rq->prio);
		zka_arena_set_account(s->a,
				      rq->peer_uid >= 0 ? (uint32_t)rq->peer_uid : ZKA_ACCT_NONE);
		r = zka_client_submit(s->a, s->name, rq->key, NULL, rq->wpath, out, &id, err,
				      sizeof err);
		zka_arena_set_account(s->a, ZKA_ACCT_NONE);
		zka_arena_set_priority(s->a, 0);
	}
	pthread_mutex_unlock(&s->mu);
	if (r == -EAGAIN)
		return fail(c, MHD_HTTP_TOO_MANY_REQUESTS, NULL, "1",
			    "the queue is full (%u unfinished jobs): retry later", s->max_queue);
	if (lr == -EDQUOT)
		return fail(c, MHD_HTTP_TOO_MANY_REQUESTS, NULL, "1", "%s", lim);
	if (lr == -EPERM)
		return fail(c, MHD_HTTP_FORBIDDEN, "priority", NULL, "%s", lim);
	if (lr)
		return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL, "%s", lim);
	if (r) {
		int body = strstr(err, rq->wpath) != NULL;
		hide_path(err, sizeof err, rq->wpath);
		return fail(c, body ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR,
			    body ? "body" : "key", NULL, "%s", err);
	}
	rq->state = R_SUBMITTED;
	char link[PATH_MAX + 64], tgt[PATH_MAX];
	snprintf(link, sizeof link, "%s/by-id/%llu", s->spool, (unsigned long long)id);
	snprintf(tgt, sizeof tgt, "../jobs/%s", strrchr(rq->dir, '/') + 1);
	unlink(link); /* a link of an earlier arena's job with the same id */
	char ids[24];
	snprintf(ids, sizeof ids, "%llu", (unsigned long long)id);
	if (symlink(tgt, link))
		return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL,
			    "job %s queued, but its link in the spool failed: %s", ids,
			    strerror(errno));
	char loc[64];
	snprintf(loc, sizeof loc, "/v1/jobs/%s", ids);
	return reply(c, MHD_HTTP_ACCEPTED,
		     json_pack("{s:s,s:s,s:s,s:s}", "id", ids, "state", "SUBMITTED", "submitter",
			       rq->who, "status", loc),
		     NULL);
}

/* ---- the MHD callbacks ---- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *size, void **ctx, int unix_conn)
{
	(void)version;
	zka_serve *s = cls;
	struct req *rq = *ctx;
	if (!rq) { /* NEW */
		if (!(rq = calloc(1, sizeof *rq)))
			return MHD_NO;
		rq->s = s;
		rq->fd = -1;
		rq->peer_uid = -1;
		rq->unix_conn = unix_conn;
		rq->state = R_READING;
		*ctx = rq;
		if (authorize(rq, c)) {
			rq->state = R_REFUSED;
			return MHD_YES;
		}
		if (!strcmp(url, "/v1/jobs")) {
			if (strcmp(method, "POST")) {
				rq->state = R_REFUSED;
				return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, NULL,
					    "%s /v1/jobs: only POST", method);
			}
			if (submit_begin(rq, c))
				rq->state = R_REFUSED;
		}
		return MHD_YES;
	}
	if (rq->state == R_REFUSED || rq->state == R_SUBMITTED) {
		*size = 0;
		return MHD_YES;
	}
	if (*size) { /* a chunk of the body */
		rq->got += *size;
		if (rq->got > s->max_body) {
			if (rq->got > 2 * s->max_body + (1u << 20))
				return MHD_NO; /* a client that keeps sending: drop it */
			rq->too_big = 1;
		}
		if (rq->state == R_UPLOADING && !rq->too_big && !rq->io_err) {
			for (size_t off = 0; off < *size;) {
				ssize_t w = write(rq->fd, data + off, *size - off);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					rq->io_err = w < 0 ? errno : ENOSPC;
					break;
				}
				off += (size_t)w;
			}
		}
		*size = 0;
		return MHD_YES;
	}
	/* the last call */
	if (rq->state == R_UPLOADING)
		return submit_finish(rq, c);
	rq->state = R_REFUSED; /* answered */
	if (rq->too_big)
		return fail(c, MHD_HTTP_CONTENT_TOO_LARGE, "body", NULL, "body too large");
	if (!strcmp(url, "/v1/keys") || !strcmp(url, "/v1/queue")) {
		if (strcmp(method, "GET"))
			return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, NULL, "%s %s: only GET",
				    method, url);
		return url[4] == 'k' ? get_keys(s, c) : get_queue(rq, c);
	}
	if (!strncmp(url, "/v1/jobs/", 9))
		return job_route(rq, c, url + 9, method);
	return fail(c, MHD_HTTP_NOT_FOUND, NULL, NULL,
		    "no such resource: %s (the API is under /v1: jobs, keys, queue)", url);
}

static enum MHD_Result on_tcp(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **ctx)
{
	return on_request(cls, c, url, method, version, data, size, ctx, 0);
}

static enum MHD_Result on_unix(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *data,
			       size_t *size, void **ctx)
{
	return on_request(cls, c, url, method, version, data, size, ctx, 1);
}

/* gone: S2 (an upload that did not become a job leaves nothing). */
static void on_completed(void *cls, struct MHD_Connection *c, void **ctx,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	struct req *rq = *ctx;
	if (!rq)
		return;
	if (rq->fd >= 0)
		close(rq->fd);
	if (rq->dir[0] && rq->state != R_SUBMITTED)
		remove_dir(rq->dir);
	free(rq);
	*ctx = NULL;
}

/* ---- start, stop ---- */

/* Reads a whole (PEM) file into a malloc'ed string. */
static char *slurp(const char *path, const char *opt, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	long n;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || n > (1 << 20) ||
	    fseek(f, 0, SEEK_SET) || !(buf = calloc(1, (size_t)n + 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		snprintf(err, errlen, "%s %s: %s", opt, path,
			 errno ? strerror(errno) : "unreadable or larger than 1 MiB");
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static int parse_listen(const char *addr, struct sockaddr_in *sa, char *err, size_t errlen)
{
	char host[64];
	const char *c = strrchr(addr, ':');
	char *end;
	if (!c || c == addr || (size_t)(c - addr) >= sizeof host) {
		snprintf(err, errlen, "--listen '%s' is not HOST:PORT (e.g. 127.0.0.1:8545)", addr);
		return -EINVAL;
	}
	memcpy(host, addr, (size_t)(c - addr));
	host[c - addr] = 0;
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	errno = 0;
	long p = strtol(c + 1, &end, 10);
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1 || errno || end == c + 1 || *end ||
	    p < 0 || p > 65535) {
		snprintf(err, errlen, "--listen '%s': not an IPv4 address and a port 0..65535",
			 addr);
		return -EINVAL;
	}
	sa->sin_port = htons((unsigned short)p);
	return 0;
}

static int make_dir(const char *d, char *err, size_t errlen)
{
	struct stat st;
	if (mkdir(d, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "--spool: %s: %s", d, strerror(errno));
		return -errno;
	}
	if (lstat(d, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "--spool: %s: not a directory of this user", d);
		return -EPERM;
	}
	return 0;
}

/* The group named g (a name, or a number that names an existing group) into *gid: 0, or
 * -EINVAL with err naming it. */
static int unix_group_id(const char *g, gid_t *gid, char *err, size_t errlen)
{
	char buf[4096];
	struct group gr, *res = NULL;
	char *end;
	unsigned long n;
	if (*g && !getgrnam_r(g, &gr, buf, sizeof buf, &res) && res) {
		*gid = res->gr_gid;
		return 0;
	}
	errno = 0;
	n = strtoul(g, &end, 10);
	if (*g >= '0' && *g <= '9' && !*end && !errno && n < (gid_t)-1 &&
	    !getgrgid_r((gid_t)n, &gr, buf, sizeof buf, &res) && res) {
		*gid = res->gr_gid;
		return 0;
	}
	snprintf(err, errlen, "--unix-group %s: no such group", g);
	return -EINVAL;
}

int zka_serve_start(zka_serve **out, struct zka_arena *a, const struct zka_serve_opts *o, char *err,
		    size_t errlen)
{
	int r = -EINVAL;
	zka_serve *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->a = a;
	s->unix_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	snprintf(s->name, sizeof s->name, "%s", o->arena_name);
	s->max_body = o->max_body ? o->max_body : DEFAULT_MAX_BODY;
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	s->max_queue = o->max_queue ? o->max_queue : g.njobs;
	struct sockaddr_in sa;
	if (!o->listen && !o->unix_path) {
		snprintf(err, errlen,
			 "nothing to listen on: give --listen HOST:PORT or --unix PATH");
		goto err;
	}
	if (o->unix_group && !o->unix_path) {
		snprintf(err, errlen, "--unix-group needs --unix PATH");
		goto err;
	}
	if (o->listen && !o->token_file) {
		snprintf(err, errlen,
			 "--listen needs --token-file (no request is taken without a "
			 "token except on --unix)");
		goto err;
	}
	if (!o->spool) {
		snprintf(err, errlen, "no --spool directory");
		goto err;
	}
	if (!!o->tls_cert != !!o->tls_key || ((o->tls_cert) && !o->listen)) {
		snprintf(err, errlen, "--tls-cert and --tls-key go together, with --listen");
		goto err;
	}
	if (o->listen && (r = parse_listen(o->listen, &sa, err, errlen)))
		goto err;
	if (o->token_file && (r = load_tokens(s, o->token_file, err, errlen)))
		goto err;
	for (size_t i = 0; i < o->nkeys; i++) {
		char rp[PATH_MAX];
		char **k = realloc(s->keys, (s->nkeys + 1) * sizeof *k);
		if (!k) {
			r = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto err;
		}
		s->keys = k;
		if (!realpath(o->keys[i], rp) || access(rp, R_OK)) {
			r = -errno;
			snprintf(err, errlen, "--key %s: %s", o->keys[i], strerror(errno));
			goto err;
		}
		if (!(k[s->nkeys] = strdup(rp))) {
			r = -ENOMEM;
			goto err;
		}
		s->nkeys++;
	}
	char d[PATH_MAX + 16];
	if (strlen(o->spool) >= 3000) {
		snprintf(err, errlen, "--spool: path too long");
		goto err;
	}
	snprintf(s->spool, sizeof s->spool, "%s", o->spool);
	if ((r = make_dir(s->spool, err, errlen)))
		goto err;
	char rsp[PATH_MAX];
	if (!realpath(o->spool, rsp)) {
		r = -errno;
		snprintf(err, errlen, "--spool %s: %s", o->spool, strerror(errno));
		goto err;
	}
	if (strlen(rsp) >= sizeof s->spool) {
		r = -ENAMETOOLONG;
		snprintf(err, errlen, "--spool %s: path too long", o->spool);
		goto err;
	}
	memcpy(s->spool, rsp, strlen(rsp) + 1);
	snprintf(d, sizeof d, "%s/jobs", s->spool);
	if ((r = make_dir(d, err, errlen)))
		goto err;
	snprintf(d, sizeof d, "%s/by-id", s->spool);
	if ((r = make_dir(d, err, errlen)))
		goto err;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	if (o->tls_cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen, "--tls-cert: this libmicrohttpd has no TLS support");
			r = -ENOTSUP;
			goto err;
		}
		if (!(s->cert = slurp(o->tls_cert, "--tls-cert", err, errlen)) ||
		    !(s->key = slurp(o->tls_key, "--tls-key", err, errlen))) {
			r = -EINVAL;
			goto err;
		}
	}
	if (o->listen) {
		errno = 0;
		if (o->tls_cert)
			s->tcp = MHD_start_daemon(
			    flags | MHD_USE_TLS, 0, NULL, NULL, on_tcp, s, MHD_OPTION_SOCK_ADDR,
			    (struct sockaddr *)&sa, MHD_OPTION_HTTPS_MEM_CERT, s->cert,
			    MHD_OPTION_HTTPS_MEM_KEY, s->key, MHD_OPTION_THREAD_POOL_SIZE, 4u,
			    MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_CONNECTION_TIMEOUT, 60u,
			    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
		else
			s->tcp = MHD_start_daemon(
			    flags, 0, NULL, NULL, on_tcp, s, MHD_OPTION_SOCK_ADDR,
			    (struct sockaddr *)&sa, MHD_OPTION_THREAD_POOL_SIZE, 4u,
			    MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_CONNECTION_TIMEOUT, 60u,
			    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
		if (!s->tcp) {
			r = errno ? -errno : -EADDRINUSE;
			snprintf(err, errlen, "--listen %s: cannot listen%s%s", o->listen,
				 errno ? ": " : " (port in use, or a bad TLS certificate/key)",
				 errno ? strerror(errno) : "");
			goto err;
		}
		const union MHD_DaemonInfo *di =
		    MHD_get_daemon_info(s->tcp, MHD_DAEMON_INFO_BIND_PORT);
		s->port = di ? di->port : ntohs(sa.sin_port);
	}
	if (o->unix_path) {
		struct sockaddr_un su = {.sun_family = AF_UNIX};
		struct stat st;
		if (strlen(o->unix_path) >= sizeof su.sun_path) {
			snprintf(err, errlen, "--unix %s: path too long", o->unix_path);
			goto err;
		}
		snprintf(su.sun_path, sizeof su.sun_path, "%s", o->unix_path);
		if (!lstat(o->unix_path, &st)) {
			if (!S_ISSOCK(st.st_mode)) {
				snprintf(err, errlen, "--unix %s: exists and is not a socket",
					 o->unix_path);
				r = -EEXIST;
				goto err;
			}
			unlink(o->unix_path); /* a stale socket of an earlier server */
		}
		gid_t gid = (gid_t)-1;
		if (o->unix_group && (r = unix_group_id(o->unix_group, &gid, err, errlen)))
			goto err;
		/* bind creates the socket file with the umask's mode; nobody may connect before
		 * listen, so its group and mode are set in between */
		if ((s->unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
		    bind(s->unix_fd, (struct sockaddr *)&su, sizeof su)) {
			r = -errno;
			snprintf(err, errlen, "--unix %s: %s", o->unix_path, strerror(errno));
			goto err;
		}
		if (gid != (gid_t)-1 && lchown(o->unix_path, (uid_t)-1, gid)) {
			r = -errno;
			snprintf(err, errlen, "--unix-group %s: cannot give %s to the group: %s%s",
				 o->unix_group, o->unix_path, strerror(errno),
				 errno == EPERM ? " (the server's user must be a member of it)"
						: "");
			unlink(o->unix_path);
			goto err;
		}
		if (chmod(o->unix_path, 0660) || listen(s->unix_fd, 128)) {
			r = -errno;
			snprintf(err, errlen, "--unix %s: %s", o->unix_path, strerror(errno));
			unlink(o->unix_path);
			goto err;
		}
		snprintf(s->unix_path, sizeof s->unix_path, "%s", o->unix_path);
		s->unx = MHD_start_daemon(
		    flags, 0, NULL, NULL, on_unix, s, MHD_OPTION_LISTEN_SOCKET, s->unix_fd,
		    MHD_OPTION_THREAD_POOL_SIZE, 2u, MHD_OPTION_CONNECTION_LIMIT, 256u,
		    MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
		    s, MHD_OPTION_END);
		if (!s->unx) {
			r = -EIO;
			snprintf(err, errlen, "--unix %s: cannot serve on it", o->unix_path);
			goto err;
		}
		s->unix_fd = -1; /* MHD closes it */
	}
	*out = s;
	return 0;
err:
	zka_serve_stop(s);
	return r ? r : -EINVAL;
}

unsigned zka_serve_port(const zka_serve *s)
{
	return s ? s->port : 0;
}

void zka_serve_stop(zka_serve *s)
{
	if (!s)
		return;
	if (s->tcp)
		MHD_stop_daemon(s->tcp);
	if (s->unx)
		MHD_stop_daemon(s->unx);
	if (s->unix_fd >= 0)
		close(s->unix_fd);
	if (s->unix_path[0])
		unlink(s->unix_path);
	for (size_t i = 0; i < s->nkeys; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->tokens);
	free(s->cert);
	free(s->key);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

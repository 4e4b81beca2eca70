/* cmd_serve.c - `zkarena serve NAME`: the HTTP/JSON job API of arena NAME (serve/zka_serve.h)
 * in the foreground until SIGTERM/SIGINT. */
#include "serve/zka_serve.h"
#include "synth/pipe.h"
#include "tools/cli.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
	printf(
	    "usage: zkarena serve NAME --listen HOST:PORT --token-file FILE [--spool DIR]\n"
	    "                     [--unix PATH [--unix-group G]] [--tls-cert PEM --tls-key PEM]\n"
	    "                     [--key FILE]...\n"
	    "                     [--max-body BYTES] [--max-queue N]\n\n"
	    "Serves arena NAME's jobs over HTTP/JSON (docs/ops.md, \"The HTTP job API\"):\n"
	    "  POST   /v1/jobs?key=K[&priority=N]   body: a .wtns, or input.json (Content-Type\n"
	    "                                       application/json) for a key with a witness "
	    "graph\n"
	    "  GET    /v1/jobs/ID, /v1/jobs/ID/proof, POST /v1/jobs/ID/cancel, DELETE /v1/jobs/ID\n"
	    "  GET    /v1/keys, /v1/queue\n"
	    "K: a loaded key's table index (GET /v1/keys), or the path of a loaded key or of\n"
	    "one given with --key (repeatable; loaded at its first job).\n"
	    "--listen HOST:PORT: IPv4 address and port (0: any free port; the chosen one is\n"
	    "printed). Every request needs 'Authorization: Bearer TOKEN', a token of\n"
	    "--token-file: 'NAME TOKEN' lines (TOKEN 16..255 characters), mode 0600 and owned\n"
	    "by this user (refused otherwise); NAME is recorded as each job's submitter.\n"
	    "--unix PATH: also listen on a Unix socket (mode 0660): no token needed there, the\n"
	    "peer's uid (uid:N) is the submitter.\n"
	    "--unix-group G: the socket's group is G (this user must be a member): G's members\n"
	    "submit through the socket only, and see only their own jobs. With a private arena\n"
	    "(arena create NAME, mode 0600) they never touch the shared memory, so they cannot\n"
	    "read each other's witnesses (docs/ops.md, \"The multi-user model\").\n"
	    "--tls-cert/--tls-key: HTTPS on --listen (PEM certificate and key).\n"
	    "--spool DIR: the uploaded witnesses and the proofs (default\n"
	    "/var/lib/zkarena/NAME/http); the daemons must be able to read and write there.\n"
	    "--max-body BYTES (N, NK, NM, NG; default 256M): larger bodies get 413.\n"
	    "--max-queue N: unfinished jobs in the arena at which submissions get 429 with\n"
	    "Retry-After (default: the job table's size).\n"
	    "exit status: 0 stopped by SIGTERM/SIGINT; 2 bad options or a listener that\n"
	    "cannot start.\n");
}

static int parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned sh = 0;
	if (*end == 'K' || *end == 'k')
		sh = 10;
	else if (*end == 'M' || *end == 'm')
		sh = 20;
	else if (*end == 'G' || *end == 'g')
		sh = 30;
	if (sh)
		end++;
	if (errno || end == s || *end || s[0] == '-' || !v || v > (1ull << 40) >> sh)
		return -EINVAL;
	*out = (uint64_t)v << sh;
	return 0;
}

int zka_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {{"listen", required_argument, 0, 'l'},
					     {"token-file", required_argument, 0, 't'},
					     {"spool", required_argument, 0, 's'},
					     {"unix", required_argument, 0, 'u'},
					     {"unix-group", required_argument, 0, 'g'},
					     {"tls-cert", required_argument, 0, 'c'},
					     {"tls-key", required_argument, 0, 'k'},
					     {"key", required_argument, 0, 'K'},
					     {"max-body", required_argument, 0, 'b'},
					     {"max-queue", required_argument, 0, 'q'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	struct zka_serve_opts o = {0};
	const char *keys[64];
	char spool[512];
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			o.listen = optarg;
			break;
		case 't':
			o.token_file = optarg;
			break;
		case 's':
			o.spool = optarg;
			break;
		case 'u':
			o.unix_path = optarg;
			break;
		case 'g':
			o.unix_group = optarg;
			break;
		case 'c':
			o.tls_cert = optarg;
			break;
		case 'k':
			o.tls_key = optarg;
			break;
		case 'K':
			if (o.nkeys == sizeof keys / sizeof keys[0]) {
				fprintf(stderr, "zkarena serve: --key: at most %zu keys\n",
					sizeof keys / sizeof keys[0]);
				return 2;
			}
			keys[o.nkeys++] = optarg;
			break;
		case 'b':
			if (parse_bytes(optarg, &o.max_body)) {
				fprintf(stderr,
					"zkarena serve: --max-body: '%s' is not a size (N, NK, NM, "
					"NG; 1 byte..1T)\n",
					optarg);
				return 2;
			}
			break;
		case 'q': {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || !v ||
			    v > 1u << 24) {
				fprintf(stderr,
					"zkarena serve: --max-queue: '%s' is not an integer in "
					"1..16777216\n",
					optarg);
				return 2;
			}
			o.max_queue = (uint32_t)v;
			break;
		}
		case 'h':
			usage();
			return 0;
		default:
			fprintf(stderr,
				"zkarena serve: unknown option '%s' (see zkarena serve --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena serve: expected NAME (see zkarena serve --help)\n");
		return 2;
	}
	o.arena_name = argv[optind];
	o.keys = keys;
	if (!o.spool) {
		snprintf(spool, sizeof spool, "/var/lib/zkarena/%s/http", o.arena_name);
		o.spool = spool;
	}
	struct zka_arena *a =
	    zka_pipe_attach("zkarena serve", o.arena_name, ZKA_OPEN_NORECOVER | ZKA_OPEN_SHARED);
	if (!a)
		return 2;
	/* the listeners' threads inherit a mask that leaves SIGTERM/SIGINT to sigwait here */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	char err[1024];
	zka_serve *s;
	int r = zka_serve_start(&s, a, &o, err, sizeof err);
	if (r) {
		fprintf(stderr, "zkarena serve: %s\n", err);
		zka_arena_close(a);
		return 2;
	}
	if (o.listen)
		printf("zkarena serve: arena %s on %s://%.*s:%u/v1/\n", o.arena_name,
		       o.tls_cert ? "https" : "http", (int)(strrchr(o.listen, ':') - o.listen),
		       o.listen, zka_serve_port(s));
	if (o.unix_path)
		printf("zkarena serve: arena %s on unix:%s\n", o.arena_name, o.unix_path);
	fflush(stdout);
	int sig = 0;
	sigwait(&set, &sig);
	printf("zkarena serve: %s: stopping\n", strsignal(sig));
	zka_serve_stop(s);
	zka_arena_close(a);
	return 0;
}

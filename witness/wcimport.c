/* wcimport.c - builds a circuit's witness graph from circom's --c output (zka_wcimport.h).
 *
 * Steps (one function each, run in order by zka_wc_build; any failure removes the work
 * directory and leaves nothing at the output path):
 *   find      DIR holds exactly one generated circuit (<name>.cpp with <name>.dat beside it)
 *             plus circom's calcwit.cpp, calcwit.hpp and circom.hpp.
 *   prime     the circuit was compiled for the key's scalar field (fr.asm's or fr.cpp's q).
 *   rewrite   the circuit source is copied with its branches on values made explicit:
 *               if(Fr_isTrue(&x)){          -> ZKA_IF(&x){ (speculated when x is a signal)
 *               while(Fr_isTrue(&x)){       -> while(zka_while(&x, __LINE__)){
 *               if (!Fr_isTrue(&x)) std::cout << "Failed assert ... line N. " ...
 *                                           -> zka_assert(&x, myTemplateName, N, trace)
 *               assert(Fr_isTrue(&x));      -> (dropped: zka_assert recorded it)
 *               Fr_idiv(...); // line circom N
 *                                           -> zka_div_line = N; Fr_idiv(...); (also Fr_mod)
 *             and the runtime (witness/rt/fr.hpp, trace.cpp, wcg_int.h, zka_wcg.h, embedded
 *             in this binary) is written beside it.
 *   compile   g++ (ZKA_CXX overrides), -O1: the tracer runs once, so compile time dominates.
 *   trace     the tracer writes the graph to a temporary name; it is checked by loading it
 *             (zka_wcg_load) and renamed into place.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "witness/zka_wcimport.h"
#include "witness/zka_witness.h"

/* the runtime sources, embedded at build time */
#define ZKA_EMBED(sym, file)                                                                       \
	__asm__(".pushsection .rodata\n.global " #sym "\n" #sym ":\n.incbin \"" ZKA_WITNESS_SRC    \
		"/" file "\"\n.global " #sym "_end\n" #sym "_end:\n.popsection\n");                \
	extern const char sym[], sym##_end[];
ZKA_EMBED(zka_rt_fr_hpp, "rt/fr.hpp")
ZKA_EMBED(zka_rt_trace_cpp, "rt/trace.cpp")
ZKA_EMBED(zka_rt_wcg_int_h, "wcg_int.h")
ZKA_EMBED(zka_rt_zka_wcg_h, "zka_wcg.h")
ZKA_EMBED(zka_rt_circom_timer_cpp, "rt/circom_timer.cpp")

struct build {
	const char *dir, *out;
	const zka_curve *curve;
	char name[256];	 /* the circuit's base name */
	char work[4096]; /* the temporary build directory */
	char *err;
	size_t errlen;
};

/* Sets the error line (fmt with one string) and returns rc. */
__attribute__((format(printf, 3, 4))) static int fail(struct build *b, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static int read_text(const char *path, char **out, size_t *n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (*n = (size_t)ftell(f), fseek(f, 0, SEEK_SET))) {
		fclose(f);
		return -EIO;
	}
	*out = malloc(*n + 1);
	if (!*out || fread(*out, 1, *n, f) != *n) {
		free(*out);
		fclose(f);
		return -EIO;
	}
	(*out)[*n] = 0;
	fclose(f);
	return 0;
}

/* Creates path (it must not exist; a link there is not followed) with n bytes of p, synced
 * when sync is set; 0 or -errno, nothing left at path on failure. */
static int write_path(const char *path, const char *p, size_t n, mode_t mode, int sync)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	int rc = 0;
	while (off < n) {
		ssize_t k = write(fd, p + off, n - off);
		if (k <= 0) {
			rc = k < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)k;
	}
	if (!rc && sync && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (rc)
		unlink(path);
	return rc;
}

/* A build file dir/name (0600: the work directory is private anyway). */
static int write_bytes(const char *dir, const char *name, const char *p, size_t n)
{
	char path[8448];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return write_path(path, p, n, 0600, 0);
}

/* find: the one <name>.cpp with a <name>.dat beside it. */
static int step_find(struct build *b)
{
	DIR *d = opendir(b->dir);
	struct dirent *e;
	int found = 0;
	if (!d)
		return fail(b, -errno, "%s: cannot open the directory", b->dir);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".cpp") || !strcmp(e->d_name, "main.cpp") ||
		    !strcmp(e->d_name, "calcwit.cpp") || !strcmp(e->d_name, "fr.cpp") ||
		    n - 4 >= sizeof b->name)
			continue;
		char dat[4352];
		snprintf(dat, sizeof dat, "%s/%.*s.dat", b->dir, (int)(n - 4), e->d_name);
		if (access(dat, R_OK))
			continue;
		snprintf(b->name, sizeof b->name, "%.*s", (int)(n - 4), e->d_name);
		found++;
	}
	closedir(d);
	if (found != 1)
		return fail(
		    b, -ENOENT,
		    found ? "%s: more than one circuit (<name>.cpp + <name>.dat) in the directory"
			  : "%s: no circom --c output here (<name>.cpp and <name>.dat)",
		    b->dir);
	const char *need[] = {"calcwit.cpp", "calcwit.hpp", "circom.hpp"};
	for (int i = 0; i < 3; i++) {
		char p[4352];
		snprintf(p, sizeof p, "%s/%s", b->dir, need[i]);
		if (access(p, R_OK)) {
			snprintf(b->err, b->errlen, "%s: circom's %s is missing", b->dir, need[i]);
			return -ENOENT;
		}
	}
	return 0;
}

/* prime: the 4 limbs of q as circom writes them (0x%016lx, little-endian order) appear in
 * fr.asm's or fr.cpp's definition of q. */
static int step_prime(struct build *b)
{
	const char *files[] = {"fr.asm", "fr.cpp"};
	char want[128];
	const uint64_t *r = b->curve->r;
	snprintf(want, sizeof want, "0x%016lx,0x%016lx,0x%016lx,0x%016lx", (unsigned long)r[0],
		 (unsigned long)r[1], (unsigned long)r[2], (unsigned long)r[3]);
	for (int i = 0; i < 2; i++) {
		char p[4352], *t = NULL;
		size_t n;
		snprintf(p, sizeof p, "%s/%s", b->dir, files[i]);
		if (read_text(p, &t, &n))
			continue;
		int ok = strstr(t, want) != NULL;
		free(t);
		if (ok)
			return 0;
	}
	snprintf(
	    b->err, b->errlen,
	    "%s: the circuit was not compiled for %s (circom --prime %s) or its fr.asm/fr.cpp is "
	    "missing",
	    b->dir, b->curve->pretty, b->curve->name);
	return -EINVAL;
}

/* The argument of a leading "Fr_isTrue(&...)" at s, copied into arg; returns the text after
 * its closing parenthesis, or NULL. */
static const char *istrue_arg(const char *s, char *arg, size_t n)
{
	if (strncmp(s, "Fr_isTrue(", 10))
		return NULL;
	s += 10;
	const char *e = strchr(s, ')');
	if (!e || e[-1] == '(' || (size_t)(e - s) >= n)
		return NULL;
	/* the operand is &name[index expression] at most: balance brackets */
	int depth = 0;
	const char *q = s;
	for (; *q && (depth || *q != ')'); q++)
		depth += *q == '[' || *q == '(' ? 1 : *q == ']' || *q == ')' ? -1 : 0;
	if (*q != ')' || (size_t)(q - s) >= n)
		return NULL;
	memcpy(arg, s, (size_t)(q - s));
	arg[q - s] = 0;
	return q + 1;
}

/* rewrite: the circuit source with its value branches made explicit (see the note). */
static int step_rewrite(struct build *b)
{
	char p[4352], *src = NULL, arg[1024];
	size_t n;
	snprintf(p, sizeof p, "%s/%s.cpp", b->dir, b->name);
	if (read_text(p, &src, &n))
		return fail(b, -EIO, "%s: cannot read the circuit source", p);
	size_t cap = n + n / 2 + 4096, len = 0;
	char *out = malloc(cap);
	if (!out) {
		free(src);
		return fail(b, -ENOMEM, "%s", "out of memory");
	}
	len += (size_t)snprintf(out, cap, "#include \"fr.hpp\"\n");
	for (char *line = src; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char save = line[ll];
		line[ll] = 0;
		const char *rest;
		char buf[2048];
		const char *emit = line;
		const char *am =
		    "Failed assert in template/function \" << myTemplateName << \" line ";
		if (!strncmp(line, "if(", 3) && (rest = istrue_arg(line + 3, arg, sizeof arg)) &&
		    !strcmp(rest, "){")) {
			snprintf(buf, sizeof buf, "ZKA_IF(%s){", arg);
			emit = buf;
		} else if (!strncmp(line, "while(", 6) &&
			   (rest = istrue_arg(line + 6, arg, sizeof arg)) && !strcmp(rest, "){")) {
			snprintf(buf, sizeof buf, "while(zka_while(%s, __LINE__)){", arg);
			emit = buf;
		} else if (!strncmp(line, "if (!", 5) &&
			   (rest = istrue_arg(line + 5, arg, sizeof arg)) &&
			   !strncmp(rest, ") std::cout << \"", 16) && strstr(rest, am)) {
			int ln = atoi(strstr(rest, am) + strlen(am));
			snprintf(buf, sizeof buf,
				 "zka_assert(%s, myTemplateName, %d, ctx->getTrace(myId));", arg,
				 ln);
			emit = buf;
		} else if ((!strncmp(line, "Fr_idiv(", 8) || !strncmp(line, "Fr_mod(", 7)) &&
			   strstr(line, "// line circom ")) {
			snprintf(buf, sizeof buf, "zka_div_line = %d; %s",
				 atoi(strstr(line, "// line circom ") + 15), line);
			emit = buf;
		} else if (!strncmp(line, "assert(", 7) &&
			   (rest = istrue_arg(line + 7, arg, sizeof arg)) && !strcmp(rest, ");")) {
			emit = "";
		}
		size_t el = strlen(emit);
		if (len + el + 2 > cap) {
			cap = (len + el + 2) * 2;
			char *t = realloc(out, cap);
			if (!t) {
				free(out);
				free(src);
				return fail(b, -ENOMEM, "%s", "out of memory");
			}
			out = t;
		}
		memcpy(out + len, emit, el);
		len += el;
		out[len++] = '\n';
		line[ll] = save;
		line = nl ? nl + 1 : NULL;
	}
	free(src);
	snprintf(p, sizeof p, "%s.cpp", b->name);
	int rc = write_bytes(b->work, p, out, len);
	free(out);
	if (rc)
		return fail(b, rc, "%s: cannot write the rewritten circuit source", b->work);
	/* circom's own support files, and ours */
	const char *copy[] = {"calcwit.cpp", "calcwit.hpp", "circom.hpp"};
	for (int i = 0; i < 3; i++) {
		char *t = NULL;
		snprintf(p, sizeof p, "%s/%s", b->dir, copy[i]);
		if (read_text(p, &t, &n))
			return fail(b, -EIO, "%s: cannot read", p);
		rc = write_bytes(b->work, copy[i], t, n);
		free(t);
		if (rc)
			return fail(b, rc, "%s: cannot write a build file", b->work);
	}
	struct {
		const char *name, *a, *e;
	} rt[] = {{"fr.hpp", zka_rt_fr_hpp, zka_rt_fr_hpp_end},
		  {"trace.cpp", zka_rt_trace_cpp, zka_rt_trace_cpp_end},
		  {"wcg_int.h", zka_rt_wcg_int_h, zka_rt_wcg_int_h_end},
		  {"zka_wcg.h", zka_rt_zka_wcg_h, zka_rt_zka_wcg_h_end}};
	for (int i = 0; i < 4; i++)
		if ((rc = write_bytes(b->work, rt[i].name, rt[i].a, (size_t)(rt[i].e - rt[i].a))))
			return fail(b, rc, "%s: cannot write a build file", b->work);
	return 0;
}

/* Runs argv with stderr captured into the work directory's log; 0 or the problem in err. */
static int run(struct build *b, char *const argv[], const char *what)
{
	char log[4352];
	snprintf(log, sizeof log, "%s/%s.log", b->work, what);
	pid_t pid = fork();
	if (pid < 0)
		return fail(b, -errno, "cannot fork for %s", what);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (chdir(b->work))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return fail(
		    b, -ENOENT,
		    "%s not found: importing a circom circuit's C++ needs g++, libgmp-dev and "
		    "libxxhash-dev (set ZKA_CXX for another compiler)",
		    argv[0]);
	/* the last line the tool printed says why */
	char *t = NULL, last[400] = "";
	size_t n;
	if (!read_text(log, &t, &n)) {
		char *e = t + n;
		while (e > t && (e[-1] == '\n' || e[-1] == ' '))
			*--e = 0;
		char *s = strrchr(t, '\n');
		snprintf(last, sizeof last, "%s", s ? s + 1 : t);
		free(t);
	}
	snprintf(b->err, b->errlen, "%s/%s.cpp: %s failed: %s", b->dir, b->name, what,
		 last[0] ? last : "no message");
	return -EINVAL;
}

static int step_compile(struct build *b)
{
	const char *cxx = getenv("ZKA_CXX") && *getenv("ZKA_CXX") ? getenv("ZKA_CXX") : "g++";
	char src[300], def[64];
	snprintf(src, sizeof src, "%s.cpp", b->name);
	snprintf(def, sizeof def, "-DZKA_WC_CURVE=%d", (int)b->curve->id);
	char *const argv[] = {(char *)cxx, "-std=c++17", "-O1",		"-w",	     def,
			      "-I.",	   src,		 "calcwit.cpp", "trace.cpp", "-o",
			      "tracer",	   "-lgmp",	 "-lxxhash",	NULL};
	return run(b, argv, "compile");
}

static int step_trace(struct build *b)
{
	char dat[4352], tmp[4352];
	snprintf(dat, sizeof dat, "%s/%s.dat", b->dir, b->name);
	if (dat[0] != '/') { /* the tracer runs in the work directory */
		char cwd[2048];
		if (!getcwd(cwd, sizeof cwd))
			return fail(b, -errno, "%s", "cannot read the current directory");
		snprintf(dat, sizeof dat, "%s/%s/%s.dat", cwd, b->dir, b->name);
	}
	snprintf(tmp, sizeof tmp, "%s/graph.wcg", b->work);
	char *const argv[] = {"./tracer", dat, tmp, NULL};
	int rc = run(b, argv, "trace");
	if (rc)
		return rc;
	zka_wcg *g = NULL;
	rc = zka_wcg_load(tmp, &g, b->err, b->errlen);
	if (rc)
		return rc;
	int bad = zka_wcg_curve(g) != b->curve;
	zka_wcg_free(g);
	if (bad)
		return fail(b, -EINVAL, "%s: the graph's curve differs from the key's", b->dir);
	if (rename(tmp, b->out) == 0)
		return 0;
	if (errno != EXDEV) /* another filesystem (a tmpfs /tmp): copied below */
		return fail(b, -errno, "%s: cannot move the graph into place", b->out);
	char *t = NULL;
	size_t n = 0;
	if (read_text(tmp, &t, &n))
		return fail(b, -EIO, "%s: cannot read the graph back", tmp);
	rc = write_path(b->out, t, n, 0644, 1);
	free(t);
	return rc ? fail(b, rc, "%s: cannot write the graph", b->out) : 0;
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[4352];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

int zka_wc_build(const char *cdir, const zka_curve *curve, const char *out, char *err,
		 size_t errlen)
{
	struct build b = {.dir = cdir, .out = out, .curve = curve, .err = err, .errlen = errlen};
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int rc;
	snprintf(b.work, sizeof b.work, "%s/zkarena-wc-XXXXXX", tmpdir);
	if (!mkdtemp(b.work)) /* 0700, a fresh name: no other user can plant files in it */
		return fail(&b, -errno, "%s: cannot make a build directory", tmpdir);
	if ((rc = step_find(&b)) || (rc = step_prime(&b)) || (rc = step_rewrite(&b)) ||
	    (rc = step_compile(&b)) || (rc = step_trace(&b)))
		goto err;
	remove_tree(b.work);
	return 0;
err:
	if (!getenv("ZKA_WC_KEEP"))
		remove_tree(b.work);
	else
		fprintf(stderr, "zkarena: witness build kept in %s\n", b.work);
	return rc;
}

/* bench witness's peer: circom's own generator (its main.cpp, calcwit.cpp, fr.cpp, fr.asm
 * assembled with nasm), built -O3 as circom's Makefile builds it, with circom_timer.cpp as the
 * driver. work: an existing empty directory; the binary is work/timer. */
int zka_wc_build_circom_timer(const char *cdir, const char *work, char *name, size_t namelen,
			      char *err, size_t errlen)
{
	struct build b = {.dir = cdir, .err = err, .errlen = errlen};
	snprintf(b.work, sizeof b.work, "%s", work);
	int rc = step_find(&b);
	if (rc)
		return rc;
	snprintf(name, namelen, "%s", b.name);
	const char *copy[] = {"main.cpp", "calcwit.cpp", "calcwit.hpp", "circom.hpp",
			      "fr.cpp",	  "fr.hpp",	 "fr.asm"};
	char p[4352], src[300];
	for (int i = 0; i < 8; i++) {
		char *t = NULL;
		size_t n;
		const char *f = i < 7 ? copy[i] : src;
		if (i == 7)
			snprintf(src, sizeof src, "%s.cpp", b.name);
		snprintf(p, sizeof p, "%s/%s", cdir, f);
		if (read_text(p, &t, &n))
			return fail(&b, -ENOENT, "%s: missing (circom --c output)", p);
		rc = write_bytes(work, f, t, n);
		free(t);
		if (rc)
			return fail(&b, rc, "%s: cannot write a build file", work);
	}
	if ((rc = write_bytes(work, "circom_timer.cpp", zka_rt_circom_timer_cpp,
			      (size_t)(zka_rt_circom_timer_cpp_end - zka_rt_circom_timer_cpp))))
		return fail(&b, rc, "%s: cannot write a build file", work);
	char *const nasm[] = {"nasm", "-felf64", "fr.asm", "-o", "fr_asm.o", NULL};
	if ((rc = run(&b, nasm, "nasm")))
		return rc;
	char *const gxx[] = {"g++",
			     "-std=c++11",
			     "-O3",
			     "-w",
			     "-I.",
			     "-Dmain=zka_circom_main",
			     "main.cpp",
			     "calcwit.cpp",
			     "fr.cpp",
			     src,
			     "circom_timer.cpp",
			     "fr_asm.o",
			     "-o",
			     "timer",
			     "-lgmp",
			     NULL};
	return run(&b, gxx, "compile");
}

/* notify_listen.c - zka_notify_listen SOCKET SECONDS: the receiving end of systemd's readiness
 * protocol, for tests/pipeline/notify.sh. Binds an AF_UNIX datagram socket at SOCKET (the
 * path a test puts in NOTIFY_SOCKET), asks the kernel for each sender's credentials
 * (SO_PASSCRED), and prints every line of every message as "PID LINE" on stdout (line
 * buffered), where PID is the sending process as the kernel saw it. Exits 0 after SECONDS or
 * on SIGTERM/SIGINT, removing SOCKET; 1 when the socket cannot be set up. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: zka_notify_listen SOCKET SECONDS\n");
		return 2;
	}
	const char *path = argv[1];
	double secs = atof(argv[2]);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "zka_notify_listen: %s: path too long\n", path);
		return 1;
	}
	strcpy(sa.sun_path, path);
	struct sigaction sig = {.sa_handler = on_signal}; /* no SA_RESTART: recvmsg returns */
	sigaction(SIGTERM, &sig, NULL);
	sigaction(SIGINT, &sig, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof sa)) {
		fprintf(stderr, "zka_notify_listen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* a receive timeout of 100 ms: the deadline and SIGTERM are noticed between messages */
	struct timeval tv = {0, 100000};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (stop ||
		    (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 >= secs)
			break;
		char buf[4097];
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(16 * sizeof(int))];
		} ctl;
		struct iovec iov = {buf, sizeof buf - 1};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = &ctl,
				   .msg_controllen = sizeof ctl};
		ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
		if (n < 0)
			continue; /* EAGAIN (the timeout) or EINTR */
		buf[n] = 0;
		long pid = -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred u;
				memcpy(&u, CMSG_DATA(c), sizeof u);
				pid = (long)u.pid;
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				int nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
				for (int i = 0; i < nfd; i++) {
					int f;
					memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
					close(f);
				}
			}
		}
		for (char *s = buf, *e; *s; s = e) {
			e = strchr(s, '\n');
			if (e)
				*e++ = 0;
			else
				e = s + strlen(s);
			if (*s)
				printf("%ld %s\n", pid, s);
		}
	}
	close(fd);
	unlink(path);
	return 0;
}

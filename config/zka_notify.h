/* zka_notify.h - systemd's readiness protocol (sd_notify: READY, STATUS, WATCHDOG) through
 * libsystemd when built with it (ZKA_HAVE_SYSTEMD), else nothing. Outside a Type=notify unit
 * (no NOTIFY_SOCKET in the environment) every call does nothing. */
#ifndef ZKA_NOTIFY_H
#define ZKA_NOTIFY_H

#ifdef ZKA_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#define zka_notify(...) sd_notifyf(0, __VA_ARGS__)
#else
static inline int zka_notify(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}
#endif

#endif

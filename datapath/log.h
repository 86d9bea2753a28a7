/*
 * Logging in the style of OpenBSD's log.h. To stderr in the foreground, to
 * syslog when daemonised. Never called per packet: the datapath reports events
 * through counters and the control thread logs them, rate-limited.
 */
#ifndef CELLGATE_LOG_H
#define CELLGATE_LOG_H

#include <stdarg.h>
#include <stdbool.h>

void log_init(const char *ident, bool to_stderr, int verbose);
void log_setverbose(int verbose);

/* log_warn appends ": strerror(errno)"; the x forms do not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Startup or broken invariants only; never in the datapath. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif

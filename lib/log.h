/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging in the style of OpenBSD's log.h. To stderr in the foreground, to
 * syslog when daemonised. On stderr under systemd (JOURNAL_STREAM names
 * stderr) each line starts with its sd-daemon(3) priority, "<3>" to "<7>". Never called per packet:
 * the datapath reports events through counters and the control thread logs them, rate-limited.
 */
#ifndef CELLGATE_LOG_H
#define CELLGATE_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

void log_init(const char *ident, bool to_stderr, int verbose);

/* log_warn appends ": strerror(errno)"; the x forms do not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Startup or broken invariants only; never in the datapath. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * For messages an outside event can repeat without bound (a peer that
 * never answers, a scan of unresolvable addresses): at most LOG_LIMIT_BURST
 * pass per LOG_LIMIT_WINDOW_S seconds; the others are counted, and the
 * count is logged as one line ("WHAT: N more such messages not logged")
 * when a later window opens, or at log_limit_flush. Zero-initialise.
 */
#define LOG_LIMIT_WINDOW_S 10
#define LOG_LIMIT_BURST    10
struct log_limit {
	uint64_t window; /* now_s / LOG_LIMIT_WINDOW_S + 1 of the current window, 0 = none */
	unsigned count;  /* passed in this window */
	unsigned long suppressed;
};
/* True: log it now. now_s: any monotonic clock in seconds. */
bool log_limit_pass(struct log_limit *l, uint64_t now_s, const char *what);
/* Log the count of suppressed messages, if any, now. */
void log_limit_flush(struct log_limit *l, const char *what);
/* From a periodic timer: the count once its window is over, though no message came since. */
void log_limit_tick(struct log_limit *l, uint64_t now_s, const char *what);

#endif

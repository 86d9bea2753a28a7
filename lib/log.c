/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

static bool log_stderr = true;
static bool log_journal; /* stderr is systemd's journal stream: "<N>" prefixes */
static int log_verbose;

/*
 * systemd sets JOURNAL_STREAM to "device:inode" of the stream it connected
 * to stderr (systemd.exec(5)); it is inherited, so only a stderr that is
 * still that very stream gets the sd-daemon(3) priority prefixes, not one a
 * wrapper redirected to a file or a terminal.
 */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2)
		return false;
	return fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(const char *ident, bool to_stderr, int verbose)
{
	log_stderr = to_stderr;
	log_journal = to_stderr && stderr_is_journal();
	log_verbose = verbose;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}


static void log_vwrite(int pri, const char *fmt, va_list ap, int errnum)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(errnum));
	}
	if (log_stderr) {
		static const char *const prefix[] = {
		    [LOG_ERR] = "error: ",
		    [LOG_WARNING] = "warning: ",
		    [LOG_INFO] = "",
		    [LOG_DEBUG] = "debug: ",
		};
		/* <3> error, <4> warning, <6> info, <7> debug: the journal's priority. */
		if (log_journal)
			fprintf(stderr, "<%d>", pri);
		fprintf(stderr, "%s%s\n", prefix[pri], msg);
		fflush(stderr);
	} else {
		syslog(pri, "%s", msg);
	}
}

#define LOG_BODY(pri, errnum)                                                                      \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		log_vwrite(pri, fmt, ap, errnum);                                                  \
		va_end(ap);                                                                        \
	} while (0)

void log_warn(const char *fmt, ...)
{
	int saved = errno;
	LOG_BODY(LOG_WARNING, saved);
	errno = saved;
}

void log_warnx(const char *fmt, ...)
{
	LOG_BODY(LOG_WARNING, 0);
}

void log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_INFO, 0);
}

void log_debug(const char *fmt, ...)
{
	if (log_verbose > 0)
		LOG_BODY(LOG_DEBUG, 0);
}

void fatal(const char *fmt, ...)
{
	int saved = errno;
	LOG_BODY(LOG_ERR, saved);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	LOG_BODY(LOG_ERR, 0);
	exit(1);
}

bool log_limit_pass(struct log_limit *l, uint64_t now_s, const char *what)
{
	uint64_t w = now_s / LOG_LIMIT_WINDOW_S + 1; /* 0 = never used */

	if (w != l->window) {
		log_limit_flush(l, what);
		l->window = w;
		l->count = 0;
	}
	if (l->count >= LOG_LIMIT_BURST) {
		l->suppressed++;
		return false;
	}
	l->count++;
	return true;
}

void log_limit_flush(struct log_limit *l, const char *what)
{
	if (!l->suppressed)
		return;
	log_warnx("%s: %lu more such messages not logged (at most %u per %d s)", what,
	          l->suppressed, LOG_LIMIT_BURST, LOG_LIMIT_WINDOW_S);
	l->suppressed = 0;
}

void log_limit_tick(struct log_limit *l, uint64_t now_s, const char *what)
{
	if (l->suppressed && now_s / LOG_LIMIT_WINDOW_S + 1 != l->window)
		log_limit_flush(l, what);
}

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static bool log_stderr = true;
static int log_verbose;

void log_init(const char *ident, bool to_stderr, int verbose)
{
	log_stderr = to_stderr;
	log_verbose = verbose;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_setverbose(int verbose)
{
	log_verbose = verbose;
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

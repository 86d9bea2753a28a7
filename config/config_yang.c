/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The configuration's YANG side: the libyang context with cellgate.yang,
 * and libyang's errors turned into messages that name the file, the data
 * path and the reason.
 */
#include <errno.h>
#include <libyang/libyang.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config_priv.h"

int cfg_errf(const struct cfg_pstate *ps, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->errbuf, ps->errlen, "%s: ", ps->src);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->errbuf + n, ps->errlen - n, fmt, ap);
		va_end(ap);
	}
	return err;
}

int cfg_node_errf(const struct cfg_pstate *ps, const struct lyd_node *node, const char *fmt, ...)
{
	char path[512], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!lyd_path(node, LYD_PATH_STD, path, sizeof(path)))
		snprintf(path, sizeof(path), "?");
	return cfg_errf(ps, -EINVAL, "%s: %s", path, msg);
}

/*
 * libyang 2.1 puts the location in ly_err_item.path as text, e.g.
 * `Data location "/cellgate:cellgate/port[name='eth0']", line number 3.`
 * Pull out the quoted path and the line so the message reads like
 * "file: /path: reason (line 3)".
 */
static void cfg_split_location(const char *loc, char *path, size_t pathlen, long *line)
{
	const char *open, *close, *ln;

	path[0] = '\0';
	*line = 0;
	if (!loc)
		return;
	open = strchr(loc, '"');
	close = strrchr(loc, '"');
	if (open && close > open)
		snprintf(path, pathlen, "%.*s", (int)(close - open - 1), open + 1);
	ln = strstr(loc, "ine number ");
	if (ln)
		*line = strtol(ln + strlen("ine number "), NULL, 10);
}

/*
 * Make libyang's message one log line. Its pattern messages quote the whole
 * regular expression, which for an IPv4 address is longer than the rest of
 * the line and tells an operator nothing: keep short patterns (port names),
 * drop long ones.
 */
static void cfg_trim_msg(const char *msg, char *out, size_t outlen)
{
	static const char pat[] = "Unsatisfied pattern - ";
	const char *tail = strstr(msg, " does not conform to ");

	if (!strncmp(msg, pat, strlen(pat)) && tail && strlen(tail) > 80)
		snprintf(out, outlen, "Invalid value %.*s (does not match the type's pattern).",
		         (int)(tail - msg - strlen(pat)), msg + strlen(pat));
	else
		snprintf(out, outlen, "%s", msg);
	for (; *out; out++)
		if ((unsigned char)*out < 0x20)
			*out = ' ';
}

/*
 * The schema's only unions are the route `interface` leaves, a leafref to a
 * port or to a subinterface; libyang says no more than that no member type
 * matched. Say what that means.
 */
static void cfg_union_ref_msg(const char *path, char *msg, size_t msglen)
{
	static const char head[] = "Invalid union value \"",
	                  tail[] = "\" - no matching subtype found.";
	size_t plen = strlen(path), mlen = strlen(msg), vlen;
	char value[256];

	if (plen < 10 || strcmp(path + plen - 10, "/interface") ||
	    strncmp(msg, head, strlen(head)) || mlen < strlen(head) + strlen(tail) ||
	    strcmp(msg + mlen - strlen(tail), tail))
		return;
	vlen = mlen - strlen(head) - strlen(tail);
	snprintf(value, sizeof(value), "%.*s", (int)vlen, msg + strlen(head));
	snprintf(msg, msglen, "Invalid leafref value \"%s\": no port or subinterface of that name.",
	         value);
}

/* Report the first error libyang stored: later ones are consequences of it. */
int cfg_ly_err(const struct cfg_pstate *ps, const struct ly_ctx *ctx, const char *what)
{
	const struct ly_err_item *e;
	char path[512], msg[512], at[32] = "";
	long line;

	for (e = ly_err_first(ctx); e; e = e->next)
		if (e->level == LY_LLERR && e->msg)
			break;
	if (!e)
		return cfg_errf(ps, -EINVAL, "%s failed (libyang gave no reason)", what);
	cfg_split_location(e->path, path, sizeof(path), &line);
	cfg_trim_msg(e->msg, msg, sizeof(msg));
	cfg_union_ref_msg(path, msg, sizeof(msg));
	if (line)
		snprintf(at, sizeof(at), " (line %ld)", line);
	return cfg_errf(ps, -EINVAL, "%s%s%s%s", path, path[0] ? ": " : "", msg, at);
}

/*
 * Errors go to errbuf, not stderr: callers switch libyang to store-only
 * logging around their work. That switch is process-wide, not
 * ly_temp_log_options(), because libyang 2.1's own validation code resets the
 * thread's temporary options to NULL; libyang is only used from the control
 * thread, so nothing else is silenced meanwhile.
 */
struct ly_ctx *cfg_ctx_new_stored(const char *yang_dir, char *errbuf, size_t errlen)
{
	char file[4096];
	struct cfg_pstate fps = {.src = file, .errbuf = errbuf, .errlen = errlen};
	struct ly_ctx *ctx = NULL;

	/*
	 * The exact file, not a search by module name: libyang searches its
	 * directories recursively and could pick up some other copy.
	 */
	snprintf(file, sizeof(file), "%s/" CFG_MODULE ".yang", yang_dir);
	if (access(file, R_OK) < 0) {
		errno = -cfg_errf(&fps, -errno, "%s", strerror(errno));
		return NULL;
	}
	/* Not the cwd: the daemon must load the schema it was installed with. */
	if (ly_ctx_new(yang_dir, LY_CTX_DISABLE_SEARCHDIR_CWD, &ctx) != LY_SUCCESS) {
		errno = -cfg_errf(&fps, -ENOMEM, "cannot create a libyang context");
		return NULL;
	}
	if (lys_parse_path(ctx, file, LYS_IN_YANG, NULL) != LY_SUCCESS) {
		errno = -cfg_ly_err(&fps, ctx, "loading the module");
		ly_err_clean(ctx, NULL);
		ly_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

struct ly_ctx *cfg_yang_ctx_new(const char *yang_dir, char *errbuf, size_t errlen)
{
	uint32_t logopts = ly_log_options(LY_LOSTORE);
	struct ly_ctx *ctx;
	int saved;

	ctx = cfg_ctx_new_stored(yang_dir, errbuf, errlen);
	saved = errno;
	ly_log_options(logopts);
	errno = saved;
	return ctx;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The HTTP side: the UNIX socket listener, request limits, and routing of
 * each request by path and method to the data, operations and metrics
 * handlers. Everything runs in the daemon's control loop, one request at a
 * time, so writes are serialised without locks; clients are concurrent at
 * the connection level (evhttp multiplexes them).
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mgmt/restconf/rc_priv.h"

#define RC_TIMEOUT_S 60 /* idle connection */
#define RC_BACKLOG   64

int rc_running_reload(struct restconf *rc, struct restconf_err *err)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	struct lyd_node *tree = NULL;
	int rv = -1;

	if (!f) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	if (cfg_print(rc->be.running(rc->be.arg), f) != 0) {
		fclose(f);
		free(json);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot print the configuration");
		return -1;
	}
	fclose(f);
	ly_err_clean(rc->ctx, NULL);
	/* Validation adds the defaults, so GET shows every leaf the daemon uses. */
	if (lyd_parse_data_mem(rc->ctx, json, LYD_JSON, LYD_PARSE_STRICT | LYD_PARSE_NO_STATE,
	                       LYD_VALIDATE_NO_STATE | LYD_VALIDATE_PRESENT, &tree) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, err, "running configuration");
		err->status = 500;
		err->tag = "operation-failed";
	} else {
		lyd_free_all(rc->running);
		rc->running = tree;
		rv = 0;
	}
	free(json);
	return rv;
}

char *rc_body(struct evhttp_request *req, struct restconf_err *err)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	char *body = malloc(len + 1);

	if (!body) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return NULL;
	}
	evbuffer_copyout(in, body, len);
	body[len] = '\0';
	if (strlen(body) != len) {
		rc_err_set(err, 400, "malformed-message", NULL, "NUL byte in the request body");
		free(body);
		return NULL;
	}
	return body;
}

/* RFC 6415 host-meta, which RFC 8040 section 3.1 uses to find the API root. */
static void host_meta(struct evhttp_request *req)
{
	static const char doc[] = "<XRD xmlns='http://docs.oasis-open.org/ns/xri/xrd-1.0'>\n"
	                          "  <Link rel='restconf' href='/restconf'/>\n</XRD>\n";
	rc_reply(req, 200, "application/xrd+xml", doc, sizeof(doc) - 1);
}

/* RFC 8040 section 3.3: the API resource. */
static void api_root(struct evhttp_request *req)
{
	static const char doc[] = "{\"ietf-restconf:restconf\":{\"data\":{},\"operations\":{},"
	                          "\"yang-library-version\":\"2019-01-04\"}}\n";
	rc_reply(req, 200, RC_YANG_JSON, doc, sizeof(doc) - 1);
}

static bool prefix_is(const char *path, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n) || (path[n] && path[n] != '/'))
		return false;
	*rest = path + n;
	return true;
}

static void method_not_allowed(struct evhttp_request *req, const char *allow)
{
	struct restconf_err err;

	evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", allow);
	rc_err_set(&err, 405, "operation-not-supported", NULL,
	           "method not allowed here (allowed: %s)", allow);
	rc_reply_error(req, &err);
}

/* RFC 8040 5.2: JSON or XML (data resources only); a body in another media type is refused. */
static bool body_type_ok(struct evhttp_request *req, bool xml_ok)
{
	const char *ct = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");
	struct restconf_err err;

	if (!ct || !strncmp(ct, RC_YANG_JSON, strlen(RC_YANG_JSON)) ||
	    !strncmp(ct, "application/json", 16) || (xml_ok && rc_body_xml(req)))
		return true;
	rc_err_set(&err, 415, "invalid-value", NULL, "Content-Type %.64s is not supported: use %s",
	           ct, xml_ok ? RC_YANG_JSON " or " RC_YANG_XML : RC_YANG_JSON);
	rc_reply_error(req, &err);
	return false;
}

/* RFC 8040 section 7 error-tags of the gate's refusals. */
static const char *verdict_tag(int status)
{
	switch (status) {
	case 401:
		return "access-denied";
	case 405:
		return "operation-not-supported";
	case 413:
		return "too-big";
	case 429:
	case 503:
		return "resource-denied";
	default:
		return "malformed-message";
	}
}

/* The gate's verdict on req (gate.c); false when it was refused (and is answered here). */
static bool gate_passed(struct rc_listener *l, struct evhttp_request *req)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct restconf_err err;
	struct rc_verdict v;
	char retry[16];

	if (rc_gate_request(l, req, &v))
		return true;
	if (v.status == 401)
		evhttp_add_header(out, "WWW-Authenticate",
		                  "Basic realm=\"cellgate\", charset=\"UTF-8\"");
	if (v.status == 429 && v.retry_after) {
		snprintf(retry, sizeof(retry), "%u", v.retry_after);
		evhttp_add_header(out, "Retry-After", retry);
	}
	if (v.status == 405)
		evhttp_add_header(out, "Allow", "GET, HEAD, PUT, PATCH, POST, DELETE");
	/* The rest of what the client sent is not read: this connection ends here. */
	evhttp_add_header(out, "Connection", "close");
	rc_err_set(&err, v.status, verdict_tag(v.status), NULL, "%s", v.msg);
	rc_reply_error(req, &err);
	return false;
}

void rc_log_refusal(struct restconf *rc, const char *what)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	if (log_limit_pass(&rc->refusal_log, (uint64_t)ts.tv_sec, "restconf: refusals"))
		log_warnx("restconf: %s", what);
}

static void dispatch(struct evhttp_request *req, void *arg)
{
	struct rc_listener *l = arg;
	struct restconf *rc = l->rc;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL, *rest;
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	enum evhttp_cmd_type m = evhttp_request_get_command(req);
	struct restconf_err err;

	if (!path)
		path = "/";
	if (!gate_passed(l, req))
		return;
	if (prefix_is(path, "/restconf/data", &rest)) {
		if (m == EVHTTP_REQ_GET || m == EVHTTP_REQ_HEAD)
			rc_get(rc, req, rest, query);
		else if (m == EVHTTP_REQ_PUT || m == EVHTTP_REQ_PATCH || m == EVHTTP_REQ_POST ||
		         m == EVHTTP_REQ_DELETE) {
			if (m == EVHTTP_REQ_DELETE || body_type_ok(req, true))
				rc_edit(rc, req, rest);
		} else
			method_not_allowed(req, "GET, HEAD, PUT, PATCH, POST, DELETE");
	} else if (prefix_is(path, "/restconf/operations", &rest) && *rest) {
		if (m != EVHTTP_REQ_POST)
			method_not_allowed(req, "POST");
		else if (body_type_ok(req, false))
			rc_operation(rc, req, rest + 1);
	} else if (!strcmp(path, "/restconf") || !strcmp(path, "/restconf/")) {
		api_root(req);
	} else if (!strcmp(path, "/metrics")) {
		if (m == EVHTTP_REQ_GET || m == EVHTTP_REQ_HEAD)
			rc_metrics(rc, req);
		else
			method_not_allowed(req, "GET");
	} else if (!strcmp(path, "/.well-known/host-meta")) {
		host_meta(req);
	} else {
		rc_err_set(&err, 404, "invalid-value", NULL,
		           "no resource %.200s (the API is under /restconf, metrics at /metrics)",
		           path);
		rc_reply_error(req, &err);
	}
}

/* A socket left by a daemon that was killed is removed; anything else at the path is not. */
static int unix_listen(const char *path, const char *group, char *errbuf, size_t errlen)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, err;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(errbuf, errlen, "restconf socket %s: path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(errbuf, errlen, "restconf socket %s: exists and is not a socket",
			         path);
			return -EEXIST;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 || chmod(path, 0660) != 0)
		goto fail;
	if (group && group[0]) {
		struct group *g = getgrnam(group);
		if (!g) {
			snprintf(errbuf, errlen, "restconf socket %s: no group %s", path, group);
			close(fd);
			unlink(path);
			return -ENOENT;
		}
		if (chown(path, (uid_t)-1, g->gr_gid) != 0)
			goto fail;
	}
	if (listen(fd, RC_BACKLOG) != 0)
		goto fail;
	return fd;
fail:
	err = errno;
	snprintf(errbuf, errlen, "restconf socket %s: %s", path, strerror(err));
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return -err;
}

struct evhttp *rc_http_new(struct restconf *rc, struct rc_listener *l)
{
	struct evhttp *http = evhttp_new(rc->base);

	if (!http)
		return NULL;
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
	                                     EVHTTP_REQ_PATCH | EVHTTP_REQ_POST |
	                                     EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS);
	/*
	 * The gate refuses a larger body from its Content-Length, with an RFC
	 * 8040 document, before evhttp reads any of it; evhttp's own limits
	 * stay as a backstop.
	 */
	evhttp_set_max_body_size(http, (ev_ssize_t)rc->max_body);
	evhttp_set_max_headers_size(http, RC_HEADERS_MAX);
	evhttp_set_timeout(http, RC_TIMEOUT_S);
	evhttp_set_bevcb(http, rc_gate_bev, l);
	evhttp_set_gencb(http, dispatch, l);
	return http;
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct restconf *rc = arg;

	rc_gate_sweep(&rc->local, false);
	for (unsigned i = 0; i < rc->ntcp; i++)
		rc_gate_sweep(&rc->tcp[i], false);
}

struct restconf *restconf_start(struct event_base *base, const struct restconf_backend *be,
                                const struct restconf_opts *o, char *errbuf, size_t errlen)
{
	struct restconf *rc = calloc(1, sizeof(*rc));
	struct restconf_err err;

	if (!rc) {
		snprintf(errbuf, errlen, "restconf: out of memory");
		return NULL;
	}
	rc->base = base;
	rc->be = *be;
	rc->unix_fd = -1;
	snprintf(rc->yang_dir, sizeof(rc->yang_dir), "%s", o->yang_dir);
	snprintf(rc->startup_path, sizeof(rc->startup_path), "%s", o->startup_path);
	snprintf(rc->unix_path, sizeof(rc->unix_path), "%s", o->unix_path);
	/* One libyang context for everything, the checks of every write included. */
	rc->parser = cfg_parser_new(o->yang_dir, errbuf, errlen);
	if (!rc->parser)
		goto fail;
	rc->ctx = cfg_parser_ctx(rc->parser);
	/* Errors are collected and sent to the client, not logged (control thread only). */
	ly_log_options(LY_LOSTORE);
	if (rc_running_reload(rc, &err) != 0) {
		snprintf(errbuf, errlen, "restconf: %s", err.msg);
		goto fail;
	}
	rc->max_body = o->max_body;
	rc->local = (struct rc_listener){.rc = rc};
	struct timeval second = {1, 0};
	rc->sweep_ev = event_new(base, -1, EV_PERSIST, sweep_cb, rc);
	if (!rc->sweep_ev || event_add(rc->sweep_ev, &second) != 0) {
		snprintf(errbuf, errlen, "restconf: out of memory");
		goto fail;
	}
	rc->http = rc->local.http = rc_http_new(rc, &rc->local);
	if (!rc->http) {
		snprintf(errbuf, errlen, "restconf: out of memory");
		goto fail;
	}
	if (o->cfg && rc_tcp_start(rc, o->cfg, errbuf, errlen) != 0)
		goto fail;
	if (o->unix_path && o->unix_path[0]) {
		rc->unix_fd = unix_listen(o->unix_path, o->unix_group, errbuf, errlen);
		if (rc->unix_fd < 0)
			goto fail;
		if (!evhttp_accept_socket_with_handle(rc->http, rc->unix_fd)) {
			snprintf(errbuf, errlen, "restconf socket %s: cannot watch it",
			         o->unix_path);
			close(rc->unix_fd);
			rc->unix_fd = -1;
			goto fail;
		}
	}
	return rc;
fail:
	restconf_stop(rc);
	return NULL;
}

void restconf_stop(struct restconf *rc)
{
	if (!rc)
		return;
	rc_streams_stop(rc);
	ly_set_free(rc->counters, NULL);
	rc_tcp_stop(rc);
	if (rc->http)
		evhttp_free(rc->http); /* closes the listening socket it was given */
	else if (rc->unix_fd >= 0)
		close(rc->unix_fd);
	rc_gate_sweep(&rc->local, true); /* evhttp let go of every connection */
	if (rc->sweep_ev)
		event_free(rc->sweep_ev);
	if (rc->unix_fd >= 0)
		unlink(rc->unix_path);
	lyd_free_all(rc->running);
	cfg_parser_free(rc->parser);
	free(rc);
}

int restconf_running_changed(struct restconf *rc, struct restconf_err *err)
{
	return rc_running_reload(rc, err);
}

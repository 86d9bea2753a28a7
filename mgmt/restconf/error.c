/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RFC 8040 section 7.1 error documents, and turning libyang's errors into
 * them. The error-path is an RFC 7951 section 6.11 instance-identifier, the
 * form libyang uses for data paths.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

void restconf_err_set(struct restconf_err *err, int status, const char *tag, const char *path,
                      const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	err->tag = tag;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/*
 * libyang 2.1 gives the location as text: `Data location "/a:b/c", line
 * number 3.` or `Schema location "/a:b".`; keep the quoted path.
 */
static void ly_location_path(const char *loc, char *path, size_t len)
{
	const char *q1 = loc ? strchr(loc, '"') : NULL;
	const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;

	path[0] = '\0';
	if (q1 && q2)
		snprintf(path, len, "%.*s", (int)(q2 - q1 - 1), q1 + 1);
}

void rc_err_from_ly(const struct ly_ctx *ctx, struct restconf_err *err, const char *what)
{
	const struct ly_err_item *e;
	char path[512];

	for (e = ly_err_first(ctx); e; e = e->next)
		if (e->level == LY_LLERR && e->msg)
			break;
	if (!e) {
		rc_err_set(err, 400, "malformed-message", NULL, "%s failed", what);
		return;
	}
	ly_location_path(e->path, path, sizeof(path));
	/* Only schema and type violations have a data path; parse errors are syntax. */
	rc_err_set(err, 400,
	           e->vecode == LYVE_SYNTAX_JSON || e->vecode == LYVE_SYNTAX ? "malformed-message"
	                                                                     : "invalid-value",
	           path, "%s: %s", what, e->msg);
	for (char *c = err->msg; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
}

/* RFC 8259 section 7 string escaping. */
static void json_str(struct evbuffer *b, const char *s)
{
	evbuffer_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = *s;
		if (c == '"' || c == '\\')
			evbuffer_add_printf(b, "\\%c", c);
		else if (c < 0x20)
			evbuffer_add_printf(b, "\\u%04x", c);
		else
			evbuffer_add(b, s, 1);
	}
	evbuffer_add(b, "\"", 1);
}

static const char *err_type(const struct restconf_err *err)
{
	/* RFC 8040 7.1: "protocol" for what is wrong with the request itself. */
	if (!strcmp(err->tag, "malformed-message") || !strcmp(err->tag, "operation-not-supported"))
		return "protocol";
	return "application";
}

/* XML character data (XML 1.0 section 2.4): escape the markup characters. */
static void xml_text(struct evbuffer *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			evbuffer_add_printf(b, "&lt;");
		else if (*s == '>')
			evbuffer_add_printf(b, "&gt;");
		else if (*s == '&')
			evbuffer_add_printf(b, "&amp;");
		else if ((unsigned char)*s >= 0x20 || *s == '\t')
			evbuffer_add(b, s, 1);
	}
}

/* RFC 8040 7.1 in XML; the error-path's prefixes are the module names, declared here. */
static void error_xml(struct evbuffer *b, const struct restconf_err *err)
{
	evbuffer_add_printf(b,
	                    "<errors xmlns=\"" RC_NS "\"><error><error-type>%s</error-type>"
	                    "<error-tag>%s</error-tag>",
	                    err_type(err), err->tag);
	if (err->path[0]) {
		evbuffer_add_printf(b, "<error-path xmlns:cellgate=\"%s\">",
		                    "urn:cellgate:params:xml:ns:yang:cellgate");
		xml_text(b, err->path);
		evbuffer_add_printf(b, "</error-path>");
	}
	evbuffer_add_printf(b, "<error-message>");
	xml_text(b, err->msg);
	evbuffer_add_printf(b, "</error-message></error></errors>\n");
}

void rc_reply_error(struct evhttp_request *req, const struct restconf_err *err)
{
	struct evbuffer *b = evbuffer_new();

	if (!b) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	if (rc_reply_xml(req)) {
		error_xml(b, err);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
		                  RC_YANG_XML);
		evhttp_send_reply(req, err->status, NULL, b);
		evbuffer_free(b);
		return;
	}
	evbuffer_add_printf(b,
	                    "{\"ietf-restconf:errors\":{\"error\":[{\"error-type\":\"%s\","
	                    "\"error-tag\":\"%s\"",
	                    err_type(err), err->tag);
	if (err->path[0]) {
		evbuffer_add_printf(b, ",\"error-path\":");
		json_str(b, err->path);
	}
	evbuffer_add_printf(b, ",\"error-message\":");
	json_str(b, err->msg);
	evbuffer_add_printf(b, "}]}}\n");
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", RC_YANG_JSON);
	evhttp_send_reply(req, err->status, NULL, b);
	evbuffer_free(b);
}

bool rc_reply_xml(struct evhttp_request *req)
{
	const char *a = evhttp_find_header(evhttp_request_get_input_headers(req), "Accept");

	return a && strstr(a, RC_YANG_XML) && !strstr(a, RC_YANG_JSON) &&
	       !strstr(a, "application/json");
}

bool rc_body_xml(struct evhttp_request *req)
{
	const char *ct = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");

	return ct && (!strncmp(ct, RC_YANG_XML, strlen(RC_YANG_XML)) ||
	              !strncmp(ct, "application/xml", 15));
}

void rc_reply(struct evhttp_request *req, int status, const char *ctype, const char *body,
              size_t len)
{
	struct evbuffer *b = NULL;

	if (body && !(b = evbuffer_new())) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	if (b)
		evbuffer_add(b, body, len);
	if (ctype)
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", ctype);
	evhttp_send_reply(req, status, NULL, b);
	if (b)
		evbuffer_free(b);
}

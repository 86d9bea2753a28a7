/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An HTTP/1.x request head (RFC 7230 section 3), read by the gate (gate.c)
 * before evhttp sees it: what may decide on a request before its body is
 * read. Pure, for the unit tests and the fuzzer.
 *
 * Where evhttp would read the message differently, the head is refused
 * rather than guessed at, so that the gate and evhttp always agree on
 * where a request ends (RFC 7230 section 3.3.3 and 9.5, request
 * smuggling): a CR or LF that is not part of a CRLF (evhttp also ends lines
 * at a bare LF), a NUL, obsolete line folding (section 3.2.4), a repeated
 * or malformed Content-Length (section 3.3.2), and any Transfer-Encoding,
 * whose body length only reading it would tell (411, section 3.3.3 item 5).
 */
#include "cellgate-build.h" /* _GNU_SOURCE: memmem */

#include <string.h>
#include <strings.h>

#include "mgmt/restconf/rc_priv.h"

static const struct {
	const char *name;
	enum evhttp_cmd_type type;
} methods[] = {
    {"GET", EVHTTP_REQ_GET},     {"HEAD", EVHTTP_REQ_HEAD},     {"POST", EVHTTP_REQ_POST},
    {"PUT", EVHTTP_REQ_PUT},     {"DELETE", EVHTTP_REQ_DELETE}, {"OPTIONS", EVHTTP_REQ_OPTIONS},
    {"PATCH", EVHTTP_REQ_PATCH},
};

static void refuse(struct rc_head *h, int status, const char *why)
{
	if (!h->error) {
		h->error = status;
		h->why = why;
	}
}

/* Only CRLF ends a line, and no NUL: else evhttp could see other lines than we do. */
static bool line_breaks_ok(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\0')
			return false;
		if (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n'))
			return false;
		if (p[i] == '\n' && (i == 0 || p[i - 1] != '\r'))
			return false;
	}
	return true;
}

static void request_line(struct rc_head *h, const char *p, size_t n)
{
	const char *sp1 = memchr(p, ' ', n), *sp2;
	size_t mlen;

	if (!sp1 || !(sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p))))
		return refuse(h, 400, "malformed request line");
	mlen = (size_t)(sp1 - p);
	h->known_method = false;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strlen(methods[i].name) == mlen && !memcmp(p, methods[i].name, mlen)) {
			h->method = methods[i].type;
			h->known_method = true;
		}
	if (!h->known_method)
		return refuse(h, 405, "method not supported");
	size_t vlen = n - (size_t)(sp2 + 1 - p);
	if (vlen != 8 || (memcmp(sp2 + 1, "HTTP/1.1", 8) && memcmp(sp2 + 1, "HTTP/1.0", 8)))
		return refuse(h, 400, "not an HTTP/1.0 or HTTP/1.1 request");
	h->http11 = !memcmp(sp2 + 1, "HTTP/1.1", 8);
}

static bool name_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(p, name, n);
}

static void content_length(struct rc_head *h, const char *v, size_t n)
{
	uint64_t len = 0;

	if (h->has_length)
		return refuse(h, 400, "Content-Length given twice");
	h->has_length = true;
	if (!n || n > 15)
		return refuse(h, 400, "malformed Content-Length");
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return refuse(h, 400, "malformed Content-Length");
		len = len * 10 + (uint64_t)(v[i] - '0');
	}
	h->length = len;
}

static void header_line(struct rc_head *h, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n), *v, *end = p + n;

	if (!n)
		return;
	if (p[0] == ' ' || p[0] == '\t')
		return refuse(h, 400, "folded header line (obs-fold)");
	if (!colon || colon == p || memchr(p, ' ', (size_t)(colon - p)) ||
	    memchr(p, '\t', (size_t)(colon - p)))
		return refuse(h, 400,
		              "malformed header line"); /* RFC 7230 3.2.4: no space before ':' */
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	size_t nlen = (size_t)(colon - p), vlen = (size_t)(end - v);
	if (name_is(p, nlen, "Content-Length"))
		content_length(h, v, vlen);
	else if (name_is(p, nlen, "Transfer-Encoding"))
		refuse(h, 411, "a request body needs a Content-Length (no Transfer-Encoding)");
	else if (name_is(p, nlen, "Expect") && h->http11 &&
	         !(vlen == 12 && !strncasecmp(v, "100-continue", 12)))
		refuse(h, 417, "only Expect: 100-continue is supported");
	else if (name_is(p, nlen, "Authorization")) {
		if (h->auth)
			return refuse(h, 400, "Authorization given twice");
		h->auth = v;
		h->auth_len = vlen;
	} else if (name_is(p, nlen, "Accept") && !h->accept) {
		h->accept = v;
		h->accept_len = vlen;
	}
}

void rc_head_parse(const char *buf, size_t len, bool too_long, struct rc_head *h)
{
	const char *p = buf, *end = buf + len, *eol;

	memset(h, 0, sizeof(*h));
	if (too_long)
		return refuse(h, 431, "request head larger than 16384 bytes");
	if (len < 4 || memcmp(end - 4, "\r\n\r\n", 4) || !line_breaks_ok(buf, len))
		return refuse(h, 400, "malformed request head (lines must end in CRLF)");
	end -= 2; /* the empty line */
	eol = memmem(p, (size_t)(end - p), "\r\n", 2);
	request_line(h, p, (size_t)(eol - p));
	for (p = eol + 2; !h->error && p < end; p = eol + 2) {
		eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		header_line(h, p, (size_t)(eol - p));
	}
	/* evhttp reads no body for HEAD; every other method's is Content-Length bytes. */
	if (!h->error && h->method == EVHTTP_REQ_HEAD)
		h->length = 0;
	if (h->error)
		h->length = 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client side of HTTP/1.1 (RFC 9112) as much as cellgatectl needs:
 * one request per connection, a reply framed by Content-Length, chunked
 * (the route list is streamed) or by the connection closing. The reply is
 * untrusted: its size is capped and its status line checked before
 * anything is used.
 */
#include "cellgate-build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mgmt/cli/http.h"

static int connect_unix(const char *path, char *errbuf, size_t errlen)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(errbuf, errlen, "%s: socket path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		int err = errno;
		snprintf(errbuf, errlen, "%s: %s%s", path, strerror(err),
		         err == ENOENT || err == ECONNREFUSED ? " (is cellgated running?)" : "");
		if (fd >= 0)
			close(fd);
		return -err;
	}
	return fd;
}

static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int recv_all(int fd, char **buf, size_t *len)
{
	size_t cap = 65536;

	*len = 0;
	*buf = malloc(cap + 1);
	if (!*buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;
		if (*len == cap) {
			char *nb;
			if (cap >= HTTP_REPLY_MAX)
				return -EFBIG;
			cap *= 2;
			if (!(nb = realloc(*buf, cap + 1)))
				return -ENOMEM;
			*buf = nb;
		}
		n = recv(fd, *buf + *len, cap - *len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	(*buf)[*len] = '\0';
	return 0;
}

/* Value of header `name` (with the colon) in the header block, or NULL. */
static const char *header(const char *head, const char *name, char *buf, size_t len)
{
	char pat[64];
	const char *h;

	snprintf(pat, sizeof(pat), "\r\n%s", name);
	if (!(h = strcasestr(head, pat)))
		return NULL;
	h += strlen(pat);
	h += strspn(h, " \t");
	snprintf(buf, len, "%.*s", (int)strcspn(h, "\r\n"), h);
	return buf;
}

/* Undo chunked transfer coding in place (RFC 9112 7.1); the decoded length, or -1. */
static long dechunk(char *b, size_t len)
{
	size_t in = 0, out = 0;

	for (;;) {
		char *end;
		unsigned long n = strtoul(b + in, &end, 16);
		char *eol = memchr(b + in, '\n', len - in);

		if (end == b + in || !eol)
			return -1;
		in = (size_t)(eol - b) + 1; /* past the size line (and any extension) */
		if (n == 0)
			return (long)out;
		if (n > len - in || len - in - n < 2)
			return -1;
		memmove(b + out, b + in, n);
		out += n;
		in += n + 2; /* the chunk's CRLF */
	}
}

/* Split "HTTP/1.1 200 OK\r\n...\r\n\r\nbody" into status, body and paging headers. */
static int parse_reply(char *raw, size_t len, struct http_reply *r)
{
	char *hdr_end = strstr(raw, "\r\n\r\n"), v[64];
	size_t body_len;

	if (strncmp(raw, "HTTP/1.", 7) || !hdr_end || sscanf(raw + 8, " %3d", &r->status) != 1 ||
	    r->status < 100 || r->status > 599)
		return -EPROTO;
	hdr_end[2] = '\0'; /* keep the last header's CRLF for header() */
	body_len = len - (size_t)(hdr_end + 4 - raw);
	if (header(raw, "Transfer-Encoding:", v, sizeof(v)) && strcasestr(v, "chunked")) {
		long n = dechunk(hdr_end + 4, body_len);
		if (n < 0)
			return -EPROTO;
		body_len = (size_t)n;
	} else if (header(raw, "Content-Length:", v, sizeof(v))) {
		size_t want = strtoul(v, NULL, 10);
		if (want < body_len)
			body_len = want;
	}
	r->remaining = header(raw, "Cellgate-Remaining:", v, sizeof(v)) ? strtoll(v, NULL, 10) : -1;
	if (!header(raw, "Cellgate-Next-Cursor:", r->next_cursor, sizeof(r->next_cursor)))
		r->next_cursor[0] = '\0';
	r->body = malloc(body_len + 1);
	if (!r->body)
		return -ENOMEM;
	memcpy(r->body, hdr_end + 4, body_len);
	r->body[body_len] = '\0';
	r->len = body_len;
	return 0;
}

int http_request(const char *sock, const char *method, const char *path, const char *body,
                 struct http_reply *r, char *errbuf, size_t errlen)
{
	char head[4096], *raw = NULL;
	size_t blen = body ? strlen(body) : 0, rawlen;
	int fd, err;

	*r = (struct http_reply){0};
	if ((size_t)snprintf(head, sizeof(head),
	                     "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
	                     "Accept: application/yang-data+json\r\n"
	                     "Content-Type: application/yang-data+json\r\n"
	                     "Content-Length: %zu\r\n\r\n",
	                     method, path, blen) >= sizeof(head)) {
		snprintf(errbuf, errlen, "request path too long");
		return -ENAMETOOLONG;
	}
	if ((fd = connect_unix(sock, errbuf, errlen)) < 0)
		return fd;
	err = send_all(fd, head, strlen(head));
	if (!err && blen)
		err = send_all(fd, body, blen);
	if (!err)
		err = recv_all(fd, &raw, &rawlen);
	close(fd);
	if (!err)
		err = parse_reply(raw, rawlen, r);
	free(raw);
	if (err)
		snprintf(errbuf, errlen, "%s: %s", sock,
		         err == -EPROTO ? "not an HTTP reply" : strerror(-err));
	return err;
}

void http_reply_free(struct http_reply *r)
{
	free(r->body);
	r->body = NULL;
}

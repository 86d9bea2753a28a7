/* SPDX-License-Identifier: BSD-2-Clause */
/* A minimal HTTP/1.1 client over a UNIX stream socket, for RESTCONF. */
#ifndef CELLGATECTL_HTTP_H
#define CELLGATECTL_HTTP_H

#include <stddef.h>

#define HTTP_REPLY_MAX (64u << 20) /* a reply larger than this is refused */

struct http_reply {
	int status;
	char *body; /* NUL-terminated, malloc'd; may be empty */
	size_t len;
	/* The route list's paging headers: Cellgate-Next-Cursor ("" = none), Cellgate-Remaining. */
	char next_cursor[48]; /* an IPv6 prefix: 39 + 4 */
	long long remaining;  /* -1 = not given */
};

/*
 * One request (Connection: close). body may be NULL. The reply's body is
 * framed by Content-Length, chunked transfer coding (RFC 9112 7.1) or the
 * connection closing. 0, or a negative
 * errno with a message in errbuf (cannot connect, malformed reply).
 */
int http_request(const char *sock, const char *method, const char *path, const char *body,
                 struct http_reply *r, char *errbuf, size_t errlen);
void http_reply_free(struct http_reply *r);

#endif

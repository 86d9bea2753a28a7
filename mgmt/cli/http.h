/* A minimal HTTP/1.1 client over a UNIX stream socket, for RESTCONF. */
#ifndef CELLGATECTL_HTTP_H
#define CELLGATECTL_HTTP_H

#include <stddef.h>

#define HTTP_REPLY_MAX (64u << 20) /* a reply larger than this is refused */

struct http_reply {
	int status;
	char *body; /* NUL-terminated, malloc'd; may be empty */
	size_t len;
};

/*
 * One request (Connection: close). body may be NULL. 0, or a negative
 * errno with a message in errbuf (cannot connect, malformed reply).
 */
int http_request(const char *sock, const char *method, const char *path, const char *body,
                 struct http_reply *r, char *errbuf, size_t errlen);
void http_reply_free(struct http_reply *r);

#endif

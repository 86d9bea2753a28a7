/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The route list (/cellgate/state/fib/route) as a streamed reply: HTTP/1.1
 * chunked transfer (RFC 9112 section 7.1), a slice of routes per turn of
 * the event loop, the next slice only once the previous one has left for
 * the socket. Nothing holds the list: memory is one slice, and the control
 * loop is never away for longer than a slice takes (SLICE_NS).
 *
 * The position is a route key, not a pointer (the backend's cursor):
 * routes added or removed while a reply streams are listed or not
 * depending on where they fall, none twice, and every route present from
 * start to end is listed once. Each is shown as it is when its slice is
 * built; the list is not a snapshot.
 *
 * A GET of something holding the list (/, /cellgate, state, state/fib) is
 * built with libyang as usual but with one placeholder route, printed, and
 * streamed as the text before the placeholder, the routes, and the text
 * after it (rc_stream_spliced). The IPv6 route list (fib/route6) is
 * streamed, paged and filtered the same way, in the same prefix order, with
 * a placeholder of its own, after the IPv4 one when a document holds both;
 * its cursor is an IPv6 key (struct restconf_key6).
 */
#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/addr.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "mgmt/restconf/rc_priv.h"

#define SLICE_ROUTES 4096u    /* at most this many routes a turn */
#define SLICE_BATCH  256u     /* asked from the backend at once; the clock is read between */
#define SLICE_NS     2000000u /* ... and no longer than this */
#define WATCH_S      1        /* how often a stream waiting on its client checks it is there */
#define CG_NS        "urn:cellgate:params:xml:ns:yang:cellgate"

struct rc_stream {
	struct restconf *rc;
	struct evhttp_request *req;
	struct event *ev; /* next slice (zero timeout), or the watch while waiting */
	struct evbuffer *buf;
	char *tail; /* sent after the last route */
	uint64_t from, to, left;
	struct restconf_key6 from6, to6; /* the route6 list's range, from6 its cursor */
	unsigned level, depth;           /* of the route entries (rc_route_print) */
	bool v6;                         /* listing route6, not route */
	bool xml, xml_ns, first, waiting;
	struct rc_stream *next;
};

static void evbuffer_put(void *arg, const char *p, size_t n)
{
	evbuffer_add(arg, p, n);
}

/* A port name as a JSON string: escaped like every string of the state (lib/json.h). */
static void json_str(struct evbuffer *b, const char *s)
{
	evbuffer_add(b, "\"", 1);
	json_escape(s, evbuffer_put, b);
	evbuffer_add(b, "\"", 1);
}

static void xml_str(struct evbuffer *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			evbuffer_add(b, "&lt;", 4);
		else if (*s == '>')
			evbuffer_add(b, "&gt;", 4);
		else if (*s == '&')
			evbuffer_add(b, "&amp;", 5);
		else
			evbuffer_add(b, s, 1);
	}
}

/* The route6 list's order (restconf_key6): address, then length. */
static int key6_cmp(const struct restconf_key6 *a, const struct restconf_key6 *b)
{
	int c = memcmp(a->prefix, b->prefix, sizeof(a->prefix));

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* depth: RFC 8040 4.8.2 counted from the target, entries at `level`; 0 = unbounded. */
static bool within(unsigned depth, unsigned level)
{
	return depth == 0 || level <= depth;
}

/*
 * A route of either family as the text both encodings print: the IPv4 and
 * IPv6 lists differ only in how addresses are written and in the element
 * name. An empty address is none (a connected route's next hop).
 */
struct route_text {
	const char *elem; /* "route" or "route6" */
	char prefix[INET6_ADDRSTRLEN];
	unsigned len;
	const char *source, *type;
	unsigned n;
	struct {
		char address[INET6_ADDRSTRLEN];
		const char *interface;
		unsigned weight;
	} nh[RC_ROUTE_NH_MAX];
};

static void route_text4(const struct restconf_route *r, struct route_text *t)
{
	t->elem = "route";
	ip4_str(r->prefix, t->prefix);
	t->len = r->len;
	t->source = r->source;
	t->type = r->type;
	t->n = r->nnexthops < RC_ROUTE_NH_MAX ? r->nnexthops : RC_ROUTE_NH_MAX;
	for (unsigned i = 0; i < t->n; i++) {
		t->nh[i].address[0] = 0;
		if (r->nexthop[i].address)
			ip4_str(r->nexthop[i].address, t->nh[i].address);
		t->nh[i].interface = r->nexthop[i].interface;
		t->nh[i].weight = r->nexthop[i].weight;
	}
}

static void route_text6(const struct restconf_route6 *r, struct route_text *t)
{
	t->elem = "route6";
	inet_str(AF_INET6, r->prefix, t->prefix, sizeof(t->prefix));
	t->len = r->len;
	t->source = r->source;
	t->type = r->type;
	t->n = r->nnexthops < RC_ROUTE_NH_MAX ? r->nnexthops : RC_ROUTE_NH_MAX;
	for (unsigned i = 0; i < t->n; i++) {
		t->nh[i].address[0] = 0;
		if (r->nexthop[i].has_address)
			inet_str(AF_INET6, r->nexthop[i].address, t->nh[i].address,
			         sizeof(t->nh[i].address));
		t->nh[i].interface = r->nexthop[i].interface;
		t->nh[i].weight = r->nexthop[i].weight;
	}
}

static void route_text_json(struct evbuffer *b, const struct route_text *t, unsigned level,
                            unsigned depth)
{
	evbuffer_add_printf(b, "{\"prefix\":\"%s/%u\"", t->prefix, t->len);
	if (within(depth, level + 1))
		evbuffer_add_printf(b, ",\"source\":\"%s\",\"type\":\"%s\"", t->source, t->type);
	if (t->n && within(depth, level + 2)) {
		evbuffer_add(b, ",\"nexthop\":[", 12);
		for (unsigned i = 0; i < t->n; i++) {
			evbuffer_add(b, i ? ",{" : "{", i ? 2 : 1);
			if (t->nh[i].address[0])
				evbuffer_add_printf(b, "\"address\":\"%s\",", t->nh[i].address);
			evbuffer_add(b, "\"interface\":", 12);
			json_str(b, t->nh[i].interface);
			evbuffer_add_printf(b, ",\"weight\":%u}", t->nh[i].weight);
		}
		evbuffer_add(b, "]", 1);
	}
	evbuffer_add(b, "}", 1);
}

static void route_text_xml(struct evbuffer *b, const struct route_text *t, unsigned level,
                           unsigned depth, bool ns)
{
	evbuffer_add_printf(b, "<%s%s><prefix>%s/%u</prefix>", t->elem,
	                    ns ? " xmlns=\"" CG_NS "\"" : "", t->prefix, t->len);
	if (within(depth, level + 1))
		evbuffer_add_printf(b, "<source>%s</source><type>%s</type>", t->source, t->type);
	for (unsigned i = 0; i < t->n && within(depth, level + 2); i++) {
		evbuffer_add(b, "<nexthop>", 9);
		if (t->nh[i].address[0])
			evbuffer_add_printf(b, "<address>%s</address>", t->nh[i].address);
		evbuffer_add(b, "<interface>", 11);
		xml_str(b, t->nh[i].interface);
		evbuffer_add_printf(b, "</interface><weight>%u</weight></nexthop>",
		                    t->nh[i].weight);
	}
	evbuffer_add_printf(b, "</%s>", t->elem);
}

void rc_route_json(struct evbuffer *b, const struct restconf_route *r, unsigned level,
                   unsigned depth)
{
	struct route_text t;

	route_text4(r, &t);
	route_text_json(b, &t, level, depth);
}

void rc_route6_json(struct evbuffer *b, const struct restconf_route6 *r, unsigned level,
                    unsigned depth)
{
	struct route_text t;

	route_text6(r, &t);
	route_text_json(b, &t, level, depth);
}

/* One entry of the list being streamed, in the reply's encoding. */
static void stream_text(struct rc_stream *s, const struct route_text *t)
{
	if (s->xml) {
		route_text_xml(s->buf, t, s->level, s->depth, s->xml_ns);
	} else {
		if (!s->first)
			evbuffer_add(s->buf, ",", 1);
		route_text_json(s->buf, t, s->level, s->depth);
	}
	s->first = false;
}

static void stream_route6(void *ctx, const struct restconf_route6 *r)
{
	struct route_text t;

	route_text6(r, &t);
	stream_text(ctx, &t);
}

static void stream_route(void *ctx, const struct restconf_route *r)
{
	struct route_text t;

	route_text4(r, &t);
	stream_text(ctx, &t);
}

static void stream_free(struct rc_stream *s)
{
	struct rc_stream **pp = &s->rc->streams;

	while (*pp && *pp != s)
		pp = &(*pp)->next;
	if (*pp)
		*pp = s->next;
	if (s->ev)
		event_free(s->ev);
	if (s->buf)
		evbuffer_free(s->buf);
	free(s->tail);
	free(s);
}

static void stream_written(struct evhttp_connection *evcon, void *arg);

/*
 * The placeholders a spliced text may hold (the route list, the route6
 * list): the first one in `text`, NULL if none. *head: the text to send
 * before the entries (JSON keeps `"route":[`), *tail: what follows them.
 */
static const char *mark_find(const char *text, bool xml, bool *v6, size_t *head, const char **tail)
{
	static const char j4[] = "\"route\":[{\"prefix\":\"" RC_ROUTE_PLACEHOLDER "\"}]";
	static const char x4[] = "<route><prefix>" RC_ROUTE_PLACEHOLDER "</prefix></route>";
	static const char j6[] = "\"route6\":[{\"prefix\":\"" RC_ROUTE6_PLACEHOLDER "\"}]";
	static const char x6[] = "<route6><prefix>" RC_ROUTE6_PLACEHOLDER "</prefix></route6>";
	const char *m4 = strstr(text, xml ? x4 : j4), *m6 = strstr(text, xml ? x6 : j6);
	const char *m = m4 && (!m6 || m4 < m6) ? m4 : m6;
	size_t open, mlen;

	if (!m)
		return NULL;
	*v6 = m == m6;
	open = xml ? 0 : strlen(*v6 ? "\"route6\":[" : "\"route\":[");
	mlen = *v6 ? strlen(xml ? x6 : j6) : strlen(xml ? x4 : j4);
	*head = (size_t)(m - text) + open;
	*tail = m + mlen - (xml ? 0 : 1);
	return m;
}

/* Set the stream to list one family's routes, all of them, from the start. */
static void stream_family(struct rc_stream *s, bool v6)
{
	s->v6 = v6;
	s->from = 0;
	s->to = RC_ROUTE_KEY_MAX;
	memset(&s->from6, 0, sizeof(s->from6));
	memset(s->to6.prefix, 0xff, sizeof(s->to6.prefix));
	s->to6.len = 128;
	s->left = UINT64_MAX;
	s->first = true;
}

/* A list is done: a placeholder further on in the tail starts the next one. */
static bool stream_next_list(struct rc_stream *s)
{
	const char *tail;
	char *rest;
	size_t head;
	bool v6;

	if (!s->tail || !mark_find(s->tail, s->xml, &v6, &head, &tail) || !(rest = strdup(tail)))
		return false;
	evbuffer_add(s->buf, s->tail, head);
	free(s->tail);
	s->tail = rest;
	stream_family(s, v6);
	return true;
}

/* Up to `ask` routes of the list being streamed; true when it is done. */
static bool stream_batch(struct rc_stream *s, unsigned ask, unsigned *n)
{
	if (!s->v6) {
		*n = s->rc->be.routes(s->rc->be.arg, &s->from, s->to, ask, stream_route, s);
		return *n < ask;
	}
	*n = s->rc->be.routes6
	         ? s->rc->be.routes6(s->rc->be.arg, &s->from6, &s->to6, ask, stream_route6, s)
	         : 0;
	return *n < ask;
}

/* One slice: the routes of one turn, or the end. */
static void stream_slice(struct rc_stream *s)
{
	uint64_t t0 = mono_ns();
	unsigned got = 0, n;
	bool done = false;

	while (got < SLICE_ROUTES && s->left) {
		unsigned ask = SLICE_BATCH < s->left ? SLICE_BATCH : (unsigned)s->left;
		done = stream_batch(s, ask, &n);
		got += n;
		s->left -= n < s->left ? n : s->left;
		if (done)
			break;
		if (mono_ns() - t0 > SLICE_NS)
			break;
	}
	if ((done || !s->left) && !stream_next_list(s)) {
		if (s->tail)
			evbuffer_add(s->buf, s->tail, strlen(s->tail));
		evhttp_send_reply_chunk(s->req, s->buf);
		evhttp_send_reply_end(s->req);
		stream_free(s);
		return;
	}
	s->waiting = true;
	evhttp_send_reply_chunk_with_cb(s->req, s->buf, stream_written, s);
	/* Watch for a client gone meanwhile: evhttp then drops the request's connection. */
	event_add(s->ev, &(struct timeval){.tv_sec = WATCH_S});
}

static void stream_event(evutil_socket_t fd, short what, void *arg)
{
	struct rc_stream *s = arg;

	(void)fd;
	(void)what;
	if (!evhttp_request_get_connection(s->req)) {
		/* The client went away (EOF, error, timeout): evhttp left the request to us. */
		evhttp_send_reply_end(s->req);
		stream_free(s);
		return;
	}
	if (s->waiting) {
		event_add(s->ev, &(struct timeval){.tv_sec = WATCH_S});
		return;
	}
	stream_slice(s);
}

/* The previous slice left for the socket: the next one on a later turn of the loop. */
static void stream_written(struct evhttp_connection *evcon, void *arg)
{
	struct rc_stream *s = arg;

	(void)evcon;
	s->waiting = false;
	event_add(s->ev, &(struct timeval){0});
}

/* Start a stream: headers and `head` now, routes [from, to] (at most `left`), then `tail`. */
static int stream_start(struct restconf *rc, struct evhttp_request *req, const char *head,
                        const char *tail, const struct rc_stream *tmpl)
{
	struct rc_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	*s = *tmpl;
	s->rc = rc;
	s->req = req;
	s->first = true;
	s->tail = tail ? strdup(tail) : NULL;
	s->buf = evbuffer_new();
	s->ev = evtimer_new(rc->base, stream_event, s);
	if ((tail && !s->tail) || !s->buf || !s->ev) {
		stream_free(s); /* not linked yet: it only frees */
		return -1;
	}
	s->next = rc->streams;
	rc->streams = s;
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	                  s->xml ? RC_YANG_XML : RC_YANG_JSON);
	evhttp_send_reply_start(req, 200, "OK");
	evbuffer_add(s->buf, head, strlen(head));
	s->waiting = true;
	evhttp_send_reply_chunk_with_cb(req, s->buf, stream_written, s);
	event_add(s->ev, &(struct timeval){.tv_sec = WATCH_S});
	return 0;
}

/*
 * A route list reply: HEAD gets the headers only (RFC 9110 9.3.2),
 * otherwise the list is streamed between head and tail. 0, or -1 when
 * out of memory and nothing was sent.
 */
static int stream_reply(struct restconf *rc, struct evhttp_request *req, const char *head,
                        const char *tail, struct rc_stream *s)
{
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		rc_reply(req, 200, s->xml ? RC_YANG_XML : RC_YANG_JSON, NULL, 0);
		return 0;
	}
	return stream_start(rc, req, head, tail, s);
}

void rc_streams_stop(struct restconf *rc)
{
	/* evhttp_free frees the requests with their connections: only ours go here. */
	while (rc->streams)
		stream_free(rc->streams);
}

static void key_str(uint64_t key, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];

	snprintf(buf, len, "%s/%u", ip4_str((uint32_t)(key >> 8), ip), (unsigned)(key & 0xff));
}

/* The keys a request covers: a prefix (with its more specifics), or all; cursor and offset. */
static void page_range(struct restconf *rc, const struct rc_page *pg, uint64_t *from, uint64_t *to)
{
	*from = 0;
	*to = RC_ROUTE_KEY_MAX;
	if (pg->has_prefix) {
		uint32_t host = pg->plen ? ~(0xffffffffu << (32 - pg->plen)) : 0xffffffffu;
		*from = restconf_route_key(pg->prefix, pg->plen);
		*to = pg->longer ? restconf_route_key(pg->prefix | host, 32) : *from;
	}
	if (pg->has_cursor && pg->cursor > *from)
		*from = pg->cursor;
	if (pg->offset)
		*from = rc->be.routes_skip(rc->be.arg, *from, *to, pg->offset);
}

void rc_routes_get(struct restconf *rc, struct evhttp_request *req, const struct rc_page *pg,
                   unsigned depth, bool xml)
{
	struct restconf_err err = {0};
	struct rc_stream s = {.depth = depth, .level = 1, .xml = xml, .xml_ns = xml};
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	uint64_t total, page;
	char buf[64];

	page_range(rc, pg, &s.from, &s.to);
	total = s.from > s.to ? 0 : rc->be.routes_count(rc->be.arg, s.from, s.to);
	if (!total) {
		rc_err_set(&err, 404, "invalid-value", "/cellgate:cellgate/state/fib/route",
		           "no such data%s", pg->offset || pg->has_cursor ? " (past the end)" : "");
		rc_reply_error(req, &err);
		return;
	}
	page = pg->limit && pg->limit < total ? pg->limit : total;
	s.left = page;
	/* Where the next page starts (draft-ietf-netconf-list-pagination's "next" cursor). */
	snprintf(buf, sizeof(buf), "%lu", (unsigned long)(total - page));
	evhttp_add_header(hdr, "Cellgate-Remaining", buf);
	if (total > page) {
		key_str(rc->be.routes_skip(rc->be.arg, s.from, s.to, page), buf, sizeof(buf));
		evhttp_add_header(hdr, "Cellgate-Next-Cursor", buf);
	}
	if (stream_reply(rc, req, xml ? "<data xmlns=\"" RC_NS "\">" : "{\"cellgate:route\":[",
	                 xml ? "</data>\n" : "]}\n", &s) != 0) {
		rc_err_set(&err, 500, "operation-failed", NULL, "out of memory");
		rc_reply_error(req, &err);
	}
}

int rc_stream_spliced(struct restconf *rc, struct evhttp_request *req, const char *text,
                      unsigned level, unsigned depth, bool xml)
{
	struct rc_stream s = {.level = level, .depth = depth, .xml = xml};
	const char *tail;
	char *head;
	size_t hl;
	bool v6;
	int rv;

	if (!mark_find(text, xml, &v6, &hl, &tail))
		return 1; /* pruned away (depth, fields): a plain reply */
	stream_family(&s, v6);
	if (!(head = strndup(text, hl)))
		return -1;
	rv = stream_reply(rc, req, head, tail, &s);
	free(head);
	return rv;
}

static void key6_str(const struct restconf_key6 *k, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s/%u", inet_str(AF_INET6, k->prefix, ip, sizeof(ip)), k->len);
}

/* page_range for the route6 list: a prefix (with its more specifics), or all; cursor, offset. */
static bool page_range6(struct restconf *rc, const struct rc_page *pg, struct rc_stream *s)
{
	if (pg->has_prefix) {
		s->from6 = s->to6 = pg->prefix6;
		for (unsigned b = 0; pg->longer && b < 16; b++) {
			unsigned keep = pg->prefix6.len >= 8 * (b + 1) ? 8
			                : pg->prefix6.len > 8 * b      ? pg->prefix6.len - 8 * b
			                                               : 0;
			s->to6.prefix[b] |= (uint8_t)(0xffu >> keep);
		}
		s->to6.len = pg->longer ? 128 : pg->prefix6.len;
	}
	if (pg->has_cursor && key6_cmp(&pg->cursor6, &s->from6) > 0)
		s->from6 = pg->cursor6;
	if (key6_cmp(&s->from6, &s->to6) > 0)
		return false;
	return !pg->offset ||
	       rc->be.routes6_skip(rc->be.arg, &s->from6, &s->to6, pg->offset, &s->from6);
}

void rc_routes6_get(struct restconf *rc, struct evhttp_request *req, const struct rc_page *pg,
                    unsigned depth, bool xml)
{
	struct restconf_err err = {0};
	struct rc_stream s = {.depth = depth, .level = 1, .xml = xml, .xml_ns = xml};
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	struct restconf_key6 next;
	uint64_t total = 0, page;
	char buf[64];

	stream_family(&s, true);
	if (rc->be.routes6_count && page_range6(rc, pg, &s))
		total = rc->be.routes6_count(rc->be.arg, &s.from6, &s.to6);
	if (!total) {
		rc_err_set(&err, 404, "invalid-value", "/cellgate:cellgate/state/fib/route6",
		           "no such data%s", pg->offset || pg->has_cursor ? " (past the end)" : "");
		rc_reply_error(req, &err);
		return;
	}
	page = pg->limit && pg->limit < total ? pg->limit : total;
	s.left = page;
	snprintf(buf, sizeof(buf), "%lu", (unsigned long)(total - page));
	evhttp_add_header(hdr, "Cellgate-Remaining", buf);
	if (total > page && rc->be.routes6_skip(rc->be.arg, &s.from6, &s.to6, page, &next)) {
		key6_str(&next, buf, sizeof(buf));
		evhttp_add_header(hdr, "Cellgate-Next-Cursor", buf);
	}
	if (stream_reply(rc, req, xml ? "<data xmlns=\"" RC_NS "\">" : "{\"cellgate:route6\":[",
	                 xml ? "</data>\n" : "]}\n", &s) != 0) {
		rc_err_set(&err, 500, "operation-failed", NULL, "out of memory");
		rc_reply_error(req, &err);
	}
}

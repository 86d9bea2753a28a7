/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The gate in front of evhttp. Every connection's bufferevent is made here
 * (evhttp_set_bevcb), and a callback on its input buffer takes each chunk
 * the socket (or TLS) delivers before evhttp's read callback runs: bytes
 * reach evhttp only once the gate has read the head of the request they
 * belong to and decided on it alone:
 *  - on a TCP listener, a connection beyond max-connections is closed when
 *    accepted, and a head must authenticate (auth.c) before a byte of its
 *    body is read, so an unauthenticated client costs one bounded head,
 *    never a body of up to max-body-size;
 *  - everywhere, a body larger than max-body-size is refused from its
 *    Content-Length, as is one without (Transfer-Encoding), so evhttp never
 *    reads it and never answers with its own HTML error page.
 * A refused request reaches evhttp as a bodiless stand-in head with
 * "Connection: close"; the dispatcher finds the verdict here
 * (rc_gate_request) and answers with an RFC 8040 error document; the rest
 * of what the client sends is thrown away.
 *
 * One request at a time per connection: after a head and its body went
 * through, nothing more moves until the dispatcher took that request, so a
 * verdict always belongs to the request evhttp hands over. The head parser
 * (head.c) refuses whatever evhttp could read differently.
 *
 * The gate holds a reference on each bufferevent, so that it can tell when
 * evhttp has let go of one (its callbacks all cleared) and free it after
 * what evhttp wrote has left (a periodic sweep).
 */
#include "cellgate-build.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifdef HAVE_TLS
#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>
#endif

#include "mgmt/restconf/rc_priv.h"

#define RC_HEAD_TIMEOUT_S 10 /* a head started must be complete this soon (slow-header clients) */
#define RC_LINGER_MS      10000 /* evhttp is done: what it wrote may take this long to leave */
#define RC_HELD_SLACK     65536 /* beyond a head and a body, pipelined bytes the gate holds */

enum gate_state {
	G_HEAD,    /* reading a request head */
	G_BODY,    /* passing its body through */
	G_WAIT,    /* the request is with evhttp: nothing moves until it is dispatched */
	G_DISCARD, /* refused: the connection closes after the error; input is dropped */
};

struct rc_gate_conn {
	struct rc_gate_conn *next, **pprev;
	struct rc_listener *l;
	struct bufferevent *bev;
	struct evbuffer *held, *tmp; /* bytes not given to evhttp yet; scratch */
	struct evbuffer_cb_entry *cbe;
	struct event *timer;
	bool tls, busy, head_started;
	bool over_cap; /* refused at accept (in accept order): closed on the first turn of the loop */
	bool peer_known;
	uint64_t released_ms; /* when evhttp let go, 0 while it has it */
	enum gate_state state;
	uint64_t body_left;
	struct sockaddr_storage peer;
	struct rc_verdict verdict; /* of the request given to evhttp last */
};

static uint64_t mono_ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void conn_close_now(struct rc_gate_conn *g)
{
	evutil_socket_t fd = bufferevent_getfd(g->bev);

	/* evhttp owns the connection: end the socket; it sees EOF and lets go. */
	g->state = G_DISCARD;
	evbuffer_drain(g->held, evbuffer_get_length(g->held));
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

static void verdict_set(struct rc_gate_conn *g, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void verdict_set(struct rc_gate_conn *g, int status, const char *fmt, ...)
{
	va_list ap;

	g->verdict.status = status;
	va_start(ap, fmt);
	vsnprintf(g->verdict.msg, sizeof(g->verdict.msg), fmt, ap);
	va_end(ap);
}

#ifdef HAVE_TLS
static bool client_cert_ok(const struct rc_gate_conn *g)
{
	SSL *ssl = bufferevent_openssl_get_ssl(g->bev);

	return ssl && SSL_get0_peer_certificate(ssl) && SSL_get_verify_result(ssl) == X509_V_OK;
}
#endif

/* May this head go on? Fills g->verdict (status 0 = yes). */
static void head_judge(struct rc_gate_conn *g, const struct rc_head *h, const char *auth)
{
	struct restconf *rc = g->l->rc;

	g->verdict = (struct rc_verdict){0};
	if (h->error)
		return verdict_set(g, h->error, "%s", h->why);
	if (h->length > rc->max_body) {
		rc->gate.refused_size++;
		return verdict_set(g, 413,
		                   "request body of %lu bytes: the limit is %zu "
		                   "(restconf/max-body-size)",
		                   h->length, rc->max_body);
	}
	if (!g->l->tcp)
		return;
#ifdef HAVE_TLS
	if (g->tls && g->l->client_certs && client_cert_ok(g))
		return;
#endif
	switch (rc_auth_basic(&rc->auth, auth[0] ? auth : NULL, &g->peer)) {
	case RC_AUTH_OK:
		return;
	case RC_AUTH_BLOCKED:
		g->verdict.retry_after = rc_auth_retry_after(&rc->auth);
		return verdict_set(g, 429, "too many failed logins: try again later");
	default:
		return verdict_set(g, 401, "authentication required");
	}
}

/* A bodiless head evhttp takes for any refused request; the verdict says the rest. */
static void head_stand_in(struct evbuffer *dst, const struct rc_head *h)
{
	evbuffer_add_printf(dst, "GET / HTTP/1.1\r\nHost: cellgated\r\nConnection: close\r\n");
	/* The client's Accept picks JSON or XML for the error (one line, no CR/LF). */
	if (h->accept_len)
		evbuffer_add_printf(dst, "Accept: %.*s\r\n", (int)h->accept_len, h->accept);
	evbuffer_add(dst, "\r\n", 2);
}

/* G_HEAD: decide on the head at the front of held, if it is complete. */
static bool gate_head(struct rc_gate_conn *g, struct evbuffer *to)
{
	static char head[RC_HEADERS_MAX];
	char auth[RC_AUTH_HDR_MAX];
	struct evbuffer_ptr end = evbuffer_search(g->held, "\r\n\r\n", 4, NULL);
	size_t have = evbuffer_get_length(g->held), len;
	struct rc_head h;

	if (end.pos < 0 && have <= RC_HEADERS_MAX) {
		if (have && !g->head_started) {
			struct timeval tv = {RC_HEAD_TIMEOUT_S, 0};
			g->head_started = true;
			evtimer_add(g->timer, &tv);
		}
		return false;
	}
	bool too_long = end.pos < 0 || (size_t)end.pos + 4 > RC_HEADERS_MAX;
	len = too_long ? 0 : (size_t)end.pos + 4;
	evbuffer_copyout(g->held, head, len);
	rc_head_parse(head, len, too_long, &h);
	snprintf(auth, sizeof(auth), "%.*s", (int)h.auth_len, h.auth ? h.auth : "");
	g->head_started = false;
	evtimer_del(g->timer);
	head_judge(g, &h, auth);
	explicit_bzero(auth, sizeof(auth));
	if (g->verdict.status) {
		head_stand_in(to, &h);
		explicit_bzero(head, len);
		evbuffer_drain(g->held, evbuffer_get_length(g->held));
		g->state = G_DISCARD;
		return false;
	}
	explicit_bzero(head, len);
	evbuffer_remove_buffer(g->held, to, len);
	g->body_left = h.length;
	g->state = g->body_left ? G_BODY : G_WAIT;
	return true;
}

/* Give evhttp (into `to`) what it may have of held now. */
static void gate_process(struct rc_gate_conn *g, struct evbuffer *to)
{
	size_t n;

	for (;;) {
		switch (g->state) {
		case G_HEAD:
			if (!gate_head(g, to))
				return;
			break;
		case G_BODY:
			n = evbuffer_get_length(g->held);
			if (n > g->body_left)
				n = (size_t)g->body_left;
			if (!n)
				return;
			evbuffer_remove_buffer(g->held, to, n);
			g->body_left -= n;
			if (!g->body_left)
				g->state = G_WAIT;
			break;
		case G_WAIT:
			/* Pipelined requests wait here, but not without bound. */
			if (evbuffer_get_length(g->held) >
			    RC_HEADERS_MAX + g->l->rc->max_body + RC_HELD_SLACK)
				conn_close_now(g);
			return;
		default:
			evbuffer_drain(g->held, evbuffer_get_length(g->held));
			return;
		}
	}
}

static bool released(struct rc_gate_conn *g)
{
	bufferevent_data_cb r, w;
	bufferevent_event_cb e;

	if (g->released_ms)
		return true;
	/* evhttp sets its callbacks for as long as it has the connection; freeing clears them. */
	bufferevent_getcb(g->bev, &r, &w, &e, NULL);
	if (r || w || e)
		return false;
	g->released_ms = mono_ms_now();
	bufferevent_disable(g->bev, EV_READ);
	return true;
}

/*
 * Connections admitted that evhttp still has (those it let go of wait for
 * the sweep; those accepted in the same burst and not looked at yet come
 * after, so they do not count against the one being admitted).
 */
static unsigned live_conns(struct rc_listener *l)
{
	unsigned n = 0;

	for (struct rc_gate_conn *g = l->conns; g; g = g->next)
		n += !g->over_cap && g->state != G_DISCARD && !released(g);
	return n;
}

/*
 * Once per connection, before anything it sent is looked at: where it came
 * from, and the connection cap. False: refused (closing).
 */
static bool gate_admit(struct rc_gate_conn *g)
{
	struct restconf *rc = g->l->rc;
	socklen_t sl = sizeof(g->peer);
	evutil_socket_t fd;

	if (g->peer_known)
		return g->state != G_DISCARD;
	fd = bufferevent_getfd(g->bev);
	if (fd >= 0)
		getpeername(fd, (struct sockaddr *)&g->peer, &sl);
	g->peer_known = true;
	if (g->over_cap) {
		rc->gate.refused_conns++;
		rc_log_refusal(rc, "connection refused: max-connections reached");
		conn_close_now(g);
		return false;
	}
	return true;
}

/* Right after accept (gate_admit), and later for a head that never ended. */
static void gate_timer(evutil_socket_t fd, short what, void *arg)
{
	struct rc_gate_conn *g = arg;

	if (!g->peer_known) {
		gate_admit(g);
		return;
	}
	if (g->head_started) {
		g->l->rc->gate.head_timeouts++;
		conn_close_now(g);
	}
}

/* A chunk arrived (and the input is writable now): hold it, pass what may go. */
static void gate_input(struct evbuffer *in, const struct evbuffer_cb_info *info, void *arg)
{
	struct rc_gate_conn *g = arg;
	size_t keep;

	if (g->busy || !info->n_added)
		return;
	g->busy = true;
	if (released(g)) {
		evbuffer_drain(in, evbuffer_get_length(in));
		g->busy = false;
		return;
	}
	if (!gate_admit(g)) {
		evbuffer_drain(in, evbuffer_get_length(in));
		g->busy = false;
		return;
	}
	/* What is in front of the new bytes was given to evhttp already: it stays. */
	keep = evbuffer_get_length(in) - info->n_added;
	evbuffer_add_buffer(g->tmp, in);
	evbuffer_remove_buffer(g->tmp, in, keep);
	evbuffer_add_buffer(g->held, g->tmp);
	gate_process(g, in);
	g->busy = false;
}

static void conn_free(struct rc_gate_conn *g)
{
	evbuffer_remove_cb_entry(bufferevent_get_input(g->bev), g->cbe);
	if (g->next)
		g->next->pprev = g->pprev;
	*g->pprev = g->next;
	g->l->nconns--;
	event_free(g->timer);
	evbuffer_free(g->held);
	evbuffer_free(g->tmp);
	bufferevent_decref(g->bev); /* the last reference: closes the socket */
	free(g);
}

static struct bufferevent *conn_bev(struct event_base *base, struct rc_listener *l, bool *tls)
{
	*tls = false;
#ifdef HAVE_TLS
	if (l->ssl) {
		SSL *ssl = SSL_new(l->ssl);
		*tls = true;
		return ssl ? bufferevent_openssl_socket_new(
		                 base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE)
		           : NULL;
	}
#endif
	return bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
}

struct bufferevent *rc_gate_bev(struct event_base *base, void *arg)
{
	struct rc_listener *l = arg;
	struct rc_gate_conn *g = calloc(1, sizeof(*g));
	struct timeval now = {0, 0};

	if (!g)
		return NULL;
	g->l = l;
	g->bev = conn_bev(base, l, &g->tls);
	g->held = evbuffer_new();
	g->tmp = evbuffer_new();
	g->timer = evtimer_new(base, gate_timer, g);
	if (g->bev && g->held && g->tmp && g->timer)
		g->cbe = evbuffer_add_cb(bufferevent_get_input(g->bev), gate_input, g);
	if (!g->cbe) {
		/* evhttp would make a plain one then: rc_gate_request refuses its requests. */
		if (g->bev)
			bufferevent_free(g->bev);
		if (g->held)
			evbuffer_free(g->held);
		if (g->tmp)
			evbuffer_free(g->tmp);
		if (g->timer)
			event_free(g->timer);
		free(g);
		return NULL;
	}
	bufferevent_incref(g->bev);
	/*
	 * The cap is decided here, in accept order, before this one is linked: a
	 * burst accepted in one go is admitted first come first served (the
	 * timers that look at the sockets next fire in no set order).
	 */
	g->over_cap = l->tcp && live_conns(l) >= l->rc->max_conns;
	g->next = l->conns;
	if (g->next)
		g->next->pprev = &g->next;
	g->pprev = &l->conns;
	l->conns = g;
	l->nconns++;
	l->rc->gate.connections++;
	/* The socket is set after this returns: look at it on the next turn of the loop. */
	evtimer_add(g->timer, &now);
	return g->bev;
}

void rc_gate_sweep(struct rc_listener *l, bool all)
{
	uint64_t now = mono_ms_now();

	for (struct rc_gate_conn *g = l->conns, *next; g; g = next) {
		next = g->next;
		if (all || (released(g) && (!evbuffer_get_length(bufferevent_get_output(g->bev)) ||
		                            now - g->released_ms >= RC_LINGER_MS)))
			conn_free(g);
	}
}

/* Which connection of l carries req. */
static struct rc_gate_conn *conn_of(const struct rc_listener *l, struct evhttp_request *req)
{
	struct evhttp_connection *c = evhttp_request_get_connection(req);
	struct bufferevent *bev = c ? evhttp_connection_get_bufferevent(c) : NULL;

	for (struct rc_gate_conn *g = l->conns; g; g = g->next)
		if (g->bev == bev)
			return g;
	return NULL;
}

/* The request is taken: the next head (pipelined, or later) may go to evhttp. */
static void gate_resume(struct rc_gate_conn *g)
{
	struct evbuffer *in = bufferevent_get_input(g->bev);

	g->state = G_HEAD;
	g->busy = true;
	gate_process(g, g->tmp);
	if (evbuffer_get_length(g->tmp)) {
		/* evhttp read all it was given, so this is the input's front; a socket's
		 * input refuses appends between reads, not prepends. */
		if (!evbuffer_get_length(in))
			evbuffer_prepend_buffer(in, g->tmp);
		else {
			if (!g->tls)
				evbuffer_unfreeze(in, 0);
			evbuffer_add_buffer(in, g->tmp);
			if (!g->tls)
				evbuffer_freeze(in, 0);
		}
	}
	g->busy = false;
}

bool rc_gate_request(struct rc_listener *l, struct evhttp_request *req, struct rc_verdict *v)
{
	struct rc_gate_conn *g = conn_of(l, req);

	if (!g) {
		/* Not through the gate (it had no memory for it): never let it in. */
		*v = (struct rc_verdict){.status = 503};
		snprintf(v->msg, sizeof(v->msg), "out of memory");
		return false;
	}
	*v = g->verdict;
	if (g->state == G_WAIT)
		gate_resume(g);
	return v->status == 0;
}

void restconf_state_json(const struct restconf *rc, FILE *out)
{
	unsigned open = 0;

	if (!rc)
		return;
	for (unsigned i = 0; i < rc->ntcp; i++)
		open += live_conns((struct rc_listener *)&rc->tcp[i]);
	fprintf(out,
	        ",\"restconf\":{\"connections-open\":\"%u\",\"connections\":\"%lu\","
	        "\"connections-refused\":\"%lu\","
	        "\"head-timeouts\":\"%lu\",\"bodies-refused\":\"%lu\",\"login-failures\":\"%lu\","
	        "\"logins-refused\":\"%lu\",\"sources-blocked\":\"%lu\"}",
	        open, rc->gate.connections, rc->gate.refused_conns, rc->gate.head_timeouts,
	        rc->gate.refused_size, rc->auth.failures, rc->auth.blocked,
	        rc->auth.sources_blocked);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared by the files of the RESTCONF server; not for the daemon. */
#ifndef CELLGATE_RC_PRIV_H
#define CELLGATE_RC_PRIV_H

#include <event2/http.h>
#include <libyang/libyang.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "lib/log.h"

#include "mgmt/restconf/restconf.h"

#define RC_PATH_MAX  2048 /* longest XPath a request URI may turn into */
#define RC_YANG_JSON "application/yang-data+json"
#define RC_YANG_XML  "application/yang-data+xml"
#define RC_NS        "urn:ietf:params:xml:ns:yang:ietf-restconf"

struct restconf;

#define RC_HEADERS_MAX  16384 /* request line and headers */
#define RC_AUTH_HDR_MAX 512   /* longest Authorization header taken */

/* auth.c: HTTP Basic against crypt(3) hashes, bounded per source and overall. */
#define RC_AUTH_SOURCES      256 /* sources remembered (least recently seen replaced) */
#define RC_AUTH_GLOBAL_RATE  10  /* failed checks per second, all sources together */
#define RC_AUTH_GLOBAL_BURST 20
#define RC_AUTH_TRUST_S      600 /* a source that logged in since is not held by the global bound */

struct rc_auth_src {
	struct in6_addr key; /* IPv4 as IPv4-mapped, IPv6 as its /64 */
	bool used;
	uint8_t fails;      /* in the window */
	uint64_t window_ms; /* start of the window (monotonic) */
	uint64_t last_ms, ok_ms;
};

struct rc_auth {
	unsigned nusers;
	struct cfg_rc_user users[CFG_RC_USERS];
	char dummy[256]; /* the first user's hash setting, for unknown users */
	unsigned attempts;
	uint64_t interval_ms;
	unsigned tokens; /* the global bound's bucket */
	uint64_t refill_ms;
	struct rc_auth_src src[RC_AUTH_SOURCES];
	uint64_t crypt_calls, failures, blocked, sources_blocked;
};

enum rc_auth_result { RC_AUTH_OK, RC_AUTH_NONE, RC_AUTH_FAILED, RC_AUTH_BLOCKED };

void rc_auth_init(struct rc_auth *a, const struct cfg_restconf *c);
void rc_auth_fini(struct rc_auth *a);
/*
 * The Authorization header (NULL = none) of a request from peer: OK, NONE
 * (no usable Basic credentials, nothing checked), FAILED (checked, wrong)
 * or BLOCKED (not checked: the source, or all sources, failed too often).
 */
enum rc_auth_result rc_auth_basic(struct rc_auth *a, const char *header,
                                  const struct sockaddr_storage *peer);
/* Seconds a blocked source should wait (Retry-After). */
unsigned rc_auth_retry_after(const struct rc_auth *a);
int rc_base64_decode(const char *in, char *out, size_t outlen);

/* head.c: a request head, everything up to and including the empty line. */
struct rc_head {
	int error;       /* HTTP status to refuse it with, 0 = fine */
	const char *why; /* for the error document */
	bool known_method, http11, has_length;
	enum evhttp_cmd_type method;
	uint64_t length;           /* of the body evhttp will read */
	const char *auth, *accept; /* values inside the buffer, not NUL-terminated */
	size_t auth_len, accept_len;
};
void rc_head_parse(const char *buf, size_t len, bool too_long, struct rc_head *h);

/* What the gate decided about the request evhttp dispatches now. */
struct rc_verdict {
	int status; /* 0 = go on; else the HTTP status of the error reply */
	unsigned retry_after;
	char msg[160];
};

struct rc_gate_conn;

/* One evhttp: the UNIX socket's, or a TCP listener's (tcp.c). */
struct rc_listener {
	struct restconf *rc;
	struct evhttp *http;
	bool tcp;                   /* requests must authenticate */
	bool client_certs;          /* a verified client certificate is enough */
	struct ssl_ctx_st *ssl;     /* SSL_CTX, NULL = plain HTTP */
	struct rc_gate_conn *conns; /* gate.c: its open connections */
	unsigned nconns;
};

/* What the gate counted (state restconf). */
struct rc_gate_stats {
	uint64_t connections, refused_conns, refused_size, head_timeouts;
};

struct rc_stream;

struct restconf {
	struct event_base *base;
	struct evhttp *http;
	struct cfg_parser *parser; /* owns ctx; NULL where a harness set ctx itself */
	struct ly_ctx *ctx;
	struct restconf_backend be;
	char yang_dir[4096];
	char startup_path[4096];
	char unix_path[108];
	int unix_fd;
	size_t max_body;
	struct lyd_node *running; /* the running configuration as a tree (from cfg_print) */
	struct rc_listener local; /* the UNIX socket */
	unsigned ntcp;
	struct rc_listener tcp[CFG_RC_LISTENERS];
	unsigned max_conns; /* per TCP listener */
	struct rc_auth auth;
	struct rc_gate_stats gate;
	struct log_limit refusal_log;
	struct event *sweep_ev;    /* rc_gate_sweep, every second */
	struct rc_stream *streams; /* route lists being streamed (stream.c) */
	struct ly_set *counters;   /* the schema's counter64 leaves (metrics.c), built once */
};

/* server.c: an evhttp with the limits and the request router, for listener l. */
struct evhttp *rc_http_new(struct restconf *rc, struct rc_listener *l);

/* tcp.c */
int rc_tcp_start(struct restconf *rc, const struct cfg_restconf *c, char *errbuf, size_t errlen);
void rc_tcp_stop(struct restconf *rc);

/*
 * gate.c: evhttp's bufferevent callback for listener l (arg), which puts
 * every connection through the gate; and, when evhttp dispatches req, the
 * gate's verdict on it. False: do not serve it, answer v's error.
 */
struct bufferevent *rc_gate_bev(struct event_base *base, void *arg);
bool rc_gate_request(struct rc_listener *l, struct evhttp_request *req, struct rc_verdict *v);
/* Free the connections evhttp has let go of (all: every one, after evhttp_free). */
void rc_gate_sweep(struct rc_listener *l, bool all);
/* server.c: a refused connection, in the log at a limited rate. */
void rc_log_refusal(struct restconf *rc, const char *what);

/* A request target: RFC 8040 3.5.3 URI path turned into a libyang path. */
struct rc_target {
	char xpath[RC_PATH_MAX];  /* "" = the datastore root */
	char parent[RC_PATH_MAX]; /* xpath of the parent node, "" = root */
	const struct lysc_node *snode;
	bool all_instances; /* ends in a list or leaf-list without keys */
};

/* path.c: `uri_path` is what follows /restconf/data (may be ""). 0 or fills err. */
int rc_target_parse(const struct ly_ctx *ctx, const char *uri_path, struct rc_target *t,
                    struct restconf_err *err);
/* A data node's RFC 8040 URI path (after /restconf/data), percent-encoded. */
int rc_node_uri(const struct lyd_node *node, char *buf, size_t len);

/* server.c: RFC 8040 5.2 media types. The reply's from Accept (JSON unless
 * only XML is accepted), the body's from Content-Type. */
bool rc_reply_xml(struct evhttp_request *req);
bool rc_body_xml(struct evhttp_request *req);

/* error.c */
#define rc_err_set restconf_err_set
/* The first error libyang stored for ctx, as a 400 with its data path. */
void rc_err_from_ly(const struct ly_ctx *ctx, struct restconf_err *err, const char *what);
void rc_reply_error(struct evhttp_request *req, const struct restconf_err *err);
/* Reply with a body (may be NULL for none) of the given content type. */
void rc_reply(struct evhttp_request *req, int status, const char *ctype, const char *body,
              size_t len);

/* server.c: the running configuration tree, rebuilt from be.running(). 0 or fills err. */
int rc_running_reload(struct restconf *rc, struct restconf_err *err);
/* The request body as a NUL-terminated string (malloc'd), or NULL (err filled). */
char *rc_body(struct evhttp_request *req, struct restconf_err *err);

/* get.c, edit.c, ops.c, metrics.c */
void rc_get(struct restconf *rc, struct evhttp_request *req, const char *uri_path,
            const char *query);
void rc_edit(struct restconf *rc, struct evhttp_request *req, const char *uri_path);
/*
 * The two checking steps of rc_edit, without a request and without side
 * effects (for the fuzzer): the target from the URI path (400, or 405 on
 * state data), then the edit of a copy of rc->running (*cand, freed by the
 * caller even on failure) checked as a startup file is, into *next and its
 * normalised text *json (both the caller's on success). location receives
 * the new resource's URI path when POST creates one.
 */
int rc_edit_target(struct restconf *rc, const char *uri_path, struct rc_target *t,
                   struct restconf_err *err);
int rc_edit_validate(struct restconf *rc, enum evhttp_cmd_type m, const struct rc_target *t,
                     const char *body, bool xml, struct lyd_node **cand, struct cfg *next,
                     char **json, size_t *len, bool *created, char *location, size_t loclen,
                     struct restconf_err *err);
void rc_operation(struct restconf *rc, struct evhttp_request *req, const char *name);
void rc_metrics(struct restconf *rc, struct evhttp_request *req);
/*
 * The state tree of the given parts (enum restconf_state_part), parsed as
 * data (config false), or NULL with err filled. Never the route list.
 */
struct lyd_node *rc_state_tree(struct restconf *rc, unsigned parts, struct restconf_err *err);

/*
 * Paging of the route list (draft-ietf-netconf-list-pagination's limit,
 * offset, cursor; cellgate's prefix and longer). Parsed by get.c.
 */
struct rc_page {
	bool any;        /* one of them was given */
	uint64_t limit;  /* 0 = unbounded */
	uint64_t offset; /* routes skipped from the start (or from the cursor) */
	bool has_cursor;
	uint64_t cursor; /* key of the first route to list */
	bool has_prefix, longer;
	uint32_t prefix;
	uint8_t plen;
	/* cursor and prefix given as IPv6 prefixes: they apply to the route6 list only. */
	bool cursor_v6, prefix_v6;
	struct restconf_key6 cursor6, prefix6;
};

/* A GET's query: RFC 8040 4.8 and the route list's paging (query.c). */
enum rc_content { RC_CONTENT_ALL, RC_CONTENT_CONFIG, RC_CONTENT_NONCONFIG };
struct rc_get_params {
	enum rc_content content;
	unsigned depth;   /* 0 = unbounded */
	char fields[512]; /* RFC 8040 4.8.3, ';'-separated relative paths; "" = all */
	struct rc_page page;
};
int rc_get_params_parse(const char *query, struct rc_get_params *p, struct restconf_err *err);

/*
 * get.c: the read path of a GET without a request (rc_get replies with it; the
 * fuzzer calls it): query and URI path parsed, the tree built, selected,
 * pruned and printed. 1: the target is the route list itself, to be streamed
 * with o->p.page; 0: o->text (the caller frees it) is the reply, the route
 * list to be spliced in at o->level when o->placeholder; -1: err filled.
 */
struct rc_get_out {
	struct rc_get_params p;
	bool route6; /* with 1: the target is the route6 list */
	char *text;
	bool placeholder;
	unsigned level;
};
int rc_get_render(struct restconf *rc, const char *uri_path, const char *query, bool xml,
                  struct rc_get_out *o, struct restconf_err *err);

/* The placeholder route a state tree gets where the route list will be streamed. */
#define RC_ROUTE_PLACEHOLDER "255.255.255.255/32"
/* ... and the route6 list's: a multicast /128, never a route of the FIB6. */
#define RC_ROUTE6_PLACEHOLDER "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128"

/* stream.c */
/* GET of the route list (paged, filtered) or one route: streamed, or an error reply. */
void rc_routes_get(struct restconf *rc, struct evhttp_request *req, const struct rc_page *pg,
                   unsigned depth, bool xml);
/* GET of the route6 list (paged, filtered as the route list): streamed, or an error reply. */
void rc_routes6_get(struct restconf *rc, struct evhttp_request *req, const struct rc_page *pg,
                    unsigned depth, bool xml);
/*
 * Reply with `text` (printed with LYD_PRINT_SHRINK), the placeholder route in
 * it replaced by the whole route list, streamed; entries at `level` below the
 * target, pruned to `depth`. 1: no placeholder in text (nothing sent); 0: sent
 * or streaming; -1: out of memory (nothing sent).
 */
int rc_stream_spliced(struct restconf *rc, struct evhttp_request *req, const char *text,
                      unsigned level, unsigned depth, bool xml);
/* One route as an RFC 7951 JSON list entry, its children pruned as rc_stream_spliced says. */
struct evbuffer;
void rc_route_json(struct evbuffer *b, const struct restconf_route *r, unsigned level,
                   unsigned depth);
void rc_route6_json(struct evbuffer *b, const struct restconf_route6 *r, unsigned level,
                    unsigned depth);
/* Drop the streams' state (restconf_stop: evhttp frees their requests). */
void rc_streams_stop(struct restconf *rc);
/* query.c: "a.b.c.d/len" -> host-order prefix with host bits cleared; -1 if malformed. */
int rc_prefix_parse(const char *s, uint32_t *prefix, uint8_t *len);
/* "x:y::/len" -> the key of that prefix, host bits cleared; -1 if malformed. */
int rc_prefix6_parse(const char *s, struct restconf_key6 *k);

/* persist.c: write data to `path` atomically (temp file, fsync, rename, fsync dir). */
int rc_persist_prepare(const char *path, const char *data, size_t len, char *tmp, size_t tmplen);
int rc_persist_commit(const char *tmp, const char *path);
void rc_persist_abort(const char *tmp);

#endif

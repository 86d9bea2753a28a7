/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RESTCONF (RFC 8040) server of cellgated over libevent's evhttp, with
 * libyang parsing and validating every body against cellgate.yang. It also
 * serves GET /metrics (Prometheus text format). It runs in the daemon's
 * control thread and reaches the daemon only through struct restconf_backend.
 *
 *   GET    /restconf/data[/PATH]        config and state (content=, depth=)
 *   PUT    /restconf/data[/PATH]        create or replace (config)
 *   PATCH  /restconf/data[/PATH]        merge (RFC 8040 4.6.1, plain patch)
 *   POST   /restconf/data[/PATH]        create a child, 409 if it exists
 *   DELETE /restconf/data/PATH          delete, 409 if absent
 *   POST   /restconf/operations/cellgate:NAME   run an RPC
 *   GET    /restconf, /.well-known/host-meta    API root (RFC 8040 3.1, 3.3)
 *   GET    /metrics                     Prometheus text exposition
 */
#ifndef CELLGATE_RESTCONF_H
#define CELLGATE_RESTCONF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

struct event_base;
struct lyd_node;

/* An RFC 8040 section 7.1 error: HTTP status, error-tag, error-path, error-message. */
struct restconf_err {
	int status;
	const char *tag; /* e.g. "invalid-value", "operation-not-supported" */
	char path[512];  /* instance-identifier, "" = none */
	char msg[512];
};

/*
 * How an operation ends: err NULL on success; output_json is the RFC 8040
 * 3.6.2 output document ({"cellgate:output": {...}}) or NULL for none.
 */
typedef void (*restconf_rpc_done_fn)(void *cookie, const struct restconf_err *err,
                                     const char *output_json);

/*
 * The parts of /cellgate/state a backend builds separately: a request costs
 * what the parts it asks for cost. The route list (fib/route) is not one of
 * them: it is read in slices through the routes callbacks.
 */
enum restconf_state_part {
	RC_PART_SCALARS = 1u << 0, /* start-time, events-lost */
	RC_PART_PORT = 1u << 1,
	RC_PART_VC = 1u << 2,
	RC_PART_FIB = 1u << 3, /* counts, sources and memory; not the route list */
	RC_PART_NEIGHBOR = 1u << 4,
	RC_PART_ARP = 1u << 5,
	RC_PART_FPM = 1u << 6,
	RC_PART_SNMP = 1u << 7,
	RC_PART_WORKER = 1u << 8,
	RC_PART_LOOP = 1u << 9,
	RC_PART_CAPTURE = 1u << 10,  /* the capture directory and limits, captures stopped */
	RC_PART_RESTCONF = 1u << 11, /* the gate's connection and login counts */
	RC_PART_NEIGHBOR6 = 1u << 12,
	RC_PART_ND = 1u << 13,
	RC_PART_ALL = (1u << 14) - 1,
};

/* A route list key: the prefix order of /cellgate/state/fib/route (address, then length). */
static inline uint64_t restconf_route_key(uint32_t prefix, unsigned len)
{
	return (uint64_t)prefix << 8 | len;
}
#define RC_ROUTE_KEY_MAX restconf_route_key(0xffffffffu, 32)
#define RC_ROUTE_NH_MAX  16

/* One entry of /cellgate/state/fib/route. Strings are YANG enum names and port names. */
struct restconf_route {
	uint32_t prefix; /* host byte order */
	uint8_t len;
	const char *source, *type;
	unsigned nnexthops; /* for types gateway and connected */
	struct {
		uint32_t address; /* 0: none (connected) */
		const char *interface;
		unsigned weight;
	} nexthop[RC_ROUTE_NH_MAX];
};
typedef void (*restconf_route_fn)(void *ctx, const struct restconf_route *r);

/*
 * A route6 list key, in the list's prefix order as the IPv4 one (address,
 * then length): the prefix (network order, host bits clear) and its length;
 * {all ones, 128} is the last key, and a cursor moved past it is
 * {all ones, 129}, above every key.
 */
struct restconf_key6 {
	uint8_t prefix[16];
	uint8_t len;
};

/* One entry of /cellgate/state/fib/route6. */
struct restconf_route6 {
	uint8_t prefix[16]; /* network order */
	uint8_t len;
	const char *source, *type;
	unsigned nnexthops;
	struct {
		bool has_address; /* false: connected */
		uint8_t address[16];
		const char *interface;
		unsigned weight;
	} nexthop[RC_ROUTE_NH_MAX];
};
typedef void (*restconf_route6_fn)(void *ctx, const struct restconf_route6 *r);

struct restconf_backend {
	void *arg;
	/* The running configuration. */
	const struct cfg *(*running)(void *arg);
	/*
	 * {"cellgate:cellgate":{"state":{...}}} as RFC 7951 JSON, holding only the
	 * parts asked for (enum restconf_state_part). 0 or negative errno.
	 */
	int (*state_json)(void *arg, unsigned parts, FILE *out);
	/*
	 * The route list in key order: up to `max` routes with keys in
	 * [*from, to] to fn, *from moved past the last one; fewer than max when
	 * the range is done. A cursor: routes changed between two calls are seen
	 * or not, none twice (daemon/rib.h rib_walk_range). to <= RC_ROUTE_KEY_MAX.
	 */
	unsigned (*routes)(void *arg, uint64_t *from, uint64_t to, unsigned max,
	                   restconf_route_fn fn, void *ctx);
	/* Routes with keys in [from, to], without visiting them. */
	uint64_t (*routes_count)(void *arg, uint64_t from, uint64_t to);
	/* The key `n` routes after the first one >= from, or to + 1 when past `to`. */
	uint64_t (*routes_skip)(void *arg, uint64_t from, uint64_t to, uint64_t n);
	/*
	 * The IPv6 route list (the three may be NULL: none), as routes: up to
	 * `max` routes with keys in [*from, to] in key order, *from moved past
	 * the last one; fewer than max when the range is done.
	 */
	unsigned (*routes6)(void *arg, struct restconf_key6 *from, const struct restconf_key6 *to,
	                    unsigned max, restconf_route6_fn fn, void *ctx);
	/* IPv6 routes with keys in [from, to], without visiting them. */
	uint64_t (*routes6_count)(void *arg, const struct restconf_key6 *from,
	                          const struct restconf_key6 *to);
	/* The key `n` IPv6 routes after the first one >= from: true, or false when past `to`. */
	bool (*routes6_skip)(void *arg, const struct restconf_key6 *from,
	                     const struct restconf_key6 *to, uint64_t n, struct restconf_key6 *out);
	/*
	 * Make `next` (validated) the running configuration without a restart.
	 * 0: done, and *next was taken over (left zeroed). Otherwise nothing
	 * changed and err says why.
	 */
	int (*apply)(void *arg, struct cfg *next, struct restconf_err *err);
	/* Run operation `name` (validated input tree); calls done exactly once, now or later. */
	void (*rpc)(void *arg, const char *name, const struct lyd_node *input,
	            restconf_rpc_done_fn done, void *cookie);
};

struct restconf_opts {
	const char *yang_dir;           /* where cellgate.yang is */
	const char *startup_path;       /* rewritten atomically after every accepted change */
	const char *unix_path;          /* the UNIX socket */
	const char *unix_group;         /* "" = leave the group as created */
	size_t max_body;                /* bytes */
	const struct cfg_restconf *cfg; /* TCP listeners and users, or NULL */
};

/* Fill an error (status, RFC 8040 error-tag, error-path or NULL, message). */
void restconf_err_set(struct restconf_err *err, int status, const char *tag, const char *path,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

struct restconf;

/* Start listening. NULL on failure, with the reason in errbuf. */
struct restconf *restconf_start(struct event_base *base, const struct restconf_backend *be,
                                const struct restconf_opts *o, char *errbuf, size_t errlen);
void restconf_stop(struct restconf *rc);

/*
 * ,"restconf":{...}: /cellgate/state/restconf (connections, refusals, failed
 * logins) as RFC 7951 JSON, for the backend's state document; nothing for NULL.
 */
void restconf_state_json(const struct restconf *rc, FILE *out);

/*
 * The running configuration changed outside RESTCONF (SIGHUP reload): rebuild
 * the tree GET serves and edits start from. 0, or -1 with err filled.
 */
int restconf_running_changed(struct restconf *rc, struct restconf_err *err);

#endif

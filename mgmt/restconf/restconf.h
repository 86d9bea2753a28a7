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

struct restconf_backend {
	void *arg;
	/* The running configuration. */
	const struct cfg *(*running)(void *arg);
	/* {"cellgate:cellgate":{"state":{...}}} as RFC 7951 JSON. 0 or negative errno. */
	int (*state_json)(void *arg, FILE *out);
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

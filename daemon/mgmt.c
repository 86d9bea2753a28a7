/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RESTCONF server's backend: the running configuration, the state
 * document, runtime changes (validated by the server, applied here) and the
 * operations. Control thread only, like everything it touches.
 */
#include <errno.h>
#include <libyang/libyang.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/addrs6.h"
#include "daemon/mgmt.h"
#include "daemon/routes.h"
#include "daemon/routes6.h"
#include "lib/log.h"
#include "mgmt/restconf/restconf.h"

#define PING_COUNT_MAX 10

/* A vc-ping in progress: loopbacks go one at a time, each waiting for its result. */
struct mgmt_ping {
	struct mgmt_ping *next;
	unsigned vc, count, sent, received;
	uint32_t rtt_us[PING_COUNT_MAX];
	restconf_rpc_done_fn done;
	void *cookie;
};

static const struct cfg *be_running(void *arg)
{
	struct mgmt *m = arg;
	return m->ctl->cfg;
}

static int be_state_json(void *arg, unsigned parts, FILE *out)
{
	struct mgmt *m = arg;
	return mgmt_state_json(m->ctl, parts, out);
}

static unsigned be_routes(void *arg, uint64_t *from, uint64_t to, unsigned max,
                          restconf_route_fn fn, void *ctx)
{
	struct mgmt *m = arg;
	return mgmt_routes(m->ctl, from, to, max, fn, ctx);
}

static uint64_t be_routes_count(void *arg, uint64_t from, uint64_t to)
{
	struct mgmt *m = arg;
	return mgmt_routes_count(m->ctl, from, to);
}

static uint64_t be_routes_skip(void *arg, uint64_t from, uint64_t to, uint64_t n)
{
	struct mgmt *m = arg;
	return mgmt_routes_skip(m->ctl, from, to, n);
}

static unsigned be_routes6(void *arg, struct restconf_key6 *from, const struct restconf_key6 *to,
                           unsigned max, restconf_route6_fn fn, void *ctx)
{
	struct mgmt *m = arg;
	return mgmt_routes6(m->ctl, from, to, max, fn, ctx);
}

static uint64_t be_routes6_count(void *arg, const struct restconf_key6 *from,
                                 const struct restconf_key6 *to)
{
	struct mgmt *m = arg;
	return mgmt_routes6_count(m->ctl, from, to);
}

static bool be_routes6_skip(void *arg, const struct restconf_key6 *from,
                            const struct restconf_key6 *to, uint64_t n, struct restconf_key6 *out)
{
	struct mgmt *m = arg;
	return mgmt_routes6_skip(m->ctl, from, to, n, out);
}

/* What cannot change without a restart yet: say which part, so the client knows. */
static int unsupported_change(const struct cfg *a, const struct cfg *b, struct restconf_err *err)
{
	const char *path, *what = cfg_restart_only_diff(a, b, &path);

	if (!what)
		return 0;
	restconf_err_set(err, 501, "operation-not-supported", path,
	                 "%s cannot be changed at runtime yet: edit the startup file and restart",
	                 what);
	return -1;
}

/* PVCs added and deleted at runtime (atm_pvc_prepare): 0, or -1 with err filled. */
static int pvc_prepare(struct mgmt *m, const struct cfg *next, struct atm_pvc_change **pch,
                       struct restconf_err *err)
{
	char msg[512], path[256] = "";
	int e = atm_pvc_prepare(m->ctl->atm, next, pch, msg, sizeof(msg), path, sizeof(path));

	if (e == 0)
		return 0;
	if (e == -EOPNOTSUPP)
		restconf_err_set(err, 501, "operation-not-supported", path[0] ? path : NULL, "%s",
		                 msg);
	else if (e == -ENOSPC)
		restconf_err_set(err, 409, "resource-denied", path[0] ? path : NULL, "%s", msg);
	else
		restconf_err_set(err, 500, "operation-failed", path[0] ? path : NULL, "%s", msg);
	return -1;
}

static void ping_finish(struct mgmt *m, struct mgmt_ping *pg);

/* A committed PVC change: counters of new VC ids start from zero, pings on deleted ones end. */
static void pvc_changed(struct mgmt *m, const struct atm_pvc_change *pch)
{
	struct control *ctl = m->ctl;

	for (unsigned v = 0; v < VC_MAX; v++)
		if (atm_pvc_change_adds(pch, v))
			control_stats_vc_reset(ctl, v);
	for (struct mgmt_ping *pg = m->pings, *next; pg; pg = next) {
		next = pg->next;
		if (atm_pvc_change_deletes(pch, pg->vc))
			ping_finish(m,
			            pg); /* its loopbacks went with the VC: answer with what came */
	}
}

/*
 * A static route could not be installed: 400 naming it. When putting the
 * earlier routes back failed as well, the FIB matches neither
 * configuration: 500, logged as an error, saying which route is missing.
 */
static void routes_error(const struct routes_update_err *ru, int e, const char *list,
                         struct restconf_err *err)
{
	const char *why = e == -ENETUNREACH ? " (no connected subnet reaches the gateway)" : "";

	if (ru->undo_err) {
		log_warnx("static routes: route %s cannot be installed (%s), and restoring the "
		          "previous routes failed for %u of them (first %s: %s): the FIB lacks "
		          "routes of the running configuration",
		          ru->failed, strerror(-e), ru->undo_failures, ru->undo_failed,
		          strerror(-ru->undo_err));
		restconf_err_set(
		    err, 500, "operation-failed", NULL,
		    "route %s cannot be installed: %s%s; restoring the previous routes "
		    "failed too (%u, first %s: %s): the FIB lacks routes of the running "
		    "configuration",
		    ru->failed, strerror(-e), why, ru->undo_failures, ru->undo_failed,
		    strerror(-ru->undo_err));
	} else {
		restconf_err_set(err, 400, "invalid-value", NULL,
		                 "route %s cannot be installed: %s%s", ru->failed, strerror(-e),
		                 why);
	}
	snprintf(err->path, sizeof(err->path), "/cellgate:cellgate/routing/%s[prefix='%s']", list,
	         ru->failed);
}

/*
 * The IPv6 static routes of `next` could not be installed (and were put back):
 * all or nothing, so the IPv4 routes and the IPv6 addresses go back to `cur`
 * as well. What cannot be put back is reported in ru as an undo failure.
 */
static void routes6_failed(struct mgmt *m, const struct addrs6_env *a6, const struct cfg *cur,
                           const struct cfg *next, struct routes_update_err *ru)
{
	struct routes_update_err back;
	char msg[256], path[256];
	int u = routes_static_update(m->ctl->rib, next, cur, &back);

	if (u && !ru->undo_err) {
		ru->undo_err = u;
		ru->undo_failures = back.undo_failures + 1;
		snprintf(ru->undo_failed, sizeof(ru->undo_failed), "%s", back.failed);
	}
	u = addrs6_prepare(a6, next, cur, msg, sizeof(msg), path, sizeof(path));
	if (u == 0)
		addrs6_commit(a6, next, cur);
	else if (!ru->undo_err) {
		log_warnx("IPv6 addresses: putting back the previous addresses failed: %s", msg);
		ru->undo_err = u;
		ru->undo_failures++;
		snprintf(ru->undo_failed, sizeof(ru->undo_failed), "the IPv6 addresses");
	}
}

static int cfg_apply(struct mgmt *m, struct cfg *next, struct restconf_err *err)
{
	struct control *ctl = m->ctl;
	struct cfg *cur = ctl->cfg;
	struct atm_pvc_change *pch = NULL;
	struct routes_update_err ru;
	int e;

	struct addrs6_env a6 = {.dp = ctl->dp, .rib6 = ctl->rib6, .neigh6 = ctl->neigh6};
	char msg[256], path[256];

	if (unsupported_change(cur, next, err) || pvc_prepare(m, next, &pch, err))
		return -1;
	if (addrs6_prepare(&a6, cur, next, msg, sizeof(msg), path, sizeof(path)) != 0) {
		atm_pvc_abort(ctl->atm, pch);
		restconf_err_set(err, 500, "operation-failed", path, "%s", msg);
		return -1;
	}
	if ((e = routes_static_update(ctl->rib, cur, next, &ru)) != 0) {
		addrs6_abort(&a6, cur, next);
		atm_pvc_abort(ctl->atm, pch);
		routes_error(&ru, e, "static-route", err);
		return -1;
	}
	/* The new addresses' connected prefixes first: a new static route may go through them. */
	addrs6_commit(&a6, cur, next);
	if ((e = routes6_static_update(ctl->rib6, ctl->dp, cur, next, &ru)) != 0) {
		routes6_failed(m, &a6, cur, next, &ru);
		atm_pvc_abort(ctl->atm, pch);
		routes_error(&ru, e, "static-route6", err);
		return -1;
	}
	/* Nothing can fail from here on. */
	bool pvcs_changed = pch != NULL;
	pvc_changed(m, pch);
	atm_pvc_commit(ctl->atm, pch, next);
	control_params_apply(ctl, next);
	/*
	 * Ports and subinterfaces are unchanged (above); PVC indexes may have
	 * moved, and atm_pvc_commit mapped the VC ids to next's already.
	 */
	control_cfg_replace(ctl, next);
	if (pvcs_changed)
		control_snmp_vcs_changed(ctl); /* reads the new cfg: after the swap */
	return 0;
}

static int be_apply(void *arg, struct cfg *next, struct restconf_err *err)
{
	struct mgmt *m = arg;

	if (cfg_apply(m, next, err) != 0)
		return -1;
	log_info("configuration changed over RESTCONF and saved to %s", m->ctl->config_path);
	return 0;
}

int mgmt_reload(struct control *ctl)
{
	struct mgmt *m = ctl->mgmt;
	struct restconf_err err = {0};
	struct cfg next;
	char msg[1024];

	if (!m)
		return -1;
	if (cfg_load(ctl->config_path, ctl->yang_dir, &next, msg, sizeof(msg)) != 0) {
		log_warnx("SIGHUP: %s; the running configuration is unchanged", msg);
		return -1;
	}
	/* The same apply step as a RESTCONF write: all of it, or nothing. */
	if (cfg_apply(m, &next, &err) != 0) {
		log_warnx("SIGHUP: %s: %s%s%s; the running configuration is unchanged",
		          ctl->config_path, err.msg, err.path[0] ? " at " : "", err.path);
		cfg_free(&next);
		return -1;
	}
	if (restconf_running_changed(m->rc, &err) != 0)
		log_warnx("SIGHUP: RESTCONF's view of the configuration: %s", err.msg);
	log_info("SIGHUP: configuration reloaded from %s", ctl->config_path);
	return 0;
}

static int port_by_name(const struct cfg *cfg, const char *name)
{
	int i = cfg_port_index(cfg, name);

	if (i >= 0)
		return i;
	i = cfg_subif_index(cfg, name);
	return i >= 0 ? (int)cfg->nports + i : -1;
}

static const char *child_value(const struct lyd_node *input, const char *name)
{
	struct lyd_node *n = NULL;

	if (lyd_find_path(input, name, 0, &n) != LY_SUCCESS || !n)
		return NULL;
	return lyd_get_value(n);
}

struct clear_call {
	restconf_rpc_done_fn done;
	void *cookie;
	char port[PORT_NAME_MAX];
};

/* control_clear_fn: the workers' snapshot came (or not); answer the operation. */
static void clear_done(void *arg, int e)
{
	struct clear_call *cc = arg;
	struct restconf_err err;

	if (e == -ETIMEDOUT)
		restconf_err_set(&err, 503, "resource-denied", NULL,
		                 "a worker did not answer: counters not cleared");
	else if (e)
		restconf_err_set(&err, 503, "operation-failed", NULL, "counters not cleared: %s",
		                 strerror(-e));
	else
		log_info("counters cleared%s%s", cc->port[0] ? " on " : "", cc->port);
	cc->done(cc->cookie, e ? &err : NULL, NULL);
	free(cc);
}

static void op_clear_counters(struct mgmt *m, const struct lyd_node *input,
                              restconf_rpc_done_fn done, void *cookie)
{
	const char *port = child_value(input, "port");
	struct restconf_err err;
	struct clear_call *cc;
	int p = -1;

	if (port && (p = port_by_name(m->ctl->cfg, port)) < 0) {
		restconf_err_set(&err, 400, "invalid-value", "/cellgate:clear-counters/port",
		                 "no port or subinterface %s", port);
		done(cookie, &err, NULL);
		return;
	}
	if ((cc = calloc(1, sizeof(*cc)))) {
		*cc = (struct clear_call){.done = done, .cookie = cookie};
		snprintf(cc->port, sizeof(cc->port), "%s", port ? port : "");
	}
	if (!cc || control_stats_clear(m->ctl, p, clear_done, cc) != 0) {
		free(cc);
		restconf_err_set(&err, 500, "operation-failed", NULL, "out of memory");
		done(cookie, &err, NULL);
	}
}

/* The PVC's index in cfg (not its VC id: atm_vc_of_pvc), or -1. */
static int vc_find(const struct cfg *cfg, const char *port, unsigned vpi, unsigned vci)
{
	int p = cfg_port_index(cfg, port);

	for (unsigned v = 0; p >= 0 && v < cfg->npvcs; v++)
		if (cfg->pvcs[v].port == (unsigned)p && cfg->pvcs[v].vpi == vpi &&
		    cfg->pvcs[v].vci == vci)
			return (int)v;
	return -1;
}

static void ping_finish(struct mgmt *m, struct mgmt_ping *pg)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);

	for (struct mgmt_ping **pp = &m->pings; *pp; pp = &(*pp)->next)
		if (*pp == pg) {
			*pp = pg->next;
			break;
		}
	if (f) {
		fprintf(f, "{\"cellgate:output\":{\"sent\":%u,\"received\":%u,\"reply\":[",
		        pg->sent, pg->received);
		for (unsigned i = 0; i < pg->sent; i++) {
			fprintf(f, "%s{\"sequence\":%u", i ? "," : "", i + 1);
			if (pg->rtt_us[i])
				fprintf(f, ",\"rtt\":%u", pg->rtt_us[i]);
			fputc('}', f);
		}
		fputs("]}}\n", f);
		fclose(f);
	}
	pg->done(pg->cookie, NULL, json);
	free(json);
	free(pg);
}

/* atm_ping_fn: one loopback done; send the next or answer. */
static void ping_result(void *arg, unsigned vc, uint32_t rtt_us)
{
	struct mgmt *m = arg;
	struct mgmt_ping *pg;

	for (pg = m->pings; pg && pg->vc != vc; pg = pg->next)
		;
	if (!pg || pg->sent == 0)
		return;
	pg->rtt_us[pg->sent - 1] = rtt_us;
	pg->received += rtt_us != 0;
	if (pg->sent < pg->count && atm_vc_ping(m->ctl->atm, vc) == 0) {
		pg->sent++;
		return;
	}
	ping_finish(m, pg);
}

static void op_vc_ping(struct mgmt *m, const struct lyd_node *input, restconf_rpc_done_fn done,
                       void *cookie)
{
	const char *port = child_value(input, "port"), *cnt = child_value(input, "count");
	unsigned vpi = (unsigned)strtoul(child_value(input, "vpi"), NULL, 10);
	unsigned vci = (unsigned)strtoul(child_value(input, "vci"), NULL, 10);
	const struct cfg *cfg = m->ctl->cfg;
	struct restconf_err err;
	struct mgmt_ping *pg;
	int v = vc_find(cfg, port, vpi, vci);

	if (v < 0) {
		restconf_err_set(&err, 400, "invalid-value", "/cellgate:vc-ping",
		                 "no PVC %u/%u on port %s", vpi, vci, port);
		goto fail;
	}
	if (cfg->ports[cfg->pvcs[v].port].kind != CFG_PORT_CELLPW) {
		/* An AAL5 socket owns the VC: Linux gives no cell access beside it. */
		restconf_err_set(&err, 501, "operation-not-supported", "/cellgate:vc-ping/port",
		                 "port %s: OAM F5 is not available on driver atmsock (Linux ATM "
		                 "sockets give no cell access to a VC carrying AAL5)",
		                 port);
		goto fail;
	}
	for (pg = m->pings; pg; pg = pg->next)
		if (pg->vc == (unsigned)atm_vc_of_pvc(m->ctl->atm, (unsigned)v)) {
			restconf_err_set(&err, 409, "in-use", "/cellgate:vc-ping",
			                 "a vc-ping on %s %u/%u is already running", port, vpi,
			                 vci);
			goto fail;
		}
	if (!(pg = calloc(1, sizeof(*pg)))) {
		restconf_err_set(&err, 500, "operation-failed", NULL, "out of memory");
		goto fail;
	}
	*pg = (struct mgmt_ping){.next = m->pings,
	                         .vc = (unsigned)atm_vc_of_pvc(m->ctl->atm, (unsigned)v),
	                         .done = done,
	                         .cookie = cookie,
	                         .count = cnt ? (unsigned)strtoul(cnt, NULL, 10) : 3};
	if (pg->count < 1 || pg->count > PING_COUNT_MAX)
		pg->count = 3;
	m->pings = pg;
	if (atm_vc_ping(m->ctl->atm, pg->vc) != 0) {
		ping_finish(m, pg);
		return;
	}
	pg->sent = 1;
	return;
fail:
	done(cookie, &err, NULL);
}

/* capture-start / capture-stop: the VC named by the input, or -1 with err filled. */
static int op_vc(struct mgmt *m, const struct lyd_node *input, struct restconf_err *err)
{
	const char *port = child_value(input, "port");
	unsigned vpi = (unsigned)strtoul(child_value(input, "vpi"), NULL, 10);
	unsigned vci = (unsigned)strtoul(child_value(input, "vci"), NULL, 10);
	const struct cfg *cfg = m->ctl->cfg;
	int v = vc_find(cfg, port, vpi, vci);

	if (v < 0)
		restconf_err_set(err, 400, "invalid-value", NULL, "no PVC %u/%u on port %s", vpi,
		                 vci, port);
	return v;
}

/* capture-start's limits: the input's, at most the configured ones. 0, or -1 with err filled. */
static int capture_limits(const struct cfg *cfg, const struct lyd_node *input, uint64_t *max_bytes,
                          uint32_t *max_s, struct restconf_err *err)
{
	const char *size = child_value(input, "max-size"),
	           *dur = child_value(input, "max-duration");

	*max_bytes = size ? strtoull(size, NULL, 10) : cfg->capture.max_bytes;
	*max_s = dur ? (uint32_t)strtoul(dur, NULL, 10) : cfg->capture.max_s;
	if (*max_bytes > cfg->capture.max_bytes) {
		restconf_err_set(err, 400, "invalid-value", "/cellgate:capture-start/max-size",
		                 "max-size %lu is above the configured limit %lu "
		                 "(/cellgate/system/capture/max-size)",
		                 *max_bytes, cfg->capture.max_bytes);
		return -1;
	}
	if (*max_s > cfg->capture.max_s) {
		restconf_err_set(err, 400, "invalid-value", "/cellgate:capture-start/max-duration",
		                 "max-duration %u is above the configured limit %u "
		                 "(/cellgate/system/capture/max-duration)",
		                 *max_s, cfg->capture.max_s);
		return -1;
	}
	return 0;
}

static void capture_err(int e, bool start, const char *file, struct restconf_err *err)
{
	if (e == -EBUSY)
		restconf_err_set(err, 409, "in-use", NULL, "the VC is being captured already");
	else if (e == -ENOENT && !start)
		restconf_err_set(err, 409, "data-missing", NULL, "the VC is not being captured");
	else if (e == -EEXIST)
		restconf_err_set(err, 409, "data-exists", "/cellgate:capture-start/file",
		                 "capture file %s exists already: choose another name", file);
	else if (e == -EINVAL)
		restconf_err_set(err, 400, "invalid-value", "/cellgate:capture-start/file",
		                 "%s is not a plain file name", file);
	else if (e == -ENOTDIR)
		restconf_err_set(err, 503, "resource-denied", NULL,
		                 "no capture directory (see the daemon's log)");
	else
		restconf_err_set(err, 500, "operation-failed", NULL, "%s: %s",
		                 start ? file : "capture", strerror(-e));
}

static void op_capture(struct mgmt *m, bool start, const struct lyd_node *input,
                       restconf_rpc_done_fn done, void *cookie)
{
	const char *file = start ? child_value(input, "file") : NULL;
	struct restconf_err err;
	uint64_t max_bytes = 0;
	uint32_t max_s = 0;
	int v = op_vc(m, input, &err), e;

	if (v < 0 || (start && capture_limits(m->ctl->cfg, input, &max_bytes, &max_s, &err))) {
		done(cookie, &err, NULL);
		return;
	}
	v = atm_vc_of_pvc(m->ctl->atm, (unsigned)v);
	e = start ? atm_capture_start(m->ctl->atm, (unsigned)v, file ? file : "", max_bytes, max_s)
	          : atm_capture_stop(m->ctl->atm, (unsigned)v);
	if (e)
		capture_err(e, start, file, &err);
	done(cookie, e ? &err : NULL, NULL);
}

static void be_rpc(void *arg, const char *name, const struct lyd_node *input,
                   restconf_rpc_done_fn done, void *cookie)
{
	struct mgmt *m = arg;
	struct restconf_err err;

	if (!strcmp(name, "clear-counters"))
		op_clear_counters(m, input, done, cookie);
	else if (!strcmp(name, "vc-ping"))
		op_vc_ping(m, input, done, cookie);
	else if (!strcmp(name, "capture-start") || !strcmp(name, "capture-stop"))
		op_capture(m, !strcmp(name, "capture-start"), input, done, cookie);
	else {
		restconf_err_set(&err, 501, "operation-not-supported", NULL,
		                 "operation %s is not implemented", name);
		done(cookie, &err, NULL);
	}
}

int mgmt_start(struct control *ctl)
{
	const struct cfg_restconf *r = &ctl->cfg->restconf;
	struct mgmt *m = calloc(1, sizeof(*m));
	char sock[108], err[1024];
	struct restconf_backend be = {.running = be_running,
	                              .state_json = be_state_json,
	                              .routes = be_routes,
	                              .routes_count = be_routes_count,
	                              .routes_skip = be_routes_skip,
	                              .routes6 = be_routes6,
	                              .routes6_count = be_routes6_count,
	                              .routes6_skip = be_routes6_skip,
	                              .apply = be_apply,
	                              .rpc = be_rpc};
	struct restconf_opts o = {.yang_dir = ctl->yang_dir,
	                          .startup_path = ctl->config_path,
	                          .unix_path = sock,
	                          .unix_group = r->unix_group,
	                          .cfg = r,
	                          .max_body = r->max_body_size ? r->max_body_size
	                                                       : CFG_RESTCONF_BODY_DEFAULT};

	if (!m)
		return -ENOMEM;
	m->ctl = ctl;
	ctl->mgmt = m;
	be.arg = m;
	if (r->unix_disabled && !r->nlisteners) {
		log_info("restconf: no listener configured");
		return 0;
	}
	sock[0] = '\0';
	if (!r->unix_disabled &&
	    ((size_t)snprintf(sock, sizeof(sock), "%s", r->unix_path) >= sizeof(sock) ||
	     (!r->unix_path[0] && (size_t)snprintf(sock, sizeof(sock), "%s/restconf.sock",
	                                           ctl->rundir) >= sizeof(sock)))) {
		log_warnx("restconf: socket path too long (at most %zu bytes)", sizeof(sock) - 1);
		return -ENAMETOOLONG;
	}
	m->rc = restconf_start(ctl->base, &be, &o, err, sizeof(err));
	if (!m->rc) {
		log_warnx("%s", err);
		return -EINVAL;
	}
	atm_set_ping_cb(ctl->atm, ping_result, m);
	if (sock[0])
		log_info("restconf: listening on %s", sock);
	for (unsigned i = 0; i < r->nlisteners; i++)
		log_info("restconf: listening on %s port %u (%s)", r->listeners[i].address,
		         r->listeners[i].port, r->listeners[i].certificate[0] ? "https" : "http");
	return 0;
}

void mgmt_stop(struct control *ctl)
{
	struct mgmt *m = ctl->mgmt;
	struct restconf_err err;

	if (!m)
		return;
	restconf_err_set(&err, 503, "operation-failed", NULL, "cellgated is stopping");
	control_stats_clear_fini(ctl);
	while (m->pings) {
		struct mgmt_ping *pg = m->pings;
		m->pings = pg->next;
		pg->done(pg->cookie, &err, NULL);
		free(pg);
	}
	restconf_stop(m->rc);
	free(m);
	ctl->mgmt = NULL;
}

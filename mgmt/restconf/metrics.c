/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * GET /metrics: the state tree (/cellgate/state, the tree RESTCONF serves,
 * built from the same snapshot, without the route and neighbour lists) in
 * the Prometheus text exposition format 0.0.4. Families follow the schema:
 *   /cellgate/state/port/rx-packets       -> cellgate_port_rx_packets_total{port="eth0"}
 *   /cellgate/state/port/drop/packets     -> cellgate_port_drop_packets_total{port=..,reason=..}
 *   /cellgate/state/port/drops-total      -> cellgate_port_drops_total (not _total_total)
 *   /cellgate/state/vc/oper-status (enum) -> cellgate_vc_oper_status{...,oper_status="up"} 1
 *   /cellgate/state/loop/lag-max (us)     -> cellgate_loop_lag_max_seconds 0.0042
 *   /cellgate/state/loop/lag-bucket       -> cellgate_loop_lag_seconds histogram
 * yang:counter64 leaves are counters (suffix _total), other numbers gauges;
 * leaves in microseconds are printed in seconds, the base unit, with
 * _seconds; list keys become labels; a series without labels has no braces.
 * Each family is printed whole, with HELP (the leaf's description on one
 * line) and TYPE, as the format requires; `promtool check metrics` passes.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

#define METRICS_CTYPE "text/plain; version=0.0.4; charset=utf-8"
/* Everything but the lists that would make one sample per route or neighbour. */
#define METRICS_PARTS (RC_PART_ALL & ~(RC_PART_NEIGHBOR | RC_PART_NEIGHBOR6))

/*
 * Lists not exported: one sample per route or neighbour would swamp a
 * scrape; a port's IPv6 addresses are configuration, not measurements.
 */
static bool skipped(const struct lysc_node *sn)
{
	return !strcmp(sn->name, "route") || !strcmp(sn->name, "neighbor") ||
	       !strcmp(sn->name, "route6") || !strcmp(sn->name, "neighbor6") ||
	       !strcmp(sn->name, "ipv6-address");
}

/*
 * Compiled schema nodes keep only the base type (uint64), not the typedef
 * that tells a yang:counter64 from a yang:gauge64; the parsed module does.
 * Collect the descriptions of the counter64 leaves (dictionary strings:
 * compiled and parsed nodes share the pointer) to recognise them.
 */
static void counters_collect(const struct lysp_node *n, struct ly_set *set)
{
	for (; n; n = n->next) {
		if (n->nodetype == LYS_LEAF) {
			const struct lysp_node_leaf *l = (const struct lysp_node_leaf *)n;
			if (l->type.name && strstr(l->type.name, "counter64") && l->dsc)
				ly_set_add(set, (void *)l->dsc, 1, NULL);
		}
		counters_collect(lysp_node_child(n), set);
		for (const struct lysp_node_grp *g = lysp_node_groupings(n); g;
		     g = (const struct lysp_node_grp *)g->next)
			counters_collect(&g->node, set);
	}
}

static bool is_counter(const struct ly_set *counters, const struct lysc_node *sn)
{
	return sn->dsc && ly_set_contains(counters, (void *)sn->dsc, NULL);
}

static bool in_us(const struct lysc_node *sn)
{
	const char *u = ((const struct lysc_node_leaf *)sn)->units;

	return u && !strcmp(u, "microseconds");
}

static void metric_name(char *buf, size_t len, const char *prefix, const char *name)
{
	size_t n = (size_t)snprintf(buf, len, "%s_%s", prefix, name);

	for (size_t i = 0; i < n && i < len; i++)
		if (buf[i] == '-')
			buf[i] = '_';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A label value: the format escapes backslash, double quote and newline. */
static void label_value(struct evbuffer *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			evbuffer_add_printf(b, "\\%c", *v);
		else if (*v == '\n')
			evbuffer_add(b, "\\n", 2);
		else
			evbuffer_add(b, v, 1);
	}
}

/* Labels from the keys of every list above `node`, and an extra one; nothing if none. */
static void labels(struct evbuffer *b, const struct lyd_node *node, const char *extra_name,
                   const char *extra_value)
{
	const struct lyd_node *anc[16];
	unsigned n = 0;
	bool first = true;

	for (const struct lyd_node *p = lyd_parent(node); p && n < 16; p = lyd_parent(p))
		if (p->schema->nodetype == LYS_LIST)
			anc[n++] = p;
	while (n-- > 0) {
		for (const struct lyd_node *k = lyd_child(anc[n]); k && lysc_is_key(k->schema);
		     k = k->next) {
			/* key "name" or "id" reads better as the list's name: port="eth0" */
			const char *lname =
			    strcmp(k->schema->name, "name") && strcmp(k->schema->name, "id")
			        ? k->schema->name
			        : anc[n]->schema->name;
			char l[64];
			metric_name(l, sizeof(l), "x", lname);
			evbuffer_add_printf(b, "%s%s=\"", first ? "{" : ",", l + 2);
			label_value(b, lyd_get_value(k));
			evbuffer_add(b, "\"", 1);
			first = false;
		}
	}
	if (extra_name) {
		evbuffer_add_printf(b, "%s%s=\"", first ? "{" : ",", extra_name);
		label_value(b, extra_value);
		evbuffer_add(b, "\"", 1);
		first = false;
	}
	if (!first)
		evbuffer_add(b, "}", 1);
}

/* HELP: the whole description on one line (the format escapes \ and newline). */
static void help_line(struct evbuffer *b, const char *name, const char *dsc)
{
	bool space = false;

	evbuffer_add_printf(b, "# HELP %s ", name);
	for (const char *d = dsc; *d; d++) {
		if (*d == ' ' || *d == '\n' || *d == '\t') {
			space = true;
			continue;
		}
		if (space)
			evbuffer_add(b, " ", 1);
		space = false;
		if (*d == '\\')
			evbuffer_add(b, "\\\\", 2);
		else
			evbuffer_add(b, d, 1);
	}
	evbuffer_add(b, "\n", 1);
}

static void sample_value(struct evbuffer *b, const char *v, bool us)
{
	if (!us) {
		evbuffer_add_printf(b, " %s\n", v);
		return;
	}
	unsigned long long n = strtoull(v, NULL, 10);
	evbuffer_add_printf(b, " %llu.%06llu\n", n / 1000000, n % 1000000);
}

static bool numeric(const struct lysc_type *t)
{
	switch (t->basetype) {
	case LY_TYPE_UINT8:
	case LY_TYPE_UINT16:
	case LY_TYPE_UINT32:
	case LY_TYPE_UINT64:
	case LY_TYPE_INT8:
	case LY_TYPE_INT16:
	case LY_TYPE_INT32:
	case LY_TYPE_INT64:
	case LY_TYPE_ENUM:
		return true;
	default:
		return false; /* strings, dates, addresses: not metrics */
	}
}

/* One family: every instance of leaf `sn` in the tree. */
static void family(struct evbuffer *b, const struct lyd_node *tree, const struct lysc_node *sn,
                   const char *prefix, const struct ly_set *counters)
{
	char xpath[1024], name[256], lname[128];
	struct ly_set *set = NULL;
	const struct lysc_type *t = ((const struct lysc_node_leaf *)sn)->type;
	bool counter = t->basetype == LY_TYPE_UINT64 && is_counter(counters, sn);
	bool enumeration = t->basetype == LY_TYPE_ENUM, us = in_us(sn);

	if (!numeric(t) || lysc_is_key(sn))
		return;
	metric_name(name, sizeof(name), prefix, sn->name);
	if (us)
		strncat(name, "_seconds", sizeof(name) - strlen(name) - 1);
	if (counter && !ends_with(name, "_total"))
		strncat(name, "_total", sizeof(name) - strlen(name) - 1);
	if (!lysc_path(sn, LYSC_PATH_DATA, xpath, sizeof(xpath)) ||
	    lyd_find_xpath(tree, xpath, &set) != LY_SUCCESS || !set->count) {
		ly_set_free(set, NULL);
		return;
	}
	help_line(b, name, sn->dsc ? sn->dsc : sn->name);
	evbuffer_add_printf(b, "# TYPE %s %s\n", name, counter ? "counter" : "gauge");
	metric_name(lname, sizeof(lname), "x", sn->name);
	for (uint32_t i = 0; i < set->count; i++) {
		const struct lyd_node *n = set->dnodes[i];
		evbuffer_add_printf(b, "%s", name);
		if (enumeration) {
			labels(b, n, lname + 2, lyd_get_value(n));
			evbuffer_add_printf(b, " 1\n");
		} else {
			labels(b, n, NULL, NULL);
			sample_value(b, lyd_get_value(n), us);
		}
	}
	ly_set_free(set, NULL);
}

/* A child leaf's value under `parent` (data), or "0". */
static const char *child_value(const struct lyd_node *parent, const char *name)
{
	const struct lyd_node *c;

	LY_LIST_FOR(lyd_child(parent), c)
	if (!strcmp(c->schema->name, name))
		return lyd_get_value(c);
	return "0";
}

/*
 * /cellgate/state/loop as Prometheus conventions want a latency
 * distribution: one histogram, cellgate_loop_lag_seconds, whose buckets are
 * lag-bucket, _sum lag-total and _count ticks; then the plain gauges.
 */
static void loop_family(struct evbuffer *b, const struct lyd_node *tree,
                        const struct lysc_node *loop, const char *prefix)
{
	struct ly_set *set = NULL;
	const struct lyd_node *c, *lp;
	char name[128];

	if (lyd_find_xpath(tree, "/cellgate:cellgate/state/loop", &set) != LY_SUCCESS ||
	    !set->count) {
		ly_set_free(set, NULL);
		return;
	}
	lp = set->dnodes[0];
	metric_name(name, sizeof(name), prefix, "lag_seconds");
	help_line(b, name, loop->dsc ? loop->dsc : "control loop lag");
	evbuffer_add_printf(b, "# TYPE %s histogram\n", name);
	LY_LIST_FOR(lyd_child(lp), c)
	{
		if (strcmp(c->schema->name, "lag-bucket"))
			continue;
		unsigned long long le = strtoull(child_value(c, "upper-bound"), NULL, 10);
		evbuffer_add_printf(b, "%s_bucket{le=\"%llu.%06llu\"} %s\n", name, le / 1000000,
		                    le % 1000000, child_value(c, "ticks"));
	}
	evbuffer_add_printf(b, "%s_bucket{le=\"+Inf\"} %s\n", name, child_value(lp, "ticks"));
	evbuffer_add_printf(b, "%s_sum", name);
	sample_value(b, child_value(lp, "lag-total"), true);
	evbuffer_add_printf(b, "%s_count %s\n", name, child_value(lp, "ticks"));
	ly_set_free(set, NULL);
}

static void walk(struct evbuffer *b, const struct lyd_node *tree, const struct lysc_node *parent,
                 const char *prefix, const struct ly_set *counters, bool in_loop)
{
	const struct lysc_node *sn;
	char sub[256];

	LY_LIST_FOR(lysc_node_child(parent), sn)
	{
		/* In the loop container the histogram stands for these three. */
		if (in_loop && (!strcmp(sn->name, "ticks") || !strcmp(sn->name, "lag-total") ||
		                !strcmp(sn->name, "lag-bucket")))
			continue;
		if (sn->nodetype == LYS_LEAF) {
			family(b, tree, sn, prefix, counters);
		} else if ((sn->nodetype & (LYS_CONTAINER | LYS_LIST)) && !skipped(sn)) {
			bool loop = !strcmp(sn->name, "loop") && !strcmp(parent->name, "state");
			metric_name(sub, sizeof(sub), prefix, sn->name);
			if (loop)
				loop_family(b, tree, sn, sub);
			walk(b, tree, sn, sub, counters, loop);
		}
	}
}

/* The counter64 leaves of the module, collected once (the schema does not change). */
static const struct ly_set *counters_of(struct restconf *rc)
{
	const struct lys_module *mod = ly_ctx_get_module_implemented(rc->ctx, "cellgate");

	if (rc->counters || !mod || !mod->parsed || ly_set_new(&rc->counters) != LY_SUCCESS)
		return rc->counters;
	counters_collect(mod->parsed->data, rc->counters);
	for (const struct lysp_node_grp *g = mod->parsed->groupings; g;
	     g = (const struct lysp_node_grp *)g->next)
		counters_collect(&g->node, rc->counters);
	return rc->counters;
}

void rc_metrics(struct restconf *rc, struct evhttp_request *req)
{
	struct restconf_err err = {0};
	struct lyd_node *tree = rc_state_tree(rc, METRICS_PARTS, &err);
	const struct lysc_node *state;
	const struct ly_set *counters = counters_of(rc);
	struct evbuffer *b;

	if (!tree) {
		rc_reply_error(req, &err);
		return;
	}
	state = lys_find_path(rc->ctx, NULL, "/cellgate:cellgate/state", 0);
	b = evbuffer_new();
	if (!state || !b || !counters) {
		evhttp_send_error(req, 500, NULL);
	} else {
		walk(b, tree, state, "cellgate", counters, false);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
		                  METRICS_CTYPE);
		evhttp_send_reply(req, 200, NULL, b);
	}
	if (b)
		evbuffer_free(b);
	lyd_free_all(tree);
}

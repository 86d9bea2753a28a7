/*
 * GET /metrics: the state tree (/cellgate/state, the tree RESTCONF serves,
 * built from the same snapshot) in the Prometheus text exposition format
 * 0.0.4. Families follow the schema: the leaf
 *   /cellgate/state/port/rx-packets       -> cellgate_port_rx_packets_total{port="eth0"}
 *   /cellgate/state/port/drop/packets     -> cellgate_port_drop_packets_total{port=..,reason=..}
 *   /cellgate/state/vc/oper-status (enum) -> cellgate_vc_oper_status{...,oper_status="up"} 1
 * yang:counter64 leaves are counters (suffix _total), other numbers gauges;
 * list keys become labels. Each family is printed whole, with HELP from the
 * leaf's description and TYPE, as the format requires.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

#define METRICS_CTYPE "text/plain; version=0.0.4; charset=utf-8"

/* Lists not exported: one sample per route or neighbour would swamp a scrape. */
static bool skipped(const struct lysc_node *sn)
{
	return !strcmp(sn->name, "route") || !strcmp(sn->name, "neighbor");
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

static void metric_name(char *buf, size_t len, const char *prefix, const char *name)
{
	size_t n = (size_t)snprintf(buf, len, "%s_%s", prefix, name);

	for (size_t i = 0; i < n && i < len; i++)
		if (buf[i] == '-')
			buf[i] = '_';
}

/* Labels from the keys of every list above `node`: name="value",... */
static void labels(struct evbuffer *b, const struct lyd_node *node, const char *extra_name,
                   const char *extra_value)
{
	const struct lyd_node *anc[16];
	unsigned n = 0;
	bool first = true;

	for (const struct lyd_node *p = lyd_parent(node); p && n < 16; p = lyd_parent(p))
		if (p->schema->nodetype == LYS_LIST)
			anc[n++] = p;
	evbuffer_add(b, "{", 1);
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
			/* Values are names, numbers and enums: no quote, backslash or newline. */
			evbuffer_add_printf(b, "%s%s=\"%s\"", first ? "" : ",", l + 2,
			                    lyd_get_value(k));
			first = false;
		}
	}
	if (extra_name)
		evbuffer_add_printf(b, "%s%s=\"%s\"", first ? "" : ",", extra_name, extra_value);
	evbuffer_add(b, "}", 1);
}

static void help_line(struct evbuffer *b, const char *name, const struct lysc_node *sn)
{
	const char *d = sn->dsc ? sn->dsc : sn->name;
	size_t n = strcspn(d, "\n");

	/* HELP text: first line of the description; \ and newline would need escaping. */
	evbuffer_add_printf(b, "# HELP %s ", name);
	for (size_t i = 0; i < n; i++)
		if (d[i] != '\\')
			evbuffer_add(b, d + i, 1);
	evbuffer_add(b, "\n", 1);
}

/* One family: every instance of leaf `sn` in the tree. */
static void family(struct evbuffer *b, const struct lyd_node *tree, const struct lysc_node *sn,
                   const char *prefix, const struct ly_set *counters)
{
	char xpath[1024], name[256], lname[128];
	struct ly_set *set = NULL;
	const struct lysc_type *t = ((const struct lysc_node_leaf *)sn)->type;
	bool counter = t->basetype == LY_TYPE_UINT64 && is_counter(counters, sn);
	bool enumeration = t->basetype == LY_TYPE_ENUM;

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
		break;
	default:
		return; /* strings, dates, addresses: not metrics */
	}
	if (lysc_is_key(sn))
		return;
	metric_name(name, sizeof(name), prefix, sn->name);
	if (counter)
		strncat(name, "_total", sizeof(name) - strlen(name) - 1);
	if (!lysc_path(sn, LYSC_PATH_DATA, xpath, sizeof(xpath)) ||
	    lyd_find_xpath(tree, xpath, &set) != LY_SUCCESS || !set->count) {
		ly_set_free(set, NULL);
		return;
	}
	help_line(b, name, sn);
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
			evbuffer_add_printf(b, " %s\n", lyd_get_value(n));
		}
	}
	ly_set_free(set, NULL);
}

static void walk(struct evbuffer *b, const struct lyd_node *tree, const struct lysc_node *parent,
                 const char *prefix, const struct ly_set *counters)
{
	const struct lysc_node *sn;
	char sub[256];

	LY_LIST_FOR(lysc_node_child(parent), sn)
	{
		if (sn->nodetype == LYS_LEAF)
			family(b, tree, sn, prefix, counters);
		else if ((sn->nodetype & (LYS_CONTAINER | LYS_LIST)) && !skipped(sn)) {
			metric_name(sub, sizeof(sub), prefix, sn->name);
			walk(b, tree, sn, sub, counters);
		}
	}
}

void rc_metrics(struct restconf *rc, struct evhttp_request *req)
{
	struct restconf_err err = {0};
	struct lyd_node *tree = rc_state_tree(rc, &err);
	const struct lysc_node *state;
	struct evbuffer *b;
	struct ly_set *counters = NULL;
	const struct lys_module *mod = ly_ctx_get_module_implemented(rc->ctx, "cellgate");

	if (!tree) {
		rc_reply_error(req, &err);
		return;
	}
	state = lys_find_path(rc->ctx, NULL, "/cellgate:cellgate/state", 0);
	b = evbuffer_new();
	if (mod && mod->parsed && ly_set_new(&counters) == LY_SUCCESS) {
		counters_collect(mod->parsed->data, counters);
		for (const struct lysp_node_grp *g = mod->parsed->groupings; g;
		     g = (const struct lysp_node_grp *)g->next)
			counters_collect(&g->node, counters);
	}
	if (!state || !b || !counters) {
		evhttp_send_error(req, 500, NULL);
	} else {
		walk(b, tree, state, "cellgate", counters);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
		                  METRICS_CTYPE);
		evhttp_send_reply(req, 200, NULL, b);
	}
	if (b)
		evbuffer_free(b);
	ly_set_free(counters, NULL);
	lyd_free_all(tree);
}

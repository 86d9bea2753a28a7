/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * GET on /restconf/data (RFC 8040 sections 3.5 and 4.3): the running
 * configuration tree (unless the target is state) and, unless
 * content=config, the state the target covers, built for this request from
 * one stats snapshot: a GET of the ports builds the ports, never the rest.
 * The target node (or every instance of a list named without keys) is
 * copied out, pruned to `depth`, and printed as RFC 7951 JSON or XML. The
 * route lists (route, route6) are never a tree: a GET of one, or of what
 * holds them, streams them (stream.c).
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

#define STATE_PATH "/cellgate:cellgate/state"

#define FIB_PATH    STATE_PATH "/fib"
#define ROUTE_PATH  FIB_PATH "/route"
#define ROUTE6_PATH FIB_PATH "/route6"

/* Which part of the state a child of the state container is (restconf.h). */
static const struct {
	const char *name;
	unsigned part;
} state_children[] = {
    {"start-time", RC_PART_SCALARS},
    {"events-lost", RC_PART_SCALARS},
    {"port", RC_PART_PORT},
    {"vc", RC_PART_VC},
    {"fib", RC_PART_FIB},
    {"neighbor", RC_PART_NEIGHBOR},
    {"arp", RC_PART_ARP},
    {"fpm", RC_PART_FPM},
    {"snmp", RC_PART_SNMP},
    {"worker", RC_PART_WORKER},
    {"loop", RC_PART_LOOP},
    {"capture", RC_PART_CAPTURE},
    {"restconf", RC_PART_RESTCONF},
    {"neighbor6", RC_PART_NEIGHBOR6},
    {"nd", RC_PART_ND},
};

/* The parts a target inside the state container needs; all of them for anything above. */
static unsigned state_parts(const char *xpath)
{
	size_t n = strlen(STATE_PATH), len;
	const char *c;

	if (strncmp(xpath, STATE_PATH, n) || xpath[n] != '/')
		return RC_PART_ALL;
	c = xpath + n + 1;
	len = strcspn(c, "/[");
	for (unsigned i = 0; i < sizeof(state_children) / sizeof(state_children[0]); i++)
		if (strlen(state_children[i].name) == len &&
		    !strncmp(c, state_children[i].name, len))
			return state_children[i].part;
	return RC_PART_ALL; /* a child added to the schema and not to the table: everything */
}

/* Is xpath equal to `path`, or below it? */
static bool at_or_below(const char *xpath, const char *path)
{
	size_t n = strlen(path);

	return !strncmp(xpath, path, n) && (xpath[n] == '\0' || xpath[n] == '/' || xpath[n] == '[');
}

/* Does the target hold the whole route list (root, cellgate, state, fib)? */
static bool holds_routes(const char *xpath)
{
	return !xpath[0] || !strcmp(xpath, "/cellgate:cellgate") || !strcmp(xpath, STATE_PATH) ||
	       !strcmp(xpath, FIB_PATH);
}

/* Level of the route entries below the target (RFC 8040 depth: the target is 1). */
static unsigned route_level(const char *xpath)
{
	return !strcmp(xpath, FIB_PATH) ? 2 : !strcmp(xpath, STATE_PATH) ? 3 : 4;
}

/* The P of list[prefix='P'] at the start of xpath (list: ROUTE_PATH or ROUTE6_PATH) into buf. */
static bool instance_prefix(const char *xpath, const char *list, char *buf, size_t len)
{
	size_t n = strlen(list);

	if (strncmp(xpath, list, n) || strncmp(xpath + n, "[prefix=", 8))
		return false;
	n += 8;
	if (xpath[n] != '\'' && xpath[n] != '"')
		return false;
	const char *v = xpath + n + 1, *end = strchr(v, xpath[n]);
	if (!end || (size_t)(end - v) >= len)
		return false;
	snprintf(buf, len, "%.*s", (int)(end - v), v);
	return true;
}

/* The key of route[prefix='P'] at the start of xpath (one route, or inside one); false if none. */
static bool route_instance(const char *xpath, uint64_t *key)
{
	char buf[32];
	uint32_t prefix;
	uint8_t len;

	if (!instance_prefix(xpath, ROUTE_PATH, buf, sizeof(buf)) ||
	    rc_prefix_parse(buf, &prefix, &len))
		return false;
	*key = restconf_route_key(prefix, len);
	return true;
}

/* The same for route6[prefix='P']. */
static bool route6_instance(const char *xpath, struct restconf_key6 *key)
{
	char buf[64];

	return instance_prefix(xpath, ROUTE6_PATH, buf, sizeof(buf)) && !rc_prefix6_parse(buf, key);
}

static struct lyd_node *parse_state(struct restconf *rc, const char *json, struct restconf_err *err)
{
	struct lyd_node *tree = NULL;

	ly_err_clean(rc->ctx, NULL);
	/* Parsed strictly: a state document that does not match the schema is our bug. */
	if (lyd_parse_data_mem(rc->ctx, json, LYD_JSON, LYD_PARSE_ONLY | LYD_PARSE_STRICT, 0,
	                       &tree) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, err, "state");
		err->status = 500;
		err->tag = "operation-failed";
		tree = NULL;
	}
	return tree;
}

struct lyd_node *rc_state_tree(struct restconf *rc, unsigned parts, struct restconf_err *err)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	struct lyd_node *tree = NULL;

	if (!f) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return NULL;
	}
	if (rc->be.state_json(rc->be.arg, parts, f) != 0) {
		fclose(f);
		free(json);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot read the state");
		return NULL;
	}
	fclose(f);
	tree = parse_state(rc, json, err);
	free(json);
	return tree;
}

static void one_route(void *ctx, const struct restconf_route *r)
{
	rc_route_json(ctx, r, 1, 0);
}

static void one_route6(void *ctx, const struct restconf_route6 *r)
{
	rc_route6_json(ctx, r, 1, 0);
}

/*
 * The route of `key` (or, with key6, of that IPv6 key) when installed, added
 * to the state tree: a GET of one route, or of part of one.
 */
static int add_route(struct restconf *rc, uint64_t key, const struct restconf_key6 *key6,
                     struct lyd_node **tree, struct restconf_err *err)
{
	struct evbuffer *b = evbuffer_new();
	struct lyd_node *r = NULL;
	struct restconf_key6 from6 = key6 ? *key6 : (struct restconf_key6){{0}, 0};
	uint64_t from = key;
	unsigned n;
	int rv = -1;

	if (!b) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	evbuffer_add_printf(b, "{\"cellgate:cellgate\":{\"state\":{\"fib\":{\"%s\":[",
	                    key6 ? "route6" : "route");
	if (key6)
		n = rc->be.routes6 ? rc->be.routes6(rc->be.arg, &from6, key6, 1, one_route6, b) : 0;
	else
		n = rc->be.routes(rc->be.arg, &from, key, 1, one_route, b);
	if (n == 0) {
		evbuffer_free(b);
		return 0; /* not installed: the target is not found */
	}
	evbuffer_add_printf(b, "]}}}}");
	evbuffer_add(b, "", 1);
	if ((r = parse_state(rc, (const char *)evbuffer_pullup(b, -1), err)) &&
	    lyd_merge_siblings(tree, r, LYD_MERGE_DESTRUCT) == LY_SUCCESS)
		rv = 0;
	else if (r) {
		lyd_free_all(r);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot merge the route");
	}
	evbuffer_free(b);
	return rv;
}

/* Drop descendants deeper than `depth` (the node itself is level 1), keeping list keys. */
static void prune(struct lyd_node *node, unsigned level, unsigned depth)
{
	struct lyd_node *c, *next;

	for (c = lyd_child_no_keys(node); c; c = next) {
		next = c->next;
		if (level + 1 > depth)
			lyd_free_tree(c);
		else
			prune(c, level + 1, depth);
	}
}

/* fields: keep what a field selects, the nodes on the way to it, and list keys. */
static void fields_prune(struct lyd_node *node, const struct ly_set *match,
                         const struct ly_set *way)
{
	struct lyd_node *c, *next;

	for (c = lyd_child_no_keys(node); c; c = next) {
		next = c->next;
		if (ly_set_contains(match, c, NULL))
			continue;
		if (ly_set_contains(way, c, NULL))
			fields_prune(c, match, way);
		else
			lyd_free_tree(c);
	}
}

/* The descendants of `node` along steps[0..n) (node names), into match; their ancestors into way.
 */
static void fields_match(struct lyd_node *node, char **steps, unsigned n, struct ly_set *match,
                         struct ly_set *way)
{
	struct lyd_node *c;
	const char *name = strchr(steps[0], ':') ? strchr(steps[0], ':') + 1 : steps[0];

	LY_LIST_FOR(lyd_child(node), c)
	{
		if (strcmp(c->schema->name, name))
			continue;
		if (n == 1) {
			ly_set_add(match, c, 1, NULL);
			continue;
		}
		ly_set_add(way, c, 1, NULL);
		fields_match(c, steps + 1, n - 1, match, way);
	}
}

/* RFC 8040 4.8.3 on one copied-out target node: a;b/c selects those descendants. */
static int fields_apply(struct lyd_node *target, const char *fields, struct restconf_err *err)
{
	struct ly_set *match = NULL, *way = NULL;
	char buf[512], *save = NULL;
	int rc = 0;

	if (!fields[0])
		return 0;
	snprintf(buf, sizeof(buf), "%s", fields);
	if (ly_set_new(&match) || ly_set_new(&way)) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		rc = -1;
		goto out;
	}
	for (char *f = strtok_r(buf, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
		char *steps[32], *save2 = NULL;
		unsigned n = 0;

		for (char *st = strtok_r(f, "/", &save2); st && n < 32;
		     st = strtok_r(NULL, "/", &save2))
			steps[n++] = st;
		if (n)
			fields_match(target, steps, n, match, way);
	}
	fields_prune(target, match, way);
out:
	ly_set_free(match, NULL);
	ly_set_free(way, NULL);
	return rc;
}

/* Does the target (xpath) lie inside, or contain, the state container? */
static bool wants_state(const char *xpath)
{
	size_t n = strlen(STATE_PATH);

	if (!xpath[0])
		return true;
	if (!strncmp(xpath, STATE_PATH, n))
		return xpath[n] == '\0' || xpath[n] == '/';
	return !strncmp(STATE_PATH, xpath, strlen(xpath));
}

/* The placeholder routes where the route lists go, for the lists that have routes at all. */
static int add_placeholder(struct restconf *rc, struct lyd_node *state, bool *added,
                           struct restconf_err *err)
{
	struct restconf_key6 k6 = {{0}, 0}, max6 = {.len = 128};

	memset(max6.prefix, 0xff, sizeof(max6.prefix));
	*added = false;
	if (rc->be.routes_skip(rc->be.arg, 0, RC_ROUTE_KEY_MAX, 0) <= RC_ROUTE_KEY_MAX) {
		if (lyd_new_path(state, NULL, ROUTE_PATH "[prefix='" RC_ROUTE_PLACEHOLDER "']",
		                 NULL, 0, NULL) != LY_SUCCESS) {
			rc_err_from_ly(rc->ctx, err, "route list");
			return -1;
		}
		*added = true;
	}
	if (rc->be.routes6_skip && rc->be.routes6_skip(rc->be.arg, &k6, &max6, 0, &k6)) {
		if (lyd_new_path(state, NULL, ROUTE6_PATH "[prefix='" RC_ROUTE6_PLACEHOLDER "']",
		                 NULL, 0, NULL) != LY_SUCCESS) {
			rc_err_from_ly(rc->ctx, err, "route6 list");
			return -1;
		}
		*added = true;
	}
	return 0;
}

/*
 * The configuration (when the target can hold some) and the state the
 * target covers; *placeholder: the route list is to be streamed in.
 */
static int build_tree(struct restconf *rc, const struct rc_target *t, const struct rc_get_params *p,
                      struct lyd_node **tree, bool *placeholder, struct restconf_err *err)
{
	struct lyd_node *state = NULL;
	struct restconf_key6 key6;
	uint64_t key;

	*tree = NULL;
	*placeholder = false;
	if (p->content != RC_CONTENT_NONCONFIG && !at_or_below(t->xpath, STATE_PATH) &&
	    lyd_dup_siblings(rc->running, NULL, LYD_DUP_RECURSIVE | LYD_DUP_WITH_FLAGS, tree)) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	if (p->content == RC_CONTENT_CONFIG || !wants_state(t->xpath))
		return 0;
	if (!(state = rc_state_tree(rc, state_parts(t->xpath), err)))
		return -1;
	if ((route_instance(t->xpath, &key) && add_route(rc, key, NULL, &state, err) != 0) ||
	    (route6_instance(t->xpath, &key6) && add_route(rc, 0, &key6, &state, err) != 0)) {
		lyd_free_all(state);
		return -1;
	}
	if (holds_routes(t->xpath) && add_placeholder(rc, state, placeholder, err) != 0) {
		lyd_free_all(state);
		return -1;
	}
	if (!*tree) {
		*tree = state;
		return 0;
	}
	if (lyd_merge_siblings(tree, state, LYD_MERGE_DESTRUCT) != LY_SUCCESS) {
		lyd_free_all(state);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot merge state and config");
		return -1;
	}
	return 0;
}

/* Copy the selected nodes out as top-level siblings, which is how RFC 8040 3.5 returns them. */
static struct lyd_node *select_nodes(struct lyd_node *tree, const struct rc_target *t,
                                     const struct rc_get_params *p, struct restconf_err *err)
{
	struct ly_set *set = NULL;
	struct lyd_node *out = NULL, *dup;

	if (!t->xpath[0]) {
		if (lyd_dup_siblings(tree, NULL, LYD_DUP_RECURSIVE, &out) != LY_SUCCESS)
			return NULL;
		for (dup = out; dup && p->depth; dup = dup->next)
			prune(dup, 1, p->depth);
		return out;
	}
	if (!tree || lyd_find_xpath(tree, t->xpath, &set) != LY_SUCCESS || !set->count) {
		rc_err_set(err, 404, "invalid-value", t->xpath, "no such data");
		ly_set_free(set, NULL);
		return NULL;
	}
	for (uint32_t i = 0; i < set->count; i++) {
		if (lyd_dup_single(set->dnodes[i], NULL, LYD_DUP_RECURSIVE, &dup) != LY_SUCCESS)
			break;
		if (p->depth)
			prune(dup, 1, p->depth);
		lyd_insert_sibling(out, dup, &out);
		if (fields_apply(dup, p->fields, err) != 0) {
			lyd_free_all(out);
			ly_set_free(set, NULL);
			return NULL;
		}
	}
	ly_set_free(set, NULL);
	return out;
}

/* RFC 8040 3.3.1 and 3.5: the root is ietf-restconf:data; several XML instances need a root. */
static char *wrap(char *out, const struct rc_target *t, const struct lyd_node *sel, bool xml)
{
	size_t n = out ? strlen(out) : 0;
	char *wrapped;

	if (t->xpath[0] && !(xml && sel && sel->next))
		return out;
	wrapped = malloc(n + 128);
	if (wrapped && (xml || t->xpath[0]))
		snprintf(wrapped, n + 128, "<data xmlns=\"" RC_NS "\">\n%s</data>\n", n ? out : "");
	else if (wrapped)
		snprintf(wrapped, n + 128, "{\"ietf-restconf:data\":%s}\n", n ? out : "{}");
	free(out);
	return wrapped;
}

/*
 * The route list itself (not one route): streamed, paged, filtered. True when
 * the request is about it (err filled if it cannot be served as asked).
 */
static bool route_list_target(const struct rc_target *t, const struct rc_get_params *p, bool *v6,
                              struct restconf_err *err)
{
	const struct rc_page *pg = &p->page;
	bool list = !strcmp(t->xpath, ROUTE_PATH);

	*v6 = !strcmp(t->xpath, ROUTE6_PATH);
	if (!list && !*v6) {
		if (pg->any)
			rc_err_set(
			    err, 400, "invalid-value", NULL,
			    "limit, offset, cursor, prefix and longer apply to the route lists "
			    "(%s, %s) only",
			    ROUTE_PATH, ROUTE6_PATH);
		return pg->any;
	}
	if ((pg->has_cursor && pg->cursor_v6 != *v6) || (pg->has_prefix && pg->prefix_v6 != *v6))
		rc_err_set(err, 400, "invalid-value", NULL,
		           "cursor and prefix on the %s list are %s prefixes (%s)",
		           *v6 ? "route6" : "route", *v6 ? "IPv6" : "IPv4",
		           *v6 ? "X:X::X/N" : "A.B.C.D/N");
	else if (p->fields[0])
		rc_err_set(err, 400, "invalid-value", NULL,
		           "fields is not supported on the %s list", *v6 ? "route6" : "route");
	else if (p->content == RC_CONTENT_CONFIG)
		rc_err_set(err, 404, "invalid-value", t->xpath, "no such data");
	return true;
}

int rc_get_render(struct restconf *rc, const char *uri_path, const char *query, bool xml,
                  struct rc_get_out *o, struct restconf_err *err)
{
	struct rc_target t;
	struct lyd_node *tree = NULL, *sel = NULL;
	int rv = -1;

	memset(o, 0, sizeof(*o));
	if (rc_get_params_parse(query, &o->p, err) || rc_target_parse(rc->ctx, uri_path, &t, err))
		return -1;
	if (route_list_target(&t, &o->p, &o->route6, err))
		return err->status ? -1 : 1;
	if (build_tree(rc, &t, &o->p, &tree, &o->placeholder, err))
		return -1;
	sel = select_nodes(tree, &t, &o->p, err);
	if (!sel && t.xpath[0]) {
		if (!err->status) /* a copy that failed */
			rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		goto done;
	}
	lyd_print_mem(&o->text, sel, xml ? LYD_XML : LYD_JSON,
	              LYD_PRINT_WITHSIBLINGS | (o->placeholder ? LYD_PRINT_SHRINK : 0));
	if (!(o->text = wrap(o->text, &t, sel, xml))) {
		rc_err_set(err, 500, "operation-failed", NULL, "cannot print the data");
		goto done;
	}
	o->level = route_level(t.xpath);
	rv = 0;
done:
	lyd_free_all(sel);
	lyd_free_all(tree);
	return rv;
}

void rc_get(struct restconf *rc, struct evhttp_request *req, const char *uri_path,
            const char *query)
{
	struct restconf_err err = {0};
	struct rc_get_out o;
	bool xml = rc_reply_xml(req);
	int e = rc_get_render(rc, uri_path, query, xml, &o, &err);

	if (e == 1) {
		if (o.route6)
			rc_routes6_get(rc, req, &o.p.page, o.p.depth, xml);
		else
			rc_routes_get(rc, req, &o.p.page, o.p.depth, xml);
		return;
	}
	if (e == 0) {
		e = o.placeholder ? rc_stream_spliced(rc, req, o.text, o.level, o.p.depth, xml) : 1;
		if (e < 0)
			rc_err_set(&err, 500, "operation-failed", NULL, "out of memory");
		else if (e > 0)
			rc_reply(req, 200, xml ? RC_YANG_XML : RC_YANG_JSON, o.text,
			         strlen(o.text));
	}
	if (err.status)
		rc_reply_error(req, &err);
	free(o.text);
}

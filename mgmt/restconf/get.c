/*
 * GET on /restconf/data (RFC 8040 sections 3.5 and 4.3): the running
 * configuration tree and, unless content=config, the state tree built for
 * this request from one stats snapshot; the target node (or every instance
 * of a list named without keys) is copied out, pruned to `depth`, and
 * printed as RFC 7951 JSON.
 */
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

#define STATE_PATH "/cellgate:cellgate/state"

enum content { CONTENT_ALL, CONTENT_CONFIG, CONTENT_NONCONFIG };

struct get_params {
	enum content content;
	unsigned depth;   /* 0 = unbounded */
	char fields[512]; /* RFC 8040 4.8.3, ';'-separated relative paths; "" = all */
};

struct lyd_node *rc_state_tree(struct restconf *rc, struct restconf_err *err)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	struct lyd_node *tree = NULL;

	if (!f) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return NULL;
	}
	if (rc->be.state_json(rc->be.arg, f) != 0) {
		fclose(f);
		free(json);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot read the state");
		return NULL;
	}
	fclose(f);
	ly_err_clean(rc->ctx, NULL);
	/* Parsed strictly: a state document that does not match the schema is our bug. */
	if (lyd_parse_data_mem(rc->ctx, json, LYD_JSON, LYD_PARSE_ONLY | LYD_PARSE_STRICT, 0,
	                       &tree) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, err, "state");
		err->status = 500;
		err->tag = "operation-failed";
		tree = NULL;
	}
	free(json);
	return tree;
}

/* RFC 8040 4.8: content (4.8.1) and depth (4.8.2); other parameters are refused. */
static int params_parse(const char *query, struct get_params *p, struct restconf_err *err)
{
	struct evkeyvalq q = {0};
	struct evkeyval *kv;
	int rc = 0;

	*p = (struct get_params){CONTENT_ALL, 0, ""};
	if (!query || !*query)
		return 0;
	if (evhttp_parse_query_str(query, &q) != 0) {
		rc_err_set(err, 400, "malformed-message", NULL, "cannot parse the query string");
		return -1;
	}
	for (kv = q.tqh_first; kv && !rc; kv = kv->next.tqe_next) {
		if (!strcmp(kv->key, "content")) {
			if (!strcmp(kv->value, "all"))
				p->content = CONTENT_ALL;
			else if (!strcmp(kv->value, "config"))
				p->content = CONTENT_CONFIG;
			else if (!strcmp(kv->value, "nonconfig"))
				p->content = CONTENT_NONCONFIG;
			else
				rc = -1;
		} else if (!strcmp(kv->key, "depth")) {
			char *end;
			unsigned long d = strtoul(kv->value, &end, 10);
			if (!strcmp(kv->value, "unbounded"))
				p->depth = 0;
			else if (*end || d < 1 || d > 65535)
				rc = -1;
			else
				p->depth = (unsigned)d;
		} else if (!strcmp(kv->key, "fields")) {
			/* Paths separated by ';'; the "a(b;c)" grouping form is not supported. */
			if (strlen(kv->value) >= sizeof(p->fields) ||
			    strpbrk(kv->value, "()[]='\"") || !kv->value[0])
				rc = -1;
			else
				snprintf(p->fields, sizeof(p->fields), "%s", kv->value);
		} else {
			rc_err_set(
			    err, 400, "invalid-value", NULL,
			    "query parameter '%.64s' is not supported (content, depth, fields are)",
			    kv->key);
			evhttp_clear_headers(&q);
			return -1;
		}
		if (rc)
			rc_err_set(err, 400, "invalid-value", NULL, "bad value '%.64s' for %s",
			           kv->value, kv->key);
	}
	evhttp_clear_headers(&q);
	return rc;
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

static int build_tree(struct restconf *rc, const struct rc_target *t, const struct get_params *p,
                      struct lyd_node **tree, struct restconf_err *err)
{
	struct lyd_node *state = NULL;

	*tree = NULL;
	if (p->content != CONTENT_NONCONFIG &&
	    lyd_dup_siblings(rc->running, NULL, LYD_DUP_RECURSIVE | LYD_DUP_WITH_FLAGS, tree)) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	if (p->content == CONTENT_CONFIG || !wants_state(t->xpath))
		return 0;
	if (!(state = rc_state_tree(rc, err)))
		return -1;
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
                                     const struct get_params *p, struct restconf_err *err)
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

void rc_get(struct restconf *rc, struct evhttp_request *req, const char *uri_path,
            const char *query)
{
	struct restconf_err err = {0};
	struct rc_target t;
	struct get_params p;
	struct lyd_node *tree = NULL, *sel = NULL;
	char *out = NULL;
	bool xml = rc_reply_xml(req);

	if (params_parse(query, &p, &err) || rc_target_parse(rc->ctx, uri_path, &t, &err) ||
	    build_tree(rc, &t, &p, &tree, &err))
		goto fail;
	sel = select_nodes(tree, &t, &p, &err);
	if (!sel && t.xpath[0])
		goto fail;
	lyd_print_mem(&out, sel, xml ? LYD_XML : LYD_JSON, LYD_PRINT_WITHSIBLINGS);
	if (!t.xpath[0]) {
		/* RFC 8040 3.3.1: the datastore root is the ietf-restconf:data container. */
		size_t n = out ? strlen(out) : 0;
		char *wrapped = malloc(n + 128);
		if (wrapped && xml)
			snprintf(wrapped, n + 128, "<data xmlns=\"" RC_NS "\">\n%s</data>\n",
			         n ? out : "");
		else if (wrapped)
			snprintf(wrapped, n + 128, "{\"ietf-restconf:data\":%s}\n", n ? out : "{}");
		free(out);
		out = wrapped;
	} else if (xml && sel && sel->next) {
		/* Several instances (a list without keys) need one XML root element. */
		size_t n = out ? strlen(out) : 0;
		char *wrapped = malloc(n + 128);
		if (wrapped)
			snprintf(wrapped, n + 128, "<data xmlns=\"" RC_NS "\">\n%s</data>\n", out);
		free(out);
		out = wrapped;
	}
	if (!out) {
		rc_err_set(&err, 500, "operation-failed", NULL, "cannot print the data");
		goto fail;
	}
	rc_reply(req, 200, xml ? RC_YANG_XML : RC_YANG_JSON, out, strlen(out));
	goto done;
fail:
	rc_reply_error(req, &err);
done:
	free(out);
	lyd_free_all(sel);
	lyd_free_all(tree);
}

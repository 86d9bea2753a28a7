/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes to /restconf/data (RFC 8040 sections 4.4 to 4.7), in three steps,
 * any of which can refuse the change with nothing altered:
 *   validate  the body is parsed against the schema as the target node
 *             (PUT, PATCH) or a child of it (POST), applied to a copy of
 *             the running tree, and the result goes through cfg_parse, the
 *             very checks a startup file goes through;
 *   apply     the daemon makes it the running configuration (routes,
 *             settings), undoing its own steps if one fails;
 *   commit    the startup file is replaced atomically (persist.c); were that
 *             to fail, the previous configuration is applied again.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

#define CFG_ERR_SRC "config: " /* how cfg_parse starts its messages */

/* cfg_parse's "config: /path: message" or "config: message" as an RFC 8040 error. */
static void err_from_cfg(const char *msg, struct restconf_err *err)
{
	const char *m =
	    strncmp(msg, CFG_ERR_SRC, strlen(CFG_ERR_SRC)) ? msg : msg + strlen(CFG_ERR_SRC);
	const char *sep = m[0] == '/' ? strstr(m, ": ") : NULL;

	if (sep)
		rc_err_set(err, 400, "invalid-value", NULL, "%s", sep + 2);
	else
		rc_err_set(err, 400, "invalid-value", NULL, "%s", m);
	if (sep)
		snprintf(err->path, sizeof(err->path), "%.*s", (int)(sep - m), m);
	/* A line number would point into our own rendering of the candidate, not the body. */
	char *line = strstr(err->msg, " (line ");
	if (line)
		*line = '\0';
}

/* "a.b.c.d/len" with bits set past len? */
static bool prefix_has_host_bits(const char *p, size_t n)
{
	char buf[32];
	const char *slash;
	struct in_addr a;
	unsigned long len;

	if (n >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
	slash = strchr(buf, '/');
	if (!slash)
		return false;
	len = strtoul(slash + 1, NULL, 10);
	buf[slash - buf] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1 || len > 32)
		return false;
	return len < 32 && (ntohl(a.s_addr) & (0xffffffffu >> len));
}

/*
 * libyang stores inet:ipv4-prefix with the host bits cleared, so the parsed
 * body cannot tell 10.0.0.1/24 from 10.0.0.0/24; a startup file with the
 * former is refused (config.c), and so is a request. The body parsed as
 * JSON already, so every "prefix" member and its string value are tokens.
 */
static int raw_prefix_check(const char *text, const char *key, struct restconf_err *err)
{
	size_t klen = strlen(key);

	bool xml = klen && key[klen - 1] == '>'; /* <prefix>10.0.0.0/8</prefix> */

	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		const char *v = p + klen, *end;
		while (isspace((unsigned char)*v) || (!xml && (*v == ':' || *v == '=')))
			v++;
		if (xml) {
			end = strchr(v, '<');
			while (end && end > v && isspace((unsigned char)end[-1]))
				end--;
			v--; /* as if quoted */
		} else if (*v != '"' && *v != '\'') {
			continue;
		} else
			end = strchr(v + 1, *v);
		if (end && prefix_has_host_bits(v + 1, (size_t)(end - v - 1))) {
			rc_err_set(err, 400, "invalid-value", NULL,
			           "host bits set in prefix %.*s: write the network address",
			           (int)(end - v - 1), v + 1);
			/* The leaf at fault, as the startup file check names it (config.c). */
			snprintf(err->path, sizeof(err->path),
			         "/cellgate:cellgate/routing/static-route[prefix='%.*s']/prefix",
			         (int)(end - v - 1), v + 1);
			return -1;
		}
	}
	return 0;
}

/*
 * Parse the body into a scratch tree: the nodes of `parent_xpath` (created
 * from the path, "" = none) with the body's nodes below. Returns the
 * scratch tree's top; *parsed is the body's first node.
 */
/*
 * libyang names a node parsed below a parent by the body's own nodes only
 * ("/cellgate:system/icmp-burst"); put the target's parent in front.
 */
static void path_under(struct restconf_err *err, const char *parent_xpath)
{
	char full[sizeof(err->path)];
	const char *rest = err->path[0] == '/' ? strchr(err->path, ':') : NULL;

	if (!parent_xpath[0] || !rest || !strncmp(err->path, parent_xpath, strlen(parent_xpath)))
		return;
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", parent_xpath, rest + 1) < sizeof(full))
		memcpy(err->path, full, sizeof(full));
}

/* Past the JSON string whose opening quote is at s, or NULL if it does not end. */
static const char *json_string_end(const char *s)
{
	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\' && !*++s)
			return NULL;
	}
	return *s ? s + 1 : NULL;
}

/*
 * Whether a member name at the top level of the JSON text names metadata
 * ("@name", RFC 7951 §5.2.1), or starts with an escape (which could spell
 * "@"; no YANG identifier does). libyang 2.1.30, Debian 12's, dereferences
 * NULL when such a member is parsed into a parent node (CESNET/libyang
 * issue 2246): a PUT of {"@cellgate:static-route": {}} to a route killed
 * the daemon (found by fuzz_restconf). Edits carry no annotations, so these
 * bodies are refused before libyang sees them. Text that is no JSON object
 * answers false and is left to libyang to refuse.
 */
static bool json_top_meta(const char *s)
{
	bool name = false; /* the next string at depth 1 is a member name */
	int depth = 0;

	for (; *s; s++) {
		if (*s == '"') {
			if (name && depth == 1 && (s[1] == '@' || s[1] == '\\'))
				return true;
			name = false;
			if (!(s = json_string_end(s)))
				return false;
			s--;
		} else if (*s == '{' || *s == '[') {
			name = ++depth == 1 && *s == '{';
		} else if (*s == '}' || *s == ']') {
			depth--;
			name = false;
		} else if (*s == ',') {
			name = depth == 1;
		}
	}
	return false;
}

static struct lyd_node *body_parse(struct restconf *rc, const char *body, bool xml,
                                   const char *parent_xpath, struct lyd_node **parsed,
                                   struct restconf_err *err)
{
	struct lyd_node *top = NULL, *parent = NULL;
	struct ly_in *in = NULL;
	uint32_t opts = LYD_PARSE_ONLY | LYD_PARSE_STRICT | LYD_PARSE_NO_STATE;

	*parsed = NULL;
	if (!xml && json_top_meta(body)) {
		rc_err_set(err, 400, "malformed-message", NULL,
		           "the request body carries metadata (\"@...\"): edits take none");
		return NULL;
	}
	ly_err_clean(rc->ctx, NULL);
	if (parent_xpath[0] && lyd_new_path2(NULL, rc->ctx, parent_xpath, NULL, 0, 0, 0, &top,
	                                     &parent) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, err, "target");
		return NULL;
	}
	if (ly_in_new_memory(body, &in) != LY_SUCCESS ||
	    lyd_parse_data(rc->ctx, parent, in, xml ? LYD_XML : LYD_JSON, opts, 0,
	                   parent ? NULL : &top) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, err, "request body");
		path_under(err, parent_xpath);
		ly_in_free(in, 0);
		lyd_free_all(top);
		return NULL;
	}
	ly_in_free(in, 0);
	if (raw_prefix_check(body, xml ? "prefix>" : "prefix\"", err)) {
		lyd_free_all(top);
		return NULL;
	}
	*parsed = parent ? lyd_child_no_keys(parent) : top;
	if (!*parsed) {
		rc_err_set(err, 400, "malformed-message", NULL, "the request body holds no data");
		lyd_free_all(top);
		return NULL;
	}
	return top;
}

/* RFC 8040 4.5/4.6: the body of PUT or PATCH is the target resource itself, and only it. */
static int body_is_target(struct lyd_node *top, struct lyd_node *parsed, const struct rc_target *t,
                          struct restconf_err *err)
{
	struct lyd_node *found = NULL;

	if (!t->xpath[0])
		return 0;
	if (parsed->next || lyd_find_path(top, t->xpath, 0, &found) != LY_SUCCESS ||
	    found != parsed) {
		rc_err_set(err, 400, "invalid-value", t->xpath,
		           "the body must hold exactly the target node, with the keys of the URI");
		return -1;
	}
	return 0;
}

static struct lyd_node *find(struct lyd_node *tree, const char *xpath)
{
	struct lyd_node *n = NULL;

	if (!tree || lyd_find_path(tree, xpath, 0, &n) != LY_SUCCESS)
		return NULL;
	return n;
}

/* The edit on a copy of the running tree. Sets *created for 201. */
static int edit_candidate(struct restconf *rc, enum evhttp_cmd_type m, const struct rc_target *t,
                          const char *body, bool xml, struct lyd_node **cand, bool *created,
                          char *location, size_t loclen, struct restconf_err *err)
{
	struct lyd_node *top = NULL, *parsed = NULL, *old;
	int rv = -1;

	*created = false;
	if (m == EVHTTP_REQ_DELETE) {
		if (!t->xpath[0] || !(old = find(*cand, t->xpath))) {
			rc_err_set(err, 409, "data-missing", t->xpath[0] ? t->xpath : NULL,
			           t->xpath[0] ? "nothing to delete" : "DELETE needs a target");
			return -1;
		}
		if (old == *cand)
			*cand = (*cand)->next;
		lyd_free_tree(old);
		return 0;
	}
	if (t->all_instances && m != EVHTTP_REQ_POST) {
		rc_err_set(err, 400, "invalid-value", t->xpath,
		           "name the list entry with its keys (RFC 8040 3.5.3)");
		return -1;
	}
	if (m == EVHTTP_REQ_POST) {
		/* RFC 8040 4.4.1: POST creates a child of an existing resource. */
		const char *res = t->all_instances ? t->parent : t->xpath;
		if (res[0] && strchr(res + 1, '/') && !find(*cand, res)) {
			rc_err_set(err, 404, "invalid-value", res, "no such resource to create in");
			return -1;
		}
	}
	top =
	    body_parse(rc, body, xml,
	               m == EVHTTP_REQ_POST ? (t->all_instances ? t->parent : t->xpath) : t->parent,
	               &parsed, err);
	if (!top)
		return -1;
	if (m == EVHTTP_REQ_POST) {
		/* RFC 8040 4.4.1: one child resource, which must not exist yet. */
		char path[RC_PATH_MAX];
		if (parsed->next) {
			rc_err_set(err, 400, "invalid-value", t->xpath,
			           "POST creates one resource");
			goto out;
		}
		lyd_path(parsed, LYD_PATH_STD, path, sizeof(path));
		if (find(*cand, path)) {
			rc_err_set(err, 409, "data-exists", path, "already exists");
			goto out;
		}
		*created = true;
		rc_node_uri(parsed, location, loclen);
	} else {
		if (body_is_target(top, parsed, t, err))
			goto out;
		old = t->xpath[0] ? find(*cand, t->xpath) : NULL;
		if (m == EVHTTP_REQ_PATCH && t->xpath[0] && !old) {
			rc_err_set(
			    err, 409, "data-missing", t->xpath,
			    "PATCH merges into an existing resource; use PUT or POST to create");
			goto out;
		}
		if (m == EVHTTP_REQ_PUT) {
			*created = t->xpath[0] && !old;
			if (!t->xpath[0]) { /* replace the whole datastore */
				lyd_free_all(*cand);
				*cand = NULL;
			} else if (old) {
				if (old == *cand)
					*cand = (*cand)->next;
				lyd_free_tree(old);
			}
		}
	}
	if (lyd_merge_siblings(cand, top, LYD_MERGE_DESTRUCT) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, err, "merge");
		goto out;
	}
	top = NULL;
	rv = 0;
out:
	lyd_free_all(top);
	return rv;
}

/* cfg_parse with the server's contexts (no schema load per write). */
static int rc_cfg_parse(struct restconf *rc, const char *json, struct cfg *out, char *msg,
                        size_t len)
{
	if (rc->parser)
		return cfg_parser_parse(rc->parser, json, out, msg, len);
	return cfg_parse(json, rc->yang_dir, out, msg, len);
}

/* Validate the candidate the way a startup file is validated, into a struct cfg. */
static int candidate_check(struct restconf *rc, struct lyd_node *cand, struct cfg *next,
                           char **json, size_t *len, struct restconf_err *err)
{
	char msg[1024];
	FILE *f;

	*json = NULL;
	if (lyd_print_mem(json, cand, LYD_JSON, LYD_PRINT_WITHSIBLINGS) != LY_SUCCESS) {
		rc_err_set(err, 500, "operation-failed", NULL, "cannot print the candidate");
		return -1;
	}
	if (rc_cfg_parse(rc, *json ? *json : "{}", next, msg, sizeof(msg)) != 0) {
		err_from_cfg(msg, err);
		return -1;
	}
	/* What is persisted is the normalised form, as `cellgated -n` prints it. */
	free(*json);
	*json = NULL;
	*len = 0;
	f = open_memstream(json, len);
	if (!f || cfg_print(next, f) != 0) {
		if (f)
			fclose(f);
		cfg_free(next);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot print the configuration");
		return -1;
	}
	fclose(f);
	return 0;
}

/* Re-apply what ran before (the startup file could not be replaced). */
static void rollback(struct restconf *rc, const char *old_json)
{
	struct restconf_err err;
	struct cfg old;
	char msg[512];

	if (rc_cfg_parse(rc, old_json, &old, msg, sizeof(msg)) == 0 &&
	    rc->be.apply(rc->be.arg, &old, &err) == 0)
		return;
	cfg_free(&old);
}

static int commit(struct restconf *rc, struct cfg *next, const char *json, size_t len,
                  struct restconf_err *err)
{
	char tmp[4200], *old_json = NULL;
	size_t old_len = 0;
	FILE *f;
	int e;

	if ((e = rc_persist_prepare(rc->startup_path, json, len, tmp, sizeof(tmp))) != 0) {
		rc_err_set(err, 500, "operation-failed", NULL, "cannot write %s: %s",
		           rc->startup_path, strerror(-e));
		return -1;
	}
	f = open_memstream(&old_json, &old_len);
	if (!f || cfg_print(rc->be.running(rc->be.arg), f) != 0) {
		if (f)
			fclose(f);
		free(old_json);
		rc_persist_abort(tmp);
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	fclose(f);
	if (rc->be.apply(rc->be.arg, next, err) != 0) {
		rc_persist_abort(tmp);
		free(old_json);
		return -1;
	}
	if ((e = rc_persist_commit(tmp, rc->startup_path)) != 0) {
		rollback(rc, old_json);
		free(old_json);
		rc_err_set(err, 500, "operation-failed", NULL, "cannot replace %s: %s",
		           rc->startup_path, strerror(-e));
		return -1;
	}
	free(old_json);
	return 0;
}

int rc_edit_target(struct restconf *rc, const char *uri_path, struct rc_target *t,
                   struct restconf_err *err)
{
	if (rc_target_parse(rc->ctx, uri_path, t, err) != 0 ||
	    raw_prefix_check(t->xpath, "[prefix=", err) != 0)
		return -1;
	if (t->snode && !(t->snode->flags & LYS_CONFIG_W)) {
		rc_err_set(err, 405, "operation-not-supported", t->xpath,
		           "state data (config false) cannot be written");
		return -1;
	}
	return 0;
}

int rc_edit_validate(struct restconf *rc, enum evhttp_cmd_type m, const struct rc_target *t,
                     const char *body, bool xml, struct lyd_node **cand, struct cfg *next,
                     char **json, size_t *len, bool *created, char *location, size_t loclen,
                     struct restconf_err *err)
{
	*cand = NULL;
	if (lyd_dup_siblings(rc->running, NULL, LYD_DUP_RECURSIVE | LYD_DUP_WITH_FLAGS, cand)) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	if (edit_candidate(rc, m, t, body, xml, cand, created, location, loclen, err) ||
	    candidate_check(rc, *cand, next, json, len, err))
		return -1;
	return 0;
}

void rc_edit(struct restconf *rc, struct evhttp_request *req, const char *uri_path)
{
	enum evhttp_cmd_type m = evhttp_request_get_command(req);
	struct restconf_err err = {0};
	struct lyd_node *cand = NULL;
	struct rc_target t;
	struct cfg next;
	char *body = NULL, *json = NULL, location[RC_PATH_MAX + 32] = "/restconf/data";
	size_t len;
	bool created;

	if (rc_edit_target(rc, uri_path, &t, &err) != 0)
		goto fail;
	if (m != EVHTTP_REQ_DELETE && !(body = rc_body(req, &err)))
		goto fail;
	if (rc_edit_validate(rc, m, &t, body, rc_body_xml(req), &cand, &next, &json, &len, &created,
	                     location + strlen(location), sizeof(location) - strlen(location),
	                     &err))
		goto fail;
	if (commit(rc, &next, json, len, &err) != 0) {
		cfg_free(&next);
		goto fail;
	}
	if (rc_running_reload(rc, &err) != 0)
		goto fail;
	if (created && m == EVHTTP_REQ_POST)
		evhttp_add_header(evhttp_request_get_output_headers(req), "Location", location);
	rc_reply(req, created ? 201 : 204, NULL, NULL, 0);
	goto done;
fail:
	rc_reply_error(req, &err);
done:
	free(body);
	free(json);
	lyd_free_all(cand);
}

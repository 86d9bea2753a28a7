/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Operations (RFC 8040 section 3.6): POST /restconf/operations/MODULE:NAME
 * with an optional {"MODULE:input": {...}} body. The input is parsed and
 * validated (mandatory leaves, ranges, defaults) against the rpc's input
 * statement before the daemon sees it. Operations may finish later (vc-ping
 * waits for OAM replies): the request is answered from the done callback,
 * unless the client went away meanwhile.
 */
#include <ctype.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

struct rc_op {
	struct evhttp_request *req; /* NULL once the client has gone */
	struct evhttp_connection *conn;
};

static void op_conn_closed(struct evhttp_connection *conn, void *arg)
{
	struct rc_op *op = arg;

	op->req = NULL;
}

static void op_done(void *cookie, const struct restconf_err *err, const char *output_json)
{
	struct rc_op *op = cookie;

	if (op->req) {
		evhttp_connection_set_closecb(op->conn, NULL, NULL);
		if (err)
			rc_reply_error(op->req, err);
		else if (output_json)
			rc_reply(op->req, 200, RC_YANG_JSON, output_json, strlen(output_json));
		else
			rc_reply(op->req, 204, NULL, NULL, 0);
	}
	free(op);
}

static const char *skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/*
 * libyang 2.1 parses an rpc as {"mod:name": {input leaves}}, while RFC 8040
 * 3.6.1 sends {"mod:input": {...}}: take the value of that one member and
 * wrap it. Anything else in the body makes the JSON invalid and is refused
 * by the parser.
 */
static char *input_rewrap(const char *body, const char *mod, const char *name,
                          struct restconf_err *err)
{
	char key[300];
	const char *p = skip_ws(body), *end = body + strlen(body);
	char *out;
	size_t n;

	snprintf(key, sizeof(key), "\"%s:input\"", mod);
	if (*p == '\0')
		goto empty;
	if (*p != '{')
		goto bad;
	p = skip_ws(p + 1);
	if (*p == '}' && *skip_ws(p + 1) == '\0')
		goto empty;
	if (strncmp(p, key, strlen(key)))
		goto bad;
	p = skip_ws(p + strlen(key));
	if (*p++ != ':')
		goto bad;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (end == p || end[-1] != '}')
		goto bad;
	end--; /* the body's closing brace */
	n = (size_t)(end - p);
	out = malloc(n + strlen(mod) + strlen(name) + 16);
	if (out)
		sprintf(out, "{\"%s:%s\":%.*s}", mod, name, (int)n, p);
	return out;
empty:
	out = malloc(strlen(mod) + strlen(name) + 16);
	if (out)
		sprintf(out, "{\"%s:%s\":{}}", mod, name);
	return out;
bad:
	rc_err_set(err, 400, "malformed-message", NULL,
	           "the body of an operation is {\"%s:input\": {...}} (RFC 8040 3.6.1)", mod);
	return NULL;
}

void rc_operation(struct restconf *rc, struct evhttp_request *req, const char *name)
{
	struct restconf_err err = {0};
	const char *colon = strchr(name, ':');
	char mod[128], op_name[128], *body = NULL, *wrapped = NULL;
	const struct lys_module *m;
	const struct lysc_node *sn;
	struct lyd_node *tree = NULL, *op = NULL;
	struct ly_in *in = NULL;
	struct rc_op *pending;

	if (!colon || colon == name || strlen(colon + 1) >= sizeof(op_name) ||
	    (size_t)(colon - name) >= sizeof(mod) || strchr(colon + 1, '/')) {
		rc_err_set(&err, 404, "invalid-value", NULL, "operations are named MODULE:NAME");
		goto fail;
	}
	snprintf(mod, sizeof(mod), "%.*s", (int)(colon - name), name);
	snprintf(op_name, sizeof(op_name), "%s", colon + 1);
	m = ly_ctx_get_module_implemented(rc->ctx, mod);
	sn = m ? lys_find_child(NULL, m, op_name, 0, LYS_RPC, 0) : NULL;
	if (!sn) {
		rc_err_set(&err, 404, "invalid-value", NULL, "no operation %s", name);
		goto fail;
	}
	if (!(body = rc_body(req, &err)) || !(wrapped = input_rewrap(body, mod, op_name, &err)))
		goto fail;
	ly_err_clean(rc->ctx, NULL);
	if (ly_in_new_memory(wrapped, &in) != LY_SUCCESS ||
	    lyd_parse_op(rc->ctx, NULL, in, LYD_JSON, LYD_TYPE_RPC_YANG, &tree, &op) !=
	        LY_SUCCESS ||
	    lyd_validate_op(op, NULL, LYD_TYPE_RPC_YANG, NULL) != LY_SUCCESS) {
		rc_err_from_ly(rc->ctx, &err, "input");
		goto fail;
	}
	pending = calloc(1, sizeof(*pending));
	if (!pending) {
		rc_err_set(&err, 500, "operation-failed", NULL, "out of memory");
		goto fail;
	}
	pending->req = req;
	pending->conn = evhttp_request_get_connection(req);
	evhttp_connection_set_closecb(pending->conn, op_conn_closed, pending);
	rc->be.rpc(rc->be.arg, op_name, op, op_done, pending);
	goto done;
fail:
	rc_reply_error(req, &err);
done:
	ly_in_free(in, 0);
	lyd_free_all(tree);
	free(body);
	free(wrapped);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RFC 8040 section 3.5.3 resource identifiers to libyang paths and back:
 *   /cellgate:cellgate/routing/static-route=10.0.0.0%2F24
 *   -> /cellgate:cellgate/routing/static-route[prefix='10.0.0.0/24']
 * The first node names its module; a node names one again only where the
 * module changes (RFC 7951 section 4). Keys are percent-encoded, in the
 * order of the list's key statement, separated by commas.
 */
#include <ctype.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

#define SEGMENT_MAX 256

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode s[0..len) into out (RFC 3986 2.1). -1 on a bad escape or overflow. */
static int pct_decode(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			if (i + 2 >= len)
				return -1;
			int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
			if (h < 0 || l < 0)
				return -1;
			c = h << 4 | l;
			i += 2;
		}
		if (c == 0 || o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

/* Append s to buf (length-checked). */
static int cat(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf), m = strlen(s);

	if (n + m + 1 > len)
		return -1;
	memcpy(buf + n, s, m + 1);
	return 0;
}

/* [name='value'], quoted with whichever quote the value lacks (XPath 1.0 has no escapes). */
static int cat_pred(char *buf, size_t len, const char *name, const char *value)
{
	char q = strchr(value, '\'') ? '"' : '\'';
	char tmp[SEGMENT_MAX * 3];

	if (q == '"' && strchr(value, '"'))
		return -1;
	if ((size_t)snprintf(tmp, sizeof(tmp), "[%s=%c%s%c]", name, q, value, q) >= sizeof(tmp))
		return -1;
	return cat(buf, len, tmp);
}

/* The predicates of a list instance from its comma-separated key values. */
static int cat_keys(const struct lysc_node *list, const char *vals, size_t vlen, char *buf,
                    size_t len, struct restconf_err *err, const char *at)
{
	const struct lysc_node *k = lysc_node_child(list);
	const char *p = vals, *end = vals + vlen;
	char value[SEGMENT_MAX];

	for (; k && lysc_is_key(k); k = k->next) {
		/* Past the end already (fewer values than keys): never scan from there. */
		const char *comma = p > end ? NULL : memchr(p, ',', (size_t)(end - p));
		size_t n = comma ? (size_t)(comma - p) : p > end ? 0 : (size_t)(end - p);

		if (p > end || pct_decode(p, n, value, sizeof(value)) != 0) {
			rc_err_set(err, 400, "invalid-value", at, "%s: bad or missing key value",
			           list->name);
			return -1;
		}
		if (cat_pred(buf, len, k->name, value) != 0)
			goto toolong;
		p += n + 1;
	}
	if (p <= end) {
		rc_err_set(err, 400, "invalid-value", at, "%s: more key values than keys",
		           list->name);
		return -1;
	}
	return 0;
toolong:
	rc_err_set(err, 400, "invalid-value", at, "path too long or unquotable key value");
	return -1;
}

/* One segment "[module:]name[=keys]" below t->snode (NULL = top level). */
static int segment(const struct ly_ctx *ctx, const char *seg, size_t len, struct rc_target *t,
                   const struct lys_module **mod, struct restconf_err *err)
{
	const char *end = seg + len, *eq = memchr(seg, '=', len);
	const char *id_end = eq ? eq : end, *colon = memchr(seg, ':', (size_t)(id_end - seg));
	const char *id = colon ? colon + 1 : seg, *keys = eq ? eq + 1 : NULL;
	const struct lysc_node *parent = t->snode, *sn;
	char name[SEGMENT_MAX], modname[SEGMENT_MAX] = "";

	if (colon) {
		if ((size_t)(colon - seg) >= sizeof(modname))
			goto toolong;
		snprintf(modname, sizeof(modname), "%.*s", (int)(colon - seg), seg);
		*mod = ly_ctx_get_module_implemented(ctx, modname);
		if (!*mod) {
			rc_err_set(err, 400, "unknown-namespace", t->xpath[0] ? t->xpath : NULL,
			           "no module '%s'", modname);
			return -1;
		}
	}
	if (!*mod) {
		rc_err_set(err, 400, "invalid-value", NULL,
		           "the first node of the path must name its module (RFC 8040 3.5.3)");
		return -1;
	}
	if (id_end == id || (size_t)(id_end - id) >= sizeof(name)) {
		rc_err_set(err, 400, "invalid-value", t->xpath[0] ? t->xpath : NULL,
		           "empty or overlong node name");
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(id_end - id), id);
	if (t->all_instances || (parent && (parent->nodetype & (LYS_LEAF | LYS_LEAFLIST)))) {
		rc_err_set(err, 400, "invalid-value", t->xpath,
		           "'%s' cannot have children here (a leaf, or a list without keys)", name);
		return -1;
	}
	sn = lys_find_child(parent, *mod, name, 0, 0, 0);
	if (!sn || (sn->nodetype & (LYS_RPC | LYS_ACTION | LYS_NOTIF))) {
		rc_err_set(err, 400, "unknown-element", t->xpath[0] ? t->xpath : NULL,
		           "no data node '%s' here in the schema", name);
		return -1;
	}
	snprintf(t->parent, sizeof(t->parent), "%s", t->xpath);
	if (cat(t->xpath, sizeof(t->xpath), "/") ||
	    (colon &&
	     (cat(t->xpath, sizeof(t->xpath), modname) || cat(t->xpath, sizeof(t->xpath), ":"))) ||
	    cat(t->xpath, sizeof(t->xpath), name))
		goto toolong;
	t->snode = sn;
	if (!keys) {
		t->all_instances = sn->nodetype & (LYS_LIST | LYS_LEAFLIST);
		return 0;
	}
	if (sn->nodetype == LYS_LIST)
		return cat_keys(sn, keys, (size_t)(end - keys), t->xpath, sizeof(t->xpath), err,
		                t->parent);
	if (sn->nodetype == LYS_LEAFLIST) {
		char value[SEGMENT_MAX];
		if (pct_decode(keys, (size_t)(end - keys), value, sizeof(value)) ||
		    cat_pred(t->xpath, sizeof(t->xpath), ".", value))
			goto toolong;
		return 0;
	}
	rc_err_set(err, 400, "invalid-value", t->parent, "'%s' is not a list: it takes no '='",
	           name);
	return -1;
toolong:
	rc_err_set(err, 400, "invalid-value", NULL, "path too long or bad escape");
	return -1;
}

int rc_target_parse(const struct ly_ctx *ctx, const char *uri_path, struct rc_target *t,
                    struct restconf_err *err)
{
	const struct lys_module *mod = NULL;
	const char *p = uri_path;

	memset(t, 0, sizeof(*t));
	if (*p == '/')
		p++;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 0 || len >= SEGMENT_MAX * 3) {
			rc_err_set(err, 400, "invalid-value", t->xpath[0] ? t->xpath : NULL,
			           "empty or overlong path segment");
			return -1;
		}
		if (segment(ctx, p, len, t, &mod, err) != 0)
			return -1;
		p += len + (slash ? 1 : 0);
		if (slash && !*p) /* a trailing slash */
			break;
	}
	return 0;
}

/* Percent-encode what RFC 8040 3.5.3 reserves inside a key value. */
static int pct_encode(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s; s++) {
		unsigned char c = *s;
		bool plain = isalnum(c) || strchr("-._~", c);
		if (o + (plain ? 1 : 3) + 1 > len)
			return -1;
		if (plain)
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, len - o, "%%%02X", c);
	}
	out[o] = '\0';
	return 0;
}

int rc_node_uri(const struct lyd_node *node, char *buf, size_t len)
{
	char seg[SEGMENT_MAX * 4], val[SEGMENT_MAX * 3];

	if (!node)
		return (buf[0] = '\0'), 0;
	if (rc_node_uri(lyd_parent(node), buf, len) != 0)
		return -1;
	const struct lyd_node *parent = lyd_parent(node);
	bool qualify = !parent || parent->schema->module != node->schema->module;
	snprintf(seg, sizeof(seg), "/%s%s%s", qualify ? node->schema->module->name : "",
	         qualify ? ":" : "", node->schema->name);
	if (cat(buf, len, seg))
		return -1;
	if (node->schema->nodetype == LYS_LIST) {
		bool first = true;
		for (const struct lyd_node *k = lyd_child(node); k && lysc_is_key(k->schema);
		     k = k->next) {
			if (pct_encode(lyd_get_value(k), val, sizeof(val)) ||
			    cat(buf, len, first ? "=" : ",") || cat(buf, len, val))
				return -1;
			first = false;
		}
	} else if (node->schema->nodetype == LYS_LEAFLIST) {
		if (pct_encode(lyd_get_value(node), val, sizeof(val)) || cat(buf, len, "=") ||
		    cat(buf, len, val))
			return -1;
	}
	return 0;
}

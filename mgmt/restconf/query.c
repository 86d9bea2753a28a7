/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The query of a GET: RFC 8040 section 4.8 (content, depth, fields) and the
 * route list's paging. Paging follows draft-ietf-netconf-list-pagination
 * where its parameters fit: limit (a count or "unbounded"), offset, cursor
 * (the key of the first route to list, as Cellgate-Next-Cursor gives it),
 * on the route list and, with IPv6 prefixes, the route6 list.
 * Its where (an XPath filter), sort-by, direction, locale and sublist-limit
 * are refused, named; the one filter is cellgate's own: prefix=P lists P
 * alone, prefix=P&longer P and every more specific prefix (vtysh's
 * "longer-prefixes").
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"

/*
 * "ADDR/len" into buf (the address, NUL-terminated) and the length: 0, or -1
 * if there is no slash, the length is not decimal digits alone, or over max.
 */
static int prefix_split(const char *s, char *buf, size_t size, unsigned max, uint8_t *len)
{
	char *slash, *end;
	unsigned long l;

	if (strlen(s) >= size)
		return -1;
	snprintf(buf, size, "%s", s);
	if (!(slash = strchr(buf, '/')) || !isdigit((unsigned char)slash[1]))
		return -1;
	*slash = '\0';
	l = strtoul(slash + 1, &end, 10);
	if (*end || l > max)
		return -1;
	*len = (uint8_t)l;
	return 0;
}

/* "a.b.c.d/len" -> prefix (host order, host bits cleared) and length; -1 if malformed. */
int rc_prefix_parse(const char *s, uint32_t *prefix, uint8_t *len)
{
	char buf[24];
	struct in_addr a;

	if (prefix_split(s, buf, sizeof(buf), 32, len) || inet_pton(AF_INET, buf, &a) != 1)
		return -1;
	*prefix = ntohl(a.s_addr) & (*len ? 0xffffffffu << (32 - *len) : 0);
	return 0;
}

/* "x:y::/len" -> the prefix (host bits cleared) and length; -1 if malformed. */
int rc_prefix6_parse(const char *s, struct restconf_key6 *k)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned l;

	if (prefix_split(s, buf, sizeof(buf), 128, &k->len) ||
	    inet_pton(AF_INET6, buf, k->prefix) != 1)
		return -1;
	l = k->len;
	for (unsigned b = 0; b < 16; b++) {
		unsigned keep = l >= 8 * (b + 1) ? 8 : l > 8 * b ? l - 8 * b : 0;
		k->prefix[b] &= (uint8_t)(0xff00u >> keep);
	}
	return 0;
}

static int number(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (!v[0] || v[0] == '-' || v[0] == '+')
		return -1;
	n = strtoull(v, &end, 10);
	if (*end || n > max)
		return -1;
	*out = n;
	return 0;
}

/* 1 when the parameter is one of paging's, 0 when not, -1 when its value is bad. */
static int page_param(const char *key, const char *v, struct rc_page *pg)
{
	uint32_t prefix;
	uint8_t len;

	if (!strcmp(key, "limit")) {
		if (!strcmp(v, "unbounded"))
			pg->limit = 0;
		else if (number(v, UINT32_MAX, &pg->limit) || pg->limit == 0)
			return -1;
	} else if (!strcmp(key, "offset")) {
		if (number(v, UINT32_MAX, &pg->offset))
			return -1;
	} else if (!strcmp(key, "cursor")) {
		pg->cursor_v6 = strchr(v, ':') != NULL;
		if (pg->cursor_v6 ? rc_prefix6_parse(v, &pg->cursor6)
		                  : rc_prefix_parse(v, &prefix, &len))
			return -1;
		pg->cursor = pg->cursor_v6 ? 0 : restconf_route_key(prefix, len);
		pg->has_cursor = true;
	} else if (!strcmp(key, "prefix")) {
		pg->prefix_v6 = strchr(v, ':') != NULL;
		if (pg->prefix_v6 ? rc_prefix6_parse(v, &pg->prefix6)
		                  : rc_prefix_parse(v, &pg->prefix, &pg->plen))
			return -1;
		pg->has_prefix = true;
	} else if (!strcmp(key, "longer")) {
		if (v[0] && strcmp(v, "true"))
			return -1;
		pg->longer = true;
	} else {
		return 0;
	}
	pg->any = true;
	return 1;
}

static int std_param(const char *key, const char *v, struct rc_get_params *p)
{
	uint64_t d;

	if (!strcmp(key, "content")) {
		if (!strcmp(v, "all"))
			p->content = RC_CONTENT_ALL;
		else if (!strcmp(v, "config"))
			p->content = RC_CONTENT_CONFIG;
		else if (!strcmp(v, "nonconfig"))
			p->content = RC_CONTENT_NONCONFIG;
		else
			return -1;
	} else if (!strcmp(key, "depth")) {
		if (!strcmp(v, "unbounded"))
			p->depth = 0;
		else if (number(v, 65535, &d) || d < 1)
			return -1;
		else
			p->depth = (unsigned)d;
	} else if (!strcmp(key, "fields")) {
		/* Paths separated by ';'; the "a(b;c)" grouping form is not supported. */
		if (strlen(v) >= sizeof(p->fields) || strpbrk(v, "()[]='\"") || !v[0])
			return -1;
		snprintf(p->fields, sizeof(p->fields), "%s", v);
	} else {
		return 0;
	}
	return 1;
}

/* Check and record one key=value (decoded); 0, or -1 with err filled. */
static int one_param(const char *key, const char *value, struct rc_get_params *p,
                     struct restconf_err *err)
{
	static const char *const refused[] = {"where", "sort-by", "direction", "locale",
	                                      "sublist-limit"};
	int k = std_param(key, value, p);
	bool known = false;

	if (k == 0)
		k = page_param(key, value, &p->page);
	if (k > 0)
		return 0;
	if (k < 0) {
		rc_err_set(err, 400, "invalid-value", NULL, "bad value '%.64s' for %.64s", value,
		           key);
		return -1;
	}
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		known |= !strcmp(key, refused[i]);
	if (known)
		rc_err_set(err, 400, "invalid-value", NULL,
		           "query parameter '%.64s' is not supported; the route lists are "
		           "filtered with prefix=A.B.C.D/N or prefix=X:X::X/N (and longer)",
		           key);
	else
		rc_err_set(err, 400, "invalid-value", NULL,
		           "query parameter '%.64s' is not supported (content, depth, fields; on "
		           "the route lists limit, offset, cursor, prefix, longer)",
		           key);
	return -1;
}

/*
 * RFC 3986 query: name[=value] pairs separated by '&', percent-encoded. A
 * name without '=' (longer) has an empty value; evhttp's parser refuses those.
 */
int rc_get_params_parse(const char *query, struct rc_get_params *p, struct restconf_err *err)
{
	char *copy, *save = NULL;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (!query || !*query)
		return 0;
	if (!(copy = strdup(query))) {
		rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
		return -1;
	}
	for (char *pair = strtok_r(copy, "&", &save); pair && !rc;
	     pair = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(pair, '='), *key, *value;

		if (eq)
			*eq = '\0';
		key = evhttp_uridecode(pair, 1, NULL);
		value = evhttp_uridecode(eq ? eq + 1 : "", 1, NULL);
		if (!key || !value) {
			rc_err_set(err, 500, "operation-failed", NULL, "out of memory");
			rc = -1;
		} else {
			rc = one_param(key, value, p, err);
		}
		free(key);
		free(value);
	}
	free(copy);
	if (!rc && p->page.longer && !p->page.has_prefix) {
		rc_err_set(err, 400, "invalid-value", NULL,
		           "longer needs prefix=A.B.C.D/N (or X:X::X/N)");
		rc = -1;
	}
	return rc;
}

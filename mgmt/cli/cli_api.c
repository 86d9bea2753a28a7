/* SPDX-License-Identifier: BSD-2-Clause */
/* Talking to the API: requests, RFC 8040 error documents, reading replies. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/cli/cli.h"
#include "mgmt/cli/http.h"

/* The string value of member `key` in a JSON text (first one), unescaped; "" if none. */
static void json_member(const char *json, const char *key, char *out, size_t len)
{
	char pat[64];
	const char *p;
	size_t o = 0;

	out[0] = '\0';
	snprintf(pat, sizeof(pat), "\"%s\"", key);
	if (!(p = strstr(json, pat)))
		return;
	p += strlen(pat);
	while (isspace((unsigned char)*p) || *p == ':')
		p++;
	if (*p++ != '"')
		return;
	for (; *p && *p != '"' && o + 1 < len; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			if (*p == 'u' && strlen(p) >= 5) {
				out[o++] = '?';
				p += 4;
				continue;
			}
			out[o++] = *p == 'n' ? ' ' : *p;
		} else
			out[o++] = *p;
	}
	out[o] = '\0';
}

/* "cellgatectl: <message> (at <path>)" from an error document, or the status. */
static void print_error(const struct http_reply *r)
{
	char msg[1024], path[1024], tag[64];

	json_member(r->body, "error-message", msg, sizeof(msg));
	json_member(r->body, "error-path", path, sizeof(path));
	json_member(r->body, "error-tag", tag, sizeof(tag));
	if (!msg[0])
		snprintf(msg, sizeof(msg), "HTTP status %d", r->status);
	fprintf(stderr, "cellgatectl: %s", msg);
	if (path[0])
		fprintf(stderr, "\n  at %s", path);
	if (tag[0])
		fprintf(stderr, " [%s]", tag);
	fputc('\n', stderr);
}

/* As cli_send; a 404 is an empty reply when missing_ok (a list with no entries). */
static int send_get(struct cli *c, const char *method, const char *uri, const char *body,
                    char **reply, bool missing_ok, struct cli_page *pg)
{
	struct http_reply r;
	char err[512];

	if (reply)
		*reply = NULL;
	if (http_request(c->sock, method, uri, body, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, "cellgatectl: %s\n", err);
		return -1;
	}
	if (pg) {
		snprintf(pg->next_cursor, sizeof(pg->next_cursor), "%s", r.next_cursor);
		pg->remaining = r.remaining;
	}
	if (r.status == 404 && missing_ok) {
		r.body[0] = '\0';
		r.status = 200;
	}
	if (r.status >= 300) {
		print_error(&r);
		http_reply_free(&r);
		return -1;
	}
	if (reply)
		*reply = r.body;
	else
		free(r.body);
	return 0;
}

int cli_send(struct cli *c, const char *method, const char *uri, const char *body, char **reply)
{
	return send_get(c, method, uri, body, reply, false, NULL);
}

int cli_get(struct cli *c, const char *uri, const char *parent_xpath, struct lyd_node **tree)
{
	return cli_get_list(c, uri, parent_xpath, tree, false);
}

int cli_get_list(struct cli *c, const char *uri, const char *parent_xpath, struct lyd_node **tree,
                 bool missing_ok)
{
	return cli_get_page(c, uri, parent_xpath, tree, missing_ok, NULL);
}

int cli_get_page(struct cli *c, const char *uri, const char *parent_xpath, struct lyd_node **tree,
                 bool missing_ok, struct cli_page *pg)
{
	char path[CLI_URI_MAX + 32], *body;
	struct lyd_node *parent = NULL, *top = NULL;
	struct ly_in *in = NULL;
	int rc = -1;

	*tree = NULL;
	snprintf(path, sizeof(path), "/restconf/data%s", uri);
	if (send_get(c, "GET", path, NULL, &body, missing_ok, pg) != 0)
		return -1;
	if (c->json) {
		fputs(body[0] ? body : "{}\n", stdout);
		if (body[0] && body[strlen(body) - 1] != '\n')
			fputc('\n', stdout);
		free(body);
		return 0;
	}
	if (!body[0]) { /* nothing there: just the parents */
		free(body);
		if (parent_xpath[0] &&
		    lyd_new_path(NULL, c->ly, parent_xpath, NULL, 0, tree) != LY_SUCCESS)
			return -1;
		return 0;
	}
	if ((parent_xpath[0] && lyd_new_path2(NULL, c->ly, parent_xpath, NULL, 0, 0, 0, &top,
	                                      &parent) != LY_SUCCESS) ||
	    ly_in_new_memory(body, &in) != LY_SUCCESS ||
	    lyd_parse_data(c->ly, parent, in, LYD_JSON, LYD_PARSE_ONLY | LYD_PARSE_STRICT, 0,
	                   parent ? NULL : &top) != LY_SUCCESS) {
		const struct ly_err_item *e = ly_err_last(c->ly);
		fprintf(stderr, "cellgatectl: the reply does not match cellgate.yang: %s\n",
		        e && e->msg ? e->msg : "?");
		lyd_free_all(top);
	} else {
		*tree = top;
		rc = 0;
	}
	ly_in_free(in, 0);
	free(body);
	return rc;
}

const char *cli_val(const struct lyd_node *n, const char *path)
{
	struct lyd_node *f = NULL;

	if (!n || lyd_find_path(n, path, 0, &f) != LY_SUCCESS || !f)
		return "";
	return lyd_get_value(f);
}

unsigned long long cli_u64(const struct lyd_node *n, const char *path)
{
	return strtoull(cli_val(n, path), NULL, 10);
}

bool cli_vpi_vci(const char *s, unsigned *vpi, unsigned *vci)
{
	char *end;
	unsigned long p = strtoul(s, &end, 10), v;

	if (end == s || *end != '/')
		goto bad;
	s = end + 1;
	v = strtoul(s, &end, 10);
	if (end == s || *end || p > 255 || v > 65535)
		goto bad;
	*vpi = (unsigned)p;
	*vci = (unsigned)v;
	return true;
bad:
	fprintf(stderr, "cellgatectl: '%s' is not VPI/VCI (e.g. 0/100; VPI 0..255, VCI 0..65535)\n",
	        s);
	return false;
}

void cli_pct(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 4 < len; s++) {
		unsigned char ch = *s;
		if (isalnum(ch) || strchr("-._~", ch))
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, len - o, "%%%02X", ch);
	}
	out[o] = '\0';
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what the RESTCONF server reads before and while it
 * answers, on untrusted input, short of a socket (the write path is
 * fuzz_restconf's):
 *   - a GET (rc_get_render: the query, RFC 8040 4.8 content/depth/fields and
 *     the route list's limit/offset/cursor/prefix/longer; the URI path, RFC
 *     8040 3.5.3; the config and state tree built, selected, pruned, printed);
 *   - a request head as the gate sees it before evhttp (rc_head_parse);
 *   - Authorization headers (rc_auth_basic: base64, user:password, the check
 *     against a configured user, the per-source and global failure limits)
 *     and rc_base64_decode alone.
 *
 * Input: byte 0's low two bits pick the part (0 GET, 1 head, 2 auth, 3
 * base64); bit 2 asks for XML (GET) or marks the head too long (head). GET:
 * the URI path after /restconf/data up to the first newline, then the query
 * up to the next. Auth: newline-separated header values, each from the
 * source whose last octet is the byte before it. Base64: byte 1 is the
 * output buffer's size. The running tree is tests/unit/config/good-full.json,
 * the state tests/fuzz/rc_state.json, the routes a fixed few.
 * Properties besides the sanitizers: a refusal carries an HTTP error status
 * and a message; a rendered reply is non-empty; a head's error is an HTTP
 * error status and its header values lie inside the head; decoded base64 is
 * NUL-terminated inside its buffer and at most 3/4 of its input long; the
 * right password from a fresh source is accepted.
 */
#include <arpa/inet.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "mgmt/restconf/rc_priv.h"
#include "tests/fuzz/fuzz_rc_setup.h"

#ifndef SRC_DIR
#error "build with -DSRC_DIR=\"<source tree>\""
#endif

/* admin / secret, DES crypt: a cheap hash, so the fuzzer spends its time in our code. */
#define FUZZ_USER      "admin"
#define FUZZ_PASS_B64  "YWRtaW46c2VjcmV0" /* base64("admin:secret") */
#define FUZZ_PASS_HASH "abNANd1rDfiNc"

static struct restconf rc;
static char *state_doc;
static struct cfg_restconf auth_cfg;

/* Never reached: the request-facing halves are linked, not called. */
char *rc_body(struct evhttp_request *req, struct restconf_err *err)
{
	abort();
}

int rc_running_reload(struct restconf *r, struct restconf_err *err)
{
	abort();
}

static int be_state_json(void *arg, unsigned parts, FILE *out)
{
	(void)arg, (void)parts; /* every part: the tree is pruned to the target anyway */
	return fputs(state_doc, out) < 0 ? -1 : 0;
}

static const struct restconf_route routes[] = {
    {.prefix = 0,
     .len = 0,
     .source = "static",
     .type = "gateway",
     .nnexthops = 1,
     .nexthop = {{0x0a000102, "eth0", 1}}},
    {.prefix = 0x0a420000,
     .len = 16,
     .source = "fpm",
     .type = "gateway",
     .nnexthops = 2,
     .nexthop = {{0x0a000102, "eth0", 1}, {0x0a000202, "eth1", 3}}},
    {.prefix = 0xc0000200,
     .len = 24,
     .source = "connected",
     .type = "connected",
     .nnexthops = 1,
     .nexthop = {{0, "eth1", 1}}},
    {.prefix = 0xc0000201, .len = 32, .source = "local", .type = "local"},
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

static unsigned be_routes(void *arg, uint64_t *from, uint64_t to, unsigned max,
                          restconf_route_fn fn, void *ctx)
{
	unsigned n = 0;

	for (size_t i = 0; i < NROUTES && n < max; i++) {
		uint64_t k = restconf_route_key(routes[i].prefix, routes[i].len);
		if (k < *from || k > to)
			continue;
		fn(ctx, &routes[i]);
		*from = k + 1;
		n++;
	}
	return n;
}

static uint64_t be_routes_count(void *arg, uint64_t from, uint64_t to)
{
	uint64_t n = 0;

	for (size_t i = 0; i < NROUTES; i++) {
		uint64_t k = restconf_route_key(routes[i].prefix, routes[i].len);
		n += k >= from && k <= to;
	}
	return n;
}

static uint64_t be_routes_skip(void *arg, uint64_t from, uint64_t to, uint64_t n)
{
	for (size_t i = 0; i < NROUTES; i++) {
		uint64_t k = restconf_route_key(routes[i].prefix, routes[i].len);
		if (k >= from && k <= to && n-- == 0)
			return k;
	}
	return to + 1;
}

/* The route6 list: a few canned routes, in prefix order (address, then length). */
static const struct restconf_route6 routes6[] = {
    {.prefix = {0}, .len = 0, .source = "frr", .type = "blackhole"},
    {.prefix = {0x20, 0x01, 0x0d, 0xb8},
     .len = 32,
     .source = "static",
     .type = "gateway",
     .nnexthops = 1,
     .nexthop = {{.has_address = true,
                  .address = {0xfe, 0x80, [15] = 1},
                  .interface = "eth0",
                  .weight = 1}}},
    {.prefix = {0x20, 0x01, 0x0d, 0xb8, 0, 1}, .len = 48, .source = "local", .type = "local"},
};
#define NROUTES6 (sizeof(routes6) / sizeof(routes6[0]))

static int key6_cmp(const uint8_t *pa, unsigned la, const struct restconf_key6 *b)
{
	int c = memcmp(pa, b->prefix, 16);

	return c ? c : (la > b->len) - (la < b->len);
}

static bool in6(size_t i, const struct restconf_key6 *from, const struct restconf_key6 *to)
{
	return key6_cmp(routes6[i].prefix, routes6[i].len, from) >= 0 &&
	       key6_cmp(routes6[i].prefix, routes6[i].len, to) <= 0;
}

static unsigned be_routes6(void *arg, struct restconf_key6 *from, const struct restconf_key6 *to,
                           unsigned max, restconf_route6_fn fn, void *ctx)
{
	unsigned n = 0;

	for (size_t i = 0; i < NROUTES6 && n < max; i++)
		if (in6(i, from, to)) {
			fn(ctx, &routes6[i]);
			n++;
			memcpy(from->prefix, routes6[i].prefix, 16);
			from->len = routes6[i].len + 1; /* no route is a /128 here */
		}
	return n;
}

static uint64_t be_routes6_count(void *arg, const struct restconf_key6 *from,
                                 const struct restconf_key6 *to)
{
	uint64_t n = 0;

	for (size_t i = 0; i < NROUTES6; i++)
		n += in6(i, from, to);
	return n;
}

static bool be_routes6_skip(void *arg, const struct restconf_key6 *from,
                            const struct restconf_key6 *to, uint64_t n, struct restconf_key6 *out)
{
	for (size_t i = 0; i < NROUTES6; i++)
		if (in6(i, from, to) && n-- == 0) {
			memcpy(out->prefix, routes6[i].prefix, 16);
			out->len = routes6[i].len;
			return true;
		}
	return false;
}

static const struct cfg *be_running(void *arg)
{
	abort(); /* rc_running_reload's, which is not called */
}

static char *file_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	if (!f || !m)
		abort();
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

static void setup(void)
{
	fuzz_rc_running_load(&rc, "fuzz_rc_read");
	rc.be = (struct restconf_backend){.running = be_running,
	                                  .state_json = be_state_json,
	                                  .routes = be_routes,
	                                  .routes_count = be_routes_count,
	                                  .routes_skip = be_routes_skip,
	                                  .routes6 = be_routes6,
	                                  .routes6_count = be_routes6_count,
	                                  .routes6_skip = be_routes6_skip};
	state_doc = file_text(SRC_DIR "/tests/fuzz/rc_state.json");
	/* The canned state must be valid, or every GET of state would be a 500. */
	struct restconf_err err = {0};
	struct lyd_node *st = rc_state_tree(&rc, RC_PART_ALL, &err);
	if (!st) {
		fprintf(stderr, "fuzz_rc_read: rc_state.json: %s\n", err.msg);
		abort();
	}
	lyd_free_all(st);
	auth_cfg.nusers = 1;
	snprintf(auth_cfg.users[0].name, sizeof(auth_cfg.users[0].name), FUZZ_USER);
	snprintf(auth_cfg.users[0].password_hash, sizeof(auth_cfg.users[0].password_hash),
	         FUZZ_PASS_HASH);
}

static void err_check(const struct restconf_err *err)
{
	if (err->status < 400 || err->status > 599 || !err->msg[0]) {
		fprintf(stderr, "refusal without an error status or message: %d '%s'\n",
		        err->status, err->msg);
		abort();
	}
}

static void fuzz_get(const char *in, bool xml)
{
	const char *nl = strchr(in, '\n');
	char path[2048], query[2048];
	struct restconf_err err = {0};
	struct rc_get_out o;
	size_t n = nl ? (size_t)(nl - in) : strlen(in);

	snprintf(path, sizeof(path), "%.*s", (int)n, in);
	query[0] = '\0';
	if (nl) {
		const char *q = nl + 1, *e = strchr(q, '\n');
		snprintf(query, sizeof(query), "%.*s", (int)(e ? (size_t)(e - q) : strlen(q)), q);
	}
	switch (rc_get_render(&rc, path, query[0] ? query : NULL, xml, &o, &err)) {
	case -1:
		err_check(&err);
		break;
	case 0:
		if (!o.text || !o.text[0]) {
			fprintf(stderr, "GET %s?%s: an empty reply\n", path, query);
			abort();
		}
		break;
	case 1:
		break; /* the route list: streamed by rc_routes_get, which needs a connection */
	default:
		abort();
	}
	free(o.text);
}

static void fuzz_head(const char *buf, size_t len, bool too_long)
{
	struct rc_head h;

	rc_head_parse(buf, len, too_long, &h);
	if (h.error && (h.error < 400 || h.error > 599))
		abort();
	if (h.auth && (h.auth < buf || h.auth + h.auth_len > buf + len))
		abort();
	if (h.accept && (h.accept < buf || h.accept + h.accept_len > buf + len))
		abort();
}

static void fuzz_auth(char *in)
{
	static struct rc_auth a; /* large: the sources */
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	char *line, *save = NULL;

	rc_auth_init(&a, &auth_cfg);
	sin->sin_family = AF_INET;
	for (line = strtok_r(in, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		enum rc_auth_result r;

		sin->sin_addr.s_addr = htonl(0x0a000000u | (unsigned char)line[0]);
		r = rc_auth_basic(&a, line + 1, &ss);
		if (r != RC_AUTH_OK && r != RC_AUTH_NONE && r != RC_AUTH_FAILED &&
		    r != RC_AUTH_BLOCKED)
			abort();
	}
	/* A source never seen, with the right password: accepted unless all are throttled. */
	sin->sin_family = AF_INET6;
	if (rc_auth_basic(&a, "Basic " FUZZ_PASS_B64, &ss) == RC_AUTH_FAILED) {
		fprintf(stderr, "the right password from a fresh source was refused\n");
		abort();
	}
	rc_auth_fini(&a);
}

static void fuzz_base64(const char *in, size_t outlen)
{
	char out[300];

	outlen = outlen % sizeof(out);
	memset(out, 'x', sizeof(out));
	if (rc_base64_decode(in, out, outlen) == 0) {
		size_t n = strnlen(out, sizeof(out));
		if (n >= outlen || n > strlen(in) * 3 / 4 + 1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char *in;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1 || size > 4096)
		return 0;
	in = malloc(size); /* NUL-terminated copy of data + 1 */
	if (!in)
		return 0;
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';
	switch (data[0] & 3) {
	case 0:
		fuzz_get(in, data[0] & 4);
		break;
	case 1:
		fuzz_head((const char *)data + 1, size - 1, data[0] & 4);
		break;
	case 2:
		fuzz_auth(in);
		break;
	case 3:
		fuzz_base64(size > 1 ? in + 1 : in, size > 1 ? data[1] : 0);
		break;
	}
	free(in);
	return 0;
}

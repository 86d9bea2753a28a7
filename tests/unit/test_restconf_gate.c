/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RESTCONF gate's pure parts: the request head parser (what may be
 * decided before a body is read, and what it refuses because evhttp could
 * read it differently), and HTTP Basic checking: one crypt(3) for a wrong
 * password and exactly one for an unknown user, none for no credentials or
 * a blocked source, and the per-source bound.
 */
#include "cellgate-build.h"

#include <arpa/inet.h>
#include <string.h>

#include "mgmt/restconf/rc_priv.h"
#include "tests/unit/check.h"

static struct rc_head parse(const char *s)
{
	struct rc_head h;

	rc_head_parse(s, strlen(s), false, &h);
	return h;
}

static void test_head(void)
{
	struct rc_head h;

	h = parse("PUT /restconf/data HTTP/1.1\r\nHost: x\r\nContent-Length:  42 \r\n"
	          "Authorization: Basic YTpi\r\nAccept: application/yang-data+xml\r\n\r\n");
	CHECK_EQ(h.error, 0);
	CHECK(h.method == EVHTTP_REQ_PUT && h.http11);
	CHECK_EQ(h.length, 42);
	CHECK(h.auth_len == 10 && !memcmp(h.auth, "Basic YTpi", 10));
	CHECK(h.accept_len == 25 && !memcmp(h.accept, "application/yang-data+xml", 25));
	/* evhttp reads no body for HEAD, and a GET's Content-Length is its body. */
	CHECK_EQ(parse("HEAD / HTTP/1.1\r\nContent-Length: 9\r\n\r\n").length, 0);
	CHECK_EQ(parse("GET / HTTP/1.0\r\ncontent-length: 9\r\n\r\n").length, 9);
	CHECK_EQ(parse("GET / HTTP/1.1\r\n\r\n").error, 0);
	/* Where evhttp might see other lines or another body length: refused. */
	CHECK_EQ(parse("GET / HTTP/1.1\nHost: x\r\n\r\n").error, 400);      /* bare LF */
	CHECK_EQ(parse("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n").error, 400);    /* bare CR */
	CHECK_EQ(parse("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n").error, 400); /* obs-fold */
	CHECK_EQ(parse("GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\n").error, 400);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n").error,
	         400);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n").error, 400);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nContent-Length: 1234567890123456\r\n\r\n").error, 400);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").error, 411);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n").error, 0);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nExpect: 200-ok\r\n\r\n").error, 417);
	CHECK_EQ(parse("POST / HTTP/1.0\r\nExpect: 200-ok\r\n\r\n").error, 0); /* 1.0: ignored */
	CHECK_EQ(parse("TRACE / HTTP/1.1\r\n\r\n").error, 405);
	CHECK_EQ(parse("GET / HTTP/2.0\r\n\r\n").error, 400);
	CHECK_EQ(parse("GET /\r\n\r\n").error, 400);
	CHECK_EQ(parse("GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n").error,
	         400);
	rc_head_parse("GET", 3, true, &h);
	CHECK_EQ(h.error, 431);
	CHECK_EQ(
	    parse("GET / HTTP/1.1\r\nContent-Length: 7\r\nTransfer-Encoding: x\r\n\r\n").length,
	    0); /* refused heads have no body */
}

static struct sockaddr_storage from(const char *ip)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	return ss;
}

#ifdef HAVE_TLS
/* "Basic " + base64("admin:<pw>") for a few passwords, made with base64(1). */
#define ADMIN_RIGHT  "Basic YWRtaW46cmlnaHQ=" /* admin:right */
#define ADMIN_WRONG  "Basic YWRtaW46d3Jvbmc=" /* admin:wrong */
#define NOBODY_WRONG "Basic bm9ib2R5Ondyb25n" /* nobody:wrong */

static void test_basic(void)
{
	struct cfg_restconf c = {.nusers = 1, .login_attempts = 3, .login_interval_s = 60};
	struct sockaddr_storage a = from("192.0.2.1"), b = from("192.0.2.2");
	struct sockaddr_storage v6a = from("2001:db8:1:2::1"), v6b = from("2001:db8:1:2::99");
	static struct rc_auth auth;
	uint64_t n;

	snprintf(c.users[0].name, sizeof(c.users[0].name), "admin");
	/* crypt(3) SHA-512 of "right", salt "saltsalt" (openssl passwd -6 -salt saltsalt right). */
	snprintf(
	    c.users[0].password_hash, sizeof(c.users[0].password_hash), "%s",
	    "$6$saltsalt$gzY3OAolfMFSB9Ld7iMdOQlViFqO3IOPeU0zkHsD.58tcMxRAFD0Qjfi2sjus3i.8aqWarEvF"
	    "PREqzp18Jm291");
	rc_auth_init(&auth, &c);
	CHECK(auth.dummy[0] == '$');
	CHECK_EQ(rc_auth_basic(&auth, ADMIN_RIGHT, &a), RC_AUTH_OK);
	CHECK_EQ(auth.crypt_calls, 1);
	/* No usable credentials: nothing checked, nothing counted against the source. */
	CHECK_EQ(rc_auth_basic(&auth, NULL, &a), RC_AUTH_NONE);
	CHECK_EQ(rc_auth_basic(&auth, "Bearer x", &a), RC_AUTH_NONE);
	CHECK_EQ(rc_auth_basic(&auth, "Basic !!!", &a), RC_AUTH_NONE);
	CHECK_EQ(auth.crypt_calls, 1);
	/* A wrong password and an unknown user cost one crypt(3) each. */
	n = auth.crypt_calls;
	CHECK_EQ(rc_auth_basic(&auth, ADMIN_WRONG, &b), RC_AUTH_FAILED);
	CHECK_EQ(auth.crypt_calls, n + 1);
	CHECK_EQ(rc_auth_basic(&auth, NOBODY_WRONG, &b), RC_AUTH_FAILED);
	CHECK_EQ(auth.crypt_calls, n + 2);
	/* The third failure blocks b: even the right password gets no check. */
	CHECK_EQ(rc_auth_basic(&auth, NOBODY_WRONG, &b), RC_AUTH_FAILED);
	CHECK_EQ(rc_auth_basic(&auth, ADMIN_RIGHT, &b), RC_AUTH_BLOCKED);
	CHECK_EQ(auth.crypt_calls, n + 3);
	CHECK_EQ(auth.sources_blocked, 1);
	/* a is another source. */
	CHECK_EQ(rc_auth_basic(&auth, ADMIN_RIGHT, &a), RC_AUTH_OK);
	/* IPv6: one /64 is one source. */
	for (int i = 0; i < 3; i++)
		CHECK_EQ(rc_auth_basic(&auth, ADMIN_WRONG, &v6a), RC_AUTH_FAILED);
	CHECK_EQ(rc_auth_basic(&auth, ADMIN_RIGHT, &v6b), RC_AUTH_BLOCKED);
	CHECK_EQ(auth.failures, 6);
	rc_auth_fini(&auth);
}
#endif

int main(void)
{
	test_head();
#ifdef HAVE_TLS
	test_basic();
#endif
	return check_report("test_restconf_gate");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Authentication on the TCP listeners (RFC 8040 section 2.5), decided on the
 * request head before any body is read (gate.c): a client certificate
 * signed by tls/client-ca, or HTTP Basic (RFC 7617) as a configured user,
 * the password checked with crypt(3) against the user's hash.
 *
 * A crypt(3) check costs milliseconds of the control thread by design, so
 * whoever can reach a listener could otherwise buy that time at will and
 * learn which user names exist by timing the answers. Hence:
 *  - an unknown user costs one crypt against a hash made from the first
 *    user's (same method, same cost), exactly like a known user with a
 *    wrong password, and names are compared without an early exit;
 *  - each source (an IPv4 address, an IPv6 /64) may fail `attempts` times
 *    in `interval` seconds, then gets 429 without any crypt until the
 *    interval is over;
 *  - over all sources, at most RC_AUTH_GLOBAL_RATE failed checks a second
 *    (burst RC_AUTH_GLOBAL_BURST): past that, sources that have not logged
 *    in successfully in the last RC_AUTH_TRUST_S seconds get 429 too, so a
 *    distributed guesser cannot hold the loop while known clients go on.
 */
#include "cellgate-build.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_TLS
#include <crypt.h>
#endif

#include "mgmt/restconf/rc_priv.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* RFC 4648 section 4 base64 into out (NUL-terminated); -1 on a bad character or overflow. */
int rc_base64_decode(const char *in, char *out, size_t outlen)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t o = 0;

	if (!outlen)
		return -1;
	for (; *in && *in != '='; in++) {
		const char *p = strchr(alphabet, *in);
		if (!p || !*in)
			return -1;
		acc = acc << 6 | (uint32_t)(p - alphabet);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o + 1 >= outlen)
				return -1;
			out[o++] = (char)(acc >> bits);
		}
	}
	out[o] = '\0';
	return strlen(out) == o ? 0 : -1; /* no NUL inside */
}

/* Compare without leaking where the first difference is. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

void rc_auth_init(struct rc_auth *a, const struct cfg_restconf *c)
{
	memset(a, 0, sizeof(*a));
	for (unsigned i = 0; i < c->nusers && i < CFG_RC_USERS; i++)
		a->users[a->nusers++] = c->users[i];
	a->attempts = c->login_attempts ? c->login_attempts : 5;
	a->interval_ms = (uint64_t)(c->login_interval_s ? c->login_interval_s : 60) * 1000;
	a->tokens = RC_AUTH_GLOBAL_BURST;
	a->refill_ms = now_ms();
#ifdef HAVE_TLS
	/*
	 * The stand-in for unknown users: a hash with the first user's method,
	 * cost and salt, of a password nobody sends (its result is never
	 * compared), so checking against it takes what a real check takes.
	 */
	if (a->nusers) {
		struct crypt_data cd;
		memset(&cd, 0, sizeof(cd));
		const char *h = crypt_r("cellgate unknown user", a->users[0].password_hash, &cd);
		snprintf(a->dummy, sizeof(a->dummy), "%s",
		         h && h[0] != '*' ? h : a->users[0].password_hash);
	}
#endif
}

void rc_auth_fini(struct rc_auth *a)
{
	explicit_bzero(a, sizeof(*a));
}

/* The key of a source: an IPv4 address, or the /64 of an IPv6 one (one host's share). */
static void source_key(const struct sockaddr_storage *ss, struct in6_addr *k)
{
	memset(k, 0, sizeof(*k));
	if (ss->ss_family == AF_INET) {
		k->s6_addr[10] = k->s6_addr[11] = 0xff;
		memcpy(k->s6_addr + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a))
			memcpy(k->s6_addr + 10, a->s6_addr + 10, 6);
		else
			memcpy(k->s6_addr, a->s6_addr, 8);
	}
}

/* The source's entry, created (replacing the longest-quiet one) when absent. */
static struct rc_auth_src *source_get(struct rc_auth *a, const struct sockaddr_storage *ss,
                                      uint64_t now)
{
	struct rc_auth_src *old = &a->src[0];
	struct in6_addr k;

	source_key(ss, &k);
	for (unsigned i = 0; i < RC_AUTH_SOURCES; i++) {
		struct rc_auth_src *s = &a->src[i];
		if (s->used && !memcmp(&s->key, &k, sizeof(k)))
			return s;
		if (!s->used || (old->used && s->last_ms < old->last_ms))
			old = s;
	}
	*old = (struct rc_auth_src){.used = true, .key = k, .window_ms = now, .last_ms = now};
	return old;
}

static void global_refill(struct rc_auth *a, uint64_t now)
{
	uint64_t add = (now - a->refill_ms) * RC_AUTH_GLOBAL_RATE / 1000;

	if (!add)
		return;
	a->tokens = a->tokens + add > RC_AUTH_GLOBAL_BURST ? RC_AUTH_GLOBAL_BURST
	                                                   : a->tokens + (unsigned)add;
	a->refill_ms = now;
}

/* The crypt(3) check of `cred` ("user:password", overwritten) in constant work per attempt. */
static bool basic_check(struct rc_auth *a, char *cred)
{
	char *colon = strchr(cred, ':');
	int match = -1;
	bool ok = false;

	if (!colon)
		return false;
	*colon = '\0';
	/* Every name compared, none skipped: the loop's time says nothing of which matched. */
	for (unsigned i = 0; i < a->nusers; i++)
		if (same(a->users[i].name, cred))
			match = (int)i;
#ifdef HAVE_TLS
	struct crypt_data cd;
	const char *want = match >= 0 ? a->users[match].password_hash : a->dummy;
	memset(&cd, 0, sizeof(cd));
	const char *got = crypt_r(colon + 1, want, &cd);
	a->crypt_calls++;
	ok = match >= 0 && got && got[0] != '*' && same(got, want);
	explicit_bzero(&cd, sizeof(cd));
#endif
	return ok;
}

enum rc_auth_result rc_auth_basic(struct rc_auth *a, const char *header,
                                  const struct sockaddr_storage *peer)
{
	char cred[RC_AUTH_HDR_MAX];
	uint64_t now = now_ms();
	struct rc_auth_src *s;
	bool trusted, ok;

	if (!header || strncasecmp(header, "Basic ", 6) || strlen(header) >= RC_AUTH_HDR_MAX ||
	    rc_base64_decode(header + 6, cred, sizeof(cred)) != 0 || !a->nusers) {
		explicit_bzero(cred, sizeof(cred));
		return RC_AUTH_NONE; /* nothing checked, nothing spent */
	}
	s = source_get(a, peer, now);
	s->last_ms = now;
	if (now - s->window_ms >= a->interval_ms) {
		s->window_ms = now;
		s->fails = 0;
	}
	trusted = s->ok_ms && now - s->ok_ms < RC_AUTH_TRUST_S * 1000;
	global_refill(a, now);
	if (s->fails >= a->attempts || (!trusted && !a->tokens)) {
		a->blocked++;
		explicit_bzero(cred, sizeof(cred));
		return RC_AUTH_BLOCKED;
	}
	ok = basic_check(a, cred);
	explicit_bzero(cred, sizeof(cred));
	if (ok) {
		s->ok_ms = now;
		return RC_AUTH_OK;
	}
	a->failures++;
	if (!trusted && a->tokens)
		a->tokens--;
	if (++s->fails == a->attempts)
		a->sources_blocked++;
	return RC_AUTH_FAILED;
}

unsigned rc_auth_retry_after(const struct rc_auth *a)
{
	return (unsigned)((a->interval_ms + 999) / 1000);
}

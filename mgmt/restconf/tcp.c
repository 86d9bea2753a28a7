/*
 * TCP listeners (restconf/tcp-listener): HTTPS through OpenSSL with
 * libevent's bufferevent_openssl, or plain HTTP on loopback only (the
 * schema enforces it). Every request on them must authenticate (RFC 8040
 * section 2.5): a client certificate signed by tls/client-ca, or HTTP Basic
 * (RFC 7617) as a configured user, the password checked with crypt(3)
 * against the user's hash. The UNIX socket relies on its file mode instead.
 */
#include "cellgate-build.h"

#include <errno.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_TLS
#include <crypt.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#endif

#include "mgmt/restconf/rc_priv.h"

#define AUTH_MAX 512 /* longest Authorization header taken */

/* RFC 4648 section 4 base64 into out (NUL-terminated); -1 on a bad character or overflow. */
static int base64_decode(const char *in, char *out, size_t outlen)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t o = 0;

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

static bool basic_ok(const struct restconf *rc, struct evhttp_request *req)
{
	const char *h = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	char cred[AUTH_MAX], *colon;

	if (!h || strncasecmp(h, "Basic ", 6) || strlen(h) >= AUTH_MAX ||
	    base64_decode(h + 6, cred, sizeof(cred)) != 0 || !(colon = strchr(cred, ':')))
		return false;
	*colon = '\0';
	for (unsigned i = 0; i < rc->nusers; i++) {
		if (strcmp(rc->users[i].name, cred))
			continue;
#ifdef HAVE_TLS
		struct crypt_data cd;
		memset(&cd, 0, sizeof(cd));
		const char *h2 = crypt_r(colon + 1, rc->users[i].password_hash, &cd);
		bool ok = h2 && h2[0] != '*' && same(h2, rc->users[i].password_hash);
		explicit_bzero(cred, sizeof(cred));
		return ok;
#endif
	}
	explicit_bzero(cred, sizeof(cred));
	return false;
}

#ifdef HAVE_TLS
static bool client_cert_ok(struct evhttp_request *req)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
	SSL *ssl = bev ? bufferevent_openssl_get_ssl(bev) : NULL;

	return ssl && SSL_get0_peer_certificate(ssl) && SSL_get_verify_result(ssl) == X509_V_OK;
}
#endif

bool rc_authorized(struct rc_listener *l, struct evhttp_request *req)
{
	struct restconf_err err;

	if (!l->tcp)
		return true;
#ifdef HAVE_TLS
	if (l->ssl && l->client_certs && client_cert_ok(req))
		return true;
#endif
	if (basic_ok(l->rc, req))
		return true;
	evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
	                  "Basic realm=\"cellgate\", charset=\"UTF-8\"");
	rc_err_set(&err, 401, "access-denied", NULL, "authentication required");
	rc_reply_error(req, &err);
	return false;
}

#ifdef HAVE_TLS
static struct bufferevent *tls_bev(struct event_base *base, void *arg)
{
	struct rc_listener *l = arg;
	SSL *ssl = SSL_new(l->ssl);

	if (!ssl)
		return NULL;
	return bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
	                                      BEV_OPT_CLOSE_ON_FREE);
}

static SSL_CTX *tls_ctx(const struct cfg_rc_listener *c, char *errbuf, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!ctx)
		goto fail;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if (SSL_CTX_use_certificate_chain_file(ctx, c->certificate) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, c->private_key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1)
		goto fail;
	if (c->client_ca[0]) {
		if (SSL_CTX_load_verify_locations(ctx, c->client_ca, NULL) != 1)
			goto fail;
		/* Asked for, not required: a client without one may still use Basic. */
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	}
	return ctx;
fail:
	snprintf(errbuf, errlen, "restconf %s port %u: TLS: %s", c->address, c->port,
	         ERR_reason_error_string(ERR_get_error()) ?: "cannot set up");
	SSL_CTX_free(ctx);
	return NULL;
}
#endif

int rc_tcp_start(struct restconf *rc, const struct cfg_restconf *c, char *errbuf, size_t errlen)
{
	for (unsigned i = 0; i < c->nusers && i < CFG_RC_USERS; i++)
		rc->users[rc->nusers++] = c->users[i];
	for (unsigned i = 0; i < c->nlisteners && i < CFG_RC_LISTENERS; i++) {
		const struct cfg_rc_listener *lc = &c->listeners[i];
		struct rc_listener *l = &rc->tcp[rc->ntcp];

		*l = (struct rc_listener){.rc = rc, .tcp = true, .client_certs = lc->client_ca[0]};
		if (lc->certificate[0]) {
#ifdef HAVE_TLS
			if (!(l->ssl = tls_ctx(lc, errbuf, errlen)))
				return -EINVAL;
#else
			snprintf(errbuf, errlen, "restconf %s port %u: built without TLS",
			         lc->address, lc->port);
			return -ENOTSUP;
#endif
		}
		if (!(l->http = rc_http_new(rc, l))) {
			snprintf(errbuf, errlen, "restconf: out of memory");
			return -ENOMEM;
		}
		rc->ntcp++;
#ifdef HAVE_TLS
		if (l->ssl)
			evhttp_set_bevcb(l->http, tls_bev, l);
#endif
		if (!evhttp_bind_socket_with_handle(l->http, lc->address, lc->port)) {
			snprintf(errbuf, errlen, "restconf %s port %u: cannot listen: %s",
			         lc->address, lc->port, strerror(errno));
			return -EADDRNOTAVAIL;
		}
	}
	return 0;
}

void rc_tcp_stop(struct restconf *rc)
{
	for (unsigned i = 0; i < rc->ntcp; i++) {
		evhttp_free(rc->tcp[i].http);
#ifdef HAVE_TLS
		SSL_CTX_free(rc->tcp[i].ssl);
#endif
	}
	rc->ntcp = 0;
	explicit_bzero(rc->users, sizeof(rc->users));
}

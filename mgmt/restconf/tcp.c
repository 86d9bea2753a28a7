/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP listeners (restconf/tcp-listener): HTTPS through OpenSSL with
 * libevent's bufferevent_openssl, or plain HTTP on loopback only (the
 * schema enforces it). Every connection goes through the gate (gate.c),
 * which caps the connections and has every request authenticate on its
 * head (auth.c: a client certificate signed by tls/client-ca, or HTTP
 * Basic) before its body is read. The UNIX socket relies on its file mode.
 */
#include "cellgate-build.h"

#include <errno.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_TLS
#include <openssl/err.h>
#include <openssl/ssl.h>
#endif

#include "mgmt/restconf/rc_priv.h"

#ifdef HAVE_TLS
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
	rc_auth_init(&rc->auth, c);
	rc->max_conns = c->max_conns ? c->max_conns : CFG_RESTCONF_CONNS_DEFAULT;
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
		rc_gate_sweep(&rc->tcp[i], true);
#ifdef HAVE_TLS
		SSL_CTX_free(rc->tcp[i].ssl);
#endif
	}
	rc->ntcp = 0;
	rc_auth_fini(&rc->auth);
}

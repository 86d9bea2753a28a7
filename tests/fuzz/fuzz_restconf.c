/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the RESTCONF server's write path on untrusted input,
 * short of the daemon: the request's URI path (rc_edit_target: RFC 8040
 * 3.5.3 parsing, key decoding and quoting, the host-bits check, the
 * config-false refusal) and its body (rc_edit_validate: libyang parse
 * below the target, the edit of a copy of the running tree, cfg_parse of
 * the result and its normalised print), for PUT, POST, PATCH and DELETE.
 *
 * Input: byte 0 picks the method (low two bits) and the body's encoding
 * (bit 2: XML), then the URI path after /restconf/data up to the first
 * newline, then the body. The running tree is tests/unit/config/
 * good-full.json, rebuilt as server.c does; it is never changed, so every
 * input starts from the same state. Properties besides the sanitizers: a
 * refusal carries an HTTP error status and a message; an accepted edit
 * yields a configuration whose printed form parses again (it is what would
 * be persisted and read at the next start).
 */
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

static struct restconf rc;

/* Never reached: rc_edit (which reads the request) is linked, not called. */
char *rc_body(struct evhttp_request *req, struct restconf_err *err)
{
	abort();
}

int rc_running_reload(struct restconf *r, struct restconf_err *err)
{
	abort();
}

static void setup(void)
{
	fuzz_rc_running_load(&rc, "fuzz_restconf");
	ly_log_options(LY_LOSTORE); /* errors are read from the context, as the server does */
}

static const enum evhttp_cmd_type methods[4] = {EVHTTP_REQ_PUT, EVHTTP_REQ_POST, EVHTTP_REQ_PATCH,
                                                EVHTTP_REQ_DELETE};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct restconf_err err = {0};
	struct lyd_node *cand = NULL;
	struct rc_target t;
	struct cfg next, again;
	char *path, *body, *nl, *json = NULL, location[RC_PATH_MAX + 32] = "", msg[1024];
	enum evhttp_cmd_type m;
	size_t len = 0;
	bool created = false, xml;

	if (size < 1)
		return 0;
	if (!rc.ctx)
		setup();
	m = methods[data[0] & 3];
	xml = data[0] & 4;
	/* The path and the body as the server has them: NUL-terminated strings. */
	path = malloc(size);
	if (!path)
		return 0;
	memcpy(path, data + 1, size - 1);
	path[size - 1] = '\0';
	nl = memchr(path, '\n', size - 1);
	body = nl ? nl + 1 : path + size - 1;
	if (nl)
		*nl = '\0';

	if (rc_edit_target(&rc, path, &t, &err) != 0 ||
	    rc_edit_validate(&rc, m, &t, m == EVHTTP_REQ_DELETE ? NULL : body, xml, &cand, &next,
	                     &json, &len, &created, location, sizeof(location), &err) != 0) {
		if (err.status < 400 || err.status > 599 || !err.tag || !err.msg[0])
			abort();
	} else {
		if (cfg_parser_parse(rc.parser, json, &again, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "accepted edit persists as unreadable text: %s\n%s\n", msg,
			        json);
			abort();
		}
		cfg_free(&again);
		cfg_free(&next);
	}
	free(json);
	lyd_free_all(cand);
	free(path);
	/*
	 * The server clears the context's errors before a request; cleared after
	 * one here, so that every input frees what it allocated: else libFuzzer
	 * runs a leak check (a heap scan, most of the time) after each input.
	 */
	ly_err_clean(rc.ctx, NULL);
	return 0;
}

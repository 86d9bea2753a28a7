/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RESTCONF fuzzers' server state: the configuration parser (and its
 * YANG context) and the running tree of tests/unit/config/good-full.json,
 * built as server.c builds them (the printed configuration, validated with
 * defaults). Aborts on failure: a
 * fuzzer without it would test nothing.
 */
#ifndef CELLGATE_FUZZ_RC_SETUP_H
#define CELLGATE_FUZZ_RC_SETUP_H

#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "mgmt/restconf/rc_priv.h"

#ifndef SRC_DIR
#error "build with -DSRC_DIR=\"<source tree>\""
#endif

static inline void fuzz_rc_running_load(struct restconf *rc, const char *who)
{
	char errbuf[1024], *json = NULL;
	size_t len = 0;
	struct cfg cfg;
	FILE *f;

	snprintf(rc->yang_dir, sizeof(rc->yang_dir), "%s/mgmt/yang", SRC_DIR);
	/* One parser for the run, as server.c keeps one: a context costs ~25 ms to build. */
	rc->parser = cfg_parser_new(rc->yang_dir, errbuf, sizeof(errbuf));
	rc->ctx = rc->parser ? cfg_parser_ctx(rc->parser) : NULL;
	if (!rc->ctx || cfg_load(SRC_DIR "/tests/unit/config/good-full.json", rc->yang_dir, &cfg,
	                         errbuf, sizeof(errbuf)) != 0) {
		fprintf(stderr, "%s: %s\n", who, errbuf);
		abort();
	}
	f = open_memstream(&json, &len);
	if (!f || cfg_print(&cfg, f) != 0)
		abort();
	fclose(f);
	if (lyd_parse_data_mem(rc->ctx, json, LYD_JSON, LYD_PARSE_STRICT | LYD_PARSE_NO_STATE,
	                       LYD_VALIDATE_NO_STATE | LYD_VALIDATE_PRESENT,
	                       &rc->running) != LY_SUCCESS)
		abort();
	free(json);
	cfg_free(&cfg);
}

#endif

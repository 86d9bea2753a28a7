/* SPDX-License-Identifier: BSD-2-Clause */
/* /cellgate/routing/fpm: from the validated libyang tree, and back to RFC 7951 JSON. */
#include <libyang/libyang.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_fpm.h"

/* Canonical value of leaf `name` under the container, or "". */
static const char *leaf(const struct lyd_node *parent, const char *name)
{
	const struct lyd_node *n;

	LY_LIST_FOR(lyd_child(parent), n)
	{
		if (n->schema && !strcmp(n->schema->name, name))
			return lyd_get_value(n);
	}
	return "";
}

void cfg_fpm_fill(struct cfg_fpm *f, const struct lyd_node *fpm)
{
	const struct lyd_node *n;

	memset(f, 0, sizeof(*f));
	/* libyang creates the container with its defaults even when the file has none. */
	if (!fpm)
		return;
	f->enabled = !strcmp(leaf(fpm, "enabled"), "true");
	snprintf(f->address, sizeof(f->address), "%s", leaf(fpm, "address"));
	f->port = (uint16_t)strtoul(leaf(fpm, "port"), NULL, 10);
	f->settle_s = (uint32_t)strtoul(leaf(fpm, "settle-time"), NULL, 10);
	f->dead_s = (uint32_t)strtoul(leaf(fpm, "dead-interval"), NULL, 10);
	LY_LIST_FOR(lyd_child(fpm), n)
	{
		/* max-elements in the schema matches the array. */
		if (n->schema && !strcmp(n->schema->name, "allowed-peer") &&
		    f->npeers < CFG_FPM_PEERS_MAX)
			snprintf(f->peers[f->npeers++], sizeof(f->peers[0]), "%s",
			         lyd_get_value(n));
	}
	LY_LIST_FOR(lyd_child(fpm), n)
	{
		if (n->schema && !strcmp(n->schema->name, "route-limit")) {
			f->limit4 = (uint32_t)strtoul(leaf(n, "ipv4"), NULL, 10);
			f->limit6 = (uint32_t)strtoul(leaf(n, "ipv6"), NULL, 10);
			f->warn_pct = (uint8_t)strtoul(leaf(n, "warning-threshold"), NULL, 10);
		}
	}
}

/* The leaves after settle-time, printed only when they differ from the defaults. */
static void print_guard(FILE *out, const struct cfg_fpm *f)
{
	uint32_t dead = f->dead_s ? f->dead_s : CFG_FPM_DEAD_DEFAULT;

	for (unsigned i = 0; i < f->npeers; i++)
		fprintf(out, "%s\"%s\"%s", i ? ", " : ",\n        \"allowed-peer\": [", f->peers[i],
		        i + 1 == f->npeers ? "]" : "");
	if (dead != CFG_FPM_DEAD_DEFAULT)
		fprintf(out, ",\n        \"dead-interval\": %u", dead);
	if (f->limit4 != CFG_FPM_LIMIT4_DEFAULT || f->limit6 != CFG_FPM_LIMIT6_DEFAULT ||
	    (f->warn_pct && f->warn_pct != CFG_FPM_WARN_DEFAULT))
		fprintf(out,
		        ",\n        \"route-limit\": {\"ipv4\": %u, \"ipv6\": %u, "
		        "\"warning-threshold\": %u}",
		        f->limit4, f->limit6, f->warn_pct ? f->warn_pct : CFG_FPM_WARN_DEFAULT);
}

void cfg_fpm_print(FILE *out, const struct cfg_fpm *f)
{
	/* The address is numeric (inet:ip-address-no-zone): nothing to escape. */
	fprintf(out,
	        "      \"fpm\": {\n"
	        "        \"enabled\": %s,\n"
	        "        \"address\": \"%s\",\n"
	        "        \"port\": %u,\n"
	        "        \"settle-time\": %u",
	        f->enabled ? "true" : "false", f->address, f->port, f->settle_s);
	print_guard(out, f);
	fprintf(out, "\n      }");
}

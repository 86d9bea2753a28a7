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
	memset(f, 0, sizeof(*f));
	/* libyang creates the container with its defaults even when the file has none. */
	if (!fpm)
		return;
	f->enabled = !strcmp(leaf(fpm, "enabled"), "true");
	snprintf(f->address, sizeof(f->address), "%s", leaf(fpm, "address"));
	f->port = (uint16_t)strtoul(leaf(fpm, "port"), NULL, 10);
	f->settle_s = (uint32_t)strtoul(leaf(fpm, "settle-time"), NULL, 10);
}

void cfg_fpm_print(FILE *out, const struct cfg_fpm *f)
{
	/* The address is numeric (inet:ip-address-no-zone): nothing to escape. */
	fprintf(out,
	        "      \"fpm\": {\n"
	        "        \"enabled\": %s,\n"
	        "        \"address\": \"%s\",\n"
	        "        \"port\": %u,\n"
	        "        \"settle-time\": %u\n"
	        "      }",
	        f->enabled ? "true" : "false", f->address, f->port, f->settle_s);
}

/*
 * The management containers of the configuration: /cellgate/restconf (the
 * RESTCONF server, /metrics, cellgatectl). Kept out of config.c so the
 * FPM and SNMP containers can be added beside it without touching it.
 */
#include <string.h>

#include "daemon/config_priv.h"

void cfg_mgmt_fill(struct cfg *cfg, const struct lyd_node *top)
{
	const struct lyd_node *rc = cfg_child(top, "restconf");
	const struct lyd_node *us = rc ? cfg_child(rc, "unix-socket") : NULL;
	struct cfg_restconf *r = &cfg->restconf;

	/* Validated with defaults added, so the containers exist; the schema bounds the lengths. */
	r->unix_disabled = us ? !cfg_bool(us, "enabled") : false;
	cfg_copy(r->unix_path, sizeof(r->unix_path), us ? cfg_str(us, "path") : "");
	cfg_copy(r->unix_group, sizeof(r->unix_group), us ? cfg_str(us, "group") : "");
	r->max_body_size = rc ? cfg_u32(rc, "max-body-size") : CFG_RESTCONF_BODY_DEFAULT;
}

/*
 * Printed only when something differs from the defaults, so that the
 * normalised form of a configuration without management settings (and the
 * golden files of the config tests) stays what it was.
 */
void cfg_mgmt_print(FILE *out, const struct cfg *cfg)
{
	const struct cfg_restconf *r = &cfg->restconf;

	uint32_t body = r->max_body_size ? r->max_body_size : CFG_RESTCONF_BODY_DEFAULT;

	if (!r->unix_disabled && !r->unix_path[0] && !r->unix_group[0] &&
	    body == CFG_RESTCONF_BODY_DEFAULT)
		return;
	fprintf(out, ",\n    \"restconf\": {\n      \"unix-socket\": {\n");
	fprintf(out, "        \"enabled\": %s", r->unix_disabled ? "false" : "true");
	if (r->unix_path[0]) {
		fprintf(out, ",\n        \"path\": ");
		json_str(out, r->unix_path);
	}
	if (r->unix_group[0]) {
		fprintf(out, ",\n        \"group\": ");
		json_str(out, r->unix_group);
	}
	fprintf(out, "\n      },\n      \"max-body-size\": %u\n    }", body);
}

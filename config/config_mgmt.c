/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The management containers of the configuration: /cellgate/restconf (the
 * RESTCONF server, /metrics, cellgatectl). Kept out of config.c so the
 * FPM and SNMP containers can be added beside it without touching it.
 */
#include <string.h>

#include "config/config_priv.h"

static void fill_listener(struct cfg_rc_listener *l, const struct lyd_node *n)
{
	const struct lyd_node *tls = cfg_child(n, "tls");

	/* The schema bounds every length to fit. */
	cfg_copy(l->address, sizeof(l->address), cfg_str(n, "address"));
	l->port = (uint16_t)cfg_u32(n, "port");
	cfg_copy(l->certificate, sizeof(l->certificate), tls ? cfg_str(tls, "certificate") : "");
	cfg_copy(l->private_key, sizeof(l->private_key), tls ? cfg_str(tls, "private-key") : "");
	cfg_copy(l->client_ca, sizeof(l->client_ca), tls ? cfg_str(tls, "client-ca") : "");
}

void cfg_mgmt_fill(struct cfg *cfg, const struct lyd_node *top)
{
	const struct lyd_node *rc = cfg_child(top, "restconf");
	const struct lyd_node *us = rc ? cfg_child(rc, "unix-socket") : NULL, *n;
	struct cfg_restconf *r = &cfg->restconf;

	/* Validated with defaults added, so the containers exist. */
	r->unix_disabled = us ? !cfg_bool(us, "enabled") : false;
	cfg_copy(r->unix_path, sizeof(r->unix_path), us ? cfg_str(us, "path") : "");
	cfg_copy(r->unix_group, sizeof(r->unix_group), us ? cfg_str(us, "group") : "");
	r->max_body_size = rc ? cfg_u32(rc, "max-body-size") : CFG_RESTCONF_BODY_DEFAULT;
	r->max_conns = rc ? cfg_u32(rc, "max-connections") : CFG_RESTCONF_CONNS_DEFAULT;
	const struct lyd_node *lf = rc ? cfg_child(rc, "login-failures") : NULL;
	r->login_attempts = lf ? cfg_u32(lf, "attempts") : CFG_RESTCONF_ATTEMPTS_DEFAULT;
	r->login_interval_s = lf ? cfg_u32(lf, "interval") : CFG_RESTCONF_INTERVAL_DEFAULT;
	LY_LIST_FOR(rc ? lyd_child(rc) : NULL, n)
	{
		/* max-elements in the schema match the array sizes. */
		if (!strcmp(n->schema->name, "tcp-listener") && r->nlisteners < CFG_RC_LISTENERS)
			fill_listener(&r->listeners[r->nlisteners++], n);
		else if (!strcmp(n->schema->name, "user") && r->nusers < CFG_RC_USERS) {
			struct cfg_rc_user *u = &r->users[r->nusers++];
			cfg_copy(u->name, sizeof(u->name), cfg_str(n, "name"));
			cfg_copy(u->password_hash, sizeof(u->password_hash),
			         cfg_str(n, "password-hash"));
		}
	}
}

static void print_path(FILE *out, const char *name, const char *value, bool *first)
{
	if (!value[0])
		return;
	fprintf(out, "%s\n            \"%s\": ", *first ? "" : ",", name);
	json_str(out, value);
	*first = false;
}

static void print_listeners(FILE *out, const struct cfg_restconf *r)
{
	for (unsigned i = 0; i < r->nlisteners; i++) {
		const struct cfg_rc_listener *l = &r->listeners[i];
		bool first = true;

		fprintf(out, "%s\n        {\n          \"address\": ",
		        i ? "," : ",\n      \"tcp-listener\": [");
		json_str(out, l->address);
		fprintf(out, ",\n          \"port\": %u", l->port);
		if (l->certificate[0] || l->client_ca[0]) {
			fprintf(out, ",\n          \"tls\": {");
			print_path(out, "certificate", l->certificate, &first);
			print_path(out, "private-key", l->private_key, &first);
			print_path(out, "client-ca", l->client_ca, &first);
			fprintf(out, "\n          }");
		}
		fprintf(out, "\n        }%s", i + 1 == r->nlisteners ? "\n      ]" : "");
	}
	for (unsigned i = 0; i < r->nusers; i++) {
		fprintf(out, "%s\n        {\"name\": ", i ? "," : ",\n      \"user\": [");
		json_str(out, r->users[i].name);
		fprintf(out, ", \"password-hash\": ");
		json_str(out, r->users[i].password_hash);
		fprintf(out, "}%s", i + 1 == r->nusers ? "\n      ]" : "");
	}
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
	uint32_t conns = r->max_conns ? r->max_conns : CFG_RESTCONF_CONNS_DEFAULT;
	uint32_t tries = r->login_attempts ? r->login_attempts : CFG_RESTCONF_ATTEMPTS_DEFAULT;
	uint32_t ival = r->login_interval_s ? r->login_interval_s : CFG_RESTCONF_INTERVAL_DEFAULT;
	bool guard = conns != CFG_RESTCONF_CONNS_DEFAULT ||
	             tries != CFG_RESTCONF_ATTEMPTS_DEFAULT ||
	             ival != CFG_RESTCONF_INTERVAL_DEFAULT;

	if (!r->unix_disabled && !r->unix_path[0] && !r->unix_group[0] &&
	    body == CFG_RESTCONF_BODY_DEFAULT && !r->nlisteners && !r->nusers && !guard)
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
	fprintf(out, "\n      },\n      \"max-body-size\": %u", body);
	/* Added later than the rest: printed only when set, older printouts stay. */
	if (guard)
		fprintf(out,
		        ",\n      \"max-connections\": %u,\n      \"login-failures\": "
		        "{\"attempts\": %u, \"interval\": %u}",
		        conns, tries, ival);
	print_listeners(out, r);
	fprintf(out, "\n    }");
}

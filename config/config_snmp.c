/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * /cellgate/snmp: the AgentX subagent's settings (RFC 2741). The schema
 * gives the defaults and the socket's form; this file adds the one check
 * YANG cannot make for both forms at once: a UNIX socket path must fit
 * struct sockaddr_un.
 */
#include <errno.h>
#include <string.h>
#include <sys/un.h>

#include "config/config_priv.h"

/* The path net-snmp will bind to, or NULL for a network transport. */
static const char *snmp_unix_path(const char *spec)
{
	if (spec[0] == '/')
		return spec;
	if (!strncmp(spec, "unix:", 5))
		return spec + 5;
	return NULL;
}

int cfg_snmp_fill(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *top)
{
	const struct lyd_node *sn = cfg_child(top, "snmp");
	struct sockaddr_un sun;
	const char *path;

	if (!sn)
		return 0;
	cfg->snmp.enabled = true;
	cfg->snmp.ping_interval_s = cfg_u32(sn, "ping-interval");
	/* The schema bounds the leaf to 255 characters: this always fits. */
	cfg_copy(cfg->snmp.agentx_socket, sizeof(cfg->snmp.agentx_socket),
	         cfg_str(sn, "agentx-socket"));
	path = snmp_unix_path(cfg->snmp.agentx_socket);
	if (path && strlen(path) >= sizeof(sun.sun_path))
		return cfg_node_errf(ps, cfg_child(sn, "agentx-socket"),
		                     "UNIX socket path longer than %zu bytes (sockaddr_un)",
		                     sizeof(sun.sun_path) - 1);
	if (path && path[0] != '/')
		return cfg_node_errf(ps, cfg_child(sn, "agentx-socket"),
		                     "%s: the UNIX socket path must be absolute", path);
	return 0;
}

void cfg_snmp_print(FILE *out, const struct cfg *cfg)
{
	if (!cfg->snmp.enabled)
		return;
	fprintf(out, ",\n    \"snmp\": {\n      \"agentx-socket\": ");
	json_str(out, cfg->snmp.agentx_socket);
	fprintf(out, ",\n      \"ping-interval\": %u\n    }", cfg->snmp.ping_interval_s);
}

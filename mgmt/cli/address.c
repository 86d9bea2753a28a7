/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * "address add|del": the IPv6 addresses of a port or subinterface, which
 * change at runtime (a port's first too; the daemon answers 501 only for a
 * subinterface gaining or losing IPv6 altogether).
 * IPv4 addresses need a restart, so they are refused here with the reason
 * instead of a round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/cli/cli.h"

static int usage_address(void)
{
	fprintf(stderr, "usage: cellgatectl address add PORT [SUBINTERFACE] IPV6-ADDRESS/LENGTH\n"
	                "       cellgatectl address del PORT [SUBINTERFACE] IPV6-ADDRESS\n");
	return 2;
}

/* ".../port=P[/subinterface=S]/ipv6" */
static void address_base(char *uri, size_t len, const char *port, const char *subif)
{
	char p[96], s[96];

	cli_pct(port, p, sizeof(p));
	if (subif) {
		cli_pct(subif, s, sizeof(s));
		snprintf(uri, len, "/restconf/data/cellgate:cellgate/port=%s/subinterface=%s/ipv6",
		         p, s);
	} else {
		snprintf(uri, len, "/restconf/data/cellgate:cellgate/port=%s/ipv6", p);
	}
}

int cli_address(struct cli *c, int argc, char **argv)
{
	char uri[CLI_URI_MAX], key[128], body[256], ip[64];
	const char *subif, *addr;
	char *slash, *end;
	unsigned long plen = 0;
	bool add;

	if (argc < 3 || argc > 4)
		return usage_address();
	add = !strcmp(argv[0], "add");
	if (!add && strcmp(argv[0], "del"))
		return usage_address();
	subif = argc == 4 ? argv[2] : NULL;
	addr = argv[argc - 1];
	for (int i = 1; i < argc; i++)
		if (strpbrk(argv[i], "\"\\"))
			return usage_address();
	if (!strchr(addr, ':')) {
		fprintf(stderr,
		        "cellgatectl: %s: IPv4 addresses change with a restart only (edit the "
		        "startup file)\n",
		        addr);
		return 1;
	}
	snprintf(ip, sizeof(ip), "%s", addr);
	slash = strchr(ip, '/');
	if (add != (slash != NULL))
		return usage_address();
	if (slash) {
		*slash = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || plen < 1 || plen > 128)
			return usage_address();
	}
	address_base(uri, sizeof(uri), argv[1], subif);
	if (add) {
		snprintf(body, sizeof(body),
		         "{\"cellgate:address\":[{\"ip\":\"%s\",\"prefix-length\":%lu}]}", ip,
		         plen);
		return cli_send(c, "POST", uri, body, NULL) ? 1 : 0;
	}
	cli_pct(ip, key, sizeof(key));
	snprintf(uri + strlen(uri), sizeof(uri) - strlen(uri), "/address=%s", key);
	return cli_send(c, "DELETE", uri, NULL, NULL) ? 1 : 0;
}

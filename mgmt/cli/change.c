/* SPDX-License-Identifier: BSD-2-Clause */
/* Commands that change things: routes, VCs, counters, and the OAM ping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/cli/cli.h"

#define ROUTING "/restconf/data/cellgate:cellgate/routing"

static int usage_route(void)
{
	fprintf(stderr, "usage: cellgatectl route add PREFIX via GATEWAY [GATEWAY...]\n"
	                "       cellgatectl route add PREFIX dev INTERFACE\n"
	                "       cellgatectl route add PREFIX blackhole|unreachable\n"
	                "       cellgatectl route del PREFIX\n");
	return 2;
}

/* An IPv6 prefix goes to routing/static-route6, an IPv4 one to routing/static-route. */
static const char *route_list(const char *prefix)
{
	return strchr(prefix, ':') ? "static-route6" : "static-route";
}

/* {"cellgate:static-route":[{...}]} (or static-route6) for "route add". */
static int route_body(int argc, char **argv, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "{\"cellgate:%s\":[{\"prefix\":\"%s\"",
	                            route_list(argv[0]), argv[0]);

	if (argc == 2 && (!strcmp(argv[1], "blackhole") || !strcmp(argv[1], "unreachable")))
		o += (size_t)snprintf(buf + o, len - o, ",\"action\":\"%s\"", argv[1]);
	else if (argc == 3 && !strcmp(argv[1], "dev"))
		o += (size_t)snprintf(buf + o, len - o, ",\"interface\":\"%s\"", argv[2]);
	else if (argc >= 3 && !strcmp(argv[1], "via")) {
		o += (size_t)snprintf(buf + o, len - o, ",\"nexthop\":[");
		for (int i = 2; i < argc && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s{\"address\":\"%s\"}",
			                      i > 2 ? "," : "", argv[i]);
		o += (size_t)snprintf(buf + o, len - o, "]");
	} else
		return -1;
	o += (size_t)snprintf(buf + o, len - o, "}]}");
	/* Arguments go into JSON strings: refuse what would need escaping. */
	for (int i = 0; i < argc; i++)
		if (strpbrk(argv[i], "\"\\"))
			return -1;
	return o < len ? 0 : -1;
}

int cli_route(struct cli *c, int argc, char **argv)
{
	char body[4096], uri[CLI_URI_MAX], key[256];

	if (argc >= 3 && !strcmp(argv[0], "add")) {
		if (route_body(argc - 1, argv + 1, body, sizeof(body)) != 0)
			return usage_route();
		return cli_send(c, "POST", ROUTING, body, NULL) ? 1 : 0;
	}
	if (argc == 2 && !strcmp(argv[0], "del")) {
		cli_pct(argv[1], key, sizeof(key));
		snprintf(uri, sizeof(uri), ROUTING "/%s=%s", route_list(argv[1]), key);
		return cli_send(c, "DELETE", uri, NULL, NULL) ? 1 : 0;
	}
	return usage_route();
}

int cli_clear(struct cli *c, int argc, char **argv)
{
	char body[256];

	if (argc < 1 || argc > 2 || strcmp(argv[0], "counters") ||
	    (argc == 2 && strpbrk(argv[1], "\"\\"))) {
		fprintf(stderr, "usage: cellgatectl clear counters [PORT]\n");
		return 2;
	}
	if (argc == 2)
		snprintf(body, sizeof(body), "{\"cellgate:input\":{\"port\":\"%s\"}}", argv[1]);
	return cli_send(c, "POST", "/restconf/operations/cellgate:clear-counters",
	                argc == 2 ? body : NULL, NULL)
	           ? 1
	           : 0;
}

static int usage_vc(void)
{
	fprintf(stderr, "usage: cellgatectl vc add PORT SUBINTERFACE VPI/VCI "
	                "[llc-snap|vc-mux-ipv4|vc-mux-ipv6|llc-bridged|vc-mux-bridged]\n"
	                "           [peer ADDRESS] [ipv6-peer ADDRESS]...\n"
	                "       cellgatectl vc del PORT SUBINTERFACE VPI/VCI\n"
	                "       cellgatectl vc ping PORT VPI/VCI [COUNT]\n");
	return 2;
}

static int vc_ping(struct cli *c, int argc, char **argv)
{
	char body[256], *reply = NULL;
	unsigned vpi, vci;
	unsigned long count = argc == 3 ? strtoul(argv[2], NULL, 10) : 3;
	struct lyd_node *tree = NULL, *out = NULL;
	struct ly_in *in = NULL;
	int rc = 1;

	if (argc < 2 || argc > 3 || strpbrk(argv[0], "\"\\") || count < 1 || count > 10)
		return usage_vc();
	if (!cli_vpi_vci(argv[1], &vpi, &vci))
		return 1;
	snprintf(body, sizeof(body),
	         "{\"cellgate:input\":{\"port\":\"%s\",\"vpi\":%u,\"vci\":%u,\"count\":%lu}}",
	         argv[0], vpi, vci, count);
	if (cli_send(c, "POST", "/restconf/operations/cellgate:vc-ping", body, &reply))
		return 1;
	if (c->json) {
		fputs(reply ? reply : "{}\n", stdout);
		free(reply);
		return 0;
	}
	/* RFC 8040 3.6.2 output: parse it as the rpc's reply. */
	char *wrapped = malloc(strlen(reply) + 64);
	if (wrapped) {
		const char *colon = strstr(reply, "\"cellgate:output\"");
		sprintf(wrapped, "{\"cellgate:vc-ping\"%s", colon ? colon + 17 : "");
	}
	if (wrapped &&
	    lyd_new_path(NULL, c->ly, "/cellgate:vc-ping", NULL, 0, &out) == LY_SUCCESS &&
	    ly_in_new_memory(wrapped, &in) == LY_SUCCESS &&
	    lyd_parse_op(c->ly, NULL, in, LYD_JSON, LYD_TYPE_REPLY_YANG, &tree, NULL) ==
	        LY_SUCCESS) {
		struct lyd_node *n;
		unsigned sent = 0, received = 0;

		printf("OAM F5 end-to-end loopback on %s %u/%u:\n", argv[0], vpi, vci);
		LY_LIST_FOR(lyd_child(tree), n)
		{
			struct lyd_node *k;
			const char *seq = "", *rtt = NULL;

			if (strcmp(n->schema->name, "reply"))
				continue;
			LY_LIST_FOR(lyd_child(n), k)
			{
				if (!strcmp(k->schema->name, "sequence"))
					seq = lyd_get_value(k);
				else if (!strcmp(k->schema->name, "rtt"))
					rtt = lyd_get_value(k);
			}
			sent++;
			if (rtt) {
				received++;
				printf("  %s: reply in %.3f ms\n", seq,
				       strtoul(rtt, NULL, 10) / 1000.0);
			} else
				printf("  %s: no reply (timeout)\n", seq);
		}
		printf("%u sent, %u received\n", sent, received);
		rc = received ? 0 : 1;
	} else {
		fprintf(stderr, "cellgatectl: unexpected reply: %s\n", reply);
	}
	ly_in_free(in, 0);
	lyd_free_all(tree);
	lyd_free_all(out);
	free(wrapped);
	free(reply);
	return rc;
}

#define VC_PEER6_MAX 8 /* cellgate.yang: pvc/ipv6-peer-address max-elements */

/* ,"ipv6-peer-address":["a","b"] for the n addresses, or nothing; false if it does not fit. */
static bool vc_peer6_json(char *buf, size_t sz, char *const *peer6, unsigned n)
{
	size_t off = 0;
	int k;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		k = snprintf(buf + off, sz - off, "%s\"%s\"", i ? "," : ",\"ipv6-peer-address\":[",
		             peer6[i]);
		if (k < 0 || (size_t)k >= sz - off)
			return false;
		off += (size_t)k;
	}
	k = n ? snprintf(buf + off, sz - off, "]") : 0;
	return k >= 0 && (size_t)k < sz - off;
}

static int vc_change(struct cli *c, bool add, int argc, char **argv)
{
	char uri[CLI_URI_MAX], body[1024], p[96], s[96], v6[512];
	char *peer6[VC_PEER6_MAX];
	unsigned vpi, vci, n6 = 0;
	const char *encap = "llc-snap", *peer = NULL;

	if (argc < 3)
		return usage_vc();
	for (int i = 0; i < argc; i++)
		if (strpbrk(argv[i], "\"\\"))
			return usage_vc();
	if (!cli_vpi_vci(argv[2], &vpi, &vci))
		return 1;
	for (int i = 3; add && i < argc; i++) {
		if (!strcmp(argv[i], "llc-snap") || !strcmp(argv[i], "vc-mux-ipv4") ||
		    !strcmp(argv[i], "vc-mux-ipv6") || !strcmp(argv[i], "llc-bridged") ||
		    !strcmp(argv[i], "vc-mux-bridged"))
			encap = argv[i];
		else if (!strcmp(argv[i], "peer") && i + 1 < argc)
			peer = argv[++i];
		else if (!strcmp(argv[i], "ipv6-peer") && i + 1 < argc && n6 < VC_PEER6_MAX)
			peer6[n6++] = argv[++i];
		else
			return usage_vc();
	}
	if (!add && argc != 3)
		return usage_vc();
	cli_pct(argv[0], p, sizeof(p));
	cli_pct(argv[1], s, sizeof(s));
	if (!add) {
		snprintf(uri, sizeof(uri),
		         "/restconf/data/cellgate:cellgate/port=%s/subinterface=%s/pvc=%u,%u", p, s,
		         vpi, vci);
		return cli_send(c, "DELETE", uri, NULL, NULL) ? 1 : 0;
	}
	/* The daemon checks the addresses (libyang's ipv6-address-no-zone) and names a bad one. */
	if (!vc_peer6_json(v6, sizeof(v6), peer6, n6))
		return usage_vc();
	snprintf(uri, sizeof(uri), "/restconf/data/cellgate:cellgate/port=%s/subinterface=%s", p,
	         s);
	snprintf(body, sizeof(body),
	         "{\"cellgate:pvc\":[{\"vpi\":%u,\"vci\":%u,\"encapsulation\":\"%s\"%s%s%s%s}]}",
	         vpi, vci, encap, peer ? ",\"peer-address\":\"" : "", peer ? peer : "",
	         peer ? "\"" : "", v6);
	return cli_send(c, "POST", uri, body, NULL) ? 1 : 0;
}

int cli_vc(struct cli *c, int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "ping"))
		return vc_ping(c, argc - 1, argv + 1);
	if (argc >= 1 && !strcmp(argv[0], "add"))
		return vc_change(c, true, argc - 1, argv + 1);
	if (argc >= 1 && !strcmp(argv[0], "del"))
		return vc_change(c, false, argc - 1, argv + 1);
	return usage_vc();
}

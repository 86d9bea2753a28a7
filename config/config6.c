/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The IPv6 part of the configuration: addresses of Ethernet ports
 * (port/ipv6) and static IPv6 routes (routing/static-route6), read from the
 * validated tree and printed back (issue 16 phase 2a).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"
#include "lib/addr.h"
#include "lib/json.h"

static bool addr6_parse(const char *s, uint8_t out[16])
{
	return inet_pton(AF_INET6, s, out) == 1;
}

/* RFC 4291 §2.4: what may be an interface's configured unicast address or a gateway. */
static bool addr6_is_routable_unicast(const uint8_t a[16])
{
	static const uint8_t zero[16];
	uint8_t loop[16] = {[15] = 1};

	if (a[0] == 0xff || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80))
		return false; /* multicast, link-local */
	return memcmp(a, zero, 16) && memcmp(a, loop, 16);
}

int cfg_fill_ipv6(const struct cfg_pstate *ps, const struct lyd_node *ipv6, struct cfg_addr6 *addrs,
                  unsigned *naddrs)
{
	const struct lyd_node *n;

	LY_LIST_FOR(ipv6 ? lyd_child(ipv6) : NULL, n)
	{
		struct cfg_addr6 *a = &addrs[*naddrs];

		if (strcmp(n->schema->name, "address"))
			continue;
		if (*naddrs == CFG_ADDR_MAX)
			return cfg_node_errf(ps, n, "more than %d IPv6 addresses on one port",
			                     CFG_ADDR_MAX);
		if (!addr6_parse(cfg_str(n, "ip"), a->addr) || !addr6_is_routable_unicast(a->addr))
			return cfg_node_errf(ps, n,
			                     "%s is not a global or unique-local unicast address",
			                     cfg_str(n, "ip"));
		a->plen = (uint8_t)cfg_u32(n, "prefix-length");
		(*naddrs)++;
	}
	return 0;
}

static int fill_nexthop6(const struct cfg_pstate *ps, struct cfg_route6 *r,
                         const struct lyd_node *nn)
{
	struct cfg_nexthop6 *nh;

	if (r->nnexthops == CFG_ECMP_MAX)
		return cfg_node_errf(ps, nn, "more than %d next hops", CFG_ECMP_MAX);
	nh = &r->nexthops[r->nnexthops];
	/* :: means on-link in struct cfg_nexthop6, so it must not get in as a gateway. */
	if (!addr6_parse(cfg_str(nn, "address"), nh->gateway) ||
	    !addr6_is_routable_unicast(nh->gateway))
		return cfg_node_errf(ps, nn, "%s is not a global or unique-local gateway address",
		                     cfg_str(nn, "address"));
	cfg_copy(nh->port, sizeof(nh->port), cfg_str(nn, "interface"));
	nh->weight = (uint8_t)cfg_u32(nn, "weight");
	r->nnexthops++;
	return 0;
}

/* Host bits: libyang clears them, cfg_check_raw_prefix6 saw the text; checked again here. */
static int fill_route6(const struct cfg_pstate *ps, struct cfg_route6 *r, const struct lyd_node *rn)
{
	const char *prefix = cfg_str(rn, "prefix"), *action = cfg_str(rn, "action");
	char ip[INET6_ADDRSTRLEN];
	const struct lyd_node *n;
	int rc;

	snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(prefix, "/"), prefix);
	r->plen = (uint8_t)strtoul(prefix + strcspn(prefix, "/") + 1, NULL, 10);
	if (!addr6_parse(ip, r->prefix) || r->plen > 128)
		return cfg_node_errf(ps, rn, "%s is not an IPv6 prefix", prefix);
	for (unsigned bit = r->plen; bit < 128; bit++)
		if (r->prefix[bit / 8] & (0x80 >> (bit % 8)))
			return cfg_node_errf(ps, rn, "host bits set in %s", prefix);
	r->action = !strcmp(action, "blackhole")     ? CFG_ROUTE_BLACKHOLE
	            : !strcmp(action, "unreachable") ? CFG_ROUTE_UNREACHABLE
	                                             : CFG_ROUTE_FORWARD;
	n = cfg_child(rn, "interface");
	if (n) {
		cfg_copy(r->nexthops[0].port, sizeof(r->nexthops[0].port), lyd_get_value(n));
		r->nexthops[0].weight = 1;
		r->nnexthops = 1;
	}
	LY_LIST_FOR(lyd_child(rn), n)
	{
		if (strcmp(n->schema->name, "nexthop"))
			continue;
		rc = fill_nexthop6(ps, r, n);
		if (rc)
			return rc;
	}
	return 0;
}

static int route6_cmp(const void *a, const void *b)
{
	const struct cfg_route6 *ra = a, *rb = b;
	int c = memcmp(ra->prefix, rb->prefix, 16);

	return c ? c : (int)ra->plen - (int)rb->plen;
}

/* A prefix with host bits set, as written (the raw re-read of config.c): rejected with the network.
 */
int cfg_check_raw_prefix6(const struct cfg_pstate *ps, const char *raw)
{
	const char *slash = strchr(raw, '/');
	char ip[INET6_ADDRSTRLEN], net[INET6_ADDRSTRLEN];
	uint8_t a[16];
	unsigned plen;
	bool host = false;

	/* The typed parse accepted it already, so this is only a guard. */
	if (!slash || slash - raw >= INET6_ADDRSTRLEN)
		return 0;
	snprintf(ip, sizeof(ip), "%.*s", (int)(slash - raw), raw);
	plen = (unsigned)strtoul(slash + 1, NULL, 10);
	if (!addr6_parse(ip, a) || plen > 128)
		return 0;
	for (unsigned bit = plen; bit < 128; bit++)
		if (a[bit / 8] & (0x80 >> (bit % 8))) {
			host = true;
			a[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
		}
	if (!host)
		return 0;
	return cfg_errf(ps, -EINVAL,
	                "/cellgate:cellgate/routing/static-route6[prefix='%s']/prefix: "
	                "host bits set in %s (the network is %s%s)",
	                raw, raw, inet_str(AF_INET6, a, net, sizeof(net)), slash);
}

int cfg_fill_routes6(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *routing)
{
	const struct lyd_node *n;
	unsigned count = 0;
	int rc;

	LY_LIST_FOR(routing ? lyd_child(routing) : NULL, n)
	{
		count += !strcmp(n->schema->name, "static-route6");
	}
	if (!count)
		return 0;
	cfg->routes6 = calloc(count, sizeof(*cfg->routes6));
	if (!cfg->routes6)
		return cfg_errf(ps, -ENOMEM, "%s", strerror(ENOMEM));
	LY_LIST_FOR(lyd_child(routing), n)
	{
		if (strcmp(n->schema->name, "static-route6"))
			continue;
		rc = fill_route6(ps, &cfg->routes6[cfg->nroutes6++], n);
		if (rc)
			return rc;
	}
	/* Sorted once here, so equal configs give equal structs and printouts. */
	qsort(cfg->routes6, cfg->nroutes6, sizeof(*cfg->routes6), route6_cmp);
	return 0;
}

void cfg_print_ipv6(FILE *out, const struct cfg_addr6 *addrs, unsigned naddrs, int indent)
{
	char ip[INET6_ADDRSTRLEN];

	if (!naddrs)
		return;
	fprintf(out, ",\n%*s\"ipv6\": {\n%*s\"address\": [\n", indent, "", indent + 2, "");
	for (unsigned i = 0; i < naddrs; i++)
		fprintf(out, "%*s{\"ip\": \"%s\", \"prefix-length\": %u}%s\n", indent + 4, "",
		        inet_str(AF_INET6, addrs[i].addr, ip, sizeof(ip)), addrs[i].plen,
		        i + 1 < naddrs ? "," : "");
	fprintf(out, "%*s]\n%*s}", indent + 2, "", indent, "");
}

static void print_route6(FILE *out, const struct cfg_route6 *r)
{
	static const char *const action[] = {
	    [CFG_ROUTE_FORWARD] = "forward",
	    [CFG_ROUTE_BLACKHOLE] = "blackhole",
	    [CFG_ROUTE_UNREACHABLE] = "unreachable",
	};
	static const uint8_t zero[16];
	char ip[INET6_ADDRSTRLEN];

	fprintf(out, "        {\n          \"prefix\": \"%s/%u\",\n",
	        inet_str(AF_INET6, r->prefix, ip, sizeof(ip)), r->plen);
	fprintf(out, "          \"action\": \"%s\"", action[r->action]);
	if (r->nnexthops == 1 && !memcmp(r->nexthops[0].gateway, zero, 16)) {
		fprintf(out, ",\n          \"interface\": ");
		json_str(out, r->nexthops[0].port);
	} else if (r->nnexthops) {
		fprintf(out, ",\n          \"nexthop\": [\n");
		for (unsigned i = 0; i < r->nnexthops; i++) {
			const struct cfg_nexthop6 *nh = &r->nexthops[i];

			fprintf(out, "            {\"address\": \"%s\"",
			        inet_str(AF_INET6, nh->gateway, ip, sizeof(ip)));
			if (nh->port[0]) {
				fprintf(out, ", \"interface\": ");
				json_str(out, nh->port);
			}
			fprintf(out, ", \"weight\": %u}%s\n", nh->weight,
			        i + 1 < r->nnexthops ? "," : "");
		}
		fprintf(out, "          ]");
	}
	fprintf(out, "\n        }");
}

/* Inside "routing", before the FPM settings; sorted when parsed. */
void cfg_print_routes6(FILE *out, const struct cfg *cfg)
{
	if (!cfg->nroutes6)
		return;
	fprintf(out, "      \"static-route6\": [\n");
	for (unsigned i = 0; i < cfg->nroutes6; i++) {
		print_route6(out, &cfg->routes6[i]);
		fprintf(out, "%s\n", i + 1 < cfg->nroutes6 ? "," : "");
	}
	fprintf(out, "      ],\n");
}

int cfg_route6_cmp(const void *a, const void *b)
{
	return route6_cmp(a, b);
}

bool cfg_route6_same(const struct cfg_route6 *x, const struct cfg_route6 *y)
{
	if (route6_cmp(x, y) || x->action != y->action || x->nnexthops != y->nnexthops)
		return false;
	for (unsigned j = 0; j < x->nnexthops; j++)
		if (memcmp(x->nexthops[j].gateway, y->nexthops[j].gateway, 16) ||
		    strcmp(x->nexthops[j].port, y->nexthops[j].port) ||
		    x->nexthops[j].weight != y->nexthops[j].weight)
			return false;
	return true;
}

bool cfg_addr6_in(const struct cfg_addr6 *list, unsigned n, const struct cfg_addr6 *a)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i].plen == a->plen && memcmp(list[i].addr, a->addr, 16) == 0)
			return true;
	return false;
}

void cfg_addr6_prefix(const struct cfg_addr6 *a, uint8_t net[16])
{
	memcpy(net, a->addr, 16);
	for (unsigned bit = a->plen; bit < 128; bit++)
		net[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
}

bool cfg_addr6_on_link(const struct cfg_addr6 *list, unsigned n, const uint8_t ip[16])
{
	for (unsigned i = 0; i < n; i++) {
		struct cfg_addr6 host = {.plen = list[i].plen};
		uint8_t net[16], hnet[16];

		memcpy(host.addr, ip, 16);
		cfg_addr6_prefix(&list[i], net);
		cfg_addr6_prefix(&host, hnet);
		if (memcmp(net, hnet, 16) == 0)
			return true;
	}
	return false;
}

void cfg_fill_nd(const struct lyd_node *ipv6, struct cfg_port *p)
{
	const struct lyd_node *nd = ipv6 ? cfg_child(ipv6, "nd") : NULL;

	p->nd_reachable_ms = nd ? cfg_u32(nd, "base-reachable-time") : 0;
	p->nd_retrans_ms = nd ? cfg_u32(nd, "retrans-timer") : 0;
	if (!p->nd_reachable_ms)
		p->nd_reachable_ms = CFG_ND_REACHABLE_MS_DEFAULT;
	if (!p->nd_retrans_ms)
		p->nd_retrans_ms = CFG_ND_RETRANS_MS_DEFAULT;
}

uint32_t cfg_nd_reachable_ms(const struct cfg *c, unsigned p)
{
	uint32_t v = p < c->nports ? c->ports[p].nd_reachable_ms : 0;

	return v ? v : CFG_ND_REACHABLE_MS_DEFAULT;
}

uint32_t cfg_nd_retrans_ms(const struct cfg *c, unsigned p)
{
	uint32_t v = p < c->nports ? c->ports[p].nd_retrans_ms : 0;

	return v ? v : CFG_ND_RETRANS_MS_DEFAULT;
}

/* Printed only when not the defaults, so the goldens of ports without it stay as they were. */
void cfg_print_ipv6_port(FILE *out, const struct cfg_port *p, int indent)
{
	bool nd = (p->nd_reachable_ms && p->nd_reachable_ms != CFG_ND_REACHABLE_MS_DEFAULT) ||
	          (p->nd_retrans_ms && p->nd_retrans_ms != CFG_ND_RETRANS_MS_DEFAULT);

	if (!nd) {
		cfg_print_ipv6(out, p->addrs6, p->naddrs6, indent);
		return;
	}
	fprintf(out, ",\n%*s\"ipv6\": {\n", indent, "");
	if (p->naddrs6) {
		char ip[INET6_ADDRSTRLEN];

		fprintf(out, "%*s\"address\": [\n", indent + 2, "");
		for (unsigned i = 0; i < p->naddrs6; i++)
			fprintf(out, "%*s{\"ip\": \"%s\", \"prefix-length\": %u}%s\n", indent + 4,
			        "", inet_str(AF_INET6, p->addrs6[i].addr, ip, sizeof(ip)),
			        p->addrs6[i].plen, i + 1 < p->naddrs6 ? "," : "");
		fprintf(out, "%*s],\n", indent + 2, "");
	}
	fprintf(out, "%*s\"nd\": {\"base-reachable-time\": %u, \"retrans-timer\": %u}\n",
	        indent + 2, "",
	        p->nd_reachable_ms ? p->nd_reachable_ms : CFG_ND_REACHABLE_MS_DEFAULT,
	        p->nd_retrans_ms ? p->nd_retrans_ms : CFG_ND_RETRANS_MS_DEFAULT);
	fprintf(out, "%*s}", indent, "");
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/routes6.h"
#include "lib/addr.h"
#include "lib/log.h"

/*
 * An ATM subinterface with IPv6 addresses forwards IPv6 like an Ethernet
 * port: a point-to-point one's next hop is its VC, a multipoint one's comes
 * from the PVCs' ipv6-peer-address map (daemon/atm_map6.c, through neigh6).
 */
static void subifs6_setup(struct dataplane *dp, const struct cfg *cfg)
{
	for (unsigned s = 0; s < cfg->nsubifs && cfg->nports + s < dp->nports; s++) {
		const struct cfg_subif *cs = &cfg->subifs[s];
		struct port *pt = &dp->ports[cfg->nports + s];

		port_ip6_src_set(pt, cs->naddrs6 ? cs->addrs6[0].addr : NULL);
		port_ip6_enable(pt, cs->naddrs6 > 0);
	}
}

void routes6_ports_setup(struct dataplane *dp, const struct cfg *cfg)
{
	subifs6_setup(dp, cfg);
	for (unsigned p = 0; p < cfg->nports && p < dp->nports; p++) {
		const struct cfg_port *cp = &cfg->ports[p];

		port_ip6_src_set(&dp->ports[p], cp->naddrs6 ? cp->addrs6[0].addr : NULL);
		port_ip6_enable(&dp->ports[p], cp->naddrs6 > 0);
	}
}

static unsigned connected6(struct rib6 *r6, unsigned port, const struct cfg_addr6 *addrs,
                           unsigned naddrs)
{
	struct rib6_path on_port = {.port = (int)port, .weight = 1};
	unsigned failed = 0;

	for (unsigned i = 0; i < naddrs; i++) {
		const struct cfg_addr6 *a = &addrs[i];
		uint8_t net[16];

		failed += rib6_route_set(r6, a->addr, 128, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0) != 0;
		if (a->plen == 128)
			continue;
		memcpy(net, a->addr, 16);
		for (unsigned bit = a->plen; bit < 128; bit++)
			net[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
		failed +=
		    rib6_route_set(r6, net, a->plen, RIB_SRC_CONNECTED, NH_GLEAN, &on_port, 1) != 0;
	}
	return failed;
}

/* A port or ATM subinterface with IPv6, by name: its dataplane index, else -1 (logged). */
static int port6_index(const struct dataplane *dp, const struct cfg *cfg, const char *name,
                       const struct cfg_route6 *r)
{
	int i = cfg_port_index(cfg, name);
	char ip[INET6_ADDRSTRLEN];

	if (i < 0 && (i = cfg_subif_index(cfg, name)) >= 0)
		i += (int)cfg->nports;

	if (i >= 0 && port_ip6_on(&dp->ports[i]))
		return i;
	log_warnx("static route %s/%u: port %s has no IPv6 addresses: route not installed",
	          inet_str(AF_INET6, r->prefix, ip, sizeof(ip)), r->plen, name);
	return -1;
}

static int static6_one(struct rib6 *r6, const struct dataplane *dp, const struct cfg *cfg,
                       const struct cfg_route6 *r)
{
	static const uint8_t zero[16];
	struct rib6_path paths[CFG_ECMP_MAX];

	if (r->action == CFG_ROUTE_BLACKHOLE)
		return rib6_route_set(r6, r->prefix, r->plen, RIB_SRC_STATIC, NH_BLACKHOLE, NULL,
		                      0);
	if (r->action == CFG_ROUTE_UNREACHABLE)
		return rib6_route_set(r6, r->prefix, r->plen, RIB_SRC_STATIC, NH_UNREACHABLE, NULL,
		                      0);
	for (unsigned i = 0; i < r->nnexthops; i++) {
		const struct cfg_nexthop6 *nh = &r->nexthops[i];

		memcpy(paths[i].gw, nh->gateway, 16);
		paths[i].port = nh->port[0] ? port6_index(dp, cfg, nh->port, r) : -1;
		paths[i].weight = nh->weight ? nh->weight : 1;
		if (nh->port[0] && paths[i].port < 0)
			return -ENOENT;
	}
	/* On-link: one next hop without a gateway (config.h). */
	if (r->nnexthops == 1 && !memcmp(r->nexthops[0].gateway, zero, 16))
		return rib6_route_set(r6, r->prefix, r->plen, RIB_SRC_STATIC, NH_GLEAN, paths, 1);
	return rib6_route_set(r6, r->prefix, r->plen, RIB_SRC_STATIC, NH_GATEWAY, paths,
	                      r->nnexthops);
}

int routes6_apply_config(struct rib6 *r6, const struct dataplane *dp, const struct cfg *cfg)
{
	int failed = 0;

	for (unsigned p = 0; p < cfg->nports; p++)
		failed += (int)connected6(r6, p, cfg->ports[p].addrs6, cfg->ports[p].naddrs6);
	for (unsigned s = 0; s < cfg->nsubifs; s++)
		if (port_ip6_on(&dp->ports[cfg->nports + s]))
			failed += (int)connected6(r6, cfg->nports + s, cfg->subifs[s].addrs6,
			                          cfg->subifs[s].naddrs6);
	for (unsigned i = 0; i < cfg->nroutes6; i++)
		failed += static6_one(r6, dp, cfg, &cfg->routes6[i]) != 0;
	return failed;
}

/* What the IPv6 steps of routes_update need: the RIB6, and the ports for interface names. */
struct routes6_ctx {
	struct rib6 *r6;
	const struct dataplane *dp;
};

static bool route6_same(const void *a, const void *b)
{
	return cfg_route6_same(a, b);
}

static int route6_set(void *arg, const struct cfg *cfg, const void *r)
{
	const struct routes6_ctx *c = arg;

	return static6_one(c->r6, c->dp, cfg, r);
}

static int route6_del(void *arg, const void *x)
{
	const struct routes6_ctx *c = arg;
	const struct cfg_route6 *r = x;

	return rib6_route_del(c->r6, r->prefix, r->plen, RIB_SRC_STATIC);
}

static void route6_name(const void *x, char *buf, size_t len)
{
	const struct cfg_route6 *r = x;
	char ip[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s/%u", inet_str(AF_INET6, r->prefix, ip, sizeof(ip)), r->plen);
}

int routes6_static_update(struct rib6 *r6, const struct dataplane *dp, const struct cfg *cur,
                          const struct cfg *next, struct routes_update_err *e)
{
	static const struct routes_family_ops ops = {
	    .size = sizeof(struct cfg_route6),
	    .cmp = cfg_route6_cmp,
	    .same = route6_same,
	    .set = route6_set,
	    .del = route6_del,
	    .name = route6_name,
	};
	struct routes6_ctx c = {r6, dp};

	return routes_update(&ops, &c, &(struct routes_list){cur, cur->routes6, cur->nroutes6},
	                     &(struct routes_list){next, next->routes6, next->nroutes6}, e);
}

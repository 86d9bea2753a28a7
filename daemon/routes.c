/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/routes.h"

/*
 * The dataplane port a route names: an Ethernet or ATM port (same index as in
 * the configuration), or an ATM subinterface (after all ports). -1 if none.
 */
static int dp_port_index(const struct cfg *cfg, const char *name)
{
	int i = cfg_port_index(cfg, name);

	if (i >= 0)
		return i;
	i = cfg_subif_index(cfg, name);
	return i >= 0 ? (int)cfg->nports + i : -1;
}

static unsigned routes_connected_one(struct rib *rib, unsigned port,
                                     const struct cfg_addr4 *addrs, unsigned naddrs)
{
	struct rib_path on_port = {.port = (int)port, .weight = 1};
	unsigned failed = 0;

	for (unsigned i = 0; i < naddrs; i++) {
		uint32_t a = addrs[i].addr;
		uint8_t len = addrs[i].plen;
		uint32_t mask = len ? 0xffffffffu << (32 - len) : 0;

		/* Our own address: the kernel answers for it (ICMP echo, ARP, routing
		 * protocols). */
		failed += rib_route_set(rib, a, 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0) != 0;
		if (len >= 31) /* RFC 3021: /31 and /32 have no broadcast */
			continue;
		failed += rib_route_set(rib, a & mask, len, RIB_SRC_CONNECTED, NH_GLEAN,
		                        &on_port, 1) != 0;
		/* Directed broadcast is not forwarded by default (RFC 2644): the host takes
		 * it. */
		failed += rib_route_set(rib, a | ~mask, 32, RIB_SRC_LOCAL, NH_LOCAL, NULL,
		                        0) != 0;
	}
	return failed;
}

static unsigned routes_connected(struct rib *rib, const struct cfg *cfg)
{
	unsigned failed = 0;

	for (unsigned p = 0; p < cfg->nports; p++)
		failed += routes_connected_one(rib, p, cfg->ports[p].addrs, cfg->ports[p].naddrs);
	for (unsigned s = 0; s < cfg->nsubifs; s++)
		failed += routes_connected_one(rib, cfg->nports + s, cfg->subifs[s].addrs,
		                               cfg->subifs[s].naddrs);
	return failed;
}

static int route_static_one(struct rib *rib, const struct cfg *cfg, const struct cfg_route *r)
{
	struct rib_path paths[CFG_ECMP_MAX];

	switch (r->action) {
	case CFG_ROUTE_BLACKHOLE:
		return rib_route_set(rib, r->prefix, r->plen, RIB_SRC_STATIC, NH_BLACKHOLE, NULL,
		                     0);
	case CFG_ROUTE_UNREACHABLE:
		return rib_route_set(rib, r->prefix, r->plen, RIB_SRC_STATIC, NH_UNREACHABLE, NULL,
		                     0);
	default:
		break;
	}
	for (unsigned i = 0; i < r->nnexthops; i++) {
		const struct cfg_nexthop *nh = &r->nexthops[i];
		paths[i].gw = nh->gateway;
		paths[i].port = nh->port[0] ? dp_port_index(cfg, nh->port) : -1;
		paths[i].weight = nh->weight ? nh->weight : 1;
	}
	if (r->nnexthops == 0) {
		/* An interface-only route: every destination in it is on-link there. */
		struct rib_path onlink = {.port = dp_port_index(cfg, r->interface), .weight = 1};
		if (onlink.port < 0)
			return -ENOENT;
		return rib_route_set(rib, r->prefix, r->plen, RIB_SRC_STATIC, NH_GLEAN, &onlink, 1);
	}
	for (unsigned i = 0; i < r->nnexthops; i++)
		if (paths[i].gw == 0)
			return rib_route_set(rib, r->prefix, r->plen, RIB_SRC_STATIC, NH_GLEAN,
			                     &paths[i], 1);
	return rib_route_set(rib, r->prefix, r->plen, RIB_SRC_STATIC, NH_GATEWAY, paths,
	                     r->nnexthops);
}

int routes_apply_config(struct rib *rib, const struct cfg *cfg)
{
	int failed = (int)routes_connected(rib, cfg);

	for (unsigned i = 0; i < cfg->nroutes; i++)
		failed += route_static_one(rib, cfg, &cfg->routes[i]) != 0;
	return failed;
}

static bool route_same(const void *x, const void *y)
{
	const struct cfg_route *a = x, *b = y;

	if (a->action != b->action || a->nnexthops != b->nnexthops ||
	    strcmp(a->interface, b->interface))
		return false;
	for (unsigned i = 0; i < a->nnexthops; i++)
		if (a->nexthops[i].gateway != b->nexthops[i].gateway ||
		    a->nexthops[i].weight != b->nexthops[i].weight ||
		    strcmp(a->nexthops[i].port, b->nexthops[i].port))
			return false;
	return true;
}

static int route_set(void *rib, const struct cfg *cfg, const void *r)
{
	return route_static_one(rib, cfg, r);
}

static int route_del(void *rib, const void *x)
{
	const struct cfg_route *r = x;

	return rib_route_del(rib, r->prefix, r->plen, RIB_SRC_STATIC);
}

static void prefix_str(const void *x, char *buf, size_t len)
{
	const struct cfg_route *r = x;
	uint32_t a = r->prefix;

	snprintf(buf, len, "%u.%u.%u.%u/%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255,
	         r->plen);
}

int routes_static_update(struct rib *rib, const struct cfg *cur, const struct cfg *next,
                         struct routes_update_err *e)
{
	static const struct routes_family_ops ops = {
	    .size = sizeof(struct cfg_route),
	    .cmp = cfg_route_cmp,
	    .same = route_same,
	    .set = route_set,
	    .del = route_del,
	    .name = prefix_str,
	};

	return routes_update(&ops, rib, &(struct routes_list){cur, cur->routes, cur->nroutes},
	                     &(struct routes_list){next, next->routes, next->nroutes}, e);
}

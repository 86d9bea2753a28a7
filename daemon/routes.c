#include <errno.h>

#include "routes.h"

static unsigned routes_connected(struct rib *rib, const struct cfg *cfg)
{
	unsigned failed = 0;

	for (unsigned p = 0; p < cfg->nports; p++) {
		const struct cfg_port *cp = &cfg->ports[p];
		struct rib_path on_port = {.port = (int)p, .weight = 1};

		for (unsigned i = 0; i < cp->naddrs; i++) {
			uint32_t a = cp->addrs[i].addr;
			uint8_t len = cp->addrs[i].plen;
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
	}
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
		paths[i].port = nh->port[0] ? cfg_port_index(cfg, nh->port) : -1;
		paths[i].weight = nh->weight ? nh->weight : 1;
	}
	if (r->nnexthops == 0) {
		/* An interface-only route: every destination in it is on-link there. */
		struct rib_path onlink = {.port = cfg_port_index(cfg, r->interface), .weight = 1};
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

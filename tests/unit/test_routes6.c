/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Static IPv6 route changes at runtime (routes6_static_update over
 * daemon/routes_update.c): routes gone are deleted, changed ones replaced,
 * new ones added; a change with one route that cannot be installed (its
 * gateway on no IPv6 prefix of the router) is undone completely and names
 * that route.
 */
#include <errno.h>
#include <string.h>

#include "daemon/rib6.h"
#include "daemon/routes6.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"

static struct dataplane dp;

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	return 0;
}

static uint64_t seed4(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

static void port_cfg(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->nports = 1;
	snprintf(c->ports[0].name, sizeof(c->ports[0].name), "eth0");
	c->ports[0].naddrs6 = 1;
	memcpy(c->ports[0].addrs6[0].addr, a6("2001:db8:40::1"), 16);
	c->ports[0].addrs6[0].plen = 64;
}

static void route6(struct cfg_route6 *r, const char *prefix, uint8_t plen, const char *gw,
                   enum cfg_route_action action)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->prefix, a6(prefix), 16);
	r->plen = plen;
	r->action = action;
	if (gw) {
		r->nnexthops = 1;
		memcpy(r->nexthops[0].gateway, a6(gw), 16);
		r->nexthops[0].weight = 1;
	}
}

/* The next hop the FIB6 gives for addr: its type, and its gateway in gw (NULL: no route). */
static const struct nexthop *lookup(const char *addr, const uint8_t **gw)
{
	uint32_t g = fib6_lookup(dp.fib6, a6(addr)), id;

	if (!g)
		return NULL;
	id = dp.nht->nhg[g].slot[0];
	*gw = dp.nht->gw6[id];
	return &dp.nht->nh[id];
}

int main(void)
{
	static struct cfg cur, bad, next;
	struct cfg_route6 rc[2], rb[4], rn[3];
	struct routes_update_err e;
	const struct nexthop *nh;
	const uint8_t *gw;

	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 1;
	struct rib *rib = rib_new(&dp, seed4, NULL);
	struct rib6 *r6 = rib6_new(rib, seed6, NULL);
	CHECK(rib && r6);

	/* Running: :41::/48 via :40::9, :43::/48 unreachable (sorted by prefix, as parsed). */
	port_cfg(&cur);
	route6(&rc[0], "2001:db8:41::", 48, "2001:db8:40::9", CFG_ROUTE_FORWARD);
	route6(&rc[1], "2001:db8:43::", 48, NULL, CFG_ROUTE_UNREACHABLE);
	cur.routes6 = rc;
	cur.nroutes6 = 2;
	routes6_ports_setup(&dp, &cur);
	CHECK_EQ(routes6_apply_config(r6, &dp, &cur), 0);

	/*
	 * :41:: changes gateway, :43:: goes, :45:: arrives, and :46::'s gateway is
	 * on no prefix of ours: refused, and everything before it undone.
	 */
	port_cfg(&bad);
	route6(&rb[0], "2001:db8:41::", 48, "2001:db8:40::8", CFG_ROUTE_FORWARD);
	route6(&rb[1], "2001:db8:45::", 48, NULL, CFG_ROUTE_BLACKHOLE);
	route6(&rb[2], "2001:db8:46::", 48, "2001:db8:99::1", CFG_ROUTE_FORWARD);
	route6(&rb[3], "2001:db8:47::", 48, NULL, CFG_ROUTE_BLACKHOLE);
	bad.routes6 = rb;
	bad.nroutes6 = 4;
	CHECK_EQ(routes6_static_update(r6, &dp, &cur, &bad, &e), -ENETUNREACH);
	CHECK(!strcmp(e.failed, "2001:db8:46::/48"));
	CHECK_EQ(e.undo_err, 0);
	nh = lookup("2001:db8:41::1", &gw);
	CHECK(nh && nh->type == NH_GATEWAY && !memcmp(gw, a6("2001:db8:40::9"), 16));
	nh = lookup("2001:db8:43::1", &gw);
	CHECK(nh && nh->type == NH_UNREACHABLE);
	CHECK(!lookup("2001:db8:45::1", &gw));
	CHECK(!lookup("2001:db8:47::1", &gw));

	/* Without the bad route the same change goes through. */
	port_cfg(&next);
	memcpy(rn, rb, 2 * sizeof(*rn));
	rn[2] = rb[3];
	next.routes6 = rn;
	next.nroutes6 = 3;
	CHECK_EQ(routes6_static_update(r6, &dp, &cur, &next, &e), 0);
	nh = lookup("2001:db8:41::1", &gw);
	CHECK(nh && nh->type == NH_GATEWAY && !memcmp(gw, a6("2001:db8:40::8"), 16));
	CHECK(!lookup("2001:db8:43::1", &gw));
	nh = lookup("2001:db8:45::1", &gw);
	CHECK(nh && nh->type == NH_BLACKHOLE);
	nh = lookup("2001:db8:47::1", &gw);
	CHECK(nh && nh->type == NH_BLACKHOLE);
	/* The connected and local routes of the port are not the static update's. */
	nh = lookup("2001:db8:40::1", &gw);
	CHECK(nh && nh->type == NH_LOCAL);

	/* And back: deleting every static route leaves the connected ones. */
	CHECK_EQ(routes6_static_update(r6, &dp, &next, &cur, &e), 0);
	CHECK(!lookup("2001:db8:45::1", &gw));
	nh = lookup("2001:db8:43::1", &gw);
	CHECK(nh && nh->type == NH_UNREACHABLE);
	rib6_free(r6);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_routes6");
}

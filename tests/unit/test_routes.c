/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Static route changes at runtime (daemon/routes.c): all or nothing, and a
 * rollback that itself fails is reported, not hidden. The FIB here is DIR-24-8 with two
 * tbl8 groups, and a group freed by a delete is reusable only after a grace
 * period (fib_reclaim), so one change can run out of groups both ways:
 * 10.1.1.0/25 is replaced by 10.2.2.0/25, which cannot get a group, and
 * putting 10.1.1.0/25 back cannot get one either.
 */
#include <errno.h>
#include <string.h>

#include "daemon/rib.h"
#include "daemon/routes.h"
#include "tests/unit/check.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

static void port_cfg(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->nports = 1;
	snprintf(c->ports[0].name, sizeof(c->ports[0].name), "eth0");
	c->ports[0].naddrs = 1;
	c->ports[0].addrs[0] = (struct cfg_addr4){IP(10, 0, 1, 1), 24};
}

static void route_via(struct cfg_route *r, uint32_t prefix, uint8_t plen)
{
	memset(r, 0, sizeof(*r));
	r->prefix = prefix;
	r->plen = plen;
	r->nnexthops = 1;
	r->nexthops[0].gateway = IP(10, 0, 1, 2);
	r->nexthops[0].weight = 1;
}

int main(void)
{
	static struct dataplane dp;
	static struct cfg cur, next, ok;
	struct cfg_route rcur, rnext, rok[2];
	struct routes_update_err e;
	struct rib *rib;

	/* DIR-24-8 whatever CELLGATE_FIB_ALGORITHM says: the failures need its tbl8 groups. */
	CHECK_EQ(dp_init(&dp, &fib_algo_dir24_8, &(struct fib_params){.tbl8_groups = 2}), 0);
	dp.nports = 1;
	dp.ports[0].ifindex = 11;
	rib = rib_new(&dp, seed, NULL);
	port_cfg(&cur);
	route_via(&rcur, IP(10, 1, 1, 0), 25);
	cur.routes = &rcur;
	cur.nroutes = 1;
	/* The port's own /32s take one group (10.0.1.x), 10.1.1.0/25 the other. */
	CHECK_EQ(routes_apply_config(rib, &cur), 0);
	CHECK(fib_lookup(&dp.fib, IP(10, 1, 1, 9)) != 0);

	/* A change that fails and is undone completely: an unreachable gateway. */
	port_cfg(&ok);
	route_via(&rok[0], IP(10, 1, 1, 0), 25);
	route_via(&rok[1], IP(10, 9, 0, 0), 16);
	rok[1].nexthops[0].gateway = IP(192, 0, 2, 7);
	ok.routes = rok;
	ok.nroutes = 2;
	CHECK_EQ(routes_static_update(rib, &cur, &ok, &e), -ENETUNREACH);
	CHECK(!strcmp(e.failed, "10.9.0.0/16"));
	CHECK_EQ(e.undo_err, 0);
	CHECK(fib_lookup(&dp.fib, IP(10, 1, 1, 9)) != 0);

	/* No group for 10.2.2.0/25, none for 10.1.1.0/25 again: the undo fails, and says so. */
	port_cfg(&next);
	route_via(&rnext, IP(10, 2, 2, 0), 25);
	next.routes = &rnext;
	next.nroutes = 1;
	CHECK_EQ(routes_static_update(rib, &cur, &next, &e), -ENOSPC);
	CHECK(!strcmp(e.failed, "10.2.2.0/25"));
	CHECK_EQ(e.undo_err, -ENOSPC);
	CHECK(!strcmp(e.undo_failed, "10.1.1.0/25"));
	CHECK_EQ(e.undo_failures, 1);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 1, 1, 9)), fib_lookup(&dp.fib, IP(10, 1, 0, 9)));

	/* After the grace period the group is back, and the same change goes through. */
	rib_reclaim(rib);
	fib_reclaim(&dp.fib);
	CHECK_EQ(routes_static_update(rib, &cur, &next, &e), 0);
	CHECK(fib_lookup(&dp.fib, IP(10, 2, 2, 9)) != 0);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_routes");
}

/* The RIB: source preference, gateway resolution, ECMP groups, reference counts, reclaim. */
#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"
#include "daemon/rib.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define SEED           0x0002aabbccddeeffull

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return SEED;
}

static const struct nexthop *lookup_nh(struct dataplane *dp, uint32_t addr, unsigned slot)
{
	uint32_t g = fib4_lookup(dp->fib, addr);
	return g ? &dp->nht->nh[dp->nht->nhg[g].slot[slot]] : NULL;
}

int main(void)
{
	static struct dataplane dp;
	struct rib_counts rc;

	CHECK_EQ(dp_init(&dp, 256), 0);
	struct rib *rib = rib_new(&dp, seed, NULL);
	CHECK(rib != NULL);

	struct rib_path p0 = {.port = 0, .weight = 1}, p1 = {.port = 1, .weight = 1};
	CHECK_EQ(rib_route_set(rib, IP(10, 0, 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1), 0);
	CHECK_EQ(rib_route_set(rib, IP(10, 0, 2, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1), 0);
	CHECK_EQ(rib_route_set(rib, IP(10, 0, 1, 1), 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0), 0);
	CHECK_EQ(lookup_nh(&dp, IP(10, 0, 1, 1), 0)->type, NH_LOCAL);
	CHECK_EQ(lookup_nh(&dp, IP(10, 0, 1, 9), 0)->type, NH_GLEAN);
	CHECK_EQ(lookup_nh(&dp, IP(10, 0, 2, 9), 0)->port, 1);

	/* A gateway on a connected subnet finds its port; the new next hop is seeded. */
	struct rib_path gw = {.gw = IP(10, 0, 2, 2), .port = -1, .weight = 1};
	CHECK_EQ(rib_route_set(rib, IP(10, 20, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1), 0);
	const struct nexthop *nh = lookup_nh(&dp, IP(10, 20, 0, 7), 0);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1 && nh->gw == IP(10, 0, 2, 2));
	CHECK_EQ(nh->l2, SEED);
	rib_nh_l2_update(rib, 1, IP(10, 0, 2, 2), 42);
	CHECK_EQ(nh->l2, 42);
	CHECK(rib_nh_gateway_exists(rib, 1, IP(10, 0, 2, 2)));

	/* Off-subnet gateway: refused, nothing installed. */
	struct rib_path far = {.gw = IP(192, 0, 2, 1), .port = -1, .weight = 1};
	CHECK_EQ(rib_route_set(rib, IP(10, 30, 0, 0), 16, RIB_SRC_STATIC, NH_GATEWAY, &far, 1),
	         -ENETUNREACH);
	CHECK_EQ(fib4_lookup(dp.fib, IP(10, 30, 0, 1)), 0);
	CHECK_EQ(rib_route_set(rib, IP(10, 0, 0, 1), 24, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0),
	         -EINVAL);

	/* ECMP: the same set in another order shares one group; weights become slots. */
	struct rib_path two[2] = {{IP(10, 0, 1, 2), -1, 1}, {IP(10, 0, 2, 2), -1, 1}};
	struct rib_path owt[2] = {{IP(10, 0, 2, 2), -1, 1}, {IP(10, 0, 1, 2), -1, 1}};
	CHECK_EQ(rib_route_set(rib, IP(10, 99, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, two, 2), 0);
	CHECK_EQ(rib_route_set(rib, IP(10, 98, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, owt, 2), 0);
	uint32_t g1 = fib4_lookup(dp.fib, IP(10, 99, 0, 1)),
	         g2 = fib4_lookup(dp.fib, IP(10, 98, 0, 1));
	CHECK(g1 != 0 && g1 == g2);
	CHECK_EQ(dp.nht->nhg[g1].nslots, 2);
	struct rib_path wtd[2] = {{IP(10, 0, 1, 2), -1, 1}, {IP(10, 0, 2, 2), -1, 3}};
	CHECK_EQ(rib_route_set(rib, IP(10, 97, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, wtd, 2), 0);
	uint32_t g3 = fib4_lookup(dp.fib, IP(10, 97, 0, 1));
	CHECK(g3 != g1);
	CHECK_EQ(dp.nht->nhg[g3].nslots, 4);
	unsigned on_port1 = 0;
	for (unsigned s = 0; s < 4; s++)
		on_port1 += dp.nht->nh[dp.nht->nhg[g3].slot[s]].port == 1;
	CHECK_EQ(on_port1, 3);

	/* FRR wins over static for the same prefix; withdrawing it brings static back. */
	CHECK_EQ(rib_route_set(rib, IP(10, 20, 0, 0), 24, RIB_SRC_FRR, NH_BLACKHOLE, NULL, 0), 0);
	CHECK_EQ(lookup_nh(&dp, IP(10, 20, 0, 7), 0)->type, NH_BLACKHOLE);
	CHECK_EQ(rib_route_best(rib, IP(10, 20, 0, 0), 24), RIB_SRC_FRR);
	CHECK_EQ(rib_route_del(rib, IP(10, 20, 0, 0), 24, RIB_SRC_FRR), 0);
	CHECK_EQ(lookup_nh(&dp, IP(10, 20, 0, 7), 0)->type, NH_GATEWAY);
	CHECK_EQ(rib_route_del(rib, IP(10, 20, 0, 0), 24, RIB_SRC_FRR), -ENOENT);

	/* Deleting everything releases next hops and groups, reusable after reclaim. */
	rib_get_counts(rib, &rc);
	uint64_t nh_before = rc.nexthops;
	CHECK_EQ(rib_route_del(rib, IP(10, 99, 0, 0), 24, RIB_SRC_STATIC), 0);
	CHECK_EQ(rib_route_del(rib, IP(10, 98, 0, 0), 24, RIB_SRC_STATIC), 0);
	CHECK_EQ(rib_route_del(rib, IP(10, 97, 0, 0), 24, RIB_SRC_STATIC), 0);
	CHECK_EQ(fib4_lookup(dp.fib, IP(10, 99, 0, 1)), 0);
	rib_get_counts(rib, &rc);
	CHECK_EQ(rc.nexthops,
	         nh_before - 1); /* 10.0.1.2 is gone, 10.0.2.2 still used by 10.20/24 */
	CHECK(rib_reclaim_pending(rib));
	rib_reclaim(rib);
	CHECK(!rib_reclaim_pending(rib));
	CHECK_EQ(rc.routes[RIB_SRC_STATIC], 1);
	CHECK_EQ(rc.routes[RIB_SRC_CONNECTED], 2);

	/* Many routes: the hash grows and every one stays reachable. */
	for (uint32_t i = 0; i < 300000; i++)
		rib_route_set(rib, IP(100, 0, 0, 0) + (i << 8), 24, RIB_SRC_STATIC, NH_BLACKHOLE,
		              NULL, 0);
	unsigned found = 0;
	for (uint32_t i = 0; i < 300000; i++)
		found += rib_route_best(rib, IP(100, 0, 0, 0) + (i << 8), 24) == RIB_SRC_STATIC;
	CHECK_EQ(found, 300000);

	/*
	 * Deleting every third route moves later entries of a probe run back
	 * into the hole; everything left must still be found, nothing deleted.
	 */
	for (uint32_t i = 0; i < 300000; i += 3)
		CHECK_EQ(rib_route_del(rib, IP(100, 0, 0, 0) + (i << 8), 24, RIB_SRC_STATIC), 0);
	unsigned kept = 0, gone = 0;
	for (uint32_t i = 0; i < 300000; i++) {
		int best = rib_route_best(rib, IP(100, 0, 0, 0) + (i << 8), 24);
		kept += i % 3 && best == RIB_SRC_STATIC;
		gone += !(i % 3) && best == -1;
	}
	CHECK_EQ(kept, 200000);
	CHECK_EQ(gone, 100000);
	CHECK_EQ(fib4_lookup(dp.fib, IP(100, 0, 3, 1)) == 0, 1);
	CHECK(fib4_lookup(dp.fib, IP(100, 0, 4, 1)) != 0);

	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_rib");
}

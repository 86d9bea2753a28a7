/* SPDX-License-Identifier: BSD-2-Clause */
/* The RIB: source preference, gateway resolution, ECMP groups, reference counts, reclaim. */
#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"
#include "daemon/rib.h"
#include "tests/unit/fib_env.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define SEED           0x0002aabbccddeeffull

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return SEED;
}

static const struct nexthop *lookup_nh(struct dataplane *dp, uint32_t addr, unsigned slot)
{
	uint32_t g = fib_lookup(&dp->fib, addr);
	return g ? &dp->nht->nh[dp->nht->nhg[g].slot[slot]] : NULL;
}

struct walk_log {
	uint64_t keys[4096];
	unsigned n;
	bool ordered;
};

static void walk_log(void *arg, const struct rib_entry *e)
{
	struct walk_log *w = arg;
	uint64_t k = rib_key(e->prefix, e->len);

	w->ordered &= w->n == 0 || w->keys[w->n - 1] < k;
	if (w->n < 4096)
		w->keys[w->n++] = k;
}

static bool logged(const struct walk_log *w, uint64_t k)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->keys[i] == k)
			return true;
	return false;
}

/*
 * The route list's cursor: prefix order, ranges of "P and everything more
 * specific", counts and skips, and a walk in slices surviving changes made
 * between the slices (what a streamed GET of a million routes sees).
 */
static void test_order(struct rib *rib)
{
	struct walk_log w = {.ordered = true};
	uint64_t from = rib_key(IP(20, 0, 0, 0), 8), to = rib_key(IP(20, 255, 255, 255), 32);
	struct rib_entry e;

	for (uint32_t i = 0; i < 1000; i++)
		CHECK_EQ(rib_route_set(rib, IP(20, i >> 8, i & 255, 0), 24, RIB_SRC_STATIC,
		                       NH_BLACKHOLE, NULL, 0),
		         0);
	CHECK_EQ(rib_route_set(rib, IP(20, 0, 0, 0), 8, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0), 0);
	CHECK_EQ(rib_route_set(rib, IP(20, 0, 0, 0), 16, RIB_SRC_STATIC, NH_UNREACHABLE, NULL, 0),
	         0);
	CHECK_EQ(rib_route_set(rib, IP(21, 0, 0, 0), 8, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0), 0);
	CHECK_EQ(rib_route_set(rib, IP(16, 0, 0, 0), 4, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0), 0);
	/* 20/8 and more specifics: 1002 routes, not 16/4 (shorter) nor 21/8 (outside). */
	CHECK_EQ(rib_count_range(rib, from, to), 1002);
	CHECK(rib_route_get(rib, IP(20, 0, 0, 0), 16, &e) && e.type == NH_UNREACHABLE &&
	      e.source == RIB_SRC_STATIC);
	CHECK(!rib_route_get(rib, IP(20, 0, 0, 0), 17, &e));
	/* Order: 20/8, 20.0/16, 20.0.0/24, 20.0.1/24, ... */
	CHECK_EQ(rib_skip_range(rib, from, to, 0), from);
	CHECK_EQ(rib_skip_range(rib, from, to, 1), rib_key(IP(20, 0, 0, 0), 16));
	CHECK_EQ(rib_skip_range(rib, from, to, 3), rib_key(IP(20, 0, 1, 0), 24));
	CHECK_EQ(rib_skip_range(rib, from, to, 1001), rib_key(IP(20, 3, 231, 0), 24));
	CHECK_EQ(rib_skip_range(rib, from, to, 1002), to + 1);

	/* Slices of 7; between slices, delete the next route and one already seen, add one
	 * ahead and one behind. */
	unsigned slices = 0;
	uint64_t cur = from;
	while (rib_walk_range(rib, &cur, to, 7, walk_log, &w) == 7) {
		slices++;
		uint64_t next = rib_skip_range(rib, cur, to, 0);
		uint32_t seen = (uint32_t)(w.keys[0] >> 8);
		if (slices == 10) {
			CHECK_EQ(next & 0xff, 24);
			CHECK_EQ(rib_route_del(rib, (uint32_t)(next >> 8), 24, RIB_SRC_STATIC), 0);
			CHECK(!logged(&w, next));
			CHECK_EQ(rib_route_del(rib, seen, 8, RIB_SRC_STATIC), 0);
			rib_route_set(rib, IP(20, 3, 200, 128), 25, RIB_SRC_STATIC, NH_BLACKHOLE,
			              NULL, 0);
			rib_route_set(rib, IP(20, 0, 0, 128), 25, RIB_SRC_STATIC, NH_BLACKHOLE,
			              NULL, 0);
		}
	}
	CHECK(w.ordered);
	CHECK_EQ(cur, to + 1);
	/* 1002 - 1 deleted ahead + 1 added ahead; 20/8 seen before its delete; the one added behind
	 * the cursor is not seen. */
	CHECK_EQ(w.n, 1002);
	CHECK(logged(&w, rib_key(IP(20, 3, 200, 128), 25)));
	CHECK(!logged(&w, rib_key(IP(20, 0, 0, 128), 25)));
	CHECK(logged(&w, from));
	CHECK_EQ(rib_count_range(rib, from, to), 1002); /* -2 deleted, +2 added */
	/* A range with nothing in it, and an empty one. */
	cur = rib_key(IP(30, 0, 0, 0), 8);
	CHECK_EQ(rib_walk_range(rib, &cur, rib_key(IP(30, 255, 255, 255), 32), 7, walk_log, &w), 0);
	CHECK_EQ(rib_count_range(rib, to, from), 0);
}

int main(void)
{
	static struct dataplane dp;
	struct rib_counts rc;

	CHECK_EQ(dp_init(&dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256}), 0);
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
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 30, 0, 1)), 0);
	CHECK_EQ(rib_route_set(rib, IP(10, 0, 0, 1), 24, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0),
	         -EINVAL);

	/* ECMP: the same set in another order shares one group; weights become slots. */
	struct rib_path two[2] = {{IP(10, 0, 1, 2), -1, 1}, {IP(10, 0, 2, 2), -1, 1}};
	struct rib_path owt[2] = {{IP(10, 0, 2, 2), -1, 1}, {IP(10, 0, 1, 2), -1, 1}};
	CHECK_EQ(rib_route_set(rib, IP(10, 99, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, two, 2), 0);
	CHECK_EQ(rib_route_set(rib, IP(10, 98, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, owt, 2), 0);
	uint32_t g1 = fib_lookup(&dp.fib, IP(10, 99, 0, 1)),
	         g2 = fib_lookup(&dp.fib, IP(10, 98, 0, 1));
	CHECK(g1 != 0 && g1 == g2);
	CHECK_EQ(dp.nht->nhg[g1].nslots, 2);
	struct rib_path wtd[2] = {{IP(10, 0, 1, 2), -1, 1}, {IP(10, 0, 2, 2), -1, 3}};
	CHECK_EQ(rib_route_set(rib, IP(10, 97, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, wtd, 2), 0);
	uint32_t g3 = fib_lookup(&dp.fib, IP(10, 97, 0, 1));
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
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 99, 0, 1)), 0);
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
	CHECK_EQ(fib_lookup(&dp.fib, IP(100, 0, 3, 1)) == 0, 1);
	CHECK(fib_lookup(&dp.fib, IP(100, 0, 4, 1)) != 0);

	test_order(rib);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_rib");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 routes into the FIB6 (daemon/rib6.c): source preference, gateways
 * found on connected prefixes, next hops and groups shared with the IPv4
 * RIB's tables (and kept apart by address), neighbour state published,
 * deletes falling back, and freed ids held for the grace period; and what
 * the configuration puts there (daemon/routes6.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "daemon/rib6.h"
#include "daemon/routes6.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"

static struct dataplane dp;
static struct rib *rib;
static struct rib6 *r6;
static const uint8_t mac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};

static uint64_t seed(void *arg, uint16_t port, const uint8_t ip[16])
{
	(void)arg;
	(void)port;
	/* 2001:db8:1::2 is known already: its next hop starts resolved. */
	return memcmp(ip, a6("2001:db8:1::2"), 16) ? 0 : nh_l2_pack(mac, NEIGH_REACHABLE);
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* The first next hop the FIB6 gives for addr (NULL: no route), and its id. */
static const struct nexthop *lookup(const char *addr, uint32_t *id)
{
	uint32_t g = fib6_lookup(dp.fib6, a6(addr));

	if (!g)
		return NULL;
	*id = dp.nht->nhg[g].slot[0];
	return &dp.nht->nh[*id];
}

static void test_connected_and_static(void)
{
	struct rib6_path on1 = {.port = 1, .weight = 1};
	struct rib6_path gw = {.port = -1, .weight = 1};
	const struct nexthop *nh;
	uint32_t id, id2;

	memcpy(gw.gw, a6("2001:db8:1::2"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:1::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &on1, 1),
	         0);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:1::1"), 128, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0), 0);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:20::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1),
	         0);
	nh = lookup("2001:db8:1::99", &id);
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 1);
	nh = lookup("2001:db8:1::1", &id);
	CHECK(nh && nh->type == NH_LOCAL);
	nh = lookup("2001:db8:20::5", &id);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1); /* port found on the prefix */
	CHECK(!memcmp(dp.nht->gw6[id], gw.gw, 16));
	CHECK_EQ(nh->l2, nh_l2_pack(mac, NEIGH_REACHABLE)); /* seeded */
	CHECK(rib6_nh_gateway_exists(r6, 1, gw.gw));
	CHECK(!rib6_nh_gateway_exists(r6, 0, gw.gw));
	CHECK(lookup("2001:db9::1", &id) == NULL);

	/* A second route through the same gateway shares its next hop. */
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:21::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1),
	         0);
	lookup("2001:db8:21::1", &id2);
	CHECK_EQ(id2, id);

	/* A gateway off every connected prefix: the path is skipped, the route refused. */
	struct rib6_path far = {.port = -1, .weight = 1};
	memcpy(far.gw, a6("2001:db8:99::1"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:22::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &far, 1),
	         -ENETUNREACH);
	CHECK(lookup("2001:db8:22::1", &id) == NULL);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:1::1"), 64, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0),
	         -EINVAL); /* host bits */
}

static void test_preference_and_delete(void)
{
	struct rib6_path a = {.port = 1, .weight = 1}, b = {.port = 1, .weight = 1};
	const struct nexthop *nh;
	uint32_t id;

	memcpy(a.gw, a6("2001:db8:1::a"), 16);
	memcpy(b.gw, a6("2001:db8:1::b"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:30::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &a, 1), 0);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:30::"), 48, RIB_SRC_FRR, NH_GATEWAY, &b, 1), 0);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:30::"), 48), RIB_SRC_FRR); /* FRR wins */
	nh = lookup("2001:db8:30::1", &id);
	CHECK(nh && !memcmp(dp.nht->gw6[id], b.gw, 16));
	CHECK_EQ(nh->l2, 0); /* unresolved */
	rib6_nh_l2_update(r6, 1, b.gw, nh_l2_pack(mac, NEIGH_REACHABLE));
	CHECK_EQ(nh->l2, nh_l2_pack(mac, NEIGH_REACHABLE));
	CHECK(!rib_reclaim_pending(rib));
	CHECK_EQ(rib6_route_del(r6, a6("2001:db8:30::"), 48, RIB_SRC_FRR), 0);
	nh = lookup("2001:db8:30::1", &id);
	CHECK(nh && !memcmp(dp.nht->gw6[id], a.gw, 16)); /* back to static */
	CHECK(rib_reclaim_pending(rib));                 /* b's next hop and group wait */
	rib_reclaim(rib);
	CHECK_EQ(rib6_route_del(r6, a6("2001:db8:30::"), 48, RIB_SRC_FRR), -ENOENT);
	CHECK_EQ(rib6_route_del(r6, a6("2001:db8:30::"), 48, RIB_SRC_STATIC), 0);
	CHECK(lookup("2001:db8:30::1", &id) == NULL);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:30::"), 48), -1);

	uint64_t routes[RIB_SRC__MAX], errors;
	rib6_get_counts(r6, routes, &errors);
	CHECK_EQ(routes[RIB_SRC_STATIC], 2);
	CHECK_EQ(routes[RIB_SRC_FRR], 0);
	CHECK_EQ(errors, 0);
}

/* ECMP over two IPv6 gateways; an IPv4 route keeps its own next hops beside them. */
static void test_ecmp_and_ipv4(void)
{
	struct rib6_path two[2] = {{.port = 1, .weight = 1}, {.port = 1, .weight = 1}};
	struct rib_path p4 = {.gw = 0x0a000202, .port = 1, .weight = 1};
	uint32_t g;

	memcpy(two[0].gw, a6("2001:db8:1::c"), 16);
	memcpy(two[1].gw, a6("2001:db8:1::d"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("::"), 0, RIB_SRC_STATIC, NH_GATEWAY, two, 2), 0);
	g = fib6_lookup(dp.fib6, a6("2a00::1"));
	CHECK(g != 0);
	CHECK_EQ(dp.nht->nhg[g].npaths, 2);
	CHECK(memcmp(dp.nht->gw6[dp.nht->nhg[g].slot[0]], dp.nht->gw6[dp.nht->nhg[g].slot[1]],
	             16) != 0);
	CHECK_EQ(rib_route_set(rib, 0x0a140000, 16, RIB_SRC_STATIC, NH_GATEWAY, &p4, 1), 0);
	uint32_t g4 = fib_lookup(&dp.fib, 0x0a140001);
	CHECK(g4 != 0 && g4 != g);
	CHECK_EQ(dp.nht->nh[dp.nht->nhg[g4].slot[0]].gw, 0x0a000202);
	CHECK(rib_nh_gateway_exists(rib, 1, 0x0a000202));
	CHECK(!rib6_nh_gateway_exists(r6, 1, a6("::a00:202")));
}

/* port/ipv6 and static-route6 of a configuration, into the FIB6 (routes6.c). */
static void test_config_routes(void)
{
	static struct cfg cfg;
	static struct cfg_route6 r[4];
	const struct nexthop *nh;
	uint32_t id;

	cfg.nports = 2;
	snprintf(cfg.ports[0].name, sizeof(cfg.ports[0].name), "eth0");
	snprintf(cfg.ports[1].name, sizeof(cfg.ports[1].name), "eth1");
	cfg.ports[0].naddrs6 = 1;
	memcpy(cfg.ports[0].addrs6[0].addr, a6("2001:db8:40::1"), 16);
	cfg.ports[0].addrs6[0].plen = 64;
	/* a /128 needs no connected route */
	memcpy(r[0].prefix, a6("2001:db8:41::"), 16);
	r[0].plen = 48;
	r[0].nnexthops = 1;
	memcpy(r[0].nexthops[0].gateway, a6("2001:db8:40::9"), 16);
	memcpy(r[1].prefix, a6("2001:db8:42::"), 16); /* on-link out of eth0 */
	r[1].plen = 64;
	r[1].nnexthops = 1;
	snprintf(r[1].nexthops[0].port, sizeof(r[1].nexthops[0].port), "eth0");
	memcpy(r[2].prefix, a6("2001:db8:43::"), 16);
	r[2].plen = 48;
	r[2].action = CFG_ROUTE_UNREACHABLE;
	memcpy(r[3].prefix, a6("2001:db8:44::"), 16); /* eth1 has no IPv6: refused */
	r[3].plen = 48;
	r[3].nnexthops = 1;
	snprintf(r[3].nexthops[0].port, sizeof(r[3].nexthops[0].port), "eth1");
	cfg.routes6 = r;
	cfg.nroutes6 = 4;
	routes6_ports_setup(&dp, &cfg);
	CHECK(dp.ports[0].ip6 && !dp.ports[1].ip6);
	CHECK(port_ip6_src(&dp.ports[0]) &&
	      !memcmp(port_ip6_src(&dp.ports[0]), a6("2001:db8:40::1"), 16));
	CHECK(port_ip6_src(&dp.ports[1]) == NULL);
	CHECK_EQ(routes6_apply_config(r6, &dp, &cfg), 1);
	nh = lookup("2001:db8:40::1", &id);
	CHECK(nh && nh->type == NH_LOCAL);
	nh = lookup("2001:db8:40::77", &id);
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 0);
	nh = lookup("2001:db8:41::1", &id);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 0);
	CHECK(!memcmp(dp.nht->gw6[id], a6("2001:db8:40::9"), 16));
	nh = lookup("2001:db8:42::1", &id);
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 0);
	nh = lookup("2001:db8:43::1", &id);
	CHECK(nh && nh->type == NH_UNREACHABLE);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:44::"), 48), -1);
}

enum { WALK_N = 16000, WALK_NEW = 24000 };

struct walk_seen {
	unsigned n;
	uint8_t *count; /* visits per route index */
	unsigned nidx;
	const uint8_t *want; /* walk_find: the prefix looked for */
	uint8_t want_len;
	struct rib6_entry found;
	bool got;
};

/* Route i of the walk tests: 2001:db8:8000::/33 + i, a /64 each. */
static void walk_prefix(unsigned i, uint8_t p[16])
{
	memcpy(p, a6("2001:db8:8000::"), 16);
	p[4] = (uint8_t)(0x80 | i >> 16);
	p[5] = (uint8_t)(i >> 8);
	p[6] = (uint8_t)i;
}

static void walk_count(void *arg, const struct rib6_entry *e)
{
	struct walk_seen *w = arg;
	uint8_t base[16];
	unsigned i;

	w->n++;
	walk_prefix(0, base);
	CHECK(e->len == 64 && !memcmp(e->prefix, base, 4) && (e->prefix[4] & 0x80));
	i = (unsigned)(e->prefix[4] & 0x7f) << 16 | (unsigned)e->prefix[5] << 8 | e->prefix[6];
	CHECK(i < w->nidx);
	if (i < w->nidx && w->count[i] < 255)
		w->count[i]++;
	CHECK(e->source == RIB_SRC_STATIC && e->type == NH_BLACKHOLE && e->npaths == 1);
}

static void walk_find(void *arg, const struct rib6_entry *e)
{
	struct walk_seen *w = arg;

	if (e->len == w->want_len && !memcmp(e->prefix, w->want, 16)) {
		w->found = *e;
		w->got = true;
	}
}

/* Every installed route, in order: each key above the one before (address, then length). */
static void walk_all(struct rib6 *t, rib6_walk_fn fn, void *arg)
{
	struct rib6_key from = {0}, to = RIB6_KEY_MAX;

	while (rib6_walk_range(t, &from, &to, 64, fn, arg) == 64)
		;
}

struct walk_last {
	unsigned n;
	struct rib6_key last;
};

static void walk_order(void *arg, const struct rib6_entry *e)
{
	struct walk_last *w = arg;
	struct rib6_key k = rib6_key_of(e->prefix, e->len);

	CHECK(w->n++ == 0 || rib6_key_cmp(&w->last, &k) < 0);
	w->last = k;
}

/* What a walk reports of a route: its source, type, gateways and ports; the prefix order. */
static void test_walk_entries(void)
{
	struct walk_seen w = {.want = a6("2001:db8:20::"), .want_len = 48};
	struct walk_last last = {0};
	static const uint8_t zero[16];

	walk_all(r6, walk_find, &w);
	CHECK(w.got && w.found.source == RIB_SRC_STATIC && w.found.type == NH_GATEWAY);
	CHECK(w.found.npaths == 1 && w.found.paths[0].port == 1 && w.found.paths[0].weight == 1);
	CHECK(!memcmp(w.found.paths[0].gw, a6("2001:db8:1::2"), 16));
	w = (struct walk_seen){.want = a6("2001:db8:1::"), .want_len = 64};
	walk_all(r6, walk_find, &w);
	CHECK(w.got && w.found.source == RIB_SRC_CONNECTED && w.found.type == NH_GLEAN);
	CHECK(w.found.npaths == 1 && w.found.paths[0].port == 1);
	CHECK(!memcmp(w.found.paths[0].gw, zero, 16));
	walk_all(r6, walk_order, &last);
	CHECK(last.n >= 5);
}

/* The route6 list's slices: `max` routes a call but the last, in order, every route once. */
static void test_walk_slices(struct rib6 *t, struct walk_seen *w)
{
	enum { MAX = 256 };
	struct rib6_key from = {0}, to = RIB6_KEY_MAX;
	struct walk_last last = {0};
	unsigned calls = 0, n;

	do {
		n = rib6_walk_range(t, &from, &to, MAX, walk_count, w);
		calls++;
	} while (n == MAX);
	CHECK_EQ(w->n, WALK_N);
	CHECK_EQ(calls, WALK_N / MAX + 1);
	for (unsigned i = 0; i < WALK_N; i++)
		CHECK(w->count[i] == 1);
	CHECK_EQ(rib6_walk_range(t, &from, &to, MAX, walk_count, w), 0); /* past the end */
	walk_all(t, walk_order, &last);
	CHECK_EQ(last.n, WALK_N);
}

/* The route table's bytes without its prefix order's (which only grows with the routes). */
static uint64_t hash_bytes(const struct rib6 *t)
{
	return rib6_memory(t) - rib6_order_bytes(t);
}

/*
 * With the table changing between slices: a quarter of the way through,
 * the odd routes go and new ones come until the hash table is growing
 * (32768 slots to 65536, a few slots moved per insert); then 200 more a
 * slice, so slices run with two tables, and after the growth is done.
 * Every route present throughout is seen exactly once, none twice (the
 * cursor is a key, not a slot); the new ones (all above the cursor once
 * a quarter is done, walk_prefix) are seen too.
 */
static void test_walk_growth(struct rib6 *t, struct walk_seen *w)
{
	/* 8000 left + 16577 new: one over 3/4 of 32768 slots; 424 inserts of growth after. */
	enum { MAX = 256, FIRST = 17000 };
	struct rib6_key from = {0}, to = RIB6_KEY_MAX;
	uint64_t mem0 = hash_bytes(t), mem_growing = 0;
	unsigned next = WALK_N, slices_growing = 0, slices_after = 0;
	uint8_t p[16];

	memset(w->count, 0, w->nidx);
	w->n = 0;
	while (rib6_walk_range(t, &from, &to, MAX, walk_count, w) == MAX) {
		if (w->n < WALK_N / 4)
			continue;
		if (next == WALK_N) {
			for (unsigned i = 1; i < WALK_N; i += 2) {
				walk_prefix(i, p);
				CHECK_EQ(rib6_route_del(t, p, 64, RIB_SRC_STATIC), 0);
			}
		}
		unsigned add = next == WALK_N ? FIRST : 200;
		for (unsigned k = 0; k < add && next < WALK_N + WALK_NEW; k++, next++) {
			walk_prefix(next, p);
			CHECK_EQ(rib6_route_set(t, p, 64, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0),
			         0);
		}
		/* Two tables while growing: the old one's bytes on top of twice the size. */
		if (hash_bytes(t) > 2 * mem0) {
			mem_growing = hash_bytes(t);
			slices_growing++;
		} else if (mem_growing) {
			slices_after++;
		}
	}
	CHECK(slices_growing >= 2 && slices_after >= 2);
	CHECK(hash_bytes(t) < mem_growing);
	CHECK_EQ(rib6_installed(t), WALK_N / 2 + (next - WALK_N));
	for (unsigned i = 0; i < WALK_N; i += 2)
		CHECK(w->count[i] == 1);
	for (unsigned i = 1; i < WALK_N; i += 2)
		CHECK(w->count[i] <= 1); /* seen before the cursor passed it, or deleted */
	for (unsigned i = WALK_N; i < WALK_N + WALK_NEW; i++)
		CHECK(w->count[i] == 1); /* added above the cursor */
}

/*
 * Ranges, counts and skips (what RESTCONF's prefix, longer, offset and
 * Cellgate-Next-Cursor use): of the routes test_walk_growth leaves, all
 * but every 1600th deleted; then a /33 over them and a /64 inside it.
 */
static void test_walk_ranges(struct rib6 *t, struct walk_seen *w)
{
	struct rib6_key from = {0}, to = RIB6_KEY_MAX, k, lo, hi;
	uint8_t p[16];

	for (unsigned i = 0; i < WALK_N + WALK_NEW; i++) {
		walk_prefix(i, p);
		if (i % 1600 && rib6_route_best(t, p, 64) >= 0)
			CHECK_EQ(rib6_route_del(t, p, 64, RIB_SRC_STATIC), 0);
		/* No reader runs: the FIB6's replaced arrays are free at once. */
		if (i % 256 == 255)
			fib6_reclaim(dp.fib6);
	}
	memset(w->count, 0, w->nidx);
	w->n = 0;
	CHECK_EQ(rib6_walk_range(t, &from, &to, 64, walk_count, w), 25);
	for (unsigned i = 0; i < WALK_N + WALK_NEW; i++)
		CHECK(w->count[i] == (i % 1600 == 0));
	CHECK_EQ(rib6_count_range(t, &(struct rib6_key){0}, &to), 25);
	/* The 10th after the first: route 16000; past the 25th, nothing. */
	CHECK(rib6_skip_range(t, &(struct rib6_key){0}, &to, 10, &k));
	walk_prefix(16000, p);
	lo = rib6_key_of(p, 64);
	CHECK(rib6_key_cmp(&k, &lo) == 0);
	CHECK(!rib6_skip_range(t, &(struct rib6_key){0}, &to, 25, &k));
	/* 2001:db8:8000::/33 and everything inside: [its key, its last address /128]. */
	walk_prefix(0, p);
	lo = rib6_key_of(p, 33);
	hi = (struct rib6_key){.hi = lo.hi | 0x7fffffffu, .lo = UINT64_MAX, .len = 128};
	CHECK_EQ(rib6_count_range(t, &lo, &hi), 25);
	CHECK_EQ(rib6_count_range(t, &hi, &lo), 0);
	CHECK(!rib6_skip_range(t, &hi, &lo, 0, &k));
	walk_prefix(1600, p);
	lo = hi = rib6_key_of(p, 64);
	CHECK_EQ(rib6_count_range(t, &lo, &hi), 1);
	memset(w->count, 0, w->nidx);
	CHECK_EQ(rib6_walk_range(t, &lo, &hi, 64, walk_count, w), 1);
	CHECK(w->count[1600] == 1);
}

static void test_walk(void)
{
	static uint8_t count[WALK_N + WALK_NEW];
	struct rib6 *t = rib6_new(rib, NULL, NULL);
	struct walk_seen w = {.count = count, .nidx = WALK_N + WALK_NEW};
	uint8_t p[16];

	CHECK(t != NULL);
	for (unsigned i = 0; i < WALK_N; i++) {
		walk_prefix(i, p);
		CHECK_EQ(rib6_route_set(t, p, 64, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0), 0);
	}
	CHECK_EQ(rib6_installed(t), WALK_N);
	test_walk_slices(t, &w);
	test_walk_growth(t, &w);
	test_walk_ranges(t, &w);
	/* Its routes stay in the FIB6 until dp_fini: the last test, they stand in no one's way. */
	rib6_free(t);
}

int main(void)
{
	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 2;
	rib = rib_new(&dp, no_seed, NULL);
	r6 = rib6_new(rib, seed, NULL);
	CHECK(rib && r6);
	test_connected_and_static();
	test_preference_and_delete();
	test_ecmp_and_ipv4();
	test_config_routes();
	test_walk_entries();
	test_walk();
	rib6_free(r6);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_rib6");
}

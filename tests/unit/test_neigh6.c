/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 neighbour resolution (daemon/neigh6.c) driving RFC 4861 §7.3 NUD
 * (datapath/nd_nud.c) with a clock the test owns: the solicitations it sends
 * (§7.2.2: to the solicited-node group, from the port's address, with our
 * link-layer address; unicast in PROBE), every state change of Appendix C
 * (INCOMPLETE -> REACHABLE -> STALE -> DELAY -> PROBE -> REACHABLE or
 * deleted), what the workers see meanwhile (forwarding goes on in STALE,
 * DELAY and PROBE, §7.3.3), §7.2.5's advertisement table (R, S, O against
 * the cached address), §7.2.3's solicitation rule, failure and forgetting,
 * and what it refuses to learn.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/neigh6.h"
#include "datapath/icmp6.h"
#include "datapath/nd.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"

#define S ND_NA_SOLICITED
#define O ND_NA_OVERRIDE
#define R ND_NA_ROUTER

static struct dataplane dp;
static struct cfg cfg;
static struct rib *rib;
static struct rib6 *r6;
static struct neigh6_table *nt;
static const uint8_t peer_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x05};
static const uint8_t new_mac[6] = {0x02, 0xcc, 0, 0, 0, 0x06};
static uint32_t rnd_value = 0x80000000u; /* ReachableTime = the base exactly */

static struct {
	unsigned n;
	uint16_t port;
	uint8_t frame[ND_FRAME_MAX];
	uint32_t len;
} sent;

static int capture(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	(void)arg;
	sent.n++;
	sent.port = port;
	memcpy(sent.frame, frame, len);
	sent.len = len;
	return 0;
}

static uint32_t fixed_rnd(void)
{
	return rnd_value;
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* The last frame sent is a solicitation for `target`, multicast or unicast to `mac`. */
static void check_ns(const char *target, const uint8_t *mac)
{
	struct nd_msg m;
	uint8_t group[16], gmac[6];

	CHECK_EQ(sent.port, 1);
	CHECK_EQ(nd_parse(sent.frame + 14, sent.len - 14, &m), ND_OK);
	CHECK_EQ(m.type, ICMP6_NEIGH_SOL);
	CHECK(!memcmp(m.target, a6(target), 16));
	CHECK(!memcmp(m.src, port_ip6_src(&dp.ports[1]), 16));
	CHECK(m.has_lla && !memcmp(m.lla, dp.ports[1].mac, 6));
	CHECK(!memcmp(sent.frame + 6, dp.ports[1].mac, 6));
	nd_solicited_node(a6(target), group);
	nd_mcast_mac(group, gmac);
	if (mac) {
		CHECK(!memcmp(m.dst, a6(target), 16));
		CHECK(!memcmp(sent.frame, mac, 6));
	} else {
		CHECK(!memcmp(m.dst, group, 16));
		CHECK(!memcmp(sent.frame, gmac, 6));
	}
}

static const struct nexthop *route_nh(const char *addr)
{
	uint32_t g = fib6_lookup(dp.fib6, a6(addr));

	return g ? &dp.nht->nh[dp.nht->nhg[g].slot[0]] : NULL;
}

static const char *state(const char *addr, uint8_t mac[6])
{
	uint8_t m[6];

	return neigh6_state(nt, 1, a6(addr), mac ? mac : m);
}

#define CHECK_STATE(addr, name) CHECK(!strcmp(state(addr, NULL), name))

static void na(const char *addr, const uint8_t *tlla, uint8_t flags, uint64_t now)
{
	neigh6_seen(nt, 1, a6(addr), tlla, ICMP6_NEIGH_ADV, flags, now);
}

/* What a worker does when it forwards through a NEIGH_STALE next hop. */
static void worker_sends(const char *dst)
{
	struct nexthop *nh = (struct nexthop *)route_nh(dst);
	uint64_t l2 = __atomic_load_n(&nh->l2, __ATOMIC_ACQUIRE);

	CHECK(nh_l2_usable(l2));
	if (nh_l2_state(l2) == NEIGH_STALE)
		nh_l2_mark_used(nh, l2);
}

static void test_reachable_time(void)
{
	/* §6.3.2: uniformly in [MIN_RANDOM_FACTOR, MAX_RANDOM_FACTOR] times the base. */
	rnd_value = 0;
	neigh6_set_random(nt, fixed_rnd);
	CHECK_EQ(neigh6_reachable_ms(nt, 1), 150000);
	rnd_value = 0xffffffffu;
	neigh6_set_random(nt, fixed_rnd);
	CHECK(neigh6_reachable_ms(nt, 1) >= 449999 && neigh6_reachable_ms(nt, 1) < 450000);
	/* Per port (§6.3.2 keeps them per interface): eth0 has RFC 4861 §10's default base. */
	CHECK(neigh6_reachable_ms(nt, 0) >= 44999 && neigh6_reachable_ms(nt, 0) < 45000);
	/* A new base-reachable-time (runtime change) is drawn from at the next tick. */
	rnd_value = 0x80000000u;
	cfg.ports[1].nd_reachable_ms = 20000;
	neigh6_timer(nt, 500);
	CHECK_EQ(neigh6_reachable_ms(nt, 1), 20000);
	cfg.ports[1].nd_reachable_ms = 300000;
	neigh6_timer(nt, 600);
	CHECK_EQ(neigh6_reachable_ms(nt, 1), 300000);
	/* arp-timeout is IPv4's only now. */
	cfg.arp_timeout_s = 20;
	neigh6_timer(nt, 700);
	CHECK_EQ(neigh6_reachable_ms(nt, 1), 300000);
	cfg.arp_timeout_s = 300;
}

/* RetransTimer (port/ipv6/nd/retrans-timer): the spacing of INCOMPLETE's solicitations. */
static void test_retrans_timer(void)
{
	const char *h = "2001:db8:1::44";
	uint64_t t = 40000000;
	unsigned n0 = sent.n;

	cfg.ports[1].nd_retrans_ms = 2500;
	neigh6_timer(nt, t);
	neigh6_resolve(nt, 1, a6(h), t);
	CHECK_EQ(sent.n, n0 + 1);
	neigh6_timer(nt, t + 1100); /* the 1 s default would have sent again */
	CHECK_EQ(sent.n, n0 + 1);
	neigh6_timer(nt, t + 2500);
	CHECK_EQ(sent.n, n0 + 2);
	check_ns(h, NULL);
	neigh6_timer(nt, t + 5000);
	CHECK_EQ(sent.n, n0 + 3);
	neigh6_timer(nt, t + 7500); /* arp-retries (3) sent: failed */
	CHECK_EQ(sent.n, n0 + 3);
	CHECK_STATE(h, "failed");
	cfg.ports[1].nd_retrans_ms = 0; /* unset: the default */
	neigh6_timer(nt, t + 7600);
}

/* Appendix C from INCOMPLETE through every state, on a host of a connected prefix. */
static void test_on_link_host(void)
{
	const char *h = "2001:db8:1::5";
	const struct nexthop *nh;
	uint64_t t = 1000;

	neigh6_resolve(nt, 1, a6(h), t);
	CHECK_EQ(sent.n, 1);
	check_ns(h, NULL);
	CHECK_STATE(h, "incomplete");
	nh = route_nh(h);
	CHECK(nh && nh->type == NH_GLEAN); /* no host route while incomplete */
	neigh6_resolve(nt, 1, a6(h), t + 100);
	CHECK_EQ(sent.n, 1); /* one solicitation per second, not per held packet */
	na(h, peer_mac, S | O, t + 200);
	t += 200;
	nh = route_nh(h);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1);
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_REACHABLE));
	CHECK_EQ(rib6_route_best(r6, a6(h), 128), RIB_SRC_NEIGH);
	CHECK_STATE(h, "reachable");

	/* Lowering base-reachable-time shortens a running ReachableTime; raising it does not. */
	cfg.ports[1].nd_reachable_ms = 10000;
	neigh6_timer(nt, t + 1000);
	cfg.ports[1].nd_reachable_ms = 300000;
	neigh6_timer(nt, t + 2000);
	CHECK_STATE(h, "reachable");
	neigh6_timer(nt, t + 11000);
	CHECK_STATE(h, "stale");
	na(h, peer_mac, S, t + 12000);
	t += 12000;
	CHECK_STATE(h, "reachable");

	/* ReachableTime (300 s here) passes: STALE, still forwarded to, no solicitation. */
	neigh6_timer(nt, t + 299900);
	CHECK_STATE(h, "reachable");
	neigh6_timer(nt, t + 300000);
	CHECK_STATE(h, "stale");
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_STALE));
	neigh6_timer(nt, t + 900000); /* no traffic: stale for good (§7.3.3) */
	CHECK_STATE(h, "stale");
	CHECK_EQ(sent.n, 1);

	/* A packet goes out: DELAY at the next tick, PROBE 5 s on with a unicast NS. */
	t += 900000;
	worker_sends(h);
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_STALE_USED));
	neigh6_timer(nt, t + 100);
	CHECK_STATE(h, "delay");
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_REACHABLE));
	neigh6_timer(nt, t + 5000);
	CHECK_STATE(h, "delay");
	CHECK_EQ(sent.n, 1);
	neigh6_timer(nt, t + 5100);
	CHECK_STATE(h, "probe");
	CHECK_EQ(sent.n, 2);
	check_ns(h, peer_mac);
	CHECK(nh_l2_usable(nh->l2));
	neigh6_timer(nt, t + 6100); /* RetransTimer: the second unicast probe */
	CHECK_EQ(sent.n, 3);
	check_ns(h, peer_mac);
	/* Linux answers a unicast NS without a target link-layer option: that confirms. */
	na(h, NULL, S, t + 6500);
	CHECK_STATE(h, "reachable");
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_REACHABLE));

	/* Once more stale, used, and this time silent: 3 unicast probes, then deleted. */
	t += 6500;
	neigh6_timer(nt, t + 300000);
	CHECK_STATE(h, "stale");
	worker_sends(h);
	neigh6_timer(nt, t + 300100);
	neigh6_timer(nt, t + 305100);
	neigh6_timer(nt, t + 306100);
	neigh6_timer(nt, t + 307100);
	CHECK_EQ(sent.n, 6);
	check_ns(h, peer_mac);
	CHECK_STATE(h, "probe");
	neigh6_timer(nt, t + 308100);
	CHECK_EQ(sent.n, 6);
	CHECK_STATE(h, "none");
	nh = route_nh(h);
	CHECK(nh && nh->type == NH_GLEAN); /* host route gone: the next packet asks afresh */
	struct neigh_counters c;
	neigh6_get_counters(nt, &c);
	CHECK_EQ(c.resolve_failed, 1);
	neigh6_resolve(nt, 1, a6(h), t + 309000);
	CHECK_EQ(sent.n, 7);
	check_ns(h, NULL);
	CHECK_STATE(h, "incomplete");
}

/*
 * RFC 4861 §7.2.5 on an entry with a cached address. `flags` S/O, `tlla`
 * same, new or absent; what the entry becomes from REACHABLE and STALE.
 */
struct na_case {
	uint8_t flags;
	const uint8_t *tlla;
	const char *from_reachable, *from_stale;
	const uint8_t *mac_after;
};

static void test_na_table(void)
{
	const char *g = "2001:db8:1::2";
	const struct na_case cases[] = {
	    /* O clear, new address: not believed; only REACHABLE becomes STALE. */
	    {0, new_mac, "stale", "stale", peer_mac},
	    {S, new_mac, "stale", "stale", peer_mac},
	    /* O set, new address: recorded; S says REACHABLE, else STALE. */
	    {O, new_mac, "stale", "stale", new_mac},
	    {S | O, new_mac, "reachable", "reachable", new_mac},
	    /* Same address, or none: S confirms, without S nothing changes. */
	    {0, peer_mac, "reachable", "stale", peer_mac},
	    {O, peer_mac, "reachable", "stale", peer_mac},
	    {S, peer_mac, "reachable", "reachable", peer_mac},
	    {S | O, NULL, "reachable", "reachable", peer_mac},
	    {O, NULL, "reachable", "stale", peer_mac},
	};
	uint64_t t = 2001000;
	uint8_t mac[6];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct na_case *k = &cases[i];
		for (int from_stale = 0; from_stale < 2; from_stale++) {
			/* Known as peer_mac, REACHABLE; aged to STALE for the second column. */
			na(g, peer_mac, S | O, t);
			if (from_stale) {
				t += 300000;
				neigh6_timer(nt, t);
				CHECK_STATE(g, "stale");
			}
			na(g, k->tlla, k->flags, ++t);
			const char *want = from_stale ? k->from_stale : k->from_reachable;
			const char *got = state(g, mac);
			if (strcmp(got, want) || memcmp(mac, k->mac_after, 6))
				fprintf(stderr, "na case %u from %s: %s\n", i,
				        from_stale ? "stale" : "reachable", got);
			CHECK(!strcmp(got, want));
			CHECK(!memcmp(mac, k->mac_after, 6));
			/* The workers use what the entry holds, in every state. */
			CHECK_EQ(route_nh("2001:db8:20::1")->l2 & 0xffffffffffffull,
			         nh_l2_pack(k->mac_after, NEIGH_NONE));
			CHECK(nh_l2_usable(route_nh("2001:db8:20::1")->l2));
			na(g, peer_mac, S | O, ++t); /* back for the next case */
		}
	}
	/* R is the neighbour's IsRouter flag, as the stats dump shows it. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	na(g, peer_mac, S | O | R, ++t);
	neigh6_dump_json(nt, f);
	fclose(f);
	CHECK(strstr(buf, "\"address\":\"2001:db8:1::2\",\"mac\":\"02:bb:00:00:00:05\","
	                  "\"state\":\"reachable\",\"router\":true") != NULL);
	free(buf);
	/* An advertisement for an address without an entry is discarded. */
	na("2001:db8:1::77", peer_mac, S | O, t);
	CHECK_STATE("2001:db8:1::77", "none");
	/* advertisements-learned counts what resolved or refreshed, not what changed nothing. */
	struct neigh_counters c0, c;
	neigh6_get_counters(nt, &c0);
	na(g, peer_mac, 0, ++t);
	na(g, NULL, O, ++t);
	neigh6_get_counters(nt, &c);
	CHECK_EQ(c.replies_learned, c0.replies_learned);
	na(g, NULL, S, ++t);
	neigh6_get_counters(nt, &c);
	CHECK_EQ(c.replies_learned, c0.replies_learned + 1);
}

/* §7.2.5 from INCOMPLETE, and §7.2.3: what a solicitation from the neighbour does. */
static void test_incomplete_and_ns(void)
{
	const char *g = "2001:db8:1::2";
	uint8_t mac[6];
	uint64_t t = 30000000;

	/* INCOMPLETE: an NA without an address resolves nothing; unsolicited -> STALE. */
	neigh6_resolve(nt, 1, a6("2001:db8:1::9"), t);
	CHECK_STATE("2001:db8:1::9", "incomplete");
	na("2001:db8:1::9", NULL, S, t + 10);
	CHECK_STATE("2001:db8:1::9", "incomplete");
	na("2001:db8:1::9", new_mac, O, t + 20);
	CHECK(!strcmp(state("2001:db8:1::9", mac), "stale"));
	CHECK(!memcmp(mac, new_mac, 6));
	CHECK_EQ(route_nh("2001:db8:1::9")->l2, nh_l2_pack(new_mac, NEIGH_STALE));

	/* A solicitation from the gateway with the cached address changes nothing... */
	CHECK_STATE(g, "reachable");
	neigh6_seen(nt, 1, a6(g), peer_mac, ICMP6_NEIGH_SOL, 0, t + 30);
	CHECK_STATE(g, "reachable");
	/* ...with another one it records it, STALE. */
	neigh6_seen(nt, 1, a6(g), new_mac, ICMP6_NEIGH_SOL, 0, t + 40);
	CHECK(!strcmp(state(g, mac), "stale"));
	CHECK(!memcmp(mac, new_mac, 6));
	CHECK_EQ(route_nh("2001:db8:20::1")->l2, nh_l2_pack(new_mac, NEIGH_STALE));
	/* Solicitations from nodes nothing routes through are not learnt. */
	neigh6_seen(nt, 1, a6("2001:db8:1::78"), new_mac, ICMP6_NEIGH_SOL, 0, t + 50);
	CHECK_STATE("2001:db8:1::78", "none");
}

static void test_gateway_fails(void)
{
	struct rib6_path gw = {.port = 1, .weight = 1};
	const struct nexthop *nh;
	unsigned n0 = sent.n;
	struct neigh_counters c0, c;
	uint8_t mac[6];
	const uint64_t T = 40000000;

	neigh6_get_counters(nt, &c0);
	memcpy(gw.gw, a6("2001:db8:1::3"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:30::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1),
	         0);
	nh = route_nh("2001:db8:30::1");
	CHECK_EQ(nh->l2, 0);
	neigh6_resolve(nt, 1, gw.gw, T + 0);
	CHECK_EQ(nh_l2_state(nh->l2), NEIGH_INCOMPLETE);
	neigh6_timer(nt, T + 500); /* not due yet */
	CHECK_EQ(sent.n, n0 + 1);
	neigh6_timer(nt, T + 1000);
	neigh6_timer(nt, T + 2000);
	CHECK_EQ(sent.n, n0 + 3); /* arp-retries 3 */
	check_ns("2001:db8:1::3", NULL);
	neigh6_timer(nt, T + 3000);
	CHECK_EQ(nh_l2_state(nh->l2), NEIGH_FAILED); /* the worker drops as nd-failed */
	CHECK_STATE("2001:db8:1::3", "failed");
	neigh6_get_counters(nt, &c);
	CHECK_EQ(c.resolve_failed, c0.resolve_failed + 1);
	na("2001:db8:1::3", peer_mac, O, T + 4000); /* an advertisement does not lift the hold */
	CHECK_STATE("2001:db8:1::3", "failed");
	neigh6_timer(nt, T + 13000); /* held down, then forgotten: the next packet asks again */
	CHECK_EQ(nh->l2, 0);
	CHECK(!strcmp(neigh6_state(nt, 1, gw.gw, mac), "none"));
	/* A port without IPv6 resolves nothing. */
	neigh6_resolve(nt, 0, a6("2001:db8:1::8"), T + 20000);
	CHECK(!strcmp(neigh6_state(nt, 0, a6("2001:db8:1::8"), mac), "none"));
}

int main(void)
{
	struct rib6_path on1 = {.port = 1, .weight = 1};
	struct rib6_path gw = {.port = 1, .weight = 1};

	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 2;
	dp.ports[1].ip6 = true;
	port_ip6_src_set(&dp.ports[1], a6("2001:db8:1::1"));
	memcpy(dp.ports[1].mac, (uint8_t[6]){0x02, 0, 0, 0, 0, 0x02}, 6);
	snprintf(dp.ports[1].name, sizeof(dp.ports[1].name), "eth1");
	cfg.arp_timeout_s = 300;
	cfg.arp_retries = 3;
	cfg.nports = 2;
	cfg.ports[1].nd_reachable_ms = 300000; /* ReachableTime 300 s below */
	rib = rib_new(&dp, no_seed, NULL);
	r6 = rib6_new(rib, NULL, NULL);
	nt = neigh6_new(&dp, &cfg, r6);
	CHECK(rib && r6 && nt);
	rib6_set_seed(r6, neigh6_l2_seed, nt);
	neigh6_set_sender(nt, capture, NULL);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:1::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &on1, 1),
	         0);
	memcpy(gw.gw, a6("2001:db8:1::2"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:20::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1),
	         0);
	test_reachable_time();
	test_on_link_host();
	neigh6_resolve(nt, 1, gw.gw, 2000000);
	na("2001:db8:1::2", peer_mac, S | O, 2000500);
	test_na_table();
	test_incomplete_and_ns();
	test_gateway_fails();
	test_retrans_timer();
	neigh6_free(nt);
	rib6_free(r6);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_neigh6");
}

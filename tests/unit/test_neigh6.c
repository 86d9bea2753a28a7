/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 neighbour resolution (daemon/neigh6.c): the solicitations it sends
 * (RFC 4861 §7.2.2: to the solicited-node group, from the port's address,
 * with our link-layer address; a unicast probe when an entry ages out), what
 * an answer publishes (the gateway's MAC, a /128 host route for an on-link
 * host), retries, failure and forgetting, and what it refuses to learn.
 */
#include <arpa/inet.h>
#include <string.h>

#include "daemon/neigh6.h"
#include "datapath/icmp6.h"
#include "datapath/nd.h"
#include "tests/unit/check.h"

static struct dataplane dp;
static struct cfg cfg;
static struct rib *rib;
static struct rib6 *r6;
static struct neigh6_table *nt;
static const uint8_t peer_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x05};

static struct {
	unsigned n;
	uint16_t port;
	uint8_t frame[ND_FRAME_MAX];
	uint32_t len;
} sent;

static const uint8_t *a6(const char *s)
{
	static uint8_t buf[8][16];
	static unsigned next;
	uint8_t *a = buf[next++ % 8];

	CHECK(inet_pton(AF_INET6, s, a) == 1);
	return a;
}

static int capture(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	(void)arg;
	sent.n++;
	sent.port = port;
	memcpy(sent.frame, frame, len);
	sent.len = len;
	return 0;
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* The last frame sent is a solicitation for `target`, multicast or unicast to peer_mac. */
static void check_ns(const char *target, bool unicast)
{
	struct nd_msg m;
	uint8_t group[16], gmac[6];

	CHECK_EQ(sent.port, 1);
	CHECK_EQ(nd_parse(sent.frame + 14, sent.len - 14, &m), ND_OK);
	CHECK_EQ(m.type, ICMP6_NEIGH_SOL);
	CHECK(!memcmp(m.target, a6(target), 16));
	CHECK(!memcmp(m.src, dp.ports[1].ip6_addr, 16));
	CHECK(m.has_lla && !memcmp(m.lla, dp.ports[1].mac, 6));
	CHECK(!memcmp(sent.frame + 6, dp.ports[1].mac, 6));
	nd_solicited_node(a6(target), group);
	nd_mcast_mac(group, gmac);
	if (unicast) {
		CHECK(!memcmp(m.dst, a6(target), 16));
		CHECK(!memcmp(sent.frame, peer_mac, 6));
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

static void test_on_link_host(void)
{
	const struct nexthop *nh;

	neigh6_resolve(nt, 1, a6("2001:db8:1::5"), 1000);
	CHECK_EQ(sent.n, 1);
	check_ns("2001:db8:1::5", false);
	nh = route_nh("2001:db8:1::5");
	CHECK(nh && nh->type == NH_GLEAN); /* no host route while incomplete */
	neigh6_resolve(nt, 1, a6("2001:db8:1::5"), 1100);
	CHECK_EQ(sent.n, 1); /* one solicitation per second, not per held packet */
	neigh6_seen(nt, 1, a6("2001:db8:1::5"), peer_mac, 1200);
	nh = route_nh("2001:db8:1::5");
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1);
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_REACHABLE));
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:1::5"), 128), RIB_SRC_NEIGH);
	uint8_t mac[6];
	CHECK_EQ(neigh6_state(nt, 1, a6("2001:db8:1::5"), mac), NEIGH_REACHABLE);

	/* Aged out (arp-timeout 300 s): a unicast probe first, multicast after it. */
	neigh6_timer(nt, 1200 + 300000);
	CHECK_EQ(sent.n, 2);
	check_ns("2001:db8:1::5", true);
	neigh6_timer(nt, 1200 + 301000);
	CHECK_EQ(sent.n, 3);
	check_ns("2001:db8:1::5", false);
	neigh6_seen(nt, 1, a6("2001:db8:1::5"), peer_mac, 1200 + 301500);
	CHECK_EQ(route_nh("2001:db8:1::5")->l2, nh_l2_pack(peer_mac, NEIGH_REACHABLE));
}

static void test_gateway_fails(void)
{
	struct rib6_path gw = {.port = 1, .weight = 1};
	const struct nexthop *nh;
	unsigned n0 = sent.n;
	struct neigh_counters c;

	memcpy(gw.gw, a6("2001:db8:1::2"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:20::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1),
	         0);
	nh = route_nh("2001:db8:20::1");
	CHECK_EQ(nh->l2, 0);
	neigh6_resolve(nt, 1, gw.gw, 5000);
	CHECK_EQ(nh_l2_state(nh->l2), NEIGH_INCOMPLETE);
	neigh6_timer(nt, 5500); /* not due yet */
	CHECK_EQ(sent.n, n0 + 1);
	neigh6_timer(nt, 6000);
	neigh6_timer(nt, 7000);
	CHECK_EQ(sent.n, n0 + 3); /* arp-retries 3 */
	check_ns("2001:db8:1::2", false);
	neigh6_timer(nt, 8000);
	CHECK_EQ(nh_l2_state(nh->l2), NEIGH_FAILED); /* the worker drops as nd-failed */
	neigh6_get_counters(nt, &c);
	CHECK_EQ(c.resolve_failed, 1);
	neigh6_timer(nt, 8000 + 10000); /* held down, then forgotten: the next packet asks again */
	CHECK_EQ(nh->l2, 0);
	uint8_t mac[6];
	CHECK_EQ(neigh6_state(nt, 1, gw.gw, mac), NEIGH_NONE);

	/* An advertisement for a gateway in use is learnt unasked (RFC 4861 §7.2.5 aside). */
	neigh6_seen(nt, 1, gw.gw, peer_mac, 20000);
	CHECK_EQ(nh->l2, nh_l2_pack(peer_mac, NEIGH_REACHABLE));
	/* ...but not one for an address nothing routes through. */
	neigh6_seen(nt, 1, a6("2001:db8:1::77"), peer_mac, 20000);
	CHECK_EQ(neigh6_state(nt, 1, a6("2001:db8:1::77"), mac), NEIGH_NONE);
	/* A port without IPv6 resolves nothing. */
	neigh6_resolve(nt, 0, a6("2001:db8:1::8"), 20000);
	CHECK_EQ(neigh6_state(nt, 0, a6("2001:db8:1::8"), mac), NEIGH_NONE);
}

int main(void)
{
	struct rib6_path on1 = {.port = 1, .weight = 1};

	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 2;
	dp.ports[1].ip6 = true;
	memcpy(dp.ports[1].ip6_addr, a6("2001:db8:1::1"), 16);
	memcpy(dp.ports[1].mac, (uint8_t[6]){0x02, 0, 0, 0, 0, 0x02}, 6);
	snprintf(dp.ports[1].name, sizeof(dp.ports[1].name), "eth1");
	cfg.arp_timeout_s = 300;
	cfg.arp_retries = 3;
	rib = rib_new(&dp, no_seed, NULL);
	r6 = rib6_new(rib, NULL, NULL);
	nt = neigh6_new(&dp, &cfg, r6);
	CHECK(rib && r6 && nt);
	rib6_set_seed(r6, neigh6_l2_seed, nt);
	neigh6_set_sender(nt, capture, NULL);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:1::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &on1, 1),
	         0);
	test_on_link_host();
	test_gateway_fails();
	neigh6_free(nt);
	rib6_free(r6);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_neigh6");
}

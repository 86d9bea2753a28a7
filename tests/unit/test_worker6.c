/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The worker's IPv6 path end to end on in-memory ports (issue 16 phase 2a):
 * forwarding (hop limit decremented, MACs rewritten, ECMP), what goes to the
 * kernel (the router's addresses, link-local, multicast), every drop reason
 * with the ICMPv6 error it calls for (RFC 4443, from the ingress port's
 * address, checksum verified), neighbour discovery waits (hold, resolve
 * events, nd-hold-full, nd-failed), ND seen on the way to the kernel, and
 * the accounting rule rx = forwarded + to-kernel + drops + held.
 *
 * Routes and next hops are written into the FIB6 and the next-hop tables
 * directly, as the control thread would: the daemon's IPv6 RIB is not part
 * of this test.
 */
#include <arpa/inet.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/dataplane.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"
#include "lib/clock.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"
#include "tests/unit/fib_env.h"
#include "tests/unit/port_fake.h"

static struct dataplane dp;
static const uint8_t host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
static const uint8_t gw_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};
static const uint8_t gw2_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x03};

struct f6 {
	const char *src, *dst;
	uint8_t hlim;
	uint16_t sport;
	uint16_t plen;      /* payload length, >= 8 + ext_len (default 16) */
	const uint8_t *ext; /* extension headers before the UDP header */
	unsigned ext_len;
	uint8_t first_nh; /* Next Header of the IPv6 header when ext is set */
};

static uint32_t make6(uint8_t *f, const struct f6 *o)
{
	uint16_t plen = o->plen ? o->plen : 16;
	uint8_t *ip = f + 14, *udp = ip + IP6_HLEN + o->ext_len;

	memset(f, 0, 14u + IP6_HLEN + plen);
	memcpy(f, dp.ports[0].mac, 6);
	memcpy(f + 6, host_mac, 6);
	wr16(f + 12, ETHERTYPE_IPV6);
	ip[0] = 0x60;
	wr16(ip + 4, plen);
	ip[6] = o->ext ? o->first_nh : IP6_NH_UDP;
	ip[7] = o->hlim ? o->hlim : 64;
	memcpy(ip + 8, a6(o->src ? o->src : "2001:db8:1::2"), 16);
	memcpy(ip + 24, a6(o->dst), 16);
	if (o->ext)
		memcpy(ip + IP6_HLEN, o->ext, o->ext_len);
	wr16(udp, o->sport ? o->sport : 5000);
	wr16(udp + 2, 9);
	wr16(udp + 4, (uint16_t)(plen - o->ext_len));
	return 14u + IP6_HLEN + plen;
}

static void send6(const struct f6 *o, uint8_t l2_class)
{
	uint8_t f[FAKE_FRAME_SZ];

	port_fake_rx_add(&dp.ports[0], f, make6(f, o), l2_class);
}

static struct port_queue *txq(unsigned port)
{
	return dp.ports[port].queues[0];
}

static const uint8_t *last_tx(unsigned port, uint32_t *len)
{
	return port_fake_tx_frame(txq(port), txq(port)->tx_n - 1, len);
}

static struct port_counters counters(unsigned port)
{
	struct stats_snapshot s;

	dp_stats_take(&dp, &s);
	return s.port[port].c;
}

static void poll_ms(unsigned ms)
{
	uint64_t t0 = mono_ms();

	do
		dp_worker_poll(&dp, 0);
	while (mono_ms() - t0 < ms);
}

#define POLL_UNTIL(cond, max_ms)                                                                   \
	do {                                                                                       \
		for (unsigned waited_ = 0; !(cond) && waited_ < (max_ms); waited_ += 5)            \
			poll_ms(5);                                                                \
	} while (0)

/* Next hop `id` alone in group `id`, for `prefix`/`len`. */
static void route(uint32_t id, const char *prefix, uint8_t len, uint8_t type, uint16_t port,
                  const char *gw, uint64_t l2)
{
	struct nh_tables *t = dp.nht;

	t->nh[id] = (struct nexthop){.l2 = l2, .port = port, .type = type};
	if (gw)
		memcpy(t->gw6[id], a6(gw), 16);
	t->nhg[id] = (struct nhg){.nslots = 1, .npaths = 1, .slot = {id}};
	if (prefix)
		CHECK_EQ(fib6_insert(dp.fib6, a6(prefix), len, id), 0);
}

static void setup(void)
{
	CHECK_EQ(dp_init(&dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256}), 0);
	dp.nports = 3;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	port_fake_init(&dp.ports[1], 1, "eth1", 1);
	port_fake_init(&dp.ports[2], 2, "atm0.100", 1); /* no IPv6 on it yet */
	dp.ports[0].ip6 = dp.ports[1].ip6 = true;
	port_ip6_src_set(&dp.ports[0], a6("2001:db8:1::1"));
	port_ip6_src_set(&dp.ports[1], a6("2001:db8:2::1"));
	dp.params =
	    (struct dp_params){.icmp_rate = 1000, .icmp_burst = 1000, .hold_timeout_ms = 60};
	route(1, "2001:db8:20::", 48, NH_GATEWAY, 1, "2001:db8:2::2",
	      nh_l2_pack(gw_mac, NEIGH_REACHABLE));
	route(2, "2001:db8:1::1", 128, NH_LOCAL, 0, NULL, 0);
	route(3, "2001:db8:66::", 48, NH_BLACKHOLE, 0, NULL, 0);
	route(4, "2001:db8:67::", 48, NH_UNREACHABLE, 0, NULL, 0);
	route(5, "2001:db8:50::", 48, NH_GATEWAY, 1, "2001:db8:2::5", 0);
	route(6, "2001:db8:2::", 64, NH_GLEAN, 1, NULL, 0);
	route(7, "2001:db8:77::", 48, NH_GATEWAY, 2, "2001:db8:7::7",
	      nh_l2_pack(gw_mac, NEIGH_REACHABLE));
	route(8, "2001:db8:12::", 48, NH_GATEWAY, 1, "2001:db8:2::12",
	      nh_l2_pack(gw_mac, NEIGH_FAILED));
	route(9, NULL, 0, NH_GATEWAY, 1, "2001:db8:2::9", nh_l2_pack(gw_mac, NEIGH_REACHABLE));
	route(10, NULL, 0, NH_GATEWAY, 1, "2001:db8:2::10", nh_l2_pack(gw2_mac, NEIGH_REACHABLE));
	dp.nht->nhg[9] = (struct nhg){.nslots = 2, .npaths = 2, .slot = {9, 10}};
	route(11, "2001:db8:1:5::", 64, NH_GATEWAY, 0, "2001:db8:1::5",
	      nh_l2_pack(gw2_mac, NEIGH_REACHABLE)); /* back out the ingress link */
	CHECK_EQ(fib6_insert(dp.fib6, a6("2001:db8:99::"), 48, 9), 0);
	CHECK_EQ(dp_workers_create(&dp, NULL, 1), 0);
}

static void test_forward(void)
{
	uint8_t in[FAKE_FRAME_SZ];
	uint32_t len, in_len = make6(in, &(struct f6){.dst = "2001:db8:20::5", .hlim = 9});

	send6(&(struct f6){.dst = "2001:db8:20::5", .hlim = 9}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, 1);
	const uint8_t *f = last_tx(1, &len);
	CHECK_EQ(len, in_len);
	CHECK(memcmp(f, gw_mac, 6) == 0);
	CHECK(memcmp(f + 6, dp.ports[1].mac, 6) == 0);
	CHECK_EQ(f[14 + 7], 8); /* hop limit, the only change to the packet */
	CHECK(memcmp(f + 14, in + 14, 7) == 0);
	CHECK(memcmp(f + 14 + 8, in + 14 + 8, len - 14 - 8) == 0);
	CHECK_EQ(counters(0).forwarded, 1);
	CHECK_EQ(counters(1).tx_packets, 1);
	/* The IPv6 counters (RFC 4293's view): datagram octets, no Ethernet header. */
	CHECK_EQ(counters(0).ip6_in_packets, 1);
	CHECK_EQ(counters(0).ip6_in_octets, in_len - 14);
	CHECK_EQ(counters(0).ip6_forwarded, 1);
	CHECK_EQ(counters(1).ip6_out_packets, 1);
	CHECK_EQ(counters(1).ip6_out_octets, len - 14);
	CHECK_EQ(counters(1).ip6_in_packets, 0);
	CHECK_EQ(counters(0).ip6_out_packets, 0);
}

/* The last frame out of port 0 is an ICMPv6 error `type`/`code` about a packet from `to`. */
static void check_icmp6(uint8_t type, uint8_t code, uint32_t param, const char *to)
{
	uint32_t len;
	const uint8_t *f = last_tx(0, &len), *ip = f + 14;

	CHECK(memcmp(f, host_mac, 6) == 0);
	CHECK(memcmp(f + 6, dp.ports[0].mac, 6) == 0);
	CHECK_EQ(rd16(f + 12), ETHERTYPE_IPV6);
	CHECK_EQ(ip[6], IP6_NH_ICMPV6);
	CHECK_EQ(ip[7], ICMP6_ERR_HOP_LIMIT);
	CHECK(memcmp(ip + 8, port_ip6_src(&dp.ports[0]), 16) == 0); /* RFC 4443 §2.2 */
	CHECK(memcmp(ip + 24, a6(to), 16) == 0);
	CHECK_EQ(len, 14u + IP6_HLEN + rd16(ip + 4));
	CHECK_EQ(ip[40], type);
	CHECK_EQ(ip[41], code);
	CHECK_EQ(rd32(ip + 44), param);
	CHECK_EQ(icmp6_csum(ip, ip + IP6_HLEN, rd16(ip + 4)), 0);
}

/* One packet in, dropped as `r` on port 0, with (type != 0) or without an ICMPv6 error. */
static void expect_drop(const struct f6 *o, uint8_t l2, enum drop_reason r, uint8_t type,
                        uint8_t code, uint32_t param)
{
	struct port_counters c0 = counters(0), c1 = counters(1), c2 = counters(2);
	unsigned tx0 = txq(0)->tx_n;

	send6(o, l2);
	dp_worker_poll(&dp, 0);
	struct port_counters c = counters(0);
	CHECK_EQ(c.drops[r], c0.drops[r] + 1);
	CHECK_EQ(c.rx_packets, c0.rx_packets + 1);
	CHECK_EQ(counters(1).tx_packets, c1.tx_packets);
	CHECK_EQ(counters(2).tx_packets, c2.tx_packets);
	CHECK_EQ(txq(0)->tx_n, tx0 + (type ? 1 : 0));
	CHECK_EQ(c.icmp_out, c0.icmp_out + (type ? 1 : 0));
	if (type)
		check_icmp6(type, code, param, o->src ? o->src : "2001:db8:1::2");
}

static void test_errors(void)
{
	expect_drop(&(struct f6){.dst = "2001:db8:20::5", .hlim = 1}, PKT_L2_HOST,
	            DROP_IP6_HOP_LIMIT, ICMP6_TIME_EXCEEDED, ICMP6_CODE_HOP_LIMIT, 0);
	expect_drop(&(struct f6){.dst = "2001:db9::1"}, PKT_L2_HOST, DROP_NO_ROUTE,
	            ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE, 0);
	/* 1501 octets for a 1500 MTU: never fragmented (RFC 8200 §5), PTB with the MTU. */
	expect_drop(&(struct f6){.dst = "2001:db8:20::5", .plen = 1501 - IP6_HLEN}, PKT_L2_HOST,
	            DROP_IP6_TOO_BIG, ICMP6_PACKET_TOO_BIG, 0, 1500);
	expect_drop(&(struct f6){.dst = "2001:db8:66::1"}, PKT_L2_HOST, DROP_BLACKHOLE, 0, 0, 0);
	expect_drop(&(struct f6){.dst = "2001:db8:67::1"}, PKT_L2_HOST, DROP_UNREACHABLE,
	            ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE, 0);
	expect_drop(&(struct f6){.dst = "2001:db8:12::1"}, PKT_L2_HOST, DROP_ND_FAILED,
	            ICMP6_DST_UNREACH, ICMP6_CODE_ADDR_UNREACH, 0);
	/* A port without IPv6 (an ATM subinterface today) is no route for it. */
	expect_drop(&(struct f6){.dst = "2001:db8:77::1"}, PKT_L2_HOST, DROP_NO_ROUTE,
	            ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE, 0);
	/* RFC 4007 §9: a link-local source never leaves its link; code 2. */
	expect_drop(&(struct f6){.src = "fe80::2", .dst = "2001:db8:20::5"}, PKT_L2_HOST,
	            DROP_IP6_SRC_SCOPE, ICMP6_DST_UNREACH, ICMP6_CODE_BEYOND_SCOPE, 0);
	/* A Hop-by-Hop option of action 10 (RFC 8200 §4.2): Parameter Problem code 2 at it. */
	static const uint8_t hbh[8] = {IP6_NH_UDP, 0, 0x85, 4, 1, 2, 3, 4};
	expect_drop(&(struct f6){.dst = "2001:db8:20::5",
	                         .ext = hbh,
	                         .ext_len = 8,
	                         .first_nh = IP6_NH_HOPOPTS,
	                         .plen = 24},
	            PKT_L2_HOST, DROP_IP6_HBH_OPTION, ICMP6_PARAM_PROB, ICMP6_PP_OPTION, 42);
	/* The link-down verdict of IPv4 applies too (ICMPv6 no route). */
	dp.ports[1].link_down = 1;
	expect_drop(&(struct f6){.dst = "2001:db8:20::5"}, PKT_L2_HOST, DROP_LINK_DOWN,
	            ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE, 0);
	dp.ports[1].link_down = 0;
}

static void test_malformed(void)
{
	uint8_t f[FAKE_FRAME_SZ];
	uint32_t len = make6(f, &(struct f6){.dst = "2001:db8:20::5"});
	struct port_counters c0 = counters(0);

	port_fake_rx_add(&dp.ports[0], f, 14 + 39, PKT_L2_HOST); /* ip6-truncated */
	f[14] = 0x40;
	port_fake_rx_add(&dp.ports[0], f, len, PKT_L2_HOST); /* ip6-version */
	f[14] = 0x60;
	port_fake_rx_add(&dp.ports[0], f, len - 1, PKT_L2_HOST); /* ip6-payload-length */
	dp_worker_poll(&dp, 0);
	struct port_counters c = counters(0);
	CHECK_EQ(c.drops[DROP_IP6_TRUNCATED], c0.drops[DROP_IP6_TRUNCATED] + 1);
	CHECK_EQ(c.drops[DROP_IP6_VERSION], c0.drops[DROP_IP6_VERSION] + 1);
	CHECK_EQ(c.drops[DROP_IP6_PAYLOAD_LENGTH], c0.drops[DROP_IP6_PAYLOAD_LENGTH] + 1);
	CHECK_EQ(c.icmp_out, c0.icmp_out);
	expect_drop(&(struct f6){.src = "ff02::1", .dst = "2001:db8:20::5"}, PKT_L2_HOST,
	            DROP_IP6_BAD_SOURCE, 0, 0, 0);
	expect_drop(&(struct f6){.dst = "::1"}, PKT_L2_HOST, DROP_IP6_BAD_DEST, 0, 0, 0);
	expect_drop(&(struct f6){.dst = "ff01::1"}, PKT_L2_MULTICAST, DROP_IP6_MCAST_SCOPE, 0, 0,
	            0);
	/* No address to send from: the drop is counted, no error sent. */
	uint8_t saved[16];
	memcpy(saved, port_ip6_src(&dp.ports[0]), 16);
	port_ip6_src_set(&dp.ports[0], NULL);
	expect_drop(&(struct f6){.dst = "2001:db9::1"}, PKT_L2_HOST, DROP_NO_ROUTE, 0, 0, 0);
	port_ip6_src_set(&dp.ports[0], saved);
}

static void test_to_kernel(void)
{
	struct port_counters c0 = counters(0);
	unsigned tx0 = txq(0)->tx_n, tx1 = txq(1)->tx_n;

	send6(&(struct f6){.dst = "2001:db8:1::1", .hlim = 1}, PKT_L2_HOST); /* ours: any hlim */
	send6(&(struct f6){.dst = "fe80::1"}, PKT_L2_HOST);
	send6(&(struct f6){.dst = "ff02::1", .hlim = 1}, PKT_L2_MULTICAST);
	send6(&(struct f6){.dst = "ff05::1:3"}, PKT_L2_MULTICAST); /* no multicast routing */
	send6(&(struct f6){.dst = "2001:db8:20::5"}, PKT_L2_MULTICAST);
	/* A port without ip6 leaves all IPv6 to the kernel, as before phase 2. */
	uint8_t f[FAKE_FRAME_SZ];
	uint32_t len = make6(f, &(struct f6){.dst = "2001:db8:20::5"});
	port_fake_rx_add(&dp.ports[2], f, len, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).to_kernel, c0.to_kernel + 5);
	CHECK_EQ(counters(2).to_kernel, 1);
	CHECK_EQ(txq(0)->tx_n, tx0);
	CHECK_EQ(txq(1)->tx_n, tx1);
}

/* An advertisement on its way to the kernel is reported as ARP replies are. */
static void test_nd_seen(void)
{
	uint8_t f[ND_FRAME_MAX];
	struct dp_event ev;
	struct event_ring *ring = dp_worker_events(&dp, 0);
	uint32_t len = nd_na_unsolicited_build(f, gw2_mac, a6("2001:db8:1::7"), false, true);

	while (event_ring_pop(ring, &ev))
		;
	port_fake_rx_add(&dp.ports[0], f, len, PKT_L2_MULTICAST);
	dp_worker_poll(&dp, 0);
	CHECK(event_ring_pop(ring, &ev));
	CHECK_EQ(ev.type, DP_EV_ND_SEEN);
	CHECK_EQ(ev.port, 0);
	CHECK(memcmp(ev.ip6, a6("2001:db8:1::7"), 16) == 0);
	CHECK(memcmp(ev.mac, gw2_mac, 6) == 0);
	/* Unsolicited, override (the builder's arguments): what §7.2.5's table needs. */
	CHECK_EQ(DP_EV_ND_TYPE(ev.val), ICMP6_NEIGH_ADV);
	CHECK_EQ(DP_EV_ND_FLAGS(ev.val), ND_NA_OVERRIDE);
	CHECK(DP_EV_ND_HAS_LLA(ev.val));
	CHECK(!event_ring_pop(ring, &ev));
	/* Without its target link-layer option (Linux answers a unicast NS so): reported. */
	uint8_t *ip = f + 14;
	wr16(ip + 4, rd16(ip + 4) - 8);
	wr16(ip + 42, 0);
	wr16(ip + 42, icmp6_csum(ip, ip + 40, rd16(ip + 4)));
	port_fake_rx_add(&dp.ports[0], f, len - 8, PKT_L2_MULTICAST);
	dp_worker_poll(&dp, 0);
	CHECK(event_ring_pop(ring, &ev));
	CHECK_EQ(ev.type, DP_EV_ND_SEEN);
	CHECK(memcmp(ev.ip6, a6("2001:db8:1::7"), 16) == 0);
	CHECK_EQ(DP_EV_ND_TYPE(ev.val), ICMP6_NEIGH_ADV);
	CHECK(!DP_EV_ND_HAS_LLA(ev.val));
	f[len - 9] ^= 1; /* the checksum no longer verifies: not believed */
	port_fake_rx_add(&dp.ports[0], f, len - 8, PKT_L2_MULTICAST);
	dp_worker_poll(&dp, 0);
	CHECK(!event_ring_pop(ring, &ev));
}

static void check_accounting(void)
{
	struct stats_snapshot s;

	dp_stats_take(&dp, &s);
	for (unsigned p = 0; p < s.nports; p++) {
		const struct port_counters *c = &s.port[p].c;

		CHECK_EQ(c->rx_packets, c->forwarded + c->to_kernel + s.port[p].drops_total +
		                            (p == 0 ? s.worker_held[0] : 0));
		/* The same rule for IPv6 alone; everything held here is IPv6. */
		CHECK_EQ(c->ip6_in_packets, c->ip6_forwarded + c->ip6_to_kernel + c->ip6_discards +
		                                (p == 0 ? s.worker_held[0] : 0));
		CHECK(c->ip6_in_packets <= c->rx_packets && c->ip6_forwarded <= c->forwarded);
		CHECK(c->ip6_discards <= s.port[p].drops_total && c->ip6_icmp_out <= c->icmp_out);
		CHECK(c->ip6_out_packets <= c->tx_packets && c->ip6_out_octets < c->tx_octets + 1);
		/* Every IPv6 discard is under its reason's IPv6 share, never more than the reason. */
		uint64_t d6 = 0;
		for (unsigned r = 0; r < DROP__MAX; r++) {
			d6 += c->drops6[r];
			CHECK(c->drops6[r] <= c->drops[r]);
		}
		CHECK_EQ(d6, c->ip6_discards);
	}
}

/*
 * RFC 4861 §7.3.3: a STALE neighbour is sent to, and the first packet marks
 * the next hop used (NEIGH_STALE_USED) for the control thread to start
 * DELAY; later packets leave the word alone.
 */
static void test_stale_use(void)
{
	uint64_t *l2 = &dp.nht->nh[1].l2;
	unsigned tx1 = txq(1)->tx_n;
	uint32_t len;

	__atomic_store_n(l2, nh_l2_pack(gw2_mac, NEIGH_STALE), __ATOMIC_RELEASE);
	send6(&(struct f6){.dst = "2001:db8:20::1"}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 1);
	CHECK(memcmp(last_tx(1, &len), gw2_mac, 6) == 0);
	CHECK_EQ(__atomic_load_n(l2, __ATOMIC_ACQUIRE), nh_l2_pack(gw2_mac, NEIGH_STALE_USED));
	send6(&(struct f6){.dst = "2001:db8:20::1"}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 2);
	CHECK_EQ(__atomic_load_n(l2, __ATOMIC_ACQUIRE), nh_l2_pack(gw2_mac, NEIGH_STALE_USED));
	check_accounting();
	__atomic_store_n(l2, nh_l2_pack(gw_mac, NEIGH_REACHABLE), __ATOMIC_RELEASE);
}

/* Waiting for neighbour discovery: resolve events, the hold bound, release, failure. */
static void test_hold(void)
{
	struct event_ring *ring = dp_worker_events(&dp, 0);
	struct port_counters c0 = counters(0);
	unsigned tx1 = txq(1)->tx_n;
	struct dp_event ev;

	while (event_ring_pop(ring, &ev))
		;
	for (int i = 0; i < 2; i++)
		send6(&(struct f6){.dst = "2001:db8:50::1", .hlim = 5}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(dp_worker_held(&dp, 0), 2);
	check_accounting();
	CHECK(event_ring_pop(ring, &ev)); /* one request per neighbour */
	CHECK_EQ(ev.type, DP_EV_RESOLVE6);
	CHECK_EQ(ev.port, 1);
	CHECK(memcmp(ev.ip6, a6("2001:db8:2::5"), 16) == 0);
	CHECK(!event_ring_pop(ring, &ev));
	__atomic_store_n(&dp.nht->nh[5].l2, nh_l2_pack(gw2_mac, NEIGH_REACHABLE), __ATOMIC_RELEASE);
	POLL_UNTIL(txq(1)->tx_n == tx1 + 2, 2000);
	CHECK_EQ(txq(1)->tx_n, tx1 + 2);
	uint32_t len;
	const uint8_t *f = last_tx(1, &len);
	CHECK(memcmp(f, gw2_mac, 6) == 0);
	CHECK_EQ(f[14 + 7], 4);
	CHECK_EQ(dp_worker_held(&dp, 0), 0);
	CHECK_EQ(counters(0).forwarded, c0.forwarded + 2);

	/* On-link: the destination is the neighbour; 4 wait, the 5th is nd-hold-full. */
	for (int i = 0; i < 5; i++)
		send6(&(struct f6){.dst = "2001:db8:2::99"}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK(event_ring_pop(ring, &ev));
	CHECK_EQ(ev.type, DP_EV_RESOLVE6);
	CHECK(memcmp(ev.ip6, a6("2001:db8:2::99"), 16) == 0);
	CHECK_EQ(dp_worker_held(&dp, 0), 4);
	CHECK_EQ(counters(0).drops[DROP_ND_HOLD_FULL], c0.drops[DROP_ND_HOLD_FULL] + 1);
	check_accounting();
	unsigned tx0 = txq(0)->tx_n;
	POLL_UNTIL(dp_worker_held(&dp, 0) == 0, 3000);
	CHECK_EQ(dp_worker_held(&dp, 0), 0);
	CHECK_EQ(counters(0).drops[DROP_ND_FAILED], c0.drops[DROP_ND_FAILED] + 4);
	CHECK_EQ(txq(0)->tx_n, tx0 + 4);
	check_icmp6(ICMP6_DST_UNREACH, ICMP6_CODE_ADDR_UNREACH, 0, "2001:db8:1::2");
	CHECK_EQ(txq(1)->tx_n, tx1 + 2);
}

static void test_ecmp(void)
{
	unsigned tx1 = txq(1)->tx_n, seen[2] = {0, 0};

	for (uint16_t s = 0; s < 64; s++)
		send6(&(struct f6){.dst = "2001:db8:99::1", .sport = (uint16_t)(1000 + s)},
		      PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 64);
	for (unsigned i = tx1; i < tx1 + 64; i++) {
		uint32_t len;
		const uint8_t *f = port_fake_tx_frame(txq(1), i, &len);

		seen[memcmp(f, gw_mac, 6) == 0 ? 0 : 1]++;
	}
	CHECK(seen[0] > 8 && seen[1] > 8); /* 64 flows over 2 paths */
}

/* The last frame queued on port 0 gets these offload fields (as a vnet header would). */
static void last_rx_offload(uint8_t gso_type, uint16_t gso_size, bool partial, uint16_t cstart,
                            uint16_t coff)
{
	struct port_queue *q = dp.ports[0].queues[0];
	unsigned slot = (q->rx_n - 1) % FAKE_FRAMES;

	q->rx_off[slot] = (struct fake_offload){gso_type, gso_size, cstart, coff};
	q->rx_partial[slot] = partial;
}

/* A TCP super-packet: 20-byte TCP header, then `payload` octets. */
static void send_tcp6_gso(uint16_t payload, uint16_t gso_size)
{
	uint8_t f[FAKE_FRAME_SZ];
	uint32_t len =
	    make6(f, &(struct f6){.dst = "2001:db8:20::5", .plen = (uint16_t)(20 + payload)});

	f[14 + 6] = IP6_NH_TCP;
	wr32(f + 14 + IP6_HLEN + 4, 0xfffffe00u); /* a sequence number that wraps */
	f[14 + IP6_HLEN + 12] = 0x50;              /* data offset: 5 words */
	for (unsigned i = 0; i < payload; i++)
		f[14 + IP6_HLEN + 20 + i] = (uint8_t)(i * 13);
	port_fake_rx_add(&dp.ports[0], f, len, PKT_L2_HOST);
	last_rx_offload(PKT_GSO_TCP6, gso_size, false, 0, 0);
}

/* GSO super-packets are judged by their segments (RFC 8200 §5 applies per segment). */
static void test_gso(void)
{
	struct port_counters c0 = counters(0);
	unsigned tx1 = txq(1)->tx_n, tx0 = txq(0)->tx_n;

	dp.ports[1].tx_offload = true; /* the egress segments: forwarded whole */
	send_tcp6_gso(2000, 1000);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 1);
	CHECK_EQ(txq(1)->tx_meta[tx1 % FAKE_FRAMES].gso_type, PKT_GSO_TCP6);
	CHECK_EQ(txq(1)->tx_len[tx1 % FAKE_FRAMES], 14u + IP6_HLEN + 2020);
	/* Segments of 40 + 20 + 1470 octets do not fit 1500: Packet Too Big, 1500. */
	send_tcp6_gso(2000, 1470);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_IP6_TOO_BIG], c0.drops[DROP_IP6_TOO_BIG] + 1);
	CHECK_EQ(txq(0)->tx_n, tx0 + 1);
	check_icmp6(ICMP6_PACKET_TOO_BIG, 0, 1500, "2001:db8:1::2");
	/* An egress that cannot segment: cut here (ip6_gso.c), hop limit - 1 in each. */
	dp.ports[1].tx_offload = false;
	struct port_counters c1 = counters(1);
	send_tcp6_gso(2000, 1000);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 3);
	for (unsigned s = 0; s < 2; s++) {
		const uint8_t *seg = txq(1)->tx_frame[(tx1 + 1 + s) % FAKE_FRAMES] + 14;
		uint32_t sum = csum_partial_sum(seg + 8, 32, 0) + 1020 + IP6_NH_TCP;
		CHECK(rd16(seg + 4) == 1020 && seg[7] == 63);
		CHECK_EQ(csum_fold(csum_partial_sum(seg + IP6_HLEN, 1020, sum)), 0);
		CHECK_EQ(rd32(seg + IP6_HLEN + 4), 0xfffffe00u + 1000 * s);
		for (unsigned i = 0; i < 1000; i += 97)
			CHECK_EQ(seg[IP6_HLEN + 20 + i], (uint8_t)((1000 * s + i) * 13));
	}
	CHECK_EQ(counters(0).gso_segmented, c0.gso_segmented + 1);
	CHECK_EQ(counters(0).gso_segments_out, c0.gso_segments_out + 2);
	CHECK_EQ(counters(0).ip6_forwarded, c0.ip6_forwarded + 2);
	CHECK_EQ(counters(1).ip6_out_packets, c1.ip6_out_packets + 2);
	CHECK_EQ(counters(0).drops[DROP_IP6_TOO_BIG], c0.drops[DROP_IP6_TOO_BIG] + 1);
}

/* A partial UDP checksum (the field holds the pseudo-header sum) completed for the egress. */
static void test_partial_csum(void)
{
	uint8_t f[FAKE_FRAME_SZ];
	uint32_t len = make6(f, &(struct f6){.dst = "2001:db8:20::5", .plen = 64});
	uint8_t *ip = f + 14, *udp = ip + IP6_HLEN;
	uint32_t pseudo = csum_partial_sum(ip + 8, 32, 0) + 64 + IP6_NH_UDP;
	unsigned tx1 = txq(1)->tx_n;

	for (unsigned i = 8; i < 64; i++)
		udp[i] = (uint8_t)(i * 7);
	wr16(udp + 6, (uint16_t)~csum_fold(pseudo));
	port_fake_rx_add(&dp.ports[0], f, len, PKT_L2_HOST);
	last_rx_offload(0, 0, true, 14 + IP6_HLEN, 6);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 1);
	const uint8_t *out = last_tx(1, &len);
	CHECK(rd16(out + 14 + IP6_HLEN + 6) != 0);
	CHECK_EQ(csum_fold(csum_partial_sum(out + 14 + IP6_HLEN, 64, pseudo)), 0);
}

/* A link-local source may go back out the link it came from (RFC 4007 §9: same zone). */
static void test_same_link(void)
{
	unsigned tx0 = txq(0)->tx_n;
	uint32_t len;

	send6(&(struct f6){.src = "fe80::2", .dst = "2001:db8:1:5::9"}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(0)->tx_n, tx0 + 1);
	const uint8_t *f = last_tx(0, &len);
	CHECK(memcmp(f, gw2_mac, 6) == 0);
	CHECK(memcmp(f + 6, dp.ports[0].mac, 6) == 0);
}

/* ICMPv6 errors draw on the worker's ICMP token bucket, as ICMPv4 ones do. */
static void test_ratelimit(void)
{
	struct port_counters c0;
	unsigned tx0;

	dp_params_set(&dp,
	              &(struct dp_params){.icmp_rate = 1, .icmp_burst = 2, .hold_timeout_ms = 60});
	poll_ms(3); /* the bucket refills to its new cap: 2 */
	c0 = counters(0);
	tx0 = txq(0)->tx_n;
	for (int i = 0; i < 5; i++)
		send6(&(struct f6){.dst = "2001:db8:20::5", .hlim = 1}, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_IP6_HOP_LIMIT], c0.drops[DROP_IP6_HOP_LIMIT] + 5);
	CHECK_EQ(counters(0).icmp_out, c0.icmp_out + 2);
	CHECK_EQ(counters(0).icmp_ratelimited, c0.icmp_ratelimited + 3);
	CHECK_EQ(txq(0)->tx_n, tx0 + 2);
}

int main(void)
{
	setup();
	test_forward();
	test_errors();
	test_malformed();
	test_to_kernel();
	test_nd_seen();
	test_stale_use();
	check_accounting();
	test_hold();
	test_ecmp();
	test_gso();
	test_partial_csum();
	test_same_link();
	check_accounting();
	test_ratelimit();
	check_accounting();
	dp_workers_stop(&dp);
	for (unsigned p = 0; p < 3; p++)
		port_fake_fini(&dp.ports[p]);
	dp_fini(&dp);
	return check_report("test_worker6");
}

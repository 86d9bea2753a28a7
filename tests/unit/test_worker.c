/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The worker end to end on in-memory ports: every verdict of the forwarding
 * path (forward, ICMP errors, drops by reason, ARP hold and resolution, ECMP,
 * MTU, GSO super-packets and checksum offload, TX full, rate limit) and the
 * accounting rule
 * rx = forwarded + to-kernel + drops on every port.
 */
#include <string.h>
#include <time.h>

#include "daemon/rib.h"
#include "datapath/csum.h"
#include "datapath/icmp.h"
#include "datapath/ip4.h"
#include "lib/clock.h"
#include "tests/unit/check.h"
#include "tests/unit/fib_env.h"
#include "tests/unit/port_fake.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct dataplane dp;
static struct rib *rib;
static const uint8_t host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
static const uint8_t gw_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};

struct frame_opts {
	uint32_t src, dst;
	uint8_t ttl;
	uint16_t sport;
	uint16_t total; /* IP total length, >= 28 */
	bool df;
};

static uint32_t make_frame(uint8_t *f, const struct frame_opts *o)
{
	uint16_t total = o->total ? o->total : 64;

	memset(f, 0, 14u + total);
	memcpy(f, dp.ports[0].mac, 6);
	memcpy(f + 6, host_mac, 6);
	wr16(f + 12, ETHERTYPE_IPV4);
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	wr16(ip + 2, total);
	wr16(ip + 6, o->df ? 0x4000 : 0);
	ip[8] = o->ttl ? o->ttl : 64;
	ip[9] = 17;
	wr32(ip + 12, o->src ? o->src : IP(10, 0, 1, 2));
	wr32(ip + 16, o->dst);
	wr16(ip + 10, csum_compute(ip, 20));
	wr16(ip + 20, o->sport ? o->sport : 5000);
	wr16(ip + 22, 9);
	return 14u + total;
}

static void send_one(const struct frame_opts *o)
{
	uint8_t f[FAKE_FRAME_SZ];

	port_fake_rx_add(&dp.ports[0], f, make_frame(f, o), PKT_L2_HOST);
}

static void poll_ms(unsigned ms)
{
	uint64_t t0 = mono_ms();

	do
		dp_worker_poll(&dp, 0);
	while (mono_ms() - t0 < ms);
}

/*
 * Poll until `cond` holds, for at most max_ms: timers in the worker run on
 * the coarse clock, and a loaded machine may deschedule this thread for
 * longer than any fixed wait.
 */
#define POLL_UNTIL(cond, max_ms)                                                                   \
	do {                                                                                       \
		for (unsigned waited_ = 0; !(cond) && waited_ < (max_ms); waited_ += 5)            \
			poll_ms(5);                                                                \
	} while (0)

static struct port_counters counters(unsigned port)
{
	struct stats_snapshot s;

	dp_stats_take(&dp, &s);
	return s.port[port].c;
}

static struct port_queue *txq(unsigned port)
{
	return dp.ports[port].queues[0];
}

static const uint8_t *last_tx(unsigned port)
{
	return txq(port)->tx_frame[(txq(port)->tx_n - 1) % FAKE_FRAMES];
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

static void setup(void)
{
	struct rib_path p0 = {.port = 0, .weight = 1}, p1 = {.port = 1, .weight = 1};
	struct rib_path gw = {.gw = IP(10, 0, 2, 2), .port = -1, .weight = 1};
	struct rib_path two[2] = {{IP(10, 0, 1, 3), -1, 1}, {IP(10, 0, 2, 2), -1, 1}};

	dp_init(&dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256});
	dp.nports = 2;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	port_fake_init(&dp.ports[1], 1, "eth1", 1);
	dp.ports[0].ip4_addr = IP(10, 0, 1, 1);
	dp.ports[1].ip4_addr = IP(10, 0, 2, 1);
	dp.params =
	    (struct dp_params){.icmp_rate = 1000, .icmp_burst = 1000, .hold_timeout_ms = 60};
	rib = rib_new(&dp, no_seed, NULL);
	rib_route_set(rib, IP(10, 0, 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1);
	rib_route_set(rib, IP(10, 0, 2, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	rib_route_set(rib, IP(10, 0, 1, 1), 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib_route_set(rib, IP(10, 20, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1);
	rib_route_set(rib, IP(10, 99, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, two, 2);
	rib_route_set(rib, IP(10, 66, 0, 0), 16, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0);
	rib_route_set(rib, IP(10, 67, 0, 0), 16, RIB_SRC_STATIC, NH_UNREACHABLE, NULL, 0);
	rib_nh_l2_update(rib, 1, IP(10, 0, 2, 2), nh_l2_pack(gw_mac, NEIGH_REACHABLE));
	rib_nh_l2_update(rib, 0, IP(10, 0, 1, 3), nh_l2_pack(host_mac, NEIGH_REACHABLE));
	dp_workers_create(&dp, NULL, 1);
}

static void test_forward(void)
{
	send_one(&(struct frame_opts){.dst = IP(10, 20, 0, 5), .ttl = 9});
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, 1);
	const uint8_t *f = last_tx(1);
	CHECK(!memcmp(f, gw_mac, 6));
	CHECK(!memcmp(f + 6, dp.ports[1].mac, 6));
	CHECK_EQ(f[14 + 8], 8);
	CHECK_EQ(csum_compute(f + 14, 20), 0);
	CHECK_EQ(counters(0).forwarded, 1);
	CHECK_EQ(counters(1).tx_packets, 1);
	CHECK_EQ(counters(1).tx_octets, 78);

	/* A frame whose sender left the UDP checksum to offload leaves complete. */
	uint8_t f2[FAKE_FRAME_SZ];
	uint32_t len = make_frame(f2, &(struct frame_opts){.dst = IP(10, 20, 0, 5)});
	wr16(f2 + 14 + 20 + 4, 44);
	wr16(f2 + 14 + 20 + 6, 0xdead);
	port_fake_rx_add(&dp.ports[0], f2, len, PKT_L2_HOST);
	txq(0)->rx_partial[(txq(0)->rx_n - 1) % FAKE_FRAMES] = 1;
	dp_worker_poll(&dp, 0);
	f = last_tx(1);
	uint32_t sum = csum_partial_sum(f + 14 + 12, 8, 0) + 17 + 44;
	CHECK_EQ(csum_fold(csum_partial_sum(f + 14 + 20, 44, sum)), 0);
}

/* Each case: one frame in, a drop reason, and maybe an ICMP error back on port 0. */
static void expect_verdict(const struct frame_opts *o, enum drop_reason r, int icmp_type,
                           int icmp_code)
{
	uint64_t before = counters(0).drops[r];
	uint64_t tx0 = txq(0)->tx_n;

	send_one(o);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[r], before + 1);
	if (icmp_type < 0) {
		CHECK_EQ(txq(0)->tx_n, tx0);
		return;
	}
	CHECK_EQ(txq(0)->tx_n, tx0 + 1);
	const uint8_t *f = last_tx(0);
	CHECK(!memcmp(f, host_mac, 6));
	CHECK_EQ(rd32(f + 14 + 12), IP(10, 0, 1, 1));
	CHECK_EQ(rd32(f + 14 + 16), o->src ? o->src : IP(10, 0, 1, 2));
	CHECK_EQ(f[14 + 20], icmp_type);
	CHECK_EQ(f[14 + 21], icmp_code);
}

static void test_errors(void)
{
	expect_verdict(&(struct frame_opts){.dst = IP(10, 20, 0, 5), .ttl = 1}, DROP_TTL_EXPIRED,
	               ICMP_TIME_EXCEEDED, 0);
	expect_verdict(&(struct frame_opts){.dst = IP(172, 16, 0, 1)}, DROP_NO_ROUTE,
	               ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH);
	expect_verdict(&(struct frame_opts){.dst = IP(10, 66, 1, 1)}, DROP_BLACKHOLE, -1, 0);
	expect_verdict(&(struct frame_opts){.dst = IP(10, 67, 1, 1)}, DROP_UNREACHABLE,
	               ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH);
	expect_verdict(&(struct frame_opts){.src = IP(127, 0, 0, 1), .dst = IP(10, 20, 0, 5)},
	               DROP_IP_BAD_SOURCE, -1, 0);

	/* Larger than the egress MTU: frag-needed with the MTU when DF, silent otherwise. */
	dp.ports[1].mtu = 1000;
	expect_verdict(&(struct frame_opts){.dst = IP(10, 20, 0, 5), .total = 1200, .df = true},
	               DROP_MTU_EXCEEDED, ICMP_DEST_UNREACH, ICMP_CODE_FRAG_NEEDED);
	CHECK_EQ(rd16(last_tx(0) + 14 + 20 + 6), 1000);

	/* Without DF it leaves as fragments: 20 + 976 and 20 + 204 bytes, offsets 0 and 122. */
	uint64_t tx1 = txq(1)->tx_n, fwd = counters(0).forwarded;
	send_one(&(struct frame_opts){.dst = IP(10, 20, 0, 5), .total = 1200, .ttl = 9});
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 2);
	const uint8_t *f1 = txq(1)->tx_frame[tx1 % FAKE_FRAMES];
	const uint8_t *f2 = txq(1)->tx_frame[(tx1 + 1) % FAKE_FRAMES];
	CHECK_EQ(rd16(f1 + 14 + 2), 996);
	CHECK_EQ(rd16(f1 + 14 + 6), 0x2000);
	CHECK_EQ(rd16(f2 + 14 + 2), 224);
	CHECK_EQ(rd16(f2 + 14 + 6), 122);
	CHECK(f1[14 + 8] == 8 && f2[14 + 8] == 8);
	CHECK(csum_compute(f1 + 14, 20) == 0 && csum_compute(f2 + 14, 20) == 0);
	CHECK(!memcmp(f1, gw_mac, 6) && !memcmp(f2, gw_mac, 6));
	CHECK_EQ(counters(0).forwarded, fwd + 1);
	CHECK_EQ(counters(0).fragmented, 1);
	CHECK_EQ(counters(0).fragments_out, 2);
	dp.ports[1].mtu = 1500;
}

/*
 * A TCP super-packet from a sender with TSO, to 10.20.0.5 with TTL 9: 20 + 20
 * header bytes, and the checksum field holding only the pseudo-header sum.
 */
static uint32_t make_tso(uint8_t *f, uint16_t total, bool df)
{
	uint32_t len = make_frame(
	    f, &(struct frame_opts){.dst = IP(10, 20, 0, 5), .total = total, .df = df, .ttl = 9});
	uint8_t *ip = f + 14;

	ip[9] = 6;
	wr16(ip + 10, 0);
	wr16(ip + 10, csum_compute(ip, 20));
	memset(ip + 20, 0, 20);
	ip[20 + 12] = 5 << 4;
	for (unsigned i = 40; i < total; i++)
		ip[i] = (uint8_t)i;
	wr16(ip + 20 + 16, (uint16_t)~csum_fold(csum_partial_sum(ip + 12, 8, 0) + 6 + total - 20u));
	return len;
}

/* Receive f on port 0 with the offload fields a vnet-header driver would give it. */
static void rx_offloaded(const uint8_t *f, uint32_t len, uint8_t gso_type, uint16_t gso_size)
{
	struct port_queue *q = txq(0);
	unsigned i;

	port_fake_rx_add(&dp.ports[0], f, len, PKT_L2_HOST);
	i = (q->rx_n - 1) % FAKE_FRAMES;
	q->rx_partial[i] = 1;
	q->rx_off[i] = (struct fake_offload){gso_type, gso_size, 14 + 20, 16};
}

static const struct pkt *last_tx_meta(unsigned port)
{
	return &txq(port)->tx_meta[(txq(port)->tx_n - 1) % FAKE_FRAMES];
}

static bool tcp_csum_ok(const uint8_t *ip)
{
	uint32_t l4 = rd16(ip + 2) - 20u;

	return csum_fold(csum_partial_sum(ip + 20, l4, csum_partial_sum(ip + 12, 8, 0) + 6 + l4)) ==
	       0;
}

/*
 * A GSO packet meets the MTU per segment (20 + 20 + gso_size), not as a whole,
 * where the egress takes the offload; it is never fragmented.
 */
static void test_gso(void)
{
	uint8_t f[FAKE_FRAME_SZ];
	uint32_t len = make_tso(f, 1800, true);
	uint64_t tx0 = txq(0)->tx_n, tx1 = txq(1)->tx_n;
	struct port_counters c = counters(0);

	dp.ports[1].tx_offload = true;
	/* 920-byte segments fit 1000: out whole, TTL - 1, offload fields and L4 untouched. */
	dp.ports[1].mtu = 1000;
	rx_offloaded(f, len, PKT_GSO_TCP4, 880);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 1);
	const struct pkt *m = last_tx_meta(1);
	const uint8_t *o = last_tx(1);
	CHECK_EQ(m->len, len);
	CHECK(m->gso_type == PKT_GSO_TCP4 && m->gso_size == 880);
	CHECK(m->csum_partial && m->csum_start == 34 && m->csum_offset == 16);
	CHECK(o[14 + 8] == 8 && csum_compute(o + 14, 20) == 0);
	CHECK(!memcmp(o + 34, f + 34, len - 34));
	CHECK_EQ(counters(0).rx_gso_packets, c.rx_gso_packets + 1);
	CHECK_EQ(counters(0).forwarded, c.forwarded + 1);

	/* The same over a 900 MTU with DF: frag-needed with 900 (RFC 1191), no fragments. */
	dp.ports[1].mtu = 900;
	rx_offloaded(f, len, PKT_GSO_TCP4, 880);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 1);
	CHECK_EQ(txq(0)->tx_n, tx0 + 1);
	CHECK(last_tx(0)[14 + 20] == ICMP_DEST_UNREACH &&
	      last_tx(0)[14 + 21] == ICMP_CODE_FRAG_NEEDED);
	CHECK_EQ(rd16(last_tx(0) + 14 + 20 + 6), 900);
	/* Without DF (PMTU discovery off at the sender): dropped, still never fragmented. */
	len = make_tso(f, 1800, false);
	rx_offloaded(f, len, PKT_GSO_TCP4, 880);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 1);
	CHECK_EQ(txq(0)->tx_n, tx0 + 1);
	CHECK_EQ(counters(0).drops[DROP_MTU_EXCEEDED], c.drops[DROP_MTU_EXCEEDED] + 2);
	CHECK_EQ(counters(0).fragmented, c.fragmented);

	/* A partial checksum without GSO stays partial for the kernel to finish. */
	dp.ports[1].mtu = 1500;
	len = make_tso(f, 600, true);
	rx_offloaded(f, len, PKT_GSO_NONE, 0);
	dp_worker_poll(&dp, 0);
	m = last_tx_meta(1);
	CHECK(m->csum_partial && m->csum_start == 34 && m->csum_offset == 16 && !m->gso_type);
	CHECK_EQ(rd16(last_tx(1) + 14 + 20 + 16), rd16(f + 14 + 20 + 16));

	/*
	 * An egress without the offload: cut into segments here, each what the
	 * sender would have sent without TSO (lengths, IDs, sequence numbers,
	 * complete checksums, TTL - 1).
	 */
	dp.ports[1].tx_offload = false;
	len = make_tso(f, 1800, true);
	wr32(f + 14 + 20 + 4, 0xfffffc00u); /* a sequence number that wraps */
	f[14 + 20 + 13] = 0x18 | 0x01;      /* PSH|ACK|FIN: FIN and PSH go on the last segment */
	wr16(f + 14 + 20 + 16,
	     (uint16_t)~csum_fold(csum_partial_sum(f + 14 + 12, 8, 0) + 6 + 1800 - 20u));
	rx_offloaded(f, len, PKT_GSO_TCP4, 880);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(0)->tx_n, tx0 + 1);
	CHECK_EQ(txq(1)->tx_n, tx1 + 4);
	for (unsigned s = 0; s < 2; s++) {
		unsigned slot = (unsigned)(txq(1)->tx_n - 2 + s) % FAKE_FRAMES;
		const uint8_t *seg = txq(1)->tx_frame[slot] + 14;
		CHECK_EQ(rd16(seg + 2), 20 + 20 + 880);
		CHECK(seg[8] == 8 && csum_compute(seg, 20) == 0 && tcp_csum_ok(seg));
		CHECK_EQ(rd32(seg + 20 + 4), 0xfffffc00u + 880 * s);
		CHECK_EQ(rd16(seg + 4), (uint16_t)(rd16(f + 14 + 4) + s));
		CHECK_EQ(seg[20 + 13], s == 0 ? 0x10 : 0x19);
		CHECK(!memcmp(seg + 40, f + 14 + 40 + 880 * s, 880));
		CHECK(!txq(1)->tx_meta[slot].gso_type && !txq(1)->tx_meta[slot].csum_partial);
	}
	CHECK_EQ(counters(0).gso_segmented, c.gso_segmented + 1);
	CHECK_EQ(counters(0).gso_segments_out, c.gso_segments_out + 2);
	/*
	 * Small enough for this MTU as a whole, still segmented: a later link
	 * may be smaller, and the sender's segment size is what it can carry.
	 */
	len = make_tso(f, 1200, true);
	rx_offloaded(f, len, PKT_GSO_TCP4, 580);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(txq(1)->tx_n, tx1 + 6);
	CHECK(!last_tx_meta(1)->csum_partial);
	CHECK_EQ(rd16(last_tx(1) + 14 + 2), 20 + 20 + 580);
	CHECK(tcp_csum_ok(last_tx(1) + 14)); /* completed in software */
	CHECK_EQ(counters(0).rx_gso_packets, c.rx_gso_packets + 5);
}

static void test_malformed(void)
{
	uint8_t f[128];
	struct frame_opts o = {.dst = IP(10, 20, 0, 5)};
	struct {
		unsigned off;
		uint8_t val;
		uint32_t len;
		enum drop_reason r;
	} cases[] = {
	    {14 + 10, 0x55, 78, DROP_IP_CHECKSUM},
	    {14 + 0, 0x44, 78, DROP_IP_HEADER_LENGTH},
	    {14 + 0, 0x65, 78, DROP_IP_VERSION},
	    {14 + 2, 0x7f, 78,
	     DROP_IP_TOTAL_LENGTH}, /* total length high byte: far past the frame */
	    {0, 0, 30, DROP_IP_TRUNCATED},
	    {0, 0, 10, DROP_L2_RUNT},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t before = counters(0).drops[cases[i].r];
		make_frame(f, &o);
		if (cases[i].off)
			f[cases[i].off] = cases[i].val;
		port_fake_rx_add(&dp.ports[0], f, cases[i].len, PKT_L2_HOST);
		dp_worker_poll(&dp, 0);
		CHECK_EQ(counters(0).drops[cases[i].r], before + 1);
	}
	/* Options: dropped by default, forwarded when the policy says so. */
	make_frame(f, &o);
	memmove(f + 14 + 24, f + 14 + 20, 44);
	f[14] = 0x46;
	wr16(f + 14 + 2, 68);
	memset(f + 14 + 20, 1, 4); /* four NOPs */
	wr16(f + 14 + 10, 0);
	wr16(f + 14 + 10, csum_compute(f + 14, 24));
	port_fake_rx_add(&dp.ports[0], f, 82, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_IP_OPTIONS], 1);
	uint64_t fwd = counters(0).forwarded;
	dp.params.ip_options_forward = true;
	port_fake_rx_add(&dp.ports[0], f, 82, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).forwarded, fwd + 1);
	dp.params.ip_options_forward = false;
}

static void test_to_kernel(void)
{
	uint8_t f[128];
	uint64_t k = counters(0).to_kernel;
	struct dp_event ev;

	send_one(&(struct frame_opts){.dst = IP(10, 0, 1, 1)}); /* our address */
	make_frame(f, &(struct frame_opts){.dst = IP(10, 20, 0, 5)});
	port_fake_rx_add(&dp.ports[0], f, 78, PKT_L2_BROADCAST);
	make_frame(f, &(struct frame_opts){.dst = IP(224, 0, 0, 5)});
	port_fake_rx_add(&dp.ports[0], f, 78, PKT_L2_HOST);
	wr16(f + 12, 0x86dd); /* IPv6: the kernel's, for now */
	port_fake_rx_add(&dp.ports[0], f, 78, PKT_L2_HOST);
	/* An ARP reply: left to the kernel, and reported to the control thread. */
	memset(f, 0, 60);
	wr16(f + 12, ETHERTYPE_ARP);
	wr16(f + 14, 1);
	wr16(f + 16, ETHERTYPE_IPV4);
	f[18] = 6;
	f[19] = 4;
	wr16(f + 20, 2);
	memcpy(f + 22, gw_mac, 6);
	wr32(f + 28, IP(10, 0, 1, 9));
	port_fake_rx_add(&dp.ports[0], f, 60, PKT_L2_HOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).to_kernel, k + 5);
	CHECK(event_ring_pop(dp_worker_events(&dp, 0), &ev));
	CHECK(ev.type == DP_EV_ARP_SEEN && ev.ip == IP(10, 0, 1, 9) && !memcmp(ev.mac, gw_mac, 6));

	uint64_t other = counters(0).drops[DROP_L2_OTHER_HOST];
	make_frame(f, &(struct frame_opts){.dst = IP(10, 20, 0, 5)});
	port_fake_rx_add(&dp.ports[0], f, 78, PKT_L2_OTHERHOST);
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_L2_OTHER_HOST], other + 1);
}

static void test_arp_hold(void)
{
	struct event_ring *ring = dp_worker_events(&dp, 0);
	struct dp_event ev;
	uint64_t tx1 = txq(1)->tx_n;

	while (event_ring_pop(ring, &ev))
		;
	/* Six packets for an unresolved host: four wait, two overflow, one resolve request. */
	for (int i = 0; i < 6; i++)
		send_one(&(struct frame_opts){.dst = IP(10, 0, 2, 7)});
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_ARP_HOLD_FULL], 2);
	CHECK(event_ring_pop(ring, &ev));
	CHECK(ev.type == DP_EV_RESOLVE && ev.port == 1 && ev.ip == IP(10, 0, 2, 7));
	CHECK(!event_ring_pop(ring, &ev));
	CHECK_EQ(txq(1)->tx_n, tx1);

	/* The control thread resolves it (a /32 with the MAC): the held packets leave. */
	struct rib_path host = {.gw = IP(10, 0, 2, 7), .port = 1, .weight = 1};
	rib_route_set(rib, IP(10, 0, 2, 7), 32, RIB_SRC_NEIGH, NH_GATEWAY, &host, 1);
	rib_nh_l2_update(rib, 1, IP(10, 0, 2, 7), nh_l2_pack(gw_mac, NEIGH_REACHABLE));
	POLL_UNTIL(txq(1)->tx_n == tx1 + 4, 2000);
	CHECK_EQ(txq(1)->tx_n, tx1 + 4);

	/* Nobody answers for .8: after the hold timeout the packet is arp-failed. */
	uint64_t failed = counters(0).drops[DROP_ARP_FAILED];
	send_one(&(struct frame_opts){.dst = IP(10, 0, 2, 8)});
	POLL_UNTIL(counters(0).drops[DROP_ARP_FAILED] == failed + 1, 3000);
	CHECK_EQ(counters(0).drops[DROP_ARP_FAILED], failed + 1);

	/* A failed gateway: drop with host unreachable straight away. */
	rib_nh_l2_update(rib, 1, IP(10, 0, 2, 2), nh_l2_pack(gw_mac, NEIGH_FAILED));
	expect_verdict(&(struct frame_opts){.dst = IP(10, 20, 0, 5)}, DROP_ARP_FAILED,
	               ICMP_DEST_UNREACH, ICMP_CODE_HOST_UNREACH);
	rib_nh_l2_update(rib, 1, IP(10, 0, 2, 2), nh_l2_pack(gw_mac, NEIGH_REACHABLE));

	/* The egress link is down: dropped as link-down with net unreachable, nothing sent. */
	uint64_t sent1 = txq(1)->tx_n;
	dp.ports[1].link_down = 1;
	expect_verdict(&(struct frame_opts){.dst = IP(10, 20, 0, 5)}, DROP_LINK_DOWN,
	               ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH);
	CHECK_EQ(txq(1)->tx_n, sent1);
	dp.ports[1].link_down = 0;
}

static void test_ecmp(void)
{
	uint64_t a = txq(0)->tx_n, b = txq(1)->tx_n;

	for (uint16_t port = 0; port < 400; port++) {
		send_one(&(struct frame_opts){.dst = IP(10, 99, 0, 1),
		                              .sport = (uint16_t)(1000 + port)});
		dp_worker_poll(&dp, 0);
	}
	CHECK(txq(0)->tx_n - a > 100 && txq(1)->tx_n - b > 100);
	CHECK_EQ(txq(0)->tx_n - a + txq(1)->tx_n - b, 400);
}

static void test_tx_full_and_ratelimit(void)
{
	uint64_t full = counters(0).drops[DROP_TX_FULL];

	txq(1)->tx_room = 1;
	for (int i = 0; i < 3; i++)
		send_one(&(struct frame_opts){.dst = IP(10, 20, 0, 5)});
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_TX_FULL], full + 2);
	txq(1)->tx_room = ~0u;

	/* A fresh worker with a bucket of 2: the third error in a burst is suppressed. */
	dp_workers_stop(&dp);
	dp.stop = 0;
	dp.params.icmp_burst = 2;
	dp.params.icmp_rate = 1;
	dp_workers_create(&dp, NULL, 1);
	for (int i = 0; i < 5; i++)
		send_one(&(struct frame_opts){.dst = IP(10, 20, 0, 5), .ttl = 1});
	dp_worker_poll(&dp, 0);
	CHECK_EQ(counters(0).drops[DROP_TTL_EXPIRED], 5);
	CHECK_EQ(counters(0).icmp_out, 2);
	CHECK_EQ(counters(0).icmp_ratelimited, 3);
}

static void check_accounting(void)
{
	struct stats_snapshot s;

	dp_stats_take(&dp, &s);
	for (unsigned p = 0; p < s.nports; p++) {
		CHECK_EQ(s.port[p].c.rx_packets,
		         s.port[p].c.forwarded + s.port[p].c.to_kernel + s.port[p].drops_total);
		/* The one IPv6 frame here (test_to_kernel, before the workers are made anew)
		 * went to the kernel: a port without IPv6 addresses forwards none; IPv4 never
		 * shows in the IPv6 counters. */
		CHECK(s.port[p].c.ip6_in_packets <= (p == 0 ? 1u : 0u));
		CHECK_EQ(s.port[p].c.ip6_to_kernel, s.port[p].c.ip6_in_packets);
		CHECK_EQ(s.port[p].c.ip6_out_packets + s.port[p].c.ip6_discards +
		             s.port[p].c.ip6_forwarded + s.port[p].c.ip6_icmp_out,
		         0);
	}
}

int main(void)
{
	setup();
	test_forward();
	test_errors();
	test_gso();
	test_malformed();
	test_to_kernel();
	test_arp_hold();
	test_ecmp();
	check_accounting();
	test_tx_full_and_ratelimit();
	check_accounting();
	dp_workers_stop(&dp);
	rib_free(rib);
	port_fake_fini(&dp.ports[0]);
	port_fake_fini(&dp.ports[1]);
	dp_fini(&dp);
	return check_report("test_worker");
}

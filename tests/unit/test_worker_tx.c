/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The worker's output side on in-memory ports, where a frame could be lost
 * or counted under the wrong reason: a TX batch that fills while fragments
 * are built in scratch (every frame must leave once, intact), super-packets
 * waiting for ARP, the hold timeout's ICMP error, a driver that refuses one
 * frame of a batch (the others still leave), datagrams trimmed of trailing
 * octets, and the accounting rule rx = forwarded + to-kernel + drops.
 */
#include <string.h>

#include "daemon/rib.h"
#include "datapath/csum.h"
#include "datapath/icmp.h"
#include "datapath/ip4.h"
#include "lib/clock.h"
#include "tests/unit/check.h"
#include "tests/unit/fib_env.h"
#include "tests/unit/port_fake.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define SENDER         IP(10, 0, 1, 2)

static struct dataplane dp;
static struct rib *rib;
static const uint8_t host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
static const uint8_t gw_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};

static struct port_queue *txq(unsigned port)
{
	return dp.ports[port].queues[0];
}

static struct port_counters counters(unsigned port)
{
	struct stats_snapshot s;

	dp_stats_take(&dp, &s);
	return s.port[port].c;
}

/* An IPv4 datagram in `f` (Ethernet to port 0): UDP, or TCP when `tcp`; payload byte = seed. */
static uint32_t make_ip(uint8_t *f, uint32_t dst, uint16_t total, uint16_t id, bool df, bool tcp,
                        uint8_t seed)
{
	uint8_t *ip = f + 14;

	memset(f, 0, 14u + total);
	memcpy(f, dp.ports[0].mac, 6);
	memcpy(f + 6, host_mac, 6);
	wr16(f + 12, ETHERTYPE_IPV4);
	ip[0] = 0x45;
	wr16(ip + 2, total);
	wr16(ip + 4, id);
	wr16(ip + 6, df ? 0x4000 : 0);
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	wr32(ip + 12, SENDER);
	wr32(ip + 16, dst);
	if (tcp)
		ip[20 + 12] = 5 << 4;
	memset(ip + 28 + (tcp ? 12 : 0), seed, total - 28u - (tcp ? 12 : 0));
	wr16(ip + 10, csum_compute(ip, 20));
	return 14u + total;
}

static void rx(const uint8_t *f, uint32_t len)
{
	port_fake_rx_add(&dp.ports[0], f, len, PKT_L2_HOST);
}

/* Poll until the fake RX queue is empty (bursts of BURST_MAX). */
static void poll_all(void)
{
	do
		dp_worker_poll(&dp, 0);
	while (txq(0)->rx_pos < txq(0)->rx_n);
}

/* Poll until `cond`, for at most max_ms: the hold queue works on the millisecond clock. */
#define POLL_UNTIL(cond, max_ms)                                                                   \
	do {                                                                                       \
		uint64_t t0_ = mono_ms();                                                          \
		while (!(cond) && mono_ms() - t0_ < (max_ms))                                      \
			dp_worker_poll(&dp, 0);                                                    \
	} while (0)

static void resolve(uint32_t ip)
{
	struct rib_path host = {.gw = ip, .port = 1, .weight = 1};

	rib_route_set(rib, ip, 32, RIB_SRC_NEIGH, NH_GATEWAY, &host, 1);
	rib_nh_l2_update(rib, 1, ip, nh_l2_pack(gw_mac, NEIGH_REACHABLE));
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

static void setup(void)
{
	struct rib_path p0 = {.port = 0, .weight = 1}, p1 = {.port = 1, .weight = 1};
	struct rib_path gw = {.gw = IP(10, 0, 2, 2), .port = -1, .weight = 1};

	dp_init(&dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256});
	dp.nports = 2;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	port_fake_init(&dp.ports[1], 1, "eth1", 1);
	dp.ports[0].ip4_addr = IP(10, 0, 1, 1);
	dp.ports[1].ip4_addr = IP(10, 0, 2, 1);
	dp.params =
	    (struct dp_params){.icmp_rate = 100000, .icmp_burst = 1000, .hold_timeout_ms = 60};
	rib = rib_new(&dp, no_seed, NULL);
	rib_route_set(rib, IP(10, 0, 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1);
	rib_route_set(rib, IP(10, 0, 2, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	rib_route_set(rib, IP(10, 20, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1);
	rib_nh_l2_update(rib, 1, IP(10, 0, 2, 2), nh_l2_pack(gw_mac, NEIGH_REACHABLE));
	rib_nh_l2_update(rib, 0, SENDER, nh_l2_pack(host_mac, NEIGH_REACHABLE));
	dp_workers_create(&dp, NULL, 1);
}

#define SCRATCH_DESTS 60
#define SCRATCH_PKTS  (SCRATCH_DESTS * 4)

/*
 * 240 packets wait for 60 neighbours, then leave in one hold pass: three
 * short ones for every 1000-octet one, which the 576-octet egress cuts into
 * two fragments built in the worker's scratch. The port's batch (128) fills
 * while fragment scratch is still free, so the batch is flushed between
 * fragments; every frame must still leave exactly once, with its own bytes.
 */
static void test_scratch_full_batch(void)
{
	static uint8_t seen[SCRATCH_PKTS][2];
	uint8_t f[FAKE_FRAME_SZ];
	uint64_t tx0 = txq(1)->tx_n;
	unsigned want = 0, bad = 0, dup = 0;

	dp.ports[1].mtu = 576;
	for (unsigned i = 0; i < SCRATCH_PKTS; i++) {
		bool big = i % 4 == 3;
		uint32_t dst = IP(10, 0, 2, 100 + i / 4);

		rx(f, make_ip(f, dst, big ? 1000 : 100, (uint16_t)i, false, false, (uint8_t)i));
		want += big ? 2 : 1;
	}
	poll_all();
	CHECK_EQ(dp_worker_held(&dp, 0), SCRATCH_PKTS);
	for (unsigned d = 0; d < SCRATCH_DESTS; d++)
		resolve(IP(10, 0, 2, 100 + d));
	POLL_UNTIL(dp_worker_held(&dp, 0) == 0, 2000);
	CHECK_EQ(txq(1)->tx_n - tx0, want);
	for (uint64_t n = tx0; n < txq(1)->tx_n; n++) {
		uint32_t len;
		const uint8_t *o = port_fake_tx_frame(txq(1), (unsigned)n, &len);
		const uint8_t *ip = o + 14;
		uint16_t id = rd16(ip + 4), off = rd16(ip + 6) & 0x1fff;
		uint32_t data = (off ? 0 : 8), body = rd16(ip + 2) - 20u - data;

		if (id >= SCRATCH_PKTS || off > 69 || csum_compute(ip, 20) != 0) {
			bad++;
			continue;
		}
		for (uint32_t k = 0; k < body; k++)
			bad += ip[20 + data + k] != (uint8_t)id;
		dup += seen[id][off != 0]++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(dup, 0);
	dp.ports[1].mtu = 1500;
}

/* A TSO super-packet of `total` octets for dst, as a vnet-header driver delivers it. */
static void rx_super(uint32_t dst, uint16_t total, uint8_t seed)
{
	uint8_t f[FAKE_FRAME_SZ];
	struct port_queue *q = txq(0);

	rx(f, make_ip(f, dst, total, seed, true, true, seed));
	q->rx_off[(q->rx_n - 1) % FAKE_FRAMES] =
	    (struct fake_offload){.gso_type = PKT_GSO_TCP4, .gso_size = 1000};
}

/*
 * A super-packet (larger than an ordinary hold buffer) waits for ARP like
 * any packet, in one of the HOLD_BIG large entries; only when those are all
 * taken is one dropped as arp-hold-full.
 */
static void test_super_packet_hold(void)
{
	struct port_counters c = counters(0);
	uint64_t tx0 = txq(1)->tx_n;

	dp.ports[1].tx_offload = true;
	for (unsigned i = 0; i < 5; i++)
		rx_super(IP(10, 0, 2, 200 + i), 3500, (uint8_t)(0x40 + i));
	poll_all();
	CHECK_EQ(counters(0).drops[DROP_ARP_HOLD_FULL] - c.drops[DROP_ARP_HOLD_FULL], 1);
	CHECK_EQ(dp_worker_held(&dp, 0), 4);
	for (unsigned i = 0; i < 4; i++)
		resolve(IP(10, 0, 2, 200 + i));
	POLL_UNTIL(dp_worker_held(&dp, 0) == 0, 2000);
	CHECK_EQ(txq(1)->tx_n - tx0, 4);
	CHECK_EQ(counters(0).forwarded - c.forwarded, 4);
	const struct pkt *m = &txq(1)->tx_meta[(txq(1)->tx_n - 1) % FAKE_FRAMES];
	CHECK(m->len == 14 + 3500 && m->gso_type == PKT_GSO_TCP4 && m->gso_size == 1000);
	dp.ports[1].tx_offload = false;
}

/* Nobody answers: after the hold timeout, arp-failed and the ICMP host unreachable it names. */
static void test_hold_timeout_icmp(void)
{
	struct port_counters c = counters(0);
	uint8_t f[FAKE_FRAME_SZ];
	uint64_t tx0 = txq(0)->tx_n;

	rx(f, make_ip(f, IP(10, 0, 2, 8), 100, 7, false, false, 7));
	poll_all();
	POLL_UNTIL(counters(0).drops[DROP_ARP_FAILED] > c.drops[DROP_ARP_FAILED], 3000);
	CHECK_EQ(counters(0).drops[DROP_ARP_FAILED] - c.drops[DROP_ARP_FAILED], 1);
	CHECK_EQ(counters(0).icmp_out - c.icmp_out, 1);
	CHECK_EQ(txq(0)->tx_n - tx0, 1);
	uint32_t len;
	const uint8_t *o = port_fake_tx_frame(txq(0), (unsigned)tx0, &len);
	CHECK(o && !memcmp(o, host_mac, 6));
	CHECK(o && o[14 + 9] == 1 && o[14 + 20] == ICMP_DEST_UNREACH &&
	      o[14 + 21] == ICMP_CODE_HOST_UNREACH && rd32(o + 14 + 16) == SENDER);
	CHECK(o && rd32(o + 14 + 28 + 16) == IP(10, 0, 2, 8)); /* the quoted datagram */
}

/*
 * A driver refuses one frame of a batch as too long (port_fake's tx_max_len
 * plays afpacket's frame limit): that one is mtu-exceeded, the frames after
 * it are sent, none is tx-full.
 */
static void test_refused_frame(void)
{
	const uint16_t sizes[4] = {100, 500, 100, 100};
	struct port_counters c = counters(0);
	uint8_t f[FAKE_FRAME_SZ];
	uint64_t tx0 = txq(1)->tx_n;

	txq(1)->tx_max_len = 300;
	for (unsigned i = 0; i < 4; i++)
		rx(f, make_ip(f, IP(10, 20, 0, 5), sizes[i], (uint16_t)(900 + i), false, false, 1));
	poll_all();
	txq(1)->tx_max_len = 0;
	CHECK_EQ(txq(1)->tx_n - tx0, 3);
	CHECK_EQ(counters(0).forwarded - c.forwarded, 3);
	CHECK_EQ(counters(0).drops[DROP_MTU_EXCEEDED] - c.drops[DROP_MTU_EXCEEDED], 1);
	CHECK_EQ(counters(0).drops[DROP_TX_FULL] - c.drops[DROP_TX_FULL], 0);
	uint32_t len;
	const uint8_t *o = port_fake_tx_frame(txq(1), (unsigned)tx0 + 1, &len);
	CHECK(o && rd16(o + 14 + 4) == 902);
}

/*
 * Octets after the datagram are not forwarded, so a frame with a trailer
 * can leave through a smaller MTU; the 60-octet minimum stays as it came.
 */
static void test_trim(void)
{
	uint8_t f[FAKE_FRAME_SZ];
	uint64_t tx0 = txq(1)->tx_n;
	uint32_t len;

	dp.ports[1].mtu = 576;
	make_ip(f, IP(10, 20, 0, 5), 100, 1, true, false, 3);
	memset(f + 114, 0x5a, 1000);
	rx(f, 1114);
	make_ip(f, IP(10, 20, 0, 5), 28, 2, true, false, 3);
	memset(f + 42, 0, 18);
	rx(f, 60);
	poll_all();
	dp.ports[1].mtu = 1500;
	CHECK_EQ(txq(1)->tx_n - tx0, 2);
	CHECK(port_fake_tx_frame(txq(1), (unsigned)tx0, &len) && len == 114);
	CHECK(port_fake_tx_frame(txq(1), (unsigned)tx0 + 1, &len) && len == 60);
}

static void check_accounting(void)
{
	struct stats_snapshot s;

	dp_stats_take(&dp, &s);
	for (unsigned p = 0; p < s.nports; p++)
		CHECK_EQ(s.port[p].c.rx_packets,
		         s.port[p].c.forwarded + s.port[p].c.to_kernel + s.port[p].drops_total);
}

int main(void)
{
	setup();
	test_scratch_full_batch();
	test_super_packet_hold();
	test_hold_timeout_icmp();
	test_refused_frame();
	test_trim();
	CHECK_EQ(dp_worker_held(&dp, 0), 0);
	check_accounting();
	dp_workers_stop(&dp);
	rib_free(rib);
	port_fake_fini(&dp.ports[0]);
	port_fake_fini(&dp.ports[1]);
	dp_fini(&dp);
	return check_report("test_worker_tx");
}

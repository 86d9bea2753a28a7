/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The worker forwarding into ATM subinterfaces (see test_cellpw.c): when a
 * partly filled carrier frame leaves (at once at the end of a pass with
 * nothing more on its way; held for the concatenation timer while RX brings
 * more), the deadline the worker sleeps towards while a shaper holds cells,
 * and every way a frame can fail to go down a VC: dropped on the port it
 * came in on under the reason that says why, never counted forwarded, so
 * rx = forwarded + to-kernel + drops holds for ATM egress too.
 */
#include <string.h>

#include "daemon/rib.h"
#include "datapath/icmp.h"
#include "lib/clock.h"
#include "lib/wire.h"
#include "tests/unit/cellpw_check.h"
#include "tests/unit/check.h"

#define SENDER IP(10, 4, 0, 2)

static struct rib *rib;

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* An Ethernet frame from the sender on H_ETH for `dst`, IP total length `total`. */
static void eth_rx(uint32_t dst, uint16_t total, uint8_t seed)
{
	uint8_t ip[H_MTU], f[14 + H_MTU + 64];

	h_ip4(ip, total, SENDER, dst, 64, seed);
	port_fake_rx_add(&h.dp.ports[H_ETH], f, h_eth(f, h.dp.ports[H_ETH].mac, ip, total),
	                 PKT_L2_HOST);
}

static void routes(void)
{
	struct rib_path p2 = {.port = H_MP, .weight = 1}, p4 = {.port = H_ETH, .weight = 1};
	struct rib_path via_p2p = {.gw = IP(10, 1, 0, 2), .port = H_P2P, .weight = 1};
	struct rib_path via_shaped = {.gw = IP(10, 3, 0, 2), .port = H_SHAPED, .weight = 1};
	struct rib_path stale = {.gw = IP(10, 2, 0, 50), .port = H_MP, .weight = 1};

	rib = rib_new(&h.dp, no_seed, NULL);
	rib_route_set(rib, IP(10, 2, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p2, 1);
	rib_route_set(rib, IP(10, 4, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p4, 1);
	rib_route_set(rib, IP(192, 168, 50, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &via_p2p, 1);
	rib_route_set(rib, IP(192, 168, 60, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &via_shaped, 1);
	rib_route_set(rib, IP(10, 2, 0, 50), 32, RIB_SRC_NEIGH, NH_GATEWAY, &stale, 1);
	rib_nh_l2_update(rib, H_P2P, IP(10, 1, 0, 2), nh_l2_pack(vc_mac(VC_P2P), NEIGH_REACHABLE));
	rib_nh_l2_update(rib, H_SHAPED, IP(10, 3, 0, 2),
	                 nh_l2_pack(vc_mac(VC_SHAPED), NEIGH_REACHABLE));
	/* Learned on a VC since deleted: its MAC names no VC of the subinterface. */
	rib_nh_l2_update(rib, H_MP, IP(10, 2, 0, 50), nh_l2_pack(vc_mac(200), NEIGH_REACHABLE));
}

/*
 * One cell, then 63 two-cell PDUs in one full RX burst: 31 frames of 4 cells
 * leave, the 3-cell rest waits for more (the worker is busy) until the next
 * pass finds nothing more; with a long concatenation timer either way.
 */
static void test_partial_frame(void)
{
	h.set.concat_us = 5000;
	h_take(&tx);
	eth_rx(IP(192, 168, 50, 1), 28, 1);
	for (unsigned i = 0; i < BURST_MAX - 1; i++)
		eth_rx(IP(192, 168, 50, 1), 60, (uint8_t)i);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 31);
	CHECK_EQ(h.c->tx_cells, 3);
	/* The worker would sleep no longer than the frame's concatenation deadline. */
	CHECK(dp_worker_deadline(&h.dp, 0) <= (h.c->tx_partial_since_us + 5000) * 1000);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 3 && tx.seq_ok);

	/* A lone packet: its frame leaves in the pass that forwarded it. */
	eth_rx(IP(192, 168, 50, 1), 100, 2);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 3);
	h.set.concat_us = 0;
}

static bool last_eth_icmp(uint8_t code)
{
	struct port_queue *q = h.dp.ports[H_ETH].queues[0];
	uint32_t len;
	const uint8_t *o = port_fake_tx_frame(q, q->tx_n - 1, &len);

	return o && o[14 + 9] == 1 && o[14 + 20] == ICMP_DEST_UNREACH && o[14 + 21] == code &&
	       rd32(o + 14 + 16) == SENDER;
}

/* No VC for the next hop, and a VC that is down: refused before queuing, ICMP back. */
static void test_refused_before_queuing(void)
{
	struct port_counters e = h_port(H_ETH);
	struct atm_port_counters a = h_atmc();
	struct vc_counters v = h_vc(VC_P2P);

	h_take(&tx);
	eth_rx(IP(10, 2, 0, 50), 100, 3);
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(h_port(H_ETH).drops[DROP_ARP_FAILED] - e.drops[DROP_ARP_FAILED], 1);
	CHECK(last_eth_icmp(ICMP_CODE_HOST_UNREACH));
	CHECK_EQ(h_atmc().no_vc - a.no_vc, 1);

	__atomic_store_n(&h.dp.vcs[VC_P2P].oper, VC_OPER_DOWN, __ATOMIC_RELEASE);
	eth_rx(IP(192, 168, 50, 9), 100, 4);
	dp_worker_poll(&h.dp, 0);
	__atomic_store_n(&h.dp.vcs[VC_P2P].oper, VC_OPER_UP, __ATOMIC_RELEASE);
	CHECK_EQ(h_port(H_ETH).drops[DROP_LINK_DOWN] - e.drops[DROP_LINK_DOWN], 1);
	CHECK(last_eth_icmp(ICMP_CODE_NET_UNREACH));
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_VC_DOWN] - v.discards[VC_DROP_VC_DOWN], 1);

	CHECK_EQ(h_port(H_ETH).forwarded - e.forwarded, 0);
	CHECK_EQ(h_port(H_ETH).icmp_out - e.icmp_out, 2);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
}

/* Let the shaper send what it holds (PCR 1000: ~1 ms a cell), then forget it. */
static void shaped_drain(const struct atm_vc *vc)
{
	for (uint64_t t0 = mono_ms(); vc->shape_count && mono_ms() - t0 < 2000;)
		dp_worker_poll(&h.dp, 0);
	CHECK_EQ(vc->shape_count, 0);
	h_take(&tx);
}

/*
 * Eight 3-cell PDUs for the shaped VC's 16-cell queue in one burst: five
 * are queued (forwarded), three find it full (tx-full on the port, queue-full
 * on the VC). The worker's deadline is then no later than the shaper's next
 * token, so the queue drains at PCR with nothing received.
 */
static void test_shaped_queue(void)
{
	struct atm_vc *vc = &h.dp.vcs[VC_SHAPED];
	struct port_counters e;
	struct vc_counters v;

	shaped_drain(vc);
	e = h_port(H_ETH);
	v = h_vc(VC_SHAPED);
	for (unsigned i = 0; i < 8; i++)
		eth_rx(IP(192, 168, 60, 1), 100, (uint8_t)(10 + i));
	uint64_t before = mono_ns();
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(h_port(H_ETH).forwarded - e.forwarded, 5);
	CHECK_EQ(h_port(H_ETH).drops[DROP_TX_FULL] - e.drops[DROP_TX_FULL], 3);
	CHECK_EQ(h_vc(VC_SHAPED).discards[VC_DROP_QUEUE_FULL] - v.discards[VC_DROP_QUEUE_FULL], 3);
	CHECK(vc->shape_count > 0);
	uint64_t next = dp_worker_deadline(&h.dp, 0);
	CHECK(next >= before && next <= atm_shaper_next_ns(&vc->shaper, vc->shaper.last_ns));
	shaped_drain(vc); /* the cases after this one expect no shaped cells in their way */
}

/* rx = forwarded + to-kernel + drops on every port, ATM egress included. */
static void check_accounting(void)
{
	const struct stats_snapshot *sn = h_snap();

	for (unsigned p = H_P2P; p <= H_ETH; p++)
		CHECK_EQ(sn->port[p].c.rx_packets, sn->port[p].c.forwarded +
		                                       sn->port[p].c.to_kernel +
		                                       sn->port[p].drops_total);
}

void test_egress(void)
{
	routes();
	test_partial_frame();
	test_refused_before_queuing();
	test_shaped_queue();
	check_accounting();
	rib_free(rib);
}

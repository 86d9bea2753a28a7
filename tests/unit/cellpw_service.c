/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cellpw port's service pass and the worker (see test_cellpw.c): the
 * concatenation timer, packets from the kernel through the host ring, a full
 * carrier, and forwarding between an Ethernet port and the subinterfaces.
 */
#include <string.h>
#include <unistd.h>

#include "daemon/rib.h"
#include "datapath/csum.h"
#include "lib/wire.h"
#include "tests/unit/cellpw_check.h"
#include "tests/unit/check.h"

/*
 * With a concatenation timer and more cells on their way (a busy worker), a
 * partial frame waits for it; at the end of a pass with nothing more, it leaves.
 */
void test_concat_timer(void)
{
	uint8_t ip[100], ip1[28];
	uint64_t t0;

	h.set.concat_us = 1000;
	h_ip4(ip1, sizeof(ip1), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 11);
	send_ip(H_P2P, vc_mac(VC_P2P), ip1, sizeof(ip1));
	t0 = h.c->aq.now_us; /* the subinterface's transmit read the clock */
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	h.c->aq.now_us = t0 + 999;
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	h.c->aq.now_us = t0 + 1000;
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 1 && tx.seq_ok);

	/* 3 + 3 cells: the full frame leaves at once, the 2-cell rest when the link idles. */
	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 12);
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 4);
	cellpw_service(h.c, cellpw_vcset_current(h.c), false);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 2 && tx.seq_ok);
	h.set.concat_us = 0;
}

/*
 * Packets the kernel sent into a subinterface go down their VC on the next
 * service pass; each one makes the port's wake descriptor readable, so a
 * sleeping worker gets to them.
 */
void test_host_ring(void)
{
	struct port *atm = &h.dp.ports[H_ATM];
	struct atm_port_counters a = h_atmc();
	struct vc_counters m = h_vc(VC_MP_MUX);
	uint8_t ip[100], ip6[60] = {0x60, 0, 0, 0, 0, 20};
	unsigned pos = 0;
	int wfd = port_cellpw_ops.wake_fd(atm->queues[0]);
	uint64_t v = 0;

	h_ip4(ip, sizeof(ip), IP(10, 1, 0, 1), IP(10, 1, 0, 2), 64, 13);
	CHECK(wfd >= 0 && read(wfd, &v, sizeof(v)) < 0);
	CHECK(cellpw_host_tx(atm, VC_P2P, ip, sizeof(ip)));
	CHECK(cellpw_host_tx(atm, VC_P2P, ip6, sizeof(ip6)));
	CHECK(cellpw_host_tx(atm, VC_MP_MUX, ip, sizeof(ip)));
	CHECK(cellpw_host_tx(atm, VC_MP_MUX, ip6, sizeof(ip6))); /* VC-mux IPv4: no place for v6 */
	CHECK(read(wfd, &v, sizeof(v)) == sizeof(v) && v == 4);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	CHECK(tx.hdr_ok && tx.seq_ok);
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip, sizeof(ip));
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 2, llc_ip6, 8, ip6, sizeof(ip6));
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_MP_MUX, 3, NULL, 0, ip, sizeof(ip));
	CHECK_EQ(pos, tx.ncells);
	CHECK_EQ(h_atmc().host_tx - a.host_tx, 4);
	CHECK_EQ(h_vc(VC_MP_MUX).discards[VC_DROP_UNKNOWN_LLC] - m.discards[VC_DROP_UNKNOWN_LLC],
	         1);

	/* The ring holds 64: the 65th waits its turn at the control thread. */
	for (unsigned i = 0; i < ATM_HOST_SLOTS; i++)
		CHECK(cellpw_host_tx(atm, VC_P2P, ip, sizeof(ip)));
	CHECK(!cellpw_host_tx(atm, VC_P2P, ip, sizeof(ip)));
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	CHECK(tx.nframes == 48 && tx.ncells == 192 && tx.hdr_ok && tx.seq_ok);
	unsigned good = 0;
	for (pos = 0; h_pdu(&tx, &pos, &pdu);)
		good += pdu.crc_ok && pdu.length == 108 && !memcmp(pdu.cpcs + 8, ip, sizeof(ip));
	CHECK_EQ(good, ATM_HOST_SLOTS);
	CHECK_EQ(h_atmc().host_tx - a.host_tx, 4 + ATM_HOST_SLOTS);
}

/* A carrier whose ring is full: the frame is lost and counted; the far end sees a gap. */
void test_carrier_full(void)
{
	struct atm_port_counters a = h_atmc();
	uint16_t last = h.tx_seq;
	uint8_t ip[100];

	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 14);
	h.car->tx_room = 0;
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	h.car->tx_room = ~0u;
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(h_atmc().tx_full - a.tx_full, 1);
	CHECK_EQ(h_atmc().frames_out - a.frames_out, 0);
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	h_take(&tx);
	CHECK(tx.nframes == 1 && !tx.seq_ok); /* one sequence number went with the lost frame */
	CHECK_EQ(tx.seq[0], pw_seq_next(pw_seq_next(last)));
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* The worker between an Ethernet port and the subinterfaces, both ways. */
void test_worker(void)
{
	static const uint8_t gw_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};
	struct rib *rib = rib_new(&h.dp, no_seed, NULL);
	struct rib_path p1 = {.port = H_P2P, .weight = 1}, p2 = {.port = H_MP, .weight = 1};
	struct rib_path p4 = {.port = H_ETH, .weight = 1};
	struct rib_path via_atm = {.gw = IP(10, 1, 0, 2), .port = H_P2P, .weight = 1};
	struct rib_path via_eth = {.gw = IP(10, 4, 0, 2), .port = H_ETH, .weight = 1};
	struct port_queue *eq = h.dp.ports[H_ETH].queues[0];
	struct port_counters e = h_port(H_ETH), s1 = h_port(H_P2P), s2 = h_port(H_MP);
	uint8_t ip[100], f[128];
	unsigned pos = 0;

	rib_route_set(rib, IP(10, 1, 0, 0), 30, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	rib_route_set(rib, IP(10, 1, 0, 1), 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib_route_set(rib, IP(10, 2, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p2, 1);
	rib_route_set(rib, IP(10, 4, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p4, 1);
	rib_route_set(rib, IP(192, 168, 50, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &via_atm, 1);
	rib_route_set(rib, IP(10, 9, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &via_eth, 1);
	rib_nh_l2_update(rib, H_P2P, IP(10, 1, 0, 2), nh_l2_pack(vc_mac(VC_P2P), NEIGH_REACHABLE));
	rib_nh_l2_update(rib, H_ETH, IP(10, 4, 0, 2), nh_l2_pack(gw_mac, NEIGH_REACHABLE));

	/* Ethernet -> ATM: out on the p2p VC, TTL one less, checksum right. */
	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(192, 168, 50, 5), 64, 15);
	port_fake_rx_add(&h.dp.ports[H_ETH], f, h_eth(f, h.dp.ports[H_ETH].mac, ip, 100),
	                 PKT_L2_HOST);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.hdr_ok && tx.seq_ok);
	CHECK(h_pdu(&tx, &pos, &pdu));
	ip[8] = 63;
	wr16(ip + 10, 0);
	wr16(ip + 10, csum_compute(ip, 20));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_port(H_ETH).forwarded - e.forwarded, 1);
	CHECK_EQ(h_port(H_P2P).tx_packets - s1.tx_packets, 1);

	/* ATM -> Ethernet, from the multipoint subinterface's LLC VC. */
	unsigned etx = eq->tx_n;
	h_ip4(ip, sizeof(ip), IP(10, 2, 0, 9), IP(10, 9, 0, 5), 9, 16);
	h_far_pdu(VC_MP_LLC, llc_ip4, 8, ip, sizeof(ip));
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(eq->tx_n, etx + 1);
	const uint8_t *o = eq->tx_frame[etx % FAKE_FRAMES];
	CHECK(!memcmp(o, gw_mac, 6) && !memcmp(o + 6, h.dp.ports[H_ETH].mac, 6));
	CHECK(o[14 + 8] == 8 && csum_compute(o + 14, 20) == 0);
	CHECK(!memcmp(o + 14 + 20, ip + 20, 80));
	CHECK_EQ(h_port(H_MP).forwarded - s2.forwarded, 1);

	/* TTL 1 from that VC: time exceeded, back down the same VC (its synthetic MAC). */
	h_ip4(ip, sizeof(ip), IP(10, 2, 0, 9), IP(10, 9, 0, 5), 1, 17);
	h_far_pdu(VC_MP_LLC, llc_ip4, 8, ip, sizeof(ip));
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	pos = 0;
	CHECK(tx.nframes >= 1 && h_pdu(&tx, &pos, &pdu));
	CHECK(pdu.vci == h.dp.vcs[VC_MP_LLC].cfg.vci && pdu.crc_ok &&
	      !memcmp(pdu.cpcs, llc_ip4, 8));
	const uint8_t *icmp = pdu.cpcs + 8;
	CHECK(icmp[9] == 1 && icmp[20] == 11 && icmp[21] == 0);
	CHECK(rd32(icmp + 12) == IP(10, 2, 0, 1) && rd32(icmp + 16) == IP(10, 2, 0, 9));
	CHECK_EQ(h_port(H_MP).drops[DROP_TTL_EXPIRED] - s2.drops[DROP_TTL_EXPIRED], 1);
	CHECK_EQ(h_port(H_MP).icmp_out - s2.icmp_out, 1);

	/* For our own address on the p2p subinterface: the kernel's, through its TUN. */
	uint8_t got[200];
	struct atm_port_counters a = h_atmc();
	h_ip4(ip, sizeof(ip), IP(10, 1, 0, 2), IP(10, 1, 0, 1), 64, 18);
	h_far_pdu(VC_P2P, llc_ip4, 8, ip, sizeof(ip));
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(read(h.tun[0], got, sizeof(got)), sizeof(ip));
	CHECK(!memcmp(got, ip, sizeof(ip)));
	CHECK_EQ(h_atmc().punted - a.punted, 1);
	CHECK_EQ(h_port(H_P2P).to_kernel - s1.to_kernel, 1);

	const struct stats_snapshot *sn = h_snap();
	for (unsigned p = H_P2P; p <= H_ETH; p++)
		CHECK_EQ(sn->port[p].c.rx_packets, sn->port[p].c.forwarded +
		                                       sn->port[p].c.to_kernel +
		                                       sn->port[p].drops_total);
	rib_free(rib);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 over the point-to-point subinterface's PVC (see test_cellpw.c), the
 * worker between it and an Ethernet port both ways: RFC 2684 LLC/SNAP with
 * PID 0x86DD (§5.1) and VC-mux IPv6 (§6.1), the next hop being the VC with
 * no neighbour discovery (RFC 2492 §3), the hop limit and ICMPv6 errors of
 * the IPv6 path, the router's own address to the kernel through the TUN, a
 * packet of the wrong protocol on a VC-mux VC dropped and counted in both
 * directions, a VC that is down, per-VC counters and the accounting rule;
 * on a bridged VC (RFC 2684 §5.2) IPv6 in Ethernet both ways and the port
 * answering neighbour solicitations for the subinterface's address; on the
 * multipoint subinterface, each IPv6 next hop out the VC its static map
 * (ipv6-peer-address, published by neigh6 as the VC's synthetic MAC) names,
 * and one no PVC maps dropped as nd-failed with ICMPv6 address unreachable.
 * Routes come from the daemon's IPv6 RIB, as in cellgated.
 */
#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>

#include "daemon/rib.h"
#include "daemon/rib6.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"
#include "lib/wire.h"
#include "tests/unit/cellpw_check.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"

#define LEN6 100 /* an IPv6/UDP packet: 40 + 60 */

static const uint8_t sender_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x06};
static const uint8_t gw_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x06};

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	(void)arg;
	(void)port;
	(void)ip;
	return 0;
}

static uint64_t no_seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	(void)arg;
	(void)port;
	(void)ip;
	return 0;
}

/* An IPv6/UDP packet of LEN6 octets, payload from `seed`. */
static void ip6_make(uint8_t *ip, const char *src, const char *dst, uint8_t hlim, uint8_t seed)
{
	memset(ip, 0, IP6_HLEN);
	ip[0] = 0x60;
	wr16(ip + 4, LEN6 - IP6_HLEN);
	ip[6] = IP6_NH_UDP;
	ip[7] = hlim;
	memcpy(ip + 8, a6(src), 16);
	memcpy(ip + 24, a6(dst), 16);
	wr16(ip + 40, 4000);
	wr16(ip + 42, 9);
	wr16(ip + 44, LEN6 - IP6_HLEN);
	wr16(ip + 46, 0x1234);
	for (unsigned i = 48; i < LEN6; i++)
		ip[i] = (uint8_t)(seed + i);
}

/* From the sender on the Ethernet port. */
static void eth_rx6(const uint8_t *ip)
{
	uint8_t f[14 + LEN6];

	memcpy(f, h.dp.ports[H_ETH].mac, 6);
	memcpy(f + 6, sender_mac, 6);
	wr16(f + 12, ETHERTYPE_IPV6);
	memcpy(f + 14, ip, LEN6);
	port_fake_rx_add(&h.dp.ports[H_ETH], f, sizeof(f), PKT_L2_HOST);
}

static const uint8_t *eth_last(unsigned *n)
{
	struct port_queue *q = h.dp.ports[H_ETH].queues[0];
	uint32_t len;

	*n = q->tx_n;
	return q->tx_n ? port_fake_tx_frame(q, q->tx_n - 1, &len) : NULL;
}

static void routes6(struct rib6 *r6)
{
	struct rib6_path p2p = {.port = H_P2P, .weight = 1}, eth = {.port = H_ETH, .weight = 1};
	struct rib6_path via_vc = {.port = H_P2P, .weight = 1};
	struct rib6_path via_eth = {.port = H_ETH, .weight = 1};

	memcpy(via_vc.gw, a6("2001:db8:1::2"), 16);
	memcpy(via_eth.gw, a6("2001:db8:4::2"), 16);
	rib6_route_set(r6, a6("2001:db8:1::1"), 128, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib6_route_set(r6, a6("2001:db8:1::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &p2p, 1);
	rib6_route_set(r6, a6("2001:db8:4::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &eth, 1);
	/* Through the VC's far end, never resolved: on a PVC the neighbour is the VC. */
	rib6_route_set(r6, a6("2001:db8:50::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &via_vc, 1);
	rib6_route_set(r6, a6("2001:db8:9::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &via_eth, 1);
	rib6_nh_l2_update(r6, H_ETH, a6("2001:db8:4::2"), nh_l2_pack(gw_mac, NEIGH_REACHABLE));
}

/* Ethernet -> VC on `encap`: the PDU carries prefix||packet, hop limit one less. */
static void eth_to_vc(uint8_t encap, const uint8_t *prefix, size_t plen, const char *dst)
{
	struct port_counters e = h_port(H_ETH), s = h_port(H_P2P);
	struct vc_counters v = h_vc(VC_P2P);
	uint8_t ip[LEN6];
	unsigned pos = 0;

	h.dp.vcs[VC_P2P].cfg.encap = encap;
	h_take(&tx);
	ip6_make(ip, "2001:db8:4::2", dst, 64, encap);
	eth_rx6(ip);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.hdr_ok && tx.seq_ok);
	CHECK(h_pdu(&tx, &pos, &pdu));
	ip[7] = 63;
	check_pdu(&pdu, VC_P2P, 3, prefix, plen, ip, LEN6);
	CHECK_EQ(h_port(H_ETH).forwarded - e.forwarded, 1);
	CHECK_EQ(h_port(H_P2P).tx_packets - s.tx_packets, 1);
	CHECK_EQ(h_vc(VC_P2P).pdus_out - v.pdus_out, 1);
	CHECK_EQ(h_vc(VC_P2P).octets_out - v.octets_out, plen + LEN6);
	CHECK_EQ(h_vc(VC_P2P).cells_out - v.cells_out, 3);
}

/* VC on `encap` -> Ethernet, to the gateway's MAC, hop limit one less. */
static void vc_to_eth(uint8_t encap, const uint8_t *prefix, size_t plen)
{
	struct port_counters s = h_port(H_P2P);
	struct vc_counters v = h_vc(VC_P2P);
	uint64_t d = h_vc_discards(VC_P2P);
	uint8_t ip[LEN6];
	unsigned n0, n1;

	h.dp.vcs[VC_P2P].cfg.encap = encap;
	eth_last(&n0);
	ip6_make(ip, "2001:db8:1::2", "2001:db8:9::5", 9, (uint8_t)(encap + 50));
	h_far_pdu(VC_P2P, prefix, plen, ip, LEN6);
	dp_worker_poll(&h.dp, 0);
	const uint8_t *o = eth_last(&n1);
	CHECK_EQ(n1, n0 + 1);
	CHECK(o && !memcmp(o, gw_mac, 6) && !memcmp(o + 6, h.dp.ports[H_ETH].mac, 6));
	CHECK(o && rd16(o + 12) == ETHERTYPE_IPV6 && o[14 + 7] == 8);
	CHECK(o && !memcmp(o + 14 + 8, ip + 8, LEN6 - 8));
	CHECK_EQ(h_port(H_P2P).forwarded - s.forwarded, 1);
	CHECK_EQ(h_vc(VC_P2P).pdus_in - v.pdus_in, 1);
	CHECK_EQ(h_vc(VC_P2P).octets_in - v.octets_in, plen + LEN6);
	CHECK_EQ(h_vc_discards(VC_P2P) - d, 0);
}

/* RFC 2684 §6.1: a VC-mux VC carries one protocol; the other is a counted drop both ways. */
static void wrong_protocol(void)
{
	struct port_counters e = h_port(H_ETH), s = h_port(H_P2P);
	struct vc_counters v = h_vc(VC_P2P);
	uint8_t ip[LEN6], ip4[100];
	unsigned n0, n1;

	/* Received: IPv4 on the IPv6 VC never reaches the worker. */
	h.dp.vcs[VC_P2P].cfg.encap = VC_ENCAP_VCMUX_IPV6;
	eth_last(&n0);
	h_ip4(ip4, sizeof(ip4), IP(10, 1, 0, 2), IP(10, 4, 0, 5), 64, 60);
	h_far_pdu(VC_P2P, NULL, 0, ip4, sizeof(ip4));
	dp_worker_poll(&h.dp, 0);
	eth_last(&n1);
	CHECK_EQ(n1, n0);
	CHECK_EQ(h_port(H_P2P).rx_packets - s.rx_packets, 0);
	CHECK_EQ(h_vc(VC_P2P).pdus_in - v.pdus_in, 1);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_UNKNOWN_LLC] - v.discards[VC_DROP_UNKNOWN_LLC], 1);

	/* Sent: IPv4 into it (the kernel's, or a route), and IPv6 into an IPv4 one. */
	h_take(&tx);
	send_ip(H_P2P, vc_mac(VC_P2P), ip4, sizeof(ip4));
	h.dp.vcs[VC_P2P].cfg.encap = VC_ENCAP_VCMUX_IPV4;
	ip6_make(ip, "2001:db8:4::2", "2001:db8:50::7", 64, 61);
	eth_rx6(ip);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_UNKNOWN_LLC] - v.discards[VC_DROP_UNKNOWN_LLC], 3);
	CHECK_EQ(h_vc(VC_P2P).pdus_out - v.pdus_out, 0);
	CHECK_EQ(h_port(H_ETH).drops[DROP_NO_ROUTE] - e.drops[DROP_NO_ROUTE], 1);
	CHECK_EQ(h_port(H_ETH).forwarded - e.forwarded, 0);
	h.dp.vcs[VC_P2P].cfg.encap = VC_ENCAP_LLC_SNAP;
}

/* Hop limit 1 from the VC: time exceeded from the subinterface's address, down the VC. */
static void hop_limit_on_vc(void)
{
	struct port_counters s = h_port(H_P2P);
	uint8_t ip[LEN6];
	unsigned pos = 0;

	h_take(&tx);
	ip6_make(ip, "2001:db8:1::2", "2001:db8:9::5", 1, 70);
	h_far_pdu(VC_P2P, llc_ip6, 8, ip, LEN6);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes >= 1 && h_pdu(&tx, &pos, &pdu));
	CHECK(pdu.vci == h.dp.vcs[VC_P2P].cfg.vci && pdu.crc_ok && !memcmp(pdu.cpcs, llc_ip6, 8));
	const uint8_t *icmp = pdu.cpcs + 8;
	CHECK(icmp[0] >> 4 == 6 && icmp[6] == IP6_NH_ICMPV6);
	CHECK(icmp[IP6_HLEN] == ICMP6_TIME_EXCEEDED && icmp[IP6_HLEN + 1] == ICMP6_CODE_HOP_LIMIT);
	CHECK(!memcmp(icmp + 8, a6("2001:db8:1::1"), 16));
	CHECK(!memcmp(icmp + 24, a6("2001:db8:1::2"), 16));
	CHECK_EQ(h_port(H_P2P).drops[DROP_IP6_HOP_LIMIT] - s.drops[DROP_IP6_HOP_LIMIT], 1);
	CHECK_EQ(h_port(H_P2P).icmp_out - s.icmp_out, 1);
}

/* For the subinterface's own address: the kernel's, through the TUN, as for IPv4. */
static void local_to_tun(void)
{
	struct port_counters s = h_port(H_P2P);
	struct atm_port_counters a = h_atmc();
	uint8_t ip[LEN6], got[200];

	ip6_make(ip, "2001:db8:1::2", "2001:db8:1::1", 64, 80);
	h_far_pdu(VC_P2P, llc_ip6, 8, ip, LEN6);
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(read(h.tun[0], got, sizeof(got)), LEN6);
	CHECK(!memcmp(got, ip, LEN6));
	CHECK_EQ(h_atmc().punted - a.punted, 1);
	CHECK_EQ(h_port(H_P2P).to_kernel - s.to_kernel, 1);
}

/* The VC down (OAM): refused before queuing, ICMPv6 unreachable to the sender. */
static void vc_down(void)
{
	struct port_counters e = h_port(H_ETH);
	struct vc_counters v = h_vc(VC_P2P);
	uint8_t ip[LEN6];
	unsigned n0, n1;

	eth_last(&n0);
	__atomic_store_n(&h.dp.vcs[VC_P2P].oper, VC_OPER_DOWN, __ATOMIC_RELEASE);
	ip6_make(ip, "2001:db8:4::2", "2001:db8:50::8", 64, 90);
	eth_rx6(ip);
	dp_worker_poll(&h.dp, 0);
	__atomic_store_n(&h.dp.vcs[VC_P2P].oper, VC_OPER_UP, __ATOMIC_RELEASE);
	const uint8_t *o = eth_last(&n1);
	CHECK_EQ(n1, n0 + 1);
	CHECK(o && !memcmp(o, sender_mac, 6) && o[14 + 6] == IP6_NH_ICMPV6);
	CHECK(o && o[14 + IP6_HLEN] == ICMP6_DST_UNREACH &&
	      o[14 + IP6_HLEN + 1] == ICMP6_CODE_NO_ROUTE);
	CHECK_EQ(h_port(H_ETH).drops[DROP_LINK_DOWN] - e.drops[DROP_LINK_DOWN], 1);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_VC_DOWN] - v.discards[VC_DROP_VC_DOWN], 1);
}

static const uint8_t llc_br[10] = {0xaa, 0xaa, 0x03, 0x00, 0x80, 0xc2, 0x00, 0x07, 0x00, 0x00};
static const uint8_t far_mac[6] = {0x02, 0xfa, 0, 0, 0, 0x06};

/*
 * The far end of a bridged VC solicits our address (RFC 4861 §7.2.3): the
 * port answers (the TUN has no MAC to answer with) with a solicited NA
 * naming the port's MAC, R and O set, to the solicitor, down the VC.
 */
static void bridged_nd(void)
{
	struct port_counters s = h_port(H_P2P);
	uint8_t ns[ND_FRAME_MAX];
	struct nd_msg m;
	unsigned pos = 0;

	h_take(&tx);
	uint32_t n = nd_ns_build(ns, far_mac, NULL, a6("2001:db8:1::2"), a6("2001:db8:1::1"));
	h_far_pdu(VC_P2P, llc_br, sizeof(llc_br), ns, n);
	/* ... and for another address: not ours to answer, on to the kernel. */
	n = nd_ns_build(ns, far_mac, NULL, a6("2001:db8:1::2"), a6("2001:db8:1::99"));
	h_far_pdu(VC_P2P, llc_br, sizeof(llc_br), ns, n);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && h_pdu(&tx, &pos, &pdu));
	CHECK(pdu.crc_ok && !memcmp(pdu.cpcs, llc_br, sizeof(llc_br)));
	const uint8_t *eth = pdu.cpcs + sizeof(llc_br);
	CHECK(!memcmp(eth, far_mac, 6) && !memcmp(eth + 6, h.dp.ports[H_ATM].mac, 6));
	CHECK_EQ(rd16(eth + 12), ETHERTYPE_IPV6);
	CHECK_EQ(nd_parse(eth + 14, pdu.length - sizeof(llc_br) - 14, &m), ND_OK);
	CHECK(m.type == ICMP6_NEIGH_ADV && m.has_lla && !memcmp(m.lla, h.dp.ports[H_ATM].mac, 6));
	CHECK(!memcmp(m.target, a6("2001:db8:1::1"), 16) &&
	      !memcmp(m.dst, a6("2001:db8:1::2"), 16));
	CHECK_EQ(m.flags, ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE);
	CHECK_EQ(pos, tx.ncells);
	/* The one not answered reached the worker, which gave it to the kernel. */
	CHECK_EQ(h_port(H_P2P).rx_packets - s.rx_packets, 1);
	CHECK_EQ(h_port(H_P2P).to_kernel - s.to_kernel, 1);
	uint8_t got[200];
	CHECK(read(h.tun[0], got, sizeof(got)) > 0);
}

/* IPv6 in Ethernet on a bridged VC, both ways, as on an Ethernet port. */
static void bridged_forward(void)
{
	struct port_counters s = h_port(H_P2P);
	uint8_t ip[LEN6], f[14 + LEN6];
	unsigned pos = 0, n0, n1;

	eth_last(&n0);
	ip6_make(ip, "2001:db8:1::2", "2001:db8:9::5", 9, 100);
	memcpy(f, h.dp.ports[H_ATM].mac, 6);
	memcpy(f + 6, far_mac, 6);
	wr16(f + 12, ETHERTYPE_IPV6);
	memcpy(f + 14, ip, LEN6);
	h_far_pdu(VC_P2P, llc_br, sizeof(llc_br), f, sizeof(f));
	dp_worker_poll(&h.dp, 0);
	const uint8_t *o = eth_last(&n1);
	CHECK(n1 == n0 + 1 && o && !memcmp(o, gw_mac, 6) && o[14 + 7] == 8);
	CHECK_EQ(h_port(H_P2P).forwarded - s.forwarded, 1);

	/* Back: framed to the far end's MAC, learned from its frames. */
	h_take(&tx);
	ip6_make(ip, "2001:db8:4::2", "2001:db8:50::9", 64, 101);
	eth_rx6(ip);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && h_pdu(&tx, &pos, &pdu));
	CHECK(!memcmp(pdu.cpcs, llc_br, sizeof(llc_br)));
	const uint8_t *eth = pdu.cpcs + sizeof(llc_br);
	CHECK(!memcmp(eth, far_mac, 6) && rd16(eth + 12) == ETHERTYPE_IPV6);
	ip[7] = 63;
	CHECK_EQ(pdu.length, sizeof(llc_br) + 14 + LEN6);
	CHECK(!memcmp(eth + 14, ip, LEN6));
}

/* 0/103 LLC/SNAP on H_MP: test_vc_runtime added it in place of VC_MP_LLC, which it deleted. */
#define VC_MP_ADDED H_NVCS

/*
 * The multipoint subinterface H_MP: gateways ::2 on VC_MP_ADDED (LLC/SNAP),
 * ::3 on VC_MP_MUX (VC-mux IPv6 here) as daemon/atm_map6.c maps them, ::9
 * mapped by no PVC (neigh6 published it failed).
 */
static void mp_routes(struct rib6 *r6)
{
	struct rib6_path on = {.port = H_MP, .weight = 1}, gw = {.port = H_MP, .weight = 1};
	static const char *const gws[] = {"2001:db8:2::2", "2001:db8:2::3", "2001:db8:2::9"};
	static const char *const pfx[] = {"2001:db8:60::", "2001:db8:61::", "2001:db8:62::"};

	h.dp.ports[H_MP].ip6 = true;
	port_ip6_src_set(&h.dp.ports[H_MP], a6("2001:db8:2::1"));
	rib6_route_set(r6, a6("2001:db8:2::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1);
	for (unsigned i = 0; i < 3; i++) {
		memcpy(gw.gw, a6(gws[i]), 16);
		rib6_route_set(r6, a6(pfx[i]), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1);
	}
	rib6_nh_l2_update(r6, H_MP, a6(gws[0]), nh_l2_pack(vc_mac(VC_MP_ADDED), NEIGH_REACHABLE));
	rib6_nh_l2_update(r6, H_MP, a6(gws[1]), nh_l2_pack(vc_mac(VC_MP_MUX), NEIGH_REACHABLE));
	rib6_nh_l2_update(r6, H_MP, a6(gws[2]), nh_l2_pack((uint8_t[6]){0}, NEIGH_FAILED));
}

/* Ethernet -> the VC of dst's gateway, nothing on the multipoint subinterface's other VC. */
static void mp_to_vc(const char *dst, uint16_t vc, uint16_t other, const uint8_t *prefix,
                     size_t plen)
{
	struct vc_counters v = h_vc(vc), o = h_vc(other);
	struct port_counters s = h_port(H_MP);
	uint8_t ip[LEN6];
	unsigned pos = 0;

	h_take(&tx);
	ip6_make(ip, "2001:db8:4::2", dst, 64, (uint8_t)vc);
	eth_rx6(ip);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && h_pdu(&tx, &pos, &pdu));
	ip[7] = 63;
	check_pdu(&pdu, vc, 3, prefix, plen, ip, LEN6);
	CHECK_EQ(h_vc(vc).pdus_out - v.pdus_out, 1);
	CHECK_EQ(h_vc(vc).octets_out - v.octets_out, plen + LEN6);
	CHECK_EQ(h_vc(other).pdus_out - o.pdus_out, 0);
	CHECK_EQ(h_port(H_MP).tx_packets - s.tx_packets, 1);
}

/* No map entry: dropped on the ingress port, ICMPv6 code 3 back, nothing on the carrier. */
static void mp_unmapped(void)
{
	struct port_counters e = h_port(H_ETH);
	struct atm_port_counters a = h_atmc();
	uint8_t ip[LEN6];
	unsigned n0, n1;

	h_take(&tx);
	eth_last(&n0);
	ip6_make(ip, "2001:db8:4::2", "2001:db8:62::5", 64, 110);
	eth_rx6(ip);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	const uint8_t *o = eth_last(&n1);
	CHECK_EQ(n1, n0 + 1);
	CHECK(o && !memcmp(o, sender_mac, 6) && o[14 + 6] == IP6_NH_ICMPV6);
	CHECK(o && o[14 + IP6_HLEN] == ICMP6_DST_UNREACH &&
	      o[14 + IP6_HLEN + 1] == ICMP6_CODE_ADDR_UNREACH);
	CHECK_EQ(h_port(H_ETH).drops[DROP_ND_FAILED] - e.drops[DROP_ND_FAILED], 1);
	CHECK_EQ(h_port(H_ETH).icmp_out - e.icmp_out, 1);
	CHECK_EQ(h_atmc().no_vc - a.no_vc, 0); /* never reached the subinterface */
}

/* From a multipoint VC: IPv6 received on the subinterface, forwarded as on any port. */
static void mp_from_vc(void)
{
	struct port_counters s = h_port(H_MP);
	struct vc_counters v = h_vc(VC_MP_MUX);
	uint8_t ip[LEN6];
	unsigned n0, n1;

	eth_last(&n0);
	ip6_make(ip, "2001:db8:2::3", "2001:db8:9::5", 9, 120);
	h_far_pdu(VC_MP_MUX, NULL, 0, ip, LEN6);
	dp_worker_poll(&h.dp, 0);
	const uint8_t *o = eth_last(&n1);
	CHECK(n1 == n0 + 1 && o && !memcmp(o, gw_mac, 6) && o[14 + 7] == 8);
	CHECK_EQ(h_port(H_MP).forwarded - s.forwarded, 1);
	CHECK_EQ(h_vc(VC_MP_MUX).pdus_in - v.pdus_in, 1);
}

static void multipoint(struct rib6 *r6)
{
	uint8_t mux = h.dp.vcs[VC_MP_MUX].cfg.encap;
	unsigned nvcs = h.dp.nvcs;

	/* As atm_pvc_commit does for an added VC: the counter readers cover its id. */
	h.dp.nvcs = VC_MP_ADDED + 1;
	h.dp.vcs[VC_MP_MUX].cfg.encap = VC_ENCAP_VCMUX_IPV6;
	mp_routes(r6);
	mp_to_vc("2001:db8:60::5", VC_MP_ADDED, VC_MP_MUX, llc_ip6, 8);
	mp_to_vc("2001:db8:61::5", VC_MP_MUX, VC_MP_ADDED, NULL, 0);
	mp_unmapped();
	mp_from_vc();
	h.dp.vcs[VC_MP_MUX].cfg.encap = mux;
	h.dp.nvcs = nvcs;
}

void test_ip6(void)
{
	struct rib *rib = rib_new(&h.dp, no_seed, NULL);
	struct rib6 *r6 = rib6_new(rib, no_seed6, NULL);

	CHECK(rib && r6);
	if (!rib || !r6)
		return;
	h.dp.ports[H_P2P].ip6 = true;
	port_ip6_src_set(&h.dp.ports[H_P2P], a6("2001:db8:1::1"));
	h.dp.ports[H_ETH].ip6 = true;
	port_ip6_src_set(&h.dp.ports[H_ETH], a6("2001:db8:4::1"));
	routes6(r6);

	eth_to_vc(VC_ENCAP_LLC_SNAP, llc_ip6, 8, "2001:db8:50::5");
	eth_to_vc(VC_ENCAP_VCMUX_IPV6, NULL, 0, "2001:db8:50::5");
	/* On-link on the subinterface's prefix: the far end, again without ND. */
	eth_to_vc(VC_ENCAP_VCMUX_IPV6, NULL, 0, "2001:db8:1::2");
	vc_to_eth(VC_ENCAP_VCMUX_IPV6, NULL, 0);
	vc_to_eth(VC_ENCAP_LLC_SNAP, llc_ip6, 8);
	wrong_protocol();
	hop_limit_on_vc();
	local_to_tun();
	vc_down();
	memcpy(h.set.ip6_of_subif[H_P2P], a6("2001:db8:1::1"), 16);
	h.dp.vcs[VC_P2P].cfg.encap = VC_ENCAP_LLC_BRIDGED;
	bridged_nd();
	bridged_forward();
	memset(h.set.ip6_of_subif[H_P2P], 0, 16);
	multipoint(r6);

	const struct stats_snapshot *sn = h_snap();
	for (unsigned p = H_P2P; p <= H_ETH; p++)
		CHECK_EQ(sn->port[p].c.rx_packets, sn->port[p].c.forwarded +
		                                       sn->port[p].c.to_kernel +
		                                       sn->port[p].drops_total);
	h.dp.vcs[VC_P2P].cfg.encap = VC_ENCAP_LLC_SNAP;
	rib6_free(r6);
	rib_free(rib);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_afxdp's IPv6 case: which IPv6 frames the XDP program redirects to the
 * XSK (transit, on a port that forwards IPv6, once the router's addresses
 * are in cg_local6) and which it passes to the kernel, each under its
 * decision and folded into the port's IPv6 counters.
 */
#include <netinet/in.h>
#include <string.h>

#include "lib/wire.h"
#include "tests/unit/afxdp_test.h"

static const uint8_t own6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t peer6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t transit6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
static const uint8_t ll6[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t allnodes6[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t mac_33[6] = {0x33, 0x33, 0, 0, 0, 1};

/* IPv6/UDP frame of 100 bytes, payload MAGIC and `seq`. */
static size_t ip6_frame(uint8_t *f, const uint8_t *dst_mac, const uint8_t *src, const uint8_t *dst,
                        uint32_t seq)
{
	const size_t len = 100;
	uint8_t *ip = f + 14, *udp = f + 54;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, mac1, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(ip, 0, 40);
	ip[0] = 0x60;
	wr16(ip + 4, (uint16_t)(len - 54));
	ip[6] = IPPROTO_UDP;
	ip[7] = 64;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	wr16(udp, 4000);
	wr16(udp + 2, 4001);
	wr16(udp + 4, (uint16_t)(len - 54));
	memcpy(udp + 8, MAGIC, 4);
	wr32(udp + 12, seq);
	return len;
}

/* Frames and bytes of all the PASS6_* decisions. */
static uint64_t pass6_sum(uint64_t *bytes)
{
	struct cg_xdp_ctr c[CG_XDP__MAX];
	uint64_t n = 0;

	*bytes = 0;
	if (afxdp_decisions(&tport, c) != 0)
		return 0;
	for (unsigned d = 0; d < CG_XDP__MAX; d++)
		if (CG_XDP_IS_PASS6(d)) {
			n += c[d].packets;
			*bytes += c[d].bytes;
		}
	return n;
}

/* Before the daemon enables IPv6 (or on a port without it) all IPv6 goes to the kernel. */
static void classify6_off(struct port_queue *q, uint8_t *f)
{
	uint64_t off = decision(CG_XDP_PASS6_OFF);

	tport.ip6 = false;
	CHECK(afxdp_local6_set(&tport, &own6, 1) == 0, "own IPv6 address, port without IPv6");
	peer_send(f, ip6_frame(f, tport.mac, peer6, transit6, 1));
	CHECK(decision_wait(CG_XDP_PASS6_OFF, off + 1) == off + 1, "port without IPv6: passed");
	CHECK(rx_drain(q, 64, 1, 200, NULL, NULL) == 0, "no IPv6 on the XSK");
}

/*
 * The port's first IPv6 address added, then its last removed, at runtime
 * (daemon/addrs6.c): afxdp_ipv6_set turns redirection on and off with no
 * change to cg_local6.
 */
static void classify6_runtime(struct port_queue *q, uint8_t *f)
{
	uint64_t redirect = decision(CG_XDP_REDIRECT6), off;

	CHECK(afxdp_local6_set(&tport, &own6, 1) == 0, "own IPv6 address, still no IPv6");
	port_ip6_enable(&tport, true);
	CHECK(afxdp_ipv6_set(&tport, true) == 0, "IPv6 on at runtime");
	peer_send(f, ip6_frame(f, tport.mac, peer6, transit6, 10));
	CHECK(rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "runtime IPv6: transit on the XSK");
	CHECK(decision_wait(CG_XDP_REDIRECT6, redirect + 1) == redirect + 1, "redirect-ipv6");
	off = decision(CG_XDP_PASS6_OFF);
	port_ip6_enable(&tport, false);
	CHECK(afxdp_ipv6_set(&tport, false) == 0, "IPv6 off at runtime");
	peer_send(f, ip6_frame(f, tport.mac, peer6, transit6, 11));
	CHECK(decision_wait(CG_XDP_PASS6_OFF, off + 1) == off + 1, "runtime off: pass-ipv6-off");
	CHECK(rx_drain(q, 64, 1, 200, NULL, NULL) == 0, "runtime off: nothing on the XSK");
	CHECK(afxdp_local6_set(&tport, NULL, 0) == 0, "no own IPv6 address again");
}

void test_classify6(void)
{
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	struct port_counters c = {0};
	uint64_t passed, bytes, group;
	uint8_t f[256];

	if (!q)
		return;
	classify6_off(q, f);
	tport.ip6 = true;
	CHECK(afxdp_local6_set(&tport, &own6, 1) == 0, "IPv6 on");
	group = decision(CG_XDP_PASS6_GROUP);
	peer_send(f, ip6_frame(f, tport.mac, peer6, transit6, 2));  /* redirect */
	peer_send(f, ip6_frame(f, tport.mac, peer6, own6, 3));      /* own address */
	peer_send(f, ip6_frame(f, tport.mac, peer6, ll6, 4));       /* link-local destination */
	peer_send(f, ip6_frame(f, tport.mac, ll6, transit6, 5));    /* link-local source */
	peer_send(f, ip6_frame(f, tport.mac, peer6, allnodes6, 6)); /* ff02::1, unicast MAC */
	peer_send(f, ip6_frame(f, mac_33, peer6, transit6, 7));     /* Ethernet multicast */
	ip6_frame(f, tport.mac, peer6, transit6, 8);
	peer_send(f, 14 + 30); /* shorter than the IPv6 header */
	CHECK(rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "only the transit frame on the XSK");
	CHECK(decision_wait(CG_XDP_REDIRECT6, 1) == 1, "redirect-ipv6");
	CHECK(decision(CG_XDP_PASS6_OWN_ADDR) == 1, "own IPv6 address");
	CHECK(decision(CG_XDP_PASS6_LINK_LOCAL) == 2, "link-local source and destination");
	CHECK(decision(CG_XDP_PASS6_MULTICAST) == 1, "ff02::1");
	CHECK(decision(CG_XDP_PASS6_GROUP) >= group + 1, "Ethernet multicast");
	CHECK(decision(CG_XDP_PASS6_UNDECIDED) == 1, "short IPv6 header");
	CHECK(decision(CG_XDP_PASS6_NO_XSK) == 0, "the queue has its socket");

	/* IPv6 passed to the kernel is IPv6 in and to-kernel, as the worker counts it. */
	afxdp_counters_add(&tport, &c);
	passed = pass6_sum(&bytes);
	CHECK(c.ip6_in_packets == passed && c.ip6_to_kernel == passed && passed >= 7,
	      "ip6 in %lu, to-kernel %lu, passed %lu", (unsigned long)c.ip6_in_packets,
	      (unsigned long)c.ip6_to_kernel, (unsigned long)passed);
	CHECK(c.ip6_in_octets == bytes - 14 * passed, "ip6 octets %lu",
	      (unsigned long)c.ip6_in_octets);

	/* An address removed at runtime: transit for the program again. */
	CHECK(afxdp_local6_set(&tport, NULL, 0) == 0, "no own IPv6 address");
	peer_send(f, ip6_frame(f, tport.mac, peer6, own6, 9));
	CHECK(rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "removed address goes to the XSK");
	tport.ip6 = false;
	CHECK(afxdp_local6_set(&tport, NULL, 0) == 0, "IPv6 off again");
	classify6_runtime(q, f);
	tport.ops->queue_close(q);
}

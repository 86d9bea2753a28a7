/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp port driver and its XDP program against the real kernel, inside
 * a private network namespace with one veth pair (the afpacket harness):
 *
 *   cgt0: the port under test (XDP program in native mode, one XSK per
 *   queue)  <->  cgt1: the "wire", a plain AF_PACKET socket.
 *
 * Checked: which frames the program redirects and which it passes (each
 * counted once under its decision, and folded into the port counters so the
 * accounting rule holds), RX and TX through the UMEM with chunks recycled
 * many times over, ring drops, punts injected into the kernel, the errors
 * (afxdp_errors.c). veth has no zero-copy, so copy mode is what runs here.
 *
 * Needs root and unshare(CLONE_NEWNET); exits 77 (skipped) without them.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "datapath/csum.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/wire.h"
#include "tests/unit/afxdp_test.h"

static const uint8_t mac_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t mac_other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};

static size_t ip_header(uint8_t *f, const uint8_t *dst_mac, uint32_t dst_ip, uint8_t proto,
                        size_t len)
{
	uint8_t *ip = f + 14;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, mac1, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(len - 14));
	ip[8] = 64;
	ip[9] = proto;
	wr32(ip + 12, PEER_ADDR);
	wr32(ip + 16, dst_ip);
	wr16(ip + 10, csum_compute(ip, 20));
	return len;
}

size_t ip_frame(uint8_t *f, const uint8_t *dst_mac, uint32_t dst_ip, uint32_t seq, size_t len)
{
	uint8_t *udp = f + 34;

	ip_header(f, dst_mac, dst_ip, IPPROTO_UDP, len);
	wr16(udp, 4000);
	wr16(udp + 2, 4001);
	wr16(udp + 4, (uint16_t)(len - 34));
	wr16(udp + 6, 0); /* no checksum (RFC 768) */
	memcpy(f + 42, MAGIC, 4);
	wr32(f + 46, seq);
	for (size_t i = 50; i < len; i++)
		f[i] = (uint8_t)(seq * 7 + i);
	return len;
}

size_t echo_frame(uint8_t *f, const uint8_t *dst_mac, uint32_t dst_ip, uint16_t id)
{
	uint8_t *icmp = f + 34;
	size_t len = 34 + 8 + 32;

	ip_header(f, dst_mac, dst_ip, IPPROTO_ICMP, len);
	memset(icmp, 0, 8 + 32);
	icmp[0] = 8; /* echo request */
	wr16(icmp + 4, id);
	wr16(icmp + 6, 1);
	wr16(icmp + 2, csum_compute(icmp, 8 + 32));
	return len;
}

bool is_echo_reply(const uint8_t *f, size_t len, uint16_t id)
{
	return len >= 42 && f[12] == 0x08 && f[13] == 0x00 && f[23] == IPPROTO_ICMP && f[34] == 0 &&
	       rd16(f + 38) == id;
}

uint64_t decision(unsigned d)
{
	struct cg_xdp_ctr c[CG_XDP__MAX];

	if (afxdp_decisions(&tport, c) != 0)
		return UINT64_MAX;
	return c[d].packets;
}

uint64_t decision_wait(unsigned d, uint64_t want)
{
	uint64_t v = decision(d);

	for (long end = (long)mono_ms() + 1000; v < want && (long)mono_ms() < end; usleep(2000))
		v = decision(d);
	return v;
}

static void test_open(void)
{
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	uint32_t id = 0;

	if (!q)
		return;
	CHECK(bpf_xdp_query_id(tport.ifindex, XDP_FLAGS_DRV_MODE, &id) == 0 && id != 0,
	      "program attached in native mode");
	CHECK(afxdp_queue_mode(&tport, 0) == NULL, "port not yet holding the queue");
	tport.queues[0] = q;
	tport.nqueues = 1;
	CHECK(afxdp_queue_mode(&tport, 0) && !strcmp(afxdp_queue_mode(&tport, 0), "copy"),
	      "veth: copy mode");
	CHECK(!tport.tx_offload, "no TX offload through an XSK");
	tport.ops->queue_close(q);
	tport.queues[0] = NULL;
	tport.nqueues = 0;
	CHECK(bpf_xdp_query_id(tport.ifindex, 0, &id) == 0 && id == 0,
	      "program detached with the last queue");
	CHECK(tport.drv == NULL, "port state freed");
}

struct rx_seen {
	unsigned n;
	long seq[64];
	uint32_t len[64];
	bool all_host;
};

static void rx_note(const struct pkt *pk, void *arg)
{
	struct rx_seen *s = arg;

	if (s->n < 64) {
		s->seq[s->n] = frame_seq(pk->data, pk->len);
		s->len[s->n] = pk->len;
	}
	s->all_host &= pk->l2_class == PKT_L2_HOST && pk->in_port == tport.id;
	s->n++;
}

/* One frame of each class: only the transit ones (well formed or not) reach the XSK. */
static void test_classify(void)
{
	static struct rx_seen seen = {.all_host = true};
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	struct port_counters c = {0};
	uint32_t own[] = {OWN_ADDR, 0xc00002ffu};
	uint8_t f[1600];

	if (!q)
		return;
	CHECK(afxdp_local_set(&tport, own, 2) == 0, "own addresses");
	peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, 1, 60));   /* redirect */
	peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, 2, 1514)); /* redirect */
	peer_send(f, ip_frame(f, tport.mac, OWN_ADDR, 3, 100));      /* own address */
	peer_send(f, ip_frame(f, tport.mac, 0xc00002ffu, 4, 100));   /* directed broadcast */
	peer_send(f, ip_frame(f, tport.mac, 0xe0000005u, 5, 100));   /* 224.0.0.5 */
	peer_send(f, ip_frame(f, mac_bcast, TRANSIT_ADDR, 6, 100));  /* L2 broadcast */
	peer_send(f, ip_frame(f, mac_other, TRANSIT_ADDR, 7, 100));  /* other host */
	frame_make(f, tport.mac, mac1, 8, 100);                      /* not IP */
	peer_send(f, 100);
	ip_frame(f, tport.mac, TRANSIT_ADDR, 9, 60);
	f[12] = 0x08, f[13] = 0x06; /* ARP ethertype, unicast to us */
	peer_send(f, 60);
	ip_frame(f, tport.mac, TRANSIT_ADDR, 10, 60);
	f[14] = 0x65; /* IPv6 in an IPv4 frame: the worker drops it (ip-version) */
	peer_send(f, 60);

	CHECK(rx_drain(q, 64, 3, 500, rx_note, &seen) == 3, "XSK got %u frames, want 3", seen.n);
	CHECK(seen.seq[0] == 1 && seen.len[0] == 60 && seen.seq[1] == 2 && seen.len[1] == 1514,
	      "transit frames intact");
	CHECK(seen.all_host, "every frame PKT_L2_HOST on the port");
	CHECK(decision_wait(CG_XDP_REDIRECT, 3) == 3, "redirect %lu", decision(CG_XDP_REDIRECT));
	CHECK(decision(CG_XDP_PASS_OWN_ADDR) == 2, "own address %lu",
	      decision(CG_XDP_PASS_OWN_ADDR));
	CHECK(decision(CG_XDP_PASS_LOCAL_ONLY) == 1, "multicast destination");
	CHECK(decision(CG_XDP_PASS_GROUP) >= 1, "broadcast");
	CHECK(decision(CG_XDP_OTHER_HOST) == 1, "other host");
	CHECK(decision(CG_XDP_PASS_NOT_IP) == 1, "neither IPv4 nor IPv6");
	CHECK(decision(CG_XDP_PASS_ARP) == 1, "ARP");
	CHECK(decision(CG_XDP_RUNT) == 0 && decision(CG_XDP_PASS_NOT_READY) == 0, "none early");

	/* What the worker did not see, folded in: rx counts all but the redirected. */
	tport.queues[0] = q;
	tport.nqueues = 1;
	afxdp_counters_add(&tport, &c);
	CHECK(c.drops[DROP_L2_OTHER_HOST] == 1, "other host counted as l2-other-host");
	CHECK(c.rx_packets == c.to_kernel + c.drops[DROP_L2_OTHER_HOST],
	      "accounting: rx %lu = to-kernel %lu + other-host", (unsigned long)c.rx_packets,
	      (unsigned long)c.to_kernel);
	CHECK(c.rx_packets == decision(CG_XDP_PASS_OWN_ADDR) + decision(CG_XDP_PASS_LOCAL_ONLY) +
	                          decision(CG_XDP_PASS_GROUP) + 3,
	      "rx %lu", (unsigned long)c.rx_packets);
	CHECK(afxdp_local_set(&tport, own, 1) == 0, "drop the broadcast again");
	peer_send(f, ip_frame(f, tport.mac, 0xc00002ffu, 11, 100));
	CHECK(rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "removed address goes to the XSK again");
	tport.queues[0] = NULL;
	tport.nqueues = 0;
	tport.ops->queue_close(q);
}

static bool reply_1111(const uint8_t *f, size_t len)
{
	return is_echo_reply(f, len, 0x1111);
}

static bool reply_2222(const uint8_t *f, size_t len)
{
	return is_echo_reply(f, len, 0x2222);
}

/* The kernel answers ping for its address: passed by the program, or punted by the worker. */
static void test_own_address_and_punt(void)
{
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	uint32_t own[] = {OWN_ADDR};
	uint8_t f[256], r[2048];
	struct pkt pk = {.data = f, .in_port = tport.id};
	uint64_t punted, errs;

	if (!q)
		return;
	char cmd[160];

	/* The kernel replies to 192.0.2.2 at cgt1's MAC without asking ARP first. */
	snprintf(cmd, sizeof(cmd),
	         "ip neigh replace 192.0.2.2 lladdr %02x:%02x:%02x:%02x:%02x:%02x dev " DEV0
	         " nud permanent",
	         mac1[0], mac1[1], mac1[2], mac1[3], mac1[4], mac1[5]);
	CHECK(system(cmd) == 0, "static neighbour");
	CHECK(afxdp_local_set(&tport, own, 1) == 0, "own address");
	peer_send(f, echo_frame(f, tport.mac, OWN_ADDR, 0x1111));
	CHECK(peer_recv_if(r, sizeof(r), 1000, reply_1111) > 0, "kernel answered the passed ping");
	CHECK(rx_drain(q, 64, 1, 100, NULL, NULL) == 0, "echo to us never reaches the XSK");

	/* No map entry: the XSK gets the request, the punt gives it to the kernel. */
	CHECK(afxdp_local_set(&tport, NULL, 0) == 0, "empty map");
	peer_send(f, echo_frame(f, tport.mac, OWN_ADDR, 0x3333));
	CHECK(rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "unknown address reaches the XSK");
	pk.len = (uint32_t)echo_frame(f, tport.mac, OWN_ADDR, 0x2222);
	tport.queues[0] = q;
	tport.nqueues = 1;
	tport.ops->punt(q, &pk);
	CHECK(peer_recv_if(r, sizeof(r), 1000, reply_2222) > 0, "kernel answered the punted ping");
	afxdp_punt_counts(&tport, &punted, &errs);
	CHECK(punted == 1 && errs == 0, "punted %lu errors %lu", (unsigned long)punted,
	      (unsigned long)errs);
	tport.queues[0] = NULL;
	tport.nqueues = 0;
	tport.ops->queue_close(q);
}

static unsigned tx_ip_burst(struct port_queue *q, unsigned from, unsigned n, size_t len)
{
	static uint8_t bufs[64][2048];
	struct pkt pk[64], *pp[64];

	if (n > 64)
		n = 64;
	for (unsigned i = 0; i < n; i++) {
		pk[i] = (struct pkt){.data = bufs[i], .len = (uint32_t)len};
		ip_frame(bufs[i], mac1, TRANSIT_ADDR, from + i, len);
		pp[i] = &pk[i];
	}
	return tport.ops->tx_burst(q, pp, n);
}

/* TX: frames leave intact, in order, and chunks come back through completions many times. */
static void test_xsk_tx(void)
{
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	unsigned sent = 0, got = 0, total = 5000;
	uint8_t r[2048], want[2048];
	ssize_t len;

	if (!q)
		return;
	while (sent < total) {
		unsigned n = tx_ip_burst(q, sent, total - sent < 64 ? total - sent : 64, 300);

		CHECK(tport.ops->tx_flush(q) == 0 || n == 0, "flush");
		sent += n;
		while (got < sent && (len = peer_recv(r, sizeof(r), n ? 1 : 200)) > 0) {
			ip_frame(want, mac1, TRANSIT_ADDR, got, 300);
			CHECK(len == 300 && !memcmp(r, want, 300), "peer frame %u", got);
			got++;
		}
		if (n == 0 && got < sent)
			break;
	}
	while (got < sent && (len = peer_recv(r, sizeof(r), 500)) > 0)
		got++;
	CHECK(sent == total && got == total, "sent %u received %u of %u", sent, got, total);

	/* Longer than MTU + Ethernet + one tag: refused, the frames before it go. */
	static uint8_t big[1600];
	struct pkt ok = {.data = big, .len = 100}, huge = {.data = big, .len = 1519};
	struct pkt *pp[3] = {&ok, &huge, &ok};
	ip_frame(big, mac1, TRANSIT_ADDR, 0, 1519);
	CHECK(tport.ops->tx_burst(q, pp, 3) == 1, "stops at the too-long frame");
	tport.ops->tx_flush(q);
	tport.ops->queue_close(q);
}

/* RX chunks cycle through the fill ring: a small ring carries many times its size. */
static void test_rx_recycle(void)
{
	struct port_queue *q = queue_open(64, 0, false, 0, 1);
	unsigned total = 3000, got = 0;
	uint8_t f[200];
	uint64_t drops = 0;

	if (!q)
		return;
	for (unsigned i = 0; i < total; i += 32) {
		for (unsigned j = i; j < i + 32 && j < total; j++)
			peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, j, 200));
		got += rx_drain(q, 64, total, 5, NULL, NULL);
	}
	got += rx_drain(q, 64, total - got, 300, NULL, NULL);
	CHECK(tport.ops->queue_ring_drops(q, &drops) == 0, "ring drops readable");
	CHECK(got + drops == total && got > total / 2, "received %u + dropped %lu of %u", got,
	      (unsigned long)drops, total);
	tport.ops->queue_close(q);
}

/* Nobody reads the XSK: the RX ring fills and the rest is counted as ring drops. */
static void test_xsk_ring_drops(void)
{
	struct port_queue *q = queue_open(64, 0, false, 0, 1);
	unsigned total = 1000, got;
	uint64_t drops = 0, again = 1;
	uint8_t f[200];

	if (!q)
		return;
	for (unsigned i = 0; i < total; i++) {
		peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, i, 200));
		if (i % 100 == 99)
			usleep(2000);
	}
	usleep(20000);
	CHECK(tport.ops->queue_ring_drops(q, &drops) == 0 && drops > 0, "no drops");
	got = rx_drain(q, 64, total, 200, NULL, NULL);
	CHECK(got == 64, "the RX ring's 64 frames wait, got %u", got);
	CHECK(got + drops == total, "received %u + dropped %lu != %u", got, (unsigned long)drops,
	      total);
	CHECK(tport.ops->queue_ring_drops(q, &again) == 0 && again == 0, "reported once");
	peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, 0, 200));
	CHECK(rx_drain(q, 64, 1, 500, NULL, NULL) == 1, "ring recovers after overrun");
	tport.ops->queue_close(q);
}

int main(void)
{
	int ret;

	log_init("test_afxdp", true, 0);
	ret = setup();
	if (ret)
		return ret;
	tport.ops = port_ops_find("afxdp");
	if (!tport.ops || !afxdp_built()) {
		fprintf(stderr, "FAIL: afxdp driver not built in\n");
		return 1;
	}
	CHECK(netdev_lookup(DEV0, &tport.ifindex, tport.mac, &tport.mtu) == 0, "lookup " DEV0);
	CHECK(netdev_lookup(DEV1, &ret, mac1, &tport.mtu) == 0, "lookup " DEV1);
	CHECK(netdev_set_up(tport.ifindex) == 0 && netdev_set_up(if_nametoindex(DEV1)) == 0, "up");
	CHECK(netdev_addr4_add(tport.ifindex, OWN_ADDR, 24) == 0, "192.0.2.1/24 on " DEV0);
	CHECK(wait_running(), "link up");
	peer_open();
	test_open();
	test_classify();
	test_classify6();
	test_own_address_and_punt();
	test_xsk_tx();
	test_rx_recycle();
	test_xsk_ring_drops();
	test_no_native_xdp();
	test_mtu_limits();
	test_queue_limits();
	test_other_program();
	test_killed_owner();
	test_after_privdrop(); /* last: it gives up root */
	close(peer_fd);
	if (failures) {
		fprintf(stderr, "test_afxdp: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_afxdp: all checks passed\n");
	return 0;
}

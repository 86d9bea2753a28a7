/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The atmsock driver's bursts without an ATM adapter: AF_UNIX datagram
 * socketpairs stand in for the PF_ATMPVC sockets (they keep SDU boundaries
 * the same way), the test holds their far ends. Four VCs, one of each
 * encapsulation, on subinterfaces as the daemon sets them up; what the
 * worker receives (the synthetic frames cellpw hands it too), what leaves
 * on each VC, ARP and InATMARP answered, every bad SDU counted under its
 * reason, the kernel shutting a VC's socket, the subinterface port (atmsub)
 * sending through atmsock and refusing frames under their drop reason, and
 * what the worker's sleep depends on: the service op's deadline (the VC
 * timers) and the wake descriptor the host ring writes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "datapath/arp.h"
#include "datapath/atm/inatmarp.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/ip4.h"
#include "datapath/port_atmsock_priv.h"
#include "datapath/port_cellpw.h"
#include "lib/clock.h"
#include "tests/unit/check.h"

enum { P_ATM = 0, P_P2P = 1, P_MP = 2, NPORTS = 3 };
enum { V_LLC, V_MUX, V_BR, V_BRMUX, NVCS }; /* VC ids = their slots in the table */
#define MTU  1500
#define ME   0x0a000001u /* 10.0.0.1 on both subinterfaces */
#define PEER 0x0a000002u

static const uint8_t port_mac[6] = {0x02, 0, 0, 0, 0, 1};
static const uint8_t far_mac[6] = {0x02, 0xfa, 0, 0, 0, 2};
static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static struct {
	struct port ports[NPORTS];
	struct atm_vc vcs[VC_MAX];
	struct atmsock_settings set;
	struct atmsub_settings sub[NPORTS];
	struct atmsock_queue *q;
	struct port_queue *subq[NPORTS];
	int far[NVCS];
} t;

static void vc_cfg(unsigned id, uint16_t subif, uint8_t encap)
{
	t.vcs[id].cfg = (struct atm_vc_cfg){.atm_port = P_ATM,
	                                    .subif = subif,
	                                    .vpi = 0,
	                                    .vci = (uint16_t)(100 + id),
	                                    .encap = encap,
	                                    .mtu = MTU};
	t.set.vc_ids[t.set.nvcs++] = (uint16_t)id;
}

/* A VC's socket: one end of a socketpair in the queue, the other the far end's. */
static int vc_plug(unsigned id)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = id};
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return -1;
	t.q->fd[id] = sv[0];
	t.far[id] = sv[1];
	atm_vc_reset(&t.vcs[id]);
	return epoll_ctl(t.q->epfd, EPOLL_CTL_ADD, sv[0], &ev);
}

static int setup(void)
{
	struct port *atm = &t.ports[P_ATM];

	memset(&t, 0, sizeof(t));
	*atm = (struct port){.name = "atm0", .id = P_ATM, .ops = &port_atmsock_ops, .drv = &t.set};
	memcpy(atm->mac, port_mac, 6);
	t.set.vcs = t.vcs;
	t.set.ip4_of_subif[P_P2P] = t.set.ip4_of_subif[P_MP] = ME;
	vc_cfg(V_LLC, P_P2P, VC_ENCAP_LLC_SNAP);
	vc_cfg(V_MUX, P_MP, VC_ENCAP_VCMUX_IPV4);
	vc_cfg(V_BR, P_MP, VC_ENCAP_LLC_BRIDGED);
	vc_cfg(V_BRMUX, P_MP, VC_ENCAP_VCMUX_BRIDGED);
	if (atmsock_queue_alloc(atm, &t.q))
		return -1;
	for (unsigned i = 0; i < NVCS; i++)
		if (vc_plug(i))
			return -1;
	if (!(t.q->aq.vcset = atm_vcset_build(&t.q->aq, t.set.vc_ids, t.set.nvcs)))
		return -1;
	atm->queues[0] = (struct port_queue *)(void *)t.q;
	atm->nqueues = 1;
	for (unsigned p = P_P2P; p < NPORTS; p++) {
		t.ports[p] =
		    (struct port){.id = (uint16_t)p, .ops = &port_atmsub_ops, .drv = &t.sub[p]};
		t.sub[p] = (struct atmsub_settings){
		    .atm_port = atm, .tun_fd = -1, .p2p = p == P_P2P, .p2p_vc = V_LLC};
		if (port_atmsub_ops.queue_open(&t.ports[p], 0, 1, &t.subq[p]))
			return -1;
	}
	return 0;
}

static void teardown(void)
{
	for (unsigned p = P_P2P; p < NPORTS; p++)
		if (t.subq[p])
			port_atmsub_ops.queue_close(t.subq[p]);
	for (unsigned i = 0; i < NVCS; i++)
		close(t.far[i]);
	port_atmsock_ops.queue_close((struct port_queue *)(void *)t.q);
}

/* One worker pass over the port (worker.c): its RX burst, then its service op. */
static unsigned rx(struct pkt *pk)
{
	struct port_queue *q = (struct port_queue *)(void *)t.q;
	unsigned n = port_atmsock_ops.rx_burst(q, pk, BURST_MAX);

	port_atmsock_ops.service(q, mono_ns(), n == BURST_MAX);
	return n;
}

static uint64_t disc(unsigned vc, enum vc_drop_reason r)
{
	return t.vcs[vc].ctr.discards[r];
}

static void far_send(unsigned vc, const void *a, size_t alen, const void *b, size_t blen)
{
	uint8_t buf[2048];

	if (alen) /* memcpy from NULL is undefined even for 0 octets */
		memcpy(buf, a, alen);
	if (blen)
		memcpy(buf + alen, b, blen);
	CHECK(send(t.far[vc], buf, alen + blen, 0) == (ssize_t)(alen + blen));
}

static ssize_t far_recv(unsigned vc, uint8_t *buf, size_t len)
{
	return recv(t.far[vc], buf, len, MSG_DONTWAIT);
}

/* A 28-octet IPv4/ICMP-ish packet from PEER to ME. */
static void ip4(uint8_t *ip)
{
	memset(ip, 0, 28);
	ip[0] = 0x45;
	ip[3] = 28;
	ip[8] = 64;
	ip[9] = 1;
	wr32(ip + 12, PEER);
	wr32(ip + 16, ME);
}

/* The frame the worker gets: ours <- VC's synthetic MAC, EtherType, the packet. */
static bool frame_is(const struct pkt *p, unsigned vc, uint16_t port, uint16_t type,
                     const uint8_t *l3, size_t len)
{
	uint8_t src[6];

	vc_mac_make((uint16_t)vc, src);
	return p->vc == vc && p->in_port == port && p->l2_class == PKT_L2_HOST &&
	       p->len == 14 + len && !memcmp(p->data, port_mac, 6) &&
	       !memcmp(p->data + 6, src, 6) && rd16(p->data + 12) == type &&
	       !memcmp(p->data + 14, l3, len);
}

static void test_rx_routed(void)
{
	struct pkt pk[BURST_MAX];
	uint8_t ip[28];

	ip4(ip);
	CHECK_EQ(rx(pk), 0);
	far_send(V_LLC, rfc2684_llc_header(0x0800), 8, ip, sizeof(ip));
	CHECK_EQ(rx(pk), 1);
	CHECK(frame_is(&pk[0], V_LLC, P_P2P, 0x0800, ip, sizeof(ip)));
	far_send(V_MUX, ip, sizeof(ip), NULL, 0);
	CHECK_EQ(rx(pk), 1);
	CHECK(frame_is(&pk[0], V_MUX, P_MP, 0x0800, ip, sizeof(ip)));
	CHECK_EQ(t.vcs[V_LLC].ctr.pdus_in, 1);
	CHECK_EQ(t.vcs[V_LLC].ctr.octets_in, 36);
	CHECK_EQ(t.vcs[V_LLC].ctr.cells_in, 1); /* 36 + 8-octet trailer: one cell */
	CHECK_EQ(t.vcs[V_MUX].ctr.pdus_in, 1);
}

static void test_rx_bridged(void)
{
	struct pkt pk[BURST_MAX];
	uint8_t ip[28], h[24], other[6] = {0x02, 9, 9, 9, 9, 9};
	size_t hl;

	ip4(ip);
	for (unsigned vc = V_BR; vc <= V_BRMUX; vc++) {
		enum rfc2684_encap e = vc == V_BR ? RFC2684_LLC_BRIDGED : RFC2684_VCMUX_BRIDGED;

		hl = rfc2684_bridged_hdr(e, h);
		memcpy(h + hl, port_mac, 6);
		memcpy(h + hl + 6, far_mac, 6);
		wr16(h + hl + 12, 0x0800);
		CHECK(!t.vcs[vc].peer_mac_known);
		far_send(vc, h, hl + 14, ip, sizeof(ip));
		CHECK_EQ(rx(pk), 1);
		CHECK(frame_is(&pk[0], vc, P_MP, 0x0800, ip, sizeof(ip)));
		CHECK(t.vcs[vc].peer_mac_known && !memcmp(t.vcs[vc].peer_mac, far_mac, 6));
		/* Unicast to another MAC: not ours. */
		memcpy(h + hl, other, 6);
		far_send(vc, h, hl + 14, ip, sizeof(ip));
		CHECK_EQ(rx(pk), 0);
		CHECK_EQ(disc(vc, VC_DROP_NOT_FOR_US), 1);
	}
}

/* The far end ARPs for our address on the bridged VC: it learns our MAC, we its address. */
static void test_bridged_arp(void)
{
	struct pkt pk[BURST_MAX];
	uint8_t f[ARP_FRAME_LEN], h[10], got[256];
	struct arp_info ai;
	struct dp_event ev;

	rfc2684_bridged_hdr(RFC2684_LLC_BRIDGED, h);
	arp_request_build(f, far_mac, PEER, ME, NULL);
	far_send(V_BR, h, 10, f, 42);
	CHECK_EQ(rx(pk), 0);
	CHECK(far_recv(V_BR, got, sizeof(got)) == 10 + 42);
	CHECK(!memcmp(got, h, 10));
	CHECK(arp_parse(got + 10, 42, &ai));
	CHECK(!memcmp(got + 10, far_mac, 6) && !memcmp(got + 16, port_mac, 6));
	CHECK(ai.op == ARP_OP_REPLY && ai.spa == ME && ai.tpa == PEER);
	CHECK(!memcmp(ai.sha, port_mac, 6) && !memcmp(ai.tha, far_mac, 6));
	CHECK(event_ring_pop(t.q->aq.events, &ev));
	CHECK(ev.type == DP_EV_INATMARP && ev.vc == V_BR && ev.ip == PEER && ev.port == P_MP);
	CHECK(!memcmp(ev.mac, far_mac, 6));
	CHECK(t.vcs[V_BR].ctr.inatmarp_in == 1 && t.vcs[V_BR].ctr.inatmarp_out == 1);
	/* A request for someone else: learned from, not answered. */
	arp_request_build(f, far_mac, PEER, PEER + 7, NULL);
	far_send(V_BR, h, 10, f, 42);
	CHECK_EQ(rx(pk), 0);
	CHECK_EQ(far_recv(V_BR, got, sizeof(got)), -1);
	CHECK(event_ring_pop(t.q->aq.events, &ev) && ev.ip == PEER);
	/* Not ARP for IPv4 over Ethernet. */
	f[14 + 5] = 16;
	far_send(V_BR, h, 10, f, 42);
	CHECK_EQ(rx(pk), 0);
	CHECK_EQ(disc(V_BR, VC_DROP_INATMARP_MALFORMED), 1);
}

static void test_inatmarp(void)
{
	struct inatmarp req = {.op = INATMARP_OP_REQUEST, .spa = PEER}, rep;
	struct pkt pk[BURST_MAX];
	uint8_t p[64], got[256];
	struct dp_event ev;
	size_t n = inatmarp_build(p, sizeof(p), &req);

	far_send(V_LLC, rfc2684_llc_header(0x0806), 8, p, n);
	CHECK_EQ(rx(pk), 0);
	CHECK(event_ring_pop(t.q->aq.events, &ev));
	CHECK(ev.type == DP_EV_INATMARP && ev.vc == V_LLC && ev.ip == PEER && ev.port == P_P2P);
	CHECK(far_recv(V_LLC, got, sizeof(got)) == 8 + INATMARP_LEN);
	CHECK(!memcmp(got, rfc2684_llc_header(0x0806), 8));
	CHECK(inatmarp_parse(got + 8, INATMARP_LEN, &rep) == 0);
	CHECK(rep.op == INATMARP_OP_REPLY && rep.spa == ME && rep.tpa == PEER);
}

/* Every SDU that is not a packet is counted once, under its reason. */
static void test_rx_bad(void)
{
	static const uint8_t mpls_llc[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x88, 0x47};
	struct pkt pk[BURST_MAX];
	uint8_t big[MTU + 9] = {0};
	uint64_t in = t.vcs[V_LLC].ctr.pdus_in;

	far_send(V_LLC, mpls_llc, 8, "xxxx", 4);
	far_send(V_LLC, rfc2684_llc_header(0x0800), 8, NULL, 0);
	far_send(V_LLC, NULL, 0, NULL, 0);
	memcpy(big, rfc2684_llc_header(0x0800), 8);
	far_send(V_LLC, big, sizeof(big), NULL, 0); /* one octet over MTU + LLC */
	far_send(V_BR, "\xaa\xaa\x03\x00\x80\xc2\x00\x01\x00\x00", 10, big, 60); /* with FCS */
	CHECK_EQ(rx(pk), 0);
	CHECK_EQ(disc(V_LLC, VC_DROP_UNKNOWN_LLC), 1);
	CHECK_EQ(disc(V_LLC, VC_DROP_SHORT), 1);
	CHECK_EQ(disc(V_LLC, VC_DROP_ABORT), 1);
	CHECK_EQ(disc(V_LLC, VC_DROP_OVERSIZE), 1);
	CHECK_EQ(disc(V_BR, VC_DROP_UNKNOWN_LLC), 1);
	/* Decapsulation counts what it saw; an oversize or empty SDU never gets there. */
	CHECK_EQ(t.vcs[V_LLC].ctr.pdus_in, in + 2);
}

/*
 * The worker's way out: a frame to a subinterface, encapsulated per VC.
 * Returns -1 if the port took it, else the drop reason it refused it for
 * (tx_refused), which is the worker's to count.
 */
static int sub_try(unsigned port, unsigned vc, const uint8_t *ip, size_t len)
{
	uint8_t f[1600];
	struct pkt p = {.data = f, .len = (uint32_t)(14 + len)};
	struct pkt *pp = &p;
	int r = -1;

	vc_mac_make((uint16_t)vc, f);
	memcpy(f + 6, port_mac, 6);
	wr16(f + 12, 0x0800);
	memcpy(f + 14, ip, len);
	if (port_atmsub_ops.tx_burst(t.subq[port], &pp, 1) != 1)
		r = port_atmsub_ops.tx_refused(t.subq[port], &p);
	port_atmsub_ops.tx_flush(t.subq[port]);
	return r;
}

static void sub_send(unsigned port, unsigned vc, const uint8_t *ip, size_t len)
{
	CHECK_EQ(sub_try(port, vc, ip, len), -1);
}

static void test_tx(void)
{
	uint8_t ip[28], got[256], pad[60] = {0};
	ssize_t n;

	ip4(ip);
	memcpy(pad, ip, sizeof(ip)); /* a short packet padded to the Ethernet minimum */
	sub_send(P_P2P, V_LLC, pad, 46);
	n = far_recv(V_LLC, got, sizeof(got));
	CHECK(n == 36 && !memcmp(got, rfc2684_llc_header(0x0800), 8) && !memcmp(got + 8, ip, 28));
	sub_send(P_MP, V_MUX, ip, sizeof(ip));
	CHECK(far_recv(V_MUX, got, sizeof(got)) == 28 && !memcmp(got, ip, 28));
	/* Bridged: to the MAC learned from the far end's frames (test_rx_bridged). */
	sub_send(P_MP, V_BRMUX, ip, sizeof(ip));
	n = far_recv(V_BRMUX, got, sizeof(got));
	CHECK(n == 2 + 14 + 28 && got[0] == 0 && got[1] == 0);
	CHECK(!memcmp(got + 2, far_mac, 6) && !memcmp(got + 8, port_mac, 6));
	CHECK(rd16(got + 14) == 0x0800 && !memcmp(got + 16, ip, 28));
	t.vcs[V_BRMUX].peer_mac_known = false;
	sub_send(P_MP, V_BRMUX, ip, sizeof(ip));
	CHECK(far_recv(V_BRMUX, got, sizeof(got)) == 44 && !memcmp(got + 2, bcast, 6));
	CHECK_EQ(t.vcs[V_LLC].ctr.pdus_out, 1 + 1); /* + the InATMARP reply */
	CHECK_EQ(t.vcs[V_MUX].ctr.octets_out, 28);
	CHECK_EQ(t.vcs[V_MUX].ctr.cells_out, 1);
	/* A VC that is not the subinterface's, one that does not exist: refused as unresolved. */
	uint64_t no_vc = t.q->aq.ctr.no_vc;
	CHECK_EQ(sub_try(P_MP, V_LLC, ip, sizeof(ip)), DROP_ARP_FAILED);
	CHECK_EQ(sub_try(P_MP, 200, ip, sizeof(ip)), DROP_ARP_FAILED);
	CHECK_EQ(t.q->aq.ctr.no_vc, no_vc + 2);
	CHECK_EQ(far_recv(V_LLC, got, sizeof(got)), -1);
	/* The worker asks first (tx_check): the same verdict, before it queues the frame. */
	uint8_t f[14 + 28];
	struct pkt p = {.data = f, .len = sizeof(f)};
	vc_mac_make(200, f);
	memcpy(f + 14, ip, sizeof(ip));
	CHECK_EQ(port_atmsub_ops.tx_check(t.subq[P_MP], &p), DROP_ARP_FAILED);
	vc_mac_make(V_MUX, f);
	CHECK_EQ(port_atmsub_ops.tx_check(t.subq[P_MP], &p), -1);
	/* The ATM port's own tx_burst (VCs without a subinterface) refuses the same way. */
	struct pkt *pp = &p;
	vc_mac_make(200, f);
	wr16(f + 12, 0x0800);
	CHECK_EQ(port_atmsock_ops.tx_burst((struct port_queue *)(void *)t.q, &pp, 1), 0);
	CHECK_EQ(port_atmsock_ops.tx_refused((struct port_queue *)(void *)t.q, &p),
	         DROP_ARP_FAILED);
}

static void test_tx_limits(void)
{
	uint8_t big[MTU + 1] = {0x45}, got[2048];
	unsigned sent = 0;

	/* VC-mux IPv4 carries IPv4 only; nothing over the MTU: each refusal says why. */
	CHECK_EQ(atm_vc_send_l3(&t.q->aq, V_MUX, 0x86dd, big, 40), VC_DROP_UNKNOWN_LLC);
	CHECK_EQ(atm_vc_send_l3(&t.q->aq, V_MUX, 0x0800, big, sizeof(big)), VC_DROP_TOO_BIG);
	CHECK_EQ(atm_tx_drop(VC_DROP_TOO_BIG), DROP_MTU_EXCEEDED);
	CHECK_EQ(atm_tx_drop(VC_DROP_UNKNOWN_LLC), DROP_NO_ROUTE);
	atmsock_tx_push(&t.q->aq);
	CHECK_EQ(disc(V_MUX, VC_DROP_UNKNOWN_LLC), 1);
	CHECK_EQ(disc(V_MUX, VC_DROP_TOO_BIG), 1);
	CHECK_EQ(far_recv(V_MUX, got, sizeof(got)), -1);
	/* The far end reads nothing: its queue fills, the rest is tx-full, all accounted. */
	uint64_t out = t.vcs[V_MUX].ctr.pdus_out;
	for (unsigned i = 0; i < 300; i++)
		atm_vc_send_l3(&t.q->aq, V_MUX, 0x0800, big, 1000);
	atmsock_tx_push(&t.q->aq);
	while (far_recv(V_MUX, got, sizeof(got)) == 1000)
		sent++;
	CHECK(sent > 0 && disc(V_MUX, VC_DROP_TX_FULL) > 0);
	CHECK_EQ(t.vcs[V_MUX].ctr.pdus_out - out, sent);
	CHECK_EQ(sent + disc(V_MUX, VC_DROP_TX_FULL), 300);
}

/*
 * What the kernel sends into a subinterface reaches the VC on the next pass,
 * and wakes a sleeping worker: the wake descriptor becomes readable.
 */
static void test_host_ring(void)
{
	struct pkt pk[BURST_MAX];
	uint8_t ip[28], got[256];
	int wfd = port_atmsock_ops.wake_fd((struct port_queue *)(void *)t.q);
	uint64_t v;

	ip4(ip);
	CHECK(wfd >= 0);
	CHECK(read(wfd, &v, sizeof(v)) < 0 && errno == EAGAIN);
	CHECK(atm_host_tx(&t.ports[P_ATM], V_LLC, ip, sizeof(ip)));
	CHECK(!atm_host_tx(&t.ports[P_ATM], 77, ip, sizeof(ip)));
	CHECK(read(wfd, &v, sizeof(v)) == sizeof(v) && v == 1);
	CHECK_EQ(rx(pk), 0);
	CHECK(far_recv(V_LLC, got, sizeof(got)) == 36 && !memcmp(got + 8, ip, 28));
	CHECK_EQ(t.q->aq.ctr.host_tx, 1);
}

/*
 * The worker sleeps until the service op's deadline: with no timer running
 * there is none; an InATMARP VC is due at its next request (RFC 2225 7),
 * and the pass that finds it due sends it and names the next one. The
 * adapter reassembles and atmsock sends no OAM: neither sets a deadline.
 */
static void test_deadline(void)
{
	struct port_queue *q = (struct port_queue *)(void *)t.q;
	struct atm_vc *vc = &t.vcs[V_LLC];
	uint64_t now = 5000000000ull, out = vc->ctr.inatmarp_out; /* 5 s */
	uint8_t got[256];

	vc->cfg.oam_enabled = true; /* configured, but no cell access */
	CHECK_EQ(port_atmsock_ops.service(q, now, false), UINT64_MAX);
	vc->cfg.inatmarp = true;
	vc->cfg.inatmarp_interval_ms = 15000;
	vc->inatmarp_next_ms = 5020;
	now += 1000000; /* the timers run once a millisecond */
	CHECK_EQ(port_atmsock_ops.service(q, now, false), 5020 * 1000000ull);
	CHECK_EQ(vc->ctr.inatmarp_out, out);
	CHECK_EQ(port_atmsock_ops.service(q, 5020 * 1000000ull, false), 20020 * 1000000ull);
	CHECK_EQ(vc->ctr.inatmarp_out, out + 1);
	CHECK(far_recv(V_LLC, got, sizeof(got)) == 8 + INATMARP_LEN);
	CHECK_EQ(vc->ctr.lb_sent, 0);
	vc->cfg.inatmarp = false;
	vc->cfg.oam_enabled = false;
	CHECK_EQ(port_atmsock_ops.service(q, 5021 * 1000000ull, false), UINT64_MAX);
}

/* A VC not in the published set is not read; the kernel shutting a socket takes the VC down. */
static void test_vcset_and_lost(void)
{
	const uint16_t keep[] = {V_LLC, V_BR, V_BRMUX};
	struct pkt pk[BURST_MAX];
	struct dp_event ev;
	uint8_t ip[28], got[64];

	ip4(ip);
	free(atm_vcset_swap(&t.q->aq, atm_vcset_build(&t.q->aq, keep, 3)));
	far_send(V_MUX, ip, sizeof(ip), NULL, 0);
	CHECK_EQ(rx(pk), 0);
	CHECK_EQ(t.vcs[V_MUX].ctr.pdus_in, 1); /* only test_rx_routed's */
	shutdown(t.q->fd[V_LLC], SHUT_RDWR);
	CHECK_EQ(rx(pk), 0);
	CHECK_EQ(t.q->aq.ctr.vc_lost, 1);
	CHECK_EQ(t.vcs[V_LLC].oper, VC_OPER_DOWN);
	CHECK_EQ(t.vcs[V_LLC].ctr.oper_changes, 1);
	CHECK(event_ring_pop(t.q->aq.events, &ev));
	CHECK(ev.type == DP_EV_VC_STATE && ev.vc == V_LLC && ev.val == VC_OPER_DOWN);
	/* Out of the epoll set: it does not come back every burst. */
	CHECK_EQ(rx(pk), 0);
	CHECK_EQ(t.q->aq.ctr.vc_lost, 1);
	CHECK_EQ(sub_try(P_P2P, V_LLC, ip, sizeof(ip)), DROP_LINK_DOWN);
	CHECK_EQ(disc(V_LLC, VC_DROP_VC_DOWN), 1);
	CHECK_EQ(far_recv(V_LLC, got, sizeof(got)), -1);
	/* No cell access: an on-demand loopback is answered "not done" at once. */
	__atomic_add_fetch(&t.vcs[V_BR].ping_req, 1, __ATOMIC_RELEASE);
	t.q->aq.service_ms = 0;
	CHECK_EQ(rx(pk), 0);
	CHECK(event_ring_pop(t.q->aq.events, &ev));
	CHECK(ev.type == DP_EV_VC_PING && ev.vc == V_BR && ev.val == 0);
	CHECK_EQ(t.vcs[V_BR].ctr.lb_sent, 0);
}

int main(void)
{
	if (setup()) {
		CHECK(!"atmsock queue over AF_UNIX socketpairs");
		return check_report("test_atmsock_io");
	}
	test_rx_routed();
	test_rx_bridged();
	test_bridged_arp();
	test_inatmarp();
	test_rx_bad();
	test_tx();
	test_tx_limits();
	test_host_ring();
	test_deadline();
	test_vcset_and_lost();
	teardown();
	return check_report("test_atmsock_io");
}

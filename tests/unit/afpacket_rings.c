/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afpacket port's rings against the kernel (see test_afpacket.c): what
 * queue_open refuses, RX classification and release, overrun, TX through and
 * around the qdisc, fanout across queues, promiscuity, a link flap.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "lib/clock.h"
#include "lib/wire.h"
#include "tests/unit/afpacket_harness.h"

static const uint8_t mac_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t mac_mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb};
static const uint8_t mac_other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};

struct rx_log {
	unsigned n;
	uint8_t data[16][1600];
	struct pkt pk[16];
};

static void rx_copy(const struct pkt *pk, void *arg)
{
	struct rx_log *l = arg;

	if (l->n < 16 && pk->len <= sizeof(l->data[0])) {
		memcpy(l->data[l->n], pk->data, pk->len);
		l->pk[l->n] = *pk;
	}
	l->n++;
}

void test_open_errors(void)
{
	struct port bad = tport;
	struct port_queue *q = NULL;

	bad.ifindex = 0;
	CHECK(tport.ops->queue_open(&bad, 0, 1, &q) == -EINVAL && !q, "port not looked up");
	bad = tport;
	bad.ifindex = 99999;
	CHECK(tport.ops->queue_open(&bad, 0, 1, &q) == -ENODEV && !q, "bind to missing ifindex");
}

/* What the port receives: exactly what was sent, classified by destination. */
void test_rx_frames(void)
{
	static uint8_t sent[7][1600];
	static struct rx_log log;
	const uint8_t *dst[7] = {tport.mac, mac_bcast, mac_mcast, mac_other,
	                         tport.mac, tport.mac, tport.mac};
	const uint8_t cls[7] = {PKT_L2_HOST, PKT_L2_BROADCAST, PKT_L2_MULTICAST, PKT_L2_OTHERHOST,
	                        PKT_L2_HOST, PKT_L2_HOST,      PKT_L2_HOST};
	const size_t lens[7] = {60, 342, 128, 1000, 1514, 61, 200};
	struct port_queue *q = queue_open(0, 0, false, 0, 1);

	if (!q)
		return;
	for (unsigned i = 0; i < 7; i++)
		frame_make(sent[i], dst[i], mac1, i, lens[i]);
	/* Frame 6 carries an 802.1Q tag (VID 100, PCP 5), which must survive. */
	memmove(sent[6] + 16, sent[6] + 12, lens[6] - 16);
	memcpy(sent[6] + 12, "\x81\x00\xa0\x64", 4);
	for (unsigned i = 0; i < 7; i++)
		peer_send(sent[i], lens[i]);

	/* Bursts of 3: the driver must continue mid-block on the next call. */
	CHECK(rx_drain(q, 3, 7, 500, rx_copy, &log) == 7, "got %u frames", log.n);
	CHECK(rx_drain(q, 3, 1, 100, NULL, NULL) == 0, "nothing more");
	for (unsigned i = 0; i < 7 && i < log.n; i++) {
		CHECK(log.pk[i].len == lens[i], "frame %u len %u want %zu", i, log.pk[i].len,
		      lens[i]);
		CHECK(!memcmp(log.data[i], sent[i], lens[i]), "frame %u content", i);
		CHECK(log.pk[i].l2_class == cls[i], "frame %u class %u", i, log.pk[i].l2_class);
		CHECK(log.pk[i].in_port == tport.id, "frame %u in_port", i);
		CHECK(!log.pk[i].csum_partial, "frame %u csum_partial", i);
	}
	tport.ops->queue_close(q);
}

struct seq_state {
	unsigned next, bad;
};

static void rx_in_order(const struct pkt *pk, void *arg)
{
	struct seq_state *s = arg;

	if (frame_seq(pk->data, pk->len) != s->next++ || pk->len != 1000)
		s->bad++;
}

/*
 * The smallest ring (8 blocks, 2 MiB) holds ~1900 of these frames. Fifteen
 * rounds of 200 pass only if rx_release hands blocks back; the ring drops
 * nothing meanwhile. A round is sent without pauses: each block-retire timeout
 * in the middle of a round spends one more block.
 */
void test_rx_release(void)
{
	struct port_queue *q = queue_open(1, 0, false, 0, 1);
	struct seq_state s = {0};
	uint64_t drops = 1;
	unsigned got = 0;

	if (!q)
		return;
	for (unsigned round = 0; round < 15; round++) {
		send_seq(round * 200, 200, tport.mac, false);
		got += rx_drain(q, 32, 200, 500, rx_in_order, &s);
	}
	CHECK(got == 3000 && s.bad == 0, "got %u, %u out of order", got, s.bad);
	CHECK(tport.ops->queue_ring_drops(q, &drops) == 0 && drops == 0, "drops %lu",
	      (unsigned long)drops);
	tport.ops->queue_close(q);
}

/* Overrun: the kernel drops and counts; every frame is received or counted. */
void test_ring_drops(void)
{
	struct port_queue *q = queue_open(1, 0, false, 0, 1);
	uint64_t drops = 0, again = 1;
	unsigned got;

	if (!q)
		return;
	send_seq(0, 4000, tport.mac, true);
	CHECK(tport.ops->queue_ring_drops(q, &drops) == 0 && drops > 0, "no drops");
	got = rx_drain(q, 64, 4000, 200, NULL, NULL);
	CHECK(got + drops == 4000, "received %u + dropped %lu != 4000", got, (unsigned long)drops);
	CHECK(tport.ops->queue_ring_drops(q, &again) == 0 && again == 0, "counter resets");
	send_seq(0, 10, tport.mac, false);
	CHECK(rx_drain(q, 64, 10, 500, NULL, NULL) == 10, "ring recovers after overrun");
	tport.ops->queue_close(q);
}

static unsigned tx_seq_burst(struct port_queue *q, unsigned from, unsigned n, size_t len)
{
	static uint8_t bufs[128][2048];
	struct pkt pk[128], *pp[128];

	for (unsigned i = 0; i < n && i < 128; i++) {
		pk[i] = (struct pkt){.data = bufs[i], .len = len};
		frame_make(bufs[i], mac1, tport.mac, from + i, len);
		pp[i] = &pk[i];
	}
	return tport.ops->tx_burst(q, pp, n < 128 ? n : 128);
}

static unsigned peer_count(unsigned from, unsigned n, size_t len)
{
	uint8_t buf[2048], want[2048];
	unsigned got = 0;
	ssize_t r;

	while (got < n && (r = peer_recv(buf, sizeof(buf), 500)) > 0) {
		frame_make(want, mac1, tport.mac, from + got, len);
		CHECK(r == (ssize_t)len && !memcmp(buf, want, len), "peer frame %u", from + got);
		got++;
	}
	return got;
}

/*
 * Through the qdisc, taps (our RX socket too, but for PACKET_IGNORE_OUTGOING)
 * see what we send; with PACKET_QDISC_BYPASS they do not.
 */
void test_tx(bool bypass)
{
	struct port_queue *q;
	uint8_t big[1600], buf[2048];
	struct pkt pk[3] = {
	    {.data = big, .len = 60}, {.data = big, .len = 1519}, {.data = big, .len = 60}};
	struct pkt *pp[3] = {&pk[0], &pk[1], &pk[2]};
	unsigned n;
	long end;

	qdisc_bypass = bypass;
	/* 60: slots come in blocks of 15, so any other count is rounded up. */
	q = queue_open(0, 60, false, 0, 1);
	qdisc_bypass = true;
	if (!q)
		return;
	CHECK(tx_seq_burst(q, 0, 20, 1514) == 20, "20 frames queued");
	CHECK(tport.ops->tx_flush(q) == 0, "flush");
	CHECK(peer_count(0, 20, 1514) == 20, "20 frames on the wire");
	CHECK(rx_drain(q, 32, 1, 100, NULL, NULL) == 0, "own TX not seen on RX");
	CHECK(tport.ops->tx_flush(q) == 0, "flush with nothing queued");

	/* A full ring accepts what fits and returns at once. */
	n = tx_seq_burst(q, 100, 100, 100);
	CHECK(n == 60, "full ring took %u of 100", n);
	CHECK(tx_seq_burst(q, 160, 1, 100) == 0, "no slot left");
	CHECK(tport.ops->tx_flush(q) == 0, "flush full ring");
	CHECK(peer_count(100, 60, 100) == 60, "60 frames on the wire");
	for (n = 0, end = (long)mono_ms() + 500; n == 0 && (long)mono_ms() < end; usleep(1000))
		n = tx_seq_burst(q, 200, 1, 100);
	CHECK(n == 1, "slots come back after the kernel sent them");
	tport.ops->tx_flush(q);
	CHECK(peer_count(200, 1, 100) == 1, "frame after wrap");

	/* MTU 1500 + 14 + one tag = 1518; 1519 is refused and ends the prefix. */
	frame_make(big, mac1, tport.mac, 300, sizeof(big));
	CHECK(tport.ops->tx_burst(q, pp, 3) == 1, "prefix up to the oversized frame");
	tport.ops->tx_flush(q);
	CHECK(peer_recv(buf, sizeof(buf), 200) == 60, "the frame before it went out");
	CHECK(peer_recv(buf, sizeof(buf), 100) < 0, "nothing after it");
	tport.ops->queue_close(q);
}

/* IPv4/UDP 10.1.0.1:(4096 + seq) -> 10.2.0.1:9 to another host's MAC, MAGIC + seq. */
static size_t udp_frame(uint8_t *f, uint32_t seq)
{
	static const uint8_t hdr[] = {0x08, 0x00,        0x45, 0, 0,  36, 0, 1,  0,  0,
	                              64,   IPPROTO_UDP, 0,    0, 10, 1,  0, 1,  10, 2,
	                              0,    1,           0x10, 0, 0,  9,  0, 16, 0,  0};

	memcpy(f, mac_other, 6);
	memcpy(f + 6, mac1, 6);
	memcpy(f + 12, hdr, sizeof(hdr));
	f[35] = seq; /* the source port varies the flow hash */
	memcpy(f + 42, MAGIC, 4);
	wr32(f + 46, seq);
	memset(f + 50, 0, 10);
	return 60;
}

static void rx_mark(const struct pkt *pk, void *arg)
{
	unsigned *seen = arg;
	long seq = frame_seq(pk->data, pk->len);

	if (seq >= 0 && seq < 64)
		seen[seq]++;
}

/* Two queues in one fanout group share the traffic: each frame exactly once. */
void test_fanout(void)
{
	struct port_queue *q0 = queue_open(1, 16, false, 0, 2);
	struct port_queue *q1 = queue_open(1, 16, false, 1, 2);
	unsigned seen[64] = {0}, n0, n1, once = 0;
	uint8_t f[64];

	if (q0 && q1) {
		for (unsigned i = 0; i < 64; i++)
			peer_send(f, udp_frame(f, i));
		n0 = rx_drain(q0, 32, 64, 200, rx_mark, seen);
		n1 = rx_drain(q1, 32, 64, 200, rx_mark, seen);
		for (unsigned i = 0; i < 64; i++)
			once += seen[i] == 1;
		CHECK(n0 + n1 == 64 && once == 64, "q0 %u + q1 %u, %u seen once", n0, n1, once);
		CHECK(n0 > 0 && n1 > 0, "flows spread: q0 %u q1 %u", n0, n1);
	}
	tport.ops->queue_close(q0);
	tport.ops->queue_close(q1);
}

void test_promisc(void)
{
	static const char show[] = "ip -d link show dev " DEV0;
	struct port_queue *q = queue_open(1, 16, true, 0, 1);

	CHECK(cmd_has(show, "promiscuity 1 "), "promiscuous while open");
	tport.ops->queue_close(q);
	CHECK(cmd_has(show, "promiscuity 0 "), "undone on close");
}

/* Port down and up again: POLLERR once (see rx_fd), then RX goes on. */
void test_link_flap(void)
{
	struct port_queue *q = queue_open(1, 16, false, 0, 1);
	struct pollfd pfd = {.events = POLLIN};
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	bool up = false;

	if (!q)
		return;
	pfd.fd = tport.ops->rx_fd(q);
	CHECK(poll(&pfd, 1, 0) == 0, "idle queue polls quiet (revents %#x)", pfd.revents);
	CHECK(system("ip link set dev " DEV0 " down") == 0, "set down");
	CHECK(netdev_link_is_up(tport.ifindex, &up) == 0 && !up, "down is not up");
	CHECK(netdev_set_up(tport.ifindex) == 0, "set up again");
	CHECK(wait_running(), "running again");
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR), "POLLERR after the flap");
	getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	CHECK(soerr == ENETDOWN, "pending error %d", soerr);
	CHECK(poll(&pfd, 1, 0) == 0, "quiet again once read");
	send_seq(0, 5, tport.mac, false);
	CHECK(rx_drain(q, 32, 5, 500, NULL, NULL) == 5, "RX resumes");
	tport.ops->queue_close(q);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afpacket port's offloads against the kernel (see test_afpacket.c): TCP
 * super-packets sent whole or cut in software (TSO/GSO), the checksum a local
 * stack leaves partial, and super-packets received with their virtio header.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* unshare(), accept4() */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "datapath/csum.h"
#include "lib/clock.h"
#include "lib/wire.h"
#include "tests/unit/afpacket_harness.h"

#define TSO_SEQ 1000u

/*
 * A TCP/IPv4 super-packet 10.9.0.1:5001 -> 10.9.0.2:5002 (DF, TTL 63) with
 * `payload` bytes, as a stack with TSO hands it over: the TCP checksum field
 * holds only the folded pseudo-header sum (CHECKSUM_PARTIAL).
 */
static size_t tso_frame(uint8_t *f, uint32_t payload)
{
	uint8_t *ip = f + 14, *th = ip + 20;
	uint32_t tot = 40 + payload;

	memcpy(f, mac1, 6);
	memcpy(f + 6, tport.mac, 6);
	wr16(f + 12, ETH_P_IP);
	memset(ip, 0, 40);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)tot);
	wr16(ip + 4, 0x1000);
	wr16(ip + 6, 0x4000);
	ip[8] = 63;
	ip[9] = IPPROTO_TCP;
	wr32(ip + 12, 0x0a090001);
	wr32(ip + 16, 0x0a090002);
	wr16(ip + 10, csum_compute(ip, 20));
	wr16(th, 5001);
	wr16(th + 2, 5002);
	wr32(th + 4, TSO_SEQ);
	wr32(th + 8, 1);
	th[12] = 5 << 4;
	th[13] = 0x18; /* PSH, ACK */
	wr16(th + 14, 0xffff);
	for (uint32_t i = 0; i < payload; i++)
		th[20 + i] = (uint8_t)(i * 13 + i / 1000);
	wr16(th + 16,
	     (uint16_t)~csum_fold(csum_partial_sum(ip + 12, 8, 0) + IPPROTO_TCP + tot - 20));
	return 14 + tot;
}

static bool is_tso_segment(const uint8_t *f, size_t len)
{
	return len >= 54 && rd16(f + 12) == ETH_P_IP && f[23] == IPPROTO_TCP &&
	       rd16(f + 36) == 5002;
}

/* One segment cut from tso_frame(super): headers copied, lengths, IDs and sums redone. */
static void check_segment(const uint8_t *super, const uint8_t *f, ssize_t len, unsigned i,
                          uint32_t mss, uint32_t payload)
{
	uint32_t want = payload - i * mss < mss ? payload - i * mss : mss;
	const uint8_t *ip = f + 14, *th = ip + 20;

	CHECK(len == (ssize_t)(54 + want), "segment %u: %zd bytes, want %u", i, len, 54 + want);
	if (len != (ssize_t)(54 + want))
		return;
	CHECK(rd16(ip + 2) == 40 + want && ip[8] == 63 && rd16(ip + 6) == 0x4000,
	      "segment %u: IP length/TTL/DF", i);
	CHECK(rd16(ip + 4) == 0x1000 + i, "segment %u: IP id %#x", i, rd16(ip + 4));
	CHECK(csum_compute(ip, 20) == 0, "segment %u: IP checksum", i);
	CHECK(rd32(th + 4) == TSO_SEQ + i * mss, "segment %u: seq %u", i, rd32(th + 4));
	CHECK(csum_fold(csum_partial_sum(
	          th, 20 + want, csum_partial_sum(ip + 12, 8, 0) + IPPROTO_TCP + 20 + want)) == 0,
	      "segment %u: TCP checksum", i);
	CHECK(!memcmp(th + 20, super + 54 + i * mss, want), "segment %u: payload", i);
}

/* Send one super-packet of `payload` bytes cut in `mss` segments; check them at the peer. */
static void tx_gso_one(struct port_queue *q, uint32_t mss, uint32_t payload)
{
	static uint8_t f[70000], buf[2048];
	struct pkt pk = {.data = f,
	                 .csum_partial = 1,
	                 .gso_type = PKT_GSO_TCP4,
	                 .gso_size = (uint16_t)mss,
	                 .csum_start = 14 + 20,
	                 .csum_offset = 16};
	struct pkt *pp = &pk;
	unsigned nseg = (payload + mss - 1) / mss, i;
	ssize_t r = 0;

	pk.len = tso_frame(f, payload);
	CHECK(tport.ops->tx_burst(q, &pp, 1) == 1, "super-packet of %u bytes queued", pk.len);
	CHECK(tport.ops->tx_flush(q) == 0, "flush");
	for (i = 0; i < nseg && (r = peer_recv_if(buf, sizeof(buf), 500, is_tso_segment)) > 0; i++)
		check_segment(f, buf, r, i, mss, payload);
	CHECK(i == nseg, "%u of %u segments arrived (last recv %zd)", i, nseg, r);
	CHECK(peer_recv_if(buf, sizeof(buf), 100, is_tso_segment) < 0, "nothing more");
}

/*
 * Where the device segments (veth: TSO on), the super-packet crosses whole:
 * the peer's plain packet socket receives it as sent, partial checksum and all.
 */
static void tx_gso_whole(struct port_queue *q)
{
	static uint8_t f[20000], buf[20000];
	struct pkt pk = {.data = f,
	                 .csum_partial = 1,
	                 .gso_type = PKT_GSO_TCP4,
	                 .gso_size = 1448,
	                 .csum_start = 14 + 20,
	                 .csum_offset = 16};
	struct pkt *pp = &pk;
	ssize_t r;

	pk.len = tso_frame(f, 10 * 1448);
	CHECK(tport.ops->tx_burst(q, &pp, 1) == 1, "super-packet queued");
	CHECK(tport.ops->tx_flush(q) == 0, "flush");
	r = peer_recv_if(buf, sizeof(buf), 500, is_tso_segment);
	CHECK(r == (ssize_t)pk.len && !memcmp(buf, f, pk.len), "whole: %zd of %u bytes", r, pk.len);
	CHECK(peer_recv_if(buf, sizeof(buf), 100, is_tso_segment) < 0, "nothing more");
}

/*
 * A super-packet written with its virtio header leaves as MTU-sized segments.
 * With TX checksumming (hence TSO) off on the port, validate_xmit_skb cuts and
 * sums in software, so the peer sees finished segments it can verify. That
 * needs the qdisc path: the driver gives up the requested bypass by itself.
 * The 65535-byte datagram fills 17 pages of its slot (MAX_SKB_FRAGS).
 */
void test_tx_gso(void)
{
	struct port_queue *q = queue_open(0, 15, false, 0, 1);
	uint8_t f[1600];
	struct pkt big = {.data = f, .len = 1519};
	struct pkt *pp = &big;
	uint32_t v = 0;

	if (!q)
		return;
	tx_gso_whole(q);
	tport.ops->queue_close(q);
	CHECK(ethtool_value(DEV0, ETHTOOL_STXCSUM, &v) == 0, "TX checksumming off");
	CHECK(ethtool_value(DEV0, ETHTOOL_GTSO, &v) == 0 && v == 0, "TSO off with it");
	q = queue_open(0, 15, false, 0, 1);
	if (!q)
		return;
	tx_gso_one(q, 1448, 10 * 1448);
	tx_gso_one(q, 1448, 65535 - 40);
	tx_gso_one(q, 1000, 1000); /* one segment: not really GSO, sent as is */
	/* The kernel skips its MTU check with virtio headers: ours still refuses. */
	frame_make(f, mac1, tport.mac, 400, sizeof(f));
	CHECK(tport.ops->tx_burst(q, &pp, 1) == 0, "ordinary frame over the MTU refused");
	tport.ops->queue_close(q);
	v = 1;
	CHECK(ethtool_value(DEV0, ETHTOOL_STXCSUM, &v) == 0, "TX checksumming on again");
	v = 1;
	CHECK(ethtool_value(DEV0, ETHTOOL_STSO, &v) == 0, "TSO on again");
}

static void rx_udp9(const struct pkt *pk, void *arg)
{
	int *partial = arg;

	if (pk->len >= 38 && pk->data[12] == 0x08 && pk->data[23] == IPPROTO_UDP &&
	    pk->data[36] == 0 && pk->data[37] == 9)
		*partial = pk->csum_partial;
}

/* A datagram from the peer's stack leaves its UDP checksum to "hardware". */
void test_csum_partial(void)
{
	struct port_queue *q = queue_open(1, 16, false, 0, 1);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
	char cmd[128];
	int fd = socket(AF_INET, SOCK_DGRAM, 0), partial = -1;

	if (!q)
		return;
	CHECK(netdev_addr4_add(if_nametoindex(DEV1), 0x0a090002, 24) == 0, "address on peer");
	snprintf(cmd, sizeof(cmd),
	         "ip neigh replace 10.9.0.1 lladdr %02x:%02x:%02x:%02x:%02x:%02x dev " DEV1
	         " nud permanent",
	         tport.mac[0], tport.mac[1], tport.mac[2], tport.mac[3], tport.mac[4],
	         tport.mac[5]);
	CHECK(system(cmd) == 0, "%s", cmd);
	to.sin_addr.s_addr = htonl(0x0a090001);
	CHECK(sendto(fd, "hello", 5, 0, (struct sockaddr *)&to, sizeof(to)) == 5, "udp send");
	rx_drain(q, 32, 1, 300, rx_udp9, &partial);
	CHECK(partial == 1, "UDP frame seen with csum_partial (got %d)", partial);
	close(fd);
	tport.ops->queue_close(q);
}

#define GSO_BYTES (4u << 20)

/* The peer host: its own namespace (so TCP crosses the veth), TSO on by default. */
static void gso_peer_main(int up, int down)
{
	static char chunk[65536];
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(5001)};
	char c;
	int fd;

	if (unshare(CLONE_NEWNET) < 0 || write(up, "u", 1) != 1 || read(down, &c, 1) != 1)
		_exit(1);
	if (system("ip link set lo up && ip addr add 10.9.0.2/24 dev " DEV1 " && ip link set " DEV1
	           " up") != 0)
		_exit(2);
	to.sin_addr.s_addr = htonl(0x0a090001);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0)
		_exit(3);
	for (unsigned sent = 0; sent < GSO_BYTES; sent += sizeof(chunk))
		if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
			_exit(4);
	close(fd);
	_exit(0);
}

struct gso_seen {
	unsigned super, bad;
	struct pkt last;
};

static void rx_gso_note(const struct pkt *pk, void *arg)
{
	struct gso_seen *s = arg;

	if (pk->len <= 1514 || rd16(pk->data + 12) != ETH_P_IP || pk->data[23] != IPPROTO_TCP)
		return;
	s->super++;
	s->last = *pk;
	if ((pk->gso_type & ~PKT_GSO_ECN) != PKT_GSO_TCP4 || pk->gso_size != 1448 ||
	    !pk->csum_partial || pk->csum_start != 34 || pk->csum_offset != 16)
		s->bad++;
}

/* Receive the peer's stream on a listener at 10.9.0.1 while draining queue q. */
static unsigned gso_stream_sink(struct port_queue *q, int lfd, struct gso_seen *seen)
{
	static char buf[1 << 16];
	unsigned total = 0;
	int cfd = -1;
	ssize_t r = 1;

	for (long end = (long)mono_ms() + 10000; r != 0 && (long)mono_ms() < end;) {
		struct pollfd pfd[2] = {{.fd = cfd < 0 ? lfd : cfd, .events = POLLIN},
		                        {.fd = tport.ops->rx_fd(q), .events = POLLIN}};

		poll(pfd, 2, 10);
		if (cfd < 0)
			cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
		else if ((r = read(cfd, buf, sizeof(buf))) > 0)
			total += r;
		rx_drain(q, BURST_MAX, ~0u, 1, rx_gso_note, seen);
	}
	if (cfd >= 0)
		close(cfd);
	return total;
}

/*
 * A TCP stream from a host with TSO (the peer, moved into a namespace of its
 * own) reaches the port as super-packets, and the virtio header in front of
 * each says: TCPv4, segments of the MSS (1460 - 12 bytes of timestamps), the
 * checksum to complete at 14 + 20 + 16. Last: cgt1 leaves this namespace.
 */
void test_rx_gso(void)
{
	struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons(5001)};
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	struct gso_seen seen = {0};
	int up[2], down[2], lfd, status = -1;
	unsigned total;
	char cmd[64], c;
	pid_t pid;

	if (!q)
		return;
	CHECK(netdev_addr4_add(tport.ifindex, 0x0a090001, 24) == 0, "10.9.0.1 on " DEV0);
	at.sin_addr.s_addr = htonl(0x0a090001);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK(bind(lfd, (struct sockaddr *)&at, sizeof(at)) == 0 && listen(lfd, 1) == 0,
	      "listen: %s", strerror(errno));
	if (pipe(up) < 0 || pipe(down) < 0 || (pid = fork()) < 0) {
		CHECK(0, "pipe/fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		gso_peer_main(up[1], down[0]);
	CHECK(read(up[0], &c, 1) == 1, "peer namespace");
	snprintf(cmd, sizeof(cmd), "ip link set " DEV1 " netns %d", (int)pid);
	CHECK(system(cmd) == 0, "%s", cmd);
	CHECK(write(down[1], "g", 1) == 1, "go");
	total = gso_stream_sink(q, lfd, &seen);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "peer exit status %#x", status);
	CHECK(total == GSO_BYTES, "received %u of %u bytes", total, GSO_BYTES);
	CHECK(seen.super > 0 && seen.bad == 0, "%u super-packets, %u with wrong offload fields",
	      seen.super, seen.bad);
	CHECK(seen.bad == 0, "last: gso %u/%u csum %u %u+%u", seen.last.gso_type,
	      seen.last.gso_size, seen.last.csum_partial, seen.last.csum_start,
	      seen.last.csum_offset);
	close(lfd);
	close(up[0]), close(up[1]), close(down[0]), close(down[1]);
	tport.ops->queue_close(q);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arrangement test_afpacket's files share (see test_afpacket.c): the
 * namespace with its veth pair, the port under test, the peer socket on the
 * wire, the test frames, and the receive loop a worker would run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* unshare() */
#endif
#include "tests/unit/afpacket_harness.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "lib/clock.h"
#include "lib/wire.h"

int failures;

struct port tport;
bool qdisc_bypass = true;
uint8_t mac1[6];
int peer_fd = -1;

void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

/* Whether the output of a shell command contains needle. */
bool cmd_has(const char *cmd, const char *needle)
{
	static char out[8192];
	size_t len = 0, r;
	FILE *f = popen(cmd, "r");

	if (!f)
		return false;
	while ((r = fread(out + len, 1, sizeof(out) - 1 - len, f)) > 0)
		len += r;
	out[len] = '\0';
	pclose(f);
	return strstr(out, needle) != NULL;
}

/* A test frame: Ethernet, ETHERTYPE_TEST, MAGIC, sequence number, pattern. */
size_t frame_make(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint32_t seq, size_t len)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = ETHERTYPE_TEST >> 8;
	f[13] = ETHERTYPE_TEST & 0xff;
	memcpy(f + 14, MAGIC, 4);
	wr32(f + 18, seq);
	for (size_t i = 22; i < len; i++)
		f[i] = (uint8_t)(seq * 7 + i);
	return len;
}

/* The sequence number of one of our frames (test or IPv4/UDP), or -1. */
long frame_seq(const uint8_t *f, size_t len)
{
	size_t off;

	if (len >= 22 && f[12] == (ETHERTYPE_TEST >> 8) && f[13] == (ETHERTYPE_TEST & 0xff))
		off = 14;
	else if (len >= 50 && f[12] == 0x08 && f[13] == 0x00 && f[23] == IPPROTO_UDP)
		off = 42;
	else
		return -1;
	if (memcmp(f + off, MAGIC, 4) != 0)
		return -1;
	return (long)rd32(f + off + 4);
}

void peer_send(const uint8_t *f, size_t len)
{
	if (send(peer_fd, f, len, 0) != (ssize_t)len)
		CHECK(0, "peer send %zu bytes: %s", len, strerror(errno));
}

/* Next frame arriving on the peer that `want` accepts, or -1 after timeout_ms. */
ssize_t peer_recv_if(uint8_t *buf, size_t cap, int timeout_ms, frame_pred *want)
{
	struct pollfd pfd = {.fd = peer_fd, .events = POLLIN};
	long end = (long)mono_ms() + timeout_ms;
	ssize_t len;

	while ((long)mono_ms() < end) {
		len = recv(peer_fd, buf, cap, MSG_DONTWAIT);
		if (len > 0 && want(buf, len))
			return len;
		if (len < 0)
			poll(&pfd, 1, 10);
	}
	return -1;
}

static bool is_ours(const uint8_t *f, size_t len)
{
	return frame_seq(f, len) >= 0;
}

/* Next of our frames arriving on the peer, or -1 after timeout_ms without one. */
ssize_t peer_recv(uint8_t *buf, size_t cap, int timeout_ms)
{
	return peer_recv_if(buf, cap, timeout_ms, is_ours);
}

/*
 * Receive in bursts of `burst` until `want` frames or `idle_ms` without any,
 * releasing after every burst as a worker does. Returns how many arrived.
 */
unsigned rx_drain(struct port_queue *q, unsigned burst, unsigned want, int idle_ms, rx_fn *fn,
                  void *arg)
{
	struct pkt pkts[BURST_MAX];
	struct pollfd pfd = {.fd = tport.ops->rx_fd(q), .events = POLLIN};
	long last = (long)mono_ms();
	unsigned got = 0, n;

	while (got < want && (long)mono_ms() - last < idle_ms) {
		n = tport.ops->rx_burst(q, pkts, burst);
		CHECK(n <= burst, "rx_burst returned %u > max %u", n, burst);
		for (unsigned i = 0; i < n && fn; i++)
			fn(&pkts[i], arg);
		tport.ops->rx_release(q);
		got += n;
		if (n)
			last = (long)mono_ms();
		else
			poll(&pfd, 1, 5);
	}
	return got;
}

struct port_queue *queue_open(unsigned rx_frames, unsigned tx_frames, bool promisc, unsigned qid,
                              unsigned nq)
{
	struct port_queue *q = NULL;
	int err;

	tport.settings = (struct port_settings){.rx_ring_frames = rx_frames,
	                                        .tx_ring_frames = tx_frames,
	                                        .promiscuous = promisc,
	                                        .qdisc_bypass = qdisc_bypass};
	err = tport.ops->queue_open(&tport, qid, nq, &q);
	CHECK(err == 0 && q, "queue_open: %s", strerror(-err));
	return err ? NULL : q;
}

/*
 * linkwatch updates the oper state asynchronously, and until it has, the
 * sending side still has its noop qdisc, which drops.
 */
bool wait_running(void)
{
	int ifindex1 = if_nametoindex(DEV1);
	bool up0 = false, up1 = false;

	for (long end = (long)mono_ms() + 3000; (long)mono_ms() < end; usleep(5000)) {
		if (netdev_link_is_up(tport.ifindex, &up0) == 0 && up0 &&
		    netdev_link_is_up(ifindex1, &up1) == 0 && up1)
			return true;
	}
	return false;
}

/* A legacy ethtool on/off value (ETHTOOL_[GS]GRO, _[GS]TSO, _[GS]TXCSUM). */
int ethtool_value(const char *dev, int cmd, uint32_t *val)
{
	struct ethtool_value ev = {.cmd = cmd, .data = *val};
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&ev;
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	*val = ev.data;
	return ret;
}

void send_seq(unsigned from, unsigned n, const uint8_t *dst, bool pause)
{
	uint8_t f[1000];

	for (unsigned i = from; i < from + n; i++) {
		peer_send(f, frame_make(f, dst, mac1, i, sizeof(f)));
		/* Let softirq empty the backlog (netdev_max_backlog) now and then. */
		if (pause && i % 100 == 99)
			usleep(2000);
	}
}

/* After cgt1 is up: a packet socket bound to a down netdev starts with ENETDOWN pending. */
void peer_open(void)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	int one = 1, sz = 8 << 20;

	peer_fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_ifindex = if_nametoindex(DEV1);
	if (peer_fd < 0 || bind(peer_fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("peer socket");
		exit(1);
	}
	/* Only what the port under test transmits, not what the peer sends. */
	setsockopt(peer_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	setsockopt(peer_fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
}

int setup(void)
{

	if (geteuid() != 0 || unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr, "SKIP: needs root and unshare(CLONE_NEWNET)\n");
		return 77;
	}
	/* IPv6 autoconfiguration would put DAD/MLD frames on the wire. */
	write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	if (system("ip link add name " DEV0 " type veth peer name " DEV1) != 0) {
		fprintf(stderr, "SKIP: cannot create a veth pair with ip(8)\n");
		return 77;
	}
	tport.id = 7;
	snprintf(tport.name, sizeof(tport.name), "p0");
	snprintf(tport.netdev, sizeof(tport.netdev), DEV0);
	tport.ops = port_ops_find("afpacket");
	if (!tport.ops) {
		fprintf(stderr, "FAIL: afpacket driver not registered\n");
		return 1;
	}
	return 0;
}

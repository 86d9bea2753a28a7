/*
 * The afpacket port driver and the netdev helpers against the real kernel,
 * inside a private network namespace with one veth pair:
 *
 *   cgt0: the port under test (afpacket queues)  <->  cgt1: the "wire", a
 *   plain AF_PACKET socket that sends what the port should receive and
 *   receives what the port transmits.
 *
 * Needs root (CAP_NET_ADMIN + CAP_NET_RAW) and unshare(CLONE_NEWNET); exits 77
 * (automake's "skipped") when it cannot have them. The namespace, and the veth
 * pair with it, disappear when the process exits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* unshare() */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "datapath/csum.h"
#include "lib/log.h"
#include "datapath/port.h"
#include "lib/clock.h"
#include "lib/wire.h"

#define DEV0           "cgt0"
#define DEV1           "cgt1"
#define ETHERTYPE_TEST 0x88b5 /* IEEE 802 local experimental */
#define MAGIC          "CGT1"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static struct port tport;
static bool qdisc_bypass = true;
static uint8_t mac1[6];
static int peer_fd = -1;
static const uint8_t mac_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t mac_mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb};
static const uint8_t mac_other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

/* Whether the output of a shell command contains needle. */
static bool cmd_has(const char *cmd, const char *needle)
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
static size_t frame_make(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint32_t seq,
                         size_t len)
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
static long frame_seq(const uint8_t *f, size_t len)
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
	return (long)f[off + 4] << 24 | f[off + 5] << 16 | f[off + 6] << 8 | f[off + 7];
}

static void peer_send(const uint8_t *f, size_t len)
{
	if (send(peer_fd, f, len, 0) != (ssize_t)len)
		CHECK(0, "peer send %zu bytes: %s", len, strerror(errno));
}

typedef bool frame_pred(const uint8_t *f, size_t len);

/* Next frame arriving on the peer that `want` accepts, or -1 after timeout_ms. */
static ssize_t peer_recv_if(uint8_t *buf, size_t cap, int timeout_ms, frame_pred *want)
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
static ssize_t peer_recv(uint8_t *buf, size_t cap, int timeout_ms)
{
	return peer_recv_if(buf, cap, timeout_ms, is_ours);
}

typedef void rx_fn(const struct pkt *pk, void *arg);

/*
 * Receive in bursts of `burst` until `want` frames or `idle_ms` without any,
 * releasing after every burst as a worker does. Returns how many arrived.
 */
static unsigned rx_drain(struct port_queue *q, unsigned burst, unsigned want, int idle_ms,
                         rx_fn *fn, void *arg)
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

static struct port_queue *queue_open(unsigned rx_frames, unsigned tx_frames, bool promisc,
                                     unsigned qid, unsigned nq)
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

static void test_netdev_lookup(void)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ifindex;
	uint8_t mac[6];
	uint32_t mtu;

	CHECK(netdev_lookup(DEV0, &tport.ifindex, tport.mac, &tport.mtu) == 0, "lookup " DEV0);
	/* Cross-check with the older ioctl interface. */
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), DEV0);
	CHECK(ioctl(fd, SIOCGIFINDEX, &ifr) == 0 && ifr.ifr_ifindex == tport.ifindex, "ifindex");
	CHECK(ioctl(fd, SIOCGIFHWADDR, &ifr) == 0 && !memcmp(ifr.ifr_hwaddr.sa_data, tport.mac, 6),
	      "mac");
	CHECK(ioctl(fd, SIOCGIFMTU, &ifr) == 0 && (uint32_t)ifr.ifr_mtu == tport.mtu, "mtu");
	close(fd);
	CHECK(tport.mtu == 1500, "veth default MTU, got %u", tport.mtu);
	CHECK(netdev_lookup(DEV1, &ifindex, mac1, &mtu) == 0, "lookup " DEV1);
	CHECK(netdev_lookup("cgt-missing", &ifindex, mac, &mtu) == -ENODEV, "missing name");
	CHECK(netdev_lookup("lo", &ifindex, mac, &mtu) == -EINVAL, "loopback is not Ethernet");
	CHECK(netdev_lookup("a-name-far-too-long-for-linux", &ifindex, mac, &mtu) == -EINVAL,
	      "long name");
}

/*
 * linkwatch updates the oper state asynchronously, and until it has, the
 * sending side still has its noop qdisc, which drops.
 */
static bool wait_running(void)
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

static void test_link_state(void)
{
	int ifindex1 = if_nametoindex(DEV1);
	bool up = true;

	CHECK(netdev_set_up(tport.ifindex) == 0, "set " DEV0 " up");
	CHECK(netdev_link_is_up(tport.ifindex, &up) == 0 && !up, "no carrier while peer down");
	CHECK(netdev_set_up(ifindex1) == 0, "set " DEV1 " up");
	CHECK(wait_running(), DEV0 " and " DEV1 " running once both ends are up");
	CHECK(netdev_set_up(99999) == -ENODEV, "set up a missing ifindex");
	CHECK(netdev_link_is_up(99999, &up) == -ENODEV, "state of a missing ifindex");
}

/* A legacy ethtool on/off value (ETHTOOL_[GS]GRO, _[GS]TSO, _[GS]TXCSUM). */
static int ethtool_value(const char *dev, int cmd, uint32_t *val)
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

static void test_gro_and_forwarding(void)
{
	uint32_t v = 1;

	CHECK(ethtool_value(DEV0, ETHTOOL_SGRO, &v) == 0, "turn GRO on for the test");
	CHECK(ethtool_value(DEV0, ETHTOOL_GGRO, &v) == 0 && v == 1, "GRO on");
	CHECK(netdev_gro_off(DEV0) == 0, "gro off");
	CHECK(ethtool_value(DEV0, ETHTOOL_GGRO, &v) == 0 && v == 0, "GRO now off");
	CHECK(netdev_gro_off("cgt-missing") == -ENODEV, "gro off on a missing netdev");

	write_file("/proc/sys/net/ipv4/ip_forward", "1");
	CHECK(netdev_ip_forward_get() == 1, "ip_forward 1");
	write_file("/proc/sys/net/ipv4/ip_forward", "0");
	CHECK(netdev_ip_forward_get() == 0, "ip_forward 0");
}

static void test_addr4(void)
{
	static const char show[] = "ip -4 -o addr show dev " DEV0;
	uint32_t keep[] = {0xc0000201};
	uint8_t plens[] = {24};

	CHECK(netdev_addr4_add(tport.ifindex, 0xc0000201, 24) == 0, "add 192.0.2.1/24");
	CHECK(cmd_has(show, "inet 192.0.2.1/24 brd 192.0.2.255 "), "192.0.2.1/24 present");
	CHECK(netdev_addr4_add(tport.ifindex, 0xc0000201, 24) == 0, "adding it again is fine");
	CHECK(netdev_addr4_add(tport.ifindex, 0xc6336407, 30) == 0, "add 198.51.100.7/30");
	CHECK(cmd_has(show, "inet 198.51.100.7/30 brd 198.51.100.7 "), "/30 broadcast");
	CHECK(netdev_addr4_add(tport.ifindex, 0xcb007109, 32) == 0, "add 203.0.113.9/32");
	CHECK(cmd_has(show, "inet 203.0.113.9/32 scope"), "/32 has no broadcast");
	CHECK(netdev_addr4_add(tport.ifindex, 0xcb007109, 33) == -EINVAL, "prefix length 33");
	CHECK(netdev_addr4_add(99999, 0xcb007109, 24) == -ENODEV, "missing ifindex");

	CHECK(netdev_addr4_flush_others(tport.ifindex, keep, plens, 1) == 0, "flush others");
	CHECK(cmd_has(show, "inet 192.0.2.1/24"), "kept address stays");
	CHECK(!cmd_has(show, "198.51.100.7"), "other address gone");
	CHECK(!cmd_has(show, "203.0.113.9"), "host address gone");
}

/* What the port receives: exactly what was sent, classified by destination. */
static void test_rx_frames(void)
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

static void send_seq(unsigned from, unsigned n, const uint8_t *dst, bool pause)
{
	uint8_t f[1000];

	for (unsigned i = from; i < from + n; i++) {
		peer_send(f, frame_make(f, dst, mac1, i, sizeof(f)));
		/* Let softirq empty the backlog (netdev_max_backlog) now and then. */
		if (pause && i % 100 == 99)
			usleep(2000);
	}
}

/*
 * The smallest ring (8 blocks, 2 MiB) holds ~1900 of these frames. Fifteen
 * rounds of 200 pass only if rx_release hands blocks back; the ring drops
 * nothing meanwhile. A round is sent without pauses: each block-retire timeout
 * in the middle of a round spends one more block.
 */
static void test_rx_release(void)
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
static void test_ring_drops(void)
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
static void test_tx(bool bypass)
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
static void test_tx_gso(void)
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
static void test_fanout(void)
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

static void test_promisc(void)
{
	static const char show[] = "ip -d link show dev " DEV0;
	struct port_queue *q = queue_open(1, 16, true, 0, 1);

	CHECK(cmd_has(show, "promiscuity 1 "), "promiscuous while open");
	tport.ops->queue_close(q);
	CHECK(cmd_has(show, "promiscuity 0 "), "undone on close");
}

static void rx_udp9(const struct pkt *pk, void *arg)
{
	int *partial = arg;

	if (pk->len >= 38 && pk->data[12] == 0x08 && pk->data[23] == IPPROTO_UDP &&
	    pk->data[36] == 0 && pk->data[37] == 9)
		*partial = pk->csum_partial;
}

/* A datagram from the peer's stack leaves its UDP checksum to "hardware". */
static void test_csum_partial(void)
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

/* Port down and up again: POLLERR once (see rx_fd), then RX goes on. */
static void test_link_flap(void)
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
static void test_rx_gso(void)
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

static void test_open_errors(void)
{
	struct port bad = tport;
	struct port_queue *q = NULL;

	bad.ifindex = 0;
	CHECK(tport.ops->queue_open(&bad, 0, 1, &q) == -EINVAL && !q, "port not looked up");
	bad = tport;
	bad.ifindex = 99999;
	CHECK(tport.ops->queue_open(&bad, 0, 1, &q) == -ENODEV && !q, "bind to missing ifindex");
}

/* After cgt1 is up: a packet socket bound to a down netdev starts with ENETDOWN pending. */
static void peer_open(void)
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

static int setup(void)
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

int main(void)
{
	int ret;

	log_init("test_afpacket", true, 0);
	ret = setup();
	if (ret)
		return ret;
	test_netdev_lookup();
	test_link_state();
	peer_open();
	test_gro_and_forwarding();
	test_addr4();
	test_open_errors();
	test_rx_frames();
	test_rx_release();
	test_ring_drops();
	test_tx(true);
	test_tx(false);
	test_tx_gso();
	test_fanout();
	test_promisc();
	test_csum_partial();
	test_link_flap();
	close(peer_fd);
	test_rx_gso();
	if (failures) {
		fprintf(stderr, "test_afpacket: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_afpacket: all checks passed\n");
	return 0;
}

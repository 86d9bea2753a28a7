/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A paced generator for fwd-bench.sh --cpu: the benchmark's 60-byte UDP
 * frame (10.0.1.2:4000 -> 10.0.2.2:9) at RATE frames/s for SECONDS, sent in
 * one sendmmsg burst per millisecond on an AF_PACKET socket (qdisc bypass,
 * as trafgen does), sleeping in between. trafgen paces with a busy loop, so
 * its CPU would hide what the routers cost; this one costs only the sending.
 *
 *   pace_udp IFACE DST_MAC SRC_MAC RATE SECONDS
 *
 * Prints "sent N" (frames the kernel accepted) at the end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "datapath/csum.h"
#include "lib/wire.h"

#define FRAME_LEN  60
#define PERIOD_NS  1000000L
#define BATCH      64

static int parse_mac(const char *s, uint8_t *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3],
	              &mac[4], &mac[5]) == 6
	           ? 0
	           : -1;
}

static void frame_build(uint8_t *f, const uint8_t *dst, const uint8_t *src)
{
	uint8_t *ip = f + 14, *udp = f + 34;

	memset(f, 0, FRAME_LEN);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	wr16(f + 12, ETH_P_IP);
	ip[0] = 0x45;
	wr16(ip + 2, FRAME_LEN - 14);
	ip[8] = 64;
	ip[9] = 17;
	wr32(ip + 12, 0x0a000102);
	wr32(ip + 16, 0x0a000202);
	wr16(ip + 10, csum_compute(ip, 20));
	wr16(udp, 4000);
	wr16(udp + 2, 9);
	wr16(udp + 4, FRAME_LEN - 34);
}

static int sock_open(const char *iface)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = 0};
	int fd = socket(AF_PACKET, SOCK_RAW, 0), one = 1;

	sll.sll_ifindex = (int)if_nametoindex(iface);
	if (fd < 0 || sll.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("pace_udp: socket");
		exit(1);
	}
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return fd;
}

/* Send n copies of the frame; returns how many the kernel took. */
static unsigned burst(int fd, uint8_t *f, unsigned n)
{
	struct mmsghdr m[BATCH];
	struct iovec iov = {.iov_base = f, .iov_len = FRAME_LEN};
	unsigned sent = 0;

	for (unsigned i = 0; i < BATCH; i++)
		m[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov, .msg_iovlen = 1}};
	while (sent < n) {
		unsigned k = n - sent < BATCH ? n - sent : BATCH;
		int r = sendmmsg(fd, m, k, 0);

		if (r <= 0)
			break;
		sent += (unsigned)r;
	}
	return sent;
}

int main(int argc, char **argv)
{
	uint8_t f[FRAME_LEN], dst[6], src[6];
	struct timespec next;
	unsigned long long sent = 0, due = 0;
	double rate, secs;
	long periods;
	int fd;

	if (argc != 6 || parse_mac(argv[2], dst) || parse_mac(argv[3], src) ||
	    (rate = atof(argv[4])) <= 0 || (secs = atof(argv[5])) <= 0) {
		fprintf(stderr, "usage: pace_udp IFACE DST_MAC SRC_MAC RATE SECONDS\n");
		return 2;
	}
	fd = sock_open(argv[1]);
	frame_build(f, dst, src);
	periods = (long)(secs * 1e9 / PERIOD_NS);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long p = 1; p <= periods; p++) {
		/* Frames due by the end of period p, so rounding never drifts. */
		unsigned long long want = (unsigned long long)(rate * (double)p * PERIOD_NS / 1e9);

		sent += burst(fd, f, (unsigned)(want - due));
		due = want;
		next.tv_nsec += PERIOD_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	printf("sent %llu\n", sent);
	return 0;
}

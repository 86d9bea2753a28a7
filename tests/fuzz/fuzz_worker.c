/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: arbitrary frames through the real worker on in-memory
 * ports. The input is a sequence of records [len_hi len_lo flags (offload)
 * bytes...]: flags give the L2 class (bits 0-1), csum_partial (bit 0),
 * whether to fix the IPv4 header checksum (bit 2), which random bytes almost
 * never get right, so the fuzzer also reaches the FIB, forwarding and
 * fragmentation, and whether 7 bytes of offload metadata follow (bit 3): the
 * virtio_net_hdr fields a driver hands over (gso_type as a raw byte, gso_size,
 * csum_start, csum_offset), in any combination, sane or not. Bit 4 of the
 * first record's flags makes the egress port take offloads (tx_offload), so
 * both the pass-through and the software segmentation paths are reached.
 * Both ports forward IPv6 too (port.ip6, routes through daemon/rib6.c), so
 * IPv6 frames take the IPv6 path: validation, FIB6, ICMPv6 errors, holds.
 * Every frame is classified, looked up, forwarded, held, fragmented or
 * dropped. Besides the sanitizers' checks, the accounting rule must hold
 * exactly after every input: rx = forwarded + to-kernel + drops + held.
 */
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "daemon/rib.h"
#include "daemon/rib6.h"
#include "datapath/csum.h"
#include "datapath/ip4.h"
#include "tests/fuzz/fuzz_accounting.h"
#include "tests/unit/port_fake.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct dataplane dp;
static struct rib *rib; /* kept reachable: setup lives for the whole run */
static struct rib6 *rib6;

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	static const uint8_t mac[6] = {2, 0xbb, 0, 0, 0, 2};
	/* Alternate states so both the send and the hold paths are reachable. */
	return nh_l2_pack(mac, (ip & 1) ? NEIGH_REACHABLE : NEIGH_FAILED);
}

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	static const uint8_t mac[6] = {2, 0xbb, 0, 0, 0, 3};
	return nh_l2_pack(mac, (ip[15] & 1) ? NEIGH_REACHABLE : NEIGH_FAILED);
}

static const uint8_t *a6(const char *s)
{
	static uint8_t buf[4][16];
	static unsigned next;
	uint8_t *a = buf[next++ % 4];

	inet_pton(AF_INET6, s, a);
	return a;
}

/* Connected, local, gateway (resolved and failed), ECMP default, blackhole, unreachable. */
static void setup6(void)
{
	struct rib6_path p0 = {.port = 0, .weight = 1}, p1 = {.port = 1, .weight = 1};
	struct rib6_path gw = {.port = 1, .weight = 1},
	                 two[2] = {{.port = 0, .weight = 1}, {.port = 1, .weight = 1}};

	memcpy(gw.gw, a6("2001:db8:2::2"), 16);
	memcpy(two[0].gw, a6("2001:db8:1::3"), 16);
	memcpy(two[1].gw, a6("2001:db8:2::3"), 16);
	for (unsigned p = 0; p < 2; p++) {
		dp.ports[p].ip6 = true;
		port_ip6_src_set(&dp.ports[p], a6(p ? "2001:db8:2::1" : "2001:db8:1::1"));
	}
	rib6 = rib6_new(rib, seed6, NULL);
	rib6_route_set(rib6, a6("2001:db8:1::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1);
	rib6_route_set(rib6, a6("2001:db8:2::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	rib6_route_set(rib6, a6("2001:db8:1::1"), 128, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib6_route_set(rib6, a6("2001:db8:20::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1);
	rib6_route_set(rib6, a6("::"), 0, RIB_SRC_STATIC, NH_GATEWAY, two, 2);
	rib6_route_set(rib6, a6("2001:db8:66::"), 48, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0);
	rib6_route_set(rib6, a6("2001:db8:67::"), 48, RIB_SRC_STATIC, NH_UNREACHABLE, NULL, 0);
}

static void setup(void)
{
	struct rib_path p0 = {.port = 0, .weight = 1}, p1 = {.port = 1, .weight = 1};
	struct rib_path two[2] = {{IP(10, 0, 1, 3), -1, 1}, {IP(10, 0, 2, 3), -1, 1}};
	struct rib_path gw = {.gw = IP(10, 0, 2, 2), .port = -1, .weight = 1};

	dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64});
	dp.nports = 2;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	port_fake_init(&dp.ports[1], 1, "eth1", 1);
	dp.ports[0].ip4_addr = IP(10, 0, 1, 1);
	dp.ports[1].ip4_addr = IP(10, 0, 2, 1);
	dp.ports[1].mtu = 576; /* so fragmentation and frag-needed are reachable */
	dp.params = (struct dp_params){.icmp_rate = 1000, .icmp_burst = 100, .hold_timeout_ms = 0};
	rib = rib_new(&dp, seed, NULL);
	rib_route_set(rib, IP(10, 0, 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1);
	rib_route_set(rib, IP(10, 0, 2, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	rib_route_set(rib, IP(10, 0, 1, 1), 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib_route_set(rib, IP(10, 20, 0, 0), 16, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1);
	rib_route_set(rib, IP(10, 99, 0, 0), 16, RIB_SRC_STATIC, NH_GATEWAY, two, 2);
	rib_route_set(rib, IP(10, 66, 0, 0), 16, RIB_SRC_STATIC, NH_BLACKHOLE, NULL, 0);
	rib_route_set(rib, IP(10, 67, 0, 0), 16, RIB_SRC_STATIC, NH_UNREACHABLE, NULL, 0);
	setup6();
	dp_workers_create(&dp, NULL, 1);
}

static void fix_ip_checksum(uint8_t *f, uint32_t len)
{
	uint32_t hlen;

	if (len < 34 || rd16(f + 12) != ETHERTYPE_IPV4)
		return;
	hlen = (uint32_t)(f[14] & 0x0f) * 4;
	if (hlen < 20 || 14 + hlen > len)
		return;
	wr16(f + 14 + 10, 0);
	wr16(f + 14 + 10, csum_compute(f + 14, hlen));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct port_queue *q;

	if (!ready) {
		setup();
		ready = 1;
	}
	q = dp.ports[0].queues[0];
	q->rx_n = q->rx_pos = 0;
	dp.ports[1].tx_offload = size >= 3 && (data[2] & 16);
	while (size >= 3 && q->rx_n < FAKE_FRAMES) {
		uint32_t len = (uint32_t)(data[0] << 8 | data[1]) % FAKE_FRAME_SZ;
		uint8_t flags = data[2];
		uint8_t cls = flags % 4;
		struct fake_offload off = {0};
		data += 3;
		size -= 3;
		if ((flags & 8) && size >= 7) {
			off = (struct fake_offload){.gso_type = data[0],
			                            .gso_size = rd16(data + 1),
			                            .csum_start = rd16(data + 3),
			                            .csum_offset = rd16(data + 5)};
			data += 7;
			size -= 7;
		}
		if (len > size)
			len = (uint32_t)size;
		port_fake_rx_add(&dp.ports[0], data, len, cls);
		unsigned slot = (q->rx_n - 1) % FAKE_FRAMES;
		q->rx_partial[slot] = cls & 1;
		q->rx_off[slot] = off;
		if (flags & 4)
			fix_ip_checksum(q->rx_frame[slot], len);
		data += len;
		size -= len;
	}
	while (dp_worker_poll(&dp, 0) > 0)
		;
	dp_worker_poll(&dp, 0); /* hold timeout 0: held packets resolve or fail now */

	fuzz_accounting_check(&dp);
	return 0;
}

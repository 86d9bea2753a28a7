/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Forwarding cost of the worker itself, without rings or the kernel: 64-byte
 * IPv4 frames replayed from memory through the real worker code (checks, FIB
 * lookup on a full-size table, next hop, MAC/TTL rewrite, copy of the frame
 * bytes into TX slots as into a ring; port_fake's tx_frames_only).
 * Prints packets per second on one pinned core; the end-to-end figure on veth
 * is tests/bench/fwd-bench.sh.
 *
 *   fwd_core_bench [CPU] [SECONDS] [ROUTES] [FIB-ALGORITHM]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/rib.h"
#include "datapath/csum.h"
#include "datapath/ip4.h"
#include "tests/bench/bench_frame.h"
#include "tests/unit/port_fake.h"
#include "lib/clock.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	static const uint8_t mac[6] = {2, 0xbb, 0, 0, 0, 2};
	return nh_l2_pack(mac, NEIGH_REACHABLE);
}

/* 512 flows spread over the routed space, like traffic towards many prefixes. */
static void add_frames(struct dataplane *dp, unsigned nroutes)
{
	uint8_t f[64];

	for (unsigned i = 0; i < FAKE_FRAMES; i++) {
		bench_udp_frame(f, dp->ports[0].mac,
		                IP(11, 0, 0, 0) + ((uint32_t)rand() % nroutes) * 256 + 1,
		                (uint16_t)(1024 + i));
		port_fake_rx_add(&dp->ports[0], f, BENCH_FRAME_LEN, PKT_L2_HOST);
	}
	dp->ports[0].queues[0]->replay = true;
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	double secs = argc > 2 ? atof(argv[2]) : 3.0;
	unsigned nroutes = argc > 3 ? (unsigned)atoi(argv[3]) : 500000;
	const struct fib_algo *algo = argc > 4 ? fib_algo_find(argv[4]) : FIB_ALGO_DEFAULT;
	static struct dataplane dp;
	struct rib_path p1 = {.port = 1, .weight = 1};
	struct rib_path gw = {.gw = IP(10, 0, 2, 2), .port = 1, .weight = 1};
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
	if (!algo) {
		fprintf(stderr, "fwd_core_bench: %s: no such FIB algorithm\n", argv[4]);
		return 2;
	}
	if (dp_init(&dp, algo, NULL) != 0)
		return 1;
	printf("FIB %s\n", algo->name);
	dp.nports = 2;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	port_fake_init(&dp.ports[1], 1, "eth1", 1);
	/* Frame bytes into the TX slots as a ring would; no unit-test capture. */
	dp.ports[0].queues[0]->tx_frames_only = dp.ports[1].queues[0]->tx_frames_only = true;
	dp.ports[0].ip4_addr = IP(10, 0, 1, 1);
	dp.params = (struct dp_params){.icmp_rate = 100, .icmp_burst = 50, .hold_timeout_ms = 4000};
	struct rib *rib = rib_new(&dp, seed, NULL);
	rib_route_set(rib, IP(10, 0, 2, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	for (unsigned i = 0; i < nroutes; i++)
		rib_route_set(rib, IP(11, 0, 0, 0) + i * 256, 24, RIB_SRC_STATIC, NH_GATEWAY, &gw,
		              1);
	add_frames(&dp, nroutes);
	dp_workers_create(&dp, NULL, 1);

	/* Warm up, then measure whole bursts. */
	for (int i = 0; i < 10000; i++)
		dp_worker_poll(&dp, 0);
	struct stats_snapshot s0, s1;
	dp_stats_take(&dp, &s0);
	double t0 = mono_s(), t1;
	do {
		for (int i = 0; i < 1000; i++)
			dp_worker_poll(&dp, 0);
		t1 = mono_s();
	} while (t1 - t0 < secs);
	dp_stats_take(&dp, &s1);

	uint64_t fwd = s1.port[0].c.forwarded - s0.port[0].c.forwarded;
	uint64_t rx = s1.port[0].c.rx_packets - s0.port[0].c.rx_packets;
	printf("worker core benchmark: cpu %d, %u routes (/24), 64-byte frames, burst %d\n", cpu,
	       nroutes, BURST_MAX);
	printf("received %lu, forwarded %lu, dropped %lu in %.2f s\n", rx, fwd,
	       s1.port[0].drops_total - s0.port[0].drops_total, t1 - t0);
	printf("forwarding rate: %.2f Mpps per core (%.1f ns per packet)\n", fwd / (t1 - t0) / 1e6,
	       (t1 - t0) * 1e9 / (double)fwd);
	int ok = fwd == rx && fwd > 0;
	dp_workers_stop(&dp);
	rib_free(rib);
	port_fake_fini(&dp.ports[0]);
	port_fake_fini(&dp.ports[1]);
	dp_fini(&dp);
	return ok ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 forwarding cost of the worker itself (issue 16), beside its IPv4 cost
 * measured in the same run as the anchor: minimum-size frames replayed from
 * memory through the real worker (checks, bulk FIB/FIB6 lookup on a full-size
 * table, next hop, MAC rewrite, TTL or hop limit, copy of the frame bytes
 * into TX slots as into a ring: port_fake's tx_frames_only). IPv4:
 * 60-byte frames (UDP to /24 routes, as fwd_core_bench); IPv6: 62-byte frames
 * (Ethernet, IPv6, UDP: the smallest IPv6 frame) to /48 routes spread over
 * 2000::/3, the commonest length of the Internet's IPv6 table.
 *
 *   fwd6_core_bench [CPU] [SECONDS per family] [ROUTES] [FIB-ALGORITHM]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/rib.h"
#include "daemon/rib6.h"
#include "datapath/ip6.h"
#include "lib/clock.h"
#include "tests/bench/bench_frame.h"
#include "tests/unit/port_fake.h"

#define IP(a, b, c, d)   ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define BENCH6_FRAME_LEN (14 + IP6_HLEN + 8)

static const uint8_t gw_mac[6] = {2, 0xbb, 0, 0, 0, 2};

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return nh_l2_pack(gw_mac, NEIGH_REACHABLE);
}

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	return nh_l2_pack(gw_mac, NEIGH_REACHABLE);
}

/* The i-th /48: 2000::/3 plus 45 bits of a multiplicative hash of i. */
static void prefix48(unsigned i, uint8_t p[16])
{
	uint64_t h = ((uint64_t)i * 0x9e3779b97f4a7c15ull) >> 19; /* 45 bits */

	memset(p, 0, 16);
	p[0] = (uint8_t)(0x20 | (h >> 40));
	for (int b = 1; b < 6; b++)
		p[b] = (uint8_t)(h >> (8 * (5 - b)));
}

static void udp6_frame(uint8_t *f, const uint8_t dmac[6], const uint8_t dst[16], uint16_t sport)
{
	uint8_t *ip = f + 14;

	memset(f, 0, BENCH6_FRAME_LEN);
	memcpy(f, dmac, 6);
	f[6] = 2;
	wr16(f + 12, ETHERTYPE_IPV6);
	ip[0] = 0x60;
	wr16(ip + 4, 8);
	ip[6] = IP6_NH_UDP;
	ip[7] = 64;
	ip[8] = 0x20, ip[9] = 0x01, ip[10] = 0x0d, ip[11] = 0xb8, ip[23] = 2; /* 2001:db8::2 */
	memcpy(ip + 24, dst, 16);
	ip[24 + 15] = 1;
	wr16(ip + 40, sport);
	wr16(ip + 42, 9);
	wr16(ip + 44, 8);
}

static void frames(struct dataplane *dp, unsigned nroutes, bool v6)
{
	struct port_queue *q = dp->ports[0].queues[0];
	uint8_t f[64], p[16];

	q->rx_n = q->rx_pos = 0;
	for (unsigned i = 0; i < FAKE_FRAMES; i++) {
		unsigned r = (unsigned)rand() % nroutes;

		if (v6) {
			prefix48(r, p);
			udp6_frame(f, dp->ports[0].mac, p, (uint16_t)(1024 + i));
			port_fake_rx_add(&dp->ports[0], f, BENCH6_FRAME_LEN, PKT_L2_HOST);
		} else {
			bench_udp_frame(f, dp->ports[0].mac, IP(11, 0, 0, 0) + r * 256 + 1,
			                (uint16_t)(1024 + i));
			port_fake_rx_add(&dp->ports[0], f, BENCH_FRAME_LEN, PKT_L2_HOST);
		}
	}
	q->replay = true;
}

/*
 * Forwarded packets per second on the frames queued, after a warm-up: per
 * wall-clock second and per second of this thread's CPU time (the per-core
 * rate, what other work on a shared machine takes from the wall figure).
 */
static void measure(struct dataplane *dp, double secs, double *pps, double *pps_cpu, uint64_t *lost)
{
	struct stats_snapshot s0, s1;
	double t0, t1, c0, c1;

	for (int i = 0; i < 2000; i++)
		dp_worker_poll(dp, 0);
	dp_stats_take(dp, &s0);
	t0 = mono_s();
	c0 = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
	do {
		for (int i = 0; i < 1000; i++)
			dp_worker_poll(dp, 0);
		t1 = mono_s();
	} while (t1 - t0 < secs);
	c1 = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
	dp_stats_take(dp, &s1);
	uint64_t fwd = s1.port[0].c.forwarded - s0.port[0].c.forwarded;
	*lost = (s1.port[0].c.rx_packets - s0.port[0].c.rx_packets) - fwd;
	*pps = (double)fwd / (t1 - t0);
	*pps_cpu = (double)fwd / (c1 - c0);
}

#define ROUNDS 7

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dbl_cmp);
	return v[n / 2];
}

static void routes(struct rib *rib, struct rib6 *r6, struct dataplane *dp, unsigned n)
{
	struct rib_path gw = {.gw = IP(10, 0, 2, 2), .port = 1, .weight = 1};
	struct rib6_path gw6 = {.port = 1, .weight = 1};
	uint8_t p[16];

	gw6.gw[0] = 0x20, gw6.gw[1] = 0x01, gw6.gw[2] = 0x0d, gw6.gw[3] = 0xb8, gw6.gw[15] = 2;
	for (unsigned i = 0; i < n; i++) {
		rib_route_set(rib, IP(11, 0, 0, 0) + i * 256, 24, RIB_SRC_STATIC, NH_GATEWAY, &gw,
		              1);
		prefix48(i, p);
		rib6_route_set(r6, p, 48, RIB_SRC_STATIC, NH_GATEWAY, &gw6, 1);
		if (i % 1024 == 1023) { /* no reader runs yet: reclaim at once */
			fib_reclaim(&dp->fib);
			fib6_reclaim(dp->fib6);
		}
	}
}

/* Rates of one family over the rounds: wall clock and CPU time, medians and ranges. */
struct rates {
	double wall[ROUNDS], cpu[ROUNDS];
	uint64_t lost;
};

static void rates_print(const char *what, struct rates *r, struct rates *anchor)
{
	double w = median(r->wall, ROUNDS), c = median(r->cpu, ROUNDS);

	/* median() sorted both arrays: [0] and [ROUNDS - 1] are the range. */
	printf("%s %.2f Mpps per core (%.1f ns per packet; %.2f - %.2f Mpps), "
	       "per CPU-second %.2f Mpps (%.1f ns; %.2f - %.2f)",
	       what, w / 1e6, 1e9 / w, r->wall[0] / 1e6, r->wall[ROUNDS - 1] / 1e6, c / 1e6,
	       1e9 / c, r->cpu[0] / 1e6, r->cpu[ROUNDS - 1] / 1e6);
	if (anchor)
		printf(", %.2fx IPv4 (CPU time %.2fx)", w / median(anchor->wall, ROUNDS),
		       c / median(anchor->cpu, ROUNDS));
	printf("\n");
}

/*
 * Alternating rounds, the median of each: on a machine shared with other
 * work, load that comes and goes then weighs on both alike.
 */
static void measure_both(struct dataplane *dp, unsigned nroutes, double secs, struct rates *v4,
                         struct rates *v6)
{
	v4->lost = v6->lost = 0;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t l;

		frames(dp, nroutes, false);
		measure(dp, secs / ROUNDS, &v4->wall[r], &v4->cpu[r], &l);
		v4->lost += l;
		frames(dp, nroutes, true);
		measure(dp, secs / ROUNDS, &v6->wall[r], &v6->cpu[r], &l);
		v6->lost += l;
	}
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	double secs = argc > 2 ? atof(argv[2]) : 3.0;
	unsigned nroutes = argc > 3 ? (unsigned)atoi(argv[3]) : 220000;
	const struct fib_algo *algo = argc > 4 ? fib_algo_find(argv[4]) : FIB_ALGO_DEFAULT;
	static struct dataplane dp;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
	if (!algo || nroutes == 0 || dp_init(&dp, algo, NULL) != 0) {
		fprintf(stderr,
		        "fwd6_core_bench: bad FIB algorithm or route count, or no memory\n");
		return 2;
	}
	dp.nports = 2;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	port_fake_init(&dp.ports[1], 1, "eth1", 1);
	/* Frame bytes into the TX slots as a ring would; no unit-test capture. */
	dp.ports[0].queues[0]->tx_frames_only = dp.ports[1].queues[0]->tx_frames_only = true;
	dp.ports[0].ip6 = dp.ports[1].ip6 = true;
	dp.params = (struct dp_params){.icmp_rate = 100, .icmp_burst = 50, .hold_timeout_ms = 4000};
	struct rib *rib = rib_new(&dp, seed, NULL);
	struct rib6 *r6 = rib6_new(rib, seed6, NULL);
	routes(rib, r6, &dp, nroutes);
	dp_workers_create(&dp, NULL, 1);

	struct rates v4, v6;
	measure_both(&dp, nroutes, secs, &v4, &v6);

	printf("worker core benchmark: cpu %d, FIB %s, %u IPv4 /24 and %u IPv6 /48 routes, "
	       "burst %d, %d alternating rounds of %.2f s each, medians (ranges)\n",
	       cpu, algo->name, nroutes, nroutes, BURST_MAX, ROUNDS, secs / ROUNDS);
	rates_print("IPv4 (anchor), 60-byte frames:", &v4, NULL);
	rates_print("IPv6, 62-byte frames:         ", &v6, &v4);
	int ok = v4.lost == 0 && v6.lost == 0 && v4.wall[0] > 0 && v6.wall[0] > 0;
	if (!ok)
		fprintf(stderr, "not all forwarded: %lu IPv4, %lu IPv6 lost\n", v4.lost, v6.lost);
	dp_workers_stop(&dp);
	rib6_free(r6);
	rib_free(rib);
	port_fake_fini(&dp.ports[0]);
	port_fake_fini(&dp.ports[1]);
	dp_fini(&dp);
	return ok ? 0 : 1;
}

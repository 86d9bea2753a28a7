/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Forwarding cost of the worker towards ATM, next to Ethernet, in one run:
 * 64-byte IPv4 frames replayed from memory into a fake Ethernet port, routed
 * over a full-size FIB either to another fake Ethernet port (Eth->Eth) or to a
 * point-to-point ATM subinterface over a cellpw port whose carrier is in
 * memory (Eth->ATM: RFC 2684 LLC/SNAP, AAL5 with CRC-32, 2 cells a packet
 * packed into RFC 4717 N:1 frames).
 *
 * Each direction runs twice: with the egress fake counting frames without
 * copying them (a TX ring filled in place: the figure is cellgate's own work)
 * and with it copying every frame's bytes into its TX slots, as a ring
 * would (fwd_core_bench's Ethernet setup: port_fake's tx_frames_only). Ratios are printed like for like, and for the cheap
 * carrier against the copying Ethernet egress.
 *
 *   fwd_atm_bench [CPU] [SECONDS] [ROUTES] [MAX_CELLS] [PHASES]
 *
 * PHASES: any of eth,eth-copy,atm,atm-copy,eth6,atm6 (comma-separated;
 * default all), e.g. one of them alone for profiling. eth6 and atm6 are the
 * same with 62-byte IPv6/UDP frames (the smallest IPv6 frame) to ROUTES /48s
 * each way, egress counting only: over ATM RFC 2684 LLC/SNAP with PID 0x86DD
 * (8 + 48 octets + the trailer: 2 cells), the next hop being the
 * point-to-point VC itself (no neighbour discovery).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/rib.h"
#include "daemon/rib6.h"
#include "datapath/atm/aal5_crc.h"
#include "datapath/csum.h"
#include "datapath/fib/fib6.h"
#include "datapath/ip4.h"
#include "datapath/ip6.h"
#include "datapath/port_cellpw.h"
#include "lib/clock.h"
#include "tests/bench/bench_frame.h"
#include "tests/unit/port_fake.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

enum { P_IN, P_ETH, P_ATM, P_SUB, NPORTS };

#define ETH_BASE   IP(11, 0, 0, 0) /* routes towards Ethernet: ETH_BASE + i * 256, /24 */
#define ATM_BASE   IP(64, 0, 0, 0) /* routes towards the ATM subinterface */
#define FRAME6_LEN (14 + IP6_HLEN + 8)

static struct dataplane dp;
static struct cellpw_settings pw;
static struct atmsub_settings sub;

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	static const uint8_t gw[6] = {2, 0xbb, 0, 0, 0, 2};
	uint8_t vc[6];

	if (port != P_SUB)
		return nh_l2_pack(gw, NEIGH_REACHABLE);
	vc_mac_make(0, vc); /* what InATMARP or the static map would resolve to */
	return nh_l2_pack(vc, NEIGH_REACHABLE);
}

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	(void)ip;
	return seed(arg, port, 0);
}

/* The i-th /48 of 2000::/3, spread by a multiplicative hash (as fwd6_core_bench). */
static void prefix48(unsigned i, uint8_t p[16])
{
	uint64_t h = ((uint64_t)i * 0x9e3779b97f4a7c15ull) >> 19; /* 45 bits */

	memset(p, 0, 16);
	p[0] = (uint8_t)(0x20 | (h >> 40));
	for (int b = 1; b < 6; b++)
		p[b] = (uint8_t)(h >> (8 * (5 - b)));
}

/* Replayed IPv6/UDP frames from 2001:db8:1::2 to ::1 of /48 number `first` + 0..n-1. */
static void load_frames6(uint32_t first, unsigned nroutes)
{
	struct port_queue *q = dp.ports[P_IN].queues[0];
	uint8_t f[FRAME6_LEN];
	static const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};

	q->rx_n = q->rx_pos = 0;
	q->replay = false;
	for (unsigned i = 0; i < FAKE_FRAMES; i++) {
		uint8_t *ip = f + 14;

		memset(f, 0, sizeof(f));
		memcpy(f, dp.ports[P_IN].mac, 6);
		f[6] = 2;
		wr16(f + 12, ETHERTYPE_IPV6);
		ip[0] = 0x60;
		wr16(ip + 4, 8);
		ip[6] = IP6_NH_UDP;
		ip[7] = 64;
		memcpy(ip + 8, src, 16);
		prefix48(first + (uint32_t)rand() % nroutes, ip + 24);
		ip[39] = 1;
		wr16(ip + 40, (uint16_t)(1024 + i));
		wr16(ip + 42, 9);
		wr16(ip + 44, 8);
		wr16(ip + 46, 0xffff); /* not verified in transit */
		port_fake_rx_add(&dp.ports[P_IN], f, sizeof(f), PKT_L2_HOST);
	}
	q->replay = true;
}

/* 512 flows spread over the routes from `base`, replayed forever on the input port. */
static void load_frames(uint32_t base, unsigned nroutes)
{
	struct port_queue *q = dp.ports[P_IN].queues[0];
	uint8_t f[64];

	q->rx_n = q->rx_pos = 0;
	q->replay = false;
	for (unsigned i = 0; i < FAKE_FRAMES; i++) {
		bench_udp_frame(f, dp.ports[P_IN].mac,
		                base + ((uint32_t)rand() % nroutes) * 256 + 1,
		                (uint16_t)(1024 + i));
		port_fake_rx_add(&dp.ports[P_IN], f, BENCH_FRAME_LEN, PKT_L2_HOST);
	}
	q->replay = true;
}

static int atm_setup(unsigned max_cells)
{
	struct port *atm = &dp.ports[P_ATM], *s = &dp.ports[P_SUB];
	int err;

	dp.vcs = calloc(VC_MAX, sizeof(*dp.vcs));
	if (!dp.vcs)
		return -1;
	dp.nvcs = 1;
	dp.vcs[0].cfg = (struct atm_vc_cfg){.atm_port = P_ATM,
	                                    .subif = P_SUB,
	                                    .vpi = 0,
	                                    .vci = 100,
	                                    .encap = VC_ENCAP_LLC_SNAP,
	                                    .mtu = 1500,
	                                    .reasm_timeout_ms = 1000};
	pw = (struct cellpw_settings){.carrier = "fakecar",
	                              .carrier_mtu = 9200,
	                              .carrier_mac = {2, 0, 0, 0, 0xc0, 1},
	                              .max_cells = max_cells,
	                              .carrier_ops = &port_fake_ops,
	                              .vcs = dp.vcs,
	                              .nvcs = 1};
	pw.encap = (struct pw_encap){.dst = {2, 0, 0, 0, 0xfe, 1},
	                             .src = {2, 0, 0, 0, 0xc0, 1},
	                             .label = 0x1234,
	                             .control_word = true};
	*atm = (struct port){
	    .name = "atm0", .id = P_ATM, .mtu = 9180, .ops = &port_cellpw_ops, .drv = &pw};
	if ((err = atm->ops->queue_open(atm, 0, 1, &atm->queues[0])) != 0)
		return err;
	atm->nqueues = 1;
	sub = (struct atmsub_settings){.atm_port = atm, .tun_fd = -1, .p2p = true, .p2p_vc = 0};
	*s = (struct port){.name = "atm0.1",
	                   .id = P_SUB,
	                   .mtu = 1500,
	                   .ip4_addr = IP(10, 0, 3, 1),
	                   .ops = &port_atmsub_ops,
	                   .drv = &sub};
	if ((err = s->ops->queue_open(s, 0, 1, &s->queues[0])) != 0)
		return err;
	s->nqueues = 1;
	return 0;
}

struct result {
	double secs, cpu_secs;
	uint64_t rx, fwd, drops, vc_discards;
	uint64_t cells, frames;
};

static void run(void (*load)(uint32_t, unsigned), uint32_t base, unsigned nroutes, double secs,
                struct port_queue *egress, bool copy, struct result *r)
{
	static struct stats_snapshot s0, s1;

	egress->tx_discard = !copy;
	egress->tx_frames_only = true;
	load(base, nroutes);
	for (int i = 0; i < 10000; i++) /* warm up: caches, FIB lines, branch history */
		dp_worker_poll(&dp, 0);
	dp_stats_take(&dp, &s0);
	double t0 = (double)clock_ns(CLOCK_MONOTONIC) * 1e-9,
	       c0 = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9, t1;
	do {
		for (int i = 0; i < 1000; i++)
			dp_worker_poll(&dp, 0);
		t1 = (double)clock_ns(CLOCK_MONOTONIC) * 1e-9;
	} while (t1 - t0 < secs);
	r->cpu_secs = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9 - c0;
	dp_stats_take(&dp, &s1);
	r->secs = t1 - t0;
	r->rx = s1.port[P_IN].c.rx_packets - s0.port[P_IN].c.rx_packets;
	r->fwd = s1.port[P_IN].c.forwarded - s0.port[P_IN].c.forwarded;
	r->drops = s1.port[P_IN].drops_total - s0.port[P_IN].drops_total;
	r->vc_discards = s1.vc[0].discards_total - s0.vc[0].discards_total;
	r->cells = s1.atm[P_ATM].cells_out - s0.atm[P_ATM].cells_out;
	r->frames = s1.atm[P_ATM].frames_out - s0.atm[P_ATM].frames_out;
}

static void report(const char *name, const char *how, const struct result *r)
{
	printf("%s, %s: %.2f Mpps, %.1f ns per packet\n", name, how, r->fwd / r->secs / 1e6,
	       r->secs * 1e9 / (double)r->fwd);
	printf("  received %lu, forwarded %lu, dropped %lu in %.2f s, CPU %.0f %% of the core\n",
	       r->rx, r->fwd, r->drops + r->vc_discards, r->secs, 100 * r->cpu_secs / r->secs);
}

static void ratio(const char *how, const struct result *atm, const struct result *eth)
{
	if (atm->fwd && eth->fwd)
		printf("ratio Eth->ATM / Eth->Eth, %s: %.2f\n", how,
		       (atm->fwd / atm->secs) / (eth->fwd / eth->secs));
}

static bool phase(const char *list, const char *name);

/*
 * IPv6 beside it: ROUTES /48s towards the Ethernet gateway and as many
 * through the point-to-point VC. True if every frame was forwarded, two
 * cells each over ATM, none lost.
 */
static bool bench6(struct rib *rib, const char *phases, unsigned nroutes, double secs,
                   const struct result *atm4)
{
	struct rib6_path gw_eth = {
	    .gw = {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2}, .port = P_ETH, .weight = 1};
	struct rib6_path gw_atm = {
	    .gw = {0x20, 0x01, 0x0d, 0xb8, 0, 3, [15] = 2}, .port = P_SUB, .weight = 1};
	struct rib6_path p_eth = {.port = P_ETH, .weight = 1}, p_sub = {.port = P_SUB, .weight = 1};
	static const uint8_t net_eth[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 2};
	static const uint8_t net_sub[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 3};
	struct result eth6 = {0}, atm6 = {0};
	struct rib6 *r6;
	uint8_t p[16];

	if (!phase(phases, "eth6") && !phase(phases, "atm6"))
		return true;
	if (!(r6 = rib6_new(rib, seed6, NULL)))
		return false;
	dp.ports[P_IN].ip6 = dp.ports[P_ETH].ip6 = dp.ports[P_SUB].ip6 = true;
	dp.ports[P_SUB].p2p = true; /* as atm_subif_setup */
	rib6_route_set(r6, net_eth, 64, RIB_SRC_CONNECTED, NH_GLEAN, &p_eth, 1);
	rib6_route_set(r6, net_sub, 64, RIB_SRC_CONNECTED, NH_GLEAN, &p_sub, 1);
	for (unsigned i = 0; i < 2 * nroutes; i++) {
		prefix48(i, p);
		rib6_route_set(r6, p, 48, RIB_SRC_STATIC, NH_GATEWAY,
		               i < nroutes ? &gw_eth : &gw_atm, 1);
		if (i % 1024 == 1023) /* no poll runs meanwhile: reclaim at once */
			fib6_reclaim(dp.fib6);
	}
	if (phase(phases, "eth6")) {
		run(load_frames6, 0, nroutes, secs, dp.ports[P_ETH].queues[0], false, &eth6);
		report("Eth->Eth IPv6", "egress counts only", &eth6);
	}
	if (phase(phases, "atm6")) {
		run(load_frames6, nroutes, nroutes, secs,
		    cellpw_queue_of(&dp.ports[P_ATM])->carrier, false, &atm6);
		report("Eth->ATM IPv6", "carrier counts only", &atm6);
	}
	if (atm6.fwd && eth6.fwd)
		printf("ratio Eth->ATM / Eth->Eth, IPv6, both count only: %.2f\n",
		       (atm6.fwd / atm6.secs) / (eth6.fwd / eth6.secs));
	if (atm6.fwd && atm4->fwd)
		printf("ratio Eth->ATM IPv6 / Eth->ATM IPv4, carrier counts only: %.2f\n",
		       (atm6.fwd / atm6.secs) / (atm4->fwd / atm4->secs));
	rib6_free(r6);
	return eth6.fwd == eth6.rx && atm6.fwd == atm6.rx && !atm6.vc_discards &&
	       atm6.cells == 2 * atm6.fwd;
}

/* Whether `name` is one of the comma-separated phases in `list`. */
static bool phase(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	double secs = argc > 2 ? atof(argv[2]) : 3.0;
	unsigned nroutes = argc > 3 ? (unsigned)atoi(argv[3]) : 500000;
	unsigned max_cells = argc > 4 ? (unsigned)atoi(argv[4]) : 28;
	const char *phases = argc > 5 ? argv[5] : "eth,atm,eth-copy,atm-copy,eth6,atm6";
	struct rib_path gw_eth = {.gw = IP(10, 0, 2, 2), .port = P_ETH, .weight = 1};
	struct rib_path gw_atm = {.gw = IP(10, 0, 3, 2), .port = P_SUB, .weight = 1};
	struct rib_path p_eth = {.port = P_ETH, .weight = 1}, p_sub = {.port = P_SUB, .weight = 1};
	struct result eth = {0}, atm = {0}, eth_copy = {0}, atm_copy = {0};
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
	if (dp_init(&dp, NULL, NULL) != 0)
		return 1;
	dp.nports = NPORTS;
	port_fake_init(&dp.ports[P_IN], P_IN, "eth0", 1);
	port_fake_init(&dp.ports[P_ETH], P_ETH, "eth1", 1);
	dp.ports[P_IN].ip4_addr = IP(10, 0, 1, 1);
	if (atm_setup(max_cells) != 0) {
		fprintf(stderr, "fwd_atm_bench: cannot open the ATM port\n");
		return 1;
	}
	dp.params = (struct dp_params){.icmp_rate = 100, .icmp_burst = 50, .hold_timeout_ms = 4000};
	struct rib *rib = rib_new(&dp, seed, NULL);
	rib_route_set(rib, IP(10, 0, 2, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p_eth, 1);
	rib_route_set(rib, IP(10, 0, 3, 0), 30, RIB_SRC_CONNECTED, NH_GLEAN, &p_sub, 1);
	for (unsigned i = 0; i < nroutes; i++) {
		rib_route_set(rib, ETH_BASE + i * 256, 24, RIB_SRC_STATIC, NH_GATEWAY, &gw_eth, 1);
		rib_route_set(rib, ATM_BASE + i * 256, 24, RIB_SRC_STATIC, NH_GATEWAY, &gw_atm, 1);
	}
	dp_workers_create(&dp, NULL, 1);

	printf("worker core benchmark, Ethernet and ATM egress: cpu %d, 2 x %u routes (/24), "
	       "64-byte frames, burst %d\n",
	       cpu, nroutes, BURST_MAX);
	printf("ATM: p2p VC 0/100 LLC/SNAP, %u cells per frame, control word, CRC-32 %s\n",
	       max_cells, aal5_crc32_impl());
	struct port_queue *eth_q = dp.ports[P_ETH].queues[0];
	struct port_queue *car_q = cellpw_queue_of(&dp.ports[P_ATM])->carrier;
	if (phase(phases, "eth")) {
		run(load_frames, ETH_BASE, nroutes, secs, eth_q, false, &eth);
		report("Eth->Eth", "egress counts only", &eth);
	}
	if (phase(phases, "atm")) {
		run(load_frames, ATM_BASE, nroutes, secs, car_q, false, &atm);
		report("Eth->ATM", "carrier counts only", &atm);
		printf("  carrier: %.2f M cells/s, %.2f M frames/s (%.2f cells per packet)\n",
		       atm.cells / atm.secs / 1e6, atm.frames / atm.secs / 1e6,
		       atm.fwd ? (double)atm.cells / (double)atm.fwd : 0);
	}
	if (phase(phases, "eth-copy")) {
		run(load_frames, ETH_BASE, nroutes, secs, eth_q, true, &eth_copy);
		report("Eth->Eth", "egress copies frames", &eth_copy);
	}
	if (phase(phases, "atm-copy")) {
		run(load_frames, ATM_BASE, nroutes, secs, car_q, true, &atm_copy);
		report("Eth->ATM", "carrier copies frames", &atm_copy);
	}
	printf("(target: Eth->ATM >= 0.80 x Eth->Eth)\n");
	ratio("both egresses count only (cellgate alone)", &atm, &eth);
	ratio("both egresses copy frames", &atm_copy, &eth_copy);
	ratio("carrier counts, Ethernet egress copies", &atm, &eth_copy);

	/* Every frame forwarded, two cells each, none lost on the way. */
	int ok = eth.fwd == eth.rx && atm.fwd == atm.rx && eth_copy.fwd == eth_copy.rx &&
	         atm_copy.fwd == atm_copy.rx && !atm.vc_discards && !atm_copy.vc_discards &&
	         atm.cells == 2 * atm.fwd && atm_copy.cells == 2 * atm_copy.fwd;
	ok = bench6(rib, phases, nroutes, secs, &atm) && ok;
	dp_workers_stop(&dp);
	rib_free(rib);
	dp.ports[P_SUB].ops->queue_close(dp.ports[P_SUB].queues[0]);
	dp.ports[P_ATM].ops->queue_close(dp.ports[P_ATM].queues[0]);
	port_fake_fini(&dp.ports[P_IN]);
	port_fake_fini(&dp.ports[P_ETH]);
	free(dp.vcs);
	dp_fini(&dp);
	return ok ? 0 : 1;
}

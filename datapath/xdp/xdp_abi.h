/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the XDP program (cellgate_xdp.bpf.c) and the afxdp driver agree on:
 * map names and sizes, the configuration record, and the decisions the
 * program counts. Included by both the BPF object (clang -target bpf) and the
 * daemon, so only fixed-size types from <linux/types.h>.
 */
#ifndef CELLGATE_XDP_ABI_H
#define CELLGATE_XDP_ABI_H

#include <linux/types.h>

/* One XSK per netdev RX queue: the XSKMAP is keyed by rx_queue_index. */
#define CG_XDP_QUEUES_MAX 64
/* The router's own IPv4 addresses (and directed broadcasts) the program passes. */
#define CG_XDP_LOCAL_MAX 1024

#define CG_XDP_PROG_MAIN "cg_xdp"      /* the classifier attached to the netdev */
#define CG_XDP_PROG_PUNT "cg_xdp_punt" /* XDP_PASS only: run on worker punts (live frames) */
#define CG_XDP_MAP_XSKS  "cg_xsks"
#define CG_XDP_MAP_LOCAL "cg_local"
#define CG_XDP_MAP_CONF  "cg_conf"
#define CG_XDP_MAP_STATS "cg_stats"

struct cg_xdp_conf {
	__u8 mac[6]; /* the port's own MAC: unicast frames to anything else are another host's */
	__u8 ready;  /* 0 until the daemon filled this in: pass everything meanwhile */
	__u8 pad;
};

/*
 * Every frame the program sees gets exactly one decision. Only REDIRECT
 * reaches the worker (which counts it itself, rx-packets onwards); every
 * other decision is folded into the port's counters by the driver, so
 * rx-packets == forwarded + to-kernel + drops stays exact:
 *  - RUNT, OTHER_HOST: passed to the kernel (it may still want them: a
 *    macvlan, a bridge) but counted as drops l2-runt / l2-other-host,
 *    exactly as the afpacket driver counts them (where the kernel saw them
 *    as well);
 *  - all PASS_*: to-kernel.
 */
#define CG_XDP_DECISIONS(X)                                                                        \
	X(REDIRECT, "redirect", "transit IPv4 candidate, sent to the worker's XSK")                \
	X(PASS_ARP, "pass-arp", "ARP, left to the kernel")                                         \
	X(PASS_GROUP, "pass-l2-group", "Ethernet broadcast or multicast, left to the kernel")      \
	X(PASS_NOT_IPV4, "pass-not-ipv4", "not IPv4 (IPv6, VLAN-tagged, ...), left to the kernel") \
	X(PASS_LOCAL_ONLY, "pass-local-only", "IPv4 multicast, 0/8 or 127/8 destination")          \
	X(PASS_OWN_ADDR, "pass-own-address", "IPv4 to one of the router's addresses")              \
	X(PASS_NO_XSK, "pass-no-xsk", "no socket on this RX queue (yet): left to the kernel")      \
	X(PASS_NOT_READY, "pass-not-ready", "before the daemon configured the program")            \
	X(RUNT, "runt", "shorter than an Ethernet header (counted l2-runt)")                       \
	X(OTHER_HOST, "other-host", "unicast for another MAC (counted l2-other-host)")

enum cg_xdp_decision {
#define X(id, name, desc) CG_XDP_##id,
	CG_XDP_DECISIONS(X)
#undef X
	    CG_XDP__MAX
};

/* Per decision, per CPU (a PERCPU_ARRAY): no atomics on the program's side. */
struct cg_xdp_ctr {
	__u64 packets;
	__u64 bytes;
};

#endif

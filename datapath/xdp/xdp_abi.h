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
/* The router's own IPv6 addresses (link-local ones are passed anyway: not in the map). */
#define CG_XDP_LOCAL6_MAX 1024

#define CG_XDP_PROG_MAIN  "cg_xdp"      /* the classifier attached to the netdev */
#define CG_XDP_PROG_PUNT  "cg_xdp_punt" /* XDP_PASS only: run on worker punts (live frames) */
#define CG_XDP_MAP_XSKS   "cg_xsks"
#define CG_XDP_MAP_LOCAL  "cg_local"
#define CG_XDP_MAP_LOCAL6 "cg_local6"
#define CG_XDP_MAP_CONF   "cg_conf"
#define CG_XDP_MAP_STATS  "cg_stats"

struct cg_xdp_conf {
	__u8 mac[6]; /* the port's own MAC: unicast frames to anything else are another host's */
	__u8 ready;  /* 0 until the daemon filled this in: pass everything meanwhile */
	__u8 ipv6;   /* 1: the port forwards IPv6 and cg_local6 is filled: redirect transit IPv6 */
};

/* Key of cg_local6: an IPv6 address as on the wire. */
struct cg_xdp_in6 {
	__u8 a[16];
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
 *  - all PASS_*: to-kernel; the IPv6 ones (PASS6_*, after REDIRECT6,
 *    CG_XDP_IS_PASS6) also ip6-in and ip6-to-kernel, as the worker counts
 *    the IPv6 it leaves to the kernel.
 */
#define CG_XDP_DECISIONS(X)                                                                        \
	X(REDIRECT, "redirect", "transit IPv4 candidate, sent to the worker's XSK")                \
	X(PASS_ARP, "pass-arp", "ARP, left to the kernel")                                         \
	X(PASS_GROUP, "pass-l2-group", "Ethernet broadcast or multicast, left to the kernel")      \
	X(PASS_NOT_IP, "pass-not-ip",                                                              \
	  "neither IPv4 nor IPv6 (VLAN-tagged, ...), left to the kernel")                          \
	X(PASS_LOCAL_ONLY, "pass-local-only", "IPv4 multicast, 0/8 or 127/8 destination")          \
	X(PASS_OWN_ADDR, "pass-own-address", "IPv4 to one of the router's addresses")              \
	X(PASS_NO_XSK, "pass-no-xsk", "no socket on this RX queue (yet): left to the kernel")      \
	X(PASS_NOT_READY, "pass-not-ready", "before the daemon configured the program")            \
	X(RUNT, "runt", "shorter than an Ethernet header (counted l2-runt)")                       \
	X(OTHER_HOST, "other-host", "unicast for another MAC (counted l2-other-host)")             \
	X(REDIRECT6, "redirect-ipv6", "transit IPv6 candidate, sent to the worker's XSK")          \
	X(PASS6_OFF, "pass-ipv6-off", "IPv6 on a port without IPv6 addresses")                     \
	X(PASS6_GROUP, "pass-ipv6-l2-group", "IPv6 to Ethernet multicast (ND, MLD, ...)")          \
	X(PASS6_MULTICAST, "pass-ipv6-multicast", "IPv6 to a multicast address (ff00::/8)")        \
	X(PASS6_LINK_LOCAL, "pass-ipv6-link-local", "IPv6 from or to a link-local address")        \
	X(PASS6_OWN_ADDR, "pass-ipv6-own-address", "IPv6 to one of the router's addresses")        \
	X(PASS6_UNDECIDED, "pass-ipv6-undecided", "shorter than an IPv6 header")                   \
	X(PASS6_NO_XSK, "pass-ipv6-no-xsk", "IPv6, no socket on this RX queue (yet)")

enum cg_xdp_decision {
#define X(id, name, desc) CG_XDP_##id,
	CG_XDP_DECISIONS(X)
#undef X
	    CG_XDP__MAX
};

/* A decision the driver also counts as IPv6 left to the kernel (ip6-in, ip6-to-kernel). */
#define CG_XDP_IS_PASS6(d) ((d) > CG_XDP_REDIRECT6 && (d) <= CG_XDP_PASS6_NO_XSK)

/* Per decision, per CPU (a PERCPU_ARRAY): no atomics on the program's side. */
struct cg_xdp_ctr {
	__u64 packets;
	__u64 bytes;
};

#endif

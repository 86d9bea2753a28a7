/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Datapath counters. Each worker owns one `worker_counters`, so counting is a
 * plain add on a cache line no other thread writes; readers (the control
 * thread, for the log dump, RESTCONF and SNMP alike) sum them into a
 * `stats_snapshot` with stats_snapshot_take().
 *
 * Accounting rule, per port: every frame received is forwarded, left to the
 * kernel, or dropped under exactly one reason, all counted on the port it
 * arrived on:  rx_packets = forwarded + to_kernel + sum(drops).
 */
#ifndef CELLGATE_STATS_H
#define CELLGATE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/atm/vc.h"
#include "datapath/port.h"

#define DROP_REASONS(X)                                                                            \
	X(L2_RUNT, "l2-runt", "frame shorter than an Ethernet header")                             \
	X(L2_OTHER_HOST, "l2-other-host", "unicast frame for another MAC (promiscuous)")           \
	X(IP_TRUNCATED, "ip-truncated", "frame too short for an IPv4 header")                      \
	X(IP_VERSION, "ip-version", "IPv4 ethertype but version is not 4")                         \
	X(IP_HEADER_LENGTH, "ip-header-length", "IHL below 5 or past the frame")                   \
	X(IP_TOTAL_LENGTH, "ip-total-length", "total length beyond the frame or below the header") \
	X(IP_CHECKSUM, "ip-checksum", "header checksum does not verify")                           \
	X(IP_OPTIONS, "ip-options", "IPv4 options present (ip-options drop policy)")               \
	X(IP_BAD_SOURCE, "ip-bad-source", "martian source (RFC 1812 5.3.7)")                       \
	X(TTL_EXPIRED, "ttl-expired", "TTL would reach 0 (ICMP time exceeded sent)")               \
	X(NO_ROUTE, "no-route", "no route to the destination (ICMP unreachable sent)")             \
	X(BLACKHOLE, "blackhole", "route says blackhole")                                          \
	X(UNREACHABLE, "unreachable", "route says unreachable (ICMP sent)")                        \
	X(ARP_FAILED, "arp-failed", "next hop did not answer ARP (ICMP host unreachable sent)")    \
	X(ARP_HOLD_FULL, "arp-hold-full", "waiting for ARP and the hold queue was full")           \
	X(MTU_EXCEEDED, "mtu-exceeded",                                                            \
	  "larger than the egress MTU with DF set (ICMP frag needed sent)")                        \
	X(TX_FULL, "tx-full", "egress TX ring full")                                               \
	X(LINK_DOWN, "link-down", "egress port's link is down (ICMP net unreachable sent)")        \
	IP6_DROP_REASONS(X)                                                                        \
	X(ND_FAILED, "nd-failed",                                                                  \
	  "IPv6 next hop did not answer neighbour discovery (ICMPv6 address unreachable sent)")    \
	X(ND_HOLD_FULL, "nd-hold-full",                                                            \
	  "waiting for neighbour discovery and the hold queue was full")

/* IPv6 (RFC 8200, RFC 4291, RFC 4007): datapath/ip6.h says when and why each applies. */
#define IP6_DROP_REASONS(X)                                                                        \
	X(IP6_TRUNCATED, "ip6-truncated", "frame too short for an IPv6 header")                    \
	X(IP6_VERSION, "ip6-version", "IPv6 ethertype but version is not 6")                       \
	X(IP6_PAYLOAD_LENGTH, "ip6-payload-length", "payload length beyond the frame")             \
	X(IP6_BAD_SOURCE, "ip6-bad-source",                                                        \
	  "source multicast, loopback, v4-mapped or :: (RFC 4291)")                                \
	X(IP6_BAD_DEST, "ip6-bad-dest", "destination ::, loopback or v4-mapped (RFC 6890)")        \
	X(IP6_MCAST_SCOPE, "ip6-mcast-scope", "multicast of reserved or interface-local scope")    \
	X(IP6_EXT_TRUNCATED, "ip6-ext-truncated", "extension header past the payload")             \
	X(IP6_EXT_ORDER, "ip6-ext-order", "Hop-by-Hop header not first (RFC 8200 4.1)")            \
	X(IP6_EXT_LIMIT, "ip6-ext-limit", "too many or too long extension headers (RFC 8883)")     \
	X(IP6_HBH_OPTION, "ip6-hbh-option", "Hop-by-Hop option says discard, or malformed")        \
	X(IP6_HOP_LIMIT, "ip6-hop-limit", "hop limit would reach 0 (ICMPv6 time exceeded sent)")   \
	X(IP6_SRC_SCOPE, "ip6-src-scope", "link-local source would leave its link (ICMPv6 sent)")  \
	X(IP6_DST_SCOPE, "ip6-dst-scope", "link-local destination would leave its link")           \
	X(IP6_TOO_BIG, "ip6-too-big", "larger than the egress MTU (ICMPv6 packet too big sent)")

enum drop_reason {
#define X(id, name, desc) DROP_##id,
	DROP_REASONS(X)
#undef X
	    DROP__MAX
};

extern const char *const drop_reason_name[DROP__MAX];
extern const char *const drop_reason_desc[DROP__MAX];

struct port_counters {
	uint64_t rx_packets;
	uint64_t rx_octets;
	uint64_t tx_packets; /* everything sent: forwarded and generated */
	uint64_t tx_octets;
	uint64_t forwarded;        /* received here and sent out some port */
	uint64_t to_kernel;        /* received here and left to the kernel stack */
	uint64_t icmp_out;         /* ICMP errors generated for packets received here */
	uint64_t icmp_ratelimited; /* ICMP errors suppressed by the rate limit */
	uint64_t fragmented;       /* forwarded packets that had to be fragmented */
	uint64_t fragments_out;    /* fragments created from them */
	uint64_t rx_gso_packets;   /* received as GSO super-packets (one each, not per segment) */
	uint64_t gso_segmented;    /* super-packets segmented in software (egress without TSO) */
	uint64_t gso_segments_out; /* segments made from them */
	/*
	 * IPv6 alone (RFC 4293 ipIfStatsTable's view): of the frames above,
	 * those with EtherType 0x86DD the worker took (ip6_in), and what became
	 * of them, so that ip6_in_packets = ip6_forwarded + ip6_to_kernel +
	 * ip6_discards; octets are of the IPv6 datagrams (no Ethernet header).
	 * ip6_out counts every IPv6 datagram sent on the port, forwarded or
	 * generated (ICMPv6 errors); ip6_icmp_out the ICMPv6 errors generated
	 * for IPv6 received here. Their drops are also under their reasons in
	 * drops[], where no-route, blackhole, tx-full ... mix both families;
	 * drops6[] is the IPv6 share of each, so ip6_discards = sum(drops6).
	 */
	uint64_t ip6_in_packets;
	uint64_t ip6_in_octets;
	uint64_t ip6_forwarded;
	uint64_t ip6_to_kernel;
	uint64_t ip6_discards;
	uint64_t ip6_out_packets;
	uint64_t ip6_out_octets;
	uint64_t ip6_icmp_out;
	uint64_t drops[DROP__MAX];
	uint64_t drops6[DROP__MAX]; /* the IPv6 frames among drops[] */
} __attribute__((aligned(64)));

struct worker_counters {
	struct port_counters port[PORT_MAX];
	uint64_t loops; /* poll loop iterations, for the watchdog */
	uint64_t bursts;
	uint64_t events_lost; /* worker->control event ring overflow */
} __attribute__((aligned(64)));

/* One-writer counter update: no lock prefix, but a single untorn store. */
#define CTR_ADD(c, v) __atomic_store_n(&(c), (c) + (v), __ATOMIC_RELAXED)
#define CTR_READ(c)   __atomic_load_n(&(c), __ATOMIC_RELAXED)

struct stats_port {
	struct port_counters c;
	uint64_t rx_ring_drops; /* dropped by the kernel before the worker saw them */
	uint64_t drops_total;
};

/* One VC: its identity, state and counters. */
struct stats_vc {
	uint16_t id, atm_port, subif, vpi, vci;
	uint8_t oper;            /* enum vc_oper */
	uint64_t oper_change_ms; /* CLOCK_REALTIME ms, 0 = no change since start */
	struct vc_counters c;
	uint64_t discards_total;
};

struct stats_snapshot {
	unsigned nports;
	struct stats_port port[PORT_MAX];
	unsigned nworkers;
	uint64_t worker_loops[WORKER_MAX];
	uint64_t worker_bursts[WORKER_MAX]; /* loop passes that found packets */
	uint64_t worker_held[WORKER_MAX];   /* packets waiting for ARP now (in flight) */
	uint64_t events_lost;
	unsigned nvcs;
	struct stats_vc vc[VC_MAX];
	bool is_atm[PORT_MAX]; /* port is an ATM port: atm[] holds its counters */
	struct atm_port_counters atm[PORT_MAX];
};

/* Sum `nworkers` per-worker counter blocks into `snap` (ports 0..nports-1). */
void stats_sum(const struct worker_counters *const *wc, unsigned nworkers, unsigned nports,
               struct stats_snapshot *snap);

#endif

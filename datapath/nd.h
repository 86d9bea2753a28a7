/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 neighbour discovery for next hops (RFC 4861): Neighbor Solicitation
 * and Advertisement frames built and parsed, solicited-node multicast, and
 * the Neighbor Unreachability Detection state machine (§7.3, Appendix C) as
 * pure code the daemon's neighbour table drives with its clock and timers.
 *
 * The kernel keeps answering ND for the router's own addresses (as it does
 * ARP); these are what the router needs to resolve its next hops, and to
 * answer on links without a kernel netdev (ATM PVCs, RFC 2492).
 */
#ifndef CELLGATE_ND_H
#define CELLGATE_ND_H

#include <stdbool.h>
#include <stdint.h>

#define ND_HOP_LIMIT 255 /* RFC 4861 §7.1: proves the sender is on-link */

#define ND_OPT_SLLA 1 /* source link-layer address (§4.6.1) */
#define ND_OPT_TLLA 2 /* target link-layer address */

/* Neighbor Advertisement flags, the first octet after the checksum (§4.4). */
#define ND_NA_ROUTER    0x80
#define ND_NA_SOLICITED 0x40
#define ND_NA_OVERRIDE  0x20

/* Ethernet + IPv6 + 24-octet NS/NA + one 8-octet link-layer address option. */
#define ND_FRAME_MAX (14 + 40 + 24 + 8)

extern const uint8_t nd_all_nodes[16]; /* ff02::1 */

/* ff02::1:ffXX:XXXX, the solicited-node multicast address of `addr` (RFC 4291 §2.7.1). */
void nd_solicited_node(const uint8_t addr[16], uint8_t out[16]);

/* 33:33 and the low 32 bits of an IPv6 multicast address (RFC 2464 §7). */
void nd_mcast_mac(const uint8_t maddr[16], uint8_t mac[6]);

/*
 * Neighbor Solicitation for `target` from `src_ip` (an address of ours on the
 * link, or :: for duplicate address detection) into `out` (ND_FRAME_MAX).
 * Address resolution (`dst_mac` NULL): to the target's solicited-node group
 * and its MAC. Unreachability probe (`dst_mac` the cached MAC): unicast to
 * the target. The source link-layer option is included unless src_ip is ::
 * (§4.3: it MUST NOT be then). Returns the frame length.
 */
uint32_t nd_ns_build(uint8_t *out, const uint8_t src_mac[6], const uint8_t *dst_mac,
                     const uint8_t src_ip[16], const uint8_t target[16]);

struct nd_msg {
	uint8_t type;  /* ICMP6_NEIGH_SOL or ICMP6_NEIGH_ADV */
	uint8_t flags; /* NA: ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE */
	bool has_lla;  /* NS: source, NA: target link-layer address option (Ethernet size) */
	uint8_t lla[6];
	uint8_t target[16];
	uint8_t src[16]; /* the IPv6 source and destination of the message */
	uint8_t dst[16];
};

/*
 * Answer the solicitation `ns` (parsed, its target one of our addresses on
 * this link) into `out` (ND_FRAME_MAX), as §7.2.4 says: from the target
 * address, with our MAC in a target link-layer option; R when we route; to
 * the solicitor with S set, or, for a DAD probe from ::, to all nodes with S
 * clear; O set unless the target is anycast or proxied (`override` false).
 * The Ethernet destination is the solicitor's source link-layer option, else
 * `ns_eth_src` (the solicitation frame's source). Returns the frame length.
 */
uint32_t nd_na_reply_build(uint8_t *out, const struct nd_msg *ns, const uint8_t ns_eth_src[6],
                           const uint8_t our_mac[6], bool router, bool override);

/*
 * Unsolicited advertisement of `target` (ours) to all nodes (§7.2.6): S clear,
 * O as `override`, R as `router`, our MAC in a target link-layer option.
 */
uint32_t nd_na_unsolicited_build(uint8_t *out, const uint8_t our_mac[6], const uint8_t target[16],
                                 bool router, bool override);

#define ND_ERRORS(X)                                                                               \
	X(MALFORMED, "nd-malformed", "not an IPv6 packet carrying ICMPv6")                         \
	X(TYPE, "nd-type", "ICMPv6 but neither a solicitation nor an advertisement")               \
	X(HOP_LIMIT, "nd-hop-limit", "hop limit not 255: not from this link (RFC 4861 7.1)")       \
	X(FRAGMENT, "nd-fragment", "fragmented or source-routed ND message (RFC 6980)")            \
	X(LENGTH, "nd-length", "ICMPv6 length below 24 octets")                                    \
	X(CHECKSUM, "nd-checksum", "ICMPv6 checksum does not verify")                              \
	X(CODE, "nd-code", "ICMPv6 code is not 0")                                                 \
	X(TARGET, "nd-target", "target address is multicast")                                      \
	X(OPTION, "nd-option", "option of length 0 or running past the message")                   \
	X(DAD, "nd-dad", "solicitation from :: not to a solicited-node group, or with an SLLA")    \
	X(SOLICITED, "nd-solicited", "advertisement to a multicast group with S set")              \
	X(SOURCE, "nd-source", "source address is multicast (RFC 4291 2.7)")

enum nd_error {
	ND_OK = 0,
#define X(id, name, desc) ND_ERR_##id,
	ND_ERRORS(X)
#undef X
	    ND_ERR__MAX
};

extern const char *const nd_error_name[ND_ERR__MAX];

/*
 * Validate and parse an NS or NA: the IPv6 packet at `ip`, `avail` octets of
 * frame after the link-layer header. Every check of RFC 4861 §7.1.1 / §7.1.2
 * (hop limit 255, checksum, code, length, target, options, DAD form, S flag
 * to multicast) and a source that is not multicast; unrecognised options are skipped (§4.6). ND_OK and `out`
 * filled, or the error.
 */
enum nd_error nd_parse(const uint8_t *ip, uint32_t avail, struct nd_msg *out);

/* ---- Neighbor Unreachability Detection (RFC 4861 §7.3, Appendix C) ---- */

/* RFC 4861 §10 protocol constants. */
#define ND_MAX_MULTICAST_SOLICIT      3
#define ND_MAX_UNICAST_SOLICIT        3
#define ND_MAX_ANYCAST_DELAY_TIME_MS  1000
#define ND_MAX_NEIGHBOR_ADVERTISEMENT 3
#define ND_REACHABLE_TIME_MS          30000
#define ND_RETRANS_TIMER_MS           1000
#define ND_DELAY_FIRST_PROBE_TIME_MS  5000
#define ND_MIN_RANDOM_FACTOR_PERMILLE 500
#define ND_MAX_RANDOM_FACTOR_PERMILLE 1500

enum nud_state {
	NUD_NONE = 0, /* no entry (never made, or deleted after failing) */
	NUD_INCOMPLETE,
	NUD_REACHABLE,
	NUD_STALE,
	NUD_DELAY,
	NUD_PROBE,
};

struct nud_params {
	uint32_t reachable_ms; /* ReachableTime: nd_reachable_time() of the base, per link */
	uint32_t retrans_ms;   /* RetransTimer */
	uint32_t delay_ms;     /* DELAY_FIRST_PROBE_TIME */
	uint8_t mcast_solicit; /* MAX_MULTICAST_SOLICIT */
	uint8_t ucast_solicit; /* MAX_UNICAST_SOLICIT */
};

#define NUD_PARAMS_DEFAULT                                                                         \
	{                                                                                          \
		ND_REACHABLE_TIME_MS, ND_RETRANS_TIMER_MS, ND_DELAY_FIRST_PROBE_TIME_MS,           \
		    ND_MAX_MULTICAST_SOLICIT, ND_MAX_UNICAST_SOLICIT                               \
	}

struct nud {
	uint8_t state;        /* enum nud_state */
	uint8_t probes;       /* solicitations sent in INCOMPLETE or PROBE */
	bool is_router;       /* the IsRouter flag of the last advertisement */
	uint8_t lla[6];       /* valid in every state but NONE and INCOMPLETE */
	uint64_t deadline_ms; /* when nud_timer() has work; 0 = no timer */
};

/* What the caller must do after an event (bits, any combination). */
#define NUD_ACT_SEND_MCAST_NS 0x01 /* NS to the target's solicited-node group */
#define NUD_ACT_SEND_UCAST_NS 0x02 /* NS unicast to `lla` */
#define NUD_ACT_RELEASE       0x04 /* the MAC is known: send what waits for it */
#define NUD_ACT_FAILED        0x08 /* resolution failed: drop what waits, ICMPv6 code 3 */
#define NUD_ACT_LLA_CHANGED   0x10 /* publish the new `lla` to the next hops using it */

/*
 * ReachableTime (§6.3.2): uniformly random between MIN_RANDOM_FACTOR and
 * MAX_RANDOM_FACTOR times `base_ms` (at most MAX_REACHABLE_TIME, an hour,
 * §6.2.1); `rnd` is a uniform 32-bit random number.
 */
uint32_t nd_reachable_time(uint32_t base_ms, uint32_t rnd);

/* A packet is to be sent through this neighbour (§7.2.2, §7.3.3). */
unsigned nud_resolve(struct nud *n, const struct nud_params *p, uint64_t now_ms);

/* The clock reached n->deadline_ms (earlier calls do nothing). */
unsigned nud_timer(struct nud *n, const struct nud_params *p, uint64_t now_ms);

/* An advertisement for this neighbour (§7.2.5): flags ND_NA_*, tlla NULL when absent. */
unsigned nud_on_na(struct nud *n, const struct nud_params *p, uint64_t now_ms, uint8_t flags,
                   const uint8_t *tlla);

/* A solicitation from this neighbour with its source link-layer address (§7.2.3). */
unsigned nud_on_ns(struct nud *n, const uint8_t slla[6]);

/* Upper-layer reachability confirmation (§7.3.1): forward progress seen. */
unsigned nud_confirm(struct nud *n, const struct nud_params *p, uint64_t now_ms);

/* Whether packets may go to the cached MAC now (§7.3.3: all states with one). */
static inline bool nud_usable(enum nud_state s)
{
	return s == NUD_REACHABLE || s == NUD_STALE || s == NUD_DELAY || s == NUD_PROBE;
}

#endif

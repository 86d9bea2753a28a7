/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 header checks and rewrites for forwarding (RFC 8200, RFC 4291,
 * RFC 4007). Pure functions over a buffer and a length: the worker calls
 * them, unit tests and fuzz targets call them directly.
 *
 * The forwarding pipeline they make (datapath/worker.c classify6, worker_fwd6.c):
 *
 *   ip6_validate()      header, addresses, extension-header chain
 *      -> IP6_LOCAL     multicast or link-local destination: to the kernel
 *      -> IP6_OK        fib6_lookup(dst) -> next hop (NH_LOCAL: to the kernel)
 *   ip6_egress_check()  hop limit, scope zone of the egress, MTU
 *   ip6_hop_limit_decrement(), MAC rewrite, TX
 *
 * The hop limit is checked at egress, not in ip6_validate(), for the same
 * reason the IPv4 worker checks the TTL there: packets for the router itself
 * reach the kernel whatever their hop limit (MLD reports carry 1, ND 255).
 *
 * Drops, each a named reason (IP6_DROP_REASONS in datapath/stats.h), and why:
 *
 *  ip6-truncated       fewer than 40 octets (RFC 8200 §3).
 *  ip6-version         version is not 6 (RFC 8200 §3).
 *  ip6-payload-length  40 + Payload Length beyond the frame. The frame may be
 *                      longer (Ethernet padding), never shorter. Jumbograms
 *                      (RFC 2675, Payload Length 0) are not supported: their
 *                      Hop-by-Hop header lies beyond the zero payload and is
 *                      counted as ip6-ext-truncated.
 *  ip6-bad-source      a source no router forwards from: multicast (RFC 4291
 *                      §2.7), loopback ::1 (§2.5.3), IPv4-mapped ::ffff:0:0/96
 *                      (RFC 6890 registry: not a valid source; Linux drops it
 *                      on input too), and the unspecified :: when the packet
 *                      would be forwarded (§2.5.2; DAD probes from :: go to
 *                      multicast destinations, hence to the kernel, first).
 *                      Documentation prefixes (2001:db8::/32 RFC 3849,
 *                      3fff::/20 RFC 9637) are "not forwardable" in the RFC
 *                      6890 registry but are forwarded here, as Linux does
 *                      and as ip4_src_is_martian() does with TEST-NETs: labs
 *                      and examples use them, and filtering them on the
 *                      Internet is routing policy, not a fast-path check.
 *  ip6-bad-dest        destination ::, ::1 or ::ffff:0:0/96 (RFC 6890
 *                      registry: never a destination, never forwarded).
 *  ip6-mcast-scope     multicast destination of reserved scope 0 (RFC 4291
 *                      §2.7: silently dropped) or interface-local scope 1
 *                      (RFC 4291 errata 3480: never from another node).
 *                      Multicast of any other scope goes to the kernel: this
 *                      datapath routes no multicast.
 *  ip6-ext-truncated   an extension header (or an option in one) runs past
 *                      the payload, or a first fragment ends before the upper
 *                      layer (RFC 7112: ICMPv6 Parameter Problem code 3).
 *  ip6-ext-order       a Hop-by-Hop Options header that is not the first
 *                      (RFC 8200 §4.1; Parameter Problem code 1).
 *  ip6-ext-limit       more than IP6_EXT_MAX extension headers, or the upper
 *                      layer beyond IP6_EXT_SPAN octets of them: the walk is
 *                      bounded (RFC 8883: Parameter Problem code 8 "too
 *                      many extension headers" or 7 "chain too long").
 *  ip6-hbh-option      the Hop-by-Hop options, examined in every forwarded
 *                      packet as Linux does (RFC 8200 §4 lets a router skip
 *                      them unless configured to), say so: an unrecognised
 *                      option whose action bits ask for a discard (§4.2,
 *                      code 2 for actions 10/11), a Jumbo Payload option
 *                      (RFC 2675, code 0), more than IP6_HBH_OPTS_MAX
 *                      options (RFC 8883 code 9), more than 7 octets of
 *                      padding in a row or a PadN with non-zero content (as
 *                      Linux's ip6_parse_tlv). A Router Alert (RFC 2711) is
 *                      noted in ip6_info.flags and the packet forwarded: this
 *                      router runs no protocol that intercepts it (RFC
 *                      6398); MLD, its main user, is link-local multicast and
 *                      reaches the kernel by its destination.
 *  ip6-hop-limit       hop limit <= 1 when forwarding (RFC 8200 §3; ICMPv6
 *                      Time Exceeded code 0, RFC 4443 §3.3).
 *  ip6-src-scope       a link-local source would leave its link (RFC 4291
 *                      §2.5.6, RFC 4007 §9: Destination Unreachable code 2
 *                      "beyond scope of source address"). Sending it back out
 *                      the link it came from stays within the zone.
 *  ip6-dst-scope       a link-local destination would leave its link (RFC
 *                      4007 §9: code 3). ip6_validate() already sends those to
 *                      the kernel; this guards against a route covering them.
 *  ip6-too-big         larger than the egress MTU: routers never fragment
 *                      IPv6 (RFC 8200 §4.5, §5; Packet Too Big with the MTU,
 *                      RFC 4443 §3.2, never below 1280).
 *
 * Route and egress verdicts shared with IPv4 (no-route, blackhole,
 * unreachable, link-down, tx-full) keep the names of datapath/stats.h; the
 * reasons above are listed there too (IP6_DROP_REASONS, part of
 * DROP_REASONS), so every mirror of the list (YANG, MIB, stats) has them.
 */
#ifndef CELLGATE_IP6_H
#define CELLGATE_IP6_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/stats.h"
#include "lib/wire.h"

#define ETHERTYPE_IPV6 0x86dd
#define IP6_HLEN       40
#define IP6_MIN_MTU    1280 /* RFC 8200 §5 */

/* Next Header values (IANA "Assigned Internet Protocol Numbers"). */
#define IP6_NH_HOPOPTS  0
#define IP6_NH_TCP      6
#define IP6_NH_UDP      17
#define IP6_NH_ROUTING  43
#define IP6_NH_FRAGMENT 44
#define IP6_NH_ESP      50
#define IP6_NH_AH       51
#define IP6_NH_ICMPV6   58
#define IP6_NH_NONE     59
#define IP6_NH_DSTOPTS  60
#define IP6_NH_SCTP     132

/* Bounds of the extension-header walk (see ip6-ext-limit, ip6-hbh-option). */
#define IP6_EXT_MAX      8   /* extension headers before the upper layer */
#define IP6_EXT_SPAN     512 /* octets of them; SRv6 headers of 31 SIDs fit */
#define IP6_HBH_OPTS_MAX 8   /* non-padding options, as Linux's max_hbh_opts_number */

/*
 * Verdicts: a drop reason of datapath/stats.h (IP6_DROP_REASONS there), or
 * one of these two past DROP__MAX.
 */
#define IP6_OK    DROP__MAX       /* forward: look the destination up */
#define IP6_LOCAL (DROP__MAX + 1) /* leave to the kernel */

/* The ICMPv6 error a verdict calls for (RFC 4443); type 0 = none. */
struct ip6_err {
	uint8_t type;
	uint8_t code;
	uint32_t param; /* Packet Too Big: the MTU; Parameter Problem: the pointer */
};

/* What ip6_validate() learnt on the way. */
struct ip6_info {
	uint32_t len;     /* 40 + Payload Length (the frame may carry padding after it) */
	uint16_t l4_off;  /* upper-layer header, from the start of the IPv6 header */
	uint8_t l4_proto; /* the Next Header value that ends the chain */
	uint8_t flags;    /* IP6_F_* */
	uint8_t n_ext;    /* extension headers walked */
	struct ip6_err err;
};

#define IP6_F_FRAGMENT     0x01 /* a Fragment header is present */
#define IP6_F_LATER_FRAG   0x02 /* fragment offset != 0: no upper-layer header in this one */
#define IP6_F_ROUTER_ALERT 0x04 /* Hop-by-Hop Router Alert option (RFC 2711) */
#define IP6_F_HOPOPTS      0x08 /* a Hop-by-Hop Options header is present */
#define IP6_F_ROUTING      0x10 /* a Routing header is present */

/*
 * Check the IPv6 packet at `ip`, `avail` bytes of frame after the link-layer
 * header. Returns IP6_OK (forward: info filled), IP6_LOCAL (leave to the
 * kernel; info->len only) or the drop reason (info->err says which ICMPv6
 * error, if any, the drop calls for).
 */
enum drop_reason ip6_validate(const uint8_t *ip, uint32_t avail, struct ip6_info *info);

/*
 * Walk the extension headers of a packet of `len` octets (40 + Payload
 * Length, checked by the caller) up to the upper layer: IP6_OK with l4_off,
 * l4_proto, flags, n_ext in info, or the ip6-ext-* / ip6-hbh-option drop.
 * Used by ip6_validate() and, on packets already validated or about to be
 * quoted, by ICMPv6 and ND.
 */
enum drop_reason ip6_chain_walk(const uint8_t *ip, uint32_t len, struct ip6_info *info);

/*
 * Once the route says the packet leaves by a port: hop limit, the scope zone
 * of the egress (same_link: it goes back out the link it came in on) and the
 * MTU (`len` is what the link will carry: the packet, or for a GSO packet its
 * largest segment). IP6_OK, or the drop with its ICMPv6 error in *err.
 */
enum drop_reason ip6_egress_check(const uint8_t *ip, uint32_t len, uint32_t mtu, bool same_link,
                                  struct ip6_err *err);

/* RFC 8200 §3: no header checksum, so the decrement is the whole rewrite. */
static inline void ip6_hop_limit_decrement(uint8_t *ip)
{
	ip[7]--;
}

/* Address classes (RFC 4291 §2.4); addresses in network byte order. */
static inline bool ip6_addr_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static inline bool ip6_addr_is_linklocal(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80; /* fe80::/10 */
}

/* Multicast scope (RFC 4291 §2.7, RFC 7346): 1 interface, 2 link, 5 site, 14 global. */
static inline unsigned ip6_mcast_scope(const uint8_t *a)
{
	return a[1] & 0x0f;
}

/* Inline: ip6_validate asks them of every packet that is not global unicast. */
static inline bool ip6_addr_is_unspecified(const uint8_t *a)
{
	return (rd32(a) | rd32(a + 4) | rd32(a + 8) | rd32(a + 12)) == 0;
}

static inline bool ip6_addr_is_loopback(const uint8_t *a)
{
	return (rd32(a) | rd32(a + 4) | rd32(a + 8)) == 0 && rd32(a + 12) == 1;
}

/* ::ffff:0:0/96, RFC 4291 §2.5.5.2 */
static inline bool ip6_addr_is_v4mapped(const uint8_t *a)
{
	return (rd32(a) | rd32(a + 4)) == 0 && rd32(a + 8) == 0xffff;
}

/* Sources never valid on a received packet: multicast, loopback, v4-mapped (not ::). */
static inline bool ip6_src_is_martian(const uint8_t *src)
{
	return ip6_addr_is_multicast(src) || ip6_addr_is_loopback(src) || ip6_addr_is_v4mapped(src);
}

/*
 * Global unicast, 2000::/3 (RFC 4291 §2.4; every address the Internet
 * routes): none of the special cases above, nor link-local or multicast.
 */
static inline bool ip6_addr_is_global_unicast(const uint8_t *a)
{
	return (a[0] & 0xe0) == 0x20;
}

/*
 * True exactly when ip6_egress_check() would return IP6_OK: the worker's
 * common case, decided inline (ip6_egress_check() starts with it, so its
 * unit tests check this too); on false, ip6_egress_check() says why.
 */
static inline bool ip6_egress_passes(const uint8_t *ip, uint32_t len, uint32_t mtu,
                                     bool same_link)
{
	return ip[7] > 1 && len <= mtu &&
	       (same_link || (!ip6_addr_is_linklocal(ip + 8) && !ip6_addr_is_linklocal(ip + 24)));
}

/*
 * ECMP flow hash (RFC 6438, RFC 6437): addresses, flow label, and for a
 * packet that is not a fragment the upper-layer protocol and TCP/UDP/SCTP
 * ports, so every fragment of a datagram hashes alike. `info` is what
 * ip6_validate() returned with IP6_OK.
 */
uint32_t ip6_flow_hash(const uint8_t *ip, const struct ip6_info *info);

#endif

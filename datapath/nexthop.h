/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Next hops and next-hop groups, as the workers read them. The control thread
 * owns allocation (daemon/rib.c); workers only index these arrays with the id
 * found in the FIB. An entry is written completely before any FIB entry refers
 * to it, and an id is reused only after an RCU grace period, so readers need
 * no lock. The one field that changes in place is `l2`, the resolved MAC and
 * ARP (or, for an IPv6 gateway, neighbour discovery) state, written as a
 * single 64-bit word. IPv4 and IPv6 routes share these tables: a group
 * reached from the FIB6 holds IPv6 next hops (gw6), one from the FIB IPv4 ones.
 */
#ifndef CELLGATE_NEXTHOP_H
#define CELLGATE_NEXTHOP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NH_MAX    65536
#define NHG_MAX   65536
#define NHG_SLOTS 64 /* weighted ECMP: paths expanded into up to 64 hash slots */

enum nh_type {
	NH_UNUSED = 0,
	NH_GATEWAY,     /* forward to `gw` on `port`; MAC from `l2` */
	NH_GLEAN,       /* connected prefix: the destination itself is the neighbour */
	NH_LOCAL,       /* one of our addresses, or a broadcast: leave to the kernel */
	NH_BLACKHOLE,   /* drop, counted */
	NH_UNREACHABLE, /* drop, ICMP net unreachable */
	NH_NEIGH_FAILED /* neighbour did not answer ARP: drop, ICMP host unreachable */
};

/* State in bits 48..55 of nexthop.l2; the MAC is in bits 0..47. */
enum neigh_state {
	NEIGH_NONE = 0,
	NEIGH_INCOMPLETE, /* request sent, no answer yet */
	NEIGH_REACHABLE,
	NEIGH_FAILED, /* retries exhausted */
	/*
	 * IPv6 only (RFC 4861 §7.3.3): usable, and no packet sent through it
	 * since it went STALE. The first worker to send turns the word into
	 * NEIGH_STALE_USED (nh_l2_mark_used), which tells the control thread
	 * to start DELAY; both are forwarded to as NEIGH_REACHABLE is.
	 */
	NEIGH_STALE,
	NEIGH_STALE_USED,
};

struct nexthop {
	uint64_t l2; /* atomic: mac | state << 48 */
	uint32_t gw; /* host order */
	uint16_t port;
	uint8_t type; /* enum nh_type */
	uint8_t pad;
} __attribute__((aligned(16)));

struct nhg {
	uint16_t nslots;
	uint16_t npaths;
	uint32_t slot[NHG_SLOTS]; /* next-hop ids; slot[hash % nslots] */
};

struct nh_tables {
	struct nexthop nh[NH_MAX];
	struct nhg nhg[NHG_MAX];
	/*
	 * The IPv6 gateway of nh[i] (network order) when nh[i] is a gateway
	 * of IPv6 routes (their groups are reached from the FIB6 only), else
	 * unused. Apart from struct nexthop so that IPv4 next hops stay 16
	 * bytes; written with the rest of the entry, before any FIB refers
	 * to it. nh[i].l2 is then the IPv6 neighbour's MAC and state.
	 */
	uint8_t gw6[NH_MAX][16];
};

static inline uint64_t nh_l2_pack(const uint8_t mac[6], enum neigh_state st)
{
	uint64_t v = (uint64_t)st << 48;

	for (int i = 0; i < 6; i++)
		v |= (uint64_t)mac[i] << (8 * i);
	return v;
}

static inline enum neigh_state nh_l2_state(uint64_t l2)
{
	return (enum neigh_state)((l2 >> 48) & 0xff);
}

/* Whether a worker sends to the MAC in `l2` (IPv6: every NUD state that has one). */
static inline bool nh_l2_usable(uint64_t l2)
{
	enum neigh_state st = nh_l2_state(l2);

	return st == NEIGH_REACHABLE || st == NEIGH_STALE || st == NEIGH_STALE_USED;
}

/*
 * A worker sent through a NEIGH_STALE next hop (`l2`, as it read it): mark
 * it used. Once per stale period, not per packet (later packets read
 * NEIGH_STALE_USED); if the control thread wrote the word meanwhile the
 * exchange fails and its word stands.
 */
static inline void nh_l2_mark_used(struct nexthop *nh, uint64_t l2)
{
	uint64_t used = (l2 & ~(0xffull << 48)) | (uint64_t)NEIGH_STALE_USED << 48;

	__atomic_compare_exchange_n(&nh->l2, &l2, used, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static inline void nh_l2_mac(uint64_t l2, uint8_t mac[6])
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(mac, &l2, 6); /* byte i is at bits 8i: one 4- and one 2-byte store, not six */
#else
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(l2 >> (8 * i));
#endif
}

#endif

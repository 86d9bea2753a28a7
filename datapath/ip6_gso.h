/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software segmentation of IPv6 GSO super-packets (TCP over IPv6, and UDP
 * with UDP_SEGMENT) for egress ports that cannot take them whole: an ATM
 * subinterface, or an Ethernet port whose netdev lacks TSO. The IPv6 twin of
 * ip4_gso.h: each segment is what the sender's stack would have sent without
 * offload, its IPv6 header and extension headers copied, Payload Length,
 * TCP sequence number and flags or UDP length set, the L4 checksum complete.
 * Pure functions over buffers.
 */
#ifndef CELLGATE_IP6_GSO_H
#define CELLGATE_IP6_GSO_H

#include <stdint.h>

#include "datapath/ip6.h"

struct ip6_gso_iter {
	const uint8_t *ip; /* the super-packet (IPv6 header final: hop limit etc.) */
	uint32_t l4_off;   /* IPv6 header and extension headers */
	uint32_t l4hlen;   /* TCP header with options, or 8 for UDP */
	uint32_t len;      /* 40 + Payload Length */
	uint32_t seg;      /* payload bytes per segment (gso_size) */
	uint32_t done;     /* payload bytes already emitted */
	uint8_t proto;     /* IP6_NH_TCP or IP6_NH_UDP */
	unsigned n;        /* segments emitted */
};

/*
 * Prepare to segment `ip`, whose header chain `info` describes
 * (ip6_validate / ip6_chain_walk), of GSO type `gso_type` (enum pkt_gso, ECN
 * flag allowed) into `gso_size`-byte payloads. 0, or -EINVAL when the
 * headers do not match the type, the packet is a fragment, or gso_size is 0.
 */
int ip6_gso_init(struct ip6_gso_iter *it, const uint8_t *ip, const struct ip6_info *info,
                 uint8_t gso_type, uint16_t gso_size);

/* Length of the largest segment's IPv6 packet. */
uint32_t ip6_gso_seg_len(const struct ip6_gso_iter *it);

/* Write the next segment's IPv6 packet to `out`; its length, or 0 when done. */
uint32_t ip6_gso_next(struct ip6_gso_iter *it, uint8_t *out);

/* Whether the last ip6_gso_next wrote the final segment. */
static inline int ip6_gso_done(const struct ip6_gso_iter *it)
{
	return it->done == it->len - it->l4_off - it->l4hlen;
}

#endif

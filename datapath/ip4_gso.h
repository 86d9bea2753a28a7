/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software segmentation of GSO super-packets (TCP over IPv4, and UDP with
 * UDP_SEGMENT) for egress ports that cannot take them whole: an ATM
 * subinterface, or an Ethernet port whose netdev lacks TSO. Each segment is
 * the packet the sender's stack would have put on the wire without offload:
 * headers copied, IP total length and ID, TCP sequence number and flags or
 * UDP length set, checksums complete. Pure functions over buffers.
 */
#ifndef CELLGATE_IP4_GSO_H
#define CELLGATE_IP4_GSO_H

#include <stdint.h>

struct ip4_gso_iter {
	const uint8_t *ip; /* the super-packet (IP header final: TTL etc.) */
	uint32_t hlen;     /* IP header */
	uint32_t l4hlen;   /* TCP header with options, or 8 for UDP */
	uint32_t tot;      /* IP total length */
	uint32_t seg;      /* payload bytes per segment (gso_size) */
	uint32_t done;     /* payload bytes already emitted */
	unsigned n;        /* segments emitted */
};

/*
 * Prepare to segment `ip` of GSO type `gso_type` (enum pkt_gso, ECN flag
 * allowed) into `gso_size`-byte payloads. 0, or -EINVAL when the headers do
 * not match the type or gso_size is 0.
 */
int ip4_gso_init(struct ip4_gso_iter *it, const uint8_t *ip, uint8_t gso_type,
                 uint16_t gso_size);

/* Length of the largest segment's IP packet. */
uint32_t ip4_gso_seg_len(const struct ip4_gso_iter *it);

/* Write the next segment's IP packet to `out`; its length, or 0 when done. */
uint32_t ip4_gso_next(struct ip4_gso_iter *it, uint8_t *out);

#endif

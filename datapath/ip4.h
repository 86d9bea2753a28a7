/* SPDX-License-Identifier: BSD-2-Clause */
/* IPv4 header checks and rewrites for forwarding (RFC 791, RFC 1812). Pure functions. */
#ifndef CELLGATE_IP4_H
#define CELLGATE_IP4_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/stats.h"
#include "lib/wire.h"

#define ETH_HLEN_      14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP  0x0806
#define IP4_OK         DROP__MAX

/*
 * Check an IPv4 header that starts at `ip` with `avail` bytes of frame after
 * the Ethernet header. Returns IP4_OK or the drop reason (RFC 1812 5.2.2:
 * length, version, header length, checksum; options per policy).
 */
enum drop_reason ip4_validate(const uint8_t *ip, uint32_t avail, bool options_ok);

/* RFC 1812 5.3.7: sources a router must not forward from. */
bool ip4_src_is_martian(uint32_t src);

/* Destinations that are never forwarded but left to the kernel (multicast, limited broadcast). */
bool ip4_dst_is_local_only(uint32_t dst);

/* Flow hash over addresses, protocol and (first fragment only) L4 ports, for ECMP. */
uint32_t ip4_flow_hash(const uint8_t *ip);

/*
 * Fill in the TCP/UDP checksum of a packet the sending host left to offload
 * (TP_STATUS_CSUMNOTREADY: veths and local senders with TX checksum offload).
 * Forwarded as is, the next hop would drop it as corrupt.
 */
void ip4_l4_csum_complete(uint8_t *ip);

/* TTL-1 with the checksum updated incrementally (RFC 1624). Caller checked TTL > 1. */
void ip4_ttl_decrement(uint8_t *ip);

#endif

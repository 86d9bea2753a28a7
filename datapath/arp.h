/* SPDX-License-Identifier: BSD-2-Clause */
/* ARP for IPv4 over Ethernet (RFC 826): parsing what workers see, building requests. */
#ifndef CELLGATE_ARP_H
#define CELLGATE_ARP_H

#include <stdbool.h>
#include <stdint.h>

#define ARP_FRAME_LEN  60 /* 42 bytes padded to the Ethernet minimum */
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY   2

struct arp_info {
	uint16_t op;
	uint8_t sha[6];
	uint32_t spa; /* host order */
	uint8_t tha[6];
	uint32_t tpa;
};

/* Parse an Ethernet frame carrying ARP; false unless it is Ethernet/IPv4 ARP of sane length. */
bool arp_parse(const uint8_t *frame, uint32_t len, struct arp_info *out);

/* Build a request for `tpa` into `out` (ARP_FRAME_LEN bytes); to broadcast when dst_mac is NULL. */
uint32_t arp_request_build(uint8_t *out, const uint8_t src_mac[6], uint32_t spa, uint32_t tpa,
                           const uint8_t *dst_mac);

#endif

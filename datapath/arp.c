/* SPDX-License-Identifier: BSD-2-Clause */
#include <string.h>

#include "datapath/arp.h"
#include "datapath/ip4.h"

bool arp_parse(const uint8_t *frame, uint32_t len, struct arp_info *out)
{
	const uint8_t *a = frame + 14;

	if (len < 14 + 28 || rd16(frame + 12) != ETHERTYPE_ARP)
		return false;
	/* htype Ethernet (1), ptype IPv4, hlen 6, plen 4 */
	if (rd16(a) != 1 || rd16(a + 2) != ETHERTYPE_IPV4 || a[4] != 6 || a[5] != 4)
		return false;
	out->op = rd16(a + 6);
	memcpy(out->sha, a + 8, 6);
	out->spa = rd32(a + 14);
	memcpy(out->tha, a + 18, 6);
	out->tpa = rd32(a + 24);
	return out->op == ARP_OP_REQUEST || out->op == ARP_OP_REPLY;
}

uint32_t arp_request_build(uint8_t *out, const uint8_t src_mac[6], uint32_t spa, uint32_t tpa,
                           const uint8_t *dst_mac)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t *a = out + 14;

	memset(out, 0, ARP_FRAME_LEN);
	memcpy(out, dst_mac ? dst_mac : bcast, 6);
	memcpy(out + 6, src_mac, 6);
	wr16(out + 12, ETHERTYPE_ARP);
	wr16(a, 1);
	wr16(a + 2, ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, ARP_OP_REQUEST);
	memcpy(a + 8, src_mac, 6);
	wr32(a + 14, spa);
	/* target hardware address stays zero in a request (RFC 826) */
	wr32(a + 24, tpa);
	return ARP_FRAME_LEN;
}

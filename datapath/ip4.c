/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/ip4.h"
#include "datapath/csum.h"

enum drop_reason ip4_validate(const uint8_t *ip, uint32_t avail, bool options_ok)
{
	if (avail < 20)
		return DROP_IP_TRUNCATED;
	if ((ip[0] >> 4) != 4)
		return DROP_IP_VERSION;

	uint32_t hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	if (hlen < 20 || hlen > avail)
		return DROP_IP_HEADER_LENGTH;

	/* Ethernet pads short frames, so the frame may be longer than the datagram, never shorter.
	 */
	uint32_t tot = rd16(ip + 2);
	if (tot < hlen || tot > avail)
		return DROP_IP_TOTAL_LENGTH;
	if (csum_compute(ip, hlen) != 0)
		return DROP_IP_CHECKSUM;
	if (hlen > 20 && !options_ok)
		return DROP_IP_OPTIONS;
	return IP4_OK;
}

bool ip4_src_is_martian(uint32_t src)
{
	uint8_t top = (uint8_t)(src >> 24);

	/* 0/8 "this network", 127/8 loopback, 224/4 multicast, 240/4 reserved and broadcast. */
	return top == 0 || top == 127 || top >= 224;
}

bool ip4_dst_is_local_only(uint32_t dst)
{
	uint8_t top = (uint8_t)(dst >> 24);

	return top >= 224 || top == 0 || top == 127;
}

uint32_t ip4_flow_hash(const uint8_t *ip)
{
	uint32_t src = rd32(ip + 12), dst = rd32(ip + 16);
	uint32_t proto = ip[9];
	uint32_t ports = 0;
	uint32_t hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	bool first_frag = (rd16(ip + 6) & 0x1fff) == 0;

	/* Ports only for TCP/UDP/SCTP first fragments, so all fragments of a datagram hash alike.
	 */
	if (first_frag && (proto == 6 || proto == 17 || proto == 132) && rd16(ip + 2) >= hlen + 4)
		ports = rd32(ip + hlen);
	else if (!first_frag)
		proto = 0;

	uint64_t h = (uint64_t)src * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)dst << 32 | ports) * 0xc2b2ae3d27d4eb4full;
	h ^= proto * 0x165667b19e3779f9ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

void ip4_ttl_decrement(uint8_t *ip)
{
	uint16_t old = rd16(ip + 8); /* TTL and protocol share a 16-bit word */
	ip[8]--;
	wr16(ip + 10, csum_update16(rd16(ip + 10), old, rd16(ip + 8)));
}

void ip4_l4_csum_complete(uint8_t *ip)
{
	uint32_t hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	uint32_t tot = rd16(ip + 2);
	uint32_t l4len = tot - hlen;
	uint8_t *l4 = ip + hlen;
	unsigned off;

	/* Only whole datagrams: offload never leaves a fragment partial. */
	if (rd16(ip + 6) & 0x3fff)
		return;
	if (ip[9] == 6 && l4len >= 20)
		off = 16;
	else if (ip[9] == 17 && l4len >= 8)
		off = 6;
	else
		return;
	/* RFC 793 / RFC 768 pseudo-header: addresses, protocol, L4 length. */
	uint32_t sum = csum_partial_sum(ip + 12, 8, 0) + ip[9] + l4len;
	wr16(l4 + off, 0);
	uint16_t c = csum_fold(csum_partial_sum(l4, l4len, sum));
	if (ip[9] == 17 && c == 0)
		c = 0xffff; /* RFC 768: zero means "no checksum" */
	wr16(l4 + off, c);
}

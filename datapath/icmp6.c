/* SPDX-License-Identifier: BSD-2-Clause */
#include <string.h>

#include "datapath/csum.h"
#include "datapath/icmp6.h"

uint16_t icmp6_csum(const uint8_t *ip, const uint8_t *msg, uint32_t msg_len)
{
	/* RFC 8200 §8.1: source, destination, 32-bit length, 24 zero bits, Next Header. */
	uint32_t sum = csum_partial_sum(ip + 8, 32, 0);

	sum += (msg_len >> 16) + (msg_len & 0xffff) + IP6_NH_ICMPV6;
	return csum_fold(csum_partial_sum(msg, msg_len, sum));
}

/* Whether the packet is itself an ICMPv6 error or Redirect (RFC 4443 §2.4 e.1, e.2). */
static bool is_icmp6_error(const uint8_t *ip, uint32_t len)
{
	struct ip6_info info;

	/*
	 * A chain we cannot walk hides nothing we could recognise; Linux's
	 * is_ineligible() answers the same way, and our error is well formed.
	 */
	if (ip6_chain_walk(ip, len, &info) != IP6_OK || info.l4_proto != IP6_NH_ICMPV6 ||
	    (info.flags & IP6_F_LATER_FRAG))
		return false;
	if (info.l4_off >= len)
		return true; /* type cut off: it may be an error, so stay silent */
	return ip[info.l4_off] < 128 || ip[info.l4_off] == ICMP6_REDIRECT;
}

bool icmp6_error_allowed(const uint8_t *ip, uint32_t len, bool l2_multicast, uint8_t type,
                         uint8_t code)
{
	const uint8_t *src = ip + 8, *dst = ip + 24;

	if (len < IP6_HLEN)
		return false;
	if (ip6_addr_is_unspecified(src) || ip6_src_is_martian(src))
		return false;
	if (ip6_addr_is_multicast(dst) || l2_multicast) {
		bool exempt = type == ICMP6_PACKET_TOO_BIG ||
		              (type == ICMP6_PARAM_PROB && code == ICMP6_PP_OPTION);
		if (!exempt)
			return false;
	}
	return !is_icmp6_error(ip, len);
}

uint32_t icmp6_error_build(uint8_t *out, const uint8_t *ip, uint32_t len, const uint8_t dst_mac[6],
                           const uint8_t src_mac[6], const uint8_t src_ip[16], uint8_t type,
                           uint8_t code, uint32_t param)
{
	uint32_t quote = len < ICMP6_ERR_QUOTE_MAX ? len : ICMP6_ERR_QUOTE_MAX;
	uint8_t *oip = out + 14, *msg = oip + IP6_HLEN;

	memcpy(out, dst_mac, 6);
	memcpy(out + 6, src_mac, 6);
	wr16(out + 12, ETHERTYPE_IPV6);

	/* Version 6, traffic class CS6, flow label 0 (RFC 8200 §3). */
	wr32(oip, 6u << 28 | (uint32_t)ICMP6_ERR_TCLASS << 20);
	wr16(oip + 4, (uint16_t)(8 + quote));
	oip[6] = IP6_NH_ICMPV6;
	oip[7] = ICMP6_ERR_HOP_LIMIT;
	memcpy(oip + 8, src_ip, 16);
	memcpy(oip + 24, ip + 8, 16); /* back to the invoking packet's source */

	if (type == ICMP6_PACKET_TOO_BIG && param < IP6_MIN_MTU)
		param = IP6_MIN_MTU;
	else if (type != ICMP6_PACKET_TOO_BIG && type != ICMP6_PARAM_PROB)
		param = 0; /* RFC 4443 §3.1, §3.3: unused, zero */
	msg[0] = type;
	msg[1] = code;
	wr16(msg + 2, 0);
	wr32(msg + 4, param);
	memcpy(msg + 8, ip, quote);
	wr16(msg + 2, icmp6_csum(oip, msg, 8 + quote));
	return 14 + IP6_HLEN + 8 + quote;
}

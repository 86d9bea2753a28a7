/* SPDX-License-Identifier: BSD-2-Clause */
#include <string.h>

#include "datapath/csum.h"
#include "datapath/icmp.h"
#include "datapath/ip4.h"

bool icmp4_error_allowed(const uint8_t *ip, bool l2_multicast)
{
	uint32_t hlen = (uint32_t)(ip[0] & 0x0f) * 4;

	if (l2_multicast)
		return false;
	if ((rd16(ip + 6) & 0x1fff) != 0)
		return false;
	if (ip4_src_is_martian(rd32(ip + 12)) || ip4_dst_is_local_only(rd32(ip + 16)))
		return false;
	if (ip[9] == 1 && rd16(ip + 2) > hlen) {
		uint8_t t = ip[hlen];
		/* Errors are types 3, 4 (obsolete), 5, 11, 12; queries may be answered. */
		if (t == 3 || t == 4 || t == 5 || t == 11 || t == 12)
			return false;
	}
	return true;
}

uint32_t icmp4_error_build(uint8_t *out, const uint8_t *ip, uint32_t tot_len,
                           const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t src_ip,
                           uint8_t type, uint8_t code, uint16_t mtu)
{
	uint32_t quote = tot_len;

	if (quote > 576 - 20 - 8)
		quote = 576 - 20 - 8;

	memcpy(out, dst_mac, 6);
	memcpy(out + 6, src_mac, 6);
	wr16(out + 12, ETHERTYPE_IPV4);

	uint8_t *oip = out + 14;
	uint16_t tot = (uint16_t)(20 + 8 + quote);
	oip[0] = 0x45;
	oip[1] = 0xc0; /* DSCP CS6: network control, as routers mark their own errors */
	wr16(oip + 2, tot);
	wr16(oip + 4, 0);
	wr16(oip + 6, 0x4000); /* DF */
	oip[8] = 64;
	oip[9] = 1;
	wr16(oip + 10, 0);
	wr32(oip + 12, src_ip);
	memcpy(oip + 16, ip + 12, 4);
	wr16(oip + 10, csum_compute(oip, 20));

	uint8_t *icmp = oip + 20;
	icmp[0] = type;
	icmp[1] = code;
	wr16(icmp + 2, 0);
	wr16(icmp + 4, 0);
	wr16(icmp + 6, type == ICMP_DEST_UNREACH && code == ICMP_CODE_FRAG_NEEDED ? mtu : 0);
	memcpy(icmp + 8, ip, quote);
	wr16(icmp + 2, csum_compute(icmp, 8 + quote));
	return 14 + tot;
}

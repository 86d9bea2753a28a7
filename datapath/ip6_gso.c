/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/gso_seg.h"
#include "datapath/ip6_gso.h"
#include "datapath/pkt.h"

int ip6_gso_init(struct ip6_gso_iter *it, const uint8_t *ip, const struct ip6_info *info,
                 uint8_t gso_type, uint16_t gso_size)
{
	uint8_t type = gso_type & ~PKT_GSO_ECN;

	*it = (struct ip6_gso_iter){.ip = ip, .l4_off = info->l4_off, .len = info->len,
	                            .seg = gso_size, .proto = info->l4_proto};
	/* A Fragment header would need new fragments, not segments: no stack sends that. */
	if (gso_size == 0 || (info->flags & IP6_F_FRAGMENT) || it->l4_off < IP6_HLEN ||
	    it->len < it->l4_off)
		return -EINVAL;
	if (type == PKT_GSO_TCP6 && it->proto == IP6_NH_TCP && it->len >= it->l4_off + 20)
		it->l4hlen = (uint32_t)(ip[it->l4_off + 12] >> 4) * 4; /* options included */
	else if (type == PKT_GSO_UDP_L4 && it->proto == IP6_NH_UDP && it->len >= it->l4_off + 8)
		it->l4hlen = 8;
	else
		return -EINVAL;
	if (it->l4hlen < 8 || it->l4_off + it->l4hlen > it->len)
		return -EINVAL;
	return 0;
}

uint32_t ip6_gso_seg_len(const struct ip6_gso_iter *it)
{
	return it->l4_off + it->l4hlen + it->seg;
}

/* RFC 8200 8.1: the upper-layer checksum covers a pseudo-header of both addresses,
 * the upper-layer length and the Next Header value of the upper layer. */
static void l4_csum6(uint8_t *ip, uint8_t *l4, uint32_t l4len, uint8_t proto)
{
	unsigned off = proto == IP6_NH_TCP ? 16 : 6;
	uint32_t sum = csum_partial_sum(ip + 8, 32, 0) + (l4len >> 16) + (l4len & 0xffff) + proto;

	wr16(l4 + off, 0);
	uint16_t c = csum_fold(csum_partial_sum(l4, l4len, sum));
	/* RFC 8200 8.1: a UDP checksum of zero is sent as 0xffff over IPv6. */
	if (proto == IP6_NH_UDP && c == 0)
		c = 0xffff;
	wr16(l4 + off, c);
}

uint32_t ip6_gso_next(struct ip6_gso_iter *it, uint8_t *out)
{
	uint32_t hdrs = it->l4_off + it->l4hlen;
	struct gso_chunk c;

	if (!gso_chunk_next(it->len - hdrs, it->done, it->seg, it->n, &c))
		return 0;
	memcpy(out, it->ip, hdrs);
	memcpy(out + hdrs, it->ip + hdrs + it->done, c.len);
	wr16(out + 4, (uint16_t)(hdrs + c.len - IP6_HLEN)); /* Payload Length */
	gso_l4_fixup(out + it->l4_off, it->proto == IP6_NH_TCP, rd32(it->ip + it->l4_off + 4),
	             it->done, it->l4hlen, &c);
	l4_csum6(out, out + it->l4_off, it->l4hlen + c.len, it->proto);
	it->done += c.len;
	it->n++;
	return hdrs + c.len;
}

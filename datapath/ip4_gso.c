/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/gso_seg.h"
#include "datapath/ip4.h"
#include "datapath/ip4_gso.h"
#include "datapath/pkt.h"

int ip4_gso_init(struct ip4_gso_iter *it, const uint8_t *ip, uint8_t gso_type,
                 uint16_t gso_size)
{
	uint8_t type = gso_type & ~PKT_GSO_ECN;

	it->ip = ip;
	it->hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	it->tot = rd16(ip + 2);
	it->seg = gso_size;
	it->done = 0;
	it->n = 0;
	if (gso_size == 0 || it->hlen < 20 || it->tot < it->hlen)
		return -EINVAL;
	if (type == PKT_GSO_TCP4 && ip[9] == 6 && it->tot >= it->hlen + 20)
		it->l4hlen = (uint32_t)(ip[it->hlen + 12] >> 4) * 4;
	else if (type == PKT_GSO_UDP_L4 && ip[9] == 17 && it->tot >= it->hlen + 8)
		it->l4hlen = 8;
	else
		return -EINVAL;
	if (it->l4hlen < 8 || it->hlen + it->l4hlen > it->tot)
		return -EINVAL;
	return 0;
}

uint32_t ip4_gso_seg_len(const struct ip4_gso_iter *it)
{
	return it->hlen + it->l4hlen + it->seg;
}

uint32_t ip4_gso_next(struct ip4_gso_iter *it, uint8_t *out)
{
	uint32_t hdrs = it->hlen + it->l4hlen;
	struct gso_chunk c;

	if (!gso_chunk_next(it->tot - hdrs, it->done, it->seg, it->n, &c))
		return 0;
	memcpy(out, it->ip, hdrs);
	memcpy(out + hdrs, it->ip + hdrs + it->done, c.len);
	wr16(out + 2, (uint16_t)(hdrs + c.len));
	/* One IP ID per segment, as the sender's stack numbers them (RFC 6864). */
	wr16(out + 4, (uint16_t)(rd16(it->ip + 4) + it->n));
	wr16(out + 10, 0);
	wr16(out + 10, csum_compute(out, it->hlen));
	gso_l4_fixup(out + it->hlen, out[9] == 6, rd32(it->ip + it->hlen + 4), it->done, it->l4hlen,
	             &c);
	ip4_l4_csum_complete(out);
	it->done += c.len;
	it->n++;
	return hdrs + c.len;
}

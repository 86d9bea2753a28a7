/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/ip4.h"
#include "datapath/ip4_frag.h"

/* RFC 791 3.1: options whose copied flag (top bit of the type) is set go in every fragment. */
static uint8_t frag_copied_options(const uint8_t *opt, uint32_t len, uint8_t *out)
{
	uint32_t i = 0, n = 0;

	while (i < len) {
		uint8_t type = opt[i];
		uint32_t olen;

		if (type == 0) /* end of option list */
			break;
		if (type == 1) { /* no-operation: a single byte, not copied */
			i++;
			continue;
		}
		if (i + 1 >= len || opt[i + 1] < 2 || i + opt[i + 1] > len)
			break; /* malformed: stop copying rather than read past the header */
		olen = opt[i + 1];
		if (type & 0x80) {
			memcpy(out + n, opt + i, olen);
			n += olen;
		}
		i += olen;
	}
	while (n % 4)
		out[n++] = 0; /* pad with end-of-list to a 32-bit boundary */
	return (uint8_t)n;
}

int ip4_frag_init(struct ip4_frag_iter *it, const uint8_t *ip, uint32_t mtu)
{
	uint16_t frag = rd16(ip + 6);

	it->ip = ip;
	it->hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	it->tot = rd16(ip + 2);
	it->done = 0;
	it->mtu = mtu;
	it->off0 = frag & 0x1fff;
	it->mf0 = frag & 0x2000;
	it->opt_len = frag_copied_options(ip + 20, it->hlen - 20, it->opts);
	if (mtu < it->hlen + 8 || it->tot <= it->hlen)
		return -EINVAL;
	return 0;
}

uint32_t ip4_frag_next(struct ip4_frag_iter *it, uint8_t *out)
{
	uint32_t payload = it->tot - it->hlen;
	uint32_t hlen = it->done == 0 ? it->hlen : 20u + it->opt_len;
	uint32_t chunk;
	bool last;

	if (it->done >= payload)
		return 0;
	chunk = payload - it->done;
	last = hlen + chunk <= it->mtu;
	if (!last)
		chunk = (it->mtu - hlen) & ~7u;

	memcpy(out, it->ip, 20);
	if (it->done == 0)
		memcpy(out + 20, it->ip + 20, it->hlen - 20);
	else
		memcpy(out + 20, it->opts, it->opt_len);
	out[0] = (uint8_t)(0x40 | hlen / 4);
	wr16(out + 2, (uint16_t)(hlen + chunk));
	/* Keep DF/reserved bits as they were; MF on all but the original's last piece. */
	uint16_t flags = (rd16(it->ip + 6) & 0xc000) | (last ? it->mf0 : 0x2000);
	wr16(out + 6, (uint16_t)(flags | (it->off0 + it->done / 8)));
	wr16(out + 10, 0);
	wr16(out + 10, csum_compute(out, hlen));
	memcpy(out + hlen, it->ip + it->hlen + it->done, chunk);
	it->done += chunk;
	return hlen + chunk;
}

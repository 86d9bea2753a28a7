/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What IPv4 and IPv6 software GSO (ip4_gso.c, ip6_gso.c) share: the payload
 * each segment carries, and the L4 header fields that differ per segment.
 */
#ifndef CELLGATE_GSO_SEG_H
#define CELLGATE_GSO_SEG_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/wire.h"

#define GSO_TCP_FIN 0x01
#define GSO_TCP_PSH 0x08
#define GSO_TCP_CWR 0x80

struct gso_chunk {
	uint32_t len; /* payload bytes of this segment */
	bool first, last;
};

/*
 * The next segment of a `payload`-byte super-packet cut into `seg`-byte
 * pieces, `done` bytes and `n` segments in: false when there is none (a
 * header-only packet still makes one segment).
 */
static inline bool gso_chunk_next(uint32_t payload, uint32_t done, uint32_t seg, unsigned n,
                                  struct gso_chunk *c)
{
	if (done >= payload && !(payload == 0 && n == 0))
		return false;
	c->len = payload - done > seg ? seg : payload - done;
	c->first = n == 0;
	c->last = done + c->len >= payload;
	return true;
}

/*
 * The L4 header of a segment starting `done` bytes into the payload: TCP's
 * sequence number (from the super-packet's `seq0`), with FIN and PSH on the
 * last segment only and CWR on the first only (RFC 3168 6.1.2); or UDP's
 * length. The checksum is the caller's (it needs the IP pseudo-header).
 */
static inline void gso_l4_fixup(uint8_t *l4, bool tcp, uint32_t seq0, uint32_t done,
                                uint32_t l4hlen, const struct gso_chunk *c)
{
	if (tcp) {
		wr32(l4 + 4, seq0 + done);
		if (!c->last)
			l4[13] &= (uint8_t) ~(GSO_TCP_FIN | GSO_TCP_PSH);
		if (!c->first)
			l4[13] &= (uint8_t)~GSO_TCP_CWR;
	} else {
		wr16(l4 + 4, (uint16_t)(l4hlen + c->len));
	}
}

#endif

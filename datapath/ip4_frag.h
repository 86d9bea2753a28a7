/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 fragmentation (RFC 791 section 3.2, RFC 1812 section 4.2.2.7): split a
 * datagram without DF into fragments that fit the egress MTU. Pure functions
 * over buffers, so the worker, unit tests and fuzzers drive the same code.
 */
#ifndef CELLGATE_IP4_FRAG_H
#define CELLGATE_IP4_FRAG_H

#include <stdint.h>

struct ip4_frag_iter {
	const uint8_t *ip; /* the original datagram (header already final: TTL etc.) */
	uint32_t hlen, tot;
	uint32_t done; /* payload bytes already emitted */
	uint32_t mtu;
	uint16_t off0;   /* original fragment offset, in 8-byte units */
	uint16_t mf0;    /* original MF flag (0x2000) */
	uint8_t opt_len; /* copied options for non-first fragments, padded */
	uint8_t opts[40];
};

/*
 * Prepare to fragment `ip` for `mtu`. 0, or -EINVAL when the header plus
 * 8 bytes of data cannot fit (RFC 791: fragments carry multiples of 8).
 */
int ip4_frag_init(struct ip4_frag_iter *it, const uint8_t *ip, uint32_t mtu);

/* Write the next fragment's IP packet to `out` (room for mtu bytes); its length, or 0 when done. */
uint32_t ip4_frag_next(struct ip4_frag_iter *it, uint8_t *out);

#endif

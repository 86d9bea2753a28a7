/* SPDX-License-Identifier: BSD-2-Clause */
/* Internet checksum helpers (RFC 1071) and incremental update (RFC 1624). */
#ifndef CELLGATE_CSUM_H
#define CELLGATE_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* One's-complement sum of `len` bytes, not yet folded or inverted. */
static inline uint32_t csum_partial_sum(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;

	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static inline uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Checksum of a buffer, in host order: 0 when a buffer with its checksum verifies. */
static inline uint16_t csum_compute(const void *buf, size_t len)
{
	return csum_fold(csum_partial_sum(buf, len, 0));
}

/*
 * RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') for a 16-bit field changing from m to
 * m'. All values in host order. Used for the TTL decrement so forwarding never
 * re-sums the header.
 */
static inline uint16_t csum_update16(uint16_t hc, uint16_t old_field, uint16_t new_field)
{
	uint32_t sum = (uint16_t)~hc + (uint32_t)(uint16_t)~old_field + new_field;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif

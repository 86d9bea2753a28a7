/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Big-endian (network order) loads and stores on unaligned bytes, for every
 * wire format cellgate reads or writes (Ethernet, IPv4, ARP, cells, AAL5
 * trailers, pseudowire control words). Compilers turn these into one
 * load/store plus a byte swap.
 */
#ifndef CELLGATE_LIB_WIRE_H
#define CELLGATE_LIB_WIRE_H

#include <stdint.h>

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif

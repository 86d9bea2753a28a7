/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CRC-32 of the AAL5 CPCS-PDU trailer (I.363.5 §9.2, CPCS-PDU coding): generator
 * 0x04C11DB7 processed most significant bit first, register preset to all ones,
 * remainder complemented, sent big endian. This is the catalogue's CRC-32/BZIP2,
 * check("123456789") = 0xFC891918 -- not the bit-reflected Ethernet/zlib CRC.
 *
 * aal5_crc32() uses ISA-L's crc32_ieee() (folding with carry-less multiply) when
 * configure found libisal; aal5_crc32_sw() is the portable slicing-by-8 code, always
 * built, so both can be tested against each other.
 */
#ifndef CELLGATE_ATM_AAL5_CRC_H
#define CELLGATE_ATM_AAL5_CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * Incremental form: state = AAL5_CRC32_INIT; state = aal5_crc32_update(state, ...)
 * over consecutive pieces; aal5_crc32_final(state) is the CRC of their concatenation.
 * The state is the raw shift register (preset to all ones, not yet complemented).
 */
#define AAL5_CRC32_INIT 0xffffffffu

uint32_t aal5_crc32_update(uint32_t state, const uint8_t *buf, size_t len);

static inline uint32_t aal5_crc32_final(uint32_t state)
{
	return ~state;
}

/* CRC-32 of one contiguous buffer. */
uint32_t aal5_crc32(const uint8_t *buf, size_t len);

/* The portable implementation, whatever aal5_crc32() uses. Same state convention. */
uint32_t aal5_crc32_sw_update(uint32_t state, const uint8_t *buf, size_t len);
uint32_t aal5_crc32_sw(const uint8_t *buf, size_t len);

/* "isa-l" or "sw": which code aal5_crc32() runs (for benchmarks and logs). */
const char *aal5_crc32_impl(void);

#endif

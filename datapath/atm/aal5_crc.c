/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/aal5_crc.h"

#include "cellgate-build.h"

#include <stdbool.h>

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

#define AAL5_CRC32_POLY 0x04c11db7u

/*
 * Slicing-by-8, most significant bit first: crc_table[k][b] is the register after
 * byte b followed by k zero bytes, so eight input bytes fold in with eight lookups.
 */
static uint32_t crc_table[8][256];

/* Filled before main(): read-only afterwards, shared by all workers without locks. */
__attribute__((constructor)) static void crc_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;

		for (int b = 0; b < 8; b++)
			c = (c & 0x80000000u) ? (c << 1) ^ AAL5_CRC32_POLY : c << 1;
		crc_table[0][i] = c;
	}
	for (int k = 1; k < 8; k++)
		for (int i = 0; i < 256; i++) {
			uint32_t prev = crc_table[k - 1][i];

			crc_table[k][i] = (prev << 8) ^ crc_table[0][prev >> 24];
		}
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint32_t aal5_crc32_sw_update(uint32_t state, const uint8_t *buf, size_t len)
{
	uint32_t c = state;

	while (len >= 8) {
		uint32_t a = c ^ load_be32(buf), b = load_be32(buf + 4);

		c = crc_table[7][a >> 24] ^ crc_table[6][(a >> 16) & 0xff] ^
		    crc_table[5][(a >> 8) & 0xff] ^ crc_table[4][a & 0xff] ^ crc_table[3][b >> 24] ^
		    crc_table[2][(b >> 16) & 0xff] ^ crc_table[1][(b >> 8) & 0xff] ^
		    crc_table[0][b & 0xff];
		buf += 8;
		len -= 8;
	}
	while (len--)
		c = (c << 8) ^ crc_table[0][(c >> 24) ^ *buf++];
	return c;
}

uint32_t aal5_crc32_sw(const uint8_t *buf, size_t len)
{
	return aal5_crc32_final(aal5_crc32_sw_update(AAL5_CRC32_INIT, buf, len));
}

#ifdef HAVE_ISAL
/*
 * ISA-L's AVX-512 kernel (crc32_ieee_by16_10 in 2.30) returns with the upper halves of
 * the vector registers dirty and no VZEROUPPER. Every legacy-SSE instruction after it
 * (memcpy, most compiled code) then pays a transition penalty: measured here, a 64-byte
 * AAL5 segmentation went from 74 to 234 ns once a 9180-byte CRC had run. Clear the
 * upper state after each call on CPUs that have AVX (VZEROUPPER faults without it).
 */
static bool cpu_has_avx;

__attribute__((constructor)) static void cpu_features_init(void)
{
	__builtin_cpu_init();
	cpu_has_avx = __builtin_cpu_supports("avx");
}

static inline void vector_upper_clear(void)
{
	if (cpu_has_avx)
		__asm__ volatile("vzeroupper" ::
		                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
		                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
		                       "xmm14", "xmm15");
}

/*
 * crc32_ieee(seed, ...) presets its register to ~seed and returns the complemented
 * register, so a finished CRC chains as the next seed and seed 0 is the plain CRC.
 * Our state is the raw register: complement on the way in and out.
 */
/*
 * Below this many octets the table code is faster than a call into ISA-L (measured:
 * ~15 ns for 4..12 octets there, ~3 ns for an 8-octet LLC header here).
 */
#define ISAL_MIN_LEN 16

uint32_t aal5_crc32_update(uint32_t state, const uint8_t *buf, size_t len)
{
	if (len < ISAL_MIN_LEN)
		return aal5_crc32_sw_update(state, buf, len);

	uint32_t crc = crc32_ieee(~state, buf, len);

	vector_upper_clear();
	return ~crc;
}

uint32_t aal5_crc32(const uint8_t *buf, size_t len)
{
	if (len < ISAL_MIN_LEN)
		return aal5_crc32_sw(buf, len);

	uint32_t crc = crc32_ieee(0, buf, len);

	vector_upper_clear();
	return crc;
}

const char *aal5_crc32_impl(void)
{
	return "isa-l";
}
#else
uint32_t aal5_crc32_update(uint32_t state, const uint8_t *buf, size_t len)
{
	return aal5_crc32_sw_update(state, buf, len);
}

uint32_t aal5_crc32(const uint8_t *buf, size_t len)
{
	return aal5_crc32_sw(buf, len);
}

const char *aal5_crc32_impl(void)
{
	return "sw";
}
#endif

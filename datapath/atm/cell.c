/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/cell.h"

/*
 * I.432.1 §4.3.2: the HEC is the remainder of x^8 * (header polynomial) divided by
 * x^8 + x^2 + x + 1, plus the coset 01010101 "to improve cell delineation performance".
 */
#define HEC_POLY  0x07
#define HEC_COSET 0x55

static uint8_t hec_table[256];

/* Filled before main(): the table is read-only afterwards, so workers share it without locks. */
__attribute__((constructor)) static void hec_table_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint8_t c = (uint8_t)i;

		for (int b = 0; b < 8; b++)
			c = (uint8_t)((c & 0x80) ? (c << 1) ^ HEC_POLY : c << 1);
		hec_table[i] = c;
	}
}

uint8_t atm_hec(const uint8_t hdr[4])
{
	uint8_t c = 0;

	for (int i = 0; i < 4; i++)
		c = hec_table[c ^ hdr[i]];
	return c ^ HEC_COSET;
}

bool atm_hec_ok(const uint8_t cell[5])
{
	return atm_hec(cell) == cell[4];
}

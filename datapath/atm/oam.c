/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/oam.h"

#include <string.h>

#include "datapath/atm/cell.h"
#include "lib/wire.h"

#define CRC10_POLY 0x233 /* x^10 + x^9 + x^5 + x^4 + x + 1, without the x^10 term */
#define CRC10_MASK 0x3ff

/* Octet offsets in the payload (I.610 §10.2.4, loopback cell). */
#define LB_OFF_TYPE_FUNC  0
#define LB_OFF_INDICATION 1
#define LB_OFF_TAG        2
#define LB_OFF_LOCATION   6
#define LB_OFF_SOURCE     22
#define LB_OFF_FILL       38
#define OAM_OFF_CRC       46 /* 6 reserved bits, then the 10-bit CRC */

static uint16_t crc10_table[256];

/* Filled before main(): read-only afterwards, shared by all workers without locks. */
__attribute__((constructor)) static void crc10_table_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint16_t c = (uint16_t)(i << 2);

		for (int b = 0; b < 8; b++)
			c = (uint16_t)((c & 0x200) ? (c << 1) ^ CRC10_POLY : c << 1);
		crc10_table[i] = c & CRC10_MASK;
	}
}

static uint16_t crc10_update(uint16_t c, const uint8_t *buf, size_t len)
{
	while (len--)
		c = (uint16_t)(((c << 8) ^ crc10_table[(c >> 2) ^ *buf++]) & CRC10_MASK);
	return c;
}

uint16_t oam_crc10(const uint8_t *buf, size_t len)
{
	return crc10_update(0, buf, len);
}

bool oam_crc10_ok(const uint8_t payload[48])
{
	return oam_crc10(payload, ATM_CELL_PAYLOAD) == 0;
}

void oam_crc10_set(uint8_t payload[48])
{
	/*
	 * The CRC field is the remainder of x^10 * (the 374 bits before it) -- 46 octets
	 * and the 6 reserved zero bits -- so a good cell divides evenly. The table walks
	 * whole octets; the 6 zero bits are shifted in one at a time.
	 */
	uint16_t c = crc10_update(0, payload, OAM_OFF_CRC);

	for (int b = 0; b < 6; b++)
		c = (uint16_t)(((c & 0x200) ? (c << 1) ^ CRC10_POLY : c << 1) & CRC10_MASK);
	payload[OAM_OFF_CRC] = (uint8_t)(c >> 8);
	payload[OAM_OFF_CRC + 1] = (uint8_t)c;
}

void oam_loopback_build(uint8_t payload[48], const struct oam_loopback *lb)
{
	payload[LB_OFF_TYPE_FUNC] = OAM_TF_LOOPBACK;
	payload[LB_OFF_INDICATION] = lb->indication & 1; /* 7 reserved bits 0 */
	wr32(payload + LB_OFF_TAG, lb->tag);
	memcpy(payload + LB_OFF_LOCATION, lb->location_id, 16);
	memcpy(payload + LB_OFF_SOURCE, lb->source_id, 16);
	memset(payload + LB_OFF_FILL, OAM_LB_FILL, OAM_OFF_CRC - LB_OFF_FILL);
	oam_crc10_set(payload);
}

int oam_parse(const uint8_t payload[48], uint8_t *type_func, struct oam_loopback *lb)
{
	if (!oam_crc10_ok(payload))
		return OAM_ERR_CRC;
	*type_func = payload[LB_OFF_TYPE_FUNC];
	if (*type_func != OAM_TF_LOOPBACK)
		return OAM_ERR_UNSUPPORTED;
	if (lb) {
		lb->indication = payload[LB_OFF_INDICATION] & 1;
		lb->tag = rd32(payload + LB_OFF_TAG);
		memcpy(lb->location_id, payload + LB_OFF_LOCATION, 16);
		memcpy(lb->source_id, payload + LB_OFF_SOURCE, 16);
	}
	return 0;
}

uint32_t oam_hdr_word(uint16_t vpi, uint16_t vci, bool end_to_end)
{
	return atm_hdr_make(vpi, vci, end_to_end ? ATM_PTI_OAM_E2E : ATM_PTI_OAM_SEG, 0);
}

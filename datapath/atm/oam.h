/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * F5 (VC level) OAM cells, ITU-T I.610: the CRC-10 that closes every OAM cell
 * (§10.1), the loopback cell (§10.2.4) and the header of F5 flows (§3.2.2).
 */
#ifndef CELLGATE_ATM_OAM_H
#define CELLGATE_ATM_OAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Octet 0 of the payload: OAM type (high nibble) and function type (low nibble), I.610 §10.1. */
#define OAM_TF_AIS      0x10 /* fault management: alarm indication signal */
#define OAM_TF_RDI      0x11 /* fault management: remote defect indication */
#define OAM_TF_CC       0x14 /* fault management: continuity check */
#define OAM_TF_LOOPBACK 0x18 /* fault management: loopback */

#define OAM_LB_FILL 0x6a /* I.610 §10.1: unused octets are coded 0x6A */

#define OAM_ERR_CRC         (-1) /* CRC-10 does not verify */
#define OAM_ERR_UNSUPPORTED (-2) /* good CRC, but not a loopback cell: see *type_func */

/*
 * CRC-10, generator x^10 + x^9 + x^5 + x^4 + x + 1 (0x233), register preset to 0, most
 * significant bit first, no final complement. Over all 48 octets of a good OAM cell it
 * is 0. (Catalogue name CRC-10/ATM; check("123456789") = 0x199.)
 */
uint16_t oam_crc10(const uint8_t *buf, size_t len);

bool oam_crc10_ok(const uint8_t payload[48]);

/* Fill the last 10 bits of the payload with its CRC-10; the 6 reserved bits before it are 0. */
void oam_crc10_set(uint8_t payload[48]);

/*
 * Loopback cell fields (I.610 §10.2.4).
 *
 * Loopback indication: the originator sends 1; the loopback point -- the segment end
 * point or the connection end point named by the location ID (all ones = the end
 * point) -- returns the cell with 0 and the same correlation tag, so a cell with
 * indication 0 is a reply, to be matched against the tag sent and never looped again.
 * Only the least significant bit of the octet is defined; the other 7 are reserved 0.
 */
struct oam_loopback {
	uint8_t indication; /* 1 = to be looped back, 0 = looped back (a reply) */
	uint32_t tag;       /* correlation tag, echoed unchanged */
	uint8_t location_id[16];
	uint8_t source_id[16];
};

/*
 * Payload of a loopback cell: 0x18, indication, tag, location ID, source ID, eight
 * 0x6A fill octets, reserved bits 0, CRC-10. Pair it with oam_hdr_word().
 */
void oam_loopback_build(uint8_t payload[48], const struct oam_loopback *lb);

/*
 * Check an F5 OAM payload. Returns 0 for a loopback cell (fields in *lb, which may be
 * NULL), OAM_ERR_CRC, or OAM_ERR_UNSUPPORTED for any other OAM type/function.
 * *type_func is set whenever the CRC verifies, so the caller can count AIS, RDI, CC.
 */
int oam_parse(const uint8_t payload[48], uint8_t *type_func, struct oam_loopback *lb);

/* I.610 §3.2.2: F5 cells use the VC's own VPI/VCI, PTI 4 (segment) or 5 (end to end), CLP 0. */
uint32_t oam_hdr_word(uint16_t vpi, uint16_t vci, bool end_to_end);

#endif

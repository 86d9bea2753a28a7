/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM cell header at the UNI (ITU-T I.361 §2.2): GFC(4) VPI(8) VCI(16) PTI(3) CLP(1),
 * then the HEC octet (I.432.1 §4.3). Cell pseudowires carry the header without the HEC
 * (RFC 4717 §5.1). Pure functions, no state.
 */
#ifndef CELLGATE_ATM_CELL_H
#define CELLGATE_ATM_CELL_H

#include <stdbool.h>
#include <stdint.h>

#define ATM_CELL_PAYLOAD 48
#define ATM_CELL_SIZE    53 /* header + HEC + payload */
#define ATM_PW_CELL_SIZE 52 /* RFC 4717 §5.1: header without HEC + payload */
#define ATM_HDR_SIZE     4  /* the header word, without HEC */

#define ATM_VPI_MAX 255 /* UNI: 8-bit VPI */

/* I.361 §2.2.4: payload type. Bit 0 of a user-data PTI is the ATM-user-to-ATM-user bit. */
enum atm_pti {
	ATM_PTI_USER0 = 0,   /* user data, no congestion, AUU 0 */
	ATM_PTI_USER1 = 1,   /* user data, no congestion, AUU 1 (last cell of an AAL5 PDU) */
	ATM_PTI_USER2 = 2,   /* user data, congestion experienced, AUU 0 */
	ATM_PTI_USER3 = 3,   /* user data, congestion experienced, AUU 1 */
	ATM_PTI_OAM_SEG = 4, /* segment F5 OAM (I.610 §3.2) */
	ATM_PTI_OAM_E2E = 5, /* end-to-end F5 OAM */
	ATM_PTI_RM = 6,      /* resource management */
	ATM_PTI_RESERVED = 7,
};

#define ATM_PTI_AUU  1 /* AUU bit within a user-data PTI */
#define ATM_PTI_EFCI 2 /* congestion bit within a user-data PTI */
#define ATM_PTI_OAM  4 /* set for every non-user-data PTI */

static inline uint32_t atm_hdr_make(uint16_t vpi, uint16_t vci, uint8_t pti, uint8_t clp)
{
	return (uint32_t)(vpi & 0xff) << 20 | (uint32_t)vci << 4 | (uint32_t)(pti & 7) << 1 |
	       (clp & 1u);
}

static inline uint16_t atm_hdr_vpi(uint32_t w)
{
	return (uint16_t)((w >> 20) & 0xff);
}

static inline uint16_t atm_hdr_vci(uint32_t w)
{
	return (uint16_t)(w >> 4);
}

static inline uint8_t atm_hdr_pti(uint32_t w)
{
	return (uint8_t)((w >> 1) & 7);
}

static inline uint8_t atm_hdr_clp(uint32_t w)
{
	return (uint8_t)(w & 1);
}

/* A user-data cell (PTI 0..3) whose AUU bit marks the end of an AAL5 CPCS-PDU (I.363.5 §9.1). */
static inline bool atm_hdr_is_last_user_cell(uint32_t w)
{
	uint8_t pti = atm_hdr_pti(w);

	return !(pti & ATM_PTI_OAM) && (pti & ATM_PTI_AUU);
}

/* The header word travels big endian (I.361 §2.1: bits are sent most significant first). */
static inline void atm_hdr_store(uint8_t *p, uint32_t w)
{
	p[0] = (uint8_t)(w >> 24);
	p[1] = (uint8_t)(w >> 16);
	p[2] = (uint8_t)(w >> 8);
	p[3] = (uint8_t)w;
}

static inline uint32_t atm_hdr_load(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* HEC over the 4 header octets: CRC-8 x^8+x^2+x+1, XOR coset 0x55 (I.432.1 §4.3.2). */
uint8_t atm_hec(const uint8_t hdr[4]);

/* True when octet 4 of a 53-byte cell is the HEC of octets 0..3 (detection only, no correction). */
bool atm_hec_ok(const uint8_t cell[5]);

#endif

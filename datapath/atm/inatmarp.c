/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/inatmarp.h"

#include "lib/wire.h"

#define TL_LEN_MASK 0x3f /* RFC 2225 §8.7: length in the low 6 bits of a type/length octet */
#define TL_RESERVED 0x80 /* ... bit 8 reserved (0), bit 7 the type (0 NSAP, 1 E.164) */

/* Offsets of the fixed part (RFC 2225 §8.7). */
#define OFF_HRD  0
#define OFF_PRO  2
#define OFF_SHTL 4
#define OFF_SSTL 5
#define OFF_OP   6
#define OFF_SPLN 8
#define OFF_THTL 9
#define OFF_TSTL 10
#define OFF_TPLN 11

static int op_known(uint16_t op)
{
	return op == INATMARP_OP_REQUEST || op == INATMARP_OP_REPLY || op == INATMARP_OP_NAK;
}

size_t inatmarp_build(uint8_t *out, size_t cap, const struct inatmarp *m)
{
	if (cap < INATMARP_LEN || !op_known(m->op))
		return 0;
	wr16(out + OFF_HRD, INATMARP_HRD_ATM);
	wr16(out + OFF_PRO, INATMARP_PRO_IP);
	out[OFF_SHTL] = 0; /* no ATM number or subaddress on a PVC */
	out[OFF_SSTL] = 0;
	wr16(out + OFF_OP, m->op);
	out[OFF_SPLN] = 4;
	out[OFF_THTL] = 0;
	out[OFF_TSTL] = 0;
	out[OFF_TPLN] = 4;
	wr32(out + INATMARP_FIXED_LEN, m->spa);
	wr32(out + INATMARP_FIXED_LEN + 4, m->tpa);
	return INATMARP_LEN;
}

int inatmarp_parse(const uint8_t *p, size_t len, struct inatmarp *out)
{
	if (len < INATMARP_FIXED_LEN)
		return INATMARP_ERR_SHORT;
	if (rd16(p + OFF_HRD) != INATMARP_HRD_ATM)
		return INATMARP_ERR_HRD;
	if (rd16(p + OFF_PRO) != INATMARP_PRO_IP)
		return INATMARP_ERR_PRO;

	uint16_t op = rd16(p + OFF_OP);
	if (!op_known(op))
		return INATMARP_ERR_OP;

	uint8_t tl[4] = {p[OFF_SHTL], p[OFF_SSTL], p[OFF_THTL], p[OFF_TSTL]};
	for (int i = 0; i < 4; i++)
		if (tl[i] & TL_RESERVED)
			return INATMARP_ERR_TL;

	/*
	 * Every (In)ATMARP message carries the sender's IPv4 address (that is what the peer
	 * learns). An InATMARP request may leave the target out (ar$tpln 0, as Linux CLIP
	 * sends it) or send it as 4 octets of 0.
	 */
	size_t spln = p[OFF_SPLN], tpln = p[OFF_TPLN];
	if (spln != 4 || !(tpln == 4 || (tpln == 0 && op == INATMARP_OP_REQUEST)))
		return INATMARP_ERR_PLEN;

	size_t sha = tl[0] & TL_LEN_MASK, ssa = tl[1] & TL_LEN_MASK;
	size_t tha = tl[2] & TL_LEN_MASK, tsa = tl[3] & TL_LEN_MASK;
	size_t spa_off = INATMARP_FIXED_LEN + sha + ssa;
	size_t tpa_off = spa_off + spln + tha + tsa;
	if (len < tpa_off + tpln)
		return INATMARP_ERR_SHORT;

	out->op = op;
	out->spa = rd32(p + spa_off);
	out->tpa = tpln ? rd32(p + tpa_off) : 0;
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/pw.h"

#include <string.h>

#include "datapath/atm/cell.h"
#include "lib/wire.h"

#define ETH_HDR_LEN 14
#define LSE_LEN     4
#define CW_LEN      4
#define LSE_S_BIT   0x100 /* RFC 3032 §2.1: label(20) TC(3) S(1) TTL(8) */

size_t pw_frame_header(uint8_t *out, const struct pw_encap *e, uint16_t seq)
{
	if (e->label > PW_LABEL_MAX)
		return 0;
	memcpy(out, e->dst, 6);
	memcpy(out + 6, e->src, 6);
	wr16(out + 12, PW_ETHERTYPE_MPLS);
	wr32(out + ETH_HDR_LEN, e->label << 12 | LSE_S_BIT | PW_TTL);
	if (!e->control_word)
		return PW_HDR_NO_CW;
	/* RFC 4717 §5.1 N-to-one control word: 0000, flags, reserved, length all 0. */
	wr16(out + PW_HDR_NO_CW, 0);
	wr16(out + PW_HDR_NO_CW + 2, seq);
	return PW_HDR_MAX;
}

int pw_frame_parse(const uint8_t *frame, size_t len, uint32_t label, bool control_word,
                   struct pw_frame *out)
{
	size_t hdr = control_word ? PW_HDR_MAX : PW_HDR_NO_CW;

	if (len < ETH_HDR_LEN)
		return PW_ERR_TRUNCATED;
	if (rd16(frame + 12) != PW_ETHERTYPE_MPLS)
		return PW_ERR_ETHERTYPE;
	if (len < PW_HDR_NO_CW)
		return PW_ERR_TRUNCATED;

	uint32_t lse = rd32(frame + ETH_HDR_LEN);
	if (!(lse & LSE_S_BIT))
		return PW_ERR_LABEL_STACK;
	if (lse >> 12 != label)
		return PW_ERR_LABEL;
	if (len < hdr)
		return PW_ERR_TRUNCATED;

	out->seq = 0;
	if (control_word) {
		const uint8_t *cw = frame + PW_HDR_NO_CW;

		/* RFC 4385 §3: a first nibble other than 0 is not a PW payload (1 = ACH, 4/6 = IP).
		 */
		if (cw[0] >> 4)
			return PW_ERR_CONTROL_WORD;
		out->seq = rd16(cw + 2);
	}
	out->has_seq = out->seq != 0;

	size_t payload = len - hdr;
	if (payload == 0 || payload % ATM_PW_CELL_SIZE)
		return PW_ERR_PAYLOAD;
	out->cells = frame + hdr;
	out->ncells = (unsigned)(payload / ATM_PW_CELL_SIZE);
	return 0;
}

uint16_t pw_seq_next(uint16_t seq)
{
	return seq == 0xffff ? 1 : (uint16_t)(seq + 1);
}


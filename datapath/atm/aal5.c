/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/aal5.h"

#include <string.h>

#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/cell.h"
#include "lib/wire.h"

/*
 * The CPCS-PDU as three consecutive pieces -- prefix, SDU, then pad and trailer --
 * read 48 octets at a time without first being copied into one buffer.
 */
struct pdu_pieces {
	const uint8_t *p[3];
	size_t n[3];
	unsigned i; /* current piece */
	size_t off; /* octets of it already taken */
};

static void pieces_take(struct pdu_pieces *s, uint8_t *dst, size_t want)
{
	while (want) {
		size_t left = s->n[s->i] - s->off, n = want < left ? want : left;

		if (n) {
			memcpy(dst, s->p[s->i] + s->off, n);
			dst += n;
			want -= n;
			s->off += n;
		}
		if (s->off == s->n[s->i] && s->i < 2) {
			s->i++;
			s->off = 0;
		}
	}
}

/* The octets before a cell's payload: the header word, then the HEC in 53-byte cells. */
static unsigned cell_header(uint8_t *h, uint32_t w, size_t cell_size)
{
	atm_hdr_store(h, w);
	if (cell_size == ATM_CELL_SIZE) {
		h[4] = atm_hec(h);
		return 5;
	}
	return 4;
}

/*
 * A PDU of a few cells -- the common case for routed traffic, 2 cells for a
 * minimum-size IPv4 packet -- is gathered whole, so the CRC runs in one pass:
 * per call, a CRC (ISA-L's folding above all) costs more in setup than in the
 * handful of octets of a prefix, pad or trailer piece.
 */
#define AAL5_GATHER_CELLS 4

static unsigned segment_small(const uint8_t *prefix, size_t prefix_len, const uint8_t *sdu,
                              size_t sdu_len, unsigned ncells, const uint8_t *hdr_mid,
                              const uint8_t *hdr_last, unsigned hlen, uint8_t *out,
                              size_t cell_size)
{
	uint8_t pdu[AAL5_GATHER_CELLS * ATM_CELL_PAYLOAD];
	size_t total = prefix_len + sdu_len, n = (size_t)ncells * ATM_CELL_PAYLOAD;

	if (prefix_len)
		memcpy(pdu, prefix, prefix_len);
	if (sdu_len)
		memcpy(pdu + prefix_len, sdu, sdu_len);
	memset(pdu + total, 0, n - total - 2); /* pad, UU, CPI */
	wr16(pdu + n - 6, (uint16_t)total);
	uint32_t crc = aal5_crc32(pdu, n - 4);
	/* Headers with fixed-size copies (inlined; hlen would make them calls). */
	for (unsigned c = 0; c + 1 < ncells; c++, out += cell_size) {
		memcpy(out, hdr_mid, ATM_HDR_SIZE);
		if (hlen > ATM_HDR_SIZE)
			out[ATM_HDR_SIZE] = hdr_mid[ATM_HDR_SIZE]; /* HEC */
		memcpy(out + hlen, pdu + (size_t)c * ATM_CELL_PAYLOAD, ATM_CELL_PAYLOAD);
	}
	/* The CRC goes straight into the last cell: reading it back from pdu[] just after
	 * storing it there would stall the copy on store forwarding. */
	memcpy(out, hdr_last, ATM_HDR_SIZE);
	if (hlen > ATM_HDR_SIZE)
		out[ATM_HDR_SIZE] = hdr_last[ATM_HDR_SIZE];
	memcpy(out + hlen, pdu + n - ATM_CELL_PAYLOAD, ATM_CELL_PAYLOAD - 4);
	wr32(out + hlen + ATM_CELL_PAYLOAD - 4, crc);
	return ncells;
}

unsigned aal5_segment(const uint8_t *prefix, size_t prefix_len, const uint8_t *sdu, size_t sdu_len,
                      uint32_t hdr_word, uint8_t *out, size_t cell_size)
{
	size_t total = prefix_len + sdu_len;

	/* I.363.5 §9.2: Length 1..65535; 0 is the abort indication, never a real SDU. */
	if (total == 0 || total > AAL5_SDU_MAX || (prefix_len && !prefix) || (sdu_len && !sdu))
		return 0;
	if (cell_size != ATM_PW_CELL_SIZE && cell_size != ATM_CELL_SIZE)
		return 0;
	if (atm_hdr_pti(hdr_word) & ATM_PTI_OAM)
		return 0;

	unsigned ncells = aal5_cells_for(total);
	size_t pad = (size_t)ncells * ATM_CELL_PAYLOAD - AAL5_TRAILER_SIZE - total;

	/* Pad (0..47 zero octets), UU = 0, CPI = 0, Length, CRC-32 (I.363.5 §9.2). */
	uint8_t tail[ATM_CELL_PAYLOAD - 1 + AAL5_TRAILER_SIZE] = {0};
	uint8_t *trailer = tail + pad;
	wr16(trailer + 2, (uint16_t)total);

	/* I.363.5 §9.1: AUU = 1 marks the last cell of the PDU, 0 every other one. */
	uint8_t hdr_mid[5], hdr_last[5];
	uint32_t auu = (uint32_t)ATM_PTI_AUU << 1;
	unsigned hlen = cell_header(hdr_mid, hdr_word & ~auu, cell_size);
	cell_header(hdr_last, hdr_word | auu, cell_size);

	if (ncells <= AAL5_GATHER_CELLS)
		return segment_small(prefix, prefix_len, sdu, sdu_len, ncells, hdr_mid, hdr_last,
		                     hlen, out, cell_size);

	/* The CRC runs over SDU, pad, UU, CPI and Length: the SDU in one contiguous call. */
	uint32_t crc = AAL5_CRC32_INIT;
	crc = aal5_crc32_update(crc, prefix, prefix_len);
	crc = aal5_crc32_update(crc, sdu, sdu_len);
	crc = aal5_crc32_update(crc, tail, pad + 4);
	wr32(trailer + 4, aal5_crc32_final(crc));

	struct pdu_pieces s = {
	    {prefix, sdu, tail}, {prefix_len, sdu_len, pad + AAL5_TRAILER_SIZE}, 0, 0};
	for (unsigned c = 0; c < ncells; c++, out += cell_size) {
		memcpy(out, c + 1 == ncells ? hdr_last : hdr_mid, hlen);
		if (s.i == 1 && s.n[1] - s.off >= ATM_CELL_PAYLOAD) {
			/* Fast path: the whole payload lies inside the SDU. */
			memcpy(out + hlen, sdu + s.off, ATM_CELL_PAYLOAD);
			s.off += ATM_CELL_PAYLOAD;
		} else {
			pieces_take(&s, out + hlen, ATM_CELL_PAYLOAD);
		}
	}
	return ncells;
}

void aal5_reasm_init(struct aal5_reasm *r, uint8_t *buf, uint32_t cap, uint32_t max_sdu)
{
	r->buf = buf;
	r->cap = cap;
	r->len = 0;
	r->max_sdu = max_sdu > AAL5_SDU_MAX ? AAL5_SDU_MAX : max_sdu;
	r->first_ms = 0;
	r->discard = false;
}

static void reasm_reset(struct aal5_reasm *r)
{
	r->len = 0;
	r->discard = false;
}

/* Octets a PDU may occupy: the cells max_sdu needs, and never more than the buffer. */
static uint32_t reasm_limit(const struct aal5_reasm *r)
{
	uint32_t lim = aal5_cells_for(r->max_sdu) * ATM_CELL_PAYLOAD;

	return lim < r->cap ? lim : r->cap;
}

/* The last cell is in: check the trailer (I.363.5 §10) and reset for the next PDU. */
static enum aal5_status reasm_finish(struct aal5_reasm *r, uint32_t *sdu_len)
{
	const uint8_t *trailer = r->buf + r->len - AAL5_TRAILER_SIZE;
	uint32_t length = (uint32_t)trailer[2] << 8 | trailer[3];
	uint32_t total = r->len;
	enum aal5_status st;

	reasm_reset(r);
	if (length == 0)
		st = AAL5_ERR_ABORT;
	else if (aal5_crc32(r->buf, total - 4) != rd32(trailer + 4))
		st = AAL5_ERR_CRC;
	else if (aal5_cells_for(length) * ATM_CELL_PAYLOAD != total)
		st = AAL5_ERR_LENGTH; /* pad would be negative or 48 or more */
	else if (length > r->max_sdu)
		st = AAL5_ERR_OVERSIZE;
	else
		st = AAL5_DONE;
	*sdu_len = st == AAL5_DONE ? length : 0;
	return st;
}

enum aal5_status aal5_reasm_cell(struct aal5_reasm *r, const uint8_t payload[48], bool last,
                                 uint64_t now_ms, uint32_t *sdu_len)
{
	*sdu_len = 0;
	if (r->discard) {
		if (last)
			reasm_reset(r);
		return AAL5_MORE;
	}
	if (r->len == 0)
		r->first_ms = now_ms;
	if (r->len + ATM_CELL_PAYLOAD > reasm_limit(r)) {
		reasm_reset(r);
		r->discard = !last; /* drop the rest of this PDU, up to its last cell */
		return AAL5_ERR_OVERSIZE;
	}
	memcpy(r->buf + r->len, payload, ATM_CELL_PAYLOAD);
	r->len += ATM_CELL_PAYLOAD;
	return last ? reasm_finish(r, sdu_len) : AAL5_MORE;
}

bool aal5_reasm_timed_out(struct aal5_reasm *r, uint64_t now_ms, uint32_t timeout_ms)
{
	if (!aal5_reasm_busy(r) || now_ms < r->first_ms || now_ms - r->first_ms <= timeout_ms)
		return false;

	bool partial = !r->discard;
	reasm_reset(r);
	return partial;
}

const char *aal5_status_name(enum aal5_status s)
{
	static const char *const names[AAL5_STATUS__MAX] = {
	    [AAL5_MORE] = "more",       [AAL5_DONE] = "done",
	    [AAL5_ERR_CRC] = "crc",     [AAL5_ERR_LENGTH] = "length",
	    [AAL5_ERR_ABORT] = "abort", [AAL5_ERR_OVERSIZE] = "oversize",
	};

	return (unsigned)s < AAL5_STATUS__MAX ? names[s] : "?";
}

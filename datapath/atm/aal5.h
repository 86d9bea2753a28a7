/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AAL5 common part convergence sublayer (ITU-T I.363.5 §9 format, §10 procedures):
 * segmentation of a CPCS-SDU into cells and per-VC reassembly. No allocation: the
 * caller owns every buffer. No I/O, no clock: time comes in as arguments.
 *
 * CPCS-PDU = CPCS-SDU | PAD (0..47 octets of 0) | UU | CPI | Length (16) | CRC-32,
 * a multiple of 48 octets; the CRC covers everything before it (I.363.5 §9.2).
 */
#ifndef CELLGATE_ATM_AAL5_H
#define CELLGATE_ATM_AAL5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AAL5_TRAILER_SIZE 8
#define AAL5_SDU_MAX      65535 /* the Length field is 16 bits */
/* RFC 2225 §7.1: IP MTU 9180 on PVCs by default; with an 8-octet LLC header, SDUs of 9188. */
#define AAL5_SDU_DEFAULT 9188

/* Cells of the CPCS-PDU that carries `cpcs_sdu_len` octets: ceil((len + 8) / 48). */
static inline unsigned aal5_cells_for(size_t cpcs_sdu_len)
{
	return (unsigned)((cpcs_sdu_len + AAL5_TRAILER_SIZE + 47) / 48);
}

/*
 * Segment the CPCS-SDU prefix||sdu (prefix: an RFC 2684 LLC header, or NULL/0) into
 * aal5_cells_for(prefix_len + sdu_len) cells at `out`, each `cell_size` bytes:
 * ATM_PW_CELL_SIZE (52: header word big endian + payload) or ATM_CELL_SIZE (53: header,
 * HEC, payload). UU = 0, CPI = 0, zero pad, CRC-32 over the PDU. `hdr_word` gives
 * VPI/VCI/CLP and a user-data PTI (0..3, the congestion bit is kept); the AUU bit is
 * cleared on every cell but the last, where it is set (I.363.5 §9.1, I.361 §2.2.4).
 * The SDU is copied once, straight into the cells; the CRC reads it in place.
 *
 * Returns the number of cells written (the caller guarantees room for them), or 0 on
 * a caller error: length 0 (a Length of 0 means abort, I.363.5 §9.2) or above 65535,
 * a cell size other than 52/53, or an OAM/RM PTI.
 */
unsigned aal5_segment(const uint8_t *prefix, size_t prefix_len, const uint8_t *sdu, size_t sdu_len,
                      uint32_t hdr_word, uint8_t *out, size_t cell_size);

enum aal5_status {
	AAL5_MORE = 0,     /* cell taken (or silently discarded); no PDU ended */
	AAL5_DONE,         /* a good CPCS-SDU is at r->buf[0 .. *sdu_len) */
	AAL5_ERR_CRC,      /* CRC-32 mismatch (includes PDUs merged over a lost last cell) */
	AAL5_ERR_LENGTH,   /* Length inconsistent with the cell count (pad not 0..47) */
	AAL5_ERR_ABORT,    /* Length 0: the sender aborted the PDU */
	AAL5_ERR_OVERSIZE, /* the PDU is larger than max_sdu */
	AAL5_STATUS__MAX,
};

/*
 * Reassembly state of one VC. `buf` is the caller's; `len` the octets gathered so
 * far; `first_ms` when the first cell of the partial PDU arrived; `discard` while
 * the rest of an oversized PDU is being dropped.
 */
struct aal5_reasm {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;
	uint32_t max_sdu;
	uint64_t first_ms;
	bool discard;
};

/*
 * `cap` should be at least aal5_cells_for(max_sdu) * 48. It cannot fail: a max_sdu
 * above 65535 is taken as 65535, and reassembly never writes past `cap` whatever
 * max_sdu says (a PDU that would not fit is reported as oversized).
 */
void aal5_reasm_init(struct aal5_reasm *r, uint8_t *buf, uint32_t cap, uint32_t max_sdu);

/*
 * Feed the 48-octet payload of one user-data cell; `last` is its AUU bit.
 * On the last cell the trailer is checked, in this order: Length 0 -> ABORT (the PDU
 * is dropped whatever its CRC, which an aborting sender need not compute); CRC-32 ->
 * ERR_CRC; Length vs cell count -> ERR_LENGTH; Length > max_sdu -> ERR_OVERSIZE;
 * else DONE with the SDU at r->buf[0 .. *sdu_len), valid until the next call.
 *
 * Oversize rule: when a cell would take the PDU past aal5_cells_for(max_sdu) cells,
 * that cell returns ERR_OVERSIZE -- once per PDU -- and every further cell of the PDU
 * is dropped returning AAL5_MORE, up to and including its last cell, which ends the
 * discard. (If the crossing cell is itself the last, the state resets at once.)
 *
 * After DONE or any error the state is reset for the next PDU. *sdu_len is 0 unless
 * DONE.
 */
enum aal5_status aal5_reasm_cell(struct aal5_reasm *r, const uint8_t payload[48], bool last,
                                 uint64_t now_ms, uint32_t *sdu_len);

/*
 * The reassembly timer (ATM-MIB aal5VccSarTimeOuts, RFC 2515): when a partial PDU
 * started more than `timeout_ms` before `now_ms`, drop it and return true so the
 * caller counts a timeout. A stale discard (an oversized PDU whose last cell never
 * came) is reset too but returns false: it was already counted as oversized.
 */
bool aal5_reasm_timed_out(struct aal5_reasm *r, uint64_t now_ms, uint32_t timeout_ms);

/* True while a PDU is partly gathered or being discarded. */
static inline bool aal5_reasm_busy(const struct aal5_reasm *r)
{
	return r->len != 0 || r->discard;
}

/* "more", "done", "crc", "length", "abort", "oversize"; "?" outside the enum. */
const char *aal5_status_name(enum aal5_status s);

#endif

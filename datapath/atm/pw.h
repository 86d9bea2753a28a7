/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM cells over an MPLS pseudowire on Ethernet, N-to-one cell mode (RFC 4717 §5.1):
 * Ethernet (EtherType 0x8847) | one MPLS label stack entry (RFC 3032 §2.1) | optional
 * control word | N cells of 52 octets (4-octet header without HEC, 48-octet payload).
 *
 * Label stack depth: exactly one entry, the PW label, with S = 1 -- the two PEs are
 * Ethernet neighbours, so there is no tunnel label. A frame whose top entry has S = 0
 * (a deeper stack) is refused as PW_ERR_LABEL_STACK rather than guessed at.
 */
#ifndef CELLGATE_ATM_PW_H
#define CELLGATE_ATM_PW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_ETHERTYPE_MPLS 0x8847
#define PW_LABEL_MAX      0xfffff /* 20 bits */
#define PW_TTL            64
#define PW_HDR_NO_CW      18 /* Ethernet 14 + label stack entry 4 */
#define PW_HDR_MAX        22 /* ... + control word 4 */

struct pw_encap {
	uint8_t dst[6], src[6];
	uint32_t label;    /* the PW label, 16..0xFFFFF (0..15 are reserved, RFC 3032 §2.1) */
	bool control_word; /* RFC 4717 §5.1: optional in N-to-one mode, agreed per PW */
};

/*
 * Write the frame header at `out` (PW_HDR_MAX bytes of room): Ethernet, the label stack
 * entry (label, TC 0, S 1, TTL 64) and, with e->control_word, the control word
 * 0000 | flags 0 | reserved 0 | length 0 | sequence `seq` (RFC 4385 §3; length 0
 * because a frame carrying a cell never needs Ethernet padding). Returns the header
 * length, 18 or 22, or 0 when e->label does not fit in 20 bits.
 */
size_t pw_frame_header(uint8_t *out, const struct pw_encap *e, uint16_t seq);

#define PW_ERR_ETHERTYPE    (-1) /* not EtherType 0x8847 (MPLS unicast) */
#define PW_ERR_TRUNCATED    (-2) /* shorter than the Ethernet, MPLS and control word headers */
#define PW_ERR_LABEL        (-3) /* the label is not this PW's */
#define PW_ERR_LABEL_STACK  (-4) /* more than one label stack entry (S = 0) */
#define PW_ERR_CONTROL_WORD (-5) /* control word does not start with 0000 (RFC 4385 §3) */
#define PW_ERR_PAYLOAD      (-6) /* payload is not a non-zero multiple of 52 octets */

struct pw_frame {
	const uint8_t *cells; /* first 52-octet cell, inside the frame */
	unsigned ncells;
	uint16_t seq; /* control word sequence number; 0 when absent */
	bool has_seq; /* a control word with a non-zero sequence number (RFC 4385 §4) */
};

/*
 * Parse a received Ethernet frame (no FCS) of PW `label`, whose control word use is
 * `control_word`. Returns 0 with *out filled, or one PW_ERR_*. The CW length and flags
 * are ignored: N-to-one cell frames are never padded and define no flags.
 */
int pw_frame_parse(const uint8_t *frame, size_t len, uint32_t label, bool control_word,
                   struct pw_frame *out);

/* RFC 4385 §4.1: the sequence number after `seq`; 65535 wraps to 1 (0 means "not used"). */
uint16_t pw_seq_next(uint16_t seq);


#endif

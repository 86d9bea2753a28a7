/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inverse ATMARP on PVCs (RFC 2225 §8.2, with RFC 2390's InARP): the ATMARP packet
 * of RFC 2225 §8.7 carrying only IPv4 addresses -- on a PVC the VC itself is the
 * hardware address, so every ATM number/subaddress length is sent as 0. The packet
 * travels in an LLC/SNAP PDU with EtherType 0x0806 (RFC 2684 §5.1): the caller adds
 * rfc2684_llc_header(0x0806).
 */
#ifndef CELLGATE_ATM_INATMARP_H
#define CELLGATE_ATM_INATMARP_H

#include <stddef.h>
#include <stdint.h>

#define INATMARP_OP_REQUEST 8  /* RFC 2225 §8.7: InATMARP_Request */
#define INATMARP_OP_REPLY   9  /* InATMARP_Reply */
#define INATMARP_OP_NAK     10 /* ARP_NAK */

#define INATMARP_HRD_ATM 0x0013 /* ar$hrd: ATM Forum address family */
#define INATMARP_PRO_IP  0x0800 /* ar$pro: IPv4 */

#define INATMARP_FIXED_LEN 12 /* ar$hrd .. ar$tpln */
#define INATMARP_LEN       20 /* what inatmarp_build writes: fixed part + two IPv4 addresses */

/* Parse errors, one per reason the packet is refused. */
#define INATMARP_ERR_SHORT (-1) /* shorter than the fixed part or its address fields */
#define INATMARP_ERR_HRD   (-2) /* ar$hrd is not 0x0013 */
#define INATMARP_ERR_PRO   (-3) /* ar$pro is not IPv4 */
#define INATMARP_ERR_OP    (-4) /* ar$op is not 8, 9 or 10 */
#define INATMARP_ERR_PLEN  (-5) /* ar$spln not 4, or ar$tpln not 4 (0 allowed in requests) */
#define INATMARP_ERR_TL    (-6) /* a type/length octet with its reserved bit set */

struct inatmarp {
	uint16_t op;
	uint32_t spa; /* sender IPv4 address, host order */
	uint32_t tpa; /* target IPv4 address, host order; 0 when a request omits it */
};

/*
 * Write `m` at `out`: ar$hrd 0x0013, ar$pro 0x0800, ar$shtl 0, ar$sstl 0, ar$op,
 * ar$spln 4, ar$thtl 0, ar$tstl 0, ar$tpln 4, ar$spa, ar$tpa. Returns INATMARP_LEN,
 * or 0 when `cap` is smaller or m->op is not 8, 9 or 10.
 */
size_t inatmarp_build(uint8_t *out, size_t cap, const struct inatmarp *m);

/*
 * Parse an (In)ATMARP packet (after the LLC header). Non-zero ATM number/subaddress
 * lengths (type/length octets: bit 0x40 = E.164, low 6 bits = length, bit 0x80
 * reserved) are skipped, so a SVC-style ATMARP packet parses too. Octets after the
 * last address (AAL5 gives no padding, but be lenient) are ignored. Returns 0 or one
 * INATMARP_ERR_*.
 */
int inatmarp_parse(const uint8_t *p, size_t len, struct inatmarp *out);

#endif

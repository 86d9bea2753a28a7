/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RFC 2684 bridged Ethernet/802.3 PDUs without the LAN FCS: what DSL modems and
 * Linux's br2684 in bridged mode speak. LLC (§5.2): LLC AA-AA-03, OUI 00-80-C2
 * (IEEE 802.1), PID 00-07 (802.3 without FCS), two octets of PAD, then the MAC
 * frame from its destination address on. VC-mux (§6.2): the same PAD, then the
 * frame. The PAD aligns the frame's payload on a 4-octet boundary; senders set it
 * to zero. PID 00-01 (frame with its FCS) is refused: nothing here checks or
 * strips an FCS, and br2684 never sends one.
 */
#include <string.h>

#include "datapath/atm/rfc2684.h"

#define BRIDGED_LLC_LEN 10
#define BRIDGED_PAD_LEN 2

static const uint8_t llc_bridged[BRIDGED_LLC_LEN] = {0xaa, 0xaa, 0x03, 0x00, 0x80,
                                                     0xc2, 0x00, 0x07, 0x00, 0x00};

size_t rfc2684_bridged_hdr_len(enum rfc2684_encap e)
{
	switch (e) {
	case RFC2684_LLC_BRIDGED:
		return BRIDGED_LLC_LEN;
	case RFC2684_VCMUX_BRIDGED:
		return BRIDGED_PAD_LEN;
	default:
		return 0;
	}
}

size_t rfc2684_bridged_hdr(enum rfc2684_encap e, uint8_t *out)
{
	size_t n = rfc2684_bridged_hdr_len(e);

	/* The VC-mux PAD is the last two octets of the LLC header. */
	memcpy(out, llc_bridged + BRIDGED_LLC_LEN - n, n);
	return n;
}

int rfc2684_bridged_decap(enum rfc2684_encap e, const uint8_t *sdu, size_t len, uint16_t *ethertype,
                          size_t *hdr_len)
{
	size_t h = rfc2684_bridged_hdr_len(e);

	if (h == 0)
		return RFC2684_ERR_ENCAP;
	/* A routed PDU on a bridged VC, or a frame with its FCS: not ours to guess at. */
	if (len >= h && memcmp(sdu, llc_bridged + BRIDGED_LLC_LEN - h, h) != 0)
		return RFC2684_ERR_UNKNOWN_LLC;
	if (len <= h + RFC2684_ETH_LEN)
		return RFC2684_ERR_SHORT;
	*ethertype = (uint16_t)(sdu[h + 12] << 8 | sdu[h + 13]);
	*hdr_len = h + RFC2684_ETH_LEN;
	return 0;
}

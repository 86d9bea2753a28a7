/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/rfc2684.h"

#include <string.h>

/*
 * RFC 2684 §5.1: a routed non-ISO PDU is LLC 0xAA-AA-03 (SNAP), OUI 0x00-00-00 (the PID
 * is an EtherType), then the PID. The three EtherTypes cellgate routes or resolves.
 */
static const uint8_t llc_ipv4[RFC2684_LLC_LEN] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00};
static const uint8_t llc_ipv6[RFC2684_LLC_LEN] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x86, 0xdd};
static const uint8_t llc_arp[RFC2684_LLC_LEN] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x06};

const uint8_t *rfc2684_llc_header(uint16_t ethertype)
{
	switch (ethertype) {
	case 0x0800:
		return llc_ipv4;
	case 0x86dd:
		return llc_ipv6;
	case 0x0806:
		return llc_arp;
	default:
		return NULL;
	}
}

int rfc2684_decap(enum rfc2684_encap e, const uint8_t *sdu, size_t len, uint16_t *ethertype,
                  size_t *hdr_len)
{
	switch (e) {
	case RFC2684_LLC_ROUTED:
		break;
	case RFC2684_VCMUX_IPV4:
	case RFC2684_VCMUX_IPV6:
		/*
		 * §6.1: the VC itself says what it carries; the SDU is the bare packet.
		 * A packet whose version nibble is not the VC's protocol is no PDU of
		 * this VC (the far end is misconfigured): refused here, where the VC
		 * counts it, rather than parsed as what it is not.
		 */
		if (len == 0)
			return RFC2684_ERR_SHORT;
		if (sdu[0] >> 4 != (e == RFC2684_VCMUX_IPV4 ? 4 : 6))
			return RFC2684_ERR_UNKNOWN_LLC;
		*ethertype = e == RFC2684_VCMUX_IPV4 ? 0x0800 : 0x86dd;
		*hdr_len = 0;
		return 0;
	case RFC2684_LLC_BRIDGED:
	case RFC2684_VCMUX_BRIDGED:
		return rfc2684_bridged_decap(e, sdu, len, ethertype, hdr_len);
	default:
		return RFC2684_ERR_ENCAP;
	}

	if (len <= RFC2684_LLC_LEN)
		return RFC2684_ERR_SHORT;

	uint16_t type = (uint16_t)(sdu[6] << 8 | sdu[7]);
	const uint8_t *want = rfc2684_llc_header(type);

	if (!want || memcmp(sdu, want, RFC2684_LLC_LEN) != 0)
		return RFC2684_ERR_UNKNOWN_LLC;
	*ethertype = type;
	*hdr_len = RFC2684_LLC_LEN;
	return 0;
}

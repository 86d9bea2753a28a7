/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Multiprotocol encapsulation over AAL5 (RFC 2684): LLC/SNAP routed PDUs (§5.1, the
 * default per §4) and VC multiplexing (§6.1), for IPv4, IPv6 and (In)ATMARP; and
 * bridged Ethernet/802.3 without the LAN FCS, LLC (§5.2) or VC-mux (§6.2), whose
 * header and frame are in rfc2684_bridged.c.
 */
#ifndef CELLGATE_ATM_RFC2684_H
#define CELLGATE_ATM_RFC2684_H

#include <stddef.h>
#include <stdint.h>

#define RFC2684_LLC_LEN 8 /* LLC AA-AA-03, OUI 00-00-00, PID = EtherType */

enum rfc2684_encap {
	RFC2684_LLC_ROUTED = 0, /* §5.1: protocols identified by the LLC/SNAP header */
	RFC2684_VCMUX_IPV4,     /* §6.1: the VC carries IPv4 only, no header */
	RFC2684_VCMUX_IPV6,     /* §6.1: the VC carries IPv6 only, no header */
	RFC2684_LLC_BRIDGED,    /* §5.2: AA-AA-03 00-80-C2 00-07 00-00, then the frame, no FCS */
	RFC2684_VCMUX_BRIDGED,  /* §6.2: 00-00, then the frame, no FCS */
};

#define RFC2684_ETH_LEN 14 /* destination, source, EtherType of a bridged frame */

#define RFC2684_ERR_SHORT       (-1) /* nothing after the header (or not even a header) */
#define RFC2684_ERR_UNKNOWN_LLC (-2) /* other LLC/OUI/PID: ISO NLPID, routed on a bridged VC or
                                        the reverse, bridged with FCS or not 802.3, other
                                        EtherType, a bridged PAD that is not zero; on
                                        VC-mux, a packet whose IP version is not the VC's */
#define RFC2684_ERR_ENCAP       (-3) /* `e` is not an rfc2684_encap value */

/* The 8-octet LLC/SNAP header for 0x0800, 0x86DD or 0x0806; NULL for any other EtherType. */
const uint8_t *rfc2684_llc_header(uint16_t ethertype);

/*
 * Identify the payload of a CPCS-SDU received on a VC with encapsulation `e`: on 0,
 * *ethertype is its EtherType and the payload starts at sdu + *hdr_len (0 on VC-mux,
 * where the EtherType is the VC's). LLC accepts only IPv4, IPv6 and ARP. On a
 * bridged VC the payload is that of the Ethernet frame inside (any EtherType: the
 * caller decides), whose 14-octet header ends at sdu + *hdr_len.
 */
int rfc2684_decap(enum rfc2684_encap e, const uint8_t *sdu, size_t len, uint16_t *ethertype,
                  size_t *hdr_len);

/* rfc2684_bridged.c: the §5.2/§6.2 header, and the frame after it. */
int rfc2684_bridged_decap(enum rfc2684_encap e, const uint8_t *sdu, size_t len,
                          uint16_t *ethertype, size_t *hdr_len);
/* Octets of the header in front of a bridged frame: 10 (LLC), 2 (VC-mux), 0 if routed. */
size_t rfc2684_bridged_hdr_len(enum rfc2684_encap e);
/* Write that header at out; returns its length. */
size_t rfc2684_bridged_hdr(enum rfc2684_encap e, uint8_t *out);

#endif

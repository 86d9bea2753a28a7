/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capture files of AAL5 SDUs: classic pcap with link type LINKTYPE_SUNATM
 * (123), which tcpdump and Wireshark read. Each record is a 4-byte
 * pseudo-header, then the SDU (an RFC 2684 PDU, with or without LLC/SNAP):
 *
 *   octet 0   flags: 0x80 = sent by us (tcpdump "Tx", Wireshark "DTE->DCE"),
 *             low nibble = traffic type
 *   octet 1   VPI
 *   octets 2-3 VCI, big-endian
 *
 * Traffic types, as Wireshark 4.0's pcap reader (wiretap/pcap-common.c)
 * maps them: 2 = "RFC 1483 LLC multiplexed" (LLC/SNAP: decoded as LLC, then
 * IP; checked with tshark 4.0), 1 = LANE (LAN emulation: wrong for routed
 * IP), 5 = ILMI, 6 = Q.2931 signalling, 0 = raw. There is no value for
 * VC-multiplexed routed IP, so a VC-mux SDU goes as 0: Wireshark then
 * guesses from the first octets and takes a leading 0x4_ for IPv4, unless an
 * earlier guess fits first (PPP when the second octet, the IPv4 TOS, is
 * 0x21; Frame Relay when the third and fourth, the total length, are
 * 0x03cc = 972), so an odd VC-mux packet may show as something else.
 *
 * Timestamps have nanosecond resolution (magic 0xa1b23c4d), fields are in
 * host byte order as libpcap writes them, and the snapshot length is 65535:
 * the largest SDU (65535 bytes) loses its last 4 bytes to the pseudo-header.
 * Writes go through a stdio buffer; not for the datapath's inner loop.
 *
 * The writer never opens a path itself: the daemon creates the file where
 * captures are allowed to go (daemon/atm_capture.c) and hands over the
 * descriptor. A size limit makes the writer refuse, and count, every record
 * that would take the file past it; whoever owns the capture sees `full`
 * and ends it. `bytes`, `records`, `refused` and `full` are written by the
 * one thread that writes records and may be read by another (relaxed).
 */
#ifndef CELLGATE_ATM_PCAP_SUNATM_H
#define CELLGATE_ATM_PCAP_SUNATM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAP_SUNATM_LINKTYPE 123
#define PCAP_SUNATM_SNAPLEN  65535u
#define PCAP_SUNATM_OUTBOUND 0x80 /* flags: direction */
#define PCAP_SUNATM_RAW      0x00 /* flags: traffic type, VC-mux */
#define PCAP_SUNATM_LLC      0x02 /* flags: traffic type, LLC/SNAP */

struct pcap_sunatm {
	FILE *f;
	int err;            /* first failed write (negative errno), 0 while all is well */
	uint64_t max_bytes; /* file size limit, header included; 0 = none */
	uint64_t bytes;     /* file size so far */
	uint64_t records;   /* records written */
	uint64_t refused;   /* records not written because of max_bytes */
	bool full;          /* a record was refused: the capture has reached its limit */
};

/*
 * Take over `fd` (open for writing, positioned at 0; closed by
 * pcap_sunatm_close, or here on failure) and write the pcap file header.
 * max_bytes 0 = no limit, else at least the header's 24 bytes.
 * 0 or a negative errno.
 */
int pcap_sunatm_open_fd(struct pcap_sunatm *w, int fd, uint64_t max_bytes);

/*
 * Append one SDU captured at ts_ns (nanoseconds since the Unix epoch).
 * 0 or a negative errno; after a failure every later write returns it too.
 * -EFBIG when the record would pass max_bytes: not written, counted in
 * `refused`, and `full` set.
 */
int pcap_sunatm_write(struct pcap_sunatm *w, uint64_t ts_ns, bool outbound, uint8_t vpi,
                      uint16_t vci, bool llc, const uint8_t *sdu, size_t len);

/* Push buffered records to the file, e.g. before someone reads it. */
int pcap_sunatm_flush(struct pcap_sunatm *w);

/* Flush and close. 0, or the first error of any write, flush or the close. */
int pcap_sunatm_close(struct pcap_sunatm *w);

#endif

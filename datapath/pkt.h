/* SPDX-License-Identifier: BSD-2-Clause */
/* Packet and burst descriptors shared by port drivers and the worker loop. */
#ifndef CELLGATE_PKT_H
#define CELLGATE_PKT_H

#include <stdint.h>

/* Largest burst a worker pulls from one RX queue per poll. */
#define BURST_MAX 64

/* Where the driver says the frame was headed (from sockaddr_ll.sll_pkttype). */
enum pkt_l2_class {
	PKT_L2_HOST = 0,  /* addressed to the port's MAC */
	PKT_L2_BROADCAST, /* ff:ff:ff:ff:ff:ff */
	PKT_L2_MULTICAST, /* group address */
	PKT_L2_OTHERHOST, /* someone else's unicast (promiscuous mode) */
};

/*
 * Segmentation offload (GSO): the frame is a super-packet that the egress
 * device, or the kernel in software, cuts into segments of gso_size payload
 * bytes, each with a copy of the L3+L4 headers. PKT_GSO_ECN rides along as a
 * flag: the first segment carries CWR, the others must not (RFC 3168 6.1.2).
 * The values are the virtio_net_hdr ones, so a virtio-style driver copies them.
 */
enum pkt_gso {
	PKT_GSO_NONE = 0,
	PKT_GSO_TCP4 = 1,   /* TCP over IPv4 (TSO) */
	PKT_GSO_TCP6 = 4,   /* TCP over IPv6 */
	PKT_GSO_UDP_L4 = 5, /* UDP, one datagram per segment (UDP_SEGMENT) */
	PKT_GSO_ECN = 0x80,
};

/*
 * One frame. `data` points at the Ethernet header inside driver-owned memory
 * (an RX ring block, or a worker scratch buffer) and stays valid until the
 * driver's rx_release for the burst it came in.
 */
struct pkt {
	uint8_t *data;
	uint32_t len;     /* frame length, FCS excluded */
	uint16_t in_port; /* port id of the receiving port */
	uint8_t l2_class; /* enum pkt_l2_class */
	/*
	 * The sender left the L4 checksum to offload (virtio NEEDS_CSUM): the
	 * field at csum_start + csum_offset holds only the pseudo-header sum.
	 * Offsets count from `data`; a MAC rewrite keeps them valid.
	 */
	uint8_t csum_partial;
	uint8_t gso_type;     /* enum pkt_gso; PKT_GSO_NONE for an ordinary frame */
	uint16_t gso_size;    /* L4 payload bytes per segment; 0 unless gso_type */
	uint16_t csum_start;  /* with csum_partial: where checksumming starts */
	uint16_t csum_offset; /* with csum_partial: the checksum field, from csum_start */
	uint16_t vc;          /* ATM: index of the VC the SDU arrived on, set by ATM drivers;
	                         on TX, the VC to send it on */
};

#endif

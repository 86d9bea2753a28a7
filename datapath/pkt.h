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
 * One frame. `data` points at the Ethernet header inside driver-owned memory
 * (an RX ring block, or a worker scratch buffer) and stays valid until the
 * driver's rx_release for the burst it came in.
 */
struct pkt {
	uint8_t *data;
	uint32_t len;     /* frame length, FCS excluded */
	uint16_t in_port; /* port id of the receiving port */
	uint8_t l2_class; /* enum pkt_l2_class */
	uint8_t csum_partial; /* the kernel left the L4 checksum to be completed */
};

#endif

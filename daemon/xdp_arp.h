/* SPDX-License-Identifier: BSD-2-Clause */
/* ARP on afxdp ports, for the neighbour table: the XDP program leaves it to the kernel. */
#ifndef CELLGATE_DAEMON_XDP_ARP_H
#define CELLGATE_DAEMON_XDP_ARP_H

#include <event2/event.h>

#include "daemon/neigh.h"
#include "datapath/dataplane.h"

struct xdp_arp;

/*
 * One packet socket per afxdp port taps the ARP frames the program passed
 * to the kernel and tells the neighbour table (neigh_seen), as the workers
 * do on afpacket ports. NULL when no port is afxdp. 0 on the error path is
 * not possible: a socket that cannot be opened fails the start (-errno).
 */
int xdp_arp_start(struct event_base *base, struct dataplane *dp, struct neigh_table *nt,
                  struct xdp_arp **out);
void xdp_arp_stop(struct xdp_arp *xa);

#endif

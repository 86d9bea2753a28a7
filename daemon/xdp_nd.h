/* SPDX-License-Identifier: BSD-2-Clause */
/* Neighbour discovery on afxdp ports, for the IPv6 neighbour table: the XDP program leaves it
 * to the kernel. */
#ifndef CELLGATE_DAEMON_XDP_ND_H
#define CELLGATE_DAEMON_XDP_ND_H

#include <event2/event.h>

#include "daemon/neigh6.h"
#include "datapath/dataplane.h"

struct xdp_nd;

/*
 * One packet socket per afxdp port that forwards IPv6 taps the neighbour
 * solicitations and advertisements the program passed to the kernel and
 * tells the IPv6 neighbour table (neigh6_seen), as the workers do on
 * afpacket ports. *out is NULL when no such port exists. A socket that
 * cannot be opened fails the start (-errno).
 */
int xdp_nd_start(struct event_base *base, struct dataplane *dp, struct neigh6_table *nt,
                 struct xdp_nd **out);
void xdp_nd_stop(struct xdp_nd *xn);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* The router's own IPv4 and IPv6 addresses, kept current in the afxdp ports' XDP programs. */
#ifndef CELLGATE_DAEMON_XDP_ADDRS_H
#define CELLGATE_DAEMON_XDP_ADDRS_H

#include <event2/event.h>

#include "datapath/dataplane.h"

struct xdp_addrs;

/*
 * Fill every afxdp port's maps with the namespace's IPv4 and IPv6 addresses now and
 * whenever they change (netlink, on `base`). NULL when no port is afxdp,
 * or out of memory (logged).
 */
struct xdp_addrs *xdp_addrs_start(struct event_base *base, struct dataplane *dp);
void xdp_addrs_stop(struct xdp_addrs *xa);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "afxdp" port driver's public side: what the daemon and the stats
 * snapshot need beyond struct port_ops. Built with libxdp/libbpf
 * (port_afxdp*.c) or without them (port_afxdp_none.c: every port open
 * fails with "driver afxdp: built without libxdp").
 *
 * All functions: control thread only.
 */
#ifndef CELLGATE_PORT_AFXDP_H
#define CELLGATE_PORT_AFXDP_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/port.h"
#include "datapath/stats.h"
#include "datapath/xdp/xdp_abi.h"

extern const struct port_ops port_afxdp_ops;

/* Whether this build has the driver (libxdp, libbpf and the XDP object). */
bool afxdp_built(void);

/*
 * Replace the set of IPv4 addresses (host byte order) the XDP program of
 * port `p` passes to the kernel as the router's own. 0 or a negative errno
 * (logged). -ENODEV if `p` has no afxdp queue open.
 */
int afxdp_local_set(struct port *p, const uint32_t *addrs, unsigned n);

/*
 * The same for the router's IPv6 addresses (as on the wire); then, if the
 * port forwards IPv6 (p->ip6), the program starts redirecting transit IPv6
 * to the workers (until then it passes all IPv6 to the kernel). 0 or a
 * negative errno (logged); -ENODEV if `p` has no afxdp queue open.
 */
int afxdp_local6_set(struct port *p, const uint8_t (*addrs)[16], unsigned n);

/*
 * The port started (on) or stopped forwarding IPv6 at runtime: the program
 * redirects transit IPv6 to the workers from now on (once cg_local6 was
 * filled) or passes all IPv6 to the kernel again (counted pass-ipv6-off).
 * 0 or a negative errno (logged); -ENODEV if `p` has no afxdp queue open.
 */
int afxdp_ipv6_set(struct port *p, bool on);

/* The program's decision counters of port `p`, summed over CPUs: 0 or a negative errno. */
int afxdp_decisions(const struct port *p, struct cg_xdp_ctr out[CG_XDP__MAX]);

/*
 * Fold what the program decided without the worker into the port's
 * counters (xdp_abi.h says which decision counts where), and what the
 * workers punted through the kernel: to be added to the workers' sums so
 * rx-packets == forwarded + to-kernel + drops holds. Quiet no-op for a
 * port of another driver or when the map cannot be read.
 */
void afxdp_counters_add(const struct port *p, struct port_counters *c);

/* Frames queue `qid` of `p` punted to the kernel, and how many the kernel refused. */
void afxdp_punt_counts(const struct port *p, uint64_t *punted, uint64_t *errors);

/* "zero-copy" or "copy" for queue `qid` of `p`, NULL if it is not an afxdp queue. */
const char *afxdp_queue_mode(const struct port *p, unsigned qid);

#endif

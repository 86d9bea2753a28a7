/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 addresses of ports and subinterfaces changed at runtime (RESTCONF,
 * cellgatectl, SIGHUP), in the phases of a configuration change
 * (daemon/mgmt.c): prepare (what can fail: the kernel netdev's new
 * addresses), then commit or abort.
 *
 * What the workers read without a lock changes here too, published for
 * them (datapath/port.h): the port's first address, the source of its
 * ICMPv6 errors and solicitations (port_ip6_src_set, RCU), and whether it
 * forwards IPv6 at all (port_ip6_enable, atomic). A port's first address
 * gone, the next one is the source. A port that gets its first address
 * publishes it, then its routes, then starts forwarding IPv6 (and its
 * afxdp program redirecting it); one that loses its last stops forwarding
 * first: IPv6 received there is left to the kernel again, counted as for a
 * port without IPv6 (to-kernel; afxdp: pass-ipv6-off), IPv6 routed out of
 * it is dropped as no-route with an ICMPv6 unreachable; then its routes,
 * netdev addresses and every neighbour it had go. Whether an ATM
 * subinterface has IPv6 stays restart-only (config_cmp.c: its resolver and
 * map are set up at start).
 *
 * Commit follows what startup did (main.c, atm_setup.c, routes6.c): the
 * local /128 (the workers hand packets for it to the kernel) and the
 * connected prefix (glean) of each address added to the RIB6, those of each
 * removed address taken out unless another address still has them, the
 * removed address deleted from the netdev (the afxdp programs' cg_local6
 * follows the kernel's addresses by itself, daemon/xdp_addrs.c), and the
 * neighbours on a prefix that left the port forgotten (neigh6_flush_prefix).
 * The kernel keeps answering neighbour discovery for the new addresses, as
 * for those configured at startup. Every change is logged. Control thread
 * only.
 */
#ifndef CELLGATE_ADDRS6_H
#define CELLGATE_ADDRS6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "daemon/neigh6.h"
#include "daemon/rib6.h"
#include "datapath/dataplane.h"

/* Add (add=true) or delete one address on a netdev. 0 or negative errno (logged). */
typedef int (*addrs6_kernel_fn)(int ifindex, const uint8_t addr[16], uint8_t plen, bool add);

struct addrs6_env {
	struct dataplane *dp; /* ifindex and name of each port; port.ip6, port.ip6_src written */
	struct rib6 *rib6;
	struct neigh6_table *neigh6;
	addrs6_kernel_fn kernel; /* NULL: the netdev (daemon/netdev6.c) */
};

/*
 * Put next's new addresses on the netdevs. 0, or negative errno with a
 * message in msg and the data path of the failing address in path; what
 * was added before the failure is deleted again.
 */
int addrs6_prepare(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next,
                   char *msg, size_t msgsz, char *path, size_t pathsz);
/* Undo a successful prepare (a later part of the change failed). */
void addrs6_abort(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next);
/* The rest of the change, which cannot fail as a whole (a RIB6 error is logged). */
void addrs6_commit(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next);

#endif

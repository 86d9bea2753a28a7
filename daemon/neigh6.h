/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 neighbour resolution for next hops (RFC 4861), run by the control
 * thread as daemon/neigh.c runs ARP: workers report what waits for a
 * neighbour (DP_EV_RESOLVE6) and the NS/NA frames they hand to the kernel
 * (DP_EV_ND_SEEN); this module sends Neighbor Solicitations (multicast to
 * the solicited-node group, a unicast probe when an entry ages out), learns
 * the answers, fails neighbours that stay silent, and publishes the result
 * into the IPv6 next hops (rib6_nh_l2_update). Resolved hosts on connected
 * prefixes get a /128 host route (RIB_SRC_NEIGH).
 *
 * Every entry runs the RFC 4861 §7.3.2 / Appendix C state machine of
 * datapath/nd_nud.c (INCOMPLETE, REACHABLE, STALE, DELAY, PROBE); this
 * module owns its clock and carries out what it asks for. ReachableTime
 * is the port's port/ipv6/nd/base-reachable-time randomised per §6.3.2
 * ([0.5, 1.5] times, drawn again on a change and every hour, per port);
 * RetransTimer its retrans-timer (defaults 30 s and 1 s, §10); INCOMPLETE
 * sends arp-retries multicast solicitations, PROBE MAX_UNICAST_SOLICIT (3)
 * unicast ones after DELAY_FIRST_PROBE_TIME (5 s). The workers forward in
 * REACHABLE, STALE, DELAY and PROBE alike (§7.3.3); STALE is published as
 * NEIGH_STALE, which the first worker sending through it turns into
 * NEIGH_STALE_USED, and the next timer tick starts DELAY. An INCOMPLETE
 * entry that stays silent is failed (packets towards it dropped as
 * nd-failed, ICMPv6 address unreachable) and forgotten 10 s later; a PROBE
 * that stays silent deletes the entry (§7.3.3), so the next packet
 * resolves afresh. There are no upper-layer confirmations (§7.3.1): a
 * router sees no forward progress of transit traffic, so only a solicited
 * advertisement confirms. The table bound is arp-max-entries (counted
 * apart from ARP). The kernel keeps answering ND for the router's own
 * addresses.
 */
#ifndef CELLGATE_NEIGH6_H
#define CELLGATE_NEIGH6_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "daemon/neigh.h"
#include "daemon/rib6.h"
#include "datapath/dataplane.h"
#include "datapath/nd.h"

struct neigh6_table;

/* How a solicitation leaves (tests replace the packet socket). 0 or negative errno. */
typedef int (*neigh6_send_fn)(void *arg, uint16_t port, const uint8_t *frame, uint32_t len);

struct neigh6_table *neigh6_new(struct dataplane *dp, const struct cfg *cfg, struct rib6 *rib6);
void neigh6_free(struct neigh6_table *nt);
void neigh6_set_sender(struct neigh6_table *nt, neigh6_send_fn fn, void *arg);
/*
 * Resolve the neighbours of `port` by asking fn instead of soliciting
 * (multipoint ATM subinterfaces: a next hop's VC comes from the PVCs'
 * ipv6-peer-address map, RFC 2492 §3; RFC 3122 Inverse ND is not used).
 * fn fills in the next hop's MAC (the VC's synthetic address) and returns
 * true, or returns false when nothing maps the address: the entry then
 * fails at once (nd-failed, ICMPv6 address unreachable) and is asked again
 * after the failed hold-down. A mapped entry is static (no NUD timers; the
 * port's NS/NA change nothing). Set before neigh6_open, which then opens
 * no socket for the port.
 */
typedef bool (*neigh6_resolver_fn)(void *arg, uint16_t port, const uint8_t ip[16], uint8_t mac[6]);
void neigh6_set_resolver(struct neigh6_table *nt, uint16_t port, neigh6_resolver_fn fn, void *arg);
/* Forget every entry of `port` (its map changed at runtime): the next packet resolves afresh. */
void neigh6_forget_port(struct neigh6_table *nt, uint16_t port);

/* Where ReachableTime's randomness comes from (default arc4random; tests fix it). */
void neigh6_set_random(struct neigh6_table *nt, uint32_t (*rnd)(void));
/* The ReachableTime in force on port (ms). */
uint32_t neigh6_reachable_ms(const struct neigh6_table *nt, uint16_t port);

/*
 * Open a packet socket to send from per port with IPv6 (ports[i].ip6) and per
 * configured Ethernet port without (it may get IPv6 at runtime). 0 or negative errno.
 */
int neigh6_open(struct neigh6_table *nt);

/* rib6_l2_seed_fn: what a new IPv6 gateway next hop towards ip should start with. */
uint64_t neigh6_l2_seed(void *nt, uint16_t port, const uint8_t ip[16]);

void neigh6_resolve(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], uint64_t now_ms);
/*
 * An NS or NA the workers saw (DP_EV_ND_SEEN): `type` ICMP6_NEIGH_SOL (ip is
 * the solicitor, lla its source link-layer option) or ICMP6_NEIGH_ADV (ip
 * the target, lla the target link-layer option or NULL, flags ND_NA_*).
 */
void neigh6_seen(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], const uint8_t *lla,
                 uint8_t type, uint8_t flags, uint64_t now_ms);

/* Retries, aging, probes. Call every ~100 ms. */
void neigh6_timer(struct neigh6_table *nt, uint64_t now_ms);

/*
 * A prefix left the port (daemon/addrs6.c): forget its neighbours there,
 * with their /128 host routes, unless one of the port's remaining prefixes
 * keep[0..nkeep) still holds them (RFC 4861 §5: a neighbour is a node on
 * an attached link, and the link is the prefix's). Returns how many.
 */
unsigned neigh6_flush_prefix(struct neigh6_table *nt, uint16_t port, const struct cfg_addr6 *gone,
                             const struct cfg_addr6 *keep, unsigned nkeep);

/* requests_sent, replies_learned, ... as for ARP. */
void neigh6_get_counters(const struct neigh6_table *nt, struct neigh_counters *out);

/*
 * Every entry, in no particular order: `state` "incomplete", "reachable",
 * "stale", "delay", "probe" or "failed"; `has_mac` when the MAC is in use.
 */
typedef void (*neigh6_walk_fn)(void *arg, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                               const char *state, bool has_mac);
void neigh6_walk(const struct neigh6_table *nt, neigh6_walk_fn fn, void *arg);

/* JSON array of entries ({port, address, mac, state, router}), for the stats dump. */
void neigh6_dump_json(const struct neigh6_table *nt, FILE *out);

/* The state of the entry for ip on port (as neigh6_walk names it, "none": none) and its MAC. */
const char *neigh6_state(const struct neigh6_table *nt, uint16_t port, const uint8_t ip[16],
                         uint8_t mac[6]);

#endif

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
 * Timers are those of ARP (system/arp-timeout, arp-retries, one solicitation
 * a second, RFC 4861 §7.2.2 RetransTimer), and so is the table bound
 * (arp-max-entries, counted apart). Phase 2a simplification (issue 16): an
 * entry is reachable for arp-timeout after an NS or NA said so, then probed;
 * the RFC 4861 §7.3 NUD states of datapath/nd_nud.c (STALE, DELAY, upper-
 * layer confirmation) do not drive it yet. The kernel keeps answering ND for
 * the router's own addresses.
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

struct neigh6_table;

/* How a solicitation leaves (tests replace the packet socket). 0 or negative errno. */
typedef int (*neigh6_send_fn)(void *arg, uint16_t port, const uint8_t *frame, uint32_t len);

struct neigh6_table *neigh6_new(struct dataplane *dp, const struct cfg *cfg, struct rib6 *rib6);
void neigh6_free(struct neigh6_table *nt);
void neigh6_set_sender(struct neigh6_table *nt, neigh6_send_fn fn, void *arg);

/* Open a packet socket per port with IPv6 (ports[i].ip6) to send from. 0 or negative errno. */
int neigh6_open(struct neigh6_table *nt);

/* rib6_l2_seed_fn: what a new IPv6 gateway next hop towards ip should start with. */
uint64_t neigh6_l2_seed(void *nt, uint16_t port, const uint8_t ip[16]);

void neigh6_resolve(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], uint64_t now_ms);
void neigh6_seen(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                 uint64_t now_ms);

/* Retries, aging, probes. Call every ~100 ms. */
void neigh6_timer(struct neigh6_table *nt, uint64_t now_ms);

/* requests_sent, replies_learned, ... as for ARP. */
void neigh6_get_counters(const struct neigh6_table *nt, struct neigh_counters *out);

/*
 * Every entry, in no particular order. `probing`: a reachable entry that
 * aged out and is being confirmed by unicast solicitations (RFC 4861
 * §7.3.3 PROBE); the MAC is still used meanwhile.
 */
typedef void (*neigh6_walk_fn)(void *arg, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                               enum neigh_state state, bool probing);
void neigh6_walk(const struct neigh6_table *nt, neigh6_walk_fn fn, void *arg);

/* JSON array of entries ({port, address, mac, state}), for the stats dump. */
void neigh6_dump_json(const struct neigh6_table *nt, FILE *out);

/* The state of the entry for ip on port (NEIGH_NONE: none) and its MAC. */
enum neigh_state neigh6_state(const struct neigh6_table *nt, uint16_t port, const uint8_t ip[16],
                              uint8_t mac[6]);

#endif

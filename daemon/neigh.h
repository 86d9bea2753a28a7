/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 neighbour resolution (ARP, RFC 826) for next hops, run by the control
 * thread. Workers report misses and the ARP frames they see; this module sends
 * requests (retrying once a second), learns replies, ages entries and probes
 * them again before they expire, and publishes the result into the next hops
 * the workers read. Resolved hosts on connected subnets get a /32 host route.
 */
#ifndef CELLGATE_NEIGH_H
#define CELLGATE_NEIGH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "datapath/dataplane.h"
#include "daemon/rib.h"

struct neigh_table;

struct neigh_counters {
	uint64_t requests_sent;
	uint64_t replies_learned; /* ARP frames that resolved or refreshed an entry */
	uint64_t resolve_failed;  /* entries that ran out of retries */
	uint64_t send_errors;
	uint64_t entries;
	uint64_t table_full; /* new entries refused: arp-max-entries reached */
};

struct neigh_table *neigh_new(struct dataplane *dp, const struct cfg *cfg);
void neigh_free(struct neigh_table *nt);
void neigh_set_rib(struct neigh_table *nt, struct rib *rib);

/*
 * Resolve neighbours on `port` by asking fn instead of sending ARP (ATM
 * subinterfaces: the peer's VC comes from a static map or InATMARP). fn
 * fills in the next hop's MAC and returns true, or returns false when the
 * address is unknown; the retry and failure rules stay those of ARP.
 * Set before neigh_open.
 */
typedef bool (*neigh_resolver_fn)(void *arg, uint16_t port, uint32_t ip, uint8_t mac[6]);
void neigh_set_resolver(struct neigh_table *nt, uint16_t port, neigh_resolver_fn fn, void *arg);

/* Open the per-port sockets used to send requests. 0 or negative errno (logged). */
int neigh_open(struct neigh_table *nt);

/* rib_l2_seed_fn: what a new gateway next hop towards ip should start with. */
uint64_t neigh_l2_seed(void *nt, uint16_t port, uint32_t ip);

void neigh_resolve(struct neigh_table *nt, uint16_t port, uint32_t ip, uint64_t now_ms);
void neigh_seen(struct neigh_table *nt, uint16_t port, uint32_t ip, const uint8_t mac[6],
                uint64_t now_ms);
/*
 * Forget every neighbour on `port` resolved to `mac` (an ATM VC deleted at
 * runtime): its next hops go back to unresolved, so traffic asks again
 * instead of naming a VC number that may be given to another PVC.
 */
void neigh_forget_mac(struct neigh_table *nt, uint16_t port, const uint8_t mac[6]);

/* Retries, aging, probes. Call every ~100 ms. */
void neigh_timer(struct neigh_table *nt, uint64_t now_ms);

void neigh_get_counters(const struct neigh_table *nt, struct neigh_counters *out);
/* Call fn for every entry, in no particular order. */
typedef void (*neigh_walk_fn)(void *arg, uint16_t port, uint32_t ip, const uint8_t mac[6],
                              enum neigh_state state);
void neigh_walk(const struct neigh_table *nt, neigh_walk_fn fn, void *arg);

/* JSON array of entries, for the stats dump. */
void neigh_dump_json(const struct neigh_table *nt, FILE *out);

#endif

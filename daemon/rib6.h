/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The IPv6 routes of the RIB: every source's route per prefix, the best one
 * (the preference of rib.h: local, connected, frr, static, neighbour)
 * programmed into the FIB6. Next hops and groups are the IPv4 RIB's, in the
 * same tables and id pools (rib_nh.c): an IPv6 gateway next hop keeps its
 * address in nht->gw6 and is found by it, groups are shared by content, and
 * freed ids wait for the same RCU grace period (rib_reclaim). Control
 * thread only.
 *
 * The routes themselves sit in an open-addressing table (daemon/oa_table.h)
 * that grows a few slots per insert, as the IPv4 RIB's does: FRR's IPv6
 * table over FPM is ~220k routes, and a one-shot rehash of all of them
 * would hold the control loop. There is no prefix order for IPv6 yet: the
 * route6 list (rib6_walk) goes in the table's order.
 */
#ifndef CELLGATE_RIB6_H
#define CELLGATE_RIB6_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/rib.h"

struct rib6_path {
	uint8_t gw[16]; /* all zero = on-link */
	int port;       /* port id, or -1 = find it from the connected prefixes */
	uint8_t weight; /* 1..255 */
};

struct rib6;

/* Called when an IPv6 gateway next hop is created, to seed its MAC/state. */
typedef uint64_t (*rib6_l2_seed_fn)(void *arg, uint16_t port, const uint8_t ip[16]);

struct rib6 *rib6_new(struct rib *rib, rib6_l2_seed_fn seed, void *seed_arg);
void rib6_free(struct rib6 *r6);
void rib6_set_seed(struct rib6 *r6, rib6_l2_seed_fn seed, void *seed_arg);

/*
 * As rib_route_set: forward over `paths` (NH_GATEWAY) or one special next hop
 * (NH_LOCAL, NH_BLACKHOLE, NH_UNREACHABLE, NH_GLEAN on paths[0].port,
 * NH_NEIGH_FAILED towards paths[0].gw on paths[0].port). 0 or negative errno
 * (logged with the prefix).
 */
int rib6_route_set(struct rib6 *r6, const uint8_t prefix[16], uint8_t len, enum rib_source source,
                   enum nh_type type, const struct rib6_path *paths, unsigned npaths);
int rib6_route_del(struct rib6 *r6, const uint8_t prefix[16], uint8_t len, enum rib_source source);

/* Start loading the table slot of prefix/len (batch callers, ahead of use). */
void rib6_route_prefetch(const struct rib6 *r6, const uint8_t prefix[16], uint8_t len);

/* The source whose route is installed for prefix/len, or -1. */
int rib6_route_best(const struct rib6 *r6, const uint8_t prefix[16], uint8_t len);

/* Set l2 (MAC + state) on every IPv6 next hop towards ip on port (gateway or failed). */
void rib6_nh_l2_update(struct rib6 *r6, uint16_t port, const uint8_t ip[16], uint64_t l2);

/* The l2 word of the IPv6 gateway next hop towards ip on port, 0 if there is none. */
uint64_t rib6_nh_l2_get(const struct rib6 *r6, uint16_t port, const uint8_t ip[16]);

/* True if some installed next hop is an IPv6 gateway towards ip on port. */
bool rib6_nh_gateway_exists(const struct rib6 *r6, uint16_t port, const uint8_t ip[16]);

/* Routes per source, installed or not; routes that could not be programmed. */
void rib6_get_counts(const struct rib6 *r6, uint64_t routes[RIB_SRC__MAX], uint64_t *errors);

/* Prefixes installed in the FIB6. */
uint64_t rib6_installed(const struct rib6 *r6);

/* Bytes the route table holds (both of its tables while it grows). */
uint64_t rib6_memory(const struct rib6 *r6);

/* One installed IPv6 route as rib6_walk reports it. */
struct rib6_entry {
	uint8_t prefix[16];
	uint8_t len;
	enum rib_source source; /* the source whose route is installed */
	enum nh_type type;      /* of the first next hop */
	unsigned npaths;
	struct {
		uint8_t gw[16]; /* all zero: none (connected, local, ...) */
		uint16_t port;
		uint8_t weight;
	} paths[16]; /* NHG_PATHS_MAX */
};
typedef void (*rib6_walk_fn)(void *arg, const struct rib6_entry *e);

/*
 * Visit installed routes a table home at a time from *cursor (0 to
 * begin), whole homes only, until at least `max` were visited or the
 * table is done; *cursor is left at the next home (RIB6_WALK_END: done).
 * In a table left sparse by deletes a slice may stop short of `max` after
 * 64 * max homes (oa_walk): only RIB6_WALK_END says the walk is done.
 * A cursor, not a pointer (oa_walk): a route present throughout a walk is
 * visited exactly once, whatever changes in between (the table growing,
 * routes moving as others are deleted), and none twice. The order is the
 * hash's (the RIB6 keeps no prefix order yet). Returns how many.
 */
#define RIB6_WALK_END (1ull << 32)
unsigned rib6_walk(const struct rib6 *r6, uint64_t *cursor, unsigned max, rib6_walk_fn fn,
                   void *arg);

#endif

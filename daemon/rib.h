/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The routing information base: every route from every source, the choice of
 * the best one per prefix, and the programming of that choice into the FIB
 * and next-hop tables the workers read. Control thread only.
 *
 * Preference per prefix (first wins): local, connected, frr, static, neighbour.
 * Neighbour routes are the /32 host entries the ARP code adds for resolved
 * hosts on connected subnets.
 */
#ifndef CELLGATE_RIB_H
#define CELLGATE_RIB_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/dataplane.h"

enum rib_source {
	RIB_SRC_LOCAL = 0,
	RIB_SRC_CONNECTED,
	RIB_SRC_FRR,
	RIB_SRC_STATIC,
	RIB_SRC_NEIGH,
	RIB_SRC__MAX
};

struct rib_path {
	uint32_t gw;    /* 0 = on-link */
	int port;       /* port id, or -1 = find it from the connected subnets */
	uint8_t weight; /* 1..255 */
};

struct rib;

/* Called when a gateway next hop is created, to seed its MAC/state. */
typedef uint64_t (*rib_l2_seed_fn)(void *arg, uint16_t port, uint32_t ip);

struct rib *rib_new(struct dataplane *dp, rib_l2_seed_fn seed, void *seed_arg);
void rib_free(struct rib *rib);

/*
 * Set the route from `source` for prefix/len: forward over `paths` when type
 * is NH_GATEWAY, or a single special next hop (NH_LOCAL, NH_BLACKHOLE,
 * NH_UNREACHABLE, NH_GLEAN on paths[0].port, NH_NEIGH_FAILED on paths[0].port).
 * Replaces what that source had. 0 or negative errno (logged with the prefix).
 */
int rib_route_set(struct rib *rib, uint32_t prefix, uint8_t len, enum rib_source source,
                  enum nh_type type, const struct rib_path *paths, unsigned npaths);
int rib_route_del(struct rib *rib, uint32_t prefix, uint8_t len, enum rib_source source);

/* Start loading the table slot of prefix/len into the cache (batch callers, ahead of use). */
void rib_route_prefetch(const struct rib *rib, uint32_t prefix, uint8_t len);

/* The source whose route is installed for prefix/len, or -1. */
int rib_route_best(const struct rib *rib, uint32_t prefix, uint8_t len);

/* Set l2 (MAC + state) on every gateway next hop towards ip on port. */
void rib_nh_l2_update(struct rib *rib, uint16_t port, uint32_t ip, uint64_t l2);

/* True if some installed next hop is a gateway towards ip on port. */
bool rib_nh_gateway_exists(const struct rib *rib, uint16_t port, uint32_t ip);

/*
 * Ids freed since the last call become reusable. Call only after an RCU
 * grace period (synchronize_rcu) so no worker still reads them. Returns
 * whether anything was pending.
 */
bool rib_reclaim_pending(const struct rib *rib);
void rib_reclaim(struct rib *rib);

/*
 * Kept as routes change, never counted by walking the table: reading them
 * costs the same with ten routes or a million.
 */
struct rib_counts {
	uint64_t routes[RIB_SRC__MAX]; /* per source, installed or not */
	const char *fib_algorithm; /* the FIB's LPM structure (fib_algo name) */
	uint64_t fib_routes;
	uint64_t nexthops, nhgroups;
	uint64_t errors;     /* routes that could not be programmed */
	uint64_t fib_memory; /* bytes: the workers' FIB with its control-side structures */
	uint64_t fib_lookup_memory; /* bytes of it the workers' lookups read */
	uint64_t rib_memory; /* bytes: the RIB's route table, prefix order and next-hop tables */
};
void rib_get_counts(const struct rib *rib, struct rib_counts *out);

const char *rib_source_name(enum rib_source s);

/* One installed route as rib_walk_range and rib_route_get report it. */
struct rib_entry {
	uint32_t prefix;
	uint8_t len;
	enum rib_source source; /* the source whose route is installed */
	enum nh_type type;      /* of the first next hop */
	unsigned npaths;
	struct rib_path paths[16]; /* NHG_PATHS_MAX */
};
typedef void (*rib_walk_fn)(void *arg, const struct rib_entry *e);

/*
 * The route list in prefix order: by address, then by length, so
 * 10.0.0.0/8 < 10.0.0.0/16 < 10.0.1.0/24 < 10.1.0.0/16, and a prefix with
 * everything more specific inside it is one contiguous range of keys,
 * [rib_key(p, len), rib_key(p | ~mask, 32)].
 */
static inline uint64_t rib_key(uint32_t prefix, uint8_t len)
{
	return (uint64_t)prefix << 8 | len;
}
#define RIB_KEY_MAX rib_key(0xffffffffu, 32)

/*
 * Visit up to `max` installed routes with keys in [*from, to], in order;
 * *from is left just past the last one visited, so a walk is resumed by
 * calling again with it (a cursor: a key, never a pointer). Routes added
 * or removed between two calls are seen or not depending on where they
 * fall, one present throughout is visited exactly once, none twice, and
 * each is reported as it is when visited. Returns how many were visited
 * (fewer than max: the range is done).
 */
unsigned rib_walk_range(const struct rib *rib, uint64_t *from, uint64_t to, unsigned max,
                        rib_walk_fn fn, void *arg);

/* Installed routes with keys in [from, to]; costs one step per ~200 routes. */
uint64_t rib_count_range(const struct rib *rib, uint64_t from, uint64_t to);

/* The key of the route `n` places after the first one >= from; to + 1 when past `to`. */
uint64_t rib_skip_range(const struct rib *rib, uint64_t from, uint64_t to, uint64_t n);

/* The installed route for exactly prefix/len: true and *e filled, or false. */
bool rib_route_get(const struct rib *rib, uint32_t prefix, uint8_t len, struct rib_entry *e);

#endif

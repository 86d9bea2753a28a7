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

struct rib_counts {
	uint64_t routes[RIB_SRC__MAX]; /* per source, installed or not */
	uint64_t fib_routes;
	uint64_t nexthops, nhgroups;
	uint64_t errors; /* routes that could not be programmed */
};
void rib_get_counts(const struct rib *rib, struct rib_counts *out);

const char *rib_source_name(enum rib_source s);

/* One installed route as rib_walk reports it. */
struct rib_entry {
	uint32_t prefix;
	uint8_t len;
	enum rib_source source; /* the source whose route is installed */
	enum nh_type type;      /* of the first next hop */
	unsigned npaths;
	struct rib_path paths[16]; /* NHG_PATHS_MAX */
};
typedef void (*rib_walk_fn)(void *arg, const struct rib_entry *e);

/* Call fn for every route installed in the FIB, in no particular order. */
void rib_walk(const struct rib *rib, rib_walk_fn fn, void *arg);

#endif

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
 * would hold the control loop. The installed routes' keys are also kept in
 * prefix order (daemon/rib6_order.h), which the route6 list is read in.
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

/* Bytes the route table holds (both of its tables while it grows) and its prefix order. */
uint64_t rib6_memory(const struct rib6 *r6);

/* One installed IPv6 route as rib6_walk_range reports it. */
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
 * The route6 list's order, as the IPv4 list's (rib.h rib_key): by address,
 * then by length, so 2001:db8::/32 < 2001:db8::/48 < 2001:db8:0:1::/64 <
 * 2001:db9::/32, and a prefix with everything more specific inside it is
 * one contiguous range of keys. The address is held as two host-order
 * halves (bytes 0-7 and 8-15 read big-endian), so keys compare as integers.
 */
struct rib6_key {
	uint64_t hi, lo;
	uint8_t len; /* 0..128 */
};

static inline int rib6_key_cmp(const struct rib6_key *a, const struct rib6_key *b)
{
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->len > b->len) - (a->len < b->len);
}

/* The key of prefix/len (network order), and back. */
struct rib6_key rib6_key_of(const uint8_t prefix[16], uint8_t len);
void rib6_key_prefix(const struct rib6_key *k, uint8_t prefix[16]);

/*
 * The smallest key after *k: length + 1, or the next address at length 0
 * after a /128; after RIB6_KEY_MAX, RIB6_KEY_PAST (above every route's key,
 * so a range from it is empty), which it leaves as it is.
 */
void rib6_key_next(struct rib6_key *k);
#define RIB6_KEY_MAX  ((struct rib6_key){UINT64_MAX, UINT64_MAX, 128})
#define RIB6_KEY_PAST ((struct rib6_key){UINT64_MAX, UINT64_MAX, 129})

/*
 * Visit up to `max` installed routes with keys in [*from, to], in order;
 * *from is left just past the last one visited, so a walk is resumed by
 * calling again with it (a cursor: a key, never a pointer). Routes added
 * or removed between two calls are seen or not depending on where they
 * fall, one present throughout is visited exactly once, none twice, and
 * each is reported as it is when visited. Returns how many were visited
 * (fewer than max: the range is done).
 */
unsigned rib6_walk_range(const struct rib6 *r6, struct rib6_key *from, const struct rib6_key *to,
                         unsigned max, rib6_walk_fn fn, void *arg);

/* Installed routes with keys in [from, to]; costs one step per ~100 routes. */
uint64_t rib6_count_range(const struct rib6 *r6, const struct rib6_key *from,
                          const struct rib6_key *to);

/*
 * The key of the route `n` places after the first one >= from: true and
 * *out set, or false when that is past `to`.
 */
bool rib6_skip_range(const struct rib6 *r6, const struct rib6_key *from, const struct rib6_key *to,
                     uint64_t n, struct rib6_key *out);

/* Bytes the prefix order holds (rib6_memory counts them too). */
uint64_t rib6_order_bytes(const struct rib6 *r6);

#endif

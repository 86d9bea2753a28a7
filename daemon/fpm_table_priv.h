/* SPDX-License-Identifier: BSD-2-Clause */
/* Internals of the FPM table, shared by fpm_table.c (routes) and fpm_nh.c (next-hop objects). */
#ifndef CELLGATE_FPM_TABLE_PRIV_H
#define CELLGATE_FPM_TABLE_PRIV_H

#include "daemon/fpm_table.h"
#include "lib/log.h"
#include "daemon/rib6.h"
#include "daemon/rib_priv.h"

/* An IPv4 route of the main table: one entry of an oa_table. IPv6 routes use the same flags. */
enum {
	R4_IN_RIB = 1,   /* our RIB_SRC_FRR entry exists for the prefix */
	R4_PENDING = 2,  /* waits for a next-hop object (a RIB entry, if any, is older) */
	R4_REJECTED = 4, /* zebra has it, cellgated cannot forward it */
};

/* A route's flags change: the family's in-RIB, pending and rejected counts follow. */
static inline void fpm_flags_count(uint64_t *rib, uint64_t *pending, uint64_t *rejected,
                                   uint8_t was, uint8_t now)
{
	*rib += ((now & R4_IN_RIB) != 0) - ((was & R4_IN_RIB) != 0);
	*pending += ((now & R4_PENDING) != 0) - ((was & R4_PENDING) != 0);
	*rejected += ((now & R4_REJECTED) != 0) - ((was & R4_REJECTED) != 0);
}

#define R4_KEY_USED (1ull << 40) /* keeps 0.0.0.0/0 off the empty key 0 */

struct fpm_r4 {
	uint64_t key; /* R4_KEY_USED | prefix << 8 | len */
	uint32_t gen; /* session that last announced it */
	uint32_t nh;  /* next-hop object slot + 1, valid only when gen is current; 0 = none */
	uint32_t pos; /* index in that object's dependents */
	uint8_t flags;
};

/*
 * An IPv6 route of the main table: one entry of an oa_table (as the IPv4
 * routes are), keyed by a 64-bit hash of prefix and length, the prefix
 * compared on lookup (oa_find_eq). Entries move (growth, deletes), so
 * next-hop objects list their IPv6 dependents by prefix (fpm_r6_id).
 */
struct fpm_r6 {
	uint64_t key; /* fpm_r6_key(prefix, len), never 0 */
	uint8_t prefix[16];
	uint8_t len;
	uint8_t flags; /* R4_IN_RIB (in the RIB6), R4_PENDING, R4_REJECTED */
	uint32_t gen;  /* session that last announced it */
	uint32_t nh;   /* next-hop object slot + 1, valid only when gen is current; 0 = none */
	uint32_t pos;  /* index in that object's IPv6 dependents */
};

/* What an IPv6 route is: how next-hop objects and the stale list name one. */
struct fpm_r6_id {
	uint8_t prefix[16];
	uint8_t len;
};

/* How a route or next-hop object resolves for the RIB. Compared with memcmp: zero it first. */
struct fpm_target {
	int8_t reject; /* enum fpm_reject, or -1 */
	bool pending;  /* needs a next-hop object that is not (fully) known yet */
	uint8_t type;  /* enum nh_type */
	uint8_t n;
	int32_t detail; /* for the log: the foreign ifindex, table, type */
	struct rib_path paths[NHG_PATHS_MAX];
};

/* The same for an IPv6 route (fpm_r6.c): IPv6 gateways, link-local ones with their port. */
struct fpm_target6 {
	int8_t reject;
	bool pending;
	uint8_t type;
	uint8_t n;
	int32_t detail;
	struct rib6_path paths[NHG_PATHS_MAX];
};

enum nh_state {
	NHS_FREE = 0,
	NHS_UNKNOWN, /* referenced by a route or group, not announced (yet) */
	NHS_KNOWN,
};

/* A next-hop object of the current session (zebra's `fpm use-next-hop-groups`). */
struct fpm_nh {
	uint32_t id;
	uint32_t slot; /* index in fpm_table.nh */
	uint8_t state;
	bool blackhole, encap;
	uint8_t family;
	struct fpm_path path;
	struct fpm_nh_member *members; /* a group when nmembers > 0 */
	uint32_t nmembers;
	struct fpm_target target;   /* for IPv4 routes */
	struct fpm_target6 target6; /* for IPv6 routes */
	uint32_t *parents; /* slots of groups that list this object */
	uint32_t nparents, cparents;
	uint64_t *deps; /* IPv4 routes using it (fpm_r4 keys) */
	uint32_t ndeps, cdeps;
	struct fpm_r6_id *deps6; /* IPv6 routes using it */
	uint32_t ndeps6, cdeps6;
};

/* zebra id -> slot: one entry of an oa_table. */
struct fpm_nh_ix {
	uint64_t id; /* zebra's id, never 0 */
	uint32_t slot;
};

struct fpm_table {
	struct rib *rib;
	struct rib6 *rib6; /* NULL: IPv6 routes are recorded, never installed */
	const struct dataplane *dp;
	uint32_t gen;
	bool settled;

	struct oa_table r4; /* of struct fpm_r4 */

	struct oa_table r6; /* of struct fpm_r6 */
	bool batch;            /* a FIB6 batch is open (fpm_table_batch_begin) */

	struct fpm_nh **nh;    /* by slot; objects never move, so pointers stay valid */
	uint32_t nh_cap, nh_n; /* slots handed out so far; freed ones are reused first */
	uint32_t *nh_free, nh_nfree;
	struct oa_table nhix; /* of struct fpm_nh_ix */

	uint64_t *stale; /* keys of IPv4 routes that were known when the session began */
	uint32_t nstale, stale_pos;
	struct fpm_r6_id *stale6; /* IPv6 routes known when the session began */
	uint32_t nstale6, stale6_pos;
	uint64_t nstale_left; /* IPv4 + IPv6 entries not re-announced yet */

	struct fpm_msg msg[2]; /* a held RTM_DELROUTE and the message after it */
	int cached_ifindex, cached_port;

	struct fpm_table_counters c;
	struct log_limit log_lim; /* fpm_log_limited */

	/* fpm_limit.c: per family (0 IPv4, 1 IPv6) */
	uint32_t limit[2];
	uint8_t warn_pct;
	bool warned[2], limit_hit[2];
};

static inline uint64_t r4_key(uint32_t prefix, uint8_t len)
{
	return R4_KEY_USED | (uint64_t)prefix << 8 | len;
}

/* fpm_table.c */
/* Re-program the routes that use next-hop object n after its resolution changed. */
void fpm_r4_reprogram(struct fpm_table *t, uint64_t key, const struct fpm_target *tg);
void fpm_log_limited(struct fpm_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fpm_target_from_paths(struct fpm_table *t, const struct fpm_path *p, unsigned n,
                           struct fpm_target *tg);

/*
 * fpm_limit.c: may the session announce one more route of family fam
 * (0 IPv4, 1 IPv6)? On true it is counted; on false the caller rejects it
 * (FPM_REJ_LIMIT). fpm_limit_release: one of the session's routes is gone.
 */
bool fpm_limit_admit(struct fpm_table *t, unsigned fam);
void fpm_limit_release(struct fpm_table *t, unsigned fam);
void fpm_limit_session_start(struct fpm_table *t);
void fpm_log_reject(struct fpm_table *t, uint8_t family, const uint8_t *dst, uint8_t len,
                    enum fpm_reject r, long detail);

/* fpm_table.c: the cellgated port on ifindex, or -1. */
int fpm_port_of_ifindex(struct fpm_table *t, int ifindex);
/*
 * fpm_table.c: -1 and *type (NH_GATEWAY for unicast: paths or object to
 * follow; NH_BLACKHOLE, NH_UNREACHABLE) for a route cellgated can take, or
 * the enum fpm_reject reason with *detail.
 */
int fpm_route_kind(const struct fpm_route *r, uint8_t *type, int32_t *detail);

/* fpm_r6.c */
void fpm_r6_new(struct fpm_table *t, const struct fpm_route *r);
void fpm_r6_del(struct fpm_table *t, const struct fpm_route *r);
/* Remove up to *budget entries of earlier sessions (decremented); true when none is left. */
bool fpm_r6_sweep(struct fpm_table *t, unsigned *budget);
/* The IPv6 routes of the session beginning: the list the sweep goes through. 0 or -ENOMEM. */
int fpm_r6_session_start(struct fpm_table *t);
struct fpm_r6 *fpm_r6_find(const struct fpm_table *t, const struct fpm_r6_id *id);
/* IPv6 paths to what the RIB6 takes (as fpm_target_from_paths for IPv4). */
void fpm_target6_from_paths(struct fpm_table *t, const struct fpm_path *p, unsigned n,
                            struct fpm_target6 *tg);
/* Program the route id names (if it is there) as tg says. */
void fpm_r6_reprogram(struct fpm_table *t, const struct fpm_r6_id *id,
                      const struct fpm_target6 *tg);
/* Start loading the buckets (this table's, the RIB6's) an IPv6 route will touch. */
void fpm_r6_prefetch(const struct fpm_table *t, const uint8_t *dst, uint8_t len);

/* fpm_nh.c */
void fpm_nh_reset(struct fpm_table *t);
void fpm_nh_apply(struct fpm_table *t, const struct fpm_nhobj *o, bool del);
/* The object with zebra id `id`, created as NHS_UNKNOWN if absent; NULL on ENOMEM. */
struct fpm_nh *fpm_nh_get(struct fpm_table *t, uint32_t id);
int fpm_nh_dep_add(struct fpm_table *t, struct fpm_nh *n, uint64_t key, uint32_t *pos);
void fpm_nh_dep_del(struct fpm_table *t, struct fpm_nh *n, uint32_t pos);
int fpm_nh_dep6_add(struct fpm_table *t, struct fpm_nh *n, struct fpm_r6 *e);
void fpm_nh_dep6_del(struct fpm_table *t, struct fpm_nh *n, uint32_t pos);
/* Withdraw the routes that still wait for an unknown object (end of the settle). */
void fpm_nh_settle(struct fpm_table *t);

#endif

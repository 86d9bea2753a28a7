/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What zebra told us over FPM, and the RIB kept in step with it.
 *
 * Every route and next-hop object zebra announces is recorded here with the
 * generation (session number) that last announced it. A new session bumps
 * the generation: what the previous one installed keeps forwarding while
 * zebra replays its table (FRR 8.4 sends no end-of-replay marker), and once
 * the replay has settled, whatever was not re-announced is swept
 * (mark-and-sweep). Next-hop objects are per session (zebra numbers them
 * afresh after a restart); routes that use one are re-resolved when it
 * changes. Routes of the main table go to the RIB (IPv4) and the RIB6
 * (IPv6) as RIB_SRC_FRR, so they win over static routes of the same prefix.
 *
 * Control thread only.
 */
#ifndef CELLGATE_FPM_TABLE_H
#define CELLGATE_FPM_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/dataplane.h"
#include "daemon/fpm_nl.h"
#include "daemon/rib.h"
#include "daemon/rib6.h"

/*
 * Why a route zebra sent is not forwarded by cellgated (counted, logged
 * rate-limited): id, stats name, explanation, label of the detail logged.
 */
#define FPM_REJECTS(X)                                                                             \
	X(TABLE, "table", "not the main table (254): other tables are not supported yet", "table") \
	X(TYPE, "type", "route type other than unicast, blackhole, unreachable, prohibit",         \
	  "rtm_type")                                                                              \
	X(ENCAP, "encap", "MPLS or other encapsulation on the route or its next hop", NULL)        \
	X(IFINDEX, "ifindex", "output interface is not a cellgated port", "ifindex")               \
	X(GW_FAMILY, "gateway-family",                                                             \
	  "gateway of another family than the route's (RFC 5549 IPv4 over IPv6, or IPv6 over IPv4)", \
	  "family")                                                                                \
	X(LINK_LOCAL, "link-local-no-oif",                                                         \
	  "IPv6 link-local gateway without an output interface (RFC 4007: ambiguous)", NULL)      \
	X(NO_PATH, "no-path", "unicast route without a usable gateway or interface", NULL)         \
	X(NEXTHOP, "nexthop-unknown", "next-hop object never announced or unresolvable", NULL)     \
	X(RIB, "rib", "the RIB refused it (tables full, bad prefix)", "error")                     \
	X(LIMIT, "limit", "the session's route limit is reached (routing/fpm/route-limit)", "limit")

enum fpm_reject {
#define X(id, name, desc, detail) FPM_REJ_##id,
	FPM_REJECTS(X)
#undef X
	    FPM_REJ__MAX
};

extern const char *const fpm_reject_name[FPM_REJ__MAX];

struct fpm_table_counters {
	uint64_t msgs[FPM_MSG__MAX]; /* decoded messages by type */
	uint64_t errors[FPM_E__MAX]; /* malformed input by kind */
	uint64_t ignored_family;     /* routes of another family (MPLS) */
	uint64_t routes_added;       /* new IPv4 prefix */
	uint64_t routes_replaced;    /* new content for a prefix of this session */
	uint64_t routes_reconfirmed; /* re-announced after a reconnect (replay) */
	uint64_t routes_deleted;     /* RTM_DELROUTE of a known prefix */
	uint64_t routes_del_unknown; /* RTM_DELROUTE of a prefix we do not have */
	uint64_t routes_swept;       /* stale after a reconnect: not re-announced */
	uint64_t rejected[FPM_REJ__MAX];
	uint64_t paths_truncated; /* more paths than the RIB holds, or mixed on-link */
	uint64_t nh_added, nh_replaced, nh_deleted, nh_del_unknown, nh_deleted_in_use;
	uint64_t ipv6_added, ipv6_replaced, ipv6_deleted, ipv6_reconfirmed, ipv6_swept;
	/* Gauges. */
	uint64_t routes4;     /* IPv4 routes of the main table known now */
	uint64_t routes4_rib; /* ... of which in the RIB */
	uint64_t routes4_pending;
	uint64_t routes4_rejected; /* ... of which cellgated cannot forward (see rejected) */
	uint64_t routes6;          /* IPv6 routes of the main table known now, like routes4 */
	uint64_t routes6_rib;      /* ... of which in the RIB6 */
	uint64_t routes6_pending;
	uint64_t routes6_rejected;
	uint64_t nhobjs;
	uint64_t stale;            /* waiting for the sweep */
	uint64_t session4;         /* IPv4 routes the current session announced (the limit's count) */
	uint64_t session6;         /* IPv6 */
	bool settled;              /* the current (or last) session's replay has settled */
};

struct fpm_table;

struct fpm_table *fpm_table_new(struct rib *rib, const struct dataplane *dp);
void fpm_table_free(struct fpm_table *t);

/* Where IPv6 routes go; until it is set (NULL) they are recorded and counted, not installed. */
void fpm_table_set_rib6(struct fpm_table *t, struct rib6 *rib6);

/*
 * Route limits, like bgpd's maximum-prefix: at most limit4 IPv4 and limit6
 * IPv6 routes announced by one session (0 = no limit); a warning is logged
 * when a family reaches warn_pct percent of its limit, and once the limit
 * is reached every further route of that family the session announces
 * (new, or an earlier session's route re-announced) is refused, logged at a
 * limited rate and counted (rejected "limit"); replacing a route the
 * session announced is always allowed. Routes of an earlier session waiting
 * for the sweep do not count: during a replay the table holds at most the
 * old session's routes plus the limit.
 */
void fpm_table_set_limits(struct fpm_table *t, uint32_t limit4, uint32_t limit6, uint8_t warn_pct);

/*
 * A new zebra session: everything known so far becomes stale until
 * re-announced, and the next-hop objects of the old session are forgotten
 * (routes keep their RIB entries). 0 or -ENOMEM.
 */
int fpm_table_session_start(struct fpm_table *t);

/*
 * Apply the netlink messages of one frame (payload: the bytes after the
 * 4-byte header, 4-byte aligned). Malformed messages are counted, logged
 * (rate-limited) and skipped; RTM_DELROUTE directly followed by RTM_NEWROUTE
 * of the same prefix is applied as one replace, so the FIB never lacks the
 * route in between. Returns FPM_OK, or FPM_E_NLMSG when the frame's message
 * layout is broken (what came before that point is applied).
 */
enum fpm_err fpm_table_frame(struct fpm_table *t, const uint8_t *payload, size_t len);

/*
 * Start loading the table slots a frame's route will touch (this table's
 * and the RIB's; for IPv6 the two tables' hash buckets). A route costs a
 * few cache misses on tables of a million entries; issued some frames
 * ahead, they overlap. Only looks at
 * a frame laid out as zebra lays it out (RTA_DST first), every read
 * bounds-checked; anything else is simply not prefetched.
 */
void fpm_table_prefetch(const struct fpm_table *t, const uint8_t *payload, size_t len);

/*
 * FIB6 updates between these two reach the workers together at the end
 * (fib6_batch_begin): a slice's worth of IPv6 routes (up to ~3k, 2 ms
 * or 256 KiB: fpm.c) rebuilds each trie node it touches once, not once
 * per route. fpm_table_batch_end: 0,
 * or -ENOSPC/-ENOMEM when the FIB6 needs a reclaim (after a grace period)
 * first; the batch then stays open: call it again later. Inside a batch
 * the RIB6 finds the port of a gateway given without an interface in the
 * FIB6 as the workers see it, without the routes of the same batch (zebra
 * sends its routes resolved, with the interface).
 */
void fpm_table_batch_begin(struct fpm_table *t);
int fpm_table_batch_end(struct fpm_table *t);

/* Stale IPv4/IPv6 routes re-announced so far (what the settle timer watches). */
uint64_t fpm_table_reconfirmed(const struct fpm_table *t);

/*
 * Remove up to `budget` stale entries; true when none is left. The last
 * call also withdraws routes still waiting for an unknown next-hop object,
 * and from then on such routes are withdrawn at once (the session is settled).
 */
bool fpm_table_sweep(struct fpm_table *t, unsigned budget);


void fpm_table_get_counters(const struct fpm_table *t, struct fpm_table_counters *out);

#endif

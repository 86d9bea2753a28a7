/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FPM server: the TCP listener FRR's zebra (dplane_fpm_nl) connects to,
 * one session at a time (a second connection is refused while the first is
 * alive; only allowed peers; keepalive finds a dead one), in the control
 * thread's event loop. It cuts the
 * byte stream into frames for the FPM table (fpm_table.h), and runs the
 * session life: on every (re)connect zebra replays its whole FIB with no
 * end marker, so stale routes of the previous session are swept only once
 * no previous route has been re-announced for the configured settle time.
 */
#ifndef CELLGATE_FPM_H
#define CELLGATE_FPM_H

#include <stdbool.h>
#include <stdio.h>

#include "config/config_fpm.h"
#include "datapath/dataplane.h"
#include "daemon/rib.h"
#include "daemon/rib6.h"

struct event_base;
struct fpm_server;

/*
 * Start listening as configured (a disabled server only reports its state).
 * NULL when the address cannot be bound, with the address, port and reason
 * logged.
 */
struct fpm_server *fpm_server_new(struct event_base *base, const struct cfg_fpm *cfg,
                                  struct rib *rib, struct rib6 *rib6, const struct dataplane *dp);

/* Close the session and the listener. FRR routes stay in the RIB. */
void fpm_server_free(struct fpm_server *s);

/*
 * The session's state, one vocabulary for stats.json, RESTCONF, /metrics
 * and SNMP (CELLGATE-MIB cgFpmState uses these numbers): no server;
 * listening with no session; a session whose replay has not settled yet
 * (the previous session's routes still wait to be re-announced or swept);
 * a session that settled.
 */
enum fpm_session_state {
	FPM_STATE_DISABLED = 1,
	FPM_STATE_LISTENING = 2,
	FPM_STATE_SYNCING = 4,
	FPM_STATE_ESTABLISHED = 5,
};
const char *fpm_session_state_name(enum fpm_session_state st);

/* The session as management reports it (RESTCONF state, /metrics, SNMP). */
struct fpm_server_view {
	enum fpm_session_state state;
	bool enabled;            /* listening as configured */
	bool connected;          /* zebra is connected */
	char peer[56];           /* "address:port" of zebra while connected */
	uint64_t last_change_ms; /* CLOCK_REALTIME of the last connect/disconnect, 0 = none */
	uint64_t connects, disconnects, frames;
	uint64_t routes_installed; /* IPv4 routes added or replaced */
	uint64_t routes_withdrawn; /* deleted by zebra or swept as stale */
	uint64_t errors;           /* malformed input of every kind */
	uint64_t refused_busy;     /* connections refused while a session was alive */
	uint64_t refused_peer;     /* connections from an address not in allowed-peer */
	uint64_t routes4, routes6; /* routes known now (stale ones included) */
	uint64_t limit_refused;    /* routes refused by the route limit */
	/* The replay: an earlier session's routes not re-announced yet, and when it settled. */
	uint64_t stale;
	bool settled;           /* the current (or last) session's replay has settled */
	uint64_t settled_rt_ms; /* CLOCK_REALTIME when it did, 0 = never */
	int64_t settle_ms;      /* connect to settled, last time; -1 = never */
};

/* Fill `out`; a NULL server (FPM not set up) reports disabled. */
void fpm_server_view(const struct fpm_server *s, struct fpm_server_view *out);

/* The "fpm" object of stats.json: state, session, counters. */
void fpm_server_stats_json(const struct fpm_server *s, FILE *out);

/* ,"fpm":{...}: /cellgate/state/fpm as RFC 7951 JSON (a NULL server: not configured). */
void fpm_server_state_json(const struct fpm_server *s, FILE *out);

#endif

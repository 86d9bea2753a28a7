/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the SNMP tables show, and where it comes from. The daemon describes
 * its ports and VCs once (they change only with a restart) and gives
 * callbacks for what moves: the counter snapshot (the one the stats dump
 * takes, so SNMP and the dump never disagree), InATMARP peers, the FIB
 * size and the FPM session. Per request, snmp_model_refresh() takes one
 * snapshot and every table reads from it.
 *
 * The tables (tables_atm.c, tables_cellgate.c) are pure functions of the
 * model: unit tests feed them a hand-made snapshot.
 */
#ifndef CELLGATE_SNMP_MODEL_H
#define CELLGATE_SNMP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/stats.h"
#include "mgmt/snmp/mib_table.h"

/* CELLGATE-MIB cgPortType */
enum snmp_port_type { SNMP_PORT_ETHERNET = 1, SNMP_PORT_ATM = 2, SNMP_PORT_ATM_SUBIF = 3 };

struct snmp_port_info {
	int32_t ifindex; /* of the port's netdev; <= 0: not shown */
	char name[PORT_NAME_MAX];
	uint8_t type; /* enum snmp_port_type */
};

#define SNMP_PEER6_MAX 8 /* ipv6-peer-address entries per PVC (CFG_PEER6_MAX) */

struct snmp_vc_info {
	uint16_t atm_port, subif; /* port ids (index into snmp_source.port) */
	uint16_t vpi, vci;
	bool llc;           /* RFC 2684 LLC (routed or bridged), else VC-mux */
	bool bridged;       /* RFC 2684 bridged 802.3 (5.2, 6.2), else routed */
	uint32_t sdu_size;  /* AAL5 CPCS SDU size: the IP MTU, + 8 with LLC/SNAP */
	uint32_t peer_addr; /* configured peer-address, host order, 0 = none */
	/* pvc/ipv6-peer-address: IPv6 next hops mapped to the VC (RFC 2492 §3), network order. */
	uint8_t npeers6;
	uint8_t peers6[SNMP_PEER6_MAX][16];
};

/* The FIB's running counts (never a walk of the routes). */
struct snmp_fib_view {
	uint64_t routes, nexthops, nhgroups, errors;
	uint64_t memory_bytes, routes_frr, routes_static;
};

/* The control loop's lag gauge (daemon/loopmon.h), microseconds. */
struct snmp_loop_view {
	uint32_t lag_recent_us, lag_max_us, busy_recent_us;
};

/* CELLGATE-MIB cgFpmState */
enum snmp_fpm_state {
	SNMP_FPM_DISABLED = 1,
	SNMP_FPM_LISTENING = 2,
	SNMP_FPM_CONNECTED = 3, /* not reported any more: SYNCING, then ESTABLISHED */
	SNMP_FPM_SYNCING = 4,
	SNMP_FPM_ESTABLISHED = 5,
};

/* The FPM session with zebra, filled by the daemon's FPM server. */
struct snmp_fpm_view {
	int32_t state;           /* enum snmp_fpm_state */
	uint64_t last_change_ms; /* CLOCK_REALTIME ms of the last state change, 0 = none */
	uint64_t connects, disconnects, msgs_in, routes_installed, routes_withdrawn, errors;
	uint64_t stale; /* routes of an earlier session not re-announced yet */
	bool settled;
};

/* What the daemon provides; filled once before snmp_agent_start. */
struct snmp_source {
	void *arg; /* passed to the callbacks */
	/* The stats snapshot, as the stats dump takes it (mandatory). */
	void (*stats_take)(void *arg, struct stats_snapshot *snap);
	/* InATMARP: the far end learned on VC vc and how long ago; false if none. */
	bool (*vc_learned)(void *arg, unsigned vc, uint32_t *ip, uint64_t *age_ms);
	void (*fib)(void *arg, struct snmp_fib_view *out);
	/* NULL: FPM not configured, cgFpmState disabled(1). */
	void (*fpm)(void *arg, struct snmp_fpm_view *out);
	/* NULL: zeros. */
	void (*loop)(void *arg, struct snmp_loop_view *out);
	uint64_t start_ms; /* CLOCK_REALTIME ms when the counters started from zero */
	unsigned nports;
	struct snmp_port_info port[PORT_MAX];
	unsigned nvcs;
	struct snmp_vc_info vc[VC_MAX];
};

/* CELLGATE-MIB cgInAtmArpType */
enum snmp_peer_type { SNMP_PEER_NONE = 0, SNMP_PEER_STATIC = 1, SNMP_PEER_LEARNED = 2 };

struct snmp_model {
	const struct snmp_source *src;
	/* Rows in index order, from the source (fixed). */
	unsigned nport_rows, natm_rows, nvc_rows;
	uint16_t port_rows[PORT_MAX]; /* by ifIndex */
	uint16_t atm_rows[PORT_MAX];  /* ATM ports, by ifIndex */
	uint16_t vc_rows[VC_MAX];     /* by ATM port ifIndex, VPI, VCI */
	/* Per request. */
	struct stats_snapshot *snap;
	struct snmp_fib_view fib;
	struct snmp_fpm_view fpm;
	struct snmp_loop_view loop;
	unsigned npeer_rows;
	uint16_t peer_rows[VC_MAX]; /* VCs (in vc_rows order) with a far end */
	uint32_t peer_ip[VC_MAX];
	uint32_t peer_age_s[VC_MAX];
	uint8_t peer_type[VC_MAX];
	/* cgVcIpv6PeerTable: (VC row, entry) pairs in index order; set with the VC rows. */
	unsigned npeer6_rows;
	uint16_t peer6_vc_row[VC_MAX * SNMP_PEER6_MAX];
	uint8_t peer6_entry[VC_MAX * SNMP_PEER6_MAX];
	uint32_t now_ticks; /* sysUpTime now (hundredths of a second) */
	uint64_t now_ms;    /* CLOCK_REALTIME now */
};

/* Sort the rows of `src`; `snap` is the caller's buffer for snapshots. */
void snmp_model_init(struct snmp_model *m, const struct snmp_source *src,
                     struct stats_snapshot *snap);
/* The source's VCs changed (PVCs added or deleted at runtime): rebuild the VC rows. */
void snmp_model_vcs_changed(struct snmp_model *m);

/* Take a snapshot and read the callbacks, for one request. */
void snmp_model_refresh(struct snmp_model *m, uint32_t now_ticks, uint64_t now_ms);

/*
 * RFC 2579 TimeStamp of an event at CLOCK_REALTIME `event_ms`: sysUpTime
 * then, or 0 if that was before sysUpTime's zero (or event_ms is 0).
 */
uint32_t snmp_timestamp(const struct snmp_model *m, uint64_t event_ms);

/* The VC row of src VC `vc`, or -1. */
int snmp_vc_row(const struct snmp_model *m, unsigned vc);

/* The tables, ATM-MIB and ATM2-MIB (tables_atm.c), then CELLGATE-MIB (tables_cellgate.c). */
extern const struct mib_table snmp_atm_vcl_table, snmp_aal5_vcc_table, snmp_atm_vcl_stat_table,
    snmp_atm_aal5_vcl_stat_table;
extern const struct mib_table cg_system_group, cg_fpm_group, cg_port_table, cg_port_drop_table,
    cg_atm_port_table, cg_vc_table, cg_vc_drop_table, cg_inatmarp_table, cg_port_ipv6_table,
    cg_vc_ipv6_peer_table;
extern const struct mib_table *const snmp_tables[];
extern const unsigned snmp_ntables;

/* CELLGATE-MIB (mibs/CELLGATE-MIB.txt): the module's root and its notifications. */
extern const mib_subid cg_mib_root[];
extern const unsigned cg_mib_root_len;
enum { CG_NOTIFY_VC_OPER_DOWN = 1, CG_NOTIFY_VC_OPER_UP = 2 }; /* under cgNotifications (.0) */
enum { CG_VC_SUBIFINDEX = 3, CG_VC_OPER_STATUS = 4, CG_VC_LAST_CHANGE = 5 }; /* cgVcEntry */

/* The instance OID of column `col` of VC row `row` in table t (VC-indexed). */
unsigned snmp_vc_instance(const struct snmp_model *m, const struct mib_table *t, unsigned col,
                          unsigned row, mib_subid *out);

#endif

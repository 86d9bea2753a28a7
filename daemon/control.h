/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control thread: one libevent loop that owns the configuration, the RIB,
 * neighbour resolution, signals and the stats dump.
 */
#ifndef CELLGATE_CONTROL_H
#define CELLGATE_CONTROL_H

#include "config/config.h"
#include "daemon/atm.h"
#include "daemon/neigh.h"
#include "daemon/neigh6.h"
#include "daemon/rib.h"
#include "daemon/rib6.h"
#include "datapath/dataplane.h"

struct snmp_agent;
struct snmp_source;
struct mgmt;
struct fpm_server;
struct clear_state;
struct loopmon;

struct control {
	struct event_base *base;
	struct dataplane *dp;
	struct cfg *cfg;
	struct rib *rib;
	struct neigh_table *neigh;
	struct rib6 *rib6;           /* IPv6 routes (over rib's next-hop tables) */
	struct neigh6_table *neigh6; /* IPv6 neighbour resolution */
	struct atm_ctl *atm;
	struct fpm_server *fpm; /* zebra's FPM feed (fpm.h) */
	struct loopmon *loop;   /* the loop-lag gauge (loopmon.h), started by control_run */
	const char *rundir;
	uint64_t rx_ring_drops[PORT_MAX];
	int worker_cpu[WORKER_MAX];
	uint64_t last_neigh_ms;
	int exit_code;
	struct snmp_agent *snmp;      /* NULL: no subagent */
	struct snmp_source *snmp_src; /* what it reads (control_snmp.c) */

	/* Management (daemon/mgmt*.c): the startup file and the schema it is checked against. */
	const char *config_path;
	const char *yang_dir;
	struct mgmt *mgmt;
	/* clear-counters (stats_snap.c): counters at the last clear, and when (CLOCK_REALTIME ms).
	 */
	struct stats_snapshot *stats_base;
	struct clear_state *clear; /* a snapshot asked of the workers, and who waits for it */
	uint64_t start_ms;
	uint64_t port_clear_ms[PORT_MAX];
	uint64_t vc_clear_ms[VC_MAX];
};

/*
 * What management changes in the running daemon goes through these, never by
 * writing struct control or the dataplane directly.
 *
 * control_params_apply: the forwarding parameters of `cfg` (ICMP rate and
 * burst, ARP hold time, IP options) to the running workers.
 * control_stats_vc_reset: VC id `vc` is new (runtime PVC add): its counters
 * start from zero, with no clear time.
 * control_cfg_replace: `next` becomes the running configuration, in place
 * (the neighbour and ATM code keep a pointer to it); *next is left zeroed.
 */
void control_params_apply(struct control *ctl, const struct cfg *cfg);
void control_stats_vc_reset(struct control *ctl, unsigned vc);
void control_cfg_replace(struct control *ctl, struct cfg *next);

/*
 * The stats snapshot all readers share (stats dump, RESTCONF, /metrics,
 * SNMP): dp_stats_take() plus the kernel ring drops and what the control
 * thread counts itself (TUN reads with no VC), minus the clear-counters
 * baseline. 0 (cannot fail today).
 */
int control_stats_take(struct control *ctl, struct stats_snapshot *snap);

/*
 * clear-counters: port `port` (with its VCs), or everything when port < 0,
 * from a consistent snapshot of the workers (dp_stats_snap_request), so the
 * accounting rule holds for the counters measured from it. The loop does not
 * wait for the workers: 0 and done(arg, err) later, from the loop (err 0,
 * -ETIMEDOUT when a worker did not answer and nothing was cleared, or
 * -ECANCELED at the end); or -ENOMEM now, and done is not called.
 */
typedef void (*control_clear_fn)(void *arg, int err);
int control_stats_clear(struct control *ctl, int port, control_clear_fn done, void *arg);
/* Answer the clears still waiting (-ECANCELED) and free what clearing kept. */
void control_stats_clear_fini(struct control *ctl);

/* Run the loop until SIGTERM/SIGINT. 0 on a clean stop. */
int control_run(struct control *ctl);

/* The SNMP subagent, if /cellgate/snmp is configured; failures are logged, never fatal. */
void control_snmp_start(struct control *ctl);
void control_snmp_stop(struct control *ctl);
/* PVCs were added or deleted at runtime: the SNMP VC rows follow. */
void control_snmp_vcs_changed(struct control *ctl);

/* Write the stats snapshot as JSON to `out`. */
void control_stats_json(struct control *ctl, FILE *out);

/* Write RUNDIR/stats.json atomically (temp file + rename). */
int control_stats_write(struct control *ctl);

#endif

/*
 * The control thread: one libevent loop that owns the configuration, the RIB,
 * neighbour resolution, signals and the stats dump.
 */
#ifndef CELLGATE_CONTROL_H
#define CELLGATE_CONTROL_H

#include "config.h"
#include "datapath/dataplane.h"
#include "neigh.h"
#include "rib.h"

struct fpm_server;

struct control {
	struct event_base *base;
	struct dataplane *dp;
	struct cfg *cfg;
	struct rib *rib;
	struct neigh_table *neigh;
	struct fpm_server *fpm; /* zebra's FPM feed (fpm.h) */
	const char *rundir;
	uint64_t rx_ring_drops[PORT_MAX];
	int worker_cpu[WORKER_MAX];
	uint64_t last_neigh_ms;
	int exit_code;
};

/* Run the loop until SIGTERM/SIGINT. 0 on a clean stop. */
int control_run(struct control *ctl);

/* Write the stats snapshot as JSON to `out`. */
void control_stats_json(struct control *ctl, FILE *out);

/* Write RUNDIR/stats.json atomically (temp file + rename). */
int control_stats_write(struct control *ctl);

#endif

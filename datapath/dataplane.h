/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The state workers share and read: ports, the FIB and the next-hop tables.
 * The control thread builds it, starts the workers, and from then on changes
 * only what the RCU/atomic rules in fib.h and nexthop.h allow.
 */
#ifndef CELLGATE_DATAPLANE_H
#define CELLGATE_DATAPLANE_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/event_ring.h"
#include "datapath/fib/fib.h"
#include "datapath/fib/fib6.h"
#include "datapath/nexthop.h"
#include "datapath/port.h"
#include "datapath/stats.h"

/*
 * Forwarding parameters the control thread may change while workers run:
 * each field is published on its own (dp_params_set, release stores) and
 * read with dp_param() (acquire loads); no field depends on another.
 */
struct dp_params {
	uint32_t icmp_rate; /* ICMP errors per second per worker (0 = none) */
	uint32_t icmp_burst;
	uint32_t hold_timeout_ms; /* how long a packet may wait for ARP */
	bool ip_options_forward;
};

#define dp_param(dp, field) __atomic_load_n(&(dp)->params.field, __ATOMIC_ACQUIRE)

struct worker;

struct dataplane {
	unsigned nports;
	struct port ports[PORT_MAX];
	unsigned nworkers;
	struct worker *workers[WORKER_MAX];
	struct fib fib;    /* the algorithm chosen at dp_init, and its table */
	struct fib6 *fib6; /* IPv6 routes: next-hop group ids of nht, as fib */
	struct nh_tables *nht;
	struct dp_params params;
	struct atm_vc *vcs; /* VC_MAX entries when ATM ports exist, else NULL */
	unsigned nvcs;
	int stop; /* set by the control thread, read by workers */
	/* dp_stats_snap_*: the request number (release), each worker's copy of its counters. */
	uint32_t snap_req;
	struct stats_snapshot *snap_buf[WORKER_MAX];
};

/* Control thread: publish new forwarding parameters (workers see each field change whole). */
void dp_params_set(struct dataplane *dp, const struct dp_params *p);

/*
 * Allocate the FIB (fib_algo NULL: FIB_ALGO_DEFAULT; fib_params NULL: its
 * default sizes), the FIB6 (its default capacity: address space, touched as
 * it grows) and the next-hop tables. 0 or -ENOMEM.
 */
int dp_init(struct dataplane *dp, const struct fib_algo *fib_algo,
            const struct fib_params *fib_params);
void dp_fini(struct dataplane *dp);

/*
 * Start one worker per entry of cpus (cpu -1 = not pinned). Every port must
 * have its queues 0..n-1 open. 0 or a negative errno (logged).
 */
int dp_workers_start(struct dataplane *dp, const int *cpus, unsigned n);
void dp_workers_stop(struct dataplane *dp);

/*
 * For tests and benchmarks: allocate the workers without starting threads,
 * then drive worker `w` by hand, one poll pass at a time (the caller is the
 * worker thread: rcu-registered if it needs grace periods). Returns frames received.
 */
int dp_workers_create(struct dataplane *dp, const int *cpus, unsigned n);
unsigned dp_worker_poll(struct dataplane *dp, unsigned w);

/*
 * When worker `w`'s next pass is due even with nothing received, as its
 * last pass found (CLOCK_MONOTONIC ns; UINT64_MAX: none): the earliest of
 * its drivers' deadlines and the hold queue's. For tests, from the thread
 * that drives the worker.
 */
uint64_t dp_worker_deadline(const struct dataplane *dp, unsigned w);

/* Packets worker `w` holds while ARP resolves (in flight for the accounting rule). */
unsigned dp_worker_held(const struct dataplane *dp, unsigned w);

/* Poll loop passes worker `w` has made (any thread; for the watchdog). */
uint64_t dp_worker_loops(const struct dataplane *dp, unsigned w);

/* The event ring worker `w` feeds to the control thread. */
struct event_ring *dp_worker_events(struct dataplane *dp, unsigned w);

/* Sum all workers' counters (control thread; lock-free). */
void dp_stats_take(const struct dataplane *dp, struct stats_snapshot *snap);

/*
 * A consistent snapshot, for a baseline the counters are measured from
 * (clear-counters). dp_stats_take reads counters while workers update them:
 * a burst half processed shows as received and not yet forwarded, and a
 * baseline taken then would offset the accounting rule for good. Instead
 * each worker copies its own counters at the end of a loop pass, when the
 * only packets in flight are those it holds for ARP, which are counted as
 * not received yet (they are forwarded or dropped later, after the copy).
 * ATM ports and VCs are served by worker 0, which copies theirs too.
 *
 * Control thread: dp_stats_snap_request asks every worker (0, or -ENOMEM)
 * and returns the ticket in *ticket; dp_stats_snap_collect is true once all
 * have answered it, with the sum in snap. A worker answers within one loop
 * pass (or its idle sleep, a few milliseconds).
 */
int dp_stats_snap_request(struct dataplane *dp, uint32_t *ticket);
bool dp_stats_snap_collect(const struct dataplane *dp, uint32_t ticket,
                           struct stats_snapshot *snap);
/* The buffers of dp_stats_snap_*, at the end (dp_workers_stop frees them). */
void dp_stats_snap_free(struct dataplane *dp);

#endif

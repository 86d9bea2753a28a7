/*
 * The FPM server: the TCP listener FRR's zebra (dplane_fpm_nl) connects to,
 * one session at a time, in the control thread's event loop. It cuts the
 * byte stream into frames for the FPM table (fpm_table.h), and runs the
 * session life: on every (re)connect zebra replays its whole FIB with no
 * end marker, so stale routes of the previous session are swept only once
 * no previous route has been re-announced for the configured settle time.
 */
#ifndef CELLGATE_FPM_H
#define CELLGATE_FPM_H

#include <stdio.h>

#include "config_fpm.h"
#include "datapath/dataplane.h"
#include "rib.h"

struct event_base;
struct fpm_server;

/*
 * Start listening as configured (a disabled server only reports its state).
 * NULL when the address cannot be bound, with the address, port and reason
 * logged.
 */
struct fpm_server *fpm_server_new(struct event_base *base, const struct cfg_fpm *cfg,
                                  struct rib *rib, const struct dataplane *dp);

/* Close the session and the listener. FRR routes stay in the RIB. */
void fpm_server_free(struct fpm_server *s);

/* The "fpm" object of stats.json: state, session, counters. */
void fpm_server_stats_json(const struct fpm_server *s, FILE *out);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon side of the management plane: what the RESTCONF server
 * (mgmt/restconf) may read and change, served from the control thread's
 * tables and the one stats snapshot. mgmt/ sees only this and struct cfg,
 * never the datapath.
 */
#ifndef CELLGATE_MGMT_H
#define CELLGATE_MGMT_H

#include <stdint.h>
#include <stdio.h>

#include "daemon/control.h"

struct restconf;

struct mgmt {
	struct control *ctl;
	struct restconf *rc;
	struct mgmt_ping *pings; /* vc-ping operations in progress */
};

/*
 * Start the RESTCONF server on the configured listeners (default
 * RUNDIR/restconf.sock). 0 or a negative errno (logged).
 */
int mgmt_start(struct control *ctl);
void mgmt_stop(struct control *ctl);

/*
 * SIGHUP: read the startup file again and apply it the way a RESTCONF write
 * is applied (static routes and settings at runtime; anything needing a
 * restart refused). An invalid file, or a refused change, leaves the running
 * configuration as it was and logs why. 0 or -1.
 */
int mgmt_reload(struct control *ctl);

/* /cellgate/state as RFC 7951 JSON, the parts (enum restconf_state_part) asked for (mgmt_state.c).
 */
int mgmt_state_json(struct control *ctl, unsigned parts, FILE *out);

/* The route list for the RESTCONF server, in slices (mgmt_routes.c; restconf_backend.routes). */
struct restconf_route;
unsigned mgmt_routes(struct control *ctl, uint64_t *from, uint64_t to, unsigned max,
                     void (*fn)(void *ctx, const struct restconf_route *r), void *ctx);
uint64_t mgmt_routes_count(struct control *ctl, uint64_t from, uint64_t to);
uint64_t mgmt_routes_skip(struct control *ctl, uint64_t from, uint64_t to, uint64_t n);

/* The IPv6 route list in slices, in prefix order (mgmt_routes.c; restconf_backend.routes6). */
struct restconf_route6;
struct restconf_key6;
unsigned mgmt_routes6(struct control *ctl, struct restconf_key6 *from,
                      const struct restconf_key6 *to, unsigned max,
                      void (*fn)(void *ctx, const struct restconf_route6 *r), void *ctx);
uint64_t mgmt_routes6_count(struct control *ctl, const struct restconf_key6 *from,
                            const struct restconf_key6 *to);
bool mgmt_routes6_skip(struct control *ctl, const struct restconf_key6 *from,
                       const struct restconf_key6 *to, uint64_t n, struct restconf_key6 *out);

#endif

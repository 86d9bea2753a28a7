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

/* /cellgate/state as RFC 7951 JSON (mgmt_state.c). */
int mgmt_state_json(struct control *ctl, FILE *out);

#endif

/*
 * The one stats snapshot every reader uses (the SIGUSR1 dump, RESTCONF,
 * /metrics, SNMP): the datapath's counters from dp_stats_take(), the kernel
 * ring drops the control loop collects, minus the baseline recorded by the
 * last clear-counters. The datapath's counters themselves never go back:
 * each has one writer (stats.h), so clearing them from here would race.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "daemon/control.h"
#include "daemon/stats_fields.h"

static void snap_raw(struct control *ctl, struct stats_snapshot *snap)
{
	dp_stats_take(ctl->dp, snap);
	for (unsigned p = 0; p < snap->nports; p++)
		snap->port[p].rx_ring_drops = ctl->rx_ring_drops[p];
	atm_stats_fixup(ctl->atm, snap);
}

int control_stats_take(struct control *ctl, struct stats_snapshot *snap)
{
	const struct stats_snapshot *b = ctl->stats_base;

	snap_raw(ctl, snap);
	if (!b)
		return 0;
	for (unsigned p = 0; p < snap->nports; p++) {
		stats_counters_sub(&snap->port[p], &b->port[p], sizeof(snap->port[p]));
		stats_counters_sub(&snap->atm[p], &b->atm[p], sizeof(snap->atm[p]));
	}
	for (unsigned v = 0; v < snap->nvcs; v++) {
		stats_counters_sub(&snap->vc[v].c, &b->vc[v].c, sizeof(snap->vc[v].c));
		snap->vc[v].discards_total -= b->vc[v].discards_total;
	}
	return 0;
}

/* A port's VCs go with it: an ATM port's VCs, or a subinterface's. */
static bool vc_of_port(const struct stats_vc *v, int port)
{
	return port < 0 || v->atm_port == port || v->subif == port;
}

int control_stats_clear(struct control *ctl, int port)
{
	struct stats_snapshot *now = malloc(sizeof(*now));
	uint64_t t = realtime_ms();

	if (!now)
		return -ENOMEM;
	if (!ctl->stats_base && !(ctl->stats_base = calloc(1, sizeof(*ctl->stats_base)))) {
		free(now);
		return -ENOMEM;
	}
	snap_raw(ctl, now);
	for (unsigned p = 0; p < now->nports; p++) {
		if (port >= 0 && (unsigned)port != p)
			continue;
		ctl->stats_base->port[p] = now->port[p];
		ctl->stats_base->atm[p] = now->atm[p];
		ctl->port_clear_ms[p] = t;
	}
	for (unsigned v = 0; v < now->nvcs; v++) {
		if (!vc_of_port(&now->vc[v], port))
			continue;
		ctl->stats_base->vc[v] = now->vc[v];
		ctl->vc_clear_ms[v] = t;
	}
	free(now);
	return 0;
}

void control_stats_vc_reset(struct control *ctl, unsigned vc)
{
	if (vc >= VC_MAX)
		return;
	if (ctl->stats_base)
		memset(&ctl->stats_base->vc[vc], 0, sizeof(ctl->stats_base->vc[vc]));
	ctl->vc_clear_ms[vc] = 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one stats snapshot every reader uses (the SIGUSR1 dump, RESTCONF,
 * /metrics, SNMP): the datapath's counters from dp_stats_take(), the kernel
 * ring drops the control loop collects, minus the baseline recorded by the
 * last clear-counters. The datapath's counters themselves never go back:
 * each has one writer (stats.h), so clearing them from here would race.
 */
#include <errno.h>
#include <event2/event.h>
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

/*
 * The baseline must be a snapshot the accounting rule holds for: taken by
 * the workers between loop passes (dp_stats_snap_request), then what the
 * control thread counts itself. The control loop does not wait for it: a
 * timer looks every millisecond (a busy worker answers within a pass, an
 * idle one within its 5 ms sleep). Clears asked for meanwhile are answered
 * from the same snapshot. A worker that does not answer within
 * CLEAR_WAIT_MS is stuck, and the clear is refused rather than made wrong.
 */
#define CLEAR_WAIT_MS 2000

struct clear_job {
	struct clear_job *next;
	int port;
	control_clear_fn done;
	void *arg;
};

struct clear_state {
	struct event *timer;
	struct clear_job *jobs; /* waiting for the snapshot in flight */
	uint32_t ticket;
	uint64_t deadline_ms;
	struct stats_snapshot snap;
};

static void baseline_set(struct control *ctl, const struct stats_snapshot *now, int port,
                         uint64_t t)
{
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
}

static void clear_finish(struct control *ctl, int err)
{
	struct clear_state *cs = ctl->clear;
	struct clear_job *j = cs->jobs;
	uint64_t t = realtime_ms();

	cs->jobs = NULL;
	evtimer_del(cs->timer);
	if (!err) {
		for (unsigned p = 0; p < cs->snap.nports; p++)
			cs->snap.port[p].rx_ring_drops = ctl->rx_ring_drops[p];
		atm_stats_fixup(ctl->atm, &cs->snap);
	}
	while (j) {
		struct clear_job *next = j->next;
		if (!err)
			baseline_set(ctl, &cs->snap, j->port, t);
		j->done(j->arg, err);
		free(j);
		j = next;
	}
}

static void clear_poll(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;
	struct clear_state *cs = ctl->clear;

	if (dp_stats_snap_collect(ctl->dp, cs->ticket, &cs->snap))
		clear_finish(ctl, 0);
	else if (mono_ms() >= cs->deadline_ms)
		clear_finish(ctl, -ETIMEDOUT);
}

int control_stats_clear(struct control *ctl, int port, control_clear_fn done, void *arg)
{
	struct timeval ms = {0, 1000};
	struct clear_job *j;
	int err;

	if (!ctl->stats_base && !(ctl->stats_base = calloc(1, sizeof(*ctl->stats_base))))
		return -ENOMEM;
	if (!ctl->clear &&
	    (!(ctl->clear = calloc(1, sizeof(*ctl->clear))) ||
	     !(ctl->clear->timer = event_new(ctl->base, -1, EV_PERSIST, clear_poll, ctl))))
		return -ENOMEM;
	if (!(j = malloc(sizeof(*j))))
		return -ENOMEM;
	*j = (struct clear_job){.next = ctl->clear->jobs, .port = port, .done = done, .arg = arg};
	if (!ctl->clear->jobs) {
		/* None in flight: ask the workers now. */
		if ((err = dp_stats_snap_request(ctl->dp, &ctl->clear->ticket)) != 0) {
			free(j);
			return err;
		}
		ctl->clear->deadline_ms = mono_ms() + CLEAR_WAIT_MS;
		evtimer_add(ctl->clear->timer, &ms);
	}
	ctl->clear->jobs = j;
	return 0;
}

void control_stats_clear_fini(struct control *ctl)
{
	if (!ctl->clear)
		return;
	if (ctl->clear->jobs)
		clear_finish(ctl, -ECANCELED);
	event_free(ctl->clear->timer);
	free(ctl->clear);
	ctl->clear = NULL;
}

void control_stats_vc_reset(struct control *ctl, unsigned vc)
{
	if (vc >= VC_MAX)
		return;
	if (ctl->stats_base)
		memset(&ctl->stats_base->vc[vc], 0, sizeof(ctl->stats_base->vc[vc]));
	ctl->vc_clear_ms[vc] = 0;
}

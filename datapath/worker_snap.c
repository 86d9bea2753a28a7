/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Consistent counter snapshots (dp_stats_snap_request in dataplane.h): the
 * worker copies its own counters between two loop passes, where every
 * packet it took is accounted except those it holds for ARP, and counts
 * those as not received yet. The control thread only asks and sums.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/worker_priv.h"

void worker_snap_take(struct worker *w, uint32_t req)
{
	struct dataplane *dp = w->dp;
	struct stats_snapshot *s = dp->snap_buf[w->id];
	const struct worker_counters *wc = w->ctr;

	stats_sum(&wc, 1, dp->nports, s);
	/* Held for ARP: forwarded or dropped after this copy, so received after it too. */
	for (unsigned i = 0; i < w->nhold; i++) {
		struct port_counters *c = &s->port[w->hold[i].pkt.in_port].c;
		c->rx_packets--;
		c->rx_octets -= w->hold[i].pkt.len;
		if (w->hold[i].pkt.gso_type != PKT_GSO_NONE)
			c->rx_gso_packets--;
		if (w->hold[i].v6) {
			c->ip6_in_packets--;
			c->ip6_in_octets -= w->hold[i].pkt.len - 14;
		}
	}
	if (w->id == 0 && dp->vcs)
		stats_atm_take(dp, s);
	__atomic_store_n(&w->snap_done, req, __ATOMIC_RELEASE);
}

int dp_stats_snap_request(struct dataplane *dp, uint32_t *ticket)
{
	for (unsigned w = 0; w < dp->nworkers; w++)
		if (!dp->snap_buf[w] && !(dp->snap_buf[w] = malloc(sizeof(*dp->snap_buf[w]))))
			return -ENOMEM;
	/* The buffers before the request: a worker sees both (acquire in worker_snap_serve). */
	*ticket = dp->snap_req + 1;
	__atomic_store_n(&dp->snap_req, *ticket, __ATOMIC_RELEASE);
	return 0;
}

bool dp_stats_snap_collect(const struct dataplane *dp, uint32_t ticket, struct stats_snapshot *snap)
{
	for (unsigned w = 0; w < dp->nworkers; w++)
		if (__atomic_load_n(&dp->workers[w]->snap_done, __ATOMIC_ACQUIRE) != ticket)
			return false;
	memset(snap, 0, sizeof(*snap));
	snap->nports = dp->nports;
	snap->nworkers = dp->nworkers;
	for (unsigned w = 0; w < dp->nworkers; w++) {
		const struct stats_snapshot *s = dp->snap_buf[w];
		for (unsigned p = 0; p < dp->nports; p++) {
			const uint64_t *src = (const uint64_t *)&s->port[p].c;
			uint64_t *dst = (uint64_t *)&snap->port[p].c;
			for (size_t i = 0; i < sizeof(struct port_counters) / 8; i++)
				dst[i] += src[i];
		}
		snap->worker_loops[w] = s->worker_loops[0];
		snap->worker_bursts[w] = s->worker_bursts[0];
		snap->events_lost += s->events_lost;
	}
	for (unsigned p = 0; p < dp->nports; p++)
		for (unsigned r = 0; r < DROP__MAX; r++)
			snap->port[p].drops_total += snap->port[p].c.drops[r];
	if (dp->nworkers && dp->vcs) {
		const struct stats_snapshot *s0 = dp->snap_buf[0];
		memcpy(snap->is_atm, s0->is_atm, sizeof(snap->is_atm));
		memcpy(snap->atm, s0->atm, sizeof(snap->atm));
		snap->nvcs = s0->nvcs;
		memcpy(snap->vc, s0->vc, sizeof(snap->vc[0]) * s0->nvcs);
	}
	return true;
}

void dp_stats_snap_free(struct dataplane *dp)
{
	for (unsigned w = 0; w < WORKER_MAX; w++) {
		free(dp->snap_buf[w]);
		dp->snap_buf[w] = NULL;
	}
}

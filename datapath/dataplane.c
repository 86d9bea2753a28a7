/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/dataplane.h"
#include "datapath/port_afxdp.h"
#include "datapath/port_atm.h"
#include "datapath/port_cellpw.h"
#include "datapath/worker_priv.h"

const char *const drop_reason_name[DROP__MAX] = {
#define X(id, name, desc) [DROP_##id] = name,
    DROP_REASONS(X)
#undef X
};

const char *const vc_drop_name[VC_DROP__MAX] = {
#define X(id, name, desc) [VC_DROP_##id] = name,
    VC_DROP_REASONS(X)
#undef X
};

const char *const vc_drop_desc[VC_DROP__MAX] = {
#define X(id, name, desc) [VC_DROP_##id] = desc,
    VC_DROP_REASONS(X)
#undef X
};

const char *const drop_reason_desc[DROP__MAX] = {
#define X(id, name, desc) [DROP_##id] = desc,
    DROP_REASONS(X)
#undef X
};

int dp_init(struct dataplane *dp, const struct fib_algo *fib_algo,
            const struct fib_params *fib_params)
{
	int rc;

	memset(dp, 0, sizeof(*dp));
	rc = fib_create(&dp->fib, fib_algo ? fib_algo : FIB_ALGO_DEFAULT, fib_params);
	dp->fib6 = fib6_create(0, 0);
	dp->nht = calloc(1, sizeof(*dp->nht));
	if (rc < 0 || !dp->fib6 || !dp->nht) {
		dp_fini(dp);
		return -ENOMEM;
	}
	return 0;
}

void dp_params_set(struct dataplane *dp, const struct dp_params *p)
{
	__atomic_store_n(&dp->params.icmp_rate, p->icmp_rate, __ATOMIC_RELEASE);
	__atomic_store_n(&dp->params.icmp_burst, p->icmp_burst, __ATOMIC_RELEASE);
	__atomic_store_n(&dp->params.hold_timeout_ms, p->hold_timeout_ms, __ATOMIC_RELEASE);
	__atomic_store_n(&dp->params.ip_options_forward, p->ip_options_forward, __ATOMIC_RELEASE);
}

void dp_fini(struct dataplane *dp)
{
	if (dp->fib.t)
		fib_destroy(&dp->fib);
	if (dp->fib6)
		fib6_destroy(dp->fib6);
	dp->fib6 = NULL;
	free(dp->nht);
	dp->nht = NULL;
}

void stats_sum(const struct worker_counters *const *wc, unsigned nworkers, unsigned nports,
               struct stats_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	snap->nports = nports;
	snap->nworkers = nworkers;
	for (unsigned w = 0; w < nworkers; w++) {
		for (unsigned p = 0; p < nports; p++) {
			const uint64_t *src = (const uint64_t *)&wc[w]->port[p];
			uint64_t *dst = (uint64_t *)&snap->port[p].c;
			for (size_t i = 0; i < sizeof(struct port_counters) / 8; i++)
				dst[i] += CTR_READ(src[i]);
		}
		snap->worker_loops[w] = CTR_READ(wc[w]->loops);
		snap->worker_bursts[w] = CTR_READ(wc[w]->bursts);
		snap->events_lost += CTR_READ(wc[w]->events_lost);
	}
	for (unsigned p = 0; p < nports; p++)
		for (unsigned r = 0; r < DROP__MAX; r++)
			snap->port[p].drops_total += snap->port[p].c.drops[r];
}

/* VC and ATM port counters: written by the worker owning the port, read relaxed here. */
void stats_atm_take(const struct dataplane *dp, struct stats_snapshot *snap)
{
	for (unsigned p = 0; p < dp->nports; p++) {
		const struct port *pt = &dp->ports[p];
		const struct atm_portq *q = atm_portq_of((struct port *)pt);

		if (!q)
			continue;
		snap->is_atm[p] = true;
		const uint64_t *src = (const uint64_t *)&q->ctr;
		uint64_t *dst = (uint64_t *)&snap->atm[p];
		for (size_t i = 0; i < sizeof(q->ctr) / 8; i++)
			dst[i] = CTR_READ(src[i]);
	}
	snap->nvcs = dp->vcs ? dp->nvcs : 0;
	for (unsigned v = 0; v < snap->nvcs; v++) {
		const struct atm_vc *vc = &dp->vcs[v];
		struct stats_vc *s = &snap->vc[v];
		const uint64_t *src = (const uint64_t *)&vc->ctr;
		uint64_t *dst = (uint64_t *)&s->c;

		s->id = (uint16_t)v;
		s->atm_port = vc->cfg.atm_port;
		s->subif = vc->cfg.subif;
		s->vpi = vc->cfg.vpi;
		s->vci = vc->cfg.vci;
		s->oper = __atomic_load_n(&vc->oper, __ATOMIC_ACQUIRE);
		s->oper_change_ms = __atomic_load_n(&vc->oper_change_ms, __ATOMIC_RELAXED);
		for (size_t i = 0; i < sizeof(vc->ctr) / 8; i++)
			dst[i] = CTR_READ(src[i]);
		for (unsigned r = 0; r < VC_DROP__MAX; r++)
			s->discards_total += s->c.discards[r];
	}
}

/*
 * An afxdp port's XDP program decides some frames without the worker (it
 * passes the host's own to the kernel): fold its counts in, so the
 * accounting rule holds on the port as on any other.
 */
static void stats_afxdp_take(const struct dataplane *dp, struct stats_snapshot *snap)
{
	for (unsigned p = 0; p < dp->nports; p++) {
		struct stats_port *sp = &snap->port[p];

		if (dp->ports[p].ops != &port_afxdp_ops)
			continue;
		afxdp_counters_add(&dp->ports[p], &sp->c);
		sp->drops_total = 0;
		for (unsigned r = 0; r < DROP__MAX; r++)
			sp->drops_total += sp->c.drops[r];
	}
}

void dp_stats_take(const struct dataplane *dp, struct stats_snapshot *snap)
{
	const struct worker_counters *wc[WORKER_MAX];

	for (unsigned i = 0; i < dp->nworkers; i++)
		wc[i] = dp->workers[i]->ctr;
	stats_sum(wc, dp->nworkers, dp->nports, snap);
	for (unsigned i = 0; i < dp->nworkers; i++)
		snap->worker_held[i] = dp_worker_held(dp, i);
	stats_atm_take(dp, snap);
	stats_afxdp_take(dp, snap);
}

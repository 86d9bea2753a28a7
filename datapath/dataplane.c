#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane.h"
#include "worker_priv.h"

const char *const drop_reason_name[DROP__MAX] = {
#define X(id, name, desc) [DROP_##id] = name,
    DROP_REASONS(X)
#undef X
};

const char *const drop_reason_desc[DROP__MAX] = {
#define X(id, name, desc) [DROP_##id] = desc,
    DROP_REASONS(X)
#undef X
};

int dp_init(struct dataplane *dp, uint32_t tbl8_groups)
{
	memset(dp, 0, sizeof(*dp));
	dp->fib = fib4_create(tbl8_groups);
	dp->nht = calloc(1, sizeof(*dp->nht));
	if (!dp->fib || !dp->nht) {
		dp_fini(dp);
		return -ENOMEM;
	}
	return 0;
}

void dp_fini(struct dataplane *dp)
{
	if (dp->fib)
		fib4_destroy(dp->fib);
	free(dp->nht);
	dp->fib = NULL;
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

void dp_stats_take(const struct dataplane *dp, struct stats_snapshot *snap)
{
	const struct worker_counters *wc[WORKER_MAX];

	for (unsigned i = 0; i < dp->nworkers; i++)
		wc[i] = dp->workers[i]->ctr;
	stats_sum(wc, dp->nworkers, dp->nports, snap);
	for (unsigned i = 0; i < dp->nworkers; i++)
		snap->worker_held[i] = dp_worker_held(dp, i);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp driver's maps seen from the control thread: the router's own
 * addresses (written), the program's decision counters (read and folded
 * into the port's counters for the stats snapshot).
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>

#include "datapath/port_afxdp_priv.h"
#include "lib/log.h"

bool afxdp_built(void)
{
	return true;
}

static struct afxdp_port *afxdp_of(const struct port *p)
{
	return p->ops == &port_afxdp_ops ? p->drv : NULL;
}

static bool afxdp_addr_in(uint32_t a_be, const uint32_t *addrs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (htonl(addrs[i]) == a_be)
			return true;
	return false;
}

int afxdp_local_set(struct port *p, const uint32_t *addrs, unsigned n)
{
	struct afxdp_port *ap = afxdp_of(p);
	uint32_t key, next, stale[CG_XDP_LOCAL_MAX];
	unsigned nstale = 0;
	uint8_t one = 1;
	void *cur = NULL;

	if (!ap)
		return -ENODEV;
	if (n > CG_XDP_LOCAL_MAX)
		return afxdp_fail(p, "own addresses", E2BIG, "more than the program's map holds");
	/* Collect first: deleting while walking with get_next_key could restart the walk. */
	while (nstale < CG_XDP_LOCAL_MAX && bpf_map_get_next_key(ap->local_fd, cur, &next) == 0) {
		if (!afxdp_addr_in(next, addrs, n))
			stale[nstale++] = next;
		key = next;
		cur = &key;
	}
	for (unsigned i = 0; i < nstale; i++)
		bpf_map_delete_elem(ap->local_fd, &stale[i]);
	for (unsigned i = 0; i < n; i++) {
		uint32_t a = htonl(addrs[i]);

		if (bpf_map_update_elem(ap->local_fd, &a, &one, BPF_ANY) != 0)
			return afxdp_fail(p, "adding an own address to the XDP map", errno, NULL);
	}
	return 0;
}

int afxdp_decisions(const struct port *p, struct cg_xdp_ctr out[CG_XDP__MAX])
{
	struct afxdp_port *ap = afxdp_of(p);

	if (!ap)
		return -ENODEV;
	memset(out, 0, sizeof(out[0]) * CG_XDP__MAX);
	for (uint32_t d = 0; d < CG_XDP__MAX; d++) {
		if (bpf_map_lookup_elem(ap->stats_fd, &d, ap->percpu) != 0)
			return -errno;
		for (int c = 0; c < ap->ncpus; c++) {
			out[d].packets += ap->percpu[c].packets;
			out[d].bytes += ap->percpu[c].bytes;
		}
	}
	return 0;
}

void afxdp_counters_add(const struct port *p, struct port_counters *c)
{
	struct cg_xdp_ctr d[CG_XDP__MAX];

	if (afxdp_decisions(p, d) != 0)
		return;
	for (unsigned i = 0; i < CG_XDP__MAX; i++) {
		if (i == CG_XDP_REDIRECT) /* the worker counts what reaches it */
			continue;
		c->rx_packets += d[i].packets;
		c->rx_octets += d[i].bytes;
		if (i == CG_XDP_RUNT)
			c->drops[DROP_L2_RUNT] += d[i].packets;
		else if (i == CG_XDP_OTHER_HOST)
			c->drops[DROP_L2_OTHER_HOST] += d[i].packets;
		else
			c->to_kernel += d[i].packets;
	}
}

void afxdp_punt_counts(const struct port *p, uint64_t *punted, uint64_t *errors)
{
	struct afxdp_port *ap = afxdp_of(p);

	*punted = *errors = 0;
	for (unsigned w = 0; ap && w < WORKER_MAX; w++) {
		*punted += CTR_READ(ap->punted[w]);
		*errors += CTR_READ(ap->punt_errors[w]);
	}
}

const char *afxdp_queue_mode(const struct port *p, unsigned qid)
{
	if (p->ops != &port_afxdp_ops || qid >= p->nqueues || !p->queues[qid])
		return NULL;
	return p->queues[qid]->zerocopy ? "zero-copy" : "copy";
}

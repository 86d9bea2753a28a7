/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp driver's maps seen from the control thread: the router's own
 * IPv4 and IPv6 addresses (written), the program's decision counters (read and folded
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

static bool afxdp_key_in(const void *key, const uint8_t *keys, unsigned n, size_t ksize)
{
	for (unsigned i = 0; i < n; i++)
		if (memcmp(key, keys + i * ksize, ksize) == 0)
			return true;
	return false;
}

/* Make the hash map `fd` hold exactly the n keys of ksize bytes (at most CG_XDP_LOCAL*_MAX). */
static int afxdp_keys_replace(struct port *p, int fd, const uint8_t *keys, unsigned n, size_t ksize)
{
	uint8_t key[16], next[16], stale[CG_XDP_LOCAL6_MAX][16];
	unsigned nstale = 0;
	uint8_t one = 1;
	void *cur = NULL;

	/* Collect first: deleting while walking with get_next_key could restart the walk. */
	while (nstale < CG_XDP_LOCAL6_MAX && bpf_map_get_next_key(fd, cur, next) == 0) {
		if (!afxdp_key_in(next, keys, n, ksize))
			memcpy(stale[nstale++], next, ksize);
		memcpy(key, next, ksize);
		cur = key;
	}
	for (unsigned i = 0; i < nstale; i++)
		bpf_map_delete_elem(fd, stale[i]);
	for (unsigned i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, keys + i * ksize, &one, BPF_ANY) != 0)
			return afxdp_fail(p, "adding an own address to the XDP map", errno, NULL);
	return 0;
}

int afxdp_local_set(struct port *p, const uint32_t *addrs, unsigned n)
{
	struct afxdp_port *ap = afxdp_of(p);
	uint32_t be[CG_XDP_LOCAL_MAX];

	if (!ap)
		return -ENODEV;
	if (n > CG_XDP_LOCAL_MAX)
		return afxdp_fail(p, "own addresses", E2BIG, "more than the program's map holds");
	for (unsigned i = 0; i < n; i++)
		be[i] = htonl(addrs[i]);
	return afxdp_keys_replace(p, ap->local_fd, (const uint8_t *)be, n, sizeof(be[0]));
}

int afxdp_local6_set(struct port *p, const uint8_t (*addrs)[16], unsigned n)
{
	struct afxdp_port *ap = afxdp_of(p);
	int err;

	if (!ap)
		return -ENODEV;
	if (n > CG_XDP_LOCAL6_MAX)
		return afxdp_fail(p, "own IPv6 addresses", E2BIG,
		                  "more than the program's map holds");
	err = afxdp_keys_replace(p, ap->local6_fd, (const uint8_t *)addrs, n, 16);
	/*
	 * Only now, with the program knowing which IPv6 is the router's, may it
	 * redirect transit IPv6 (before: all IPv6 to the kernel). A failed update
	 * leaves it off: the kernel answering for a missing address beats the
	 * worker punting it.
	 */
	if (!err)
		ap->local6_filled = true;
	if (!err && ap->ipv6 != port_ip6_on(p)) {
		ap->ipv6 = port_ip6_on(p);
		err = afxdp_conf_write(ap);
	}
	return err;
}

int afxdp_ipv6_set(struct port *p, bool on)
{
	struct afxdp_port *ap = afxdp_of(p);
	/* On only once cg_local6 was filled (afxdp_local6_set says why). */
	bool want = on && ap && ap->local6_filled;

	if (!ap)
		return -ENODEV;
	if (ap->ipv6 == want)
		return 0;
	ap->ipv6 = want;
	return afxdp_conf_write(ap);
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
		if (i == CG_XDP_REDIRECT || i == CG_XDP_REDIRECT6) /* the worker counts those */
			continue;
		c->rx_packets += d[i].packets;
		c->rx_octets += d[i].bytes;
		if (CG_XDP_IS_PASS6(i)) {
			/* IPv6 octets without the Ethernet header; every such frame has one. */
			c->ip6_in_packets += d[i].packets;
			c->ip6_in_octets += d[i].bytes - 14 * d[i].packets;
			c->ip6_to_kernel += d[i].packets;
		}
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

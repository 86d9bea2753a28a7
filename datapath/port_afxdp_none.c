/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "afxdp" driver in a build without libxdp/libbpf or without a clang that
 * targets BPF (configure says which): the name is known, so a configuration
 * naming it loads, but every port open fails with a clear reason and
 * `driver auto` takes afpacket.
 */
#include <errno.h>
#include <string.h>

#include "datapath/port_afxdp.h"
#include "lib/log.h"

bool afxdp_built(void)
{
	return false;
}

static int afxdp_none_open(struct port *p, unsigned qid, unsigned nqueues, struct port_queue **out)
{
	log_warnx("port %s (netdev %s): driver afxdp: built without libxdp (configure found no "
	          "libxdp-dev, libbpf-dev or clang -target bpf): use driver afpacket",
	          p->name, p->netdev);
	*out = NULL;
	return -ENOTSUP;
}

static void afxdp_none_close(struct port_queue *q)
{
}

static unsigned afxdp_none_rx(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	return 0;
}

static void afxdp_none_release(struct port_queue *q)
{
}

static unsigned afxdp_none_tx(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	return 0;
}

static int afxdp_none_flush(struct port_queue *q)
{
	return 0;
}

static int afxdp_none_fd(const struct port_queue *q)
{
	return -1;
}

static int afxdp_none_drops(struct port_queue *q, uint64_t *drops)
{
	*drops = 0;
	return 0;
}

const struct port_ops port_afxdp_ops = {
    .driver = "afxdp",
    .queue_open = afxdp_none_open,
    .queue_close = afxdp_none_close,
    .rx_burst = afxdp_none_rx,
    .rx_release = afxdp_none_release,
    .tx_burst = afxdp_none_tx,
    .tx_flush = afxdp_none_flush,
    .rx_fd = afxdp_none_fd,
    .queue_ring_drops = afxdp_none_drops,
};

int afxdp_local_set(struct port *p, const uint32_t *addrs, unsigned n)
{
	return -ENODEV;
}

int afxdp_local6_set(struct port *p, const uint8_t (*addrs)[16], unsigned n)
{
	return -ENODEV;
}

int afxdp_ipv6_set(struct port *p, bool on)
{
	return -ENODEV;
}

int afxdp_decisions(const struct port *p, struct cg_xdp_ctr out[CG_XDP__MAX])
{
	memset(out, 0, sizeof(out[0]) * CG_XDP__MAX);
	return -ENODEV;
}

void afxdp_counters_add(const struct port *p, struct port_counters *c)
{
}

void afxdp_punt_counts(const struct port *p, uint64_t *punted, uint64_t *errors)
{
	*punted = *errors = 0;
}

const char *afxdp_queue_mode(const struct port *p, unsigned qid)
{
	return NULL;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "cellpw" port driver, setup half: open the AF_PACKET queue on the
 * carrier netdev, allocate the per-VC reassembly and shaping buffers, build
 * the VPI/VCI lookup. The per-burst work is in port_cellpw_rx.c and
 * port_cellpw_tx.c, OAM and InATMARP in port_atm_ctl.c (shared with atmsock).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "datapath/port_cellpw.h"

static inline struct cellpw_queue *CQ(struct port_queue *q)
{
	return (struct cellpw_queue *)(void *)q;
}

/* With a concatenation timer, a partial frame waits for more cells (cellpw_service). */
static void cellpw_ops_push(struct atm_portq *q)
{
	struct cellpw_queue *c = (struct cellpw_queue *)(void *)q;

	cellpw_tx_push(c, c->set->concat_us == 0);
}

static const struct atm_portq_ops cellpw_atm_ops = {
    .vc_send = cellpw_vc_send,
    .oam_send = cellpw_oam_send,
    .tx_push = cellpw_ops_push,
};

static void cellpw_queue_close(struct port_queue *q)
{
	struct cellpw_queue *c = CQ(q);

	if (!c)
		return;
	if (c->carrier)
		c->set->carrier_ops->queue_close(c->carrier);
	for (unsigned i = 0; c->aq.vcset && i < c->aq.vcset->nvcs; i++)
		atm_vc_release(&c->set->vcs[c->aq.vcset->ids[i]]);
	atm_portq_fini(&c->aq);
	free(c->sdu_buf);
	free(c->tx_buf);
	free(c->seg_buf);
	free(c);
}

int cellpw_vc_open(struct cellpw_queue *c, uint16_t id)
{
	struct atm_vc *vc = &c->set->vcs[id];
	uint32_t max_sdu = atm_vc_max_sdu(&vc->cfg);
	uint32_t cap = aal5_cells_for(max_sdu) * ATM_CELL_PAYLOAD;

	/*
	 * The port's SDU, segmentation and host-ring buffers hold CELLPW_SDU_MAX
	 * (RFC 2225's 9180 and an LLC/SNAP header): a larger MTU would overrun
	 * them. The schema bounds the MTU as well; this guard is the datapath's own.
	 */
	if (vc->cfg.mtu < 68 || vc->cfg.mtu > CELLPW_MTU_MAX)
		return -EINVAL;
	/* A slot used before starts over: runtime state, counters, no loopback in flight. */
	atm_vc_reset(vc);
	vc->rx_buf = malloc(cap);
	if (!vc->rx_buf)
		return -ENOMEM;
	aal5_reasm_init(&vc->rx, vc->rx_buf, cap, max_sdu);
	if (vc->cfg.pcr) {
		vc->shape_q = malloc((size_t)vc->cfg.queue_cells * ATM_PW_CELL_SIZE);
		if (!vc->shape_q) {
			atm_vc_release(vc);
			return -ENOMEM;
		}
		/* A burst of one frame's worth of cells keeps frames full without exceeding PCR
		 * over any interval longer than that burst. */
		atm_shaper_init(&vc->shaper, vc->cfg.pcr, c->set->max_cells);
	}
	return 0;
}

static int cellpw_queue_open(struct port *p, unsigned qid, unsigned nqueues,
                             struct port_queue **out)
{
	struct cellpw_settings *set = p->drv;
	struct cellpw_queue *c;
	struct port *carrier;

	if (set && !set->carrier_ops)
		set->carrier_ops = &port_afpacket_ops;
	int err;

	if (!set) {
		log_warnx("port %s: driver cellpw: no pseudowire settings", p->name);
		return -EINVAL;
	}
	if (qid != 0 || nqueues != 1) {
		log_warnx("port %s: driver cellpw: an ATM port is served by one worker "
		          "(system/workers must be 1)",
		          p->name);
		return -EINVAL;
	}
	/* A frame is the carrier's Ethernet header and at most its MTU: the kernel refuses
	 * to send more (EMSGSIZE), so every full frame would be lost. */
	unsigned hdr = set->encap.control_word ? PW_HDR_MAX : PW_HDR_NO_CW;
	unsigned fit =
	    14 + set->carrier_mtu > hdr ? (14 + set->carrier_mtu - hdr) / ATM_PW_CELL_SIZE : 0;
	if (set->max_cells > fit || set->max_cells == 0 || set->max_cells > CELLPW_MAX_CELLS) {
		log_warnx("port %s: driver cellpw: %u cells per frame do not fit carrier %s "
		          "(mtu %u): at most %u",
		          p->name, set->max_cells, set->carrier, set->carrier_mtu,
		          fit < CELLPW_MAX_CELLS ? fit : CELLPW_MAX_CELLS);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->set = set;
	err = atm_portq_init(&c->aq, p, &cellpw_atm_ops, set->vcs, set->ip4_of_subif);
	c->aq.ip6_of_subif = set->ip6_of_subif;
	c->sdu_buf = malloc((size_t)BURST_MAX * CELLPW_RXBUF_SZ);
	c->tx_buf = malloc((size_t)CELLPW_TX_FRAMES * CELLPW_FRAME_MAX);
	c->seg_buf = malloc((size_t)CELLPW_SEG_CELLS * ATM_PW_CELL_SIZE);
	if (err || !c->sdu_buf || !c->tx_buf || !c->seg_buf) {
		err = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < CELLPW_TX_FRAMES; i++) {
		c->tx_pkt[i].data = c->tx_buf + (size_t)i * CELLPW_FRAME_MAX;
		c->tx_pkt[i].in_port = p->id;
		c->tx_ptr[i] = &c->tx_pkt[i];
	}
	for (unsigned i = 0; i < set->nvcs; i++) {
		if ((err = cellpw_vc_open(c, set->vc_ids[i])) != 0) {
			log_warnx("port %s: VC %u/%u: %s", p->name,
			          set->vcs[set->vc_ids[i]].cfg.vpi,
			          set->vcs[set->vc_ids[i]].cfg.vci,
			          err == -EINVAL ? "MTU outside 68..9180, the SDU buffers' size"
			                         : "out of memory for its buffers");
			/* Those opened so far are not in a set yet: close cannot find them. */
			for (unsigned j = 0; j < i; j++)
				atm_vc_release(&set->vcs[set->vc_ids[j]]);
			goto fail;
		}
	}
	/* No worker runs this queue yet: a plain store publishes the first set. */
	if (!(c->aq.vcset = atm_vcset_build(&c->aq, set->vc_ids, set->nvcs))) {
		for (unsigned i = 0; i < set->nvcs; i++)
			atm_vc_release(&set->vcs[set->vc_ids[i]]);
		err = -ENOMEM;
		goto fail;
	}
	/* The carrier is an ordinary afpacket queue on the Ethernet netdev. */
	carrier = &c->carrier_port;
	*carrier = (struct port){.id = p->id,
	                         .ifindex = set->carrier_ifindex,
	                         .mtu = set->carrier_mtu,
	                         .settings = p->settings,
	                         .ops = set->carrier_ops};
	snprintf(carrier->name, sizeof(carrier->name), "%s", p->name);
	snprintf(carrier->netdev, sizeof(carrier->netdev), "%s", set->carrier);
	memcpy(carrier->mac, set->carrier_mac, 6);
	carrier->settings.promiscuous = false;
	if ((err = set->carrier_ops->queue_open(carrier, 0, 1, &c->carrier)) != 0)
		goto fail;
	*out = (struct port_queue *)(void *)c;
	return 0;
fail:
	cellpw_queue_close((struct port_queue *)(void *)c);
	return err;
}

struct cellpw_queue *cellpw_queue_of(struct port *p)
{
	return p->nqueues ? CQ(p->queues[0]) : NULL;
}

static void cellpw_rx_release(struct port_queue *q)
{
	(void)q; /* SDUs are copies; carrier blocks go back as soon as they are parsed */
}

static unsigned cellpw_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	/* Nothing forwards to the ATM port itself, only to its subinterfaces. */
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

static int cellpw_tx_flush(struct port_queue *q)
{
	cellpw_tx_push(CQ(q), true);
	return 0;
}

static int cellpw_rx_fd(const struct port_queue *q)
{
	const struct cellpw_queue *c = (const struct cellpw_queue *)(const void *)q;

	return c->set->carrier_ops->rx_fd(c->carrier);
}

static uint64_t cellpw_port_service(struct port_queue *q, uint64_t now_ns, bool busy)
{
	struct cellpw_queue *c = CQ(q);

	c->aq.now_us = now_ns / 1000;
	return cellpw_service(c, cellpw_vcset_load(c), busy);
}

static int cellpw_wake_fd(const struct port_queue *q)
{
	return ((const struct atm_portq *)(const void *)q)->wake_fd;
}

static int cellpw_ring_drops(struct port_queue *q, uint64_t *drops)
{
	return CQ(q)->set->carrier_ops->queue_ring_drops(CQ(q)->carrier, drops);
}

const struct port_ops port_cellpw_ops = {
    .driver = "cellpw",
    .queue_open = cellpw_queue_open,
    .queue_close = cellpw_queue_close,
    .rx_burst = cellpw_rx_burst,
    .rx_release = cellpw_rx_release,
    .tx_burst = cellpw_tx_burst,
    .tx_flush = cellpw_tx_flush,
    .rx_fd = cellpw_rx_fd,
    .service = cellpw_port_service,
    .wake_fd = cellpw_wake_fd,
    .queue_ring_drops = cellpw_ring_drops,
};

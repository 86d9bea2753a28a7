/*
 * The "cellpw" port driver, setup half: open the AF_PACKET queue on the
 * carrier netdev, allocate the per-VC reassembly and shaping buffers, build
 * the VPI/VCI lookup. The per-burst work is in port_cellpw_rx.c and
 * port_cellpw_tx.c, OAM and InATMARP in port_cellpw_ctl.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "datapath/port_cellpw.h"

static inline struct cellpw_queue *CQ(struct port_queue *q)
{
	return (struct cellpw_queue *)(void *)q;
}

static uint32_t vc_key(uint16_t vpi, uint16_t vci)
{
	return (uint32_t)vpi << 16 | vci;
}

static unsigned vc_slot(uint32_t key)
{
	return (key * 2654435761u) >> 22; /* CELLPW_VC_HASH = 1024 */
}

struct atm_vc *cellpw_vc_find(const struct cellpw_queue *c, const struct cellpw_vcset *vs,
                              uint16_t vpi, uint16_t vci, uint16_t *vc_id)
{
	uint32_t key = vc_key(vpi, vci);

	for (unsigned i = vc_slot(key), n = 0; n < CELLPW_VC_HASH;
	     i = (i + 1) & (CELLPW_VC_HASH - 1), n++) {
		if (vs->key[i] == key) {
			*vc_id = vs->val[i];
			return &c->set->vcs[*vc_id];
		}
		if (vs->key[i] == 0)
			return NULL;
	}
	return NULL;
}

static void vc_hash_add(struct cellpw_vcset *vs, uint16_t vpi, uint16_t vci, uint16_t id)
{
	uint32_t key = vc_key(vpi, vci);
	unsigned i = vc_slot(key);

	while (vs->key[i] != 0)
		i = (i + 1) & (CELLPW_VC_HASH - 1);
	vs->key[i] = key;
	vs->val[i] = id;
}

struct cellpw_vcset *cellpw_vcset_build(const struct cellpw_queue *c, const uint16_t *ids,
                                        unsigned n)
{
	struct cellpw_vcset *vs;

	if (n > CELLPW_PORT_VCS || !(vs = calloc(1, sizeof(*vs))))
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		const struct atm_vc *vc = &c->set->vcs[ids[i]];

		vs->ids[vs->nvcs++] = ids[i];
		vs->has[ids[i]] = 1;
		vc_hash_add(vs, vc->cfg.vpi, vc->cfg.vci, ids[i]);
	}
	return vs;
}

struct cellpw_vcset *cellpw_vcset_swap(struct cellpw_queue *c, struct cellpw_vcset *next)
{
	struct cellpw_vcset *old = c->vcset;

	/* Everything next names (its VCs' buffers and state) was written before this store. */
	__atomic_store_n(&c->vcset, next, __ATOMIC_RELEASE);
	return old;
}

void cellpw_vc_release(struct atm_vc *vc)
{
	free(vc->rx_buf);
	free(vc->shape_q);
	vc->rx_buf = NULL;
	vc->shape_q = NULL;
}

static void cellpw_queue_close(struct port_queue *q)
{
	struct cellpw_queue *c = CQ(q);

	if (!c)
		return;
	if (c->carrier)
		c->set->carrier_ops->queue_close(c->carrier);
	for (unsigned i = 0; c->vcset && i < c->vcset->nvcs; i++)
		cellpw_vc_release(&c->set->vcs[c->vcset->ids[i]]);
	free(c->vcset);
	free(c->sdu_buf);
	free(c->tx_buf);
	free(c->seg_buf);
	free(c->host);
	free(c->events);
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	free(c);
}

/* The largest SDU a VC reassembles: its IP MTU plus the RFC 2684 header. */
static uint32_t vc_max_sdu(const struct atm_vc *vc)
{
	return vc->cfg.mtu + (vc->cfg.encap == VC_ENCAP_LLC_SNAP ? 8 : 0);
}

int cellpw_vc_open(struct cellpw_queue *c, uint16_t id)
{
	struct atm_vc *vc = &c->set->vcs[id];
	uint32_t max_sdu = vc_max_sdu(vc);
	uint32_t cap = aal5_cells_for(max_sdu) * ATM_CELL_PAYLOAD;

	/* A slot used before starts over: runtime state, counters, no loopback in flight. */
	memset(&vc->rx, 0, offsetof(struct atm_vc, cap) - offsetof(struct atm_vc, rx));
	vc->cap_flush_ms = 0;
	memset(&vc->ctr, 0, sizeof(vc->ctr));
	vc->oper_change_ms = 0;
	vc->ping_req = 0;
	vc->rx_buf = malloc(cap);
	if (!vc->rx_buf)
		return -ENOMEM;
	aal5_reasm_init(&vc->rx, vc->rx_buf, cap, max_sdu);
	if (vc->cfg.pcr) {
		vc->shape_q = malloc((size_t)vc->cfg.queue_cells * ATM_PW_CELL_SIZE);
		if (!vc->shape_q) {
			cellpw_vc_release(vc);
			return -ENOMEM;
		}
		/* A burst of one frame's worth of cells keeps frames full without exceeding PCR
		 * over any interval longer than that burst. */
		atm_shaper_init(&vc->shaper, vc->cfg.pcr, c->set->max_cells);
	}
	vc->oper = VC_OPER_UP;
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
	c->port = p;
	c->set = set;
	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->wake_fd < 0) {
		err = -errno;
		log_warn("port %s: driver cellpw: host ring eventfd", p->name);
		goto fail;
	}
	c->sdu_buf = malloc((size_t)BURST_MAX * CELLPW_RXBUF_SZ);
	c->tx_buf = malloc((size_t)CELLPW_TX_FRAMES * CELLPW_FRAME_MAX);
	c->seg_buf = malloc((size_t)CELLPW_SEG_CELLS * ATM_PW_CELL_SIZE);
	c->host = calloc(1, sizeof(*c->host));
	c->events = calloc(1, sizeof(*c->events));
	if (!c->sdu_buf || !c->tx_buf || !c->seg_buf || !c->host || !c->events) {
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
			log_warnx("port %s: VC %u/%u: out of memory for its buffers", p->name,
			          set->vcs[set->vc_ids[i]].cfg.vpi,
			          set->vcs[set->vc_ids[i]].cfg.vci);
			/* Those opened so far are not in a set yet: close cannot find them. */
			for (unsigned j = 0; j < i; j++)
				cellpw_vc_release(&set->vcs[set->vc_ids[j]]);
			goto fail;
		}
	}
	/* No worker runs this queue yet: a plain store publishes the first set. */
	if (!(c->vcset = cellpw_vcset_build(c, set->vc_ids, set->nvcs))) {
		for (unsigned i = 0; i < set->nvcs; i++)
			cellpw_vc_release(&set->vcs[set->vc_ids[i]]);
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

struct event_ring *cellpw_events(struct port *p)
{
	struct cellpw_queue *c = cellpw_queue_of(p);

	return c ? c->events : NULL;
}

bool cellpw_host_tx(struct port *atm_port, uint16_t vc, const uint8_t *ip, size_t len)
{
	struct cellpw_queue *c = cellpw_queue_of(atm_port);
	struct host_ring *r;

	/* Only a VC of this port, and only what a slot holds. */
	if (!c || len == 0 || len > HOST_RING_BUF || vc >= VC_MAX || !c->vcset->has[vc])
		return false;
	r = c->host;
	uint32_t head = r->head, tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (head - tail >= HOST_RING_SLOTS)
		return false;
	struct host_slot *s = &r->slot[head % HOST_RING_SLOTS];
	s->vc = vc;
	s->len = (uint16_t)len;
	memcpy(s->data, ip, len);
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	/*
	 * The worker may be asleep: wake it. Every time, not only when the ring
	 * was empty, so no push can fall between its last look and its sleep.
	 * The host path carries the router's own traffic, one write per packet
	 * is the control thread's, never the worker's.
	 */
	uint64_t one = 1;
	ssize_t w = write(c->wake_fd, &one, sizeof(one));
	(void)w; /* fails only with the counter at its maximum: readable already */
	return true;
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

	c->now_us = now_ns / 1000;
	return cellpw_service(c, cellpw_vcset_load(c), busy);
}

static int cellpw_wake_fd(const struct port_queue *q)
{
	return ((const struct cellpw_queue *)(const void *)q)->wake_fd;
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

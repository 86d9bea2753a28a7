/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ATM port core both ATM drivers share (see port_atm.h): the published
 * VC sets, the host ring, and the per-SDU work between RFC 2684 and the
 * worker's synthetic Ethernet frames, in both directions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "datapath/port_atm.h"

enum rfc2684_encap atm_vc_rfc2684(const struct atm_vc *vc)
{
	switch (vc->cfg.encap) {
	case VC_ENCAP_VCMUX_IPV4:
		return RFC2684_VCMUX_IPV4;
	case VC_ENCAP_VCMUX_IPV6:
		return RFC2684_VCMUX_IPV6;
	case VC_ENCAP_LLC_BRIDGED:
		return RFC2684_LLC_BRIDGED;
	case VC_ENCAP_VCMUX_BRIDGED:
		return RFC2684_VCMUX_BRIDGED;
	default:
		return RFC2684_LLC_ROUTED;
	}
}

uint32_t atm_vc_max_sdu(const struct atm_vc_cfg *cfg)
{
	switch (cfg->encap) {
	case VC_ENCAP_LLC_SNAP:
		return cfg->mtu + RFC2684_LLC_LEN;
	case VC_ENCAP_LLC_BRIDGED:
		return cfg->mtu + 10 + RFC2684_ETH_LEN;
	case VC_ENCAP_VCMUX_BRIDGED:
		return cfg->mtu + 2 + RFC2684_ETH_LEN;
	default:
		return cfg->mtu;
	}
}

int atm_portq_init(struct atm_portq *q, struct port *p, const struct atm_portq_ops *ops,
                   struct atm_vc *vcs, const uint32_t *ip4_of_subif)
{
	q->port = p;
	q->ops = ops;
	q->vcs = vcs;
	q->ip4_of_subif = ip4_of_subif;
	q->timers_next_ms = UINT64_MAX;
	q->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->wake_fd < 0)
		return -errno;
	q->host = calloc(1, sizeof(*q->host));
	q->events = calloc(1, sizeof(*q->events));
	return q->host && q->events ? 0 : -ENOMEM;
}

void atm_portq_fini(struct atm_portq *q)
{
	free(q->vcset);
	free(q->host);
	free(q->events);
	if (q->wake_fd >= 0)
		close(q->wake_fd);
	q->vcset = NULL;
	q->host = NULL;
	q->events = NULL;
	q->wake_fd = -1;
}

struct atm_portq *atm_portq_of(struct port *p)
{
	/* Both drivers' queues start with their struct atm_portq. */
	if ((p->ops != &port_cellpw_ops && p->ops != &port_atmsock_ops) || !p->nqueues)
		return NULL;
	return (struct atm_portq *)(void *)p->queues[0];
}

struct event_ring *atm_events(struct port *p)
{
	struct atm_portq *q = atm_portq_of(p);

	return q ? q->events : NULL;
}

static uint32_t vc_key(uint16_t vpi, uint16_t vci)
{
	return (uint32_t)vpi << 16 | vci;
}

static unsigned vc_slot(uint32_t key)
{
	return (key * 2654435761u) >> 22; /* ATM_VC_HASH = 1024 */
}

struct atm_vc *atm_vc_find(const struct atm_portq *q, const struct atm_vcset *vs, uint16_t vpi,
                           uint16_t vci, uint16_t *vc_id)
{
	uint32_t key = vc_key(vpi, vci);

	for (unsigned i = vc_slot(key), n = 0; n < ATM_VC_HASH;
	     i = (i + 1) & (ATM_VC_HASH - 1), n++) {
		if (vs->key[i] == key) {
			*vc_id = vs->val[i];
			return &q->vcs[*vc_id];
		}
		if (vs->key[i] == 0)
			return NULL;
	}
	return NULL;
}

struct atm_vcset *atm_vcset_build(const struct atm_portq *q, const uint16_t *ids, unsigned n)
{
	struct atm_vcset *vs;

	if (n > ATM_PORT_VCS || !(vs = calloc(1, sizeof(*vs))))
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		const struct atm_vc *vc = &q->vcs[ids[i]];
		uint32_t key = vc_key(vc->cfg.vpi, vc->cfg.vci);
		unsigned s = vc_slot(key);

		vs->ids[vs->nvcs++] = ids[i];
		vs->has[ids[i]] = 1;
		while (vs->key[s] != 0)
			s = (s + 1) & (ATM_VC_HASH - 1);
		vs->key[s] = key;
		vs->val[s] = ids[i];
	}
	return vs;
}

struct atm_vcset *atm_vcset_swap(struct atm_portq *q, struct atm_vcset *next)
{
	struct atm_vcset *old = q->vcset;

	/* Everything next names (its VCs' buffers and state) was written before this store. */
	__atomic_store_n(&q->vcset, next, __ATOMIC_RELEASE);
	return old;
}

void atm_vc_reset(struct atm_vc *vc)
{
	/* Everything from the reassembly state to the capture is the previous VC's. */
	memset(&vc->rx, 0, offsetof(struct atm_vc, cap) - offsetof(struct atm_vc, rx));
	vc->cap_flush_ms = 0;
	memset(&vc->ctr, 0, sizeof(vc->ctr));
	vc->oper_change_ms = 0;
	vc->ping_req = 0;
	vc->oper = VC_OPER_UP;
}

void atm_vc_release(struct atm_vc *vc)
{
	free(vc->rx_buf);
	free(vc->shape_q);
	vc->rx_buf = NULL;
	vc->shape_q = NULL;
}

bool atm_host_tx(struct port *atm_port, uint16_t vc, const uint8_t *ip, size_t len)
{
	struct atm_portq *q = atm_portq_of(atm_port);
	struct host_ring *r;

	/* Only a VC of this port, and only what a slot holds. */
	if (!q || len == 0 || len > ATM_HOST_BUF || vc >= VC_MAX || !q->vcset->has[vc])
		return false;
	r = q->host;
	uint32_t head = r->head, tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (head - tail >= ATM_HOST_SLOTS)
		return false;
	struct host_slot *s = &r->slot[head % ATM_HOST_SLOTS];
	s->vc = vc;
	s->len = (uint16_t)len;
	memcpy(s->data, ip, len);
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	/*
	 * The worker may be asleep: wake it. Every time, not only when the ring
	 * was empty, so no push can fall between its last look and its sleep.
	 * The host path carries the router's own traffic; the write per packet
	 * is the control thread's, never the worker's.
	 */
	uint64_t one = 1;
	ssize_t w = write(q->wake_fd, &one, sizeof(one));
	(void)w; /* fails only with the counter at its maximum: readable already */
	return true;
}

static void vc_discard(struct atm_vc *vc, enum vc_drop_reason r)
{
	CTR_ADD(vc->ctr.discards[r], 1);
}

/*
 * Bridged (RFC 2684 5.2/6.2): the frame is Ethernet from the far end's MAC.
 * Unicast to another MAC is not ours; the far end's MAC is what our frames
 * go to; ARP is answered here. True when the payload goes on to the worker.
 */
static bool bridged_rx(struct atm_portq *q, uint16_t vc_id, struct atm_vc *vc, const uint8_t *eth,
                       size_t frame_len, uint16_t type)
{
	if (!(eth[0] & 1) && memcmp(eth, q->port->mac, 6) != 0) {
		vc_discard(vc, VC_DROP_NOT_FOR_US);
		return false;
	}
	if (!(eth[6] & 1) && (!vc->peer_mac_known || memcmp(vc->peer_mac, eth + 6, 6) != 0)) {
		memcpy(vc->peer_mac, eth + 6, 6);
		vc->peer_mac_known = true;
	}
	if (type == 0x0806) {
		atm_bridged_arp_rx(q, vc_id, eth, frame_len);
		return false;
	}
	return type != 0x86dd || !atm_bridged_nd_rx(q, vc_id, eth, frame_len);
}

bool atm_sdu_rx(struct atm_portq *q, uint16_t vc_id, uint8_t *sdu, size_t len, uint16_t *ethertype,
                size_t *hdr_len)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	enum rfc2684_encap e = atm_vc_rfc2684(vc);
	int err;

	CTR_ADD(vc->ctr.pdus_in, 1);
	CTR_ADD(vc->ctr.octets_in, len);
	struct pcap_sunatm *cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE); /* once: see vc.h */
	if (cap)
		atm_capture(vc, cap, false, sdu, len);
	err = rfc2684_decap(e, sdu, len, ethertype, hdr_len);
	if (err) {
		vc_discard(vc, err == RFC2684_ERR_SHORT ? VC_DROP_SHORT : VC_DROP_UNKNOWN_LLC);
		return false;
	}
	if (e == RFC2684_LLC_BRIDGED || e == RFC2684_VCMUX_BRIDGED)
		return bridged_rx(q, vc_id, vc, sdu + *hdr_len - RFC2684_ETH_LEN,
		                  len - *hdr_len + RFC2684_ETH_LEN, *ethertype);
	if (*ethertype == 0x0806) {
		atm_inatmarp_rx(q, vc_id, sdu + *hdr_len, len - *hdr_len);
		return false;
	}
	return true;
}

void atm_frame(const struct atm_portq *q, uint16_t vc_id, uint8_t *l3, uint32_t l3_len,
               uint16_t ethertype, struct pkt *pkt)
{
	uint8_t *eth = l3 - 14;

	memcpy(eth, q->port->mac, 6); /* as if addressed to us */
	vc_mac_make(vc_id, eth + 6);
	eth[12] = (uint8_t)(ethertype >> 8);
	eth[13] = (uint8_t)ethertype;
	*pkt = (struct pkt){.data = eth,
	                    .len = 14 + l3_len,
	                    .in_port = q->vcs[vc_id].cfg.subif,
	                    .l2_class = PKT_L2_HOST,
	                    .vc = vc_id};
}

int atm_vc_send_eth(struct atm_portq *q, uint16_t vc_id, const uint8_t *dst, uint16_t type,
                    const uint8_t *l3, size_t len)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	uint8_t hdr[ATM_ENCAP_HDR_MAX];
	size_t h = rfc2684_bridged_hdr(atm_vc_rfc2684(vc), hdr);

	memcpy(hdr + h, dst, 6);
	memcpy(hdr + h + 6, q->port->mac, 6);
	hdr[h + 12] = (uint8_t)(type >> 8);
	hdr[h + 13] = (uint8_t)type;
	return q->ops->vc_send(q, vc_id, hdr, h + RFC2684_ETH_LEN, l3, len);
}

int atm_vc_send_l3(struct atm_portq *q, uint16_t vc_id, uint16_t type, const uint8_t *l3,
                   size_t len)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct atm_vc *vc = &q->vcs[vc_id];
	const uint8_t *llc;

	switch (vc->cfg.encap) {
	case VC_ENCAP_LLC_SNAP:
		if (!(llc = rfc2684_llc_header(type))) {
			vc_discard(vc, VC_DROP_UNKNOWN_LLC);
			return VC_DROP_UNKNOWN_LLC;
		}
		return q->ops->vc_send(q, vc_id, llc, RFC2684_LLC_LEN, l3, len);
	case VC_ENCAP_VCMUX_IPV4:
	case VC_ENCAP_VCMUX_IPV6:
		/* RFC 2684 6.1: a VC-mux VC carries its one protocol only. */
		if (type != (vc->cfg.encap == VC_ENCAP_VCMUX_IPV4 ? 0x0800 : 0x86dd)) {
			vc_discard(vc, VC_DROP_UNKNOWN_LLC);
			return VC_DROP_UNKNOWN_LLC;
		}
		return q->ops->vc_send(q, vc_id, NULL, 0, l3, len);
	default:
		/* Until the far end's MAC is known (its first frame), to everyone on the VC. */
		return atm_vc_send_eth(q, vc_id, vc->peer_mac_known ? vc->peer_mac : bcast, type,
		                       l3, len);
	}
}

int atm_tx_drop(int vc_reason)
{
	switch (vc_reason) {
	case VC_DROP_VC_DOWN:
		return DROP_LINK_DOWN;
	case VC_DROP_TOO_BIG:
		return DROP_MTU_EXCEEDED;
	case VC_DROP_QUEUE_FULL:
	case VC_DROP_TX_FULL:
		return DROP_TX_FULL;
	default:
		/* VC_DROP_UNKNOWN_LLC: the VC carries no such protocol. */
		return DROP_NO_ROUTE;
	}
}

void atm_host_ring_run(struct atm_portq *q, const struct atm_vcset *vs)
{
	struct host_ring *r = q->host;
	uint32_t tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	if (tail == head)
		return;
	for (; tail != head; tail++) {
		struct host_slot *s = &r->slot[tail % ATM_HOST_SLOTS];

		CTR_ADD(q->ctr.host_tx, 1);
		/* Queued for a VC deleted since: its buffers may be gone. */
		if (!vs->has[s->vc]) {
			CTR_ADD(q->ctr.host_tx_drops, 1);
			continue;
		}
		atm_vc_send_l3(q, s->vc, (s->data[0] >> 4) == 6 ? 0x86DD : 0x0800, s->data, s->len);
	}
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
}

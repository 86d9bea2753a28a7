/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "atmsub" port: an ATM subinterface (point-to-point or multipoint) as
 * the forwarding path sees it, on either ATM driver (cellpw, atmsock: both
 * through port_atm.h). It owns IPv4 addresses and routes like any
 * port; frames the worker sends to it leave on one of its VCs:
 * point-to-point, the one VC; multipoint, the VC named by the next hop's
 * synthetic MAC (InATMARP or the static map put it there). Frames the worker
 * leaves to the kernel are written to the subinterface's TUN, so the kernel
 * (and FRR) see the router's own traffic on it. It receives nothing itself:
 * the ATM port below delivers SDUs with in_port set to the subinterface.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datapath/atm/rfc2684.h"
#include "datapath/port_atm.h"
#include "datapath/port_cellpw.h"
#include "lib/clock.h"
#include "lib/log.h"

struct atmsub_queue {
	struct port *port;
	struct atmsub_settings *set;
	struct atm_portq *atm;
	int refused; /* why tx_burst last stopped (enum drop_reason) */
};

static inline struct atmsub_queue *SQ(struct port_queue *q)
{
	return (struct atmsub_queue *)(void *)q;
}

static int atmsub_queue_open(struct port *p, unsigned qid, unsigned nqueues,
                             struct port_queue **out)
{
	struct atmsub_settings *set = p->drv;
	struct atmsub_queue *s;

	(void)nqueues;
	if (!set || !set->atm_port || qid != 0) {
		log_warnx("port %s: driver atmsub: no ATM port below, or more than one worker",
		          p->name);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->port = p;
	s->set = set;
	s->atm = atm_portq_of(set->atm_port);
	if (!s->atm) {
		log_warnx("port %s: ATM port %s is not open", p->name, set->atm_port->name);
		free(s);
		return -ENODEV;
	}
	*out = (struct port_queue *)(void *)s;
	return 0;
}

static void atmsub_queue_close(struct port_queue *q)
{
	free(SQ(q));
}

static unsigned atmsub_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	(void)q;
	(void)pkts;
	(void)max;
	return 0;
}

static void atmsub_rx_release(struct port_queue *q)
{
	(void)q;
}

/*
 * The VC a frame for this subinterface leaves on, or -1. A next hop may still
 * name a VC deleted at runtime (until the neighbour code forgets it): only a
 * VC of the current set counts, so nothing goes to a slot being freed.
 */
static int atmsub_vc(const struct atmsub_queue *s, const struct atm_vcset *vs,
                     const struct pkt *p)
{
	int vc;

	if (s->set->p2p)
		return s->set->p2p_vc;
	vc = vc_mac_vc(p->data);
	if (vc < 0 || vc >= VC_MAX || !vs->has[vc] || s->atm->vcs[vc].cfg.subif != s->port->id)
		return -1;
	return vc;
}

/*
 * Octets of the L3 packet in a frame. A short packet arrives padded to the
 * 60-octet Ethernet minimum, and the padding is no part of it: carried in the
 * SDU it would cost cells and reach the far end as trailing garbage.
 */
static uint32_t l3_len(const struct pkt *p, uint16_t type)
{
	const uint8_t *l3 = p->data + 14;
	uint32_t avail = p->len - 14, n = avail;

	if (type == 0x0800 && avail >= 20)
		n = (uint32_t)(l3[2] << 8 | l3[3]);
	else if (type == 0x86dd && avail >= 40)
		n = 40 + (uint32_t)(l3[4] << 8 | l3[5]);
	return n && n <= avail ? n : avail;
}

/* One frame down its VC: -1 if it was accepted, else the port drop reason. */
static int atmsub_send(struct atmsub_queue *s, const struct atm_vcset *vs, const struct pkt *p)
{
	int vc = atmsub_vc(s, vs, p), r;
	uint16_t type = (uint16_t)(p->data[12] << 8 | p->data[13]);

	if (vc < 0) {
		CTR_ADD(s->atm->ctr.no_vc, 1);
		return DROP_ARP_FAILED;
	}
	r = atm_vc_send_l3(s->atm, (uint16_t)vc, type, p->data + 14, l3_len(p, type));
	return r < 0 ? -1 : atm_tx_drop(r);
}

/*
 * Accepted: the frame is on its VC (cellpw: in the frame being filled or
 * the VC's shaping queue; atmsock: staged for the VC's sendmmsg). A frame a
 * VC refuses ends the burst there, with its reason for tx_refused; the
 * caller goes on with the rest.
 */
static unsigned atmsub_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	struct atmsub_queue *s = SQ(q);
	const struct atm_vcset *vs = atm_vcset_load(s->atm); /* once per burst */

	/* The time a frame started here begins to wait for more cells. */
	s->atm->now_us = mono_us();
	for (unsigned i = 0; i < n; i++) {
		int r = atmsub_send(s, vs, pkts[i]);

		if (r >= 0) {
			s->refused = r;
			return i;
		}
	}
	return n;
}

static int atmsub_tx_refused(struct port_queue *q, const struct pkt *p)
{
	(void)p;
	return SQ(q)->refused;
}

/*
 * Before the worker queues a frame here: a VC to send it on, and that VC up.
 * Refused here, the worker answers with the ICMP error of the reason (host
 * unreachable: no VC for the next hop; net unreachable: the VC is down).
 */
static int atmsub_tx_check(struct port_queue *q, const struct pkt *p)
{
	struct atmsub_queue *s = SQ(q);
	int vc = atmsub_vc(s, atm_vcset_load(s->atm), p);

	if (vc < 0) {
		CTR_ADD(s->atm->ctr.no_vc, 1);
		return DROP_ARP_FAILED;
	}
	struct atm_vc *v = &s->atm->vcs[vc];
	if (__atomic_load_n(&v->oper, __ATOMIC_RELAXED) != VC_OPER_UP) {
		CTR_ADD(v->ctr.discards[VC_DROP_VC_DOWN], 1);
		return DROP_LINK_DOWN;
	}
	return -1;
}

static int atmsub_tx_flush(struct port_queue *q)
{
	struct atm_portq *aq = SQ(q)->atm;

	aq->ops->tx_push(aq);
	return 0;
}

static int atmsub_rx_fd(const struct port_queue *q)
{
	(void)q;
	return -1; /* nothing to wait for: the ATM port's carrier wakes the worker */
}

static int atmsub_ring_drops(struct port_queue *q, uint64_t *drops)
{
	(void)q;
	*drops = 0;
	return 0;
}

static void atmsub_punt(struct port_queue *q, const struct pkt *p)
{
	struct atmsub_queue *s = SQ(q);

	/* The TUN takes the IP packet (IFF_NO_PI: the version nibble says v4/v6). */
	if (p->len > 14 &&
	    write(s->set->tun_fd, p->data + 14, p->len - 14) == (ssize_t)(p->len - 14))
		CTR_ADD(s->atm->ctr.punted, 1);
	else
		CTR_ADD(s->atm->ctr.punt_errors, 1);
}

const struct port_ops port_atmsub_ops = {
    .driver = "atmsub",
    .queue_open = atmsub_queue_open,
    .queue_close = atmsub_queue_close,
    .rx_burst = atmsub_rx_burst,
    .rx_release = atmsub_rx_release,
    .tx_burst = atmsub_tx_burst,
    .tx_refused = atmsub_tx_refused,
    .tx_check = atmsub_tx_check,
    .tx_flush = atmsub_tx_flush,
    .rx_fd = atmsub_rx_fd,
    .queue_ring_drops = atmsub_ring_drops,
    .punt = atmsub_punt,
};

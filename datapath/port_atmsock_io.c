/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The atmsock driver's hot path: whole AAL5 SDUs in and out of PF_ATMPVC
 * sockets. RX: one epoll_wait per burst finds the VCs with data, recvmmsg
 * takes several SDUs from each in one call, and each becomes a frame in
 * place (the slot's headroom takes the synthetic Ethernet header). TX: SDUs
 * are copied into slots as the worker hands them over and leave with one
 * sendmmsg per VC run at the end of the burst. Once per worker pass, the
 * service op (port.h) runs what the cellpw driver also runs there: the host
 * ring and the per-VC timers, whose next deadline bounds the worker's sleep.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* recvmmsg, sendmmsg */
#endif
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>

#include "datapath/atm/aal5.h"
#include "datapath/port_atmsock_priv.h"
#include "lib/clock.h"

static inline uint8_t *rx_slot(const struct atmsock_queue *q, unsigned i)
{
	return q->rx_buf + (size_t)i * ATMSOCK_RX_SLOT + ATMSOCK_RX_HEADROOM;
}

static void vc_discard(struct atm_vc *vc, enum vc_drop_reason r)
{
	CTR_ADD(vc->ctr.discards[r], 1);
}

/*
 * The kernel shut the VC's socket: its interface went away (atm_dev
 * deregistered). It stays shut: out of the epoll set (or it would wake the
 * worker forever), oper down, counted, and the control thread is told.
 */
static void vc_lost(struct atmsock_queue *q, uint16_t id)
{
	epoll_ctl(q->epfd, EPOLL_CTL_DEL, q->fd[id], NULL);
	CTR_ADD(q->aq.ctr.vc_lost, 1);
	atm_vc_set_oper(&q->aq, id, VC_OPER_DOWN);
}

/* One SDU in slot i of VC id: a frame in pkts[*n] if it carries a packet. */
static void rx_sdu(struct atmsock_queue *q, uint16_t id, unsigned i, struct pkt *pkts, unsigned *n)
{
	struct atm_vc *vc = &q->aq.vcs[id];
	const struct msghdr *m = &q->rx_msg[i].msg_hdr;
	uint32_t len = q->rx_msg[i].msg_len;
	uint8_t *sdu = rx_slot(q, i);
	uint16_t type;
	size_t hlen;

	/* The adapter did the SAR: the cells it took are derived, for ATM2-MIB. */
	CTR_ADD(vc->ctr.cells_in, aal5_cells_for(len));
	CTR_ADD(vc->ctr.clp0_cells_in, aal5_cells_for(len));
	if (len == 0) {
		vc_discard(vc, VC_DROP_ABORT); /* I.363.5: Length 0 aborts the PDU */
		return;
	}
	if ((m->msg_flags & MSG_TRUNC) || len > atm_vc_max_sdu(&vc->cfg)) {
		vc_discard(vc, VC_DROP_OVERSIZE);
		return;
	}
	if (!atm_sdu_rx(&q->aq, id, sdu, len, &type, &hlen))
		return;
	atm_frame(&q->aq, id, sdu + hlen, len - (uint32_t)hlen, type, &pkts[*n]);
	(*n)++;
}

/*
 * Up to `room` SDUs of VC id into the slots from *slots on; frames appended
 * at pkts + *n. Slots are not frames: an SDU that makes none still used one.
 */
static void rx_vc(struct atmsock_queue *q, uint16_t id, uint32_t events, struct pkt *pkts,
                  unsigned *n, unsigned *slots, unsigned room)
{
	unsigned first = *slots;
	int got = 0;

	for (unsigned i = 0; i < room; i++) {
		q->rx_iov[first + i] = (struct iovec){.iov_base = rx_slot(q, first + i),
		                                      .iov_len = ATMSOCK_SDU_MAX + 1};
		q->rx_msg[first + i] = (struct mmsghdr){
		    .msg_hdr = {.msg_iov = &q->rx_iov[first + i], .msg_iovlen = 1}};
	}
	/* A shut socket reads as empty forever: take nothing from it. */
	if (!(events & (EPOLLHUP | EPOLLERR)))
		got = recvmmsg(q->fd[id], &q->rx_msg[first], room, MSG_DONTWAIT, NULL);
	else
		vc_lost(q, id);
	for (int i = 0; i < got; i++)
		rx_sdu(q, id, first + (unsigned)i, pkts, n);
	if (got > 0)
		*slots += (unsigned)got;
}

/*
 * Level-triggered epoll hands back a VC that still has data after the ones
 * that became ready since, so one busy VC cannot starve the others.
 */
unsigned atmsock_rx_burst(struct port_queue *pq, struct pkt *pkts, unsigned max)
{
	struct atmsock_queue *q = atmsock_q(pq);
	const struct atm_vcset *vs = atm_vcset_load(&q->aq); /* once per burst */
	struct epoll_event ev[BURST_MAX];
	unsigned n = 0, slots = 0;
	int ready;

	if (max > BURST_MAX)
		max = BURST_MAX;
	q->aq.now_us = mono_us();
	ready = epoll_wait(q->epfd, ev, (int)max, 0);
	for (int i = 0; i < ready && slots < max; i++) {
		uint32_t id = ev[i].data.u32;

		/* Added but not yet published, or deleted since: not ours to read. */
		if (id < VC_MAX && vs->has[id])
			rx_vc(q, (uint16_t)id, ev[i].events, pkts, &n, &slots, max - slots);
	}
	/* What the SDUs answered (InATMARP, ARP) leaves now, not at the pass's end. */
	atmsock_tx_push(&q->aq);
	return n;
}

/*
 * Once per worker pass: the kernel's packets for the VCs, then the VC
 * timers (InATMARP/ARP, on-demand pings answered "not done", capture
 * flushes; the adapter reassembles and OAM is not ours), then whatever
 * they queued goes out. Nothing waits past the pass, so the next deadline
 * is the timers' own.
 */
uint64_t atmsock_service(struct port_queue *pq, uint64_t now_ns, bool busy)
{
	struct atmsock_queue *q = atmsock_q(pq);
	const struct atm_vcset *vs = atm_vcset_load(&q->aq);
	uint64_t next;

	(void)busy;
	q->aq.now_us = now_ns / 1000;
	atm_host_ring_run(&q->aq, vs);
	next = atm_timers_service(&q->aq, vs);
	atmsock_tx_push(&q->aq);
	return next;
}

int atmsock_wake_fd(const struct port_queue *q)
{
	return ((const struct atm_portq *)(const void *)q)->wake_fd;
}

/* The slots are reused by the next burst: nothing to hand back. */
void atmsock_rx_release(struct port_queue *q)
{
	(void)q;
}

/*
 * Accepted here is staged: a refusal at sendmmsg (the socket's queue full,
 * the VC gone) is counted on the VC by tx_account, after the worker counted
 * the frame sent, as a NIC's own drops are.
 */
int atmsock_vc_send(struct atm_portq *aq, uint16_t id, const uint8_t *prefix, size_t prefix_len,
                    const uint8_t *sdu, size_t len)
{
	struct atmsock_queue *q = (struct atmsock_queue *)(void *)aq;
	struct atm_vc *vc = &aq->vcs[id];
	size_t total = prefix_len + len;

	if (__atomic_load_n(&vc->oper, __ATOMIC_RELAXED) != VC_OPER_UP || q->fd[id] < 0) {
		vc_discard(vc, VC_DROP_VC_DOWN);
		return VC_DROP_VC_DOWN;
	}
	if (total == 0 || total > atm_vc_max_sdu(&vc->cfg) || total > ATMSOCK_SDU_MAX) {
		vc_discard(vc, VC_DROP_TOO_BIG);
		return VC_DROP_TOO_BIG;
	}
	if (q->tx_n == ATMSOCK_TX_BATCH)
		atmsock_tx_push(aq);
	/* A copy: the caller's buffer (a frame, a host ring slot) is reused after this. */
	uint8_t *slot = q->tx_iov[q->tx_n].iov_base;
	if (prefix_len)
		memcpy(slot, prefix, prefix_len);
	memcpy(slot + prefix_len, sdu, len);
	q->tx_iov[q->tx_n].iov_len = total;
	q->tx_vc[q->tx_n++] = id;
	return -1;
}

/* Messages [from, to) of one VC went (sent of them) or did not, with errno err. */
static void tx_account(struct atmsock_queue *q, unsigned from, unsigned to, unsigned sent, int err)
{
	struct atm_vc *vc = &q->aq.vcs[q->tx_vc[from]];

	for (unsigned i = from; i < from + sent; i++) {
		size_t len = q->tx_iov[i].iov_len;
		struct pcap_sunatm *cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE); /* vc.h */

		CTR_ADD(vc->ctr.pdus_out, 1);
		CTR_ADD(vc->ctr.octets_out, len);
		CTR_ADD(vc->ctr.cells_out, aal5_cells_for((uint32_t)len));
		CTR_ADD(vc->ctr.clp0_cells_out, aal5_cells_for((uint32_t)len));
		if (cap)
			atm_capture(vc, cap, true, q->tx_iov[i].iov_base, len);
	}
	if (from + sent < to)
		CTR_ADD(vc->ctr.discards[err == EAGAIN || err == ENOBUFS ? VC_DROP_TX_FULL
		                                                         : VC_DROP_VC_DOWN],
		        to - from - sent);
}

void atmsock_tx_push(struct atm_portq *aq)
{
	struct atmsock_queue *q = (struct atmsock_queue *)(void *)aq;
	unsigned i = 0;

	while (i < q->tx_n) {
		unsigned j = i + 1;
		int sent, err = 0;

		while (j < q->tx_n && q->tx_vc[j] == q->tx_vc[i])
			j++;
		/* MSG_NOSIGNAL: a socket the kernel shut raises SIGPIPE otherwise. */
		sent =
		    sendmmsg(q->fd[q->tx_vc[i]], &q->tx_msg[i], j - i, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (sent < 0) {
			err = errno;
			sent = 0;
		} else if ((unsigned)sent < j - i) {
			err = EAGAIN; /* sendmmsg stops at the first message the socket refuses */
		}
		tx_account(q, i, j, (unsigned)sent, err);
		i = j;
	}
	q->tx_n = 0;
}

/*
 * Frames routed to the port itself (its VCs have no subinterface): the VC is
 * the one the next hop's synthetic MAC names. A frame without a VC, or one
 * its VC refuses, ends the burst there with its reason for tx_refused, as
 * on a subinterface (port_atmsub.c).
 */
unsigned atmsock_tx_burst(struct port_queue *pq, struct pkt *const *pkts, unsigned n)
{
	struct atmsock_queue *q = atmsock_q(pq);
	const struct atm_vcset *vs = atm_vcset_load(&q->aq);

	for (unsigned i = 0; i < n; i++) {
		const struct pkt *p = pkts[i];
		int vc = p->len > 14 ? vc_mac_vc(p->data) : -1, r;

		if (vc < 0 || vc >= VC_MAX || !vs->has[vc]) {
			CTR_ADD(q->aq.ctr.no_vc, 1);
			q->refused = DROP_ARP_FAILED;
			return i;
		}
		r = atm_vc_send_l3(&q->aq, (uint16_t)vc, (uint16_t)(p->data[12] << 8 | p->data[13]),
		                   p->data + 14, p->len - 14);
		if (r >= 0) {
			q->refused = atm_tx_drop(r);
			return i;
		}
	}
	return n;
}

int atmsock_tx_refused(struct port_queue *q, const struct pkt *p)
{
	(void)p;
	return atmsock_q(q)->refused;
}

int atmsock_tx_flush(struct port_queue *q)
{
	atmsock_tx_push(&atmsock_q(q)->aq);
	return 0;
}

/* Readable when any VC has an SDU (or was shut). */
int atmsock_rx_fd(const struct port_queue *q)
{
	return ((const struct atmsock_queue *)(const void *)q)->epfd;
}

/* The Linux ATM stack counts drops per adapter (ATM_GETSTAT), not per socket. */
int atmsock_queue_ring_drops(struct port_queue *q, uint64_t *drops)
{
	(void)q;
	*drops = 0;
	return 0;
}

/*
 * The atmsock driver's hot path: whole AAL5 SDUs in and out of PF_ATMPVC
 * sockets. One epoll_wait per RX burst finds the VCs with data; recvmmsg then
 * takes several SDUs from each in one call.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* recvmmsg */
#endif
#include <errno.h>
#include <sys/epoll.h>

#include "datapath/port_atmsock_priv.h"

static inline uint8_t *atmsock_slot(const struct port_queue *q, unsigned i)
{
	return q->rx_buf + (size_t)i * ATMSOCK_RX_SLOT + ATMSOCK_RX_HEADROOM;
}

/* Up to `room` SDUs of VC `vc` into pkts, from slot `first` on; how many. */
static unsigned atmsock_rx_vc(struct port_queue *q, unsigned vc, struct pkt *pkts, unsigned first,
                              unsigned room)
{
	unsigned n = 0;
	int got;

	for (unsigned i = 0; i < room; i++) {
		q->rx_iov[first + i] = (struct iovec){.iov_base = atmsock_slot(q, first + i),
		                                      .iov_len = ATM_MAX_AAL5_PDU};
		q->rx_msg[first + i] = (struct mmsghdr){
		    .msg_hdr = {.msg_iov = &q->rx_iov[first + i], .msg_iovlen = 1}};
	}
	got = recvmmsg(q->ap->vcs[vc].fd, &q->rx_msg[first], room, MSG_DONTWAIT, NULL);
	for (int i = 0; i < got; i++) {
		/* A closing VC reads as empty; an AAL5 SDU is never empty (length 0 aborts). */
		if (!q->rx_msg[first + i].msg_len)
			continue;
		pkts[n] = (struct pkt){.data = atmsock_slot(q, first + i),
		                       .len = q->rx_msg[first + i].msg_len,
		                       .in_port = q->port_id,
		                       .l2_class = PKT_L2_HOST,
		                       .vc = (uint16_t)vc};
		n++;
	}
	return n;
}

/*
 * Level-triggered epoll hands back a VC that still has data after the ones
 * that became ready since, so one busy VC cannot starve the others.
 */
unsigned atmsock_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	struct epoll_event ev[BURST_MAX];
	unsigned n = 0;
	int ready;

	if (max > BURST_MAX)
		max = BURST_MAX;
	ready = epoll_wait(q->epfd, ev, (int)max, 0);
	for (int i = 0; i < ready && n < max; i++)
		n += atmsock_rx_vc(q, ev[i].data.u32, pkts + n, n, max - n);
	return n;
}

/* The slots are reused by the next burst: nothing to hand back. */
void atmsock_rx_release(struct port_queue *q)
{
}

/*
 * Accepts a prefix of pkts, like the other drivers: it stops at the first SDU
 * addressed to a VC that is not open, longer than the VC's max SDU, or that
 * the socket does not take (send buffer full: EAGAIN/ENOBUFS; VC closed). The
 * caller counts the rest as dropped. Each SDU is one send(): the adapter
 * queues it for segmentation at once, so there is nothing left to flush.
 */
unsigned atmsock_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	const struct atmsock_port *ap = q->ap;
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct pkt *pk = pkts[i];
		const struct atmsock_vc *vc = pk->vc < ap->nvcs ? &ap->vcs[pk->vc] : NULL;

		if (!vc || vc->fd < 0 || pk->len == 0 || pk->len > vc->max_sdu ||
		    send(vc->fd, pk->data, pk->len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			break;
	}
	return i;
}

int atmsock_tx_flush(struct port_queue *q)
{
	return 0;
}

/* Readable when any of this queue's VCs has an SDU. */
int atmsock_rx_fd(const struct port_queue *q)
{
	return q->epfd;
}

/* The Linux ATM stack counts drops per adapter (ATM_GETSTAT), not per socket. */
int atmsock_queue_ring_drops(struct port_queue *q, uint64_t *drops)
{
	*drops = 0;
	return 0;
}

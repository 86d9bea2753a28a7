/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to the atmsock driver: the queue state shared by its halves.
 * Includers define _GNU_SOURCE first (struct mmsghdr).
 */
#ifndef CELLGATE_PORT_ATMSOCK_PRIV_H
#define CELLGATE_PORT_ATMSOCK_PRIV_H

#include <stddef.h>
#include <sys/socket.h>

#include "datapath/port_atm.h"
#include "datapath/port_atmsock.h"

/*
 * An RX slot: headroom, then room for the largest SDU a VC takes (MTU 9180
 * with the longest RFC 2684 header) and one octet more, so a longer one shows
 * as MSG_TRUNC and is counted oversize, never cut and passed on.
 */
#define ATMSOCK_SDU_MAX  (ATM_SDU_MAX + 16)
#define ATMSOCK_RX_SLOT  ((ATMSOCK_RX_HEADROOM + ATMSOCK_SDU_MAX + 1 + 63u) & ~63u)
#define ATMSOCK_TX_SLOT  ((ATMSOCK_SDU_MAX + 63u) & ~63u)
#define ATMSOCK_TX_BATCH BURST_MAX /* SDUs staged per sendmmsg round */

struct atmsock_queue {
	struct atm_portq aq; /* first: what both ATM drivers share (port_atm.h) */
	struct atmsock_settings *set;

	/* RX: touched every burst. */
	int epfd;        /* the sockets of the VCs; epoll data is the VC id */
	uint8_t *rx_buf; /* BURST_MAX slots of ATMSOCK_RX_SLOT bytes */
	struct mmsghdr rx_msg[BURST_MAX];
	struct iovec rx_iov[BURST_MAX];

	/*
	 * Per VC id: its connected PF_ATMPVC socket, -1 = none. Written by the
	 * control thread before a set naming the VC is published, cleared
	 * after the grace period that follows its removal.
	 */
	int fd[VC_MAX];

	/* TX: SDUs copied in by vc_send, sent per VC with sendmmsg by tx_push. */
	uint8_t *tx_buf; /* ATMSOCK_TX_BATCH slots of ATMSOCK_TX_SLOT bytes */
	struct mmsghdr tx_msg[ATMSOCK_TX_BATCH];
	struct iovec tx_iov[ATMSOCK_TX_BATCH];
	uint16_t tx_vc[ATMSOCK_TX_BATCH];
	unsigned tx_n;
	int refused; /* why tx_burst last stopped (enum drop_reason) */

	char name[PORT_NAME_MAX]; /* control thread only */
};

static inline struct atmsock_queue *atmsock_q(struct port_queue *q)
{
	return (struct atmsock_queue *)(void *)q;
}

/*
 * "port NAME: driver atmsock: WHAT: strerror(err)", plus what the error
 * usually means here (no ATM in the kernel, no such adapter, VC taken, QoS
 * refused). Returns buf.
 */
const char *atmsock_errmsg(char *buf, size_t len, const char *port, const char *what, int err);

/*
 * port_atmsock.c: a queue with its buffers and epoll set but no VC socket
 * yet (queue_open adds them; unit tests put AF_UNIX sockets there), freed by
 * port_atmsock_ops.queue_close, which also closes every fd[].
 */
int atmsock_queue_alloc(struct port *p, struct atmsock_queue **out);
/* One VC's socket, QoS from its configuration, in the epoll set. */
int atmsock_vc_socket(struct atmsock_queue *q, uint16_t id);

/* port_atmsock_io.c: the per-burst operations (no allocation, lock or log). */
unsigned atmsock_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max);
void atmsock_rx_release(struct port_queue *q);
unsigned atmsock_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n);
int atmsock_tx_refused(struct port_queue *q, const struct pkt *p);
int atmsock_tx_flush(struct port_queue *q);
int atmsock_rx_fd(const struct port_queue *q);
uint64_t atmsock_service(struct port_queue *q, uint64_t now_ns, bool busy);
int atmsock_wake_fd(const struct port_queue *q);
int atmsock_queue_ring_drops(struct port_queue *q, uint64_t *drops);
int atmsock_vc_send(struct atm_portq *aq, uint16_t vc, const uint8_t *prefix, size_t prefix_len,
                    const uint8_t *sdu, size_t len);
void atmsock_tx_push(struct atm_portq *aq);

#endif

/*
 * Private to the atmsock driver: the PVC table and the per-queue state shared
 * by its halves. Includers define _GNU_SOURCE first (struct mmsghdr).
 */
#ifndef CELLGATE_PORT_ATMSOCK_PRIV_H
#define CELLGATE_PORT_ATMSOCK_PRIV_H

#include <stddef.h>
#include <sys/socket.h>

#include "datapath/port_atmsock.h"

/* An RX slot: headroom, then room for the largest AAL5 SDU, so nothing is ever truncated. */
#define ATMSOCK_RX_SLOT ((ATMSOCK_RX_HEADROOM + ATM_MAX_AAL5_PDU + 63u) & ~63u)

struct atmsock_vc {
	uint16_t vpi, vci;
	bool cbr;
	uint32_t pcr;
	uint32_t max_sdu;
	int fd; /* connected PF_ATMPVC socket, -1 until the owning queue opens */
};

/* port->drv. Written by the control thread only before workers start. */
struct atmsock_port {
	int itf;
	unsigned nvcs;
	struct atmsock_vc vcs[ATMSOCK_VC_MAX];
};

struct port_queue {
	/* RX: touched every burst. */
	int epfd; /* the sockets of this queue's VCs; epoll data is the VC index */
	uint16_t port_id;
	uint8_t *rx_buf; /* BURST_MAX slots of ATMSOCK_RX_SLOT bytes */
	struct mmsghdr rx_msg[BURST_MAX];
	struct iovec rx_iov[BURST_MAX];

	/* TX: any VC of the port. Workers only read it. */
	struct atmsock_port *ap;

	/* control thread only */
	char name[PORT_NAME_MAX];
	unsigned qid, nqueues;
};

/*
 * "port NAME: driver atmsock: WHAT: strerror(err)", plus what the error
 * usually means here (no ATM in the kernel, no such adapter, VC taken, QoS
 * refused). Returns buf.
 */
const char *atmsock_errmsg(char *buf, size_t len, const char *port, const char *what, int err);

/* port_atmsock_io.c: the per-burst operations (no allocation, lock or log). */
unsigned atmsock_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max);
void atmsock_rx_release(struct port_queue *q);
unsigned atmsock_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n);
int atmsock_tx_flush(struct port_queue *q);
int atmsock_rx_fd(const struct port_queue *q);
int atmsock_queue_ring_drops(struct port_queue *q, uint64_t *drops);

#endif

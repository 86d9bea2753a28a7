/*
 * The atmsock driver's setup half: the PVC table, opening and closing the
 * PF_ATMPVC sockets, and the messages that say why that failed. The API is
 * described in port_atmsock.h; the per-burst half is port_atmsock_io.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* struct mmsghdr in port_atmsock_priv.h */
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib/log.h"
#include "datapath/port_atmsock_priv.h"

void atmsock_addr(struct sockaddr_atmpvc *sa, int itf, uint16_t vpi, uint16_t vci)
{
	memset(sa, 0, sizeof(*sa));
	sa->sap_family = AF_ATMPVC;
	sa->sap_addr.itf = (short)itf;
	sa->sap_addr.vpi = (short)vpi;
	sa->sap_addr.vci = vci;
}

int atmsock_qos(struct atm_qos *qos, bool cbr, uint32_t pcr, uint32_t max_sdu)
{
	struct atm_trafprm *tp = &qos->txtp;

	if (max_sdu == 0 || max_sdu > ATM_MAX_AAL5_PDU || pcr > INT_MAX || (cbr && !pcr))
		return -EINVAL;
	memset(qos, 0, sizeof(*qos));
	qos->aal = ATM_AAL5;
	tp->traffic_class = cbr ? ATM_CBR : ATM_UBR;
	tp->max_sdu = (int)max_sdu;
	if (cbr)
		tp->pcr = tp->min_pcr = tp->max_pcr = (int)pcr;
	else
		tp->max_pcr = pcr ? (int)pcr : ATM_MAX_PCR;
	/* PVCs are symmetric: the far end sends under the same contract. */
	qos->rxtp = qos->txtp;
	return 0;
}

const char *atmsock_errmsg(char *buf, size_t len, const char *port, const char *what, int err)
{
	const char *hint = "";

	switch (err) {
	case EAFNOSUPPORT:
		hint =
		    ": this kernel has no ATM support (CONFIG_ATM, module atm); use driver cellpw";
		break;
	case ENODEV:
		hint = ": no such ATM interface (see /proc/net/atm/devices)";
		break;
	case EADDRINUSE:
		hint = ": another socket already has this VC";
		break;
	case EINVAL:
		hint = ": the adapter refused the VC or its traffic parameters (service category, "
		       "PCR, SDU size)";
		break;
	default:
		break;
	}
	snprintf(buf, len, "port %s: driver atmsock: %s: %s%s", port, what, strerror(err), hint);
	return buf;
}

/* Log why `what` failed and return -err. */
static int atmsock_fail(const char *port, const char *what, int err)
{
	char msg[512];

	log_warnx("%s", atmsock_errmsg(msg, sizeof(msg), port, what, err));
	return -err;
}

int atmsock_port_init(struct port *p, int itf)
{
	struct atmsock_port *ap;

	if (itf < 0 || itf > SHRT_MAX)
		return -EINVAL;
	if (p->drv)
		return -EBUSY;
	ap = calloc(1, sizeof(*ap));
	if (!ap)
		return -ENOMEM;
	ap->itf = itf;
	p->drv = ap;
	return 0;
}

int atmsock_pvc_add(struct port *p, uint16_t vpi, uint16_t vci, bool cbr, uint32_t pcr,
                    uint32_t max_sdu)
{
	struct atmsock_port *ap = p->drv;
	struct atm_qos qos;
	struct atmsock_vc *vc;

	if (!ap || vpi > ATM_MAX_VPI || vci < ATM_NOT_RSV_VCI ||
	    atmsock_qos(&qos, cbr, pcr, max_sdu))
		return -EINVAL;
	if (p->nqueues)
		return -EBUSY;
	for (unsigned i = 0; i < ap->nvcs; i++)
		if (ap->vcs[i].vpi == vpi && ap->vcs[i].vci == vci)
			return -EEXIST;
	if (ap->nvcs == ATMSOCK_VC_MAX)
		return -ENOSPC;
	vc = &ap->vcs[ap->nvcs];
	*vc = (struct atmsock_vc){
	    .vpi = vpi, .vci = vci, .cbr = cbr, .pcr = pcr, .max_sdu = max_sdu, .fd = -1};
	return (int)ap->nvcs++;
}

void atmsock_port_fini(struct port *p)
{
	free(p->drv);
	p->drv = NULL;
}

/* A PF_ATMPVC socket, or a logged failure: the first thing to fail without kernel ATM. */
static int atmsock_socket(const char *port)
{
	int fd = socket(PF_ATMPVC, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return atmsock_fail(port, "socket(PF_ATMPVC)", errno);
	return fd;
}

/* "PVC vpi/vci on ATM interface N: step" failed. */
static int atmsock_vc_fail(const struct port_queue *q, const struct atmsock_vc *vc,
                           const char *step, int err)
{
	char what[96];

	snprintf(what, sizeof(what), "PVC %u/%u on ATM interface %d: %s", vc->vpi, vc->vci,
	         q->ap->itf, step);
	return atmsock_fail(q->name, what, err);
}

/* QoS before connect: the kernel fixes the traffic contract when the VC opens. */
static int atmsock_vc_open(struct port_queue *q, struct atmsock_vc *vc, unsigned idx)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = idx};
	struct sockaddr_atmpvc sa;
	struct atm_qos qos;
	int fd, err = 0;

	fd = atmsock_socket(q->name);
	if (fd < 0)
		return fd;
	atmsock_qos(&qos, vc->cbr, vc->pcr, vc->max_sdu); /* checked by atmsock_pvc_add */
	atmsock_addr(&sa, q->ap->itf, vc->vpi, vc->vci);
	if (setsockopt(fd, SOL_ATM, SO_ATMQOS, &qos, sizeof(qos)) < 0)
		err = atmsock_vc_fail(q, vc, "SO_ATMQOS", errno);
	else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err = atmsock_vc_fail(q, vc, "connect", errno);
	else if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		err = atmsock_vc_fail(q, vc, "epoll_ctl", errno);
	if (err) {
		close(fd);
		return err;
	}
	vc->fd = fd;
	return 0;
}

/* The VCs queue q receives on: every nqueues-th, from qid. */
static bool atmsock_owns(const struct port_queue *q, unsigned idx)
{
	return idx % q->nqueues == q->qid;
}

static void atmsock_queue_close(struct port_queue *q)
{
	struct atmsock_port *ap;

	if (!q)
		return;
	/* The table is the port's, but only this queue opens and closes these VCs. */
	ap = q->ap;
	for (unsigned i = 0; ap && i < ap->nvcs; i++)
		if (atmsock_owns(q, i) && ap->vcs[i].fd >= 0) {
			close(ap->vcs[i].fd);
			ap->vcs[i].fd = -1;
		}
	if (q->epfd >= 0)
		close(q->epfd);
	free(q->rx_buf);
	free(q);
}

static int atmsock_queue_alloc(struct port *p, unsigned qid, unsigned nqueues,
                               struct port_queue **out)
{
	struct port_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return atmsock_fail(p->name, "queue state", ENOMEM);
	q->epfd = -1;
	q->port_id = p->id;
	q->ap = p->drv;
	q->qid = qid;
	q->nqueues = nqueues;
	snprintf(q->name, sizeof(q->name), "%s", p->name);
	*out = q;
	/* Pages are only backed once an SDU lands in them. */
	q->rx_buf = malloc((size_t)BURST_MAX * ATMSOCK_RX_SLOT);
	if (!q->rx_buf)
		return atmsock_fail(p->name, "RX buffers", ENOMEM);
	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (q->epfd < 0)
		return atmsock_fail(p->name, "epoll_create1", errno);
	return 0;
}

static int atmsock_queue_open(struct port *p, unsigned qid, unsigned nqueues,
                              struct port_queue **out)
{
	struct atmsock_port *ap = p->drv;
	struct port_queue *q = NULL;
	int fd, err;

	if (!ap) {
		log_warnx("port %s: driver atmsock: no ATM interface set (atmsock_port_init)",
		          p->name);
		return -EINVAL;
	}
	/* Even without PVCs: a kernel without ATM must not pass for a working port. */
	fd = atmsock_socket(p->name);
	if (fd < 0)
		return fd;
	close(fd);
	err = atmsock_queue_alloc(p, qid, nqueues, &q);
	for (unsigned i = 0; !err && i < ap->nvcs; i++)
		if (atmsock_owns(q, i))
			err = atmsock_vc_open(q, &ap->vcs[i], i);
	if (err) {
		atmsock_queue_close(q);
		return err;
	}
	p->tx_offload = false;
	log_debug("port %s: queue %u/%u: atm%d, %u of %u PVCs received here", p->name, qid, nqueues,
	          ap->itf, (ap->nvcs + nqueues - 1 - qid) / nqueues, ap->nvcs);
	*out = q;
	return 0;
}

const struct port_ops port_atmsock_ops = {
    .driver = "atmsock",
    .queue_open = atmsock_queue_open,
    .queue_close = atmsock_queue_close,
    .rx_burst = atmsock_rx_burst,
    .rx_release = atmsock_rx_release,
    .tx_burst = atmsock_tx_burst,
    .tx_flush = atmsock_tx_flush,
    .rx_fd = atmsock_rx_fd,
    .queue_ring_drops = atmsock_queue_ring_drops,
};

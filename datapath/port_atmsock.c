/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The atmsock driver's setup half: opening and closing the PF_ATMPVC sockets
 * (at queue_open and for runtime PVC changes), the messages that say why that
 * failed, and the port-owned VC table of a port without subinterfaces. The
 * API is described in port_atmsock.h; the per-burst half is
 * port_atmsock_io.c.
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

#include "datapath/port_atmsock_priv.h"
#include "lib/log.h"

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

/* "PVC vpi/vci on ATM interface N: step" failed. */
static int atmsock_vc_fail(const struct atmsock_queue *q, const struct atm_vc *vc, const char *step,
                           int err)
{
	char what[96];

	snprintf(what, sizeof(what), "PVC %u/%u on ATM interface %d: %s", vc->cfg.vpi, vc->cfg.vci,
	         q->set->itf, step);
	return atmsock_fail(q->name, what, err);
}

/* A PF_ATMPVC socket, or a logged failure: the first thing to fail without kernel ATM. */
static int atmsock_socket(const char *port)
{
	int fd = socket(PF_ATMPVC, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return atmsock_fail(port, "socket(PF_ATMPVC)", errno);
	return fd;
}

/* QoS before connect: the kernel fixes the traffic contract when the VC opens. */
int atmsock_vc_socket(struct atmsock_queue *q, uint16_t id)
{
	const struct atm_vc *vc = &q->set->vcs[id];
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = id};
	struct sockaddr_atmpvc sa;
	struct atm_qos qos;
	int fd, err;

	if (atmsock_qos(&qos, vc->cfg.cbr, vc->cfg.pcr, atm_vc_max_sdu(&vc->cfg)))
		return atmsock_vc_fail(q, vc, "traffic parameters", EINVAL);
	if ((fd = atmsock_socket(q->name)) < 0)
		return fd;
	atmsock_addr(&sa, q->set->itf, vc->cfg.vpi, vc->cfg.vci);
	if (setsockopt(fd, SOL_ATM, SO_ATMQOS, &qos, sizeof(qos)) < 0)
		err = atmsock_vc_fail(q, vc, "SO_ATMQOS", errno);
	else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err = atmsock_vc_fail(q, vc, "connect", errno);
	else if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		err = atmsock_vc_fail(q, vc, "epoll_ctl", errno);
	else
		err = 0;
	if (err) {
		close(fd);
		return err;
	}
	q->fd[id] = fd;
	return 0;
}

static void atmsock_fd_close(struct atmsock_queue *q, uint16_t id)
{
	if (q->fd[id] < 0)
		return;
	epoll_ctl(q->epfd, EPOLL_CTL_DEL, q->fd[id], NULL); /* the worker may have done it */
	close(q->fd[id]);
	q->fd[id] = -1;
}

static struct atmsock_queue *atmsock_queue_of(struct port *p)
{
	return p->ops == &port_atmsock_ops && p->nqueues ? atmsock_q(p->queues[0]) : NULL;
}

int atmsock_vc_open(struct port *p, uint16_t id)
{
	struct atmsock_queue *q = atmsock_queue_of(p);

	if (!q || id >= VC_MAX)
		return -EINVAL;
	atm_vc_reset(&q->set->vcs[id]);
	return atmsock_vc_socket(q, id);
}

void atmsock_vc_close(struct port *p, uint16_t id)
{
	struct atmsock_queue *q = atmsock_queue_of(p);

	if (q && id < VC_MAX)
		atmsock_fd_close(q, id);
}

static const struct atm_portq_ops atmsock_atm_ops = {
    .vc_send = atmsock_vc_send,
    .oam_send = NULL, /* no cell access beside an AAL5 socket: see port_atmsock.h */
    .tx_push = atmsock_tx_push,
};

static void atmsock_queue_close(struct port_queue *pq)
{
	struct atmsock_queue *q = atmsock_q(pq);

	if (!q)
		return;
	for (unsigned i = 0; i < VC_MAX; i++)
		atmsock_fd_close(q, (uint16_t)i);
	if (q->epfd >= 0)
		close(q->epfd);
	atm_portq_fini(&q->aq);
	free(q->rx_buf);
	free(q->tx_buf);
	free(q);
}

int atmsock_queue_alloc(struct port *p, struct atmsock_queue **out)
{
	struct atmsock_settings *set = p->drv;
	struct atmsock_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return atmsock_fail(p->name, "queue state", ENOMEM);
	*out = q;
	q->epfd = -1;
	for (unsigned i = 0; i < VC_MAX; i++)
		q->fd[i] = -1;
	q->set = set;
	snprintf(q->name, sizeof(q->name), "%s", p->name);
	/* Pages are only backed once an SDU lands in them. */
	q->rx_buf = malloc((size_t)BURST_MAX * ATMSOCK_RX_SLOT);
	q->tx_buf = malloc((size_t)ATMSOCK_TX_BATCH * ATMSOCK_TX_SLOT);
	if (atm_portq_init(&q->aq, p, &atmsock_atm_ops, set->vcs, set->ip4_of_subif) ||
	    !q->rx_buf || !q->tx_buf)
		return atmsock_fail(p->name, "buffers", ENOMEM);
	q->aq.ip6_of_subif = set->ip6_of_subif;
	for (unsigned i = 0; i < ATMSOCK_TX_BATCH; i++) {
		q->tx_iov[i].iov_base = q->tx_buf + (size_t)i * ATMSOCK_TX_SLOT;
		q->tx_msg[i].msg_hdr = (struct msghdr){.msg_iov = &q->tx_iov[i], .msg_iovlen = 1};
	}
	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (q->epfd < 0)
		return atmsock_fail(p->name, "epoll_create1", errno);
	return 0;
}

static int atmsock_queue_open(struct port *p, unsigned qid, unsigned nqueues,
                              struct port_queue **out)
{
	struct atmsock_settings *set = p->drv;
	struct atmsock_queue *q = NULL;
	int fd, err;

	if (!set || !set->vcs) {
		log_warnx("port %s: driver atmsock: no ATM interface set up", p->name);
		return -EINVAL;
	}
	/* One writer per VC (AAL5 state, counters), as for cellpw. */
	if (qid != 0 || nqueues != 1) {
		log_warnx("port %s: driver atmsock: an ATM port is served by one worker "
		          "(system/workers must be 1)",
		          p->name);
		return -EINVAL;
	}
	/* Even without PVCs: a kernel without ATM must not pass for a working port. */
	if ((fd = atmsock_socket(p->name)) < 0)
		return fd;
	close(fd);
	err = atmsock_queue_alloc(p, &q);
	for (unsigned i = 0; !err && i < set->nvcs; i++) {
		atm_vc_reset(&set->vcs[set->vc_ids[i]]);
		err = atmsock_vc_socket(q, set->vc_ids[i]);
	}
	/* No worker runs this queue yet: a plain store publishes the first set. */
	if (!err && !(q->aq.vcset = atm_vcset_build(&q->aq, set->vc_ids, set->nvcs)))
		err = atmsock_fail(p->name, "VC set", ENOMEM);
	if (err) {
		atmsock_queue_close((struct port_queue *)(void *)q);
		return err;
	}
	p->tx_offload = false;
	log_debug("port %s: atm%d, %u PVCs", p->name, set->itf, set->nvcs);
	*out = (struct port_queue *)(void *)q;
	return 0;
}

int atmsock_port_init(struct port *p, int itf)
{
	struct atmsock_settings *set;

	if (itf < 0 || itf > SHRT_MAX)
		return -EINVAL;
	if (p->drv)
		return -EBUSY;
	set = calloc(1, sizeof(*set));
	if (!set || !(set->own_vcs = calloc(VC_MAX, sizeof(*set->own_vcs)))) {
		free(set);
		return -ENOMEM;
	}
	set->itf = itf;
	set->vcs = set->own_vcs;
	p->drv = set;
	return 0;
}

int atmsock_pvc_add(struct port *p, uint16_t vpi, uint16_t vci, bool cbr, uint32_t pcr,
                    uint32_t max_sdu)
{
	struct atmsock_settings *set = p->drv;
	struct atm_qos qos;

	if (!set || !set->own_vcs || vpi > ATM_MAX_VPI || vci < ATM_NOT_RSV_VCI ||
	    atmsock_qos(&qos, cbr, pcr, max_sdu))
		return -EINVAL;
	if (p->nqueues)
		return -EBUSY;
	for (unsigned i = 0; i < set->nvcs; i++)
		if (set->vcs[i].cfg.vpi == vpi && set->vcs[i].cfg.vci == vci)
			return -EEXIST;
	if (set->nvcs == ATMSOCK_VC_MAX)
		return -ENOSPC;
	/* Its frames come in on the port itself: there is no subinterface. */
	set->vcs[set->nvcs].cfg = (struct atm_vc_cfg){.atm_port = p->id,
	                                              .subif = p->id,
	                                              .vpi = vpi,
	                                              .vci = vci,
	                                              .encap = VC_ENCAP_VCMUX_IPV4,
	                                              .cbr = cbr,
	                                              .pcr = pcr,
	                                              .mtu = max_sdu};
	set->vc_ids[set->nvcs] = (uint16_t)set->nvcs;
	return (int)set->nvcs++;
}

void atmsock_port_fini(struct port *p)
{
	struct atmsock_settings *set = p->drv;

	if (set && set->own_vcs) {
		free(set->own_vcs);
		free(set);
	}
	p->drv = NULL;
}

const struct port_ops port_atmsock_ops = {
    .driver = "atmsock",
    .queue_open = atmsock_queue_open,
    .queue_close = atmsock_queue_close,
    .rx_burst = atmsock_rx_burst,
    .rx_release = atmsock_rx_release,
    .tx_burst = atmsock_tx_burst,
    .tx_refused = atmsock_tx_refused,
    .tx_flush = atmsock_tx_flush,
    .rx_fd = atmsock_rx_fd,
    .service = atmsock_service,
    .wake_fd = atmsock_wake_fd,
    .queue_ring_drops = atmsock_queue_ring_drops,
};

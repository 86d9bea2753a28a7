/*
 * The atmsock port driver without an ATM adapter: the PVC address and QoS it
 * asks the kernel for, the PVC table, the messages it logs, the burst
 * functions over AF_UNIX datagram sockets standing in for PVC sockets, and,
 * on a kernel without ATM (CONFIG_ATM off, as on Debian's cloud kernels),
 * that queue_open fails and says why. On a kernel with ATM that last check is
 * skipped with a message: it would need an adapter.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* struct mmsghdr in port_atmsock_priv.h */
#endif
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib/log.h"
#include "datapath/port_atmsock_priv.h"
#include "tests/unit/check.h"

static void test_addr(void)
{
	struct sockaddr_atmpvc sa;

	memset(&sa, 0xa5, sizeof(sa));
	atmsock_addr(&sa, 3, 255, 65535);
	CHECK_EQ(sa.sap_family, AF_ATMPVC);
	CHECK_EQ(sa.sap_addr.itf, 3);
	CHECK_EQ(sa.sap_addr.vpi, 255);
	CHECK_EQ(sa.sap_addr.vci, 65535);
	atmsock_addr(&sa, 0, 0, 32);
	CHECK(sa.sap_addr.itf == 0 && sa.sap_addr.vpi == 0 && sa.sap_addr.vci == 32);
}

static bool trafprm_eq(const struct atm_trafprm *a, const struct atm_trafprm *b)
{
	return a->traffic_class == b->traffic_class && a->max_pcr == b->max_pcr &&
	       a->pcr == b->pcr && a->min_pcr == b->min_pcr && a->max_sdu == b->max_sdu &&
	       a->max_cdv == b->max_cdv;
}

static void test_qos(void)
{
	struct atm_qos q;

	CHECK_EQ(atmsock_max_sdu(9180, true), 9188);
	CHECK_EQ(atmsock_max_sdu(1500, false), 1500);

	/* UBR without a PCR: the link rate. */
	CHECK_EQ(atmsock_qos(&q, false, 0, 9188), 0);
	CHECK_EQ(q.aal, ATM_AAL5);
	CHECK_EQ(q.txtp.traffic_class, ATM_UBR);
	CHECK_EQ(q.txtp.max_pcr, ATM_MAX_PCR);
	CHECK_EQ(q.txtp.pcr, 0);
	CHECK_EQ(q.txtp.min_pcr, 0);
	CHECK_EQ(q.txtp.max_sdu, 9188);
	CHECK(trafprm_eq(&q.rxtp, &q.txtp));

	/* UBR shaped: at most the PCR. */
	CHECK_EQ(atmsock_qos(&q, false, 1000, 1500), 0);
	CHECK_EQ(q.txtp.traffic_class, ATM_UBR);
	CHECK_EQ(q.txtp.max_pcr, 1000);
	CHECK_EQ(q.txtp.pcr, 0);
	CHECK_EQ(q.txtp.min_pcr, 0);

	/* CBR: exactly the PCR, and the same contract received. */
	CHECK_EQ(atmsock_qos(&q, true, 4716, 9188), 0);
	CHECK_EQ(q.txtp.traffic_class, ATM_CBR);
	CHECK(q.txtp.pcr == 4716 && q.txtp.min_pcr == 4716 && q.txtp.max_pcr == 4716);
	CHECK(trafprm_eq(&q.rxtp, &q.txtp));

	CHECK_EQ(atmsock_qos(&q, true, 0, 9188), -EINVAL);
	CHECK_EQ(atmsock_qos(&q, false, 0, 0), -EINVAL);
	CHECK_EQ(atmsock_qos(&q, false, 0, ATM_MAX_AAL5_PDU + 1), -EINVAL);
	CHECK_EQ(atmsock_qos(&q, false, 0, ATM_MAX_AAL5_PDU), 0);
	CHECK_EQ(atmsock_qos(&q, true, (uint32_t)INT_MAX + 1, 9188), -EINVAL);
}

static void test_pvc_table(void)
{
	struct port p = {.name = "atm1"};
	struct atmsock_port *ap;
	unsigned n = 2;

	CHECK_EQ(atmsock_pvc_add(&p, 0, 100, false, 0, 9188), -EINVAL); /* no init */
	CHECK_EQ(atmsock_port_init(&p, -1), -EINVAL);
	CHECK_EQ(atmsock_port_init(&p, SHRT_MAX + 1), -EINVAL);
	CHECK_EQ(atmsock_port_init(&p, 2), 0);
	CHECK_EQ(atmsock_port_init(&p, 2), -EBUSY);
	CHECK_EQ(atmsock_pvc_add(&p, 0, 100, false, 0, 9188), 0);
	CHECK_EQ(atmsock_pvc_add(&p, 8, 35, true, 4716, 1500), 1);
	CHECK_EQ(atmsock_pvc_add(&p, 8, 35, false, 0, 1500), -EEXIST);
	CHECK_EQ(atmsock_pvc_add(&p, 256, 100, false, 0, 1500), -EINVAL);
	CHECK_EQ(atmsock_pvc_add(&p, 0, 31, false, 0, 1500), -EINVAL);
	CHECK_EQ(atmsock_pvc_add(&p, 0, 101, true, 0, 1500), -EINVAL);
	ap = p.drv;
	CHECK(ap && ap->itf == 2 && ap->nvcs == 2);
	CHECK(ap && ap->vcs[1].vpi == 8 && ap->vcs[1].vci == 35 && ap->vcs[1].cbr &&
	      ap->vcs[1].pcr == 4716 && ap->vcs[1].max_sdu == 1500 && ap->vcs[1].fd == -1);
	while (atmsock_pvc_add(&p, 1, (uint16_t)(32 + n), false, 0, 1500) >= 0)
		n++;
	CHECK_EQ(n, ATMSOCK_VC_MAX);
	CHECK_EQ(atmsock_pvc_add(&p, 2, 32, false, 0, 1500), -ENOSPC);
	p.nqueues = 1;
	CHECK_EQ(atmsock_pvc_add(&p, 0, 100, false, 0, 1500), -EBUSY);
	atmsock_port_fini(&p);
	CHECK(p.drv == NULL);
	CHECK(port_ops_find("atmsock") == &port_atmsock_ops);
}

static void test_errmsg(void)
{
	char buf[512];

	CHECK(!strcmp(atmsock_errmsg(buf, sizeof(buf), "atm1", "socket(PF_ATMPVC)", EAFNOSUPPORT),
	              "port atm1: driver atmsock: socket(PF_ATMPVC): Address family not supported "
	              "by protocol: this kernel has no ATM support (CONFIG_ATM, module atm); use "
	              "driver cellpw"));
	CHECK(strstr(
	    atmsock_errmsg(buf, sizeof(buf), "a", "PVC 0/100 on ATM interface 3: connect", ENODEV),
	    "PVC 0/100 on ATM interface 3: connect: No such device: no such ATM interface"));
	CHECK(strstr(atmsock_errmsg(buf, sizeof(buf), "a", "connect", EADDRINUSE),
	             ": another socket already has this VC"));
	CHECK(strstr(atmsock_errmsg(buf, sizeof(buf), "a", "SO_ATMQOS", EINVAL),
	             "Invalid argument: the adapter refused"));
	CHECK(!strcmp(atmsock_errmsg(buf, sizeof(buf), "a", "x", EPERM),
	              "port a: driver atmsock: x: Operation not permitted"));
}

/*
 * A queue whose VCs are AF_UNIX datagram sockets: they keep SDU boundaries
 * like PF_ATMPVC ones, so the burst functions run unchanged. far[i] is the
 * far end of VC i.
 */
struct fake {
	struct port p;
	struct port_queue *q;
	int far[3];
};

static int fake_open(struct fake *f)
{
	struct atmsock_port *ap;
	int sv[2];

	memset(f, 0, sizeof(*f));
	f->far[0] = f->far[1] = f->far[2] = -1;
	snprintf(f->p.name, sizeof(f->p.name), "atm9");
	f->p.id = 7;
	if (atmsock_port_init(&f->p, 0) || !(f->q = calloc(1, sizeof(*f->q))))
		return -1;
	ap = f->p.drv;
	f->q->ap = ap;
	f->q->port_id = f->p.id;
	f->q->nqueues = 1;
	f->q->rx_buf = malloc((size_t)BURST_MAX * ATMSOCK_RX_SLOT);
	f->q->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!f->q->rx_buf || f->q->epfd < 0)
		return -1;
	for (unsigned i = 0; i < 3; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};

		if (atmsock_pvc_add(&f->p, 0, (uint16_t)(100 + i), false, 0, 1500) != (int)i ||
		    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
			return -1;
		ap->vcs[i].fd = sv[0];
		f->far[i] = sv[1];
		if (epoll_ctl(f->q->epfd, EPOLL_CTL_ADD, sv[0], &ev) < 0)
			return -1;
	}
	return 0;
}

static void fake_close(struct fake *f)
{
	for (unsigned i = 0; i < 3; i++)
		if (f->far[i] >= 0)
			close(f->far[i]);
	f->p.ops = &port_atmsock_ops;
	if (f->q)
		f->p.ops->queue_close(f->q); /* closes the near ends, as for real sockets */
	atmsock_port_fini(&f->p);
}

static void test_rx(struct fake *f)
{
	struct pkt pk[BURST_MAX];
	unsigned n, seen[3] = {0};
	uint8_t big[9188];

	CHECK_EQ(atmsock_rx_burst(f->q, pk, BURST_MAX), 0);
	memset(big, 0x5a, sizeof(big));
	CHECK(send(f->far[0], "\xaa\xaa\x03\x00\x00\x00\x08\x00", 8, 0) == 8);
	CHECK(send(f->far[2], big, sizeof(big), 0) == (ssize_t)sizeof(big));
	CHECK(send(f->far[2], "x", 1, 0) == 1);
	n = atmsock_rx_burst(f->q, pk, BURST_MAX);
	CHECK_EQ(n, 3);
	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(pk[i].in_port, 7);
		CHECK(pk[i].vc < 3);
		if (pk[i].vc < 3)
			seen[pk[i].vc]++;
		if (pk[i].vc == 0)
			CHECK(pk[i].len == 8 && !memcmp(pk[i].data, "\xaa\xaa\x03", 3));
		if (pk[i].vc == 2 && pk[i].len == sizeof(big))
			CHECK(pk[i].data[9187] == 0x5a);
		/* The headroom is there to write into. */
		pk[i].data[-(int)ATMSOCK_RX_HEADROOM] = 1;
	}
	CHECK(seen[0] == 1 && seen[1] == 0 && seen[2] == 2);
	/* max bounds the burst; the rest waits for the next one. */
	for (int i = 0; i < 5; i++)
		CHECK(send(f->far[1], "y", 1, 0) == 1);
	CHECK_EQ(atmsock_rx_burst(f->q, pk, 2), 2);
	CHECK_EQ(atmsock_rx_burst(f->q, pk, BURST_MAX), 3);
	CHECK_EQ(pk[0].vc, 1);
}

static void test_tx(struct fake *f)
{
	uint8_t sdu[1501] = {0x45}, got[2048];
	struct pkt a = {.data = sdu, .len = 20, .vc = 1}, b = {.data = sdu, .len = 1500, .vc = 2};
	struct pkt big = {.data = sdu, .len = 1501, .vc = 0},
	           nowhere = {.data = sdu, .len = 20, .vc = 3};
	struct pkt *burst[3] = {&a, &b, &a};

	CHECK_EQ(atmsock_tx_burst(f->q, burst, 3), 3);
	CHECK_EQ(recv(f->far[1], got, sizeof(got), MSG_DONTWAIT), 20);
	CHECK_EQ(recv(f->far[2], got, sizeof(got), MSG_DONTWAIT), 1500);
	CHECK_EQ(recv(f->far[1], got, sizeof(got), MSG_DONTWAIT), 20);
	CHECK_EQ(got[0], 0x45);
	CHECK_EQ(atmsock_tx_flush(f->q), 0);
	/* A prefix: it stops at an SDU over the VC's max SDU, or for a VC that does not exist. */
	burst[1] = &big;
	CHECK_EQ(atmsock_tx_burst(f->q, burst, 3), 1);
	burst[0] = &nowhere;
	CHECK_EQ(atmsock_tx_burst(f->q, burst, 3), 0);
	CHECK_EQ(recv(f->far[1], got, sizeof(got), MSG_DONTWAIT), 20);
	CHECK_EQ(recv(f->far[0], got, sizeof(got), MSG_DONTWAIT), -1);
}

static void test_bursts(void)
{
	struct fake f;
	uint64_t drops = 1;

	if (fake_open(&f) < 0) {
		CHECK(!"fake PVC sockets");
		fake_close(&f);
		return;
	}
	test_rx(&f);
	test_tx(&f);
	CHECK_EQ(atmsock_rx_fd(f.q), f.q->epfd);
	CHECK(atmsock_queue_ring_drops(f.q, &drops) == 0 && drops == 0);
	fake_close(&f);
}

/* stderr into a temporary file while fn runs; what was written, or NULL. */
static char *capture_stderr(int (*fn)(struct port *), struct port *p, int *rc)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	char *out = NULL;
	long len;

	if (!tmp || saved < 0)
		return NULL;
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	*rc = fn(p);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	len = ftell(tmp);
	if (len >= 0 && (out = calloc(1, (size_t)len + 1))) {
		rewind(tmp);
		if (fread(out, 1, (size_t)len, tmp) != (size_t)len)
			out[0] = '\0';
	}
	fclose(tmp);
	return out;
}

static int open_queue(struct port *p)
{
	struct port_queue *q = NULL;
	int rc = port_atmsock_ops.queue_open(p, 0, 1, &q);

	if (!rc)
		port_atmsock_ops.queue_close(q);
	return rc;
}

static void test_open_errors(void)
{
	struct port p = {.name = "atm1", .ops = &port_atmsock_ops};
	char *msg;
	int rc = 0, fd;

	log_init("test_atmsock", true, 0);
	msg = capture_stderr(open_queue, &p, &rc);
	CHECK_EQ(rc, -EINVAL);
	CHECK(msg && strstr(msg, "port atm1: driver atmsock: no ATM interface set"));
	free(msg);

	fd = socket(PF_ATMPVC, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		printf("SKIP: this kernel has ATM sockets: the no-ATM error is not checked\n");
		return;
	}
	CHECK_EQ(errno, EAFNOSUPPORT);
	CHECK_EQ(atmsock_port_init(&p, 0), 0);
	CHECK_EQ(atmsock_pvc_add(&p, 0, 100, false, 0, 9188), 0);
	msg = capture_stderr(open_queue, &p, &rc);
	CHECK_EQ(rc, -EAFNOSUPPORT);
	CHECK(msg && strstr(msg, "port atm1: driver atmsock: socket(PF_ATMPVC): Address family "
	                         "not supported by protocol: this kernel has no ATM support "
	                         "(CONFIG_ATM, module atm); use driver cellpw"));
	if (msg)
		fputs(msg, stdout); /* what the operator reads, in the test log */
	free(msg);
	/* Also with no PVC: such a port must not come up on this kernel. */
	atmsock_port_fini(&p);
	CHECK_EQ(atmsock_port_init(&p, 0), 0);
	msg = capture_stderr(open_queue, &p, &rc);
	CHECK_EQ(rc, -EAFNOSUPPORT);
	free(msg);
	atmsock_port_fini(&p);
}

int main(void)
{
	test_addr();
	test_qos();
	test_pvc_table();
	test_errmsg();
	test_bursts();
	test_open_errors();
	return check_report("test_atmsock");
}

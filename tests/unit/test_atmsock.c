/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The atmsock port driver without an ATM adapter: the PVC address and QoS it
 * asks the kernel for, the port-owned PVC table, the messages it logs, and,
 * on a kernel without ATM (CONFIG_ATM off, as on Debian's cloud kernels),
 * that queue_open fails and says why. On a kernel with ATM that last check is
 * skipped with a message: it would need an adapter (the VM lab, tests/vm/,
 * runs the driver on one). The bursts are test_atmsock_io.c's.
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
	struct port p = {.name = "atm1", .id = 5};
	struct atmsock_settings *set;
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
	set = p.drv;
	CHECK(set && set->itf == 2 && set->nvcs == 2 && set->vcs == set->own_vcs);
	if (set) {
		const struct atm_vc_cfg *c = &set->vcs[1].cfg;
		/* No subinterface: the VC ends on the port, VC-mux IPv4 of MTU max_sdu. */
		CHECK(c->vpi == 8 && c->vci == 35 && c->cbr && c->pcr == 4716 && c->mtu == 1500);
		CHECK(c->subif == 5 && c->atm_port == 5 && c->encap == VC_ENCAP_VCMUX_IPV4);
		CHECK(set->vc_ids[0] == 0 && set->vc_ids[1] == 1);
	}
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
	CHECK(msg && strstr(msg, "port atm1: driver atmsock: no ATM interface set up"));
	free(msg);
	/* One worker serves an ATM port, as for cellpw. */
	CHECK_EQ(atmsock_port_init(&p, 0), 0);
	CHECK_EQ(port_atmsock_ops.queue_open(&p, 1, 2, &(struct port_queue *){NULL}), -EINVAL);
	atmsock_port_fini(&p);

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
	test_open_errors();
	return check_report("test_atmsock");
}

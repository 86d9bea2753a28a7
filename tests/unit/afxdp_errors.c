/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the afxdp driver refuses, and how it recovers (see test_afxdp.c): a
 * netdev without native XDP, MTUs a single-buffer program cannot take,
 * queues the netdev does not have or another socket holds, someone else's
 * XDP program, and a process killed while holding the port. Last, what still
 * works once the process runs as the daemon does after -u: an ordinary uid
 * with CAP_NET_ADMIN and CAP_NET_RAW only.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cap-ng.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "tests/unit/afxdp_test.h"

static int open_err(struct port *p, unsigned qid, unsigned nq, struct port_queue **q)
{
	*q = NULL;
	return p->ops->queue_open(p, qid, nq, q);
}

void test_no_native_xdp(void)
{
	struct port br = tport;
	struct port_queue *q;
	int err;

	/* A bridge is an Ethernet netdev without ndo_bpf. */
	br.drv = NULL;
	snprintf(br.netdev, sizeof(br.netdev), "cgb0");
	CHECK(system("ip link add cgb0 type bridge && ip link set cgb0 up") == 0, "bridge netdev");
	CHECK(netdev_lookup("cgb0", &br.ifindex, br.mac, &br.mtu) == 0, "lookup cgb0");
	err = open_err(&br, 0, 1, &q);
	CHECK(err == -EOPNOTSUPP && !q && !br.drv, "bridge has no native XDP: %d", err);
	CHECK(system("ip link del cgb0") == 0, "remove cgb0");
}

static void set_mtu(unsigned mtu)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set " DEV0 " mtu %u && ip link set " DEV1 " mtu %u",
	         mtu, mtu);
	CHECK(system(cmd) == 0, "%s", cmd);
	CHECK(netdev_lookup(DEV0, &tport.ifindex, tport.mac, &tport.mtu) == 0 && tport.mtu == mtu,
	      "mtu %u", mtu);
}

void test_mtu_limits(void)
{
	struct port_queue *q;
	uint32_t id = 1;
	int err;

	/* Beyond one 4 KiB chunk: refused before anything is attached. */
	set_mtu(9000);
	err = open_err(&tport, 0, 1, &q);
	CHECK(err == -EMSGSIZE && !q, "MTU 9000: %d", err);
	/* Fits a chunk, but veth takes single-buffer XDP only up to about 3500. */
	set_mtu(3600);
	err = open_err(&tport, 0, 1, &q);
	CHECK(err == -ERANGE && !q, "MTU 3600 on veth: %d", err);
	CHECK(bpf_xdp_query_id(tport.ifindex, 0, &id) == 0 && id == 0, "nothing left attached");
	/* The largest veth takes, in the large chunk size. */
	set_mtu(3400);
	err = open_err(&tport, 0, 1, &q);
	CHECK(err == 0 && q, "MTU 3400: %d", err);
	if (q)
		tport.ops->queue_close(q);
	set_mtu(1500);
}

void test_queue_limits(void)
{
	struct port_queue *q, *q2;
	uint8_t f[200];
	int err;

	err = open_err(&tport, 1, 2, &q);
	CHECK(err == -EINVAL && !q && !tport.drv, "veth with one RX queue, queue 1: %d", err);
	err = open_err(&tport, 0, 1, &q);
	CHECK(err == 0 && q, "queue 0");
	err = open_err(&tport, 0, 1, &q2);
	CHECK(err == -EBUSY && !q2, "a second socket on queue 0: %d", err);
	peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, 1, 200));
	CHECK(q && rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "the first still receives");
	if (q)
		tport.ops->queue_close(q);
	CHECK(!tport.drv, "program state gone with the last queue");
}

/* XDP_PASS and exit: someone else's program. */
static int other_prog_load(void)
{
	struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS},
	    {.code = BPF_JMP | BPF_EXIT},
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "other_xdp", "BSD", insns, 2, NULL);
}

void test_other_program(void)
{
	struct port_queue *q;
	int fd = other_prog_load(), err;
	uint32_t id = 0;

	CHECK(fd >= 0, "load a foreign XDP program: %s", strerror(errno));
	if (fd < 0)
		return;
	CHECK(bpf_xdp_attach(tport.ifindex, fd, XDP_FLAGS_DRV_MODE, NULL) == 0, "attach it");
	err = open_err(&tport, 0, 1, &q);
	CHECK(err == -EBUSY && !q, "port refuses a netdev with another program: %d", err);
	CHECK(bpf_xdp_query_id(tport.ifindex, 0, &id) == 0 && id != 0, "the other program stays");
	bpf_xdp_detach(tport.ifindex, XDP_FLAGS_DRV_MODE, NULL);
	close(fd);
}

/*
 * A cellgated killed with SIGKILL closes nothing itself: its BPF link goes
 * with the process, and the program with the link, so the next one starts.
 */
void test_killed_owner(void)
{
	struct port_queue *q;
	int ready[2], status, err;
	uint32_t id = 0;
	char c = 0;
	pid_t pid;

	CHECK(pipe(ready) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		q = queue_open(0, 0, false, 0, 1);
		c = q ? 1 : 0;
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	CHECK(read(ready[0], &c, 1) == 1 && c == 1, "child opened the port");
	CHECK(bpf_xdp_query_id(tport.ifindex, 0, &id) == 0 && id != 0, "child's program attached");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(ready[0]);
	for (int i = 0; i < 100 && bpf_xdp_query_id(tport.ifindex, 0, &id) == 0 && id; i++)
		usleep(10000);
	CHECK(id == 0, "program gone with the killed process (id %u)", id);
	err = open_err(&tport, 0, 1, &q);
	CHECK(err == 0 && q, "the next process opens the port: %d", err);
	if (q)
		tport.ops->queue_close(q);
}

static bool reply_4444(const uint8_t *f, size_t len)
{
	return is_echo_reply(f, len, 0x4444);
}

/* As cellgated -u: an unprivileged uid with CAP_NET_ADMIN and CAP_NET_RAW (daemon/privdrop.c). */
void test_after_privdrop(void)
{
	struct port_queue *q = queue_open(0, 0, false, 0, 1);
	uint32_t own[] = {OWN_ADDR};
	uint8_t f[256], r[2048];
	struct pkt pk = {.data = f, .in_port = tport.id};
	uint32_t id = 1;

	if (!q)
		return;
	capng_clear(CAPNG_SELECT_BOTH);
	capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN, CAP_NET_RAW, -1);
	CHECK(capng_change_id(65534, 65534, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING) == 0 &&
	          geteuid() == 65534,
	      "privileges dropped");
	CHECK(afxdp_local_set(&tport, own, 1) == 0, "own addresses after the drop");
	CHECK(afxdp_decisions(&tport, (struct cg_xdp_ctr[CG_XDP__MAX]){{0}}) == 0,
	      "counters after the drop");
	peer_send(f, ip_frame(f, tport.mac, TRANSIT_ADDR, 1, 200));
	CHECK(rx_drain(q, 64, 1, 300, NULL, NULL) == 1, "RX after the drop");
	pk.len = (uint32_t)echo_frame(f, tport.mac, OWN_ADDR, 0x4444);
	tport.ops->punt(q, &pk);
	CHECK(peer_recv_if(r, sizeof(r), 1000, reply_4444) > 0, "punt after the drop");
	tport.ops->queue_close(q);
	CHECK(bpf_xdp_query_id(tport.ifindex, 0, &id) == 0 && id == 0, "detach after the drop");
}

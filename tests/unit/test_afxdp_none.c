/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp driver of a build without libxdp (datapath/port_afxdp_none.c):
 * it is registered under its name, so a configuration naming it loads, but
 * opening a port fails with a reason, and the rest of its API is inert.
 * Built and run in every build, whether or not the real driver is.
 */
#include <errno.h>
#include <string.h>

#include "datapath/port_afxdp.h"
#include "lib/log.h"
#include "tests/unit/check.h"

int main(void)
{
	struct port p = {.name = "eth9", .netdev = "veth9", .ifindex = 3, .mtu = 1500};
	struct port_queue *q = (struct port_queue *)&p;
	struct cg_xdp_ctr c[CG_XDP__MAX];
	struct port_counters pc = {0};
	uint64_t drops = 1, a = 1, b = 1;
	uint32_t addr = 0x0a000001;

	log_init("test_afxdp_none", true, 0);
	p.ops = &port_afxdp_ops;
	CHECK(!afxdp_built());
	CHECK(strcmp(port_afxdp_ops.driver, "afxdp") == 0);
	CHECK_EQ(port_afxdp_ops.queue_open(&p, 0, 1, &q), -ENOTSUP);
	CHECK(q == NULL);
	CHECK_EQ(port_afxdp_ops.queue_ring_drops(NULL, &drops), 0);
	CHECK_EQ(drops, 0);
	CHECK_EQ(afxdp_local_set(&p, &addr, 1), -ENODEV);
	CHECK_EQ(afxdp_decisions(&p, c), -ENODEV);
	afxdp_counters_add(&p, &pc);
	CHECK_EQ(pc.rx_packets, 0);
	afxdp_punt_counts(&p, &a, &b);
	CHECK(a == 0 && b == 0);
	CHECK(afxdp_queue_mode(&p, 0) == NULL);
	return check_report("test_afxdp_none");
}

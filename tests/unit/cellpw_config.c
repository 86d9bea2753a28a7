/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cellpw port's configuration (see test_cellpw.c): PVCs added and deleted
 * at run time, and the settings queue_open refuses.
 */
#include <errno.h>
#include <stdlib.h>

#include "tests/unit/cellpw_check.h"
#include "tests/unit/check.h"

/* The ids of the current set, without `drop` (VC_MAX: none), then `add` (VC_MAX: none). */
static struct cellpw_vcset *set_edit(uint16_t drop, uint16_t add)
{
	const struct cellpw_vcset *cur = cellpw_vcset_current(h.c);
	uint16_t ids[CELLPW_PORT_VCS];
	unsigned n = 0;

	for (unsigned i = 0; i < cur->nvcs; i++)
		if (cur->ids[i] != drop)
			ids[n++] = cur->ids[i];
	if (add != VC_MAX)
		ids[n++] = add;
	return cellpw_vcset_build(h.c, ids, n);
}

/*
 * Runtime PVC add and delete (the daemon's RESTCONF path): a VC opened but not
 * yet published is invisible to every worker path; once published it carries
 * both ways; once unpublished, cells, next hops and queued host packets that
 * still name it are counted and go nowhere, while the other VCs carry on.
 * Single-threaded here, so the old set is freed without a grace period.
 */
void test_vc_runtime(void)
{
	const uint16_t nv = H_NVCS; /* slot 4: 0/103 on the multipoint subinterface */
	struct port *atm = &h.dp.ports[H_ATM];
	struct atm_vc *v = &h.dp.vcs[nv];
	struct atm_port_counters a = h_atmc();
	struct cellpw_vcset *next;
	uint8_t ip[100];
	unsigned pos = 0;

	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(10, 2, 0, 9), 64, 21);
	v->cfg = h.dp.vcs[VC_MP_LLC].cfg;
	v->cfg.vci = 103;
	v->ctr.pdus_in = 77; /* left by an earlier VC in the slot: must start over */
	v->oam_misses = 5;
	/* The SDU buffers hold a 9180-byte MTU (+ LLC): more is refused, buffers untouched. */
	v->cfg.mtu = 9181;
	CHECK_EQ(cellpw_vc_open(h.c, nv), -EINVAL);
	CHECK(v->rx_buf == NULL);
	v->cfg.mtu = 67;
	CHECK_EQ(cellpw_vc_open(h.c, nv), -EINVAL);
	v->cfg.mtu = 9180;
	CHECK_EQ(cellpw_vc_open(h.c, nv), 0);
	cellpw_vc_release(v);
	v->cfg.mtu = h.dp.vcs[VC_MP_LLC].cfg.mtu;
	v->ctr.pdus_in = 77;
	v->oam_misses = 5;
	CHECK_EQ(cellpw_vc_open(h.c, nv), 0);
	CHECK(v->ctr.pdus_in == 0 && v->oam_misses == 0 && v->rx_buf != NULL);
	next = set_edit(VC_MAX, nv);
	CHECK(next != NULL && next->nvcs == H_NVCS + 1 && next->has[nv]);

	/* Opened, not published: unknown to receive, transmit and the host ring. */
	h_far_pdu(nv, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_atmc().unknown_vc_cells - a.unknown_vc_cells, 3);
	send_ip(H_MP, vc_mac(nv), ip, sizeof(ip));
	CHECK_EQ(h_atmc().no_vc - a.no_vc, 1);
	CHECK(!cellpw_host_tx(atm, nv, ip, sizeof(ip)));

	free(cellpw_vcset_swap(h.c, next));
	CHECK(cellpw_vcset_current(h.c) == next);
	h_far_pdu(nv, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_rx(pkts), 1);
	check_rx(&pkts[0], nv, 0x0800, ip, sizeof(ip));
	send_ip(H_MP, vc_mac(nv), ip, sizeof(ip));
	h_take(&tx);
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, nv, 3, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(v->ctr.pdus_in, 1);
	CHECK_EQ(v->ctr.pdus_out, 1);

	/* Delete VC_MP_LLC with a host packet still queued for it. */
	CHECK(cellpw_host_tx(atm, VC_MP_LLC, ip, sizeof(ip)));
	next = set_edit(VC_MP_LLC, VC_MAX);
	CHECK(next != NULL && next->nvcs == H_NVCS && !next->has[VC_MP_LLC]);
	free(cellpw_vcset_swap(h.c, next));
	cellpw_vc_release(&h.dp.vcs[VC_MP_LLC]);
	a = h_atmc();
	struct vc_counters l = h_vc(VC_MP_LLC);
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(h_atmc().host_tx_drops - a.host_tx_drops, 1);
	CHECK(!cellpw_host_tx(atm, VC_MP_LLC, ip, sizeof(ip)));
	send_ip(H_MP, vc_mac(VC_MP_LLC), ip, sizeof(ip));
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(h_atmc().no_vc - a.no_vc, 1);
	h_far_pdu(VC_MP_LLC, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_atmc().unknown_vc_cells - a.unknown_vc_cells, 3);
	CHECK_EQ(h_vc(VC_MP_LLC).pdus_out, l.pdus_out);

	/* Its neighbours on the same subinterface and the new VC are untouched. */
	pos = 0;
	send_ip(H_MP, vc_mac(VC_MP_MUX), ip, sizeof(ip));
	send_ip(H_MP, vc_mac(nv), ip, sizeof(ip));
	h_take(&tx);
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_MP_MUX, 3, NULL, 0, ip, sizeof(ip));
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, nv, 3, llc_ip4, 8, ip, sizeof(ip));
	h_far_pdu(nv, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_rx(pkts), 1);
	check_rx(&pkts[0], nv, 0x0800, ip, sizeof(ip));
}

/* Settings queue_open refuses: frames that would not fit the carrier, bad cell counts, 2 queues. */
void test_open_checks(void)
{
	struct cellpw_settings s = h.set;
	struct port p = {.name = "atm9", .id = 9, .ops = &port_cellpw_ops, .drv = &s};
	struct port_queue *q;

	s.nvcs = 0;
	/* With a control word, 22 + 28 * 52 = 1478 octets: 4 more than 14 + 1460. */
	s.carrier_mtu = 1460;
	s.max_cells = 28;
	CHECK_EQ(port_cellpw_ops.queue_open(&p, 0, 1, &q), -EINVAL);
	s.encap.control_word = false; /* 18 + 1456 = 1474: fits */
	CHECK_EQ(port_cellpw_ops.queue_open(&p, 0, 1, &q), 0);
	port_cellpw_ops.queue_close(q);
	s.max_cells = 0;
	CHECK_EQ(port_cellpw_ops.queue_open(&p, 0, 1, &q), -EINVAL);
	s.carrier_mtu = 9000;
	s.max_cells = CELLPW_MAX_CELLS + 1;
	CHECK_EQ(port_cellpw_ops.queue_open(&p, 0, 1, &q), -EINVAL);
	s.max_cells = 4;
	CHECK_EQ(port_cellpw_ops.queue_open(&p, 0, 2, &q), -EINVAL);
}

/*
 * The buffers that hold a whole outbound SDU (a capture's contiguous copy,
 * the segmentation buffer) fit the largest SDU of every encapsulation at
 * the largest MTU: an LLC bridged VC's is 16 octets longer than routed LLC's.
 */
void test_sdu_bounds(void)
{
	for (uint8_t e = VC_ENCAP_LLC_SNAP; e <= VC_ENCAP_VCMUX_IPV6; e++) {
		struct atm_vc_cfg cfg = {.encap = e, .mtu = ATM_MTU_MAX};
		uint32_t sdu = atm_vc_max_sdu(&cfg);

		CHECK(sdu <= ATM_VC_SDU_MAX);
		CHECK(aal5_cells_for(sdu) <= CELLPW_SEG_CELLS);
	}
	struct atm_vc_cfg bridged = {.encap = VC_ENCAP_LLC_BRIDGED, .mtu = ATM_MTU_MAX};
	CHECK_EQ(atm_vc_max_sdu(&bridged), ATM_VC_SDU_MAX);
}

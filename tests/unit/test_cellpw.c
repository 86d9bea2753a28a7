/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cellpw ATM port and its atmsub subinterfaces over an in-memory carrier
 * (cellpw_harness.h): SDUs to AAL5 cells in RFC 4717 N:1 frames and back,
 * concatenation, multipoint VC choice, every receive error by its counter,
 * the host ring, a full carrier, and the worker forwarding Ethernet <-> ATM.
 * OAM, InATMARP and shaping are in test_cellpw_ctl.c.
 *
 * Here: SDUs to cells and back, staging, multipoint; the other cases are in
 * the files cellpw_check.h lists, main() below runs them all in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/rib.h"
#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/csum.h"
#include "datapath/ip4.h"
#include "tests/unit/cellpw_check.h"
#include "tests/unit/cellpw_harness.h"
#include "tests/unit/check.h"

static struct h_tx tx_p2p[4];
static uint8_t ip_a[100], ip_b[28], ip_c1[100], ip_c2[100], ip_d[H_MTU];

static void test_tx(void)
{
	struct vc_counters v = h_vc(VC_P2P);
	struct atm_port_counters a = h_atmc();
	uint8_t f1[128], f2[128], *fr[2] = {f1, f2};
	uint32_t lens[2];
	unsigned pos = 0;

	/* 100 octets of IP + 8 of LLC/SNAP + 8 of trailer: 3 cells, one frame (concat 0). */
	h_ip4(ip_a, sizeof(ip_a), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 1);
	send_ip(H_P2P, vc_mac(VC_P2P), ip_a, sizeof(ip_a));
	h_take(&tx_p2p[0]);
	CHECK_EQ(tx_p2p[0].nframes, 1);
	CHECK(tx_p2p[0].hdr_ok && tx_p2p[0].seq_ok);
	CHECK_EQ(tx_p2p[0].seq[0], 1);
	CHECK_EQ(tx_p2p[0].frame_cells[0], 3);
	CHECK(h_pdu(&tx_p2p[0], &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip_a, sizeof(ip_a));

	/* 28 octets of IP in a padded 60-octet frame: the SDU is the IP packet, not the padding. */
	h_ip4(ip_b, sizeof(ip_b), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 2);
	send_ip(H_P2P, vc_mac(VC_P2P), ip_b, sizeof(ip_b));
	h_take(&tx_p2p[1]);
	pos = 0;
	CHECK(tx_p2p[1].nframes == 1 && tx_p2p[1].seq_ok && tx_p2p[1].seq[0] == 2);
	CHECK(h_pdu(&tx_p2p[1], &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 1, llc_ip4, 8, ip_b, sizeof(ip_b));

	/* Concatenation, 4 cells a frame: two 3-cell PDUs in one burst make frames of 4 and 2. */
	h_ip4(ip_c1, sizeof(ip_c1), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 3);
	h_ip4(ip_c2, sizeof(ip_c2), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 4);
	lens[0] = h_eth(f1, vc_mac(VC_P2P), ip_c1, sizeof(ip_c1));
	lens[1] = h_eth(f2, vc_mac(VC_P2P), ip_c2, sizeof(ip_c2));
	h_sub_tx(H_P2P, fr, lens, 2);
	h_take(&tx_p2p[2]);
	pos = 0;
	CHECK(tx_p2p[2].nframes == 2 && tx_p2p[2].hdr_ok && tx_p2p[2].seq_ok);
	CHECK(tx_p2p[2].frame_cells[0] == 4 && tx_p2p[2].frame_cells[1] == 2);
	CHECK(tx_p2p[2].seq[0] == 3 && tx_p2p[2].seq[1] == 4);
	CHECK(h_pdu(&tx_p2p[2], &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip_c1, sizeof(ip_c1));
	CHECK(h_pdu(&tx_p2p[2], &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip_c2, sizeof(ip_c2));

	/* A full-MTU packet: 1508 octets, 32 cells, 8 frames; one octet more is too big. */
	h_ip4(ip_d, sizeof(ip_d), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 5);
	send_ip(H_P2P, vc_mac(VC_P2P), ip_d, sizeof(ip_d));
	h_take(&tx_p2p[3]);
	pos = 0;
	CHECK(tx_p2p[3].nframes == 8 && tx_p2p[3].hdr_ok && tx_p2p[3].seq_ok);
	CHECK(tx_p2p[3].seq[7] == 12 && tx_p2p[3].frame_cells[7] == 4);
	CHECK(h_pdu(&tx_p2p[3], &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 32, llc_ip4, 8, ip_d, sizeof(ip_d));
	uint8_t big[H_MTU + 1];
	h_ip4(big, sizeof(big), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 6);
	send_ip(H_P2P, vc_mac(VC_P2P), big, sizeof(big));
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);

	struct vc_counters v1 = h_vc(VC_P2P);
	struct atm_port_counters a1 = h_atmc();
	CHECK_EQ(v1.pdus_out - v.pdus_out, 5);
	CHECK_EQ(v1.cells_out - v.cells_out, 42);
	CHECK_EQ(v1.clp0_cells_out - v.clp0_cells_out, 42);
	CHECK_EQ(v1.octets_out - v.octets_out, 108 + 36 + 108 + 108 + 1508);
	CHECK_EQ(v1.discards[VC_DROP_TOO_BIG] - v.discards[VC_DROP_TOO_BIG], 1);
	CHECK_EQ(h_vc_discards(VC_P2P), 1);
	CHECK_EQ(a1.frames_out - a.frames_out, 12);
	CHECK_EQ(a1.cells_out - a.cells_out, 42);
	CHECK_EQ(a1.octets_out - a.octets_out, 12 * PW_HDR_MAX + 42 * ATM_PW_CELL_SIZE);
}

/*
 * More than the 64 frames the port stages: 8 full-MTU PDUs fill exactly 64
 * frames, so the next PDU, written straight into a frame, first sends them.
 */
static void test_tx_staging(void)
{
	static uint8_t f[9][14 + H_MTU];
	uint8_t *fr[9], small[28];
	uint32_t lens[9];
	struct atm_port_counters a = h_atmc();
	uint64_t flushes = h.car->tx_flushes;
	unsigned pos = 0, good = 0;

	h_ip4(small, sizeof(small), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 19);
	for (unsigned i = 0; i < 9; i++) {
		fr[i] = f[i];
		lens[i] = h_eth(f[i], vc_mac(VC_P2P), i < 8 ? ip_d : small, i < 8 ? H_MTU : 28);
	}
	h_sub_tx(H_P2P, fr, lens, 9);
	h_take(&tx);
	CHECK(tx.nframes == 65 && tx.hdr_ok && tx.seq_ok);
	CHECK(tx.frame_cells[63] == 4 && tx.frame_cells[64] == 1);
	for (unsigned i = 0; i < 8 && h_pdu(&tx, &pos, &pdu); i++)
		good += pdu.ncells == 32 && pdu.crc_ok && !memcmp(pdu.cpcs + 8, ip_d, H_MTU);
	CHECK_EQ(good, 8);
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 1, llc_ip4, 8, small, sizeof(small));
	CHECK_EQ(h_atmc().frames_out - a.frames_out, 65);
	CHECK_EQ(h.car->tx_flushes - flushes, 2); /* the 64, then the one at tx_flush */
}

/* The frames test_tx sent, looped back: the same IP packets come out, on the subinterface. */
static void test_rx_loopback(void)
{
	struct vc_counters v = h_vc(VC_P2P);
	struct atm_port_counters a = h_atmc();
	uint64_t disc = h_vc_discards(VC_P2P);

	for (unsigned i = 0; i < 4; i++)
		h_loop_back(&tx_p2p[i]);
	CHECK_EQ(h_rx(pkts), 5);
	check_rx(&pkts[0], VC_P2P, 0x0800, ip_a, sizeof(ip_a));
	check_rx(&pkts[1], VC_P2P, 0x0800, ip_b, sizeof(ip_b));
	check_rx(&pkts[2], VC_P2P, 0x0800, ip_c1, sizeof(ip_c1));
	check_rx(&pkts[3], VC_P2P, 0x0800, ip_c2, sizeof(ip_c2));
	check_rx(&pkts[4], VC_P2P, 0x0800, ip_d, sizeof(ip_d));

	struct vc_counters v1 = h_vc(VC_P2P);
	struct atm_port_counters a1 = h_atmc();
	CHECK_EQ(v1.pdus_in - v.pdus_in, 5);
	CHECK_EQ(v1.cells_in - v.cells_in, 42);
	CHECK_EQ(v1.clp0_cells_in - v.clp0_cells_in, 42);
	CHECK_EQ(v1.octets_in - v.octets_in, 1868);
	CHECK_EQ(a1.frames_in - a.frames_in, 12);
	CHECK_EQ(a1.cells_in - a.cells_in, 42);
	CHECK_EQ(a1.octets_in - a.octets_in, 12 * PW_HDR_MAX + 42 * ATM_PW_CELL_SIZE);
	CHECK_EQ(a1.seq_errors, 0);
	CHECK_EQ(h_vc_discards(VC_P2P), disc);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0); /* receiving sends nothing */
}

/* A multipoint subinterface sends on the VC the destination MAC names, if it is one of its own. */
static void test_multipoint(void)
{
	uint8_t f[6][128], *fr[6], ip1[100], ip2[100], mac[6][6] = {{0x02, 0, 0, 0, 0, 0x99}};
	uint32_t lens[6];
	struct vc_counters l = h_vc(VC_MP_LLC), m = h_vc(VC_MP_MUX);
	struct atm_port_counters a = h_atmc();
	unsigned pos = 0;

	h_ip4(ip1, sizeof(ip1), IP(10, 4, 0, 2), IP(10, 2, 0, 7), 64, 7);
	h_ip4(ip2, sizeof(ip2), IP(10, 4, 0, 2), IP(10, 2, 0, 8), 64, 8);
	memcpy(mac[3], mac[0], 6);
	vc_mac_make(VC_MP_LLC, mac[0]);
	vc_mac_make(VC_MP_MUX, mac[1]);
	vc_mac_make(VC_P2P, mac[2]);
	vc_mac_make(200, mac[4]);
	vc_mac_make(0x300, mac[5]);
	for (unsigned i = 0; i < 6; i++) {
		fr[i] = f[i];
		lens[i] = h_eth(f[i], mac[i], i == 1 ? ip2 : ip1, 100);
	}
	/* Only the first two name a VC of this subinterface: another's, none, unset, too large. */
	h_sub_tx(H_MP, fr, lens, 6);
	h_take(&tx);
	CHECK_EQ(h_atmc().no_vc - a.no_vc, 4);
	CHECK(tx.nframes == 2 && tx.hdr_ok && tx.seq_ok);
	CHECK(tx.frame_cells[0] == 4 && tx.frame_cells[1] == 2);
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_MP_LLC, 3, llc_ip4, 8, ip1, sizeof(ip1));
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_MP_MUX, 3, NULL, 0, ip2, sizeof(ip2)); /* VC-mux: no header */

	h_loop_back(&tx);
	CHECK_EQ(h_rx(pkts), 2);
	check_rx(&pkts[0], VC_MP_LLC, 0x0800, ip1, sizeof(ip1));
	check_rx(&pkts[1], VC_MP_MUX, 0x0800, ip2, sizeof(ip2));
	struct vc_counters l1 = h_vc(VC_MP_LLC), m1 = h_vc(VC_MP_MUX);
	CHECK(l1.pdus_out - l.pdus_out == 1 && l1.cells_out - l.cells_out == 3);
	CHECK(m1.pdus_out - m.pdus_out == 1 && m1.cells_out - m.cells_out == 3);
	CHECK(l1.octets_out - l.octets_out == 108 && m1.octets_out - m.octets_out == 100);
	CHECK(l1.pdus_in - l.pdus_in == 1 && m1.pdus_in - m.pdus_in == 1);
	CHECK(l1.octets_in - l.octets_in == 108 && m1.octets_in - m.octets_in == 100);
	CHECK(h_vc_discards(VC_MP_LLC) == 0 && h_vc_discards(VC_MP_MUX) == 0);
}

int main(void)
{
	if (h_setup() != 0) {
		fprintf(stderr, "test_cellpw: setup failed\n");
		return 1;
	}
	test_tx();
	test_rx_loopback();
	test_tx_staging();
	test_multipoint();
	test_rx_aal5_errors();
	test_rx_frame_errors();
	test_concat_timer();
	test_host_ring();
	test_carrier_full();
	test_worker();
	test_egress();
	test_vc_runtime(); /* it deletes VC_MP_LLC */
	test_ip6();        /* after the IPv4 cases: its RIB reuses their next-hop ids */
	test_open_checks();
	test_sdu_bounds();
	h_teardown();
	return check_report("test_cellpw");
}

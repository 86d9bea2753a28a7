/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cellpw port's receive errors (see test_cellpw.c): each thing sent that
 * must not be delivered, and the one counter that says why.
 */
#include <string.h>

#include "datapath/atm/aal5_crc.h"
#include "lib/wire.h"
#include "tests/unit/cellpw_check.h"
#include "tests/unit/check.h"

/* A CPCS-PDU written by hand (trailer as given) sent as `ncells` cells on `vc`. */
static void far_cpcs(uint16_t vc, const uint8_t *cpcs, unsigned ncells)
{
	uint8_t cells[8 * ATM_PW_CELL_SIZE];
	const struct atm_vc_cfg *cfg = &h.dp.vcs[vc].cfg;

	for (unsigned i = 0; i < ncells; i++) {
		uint8_t *c = cells + i * ATM_PW_CELL_SIZE;
		atm_hdr_store(c, atm_hdr_make(cfg->vpi, cfg->vci, i + 1 == ncells, 0));
		memcpy(c + 4, cpcs + i * ATM_CELL_PAYLOAD, ATM_CELL_PAYLOAD);
	}
	h_far_cells(cells, ncells);
}

/* Two cells whose trailer says `length`, with a CRC that verifies. */
static void far_two_cells(uint16_t length)
{
	uint8_t cpcs[96] = {0};

	for (unsigned i = 0; i < 10; i++)
		cpcs[i] = (uint8_t)(i + 1);
	wr16(cpcs + 90, length);
	wr32(cpcs + 92, aal5_crc32(cpcs, 92));
	far_cpcs(VC_P2P, cpcs, 2);
}

/* Each line: something sent, then exactly one reason counted for it. */
void test_rx_aal5_errors(void)
{
	static uint8_t cells[64 * ATM_PW_CELL_SIZE], sdu[1900];
	struct vc_counters v = h_vc(VC_P2P);
	uint8_t ip[100];
	unsigned n;

	h_ip4(ip, sizeof(ip), IP(10, 1, 0, 2), IP(10, 4, 0, 2), 64, 9);
	n = h_segment(VC_P2P, llc_ip4, 8, ip, sizeof(ip), cells);
	cells[ATM_PW_CELL_SIZE + 10] ^= 1; /* one bit of the middle cell */
	h_far_cells(cells, n);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_CRC] - v.discards[VC_DROP_CRC], 1);

	far_two_cells(10); /* 10 octets fit in one cell: the length disagrees with two */
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_LENGTH] - v.discards[VC_DROP_LENGTH], 1);
	far_two_cells(0); /* length 0: the sender aborted */
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_ABORT] - v.discards[VC_DROP_ABORT], 1);

	/* 1900 octets, 40 cells, over a 1508-octet maximum: one count, then the next PDU is good.
	 */
	memcpy(sdu, llc_ip4, 8);
	memset(sdu + 8, 0x5a, sizeof(sdu) - 8);
	CHECK_EQ(h_far_pdu(VC_P2P, NULL, 0, sdu, sizeof(sdu)), 40);
	h_far_pdu(VC_P2P, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_rx(pkts), 1);
	check_rx(&pkts[0], VC_P2P, 0x0800, ip, sizeof(ip));
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_OVERSIZE] - v.discards[VC_DROP_OVERSIZE], 1);
	/* 1520 octets fill 32 cells, no more than 1508 do, but the length is over: oversize. */
	CHECK_EQ(h_far_pdu(VC_P2P, NULL, 0, sdu, 1520), 32);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_OVERSIZE] - v.discards[VC_DROP_OVERSIZE], 2);

	/* An LLC/SNAP header we do not route (bridged Ethernet): a good PDU, then discarded. */
	static const uint8_t bridged[10] = {0xaa, 0xaa, 0x03, 0x00, 0x80, 0xc2, 0x00, 0x07, 0, 0};
	h_far_pdu(VC_P2P, bridged, sizeof(bridged), ip, sizeof(ip));
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_UNKNOWN_LLC] - v.discards[VC_DROP_UNKNOWN_LLC], 1);
	/* IPv6 over LLC/SNAP is delivered, for the kernel. */
	uint8_t ip6[60] = {0x60};
	h_far_pdu(VC_P2P, llc_ip6, 8, ip6, sizeof(ip6));
	CHECK_EQ(h_rx(pkts), 1);
	check_rx(&pkts[0], VC_P2P, 0x86dd, ip6, sizeof(ip6));

	/* Two cells of three, then silence: dropped once the timeout has passed, not before. */
	n = h_segment(VC_P2P, llc_ip4, 8, ip, sizeof(ip), cells);
	h_far_cells(cells, 2);
	CHECK_EQ(h_rx(pkts), 0);
	uint64_t t = h_now_ms();
	cellpw_vc_timers(h.c, cellpw_vcset_current(h.c), t + H_REASM_MS);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_TIMEOUT] - v.discards[VC_DROP_TIMEOUT], 0);
	cellpw_vc_timers(h.c, cellpw_vcset_current(h.c), t + H_REASM_MS + 1);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_TIMEOUT] - v.discards[VC_DROP_TIMEOUT], 1);
	h_far_cells(cells, n); /* the whole PDU again reassembles from a clean state */
	CHECK_EQ(h_rx(pkts), 1);
	check_rx(&pkts[0], VC_P2P, 0x0800, ip, sizeof(ip));

	struct vc_counters v1 = h_vc(VC_P2P);
	uint64_t d0 = 0, d1 = 0;
	for (unsigned r = 0; r < VC_DROP__MAX; r++) {
		d0 += v.discards[r];
		d1 += v1.discards[r];
	}
	CHECK_EQ(d1 - d0, 7); /* crc, length, abort, 2 oversize, unknown LLC, timeout */
	/* Good AAL5 PDUs: after the oversize, bridged (then discarded), IPv6, after the timeout. */
	CHECK_EQ(v1.pdus_in - v.pdus_in, 4);
}

void test_rx_frame_errors(void)
{
	struct atm_port_counters a = h_atmc();
	struct vc_counters v = h_vc(VC_P2P);
	uint8_t cells[3 * ATM_PW_CELL_SIZE], f[H_TX_RAW], ip[28];
	uint32_t len;

	/* Two cells of an unknown VC, then a one-cell PDU of ours, in one frame. */
	h_ip4(ip, sizeof(ip), IP(10, 1, 0, 2), IP(10, 4, 0, 2), 64, 10);
	for (unsigned i = 0; i < 2; i++) {
		atm_hdr_store(cells + i * ATM_PW_CELL_SIZE, atm_hdr_make(0, 999, (uint8_t)i, 0));
		memset(cells + i * ATM_PW_CELL_SIZE + 4, 0x77, ATM_CELL_PAYLOAD);
	}
	CHECK_EQ(h_segment(VC_P2P, llc_ip4, 8, ip, sizeof(ip), cells + 2 * ATM_PW_CELL_SIZE), 1);
	h_far_cells(cells, 3);
	CHECK_EQ(h_rx(pkts), 1);
	check_rx(&pkts[0], VC_P2P, 0x0800, ip, sizeof(ip));
	CHECK_EQ(h_atmc().unknown_vc_cells - a.unknown_vc_cells, 2);
	CHECK_EQ(h_vc(VC_P2P).cells_in - v.cells_in, 1);
	CHECK_EQ(h_atmc().cells_in - a.cells_in, 3);

	/* Frames that are not ours, or not whole: counted, their sequence numbers never read. */
	uint16_t seq = pw_seq_next(h.far_seq);
	len = h_far_frame_build(f, cells + 2 * ATM_PW_CELL_SIZE, 1, seq);
	wr32(f + 14, (uint32_t)(H_LABEL + 1) << 12 | 0x100 | 64);
	h_far_frame(f, len); /* another pseudowire's label */
	len = h_far_frame_build(f, cells + 2 * ATM_PW_CELL_SIZE, 1, seq);
	h_far_frame(f, len - 1);    /* 51 octets of cell */
	h_far_frame(f, PW_HDR_MAX); /* no cell at all */
	h_far_frame(f, 16);         /* not even the label stack entry */
	h_far_frame(f, 10);         /* not even Ethernet */
	f[18] = 0x10;               /* control word not starting 0000 */
	h_far_frame(f, len);
	len = h_far_frame_build(f, cells + 2 * ATM_PW_CELL_SIZE, 1, seq);
	f[16] &= (uint8_t)~0x01; /* S = 0: a label stack we do not expect */
	h_far_frame(f, len);
	uint8_t eth[60];
	h_far_frame(eth, h_eth(eth, h_carrier_mac, ip, sizeof(ip))); /* IPv4 on the carrier */
	CHECK_EQ(h_rx(pkts), 0);
	struct atm_port_counters a1 = h_atmc();
	CHECK_EQ(a1.pw_bad_label - a.pw_bad_label, 1);
	CHECK_EQ(a1.pw_malformed - a.pw_malformed, 6);
	CHECK_EQ(a1.non_pw_frames - a.non_pw_frames, 1);
	CHECK_EQ(a1.frames_in - a.frames_in, 1);

	/* Sequence: a gap, a duplicate, the wrap from 65535 to 1 (never 0). Cells still count. */
	h_segment(VC_P2P, llc_ip4, 8, ip, sizeof(ip), cells);
	uint16_t s[] = {(uint16_t)(h.far_seq + 3), 0, 0, 65535, 1, 2};
	s[1] = pw_seq_next(s[0]);
	s[2] = s[1];
	for (unsigned i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		h_far_frame(f, h_far_frame_build(f, cells, 1, s[i]));
	h.far_seq = 2;
	CHECK_EQ(h_rx(pkts), 6);
	CHECK_EQ(h_atmc().seq_errors - a.seq_errors, 3); /* gap, duplicate, jump to 65535 */

	/*
	 * 66 one-cell PDUs, 4 to a frame: 16 frames fill a 64-packet burst, and the
	 * 17th, which could overflow it, waits for the next burst instead of being dropped.
	 */
	static uint8_t many[66 * ATM_PW_CELL_SIZE];
	uint64_t disc = h_vc_discards(VC_P2P);
	for (unsigned i = 0; i < 66; i++)
		h_segment(VC_P2P, llc_ip4, 8, ip, sizeof(ip), many + i * ATM_PW_CELL_SIZE);
	h_far_cells(many, 66);
	CHECK_EQ(h_rx(pkts), 64);
	CHECK_EQ(h_rx(pkts), 2);
	check_rx(&pkts[1], VC_P2P, 0x0800, ip, sizeof(ip));
	CHECK_EQ(h_vc_discards(VC_P2P), disc);
}

/*
 * The cellpw ATM port and its atmsub subinterfaces over an in-memory carrier
 * (cellpw_harness.h): SDUs to AAL5 cells in RFC 4717 N:1 frames and back,
 * concatenation, multipoint VC choice, every receive error by its counter,
 * the host ring, a full carrier, and the worker forwarding Ethernet <-> ATM.
 * OAM, InATMARP and shaping are in test_cellpw_ctl.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/cellpw_harness.h"
#include "tests/unit/check.h"
#include "daemon/rib.h"
#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/csum.h"
#include "datapath/ip4.h"

static struct h_tx tx, tx_p2p[4];
static struct h_pdu pdu;
static struct pkt pkts[BURST_MAX];
static uint8_t ip_a[100], ip_b[28], ip_c1[100], ip_c2[100], ip_d[H_MTU];
static const uint8_t llc_ip4[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00};
static const uint8_t llc_ip6[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x86, 0xdd};

static const uint8_t *vc_mac(uint16_t vc)
{
	static uint8_t mac[6];

	vc_mac_make(vc, mac);
	return mac;
}

/* The PDU carries prefix||ip on `vc`, in `ncells` cells, trailer and CRC right. */
static void check_pdu(const struct h_pdu *p, unsigned vc, unsigned ncells, const uint8_t *prefix,
                      size_t plen, const uint8_t *ip, size_t iplen)
{
	CHECK_EQ(p->vpi, h.dp.vcs[vc].cfg.vpi);
	CHECK_EQ(p->vci, h.dp.vcs[vc].cfg.vci);
	CHECK_EQ(p->ncells, ncells);
	CHECK(p->one_vc && p->auu_last_only && p->crc_ok && p->pad_zero);
	CHECK(p->uu == 0 && p->cpi == 0);
	CHECK_EQ(p->length, plen + iplen);
	CHECK(plen == 0 || !memcmp(p->cpcs, prefix, plen));
	CHECK(!memcmp(p->cpcs + plen, ip, iplen));
}

/* An SDU delivered as a frame: synthetic Ethernet header, received on the subinterface. */
static void check_rx(const struct pkt *p, unsigned vc, uint16_t type, const uint8_t *l3,
                     uint32_t len)
{
	CHECK_EQ(p->len, 14 + len);
	CHECK_EQ(p->in_port, h.dp.vcs[vc].cfg.subif);
	CHECK_EQ(p->l2_class, PKT_L2_HOST);
	CHECK(!memcmp(p->data, h.dp.ports[H_ATM].mac, 6));
	CHECK(!memcmp(p->data + 6, vc_mac((uint16_t)vc), 6));
	CHECK_EQ(rd16(p->data + 12), type);
	CHECK(!memcmp(p->data + 14, l3, len));
}

static void send_ip(unsigned port, const uint8_t *dst_mac, const uint8_t *ip, uint32_t iplen)
{
	uint8_t f[14 + H_MTU + 64];

	h_sub_send(port, f, h_eth(f, dst_mac, ip, iplen));
}

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
static void test_rx_aal5_errors(void)
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

static void test_rx_frame_errors(void)
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

/* With a concatenation timer, a partial frame waits for it (or for the link to go idle). */
static void test_concat_timer(void)
{
	uint8_t ip[100], ip1[28];
	uint64_t t0 = h.c->now_us;

	h.set.concat_us = 1000;
	h_ip4(ip1, sizeof(ip1), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 11);
	send_ip(H_P2P, vc_mac(VC_P2P), ip1, sizeof(ip1));
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	h.c->now_us = t0 + 999;
	cellpw_service(h.c, cellpw_vcset_current(h.c), false);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	h.c->now_us = t0 + 1000;
	cellpw_service(h.c, cellpw_vcset_current(h.c), false);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 1 && tx.seq_ok);

	/* 3 + 3 cells: the full frame leaves at once, the 2-cell rest when the link idles. */
	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 12);
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 4);
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.frame_cells[0] == 2 && tx.seq_ok);
	h.set.concat_us = 0;
}

/* Packets the kernel sent into a subinterface go down their VC on the next service pass. */
static void test_host_ring(void)
{
	struct port *atm = &h.dp.ports[H_ATM];
	struct atm_port_counters a = h_atmc();
	struct vc_counters m = h_vc(VC_MP_MUX);
	uint8_t ip[100], ip6[60] = {0x60, 0, 0, 0, 0, 20};
	unsigned pos = 0;

	h_ip4(ip, sizeof(ip), IP(10, 1, 0, 1), IP(10, 1, 0, 2), 64, 13);
	CHECK(cellpw_host_tx(atm, VC_P2P, ip, sizeof(ip)));
	CHECK(cellpw_host_tx(atm, VC_P2P, ip6, sizeof(ip6)));
	CHECK(cellpw_host_tx(atm, VC_MP_MUX, ip, sizeof(ip)));
	CHECK(cellpw_host_tx(atm, VC_MP_MUX, ip6, sizeof(ip6))); /* VC-mux IPv4: no place for v6 */
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	cellpw_service(h.c, cellpw_vcset_current(h.c), false);
	h_take(&tx);
	CHECK(tx.hdr_ok && tx.seq_ok);
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip, sizeof(ip));
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_P2P, 2, llc_ip6, 8, ip6, sizeof(ip6));
	CHECK(h_pdu(&tx, &pos, &pdu));
	check_pdu(&pdu, VC_MP_MUX, 3, NULL, 0, ip, sizeof(ip));
	CHECK_EQ(pos, tx.ncells);
	CHECK_EQ(h_atmc().host_tx - a.host_tx, 4);
	CHECK_EQ(h_vc(VC_MP_MUX).discards[VC_DROP_UNKNOWN_LLC] - m.discards[VC_DROP_UNKNOWN_LLC],
	         1);

	/* The ring holds 64: the 65th waits its turn at the control thread. */
	for (unsigned i = 0; i < HOST_RING_SLOTS; i++)
		CHECK(cellpw_host_tx(atm, VC_P2P, ip, sizeof(ip)));
	CHECK(!cellpw_host_tx(atm, VC_P2P, ip, sizeof(ip)));
	cellpw_service(h.c, cellpw_vcset_current(h.c), false);
	h_take(&tx);
	CHECK(tx.nframes == 48 && tx.ncells == 192 && tx.hdr_ok && tx.seq_ok);
	unsigned good = 0;
	for (pos = 0; h_pdu(&tx, &pos, &pdu);)
		good += pdu.crc_ok && pdu.length == 108 && !memcmp(pdu.cpcs + 8, ip, sizeof(ip));
	CHECK_EQ(good, HOST_RING_SLOTS);
	CHECK_EQ(h_atmc().host_tx - a.host_tx, 4 + HOST_RING_SLOTS);
}

/* A carrier whose ring is full: the frame is lost and counted; the far end sees a gap. */
static void test_carrier_full(void)
{
	struct atm_port_counters a = h_atmc();
	uint16_t last = h.tx_seq;
	uint8_t ip[100];

	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 14);
	h.car->tx_room = 0;
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	h.car->tx_room = ~0u;
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(h_atmc().tx_full - a.tx_full, 1);
	CHECK_EQ(h_atmc().frames_out - a.frames_out, 0);
	send_ip(H_P2P, vc_mac(VC_P2P), ip, sizeof(ip));
	h_take(&tx);
	CHECK(tx.nframes == 1 && !tx.seq_ok); /* one sequence number went with the lost frame */
	CHECK_EQ(tx.seq[0], pw_seq_next(pw_seq_next(last)));
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

/* The worker between an Ethernet port and the subinterfaces, both ways. */
static void test_worker(void)
{
	static const uint8_t gw_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};
	struct rib *rib = rib_new(&h.dp, no_seed, NULL);
	struct rib_path p1 = {.port = H_P2P, .weight = 1}, p2 = {.port = H_MP, .weight = 1};
	struct rib_path p4 = {.port = H_ETH, .weight = 1};
	struct rib_path via_atm = {.gw = IP(10, 1, 0, 2), .port = H_P2P, .weight = 1};
	struct rib_path via_eth = {.gw = IP(10, 4, 0, 2), .port = H_ETH, .weight = 1};
	struct port_queue *eq = h.dp.ports[H_ETH].queues[0];
	struct port_counters e = h_port(H_ETH), s1 = h_port(H_P2P), s2 = h_port(H_MP);
	uint8_t ip[100], f[128];
	unsigned pos = 0;

	rib_route_set(rib, IP(10, 1, 0, 0), 30, RIB_SRC_CONNECTED, NH_GLEAN, &p1, 1);
	rib_route_set(rib, IP(10, 1, 0, 1), 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib_route_set(rib, IP(10, 2, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p2, 1);
	rib_route_set(rib, IP(10, 4, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p4, 1);
	rib_route_set(rib, IP(192, 168, 50, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &via_atm, 1);
	rib_route_set(rib, IP(10, 9, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &via_eth, 1);
	rib_nh_l2_update(rib, H_P2P, IP(10, 1, 0, 2), nh_l2_pack(vc_mac(VC_P2P), NEIGH_REACHABLE));
	rib_nh_l2_update(rib, H_ETH, IP(10, 4, 0, 2), nh_l2_pack(gw_mac, NEIGH_REACHABLE));

	/* Ethernet -> ATM: out on the p2p VC, TTL one less, checksum right. */
	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(192, 168, 50, 5), 64, 15);
	port_fake_rx_add(&h.dp.ports[H_ETH], f, h_eth(f, h.dp.ports[H_ETH].mac, ip, 100),
	                 PKT_L2_HOST);
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	CHECK(tx.nframes == 1 && tx.hdr_ok && tx.seq_ok);
	CHECK(h_pdu(&tx, &pos, &pdu));
	ip[8] = 63;
	wr16(ip + 10, 0);
	wr16(ip + 10, csum_compute(ip, 20));
	check_pdu(&pdu, VC_P2P, 3, llc_ip4, 8, ip, sizeof(ip));
	CHECK_EQ(h_port(H_ETH).forwarded - e.forwarded, 1);
	CHECK_EQ(h_port(H_P2P).tx_packets - s1.tx_packets, 1);

	/* ATM -> Ethernet, from the multipoint subinterface's LLC VC. */
	unsigned etx = eq->tx_n;
	h_ip4(ip, sizeof(ip), IP(10, 2, 0, 9), IP(10, 9, 0, 5), 9, 16);
	h_far_pdu(VC_MP_LLC, llc_ip4, 8, ip, sizeof(ip));
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(eq->tx_n, etx + 1);
	const uint8_t *o = eq->tx_frame[etx % FAKE_FRAMES];
	CHECK(!memcmp(o, gw_mac, 6) && !memcmp(o + 6, h.dp.ports[H_ETH].mac, 6));
	CHECK(o[14 + 8] == 8 && csum_compute(o + 14, 20) == 0);
	CHECK(!memcmp(o + 14 + 20, ip + 20, 80));
	CHECK_EQ(h_port(H_MP).forwarded - s2.forwarded, 1);

	/* TTL 1 from that VC: time exceeded, back down the same VC (its synthetic MAC). */
	h_ip4(ip, sizeof(ip), IP(10, 2, 0, 9), IP(10, 9, 0, 5), 1, 17);
	h_far_pdu(VC_MP_LLC, llc_ip4, 8, ip, sizeof(ip));
	dp_worker_poll(&h.dp, 0);
	h_take(&tx);
	pos = 0;
	CHECK(tx.nframes >= 1 && h_pdu(&tx, &pos, &pdu));
	CHECK(pdu.vci == h.dp.vcs[VC_MP_LLC].cfg.vci && pdu.crc_ok &&
	      !memcmp(pdu.cpcs, llc_ip4, 8));
	const uint8_t *icmp = pdu.cpcs + 8;
	CHECK(icmp[9] == 1 && icmp[20] == 11 && icmp[21] == 0);
	CHECK(rd32(icmp + 12) == IP(10, 2, 0, 1) && rd32(icmp + 16) == IP(10, 2, 0, 9));
	CHECK_EQ(h_port(H_MP).drops[DROP_TTL_EXPIRED] - s2.drops[DROP_TTL_EXPIRED], 1);
	CHECK_EQ(h_port(H_MP).icmp_out - s2.icmp_out, 1);

	/* For our own address on the p2p subinterface: the kernel's, through its TUN. */
	uint8_t got[200];
	struct atm_port_counters a = h_atmc();
	h_ip4(ip, sizeof(ip), IP(10, 1, 0, 2), IP(10, 1, 0, 1), 64, 18);
	h_far_pdu(VC_P2P, llc_ip4, 8, ip, sizeof(ip));
	dp_worker_poll(&h.dp, 0);
	CHECK_EQ(read(h.tun[0], got, sizeof(got)), sizeof(ip));
	CHECK(!memcmp(got, ip, sizeof(ip)));
	CHECK_EQ(h_atmc().punted - a.punted, 1);
	CHECK_EQ(h_port(H_P2P).to_kernel - s1.to_kernel, 1);

	const struct stats_snapshot *sn = h_snap();
	for (unsigned p = H_P2P; p <= H_ETH; p++)
		CHECK_EQ(sn->port[p].c.rx_packets, sn->port[p].c.forwarded +
		                                       sn->port[p].c.to_kernel +
		                                       sn->port[p].drops_total);
	rib_free(rib);
}

/* Settings queue_open refuses: frames that would not fit the carrier, bad cell counts, 2 queues. */
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
static void test_vc_runtime(void)
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
	cellpw_service(h.c, cellpw_vcset_current(h.c), false);
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

static void test_open_checks(void)
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
	test_vc_runtime(); /* last: it deletes VC_MP_LLC */
	test_open_checks();
	h_teardown();
	return check_report("test_cellpw");
}

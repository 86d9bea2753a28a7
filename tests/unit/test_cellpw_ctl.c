/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The per-VC control work of the cellpw port (cellpw_harness.h arrangement):
 * OAM F5 loopback answered and originated with the VC's operational state,
 * on-demand loopbacks, InATMARP answered and originated, and PCR shaping.
 * Timers run on synthetic time far ahead of the real clock, so the service
 * pass inside every rx_burst (real time) never fires them behind our back.
 */
#include <string.h>

#include "datapath/atm/inatmarp.h"
#include "datapath/atm/oam.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/ip4.h"
#include "tests/unit/cellpw_harness.h"
#include "tests/unit/check.h"

#define FUTURE_MS 10000000ull /* ~3 hours past the real clock */

static struct h_tx tx;
static struct h_pdu pdu;
static struct pkt pkts[BURST_MAX];
static const uint8_t llc_arp[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x06};

static unsigned service_at(uint64_t now_us);

static void drain_events(void)
{
	struct dp_event ev;

	while (event_ring_pop(cellpw_events(&h.dp.ports[H_ATM]), &ev))
		;
}

static bool next_event(struct dp_event *ev)
{
	return event_ring_pop(cellpw_events(&h.dp.ports[H_ATM]), ev);
}

/* Timers at `now_ms`, then whatever they queued goes out. */
static void timers(uint64_t now_ms)
{
	cellpw_vc_timers(h.c, cellpw_vcset_current(h.c), now_ms);
	cellpw_tx_push(h.c, true);
}

static void far_loopback(uint16_t vc, uint8_t indication, uint32_t tag, bool e2e)
{
	struct oam_loopback lb = {.indication = indication, .tag = tag};
	uint8_t payload[48], cell[52];

	memset(lb.location_id, 0xff, 16);
	memset(lb.source_id, 0x11, 16);
	oam_loopback_build(payload, &lb);
	h_oam_cell(cell, vc, payload, e2e);
	h_far_cells(cell, 1);
}

/* The one cell taken is a loopback cell on `vc`: its fields, or false. */
static bool took_loopback(uint16_t vc, bool e2e, struct oam_loopback *lb)
{
	uint8_t tf;

	h_take(&tx);
	if (tx.nframes != 1 || tx.ncells != 1 || !tx.hdr_ok || !tx.seq_ok)
		return false;
	const struct atm_vc_cfg *cfg = &h.dp.vcs[vc].cfg;
	return atm_hdr_load(tx.cell[0]) == oam_hdr_word(cfg->vpi, cfg->vci, e2e) &&
	       oam_crc10_ok(tx.cell[0] + 4) && oam_parse(tx.cell[0] + 4, &tf, lb) == 0;
}

/* The far end's loopback requests come back with indication 0 and the same tag. */
static void test_oam_answer(void)
{
	struct vc_counters v = h_vc(VC_P2P);
	struct oam_loopback lb;
	uint8_t payload[48], cell[52];

	far_loopback(VC_P2P, 1, 0xc0ffee, true);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(took_loopback(VC_P2P, true, &lb));
	CHECK(lb.indication == 0 && lb.tag == 0xc0ffee);
	CHECK(lb.location_id[0] == 0xff && lb.source_id[15] == 0x11);
	far_loopback(VC_P2P, 1, 7, false); /* segment flow: answered on the segment flow */
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(took_loopback(VC_P2P, false, &lb));
	CHECK(lb.indication == 0 && lb.tag == 7);

	/* Not answered: a bad CRC-10, an AIS cell, an RM cell. */
	oam_loopback_build(payload, &(struct oam_loopback){.indication = 1, .tag = 8});
	payload[10] ^= 0x40;
	h_oam_cell(cell, VC_P2P, payload, true);
	h_far_cells(cell, 1);
	memset(payload, 0x6a, sizeof(payload));
	payload[0] = OAM_TF_AIS;
	oam_crc10_set(payload);
	h_oam_cell(cell, VC_P2P, payload, true);
	h_far_cells(cell, 1);
	atm_hdr_store(cell, atm_hdr_make(0, 100, ATM_PTI_RM, 0));
	h_far_cells(cell, 1);
	CHECK_EQ(h_rx(pkts), 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);

	struct vc_counters v1 = h_vc(VC_P2P);
	CHECK_EQ(v1.oam_in - v.oam_in, 4); /* RM is not F5 OAM */
	CHECK_EQ(v1.oam_out - v.oam_out, 2);
	CHECK_EQ(v1.lb_answered - v.lb_answered, 2);
	CHECK_EQ(v1.cells_in - v.cells_in, 5);
	CHECK_EQ(v1.cells_out - v.cells_out, 2);
	CHECK_EQ(v1.discards[VC_DROP_OAM_CRC] - v.discards[VC_DROP_OAM_CRC], 1);
	CHECK_EQ(v1.discards[VC_DROP_OAM_OTHER] - v.discards[VC_DROP_OAM_OTHER], 2);
	CHECK_EQ(v1.lb_sent - v.lb_sent, 0);
}

/*
 * I.610 10.2.4: a loopback cell is looped back only at the point its
 * location ID names; all ones is the end point (us). Any other ID names a
 * point we are not: counted, not answered.
 */
static void test_oam_location(void)
{
	struct vc_counters v = h_vc(VC_P2P);
	struct oam_loopback lb = {.indication = 1, .tag = 99};
	uint8_t payload[48], cell[52];

	for (int i = 0; i < 2; i++) {
		memset(lb.location_id, i ? 0x00 : 0x5a, 16);
		oam_loopback_build(payload, &lb);
		h_oam_cell(cell, VC_P2P, payload, true);
		h_far_cells(cell, 1);
	}
	CHECK_EQ(h_rx(pkts), 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	struct vc_counters v1 = h_vc(VC_P2P);
	CHECK_EQ(v1.discards[VC_DROP_OAM_LOCATION] - v.discards[VC_DROP_OAM_LOCATION], 2);
	CHECK_EQ(v1.lb_answered - v.lb_answered, 0);
	far_loopback(VC_P2P, 1, 100, true); /* all ones: answered */
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(took_loopback(VC_P2P, true, &lb));
	CHECK(lb.indication == 0 && lb.tag == 100);
}

/*
 * On a shaped VC, loopback replies are cells of the VC like data: they
 * wait for the shaper's tokens, so a flood of requests from the far end
 * cannot make the VC exceed its PCR.
 */
static void test_oam_shaped(void)
{
	struct atm_vc *vc = &h.dp.vcs[VC_SHAPED];
	struct vc_counters v = h_vc(VC_SHAPED);
	uint64_t t = h.c->aq.now_us + 10000000;
	struct oam_loopback lb;
	unsigned sent = 0;

	CHECK_EQ(service_at(t), 0); /* an empty queue, a full bucket */
	for (uint32_t tag = 1; tag <= 10; tag++)
		far_loopback(VC_SHAPED, 1, tag, true);
	CHECK_EQ(h_rx(pkts), 0);
	h_take(&tx);
	CHECK_EQ(tx.ncells, 0); /* none left unshaped */
	CHECK_EQ(vc->shape_count, 10);
	CHECK_EQ(h_vc(VC_SHAPED).oam_out - v.oam_out, 10);
	CHECK_EQ(service_at(t), 4); /* the bucket: one frame's worth */
	CHECK(oam_parse(tx.cell[0] + 4, &(uint8_t){0}, &lb) == 0 && lb.tag == 1 && !lb.indication);
	CHECK_EQ(service_at(t), 0);
	for (unsigned i = 1; i <= 6; i++)
		sent += service_at(t + i * 1000); /* PCR 1000 cells/s: one a millisecond */
	CHECK_EQ(sent, 6);
	CHECK_EQ(vc->shape_count, 0);
	CHECK_EQ(h_vc(VC_SHAPED).cells_out - v.cells_out, 10);
	CHECK_EQ(h_vc(VC_SHAPED).lb_answered - v.lb_answered, 10);
}

/* Our loopbacks: down after 3 lost, up after 2 answered, an event each way. */
static void test_oam_state(void)
{
	struct atm_vc *vc = &h.dp.vcs[VC_P2P];
	struct vc_counters v = h_vc(VC_P2P);
	struct oam_loopback lb;
	struct dp_event ev;
	uint64_t t = h_now_ms() + FUTURE_MS;

	drain_events();
	vc->cfg.oam_enabled = true;
	timers(t);
	CHECK(took_loopback(VC_P2P, true, &lb));
	CHECK(lb.indication == 1 && lb.tag == 1);
	timers(t + 999); /* the interval (1000 ms) has not passed */
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	/* Unanswered: lost at the interval, then retries every 100 ms; the third loss is down. */
	timers(t += 1000);
	CHECK(took_loopback(VC_P2P, true, &lb) && lb.tag == 2);
	timers(t += 100);
	CHECK(took_loopback(VC_P2P, true, &lb) && lb.tag == 3);
	CHECK_EQ(__atomic_load_n(&vc->oper, __ATOMIC_ACQUIRE), VC_OPER_UP);
	CHECK(!next_event(&ev));
	timers(t += 100);
	CHECK(took_loopback(VC_P2P, true, &lb) && lb.tag == 4);
	CHECK_EQ(__atomic_load_n(&vc->oper, __ATOMIC_ACQUIRE), VC_OPER_DOWN);
	CHECK(next_event(&ev));
	CHECK(ev.type == DP_EV_VC_STATE && ev.port == H_P2P && ev.vc == VC_P2P &&
	      ev.val == VC_OPER_DOWN);
	CHECK(!next_event(&ev));
	const struct stats_snapshot *s = h_snap();
	CHECK(s->vc[VC_P2P].oper == VC_OPER_DOWN && s->vc[VC_P2P].oper_change_ms != 0);

	/* Down: traffic for the VC is discarded; loopbacks still go. */
	uint8_t ip[100], f[128], mac[6];
	vc_mac_make(VC_P2P, mac);
	h_ip4(ip, sizeof(ip), IP(10, 4, 0, 2), IP(10, 1, 0, 2), 64, 1);
	h_sub_send(H_P2P, f, h_eth(f, mac, ip, sizeof(ip)));
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(h_vc(VC_P2P).discards[VC_DROP_VC_DOWN] - v.discards[VC_DROP_VC_DOWN], 1);

	/* A late reply (tag 3) changes nothing; replies to 4 and then 5 bring it up. */
	far_loopback(VC_P2P, 0, 3, true);
	far_loopback(VC_P2P, 0, 4, true);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(__atomic_load_n(&vc->oper, __ATOMIC_ACQUIRE), VC_OPER_DOWN);
	timers(t += 100);
	CHECK(took_loopback(VC_P2P, true, &lb) && lb.tag == 5);
	far_loopback(VC_P2P, 0, 5, true);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK_EQ(__atomic_load_n(&vc->oper, __ATOMIC_ACQUIRE), VC_OPER_UP);
	CHECK(next_event(&ev));
	CHECK(ev.type == DP_EV_VC_STATE && ev.vc == VC_P2P && ev.val == VC_OPER_UP);
	CHECK(!next_event(&ev));
	/* Up: the retry set while down fires once more, then the normal interval. */
	timers(t += 100);
	CHECK(took_loopback(VC_P2P, true, &lb) && lb.tag == 6);
	far_loopback(VC_P2P, 0, 6, true);
	CHECK_EQ(h_rx(pkts), 0);
	timers(t + 999);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	timers(t + 1000);
	CHECK(took_loopback(VC_P2P, true, &lb) && lb.tag == 7);
	far_loopback(VC_P2P, 0, 7, true);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(!next_event(&ev));
	vc->cfg.oam_enabled = false;

	struct vc_counters v1 = h_vc(VC_P2P);
	CHECK_EQ(v1.lb_sent - v.lb_sent, 7);
	CHECK_EQ(v1.lb_lost - v.lb_lost, 3);
	CHECK_EQ(v1.lb_replies - v.lb_replies, 4);
	CHECK_EQ(v1.oper_changes - v.oper_changes, 2);
	CHECK_EQ(v1.oam_out - v.oam_out, 7);
	CHECK_EQ(v1.oam_in - v.oam_in, 5);
	CHECK_EQ(v1.lb_answered - v.lb_answered, 0);
}

/* On-demand loopback (cellgatectl ping): answered with a round trip, or lost after 2 s. */
static void test_ping(void)
{
	struct atm_vc *vc = &h.dp.vcs[VC_MP_LLC];
	struct vc_counters v = h_vc(VC_MP_LLC);
	struct oam_loopback lb;
	struct dp_event ev;

	drain_events();
	__atomic_add_fetch(&vc->ping_req, 1, __ATOMIC_RELEASE);
	timers(h_now_ms());
	CHECK(took_loopback(VC_MP_LLC, true, &lb));
	CHECK(lb.indication == 1 && lb.tag == (0x80000000u | 1));
	far_loopback(VC_MP_LLC, 0, lb.tag, true);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(next_event(&ev));
	CHECK(ev.type == DP_EV_VC_PING && ev.port == H_MP && ev.vc == VC_MP_LLC && ev.val >= 1);

	__atomic_add_fetch(&vc->ping_req, 1, __ATOMIC_RELEASE);
	timers(h_now_ms());
	CHECK(took_loopback(VC_MP_LLC, true, &lb) && lb.tag == (0x80000000u | 2));
	h.c->aq.now_us += 2000000;
	timers(h_now_ms());
	CHECK(!next_event(&ev)); /* 2 s exactly: not yet */
	h.c->aq.now_us += 1;
	timers(h_now_ms());
	CHECK(next_event(&ev));
	CHECK(ev.type == DP_EV_VC_PING && ev.vc == VC_MP_LLC && ev.val == 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);

	struct vc_counters v1 = h_vc(VC_MP_LLC);
	CHECK_EQ(v1.lb_sent - v.lb_sent, 2);
	CHECK_EQ(v1.lb_replies - v.lb_replies, 1);
	CHECK_EQ(v1.lb_lost - v.lb_lost, 1);
}

static void far_inatmarp(uint16_t vc, uint16_t op, uint32_t spa, uint32_t tpa)
{
	uint8_t p[INATMARP_LEN];

	inatmarp_build(p, sizeof(p), &(struct inatmarp){.op = op, .spa = spa, .tpa = tpa});
	h_far_pdu(vc, llc_arp, 8, p, sizeof(p));
}

/* The one PDU taken is an InATMARP packet on `vc`. */
static bool took_inatmarp(uint16_t vc, struct inatmarp *m)
{
	unsigned pos = 0;

	h_take(&tx);
	return tx.nframes == 1 && tx.hdr_ok && tx.seq_ok && h_pdu(&tx, &pos, &pdu) &&
	       pos == tx.ncells && pdu.vci == h.dp.vcs[vc].cfg.vci && pdu.crc_ok &&
	       pdu.length == 8 + INATMARP_LEN && !memcmp(pdu.cpcs, llc_arp, 8) &&
	       inatmarp_parse(pdu.cpcs + 8, INATMARP_LEN, m) == 0;
}

static void test_inatmarp(void)
{
	struct atm_vc *vc = &h.dp.vcs[VC_MP_LLC];
	struct vc_counters v = h_vc(VC_MP_LLC), m = h_vc(VC_MP_MUX);
	struct inatmarp a;
	struct dp_event ev;

	drain_events();
	/* A request: the far end learns our address on this subinterface; we learn its. */
	far_inatmarp(VC_MP_LLC, INATMARP_OP_REQUEST, IP(10, 2, 0, 9), 0);
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(took_inatmarp(VC_MP_LLC, &a));
	CHECK(a.op == INATMARP_OP_REPLY && a.spa == IP(10, 2, 0, 1) && a.tpa == IP(10, 2, 0, 9));
	CHECK(next_event(&ev));
	CHECK(ev.type == DP_EV_INATMARP && ev.port == H_MP && ev.vc == VC_MP_LLC &&
	      ev.ip == IP(10, 2, 0, 9));
	/* A reply: learned, not answered. */
	far_inatmarp(VC_MP_LLC, INATMARP_OP_REPLY, IP(10, 2, 0, 10), IP(10, 2, 0, 1));
	CHECK_EQ(h_rx(pkts), 0);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK(next_event(&ev) && ev.type == DP_EV_INATMARP && ev.ip == IP(10, 2, 0, 10));
	/* Not ATM hardware: malformed, no event. */
	uint8_t p[INATMARP_LEN];
	inatmarp_build(p, sizeof(p), &(struct inatmarp){.op = 8, .spa = IP(10, 2, 0, 11)});
	p[1] = 0x01;
	h_far_pdu(VC_MP_LLC, llc_arp, 8, p, sizeof(p));
	CHECK_EQ(h_rx(pkts), 0);
	CHECK(!next_event(&ev));

	/* Enabled: a request every interval, on LLC VCs only (VC-mux carries no ARP). */
	uint64_t t = h_now_ms() + FUTURE_MS;
	vc->cfg.inatmarp = true;
	h.dp.vcs[VC_MP_MUX].cfg.inatmarp = true;
	timers(t);
	CHECK(took_inatmarp(VC_MP_LLC, &a));
	CHECK(a.op == INATMARP_OP_REQUEST && a.spa == IP(10, 2, 0, 1) && a.tpa == 0);
	timers(t + 4999);
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	timers(t + 5000);
	CHECK(took_inatmarp(VC_MP_LLC, &a) && a.op == INATMARP_OP_REQUEST);
	vc->cfg.inatmarp = false;
	h.dp.vcs[VC_MP_MUX].cfg.inatmarp = false;

	struct vc_counters v1 = h_vc(VC_MP_LLC), m1 = h_vc(VC_MP_MUX);
	CHECK_EQ(v1.inatmarp_in - v.inatmarp_in, 3);
	CHECK_EQ(v1.inatmarp_out - v.inatmarp_out, 3);
	CHECK_EQ(v1.pdus_in - v.pdus_in, 3);
	CHECK_EQ(v1.pdus_out - v.pdus_out, 3);
	CHECK_EQ(v1.octets_out - v.octets_out, 3 * (8 + INATMARP_LEN));
	CHECK_EQ(v1.discards[VC_DROP_INATMARP_MALFORMED] - v.discards[VC_DROP_INATMARP_MALFORMED],
	         1);
	CHECK_EQ(h_vc_discards(VC_MP_LLC), 1);
	CHECK_EQ(m1.inatmarp_out - m.inatmarp_out, 0);
	CHECK_EQ(m1.pdus_out - m.pdus_out, 0);
}

/* Send `n` IP packets of `len` octets to the shaped VC's subinterface. */
static void shaped_send(unsigned n, uint16_t len)
{
	uint8_t ip[100], f[128], mac[6];

	vc_mac_make(VC_SHAPED, mac);
	for (unsigned i = 0; i < n; i++) {
		h_ip4(ip, len, IP(10, 4, 0, 2), IP(10, 3, 0, 2), 64, (uint8_t)(30 + i));
		h_sub_send(H_SHAPED, f, h_eth(f, mac, ip, len));
	}
}

/* One service pass at `now_us`; returns the cells it sent. */
static unsigned service_at(uint64_t now_us)
{
	h.c->aq.now_us = now_us;
	cellpw_service(h.c, cellpw_vcset_current(h.c), true);
	h_take(&tx);
	return tx.ncells;
}

/* PCR 1000 cells/s and a bucket of 4 (one frame): cells leave as the tokens allow. */
static void test_shaping(void)
{
	struct atm_vc *vc = &h.dp.vcs[VC_SHAPED];
	struct vc_counters v = h_vc(VC_SHAPED);
	uint64_t t = h.c->aq.now_us;
	unsigned pos = 0, good = 0;

	shaped_send(2, 100); /* 6 cells, queued: nothing leaves without a service pass */
	h_take(&tx);
	CHECK_EQ(tx.nframes, 0);
	CHECK_EQ(vc->shape_count, 6);
	CHECK_EQ(h_vc(VC_SHAPED).pdus_out - v.pdus_out, 2);
	CHECK_EQ(h_vc(VC_SHAPED).cells_out - v.cells_out, 0);
	CHECK_EQ(service_at(t), 4); /* the full bucket */
	CHECK(tx.nframes == 1 && tx.hdr_ok && tx.seq_ok);
	CHECK_EQ(service_at(t), 0);
	CHECK_EQ(service_at(t + 999), 0); /* 0.999 of a cell */
	CHECK_EQ(service_at(t + 1000), 1);
	CHECK_EQ(service_at(t + 2000), 1);
	CHECK_EQ(vc->shape_count, 0);
	CHECK_EQ(h_vc(VC_SHAPED).cells_out - v.cells_out, 6);

	/* 16 cells of queue: 5 PDUs of 3 cells and one of 1 fit, the others do not. */
	shaped_send(6, 100);
	shaped_send(2, 28);
	CHECK_EQ(vc->shape_count, H_SHAPE_QUEUE);
	CHECK_EQ(h_vc(VC_SHAPED).discards[VC_DROP_QUEUE_FULL] - v.discards[VC_DROP_QUEUE_FULL], 2);
	/* However long the wait, at most a bucket per pass; the queue wraps on the way. */
	t += 1000000;
	static struct h_tx all;
	all.ncells = 0;
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ(service_at(t += 1000000), 4);
		memcpy(all.cell[all.ncells], tx.cell, 4 * ATM_PW_CELL_SIZE);
		all.ncells += 4;
	}
	CHECK_EQ(service_at(t += 1000000), 0);
	while (h_pdu(&all, &pos, &pdu))
		good += pdu.crc_ok && pdu.vpi == 2 && pdu.vci == 300 && pdu.one_vc;
	CHECK_EQ(good, 6);
	CHECK_EQ(pos, 16);

	struct vc_counters v1 = h_vc(VC_SHAPED);
	CHECK_EQ(v1.pdus_out - v.pdus_out, 8);
	CHECK_EQ(v1.cells_out - v.cells_out, 22);
	CHECK_EQ(v1.octets_out - v.octets_out, 7 * 108 + 36);
	CHECK_EQ(h_vc_discards(VC_SHAPED), 2);
}

int main(void)
{
	if (h_setup() != 0) {
		fprintf(stderr, "test_cellpw_ctl: setup failed\n");
		return 1;
	}
	h_rx(pkts); /* set the port's clock */
	test_oam_answer();
	test_oam_state();
	test_ping();
	test_inatmarp();
	test_shaping();
	test_oam_location();
	test_oam_shaped();
	h_teardown();
	return check_report("test_cellpw_ctl");
}

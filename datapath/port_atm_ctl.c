/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM per-VC control for both ATM drivers, run by the worker that owns the
 * VCs: OAM F5 loopback (ITU-T I.610 10.2.4) answered and originated, with the
 * VC's operational state following consecutive misses and successes, where
 * the driver can send cells (ops->oam_send; atmsock cannot: see
 * port_atmsock.h); InATMARP (RFC 2225 7) on routed LLC VCs and ARP (RFC 826)
 * on bridged ones, answered and originated; reassembly timeouts; capture
 * flushes. Results the control thread needs (state changes, learned peers,
 * ping round trips) go to it as events.
 */
#include <string.h>
#include <time.h>

#include "datapath/arp.h"
#include "datapath/atm/cell.h"
#include "datapath/atm/inatmarp.h"
#include "datapath/atm/oam.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"
#include "datapath/port_atm.h"
#include "lib/clock.h"

#define PING_TAG_BIT     0x80000000u /* on-demand loopbacks, apart from periodic ones */
#define PING_TIMEOUT_US  2000000u
#define CAPTURE_FLUSH_MS 100
#define OP_REQUEST       8 /* RFC 2225 7: InATMARP_Request */
#define OP_REPLY         9 /* InATMARP_Reply */

void atm_vc_event(struct atm_portq *q, const struct dp_event *ev)
{
	if (!event_ring_push(q->events, ev))
		CTR_ADD(q->ctr.events_lost, 1);
}

void atm_vc_set_oper(struct atm_portq *q, uint16_t vc_id, uint8_t oper)
{
	struct atm_vc *vc = &q->vcs[vc_id];

	if (__atomic_load_n(&vc->oper, __ATOMIC_RELAXED) == oper)
		return;
	__atomic_store_n(&vc->oper_change_ms, realtime_ms(), __ATOMIC_RELAXED);
	__atomic_store_n(&vc->oper, oper, __ATOMIC_RELEASE);
	CTR_ADD(vc->ctr.oper_changes, 1);
	atm_vc_event(q,
	             &(struct dp_event){
	                 .type = DP_EV_VC_STATE, .port = vc->cfg.subif, .vc = vc_id, .val = oper});
}

static void loopback_send(struct atm_portq *q, uint16_t vc_id, uint32_t tag)
{
	struct oam_loopback lb = {.indication = 1, .tag = tag};
	uint8_t payload[ATM_CELL_PAYLOAD];

	/* I.610: location ID all ones = the connection end point; source ID all ones = unused. */
	memset(lb.location_id, 0xff, sizeof(lb.location_id));
	memset(lb.source_id, 0xff, sizeof(lb.source_id));
	oam_loopback_build(payload, &lb);
	q->ops->oam_send(q, vc_id, payload, true);
	CTR_ADD(q->vcs[vc_id].ctr.lb_sent, 1);
}

static void oam_success(struct atm_portq *q, uint16_t vc_id, struct atm_vc *vc)
{
	CTR_ADD(vc->ctr.lb_replies, 1);
	vc->oam_outstanding = false;
	vc->oam_misses = 0;
	if (__atomic_load_n(&vc->oper, __ATOMIC_RELAXED) == VC_OPER_DOWN &&
	    ++vc->oam_successes >= vc->cfg.oam_up_count) {
		vc->oam_successes = 0;
		atm_vc_set_oper(q, vc_id, VC_OPER_UP);
	}
}

void atm_oam_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t payload[48], bool e2e)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	struct oam_loopback lb;
	uint8_t type_func, reply[ATM_CELL_PAYLOAD];
	int err;

	CTR_ADD(vc->ctr.oam_in, 1);
	err = oam_parse(payload, &type_func, &lb);
	if (err != 0) {
		/* Bad CRC-10, or AIS/RDI/CC and other functions we do not act on. */
		CTR_ADD(vc->ctr.discards[err == OAM_ERR_CRC ? VC_DROP_OAM_CRC : VC_DROP_OAM_OTHER],
		        1);
		return;
	}
	if (lb.indication & 1) {
		/* I.610 10.2.4: only the loopback point the location ID names loops the
		 * cell back; all ones names the end point, which we are. */
		static const uint8_t end_point[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		                                      0xff, 0xff, 0xff, 0xff};
		if (memcmp(lb.location_id, end_point, sizeof(end_point))) {
			CTR_ADD(vc->ctr.discards[VC_DROP_OAM_LOCATION], 1);
			return;
		}
		/* The loopback point returns the cell with the indication cleared, same
		 * tag, on the same flow (segment or end-to-end). */
		lb.indication = 0;
		oam_loopback_build(reply, &lb);
		q->ops->oam_send(q, vc_id, reply, e2e);
		CTR_ADD(vc->ctr.lb_answered, 1);
		return;
	}
	if (vc->ping_tag && lb.tag == vc->ping_tag) {
		uint64_t rtt = q->now_us - vc->ping_sent_us;
		vc->ping_tag = 0;
		CTR_ADD(vc->ctr.lb_replies, 1);
		atm_vc_event(q, &(struct dp_event){.type = DP_EV_VC_PING,
		                                   .port = vc->cfg.subif,
		                                   .vc = vc_id,
		                                   .val = rtt ? (uint32_t)rtt : 1});
		return;
	}
	if (vc->oam_outstanding && lb.tag == vc->oam_tag)
		oam_success(q, vc_id, vc);
	/* Anything else is a late reply to a loopback already counted lost. */
}

static void oam_timer(struct atm_portq *q, uint16_t vc_id, struct atm_vc *vc, uint64_t now_ms)
{
	if (now_ms < vc->oam_next_ms)
		return;
	if (vc->oam_outstanding) {
		CTR_ADD(vc->ctr.lb_lost, 1);
		vc->oam_outstanding = false;
		vc->oam_successes = 0;
		if (++vc->oam_misses >= vc->cfg.oam_down_count)
			atm_vc_set_oper(q, vc_id, VC_OPER_DOWN);
	}
	vc->oam_tag = (vc->oam_tag + 1) & ~PING_TAG_BIT;
	vc->oam_outstanding = true;
	loopback_send(q, vc_id, vc->oam_tag);
	/* Cisco-style: the normal interval while all is well, the retry interval
	 * while loopbacks are being lost or the VC is down. */
	bool healthy =
	    vc->oam_misses == 0 && __atomic_load_n(&vc->oper, __ATOMIC_RELAXED) == VC_OPER_UP;
	vc->oam_next_ms = now_ms + (healthy ? vc->cfg.oam_interval_ms : vc->cfg.oam_retry_ms);
}

static void ping_timer(struct atm_portq *q, uint16_t vc_id, struct atm_vc *vc)
{
	uint32_t req = __atomic_load_n(&vc->ping_req, __ATOMIC_ACQUIRE);

	if (vc->ping_tag && q->now_us - vc->ping_sent_us > PING_TIMEOUT_US) {
		vc->ping_tag = 0;
		CTR_ADD(vc->ctr.lb_lost, 1);
		atm_vc_event(
		    q, &(struct dp_event){
		           .type = DP_EV_VC_PING, .port = vc->cfg.subif, .vc = vc_id, .val = 0});
	}
	if (req == vc->ping_seen || vc->ping_tag)
		return;
	vc->ping_seen = req;
	if (!q->ops->oam_send) {
		/* No cell access (atmsock): the control thread says why; nothing was sent. */
		atm_vc_event(
		    q, &(struct dp_event){
		           .type = DP_EV_VC_PING, .port = vc->cfg.subif, .vc = vc_id, .val = 0});
		return;
	}
	vc->ping_tag = PING_TAG_BIT | (req & 0x7fffffff);
	vc->ping_sent_us = q->now_us;
	loopback_send(q, vc_id, vc->ping_tag);
}

static void inatmarp_send(struct atm_portq *q, uint16_t vc_id, uint16_t op, uint32_t tpa)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	struct inatmarp m = {.op = op, .spa = q->ip4_of_subif[vc->cfg.subif], .tpa = tpa};
	uint8_t pkt[64];
	size_t len;

	if (m.spa == 0 || vc->cfg.encap != VC_ENCAP_LLC_SNAP)
		return; /* InATMARP needs LLC/SNAP (RFC 2225 7) and an address to offer */
	len = inatmarp_build(pkt, sizeof(pkt), &m);
	if (len == 0)
		return;
	q->ops->vc_send(q, vc_id, rfc2684_llc_header(0x0806), 8, pkt, len);
	CTR_ADD(vc->ctr.inatmarp_out, 1);
}

void atm_inatmarp_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t *p, size_t len)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	struct inatmarp m;

	CTR_ADD(vc->ctr.inatmarp_in, 1);
	if (inatmarp_parse(p, len, &m) != 0) {
		CTR_ADD(vc->ctr.discards[VC_DROP_INATMARP_MALFORMED], 1);
		return;
	}
	if (m.spa != 0)
		atm_vc_event(q, &(struct dp_event){.type = DP_EV_INATMARP,
		                                   .port = vc->cfg.subif,
		                                   .vc = vc_id,
		                                   .ip = m.spa});
	/* RFC 2225 7: answer a request with our address on this VC. */
	if (m.op == OP_REQUEST)
		inatmarp_send(q, vc_id, OP_REPLY, m.spa);
}

/* The ARP packet (RFC 826) after an Ethernet header: a reply from us to `to`. */
static void arp_reply_build(uint8_t *a, const uint8_t mac[6], uint32_t ip,
                            const struct arp_info *to)
{
	static const uint8_t fixed[8] = {0, 1, 0x08, 0, 6, 4, 0, ARP_OP_REPLY};

	memcpy(a, fixed, sizeof(fixed));
	memcpy(a + 8, mac, 6);
	for (int i = 0; i < 4; i++) {
		a[14 + i] = (uint8_t)(ip >> (24 - 8 * i));
		a[24 + i] = (uint8_t)(to->spa >> (24 - 8 * i));
	}
	memcpy(a + 18, to->sha, 6);
}

/*
 * Bridged VC: ARP is how the far end and we find each other (RFC 2684 5.2
 * carries the LAN as it is). A sender address is the far end of this VC, as
 * InATMARP would have said; a request for our address gets our MAC.
 */
void atm_bridged_arp_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t *frame, size_t len)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	uint32_t me = q->ip4_of_subif[vc->cfg.subif];
	struct arp_info ai;
	uint8_t reply[28];

	CTR_ADD(vc->ctr.inatmarp_in, 1);
	if (!arp_parse(frame, (uint32_t)len, &ai)) {
		CTR_ADD(vc->ctr.discards[VC_DROP_INATMARP_MALFORMED], 1);
		return;
	}
	if (ai.spa != 0) {
		struct dp_event ev = {
		    .type = DP_EV_INATMARP, .port = vc->cfg.subif, .vc = vc_id, .ip = ai.spa};
		memcpy(ev.mac, ai.sha, 6);
		atm_vc_event(q, &ev);
	}
	if (ai.op != ARP_OP_REQUEST || me == 0 || ai.tpa != me)
		return;
	arp_reply_build(reply, q->port->mac, me, &ai);
	atm_vc_send_eth(q, vc_id, ai.sha, 0x0806, reply, sizeof(reply));
	CTR_ADD(vc->ctr.inatmarp_out, 1);
}

/*
 * Neighbour discovery over a bridged VC (RFC 2684 5.2/6.2 carry Ethernet, so
 * the far end resolves our subinterface address as on a LAN, RFC 4861 7.2):
 * the kernel's TUN has no link-layer address to answer with, so the port
 * answers, as it answers ARP. Only solicitations for our first address; the
 * rest (and every other ND message) goes on to the worker, which hands it to
 * the kernel. The far end's MAC we learn from its frames (bridged_rx).
 */
bool atm_bridged_nd_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t *frame, size_t len)
{
	static const uint8_t zero[16];
	const uint8_t *me = q->ip6_of_subif ? q->ip6_of_subif[q->vcs[vc_id].cfg.subif] : zero;
	const uint8_t *ip = frame + 14;
	uint8_t na[ND_FRAME_MAX];
	struct nd_msg m;

	/* The cheap tests first: most IPv6 on the VC is transit. */
	if (len < 14 + IP6_HLEN + 24 || ip[6] != IP6_NH_ICMPV6 || ip[IP6_HLEN] != ICMP6_NEIGH_SOL ||
	    !memcmp(me, zero, 16))
		return false;
	if (nd_parse(ip, (uint32_t)(len - 14), &m) != ND_OK || memcmp(m.target, me, 16) != 0)
		return false;
	uint32_t n = nd_na_reply_build(na, &m, frame + 6, q->port->mac, true, true);
	atm_vc_send_eth(q, vc_id, na, 0x86dd, na + 14, n - 14);
	return true;
}

/* Bridged VC with a static peer address: ask for its MAC (and tell it ours). */
static void bridged_arp_request(struct atm_portq *q, uint16_t vc_id)
{
	struct atm_vc *vc = &q->vcs[vc_id];
	uint32_t me = q->ip4_of_subif[vc->cfg.subif];
	uint8_t f[ARP_FRAME_LEN];

	if (me == 0 || vc->cfg.peer_ip4 == 0)
		return;
	arp_request_build(f, q->port->mac, me, vc->cfg.peer_ip4, NULL);
	/* The Ethernet header arp_request_build wrote is the one atm_vc_send_eth makes. */
	atm_vc_send_eth(q, vc_id, f, 0x0806, f + 14, 28);
	CTR_ADD(vc->ctr.inatmarp_out, 1);
}

/*
 * Capture one SDU. A debugging aid: records go through the capture's stdio
 * buffer (a syscall per buffer-full, not per packet) and are flushed by the
 * VC timer every CAPTURE_FLUSH_MS, so a reader sees them soon after.
 */
void atm_capture(struct atm_vc *vc, struct pcap_sunatm *cap, bool outbound, const uint8_t *sdu,
                 size_t len)
{
	pcap_sunatm_write(
	    cap, clock_ns(CLOCK_REALTIME), outbound, (uint8_t)vc->cfg.vpi, vc->cfg.vci,
	    vc->cfg.encap == VC_ENCAP_LLC_SNAP || vc->cfg.encap == VC_ENCAP_LLC_BRIDGED, sdu, len);
}

static inline uint64_t earliest(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* When the next timer of `vc` fires (ms), UINT64_MAX for none. */
static uint64_t vc_timers_next(const struct atm_portq *q, const struct atm_vc *vc, bool capturing)
{
	uint64_t next = UINT64_MAX;

	if (aal5_reasm_busy(&vc->rx))
		next = earliest(next, vc->rx.first_ms + vc->cfg.reasm_timeout_ms + 1);
	if (vc->cfg.oam_enabled && q->ops->oam_send)
		next = earliest(next, vc->oam_next_ms);
	if (vc->ping_tag)
		next = earliest(next, (vc->ping_sent_us + PING_TIMEOUT_US) / 1000 + 1);
	if (capturing)
		next = earliest(next, vc->cap_flush_ms + CAPTURE_FLUSH_MS);
	if (vc->cfg.inatmarp)
		next = earliest(next, vc->inatmarp_next_ms);
	return next;
}

uint64_t atm_vc_timers(struct atm_portq *q, const struct atm_vcset *vs, uint64_t now_ms)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < vs->nvcs; i++) {
		uint16_t id = vs->ids[i];
		struct atm_vc *vc = &q->vcs[id];

		if (aal5_reasm_timed_out(&vc->rx, now_ms, vc->cfg.reasm_timeout_ms))
			CTR_ADD(vc->ctr.discards[VC_DROP_TIMEOUT], 1);
		if (vc->cfg.oam_enabled && q->ops->oam_send)
			oam_timer(q, id, vc, now_ms);
		ping_timer(q, id, vc);
		/* Loaded once: the control thread may start or stop a capture (vc.h). */
		struct pcap_sunatm *cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE);
		if (cap && now_ms - vc->cap_flush_ms >= CAPTURE_FLUSH_MS) {
			pcap_sunatm_flush(cap);
			vc->cap_flush_ms = now_ms;
		}
		if (vc->cfg.inatmarp && now_ms >= vc->inatmarp_next_ms) {
			if (vc_encap_bridged(vc->cfg.encap))
				bridged_arp_request(q, id);
			else
				inatmarp_send(q, id, OP_REQUEST, 0);
			vc->inatmarp_next_ms = now_ms + vc->cfg.inatmarp_interval_ms;
		}
		next = earliest(next, vc_timers_next(q, vc, cap != NULL));
	}
	return next;
}

uint64_t atm_timers_service(struct atm_portq *q, const struct atm_vcset *vs)
{
	uint64_t now_ms = q->now_us / 1000;

	if (now_ms != q->service_ms) {
		q->timers_next_ms = atm_vc_timers(q, vs, now_ms);
		q->service_ms = now_ms;
	}
	if (q->timers_next_ms == UINT64_MAX)
		return UINT64_MAX;
	/* Timers run once a millisecond: one due now runs in the next millisecond's pass. */
	return (q->timers_next_ms > now_ms ? q->timers_next_ms : now_ms + 1) * 1000000;
}

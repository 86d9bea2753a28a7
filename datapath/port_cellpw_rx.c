/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cellpw receive: carrier frames -> cells (RFC 4717 N:1 cell mode) -> AAL5
 * reassembly per VC (I.363.5) -> RFC 2684 decapsulation -> IPv4/IPv6 frames
 * with a synthetic Ethernet header, received on the VC's subinterface.
 * OAM cells and InATMARP packets go to port_atm_ctl.c. Every cell and SDU
 * that does not become a frame is counted under one reason.
 */
#include <string.h>
#include <time.h>

#include "datapath/atm/rfc2684.h"
#include "datapath/ip4.h"
#include "datapath/port_cellpw.h"
#include "lib/clock.h"

static inline struct cellpw_queue *CQ(struct port_queue *q)
{
	return (struct cellpw_queue *)(void *)q;
}

static void vc_discard(struct atm_vc *vc, enum vc_drop_reason r)
{
	CTR_ADD(vc->ctr.discards[r], 1);
}

static enum vc_drop_reason aal5_drop_reason(enum aal5_status st)
{
	switch (st) {
	case AAL5_ERR_CRC:
		return VC_DROP_CRC;
	case AAL5_ERR_ABORT:
		return VC_DROP_ABORT;
	case AAL5_ERR_OVERSIZE:
		return VC_DROP_OVERSIZE;
	default:
		return VC_DROP_LENGTH;
	}
}

/* A complete SDU on `vc`: decapsulated (port_atm.c), then a frame for the worker. */
static unsigned sdu_rx(struct cellpw_queue *c, uint16_t vc_id, struct atm_vc *vc, uint8_t *sdu,
                       uint32_t len, struct pkt *out, unsigned room)
{
	uint16_t ethertype;
	size_t hlen;

	if (!atm_sdu_rx(&c->aq, vc_id, sdu, len, &ethertype, &hlen))
		return 0;
	if (room == 0 || c->sdu_used == BURST_MAX) {
		vc_discard(vc, VC_DROP_OUT_OF_BUFFER);
		return 0;
	}
	/* The reassembly buffer is the VC's next PDU: the packet moves to a burst slot. */
	uint8_t *l3 = c->sdu_buf + (size_t)c->sdu_used++ * CELLPW_RXBUF_SZ + CELLPW_SDU_HEADROOM;
	uint32_t iplen = len - (uint32_t)hlen;

	memcpy(l3, sdu + hlen, iplen);
	atm_frame(&c->aq, vc_id, l3, iplen, ethertype, out);
	return 1;
}

static unsigned frame_rx(struct cellpw_queue *c, const struct atm_vcset *vs, const struct pkt *f,
                         struct pkt *out, unsigned room)
{
	const struct cellpw_settings *set = c->set;
	struct pw_frame pf;
	unsigned n = 0;
	uint64_t now_ms = c->aq.now_us / 1000;
	uint32_t last_key = 0;
	uint16_t vc_id = 0;
	struct atm_vc *vc = NULL;

	int err = pw_frame_parse(f->data, f->len, set->encap.label, set->encap.control_word, &pf);
	if (err == PW_ERR_ETHERTYPE) {
		CTR_ADD(c->aq.ctr.non_pw_frames, 1);
		return 0;
	}
	if (err == PW_ERR_LABEL) {
		CTR_ADD(c->aq.ctr.pw_bad_label, 1);
		return 0;
	}
	if (err != 0) {
		CTR_ADD(c->aq.ctr.pw_malformed, 1);
		return 0;
	}
	CTR_ADD(c->aq.ctr.frames_in, 1);
	CTR_ADD(c->aq.ctr.octets_in, f->len);
	CTR_ADD(c->aq.ctr.cells_in, pf.ncells);
	if (pf.has_seq) {
		/* RFC 4385 4.2: count gaps and reordering; the cells are still used. */
		if (c->rx_seq_expect != 0 && pf.seq != c->rx_seq_expect)
			CTR_ADD(c->aq.ctr.seq_errors, 1);
		c->rx_seq_expect = pw_seq_next(pf.seq);
	}
	for (unsigned i = 0; i < pf.ncells; i++) {
		const uint8_t *cell = pf.cells + (size_t)i * ATM_PW_CELL_SIZE;
		uint32_t h = atm_hdr_load(cell);
		uint32_t key = h >> 4; /* VPI/VCI, GFC included (always 0 here) */
		uint8_t pti = atm_hdr_pti(h);

		if (key != last_key || !vc) {
			vc = atm_vc_find(&c->aq, vs, atm_hdr_vpi(h), atm_hdr_vci(h), &vc_id);
			last_key = key;
		}
		if (!vc) {
			CTR_ADD(c->aq.ctr.unknown_vc_cells, 1);
			continue;
		}
		CTR_ADD(vc->ctr.cells_in, 1);
		if (!atm_hdr_clp(h))
			CTR_ADD(vc->ctr.clp0_cells_in, 1);
		if (pti >= ATM_PTI_OAM_SEG) {
			/* I.610: PTI 4/5 are F5 OAM (segment/end-to-end); 6 RM, 7 reserved. */
			if (pti == ATM_PTI_OAM_SEG || pti == ATM_PTI_OAM_E2E)
				atm_oam_rx(&c->aq, vc_id, cell + 4, pti == ATM_PTI_OAM_E2E);
			else
				vc_discard(vc, VC_DROP_OAM_OTHER);
			continue;
		}
		uint32_t len;
		enum aal5_status st =
		    aal5_reasm_cell(&vc->rx, cell + 4, pti & ATM_PTI_AUU, now_ms, &len);
		if (st == AAL5_MORE)
			continue;
		if (st != AAL5_DONE) {
			vc_discard(vc, aal5_drop_reason(st));
			continue;
		}
		n += sdu_rx(c, vc_id, vc, vc->rx.buf, len, out + n, room - n);
	}
	return n;
}

unsigned cellpw_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	struct cellpw_queue *c = CQ(q);
	const struct port_ops *car = c->set->carrier_ops;
	/* Once for the whole burst (cellpw_vcset). */
	const struct atm_vcset *vs = cellpw_vcset_load(c);
	unsigned n = 0;

	c->aq.now_us = mono_us();
	c->sdu_used = 0;
	for (;;) {
		if (c->rx_pos == c->rx_nframes) {
			if (c->rx_nframes)
				car->rx_release(c->carrier);
			c->rx_pos = 0;
			c->rx_nframes = car->rx_burst(c->carrier, c->rx_frames, BURST_MAX);
			if (c->rx_nframes == 0)
				break;
		}
		const struct pkt *f = &c->rx_frames[c->rx_pos];
		/* A frame completes at most one SDU per cell: leave it for the next burst
		 * unless it fits, so SDUs are not lost for want of room. */
		if (n > 0 && n + f->len / ATM_PW_CELL_SIZE > max)
			break;
		c->rx_pos++;
		n += frame_rx(c, vs, f, pkts + n, max - n);
	}
	return n;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cellpw transmit: SDUs -> AAL5 CPCS-PDUs cut into cells (I.363.5) -> per-VC
 * shaping at PCR where configured -> cells packed into carrier frames of up to
 * max-cells-per-frame (RFC 4717 N:1, cells of different VCs may share a
 * frame) -> the carrier's AF_PACKET TX ring. A frame leaves when it is full,
 * when its first cell has waited the concatenation timer, or at the end of a
 * worker pass that leaves no more cells on their way (no point holding cells
 * on an idle link: the timer only matters under load).
 */
#include <string.h>

#include "datapath/atm/oam.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/port_cellpw.h"

static void vc_discard(struct atm_vc *vc, enum vc_drop_reason r)
{
	CTR_ADD(vc->ctr.discards[r], 1);
}

static unsigned pw_hdr_len(const struct cellpw_queue *c)
{
	return c->set->encap.control_word ? 22 : 18;
}

static uint8_t *frame_at(struct cellpw_queue *c, unsigned i)
{
	return c->tx_buf + (size_t)i * CELLPW_FRAME_MAX;
}

/* The frame being filled is complete: give it its header and sequence number. */
static void frame_close(struct cellpw_queue *c)
{
	uint8_t *f = frame_at(c, c->tx_nframes);
	uint16_t seq = 0;

	if (c->set->encap.control_word) {
		c->tx_seq = pw_seq_next(c->tx_seq);
		seq = c->tx_seq;
	}
	pw_frame_header(f, &c->set->encap, seq);
	c->tx_pkt[c->tx_nframes].len = pw_hdr_len(c) + c->tx_cells * ATM_PW_CELL_SIZE;
	c->tx_nframes++;
	c->tx_cells = 0;
}

void cellpw_tx_push(struct cellpw_queue *c, bool all)
{
	const struct port_ops *car = c->set->carrier_ops;
	unsigned sent;
	uint64_t octets = 0;

	if (all && c->tx_cells)
		frame_close(c);
	if (c->tx_nframes == 0)
		return;
	sent = car->tx_burst(c->carrier, c->tx_ptr, c->tx_nframes);
	for (unsigned i = 0; i < sent; i++)
		octets += c->tx_pkt[i].len;
	car->tx_flush(c->carrier);
	CTR_ADD(c->aq.ctr.frames_out, sent);
	CTR_ADD(c->aq.ctr.octets_out, octets);
	if (sent < c->tx_nframes)
		CTR_ADD(c->aq.ctr.tx_full, c->tx_nframes - sent);
	/* Move a frame still being filled to the front. */
	if (c->tx_cells)
		memcpy(frame_at(c, 0) + pw_hdr_len(c), frame_at(c, c->tx_nframes) + pw_hdr_len(c),
		       (size_t)c->tx_cells * ATM_PW_CELL_SIZE);
	c->tx_nframes = 0;
}

/*
 * Room for `n` cells in the frame being filled, or NULL when they would not all
 * fit there (cells_append then spreads them over frames). Cells written there
 * are made part of the frame by frame_commit().
 */
static uint8_t *frame_room(struct cellpw_queue *c, unsigned n)
{
	if (c->tx_nframes == CELLPW_TX_FRAMES)
		cellpw_tx_push(c, false);
	if (c->tx_nframes == CELLPW_TX_FRAMES || c->tx_cells + n > c->set->max_cells)
		return NULL;
	if (c->tx_cells == 0)
		c->tx_partial_since_us = c->aq.now_us;
	return frame_at(c, c->tx_nframes) + pw_hdr_len(c) + (size_t)c->tx_cells * ATM_PW_CELL_SIZE;
}

static void frame_commit(struct cellpw_queue *c, unsigned n)
{
	c->tx_cells += n;
	CTR_ADD(c->aq.ctr.cells_out, n);
	if (c->tx_cells == c->set->max_cells)
		frame_close(c);
}

/* Append cells to the frames being built; returns how many found room. */
static unsigned cells_append(struct cellpw_queue *c, const uint8_t *cells, unsigned n)
{
	unsigned done = 0, max = c->set->max_cells, hlen = pw_hdr_len(c);

	while (done < n) {
		if (c->tx_nframes == CELLPW_TX_FRAMES) {
			cellpw_tx_push(c, false);
			if (c->tx_nframes == CELLPW_TX_FRAMES)
				break;
		}
		unsigned k = max - c->tx_cells;
		if (k > n - done)
			k = n - done;
		if (c->tx_cells == 0)
			c->tx_partial_since_us = c->aq.now_us;
		memcpy(frame_at(c, c->tx_nframes) + hlen + (size_t)c->tx_cells * ATM_PW_CELL_SIZE,
		       cells + (size_t)done * ATM_PW_CELL_SIZE, (size_t)k * ATM_PW_CELL_SIZE);
		c->tx_cells += k;
		done += k;
		if (c->tx_cells == max)
			frame_close(c);
	}
	CTR_ADD(c->aq.ctr.cells_out, done);
	return done;
}

static void vc_cells_out(struct atm_vc *vc, unsigned n)
{
	/* We never tag cells: CLP stays 0 on everything we send. */
	CTR_ADD(vc->ctr.cells_out, n);
	CTR_ADD(vc->ctr.clp0_cells_out, n);
}

/* One PDU accepted for transmission: counted, and captured when asked. */
static void vc_pdu_out(struct atm_vc *vc, const uint8_t *prefix, size_t prefix_len,
                       const uint8_t *sdu, size_t len)
{
	CTR_ADD(vc->ctr.pdus_out, 1);
	CTR_ADD(vc->ctr.octets_out, prefix_len + len);
	struct pcap_sunatm *cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE); /* once: see vc.h */
	if (cap) {
		/* The capture wants the SDU in one piece, RFC 2684 header included. */
		if (prefix_len)
			memcpy(vc->cap_buf, prefix, prefix_len);
		memcpy(vc->cap_buf + prefix_len, sdu, len);
		atm_capture(vc, cap, true, vc->cap_buf, prefix_len + len);
	}
}

int cellpw_vc_send(struct atm_portq *q, uint16_t vc_id, const uint8_t *prefix, size_t prefix_len,
                   const uint8_t *sdu, size_t len)
{
	struct cellpw_queue *c = (struct cellpw_queue *)(void *)q;
	struct atm_vc *vc = &c->set->vcs[vc_id];
	size_t sdu_len = prefix_len + len;

	if (__atomic_load_n(&vc->oper, __ATOMIC_RELAXED) != VC_OPER_UP) {
		vc_discard(vc, VC_DROP_VC_DOWN);
		return VC_DROP_VC_DOWN;
	}
	if (sdu_len > vc->rx.max_sdu || sdu_len > 65535) {
		vc_discard(vc, VC_DROP_TOO_BIG);
		return VC_DROP_TOO_BIG;
	}
	uint32_t hdr = atm_hdr_make(vc->cfg.vpi, vc->cfg.vci, 0, 0);
	uint8_t *dst;
	if (vc->cfg.pcr == 0 && (dst = frame_room(c, aal5_cells_for(sdu_len))) != NULL) {
		/* The whole PDU fits in the frame being filled: segment straight into it,
		 * not through seg_buf and a second copy. */
		unsigned n = aal5_segment(prefix, prefix_len, sdu, len, hdr, dst, ATM_PW_CELL_SIZE);
		frame_commit(c, n);
		vc_cells_out(vc, n);
		vc_pdu_out(vc, prefix, prefix_len, sdu, len);
		return -1;
	}
	unsigned ncells =
	    aal5_segment(prefix, prefix_len, sdu, len, hdr, c->seg_buf, ATM_PW_CELL_SIZE);
	if (vc->cfg.pcr == 0) {
		unsigned sent = cells_append(c, c->seg_buf, ncells);
		vc_cells_out(vc, sent);
		if (sent < ncells) {
			/* The rest of this PDU is lost: the far end counts a length/CRC error. */
			vc_discard(vc, VC_DROP_TX_FULL);
			return VC_DROP_TX_FULL;
		}
	} else {
		if (vc->shape_count + ncells > vc->cfg.queue_cells) {
			vc_discard(vc, VC_DROP_QUEUE_FULL);
			return VC_DROP_QUEUE_FULL;
		}
		for (unsigned i = 0; i < ncells; i++) {
			uint32_t slot =
			    (vc->shape_head + vc->shape_count + i) % vc->cfg.queue_cells;
			memcpy(vc->shape_q + (size_t)slot * ATM_PW_CELL_SIZE,
			       c->seg_buf + (size_t)i * ATM_PW_CELL_SIZE, ATM_PW_CELL_SIZE);
		}
		vc->shape_count += ncells;
	}
	vc_pdu_out(vc, prefix, prefix_len, sdu, len);
	return -1;
}

void cellpw_oam_send(struct atm_portq *q, uint16_t vc_id, const uint8_t payload[48], bool e2e)
{
	struct cellpw_queue *c = (struct cellpw_queue *)(void *)q;
	struct atm_vc *vc = &c->set->vcs[vc_id];
	uint8_t cell[ATM_PW_CELL_SIZE];

	atm_hdr_store(cell, oam_hdr_word(vc->cfg.vpi, vc->cfg.vci, e2e));
	memcpy(cell + 4, payload, ATM_CELL_PAYLOAD);
	if (vc->cfg.pcr) {
		/* F5 OAM cells are cells of the VC's flow (I.371): they take the shaper's
		 * tokens like data, so a flood of loopbacks cannot push the VC past PCR. */
		if (vc->shape_count == vc->cfg.queue_cells) {
			vc_discard(vc, VC_DROP_QUEUE_FULL);
			return;
		}
		memcpy(vc->shape_q +
		           (size_t)((vc->shape_head + vc->shape_count) % vc->cfg.queue_cells) *
		               ATM_PW_CELL_SIZE,
		       cell, ATM_PW_CELL_SIZE);
		vc->shape_count++;
		CTR_ADD(vc->ctr.oam_out, 1);
		return;
	}
	if (cells_append(c, cell, 1) == 1) {
		vc_cells_out(vc, 1);
		CTR_ADD(vc->ctr.oam_out, 1);
	} else {
		vc_discard(vc, VC_DROP_TX_FULL);
	}
}

/*
 * Release the cells each shaped VC has tokens for. Returns when the next
 * token of a VC with cells still queued is due (UINT64_MAX: none queued).
 */
static uint64_t shaping_run(struct cellpw_queue *c, const struct atm_vcset *vs)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < vs->nvcs; i++) {
		struct atm_vc *vc = &c->set->vcs[vs->ids[i]];

		while (vc->shape_count) {
			uint32_t want = vc->shape_count;
			uint32_t run = vc->cfg.queue_cells - vc->shape_head; /* up to the wrap */
			if (want > run)
				want = run;
			uint32_t got = atm_shaper_take(&vc->shaper, c->aq.now_us * 1000, want);
			if (got == 0)
				break;
			unsigned sent = cells_append(
			    c, vc->shape_q + (size_t)vc->shape_head * ATM_PW_CELL_SIZE, got);
			vc_cells_out(vc, sent);
			/* Cells that found no room in the carrier ring are lost with the tokens. */
			if (sent < got)
				vc_discard(vc, VC_DROP_TX_FULL);
			vc->shape_head = (vc->shape_head + got) % vc->cfg.queue_cells;
			vc->shape_count -= got;
			if (got < want)
				break;
		}
		if (vc->shape_count) {
			uint64_t t = atm_shaper_next_ns(&vc->shaper, c->aq.now_us * 1000);
			if (t < next)
				next = t;
		}
	}
	return next;
}

/* The frame being filled: out now, or wait for more cells; returns its deadline (ns). */
static uint64_t partial_run(struct cellpw_queue *c, bool more_coming)
{
	uint64_t due_us = c->tx_partial_since_us + c->set->concat_us;

	if (c->tx_cells == 0 || !more_coming || c->aq.now_us >= due_us) {
		cellpw_tx_push(c, true);
		return UINT64_MAX;
	}
	if (c->tx_nframes)
		cellpw_tx_push(c, false);
	return due_us * 1000;
}

uint64_t cellpw_service(struct cellpw_queue *c, const struct atm_vcset *vs, bool busy)
{
	const struct port_ops *car = c->set->carrier_ops;
	uint64_t shaped, next, t;

	atm_host_ring_run(&c->aq, vs);
	next = shaped = shaping_run(c, vs);
	if ((t = atm_timers_service(&c->aq, vs)) < next)
		next = t;
	/* Cells are on their way when RX has more or a shaper holds some back. */
	if ((t = partial_run(c, busy || shaped != UINT64_MAX)) < next)
		next = t;
	if (car->service && (t = car->service(c->carrier, c->aq.now_us * 1000, busy)) < next)
		next = t;
	return next;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* pipe2 */
#include "tests/unit/cellpw_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/oam.h"
#include "datapath/csum.h"
#include "datapath/ip4.h"
#include "lib/clock.h"
#include "tests/unit/fib_env.h"

struct harness h;
const uint8_t h_carrier_mac[6] = {0x02, 0, 0, 0, 0xc0, 0x01};
const uint8_t h_peer_mac[6] = {0x02, 0, 0, 0, 0xfe, 0x01};

static const struct {
	uint16_t vpi, vci, subif;
	uint8_t encap;
	uint32_t pcr;
} vc_plan[H_NVCS] = {
    [VC_P2P] = {0, 100, H_P2P, VC_ENCAP_LLC_SNAP, 0},
    [VC_MP_LLC] = {0, 101, H_MP, VC_ENCAP_LLC_SNAP, 0},
    [VC_MP_MUX] = {0, 102, H_MP, VC_ENCAP_VCMUX_IPV4, 0},
    [VC_SHAPED] = {2, 300, H_SHAPED, VC_ENCAP_LLC_SNAP, H_SHAPE_PCR},
};

static void vc_setup(struct atm_vc *vc, unsigned i)
{
	vc->cfg = (struct atm_vc_cfg){
	    .atm_port = H_ATM,
	    .subif = vc_plan[i].subif,
	    .vpi = vc_plan[i].vpi,
	    .vci = vc_plan[i].vci,
	    .encap = vc_plan[i].encap,
	    .mtu = H_MTU,
	    .pcr = vc_plan[i].pcr,
	    .queue_cells = vc_plan[i].pcr ? H_SHAPE_QUEUE : 0,
	    .reasm_timeout_ms = H_REASM_MS,
	    /* OAM and InATMARP stay off until a case turns them on with synthetic time. */
	    .oam_interval_ms = 1000,
	    .oam_retry_ms = 100,
	    .oam_down_count = 3,
	    .oam_up_count = 2,
	    .inatmarp_interval_ms = 5000,
	};
}

static int port_open(struct port *p)
{
	int err = p->ops->queue_open(p, 0, 1, &p->queues[0]);

	if (err == 0)
		p->nqueues = 1;
	return err;
}

static void atm_port_setup(void)
{
	struct port *p = &h.dp.ports[H_ATM];
	struct cellpw_settings *s = &h.set;

	snprintf(p->name, sizeof(p->name), "atm0");
	p->id = H_ATM;
	p->ops = &port_cellpw_ops;
	p->mtu = 9180;
	memcpy(p->mac, h_carrier_mac, 6);
	p->drv = s;
	snprintf(s->carrier, sizeof(s->carrier), "fakecar");
	memcpy(s->carrier_mac, h_carrier_mac, 6);
	s->carrier_mtu = 1500;
	memcpy(s->encap.dst, h_peer_mac, 6);
	memcpy(s->encap.src, h_carrier_mac, 6);
	s->encap.label = H_LABEL;
	s->encap.control_word = true;
	s->max_cells = H_MAX_CELLS;
	s->concat_us = 0;
	s->carrier_ops = &port_fake_ops;
	s->vcs = h.dp.vcs;
	for (unsigned i = 0; i < H_NVCS; i++)
		s->vc_ids[s->nvcs++] = (uint16_t)i;
	s->ip4_of_subif[H_P2P] = IP(10, 1, 0, 1);
	s->ip4_of_subif[H_MP] = IP(10, 2, 0, 1);
	s->ip4_of_subif[H_SHAPED] = IP(10, 3, 0, 1);
}

static void subif_setup(unsigned id, const char *name, bool p2p, uint16_t vc, int tun)
{
	struct port *p = &h.dp.ports[id];

	snprintf(p->name, sizeof(p->name), "%s", name);
	p->id = (uint16_t)id;
	p->ops = &port_atmsub_ops;
	p->mtu = H_MTU;
	p->ip4_addr = h.set.ip4_of_subif[id];
	p->mac[0] = 0x02;
	p->mac[4] = 0x5b;
	p->mac[5] = (uint8_t)id;
	p->p2p = p2p; /* as atm_subif_setup: next hops there need no resolution */
	h.sub[id] = (struct atmsub_settings){
	    .atm_port = &h.dp.ports[H_ATM], .tun_fd = tun, .p2p = p2p, .p2p_vc = vc};
	p->drv = &h.sub[id];
}

int h_setup(void)
{
	int err;

	if (dp_init(&h.dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256}) != 0)
		return -ENOMEM;
	h.dp.nports = H_NPORTS;
	h.dp.vcs = calloc(VC_MAX, sizeof(*h.dp.vcs));
	if (!h.dp.vcs || pipe2(h.tun, O_NONBLOCK) != 0)
		return -ENOMEM;
	h.dp.nvcs = H_NVCS;
	h.dp.params =
	    (struct dp_params){.icmp_rate = 1000, .icmp_burst = 1000, .hold_timeout_ms = 60};
	for (unsigned i = 0; i < H_NVCS; i++)
		vc_setup(&h.dp.vcs[i], i);
	atm_port_setup();
	/* The ATM port first: a subinterface finds its queue when it opens. */
	if ((err = port_open(&h.dp.ports[H_ATM])) != 0)
		return err;
	subif_setup(H_P2P, "atm0.1", true, VC_P2P, h.tun[1]);
	subif_setup(H_MP, "atm0.2", false, 0, -1);
	subif_setup(H_SHAPED, "atm0.3", true, VC_SHAPED, -1);
	for (unsigned id = H_P2P; id <= H_SHAPED; id++)
		if ((err = port_open(&h.dp.ports[id])) != 0)
			return err;
	if ((err = port_fake_init(&h.dp.ports[H_ETH], H_ETH, "eth0", 1)) != 0)
		return err;
	h.dp.ports[H_ETH].ip4_addr = IP(10, 4, 0, 1);
	h.c = cellpw_queue_of(&h.dp.ports[H_ATM]);
	h.car = h.c->carrier;
	return dp_workers_create(&h.dp, NULL, 1);
}

void h_teardown(void)
{
	dp_workers_stop(&h.dp);
	for (unsigned id = H_SHAPED; id >= H_P2P; id--)
		h.dp.ports[id].ops->queue_close(h.dp.ports[id].queues[0]);
	port_cellpw_ops.queue_close(h.dp.ports[H_ATM].queues[0]);
	port_fake_fini(&h.dp.ports[H_ETH]);
	close(h.tun[0]);
	close(h.tun[1]);
	free(h.dp.vcs);
	dp_fini(&h.dp);
}

uint32_t h_ip4(uint8_t *ip, uint16_t total, uint32_t src, uint32_t dst, uint8_t ttl, uint8_t seed)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	wr16(ip + 2, total);
	ip[8] = ttl;
	ip[9] = 17;
	wr32(ip + 12, src);
	wr32(ip + 16, dst);
	wr16(ip + 10, csum_compute(ip, 20));
	for (unsigned i = 20; i < total; i++)
		ip[i] = (uint8_t)(seed + i);
	if (total >= 28) {
		wr16(ip + 20, 4000);
		wr16(ip + 22, 9);
		wr16(ip + 24, (uint16_t)(total - 20));
		wr16(ip + 26, 0); /* no UDP checksum */
	}
	return total;
}

uint32_t h_eth(uint8_t *f, const uint8_t dst[6], const uint8_t *ip, uint32_t iplen)
{
	uint32_t len = 14 + iplen;

	memcpy(f, dst, 6);
	memcpy(f + 6, h.dp.ports[H_P2P].mac, 6);
	wr16(f + 12, ETHERTYPE_IPV4);
	memcpy(f + 14, ip, iplen);
	if (len < 60) {
		memset(f + len, 0xee, 60 - len); /* padding: not part of the IP packet */
		len = 60;
	}
	return len;
}

void h_sub_tx(unsigned port, uint8_t *const *frames, const uint32_t *lens, unsigned n)
{
	struct port *p = &h.dp.ports[port];
	struct pkt pk[BURST_MAX], *pp[BURST_MAX];

	for (unsigned i = 0; i < n; i++) {
		pk[i] = (struct pkt){.data = frames[i], .len = lens[i], .in_port = H_ETH};
		pp[i] = &pk[i];
	}
	/* As the worker flushes: past a frame refused alone, on with the next. */
	for (unsigned done = 0; done < n; done++) {
		done += p->ops->tx_burst(p->queues[0], pp + done, n - done);
		if (done < n && p->ops->tx_refused(p->queues[0], pp[done]) < 0)
			break;
	}
	p->ops->tx_flush(p->queues[0]);
}

void h_sub_send(unsigned port, uint8_t *frame, uint32_t len)
{
	h_sub_tx(port, &frame, &len, 1);
}

unsigned h_rx(struct pkt *pkts)
{
	struct port *p = &h.dp.ports[H_ATM];
	unsigned n = p->ops->rx_burst(p->queues[0], pkts, BURST_MAX);

	/* As the worker's pass does after RX: nothing more waiting. */
	p->ops->service(p->queues[0], mono_ns(), false);
	return n;
}

void h_far_frame(const uint8_t *f, uint32_t len)
{
	port_fake_queue_rx_add(h.car, f, len, PKT_L2_HOST);
}

uint32_t h_far_frame_build(uint8_t *f, const uint8_t *cells, unsigned n, uint16_t seq)
{
	struct pw_encap far = {.label = H_LABEL, .control_word = true};
	size_t hl;

	memcpy(far.dst, h_carrier_mac, 6);
	memcpy(far.src, h_peer_mac, 6);
	hl = pw_frame_header(f, &far, seq);
	memcpy(f + hl, cells, (size_t)n * ATM_PW_CELL_SIZE);
	return (uint32_t)(hl + (size_t)n * ATM_PW_CELL_SIZE);
}

void h_far_cells(const uint8_t *cells, unsigned n)
{
	uint8_t f[H_TX_RAW];

	for (unsigned i = 0; i < n; i += H_MAX_CELLS) {
		unsigned k = n - i < H_MAX_CELLS ? n - i : H_MAX_CELLS;

		h.far_seq = pw_seq_next(h.far_seq);
		h_far_frame(
		    f, h_far_frame_build(f, cells + (size_t)i * ATM_PW_CELL_SIZE, k, h.far_seq));
	}
}

unsigned h_segment(uint16_t vc, const uint8_t *prefix, size_t plen, const uint8_t *sdu, size_t len,
                   uint8_t *cells)
{
	const struct atm_vc_cfg *cfg = &h.dp.vcs[vc].cfg;

	return aal5_segment(prefix, plen, sdu, len, atm_hdr_make(cfg->vpi, cfg->vci, 0, 0), cells,
	                    ATM_PW_CELL_SIZE);
}

unsigned h_far_pdu(uint16_t vc, const uint8_t *prefix, size_t plen, const uint8_t *sdu, size_t len)
{
	static uint8_t cells[(AAL5_SDU_MAX / 48 + 2) * ATM_PW_CELL_SIZE];
	unsigned n = h_segment(vc, prefix, plen, sdu, len, cells);

	h_far_cells(cells, n);
	return n;
}

void h_oam_cell(uint8_t cell[52], uint16_t vc, const uint8_t payload[48], bool e2e)
{
	const struct atm_vc_cfg *cfg = &h.dp.vcs[vc].cfg;

	atm_hdr_store(cell, oam_hdr_word(cfg->vpi, cfg->vci, e2e));
	memcpy(cell + 4, payload, ATM_CELL_PAYLOAD);
}

static bool frame_hdr_ok(const uint8_t *f, uint32_t len)
{
	return len >= PW_HDR_MAX + ATM_PW_CELL_SIZE && (len - PW_HDR_MAX) % ATM_PW_CELL_SIZE == 0 &&
	       !memcmp(f, h_peer_mac, 6) && !memcmp(f + 6, h_carrier_mac, 6) &&
	       rd16(f + 12) == 0x8847 && rd32(f + 14) == ((uint32_t)H_LABEL << 12 | 0x100 | 64) &&
	       rd16(f + 18) == 0;
}

void h_take(struct h_tx *t)
{
	memset(t, 0, offsetof(struct h_tx, frame_cells));
	t->hdr_ok = t->seq_ok = true;
	for (; h.car_seen < h.car->tx_n; h.car_seen++) {
		uint32_t len;
		const uint8_t *f = port_fake_tx_frame(h.car, h.car_seen, &len);
		unsigned k = t->nframes++;

		if (!f || k >= H_TX_FRAMES || len > H_TX_RAW) {
			t->hdr_ok = false;
			continue;
		}
		t->hdr_ok = t->hdr_ok && frame_hdr_ok(f, len);
		t->seq[k] = rd16(f + 20);
		t->seq_ok = t->seq_ok && t->seq[k] == pw_seq_next(h.tx_seq);
		h.tx_seq = t->seq[k];
		t->len[k] = len;
		memcpy(t->raw[k], f, len);
		t->frame_cells[k] = (len - PW_HDR_MAX) / ATM_PW_CELL_SIZE;
		for (unsigned i = 0; i < t->frame_cells[k] && t->ncells < H_TX_CELLS; i++)
			memcpy(t->cell[t->ncells++], f + PW_HDR_MAX + i * ATM_PW_CELL_SIZE,
			       ATM_PW_CELL_SIZE);
	}
}

void h_loop_back(const struct h_tx *t)
{
	uint8_t f[H_TX_RAW];

	for (unsigned i = 0; i < t->nframes && i < H_TX_FRAMES; i++) {
		/* As the far end would send them: addressed to us. */
		memcpy(f, t->raw[i], t->len[i]);
		memcpy(f, h_carrier_mac, 6);
		memcpy(f + 6, h_peer_mac, 6);
		h_far_frame(f, t->len[i]);
		h.far_seq = t->seq[i];
	}
}

bool h_pdu(const struct h_tx *t, unsigned *pos, struct h_pdu *p)
{
	uint32_t first = 0;

	memset(p, 0, offsetof(struct h_pdu, cpcs));
	p->one_vc = p->auu_last_only = true;
	for (unsigned i = *pos; i < t->ncells; i++) {
		uint32_t w = atm_hdr_load(t->cell[i]);
		bool last = atm_hdr_is_last_user_cell(w);

		if (p->ncells == 0) {
			first = w;
			p->vpi = atm_hdr_vpi(w);
			p->vci = atm_hdr_vci(w);
		}
		p->one_vc = p->one_vc && (w >> 4) == (first >> 4) && !atm_hdr_clp(w);
		p->auu_last_only = p->auu_last_only && !(atm_hdr_pti(w) & ATM_PTI_OAM);
		if ((p->ncells + 1) * ATM_CELL_PAYLOAD > H_PDU_MAX)
			return false;
		memcpy(p->cpcs + p->ncells * ATM_CELL_PAYLOAD, t->cell[i] + 4, ATM_CELL_PAYLOAD);
		p->ncells++;
		if (!last)
			continue;
		uint32_t total = p->ncells * ATM_CELL_PAYLOAD;
		const uint8_t *tr = p->cpcs + total - 8;
		p->uu = tr[0];
		p->cpi = tr[1];
		p->length = rd16(tr + 2);
		p->crc_ok = aal5_crc32(p->cpcs, total - 4) == rd32(tr + 4);
		p->pad_zero = true;
		for (uint32_t k = p->length; k < total - 8 && p->length < total; k++)
			p->pad_zero = p->pad_zero && p->cpcs[k] == 0;
		*pos = i + 1;
		return true;
	}
	return false;
}

static struct stats_snapshot snap;

const struct stats_snapshot *h_snap(void)
{
	dp_stats_take(&h.dp, &snap);
	return &snap;
}

struct vc_counters h_vc(unsigned vc)
{
	return h_snap()->vc[vc].c;
}

uint64_t h_vc_discards(unsigned vc)
{
	return h_snap()->vc[vc].discards_total;
}

struct atm_port_counters h_atmc(void)
{
	return h_snap()->atm[H_ATM];
}

struct port_counters h_port(unsigned port)
{
	return h_snap()->port[port].c;
}

uint64_t h_now_ms(void)
{
	return h.c->aq.now_us / 1000;
}

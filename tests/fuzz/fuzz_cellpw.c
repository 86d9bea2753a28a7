/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: arbitrary input through the ATM receive path and on
 * through the real worker. One Ethernet port (eth0), one cellpw ATM port
 * (atm0) over an in-memory carrier, and two subinterfaces: atm0.100
 * point-to-point (VC 0/100, LLC/SNAP, OAM) and atm0.200 multipoint (VC 0/200
 * LLC/SNAP with InATMARP, VC 0/300 VC-mux, shaped).
 *
 * The input is a sequence of records [kind len_hi len_lo bytes...]:
 *   kind % 4 == 0  a raw carrier frame (pseudowire parsing)
 *   kind % 4 == 1  the bytes as an AAL5 SDU on VC (kind >> 2) % 4, segmented
 *                  into valid cells and frames, so decapsulation, InATMARP and
 *                  forwarding are reached (random bytes never pass the CRC)
 *   kind % 4 == 2  the same SDU behind a valid LLC/SNAP IPv4 header (kind & 32:
 *                  IPv6, PID 0x86DD)
 *   kind % 4 == 3  the first 48 bytes as an OAM cell with a valid CRC-10
 * The first record's kind & 64 makes VC 0/100 VC-mux IPv6 for the whole input
 * (else LLC/SNAP): the SDUs are decapsulated when the worker polls, after all
 * the records are queued.
 * eth0 and atm0.100 forward IPv6 too (2001:db8:a::/64 and 2001:db8:1::/64,
 * 2001:db8:4::/48 through the far end of the point-to-point VC).
 * After every input the accounting rule must hold on every port:
 * rx = forwarded + to-kernel + drops + held for ARP.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/rib.h"
#include "daemon/rib6.h"
#include "datapath/atm/oam.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/port_cellpw.h"
#include "tests/fuzz/fuzz_accounting.h"
#include "tests/unit/port_fake.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct dataplane dp;
static struct rib *rib; /* kept reachable: setup lives for the whole run */
static struct rib6 *rib6;
static struct cellpw_settings pw;
static struct atmsub_settings sub[2];
static struct cellpw_queue *atm;
static uint16_t seq;
static const uint8_t peer_mac[6] = {2, 0xcc, 0, 0, 0, 1};

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	uint8_t mac[6] = {2, 0xbb, 0, 0, 0, 2};

	(void)arg;
	if (port >= 2)
		vc_mac_make((uint16_t)(ip & 1 ? 1 : 2), mac); /* multipoint: VC 0/200 or 0/300 */
	return nh_l2_pack(mac, (ip & 2) ? NEIGH_FAILED : NEIGH_REACHABLE);
}

static void vc_setup(unsigned id, uint16_t vci, uint16_t subif, bool llc)
{
	dp.vcs[id].cfg = (struct atm_vc_cfg){
	    .atm_port = 1, .subif = subif, .vpi = 0, .vci = vci,
	    .encap = llc ? VC_ENCAP_LLC_SNAP : VC_ENCAP_VCMUX_IPV4, .mtu = 9180,
	    .queue_cells = 256, .reasm_timeout_ms = 1000, .oam_interval_ms = 10,
	    .oam_retry_ms = 5, .oam_down_count = 2, .oam_up_count = 1, .inatmarp_interval_ms = 50};
	pw.vc_ids[pw.nvcs++] = (uint16_t)id;
}

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	static const uint8_t mac[6] = {2, 0xbb, 0, 0, 0, 6};

	(void)arg;
	(void)port;
	return nh_l2_pack(mac, (ip[15] & 2) ? NEIGH_FAILED : NEIGH_REACHABLE);
}

/* IPv6 on eth0 and on the point-to-point atm0.100 (its next hops need no ND). */
static void setup6(void)
{
	static const uint8_t eth6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0xa, [15] = 1};
	static const uint8_t sub6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};
	static const uint8_t far6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};
	static const uint8_t net4[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 4};
	static const uint8_t neta[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0xa};
	static const uint8_t net1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1};
	struct rib6_path p0 = {.port = 0, .weight = 1}, p2 = {.port = 2, .weight = 1};
	struct rib6_path via = {.port = 2, .weight = 1};

	memcpy(via.gw, far6, 16);
	dp.ports[0].ip6 = dp.ports[2].ip6 = true;
	dp.ports[2].p2p = true;
	port_ip6_src_set(&dp.ports[0], eth6);
	port_ip6_src_set(&dp.ports[2], sub6);
	memcpy(pw.ip6_of_subif[2], sub6, 16);
	rib6 = rib6_new(rib, seed6, NULL);
	rib6_route_set(rib6, neta, 64, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1);
	rib6_route_set(rib6, net1, 64, RIB_SRC_CONNECTED, NH_GLEAN, &p2, 1);
	rib6_route_set(rib6, sub6, 128, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib6_route_set(rib6, net4, 48, RIB_SRC_STATIC, NH_GATEWAY, &via, 1);
}

static void setup(void)
{
	struct rib_path p0 = {.port = 0, .weight = 1}, p2 = {.port = 2, .weight = 1},
	                p3 = {.port = 3, .weight = 1};
	struct rib_path gw2 = {.gw = IP(10, 1, 0, 2), .port = 2, .weight = 1};
	struct rib_path gw3 = {.gw = IP(10, 2, 0, 3), .port = 3, .weight = 1};

	dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64});
	dp.nports = 4;
	dp.vcs = calloc(VC_MAX, sizeof(*dp.vcs));
	dp.nvcs = 3;
	port_fake_init(&dp.ports[0], 0, "eth0", 1);
	dp.ports[0].ip4_addr = IP(10, 0, 1, 1);

	vc_setup(0, 100, 2, true);
	dp.vcs[0].cfg.oam_enabled = true;
	vc_setup(1, 200, 3, true);
	dp.vcs[1].cfg.inatmarp = true;
	vc_setup(2, 300, 3, false);
	dp.vcs[2].cfg.pcr = 100000;
	pw = (struct cellpw_settings){.carrier = "fakepw", .carrier_ifindex = 50,
	                              .carrier_mtu = 9000, .max_cells = 28, .concat_us = 0,
	                              .carrier_ops = &port_fake_ops, .vcs = dp.vcs,
	                              .vc_ids = {0, 1, 2}, .nvcs = 3};
	pw.encap = (struct pw_encap){.label = 100, .control_word = true};
	memcpy(pw.encap.dst, peer_mac, 6);
	pw.encap.src[0] = 2;
	pw.ip4_of_subif[2] = IP(10, 1, 0, 1);
	pw.ip4_of_subif[3] = IP(10, 2, 0, 1);

	struct port *a = &dp.ports[1];
	*a = (struct port){.id = 1, .name = "atm0", .netdev = "atm0", .mtu = 9180,
	                   .ops = &port_cellpw_ops, .drv = &pw};
	if (a->ops->queue_open(a, 0, 1, &a->queues[0]) != 0)
		abort();
	a->nqueues = 1;
	atm = cellpw_queue_of(a);
	atm->carrier_port.queues[0] = atm->carrier; /* so port_fake_rx_add finds it */
	atm->carrier_port.nqueues = 1;

	for (unsigned s = 0; s < 2; s++) {
		struct port *p = &dp.ports[2 + s];
		sub[s] = (struct atmsub_settings){.atm_port = a, .tun_fd = -1, .p2p = s == 0,
		                                  .p2p_vc = 0};
		*p = (struct port){.id = (uint16_t)(2 + s), .mtu = 9180, .ops = &port_atmsub_ops,
		                   .drv = &sub[s], .ip4_addr = s ? IP(10, 2, 0, 1) : IP(10, 1, 0, 1)};
		snprintf(p->name, sizeof(p->name), "atm0.%u", 100 * (s + 1));
		if (p->ops->queue_open(p, 0, 1, &p->queues[0]) != 0)
			abort();
		p->nqueues = 1;
	}
	dp.params = (struct dp_params){.icmp_rate = 1000, .icmp_burst = 100, .hold_timeout_ms = 0};
	rib = rib_new(&dp, seed, NULL);
	rib_route_set(rib, IP(10, 0, 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p0, 1);
	rib_route_set(rib, IP(10, 1, 0, 0), 30, RIB_SRC_CONNECTED, NH_GLEAN, &p2, 1);
	rib_route_set(rib, IP(10, 2, 0, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &p3, 1);
	rib_route_set(rib, IP(10, 1, 0, 1), 32, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	rib_route_set(rib, IP(10, 4, 0, 0), 16, RIB_SRC_STATIC, NH_GATEWAY, &gw2, 1);
	rib_route_set(rib, IP(10, 44, 0, 0), 16, RIB_SRC_STATIC, NH_GATEWAY, &gw3, 1);
	setup6();
	dp_workers_create(&dp, NULL, 1);
}

/* One carrier frame holding `ncells` cells from `cells`. */
static void carrier_frame(const uint8_t *cells, unsigned ncells)
{
	uint8_t f[PW_HDR_MAX + 28 * ATM_PW_CELL_SIZE];
	size_t h;

	seq = pw_seq_next(seq);
	h = pw_frame_header(f, &(struct pw_encap){.label = 100, .control_word = true,
	                                           .dst = {2}, .src = {2, 0xcc, 0, 0, 0, 1}},
	                    seq);
	memcpy(f + h, cells, (size_t)ncells * ATM_PW_CELL_SIZE);
	port_fake_rx_add(&atm->carrier_port, f, (uint32_t)(h + (size_t)ncells * ATM_PW_CELL_SIZE),
	                 PKT_L2_HOST);
}

static void sdu_frames(unsigned vc, const uint8_t *prefix, size_t plen, const uint8_t *sdu,
                       size_t len)
{
	static uint8_t cells[(65535 / 48 + 2) * ATM_PW_CELL_SIZE];
	const struct atm_vc_cfg *c = &dp.vcs[vc].cfg;
	unsigned n = aal5_segment(prefix, plen, sdu, len, atm_hdr_make(c->vpi, c->vci, 0, 0), cells,
	                          ATM_PW_CELL_SIZE);

	for (unsigned i = 0; i < n; i += 28)
		carrier_frame(cells + (size_t)i * ATM_PW_CELL_SIZE, n - i < 28 ? n - i : 28);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct port_queue *q;

	if (!ready) {
		setup();
		ready = 1;
	}
	q = atm->carrier;
	q->rx_n = q->rx_pos = 0; /* the previous input was drained completely */
	dp.vcs[0].cfg.encap = size && (data[0] & 64) ? VC_ENCAP_VCMUX_IPV6 : VC_ENCAP_LLC_SNAP;
	while (size >= 3) {
		uint8_t kind = data[0];
		uint32_t len = (uint32_t)(data[1] << 8 | data[2]) % FAKE_FRAME_SZ;
		unsigned vc = (kind >> 2) % 3;
		data += 3;
		size -= 3;
		if (len > size)
			len = (uint32_t)size;
		/* Leave room in the fake ring for the frames one record can make. */
		if (q->rx_n - q->rx_pos > FAKE_FRAMES - 8)
			break;
		switch (kind % 4) {
		case 0:
			port_fake_rx_add(&atm->carrier_port, data, len, PKT_L2_HOST);
			break;
		case 1:
			sdu_frames(vc, NULL, 0, data, len);
			break;
		case 2:
			sdu_frames(vc, rfc2684_llc_header(kind & 32 ? 0x86dd : 0x0800), 8, data,
			           len);
			break;
		default:
			if (len >= 48) {
				uint8_t cell[ATM_PW_CELL_SIZE];
				atm_hdr_store(cell, oam_hdr_word(0, dp.vcs[vc].cfg.vci, kind & 16));
				memcpy(cell + 4, data, 48);
				oam_crc10_set(cell + 4);
				carrier_frame(cell, 1);
			}
			break;
		}
		data += len;
		size -= len;
	}
	while (dp_worker_poll(&dp, 0) > 0)
		;
	dp_worker_poll(&dp, 0); /* hold timeout 0: held packets resolve or fail now */

	fuzz_accounting_check(&dp);
	return 0;
}

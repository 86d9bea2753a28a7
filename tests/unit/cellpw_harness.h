/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arrangement test_cellpw drives, with no kernel netdev: a dataplane with
 * one cellpw ATM port (id 0) over an in-memory carrier (port_fake), three ATM
 * subinterfaces and one Ethernet port, and the far end of the pseudowire
 * played by the test: helpers that build the frames it would send and take
 * apart the frames the port sent. No CHECKs in here: the helpers report what
 * they found, the test cases judge it.
 */
#ifndef CELLGATE_TEST_CELLPW_HARNESS_H
#define CELLGATE_TEST_CELLPW_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/dataplane.h"
#include "datapath/port_cellpw.h"
#include "tests/unit/port_fake.h"

/* Ports. */
#define H_ATM    0 /* cellpw, carrier = port_fake */
#define H_P2P    1 /* point-to-point subinterface: VC_P2P */
#define H_MP     2 /* multipoint subinterface: VC_MP_LLC and VC_MP_MUX */
#define H_SHAPED 3 /* point-to-point subinterface: VC_SHAPED */
#define H_ETH    4 /* an Ethernet port (port_fake) for the worker cases */
#define H_NPORTS 5

/* VCs (dataplane VC numbers). */
#define VC_P2P    0 /* 0/100 LLC/SNAP */
#define VC_MP_LLC 1 /* 0/101 LLC/SNAP */
#define VC_MP_MUX 2 /* 0/102 VC-mux IPv4 */
#define VC_SHAPED 3 /* 2/300 LLC/SNAP, PCR 1000 cells/s, 16-cell queue */
#define H_NVCS    4

#define H_LABEL       0x1234
#define H_MAX_CELLS   4
#define H_MTU         1500
#define H_REASM_MS    2000
#define H_SHAPE_PCR   1000
#define H_SHAPE_QUEUE 16

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

struct harness {
	struct dataplane dp;
	struct cellpw_settings set;
	struct atmsub_settings sub[H_NPORTS];
	struct cellpw_queue *c;
	struct port_queue *car; /* the carrier queue cellpw opened through port_fake_ops */
	int tun[2];             /* H_P2P's "TUN": a pipe, [0] is the kernel's end */
	unsigned car_seen;      /* carrier TX frames already taken */
	uint16_t tx_seq;        /* the last control word sequence number taken */
	uint16_t far_seq;       /* the last one the far end sent */
};

extern struct harness h;
extern const uint8_t h_carrier_mac[6], h_peer_mac[6];

int h_setup(void);
void h_teardown(void);

/* An IPv4/UDP packet of `total` octets, valid header checksum, payload from `seed`. */
uint32_t h_ip4(uint8_t *ip, uint16_t total, uint32_t src, uint32_t dst, uint8_t ttl, uint8_t seed);
/* An Ethernet frame around it, padded to the 60-octet minimum as a NIC would. */
uint32_t h_eth(uint8_t *f, const uint8_t dst[6], const uint8_t *ip, uint32_t iplen);

/* The worker's way into a subinterface: tx_burst of n frames, then tx_flush. */
void h_sub_tx(unsigned port, uint8_t *const *frames, const uint32_t *lens, unsigned n);
void h_sub_send(unsigned port, uint8_t *frame, uint32_t len);
/* The ATM port's rx_burst, then its service pass (real time, nothing more waiting). */
unsigned h_rx(struct pkt *pkts);

/* The far end: a raw frame; cells packed H_MAX_CELLS a frame with the next sequence numbers. */
void h_far_frame(const uint8_t *f, uint32_t len);
void h_far_cells(const uint8_t *cells, unsigned n);
/* Build the frame h_far_cells would send, with sequence number `seq`. */
uint32_t h_far_frame_build(uint8_t *f, const uint8_t *cells, unsigned n, uint16_t seq);
/* Segment prefix||sdu as an AAL5 PDU on `vc` into `cells` (room for the PDU). */
unsigned h_segment(uint16_t vc, const uint8_t *prefix, size_t plen, const uint8_t *sdu, size_t len,
                   uint8_t *cells);
/* ... and send it. Returns its cells. */
unsigned h_far_pdu(uint16_t vc, const uint8_t *prefix, size_t plen, const uint8_t *sdu, size_t len);
/* One OAM cell (48-octet payload) on `vc`, PTI 5 (end to end) or 4 (segment). */
void h_oam_cell(uint8_t cell[52], uint16_t vc, const uint8_t payload[48], bool e2e);

#define H_TX_FRAMES 128
#define H_TX_CELLS  512
#define H_TX_RAW    (PW_HDR_MAX + H_MAX_CELLS * ATM_PW_CELL_SIZE)

/* What the near end sent on the carrier since the last h_take. */
struct h_tx {
	unsigned nframes, ncells;
	bool
	    hdr_ok; /* every frame: peer/our MAC, 0x8847, label, S = 1, TTL 64, CW 0, whole cells */
	bool seq_ok; /* sequence numbers continue from the last frame taken */
	unsigned frame_cells[H_TX_FRAMES];
	uint16_t seq[H_TX_FRAMES];
	uint32_t len[H_TX_FRAMES];
	uint8_t raw[H_TX_FRAMES][H_TX_RAW];
	uint8_t cell[H_TX_CELLS][ATM_PW_CELL_SIZE];
};
void h_take(struct h_tx *t);
/* Feed frames a near end sent back into our carrier RX, and continue their sequence. */
void h_loop_back(const struct h_tx *t);

#define H_PDU_MAX (64 * ATM_CELL_PAYLOAD)

/* One AAL5 CPCS-PDU taken apart. */
struct h_pdu {
	uint16_t vpi, vci;
	unsigned ncells;
	bool one_vc;        /* every cell on vpi/vci */
	bool auu_last_only; /* AUU on the last cell, on no other; all user-data PTIs */
	uint8_t uu, cpi;
	uint16_t length;
	bool crc_ok;
	bool pad_zero;
	uint8_t cpcs[H_PDU_MAX];
};
/* The PDU whose first cell is t->cell[*pos]; advances *pos. False if no AUU cell ends it. */
bool h_pdu(const struct h_tx *t, unsigned *pos, struct h_pdu *p);

/* Counters as the control thread reads them (dp_stats_take). */
struct vc_counters h_vc(unsigned vc);
struct atm_port_counters h_atmc(void);
struct port_counters h_port(unsigned port);
uint64_t h_vc_discards(unsigned vc);
const struct stats_snapshot *h_snap(void);

/* The ATM port's clock, in ms, as its last rx_burst set it. */
uint64_t h_now_ms(void);

#endif

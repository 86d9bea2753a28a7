/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "cellpw" ATM port: ATM cells carried over an Ethernet carrier as an
 * RFC 4717 N-to-one cell-mode pseudowire (MPLS, 52-byte cells), and the
 * "atmsub" subinterface ports layered on it. Private to port_cellpw*.c and
 * port_atmsub.c; the daemon sets a port up through the functions at the end.
 *
 * Shape: the ATM port is a dataplane port whose rx_burst turns carrier frames
 * into cells, cells into AAL5 SDUs per VC, and SDUs into ordinary IPv4
 * Ethernet frames (a synthetic header, see vc.h) that it hands to the worker
 * as received on the VC's subinterface port (pkt.in_port). The worker then
 * forwards them like any other frame, and frames it sends to a subinterface
 * port come back here through atmsub's tx_burst: RFC 2684 encapsulation,
 * AAL5 segmentation, shaping, and cells packed into carrier frames.
 *
 * Threads: every VC of a cellpw port is served by one worker (queue 0), as
 * AAL5 forbids interleaving two PDUs' cells on a VC and the control word's
 * sequence numbers are per pseudowire. The daemon refuses ATM ports with more
 * than one worker until the hand-off between workers exists.
 */
#ifndef CELLGATE_PORT_CELLPW_H
#define CELLGATE_PORT_CELLPW_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/atm/aal5.h"
#include "datapath/atm/cell.h"
#include "datapath/atm/pw.h"
#include "datapath/atm/vc.h"
#include "datapath/event_ring.h"
#include "datapath/port.h"
#include "datapath/port_atm.h"
#include "datapath/stats.h"

#define CELLPW_MAX_CELLS    176 /* cells per carrier frame, RFC 4717 N:1 */
#define CELLPW_TX_FRAMES    64  /* frames staged per flush */
#define CELLPW_FRAME_MAX    (PW_HDR_MAX + CELLPW_MAX_CELLS * ATM_PW_CELL_SIZE)
#define CELLPW_SDU_HEADROOM 16          /* room for the synthetic Ethernet header */
#define CELLPW_MTU_MAX      ATM_MTU_MAX /* RFC 2225 default, the largest taken */
#define CELLPW_SDU_MAX      ATM_SDU_MAX /* RFC 2225 MTU + LLC/SNAP */
#define CELLPW_RXBUF_SZ     (CELLPW_SDU_HEADROOM + CELLPW_SDU_MAX + 64)
#define CELLPW_SEG_CELLS    ((ATM_VC_SDU_MAX + 8 + 47) / 48)
#define CELLPW_PORT_VCS     ATM_PORT_VCS
#define HOST_RING_BUF       ATM_HOST_BUF

/* Driver settings, filled in by the daemon before queue_open (port.drv). */
struct cellpw_settings {
	char carrier[16]; /* Ethernet netdev carrying the pseudowire */
	int carrier_ifindex;
	uint8_t carrier_mac[6];
	uint32_t carrier_mtu;
	struct pw_encap encap; /* peer MAC, our MAC, label, control word */
	uint32_t max_cells;
	uint32_t concat_us;
	const struct port_ops *carrier_ops; /* NULL = afpacket; tests use an in-memory one */
	struct atm_vc *vcs;                 /* the dataplane's VC table */
	uint16_t vc_ids[CELLPW_PORT_VCS];   /* VCs on this port at queue_open (the first vcset) */
	unsigned nvcs;
	uint32_t ip4_of_subif[PORT_MAX];    /* our address per subinterface, for InATMARP */
	uint8_t ip6_of_subif[PORT_MAX][16]; /* first IPv6 address, for ND on bridged VCs */
};

struct cellpw_queue {
	struct atm_portq aq; /* first: what both ATM drivers share (port_atm.h) */
	struct cellpw_settings *set;
	struct port carrier_port;   /* the carrier netdev as a port of its own */
	struct port_queue *carrier; /* its queue (afpacket) */

	/* RX: carrier frames pulled but not yet turned into SDUs. */
	struct pkt rx_frames[BURST_MAX];
	unsigned rx_nframes, rx_pos;
	uint16_t rx_seq_expect; /* 0 = not yet synchronised */
	uint8_t *sdu_buf;       /* BURST_MAX SDU buffers for one rx_burst */
	unsigned sdu_used;

	/* TX: carrier frames being filled with cells. */
	uint8_t *tx_buf; /* CELLPW_TX_FRAMES frames */
	struct pkt tx_pkt[CELLPW_TX_FRAMES];
	struct pkt *tx_ptr[CELLPW_TX_FRAMES];
	unsigned tx_nframes; /* complete frames staged */
	unsigned tx_cells;   /* cells in the frame being filled (frame tx_nframes) */
	uint64_t tx_partial_since_us;
	uint16_t tx_seq;
	uint8_t *seg_buf; /* one PDU's cells, CELLPW_SEG_CELLS */
};

/* The names the daemon and the tests knew before port_atm.h (same objects). */
#define cellpw_vcset atm_vcset
static inline const struct atm_vcset *cellpw_vcset_load(const struct cellpw_queue *c)
{
	return atm_vcset_load(&c->aq);
}

/* port_cellpw_rx.c */
unsigned cellpw_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max);

/*
 * port_cellpw_tx.c: queue one SDU (already encapsulated by prefix) on a VC
 * (atm_portq_ops.vc_send): -1 if it was accepted, else the reason (enum
 * vc_drop_reason) it was discarded for, already counted on the VC.
 */
int cellpw_vc_send(struct atm_portq *q, uint16_t vc_id, const uint8_t *prefix, size_t prefix_len,
                   const uint8_t *sdu, size_t len);
/* Queue one OAM cell (48-byte payload) on a VC: through its shaper when it has a PCR. */
void cellpw_oam_send(struct atm_portq *q, uint16_t vc_id, const uint8_t payload[48], bool e2e);
/*
 * Once per worker pass (the port's service op): the host ring, shaping, the
 * VC timers, and the frame being filled. That frame leaves at once unless
 * more cells are on their way: `busy` (the worker's RX had more than a
 * burst) or cells waiting for their shaper; then it waits for more, up to
 * concatenation-timer µs. Returns when the port next needs a pass (ns,
 * CLOCK_MONOTONIC; UINT64_MAX for none): the next shaper token, the frame's
 * concatenation deadline, the next VC timer, the carrier's own.
 */
uint64_t cellpw_service(struct cellpw_queue *c, const struct atm_vcset *vs, bool busy);
/* Hand staged frames (and the partial one when `all`) to the carrier. */
void cellpw_tx_push(struct cellpw_queue *c, bool all);
/* Returns the earliest time (ms) at which a timer of a VC fires, UINT64_MAX for none. */
static inline uint64_t cellpw_vc_timers(struct cellpw_queue *c, const struct atm_vcset *vs,
                                        uint64_t now_ms)
{
	return atm_vc_timers(&c->aq, vs, now_ms);
}

/* Setup, control thread. The queue of worker 0 (others do not exist). */
struct cellpw_queue *cellpw_queue_of(struct port *p);
/* The ring of VC events (VC state, InATMARP learned, ping results) the control thread drains. */
static inline struct event_ring *cellpw_events(struct port *p)
{
	return atm_events(p);
}
/*
 * Runtime PVC changes, control thread (see cellpw_vcset). cellpw_vc_open
 * gives VC `id` (its cfg filled, not in any published set) its buffers and a
 * fresh runtime state (-EINVAL for an MTU outside 68..CELLPW_MTU_MAX, which
 * the buffers are sized for; -ENOMEM); cellpw_vcset_build makes a set of `n` VCs for port c;
 * cellpw_vcset_swap publishes one and returns the previous one, to be freed
 * with the buffers of the VCs it alone had (cellpw_vc_release) only after
 * synchronize_rcu().
 */
int cellpw_vc_open(struct cellpw_queue *c, uint16_t id);
static inline void cellpw_vc_release(struct atm_vc *vc)
{
	atm_vc_release(vc);
}
static inline struct atm_vcset *cellpw_vcset_build(const struct cellpw_queue *c,
                                                   const uint16_t *ids, unsigned n)
{
	return atm_vcset_build(&c->aq, ids, n);
}
static inline struct atm_vcset *cellpw_vcset_swap(struct cellpw_queue *c, struct atm_vcset *next)
{
	return atm_vcset_swap(&c->aq, next);
}
static inline const struct atm_vcset *cellpw_vcset_current(const struct cellpw_queue *c)
{
	return atm_vcset_current(&c->aq);
}
/* Enqueue a packet the kernel sent into a subinterface; false if the ring is full. */
static inline bool cellpw_host_tx(struct port *atm_port, uint16_t vc, const uint8_t *ip,
                                  size_t len)
{
	return atm_host_tx(atm_port, vc, ip, len);
}

extern const struct port_ops port_cellpw_ops;
extern const struct port_ops port_atmsub_ops;

/* Subinterface port settings (port.drv for driver "atmsub"). */
struct atmsub_settings {
	struct port *atm_port; /* the ATM port below: cellpw or atmsock */
	int tun_fd;            /* the subinterface's TUN: punted packets go there */
	bool p2p;
	uint16_t p2p_vc; /* point-to-point: its one VC */
};

#endif

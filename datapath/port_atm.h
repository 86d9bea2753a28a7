/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every ATM port driver shares: cellpw (cells over an Ethernet
 * pseudowire, port_cellpw*.c) and atmsock (Linux ATM sockets,
 * port_atmsock*.c). Both present their VCs to the worker the same way, so the
 * daemon and the subinterface ports (port_atmsub.c) treat them alike:
 *
 *  - an SDU received on a VC is RFC 2684-decapsulated and handed to the
 *    worker as an Ethernet frame received on the VC's subinterface port,
 *    destination the ATM port's MAC, source the VC's synthetic MAC (vc.h),
 *    so replies and ICMP errors find the VC again (atm_sdu_rx + atm_frame);
 *  - (In)ATMARP, bridged ARP, OAM F5 and captures run here, in the worker
 *    that serves the port (port_atm_ctl.c), with the results the control
 *    thread needs sent as events;
 *  - per-VC counters and discard reasons live in the dataplane's VC table
 *    (struct atm_vc), the port's own in struct atm_port_counters;
 *  - the VCs a port serves are a struct atm_vcset the control thread
 *    publishes by pointer for runtime PVC add/delete (see atm_vcset);
 *  - the kernel's packets for a VC come through the host ring;
 *  - the worker may sleep between passes (worker.c): each driver's service
 *    op runs the host ring and the VC timers once per pass and reports when
 *    the timers are next due (atm_timers_service), and its wake_fd op gives
 *    the eventfd atm_host_tx writes, so neither waits for the next frame.
 *
 * A driver's queue starts with a struct atm_portq; the driver fills in its
 * ops (how an SDU and an OAM cell leave). Every queue of an ATM port is
 * served by one worker (queue 0): AAL5 and the VC state have one writer.
 */
#ifndef CELLGATE_PORT_ATM_H
#define CELLGATE_PORT_ATM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath/atm/rfc2684.h"
#include "datapath/atm/vc.h"
#include "datapath/event_ring.h"
#include "datapath/pkt.h"
#include "datapath/port.h"
#include "datapath/stats.h"

#define ATM_PORT_VCS   VC_MAX
#define ATM_VC_HASH    1024
#define ATM_MTU_MAX    9180              /* RFC 2225 default, the largest a VC takes */
#define ATM_SDU_MAX    (ATM_MTU_MAX + 8) /* RFC 2225 MTU + LLC/SNAP */
#define ATM_HOST_SLOTS 64                /* kernel -> VC packets waiting for the worker */
#define ATM_HOST_BUF   (ATM_SDU_MAX + 16)
/* The longest RFC 2684 header in front of an IP packet: bridged LLC + Ethernet. */
#define ATM_ENCAP_HDR_MAX 24
/*
 * The largest AAL5 SDU a VC of any encapsulation carries (atm_vc_max_sdu at
 * ATM_MTU_MAX): 16 more than ATM_SDU_MAX on an LLC bridged VC. What holds a
 * whole outbound SDU (a capture's copy, a segmentation buffer) is this big.
 */
#define ATM_VC_SDU_MAX (ATM_MTU_MAX + ATM_ENCAP_HDR_MAX)

/* One packet the control thread read from a subinterface's TUN, for a VC. */
struct host_slot {
	uint16_t vc;
	uint16_t len;
	uint8_t data[ATM_HOST_BUF];
};

/* Single-producer (control thread) single-consumer (worker) ring. */
struct host_ring {
	uint32_t head __attribute__((aligned(64)));
	uint32_t tail __attribute__((aligned(64)));
	struct host_slot slot[ATM_HOST_SLOTS];
};

/*
 * One version of the VCs an ATM port serves: the VPI/VCI lookup, the list
 * the worker's timers walk, and membership by VC id (what subinterfaces and
 * the host ring check a VC number against). The control thread builds a new
 * one for every runtime PVC change, with the added VCs ready, and publishes
 * it with a release store; the worker loads it with acquire once per burst
 * and never keeps it across a quiescent state, so the old version and what
 * only it named are freed after synchronize_rcu(). Never changed once
 * published.
 */
struct atm_vcset {
	unsigned nvcs;
	uint16_t ids[ATM_PORT_VCS];
	uint8_t has[VC_MAX];
	/* VPI/VCI -> VC, open addressing; key 0 = empty (VPI 0/VCI 0 is never a PVC). */
	uint32_t key[ATM_VC_HASH];
	uint16_t val[ATM_VC_HASH];
};

struct atm_portq;

struct atm_portq_ops {
	/*
	 * Queue one SDU, prefix || sdu (the RFC 2684 header, then the packet),
	 * on VC vc: counted in its counters when accepted (returns -1), under
	 * a discard reason when not (returns it, enum vc_drop_reason), so a
	 * subinterface can drop the frame under its own reason (atm_tx_drop).
	 */
	int (*vc_send)(struct atm_portq *q, uint16_t vc, const uint8_t *prefix, size_t prefix_len,
	               const uint8_t *sdu, size_t len);
	/* One F5 OAM cell (48-octet payload); NULL when the adapter gives no cell access. */
	void (*oam_send)(struct atm_portq *q, uint16_t vc, const uint8_t payload[48], bool e2e);
	/* The end of a subinterface's TX burst: hand what vc_send queued to the adapter. */
	void (*tx_push)(struct atm_portq *q);
};

struct atm_portq {
	struct port *port;
	const struct atm_portq_ops *ops;
	struct atm_vc *vcs;           /* the dataplane's VC table */
	const uint32_t *ip4_of_subif; /* PORT_MAX: our address per subinterface (ARP, InATMARP) */
	/* PORT_MAX: our first IPv6 address per subinterface (ND on bridged VCs); zero: none. */
	const uint8_t (*ip6_of_subif)[16];
	struct atm_port_counters ctr;
	struct atm_vcset *vcset;   /* published by the control thread, see atm_vcset */
	struct host_ring *host;    /* control -> worker */
	int wake_fd;               /* eventfd: the control thread filled the host ring */
	struct event_ring *events; /* worker -> control: VC state, peers, ping results */
	/* CLOCK_MONOTONIC: an RX burst's, a subinterface TX burst's or the worker pass's. */
	uint64_t now_us;
	uint64_t service_ms;     /* last millisecond the VC timers ran */
	uint64_t timers_next_ms; /* the VC timers' earliest deadline, as of their last run */
};

/* The worker's view for one burst. */
static inline const struct atm_vcset *atm_vcset_load(const struct atm_portq *q)
{
	return __atomic_load_n(&q->vcset, __ATOMIC_ACQUIRE);
}

/* The control thread's (the only writer's) view. */
static inline const struct atm_vcset *atm_vcset_current(const struct atm_portq *q)
{
	return q->vcset;
}

/* The enum rfc2684_encap of a VC's configured encapsulation. */
enum rfc2684_encap atm_vc_rfc2684(const struct atm_vc *vc);

/* The largest SDU of a VC: its IP MTU plus its RFC 2684 header. */
uint32_t atm_vc_max_sdu(const struct atm_vc_cfg *cfg);

/* port_atm.c: setup and runtime PVC changes, control thread. */
int atm_portq_init(struct atm_portq *q, struct port *p, const struct atm_portq_ops *ops,
                   struct atm_vc *vcs, const uint32_t *ip4_of_subif);
void atm_portq_fini(struct atm_portq *q);
/* The ATM port queue of port p (cellpw or atmsock, queue 0 open), else NULL. */
struct atm_portq *atm_portq_of(struct port *p);
struct event_ring *atm_events(struct port *p);
struct atm_vc *atm_vc_find(const struct atm_portq *q, const struct atm_vcset *vs, uint16_t vpi,
                           uint16_t vci, uint16_t *vc_id);
struct atm_vcset *atm_vcset_build(const struct atm_portq *q, const uint16_t *ids, unsigned n);
struct atm_vcset *atm_vcset_swap(struct atm_portq *q, struct atm_vcset *next);
/* A VC slot starts over: runtime state and counters zero, oper up, no buffers. */
void atm_vc_reset(struct atm_vc *vc);
void atm_vc_release(struct atm_vc *vc);
/*
 * Enqueue a packet the kernel sent into a subinterface; false if the ring is
 * full. Wakes the worker (wake_fd): it may be asleep until its next timer.
 */
bool atm_host_tx(struct port *atm_port, uint16_t vc, const uint8_t *ip, size_t len);

/* port_atm.c: the worker's per-SDU and per-packet work. */
/*
 * An SDU received on vc_id: counted, captured, decapsulated, (In)ATMARP and
 * bridged ARP consumed; bad ones counted under their reason. Returns true
 * when it carries a packet for the worker: its EtherType and where it starts.
 */
bool atm_sdu_rx(struct atm_portq *q, uint16_t vc_id, uint8_t *sdu, size_t len, uint16_t *ethertype,
                size_t *hdr_len);
/*
 * Write the synthetic Ethernet header into the 14 octets before l3 and fill
 * pkt as received on vc's subinterface (the caller checked there is room).
 */
void atm_frame(const struct atm_portq *q, uint16_t vc_id, uint8_t *l3, uint32_t l3_len,
               uint16_t ethertype, struct pkt *pkt);
/*
 * Send an IP packet (or, bridged, an ARP payload) of EtherType `type` on VC
 * vc_id with its encapsulation. VC-mux routed carries IPv4 only. -1 when
 * accepted, else the VC's discard reason (counted), as ops->vc_send.
 */
int atm_vc_send_l3(struct atm_portq *q, uint16_t vc_id, uint16_t type, const uint8_t *l3,
                   size_t len);
/* Bridged VC: one Ethernet frame to dst (the caller's EtherType and payload); as above. */
int atm_vc_send_eth(struct atm_portq *q, uint16_t vc_id, const uint8_t *dst, uint16_t type,
                    const uint8_t *l3, size_t len);
/*
 * What a VC's refusal of a forwarded frame means for the frame's own
 * accounting (stats.h): the drop reason (enum drop_reason) of the port it
 * came in on. VC down: link-down; too big: mtu-exceeded; shaping queue or
 * adapter full: tx-full; a protocol the VC does not carry: no-route.
 */
int atm_tx_drop(int vc_reason);
/* The kernel's packets waiting in the host ring. */
void atm_host_ring_run(struct atm_portq *q, const struct atm_vcset *vs);
/*
 * The VC timers (atm_vc_timers), at most once a millisecond of q->now_us.
 * Returns when they are next due (ns, CLOCK_MONOTONIC; UINT64_MAX: none),
 * for the driver's service op: the worker sleeps no longer than that.
 */
uint64_t atm_timers_service(struct atm_portq *q, const struct atm_vcset *vs);

/* port_atm_ctl.c: OAM, InATMARP, bridged ARP, captures, timers (worker). */
void atm_vc_event(struct atm_portq *q, const struct dp_event *ev);
void atm_vc_set_oper(struct atm_portq *q, uint16_t vc_id, uint8_t oper);
void atm_oam_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t payload[48], bool e2e);
void atm_inatmarp_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t *p, size_t len);
/* Bridged VC: an ARP frame (Ethernet header included) from the far end. */
void atm_bridged_arp_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t *frame, size_t len);
/* A bridged frame of EtherType 0x86DD: true if it was a solicitation for our address
 * (answered here, RFC 4861 7.2.4) and goes no further. */
bool atm_bridged_nd_rx(struct atm_portq *q, uint16_t vc_id, const uint8_t *frame, size_t len);
void atm_capture(struct atm_vc *vc, struct pcap_sunatm *cap, bool outbound, const uint8_t *sdu,
                 size_t len);
/*
 * Reassembly timeouts, OAM, InATMARP/ARP, capture flushes: once per
 * millisecond. Returns the earliest time (ms) a timer of a VC fires next,
 * UINT64_MAX for none.
 */
uint64_t atm_vc_timers(struct atm_portq *q, const struct atm_vcset *vs, uint64_t now_ms);

#endif

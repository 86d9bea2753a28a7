/* SPDX-License-Identifier: BSD-2-Clause */
/* A worker's private state: only its own thread touches it. */
#ifndef CELLGATE_WORKER_PRIV_H
#define CELLGATE_WORKER_PRIV_H

#include <pthread.h>

#include "datapath/dataplane.h"
#include "datapath/icmp.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"

#define HOLD_MAX      256 /* packets waiting for ARP, per worker */
#define HOLD_PER_DEST 4   /* and per destination, so one dead host cannot fill it */
#define HOLD_BUF      2048
#define HOLD_BIG      4            /* of the HOLD_MAX entries, these hold a GSO super-packet */
#define HOLD_BIG_BUF  (18 + 65535) /* Ethernet, one VLAN tag, the largest IPv4 datagram */
#define HOLD_MEM      ((size_t)(HOLD_MAX - HOLD_BIG) * HOLD_BUF + (size_t)HOLD_BIG * HOLD_BIG_BUF)
#define TX_BATCH      (2 * BURST_MAX)
#define FRAG_BUFS     64
#define FRAG_MTU_MAX  9216 /* larger MTUs fragment to 9216-byte pieces */
#define FRAG_BUF_SZ   (14 + FRAG_MTU_MAX)
/* One ICMP error in scratch: an ICMPv6 one quotes up to 1232 octets (RFC 4443 §2.4 (c)). */
#define ICMP_SLOT ICMP6_ERR_FRAME_MAX
_Static_assert(ICMP_SLOT >= ICMP_ERR_FRAME_MAX, "ICMP scratch slot too small for ICMPv4");

/* What a queued frame is, for the counters when it leaves (the 6s: IPv6 ones). */
/* TX_FRAGMENT6: an IPv6 GSO segment cut here but the last (the last one is TX_FORWARDED6). */
enum tx_kind { TX_FORWARDED, TX_GENERATED, TX_FRAGMENT, TX_FORWARDED6, TX_GENERATED6, TX_FRAGMENT6 };

struct tx_batch {
	unsigned n;
	struct pkt *pkts[TX_BATCH];
	uint8_t kind[TX_BATCH];
};

struct hold_entry {
	struct pkt pkt;      /* data points at buf */
	uint32_t key_ip;     /* the neighbour being resolved (IPv4) */
	uint8_t key_ip6[16]; /* the neighbour being resolved (IPv6, when v6) */
	uint16_t key_port;
	bool v6; /* an IPv6 packet, waiting for neighbour discovery */
	uint64_t since_ms;
	uint8_t *buf;
	uint32_t cap; /* size of buf */
};

struct worker {
	unsigned id;
	int cpu;
	pthread_t thread;
	struct dataplane *dp;
	struct worker_counters *ctr;
	struct event_ring events;

	uint64_t now_ns; /* start of the current pass (CLOCK_MONOTONIC) */
	uint64_t now_ms;
	uint64_t next_ns;           /* when the next pass is due without RX (see worker_service) */
	uint64_t icmp_tokens_milli; /* token bucket, in thousandths of a token */
	uint64_t icmp_refill_ms;

	struct tx_batch tx[PORT_MAX];
	uint64_t tx_used; /* bitmap of ports with a non-empty batch (PORT_MAX <= 64) */

	unsigned icmp_used;
	uint8_t *icmp_buf; /* BURST_MAX * ICMP_SLOT scratch */
	struct pkt icmp_pkt[TX_BATCH];

	unsigned frag_used;
	uint8_t *frag_buf; /* FRAG_BUFS * FRAG_BUF_SZ scratch for fragments */
	struct pkt frag_pkt[FRAG_BUFS];

	unsigned nhold;
	struct hold_entry hold[HOLD_MAX];
	uint8_t *hold_mem; /* HOLD_MEM: every entry's buffer */
	uint64_t hold_check_ms;

	uint32_t snap_done; /* the last dp->snap_req answered (worker_snap.c) */
};

enum fwd_result { FWD_DONE, FWD_WAIT_ARP };

/* worker_snap.c: copy the counters for dp->snap_req (see dp_stats_snap_request). */
void worker_snap_take(struct worker *w, uint32_t req);
/* dataplane.c */
void stats_atm_take(const struct dataplane *dp, struct stats_snapshot *snap);

/* End of a loop pass: answer a snapshot request, if the control thread made one. */
static inline void worker_snap_serve(struct worker *w)
{
	uint32_t req = __atomic_load_n(&w->dp->snap_req, __ATOMIC_ACQUIRE);

	if (__builtin_expect(req != w->snap_done, 0))
		worker_snap_take(w, req);
}

/* worker_fwd.c */
enum fwd_result worker_forward(struct worker *w, struct pkt *p, uint32_t nhg_id, uint32_t *wait_ip,
                               uint16_t *wait_port);
void worker_tx_flush(struct worker *w);
void worker_drop(struct worker *w, const struct pkt *p, enum drop_reason r);
void worker_icmp_reply(struct worker *w, const struct pkt *p, uint8_t type, uint8_t code,
                       uint16_t mtu);
void worker_tx_enqueue(struct worker *w, uint16_t port, struct pkt *p, enum tx_kind kind);
/*
 * A packet leaving as pieces (fragments, GSO segments) from the fragment
 * scratch: `next` writes the next piece's IP packet after the Ethernet header
 * and returns its length (0 when done) and whether it is the last.
 */
typedef uint32_t (*piece_next_fn)(void *it, uint8_t *ip, bool *last);
unsigned worker_send_pieces(struct worker *w, const struct pkt *p, const struct port *out,
                            piece_next_fn next, void *it, bool ip6);
void worker_tx_room(struct worker *w, uint16_t port, bool scratch_full);
bool worker_icmp_token_take(struct worker *w);

/*
 * worker_fwd6.c: the IPv6 forwarding decision after the FIB6 lookup (`info`
 * from ip6_validate, or NULL to walk the header chain again), and ICMPv6
 * errors back to the sender of `p`. FWD_WAIT_ARP: wait for the neighbour
 * *wait_ip6 on *wait_port.
 */
enum fwd_result worker_forward6(struct worker *w, struct pkt *p, uint32_t nhg_id,
                                const struct ip6_info *info, uint8_t wait_ip6[16],
                                uint16_t *wait_port);
void worker_icmp6_reply(struct worker *w, const struct pkt *p, const struct ip6_err *err);
void worker_nd_snoop(struct worker *w, const struct pkt *p);

/* Count a frame as left to the kernel and hand it over where the port needs that. */
static inline void worker_to_kernel(struct worker *w, const struct pkt *p)
{
	const struct port *pt = &w->dp->ports[p->in_port];

	CTR_ADD(w->ctr->port[p->in_port].to_kernel, 1);
	if (pt->ops->punt)
		pt->ops->punt(pt->queues[w->id], p);
}

/* An IPv6 frame dropped as `r`: under the reason, its IPv6 share, and as an IPv6 discard. */
static inline void worker_drop6(struct worker *w, const struct pkt *p, enum drop_reason r)
{
	struct port_counters *c = &w->ctr->port[p->in_port];

	worker_drop(w, p, r);
	CTR_ADD(c->drops6[r], 1);
	CTR_ADD(c->ip6_discards, 1);
}

/* An IPv6 frame left to the kernel. */
static inline void worker_to_kernel6(struct worker *w, const struct pkt *p)
{
	worker_to_kernel(w, p);
	CTR_ADD(w->ctr->port[p->in_port].ip6_to_kernel, 1);
}

/* worker_hold.c */
void worker_hold_add(struct worker *w, const struct pkt *p, uint32_t ip, uint16_t port);
void worker_hold_add6(struct worker *w, const struct pkt *p, const uint8_t ip6[16], uint16_t port);
void worker_hold_run(struct worker *w);

#endif

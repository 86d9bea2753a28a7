/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The port driver seam. A port is one kernel netdev the daemon forwards on; a
 * port queue is the part of it one worker owns alone (its own RX socket/ring
 * and TX ring), so the hot path never shares driver state between threads.
 */
#ifndef CELLGATE_PORT_H
#define CELLGATE_PORT_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "datapath/pkt.h"
#include "lib/port_settings.h"

struct port;
struct port_queue;

struct port_ops {
	const char *driver; /* "afpacket" */

	/*
	 * Open queue `qid` of `nqueues` on port `p` (control thread, startup).
	 * With nqueues > 1 the driver spreads RX over the queues (PACKET_FANOUT).
	 * Returns 0 or a negative errno and logs what failed and why.
	 */
	int (*queue_open)(struct port *p, unsigned qid, unsigned nqueues, struct port_queue **out);
	void (*queue_close)(struct port_queue *q);

	/*
	 * Receive up to `max` frames into `pkts`. Frame memory stays valid
	 * (and writable, for in-place header rewrites) until rx_release. Every
	 * pkt field is set; the offload ones are zero when the driver has none.
	 */
	unsigned (*rx_burst)(struct port_queue *q, struct pkt *pkts, unsigned max);
	void (*rx_release)(struct port_queue *q);

	/*
	 * Copy frames into TX slots, in order. Returns how many were accepted:
	 * it stops at the first frame that finds the ring full, or that it
	 * refuses for a reason of that frame alone (tx_refused says which);
	 * what is left is the caller's to count. A driver without tx_offload
	 * ignores the pkt offload fields.
	 */
	unsigned (*tx_burst)(struct port_queue *q, struct pkt *const *pkts, unsigned n);

	/*
	 * Optional: tx_burst just stopped at `p`. A drop reason (enum
	 * drop_reason, stats.h) when it refused that frame alone (too long, no
	 * VC, ...): the caller counts it so and goes on with the next frame;
	 * -1 when the ring is full, so are the frames after it. Without this
	 * op a stop always means a full ring.
	 */
	int (*tx_refused)(struct port_queue *q, const struct pkt *p);

	/*
	 * Optional: asked before a frame is queued for this port, with its
	 * destination MAC address already written: -1 if the port can send it,
	 * else the drop reason (enum drop_reason), whose ICMP error the
	 * worker sends back (an ATM subinterface whose VC is down or unknown).
	 */
	int (*tx_check)(struct port_queue *q, const struct pkt *p);

	/* Hand everything queued by tx_burst to the kernel: one syscall per burst. */
	int (*tx_flush)(struct port_queue *q);

	/* A descriptor that becomes readable when RX has work (for idle sleep), or -1. */
	int (*rx_fd)(const struct port_queue *q);

	/*
	 * Optional: once per worker pass, after every queue's RX and TX, the
	 * driver's own work: timers, shaping, a partly filled carrier frame,
	 * a TX flush the kernel left unfinished. `busy`: some queue of the
	 * pass returned a full burst, so more is probably waiting. Returns the
	 * monotonic time (ns) by which the driver needs the next pass even if
	 * nothing arrives, UINT64_MAX for none: the worker sleeps no longer.
	 */
	uint64_t (*service)(struct port_queue *q, uint64_t now_ns, bool busy);

	/*
	 * Optional: an eventfd another thread writes when it hands this queue
	 * work the worker would not otherwise wake for (the worker reads it),
	 * or -1.
	 */
	int (*wake_fd)(const struct port_queue *q);

	/*
	 * Frames the kernel dropped because this queue's RX ring was full since
	 * the previous call (PACKET_STATISTICS resets on read). Control thread
	 * only; 0 or a negative errno.
	 */
	int (*queue_ring_drops)(struct port_queue *q, uint64_t *drops);

	/*
	 * Optional: the worker leaves a received frame to the kernel. Drivers
	 * whose netdev already saw the frame (AF_PACKET taps a real NIC) leave
	 * this NULL; an ATM subinterface writes the IP packet to its TUN.
	 */
	void (*punt)(struct port_queue *q, const struct pkt *p);
};

struct port {
	char name[PORT_NAME_MAX]; /* configured name, e.g. "eth0" */
	char netdev[IF_NAMESIZE]; /* kernel netdev, e.g. "enp1s0" */
	uint16_t id;              /* index in the dataplane's port array */
	int ifindex;
	uint8_t mac[6];
	uint32_t mtu;      /* IP MTU of the netdev */
	uint32_t ip4_addr; /* primary IPv4 address, host order (0 = none) */
	/*
	 * The source of ICMPv6 errors about packets received here (RFC 4443
	 * §2.2: an address of the ingress interface) and of the neighbour
	 * solicitations sent from here, network order: the port's first IPv6
	 * address. RCU-protected: it points to one of ip6_slot (NULL: none, no
	 * error is sent); readers take it once with port_ip6_src and copy the
	 * 16 bytes before their next quiescent state. Only port_ip6_src_set
	 * writes it, into the slot no reader can hold (one grace period after
	 * it stopped being published), so a reader never sees a torn address.
	 */
	const uint8_t *ip6_src;
	uint8_t ip6_slot[2][16];
	/*
	 * Forward IPv6 received on this port and route IPv6 out of it (set
	 * for Ethernet ports and point-to-point ATM subinterfaces with IPv6
	 * addresses). Without it IPv6 is left to the kernel as before. Atomic:
	 * the control thread turns it on and off at runtime (daemon/addrs6.c,
	 * port_ip6_enable); workers read it once per packet (port_ip6_on).
	 */
	bool ip6;
	/*
	 * Point-to-point: whatever leaves here reaches the one neighbour at
	 * the other end (an ATM subinterface's only PVC), so an IPv6 next hop
	 * needs no neighbour discovery to be sent to (RFC 2492 §3: on a PVC
	 * the peer is the VC). The destination MAC the worker writes is then
	 * meaningless and ignored by the driver.
	 */
	bool p2p;
	/*
	 * Set by queue_open when tx_burst hands gso_* and csum_* of a pkt to
	 * the kernel, which segments and checksums for us. Without it the
	 * worker completes partial checksums itself and cannot send a GSO
	 * super-packet larger than the MTU.
	 */
	bool tx_offload;
	/*
	 * The netdev's link is down (control thread, from the kernel's link
	 * state; atomic): workers drop what they would send there, counted,
	 * rather than hand it to a ring that will not transmit it.
	 */
	uint8_t link_down;
	struct port_settings settings;
	/*
	 * Driver-specific state shared by the port's queues, set up before the
	 * first queue_open (cellpw, atmsub: settings the daemon fills in;
	 * atmsock: its PVC table, through its own API). NULL for afpacket.
	 */
	void *drv;
	const struct port_ops *ops;
	struct port_queue *queues[WORKER_MAX];
	unsigned nqueues;
};

/* Whether port p forwards IPv6 now (relaxed: one byte, nothing else ordered by it). */
static inline bool port_ip6_on(const struct port *p)
{
	return __atomic_load_n(&p->ip6, __ATOMIC_RELAXED);
}

/* The port's ICMPv6 error source now (16 bytes, network order), or NULL: see ip6_src. */
static inline const uint8_t *port_ip6_src(const struct port *p)
{
	return __atomic_load_n(&p->ip6_src, __ATOMIC_ACQUIRE);
}

/* Start (on) or stop forwarding IPv6 on p. Control thread. */
static inline void port_ip6_enable(struct port *p, bool on)
{
	__atomic_store_n(&p->ip6, on, __ATOMIC_RELEASE);
}

/*
 * Publish addr (NULL: none) as p's ICMPv6 error source. Control thread only
 * (one writer); waits for an RCU grace period (synchronize_rcu), after which
 * no worker holds the previous address: never from a worker thread.
 */
void port_ip6_src_set(struct port *p, const uint8_t addr[16]);

/* Driver registry: the ops for a driver name, or NULL. */
const struct port_ops *port_ops_find(const char *driver);

extern const struct port_ops port_afpacket_ops;
extern const struct port_ops port_afxdp_ops; /* AF_XDP + XDP program (port_afxdp.h) */
extern const struct port_ops port_cellpw_ops; /* ATM cells over Ethernet, RFC 4717 */
extern const struct port_ops port_atmsub_ops; /* ATM subinterfaces, set up by the daemon */
extern const struct port_ops port_atmsock_ops; /* Linux ATM sockets (PF_ATMPVC) */

#endif

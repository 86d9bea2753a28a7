/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to the afxdp driver: the per-port XDP program state the port's
 * queues share, the per-queue AF_XDP socket and UMEM, and the geometry.
 * See port_afxdp.c for the design.
 */
#ifndef CELLGATE_PORT_AFXDP_PRIV_H
#define CELLGATE_PORT_AFXDP_PRIV_H

#include <linux/if_xdp.h>
#include <stdbool.h>
#include <stdint.h>
#include <xdp/xsk.h>

#include "datapath/port.h"
#include "datapath/port_afxdp.h"
#include "datapath/xdp/xdp_abi.h"

/*
 * UMEM chunks. Aligned mode takes a power of two between 2 KiB and the page
 * size; a frame must fit one chunk after the kernel's XDP_PACKET_HEADROOM
 * (256 bytes): 2 KiB chunks hold Ethernet frames up to 1792 bytes, 4 KiB
 * ones up to 3840 (the rest of the page is the skb_shared_info a copy-mode
 * driver needs anyway, so XDP without frags stops short of that: MTU about
 * 3500 on veth).
 */
#define AFXDP_CHUNK_SMALL   2048u
#define AFXDP_CHUNK_LARGE   4096u
#define AFXDP_KERN_HEADROOM 256u /* XDP_PACKET_HEADROOM */

/*
 * Ring sizes, powers of two (the kernel refuses others). RX: the configured
 * rx-ring-frames, at most AFXDP_RX_RING_MAX. Fill: the kernel docs' advice
 * (samples/bpf/xdpsock, Documentation/networking/af_xdp.rst), at least the
 * device's own RX ring plus the XSK RX ring, so the driver never finds the
 * fill ring empty while frames wait in ours. TX: the configured
 * tx-ring-frames, at least two worker batches; completion ring as large as
 * TX, so every frame in flight has a completion slot.
 */
#define AFXDP_RX_RING_MIN  64u
#define AFXDP_RX_RING_MAX  16384u
#define AFXDP_TX_RING_MIN  512u
#define AFXDP_TX_RING_MAX  16384u
#define AFXDP_NIC_RING_DEF 256u /* veth's ptr_ring (VETH_RING_SIZE), when ethtool says nothing */

#define AFXDP_VLAN_HLEN 4u

/* The kernel has it since 6.17 (copy mode: descriptors per sendto, default 32). */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9
#endif

/* One per port (port.drv), shared by its queues: the XDP program and its maps. */
struct afxdp_port {
	struct port *port;
	struct bpf_object *obj;
	int prog_fd;
	int punt_fd;
	int xsks_fd, local_fd, local6_fd, conf_fd, stats_fd;
	bool ipv6;          /* cg_conf.ipv6: redirecting transit IPv6 (cg_local6 filled) */
	bool local6_filled; /* afxdp_local6_set succeeded once: cg_local6 holds our addresses */
	int link_fd;    /* the BPF link holding the program on the netdev, -1 before the attach */
	int promisc_fd; /* holds the netdev's promiscuity (setting promiscuous), or -1 */
	unsigned nopen; /* queues open on it */
	int ncpus;      /* possible CPUs: entries of a per-CPU map value */
	struct cg_xdp_ctr *percpu; /* ncpus entries: scratch for reading cg_stats */
	/* Written by the workers (each queue its own), read by the control thread. */
	uint64_t punted[WORKER_MAX];
	uint64_t punt_errors[WORKER_MAX];
};

struct port_queue {
	/* Hot: touched every burst. */
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fq;
	struct xsk_ring_prod tx;
	struct xsk_ring_cons cq;
	uint8_t *area; /* the UMEM */
	int fd;        /* the XSK */
	uint16_t port_id;
	unsigned rx_held;            /* descriptors rx_burst handed out, returned by rx_release */
	uint64_t rx_addr[BURST_MAX]; /* their chunks, for the fill ring */
	uint64_t *tx_free;           /* stack of free TX chunks (UMEM offsets) */
	unsigned tx_nfree;
	unsigned tx_max_len; /* MTU + Ethernet header + one VLAN tag */
	bool tx_pending;     /* descriptors submitted that the kernel has not taken yet */
	struct afxdp_port *ap;
	unsigned qid;

	/* Control thread only. */
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	size_t area_len;
	unsigned chunk;
	unsigned rx_size, fill_size, tx_size;
	unsigned tx_chunks;
	bool zerocopy;
	uint64_t drops_seen; /* XDP_STATISTICS drops already reported */
	char name[PORT_NAME_MAX];
	char netdev[IF_NAMESIZE];
};

/* Log "port NAME (netdev DEV): what: reason[ (fix)]" and return -err. */
int afxdp_fail(const struct port *p, const char *what, int err, const char *fix);

/* port_afxdp_prog.c: the per-port XDP program, from the first queue open to the last close. */
int afxdp_port_get(struct port *p, struct afxdp_port **out);
void afxdp_port_put(struct afxdp_port *ap);
int afxdp_port_attach(struct afxdp_port *ap);
/* Write cg_conf from the port (MAC, ap->ipv6): 0 or a negative errno (logged). */
int afxdp_conf_write(struct afxdp_port *ap);
const char *afxdp_obj_path(void);

/* port_afxdp_io.c: the per-burst operations (no allocation, lock or log per packet). */
unsigned afxdp_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max);
void afxdp_rx_release(struct port_queue *q);
unsigned afxdp_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n);
int afxdp_tx_flush(struct port_queue *q);
int afxdp_rx_fd(const struct port_queue *q);
int afxdp_queue_ring_drops(struct port_queue *q, uint64_t *drops);
void afxdp_punt(struct port_queue *q, const struct pkt *p);
void afxdp_tx_reclaim(struct port_queue *q);

#endif

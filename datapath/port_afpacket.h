/* SPDX-License-Identifier: BSD-2-Clause */
/* Private to the afpacket driver: ring geometry and the per-queue state shared by its setup and I/O
 * halves. */
#ifndef CELLGATE_PORT_AFPACKET_H
#define CELLGATE_PORT_AFPACKET_H

#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "datapath/port.h"

/*
 * RX ring: TPACKET_V2, fixed frames each sized for the port's MTU. Every
 * frame has its own status word, so the worker sees a frame as soon as the
 * kernel has written it, and poll() wakes on every frame. (TPACKET_V3 packs
 * frames into blocks that reach user space only when full or when a timer of
 * at least 1 ms retires them: ~1 ms added to every lone packet, measured in
 * BENCHMARKS.md.) A frame longer than a ring frame (a GSO super-packet of up
 * to 64 KiB) is queued whole on the socket as well (PACKET_COPY_THRESH): its
 * ring frame, marked TP_STATUS_COPY, stands for it in order, and rx_burst
 * reads it with one recv() into one of a few big buffers.
 * Frames are grouped into 128 KiB blocks (the kernel allocates a block as one
 * power-of-two run of pages). Default 32768 frames: ~53 MiB per queue at MTU
 * 1500, ~40 ms of minimum-size frames at 800 kpps, enough to ride out a
 * worker kept from its CPU for a few scheduler ticks.
 */
#define AFPACKET_RX_BLOCK_SIZE (128u << 10)
#define AFPACKET_RX_FRAMES_DEF 32768u
#define AFPACKET_RX_FRAMES_MIN 256u
#define AFPACKET_RX_RING_MAX   (256u << 20) /* bytes per queue */
/* Super-packets read per burst, and the socket buffer their copies wait in. */
#define AFPACKET_RX_COPY_BUFS   8u
#define AFPACKET_RX_COPY_SIZE   (68u << 10) /* reserve, vnet header, Ethernet, VLAN, 64 KiB IP */
#define AFPACKET_RX_COPY_RCVBUF (8u << 20)
/* Headroom before each frame: room to put back a VLAN tag the kernel stripped. */
#define AFPACKET_RX_RESERVE 16u

#define AFPACKET_VLAN_HLEN 4u
#define AFPACKET_VNET_HLEN sizeof(struct virtio_net_hdr)
/* The largest IPv4 datagram, so also the largest GSO super-packet we accept. */
#define AFPACKET_IP_MAX 65535u

/*
 * TX slots are fixed-size, and any slot may get a super-packet, so each holds
 * a 64 KiB datagram: 17 pages (68 KiB) with 4 KiB pages. The kernel backs a
 * block with a power-of-two run of pages, so blocks group slots into just
 * under 1 MiB (15 slots) rather than waste up to half of each block. The
 * default 255 slots (~17 MiB per queue) match the RX ring's budget and hold
 * two full worker batches (2 x TX_BATCH frames). A slot stays busy until the
 * kernel frees the skb built on it (it attaches the slot's pages rather than
 * copying them); 255 measured no loss at 64 bytes in tests/bench/fwd-bench.sh.
 */
#define AFPACKET_TX_FRAMES_DEF 255u
#define AFPACKET_TX_FRAMES_MAX 4096u
#define AFPACKET_TX_BLOCK_MAX  (1u << 20)
/* How soon an unfinished TX flush is retried when nothing else wakes the worker. */
#define AFPACKET_TX_RETRY_NS 50000u
/* Without PACKET_TX_HAS_OFF the kernel reads the data right after the header. */
#define AFPACKET_TX_DATA_OFF TPACKET_ALIGN(sizeof(struct tpacket2_hdr))

/* The kernel has produced it since 6.2; older uapi headers lack the name. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif
/* pkt.h's enum pkt_gso reuses the virtio numbering so frames pass untranslated. */
_Static_assert(PKT_GSO_TCP4 == VIRTIO_NET_HDR_GSO_TCPV4 &&
                   PKT_GSO_TCP6 == VIRTIO_NET_HDR_GSO_TCPV6 &&
                   PKT_GSO_UDP_L4 == VIRTIO_NET_HDR_GSO_UDP_L4 &&
                   PKT_GSO_ECN == VIRTIO_NET_HDR_GSO_ECN,
               "enum pkt_gso follows virtio_net_hdr.gso_type");

/* A place in the RX ring: frame index, its slot in its block, its address. */
struct afpacket_rx_pos {
	unsigned idx, slot;
	uint8_t *frame;
};

struct port_queue {
	/* RX: touched every burst. */
	int rx_fd;
	uint16_t port_id;
	uint8_t *rx_map;
	unsigned rx_nframes;
	unsigned rx_frame_size;
	unsigned rx_frames_per_block;
	unsigned rx_block_gap;          /* bytes at the end of a block that hold no frame */
	struct afpacket_rx_pos rx_head; /* next frame to read */
	struct afpacket_rx_pos rx_rel;  /* oldest frame read but not yet released */
	unsigned rx_taken;              /* frames from rx_rel up to rx_head */
	unsigned rx_copy_used;          /* copy buffers holding frames of this burst */
	uint8_t *rx_copy;               /* AFPACKET_RX_COPY_BUFS x AFPACKET_RX_COPY_SIZE */

	/* TX */
	int tx_fd;
	uint8_t *tx_map;
	unsigned tx_nframes;
	unsigned tx_frame_size;
	unsigned tx_head;        /* next slot to fill */
	unsigned tx_max_len;     /* largest ordinary frame: MTU + Ethernet + one tag */
	unsigned tx_gso_max_len; /* largest GSO super-packet frame */
	unsigned tx_last;        /* slot most recently queued */
	bool tx_pending;         /* slots queued since the kernel last took them all */

	/* control thread only */
	size_t rx_map_len;
	size_t tx_map_len;
	char name[PORT_NAME_MAX];
	unsigned qid;
};

/* Log "port NAME queue N: what: reason" and return -err. */
int afpacket_fail(const struct port_queue *q, const char *what, int err);

/* port_afpacket_io.c: the per-burst operations (no allocation, lock or log per packet). */
unsigned afpacket_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max);
void afpacket_rx_release(struct port_queue *q);
unsigned afpacket_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n);
int afpacket_tx_refused(struct port_queue *q, const struct pkt *pk);
int afpacket_tx_flush(struct port_queue *q);
int afpacket_rx_fd(const struct port_queue *q);
uint64_t afpacket_service(struct port_queue *q, uint64_t now_ns, bool busy);
int afpacket_queue_ring_drops(struct port_queue *q, uint64_t *drops);

#endif

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
 * RX block: 256 KiB holds four 64 KiB super-packets, ~170 MTU-sized frames or
 * ~1900 minimum-sized ones, so block hand-over cost is amortised well.
 * Default 64 blocks (16 MiB per queue): ~11k MTU frames, ~13 ms at 10 Gb/s,
 * enough to ride out a worker being preempted for a few scheduler ticks.
 */
#define AFPACKET_RX_BLOCK_SIZE (256u << 10)
#define AFPACKET_RX_BLOCKS_DEF 64u
#define AFPACKET_RX_BLOCKS_MIN 8u
#define AFPACKET_RX_BLOCKS_MAX 1024u
/* V3 ignores the frame size except for a consistency check on tp_frame_nr. */
#define AFPACKET_RX_FRAME_NOMINAL 2048u
/*
 * A partly filled block reaches us only when it retires; 1 ms bounds the added
 * latency under light load (kernels that use a jiffy timer round it up). Each
 * retirement spends a whole block however few frames it holds, so at low
 * rates the ring's depth is its block count, hence a floor of 8 blocks.
 */
#define AFPACKET_RX_BLOCK_TOV_MS 1u
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

struct port_queue {
	/* RX: touched every burst. */
	int rx_fd;
	uint16_t port_id;
	uint8_t *rx_map;
	unsigned rx_nblocks;
	unsigned rx_cur;   /* block being read, or the next one to open */
	unsigned rx_left;  /* frames still unread in rx_cur (0: not open) */
	uint8_t *rx_frame; /* next unread frame in rx_cur */
	unsigned rx_rel;   /* oldest block read to the end but not released */
	unsigned rx_done;  /* how many such blocks, from rx_rel on */

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
int afpacket_tx_flush(struct port_queue *q);
int afpacket_rx_fd(const struct port_queue *q);
int afpacket_queue_ring_drops(struct port_queue *q, uint64_t *drops);

#endif

/*
 * The "afpacket" port driver: Ethernet NICs through AF_PACKET rings.
 *
 * Per queue, two sockets:
 *  - RX: TPACKET_V3 ring. V3 packs frames of any size back to back into large
 *    blocks and hands a whole block over at once, so a burst costs one status
 *    read per block instead of one per frame. PACKET_IGNORE_OUTGOING hides what
 *    we (and the kernel) send on the port. With several queues the sockets join
 *    one PACKET_FANOUT_HASH group so each flow stays on one worker.
 *  - TX: TPACKET_V2 ring of fixed slots. tx_burst copies into slots, tx_flush
 *    kicks the kernel once. A separate socket with protocol 0 so the kernel never
 *    queues received frames to it.
 *
 * Both sockets use PACKET_VNET_HDR: a virtio_net_hdr travels with every frame
 * and carries the offload state of the kernel's skb. Senders with TSO/GSO
 * (containers, VMs on veth/tap; GRO on a NIC) hand us super-packets of up to
 * 64 KiB with partial checksums; the header says how to segment and where the
 * checksum goes, so we forward them whole and the egress device, or the
 * kernel's software GSO in validate_xmit_skb, cuts them into MTU-sized
 * segments after us. Hence GRO may stay on; the daemon still turns it off by
 * default (netdev_gro_off). Needs a kernel with virtio headers in tpacket_snd
 * (TX ring); checked on 6.18.
 */
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

#include "log.h"
#include "port.h"

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

static int afpacket_fail(const struct port_queue *q, const char *what, int err)
{
	const char *hint = "";

	if (err == EPERM || err == EACCES)
		hint = " (need CAP_NET_RAW)";
	log_warnx("port %s: queue %u: %s: %s%s", q->name, q->qid, what, strerror(err), hint);
	return -err;
}

static int afpacket_setsockopt(struct port_queue *q, int fd, int opt, const void *val,
                               socklen_t len, const char *what)
{
	if (setsockopt(fd, SOL_PACKET, opt, val, len) < 0)
		return afpacket_fail(q, what, errno);
	return 0;
}

static int afpacket_setint(struct port_queue *q, int fd, int opt, int val, const char *what)
{
	return afpacket_setsockopt(q, fd, opt, &val, sizeof(val), what);
}

static int afpacket_bind(struct port_queue *q, int fd, int ifindex, uint16_t proto)
{
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET,
	    .sll_protocol = htons(proto),
	    .sll_ifindex = ifindex,
	};

	int soerr;
	socklen_t len = sizeof(soerr);

	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return afpacket_fail(q, "bind", errno);
	/*
	 * Binding to a port that is down leaves ENETDOWN pending on the socket,
	 * which would make poll() report POLLERR until someone reads it. The
	 * socket starts receiving by itself once the port comes up.
	 */
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	return 0;
}

static unsigned afpacket_rx_blocks(const struct port *p)
{
	uint64_t frame, blocks;

	if (p->settings.rx_ring_frames == 0)
		return AFPACKET_RX_BLOCKS_DEF;
	/* What an MTU-sized frame occupies in a V3 block, headers included. */
	frame = TPACKET_ALIGN(TPACKET3_HDRLEN + AFPACKET_RX_RESERVE + 16 + AFPACKET_VNET_HLEN +
	                      ETH_HLEN + AFPACKET_VLAN_HLEN + p->mtu);
	blocks = ((uint64_t)p->settings.rx_ring_frames * frame + AFPACKET_RX_BLOCK_SIZE - 1) /
	         AFPACKET_RX_BLOCK_SIZE;
	if (blocks < AFPACKET_RX_BLOCKS_MIN)
		return AFPACKET_RX_BLOCKS_MIN;
	if (blocks > AFPACKET_RX_BLOCKS_MAX)
		return AFPACKET_RX_BLOCKS_MAX;
	return blocks;
}

/* The RX ring must exist before bind, so no frame lands in the plain socket queue. */
static int afpacket_rx_ring(struct port_queue *q, const struct port *p)
{
	struct tpacket_req3 req = {
	    .tp_block_size = AFPACKET_RX_BLOCK_SIZE,
	    .tp_frame_size = AFPACKET_RX_FRAME_NOMINAL,
	    .tp_retire_blk_tov = AFPACKET_RX_BLOCK_TOV_MS,
	};
	void *map;
	int err;

	q->rx_nblocks = afpacket_rx_blocks(p);
	req.tp_block_nr = q->rx_nblocks;
	req.tp_frame_nr = q->rx_nblocks * (AFPACKET_RX_BLOCK_SIZE / AFPACKET_RX_FRAME_NOMINAL);

	err = afpacket_setint(q, q->rx_fd, PACKET_VERSION, TPACKET_V3, "RX TPACKET_V3");
	/* Like PACKET_RESERVE, only accepted before the ring exists. */
	if (!err)
		err = afpacket_setint(q, q->rx_fd, PACKET_VNET_HDR, 1, "RX virtio header");
	if (!err)
		err =
		    afpacket_setint(q, q->rx_fd, PACKET_RESERVE, AFPACKET_RX_RESERVE, "RX reserve");
	if (!err)
		err = afpacket_setsockopt(q, q->rx_fd, PACKET_RX_RING, &req, sizeof(req),
		                          "TPACKET_V3 RX ring");
	if (err)
		return err;
	q->rx_map_len = (size_t)req.tp_block_nr * req.tp_block_size;
	map = mmap(NULL, q->rx_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, q->rx_fd, 0);
	if (map == MAP_FAILED)
		return afpacket_fail(q, "RX ring mmap", errno);
	q->rx_map = map;
	return 0;
}

static int afpacket_rx_open(struct port_queue *q, const struct port *p, unsigned nqueues)
{
	int err;

	/* Protocol 0: receive nothing until bind names the port. */
	q->rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (q->rx_fd < 0)
		return afpacket_fail(q, "RX socket", errno);
	err = afpacket_rx_ring(q, p);
	if (!err)
		err = afpacket_setint(q, q->rx_fd, PACKET_IGNORE_OUTGOING, 1, "RX ignore outgoing");
	if (!err)
		err = afpacket_bind(q, q->rx_fd, p->ifindex, ETH_P_ALL);
	/*
	 * One group per port: fanout ids are per network namespace, and the
	 * ifindex is unique there. Joining needs a bound socket.
	 */
	if (!err && nqueues > 1)
		err = afpacket_setint(q, q->rx_fd, PACKET_FANOUT,
		                      (p->ifindex & 0xffff) | (PACKET_FANOUT_HASH << 16),
		                      "RX fanout");
	if (!err && p->settings.promiscuous) {
		/* Per socket, and the kernel drops it when the socket closes. */
		struct packet_mreq mr = {.mr_ifindex = p->ifindex, .mr_type = PACKET_MR_PROMISC};

		err = afpacket_setsockopt(q, q->rx_fd, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr),
		                          "promiscuous mode");
	}
	return err;
}

static void afpacket_tx_sndbuf(struct port_queue *q)
{
	/*
	 * Every frame in flight is charged to the socket's send buffer; the
	 * default (~208 KiB) would stall a full ring on a real NIC long before
	 * the ring itself is full. Only the FORCE variant may exceed wmem_max.
	 */
	uint64_t want = (uint64_t)q->tx_nframes * q->tx_frame_size * 2;
	int sz = want > (1u << 30) ? (1 << 30) : (int)want;

	if (setsockopt(q->tx_fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0 &&
	    setsockopt(q->tx_fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) < 0)
		log_debug("port %s: queue %u: TX send buffer: %s", q->name, q->qid,
		          strerror(errno));
}

/* Slot geometry: every slot holds the largest frame, headers in front. */
static void afpacket_tx_geometry(struct port_queue *q, const struct port *p,
                                 struct tpacket_req *req)
{
	unsigned page = (unsigned)sysconf(_SC_PAGESIZE);
	unsigned ip_max = p->mtu > AFPACKET_IP_MAX ? p->mtu : AFPACKET_IP_MAX;
	unsigned need =
	    AFPACKET_TX_DATA_OFF + AFPACKET_VNET_HLEN + ETH_HLEN + AFPACKET_VLAN_HLEN + ip_max;
	unsigned frames =
	    p->settings.tx_ring_frames ? p->settings.tx_ring_frames : AFPACKET_TX_FRAMES_DEF;
	unsigned per_block;

	q->tx_frame_size = (need + page - 1) / page * page;
	per_block = AFPACKET_TX_BLOCK_MAX / q->tx_frame_size;
	if (per_block == 0)
		per_block = 1;
	if (frames > AFPACKET_TX_FRAMES_MAX)
		frames = AFPACKET_TX_FRAMES_MAX;
	frames = (frames + per_block - 1) / per_block * per_block;
	*req = (struct tpacket_req){
	    .tp_block_size = q->tx_frame_size * per_block,
	    .tp_block_nr = frames / per_block,
	    .tp_frame_size = q->tx_frame_size,
	    .tp_frame_nr = frames,
	};
	q->tx_nframes = frames;
	q->tx_gso_max_len = q->tx_frame_size - AFPACKET_TX_DATA_OFF - AFPACKET_VNET_HLEN;
	/*
	 * With a virtio header the kernel no longer checks ordinary frames
	 * against the MTU (a GSO frame may exceed it), so tx_burst does.
	 */
	q->tx_max_len = ETH_HLEN + AFPACKET_VLAN_HLEN + p->mtu;
}

static int afpacket_tx_ring(struct port_queue *q, const struct port *p)
{
	struct tpacket_req req;
	void *map;
	int err;

	afpacket_tx_geometry(q, p, &req);
	err = afpacket_setsockopt(q, q->tx_fd, PACKET_TX_RING, &req, sizeof(req),
	                          "TPACKET_V2 TX ring");
	if (err)
		return err;
	q->tx_map_len = (size_t)req.tp_block_nr * req.tp_block_size;
	map = mmap(NULL, q->tx_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, q->tx_fd, 0);
	if (map == MAP_FAILED)
		return afpacket_fail(q, "TX ring mmap", errno);
	q->tx_map = map;
	return 0;
}

/* Whether the netdev segments TCP itself (ethtool's tcp-segmentation-offload). */
static bool afpacket_dev_tso(const struct port *p)
{
	struct ethtool_value ev = {.cmd = ETHTOOL_GTSO};
	struct ifreq ifr = {.ifr_data = (void *)&ev};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool tso;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->netdev);
	tso = fd >= 0 && ioctl(fd, SIOCETHTOOL, &ifr) == 0 && ev.data;
	if (fd >= 0)
		close(fd);
	return tso;
}

/*
 * PACKET_QDISC_BYPASS sends through __dev_direct_xmit, which drops a frame
 * that validate_xmit_skb had to segment in software (ENOBUFS, checked on
 * 6.18); only the qdisc path transmits the segment list. So bypass only where
 * the device segments TCP super-packets itself. A device without UDP or ECN
 * segmentation still loses those through bypass; TSO turned off after start
 * loses TCP ones too (restart the daemon).
 */
static bool afpacket_tx_bypass(const struct port_queue *q, const struct port *p)
{
	if (!p->settings.qdisc_bypass)
		return false;
	if (afpacket_dev_tso(p))
		return true;
	log_warnx("port %s: queue %u: qdisc bypass off: %s has no TCP segmentation offload, "
	          "and bypass cannot segment super-packets in software",
	          q->name, q->qid, p->netdev);
	return false;
}

static int afpacket_tx_open(struct port_queue *q, const struct port *p)
{
	int err;

	q->tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (q->tx_fd < 0)
		return afpacket_fail(q, "TX socket", errno);
	err = afpacket_setint(q, q->tx_fd, PACKET_VERSION, TPACKET_V2, "TX TPACKET_V2");
	/*
	 * Without PACKET_LOSS a frame the kernel rejects stays in
	 * TP_STATUS_WRONG_FORMAT and blocks the ring for good.
	 */
	if (!err)
		err = afpacket_setint(q, q->tx_fd, PACKET_LOSS, 1, "TX loss mode");
	if (!err && afpacket_tx_bypass(q, p))
		err = afpacket_setint(q, q->tx_fd, PACKET_QDISC_BYPASS, 1, "TX qdisc bypass");
	if (!err)
		err = afpacket_setint(q, q->tx_fd, PACKET_VNET_HDR, 1, "TX virtio header");
	if (!err)
		err = afpacket_tx_ring(q, p);
	if (err)
		return err;
	afpacket_tx_sndbuf(q);
	return afpacket_bind(q, q->tx_fd, p->ifindex, 0);
}

static void afpacket_queue_close(struct port_queue *q)
{
	if (!q)
		return;
	if (q->rx_map)
		munmap(q->rx_map, q->rx_map_len);
	if (q->tx_map)
		munmap(q->tx_map, q->tx_map_len);
	if (q->rx_fd >= 0)
		close(q->rx_fd);
	if (q->tx_fd >= 0)
		close(q->tx_fd);
	free(q);
}

static int afpacket_queue_open(struct port *p, unsigned qid, unsigned nqueues,
                               struct port_queue **out)
{
	struct port_queue *q;
	int err;

	if (p->ifindex <= 0 || p->mtu == 0) {
		log_warnx("port %s: queue %u: open: netdev %s not looked up (no ifindex/MTU)",
		          p->name, qid, p->netdev);
		return -EINVAL;
	}
	/* Cache-line aligned: the RX fields are read by the worker every burst. */
	q = aligned_alloc(64, (sizeof(*q) + 63) & ~(size_t)63);
	if (!q) {
		log_warnx("port %s: queue %u: open: out of memory", p->name, qid);
		return -ENOMEM;
	}
	memset(q, 0, sizeof(*q));
	q->rx_fd = q->tx_fd = -1;
	q->port_id = p->id;
	q->qid = qid;
	snprintf(q->name, sizeof(q->name), "%s", p->name);

	err = afpacket_rx_open(q, p, nqueues);
	if (!err)
		err = afpacket_tx_open(q, p);
	if (err) {
		afpacket_queue_close(q);
		return err;
	}
	p->tx_offload = true;
	log_debug("port %s: queue %u/%u: RX %u x %u KiB blocks, TX %u x %u B slots", p->name, qid,
	          nqueues, q->rx_nblocks, AFPACKET_RX_BLOCK_SIZE >> 10, q->tx_nframes,
	          q->tx_frame_size);
	*out = q;
	return 0;
}

static inline struct tpacket_block_desc *afpacket_block(const struct port_queue *q, unsigned i)
{
	return (struct tpacket_block_desc *)(q->rx_map + (size_t)i * AFPACKET_RX_BLOCK_SIZE);
}

/* Opens rx_cur if the kernel has retired it to us; false if nothing to read. */
static bool afpacket_rx_open_block(struct port_queue *q)
{
	struct tpacket_block_desc *bd;

	for (;;) {
		/* rx_cur is then a block we still hold: the ring has wrapped onto it. */
		if (q->rx_done >= q->rx_nblocks)
			return false;
		bd = afpacket_block(q, q->rx_cur);
		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			return false;
		if (bd->hdr.bh1.num_pkts) {
			q->rx_left = bd->hdr.bh1.num_pkts;
			q->rx_frame = (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
			return true;
		}
		q->rx_done++;
		q->rx_cur = (q->rx_cur + 1) % q->rx_nblocks;
	}
}

/*
 * The kernel moves a VLAN tag into tp_vlan_tci, also for software-tagged
 * frames. Putting it back keeps a tagged frame from passing for an untagged
 * one; the IP layer then sees the 802.1Q ethertype and drops it, counted.
 * PACKET_RESERVE guarantees the 4 bytes of headroom.
 */
static inline void afpacket_vlan_restore(struct pkt *pk, const struct tpacket3_hdr *h)
{
	uint16_t tpid =
	    (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ? h->hv1.tp_vlan_tpid : ETH_P_8021Q;

	pk->data -= AFPACKET_VLAN_HLEN;
	memmove(pk->data, pk->data + AFPACKET_VLAN_HLEN, 2 * ETH_ALEN);
	pk->data[12] = tpid >> 8;
	pk->data[13] = tpid & 0xff;
	pk->data[14] = h->hv1.tp_vlan_tci >> 8;
	pk->data[15] = h->hv1.tp_vlan_tci & 0xff;
	pk->len += AFPACKET_VLAN_HLEN;
	if (pk->csum_partial)
		pk->csum_start += AFPACKET_VLAN_HLEN;
}

/*
 * tpacket_rcv writes the virtio header right before the MAC header, in host
 * byte order (legacy virtio), unless the frame was truncated to fit the block.
 * NEEDS_CSUM is what TP_STATUS_CSUMNOTREADY says, plus where the sum goes.
 */
static inline void afpacket_vnet_rx(struct pkt *pk, const struct tpacket3_hdr *h)
{
	const struct virtio_net_hdr *vh =
	    (const struct virtio_net_hdr *)(pk->data - AFPACKET_VNET_HLEN);

	if (h->tp_snaplen < h->tp_len) {
		pk->csum_partial = 0;
		pk->gso_type = PKT_GSO_NONE;
		pk->gso_size = pk->csum_start = pk->csum_offset = 0;
		return;
	}
	pk->csum_partial = vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pk->csum_start = vh->csum_start;
	pk->csum_offset = vh->csum_offset;
	pk->gso_type = vh->gso_type;
	pk->gso_size = vh->gso_type == VIRTIO_NET_HDR_GSO_NONE ? 0 : vh->gso_size;
}

static const uint8_t afpacket_l2_class[] = {
    [PACKET_HOST] = PKT_L2_HOST,
    [PACKET_BROADCAST] = PKT_L2_BROADCAST,
    [PACKET_MULTICAST] = PKT_L2_MULTICAST,
    [PACKET_OTHERHOST] = PKT_L2_OTHERHOST,
};

/*
 * A frame truncated by the ring (tp_snaplen < tp_len, only for frames larger
 * than a block) is still delivered with len = tp_snaplen: the IP layer's
 * total-length check drops and counts it.
 */
static unsigned afpacket_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		const struct tpacket3_hdr *h;
		const struct sockaddr_ll *sll;
		struct pkt *pk;

		if (q->rx_left == 0 && !afpacket_rx_open_block(q))
			break;
		h = (const struct tpacket3_hdr *)q->rx_frame;
		sll = (const struct sockaddr_ll *)(q->rx_frame + TPACKET_ALIGN(sizeof(*h)));
		if (--q->rx_left) {
			q->rx_frame += h->tp_next_offset;
		} else {
			q->rx_done++;
			q->rx_cur = (q->rx_cur + 1) % q->rx_nblocks;
		}
		/* Outgoing/looped-back copies, should PACKET_IGNORE_OUTGOING miss any. */
		if (sll->sll_pkttype > PACKET_OTHERHOST)
			continue;
		pk = &pkts[n++];
		pk->data = (uint8_t *)h + h->tp_mac;
		pk->len = h->tp_snaplen;
		pk->in_port = q->port_id;
		pk->l2_class = afpacket_l2_class[sll->sll_pkttype];
		/* Before a VLAN restore, whose headroom overlaps the header. */
		afpacket_vnet_rx(pk, h);
		if (h->tp_status & TP_STATUS_VLAN_VALID)
			afpacket_vlan_restore(pk, h);
	}
	return n;
}

static void afpacket_rx_release(struct port_queue *q)
{
	for (; q->rx_done; q->rx_done--) {
		/* Release: our reads and in-place rewrites complete before the kernel refills. */
		__atomic_store_n(&afpacket_block(q, q->rx_rel)->hdr.bh1.block_status,
		                 TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		q->rx_rel = (q->rx_rel + 1) % q->rx_nblocks;
	}
}

/*
 * The slot's virtio header: all zero for an ordinary frame. hdr_len stays 0:
 * the kernel sets it to cover the checksum field and pulls the rest of the
 * headers it needs when it segments.
 */
static inline void afpacket_vnet_tx(uint8_t *slot, const struct pkt *pk)
{
	struct virtio_net_hdr vh = {0};

	if (pk->csum_partial) {
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.csum_start = pk->csum_start;
		vh.csum_offset = pk->csum_offset;
	}
	if (pk->gso_type != PKT_GSO_NONE) {
		vh.gso_type = pk->gso_type;
		vh.gso_size = pk->gso_size;
	}
	memcpy(slot, &vh, sizeof(vh));
}

/*
 * Accepts a prefix of pkts: it stops at the first frame that finds the ring
 * full or is too long: longer than tx_max_len (MTU + Ethernet header + one
 * VLAN tag; the IP layer never sends more) or, for a GSO super-packet whose
 * segments the IP layer sized, than a slot. The caller counts the rest as
 * dropped. Slots are filled strictly in order because the kernel walks them
 * in order.
 */
static unsigned afpacket_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct pkt *pk = pkts[i];
		uint8_t *slot = q->tx_map + (size_t)q->tx_head * q->tx_frame_size;
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)slot;
		unsigned max = pk->gso_type == PKT_GSO_NONE ? q->tx_max_len : q->tx_gso_max_len;

		if (pk->len > max ||
		    __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) != TP_STATUS_AVAILABLE)
			break;
		afpacket_vnet_tx(slot + AFPACKET_TX_DATA_OFF, pk);
		memcpy(slot + AFPACKET_TX_DATA_OFF + AFPACKET_VNET_HLEN, pk->data, pk->len);
		h->tp_len = AFPACKET_VNET_HLEN + pk->len;
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
		q->tx_last = q->tx_head;
		q->tx_head = q->tx_head + 1 == q->tx_nframes ? 0 : q->tx_head + 1;
	}
	if (i)
		q->tx_pending = true;
	return i;
}

/*
 * 0, or a negative errno without logging (datapath): -EAGAIN/-ENOBUFS mean the
 * device or qdisc was busy; what the kernel did not take stays queued and the
 * next tx_flush retries it, even with nothing new queued.
 */
static int afpacket_tx_flush(struct port_queue *q)
{
	const struct tpacket2_hdr *last;

	if (!q->tx_pending)
		return 0;
	if (sendto(q->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0)
		return -errno;
	/*
	 * The kernel stops early when the send buffer is full; the newest slot
	 * still waiting tells us so without another syscall.
	 */
	last = (const struct tpacket2_hdr *)(q->tx_map + (size_t)q->tx_last * q->tx_frame_size);
	q->tx_pending =
	    __atomic_load_n(&last->tp_status, __ATOMIC_ACQUIRE) == TP_STATUS_SEND_REQUEST;
	return 0;
}

/*
 * Poll it for POLLIN. When the port goes down the kernel sets ENETDOWN on the
 * socket: poll() then reports POLLERR until it is read with
 * getsockopt(SO_ERROR); RX resumes by itself when the port is up again.
 */
static int afpacket_rx_fd(const struct port_queue *q)
{
	return q->rx_fd;
}

static int afpacket_queue_ring_drops(struct port_queue *q, uint64_t *drops)
{
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (getsockopt(q->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		return afpacket_fail(q, "RX ring statistics", errno);
	*drops = st.tp_drops;
	return 0;
}

const struct port_ops port_afpacket_ops = {
    .driver = "afpacket",
    .queue_open = afpacket_queue_open,
    .queue_close = afpacket_queue_close,
    .rx_burst = afpacket_rx_burst,
    .rx_release = afpacket_rx_release,
    .tx_burst = afpacket_tx_burst,
    .tx_flush = afpacket_tx_flush,
    .rx_fd = afpacket_rx_fd,
    .queue_ring_drops = afpacket_queue_ring_drops,
};

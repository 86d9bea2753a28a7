/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "afpacket" port driver: Ethernet NICs through AF_PACKET rings.
 *
 * Per queue, two sockets:
 *  - RX: TPACKET_V2 ring of MTU-sized frames, each with its own status, so a
 *    frame reaches the worker as soon as the kernel wrote it (see
 *    port_afpacket.h for why not V3); frames too long for a ring frame come
 *    through the socket queue. PACKET_IGNORE_OUTGOING hides what we (and the
 *    kernel) send on the port. With several queues the sockets join one
 *    PACKET_FANOUT_HASH group so each flow stays on one worker.
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
#include "datapath/port_afpacket.h"

int afpacket_fail(const struct port_queue *q, const char *what, int err)
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

/*
 * Frame geometry for the port's MTU. The kernel puts the MAC header at
 * TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + reserve + virtio header - 14 and
 * needs the whole frame after it; a VLAN tag it strips costs nothing here.
 */
static void afpacket_rx_geometry(struct port_queue *q, const struct port *p,
                                 struct tpacket_req *req)
{
	unsigned need = TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + AFPACKET_RX_RESERVE +
	                AFPACKET_VNET_HLEN + AFPACKET_VLAN_HLEN + p->mtu;
	uint64_t frames =
	    p->settings.rx_ring_frames ? p->settings.rx_ring_frames : AFPACKET_RX_FRAMES_DEF;
	unsigned block = AFPACKET_RX_BLOCK_SIZE; /* > the largest frame: MTU <= 65535 */

	q->rx_frame_size = TPACKET_ALIGN(need);
	q->rx_frames_per_block = block / q->rx_frame_size;
	q->rx_block_gap = block - q->rx_frames_per_block * q->rx_frame_size;
	if (frames < AFPACKET_RX_FRAMES_MIN)
		frames = AFPACKET_RX_FRAMES_MIN;
	uint64_t blocks = (frames + q->rx_frames_per_block - 1) / q->rx_frames_per_block;
	if (blocks * block > AFPACKET_RX_RING_MAX)
		blocks = AFPACKET_RX_RING_MAX / block;
	*req = (struct tpacket_req){
	    .tp_block_size = block,
	    .tp_block_nr = (unsigned)blocks,
	    .tp_frame_size = q->rx_frame_size,
	    .tp_frame_nr = (unsigned)blocks * q->rx_frames_per_block,
	};
	q->rx_nframes = req->tp_frame_nr;
}

/*
 * Frames the ring cannot hold (GSO super-packets) also go to the socket's
 * queue, up to its receive buffer; rx_burst reads them into rx_copy.
 */
static int afpacket_rx_copies(struct port_queue *q)
{
	int sz = AFPACKET_RX_COPY_RCVBUF;

	q->rx_copy = malloc((size_t)AFPACKET_RX_COPY_BUFS * AFPACKET_RX_COPY_SIZE);
	if (!q->rx_copy)
		return afpacket_fail(q, "RX copy buffers", ENOMEM);
	if (setsockopt(q->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0 &&
	    setsockopt(q->rx_fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) < 0)
		log_debug("port %s: queue %u: RX receive buffer: %s", q->name, q->qid,
		          strerror(errno));
	return afpacket_setint(q, q->rx_fd, PACKET_COPY_THRESH, 1, "RX copy threshold");
}

/* The RX ring must exist before bind, so no frame lands in the plain socket queue. */
static int afpacket_rx_ring(struct port_queue *q, const struct port *p)
{
	struct tpacket_req req;
	void *map;
	int err;

	afpacket_rx_geometry(q, p, &req);
	err = afpacket_setint(q, q->rx_fd, PACKET_VERSION, TPACKET_V2, "RX TPACKET_V2");
	/* Like PACKET_RESERVE, only accepted before the ring exists. */
	if (!err)
		err = afpacket_setint(q, q->rx_fd, PACKET_VNET_HDR, 1, "RX virtio header");
	if (!err)
		err =
		    afpacket_setint(q, q->rx_fd, PACKET_RESERVE, AFPACKET_RX_RESERVE, "RX reserve");
	if (!err)
		err = afpacket_setsockopt(q, q->rx_fd, PACKET_RX_RING, &req, sizeof(req),
		                          "TPACKET_V2 RX ring");
	if (!err)
		err = afpacket_rx_copies(q);
	if (err)
		return err;
	q->rx_map_len = (size_t)req.tp_block_nr * req.tp_block_size;
	map = mmap(NULL, q->rx_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, q->rx_fd, 0);
	if (map == MAP_FAILED)
		return afpacket_fail(q, "RX ring mmap", errno);
	q->rx_map = map;
	q->rx_head = q->rx_rel = (struct afpacket_rx_pos){.frame = q->rx_map};
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
	free(q->rx_copy);
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
	log_debug("port %s: queue %u/%u: RX %u x %u B frames, TX %u x %u B slots", p->name, qid,
	          nqueues, q->rx_nframes, q->rx_frame_size, q->tx_nframes, q->tx_frame_size);
	*out = q;
	return 0;
}
const struct port_ops port_afpacket_ops = {
    .driver = "afpacket",
    .queue_open = afpacket_queue_open,
    .queue_close = afpacket_queue_close,
    .rx_burst = afpacket_rx_burst,
    .rx_release = afpacket_rx_release,
    .tx_burst = afpacket_tx_burst,
    .tx_refused = afpacket_tx_refused,
    .tx_flush = afpacket_tx_flush,
    .rx_fd = afpacket_rx_fd,
    .service = afpacket_service,
    .queue_ring_drops = afpacket_queue_ring_drops,
};

/* SPDX-License-Identifier: BSD-2-Clause */
/* The afpacket driver's hot path: reading RX frames, filling TX slots, kicking the kernel. */
#include "datapath/port_afpacket.h"
#include "datapath/stats.h"

static inline void afpacket_rx_next(const struct port_queue *q, struct afpacket_rx_pos *p)
{
	if (++p->idx == q->rx_nframes) {
		*p = (struct afpacket_rx_pos){.frame = q->rx_map};
	} else if (++p->slot == q->rx_frames_per_block) {
		/* Blocks follow each other in the mapping; each ends with a gap under a frame. */
		p->slot = 0;
		p->frame += q->rx_frame_size + q->rx_block_gap;
	} else {
		p->frame += q->rx_frame_size;
	}
}

/*
 * The kernel moves a VLAN tag into tp_vlan_tci, also for software-tagged
 * frames. Putting it back keeps a tagged frame from passing for an untagged
 * one; the IP layer then sees the 802.1Q ethertype and drops it, counted.
 * PACKET_RESERVE (and the copy buffers' own headroom) guarantees the 4 bytes.
 */
static inline void afpacket_vlan_restore(struct pkt *pk, const struct tpacket2_hdr *h, uint32_t st)
{
	uint16_t tpid = (st & TP_STATUS_VLAN_TPID_VALID) ? h->tp_vlan_tpid : ETH_P_8021Q;

	pk->data -= AFPACKET_VLAN_HLEN;
	memmove(pk->data, pk->data + AFPACKET_VLAN_HLEN, 2 * ETH_ALEN);
	pk->data[12] = tpid >> 8;
	pk->data[13] = tpid & 0xff;
	pk->data[14] = h->tp_vlan_tci >> 8;
	pk->data[15] = h->tp_vlan_tci & 0xff;
	pk->len += AFPACKET_VLAN_HLEN;
	if (pk->csum_partial)
		pk->csum_start += AFPACKET_VLAN_HLEN;
}

/*
 * The virtio header right before the MAC header, in host byte order (legacy
 * virtio): tpacket_rcv writes it there in the ring, recv() puts it first.
 * NEEDS_CSUM is what TP_STATUS_CSUMNOTREADY says, plus where the sum goes.
 * `whole` is false for a frame cut short, whose offload fields mean nothing.
 */
static inline void afpacket_vnet_rx(struct pkt *pk, bool whole)
{
	const struct virtio_net_hdr *vh =
	    (const struct virtio_net_hdr *)(pk->data - AFPACKET_VNET_HLEN);

	if (!whole) {
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
 * A frame the ring could only hold cut short (TP_STATUS_COPY): the whole of
 * it waits on the socket queue, in ring order, virtio header first. Read it
 * into the next copy buffer. An error left on the socket (ENETDOWN after a
 * link flap) is returned once before the data. Returns false, with nothing
 * read, if the copy is missing; the ring's shortened frame then stands in.
 */
static bool afpacket_rx_copy(struct port_queue *q, struct pkt *pk)
{
	uint8_t *buf = q->rx_copy + (size_t)q->rx_copy_used * AFPACKET_RX_COPY_SIZE;
	size_t room = AFPACKET_RX_COPY_SIZE - AFPACKET_RX_RESERVE;
	ssize_t n = -1;

	for (int tries = 0; tries < 2 && n < 0; tries++)
		n = recv(q->rx_fd, buf + AFPACKET_RX_RESERVE, room, MSG_DONTWAIT | MSG_TRUNC);
	if (n < (ssize_t)AFPACKET_VNET_HLEN + ETH_HLEN)
		return false;
	q->rx_copy_used++;
	pk->data = buf + AFPACKET_RX_RESERVE + AFPACKET_VNET_HLEN;
	/* Longer than a copy buffer (a MTU above 64 KiB): cut short, the IP layer drops it. */
	pk->len = (size_t)n > room ? (uint32_t)(room - AFPACKET_VNET_HLEN)
	                           : (uint32_t)(n - AFPACKET_VNET_HLEN);
	afpacket_vnet_rx(pk, (size_t)n <= room);
	return true;
}

/* The frame at rx_head as a pkt; false if it is not ours to deliver (an outgoing copy). */
static bool afpacket_rx_frame(struct port_queue *q, const struct tpacket2_hdr *h, uint32_t st,
                              struct pkt *pk)
{
	const struct sockaddr_ll *sll =
	    (const struct sockaddr_ll *)((const uint8_t *)h + TPACKET_ALIGN(sizeof(*h)));
	bool copied = (st & TP_STATUS_COPY) && afpacket_rx_copy(q, pk);

	/* Outgoing/looped-back copies, should PACKET_IGNORE_OUTGOING miss any. */
	if (sll->sll_pkttype > PACKET_OTHERHOST)
		return false;
	if (!copied) {
		pk->data = (uint8_t *)h + h->tp_mac;
		pk->len = h->tp_snaplen;
		afpacket_vnet_rx(pk, h->tp_snaplen == h->tp_len);
	}
	pk->in_port = q->port_id;
	pk->l2_class = afpacket_l2_class[sll->sll_pkttype];
	pk->vc = 0; /* not an ATM port */
	/* After the virtio header is read: the VLAN headroom overlaps it. */
	if (st & TP_STATUS_VLAN_VALID)
		afpacket_vlan_restore(pk, h, st);
	return true;
}

/*
 * Frames in ring order, each as soon as the kernel has set its status. A
 * frame truncated by the ring whose whole copy is missing (the socket's
 * receive buffer was full) is delivered with len = tp_snaplen: the IP
 * layer's total-length check drops and counts it. The burst stops early when
 * the copy buffers are all in use; the rest waits for the next one.
 */
unsigned afpacket_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		const struct tpacket2_hdr *h = (const struct tpacket2_hdr *)q->rx_head.frame;
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);

		if (!(st & TP_STATUS_USER) ||
		    ((st & TP_STATUS_COPY) && q->rx_copy_used == AFPACKET_RX_COPY_BUFS) ||
		    q->rx_taken == q->rx_nframes)
			break;
		afpacket_rx_next(q, &q->rx_head);
		q->rx_taken++;
		if (afpacket_rx_frame(q, h, st, &pkts[n]))
			n++;
	}
	return n;
}

void afpacket_rx_release(struct port_queue *q)
{
	for (; q->rx_taken; q->rx_taken--) {
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)q->rx_rel.frame;

		/* Release: our reads and in-place rewrites complete before the kernel refills. */
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		afpacket_rx_next(q, &q->rx_rel);
	}
	q->rx_copy_used = 0;
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
 * full or is too long (afpacket_tx_refused): longer than tx_max_len (MTU +
 * Ethernet header + one VLAN tag) or, for a GSO super-packet whose segments
 * the IP layer sized, than a slot. Slots are filled strictly in order
 * because the kernel walks them in order.
 */
unsigned afpacket_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
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
 * The only frame tx_burst refuses alone is one longer than the port takes:
 * the worker trims frames to their datagram and sends nothing above the
 * MTU, so this is a safety net, counted as mtu-exceeded; the frames after it
 * are still sent.
 */
int afpacket_tx_refused(struct port_queue *q, const struct pkt *pk)
{
	unsigned max = pk->gso_type == PKT_GSO_NONE ? q->tx_max_len : q->tx_gso_max_len;

	return pk->len > max ? DROP_MTU_EXCEEDED : -1;
}

/*
 * 0, or a negative errno without logging (datapath): -EAGAIN/-ENOBUFS mean the
 * device or qdisc was busy; what the kernel did not take stays queued and the
 * next tx_flush retries it, even with nothing new queued.
 */
int afpacket_tx_flush(struct port_queue *q)
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
 * A flush the kernel left unfinished (its send buffer was full) is retried
 * every pass and, with nothing arriving, after AFPACKET_TX_RETRY_NS: the
 * frames then still leave, not only when the next frame for the port does.
 */
uint64_t afpacket_service(struct port_queue *q, uint64_t now_ns, bool busy)
{
	(void)busy;
	if (!q->tx_pending)
		return UINT64_MAX;
	afpacket_tx_flush(q);
	return q->tx_pending ? now_ns + AFPACKET_TX_RETRY_NS : UINT64_MAX;
}

/*
 * Poll it for POLLIN. When the port goes down the kernel sets ENETDOWN on the
 * socket: poll() then reports POLLERR until it is read with
 * getsockopt(SO_ERROR); RX resumes by itself when the port is up again.
 */
int afpacket_rx_fd(const struct port_queue *q)
{
	return q->rx_fd;
}

int afpacket_queue_ring_drops(struct port_queue *q, uint64_t *drops)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (getsockopt(q->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		return afpacket_fail(q, "RX ring statistics", errno);
	*drops = st.tp_drops;
	return 0;
}

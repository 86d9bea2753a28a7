/* The afpacket driver's hot path: reading RX blocks, filling TX slots, kicking the kernel. */
#include "datapath/port_afpacket.h"

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
unsigned afpacket_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
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
		pk->vc = 0; /* not an ATM port */
		/* Before a VLAN restore, whose headroom overlaps the header. */
		afpacket_vnet_rx(pk, h);
		if (h->tp_status & TP_STATUS_VLAN_VALID)
			afpacket_vlan_restore(pk, h);
	}
	return n;
}

void afpacket_rx_release(struct port_queue *q)
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
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (getsockopt(q->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		return afpacket_fail(q, "RX ring statistics", errno);
	*drops = st.tp_drops;
	return 0;
}

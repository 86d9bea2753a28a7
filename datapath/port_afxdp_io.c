/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp driver's hot path: RX descriptors out and their chunks back to
 * the fill ring, TX copies into the queue's own chunks, completions, the
 * need_wakeup kicks. No syscall unless the kernel asks for one through the
 * ring flags (XDP_USE_NEED_WAKEUP), no allocation, no lock, no log.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "datapath/csum.h"
#include "datapath/port_afxdp_priv.h"
#include "lib/wire.h"

/* A chunk's base: in aligned mode the kernel takes any address inside it back. */
static inline uint64_t afxdp_chunk_base(const struct port_queue *q, uint64_t addr)
{
	return addr & ~(uint64_t)(q->chunk - 1);
}

/*
 * An XSK descriptor carries no offload state, but a local sender that left
 * the TCP/UDP checksum to offload (a veth peer with tx-checksumming on: XDP
 * sees its skb's data as is) wrote the folded pseudo-header sum in the field
 * (Linux: tcp_v4_send_check, udp4_hwcsum). Such a frame is marked partial,
 * so the worker completes the checksum, or an egress with offload does. A
 * complete checksum equal to that value by chance (1 in 65536) is
 * recomputed to the same value: ip4_l4_csum_complete sums from scratch.
 * Fragments never carry a partial checksum; UDP 0 is "no checksum".
 */
static inline void afxdp_csum_partial(struct pkt *pk)
{
	const uint8_t *ip = pk->data + ETH_HLEN;
	uint32_t hlen, tot, l4len, sum, pseudo;
	unsigned off;

	if (pk->len < ETH_HLEN + 20 || rd16(pk->data + 12) != ETH_P_IP || (ip[0] >> 4) != 4)
		return;
	hlen = (ip[0] & 0x0fu) * 4;
	tot = rd16(ip + 2);
	if (hlen < 20 || tot < hlen || ETH_HLEN + tot > pk->len || (rd16(ip + 6) & 0x3fff))
		return;
	l4len = tot - hlen;
	if (ip[9] == IPPROTO_TCP && l4len >= 20)
		off = 16;
	else if (ip[9] == IPPROTO_UDP && l4len >= 8 && rd16(ip + hlen + 6) != 0)
		off = 6;
	else
		return;
	sum = csum_partial_sum(ip + 12, 8, 0) + ip[9] + l4len;
	/* The folded sum itself, not its complement: 0xffff - x is ~x in 16 bits. */
	pseudo = 0xffffu - csum_fold(sum);
	if (rd16(ip + hlen + off) != pseudo)
		return;
	pk->csum_partial = 1;
	pk->csum_start = (uint16_t)(ETH_HLEN + hlen);
	pk->csum_offset = (uint16_t)off;
}

/* The program redirects only unicast frames for the port's MAC, so every frame is PKT_L2_HOST. */
unsigned afxdp_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	uint32_t idx;
	unsigned n;

	if (max > BURST_MAX - q->rx_held)
		max = BURST_MAX - q->rx_held;
	n = xsk_ring_cons__peek(&q->rx, max, &idx);
	if (n == 0) {
		/*
		 * A zero-copy driver that found the fill ring empty sleeps
		 * until told; copy mode never sets the flag.
		 */
		if (xsk_ring_prod__needs_wakeup(&q->fq))
			recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + i);

		pkts[i] = (struct pkt){
		    .data = q->area + d->addr,
		    .len = d->len,
		    .in_port = q->port_id,
		    .l2_class = PKT_L2_HOST,
		};
		afxdp_csum_partial(&pkts[i]);
		q->rx_addr[q->rx_held + i] = afxdp_chunk_base(q, d->addr);
	}
	q->rx_held += n;
	return n;
}

/*
 * The fill ring holds every RX chunk, so it always has room for the ones
 * coming back: what is not in it is in the RX ring or held here.
 */
void afxdp_rx_release(struct port_queue *q)
{
	uint32_t idx;

	if (q->rx_held == 0)
		return;
	xsk_ring_cons__release(&q->rx, q->rx_held);
	if (xsk_ring_prod__reserve(&q->fq, q->rx_held, &idx) == q->rx_held) {
		for (unsigned i = 0; i < q->rx_held; i++)
			*xsk_ring_prod__fill_addr(&q->fq, idx + i) = q->rx_addr[i];
		xsk_ring_prod__submit(&q->fq, q->rx_held);
	}
	q->rx_held = 0;
}

void afxdp_tx_reclaim(struct port_queue *q)
{
	uint32_t idx;
	unsigned n = xsk_ring_cons__peek(&q->cq, q->tx_chunks, &idx);

	for (unsigned i = 0; i < n; i++)
		q->tx_free[q->tx_nfree++] =
		    afxdp_chunk_base(q, *xsk_ring_cons__comp_addr(&q->cq, idx + i));
	if (n)
		xsk_ring_cons__release(&q->cq, n);
}

/*
 * Accepts a prefix of pkts: it stops at the first frame longer than
 * tx_max_len (MTU + Ethernet header + one VLAN tag; the IP layer never
 * sends more) or when no TX chunk is free. The TX ring has a slot for every
 * chunk, so a free chunk always finds one.
 */
unsigned afxdp_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	unsigned m = 0;
	uint32_t idx;

	while (m < n && pkts[m]->len <= q->tx_max_len)
		m++;
	if (m > q->tx_nfree)
		afxdp_tx_reclaim(q);
	if (m > q->tx_nfree)
		m = q->tx_nfree;
	if (m == 0 || xsk_ring_prod__reserve(&q->tx, m, &idx) != m)
		return 0;
	for (unsigned i = 0; i < m; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&q->tx, idx + i);
		uint64_t addr = q->tx_free[--q->tx_nfree];

		memcpy(q->area + addr, pkts[i]->data, pkts[i]->len);
		d->addr = addr;
		d->len = pkts[i]->len;
		d->options = 0;
	}
	xsk_ring_prod__submit(&q->tx, m);
	q->tx_pending = true;
	return m;
}

/*
 * 0, or a negative errno without logging (datapath). Copy mode transmits in
 * the sendto itself (up to the budget set at open: the whole ring); zero-copy
 * only wakes the driver's NAPI. -EAGAIN/-EBUSY/-ENOBUFS: the device was busy;
 * what it did not take stays queued and the next tx_flush retries it.
 */
int afxdp_tx_flush(struct port_queue *q)
{
	afxdp_tx_reclaim(q);
	if (!q->tx_pending)
		return 0;
	if (xsk_ring_prod__needs_wakeup(&q->tx) &&
	    sendto(q->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0)
		return -errno;
	q->tx_pending = __atomic_load_n(q->tx.consumer, __ATOMIC_ACQUIRE) != *q->tx.producer;
	return 0;
}

/* Readable (POLLIN) when the RX ring has descriptors; poll also wakes a sleeping driver. */
int afxdp_rx_fd(const struct port_queue *q)
{
	return q->fd;
}

/* Frames the kernel could not give the socket: no fill chunk, too long, or the RX ring full. */
int afxdp_queue_ring_drops(struct port_queue *q, uint64_t *drops)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);
	uint64_t total;

	if (getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &st, &len) < 0)
		return afxdp_fail(q->ap->port, "XDP statistics", errno, NULL);
	total = st.rx_dropped + st.rx_ring_full;
	*drops = total - q->drops_seen;
	q->drops_seen = total;
	return 0;
}

/*
 * Hand a frame to the kernel as if it had just arrived on the netdev:
 * BPF_PROG_RUN in live-frame mode (Linux 5.18) runs the pass-only program
 * on it and injects what it passes into the stack, on this RX queue. One
 * syscall per frame: the program passes what the worker would punt, so this
 * stays off the transit path (see port_afxdp.c).
 */
void afxdp_punt(struct port_queue *q, const struct pkt *p)
{
	struct xdp_md ctx = {
	    .data_end = p->len,
	    .ingress_ifindex = (uint32_t)q->ap->port->ifindex,
	    .rx_queue_index = q->qid,
	};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->data, .data_size_in = p->len,
	            .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1,
	            .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	unsigned w = q->qid < WORKER_MAX ? q->qid : 0;

	if (bpf_prog_test_run_opts(q->ap->punt_fd, &o) == 0)
		CTR_ADD(q->ap->punted[w], 1);
	else
		CTR_ADD(q->ap->punt_errors[w], 1);
}

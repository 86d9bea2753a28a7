/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-packet forwarding decision and output batching, after the FIB lookup:
 * next-hop selection (ECMP), TTL and MTU checks, ARP state, MAC rewrite, and
 * ICMP errors (rate-limited). No allocation, lock, syscall or log.
 *
 * GSO super-packets (pkt.h) are forwarded whole to ports with tx_offload: the
 * egress device or the kernel segments them after us, copying our rewritten
 * headers (TTL included) into every segment and fixing lengths, IDs and
 * checksums per segment. Partial checksums likewise stay partial there.
 * Other ports get them segmented here in software (send_gso_segments).
 */
#include <string.h>

#include "datapath/ip4.h"
#include "datapath/ip4_frag.h"
#include "datapath/ip4_gso.h"
#include "datapath/worker_priv.h"

void worker_drop(struct worker *w, const struct pkt *p, enum drop_reason r)
{
	CTR_ADD(w->ctr->port[p->in_port].drops[r], 1);
}

/*
 * Queue `p` for `port`. A full batch is flushed first, which recycles the
 * ICMP and fragment scratch (worker_tx_flush): callers that build a frame in
 * scratch call tx_room before they claim their slot, so that flush never
 * comes between their claim and this enqueue (a queued frame would be
 * overwritten by the next one built in the same slot).
 */
void worker_tx_enqueue(struct worker *w, uint16_t port, struct pkt *p, enum tx_kind kind)
{
	struct tx_batch *b = &w->tx[port];

	if (b->n == TX_BATCH)
		worker_tx_flush(w);
	b->pkts[b->n] = p;
	b->kind[b->n] = (uint8_t)kind;
	b->n++;
	w->tx_used |= 1ull << port;
}

/* Before claiming a scratch slot for a frame to `port`: flush now if anything would. */
void worker_tx_room(struct worker *w, uint16_t port, bool scratch_full)
{
	if (scratch_full || w->tx[port].n == TX_BATCH)
		worker_tx_flush(w);
}

/* Frames [from, to) of a batch went out. */
static void tx_account_sent(struct worker *w, uint16_t port, const struct tx_batch *b,
                            unsigned from, unsigned to)
{
	struct port_counters *out = &w->ctr->port[port];
	uint64_t octets = 0;

	uint64_t n6 = 0, octets6 = 0;

	for (unsigned i = from; i < to; i++) {
		const struct pkt *p = b->pkts[i];
		struct port_counters *in = &w->ctr->port[p->in_port];
		uint8_t k = b->kind[i];

		octets += p->len;
		if (k == TX_FORWARDED || k == TX_FORWARDED6)
			CTR_ADD(in->forwarded, 1);
		else if (k == TX_GENERATED || k == TX_GENERATED6)
			CTR_ADD(in->icmp_out, 1);
		if (k == TX_FORWARDED6)
			CTR_ADD(in->ip6_forwarded, 1);
		else if (k == TX_GENERATED6)
			CTR_ADD(in->ip6_icmp_out, 1);
		if (k == TX_FORWARDED6 || k == TX_GENERATED6 || k == TX_FRAGMENT6) {
			n6++;
			octets6 += p->len - 14;
		}
	}
	CTR_ADD(out->tx_packets, to - from);
	CTR_ADD(out->tx_octets, octets);
	if (n6) {
		CTR_ADD(out->ip6_out_packets, n6);
		CTR_ADD(out->ip6_out_octets, octets6);
	}
}

/*
 * Frames [from, n) of a batch were not sent: dropped as `r` (a fragment stands in for none).
 * Opaque to GCC's interprocedural analysis: GCC 12 at -O2 judged this function pure (its only
 * stores are CTR_ADD's relaxed atomic stores, inside worker_drop) and deleted both calls in
 * tx_port_flush once it stopped inlining it, so tx-full went uncounted (tests/unit/test_worker
 * caught it). clang has no noipa attribute.
 */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#endif
static void
tx_account_lost(struct worker *w, const struct tx_batch *b, unsigned from, unsigned n,
                enum drop_reason r)
{
	for (unsigned i = from; i < n; i++)
		if (b->kind[i] == TX_FORWARDED)
			worker_drop(w, b->pkts[i], r);
		else if (b->kind[i] == TX_FORWARDED6)
			worker_drop6(w, b->pkts[i], r);
}

/* One port's batch to its driver; a frame the driver refuses alone does not stop the rest. */
static void tx_port_flush(struct worker *w, unsigned port)
{
	struct port *pt = &w->dp->ports[port];
	struct port_queue *q = pt->queues[w->id];
	struct tx_batch *b = &w->tx[port];
	unsigned done = 0;

	for (;;) {
		unsigned sent = pt->ops->tx_burst(q, b->pkts + done, b->n - done);
		int r;

		tx_account_sent(w, (uint16_t)port, b, done, done + sent);
		done += sent;
		if (done == b->n || !pt->ops->tx_refused ||
		    (r = pt->ops->tx_refused(q, b->pkts[done])) < 0)
			break;
		tx_account_lost(w, b, done, done + 1, (enum drop_reason)r);
		done++;
	}
	tx_account_lost(w, b, done, b->n, DROP_TX_FULL);
	pt->ops->tx_flush(q);
	b->n = 0;
}

void worker_tx_flush(struct worker *w)
{
	uint64_t used = w->tx_used;

	while (used) {
		unsigned port = (unsigned)__builtin_ctzll(used);

		used &= used - 1;
		tx_port_flush(w, port);
	}
	w->tx_used = 0;
	w->icmp_used = 0;
	w->frag_used = 0;
}

bool worker_icmp_token_take(struct worker *w)
{
	uint32_t rate = dp_param(w->dp, icmp_rate);
	uint64_t cap = (uint64_t)dp_param(w->dp, icmp_burst) * 1000;

	if (rate == 0)
		return false;
	if (w->now_ms > w->icmp_refill_ms) {
		w->icmp_tokens_milli += (w->now_ms - w->icmp_refill_ms) * rate;
		if (w->icmp_tokens_milli > cap)
			w->icmp_tokens_milli = cap;
		w->icmp_refill_ms = w->now_ms;
	}
	if (w->icmp_tokens_milli < 1000)
		return false;
	w->icmp_tokens_milli -= 1000;
	return true;
}

/* Answer the sender of `p` with an ICMP error, back out the port it came in on. */
void worker_icmp_reply(struct worker *w, const struct pkt *p, uint8_t type, uint8_t code,
                       uint16_t mtu)
{
	const struct port *in = &w->dp->ports[p->in_port];
	const uint8_t *ip = p->data + 14;

	if (!icmp4_error_allowed(ip, p->l2_class != PKT_L2_HOST) || in->ip4_addr == 0)
		return;
	worker_tx_room(w, p->in_port, w->icmp_used == BURST_MAX);
	if (!worker_icmp_token_take(w)) {
		CTR_ADD(w->ctr->port[p->in_port].icmp_ratelimited, 1);
		return;
	}
	struct pkt *out = &w->icmp_pkt[w->icmp_used];
	/* Checksums complete, no offload: the other fields stay zero. */
	*out = (struct pkt){.data = w->icmp_buf + (size_t)w->icmp_used * ICMP_SLOT,
	                    .in_port = p->in_port,
	                    .l2_class = PKT_L2_HOST};
	out->len = icmp4_error_build(out->data, ip, rd16(ip + 2), p->data + 6, in->mac,
	                             in->ip4_addr, type, code, mtu);
	w->icmp_used++;
	worker_tx_enqueue(w, p->in_port, out, TX_GENERATED);
}

static const struct nexthop *nh_select(const struct worker *w, const uint8_t *ip, uint32_t nhg_id)
{
	const struct nhg *g = &w->dp->nht->nhg[nhg_id];
	uint32_t slot = 0;

	if (g->nslots > 1)
		slot = (uint32_t)(((uint64_t)ip4_flow_hash(ip) * g->nslots) >> 32);
	return &w->dp->nht->nh[g->slot[slot]];
}

/*
 * A packet leaving as several pieces (fragments, or GSO segments cut here),
 * each a fresh frame from the worker's fragment scratch with the packet's
 * rewritten Ethernet header. `next` writes the next piece's IP packet and
 * returns its length (0 when done) and whether it is the last; the last
 * piece stands for the packet in the forwarded/tx-full accounting, the
 * others count as TX_FRAGMENT (TX_FRAGMENT6 for IPv6). Returns how many
 * pieces were sent.
 */
unsigned worker_send_pieces(struct worker *w, const struct pkt *p, const struct port *out,
                            piece_next_fn next, void *it, bool ip6)
{
	unsigned n = 0;
	bool last = false;

	for (;;) {
		worker_tx_room(w, out->id, w->frag_used == FRAG_BUFS);
		struct pkt *f = &w->frag_pkt[w->frag_used];
		*f = (struct pkt){.data = w->frag_buf + (size_t)w->frag_used * FRAG_BUF_SZ,
		                  .in_port = p->in_port,
		                  .l2_class = PKT_L2_HOST};
		uint32_t len = next(it, f->data + 14, &last);
		if (len == 0)
			return n;
		memcpy(f->data, p->data, 14);
		f->len = 14 + len;
		w->frag_used++;
		n++;
		if (ip6)
			worker_tx_enqueue(w, out->id, f, last ? TX_FORWARDED6 : TX_FRAGMENT6);
		else
			worker_tx_enqueue(w, out->id, f, last ? TX_FORWARDED : TX_FRAGMENT);
	}
}

static uint32_t frag_piece(void *arg, uint8_t *ip, bool *last)
{
	struct ip4_frag_iter *it = arg;
	uint32_t len = ip4_frag_next(it, ip);

	*last = it->done == it->tot - it->hlen;
	return len;
}

static uint32_t gso_piece(void *arg, uint8_t *ip, bool *last)
{
	struct ip4_gso_iter *it = arg;
	uint32_t len = ip4_gso_next(it, ip);

	*last = it->done == it->tot - it->hlen - it->l4hlen;
	return len;
}

/* Too big for the egress link and DF clear: send it as fragments (RFC 1812 4.2.2.7). */
static void send_fragments(struct worker *w, struct pkt *p, const struct port *out)
{
	struct ip4_frag_iter it;
	uint32_t mtu = out->mtu < FRAG_MTU_MAX ? out->mtu : FRAG_MTU_MAX;

	if (ip4_frag_init(&it, p->data + 14, mtu) != 0) {
		worker_drop(w, p, DROP_MTU_EXCEEDED);
		return;
	}
	unsigned n = worker_send_pieces(w, p, out, frag_piece, &it, false);
	CTR_ADD(w->ctr->port[p->in_port].fragmented, 1);
	CTR_ADD(w->ctr->port[p->in_port].fragments_out, n);
}

/*
 * A GSO super-packet for an egress that cannot segment it (no tx_offload):
 * cut into the sender's segments here (ip4_gso.c).
 */
static void send_gso_segments(struct worker *w, struct pkt *p, const struct port *out)
{
	struct ip4_gso_iter it;

	if (ip4_gso_init(&it, p->data + 14, p->gso_type, p->gso_size) != 0 ||
	    ip4_gso_seg_len(&it) > FRAG_MTU_MAX) {
		worker_drop(w, p, DROP_MTU_EXCEEDED);
		return;
	}
	unsigned n = worker_send_pieces(w, p, out, gso_piece, &it, false);
	CTR_ADD(w->ctr->port[p->in_port].gso_segmented, 1);
	CTR_ADD(w->ctr->port[p->in_port].gso_segments_out, n);
}

/*
 * IP length of the segments a GSO packet becomes: its IP and L4 headers again
 * in front of gso_size payload bytes. 0 when the headers do not match the GSO
 * type or are cut short, which no MTU fits.
 */
static uint32_t gso_segment_len(const struct pkt *p)
{
	const uint8_t *ip = p->data + 14;
	uint32_t hlen = (uint32_t)(ip[0] & 0x0f) * 4, tot = rd16(ip + 2), l4;
	uint8_t type = p->gso_type & ~PKT_GSO_ECN;

	if (type == PKT_GSO_TCP4 && ip[9] == 6 && tot >= hlen + 20)
		l4 = (uint32_t)(ip[hlen + 12] >> 4) * 4; /* data offset: options included */
	else if (type == PKT_GSO_UDP_L4 && ip[9] == 17 && tot >= hlen + 8)
		l4 = 8;
	else
		return 0;
	return hlen + l4 > tot ? 0 : hlen + l4 + p->gso_size;
}

/*
 * Whether `p` leaves by `out` unfragmented. A GSO packet is judged per segment,
 * since segments are what reach the wire, but only where the egress hands the
 * segmenting to the kernel; elsewhere it is one datagram of its total length.
 */
static bool fits_mtu(const struct pkt *p, const struct port *out)
{
	uint32_t seg;

	if (rd16(p->data + 14 + 2) <= out->mtu)
		return true;
	if (p->gso_type == PKT_GSO_NONE)
		return false;
	seg = gso_segment_len(p);
	return seg != 0 && seg <= out->mtu;
}

/*
 * The software fallback for partial checksums: for an egress that cannot
 * carry the offload (no tx_offload), and for fragments, which never can.
 */
static void csum_complete(struct pkt *p)
{
	ip4_l4_csum_complete(p->data + 14);
	p->csum_partial = 0;
}

/*
 * The egress port's own verdict (tx_check), for a frame already addressed:
 * a refusal is dropped under the port's reason with the ICMP error that
 * reason names (stats.h). True if refused.
 */
static bool tx_refuse(struct worker *w, const struct pkt *p, const struct port *out)
{
	int r = out->ops->tx_check(out->queues[w->id], p);

	if (r < 0)
		return false;
	worker_drop(w, p, (enum drop_reason)r);
	if (r == DROP_LINK_DOWN || r == DROP_NO_ROUTE || r == DROP_UNREACHABLE)
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH, 0);
	else if (r == DROP_ARP_FAILED)
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_HOST_UNREACH, 0);
	return true;
}

static void send_to(struct worker *w, struct pkt *p, const struct port *out, uint64_t l2)
{
	uint8_t *eth = p->data;

	nh_l2_mac(l2, eth);
	/* Before the source MAC is ours: the ICMP error goes back to the sender's. */
	if (out->ops->tx_check && tx_refuse(w, p, out))
		return;
	memcpy(eth + 6, out->mac, 6);
	ip4_ttl_decrement(eth + 14);
	/*
	 * Segments, not the super-packet, are what the sender meant for the
	 * wire: even one that fits this MTU must not reach a later, smaller
	 * link whole (its DF would make that link drop it, its sender having
	 * no smaller MSS to fall back to).
	 */
	if (p->gso_type != PKT_GSO_NONE && !out->tx_offload) {
		send_gso_segments(w, p, out);
		return;
	}
	if (fits_mtu(p, out)) {
		if (p->csum_partial && !out->tx_offload)
			csum_complete(p);
		worker_tx_enqueue(w, out->id, p, TX_FORWARDED);
		return;
	}
	/* egress_checks let only ordinary datagrams without DF get here. */
	if (p->csum_partial)
		csum_complete(p);
	send_fragments(w, p, out);
}

/* The checks that apply once we know the packet leaves by `out` (RFC 1812 5.3.1, 4.2.2.7). */
static bool egress_checks(struct worker *w, struct pkt *p, const struct port *out)
{
	const uint8_t *ip = p->data + 14;
	bool df = rd16(ip + 6) & 0x4000;

	if (__atomic_load_n(&out->link_down, __ATOMIC_RELAXED)) {
		/* As a router without the interface's routes would: the net is unreachable. */
		worker_drop(w, p, DROP_LINK_DOWN);
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH, 0);
		return false;
	}

	if (ip[8] <= 1) {
		worker_drop(w, p, DROP_TTL_EXPIRED);
		worker_icmp_reply(w, p, ICMP_TIME_EXCEEDED, ICMP_CODE_TTL_EXCEEDED, 0);
		return false;
	}
	if (fits_mtu(p, out) || (!df && p->gso_type == PKT_GSO_NONE))
		return true;
	/*
	 * Too big with DF: RFC 1191 path MTU discovery needs the link's MTU
	 * back (a TCP sender then lowers its MSS, so also its GSO size). A GSO
	 * packet is never fragmented: fragments of a super-packet are not the
	 * datagrams its sender meant; without DF it can only be dropped.
	 */
	worker_drop(w, p, DROP_MTU_EXCEEDED);
	if (df)
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_FRAG_NEEDED,
		                  (uint16_t)out->mtu);
	return false;
}

enum fwd_result worker_forward(struct worker *w, struct pkt *p, uint32_t nhg_id, uint32_t *wait_ip,
                               uint16_t *wait_port)
{
	const uint8_t *ip = p->data + 14;

	if (nhg_id == 0) {
		worker_drop(w, p, DROP_NO_ROUTE);
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH, 0);
		return FWD_DONE;
	}
	const struct nexthop *nh = nh_select(w, ip, nhg_id);
	const struct port *out = &w->dp->ports[nh->port];
	uint64_t l2;

	switch (nh->type) {
	case NH_LOCAL:
		worker_to_kernel(w, p);
		return FWD_DONE;
	case NH_BLACKHOLE:
		worker_drop(w, p, DROP_BLACKHOLE);
		return FWD_DONE;
	case NH_UNREACHABLE:
		worker_drop(w, p, DROP_UNREACHABLE);
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_NET_UNREACH, 0);
		return FWD_DONE;
	case NH_NEIGH_FAILED:
		worker_drop(w, p, DROP_ARP_FAILED);
		worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_HOST_UNREACH, 0);
		return FWD_DONE;
	case NH_GATEWAY:
		if (!egress_checks(w, p, out))
			return FWD_DONE;
		l2 = __atomic_load_n(&nh->l2, __ATOMIC_ACQUIRE);
		if (nh_l2_state(l2) == NEIGH_REACHABLE) {
			send_to(w, p, out, l2);
			return FWD_DONE;
		}
		if (nh_l2_state(l2) == NEIGH_FAILED) {
			worker_drop(w, p, DROP_ARP_FAILED);
			worker_icmp_reply(w, p, ICMP_DEST_UNREACH, ICMP_CODE_HOST_UNREACH, 0);
			return FWD_DONE;
		}
		*wait_ip = nh->gw;
		*wait_port = nh->port;
		return FWD_WAIT_ARP;
	case NH_GLEAN:
		/* On-link destination with no host entry yet: it is its own neighbour. */
		if (!egress_checks(w, p, out))
			return FWD_DONE;
		*wait_ip = rd32(ip + 16);
		*wait_port = nh->port;
		return FWD_WAIT_ARP;
	default:
		worker_drop(w, p, DROP_NO_ROUTE);
		return FWD_DONE;
	}
}

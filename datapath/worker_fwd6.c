/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The IPv6 forwarding decision after the FIB6 lookup (RFC 8200, RFC 4443):
 * next-hop selection (ECMP on the RFC 6438 flow hash), the egress checks of
 * ip6_egress_check (hop limit, scope zone, MTU: routers never fragment
 * IPv6), neighbour state, MAC rewrite, and ICMPv6 errors rate-limited with
 * the ICMPv4 ones (one token bucket per worker). The next-hop tables, TX
 * batches and scratch are those of IPv4 (worker_fwd.c). No allocation, lock,
 * syscall or log.
 *
 * A point-to-point egress (an ATM subinterface's one PVC, RFC 2492 §3) needs
 * no neighbour: a gateway or on-link next hop there is sent at once.
 *
 * Simplifications of this phase (issue 16 phase 2a), each a counted drop:
 *  - an egress port without `ip6` (multipoint ATM subinterfaces, ports
 *    without IPv6 addresses) is no route for IPv6;
 *  - a GSO super-packet (PKT_GSO_TCP6) goes out whole to a port with
 *    tx_offload, which segments it; to a port without, it is dropped as
 *    ip6-too-big without an ICMPv6 error (its segments would fit, so Packet
 *    Too Big would shrink the sender's path MTU for nothing);
 *  - a partial L4 checksum is completed here for egress ports without
 *    tx_offload (csum_start/csum_offset say where, as virtio does).
 */
#include <string.h>

#include "datapath/csum.h"
#include "datapath/ip6_gso.h"
#include "datapath/nd.h"
#include "datapath/worker_priv.h"

void worker_icmp6_reply(struct worker *w, const struct pkt *p, const struct ip6_err *err)
{
	const struct port *in = &w->dp->ports[p->in_port];
	const uint8_t *ip = p->data + 14;
	const uint8_t *src = port_ip6_src(in); /* once: the control thread may publish another */
	uint32_t len;

	if (err->type == 0 || p->len < 14 + IP6_HLEN || !src)
		return;
	len = IP6_HLEN + rd16(ip + 4);
	if (len > p->len - 14)
		len = p->len - 14;
	if (!icmp6_error_allowed(ip, len, p->l2_class != PKT_L2_HOST, err->type, err->code))
		return;
	worker_tx_room(w, p->in_port, w->icmp_used == BURST_MAX);
	if (!worker_icmp_token_take(w)) {
		CTR_ADD(w->ctr->port[p->in_port].icmp_ratelimited, 1);
		return;
	}
	struct pkt *out = &w->icmp_pkt[w->icmp_used];
	*out = (struct pkt){.data = w->icmp_buf + (size_t)w->icmp_used * ICMP_SLOT,
	                    .in_port = p->in_port,
	                    .l2_class = PKT_L2_HOST};
	out->len = icmp6_error_build(out->data, ip, len, p->data + 6, in->mac, src, err->type,
	                             err->code, err->param);
	w->icmp_used++;
	worker_tx_enqueue(w, p->in_port, out, TX_GENERATED6);
}

/*
 * Neighbour discovery the kernel receives, reported to the control thread as
 * ARP frames are (DP_EV_ND_SEEN): an advertisement's target, its flags and
 * its link-layer address if it has one, or a solicitor's source and its
 * (without one, nothing to learn: RFC 4861 §7.2.3). Only messages straight after the
 * IPv6 header (RFC 6980 forbids fragmented ND; other extension headers are
 * not seen on ND in practice): the cheap tests keep nd_parse, which verifies
 * the checksum, off every other frame.
 */
void worker_nd_snoop(struct worker *w, const struct pkt *p)
{
	const uint8_t *ip = p->data + 14;
	struct dp_event ev = {.type = DP_EV_ND_SEEN, .port = p->in_port};
	struct nd_msg m;

	if (p->len < 14 + IP6_HLEN + 24 || ip[6] != IP6_NH_ICMPV6 || ip[7] != ND_HOP_LIMIT ||
	    (ip[IP6_HLEN] != ICMP6_NEIGH_SOL && ip[IP6_HLEN] != ICMP6_NEIGH_ADV))
		return;
	/* An NA may omit its target link-layer option (Linux does, answering a unicast NS). */
	if (nd_parse(ip, p->len - 14, &m) != ND_OK || (m.type == ICMP6_NEIGH_SOL && !m.has_lla))
		return;
	memcpy(ev.ip6, m.type == ICMP6_NEIGH_ADV ? m.target : m.src, 16);
	if (m.has_lla)
		memcpy(ev.mac, m.lla, 6);
	ev.val = DP_EV_ND_VAL(m.type, m.flags, m.has_lla);
	if (!event_ring_push(&w->events, &ev))
		CTR_ADD(w->ctr->events_lost, 1);
}

/*
 * The common path (a forwarded packet) is inlined into worker_forward6:
 * egress6_checks and send6 are ALWAYS_INLINE, what only a drop or a rare
 * egress needs is COLD (out of line, out of the way of the hot code).
 */
#define ALWAYS_INLINE __attribute__((always_inline))
#define COLD          __attribute__((cold, noinline))

/* Drop `p` as `r` with the ICMPv6 error of that type and code (type 0: none). */
static COLD void drop6(struct worker *w, const struct pkt *p, enum drop_reason r, uint8_t type,
                  uint8_t code)
{
	struct ip6_err err = {type, code, 0};

	worker_drop6(w, p, r);
	worker_icmp6_reply(w, p, &err);
}

static const struct nexthop *nh_select6(const struct worker *w, const uint8_t *ip,
                                        const struct ip6_info *info, uint32_t nhg_id,
                                        uint32_t *nh_id)
{
	const struct nhg *g = &w->dp->nht->nhg[nhg_id];
	uint32_t slot = 0;

	if (g->nslots > 1)
		slot = (uint32_t)(((uint64_t)ip6_flow_hash(ip, info) * g->nslots) >> 32);
	*nh_id = g->slot[slot];
	return &w->dp->nht->nh[*nh_id];
}

/*
 * What the link will carry of `p`: the packet, or for a GSO super-packet
 * its segments (IPv6 and extension headers, the L4 header, gso_size); 0
 * when the headers do not match the GSO type, which no MTU fits.
 */
static uint32_t wire_len6(const struct pkt *p, const struct ip6_info *info)
{
	const uint8_t *ip = p->data + 14;
	uint8_t type = p->gso_type & ~PKT_GSO_ECN;
	uint32_t l4;

	if (p->gso_type == PKT_GSO_NONE)
		return info->len;
	if (type == PKT_GSO_TCP6 && info->l4_proto == IP6_NH_TCP &&
	    (uint32_t)info->l4_off + 20 <= info->len)
		l4 = (uint32_t)(ip[info->l4_off + 12] >> 4) * 4;
	else if (type == PKT_GSO_UDP_L4 && info->l4_proto == IP6_NH_UDP &&
	         (uint32_t)info->l4_off + 8 <= info->len)
		l4 = 8;
	else
		return 0;
	return info->l4_off + l4 > info->len ? 0 : info->l4_off + l4 + p->gso_size;
}

/* The egress checks that failed (or a GSO packet): false if dropped (counted, ICMPv6 sent). */
static COLD bool egress6_slow(struct worker *w, struct pkt *p, const struct port *out,
                              const struct ip6_info *info)
{
	struct ip6_err err;
	uint32_t len = wire_len6(p, info);
	enum drop_reason r;

	if (!port_ip6_on(out)) {
		drop6(w, p, DROP_NO_ROUTE, ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE);
		return false;
	}
	if (__atomic_load_n(&out->link_down, __ATOMIC_RELAXED)) {
		/* As for IPv4: a router without the interface's routes has no route. */
		drop6(w, p, DROP_LINK_DOWN, ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE);
		return false;
	}
	if (len == 0) {
		worker_drop6(w, p, DROP_IP6_TOO_BIG);
		return false;
	}
	r = ip6_egress_check(p->data + 14, len, out->mtu, out->id == p->in_port, &err);
	if (r != IP6_OK) {
		worker_drop6(w, p, r);
		worker_icmp6_reply(w, p, &err);
		return false;
	}
	/* Segments cut here come from the fragment scratch (send6_gso). */
	if (p->gso_type != PKT_GSO_NONE && !out->tx_offload && len > FRAG_MTU_MAX) {
		worker_drop6(w, p, DROP_IP6_TOO_BIG);
		return false;
	}
	return true;
}

/*
 * The checks once the packet leaves by `out`: false if dropped. A packet
 * that is no GSO super-packet, to a port with IPv6 and its link up, that
 * ip6_egress_passes() lets through, passes every check of egress6_slow();
 * anything else takes the whole sequence there.
 */
static inline ALWAYS_INLINE bool egress6_checks(struct worker *w, struct pkt *p,
                                                const struct port *out,
                                                const struct ip6_info *info)
{
	if (__builtin_expect(p->gso_type == PKT_GSO_NONE && port_ip6_on(out) &&
	                         !__atomic_load_n(&out->link_down, __ATOMIC_RELAXED) &&
	                         ip6_egress_passes(p->data + 14, info->len, out->mtu,
	                                           out->id == p->in_port),
	                     1))
		return true;
	return egress6_slow(w, p, out, info);
}

/* The software fallback for a partial L4 checksum: the field holds the pseudo-header sum. */
static COLD void csum_complete6(struct pkt *p)
{
	uint32_t at = (uint32_t)p->csum_start + p->csum_offset;

	p->csum_partial = 0;
	if (p->csum_start < 14 + IP6_HLEN || at + 2 > p->len)
		return;
	uint16_t c = csum_compute(p->data + p->csum_start, p->len - p->csum_start);
	/* RFC 8200 §8.1: a zero UDP checksum is invalid over IPv6; 0xffff is the same sum. */
	wr16(p->data + at, c ? c : 0xffff);
}

/*
 * The egress port's own verdict (tx_check: an ATM subinterface's VC down, or
 * none for the next hop), before the source MAC is ours so that the ICMPv6
 * error goes back to the sender's. True if refused (dropped, counted).
 */
static COLD bool tx_refuse6(struct worker *w, const struct pkt *p, const struct port *out)
{
	int r = out->ops->tx_check(out->queues[w->id], p);

	if (r < 0)
		return false;
	/* RFC 4443 §3.1: code 3 when the link-layer address (here: the VC) is unknown. */
	drop6(w, p, (enum drop_reason)r, ICMP6_DST_UNREACH,
	      r == DROP_ARP_FAILED ? ICMP6_CODE_ADDR_UNREACH : ICMP6_CODE_NO_ROUTE);
	return true;
}

static uint32_t gso6_piece(void *arg, uint8_t *ip, bool *last)
{
	struct ip6_gso_iter *it = arg;
	uint32_t len = ip6_gso_next(it, ip);

	*last = ip6_gso_done(it);
	return len;
}

/*
 * A GSO super-packet for an egress that cannot segment it (an ATM
 * subinterface, a netdev without TSO): cut into the sender's segments here
 * (ip6_gso.c), after the hop limit was decremented, so each segment carries it.
 */
static COLD void send6_gso(struct worker *w, struct pkt *p, const struct port *out,
                      const struct ip6_info *info)
{
	struct ip6_gso_iter it;

	if (ip6_gso_init(&it, p->data + 14, info, p->gso_type, p->gso_size) != 0) {
		worker_drop6(w, p, DROP_IP6_TOO_BIG);
		return;
	}
	unsigned n = worker_send_pieces(w, p, out, gso6_piece, &it, true);
	CTR_ADD(w->ctr->port[p->in_port].gso_segmented, 1);
	CTR_ADD(w->ctr->port[p->in_port].gso_segments_out, n);
}

static inline ALWAYS_INLINE void send6(struct worker *w, struct pkt *p, const struct port *out,
                                       uint64_t l2, const struct ip6_info *info)
{
	uint8_t *eth = p->data;

	nh_l2_mac(l2, eth);
	if (out->ops->tx_check && tx_refuse6(w, p, out))
		return;
	memcpy(eth + 6, out->mac, 6);
	ip6_hop_limit_decrement(eth + 14);
	if (p->gso_type != PKT_GSO_NONE && !out->tx_offload) {
		send6_gso(w, p, out, info);
		return;
	}
	if (p->csum_partial && !out->tx_offload)
		csum_complete6(p);
	worker_tx_enqueue(w, out->id, p, TX_FORWARDED6);
}

/* A gateway next hop: send, drop as nd-failed, or wait for neighbour discovery. */
static enum fwd_result via_gateway(struct worker *w, struct pkt *p, const struct port *out,
                                   const struct nexthop *nh, uint32_t nh_id,
                                   const struct ip6_info *info, uint8_t wait_ip6[16],
                                   uint16_t *wait_port)
{
	uint64_t l2 = __atomic_load_n(&nh->l2, __ATOMIC_ACQUIRE);

	if (nh_l2_usable(l2) || out->p2p) {
		/* RFC 4861 §7.3.3: a packet to a STALE neighbour starts DELAY (neigh6.c). */
		if (nh_l2_state(l2) == NEIGH_STALE)
			nh_l2_mark_used(&w->dp->nht->nh[nh_id], l2);
		send6(w, p, out, l2, info);
		return FWD_DONE;
	}
	if (nh_l2_state(l2) == NEIGH_FAILED) {
		/* RFC 4443 §3.1: code 3 when the link-layer address cannot be resolved. */
		drop6(w, p, DROP_ND_FAILED, ICMP6_DST_UNREACH, ICMP6_CODE_ADDR_UNREACH);
		return FWD_DONE;
	}
	memcpy(wait_ip6, w->dp->nht->gw6[nh_id], 16);
	*wait_port = nh->port;
	return FWD_WAIT_ARP;
}

enum fwd_result worker_forward6(struct worker *w, struct pkt *p, uint32_t nhg_id,
                                const struct ip6_info *info, uint8_t wait_ip6[16],
                                uint16_t *wait_port)
{
	const uint8_t *ip = p->data + 14;
	struct ip6_info walked;
	uint32_t nh_id;

	if (nhg_id == 0) {
		drop6(w, p, DROP_NO_ROUTE, ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE);
		return FWD_DONE;
	}
	if (!info) {
		/* A held packet: validated when it arrived, so the walk succeeds again. */
		ip6_chain_walk(ip, IP6_HLEN + rd16(ip + 4), &walked);
		info = &walked;
	}
	const struct nexthop *nh = nh_select6(w, ip, info, nhg_id, &nh_id);
	const struct port *out = &w->dp->ports[nh->port];

	switch (nh->type) {
	case NH_LOCAL:
		worker_nd_snoop(w, p);
		worker_to_kernel6(w, p);
		return FWD_DONE;
	case NH_BLACKHOLE:
		worker_drop6(w, p, DROP_BLACKHOLE);
		return FWD_DONE;
	case NH_UNREACHABLE:
		/* Linux answers an unreachable route with code 0 (no route) too. */
		drop6(w, p, DROP_UNREACHABLE, ICMP6_DST_UNREACH, ICMP6_CODE_NO_ROUTE);
		return FWD_DONE;
	case NH_NEIGH_FAILED:
		drop6(w, p, DROP_ND_FAILED, ICMP6_DST_UNREACH, ICMP6_CODE_ADDR_UNREACH);
		return FWD_DONE;
	case NH_GATEWAY:
		if (!egress6_checks(w, p, out, info))
			return FWD_DONE;
		return via_gateway(w, p, out, nh, nh_id, info, wait_ip6, wait_port);
	case NH_GLEAN:
		/* On-link destination with no host route yet: it is its own neighbour. */
		if (!egress6_checks(w, p, out, info))
			return FWD_DONE;
		if (out->p2p) {
			send6(w, p, out, 0, info);
			return FWD_DONE;
		}
		memcpy(wait_ip6, ip + 24, 16);
		*wait_port = nh->port;
		return FWD_WAIT_ARP;
	default:
		worker_drop6(w, p, DROP_NO_ROUTE);
		return FWD_DONE;
	}
}

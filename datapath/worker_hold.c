/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Packets waiting for ARP, or for IPv6 neighbour discovery (the same queue
 * and limits; nd-hold-full, nd-failed with ICMPv6 address unreachable,
 * RFC 4443 §3.1 code 3). A miss copies the frame into a bounded per-worker
 * hold queue and asks the control thread to resolve the neighbour; every
 * millisecond or so the held packets are looked up again. Resolution sends
 * them, failure (or the hold timeout) drops them as arp-failed with an ICMP
 * host unreachable. Bounded overall and per destination: a flood towards a
 * dead host is counted as arp-hold-full and cannot starve other resolutions.
 * Most entries hold a frame of up to HOLD_BUF octets; HOLD_BIG of them hold
 * a GSO super-packet (up to 64 KiB), which waits like any other packet.
 *
 * nhold is read by the control thread (dp_worker_held, for the accounting
 * rule), so the worker stores it atomically; only the worker writes it.
 */
#include <string.h>

#include "datapath/icmp.h"
#include "datapath/ip4.h"
#include "datapath/worker_priv.h"

/* What a held packet waits for: an IPv4 neighbour, or with v6 an IPv6 one. */
struct hold_key {
	uint32_t ip;
	const uint8_t *ip6;
	uint16_t port;
	bool v6;
};

static bool hold_key_is(const struct hold_entry *h, const struct hold_key *k)
{
	if (h->key_port != k->port || h->v6 != k->v6)
		return false;
	return k->v6 ? memcmp(h->key_ip6, k->ip6, 16) == 0 : h->key_ip == k->ip;
}

static void resolve_request(struct worker *w, const struct hold_key *k)
{
	struct dp_event ev = {.type = DP_EV_RESOLVE, .port = k->port, .ip = k->ip};

	if (k->v6) {
		ev.type = DP_EV_RESOLVE6;
		memcpy(ev.ip6, k->ip6, 16);
	}
	if (!event_ring_push(&w->events, &ev))
		CTR_ADD(w->ctr->events_lost, 1);
}

static void hold_swap(struct worker *w, unsigned i, unsigned j)
{
	struct hold_entry tmp = w->hold[i];

	w->hold[i] = w->hold[j];
	w->hold[j] = tmp;
}

/*
 * A free entry (they are w->hold[nhold..HOLD_MAX), each owning its buffer)
 * with room for `len` octets, moved to w->hold[nhold]; false if none.
 */
static bool hold_slot(struct worker *w, uint32_t len)
{
	unsigned n = w->nhold;

	if (n == HOLD_MAX)
		return false;
	if (len <= w->hold[n].cap)
		return true;
	for (unsigned i = n + 1; i < HOLD_MAX; i++) {
		if (len <= w->hold[i].cap) {
			hold_swap(w, n, i);
			return true;
		}
	}
	return false;
}

static void hold_add(struct worker *w, const struct pkt *p, const struct hold_key *k)
{
	unsigned same = 0;

	for (unsigned i = 0; i < w->nhold; i++)
		if (hold_key_is(&w->hold[i], k))
			same++;
	if (same == 0)
		resolve_request(w, k);
	if (same >= HOLD_PER_DEST || !hold_slot(w, p->len)) {
		if (k->v6)
			worker_drop6(w, p, DROP_ND_HOLD_FULL);
		else
			worker_drop(w, p, DROP_ARP_HOLD_FULL);
		return;
	}
	struct hold_entry *h = &w->hold[w->nhold];
	memcpy(h->buf, p->data, p->len);
	h->pkt = *p;
	h->pkt.data = h->buf;
	h->key_ip = k->ip;
	if (k->v6)
		memcpy(h->key_ip6, k->ip6, 16);
	h->key_port = k->port;
	h->v6 = k->v6;
	h->since_ms = w->now_ms;
	__atomic_store_n(&w->nhold, w->nhold + 1, __ATOMIC_RELAXED);
}

void worker_hold_add(struct worker *w, const struct pkt *p, uint32_t ip, uint16_t port)
{
	hold_add(w, p, &(struct hold_key){.ip = ip, .port = port});
}

void worker_hold_add6(struct worker *w, const struct pkt *p, const uint8_t ip6[16], uint16_t port)
{
	hold_add(w, p, &(struct hold_key){.ip6 = ip6, .port = port, .v6 = true});
}

/* Swap-remove entry i; its buffer moves with it so buffers stay owned once each. */
static void hold_remove(struct worker *w, unsigned i)
{
	unsigned last = w->nhold - 1;

	hold_swap(w, i, last);
	__atomic_store_n(&w->nhold, last, __ATOMIC_RELAXED);
}

/* Held entry i again, with its FIB value: true when it is done (sent, dropped, or timed out). */
static bool hold_retry(struct worker *w, unsigned i, uint32_t val)
{
	struct hold_entry *h = &w->hold[i];
	uint8_t ip6[16];
	uint32_t ip;
	uint16_t port;

	if (h->v6 ? worker_forward6(w, &h->pkt, val, NULL, ip6, &port) == FWD_DONE
	          : worker_forward(w, &h->pkt, val, &ip, &port) == FWD_DONE)
		return true;
	if (w->now_ms - h->since_ms <= dp_param(w->dp, hold_timeout_ms))
		return false;
	if (h->v6) {
		/* RFC 4861 §7.2.2, RFC 4443 §3.1 code 3: the neighbour never answered. */
		struct ip6_err err = {ICMP6_DST_UNREACH, ICMP6_CODE_ADDR_UNREACH, 0};

		worker_drop6(w, &h->pkt, DROP_ND_FAILED);
		worker_icmp6_reply(w, &h->pkt, &err);
	} else {
		/* RFC 1812 4.3.3.1 / RFC 792: the neighbour never answered. */
		worker_drop(w, &h->pkt, DROP_ARP_FAILED);
		worker_icmp_reply(w, &h->pkt, ICMP_DEST_UNREACH, ICMP_CODE_HOST_UNREACH, 0);
	}
	return true;
}

void worker_hold_run(struct worker *w)
{
	bool done[HOLD_MAX];
	uint32_t dst[HOLD_MAX], val[HOLD_MAX], val6[HOLD_MAX];
	const uint8_t *dst6[HOLD_MAX];
	uint16_t at4[HOLD_MAX], at6[HOLD_MAX];
	unsigned n = w->nhold, n4 = 0, n6 = 0;

	if (n == 0 || w->now_ms == w->hold_check_ms)
		return;
	w->hold_check_ms = w->now_ms;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *ip = w->hold[i].pkt.data + 14;

		if (w->hold[i].v6) {
			dst6[n6] = ip + 24;
			at6[n6++] = (uint16_t)i;
		} else {
			dst[n4] = rd32(ip + 16);
			at4[n4++] = (uint16_t)i;
		}
	}
	fib_lookup_bulk(&w->dp->fib, dst, val, n4);
	fib6_lookup_bulk(w->dp->fib6, dst6, val6, n6);
	for (unsigned j = 0; j < n4; j++)
		done[at4[j]] = hold_retry(w, at4[j], val[j]);
	for (unsigned j = 0; j < n6; j++)
		done[at6[j]] = hold_retry(w, at6[j], val6[j]);
	/* Frames just queued still point into hold buffers: send before reusing them. */
	worker_tx_flush(w);
	for (unsigned i = n; i-- > 0;)
		if (done[i])
			hold_remove(w, i);
}

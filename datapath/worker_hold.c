/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Packets waiting for ARP. A miss copies the frame into a bounded per-worker
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

static void resolve_request(struct worker *w, uint32_t ip, uint16_t port)
{
	struct dp_event ev = {.type = DP_EV_RESOLVE, .port = port, .ip = ip};

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

void worker_hold_add(struct worker *w, const struct pkt *p, uint32_t ip, uint16_t port)
{
	unsigned same = 0;

	for (unsigned i = 0; i < w->nhold; i++)
		if (w->hold[i].key_ip == ip && w->hold[i].key_port == port)
			same++;
	if (same == 0)
		resolve_request(w, ip, port);
	if (same >= HOLD_PER_DEST || !hold_slot(w, p->len)) {
		worker_drop(w, p, DROP_ARP_HOLD_FULL);
		return;
	}
	struct hold_entry *h = &w->hold[w->nhold];
	memcpy(h->buf, p->data, p->len);
	h->pkt = *p;
	h->pkt.data = h->buf;
	h->key_ip = ip;
	h->key_port = port;
	h->since_ms = w->now_ms;
	__atomic_store_n(&w->nhold, w->nhold + 1, __ATOMIC_RELAXED);
}

/* Swap-remove entry i; its buffer moves with it so buffers stay owned once each. */
static void hold_remove(struct worker *w, unsigned i)
{
	unsigned last = w->nhold - 1;

	hold_swap(w, i, last);
	__atomic_store_n(&w->nhold, last, __ATOMIC_RELAXED);
}

void worker_hold_run(struct worker *w)
{
	bool done[HOLD_MAX];
	uint32_t dst[HOLD_MAX], val[HOLD_MAX];
	unsigned n = w->nhold;

	if (n == 0 || w->now_ms == w->hold_check_ms)
		return;
	w->hold_check_ms = w->now_ms;

	for (unsigned i = 0; i < n; i++)
		dst[i] = rd32(w->hold[i].pkt.data + 14 + 16);
	fib_lookup_bulk(&w->dp->fib, dst, val, n);

	for (unsigned i = 0; i < n; i++) {
		struct hold_entry *h = &w->hold[i];
		uint32_t ip;
		uint16_t port;

		done[i] = worker_forward(w, &h->pkt, val[i], &ip, &port) == FWD_DONE;
		if (!done[i] && w->now_ms - h->since_ms > dp_param(w->dp, hold_timeout_ms)) {
			/* RFC 1812 4.3.3.1 / RFC 792: the neighbour never answered. */
			worker_drop(w, &h->pkt, DROP_ARP_FAILED);
			worker_icmp_reply(w, &h->pkt, ICMP_DEST_UNREACH, ICMP_CODE_HOST_UNREACH, 0);
			done[i] = true;
		}
	}
	/* Frames just queued still point into hold buffers: send before reusing them. */
	worker_tx_flush(w);
	for (unsigned i = n; i-- > 0;)
		if (done[i])
			hold_remove(w, i);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single-producer single-consumer ring carrying events from one worker to the
 * control thread (ARP misses, ARP frames seen). Fixed size, no allocation; a
 * full ring drops the event and the worker counts it (events_lost).
 */
#ifndef CELLGATE_EVENT_RING_H
#define CELLGATE_EVENT_RING_H

#include <stdbool.h>
#include <stdint.h>

#define EVENT_RING_SIZE 1024 /* power of two */

enum dp_event_type {
	DP_EV_RESOLVE = 1, /* need the MAC of `ip` on `port` */
	DP_EV_ARP_SEEN,    /* an ARP frame said `ip` is at `mac` on `port` */
	DP_EV_VC_STATE,    /* VC `vc` went oper `val` (enum vc_oper); `port` = subinterface */
	DP_EV_INATMARP,    /* InATMARP says `ip` is the far end of VC `vc` on subinterface `port` */
	DP_EV_VC_PING,     /* on-demand loopback on VC `vc`: `val` = round trip in us, 0 = lost */
	DP_EV_RESOLVE6,    /* need the MAC of IPv6 `ip6` on `port` (neighbour discovery) */
	DP_EV_ND_SEEN,     /* an NS or NA about IPv6 `ip6` on `port`: `val` DP_EV_ND_VAL */
};

/*
 * DP_EV_ND_SEEN's `val`: the ICMPv6 type (NS: `ip6` is the solicitor, NA:
 * the target), the NA flags (ND_NA_*), and whether `mac` holds the
 * message's link-layer option (an NA may have none).
 */
#define DP_EV_ND_VAL(type, flags, has_lla)                                                         \
	((uint32_t)(type) | (uint32_t)(flags) << 8 | (uint32_t)((has_lla) ? 1 : 0) << 16)
#define DP_EV_ND_TYPE(val)    ((uint8_t)(val))
#define DP_EV_ND_FLAGS(val)   ((uint8_t)((val) >> 8))
#define DP_EV_ND_HAS_LLA(val) (((val) >> 16) & 1)

struct dp_event {
	uint8_t type;
	uint8_t mac[6];
	uint16_t port;
	uint32_t ip; /* host order */
	uint16_t vc;
	uint32_t val;
	uint8_t ip6[16]; /* network order */
};

struct event_ring {
	uint32_t head __attribute__((aligned(64))); /* written by the producer */
	uint32_t tail __attribute__((aligned(64))); /* written by the consumer */
	struct dp_event ev[EVENT_RING_SIZE] __attribute__((aligned(64)));
};

static inline bool event_ring_push(struct event_ring *r, const struct dp_event *e)
{
	uint32_t head = r->head;
	uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);

	if (head - tail >= EVENT_RING_SIZE)
		return false;
	r->ev[head & (EVENT_RING_SIZE - 1)] = *e;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static inline bool event_ring_pop(struct event_ring *r, struct dp_event *e)
{
	uint32_t tail = r->tail;
	uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	if (tail == head)
		return false;
	*e = r->ev[tail & (EVENT_RING_SIZE - 1)];
	__atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Neighbor Unreachability Detection, the state machine of RFC 4861 §7.3.2
 * and Appendix C, as pure transitions: the caller owns the clock, the timers
 * (n->deadline_ms), the hold queue and the frames; every function returns the
 * NUD_ACT_* the caller must carry out.
 */
#include <string.h>

#include "datapath/nd.h"

uint32_t nd_reachable_time(uint32_t base_ms, uint32_t rnd)
{
	uint64_t lo = (uint64_t)base_ms * ND_MIN_RANDOM_FACTOR_PERMILLE / 1000;
	uint64_t span = (uint64_t)base_ms *
	                (ND_MAX_RANDOM_FACTOR_PERMILLE - ND_MIN_RANDOM_FACTOR_PERMILLE) / 1000;

	return (uint32_t)(lo + ((span * rnd) >> 32));
}

static void enter(struct nud *n, enum nud_state s, uint64_t deadline_ms)
{
	n->state = (uint8_t)s;
	n->deadline_ms = deadline_ms;
	if (s != NUD_INCOMPLETE && s != NUD_PROBE)
		n->probes = 0;
}

unsigned nud_resolve(struct nud *n, const struct nud_params *p, uint64_t now_ms)
{
	switch (n->state) {
	case NUD_NONE:
		/* §7.2.2: create INCOMPLETE, solicit the solicited-node group, retransmit. */
		enter(n, NUD_INCOMPLETE, now_ms + p->retrans_ms);
		n->probes = 1;
		return NUD_ACT_SEND_MCAST_NS;
	case NUD_STALE:
		/* §7.3.3: use the cached MAC and give upper layers DELAY to confirm it. */
		enter(n, NUD_DELAY, now_ms + p->delay_ms);
		return 0;
	default:
		return 0; /* INCOMPLETE queues; REACHABLE, DELAY, PROBE send as they are */
	}
}

unsigned nud_timer(struct nud *n, const struct nud_params *p, uint64_t now_ms)
{
	if (n->deadline_ms == 0 || now_ms < n->deadline_ms)
		return 0;
	switch (n->state) {
	case NUD_INCOMPLETE:
		if (n->probes < p->mcast_solicit) {
			n->probes++;
			n->deadline_ms = now_ms + p->retrans_ms;
			return NUD_ACT_SEND_MCAST_NS;
		}
		enter(n, NUD_NONE, 0); /* §7.2.2: ICMPv6 address unreachable for what waited */
		return NUD_ACT_FAILED;
	case NUD_REACHABLE:
		enter(n, NUD_STALE, 0);
		return 0;
	case NUD_DELAY:
		enter(n, NUD_PROBE, now_ms + p->retrans_ms);
		n->probes = 1;
		return NUD_ACT_SEND_UCAST_NS;
	case NUD_PROBE:
		if (n->probes < p->ucast_solicit) {
			n->probes++;
			n->deadline_ms = now_ms + p->retrans_ms;
			return NUD_ACT_SEND_UCAST_NS;
		}
		enter(n, NUD_NONE, 0); /* §7.3.3: the entry SHOULD be deleted */
		return NUD_ACT_FAILED;
	default:
		n->deadline_ms = 0;
		return 0;
	}
}

static void reachable(struct nud *n, const struct nud_params *p, uint64_t now_ms)
{
	enter(n, NUD_REACHABLE, now_ms + p->reachable_ms);
}

unsigned nud_on_na(struct nud *n, const struct nud_params *p, uint64_t now_ms, uint8_t flags,
                   const uint8_t *tlla)
{
	bool solicited = flags & ND_NA_SOLICITED, override = flags & ND_NA_OVERRIDE;
	bool differs;

	if (n->state == NUD_NONE)
		return 0; /* §7.2.5: no entry, silently discarded */
	if (n->state == NUD_INCOMPLETE) {
		if (!tlla)
			return 0; /* nothing to resolve with */
		memcpy(n->lla, tlla, 6);
		n->is_router = flags & ND_NA_ROUTER;
		if (solicited)
			reachable(n, p, now_ms);
		else
			enter(n, NUD_STALE, 0);
		return NUD_ACT_RELEASE | NUD_ACT_LLA_CHANGED;
	}
	differs = tlla && memcmp(tlla, n->lla, 6) != 0;
	if (!override && differs) {
		/* A different MAC without O is not believed, only made suspect. */
		if (n->state == NUD_REACHABLE)
			enter(n, NUD_STALE, 0);
		return 0;
	}
	unsigned act = 0;

	if (differs) {
		memcpy(n->lla, tlla, 6);
		act = NUD_ACT_LLA_CHANGED;
	}
	if (solicited)
		reachable(n, p, now_ms);
	else if (differs)
		enter(n, NUD_STALE, 0);
	n->is_router = flags & ND_NA_ROUTER;
	return act;
}

unsigned nud_on_ns(struct nud *n, const uint8_t slla[6])
{
	switch (n->state) {
	case NUD_NONE:
		/* §7.2.3: create STALE; a new entry's IsRouter is false. */
		memcpy(n->lla, slla, 6);
		n->is_router = false;
		enter(n, NUD_STALE, 0);
		return NUD_ACT_LLA_CHANGED;
	case NUD_INCOMPLETE:
		memcpy(n->lla, slla, 6);
		enter(n, NUD_STALE, 0);
		return NUD_ACT_RELEASE | NUD_ACT_LLA_CHANGED;
	default:
		if (memcmp(n->lla, slla, 6) == 0)
			return 0;
		memcpy(n->lla, slla, 6);
		enter(n, NUD_STALE, 0);
		return NUD_ACT_LLA_CHANGED;
	}
}

unsigned nud_confirm(struct nud *n, const struct nud_params *p, uint64_t now_ms)
{
	if (n->state == NUD_NONE || n->state == NUD_INCOMPLETE)
		return 0;
	reachable(n, p, now_ms);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VC events from the workers (oper state from OAM, InATMARP peers, loopback
 * round trips), drained from the ATM ports' event rings every tick, and what
 * the control thread keeps of them for management.
 */
#include <errno.h>

#include "daemon/atm_priv.h"
#include "lib/addr.h"
#include "lib/clock.h"

void atm_vc_name(const struct atm_ctl *a, unsigned vc, char *buf, size_t len)
{
	const struct cfg_pvc *pc = &a->cfg->pvcs[a->pvc_of_vc[vc]];
	const struct cfg_subif *sub = &a->cfg->subifs[pc->subif];

	snprintf(buf, len, "%s VC %u/%u (%s)", a->cfg->ports[sub->port].name, pc->vpi, pc->vci,
	         sub->name);
}

static void atm_event(struct atm_ctl *a, const struct dp_event *ev, uint64_t now)
{
	char name[96], b[INET_ADDRSTRLEN];
	uint8_t mac[6];

	/* A VC deleted at runtime may have left events behind (atm_pvc_commit drains them). */
	if (ev->vc >= VC_MAX || a->pvc_of_vc[ev->vc] < 0)
		return;
	int pvc = a->pvc_of_vc[ev->vc];
	atm_vc_name(a, ev->vc, name, sizeof(name));
	switch (ev->type) {
	case DP_EV_VC_STATE:
		/* Counted per VC in any case (oper-changes); the log is limited, as many
		 * flapping VCs could otherwise write hundreds of lines a second. */
		if (!log_limit_pass(&a->state_log, now / 1000, ATM_STATE_WHAT)) {
			/* suppressed: counted by the limiter */
		} else if (ev->val == VC_OPER_DOWN && a->as[a->cfg->pvcs[pvc].port])
			/* atmsock has no OAM: only the kernel shutting the socket takes it down. */
			log_warnx("%s: oper down: the kernel shut the VC's socket (ATM interface "
			          "%d gone)",
			          name, a->as[a->cfg->pvcs[pvc].port]->itf);
		else if (ev->val == VC_OPER_DOWN)
			log_warnx("%s: oper down: %u OAM loopbacks lost in a row", name,
			          a->cfg->pvcs[pvc].oam_down_count);
		else
			log_info("%s: oper up: %u OAM loopbacks answered", name,
			         a->cfg->pvcs[pvc].oam_up_count);
		if (a->vc_state_fn)
			a->vc_state_fn(a->vc_state_arg, ev->vc, (uint8_t)ev->val);
		break;
	case DP_EV_INATMARP:
		if (a->learned[ev->vc] != ev->ip &&
		    log_limit_pass(&a->inatmarp_log, now / 1000, ATM_INATMARP_WHAT))
			log_info("%s: InATMARP: far end is %s", name, ip4_str(ev->ip, b));
		a->learned[ev->vc] = ev->ip;
		a->learned_ms[ev->vc] = now;
		vc_mac_make(ev->vc, mac);
		neigh_seen(a->nt, ev->port, ev->ip, mac, now);
		break;
	case DP_EV_VC_PING:
		a->last_rtt_us[ev->vc] = ev->val;
		if (ev->val)
			log_info("%s: OAM loopback answered in %u us", name, ev->val);
		else
			log_info("%s: OAM loopback not answered", name);
		if (a->ping_cb)
			a->ping_cb(a->ping_arg, ev->vc, ev->val);
		break;
	default:
		break;
	}
}

void atm_poll_events(struct atm_ctl *a, uint64_t now_ms)
{
	a->now_ms = now_ms;
	log_limit_tick(&a->state_log, now_ms / 1000, ATM_STATE_WHAT);
	log_limit_tick(&a->inatmarp_log, now_ms / 1000, ATM_INATMARP_WHAT);
	for (unsigned p = 0; p < a->cfg->nports; p++) {
		struct event_ring *r;
		struct dp_event ev;

		if ((!a->pw[p] && !a->as[p]) || !(r = atm_events(&a->dp->ports[p])))
			continue;
		while (event_ring_pop(r, &ev))
			atm_event(a, &ev, now_ms);
	}
}

int atm_vc_ping(struct atm_ctl *a, unsigned vc)
{
	if (!a->dp->vcs || vc >= VC_MAX || a->pvc_of_vc[vc] < 0)
		return -ENOENT;
	__atomic_add_fetch(&a->dp->vcs[vc].ping_req, 1, __ATOMIC_RELEASE);
	return 0;
}

bool atm_vc_learned(const struct atm_ctl *a, unsigned vc, uint32_t *ip, uint64_t *age_ms)
{
	if (vc >= VC_MAX || a->pvc_of_vc[vc] < 0 || !a->learned[vc])
		return false;
	*ip = a->learned[vc];
	*age_ms = mono_ms() - a->learned_ms[vc];
	return true;
}

void atm_set_vc_state_hook(struct atm_ctl *a, atm_vc_state_fn fn, void *arg)
{
	a->vc_state_fn = fn;
	a->vc_state_arg = arg;
}

void atm_vc_info(const struct atm_ctl *a, unsigned vc, struct atm_vc_info *out)
{
	*out = (struct atm_vc_info){0};
	if (vc >= VC_MAX || a->pvc_of_vc[vc] < 0)
		return;
	out->peer_learned = a->learned[vc] != 0;
	out->peer = a->learned[vc] ? a->learned[vc] : a->cfg->pvcs[a->pvc_of_vc[vc]].peer_addr;
	out->last_rtt_us = a->last_rtt_us[vc];
}

const char *atm_port_carrier(const struct atm_ctl *a, unsigned port)
{
	return port < PORT_MAX && a->pw[port] ? a->pw[port]->carrier : "";
}

void atm_set_ping_cb(struct atm_ctl *a, atm_ping_fn fn, void *arg)
{
	a->ping_cb = fn;
	a->ping_arg = arg;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control loop. Timers: every 10 ms drain the workers' event rings (ARP
 * misses and ARP frames seen), every 100 ms run neighbour retries and aging,
 * every second collect ring drops; after RIB changes, wait one RCU grace
 * period and let freed ids be reused. Signals: SIGTERM/SIGINT stop cleanly,
 * SIGHUP reloads the startup file (mgmt_reload), SIGUSR1 writes the stats
 * dump. OAM loopbacks on demand are the vc-ping operation (cellgatectl vc ping).
 */
#include <event2/event.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <urcu-qsbr.h>

#include "daemon/control.h"
#include "daemon/loopmon.h"
#include "daemon/mgmt.h"
#include "daemon/service.h"
#include "lib/clock.h"
#include "lib/log.h"

static void control_drain_events(struct control *ctl, uint64_t now)
{
	for (unsigned w = 0; w < ctl->dp->nworkers; w++) {
		struct event_ring *r = dp_worker_events(ctl->dp, w);
		struct dp_event ev;

		while (event_ring_pop(r, &ev)) {
			if (ev.type == DP_EV_RESOLVE)
				neigh_resolve(ctl->neigh, ev.port, ev.ip, now);
			else if (ev.type == DP_EV_ARP_SEEN)
				neigh_seen(ctl->neigh, ev.port, ev.ip, ev.mac, now);
			else if (ev.type == DP_EV_RESOLVE6 && ctl->neigh6)
				neigh6_resolve(ctl->neigh6, ev.port, ev.ip6, now);
			else if (ev.type == DP_EV_ND_SEEN && ctl->neigh6)
				neigh6_seen(ctl->neigh6, ev.port, ev.ip6,
				            DP_EV_ND_HAS_LLA(ev.val) ? ev.mac : NULL,
				            DP_EV_ND_TYPE(ev.val), DP_EV_ND_FLAGS(ev.val), now);
		}
	}
}

/*
 * Ethernet ports follow their netdev's link (IFF_UP and carrier): while it
 * is down the workers drop what they would send there (link-down) instead of
 * filling a ring the kernel will not transmit. Every 100 ms, so a link
 * change costs at most that much misrouted traffic.
 */
static void control_link_poll(struct control *ctl)
{
	static int sock = -1;

	/* SIOCGIFFLAGS: quiet (no log per failed poll, e.g. a netdev gone) and cheap. */
	if (sock < 0 && (sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	for (unsigned p = 0; p < ctl->dp->nports; p++) {
		struct port *pt = &ctl->dp->ports[p];
		struct ifreq ifr = {0};
		bool up;

		if (pt->ops != &port_afpacket_ops && pt->ops != &port_afxdp_ops)
			continue;
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pt->netdev);
		if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
			continue;
		up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
		if (__atomic_load_n(&pt->link_down, __ATOMIC_RELAXED) == !up)
			continue;
		__atomic_store_n(&pt->link_down, !up, __ATOMIC_RELAXED);
		if (up)
			log_info("port %s (%s): link up", pt->name, pt->netdev);
		else
			log_warnx("port %s (%s): link down: traffic to it is dropped (link-down)",
			          pt->name, pt->netdev);
	}
}

static void control_ring_drops(struct control *ctl)
{
	for (unsigned p = 0; p < ctl->dp->nports; p++) {
		struct port *pt = &ctl->dp->ports[p];
		for (unsigned q = 0; q < pt->nqueues; q++) {
			uint64_t drops = 0;
			if (pt->ops->queue_ring_drops(pt->queues[q], &drops) == 0)
				ctl->rx_ring_drops[p] += drops;
		}
	}
}

/* Freed next hops, groups and FIB memory are reused only after every worker passed a quiescent
 * state. */
static void control_reclaim(struct control *ctl)
{
	if (!rib_reclaim_pending(ctl->rib)) {
		struct fib_stats fs;
		struct fib6_stats f6;
		fib_get_stats(&ctl->dp->fib, &fs);
		fib6_get_stats(ctl->dp->fib6, &f6);
		if (fs.pending == 0 && f6.nodes_pending == 0 && f6.leaves_pending == 0)
			return;
	}
	synchronize_rcu();
	rib_reclaim(ctl->rib);
	fib_reclaim(&ctl->dp->fib);
	fib6_reclaim(ctl->dp->fib6);
}

static void control_tick(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;
	uint64_t now = mono_ms();
	static unsigned ticks;

	control_drain_events(ctl, now);
	atm_poll_events(ctl->atm, now);
	service_watchdog_tick(ctl->dp, now);
	if (now - ctl->last_neigh_ms >= 100) {
		control_link_poll(ctl);
		neigh_timer(ctl->neigh, now);
		if (ctl->neigh6)
			neigh6_timer(ctl->neigh6, now);
		ctl->last_neigh_ms = now;
	}
	if (++ticks % 100 == 0)
		control_ring_drops(ctl);
	control_reclaim(ctl);
}

void control_params_apply(struct control *ctl, const struct cfg *cfg)
{
	struct dp_params p = {
	    .icmp_rate = cfg->icmp_rate,
	    .icmp_burst = cfg->icmp_burst,
	    /* A packet waits for ARP while its requests are retried, one a second. */
	    .hold_timeout_ms = (cfg->arp_retries + 1) * 1000,
	    .ip_options_forward = cfg->ip_options_forward,
	};

	dp_params_set(ctl->dp, &p);
}

void control_cfg_replace(struct control *ctl, struct cfg *next)
{
	cfg_free(ctl->cfg);
	*ctl->cfg = *next;
	memset(next, 0, sizeof(*next));
}

static void control_signal(evutil_socket_t sig, short what, void *arg)
{
	struct control *ctl = arg;

	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("signal %d: stopping", (int)sig);
		event_base_loopexit(ctl->base, NULL);
		break;
	case SIGHUP:
		mgmt_reload(ctl);
		break;
	case SIGUSR2:
		/* It pinged every VC before vc-ping existed; scripts that still send it must not
		 * kill the daemon (the default action). */
		log_info("SIGUSR2: ignored: OAM loopbacks on demand are 'cellgatectl vc ping PORT "
		         "VPI/VCI' (RESTCONF operation vc-ping)");
		break;
	case SIGUSR1:
		control_ring_drops(ctl);
		/* Scripts send it every few seconds: a line each time would flood the log. */
		if (control_stats_write(ctl) == 0)
			log_debug("stats written to %s/stats.json", ctl->rundir);
		break;
	default:
		break;
	}
}

int control_run(struct control *ctl)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP};
	struct event *sigev[5], *tick;
	struct timeval tv = {.tv_sec = 0, .tv_usec = 10000};
	int rc = 0;

	for (unsigned i = 0; i < 5; i++) {
		sigev[i] = evsignal_new(ctl->base, sigs[i], control_signal, ctl);
		if (!sigev[i] || evsignal_add(sigev[i], NULL) != 0)
			fatalx("control: cannot watch signal %d", sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	tick = event_new(ctl->base, -1, EV_PERSIST, control_tick, ctl);
	if (!tick || event_add(tick, &tv) != 0)
		fatalx("control: cannot start the 10 ms timer");
	ctl->loop = loopmon_start(ctl->base);

	if (event_base_dispatch(ctl->base) < 0) {
		log_warnx("control: event loop failed");
		rc = -1;
	}
	loopmon_stop(ctl->loop);
	ctl->loop = NULL;
	event_free(tick);
	for (unsigned i = 0; i < 5; i++)
		event_free(sigev[i]);
	return rc;
}

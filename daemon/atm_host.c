/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host path of ATM subinterfaces in the control thread: what the kernel
 * sends into a subinterface's TUN goes down the VC towards its next hop, and
 * the neighbour code asks here which VC an address is on (static
 * peer-address, or learned by InATMARP; IPv6: atm_map6.c).
 */
#include <errno.h>
#include <event2/event.h>
#include <unistd.h>

#include "daemon/atm_priv.h"
#include "lib/clock.h"

/* The VC of subinterface rt a packet for `ip` leaves on, or -1. */
static int subif_vc_for(const struct atm_subif_rt *rt, uint32_t ip)
{
	const struct atm_ctl *a = rt->a;
	const struct cfg *cfg = a->cfg;

	if (rt->set.p2p)
		return rt->set.p2p_vc;
	/* No IPv4 destination: IPv6 on a multipoint subinterface is atm_host_vc6's. */
	if (ip == 0)
		return -1;
	for (unsigned v = 0; v < cfg->npvcs; v++) {
		if (cfg->pvcs[v].subif != rt->s)
			continue;
		int id = a->vc_of_pvc[v];
		if (cfg->pvcs[v].peer_addr == ip ||
		    (a->learned[id] == ip &&
		     a->now_ms - a->learned_ms[id] <=
		         (cfg->pvcs[v].inatmarp_interval_ms * 3 > LEARNED_TTL_MIN
		              ? (uint64_t)cfg->pvcs[v].inatmarp_interval_ms * 3
		              : LEARNED_TTL_MIN)))
			return id;
	}
	return -1;
}

/* neigh_resolver_fn: the next hop's "MAC" is the VC's synthetic address. */
static bool atm_resolve(void *arg, uint16_t port, uint32_t ip, uint8_t mac[6])
{
	struct atm_ctl *a = arg;
	int vc;

	if (port < a->cfg->nports)
		return false;
	a->now_ms = mono_ms();
	vc = subif_vc_for(&a->sub[port - a->cfg->nports], ip);
	if (vc < 0)
		return false;
	vc_mac_make((uint16_t)vc, mac);
	return true;
}

/* The kernel sent packets into a subinterface: send them down the VC towards their next hop. */
static void tun_readable(evutil_socket_t fd, short what, void *arg)
{
	struct atm_subif_rt *rt = arg;
	struct atm_ctl *a = rt->a;
	uint8_t buf[HOST_RING_BUF];

	(void)what;
	a->now_ms = mono_ms();
	for (unsigned i = 0; i < TUN_READS_MAX; i++) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		uint32_t dst =
		    n >= 20 && (buf[0] >> 4) == 4
		        ? (uint32_t)buf[16] << 24 | buf[17] << 16 | buf[18] << 8 | buf[19]
		        : 0;
		int vc = n >= 1 && (buf[0] >> 4) == 6 && !rt->set.p2p
		             ? atm_host_vc6(a, rt->s, buf, (size_t)n)
		             : subif_vc_for(rt, dst);
		if (vc < 0 && dst) {
			/* Not a direct peer: the gateway our FIB uses for it on this subinterface.
			 */
			uint32_t g = fib_lookup(&a->dp->fib, dst);
			if (g) {
				const struct nexthop *nh =
				    &a->dp->nht->nh[a->dp->nht->nhg[g].slot[0]];
				if (nh->port == rt->port && nh->gw)
					vc = subif_vc_for(rt, nh->gw);
			}
		}
		if (vc < 0 || !atm_host_tx(rt->set.atm_port, (uint16_t)vc, buf, (size_t)n))
			rt->host_tx_drops++;
	}
}

int atm_start(struct atm_ctl *a, struct event_base *base, struct neigh_table *nt)
{
	a->nt = nt;
	for (unsigned s = 0; s < a->cfg->nsubifs; s++) {
		struct atm_subif_rt *rt = &a->sub[s];
		neigh_set_resolver(nt, rt->port, atm_resolve, a);
		rt->ev = event_new(base, rt->set.tun_fd, EV_READ | EV_PERSIST, tun_readable, rt);
		if (!rt->ev || event_add(rt->ev, NULL) != 0) {
			log_warnx("interface %s: cannot watch its TUN", a->cfg->subifs[s].name);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The TUN readers' drops, counted here, join the datapath's on the ATM port. */
void atm_stats_fixup(const struct atm_ctl *a, struct stats_snapshot *s)
{
	for (unsigned i = 0; i < a->cfg->nsubifs; i++)
		if (s->is_atm[a->cfg->subifs[i].port])
			s->atm[a->cfg->subifs[i].port].host_tx_drops += a->sub[i].host_tx_drops;
}

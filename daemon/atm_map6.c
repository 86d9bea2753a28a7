/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The static IPv6 map of multipoint ATM subinterfaces (pvc/ipv6-peer-address,
 * Cisco IOS's "protocol ipv6 ADDRESS" under a PVC). RFC 2492 §3 leaves IPv6
 * address resolution on a PVC to neighbour discovery over the VC or to a
 * configured mapping; we take the mapping. Neighbour discovery across
 * several VCs would need a multicast emulation (each solicitation copied to
 * every VC) and RFC 3122 Inverse ND, its InATMARP counterpart, is answered
 * by neither Linux nor most routers, so a configured map is what an operator
 * can rely on at the far end. The map answers the IPv6 neighbour code
 * (neigh6_set_resolver: a mapped next hop's "MAC" is its VC's synthetic
 * address, as InATMARP's for IPv4) and the host path (what the kernel sends
 * into the subinterface's TUN). A next hop nothing maps fails in neigh6:
 * dropped as nd-failed with ICMPv6 address unreachable, never solicited.
 */
#include <string.h>

#include "daemon/atm_priv.h"
#include "daemon/neigh6.h"
#include "datapath/fib/fib6.h"

int atm_vc_for6(const struct atm_ctl *a, unsigned s, const uint8_t ip[16])
{
	const struct cfg *cfg = a->cfg;

	for (unsigned v = 0; v < cfg->npvcs; v++) {
		const struct cfg_pvc *pc = &cfg->pvcs[v];

		if (pc->subif != s)
			continue;
		for (unsigned k = 0; k < pc->npeers6; k++)
			if (!memcmp(pc->peers6[k], ip, 16))
				return a->vc_of_pvc[v];
	}
	return -1;
}

/* neigh6_resolver_fn: the next hop's "MAC" is its VC's synthetic address. */
static bool atm_resolve6(void *arg, uint16_t port, const uint8_t ip[16], uint8_t mac[6])
{
	const struct atm_ctl *a = arg;
	int vc;

	if (port < a->cfg->nports || port - a->cfg->nports >= a->cfg->nsubifs)
		return false;
	vc = atm_vc_for6(a, port - a->cfg->nports, ip);
	if (vc < 0)
		return false;
	vc_mac_make((uint16_t)vc, mac);
	return true;
}

void atm_start6(struct atm_ctl *a, struct neigh6_table *nt6)
{
	a->nt6 = nt6;
	for (unsigned s = 0; s < a->cfg->nsubifs; s++)
		if (a->cfg->subifs[s].type == CFG_SUBIF_MULTIPOINT && a->cfg->subifs[s].naddrs6)
			neigh6_set_resolver(nt6, a->sub[s].port, atm_resolve6, a);
}

/*
 * The VC an IPv6 packet from the kernel leaves subinterface s on: the map's
 * VC for its destination, else for the gateway our FIB6 uses for it on s
 * (the kernel routes like we do: FRR gave both the same routes). -1: none
 * (multicast from the kernel, MLD and router solicitations, has none).
 */
int atm_host_vc6(const struct atm_ctl *a, unsigned s, const uint8_t *ip6, size_t len)
{
	const struct dataplane *dp = a->dp;
	int vc;

	if (len < 40 || (ip6[0] >> 4) != 6)
		return -1;
	if ((vc = atm_vc_for6(a, s, ip6 + 24)) >= 0 || !dp->fib6 || !dp->nht)
		return vc;
	uint32_t g = fib6_lookup(dp->fib6, ip6 + 24);
	if (!g)
		return -1;
	uint32_t nh = dp->nht->nhg[g].slot[0];
	if (dp->nht->nh[nh].port != a->sub[s].port || dp->nht->nh[nh].type != NH_GATEWAY)
		return -1;
	return atm_vc_for6(a, s, dp->nht->gw6[nh]);
}

void atm_map6_changed(struct atm_ctl *a, unsigned subif_port)
{
	if (a->nt6 && subif_port >= a->cfg->nports)
		neigh6_forget_port(a->nt6, (uint16_t)subif_port);
}

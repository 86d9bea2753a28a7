/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM setup: the configuration's ATM ports, subinterfaces and PVCs become
 * dataplane ports (cellpw or atmsock below, atmsub above), VC table entries
 * and TUN netdevs, before the workers start.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/atm_priv.h"
#include "daemon/netdev.h"
#include "daemon/tun.h"
#include "datapath/port_atmsock.h"

struct atm_ctl *atm_new(struct dataplane *dp, const struct cfg *cfg)
{
	struct atm_ctl *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->dp = dp;
	a->cfg = cfg;
	for (unsigned i = 0; i < PORT_MAX; i++)
		a->port_tun_fd[i] = -1;
	a->cap_dirfd = -1;
	for (unsigned s = 0; s < CFG_SUBIF_MAX; s++)
		a->sub[s].set.tun_fd = -1;
	for (unsigned v = 0; v < VC_MAX; v++)
		a->vc_of_pvc[v] = a->pvc_of_vc[v] = v < cfg->npvcs ? (int16_t)v : -1;
	/* With subinterfaces, PVCs may be added at runtime: the table is there for them. */
	if (cfg->npvcs || cfg->nsubifs) {
		dp->vcs = calloc(VC_MAX, sizeof(*dp->vcs));
		if (!dp->vcs) {
			free(a);
			return NULL;
		}
		dp->nvcs = cfg->npvcs;
	}
	return a;
}

void atm_free(struct atm_ctl *a)
{
	if (!a)
		return;
	for (unsigned s = 0; s < CFG_SUBIF_MAX; s++) {
		if (a->sub[s].ev)
			event_free(a->sub[s].ev);
		if (a->sub[s].set.tun_fd >= 0)
			close(a->sub[s].set.tun_fd);
	}
	for (unsigned i = 0; i < PORT_MAX; i++) {
		if (a->port_tun_fd[i] >= 0)
			close(a->port_tun_fd[i]);
		free(a->pw[i]);
		free(a->as[i]);
	}
	atm_capture_fini(a);
	free(a->dp->vcs);
	a->dp->vcs = NULL;
	a->dp->nvcs = 0;
	free(a);
}

void atm_vc_cfg_fill(struct atm_vc_cfg *v, const struct cfg *cfg, const struct cfg_pvc *pc)
{
	const struct cfg_subif *sub = &cfg->subifs[pc->subif];

	*v = (struct atm_vc_cfg){
	    .atm_port = (uint16_t)sub->port,
	    .subif = (uint16_t)(cfg->nports + pc->subif),
	    .vpi = pc->vpi,
	    .vci = pc->vci,
	    .encap = atm_vc_encap(pc->encap),
	    .cbr = pc->service == CFG_SERVICE_CBR,
	    .mtu = pc->mtu,
	    .pcr = pc->pcr,
	    .queue_cells = pc->queue_cells,
	    .reasm_timeout_ms = pc->reasm_timeout_ms,
	    .oam_enabled = pc->oam_enabled,
	    .oam_interval_ms = pc->oam_interval_ms,
	    .oam_retry_ms = pc->oam_retry_ms,
	    .oam_down_count = pc->oam_down_count,
	    .oam_up_count = pc->oam_up_count,
	    .inatmarp = pc->inatmarp,
	    .inatmarp_interval_ms = pc->inatmarp_interval_ms,
	    .peer_ip4 = pc->peer_addr,
	};
}

/* The datapath's encapsulation of a configured one. */
uint8_t atm_vc_encap(enum cfg_atm_encap e)
{
	switch (e) {
	case CFG_ENCAP_VCMUX_IPV4:
		return VC_ENCAP_VCMUX_IPV4;
	case CFG_ENCAP_LLC_BRIDGED:
		return VC_ENCAP_LLC_BRIDGED;
	case CFG_ENCAP_VCMUX_BRIDGED:
		return VC_ENCAP_VCMUX_BRIDGED;
	case CFG_ENCAP_VCMUX_IPV6:
		return VC_ENCAP_VCMUX_IPV6;
	default:
		return VC_ENCAP_LLC_SNAP;
	}
}

/* Port i's PVCs into the VC table and ids[], their captures opened; how many. */
static unsigned atm_port_vcs(struct atm_ctl *a, unsigned i, uint16_t *ids, uint32_t *ip4_of_subif,
                             uint8_t (*ip6_of_subif)[16])
{
	const struct cfg *cfg = a->cfg;
	unsigned n = 0;

	for (unsigned v = 0; v < cfg->npvcs; v++) {
		const struct cfg_pvc *pc = &cfg->pvcs[v];
		if (cfg->subifs[pc->subif].port != i)
			continue;
		atm_vc_cfg_fill(&a->dp->vcs[v].cfg, cfg, pc);
		ids[n++] = (uint16_t)v;
		atm_capture_open(a, v, pc->pcap);
	}
	for (unsigned s = 0; s < cfg->nsubifs; s++)
		if (cfg->subifs[s].port == i && cfg->subifs[s].naddrs)
			ip4_of_subif[cfg->nports + s] = cfg->subifs[s].addrs[0].addr;
	for (unsigned s = 0; s < cfg->nsubifs; s++)
		if (cfg->subifs[s].port == i && cfg->subifs[s].naddrs6)
			memcpy(ip6_of_subif[cfg->nports + s], cfg->subifs[s].addrs6[0].addr, 16);
	return n;
}

/*
 * A Linux ATM socket port: the adapter does SAR, one AAL5 socket per PVC;
 * above the sockets it is what a cellpw port is (datapath/port_atm.h). On a
 * kernel without ATM its queue_open fails with a message naming CONFIG_ATM.
 */
static int atmsock_setup(struct atm_ctl *a, unsigned i)
{
	const struct cfg_port *cp = &a->cfg->ports[i];
	struct port *pt = &a->dp->ports[i];
	struct atmsock_settings *set = a->as[i] = calloc(1, sizeof(*set));

	if (!set)
		return -ENOMEM;
	set->itf = cp->atmsock.itf;
	set->vcs = a->dp->vcs;
	set->nvcs = atm_port_vcs(a, i, set->vc_ids, set->ip4_of_subif, set->ip6_of_subif);
	/* No Ethernet below: a locally administered MAC of its own, for bridged VCs' frames. */
	pt->mac[0] = 0x02;
	pt->mac[1] = 0x43; /* "CG", then "A" and the port */
	pt->mac[2] = 0x47;
	pt->mac[3] = 0x41;
	pt->mac[4] = (uint8_t)(i >> 8);
	pt->mac[5] = (uint8_t)i;
	pt->mtu = ATM_PORT_MTU;
	pt->drv = set;
	/* The ATM port's own netdev: its ifindex is the port's identity (IF-MIB, ATM-MIB). */
	return tun_create(cp->name, ATM_PORT_MTU, &a->port_tun_fd[i], &pt->ifindex);
}

int atm_port_setup(struct atm_ctl *a, unsigned i)
{
	const struct cfg *cfg = a->cfg;
	const struct cfg_port *cp = &cfg->ports[i];
	struct port *pt = &a->dp->ports[i];
	struct cellpw_settings *set;
	int err;

	snprintf(pt->name, sizeof(pt->name), "%s", cp->name);
	snprintf(pt->netdev, sizeof(pt->netdev), "%s", cp->name);
	pt->id = (uint16_t)i;
	pt->settings = cp->settings;
	pt->ops = port_ops_find(cp->driver);
	if (!pt->ops) {
		log_warnx("port %s: unknown driver '%s'", cp->name, cp->driver);
		return -EINVAL;
	}
	if (cfg->workers != 1) {
		log_warnx("port %s: ATM ports are served by one worker for now; set system/workers "
		          "to 1 (configured: %u)",
		          cp->name, cfg->workers);
		return -EINVAL;
	}
	if (cp->kind == CFG_PORT_ATMSOCK)
		return atmsock_setup(a, i);
	set = a->pw[i] = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	snprintf(set->carrier, sizeof(set->carrier), "%s", cp->netdev);
	if ((err = netdev_lookup(cp->netdev, &set->carrier_ifindex, set->carrier_mac,
	                         &set->carrier_mtu)) != 0)
		return err;
	if ((err = netdev_set_up(set->carrier_ifindex)) != 0)
		return err;
	netdev_gro_off(cp->netdev);
	memcpy(set->encap.dst, cp->cellpw.peer_mac, 6);
	memcpy(set->encap.src, set->carrier_mac, 6);
	set->encap.label = cp->cellpw.pw_label;
	set->encap.control_word = cp->cellpw.control_word;
	set->max_cells = cp->cellpw.max_cells;
	set->concat_us = cp->cellpw.concat_us;
	set->vcs = a->dp->vcs;
	set->nvcs = atm_port_vcs(a, i, set->vc_ids, set->ip4_of_subif, set->ip6_of_subif);
	memcpy(pt->mac, set->carrier_mac, 6);
	pt->mtu = ATM_PORT_MTU;
	pt->drv = set;
	/* The ATM port's own netdev: its ifindex is the port's identity (IF-MIB, ATM-MIB). */
	return tun_create(cp->name, ATM_PORT_MTU, &a->port_tun_fd[i], &pt->ifindex);
}

int atm_subif_setup(struct atm_ctl *a, unsigned s)
{
	const struct cfg *cfg = a->cfg;
	const struct cfg_subif *cs = &cfg->subifs[s];
	unsigned id = cfg->nports + s;
	struct port *pt = &a->dp->ports[id];
	struct atm_subif_rt *rt = &a->sub[s];
	uint32_t mtu = 0;
	int err;

	rt->a = a;
	rt->s = s;
	rt->port = (uint16_t)id;
	snprintf(pt->name, sizeof(pt->name), "%s", cs->name);
	snprintf(pt->netdev, sizeof(pt->netdev), "%s", cs->name);
	pt->id = (uint16_t)id;
	pt->ops = &port_atmsub_ops;
	pt->ip4_addr = cs->naddrs ? cs->addrs[0].addr : 0;
	rt->set.atm_port = &a->dp->ports[cs->port];
	rt->set.p2p = cs->type == CFG_SUBIF_P2P;
	pt->p2p = rt->set.p2p; /* its next hops are the VC: no neighbour discovery */
	/* The subinterface's MTU: the smallest of its VCs', so any VC can carry what fits. */
	for (unsigned v = 0; v < cfg->npvcs; v++) {
		if (cfg->pvcs[v].subif != s)
			continue;
		if (mtu == 0 || cfg->pvcs[v].mtu < mtu)
			mtu = cfg->pvcs[v].mtu;
		rt->set.p2p_vc = (uint16_t)v;
	}
	pt->mtu = mtu ? mtu : ATM_PORT_MTU;
	pt->drv = &rt->set;
	if ((err = tun_create(cs->name, pt->mtu, &rt->set.tun_fd, &pt->ifindex)) != 0)
		return err;
	err = netdev_addr4_set(pt->ifindex, cs->addrs, cs->naddrs);
	return err ? err : netdev_addr6_set(pt->ifindex, cs->addrs6, cs->naddrs6);
}

int atm_vc_of_pvc(const struct atm_ctl *a, unsigned pvc)
{
	return pvc < a->cfg->npvcs ? a->vc_of_pvc[pvc] : -1;
}

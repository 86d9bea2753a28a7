/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ATM part of the startup configuration: port kinds, the cellpw and
 * atmsock containers, subinterfaces and their PVCs, copied from the validated
 * tree into struct cfg. The schema has checked types, ranges, when/must and
 * list keys; the checks that span lists are in config_atm_check.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_atm.h"

/* AAL5 (ITU-T I.363.5): an SDU plus the 8-byte trailer, padded to whole 48-byte cells. */
static uint32_t aal5_cells(uint32_t sdu)
{
	return (sdu + 8 + 47) / 48;
}

static enum cfg_port_kind cfg_kind(const char *driver)
{
	if (!strcmp(driver, "cellpw"))
		return CFG_PORT_CELLPW;
	if (!strcmp(driver, "atmsock"))
		return CFG_PORT_ATMSOCK;
	return CFG_PORT_ETHERNET;
}

/* The frames' destination: one station, so not a group address (IEEE 802 I/G bit). */
static int cfg_fill_peer_mac(const struct cfg_pstate *ps, struct cfg_cellpw *pw,
                             const struct lyd_node *mac)
{
	const char *s = lyd_get_value(mac);
	unsigned b[6];

	/* yang:mac-address is six hex pairs; the canonical form is lower case. */
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return cfg_node_errf(ps, mac, "%s is not a MAC address", s);
	for (int i = 0; i < 6; i++)
		pw->peer_mac[i] = (uint8_t)b[i];
	if (pw->peer_mac[0] & 1)
		return cfg_node_errf(ps, mac,
		                     "%s is a multicast or broadcast address; the far end of a "
		                     "pseudowire is one station (a unicast address)",
		                     s);
	if (!(b[0] | b[1] | b[2] | b[3] | b[4] | b[5]))
		return cfg_node_errf(ps, mac, "%s is not a station address", s);
	return 0;
}

static int cfg_fill_cellpw(const struct cfg_pstate *ps, struct cfg_port *p,
                           const struct lyd_node *pn)
{
	const struct lyd_node *cn = cfg_child(pn, "cellpw");
	const struct lyd_node *mac = cfg_child(cn, "peer-mac");

	/* The schema's must on the port makes both leaves present; this is a guard. */
	if (!mac || !cfg_child(cn, "pw-label"))
		return cfg_node_errf(ps, pn, "a cellpw port needs cellpw/peer-mac and pw-label");
	p->cellpw.pw_label = cfg_u32(cn, "pw-label");
	p->cellpw.control_word = cfg_bool(cn, "control-word");
	p->cellpw.max_cells = cfg_u32(cn, "max-cells-per-frame");
	p->cellpw.concat_us = cfg_u32(cn, "concatenation-timer");
	return cfg_fill_peer_mac(ps, &p->cellpw, mac);
}

static int cfg_fill_atmsock(const struct cfg_pstate *ps, struct cfg_port *p,
                            const struct lyd_node *pn)
{
	const struct lyd_node *an = cfg_child(pn, "atmsock");

	if (!cfg_child(an, "interface-number"))
		return cfg_node_errf(ps, pn, "an atmsock port needs atmsock/interface-number");
	p->atmsock.itf = (int)cfg_u32(an, "interface-number");
	return 0;
}

/*
 * The effective InATMARP setting (on a bridged PVC: ARP for its peer-address):
 * explicit, else on for the PVCs of a multipoint subif that can carry it.
 */
static bool cfg_pvc_inatmarp(const struct lyd_node *arp, const struct cfg_subif *s,
                             enum cfg_atm_encap encap)
{
	const struct lyd_node *en = cfg_child(arp, "enabled");

	if (en)
		return !strcmp(lyd_get_value(en), "true");
	return s->type == CFG_SUBIF_MULTIPOINT && encap != CFG_ENCAP_VCMUX_IPV4 &&
	       encap != CFG_ENCAP_VCMUX_IPV6;
}

/* The schema allows nothing else; its default is llc-snap. */
static enum cfg_atm_encap cfg_encap_parse(const char *s)
{
	static const char *const names[] = CFG_ENCAP_NAMES;

	for (unsigned e = 0; e < sizeof(names) / sizeof(*names); e++)
		if (s && !strcmp(s, names[e]))
			return (enum cfg_atm_encap)e;
	return CFG_ENCAP_LLC_SNAP;
}

static void cfg_fill_pvc_timers(struct cfg_pvc *v, const struct lyd_node *vn)
{
	const struct lyd_node *oam = cfg_child(vn, "oam");

	v->reasm_timeout_ms = cfg_u32(vn, "reassembly-timeout");
	v->oam_enabled = cfg_bool(oam, "enabled");
	v->oam_interval_ms = cfg_u32(oam, "interval");
	v->oam_retry_ms = cfg_u32(oam, "retry-interval");
	v->oam_down_count = cfg_u32(oam, "down-count");
	v->oam_up_count = cfg_u32(oam, "up-count");
}

/* A shaping queue shorter than one packet of the MTU would drop every such packet. */
static int cfg_check_queue(const struct cfg_pstate *ps, const struct cfg_pvc *v,
                           const struct lyd_node *sh)
{
	uint32_t sdu = v->mtu + cfg_encap_hdr_len(v->encap);

	if (v->queue_cells >= aal5_cells(sdu))
		return 0;
	return cfg_node_errf(ps, cfg_child(sh, "queue-limit"),
	                     "%u cells cannot hold one packet of the PVC's MTU (a %u-byte AAL5 "
	                     "SDU takes %u cells)",
	                     v->queue_cells, sdu, aal5_cells(sdu));
}

/* The ipv6-peer-address leaf-list, in configuration order (the schema bounds it to 8). */
static int cfg_fill_peers6(const struct cfg_pstate *ps, struct cfg_pvc *v,
                           const struct lyd_node *vn)
{
	const struct lyd_node *n;

	LY_LIST_FOR(lyd_child(vn), n)
	{
		if (strcmp(n->schema->name, "ipv6-peer-address"))
			continue;
		if (v->npeers6 == CFG_PEER6_MAX)
			return cfg_node_errf(ps, n, "more than %d ipv6-peer-address on one PVC",
			                     CFG_PEER6_MAX);
		if (inet_pton(AF_INET6, lyd_get_value(n), v->peers6[v->npeers6]) != 1)
			return cfg_node_errf(ps, n, "%s is not an IPv6 address", lyd_get_value(n));
		v->npeers6++;
	}
	return 0;
}

static int cfg_fill_pvc(const struct cfg_pstate *ps, struct cfg *cfg, unsigned subif,
                        const struct lyd_node *vn)
{
	struct cfg_pvc *v = &cfg->pvcs[cfg->npvcs];
	const struct lyd_node *sh = cfg_child(vn, "shaping"), *peer = cfg_child(vn, "peer-address");
	int rc;

	v->subif = subif;
	v->port = cfg->subifs[subif].port;
	v->vpi = (uint16_t)cfg_u32(vn, "vpi");
	v->vci = (uint16_t)cfg_u32(vn, "vci");
	v->encap = cfg_encap_parse(cfg_str(vn, "encapsulation"));
	v->mtu = cfg_u32(vn, "mtu");
	v->service =
	    strcmp(cfg_str(sh, "service-category"), "cbr") ? CFG_SERVICE_UBR : CFG_SERVICE_CBR;
	v->pcr = cfg_u32(sh, "pcr"); /* absent: 0, unshaped (the schema requires it for cbr) */
	v->queue_cells = cfg_u32(sh, "queue-limit");
	cfg_fill_pvc_timers(v, vn);
	v->inatmarp = cfg_pvc_inatmarp(cfg_child(vn, "inatmarp"), &cfg->subifs[subif], v->encap);
	v->inatmarp_interval_ms = cfg_u32(cfg_child(vn, "inatmarp"), "interval");
	if (peer) {
		v->peer_addr = ip4_from_str(lyd_get_value(peer));
		if (!ip4_is_unicast(v->peer_addr))
			return cfg_node_errf(ps, peer, "%s is not a unicast address",
			                     lyd_get_value(peer));
	}
	if ((rc = cfg_fill_peers6(ps, v, vn)) != 0)
		return rc;
	/* The schema bounds the path to 255 characters. */
	if (!cfg_copy(v->pcap, sizeof(v->pcap), cfg_str(vn, "capture-file")))
		return cfg_node_errf(ps, vn, "capture-file too long");
	if ((rc = cfg_check_queue(ps, v, sh)) || (rc = cfg_atm_check_pvc(ps, cfg, v, vn)))
		return rc;
	cfg->npvcs++;
	return 0;
}

static int cfg_fill_subif(const struct cfg_pstate *ps, struct cfg *cfg, unsigned port,
                          const struct lyd_node *sn)
{
	const char *name = cfg_str(sn, "name");
	const struct lyd_node *n;
	struct cfg_subif *s;
	unsigned idx;
	int rc;

	/* Each becomes a netdev and a counter set, like a port. */
	if (cfg->nports + cfg->nsubifs >= PORT_MAX || cfg->nsubifs == CFG_SUBIF_MAX)
		return cfg_node_errf(ps, sn, "more than %d ports and subinterfaces in all",
		                     PORT_MAX);
	rc = cfg_atm_check_name(ps, cfg, sn, name);
	if (rc)
		return rc;
	idx = cfg->nsubifs++;
	s = &cfg->subifs[idx];
	/* The schema bounds the name to 15 characters. */
	cfg_copy(s->name, sizeof(s->name), name);
	s->port = port;
	s->type = strcmp(cfg_str(sn, "type"), "multipoint") ? CFG_SUBIF_P2P : CFG_SUBIF_MULTIPOINT;
	rc = cfg_fill_ipv4(ps, cfg_child(sn, "ipv4"), s->addrs, &s->naddrs);
	if (!rc)
		rc = cfg_fill_ipv6(ps, cfg_child(sn, "ipv6"), s->addrs6, &s->naddrs6);
	LY_LIST_FOR(lyd_child(sn), n)
	{
		if (!rc && !strcmp(n->schema->name, "pvc"))
			rc = cfg_fill_pvc(ps, cfg, idx, n);
	}
	return rc;
}

static int cfg_fill_atm_port(const struct cfg_pstate *ps, struct cfg *cfg, unsigned i,
                             const struct lyd_node *pn)
{
	struct cfg_port *p = &cfg->ports[i];
	const struct lyd_node *n;
	int rc = 0;

	p->kind = cfg_kind(p->driver);
	if (p->kind == CFG_PORT_CELLPW)
		rc = cfg_fill_cellpw(ps, p, pn);
	else if (p->kind == CFG_PORT_ATMSOCK)
		rc = cfg_fill_atmsock(ps, p, pn);
	LY_LIST_FOR(lyd_child(pn), n)
	{
		if (!rc && !strcmp(n->schema->name, "subinterface"))
			rc = cfg_fill_subif(ps, cfg, i, n);
	}
	return rc;
}

/* Counts the PVCs to size cfg->pvcs, and refuses more than CFG_PVC_MAX. */
static int cfg_count_pvcs(const struct cfg_pstate *ps, const struct lyd_node *top, unsigned *count)
{
	const struct lyd_node *pn, *sn, *vn;

	*count = 0;
	LY_LIST_FOR(lyd_child(top), pn)
	{
		if (strcmp(pn->schema->name, "port"))
			continue;
		LY_LIST_FOR(lyd_child(pn), sn)
		{
			if (strcmp(sn->schema->name, "subinterface"))
				continue;
			LY_LIST_FOR(lyd_child(sn), vn)
			{
				if (strcmp(vn->schema->name, "pvc"))
					continue;
				if (++*count > CFG_PVC_MAX)
					return cfg_node_errf(ps, vn, "more than %d PVCs in all",
					                     CFG_PVC_MAX);
			}
		}
	}
	return 0;
}

static int cfg_pvc_cmp(const void *a, const void *b)
{
	const struct cfg_pvc *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->vpi != y->vpi)
		return x->vpi < y->vpi ? -1 : 1;
	return (int)x->vci - (int)y->vci;
}

int cfg_atm_fill(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *top)
{
	const struct lyd_node *n;
	unsigned count, i = 0;
	int rc;

	rc = cfg_count_pvcs(ps, top, &count);
	if (rc)
		return rc;
	if (count && !(cfg->pvcs = calloc(count, sizeof(*cfg->pvcs))))
		return cfg_errf(ps, -ENOMEM, "%s", strerror(ENOMEM));
	/* cfg_fill filled cfg->ports in the order of the port entries. */
	LY_LIST_FOR(lyd_child(top), n)
	{
		if (strcmp(n->schema->name, "port"))
			continue;
		rc = cfg_fill_atm_port(ps, cfg, i++, n);
		if (rc)
			return rc;
	}
	/* Sorted once here, so equal configs give equal structs. */
	if (cfg->npvcs)
		qsort(cfg->pvcs, cfg->npvcs, sizeof(*cfg->pvcs), cfg_pvc_cmp);
	return cfg_atm_check_routes(ps, cfg);
}

int cfg_subif_index(const struct cfg *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->nsubifs; i++)
		if (!strcmp(cfg->subifs[i].name, name))
			return (int)i;
	return -1;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checks on the ATM configuration that span list entries, which YANG's
 * 'unique' cannot express because the entries sit in different lists (ports
 * and subinterfaces; PVCs of different subinterfaces). Each error names the
 * data path of the entry that clashes and the entry it clashes with.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "config/config_atm.h"
#include "lib/addr.h"

int cfg_atm_check_name(const struct cfg_pstate *ps, const struct cfg *cfg,
                       const struct lyd_node *sn, const char *name)
{
	const struct cfg_subif *s;

	for (unsigned i = 0; i < cfg->nports; i++) {
		if (!strcmp(cfg->ports[i].name, name))
			return cfg_node_errf(ps, sn, "name %s is already the name of port %s", name,
			                     name);
		if (!strcmp(cfg->ports[i].netdev, name))
			return cfg_node_errf(ps, sn,
			                     "name %s is the netdev of port %s; the subinterface's "
			                     "TUN netdev needs a name of its own",
			                     name, cfg->ports[i].name);
	}
	for (unsigned i = 0; i < cfg->nsubifs; i++) {
		s = &cfg->subifs[i];
		if (!strcmp(s->name, name))
			return cfg_node_errf(ps, sn,
			                     "name %s is already used by a subinterface of port %s",
			                     name, cfg->ports[s->port].name);
	}
	return 0;
}

/* Whether a and b agree on their first plen bits. */
static bool addr6_in(const uint8_t a[16], const uint8_t b[16], unsigned plen)
{
	unsigned whole = plen / 8, rest = plen % 8;

	if (memcmp(a, b, whole))
		return false;
	return !rest || !((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest)));
}

static bool addr6_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80; /* fe80::/10, RFC 4291 2.5.6 */
}

/*
 * What a map entry of s can be: a unicast neighbour on one of s's prefixes
 * (the next hops a route through s can name), or link-local (on every
 * link: OSPFv3 and BGP unnumbered name those). Not one of our addresses.
 */
static const char *peer6_refused(const struct cfg_subif *s, const uint8_t a[16])
{
	static const uint8_t zero[16];
	bool on_prefix = false;

	if (a[0] == 0xff)
		return "is a multicast address";
	if (!memcmp(a, zero, 15) && a[15] <= 1)
		return "is the unspecified or the loopback address";
	for (unsigned i = 0; i < s->naddrs6; i++) {
		if (!memcmp(s->addrs6[i].addr, a, 16))
			return "is an address of the subinterface itself";
		on_prefix = on_prefix || addr6_in(s->addrs6[i].addr, a, s->addrs6[i].plen);
	}
	if (!on_prefix && !addr6_link_local(a))
		return "is on none of the subinterface's IPv6 prefixes (nor link-local): no "
		       "next hop through the subinterface can have it";
	return NULL;
}

/* Entry j of v's map against v's subinterface and the PVCs of that subinterface before v. */
static int check_peer6(const struct cfg_pstate *ps, const struct cfg *cfg, const struct cfg_pvc *v,
                       unsigned j, const struct lyd_node *vn)
{
	const struct cfg_subif *s = &cfg->subifs[v->subif];
	const char *why = peer6_refused(s, v->peers6[j]);
	char b[INET6_ADDRSTRLEN];

	inet_str(AF_INET6, v->peers6[j], b, sizeof(b));
	if (why)
		return cfg_node_errf(ps, vn, "ipv6-peer-address %s %s", b, why);
	for (unsigned i = 0; i < cfg->npvcs; i++) {
		const struct cfg_pvc *o = &cfg->pvcs[i];

		if (o->subif != v->subif)
			continue;
		for (unsigned k = 0; k < o->npeers6; k++)
			if (!memcmp(o->peers6[k], v->peers6[j], 16))
				return cfg_node_errf(
				    ps, vn,
				    "ipv6-peer-address %s is already mapped to PVC "
				    "%u/%u of subinterface %s: a next hop has one VC",
				    b, o->vpi, o->vci, s->name);
	}
	return 0;
}

int cfg_atm_check_pvc(const struct cfg_pstate *ps, const struct cfg *cfg, const struct cfg_pvc *v,
                      const struct lyd_node *vn)
{
	const struct cfg_pvc *o;
	int rc;

	for (unsigned j = 0; j < v->npeers6; j++)
		if ((rc = check_peer6(ps, cfg, v, j, vn)) != 0)
			return rc;

	for (unsigned i = 0; i < cfg->npvcs; i++) {
		o = &cfg->pvcs[i];
		if (o->port == v->port && o->vpi == v->vpi && o->vci == v->vci)
			return cfg_node_errf(ps, vn,
			                     "VPI/VCI %u/%u is already used on port %s, by "
			                     "subinterface %s",
			                     v->vpi, v->vci, cfg->ports[v->port].name,
			                     cfg->subifs[o->subif].name);
		if (v->pcap[0] && !strcmp(o->pcap, v->pcap))
			return cfg_node_errf(ps, vn,
			                     "capture-file %s is already written by PVC %u/%u of "
			                     "subinterface %s",
			                     v->pcap, o->vpi, o->vci, cfg->subifs[o->subif].name);
	}
	return 0;
}

/* The data path of the leaf that named `port` in route r: its on-link form or a next hop. */
static void route_leaf_path(const struct cfg_route *r, const struct cfg_nexthop *nh, char *buf,
                            size_t len)
{
	char pfx[IP4_STRLEN], gw[IP4_STRLEN];

	ip4_str(r->prefix, pfx);
	ip4_str(nh->gateway, gw);
	if (nh->gateway)
		snprintf(buf, len,
		         "/cellgate:cellgate/routing/static-route[prefix='%s/%u']/"
		         "nexthop[address='%s']/interface",
		         pfx, r->plen, gw);
	else
		snprintf(buf, len,
		         "/cellgate:cellgate/routing/static-route[prefix='%s/%u']/interface", pfx,
		         r->plen);
}

int cfg_atm_check_routes(const struct cfg_pstate *ps, const struct cfg *cfg)
{
	const struct cfg_nexthop *nh;
	char path[256];
	int p;

	for (unsigned i = 0; i < cfg->nroutes; i++)
		for (unsigned j = 0; j < cfg->routes[i].nnexthops; j++) {
			nh = &cfg->routes[i].nexthops[j];
			p = nh->port[0] ? cfg_port_index(cfg, nh->port) : -1;
			if (p < 0 || cfg->ports[p].kind == CFG_PORT_ETHERNET)
				continue;
			route_leaf_path(&cfg->routes[i], nh, path, sizeof(path));
			return cfg_errf(ps, -EINVAL,
			                "%s: %s is an ATM port, which carries no IPv4 itself: name "
			                "one of its subinterfaces",
			                path, nh->port);
		}
	return 0;
}

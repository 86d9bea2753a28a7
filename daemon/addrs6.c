/* SPDX-License-Identifier: BSD-2-Clause */
/* Runtime changes of the IPv6 addresses of ports and subinterfaces (addrs6.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/addrs6.h"
#include "daemon/netdev.h"
#include "datapath/port_afxdp.h"
#include "lib/addr.h"
#include "lib/log.h"

/* The IPv6 addresses of dataplane port i (an Ethernet port, then the subinterfaces). */
struct if6 {
	const struct cfg_addr6 *a;
	unsigned n;
};

static struct if6 if6_of(const struct cfg *c, unsigned i)
{
	if (i < c->nports)
		return (struct if6){c->ports[i].addrs6, c->ports[i].naddrs6};
	return (struct if6){c->subifs[i - c->nports].addrs6, c->subifs[i - c->nports].naddrs6};
}

static unsigned if6_count(const struct cfg *c)
{
	return c->nports + c->nsubifs;
}

static int kernel_netdev(int ifindex, const uint8_t addr[16], uint8_t plen, bool add)
{
	return add ? netdev_addr6_add(ifindex, addr, plen) : netdev_addr6_del(ifindex, addr, plen);
}

static int kernel(const struct addrs6_env *env, unsigned i, const struct cfg_addr6 *a, bool add)
{
	addrs6_kernel_fn fn = env->kernel ? env->kernel : kernel_netdev;

	return fn(env->dp->ports[i].ifindex, a->addr, a->plen, add);
}

/* The address itself on port i, whatever its prefix length. */
static bool if6_has_ip(struct if6 f, const uint8_t ip[16])
{
	for (unsigned k = 0; k < f.n; k++)
		if (!memcmp(f.a[k].addr, ip, 16))
			return true;
	return false;
}

/*
 * Take back what prepare did for a (not in o as it is): delete it, or, for
 * a kept address with a new prefix length (replaced in place), put the old
 * one back.
 */
static void undo_add(const struct addrs6_env *env, struct if6 o, unsigned i,
                     const struct cfg_addr6 *a)
{
	for (unsigned k = 0; k < o.n; k++)
		if (!memcmp(o.a[k].addr, a->addr, 16)) {
			kernel(env, i, &o.a[k], true);
			return;
		}
	kernel(env, i, a, false);
}

/* Undo prepare's additions before port upto_if's address upto_k. */
static void undo_adds(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next,
                      unsigned upto_if, unsigned upto_k)
{
	for (unsigned i = 0; i <= upto_if && i < if6_count(next); i++) {
		struct if6 o = if6_of(cur, i), f = if6_of(next, i);

		for (unsigned k = 0; k < f.n && (i < upto_if || k < upto_k); k++)
			if (!cfg_addr6_in(o.a, o.n, &f.a[k]))
				undo_add(env, o, i, &f.a[k]);
	}
}

static void addr_path(const struct cfg *c, unsigned i, const struct cfg_addr6 *a, char *path,
                      size_t pathsz)
{
	char ip[INET6_ADDRSTRLEN];

	inet_str(AF_INET6, a->addr, ip, sizeof(ip));
	if (i < c->nports) {
		snprintf(path, pathsz, "/cellgate:cellgate/port[name='%s']/ipv6/address[ip='%s']",
		         c->ports[i].name, ip);
		return;
	}
	const struct cfg_subif *s = &c->subifs[i - c->nports];
	snprintf(path, pathsz,
	         "/cellgate:cellgate/port[name='%s']/subinterface[name='%s']/ipv6/address[ip='%s']",
	         c->ports[s->port].name, s->name, ip);
}

int addrs6_prepare(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next,
                   char *msg, size_t msgsz, char *path, size_t pathsz)
{
	for (unsigned i = 0; i < if6_count(next); i++) {
		struct if6 o = if6_of(cur, i), f = if6_of(next, i);

		for (unsigned k = 0; k < f.n; k++) {
			char ip[INET6_ADDRSTRLEN];
			int e;

			/* A new prefix length of a kept address is the same netdev address,
			 * replaced (NLM_F_REPLACE). */
			if (cfg_addr6_in(o.a, o.n, &f.a[k]))
				continue;
			if ((e = kernel(env, i, &f.a[k], true)) == 0)
				continue;
			snprintf(msg, msgsz,
			         "port %s: IPv6 address %s/%u cannot be put on netdev %s: %s",
			         env->dp->ports[i].name,
			         inet_str(AF_INET6, f.a[k].addr, ip, sizeof(ip)), f.a[k].plen,
			         env->dp->ports[i].netdev, strerror(-e));
			addr_path(next, i, &f.a[k], path, pathsz);
			undo_adds(env, cur, next, i, k);
			return e;
		}
	}
	return 0;
}

void addrs6_abort(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next)
{
	undo_adds(env, cur, next, if6_count(next), 0);
}

/* Who in c holds prefix net/plen as a connected route (the last, as routes6.c): port, or -1. */
static int prefix_holder(const struct cfg *c, const uint8_t net[16], uint8_t plen)
{
	int holder = -1;

	for (unsigned i = 0; i < if6_count(c); i++) {
		struct if6 f = if6_of(c, i);

		for (unsigned k = 0; k < f.n; k++) {
			uint8_t n2[16];

			cfg_addr6_prefix(&f.a[k], n2);
			if (f.a[k].plen == plen && plen < 128 && !memcmp(n2, net, 16))
				holder = (int)i;
		}
	}
	return holder;
}

static bool any_has_ip(const struct cfg *c, const uint8_t ip[16])
{
	for (unsigned i = 0; i < if6_count(c); i++)
		if (if6_has_ip(if6_of(c, i), ip))
			return true;
	return false;
}

/* Like routes6.c's connected6, for one address: its local /128 and its on-link prefix. */
static void rib_add(const struct addrs6_env *env, unsigned port, const struct cfg_addr6 *a)
{
	struct rib6_path on_port = {.port = (int)port, .weight = 1};
	uint8_t net[16];

	rib6_route_set(env->rib6, a->addr, 128, RIB_SRC_LOCAL, NH_LOCAL, NULL, 0);
	if (a->plen == 128)
		return;
	cfg_addr6_prefix(a, net);
	rib6_route_set(env->rib6, net, a->plen, RIB_SRC_CONNECTED, NH_GLEAN, &on_port, 1);
}

static void rib_remove(const struct addrs6_env *env, const struct cfg *next, unsigned port,
                       const struct cfg_addr6 *a)
{
	uint8_t net[16];
	int holder;

	if (!any_has_ip(next, a->addr))
		rib6_route_del(env->rib6, a->addr, 128, RIB_SRC_LOCAL);
	if (a->plen == 128)
		return;
	cfg_addr6_prefix(a, net);
	holder = prefix_holder(next, net, a->plen);
	if (holder < 0) {
		rib6_route_del(env->rib6, net, a->plen, RIB_SRC_CONNECTED);
	} else if ((unsigned)holder != port) {
		struct rib6_path on = {.port = holder, .weight = 1};

		rib6_route_set(env->rib6, net, a->plen, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1);
	}
}

static void commit_adds(const struct addrs6_env *env, struct if6 o, struct if6 f, unsigned i)
{
	const struct port *pt = &env->dp->ports[i];
	char ip[INET6_ADDRSTRLEN];

	for (unsigned k = 0; k < f.n; k++) {
		if (cfg_addr6_in(o.a, o.n, &f.a[k]))
			continue;
		rib_add(env, i, &f.a[k]);
		log_info(
		    "port %s: IPv6 address %s/%u added (netdev %s, local and connected routes)",
		    pt->name, inet_str(AF_INET6, f.a[k].addr, ip, sizeof(ip)), f.a[k].plen,
		    pt->netdev);
	}
}

static void commit_removes(const struct addrs6_env *env, const struct cfg *next, struct if6 o,
                           struct if6 f, unsigned i)
{
	const struct port *pt = &env->dp->ports[i];
	char ip[INET6_ADDRSTRLEN];

	for (unsigned k = 0; k < o.n; k++) {
		unsigned forgot = 0;

		if (cfg_addr6_in(f.a, f.n, &o.a[k]))
			continue;
		bool kept = if6_has_ip(f, o.a[k].addr); /* with a new prefix length */

		rib_remove(env, next, i, &o.a[k]);
		if (!kept)
			kernel(env, i, &o.a[k], false); /* logged inside if it fails */
		if (o.a[k].plen < 128 && env->neigh6)
			forgot = neigh6_flush_prefix(env->neigh6, (uint16_t)i, &o.a[k], f.a, f.n);
		log_info("port %s: IPv6 address %s/%u %s (%u neighbours on the prefix forgotten)",
		         pt->name, inet_str(AF_INET6, o.a[k].addr, ip, sizeof(ip)), o.a[k].plen,
		         kept ? "replaced by its new prefix length" : "removed", forgot);
	}
}

/* Start or stop forwarding IPv6 on port i: the workers' flag, then the XDP program's. */
static void forwarding_set(const struct addrs6_env *env, unsigned i, bool on)
{
	struct port *pt = &env->dp->ports[i];

	port_ip6_enable(pt, on);
	if (pt->ops == &port_afxdp_ops)
		afxdp_ipv6_set(pt, on); /* logged inside if it fails: the program passes IPv6 */
	log_info("port %s: IPv6 forwarding %s", pt->name,
	         on ? "started (first IPv6 address)"
	            : "stopped (no IPv6 address left): IPv6 received there goes to the kernel");
}

/*
 * Port i from o's addresses to f's. The ICMPv6 source first (the new first
 * address, before the old one leaves the netdev); on a port that had none,
 * forwarding only once its routes are there; on one left with none,
 * forwarding stopped before anything of it goes.
 */
static void commit_port(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next,
                        unsigned i)
{
	struct if6 o = if6_of(cur, i), f = if6_of(next, i);
	struct port *pt = &env->dp->ports[i];
	char ip[INET6_ADDRSTRLEN];

	if (f.n && (!o.n || memcmp(o.a[0].addr, f.a[0].addr, 16))) {
		port_ip6_src_set(pt, f.a[0].addr);
		log_info("port %s: ICMPv6 errors and neighbour solicitations now from %s", pt->name,
		         inet_str(AF_INET6, f.a[0].addr, ip, sizeof(ip)));
	}
	if (o.n && !f.n)
		forwarding_set(env, i, false);
	commit_adds(env, o, f, i);
	commit_removes(env, next, o, f, i);
	if (!o.n && f.n)
		forwarding_set(env, i, true);
	if (o.n && !f.n) {
		/* Link-local next hops too (FRR's): no neighbour of a port without IPv6. */
		if (env->neigh6)
			neigh6_forget_port(env->neigh6, (uint16_t)i);
		port_ip6_src_set(pt, NULL);
	}
}

void addrs6_commit(const struct addrs6_env *env, const struct cfg *cur, const struct cfg *next)
{
	for (unsigned i = 0; i < if6_count(next) && i < env->dp->nports; i++)
		commit_port(env, cur, next, i);
}

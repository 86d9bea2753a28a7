/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * /cellgate/state/fib/route and route6 for the RESTCONF server: the RIB's
 * and the RIB6's prefix order read in slices (rib_walk_range,
 * rib6_walk_range), each route turned into the plain
 * struct the server prints. Nothing here builds a tree or holds a list:
 * the server asks for a few thousand routes per turn of the event loop.
 */
#include <string.h>

#include "daemon/mgmt.h"
#include "daemon/rib6.h"
#include "mgmt/restconf/restconf.h"

static const char *route_type(enum nh_type t)
{
	switch (t) {
	case NH_GATEWAY:
		return "gateway";
	case NH_GLEAN:
		return "connected";
	case NH_BLACKHOLE:
		return "blackhole";
	case NH_UNREACHABLE:
		return "unreachable";
	case NH_NEIGH_FAILED:
		return "neighbor-failed";
	default:
		return "local";
	}
}

struct route_conv {
	const struct control *ctl;
	restconf_route_fn fn;
	void *ctx;
};

static void route_conv(void *arg, const struct rib_entry *e)
{
	const struct route_conv *c = arg;
	struct restconf_route r = {.prefix = e->prefix,
	                           .len = e->len,
	                           .source = rib_source_name(e->source),
	                           .type = route_type(e->type)};

	if (e->type == NH_GATEWAY || e->type == NH_GLEAN) {
		for (unsigned i = 0; i < e->npaths && i < RC_ROUTE_NH_MAX; i++) {
			const struct rib_path *p = &e->paths[i];
			r.nexthop[i].address = e->type == NH_GATEWAY ? p->gw : 0;
			r.nexthop[i].interface = c->ctl->dp->ports[p->port].name;
			r.nexthop[i].weight = p->weight;
			r.nnexthops++;
		}
	}
	c->fn(c->ctx, &r);
}

unsigned mgmt_routes(struct control *ctl, uint64_t *from, uint64_t to, unsigned max,
                     restconf_route_fn fn, void *ctx)
{
	struct route_conv c = {.ctl = ctl, .fn = fn, .ctx = ctx};

	return rib_walk_range(ctl->rib, from, to, max, route_conv, &c);
}

uint64_t mgmt_routes_count(struct control *ctl, uint64_t from, uint64_t to)
{
	return rib_count_range(ctl->rib, from, to);
}

uint64_t mgmt_routes_skip(struct control *ctl, uint64_t from, uint64_t to, uint64_t n)
{
	return rib_skip_range(ctl->rib, from, to, n);
}

struct route6_conv {
	const struct control *ctl;
	restconf_route6_fn fn;
	void *ctx;
};

static void route6_conv(void *arg, const struct rib6_entry *e)
{
	const struct route6_conv *c = arg;
	struct restconf_route6 r = {
	    .len = e->len, .source = rib_source_name(e->source), .type = route_type(e->type)};

	memcpy(r.prefix, e->prefix, 16);
	if (e->type == NH_GATEWAY || e->type == NH_GLEAN) {
		for (unsigned i = 0; i < e->npaths && i < RC_ROUTE_NH_MAX; i++) {
			r.nexthop[i].has_address = e->type == NH_GATEWAY;
			memcpy(r.nexthop[i].address, e->paths[i].gw, 16);
			r.nexthop[i].interface = c->ctl->dp->ports[e->paths[i].port].name;
			r.nexthop[i].weight = e->paths[i].weight;
			r.nnexthops++;
		}
	}
	c->fn(c->ctx, &r);
}

static struct rib6_key key_in(const struct restconf_key6 *k)
{
	return rib6_key_of(k->prefix, k->len);
}

unsigned mgmt_routes6(struct control *ctl, struct restconf_key6 *from,
                      const struct restconf_key6 *to, unsigned max, restconf_route6_fn fn,
                      void *ctx)
{
	struct route6_conv c = {.ctl = ctl, .fn = fn, .ctx = ctx};
	struct rib6_key f = key_in(from), t = key_in(to);
	unsigned n = rib6_walk_range(ctl->rib6, &f, &t, max, route6_conv, &c);

	rib6_key_prefix(&f, from->prefix);
	from->len = f.len; /* 129 past the last key (restconf.h) */
	return n;
}

uint64_t mgmt_routes6_count(struct control *ctl, const struct restconf_key6 *from,
                            const struct restconf_key6 *to)
{
	struct rib6_key f = key_in(from), t = key_in(to);

	return rib6_count_range(ctl->rib6, &f, &t);
}

bool mgmt_routes6_skip(struct control *ctl, const struct restconf_key6 *from,
                       const struct restconf_key6 *to, uint64_t n, struct restconf_key6 *out)
{
	struct rib6_key f = key_in(from), t = key_in(to), k;

	if (!rib6_skip_range(ctl->rib6, &f, &t, n, &k))
		return false;
	rib6_key_prefix(&k, out->prefix);
	out->len = k.len;
	return true;
}

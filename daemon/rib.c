/* SPDX-License-Identifier: BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/rib_priv.h"
#include "lib/addr.h"
#include "lib/log.h"

static const char *const source_names[RIB_SRC__MAX] = {
    [RIB_SRC_LOCAL] = "local",   [RIB_SRC_CONNECTED] = "connected", [RIB_SRC_FRR] = "frr",
    [RIB_SRC_STATIC] = "static", [RIB_SRC_NEIGH] = "neighbor",
};

const char *rib_source_name(enum rib_source s)
{
	return s < RIB_SRC__MAX ? source_names[s] : "?";
}

#define ROUTE_USED       (1ull << 40)
#define ROUTE_SLOTS_INIT (1u << 16)

static uint64_t route_key(uint32_t prefix, uint8_t len)
{
	return ROUTE_USED | (uint64_t)prefix << 8 | len;
}

static const char *route_str(uint64_t key, char *buf, size_t sz)
{
	(void)sz;
	return pfx4_str((uint32_t)(key >> 8), (uint8_t)key, buf);
}

struct rib *rib_new(struct dataplane *dp, rib_l2_seed_fn seed, void *seed_arg)
{
	struct rib *rib = calloc(1, sizeof(*rib));

	if (!rib)
		return NULL;
	rib->dp = dp;
	rib->seed = seed;
	rib->seed_arg = seed_arg;
	rib->nh_meta = calloc(NH_MAX, sizeof(*rib->nh_meta));
	rib->nhg_meta = calloc(NHG_MAX, sizeof(*rib->nhg_meta));
	if (oa_init(&rib->routes, sizeof(struct rib_route), ROUTE_SLOTS_INIT) || !rib->nh_meta ||
	    !rib->nhg_meta || ids_init(&rib->nh_ids, NH_MAX) || ids_init(&rib->nhg_ids, NHG_MAX)) {
		rib_free(rib);
		return NULL;
	}
	kset_init(&rib->order);
	return rib;
}

void rib_free(struct rib *rib)
{
	if (!rib)
		return;
	oa_fini(&rib->routes);
	kset_fini(&rib->order);
	free(rib->nh_meta);
	free(rib->nhg_meta);
	ids_fini(&rib->nh_ids);
	ids_fini(&rib->nhg_ids);
	free(rib);
}

/* Port id of a gateway reachable on a connected subnet (or a resolved host route), or -1. */
static int rib_gateway_port(const struct rib *rib, uint32_t gw)
{
	uint32_t g = fib_lookup(&rib->dp->fib, gw);

	if (!g)
		return -1;
	const struct nexthop *nh = &rib->dp->nht->nh[rib->dp->nht->nhg[g].slot[0]];
	if (nh->type == NH_GLEAN || (nh->type == NH_GATEWAY && nh->gw == gw))
		return nh->port;
	return -1;
}

static uint32_t rib_group_build(struct rib *rib, enum nh_type type, const struct rib_path *paths,
                                unsigned n, uint64_t key)
{
	char what[INET_ADDRSTRLEN + 4];
	uint32_t nh[NHG_PATHS_MAX];
	uint8_t w[NHG_PATHS_MAX];
	unsigned k = 0;
	bool created;

	if (type != NH_GATEWAY)
		n = 1;
	for (unsigned i = 0; i < n && k < NHG_PATHS_MAX; i++) {
		int port = paths ? paths[i].port : 0;
		uint32_t gw = type == NH_GATEWAY ? paths[i].gw : 0;

		if (type == NH_GATEWAY && port < 0)
			port = rib_gateway_port(rib, gw);
		if (port < 0) {
			char b[INET_ADDRSTRLEN + 4];
			log_warnx(
			    "route %s: next hop %s is not on a connected subnet: path skipped",
			    route_str(key, what, sizeof(what)), ip4_str(gw, b));
			continue;
		}
		uint32_t id = rib_nh_ref(rib, type, (uint16_t)port, gw);
		if (!id) {
			log_warnx("route %s: next-hop table full (%u entries)",
			          route_str(key, what, sizeof(what)), NH_MAX);
			continue;
		}
		/* Keep the list sorted by id so equal sets share one group. */
		unsigned j = k;
		while (j > 0 && nh[j - 1] > id) {
			nh[j] = nh[j - 1];
			w[j] = w[j - 1];
			j--;
		}
		nh[j] = id;
		w[j] = paths && paths[i].weight ? paths[i].weight : 1;
		k++;
	}
	if (k == 0)
		return 0;
	uint32_t g = rib_nhg_ref(rib, nh, w, k, &created);
	if (!created) /* an existing group already holds its own references */
		for (unsigned i = 0; i < k; i++)
			rib_nh_unref(rib, nh[i]);
	if (!g)
		log_warnx("route %s: next-hop group table full (%u entries)",
		          route_str(key, what, sizeof(what)), NHG_MAX);
	return g;
}

/* The prefix order holds exactly the installed routes: r is about to go from installed to best. */
static void rib_order_update(struct rib *rib, const struct rib_route *r, uint32_t best)
{
	uint64_t k = r->key & ~ROUTE_USED;

	if (best && !r->installed && kset_insert(&rib->order, k) == -ENOMEM) {
		char what[INET_ADDRSTRLEN + 4];
		if (rib->order_errors++ == 0)
			log_warnx("route %s: out of memory for the route list: it is installed but "
			          "RESTCONF will not list it",
			          route_str(r->key, what, sizeof(what)));
	} else if (!best && r->installed) {
		kset_remove(&rib->order, k);
	}
}

/* Put the preferred source's group in the FIB if it is not there already. */
static int rib_program(struct rib *rib, struct rib_route *r)
{
	uint32_t best = 0;
	int err = 0;

	for (int s = 0; s < RIB_SRC__MAX && !best; s++)
		best = r->nhg[s];
	if (best == r->installed)
		return 0;
	uint32_t prefix = (uint32_t)(r->key >> 8);
	uint8_t len = (uint8_t)r->key;
	if (best)
		err = fib_insert(&rib->dp->fib, prefix, len, best);
	else
		err = fib_delete(&rib->dp->fib, prefix, len);
	if (err) {
		char what[INET_ADDRSTRLEN + 4];
		rib->errors++;
		errno = -err;
		log_warn("route %s: FIB %s", route_str(r->key, what, sizeof(what)),
		         best ? "insert" : "delete");
		return err;
	}
	rib_order_update(rib, r, best);
	r->installed = (uint16_t)best;
	return 0;
}

int rib_route_set(struct rib *rib, uint32_t prefix, uint8_t len, enum rib_source source,
                  enum nh_type type, const struct rib_path *paths, unsigned npaths)
{
	uint64_t key = route_key(prefix, len);

	if (len > 32 || (len < 32 && (prefix & (0xffffffffu >> len)))) {
		char what[INET_ADDRSTRLEN + 4];
		log_warnx("route %s: host bits set or length above 32",
		          pfx4_str(prefix, len, what));
		return -EINVAL;
	}
	uint32_t g = rib_group_build(rib, type, paths, npaths, key);
	if (!g)
		return -ENETUNREACH;
	if (oa_reserve(&rib->routes) != 0) {
		rib_nhg_unref(rib, g);
		return -ENOMEM;
	}
	struct rib_route *r = oa_slot(&rib->routes, key);
	if (!r->key)
		oa_claim(&rib->routes, r, key);
	uint32_t old = r->nhg[source];
	r->nhg[source] = (uint16_t)g;
	if (!old)
		rib->nroutes[source]++;
	int err = rib_program(rib, r);
	if (old)
		rib_nhg_unref(rib, old);
	return err;
}

int rib_route_del(struct rib *rib, uint32_t prefix, uint8_t len, enum rib_source source)
{
	struct rib_route *r = oa_find(&rib->routes, route_key(prefix, len));

	if (!r || !r->nhg[source])
		return -ENOENT;
	uint32_t old = r->nhg[source];
	r->nhg[source] = 0;
	rib->nroutes[source]--;
	int err = rib_program(rib, r);
	rib_nhg_unref(rib, old);
	bool empty = true;
	for (int s = 0; s < RIB_SRC__MAX; s++)
		empty &= r->nhg[s] == 0;
	if (empty && r->installed == 0)
		oa_remove(&rib->routes, r);
	return err;
}

void rib_route_prefetch(const struct rib *rib, uint32_t prefix, uint8_t len)
{
	uint64_t key = route_key(prefix, len);
	const void *old = oa_old_home_slot(&rib->routes, key);

	__builtin_prefetch(oa_home_slot(&rib->routes, key), 1);
	if (old)
		__builtin_prefetch(old, 0);
}

int rib_route_best(const struct rib *rib, uint32_t prefix, uint8_t len)
{
	const struct rib_route *r = oa_find(&rib->routes, route_key(prefix, len));

	for (int s = 0; r && s < RIB_SRC__MAX; s++)
		if (r->nhg[s])
			return s;
	return -1;
}

void rib_nh_l2_update(struct rib *rib, uint16_t port, uint32_t ip, uint64_t l2)
{
	uint32_t id = rib_nh_find(rib, NH_GATEWAY, port, ip);

	if (id)
		__atomic_store_n(&rib->dp->nht->nh[id].l2, l2, __ATOMIC_RELEASE);
}

bool rib_nh_gateway_exists(const struct rib *rib, uint16_t port, uint32_t ip)
{
	return rib_nh_find(rib, NH_GATEWAY, port, ip) != 0;
}

bool rib_reclaim_pending(const struct rib *rib)
{
	return rib->nh_ids.npending || rib->nhg_ids.npending;
}

void rib_reclaim(struct rib *rib)
{
	ids_reclaim(&rib->nh_ids);
	ids_reclaim(&rib->nhg_ids);
}

void rib_get_counts(const struct rib *rib, struct rib_counts *out)
{
	struct fib_stats fs;

	memset(out, 0, sizeof(*out));
	for (int s = 0; s < RIB_SRC__MAX; s++)
		out->routes[s] = rib->nroutes[s];
	fib_get_stats(&rib->dp->fib, &fs);
	out->fib_algorithm = rib->dp->fib.algo->name;
	out->fib_routes = fs.routes;
	out->nexthops = rib->nnh;
	out->nhgroups = rib->nnhg;
	out->errors = rib->errors;
	out->fib_memory = fs.memory_bytes;
	out->fib_lookup_memory = fs.lookup_bytes;
	out->rib_memory = sizeof(*rib) + (uint64_t)oa_bytes(&rib->routes) +
	                  kset_memory(&rib->order) +
	                  (uint64_t)NH_MAX * (sizeof(*rib->nh_meta) + 2 * sizeof(uint32_t)) +
	                  (uint64_t)NHG_MAX * (sizeof(*rib->nhg_meta) + 2 * sizeof(uint32_t));
}

static void rib_entry_fill(const struct rib *rib, const struct rib_route *r, struct rib_entry *e)
{
	const struct nhg_meta *g = &rib->nhg_meta[r->installed];

	e->prefix = (uint32_t)(r->key >> 8);
	e->len = (uint8_t)r->key;
	e->source = RIB_SRC__MAX;
	for (int s = RIB_SRC__MAX - 1; s >= 0; s--)
		if (r->nhg[s] == r->installed)
			e->source = (enum rib_source)s;
	e->npaths = 0;
	e->type = NH_UNUSED;
	for (unsigned i = 0; i < g->n && i < NHG_PATHS_MAX; i++) {
		const struct nexthop *nh = &rib->dp->nht->nh[g->nh[i]];
		if (i == 0)
			e->type = (enum nh_type)nh->type;
		e->paths[e->npaths++] =
		    (struct rib_path){.gw = nh->gw, .port = nh->port, .weight = g->w[i]};
	}
}

unsigned rib_walk_range(const struct rib *rib, uint64_t *from, uint64_t to, unsigned max,
                        rib_walk_fn fn, void *arg)
{
	struct kset_pos p;
	struct rib_entry e;
	unsigned n = 0;
	bool more;

	if (*from > to || max == 0)
		return 0;
	for (more = kset_seek(&rib->order, *from, &p); more && n < max;
	     more = kset_next(&rib->order, &p)) {
		uint64_t k = kset_at(&rib->order, &p);
		const struct rib_route *r;

		if (k > to)
			break;
		*from = k + 1;
		r = oa_find(&rib->routes, k | ROUTE_USED);
		if (!r || !r->installed) /* cannot happen: the order follows rib_program */
			continue;
		rib_entry_fill(rib, r, &e);
		fn(arg, &e);
		n++;
	}
	if (!more || n < max)
		*from = to + 1;
	return n;
}

uint64_t rib_count_range(const struct rib *rib, uint64_t from, uint64_t to)
{
	return kset_count(&rib->order, from, to);
}

uint64_t rib_skip_range(const struct rib *rib, uint64_t from, uint64_t to, uint64_t n)
{
	struct kset_pos p;

	if (from > to || !kset_seek(&rib->order, from, &p) || !kset_skip(&rib->order, &p, n))
		return to + 1;
	uint64_t k = kset_at(&rib->order, &p);
	return k > to ? to + 1 : k;
}

bool rib_route_get(const struct rib *rib, uint32_t prefix, uint8_t len, struct rib_entry *e)
{
	const struct rib_route *r = oa_find(&rib->routes, route_key(prefix, len));

	if (!r || !r->installed)
		return false;
	rib_entry_fill(rib, r, e);
	return true;
}

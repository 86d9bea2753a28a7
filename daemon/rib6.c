/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 routes into the FIB6 (rib6.h). IPv6 gateway next hops live in the
 * IPv4 RIB's next-hop hash chains under keys of their own (bit 63 set, which
 * no IPv4 key has: nh_key puts the type, below 8, at bit 48), with a 32-bit
 * hash of the gateway in the low bits; lookups compare the whole address
 * (nht->gw6), so two gateways with the same hash stay two next hops. Next
 * hops without a gateway (local, blackhole, unreachable, glean) are the
 * IPv4 ones: the worker reads nothing family-specific in them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/rib6.h"
#include "daemon/rib6_order.h"
#include "daemon/rib_priv.h"
#include "lib/addr.h"
#include "lib/log.h"

#define RIB6_SLOTS_INIT 4096u
#define NH6_KEY_BIT     (1ull << 63)

/*
 * One entry of the route table, an oa_table (see oa_table.h for why: no
 * allocation per route, one cache miss a lookup, growth in small steps).
 * The key is a hash of prefix and length (136 bits do not fit 64), so
 * lookups also compare those (oa_find_eq). 40 bytes a route.
 */
struct rib6_route {
	uint64_t key; /* oa_key_prefix6(prefix, len), never 0 */
	uint8_t prefix[16];
	uint8_t len;
	/* Group ids fit 16 bits (NHG_MAX), as in the IPv4 RIB's routes. */
	uint16_t nhg[RIB_SRC__MAX];
	uint16_t installed; /* group id in the FIB6, 0 = none */
};

_Static_assert(sizeof(struct rib6_route) == 40, "rib6_route: 40 bytes, as its comment says");

/* What a route is, for oa_find_eq. */
struct route_id {
	const uint8_t *prefix;
	uint8_t len;
};

struct rib6 {
	struct rib *rib;
	rib6_l2_seed_fn seed;
	void *seed_arg;
	/* Of struct rib6_route. FPM brings ~220k (issue 16): it grows in steps, never in one go. */
	struct oa_table routes;
	/* Installed routes' keys in prefix order: the route6 list's cursor (rib6.h). */
	struct rib6_order order;
	uint64_t order_errors; /* installed routes the order could not take (ENOMEM) */
	uint64_t nroutes[RIB_SRC__MAX];
	uint64_t ninstalled; /* routes with a group in the FIB6 */
	uint64_t errors;
};

static uint32_t addr_hash(const uint8_t a[16])
{
	uint64_t hi, lo;

	memcpy(&hi, a, 8);
	memcpy(&lo, a + 8, 8);
	return rib_hash32(hi ^ rib_hash32(lo) ^ lo << 17);
}

static uint64_t nh6_key(enum nh_type type, uint16_t port, const uint8_t gw[16])
{
	return NH6_KEY_BIT | (uint64_t)type << 48 | (uint64_t)port << 32 | addr_hash(gw);
}

static const char *pfx6_str(const uint8_t p[16], uint8_t len, char *buf, size_t sz)
{
	char a[INET6_ADDRSTRLEN];

	inet_str(AF_INET6, p, a, sizeof(a));
	snprintf(buf, sz, "%s/%u", a, len);
	return buf;
}

struct rib6 *rib6_new(struct rib *rib, rib6_l2_seed_fn seed, void *seed_arg)
{
	struct rib6 *r6 = calloc(1, sizeof(*r6));

	if (!r6)
		return NULL;
	if (oa_init(&r6->routes, sizeof(struct rib6_route), RIB6_SLOTS_INIT) != 0) {
		free(r6);
		return NULL;
	}
	rib6_order_init(&r6->order);
	r6->rib = rib;
	r6->seed = seed;
	r6->seed_arg = seed_arg;
	return r6;
}

void rib6_set_seed(struct rib6 *r6, rib6_l2_seed_fn seed, void *seed_arg)
{
	r6->seed = seed;
	r6->seed_arg = seed_arg;
}

void rib6_free(struct rib6 *r6)
{
	if (!r6)
		return;
	oa_fini(&r6->routes);
	rib6_order_fini(&r6->order);
	free(r6);
}

static uint32_t nh6_find(const struct rib6 *r6, enum nh_type type, uint16_t port,
                         const uint8_t gw[16])
{
	const struct rib *rib = r6->rib;
	uint64_t key = nh6_key(type, port, gw);

	for (uint32_t id = rib->nh_bucket[rib_hash32(key) % NH_BUCKETS]; id;
	     id = rib->nh_meta[id].next)
		if (rib->nh_meta[id].key == key && !memcmp(rib->dp->nht->gw6[id], gw, 16))
			return id;
	return 0;
}

/* A reference to the IPv6 next hop (type, port, gw), created if needed; 0 when full. */
static uint32_t nh6_ref(struct rib6 *r6, enum nh_type type, uint16_t port, const uint8_t gw[16])
{
	struct rib *rib = r6->rib;
	uint32_t id = nh6_find(r6, type, port, gw);

	if (id) {
		rib->nh_meta[id].refcnt++;
		return id;
	}
	id = ids_get(&rib->nh_ids);
	if (!id)
		return 0;
	struct nexthop *nh = &rib->dp->nht->nh[id];
	memcpy(rib->dp->nht->gw6[id], gw, 16);
	nh->type = (uint8_t)type;
	nh->port = port;
	nh->gw = 0;
	nh->l2 = type == NH_GATEWAY && r6->seed ? r6->seed(r6->seed_arg, port, gw) : 0;
	uint64_t key = nh6_key(type, port, gw);
	uint32_t b = rib_hash32(key) % NH_BUCKETS;
	rib->nh_meta[id] = (struct nh_meta){.key = key, .refcnt = 1, .next = rib->nh_bucket[b]};
	rib->nh_bucket[b] = id;
	rib->nnh++;
	return id;
}

/* The port a gateway is reached by: the connected prefix (glean) or host route covering it. */
static int gateway_port(const struct rib6 *r6, const uint8_t gw[16])
{
	const struct dataplane *dp = r6->rib->dp;
	uint32_t g = fib6_lookup(dp->fib6, gw);

	if (!g)
		return -1;
	uint32_t id = dp->nht->nhg[g].slot[0];
	const struct nexthop *nh = &dp->nht->nh[id];
	if (nh->type == NH_GLEAN || (nh->type == NH_GATEWAY && !memcmp(dp->nht->gw6[id], gw, 16)))
		return nh->port;
	return -1;
}

/* The route being set, for messages: formatted only when one is logged. */
struct route_what {
	const uint8_t *prefix;
	uint8_t len;
};

/* One next hop of a group: 0 when skipped (logged). */
static uint32_t path_nh(struct rib6 *r6, enum nh_type type, const struct rib6_path *p,
                        const struct route_what *rw)
{
	static const uint8_t zero[16];
	const uint8_t *gw = p && (type == NH_GATEWAY || type == NH_NEIGH_FAILED) ? p->gw : zero;
	int port = p ? p->port : 0;
	char b[INET6_ADDRSTRLEN], what[INET6_ADDRSTRLEN + 4];
	uint32_t id;

	if (type == NH_GATEWAY && port < 0)
		port = gateway_port(r6, gw);
	if (port < 0) {
		log_warnx("route %s: next hop %s is not on a connected prefix: path skipped",
		          pfx6_str(rw->prefix, rw->len, what, sizeof(what)),
		          inet_str(AF_INET6, gw, b, sizeof(b)));
		return 0;
	}
	if (gw == zero)
		id = rib_nh_ref(r6->rib, type, (uint16_t)port, 0);
	else
		id = nh6_ref(r6, type, (uint16_t)port, gw);
	if (!id)
		log_warnx("route %s: next-hop table full (%u entries)",
		          pfx6_str(rw->prefix, rw->len, what, sizeof(what)), NH_MAX);
	return id;
}

static uint32_t group_build(struct rib6 *r6, enum nh_type type, const struct rib6_path *paths,
                            unsigned n, const struct route_what *rw)
{
	uint32_t nh[NHG_PATHS_MAX];
	uint8_t w[NHG_PATHS_MAX];
	unsigned k = 0;
	bool created;

	if (type != NH_GATEWAY)
		n = 1;
	for (unsigned i = 0; i < n && k < NHG_PATHS_MAX; i++) {
		uint32_t id = path_nh(r6, type, paths ? &paths[i] : NULL, rw);
		unsigned j = k;

		if (!id)
			continue;
		/* Sorted by id so equal sets share one group (as rib.c). */
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
	uint32_t g = rib_nhg_ref(r6->rib, nh, w, k, &created);
	if (!created)
		for (unsigned i = 0; i < k; i++)
			rib_nh_unref(r6->rib, nh[i]);
	if (!g) {
		char what[INET6_ADDRSTRLEN + 4];
		log_warnx("route %s: next-hop group table full (%u entries)",
		          pfx6_str(rw->prefix, rw->len, what, sizeof(what)), NHG_MAX);
	}
	return g;
}

static bool route_eq(const void *e, const void *arg)
{
	const struct rib6_route *r = e;
	const struct route_id *id = arg;

	return r->len == id->len && !memcmp(r->prefix, id->prefix, 16);
}

static struct rib6_route *route_find(const struct rib6 *r6, const uint8_t prefix[16], uint8_t len)
{
	struct route_id id = {prefix, len};

	return oa_find_eq(&r6->routes, oa_key_prefix6(prefix, len), route_eq, &id);
}

/* The prefix order holds exactly the installed routes: r goes from installed to best. */
static void route_order_update(struct rib6 *r6, const struct rib6_route *r, uint32_t best)
{
	struct rib6_key k;

	if (!best == !r->installed)
		return;
	k = rib6_key_of(r->prefix, r->len);
	if (!best) {
		rib6_order_remove(&r6->order, &k);
	} else if (rib6_order_insert(&r6->order, &k) == -ENOMEM && r6->order_errors++ == 0) {
		char what[INET6_ADDRSTRLEN + 4];
		log_warnx("route %s: out of memory for the route6 list: it is installed but "
		          "RESTCONF will not list it",
		          pfx6_str(r->prefix, r->len, what, sizeof(what)));
	}
}

/* Put the preferred source's group in the FIB6 if it is not there already. */
static int route_program(struct rib6 *r6, struct rib6_route *r)
{
	struct fib6 *fib = r6->rib->dp->fib6;
	uint32_t best = 0;
	int err;

	for (int s = 0; s < RIB_SRC__MAX && !best; s++)
		best = r->nhg[s];
	if (best == r->installed)
		return 0;
	err =
	    best ? fib6_insert(fib, r->prefix, r->len, best) : fib6_delete(fib, r->prefix, r->len);
	if (err) {
		char what[INET6_ADDRSTRLEN + 4];
		r6->errors++;
		errno = -err;
		log_warn("route %s: FIB6 %s", pfx6_str(r->prefix, r->len, what, sizeof(what)),
		         best ? "insert" : "delete");
		return err;
	}
	route_order_update(r6, r, best);
	r6->ninstalled += (best != 0) - (r->installed != 0);
	r->installed = (uint16_t)best;
	return 0;
}

/* No host bits: a byte at a time (FPM sets ~220k routes in one go). */
static bool prefix_ok(const uint8_t p[16], uint8_t len)
{
	if (len > 128)
		return false;
	if (len % 8 && (p[len / 8] & (0xffu >> (len % 8))))
		return false;
	for (unsigned i = (len + 7u) / 8; i < 16; i++)
		if (p[i])
			return false;
	return true;
}

int rib6_route_set(struct rib6 *r6, const uint8_t prefix[16], uint8_t len, enum rib_source source,
                   enum nh_type type, const struct rib6_path *paths, unsigned npaths)
{
	struct route_what rw = {prefix, len};

	if (!prefix_ok(prefix, len)) {
		char what[INET6_ADDRSTRLEN + 4];
		log_warnx("route %s: host bits set or length above 128",
		          pfx6_str(prefix, len, what, sizeof(what)));
		return -EINVAL;
	}
	uint32_t g = group_build(r6, type, paths, npaths, &rw);
	if (!g)
		return -ENETUNREACH;
	if (oa_reserve(&r6->routes) != 0) {
		rib_nhg_unref(r6->rib, g);
		return -ENOMEM;
	}
	struct route_id id = {prefix, len};
	uint64_t key = oa_key_prefix6(prefix, len);
	struct rib6_route *r = oa_slot_eq(&r6->routes, key, route_eq, &id);
	if (!r->key) {
		oa_claim(&r6->routes, r, key);
		memcpy(r->prefix, prefix, 16);
		r->len = len;
	}
	uint32_t old = r->nhg[source];
	r->nhg[source] = (uint16_t)g;
	if (!old)
		r6->nroutes[source]++;
	int err = route_program(r6, r);
	if (old)
		rib_nhg_unref(r6->rib, old);
	return err;
}

int rib6_route_del(struct rib6 *r6, const uint8_t prefix[16], uint8_t len, enum rib_source source)
{
	struct rib6_route *r = route_find(r6, prefix, len);

	if (!r || !r->nhg[source])
		return -ENOENT;
	uint32_t old = r->nhg[source];
	r->nhg[source] = 0;
	r6->nroutes[source]--;
	int err = route_program(r6, r);
	rib_nhg_unref(r6->rib, old);
	bool empty = r->installed == 0;
	for (int s = 0; s < RIB_SRC__MAX; s++)
		empty &= r->nhg[s] == 0;
	if (empty)
		oa_remove(&r6->routes, r);
	return err;
}

void rib6_route_prefetch(const struct rib6 *r6, const uint8_t prefix[16], uint8_t len)
{
	const struct oa_table *t = &r6->routes;

	/* Its home in the current table: where it is, unless growth has not moved it yet. */
	__builtin_prefetch(oa_at(t, oa_home(oa_key_prefix6(prefix, len), t->nslots)), 1);
}

int rib6_route_best(const struct rib6 *r6, const uint8_t prefix[16], uint8_t len)
{
	const struct rib6_route *r = route_find(r6, prefix, len);

	for (int s = 0; r && s < RIB_SRC__MAX; s++)
		if (r->nhg[s])
			return s;
	return -1;
}

void rib6_nh_l2_update(struct rib6 *r6, uint16_t port, const uint8_t ip[16], uint64_t l2)
{
	uint32_t id = nh6_find(r6, NH_GATEWAY, port, ip);

	if (id)
		__atomic_store_n(&r6->rib->dp->nht->nh[id].l2, l2, __ATOMIC_RELEASE);
}

uint64_t rib6_nh_l2_get(const struct rib6 *r6, uint16_t port, const uint8_t ip[16])
{
	uint32_t id = nh6_find(r6, NH_GATEWAY, port, ip);

	return id ? __atomic_load_n(&r6->rib->dp->nht->nh[id].l2, __ATOMIC_ACQUIRE) : 0;
}

bool rib6_nh_gateway_exists(const struct rib6 *r6, uint16_t port, const uint8_t ip[16])
{
	return nh6_find(r6, NH_GATEWAY, port, ip) != 0;
}

void rib6_get_counts(const struct rib6 *r6, uint64_t routes[RIB_SRC__MAX], uint64_t *errors)
{
	memcpy(routes, r6->nroutes, sizeof(r6->nroutes));
	*errors = r6->errors;
}

uint64_t rib6_installed(const struct rib6 *r6)
{
	return r6->ninstalled;
}

uint64_t rib6_memory(const struct rib6 *r6)
{
	return sizeof(*r6) + (uint64_t)oa_bytes(&r6->routes) + rib6_order_memory(&r6->order);
}

uint64_t rib6_order_bytes(const struct rib6 *r6)
{
	return rib6_order_memory(&r6->order);
}

static void rib6_entry_fill(const struct rib6 *r6, const struct rib6_route *r, struct rib6_entry *e)
{
	const struct nhg_meta *g = &r6->rib->nhg_meta[r->installed];
	const struct nh_tables *nht = r6->rib->dp->nht;

	memcpy(e->prefix, r->prefix, 16);
	e->len = r->len;
	e->source = RIB_SRC__MAX;
	for (int s = RIB_SRC__MAX - 1; s >= 0; s--)
		if (r->nhg[s] == r->installed)
			e->source = (enum rib_source)s;
	e->npaths = 0;
	e->type = NH_UNUSED;
	for (unsigned i = 0; i < g->n && i < NHG_PATHS_MAX; i++) {
		uint32_t id = g->nh[i];
		const struct nexthop *nh = &nht->nh[id];

		if (i == 0)
			e->type = (enum nh_type)nh->type;
		if (nh->type == NH_GATEWAY || nh->type == NH_NEIGH_FAILED)
			memcpy(e->paths[e->npaths].gw, nht->gw6[id], 16);
		else
			memset(e->paths[e->npaths].gw, 0, 16);
		e->paths[e->npaths].port = nh->port;
		e->paths[e->npaths].weight = g->w[i];
		e->npaths++;
	}
}

unsigned rib6_walk_range(const struct rib6 *r6, struct rib6_key *from, const struct rib6_key *to,
                         unsigned max, rib6_walk_fn fn, void *arg)
{
	struct rib6_order_pos p;
	struct rib6_entry e;
	struct rib6_key k;
	uint8_t prefix[16];
	unsigned n = 0;
	bool more;

	if (rib6_key_cmp(from, to) > 0 || max == 0)
		return 0;
	for (more = rib6_order_seek(&r6->order, from, &p); more && n < max;
	     more = rib6_order_next(&r6->order, &p)) {
		const struct rib6_route *r;

		rib6_order_at(&r6->order, &p, &k);
		if (rib6_key_cmp(&k, to) > 0)
			break;
		*from = k;
		rib6_key_next(from);
		rib6_key_prefix(&k, prefix);
		r = route_find(r6, prefix, k.len);
		if (!r || !r->installed) /* cannot happen: the order follows route_program */
			continue;
		rib6_entry_fill(r6, r, &e);
		fn(arg, &e);
		n++;
	}
	if (!more || n < max) {
		*from = *to;
		rib6_key_next(from);
	}
	return n;
}

uint64_t rib6_count_range(const struct rib6 *r6, const struct rib6_key *from,
                          const struct rib6_key *to)
{
	return rib6_order_count(&r6->order, from, to);
}

bool rib6_skip_range(const struct rib6 *r6, const struct rib6_key *from, const struct rib6_key *to,
                     uint64_t n, struct rib6_key *out)
{
	struct rib6_order_pos p;

	if (rib6_key_cmp(from, to) > 0 || !rib6_order_seek(&r6->order, from, &p) ||
	    !rib6_order_skip(&r6->order, &p, n))
		return false;
	rib6_order_at(&r6->order, &p, out);
	return rib6_key_cmp(out, to) <= 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 routes from zebra, applied to the RIB6 as RIB_SRC_FRR: the IPv6 half
 * of fpm_table.c, with the same session generations (replay, stale sweep),
 * route limit, pending next-hop objects and rejections. What differs is the
 * next hop: an IPv6 gateway, and a link-local one (fe80::/10) is only
 * meaningful with the interface it is on (RFC 4007 §6, RFC 4291 §2.5.6),
 * which zebra always sends for the link-local next hops of BGP and static
 * routes; without one the route is refused, counted as "link-local-no-oif".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/fpm_table_priv.h"

static bool r6_eq(const void *e, const void *arg)
{
	const struct fpm_r6 *r = e;
	const struct fpm_r6_id *id = arg;

	return r->len == id->len && !memcmp(r->prefix, id->prefix, 16);
}

static struct fpm_r6_id r6_id(const uint8_t *prefix, uint8_t len)
{
	struct fpm_r6_id id = {.len = len};

	memcpy(id.prefix, prefix, 16);
	return id;
}

struct fpm_r6 *fpm_r6_find(const struct fpm_table *t, const struct fpm_r6_id *id)
{
	return oa_find_eq(&t->r6, oa_key_prefix6(id->prefix, id->len), r6_eq, id);
}

void fpm_r6_prefetch(const struct fpm_table *t, const uint8_t *dst, uint8_t len)
{
	uint64_t key = oa_key_prefix6(dst, len);
	const void *old = oa_old_home_slot(&t->r6, key);

	__builtin_prefetch(oa_home_slot(&t->r6, key), 1);
	if (old)
		__builtin_prefetch(old, 0);
	if (t->rib6)
		rib6_route_prefetch(t->rib6, dst, len);
}

int fpm_r6_session_start(struct fpm_table *t)
{
	struct fpm_r6_id *stale = NULL;
	uint32_t n = 0;

	if (t->r6.nused && !(stale = malloc((size_t)t->r6.nused * sizeof(*stale))))
		return -ENOMEM;
	uint64_t pos = 0;
	for (const struct fpm_r6 *e; (e = oa_next(&t->r6, &pos)) != NULL;)
		stale[n++] = r6_id(e->prefix, e->len);
	free(t->stale6);
	t->stale6 = stale;
	t->nstale6 = n;
	t->stale6_pos = 0;
	return 0;
}

/* RFC 4291 §2.5.6: fe80::/10. */
static bool link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static void target6_reject(struct fpm_target6 *tg, enum fpm_reject r, int32_t detail)
{
	tg->reject = (int8_t)r;
	tg->detail = detail;
}

/*
 * As fpm_target_from_paths: a gateway group, or one on-link port (NH_GLEAN)
 * when a path has no gateway; NHG_PATHS_MAX paths, the rest counted.
 */
void fpm_target6_from_paths(struct fpm_table *t, const struct fpm_path *p, unsigned n,
                            struct fpm_target6 *tg)
{
	static const uint8_t zero[16];

	tg->type = NH_GATEWAY;
	for (unsigned i = 0; i < n; i++) {
		int port = -1;
		if (p[i].gw_family && p[i].gw_family != AF_INET6)
			return target6_reject(tg, FPM_REJ_GW_FAMILY, p[i].gw_family);
		if (p[i].oif && (port = fpm_port_of_ifindex(t, p[i].oif)) < 0)
			return target6_reject(tg, FPM_REJ_IFINDEX, p[i].oif);
		bool gw = p[i].gw_family && memcmp(p[i].gw, zero, 16);
		if (gw && port < 0 && link_local(p[i].gw))
			return target6_reject(tg, FPM_REJ_LINK_LOCAL, 0);
		if (!gw && port < 0)
			continue; /* neither gateway nor interface: nothing to use */
		struct rib6_path rp = {.port = port, .weight = p[i].weight ? p[i].weight : 1};
		if (!gw) {
			/* On-link: the destination itself is the neighbour on that port. */
			t->c.paths_truncated += n > 1;
			tg->type = NH_GLEAN;
			tg->paths[0] = rp;
			tg->n = 1;
			return;
		}
		if (tg->n == NHG_PATHS_MAX) {
			t->c.paths_truncated++;
			continue;
		}
		memcpy(rp.gw, p[i].gw, 16);
		tg->paths[tg->n++] = rp;
	}
	if (!tg->n)
		target6_reject(tg, FPM_REJ_NO_PATH, 0);
}

static void route_target6(struct fpm_table *t, const struct fpm_route *r, struct fpm_target6 *tg)
{
	int32_t detail;
	int rej;

	memset(tg, 0, offsetof(struct fpm_target6, paths));
	tg->reject = -1;
	if ((rej = fpm_route_kind(r, &tg->type, &detail)) >= 0)
		return target6_reject(tg, rej, detail);
	if (r->type == RTN_UNICAST && !r->nh_id)
		fpm_target6_from_paths(t, r->paths, r->npaths, tg);
}

static void r6_flags_set(struct fpm_table *t, struct fpm_r6 *e, uint8_t flags)
{
	fpm_flags_count(&t->c.routes6_rib, &t->c.routes6_pending, &t->c.routes6_rejected,
	                e->flags, flags);
	e->flags = flags;
}

static void r6_withdraw(struct fpm_table *t, struct fpm_r6 *e)
{
	if (e->flags & R4_IN_RIB)
		rib6_route_del(t->rib6, e->prefix, e->len, RIB_SRC_FRR);
	r6_flags_set(t, e, e->flags & ~R4_IN_RIB);
}

static void r6_reject(struct fpm_table *t, struct fpm_r6 *e, enum fpm_reject r, long detail)
{
	r6_withdraw(t, e);
	r6_flags_set(t, e, R4_REJECTED);
	fpm_log_reject(t, AF_INET6, e->prefix, e->len, r, detail);
}

/* As r4_program: pending keeps the old forwarding until the session settles. */
static void r6_program(struct fpm_table *t, struct fpm_r6 *e, const struct fpm_target6 *tg)
{
	if (tg->pending) {
		if (t->settled)
			r6_withdraw(t, e);
		r6_flags_set(t, e, (e->flags & R4_IN_RIB) | R4_PENDING);
		return;
	}
	if (tg->reject >= 0)
		return r6_reject(t, e, tg->reject, tg->detail);
	if (!t->rib6) {
		r6_flags_set(t, e, 0); /* recorded only (no RIB6 to install into) */
		return;
	}
	bool paths = tg->type == NH_GATEWAY || tg->type == NH_GLEAN;
	int err = rib6_route_set(t->rib6, e->prefix, e->len, RIB_SRC_FRR, tg->type,
	                         paths ? tg->paths : NULL, paths ? tg->n : 0);
	if (err)
		return r6_reject(t, e, FPM_REJ_RIB, err);
	r6_flags_set(t, e, R4_IN_RIB);
}

void fpm_r6_reprogram(struct fpm_table *t, const struct fpm_r6_id *id,
                      const struct fpm_target6 *tg)
{
	struct fpm_r6 *e = fpm_r6_find(t, id);

	if (e)
		r6_program(t, e, tg);
}

static const struct fpm_target6 target6_pending = {.reject = -1, .pending = true};

static void r6_nh_unlink(struct fpm_table *t, struct fpm_r6 *e)
{
	if (e->nh && e->gen == t->gen)
		fpm_nh_dep6_del(t, t->nh[e->nh - 1], e->pos);
	e->nh = 0;
}

/*
 * The entry for r's prefix, created, or re-marked for this session; NULL
 * when refused. It stays where it is until the table changes again.
 */
static struct fpm_r6 *r6_claim(struct fpm_table *t, const struct fpm_route *r)
{
	struct fpm_r6_id id = r6_id(r->dst, r->dst_len);
	uint64_t key = oa_key_prefix6(id.prefix, id.len);

	if (oa_reserve(&t->r6) != 0) {
		fpm_log_reject(t, AF_INET6, r->dst, r->dst_len, FPM_REJ_RIB, -ENOMEM);
		return NULL;
	}
	struct fpm_r6 *e = oa_slot_eq(&t->r6, key, r6_eq, &id);
	if ((!e->key || e->gen != t->gen) && !fpm_limit_admit(t, 1)) {
		/* New to this session: a stale entry stays as it is, and is swept. */
		fpm_log_reject(t, AF_INET6, r->dst, r->dst_len, FPM_REJ_LIMIT, t->limit[1]);
		return NULL;
	}
	if (!e->key) {
		oa_claim(&t->r6, e, key);
		memcpy(e->prefix, id.prefix, 16);
		e->len = id.len;
		e->gen = t->gen;
		t->c.ipv6_added++;
	} else if (e->gen != t->gen) {
		/* Re-announced in the replay: no longer stale; the old object link is void. */
		e->gen = t->gen;
		e->nh = 0;
		t->c.ipv6_reconfirmed++;
		t->nstale_left--;
	} else {
		r6_nh_unlink(t, e);
		t->c.ipv6_replaced++;
	}
	return e;
}

void fpm_r6_new(struct fpm_table *t, const struct fpm_route *r)
{
	/* Control thread only; ~400 bytes, kept off every frame's stack. */
	static struct fpm_target6 tg;
	struct fpm_r6 *e = r6_claim(t, r);

	if (!e)
		return;
	route_target6(t, r, &tg);
	const struct fpm_target6 *use = &tg;
	if (r->nh_id && r->type == RTN_UNICAST && tg.reject < 0) {
		struct fpm_nh *n = fpm_nh_get(t, r->nh_id);
		if (!n || fpm_nh_dep6_add(t, n, e) != 0) {
			tg.reject = FPM_REJ_RIB;
			tg.detail = -ENOMEM;
		} else {
			e->nh = n->slot + 1;
			use = n->state == NHS_KNOWN ? &n->target6 : &target6_pending;
		}
	}
	r6_program(t, e, use);
}

static void r6_unlink(struct fpm_table *t, struct fpm_r6 *e)
{
	if (e->gen != t->gen)
		t->nstale_left--;
	else
		fpm_limit_release(t, 1);
	r6_nh_unlink(t, e);
	r6_withdraw(t, e);
	r6_flags_set(t, e, 0);
	oa_remove(&t->r6, e);
}

void fpm_r6_del(struct fpm_table *t, const struct fpm_route *r)
{
	struct fpm_r6_id id = r6_id(r->dst, r->dst_len);
	struct fpm_r6 *e = fpm_r6_find(t, &id);

	if (!e) {
		t->c.routes_del_unknown++;
		return;
	}
	r6_unlink(t, e);
	t->c.ipv6_deleted++;
}

bool fpm_r6_sweep(struct fpm_table *t, unsigned *budget)
{
	/* nstale_left counts IPv4 and IPv6: once the IPv4 list is done, what is left is IPv6. */
	while (t->nstale_left && t->stale6_pos < t->nstale6) {
		if (!*budget)
			return false;
		--*budget;
		struct fpm_r6 *e = fpm_r6_find(t, &t->stale6[t->stale6_pos++]);
		if (!e || e->gen == t->gen)
			continue;
		r6_unlink(t, e);
		t->c.ipv6_swept++;
	}
	free(t->stale6);
	t->stale6 = NULL;
	t->nstale6 = t->stale6_pos = 0;
	return true;
}

void fpm_table_batch_begin(struct fpm_table *t)
{
	if (t->rib6 && !t->batch) {
		fib6_batch_begin(t->dp->fib6);
		t->batch = true;
	}
}

int fpm_table_batch_end(struct fpm_table *t)
{
	if (!t->batch)
		return 0;
	int err = fib6_batch_end(t->dp->fib6);
	if (!err)
		t->batch = false;
	return err;
}

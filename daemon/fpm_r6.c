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

void fpm_r6_free_all(struct fpm_table *t)
{
	for (uint32_t b = 0; b < t->r6_buckets; b++)
		while (t->r6[b]) {
			struct fpm_r6 *n = t->r6[b]->next;
			free(t->r6[b]);
			t->r6[b] = n;
		}
}

static uint32_t r6_hash(const uint8_t *prefix, uint8_t len, uint32_t nbuckets)
{
	uint64_t a, b;

	memcpy(&a, prefix, 8);
	memcpy(&b, prefix + 8, 8);
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + len) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32) & (nbuckets - 1);
}

void fpm_r6_prefetch(const struct fpm_table *t, const uint8_t *dst, uint8_t len)
{
	__builtin_prefetch(&t->r6[r6_hash(dst, len, t->r6_buckets)], 0);
	if (t->rib6)
		rib6_route_prefetch(t->rib6, dst, len);
}

static struct fpm_r6 **r6_link(struct fpm_table *t, const uint8_t *prefix, uint8_t len)
{
	struct fpm_r6 **pp = &t->r6[r6_hash(prefix, len, t->r6_buckets)];

	while (*pp && ((*pp)->len != len || memcmp((*pp)->prefix, prefix, 16)))
		pp = &(*pp)->next;
	return pp;
}

static void r6_grow(struct fpm_table *t)
{
	uint32_t nb = t->r6_buckets * 2;
	struct fpm_r6 **n = calloc(nb, sizeof(*n));

	if (!n)
		return; /* longer chains, still correct */
	for (uint32_t b = 0; b < t->r6_buckets; b++)
		for (struct fpm_r6 *e = t->r6[b], *next; e; e = next) {
			next = e->next;
			uint32_t h = r6_hash(e->prefix, e->len, nb);
			e->next = n[h];
			n[h] = e;
		}
	free(t->r6);
	t->r6 = n;
	t->r6_buckets = nb;
	t->r6_sweep_pos = 0; /* entries moved: a sweep under way starts over (it is idempotent) */
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
void fpm_r6_reprogram(struct fpm_table *t, struct fpm_r6 *e, const struct fpm_target6 *tg)
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

static const struct fpm_target6 target6_pending = {.reject = -1, .pending = true};

static void r6_nh_unlink(struct fpm_table *t, struct fpm_r6 *e)
{
	if (e->nh && e->gen == t->gen)
		fpm_nh_dep6_del(t, t->nh[e->nh - 1], e->pos);
	e->nh = 0;
}

/* The entry for r's prefix, created, or re-marked for this session; NULL when refused. */
static struct fpm_r6 *r6_claim(struct fpm_table *t, const struct fpm_route *r)
{
	struct fpm_r6 **pp = r6_link(t, r->dst, r->dst_len), *e = *pp;

	if ((!e || e->gen != t->gen) && !fpm_limit_admit(t, 1)) {
		/* New to this session: a stale entry stays as it is, and is swept. */
		fpm_log_reject(t, AF_INET6, r->dst, r->dst_len, FPM_REJ_LIMIT, t->limit[1]);
		return NULL;
	}
	if (!e) {
		if (!(e = calloc(1, sizeof(*e)))) {
			fpm_limit_release(t, 1);
			fpm_log_reject(t, AF_INET6, r->dst, r->dst_len, FPM_REJ_RIB, -ENOMEM);
			return NULL;
		}
		memcpy(e->prefix, r->dst, 16);
		e->len = r->dst_len;
		e->gen = t->gen;
		*pp = e;
		t->c.ipv6_added++;
		if (++t->r6_used > t->r6_buckets * 2)
			r6_grow(t);
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
	fpm_r6_reprogram(t, e, use);
}

static void r6_unlink(struct fpm_table *t, struct fpm_r6 **pp)
{
	struct fpm_r6 *e = *pp;

	if (e->gen != t->gen)
		t->nstale_left--;
	else
		fpm_limit_release(t, 1);
	r6_nh_unlink(t, e);
	r6_withdraw(t, e);
	r6_flags_set(t, e, 0);
	*pp = e->next;
	free(e);
	t->r6_used--;
}

void fpm_r6_del(struct fpm_table *t, const struct fpm_route *r)
{
	struct fpm_r6 **pp = r6_link(t, r->dst, r->dst_len);

	if (!*pp) {
		t->c.routes_del_unknown++;
		return;
	}
	r6_unlink(t, pp);
	t->c.ipv6_deleted++;
}

bool fpm_r6_sweep(struct fpm_table *t, unsigned *budget)
{
	/* nstale_left counts IPv4 and IPv6: once the IPv4 list is done, what is left is IPv6. */
	while (t->nstale_left && t->r6_sweep_pos < t->r6_buckets) {
		if (!*budget)
			return false;
		--*budget;
		for (struct fpm_r6 **pp = &t->r6[t->r6_sweep_pos]; *pp;) {
			if ((*pp)->gen == t->gen) {
				pp = &(*pp)->next;
				continue;
			}
			r6_unlink(t, pp);
			t->c.ipv6_swept++;
			*budget -= *budget > 0;
		}
		t->r6_sweep_pos++;
	}
	t->r6_sweep_pos = 0;
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
